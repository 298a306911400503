//! SNMP: `snmp.version` and `snmp.pdu_type`, matched on each message (the
//! `snmp.community`/`snmp.usm` buffers are in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// SNMP.
const SNMP: &[AppProto] = &[AppProto::Snmp];

/// SNMP keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("snmp.version", Value::Required, Kind::Option, version)
        .protos(SNMP)
        .about(
            "match the SNMP version",
            "rules/snmp-keywords.html#snmp-version",
        ),
    Keyword::new("snmp.pdu_type", Value::Required, Kind::Option, pdu_type)
        .protos(SNMP)
        .about(
            "match the SNMP PDU type",
            "rules/snmp-keywords.html#snmp-pdu-type",
        ),
];

/// SNMP buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// `snmp.version:N` (or a comparison: `>1`, `1-3`, ...).
fn version(st: &mut State, c: &Ctx<'_>) {
    ints(st, c)
}

/// `snmp.pdu_type:N` (or a comparison).
fn pdu_type(st: &mut State, c: &Ctx<'_>) {
    ints(st, c)
}

fn ints(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(v, u64::from(u32::MAX)).map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}
