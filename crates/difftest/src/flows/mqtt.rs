//! MQTT on TCP port 1883, protocol 3.1 (`MQIsdp`), 3.1.1 and 5: CONNECT (client id,
//! optional will topic and message, user name, password, clean session) and CONNACK
//! (session present, a return or reason code), a PUBLISH of QoS 0, 1 or 2 (DUP and RETAIN
//! drawn) with its PUBACK or PUBREC/PUBREL/PUBCOMP, SUBSCRIBE/SUBACK, the broker's own
//! PUBLISH on the subscribed topic, UNSUBSCRIBE/UNSUBACK (reason codes in MQTT 5),
//! PINGREQ/PINGRESP and DISCONNECT; each message in its own segment or a few in one. The
//! rule takes one or two conditions of one side: the value keywords `mqtt.type`,
//! `mqtt.flags`, `mqtt.qos`, `mqtt.reason_code`/`mqtt.connack.return_code`,
//! `mqtt.protocol_version` (=, <, >, ranges, at the version and one off),
//! `mqtt.connack.session_present`, `mqtt.connect.flags` (flags set and negated), or the
//! sticky buffers `mqtt.connect.clientid`, `.username`, `.password`, `.willtopic`,
//! `.willmessage`, `mqtt.publish.topic`, `mqtt.publish.message`, `mqtt.subscribe.topic`,
//! `mqtt.unsubscribe.topic` in the forms of the HTTP buffer family. A quarter of the
//! sessions end with a client message that raises a parser event (a PUBLISH of QoS 3,
//! a message of type 0), which an `app-layer-event` condition names (the event raised,
//! or the other one), so that the event's transaction, direction and packet are
//! compared.

use super::bufcond::{cond, Buf, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// MQTT sessions and every MQTT keyword.
pub const MQTT: Family = Family {
    name: "mqtt",
    keywords: &[
        "mqtt.type",
        "mqtt.flags",
        "mqtt.qos",
        "mqtt.reason_code",
        "mqtt.connack.return_code",
        "mqtt.protocol_version",
        "mqtt.connack.session_present",
        "mqtt.connect.flags",
        "mqtt.connect.clientid",
        "mqtt.connect.username",
        "mqtt.connect.password",
        "mqtt.connect.willtopic",
        "mqtt.connect.willmessage",
        "mqtt.publish.topic",
        "mqtt.publish.message",
        "mqtt.subscribe.topic",
        "mqtt.unsubscribe.topic",
        "app-layer-event",
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
    weight: 5,
    make: mqtt,
};

/// The message type names, by code.
const TYPES: [&str; 16] = [
    "UNASSIGNED",
    "CONNECT",
    "CONNACK",
    "PUBLISH",
    "PUBACK",
    "PUBREC",
    "PUBREL",
    "PUBCOMP",
    "SUBSCRIBE",
    "SUBACK",
    "UNSUBSCRIBE",
    "UNSUBACK",
    "PINGREQ",
    "PINGRESP",
    "DISCONNECT",
    "AUTH",
];

/// A control packet: fixed header byte, remaining length (variable-length integer),
/// body.
pub fn control(first: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![first];
    let mut n = body.len();
    loop {
        let b = (n % 128) as u8;
        n /= 128;
        v.push(if n > 0 { b | 0x80 } else { b });
        if n == 0 {
            break;
        }
    }
    v.extend_from_slice(body);
    v
}

/// A two-byte length and the bytes.
fn lstr(v: &mut Vec<u8>, s: &[u8]) {
    v.extend_from_slice(&(s.len() as u16).to_be_bytes());
    v.extend_from_slice(s);
}

/// One message: who sends it, its type, its fixed header's flag bits, its bytes.
struct Msg {
    client: bool,
    kind: u8,
    bits: u8,
    bytes: Vec<u8>,
}

/// What the session holds, for the rule's conditions.
#[derive(Default)]
struct Session {
    version: u8,
    connect_flags: u8,
    session_present: bool,
    connack_code: u8,
    clientid: Vec<u8>,
    username: Option<Vec<u8>>,
    password: Option<Vec<u8>>,
    willtopic: Option<Vec<u8>>,
    willmessage: Option<Vec<u8>>,
    publish: Option<(Vec<u8>, Vec<u8>, u8)>,
    subscribe: Option<Vec<u8>>,
    unsubscribe: Option<Vec<u8>>,
    reasons: Vec<(bool, u8)>,
    /// The parser event the session's last client message raises, and the other
    /// event of [`EVENTS`] (not raised).
    event: Option<(&'static str, &'static str)>,
}

/// The client messages that raise a parser event: first byte and event name.
const EVENTS: [(u8, &str); 2] = [
    (0x36, "mqtt.invalid_qos_level"),
    (0x00, "mqtt.unassigned_msg_type"),
];

/// A printable value of 4 to 12 bytes from the needle letters (a topic may have levels).
fn text(g: &mut Gen<'_>, topic: bool) -> Vec<u8> {
    let n = g.size(4, 12);
    let mut v = g.needle(n);
    if topic && v.len() > 5 && g.chance(0.5) {
        v[3] = b'/';
    }
    v
}

/// Writes the session's messages.
fn session(g: &mut Gen<'_>) -> (Session, Vec<Msg>) {
    let version = g.pick(&[3u8, 4, 4, 5, 5]);
    let v5 = version == 5;
    let mut s = Session {
        version,
        clientid: text(g, false),
        ..Session::default()
    };
    let mut msgs = Vec::new();
    let mut push = |client: bool, first: u8, body: Vec<u8>| {
        msgs.push(Msg {
            client,
            kind: first >> 4,
            bits: first & 0x0f,
            bytes: control(first, &body),
        })
    };
    // CONNECT.
    let mut flags = 0u8;
    if g.chance(0.6) {
        flags |= 0x02;
    }
    if g.chance(0.4) {
        flags |= 0x04 | (g.num(0, 2) as u8) << 3;
        if g.chance(0.5) {
            flags |= 0x20;
        }
        s.willtopic = Some(text(g, true));
        s.willmessage = Some(text(g, false));
    }
    if g.chance(0.6) {
        flags |= 0x80;
        s.username = Some(text(g, false));
        if g.chance(0.7) {
            flags |= 0x40;
            s.password = Some(text(g, false));
        }
    }
    s.connect_flags = flags;
    let mut b = Vec::new();
    lstr(&mut b, if version == 3 { b"MQIsdp" } else { b"MQTT" });
    b.push(version);
    b.push(flags);
    b.extend_from_slice(&60u16.to_be_bytes());
    if v5 {
        b.push(0);
    }
    lstr(&mut b, &s.clientid);
    if let (Some(t), Some(m)) = (&s.willtopic, &s.willmessage) {
        if v5 {
            b.push(0);
        }
        lstr(&mut b, t);
        lstr(&mut b, m);
    }
    for x in [&s.username, &s.password].into_iter().flatten() {
        lstr(&mut b, x);
    }
    push(true, 0x10, b);
    // CONNACK.
    s.session_present = flags & 0x02 == 0 && g.chance(0.5);
    s.connack_code = if g.chance(0.85) {
        0
    } else if v5 {
        g.pick(&[0x80u8, 0x86, 0x87])
    } else {
        g.pick(&[4u8, 5])
    };
    s.reasons.push((false, s.connack_code));
    let mut b = vec![u8::from(s.session_present), s.connack_code];
    if v5 {
        b.push(0);
    }
    push(false, 0x20, b);
    let mut id = g.num(1, 60_000) as u16;
    // PUBLISH and its acknowledgements.
    if g.chance(0.75) {
        let qos = g.num(0, 2) as u8;
        let dup = qos > 0 && g.chance(0.3);
        let retain = g.chance(0.4);
        let first = 0x30 | u8::from(dup) << 3 | qos << 1 | u8::from(retain);
        let n = g.size(0, 30);
        let (topic, message) = (text(g, true), g.filler(n));
        let message = [&message[..], &text(g, false)].concat();
        let mut b = Vec::new();
        lstr(&mut b, &topic);
        if qos > 0 {
            b.extend_from_slice(&id.to_be_bytes());
        }
        if v5 {
            b.push(0);
        }
        b.extend_from_slice(&message);
        push(true, first, b);
        let ack = |first: u8, reason: Option<u8>| {
            let mut b = id.to_be_bytes().to_vec();
            if let Some(r) = reason {
                b.push(r);
                b.push(0);
            }
            (first, b)
        };
        let reason = (v5 && g.chance(0.6)).then(|| g.pick(&[0u8, 0x10, 0x97]));
        if let Some(r) = reason {
            s.reasons.push((false, r));
        }
        match qos {
            1 => {
                let (f, b) = ack(0x40, reason);
                push(false, f, b);
            }
            2 => {
                let (f, b) = ack(0x50, reason);
                push(false, f, b);
                let (f, b) = ack(0x62, None);
                push(true, f, b);
                let (f, b) = ack(0x70, None);
                push(false, f, b);
            }
            _ => {}
        }
        s.publish = Some((topic, message, first & 0x0f));
        id = id.wrapping_add(1);
    }
    // SUBSCRIBE, SUBACK, the broker's PUBLISH on it.
    if g.chance(0.6) {
        let topic = text(g, true);
        let mut b = id.to_be_bytes().to_vec();
        if v5 {
            b.push(0);
        }
        lstr(&mut b, &topic);
        let want = g.num(0, 2) as u8;
        b.push(want);
        push(true, 0x82, b);
        let mut b = id.to_be_bytes().to_vec();
        if v5 {
            b.push(0);
        }
        let granted = if g.chance(0.8) { want } else { 0x80 };
        b.push(granted);
        push(false, 0x90, b);
        if g.chance(0.5) {
            let mut b = Vec::new();
            lstr(&mut b, &topic);
            if v5 {
                b.push(0);
            }
            b.extend_from_slice(&g.filler(12));
            push(false, 0x30, b);
        }
        s.subscribe = Some(topic);
        id = id.wrapping_add(1);
    }
    // UNSUBSCRIBE, UNSUBACK.
    if g.chance(0.4) {
        let topic = text(g, true);
        let mut b = id.to_be_bytes().to_vec();
        if v5 {
            b.push(0);
        }
        lstr(&mut b, &topic);
        push(true, 0xa2, b);
        let mut b = id.to_be_bytes().to_vec();
        if v5 {
            let r = g.pick(&[0u8, 0x11]);
            s.reasons.push((false, r));
            b.push(0);
            b.push(r);
        }
        push(false, 0xb0, b);
        s.unsubscribe = Some(topic);
    }
    if g.chance(0.3) {
        push(true, 0xc0, Vec::new());
        push(false, 0xd0, Vec::new());
    }
    // A client message raising a parser event: a PUBLISH of QoS 3, a type 0.
    if g.chance(0.25) {
        let i = g.size(0, 1);
        let (first, name) = EVENTS[i];
        let mut b = Vec::new();
        if first >> 4 == 3 {
            lstr(&mut b, &text(g, true));
            b.extend_from_slice(&id.to_be_bytes());
            if v5 {
                b.push(0);
            }
            b.extend_from_slice(&g.filler(6));
        }
        push(true, first, b);
        s.event = Some((name, EVENTS[1 - i].1));
    }
    // DISCONNECT (with a reason code in some MQTT 5 sessions).
    let b = if v5 && g.chance(0.5) {
        let r = g.pick(&[0u8, 4]);
        s.reasons.push((true, r));
        vec![r, 0]
    } else {
        Vec::new()
    };
    push(true, 0xe0, b);
    (s, msgs)
}

/// A `mqtt.protocol_version` condition on version `v`.
fn version_cond(g: &mut Gen<'_>, v: u8) -> Cond {
    let (h, m) = match g.size(0, 3) {
        0 => (format!("{v}"), format!("{}", v + 1)),
        1 => (format!("<{}", v + 1), format!("<{v}")),
        2 => (format!(">{}", v - 1), format!(">{v}")),
        _ => (
            format!("{}-{}", v - 1, v + 1),
            format!("{}-{}", v + 1, v + 3),
        ),
    };
    Cond {
        hit: format!("mqtt.protocol_version:{h};"),
        miss: format!("mqtt.protocol_version:{m};"),
    }
}

/// A flag list: every name set in `bits` (some of them) and some clear ones negated;
/// its miss twin negates one set flag (or sets a clear one).
fn flags_cond(g: &mut Gen<'_>, kw: &str, names: &[(&str, u8)], bits: u8) -> Cond {
    let mut hit = Vec::new();
    let mut miss = Vec::new();
    let mut spoiled = false;
    for &(n, b) in names {
        if !g.chance(0.6) {
            continue;
        }
        let set = bits & b != 0;
        hit.push(if set { n.to_string() } else { format!("!{n}") });
        if !spoiled {
            miss.push(if set { format!("!{n}") } else { n.to_string() });
            spoiled = true;
        } else {
            miss.push(hit.last().cloned().unwrap_or_default());
        }
    }
    if hit.is_empty() {
        let (n, b) = names[g.size(0, names.len() - 1)];
        let set = bits & b != 0;
        hit.push(if set { n.to_string() } else { format!("!{n}") });
        miss.push(if set { format!("!{n}") } else { n.to_string() });
    }
    Cond {
        hit: format!("{kw}:{};", hit.join(",")),
        miss: format!("{kw}:{};", miss.join(",")),
    }
}

fn mqtt(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let (s, msgs) = session(g);
    let mut f = Flow::new(g.index, v6, 1883);
    let (ci, si) = (30_000u32, 50_000u32);
    f.handshake(ci, si);
    let (mut c, mut sv) = (ci + 1, si + 1);
    // Consecutive messages of one side go together in one segment now and then.
    let mut i = 0;
    while i < msgs.len() {
        let client = msgs[i].client;
        let mut data = msgs[i].bytes.clone();
        i += 1;
        while i < msgs.len() && msgs[i].client == client && g.chance(0.3) {
            data.extend_from_slice(&msgs[i].bytes);
            i += 1;
        }
        let (seq, ack) = if client { (&mut c, sv) } else { (&mut sv, c) };
        f.tcp(client, *seq, ack, PSH | ACK, &[], &data);
        *seq += data.len() as u32;
    }
    f.tcp(false, sv, c, ACK, &[], &[]);
    f.close(c, sv);
    let side_client = g.chance(0.6);
    let sent: Vec<&Msg> = msgs.iter().filter(|m| m.client == side_client).collect();
    let absent = |kinds: &[u8]| -> Vec<u8> {
        (1..15u8)
            .filter(|k| !kinds.contains(k))
            .collect::<Vec<u8>>()
    };
    let side_kinds: Vec<u8> = sent.iter().map(|m| m.kind).collect();
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let pick = g.size(0, 8);
        let c = match pick {
            8 if s.event.is_some() => {
                let (hit, miss) = s.event.unwrap_or_default();
                (
                    "app-layer-event".to_string(),
                    Cond {
                        hit: format!("app-layer-event:{hit};"),
                        miss: format!("app-layer-event:{miss};"),
                    },
                )
            }
            0 => {
                let m = sent[g.size(0, sent.len() - 1)];
                let other = absent(&side_kinds);
                let o = other[g.size(0, other.len() - 1)];
                let name = |k: u8| {
                    let n = TYPES[usize::from(k)];
                    if g_lower(k) {
                        n.to_ascii_lowercase()
                    } else {
                        n.to_string()
                    }
                };
                (
                    "mqtt.type".to_string(),
                    Cond {
                        hit: format!("mqtt.type:{};", name(m.kind)),
                        miss: format!("mqtt.type:{};", name(o)),
                    },
                )
            }
            1 => ("mqtt.protocol_version".into(), version_cond(g, s.version)),
            2 if side_client => (
                "mqtt.connect.flags".into(),
                flags_cond(
                    g,
                    "mqtt.connect.flags",
                    &[
                        ("username", 0x80),
                        ("password", 0x40),
                        ("will_retain", 0x20),
                        ("will", 0x04),
                        ("clean_session", 0x02),
                    ],
                    s.connect_flags,
                ),
            ),
            2 => {
                let (h, m) = if s.session_present {
                    ("true", "false")
                } else {
                    ("false", "true")
                };
                let yes = g.chance(0.3);
                let word = |w: &str| {
                    match (w, yes) {
                        ("true", true) => "yes",
                        ("false", true) => "no",
                        _ => w,
                    }
                    .to_string()
                };
                (
                    "mqtt.connack.session_present".into(),
                    Cond {
                        hit: format!("mqtt.connack.session_present:{};", word(h)),
                        miss: format!("mqtt.connack.session_present:{};", word(m)),
                    },
                )
            }
            3 => {
                // The flags of a PUBLISH of this side (or of the first message).
                let bits = sent
                    .iter()
                    .find(|m| m.kind == 3)
                    .map(|m| m.bits)
                    .unwrap_or(sent[0].bits);
                (
                    "mqtt.flags".into(),
                    flags_cond(g, "mqtt.flags", &[("dup", 8), ("retain", 1)], bits),
                )
            }
            4 => {
                let q = sent
                    .iter()
                    .find(|m| m.kind == 3)
                    .map(|m| (m.bits >> 1) & 3)
                    .unwrap_or(0);
                let other = [0u8, 1, 2]
                    .into_iter()
                    .find(|x| sent.iter().all(|m| (m.bits >> 1) & 3 != *x))
                    .unwrap_or(3);
                (
                    "mqtt.qos".into(),
                    Cond {
                        hit: format!("mqtt.qos:{q};"),
                        miss: format!("mqtt.qos:{other};"),
                    },
                )
            }
            5 => {
                let codes: Vec<u8> = s
                    .reasons
                    .iter()
                    .filter(|r| r.0 == side_client)
                    .map(|r| r.1)
                    .collect();
                let h = codes.first().copied().unwrap_or(0);
                let m = (1..=255u8).find(|x| !codes.contains(x)).unwrap_or(255);
                let kw = g.pick(&["mqtt.reason_code", "mqtt.connack.return_code"]);
                (
                    kw.to_string(),
                    Cond {
                        hit: format!("{kw}:{h};"),
                        miss: format!("{kw}:{m};"),
                    },
                )
            }
            _ => {
                let bufs: Vec<Buf> = if side_client {
                    let p = s.publish.as_ref();
                    vec![
                        buf(
                            "mqtt.connect.clientid",
                            None,
                            None,
                            Some(s.clientid.clone()),
                        ),
                        buf("mqtt.connect.username", None, None, s.username.clone()),
                        buf("mqtt.connect.password", None, None, s.password.clone()),
                        buf("mqtt.connect.willtopic", None, None, s.willtopic.clone()),
                        buf(
                            "mqtt.connect.willmessage",
                            None,
                            None,
                            s.willmessage.clone(),
                        ),
                        buf("mqtt.publish.topic", None, None, p.map(|p| p.0.clone())),
                        buf("mqtt.publish.message", None, None, p.map(|p| p.1.clone())),
                        buf("mqtt.subscribe.topic", None, None, s.subscribe.clone()),
                        buf("mqtt.unsubscribe.topic", None, None, s.unsubscribe.clone()),
                    ]
                } else {
                    // The broker's PUBLISH carries the subscribed topic.
                    let broker = msgs.iter().any(|m| !m.client && m.kind == 3);
                    vec![buf(
                        "mqtt.publish.topic",
                        None,
                        None,
                        s.subscribe.clone().filter(|_| broker),
                    )]
                };
                let b = &bufs[g.size(0, bufs.len() - 1)];
                let (form, c) = cond(g, b);
                (format!("{}-{form}", b.kw), c)
            }
        };
        conds.push(c);
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    // Named by the first condition first (known differences are listed by prefix).
    let name = format!(
        "{}-{}-v{}",
        conds[0].0,
        if side_client { "client" } else { "server" },
        s.version
    );
    let rproto = g.pick(&["mqtt", "mqtt", "tcp"]);
    let sp = base(&name, intent, v6, L4::Tcp, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    let payload = msgs[0].bytes.clone();
    super::bufcond::tcp_case(sp, f, 1883, opts, !side_client, payload)
}

/// Type names in lowercase for a few codes (the keyword takes any case).
fn g_lower(k: u8) -> bool {
    k.is_multiple_of(5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn remaining_lengths_use_the_variable_length_encoding() {
        assert_eq!(control(0xc0, &[]), vec![0xc0, 0]);
        let p = control(0x30, &[7; 200]);
        assert_eq!(&p[..3], &[0x30, 0xc8, 0x01]);
        assert_eq!(p.len(), 203);
    }

    #[test]
    fn sessions_start_with_connect_and_connack_and_end_with_disconnect() {
        let mut rng = Rng::new(8);
        let mut g = Gen {
            rng: &mut rng,
            index: 2,
        };
        for _ in 0..100 {
            let (s, msgs) = session(&mut g);
            assert_eq!((msgs[0].kind, msgs[0].client), (1, true));
            assert_eq!((msgs[1].kind, msgs[1].client), (2, false));
            assert_eq!(msgs.last().map(|m| m.kind), Some(14));
            let c = &msgs[0].bytes;
            let name_len = usize::from(c[3]);
            assert_eq!(c[4 + name_len], s.version);
            assert_eq!(c[5 + name_len], s.connect_flags);
        }
    }

    #[test]
    fn rules_parse_and_flows_decode() {
        let mut rng = Rng::new(4);
        let mut ok = 0;
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = mqtt(&mut g);
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
            assert!(c.frames(0).len() >= 9);
        }
        assert!(ok >= 270, "{ok} of 300 parse");
    }
}
