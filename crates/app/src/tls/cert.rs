//! What a TLS record says about the server's certificate, as Suricata logs it: subject
//! and issuer, serial, SHA-1 fingerprint and validity.

use sha1::{Digest, Sha1};
use std::cell::RefCell;
use std::sync::Arc;

/// Certificates remembered per thread (see [`CertInfo::parse_cached`]).
const CACHE_ENTRIES: usize = 32;
/// Certificates longer than this are parsed every time, never remembered, so the cache
/// holds at most `CACHE_ENTRIES * CACHE_MAX_DER` bytes of DER (256 KiB) per thread.
const CACHE_MAX_DER: usize = 8 * 1024;

/// The facts of the certificates this thread parsed last: servers present the same
/// certificate to every client, and parsing one (x509-parser's extension and name
/// tables, the formatted names) costs about a hundred allocations. Every worker is one
/// thread, so the cache is the worker's own and needs no lock.
#[derive(Default)]
struct Cache {
    /// The DER bytes and their facts, the next one replaced at `next`.
    entries: Vec<(Vec<u8>, Arc<CertInfo>)>,
    /// Where the next new certificate goes once the cache is full (oldest first).
    next: usize,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The logged facts of one DER certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CertInfo {
    /// The subject (`C=US, O=Org, CN=name`).
    pub subject: String,
    /// The issuer, same format.
    pub issuer: String,
    /// The serial number's DER bytes as uppercase hex pairs joined by `:`.
    pub serial: ShortText,
    /// The SHA-1 of the DER bytes as lowercase hex pairs joined by `:`.
    pub fingerprint: ShortText,
    /// `notBefore`, UTC, `YYYY-MM-DDTHH:MM:SS`.
    pub not_before: ShortText,
    /// `notAfter`, same format.
    pub not_after: ShortText,
}

/// A short text held inline up to 64 bytes (a fingerprint's 59, a usual serial's, a
/// time's 19, a JA4's 36): the facts of a new certificate and a hello's JA4 take no
/// allocation each.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ShortText(smallvec::SmallVec<[u8; 64]>);

impl ShortText {
    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole `str`s are ever written in (`fmt::Write`, `From`).
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl ShortText {
    /// Appends `c`.
    pub fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }

    /// Appends `s`.
    pub fn push_str(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }
}

impl Extend<char> for ShortText {
    fn extend<I: IntoIterator<Item = char>>(&mut self, iter: I) {
        for c in iter {
            self.push(c);
        }
    }
}

impl PartialEq<String> for ShortText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl std::fmt::Write for ShortText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

impl std::ops::Deref for ShortText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for ShortText {
    fn from(s: &str) -> ShortText {
        ShortText(smallvec::SmallVec::from_slice(s.as_bytes()))
    }
}

impl std::fmt::Debug for ShortText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for ShortText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ShortText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

fn pairs(b: &[u8], upper: bool) -> ShortText {
    use std::fmt::Write;
    let mut s = ShortText::default();
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            let _ = s.write_char(':');
        }
        let _ = if upper {
            write!(s, "{x:02X}")
        } else {
            write!(s, "{x:02x}")
        };
    }
    s
}

fn time(t: x509_parser::time::ASN1Time) -> ShortText {
    use std::fmt::Write;
    let d = t.to_datetime();
    let mut s = ShortText::default();
    let _ = write!(
        s,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        d.year(),
        u8::from(d.month()),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    );
    s
}

/// Parses `der` as x509-parser's `parse_x509_certificate` does, without the deep
/// parse of the extensions (their tables and vectors: nothing here reads them). The
/// same certificates are accepted: a deep parse turns a malformed extension into a
/// `ParseError` value, never into a failure of the certificate.
pub(crate) fn parse_x509(der: &[u8]) -> Option<x509_parser::certificate::X509Certificate<'_>> {
    use x509_parser::nom::Parser;
    x509_parser::certificate::X509CertificateParser::new()
        .with_deep_parse_extensions(false)
        .parse(der)
        .ok()
        .map(|(_, cert)| cert)
}

/// `name` as x509-parser's `Display` writes it (`C=US, O=Org, CN=name`: attributes
/// `ABBREV=value`, several in one RDN joined by ` + `, RDNs by `, `; a value that is
/// not a string in hexadecimal; `<X509Error: Invalid X.509 name>` when a value does not
/// decode), written into one string sized for it instead of a string per attribute
/// and per RDN.
pub(crate) fn name_string(name: &x509_parser::x509::X509Name<'_>) -> String {
    thread_local! {
        static SCRATCH: RefCell<String> = const { RefCell::new(String::new()) };
    }
    let write = |out: &mut String| {
        out.clear();
        if write_name(out, name).is_none() {
            out.clear();
            out.push_str("<X509Error: Invalid X.509 name>");
        }
        // One allocation of the name's length.
        String::from(out.as_str())
    };
    SCRATCH
        .try_with(|s| match s.try_borrow_mut() {
            Ok(mut s) => {
                let name = write(&mut s);
                if s.capacity() > 4096 {
                    *s = String::new();
                }
                name
            }
            Err(_) => write(&mut String::new()),
        })
        .unwrap_or_else(|_| write(&mut String::new()))
}

/// An attribute value as x509-parser prints it in a name.
enum AttrText<'a> {
    /// A string type's text.
    Text(std::borrow::Cow<'a, str>),
    /// Any other type: its content bytes in uppercase hexadecimal.
    Hex(&'a [u8]),
}

/// Appends the RDNs of `name` to the empty string `out` (see [`name_string`]); `None`
/// when a value does not decode.
fn write_name(out: &mut String, name: &x509_parser::x509::X509Name<'_>) -> Option<()> {
    use std::fmt::Write;
    use x509_parser::der_parser::asn1_rs::{BmpString, Tag};
    let registry = x509_parser::objects::oid_registry();
    for rdn in name.iter_rdn() {
        // x509-parser joins an RDN to what came before only when that is not empty.
        if !out.is_empty() {
            out.push_str(", ");
        }
        for (i, attr) in rdn.iter().enumerate() {
            let value = attr.attr_value();
            let text = match value.tag() {
                Tag::NumericString
                | Tag::VisibleString
                | Tag::PrintableString
                | Tag::GeneralString
                | Tag::ObjectDescriptor
                | Tag::GraphicString
                | Tag::T61String
                | Tag::VideotexString
                | Tag::Utf8String
                | Tag::Ia5String => {
                    AttrText::Text(std::str::from_utf8(value.as_bytes()).ok()?.into())
                }
                Tag::BmpString => {
                    AttrText::Text(BmpString::try_from(value.clone()).ok()?.string().into())
                }
                _ => AttrText::Hex(value.as_bytes()),
            };
            if i > 0 {
                out.push_str(" + ");
            }
            match x509_parser::objects::oid2abbrev(attr.attr_type(), registry) {
                Ok(s) => out.push_str(s),
                Err(_) => {
                    let _ = write!(out, "{:?}", attr.attr_type());
                }
            }
            out.push('=');
            match text {
                AttrText::Text(t) => out.push_str(&t),
                AttrText::Hex(b) => {
                    for x in b {
                        let _ = write!(out, "{x:02X}");
                    }
                }
            }
        }
    }
    Some(())
}

impl CertInfo {
    /// The facts of `der`; `None` when it does not parse as an X.509 certificate.
    pub fn parse(der: &[u8]) -> Option<CertInfo> {
        let cert = parse_x509(der)?;
        let validity = cert.validity();
        Some(CertInfo {
            subject: name_string(cert.subject()),
            issuer: name_string(cert.issuer()),
            serial: pairs(cert.raw_serial(), true),
            fingerprint: pairs(&Sha1::digest(der), false),
            not_before: time(validity.not_before),
            not_after: time(validity.not_after),
        })
    }

    /// [`CertInfo::parse`], shared: a certificate this thread parsed recently (the same
    /// DER bytes) is not parsed again, its facts are shared.
    pub fn parse_cached(der: &[u8]) -> Option<Arc<CertInfo>> {
        let hit = CACHE
            .try_with(|c| {
                c.try_borrow().ok().and_then(|c| {
                    c.entries
                        .iter()
                        .find(|(d, _)| d.as_slice() == der)
                        .map(|(_, info)| Arc::clone(info))
                })
            })
            .ok()
            .flatten();
        if hit.is_some() {
            return hit;
        }
        let info = Arc::new(CertInfo::parse(der)?);
        if der.len() <= CACHE_MAX_DER {
            let _ = CACHE.try_with(|c| {
                let Ok(mut c) = c.try_borrow_mut() else {
                    return;
                };
                let entry = (der.to_vec(), Arc::clone(&info));
                if c.entries.len() < CACHE_ENTRIES {
                    c.entries.push(entry);
                } else {
                    let i = c.next;
                    c.entries[i] = entry;
                    c.next = (i + 1) % CACHE_ENTRIES;
                }
            });
        }
        Some(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_holds_any_length() {
        // A usual serial inline, a long (malformed) one past the inline room.
        for n in [0, 1, 20, 21, 22, 40] {
            let bytes: Vec<u8> = (0..n as u8).collect();
            let want = bytes
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(":");
            let got = pairs(&bytes, true);
            assert_eq!(got, want.as_str());
            assert_eq!(got.len(), want.len());
            assert_eq!(format!("{got}"), want);
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
        assert_eq!(
            ShortText::from("2021-12-26T00:39:18"),
            "2021-12-26T00:39:18"
        );
    }

    #[test]
    fn sliver_certificate_as_suricata_logs_it() {
        // The certificate of sliver_server_flight.bin: its Certificate message follows
        // the ServerHello record (5 + 70 bytes), then a record header and the message's
        // 4-byte header and two 3-byte lengths.
        let flight = include_bytes!("testdata/sliver_server_flight.bin");
        let certs = super::super::parser::certificates(&flight[75 + 5 + 4..]).unwrap();
        let c = CertInfo::parse(certs[0]).unwrap();
        // Suricata 7.0.10's tls object for this session on sv-ether.pcap.
        assert_eq!(
            c.subject,
            "C=US, ST=Arizona, L=Scottsdale, streetAddress=, postalCode=6565, CN=localhost"
        );
        assert_eq!(c.issuer, "");
        assert_eq!(
            c.serial,
            "00:99:EB:86:2A:01:F8:48:DD:B2:A6:39:F2:1A:FC:03:54"
        );
        assert_eq!(
            c.fingerprint,
            "fa:5f:67:f7:3e:6e:24:53:e8:17:5d:7f:bc:a6:bc:20:66:fb:62:12"
        );
        assert_eq!(c.not_before, "2021-12-26T00:39:18");
        assert_eq!(c.not_after, "2024-12-25T00:39:18");
        assert!(CertInfo::parse(&certs[0][..100]).is_none());
    }

    /// DER: tag, length (short or long form), content.
    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut v = vec![tag];
        match content.len() {
            n @ 0..=127 => v.push(n as u8),
            n @ 128..=255 => v.extend_from_slice(&[0x81, n as u8]),
            n => v.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]),
        }
        v.extend_from_slice(content);
        v
    }

    /// One attribute: OID content bytes, value tag, value bytes.
    type Atv<'a> = (&'a [u8], u8, &'a [u8]);

    /// A Name of RDNs, each a set of attributes.
    fn name_der(rdns: &[&[Atv<'_>]]) -> Vec<u8> {
        let mut seq = Vec::new();
        for rdn in rdns {
            let mut set = Vec::new();
            for (oid, tag, value) in *rdn {
                let mut atv = tlv(0x06, oid);
                atv.extend(tlv(*tag, value));
                set.extend(tlv(0x30, &atv));
            }
            seq.extend(tlv(0x31, &set));
        }
        tlv(0x30, &seq)
    }

    #[test]
    fn names_are_written_as_x509_parser_displays_them() {
        use x509_parser::prelude::FromDer;
        const CN: &[u8] = &[0x55, 0x04, 0x03];
        const C: &[u8] = &[0x55, 0x04, 0x06];
        const O: &[u8] = &[0x55, 0x04, 0x0a];
        const EMAIL: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01];
        // An OID no table names (printed as x509-parser's `Debug` of it).
        const ODD: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x15, 0x63];
        let long = "x".repeat(300);
        let cases: Vec<Vec<Vec<Atv<'_>>>> = vec![
            vec![],
            vec![vec![(CN, 0x0c, b"example.com")]],
            vec![
                vec![(C, 0x13, b"US")],
                vec![(O, 0x0c, "Örg, Inc.".as_bytes())],
                vec![(CN, 0x16, b"a.b"), (EMAIL, 0x16, b"me@a.b")],
            ],
            // Every string type, a BMP string, non-string values, an unknown OID.
            vec![
                vec![(CN, 0x12, b"123")],
                vec![(CN, 0x1a, b"visible")],
                vec![(CN, 0x1b, b"general")],
                vec![(CN, 0x07, b"descr")],
                vec![(CN, 0x19, b"graphic")],
                vec![(CN, 0x14, b"t61")],
                vec![(CN, 0x15, b"videotex")],
                vec![(CN, 0x1e, &[0, b'b', 0, b'm', 0x00, 0xe9])],
                vec![(O, 0x02, &[0x01, 0xff])],
                vec![(O, 0x04, b"\x00\x7f")],
                vec![(ODD, 0x0c, b"odd")],
                vec![(CN, 0x0c, b"")],
                vec![(CN, 0x0c, long.as_bytes())],
            ],
            // Values that do not decode: the whole name is the error text.
            vec![vec![(C, 0x13, b"US")], vec![(CN, 0x0c, &[0xff, 0xfe])]],
            vec![vec![(CN, 0x1e, &[0, b'a', 0])]],
        ];
        for rdns in &cases {
            let refs: Vec<&[Atv<'_>]> = rdns.iter().map(Vec::as_slice).collect();
            let der = name_der(&refs);
            let (_, name) = x509_parser::x509::X509Name::from_der(&der).expect("a name");
            assert_eq!(name_string(&name), name.to_string(), "{rdns:?}");
        }
        // The certificate is accepted and read as x509-parser's full parse reads it.
        let flight = include_bytes!("testdata/sliver_server_flight.bin");
        let certs = super::super::parser::certificates(&flight[75 + 5 + 4..]).unwrap();
        let (_, full) = x509_parser::parse_x509_certificate(certs[0]).unwrap();
        let light = parse_x509(certs[0]).unwrap();
        assert_eq!(name_string(light.subject()), full.subject().to_string());
        assert_eq!(name_string(light.issuer()), full.issuer().to_string());
        assert_eq!(light.raw_serial(), full.raw_serial());
        assert!(parse_x509(&certs[0][..100]).is_none());
    }

    #[test]
    fn the_cache_shares_a_certificate_parsed_before_and_stays_bounded() {
        let flight = include_bytes!("testdata/sliver_server_flight.bin");
        let certs = super::super::parser::certificates(&flight[75 + 5 + 4..]).unwrap();
        let a = CertInfo::parse_cached(certs[0]).unwrap();
        let b = CertInfo::parse_cached(certs[0]).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a, CertInfo::parse(certs[0]).unwrap());
        assert!(CertInfo::parse_cached(&certs[0][..100]).is_none());
        // Other certificates (the same one with a changed signature byte) push it out
        // once the cache is full, oldest first; the cache never holds more.
        for i in 0..CACHE_ENTRIES {
            let mut der = certs[0].to_vec();
            let n = der.len();
            der[n - 1 - i % 200] ^= 1 + (i / 200) as u8;
            let c = CertInfo::parse_cached(&der).unwrap();
            assert_eq!(c.subject, a.subject);
        }
        CACHE.with(|c| {
            let c = c.borrow();
            assert_eq!(c.entries.len(), CACHE_ENTRIES);
            assert!(c.entries.iter().all(|(d, _)| d.as_slice() != certs[0]));
        });
        let c = CertInfo::parse_cached(certs[0]).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(*a, *c);
    }
}
