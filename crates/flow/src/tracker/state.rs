//! What the tracker keeps per flow, what it is given per packet and what it hands back:
//! the flow entry, the packet input, the per-packet events and update, the stream data
//! handed to the consumers and the flows that ended.

use super::Timeouts;
use crate::key::FlowKey;
use crate::reasm::{Chunk, Reassembly};
use crate::table::{FlowValue, Slot};
use crate::tcp::{Direction, TcpHeader, TcpSession};

/// Flow-level state (Suricata's `flow.end.state.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum FlowState {
    /// Packets seen in one direction only / handshake not complete.
    #[default]
    New = 0,
    /// Both directions seen / TCP established.
    Established = 1,
    /// TCP closing or closed.
    Closed = 2,
}

/// Per-flow state stored in the table entry (hot data only; see the size test).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flow {
    /// Time of the first packet, microseconds.
    pub first_us: u64,
    /// Bytes per direction.
    pub bytes: [u64; 2],
    /// Packets per direction.
    pub pkts: [u32; 2],
    /// TCP session state (zeroed for other protocols).
    pub tcp: TcpSession,
    /// Index of the out-of-line stream pair, or none.
    pub(super) streams: u32,
    /// Flow-level state.
    pub state: FlowState,
    /// The flow is bypassed (Suricata's local bypass: an exception policy or a rule
    /// with `bypass`): its later packets are counted but reach neither the stream
    /// engine, the app layer nor detection, and it times out after `bypassed`.
    pub bypassed: bool,
    /// The bypass is a drop (`stream.midstream-policy` drop-flow/reject inline): the
    /// flow's packets are also not forwarded.
    pub dropped: bool,
    /// `stream.midstream-policy` (`bypass` or `pass-flow`) stopped the flow: Suricata's
    /// flow action `pass` (the EVE flow record's `"action": "pass"`).
    pub midstream_pass: bool,
    /// ... with `pass-flow`: the flow is not locally bypassed (its packets are still
    /// tracked, nothing is counted as bypassed, its state stays its own).
    pub pass_flow: bool,
    /// TCP flags seen per direction ([`Direction::index`]) since the session exists
    /// (Suricata's `tcp_flags_ts` / `tcp_flags_tc`; zero without a session).
    pub tcp_flags: [u8; 2],
    /// Per direction: the app layer was handed a gap of that stream.
    pub gaps: [bool; 2],
    /// The client is the canonical key's *destination* (set from the first packet).
    pub(super) client_is_dst: bool,
    /// Timeout class index: 0 TCP, 1 UDP, 2 ICMP, 3 other.
    pub(super) proto_class: u8,
    /// Copy of the owning tracker's timeouts for this protocol class, set on creation.
    pub(super) timeouts: Option<Timeouts>,
}

impl Flow {
    /// The flow is bypassed and not dropped (Suricata's `local_bypassed` state): its
    /// packets are counted, not processed.
    pub fn locally_bypassed(&self) -> bool {
        self.bypassed && !self.dropped && !self.pass_flow
    }
}

impl FlowValue for Flow {
    fn timeout_secs(&self, emergency: bool) -> u32 {
        let class = if self.locally_bypassed() {
            super::config::BYPASSED
        } else {
            self.state as u8
        };
        self.timeouts
            .unwrap_or(Timeouts::DEFAULT)
            .get(class, emergency)
    }
}

/// The TCP fields and payload of one packet, the input of [`FlowTracker::packet`](super::FlowTracker::packet).
#[derive(Clone, Copy, Debug)]
pub struct PacketInfo<'a> {
    /// Key as seen on the packet (source → destination).
    pub key: FlowKey,
    /// Capture time, microseconds.
    pub ts_us: u64,
    /// Bytes of the packet counted for the flow (Suricata's packet length: the captured
    /// frame, or a tunnelled packet from its first layer on).
    pub len: u32,
    /// TCP header fields (`None` for other protocols).
    pub tcp: Option<TcpHeader>,
    /// Transport payload.
    pub payload: &'a [u8],
}

/// Events of one packet on its flow (bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events(pub u16);

impl Events {
    /// The packet created the flow.
    pub const NEW_FLOW: u16 = 1;
    /// The flow became established (TCP handshake complete; others: reply seen).
    pub const ESTABLISHED: u16 = 2;
    /// The TCP session closed (FIN exchange finished or RST).
    pub const CLOSED: u16 = 4;
    /// A TCP session was created (SYN or midstream pick-up).
    pub const SESSION: u16 = 8;
    /// A SYN reused the 5-tuple of a finished session: the old flow ended, this one is new.
    pub const REUSED: u16 = 16;
    /// The payload overlapped stream data already held.
    pub const OVERLAP: u16 = 32;
    /// The overlapping bytes differed from the ones held.
    pub const OVERLAP_DIFF: u16 = 64;
    /// The stream of this direction reached the reassembly depth.
    pub const DEPTH_REACHED: u16 = 128;
    /// A gap was skipped in the stream handed to the app layer.
    pub const GAP: u16 = 256;
    /// The payload repeated stream bytes already consumed (retransmission).
    pub const RETRANSMISSION: u16 = 512;
    /// The segment was refused: reassembly memory cap (`stream.reassembly.memcap`).
    pub const REASSEMBLY_MEMCAP: u16 = 1024;
    /// No session could be created: session memory cap (`stream.memcap`).
    pub const SSN_MEMCAP: u16 = 2048;
    /// `stream.midstream-policy` was applied to this packet (the flow's first packet
    /// that is not a SYN): the flow is bypassed, or dropped when [`Flow::dropped`].
    pub const MIDSTREAM_POLICY: u16 = 4096;
    /// The packet came on a TCP session already closed: as in Suricata, the stream
    /// engine takes none of its payload (payload rules inspect the packet itself).
    pub const AFTER_CLOSE: u16 = 8192;
    /// The packet is a SYN whose payload the stream took (TCP Fast Open): as in
    /// Suricata, stream-capable payload rules skip the packet's own payload.
    pub const TFO_DATA: u16 = 16384;
    /// Inline mode: the payload overlapped stream data held with other bytes and was
    /// rewritten to them ([`Update::rewritten`]; Suricata's `ips.replaced`).
    pub const REWRITTEN: u16 = 32768;

    /// True when bit `b` is set.
    pub fn has(self, b: u16) -> bool {
        self.0 & b != 0
    }
}

/// One piece of stream data handed to a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Bytes starting at stream offset `offset` (0 = first byte after the ISN).
    Data {
        /// Stream offset.
        offset: u64,
        /// The bytes, borrowed from the reassembly buffer.
        bytes: &'a [u8],
    },
    /// Bytes the receiver acknowledged that the capture never showed.
    Gap {
        /// Stream offset.
        offset: u64,
        /// Length.
        len: u64,
    },
}

/// New stream data of one direction for one consumer.
#[derive(Clone, Copy, Debug)]
pub struct StreamData<'a> {
    /// Direction of the stream (who sent these bytes).
    pub dir: Direction,
    pub(super) chunks: &'a [Chunk],
    pub(super) stream: Option<&'a Reassembly>,
}

impl<'a> StreamData<'a> {
    pub(super) fn empty(dir: Direction) -> StreamData<'a> {
        StreamData {
            dir,
            chunks: &[],
            stream: None,
        }
    }

    /// Inline mode: the stream offset where an alert's logged stream starts
    /// ([`Reassembly::log_from`]); 0 in IDS mode.
    pub fn log_from(&self) -> u64 {
        self.stream.map_or(0, Reassembly::log_from)
    }

    /// True when there is nothing new.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The stream's [`Reassembly::rewrites`](crate::reasm::Reassembly::rewrites) count
    /// (0 without a stream).
    pub fn rewrites(&self) -> u32 {
        self.stream.map_or(0, |s| s.rewrites())
    }

    /// The stream offset of the first byte when the pieces are data without a gap
    /// between or among them (their bytes, joined, are the stream from there); `None`
    /// when empty or when a gap is among them.
    pub fn contiguous_from(&self) -> Option<u64> {
        let mut first = None;
        for c in self.chunks {
            match *c {
                Chunk::Data { offset, .. } => {
                    first.get_or_insert(offset);
                }
                Chunk::Gap { .. } => return None,
            }
        }
        first
    }

    /// The pieces, in stream order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece<'a>> + '_ {
        let s = self.stream;
        self.chunks.iter().map(move |c| match *c {
            Chunk::Data { offset, .. } => Piece::Data {
                offset,
                bytes: s.map_or(&[][..], |s| s.chunk_bytes(c)),
            },
            Chunk::Gap { offset, len } => Piece::Gap { offset, len },
        })
    }

    /// Total new bytes (gaps excluded).
    pub fn data_len(&self) -> u64 {
        self.chunks
            .iter()
            .map(|c| match c {
                Chunk::Data { len, .. } => *len as u64,
                Chunk::Gap { .. } => 0,
            })
            .sum()
    }
}

/// Result of [`FlowTracker::packet`](super::FlowTracker::packet).
#[derive(Debug)]
pub struct Update<'a> {
    /// The flow's slot (stable while the flow lives).
    pub slot: Slot,
    /// Direction of the packet.
    pub dir: Direction,
    /// What happened.
    pub events: Events,
    /// Inline mode: the packet's payload as the stream holds it, when some of its
    /// bytes overlapped data received first with other bytes (Suricata's inline
    /// normalization: the packet inspected, logged and forwarded carries the first
    /// data). `None` when the payload stands as it came.
    pub rewritten: Option<&'a [u8]>,
    /// The TCP stream events raised on this packet (`stream-event` rules, EVE
    /// `anomaly` records of type `stream`).
    pub stream_events: wire::StreamEvents,
    /// The flow after this packet.
    pub flow: &'a Flow,
    /// Bytes of the *opposite* stream newly acknowledged by this packet: the app-layer
    /// input (IDS mode); in inline mode, this packet's own stream's new in-order bytes.
    pub app: StreamData<'a>,
    /// Bytes of this packet's own stream, acknowledged by the other side and not yet
    /// raw-inspected: raw stream inspection input.
    pub raw: StreamData<'a>,
    /// The stream offset from which this packet's whole payload was stored in its
    /// direction's stream as new bytes (no overlap, retransmission, trim or drop);
    /// `None` otherwise. Those bytes stay the stream's while
    /// [`StreamData::rewrites`] of [`Self::raw`] is unchanged.
    pub payload_at: Option<u64>,
}

/// Why a flow ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Idle past its timeout (lazy deletion or sweep).
    Timeout,
    /// Evicted because the table was full.
    Emergency,
    /// A SYN reused its 5-tuple.
    Reused,
    /// End of capture / shutdown.
    Shutdown,
}

/// A flow that ended, with its remaining stream data flushed (pseudo-packets).
#[derive(Debug)]
pub struct Ended<'a> {
    /// The flow's slot (freed after the callback returns).
    pub slot: Slot,
    /// Canonical key.
    pub key: FlowKey,
    /// True when the client is the canonical key's source.
    pub client_is_src: bool,
    /// The flow.
    pub flow: &'a Flow,
    /// Remaining data per direction ([`Direction::index`]): app layer.
    pub app: [StreamData<'a>; 2],
    /// Remaining data per direction: raw inspection.
    pub raw: [StreamData<'a>; 2],
    /// Why it ended.
    pub reason: EndReason,
    /// The flow table was in emergency mode (short timeouts) when it ended.
    pub emergency: bool,
    /// Time of its last packet, microseconds.
    pub last_us: u64,
}
