//! One pipeline: the stages a batch goes through, with their per-worker state.
//!
//! Per frame: decode (tunnels included) → checksum policy → IP defragmentation (a
//! reassembled datagram is decoded again and continues like a captured packet) → flow
//! tracking and TCP reassembly → application layer (acknowledged stream bytes, UDP
//! datagrams) → detection. Flows that end (timeout, reuse, eviction, end of capture) are
//! flushed.
//!
//! Each stage keeps its own state: `decode` (decoder, checksum policy, rebuilt
//! datagrams), `flow_app` (flow table, app layer, per-flow state, EVE app records),
//! `detect_stage` (detection and the alert sink) and `policy` (IPS verdicts, exception
//! policies, `--simulate-*`). [`Pipeline`] holds them with the bookkeeping: the capture
//! clock, the sweeps of idle flows and the frame being processed.

mod decode;
mod detect_stage;
mod flow_app;
mod policy;

use crate::alerts::{AlertSink, Outputs};
use crate::config::{ChecksumMode, EngineConfig};
use crate::detection::{DetectStage, Origin};
use crate::exception::Condition;
use crate::timing::{Stage, StageTimer, StageTimes};
use crate::verdict::FrameVerdict;
use capture::{Batch, Frame};
use decode::DecodeStage;
use detect_stage::Detection;
use flow::{adapter, DefragResult, Fragment};
use flow_app::FlowStage;
use output::stats::StatsTree;
use policy::{Effect, Policy};
use std::sync::Arc;
use wire::{flags, Decoded, DecoderConfig, Packet, Timestamp};

/// How often (in frames) idle flows are looked for, one sweep part at a time
/// ([`flow::FlowTable::sweep`]): Suricata's flow manager does the same work in the
/// background. Offline workers sweep when the reader says, at the same global frame
/// positions as one pipeline alone would.
pub(crate) const SWEEP_EVERY: u64 = 1024;
/// Frames that go through each stage together (decode, flow look-ahead, the rest): a
/// chunk of 1514-byte frames (24 KiB) stays in the L1/L2 cache between stages.
const STAGE_CHUNK: usize = 16;

/// How many fragmented datagrams deep a fragment may lie and still be reassembled: each
/// level is one rebuilt datagram that carried another fragment header (the recursion's
/// bound; hostile nesting past it is counted, `osprey.defrag.too_deep`).
const MAX_DEFRAG_DEPTH: u32 = 8;

/// The per-worker pipeline: owns its stages (decoder, flow table, app-layer state,
/// detection scratch space, verdicts) and counters; shares nothing.
pub struct Pipeline {
    /// (a) Decode and defragment.
    decode: DecodeStage,
    /// (b) Flows and application layer.
    flows: FlowStage,
    /// (c) Detection and alerts.
    detection: Detection,
    /// (d) IPS verdicts, exception policies, simulated conditions.
    policy: Policy,
    /// Time spent per stage (when `EngineConfig::stage_timing` is on).
    timer: StageTimer,
    /// `pcap_cnt` of the frame being processed.
    frame_index: u64,
    /// The capture's clock (see `clock_us`) at full precision: the time stamped on what
    /// flows ending now write (flow-timeout pseudo-packets, their app-layer records and
    /// anomalies). Not the latest time seen: that depends on which frames a worker got,
    /// and Suricata stamps them with the current packet's time too (at the end of a
    /// capture, the last packet's).
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
    /// Capture position of the flows being drained after a sweep or at the end of
    /// input (see `PendingAlert::order`); `None` while frames are processed.
    drain_position: Option<u64>,
    /// Index in the current batch of the frame being processed (GPU offload).
    batch_frame: Option<usize>,
    /// Rebuilt datagrams nested past [`MAX_DEFRAG_DEPTH`] fragmented datagrams, left
    /// unreassembled (`osprey.defrag.too_deep`).
    defrag_too_deep: u64,
}

impl Pipeline {
    /// A pipeline for `config`, writing alerts into `config.log_dir` (files of its own:
    /// for one pipeline per run).
    pub fn new(config: &EngineConfig) -> std::io::Result<Self> {
        let outputs = Outputs::open(&config.outputs, config.log_dir.as_deref(), None)?;
        Ok(Self::with_outputs(config, Arc::new(outputs)))
    }

    /// A pipeline for `config` writing alerts into `outputs`, which several pipelines
    /// (workers) may share. The files are closed by the last [`finish`](Self::finish),
    /// or by [`Outputs::finish`] once every pipeline let go of them.
    pub fn with_outputs(config: &EngineConfig, outputs: Arc<Outputs>) -> Self {
        let decoder_config = DecoderConfig {
            verify_checksums: config.checksum == ChecksumMode::All,
            ..config.decoder.clone()
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
        sink.alert_options = config.eve_options.alert;
        sink.keep_blocked =
            config.ips && config.eve_types.engine("drop") && config.eve_options.drop.alerts;
        let mut p = Pipeline {
            decode: DecodeStage::new(config, decoder_config),
            flows: FlowStage::new(config),
            detection: Detection::new(detect, sink),
            policy: Policy::new(config),
            timer: StageTimer::new(config.stage_timing),
            frame_index: 0,
            last_ts: Timestamp::default(),
            frames: 0,
            clock_us: 0,
            sweeps: 0,
            sweep_on_frames: true,
            drain_position: None,
            batch_frame: None,
            defrag_too_deep: 0,
        };
        // The app layer records frames only for `frame` rules.
        p.flows.app.config.frames = config.detector.as_ref().is_some_and(|d| d.uses_frames());
        if let Some(d) = &config.detector {
            // Only the types the rules use (Suricata numbers only those).
            p.flows.app.config.frame_types = d.frame_types();
        }
        p
    }

    /// Runs every frame of `batch` through the stages.
    pub fn process_batch(&mut self, batch: &Batch) {
        self.process_frames(|| batch.iter());
    }

    /// Runs the frames `frames()` yields (one batch, in capture order) through the stages.
    /// `frames` is called once per pass over the batch (decode, flow look-ahead, the
    /// rest; and counting and matching the payloads on a GPU cycle).
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
        // A GPU cycle decodes the whole batch in one chunk (trading the chunk's cache
        // locality for one decode): the offload stage matches its payloads before the
        // later stages.
        let gpu = crate::offload::begin_cycle(self.detection.stage.as_mut(), || frames().count());
        // Stage by stage over the batch (Kargus §4.3), a chunk of frames at a time so
        // that the frames decoded are still in the cache when their payloads are
        // inspected: decode the chunk, then look up every frame's flow ahead (its table
        // bucket and chain head come into the cache, the misses overlapping), then flow
        // tracking, the application layer and detection frame by frame in capture order.
        // (Each zip asks the bounded side first, so no frame is taken and lost.)
        let mut decoded = std::mem::take(&mut self.decode.batch);
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
                self.decode.decode(&frame, out);
                n += 1;
            }
            self.timer.stop(Stage::Decode, t);
            if n == 0 {
                break;
            }
            if gpu.is_some() && k == 0 {
                crate::offload::match_batch(self.detection.stage.as_mut(), frames(), &decoded[..n]);
            }
            let t = self.timer.start();
            for (d, frame) in decoded[..n].iter().zip(to_prefetch.by_ref()) {
                for p in d.packets() {
                    if let Some(key) = adapter::flow_key(p, frame.data) {
                        self.flows.tracker.prefetch(&key);
                    }
                }
            }
            self.timer.stop(Stage::Flow, t);
            for (d, frame) in decoded[..n].iter().zip(to_inspect.by_ref()) {
                self.batch_frame = Some(k);
                self.inspect_frame(&frame, d);
                then(&frame, self.policy.ips.frame());
                k += 1;
            }
        }
        self.batch_frame = None;
        self.decode.batch = decoded;
    }

    /// Runs one frame through the stages (a batch of one). Frames must come in capture
    /// order (per flow at least); `frame.index` is the `pcap_cnt` of its alerts.
    pub fn process_frame(&mut self, frame: &Frame<'_>) {
        let mut decoded = std::mem::take(&mut self.decode.decoded);
        let t = self.timer.start();
        self.decode.decode(frame, &mut decoded);
        self.timer.stop(Stage::Decode, t);
        self.inspect_frame(frame, &decoded);
        self.decode.decoded = decoded;
    }

    /// The stages after decoding, for one frame decoded into `decoded`.
    fn inspect_frame(&mut self, frame: &Frame<'_>, decoded: &Decoded) {
        let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
        self.clock_us = ts.0 / 1000;
        self.last_ts = ts;
        self.frame_index = frame.index;
        self.detection.sink.position = (frame.index.saturating_mul(2), 0);
        self.policy.ips.begin_frame();
        for (i, p) in decoded.packets().iter().enumerate() {
            if let (Some(o), Some(k)) = (self.detection.offload(), self.batch_frame) {
                o.enter(k, i);
            }
            self.detection.sink.tunnel =
                crate::alert_tunnel::outer(decoded.packets(), i, frame.index);
            self.packet(p, frame.data);
        }
        self.detection.sink.tunnel = None;
        if let Some(o) = self.detection.offload() {
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
        self.detection.share_thresholds();
    }

    /// The alerts held for the shared threshold check since the last call.
    pub(crate) fn held_alerts(&mut self) -> &mut Vec<crate::alerts::PendingAlert> {
        self.detection.held_alerts()
    }

    /// Tells the pipeline the capture's clock, `now`: the time of the latest frame read,
    /// whichever worker it went to. A worker that sees few packets still times its flows
    /// out as the capture goes on. With `sweep_after`, idle flows are looked for now,
    /// as one pipeline would after the frame of that index.
    pub fn advance_time(&mut self, now: capture::Timestamp, sweep_after: Option<u64>) {
        let ts = Timestamp::from_secs_nanos(now.secs.max(0) as u64, now.nanos);
        self.clock_us = ts.0 / 1000;
        self.last_ts = ts;
        if let Some(index) = sweep_after {
            self.sweep();
            self.drain_position = Some(index.saturating_mul(2).saturating_add(1));
            self.drain_ended();
            self.drain_position = None;
        }
    }

    fn sweep(&mut self) {
        let t = self.timer.start();
        self.flows.tracker.sweep(self.clock_us, self.sweeps);
        self.sweeps = self.sweeps.wrapping_add(1);
        self.timer.stop(Stage::Flow, t);
    }

    /// One decoded packet (captured, tunnelled, or reassembled from fragments).
    fn packet(&mut self, p: &Packet, buf: &[u8]) {
        self.policy.ips.begin_packet(p);
        if self.decode.checksum_rejects(p) {
            return;
        }
        // Like Suricata 7's tunnel pseudo-packets, a packet found inside a tunnel logs
        // no `pcap_cnt`.
        let pcap_cnt = (p.tunnel == wire::Tunnel::None).then_some(self.frame_index);
        if let Some(frag) = adapter::fragment(p, buf) {
            self.fragment(p, buf, &frag, pcap_cnt);
            return;
        }
        let (detection, policy) = (&mut self.detection, &mut self.policy);
        self.flows
            .packet(p, buf, pcap_cnt, detection, policy, &mut self.timer);
    }

    /// An IP fragment: into the defragmenter (its memory cap's policy acts on the
    /// fragment), detection on the fragment itself, and when it completes a datagram,
    /// the datagram decoded again and on to the flows.
    fn fragment(&mut self, p: &Packet, buf: &[u8], frag: &Fragment<'_>, pcap_cnt: Option<u64>) {
        self.fragment_at(p, buf, frag, pcap_cnt, 0);
    }

    /// [`fragment`](Self::fragment) `depth` datagrams deep: a rebuilt datagram that is
    /// itself a fragment (a fragment header inside the fragmented data) goes to the
    /// defragmenter again, as Suricata 7.0.10's rebuilt pseudo-packets do (sv-ether's
    /// nested datagrams: `defrag.ipv6.fragments`, `reassembled`, `decoder.icmpv6`), up
    /// to [`MAX_DEFRAG_DEPTH`] deep (deeper ones counted, `osprey.defrag.too_deep`).
    fn fragment_at(
        &mut self,
        p: &Packet,
        buf: &[u8],
        frag: &Fragment<'_>,
        pcap_cnt: Option<u64>,
        depth: u32,
    ) {
        if pcap_cnt.is_some() && self.policy.simulate.defrag_memcap == pcap_cnt {
            self.flows.tracker.defrag().simulate_memcap();
        }
        let t = self.timer.start();
        let result = self.flows.tracker.defrag().insert(frag);
        self.timer.stop(Stage::Flow, t);
        let (memcap, complete) = match result {
            DefragResult::Reassembled(dg) => {
                self.decode.keep_datagram(dg);
                (false, true)
            }
            DefragResult::Memcap => (true, false),
            _ => (false, false),
        };
        // `defrag.memcap-policy` acts on the fragment's own packet.
        let effect = if memcap {
            self.policy.apply(Condition::DefragMemcap, None).0
        } else {
            Effect::Continue
        };
        self.flows
            .anomaly
            .decode(p, buf, pcap_cnt, &mut self.detection.sink);
        if effect == Effect::Continue {
            let origin = Origin {
                pcap_cnt,
                flow_key: None,
                flow: None,
            };
            // Like Suricata, a fragment's L4 is not decoded: it has no payload to
            // inspect (content never matches a fragment; the datagram is inspected).
            let unpayloaded = Packet {
                payload_len: 0,
                ..*p
            };
            self.detection
                .packet(&unpayloaded, buf, origin, &mut self.policy.ips);
        }
        if complete {
            let (datagram, decoded) = self.decode.decode_datagram(p);
            let mut nested: Option<(Vec<u8>, Vec<Packet>)> = None;
            for q in decoded.packets() {
                // Like Suricata's rebuilt packet it is a pseudo-packet: its alerts carry
                // no `pcap_cnt`.
                if !q.has(flags::FRAGMENT) {
                    let (detection, policy) = (&mut self.detection, &mut self.policy);
                    self.flows
                        .packet(q, datagram, None, detection, policy, &mut self.timer);
                } else {
                    // Rare: the datagram's bytes are copied once, the kept datagram
                    // being overwritten by the next one rebuilt.
                    nested
                        .get_or_insert_with(|| (datagram.to_vec(), Vec::new()))
                        .1
                        .push(*q);
                }
            }
            if let Some((bytes, packets)) = nested {
                for q in &packets {
                    if depth >= MAX_DEFRAG_DEPTH {
                        self.defrag_too_deep += 1;
                        continue;
                    }
                    if let Some(frag) = adapter::fragment(q, &bytes) {
                        self.fragment_at(q, &bytes, &frag, None, depth + 1);
                    }
                }
            }
        }
    }

    /// Flushes flows that ended: remaining stream data to the app layer, then close.
    fn drain_ended(&mut self) {
        self.flows
            .drain_ended(&mut self.detection, self.last_ts, self.drain_position);
    }

    /// Ends every flow (end of input), flushes them and closes the alert files.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.flows.tracker.shutdown();
        self.drain_position = Some(u64::MAX);
        self.drain_ended();
        self.drain_position = None;
        self.detection.sink.finish()
    }

    /// Runs detection with `detector` from now on (`None`: no detection). The detection
    /// state of the flows already tracked starts afresh.
    pub fn set_detector(&mut self, detector: Option<Arc<detect::Detector>>) {
        let timing = self.timer.times().is_some();
        self.flows.app.config.frames = detector.as_ref().is_some_and(|d| d.uses_frames());
        if let Some(d) = &detector {
            self.flows.app.config.frame_types = d.frame_types();
        }
        self.detection.set_detector(detector, timing);
        self.flows.reset_detect();
    }

    /// Time spent per stage so far, when `EngineConfig::stage_timing` is on.
    pub fn stage_times(&self) -> Option<StageTimes> {
        let mut t = self.timer.clone();
        self.detection.merge_times(&mut t);
        t.times()
    }

    /// The counters of every stage, under Suricata's names where Suricata has one.
    pub fn stats(&self) -> StatsTree {
        let mut tree = StatsTree::new();
        tree.extend(self.decode.decoder.stats().counters());
        tree.extend(self.flows.tracker.counters());
        tree.extend(self.flows.app.counters());
        let dropped = self.flows.app.anomalies.dropped();
        if dropped > 0 {
            tree.add("osprey.anomaly.dropped", dropped);
        }
        tree.add("osprey.checksum.invalid", self.decode.checksum_invalid);
        if self.defrag_too_deep > 0 {
            tree.add("osprey.defrag.too_deep", self.defrag_too_deep);
        }
        tree.add("detect.alert", self.detection.sink.count);
        tree.extend(self.policy.ips.counters());
        self.policy.add_exception_counters(&mut tree);
        tree.add(
            "osprey.output.write_errors",
            self.detection.sink.write_errors,
        );
        let evicted = self.detection.sink.config_keys_evicted;
        if evicted > 0 {
            tree.add("osprey.detect.config_keys_evicted", evicted);
        }
        if let Some(det) = &self.detection.stage {
            tree.extend(det.counters());
            // Shared by the workers: each reports the same (merged as one value).
            for (name, drops) in det.detector.lists().memcap_drops() {
                tree.add(&format!("osprey.datasets.{name}.memcap_drops"), drops);
            }
        }
        tree.extend(self.flows.applog.store_counters());
        if let Some(c) = &self.flows.certs {
            tree.extend(c.counters());
        }
        tree
    }
}
