//! `fileinfo` records: one per file a transaction carried ([`app::Transaction::files`]),
//! written once the file is no longer open (closed, truncated, in error) and its
//! transaction is ready to log, on the next packet travelling the file's way (as
//! Suricata: a response's file on a packet to the client) or at the flow's end, each
//! exactly once ([`app::File::mark_logged`]). The record is the common header in the file's
//! direction (a response's file goes server → client), the transaction's own EVE object
//! and its siblings as the protocol logs them with their extended fields (`http{}`,
//! `smb{}`, `smtp{}` + `email{}`), `app_proto`, and `fileinfo{}` with Suricata 7's keys
//! in its order. Nothing here names a protocol.

use super::records::{event_record, EventMeta};
use app::{AppFlow, File, FileState, Transaction};
use serde_json::{Map, Value};

/// Writes (through `out`) a `fileinfo` record for each file of `app` that ended and was
/// not logged yet; `meta` gives the header, client → server. With `at_end` (the flow
/// ended) files still open are written as they are. With `dir`, only the files whose
/// data travel that way (the packet's direction) are written.
pub(crate) fn log_files(
    app: &AppFlow,
    at_end: bool,
    dir: Option<app::Direction>,
    meta: &mut dyn FnMut() -> EventMeta,
    out: &mut dyn FnMut(Value),
) {
    let Some(proto) = app.state().protocol() else {
        return;
    };
    let event_type = app::registry::event_type(app.app_proto());
    let app_proto = app.app_proto().name();
    proto.each_tx(&mut |tx| {
        // As Suricata, a transaction's files are logged once it is done (so the record
        // carries its final object), or when the flow ends.
        let Some(files) = tx.files().filter(|_| tx.log_ready(at_end)) else {
            return;
        };
        for f in files.iter() {
            if dir.is_some_and(|d| d != f.direction())
                || (f.state() == FileState::Open && !at_end)
                || !f.mark_logged()
            {
                continue;
            }
            out(record(tx, f, at_end, event_type, app_proto, &meta()));
        }
    });
}

/// The `fileinfo` record of file `f` of `tx`.
pub(crate) fn record(
    tx: &dyn Transaction,
    f: &File,
    at_end: bool,
    event_type: Option<&'static str>,
    app_proto: &str,
    meta: &EventMeta,
) -> Value {
    let mut m = meta.clone();
    if f.direction() == app::Direction::ToClient {
        core::mem::swap(&mut m.src_ip, &mut m.dest_ip);
        core::mem::swap(&mut m.src_port, &mut m.dest_port);
    }
    let mut tx_id = tx.id();
    let mut obj = None;
    if event_type.is_some() {
        tx.log(true, &mut |id, o| {
            if obj.is_none() {
                tx_id = id.unwrap_or(tx_id);
                obj = Some(o);
            }
        });
    }
    // The header names `fileinfo`; the placeholder it puts last is replaced by the
    // transaction's object.
    let mut r = event_record(&m, "fileinfo", None, Value::Null);
    let Some(o) = r.as_object_mut() else {
        return r;
    };
    o.remove("fileinfo");
    if let (Some(t), Some(v)) = (event_type, obj) {
        o.insert(t.into(), v);
    }
    for (k, v) in tx.log_siblings(true) {
        o.insert(k.into(), v);
    }
    o.insert("app_proto".into(), app_proto.into());
    o.insert("fileinfo".into(), Value::Object(fileinfo(f, tx_id, at_end)));
    r
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A file name as Suricata writes it: ASCII kept, every other byte `?`.
fn file_name(b: &[u8]) -> String {
    b.iter()
        .map(|&c| if c.is_ascii() { c as char } else { '?' })
        .collect()
}

/// The `fileinfo{}` object, keys in Suricata's order; a file still open when its flow
/// ended (`at_end`) is written `TRUNCATED`.
pub(crate) fn fileinfo(f: &File, tx_id: u64, at_end: bool) -> Map<String, Value> {
    let mut o = Map::new();
    if !f.name().is_empty() {
        o.insert("filename".into(), file_name(f.name()).into());
    }
    let sids = f.store_state().sids();
    if !sids.is_empty() {
        o.insert("sid".into(), sids.into());
    }
    if let Some(m) = f.magic().filter(|_| f.log_magic()) {
        o.insert("magic".into(), m.into());
    }
    o.insert("gaps".into(), f.has_gaps().into());
    let state = match f.state() {
        FileState::Open if at_end => FileState::Truncated,
        s => s,
    };
    o.insert("state".into(), state.as_str().into());
    let d = f.digests();
    // Suricata gives MD5 and SHA-1 for complete files only, SHA-256 for any.
    if f.state() == FileState::Closed {
        if let Some(h) = d.md5 {
            o.insert("md5".into(), hex(&h).into());
        }
        if let Some(h) = d.sha1 {
            o.insert("sha1".into(), hex(&h).into());
        }
    }
    if let Some(h) = d.sha256 {
        o.insert("sha256".into(), hex(&h).into());
    }
    let st = f.store_state();
    o.insert("stored".into(), st.stored().into());
    if let Some(id) = st.id().filter(|_| st.stored()) {
        o.insert("file_id".into(), id.into());
    }
    o.insert("size".into(), f.size().into());
    if let Some((s, e)) = f.range() {
        o.insert("start".into(), s.into());
        o.insert("end".into(), e.into());
    }
    o.insert("tx_id".into(), tx_id.into());
    o
}

#[cfg(test)]
mod tests {
    use crate::eve::applog::tests::meta;
    use crate::eve::{AppLogger, EveTypes, LogCursor};
    use app::{AppCtx, AppFlow, Direction, Transport};
    use serde_json::Value;

    fn fileinfos(l: &AppLogger, f: &AppFlow, c: &mut LogCursor, end: bool) -> Vec<Value> {
        let mut v = Vec::new();
        l.log(f, c, end, &mut meta, &mut |r| {
            if r["event_type"] == "fileinfo" {
                v.push(r)
            }
        });
        v
    }

    #[test]
    fn each_file_is_logged_once_in_its_direction_when_its_tx_is_done() {
        let l = AppLogger::new(EveTypes::parse_list("files").unwrap());
        assert!(l.enabled());
        let mut ctx = AppCtx::default();
        ctx.config.files.md5 = true;
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        let mut c = LogCursor::default();
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"POST /up%2etxt?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
        );
        // The request's file is closed, but its transaction is not done yet.
        assert!(fileinfos(&l, &f, &mut c, false).is_empty());
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"r.bin\"\r\n\
              Content-Length: 2\r\n\r\nhi",
        );
        let r = fileinfos(&l, &f, &mut c, false);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (&r[0]["src_port"], &r[0]["dest_port"]),
            (&40000.into(), &80.into())
        );
        assert_eq!(r[0]["app_proto"], "http");
        assert_eq!(r[0]["http"]["http_method"], "POST");
        let fi = &r[0]["fileinfo"];
        assert_eq!(fi["filename"], "/up.txt");
        assert_eq!(fi["size"], 3);
        assert_eq!(fi["state"], "CLOSED");
        assert_eq!(fi["md5"], "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(fi["tx_id"], 0);
        assert_eq!(
            (&r[1]["src_port"], &r[1]["dest_port"]),
            (&80.into(), &40000.into())
        );
        assert_eq!(r[1]["fileinfo"]["filename"], "r.bin");
        assert_eq!(r[1]["fileinfo"]["size"], 2);
        // Exactly once, even at the end of the flow.
        assert!(fileinfos(&l, &f, &mut c, false).is_empty());
        assert!(fileinfos(&l, &f, &mut c, true).is_empty());
    }

    #[test]
    fn a_body_cut_by_the_flow_end_is_a_truncated_file() {
        let l = AppLogger::new(EveTypes::parse_list("http,files").unwrap());
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        let mut c = LogCursor::default();
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 206 Partial\r\nContent-Range: bytes 10-19/100\r\nContent-Length: 10\r\n\r\n12345",
        );
        assert!(fileinfos(&l, &f, &mut c, false).is_empty());
        f.close(&mut ctx);
        let r = fileinfos(&l, &f, &mut c, true);
        assert_eq!(r.len(), 1);
        let fi = &r[0]["fileinfo"];
        assert_eq!(
            (&fi["state"], &fi["size"]),
            (&"TRUNCATED".into(), &5.into())
        );
        assert_eq!((&fi["start"], &fi["end"]), (&10.into(), &19.into()));
        assert!(fi.get("md5").is_none());
        assert_eq!(super::file_name(b"\xd9bl\x05\xab"), "?bl\u{5}?");
    }
}
