//! RFB (VNC) on TCP port 5900: both protocol versions (3.3, 3.7, 3.8, the server's and
//! the client's the same or not), the security types the server offers (a list in 3.7
//! and 3.8, one type in 3.3) and the client's choice (None, VNC authentication with its
//! challenge and response, now and then another type), the security result (ok,
//! failed with a reason in 3.8, too many attempts), ClientInit and ServerInit with the
//! desktop name (empty now and then, or long); each message in its own segment or two
//! in one. The rule takes one or two of `rfb.sectype` (integer syntax with edge values),
//! `rfb.secresult` (`ok`, `fail`, `toomany`, `unknown`, any case) or a condition on the
//! `rfb.name` buffer in the forms of the HTTP buffer family.

use super::appval::uint_cond;
use super::bufcond::{cond, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// RFB handshakes: security type, result and desktop name.
pub const RFB: Family = Family {
    name: "rfb",
    keywords: &[
        "rfb.name",
        "rfb.sectype",
        "rfb.secresult",
        "content",
        "nocase",
        "offset",
        "depth",
        "startswith",
        "endswith",
        "bsize",
        "isdataat",
        "distance",
        "within",
        "pcre",
        "flow",
    ],
    weight: 3,
    make: rfb,
};

/// The ServerInit message: a framebuffer size, a 32-bit true-colour pixel format and
/// the desktop name.
fn server_init(name: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&1024u16.to_be_bytes());
    m.extend_from_slice(&768u16.to_be_bytes());
    m.extend_from_slice(&[32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
    m.extend_from_slice(&(name.len() as u32).to_be_bytes());
    m.extend_from_slice(name);
    m
}

/// The handshake's messages (client?, bytes) and what the rule can ask for: the chosen
/// security type, the result code (None when none is sent) and the desktop name (None
/// when the handshake stops before ServerInit).
type Handshake = (Vec<(bool, Vec<u8>)>, u32, Option<u32>, Option<Vec<u8>>);

fn handshake(g: &mut Gen<'_>) -> Handshake {
    let minor = g.pick(&[3u8, 7, 8, 8, 8]);
    let cminor = if g.chance(0.85) { minor } else { 8 };
    let mut msgs = vec![
        (false, format!("RFB 003.00{minor}\n").into_bytes()),
        (true, format!("RFB 003.00{cminor}\n").into_bytes()),
    ];
    // The type in use: None, VNC authentication, or another one now and then.
    let chosen: u32 = match g.size(0, 9) {
        0..=3 => 1,
        4..=8 => 2,
        _ => g.pick(&[16u32, 5, 30, 0]),
    };
    if minor == 3 {
        msgs.push((false, chosen.to_be_bytes().to_vec()));
    } else {
        let mut offer: Vec<u8> = vec![chosen as u8];
        for t in [1u8, 2, 16, 18] {
            if t != chosen as u8 && g.chance(0.4) {
                offer.push(t);
            }
        }
        if g.chance(0.5) {
            offer.reverse();
        }
        let mut m = vec![offer.len() as u8];
        m.extend_from_slice(&offer);
        msgs.push((false, m));
        msgs.push((true, vec![chosen as u8]));
    }
    if chosen != 1 && chosen != 2 {
        // A type the parsers do not follow further.
        return (msgs, chosen, None, None);
    }
    if chosen == 2 {
        let challenge: Vec<u8> = (0..16).map(|_| g.num(0, 255) as u8).collect();
        let response: Vec<u8> = (0..16).map(|_| g.num(0, 255) as u8).collect();
        msgs.push((false, challenge));
        msgs.push((true, response));
    }
    // A result: always after VNC authentication, after None only in 3.8.
    let mut result = None;
    if chosen == 2 || minor == 8 {
        let r: u32 = match g.size(0, 9) {
            0..=6 => 0,
            7 | 8 => 1,
            _ => 2,
        };
        let mut m = r.to_be_bytes().to_vec();
        if r == 1 && minor == 8 {
            let why = b"Authentication failure";
            m.extend_from_slice(&(why.len() as u32).to_be_bytes());
            m.extend_from_slice(why);
        }
        msgs.push((false, m));
        result = Some(r);
        if r != 0 {
            return (msgs, chosen, result, None);
        }
    }
    msgs.push((true, vec![u8::from(g.chance(0.5))]));
    let name = match g.size(0, 5) {
        0 => Vec::new(),
        1 => {
            let n = g.size(60, 200);
            g.needle(n)
        }
        2 => b"QEMU (instance-dt)".to_vec(),
        _ => {
            let n = g.size(3, 16);
            [b"desk ".to_vec(), g.needle(n)].concat()
        }
    };
    msgs.push((false, server_init(&name)));
    (msgs, chosen, result, Some(name))
}

fn rfb(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let (msgs, chosen, result, name) = handshake(g);
    let port = g.pick(&[5900u16, 5900, 5901]);
    let mut f = Flow::new(g.index, v6, port);
    let (ci, si) = (60_000u32, 90_000u32);
    f.handshake(ci, si);
    let (mut c, mut s) = (ci + 1, si + 1);
    let mut i = 0;
    while i < msgs.len() {
        let client = msgs[i].0;
        let mut data = msgs[i].1.clone();
        i += 1;
        while i < msgs.len() && msgs[i].0 == client && g.chance(0.3) {
            data.extend_from_slice(&msgs[i].1);
            i += 1;
        }
        let (seq, ack) = if client { (&mut c, s) } else { (&mut s, c) };
        f.tcp(client, *seq, ack, PSH | ACK, &[], &data);
        *seq += data.len() as u32;
    }
    f.tcp(true, c, s, ACK, &[], &[]);
    f.close(c, s);
    let side_client = g.chance(0.4);
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let cnd = match g.size(0, 3) {
            0 => {
                let (form, c) = uint_cond(g, "rfb.sectype", u64::from(chosen), u64::from(u32::MAX));
                (format!("rfb.sectype-{form}"), c)
            }
            1 => {
                let word = |r: u32| match r {
                    0 => "ok",
                    1 => "fail",
                    2 => "toomany",
                    _ => "unknown",
                };
                let r = result.unwrap_or(0);
                let other = if r == 0 { g.pick(&[1u32, 2, 3]) } else { 0 };
                let (h, m) = (word(r), word(other));
                let up = g.chance(0.2);
                let case = |w: &str| {
                    if up {
                        w.to_ascii_uppercase()
                    } else {
                        w.to_string()
                    }
                };
                (
                    format!(
                        "rfb.secresult-{}",
                        if result.is_some() { h } else { "none" }
                    ),
                    Cond {
                        hit: format!("rfb.secresult:{};", case(h)),
                        miss: format!("rfb.secresult:{};", case(m)),
                    },
                )
            }
            _ => {
                let b = buf("rfb.name", None, None, name.clone());
                let (form, c) = cond(g, &b);
                (format!("rfb.name-{form}"), c)
            }
        };
        conds.push(cnd);
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    let name = format!(
        "{}-{}-t{chosen}",
        conds[0].0,
        if side_client { "client" } else { "server" }
    );
    let rproto = g.pick(&["rfb", "rfb", "tcp"]);
    let sp = base(&name, intent, v6, L4::Tcp, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    let first = msgs[0].1.clone();
    super::bufcond::tcp_case(sp, f, port, opts, !side_client, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_init_carries_the_name() {
        let m = server_init(b"abc");
        assert_eq!(m.len(), 4 + 16 + 4 + 3);
        assert_eq!(&m[20..24], &[0, 0, 0, 3]);
        assert!(m.ends_with(b"abc"));
    }

    #[test]
    fn rules_parse_and_handshakes_start_with_the_server_version() {
        let (cases, ok) = crate::flows::sample_cases(200, rfb);
        for c in &cases {
            assert!(c.spec.payload.starts_with(b"RFB 003.00"));
            assert!(c.frames(0).len() >= 8);
        }
        assert!(ok >= 150, "{ok} of 200 parse");
    }
}
