//! The detection stage: builds each packet's detection input (flow context, raw stream
//! chunk, application-layer state), runs the shared [`Detector`] and hands alerts to
//! the alert sink. Alerts land where Suricata puts them in IDS mode: packet payload at
//! once, stream and app-layer data on the packet that made them inspectable, leftovers
//! at the end of a flow on a pseudo-packet without `pcap_cnt`.

use crate::alerts::AlertSink;
use crate::flows::FlowExt;
use crate::timing::{Stage, StageTimer};
use app::{AppFlow, AppProto};
use detect::{Alert, Detector, FlowDetect, FlowInfo, Input, Scratch};
use flow::{Ended, FlowKey, FlowState, Piece, StreamData, TcpState, Update};
use std::sync::Arc;
use wire::Packet;

/// Per-worker detection state.
pub(crate) struct DetectStage {
    pub(crate) detector: Arc<Detector>,
    scratch: Scratch,
    alerts: Vec<Alert>,
    stream: Vec<u8>,
    /// Verdict of the last packet inspected (drop, reject, pass).
    pub(crate) verdict: detect::Verdict,
    /// Detection and output times.
    pub(crate) timer: StageTimer,
    /// GPU offload of the payload prefilter (`EngineConfig::gpu`).
    pub(crate) offload: Option<crate::offload::OffloadStage>,
}

/// Where the packet being inspected came from, for the alert records.
#[derive(Clone, Copy)]
pub(crate) struct Origin {
    /// 1-based frame number (`pcap_cnt`), `None` for pseudo-packets.
    pub(crate) pcap_cnt: Option<u64>,
    /// Key of the packet's flow (`None` without a flow); the EVE `flow_id` is derived
    /// from it only when an alert is written.
    pub(crate) flow_key: Option<FlowKey>,
    /// The flow's counters when the packet was seen (EVE `direction` and `flow{}`).
    pub(crate) flow: Option<crate::alerts::FlowSnap>,
}

impl DetectStage {
    pub(crate) fn new(detector: Arc<Detector>, timing: bool) -> Self {
        let scratch = detector.scratch();
        DetectStage {
            detector,
            scratch,
            alerts: Vec::new(),
            stream: Vec::new(),
            verdict: detect::Verdict::default(),
            timer: StageTimer::new(timing),
            offload: None,
        }
    }

    /// Leaves threshold checks shared between workers to the caller
    /// ([`Scratch::share_thresholds`]).
    pub(crate) fn share_thresholds(&mut self) {
        self.scratch.share_thresholds();
    }

    /// A packet without a flow (IP fragments, protocols without flows).
    pub(crate) fn packet(&mut self, p: &Packet, buf: &[u8], origin: Origin, sink: &mut AlertSink) {
        self.verdict = detect::Verdict::default();
        // A packet whose IP header did not decode is inspected only for its decoder
        // events (`decode-event` rules, as Suricata matches them).
        if p.ip_version == 0 && p.n_events == 0 {
            return;
        }
        let input = Input::packet(p, buf, None);
        self.run(None, &input, origin, None, (None, 0), sink);
    }

    /// A packet of a flow, after flow tracking and the app layer saw it; `txs`: its
    /// direction's transactions are inspected on it ([`Input::txs`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn flow_packet(
        &mut self,
        p: &Packet,
        buf: &[u8],
        update: &Update<'_>,
        ext: &mut FlowExt,
        origin: Origin,
        txs: bool,
        sink: &mut AlertSink,
    ) {
        let app = ext.app.as_ref();
        let app_proto = app.map_or(AppProto::Unknown, AppFlow::app_proto);
        let tcp = p.proto == wire::ip_proto::TCP;
        let origin = Origin {
            flow: Some(crate::alerts::FlowSnap::new(
                update.flow,
                update.dir == wire::Direction::ToServer,
                false,
            )),
            ..origin
        };
        // Like Suricata, a TCP packet is established when its session was before the
        // stream engine saw it: the ACK that completes the handshake (or the packet a
        // session is picked up on) is not.
        let established = if tcp {
            update.flow.tcp.state >= TcpState::Established
                && !update.events.has(flow::Events::ESTABLISHED)
        } else {
            update.flow.state != FlowState::New
        };
        let info = FlowInfo {
            to_server: update.dir == wire::Direction::ToServer,
            established,
            // From the handshake's second step on, the stream engine takes the data
            // (a midstream SYN/ACK pick-up included): stream rules skip the packet.
            // A session already closed takes no data: the packet is inspected.
            // A SYN's data taken by the stream (TCP Fast Open) is the stream's too.
            payload_in_stream: tcp
                && p.payload_len > 0
                && ((update.flow.tcp.state >= TcpState::SynRecv
                    && !update.events.has(flow::Events::AFTER_CLOSE))
                    || update.events.has(flow::Events::TFO_DATA)),
            app_proto,
            counts: detect::FlowCounts {
                stream_events: update.stream_events,
                stream: fin_not_counted(flow_counts(update.flow).stream, p, update.dir, tcp),
                ..flow_counts(update.flow)
            },
        };
        // Before the handshake's second step (a SYN's data, TCP Fast Open) the stream
        // is not inspected: the data is the packet's payload there.
        let has_stream = collect(&update.raw, &mut self.stream)
            && (!tcp || update.flow.tcp.state >= TcpState::SynRecv);
        let stream = std::mem::take(&mut self.stream);
        // An alert logs the part of the inspected stream its receiver acknowledged
        // (all of it in IDS mode; inline, the packet's own new bytes are not yet).
        let (logged_from, acked) = if tcp && has_stream {
            let acked = acked_prefix(&update.raw, &update.flow.tcp.half[update.dir.index()]);
            (logged_start(&update.raw).min(acked), acked)
        } else {
            (0, stream.len())
        };
        if tcp {
            // Where the payload and the chunk lie in the stream: the chunk's prefilter
            // reuses the scans of the packets it holds (`detect::StreamLayout`).
            self.scratch.stream_layout(detect::StreamLayout {
                payload_at: update.payload_at,
                stream_at: update.raw.contiguous_from().filter(|_| has_stream),
                rewrites: update.raw.rewrites(),
            });
        }
        let input = Input {
            packet: p,
            frame: buf,
            flow: Some(info),
            packet_rules: true,
            stream: has_stream.then_some(&stream[..]),
            app,
            eof_open: false,
            txs,
        };
        self.run(
            Some(&mut ext.detect),
            &input,
            origin,
            app_name(app_proto),
            (has_stream.then_some(&stream[..acked]), logged_from),
            sink,
        );
        self.stream = stream;
    }

    /// A TCP flow that ended: its leftover stream data and app-layer transactions are
    /// inspected on pseudo-packets, one per direction with something left. Other flows
    /// get none: Suricata 7.0.10 makes pseudo-packets only for a TCP session, so the
    /// transactions of a UDP flow's last datagrams are never inspected in the other
    /// direction (found by the differential harness's `dhcp` and `sip` families: a
    /// to-server rule matched the server's reply at the flow's end).
    pub(crate) fn ended_flow(
        &mut self,
        ended: &Ended<'_>,
        app: Option<&AppFlow>,
        fd: &mut FlowDetect,
        last_ts: wire::Timestamp,
        sink: &mut AlertSink,
    ) {
        if ended.key.proto != wire::ip_proto::TCP {
            return;
        }
        let app_proto = app.map_or(AppProto::Unknown, AppFlow::app_proto);
        for (k, raw) in ended.raw.iter().enumerate() {
            let to_server = k == 0;
            let origin = Origin {
                pcap_cnt: None,
                flow_key: Some(ended.key),
                flow: Some(crate::alerts::FlowSnap::new(ended.flow, to_server, true)),
            };
            let has_stream = collect(raw, &mut self.stream);
            let app_left = app.is_some() && app_proto != AppProto::Unknown;
            // Like Suricata, a TCP session that is established and not yet closed gets
            // a pseudo-packet in both directions, data left or not.
            let tcp_open = ended.key.proto == wire::ip_proto::TCP
                && ended.flow.tcp.state >= TcpState::Established
                && ended.flow.tcp.state != TcpState::Closed;
            if !has_stream && !app_left && !tcp_open {
                continue;
            }
            let pkt = pseudo_packet(&ended.key, ended.client_is_src, to_server, last_ts);
            let established = if ended.key.proto == wire::ip_proto::TCP {
                ended.flow.tcp.state >= TcpState::Established
            } else {
                ended.flow.state != FlowState::New
            };
            let info = FlowInfo {
                to_server,
                established,
                payload_in_stream: false,
                app_proto,
                counts: flow_counts(ended.flow),
            };
            // The leftovers are prefiltered from the flow's packets' scans too.
            self.scratch.stream_layout(detect::StreamLayout {
                payload_at: None,
                stream_at: raw.contiguous_from().filter(|_| has_stream),
                rewrites: raw.rewrites(),
            });
            let stream = std::mem::take(&mut self.stream);
            let input = Input {
                packet: &pkt,
                frame: &[],
                flow: Some(info),
                packet_rules: false,
                stream: has_stream.then_some(&stream[..]),
                app,
                eof_open: tcp_open,
                txs: true,
            };
            self.run(
                Some(&mut *fd),
                &input,
                origin,
                app_name(app_proto),
                (input.stream, 0),
                sink,
            );
            self.stream = stream;
        }
    }

    /// Inspects `input`; its alerts log `logged_stream` as their stream data (its first
    /// part: bytes an alert on a transaction does not log, see [`logged_start`]).
    fn run(
        &mut self,
        fd: Option<&mut FlowDetect>,
        input: &Input<'_>,
        origin: Origin,
        app_proto: Option<&'static str>,
        logged_stream: (Option<&[u8]>, usize),
        sink: &mut AlertSink,
    ) {
        let (logged_stream, tx_skip) = logged_stream;
        self.alerts.clear();
        // Suricata attributes a TCP stream match on a flow with an app layer to the
        // direction's inspect transaction (`tx_guessed`) as it was before the packet's
        // transactions were inspected.
        let guessed = match (fd.as_deref(), input.flow, input.app) {
            (Some(fd), Some(fi), Some(_)) if input.packet.proto == wire::ip_proto::TCP => {
                Some(fd.inspect_tx(fi.to_server))
            }
            _ => None,
        };
        let t = self.timer.start();
        let pre = self
            .offload
            .as_mut()
            .and_then(|o| o.pre_matched(input.packet.payload(input.frame)));
        let mut fd = fd;
        match pre {
            Some(pm) => pm.plan.inspect(
                &mut self.scratch,
                fd.as_deref_mut(),
                input,
                pm.patterns,
                &mut self.alerts,
            ),
            None => self.detector.inspect(
                &mut self.scratch,
                fd.as_deref_mut(),
                input,
                &mut self.alerts,
            ),
        }
        self.verdict = self.scratch.verdict();
        // `tag`: the alerts' tags are added, then the packet counted against them.
        let tagged = self.detector.tag_packet(
            fd.as_deref_mut(),
            &self.alerts,
            detect::TagPacket {
                packet: input.packet,
                len: input.frame.len(),
                pseudo: input.frame.is_empty(),
            },
        );
        self.timer.stop(Stage::Detect, t);
        if self.alerts.is_empty() {
            if tagged {
                crate::tagged::write(sink, input.packet, origin, input.frame);
            }
            return;
        }
        let t = self.timer.start();
        let fd = fd.as_deref();
        for alert in &self.alerts {
            // A stream match logs the inspected stream; a transaction's match logs it
            // from where Suricata freed it (keywords_replace: stream matches log from
            // the stream's start; dt-1-smb-ips-54: a transaction's from later).
            let stream = match alert.matched_on {
                detect::MatchedOn::Tx(_) => logged_stream.map(|s| &s[tx_skip.min(s.len())..]),
                _ => logged_stream,
            };
            sink.alert(
                &self.detector,
                alert,
                input.packet,
                input.app,
                crate::alerts::AlertCtx {
                    origin,
                    app_proto,
                    guessed_tx: guessed,
                    flow_detect: fd,
                    frame: input.frame,
                    stream,
                },
            );
        }
        if tagged {
            crate::tagged::write(sink, input.packet, origin, input.frame);
        }
        self.timer.stop(Stage::Output, t);
    }

    /// Counters of the stage.
    pub(crate) fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let s = self.scratch.stats();
        let gpu = self.offload.iter().flat_map(|o| o.counters());
        [
            ("osprey.detect.rules_evaluated", s.rules_evaluated),
            ("detect.alert_queue_overflow", s.alerts_discarded),
            ("detect.alerts_suppressed", s.alerts_suppressed),
            ("osprey.detect.threshold_table_full", s.threshold_table_full),
            ("osprey.detect.pcre_limit_hits", s.pcre_limit_hits),
            ("osprey.detect.tags_dropped", self.detector.tags_dropped()),
            // Prefilter work (issue 29): bytes scanned, matches, patterns, candidates.
            ("osprey.detect.mpm_bytes", s.mpm_bytes),
            ("osprey.detect.mpm_matches", s.mpm_matches),
            ("osprey.detect.mpm_patterns", s.mpm_patterns),
            ("osprey.detect.mpm_candidates", s.mpm_candidates),
            ("osprey.detect.mpm_dsize_skipped", s.mpm_dsize_skipped),
        ]
        .into_iter()
        .chain(gpu)
        // Lua scripts: process-wide counts (merged as engine values).
        .chain(detect::lua::counters_if_used())
    }
}

/// Concatenates the data pieces of `data` into `out`; true when there is any.
/// How many of the bytes [`collect`] gathers from `data` the receiver acknowledged:
/// those before `half.last_ack`, Suricata 7.0.10's end of the stream data an alert
/// logs (inline, where the packet's own bytes are inspected before their ACK, an alert
/// on a stream nothing of which is acknowledged logs the packet's payload).
fn acked_prefix(data: &StreamData<'_>, half: &flow::tcp::Half) -> usize {
    let pieces = || {
        data.pieces().filter_map(|p| match p {
            Piece::Data { offset, bytes } => Some((offset, bytes.len())),
            Piece::Gap { .. } => None,
        })
    };
    acked_len(pieces, half.last_ack, half.isn)
}

/// How many bytes of the inspected stream `data` lie before the start of the stream an
/// alert on a transaction logs: inline, Suricata 7.0.10 logs from where it freed the stream after the
/// direction's previous packet (what both consumers took and the receiver
/// acknowledged then), not the whole inspection window (difftest `smb`, `http`,
/// `filekw` families in IPS mode with payloads); nothing in IDS mode.
fn logged_start(data: &StreamData<'_>) -> usize {
    let from = data.log_from();
    let pieces = data.pieces().filter_map(|p| match p {
        Piece::Data { offset, bytes } => Some((offset, bytes.len())),
        Piece::Gap { .. } => None,
    });
    skipped_len(pieces, from)
}

/// Bytes of the data pieces' (stream offset, length) before stream offset `from`.
fn skipped_len(pieces: impl Iterator<Item = (u64, usize)>, from: u64) -> usize {
    pieces
        .map(|(o, l)| from.saturating_sub(o).min(l as u64) as usize)
        .sum()
}

/// [`acked_prefix`] over the data pieces' (stream offset, length), in stream order.
fn acked_len<I: Iterator<Item = (u64, usize)>>(
    pieces: impl Fn() -> I,
    last_ack: u32,
    isn: u32,
) -> usize {
    // Stream offset 0 is the byte after the ISN; the ACK's offset in 32 bits is placed
    // next to the data's end, so streams past 4 GiB are cut where they should be.
    let rel = last_ack.wrapping_sub(isn.wrapping_add(1));
    let end = pieces().map(|(o, l)| o + l as u64).max().unwrap_or(0);
    let behind = i64::from((end as u32).wrapping_sub(rel) as i32).max(0) as u64;
    let acked = end.saturating_sub(behind);
    let mut n = 0usize;
    for (offset, len) in pieces() {
        let take = acked.saturating_sub(offset).min(len as u64) as usize;
        n += take;
        if take < len {
            break;
        }
    }
    n
}

fn collect(data: &StreamData<'_>, out: &mut Vec<u8>) -> bool {
    out.clear();
    for piece in data.pieces() {
        if let Piece::Data { bytes, .. } = piece {
            out.extend_from_slice(bytes);
        }
    }
    !out.is_empty()
}

fn app_name(p: AppProto) -> Option<&'static str> {
    match p {
        AppProto::Unknown | AppProto::Failed => None,
        other => Some(other.name()),
    }
}

/// A stable id for a flow (Suricata's `flow_id` is an opaque number too).
pub(crate) fn flow_id(key: &FlowKey) -> u64 {
    key.canonical().0.hash() & ((1 << 52) - 1)
}

/// The metadata of a pseudo-packet of a flow in one direction.
fn pseudo_packet(
    key: &FlowKey,
    client_is_src: bool,
    to_server: bool,
    ts: wire::Timestamp,
) -> Packet {
    let from_key_src = client_is_src == to_server;
    let (src, dst, sport, dport) = if from_key_src {
        (key.src, key.dst, key.sport, key.dport)
    } else {
        (key.dst, key.src, key.dport, key.sport)
    };
    Packet {
        ts,
        src,
        dst,
        sport,
        dport,
        proto: key.proto,
        ip_version: if key.family == flow::Family::V4 { 4 } else { 6 },
        vlan: key.vlan,
        ..Packet::default()
    }
}

/// `stream_size` on the packet that carries a side's FIN: Suricata 7.0.10 counts the
/// FIN's sequence number from the next packet on (a 36-byte client stream is 37 on its
/// FIN, 38 after it; found by the differential harness's `flowkw` family).
fn fin_not_counted(
    stream: Option<[u32; 2]>,
    p: &wire::Packet,
    dir: wire::Direction,
    tcp: bool,
) -> Option<[u32; 2]> {
    let mut s = stream?;
    let fin = tcp && p.tcp_flags & wire::tcp_flags::FIN != 0;
    let i = usize::from(dir != wire::Direction::ToServer);
    if fin && s[i] > 0 {
        s[i] -= 1;
    }
    Some(s)
}

/// What detection's `stream_size` and `flow.age` read from the tracker's flow: the
/// first packet's second and, with a TCP session, each side's sequence space used.
fn flow_counts(f: &flow::Flow) -> detect::FlowCounts {
    let used = |h: &flow::tcp::Half| h.next_seq.wrapping_sub(h.isn);
    detect::FlowCounts {
        first_secs: f.first_us / 1_000_000,
        stream: (f.tcp.state != TcpState::None)
            .then(|| [used(&f.tcp.half[0]), used(&f.tcp.half[1])]),
        first_usecs: (f.first_us % 1_000_000) as u32,
        pkts: f.pkts,
        bytes: f.bytes,
        stream_events: wire::StreamEvents::NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::{acked_len, skipped_len};

    fn cut(pieces: &[(u64, usize)], last_ack: u32, isn: u32) -> usize {
        acked_len(|| pieces.iter().copied(), last_ack, isn)
    }

    /// Inline, the logged stream starts where Suricata freed it after the direction's
    /// previous packet (difftest `smb` family in IPS mode, dt-1-smb-ips-54).
    #[test]
    fn the_logged_stream_starts_where_the_stream_was_freed() {
        let two = [(51, 152), (203, 264)];
        assert_eq!(skipped_len(two.iter().copied(), 0), 0);
        assert_eq!(skipped_len(two.iter().copied(), 51), 0);
        assert_eq!(skipped_len(two.iter().copied(), 100), 49);
        assert_eq!(skipped_len(two.iter().copied(), 203), 152);
        assert_eq!(skipped_len(two.iter().copied(), 300), 249);
        assert_eq!(skipped_len(two.iter().copied(), 9999), 416);
    }

    /// The acknowledged part of an inline inspection window (difftest `replace` family
    /// in IPS mode, `crates/cli/tests/keywords_replace.rs`): nothing before the first
    /// ACK, whole pieces and a cut one after, everything once the ACK passed the end.
    #[test]
    fn the_logged_stream_ends_at_the_last_ack() {
        let two = [(0, 11), (11, 11)];
        assert_eq!(cut(&two, 1001, 1000), 0);
        assert_eq!(cut(&two, 1012, 1000), 11);
        assert_eq!(cut(&two, 1017, 1000), 16);
        assert_eq!(cut(&two, 1023, 1000), 22);
        // A FIN's sequence number acknowledged too.
        assert_eq!(cut(&two, 1024, 1000), 22);
        // A gap (bytes never seen) between two pieces counts no bytes.
        assert_eq!(cut(&[(0, 5), (10, 5)], 1013, 1000), 7);
        assert_eq!(cut(&[(0, 5), (10, 5)], 1008, 1000), 5);
        // Sequence numbers wrapping past 2^32.
        let isn = u32::MAX - 3;
        assert_eq!(cut(&two, isn.wrapping_add(1 + 7), isn), 7);
        // A stream past 4 GiB: the ACK's 32 bits placed next to the data.
        let far = 1u64 << 32;
        assert_eq!(cut(&[(far + 100, 10)], 1000 + 1 + 105, 1000), 5);
        assert_eq!(cut(&[], 1001, 1000), 0);
    }
}
