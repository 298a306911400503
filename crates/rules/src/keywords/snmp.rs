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

/// `snmp.pdu_type:N`: a plain decimal number only (Suricata 7.0.10 takes no
/// comparison here), its low 32 bits.
fn pdu_type(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("");
    let n = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::decimal(v, u64::MAX).map_err(|e| format!("{}: {e}", c.def.name))
    );
    // Suricata keeps the number's low 32 bits: `4294967296` is type 0 (found by the
    // differential harness's `snmp` family).
    let n = n & u64::from(u32::MAX);
    push_app(
        st,
        c,
        false,
        AppValue::Ints(vec![crate::ast::IntCmp::Eq(n)]),
    );
}

fn ints(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::suricata_uint(v, u64::from(u32::MAX))
            .map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}
