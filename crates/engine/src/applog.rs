//! Application-layer EVE records (`http`, `dns`, `tls`): after a packet went through
//! the app layer and detection, the flow's transactions that became loggable are
//! written, as Suricata's transaction loggers do; when a flow ends, what is left is
//! written on its end-of-flow pseudo-packet (no `pcap_cnt`).

use crate::alerts::AlertSink;
use crate::flows::FlowExt;
use flow::{Ended, FlowKey};
use output::{AppLogger, EventMeta};
use wire::{ip_addr, Packet, Timestamp};

/// Logs what packet `p` of the flow `key` made loggable (`to_server`: the packet's
/// direction; records are written client → server, or in the packet's direction for
/// the protocols whose Suricata logger does so, [`app::registry::logs_packet_direction`]).
pub(crate) fn log_packet(
    logger: &AppLogger,
    ext: &mut FlowExt,
    p: &Packet,
    to_server: bool,
    key: &FlowKey,
    pcap_cnt: Option<u64>,
    sink: &mut AlertSink,
) {
    log_prior(logger, ext, sink, &mut || {
        // Suricata writes them on a pseudo-packet, client → server.
        let m = packet_meta(p, key, to_server, pcap_cnt);
        EventMeta {
            pcap_cnt: None,
            pkt_src: "stream (detect/log)",
            ..m
        }
    });
    let Some(app) = ext.app.as_ref() else {
        return;
    };
    let packet_dir = app::registry::logs_packet_direction(app.app_proto());
    let mut meta = || packet_meta(p, key, to_server || packet_dir, pcap_cnt);
    let dir = if to_server {
        app::Direction::ToServer
    } else {
        app::Direction::ToClient
    };
    let marks = ext.detect.log_marks_mut();
    let skip = &mut |tx: &dyn app::Transaction| marks.skip(tx);
    let out = &mut |v: serde_json::Value| sink.event(&v);
    logger.log_packet_skipping(app, &mut ext.log, false, Some(dir), skip, &mut meta, out);
    forget_log_marks(logger, ext, sink);
}

/// Forgets the `config: logging disable` marks of the transactions the loggers are
/// done with (detect's `log_config.rs`), so a flow keeps only those still to skip,
/// and counts the request keys it had to replace.
fn forget_log_marks(logger: &AppLogger, ext: &mut FlowExt, sink: &mut AlertSink) {
    if ext.detect.log_marks().is_empty() {
        return;
    }
    sink.config_keys_evicted += ext.detect.log_marks_mut().take_evicted();
    let done = match ext.app.as_ref() {
        Some(app) => logger.txs_logged_before(app, &ext.log),
        None => u64::MAX,
    };
    ext.detect.log_marks_mut().forget_below(done);
}

/// The header of an app-layer record about packet `p` of the flow `key`: in the
/// packet's direction when `as_packet`, else the other way.
pub(crate) fn packet_meta(
    p: &Packet,
    key: &FlowKey,
    as_packet: bool,
    pcap_cnt: Option<u64>,
) -> EventMeta {
    let v4 = p.ip_version == 4;
    let (c, s, cp, sp) = if as_packet {
        (&p.src, &p.dst, p.sport, p.dport)
    } else {
        (&p.dst, &p.src, p.dport, p.sport)
    };
    EventMeta {
        ts_secs: p.ts.secs() as i64,
        ts_micros: p.ts.subsec_nanos() / 1000,
        flow_id: crate::detection::flow_id(key),
        pcap_cnt,
        vlan: p.vlan,
        src_ip: ip_addr(v4, c),
        src_port: cp,
        dest_ip: ip_addr(v4, s),
        dest_port: sp,
        proto: p.proto,
        pkt_src: if pcap_cnt.is_some() {
            "wire/pcap"
        } else {
            "defrag"
        },
    }
}

/// Writes the transactions left of the protocol the flow had before it changed
/// protocol (SMTP before `STARTTLS`), with the header `meta` gives, then frees that
/// state: the flow's log progress restarts with the new protocol's transactions.
fn log_prior(
    logger: &AppLogger,
    ext: &mut FlowExt,
    sink: &mut AlertSink,
    meta: &mut dyn FnMut() -> EventMeta,
) {
    let Some(app) = ext.app.as_ref().filter(|a| a.prior().is_some()) else {
        return;
    };
    let marks = ext.detect.log_marks_mut();
    let skip = &mut |tx: &dyn app::Transaction| marks.skip(tx);
    logger.log_prior_skipping(app, &mut ext.log, skip, meta, &mut |v| sink.event(&v));
    if let Some(app) = ext.app.as_mut() {
        app.drop_prior();
    }
    // The marks were the prior protocol's: the new one's transactions count from 0.
    sink.config_keys_evicted += ext.detect.log_marks_mut().take_evicted();
    ext.detect.log_marks_mut().clear();
}

/// Logs everything left of a flow that ended.
pub(crate) fn log_ended(
    logger: &AppLogger,
    ext: &mut FlowExt,
    ended: &Ended<'_>,
    ts: Timestamp,
    sink: &mut AlertSink,
) {
    log_prior(logger, ext, sink, &mut || {
        crate::anomaly::ended_meta(ended, ts)
    });
    let Some(app) = ext.app.as_ref() else {
        return;
    };
    let mut meta = || crate::anomaly::ended_meta(ended, ts);
    let marks = ext.detect.log_marks_mut();
    let skip = &mut |tx: &dyn app::Transaction| marks.skip(tx);
    let out = &mut |v: serde_json::Value| sink.event(&v);
    logger.log_packet_skipping(app, &mut ext.log, true, None, skip, &mut meta, out);
    forget_log_marks(logger, ext, sink);
}
