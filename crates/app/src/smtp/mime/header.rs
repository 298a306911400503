//! MIME header values: the media type of `Content-Type` and the parameters of
//! `Content-Type` / `Content-Disposition` (RFC 2045 §5.1, RFC 2183).

use crate::util::trim;

/// The lower-cased `type/subtype` of a `Content-Type` value.
pub fn media_type(v: &[u8]) -> Vec<u8> {
    let end = v.iter().position(|&c| c == b';').unwrap_or(v.len());
    trim(&v[..end]).to_ascii_lowercase()
}

/// The parameters of a header value: `(name, value)` after each `;`, the value
/// quoted or a token up to white space or `;`. A value that does not follow the `=` at
/// once (`name= "x"`) is empty, as Suricata 7 does not take it (sv-ether.pcap flow
/// 10.6.8.101:49448).
fn params(v: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    v.split(|&c| c == b';').skip(1).filter_map(|p| {
        let p = trim(p);
        let eq = p.iter().position(|&c| c == b'=')?;
        let val = &p[eq + 1..];
        let got = if let Some(q) = val.strip_prefix(b"\"") {
            &q[..q.iter().position(|&c| c == b'"').unwrap_or(q.len())]
        } else {
            let end = val
                .iter()
                .position(|&c| c == b';' || c.is_ascii_whitespace())
                .unwrap_or(val.len());
            &val[..end]
        };
        Some((trim(&p[..eq]), got))
    })
}

/// The value of parameter `name` (lower case) of a header value, or the RFC 2231
/// continuations `name*0`, `name*1`... joined in order. Like Suricata 7.0.10, the
/// charset-tagged forms (`name*=`, `name*0*=`) and RFC 2047 encoded words are not
/// decoded (a crafted mail shows it: no file for the former, the encoded word as the
/// name for the latter).
pub fn param(v: &[u8], name: &[u8]) -> Option<Vec<u8>> {
    let mut parts: Vec<(u32, &[u8])> = Vec::new();
    for (k, val) in params(v) {
        if k.eq_ignore_ascii_case(name) {
            return (!val.is_empty()).then(|| val.to_vec());
        }
        let n = k
            .get(..name.len())
            .filter(|p| p.eq_ignore_ascii_case(name))
            .and_then(|_| k[name.len()..].strip_prefix(b"*"))
            .and_then(|n| std::str::from_utf8(n).ok()?.parse::<u32>().ok());
        if let Some(n) = n {
            parts.push((n, val));
        }
    }
    parts.sort_by_key(|p| p.0);
    let joined: Vec<u8> = parts.iter().flat_map(|p| p.1.iter().copied()).collect();
    (!joined.is_empty()).then_some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_parameters() {
        // sv-ether.pcap flow 192.168.1.4:3326 (folded, joined).
        let ct = b"multipart/mixed;\tboundary=\"----=_NextPart_000_0000_01C7C602.28C76960\"";
        assert_eq!(media_type(ct), b"multipart/mixed");
        assert_eq!(
            param(ct, b"boundary").as_deref(),
            Some(&b"----=_NextPart_000_0000_01C7C602.28C76960"[..])
        );
        assert_eq!(media_type(b" Text/Plain "), b"text/plain");
        let cd = b"attachment; FileName=a.txt; size=3";
        assert_eq!(param(cd, b"filename").as_deref(), Some(&b"a.txt"[..]));
        assert_eq!(param(cd, b"name"), None);
        assert_eq!(
            param(b"application/x; name=\"x.exe", b"name").as_deref(),
            Some(&b"x.exe"[..])
        );
        // sv-ether.pcap flow 10.2.10.159:44890 (folded, joined); out of order.
        let cd = b"attachment;\r\n filename*0=smtptest-2021;\r\n filename*1=ddf..zip";
        assert_eq!(
            param(cd, b"filename").as_deref(),
            Some(&b"smtptest-2021ddf..zip"[..])
        );
        let cd = b"attachment; filename*1=second.txt; filename*0=first";
        assert_eq!(
            param(cd, b"filename").as_deref(),
            Some(&b"firstsecond.txt"[..])
        );
        assert_eq!(param(b"a; filename*=UTF-8''x.txt", b"filename"), None);
        assert_eq!(param(b"a; filename*0*=UTF-8''x.txt", b"filename"), None);
        // sv-ether.pcap flow 10.6.8.101:49448.
        assert_eq!(
            param(b"multipart/mixed; boundary= \"gbpfqe\"", b"boundary"),
            None
        );
        assert_eq!(param(b"a; b=\"\"", b"b"), None);
    }
}
