//! TLS: sticky buffers, JA3/JA4, `ssl_state`, `ssl_version`, `tls.version`, the
//! certificate options (`tls_cert_*`, `tls.subject`, `tls.issuerdn`,
//! `tls.fingerprint`, `tls.cert_chain_len`), all matched on the session
//! ([`crate::ast::AppOpt`]), and `tls_store` (alias `tls.store`), kept verbatim.

use super::{push_app, verbatim, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;

/// TLS.
const TLS: &[AppProto] = &[AppProto::Tls];

/// TLS keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("ssl_state", Value::Required, Kind::Option, ssl_state)
        .protos(TLS)
        .about(
            "match the state of the SSL/TLS handshake",
            "rules/tls-keywords.html#ssl-state",
        ),
    Keyword::new("ssl_version", Value::Required, Kind::Option, ssl_version)
        .protos(TLS)
        .about(
            "match the SSL/TLS version",
            "rules/tls-keywords.html#ssl-version",
        ),
    Keyword::new("tls.version", Value::Required, Kind::Option, tls_version)
        .protos(TLS)
        .about(
            "match the TLS version",
            "rules/tls-keywords.html#tls-version",
        ),
    Keyword::new("tls_cert_expired", Value::None, Kind::Option, flag)
        .aliases(&["tls.cert_expired"])
        .protos(TLS)
        .about(
            "the TLS certificate has expired",
            "rules/tls-keywords.html#tls-cert-expired",
        ),
    Keyword::new("tls_cert_valid", Value::None, Kind::Option, flag)
        .aliases(&["tls.cert_valid"])
        .protos(TLS)
        .about(
            "the TLS certificate is within its validity period",
            "rules/tls-keywords.html#tls-cert-valid",
        ),
    Keyword::new(
        "tls_cert_notbefore",
        Value::Required,
        Kind::Option,
        cert_date,
    )
    .aliases(&["tls.cert_notbefore"])
    .protos(TLS)
    .about(
        "compare the start of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notbefore",
    ),
    Keyword::new(
        "tls_cert_notafter",
        Value::Required,
        Kind::Option,
        cert_date,
    )
    .aliases(&["tls.cert_notafter"])
    .protos(TLS)
    .about(
        "compare the end of the TLS certificate's validity",
        "rules/tls-keywords.html#tls-cert-notafter",
    ),
    verbatim("tls_store")
        .aliases(&["tls.store"])
        .protos(TLS)
        .about(
            "store TLS/SSL certificate on disk",
            "rules/tls-keywords.html#tls-store",
        ),
    Keyword::new("tls.subject", Value::Required, Kind::Option, cert_text)
        .protos(TLS)
        .about(
            "match the TLS certificate subject (old form)",
            "rules/tls-keywords.html#tls-subject",
        ),
    Keyword::new("tls.issuerdn", Value::Required, Kind::Option, cert_text)
        .protos(TLS)
        .about(
            "match the TLS certificate issuer (old form)",
            "rules/tls-keywords.html#tls-issuerdn",
        ),
    Keyword::new("tls.fingerprint", Value::Required, Kind::Option, cert_text)
        .protos(TLS)
        .about(
            "match the TLS certificate fingerprint (old form)",
            "rules/tls-keywords.html#tls-fingerprint",
        ),
];

/// TLS buffers; JA3/JA4 also come from QUIC.
pub(super) const STICKY: Stickies = &[
    (
        &[
            Buffer::TlsSni,
            Buffer::TlsCertSubject,
            Buffer::TlsCertIssuer,
            Buffer::TlsCertSerial,
            Buffer::TlsCertFingerprint,
            Buffer::TlsCerts,
            Buffer::TlsCertChainLen,
            Buffer::TlsRandom,
            Buffer::TlsRandomTime,
            Buffer::TlsRandomBytes,
            Buffer::TlsAlpn,
        ],
        TLS,
    ),
    (
        &[
            Buffer::Ja3Hash,
            Buffer::Ja3String,
            Buffer::Ja3sHash,
            Buffer::Ja3sString,
            Buffer::Ja4Hash,
        ],
        &[AppProto::Tls, AppProto::Quic],
    ),
];

/// `ssl_version` names and their bits (in the app layer's order: SSLv2 .. TLS 1.3).
pub const SSL_VERSIONS: &[(&str, u32)] = &[
    ("sslv2", 1),
    ("sslv3", 2),
    ("tls1.0", 4),
    ("tls1.1", 8),
    ("tls1.2", 16),
    ("tls1.3", 32),
];

/// `ssl_state` names and their bits.
pub const SSL_STATES: &[(&str, u32)] = &[
    ("client_hello", 1),
    ("server_hello", 2),
    ("client_keyx", 4),
    ("server_keyx", 8),
    ("unknown", 16),
];

/// The value without surrounding blanks.
fn value<'a>(c: &Ctx<'a>) -> &'a str {
    c.o.value.unwrap_or("").trim()
}

/// `ssl_state:STATE[|STATE...]`, each state optionally negated (`!client_hello`): the
/// message the handshake last parsed is one of the states named, and none of the
/// negated ones.
fn ssl_state(st: &mut State, c: &Ctx<'_>) {
    let v = value(c);
    let parsed = (|| {
        let (mut set, mut clear) = (0u32, 0u32);
        for item in v.split(['|', ',']).map(str::trim) {
            let (neg, name) = crate::values::negation(item);
            let Some(&(_, bit)) = SSL_STATES.iter().find(|(n, _)| *n == name.trim()) else {
                return Err(format!("invalid ssl_state value: {item}"));
            };
            if neg {
                clear |= bit
            } else {
                set |= bit
            }
        }
        Ok((set, clear))
    })();
    let (set, clear) = tryv!(st, c.o, c.kw, parsed);
    let text = v.to_owned();
    push_app(st, c, false, AppValue::Bits { set, clear, text });
}

/// `ssl_version:V[,V...]` (`sslv2`, `sslv3`, `tls1.0` .. `tls1.3`), all negated or
/// none (Suricata refuses a mix): the direction's version is one of them. A negated
/// list never matches in Suricata 7.0.10 (a negated version only vetoes), and so
/// neither here.
fn ssl_version(st: &mut State, c: &Ctx<'_>) {
    let v = value(c);
    let parsed = (|| {
        let (mut set, mut negs) = (0u32, Vec::new());
        for item in crate::values::csv(v) {
            let (neg, name) = crate::values::negation(item);
            let name = name.trim().to_ascii_lowercase();
            let Some(&(_, bit)) = SSL_VERSIONS.iter().find(|(n, _)| *n == name) else {
                return Err(format!("invalid ssl_version value: {item}"));
            };
            set |= bit;
            negs.push(neg);
        }
        if negs.iter().any(|&n| n) && negs.iter().any(|&n| !n) {
            return Err("invalid value mixing negative and positive forms".to_owned());
        }
        Ok((set, negs.first().copied().unwrap_or(false)))
    })();
    let (set, negated) = tryv!(st, c.o, c.kw, parsed);
    let text = v.to_owned();
    let value = AppValue::Bits {
        set,
        clear: 0,
        text,
    };
    push_app(st, c, negated, value);
}

/// `tls.version:1.0|1.1|1.2|1.3` (`1.3` also matches the TLS 1.3 drafts) or a raw
/// version number in hex (`0x7f1c`), matched on the version of the packet's side.
fn tls_version(st: &mut State, c: &Ctx<'_>) {
    let v = value(c).trim_matches('"').trim().to_ascii_lowercase();
    let ok = match v.strip_prefix("0x") {
        Some(h) => !h.is_empty() && h.len() <= 4 && u16::from_str_radix(h, 16).is_ok(),
        None => matches!(v.as_str(), "1.0" | "1.1" | "1.2" | "1.3"),
    };
    if !ok {
        return st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("invalid tls.version option {v}"),
        );
    }
    push_app(st, c, false, AppValue::Text(v));
}

/// `tls_cert_expired`, `tls_cert_valid`: no value.
fn flag(st: &mut State, c: &Ctx<'_>) {
    push_app(st, c, false, AppValue::Flag);
}

/// `tls.subject`, `tls.issuerdn` (the text is contained in the server certificate's
/// subject or issuer, case-sensitive) and `tls.fingerprint` (equal to its SHA-1
/// fingerprint, any case): `[!]"text"`.
fn cert_text(st: &mut State, c: &Ctx<'_>) {
    // Suricata 7.0.10 takes `tls.fingerprint` for the `tls.cert_fingerprint` modifier:
    // after a sticky buffer (not reset with `pkt_data`) the rule is refused.
    if c.def.name == "tls.fingerprint" && st.sticky.is_some() {
        return st.err(
            c.o.name_off,
            Reason::Semantic,
            c.kw,
            "\"tls.cert_fingerprint\" keyword seen with a sticky buffer still set (reset with pkt_data)",
        );
    }
    let (neg, rest) = crate::values::negation(value(c));
    let rest = rest.trim();
    let text = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(rest);
    if text.is_empty() {
        return st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("{}: empty value", c.def.name),
        );
    }
    // Suricata 7.0.10 reads `tls.subject` and `tls.issuerdn` with a pattern of letters
    // (`A-z`, so `[\]^_` and the backquote too), digits, white space and `-.=,*@`:
    // anything else (`:`, `/`, `~`, a quote ...) is an "invalid tls.subject option".
    let subject_byte = |b: u8| {
        (b'A'..=b'z').contains(&b)
            || b.is_ascii_digit()
            || b.is_ascii_whitespace()
            || b"-.=,*@".contains(&b)
    };
    if c.def.name != "tls.fingerprint" && !text.bytes().all(subject_byte) {
        return st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!(
                "invalid {} option (letters, digits, spaces and -.=,*@ only)",
                c.def.name
            ),
        );
    }
    let text = if c.def.name == "tls.fingerprint" {
        text.to_ascii_lowercase()
    } else {
        text.to_owned()
    };
    push_app(st, c, neg, AppValue::Text(text));
}

/// `tls_cert_notbefore`/`tls_cert_notafter`: `[<|>]DATE` or `DATE<>DATE`,
/// DATE as `YYYY-MM[-DD[THH[:MM[:SS]]]]` (UTC) or a number of seconds since the epoch
/// (which is also what a bare year reads as in Suricata), as seconds since the epoch.
fn cert_date(st: &mut State, c: &Ctx<'_>) {
    let v = value(c);
    let parsed = (|| {
        if let Some((a, b)) = v.split_once("<>") {
            let (a, b) = (crate::dates::epoch(a)?, crate::dates::epoch(b)?);
            if a >= b {
                return Err(format!("range '{v}' is empty or backwards"));
            }
            // Both ends included, as Suricata 7.0.10 compares them.
            return Ok(IntCmp::Range(a.saturating_sub(1), b.saturating_add(1)));
        }
        /// An operator prefix and the comparison it makes.
        type Op = (&'static str, fn(u64) -> IntCmp);
        // Suricata 7.0.10 takes `<`, `>`, a plain date and a range only: `<=`, `>=`
        // and `=` are parse errors ("Parsing '>=2027-09-03' failed").
        // and `<`/`>` include the date itself (a certificate from 2022-01-15T00:00:00
        // matches both `<2022-01-15` and `>2022-01-15` in Suricata 7.0.10).
        const OPS: [Op; 2] = [("<", IntCmp::Le), (">", IntCmp::Ge)];
        if v.starts_with(['=', '<', '>']) && ["<=", ">=", "="].iter().any(|p| v.starts_with(p)) {
            return Err(format!("'{v}': only <, > or a range (Suricata 7.0.10)"));
        }
        for (p, f) in OPS {
            if let Some(r) = v.strip_prefix(p) {
                return Ok(f(crate::dates::epoch(r)?));
            }
        }
        Ok(IntCmp::Eq(crate::dates::epoch(v)?))
    })();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        parsed.map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `tls.cert_chain_len:N` (or a comparison): the number of certificates in the
/// server's Certificate message. Called for the sticky buffer name with a value.
pub(super) fn cert_chain_len(st: &mut State, c: &Ctx<'_>) {
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(value(c), u64::from(u32::MAX))
            .map_err(|e| format!("tls.cert_chain_len: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

#[cfg(test)]
mod tests {
    use crate::ast::{AppValue, IntCmp, Opt};

    fn parse(opts: &str) -> Result<Vec<Opt>, ()> {
        let text = format!("alert tls any any -> any any ({opts} sid:1;)");
        crate::parse_rule(&text).map(|r| r.options).map_err(|_| ())
    }

    fn ints(opts: &str) -> Vec<IntCmp> {
        parse(opts)
            .expect(opts)
            .into_iter()
            .find_map(|o| match o {
                Opt::App(a) => match a.value {
                    AppValue::Ints(v) => Some(v),
                    _ => None,
                },
                _ => None,
            })
            .expect("a date comparison")
    }

    #[test]
    fn cert_dates_as_suricata_7_reads_them() {
        // 2022-01-15T00:00:00Z.
        let t = 1_642_204_800u64;
        for (v, hit) in [
            ("<2022-01-15", true),
            (">2022-01-15", true),
            ("<2022-01-14T23:59:59", false),
            (">2022-01-15T00:00:01", false),
            ("2022-01-15", true),
            ("2022-01-14<>2022-01-15", true),
            ("2022-01-15<>2022-01-16", true),
            ("2022-01-16<>2022-01-17", false),
        ] {
            let c = ints(&format!("tls_cert_notbefore:{v};"));
            assert_eq!(c.iter().any(|c| c.matches(t)), hit, "{v}");
        }
        for v in ["<=2022-01-15", ">=2022-01-15", "=2022-01-15"] {
            assert!(parse(&format!("tls_cert_notafter:{v};")).is_err(), "{v}");
        }
    }

    #[test]
    fn subject_and_issuer_take_suricata_7_characters_only() {
        for v in ["\"CN=a, O=b\"", "a_b", "a^b", "a@b*c", "!\"x.y-z\""] {
            assert!(parse(&format!("tls.subject:{v};")).is_ok(), "{v}");
        }
        for v in ["\"a:b\"", "\"a/b\"", "\"a'b\"", "\"a(b\"", "\"mqp.~\""] {
            assert!(parse(&format!("tls.issuerdn:{v};")).is_err(), "{v}");
        }
        assert!(parse("tls.fingerprint:\"00:45:48\";").is_ok());
        assert!(parse("tls.sni; content:\"a\"; tls.fingerprint:\"00:45\";").is_err());
        assert!(parse("tls.sni; content:\"a\"; pkt_data; tls.fingerprint:\"00:45\";").is_ok());
        assert!(parse("tls.sni; content:\"a\"; tls.subject:\"CN=a\";").is_ok());
    }
}
