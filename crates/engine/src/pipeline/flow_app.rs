//! Stage (b), flows and application layer: flow tracking and TCP reassembly, the
//! per-flow state kept beside the flow table, the application layer (acknowledged
//! stream bytes, UDP datagrams) and its EVE records; detection and the policies are
//! called from here for a flow's packets, in the order Suricata applies them.

use super::detect_stage::Detection;
use super::policy::{Effect, Policy};
use crate::anomaly::AnomalyLog;
use crate::config::EngineConfig;
use crate::detection::Origin;
use crate::drop_log::{DropLogger, Seen};
use crate::exception::Condition;
use crate::flow_log::{alerts_raised, FlowLogger};
use crate::flows::FlowExts;
use crate::timing::{Stage, StageTimer};
use app::{AppCtx, AppFlow, Transport};
use flow::{adapter, FlowTracker, Piece, StreamData};
use wire::{ip_proto, tcp_flags, Direction, Packet, Timestamp};

/// The flow table, the app layer and their per-flow state of one pipeline.
pub(super) struct FlowStage {
    pub(super) tracker: FlowTracker,
    pub(super) app: AppCtx,
    exts: FlowExts,
    /// EVE application-layer records (the types the registry's protocols log).
    pub(super) applog: output::AppLogger,
    /// EVE anomaly records.
    pub(super) anomaly: AnomalyLog,
    /// The `tls-store` output (certificate chains of `tls_store` rules).
    pub(super) certs: Option<crate::tls_store::CertLog>,
    /// EVE `flow` and `netflow` records of the flows that end.
    flowlog: FlowLogger,
    /// EVE `drop` records (IPS).
    droplog: DropLogger,
    /// How far the flow stage got with the packet being processed (its flow and
    /// direction), for its drop record.
    seen: Seen,
    /// The slot of that flow, once it has its per-flow state.
    seen_slot: Option<flow::Slot>,
    /// Inline: a copy of the frame being processed with its payload rewritten by the
    /// stream (`flow::Update::rewritten`), inspected and logged in its place.
    patched: Vec<u8>,
}

impl FlowStage {
    /// The flows stage `config` asks for.
    pub(super) fn new(config: &EngineConfig) -> Self {
        let anomaly = AnomalyLog::new(config);
        let mut app = AppCtx::new(config.app.clone());
        anomaly.prepare(&mut app);
        FlowStage {
            tracker: FlowTracker::new(config.flow.clone()),
            app,
            exts: FlowExts::default(),
            applog: output::AppLogger::new(config.eve_types).with_store(config.file_store.clone()),
            anomaly,
            certs: crate::tls_store::CertLog::new(config),
            flowlog: FlowLogger::new(&config.eve_types, config.ips),
            droplog: DropLogger::new(config),
            seen: Seen::default(),
            seen_slot: None,
            patched: Vec::new(),
        }
    }

    /// Starts the detection state of every tracked flow afresh (the rules changed).
    pub(super) fn reset_detect(&mut self) {
        self.exts.reset_detect();
    }

    /// Flow tracking, reassembly and the application layer for one packet, then its
    /// detection and policies (`pcap_cnt` is `None` for a datagram rebuilt from
    /// fragments); then its `drop` record if a verdict dropped it.
    pub(super) fn packet(
        &mut self,
        p: &Packet,
        buf: &[u8],
        pcap_cnt: Option<u64>,
        detection: &mut Detection,
        policy: &mut Policy,
        timer: &mut StageTimer,
    ) {
        self.seen = Seen::default();
        self.seen_slot = None;
        detection.sink.blocked = None;
        self.stages(p, buf, pcap_cnt, detection, policy, timer);
        if let Some(reason) = policy.ips.take_drop().filter(|_| self.droplog.enabled()) {
            let seen = self.seen;
            let slot = self.seen_slot;
            let logged = slot
                .and_then(|s| self.exts.get_mut(s))
                .map(|e| &mut e.drops_logged);
            let sink = &mut detection.sink;
            self.droplog
                .log(p, buf, pcap_cnt, seen, logged, reason, sink);
        }
    }

    /// [`FlowStage::packet`] up to the drop record.
    fn stages(
        &mut self,
        p: &Packet,
        buf: &[u8],
        pcap_cnt: Option<u64>,
        detection: &mut Detection,
        policy: &mut Policy,
        timer: &mut StageTimer,
    ) {
        let origin = Origin {
            pcap_cnt,
            flow_key: None,
            flow: None,
        };
        self.anomaly.decode(p, buf, pcap_cnt, &mut detection.sink);
        let Some(info) = adapter::tracked_packet_info(&self.tracker, p, buf) else {
            detection.packet(p, buf, origin, &mut policy.ips);
            return;
        };
        let flow_key = info.key;
        self.seen.key = Some(flow_key);
        if policy.simulate.any() && pcap_cnt.is_some() {
            let at = |n: Option<u64>| n.is_some() && n == pcap_cnt;
            self.tracker.simulate(flow::Simulated {
                flow_memcap: at(policy.simulate.flow_memcap),
                ssn_memcap: at(policy.simulate.ssn_memcap),
                reassembly_memcap: at(policy.simulate.reassembly_memcap),
            });
        }
        let inline = self.tracker.config().inline;
        let t = timer.start();
        let update = self.tracker.packet(&info);
        timer.stop(Stage::Flow, t);
        let Some(update) = update else {
            // No flow could be had: `flow.memcap-policy` acts on the packet.
            let (effect, _) = policy.apply(Condition::FlowMemcap, None);
            if effect == Effect::Continue {
                detection.packet(p, buf, origin, &mut policy.ips);
            }
            return;
        };
        self.seen.dir = Some(update.dir);
        // Inline: the stream rewrote the payload to the data it received first; the
        // rewritten packet is the one inspected and logged (Suricata's `ips.replaced`).
        let buf: &[u8] = match update.rewritten {
            Some(new) => {
                policy.ips.replaced();
                self.patched.clear();
                self.patched.extend_from_slice(buf);
                let at = p.payload_off as usize;
                if let Some(dst) = self.patched.get_mut(at..at + new.len()) {
                    dst.copy_from_slice(new);
                }
                &self.patched
            }
            None => buf,
        };
        let flow_id = crate::detection::flow_id(&flow_key);
        self.anomaly.stream(
            p,
            flow_id,
            pcap_cnt,
            update.stream_events,
            &mut detection.sink,
        );
        if update.flow.bypassed {
            if update.flow.dropped {
                let first = update.events.has(flow::Events::MIDSTREAM_POLICY);
                let reject = self.tracker.config().midstream_policy_name == "reject";
                policy.ips.midstream_drop(first, reject);
            }
            return;
        }
        let slot = update.slot;
        let dir = update.dir;
        self.seen_slot = Some(slot);
        let app_ctx = &mut self.app;
        let ext = self.exts.get_or_create(slot, || {
            let (transport, client_port, server_port) = match (p.proto, dir) {
                (ip_proto::TCP, Direction::ToServer) => (Some(Transport::Tcp), p.sport, p.dport),
                (ip_proto::TCP, Direction::ToClient) => (Some(Transport::Tcp), p.dport, p.sport),
                (ip_proto::UDP, Direction::ToServer) => (Some(Transport::Udp), p.sport, p.dport),
                (ip_proto::UDP, Direction::ToClient) => (Some(Transport::Udp), p.dport, p.sport),
                _ => (None, 0, 0),
            };
            transport.map(|t| {
                let mut f = AppFlow::new(t, client_port, server_port);
                let (c, s) = match dir {
                    Direction::ToServer => (&p.src, &p.dst),
                    Direction::ToClient => (&p.dst, &p.src),
                };
                let v4 = p.ip_version == 4;
                let id = crate::detection::flow_id(&flow_key);
                f.set_peers(app_ctx, id, wire::ip_addr(v4, c), wire::ip_addr(v4, s));
                f
            })
        });
        ext.marks.packet(p, dir, flow_key.proto);
        // IPS: a dropped flow's packets reach neither the app layer nor detection.
        if policy.ips.flow_dropped(&ext.detect) {
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
                let (e, b) = policy.apply(c, Some(&mut *ext));
                effect = effect.max(e);
                bypass |= b;
            }
        }
        if effect < Effect::Stop && !ext.app_error {
            // The app layer's input: this datagram, or the stream bytes this packet
            // makes available (to a direction that need not be the packet's).
            let (app_dir, len) = if p.proto == ip_proto::UDP {
                (dir, info.payload.len() as u64)
            } else {
                (update.app.dir, update.app.data_len())
            };
            let fed = ext.app_fed[app_dir.index()];
            ext.app_fed[app_dir.index()] = fed + len;
            let error_at = match app_dir {
                Direction::ToServer => policy.simulate.applayer_error_ts,
                Direction::ToClient => policy.simulate.applayer_error_tc,
            };
            let mut parser_error = false;
            if ext.app.is_some() && len > 0 && error_at.is_some_and(|at| fed + len > at) {
                // A parser error, forced.
                parser_error = true;
            } else if let Some(appflow) = ext.app.as_mut() {
                let t = timer.start();
                if p.proto == ip_proto::UDP {
                    appflow.datagram(&mut self.app, dir, info.payload);
                } else {
                    feed_stream(appflow, &mut self.app, &update.app);
                    if appflow.take_switched() {
                        // A new protocol: its transactions are inspected from the start.
                        ext.detect.restart_txs();
                    }
                    // Like Suricata, the packet that closes a session with the FIN
                    // handshake gives the app layer the end of both streams at once:
                    // messages that only the close ends complete on this packet. (A RST
                    // does not: the peer's unacknowledged data still comes at flow end.)
                    if !ext.tcp_closed
                        && update.flow.tcp.state == flow::TcpState::Closed
                        && p.tcp_flags & tcp_flags::RST == 0
                    {
                        appflow.close_session(&mut self.app);
                    }
                    let fed = update.app.dir;
                    if appflow.take_completed(fed) {
                        raw_trigger = Some(fed);
                    }
                }
                parser_error = appflow.take_error();
                timer.stop(Stage::App, t);
            }
            if parser_error {
                // `app-layer.error-policy` acts on the packet and flow; a TCP flow's app
                // layer stops (a UDP flow's next datagram is parsed again).
                ext.app_error = p.proto == ip_proto::TCP;
                let (e, b) = policy.apply(Condition::AppLayerError, Some(&mut *ext));
                effect = effect.max(e);
                bypass |= b;
            }
        }
        let meta = || crate::anomaly::packet_meta(p, flow_id, pcap_cnt);
        self.anomaly.app(&mut self.app, meta, &mut detection.sink);
        let closed_now = p.proto == ip_proto::TCP
            && update.flow.tcp.state == flow::TcpState::Closed
            && !ext.tcp_closed;
        if closed_now {
            ext.tcp_closed = true;
        }
        let inspect = effect == Effect::Continue && !ext.no_inspect;
        if let Some(det) = detection.stage.as_mut().filter(|_| inspect) {
            let origin = Origin {
                flow_key: Some(flow_key),
                ..origin
            };
            let raised = alerts_raised(&detection.sink);
            // Inline, a TCP packet inspects its direction's transactions only when
            // it gave that direction's app layer data (Suricata 7.0.10 inspects a
            // direction's transactions after an app-layer update of that direction,
            // which inline is the packet's own data) or closed the session (a RST,
            // the last ACK of the FIN handshake: the app layer's end of stream).
            // An ACK alone does not.
            let txs = p.proto != ip_proto::TCP
                || !inline
                || closed_now
                || (update.app.dir == dir && !update.app.is_empty());
            det.flow_packet(p, buf, &update, ext, origin, txs, &mut detection.sink);
            ext.marks.alerted |= alerts_raised(&detection.sink) > raised;
            policy.ips.apply(det.verdict, Some(&mut ext.detect));
            // A `bypass` rule matched: the flow's later packets are only counted.
            bypass |= ext.detect.bypass_requested();
        }
        if self.applog.enabled() {
            let to_server = dir == Direction::ToServer;
            let sink = &mut detection.sink;
            crate::applog::log_packet(&self.applog, ext, p, to_server, &flow_key, pcap_cnt, sink);
        }
        if let Some(certs) = &self.certs {
            let to_server = dir == Direction::ToServer;
            certs.step(ext, false, &mut || {
                crate::applog::packet_meta(p, &flow_key, to_server, pcap_cnt)
            });
        }
        let det = detection.stage.as_ref().map(|d| &*d.detector);
        crate::txfree::free_done(ext, &mut self.app, det, &self.applog);
        if bypass {
            self.tracker.set_bypassed(slot);
        }
        if let Some(dir) = raw_trigger {
            self.tracker.trigger_raw(slot, dir);
        }
        if !ext.depth_set && p.proto == ip_proto::TCP {
            if let Some(proto) = ext.app.as_ref().map(AppFlow::app_proto) {
                if proto != app::AppProto::Unknown {
                    ext.depth_set = true;
                    if let Some(d) = self.app.config.stream_depths.get(proto) {
                        self.tracker.set_stream_depth(slot, d);
                    }
                }
            }
        }
    }

    /// Flushes flows that ended: remaining stream data to the app layer, then close;
    /// their last detection and EVE records. `drain_position`: the capture position of
    /// the flows drained after a sweep or at the end of input (see
    /// `PendingAlert::order`), `None` while frames are processed.
    pub(super) fn drain_ended(
        &mut self,
        detection: &mut Detection,
        last_ts: Timestamp,
        drain_position: Option<u64>,
    ) {
        if !self.tracker.has_ended() {
            return;
        }
        let exts = &mut self.exts;
        let app = &mut self.app;
        let detect = &mut detection.stage;
        let sink = &mut detection.sink;
        let applog = &self.applog;
        let anomaly = &self.anomaly;
        let flowlog = &self.flowlog;
        let certs = &self.certs;
        // Flow records carry the time the flows were ended at (Suricata: when logged).
        let now = Timestamp(self.tracker.now_us().saturating_mul(1000));
        self.tracker.drain_ended(|ended| {
            if let Some(pos) = drain_position {
                sink.position = (pos, ended.key.canonical().0.hash());
            }
            let mut ext = exts.remove(ended.slot);
            // A bypassed flow's end is not processed: only its flow record is written.
            let bypassed = ended.flow.locally_bypassed();
            if let Some(ext) = ext.as_mut().filter(|_| !bypassed) {
                if let Some(appflow) = ext.app.as_mut() {
                    for data in &ended.app {
                        feed_stream(appflow, app, data);
                    }
                    appflow.close(app);
                }
                let meta = || crate::anomaly::ended_meta(&ended, last_ts);
                anomaly.app(app, meta, sink);
                let inspect = !ended.flow.bypassed && !ext.no_inspect;
                if let Some(det) = detect.as_mut().filter(|_| inspect) {
                    let raised = alerts_raised(sink);
                    det.ended_flow(&ended, ext.app.as_ref(), &mut ext.detect, last_ts, sink);
                    ext.marks.alerted |= alerts_raised(sink) > raised;
                }
                if applog.enabled() {
                    crate::applog::log_ended(applog, ext, &ended, last_ts, sink);
                }
                if let Some(certs) = certs {
                    certs.step(ext, true, &mut || {
                        crate::anomaly::ended_meta(&ended, last_ts)
                    });
                }
            }
            if flowlog.enabled() {
                let names: Vec<&str> = match (detect.as_ref(), ext.as_ref()) {
                    (Some(det), Some(ext)) => ext
                        .detect
                        .flowbits()
                        .iter()
                        .filter_map(|&b| det.detector.flowbit_name(b))
                        .collect(),
                    _ => Vec::new(),
                };
                flowlog.log(&ended, ext.as_ref(), &names, now, sink);
            }
        });
    }
}

/// Hands new stream pieces of one direction to the app layer. FTP gets the contiguous
/// bytes one packet makes available in one call, as Suricata parses them (its reply
/// lines are handed out per such chunk).
fn feed_stream(appflow: &mut AppFlow, ctx: &mut AppCtx, data: &StreamData<'_>) {
    let dir = data.dir;
    if appflow.app_proto() == app::AppProto::Ftp {
        let mut chunk: Vec<u8> = Vec::new();
        for piece in data.pieces() {
            match piece {
                Piece::Data { bytes, .. } => chunk.extend_from_slice(bytes),
                Piece::Gap { len, .. } => {
                    appflow.parse(ctx, dir, &std::mem::take(&mut chunk));
                    appflow.gap(ctx, dir, len);
                }
            }
        }
        appflow.parse(ctx, dir, &chunk);
        return;
    }
    if appflow.app_proto() == app::AppProto::Tls {
        return feed_contiguous(appflow, ctx, data);
    }
    for piece in data.pieces() {
        match piece {
            Piece::Data { bytes, .. } => appflow.parse(ctx, dir, bytes),
            Piece::Gap { len, .. } => appflow.gap(ctx, dir, len),
        }
    }
}

thread_local! {
    /// The worker's buffer joining a packet's stream pieces (see [`feed_contiguous`]).
    static JOINED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Hands the bytes one packet makes available in one direction to the app layer in one
/// parse call per run of contiguous pieces, as Suricata parses them: TLS's `ssl_state`
/// is the state of the last handshake message of a call and its handshake-done flag is
/// set at the end of a call, so a record cut over segments acknowledged together must
/// be one call (difftest case dt-1956495344-6735). A single piece is handed as it is;
/// several are joined in a buffer the worker keeps (no allocation per packet once warm).
fn feed_contiguous(appflow: &mut AppFlow, ctx: &mut AppCtx, data: &StreamData<'_>) {
    let dir = data.dir;
    let mut joined = JOINED
        .try_with(|j| j.try_borrow_mut().map(|mut j| std::mem::take(&mut *j)).ok())
        .ok()
        .flatten()
        .unwrap_or_default();
    // The run's first piece, not copied until a second one follows it.
    let mut first: Option<&[u8]> = None;
    let flush = |appflow: &mut AppFlow,
                 ctx: &mut AppCtx,
                 first: &mut Option<&[u8]>,
                 joined: &mut Vec<u8>| {
        if let Some(f) = first.take() {
            appflow.parse(ctx, dir, f);
        } else if !joined.is_empty() {
            appflow.parse(ctx, dir, joined);
            joined.clear();
        }
    };
    for piece in data.pieces() {
        match piece {
            Piece::Data { bytes: [], .. } => {}
            Piece::Data { bytes, .. } => match first.take() {
                None if joined.is_empty() => first = Some(bytes),
                held => {
                    joined.extend_from_slice(held.unwrap_or_default());
                    joined.extend_from_slice(bytes);
                }
            },
            Piece::Gap { len, .. } => {
                flush(appflow, ctx, &mut first, &mut joined);
                appflow.gap(ctx, dir, len);
            }
        }
    }
    flush(appflow, ctx, &mut first, &mut joined);
    // A buffer grown by a burst of large records is not kept.
    if joined.capacity() <= 1 << 20 {
        let _ = JOINED.try_with(|j| {
            if let Ok(mut j) = j.try_borrow_mut() {
                *j = joined;
            }
        });
    }
}
