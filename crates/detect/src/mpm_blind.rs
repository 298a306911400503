//! The buffer of the content Suricata 7.0.10 gives its multi-pattern matcher, for the
//! transactions whose buffers that matcher cannot see
//! ([`app::Transaction::prefilter_blind`]: HTTP/2 response headers). A rule whose fast
//! pattern lies in such a buffer never matches such a transaction in Suricata, however
//! its other keywords fare; Osprey's own prefilter choice ([`crate::fastpat`]) leaves
//! transformed buffers out, so this one is made separately: an explicit `fast_pattern`
//! on a positive content wins, otherwise the positive content with the highest pattern
//! strength (ties to the longer, then the first), transformed buffers included, as
//! Suricata chooses.

use rules::{Buffer, Match, Rule};

/// The application-layer buffer holding Suricata's fast pattern of `r`, if it is one.
pub(crate) fn fast_pattern_buffer(r: &Rule) -> Option<Buffer> {
    let mut best: Option<(u32, usize, Buffer)> = None;
    for bm in &r.buffers {
        if matches!(bm.buffer, Buffer::Payload | Buffer::Frame(_)) {
            continue;
        }
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            if c.negated {
                continue;
            }
            if c.fast_pattern.is_some() {
                return Some(bm.buffer);
            }
            let s = crate::fastpat::strength(&c.pattern);
            let better = match best {
                None => true,
                Some((bs, bl, _)) => s > bs || (s == bs && c.pattern.len() > bl),
            };
            if better {
                best = Some((s, c.pattern.len(), bm.buffer));
            }
        }
    }
    best.map(|(_, _, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(body: &str) -> Option<Buffer> {
        let r = rules::parse_rule(&format!("alert http any any -> any any ({body} sid:1;)"))
            .expect("parses");
        fast_pattern_buffer(&r)
    }

    #[test]
    fn suricata_fast_pattern_buffer() {
        assert_eq!(
            fp(r#"http.stat_code; content:"200"; http.response_header; content:"server";"#),
            Some(Buffer::HttpResponseHeader)
        );
        assert_eq!(
            fp(
                r#"http.stat_code; content:"200"; fast_pattern; http.response_header; content:"server";"#
            ),
            Some(Buffer::HttpStatCode)
        );
        // Transformed buffers count, negated contents do not.
        assert_eq!(
            fp(
                r#"http.response_header; to_lowercase; content:"server"; http.stat_code; content:"2";"#
            ),
            Some(Buffer::HttpResponseHeader)
        );
        assert_eq!(
            fp(r#"http.response_header; content:!"server"; http.stat_code; content:"2";"#),
            Some(Buffer::HttpStatCode)
        );
        assert_eq!(fp(r#"http.response_header; pcre:"/^server/";"#), None);
        assert_eq!(fp(r#"http.response_header; bsize:>0;"#), None);
    }
}
