//! ENIP: `enip_command`, matched on each encapsulated message (`cip_service` stays
//! verbatim in `apps.rs` until CIP requests are parsed).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// ENIP.
const ENIP: &[AppProto] = &[AppProto::Enip];

/// ENIP keywords.
pub(super) const KEYWORDS: &[Keyword] =
    &[
        Keyword::new("enip_command", Value::Required, Kind::Option, command)
            .protos(ENIP)
            .about(
                "match the ENIP/CIP command",
                "rules/enip-keyword.html#enip-cip-keywords",
            ),
    ];

/// ENIP has no sticky buffers.
pub(super) const STICKY: Stickies = &[];

/// `enip_command:N`: the encapsulation command (0 to 65535, or a comparison).
fn command(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(v, 65_535).map_err(|e| format!("enip_command: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}
