//! DHCP: `dhcp.leasetime`, `dhcp.rebinding_time` and `dhcp.renewal_time`, matched on
//! each message's time options.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// DHCP.
const DHCP: &[AppProto] = &[AppProto::Dhcp];

/// DHCP keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dhcp.leasetime", Value::Required, Kind::Option, time)
        .protos(DHCP)
        .about(
            "match the DHCP lease time option",
            "rules/dhcp-keywords.html#dhcp-leasetime",
        ),
    Keyword::new("dhcp.rebinding_time", Value::Required, Kind::Option, time)
        .protos(DHCP)
        .about(
            "match the DHCP rebinding time option",
            "rules/dhcp-keywords.html#dhcp-rebinding-time",
        ),
    Keyword::new("dhcp.renewal_time", Value::Required, Kind::Option, time)
        .protos(DHCP)
        .about(
            "match the DHCP renewal time option",
            "rules/dhcp-keywords.html#dhcp-renewal-time",
        ),
];

/// DHCP has no sticky buffers.
pub(super) const STICKY: Stickies = &[];

/// A time in seconds or a comparison (`>3`, `1-10`, ...): Suricata 7.0.10's 64-bit
/// unsigned-integer syntax.
fn time(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::suricata_uint(v, u64::MAX).map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}
