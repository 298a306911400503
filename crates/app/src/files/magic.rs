//! The libmagic description of a file's first bytes (`filemagic`, `file.magic` and the
//! `magic` field of `fileinfo` records), from the system's libmagic and its default
//! database, as Suricata uses them.

use std::cell::RefCell;

/// Bytes a file needs before its type is worth asking (Suricata's minimum; a file that
/// ends sooner is described from what it has).
pub const MIN_BYTES: usize = 512;

thread_local! {
    /// One libmagic handle per thread (a handle is not shareable); `None` when the
    /// library or its database cannot be loaded.
    static COOKIE: RefCell<Option<magic::Cookie<magic::cookie::Load>>> = RefCell::new(open());
}

fn open() -> Option<magic::Cookie<magic::cookie::Load>> {
    let cookie = magic::Cookie::open(magic::cookie::Flags::default()).ok()?;
    cookie.load(&magic::cookie::DatabasePaths::default()).ok()
}

/// libmagic's description of `data` (`"PDF document, version 1.4"`, ...); `None` when
/// libmagic is unavailable or fails on it.
pub fn describe(data: &[u8]) -> Option<String> {
    COOKIE.with(|c| c.borrow().as_ref().and_then(|c| c.buffer(data).ok()))
}

/// Whether libmagic and its database could be loaded on this thread.
pub fn available() -> bool {
    COOKIE.with(|c| c.borrow().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_known_types() {
        if !available() {
            eprintln!("skipped: libmagic or its database is not installed");
            return;
        }
        let pdf = describe(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n").unwrap();
        assert!(pdf.starts_with("PDF document, version 1.4"), "{pdf}");
        let pe = describe(b"MZ\x90\x00\x03\x00\x00\x00").unwrap();
        assert!(!pe.is_empty());
        assert_eq!(describe(b"").as_deref(), Some("empty"));
    }
}
