//! A per-thread pool of finished HTTP/1 transactions and line buffers.
//!
//! Every HTTP transaction fills a dozen byte buffers (request/status line, each
//! header's name and value, the raw headers, `http.header`, `http.header_names`,
//! `http.start`, the body) and each header line passes through a pending buffer. Built
//! afresh, a transaction costs tens of heap allocations; instead a transaction freed
//! after logging (or dropped with its flow) gives its emptied buffers back here and
//! the next transaction on this thread takes them. Every worker is one thread, so the
//! pool is the worker's own and needs no lock.
//!
//! Only buffers are reused: a transaction taken from the pool equals
//! `HttpTx::default()` in everything but its buffers' capacities, so parsing, logging
//! and detection do not change. The pool is bounded ([`MAX_TXS`] transactions of at
//! most [`MAX_TX_BYTES`] each, [`MAX_LINES`] line buffers of at most [`MAX_BUF`]
//! bytes); what does not fit is freed as before.

use std::cell::RefCell;

use super::HttpState;
use crate::http::tx::{Header, HttpTx, Message};

/// Most transactions kept per thread.
const MAX_TXS: usize = 32;
/// Most line buffers kept per thread.
const MAX_LINES: usize = 64;
/// A kept byte buffer holds at most this much (a larger one is freed).
const MAX_BUF: usize = 16 << 10;
/// Most buffer bytes one kept transaction may hold.
const MAX_TX_BYTES: usize = 64 << 10;
/// A line buffer has room for at least this many bytes.
const MIN_LINE: usize = 256;
/// Most spare headers a kept message holds.
const MAX_HEADERS: usize = 64;

#[derive(Default)]
struct Pool {
    txs: Vec<HttpTx>,
    lines: Vec<Vec<u8>>,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool {
        txs: Vec::with_capacity(MAX_TXS),
        lines: Vec::with_capacity(MAX_LINES),
    });
}

/// `v` emptied, or a new empty buffer when `v` is too large to keep.
fn cleared(mut v: Vec<u8>) -> Vec<u8> {
    if v.capacity() > MAX_BUF {
        return Vec::new();
    }
    v.clear();
    v
}

/// A new transaction with id `id`: a pooled one's buffers when there is one.
pub(super) fn tx(id: u64) -> HttpTx {
    let pooled = POOL
        .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.txs.pop()))
        .ok()
        .flatten();
    let mut tx = pooled.unwrap_or_default();
    tx.id = id;
    tx
}

/// Keeps the buffers of a transaction that is freed (while there is room).
pub(super) fn give_tx(tx: Option<HttpTx>) {
    let Some(tx) = tx else {
        return;
    };
    if tx.h2.is_some() {
        return;
    }
    let [spare_host, spare_raw] = tx.spare_hosts;
    // The files list keeps its room, the first file's name becomes the spare name.
    let mut files = tx.files;
    let name = files.recycle();
    let kept = HttpTx {
        files,
        spare_file_name: cleared(if name.capacity() > 0 {
            name
        } else {
            tx.spare_file_name
        }),
        request: reused(tx.request),
        response: reused(tx.response),
        uri_norm: cleared(tx.uri_norm),
        spare_hosts: [
            cleared(tx.host.unwrap_or(spare_host)),
            cleared(tx.host_raw.unwrap_or(spare_raw)),
        ],
        ..HttpTx::default()
    };
    if room(&kept) > MAX_TX_BYTES {
        return;
    }
    let _ = POOL.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.txs.len() < MAX_TXS {
                p.txs.push(kept);
            }
        }
    });
}

/// Empties `m` as `Message::default()` would, keeping its buffers.
pub(super) fn reset(m: &mut Message) {
    *m = reused(std::mem::take(m));
}

/// A default message holding `m`'s buffers, emptied. The headers' own name and value
/// buffers become the spare headers the next message's headers are made from.
fn reused(m: Message) -> Message {
    let Message {
        line,
        headers,
        spare_headers,
        headers_raw,
        hdr_bufs,
        body,
        ..
    } = m;
    // The used headers join the spare ones (as far as the fuller list has room: no
    // allocation here); the other list, emptied, holds the next message's headers.
    let (mut list, mut spare) = (headers, spare_headers);
    if list.len() > spare.len() {
        std::mem::swap(&mut list, &mut spare);
    }
    while spare.len() < spare.capacity() {
        match list.pop() {
            Some(h) => spare.push(h),
            None => break,
        }
    }
    list.clear();
    spare.truncate(MAX_HEADERS);
    spare.retain(|h| h.heap_bytes() <= MAX_BUF);
    Message {
        line: cleared(line),
        headers: list,
        spare_headers: spare,
        headers_raw: cleared(headers_raw),
        hdr_bufs: cleared(hdr_bufs),
        body: cleared(body),
        ..Message::default()
    }
}

/// The buffer bytes a kept transaction holds.
fn room(tx: &HttpTx) -> usize {
    let msg = |m: &Message| {
        m.line.capacity()
            + m.headers_raw.capacity()
            + m.hdr_bufs.capacity()
            + m.body.capacity()
            + m.spare_headers
                .iter()
                .map(Header::heap_bytes)
                .sum::<usize>()
    };
    msg(&tx.request)
        + msg(&tx.response)
        + tx.uri_norm.capacity()
        + tx.spare_hosts.iter().map(Vec::capacity).sum::<usize>()
        + tx.spare_file_name.capacity()
}

/// A buffer holding `bytes`: a pooled one when there is one.
pub(super) fn line(bytes: &[u8]) -> Vec<u8> {
    let mut v = POOL
        .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.lines.pop()))
        .ok()
        .flatten()
        .unwrap_or_default();
    // At least a typical header line's room, so a kept buffer serves the next line.
    v.reserve(bytes.len().max(MIN_LINE));
    v.extend_from_slice(bytes);
    v
}

/// Keeps a line buffer that is no longer needed (while there is room).
pub(super) fn give_line(v: Vec<u8>) {
    if v.capacity() == 0 || v.capacity() > MAX_BUF {
        return;
    }
    let v = cleared(v);
    let _ = POOL.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.lines.len() < MAX_LINES {
                p.lines.push(v);
            }
        }
    });
}

/// Gives a side's line buffer back to the pool when it holds no partial line (the
/// next line takes one again, `lines::next_line`), so that an open flow waiting for
/// its peer holds none.
pub(super) fn release_idle_line(line: &mut Vec<u8>) {
    if line.is_empty() && line.capacity() > 0 {
        give_line(std::mem::take(line));
    }
}

/// Sets `dst` to `src`, keeping `dst`'s buffer.
pub(super) fn set(dst: &mut Vec<u8>, src: &[u8]) {
    dst.clear();
    dst.extend_from_slice(src);
}

slabs::slabbed!(HttpState);

/// The HTTP/1 state of one flow, in a slot of the worker's slab (`slabs`: a worker
/// allocates one chunk of slots for many flows, and an ended flow's slot serves the
/// next new flow).
pub type HttpBox = slabs::SlabBox<HttpState>;

impl Drop for HttpState {
    /// The flow is gone: its transactions and line buffers go back to the pool.
    fn drop(&mut self) {
        while let Some(tx) = self.txs.pop_front() {
            give_tx(Some(tx));
        }
        super::mem::give_queue(self.txs.take_heap());
        for side in &mut self.sides {
            super::give_decoder(&mut side.decoder);
            give_line(std::mem::take(&mut side.line));
            if let Some(p) = side.pending.take() {
                give_line(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Empties this thread's pool of transactions (tests share threads only one at a
    /// time).
    fn empty_txs() {
        POOL.with(|p| p.borrow_mut().txs.clear());
    }

    fn filled() -> HttpTx {
        let mut tx = HttpTx::default();
        for m in [&mut tx.request, &mut tx.response] {
            m.line.extend_from_slice(b"GET / HTTP/1.1");
            assert!(m.add_header(b"Host", b"example.com", 100));
            assert!(m.add_header(b"Accept", b"*/*", 100));
            m.headers_raw.extend_from_slice(b"Host: example.com\r\n");
            m.body.extend_from_slice(b"body");
            m.progress = crate::http::tx::Progress::Complete;
            m.truncated = true;
            m.body_len = 4;
            m.build_header_buffers(crate::Direction::ToServer);
        }
        tx.uri_norm.extend_from_slice(b"/");
        tx.status = Some(200);
        tx.host = Some(b"example.com".to_vec());
        let cfg = crate::FileConfig::default();
        assert!(tx
            .files
            .open(&cfg, b"/a/file.bin", crate::Direction::ToClient)
            .is_some());
        tx
    }

    #[test]
    fn slots_of_ended_states_serve_new_flows_fresh() {
        let mut s = HttpBox::default();
        s.next_id = 3;
        crate::http::state::mem::push_tx(&mut s.txs, filled());
        s.error = true;
        let ptr: *const HttpState = &*s;
        drop(s);
        let s = HttpBox::default();
        assert_eq!(&*s as *const HttpState, ptr, "the ended flow's slot");
        assert_eq!(format!("{s:?}"), format!("{:?}", HttpState::default()));
        assert!(s.txs.len() == 0 && s.txs.capacity() == 0 && !s.error);
        assert_eq!(s.next_id, 0);
    }

    #[test]
    fn a_pooled_transaction_is_a_default_one_with_room() {
        // Empty this thread's pool first (tests share threads only one at a time).
        empty_txs();
        give_tx(Some(filled()));
        let tx = self::tx(7);
        assert_eq!(tx.id, 7);
        let fresh = HttpTx::default();
        for (m, f) in [
            (&tx.request, &fresh.request),
            (&tx.response, &fresh.response),
        ] {
            let mut m = m.clone();
            m.spare_headers.clear();
            assert_eq!(format!("{m:?}"), format!("{f:?}"));
        }
        assert!(tx.uri_norm.is_empty() && tx.status.is_none() && tx.host.is_none());
        assert!(tx.spare_hosts[0].is_empty() && tx.spare_hosts[0].capacity() >= 11);
        // No file, but the list's room and the file name's buffer are kept.
        assert_eq!(tx.files.len(), 0);
        assert!(tx.spare_file_name.is_empty() && tx.spare_file_name.capacity() >= 11);
        // The host is set in the kept buffer.
        let mut tx = tx;
        let kept = tx.spare_hosts[0].as_ptr();
        tx.set_host(b"A.Example.:80", b"A.Example.");
        assert_eq!(tx.host.as_deref(), Some(&b"a.example"[..]));
        assert_eq!(tx.host_raw.as_deref(), Some(&b"A.Example.:80"[..]));
        assert_eq!(tx.host.as_ref().unwrap().as_ptr(), kept);
        assert!(tx.request.line.capacity() > 0 && tx.request.body.capacity() > 0);
        assert_eq!(
            tx.request.spare_headers.len(),
            2,
            "the headers' buffers are kept"
        );
        // Headers made from the spare ones hold only their own bytes.
        assert!(tx.request.add_header(b"X", b"y", 100));
        assert_eq!(tx.request.headers().len(), 1);
        assert_eq!(&tx.request.headers()[0].name[..], b"X");
        assert_eq!(&tx.request.headers()[0].value[..], b"y");
        assert_eq!(tx.request.header("x"), Some(&b"y"[..]));
    }

    #[test]
    fn resetting_an_unused_message_keeps_its_spare_headers() {
        empty_txs();
        give_tx(Some(filled()));
        let mut tx = self::tx(1);
        assert_eq!(tx.response.spare_headers.len(), 2);
        // A response line resets the response before its headers come.
        reset(&mut tx.response);
        assert_eq!(tx.response.spare_headers.len(), 2);
        assert!(tx.response.add_header(b"Server", b"x", 100));
        assert_eq!(tx.response.spare_headers.len(), 1);
        // Reset after use: the used header and the unused one are both spare again.
        reset(&mut tx.response);
        assert_eq!(tx.response.headers().len(), 0);
        assert_eq!(tx.response.spare_headers.len(), 2);
    }

    #[test]
    fn large_buffers_and_h2_transactions_are_not_kept() {
        empty_txs();
        let mut big = filled();
        big.request.body = vec![0; MAX_BUF + 1];
        give_tx(Some(big));
        assert!(self::tx(0).request.body.capacity() <= MAX_BUF);
        empty_txs();
        let mut h2 = filled();
        h2.h2 = Some(Box::default());
        give_tx(Some(h2));
        assert_eq!(POOL.with(|p| p.borrow().txs.len()), 0);
        for _ in 0..MAX_TXS + 5 {
            give_tx(Some(filled()));
        }
        assert_eq!(POOL.with(|p| p.borrow().txs.len()), MAX_TXS);
    }

    #[test]
    fn line_buffers_come_back_emptied() {
        while POOL.with(|p| p.borrow_mut().lines.pop()).is_some() {}
        let mut v = line(b"Host: a");
        v.reserve(100);
        let cap = v.capacity();
        give_line(v);
        let w = line(b"X");
        assert_eq!(w, b"X");
        assert_eq!(w.capacity(), cap);
        give_line(vec![0; MAX_BUF + 1]);
        assert_eq!(POOL.with(|p| p.borrow().lines.len()), 0);
    }
}
