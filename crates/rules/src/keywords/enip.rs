//! ENIP: `enip_command`, matched on each encapsulated message, and `cip_service`,
//! matched on the CIP requests a message carries.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
use crate::diag::Reason;
use crate::parser::state::State;

/// ENIP.
const ENIP: &[AppProto] = &[AppProto::Enip];

/// ENIP keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("enip_command", Value::Required, Kind::Option, command)
        .protos(ENIP)
        .about(
            "match the ENIP/CIP command",
            "rules/enip-keyword.html#enip-cip-keywords",
        ),
    Keyword::new("cip_service", Value::Required, Kind::Option, cip_service)
        .protos(ENIP)
        .about(
            "match the CIP service, class and attribute of a request",
            "rules/enip-keyword.html#enip-cip-keywords",
        ),
];

/// ENIP has no sticky buffers.
pub(super) const STICKY: Stickies = &[];

/// `enip_command:N`: the encapsulation command, a decimal number from 0 to 65535 (Suricata
/// 7.0.10 refuses comparisons, signs and hex).
fn command(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::decimal(v, 65_535).map_err(|e| format!("enip_command: {e}"))
    );
    push_app(
        st,
        c,
        false,
        AppValue::Ints(vec![crate::ast::IntCmp::Eq(cmp)]),
    );
}

/// `cip_service:service[,class[,attribute]]`: up to three numbers (service 0 to 127:
/// bit 7 marks responses), kept in order as equalities.
fn cip_service(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            "cip_service: at most service, class and attribute",
        );
        return;
    }
    let mut cmps = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        let max = if i == 0 { 127 } else { u64::from(u32::MAX) };
        let n = tryv!(
            st,
            c.o,
            c.kw,
            crate::values::uint(p, max).map_err(|e| format!("cip_service: {e}"))
        );
        cmps.push(crate::ast::IntCmp::Eq(n));
    }
    push_app(st, c, false, AppValue::Ints(cmps));
}

#[cfg(test)]
mod tests {
    use super::super::first_app_value as app;
    use crate::ast::{AppValue, IntCmp};

    #[test]
    fn cip_service_values() {
        let r = |o: &str| app(&format!("alert enip any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("cip_service:75;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(75)])
        );
        assert_eq!(
            r("cip_service:16, 246, 6;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(16), IntCmp::Eq(246), IntCmp::Eq(6)])
        );
        assert!(r("cip_service:1,2,3,4;").is_err());
        assert!(r("cip_service:200;").is_err());
        assert!(r("cip_service:x;").is_err());
    }

    #[test]
    fn enip_command_is_one_decimal_number() {
        let r = |o: &str| app(&format!("alert enip any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("enip_command: 100;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(100)])
        );
        assert!(r("enip_command:65535;").is_ok());
        for bad in ["<5", "1-3", "65536", "0x64", "!100"] {
            assert!(r(&format!("enip_command:{bad};")).is_err(), "{bad}");
        }
    }
}
