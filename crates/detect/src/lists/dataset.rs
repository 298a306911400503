//! One dataset: a named set of values of one type (string, md5, sha256, ipv4, ipv6),
//! each with an optional reputation (`datarep`), shared by every worker. Values are kept
//! in their binary form (the bytes a buffer holds); files and the unix socket use
//! Suricata's text forms (base64 for strings, hex for hashes, addresses as text).

use base64::Engine as _;
use rules::DatasetType;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::RwLock;

/// Suricata's default memcap of one set when neither the rule nor the configuration
/// gives one (16 MiB).
pub const DEFAULT_MEMCAP: u64 = 16 << 20;

/// Suricata's default `hashsize` (rows of a set's hash table).
pub const DEFAULT_HASHSIZE: u64 = 4096;

/// Bytes one hash row costs against the memcap (Suricata: "multiplying hash-size with
/// 64").
pub const ROW_COST: u64 = 64;

/// Bytes one entry costs against the memcap besides its value (the table's per-entry
/// bookkeeping, as Suricata's hash element header).
pub const ENTRY_OVERHEAD: u64 = 64;

/// What [`Dataset::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The value is new.
    New,
    /// It was there already.
    Present,
    /// The memcap refused it (counted).
    Memcap,
}

/// A named set shared by all workers.
pub struct Dataset {
    name: String,
    kind: DatasetType,
    /// Value -> reputation (0 for plain sets).
    map: RwLock<HashMap<Box<[u8]>, u16>>,
    memcap: u64,
    used: AtomicU64,
    memcap_hits: AtomicU64,
    warned: AtomicBool,
    /// Where the set is written at shutdown (`save`/`state`).
    save: RwLock<Option<PathBuf>>,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("len", &self.len())
            .finish()
    }
}

impl Dataset {
    /// An empty set (`memcap` 0: [`DEFAULT_MEMCAP`]).
    pub fn new(name: &str, kind: DatasetType, memcap: u64) -> Dataset {
        Dataset {
            name: name.to_owned(),
            kind,
            map: RwLock::new(HashMap::new()),
            memcap: if memcap == 0 { DEFAULT_MEMCAP } else { memcap },
            used: AtomicU64::new(0),
            memcap_hits: AtomicU64::new(0),
            warned: AtomicBool::new(false),
            save: RwLock::new(None),
        }
    }

    /// An empty set whose hash table has `hashsize` rows (0: [`DEFAULT_HASHSIZE`]),
    /// counted against `memcap` (0: [`DEFAULT_MEMCAP`]) from the start, as Suricata
    /// does; a memcap smaller than the table is refused, as Suricata refuses it.
    pub fn sized(
        name: &str,
        kind: DatasetType,
        memcap: u64,
        hashsize: u64,
    ) -> Result<Dataset, String> {
        let d = Dataset::new(name, kind, memcap);
        let rows = if hashsize == 0 {
            DEFAULT_HASHSIZE
        } else {
            hashsize
        }
        .saturating_mul(ROW_COST);
        if rows > d.memcap {
            return Err(format!(
                "dataset {name}: memcap {} is smaller than its hash table ({rows} bytes: \
                 hashsize times {ROW_COST})",
                d.memcap
            ));
        }
        d.used.store(rows, Ordering::Relaxed);
        Ok(d)
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its type.
    pub fn kind(&self) -> DatasetType {
        self.kind
    }

    /// Values held.
    pub fn len(&self) -> usize {
        self.map.read().map_or(0, |m| m.len())
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Values refused because the memcap was reached.
    pub fn memcap_hits(&self) -> u64 {
        self.memcap_hits.load(Ordering::Relaxed)
    }

    /// Bytes counted against the memcap.
    pub fn memuse(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Writes the set to `path` when [`Dataset::save`] is called.
    pub fn set_save_path(&self, path: PathBuf) {
        if let Ok(mut s) = self.save.write() {
            *s = Some(path);
        }
    }

    /// Whether `v` (binary form) is a valid value of this type.
    fn fits(&self, v: &[u8]) -> bool {
        match self.kind {
            DatasetType::String => true,
            DatasetType::Md5 => v.len() == 16,
            DatasetType::Sha256 => v.len() == 32,
            DatasetType::Ipv4 => v.len() == 4,
            DatasetType::Ipv6 => v.len() == 16,
        }
    }

    /// `v` as the set keys it, if it fits: a set of type `ip` takes a 4-byte IPv4
    /// address too (`ip.src` of an IPv4 packet), keyed as the IPv4-mapped IPv6
    /// address its text form loads as.
    fn key<'a>(&self, v: &'a [u8], mapped: &'a mut [u8; 16]) -> Option<&'a [u8]> {
        if self.kind == DatasetType::Ipv6 && v.len() == 4 {
            mapped[10..12].copy_from_slice(&[0xff, 0xff]);
            mapped[12..].copy_from_slice(v);
            return Some(&mapped[..]);
        }
        self.fits(v).then_some(v)
    }

    /// The reputation of `v` when it is in the set.
    pub fn get(&self, v: &[u8]) -> Option<u16> {
        let mut mapped = [0u8; 16];
        let v = self.key(v, &mut mapped)?;
        self.map.read().ok()?.get(v).copied()
    }

    /// Whether `v` is in the set.
    pub fn contains(&self, v: &[u8]) -> bool {
        self.get(v).is_some()
    }

    /// Adds `v` with reputation `rep`. Unlike a lookup, a 4-byte IPv4 address is not
    /// taken by a set of type `ip`: Suricata 7.0.10's `dataset:set` of an IPv4 packet's
    /// `ip.src` there adds nothing and does not alert (difftest `lists/dataset-ip`).
    pub fn add(&self, v: &[u8], rep: u16) -> Added {
        if !self.fits(v) {
            return Added::Present;
        }
        let Ok(mut m) = self.map.write() else {
            return Added::Present;
        };
        if m.contains_key(v) {
            return Added::Present;
        }
        let cost = ENTRY_OVERHEAD + v.len() as u64;
        if self.used.load(Ordering::Relaxed) + cost > self.memcap {
            self.memcap_hits.fetch_add(1, Ordering::Relaxed);
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "dataset {}: memcap of {} bytes reached; values not added are counted",
                    self.name,
                    self.memcap
                );
            }
            return Added::Memcap;
        }
        self.used.fetch_add(cost, Ordering::Relaxed);
        m.insert(v.into(), rep);
        Added::New
    }

    /// Removes `v`; true when it was there.
    pub fn remove(&self, v: &[u8]) -> bool {
        let Ok(mut m) = self.map.write() else {
            return false;
        };
        let gone = m.remove(v).is_some();
        if gone {
            self.used
                .fetch_sub(ENTRY_OVERHEAD + v.len() as u64, Ordering::Relaxed);
        }
        gone
    }

    /// Empties the set.
    pub fn clear(&self) {
        if let Ok(mut m) = self.map.write() {
            m.clear();
            self.used.store(0, Ordering::Relaxed);
        }
    }

    /// The binary form of a value written as text (files, socket).
    pub fn decode(&self, text: &str) -> Result<Vec<u8>, String> {
        decode(self.kind, text)
    }

    /// The text form of a binary value.
    pub fn encode(&self, v: &[u8]) -> String {
        encode(self.kind, v)
    }

    /// Loads `path`: one value a line (`value` or, with `rep`, `value,reputation`).
    /// Returns the values added; a line without its reputation fails the load with its
    /// number, a value that does not decode (not base64, not an address of the set's
    /// type) is skipped with a warning, as Suricata 7.0.10 does ("bad base64
    /// encoding", "dataset data parse failed"; difftest `lists/dataset-*`).
    pub fn load(&self, path: &Path, rep: bool) -> Result<usize, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("dataset {}: {}: {e}", self.name, path.display()))?;
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad =
                |e: String| format!("dataset {}: {}:{}: {e}", self.name, path.display(), i + 1);
            let (v, r) = if rep {
                let (v, r) = line
                    .rsplit_once(',')
                    .ok_or_else(|| bad("expected value,reputation".into()))?;
                let r = r
                    .trim()
                    .parse::<u16>()
                    .map_err(|_| bad(format!("bad reputation '{r}'")))?;
                (v, r)
            } else {
                (line.split(',').next().unwrap_or(line), 0)
            };
            let v = match self.decode(v.trim()) {
                Ok(v) => v,
                Err(e) => {
                    tracing::warn!("{} (line skipped)", bad(e));
                    continue;
                }
            };
            if self.add(&v, r) == Added::New {
                n += 1;
            }
        }
        Ok(n)
    }

    /// The values as text, one a line (the form [`Dataset::load`] reads).
    pub fn dump(&self) -> String {
        let Ok(m) = self.map.read() else {
            return String::new();
        };
        let mut out = String::new();
        for v in m.keys() {
            out.push_str(&self.encode(v));
            out.push('\n');
        }
        out
    }

    /// Writes the set to its `save`/`state` file, if it has one.
    pub fn save(&self) -> Result<Option<PathBuf>, String> {
        let Some(path) = self.save.read().ok().and_then(|s| s.clone()) else {
            return Ok(None);
        };
        std::fs::write(&path, self.dump())
            .map_err(|e| format!("dataset {}: {}: {e}", self.name, path.display()))?;
        Ok(Some(path))
    }
}

/// The binary form of a value of type `kind` written as text.
pub fn decode(kind: DatasetType, text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    match kind {
        DatasetType::String => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| format!("bad base64 '{text}': {e}")),
        DatasetType::Md5 | DatasetType::Sha256 => {
            let want = if kind == DatasetType::Md5 { 32 } else { 64 };
            if text.len() != want || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("bad {} '{text}'", kind.name()));
            }
            Ok((0..want / 2)
                .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect())
        }
        DatasetType::Ipv4 => text
            .parse::<Ipv4Addr>()
            .map(|a| a.octets().to_vec())
            .map_err(|_| format!("bad ipv4 address '{text}'")),
        DatasetType::Ipv6 => match text.parse::<IpAddr>() {
            Ok(IpAddr::V6(a)) => Ok(a.octets().to_vec()),
            Ok(IpAddr::V4(a)) => Ok(a.to_ipv6_mapped().octets().to_vec()),
            Err(_) => Err(format!("bad ipv6 address '{text}'")),
        },
    }
}

/// The text form of a binary value of type `kind`.
pub fn encode(kind: DatasetType, v: &[u8]) -> String {
    match kind {
        DatasetType::String => base64::engine::general_purpose::STANDARD.encode(v),
        DatasetType::Md5 | DatasetType::Sha256 => v.iter().map(|b| format!("{b:02x}")).collect(),
        DatasetType::Ipv4 => match <[u8; 4]>::try_from(v) {
            Ok(a) => Ipv4Addr::from(a).to_string(),
            Err(_) => String::new(),
        },
        DatasetType::Ipv6 => match <[u8; 16]>::try_from(v) {
            Ok(a) => Ipv6Addr::from(a).to_string(),
            Err(_) => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ip_set_takes_ipv4_addresses_of_four_bytes() {
        let d = Dataset::new("ips", DatasetType::Ipv6, 1 << 20);
        d.add(&d.decode("192.168.0.30").unwrap(), 0);
        d.add(&d.decode("2001:db8::2").unwrap(), 0);
        assert!(d.contains(&[192, 168, 0, 30]));
        assert!(!d.contains(&[192, 168, 0, 31]));
        assert!(d.contains(&Ipv6Addr::from([0x2001, 0xdb8, 0, 0, 0, 0, 0, 2]).octets()));
        // A rule's `set` of a 4-byte address adds nothing there (Suricata 7.0.10).
        assert_eq!(d.add(&[10, 0, 0, 1], 0), Added::Present);
        assert!(!d.contains(&d.decode("10.0.0.1").unwrap()));
        // An ipv4 set keeps taking 4 bytes only.
        let v4 = Dataset::new("v4", DatasetType::Ipv4, 1 << 20);
        v4.add(&[10, 0, 0, 1], 0);
        assert!(v4.contains(&[10, 0, 0, 1]) && !v4.contains(&[0; 16]));
    }

    #[test]
    fn add_remove_and_memcap() {
        let d = Dataset::new("x", DatasetType::String, ENTRY_OVERHEAD * 2 + 6);
        assert_eq!(d.add(b"abc", 0), Added::New);
        assert_eq!(d.add(b"abc", 0), Added::Present);
        assert_eq!(d.add(b"def", 0), Added::New);
        assert_eq!(d.add(b"ghi", 0), Added::Memcap);
        assert_eq!(d.memcap_hits(), 1);
        assert!(d.contains(b"abc") && !d.contains(b"ghi"));
        assert!(d.remove(b"abc"));
        assert!(!d.remove(b"abc"));
        assert_eq!(d.add(b"ghi", 0), Added::New);
        d.clear();
        assert!(d.is_empty());
        assert_eq!(d.memuse(), 0);
    }

    #[test]
    fn text_forms_round_trip() {
        for (k, t) in [
            (DatasetType::String, "ZXhhbXBsZS5jb20="),
            (DatasetType::Md5, "d41d8cd98f00b204e9800998ecf8427e"),
            (DatasetType::Ipv4, "10.1.2.3"),
            (DatasetType::Ipv6, "2001:db8::1"),
        ] {
            let v = decode(k, t).unwrap();
            assert_eq!(encode(k, &v), t);
        }
        assert_eq!(
            decode(DatasetType::String, "ZXhhbXBsZS5jb20=").unwrap(),
            b"example.com"
        );
        assert!(decode(DatasetType::Md5, "abc").is_err());
        assert!(decode(DatasetType::Ipv4, "::1").is_err());
        assert!(decode(DatasetType::String, "!!").is_err());
    }

    #[test]
    fn load_and_save_files() {
        let dir = std::env::temp_dir().join(format!("osprey-ds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("rep.csv");
        std::fs::write(&f, "ZXhhbXBsZS5jb20=,10\n\n# note\nZ29vZ2xlLmNvbQ==,3\n").unwrap();
        let d = Dataset::new("rep", DatasetType::String, 0);
        assert_eq!(d.load(&f, true).unwrap(), 2);
        assert_eq!(d.get(b"example.com"), Some(10));
        assert_eq!(d.get(b"google.com"), Some(3));
        // A line that is not base64 is skipped, the others load.
        std::fs::write(&f, "%%%\nZXhhbXBsZS5jb20=\nnot base64!\n").unwrap();
        let e = Dataset::new("bad", DatasetType::String, 0);
        assert_eq!(e.load(&f, false).unwrap(), 1);
        assert_eq!(e.get(b"example.com"), Some(0));
        let v4 = Dataset::new("v4", DatasetType::Ipv4, 0);
        std::fs::write(&f, "fd00::1\n10.9.0.1\n").unwrap();
        assert_eq!(v4.load(&f, false).unwrap(), 1);
        // A reputation line without its reputation fails the load.
        std::fs::write(&f, "ZXhhbXBsZS5jb20=\n").unwrap();
        let r = Dataset::new("r", DatasetType::String, 0);
        assert!(r.load(&f, true).unwrap_err().contains(":1:"));
        let out = dir.join("out.lst");
        d.set_save_path(out.clone());
        assert_eq!(d.save().unwrap(), Some(out.clone()));
        let again = Dataset::new("again", DatasetType::String, 0);
        assert_eq!(again.load(&out, false).unwrap(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }
}
