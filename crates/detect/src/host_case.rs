//! `http.host` contents: the buffer is the lowercased host name, and Suricata 7.0.10
//! refuses a content on it with an uppercase letter ("A pattern with uppercase characters
//! detected for http.host ... please specify a lowercase pattern") or with `nocase`
//! ("specifying nocase is redundant"), negated or not, however the legacy form names it
//! (`http_host`). `http.host.raw` and `pcre` are not checked. Found by the differential
//! harness (tests/parity/difftest/fixed/dt-3-136).

use rules::{Buffer, BufferMatches, Match};

use crate::sig::{failed, Refusal};

/// Refuses the `http.host` buffer's contents Suricata refuses.
pub(crate) fn check(bm: &BufferMatches) -> Result<(), Refusal> {
    if bm.buffer != Buffer::HttpHost || !bm.transforms.is_empty() {
        return Ok(());
    }
    for m in &bm.matches {
        let Match::Content(c) = m else { continue };
        if c.pattern.iter().any(u8::is_ascii_uppercase) {
            return Err(failed(
                "http.host",
                "a pattern with uppercase characters for http.host (the buffer is lowercase)",
            ));
        }
        if c.nocase {
            return Err(failed(
                "http.host",
                "nocase on http.host (the buffer is lowercase)",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn refused(opts: &str) -> bool {
        crate::testutil::refused(&format!("alert http any any -> any any ({opts} sid:1;)"))
    }

    #[test]
    fn uppercase_or_nocase_host_contents_are_refused() {
        assert!(refused("http.host; content:\"AbC\";"));
        assert!(refused("http.host; content:\"|41|bc\";"));
        assert!(refused("http.host; content:\"abc\"; nocase;"));
        assert!(refused("http.host; content:!\"AbC\";"));
        assert!(refused("content:\"AbC\"; http_host;"));
        assert!(refused(
            "http.host; content:\"a\"; content:\"B\"; distance:0;"
        ));
        assert!(!refused("http.host; content:\"abc\";"));
        assert!(!refused("http.host.raw; content:\"AbC\";"));
        assert!(!refused("http.host; pcre:\"/AbC/\";"));
        assert!(!refused(
            "http.host; content:\"ab\"; http.uri; content:\"AB\";"
        ));
    }
}
