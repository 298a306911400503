//! Payload templates: `content` positions (offset/depth at 0, at the end and past it,
//! distance/within with negative distances), modifiers (`nocase`, `fast_pattern`
//! variants, negation, `startswith`/`endswith`), `isdataat`, `dsize` and `pcre`.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, Spec};

/// A payload of `len` filler bytes with `needle` at `at`.
fn with_needle(g: &mut Gen<'_>, len: usize, needle: &[u8], at: usize) -> Vec<u8> {
    let mut p = g.filler(len.max(at + needle.len()));
    p[at..at + needle.len()].copy_from_slice(needle);
    p
}

fn start(g: &mut Gen<'_>, name: &str) -> (Spec, Intent) {
    let intent = g.intent();
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    (base(name, intent, v6, l4, proto), intent)
}

fn hit(i: Intent) -> bool {
    i == Intent::Hit
}

/// `content` with `offset`/`depth`, anchored at 0, at the end and past it.
pub const CONTENT: Family = Family {
    name: "content",
    keywords: &["content", "offset", "depth", "startswith", "endswith"],
    weight: 8,
    make: content,
};

fn content(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "offset",
        "depth",
        "offset0",
        "at-end",
        "past-end",
        "startswith",
        "endswith",
        "offset-depth",
    ]);
    let (mut s, i) = start(g, variant);
    let n = g.size(1, 8);
    let len = g.size(n + 1, 120);
    let nd = g.needle(n);
    let c = content_text(&nd);
    let h = hit(i);
    let (at, opts) = match variant {
        "offset" => {
            let at = g.size(0, len - n);
            let off = if h { at - g.size(0, at.min(2)) } else { at + 1 };
            (at, format!("content:\"{c}\"; offset:{off};"))
        }
        "depth" => {
            let at = g.size(0, len - n);
            let d = if h { at + n } else { at + n - 1 };
            if d == 0 {
                (at, format!("content:\"{c}\"; depth:1;"))
            } else {
                (at, format!("content:\"{c}\"; depth:{d};"))
            }
        }
        "offset0" => {
            let at = usize::from(!h);
            (at, format!("content:\"{c}\"; offset:0; depth:{n};"))
        }
        "at-end" => {
            let at = len - n;
            let off = if h { len - n } else { len - n + 1 };
            (at, format!("content:\"{c}\"; offset:{off};"))
        }
        "past-end" => {
            let at = g.size(0, len - n);
            let off = len + g.size(0, 3);
            (at, format!("content:\"{c}\"; offset:{off};"))
        }
        "startswith" => {
            let at = if h { 0 } else { 1 };
            (at, format!("content:\"{c}\"; startswith;"))
        }
        "endswith" => {
            let at = if h { len - n } else { len - n - 1 };
            (at, format!("content:\"{c}\"; endswith;"))
        }
        _ => {
            let at = g.size(0, len - n);
            let off = at.saturating_sub(g.size(0, 3));
            let d = if h { at + n - off } else { at + n - off - 1 };
            (
                at,
                format!("content:\"{c}\"; offset:{off}; depth:{};", d.max(1)),
            )
        }
    };
    s.payload = with_needle(g, len, &nd, at);
    s.payload.truncate(len.max(at + n));
    s.opts = opts;
    s
}

/// Two contents with `distance`/`within`, negative distances included.
pub const RELATIVE: Family = Family {
    name: "relative",
    keywords: &["content", "distance", "within"],
    weight: 6,
    make: relative,
};

fn relative(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "distance",
        "within",
        "negative-distance",
        "distance-within",
        "within-only",
    ]);
    let (mut s, i) = start(g, variant);
    let h = hit(i);
    let (n1, n2) = (g.size(2, 6), g.size(1, 6));
    let a = g.needle(n1);
    let b = g.needle(n2);
    let len = g.size(n1 + n2 + 12, 140);
    let p1 = g.size(0, len - n1 - n2 - 8);
    let end1 = p1 + n1;
    let (p2, opts) = match variant {
        "negative-distance" => {
            // b starts before a's end (it may sit before a entirely).
            let p2 = if p1 >= n2 && g.chance(0.5) {
                p1 - n2
            } else {
                p1 + g.size(1, n1 - 1)
            };
            let back = end1 - p2;
            let d = if h { back as i64 } else { back as i64 - 1 };
            (p2, format!("distance:-{d};"))
        }
        "within-only" => {
            let p2 = g.size(end1, len - n2);
            let w = p2 + n2 - end1;
            (p2, format!("within:{};", if h { w } else { w - 1 }))
        }
        _ => {
            let p2 = g.size(end1, len - n2);
            let d = p2 - end1;
            let w = n2 + g.size(0, 2);
            match variant {
                "distance" => (p2, format!("distance:{};", if h { d } else { d + 1 })),
                "within" => {
                    let w2 = p2 + n2 - end1;
                    (
                        p2,
                        format!("distance:0; within:{};", if h { w2 } else { w2 - 1 }),
                    )
                }
                _ => {
                    let w = if h { w } else { n2 - 1 };
                    (p2, format!("distance:{d}; within:{};", w.max(1)))
                }
            }
        }
    };
    let mut p = g.filler(len);
    p[p2..p2 + n2].copy_from_slice(&b);
    if p2 + n2 <= p1 || p2 >= end1 {
        p[p1..end1].copy_from_slice(&a);
    } else {
        // Overlap: b inside or across a; write a then b so both are present where the
        // rule expects them only when they agree; else the case is a miss either way.
        p[p1..end1].copy_from_slice(&a);
    }
    s.payload = p;
    s.opts = format!(
        "content:\"{}\"; content:\"{}\"; {opts}",
        content_text(&a),
        content_text(&b)
    );
    s
}

/// `nocase`, `fast_pattern` variants, negated contents, hex bytes.
pub const MODIFIERS: Family = Family {
    name: "modifiers",
    keywords: &["content", "nocase", "fast_pattern", "rawbytes"],
    weight: 6,
    make: modifiers,
};

fn modifiers(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "nocase",
        "case",
        "fast_pattern",
        "fast_pattern-only",
        "fast_pattern-chop",
        "negated",
        "negated-pair",
        "hex",
    ]);
    let (mut s, i) = start(g, variant);
    let h = hit(i);
    let n = g.size(3, 10);
    let mut nd = g.needle(n);
    let len = g.size(n + 2, 100);
    let at = g.size(0, len - n);
    let c = content_text(&nd);
    let opts = match variant {
        "nocase" => {
            let upper: Vec<u8> = nd.to_ascii_uppercase();
            let shown = if h { upper } else { g.needle(n) };
            s.payload = with_needle(g, len, &shown, at);
            format!("content:\"{c}\"; nocase;")
        }
        "case" => {
            let shown = if h {
                nd.clone()
            } else {
                nd.to_ascii_uppercase()
            };
            s.payload = with_needle(g, len, &shown, at);
            format!("content:\"{c}\";")
        }
        "fast_pattern" | "fast_pattern-only" | "fast_pattern-chop" => {
            let other = g.needle(2);
            let shown = if h { nd.clone() } else { nd[..n - 1].to_vec() };
            s.payload = with_needle(g, len, &shown, at);
            let fp = match variant {
                "fast_pattern" => "fast_pattern;".to_string(),
                "fast_pattern-only" => "fast_pattern:only;".to_string(),
                _ => {
                    let o = g.size(0, n - 1);
                    format!("fast_pattern:{o},{};", g.size(1, n - o))
                }
            };
            if variant == "fast_pattern-only" || g.chance(0.5) {
                format!("content:\"{c}\"; {fp}")
            } else {
                let op = content_text(&other);
                s.payload.extend_from_slice(&other);
                format!("content:\"{op}\"; content:\"{c}\"; {fp}")
            }
        }
        "negated" => {
            s.payload = if h {
                g.filler(len)
            } else {
                with_needle(g, len, &nd, at)
            };
            format!("content:!\"{c}\";")
        }
        "negated-pair" => {
            let other = g.needle(3);
            let mut p = with_needle(g, len, &other, 0);
            if !h {
                p.extend_from_slice(&nd);
            }
            s.payload = p;
            format!(
                "content:\"{}\"; content:!\"{c}\"; distance:0;",
                content_text(&other)
            )
        }
        _ => {
            for b in nd.iter_mut() {
                if g.chance(0.4) {
                    *b = g.num(0, 255) as u8;
                }
            }
            let shown = if h {
                nd.clone()
            } else {
                nd.iter().map(|b| b ^ 1).collect()
            };
            s.payload = with_needle(g, len, &shown, at);
            format!("content:\"{}\";", content_text(&nd))
        }
    };
    s.opts = opts;
    s
}

/// `isdataat` absolute, negated and relative, around the end of the payload.
pub const ISDATAAT: Family = Family {
    name: "isdataat",
    keywords: &["isdataat", "content"],
    weight: 3,
    make: isdataat,
};

fn isdataat(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&["absolute", "negated", "relative", "negated-relative"]);
    let (mut s, i) = start(g, variant);
    let h = hit(i);
    let len = g.size(1, 80);
    s.payload = g.filler(len);
    s.opts = match variant {
        "absolute" => format!("isdataat:{};", if h { len - 1 } else { len }),
        "negated" => format!("isdataat:!{};", if h { len } else { len - 1 }),
        _ => {
            let n = g.size(1, 4);
            let at = g.size(0, len.saturating_sub(n));
            let nd = g.needle(n);
            s.payload = with_needle(g, len, &nd, at);
            let rest = s.payload.len() - at - n;
            let k = match (variant, h) {
                ("relative", true) => rest.saturating_sub(1),
                ("relative", false) => rest,
                (_, true) => rest,
                _ => rest.saturating_sub(1),
            };
            let neg = if variant == "relative" { "" } else { "!" };
            format!(
                "content:\"{}\"; isdataat:{neg}{k},relative;",
                content_text(&nd)
            )
        }
    };
    s
}

/// `dsize` with every operator, ranges at the limits.
pub const DSIZE: Family = Family {
    name: "dsize",
    keywords: &["dsize"],
    weight: 3,
    make: dsize,
};

fn dsize(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&["eq", "lt", "gt", "range", "not", "le", "ge", "zero"]);
    let (mut s, i) = start(g, variant);
    let h = hit(i);
    let len = g.size(1, 200);
    s.payload = g.filler(len);
    let d = i64::from(!h);
    s.opts = match variant {
        "eq" => format!("dsize:{};", len as i64 + d),
        "lt" => format!("dsize:<{};", len as i64 + 1 - d),
        "gt" => format!("dsize:>{};", len as i64 - 1 + d),
        "range" => {
            let lo = if h { len - 1 } else { len };
            format!("dsize:{lo}<>{};", len + 1 + g.size(0, 65000))
        }
        "not" => format!("dsize:!{};", len as i64 + 1 - d),
        "le" => format!("dsize:<={};", len as i64 - d),
        "ge" => format!("dsize:>={};", len as i64 + d),
        _ => format!("dsize:{};", if h { 0 } else { 65535 }),
    };
    s
}

/// `pcre` with flags, anchors and `R`.
pub const PCRE: Family = Family {
    name: "pcre",
    keywords: &["pcre", "content"],
    weight: 3,
    make: pcre,
};

fn pcre(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&["plain", "nocase", "anchored", "relative", "class", "end"]);
    let (mut s, i) = start(g, variant);
    let h = hit(i);
    let n = g.size(3, 8);
    let nd = g.needle(n);
    let t = String::from_utf8_lossy(&nd).to_string();
    let len = g.size(n + 4, 90);
    let at = g.size(1, len - n);
    s.opts = match variant {
        "plain" => {
            s.payload = if h {
                with_needle(g, len, &nd, at)
            } else {
                g.filler(len)
            };
            format!("pcre:\"/{t}/\";")
        }
        "nocase" => {
            let shown = if h {
                nd.to_ascii_uppercase()
            } else {
                g.needle(n)
            };
            s.payload = with_needle(g, len, &shown, at);
            format!("pcre:\"/{t}/i\";")
        }
        "anchored" => {
            let at = if h { 0 } else { 1 };
            s.payload = with_needle(g, len, &nd, at);
            format!("pcre:\"/^{t}/\";")
        }
        "end" => {
            s.payload = with_needle(g, len, &nd, len - n);
            if !h {
                s.payload.push(b'a');
            }
            format!("pcre:\"/{t}$/\";")
        }
        "class" => {
            s.payload = with_needle(g, len, &nd, at);
            let digits = g.size(1, 3);
            let after = at + n;
            for k in 0..digits.min(len - after) {
                s.payload[after + k] = if h { b'7' } else { b'a' };
            }
            format!("pcre:\"/{t}[0-9]/\";")
        }
        _ => {
            let a = g.needle(2);
            let mut p = with_needle(g, len, &a, 0);
            let at2 = g.size(2, len - n);
            p[at2..at2 + n].copy_from_slice(&nd);
            s.payload = p;
            let pat = if h { t } else { format!("^{t}") };
            format!("content:\"{}\"; pcre:\"/{pat}/R\";", content_text(&a))
        }
    };
    s
}
