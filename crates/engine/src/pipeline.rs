//! One pipeline: the stages a batch goes through, with their per-worker state.
//!
//! Per frame: decode (tunnels included) → checksum policy → IP defragmentation (a
//! reassembled datagram is decoded again and continues like a captured packet) → flow
//! tracking and TCP reassembly → application layer (acknowledged stream bytes, UDP
//! datagrams). Flows that end (timeout, reuse, eviction, end of capture) are flushed.

use crate::alerts::{AlertSink, Outputs};
use crate::config::{ChecksumMode, EngineConfig};
use crate::detection::{DetectStage, Origin};
use crate::exception::{Condition, ExceptionPolicy, Policies, PolicyStats, Simulate};
use crate::flows::FlowExt;
use crate::flows::FlowExts;
use crate::timing::{Stage, StageTimer, StageTimes};
use crate::verdict::{FrameVerdict, Ips};
use app::{AppCtx, AppFlow, Direction, Transport};
use capture::{Batch, Frame};
use flow::{adapter, DefragResult, Dir, FlowTracker, Piece, StreamData};
use output::stats::StatsTree;
use std::sync::Arc;
use wire::{flags, Decoded, Decoder, DecoderConfig, Packet, Timestamp};

/// How often (in frames) idle flows are looked for, one sweep part at a time
/// ([`flow::FlowTable::sweep`]): Suricata's flow manager does the same work in the
/// background. Offline workers sweep when the reader says, at the same global frame
/// positions as one pipeline alone would.
pub(crate) const SWEEP_EVERY: u64 = 1024;
/// Frames that go through each stage together (decode, flow look-ahead, the rest): a
/// chunk of 1514-byte frames (24 KiB) stays in the L1/L2 cache between stages.
const STAGE_CHUNK: usize = 16;

/// The per-worker pipeline: owns its decoder, flow table, app-layer state, scratch space
/// and counters; shares nothing.
pub struct Pipeline {
    checksum: ChecksumMode,
    decoder: Decoder,
    decoded: Decoded,
    /// Reassembled datagram being decoded again, and its packets.
    datagram: Vec<u8>,
    datagram_decoded: Decoded,
    tracker: FlowTracker,
    app: AppCtx,
    exts: FlowExts,
    detect: Option<DetectStage>,
    sink: AlertSink,
    /// EVE `http`/`dns`/`tls` records.
    applog: output::AppLogger,
    /// `pcap_cnt` of the frame being processed.
    frame_index: u64,
    last_ts: Timestamp,
    frames: u64,
    /// The capture's clock for timeouts, microseconds: the time of the latest frame (of
    /// the whole capture, for a worker told by the reader), as Suricata's flow manager
    /// uses the latest packet's time. Concatenated captures make it jump back and forth.
    clock_us: u64,
    /// Sweeps done (the next sweeps this part of the flows).
    sweeps: usize,
    /// Sweep every [`SWEEP_EVERY`] frames of its own (false: only when told to by
    /// [`Pipeline::advance_time`]).
    sweep_on_frames: bool,
    /// Alerts of rules tracked by source, destination or rule are held for a shared
    /// threshold check ([`Pipeline::share_thresholds`]).
    share_thresholds: bool,
    /// Capture position of the flows being drained after a sweep or at the end of
    /// input (see `PendingAlert::order`); `None` while frames are processed.
    drain_position: Option<u64>,
    /// Packets (outer and tunnelled) kept from the stages after decoding because of a
    /// bad checksum under `-k all`.
    checksum_invalid: u64,
    /// Time spent per stage (when `EngineConfig::stage_timing` is on).
    timer: StageTimer,
    /// IPS verdicts and counters (`EngineConfig::ips`).
    ips: Ips,
    /// Exception policies (memory caps, app-layer errors) and how often each applied.
    exceptions: Policies,
    exception_stats: PolicyStats,
    /// Conditions forced at given packets (`--simulate-*`).
    simulate: Simulate,
    /// Index in the current batch of the frame being processed (GPU offload).
    batch_frame: Option<usize>,
    /// The batch's frames decoded (the decode stage runs over a whole batch before the
    /// later stages, Kargus §4.3); reused from batch to batch.
    batch_decoded: Vec<Decoded>,
}

impl Pipeline {
    /// A pipeline for `config`, writing alerts into `config.log_dir` (files of its own:
    /// for one pipeline per run).
    pub fn new(config: &EngineConfig) -> std::io::Result<Self> {
        let outputs = Outputs::create(config.log_dir.as_deref())?;
        Ok(Self::with_outputs(config, Arc::new(outputs)))
    }

    /// A pipeline for `config` writing alerts into `outputs`, which several pipelines
    /// (workers) may share. The files are closed by the last [`finish`](Self::finish),
    /// or by [`Outputs::finish`] once every pipeline let go of them.
    pub fn with_outputs(config: &EngineConfig, outputs: Arc<Outputs>) -> Self {
        let decoder_config = DecoderConfig {
            verify_checksums: config.checksum == ChecksumMode::All,
            ..DecoderConfig::default()
        };
        let mut detect = config
            .detector
            .clone()
            .map(|d| DetectStage::new(d, config.stage_timing));
        if let (Some(stage), Some(gpu)) = (detect.as_mut(), &config.gpu) {
            stage.offload = Some(crate::offload::OffloadStage::new(gpu.clone()));
        }
        let mut sink = AlertSink::new(outputs, config.classifications.clone());
        sink.ips = config.ips;
        Pipeline {
            checksum: config.checksum,
            decoder: Decoder::new(decoder_config),
            decoded: Decoded::new(),
            datagram: Vec::new(),
            datagram_decoded: Decoded::new(),
            tracker: FlowTracker::new(config.flow.clone()),
            app: AppCtx::new(config.app.clone()),
            exts: FlowExts::default(),
            detect,
            sink,
            applog: output::AppLogger::new(config.eve_types),
            frame_index: 0,
            last_ts: Timestamp::default(),
            frames: 0,
            clock_us: 0,
            sweeps: 0,
            sweep_on_frames: true,
            share_thresholds: false,
            drain_position: None,
            checksum_invalid: 0,
            timer: StageTimer::new(config.stage_timing),
            ips: Ips::new(config.ips),
            exceptions: config.exceptions,
            exception_stats: PolicyStats::default(),
            simulate: config.simulate,
            batch_frame: None,
            batch_decoded: Vec::new(),
        }
    }

    /// Runs every frame of `batch` through the stages.
    pub fn process_batch(&mut self, batch: &Batch) {
        self.process_frames(|| batch.iter());
    }

    /// Runs the frames `frames()` yields (one batch, in capture order) through the stages.
    /// `frames` is called twice when the batch's payloads are matched on the GPU first.
    pub fn process_frames<'f, I: Iterator<Item = Frame<'f>>>(&mut self, frames: impl Fn() -> I) {
        self.process_frames_then(frames, |_, _| {});
    }

    /// As [`process_frames`](Self::process_frames), calling `then` after each frame
    /// with the frame and its IPS verdict (always accept outside IPS mode): a live
    /// inline run forwards or drops the frame there.
    pub fn process_frames_then<'f, I: Iterator<Item = Frame<'f>>>(
        &mut self,
        frames: impl Fn() -> I,
        mut then: impl FnMut(&Frame<'f>, FrameVerdict),
    ) {
        // A GPU cycle decodes the whole batch in one chunk: the offload stage matches its
        // payloads before the later stages.
        let gpu = crate::offload::begin_cycle(self.detect.as_mut(), || frames().count());
        // Stage by stage over the batch (Kargus §4.3), a chunk of frames at a time so
        // that the frames decoded are still in the cache when their payloads are
        // inspected: decode the chunk, then look up every frame's flow ahead (its table
        // bucket and chain head come into the cache, the misses overlapping), then flow
        // tracking, the application layer and detection frame by frame in capture order.
        // (Each zip asks the bounded side first, so no frame is taken and lost.)
        let mut decoded = std::mem::take(&mut self.batch_decoded);
        let chunk = gpu.map_or(STAGE_CHUNK, |n| n.max(STAGE_CHUNK));
        if decoded.len() < chunk {
            decoded.resize_with(chunk, Decoded::new);
        }
        let (mut to_decode, mut to_prefetch, mut to_inspect) = (frames(), frames(), frames());
        let mut k = 0;
        loop {
            let t = self.timer.start();
            let mut n = 0;
            for (out, frame) in decoded[..chunk].iter_mut().zip(to_decode.by_ref()) {
                self.decode(&frame, out);
                n += 1;
            }
            self.timer.stop(Stage::Decode, t);
            if n == 0 {
                break;
            }
            if gpu.is_some() && k == 0 {
                crate::offload::match_batch(self.detect.as_mut(), frames(), &decoded[..n]);
            }
            let t = self.timer.start();
            for (d, frame) in decoded[..n].iter().zip(to_prefetch.by_ref()) {
                for p in d.packets() {
                    if let Some(key) = adapter::flow_key(p, frame.data) {
                        self.tracker.prefetch(&key);
                    }
                }
            }
            self.timer.stop(Stage::Flow, t);
            for (d, frame) in decoded[..n].iter().zip(to_inspect.by_ref()) {
                self.batch_frame = Some(k);
                self.inspect_frame(&frame, d);
                then(&frame, self.ips.frame());
                k += 1;
            }
        }
        self.batch_frame = None;
        self.batch_decoded = decoded;
    }

    /// Runs one frame through the stages (a batch of one). Frames must come in capture
    /// order (per flow at least); `frame.index` is the `pcap_cnt` of its alerts.
    pub fn process_frame(&mut self, frame: &Frame<'_>) {
        let mut decoded = std::mem::take(&mut self.decoded);
        let t = self.timer.start();
        self.decode(frame, &mut decoded);
        self.timer.stop(Stage::Decode, t);
        self.inspect_frame(frame, &decoded);
        self.decoded = decoded;
    }

    /// The decode stage of one frame.
    fn decode(&mut self, frame: &Frame<'_>, out: &mut Decoded) {
        let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
        self.decoder
            .decode(frame.link, frame.data, ts, frame.wire_len, out);
    }

    /// The stages after decoding, for one frame decoded into `decoded`.
    fn inspect_frame(&mut self, frame: &Frame<'_>, decoded: &Decoded) {
        let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
        self.clock_us = ts.0 / 1000;
        self.last_ts = self.last_ts.max(ts);
        self.frame_index = frame.index;
        self.sink.position = (frame.index.saturating_mul(2), 0);
        self.ips.begin_frame();
        for (i, p) in decoded.packets().iter().enumerate() {
            let offload = self.detect.as_mut().and_then(|d| d.offload.as_mut());
            if let (Some(o), Some(k)) = (offload, self.batch_frame) {
                o.enter(k, i);
            }
            self.packet(p, frame.data);
        }
        if let Some(o) = self.detect.as_mut().and_then(|d| d.offload.as_mut()) {
            o.leave();
        }
        self.frames += 1;
        // The flows this frame ended first, then those the sweep after it ends: the
        // order in which workers told to sweep by the reader flush them too.
        self.drain_ended();
        if self.sweep_on_frames && self.frames.is_multiple_of(SWEEP_EVERY) {
            self.sweep();
            self.drain_ended();
        }
    }

    /// Sweeps only when [`Pipeline::advance_time`] says so, not every [`SWEEP_EVERY`]
    /// frames of its own: for a worker given a share of the frames by a reader that
    /// counts all of them.
    pub fn sweep_when_told(&mut self) {
        self.sweep_on_frames = false;
    }

    /// Holds the alerts of rules whose threshold is tracked by source, destination or
    /// rule for a check shared by every worker, made in capture order
    /// ([`detect::Scratch::share_thresholds`]); [`Pipeline::held_alerts`] hands them
    /// over. For a worker given a share of the frames by a reader.
    pub(crate) fn share_thresholds(&mut self) {
        self.share_thresholds = true;
        self.sink.deferred.get_or_insert_with(Vec::new);
        if let Some(d) = self.detect.as_mut() {
            d.share_thresholds();
        }
    }

    /// The alerts held for the shared threshold check since the last call.
    pub(crate) fn held_alerts(&mut self) -> &mut Vec<crate::alerts::PendingAlert> {
        self.sink.deferred.get_or_insert_with(Vec::new)
    }

    /// Tells the pipeline the capture's clock, `now`: the time of the latest frame read,
    /// whichever worker it went to. A worker that sees few packets still times its flows
    /// out as the capture goes on. With `sweep_after`, idle flows are looked for now,
    /// as one pipeline would after the frame of that index.
    pub fn advance_time(&mut self, now: capture::Timestamp, sweep_after: Option<u64>) {
        let ts = Timestamp::from_secs_nanos(now.secs.max(0) as u64, now.nanos);
        self.clock_us = ts.0 / 1000;
        self.last_ts = self.last_ts.max(ts);
        if let Some(index) = sweep_after {
            self.sweep();
            self.drain_position = Some(index.saturating_mul(2).saturating_add(1));
            self.drain_ended();
            self.drain_position = None;
        }
    }

    fn sweep(&mut self) {
        let t = self.timer.start();
        self.tracker.sweep(self.clock_us, self.sweeps);
        self.sweeps = self.sweeps.wrapping_add(1);
        self.timer.stop(Stage::Flow, t);
    }

    /// One decoded packet (captured, tunnelled, or reassembled from fragments).
    fn packet(&mut self, p: &Packet, buf: &[u8]) {
        self.ips.begin_packet(p);
        if self.checksum == ChecksumMode::All
            && (p.has(flags::IP_CSUM_BAD) || p.has(flags::L4_CSUM_BAD))
        {
            self.checksum_invalid += 1;
            return;
        }
        if let Some(frag) = adapter::fragment(p, buf) {
            let pcap_cnt = (p.tunnel == wire::Tunnel::None).then_some(self.frame_index);
            if pcap_cnt.is_some() && self.simulate.defrag_memcap == pcap_cnt {
                self.tracker.defrag().simulate_memcap();
            }
            let t = self.timer.start();
            let result = self.tracker.defrag().insert(&frag);
            self.timer.stop(Stage::Flow, t);
            let (memcap, complete) = match result {
                DefragResult::Reassembled(dg) => {
                    self.datagram.clear();
                    self.datagram.extend_from_slice(dg);
                    (false, true)
                }
                DefragResult::Memcap => (true, false),
                _ => (false, false),
            };
            // `defrag.memcap-policy` acts on the fragment's own packet.
            let effect = if memcap {
                apply_exception(
                    &self.exceptions,
                    &mut self.exception_stats,
                    &mut self.ips,
                    Condition::DefragMemcap,
                    None,
                )
                .0
            } else {
                Effect::Continue
            };
            if let Some(det) = self.detect.as_mut().filter(|_| effect == Effect::Continue) {
                let origin = Origin {
                    pcap_cnt,
                    flow_key: None,
                };
                det.packet(p, buf, origin, &mut self.sink);
                self.ips.apply(det.verdict, None);
            }
            if complete {
                self.decoder
                    .decode_ip(&self.datagram, p, &mut self.datagram_decoded);
                let datagram = std::mem::take(&mut self.datagram);
                for i in 0..self.datagram_decoded.len() {
                    let q = self.datagram_decoded.packets()[i];
                    // A datagram inside a reassembled one is not reassembled again.
                    // Like Suricata's rebuilt packet it is a pseudo-packet: its
                    // alerts carry no `pcap_cnt`.
                    if !q.has(flags::FRAGMENT) {
                        self.flow_packet(&q, &datagram, None);
                    }
                }
                self.datagram = datagram;
            }
            return;
        }
        // Like Suricata 7's tunnel pseudo-packets, a packet found inside a tunnel logs
        // no `pcap_cnt`.
        let pcap_cnt = (p.tunnel == wire::Tunnel::None).then_some(self.frame_index);
        self.flow_packet(p, buf, pcap_cnt);
    }

    /// Flow tracking, reassembly and the application layer for one packet
    /// (`pcap_cnt` is `None` for a datagram rebuilt from fragments).
    fn flow_packet(&mut self, p: &Packet, buf: &[u8], pcap_cnt: Option<u64>) {
        let origin = Origin {
            pcap_cnt,
            flow_key: None,
        };
        let Some(info) = adapter::tracked_packet_info(&self.tracker, p, buf) else {
            if let Some(det) = self.detect.as_mut() {
                det.packet(p, buf, origin, &mut self.sink);
                self.ips.apply(det.verdict, None);
            }
            return;
        };
        let flow_key = info.key;
        if self.simulate.any() && pcap_cnt.is_some() {
            let at = |n: Option<u64>| n.is_some() && n == pcap_cnt;
            self.tracker.simulate(flow::Simulated {
                flow_memcap: at(self.simulate.flow_memcap),
                ssn_memcap: at(self.simulate.ssn_memcap),
                reassembly_memcap: at(self.simulate.reassembly_memcap),
            });
        }
        let t = self.timer.start();
        let update = self.tracker.packet(&info);
        self.timer.stop(Stage::Flow, t);
        let Some(update) = update else {
            // No flow could be had: `flow.memcap-policy` acts on the packet.
            let (effect, _) = apply_exception(
                &self.exceptions,
                &mut self.exception_stats,
                &mut self.ips,
                Condition::FlowMemcap,
                None,
            );
            if let Some(det) = self.detect.as_mut().filter(|_| effect == Effect::Continue) {
                det.packet(p, buf, origin, &mut self.sink);
                self.ips.apply(det.verdict, None);
            }
            return;
        };
        if update.flow.bypassed {
            if update.flow.dropped {
                let first = update.events.has(flow::Events::MIDSTREAM_POLICY);
                let reject = self.tracker.config().midstream_policy_name == "reject";
                self.ips.midstream_drop(first, reject);
            }
            return;
        }
        let slot = update.slot;
        let dir = app_dir(update.dir);
        let ext = self.exts.get_or_create(slot, || {
            let (transport, client_port, server_port) = match (p.proto, dir) {
                (6, Direction::ToServer) => (Some(Transport::Tcp), p.sport, p.dport),
                (6, Direction::ToClient) => (Some(Transport::Tcp), p.dport, p.sport),
                (17, Direction::ToServer) => (Some(Transport::Udp), p.sport, p.dport),
                (17, Direction::ToClient) => (Some(Transport::Udp), p.dport, p.sport),
                _ => (None, 0, 0),
            };
            transport.map(|t| AppFlow::new(t, client_port, server_port))
        });
        // IPS: a dropped flow's packets reach neither the app layer nor detection.
        if self.ips.flow_dropped(&ext.detect) {
            return;
        }
        // Memory caps hit by this packet: their policies.
        let mut effect = Effect::Continue;
        let mut bypass = false;
        let mut raw_trigger = None;
        for (event, c) in [
            (flow::Events::SSN_MEMCAP, Condition::SsnMemcap),
            (flow::Events::REASSEMBLY_MEMCAP, Condition::ReassemblyMemcap),
        ] {
            if update.events.has(event) {
                let (e, b) = apply_exception(
                    &self.exceptions,
                    &mut self.exception_stats,
                    &mut self.ips,
                    c,
                    Some(&mut *ext),
                );
                effect = effect.max(e);
                bypass |= b;
            }
        }
        if effect < Effect::Stop && !ext.app_error {
            // The app layer's input: this datagram, or the stream bytes this packet
            // makes available (to a direction that need not be the packet's).
            let (app_dir, len) = if p.proto == 17 {
                (dir, info.payload.len() as u64)
            } else {
                (app_dir(update.app.dir), update.app.data_len())
            };
            let fed = ext.app_fed[app_dir.index()];
            ext.app_fed[app_dir.index()] = fed + len;
            let error_at = match app_dir {
                Direction::ToServer => self.simulate.applayer_error_ts,
                Direction::ToClient => self.simulate.applayer_error_tc,
            };
            let mut parser_error = false;
            if ext.app.is_some() && len > 0 && error_at.is_some_and(|at| fed + len > at) {
                // A parser error, forced.
                parser_error = true;
            } else if let Some(appflow) = ext.app.as_mut() {
                let t = self.timer.start();
                if p.proto == 17 {
                    appflow.datagram(&mut self.app, dir, info.payload);
                } else {
                    feed_stream(appflow, &mut self.app, &update.app);
                    // Like Suricata, the packet that closes a session with the FIN
                    // handshake gives the app layer the end of both streams at once:
                    // messages that only the close ends complete on this packet. (A RST
                    // does not: the peer's unacknowledged data still comes at flow end.)
                    if !ext.tcp_closed
                        && update.flow.tcp.state == flow::TcpState::Closed
                        && p.tcp_flags & wire::proto::tcp::flags::RST == 0
                    {
                        appflow.close(&mut self.app);
                    }
                    let fed = update.app.dir;
                    if appflow.take_completed(self::app_dir(fed)) {
                        raw_trigger = Some(fed);
                    }
                }
                parser_error = appflow.take_error();
                self.timer.stop(Stage::App, t);
            }
            if parser_error {
                // `app-layer.error-policy` acts on the packet and flow; a TCP flow's app
                // layer stops (a UDP flow's next datagram is parsed again).
                ext.app_error = p.proto == 6;
                let (e, b) = apply_exception(
                    &self.exceptions,
                    &mut self.exception_stats,
                    &mut self.ips,
                    Condition::AppLayerError,
                    Some(&mut *ext),
                );
                effect = effect.max(e);
                bypass |= b;
            }
        }
        if p.proto == 6 && update.flow.tcp.state == flow::TcpState::Closed {
            ext.tcp_closed = true;
        }
        let inspect = effect == Effect::Continue && !ext.no_inspect;
        if let Some(det) = self.detect.as_mut().filter(|_| inspect) {
            let origin = Origin {
                flow_key: Some(flow_key),
                ..origin
            };
            det.flow_packet(p, buf, &update, ext, origin, &mut self.sink);
            self.ips.apply(det.verdict, Some(&mut ext.detect));
        }
        if self.applog.enabled() {
            let to_server = dir == Direction::ToServer;
            let sink = &mut self.sink;
            crate::applog::log_packet(&self.applog, ext, p, to_server, &flow_key, pcap_cnt, sink);
        }
        if bypass {
            self.tracker.set_bypassed(slot);
        }
        if let Some(dir) = raw_trigger {
            self.tracker.trigger_raw(slot, dir);
        }
    }

    /// Flushes flows that ended: remaining stream data to the app layer, then close.
    fn drain_ended(&mut self) {
        if !self.tracker.has_ended() {
            return;
        }
        let exts = &mut self.exts;
        let app = &mut self.app;
        let detect = &mut self.detect;
        let sink = &mut self.sink;
        let last_ts = self.last_ts;
        let applog = &self.applog;
        let drain_position = self.drain_position;
        self.tracker.drain_ended(|ended| {
            if let Some(pos) = drain_position {
                sink.position = (pos, ended.key.canonical().0.hash());
            }
            if let Some(mut ext) = exts.remove(ended.slot) {
                if let Some(appflow) = ext.app.as_mut() {
                    for data in &ended.app {
                        feed_stream(appflow, app, data);
                    }
                    appflow.close(app);
                }
                let inspect = !ended.flow.bypassed && !ext.no_inspect;
                if let Some(det) = detect.as_mut().filter(|_| inspect) {
                    det.ended_flow(&ended, ext.app.as_ref(), &mut ext.detect, last_ts, sink);
                }
                if applog.enabled() {
                    crate::applog::log_ended(applog, &mut ext, &ended, last_ts, sink);
                }
            }
        });
    }

    /// Ends every flow (end of input), flushes them and closes the alert files.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.tracker.shutdown();
        self.drain_position = Some(u64::MAX);
        self.drain_ended();
        self.drain_position = None;
        self.sink.finish()
    }

    /// Runs detection with `detector` from now on (`None`: no detection). The detection
    /// state of the flows already tracked starts afresh.
    pub fn set_detector(&mut self, detector: Option<Arc<detect::Detector>>) {
        let timer = self.detect.as_ref().map(|d| d.timer.clone());
        // GPU offload stays built for the rules it was set up with: after a reload its
        // cycles count as stale and matching runs on the CPU.
        let offload = self.detect.as_mut().and_then(|d| d.offload.take());
        let timing = self.timer.times().is_some();
        self.detect = detector.map(|d| {
            let mut stage = DetectStage::new(d, timing);
            if let Some(t) = &timer {
                stage.timer = t.clone();
            }
            stage.offload = offload;
            if self.share_thresholds {
                stage.share_thresholds();
            }
            stage
        });
        self.exts.reset_detect();
    }

    /// Time spent per stage so far, when `EngineConfig::stage_timing` is on.
    pub fn stage_times(&self) -> Option<StageTimes> {
        let mut t = self.timer.clone();
        if let Some(det) = &self.detect {
            t.merge(&det.timer);
        }
        t.times()
    }

    /// The counters of every stage, under Suricata's names where Suricata has one.
    pub fn stats(&self) -> StatsTree {
        let mut tree = StatsTree::new();
        tree.extend(self.decoder.stats().counters());
        tree.extend(self.tracker.counters());
        tree.extend(self.app.counters());
        tree.add("osprey.checksum.invalid", self.checksum_invalid);
        tree.add("detect.alert", self.sink.count);
        tree.extend(self.ips.counters());
        for (name, v) in self.exception_stats.counters(&self.exceptions) {
            tree.add(&name, v);
        }
        tree.add("osprey.output.write_errors", self.sink.write_errors);
        if let Some(det) = &self.detect {
            tree.extend(det.counters());
        }
        tree
    }
}

/// What an exception policy leaves of a packet's processing (in increasing order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Effect {
    /// Nothing changes.
    Continue,
    /// The app layer goes on; detection skips the packet.
    NoDetect,
    /// The packet goes no further (dropped, or its flow bypassed).
    Stop,
}

/// Applies the policy of condition `c` to a packet and (when it has one) its flow
/// `ext`: counts it, drops in IPS mode, marks the flow. Returns the packet's
/// [`Effect`] and whether the flow is to be bypassed.
fn apply_exception(
    policies: &Policies,
    stats: &mut PolicyStats,
    ips: &mut Ips,
    c: Condition,
    ext: Option<&mut FlowExt>,
) -> (Effect, bool) {
    let policy = policies.get(c);
    if policy == ExceptionPolicy::Ignore {
        return (Effect::Continue, false);
    }
    stats.record(c, policy);
    match policy {
        ExceptionPolicy::Ignore => (Effect::Continue, false),
        ExceptionPolicy::PassPacket => (Effect::NoDetect, false),
        ExceptionPolicy::PassFlow => {
            if let Some(e) = ext {
                e.no_inspect = true;
            }
            (Effect::NoDetect, false)
        }
        ExceptionPolicy::Bypass => (Effect::Stop, ext.is_some()),
        ExceptionPolicy::DropPacket => {
            ips.exception_drop(c, false);
            (Effect::Stop, false)
        }
        ExceptionPolicy::DropFlow | ExceptionPolicy::Reject => {
            ips.exception_drop(c, policy == ExceptionPolicy::Reject);
            if let Some(e) = ext {
                e.detect.drop_flow();
            }
            (Effect::Stop, false)
        }
    }
}

fn app_dir(d: Dir) -> Direction {
    match d {
        Dir::ToServer => Direction::ToServer,
        Dir::ToClient => Direction::ToClient,
    }
}

/// Hands new stream pieces of one direction to the app layer.
fn feed_stream(appflow: &mut AppFlow, ctx: &mut AppCtx, data: &StreamData<'_>) {
    let dir = app_dir(data.dir);
    for piece in data.pieces() {
        match piece {
            Piece::Data { bytes, .. } => appflow.parse(ctx, dir, bytes),
            Piece::Gap { len, .. } => appflow.gap(ctx, dir, len),
        }
    }
}
