//! The per-worker flow tracker: flow table + TCP sessions + stream reassembly +
//! defragmentation, and the per-packet call that detection builds on.
//!
//! Timing follows Suricata in IDS mode:
//! * stream bytes reach the **app layer** once the receiver acknowledged them: a packet
//!   in direction `d` hands the app layer the bytes of the *opposite* stream that its
//!   ACK newly covers ([`Update::app`]);
//! * **raw stream inspection** of direction `d` runs on packets of direction `d`, over
//!   the bytes of that stream already acknowledged by the other side
//!   ([`Update::raw`]) — so an alert on server data lands on the next server packet
//!   after the client's ACK;
//! * when a flow ends (timeout, eviction, end of capture, 5-tuple reuse) whatever is
//!   left is flushed on a pseudo-packet ([`FlowTracker::drain_ended`]): such alerts have
//!   no `pcap_cnt`.

use crate::key::FlowKey;
use crate::reasm::{Chunk, Consumer, InsertOutcome, ReasmLimits, Reassembly};
use crate::table::{FlowTable, FlowValue, Lookup, Slot};
use crate::tcp::{self, Dir, TcpConfig, TcpHeader, TcpSession, TcpState};

const NO_STREAM: u32 = u32::MAX;

/// Flow timeouts of one protocol, in seconds (Suricata's `flow-timeouts.<proto>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// `new`.
    pub new: u32,
    /// `established`.
    pub established: u32,
    /// `closed`.
    pub closed: u32,
    /// `emergency-new`.
    pub emergency_new: u32,
    /// `emergency-established`.
    pub emergency_established: u32,
    /// `emergency-closed`.
    pub emergency_closed: u32,
}

impl Timeouts {
    /// Suricata's defaults for TCP.
    pub const TCP: Timeouts = Timeouts {
        new: 60,
        established: 600,
        closed: 60,
        emergency_new: 5,
        emergency_established: 100,
        emergency_closed: 10,
    };
    /// Suricata's defaults for UDP.
    pub const UDP: Timeouts = Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
    };
    /// Suricata's defaults for ICMP.
    pub const ICMP: Timeouts = Timeouts::UDP;
    /// Suricata's defaults for any other protocol.
    pub const DEFAULT: Timeouts = Timeouts::UDP;

    fn get(&self, class: u8, emergency: bool) -> u32 {
        match (class, emergency) {
            (0, false) => self.new,
            (1, false) => self.established,
            (_, false) => self.closed,
            (0, true) => self.emergency_new,
            (1, true) => self.emergency_established,
            (_, true) => self.emergency_closed,
        }
    }
}

/// Configuration of a [`FlowTracker`] (defaults are Suricata 7's).
#[derive(Clone, Debug)]
pub struct Config {
    /// Most flows held (Suricata derives it from `flow.memcap`, 128 MB).
    pub max_flows: usize,
    /// Hash buckets (`flow.hash-size`).
    pub hash_size: usize,
    /// Timeouts for TCP, UDP, ICMP, other.
    pub timeouts: [Timeouts; 4],
    /// TCP options.
    pub tcp: TcpConfig,
    /// Reassembly limits and overlap policy.
    pub reassembly: ReasmLimits,
    /// Reassembly memory cap in bytes (`stream.reassembly.memcap`, 256 MB).
    pub reassembly_memcap: usize,
    /// Defragmentation limits.
    pub defrag: crate::defrag::DefragConfig,
    /// `stream.midstream-policy` is `bypass` or `pass-flow`: a TCP flow whose first
    /// packet cannot start a session (pick-up off), or that is picked up midstream
    /// (pick-up on), is bypassed.
    pub midstream_bypass: bool,
    /// `stream.midstream-policy` is `drop-flow`, `drop-packet` or `reject` inline: a
    /// TCP flow whose first packet cannot start a session (pick-up off) is stopped
    /// (no app layer, no detection; nothing reaches the other side).
    pub midstream_drop: bool,
    /// Inline stream mode (`stream.inline`): stream bytes reach the app layer and raw
    /// inspection when they arrive in order, on the packet carrying them, without
    /// waiting for the receiver's ACK; [`Update::app`] is then the packet's own stream.
    pub inline: bool,
    /// TCP session memory cap in bytes (`stream.memcap`, 64 MB): each session counts
    /// [`SESSION_BYTES`]; a session that would pass the cap is not created.
    pub ssn_memcap: usize,
    /// Counter suffix of the midstream policy (`bypass`, `drop_flow`, ...): the
    /// `tcp.midstream_exception_policy.*` counter it is counted under.
    pub midstream_policy_name: &'static str,
    /// `vlan.use-for-tracking`: VLAN ids are part of the flow key (Suricata's default);
    /// when off, both directions of a flow meet whatever their VLAN tags.
    pub vlan_tracking: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_flows: (128 << 20) / 512,
            hash_size: 65536,
            timeouts: [
                Timeouts::TCP,
                Timeouts::UDP,
                Timeouts::ICMP,
                Timeouts::DEFAULT,
            ],
            tcp: TcpConfig::default(),
            reassembly: ReasmLimits::default(),
            reassembly_memcap: 256 << 20,
            defrag: crate::defrag::DefragConfig::default(),
            midstream_bypass: false,
            midstream_drop: false,
            inline: false,
            ssn_memcap: 64 << 20,
            midstream_policy_name: "bypass",
            vlan_tracking: true,
        }
    }
}

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
    streams: u32,
    /// Flow-level state.
    pub state: FlowState,
    /// The flow is bypassed (exception policy): no app layer, no detection.
    pub bypassed: bool,
    /// The bypass is a drop (`stream.midstream-policy` drop-flow/reject inline): the
    /// flow's packets are also not forwarded.
    pub dropped: bool,
    /// The client is the canonical key's *destination* (set from the first packet).
    client_is_dst: bool,
    /// Timeout class index: 0 TCP, 1 UDP, 2 ICMP, 3 other.
    proto_class: u8,
    /// Copy of the owning tracker's timeouts for this protocol class, set on creation.
    timeouts: Option<Timeouts>,
}

impl FlowValue for Flow {
    fn timeout_secs(&self, emergency: bool) -> u32 {
        self.timeouts
            .unwrap_or(Timeouts::DEFAULT)
            .get(self.state as u8, emergency)
    }
}

/// The TCP fields and payload of one packet, the input of [`FlowTracker::packet`].
#[derive(Clone, Copy, Debug)]
pub struct PacketInfo<'a> {
    /// Key as seen on the packet (source → destination).
    pub key: FlowKey,
    /// Capture time, microseconds.
    pub ts_us: u64,
    /// Bytes of the packet counted for the flow (IP length).
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
    pub dir: Dir,
    chunks: &'a [Chunk],
    stream: Option<&'a Reassembly>,
}

impl<'a> StreamData<'a> {
    fn empty(dir: Dir) -> StreamData<'a> {
        StreamData {
            dir,
            chunks: &[],
            stream: None,
        }
    }

    /// True when there is nothing new.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
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

/// Result of [`FlowTracker::packet`].
#[derive(Debug)]
pub struct Update<'a> {
    /// The flow's slot (stable while the flow lives).
    pub slot: Slot,
    /// Direction of the packet.
    pub dir: Dir,
    /// What happened.
    pub events: Events,
    /// The flow after this packet.
    pub flow: &'a Flow,
    /// Bytes of the *opposite* stream newly acknowledged by this packet: the app-layer
    /// input (IDS mode); in inline mode, this packet's own stream's new in-order bytes.
    pub app: StreamData<'a>,
    /// Bytes of this packet's own stream, acknowledged by the other side and not yet
    /// raw-inspected: raw stream inspection input.
    pub raw: StreamData<'a>,
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
    /// Remaining data per direction ([`Dir::index`]): app layer.
    pub app: [StreamData<'a>; 2],
    /// Remaining data per direction: raw inspection.
    pub raw: [StreamData<'a>; 2],
}

/// Memory a TCP session counts against `stream.memcap` (about Suricata's session
/// size): at the defaults, 64 MB holds as many sessions as the flow table holds flows.
pub const SESSION_BYTES: usize = 256;

/// Conditions forced on the next packet (Suricata's `--simulate-*` fault injection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Simulated {
    /// The flow table is full: no flow for the packet.
    pub flow_memcap: bool,
    /// No memory for a new session: a session the packet would start is not created.
    pub ssn_memcap: bool,
    /// No reassembly memory: the packet's segment is refused.
    pub reassembly_memcap: bool,
}

/// Tracker counters (see [`FlowTracker::counters`] for their names).
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    flow_total: u64,
    flow_proto: [u64; 5],
    tcp_reuse: u64,
    end_state: [u64; 3],
    end_tcp_state: [u64; 11],
    sessions: u64,
    midstream: u64,
    midstream_exception: u64,
    syn: u64,
    synack: u64,
    rst: u64,
    gaps: u64,
    overlap: u64,
    overlap_diff: u64,
    depth_reached: u64,
    segment_memcap_drop: u64,
    ssn_memcap_drop: u64,
    ack_unseen: u64,
    pseudo: u64,
    out_of_window: u64,
    no_flow: u64,
}

/// The per-worker tracker. One per worker thread; nothing in it is shared.
pub struct FlowTracker {
    cfg: Config,
    table: FlowTable<Flow>,
    streams: Vec<[Reassembly; 2]>,
    free_streams: Vec<u32>,
    reasm_memuse: usize,
    defrag: crate::defrag::Defrag,
    /// Scratch chunk lists: app, raw, and two more for flushes.
    scratch: [Vec<Chunk>; 4],
    stats: Stats,
    last_ts: u64,
    /// Sessions alive, counted against `stream.memcap`.
    sessions_alive: usize,
    /// Conditions forced on the next packet.
    simulated: Simulated,
}

fn proto_class(proto: u8) -> (u8, usize) {
    match proto {
        6 => (0, 0),
        17 => (1, 1),
        1 => (2, 2),
        58 => (2, 3),
        _ => (3, 4),
    }
}

impl FlowTracker {
    /// A tracker with this configuration; the flow entries are allocated now.
    pub fn new(cfg: Config) -> FlowTracker {
        FlowTracker {
            table: FlowTable::new(cfg.max_flows, cfg.hash_size),
            defrag: crate::defrag::Defrag::new(cfg.defrag),
            cfg,
            streams: Vec::new(),
            free_streams: Vec::new(),
            reasm_memuse: 0,
            scratch: Default::default(),
            stats: Stats::default(),
            last_ts: 0,
            sessions_alive: 0,
            simulated: Simulated::default(),
        }
    }

    /// The defragmenter (IP fragments go here before flow tracking).
    pub fn defrag(&mut self) -> &mut crate::defrag::Defrag {
        &mut self.defrag
    }

    /// Flows held now.
    pub fn active_flows(&self) -> usize {
        self.table.len()
    }

    /// Bytes held by stream reassembly.
    pub fn reassembly_memuse(&self) -> usize {
        self.reasm_memuse
    }

    /// The flow in `slot`.
    pub fn flow(&self, slot: Slot) -> &Flow {
        &self.table.entry(slot).value
    }

    /// Canonical key of the flow in `slot`.
    pub fn key(&self, slot: Slot) -> &FlowKey {
        &self.table.entry(slot).key
    }

    fn free_stream_pair(&mut self, i: u32) {
        if let Some(pair) = self.streams.get_mut(i as usize) {
            for r in pair.iter_mut() {
                self.reasm_memuse = self.reasm_memuse.saturating_sub(r.free());
            }
            self.free_streams.push(i);
        }
    }

    /// Forces conditions on the next [`packet`](Self::packet) call (fault injection
    /// for testing the exception policies, like Suricata's `--simulate-*` options).
    pub fn simulate(&mut self, s: Simulated) {
        self.simulated = s;
    }

    /// Bypasses the flow in `slot` (exception policy `bypass`): its later packets get
    /// no app layer and no detection.
    pub fn set_bypassed(&mut self, slot: Slot) {
        self.table.entry_mut(slot).value.bypassed = true;
    }

    /// Bytes of session memory in use (`stream.memcap`).
    pub fn session_memuse(&self) -> usize {
        self.sessions_alive * SESSION_BYTES
    }

    /// Hints that a packet of `key` comes soon: brings its bucket and the first entry
    /// of the bucket's chain into the cache (a batch looks up its flows ahead).
    pub fn prefetch(&self, key: &FlowKey) {
        let mut key = *key;
        if !self.cfg.vlan_tracking {
            key.vlan = [0; 3];
        }
        let (canon, _) = key.canonical();
        self.table.prefetch(canon.hash());
    }

    /// An app-layer message of direction `dir` of the flow in `slot` ended: raw
    /// inspection of that stream runs at its next packet whatever the amount of data.
    pub fn trigger_raw(&mut self, slot: Slot, dir: Dir) {
        let f = &self.table.entry(slot).value;
        if f.streams != NO_STREAM {
            self.streams[f.streams as usize][dir.index()].trigger_raw = true;
        }
    }

    /// True when the flow of `key` (either direction) is tracked now.
    pub fn has_flow(&self, key: &FlowKey) -> bool {
        let mut key = *key;
        if !self.cfg.vlan_tracking {
            key.vlan = [0; 3];
        }
        let (canon, _) = key.canonical();
        self.table.find(&canon, canon.hash()).is_some()
    }

    /// Track one packet. Returns `None` when the flow table is full (counted).
    /// The engine must call [`FlowTracker::drain_ended`] when
    /// [`FlowTracker::has_ended`] says flows ended (lazily deleted, evicted, reused).
    pub fn packet(&mut self, p: &PacketInfo<'_>) -> Option<Update<'_>> {
        self.last_ts = self.last_ts.max(p.ts_us);
        let sim = std::mem::take(&mut self.simulated);
        let mut key = p.key;
        if !self.cfg.vlan_tracking {
            key.vlan = [0; 3];
        }
        let (canon, swapped) = key.canonical();
        let hash = canon.hash();
        let mut events = 0u16;
        if sim.flow_memcap && self.table.find(&canon, hash).is_none() {
            self.stats.no_flow += 1;
            return None;
        }
        let mut lookup = self.table.lookup_or_insert(&canon, hash, p.ts_us);
        // A SYN that reuses the tuple of a finished TCP session ends it and starts anew.
        if let (Lookup::Found(slot), Some(h)) = (lookup, p.tcp.as_ref()) {
            let f = &self.table.entry(slot).value;
            let d = dir_of(f, swapped);
            if h.has(tcp::flags::SYN) && !h.has(tcp::flags::ACK) && f.tcp.syn_reuses(d, h.seq) {
                self.table.entry_mut(slot).value.tcp.state = f.tcp.state;
                self.end_with(slot, EndReason::Reused);
                self.stats.tcp_reuse += 1;
                events |= Events::REUSED;
                lookup = self.table.lookup_or_insert(&canon, hash, p.ts_us);
            }
        }
        let slot = match lookup {
            Lookup::Found(s) => s,
            Lookup::Inserted(s) => {
                events |= Events::NEW_FLOW;
                let (class, counter) = proto_class(canon.proto);
                self.stats.flow_total += 1;
                self.stats.flow_proto[counter] += 1;
                let timeouts = self.cfg.timeouts[class as usize];
                let f = &mut self.table.entry_mut(s).value;
                f.first_us = p.ts_us;
                f.streams = NO_STREAM;
                f.proto_class = class;
                f.timeouts = Some(timeouts);
                // The sender of the first packet is the client, except that a first
                // SYN/ACK comes from the server.
                let synack = p
                    .tcp
                    .is_some_and(|h| h.has(tcp::flags::SYN | tcp::flags::ACK));
                f.client_is_dst = swapped ^ synack;
                s
            }
            Lookup::Full => {
                self.stats.no_flow += 1;
                return None;
            }
        };
        let entry = self.table.entry_mut(slot);
        // Like Suricata, the last-seen time follows the packet even if time goes back.
        entry.last_us = p.ts_us;
        let f = &mut entry.value;
        let dir = dir_of(f, swapped);
        let di = dir.index();
        f.pkts[di] = f.pkts[di].saturating_add(1);
        f.bytes[di] += p.len as u64;
        let mut app = StreamData::empty(dir.opposite());
        let mut raw = StreamData::empty(dir);
        let mut own_app = self.cfg.inline;
        let [sa, sr, _, _] = &mut self.scratch;
        sa.clear();
        sr.clear();
        match p.tcp {
            // A packet without TCP header in a TCP flow (an ICMP error quoting it)
            // changes no state.
            None if canon.proto == 6 => {}
            None => {
                if f.state == FlowState::New && f.pkts[0] > 0 && f.pkts[1] > 0 {
                    f.state = FlowState::Established;
                    events |= Events::ESTABLISHED;
                }
            }
            Some(h) => {
                if h.has(tcp::flags::SYN) {
                    if h.has(tcp::flags::ACK) {
                        self.stats.synack += 1;
                    } else {
                        self.stats.syn += 1;
                    }
                }
                if h.has(tcp::flags::RST) {
                    self.stats.rst += 1;
                }
                let before = f.tcp;
                if before.state == TcpState::Closed {
                    events |= Events::AFTER_CLOSE;
                }
                let mut st = f.tcp.step(&self.cfg.tcp, dir, &h, p.payload.len());
                // Session memory cap: the session is not created (the flow stays
                // without one, as after a refused pick-up).
                if st.created
                    && (sim.ssn_memcap
                        || self.sessions_alive * SESSION_BYTES + SESSION_BYTES
                            > self.cfg.ssn_memcap)
                {
                    f.tcp = before;
                    st = Default::default();
                    events |= Events::SSN_MEMCAP;
                    self.stats.ssn_memcap_drop += 1;
                } else if st.created {
                    self.sessions_alive += 1;
                }
                // Midstream exception policy: a first packet that is not a SYN. With
                // pick-up off no session starts (bypass, pass-flow or, inline, a
                // drop-flow stop the flow); with pick-up on, a session picked up
                // midstream is bypassed under bypass/pass-flow (Suricata 7).
                let first_not_syn =
                    !h.has(tcp::flags::RST) && (!h.has(tcp::flags::SYN) || h.has(tcp::flags::ACK));
                let no_session = f.tcp.state == TcpState::None && !self.cfg.tcp.midstream;
                let picked_up = st.created && f.tcp.midstream;
                if first_not_syn
                    && !f.bypassed
                    && ((no_session && (self.cfg.midstream_bypass || self.cfg.midstream_drop))
                        || (picked_up && self.cfg.midstream_bypass))
                {
                    f.bypassed = true;
                    f.dropped = no_session && self.cfg.midstream_drop;
                    events |= Events::MIDSTREAM_POLICY;
                    self.stats.midstream_exception += 1;
                }
                if st.created {
                    events |= Events::SESSION;
                    self.stats.sessions += 1;
                    self.stats.midstream += f.tcp.midstream as u64;
                }
                if st.established {
                    events |= Events::ESTABLISHED;
                }
                if st.closed {
                    events |= Events::CLOSED;
                }
                if st.ack_unseen {
                    self.stats.ack_unseen += 1;
                }
                f.state = match f.tcp.state.flow_class() {
                    0 => FlowState::New,
                    1 => FlowState::Established,
                    _ => FlowState::Closed,
                };
                if f.tcp.state != TcpState::None {
                    let needs = st.accept_data || f.streams != NO_STREAM;
                    if needs && f.streams == NO_STREAM {
                        let isn = [f.tcp.half[0].isn, f.tcp.half[1].isn];
                        let idx = if let Some(i) = self.free_streams.pop() {
                            self.streams[i as usize][0].reset(isn[0].wrapping_add(1));
                            self.streams[i as usize][1].reset(isn[1].wrapping_add(1));
                            i
                        } else {
                            self.streams.push([
                                Reassembly::new(isn[0].wrapping_add(1)),
                                Reassembly::new(isn[1].wrapping_add(1)),
                            ]);
                            (self.streams.len() - 1) as u32
                        };
                        f.streams = idx;
                    }
                    if f.streams != NO_STREAM {
                        let pair = &mut self.streams[f.streams as usize];
                        // The other side's half may have been learned after the pair
                        // was created (midstream, SYN/ACK): keep the ISN in sync while
                        // nothing is held.
                        for (k, r) in pair.iter_mut().enumerate() {
                            if !r.touched() {
                                r.reset(f.tcp.half[k].isn.wrapping_add(1));
                            }
                        }
                        if st.accept_data && sim.reassembly_memcap && !p.payload.is_empty() {
                            events |= Events::REASSEMBLY_MEMCAP;
                            self.stats.segment_memcap_drop += 1;
                        } else if st.accept_data {
                            // A SYN's data starts after the SYN's own sequence number.
                            let seq = h.seq.wrapping_add(h.has(tcp::flags::SYN) as u32);
                            let o: InsertOutcome = pair[di].insert(
                                seq,
                                p.payload,
                                &self.cfg.reassembly,
                                &mut self.reasm_memuse,
                                self.cfg.reassembly_memcap,
                            );
                            if o.retransmit {
                                events |= Events::RETRANSMISSION;
                            }
                            if o.overlap {
                                events |= Events::OVERLAP;
                                self.stats.overlap += 1;
                            }
                            if o.overlap_diff {
                                events |= Events::OVERLAP_DIFF;
                                self.stats.overlap_diff += 1;
                            }
                            if o.depth_reached {
                                events |= Events::DEPTH_REACHED;
                                self.stats.depth_reached += 1;
                            }
                            if o.memcap_dropped {
                                events |= Events::REASSEMBLY_MEMCAP;
                                self.stats.segment_memcap_drop += 1;
                            }
                            if o.out_of_window {
                                self.stats.out_of_window += 1;
                            }
                        }
                        let oi = dir.opposite().index();
                        if self.cfg.inline {
                            // Inline: this stream's in-order bytes, at arrival.
                            let upto = pair[di].contiguous_end(Consumer::App);
                            pair[di].take(Consumer::App, upto, false, sa);
                            let upto = pair[di].contiguous_end(Consumer::Raw);
                            pair[di].take(Consumer::Raw, upto, false, sr);
                        } else {
                            // An accepted RST hands the app layer its own direction's
                            // stream, which the RST counted as acknowledged (Suricata
                            // updates the packet's direction on an accepted RST, not
                            // the opposite one), so what it carries is inspected on
                            // the RST itself.
                            if st.closed && h.has(tcp::flags::RST) {
                                if let Some(upto) = pair[di].offset_of(f.tcp.half[di].last_ack) {
                                    let g = pair[di].take(Consumer::App, upto, false, sa);
                                    if g > 0 {
                                        events |= Events::GAP;
                                        self.stats.gaps += g as u64;
                                    }
                                }
                                own_app = true;
                            }
                            // App layer: the opposite stream up to what this packet acked.
                            // (Not on a SYN/ACK: like Suricata, the data a SYN carried
                            // reaches the app layer with the server's next ACK.)
                            else if h.has(tcp::flags::ACK)
                                && !h.has(tcp::flags::SYN)
                                && f.tcp.half[oi].flags & tcp::H_ACKED != 0
                            {
                                if let Some(upto) = pair[oi].offset_of(f.tcp.half[oi].last_ack) {
                                    let g = pair[oi].take(Consumer::App, upto, false, sa);
                                    if g > 0 {
                                        events |= Events::GAP;
                                        self.stats.gaps += g as u64;
                                    }
                                }
                            }
                            // Raw: this packet's own stream up to what the other side
                            // acked, like Suricata once a chunk of it is there, an
                            // app-layer message of this direction ended, or the client
                            // started closing the session.
                            if f.tcp.half[di].flags & tcp::H_ACKED != 0 {
                                if let Some(upto) = pair[di].offset_of(f.tcp.half[di].last_ack) {
                                    let due = upto.saturating_sub(pair[di].progress(Consumer::Raw))
                                        >= self.cfg.reassembly.raw_chunk[di];
                                    let closing = matches!(
                                        f.tcp.state,
                                        TcpState::FinWait1
                                            | TcpState::FinWait2
                                            | TcpState::Closing
                                            | TcpState::TimeWait
                                            | TcpState::Closed
                                    );
                                    if due || closing || pair[di].trigger_raw {
                                        pair[di].take(Consumer::Raw, upto, false, sr);
                                        pair[di].trigger_raw = false;
                                    }
                                }
                            }
                            // A one-sided capture of the client (`stream.async-oneside`,
                            // nothing ever seen from the server): no ACK will come, so
                            // the client's FIN hands its stream to the app layer and raw
                            // inspection on the FIN itself (bug-2491-*). A one-sided
                            // server's FIN does not (alert-testmyids-async: the data
                            // waits for the end of the flow).
                            if self.cfg.tcp.async_oneside
                                && dir == Dir::ToServer
                                && h.has(tcp::flags::FIN)
                                && f.pkts[oi] == 0
                                && sa.is_empty()
                            {
                                let upto = pair[di].contiguous_end(Consumer::App);
                                pair[di].take(Consumer::App, upto, false, sa);
                                let upto = pair[di].contiguous_end(Consumer::Raw);
                                pair[di].take(Consumer::Raw, upto, false, sr);
                                own_app = true;
                            }
                        }
                    }
                }
                if st.reuse {
                    // Reuse was handled before the lookup; a reuse seen here means the
                    // lookup raced with a timeout: nothing more to do.
                }
            }
        }
        let entry = self.table.entry(slot);
        let f = &entry.value;
        if f.streams != NO_STREAM {
            let pair = &self.streams[f.streams as usize];
            let app_dir = if own_app { dir } else { dir.opposite() };
            app = StreamData {
                dir: app_dir,
                chunks: &self.scratch[0],
                stream: Some(&pair[app_dir.index()]),
            };
            raw = StreamData {
                dir,
                chunks: &self.scratch[1],
                stream: Some(&pair[dir.index()]),
            };
        }
        Some(Update {
            slot,
            dir,
            events: Events(events),
            flow: f,
            app,
            raw,
        })
    }

    fn end_with(&mut self, slot: Slot, _why: EndReason) {
        self.table.end(slot);
    }

    /// True when ended flows wait for [`FlowTracker::drain_ended`].
    pub fn has_ended(&self) -> bool {
        self.table.has_ended()
    }

    /// End the flows of sweep part `part` (see [`FlowTable::sweep`]) idle past their
    /// timeout at `now_us`, and fragments waiting longer than the defrag timeout (call
    /// periodically with parts 0, 1, 2, ..., like Suricata's flow manager).
    ///
    /// [`FlowTable::sweep`]: crate::table::FlowTable::sweep
    pub fn sweep(&mut self, now_us: u64, part: usize) {
        self.table.sweep(now_us, part);
        self.defrag.expire(now_us);
    }

    /// End every flow (end of capture). Follow with [`FlowTracker::drain_ended`].
    pub fn shutdown(&mut self) {
        self.table.end_all();
    }

    /// Flush and free every ended flow: `f` sees each with whatever stream data its
    /// consumers had not taken yet (the pseudo-packet inspection).
    pub fn drain_ended(&mut self, mut f: impl FnMut(Ended<'_>)) {
        while let Some(slot) = self.table.pop_ended() {
            let (key, flow) = {
                let e = self.table.entry(slot);
                (e.key, e.value)
            };
            self.stats.end_state[flow.state as usize] += 1;
            if flow.tcp.state != TcpState::None {
                self.stats.end_tcp_state[flow.tcp.state as usize] += 1;
                self.sessions_alive = self.sessions_alive.saturating_sub(1);
            }
            let [s0, s1, s2, s3] = &mut self.scratch;
            for s in [&mut *s0, &mut *s1, &mut *s2, &mut *s3] {
                s.clear();
            }
            if flow.streams != NO_STREAM {
                let pair = &mut self.streams[flow.streams as usize];
                let mut any = false;
                for (k, (sa, sr)) in [(&mut *s0, &mut *s2), (&mut *s1, &mut *s3)]
                    .into_iter()
                    .enumerate()
                {
                    // A closed session keeps unacknowledged data from the app layer.
                    let g = if flow.tcp.state == TcpState::Closed {
                        let upto = pair[k].offset_of(flow.tcp.half[k].last_ack).unwrap_or(0);
                        pair[k].take(Consumer::App, upto, false, sa)
                    } else {
                        pair[k].take(Consumer::App, 0, true, sa)
                    };
                    self.stats.gaps += g as u64;
                    pair[k].take(Consumer::Raw, 0, true, sr);
                    any |= !sa.is_empty() || !sr.is_empty();
                }
                if any {
                    self.stats.pseudo += 1;
                }
            }
            {
                let e = self.table.entry(slot);
                let pair =
                    (flow.streams != NO_STREAM).then(|| &self.streams[flow.streams as usize]);
                let [s0, s1, s2, s3] = &self.scratch;
                fn sd<'a>(
                    k: usize,
                    ch: &'a [Chunk],
                    pair: Option<&'a [Reassembly; 2]>,
                ) -> StreamData<'a> {
                    let dir = if k == 0 { Dir::ToServer } else { Dir::ToClient };
                    StreamData {
                        dir,
                        chunks: ch,
                        stream: pair.map(|p| &p[k]),
                    }
                }
                f(Ended {
                    slot,
                    key,
                    client_is_src: !e.value.client_is_dst,
                    flow: &e.value,
                    app: [sd(0, s0, pair), sd(1, s1, pair)],
                    raw: [sd(0, s2, pair), sd(1, s3, pair)],
                });
            }
            if flow.streams != NO_STREAM {
                self.free_stream_pair(flow.streams);
            }
            self.table.release(slot);
        }
    }

    /// Counters under Suricata's names (ours under `osprey.`), defrag included.
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let s = &self.stats;
        let t = self.table.stats();
        let tcp_states = TcpState::ALL
            .into_iter()
            .filter(|st| *st != TcpState::None)
            .map(|st| (end_tcp_state_name(st), s.end_tcp_state[st as usize]));
        [
            ("flow.total", s.flow_total),
            ("flow.tcp", s.flow_proto[0]),
            ("flow.udp", s.flow_proto[1]),
            ("flow.icmpv4", s.flow_proto[2]),
            ("flow.icmpv6", s.flow_proto[3]),
            ("flow.tcp_reuse", s.tcp_reuse),
            ("flow.active", self.table.len() as u64),
            ("flow.emerg_mode_entered", t.emerg_mode_entered),
            ("flow.end.state.new", s.end_state[0]),
            ("flow.end.state.established", s.end_state[1]),
            ("flow.end.state.closed", s.end_state[2]),
            ("flow.mgr.flows_timeout", t.timeouts),
            ("tcp.sessions", s.sessions),
            ("tcp.midstream_pickups", s.midstream),
            ("tcp.ssn_memcap_drop", s.ssn_memcap_drop),
            ("tcp.syn", s.syn),
            ("tcp.synack", s.synack),
            ("tcp.rst", s.rst),
            ("tcp.pseudo", s.pseudo),
            ("tcp.reassembly_gap", s.gaps),
            ("tcp.overlap", s.overlap),
            ("tcp.overlap_diff_data", s.overlap_diff),
            ("tcp.stream_depth_reached", s.depth_reached),
            ("tcp.segment_memcap_drop", s.segment_memcap_drop),
            ("tcp.ack_unseen_data", s.ack_unseen),
            ("tcp.reassembly_memuse", self.reasm_memuse as u64),
            ("osprey.flow.emergency_evicted", t.emergency_evicted),
            ("osprey.flow.table_full", s.no_flow),
            ("osprey.tcp.out_of_window", s.out_of_window),
        ]
        .into_iter()
        .chain(tcp_states)
        .chain(self.midstream_counter())
        .chain(self.defrag.counters())
    }
}

impl FlowTracker {
    /// `tcp.midstream_exception_policy.<policy>` when a midstream policy is set.
    fn midstream_counter(&self) -> Option<(&'static str, u64)> {
        if !(self.cfg.midstream_bypass || self.cfg.midstream_drop) {
            return None;
        }
        let name = match self.cfg.midstream_policy_name {
            "drop_flow" => "tcp.midstream_exception_policy.drop_flow",
            "reject" => "tcp.midstream_exception_policy.reject",
            "pass_flow" => "tcp.midstream_exception_policy.pass_flow",
            "drop_packet" => "tcp.midstream_exception_policy.drop_packet",
            _ => "tcp.midstream_exception_policy.bypass",
        };
        Some((name, self.stats.midstream_exception))
    }

    /// Packets the midstream policy was applied to.
    pub fn midstream_exceptions(&self) -> u64 {
        self.stats.midstream_exception
    }

    /// The configuration the tracker runs with.
    pub fn config(&self) -> &Config {
        &self.cfg
    }
}

fn end_tcp_state_name(st: TcpState) -> &'static str {
    match st {
        TcpState::None => "flow.end.tcp_state.none",
        TcpState::SynSent => "flow.end.tcp_state.syn_sent",
        TcpState::SynRecv => "flow.end.tcp_state.syn_recv",
        TcpState::Established => "flow.end.tcp_state.established",
        TcpState::FinWait1 => "flow.end.tcp_state.fin_wait1",
        TcpState::FinWait2 => "flow.end.tcp_state.fin_wait2",
        TcpState::Closing => "flow.end.tcp_state.closing",
        TcpState::CloseWait => "flow.end.tcp_state.close_wait",
        TcpState::LastAck => "flow.end.tcp_state.last_ack",
        TcpState::TimeWait => "flow.end.tcp_state.time_wait",
        TcpState::Closed => "flow.end.tcp_state.closed",
    }
}

/// Direction of a packet whose key was `swapped` to canonical form.
fn dir_of(f: &Flow, swapped: bool) -> Dir {
    // The packet's source is the canonical destination when swapped.
    let src_is_client = swapped == f.client_is_dst;
    if src_is_client {
        Dir::ToServer
    } else {
        Dir::ToClient
    }
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;
