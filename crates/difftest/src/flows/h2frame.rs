//! HTTP/2 frame keywords over h2c (prior knowledge, TCP port 80): the client's preface,
//! SETTINGS with zero to six settings at their edge values (0, 1, the defaults, 2^24-1,
//! 2^31-1, 2^32-1, an unknown identifier now and then), a GET as one HEADERS frame
//! (optionally with the PRIORITY flag and a weight, an HPACK dynamic table size update
//! first, custom header names), then the frames the case is about on stream 1 or 0:
//! PRIORITY, WINDOW_UPDATE (increment at 0, 1, 2^31-1, the reserved bit set now and
//! then), RST_STREAM or GOAWAY (every error code, unknown ones, 2^32-1), PING; the
//! server's SETTINGS, its acknowledgement, HEADERS and DATA, and the server-side frames
//! of the same kinds. One or two conditions of one side: `http2.frametype` (names in
//! any case, numbers, types absent from that side), `http2.errorcode`,
//! `http2.priority`, `http2.window`, `http2.size_update` and `http2.settings` (every
//! setting name, alone or with a comparison) in every form of Suricata's unsigned
//! syntax with the just-missing twin, or the `http2.header_name` buffer in the forms of
//! the HTTP buffer family (also used twice in one rule).

use super::appval::uint_cond;
use super::bufcond::{cond, tcp_case, texts, Buf, Cond};
use super::http2::{frame, hpack};
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
// The names the keywords take, by number: the rules crate's own tables.
use rules::keywords::{
    HTTP2_ERROR_CODES as ERROR_CODES, HTTP2_FRAME_TYPES as FRAME_TYPES, HTTP2_SETTINGS as SETTINGS,
};
use wire::tcp_flags::{ACK, PSH};

/// HTTP/2 frame keywords.
pub const H2FRAME: Family = Family {
    name: "h2frame",
    keywords: &[
        "http2.frametype",
        "http2.errorcode",
        "http2.priority",
        "http2.window",
        "http2.size_update",
        "http2.settings",
        "http2.header_name",
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
    weight: 4,
    make: h2frame,
};

/// Values a setting takes (its edges and defaults; some invalid for their setting).
fn setting_value(g: &mut Gen<'_>, id: u16) -> u32 {
    let edges: &[u32] = match id {
        1 => &[0, 1, 4096, 65_536, u32::MAX],
        2 => &[0, 1, 0, 1, 2],
        3 => &[0, 1, 100, 1000, u32::MAX],
        4 => &[0, 1, 65_535, (1 << 31) - 1, 1 << 31],
        5 => &[16_384, 16_385, (1 << 24) - 1, 1 << 24, 100],
        6 => &[0, 1, 8192, u32::MAX],
        _ => &[0, 1, 7, u32::MAX],
    };
    if g.chance(0.8) {
        g.pick(edges)
    } else {
        g.num(0, u64::from(u32::MAX)) as u32
    }
}

/// A SETTINGS payload of `list`.
fn settings_payload(list: &[(u16, u32)]) -> Vec<u8> {
    let mut p = Vec::new();
    for &(id, v) in list {
        p.extend_from_slice(&id.to_be_bytes());
        p.extend_from_slice(&v.to_be_bytes());
    }
    p
}

/// 0 to 6 settings (identifiers 1-6 in a random order, each once; an unknown identifier
/// now and then).
fn settings_list(g: &mut Gen<'_>, at_least_one: bool) -> Vec<(u16, u32)> {
    let lo = usize::from(at_least_one);
    let n = g.size(lo, 6);
    let mut ids: Vec<u16> = (1..=6).collect();
    for i in (1..ids.len()).rev() {
        let j = g.size(0, i);
        ids.swap(i, j);
    }
    let mut list: Vec<(u16, u32)> = ids[..n]
        .iter()
        .map(|&id| (id, setting_value(g, id)))
        .collect();
    if g.chance(0.15) {
        let id = g.pick(&[0u16, 7, 8, 0x4242, 0xffff]);
        let v = setting_value(g, id);
        list.push((id, v));
    }
    list
}

/// An HPACK integer with an `n`-bit prefix whose other bits are `first`.
fn hpack_int(first: u8, n: u32, mut v: u64) -> Vec<u8> {
    let max = (1u64 << n) - 1;
    if v < max {
        return vec![first | v as u8];
    }
    let mut out = vec![first | max as u8];
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
    out
}

/// The frames one side sends besides the session's own, and what the rule may ask.
#[derive(Default)]
struct Side {
    /// Frame types the side sent (the session's and the extra ones).
    types: Vec<u8>,
    /// Error codes of its RST_STREAM and GOAWAY frames.
    codes: Vec<u32>,
    /// WINDOW_UPDATE increments on stream 1.
    windows: Vec<u32>,
    /// Its SETTINGS.
    settings: Vec<(u16, u32)>,
    /// Extra frames after its HEADERS.
    extra: Vec<u8>,
}

/// Adds one extra frame of type `ty` to `side` (on stream 1 unless it is GOAWAY/PING).
fn extra_frame(g: &mut Gen<'_>, side: &mut Side, ty: u8) {
    let f = match ty {
        2 => {
            let w = g.pick(&[0u8, 1, 15, 255, 16]);
            frame(2, 0, 1, &[0, 0, 0, 0, w])
        }
        3 | 7 => {
            let code = if g.chance(0.75) {
                g.num(0, 13) as u32
            } else {
                g.pick(&[14u32, 0xff, 0x1000, u32::MAX])
            };
            side.codes.push(code);
            if ty == 3 {
                frame(3, 0, 1, &code.to_be_bytes())
            } else {
                let last = g.pick(&[0u32, 1, 1, 3, 0x7fff_ffff]);
                let mut p = last.to_be_bytes().to_vec();
                p.extend_from_slice(&code.to_be_bytes());
                frame(7, 0, 0, &p)
            }
        }
        6 => frame(6, 0, 0, &[1, 2, 3, 4, 5, 6, 7, 8]),
        _ => {
            let inc = g.pick(&[0u32, 1, 1, 65_535, (1 << 31) - 1, 1000]);
            let raw = if g.chance(0.1) { inc | 1 << 31 } else { inc };
            side.windows.push(inc);
            frame(8, 0, 1, &raw.to_be_bytes())
        }
    };
    side.types.push(ty);
    side.extra.extend(f);
}

/// A frame type's name in `http2.frametype` (any case) or its number.
fn type_text(g: &mut Gen<'_>, ty: u64) -> String {
    match FRAME_TYPES.get(ty as usize) {
        Some(n) if g.chance(0.7) => {
            if g.chance(0.2) {
                n.to_ascii_lowercase()
            } else {
                n.to_string()
            }
        }
        _ => ty.to_string(),
    }
}

/// An error code's name (any case) or its number.
fn code_text(g: &mut Gen<'_>, c: u64) -> String {
    match ERROR_CODES.get(c as usize) {
        Some(n) if g.chance(0.7) => {
            if g.chance(0.2) {
                n.to_ascii_lowercase()
            } else {
                n.to_string()
            }
        }
        _ => c.to_string(),
    }
}

/// Conditions on a side's frames for `variant` (none when the side has nothing to ask).
fn frame_conds(g: &mut Gen<'_>, variant: &str, side: &Side) -> Vec<(String, Cond)> {
    let one = |name: &str, c: Cond| vec![(name.to_string(), c)];
    match variant {
        "frametype" => {
            let t = u64::from(g.pick(&side.types));
            let absent: Vec<u64> = (0..10u64)
                .filter(|x| !side.types.contains(&(*x as u8)))
                .chain([10, 255])
                .collect();
            let m = g.pick(&absent);
            let (h, m) = (type_text(g, t), type_text(g, m));
            // A PING (stream 0) opens a transaction in Suricata, none in Osprey: its
            // cases are named apart (a known difference).
            one(
                if t == 6 {
                    "frametype-ping"
                } else {
                    "frametype"
                },
                Cond {
                    hit: format!("http2.frametype:{h};"),
                    miss: format!("http2.frametype:{m};"),
                },
            )
        }
        "errorcode" if !side.codes.is_empty() => {
            let c = u64::from(g.pick(&side.codes));
            let other = (0..16u64)
                .chain([c + 1])
                .find(|x| !side.codes.iter().any(|&k| u64::from(k) == *x))
                .unwrap_or(c + 1);
            let (h, m) = (code_text(g, c), code_text(g, other));
            one(
                "errorcode",
                Cond {
                    hit: format!("http2.errorcode:{h};"),
                    miss: format!("http2.errorcode:{m};"),
                },
            )
        }
        "window" if !side.windows.is_empty() => {
            let w = u64::from(g.pick(&side.windows));
            let (form, c) = uint_cond(g, "http2.window", w, u64::from(u32::MAX));
            one(&format!("window-{form}"), c)
        }
        "settings" if !side.settings.is_empty() => {
            let (id, v) = g.pick(&side.settings);
            let Some(name) = SETTINGS.get(usize::from(id).wrapping_sub(1)) else {
                return Vec::new();
            };
            let absent: Vec<&str> = SETTINGS
                .iter()
                .enumerate()
                .filter(|(i, _)| !side.settings.iter().any(|s| usize::from(s.0) == i + 1))
                .map(|(_, n)| *n)
                .collect();
            if g.chance(0.3) {
                // The name alone: the setting present, or one the side did not send.
                let miss = if absent.is_empty() {
                    format!("{name}=0-0")
                } else {
                    g.pick(&absent).to_string()
                };
                return one(
                    "settings-name",
                    Cond {
                        hit: format!("http2.settings:{name};"),
                        miss: format!("http2.settings:{miss};"),
                    },
                );
            }
            let (form, c) = uint_cond(g, "", u64::from(v), u64::from(u32::MAX));
            let val = |t: &str| {
                let t = t.trim_start_matches(':').trim_end_matches(';');
                if t.starts_with(|ch: char| ch.is_ascii_digit()) {
                    format!("{name}={t}")
                } else {
                    format!("{name}{t}")
                }
            };
            one(
                &format!("settings-{form}"),
                Cond {
                    hit: format!("http2.settings:{};", val(&c.hit)),
                    miss: format!("http2.settings:{};", val(&c.miss)),
                },
            )
        }
        _ => Vec::new(),
    }
}

fn h2frame(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "frametype",
        "errorcode",
        "priority",
        "window",
        "size_update",
        "settings",
        "header_name",
        "header_name",
    ]);
    let intent = g.intent();
    let v6 = g.v6();
    // Client-only conditions: the request's header block and its priority.
    let client_side =
        matches!(variant, "priority" | "size_update" | "header_name") || g.chance(0.6);
    let mut f = Flow::new(g.index, v6, 80);
    let mut cl = Side {
        settings: settings_list(g, variant == "settings" && client_side),
        types: vec![4, 1],
        ..Side::default()
    };
    let mut sv = Side {
        settings: settings_list(g, variant == "settings" && !client_side),
        types: vec![4, 1, 0],
        ..Side::default()
    };
    // The frames the case is about on its side, and one or two others on either.
    let wanted: &[u8] = match variant {
        "errorcode" => &[3, 7],
        "window" => &[8],
        "priority" => &[3, 6, 8],
        _ => &[2, 3, 6, 7, 8],
    };
    let n_extra = if matches!(variant, "errorcode" | "window") {
        g.size(1, 2)
    } else {
        g.size(0, 2)
    };
    for _ in 0..n_extra {
        let ty = g.pick(wanted);
        let side = if client_side { &mut cl } else { &mut sv };
        if ty == 2 && !client_side {
            continue;
        }
        extra_frame(g, side, ty);
    }
    // Request: pseudo-headers, 0-3 custom header names, an optional size update, an
    // optional priority.
    let pl = g.size(1, 8);
    let path = format!("/{}", String::from_utf8_lossy(&g.needle(pl)));
    let host = format!("{}.test", String::from_utf8_lossy(&g.needle(5)));
    let mut names: Vec<Vec<u8>> = vec![
        b":method".to_vec(),
        b":path".to_vec(),
        b":scheme".to_vec(),
        b":authority".to_vec(),
    ];
    let mut values: Vec<Vec<u8>> = vec![
        b"GET".to_vec(),
        path.into_bytes(),
        b"http".to_vec(),
        host.into_bytes(),
    ];
    let customs = if variant == "header_name" {
        g.size(1, 3)
    } else {
        g.size(0, 2)
    };
    for _ in 0..customs {
        let l = g.size(1, 12);
        let mut n = b"x-".to_vec();
        n.extend(g.needle(l));
        names.push(n);
        values.push(g.filler(4));
    }
    let fields: Vec<(&[u8], &[u8])> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| (n.as_slice(), v.as_slice()))
        .collect();
    let mut block = Vec::new();
    let size_update = (variant == "size_update" || g.chance(0.15)).then(|| {
        if g.chance(0.8) {
            g.pick(&[0u64, 1, 30, 31, 32, 4095, 4096, 100])
        } else {
            g.num(0, 4096)
        }
    });
    if let Some(v) = size_update {
        block.extend(hpack_int(0x20, 5, v));
    }
    block.extend(hpack(&fields));
    let weight =
        (variant == "priority" || g.chance(0.2)).then(|| g.pick(&[0u8, 1, 15, 16, 255, 200]));
    let (hflags, hpay) = match weight {
        Some(w) if variant != "priority" || g.chance(0.6) => {
            let mut p = vec![0, 0, 0, 0, w];
            p.extend_from_slice(&block);
            (0x25, p)
        }
        Some(w) => {
            // The weight in a PRIORITY frame after the HEADERS.
            extra_frame_priority(&mut cl, w);
            (0x5, block)
        }
        None => (0x5, block),
    };
    // Client bytes.
    let mut c = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    c.extend(frame(4, 0, 0, &settings_payload(&cl.settings)));
    c.extend(frame(1, hflags, 1, &hpay));
    c.extend(std::mem::take(&mut cl.extra));
    // Server bytes.
    let mut s_bytes = frame(4, 0, 0, &settings_payload(&sv.settings));
    s_bytes.extend(frame(4, 1, 0, &[]));
    let resp = hpack(&[(b":status", b"200"), (b"content-type", b"text/plain")]);
    s_bytes.extend(frame(1, 0x4, 1, &resp));
    let bl = g.size(1, 40);
    let body = g.filler(bl);
    s_bytes.extend(frame(0, 1, 1, &body));
    s_bytes.extend(std::mem::take(&mut sv.extra));
    let (ci, si) = (70_000u32, 95_000u32);
    f.handshake(ci, si);
    let (mut cs, mut ss) = (ci + 1, si + 1);
    f.tcp(true, cs, ss, PSH | ACK, &[], &c);
    cs += c.len() as u32;
    f.tcp(false, ss, cs, PSH | ACK, &[], &s_bytes);
    ss += s_bytes.len() as u32;
    let ack = frame(4, 1, 0, &[]);
    f.tcp(true, cs, ss, PSH | ACK, &[], &ack);
    cs += ack.len() as u32;
    f.tcp(false, ss, cs, ACK, &[], &[]);
    f.close(cs, ss);

    // The rule's conditions.
    let side = if client_side { &cl } else { &sv };
    let mut conds: Vec<(String, Cond)> = match variant {
        "priority" => {
            let w = u64::from(weight.unwrap_or(0));
            let (form, c) = uint_cond(g, "http2.priority", w, 255);
            vec![(format!("priority-{form}"), c)]
        }
        "size_update" => {
            let v = size_update.unwrap_or(0);
            let (form, c) = uint_cond(g, "http2.size_update", v, u64::MAX);
            vec![(format!("size_update-{form}"), c)]
        }
        "header_name" => {
            let mut out = Vec::new();
            let twice = names.len() > 4 && g.chance(0.3);
            for k in 0..1 + usize::from(twice) {
                let i = if k == 0 && g.chance(0.8) && names.len() > 4 {
                    g.size(4, names.len() - 1)
                } else {
                    g.size(0, names.len() - 1)
                };
                let b = Buf {
                    kw: "http2.header_name",
                    modifier: None,
                    flag: None,
                    value: Some(names[i].clone()),
                    lower_only: false,
                };
                let (form, c) = cond(g, &b);
                let name = if twice {
                    format!("header_name-twice-{form}")
                } else {
                    format!("header_name-{form}")
                };
                out.push((name, c));
            }
            out
        }
        v => frame_conds(g, v, side),
    };
    if conds.is_empty() {
        // Nothing of the variant on this side: its frame types instead.
        conds = frame_conds(g, "frametype", side);
    }
    // Now and then an invalid value (a second check of acceptance).
    if g.chance(0.05) {
        let bad = g.pick(&[
            "http2.frametype:NOSUCH;",
            "http2.frametype:256;",
            "http2.errorcode:NOSUCH;",
            "http2.priority:256;",
            "http2.settings:SETTINGS_NOSUCH;",
            "http2.settings:SETTINGS_ENABLE_PUSH>x;",
            "http2.window:4294967296;",
        ]);
        conds = vec![(
            "invalid".to_string(),
            Cond {
                hit: bad.to_string(),
                miss: bad.to_string(),
            },
        )];
    }
    let texts = texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, client_side);
    let sname = if client_side { "client" } else { "server" };
    let name = format!("{}-{sname}", conds[0].0);
    let proto = g.pick(&["http2", "http2", "tcp"]);
    let s = base(&name, intent, v6, L4::Tcp, proto);
    let opts = format!("{flow}{}", texts.join(" "));
    tcp_case(s, f, 80, opts, !client_side, c)
}

/// The client's PRIORITY frame on stream 1 with weight `w`.
fn extra_frame_priority(side: &mut Side, w: u8) {
    side.types.push(2);
    side.extra.extend(frame(2, 0, 1, &[0, 0, 0, 0, w]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hpack_integers_use_their_prefix() {
        assert_eq!(hpack_int(0x20, 5, 10), vec![0x2a]);
        assert_eq!(hpack_int(0x20, 5, 31), vec![0x3f, 0]);
        // RFC 7541 C.1.2: 1337 with a 5-bit prefix.
        assert_eq!(hpack_int(0, 5, 1337), vec![31, 154, 10]);
    }

    #[test]
    fn every_frame_keyword_is_written_and_rules_parse() {
        let (cases, ok) = crate::flows::sample_cases(600, h2frame);
        let mut seen = std::collections::BTreeSet::new();
        for c in &cases {
            for kw in H2FRAME.keywords.iter().filter(|k| k.starts_with("http2.")) {
                if c.spec.opts.contains(&format!("{kw}:"))
                    || c.spec.opts.contains(&format!("{kw};"))
                {
                    seen.insert(*kw);
                }
            }
        }
        assert_eq!(seen.len(), 7, "{seen:?}");
        assert!(ok > 500, "{ok} of 600 parse");
    }
}
