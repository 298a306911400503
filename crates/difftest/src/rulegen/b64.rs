//! `base64_decode` and `base64_data`: a TCP or UDP payload carrying base64 text (padded or
//! not, with a blank, a line break or a character outside the alphabet inside, cut
//! short, or not base64 at all) after a marker or at its start; the rule decodes it with
//! `base64_decode` (no option, `bytes`, `offset`, `relative` after the marker, in any
//! order; edge values: offset 0, at the payload's end and past it, bytes 0, 1, short of
//! the text and past it, an option given twice, unknown ones) and matches the decoded
//! bytes with `base64_data` then a content (anywhere, `offset`/`depth`, `startswith`,
//! `isdataat`, a `pcre`, a negated content), hitting or just missing.

use super::{base, content_text, Family, Gen};
use crate::case::Intent;

/// base64 keywords.
pub const B64: Family = Family {
    name: "b64",
    keywords: &[
        "base64_decode",
        "base64_data",
        "content",
        "offset",
        "depth",
        "startswith",
        "isdataat",
        "pcre",
        "within",
        "distance",
    ],
    weight: 3,
    make: b64,
};

/// Standard base64 (RFC 4648) with padding.
pub fn encode(data: &[u8]) -> Vec<u8> {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
    out
}

fn b64(g: &mut Gen<'_>) -> super::Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    // The decoded text: filler, the needle, filler (the needle in the second half of the
    // alphabet so it never appears by chance).
    let nl = g.size(3, 8);
    let needle = g.needle(nl);
    let pre = g.size(0, 6);
    let post = g.size(0, 6);
    let mut decoded = g.filler(pre);
    decoded.extend_from_slice(&needle);
    let tail = g.filler(post);
    decoded.extend_from_slice(&tail);
    let mut text = encode(&decoded);
    let shape = g.pick(&[
        "plain", "plain", "plain", "nopad", "space", "crlf", "invalid", "cut", "notb64",
    ]);
    match shape {
        "nopad" => {
            while text.last() == Some(&b'=') {
                text.pop();
            }
        }
        "space" | "crlf" | "invalid" => {
            let at = g.size(1, text.len() - 1);
            let ins: &[u8] = match shape {
                "space" => b" ",
                "crlf" => b"\r\n",
                _ => b"*",
            };
            text.splice(at..at, ins.iter().copied());
        }
        "cut" => {
            let n = g.size(1, 3).min(text.len() - 1);
            text.truncate(text.len() - n);
        }
        "notb64" => text = b"!!!!~~~~".to_vec(),
        _ => {}
    }
    // Where the text lies: at the payload's start, or after a marker and a gap.
    let marker = g.pick(&[&b"b64="[..], b"data:", b"X|"]).to_vec();
    let at_start = g.chance(0.25);
    let gap = g.size(0, 4);
    let mut payload = Vec::new();
    let lead = if at_start { 0 } else { g.size(0, 10) };
    payload.extend(g.filler(lead));
    if !at_start {
        payload.extend_from_slice(&marker);
        payload.extend(std::iter::repeat_n(b'.', gap));
    }
    let text_at = payload.len();
    payload.extend_from_slice(&text);
    // What follows the text: nothing, a quote and filler, or a line break.
    match g.size(0, 2) {
        0 => {}
        1 => {
            payload.push(b'"');
            let n = g.size(1, 8);
            payload.extend(g.filler(n));
        }
        _ => payload.extend_from_slice(b"\r\n"),
    }
    // The decode options.
    let tlen = text.len();
    let mut opts: Vec<String> = Vec::new();
    let mut form = String::new();
    let relative = !at_start && g.chance(0.6);
    let offset = if relative { gap } else { text_at };
    if offset != 0 || g.chance(0.5) {
        let o = match g.size(0, 9) {
            0 => offset + 1,
            1 if !relative => payload.len(),
            2 if !relative => payload.len() + g.size(1, 5),
            _ => offset,
        };
        if o != offset {
            form.push_str("-offset-off");
        }
        opts.push(format!("offset {o}"));
    }
    if g.chance(0.6) {
        let b = match g.size(0, 9) {
            0 => 0,
            1 => 1,
            2 => tlen.saturating_sub(4).max(1),
            3 => tlen + g.size(1, 20),
            4 => 65_535,
            _ => tlen,
        };
        if b != tlen {
            form.push_str("-bytes-off");
        }
        opts.push(format!("bytes {b}"));
    }
    if relative {
        opts.push("relative".into());
    }
    if g.chance(0.05) {
        // An option twice, or one that does not exist.
        let bad = g.pick(&[
            "offset 1", "bytes 4", "nosuch 1", "relative", "bytes -1", "offset",
        ]);
        opts.push(bad.into());
        form.push_str("-bad");
    }
    // Options in any order.
    for i in (1..opts.len()).rev() {
        let j = g.size(0, i);
        opts.swap(i, j);
    }
    let decode = if opts.is_empty() {
        "base64_decode;".to_string()
    } else {
        format!("base64_decode:{};", opts.join(", "))
    };
    let pre_cond = if relative {
        format!("content:\"{}\"; ", content_text(&marker))
    } else if g.chance(0.3) {
        // A content before an absolute decode: the decode does not depend on it.
        format!("content:\"{}\"; ", content_text(&marker))
    } else {
        String::new()
    };
    // The condition on the decoded bytes.
    let c = if hit {
        needle.clone()
    } else {
        crate::flows::spoil(&needle)
    };
    let ct = content_text(&c);
    let (cname, cond) = match g.size(0, 5) {
        0 => (
            "offset",
            format!("content:\"{ct}\"; offset:{pre}; depth:{};", pre + nl),
        ),
        1 => ("startswith", {
            let mut s = decoded[..pre].to_vec();
            s.extend_from_slice(&c);
            format!("content:\"{}\"; startswith;", content_text(&s))
        }),
        2 => (
            "isdataat",
            format!("content:\"{ct}\"; isdataat:{},relative;", post.max(1) - 1),
        ),
        3 => ("pcre", {
            let lit: String = c.iter().map(|b| format!("\\x{b:02x}")).collect();
            format!("pcre:\"/{lit}/\";")
        }),
        4 => ("negated", {
            let other = if hit {
                crate::flows::spoil(&needle)
            } else {
                needle.clone()
            };
            format!("content:!\"{}\";", content_text(&other))
        }),
        _ => ("content", format!("content:\"{ct}\";")),
    };
    let name = format!(
        "{}{}-{shape}-{cname}{form}",
        if relative { "relative" } else { "absolute" },
        if opts.is_empty() { "-noopts" } else { "" },
    );
    let mut s = base(&name, intent, v6, l4, proto);
    s.opts = format!("{pre_cond}{decode} base64_data; {cond}");
    s.payload = payload;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn encodes_as_rfc_4648() {
        assert_eq!(encode(b""), b"");
        assert_eq!(encode(b"f"), b"Zg==");
        assert_eq!(encode(b"fo"), b"Zm8=");
        assert_eq!(encode(b"foo"), b"Zm9v");
        assert_eq!(encode(b"foobar"), b"Zm9vYmFy");
    }

    #[test]
    fn rules_parse_and_every_shape_is_drawn() {
        let mut rng = Rng::new(4);
        let mut shapes = std::collections::BTreeSet::new();
        let mut ok = 0;
        for index in 0..600 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = b64(&mut g);
            for sh in ["plain", "nopad", "space", "crlf", "invalid", "notb64"] {
                if s.template.contains(&format!("-{sh}-")) {
                    shapes.insert(sh);
                }
            }
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert!(ok > 450, "{ok} of 600 parse");
        for sh in ["plain", "nopad", "space", "crlf", "invalid", "notb64"] {
            assert!(shapes.contains(sh), "{sh} never drawn: {shapes:?}");
        }
    }
}
