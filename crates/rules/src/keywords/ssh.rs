//! SSH: `ssh.protoversion` and `ssh.softwareversion`, matched on the identification
//! line of the side the packet comes from (the buffers are in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// SSH.
const SSH: &[AppProto] = &[AppProto::Ssh];

/// SSH keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new(
        "ssh.protoversion",
        Value::Required,
        Kind::Option,
        protoversion,
    )
    .protos(SSH)
    .about(
        "match the SSH protocol version",
        "rules/ssh-keywords.html#ssh-protoversion",
    ),
    Keyword::new(
        "ssh.softwareversion",
        Value::Required,
        Kind::Option,
        softwareversion,
    )
    .protos(SSH)
    .about(
        "match the SSH software version",
        "rules/ssh-keywords.html#ssh-softwareversion",
    ),
];

/// SSH buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// The value without surrounding blanks and optional double quotes.
fn unquoted<'a>(c: &Ctx<'a>) -> &'a str {
    let v = c.o.value.unwrap_or("").trim();
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .trim()
}

/// `ssh.protoversion:2_compat` (any 2.x, and 1.99) or a version made of digits,
/// dots and dashes (`2.0`, `1.99`), matched exactly.
fn protoversion(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    let ok = v == "2_compat"
        || (v.starts_with(|ch: char| ch.is_ascii_digit())
            && v.chars()
                .all(|ch| ch.is_ascii_digit() || ch == '.' || ch == '-'));
    if !ok {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("ssh.protoversion: {v:?} is not a version or 2_compat"),
        );
        return;
    }
    push_app(st, c, false, AppValue::Text(v.to_owned()));
}

/// `ssh.softwareversion:NAME`: letters, digits and `:._-+`, matched exactly.
fn softwareversion(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    if v.is_empty()
        || !v
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ":._-+ ".contains(ch))
    {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("ssh.softwareversion: {v:?} is not a software version"),
        );
        return;
    }
    push_app(st, c, false, AppValue::Text(v.to_owned()));
}
