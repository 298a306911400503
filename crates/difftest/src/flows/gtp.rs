//! GTP over UDP: GTPv1-U G-PDUs on port 2152 (an inner IPv4/UDP packet behind the
//! 8-byte header, with the optional sequence-number word now and then), GTPv1-C echo
//! requests and GTPv2-C echo requests on port 2123. Suricata 7.0.10 has no GTP parser
//! and does not know Snort's `gtp_type`, `gtp_info` and `gtp_version`: a rule with one
//! of them is a rejection both engines must agree on. The other rules of the family
//! look at the datagram as bytes: a content on the GTP header's message type and TEID
//! (`offset`/`depth` at their exact place, one past), so the traffic is compared too.

use super::bufcond::Cond;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};

/// GTP datagrams and Snort's GTP keywords.
pub const GTP: Family = Family {
    name: "gtp",
    keywords: &[
        "gtp_type",
        "gtp_info",
        "gtp_version",
        "content",
        "offset",
        "depth",
        "flow",
    ],
    weight: 1,
    make: gtp,
};

/// A GTPv1 header: flags (version 1, protocol type 1, S flag), type, length, TEID,
/// and the sequence-number word when `seq`.
fn v1(msg_type: u8, teid: u32, seq: Option<u16>, payload: &[u8]) -> Vec<u8> {
    let extra = if seq.is_some() { 4 } else { 0 };
    let mut v = vec![0x30 | if seq.is_some() { 0x02 } else { 0 }, msg_type];
    v.extend_from_slice(&((payload.len() + extra) as u16).to_be_bytes());
    v.extend_from_slice(&teid.to_be_bytes());
    if let Some(s) = seq {
        v.extend_from_slice(&s.to_be_bytes());
        v.extend_from_slice(&[0, 0]);
    }
    v.extend_from_slice(payload);
    v
}

/// A GTPv2-C echo request (no TEID) with a Recovery IE.
fn v2_echo(seq: u32) -> Vec<u8> {
    let ie = [3u8, 0, 1, 0, 7];
    let mut v = vec![0x40, 1];
    v.extend_from_slice(&((4 + ie.len()) as u16).to_be_bytes());
    v.extend_from_slice(&(seq << 8).to_be_bytes());
    v.extend_from_slice(&ie);
    v
}

fn gtp(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let teid = g.pick(&[0u32, 1, 0x1234_5678, u32::MAX]);
    let (port, msg, kind) = match g.size(0, 2) {
        0 => {
            // An inner IPv4/UDP packet (header checksum set, UDP checksum 0: none).
            let mut inner = vec![
                0x45, 0, 0, 36, 0, 1, 0, 0, 64, 17, 0, 0, 10, 9, 9, 1, 10, 9, 9, 2,
            ];
            let sum = inner
                .chunks(2)
                .fold(0u32, |a, w| a + u32::from(u16::from_be_bytes([w[0], w[1]])));
            let sum = (sum & 0xFFFF) + (sum >> 16);
            inner[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
            inner.extend_from_slice(&[0x30, 0x39, 0, 53, 0, 16, 0, 0]);
            inner.extend_from_slice(&g.filler(8));
            let seq = g.chance(0.3).then_some(7u16);
            (2152u16, v1(0xFF, teid, seq, &inner), 0xFFu8)
        }
        1 => (2123, v1(1, teid, Some(g.num(0, 65_535) as u16), &[]), 1),
        _ => (2123, v2_echo(g.num(0, 0xFF_FFFF) as u32), 1),
    };
    let mut f = Flow::new(g.index, v6, port);
    f.sport = port;
    f.udp(true, &msg);
    let (name, cond) = if g.chance(0.4) {
        let kw = g.pick(&["gtp_type", "gtp_info", "gtp_version"]);
        let v = match kw {
            "gtp_type" => kind.to_string(),
            "gtp_info" => "1".to_string(),
            _ => (msg[0] >> 5).to_string(),
        };
        let c = format!("{kw}:{v};");
        (
            format!("snort-{kw}"),
            Cond {
                hit: c.clone(),
                miss: c,
            },
        )
    } else {
        // The message type and what follows it, at its place.
        let n = g.size(2, 6).min(msg.len() - 1);
        let c = content_text(&msg[1..1 + n]);
        (
            "header-bytes".to_string(),
            Cond {
                hit: format!("content:\"{c}\"; offset:1; depth:{n};"),
                miss: format!("content:\"{c}\"; offset:2; depth:{n};"),
            },
        )
    };
    let texts = super::bufcond::texts(g, intent, std::iter::once(&cond));
    let name = format!("{name}-{port}");
    let s = base(&name, intent, v6, L4::Udp, "udp");
    super::appval::udp_case(s, f, port, texts.join(" "), false, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_carry_their_lengths() {
        let m = v1(0xFF, 9, Some(7), &[1, 2, 3]);
        assert_eq!(m[0], 0x32);
        assert_eq!(u16::from_be_bytes([m[2], m[3]]), 7);
        assert_eq!(m.len(), 8 + 4 + 3);
        let e = v2_echo(5);
        assert_eq!(e[0] >> 5, 2);
        assert_eq!(usize::from(u16::from_be_bytes([e[2], e[3]])) + 4, e.len());
    }

    #[test]
    fn rules_parse_except_snort_keywords_and_both_kinds_are_drawn() {
        let (cases, _) = crate::flows::sample_cases(100, gtp);
        let mut snort = 0;
        for c in &cases {
            if c.spec.template.starts_with("snort-") {
                snort += 1;
            } else {
                assert!(rules::parse_rule(&c.rule()).is_ok(), "{}", c.rule());
            }
        }
        assert!(snort > 10 && snort < 90, "{snort} of 100");
    }
}
