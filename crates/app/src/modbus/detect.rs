//! The `modbus` keyword against a request: unit, function code and sub-function,
//! function category, access type and table, the addresses accessed (numbered from 1)
//! and the value written at an address.

use rules::{IntCmp, ModbusMatch, ModbusWhat};
use sawp_modbus::{Data, Message, Write};

/// Whether request `m` satisfies the keyword's value `k`.
pub fn matches(k: &ModbusMatch, m: &Message) -> bool {
    if k.unit
        .is_some_and(|u| !value_matches(u, u64::from(m.unit_id)))
    {
        return false;
    }
    match &k.what {
        ModbusWhat::Any => true,
        ModbusWhat::Function { code, subfunction } => {
            m.function.raw == *code
                && subfunction.is_none_or(
                    |s| matches!(&m.data, Data::Diagnostic { func, .. } if func.raw == s),
                )
        }
        // `!category` is every other category, as Suricata 7.0.10 reads it: a function
        // in no category (0, or 128 and up) matches neither `X` nor `!X`.
        ModbusWhat::Category { negated, bits } => {
            let want = if *negated { 0x0F & !bits } else { *bits };
            m.category.bits() & want != 0
        }
        ModbusWhat::Access {
            bits,
            address,
            value,
        } => {
            if m.access_type.bits() & bits != *bits {
                return false;
            }
            let Some(address) = address else {
                return true;
            };
            let Some((lo, hi)) = address_range(m) else {
                return false;
            };
            if !overlaps(*address, lo, hi) {
                return false;
            }
            let Some(value) = value else {
                return true;
            };
            // A value goes with one address (the rule parser makes sure).
            let IntCmp::Eq(at) = address else {
                return false;
            };
            u16::try_from(*at)
                .ok()
                .and_then(|a| write_value_at(m, a))
                .is_some_and(|w| value_matches(*value, u64::from(w)))
        }
    }
}

/// The address of a single write (coil, register, mask) whose 1-based number wraps:
/// PDU address 65535 is number 0 in Suricata's (release-built) sawp-modbus, whose
/// `get_address_range` adds 1 to a `u16` (it panics where overflow checks are on, so
/// Osprey does not call it then).
fn wrapping_single(m: &Message) -> Option<u16> {
    match &m.data {
        Data::Write(Write::Other { address, .. }) | Data::Write(Write::Mask { address, .. })
            if *address == u16::MAX =>
        {
            Some(*address)
        }
        _ => None,
    }
}

/// The 1-based addresses request `m` accesses, first and last.
fn address_range(m: &Message) -> Option<(u64, u64)> {
    if wrapping_single(m).is_some() {
        return Some((0, 0));
    }
    m.get_address_range()
        .map(|r| (u64::from(*r.start()), u64::from(*r.end())))
}

/// The value request `m` writes at 1-based address `a`.
fn write_value_at(m: &Message, a: u16) -> Option<u16> {
    if wrapping_single(m).is_some() {
        let Data::Write(Write::Other { data, .. }) = &m.data else {
            return None;
        };
        let coils = m.access_type.contains(sawp_modbus::AccessType::COILS);
        return (a == 0).then_some(if coils { u16::from(*data != 0) } else { *data });
    }
    m.get_write_value_at_address(a)
}

/// The bounds Suricata 7.0.10 keeps for a unit, address or value condition: `N` is
/// `N..N`, `<N` is `0..N`, `>N` is `N..65535`, `A<>B` is `A..B`. Its comparisons then
/// test the bounds, not the operator, so a bound at 0 or 65535 changes the meaning:
/// `<0` is `0`, `>0` takes 0 and everything below 65535, `0<>2` takes 0 and 1,
/// `A<>65535` takes 65535 (checked by running Suricata on hand-made requests).
fn bounds(c: IntCmp) -> Option<(u64, u64)> {
    match c {
        IntCmp::Eq(n) => Some((n, n)),
        IntCmp::Lt(n) => Some((0, n)),
        IntCmp::Gt(n) => Some((n, U16_MAX)),
        IntCmp::Range(a, b) => Some((a, b)),
        _ => None,
    }
}

/// The top of Suricata's bounds.
const U16_MAX: u64 = u16::MAX as u64;

/// Whether a unit or written value `v` satisfies `c`, as Suricata compares them.
fn value_matches(c: IntCmp, v: u64) -> bool {
    match bounds(c) {
        Some((s, e)) if s == e => v == s,
        Some((0, e)) => e > v,
        Some((s, U16_MAX)) => s < v,
        Some((s, e)) => s < v && v < e,
        None => c.matches(v),
    }
}

/// Whether the addresses from `lo` to `hi` satisfy `c`, as Suricata compares them.
fn overlaps(c: IntCmp, lo: u64, hi: u64) -> bool {
    match bounds(c) {
        Some((s, e)) if s == e => (lo..=hi).contains(&s),
        Some((0, e)) => e > lo,
        Some((s, U16_MAX)) => s < hi,
        Some((s, e)) => s < hi && lo < e,
        None => (lo..=hi).any(|x| c.matches(x)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawp::parser::{Direction, Parse};

    fn request(bytes: &[u8]) -> Message {
        let p = sawp_modbus::Modbus::default();
        p.parse(bytes, Direction::ToServer).unwrap().1.unwrap()
    }

    fn kw(v: &str) -> ModbusMatch {
        let r = format!("alert modbus any any -> any any (modbus: {v}; sid:1;)");
        let rule = rules::parse_rule(&r).expect("rule parses");
        rule.options
            .iter()
            .find_map(|o| match o {
                rules::Opt::App(a) => match &a.value {
                    rules::AppValue::Modbus(m) => Some(m.clone()),
                    _ => None,
                },
                _ => None,
            })
            .expect("a modbus option")
    }

    #[test]
    fn keyword_against_requests() {
        // Read Holding Registers 0..9 (addresses 1 to 10), unit 1.
        let rd = request(&[0, 1, 0, 0, 0, 6, 1, 3, 0, 0, 0, 10]);
        // Write Multiple Registers 10..11 (addresses 11, 12) = 0xabcd, 1.
        let wr = request(&[0, 3, 0, 0, 0, 11, 1, 16, 0, 10, 0, 2, 4, 0xab, 0xcd, 0, 1]);
        // Diagnostics, Return Query Data, unit 2.
        let diag = request(&[0, 5, 0, 0, 0, 6, 2, 8, 0, 0, 0xa5, 0x37]);
        let yes = |v: &str, m: &Message| assert!(matches(&kw(v), m), "{v}");
        let no = |v: &str, m: &Message| assert!(!matches(&kw(v), m), "{v}");
        yes("function 3", &rd);
        no("function 4", &rd);
        yes("function 8, subfunction 0", &diag);
        no("function 8, subfunction 1", &diag);
        yes("function assigned", &rd);
        yes("function !reserved", &rd);
        no("function user", &rd);
        yes("unit 2", &diag);
        no("unit 2, function 3", &rd);
        yes("unit <2, function public", &rd);
        yes("access read holding", &rd);
        no("access read coils", &rd);
        no("access write", &rd);
        yes("access read holding, address <5", &rd);
        yes("access read holding, address 10", &rd);
        no("access read holding, address 11", &rd);
        no("access read holding, address 10<>20", &rd);
        yes("access read holding, address 9<>20", &rd);
        yes("access write holding, address 12, value 1", &wr);
        yes("access write holding, address 11, value >40000", &wr);
        no("access write holding, address 12, value 2", &wr);
        no("access write holding, address 13, value 1", &wr);
        no("access read", &diag);
    }

    #[test]
    fn bounds_at_zero_and_65535_as_suricata() {
        // Units 0, 1, 2 and 255 reading holding register 1.
        let unit = |u: u8| request(&[0, 1, 0, 0, 0, 6, u, 3, 0, 0, 0, 1]);
        let units = |v: &str| -> Vec<u8> {
            [0u8, 1, 2, 255]
                .into_iter()
                .filter(|&u| matches(&kw(v), &unit(u)))
                .collect()
        };
        assert_eq!(units("unit <0"), [0]);
        assert_eq!(units("unit >0"), [0, 1, 2, 255]);
        assert_eq!(units("unit 0<>2"), [0, 1]);
        assert_eq!(units("unit 1<>3"), [2]);
        assert_eq!(units("unit 0<>255"), [0, 1, 2]);
        assert_eq!(units("unit 2<>65535"), [255]);
        assert_eq!(units("unit <2"), [0, 1]);
        assert_eq!(units("unit >254"), [255]);
        // Values: `>0` misses 65535, `A<>65535` takes it.
        let reg = |v: u8| request(&[0, 1, 0, 0, 0, 6, 1, 6, 0, 0, v, v]);
        assert!(matches(
            &kw("access write holding, address 1, value >0"),
            &reg(0)
        ));
        assert!(!matches(
            &kw("access write holding, address 1, value >0"),
            &reg(0xff)
        ));
        assert!(matches(
            &kw("access write holding, address 1, value 1<>65535"),
            &reg(0xff)
        ));
        assert!(matches(
            &kw("access write holding, address 1, value <0"),
            &reg(0)
        ));
        // Addresses 1 to 10: `0<>1` misses, `0<>2` and `9<>65535` take them.
        let rd = request(&[0, 1, 0, 0, 0, 6, 1, 3, 0, 0, 0, 10]);
        assert!(!matches(&kw("access read holding, address 0<>1"), &rd));
        assert!(matches(&kw("access read holding, address 0<>2"), &rd));
        assert!(matches(&kw("access read holding, address 9<>65535"), &rd));
        assert!(!matches(&kw("access read holding, address 10<>65535"), &rd));
        assert!(!matches(&kw("access read holding, address <0"), &rd));
        // Function 0 is in no category: `!unassigned` misses it.
        let f0 = request(&[0, 2, 0, 0, 0, 6, 0xf7, 0, 0x6b, 0x65, 0x30, 0x36]);
        assert!(!matches(&kw("function !unassigned"), &f0));
        assert!(!matches(&kw("function unassigned"), &f0));
        assert!(matches(&kw("function !unassigned"), &rd));
        // Equal bounds are one address; backwards ones go through the same tests
        // (addresses 1 to 10 overlap `3<>2` for Suricata: 3 < 10 and 1 < 2).
        assert!(matches(&kw("access read holding, address 10<>10"), &rd));
        assert!(matches(&kw("access read holding, address 3<>2"), &rd));
        assert!(matches(&kw("unit 1<>1"), &rd));
        assert!(!matches(&kw("unit 2<>1"), &rd));
    }

    #[test]
    fn a_single_write_at_the_last_address_wraps_to_zero_without_panicking() {
        // Write Single Register at PDU address 65535 = 7; Write Single Coil there, on.
        let reg = request(&[0, 1, 0, 0, 0, 6, 1, 6, 0xff, 0xff, 0, 7]);
        let coil = request(&[0, 2, 0, 0, 0, 6, 1, 5, 0xff, 0xff, 0xff, 0]);
        let yes = |v: &str, m: &Message| assert!(matches(&kw(v), m), "{v}");
        let no = |v: &str, m: &Message| assert!(!matches(&kw(v), m), "{v}");
        yes("access write holding, address 0", &reg);
        no("access write holding, address 65535", &reg);
        yes("access write holding, address 0, value 7", &reg);
        no("access write holding, address 0, value 8", &reg);
        yes("access write coils, address 0, value 1", &coil);
        // The same write one address lower keeps its 1-based number.
        let low = request(&[0, 1, 0, 0, 0, 6, 1, 6, 0xff, 0xfe, 0, 7]);
        yes("access write holding, address 65535, value 7", &low);
    }
}
