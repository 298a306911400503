//! Community ID v1 (<https://github.com/corelight/community-id-spec>): a flow hash
//! that every tool computes the same way, written as `community_id` on EVE records
//! when an `eve-log` output sets `community-id: yes`.
//!
//! The hash is SHA-1 over the seed (16 bits, network order), the two addresses, the IP
//! protocol, a zero byte and the two ports (network order), the endpoints ordered so
//! that both directions of a flow hash the same; `1:` then the digest in base64. ICMP
//! and ICMPv6 use the type as the source port and, for the messages that have a
//! counterpart (echo / echo reply ...), that counterpart's type as the destination
//! port; other ICMP messages are one-way (the code is the destination port and the
//! endpoints keep their order).

use base64::Engine as _;
use serde_json::Value;
use sha1::{Digest, Sha1};
use std::net::IpAddr;

/// Protocols whose ports take part in the hash.
const PORTED: [u8; 5] = [1, 6, 17, 58, 132];

/// ICMPv4 message types with a counterpart (request ↔ reply).
const ICMP4_PAIRS: &[(u8, u8)] = &[(8, 0), (13, 14), (15, 16), (10, 9), (17, 18)];

/// ICMPv6 message types with a counterpart.
const ICMP6_PAIRS: &[(u8, u8)] = &[
    (128, 129),
    (130, 131),
    (133, 134),
    (135, 136),
    (139, 140),
    (144, 145),
];

/// The ports an ICMP message of `icmp_type`/`code` hashes with (protocol 1 or 58),
/// and whether it is one-way (no counterpart: the endpoints are not reordered).
pub fn icmp_ports(proto: u8, icmp_type: u8, code: u8) -> (u16, u16, bool) {
    let pairs = if proto == 58 {
        ICMP6_PAIRS
    } else {
        ICMP4_PAIRS
    };
    let other = pairs.iter().find_map(|&(a, b)| {
        if a == icmp_type {
            Some(b)
        } else if b == icmp_type {
            Some(a)
        } else {
            None
        }
    });
    match other {
        Some(o) => (icmp_type.into(), o.into(), false),
        None => (icmp_type.into(), code.into(), true),
    }
}

/// The Community ID of a flow between `src` and `dst`: `ports` for the protocols that
/// have them (for ICMP, what [`icmp_ports`] gives), `one_way` keeping the order.
pub fn community_id(
    seed: u16,
    src: IpAddr,
    dst: IpAddr,
    proto: u8,
    ports: Option<(u16, u16)>,
    one_way: bool,
) -> String {
    let bytes = |ip: IpAddr| match ip {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    };
    let (mut a, mut b) = (bytes(src), bytes(dst));
    let (mut pa, mut pb) = ports.unwrap_or((0, 0));
    if !one_way && (a > b || (a == b && pa > pb)) {
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut pa, &mut pb);
    }
    let mut h = Sha1::new();
    h.update(seed.to_be_bytes());
    h.update(&a);
    h.update(&b);
    h.update([proto, 0]);
    if ports.is_some() {
        h.update(pa.to_be_bytes());
        h.update(pb.to_be_bytes());
    }
    format!(
        "1:{}",
        base64::engine::general_purpose::STANDARD.encode(h.finalize())
    )
}

/// Adds `community_id` to an EVE record from its header (`src_ip`, `dest_ip`,
/// `proto`, the ports or `icmp_type`/`icmp_code`); a record without addresses (stats)
/// is left as it is.
pub fn add_to_record(record: &mut Value, seed: u16) {
    let Some(o) = record.as_object_mut() else {
        return;
    };
    let ip = |k: &str| o.get(k)?.as_str()?.parse::<IpAddr>().ok();
    let (Some(src), Some(dst)) = (ip("src_ip"), ip("dest_ip")) else {
        return;
    };
    let Some(proto) = o
        .get("proto")
        .and_then(Value::as_str)
        .and_then(proto_number)
    else {
        return;
    };
    let num = |k: &str| o.get(k).and_then(Value::as_u64);
    let (ports, one_way) = if proto == 1 || proto == 58 {
        match (num("icmp_type"), num("icmp_code")) {
            (Some(t), Some(c)) => {
                let (s, d, ow) = icmp_ports(proto, t as u8, c as u8);
                (Some((s, d)), ow)
            }
            _ => (None, false),
        }
    } else if PORTED.contains(&proto) {
        match (num("src_port"), num("dest_port")) {
            (Some(s), Some(d)) => (Some((s as u16, d as u16)), false),
            _ => (None, false),
        }
    } else {
        (None, false)
    };
    if (proto == 1 || proto == 58) && ports.is_none() {
        // Without the ICMP type the hash would not be the one other tools compute.
        return;
    }
    let id = community_id(seed, src, dst, proto, ports, one_way);
    o.insert("community_id".into(), id.into());
}

/// The protocol number of an EVE `proto` value (`TCP`, `UDP`, `ICMP`, `IPv6-ICMP`,
/// `SCTP`, or a number).
fn proto_number(name: &str) -> Option<u8> {
    Some(match name {
        "TCP" => 6,
        "UDP" => 17,
        "ICMP" => 1,
        "IPv6-ICMP" => 58,
        "SCTP" => 132,
        n => return n.parse().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors of the spec's `baseline/baseline_deflt.json` (seed 0) and
    /// `baseline_seed1.json` (seed 1): (proto, saddr, daddr, sport, dport, id seed 0,
    /// id seed 1). ICMP ports are the ones the spec derives from type and code.
    type Vector = (
        u8,
        &'static str,
        &'static str,
        Option<(u16, u16)>,
        &'static str,
        &'static str,
    );

    const VECTORS: &[Vector] = &[
        (
            58,
            "fe80::200:86ff:fe05:80da",
            "fe80::260:97ff:fe07:69ea",
            Some((135, 136)),
            "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=",
            "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=",
        ),
        (
            58,
            "fe80::260:97ff:fe07:69ea",
            "fe80::200:86ff:fe05:80da",
            Some((136, 135)),
            "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=",
            "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=",
        ),
        (
            58,
            "fe80::260:97ff:fe07:69ea",
            "fe80::200:86ff:fe05:80da",
            Some((135, 136)),
            "1:zavyT/cezQr1fmImYCwYnMXbgck=",
            "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=",
        ),
        (
            58,
            "3ffe:507:0:1:200:86ff:fe05:80da",
            "3ffe:501:0:1001::2",
            Some((128, 129)),
            "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=",
            "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=",
        ),
        (
            1,
            "192.168.0.89",
            "192.168.0.1",
            Some((8, 0)),
            "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=",
            "1:03g6IloqVBdcZlPyX8r0hgoE7kA=",
        ),
        (
            1,
            "192.168.0.1",
            "192.168.0.89",
            Some((0, 8)),
            "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=",
            "1:03g6IloqVBdcZlPyX8r0hgoE7kA=",
        ),
        (
            6,
            "2001:470:e5bf:dead:4957:2174:e82c:4887",
            "2607:f8b0:400c:c03::1a",
            Some((63943, 25)),
            "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=",
            "1:eJYTW6AOzFLlSUoESovMjnu7rMw=",
        ),
        (
            132,
            "192.168.170.56",
            "192.168.170.8",
            Some((7, 7)),
            "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=",
            "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=",
        ),
        (
            6,
            "66.35.250.204",
            "128.232.110.120",
            Some((80, 34855)),
            "1:LQU9qZlK+B5F3KDmev6m5PMibrg=",
            "1:3V71V58M3Ksw/yuFALMcW0LAHvc=",
        ),
        (
            17,
            "192.168.1.52",
            "8.8.8.8",
            Some((54585, 53)),
            "1:d/FP5EW3wiY1vCndhwleRRKHowQ=",
            "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=",
        ),
        (
            46,
            "10.1.12.2",
            "10.1.12.1",
            None,
            "1:KHlLkgoJW7ifUTyTSgyVfkFHzKw=",
            "1:rYir8gphR31noO9iDRQmF/BteEI=",
        ),
    ];

    #[test]
    fn spec_vectors() {
        for &(proto, s, d, ports, id0, id1) in VECTORS {
            let (s, d) = (s.parse().unwrap(), d.parse().unwrap());
            assert_eq!(community_id(0, s, d, proto, ports, false), id0, "{s} {d}");
            assert_eq!(community_id(1, s, d, proto, ports, false), id1, "{s} {d}");
        }
    }

    #[test]
    fn icmp_types_map_to_ports() {
        assert_eq!(icmp_ports(1, 8, 0), (8, 0, false));
        assert_eq!(icmp_ports(1, 0, 0), (0, 8, false));
        assert_eq!(icmp_ports(58, 136, 0), (136, 135, false));
        // Time exceeded: one way, the code is the second port. Spec vector (seed 0).
        assert_eq!(icmp_ports(1, 11, 0), (11, 0, true));
        let (s, d) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        assert_eq!(
            community_id(0, s, d, 1, Some((11, 0)), true),
            "1:YHxtAirCG//0OzkcVAukqKQN9xM="
        );
        // One-way: a destination-unreachable from the "larger" address keeps its order.
        let (s6, d6): (IpAddr, IpAddr) = (
            "3ffe:507:0:1:200:86ff:fe05:80da".parse().unwrap(),
            "3ffe:501:410:0:2c0:dfff:fe47:33e".parse().unwrap(),
        );
        assert_eq!(
            community_id(0, d6, s6, 58, Some((1, 4)), true),
            "1:hLZd0XGWojozrvxqE0dWB1iM6R0="
        );
    }

    #[test]
    fn records_get_their_id() {
        let mut r = serde_json::json!({"src_ip": "8.8.8.8", "src_port": 53,
            "dest_ip": "192.168.1.52", "dest_port": 54585, "proto": "UDP"});
        add_to_record(&mut r, 0);
        assert_eq!(r["community_id"], "1:d/FP5EW3wiY1vCndhwleRRKHowQ=");
        let mut icmp = serde_json::json!({"src_ip": "192.168.0.1", "dest_ip": "192.168.0.89",
            "proto": "ICMP", "icmp_type": 0, "icmp_code": 0});
        add_to_record(&mut icmp, 0);
        assert_eq!(icmp["community_id"], "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=");
        let mut stats = serde_json::json!({"event_type": "stats"});
        add_to_record(&mut stats, 0);
        assert!(stats.get("community_id").is_none());
        let mut bad = serde_json::json!({"src_ip": "x", "dest_ip": "y", "proto": "TCP"});
        add_to_record(&mut bad, 0);
        assert!(bad.get("community_id").is_none());
    }
}
