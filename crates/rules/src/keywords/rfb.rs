//! RFB: `rfb.sectype` and `rfb.secresult`, matched on the flow's handshake (the
//! `rfb.name` buffer is in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// RFB.
const RFB: &[AppProto] = &[AppProto::Rfb];

/// RFB keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("rfb.sectype", Value::Required, Kind::Option, sectype)
        .protos(RFB)
        .about(
            "match the RFB (VNC) security type",
            "rules/rfb-keywords.html#rfb-sectype",
        ),
    Keyword::new("rfb.secresult", Value::Required, Kind::Option, secresult)
        .protos(RFB)
        .about(
            "match the result of RFB (VNC) authentication",
            "rules/rfb-keywords.html#rfb-secresult",
        ),
];

/// RFB buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// `rfb.sectype:N` (or a comparison: `>=2`, `1<>5`, ...).
fn sectype(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::suricata_uint(v, u64::from(u32::MAX))
            .map_err(|e| format!("rfb.sectype: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `rfb.secresult:ok|fail|toomany|unknown`.
fn secresult(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim().to_ascii_lowercase();
    if !matches!(v.as_str(), "ok" | "fail" | "toomany" | "unknown") {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("rfb.secresult: '{v}' is not ok, fail, toomany or unknown"),
        );
        return;
    }
    push_app(st, c, false, AppValue::Text(v));
}

#[cfg(test)]
mod tests {
    use super::super::first_app_value as app;
    use crate::ast::{AppValue, IntCmp};

    #[test]
    fn values_are_typed() {
        let r = |o: &str| app(&format!("alert rfb any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("rfb.sectype:2;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(2)])
        );
        assert_eq!(
            r("rfb.sectype:>1;").unwrap(),
            AppValue::Ints(vec![IntCmp::Gt(1)])
        );
        assert_eq!(
            r("rfb.secresult:FAIL;").unwrap(),
            AppValue::Text("fail".into())
        );
        assert!(r("rfb.secresult:maybe;").is_err());
        assert!(r("rfb.sectype:x;").is_err());
    }
}
