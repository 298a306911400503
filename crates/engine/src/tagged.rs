//! EVE `packet` records of the packets a rule's `tag` marked (`alert: tagged-packets:
//! yes`; the eve-log outputs route them with their alerts, see
//! [`crate::outputs::EveOutput::wants`]).

use crate::alerts::AlertSink;
use crate::detection::Origin;
use wire::{ip_addr, Packet};

/// Writes the `packet` record of tagged packet `pkt` (captured as `frame`).
pub(crate) fn write(sink: &mut AlertSink, pkt: &Packet, origin: Origin, frame: &[u8]) {
    if !sink.alert_options.tagged_packets {
        return;
    }
    let ports = wire::has_ports(pkt.proto);
    let record = output::eve::TaggedPacket {
        ts_secs: pkt.ts.secs() as i64,
        ts_micros: pkt.ts.subsec_nanos() / 1000,
        flow_id: origin
            .flow_key
            .as_ref()
            .map_or(0, crate::detection::flow_id),
        pcap_cnt: origin.pcap_cnt,
        vlan: pkt.vlan,
        src: (
            ip_addr(pkt.ip_version == 4, &pkt.src),
            ports.then_some(pkt.sport),
        ),
        dest: (
            ip_addr(pkt.ip_version == 4, &pkt.dst),
            ports.then_some(pkt.dport),
        ),
        proto: pkt.proto,
        pkt_src: crate::alerts::pkt_src(pkt, origin.flow.as_ref()),
        frame,
        linktype: pkt.link_type.0,
    }
    .to_eve();
    sink.event(&record);
}
