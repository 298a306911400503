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

mod config;
mod counters;
mod drain;
mod state;

pub use config::{Config, Simulated, Timeouts, SESSION_BYTES};
pub use counters::Stats;
pub use state::{EndReason, Ended, Events, Flow, FlowState, PacketInfo, Piece, StreamData, Update};

use crate::key::FlowKey;
use crate::reasm::{Chunk, Consumer, InsertOutcome, Reassembly};
use crate::table::{FlowTable, Lookup, Slot};
use crate::tcp::{self, Direction, TcpState};

const NO_STREAM: u32 = u32::MAX;

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
    /// Inline mode: the payload of the packet being processed as rewritten to the
    /// stream's first data ([`Update::rewritten`]).
    rewrite: Vec<u8>,
    stats: Stats,
    last_ts: u64,
    /// Sessions alive, counted against `stream.memcap`.
    sessions_alive: usize,
    /// The stream pair the previous packet used: trimmed at the next packet, once the
    /// chunks handed out with the previous [`Update`] are no longer read.
    last_pair: u32,
    /// Conditions forced on the next packet.
    simulated: Simulated,
    /// Every flow was ended by [`FlowTracker::shutdown`]: the ones drained next ended
    /// by shutdown.
    shutting_down: bool,
    /// The tracker's current time: that of the latest packet or sweep (it follows the
    /// capture's clock, backwards too).
    now_us: u64,
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
    pub fn new(mut cfg: Config) -> FlowTracker {
        cfg.tcp.inline = cfg.inline;
        FlowTracker {
            table: FlowTable::new(cfg.max_flows, cfg.hash_size)
                .with_shared(cfg.shared.clone(), cfg.emergency_recovery),
            defrag: crate::defrag::Defrag::with_shared(cfg.defrag, cfg.shared.clone())
                .with_host_policy(cfg.host_policy.clone()),
            cfg,
            streams: Vec::new(),
            free_streams: Vec::new(),
            reasm_memuse: 0,
            scratch: Default::default(),
            rewrite: Vec::new(),
            stats: Stats::default(),
            last_ts: 0,
            sessions_alive: 0,
            last_pair: NO_STREAM,
            simulated: Simulated::default(),
            shutting_down: false,
            now_us: 0,
        }
    }

    /// The current time, microseconds: that of the latest packet tracked or of the
    /// latest sweep, whichever came last (when flows ended, as Suricata's flow
    /// records say).
    pub fn now_us(&self) -> u64 {
        self.now_us
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
                let freed = r.free();
                self.reasm_memuse = self.reasm_memuse.saturating_sub(freed);
                // At shutdown the share stays taken (see `FlowTable::end_all`).
                if !self.shutting_down {
                    self.cfg.shared.reassembly.give(freed);
                }
            }
            self.free_streams.push(i);
        }
    }

    /// Releases what both consumers of the previous packet's streams are past.
    fn trim_last_pair(&mut self) {
        let i = std::mem::replace(&mut self.last_pair, NO_STREAM);
        if let Some(pair) = self.streams.get_mut(i as usize) {
            for r in pair.iter_mut() {
                let freed = r.trim();
                self.reasm_memuse = self.reasm_memuse.saturating_sub(freed);
                self.cfg.shared.reassembly.give(freed);
            }
        }
    }

    /// Forces conditions on the next [`packet`](Self::packet) call (fault injection
    /// for testing the exception policies, like Suricata's `--simulate-*` options).
    pub fn simulate(&mut self, s: Simulated) {
        self.simulated = s;
    }

    /// Bypasses the flow in `slot` (exception policy `bypass`, a `bypass` rule): its
    /// later packets are only counted (see [`Flow::bypassed`]).
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
    pub fn trigger_raw(&mut self, slot: Slot, dir: Direction) {
        let f = &self.table.entry(slot).value;
        if f.streams != NO_STREAM {
            self.streams[f.streams as usize][dir.index()].trigger_raw = true;
        }
    }

    /// Gives both streams of the flow in `slot` a depth of their own (its app-layer
    /// protocol's `stream-depth`, 0 = unlimited) instead of `stream.reassembly.depth`.
    pub fn set_stream_depth(&mut self, slot: Slot, depth: u64) {
        let f = &self.table.entry(slot).value;
        if f.streams != NO_STREAM {
            for r in &mut self.streams[f.streams as usize] {
                r.depth = Some(depth);
            }
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
        self.trim_last_pair();
        self.last_ts = self.last_ts.max(p.ts_us);
        self.now_us = p.ts_us;
        let sim = std::mem::take(&mut self.simulated);
        let mut key = p.key;
        if !self.cfg.vlan_tracking {
            key.vlan = [0; 3];
        }
        let (canon, swapped) = key.canonical();
        let hash = canon.hash();
        let mut events = 0u16;
        let mut stream_events = wire::StreamEvents::NONE;
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
                // SYN/ACK comes from the server when the session is picked up from it
                // (`stream.midstream` or `async-oneside`). Without either, Suricata
                // keeps the first packet's sender as the client, and so does Osprey.
                let tcp_cfg = &self.cfg.tcp;
                let synack = (tcp_cfg.midstream || tcp_cfg.async_oneside)
                    && p.tcp
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
        // A flow bypassed before this packet: the packet is counted (the flow's
        // counters, `flow_bypassed.local_*`) and goes no further, not even to the
        // TCP state machine (Suricata's local bypass).
        let was_bypassed = f.locally_bypassed();
        if was_bypassed {
            self.stats.bypassed_pkts += 1;
            self.stats.bypassed_bytes += u64::from(p.len);
        }
        let mut app = StreamData::empty(dir.reverse());
        let mut raw = StreamData::empty(dir);
        let mut own_app = self.cfg.inline;
        let mut payload_at = None;
        let [sa, sr, _, _] = &mut self.scratch;
        sa.clear();
        sr.clear();
        match p.tcp {
            _ if was_bypassed => {}
            // A packet without TCP header in a TCP flow (an ICMP error quoting it)
            // changes no state.
            None if canon.proto == wire::ip_proto::TCP => {}
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
                // Where the sender's stream was consumed up to (Suricata's base_seq).
                let base = (f.streams != NO_STREAM)
                    .then(|| self.streams[f.streams as usize][dir.index()].consumed_seq());
                let mut st = f.tcp.step_at(&self.cfg.tcp, dir, &h, p.payload.len(), base);
                stream_events = st.events;
                // Session memory cap: the session is not created (the flow stays
                // without one, as after a refused pick-up).
                if st.created
                    && (sim.ssn_memcap
                        || !self
                            .cfg
                            .shared
                            .sessions
                            .try_take(SESSION_BYTES, self.cfg.ssn_memcap))
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
                // A session `stream.async-oneside` alone picked up from a SYN/ACK is
                // still subject to the policy, as in Suricata (exception-policy-midstream-02).
                let no_session = !self.cfg.tcp.midstream
                    && (f.tcp.state == TcpState::None || (st.created && f.tcp.midstream));
                let picked_up = st.created && f.tcp.midstream;
                if first_not_syn
                    && !f.bypassed
                    && ((no_session && (self.cfg.midstream_bypass || self.cfg.midstream_drop))
                        || (picked_up && self.cfg.midstream_bypass))
                {
                    f.bypassed = true;
                    f.dropped = no_session && self.cfg.midstream_drop;
                    f.midstream_pass = !f.dropped;
                    f.pass_flow = f.midstream_pass && self.cfg.midstream_policy_name == "pass_flow";
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
                if st.accept_data && h.has(tcp::flags::SYN) {
                    events |= Events::TFO_DATA;
                }
                if st.closed {
                    events |= Events::CLOSED;
                }
                if st.ack_unseen {
                    self.stats.ack_unseen += 1;
                }
                if f.tcp.state != TcpState::None {
                    f.tcp_flags[di] |= h.flags;
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
                            for (k, r) in self.streams[i as usize].iter_mut().enumerate() {
                                r.reset(isn[k].wrapping_add(1));
                                r.depth = None;
                            }
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
                            stream_events.set(wire::StreamEvent::ReassemblyInsertMemcap);
                            self.stats.segment_memcap_drop += 1;
                        } else if st.accept_data {
                            // A SYN's data starts after the SYN's own sequence number.
                            let seq = h.seq.wrapping_add(h.has(tcp::flags::SYN) as u32);
                            let before = pair[di].memuse();
                            let mut total = self.cfg.shared.reassembly.used();
                            // `host-os-policy` of the host receiving these bytes.
                            let mut lim = self.cfg.reassembly;
                            let v4 = p.key.family == crate::key::Family::V4;
                            if let Some(pol) = self.cfg.host_policy.stream(v4, &p.key.dst) {
                                lim.policy = pol;
                            }
                            let at = pair[di].offset_of(seq);
                            // Inline: bytes over data already held are the held
                            // ones, on the wire too (the packet is rewritten).
                            let rewritten = self.cfg.inline
                                && pair[di].normalize(seq, p.payload, &mut self.rewrite);
                            let data = if rewritten {
                                &self.rewrite[..]
                            } else {
                                p.payload
                            };
                            let o: InsertOutcome = pair[di].insert(
                                seq,
                                data,
                                &lim,
                                &mut total,
                                self.cfg.reassembly_memcap,
                            );
                            // The whole payload stored as new bytes: raw inspection
                            // may reuse the packet's own scan for them.
                            if o.stored as usize == p.payload.len()
                                && !rewritten
                                && !(o.overlap || o.retransmit || o.overlap_diff)
                                && !(o.memcap_dropped || o.out_of_window)
                            {
                                payload_at = at;
                            }
                            let delta = pair[di].memuse() as isize - before as isize;
                            self.reasm_memuse = self.reasm_memuse.saturating_add_signed(delta);
                            self.cfg.shared.reassembly.adjust(delta);
                            if o.retransmit {
                                events |= Events::RETRANSMISSION;
                            }
                            if o.overlap {
                                events |= Events::OVERLAP;
                                self.stats.overlap += 1;
                            }
                            // Suricata does not reassemble a spurious retransmission.
                            let spurious =
                                stream_events.has(wire::StreamEvent::PktSpuriousRetransmission);
                            if rewritten {
                                events |= Events::REWRITTEN;
                                if !spurious {
                                    stream_events
                                        .set(wire::StreamEvent::ReassemblyOverlapDifferentData);
                                }
                            }
                            if o.overlap_diff && !spurious {
                                stream_events
                                    .set(wire::StreamEvent::ReassemblyOverlapDifferentData);
                            }
                            if o.overlap_diff {
                                events |= Events::OVERLAP_DIFF;
                                self.stats.overlap_diff += 1;
                            }
                            if o.depth_reached {
                                stream_events.set(wire::StreamEvent::ReassemblyDepthReached);
                                events |= Events::DEPTH_REACHED;
                                self.stats.depth_reached += 1;
                            }
                            if o.memcap_dropped {
                                events |= Events::REASSEMBLY_MEMCAP;
                                stream_events.set(wire::StreamEvent::ReassemblyInsertMemcap);
                                self.stats.segment_memcap_drop += 1;
                            }
                            if o.out_of_window {
                                self.stats.out_of_window += 1;
                            }
                        }
                        let oi = dir.reverse().index();
                        if self.cfg.inline {
                            // Inline: this stream's in-order bytes, at arrival. Raw
                            // inspection runs on packets with data, as in Suricata; the
                            // data of the packet that created the session (a midstream
                            // pick-up, a Fast Open SYN) waits for the direction's next
                            // packet with data.
                            let upto = pair[di].contiguous_end(Consumer::App);
                            pair[di].take(Consumer::App, upto, false, sa);
                            if !p.payload.is_empty() && !st.created {
                                // The window reaches back a chunk size over bytes
                                // inspected before (Suricata's inline raw window).
                                let upto = pair[di].contiguous_end(Consumer::Raw);
                                let w = self.cfg.reassembly.raw_chunk[di];
                                pair[di].take_window(upto, w, sr);
                            }
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
                                        f.gaps[di] = true;
                                        stream_events.set(wire::StreamEvent::ReassemblySeqGap);
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
                                        f.gaps[oi] = true;
                                        stream_events.set(wire::StreamEvent::ReassemblySeqGap);
                                        events |= Events::GAP;
                                        self.stats.gaps += g as u64;
                                    }
                                }
                            }
                            // Raw: this packet's own stream up to what the other side
                            // acked, like Suricata once a chunk of it is there, an
                            // app-layer message of this direction ended, or the session
                            // reached LAST_ACK, CLOSE_WAIT (the client's FIN), CLOSING or
                            // CLOSED.
                            if f.tcp.half[di].flags & tcp::H_ACKED != 0 {
                                if let Some(upto) = pair[di].offset_of(f.tcp.half[di].last_ack) {
                                    let due = upto.saturating_sub(pair[di].progress(Consumer::Raw))
                                        >= self.cfg.reassembly.raw_chunk[di];
                                    let closing = matches!(
                                        f.tcp.state,
                                        TcpState::LastAck
                                            | TcpState::CloseWait
                                            | TcpState::Closing
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
                                && dir == Direction::ToServer
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
        if self.cfg.stream_event_stats && !stream_events.is_empty() {
            for e in stream_events.iter() {
                self.stats.stream_events.0[e as usize] += 1;
            }
        }
        let entry = self.table.entry(slot);
        let f = &entry.value;
        if self.cfg.inline && f.streams != NO_STREAM {
            // Inline, a stream keeps what its receiver has not acknowledged (to compare
            // retransmissions with it, as Suricata's inline stream does).
            let pair = &mut self.streams[f.streams as usize];
            for (k, r) in pair.iter_mut().enumerate() {
                let h = &f.tcp.half[k];
                let acked = (h.flags & tcp::H_ACKED != 0)
                    .then(|| r.offset_of(h.last_ack))
                    .flatten();
                r.keep_unacked(acked.unwrap_or(0));
            }
            pair[dir.index()].mark_logged_start();
        }
        self.last_pair = f.streams;
        if f.streams != NO_STREAM {
            let pair = &self.streams[f.streams as usize];
            let app_dir = if own_app { dir } else { dir.reverse() };
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
        let rewritten = (events & Events::REWRITTEN != 0).then_some(&self.rewrite[..]);
        Some(Update {
            slot,
            dir,
            rewritten,
            events: Events(events),
            stream_events,
            flow: f,
            app,
            raw,
            payload_at,
        })
    }

    fn end_with(&mut self, slot: Slot, _why: EndReason) {
        self.table.end(slot);
    }
}

impl Drop for FlowTracker {
    fn drop(&mut self) {
        // What this tracker still holds goes back to the run's shared budgets (after a
        // shutdown, what it held stays taken: see `FlowTable::end_all`).
        if !self.table.closing() {
            self.cfg.shared.reassembly.give(self.reasm_memuse);
            self.cfg
                .shared
                .sessions
                .give(self.sessions_alive * SESSION_BYTES);
        }
    }
}

/// Direction of a packet whose key was `swapped` to canonical form.
fn dir_of(f: &Flow, swapped: bool) -> Direction {
    // The packet's source is the canonical destination when swapped.
    let src_is_client = swapped == f.client_is_dst;
    if src_is_client {
        Direction::ToServer
    } else {
        Direction::ToClient
    }
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "tracker_bypass_tests.rs"]
mod bypass_tests;
