//! One condition of a generated rule on one sticky buffer, in every form the HTTP and
//! TLS families use: a content anywhere, `offset`/`depth`, `startswith`/`endswith`,
//! `bsize`, `isdataat`, two contents with `distance`/`within`, a negated content,
//! `pcre` (on the sticky buffer or with the buffer's flag), the Snort-style modifier;
//! with its just-missing twin.

use super::Flow;
use crate::case::{Intent, Spec};
use crate::rulegen::{content_text, Gen};

/// One buffer of the transaction as the rule's side sees it.
#[derive(Clone, Debug)]
pub(super) struct Buf {
    /// Sticky buffer name.
    pub(super) kw: &'static str,
    /// The Snort-style content modifier, where Suricata has one.
    pub(super) modifier: Option<&'static str>,
    /// The pcre flag of the buffer, where Suricata has one.
    pub(super) flag: Option<char>,
    /// The buffer's bytes (`None`: the buffer does not exist in this transaction).
    pub(super) value: Option<Vec<u8>>,
    /// Contents must be lowercase (`http.host`).
    pub(super) lower_only: bool,
}

/// One rule condition: its text, and its text when it must just miss.
pub(super) struct Cond {
    /// The condition as it matches.
    pub(super) hit: String,
    /// The condition as it just misses.
    pub(super) miss: String,
}

/// The texts of a rule's conditions: each as it matches, or for a miss case one drawn at
/// random as it just misses.
pub(super) fn texts<'a>(
    g: &mut Gen<'_>,
    intent: Intent,
    conds: impl ExactSizeIterator<Item = &'a Cond>,
) -> Vec<String> {
    let spoiled = if intent == Intent::Hit {
        usize::MAX
    } else {
        g.size(0, conds.len() - 1)
    };
    conds
        .enumerate()
        .map(|(i, c)| if i == spoiled { &c.miss } else { &c.hit }.clone())
        .collect()
}

/// A `flow:` option for a rule on one side of the session (none a third of the time).
pub(super) fn flow_opt(g: &mut Gen<'_>, side_client: bool) -> &'static str {
    match g.size(0, 2) {
        0 => "",
        _ if side_client => "flow:to_server; ",
        _ => "flow:to_client; ",
    }
}

/// Case `s` of a rule with options `opts` over TCP session `f` to server port `dport`:
/// the rule's header turned around when it is about what the server sends, `payload`
/// the session's first message.
pub(super) fn tcp_case(
    mut s: Spec,
    f: Flow,
    dport: u16,
    opts: String,
    server_side: bool,
    payload: Vec<u8>,
) -> Spec {
    s.tweaks.dport = Some(dport);
    s.opts = opts;
    if server_side {
        s.header = Some(f.server_to_client_header());
    }
    s.payload = payload;
    s.script = Some(f.frames);
    s
}

/// A copy of `b` whose last byte is changed to one no generated value contains.
pub(super) fn spoil(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    if let Some(l) = v.last_mut() {
        *l = if *l == b'~' { b'^' } else { b'~' };
    }
    v
}

/// [`pcre_lit`] of `b`, uppercased for a `nocase` (`/i`) pattern so the flag is needed.
fn pcre_case_lit(b: &[u8], nc: bool) -> String {
    if nc {
        pcre_lit(&b.to_ascii_uppercase())
    } else {
        pcre_lit(b)
    }
}

/// A pcre pattern matching `b` literally (every byte that is not a letter or digit as
/// `\xHH`, so no quote, semicolon or metacharacter reaches the rule).
fn pcre_lit(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if c.is_ascii_alphanumeric() {
                (c as char).to_string()
            } else {
                format!("\\x{c:02x}")
            }
        })
        .collect()
}

/// A piece of `v`: (start, bytes), 3 to 6 bytes long (all of `v` when shorter).
fn piece(g: &mut Gen<'_>, v: &[u8]) -> (usize, Vec<u8>) {
    let n = v.len();
    if n <= 3 {
        return (0, v.to_vec());
    }
    let l = g.size(3, 6.min(n));
    let at = match g.size(0, 3) {
        0 => 0,
        1 => n - l,
        _ => g.size(0, n - l),
    };
    (at, v[at..at + l].to_vec())
}

/// The `content:"..";` text of `c` (with `nocase` uppercased when `nc`).
fn content(c: &[u8], nc: bool, negated: bool) -> String {
    let bang = if negated { "!" } else { "" };
    if nc {
        format!(
            "content:{bang}\"{}\"; nocase;",
            content_text(&c.to_ascii_uppercase())
        )
    } else {
        format!("content:{bang}\"{}\";", content_text(c))
    }
}

/// One condition on buffer `b` in one of the forms (the form's name is returned too).
pub(super) fn cond(g: &mut Gen<'_>, b: &Buf) -> (&'static str, Cond) {
    let kw = b.kw;
    let Some(v) = b.value.clone().filter(|v| !v.is_empty()) else {
        // An absent buffer: a content never matches, `bsize:0` neither.
        let c = format!("{kw}; content:\"dt\";");
        return (
            "absent",
            Cond {
                hit: c.clone(),
                miss: c,
            },
        );
    };
    let n = v.len();
    let nc = !b.lower_only && g.chance(0.25);
    let mut forms = vec![
        "content", "offset", "depth", "past", "anchor", "bsize", "isdataat", "relative", "negated",
        "pcre",
    ];
    if b.modifier.is_some() {
        forms.push("modifier");
    }
    if b.flag.is_some() {
        forms.push("pcre-flag");
    }
    let form = g.pick(&forms);
    let (at, p) = piece(g, &v);
    let cond = match form {
        "content" => Cond {
            hit: format!("{kw}; {}", content(&p, nc, false)),
            miss: format!("{kw}; {}", content(&spoil(&p), nc, false)),
        },
        "offset" => {
            // The piece's own offset (0, inside, or the last bytes) with an exact depth.
            let c = content(&p, nc, false);
            let l = p.len();
            Cond {
                hit: format!("{kw}; {c} offset:{at}; depth:{l};"),
                miss: format!("{kw}; {c} offset:{}; depth:{l};", at + 1),
            }
        }
        "depth" => {
            let c = content(&p, nc, false);
            let d = at + p.len();
            Cond {
                hit: format!("{kw}; {c} depth:{d};"),
                miss: format!("{kw}; {c} depth:{};", d - 1),
            }
        }
        "past" => {
            // The buffer's last bytes at the last offset they fit; the same content at
            // the buffer's end or past it matches nothing.
            let l = p.len();
            let c = content(&v[n - l..], nc, false);
            let o = n - l + 1 + g.size(0, l);
            Cond {
                hit: format!("{kw}; {c} offset:{};", n - l),
                miss: format!("{kw}; {c} offset:{o};"),
            }
        }
        "anchor" => {
            let (c, m) = match g.size(0, 2) {
                0 => (v.clone(), " startswith; endswith;"),
                1 => (v[..p.len().min(n)].to_vec(), " startswith;"),
                _ => (v[n - p.len()..].to_vec(), " endswith;"),
            };
            Cond {
                hit: format!("{kw}; {}{m}", content(&c, nc, false)),
                miss: format!("{kw}; {}{m}", content(&spoil(&c), nc, false)),
            }
        }
        "bsize" => {
            let (h, m) = match g.size(0, 3) {
                0 => (format!("{n}"), format!("{}", n + 1)),
                1 => (format!("<{}", n + 1), format!("<{n}")),
                2 => (format!(">{}", n - 1), format!(">{n}")),
                _ => (format!("{}<>{}", n - 1, n + 1), format!("{n}<>{}", n + 2)),
            };
            // Alone or after a content of the buffer.
            let pre = if g.chance(0.5) {
                format!("{} ", content(&p, nc, false))
            } else {
                String::new()
            };
            Cond {
                hit: format!("{kw}; {pre}bsize:{h};"),
                miss: format!("{kw}; {pre}bsize:{m};"),
            }
        }
        "isdataat" => {
            let c = content(&p, nc, false);
            let rest = n - at - p.len();
            match g.size(0, 2) {
                0 => Cond {
                    hit: format!("{kw}; isdataat:{};", n - 1),
                    miss: format!("{kw}; isdataat:{n};"),
                },
                1 if rest > 0 => Cond {
                    hit: format!("{kw}; {c} isdataat:{},relative;", rest - 1),
                    miss: format!("{kw}; {c} isdataat:{rest},relative;"),
                },
                _ => Cond {
                    hit: format!("{kw}; {c} isdataat:!{},relative;", rest + 1),
                    miss: format!("{kw}; {c} isdataat:!{rest},relative;"),
                },
            }
        }
        "relative" => {
            // A second piece after (distance/within) or before (negative distance) the
            // first one.
            let (a2, p2) = piece(g, &v);
            let end1 = at + p.len();
            let d = a2 as i64 - end1 as i64;
            let w = d + p2.len() as i64;
            let c1 = content(&p, nc, false);
            let c2 = content(&p2, nc, false);
            if w > 0 && g.chance(0.7) {
                Cond {
                    hit: format!("{kw}; {c1} {c2} distance:{d}; within:{w};"),
                    miss: format!("{kw}; {c1} {c2} distance:{d}; within:{};", w - 1),
                }
            } else {
                Cond {
                    hit: format!("{kw}; {c1} {c2} distance:{d};"),
                    miss: format!("{kw}; {c1} {c2} distance:{};", d + 1),
                }
            }
        }
        "negated" => Cond {
            hit: format!(
                "{kw}; {} {}",
                content(&p, nc, false),
                content(&spoil(&v), false, true)
            ),
            miss: format!(
                "{kw}; {} {}",
                content(&p, nc, false),
                content(&v, false, true)
            ),
        },
        "pcre" => {
            let (pre, post) = match g.size(0, 2) {
                0 => ("^", ""),
                1 => ("", "$"),
                _ => ("", ""),
            };
            let t = match (pre, post) {
                ("^", _) => v[..p.len()].to_vec(),
                (_, "$") => v[n - p.len()..].to_vec(),
                _ => p.clone(),
            };
            let i = if nc { "i" } else { "" };
            let lit = |x: &[u8]| pcre_case_lit(x, nc);
            Cond {
                hit: format!("{kw}; pcre:\"/{pre}{}{post}/{i}\";", lit(&t)),
                miss: format!("{kw}; pcre:\"/{pre}{}{post}/{i}\";", lit(&spoil(&t))),
            }
        }
        "modifier" => {
            let m = b.modifier.unwrap_or("");
            Cond {
                hit: format!("{} {m};", content(&p, nc, false)),
                miss: format!("{} {m};", content(&spoil(&p), nc, false)),
            }
        }
        _ => {
            let f = b.flag.unwrap_or('U');
            let i = if nc { "i" } else { "" };
            let lit = |x: &[u8]| pcre_case_lit(x, nc);
            Cond {
                hit: format!("pcre:\"/{}/{i}{f}\";", lit(&p)),
                miss: format!("pcre:\"/{}/{i}{f}\";", lit(&spoil(&p))),
            }
        }
    };
    (form, cond)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcre_literals_are_escaped_and_spoiled_values_differ() {
        assert_eq!(pcre_lit(b"a/b;\""), "a\\x2fb\\x3b\\x22");
        assert_eq!(spoil(b"ab"), b"a~");
        assert_eq!(spoil(b"a~"), b"a^");
    }
}
