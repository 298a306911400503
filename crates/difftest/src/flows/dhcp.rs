//! DHCP over UDP (client port 68 to server port 67): a DISCOVER or REQUEST (now and then
//! asking for a lease time itself) and the server's OFFER or ACK, each a BOOTP message
//! with the magic cookie and options; the server's lease (51), renewal (58) and
//! rebinding (59) times drawn at 0, 1, the 32-bit limit or in between, each present or
//! left out, sometimes a pad option before them. The rule takes one or two of
//! `dhcp.leasetime`, `dhcp.renewal_time`, `dhcp.rebinding_time` in every form of
//! Suricata's integer syntax (see `appval::uint_cond`), on the side that carries the
//! value; a time the message lacks is asked for too (it never matches).

use super::appval::uint_cond;
use super::bufcond::Cond;
use super::Flow;
use crate::case::Spec;
use crate::rulegen::{Family, Gen};

/// DHCP lease, renewal and rebinding times.
pub const DHCP: Family = Family {
    name: "dhcp",
    keywords: &[
        "dhcp.leasetime",
        "dhcp.renewal_time",
        "dhcp.rebinding_time",
        "flow",
    ],
    weight: 3,
    make: dhcp,
};

/// One BOOTP/DHCP message: `op` 1 request or 2 reply, DHCP message type `kind`, the
/// options after it (code, value) in order.
pub fn message(op: u8, xid: u32, yiaddr: [u8; 4], kind: u8, opts: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut m = vec![op, 1, 6, 0];
    m.extend_from_slice(&xid.to_be_bytes());
    m.extend_from_slice(&[0, 0, 0x80, 0]);
    m.extend_from_slice(&[0; 4]);
    m.extend_from_slice(&yiaddr);
    m.extend_from_slice(&[0; 8]);
    m.extend_from_slice(&[0x02, 0, 0, 0x0d, 0x0c, 0x05]);
    m.extend_from_slice(&[0; 10 + 64 + 128]);
    m.extend_from_slice(&[0x63, 0x82, 0x53, 0x63]);
    m.extend_from_slice(&[53, 1, kind]);
    for (code, v) in opts {
        if *code == 0 {
            m.push(0);
            continue;
        }
        m.push(*code);
        m.push(v.len() as u8);
        m.extend_from_slice(v);
    }
    m.push(255);
    m
}

/// A time value drawn with its edges.
fn time(g: &mut Gen<'_>) -> u32 {
    match g.size(0, 5) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => u32::MAX - 1,
        _ => g.num(60, 864_000) as u32,
    }
}

fn dhcp(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let mut f = Flow::new(g.index, false, 67);
    f.sport = 68;
    let xid = g.num(1, u64::from(u32::MAX)) as u32;
    let request = g.chance(0.5);
    // Times of the client's message (a requested lease) and of the server's.
    let mut client_t: [Option<u32>; 3] = [None; 3];
    if g.chance(0.3) {
        client_t[0] = Some(time(g));
    }
    let mut server_t: [Option<u32>; 3] = [None; 3];
    for t in &mut server_t {
        if g.chance(0.75) {
            *t = Some(time(g));
        }
    }
    const CODES: [u8; 3] = [51, 58, 59];
    let opts = |ts: &[Option<u32>; 3], pad: bool| {
        let mut o: Vec<(u8, Vec<u8>)> = vec![(1, vec![255, 255, 255, 0])];
        if pad {
            o.push((0, Vec::new()));
        }
        for (i, t) in ts.iter().enumerate() {
            if let Some(t) = t {
                o.push((CODES[i], t.to_be_bytes().to_vec()));
            }
        }
        o
    };
    let mut copts = opts(&client_t, false);
    copts.push((55, vec![1, 3, 6, 51]));
    let (ck, sk) = if request { (3, 5) } else { (1, 2) };
    let pad = g.chance(0.2);
    let cmsg = message(1, xid, [0; 4], ck, &copts);
    let mut sopts = opts(&server_t, pad);
    sopts.push((54, vec![10, 0, 0, 2]));
    let smsg = message(2, xid, [10, 0, 0, 1], sk, &sopts);
    f.udp(true, &cmsg);
    f.udp(false, &smsg);
    let side_client = g.chance(0.3);
    let ts = if side_client { client_t } else { server_t };
    const KWS: [&str; 3] = ["dhcp.leasetime", "dhcp.renewal_time", "dhcp.rebinding_time"];
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let i = g.size(0, 2);
        let kw = KWS[i];
        let c = match ts[i] {
            Some(t) => {
                let max = if g.chance(0.8) {
                    u64::from(u32::MAX)
                } else {
                    u64::MAX
                };
                let (form, c) = uint_cond(g, kw, u64::from(t), max);
                (format!("{kw}-{form}"), c)
            }
            None => {
                let c = format!("{kw}:<=4294967295;");
                (
                    format!("{kw}-absent"),
                    Cond {
                        hit: c.clone(),
                        miss: c,
                    },
                )
            }
        };
        conds.push(c);
    }
    super::appval::udp_rule_case(
        g,
        intent,
        false,
        &conds,
        side_client,
        &format!("-{}", if request { "request" } else { "discover" }),
        "dhcp",
        f,
        67,
        cmsg,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_the_cookie_and_options_in_order() {
        let m = message(2, 7, [10, 0, 0, 1], 5, &[(51, vec![0, 0, 1, 0])]);
        assert_eq!(m.len(), 236 + 4 + 3 + 6 + 1);
        assert_eq!(&m[236..240], &[0x63, 0x82, 0x53, 0x63]);
        assert_eq!(&m[240..243], &[53, 1, 5]);
        assert_eq!(&m[243..249], &[51, 4, 0, 0, 1, 0]);
        assert_eq!(m[249], 255);
    }

    #[test]
    fn rules_parse_and_flows_have_two_datagrams() {
        let (cases, ok) = crate::flows::sample_cases(200, dhcp);
        for c in &cases {
            assert_eq!(c.frames(0).len(), 2);
        }
        assert!(ok >= 150, "{ok} of 200 parse");
    }
}
