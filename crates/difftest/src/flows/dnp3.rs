//! DNP3 on TCP port 20000 (opt-in in Suricata, enabled for the batch by
//! `oracle::APP_LAYER_SETS`): link frames with their CRC after the header and after each
//! 16-byte block of user data, the transport header (FIR, FIN, sequence), application
//! fragments cut over one to three transport segments now and then. The master sends
//! requests (read of class or point data, write of the restart indication, select,
//! operate and direct operate with a CROB, restarts, enable unsolicited, a function
//! code at the edges 0 and 255), the outstation answers with internal indications (none,
//! all, some) and objects (binary inputs with flags, 32-bit analog inputs, counters, the
//! CROB echoed, a time delay), an unsolicited response now and then. The rule takes one
//! or two conditions of one side: `dnp3_func` (name in any case or number, 0 and 255,
//! one past the byte), `dnp3_ind` (names of set and clear bits), `dnp3_obj` (objects of
//! the message or not, groups and variations at 0 and 255, one past), or the
//! `dnp3.data` buffer in the forms of the HTTP buffer family; and now and then the
//! Suricata 8 names `dnp3.func`/`dnp3.ind`/`dnp3.obj`, which Suricata 7.0.10 refuses.

use super::bufcond::{cond, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};

/// DNP3 requests and responses.
pub const DNP3: Family = Family {
    name: "dnp3",
    keywords: &[
        "dnp3_func",
        "dnp3_ind",
        "dnp3_obj",
        "dnp3.data",
        "dnp3.func",
        "dnp3.ind",
        "dnp3.obj",
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
    weight: 1,
    make: dnp3,
};

/// The DNP3 CRC (polynomial 0x3D65 reflected, complemented), as sent: little-endian.
pub fn crc(data: &[u8]) -> [u8; 2] {
    let mut c: u16 = 0;
    for &b in data {
        c ^= u16::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xA6BC
            } else {
                c >> 1
            };
        }
    }
    (!c).to_le_bytes()
}

/// A link frame with control `ctl` from `src` to `dst` carrying `user` (at most 250
/// bytes): the header and its CRC, then each 16-byte block with its CRC.
pub fn link(ctl: u8, dst: u16, src: u16, user: &[u8]) -> Vec<u8> {
    let mut h = vec![0x05, 0x64, (5 + user.len()) as u8, ctl];
    h.extend_from_slice(&dst.to_le_bytes());
    h.extend_from_slice(&src.to_le_bytes());
    let c = crc(&h);
    h.extend_from_slice(&c);
    for block in user.chunks(16) {
        h.extend_from_slice(block);
        h.extend_from_slice(&crc(block));
    }
    h
}

/// The link frames of application fragment `app`: one transport segment, or (`split`)
/// two or three, each with its transport header (FIR on the first, FIN on the last).
fn frames(g: &mut Gen<'_>, master: bool, app: &[u8], split: bool, tseq: &mut u8) -> Vec<u8> {
    let (ctl, dst, src) = if master { (0xC4, 10, 1) } else { (0x44, 1, 10) };
    let mut parts: Vec<&[u8]> = Vec::new();
    if split && app.len() >= 3 {
        let a = g.size(1, app.len() - 1);
        if app.len() - a >= 2 && g.chance(0.4) {
            let b = g.size(a + 1, app.len() - 1);
            parts.extend([&app[..a], &app[a..b], &app[b..]]);
        } else {
            parts.extend([&app[..a], &app[a..]]);
        }
    } else {
        parts.extend(app.chunks(249));
    }
    let n = parts.len();
    let mut out = Vec::new();
    for (i, p) in parts.into_iter().enumerate() {
        let mut th = *tseq & 0x3F;
        if i == 0 {
            th |= 0x40;
        }
        if i + 1 == n {
            th |= 0x80;
        }
        *tseq = tseq.wrapping_add(1);
        let mut user = vec![th];
        user.extend_from_slice(p);
        out.extend(link(ctl, dst, src, &user));
    }
    out
}

/// One object header with its qualifier and range or count, and its points.
fn object(group: u8, var: u8, qualifier: u8, range: &[u8], points: &[u8]) -> Vec<u8> {
    let mut v = vec![group, var, qualifier];
    v.extend_from_slice(range);
    v.extend_from_slice(points);
    v
}

/// A control relay output block for index `idx` (prefix and count 16 bits).
fn crob(g: &mut Gen<'_>, idx: u16) -> Vec<u8> {
    let mut p = 1u16.to_le_bytes().to_vec();
    p.extend_from_slice(&idx.to_le_bytes());
    p.push(g.pick(&[0x01, 0x03, 0x04, 0x41, 0x81]));
    p.push(1);
    p.extend_from_slice(&(g.num(0, 1000) as u32).to_le_bytes());
    p.extend_from_slice(&0u32.to_le_bytes());
    p.push(0);
    object(12, 1, 0x28, &[], &p)
}

/// A request: its function code and objects; and the objects of its response.
fn exchange(g: &mut Gen<'_>) -> (u8, Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let class = |g: &mut Gen<'_>| -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = [2u8, 3, 4]
            .iter()
            .filter(|_| g.chance(0.6))
            .map(|&var| object(60, var, 0x06, &[], &[]))
            .collect();
        if v.is_empty() || g.chance(0.5) {
            v.push(object(60, 1, 0x06, &[], &[]));
        }
        v
    };
    let points = |g: &mut Gen<'_>| -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        if g.chance(0.6) {
            let n = g.size(1, 6) as u8;
            let flags: Vec<u8> = (0..n).map(|_| g.pick(&[0x01, 0x81, 0x02])).collect();
            v.push(object(1, 2, 0x00, &[0, n - 1], &flags));
        }
        if g.chance(0.5) || v.is_empty() {
            let n = g.size(1, 3) as u16;
            let start = g.pick(&[0u16, 5, 65_000]);
            let mut r = start.to_le_bytes().to_vec();
            r.extend_from_slice(&(start + n - 1).to_le_bytes());
            let mut p = Vec::new();
            for _ in 0..n {
                p.push(0x01);
                p.extend_from_slice(&(g.num(0, u64::from(u32::MAX)) as u32).to_le_bytes());
            }
            v.push(object(30, 1, 0x01, &r, &p));
        }
        if g.chance(0.3) {
            let mut p = vec![0x01];
            p.extend_from_slice(&(g.num(0, 9999) as u32).to_le_bytes());
            v.push(object(20, 1, 0x00, &[3, 3], &p));
        }
        v
    };
    match g.size(0, 8) {
        0 | 1 => (1, class(g), points(g)),
        2 => {
            let req = vec![object(
                g.pick(&[1u8, 30, 20]),
                g.pick(&[0u8, 1, 2]),
                0x06,
                &[],
                &[],
            )];
            (1, req, points(g))
        }
        3 => (2, vec![object(80, 1, 0x00, &[7, 7], &[0])], Vec::new()),
        4 => {
            let idx = g.pick(&[0u16, 1, 65_535]);
            let o = crob(g, idx);
            (g.pick(&[3u8, 4, 5, 6]), vec![o.clone()], vec![o])
        }
        5 => {
            let d = g.num(0, 65_535) as u16;
            let resp = vec![object(52, 2, 0x07, &[1], &d.to_le_bytes())];
            (g.pick(&[13u8, 14]), Vec::new(), resp)
        }
        6 => (g.pick(&[20u8, 21]), class(g), Vec::new()),
        7 => {
            // An object type nobody decodes, at the edges of group and variation.
            let (gr, var) = g.pick(&[(0u8, 0u8), (255, 255), (0, 255), (120, 7)]);
            (1, vec![object(gr, var, 0x06, &[], &[])], Vec::new())
        }
        _ => (g.pick(&[0u8, 23, 24, 128, 255]), Vec::new(), Vec::new()),
    }
}

/// Internal indications: none, all, or a few.
fn iin(g: &mut Gen<'_>) -> u16 {
    match g.size(0, 5) {
        0 => 0,
        1 => 0xFFFF,
        2 => 0x8000,
        _ => (0..16)
            .filter(|_| g.chance(0.25))
            .fold(0u16, |a, b| a | (1 << b)),
    }
}

/// Function names of the codes the family sends, as Suricata's documentation lists
/// them.
const FUNCTIONS: &[(&str, u8)] = &[
    ("confirm", 0),
    ("read", 1),
    ("write", 2),
    ("select", 3),
    ("operate", 4),
    ("direct_operate", 5),
    ("direct_operate_nr", 6),
    ("cold_restart", 13),
    ("warm_restart", 14),
    ("enable_unsolicited", 20),
    ("disable_unsolicited", 21),
    ("delay_measure", 23),
    ("record_current_time", 24),
    ("response", 129),
    ("unsolicited_response", 130),
];

/// The name of a function code (`None`: no name, the number is written).
fn func_name(code: u8) -> Option<&'static str> {
    FUNCTIONS.iter().find(|(_, c)| *c == code).map(|(n, _)| *n)
}

/// A `dnp3_func` condition on a message with function `code`, missing with `other`.
fn func_cond(g: &mut Gen<'_>, kw: &str, code: u8, other: u8) -> (&'static str, Cond) {
    let text = |g: &mut Gen<'_>, c: u8| match func_name(c) {
        Some(n) if g.chance(0.6) => {
            if g.chance(0.2) {
                n.to_ascii_uppercase()
            } else {
                n.to_string()
            }
        }
        _ => c.to_string(),
    };
    if g.chance(0.05) {
        // Past the byte, or not a name: refused.
        let v = g.pick(&["256", "-1", "read_all", ""]);
        let c = format!("{kw}:{v};");
        return (
            "invalid",
            Cond {
                hit: c.clone(),
                miss: c,
            },
        );
    }
    let (h, m) = (text(g, code), text(g, other));
    (
        "func",
        Cond {
            hit: format!("{kw}:{h};"),
            miss: format!("{kw}:{m};"),
        },
    )
}

/// A `dnp3_ind` condition on indications `iin`: names of one set bit (with clear ones
/// now and then), missing with names of clear bits only.
fn ind_cond(g: &mut Gen<'_>, kw: &str, iin: u16) -> (&'static str, Cond) {
    let names = rules::keywords::DNP3_INDICATIONS;
    let set: Vec<&str> = (0..16)
        .filter(|i| iin & (0x8000 >> i) != 0)
        .map(|i| names[i])
        .collect();
    let clear: Vec<&str> = (0..16)
        .filter(|i| iin & (0x8000 >> i) == 0)
        .map(|i| names[i])
        .collect();
    let pick_some = |g: &mut Gen<'_>, v: &[&str], n: usize| -> Vec<String> {
        (0..n.min(v.len()))
            .map(|_| v[g.size(0, v.len() - 1)].to_string())
            .collect()
    };
    let mut hit = pick_some(g, &set, 1);
    if g.chance(0.4) {
        hit.extend(pick_some(g, &clear, 2));
    }
    let n = g.size(1, 2);
    let miss = pick_some(g, &clear, n);
    let join = |v: Vec<String>| {
        if v.is_empty() {
            // No bit to name: a name the message lacks, or all of them when all are set.
            "device_restart".to_string()
        } else {
            v.join(",")
        }
    };
    if g.chance(0.04) {
        let c = format!("{kw}:{};", g.pick(&["bogus", "reserved_3", ""]));
        return (
            "invalid",
            Cond {
                hit: c.clone(),
                miss: c,
            },
        );
    }
    (
        "ind",
        Cond {
            hit: format!("{kw}:{};", join(hit)),
            miss: format!("{kw}:{};", join(miss)),
        },
    )
}

/// A `dnp3_obj` condition on the objects `objs` (group, variation) of a message.
fn obj_cond(g: &mut Gen<'_>, kw: &str, objs: &[(u8, u8)]) -> (&'static str, Cond) {
    let absent = g.pick(&[(1u8, 1u8), (60, 5), (0, 0), (255, 255), (30, 2), (12, 2)]);
    let absent = if objs.contains(&absent) {
        (99, 99)
    } else {
        absent
    };
    if g.chance(0.05) {
        let v = g.pick(&["256,1", "1,256", "1", "a,b", "1,2,3"]);
        let c = format!("{kw}:{v};");
        // Suricata 7.0.10 takes these and drops the keyword (the rule matches every
        // packet of a DNP3 flow): a known difference, filed under its own template.
        return (
            "obj-malformed",
            Cond {
                hit: c.clone(),
                miss: c,
            },
        );
    }
    let miss = format!("{kw}:{},{};", absent.0, absent.1);
    let hit = match objs {
        [] => miss.clone(),
        _ => {
            let (gr, v) = objs[g.size(0, objs.len() - 1)];
            format!("{kw}:{gr},{v};")
        }
    };
    ("obj", Cond { hit, miss })
}

/// The (group, variation) of each object header of fragment objects `objs`.
fn ids(objs: &[Vec<u8>]) -> Vec<(u8, u8)> {
    objs.iter().map(|o| (o[0], o[1])).collect()
}

fn dnp3(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let mut f = Flow::new(g.index, v6, 20_000);
    // The exchange the rule looks at, after zero or one other exchange.
    let before = g.chance(0.3);
    let mut msgs: Vec<(bool, Vec<u8>)> = Vec::new();
    let (mut mseq, mut oseq, mut aseq) = (0u8, 0u8, g.num(0, 15) as u8);
    let mut first = None;
    let app_of = |g: &mut Gen<'_>, master: bool, app: &[u8], mseq: &mut u8| {
        let split = g.chance(0.25);
        frames(g, master, app, split, mseq)
    };
    let rounds = if before { 2 } else { 1 };
    let mut last = (0u8, Vec::new(), Vec::new(), 0u16, Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (func, req, resp) = exchange(g);
        let mut a = vec![0xC0 | (aseq & 0x0F), func];
        for o in &req {
            a.extend_from_slice(o);
        }
        let ind = iin(g);
        let mut r = vec![0xC0 | (aseq & 0x0F), 0x81];
        r.extend_from_slice(&ind.to_be_bytes());
        for o in &resp {
            r.extend_from_slice(o);
        }
        aseq = aseq.wrapping_add(1);
        let fr = app_of(g, true, &a, &mut mseq);
        first.get_or_insert_with(|| fr.clone());
        msgs.push((true, fr));
        let fr = app_of(g, false, &r, &mut oseq);
        msgs.push((false, fr));
        last = (func, req, resp, ind, a, r);
    }
    let (func, req, resp, ind, a, mut r) = last;
    let mut rfunc = 0x81;
    let mut rind = ind;
    let mut robjs = ids(&resp);
    if g.chance(0.15) {
        // An unsolicited response after the exchange: the response side's message.
        rind = iin(g);
        let n = g.size(1, 3) as u8;
        let mut p = Vec::new();
        for i in 0..n {
            p.push(i);
            p.push(g.pick(&[0x01, 0x81]));
        }
        let o = object(2, 1, 0x17, &[n], &p);
        r = vec![0xF0 | (aseq & 0x0F), 0x82];
        r.extend_from_slice(&rind.to_be_bytes());
        r.extend_from_slice(&o);
        robjs = vec![(2, 1)];
        rfunc = 0x82;
        msgs.push((false, app_of(g, false, &r, &mut oseq)));
    }
    super::session::tcp(g, &mut f, &msgs);
    let side_client = g.chance(0.5);
    let new_names = g.chance(0.06);
    let kw = |k: &'static str| -> &'static str {
        if !new_names {
            return k;
        }
        match k {
            "dnp3_func" => "dnp3.func",
            "dnp3_ind" => "dnp3.ind",
            _ => "dnp3.obj",
        }
    };
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let (name, c) = match g.size(0, 3) {
            0 => {
                let (code, other) = if side_client {
                    (func, if func == 1 { 2 } else { 1 })
                } else {
                    (rfunc, if rfunc == 0x81 { 0x82 } else { 0x81 })
                };
                func_cond(g, kw("dnp3_func"), code, other)
            }
            1 if !side_client => ind_cond(g, kw("dnp3_ind"), rind),
            2 => {
                let objs = if side_client {
                    ids(&req)
                } else {
                    robjs.clone()
                };
                obj_cond(g, kw("dnp3_obj"), &objs)
            }
            _ => {
                let v = if side_client { a.clone() } else { r.clone() };
                let b = buf("dnp3.data", None, None, Some(v));
                let (form, c) = cond(g, &b);
                (form, c)
            }
        };
        conds.push((name.to_string(), c));
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    let name = if conds.iter().any(|(n, _)| n == "obj-malformed") {
        "obj-malformed".to_string()
    } else {
        format!(
            "{}-{}",
            if side_client { "request" } else { "response" },
            conds[0].0
        )
    };
    let rproto = g.pick(&["dnp3", "dnp3", "tcp"]);
    let s = base(&name, intent, v6, L4::Tcp, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(s, f, 20_000, opts, !side_client, first.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_a_known_header() {
        // A link header from IEEE 1815's examples: 05 64 05 C0 01 00 00 04, CRC E9 21.
        assert_eq!(
            crc(&[0x05, 0x64, 0x05, 0xC0, 0x01, 0x00, 0x00, 0x04]),
            [0xE9, 0x21]
        );
    }

    #[test]
    fn link_frames_carry_a_crc_per_block_and_app_parses() {
        let f = link(0xC4, 10, 1, &[0xC0; 33]);
        // Header 10, blocks of 16+2, 16+2, 1+2.
        assert_eq!(f.len(), 10 + 18 + 18 + 3);
        assert_eq!(f[2], 38);
        let mut rng = gen::rng::Rng::new(1);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        let mut t = 0;
        for _ in 0..50 {
            let (func, req, _) = exchange(&mut g);
            let mut a = vec![0xC0, func];
            for o in &req {
                a.extend_from_slice(o);
            }
            let b = frames(&mut g, true, &a, true, &mut t);
            assert_eq!(&b[..2], &[0x05, 0x64]);
        }
    }

    #[test]
    fn rules_parse_mostly_and_flows_are_written() {
        let (cases, ok) = crate::flows::sample_cases(200, dnp3);
        assert!(ok >= 170, "{ok} of 200 parse");
        assert!(cases.iter().all(|c| c.frames(0).len() >= 10));
    }
}
