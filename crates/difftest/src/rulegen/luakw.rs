//! Lua rules (`lua`): a script per case written next to the rule file (both engines run
//! with `default-rule-path` there and `security.lua.allow-rules` on, see
//! `oracle::run_sets`), whose `init` asks for the payload, the whole packet or the
//! sticky buffer before it (`dns.query`), and whose `match` looks for the case's needle
//! or compares a length, returning 1, 0, another number or a boolean; negated with `!`,
//! after a content, and broken scripts (a syntax error, no `match`, an error raised in
//! `match`, an unknown need). Traffic: the client's payload over TCP or UDP, or a DNS
//! query over UDP.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, Spec, L4};
use crate::flows::{dns, Flow};

/// Lua detection scripts.
pub const LUA: Family = Family {
    name: "lua",
    keywords: &["lua", "content", "dns.query"],
    weight: 1,
    make: lua,
};

/// A Lua string literal of `b` (bytes escaped as `\ddd`).
fn lua_str(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for &c in b {
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'-' {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\{c:03}"));
        }
    }
    s.push('"');
    s
}

/// A script asking for `need` whose `match` returns `yes` when `cond` holds (on the
/// variable `p`, the data asked for) and `no` otherwise.
fn script(need: &str, arg: &str, cond: &str, yes: &str, no: &str) -> String {
    format!(
        "function init(args)\n  local needs = {{}}\n  needs[\"{need}\"] = tostring(true)\n  return needs\nend\n\n\
         function match(args)\n  local p = args[\"{arg}\"]\n  if p == nil then\n    return {no}\n  end\n  \
         if {cond} then\n    return {yes}\n  end\n  return {no}\nend\n"
    )
}

fn lua(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let variant = g.pick(&[
        "payload", "payload", "packet", "buffer", "buffer", "length", "negated", "content",
        "returns", "broken",
    ]);
    let needle = {
        let n = g.size(3, 8);
        g.needle(n)
    };
    let file = format!("dt{}.lua", g.index);
    // What the traffic carries: the needle (for a hit) or a spoiled copy.
    let carried = if hit {
        needle.clone()
    } else {
        crate::flows::spoil(&needle)
    };
    let find = format!("string.find(p, {}, 1, true)", lua_str(&needle));
    let (yes, no) = match variant {
        "returns" => g.pick(&[
            ("2", "0"),
            ("true", "false"),
            ("1.0", "0"),
            ("-1", "0"),
            ("1", "nil"),
        ]),
        _ => ("1", "0"),
    };
    let (src, opts, dns_query) = match variant {
        "packet" => (
            script("packet", "packet", &find, yes, no),
            format!("lua:{file};"),
            false,
        ),
        "buffer" => (
            script("buffer", "buffer", &find, yes, no),
            format!("dns.query; lua:{file};"),
            true,
        ),
        "length" => {
            // The payload's length against the needle's, one off either way.
            let n = carried.len() + 10;
            let cmp = g.pick(&["==", ">=", "<", ">"]);
            let want = match (cmp, hit) {
                ("==", true) | (">=", true) => n,
                (">", true) | (">=", false) => n + 1,
                ("<", true) | ("==", false) => n + 1,
                _ => n,
            };
            (
                script("payload", "payload", &format!("#p {cmp} {want}"), yes, no),
                format!("lua:{file};"),
                false,
            )
        }
        "negated" => (
            script("payload", "payload", &find, yes, no),
            format!("lua:!{file};"),
            false,
        ),
        "content" => (
            script("payload", "payload", &find, yes, no),
            format!("content:\"{}\"; lua:{file};", content_text(&needle[..2])),
            false,
        ),
        "broken" => {
            let src = match g.size(0, 4) {
                0 => "function init(args)\n  local needs = {}\n  needs[\"payload\"] = tostring(true)\n  return needs\nend\nfunction match(args\n  return 1\nend\n".to_string(),
                1 => "function init(args)\n  local needs = {}\n  needs[\"payload\"] = tostring(true)\n  return needs\nend\n".to_string(),
                2 => script("payload", "payload", "error(\"boom\")", yes, no),
                3 => script("nonsense", "payload", &find, yes, no),
                _ => script("payload", "payload", "p:len() > 0 and nil_table.x", yes, no),
            };
            (src, format!("lua:{file};"), false)
        }
        _ => (
            script("payload", "payload", &find, yes, no),
            format!("lua:{file};"),
            false,
        ),
    };
    let mut f;
    let (l4, proto) = if dns_query {
        f = Flow::new(g.index, v6, 53);
        let labels = vec![g.filler(3), carried.clone(), b"com".to_vec()];
        let id = 0x2000 + (g.index & 0xfff) as u16;
        f.udp(true, &dns::message(id, &labels, 1, false));
        f.udp(false, &dns::message(id, &labels, 1, true));
        (L4::Udp, "dns")
    } else {
        f = Flow::new(g.index, v6, 7000 + (g.index % 1000) as u16);
        let (l4, proto) = g.tcp_or_udp();
        let before = g.size(0, 12);
        let after = g.size(0, 12);
        let payload = [g.filler(before), carried.clone(), g.filler(after)].concat();
        if l4 == L4::Tcp {
            let (ci, si) = (4_000u32, 8_000u32);
            f.handshake(ci, si);
            f.tcp(
                true,
                ci + 1,
                si + 1,
                wire::tcp_flags::PSH | wire::tcp_flags::ACK,
                &[],
                &payload,
            );
            let c = ci + 1 + payload.len() as u32;
            f.tcp(false, si + 1, c, wire::tcp_flags::ACK, &[], &[]);
            f.close(c, si + 1);
        } else {
            f.udp(true, &payload);
            f.udp(false, b"ok");
        }
        (l4, proto)
    };
    let mut s = base(variant, intent, v6, l4, proto);
    s.opts = opts;
    s.files = vec![(file, src.into_bytes())];
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_written_for_every_variant_and_rules_parse() {
        let mut rng = gen::rng::Rng::new(11);
        let mut kinds = std::collections::BTreeSet::new();
        let mut ok = 0;
        for index in 0..200 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = lua(&mut g);
            assert_eq!(s.files.len(), 1);
            assert!(s.opts.contains(&s.files[0].0));
            kinds.insert(s.template.clone());
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert_eq!(kinds.len(), 8, "{kinds:?}");
        assert_eq!(ok, 200);
    }

    #[test]
    fn lua_strings_escape_what_is_not_plain() {
        assert_eq!(lua_str(b"ab\"c"), "\"ab\\034c\"");
    }
}
