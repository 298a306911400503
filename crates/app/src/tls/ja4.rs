//! JA4: the FoxIO fingerprint of a ClientHello (`ja4.hash`), as Suricata 7.0.10
//! computes it: `t13d1516h2_<ciphers>_<extensions>`. The first part says the
//! transport (`t` TCP, `q` QUIC), the highest offered version, whether an SNI was sent
//! (`d`) or not (`i`), the numbers of cipher suites and extensions (GREASE left out,
//! at most 99) and the first and last characters of the first ALPN protocol (`00`
//! without one). The second part is the first 12 hex digits of the SHA-256 of the
//! sorted cipher suites in 4-digit hex joined by `,`; the third, of the sorted
//! extension types (without SNI and ALPN) joined by `,`, then `_`, then the signature
//! algorithms in their order joined by `,` (Suricata keeps the `_` when there are no
//! signature algorithms).

use sha2::{Digest, Sha256};
use std::fmt::Write;

use super::cert::ShortText;
use super::parser::ClientHello;

/// RFC 8701's GREASE values (`0x?a?a`), which JA4 leaves out.
fn is_grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

/// JA4's two characters for a version.
fn version_code(v: u16) -> &'static str {
    match v {
        0x0304 => "13",
        0x0303 => "12",
        0x0302 => "11",
        0x0301 => "10",
        0x0300 => "s3",
        0x0200 => "s2",
        0x0100 => "s1",
        0xfeff => "d1",
        0xfefd => "d2",
        0xfefc => "d3",
        _ => "00",
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends the first 12 hex digits of the SHA-256 that `h` computed.
fn push_hash12(out: &mut ShortText, h: Sha256) {
    for &b in &h.finalize()[..6] {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}

/// Feeds `vals` to `h` in 4-digit lowercase hex joined by `,` (the text is never
/// built: JA4 only needs its hash).
fn hash_hex_list(h: &mut Sha256, vals: impl Iterator<Item = u16>) {
    for (i, v) in vals.enumerate() {
        let mut b = [b','; 5];
        for (k, shift) in [12, 8, 4, 0].into_iter().enumerate() {
            b[1 + k] = HEX[usize::from(v >> shift & 0xf)];
        }
        h.update(if i > 0 { &b[..] } else { &b[1..] });
    }
}

/// The ALPN characters: first and last of the first protocol, or of its hex form when
/// either is not alphanumeric; `00` without ALPN.
fn alpn_code(alpn: Option<&[u8]>) -> [char; 2] {
    let Some(p) = alpn.filter(|p| !p.is_empty()) else {
        return ['0', '0'];
    };
    let (first, last) = (p[0], p[p.len() - 1]);
    if first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() {
        return [char::from(first), char::from(last)];
    }
    // The first hex digit of the first byte and the last of the last byte.
    [
        char::from(HEX[usize::from(first >> 4)]),
        char::from(HEX[usize::from(last & 0xf)]),
    ]
}

thread_local! {
    /// Sorting space for the cipher suites and extensions (every worker is one
    /// thread: a ClientHello's fingerprint allocates only its result once warm).
    static SORTED: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Feeds the values of `vals` that `keep` keeps to `h`, sorted, as
/// [`hash_hex_list`] does.
fn hash_sorted(h: &mut Sha256, vals: &[u16], keep: impl Fn(u16) -> bool) {
    let mut run = |v: &mut Vec<u16>| {
        v.clear();
        v.extend(vals.iter().copied().filter(|&x| keep(x)));
        v.sort_unstable();
        hash_hex_list(h, v.iter().copied());
    };
    let done = SORTED
        .try_with(|s| s.try_borrow_mut().map(|mut s| run(&mut s)).is_ok())
        .unwrap_or(false);
    if !done {
        run(&mut Vec::new());
    }
}

/// The JA4 of a ClientHello; `transport` is `'t'` (TLS over TCP) or `'q'` (QUIC).
pub fn ja4(ch: &ClientHello<'_>, transport: char) -> ShortText {
    let version = ch
        .supported_versions
        .iter()
        .copied()
        .filter(|&v| !is_grease(v))
        .max()
        .unwrap_or(ch.version);
    let ciphers = ch.ciphers.iter().filter(|&&c| !is_grease(c)).count();
    let exts = ch.extensions.iter().filter(|&&e| !is_grease(e)).count();
    // Held inline: no allocation per hello.
    let mut out = ShortText::default();
    out.push(transport);
    out.push_str(version_code(version));
    out.push(if ch.sni.is_some() { 'd' } else { 'i' });
    let _ = write!(out, "{:02}{:02}", ciphers.min(99), exts.min(99));
    out.extend(alpn_code(ch.alpn_first));
    out.push('_');
    let mut h = Sha256::new();
    hash_sorted(&mut h, &ch.ciphers, |c| !is_grease(c));
    push_hash12(&mut out, h);
    out.push('_');
    let mut h = Sha256::new();
    hash_sorted(&mut h, &ch.extensions, |e| {
        !is_grease(e) && e != 0 && e != 16
    });
    h.update(b"_");
    hash_hex_list(&mut h, ch.signature_algorithms.iter().copied());
    push_hash12(&mut out, h);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first, allocating implementation (a string per part, hashed afterwards),
    /// kept as the reference the streaming one must equal.
    mod reference {
        use super::super::{is_grease, version_code, ClientHello};
        use sha2::{Digest, Sha256};
        use std::fmt::Write;

        /// The first 12 hex digits of the SHA-256 of `s`.
        fn hash12(s: &str) -> String {
            let mut out = String::with_capacity(12);
            for b in &Sha256::digest(s.as_bytes())[..6] {
                let _ = write!(out, "{b:02x}");
            }
            out
        }

        /// `vals` in 4-digit lowercase hex joined by `,`.
        fn hex_list(vals: impl Iterator<Item = u16>) -> String {
            let mut s = String::new();
            for (i, v) in vals.enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{v:04x}");
            }
            s
        }

        /// The ALPN characters: first and last of the first protocol, or of its hex form when
        /// either is not alphanumeric; `00` without ALPN.
        fn alpn_code(alpn: Option<&[u8]>) -> String {
            let Some(p) = alpn.filter(|p| !p.is_empty()) else {
                return "00".to_owned();
            };
            let (first, last) = (p[0], p[p.len() - 1]);
            if first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() {
                return format!("{}{}", first as char, last as char);
            }
            let hex = format!("{first:02x}{last:02x}");
            let h = hex.as_bytes();
            format!("{}{}", h[0] as char, h[3] as char)
        }

        /// The JA4 of a ClientHello; `transport` is `'t'` (TLS over TCP) or `'q'` (QUIC).
        pub(super) fn ja4_reference(ch: &ClientHello<'_>, transport: char) -> String {
            let version = ch
                .supported_versions
                .iter()
                .copied()
                .filter(|&v| !is_grease(v))
                .max()
                .unwrap_or(ch.version);
            let mut ciphers: Vec<u16> = ch
                .ciphers
                .iter()
                .copied()
                .filter(|&c| !is_grease(c))
                .collect();
            let exts: Vec<u16> = ch
                .extensions
                .iter()
                .copied()
                .filter(|&e| !is_grease(e))
                .collect();
            let mut a = String::with_capacity(10);
            a.push(transport);
            a.push_str(version_code(version));
            a.push(if ch.sni.is_some() { 'd' } else { 'i' });
            let _ = write!(a, "{:02}{:02}", ciphers.len().min(99), exts.len().min(99));
            a.push_str(&alpn_code(ch.alpn_first));
            ciphers.sort_unstable();
            let mut sorted: Vec<u16> = exts
                .iter()
                .copied()
                .filter(|&e| e != 0 && e != 16)
                .collect();
            sorted.sort_unstable();
            let mut c = hex_list(sorted.into_iter());
            c.push('_');
            c.push_str(&hex_list(ch.signature_algorithms.iter().copied()));
            format!(
                "{a}_{}_{}",
                hash12(&hex_list(ciphers.into_iter())),
                hash12(&c)
            )
        }
    }

    #[test]
    fn parts_and_hashes() {
        // The worked example of the JA4 specification (a Chrome ClientHello).
        let ch = ClientHello {
            version: 0x0303,
            sni: Some(b"example.com"),
            supported_versions: smallvec::smallvec![0x0a0a, 0x0304, 0x0303],
            ciphers: smallvec::smallvec![
                0x0a0a, 0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8,
                0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035,
            ],
            extensions: smallvec::smallvec![
                0x0a0a, 0x001b, 0x0000, 0x0033, 0x0010, 0x4469, 0x0017, 0x002d, 0x000d, 0x0005,
                0x0023, 0x0012, 0x002b, 0xff01, 0x000b, 0x000a, 0x0015, 0x1a1a,
            ],
            alpn_first: Some(b"h2"),
            signature_algorithms: smallvec::smallvec![
                0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601,
            ],
            ..Default::default()
        };
        let j = ja4(&ch, 't');
        assert_eq!(j, reference::ja4_reference(&ch, 't'));
        assert_eq!(&j[..10], "t13d1516h2");
        assert_eq!(&j[11..23], "8daaf6152771");
        assert_eq!(j.len(), 36);
        // No extension and no signature algorithm: the hash of "_", as Suricata.
        let bare = ClientHello {
            version: 0x0301,
            ciphers: smallvec::smallvec![0x0004],
            ..Default::default()
        };
        assert!(ja4(&bare, 't').starts_with("t10i010000_"));
        assert!(ja4(&bare, 't').ends_with("_d2e2adf7177b"));
    }

    #[test]
    fn sliver_client_hello_as_suricata() {
        // Suricata 7.0.10 with `ja4-fingerprints: yes` on sv-ether.pcap's
        // 192.168.116.130:54080 -> 54.206.116.39:443 (frame 179783).
        let rec = include_bytes!("testdata/sliver_client_hello.bin");
        let ch = crate::tls::parser::client_hello(&rec[9..]).unwrap();
        assert_eq!(ja4(&ch, 't'), "t12i2807h2_d943125447b4_dd0a478c1db3");
        assert_eq!(ja4(&ch, 'q'), reference::ja4_reference(&ch, 'q'));
    }

    proptest::proptest! {
        /// Any ClientHello body that parses has a JA4 of the fixed shape; none panics.
        #[test]
        fn arbitrary_client_hellos(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            if let Some(ch) = crate::tls::parser::client_hello(&b) {
                let j = ja4(&ch, 't');
                proptest::prop_assert_eq!(j.len(), 36);
                proptest::prop_assert_eq!(j, reference::ja4_reference(&ch, 't'));
            }
        }
    }

    #[test]
    fn alpn_characters() {
        assert_eq!(alpn_code(None), ['0', '0']);
        assert_eq!(alpn_code(Some(b"http/1.1")), ['h', '1']);
        assert_eq!(alpn_code(Some(&[0xab, 0x01])), ['a', '1']);
    }
}
