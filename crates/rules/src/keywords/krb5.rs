//! Kerberos 5: `krb5_msg_type`, `krb5_err_code` and `krb5.ticket_encryption`, matched
//! on each message (the `krb5.cname`/`krb5.sname` buffers are in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
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
    Keyword::new(
        "krb5.ticket_encryption",
        Value::Required,
        Kind::Option,
        ticket_encryption,
    )
    .protos(KRB5)
    .about(
        "match the encryption type of a Kerberos 5 reply's ticket",
        "rules/kerberos-keywords.html#krb5-ticket-encryption",
    ),
];

/// Encryption type names as Suricata writes them (lower case, dashes).
const ETYPES: &[(&str, u64)] = &[
    ("des-cbc-crc", 1),
    ("des-cbc-md4", 2),
    ("des-cbc-md5", 3),
    ("des3-cbc-md5", 5),
    ("des3-cbc-sha1", 7),
    ("des3-cbc-sha1-kd", 16),
    ("aes128-cts-hmac-sha1-96", 17),
    ("aes256-cts-hmac-sha1-96", 18),
    ("aes128-cts-hmac-sha256-128", 19),
    ("aes256-cts-hmac-sha384-192", 20),
    ("rc4-hmac", 23),
    ("rc4-hmac-exp", 24),
    ("camellia128-cts-cmac", 25),
    ("camellia256-cts-cmac", 26),
];

/// `krb5.ticket_encryption:[!]weak` (the ticket's encryption is weak, or not) or a
/// comma-separated list of encryption types by name or number (no negation): the
/// ticket's encryption is one of them.
fn ticket_encryption(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    match v {
        "weak" | "!weak" => {
            return push_app(st, c, v.starts_with('!'), AppValue::Text("weak".into()))
        }
        _ => {}
    }
    let parsed = crate::values::csv(v)
        .into_iter()
        .map(|t| {
            ETYPES
                .iter()
                .find(|(n, _)| *n == t)
                .map(|&(_, e)| Ok(IntCmp::Eq(e)))
                .unwrap_or_else(|| {
                    crate::values::uint(t, i32::MAX as u64)
                        .map(IntCmp::Eq)
                        .map_err(|_| format!("krb5.ticket_encryption: invalid value {t}"))
                })
        })
        .collect::<Result<Vec<_>, _>>();
    let list = tryv!(st, c.o, c.kw, parsed);
    push_app(st, c, false, AppValue::Ints(list));
}

/// Suricata 7.0.10 copies the number into a 4-byte string: a value of more than three
/// characters (`1000`, `0999`) fails to load, so error codes stop at 999 (found by the
/// differential harness's `krb5` family).
fn three_digits(v: &str) -> Result<&str, String> {
    let t = v.trim();
    if t.len() > 3 {
        return Err(format!("'{t}' is longer than three digits"));
    }
    Ok(t)
}

/// Kerberos 5 buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// `krb5_msg_type:N` (a message type, 0 to 255: a plain decimal number, as Suricata
/// 7.0.10 takes no comparison here).
fn msg_type(st: &mut State, c: &Ctx<'_>) {
    ints(st, c, 255)
}

/// `krb5_err_code:N` (an error code: a plain decimal number).
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
        three_digits(v)
            .and_then(|v| crate::values::decimal(v, max))
            .map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(
        st,
        c,
        false,
        AppValue::Ints(vec![crate::ast::IntCmp::Eq(cmp)]),
    );
}

#[cfg(test)]
mod tests {
    use super::super::first_app_value as app;
    use crate::ast::{AppValue, IntCmp};

    /// As `suricata -T` answers: plain decimal numbers of at most three characters.
    #[test]
    fn plain_short_numbers_only() {
        let r = |o: &str| app(&format!("alert krb5 any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("krb5_err_code:999;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(999)])
        );
        assert_eq!(
            r("krb5_msg_type: 10;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(10)])
        );
        for bad in [
            "krb5_err_code:1000;",
            "krb5_err_code:0999;",
            "krb5_err_code:-1;",
            "krb5_err_code:>5;",
            "krb5_msg_type:<11;",
            "krb5_msg_type:!10;",
            "krb5_msg_type:256;",
            "krb5_msg_type:0x0a;",
        ] {
            assert!(r(bad).is_err(), "{bad}");
        }
    }
}
