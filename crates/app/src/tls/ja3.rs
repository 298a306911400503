//! JA3 and JA3S: the fingerprints of a ClientHello and a ServerHello as Suricata
//! computes them (`ja3-fingerprints`): the hello's version, cipher suites, extension
//! types, elliptic curves and point formats in decimal (GREASE values left out), then
//! the MD5 of that string in lowercase hex.

use md5::{Digest, Md5};

use super::parser::{ClientHello, ServerHello};

/// A fingerprint: the string and its MD5.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ja3 {
    /// `771,4865-4866,0-23,29-23,0`.
    pub string: String,
    /// The MD5 of `string`, 32 lowercase hex digits.
    pub hash: Md5Hex,
}

impl Ja3 {
    /// The fingerprint `string` with its MD5.
    pub(crate) fn new(string: String) -> Ja3 {
        let hash = Md5Hex::of(string.as_bytes());
        Ja3 { string, hash }
    }
}

/// An MD5 as 32 lowercase hex digits, held inline (a fingerprint's hash is made for
/// every hello: no allocation of its own).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Md5Hex([u8; 32]);

impl Md5Hex {
    /// The MD5 of `b` in lowercase hex.
    pub fn of(b: &[u8]) -> Md5Hex {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 32];
        for (i, x) in Md5::digest(b).iter().enumerate() {
            out[2 * i] = HEX[usize::from(x >> 4)];
            out[2 * i + 1] = HEX[usize::from(x & 0xf)];
        }
        Md5Hex(out)
    }

    /// The digits as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII hex digits are ever stored.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    /// The digits as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::ops::Deref for Md5Hex {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for Md5Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Md5Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Md5Hex {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Md5Hex {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// RFC 8701's GREASE values (`0x?a?a`), which JA3 leaves out.
fn is_grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

fn join<T: Copy + Into<u32>>(out: &mut String, vals: &[T], skip_grease: bool) {
    use std::fmt::Write;
    let mut first = true;
    for &v in vals {
        let v: u32 = v.into();
        if skip_grease && v <= 0xffff && is_grease(v as u16) {
            continue;
        }
        if !first {
            out.push('-');
        }
        first = false;
        let _ = write!(out, "{v}");
    }
}

/// The JA3 of a ClientHello.
pub fn ja3(ch: &ClientHello<'_>) -> Ja3 {
    use std::fmt::Write;
    // Room for every value (at most 5 digits and a separator each): one allocation.
    let values = ch.ciphers.len() + ch.extensions.len() + ch.curves.len();
    let mut s = String::with_capacity(6 * (values + ch.point_formats.len()) + 10);
    let _ = write!(s, "{},", ch.version);
    join(&mut s, &ch.ciphers, true);
    s.push(',');
    join(&mut s, &ch.extensions, true);
    s.push(',');
    join(&mut s, &ch.curves, true);
    s.push(',');
    join(&mut s, &ch.point_formats, false);
    Ja3::new(s)
}

/// The JA3S of a ServerHello.
pub fn ja3s(sh: &ServerHello) -> Ja3 {
    use std::fmt::Write;
    let mut s = String::with_capacity(6 * sh.extensions.len() + 14);
    let _ = write!(s, "{},{},", sh.version, sh.cipher);
    join(&mut s, &sh.extensions, true);
    Ja3::new(s)
}

/// Bytes as lowercase hex, no separator.
pub(crate) fn hex_lower(b: &[u8]) -> String {
    use std::fmt::Write;
    b.iter()
        .fold(String::with_capacity(b.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::super::parser::{client_hello, server_hello};
    use super::*;

    /// The handshake message bodies of a record (`tls` record header, then one
    /// handshake message: its 4-byte header is skipped).
    fn body(rec: &[u8]) -> &[u8] {
        &rec[9..]
    }

    #[test]
    fn md5_hex_is_the_lowercase_hex_of_the_digest() {
        for input in [&b""[..], b"abc", b"771,4865-4866,0-10,29,0", &[0xff; 200]] {
            let h = Md5Hex::of(input);
            assert_eq!(h, hex_lower(&Md5::digest(input)).as_str());
            assert_eq!(h.as_bytes(), h.as_str().as_bytes());
            assert_eq!(format!("{h}"), h.as_str());
            assert_eq!(format!("{h:?}"), format!("{:?}", h.as_str()));
        }
    }

    #[test]
    fn md5_vectors() {
        // RFC 1321's test suite.
        assert_eq!(
            Ja3::new(String::new()).hash,
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(
            Ja3::new("abc".into()).hash,
            "900150983cd24fb0d6963f7d28e17f72"
        );
    }

    #[test]
    fn grease_values() {
        assert!(is_grease(0x0a0a) && is_grease(0xfafa) && is_grease(0x3a3a));
        assert!(!is_grease(0x0a1a) && !is_grease(0x1301) && !is_grease(0x000a));
    }

    #[test]
    fn sliver_handshake_as_suricata_fingerprints_it() {
        // Suricata 7.0.10 on sv-ether.pcap (frames 179783 and 179785).
        let ch = client_hello(body(include_bytes!("testdata/sliver_client_hello.bin")));
        let j = ja3(&ch.unwrap());
        assert_eq!(
            j.string,
            "771,49196-49200-159-52393-52392-52394-49195-49199-158-49188-49192-107-49187-\
             49191-103-49162-49172-57-49161-49171-51-157-156-61-60-53-47-255,\
             11-10-13172-16-22-23-13,29-23-30-25-24,0-1-2"
        );
        assert_eq!(j.hash, "bcd93fc89dba4639942325c540ce598c");
        let sh = server_hello(body(include_bytes!("testdata/sliver_server_flight.bin")));
        let j = ja3s(&sh.unwrap());
        assert_eq!(j.string, "771,49199,65281-16-11");
        assert_eq!(j.hash, "2de81c22ea32a57162df5cb08d4a2795");
    }

    #[test]
    fn grease_left_out() {
        let ch = ClientHello {
            version: 0x0303,
            ciphers: vec![0x2a2a, 0x1301, 0x1302].into(),
            extensions: vec![0xdada, 0, 10, 0x1a1a].into(),
            curves: vec![0x8a8a, 29].into(),
            point_formats: vec![0].into(),
            ..Default::default()
        };
        assert_eq!(ja3(&ch).string, "771,4865-4866,0-10,29,0");
    }
}
