//! The on-disk cache of GPU set-up: compiled kernels (PTX) and matcher tables, keyed by the
//! target (GPU architecture such as `compute_90`, or `cpu-sim`) and a hash of what they are
//! built from (kernel source and NVRTC version; the rule set's patterns and table limits).
//!
//! **Where.** `--gpu-cache DIR`; by default [`DiskCache::default_dir`]: `/var/lib/osprey/gpu`
//! when running as root (a sensor's state directory, like Suricata's `/var/lib/suricata`),
//! else `$XDG_CACHE_HOME/osprey/gpu`, else `$HOME/.cache/osprey/gpu` (the XDG base
//! directory rule for caches: deleting it loses nothing but time).
//!
//! **Never trusted blindly.** Each file is `OSPRGPU1`, the format version, the payload
//! length, the first 8 bytes of the payload's SHA-256, then the payload. A file that is
//! short, of another version or fails its checksum is counted as rejected and rebuilt; the
//! table decoder ([`decode_tables`]) also checks every index a kernel will follow. Files
//! are written to a temporary name and renamed, so a run killed mid-write leaves no torn
//! file and two processes filling the same key do not mix bytes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mpm::{DfaTables, PatternInfo, PatternStore, PlainDfa};
use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"OSPRGPU1";
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 8;

/// What the cache did, for `stats.json` (`osprey.gpu.cache_*`).
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Entries found and verified.
    pub hits: AtomicU64,
    /// Entries absent (built, then stored).
    pub misses: AtomicU64,
    /// Entries present but corrupt (bad header, checksum or contents): rebuilt.
    pub rejected: AtomicU64,
    /// Entries written.
    pub stored: AtomicU64,
    /// Entries that could not be written (read-only directory, full disk).
    pub store_errors: AtomicU64,
}

impl CacheStats {
    /// `(name, value)` pairs under `osprey.gpu.`.
    pub fn counters(&self) -> [(&'static str, u64); 5] {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        [
            ("osprey.gpu.cache_hits", g(&self.hits)),
            ("osprey.gpu.cache_misses", g(&self.misses)),
            ("osprey.gpu.cache_rejected", g(&self.rejected)),
            ("osprey.gpu.cache_stored", g(&self.stored)),
            ("osprey.gpu.cache_store_errors", g(&self.store_errors)),
        ]
    }
}

/// A cache directory and its counters (cheap to clone: shared counters).
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
    stats: Arc<CacheStats>,
}

/// The key of one entry: its kind (`ptx`, `tables`), target and content hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey {
    /// What is cached (`ptx`, `ac-tables`, `pcre-dfas`).
    pub kind: &'static str,
    /// The target: a `compute_XY` architecture, or `cpu-sim`.
    pub target: String,
    /// Hash of the inputs (hex).
    pub hash: String,
}

impl CacheKey {
    /// A key whose hash is the SHA-256 of `parts` (each length-prefixed).
    pub fn new(kind: &'static str, target: &str, parts: &[&[u8]]) -> CacheKey {
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        CacheKey {
            kind,
            target: target.to_string(),
            hash: hex(&h.finalize()[..16]),
        }
    }

    fn file_name(&self) -> String {
        let target: String = self
            .target
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("{}-{}-{}.bin", self.kind, target, self.hash)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn checksum(payload: &[u8]) -> [u8; 8] {
    let d = Sha256::digest(payload);
    let mut c = [0u8; 8];
    c.copy_from_slice(&d[..8]);
    c
}

impl DiskCache {
    /// A cache in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache {
            dir: dir.into(),
            stats: Arc::new(CacheStats::default()),
        }
    }

    /// The default directory (module docs); `None` when neither root nor a home is known.
    pub fn default_dir() -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        default_dir_for(is_root(), env("XDG_CACHE_HOME"), env("HOME"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The counters.
    pub fn stats(&self) -> &Arc<CacheStats> {
        &self.stats
    }

    /// The verified payload of `key`, or `None` (absent: a miss; corrupt: rejected).
    pub fn load(&self, key: &CacheKey) -> Option<Vec<u8>> {
        let path = self.dir.join(key.file_name());
        let Ok(data) = fs::read(&path) else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match unwrap_payload(&data) {
            Some(p) => {
                self.stats.hits.fetch_add(1, Ordering::Relaxed);
                Some(p.to_vec())
            }
            None => {
                self.reject(key);
                None
            }
        }
    }

    /// Count `key`'s file as corrupt (its payload was well-formed on disk but did not
    /// decode) and remove it.
    pub fn reject(&self, key: &CacheKey) {
        self.stats.rejected.fetch_add(1, Ordering::Relaxed);
        let _ = fs::remove_file(self.dir.join(key.file_name()));
    }

    /// Write `payload` under `key` (atomically: a temporary file renamed). A failure is
    /// counted and returned; the run goes on without the cache.
    pub fn store(&self, key: &CacheKey, payload: &[u8]) -> Result<(), String> {
        let r = (|| {
            fs::create_dir_all(&self.dir)?;
            let path = self.dir.join(key.file_name());
            let tmp = self
                .dir
                .join(format!(".{}.{}.tmp", key.file_name(), std::process::id()));
            let mut f = fs::File::create(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(&VERSION.to_le_bytes())?;
            f.write_all(&(payload.len() as u64).to_le_bytes())?;
            f.write_all(&checksum(payload))?;
            f.write_all(payload)?;
            f.sync_all()?;
            fs::rename(&tmp, &path)
        })();
        match r {
            Ok(()) => {
                self.stats.stored.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                self.stats.store_errors.fetch_add(1, Ordering::Relaxed);
                Err(format!("GPU cache {}: {e}", self.dir.display()))
            }
        }
    }

    /// The cached value of `key` decoded by `decode`, else `build`'s (stored for next
    /// time). A payload that does not decode is rejected and rebuilt.
    pub fn get_or_build<T, E>(
        &self,
        key: &CacheKey,
        decode: impl FnOnce(&[u8]) -> Option<T>,
        encode: impl FnOnce(&T) -> Vec<u8>,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        if let Some(bytes) = self.load(key) {
            match decode(&bytes) {
                Some(v) => return Ok(v),
                None => {
                    // Well-formed file, bad contents: not a hit after all.
                    self.stats.hits.fetch_sub(1, Ordering::Relaxed);
                    self.reject(key);
                }
            }
        }
        let v = build()?;
        let _ = self.store(key, &encode(&v));
        Ok(v)
    }
}

fn is_root() -> bool {
    // The effective uid from /proc (no libc call): `Uid:` real, effective, ...
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn default_dir_for(
    root: bool,
    xdg: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    if root {
        return Some(PathBuf::from("/var/lib/osprey/gpu"));
    }
    if let Some(x) = xdg {
        return Some(PathBuf::from(x).join("osprey/gpu"));
    }
    home.map(|h| PathBuf::from(h).join(".cache/osprey/gpu"))
}

fn unwrap_payload(data: &[u8]) -> Option<&[u8]> {
    if data.len() < HEADER || &data[..8] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(data[8..12].try_into().ok()?);
    let len = u64::from_le_bytes(data[12..20].try_into().ok()?);
    let payload = &data[HEADER..];
    if version != VERSION || len != payload.len() as u64 || data[20..28] != checksum(payload) {
        return None;
    }
    Some(payload)
}

/// Serialise the per-group tables (little-endian words).
pub fn encode_tables(groups: &[DfaTables]) -> Vec<u8> {
    let mut w = Vec::new();
    let put = |w: &mut Vec<u8>, v: u32| w.extend_from_slice(&v.to_le_bytes());
    let put_vec = |w: &mut Vec<u8>, v: &[u32]| {
        put(w, v.len() as u32);
        for &x in v {
            put(w, x);
        }
    };
    put(&mut w, groups.len() as u32);
    for g in groups {
        put(&mut w, g.num_states);
        put(&mut w, g.match_min);
        put_vec(&mut w, &g.transitions);
        put_vec(&mut w, &g.out_offsets);
        put_vec(&mut w, &g.outputs);
        put(&mut w, g.patterns.infos.len() as u32);
        for i in &g.patterns.infos {
            put(&mut w, i.id);
            put(&mut w, i.len);
            put(&mut w, i.verify_at);
        }
        put(&mut w, g.patterns.bytes.len() as u32);
        w.extend_from_slice(&g.patterns.bytes);
    }
    w
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u32(&mut self) -> Option<u32> {
        let (h, t) = self.0.split_first_chunk::<4>()?;
        self.0 = t;
        Some(u32::from_le_bytes(*h))
    }
    fn vec(&mut self) -> Option<Vec<u32>> {
        let n = self.u32()? as usize;
        if n > self.0.len() / 4 {
            return None;
        }
        (0..n).map(|_| self.u32()).collect()
    }
    fn bytes(&mut self, n: usize) -> Option<Vec<u8>> {
        if n > self.0.len() {
            return None;
        }
        let (h, t) = self.0.split_at(n);
        self.0 = t;
        Some(h.to_vec())
    }
}

/// Decode [`encode_tables`]'s bytes, checking every index the kernels and the merge follow
/// (transitions within the states, output ranges within the outputs, pattern indices and
/// case-check bytes within the store); `None` when anything is off.
pub fn decode_tables(bytes: &[u8]) -> Option<Vec<DfaTables>> {
    let mut r = Reader(bytes);
    let n = r.u32()? as usize;
    let mut groups = Vec::new();
    for _ in 0..n {
        let num_states = r.u32()?;
        let match_min = r.u32()?;
        let transitions = r.vec()?;
        let out_offsets = r.vec()?;
        let outputs = r.vec()?;
        let npat = r.u32()? as usize;
        if npat > r.0.len() / 12 {
            return None;
        }
        let mut infos = Vec::with_capacity(npat);
        for _ in 0..npat {
            infos.push(PatternInfo {
                id: r.u32()?,
                len: r.u32()?,
                verify_at: r.u32()?,
            });
        }
        let nbytes = r.u32()? as usize;
        let pbytes = r.bytes(nbytes)?;
        let ok = num_states >= 1
            && match_min <= num_states
            && transitions.len() == num_states as usize * 256
            && transitions.iter().all(|&s| s < num_states)
            && out_offsets.len() == (num_states - match_min) as usize + 1
            && out_offsets.windows(2).all(|w| w[0] <= w[1])
            && out_offsets
                .last()
                .is_some_and(|&e| e as usize == outputs.len())
            && outputs.iter().all(|&o| (o as usize) < npat)
            && infos.iter().all(|i| {
                i.verify_at == PatternInfo::NO_VERIFY
                    || (i.verify_at as usize)
                        .checked_add(i.len as usize)
                        .is_some_and(|e| e <= pbytes.len())
            });
        if !ok {
            return None;
        }
        groups.push(DfaTables {
            num_states,
            match_min,
            transitions,
            out_offsets,
            outputs,
            patterns: PatternStore {
                infos,
                bytes: pbytes,
            },
        });
    }
    r.0.is_empty().then_some(groups)
}

/// Serialise regex DFAs, one entry per `pcre` source (`None`: the regex has no DFA), in
/// the order the detector's offload plan lists its `pcre` sources. Transitions are 16-bit
/// when the DFA's states fit, else 32-bit.
pub fn encode_dfas(dfas: &[Option<PlainDfa>]) -> Vec<u8> {
    let mut w = Vec::new();
    let put = |w: &mut Vec<u8>, v: u32| w.extend_from_slice(&v.to_le_bytes());
    put(&mut w, dfas.len() as u32);
    for d in dfas {
        let Some(d) = d else {
            put(&mut w, 0);
            continue;
        };
        let narrow = d.num_states() <= u16::MAX as u32 + 1;
        put(&mut w, if narrow { 16 } else { 32 });
        put(&mut w, d.num_states());
        put(&mut w, d.start());
        for &t in d.transitions() {
            if narrow {
                w.extend_from_slice(&(t as u16).to_le_bytes());
            } else {
                put(&mut w, t);
            }
        }
        w.extend_from_slice(d.flags());
    }
    w
}

/// Decode [`encode_dfas`]'s bytes; every table is checked again by [`PlainDfa::new`]
/// (entries and start within the states, known flags). `None` when anything is off.
pub fn decode_dfas(bytes: &[u8]) -> Option<Vec<Option<PlainDfa>>> {
    let mut r = Reader(bytes);
    let n = r.u32()? as usize;
    if n > r.0.len() / 4 {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let width = r.u32()?;
        if width == 0 {
            out.push(None);
            continue;
        }
        let states = r.u32()? as usize;
        let start = r.u32()?;
        let entry = match width {
            16 => 2,
            32 => 4,
            _ => return None,
        };
        let size = states.checked_mul(256)?.checked_mul(entry)?;
        let raw = r.bytes(size)?;
        let transitions: Vec<u32> = if entry == 2 {
            raw.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect()
        } else {
            raw.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let flags = r.bytes(states)?;
        out.push(Some(
            PlainDfa::new(states as u32, start, transitions, flags).ok()?,
        ));
    }
    r.0.is_empty().then_some(out)
}

/// The PTX of `kernel` for `arch` (`compute_XY`): from `cache` when it holds it (keyed by the
/// source, the architecture and NVRTC's version), else compiled by NVRTC and stored.
pub fn compiled_ptx(
    cache: Option<&DiskCache>,
    kernel: &crate::nvrtc::KernelSource,
    arch: &str,
) -> Result<String, String> {
    let Some(cache) = cache else {
        return crate::nvrtc::compile(kernel, arch);
    };
    let (major, minor) = crate::nvrtc::nvrtc_version()?;
    let version = format!("{major}.{minor}");
    let key = CacheKey::new(
        "ptx",
        arch,
        &[
            kernel.name.as_bytes(),
            kernel.source.as_bytes(),
            version.as_bytes(),
        ],
    );
    cache.get_or_build(
        &key,
        |b| {
            let text = std::str::from_utf8(b).ok()?;
            // Every entry point must be there (a truncated or foreign file is not).
            let complete = kernel
                .entries
                .iter()
                .all(|e| text.contains(&format!(".entry {e}(")));
            complete.then(|| text.to_string())
        },
        |s| s.as_bytes().to_vec(),
        || crate::nvrtc::compile(kernel, arch),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpm::{Limits, Pattern};

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("osprey-gpu-cache-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn groups() -> Vec<DfaTables> {
        vec![
            DfaTables::build(
                &[
                    Pattern::new(&b"Attack"[..], 7),
                    Pattern::nocase(&b"evil"[..], 9),
                ],
                &Limits::default(),
            )
            .unwrap(),
            DfaTables::build(&[Pattern::new(&b"xyz"[..], 1)], &Limits::default()).unwrap(),
        ]
    }

    #[test]
    fn tables_round_trip_and_bad_indices_are_refused() {
        let g = groups();
        let bytes = encode_tables(&g);
        assert_eq!(decode_tables(&bytes).unwrap(), g);
        // Truncated, or extra bytes.
        assert!(decode_tables(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_tables(&longer).is_none());
        // A transition to a state that does not exist (the first transition word of the
        // first group: after the count, num_states, match_min and the vector length).
        let mut bad = bytes.clone();
        bad[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_tables(&bad).is_none());
    }

    #[test]
    fn dfas_round_trip_and_bad_tables_are_refused() {
        let mut t = vec![0u32; 2 * 256];
        t[b'a' as usize] = 1;
        let small = PlainDfa::new(2, 0, t, vec![0, PlainDfa::MATCH]).unwrap();
        // More states than 16 bits hold: 32-bit entries.
        let n = 70_000u32;
        let big = PlainDfa::new(n, 1, vec![n - 1; n as usize * 256], vec![0; n as usize]).unwrap();
        let dfas = vec![Some(small.clone()), None, Some(big)];
        let bytes = encode_dfas(&dfas);
        assert_eq!(decode_dfas(&bytes), Some(dfas));
        assert_eq!(decode_dfas(&encode_dfas(&[])), Some(vec![]));
        // Truncated, trailing bytes, a transition past the states: refused.
        let one = encode_dfas(&[Some(small)]);
        assert!(decode_dfas(&one[..one.len() - 1]).is_none());
        assert!(decode_dfas(&[one.as_slice(), &[0]].concat()).is_none());
        let mut bad = one.clone();
        bad[16] = 9; // state 0 on byte 0 -> state 9 of 2
        assert!(decode_dfas(&bad).is_none());
        let mut width = one;
        width[4] = 8;
        assert!(decode_dfas(&width).is_none());
    }

    #[test]
    fn second_lookup_hits_and_a_corrupt_file_is_rebuilt() {
        let cache = DiskCache::new(tmp("hits"));
        let key = CacheKey::new("ac-tables", "cpu-sim", &[b"rules"]);
        let mut builds = 0;
        let mut get = |c: &DiskCache| {
            c.get_or_build(
                &key,
                decode_tables,
                |g| encode_tables(g),
                || {
                    builds += 1;
                    Ok::<_, ()>(groups())
                },
            )
            .unwrap()
        };
        assert_eq!(get(&cache), groups());
        assert_eq!(get(&cache), groups());
        let s = cache.stats().counters();
        assert_eq!(s.map(|c| c.1), [1, 1, 0, 1, 0], "{s:?}");
        // Flip one payload byte: the checksum fails, the entry is rebuilt and rewritten.
        let path = cache.dir().join(key.file_name());
        let mut data = fs::read(&path).unwrap();
        let last = data.len() - 1;
        data[last] ^= 1;
        fs::write(&path, &data).unwrap();
        assert_eq!(get(&cache), groups());
        assert_eq!(cache.stats().rejected.load(Ordering::Relaxed), 1);
        assert_eq!(cache.stats().stored.load(Ordering::Relaxed), 2);
        // A valid checksum over contents that do not decode is rejected too.
        let payload = b"not tables".to_vec();
        cache.store(&key, &payload).unwrap();
        assert_eq!(get(&cache), groups());
        assert_eq!(cache.stats().rejected.load(Ordering::Relaxed), 2);
        assert_eq!(get(&cache), groups());
        assert_eq!(
            builds, 3,
            "built first, after the flip, after the bad contents"
        );
        // Other targets and inputs are other entries.
        assert_ne!(
            CacheKey::new("ptx", "compute_90", &[b"a"]).file_name(),
            CacheKey::new("ptx", "compute_80", &[b"a"]).file_name()
        );
        assert_ne!(
            CacheKey::new("ptx", "x", &[b"ab", b"c"]),
            CacheKey::new("ptx", "x", &[b"a", b"bc"])
        );
        let _ = fs::remove_dir_all(cache.dir());
    }

    #[test]
    fn an_unwritable_directory_is_counted_not_fatal() {
        let file = tmp("file");
        fs::write(&file, b"x").unwrap();
        let cache = DiskCache::new(file.join("sub"));
        let key = CacheKey::new("ptx", "cpu-sim", &[]);
        assert!(cache.store(&key, b"p").is_err());
        assert_eq!(cache.stats().store_errors.load(Ordering::Relaxed), 1);
        let _ = fs::remove_file(&file);
    }

    #[test]
    fn default_directory_follows_root_then_xdg_then_home() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(
            default_dir_for(true, os("/x"), os("/h")),
            Some(PathBuf::from("/var/lib/osprey/gpu"))
        );
        assert_eq!(
            default_dir_for(false, os("/x"), os("/h")),
            Some(PathBuf::from("/x/osprey/gpu"))
        );
        assert_eq!(
            default_dir_for(false, None, os("/h")),
            Some(PathBuf::from("/h/.cache/osprey/gpu"))
        );
        assert_eq!(default_dir_for(false, None, None), None);
    }
}
