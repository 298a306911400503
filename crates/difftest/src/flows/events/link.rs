//! Link-layer and GRE anomalies of the `events` family: cut Ethernet and VLAN
//! headers, three VLAN tags, PPP/PPPoE protocols, GRE versions and flags.

use super::*;

const LINK_NAMES: &[&str] = &[
    "ethernet.pkt_too_small",
    "vlan.header_too_small",
    "vlan.unknown_type",
    "vlan.too_many_layers",
    "ppp.unsup_proto",
    "ppp.wrong_type",
];

pub(super) fn link(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let body = udp_body(f, b"vlan-data");
    let ip = build::ip(f.client, f.server, 88, 17, &body);
    let et = build::ethertype_of(&ip);
    let vid = (f.sport % 4000) + 1;
    let which = g.size(0, 5);
    let (frame, raises, undecoded): (Vec<u8>, &'static [&'static str], bool) = match which {
        5 => {
            // A PPPoE session frame of a PPP protocol Suricata knows but does not
            // decode, or does not know (CCP is unknown in a session, known on raw PPP).
            let (proto, raises): (&[u8], &'static [&'static str]) = match g.size(0, 4) {
                0 => (&[0xc0, 0x21], &["ppp.unsup_proto"]),
                1 => (&[0x00, 0x25], &["ppp.unsup_proto"]),
                2 => (&[0x80, 0xfd], &["ppp.wrong_type"]),
                3 => (&[0x23], &["ppp.unsup_proto"]),
                _ => (&[0xc0, 0x29], &["ppp.wrong_type"]),
            };
            let mut ppp = proto.to_vec();
            ppp.extend_from_slice(&[1, 1, 0, 4]);
            let mut sess = vec![0x11, 0, 0, 1];
            sess.extend_from_slice(&(ppp.len() as u16).to_be_bytes());
            sess.extend_from_slice(&ppp);
            (ether(0x8864, &[], &sess), raises, true)
        }
        0 => (
            ether(
                et,
                &[(0x8100, vid), (0x8100, vid + 1), (0x8100, vid + 2)],
                &ip,
            ),
            &["vlan.too_many_layers"],
            true,
        ),
        1 => {
            let mut fr = ether(et, &[(0x8100, vid)], &ip);
            fr.truncate(g.size(15, 17));
            (fr, &["vlan.header_too_small"], true)
        }
        2 => {
            let mut fr = ether(et, &[], &ip);
            fr.truncate(g.size(1, 13));
            (fr, &["ethernet.pkt_too_small"], true)
        }
        3 => (
            ether(0x1234, &[(0x8100, vid)], &ip),
            &["vlan.unknown_type"],
            true,
        ),
        _ => (
            ether(et, &[(0x88a8, vid), (0x8100, vid + 1)], &ip),
            &[],
            false,
        ),
    };
    f.frames.push(frame);
    f.udp(false, b"ok");
    Made {
        name: "link",
        raises,
        near: LINK_NAMES,
        undecoded,
        ..made("", &[], &[])
    }
}

const GRE_NAMES: &[&str] = &[
    "gre.pkt_too_small",
    "gre.wrong_version",
    "gre.version0_recur",
    "gre.version0_flags",
    "gre.version0_hdr_too_big",
    "gre.version1_chksum",
    "gre.version1_route",
    "gre.version1_ssr",
    "gre.version1_recur",
    "gre.version1_flags",
    "gre.version1_no_key",
    "gre.version1_wrong_protocol",
    "gre.version1_hdr_too_big",
];

pub(super) fn gre(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let body = udp_body(f, b"gre-data");
    let ip = build::ip(f.client, f.server, 99, 17, &body);
    let (hdr, raises): (Vec<u8>, &'static [&'static str]) = match g.size(0, 8) {
        0 => (vec![0x00, 0x02, 0x08, 0x00], &["gre.wrong_version"]),
        1 => (vec![0x03, 0x00, 0x08, 0x00], &["gre.version0_recur"]),
        2 => (vec![0x00, 0x08, 0x08, 0x00], &["gre.version0_flags"]),
        3 => (vec![0x80, 0x00, 0x08, 0x00], &["gre.version0_hdr_too_big"]),
        4 => (
            vec![0x00, 0x01, 0x88, 0x0b, 0, 4, 0, 1],
            &["gre.version1_no_key"],
        ),
        5 => (
            vec![0x20, 0x01, 0x08, 0x00, 0, 4, 0, 1],
            &["gre.version1_wrong_protocol"],
        ),
        6 => (
            vec![0xa0, 0x01, 0x88, 0x0b, 0, 0, 0, 0, 0, 4, 0, 1],
            &["gre.version1_chksum"],
        ),
        7 => (vec![0x00, 0x00], &["gre.pkt_too_small"]),
        _ => (vec![0x00, 0x00, 0x08, 0x00], &[]),
    };
    let mut gb = hdr;
    gb.extend_from_slice(&ip);
    let (oc, os) = f.outer;
    let id = f.next_id();
    f.frames.push(ether(
        0x0800,
        &[],
        &build::ipv4(oc, os, id, 0x4000, 47, &gb),
    ));
    f.encap = Encap::Gre;
    f.udp(false, b"ok");
    Made {
        name: "gre",
        raises,
        near: GRE_NAMES,
        outer: true,
        ..made("", &[], &[])
    }
}
