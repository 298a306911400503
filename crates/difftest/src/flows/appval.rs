//! Pieces the application-protocol families of session h5 share: integer keyword
//! conditions with edge values (every operator of Suricata's unsigned-integer syntax, at
//! 0 and at the type's limit, one past it), a UDP exchange turned into a case, and a
//! small BER/DER writer for the ASN.1 protocols (SNMP, Kerberos).

use super::bufcond::Cond;
use super::Flow;
use crate::case::{Intent, Spec};
use crate::rulegen::Gen;

/// A condition on integer keyword `kw` whose value in the traffic is `v` (`max`: the
/// largest value of the keyword's type). The forms: `N`, `<N`, `>N`, `<=N`, `>=N`,
/// `N-M` (exclusive), `!N`, and at the edges `<1`, `>max-1`, `>=1`, `<=0`; the miss twin
/// moves the bound by one so it just misses. Values past `max` are written now and then
/// (a rule Suricata may refuse: a second check of acceptance).
pub(super) fn uint_cond(g: &mut Gen<'_>, kw: &str, v: u64, max: u64) -> (&'static str, Cond) {
    let form = g.pick(&[
        "eq", "eq", "lt", "gt", "le", "ge", "range", "ne", "edge", "past",
    ]);
    let other = if v < max { v + 1 } else { v - 1 };
    let (h, m) = match form {
        "lt" if v < max => (format!("<{}", v + 1), format!("<{v}")),
        "gt" if v > 0 => (format!(">{}", v - 1), format!(">{v}")),
        "le" if v > 0 => (format!("<={v}"), format!("<={}", v - 1)),
        "ge" if v < max => (format!(">={v}"), format!(">={}", v + 1)),
        "range" if v > 0 && v < max => (
            format!("{}-{}", v - 1, v + 1),
            format!("{v}-{}", v.saturating_add(2)),
        ),
        "ne" => (format!("!{other}"), format!("!{v}")),
        "edge" if v == 0 => ("<1".to_string(), ">0".to_string()),
        "edge" if v == max => (format!(">{}", max - 1), format!("<{max}")),
        "edge" => (">=1".to_string(), "<=0".to_string()),
        "past" => (format!("{v}"), format!("{}", u128::from(max) + 1)),
        _ => (format!("{v}"), format!("{other}")),
    };
    (
        form,
        Cond {
            hit: format!("{kw}:{h};"),
            miss: format!("{kw}:{m};"),
        },
    )
}

/// Case `s` of a rule with options `opts` over the UDP exchange written in `f` to server
/// port `dport`: the header turned around when the rule is about what the server sends,
/// `payload` the client's first datagram.
pub(super) fn udp_case(
    mut s: Spec,
    f: Flow,
    dport: u16,
    opts: String,
    server_side: bool,
    payload: Vec<u8>,
) -> Spec {
    s.l4 = crate::case::L4::Udp;
    super::bufcond::tcp_case(s, f, dport, opts, server_side, payload)
}

/// The case of a rule on one UDP exchange: the texts of `conds` (hitting or just missing
/// as `intent` says), the flow option of the side they look at, the name
/// `FIRST-CONDITION-SIDE{extra}`, the rule's protocol drawn as `app` twice for `udp` once,
/// then [`udp_case`] to server port `dport` with `payload` the client's first datagram.
#[allow(clippy::too_many_arguments)]
pub(super) fn udp_rule_case(
    g: &mut Gen<'_>,
    intent: Intent,
    v6: bool,
    conds: &[(String, Cond)],
    side_client: bool,
    extra: &str,
    app: &'static str,
    f: Flow,
    dport: u16,
    payload: Vec<u8>,
) -> Spec {
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    let side = if side_client { "client" } else { "server" };
    let name = format!("{}-{side}{extra}", conds[0].0);
    let proto = g.pick(&[app, app, "udp"]);
    let s = crate::rulegen::base(&name, intent, v6, crate::case::L4::Udp, proto);
    let opts = format!("{flow}{}", texts.join(" "));
    udp_case(s, f, dport, opts, !side_client, payload)
}

/// A BER/DER element: tag, definite length (short or long form), contents.
pub fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    let n = body.len();
    if n < 0x80 {
        v.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|&b| b == 0)
            .collect();
        v.push(0x80 | bytes.len() as u8);
        v.extend_from_slice(&bytes);
    }
    v.extend_from_slice(body);
    v
}

/// A DER INTEGER (minimal two's complement) of a non-negative value.
pub fn int(n: u64) -> Vec<u8> {
    let mut b: Vec<u8> = n
        .to_be_bytes()
        .iter()
        .copied()
        .skip_while(|&b| b == 0)
        .collect();
    if b.first().is_none_or(|&x| x & 0x80 != 0) {
        b.insert(0, 0);
    }
    tlv(0x02, &b)
}

/// A SEQUENCE of the concatenated elements.
pub fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A context-specific constructed tag `[n]` around one element.
pub fn ctx(n: u8, inner: Vec<u8>) -> Vec<u8> {
    tlv(0xa0 | n, &inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_lengths_and_integers() {
        assert_eq!(int(0), [2, 1, 0]);
        assert_eq!(int(127), [2, 1, 127]);
        assert_eq!(int(128), [2, 2, 0, 128]);
        assert_eq!(int(256), [2, 2, 1, 0]);
        assert_eq!(tlv(4, &[7; 200])[..3], [4, 0x81, 200]);
        assert_eq!(tlv(4, &[7; 300])[..4], [4, 0x82, 1, 44]);
        assert_eq!(seq(&[int(1), int(2)]), [0x30, 6, 2, 1, 1, 2, 1, 2]);
    }

    #[test]
    fn uint_conditions_hit_and_miss_by_one() {
        let mut rng = gen::rng::Rng::new(1);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        for (v, max) in [
            (0u64, 255u64),
            (255, 255),
            (7, 255),
            (u64::from(u32::MAX), u64::from(u32::MAX)),
        ] {
            for _ in 0..40 {
                let (_, c) = uint_cond(&mut g, "k", v, max);
                assert_ne!(c.hit, c.miss);
                assert!(c.hit.starts_with("k:") && c.hit.ends_with(';'));
            }
        }
    }
}
