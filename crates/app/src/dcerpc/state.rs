//! Connection-oriented DCERPC state: one per TCP connection or SMB named pipe. It takes
//! in-order bytes per direction, frames PDUs by `frag_length`, reassembles request and
//! response fragments (first/last flags, by call id, stub capped at [`MAX_STUB`]),
//! tracks the interfaces bound per presentation context and yields [`DceTx`]s.

use std::collections::VecDeque;

use super::parser::{self, ptype, CoHeader, CO_HDR};
use crate::Direction;

/// Stub bytes kept per transaction and direction; the rest is counted in
/// [`Outcome::cut`] and [`Frags::cut`].
pub const MAX_STUB: usize = 1 << 20;
/// Presentation contexts kept per connection (and per bind).
pub const MAX_CONTEXTS: usize = 64;

/// An interface offered in a bind or alter_context, with what the server answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Presentation context id.
    pub ctx_id: u16,
    /// Interface UUID, wire order (see [`parser::uuid_string`]).
    pub uuid: [u8; 16],
    /// Major version.
    pub version: u16,
    /// Minor version.
    pub version_minor: u16,
    /// The bind_ack's result for it (0: accepted), once answered.
    pub ack_result: Option<u16>,
    /// The bind_ack's reason, once answered.
    pub ack_reason: Option<u16>,
}

impl Interface {
    /// Whether the server accepted it.
    pub fn accepted(&self) -> bool {
        self.ack_result == Some(0)
    }
}

/// The fragments of one side of a call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frags {
    /// Fragments seen.
    pub count: u32,
    /// Stub bytes counted in all fragments, as Suricata counts them for
    /// `stub_data_size`: a request fragment's bytes after its 24-byte header, a
    /// response fragment's after the first 16 (authentication trailers included).
    pub size: u64,
    /// The reassembled stub (at most [`MAX_STUB`] bytes).
    pub stub: Vec<u8>,
    /// Stub bytes not kept.
    pub cut: u64,
    /// The first fragment was seen.
    pub first: bool,
    /// The last fragment was seen.
    pub done: bool,
}

impl Frags {
    /// One fragment: `size` is the stub size it counts for, `stub` the bytes kept.
    pub(crate) fn add(&mut self, first: bool, last: bool, size: usize, stub: &[u8]) -> u64 {
        self.count += 1;
        self.size += size as u64;
        self.first |= first;
        self.done |= last;
        let room = MAX_STUB.saturating_sub(self.stub.len());
        let n = room.min(stub.len());
        self.stub.extend_from_slice(&stub[..n]);
        let cut = (stub.len() - n) as u64;
        self.cut += cut;
        cut
    }
}

/// One DCERPC call: a bind, alter_context or request and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DceTx {
    /// Transaction id, increasing within the connection (or pipe).
    pub id: u64,
    /// Call id (connection-oriented) or sequence number (connectionless).
    pub call_id: u32,
    /// The PDU type that opened the call; `None` when only its answer was seen
    /// (`REQUEST_LOST`).
    pub request: Option<u8>,
    /// The PDU type that answered it; `None` while unanswered (`UNREPLIED`).
    pub response: Option<u8>,
    /// Operation number of a request.
    pub opnum: Option<u16>,
    /// Presentation context of a request or response.
    pub ctx_id: Option<u16>,
    /// The request's fragments.
    pub req: Frags,
    /// The response's fragments.
    pub res: Frags,
    /// The contexts a bind or alter_context offered, with the answers.
    pub interfaces: Vec<Interface>,
    /// For a request: the interface bound to its context when it was seen (accepted
    /// or not); for a connectionless call: the header's interface.
    pub iface: Option<Interface>,
    /// A fault's status.
    pub fault_status: Option<u32>,
    /// `rpc_vers` and `rpc_vers_minor` of the PDUs.
    pub rpc_version: (u8, u8),
    /// Activity UUID (connectionless only).
    pub activity: Option<[u8; 16]>,
    /// The data representation of the call's last request/response PDU says integers
    /// are little endian (what `byte_*` with `dce` read its stub in).
    pub little_endian: bool,
}

impl DceTx {
    fn new(id: u64, call_id: u32, rpc_version: (u8, u8)) -> Self {
        DceTx {
            id,
            call_id,
            request: None,
            response: None,
            opnum: None,
            ctx_id: None,
            req: Frags::default(),
            res: Frags::default(),
            interfaces: Vec::new(),
            iface: None,
            fault_status: None,
            rpc_version,
            activity: None,
            little_endian: true,
        }
    }

    /// A connectionless call: sequence number `seqnum` of activity `activity`.
    pub(crate) fn new_cl(id: u64, seqnum: u32, activity: [u8; 16]) -> Self {
        DceTx {
            activity: Some(activity),
            ..DceTx::new(id, seqnum, (4, 0))
        }
    }

    /// Whether the client's side is complete (last fragment seen, or lost).
    pub fn request_done(&self) -> bool {
        match self.request {
            Some(ptype::REQUEST) => self.req.done,
            _ => true,
        }
    }

    /// Whether the server's side is complete.
    pub fn response_done(&self) -> bool {
        match self.response {
            Some(ptype::RESPONSE) => self.res.done,
            Some(_) => true,
            None => false,
        }
    }

    /// The stub of `dir`'s side: the request's to the server, the response's to the
    /// client.
    pub fn stub(&self, dir: Direction) -> &[u8] {
        match dir {
            Direction::ToServer => &self.req.stub,
            Direction::ToClient => &self.res.stub,
        }
    }
}

/// What one [`DcerpcConn::parse`] call did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Transactions opened.
    pub new_txs: u64,
    /// Ids of the transactions opened or updated, in order (repeats removed).
    pub touched: Vec<u64>,
    /// Old transactions dropped to keep within the limit.
    pub dropped_txs: u64,
    /// Stub bytes not kept (fragment reassembly cap).
    pub cut: u64,
    /// Fragments whose stub was cut (all or part).
    pub cut_frags: u64,
    /// The direction's framing failed here (bytes that are not a PDU): nothing more
    /// of it is parsed.
    pub error: bool,
}

/// One direction's framing.
#[derive(Clone, Debug, Default)]
struct Side {
    /// The PDU gathered so far.
    buf: Vec<u8>,
    /// Nothing more of this direction is parsed.
    lost: bool,
    /// PDUs seen.
    pdus: u64,
    /// A PDU completed since the last [`DcerpcConn::take_completed`].
    completed: bool,
}

/// Connection-oriented DCERPC over one byte stream pair (a TCP connection or an SMB
/// named pipe).
#[derive(Clone, Debug, Default)]
pub struct DcerpcConn {
    sides: [Side; 2],
    /// Bytes that are not a call's PDU were seen: nothing more is parsed.
    failed: bool,
    /// The contexts bound so far (bind replaces them, alter_context adds).
    interfaces: Vec<Interface>,
    txs: VecDeque<DceTx>,
    next_id: u64,
}

impl DcerpcConn {
    /// A connection with nothing seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// The contexts bound on the connection, with the server's answers.
    pub fn interfaces(&self) -> &[Interface] {
        &self.interfaces
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &DceTx> {
        self.txs.iter()
    }

    /// The transaction with id `id`, if still live.
    pub fn tx(&self, id: u64) -> Option<&DceTx> {
        self.txs.iter().find(|t| t.id == id)
    }

    /// Transactions opened so far.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// PDUs framed in `dir` so far.
    pub fn pdus(&self, dir: Direction) -> u64 {
        self.sides[dir.index()].pdus
    }

    /// Whether `dir` is no longer parsed (bytes that are not a PDU of a call, in
    /// either direction, or a gap in this one).
    pub fn lost(&self, dir: Direction) -> bool {
        self.sides[dir.index()].lost
    }

    /// Whether the parser failed (bytes that are not a call's PDU): nothing more is
    /// parsed in either direction.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn fail(&mut self, out: &mut Outcome) {
        self.failed = true;
        for s in &mut self.sides {
            s.lost = true;
            s.buf.clear();
        }
        out.error = true;
    }

    /// Whether a PDU of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.sides[dir.index()].completed)
    }

    /// A hole in `dir`: the PDU in progress is dropped and `dir` is not parsed any
    /// more (PDU boundaries are unknown after it).
    pub fn gap(&mut self, dir: Direction) {
        let s = &mut self.sides[dir.index()];
        s.buf.clear();
        s.lost = true;
    }

    /// Whether `dir` is between PDUs: no part of one gathered (the next bytes must
    /// start a header).
    pub fn at_pdu_start(&self, dir: Direction) -> bool {
        self.sides[dir.index()].buf.is_empty()
    }

    /// Frees the transactions with an id below `id`.
    pub fn free_txs_before(&mut self, id: u64) {
        while self.txs.front().is_some_and(|t| t.id < id) {
            self.txs.pop_front();
        }
    }

    /// In-order bytes of `dir` (split anywhere); at most `max_tx` transactions are kept
    /// live (the oldest are dropped and counted).
    pub fn parse(&mut self, dir: Direction, mut data: &[u8], max_tx: usize) -> Outcome {
        let mut out = Outcome::default();
        let i = dir.index();
        while !self.sides[i].lost {
            let side = &mut self.sides[i];
            let need = if side.buf.len() < CO_HDR {
                CO_HDR
            } else if let Some(l) = parser::co_frag_length(&side.buf) {
                usize::from(l)
            } else {
                self.fail(&mut out);
                break;
            };
            if side.buf.len() < need {
                if data.is_empty() {
                    break;
                }
                let n = (need - side.buf.len()).min(data.len());
                side.buf.extend_from_slice(&data[..n]);
                data = &data[n..];
                continue;
            }
            let pdu = std::mem::take(&mut side.buf);
            side.pdus += 1;
            side.completed = true;
            self.pdu(dir, &pdu, max_tx, &mut out);
        }
        out
    }

    /// One whole PDU of `dir`.
    fn pdu(&mut self, dir: Direction, pdu: &[u8], max_tx: usize, out: &mut Outcome) {
        let Some(h) = parser::co_header(pdu) else {
            return;
        };
        match (dir, h.ptype) {
            (Direction::ToServer, ptype::REQUEST) => self.request(&h, pdu, max_tx, out),
            (Direction::ToServer, ptype::BIND | ptype::ALTER_CONTEXT) => {
                self.bind(&h, pdu, max_tx, out)
            }
            (Direction::ToClient, ptype::RESPONSE) => self.response(&h, pdu, max_tx, out),
            (
                Direction::ToClient,
                ptype::BIND_ACK | ptype::ALTER_CONTEXT_RESP | ptype::BIND_NAK,
            ) => self.bind_ack(&h, pdu, max_tx, out),
            _ => {
                // A PDU this side does not send in a call it tracks (AUTH3, FAULT,
                // SHUTDOWN, a response to the server, ...) ends the parsing, as in
                // Suricata (sv-ether.pcap logs no call after one).
                self.fail(out);
            }
        }
    }

    fn open(&mut self, h: &CoHeader, max_tx: usize, out: &mut Outcome) -> &mut DceTx {
        let id = self.next_id;
        self.next_id += 1;
        out.new_txs += 1;
        self.txs
            .push_back(DceTx::new(id, h.call_id, (h.version, h.version_minor)));
        while self.txs.len() > max_tx.max(1) {
            self.txs.pop_front();
            out.dropped_txs += 1;
        }
        self.txs.back_mut().expect("just pushed")
    }

    fn cut(out: &mut Outcome, n: u64) {
        if n > 0 {
            out.cut += n;
            out.cut_frags += 1;
        }
    }

    fn touch(out: &mut Outcome, id: u64) {
        if out.touched.last() != Some(&id) {
            out.touched.push(id);
        }
    }

    fn request(&mut self, h: &CoHeader, pdu: &[u8], max_tx: usize, out: &mut Outcome) {
        let Some(r) = parser::request(h, pdu) else {
            return;
        };
        let open = self.txs.iter().position(|t| {
            t.call_id == h.call_id && t.request == Some(ptype::REQUEST) && !t.req.done
        });
        let tx = match open {
            Some(p) if !h.first_frag() => &mut self.txs[p],
            _ => {
                let iface = self
                    .interfaces
                    .iter()
                    .find(|i| i.ctx_id == r.ctx_id)
                    .copied();
                let tx = self.open(h, max_tx, out);
                tx.iface = iface;
                tx.request = Some(ptype::REQUEST);
                tx.opnum = Some(r.opnum);
                tx.ctx_id = Some(r.ctx_id);
                tx
            }
        };
        tx.little_endian = h.little_endian;
        let size = pdu.len().saturating_sub(24);
        Self::cut(out, tx.req.add(h.first_frag(), h.last_frag(), size, r.stub));
        Self::touch(out, tx.id);
    }

    fn response(&mut self, h: &CoHeader, pdu: &[u8], max_tx: usize, out: &mut Outcome) {
        let Some(r) = parser::response(h, pdu) else {
            return;
        };
        let open = self.txs.iter().position(|t| {
            t.call_id == h.call_id
                && !t.response_done()
                && t.request != Some(ptype::BIND)
                && t.request != Some(ptype::ALTER_CONTEXT)
        });
        let tx = match open {
            Some(p) => &mut self.txs[p],
            None => {
                let tx = self.open(h, max_tx, out);
                tx.ctx_id = Some(r.ctx_id);
                tx
            }
        };
        tx.response = Some(h.ptype);
        tx.little_endian = h.little_endian;
        if h.ptype == ptype::FAULT {
            tx.fault_status = r.status;
            tx.res.done = true;
        }
        let size = pdu.len().saturating_sub(16);
        Self::cut(out, tx.res.add(h.first_frag(), h.last_frag(), size, r.stub));
        Self::touch(out, tx.id);
    }

    fn bind(&mut self, h: &CoHeader, pdu: &[u8], max_tx: usize, out: &mut Outcome) {
        let ctxs = parser::bind_contexts(h, pdu, MAX_CONTEXTS).unwrap_or_default();
        let ifaces: Vec<Interface> = ctxs
            .iter()
            .map(|c| Interface {
                ctx_id: c.ctx_id,
                uuid: c.uuid,
                version: c.version,
                version_minor: c.version_minor,
                ack_result: None,
                ack_reason: None,
            })
            .collect();
        if h.ptype == ptype::BIND {
            self.interfaces.clear();
        }
        for i in &ifaces {
            self.interfaces.retain(|b| b.ctx_id != i.ctx_id);
            if self.interfaces.len() < MAX_CONTEXTS {
                self.interfaces.push(*i);
            }
        }
        let tx = self.open(h, max_tx, out);
        tx.request = Some(h.ptype);
        tx.interfaces = ifaces;
        let id = tx.id;
        Self::touch(out, id);
    }

    fn bind_ack(&mut self, h: &CoHeader, pdu: &[u8], max_tx: usize, out: &mut Outcome) {
        let results = if h.ptype == ptype::BIND_NAK {
            Vec::new()
        } else {
            parser::bind_ack_results(h, pdu, MAX_CONTEXTS).unwrap_or_default()
        };
        let open = self.txs.iter().position(|t| {
            t.call_id == h.call_id
                && t.response.is_none()
                && matches!(t.request, Some(ptype::BIND | ptype::ALTER_CONTEXT))
        });
        let tx = match open {
            Some(p) => &mut self.txs[p],
            None => self.open(h, max_tx, out),
        };
        tx.response = Some(h.ptype);
        for (i, r) in tx.interfaces.iter_mut().zip(&results) {
            i.ack_result = Some(r.result);
            i.ack_reason = Some(r.reason);
        }
        let id = tx.id;
        let answered = tx.interfaces.clone();
        for i in answered {
            if let Some(b) = self.interfaces.iter_mut().find(|b| b.ctx_id == i.ctx_id) {
                b.ack_result = i.ack_result;
                b.ack_reason = i.ack_reason;
            }
        }
        Self::touch(out, id);
    }
}
