//! HTTP bodies as files, as Suricata tracks them: every response body, and the body of
//! a `POST` or `PUT` request that is not `multipart/form-data` (HTTP/2: every body,
//! unnamed), becomes one file (a `multipart/form-data` `POST`: one file per part with a
//! filename, see [`super::multipart`]) of the transaction ([`crate::Files`]), fed the body after dechunking and decompression. A
//! file is named by the `Content-Disposition` `filename` when the message has one, else
//! by the request's URI path (percent-decoded, without the query); a `206` response's
//! `Content-Range` is kept as the file's range. The file is opened on the first body
//! byte, so an empty body is no file, and ends `CLOSED` with its message, or `TRUNCATED`
//! when the message was cut short (a gap marks it) or its body reached the body limit
//! (`request-body-limit`/`response-body-limit`: the file is the body Suricata keeps).

use super::multipart::Multipart;
use super::tx::HttpTx;
use super::uri::{normalize_path_into, split_uri};
use crate::counters::Counter;
use crate::files::FileState;
use crate::{AppCtx, Direction};
use core::ops::Range;

/// The name libhtp gives the URI of a response that had no request.
const URI_NOT_SEEN: &[u8] = b"/libhtp::request_uri_not_seen";

/// Whether the body of the message travelling `dir` becomes a file.
fn wants_file(tx: &HttpTx, dir: Direction) -> bool {
    if tx.h2.is_some() {
        // HTTP/2: every DATA payload, either way.
        return true;
    }
    match dir {
        Direction::ToClient => true,
        Direction::ToServer => {
            let m = tx.method().unwrap_or_default();
            let multipart = tx
                .request()
                .header("content-type")
                .is_some_and(|v| starts_with_nocase(trim(v), b"multipart/form-data"));
            (m.eq_ignore_ascii_case(b"POST") || m.eq_ignore_ascii_case(b"PUT")) && !multipart
        }
    }
}

/// Writes the file name of a body travelling `dir` in `tx` into `out` (emptied first;
/// its room is reused).
pub(crate) fn file_name(tx: &HttpTx, dir: Direction, out: &mut Vec<u8>) {
    out.clear();
    if tx.h2.is_some() {
        // Suricata 7 names no HTTP/2 file.
        return;
    }
    let msg = match dir {
        Direction::ToServer => tx.request(),
        Direction::ToClient => tx.response(),
    };
    if let Some(name) = msg
        .header("content-disposition")
        .and_then(disposition_filename_bytes)
    {
        out.extend_from_slice(name);
        return;
    }
    match tx.uri_raw() {
        Some(raw) => {
            if let Some(r) = split_uri(raw).path {
                normalize_path_into(&raw[r], out);
            }
        }
        None => out.extend_from_slice(URI_NOT_SEEN),
    }
}

/// The `filename` parameter of a `Content-Disposition` value (quotes removed).
pub(crate) fn disposition_filename(v: &[u8]) -> Option<Vec<u8>> {
    disposition_filename_bytes(v).map(<[u8]>::to_vec)
}

/// [`disposition_filename`] without a copy: the parameter's bytes in `v`.
fn disposition_filename_bytes(v: &[u8]) -> Option<&[u8]> {
    for param in v.split(|&b| b == b';').skip(1) {
        let param = trim(param);
        let Some(eq) = param.iter().position(|&b| b == b'=') else {
            continue;
        };
        if !trim(&param[..eq]).eq_ignore_ascii_case(b"filename") {
            continue;
        }
        let val = trim(&param[eq + 1..]);
        let val = val
            .strip_prefix(b"\"")
            .map(|v| v.strip_suffix(b"\"").unwrap_or(v))
            .unwrap_or(val);
        return (!val.is_empty()).then_some(val);
    }
    None
}

/// `Content-Range: bytes FIRST-LAST/LENGTH` (`LENGTH` may be `*`): first and last byte.
pub(crate) fn content_range(v: &[u8]) -> Option<(u64, u64)> {
    let v = trim(v);
    let rest = v.get(..5).filter(|u| u.eq_ignore_ascii_case(b"bytes"))?;
    let rest = trim(&v[rest.len()..]);
    let dash = rest.iter().position(|&b| b == b'-')?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let num = |b: &[u8]| std::str::from_utf8(trim(b)).ok()?.parse::<u64>().ok();
    let (start, end) = (num(&rest[..dash])?, num(rest.get(dash + 1..slash)?)?);
    (start <= end).then_some((start, end))
}

/// Feeds the bytes `fresh` just added to the kept body of the message travelling `dir`
/// (dechunked and decompressed) to its file, opening the file on the first byte. As in
/// Suricata, a file is the body up to the body limit: when the body was `cut` there,
/// the file ends `TRUNCATED`. A file the transaction cannot hold ([`crate::Files::MAX`])
/// is counted.
pub(crate) fn feed(
    ctx: &mut AppCtx,
    tx: &mut HttpTx,
    dir: Direction,
    fresh: Range<usize>,
    cut: bool,
) {
    if fresh.is_empty() && !cut {
        return;
    }
    let id = match tx.msg(dir).file {
        Some(FileSlot::Open(id)) => id,
        Some(FileSlot::Multipart(mp)) => return feed_multipart(ctx, tx, mp, cut),
        Some(FileSlot::Refused) => return,
        None if fresh.is_empty() => return,
        None => {
            if dir == Direction::ToServer && upload_boundary(tx).is_some() {
                return feed_multipart(ctx, tx, Multipart::new(), cut);
            }
            if !wants_file(tx, dir) {
                tx.msg_mut(dir).file = Some(FileSlot::Refused);
                return;
            }
            let mut name = std::mem::take(&mut tx.spare_file_name);
            file_name(tx, dir, &mut name);
            let range = (dir == Direction::ToClient && tx.status() == Some(206))
                .then(|| {
                    tx.response()
                        .header("content-range")
                        .and_then(content_range)
                })
                .flatten();
            // The body's file keeps no head of its own unless libmagic reads it: HTTP's
            // `file.data` is the body, so the head would hold the body a second time.
            let cfg = crate::FileConfig {
                head_limit: if ctx.config.files.magic {
                    ctx.config.files.head_limit
                } else {
                    0
                },
                ..ctx.config.files.clone()
            };
            let Some(id) = tx.files.open_named(&cfg, name, dir) else {
                tx.msg_mut(dir).file = Some(FileSlot::Refused);
                ctx.counters.incr(Counter::FileLimit);
                return;
            };
            if let Some((s, e)) = range {
                tx.files.set_range(id, s, e);
            }
            tx.msg_mut(dir).file = Some(FileSlot::Open(id));
            id
        }
    };
    let body = match dir {
        Direction::ToServer => &tx.request.body,
        Direction::ToClient => &tx.response.body,
    };
    if let Some(data) = body.get(fresh) {
        tx.files.append(id, data);
    }
    if cut {
        tx.files.close(id, FileState::Truncated);
    }
}

/// The boundary of a `multipart/form-data` `POST` (HTTP/1) whose parts are files.
fn upload_boundary(tx: &HttpTx) -> Option<Vec<u8>> {
    if tx.h2.is_some()
        || !tx
            .method()
            .unwrap_or_default()
            .eq_ignore_ascii_case(b"POST")
    {
        return None;
    }
    tx.request()
        .header("content-type")
        .and_then(super::multipart::boundary)
}

/// Parses the kept request body of a form upload further (its parts' files); `cut`:
/// the body limit was reached.
fn feed_multipart(ctx: &mut AppCtx, tx: &mut HttpTx, mut mp: Multipart, cut: bool) {
    let Some(b) = upload_boundary(tx) else {
        return;
    };
    let refused = mp.advance(&tx.request.body, &b, &mut tx.files, &ctx.config.files);
    for _ in 0..refused {
        ctx.counters.incr(Counter::FileLimit);
    }
    if cut {
        mp.finish(&tx.request.body, &mut tx.files, FileState::Truncated);
    }
    tx.msg_mut(Direction::ToServer).file = Some(FileSlot::Multipart(mp));
}

/// A hole of `len` bytes in the body travelling `dir`.
pub(crate) fn gap(tx: &mut HttpTx, dir: Direction, len: u64) {
    match tx.msg(dir).file {
        Some(FileSlot::Open(id)) => tx.files.gap(id, len),
        Some(FileSlot::Multipart(mp)) => {
            if let Some(id) = mp.open_file() {
                tx.files.gap(id, len);
            }
        }
        _ => {}
    }
}

/// The message travelling `dir` ended: its file is closed, `TRUNCATED` if the message
/// was cut short.
pub(crate) fn end(tx: &mut HttpTx, dir: Direction) {
    if let Some(FileSlot::Multipart(mut mp)) = tx.msg(dir).file {
        let state = if tx.msg(dir).truncated() {
            FileState::Truncated
        } else {
            FileState::Closed
        };
        mp.finish(&tx.request.body, &mut tx.files, state);
        tx.msg_mut(dir).file = Some(FileSlot::Multipart(mp));
    }
    if let Some(FileSlot::Open(id)) = tx.msg(dir).file {
        let state = if tx.msg(dir).truncated() {
            FileState::Truncated
        } else {
            FileState::Closed
        };
        tx.files.close(id, state);
    }
}

/// The file of one message: open (its id), or none will be (not a file body, or the
/// transaction's file limit was reached).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileSlot {
    /// The body's file.
    Open(crate::FileId),
    /// The body is not tracked as a file.
    Refused,
    /// A form upload: its parts with a filename are files.
    Multipart(Multipart),
}

fn trim(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(s, |p| p + 1);
    &v[s..e.max(s)]
}

fn starts_with_nocase(v: &[u8], p: &[u8]) -> bool {
    v.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ranges_and_dispositions() {
        assert_eq!(
            disposition_filename(b"attachment; filename=\"f.txt\""),
            Some(b"f.txt".to_vec())
        );
        assert_eq!(
            disposition_filename(b"inline;FileName = a b.exe "),
            Some(b"a b.exe".to_vec())
        );
        assert_eq!(disposition_filename(b"attachment"), None);
        assert_eq!(content_range(b"bytes 500-1000/3000"), Some((500, 1000)));
        assert_eq!(content_range(b"bytes 77864-78159/*"), Some((77864, 78159)));
        assert_eq!(content_range(b"bytes 9-1/2"), None);
        assert_eq!(content_range(b"items 1-2/3"), None);
        assert_eq!(content_range(b"bytes"), None);
    }

    #[test]
    fn arbitrary_header_values_never_panic() {
        use proptest::prelude::*;
        proptest!(|(v in proptest::collection::vec(any::<u8>(), 0..64))| {
            let _ = content_range(&v);
            let _ = disposition_filename(&v);
        });
    }
}
