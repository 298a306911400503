//! IKE: `ike.exchtype`, `ike.chosen_sa_attribute`, `ike.nonce_payload_length` and
//! `ike.key_exchange_payload_length`, matched on each message (the `ike.*` buffers are
//! in `apps.rs`).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// IKE.
const IKE: &[AppProto] = &[AppProto::Ike];

/// IKE keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("ike.exchtype", Value::Required, Kind::Option, exchtype)
        .protos(IKE)
        .about(
            "match the IKE exchange type",
            "rules/ike-keywords.html#ike-exchtype",
        ),
    Keyword::new(
        "ike.chosen_sa_attribute",
        Value::Required,
        Kind::Option,
        chosen_sa_attribute,
    )
    .protos(IKE)
    .about(
        "match an attribute of the IKE security association chosen",
        "rules/ike-keywords.html#ike-chosen_sa_attribute",
    ),
    Keyword::new(
        "ike.nonce_payload_length",
        Value::Required,
        Kind::Option,
        length,
    )
    .protos(IKE)
    .about(
        "compare the length of the IKE nonce payload",
        "rules/ike-keywords.html#ike-nonce-payload-length",
    ),
    Keyword::new(
        "ike.key_exchange_payload_length",
        Value::Required,
        Kind::Option,
        length,
    )
    .protos(IKE)
    .about(
        "compare the length of the IKE key exchange payload",
        "rules/ike-keywords.html#ike-key-exchange-payload-length",
    ),
];

/// IKE buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// The attributes `ike.chosen_sa_attribute` knows (IKEv1's; IKEv2 has the `alg_*`).
const ATTRIBUTES: &[&str] = &[
    "alg_enc",
    "alg_hash",
    "alg_auth",
    "alg_dh",
    "alg_prf",
    "sa_group_type",
    "sa_life_type",
    "sa_life_duration",
    "sa_key_length",
    "sa_field_size",
];

fn ints(st: &mut State, c: &Ctx<'_>, max: u64) {
    let v = c.o.value.unwrap_or("").trim();
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::suricata_uint(v, max).map_err(|e| format!("{}: {e}", c.def.name))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `ike.exchtype:N` (an 8-bit comparison).
fn exchtype(st: &mut State, c: &Ctx<'_>) {
    ints(st, c, 255)
}

/// `ike.nonce_payload_length:N`, `ike.key_exchange_payload_length:N` (32-bit
/// comparisons).
fn length(st: &mut State, c: &Ctx<'_>) {
    ints(st, c, u64::from(u32::MAX))
}

/// `ike.chosen_sa_attribute:<name>=<value>`.
fn chosen_sa_attribute(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let parsed = v
        .split_once('=')
        .ok_or_else(|| format!("ike.chosen_sa_attribute: '{v}' is not <name>=<value>"))
        .and_then(|(name, value)| {
            let name = name.trim();
            if !ATTRIBUTES.contains(&name) {
                return Err(format!(
                    "ike.chosen_sa_attribute: unknown attribute '{name}'"
                ));
            }
            let n = crate::values::uint(value, u64::from(u32::MAX))
                .map_err(|e| format!("ike.chosen_sa_attribute: {e}"))?;
            Ok((name.to_owned(), n))
        });
    let (name, n) = tryv!(st, c.o, c.kw, parsed);
    push_app(
        st,
        c,
        false,
        AppValue::Named {
            name,
            cmp: IntCmp::Eq(n),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::super::first_app_value as app;
    use crate::ast::{AppValue, IntCmp};

    #[test]
    fn values_are_typed() {
        let r = |o: &str| app(&format!("alert ike any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("ike.exchtype:>=2;").unwrap(),
            AppValue::Ints(vec![IntCmp::Ge(2)])
        );
        assert_eq!(
            r("ike.chosen_sa_attribute:alg_hash=2;").unwrap(),
            AppValue::Named {
                name: "alg_hash".into(),
                cmp: IntCmp::Eq(2)
            }
        );
        assert_eq!(
            r("ike.nonce_payload_length:20;").unwrap(),
            AppValue::Ints(vec![IntCmp::Eq(20)])
        );
        assert!(r("ike.exchtype:256;").is_err());
        assert!(r("ike.chosen_sa_attribute:alg_hash;").is_err());
        assert!(r("ike.chosen_sa_attribute:bogus=1;").is_err());
        assert!(r("ike.chosen_sa_attribute:alg_hash=x;").is_err());
    }
}
