//! Modbus: the `modbus` keyword (function, sub-function, category, access with
//! address and value, unit), matched on each transaction's request.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp, ModbusMatch, ModbusWhat};
use crate::diag::Reason;
use crate::parser::state::State;

/// Modbus.
const MODBUS: &[AppProto] = &[AppProto::Modbus];

/// Modbus keywords.
pub(super) const KEYWORDS: &[Keyword] =
    &[
        Keyword::new("modbus", Value::Required, Kind::Option, modbus)
            .protos(MODBUS)
            .about(
                "match the Modbus function, unit or access",
                "rules/modbus-keyword.html#modbus-keyword",
            ),
    ];

/// Modbus has no sticky buffers.
pub(super) const STICKY: Stickies = &[];

fn modbus(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let m = tryv!(st, c.o, c.kw, parse(v).map_err(|e| format!("modbus: {e}")));
    push_app(st, c, false, AppValue::Modbus(m));
}

/// Parses the keyword's value: `[unit <value>,] function ...`, `[unit <value>,]
/// access ...` or `unit <value>` alone.
pub(crate) fn parse(v: &str) -> Result<ModbusMatch, String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let mut i = 0;
    let mut unit = None;
    if let Some(("unit", r)) = word(parts[0]) {
        // Suricata 7.0.10 reads the unit as a 16-bit number (256 and up never match).
        unit = Some(range(r, 65_535)?);
        i = 1;
    }
    let Some(first) = parts.get(i) else {
        return Ok(ModbusMatch {
            unit,
            what: ModbusWhat::Any,
        });
    };
    let rest = &parts[i + 1..];
    let what = match word(first) {
        Some(("function", f)) => function(f, rest)?,
        Some(("access", a)) => access(a, rest)?,
        _ => return Err(format!("'{first}': expected function, access or unit")),
    };
    Ok(ModbusMatch { unit, what })
}

/// A setting's name and its value.
fn word(p: &str) -> Option<(&str, &str)> {
    p.split_once(char::is_whitespace)
        .map(|(a, b)| (a, b.trim()))
}

fn function(f: &str, rest: &[&str]) -> Result<ModbusWhat, String> {
    let (negated, name) = match f.strip_prefix('!') {
        Some(n) => (true, n.trim()),
        None => (false, f),
    };
    let bits = match name {
        "assigned" => Some(1),
        "unassigned" => Some(2),
        "public" => Some(3),
        "user" => Some(4),
        "reserved" => Some(8),
        "all" => Some(15),
        _ => None,
    };
    if let Some(bits) = bits {
        if !rest.is_empty() {
            return Err("a function category takes no sub-function".into());
        }
        return Ok(ModbusWhat::Category { negated, bits });
    }
    if negated {
        return Err(format!("'!{name}': only a category can be negated"));
    }
    let code = crate::values::uint(name, 255)? as u8;
    if code == 0 {
        // "Invalid modbus function value" in Suricata 7.0.10.
        return Err("function 0 is not a Modbus function".into());
    }
    let subfunction = match rest {
        [] => None,
        [s] => match s.split_once(char::is_whitespace) {
            Some(("subfunction", n)) => Some(crate::values::uint(n.trim(), 65535)? as u16),
            _ => return Err(format!("'{s}': expected subfunction")),
        },
        _ => return Err("too many settings after function".into()),
    };
    Ok(ModbusWhat::Function { code, subfunction })
}

fn access(a: &str, rest: &[&str]) -> Result<ModbusWhat, String> {
    let mut words = a.split_whitespace();
    let mut bits = match words.next() {
        Some("read") => 1,
        Some("write") => 2,
        other => {
            return Err(format!(
                "access '{}': expected read or write",
                other.unwrap_or("")
            ))
        }
    };
    match words.next() {
        None => {}
        Some("discretes") if bits == 1 => bits |= 4,
        Some("coils") => bits |= 8,
        Some("input") if bits == 1 => bits |= 16,
        Some("holding") => bits |= 32,
        Some(t) => return Err(format!("access table '{t}' is not valid here")),
    }
    if words.next().is_some() {
        return Err(format!("'{a}': too many words"));
    }
    let (mut address, mut value) = (None, None);
    for p in rest {
        match p.split_once(char::is_whitespace) {
            Some(("address", r)) if address.is_none() && bits & 0x3c != 0 => {
                address = Some(range(r.trim(), 65535)?)
            }
            Some(("value", r))
                if value.is_none() && bits & 2 != 0 && matches!(address, Some(IntCmp::Eq(_))) =>
            {
                value = Some(range(r.trim(), 65535)?)
            }
            _ => {
                return Err(format!(
                    "'{p}': expected address (after a table) or value (after one written address)"
                ))
            }
        }
    }
    Ok(ModbusWhat::Access {
        bits,
        address,
        value,
    })
}

/// `N`, `<N`, `>N` or `A<>B` (strictly between). Suricata 7.0.10 takes any `A<>B`,
/// equal or backwards bounds included (`5<>5` is 5; the `modbus` matcher in `app`
/// compares the bounds as Suricata does).
fn range(s: &str, max: u64) -> Result<IntCmp, String> {
    let u = |x: &str| crate::values::uint(x.trim(), max);
    if let Some((a, b)) = s.split_once("<>") {
        return Ok(IntCmp::Range(u(a)?, u(b)?));
    }
    if let Some(r) = s.strip_prefix('<') {
        return Ok(IntCmp::Lt(u(r)?));
    }
    if let Some(r) = s.strip_prefix('>') {
        return Ok(IntCmp::Gt(u(r)?));
    }
    Ok(IntCmp::Eq(u(s)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_as_suricata() {
        assert!(parse("function 0").is_err());
        assert!(parse("function 255").is_ok());
        assert_eq!(parse("unit 256").unwrap().unit, Some(IntCmp::Eq(256)));
        assert!(parse("unit 65536").is_err());
        // Equal and backwards ranges are taken, as Suricata takes them.
        assert_eq!(
            parse("unit 10<>10").unwrap().unit,
            Some(IntCmp::Range(10, 10))
        );
        assert!(parse("access read holding, address 2<>1").is_ok());
    }

    #[test]
    fn values() {
        assert_eq!(
            parse("function 8, subfunction 4").unwrap().what,
            ModbusWhat::Function {
                code: 8,
                subfunction: Some(4)
            }
        );
        assert_eq!(
            parse("function !reserved").unwrap().what,
            ModbusWhat::Category {
                negated: true,
                bits: 8
            }
        );
        let m = parse("unit 10, access write holding, address 500, value >200").unwrap();
        assert_eq!(m.unit, Some(IntCmp::Eq(10)));
        assert_eq!(
            m.what,
            ModbusWhat::Access {
                bits: 34,
                address: Some(IntCmp::Eq(500)),
                value: Some(IntCmp::Gt(200))
            }
        );
        assert_eq!(
            parse("unit <5").unwrap(),
            ModbusMatch {
                unit: Some(IntCmp::Lt(5)),
                what: ModbusWhat::Any
            }
        );
        assert_eq!(
            parse("access read discretes, address 100<>200")
                .unwrap()
                .what,
            ModbusWhat::Access {
                bits: 5,
                address: Some(IntCmp::Range(100, 200)),
                value: None
            }
        );
        for bad in [
            "",
            "function",
            "function 256",
            "function !3",
            "access",
            "access read, address 5",
            "access write discretes",
            "access read holding, value 3",
            "access write holding, address 11<>13, value 1",
            "function public, subfunction 1",
            "colour red",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
