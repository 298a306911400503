//! The memory an HTTP state holds (its share of `http.memuse`, see [`crate::memcap`]),
//! and how its transaction queue grows.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::mem::size_of;

use super::queue::TxQueue;
use super::{HttpState, Side};
use crate::http::tx::{Header, HttpTx, Message};
use crate::memcap::vec_bytes;

/// Transactions held before the queue grows by doubling: up to here it grows by one,
/// not to four at once (the default first growth). A flow usually holds one or two
/// transactions at a time and one is large, so with many concurrent flows the spare
/// slots were a third of HTTP's memory.
const GROW_BY_ONE: usize = 4;

/// Empty queues kept per capacity (1 to [`GROW_BY_ONE`] slots) and thread.
const MAX_KEPT_QUEUES: usize = 32;

thread_local! {
    /// Empty transaction queues of 1 to [`GROW_BY_ONE`] slots, from flows that ended,
    /// for the queues of new flows as they grow (every worker is one thread: its own).
    static QUEUES: RefCell<[Vec<VecDeque<HttpTx>>; GROW_BY_ONE]> = RefCell::default();
}

/// Appends `tx` to `txs`: the first live transaction stays in the state
/// ([`TxQueue`]); a heap queue grows by one slot (to two at first) while it is short,
/// into a kept queue of that capacity when there is one (the outgrown one is kept
/// instead), and by doubling past [`GROW_BY_ONE`].
pub(super) fn push_tx(txs: &mut TxQueue, tx: HttpTx) {
    txs.push_back(tx, grow);
}

/// Makes room for one more transaction in the full heap queue `txs` while it is short
/// (longer ones double as they are pushed to).
fn grow(txs: &mut VecDeque<HttpTx>) {
    let len = txs.len();
    if len >= GROW_BY_ONE {
        return;
    }
    let want = (len + 1).max(2);
    let kept = QUEUES
        .try_with(|q| q.try_borrow_mut().ok()?[want - 1].pop())
        .ok()
        .flatten();
    match kept {
        Some(mut q) => {
            q.extend(txs.drain(..));
            give_queue(std::mem::replace(txs, q));
        }
        None => txs.reserve_exact(want - len),
    }
}

/// Keeps an emptied queue of 1 to [`GROW_BY_ONE`] slots for [`push_tx`] (while there
/// is room); others are freed.
pub(super) fn give_queue(q: VecDeque<HttpTx>) {
    if !q.is_empty() || !(1..=GROW_BY_ONE).contains(&q.capacity()) {
        return;
    }
    let _ = QUEUES.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            let kept = &mut p[q.capacity() - 1];
            if kept.len() < MAX_KEPT_QUEUES {
                kept.push(q);
            }
        }
    });
}

fn message_bytes(m: &Message) -> usize {
    let headers: usize = m
        .headers
        .iter()
        .chain(&m.spare_headers)
        .map(Header::heap_bytes)
        .sum();
    vec_bytes(&m.line)
        + vec_bytes(&m.headers)
        + vec_bytes(&m.spare_headers)
        + headers
        + vec_bytes(&m.headers_raw)
        + vec_bytes(&m.hdr_bufs)
        + vec_bytes(&m.body)
}

fn tx_bytes(tx: &HttpTx) -> usize {
    message_bytes(&tx.request)
        + message_bytes(&tx.response)
        + tx.uri_norm.capacity()
        + tx.host.as_ref().map_or(0, Vec::capacity)
        + tx.host_raw.as_ref().map_or(0, Vec::capacity)
        + tx.spare_hosts.iter().map(Vec::capacity).sum::<usize>()
        + tx.spare_file_name.capacity()
        + tx.files.heap_bytes()
}

fn side_bytes(s: &Side) -> usize {
    s.line.capacity()
        + s.pending.as_ref().map_or(0, Vec::capacity)
        + s.decoder.as_ref().map_or(0, |d| d.lzma_heap_bytes())
}

/// The size a state counts for itself: its transaction queue counted as a heap queue
/// (the inline first transaction is counted as that queue's first slot, as when it
/// was on the heap).
const STATE_BYTES: usize =
    size_of::<HttpState>() - size_of::<TxQueue>() + size_of::<VecDeque<HttpTx>>();

impl HttpState {
    /// Bytes this state holds: itself, its transactions (headers, bodies, files) and
    /// the lines its parser has not finished; a body decoder counts its own size and its lzma window and tables.
    pub fn heap_bytes(&self) -> usize {
        STATE_BYTES
            + self.txs.capacity() * size_of::<HttpTx>()
            + self.txs.iter().map(tx_bytes).sum::<usize>()
            + self.sides.iter().map(side_bytes).sum::<usize>()
            + self.connect_buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppCtx, Direction};

    /// Empties this thread's kept queues.
    fn no_kept_queues() {
        QUEUES.with(|q| q.borrow_mut().iter_mut().for_each(Vec::clear));
    }

    /// Empties `q`, giving its heap queue back as a state that ends does.
    fn end(mut q: TxQueue) {
        while q.pop_front().is_some() {}
        give_queue(q.take_heap());
    }

    #[test]
    fn queues_of_ended_flows_serve_the_growth_of_new_ones() {
        no_kept_queues();
        let mut old = TxQueue::default();
        for _ in 0..3 {
            push_tx(&mut old, HttpTx::default());
        }
        assert_eq!(old.capacity(), 3);
        end(old);
        let kept = || QUEUES.with(|q| q.borrow().iter().map(Vec::len).collect::<Vec<_>>());
        assert_eq!(kept(), [0, 0, 1, 0]);
        let mut txs = TxQueue::default();
        push_tx(&mut txs, HttpTx::default());
        assert_eq!(txs.capacity(), 1, "inline");
        push_tx(&mut txs, HttpTx::default());
        assert_eq!(txs.capacity(), 2);
        // Growing from 2 to 3 slots takes the kept queue and keeps the outgrown one.
        push_tx(&mut txs, HttpTx::default());
        assert_eq!(txs.capacity(), 3);
        assert_eq!(txs.len(), 3);
        assert_eq!(kept(), [0, 1, 0, 0]);
        // Non-empty or large queues are not kept.
        give_queue(txs.take_heap());
        let mut big = VecDeque::with_capacity(GROW_BY_ONE + 1);
        big.push_back(HttpTx::default());
        big.clear();
        give_queue(big);
        assert_eq!(kept(), [0, 1, 0, 0]);
        no_kept_queues();
    }

    #[test]
    fn the_queue_grows_by_one_while_short() {
        no_kept_queues();
        let mut txs = TxQueue::default();
        for n in 1..=GROW_BY_ONE {
            push_tx(&mut txs, HttpTx::default());
            assert_eq!(txs.capacity(), n);
        }
        push_tx(&mut txs, HttpTx::default());
        assert!(txs.capacity() >= 2 * GROW_BY_ONE, "then amortized doubling");
    }

    #[test]
    fn a_body_file_keeps_a_head_for_libmagic_only() {
        for magic in [false, true] {
            let mut ctx = AppCtx::default();
            ctx.config.files.magic = magic;
            let mut s = HttpState::new();
            s.parse(
                &mut ctx,
                Direction::ToServer,
                b"GET /f HTTP/1.1\r\nHost: h\r\n\r\n",
            );
            s.parse(
                &mut ctx,
                Direction::ToClient,
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            );
            let tx = s.tx(0).unwrap();
            assert_eq!(tx.response().body(), b"hello", "file.data reads the body");
            let head = tx.files().get(0).unwrap().head();
            assert_eq!(
                head,
                if magic { &b"hello"[..] } else { b"" },
                "magic {magic}"
            );
        }
    }

    #[test]
    fn bytes_follow_transactions_and_bodies() {
        let mut ctx = AppCtx::default();
        let mut s = HttpState::new();
        let empty = s.heap_bytes();
        assert_eq!(empty, STATE_BYTES);
        assert_eq!(
            STATE_BYTES,
            size_of::<HttpState>() - size_of::<TxQueue>() + size_of::<VecDeque<HttpTx>>()
        );
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"POST /upload HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3000\r\n\r\n",
        );
        let one = s.heap_bytes();
        assert!(one >= empty + size_of::<HttpTx>() + 40, "{one}");
        s.parse(&mut ctx, Direction::ToServer, &[b'x'; 3000]);
        let body = s.heap_bytes();
        assert!(body >= one + 3000, "{body} vs {one}");
        s.free_txs_before(1);
        assert!(s.heap_bytes() < one, "freed: {}", s.heap_bytes());
    }
}
