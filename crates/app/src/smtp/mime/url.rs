//! URL extraction from decoded text bodies, as Suricata's `extract-urls` reports
//! them: each `<scheme>://` of the configured schemes starts a URL that runs to white
//! space or one of `"'<>]`; URLs are lower-cased and written without their scheme
//! unless `log-url-scheme` is set.

use std::net::{Ipv4Addr, Ipv6Addr};

/// Bytes that end a URL.
fn ends_url(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'<' | b'>' | b']')
}

/// Calls `f` with each URL of one line of text, in order (lower-cased).
pub fn scan(line: &[u8], schemes: &[Vec<u8>], with_scheme: bool, f: &mut dyn FnMut(Vec<u8>)) {
    let lower = line.to_ascii_lowercase();
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for s in schemes {
        let mut pat = s.to_ascii_lowercase();
        pat.extend_from_slice(b"://");
        let mut at = 0;
        while let Some(i) = memchr::memmem::find(&lower[at..], &pat) {
            let start = at + i;
            let body = start + pat.len();
            let end = lower[body..]
                .iter()
                .position(|&c| ends_url(c))
                .map_or(lower.len(), |n| body + n);
            found.push((start, body, end));
            at = end.max(body);
        }
    }
    found.sort_unstable();
    for (start, body, end) in found {
        if end > body {
            let from = if with_scheme { start } else { body };
            f(lower[from..end].to_vec());
        }
    }
}

/// What Suricata reports of the URLs of a message's first entity
/// (`has_ipv6_url`, `has_ipv4_url`, `has_exe_url`). Suricata 7.0.10 sets its
/// `has_ipv6_url` for a URL whose host is an IPv4 address and `has_ipv4_url` for an
/// IPv6 one (as its output of sv-ether.pcap and of crafted mails shows); this reports
/// them the same way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrlFlags {
    /// `has_ipv6_url`.
    pub ipv6: bool,
    /// `has_ipv4_url`.
    pub ipv4: bool,
    /// `has_exe_url`: a URL naming an `.exe`.
    pub exe: bool,
}

impl UrlFlags {
    /// Adds one URL (lower-cased, without its scheme).
    pub fn add(&mut self, url: &[u8]) {
        let host_end = url.iter().position(|&c| c == b'/').unwrap_or(url.len());
        let host = std::str::from_utf8(&url[..host_end]).unwrap_or("");
        self.ipv6 |= host.parse::<Ipv4Addr>().is_ok();
        self.ipv4 |= host.parse::<Ipv6Addr>().is_ok();
        self.exe |= memchr::memmem::find(url, b".exe").is_some();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(line: &[u8]) -> Vec<String> {
        let mut v = Vec::new();
        scan(line, &[b"http".to_vec()], false, &mut |u| {
            v.push(String::from_utf8(u).unwrap())
        });
        v
    }

    #[test]
    fn urls_end_where_suricata_ends_them() {
        // sv-ether.pcap flow 97.71.82.89:54009.
        assert_eq!(
            urls(
                b"This is the body of the message. http://google.com is a link. \
                  http://test-site.org/blah/123/ is another one. https://facebook.com is \
                  also a link. ftp://172.42.48.124 is also a link."
            ),
            ["google.com", "test-site.org/blah/123/"]
        );
        assert_eq!(
            urls(b"<a href=\"HTTP://Example.COM/P/x.EXE\">x</a> (http://p.com/x) [http://[::1]/b"),
            ["example.com/p/x.exe", "p.com/x)", "[::1"]
        );
        assert_eq!(
            urls(b"'http://q.com/z' <http://a.com/y> http://"),
            ["q.com/z", "a.com/y"]
        );
        let mut v = Vec::new();
        let schemes = [b"http".to_vec(), b"ftp".to_vec()];
        scan(b"ftp://a http://b", &schemes, true, &mut |u| v.push(u));
        assert_eq!(v, [b"ftp://a".to_vec(), b"http://b".to_vec()]);
    }

    #[test]
    fn flags_as_suricata_sets_them() {
        let mut f = UrlFlags::default();
        f.add(b"google.com");
        assert_eq!(f, UrlFlags::default());
        f.add(b"1.2.3.4/a");
        assert!(f.ipv6 && !f.ipv4 && !f.exe);
        f.add(b"e.com/file.exe?x=1");
        assert!(f.exe);
    }
}
