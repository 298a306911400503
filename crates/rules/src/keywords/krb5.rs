//! Kerberos 5: `krb5_msg_type` and `krb5_err_code`, matched on each message (the
//! `krb5.cname`/`krb5.sname` buffers are in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// Kerberos 5.
const KRB5: &[AppProto] = &[AppProto::Krb5];

/// Kerberos 5 keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("krb5_msg_type", Value::Required, Kind::Option, msg_type)
        .aliases(&["krb5.msg_type"])
        .protos(KRB5)
        .about(
            "match the Kerberos 5 message type",
            "rules/kerberos-keywords.html#krb5-msg-type",
        ),
    Keyword::new("krb5_err_code", Value::Required, Kind::Option, err_code)
        .aliases(&["krb5.err_code"])
        .protos(KRB5)
        .about(
            "match the Kerberos 5 error code",
            "rules/kerberos-keywords.html#krb5-err-code",
        ),
];

/// Kerberos 5 buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// `krb5_msg_type:N` (a message type, 0 to 255, or a comparison).
fn msg_type(st: &mut State, c: &Ctx<'_>) {
    ints(st, c, 255)
}

/// `krb5_err_code:N` (an error code, or a comparison).
fn err_code(st: &mut State, c: &Ctx<'_>) {
    ints(st, c, i32::MAX as u64)
}

fn ints(st: &mut State, c: &Ctx<'_>, max: u64) {
    let v = c.o.value.unwrap_or("").trim();
    let v = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v);
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(v, max).map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}
