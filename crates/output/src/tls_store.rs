//! The `tls-store` output: the certificate chain a `tls_store` rule asked for, written
//! as Suricata 7.0.10 writes it. Each stored chain is two files in the output's
//! directory, named `<seconds>.<microseconds>-<n>` after the packet that had it written
//! (the microseconds not zero-padded, as Suricata prints them) and `n`, the count of
//! chains stored so far from 1, across workers:
//!
//! - `.pem`: every certificate of the chain, in message order, as PEM (base64 in
//!   64-character lines between `-----BEGIN CERTIFICATE-----` and
//!   `-----END CERTIFICATE-----`);
//! - `.meta`: one `NAME:` line per fact, the values aligned at column 20: `TIME` (local
//!   time, as fast.log), `PCAP PKT NUM` (left out for a pseudo-packet, at flow end),
//!   the flow's client and server (`SRC IP`, `DST IP`, `PROTO`, `SRC PORT`, `DST
//!   PORT`) and the first certificate's `TLS SUBJECT`, `TLS ISSUERDN` and `TLS
//!   FINGERPRINT`.
//!
//! What a worker stored and could not write is counted ([`CertCounts`]).

use std::cell::Cell;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;

use crate::eve::EventMeta;

/// The shared part of the output: its directory and the chain counter.
#[derive(Debug)]
pub struct TlsStore {
    dir: PathBuf,
    next: AtomicU64,
}

/// What a chain's `.meta` file names of its first certificate.
#[derive(Debug, Clone, Copy)]
pub struct CertFacts<'a> {
    /// The subject (RFC 4514 order, as the EVE `tls.subject`).
    pub subject: Option<&'a str>,
    /// The issuer (as the EVE `tls.issuerdn`).
    pub issuer: Option<&'a str>,
    /// The SHA-1 fingerprint, colon-separated lower-case hex.
    pub fingerprint: Option<&'a str>,
}

impl TlsStore {
    /// An output writing into `dir` (made, with its parents, when missing).
    pub fn create(dir: &Path) -> std::io::Result<Self> {
        fs::create_dir_all(dir)?;
        Ok(TlsStore {
            dir: dir.to_path_buf(),
            next: AtomicU64::new(1),
        })
    }

    /// The output's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the chain `certs` (DER, the server's own first) with its `.meta` file,
    /// `meta` giving the packet and the flow (client → server). Returns the files'
    /// common path without extension.
    pub fn write<'c>(
        &self,
        meta: &EventMeta,
        facts: CertFacts<'_>,
        certs: impl Iterator<Item = &'c [u8]>,
    ) -> std::io::Result<PathBuf> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let base = self
            .dir
            .join(format!("{}.{}-{n}", meta.ts_secs, meta.ts_micros));
        write_file(&base.with_extension_str("pem"), pem(certs).as_bytes())?;
        write_file(
            &base.with_extension_str("meta"),
            meta_text(meta, facts).as_bytes(),
        )?;
        Ok(base)
    }
}

/// Appending an extension to a name that has a dot already (`1.5-1` + `pem`).
trait WithExtension {
    fn with_extension_str(&self, ext: &str) -> PathBuf;
}

impl WithExtension for PathBuf {
    fn with_extension_str(&self, ext: &str) -> PathBuf {
        let mut s = self.clone().into_os_string();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = fs::File::create(path)?;
    f.write_all(bytes)
}

/// The chain as PEM: each certificate's base64 in 64-character lines.
pub fn pem<'c>(certs: impl Iterator<Item = &'c [u8]>) -> String {
    let mut out = String::new();
    for der in certs {
        out.push_str("-----BEGIN CERTIFICATE-----\n");
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        for line in b64.as_bytes().chunks(64) {
            // Base64 is ASCII.
            out.push_str(std::str::from_utf8(line).unwrap_or_default());
            out.push('\n');
        }
        out.push_str("-----END CERTIFICATE-----\n");
    }
    out
}

/// The `.meta` file's text.
pub fn meta_text(meta: &EventMeta, facts: CertFacts<'_>) -> String {
    let mut lines: Vec<(&str, String)> = vec![(
        "TIME:",
        crate::time::fast_timestamp(meta.ts_secs, meta.ts_micros),
    )];
    if let Some(n) = meta.pcap_cnt {
        lines.push(("PCAP PKT NUM:", n.to_string()));
    }
    lines.extend([
        ("SRC IP:", meta.src_ip.to_string()),
        ("DST IP:", meta.dest_ip.to_string()),
        ("PROTO:", meta.proto.to_string()),
        ("SRC PORT:", meta.src_port.to_string()),
        ("DST PORT:", meta.dest_port.to_string()),
    ]);
    for (name, v) in [
        ("TLS SUBJECT:", facts.subject),
        ("TLS ISSUERDN:", facts.issuer),
        ("TLS FINGERPRINT:", facts.fingerprint),
    ] {
        if let Some(v) = v {
            lines.push((name, v.to_owned()));
        }
    }
    lines
        .iter()
        .map(|(name, v)| format!("{name:<19}{v}\n"))
        .collect()
}

/// One worker's `tls-store` counters (`osprey.tls_store.*`).
#[derive(Debug, Default)]
pub struct CertCounts {
    stored: Cell<u64>,
    errors: Cell<u64>,
}

impl CertCounts {
    /// A chain was written.
    pub fn stored(&self) {
        self.stored.set(self.stored.get() + 1);
    }

    /// A chain could not be written (the file system refused).
    pub fn error(&self) {
        self.errors.set(self.errors.get() + 1);
    }

    /// The counters, named.
    pub fn list(&self) -> [(&'static str, u64); 2] {
        [
            ("osprey.tls_store.stored", self.stored.get()),
            ("osprey.tls_store.fs_errors", self.errors.get()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    fn meta(pcap_cnt: Option<u64>) -> EventMeta {
        EventMeta {
            ts_secs: 1_647_506_358,
            ts_micros: 4835,
            flow_id: 1,
            pcap_cnt,
            vlan: [0; 3],
            src_ip: IpAddr::V4(Ipv4Addr::new(192, 168, 100, 206)),
            src_port: 60061,
            dest_ip: IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)),
            dest_port: 443,
            proto: 6,
            pkt_src: "wire/pcap",
        }
    }

    const FACTS: CertFacts<'static> = CertFacts {
        subject: Some("CN=a"),
        issuer: Some("CN=b"),
        fingerprint: Some("00:11"),
    };

    #[test]
    fn meta_lines_align_and_leave_out_what_is_missing() {
        let t = meta_text(&meta(Some(14)), FACTS);
        assert_eq!(
            t,
            "TIME:              03/17/2022-08:39:18.004835\n\
             PCAP PKT NUM:      14\n\
             SRC IP:            192.168.100.206\n\
             DST IP:            2001:db8::1\n\
             PROTO:             6\n\
             SRC PORT:          60061\n\
             DST PORT:          443\n\
             TLS SUBJECT:       CN=a\n\
             TLS ISSUERDN:      CN=b\n\
             TLS FINGERPRINT:   00:11\n"
        );
        let t = meta_text(
            &meta(None),
            CertFacts {
                subject: None,
                ..FACTS
            },
        );
        assert!(!t.contains("PCAP PKT NUM") && !t.contains("TLS SUBJECT"));
        assert!(t.contains("TLS ISSUERDN:      CN=b\n"));
    }

    #[test]
    fn pem_wraps_at_64() {
        let der: Vec<u8> = (0..100u8).collect();
        let p = pem([&der[..], &[1u8, 2, 3][..]].into_iter());
        let lines: Vec<&str> = p.lines().collect();
        assert_eq!(lines[0], "-----BEGIN CERTIFICATE-----");
        // 100 bytes: 136 base64 characters.
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines[2].len(), 64);
        assert_eq!(lines[3].len(), 8);
        assert_eq!(lines[4], "-----END CERTIFICATE-----");
        assert_eq!(
            &lines[5..],
            [
                "-----BEGIN CERTIFICATE-----",
                "AQID",
                "-----END CERTIFICATE-----"
            ]
        );
        assert_eq!(pem(std::iter::empty()), "");
    }

    #[test]
    fn files_are_named_by_packet_time_and_count() {
        let dir = std::env::temp_dir().join(format!("osprey-tls-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = TlsStore::create(&dir.join("certs")).unwrap();
        let der = [&[0x30u8, 0x03, 0x02, 0x01, 0x01][..]];
        let a = store.write(&meta(Some(1)), FACTS, der.into_iter()).unwrap();
        let b = store.write(&meta(None), FACTS, der.into_iter()).unwrap();
        assert_eq!(a, dir.join("certs/1647506358.4835-1"));
        assert_eq!(b, dir.join("certs/1647506358.4835-2"));
        let pem = fs::read_to_string(dir.join("certs/1647506358.4835-2.pem")).unwrap();
        assert!(pem.contains("MAMCAQE=\n"));
        assert!(dir.join("certs/1647506358.4835-1.meta").exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
