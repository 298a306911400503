//! Application-layer frames (Suricata 7's stream annotations for the `frame` rule
//! keyword): the protocol data units of a flow's directions, recorded as the parser is
//! fed and kept until the detection engine inspects them.
//!
//! Frames are cut here from the same in-order bytes (or datagrams) the protocol's
//! parser gets, by the protocol's own length fields, so they exist exactly where the
//! parser is running (a failed parser, a gap or an unknown record format stops them):
//!
//! - TLS: each record: `tls.pdu` (header and body), `tls.hdr` (the 5 header bytes),
//!   `tls.data` (the body), `tls.alert` / `tls.heartbeat` (the body of an alert or
//!   heartbeat record). An SSLv2 record stops the framing (7.0.10 has no SSLv2 frames).
//! - DNS: `dns.pdu`, one per datagram over UDP, one per message over TCP (the message
//!   after its 2-byte length, as Suricata 7.0.10 cuts it: checked on sv-ether's TCP
//!   DNS flows, where the flags match at offset 2 of the frame).
//! - SMB: each NetBIOS session message: `smb.nbss.pdu`, `.hdr` (4 bytes), `.data`;
//!   inside it an SMB1 message (`smb1.pdu`, `.hdr` the 32-byte header, `.data`), each
//!   SMB2 message of a compound chain (`smb2.*`, 64-byte header) or an SMB3 transform
//!   (`smb3.*`, 52-byte header).
//! - HTTP/1: `http1.request` / `http1.response`, one per message: its start line,
//!   headers and body as they came on the wire (chunk sizes and trailers included),
//!   up to where the HTTP parser completed it; pipelined messages each have their own
//!   frame. Checked with Suricata 7.0.10 on http-files.pcap: a GET request's frame
//!   ends with the blank line after its headers, a chunked response's with the last
//!   `0\r\n\r\n`. A message still open when the flow ends is framed up to its last
//!   byte (the parser completes it as truncated). The parser says where each message
//!   ends ([`crate::http::HttpState::take_ends`]).
//! - SIP (UDP): `sip.pdu`, each datagram given to the parser, even one it refuses (a
//!   request sent to the client); of a message it accepts, `sip.request.line` /
//!   `sip.response.line` (the start line and its CRLF), `.headers` (the header lines,
//!   the blank line after them not included) and `.body` (when not empty). Checked
//!   with Suricata 7.0.10 on issue24b.pcap's SIP flows.
//! - RFB: `rfb.pdu`, each handshake message as the parser takes it
//!   ([`crate::rfb::RfbState::take_pdus`]; the server's failure reason is not framed).
//! - NFS: each ONC RPC message (a TCP record with its mark, or a datagram):
//!   `nfs.rpc.pdu`; a call's `nfs.rpc.creds`; a reply's `nfs.rpc.hdr` (mark, xid,
//!   message type) and `nfs.rpc.data`. `nfs.nfs.pdu`/`nfs.nfs.status` are not
//!   recorded: Suricata 7.0.10 crashes with them on sv-ether.pcap.
//!
//! Only the frame types Osprey records are [`recorded`]; a rule naming another is
//! refused as unsupported by the detection engine. Nothing is recorded unless
//! [`crate::Config::frames`] is set (the engine sets it when a loaded rule uses
//! `frame`), and then only the types of [`crate::Config::frame_types`] (the types the
//! rules use), as Suricata 7.0.10 creates only those.
//!
//! Each frame carries what Suricata's EVE alert `frame` object says of it
//! ([`Frame`]): its id (1, 2, ... per direction, counting the recorded frames in the
//! order Suricata creates them: a TLS record's `hdr` before its `pdu` and `data`, a
//! NetBIOS message's `pdu`, `hdr`, `data` before its SMB message's, a SIP datagram's
//! `pdu`, line, headers, body), its offset in the direction's TCP stream (the
//! bytes before the protocol started, e.g. SMTP before STARTTLS, included), its length
//! on the wire and, for HTTP/1, its transaction. Checked with Suricata 7.0.10 on
//! smtp-starttls.pcap, smb.pcap, smb-psexec-pipes.pcap, http-files.pcap and the SIP
//! flows of issue24b.pcap. Per direction, at most [`MAX_PENDING`] frames and [`ARENA_LIMIT`] bytes
//! wait for inspection; one unit's bytes are kept up to [`UNIT_LIMIT`] (a longer
//! frame is inspected on its first bytes). Frames over these limits are dropped and
//! counted (`osprey.app.frames.dropped`).

use std::cell::Cell;

use rules::frames::FrameType;
use rules::AppProto as RuleApp;

use crate::{AppCtx, AppProto, Counter, Direction};

/// Frames waiting for inspection per direction.
pub const MAX_PENDING: usize = 1024;
/// Bytes of frames waiting for inspection per direction.
pub const ARENA_LIMIT: usize = 1 << 20;
/// Bytes kept of one protocol data unit (TLS records are at most 18 KiB; SMB messages
/// can be larger, their first 64 KiB are kept).
pub const UNIT_LIMIT: usize = 64 * 1024;

/// Whether Osprey records frames of type `t` (the others are refused as unsupported).
pub fn recorded(t: FrameType) -> bool {
    if t.is_stream() {
        return false;
    }
    match t.proto() {
        // `nfs.nfs.pdu`/`nfs.nfs.status` crash Suricata 7.0.10 on sv-ether.pcap:
        // nothing to compare with.
        RuleApp::Nfs => t.type_name().starts_with("rpc."),
        p => matches!(
            p,
            RuleApp::Tls
                | RuleApp::Dns
                | RuleApp::Smb
                | RuleApp::Http1
                | RuleApp::Sip
                | RuleApp::Rfb
        ),
    }
}

/// A set of frame types ([`crate::Config::frame_types`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSet([u64; 4]);

impl FrameSet {
    /// Every frame type.
    pub const ALL: FrameSet = FrameSet([u64::MAX; 4]);
    /// No frame type.
    pub const EMPTY: FrameSet = FrameSet([0; 4]);

    /// Adds `t`.
    pub fn insert(&mut self, t: FrameType) {
        self.0[usize::from(t.0 >> 6)] |= 1 << (t.0 & 63);
    }

    /// Whether `t` is in the set.
    pub fn contains(&self, t: FrameType) -> bool {
        self.0[usize::from(t.0 >> 6)] & (1 << (t.0 & 63)) != 0
    }
}

impl Default for FrameSet {
    fn default() -> Self {
        FrameSet::ALL
    }
}

/// One frame waiting for inspection, with what the EVE alert `frame` object says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Its type.
    pub ty: FrameType,
    /// Its number in its direction (1 first), counting the recorded frames in the order
    /// Suricata 7.0.10 creates them (`frame.id`).
    pub id: u64,
    /// Offset of its first byte in the direction's TCP stream (`stream_offset`);
    /// `None` for a frame of a datagram.
    pub stream_offset: Option<u64>,
    /// Its length on the wire (`length`): the bytes kept may be fewer
    /// ([`UNIT_LIMIT`]).
    pub len: u64,
    /// The transaction it belongs to (HTTP/1 messages: `tx_id`).
    pub tx_id: Option<u64>,
    start: u32,
    kept: u32,
}

/// How a direction's stream is cut into units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Tls,
    DnsTcp,
    Nbss,
    /// ONC RPC records (NFS over TCP): a 4-byte record mark, then the message.
    Rpc,
}

impl Unit {
    fn of(p: AppProto) -> Option<Unit> {
        match p {
            AppProto::Tls => Some(Unit::Tls),
            AppProto::Dns => Some(Unit::DnsTcp),
            AppProto::Smb => Some(Unit::Nbss),
            AppProto::Nfs => Some(Unit::Rpc),
            _ => None,
        }
    }

    fn header_len(self) -> usize {
        match self {
            Unit::Tls => 5,
            Unit::DnsTcp => 2,
            Unit::Nbss | Unit::Rpc => 4,
        }
    }

    /// The unit's total length from its header, or `None` when the bytes are not a
    /// unit Osprey frames (SSLv2, not a record or session message header).
    fn total(self, h: &[u8]) -> Option<usize> {
        match self {
            // Record types 20..=24 of SSLv3/TLS (SSLv2 records have the high bit).
            Unit::Tls => ((20..=24).contains(&h[0]) && h[1] == 3)
                .then(|| 5 + usize::from(u16::from_be_bytes([h[3], h[4]]))),
            Unit::DnsTcp => Some(2 + usize::from(u16::from_be_bytes([h[0], h[1]]))),
            Unit::Nbss if !matches!(h[0], 0 | 0x81..=0x85) => None,
            Unit::Nbss => {
                // Direct-hosted SMB session messages use 24 length bits (RFC 1002's
                // 17 for the other NetBIOS message types).
                let mask = if h[0] == 0 { 0xff_ffff } else { 0x1_ffff };
                Some(4 + (u32::from_be_bytes([0, h[1], h[2], h[3]]) & mask) as usize)
            }
            // The record mark's top bit flags the last fragment; each fragment is framed.
            Unit::Rpc => {
                Some(4 + (u32::from_be_bytes([h[0], h[1], h[2], h[3]]) & 0x7fff_ffff) as usize)
            }
        }
    }
}

/// One direction's framing state and its frames waiting for inspection.
#[derive(Debug, Default)]
struct DirFrames {
    /// The unit being assembled (its first [`UNIT_LIMIT`] bytes).
    unit: Vec<u8>,
    /// Its total length once the header is complete.
    total: Option<usize>,
    /// Bytes of the unit seen so far.
    seen: usize,
    /// Framing stopped (unknown record format).
    lost: bool,
    /// HTTP/1: stream offset of the next byte (gaps included), as the parser counts.
    off: u64,
    /// Bytes of the direction's TCP stream so far, gaps included (the stream offset
    /// after the last byte the flow was given).
    recv: u64,
    /// Stream offset of the unit (or HTTP/1 message) being assembled.
    unit_off: u64,
    /// The last frame id given.
    next_id: u64,
    /// HTTP/1 messages framed (the next one's transaction).
    msgs: u64,
    /// Bytes of the chunk the unit being assembled started in, from its start (ONC
    /// RPC: Suricata's frame of a message against the direction spans them).
    chunk_rest: usize,
    /// The direction is to the server (set with each stream chunk).
    to_server: bool,
    arena: Vec<u8>,
    pending: Vec<Frame>,
    /// How many of `pending` the detection engine inspected (it holds the flow
    /// shared; they are dropped on the next change).
    inspected: Cell<usize>,
}

impl DirFrames {
    /// The kept bytes of frame `f`.
    fn bytes(&self, f: &Frame) -> &[u8] {
        let s = f.start as usize;
        &self.arena[s..s + f.kept as usize]
    }

    /// Drops the frames already inspected.
    fn compact(&mut self) {
        let n = self.inspected.replace(0).min(self.pending.len());
        if n == self.pending.len() {
            self.pending.clear();
            self.arena.clear();
        } else if n > 0 {
            let cut = self.pending[n].start;
            self.arena.drain(..cut as usize);
            self.pending.drain(..n);
            self.pending.iter_mut().for_each(|f| f.start -= cut);
        }
    }

    /// Records a frame of type `ty` (when a rule uses the type): its kept bytes, stream
    /// offset, length on the wire and transaction.
    fn push(
        &mut self,
        ctx: &mut AppCtx,
        ty: FrameType,
        bytes: &[u8],
        at: (Option<u64>, u64),
        tx_id: Option<u64>,
    ) {
        if !ctx.config.frame_types.contains(ty) {
            return;
        }
        self.next_id += 1;
        self.compact();
        if self.pending.len() >= MAX_PENDING || self.arena.len() + bytes.len() > ARENA_LIMIT {
            ctx.counters.incr(Counter::FramesDropped);
            return;
        }
        self.pending.push(Frame {
            ty,
            id: self.next_id,
            stream_offset: at.0,
            len: at.1,
            tx_id,
            start: self.arena.len() as u32,
            kept: bytes.len() as u32,
        });
        self.arena.extend_from_slice(bytes);
    }

    /// A datagram's frame: no stream offset, its length is its bytes'.
    fn push_dgram(&mut self, ctx: &mut AppCtx, ty: FrameType, bytes: &[u8]) {
        self.push(ctx, ty, bytes, (None, bytes.len() as u64), None);
    }

    /// The stream bytes `data`, the last of them at stream offset `self.recv`.
    fn stream(&mut self, ctx: &mut AppCtx, unit: Unit, mut data: &[u8]) {
        let mut pos = self.recv.saturating_sub(data.len() as u64);
        while !data.is_empty() && !self.lost {
            let hl = unit.header_len();
            if self.total.is_none() {
                if self.seen == 0 {
                    self.unit_off = pos;
                    self.chunk_rest = data.len();
                }
                let take = (hl - self.unit.len()).min(data.len());
                self.unit.extend_from_slice(&data[..take]);
                self.seen += take;
                pos += take as u64;
                data = &data[take..];
                if self.unit.len() < hl {
                    return;
                }
                match unit.total(&self.unit) {
                    Some(t) => self.total = Some(t),
                    None => {
                        self.lost = true;
                        return;
                    }
                }
            }
            let total = self.total.unwrap_or(hl);
            let take = (total - self.seen).min(data.len());
            let keep = take.min(UNIT_LIMIT.saturating_sub(self.unit.len()));
            self.unit.extend_from_slice(&data[..keep]);
            self.seen += take;
            pos += take as u64;
            data = &data[take..];
            if self.seen == total {
                if total > UNIT_LIMIT {
                    ctx.counters.incr(Counter::FramesTruncated);
                }
                let u = std::mem::take(&mut self.unit);
                self.emit(ctx, unit, &u, total as u64, data);
                self.unit = u;
                self.unit.clear();
                self.total = None;
                self.seen = 0;
            }
        }
    }

    /// The frames of one complete unit `u` (its first [`UNIT_LIMIT`] bytes) of
    /// `total` bytes on the wire, in the order Suricata 7.0.10 creates them; `tail`:
    /// the bytes after it in the current chunk.
    fn emit(&mut self, ctx: &mut AppCtx, unit: Unit, u: &[u8], total: u64, tail: &[u8]) {
        let t = |p: RuleApp, n: &str| FrameType::lookup(p, n).unwrap_or_default();
        let off = self.unit_off;
        let at = |skip: u64| (Some(off + skip), total - skip);
        match unit {
            Unit::Tls => {
                self.push(ctx, t(RuleApp::Tls, "hdr"), &u[..5], (Some(off), 5), None);
                self.push(ctx, t(RuleApp::Tls, "pdu"), u, at(0), None);
                self.push(ctx, t(RuleApp::Tls, "data"), &u[5..], at(5), None);
                match u[0] {
                    21 => self.push(ctx, t(RuleApp::Tls, "alert"), &u[5..], at(5), None),
                    24 => self.push(ctx, t(RuleApp::Tls, "heartbeat"), &u[5..], at(5), None),
                    _ => {}
                }
            }
            Unit::DnsTcp => self.push(ctx, t(RuleApp::Dns, "pdu"), &u[2..], at(2), None),
            Unit::Nbss => {
                self.push(ctx, t(RuleApp::Smb, "nbss.pdu"), u, at(0), None);
                self.push(
                    ctx,
                    t(RuleApp::Smb, "nbss.hdr"),
                    &u[..4],
                    (Some(off), 4),
                    None,
                );
                self.push(ctx, t(RuleApp::Smb, "nbss.data"), &u[4..], at(4), None);
                if u[0] == 0 {
                    self.smb(ctx, &u[4..], off + 4, total - 4);
                }
            }
            Unit::Rpc => {
                let pdu = t(RuleApp::Nfs, "rpc.pdu");
                let kind = u
                    .get(8..12)
                    .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                // A call to the client or a reply to the server (NFSv4 callbacks):
                // Suricata 7.0.10 frames only its `rpc.pdu`, as long as the rest of the
                // chunk the message started in (checked on nfs_tftp.pcap's TCP flow).
                if kind == Some(u32::from(self.to_server)) && u.len() as u64 == total {
                    let len = self.chunk_rest.max(u.len());
                    let extra = (len - u.len()).min(tail.len());
                    let b = [u, &tail[..extra]].concat();
                    self.push(ctx, pdu, &b, (Some(off), b.len() as u64), None);
                    return;
                }
                self.push(ctx, pdu, u, at(0), None);
                self.rpc(ctx, u, 4, Some(off), total);
            }
        }
    }

    /// The parts of an ONC RPC message `m` (its kept bytes, `total` on the wire; the
    /// message itself after `mark` bytes: 4 for a TCP record's mark, 0 in a datagram)
    /// at stream offset `off` (`None`: a datagram), as Suricata 7.0.10 frames them
    /// (checked on nfs_tftp.pcap and sv-ether.pcap's NFS over TCP): a reply's
    /// `rpc.hdr` (the mark, xid and message type) and `rpc.data` (the rest); a call's
    /// `rpc.creds` (flavor, length and body of its credentials).
    fn rpc(&mut self, ctx: &mut AppCtx, m: &[u8], mark: usize, off: Option<u64>, total: u64) {
        let t = |n: &str| FrameType::lookup(RuleApp::Nfs, n).unwrap_or_default();
        let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let at = |from: usize, len: u64| (off.map(|o| o + from as u64), len);
        let Some(kind) = m.get(mark + 4..mark + 8).map(be32) else {
            return;
        };
        match kind {
            1 => {
                let h = mark + 8;
                self.push(ctx, t("rpc.hdr"), &m[..h], at(0, h as u64), None);
                let rest = total.saturating_sub(h as u64);
                self.push(ctx, t("rpc.data"), &m[h..], at(h, rest), None);
            }
            0 => {
                // xid, type, RPC version, program, version, procedure: 24 bytes.
                let c = mark + 24;
                let Some(len) = m.get(c + 4..c + 8).map(be32) else {
                    return;
                };
                let end = (c + 8).saturating_add(len as usize).min(m.len());
                self.push(
                    ctx,
                    t("rpc.creds"),
                    &m[c..end],
                    at(c, (end - c) as u64),
                    None,
                );
            }
            _ => {}
        }
    }

    /// HTTP/1 bytes of one direction, the last of them at stream offset `self.recv`;
    /// `ends` are the parser's offsets where it completed messages while it parsed
    /// them (see [`crate::http::HttpState::take_ends`]).
    fn http(&mut self, ctx: &mut AppCtx, ty: FrameType, data: &[u8], ends: &[u64]) {
        let base = self.off;
        let abs = self.recv.saturating_sub(data.len() as u64);
        self.off += data.len() as u64;
        let mut from = 0;
        for &e in ends {
            let cut = usize::try_from(e.saturating_sub(base))
                .unwrap_or(usize::MAX)
                .clamp(from, data.len());
            self.http_append(&data[from..cut], abs + from as u64);
            from = cut;
            if self.seen == 0 {
                continue;
            }
            if self.seen > UNIT_LIMIT {
                ctx.counters.incr(Counter::FramesTruncated);
            }
            let u = std::mem::take(&mut self.unit);
            let at = (Some(self.unit_off), self.seen as u64);
            self.push(ctx, ty, &u, at, Some(self.msgs));
            self.msgs += 1;
            self.unit = u;
            self.unit.clear();
            self.seen = 0;
        }
        self.http_append(&data[from..], abs + from as u64);
    }

    /// Adds bytes to the HTTP message being framed (the first of them at stream offset
    /// `at`): the line endings between messages (which the parser skips) do not start
    /// one.
    fn http_append(&mut self, mut b: &[u8], at: u64) {
        if self.seen == 0 {
            let skip = b.iter().take_while(|&&c| c == b'\r' || c == b'\n').count();
            b = &b[skip..];
            self.unit_off = at + skip as u64;
        }
        let keep = b.len().min(UNIT_LIMIT.saturating_sub(self.unit.len()));
        self.unit.extend_from_slice(&b[..keep]);
        self.seen += b.len();
    }

    /// The frames of one SIP datagram: `sip.pdu` whether or not the parser accepted
    /// it (Suricata 7.0.10 frames a request sent to the client too); the start line
    /// (with its CRLF), the header lines (up to the blank line, which is in neither)
    /// and a non-empty body of a message the parser accepted.
    fn sip(&mut self, ctx: &mut AppCtx, dir: Direction, p: &[u8], ok: bool) {
        let t = |n: &str| FrameType::lookup(RuleApp::Sip, n).unwrap_or_default();
        self.push_dgram(ctx, t("pdu"), p);
        if !ok {
            return;
        }
        let (line, headers, body) = match dir {
            Direction::ToServer => ("request.line", "request.headers", "request.body"),
            Direction::ToClient => ("response.line", "response.headers", "response.body"),
        };
        let Some(eol) = p.iter().position(|&b| b == b'\n') else {
            return;
        };
        self.push_dgram(ctx, t(line), &p[..=eol]);
        let rest = &p[eol + 1..];
        let (hdrs, b) = match rest.windows(4).position(|w| w == b"\r\n\r\n") {
            Some(i) => (&rest[..i + 2], &rest[i + 4..]),
            None if rest.starts_with(b"\r\n") => (&rest[..0], &rest[2..]),
            None => (rest, &rest[rest.len()..]),
        };
        if !hdrs.is_empty() {
            self.push_dgram(ctx, t(headers), hdrs);
        }
        if !b.is_empty() {
            self.push_dgram(ctx, t(body), b);
        }
    }

    /// The SMB message(s) of one NetBIOS session message: `b` its kept bytes, at
    /// stream offset `off`, `total` bytes on the wire.
    fn smb(&mut self, ctx: &mut AppCtx, mut b: &[u8], mut off: u64, mut total: u64) {
        let t = |n: &str| FrameType::lookup(RuleApp::Smb, n).unwrap_or_default();
        let ((pdu, hdr, data), hl, compound) = match b.get(..4) {
            Some(b"\xffSMB") => (("smb1.pdu", "smb1.hdr", "smb1.data"), 32, false),
            Some(b"\xfeSMB") => (("smb2.pdu", "smb2.hdr", "smb2.data"), 64, true),
            Some(b"\xfdSMB") => (("smb3.pdu", "smb3.hdr", "smb3.data"), 52, false),
            _ => return,
        };
        let (pdu, hdr, data) = (t(pdu), t(hdr), t(data));
        loop {
            if b.len() < hl {
                return;
            }
            // SMB2 compounds: each message up to its NextCommand offset.
            let next = if compound {
                u32::from_le_bytes([b[20], b[21], b[22], b[23]]) as usize
            } else {
                0
            };
            let end = if next >= hl && next <= b.len() {
                next
            } else {
                b.len()
            };
            let m = &b[..end];
            // The last message runs to the end of the session message on the wire.
            let len = if end == b.len() { total } else { end as u64 };
            self.push(ctx, pdu, m, (Some(off), len), None);
            self.push(ctx, hdr, &m[..hl], (Some(off), hl as u64), None);
            let rest = (Some(off + hl as u64), len.saturating_sub(hl as u64));
            self.push(ctx, data, &m[hl..], rest, None);
            if end == b.len() {
                return;
            }
            b = &b[end..];
            off += end as u64;
            total = total.saturating_sub(end as u64);
        }
    }
}

/// The frames of one flow, both directions.
#[derive(Debug, Default)]
pub struct FlowFrames {
    dirs: [DirFrames; 2],
}

impl FlowFrames {
    /// In-order stream bytes of `dir`, as the protocol `proto`'s parser got them.
    pub(crate) fn stream(
        &mut self,
        ctx: &mut AppCtx,
        proto: AppProto,
        dir: Direction,
        data: &[u8],
    ) {
        if let Some(u) = Unit::of(proto) {
            let d = &mut self.dirs[dir.index()];
            d.to_server = dir == Direction::ToServer;
            d.stream(ctx, u, data);
        }
    }

    /// In-order HTTP/1 bytes of `dir` and the stream offsets where the parser completed
    /// messages while parsing them (or, with no bytes, when the flow ended).
    pub(crate) fn http(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8], ends: &[u64]) {
        let name = match dir {
            Direction::ToServer => "request",
            Direction::ToClient => "response",
        };
        let ty = FrameType::lookup(RuleApp::Http1, name).unwrap_or_default();
        self.dirs[dir.index()].http(ctx, ty, data, ends);
    }

    /// `len` bytes of `dir` given to the RFB parser, and the handshake messages it took
    /// (`rfb.pdu`: direction, offset among the bytes it was given in that direction,
    /// bytes; see [`crate::rfb::RfbState::take_pdus`]). A message of the other
    /// direction (the parser takes them in handshake order) waits for that
    /// direction's next packet.
    pub(crate) fn rfb(
        &mut self,
        ctx: &mut AppCtx,
        dir: Direction,
        len: usize,
        pdus: Vec<(Direction, u64, Vec<u8>)>,
    ) {
        self.dirs[dir.index()].off += len as u64;
        let ty = FrameType::lookup(RuleApp::Rfb, "pdu").unwrap_or_default();
        for (d, at, m) in pdus {
            let d = &mut self.dirs[d.index()];
            // The parser's offsets count its own bytes; the stream's all of them.
            let off = d.recv.saturating_sub(d.off.saturating_sub(at));
            d.push(ctx, ty, &m, (Some(off), m.len() as u64), None);
        }
    }

    /// One datagram of `dir` given to the protocol `proto`'s parser; `ok`: the parser
    /// accepted it.
    pub(crate) fn datagram(
        &mut self,
        ctx: &mut AppCtx,
        proto: AppProto,
        dir: Direction,
        payload: &[u8],
        ok: bool,
    ) {
        let d = &mut self.dirs[dir.index()];
        match proto {
            AppProto::Dns if ok => {
                let t = FrameType::lookup(RuleApp::Dns, "pdu").unwrap_or_default();
                d.push_dgram(ctx, t, payload);
            }
            AppProto::Sip => d.sip(ctx, dir, payload, ok),
            AppProto::Nfs if ok => {
                let t = FrameType::lookup(RuleApp::Nfs, "rpc.pdu").unwrap_or_default();
                d.push_dgram(ctx, t, payload);
                d.rpc(ctx, payload, 0, None, payload.len() as u64);
            }
            _ => {}
        }
    }

    /// A hole in `dir`'s stream: the unit being assembled is lost and framing starts
    /// again at the next byte (as Suricata's parsers take the data after a gap as a
    /// new record; a header that does not look like one then stops the framing).
    pub(crate) fn gap(&mut self, dir: Direction, len: u64) {
        let d = &mut self.dirs[dir.index()];
        d.off += len;
        d.unit.clear();
        d.total = None;
        d.seen = 0;
    }

    /// `len` bytes of `dir`'s TCP stream came to the flow (before protocol detection
    /// or parsing: the stream offsets of frames count them).
    pub(crate) fn received(&mut self, dir: Direction, len: u64) {
        self.dirs[dir.index()].recv += len;
    }

    /// The frames of `dir` waiting for inspection, with their bytes.
    pub fn pending(&self, dir: Direction) -> impl Iterator<Item = (FrameType, &[u8])> + '_ {
        self.pending_frames(dir).map(|(f, b)| (f.ty, b))
    }

    /// The frames of `dir` waiting for inspection, with their bytes (those kept).
    pub fn pending_frames(&self, dir: Direction) -> impl Iterator<Item = (Frame, &[u8])> + '_ {
        let d = &self.dirs[dir.index()];
        let from = d.inspected.get().min(d.pending.len());
        d.pending[from..].iter().map(move |f| (*f, d.bytes(f)))
    }

    /// The frame of `dir` with id `id`, with its bytes, while it is held (until the
    /// next frame of `dir` is recorded after its inspection): what the alert of a
    /// `frame` rule writes.
    pub fn get(&self, dir: Direction, id: u64) -> Option<(Frame, &[u8])> {
        let d = &self.dirs[dir.index()];
        let i = d.pending.binary_search_by_key(&id, |f| f.id).ok()?;
        let f = &d.pending[i];
        Some((*f, d.bytes(f)))
    }

    /// The lowest transaction a frame waiting for inspection belongs to (an HTTP/1
    /// message's): the flow keeps that transaction until the frame was inspected, so
    /// the frame's alert can write it (`tx_id`, `http{}`).
    pub fn pending_tx_min(&self) -> Option<u64> {
        self.dirs
            .iter()
            .flat_map(|d| &d.pending[d.inspected.get().min(d.pending.len())..])
            .filter_map(|f| f.tx_id)
            .min()
    }

    /// Whether frames of `dir` wait for inspection.
    pub fn has_pending(&self, dir: Direction) -> bool {
        let d = &self.dirs[dir.index()];
        d.inspected.get() < d.pending.len()
    }

    /// Marks the frames of `dir` inspected (the detection engine, which sees the flow
    /// shared, calls it): they are no longer [`pending`](Self::pending) and their
    /// memory is reused when the next frame is recorded.
    pub fn inspected(&self, dir: Direction) {
        let d = &self.dirs[dir.index()];
        d.inspected.set(d.pending.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `data` with the HTTP state and frames it from the ends the parser found.
    fn feed(
        ctx: &mut AppCtx,
        h: &mut crate::http::HttpState,
        f: &mut FlowFrames,
        dir: Direction,
        data: &[u8],
    ) {
        h.parse(ctx, dir, data);
        f.received(dir, data.len() as u64);
        f.http(ctx, dir, data, &h.take_ends(dir));
    }

    /// Frame ids count the recorded types in Suricata's order (a TLS record's header
    /// first); stream offsets count the bytes before the protocol started (SMTP before
    /// STARTTLS); only the types a rule uses are recorded and numbered.
    #[test]
    fn ids_offsets_and_recorded_types() {
        let mut ctx = AppCtx::default();
        let t = |n| FrameType::lookup(RuleApp::Tls, n).unwrap();
        let d = Direction::ToServer;
        let rec = [0x16, 3, 1, 0, 2, 1, 0, 0x15, 3, 3, 0, 2, 2, 40];
        let mut f = FlowFrames::default();
        f.received(d, 31);
        f.received(d, rec.len() as u64);
        f.stream(&mut ctx, AppProto::Tls, d, &rec);
        let got: Vec<_> = f
            .pending_frames(d)
            .map(|(fr, b)| (fr.ty.name(), fr.id, fr.stream_offset, fr.len, b.len()))
            .collect();
        assert_eq!(
            got,
            [
                ("tls.hdr", 1, Some(31), 5, 5),
                ("tls.pdu", 2, Some(31), 7, 7),
                ("tls.data", 3, Some(36), 2, 2),
                ("tls.hdr", 4, Some(38), 5, 5),
                ("tls.pdu", 5, Some(38), 7, 7),
                ("tls.data", 6, Some(43), 2, 2),
                ("tls.alert", 7, Some(43), 2, 2),
            ]
        );
        let five = f.get(d, 5).map(|(fr, b)| (fr.ty, b.to_vec()));
        assert_eq!(five, Some((t("pdu"), rec[7..].to_vec())));
        assert!(f.get(d, 8).is_none());
        let mut set = FrameSet::EMPTY;
        set.insert(t("pdu"));
        ctx.config.frame_types = set;
        let mut g = FlowFrames::default();
        g.received(d, rec.len() as u64);
        g.stream(&mut ctx, AppProto::Tls, d, &rec);
        let got: Vec<_> = g
            .pending_frames(d)
            .map(|(fr, _)| (fr.id, fr.stream_offset))
            .collect();
        assert_eq!(got, [(1, Some(0)), (2, Some(7))]);
        assert!(set.contains(t("pdu")) && !set.contains(t("hdr")));
        // A type no rule uses is not recorded.
        g.datagram(&mut ctx, AppProto::Dns, d, &[1, 2, 3], true);
        assert_eq!(g.pending_frames(d).count(), 2);
    }

    fn names(f: &FlowFrames, dir: Direction) -> Vec<(String, usize)> {
        f.pending(dir)
            .map(|(t, b)| (t.name().to_owned(), b.len()))
            .collect()
    }

    #[test]
    fn tls_records_split_anywhere() {
        let mut ctx = AppCtx::default();
        let mut rec = vec![0x16, 3, 1, 0, 4, 1, 0, 0, 0];
        rec.extend_from_slice(&[0x15, 3, 3, 0, 2, 2, 40]);
        for cut in 0..rec.len() {
            let mut f = FlowFrames::default();
            f.stream(&mut ctx, AppProto::Tls, Direction::ToServer, &rec[..cut]);
            f.stream(&mut ctx, AppProto::Tls, Direction::ToServer, &rec[cut..]);
            let n = names(&f, Direction::ToServer);
            assert_eq!(
                n,
                [
                    ("tls.hdr".into(), 5),
                    ("tls.pdu".into(), 9),
                    ("tls.data".into(), 4),
                    ("tls.hdr".into(), 5),
                    ("tls.pdu".into(), 7),
                    ("tls.data".into(), 2),
                    ("tls.alert".into(), 2),
                ],
                "cut {cut}"
            );
            assert!(!f.has_pending(Direction::ToClient));
            f.inspected(Direction::ToServer);
            assert!(!f.has_pending(Direction::ToServer));
            assert_eq!(f.pending(Direction::ToServer).count(), 0);
            // The next frame reuses the space; only it is pending.
            f.stream(
                &mut ctx,
                AppProto::Tls,
                Direction::ToServer,
                &[0x17, 3, 3, 0, 1, 9],
            );
            let got: Vec<_> = f
                .pending(Direction::ToServer)
                .map(|(_, b)| b.to_vec())
                .collect();
            assert_eq!(
                got,
                [vec![0x17, 3, 3, 0, 1], vec![0x17, 3, 3, 0, 1, 9], vec![9]]
            );
        }
    }

    #[test]
    fn sslv2_stops_framing_a_gap_restarts_it() {
        let mut ctx = AppCtx::default();
        let mut f = FlowFrames::default();
        f.stream(
            &mut ctx,
            AppProto::Tls,
            Direction::ToServer,
            &[0x80, 0x2e, 1, 0, 2, 0x16, 3, 1, 0, 0],
        );
        assert!(!f.has_pending(Direction::ToServer));
        // Half a record, a hole, then a record from its first byte.
        f.stream(
            &mut ctx,
            AppProto::Tls,
            Direction::ToClient,
            &[0x16, 3, 1, 0, 9, 1],
        );
        f.gap(Direction::ToClient, 0);
        f.stream(
            &mut ctx,
            AppProto::Tls,
            Direction::ToClient,
            &[0x17, 3, 3, 0, 0],
        );
        assert_eq!(names(&f, Direction::ToClient)[1], ("tls.pdu".into(), 5));
    }

    #[test]
    fn dns_tcp_message_without_its_length() {
        let mut ctx = AppCtx::default();
        let mut f = FlowFrames::default();
        f.stream(
            &mut ctx,
            AppProto::Dns,
            Direction::ToServer,
            &[0, 3, 0xab, 0xcd, 1, 0, 1],
        );
        let got: Vec<_> = f
            .pending(Direction::ToServer)
            .map(|(_, b)| b.to_vec())
            .collect();
        assert_eq!(got, [vec![0xab, 0xcd, 1]]);
        f.datagram(
            &mut ctx,
            AppProto::Dns,
            Direction::ToClient,
            &[1, 2, 3],
            true,
        );
        assert_eq!(names(&f, Direction::ToClient), [("dns.pdu".into(), 3)]);
    }

    #[test]
    fn smb2_compound_and_limits() {
        let mut ctx = AppCtx::default();
        let mut m1 = vec![0u8; 72];
        m1[..4].copy_from_slice(b"\xfeSMB");
        m1[20] = 72;
        let mut m2 = vec![0u8; 70];
        m2[..4].copy_from_slice(b"\xfeSMB");
        let body = [m1, m2].concat();
        let mut u = vec![0, 0, 0, body.len() as u8];
        u.extend_from_slice(&body);
        let mut f = FlowFrames::default();
        f.stream(&mut ctx, AppProto::Smb, Direction::ToServer, &u);
        let n = names(&f, Direction::ToServer);
        let want: Vec<(String, usize)> = [
            ("smb.nbss.pdu", 146),
            ("smb.nbss.hdr", 4),
            ("smb.nbss.data", 142),
            ("smb.smb2.pdu", 72),
            ("smb.smb2.hdr", 64),
            ("smb.smb2.data", 8),
            ("smb.smb2.pdu", 70),
            ("smb.smb2.hdr", 64),
            ("smb.smb2.data", 6),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), *b))
        .collect();
        assert_eq!(n, want);
        // Past MAX_PENDING frames are dropped and counted.
        for _ in 0..MAX_PENDING {
            f.datagram(&mut ctx, AppProto::Dns, Direction::ToServer, &[0], true);
        }
        assert_eq!(f.pending(Direction::ToServer).count(), MAX_PENDING);
        assert!(ctx.counters.get(Counter::FramesDropped) >= 9);
    }

    /// HTTP/1 messages framed from the parser's ends: pipelined requests apart, a
    /// chunked response with its chunk sizes, split anywhere.
    #[test]
    fn http1_messages_split_anywhere() {
        use crate::http::HttpState;
        let req =
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
        let res = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
        for cut in 0..req.len() {
            let mut ctx = AppCtx::default();
            ctx.config.frames = true;
            let (mut h, mut f) = (HttpState::new(), FlowFrames::default());
            let dir = Direction::ToServer;
            for part in [&req[..cut], &req[cut..]] {
                feed(&mut ctx, &mut h, &mut f, dir, part);
            }
            let dir = Direction::ToClient;
            let c = cut.min(res.len());
            for part in [&res[..c], &res[c..]] {
                feed(&mut ctx, &mut h, &mut f, dir, part);
            }
            let got = |d| {
                f.pending(d)
                    .map(|(t, b)| (t.name().to_owned(), b.to_vec()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                got(Direction::ToServer),
                [
                    ("http1.request".into(), req[..28].to_vec()),
                    ("http1.request".into(), req[28..].to_vec()),
                ],
                "cut {cut}"
            );
            // Each request its transaction and stream offset.
            let at: Vec<_> = f
                .pending_frames(Direction::ToServer)
                .map(|(fr, _)| (fr.id, fr.stream_offset, fr.len, fr.tx_id))
                .collect();
            let n = req.len() as u64;
            assert_eq!(
                at,
                [(1, Some(0), 28, Some(0)), (2, Some(28), n - 28, Some(1))]
            );
            assert_eq!(
                got(Direction::ToClient),
                [("http1.response".into(), res.to_vec())],
                "cut {cut}"
            );
            assert_eq!(f.pending_tx_min(), Some(0));
            f.inspected(Direction::ToServer);
            assert_eq!(f.pending_tx_min(), Some(0), "the response's");
            f.inspected(Direction::ToClient);
            assert_eq!(f.pending_tx_min(), None);
        }
    }

    /// A response that runs until the connection closes is framed when the flow ends.
    #[test]
    fn http1_body_until_close() {
        use crate::http::HttpState;
        let mut ctx = AppCtx::default();
        ctx.config.frames = true;
        let (mut h, mut f) = (HttpState::new(), FlowFrames::default());
        let req = b"GET / HTTP/1.0\r\n\r\n";
        feed(&mut ctx, &mut h, &mut f, Direction::ToServer, req);
        let res = b"\r\nHTTP/1.0 200 OK\r\n\r\nbody";
        feed(&mut ctx, &mut h, &mut f, Direction::ToClient, res);
        assert!(!f.has_pending(Direction::ToClient));
        h.close(&mut ctx);
        f.http(
            &mut ctx,
            Direction::ToClient,
            &[],
            &h.take_ends(Direction::ToClient),
        );
        let got: Vec<_> = f
            .pending(Direction::ToClient)
            .map(|(_, b)| b.to_vec())
            .collect();
        assert_eq!(got, [res[2..].to_vec()]);
    }

    /// A message still open when the flow ends (a response shorter than its
    /// Content-Length) has no frame, nor has one cut by a gap.
    #[test]
    fn http1_truncated_messages_have_no_frame() {
        use crate::http::HttpState;
        let mut ctx = AppCtx::default();
        ctx.config.frames = true;
        let (mut h, mut f) = (HttpState::new(), FlowFrames::default());
        let req = b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHo";
        feed(&mut ctx, &mut h, &mut f, Direction::ToServer, req);
        let res = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc";
        feed(&mut ctx, &mut h, &mut f, Direction::ToClient, res);
        h.close(&mut ctx);
        for dir in [Direction::ToServer, Direction::ToClient] {
            f.http(&mut ctx, dir, &[], &h.take_ends(dir));
        }
        assert_eq!(
            names(&f, Direction::ToServer),
            [("http1.request".into(), 27)]
        );
        assert!(!f.has_pending(Direction::ToClient));
    }

    /// A SIP request's line, headers (without the blank line) and body; a message the
    /// parser refused has only its `sip.pdu`.
    #[test]
    fn sip_message_parts() {
        let mut ctx = AppCtx::default();
        let mut f = FlowFrames::default();
        let m = b"INVITE sip:a SIP/2.0\r\nVia: x\r\nCSeq: 1\r\n\r\nv=0\r\n";
        f.datagram(&mut ctx, AppProto::Sip, Direction::ToServer, m, true);
        let got: Vec<_> = f
            .pending(Direction::ToServer)
            .map(|(t, b)| (t.name().to_owned(), b.to_vec()))
            .collect();
        let want: Vec<(String, Vec<u8>)> = [
            ("sip.pdu", &m[..]),
            ("sip.request.line", &m[..22]),
            ("sip.request.headers", &m[22..39]),
            ("sip.request.body", &m[41..]),
        ]
        .iter()
        .map(|(n, b)| ((*n).to_owned(), b.to_vec()))
        .collect();
        assert_eq!(got, want);
        f.datagram(&mut ctx, AppProto::Sip, Direction::ToClient, m, false);
        assert_eq!(
            names(&f, Direction::ToClient),
            [("sip.pdu".into(), m.len())]
        );
    }

    /// ONC RPC messages of NFS: a call's credentials, a reply's header and data, over
    /// UDP and TCP (the record mark in the pdu and header); a reply to the server is
    /// only a pdu, spanning the rest of its chunk.
    #[test]
    fn nfs_rpc_messages() {
        let mut ctx = AppCtx::default();
        let mut call = vec![0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0x86, 0xa3];
        call.extend_from_slice(&[0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 9, 9, 9, 9]);
        call.extend_from_slice(&[0; 8]);
        let reply = [0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0, 5, 5];
        let mut f = FlowFrames::default();
        let (c, s) = (Direction::ToServer, Direction::ToClient);
        f.datagram(&mut ctx, AppProto::Nfs, c, &call, true);
        f.datagram(&mut ctx, AppProto::Nfs, s, &reply, true);
        let all = |f: &FlowFrames, d| {
            f.pending_frames(d)
                .map(|(fr, b)| (fr.ty.name(), fr.stream_offset, fr.len, b.to_vec()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            all(&f, c),
            [
                ("nfs.rpc.pdu", None, 44, call.clone()),
                ("nfs.rpc.creds", None, 12, call[24..36].to_vec()),
            ]
        );
        assert_eq!(
            all(&f, s),
            [
                ("nfs.rpc.pdu", None, 14, reply.to_vec()),
                ("nfs.rpc.hdr", None, 8, reply[..8].to_vec()),
                ("nfs.rpc.data", None, 6, reply[8..].to_vec()),
            ]
        );
        // TCP: record marks; the client's reply (a callback's) is only its pdu, with
        // the rest of the chunk.
        let mut g = FlowFrames::default();
        let rec = |m: &[u8]| [&(0x8000_0000u32 | m.len() as u32).to_be_bytes()[..], m].concat();
        let chunk = [rec(&reply), rec(&call)].concat();
        g.received(c, chunk.len() as u64);
        g.stream(&mut ctx, AppProto::Nfs, c, &chunk);
        let got: Vec<_> = all(&g, c)
            .into_iter()
            .map(|(n, o, l, _)| (n, o, l))
            .collect();
        assert_eq!(
            got,
            [
                ("nfs.rpc.pdu", Some(0), 66),
                ("nfs.rpc.pdu", Some(18), 48),
                ("nfs.rpc.creds", Some(46), 12),
            ]
        );
        let r = rec(&reply);
        g.received(s, r.len() as u64);
        g.stream(&mut ctx, AppProto::Nfs, s, &r);
        let got: Vec<_> = all(&g, s)
            .into_iter()
            .map(|(n, o, l, _)| (n, o, l))
            .collect();
        assert_eq!(
            got,
            [
                ("nfs.rpc.pdu", Some(0), 18),
                ("nfs.rpc.hdr", Some(0), 12),
                ("nfs.rpc.data", Some(12), 6),
            ]
        );
    }

    #[test]
    fn recorded_types() {
        let t = |p, n| FrameType::lookup(p, n).unwrap();
        assert!(recorded(t(RuleApp::Tls, "pdu")));
        assert!(recorded(t(RuleApp::Smb, "smb3.hdr")));
        assert!(recorded(t(RuleApp::Http1, "request")));
        assert!(recorded(t(RuleApp::Sip, "pdu")));
        assert!(!recorded(t(RuleApp::Mqtt, "pdu")));
        assert!(recorded(t(RuleApp::Nfs, "rpc.creds")));
        assert!(!recorded(t(RuleApp::Nfs, "nfs.pdu")));
        assert!(!recorded(FrameType::stream(RuleApp::Tls)));
    }
}
