//! The alert sink: turns detector alerts into EVE JSON records and fast.log lines,
//! and hands them and the other EVE records to the run's outputs ([`Outputs`], shared
//! by every worker of a run, which route each record by its event type); each worker
//! has its own sink and counters.

use crate::detection::Origin;
pub(crate) use crate::outputs::Outputs;
use detect::{Alert, Detector};
use output::AlertRecord;
use rules::classification::Classifications;
use std::io;
use std::sync::Arc;
use wire::{ip_addr, Packet};

/// What an alert record says about the packet's flow, copied when the packet is
/// inspected (no allocation): the packet's direction and the flow's counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowSnap {
    to_server: bool,
    /// An end-of-flow pseudo-packet (`pkt_src: stream (flow timeout)`).
    pseudo: bool,
    pkts: [u32; 2],
    bytes: [u64; 2],
    first_us: u64,
}

impl FlowSnap {
    /// The state of `flow` for a packet going `to_server` (or a pseudo-packet).
    pub(crate) fn new(flow: &flow::Flow, to_server: bool, pseudo: bool) -> FlowSnap {
        FlowSnap {
            to_server,
            pseudo,
            pkts: flow.pkts,
            bytes: flow.bytes,
            first_us: flow.first_us,
        }
    }

    /// The EVE view, for an alert on `pkt` (whose addresses give the flow's ends);
    /// `bypassed`: a `bypass` rule matched the packet.
    fn eve(&self, pkt: &Packet, bypassed: bool) -> output::eve::AlertFlow {
        let src = ip_addr(pkt.ip_version == 4, &pkt.src);
        let dst = ip_addr(pkt.ip_version == 4, &pkt.dst);
        let ports = wire::has_ports(pkt.proto);
        let (sport, dport) = (ports.then_some(pkt.sport), ports.then_some(pkt.dport));
        let ((src_ip, src_port), (dest_ip, dest_port)) = if self.to_server {
            ((src, sport), (dst, dport))
        } else {
            ((dst, dport), (src, sport))
        };
        output::eve::AlertFlow {
            to_server: self.to_server,
            pkts: self.pkts.map(u64::from),
            bytes: self.bytes,
            start_us: self.first_us,
            src_ip,
            dest_ip,
            src_port,
            dest_port,
            bypassed,
        }
    }
}

/// Suricata's `pkt_src` of an alerted packet.
pub(crate) fn pkt_src(pkt: &Packet, flow: Option<&FlowSnap>) -> &'static str {
    use wire::Tunnel as T;
    if flow.is_some_and(|f| f.pseudo) {
        return "stream (flow timeout)";
    }
    match pkt.tunnel {
        T::None => "wire/pcap",
        T::Reassembled => "defrag",
        T::Gre | T::Erspan => "gre tunnel",
        T::Vxlan => "vxlan encapsulation",
        T::Geneve => "geneve encapsulation",
        T::Teredo => "teredo tunnel",
        T::Ipv4InIpv4 | T::Ipv6InIpv4 => "ipv4 tunnel",
        T::Ipv4InIpv6 | T::Ipv6InIpv6 => "ipv6 tunnel",
    }
}

/// What the detection stage knows about an alert beside the rule and the packet.
#[derive(Clone, Copy)]
pub(crate) struct AlertCtx<'a> {
    /// Where the packet came from.
    pub(crate) origin: Origin,
    /// The flow's application protocol, when detected.
    pub(crate) app_proto: Option<&'static str>,
    /// The direction's inspect transaction, for stream matches (`tx_guessed`).
    pub(crate) guessed_tx: Option<u64>,
    /// The flow's detection state after the packet (its flowbits).
    pub(crate) flow_detect: Option<&'a detect::FlowDetect>,
    /// The captured frame (empty for a pseudo-packet).
    pub(crate) frame: &'a [u8],
    /// The stream data an alert logs: the acknowledged part of what was inspected
    /// with the packet (empty when none of it is), if the packet had stream data.
    pub(crate) stream: Option<&'a [u8]>,
}

/// Where one worker's alerts go.
pub(crate) struct AlertSink {
    outputs: Option<Arc<Outputs>>,
    classifications: Option<Classifications>,
    /// Alerts raised (`detect.alert`).
    pub(crate) count: u64,
    /// Lines that could not be queued for writing.
    pub(crate) write_errors: u64,
    /// DNS request keys of `config: logging disable` replaced by newer ones
    /// (`osprey.detect.config_keys_evicted`, detect's `log_config.rs`).
    pub(crate) config_keys_evicted: u64,
    /// IPS mode: `drop` alerts are written as `blocked`.
    pub(crate) ips: bool,
    /// Alerts whose threshold check is shared between workers, held for
    /// [`SharedAlerts`] (`None`: every check is made here).
    pub(crate) deferred: Option<Vec<PendingAlert>>,
    /// Where in the capture the alerts being raised come from: see
    /// [`PendingAlert::order`].
    pub(crate) position: (u64, u64),
    /// The outermost packet of the frame's packet being inspected, when that packet
    /// came out of a tunnel (set by the pipeline per packet).
    pub(crate) tunnel: Option<output::eve::AlertTunnel>,
    /// The eve-log output's alert options (payload, packet, metadata, HTTP bodies).
    pub(crate) alert_options: output::eve::AlertOptions,
    /// Keep the first blocking alert of each packet for its drop record (`- drop:
    /// alerts: yes`, IPS mode).
    pub(crate) keep_blocked: bool,
    /// That alert of the packet being inspected: its `tx_id`, `tx_guessed` and
    /// `alert{}` (cleared by the pipeline per packet).
    pub(crate) blocked: Option<serde_json::Map<String, serde_json::Value>>,
    seq: u64,
    /// Each alerting rule's `metadata` split into key and value, by rule index: made
    /// at its first alert instead of at every one (bounded by the rule count).
    metadata: std::collections::HashMap<u32, Box<[(String, String)]>>,
}

/// Room an alert's EVE line starts with (most records fit: one allocation each).
const EVE_LINE_ROOM: usize = 1024;

/// An alert held until its shared threshold check is made.
pub(crate) struct PendingAlert {
    /// Capture order of the match, the same whichever worker raised it: (2 × frame
    /// index, 0) for a frame's packets; (2 × frame index + 1, flow hash) for flows a
    /// sweep after that frame ended, (`u64::MAX`, flow hash) for flows ended at the end
    /// of input; then the worker's own sequence number.
    order: (u64, u64, u64),
    check: detect::DeferredThreshold,
    eve: Option<serde_json::Value>,
    fast: Option<Vec<u8>>,
}

/// The threshold checks that several workers' matches share (rules tracked by source,
/// destination or rule), made in capture order: each worker hands over its held alerts
/// after every batch, with how far in the capture it got; the alerts no worker can
/// precede any more are checked in order and written or dropped. One lock per batch,
/// none per packet.
pub(crate) struct SharedAlerts {
    inner: std::sync::Mutex<Shared>,
}

struct Shared {
    thresholds: detect::SharedThresholds,
    pending: Vec<(usize, PendingAlert)>,
    /// Per worker: every alert it will hand over from now on is ordered at or after
    /// this position.
    marks: Vec<u64>,
    outputs: Arc<Outputs>,
    alerts: u64,
    quiet: u64,
    full: u64,
    write_errors: u64,
}

impl SharedAlerts {
    pub(crate) fn new(workers: usize, outputs: Arc<Outputs>) -> SharedAlerts {
        SharedAlerts {
            inner: std::sync::Mutex::new(Shared {
                thresholds: detect::SharedThresholds::default(),
                pending: Vec::new(),
                marks: vec![0; workers],
                outputs,
                alerts: 0,
                quiet: 0,
                full: 0,
                write_errors: 0,
            }),
        }
    }

    /// Takes `held` from `worker`, which will hand over nothing ordered before `mark`
    /// from now on (`u64::MAX`: nothing at all), and settles every alert no worker can
    /// precede any more.
    pub(crate) fn submit(&self, worker: usize, held: &mut Vec<PendingAlert>, mark: u64) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let sh = &mut *g;
        sh.pending.extend(held.drain(..).map(|a| (worker, a)));
        sh.marks[worker] = sh.marks[worker].max(mark);
        if sh.pending.is_empty() {
            return;
        }
        let ready = sh.marks.iter().copied().min().unwrap_or(u64::MAX);
        sh.pending
            .sort_unstable_by_key(|(w, a)| (a.order.0, a.order.1, *w, a.order.2));
        let n = if ready == u64::MAX {
            sh.pending.len()
        } else {
            sh.pending.partition_point(|(_, a)| a.order.0 < ready)
        };
        for (_, a) in sh.pending.drain(..n) {
            match sh.thresholds.check(&a.check) {
                detect::ThresholdVerdict::Alert => {
                    sh.alerts += 1;
                    if let Some(record) = &a.eve {
                        sh.write_errors += sh.outputs.write_event(record);
                    }
                    if let Some(line) = a.fast {
                        sh.write_errors += sh.outputs.write_fast(line);
                    }
                }
                detect::ThresholdVerdict::Quiet => sh.quiet += 1,
                detect::ThresholdVerdict::Full => sh.full += 1,
            }
        }
    }

    /// Adds the shared checks' counters to a worker's.
    pub(crate) fn add_counters(&self, stats: &mut output::stats::StatsTree) {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        stats.add("detect.alert", g.alerts);
        stats.add("detect.alerts_suppressed", g.quiet);
        stats.add("osprey.detect.threshold_table_full", g.full);
        stats.add("osprey.output.write_errors", g.write_errors);
        g.outputs.add_counters(stats);
    }
}

/// What a drop record takes from the alert that caused the drop (`- drop: alerts:
/// yes`): its `tx_id`, `tx_guessed` and `alert{}`, in Suricata's order.
fn blocked_part(record: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    ["tx_id", "tx_guessed", "alert"]
        .into_iter()
        .filter_map(|k| Some((k.to_string(), record.get(k)?.clone())))
        .collect()
}

impl AlertSink {
    /// A sink writing into `outputs` (alerts are counted in any case).
    pub(crate) fn new(outputs: Arc<Outputs>, classifications: Option<Classifications>) -> Self {
        AlertSink {
            outputs: Some(outputs),
            classifications,
            count: 0,
            write_errors: 0,
            config_keys_evicted: 0,
            ips: false,
            deferred: None,
            position: (0, 0),
            tunnel: None,
            alert_options: output::eve::AlertOptions::default(),
            keep_blocked: false,
            blocked: None,
            seq: 0,
            metadata: Default::default(),
        }
    }

    /// Records one alert raised on `pkt`.
    pub(crate) fn alert(
        &mut self,
        det: &Detector,
        alert: &Alert,
        pkt: &Packet,
        app: Option<&app::AppFlow>,
        ctx: AlertCtx<'_>,
    ) {
        let AlertCtx {
            origin,
            app_proto,
            guessed_tx,
            flow_detect,
            frame,
            stream,
        } = ctx;
        let opts = self.alert_options;
        let check = alert.deferred.filter(|_| self.deferred.is_some());
        if check.is_none() {
            self.count += 1;
        }
        let Some(out) = self
            .outputs
            .as_deref()
            .filter(|o| o.wants_alerts() || o.has_fast() || self.keep_blocked)
        else {
            self.hold(check, None, None);
            return;
        };
        let info = det.rule(alert.rule);
        let msg = info.map_or("", |i| i.msg.as_str());
        let category = info
            .and_then(|i| i.classtype.as_deref())
            .and_then(|c| self.classifications.as_ref()?.get(c))
            .map_or("", |c| c.description.as_str());
        let metadata: &[(String, String)] = match info {
            Some(i) => self.metadata.entry(alert.rule).or_insert_with(|| {
                i.metadata
                    .iter()
                    .filter_map(|m| {
                        let m = m.trim();
                        let (k, v) = m.split_once(char::is_whitespace)?;
                        Some((k.to_string(), v.trim().to_string()))
                    })
                    .collect()
            }),
            None => &[],
        };
        // Alerts on a transaction carry its http/dns/tls object, as Suricata's do.
        // A stream match is attributed to the direction's inspect transaction, as
        // Suricata does (`tx_guessed`), when the flow's parser has that transaction.
        // A frame match names its frame (still held by the flow: frames are dropped
        // only when the next one is recorded) and, for an HTTP/1 message, its
        // transaction; other frames have none (Suricata writes no tx_id, no tls{}).
        let frame_match = match alert.matched_on {
            detect::MatchedOn::Frame(h) => app
                .and_then(app::AppFlow::frames)
                .and_then(|f| f.get(h.dir(), h.id)),
            _ => None,
        };
        let (tx_id, guessed) = match alert.matched_on {
            detect::MatchedOn::Tx(id) => (Some(id), false),
            detect::MatchedOn::Stream => (guessed_tx, true),
            detect::MatchedOn::Packet => (None, false),
            detect::MatchedOn::Frame(_) => (frame_match.and_then(|(f, _)| f.tx_id), false),
        };
        let mut extra: Vec<(&str, serde_json::Value)> = match (tx_id, app) {
            (Some(id), Some(a)) => output::eve::alert_app_object(a, id).into_iter().collect(),
            _ => Vec::new(),
        };
        let tx_id = tx_id.filter(|_| !guessed || !extra.is_empty());
        crate::alert_extras::http_bodies(&opts, app, tx_id, &mut extra);
        if !opts.metadata {
            // `metadata: no`: no app-layer object.
            extra.clear();
        }
        // The flow's flowbits, in the order they were set (`metadata.flowbits`).
        let flowbits: Vec<&str> = flow_detect
            .map(|fd| {
                fd.flowbits()
                    .iter()
                    .filter_map(|&b| det.flowbit_name(b))
                    .collect()
            })
            .unwrap_or_default();
        let proto = pkt.record_proto();
        let has_ports = wire::has_ports(proto);
        let src_ip = ip_addr(pkt.ip_version == 4, &pkt.src);
        let dest_ip = ip_addr(pkt.ip_version == 4, &pkt.dst);
        let (src_port, dest_port) = (
            has_ports.then_some(pkt.sport),
            has_ports.then_some(pkt.dport),
        );
        let target = info.and_then(|i| i.target).map(|t| {
            let target_is_src = t == rules::ast::Target::SrcIp;
            output::eve::AlertTarget::new((src_ip, src_port), (dest_ip, dest_port), target_is_src)
        });
        let record = AlertRecord {
            ts_secs: pkt.ts.secs() as i64,
            ts_micros: pkt.ts.subsec_nanos() / 1000,
            flow_id: origin
                .flow_key
                .as_ref()
                .map_or(0, crate::detection::flow_id),
            pcap_cnt: origin.pcap_cnt,
            vlan: pkt.vlan,
            src_ip,
            src_port,
            dest_ip,
            dest_port,
            proto,
            icmp: wire::is_icmp(proto).then_some((pkt.icmp_type, pkt.icmp_code)),
            pkt_src: pkt_src(pkt, origin.flow.as_ref()),
            tx_id,
            tx_guessed: guessed && tx_id.is_some(),
            app_proto,
            // As Suricata: a reject is active in any mode, a drop only inline.
            action: match alert.action {
                rules::Action::Reject
                | rules::Action::RejectSrc
                | rules::Action::RejectDst
                | rules::Action::RejectBoth => "blocked",
                rules::Action::Drop | rules::Action::Sdrop if self.ips => "blocked",
                _ => "allowed",
            },
            gid: alert.gid,
            sid: alert.sid,
            rev: alert.rev,
            signature: msg,
            category,
            severity: alert.priority,
            metadata,
            flowbits: &flowbits,
            target,
            // Moved into the EVE record below instead (a copy per alert otherwise).
            extra: &[],
            flow: origin
                .flow
                .as_ref()
                .map(|f| f.eve(pkt, flow_detect.is_some_and(|d| d.bypass_requested()))),
            tunnel: self
                .tunnel
                .filter(|_| !matches!(pkt.tunnel, wire::Tunnel::None | wire::Tunnel::Reassembled)),
            payload: crate::alert_extras::payload(&opts, alert, pkt, frame, stream),
            frame: frame_match.map(|(f, bytes)| output::eve::AlertFrame {
                ty: f.ty.type_name(),
                id: f.id,
                to_server: matches!(
                    alert.matched_on,
                    detect::MatchedOn::Frame(h) if h.to_server
                ),
                stream_offset: f.stream_offset,
                len: f.len,
                // Osprey inspects a frame once the parser completed it.
                complete: true,
                tx_id: f.tx_id,
                payload: bytes,
            }),
        };
        if self.keep_blocked && record.action == "blocked" && self.blocked.is_none() {
            self.blocked = Some(blocked_part(&record.to_eve()));
        }
        // A packet whose IP header did not decode (a `decode-event` alert) has no
        // addresses, ports or protocol in Suricata's record; nor has an IPv4 packet
        // whose options broke its decoding (an option length under 2 or past the
        // header); one with an option of a length that option cannot have still
        // decodes and logs them (difftest `events/ipv4opt`).
        let cleared = pkt.ip_version == 0 || pkt.has(wire::flags::IP_HDR_BROKEN);
        // The common case: the record written straight into its line, no `Value` tree
        // (the same bytes: `AlertRecord::write_eve`). Records that are edited after
        // they are built (variables, a cleared header, an output's added fields) or
        // held for a shared threshold check are built as `Value`s below.
        if out.wants_alerts()
            && check.is_none()
            && !cleared
            && flow_detect.is_none_or(|fd| !crate::alert_vars::any(fd, det))
            && out.alerts_undecorated()
        {
            let mut line = Vec::with_capacity(EVE_LINE_ROOM);
            if record.write_eve(&extra, &mut line) {
                self.write_errors += out.write_event_line("alert", line);
                if out.has_fast() {
                    self.write_errors += out.write_fast(record.to_fast().into_bytes());
                }
                return;
            }
        }
        let mut eve = out
            .wants_alerts()
            .then(|| record.to_eve_with(std::mem::take(&mut extra)));
        if let (Some(fd), Some(e)) = (flow_detect, eve.as_mut()) {
            crate::alert_vars::add(e, fd, det);
        }
        if let (true, Some(serde_json::Value::Object(o))) = (cleared, eve.as_mut()) {
            for k in ["src_ip", "src_port", "dest_ip", "dest_port", "proto"] {
                o.remove(k);
            }
        }
        let fast = out.has_fast().then(|| record.to_fast().into_bytes());
        if check.is_some() {
            self.hold(check, eve, fast);
            return;
        }
        if let Some(record) = &eve {
            self.write_errors += out.write_event(record);
        }
        if let Some(line) = fast {
            self.write_errors += out.write_fast(line);
        }
    }

    /// Holds an alert (its lines, when written) for its shared threshold check.
    fn hold(
        &mut self,
        check: Option<detect::DeferredThreshold>,
        eve: Option<serde_json::Value>,
        fast: Option<Vec<u8>>,
    ) {
        if let (Some(check), Some(held)) = (check, self.deferred.as_mut()) {
            held.push(PendingAlert {
                order: (self.position.0, self.position.1, self.seq),
                check,
                eve,
                fast,
            });
            self.seq += 1;
        }
    }

    /// Writes one non-alert EVE record (`http`, `dns`, `flow`, ...) to every eve-log
    /// output whose types include its `event_type`.
    pub(crate) fn event(&mut self, record: &serde_json::Value) {
        if let Some(out) = self.outputs.as_deref() {
            self.write_errors += out.write_event(record);
        }
    }

    /// Lets go of the files; closes them when this sink was their last user.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        match self.outputs.take().map(Arc::try_unwrap) {
            Some(Ok(outputs)) => outputs.finish().map(|_| ()),
            _ => Ok(()),
        }
    }
}
