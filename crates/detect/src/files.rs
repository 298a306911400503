//! File options (`filename`, `fileext`, `filemagic`, `filesize`, `filemd5`,
//! `filesha1`, `filesha256`, `filestore`): compiled once per rule from its
//! [`rules::AppOpt`]s and evaluated on the files of a transaction
//! ([`app::Transaction::files`]), as Suricata does: the options of a rule all hold for
//! one file travelling in the inspected direction; an option that needs the whole file
//! (a hash, an exact size) waits for the file to end; a libmagic one waits for the
//! file's first bytes. `filestore` is no condition: on a match it asks for the matched
//! file (or the transaction's files) to be stored.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use app::{Direction, File, FileState, Transaction};
use rules::{AppOpt, AppValue, IntCmp};

use crate::sig::Refusal;

/// The names of the options this module evaluates.
const NAMES: &[&str] = &[
    "filename",
    "fileext",
    "filemagic",
    "filesize",
    "filemd5",
    "filesha1",
    "filesha256",
    "filestore",
];

/// `file.data` in a rule whose header names protocol `header`: that protocol's own
/// file buffer when it has one (SMTP attachments, ...), else `b` as it is (HTTP's).
pub(crate) fn file_buffer(b: app::BufferId, header: Option<app::AppProto>) -> app::BufferId {
    match header {
        Some(p) if b.def().file && b.proto() != p => app::BufferId::file_of(p).unwrap_or(b),
        _ => b,
    }
}

/// Whether `o` is a file option (evaluated here, not by the protocol's `check`).
pub(crate) fn is_file(o: &AppOpt) -> bool {
    NAMES.contains(&o.name)
}

/// Which digest a hash list holds (in the order of strength).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Hash {
    Md5,
    Sha1,
    Sha256,
}

impl Hash {
    fn len(self) -> usize {
        match self {
            Hash::Md5 => 16,
            Hash::Sha1 => 20,
            Hash::Sha256 => 32,
        }
    }
}

/// One test on a file.
#[derive(Debug, Clone)]
enum Test {
    /// Lower-cased bytes found anywhere in the name.
    Name(Vec<u8>),
    /// Lower-cased `.ext` ending the name.
    Ext(Vec<u8>),
    /// Lower-cased bytes found anywhere in libmagic's description.
    Magic(Vec<u8>),
    /// The size compared.
    Size(IntCmp),
    /// The digest in a list.
    Digest(Hash, HashSet<Vec<u8>>),
}

/// A test and its `!`.
#[derive(Debug, Clone)]
struct Cond {
    negated: bool,
    test: Test,
}

/// What `filestore` stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoreScope {
    /// The file that matched (or, with no file option, the transaction's files).
    File,
    /// Every file of the transaction.
    Tx,
}

/// `filestore`: the direction of the files (`None`: the inspected one, or both for
/// `both`) and the scope.
#[derive(Debug, Clone, Copy)]
struct Store {
    dir: Option<Option<Direction>>,
    scope: StoreScope,
}

/// A rule's file options, compiled.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileOpts {
    conds: Vec<Cond>,
    store: Option<Store>,
}

/// The one digest Suricata 7.0.10 gives the files of each direction (to the server,
/// to the client): the one named by the rule with the lowest signature id among the
/// loaded rules that inspect that direction and name a digest (MD5 before SHA-1 before
/// SHA-256 when that rule names several). So a `filemd5` rule never matches a file of
/// a direction whose first digest rule is a `filesha1` or `filesha256` one (found by
/// the difftest `filekw` family; Suricata's `fileinfo` records then carry that one
/// digest only).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DigestInUse([Option<(u32, Hash)>; 2]);

impl DigestInUse {
    /// From each rule's signature id, file options and the directions (0 to the
    /// server, 1 to the client) it inspects.
    pub(crate) fn of<'a>(rules: impl Iterator<Item = (u32, &'a FileOpts, &'a [usize])>) -> Self {
        let mut d = DigestInUse::default();
        for (sid, f, dirs) in rules {
            let first = f
                .conds
                .iter()
                .filter_map(|c| match c.test {
                    Test::Digest(h, _) => Some(h),
                    _ => None,
                })
                .min();
            let Some(h) = first else { continue };
            for &i in dirs.iter().filter(|&&i| i < 2) {
                if d.0[i].is_none_or(|(s, _)| sid < s) {
                    d.0[i] = Some((sid, h));
                }
            }
        }
        d
    }

    fn get(&self, dir: Direction) -> Option<Hash> {
        self.0[usize::from(dir == Direction::ToClient)].map(|(_, h)| h)
    }
}

/// Which digests the rules need the app layer to compute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileNeeds {
    /// MD5 (`filemd5`).
    pub md5: bool,
    /// SHA-1 (`filesha1`).
    pub sha1: bool,
    /// SHA-256 (`filesha256`).
    pub sha256: bool,
    /// libmagic (`filemagic`).
    pub magic: bool,
    /// A rule may ask for files to be stored (`filestore`).
    pub store: bool,
}

fn lower(s: &str) -> Vec<u8> {
    // The rule parser keeps the decoded bytes as Latin-1 characters.
    s.chars()
        .map(|c| (c as u32 as u8).to_ascii_lowercase())
        .collect()
}

fn failed(kw: &str, msg: String) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: kw.to_owned(),
        message: msg,
    }
}

/// Reads a hash list: one hex digest per line (what follows it on the line ignored),
/// blank lines and `#` comments skipped.
fn load_hashes(kw: &str, path: &Path, h: Hash) -> Result<HashSet<Vec<u8>>, Refusal> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| failed(kw, format!("{kw}: cannot read {}: {e}", path.display())))?;
    let mut set = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let Some(tok) = line.split_whitespace().next() else {
            continue;
        };
        if tok.starts_with('#') {
            continue;
        }
        let bytes = hex(tok).filter(|b| b.len() == h.len()).ok_or_else(|| {
            failed(
                kw,
                format!(
                    "{kw}: {} line {}: not a {}-byte hex digest",
                    path.display(),
                    n + 1,
                    h.len()
                ),
            )
        })?;
        set.insert(bytes);
    }
    Ok(set)
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Where a hash list named `name` in a rule of `rule_file` is: an absolute name as is,
/// else next to the rule file (the rules directory), else relative to the current one.
fn resolve(name: &str, rule_file: Option<&Path>) -> PathBuf {
    let p = Path::new(name);
    match rule_file.and_then(Path::parent) {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// Compiles the file options among `opts` (a rule from `rule_file`).
pub(crate) fn compile(opts: &[AppOpt], rule_file: Option<&Path>) -> Result<FileOpts, Refusal> {
    let mut out = FileOpts::default();
    for o in opts.iter().filter(|o| is_file(o)) {
        let text = match &o.value {
            AppValue::Text(t) => Some(t.as_str()),
            _ => None,
        };
        let test = match (o.name, text, &o.value) {
            ("filename", Some(t), _) => Test::Name(lower(t)),
            ("fileext", Some(t), _) => Test::Ext([&b"."[..], &lower(t)].concat()),
            ("filemagic", Some(t), _) => Test::Magic(lower(t)),
            ("filesize", _, AppValue::Ints(v)) if v.len() == 1 => Test::Size(v[0]),
            (kw @ ("filemd5" | "filesha1" | "filesha256"), Some(t), _) => {
                let h = match kw {
                    "filemd5" => Hash::Md5,
                    "filesha1" => Hash::Sha1,
                    _ => Hash::Sha256,
                };
                Test::Digest(h, load_hashes(kw, &resolve(t, rule_file), h)?)
            }
            ("filestore", Some(t), _) => {
                let (d, s) = t.split_once(',').unwrap_or((t, "file"));
                let dir = match d {
                    "to_server" => Some(Some(Direction::ToServer)),
                    "to_client" => Some(Some(Direction::ToClient)),
                    "both" => Some(None),
                    _ => None,
                };
                // The flow scope stores the transaction's files: the files of the
                // flow's later transactions are not marked.
                let scope = if s == "file" {
                    StoreScope::File
                } else {
                    StoreScope::Tx
                };
                out.store = Some(Store { dir, scope });
                continue;
            }
            (kw, _, _) => return Err(failed(kw, format!("{kw}: unexpected value"))),
        };
        out.conds.push(Cond {
            negated: o.negated,
            test,
        });
    }
    Ok(out)
}

/// Whether `needle` occurs in `hay`, ignoring ASCII case (`needle` lower-cased).
fn contains_nocase(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || hay.windows(needle.len()).any(|w| {
            w.iter()
                .zip(needle)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        })
}

impl Cond {
    /// `Some(verdict)` once the file says, `None` while it must wait (more bytes, the
    /// file's end).
    fn eval(&self, f: &File, digest: Option<Hash>) -> Option<bool> {
        let ended = f.state() != FileState::Open;
        let hit = match &self.test {
            Test::Name(n) => contains_nocase(f.name(), n),
            Test::Ext(e) => {
                let name = f.name();
                name.len() >= e.len() && name[name.len() - e.len()..].eq_ignore_ascii_case(e)
            }
            Test::Magic(m) => contains_nocase(f.magic()?.as_bytes(), m),
            Test::Size(c) => match f.state() {
                // A file cut short by the flow's end has its final size too (Suricata
                // 7.0.10 matches `filesize` on it; difftest filekw/get-cut-filesize).
                FileState::Closed | FileState::Truncated => c.matches(f.size()),
                // An open file waits for its end, a lower bound already passed too
                // (Suricata 7.0.10: difftest filekw/get-cut-filesize, `filesize:>=N`
                // alerts at the flow's end only).
                FileState::Open => return None,
                FileState::Error => return Some(false),
            },
            Test::Digest(h, set) => {
                if !ended || digest != Some(*h) {
                    return None;
                }
                let d = f.digests();
                let got: Option<&[u8]> = match h {
                    Hash::Md5 => d.md5.as_ref().map(|x| &x[..]),
                    Hash::Sha1 => d.sha1.as_ref().map(|x| &x[..]),
                    Hash::Sha256 => d.sha256.as_ref().map(|x| &x[..]),
                };
                // A file without the digest (a hole in it) matches neither way.
                set.contains(got?)
            }
        };
        Some(hit != self.negated)
    }
}

impl FileOpts {
    /// Whether the rule has no file option.
    pub(crate) fn is_empty(&self) -> bool {
        self.conds.is_empty() && self.store.is_none()
    }

    /// The digests and libmagic the options need.
    pub(crate) fn needs(&self, n: &mut FileNeeds) {
        for c in &self.conds {
            match &c.test {
                Test::Digest(Hash::Md5, _) => n.md5 = true,
                Test::Digest(Hash::Sha1, _) => n.sha1 = true,
                Test::Digest(Hash::Sha256, _) => n.sha256 = true,
                Test::Magic(_) => n.magic = true,
                _ => {}
            }
        }
        n.store |= self.store.is_some();
    }

    /// Whether a file of `tx` travelling `dir` satisfies every condition (true when
    /// there is none); on a match, asks for the files `filestore` names to be stored
    /// (by rule `sid`).
    pub(crate) fn matches(
        &self,
        tx: &dyn Transaction,
        dir: Direction,
        sid: u32,
        digest: DigestInUse,
    ) -> bool {
        if self.is_empty() {
            return true;
        }
        let files = tx.files();
        let mut matched: Option<&File> = None;
        if !self.conds.is_empty() {
            let Some(files) = files else { return false };
            matched = files.iter().find(|f| {
                f.direction() == dir
                    && self
                        .conds
                        .iter()
                        .all(|c| c.eval(f, digest.get(dir)) == Some(true))
            });
            if matched.is_none() {
                return false;
            }
        }
        if let (Some(st), Some(files)) = (self.store, files) {
            let want = |f: &File| match st.dir {
                Some(Some(d)) => f.direction() == d,
                Some(None) => true,
                None => f.direction() == dir,
            };
            match (st.scope, matched) {
                (StoreScope::File, Some(f)) if st.dir.is_none() => f.request_store_by(sid),
                _ => files
                    .iter()
                    .filter(|f| want(f))
                    .for_each(|f| f.request_store_by(sid)),
            }
        }
        true
    }
}

impl crate::Detector {
    /// The digests the loaded rules' file options need the app layer to compute.
    pub fn file_needs(&self) -> FileNeeds {
        let mut n = FileNeeds::default();
        for s in self.sigs() {
            s.files.needs(&mut n);
            // The `file.magic` sticky buffer reads libmagic's description as
            // `filemagic` does.
            n.magic |= s.app.iter().any(|a| a.buf.def().name == "file.magic");
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(name: &'static str, negated: bool, value: AppValue) -> AppOpt {
        AppOpt {
            name,
            protos: &[],
            negated,
            value,
        }
    }

    fn text(s: &str) -> AppValue {
        AppValue::Text(s.into())
    }

    fn file(name: &[u8], data: &[u8], state: Option<FileState>) -> app::Files {
        let cfg = app::FileConfig {
            md5: true,
            sha1: true,
            sha256: true,
            ..app::FileConfig::default()
        };
        let mut files = app::Files::default();
        let id = files.open(&cfg, name, Direction::ToClient).unwrap();
        files.append(id, data);
        if let Some(s) = state {
            files.close(id, s);
        }
        files
    }

    fn eval(opts: &[AppOpt], files: &app::Files) -> Vec<Option<bool>> {
        let c = compile(opts, None).unwrap();
        let f = files.get(0).unwrap();
        let d = DigestInUse::of(std::iter::once((1, &c, &[0, 1][..])));
        c.conds
            .iter()
            .map(|x| x.eval(f, d.get(f.direction())))
            .collect()
    }

    #[test]
    fn names_and_extensions_ignore_case() {
        let fs = file(b"/dl/Setup.EXE", b"MZ", None);
        let opts = [
            opt("filename", false, text("setup")),
            opt("fileext", false, text("exe")),
            opt("fileext", true, text("pdf")),
            opt("fileext", false, text("ex")),
            opt("filename", true, text("SETUP")),
        ];
        assert_eq!(
            eval(&opts, &fs),
            [Some(true), Some(true), Some(true), Some(false), Some(false)]
        );
    }

    #[test]
    fn sizes_wait_for_the_end() {
        let open = file(b"a", b"0123456789", None);
        let closed = file(b"a", b"0123456789", Some(FileState::Closed));
        let cut = file(b"a", b"0123456789", Some(FileState::Truncated));
        let opts = [
            opt("filesize", false, AppValue::Ints(vec![IntCmp::Eq(10)])),
            opt("filesize", false, AppValue::Ints(vec![IntCmp::Gt(5)])),
            opt(
                "filesize",
                false,
                AppValue::Ints(vec![IntCmp::Range(5, 10)]),
            ),
        ];
        assert_eq!(eval(&opts, &open), [None, None, None]);
        assert_eq!(eval(&opts, &closed), [Some(true), Some(true), Some(false)]);
        // A file cut short by the flow's end has its final size (as Suricata 7.0.10).
        assert_eq!(eval(&opts, &cut), [Some(true), Some(true), Some(false)]);
    }

    #[test]
    fn hash_lists_are_read_next_to_the_rules_and_wait_for_the_close() {
        let dir = std::env::temp_dir().join(format!("osprey-filemd5-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("bad.md5"),
            "# list\n900150983cd24fb0d6963f7d28e17f72  abc.txt\n\nd41d8cd98f00b204e9800998ecf8427e\n",
        )
        .unwrap();
        std::fs::write(dir.join("broken.md5"), "xyz\n").unwrap();
        let rule_file = dir.join("local.rules");
        let md5 = |neg| [opt("filemd5", neg, text("bad.md5"))];
        let c = compile(&md5(false), Some(&rule_file)).unwrap();
        let n = compile(&md5(true), Some(&rule_file)).unwrap();
        let abc_open = file(b"a", b"abc", None);
        let abc = file(b"a", b"abc", Some(FileState::Closed));
        let other = file(b"a", b"abd", Some(FileState::Closed));
        let f = |fs: &app::Files| fs.get(0).unwrap().clone();
        let md = Some(Hash::Md5);
        assert_eq!(c.conds[0].eval(&f(&abc_open), md), None);
        assert_eq!(c.conds[0].eval(&f(&abc), md), Some(true));
        assert_eq!(c.conds[0].eval(&f(&other), md), Some(false));
        assert_eq!(n.conds[0].eval(&f(&other), md), Some(true));
        // A SHA-1 or SHA-256 rule of the direction leaves files without their MD5.
        assert_eq!(c.conds[0].eval(&f(&abc), Some(Hash::Sha1)), None);
        let sha = compile(
            &[opt("filesha256", false, text("bad.md5"))],
            Some(&rule_file),
        );
        assert!(sha.is_err(), "an MD5 list is no SHA-256 list");
        std::fs::write(
            dir.join("x.sha1"),
            "a9993e364706816aba3e25717850c26c9cd0d89d\n",
        )
        .unwrap();
        let s1 = compile(&[opt("filesha1", false, text("x.sha1"))], Some(&rule_file)).unwrap();
        // The lowest sid of each direction decides.
        let d = DigestInUse::of([(9, &c, &[0, 1][..]), (5, &s1, &[1][..])].into_iter());
        assert_eq!(
            (d.get(Direction::ToServer), d.get(Direction::ToClient)),
            (md, Some(Hash::Sha1))
        );
        let e = compile(
            &[opt("filemd5", false, text("broken.md5"))],
            Some(&rule_file),
        );
        assert!(e.unwrap_err().message.contains("line 1"));
        let e = compile(&[opt("filesha1", false, text("absent"))], Some(&rule_file));
        assert!(e.unwrap_err().message.contains("cannot read"));
        let mut needs = FileNeeds::default();
        c.needs(&mut needs);
        assert!(needs.md5 && !needs.sha1 && !needs.magic);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn magic_waits_for_the_first_bytes() {
        if !app::files::magic::available() {
            eprintln!("skipped: libmagic or its database is not installed");
            return;
        }
        let opts = [opt("filemagic", false, text("pdf document"))];
        assert_eq!(eval(&opts, &file(b"x", b"%PDF-1.4\n", None)), [None]);
        let done = file(b"x", b"%PDF-1.4\n", Some(FileState::Closed));
        assert_eq!(eval(&opts, &done), [Some(true)]);
        let zip = file(b"x", b"PK\x03\x04", Some(FileState::Closed));
        assert_eq!(eval(&opts, &zip), [Some(false)]);
    }
}

#[cfg(test)]
mod magic_buffer_tests {
    /// A `file.magic` rule asks the app layer for libmagic as `filemagic` does
    /// (difftest `appkw/file.magic-*`, tests/parity/difftest/fixed/dt-52-appkw-9).
    #[test]
    fn the_file_magic_buffer_needs_libmagic() {
        let vars = rules::Vars::suricata_default();
        for (rule, magic) in [
            (
                r#"alert http any any -> any any (file.magic; content:"PDF"; sid:1;)"#,
                true,
            ),
            (
                r#"alert http any any -> any any (file.name; content:"a.pdf"; sid:1;)"#,
                false,
            ),
        ] {
            let (set, _) = rules::RuleSet::load_str(rule, None, &vars, &Default::default());
            let (d, diags) =
                crate::Detector::build(&set.rules, &crate::DetectOptions::default(), &vars);
            assert!(diags.is_empty(), "{rule}: {diags:?}");
            assert_eq!(d.file_needs().magic, magic, "{rule}");
        }
    }
}
