//! EtherNet/IP on TCP and UDP port 44818 (opt-in in Suricata, enabled for the batch by
//! `oracle::APP_LAYER_SETS`): encapsulation messages (24-byte header: command, length,
//! session handle, status, sender context, options) and their replies: ListServices,
//! ListIdentity, ListInterfaces, RegisterSession, UnregisterSession, SendRRData with an
//! unconnected CIP request (Get_Attribute_Single/All, Set_Attribute_Single,
//! Get_Attribute_List with its attribute list, a Multiple Service Packet embedding two
//! requests, a service at 0 or 0x7F; paths with 8- and 16-bit class and attribute
//! segments), SendUnitData with a connected data item, and now and then a command no
//! one knows. The rule takes `enip_command` (the value, 0 and 65535, one off; now and
//! then `<`/`>`/range forms and 65536, which Suricata refuses) or `cip_service` (service; service and class; service, class and
//! attribute; one off; past their limits).

use super::bufcond::Cond;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};

/// ENIP encapsulation commands and CIP requests.
pub const ENIP: Family = Family {
    name: "enip",
    keywords: &["enip_command", "cip_service", "flow"],
    weight: 1,
    make: enip,
};

/// An encapsulation message: header and data.
fn encap(command: u16, session: u32, status: u32, data: &[u8]) -> Vec<u8> {
    let mut v = command.to_le_bytes().to_vec();
    v.extend_from_slice(&(data.len() as u16).to_le_bytes());
    v.extend_from_slice(&session.to_le_bytes());
    v.extend_from_slice(&status.to_le_bytes());
    v.extend_from_slice(b"dtctx\0\0\0");
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(data);
    v
}

/// A CIP request path: class, instance 1, and an attribute when given (8-bit logical
/// segments, 16-bit ones past 255), padded to words.
fn path(class: u32, attr: Option<u32>) -> Vec<u8> {
    let seg = |kind: u8, v: u32| -> Vec<u8> {
        if v <= 255 {
            vec![kind, v as u8]
        } else {
            let mut s = vec![kind | 1, 0];
            s.extend_from_slice(&(v as u16).to_le_bytes());
            s
        }
    };
    let mut p = seg(0x20, class);
    p.extend(seg(0x24, 1));
    if let Some(a) = attr {
        p.extend(seg(0x30, a));
    }
    p
}

/// A CIP request: service, path size in words, path, data.
fn cip(service: u8, path: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = vec![service, (path.len() / 2) as u8];
    v.extend_from_slice(path);
    v.extend_from_slice(data);
    v
}

/// SendRRData's data: interface handle, timeout, a null address item and an
/// unconnected data item with `msg`.
fn rr_data(msg: &[u8]) -> Vec<u8> {
    let mut v = vec![0, 0, 0, 0, 10, 0, 2, 0, 0, 0, 0, 0, 0xB2, 0];
    v.extend_from_slice(&(msg.len() as u16).to_le_bytes());
    v.extend_from_slice(msg);
    v
}

/// SendUnitData's data: a connected address item and a connected data item (sequence
/// count first) with `msg`.
fn unit_data(msg: &[u8]) -> Vec<u8> {
    let mut v = vec![
        0, 0, 0, 0, 0, 0, 2, 0, 0xA1, 0, 4, 0, 0x11, 0x22, 0x33, 0x44, 0xB1, 0,
    ];
    v.extend_from_slice(&((msg.len() + 2) as u16).to_le_bytes());
    v.extend_from_slice(&7u16.to_le_bytes());
    v.extend_from_slice(msg);
    v
}

/// The CIP requests of a message for the rule: (service, class, attribute).
type Cips = Vec<(u8, u32, Option<u32>)>;

/// One request message, its reply and the CIP requests it carries.
fn message(g: &mut Gen<'_>, session: u32) -> (u16, Vec<u8>, Vec<u8>, Cips) {
    let class = g.pick(&[1u32, 2, 0x66, 0xF5, 0xFF, 0x100, 0x3FF]);
    let attr = g.pick(&[1u32, 3, 7, 255, 256, 0x4000]);
    match g.size(0, 9) {
        0 => (
            0x04,
            encap(0x04, 0, 0, &[]),
            encap(0x04, 0, 0, &[1, 0]),
            Vec::new(),
        ),
        1 => (
            0x63,
            encap(0x63, 0, 0, &[]),
            encap(0x63, 0, 0, &[0, 0]),
            Vec::new(),
        ),
        2 => (
            0x64,
            encap(0x64, 0, 0, &[]),
            encap(0x64, 0, 0, &[0, 0]),
            Vec::new(),
        ),
        3 => (
            0x65,
            encap(0x65, 0, 0, &[1, 0, 0, 0]),
            encap(0x65, session, 0, &[1, 0, 0, 0]),
            Vec::new(),
        ),
        4 => (0x66, encap(0x66, session, 0, &[]), Vec::new(), Vec::new()),
        5 | 6 => {
            let (svc, a, data) = match g.size(0, 3) {
                0 => (0x0E, Some(attr), Vec::new()),
                1 => (0x01, None, Vec::new()),
                2 => (0x10, Some(attr), vec![1, 0]),
                _ => (g.pick(&[0u8, 0x4B, 0x4C, 0x7F]), Some(attr), Vec::new()),
            };
            let m = cip(svc, &path(class, a), &data);
            let reply = cip(svc | 0x80, &[], &[0, 0]);
            (
                0x6F,
                encap(0x6F, session, 0, &rr_data(&m)),
                encap(0x6F, session, 0, &rr_data(&reply)),
                vec![(svc, class, a)],
            )
        }
        7 => {
            // Get_Attribute_List: the path names no attribute, the data lists them.
            let attrs = [attr, 1];
            let mut data = (attrs.len() as u16).to_le_bytes().to_vec();
            for a in attrs {
                data.extend_from_slice(&(a as u16).to_le_bytes());
            }
            let m = cip(0x03, &path(class, None), &data);
            (
                0x6F,
                encap(0x6F, session, 0, &rr_data(&m)),
                encap(0x6F, session, 0, &rr_data(&[0x83, 0, 0, 0])),
                vec![(0x03, class, Some(attr))],
            )
        }
        8 => {
            // A Multiple Service Packet to the message router embedding two requests.
            let a = cip(0x0E, &path(class, Some(attr)), &[]);
            let b = cip(0x01, &path(1, None), &[]);
            let mut data = 2u16.to_le_bytes().to_vec();
            data.extend_from_slice(&6u16.to_le_bytes());
            data.extend_from_slice(&((6 + a.len()) as u16).to_le_bytes());
            data.extend_from_slice(&a);
            data.extend_from_slice(&b);
            let m = cip(0x0A, &path(2, None), &data);
            let svc = if g.chance(0.5) {
                (0x0E, class, Some(attr))
            } else {
                (0x0A, 2, None)
            };
            (
                0x6F,
                encap(0x6F, session, 0, &rr_data(&m)),
                encap(0x6F, session, 0, &rr_data(&[0x8A, 0, 0, 0])),
                vec![svc],
            )
        }
        _ => {
            if g.chance(0.5) {
                let m = cip(0x0E, &path(class, Some(attr)), &[]);
                (
                    0x70,
                    encap(0x70, session, 0, &unit_data(&m)),
                    encap(0x70, session, 0, &unit_data(&[0x8E, 0, 0, 0, 5])),
                    vec![(0x0E, class, Some(attr))],
                )
            } else {
                // A command nobody knows, at the edges.
                let c = g.pick(&[0u16, 0x0005, 0x00C8, 0xFFFF]);
                (c, encap(c, session, 0, &[]), Vec::new(), Vec::new())
            }
        }
    }
}

/// An `enip_command` condition on command `c`.
fn command_cond(g: &mut Gen<'_>, c: u16) -> (&'static str, Cond) {
    let c = u32::from(c);
    // Comparisons and values past 16 bits are refused by Suricata 7.0.10: a few.
    let (name, h, m) = match g.size(0, 11) {
        0 if c < 65_535 => ("lt", format!("<{}", c + 1), format!("<{c}")),
        1 if c > 0 => ("gt", format!(">{}", c - 1), format!(">{c}")),
        2 if c > 0 && c < 65_535 => (
            "range",
            format!("{}-{}", c - 1, c + 1),
            format!("{c}-{}", c + 2),
        ),
        3 => ("past", format!("{c}"), "65536".to_string()),
        _ => ("eq", format!("{c}"), format!("{}", (c + 1) % 65_536)),
    };
    (
        name,
        Cond {
            hit: format!("enip_command:{h};"),
            miss: format!("enip_command:{m};"),
        },
    )
}

/// A `cip_service` condition on request `(svc, class, attr)`.
fn cip_cond(g: &mut Gen<'_>, (svc, class, attr): (u8, u32, Option<u32>)) -> (&'static str, Cond) {
    let other = if svc == 0x0E { 0x10 } else { 0x0E };
    let (name, h, m) = match g.size(0, 4) {
        0 => ("service", format!("{svc}"), format!("{other}")),
        1 => (
            "class",
            format!("{svc},{class}"),
            format!("{svc},{}", class + 1),
        ),
        2 if attr.is_some() => {
            let a = attr.unwrap_or(0);
            (
                "attribute",
                format!("{svc},{class},{a}"),
                format!("{svc},{class},{}", a + 1),
            )
        }
        3 => (
            "past",
            format!("{svc}"),
            g.pick(&["128", "255", "256", "1,2,3,4"]).to_string(),
        ),
        _ => ("service", format!("{svc}"), format!("{svc},{}", class + 1)),
    };
    (
        name,
        Cond {
            hit: format!("cip_service:{h};"),
            miss: format!("cip_service:{m};"),
        },
    )
}

fn enip(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let udp = g.chance(0.25);
    let mut f = Flow::new(g.index, v6, 44_818);
    let session = g.pick(&[0u32, 0x0102_0304, u32::MAX]);
    let n = g.size(1, 3);
    let mut msgs = Vec::new();
    let mut last = (0u16, Vec::new());
    for _ in 0..n {
        let (c, req, rep, cips) = message(g, session);
        msgs.push((true, req));
        if !rep.is_empty() && g.chance(0.9) {
            msgs.push((false, rep));
        }
        last = (c, cips);
    }
    let first = msgs[0].1.clone();
    if udp {
        super::session::udp(&mut f, &msgs);
    } else {
        super::session::tcp(g, &mut f, &msgs);
    }
    let (command, cips) = last;
    let (name, cond) = if !cips.is_empty() && g.chance(0.6) {
        let (n, c) = cip_cond(g, cips[0]);
        (format!("cip-{n}"), c)
    } else {
        let (n, c) = command_cond(g, command);
        (format!("command-{n}"), c)
    };
    let texts = super::bufcond::texts(g, intent, std::iter::once(&cond));
    let flow = super::bufcond::flow_opt(g, true);
    let (l4, transport) = if udp {
        (L4::Udp, "udp")
    } else {
        (L4::Tcp, "tcp")
    };
    let rproto = g.pick(&["enip", "enip", transport]);
    let name = format!("{name}-{transport}");
    let s = base(&name, intent, v6, l4, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    if udp {
        super::appval::udp_case(s, f, 44_818, opts, false, first)
    } else {
        super::bufcond::tcp_case(s, f, 44_818, opts, false, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_their_length_and_paths_whole_words() {
        let m = encap(0x65, 0, 0, &[1, 0, 0, 0]);
        assert_eq!(m.len(), 28);
        assert_eq!(&m[..4], &[0x65, 0, 4, 0]);
        assert_eq!(path(0x100, Some(3)), [0x21, 0, 0, 1, 0x24, 1, 0x30, 3]);
        let mut rng = gen::rng::Rng::new(6);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        for _ in 0..200 {
            let (_, req, _, _) = message(&mut g, 1);
            let len = usize::from(u16::from_le_bytes([req[2], req[3]]));
            assert_eq!(len + 24, req.len());
        }
    }

    #[test]
    fn rules_parse_mostly_and_flows_are_written() {
        let (cases, ok) = crate::flows::sample_cases(200, enip);
        assert!(ok >= 130, "{ok} of 200 parse");
        assert!(cases.iter().all(|c| !c.frames(0).is_empty()));
    }
}
