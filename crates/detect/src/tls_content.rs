//! Content lengths Suricata 7.0.10 requires on hash-like TLS buffers: every content of
//! `ja3.hash` or `ja3s.hash` must be 32 bytes ("Invalid length of the specified JA3
//! hash (should be 32 characters long)") and every content of `tls.cert_fingerprint`
//! 59 bytes (twenty hex pairs and their colons), negated or not, unless a transform
//! comes first; other lengths make the rule fail to load. Found by the differential
//! harness's `tls` family (tests/parity/difftest/fixed/dt-1-tls-lengths).

use rules::{Buffer, BufferMatches, Match};

use crate::sig::{failed, Refusal};

/// Refuses a content of the wrong length on a hash-like TLS buffer.
pub(crate) fn check(bm: &BufferMatches) -> Result<(), Refusal> {
    let want = match bm.buffer {
        Buffer::Ja3Hash | Buffer::Ja3sHash => 32,
        Buffer::TlsCertFingerprint => 59,
        _ => return Ok(()),
    };
    if !bm.transforms.is_empty() {
        return Ok(());
    }
    for m in &bm.matches {
        let Match::Content(c) = m else { continue };
        if c.pattern.len() != want {
            return Err(failed(
                bm.buffer.name(),
                format!(
                    "a {}-byte content on {} (Suricata requires {want})",
                    c.pattern.len(),
                    bm.buffer.name()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{DetectOptions, Detector};

    fn refused(opts: &str) -> bool {
        let rule = format!("alert tls any any -> any any ({opts} sid:1;)");
        let (set, _) = rules::RuleSet::load_str(
            &rule,
            None,
            &rules::Vars::suricata_default(),
            &Default::default(),
        );
        assert_eq!(set.rules.len(), 1, "{rule}");
        let (_, diags) = Detector::build(
            &set.rules,
            &DetectOptions::default(),
            &rules::Vars::default(),
        );
        !diags.is_empty()
    }

    #[test]
    fn hash_buffers_take_whole_hashes_only() {
        let h = "0123456789abcdef0123456789ABCDEF";
        let fp = "00:45:48:89:57:98:bc:a8:5c:9b:7d:61:b2:bc:e6:35:7d:7f:52:65";
        assert!(!refused(&format!("ja3.hash; content:\"{h}\";")));
        assert!(!refused(&format!("ja3s.hash; content:!\"{h}\";")));
        assert!(!refused(&format!(
            "tls.cert_fingerprint; content:\"{fp}\";"
        )));
        assert!(!refused("ja3.hash; to_md5; content:\"6e4\";"));
        assert!(!refused("ja3.hash; bsize:32;"));
        assert!(!refused("ja3.hash; pcre:\"/abc/\";"));
        assert!(refused("ja3.hash; content:\"6e4\";"));
        assert!(refused("ja3.hash; content:!\"6e4\";"));
        assert!(refused("ja3s.hash; content:\"c36f7\"; offset:27;"));
        assert!(refused(&format!(
            "ja3.hash; content:\"{h}\"; content:\"abc\";"
        )));
        assert!(refused("tls.cert_fingerprint; content:\"00\";"));
    }
}
