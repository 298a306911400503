//! What a TLS record says about the server's certificate, as Suricata logs it: subject
//! and issuer, serial, SHA-1 fingerprint and validity.

use sha1::{Digest, Sha1};

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
}
