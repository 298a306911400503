//! Packet-header templates: `ttl`, `tos`, `id`, `ip_proto` with every operator and the
//! type limits, every `ipopts` name, `fragbits`/`fragoffset` with each modifier,
//! `flags` with each modifier and mask, `window`, `seq`, `ack`, ICMP type, code,
//! identifier and sequence with ranges, and `flow` directions and states.

use super::{base, Family, Gen};
use crate::case::{Intent, Spec, L4};
use crate::packet::pad_options;
use wire::tcp_flags::{ACK, CWR, ECE, FIN, PSH, RST, SYN, URG};

fn payload_spec(g: &mut Gen<'_>, name: &str) -> (Spec, bool) {
    let intent = g.intent();
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    let mut s = base(name, intent, v6, l4, proto);
    let n = g.size(1, 40);
    s.payload = g.filler(n);
    (s, intent == Intent::Hit)
}

/// A u8/u16/u32 comparison in Suricata's integer syntax that holds (`hit`) or just fails
/// for `v` (whose type's maximum is `max`): `=`, `<`, `>`, `<=`, `>=`, `!`, `a-b`.
fn int_cmp(g: &mut Gen<'_>, v: u64, max: u64, hit: bool, ops: &[&str]) -> (String, String) {
    let op = g.pick(ops);
    let up = |x: u64| if x < max { x + 1 } else { x - 1 };
    let text = match (op, hit) {
        ("=", true) => v.to_string(),
        ("=", false) => up(v).to_string(),
        ("<", true) if v < max => format!("<{}", v + 1),
        ("<", _) => format!("<{v}"),
        (">", true) if v > 0 => format!(">{}", v - 1),
        (">", _) => format!(">{v}"),
        ("<=", true) => format!("<={v}"),
        ("<=", false) if v > 0 => format!("<={}", v - 1),
        ("<=", false) => format!("<{v}"),
        (">=", true) => format!(">={v}"),
        (">=", false) if v < max => format!(">={}", v + 1),
        (">=", false) => format!(">{v}"),
        ("!", true) => format!("!{}", up(v)),
        ("!", false) => format!("!{v}"),
        ("range", true) => format!("{}-{}", v.saturating_sub(1), (v + 1).min(max)),
        ("range", false) => format!("{}-{}", (v + 1).min(max), (v + 3).min(max)),
        (_, true) => format!("{}<>{}", v.saturating_sub(1), (v + 1).min(max)),
        (_, false) => format!("{v}<>{}", (v + 2).min(max)),
    };
    let name = match op {
        "=" => "eq",
        "<" => "lt",
        ">" => "gt",
        "<=" => "le",
        ">=" => "ge",
        "!" => "not",
        "range" => "range",
        _ => "between",
    };
    (name.to_string(), text)
}

const INT_OPS: &[&str] = &["=", "<", ">", "<=", ">=", "!", "range", "<>"];

fn edge_u8(g: &mut Gen<'_>) -> u64 {
    match g.num(0, 4) {
        0 => 0,
        1 => 1,
        2 => 255,
        _ => g.num(0, 255),
    }
}

/// `ttl`, `tos`, `id`, `ip_proto`.
pub const TTL_TOS_ID: Family = Family {
    name: "ipfields",
    keywords: &["ttl", "tos", "id", "ip_proto"],
    weight: 6,
    make: ip_fields,
};

fn ip_fields(g: &mut Gen<'_>) -> Spec {
    let which = g.pick(&["ttl", "tos", "id", "ip_proto"]);
    let (mut s, h) = payload_spec(g, which);
    match which {
        "ttl" => {
            let v = edge_u8(g).max(1);
            s.tweaks.ip.ttl = v as u8;
            let (op, t) = int_cmp(g, v, 255, h, INT_OPS);
            s.template = format!("ttl-{op}");
            s.opts = format!("ttl:{t};");
        }
        "tos" => {
            let v = edge_u8(g) & 0xfc;
            s.tweaks.ip.tos = v as u8;
            let shown = if h { v } else { v ^ 4 };
            let form = g.num(0, 2);
            s.template = format!("tos-{}", ["dec", "hex", "not"][form as usize]);
            s.opts = match form {
                0 => format!("tos:{shown};"),
                1 => format!("tos:0x{shown:x};"),
                _ => format!("tos:!{};", if h { v ^ 4 } else { v }),
            };
        }
        "id" => {
            s.v6 = false;
            let v = match g.num(0, 3) {
                0 => 0,
                1 => 65535,
                _ => g.num(1, 65534),
            };
            s.tweaks.ip.id = v as u16;
            let shown = if h { v } else { v ^ 1 };
            s.opts = format!("id:{shown};");
        }
        _ => {
            let num = if s.l4 == L4::Tcp { 6 } else { 17 };
            s.proto = "ip";
            let (op, t) = int_cmp(g, num, 255, h, &["=", "<", ">", "!"]);
            s.template = format!("ip_proto-{op}");
            let named = g.chance(0.3) && op == "eq";
            s.opts = if named {
                let name = match (num, h) {
                    (6, true) | (17, false) => "tcp",
                    _ => "udp",
                };
                format!("ip_proto:{name};")
            } else {
                format!("ip_proto:{t};")
            };
        }
    }
    s
}

/// The bytes of a well-formed IPv4 option of each name `ipopts` knows.
fn option_bytes(name: &str) -> Vec<u8> {
    match name {
        "eol" => vec![0],
        "nop" => vec![1],
        "rr" => vec![7, 7, 4, 0, 0, 0, 0],
        "ts" => vec![68, 8, 5, 0, 0, 0, 0, 0],
        "sec" => vec![130, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        "esec" => vec![133, 3, 0],
        "lsrr" => vec![131, 7, 4, 10, 0, 0, 9],
        "ssrr" => vec![137, 7, 4, 10, 0, 0, 9],
        "satid" => vec![136, 4, 0, 1],
        _ => vec![148, 4, 0, 0],
    }
}

const IPOPT_NAMES: &[&str] = &[
    "rr", "eol", "nop", "ts", "sec", "esec", "lsrr", "ssrr", "satid", "any",
];

/// Every `ipopts` name on a packet with that option, or with another one.
pub const IPOPTS: Family = Family {
    name: "ipopts",
    keywords: &["ipopts"],
    weight: 4,
    make: ipopts,
};

fn ipopts(g: &mut Gen<'_>) -> Spec {
    let name = g.pick(IPOPT_NAMES);
    let (mut s, h) = payload_spec(g, name);
    s.v6 = false;
    let carried = if h {
        if name == "any" {
            g.pick(&IPOPT_NAMES[..9])
        } else {
            name
        }
    } else if name == "any" {
        ""
    } else {
        let others: Vec<&str> = IPOPT_NAMES[..9]
            .iter()
            .copied()
            .filter(|o| *o != name)
            .collect();
        g.pick(&others)
    };
    if !carried.is_empty() {
        let mut o = option_bytes(carried);
        if carried != "eol" && g.chance(0.3) {
            o.insert(0, 1);
        }
        s.tweaks.ip.options = pad_options(o);
    }
    s.opts = format!("ipopts:{name};");
    s
}

/// `fragbits` with each modifier, `fragoffset`.
pub const FRAGBITS: Family = Family {
    name: "fragbits",
    keywords: &["fragbits", "fragoffset"],
    weight: 3,
    make: fragbits,
};

fn fragbits(g: &mut Gen<'_>) -> Spec {
    let m = g.pick(&["", "+", "*", "!"]);
    let (mut s, h) = payload_spec(g, if m.is_empty() { "exact" } else { m });
    s.v6 = false;
    // The packet's bits: D and R mostly; M (a first fragment) now and then.
    let bits = [(b'R', 0x8000u16), (b'D', 0x4000), (b'M', 0x2000)];
    let mut pkt = 0u16;
    for (_, b) in bits {
        if g.chance(if b == 0x2000 { 0.1 } else { 0.5 }) {
            pkt |= b;
        }
    }
    if g.chance(0.15) {
        s.template = format!("fragoffset{}", if h { "-eq" } else { "-neq" });
        s.tweaks.ip.frag = pkt & 0xc000;
        s.opts = if h {
            "fragoffset:0;".into()
        } else {
            "fragoffset:!0;".into()
        };
        return s;
    }
    s.tweaks.ip.frag = pkt;
    let set: String = bits
        .iter()
        .filter(|(_, b)| pkt & b != 0)
        .map(|(c, _)| *c as char)
        .collect();
    let unset: String = bits
        .iter()
        .filter(|(_, b)| pkt & b == 0)
        .map(|(c, _)| *c as char)
        .collect();
    let test = match (m, h) {
        ("", true) | ("+", true) => set.clone(),
        ("", false) => format!("{set}{}", unset.chars().next().unwrap_or('D')),
        ("+", false) => unset.chars().next().map(String::from).unwrap_or_default(),
        ("*", true) => format!("{}{}", set.chars().next().unwrap_or('D'), unset),
        ("*", false) | ("!", true) => unset.clone(),
        _ => set.clone(),
    };
    if test.is_empty() {
        s.opts = "fragbits:!R;".into();
        s.template = "not-R".into();
    } else {
        s.opts = format!("fragbits:{m}{test};");
    }
    s
}

/// `flags` with every modifier and mask, CWR/ECE included (both spellings).
pub const FLAGS: Family = Family {
    name: "flags",
    keywords: &["flags"],
    weight: 5,
    make: flags,
};

fn flags(g: &mut Gen<'_>) -> Spec {
    let m = g.pick(&["", "+", "*", "!"]);
    let intent = g.intent();
    let h = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(
        if m.is_empty() { "exact" } else { m },
        intent,
        v6,
        L4::Tcp,
        "tcp",
    );
    s.payload = {
        let n = g.size(1, 30);
        g.filler(n)
    };
    let mut pkt = ACK;
    for b in [PSH, URG, ECE, CWR] {
        if g.chance(0.4) {
            pkt |= b;
        }
    }
    s.tweaks.tcp_flags = Some(pkt);
    let cwr_names = if g.chance(0.5) {
        ('C', 'E')
    } else {
        ('2', '1')
    };
    let letters = [
        (FIN, 'F'),
        (SYN, 'S'),
        (RST, 'R'),
        (PSH, 'P'),
        (ACK, 'A'),
        (URG, 'U'),
        (CWR, cwr_names.0),
        (ECE, cwr_names.1),
    ];
    let set: String = letters
        .iter()
        .filter(|(b, _)| pkt & b != 0)
        .map(|(_, c)| *c)
        .collect();
    let unset: String = letters
        .iter()
        .filter(|(b, _)| pkt & b == 0)
        .map(|(_, c)| *c)
        .collect();
    let first_unset = unset.chars().next().unwrap_or('F');
    let test = match (m, h) {
        ("", true) | ("+", true) => set.clone(),
        ("", false) => format!("{set}{first_unset}"),
        ("+", false) => format!("A{first_unset}"),
        ("*", true) => format!("A{first_unset}"),
        ("*", false) => unset.chars().take(3).collect(),
        ("!", true) => first_unset.to_string(),
        _ => "A".to_string(),
    };
    // A mask of flags to ignore, now and then (the ECN bits, or the reserved ones).
    let mask = if g.chance(0.25) {
        g.pick(&[",12", ",CE", ",U", ",PU"])
    } else {
        ""
    };
    if !mask.is_empty() {
        s.template.push_str("-mask");
    }
    // Snort's spelling with the modifier after the letters, now and then.
    if !m.is_empty() && g.chance(0.15) {
        s.template.push_str("-suffix");
        s.opts = format!("flags:{test}{m}{mask};");
    } else {
        s.opts = format!("flags:{m}{test}{mask};");
    }
    s
}

/// `window`, `seq`, `ack` on the data packet.
pub const TCP_FIELDS: Family = Family {
    name: "tcpfields",
    keywords: &["window", "seq", "ack"],
    weight: 3,
    make: tcp_fields,
};

fn tcp_fields(g: &mut Gen<'_>) -> Spec {
    let which = g.pick(&["window", "window-not", "seq", "ack"]);
    let intent = g.intent();
    let h = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(which, intent, v6, L4::Tcp, "tcp");
    s.payload = {
        let n = g.size(1, 30);
        g.filler(n)
    };
    let d = u32::from(!h);
    s.opts = match which {
        "window" | "window-not" => {
            let w = match g.num(0, 3) {
                0 => 0,
                1 => 65535,
                _ => g.num(1, 65534) as u16,
            };
            s.tweaks.window = Some(w);
            let shown = if h == (which == "window") { w } else { w ^ 1 };
            if which == "window" {
                format!("window:{shown};")
            } else {
                format!("window:!{shown};")
            }
        }
        // The data packet's sequence and acknowledgement numbers (see Case::frames).
        "seq" => format!("seq:{};", 1001 + d),
        _ => format!("ack:{};", 5001 + d),
    };
    s
}

/// ICMP and ICMPv6 `itype`/`icode` with every operator, `icmp_id`, `icmp_seq`.
pub const ICMP: Family = Family {
    name: "icmp",
    keywords: &["itype", "icode", "icmp_id", "icmp_seq"],
    weight: 5,
    make: icmp,
};

fn icmp(g: &mut Gen<'_>) -> Spec {
    let which = g.pick(&["itype", "icode", "icmp_id", "icmp_seq"]);
    let intent = g.intent();
    let h = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(which, intent, v6, L4::Icmp, "icmp");
    s.payload = {
        let n = g.size(0, 30);
        g.filler(n)
    };
    let echo = if v6 { 128 } else { 8 };
    let ty = if which == "itype" && g.chance(0.4) {
        g.pick(if v6 {
            &[1u8, 2, 3, 4, 130, 200, 255][..]
        } else {
            &[0u8, 13, 15, 17, 40, 255][..]
        })
    } else {
        echo
    };
    let code = if which == "icode" {
        edge_u8(g) as u8
    } else {
        0
    };
    s.tweaks.icmp = Some((ty, code));
    let id = g.num(0, 65535) as u16;
    let seq = g.num(0, 65535) as u16;
    s.tweaks.icmp_id_seq = (id, seq);
    match which {
        "itype" | "icode" => {
            let v = if which == "itype" { ty } else { code };
            let (op, t) = int_cmp(g, u64::from(v), 255, h, INT_OPS);
            s.template = format!("{which}-{op}");
            s.opts = format!("{which}:{t};");
        }
        _ => {
            let v = if which == "icmp_id" { id } else { seq };
            let shown = if h { v } else { v ^ 1 };
            s.opts = format!("{which}:{shown};");
        }
    }
    s
}

/// `flow` with each direction and state, on TCP and UDP.
pub const FLOW: Family = Family {
    name: "flow",
    keywords: &["flow"],
    weight: 3,
    make: flow,
};

fn flow(g: &mut Gen<'_>) -> Spec {
    let opt = g.pick(&[
        "to_server",
        "to_client",
        "established",
        "not_established",
        "stateless",
        "established,to_server",
        "from_client",
        "from_server",
        "established,to_client",
        "to_server,no_stream",
        "to_server,only_stream",
    ]);
    let (mut s, _) = payload_spec(g, opt);
    s.intent = Intent::Hit;
    s.opts = format!("flow:{opt};");
    s
}
