//! DCERPC: `dcerpc.iface` (`dce_iface`) and `dcerpc.opnum` (`dce_opnum`), matched on
//! DCERPC calls over TCP, UDP and SMB named pipes (the `dcerpc.stub_data` buffer is
//! listed with the other application buffers).

use super::{push_app, Ctx, Keyword, Kind, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// DCERPC, and SMB which carries it.
const DCERPC: &[AppProto] = &[AppProto::Dcerpc, AppProto::Smb];

/// DCERPC keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dcerpc.iface", Value::Required, Kind::Option, iface)
        .aliases(&["dce_iface"])
        .protos(DCERPC)
        .once()
        .about(
            "match the DCERPC interface UUID (and version) a call is bound to",
            "rules/dcerpc-keywords.html#dcerpc-iface",
        ),
    Keyword::new("dcerpc.opnum", Value::Required, Kind::Option, opnum)
        .aliases(&["dce_opnum"])
        .protos(DCERPC)
        .once()
        .about(
            "match the DCERPC operation number of a call",
            "rules/dcerpc-keywords.html#dcerpc-opnum",
        ),
];

/// `dcerpc.iface:<uuid>[,<op><version>][,any_frag]`, op one of `<`, `>`, `=`, `!`.
fn iface(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("");
    let value = tryv!(st, c.o, c.kw, parse_iface(v));
    push_app(st, c, false, value);
}

/// The value of `dcerpc.iface`.
pub(crate) fn parse_iface(v: &str) -> Result<AppValue, String> {
    let mut parts = v.split(',').map(str::trim);
    let uuid = parse_uuid(parts.next().unwrap_or(""))?;
    let (mut version, mut any_frag) = (None, false);
    for p in parts {
        if p == "any_frag" && !any_frag {
            any_frag = true;
            continue;
        }
        if version.is_some() || any_frag {
            return Err(format!("dcerpc.iface: unexpected `{p}`"));
        }
        let (op, n) = p.split_at(p.find(|ch: char| ch.is_ascii_digit()).unwrap_or(p.len()));
        let n = crate::values::uint(n.trim(), u64::from(u16::MAX))
            .map_err(|e| format!("dcerpc.iface: version: {e}"))?;
        version = Some(match op.trim() {
            // No version is below 0: Suricata 7.0.10 refuses the option.
            "<" if n == 0 => return Err("dcerpc.iface: version `<0` matches nothing".into()),
            "<" => IntCmp::Lt(n),
            ">" => IntCmp::Gt(n),
            "=" => IntCmp::Eq(n),
            "!" => IntCmp::Ne(n),
            o => return Err(format!("dcerpc.iface: bad version operator `{o}`")),
        });
    }
    Ok(AppValue::Iface {
        uuid,
        version,
        any_frag,
    })
}

/// A UUID `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in wire order: the first three
/// fields little-endian, as DCERPC carries them.
fn parse_uuid(s: &str) -> Result<[u8; 16], String> {
    let bad = || format!("dcerpc.iface: `{s}` is not a UUID");
    let f: Vec<&str> = s.split('-').collect();
    if f.len() != 5
        || [8, 4, 4, 4, 12].iter().zip(&f).any(|(n, x)| x.len() != *n)
        || !s.bytes().all(|b| b == b'-' || b.is_ascii_hexdigit())
    {
        return Err(bad());
    }
    let hex: String = f.concat();
    let mut u = [0u8; 16];
    for (i, b) in u.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    u[0..4].reverse();
    u[4..6].reverse();
    u[6..8].reverse();
    Ok(u)
}

/// `dcerpc.opnum:<n>[,<n>|<a>-<b>]...`: operation numbers and inclusive ranges (and
/// Snort's comparisons, `<=3`).
fn opnum(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("");
    let value = tryv!(st, c.o, c.kw, parse_opnum(v));
    push_app(st, c, false, value);
}

/// The value of `dcerpc.opnum`.
pub(crate) fn parse_opnum(v: &str) -> Result<AppValue, String> {
    let num = |s: &str| {
        crate::values::uint(s.trim(), u64::from(u16::MAX)).map_err(|e| format!("dcerpc.opnum: {e}"))
    };
    let mut out = Vec::new();
    for p in v.split(',').map(str::trim) {
        if p.starts_with(['<', '>']) {
            // Snort's form (`<=3`), which Snort-era rule sets carry.
            out.push(
                crate::values::int_cmp(p, u64::from(u16::MAX))
                    .map_err(|e| format!("dcerpc.opnum: {e}"))?,
            );
            continue;
        }
        out.push(match p.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a >= b {
                    return Err(format!("dcerpc.opnum: empty range `{p}`"));
                }
                // Inclusive: a <= n <= b.
                match a.checked_sub(1) {
                    Some(a1) => IntCmp::Range(a1, b + 1),
                    None => IntCmp::Le(b),
                }
            }
            None => IntCmp::Eq(num(p)?),
        });
    }
    Ok(AppValue::Ints(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iface_values() {
        let AppValue::Iface {
            uuid,
            version,
            any_frag,
        } = parse_iface("e1af8308-5d1f-11c9-91a4-08002b14a0fa,>2, any_frag").unwrap()
        else {
            panic!("not an iface")
        };
        assert_eq!(
            uuid,
            [
                0x08, 0x83, 0xaf, 0xe1, 0x1f, 0x5d, 0xc9, 0x11, 0x91, 0xa4, 0x08, 0x00, 0x2b, 0x14,
                0xa0, 0xfa
            ]
        );
        assert_eq!((version, any_frag), (Some(IntCmp::Gt(2)), true));
        assert!(matches!(
            parse_iface("00000143-0000-0000-c000-000000000046"),
            Ok(AppValue::Iface {
                version: None,
                any_frag: false,
                ..
            })
        ));
        assert!(matches!(
            parse_iface("00000143-0000-0000-c000-000000000046,any_frag"),
            Ok(AppValue::Iface {
                version: None,
                any_frag: true,
                ..
            })
        ));
        for bad in [
            "",
            "1234",
            "e1af8308-5d1f-11c9-91a4-08002b14a0fz",
            "e1af8308-5d1f-11c9-91a4-08002b14a0fa,~3",
            "e1af8308-5d1f-11c9-91a4-08002b14a0fa,=1,=2",
            "e1af8308-5d1f-11c9-91a4-08002b14a0fa,=70000",
        ] {
            assert!(parse_iface(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn opnum_values_and_inclusive_ranges() {
        let AppValue::Ints(v) = parse_opnum("12,0-3, 20-22,>=28").unwrap() else {
            panic!("not ints")
        };
        let hits: Vec<u64> = (0..30)
            .filter(|n| v.iter().any(|c| c.matches(*n)))
            .collect();
        assert_eq!(hits, [0, 1, 2, 3, 12, 20, 21, 22, 28, 29]);
        for bad in ["", "x", "5-2", "1,,2", "70000"] {
            assert!(parse_opnum(bad).is_err(), "{bad}");
        }
    }
}
