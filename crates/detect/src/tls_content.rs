//! Contents Suricata 7.0.10 refuses on hash-like TLS buffers (rules that fail to load,
//! while it warns they "will never match"): the first content of `ja3.hash` or
//! `ja3s.hash` must be 32 bytes ("Invalid length of the specified JA3 hash"), every
//! content of `tls.cert_fingerprint` 59 bytes (twenty hex pairs and their colons), and
//! the first content of `tls.cert_serial`, when longer than two bytes, must have a colon
//! ("No colon delimiters ':' detected"); negated contents count, a transform before
//! them exempts the buffer, and a second mention of the buffer continues its list (its
//! first content is not checked again). Found by the differential harness's `tls`
//! family (tests/parity/difftest/fixed/dt-1-tls-*). The SSH fingerprints are stricter:
//! every content of `ssh.hassh` or `ssh.hassh.server` (negated ones too, in any mention)
//! must be 32 hexadecimal digits ("Invalid length of the specified ssh.hassh", "should
//! be string of hexadecimal characters"; the `ssh` family, dt-1-ssh-*), and so is
//! `quic.cyu.hash` (the `quic` family).

use rules::{Buffer, BufferMatches, Match};

use crate::sig::{failed, Refusal};

/// Refuses a rule whose hash-like TLS buffers have contents Suricata refuses.
pub(crate) fn check(buffers: &[BufferMatches]) -> Result<(), Refusal> {
    let mut first_seen: Vec<Buffer> = Vec::new();
    for bm in buffers.iter().filter(|b| b.transforms.is_empty()) {
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            let first = !first_seen.contains(&bm.buffer);
            if first {
                first_seen.push(bm.buffer);
            }
            let len = c.pattern.len();
            let bad = match bm.buffer {
                Buffer::Ja3Hash | Buffer::Ja3sHash => first && len != 32,
                Buffer::SshHassh | Buffer::SshHasshServer | Buffer::QuicCyuHash => {
                    len != 32 || !c.pattern.iter().all(u8::is_ascii_hexdigit)
                }
                Buffer::TlsCertFingerprint => len != 59,
                Buffer::TlsCertSerial => first && len > 2 && !c.pattern.contains(&b':'),
                _ => false,
            };
            if bad {
                return Err(failed(
                    bm.buffer.name(),
                    format!(
                        "a {len}-byte content on {} Suricata refuses (hashes: 32 bytes, fingerprints: 59, serials: with colons)",
                        bm.buffer.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn refused(opts: &str) -> bool {
        crate::testutil::refused(&format!("alert tls any any -> any any ({opts} sid:1;)"))
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
        // Only the first content of ja3.hash/ja3s.hash, in one mention or two.
        assert!(!refused(&format!(
            "ja3.hash; content:\"{h}\"; content:\"abc\";"
        )));
        assert!(!refused(&format!(
            "ja3s.hash; content:\"{h}\"; ja3s.hash; content:!\"abc\";"
        )));
        assert!(refused("ja3.hash; bsize:32; content:\"abc\";"));
        assert!(refused("tls.cert_fingerprint; content:\"00\";"));
        assert!(refused(&format!(
            "tls.cert_fingerprint; content:\"{fp}\"; content:\"30\";"
        )));
        assert!(!refused("tls.cert_serial; content:\"EF\";"));
        assert!(!refused(
            "tls.cert_serial; content:\"AB:CD\"; content:\"ABC\";"
        ));
        assert!(refused("tls.cert_serial; content:\"ABC\";"));
    }

    #[test]
    fn hassh_buffers_take_whole_hex_hashes_only() {
        let h = "0123456789abcdef0123456789ABCDEF";
        let ssh = |o: &str| {
            crate::testutil::refused(&format!("alert ssh any any -> any any ({o} sid:1;)"))
        };
        assert!(!ssh(&format!("ssh.hassh; content:\"{h}\";")));
        assert!(!ssh(&format!(
            "ssh.hassh.server; content:!\"{h}\"; content:\"{h}\";"
        )));
        assert!(ssh(&format!(
            "ssh.hassh; content:\"{h}\"; content:\"abc\";"
        )));
        assert!(ssh(&format!(
            "ssh.hassh; content:\"{h}\"; ssh.hassh; content:\"abc\";"
        )));
        assert!(!ssh("ssh.hassh.string; content:\"ab\";"));
        assert!(ssh("ssh.hassh; content:\"0123\";"));
        assert!(ssh(
            "ssh.hassh.server; content:\"0123456789abcdef0123456789abcde~\";"
        ));
        assert!(ssh("ssh.hassh.server; content:!\"abc\";"));
        let quic = |o: &str| {
            crate::testutil::refused(&format!("alert quic any any -> any any ({o} sid:1;)"))
        };
        assert!(!quic(&format!("quic.cyu.hash; content:\"{h}\"; nocase;")));
        assert!(!quic(&format!("quic.cyu.hash; content:!\"{h}\";")));
        assert!(quic("quic.cyu.hash; content:\"6b85\";"));
        assert!(quic(&format!(
            "quic.cyu.hash; content:\"{h}\"; content:\"6b\";"
        )));
        assert!(quic(
            "quic.cyu.hash; content:\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\";"
        ));
        assert!(!quic("quic.cyu.string; content:\"46,\";"));
    }
}
