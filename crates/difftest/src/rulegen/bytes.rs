//! `byte_test`, `byte_jump`, `byte_extract` and `byte_math` templates: every operator,
//! binary sizes in both byte orders, string numbers in every base, `relative` with
//! positive and negative offsets, `bitmask`, `multiplier`, `align`, `from_beginning`,
//! `from_end`, `post_offset`, and numbers that run past the end of the payload.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, Spec};

/// How a number is written into the payload.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Enc {
    Big(usize),
    Little(usize),
    Dec(usize),
    Hex(usize),
    Oct(usize),
}

impl Enc {
    fn width(self) -> usize {
        match self {
            Enc::Big(n) | Enc::Little(n) | Enc::Dec(n) | Enc::Hex(n) | Enc::Oct(n) => n,
        }
    }

    /// The largest value the encoding holds.
    fn max(self) -> u64 {
        match self {
            Enc::Big(n) | Enc::Little(n) => {
                if n >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * n)) - 1
                }
            }
            Enc::Dec(n) => 10u64.saturating_pow(n as u32).saturating_sub(1),
            Enc::Hex(n) => 16u64.saturating_pow(n as u32).saturating_sub(1),
            Enc::Oct(n) => 8u64.saturating_pow(n as u32).saturating_sub(1),
        }
    }

    /// The keyword's words for it (byte order, `string,<base>`).
    fn words(self) -> &'static str {
        match self {
            Enc::Big(_) => "",
            Enc::Little(_) => ",little",
            Enc::Dec(_) => ",string,dec",
            Enc::Hex(_) => ",string,hex",
            Enc::Oct(_) => ",string,oct",
        }
    }

    fn write(self, v: u64) -> Vec<u8> {
        match self {
            Enc::Big(n) => v.to_be_bytes()[8 - n..].to_vec(),
            Enc::Little(n) => v.to_le_bytes()[..n].to_vec(),
            Enc::Dec(n) => format!("{v:0n$}").into_bytes(),
            Enc::Hex(n) => format!("{v:0n$x}").into_bytes(),
            Enc::Oct(n) => format!("{v:0n$o}").into_bytes(),
        }
    }
}

fn encoding(g: &mut Gen<'_>, binary_sizes: &[usize]) -> Enc {
    match g.num(0, 4) {
        0 => Enc::Big(g.pick(binary_sizes)),
        1 => Enc::Little(g.pick(binary_sizes)),
        2 => Enc::Dec(g.size(1, 10)),
        3 => Enc::Hex(g.size(1, 8)),
        _ => Enc::Oct(g.size(1, 10)),
    }
}

/// An edge value of the encoding: 0, 1, the maximum, or something in between.
fn value(g: &mut Gen<'_>, e: Enc) -> u64 {
    let max = e.max().min(u64::from(u32::MAX));
    match g.num(0, 5) {
        0 => 0,
        1 => 1.min(max),
        2 => max,
        _ => g.num(0, max),
    }
}

fn start(g: &mut Gen<'_>, name: &str) -> (Spec, Intent) {
    let intent = g.intent();
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    (base(name, intent, v6, l4, proto), intent)
}

/// `byte_test` with every operator and flag.
pub const BYTE_TEST: Family = Family {
    name: "byte_test",
    keywords: &["byte_test", "content"],
    weight: 8,
    make: byte_test,
};

fn byte_test(g: &mut Gen<'_>) -> Spec {
    let e = encoding(g, &[1, 2, 3, 4]);
    let op = g.pick(&["<", ">", "=", "!", "&", "^", "<=", ">=", "!="]);
    let relative = g.chance(0.35);
    let name = format!(
        "{op}{}{}",
        e.words().replace(',', "-"),
        if relative { "-relative" } else { "" }
    );
    let (mut s, i) = start(g, &name);
    let h = i == Intent::Hit;
    let v = value(g, e);
    let max = e.max().min(u64::from(u32::MAX));
    // The rule's value: chosen so the comparison holds (hit) or just fails (miss).
    let cmp = match (op, h) {
        ("=", true) | ("<=", true) | (">=", true) => v,
        ("=", false) | ("!", true) | ("!=", true) => {
            if v < max {
                v + 1
            } else {
                v - 1
            }
        }
        ("!", false) | ("!=", false) => v,
        ("<", true) => v.saturating_add(1),
        ("<", false) | (">", false) => v,
        (">", true) => v.saturating_sub(1),
        ("<=", false) => v.saturating_sub(1),
        (">=", false) => v.saturating_add(1),
        ("&", _) | ("^", _) => {
            if h {
                v.max(1)
            } else {
                !v & max
            }
        }
        _ => v,
    };
    let bitmask = if g.chance(0.15) && !matches!(e, Enc::Dec(_) | Enc::Hex(_) | Enc::Oct(_)) {
        format!(",bitmask 0x{:x}", g.num(1, max.clamp(1, 0xffff)))
    } else {
        String::new()
    };
    let num = e.write(v);
    let pre = g.size(0, 20);
    let mut p = g.filler(pre);
    let past_end = g.chance(0.08);
    let anchor = g.needle(3);
    let opts = if relative {
        p.extend_from_slice(&anchor);
        let back = if pre >= 2 && g.chance(0.2) {
            g.size(1, 2)
        } else {
            0
        };
        if back > 0 {
            // A negative relative offset: the number starts before the anchor's end.
            let at = p.len() - back;
            p.truncate(at);
            p.extend_from_slice(&num);
            format!(
                "content:\"{}\"; byte_test:{},{op},{cmp},-{back},relative{}{bitmask};",
                content_text(&anchor[..3 - back]),
                e.width(),
                e.words()
            )
        } else {
            let gap = g.size(0, 4);
            p.extend_from_slice(&g.filler(gap));
            p.extend_from_slice(&num);
            format!(
                "content:\"{}\"; byte_test:{},{op},{cmp},{gap},relative{}{bitmask};",
                content_text(&anchor),
                e.width(),
                e.words()
            )
        }
    } else {
        let off = p.len();
        p.extend_from_slice(&num);
        format!(
            "byte_test:{},{op},{cmp},{off}{}{bitmask};",
            e.width(),
            e.words()
        )
    };
    if past_end {
        p.pop();
    } else {
        let tail = g.size(0, 10);
        p.extend_from_slice(&g.filler(tail));
    }
    s.payload = p;
    s.opts = opts;
    s
}

/// `byte_jump` with every flag; a content after the jump checks where it landed.
pub const BYTE_JUMP: Family = Family {
    name: "byte_jump",
    keywords: &["byte_jump", "content", "distance", "within"],
    weight: 8,
    make: byte_jump,
};

fn byte_jump(g: &mut Gen<'_>) -> Spec {
    let e = encoding(g, &[1, 2, 4]);
    let flag = g.pick(&[
        "plain",
        "relative",
        "multiplier",
        "align",
        "from_beginning",
        "from_end",
        "post_offset",
        "bitmask",
        "negative-post",
    ]);
    let name = format!("{flag}{}", e.words().replace(',', "-"));
    let (mut s, i) = start(g, &name);
    let h = i == Intent::Hit;
    let max = e.max().min(60);
    let v = g.num(0, max);
    let num = e.write(v);
    let pre = g.size(0, 12);
    let mut p = g.filler(pre);
    let anchor = g.needle(3);
    let rel = flag == "relative" || g.chance(0.2);
    let mut kw = String::new();
    if rel {
        p.extend_from_slice(&anchor);
        kw.push_str(&format!("content:\"{}\"; ", content_text(&anchor)));
    }
    let off_in = if rel { 0 } else { p.len() };
    let num_at = p.len();
    p.extend_from_slice(&num);
    let w = e.width();
    let after = num_at + w;
    let mut mult = 1u64;
    let mut post: i64 = 0;
    let mut extra = String::new();
    let mut jump = v;
    let target: i64 = match flag {
        "multiplier" => {
            mult = g.num(1, 4);
            extra = format!(",multiplier {mult}");
            (after as u64 + v * mult) as i64
        }
        "align" => {
            extra = ",align".into();
            let t = after as u64 + v;
            (t.div_ceil(4) * 4) as i64
        }
        "from_beginning" => {
            extra = ",from_beginning".into();
            v as i64
        }
        "post_offset" => {
            post = g.num(0, 8) as i64;
            extra = format!(",post_offset {post}");
            after as i64 + v as i64 + post
        }
        "negative-post" => {
            post = -(g.num(1, 3) as i64);
            extra = format!(",post_offset {post}");
            after as i64 + v as i64 + post
        }
        "bitmask" if !matches!(e, Enc::Dec(_) | Enc::Hex(_) | Enc::Oct(_)) => {
            let mask = if g.chance(0.5) { 0x3c } else { 0x0f };
            extra = format!(",bitmask 0x{mask:x}");
            jump = (v & mask) >> mask.trailing_zeros();
            after as i64 + jump as i64
        }
        _ => after as i64 + v as i64,
    };
    let _ = (mult, post, jump);
    // from_end: the jump is from the end of the buffer; the target is computed when the
    // payload length is known.
    let from_end = flag == "from_end";
    if from_end {
        extra = ",from_end".into();
    }
    let marker = g.needle(2);
    let body_len = g.size(4, 40);
    let mut body = g.filler(body_len.max(3));
    p.append(&mut body);
    let len_now = p.len() as i64;
    let target = if from_end { len_now - v as i64 } else { target };
    let place = if h { target } else { target + 1 };
    if place >= 0 && (place as usize) + 2 <= p.len() && (place as usize) >= after {
        p[place as usize..place as usize + 2].copy_from_slice(&marker);
    } else if h && place >= after as i64 && (place as usize) <= p.len() + 8 {
        p.resize(place as usize, b'a');
        p.extend_from_slice(&marker);
    }
    let rel_kw = if rel { ",relative" } else { "" };
    kw.push_str(&format!(
        "byte_jump:{w},{off_in}{rel_kw}{}{extra}; content:\"{}\"; distance:0; within:2;",
        e.words(),
        content_text(&marker)
    ));
    s.payload = p;
    s.opts = kw;
    s
}

/// `byte_extract` values used as `offset`, `depth`, `distance`, `within` and a
/// `byte_test` value.
pub const BYTE_EXTRACT: Family = Family {
    name: "byte_extract",
    keywords: &[
        "byte_extract",
        "content",
        "offset",
        "depth",
        "distance",
        "within",
        "byte_test",
    ],
    weight: 5,
    make: byte_extract,
};

fn byte_extract(g: &mut Gen<'_>) -> Spec {
    let e = encoding(g, &[1, 2]);
    let use_as = g.pick(&["offset", "depth", "distance", "within", "byte_test"]);
    let name = format!("{use_as}{}", e.words().replace(',', "-"));
    let (mut s, i) = start(g, &name);
    let h = i == Intent::Hit;
    let v = g.num(0, e.max().min(50));
    let num = e.write(v);
    let mut p = num.clone();
    let w = num.len();
    let nd = {
        let n = g.size(1, 4);
        g.needle(n)
    };
    let n = nd.len();
    let fill = g.size(60, 100);
    p.extend_from_slice(&g.filler(fill));
    let (at, opt) = match use_as {
        "offset" => (
            if h {
                v as usize
            } else {
                v as usize - 1.min(v as usize)
            },
            "offset:x;",
        ),
        "depth" => (
            if h || v as usize <= n {
                v as usize - (v as usize).min(n)
            } else {
                v as usize - n + 1
            },
            "depth:x;",
        ),
        "distance" => match (h, v as usize) {
            (true, v) => (w + v, "distance:x;"),
            (false, 0) => (usize::MAX, "distance:x;"),
            (false, v) => (w + v - 1, "distance:x;"),
        },
        "within" => (
            w + (v as usize).saturating_sub(n) + usize::from(!h),
            "distance:0; within:x;",
        ),
        _ => (0, ""),
    };
    let body = if use_as == "byte_test" {
        let probe = if h { v } else { (v + 1) & e.max() };
        let probe_bytes = e.write(probe);
        let at = w + 1;
        p[at..at + probe_bytes.len()].copy_from_slice(&probe_bytes);
        format!("byte_test:{},=,x,{at}{};", e.width(), e.words())
    } else {
        if at != usize::MAX && !(use_as == "offset" && !h && v == 0) {
            let at = at.min(p.len() - n);
            p[at..at + n].copy_from_slice(&nd);
        }
        format!("content:\"{}\"; {opt}", content_text(&nd))
    };
    s.payload = p;
    s.opts = format!("byte_extract:{},0,x{}; {body}", e.width(), e.words());
    s
}

/// `byte_math` with every operator; the result checked by `byte_test`.
pub const BYTE_MATH: Family = Family {
    name: "byte_math",
    keywords: &["byte_math", "byte_test"],
    weight: 3,
    make: byte_math,
};

fn byte_math(g: &mut Gen<'_>) -> Spec {
    let oper = g.pick(&["+", "-", "*", "/", "<<", ">>"]);
    let bytes = g.pick(&[1usize, 2, 4]);
    let endian = if g.chance(0.3) { ", endian little" } else { "" };
    let name = format!("{oper}{}", if endian.is_empty() { "" } else { "-little" });
    let (mut s, i) = start(g, &name);
    let h = i == Intent::Hit;
    let max = if bytes == 4 {
        u64::from(u32::MAX)
    } else {
        (1u64 << (8 * bytes)) - 1
    };
    let v = g.num(0, max.min(1000));
    let r = g.num(1, 8);
    let raw = if endian.is_empty() {
        v.to_be_bytes()[8 - bytes..].to_vec()
    } else {
        v.to_le_bytes()[..bytes].to_vec()
    };
    let result = match oper {
        "+" => v + r,
        "-" => v.wrapping_sub(r) & 0xffff_ffff,
        "*" => v * r,
        "/" => v / r,
        "<<" => (v << r) & 0xffff_ffff,
        _ => v >> r,
    };
    let want = if h {
        result
    } else {
        result.wrapping_add(1) & 0xffff_ffff
    };
    let mut p = raw;
    p.extend_from_slice(&(want as u32).to_be_bytes());
    let tail = g.size(0, 10);
    p.extend_from_slice(&g.filler(tail));
    s.payload = p;
    s.opts = format!(
        "byte_math:bytes {bytes}, offset 0, oper {oper}, rvalue {r}, result res{endian}; byte_test:4,=,res,{bytes};"
    );
    s
}
