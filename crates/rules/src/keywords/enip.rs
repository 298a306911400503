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
/// bit 7 marks responses; class and attribute 0 to 65535), kept in order as
/// equalities, read as Suricata 7.0.10 reads them (found by running it): empty tokens
/// between commas are skipped, each token must start with a digit (`14, 1` is refused,
/// `14 ,1` and `1x` are taken), its leading digits are checked against the limit, and
/// the value matched is that of the token's first two characters only (`100` matches
/// 10, `245` matches 24: a class, attribute or service of three digits never matches
/// itself).
fn cip_service(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let parts: Vec<&str> = v.split(',').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.len() > 3 {
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
        let max = if i == 0 { 127 } else { 65_535 };
        let n = tryv!(
            st,
            c.o,
            c.kw,
            cip_token(p, max).map_err(|e| format!("cip_service: {e}"))
        );
        cmps.push(crate::ast::IntCmp::Eq(n));
    }
    push_app(st, c, false, AppValue::Ints(cmps));
}

/// One `cip_service` token: its leading digits at most `max`, the value of its first
/// two characters' digits.
fn cip_token(p: &str, max: u64) -> Result<u64, String> {
    let digits = |s: &str| -> String { s.chars().take_while(char::is_ascii_digit).collect() };
    let all = digits(p);
    if all.is_empty() {
        return Err(format!("parameter error {p}"));
    }
    match all.parse::<u64>() {
        Ok(n) if n <= max => {}
        _ => return Err(format!("{all} is out of range (at most {max})")),
    }
    let head: String = p.chars().take(2).collect();
    digits(&head).parse::<u64>().map_err(|e| e.to_string())
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
            r("cip_service:16,246,6;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(16), IntCmp::Eq(24), IntCmp::Eq(6)])
        );
        // As Suricata 7.0.10: two characters of each token count, empty tokens are
        // skipped, a token starts with a digit.
        let eq = |v: &[u64]| AppValue::Ints(v.iter().map(|&n| IntCmp::Eq(n)).collect());
        assert_eq!(r("cip_service:100;").unwrap(), eq(&[10]));
        assert_eq!(r("cip_service:099;").unwrap(), eq(&[9]));
        assert_eq!(r("cip_service:1x;").unwrap(), eq(&[1]));
        assert_eq!(r("cip_service:14 ,1;").unwrap(), eq(&[14, 1]));
        assert_eq!(r("cip_service:14,,65535;").unwrap(), eq(&[14, 65]));
        assert_eq!(r("cip_service:14,;").unwrap(), eq(&[14]));
        for bad in [
            "16, 246", "1,2,3,4", "200", "128", "x", "+1", "-1", "14,70000", ",",
        ] {
            assert!(r(&format!("cip_service:{bad};")).is_err(), "{bad}");
        }
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
