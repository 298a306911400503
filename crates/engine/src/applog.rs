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
    let Some(app) = ext.app.as_ref() else {
        return;
    };
    let packet_dir = app::registry::logs_packet_direction(app.app_proto());
    let mut meta = || {
        let v4 = p.ip_version == 4;
        let (c, s, cp, sp) = if to_server || packet_dir {
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
    };
    let dir = if to_server {
        app::Direction::ToServer
    } else {
        app::Direction::ToClient
    };
    logger.log_packet(app, &mut ext.log, false, Some(dir), &mut meta, &mut |v| {
        sink.event(&v)
    });
}

/// Logs everything left of a flow that ended.
pub(crate) fn log_ended(
    logger: &AppLogger,
    ext: &mut FlowExt,
    ended: &Ended<'_>,
    ts: Timestamp,
    sink: &mut AlertSink,
) {
    let Some(app) = ext.app.as_ref() else {
        return;
    };
    let mut meta = || crate::anomaly::ended_meta(ended, ts);
    logger.log(app, &mut ext.log, true, &mut meta, &mut |v| sink.event(&v));
}
