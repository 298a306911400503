//! HTTP/2: `http2.frametype`, `http2.errorcode`, `http2.priority`, `http2.window`,
//! `http2.size_update` and `http2.settings`, matched on a stream's transaction (or a
//! connection-level one) for the frames of the packet's side. Values as Suricata
//! 7.0.10 accepts them.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// HTTP/2 first (a rule with the `http` header keeps it).
const HTTP2: &[AppProto] = &[AppProto::Http2, AppProto::Http];

/// Frame type names by number, as `http2.frametype` takes them (any case).
pub const FRAME_TYPES: [&str; 10] = [
    "DATA",
    "HEADERS",
    "PRIORITY",
    "RSTSTREAM",
    "SETTINGS",
    "PUSHPROMISE",
    "PING",
    "GOAWAY",
    "WINDOWUPDATE",
    "CONTINUATION",
];

/// Error code names by number, as `http2.errorcode` takes them (any case).
pub const ERROR_CODES: [&str; 14] = [
    "NO_ERROR",
    "PROTOCOL_ERROR",
    "INTERNAL_ERROR",
    "FLOW_CONTROL_ERROR",
    "SETTINGS_TIMEOUT",
    "STREAM_CLOSED",
    "FRAME_SIZE_ERROR",
    "REFUSED_STREAM",
    "CANCEL",
    "COMPRESSION_ERROR",
    "CONNECT_ERROR",
    "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY",
    "HTTP_1_1_REQUIRED",
];

/// SETTINGS identifier names by identifier (1 to 6), as `http2.settings` takes them.
pub const SETTINGS: [&str; 6] = [
    "SETTINGS_HEADER_TABLE_SIZE",
    "SETTINGS_ENABLE_PUSH",
    "SETTINGS_MAX_CONCURRENT_STREAMS",
    "SETTINGS_INITIAL_WINDOW_SIZE",
    "SETTINGS_MAX_FRAME_SIZE",
    "SETTINGS_MAX_HEADER_LIST_SIZE",
];

/// One HTTP/2 keyword.
const fn kw(name: &'static str, f: fn(&mut State, &Ctx<'_>), about: &'static str) -> Keyword {
    Keyword::new(name, Value::Required, Kind::Option, f)
        .protos(HTTP2)
        .about(about, "rules/http2-keywords.html")
}

/// HTTP/2 keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    kw(
        "http2.frametype",
        frametype,
        "match the type of an HTTP/2 frame",
    ),
    kw(
        "http2.errorcode",
        errorcode,
        "match the error code of an HTTP/2 GOAWAY or RST_STREAM frame",
    ),
    kw(
        "http2.priority",
        priority,
        "compare the priority of an HTTP/2 stream",
    ),
    kw("http2.window", window, "compare an HTTP/2 window update"),
    kw(
        "http2.size_update",
        size_update,
        "compare an HTTP/2 dynamic table size update",
    ),
    kw(
        "http2.settings",
        settings,
        "match an HTTP/2 setting and its value",
    ),
];

/// HTTP/2 buffers are declared with HTTP's.
pub(super) const STICKY: Stickies = &[];

fn value<'a>(c: &Ctx<'a>) -> &'a str {
    c.o.value.unwrap_or("").trim()
}

/// A name from `names` (any case; an empty entry is no name) or a number up to `max`.
fn named(st: &mut State, c: &Ctx<'_>, names: &[&str], max: u64) {
    let v = value(c);
    let n = names
        .iter()
        .position(|n| !n.is_empty() && n.eq_ignore_ascii_case(v))
        .map(|i| i as u64)
        .or_else(|| crate::values::uint(v, max).ok());
    match n {
        Some(n) => push_app(st, c, false, AppValue::Ints(vec![IntCmp::Eq(n)])),
        None => st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("invalid argument \"{v}\" supplied to {}", c.def.name),
        ),
    }
}

/// `http2.frametype:HEADERS` (or a number).
fn frametype(st: &mut State, c: &Ctx<'_>) {
    named(st, c, &FRAME_TYPES, 255)
}

/// `http2.errorcode:NO_ERROR` (or a number). Suricata 7.0.10 refuses the name
/// `INTERNAL_ERROR` (any case; checked against it: the other thirteen names load, code 2
/// is written as a number).
fn errorcode(st: &mut State, c: &Ctx<'_>) {
    let mut names = ERROR_CODES;
    names[2] = "";
    named(st, c, &names, u64::from(u32::MAX))
}

/// An integer comparison up to `max` in Suricata's unsigned-integer syntax (no `<0`,
/// `>=0`, `>MAX`, `<=MAX`, empty ranges, hex).
fn cmp(st: &mut State, c: &Ctx<'_>, max: u64) {
    let v = value(c);
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::suricata_uint(v, max).map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `http2.priority:N` (the priority weight field, 0 to 255, or a comparison).
fn priority(st: &mut State, c: &Ctx<'_>) {
    cmp(st, c, 255)
}

/// `http2.window:N` (a WINDOW_UPDATE increment, or a comparison).
fn window(st: &mut State, c: &Ctx<'_>) {
    cmp(st, c, u64::from(u32::MAX))
}

/// `http2.size_update:N` (an HPACK dynamic table size update, or a comparison).
fn size_update(st: &mut State, c: &Ctx<'_>) {
    cmp(st, c, u64::MAX)
}

/// `http2.settings:NAME[OPVALUE]` (`SETTINGS_ENABLE_PUSH=0`,
/// `SETTINGS_HEADER_TABLE_SIZE>4096`, `SETTINGS_MAX_FRAME_SIZE 16384`): kept as written
/// and read with [`settings_value`].
fn settings(st: &mut State, c: &Ctx<'_>) {
    let v = value(c);
    match settings_value(v) {
        Ok(_) => push_app(st, c, false, AppValue::Text(v.to_owned())),
        Err(e) => st.err(c.o.value_off, Reason::InvalidValue, c.kw, e),
    }
}

/// The identifier and the optional value comparison of an `http2.settings` value, as
/// Suricata 7.0.10 reads it (checked against it): the name runs to the first blank,
/// `<`, `>` or `=` and must be a setting's name (any case), so `NAME!5` or `NAME5` is
/// refused; what follows is a comparison in its unsigned 32-bit syntax (blanks before
/// it allowed: `NAME !5`, `NAME 1-3`), and when it does not parse as one (`NAME=0-0`,
/// `NAME>x`, `NAME=4294967296`, `NAME<0`) the rule loads with the name alone.
pub fn settings_value(v: &str) -> Result<(u16, Option<IntCmp>), String> {
    let end = v.find([' ', '<', '>', '=']).unwrap_or(v.len());
    let (name, rest) = v.split_at(end);
    let Some(i) = SETTINGS.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
        return Err(format!(
            "invalid argument \"{v}\" supplied to http2.settings"
        ));
    };
    let rest = rest.trim();
    let cmp = if rest.is_empty() {
        None
    } else {
        crate::values::suricata_uint(rest, u64::from(u32::MAX)).ok()
    };
    Ok((i as u16 + 1, cmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_values() {
        assert_eq!(settings_value("SETTINGS_ENABLE_PUSH"), Ok((2, None)));
        assert_eq!(
            settings_value("SETTINGS_MAX_CONCURRENT_STREAMS>100"),
            Ok((3, Some(IntCmp::Gt(100))))
        );
        assert_eq!(
            settings_value("SETTINGS_ENABLE_PUSH=0"),
            Ok((2, Some(IntCmp::Eq(0))))
        );
        assert_eq!(
            settings_value("settings_max_frame_size !5"),
            Ok((5, Some(IntCmp::Ne(5))))
        );
        assert_eq!(
            settings_value("SETTINGS_MAX_FRAME_SIZE 1-3"),
            Ok((5, Some(IntCmp::Range(1, 3))))
        );
        // A value Suricata's integer parser refuses leaves the name alone.
        for v in [
            "=0-0",
            ">x",
            "=4294967296",
            "<0",
            ">=0",
            "=",
            " 0x10",
            "<>5",
        ] {
            assert_eq!(
                settings_value(&format!("SETTINGS_MAX_FRAME_SIZE{v}")),
                Ok((5, None)),
                "{v}"
            );
        }
        assert!(settings_value("SETTINGSENABLEPUSH").is_err());
        assert!(settings_value("SETTINGS_ENABLE_PUSH!1").is_err());
        assert!(settings_value("SETTINGS_MAX_FRAME_SIZE16384").is_err());
        assert!(settings_value("1").is_err());
    }
}
