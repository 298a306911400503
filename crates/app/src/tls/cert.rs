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
    pub serial: String,
    /// The SHA-1 of the DER bytes as lowercase hex pairs joined by `:`.
    pub fingerprint: String,
    /// `notBefore`, UTC, `YYYY-MM-DDTHH:MM:SS`.
    pub not_before: String,
    /// `notAfter`, same format.
    pub not_after: String,
}

fn pairs(b: &[u8], upper: bool) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 3);
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(':');
        }
        let _ = if upper {
            write!(s, "{x:02X}")
        } else {
            write!(s, "{x:02x}")
        };
    }
    s
}

fn time(t: x509_parser::time::ASN1Time) -> String {
    let d = t.to_datetime();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        d.year(),
        u8::from(d.month()),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    )
}

impl CertInfo {
    /// The facts of `der`; `None` when it does not parse as an X.509 certificate.
    pub fn parse(der: &[u8]) -> Option<CertInfo> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let validity = cert.validity();
        Some(CertInfo {
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
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
