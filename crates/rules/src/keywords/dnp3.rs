//! DNP3: `dnp3_func` (function code by number or name), `dnp3_ind` (internal
//! indications by name, any of them), `dnp3_obj` (object group and variation),
//! matched on each application fragment.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// DNP3.
const DNP3: &[AppProto] = &[AppProto::Dnp3];

/// DNP3 keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dnp3_func", Value::Required, Kind::Option, func)
        .protos(DNP3)
        // Suricata 7.0.10 takes the dotted name too (not in its keyword list).
        .aliases(&["dnp3.func"])
        .about(
            "match the DNP3 application function code",
            "rules/dnp3-keywords.html#dnp3-func",
        ),
    Keyword::new("dnp3_ind", Value::Required, Kind::Option, ind)
        .protos(DNP3)
        // Suricata 7.0.10 takes the dotted name too (not in its keyword list).
        .aliases(&["dnp3.ind"])
        .about(
            "match DNP3 internal indication flags (any of those named)",
            "rules/dnp3-keywords.html#dnp3-ind",
        ),
    Keyword::new("dnp3_obj", Value::Required, Kind::Option, obj)
        .protos(DNP3)
        // Suricata 7.0.10 takes the dotted name too (not in its keyword list).
        .aliases(&["dnp3.obj"])
        .about(
            "match a DNP3 object by group and variation",
            "rules/dnp3-keywords.html#dnp3-obj",
        ),
];

/// The `dnp3.data` buffer is declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// Function code names (IEEE 1815 table 4-1), as the keyword takes them.
pub const FUNCTIONS: &[(&str, u8)] = &[
    ("confirm", 0),
    ("read", 1),
    ("write", 2),
    ("select", 3),
    ("operate", 4),
    ("direct_operate", 5),
    ("direct_operate_nr", 6),
    ("immed_freeze", 7),
    ("immed_freeze_nr", 8),
    ("freeze_clear", 9),
    ("freeze_clear_nr", 10),
    ("freeze_at_time", 11),
    ("freeze_at_time_nr", 12),
    ("cold_restart", 13),
    ("warm_restart", 14),
    ("initialize_data", 15),
    ("initialize_appl", 16),
    ("start_appl", 17),
    ("stop_appl", 18),
    ("save_config", 19),
    ("enable_unsolicited", 20),
    ("disable_unsolicited", 21),
    ("assign_class", 22),
    ("delay_measure", 23),
    ("record_current_time", 24),
    ("open_file", 25),
    ("close_file", 26),
    ("delete_file", 27),
    ("get_file_info", 28),
    ("authenticate_file", 29),
    ("abort_file", 30),
    ("activate_config", 31),
    ("authenticate_req", 32),
    ("authenticate_err", 33),
    ("response", 129),
    ("unsolicited_response", 130),
    ("authenticate_resp", 131),
];

/// Internal indication names, bit 15 (IIN1 bit 7) first.
pub const INDICATIONS: [&str; 16] = [
    "device_restart",
    "device_trouble",
    "local_control",
    "need_time",
    "class_3_events",
    "class_2_events",
    "class_1_events",
    "all_stations",
    "reserved_1",
    "reserved_2",
    "config_corrupt",
    "already_executing",
    "event_buffer_overflow",
    "parameter_error",
    "object_unknown",
    "no_func_code_support",
];

/// A byte value (0 to 255).
fn byte(v: &str) -> Option<u64> {
    v.trim().parse::<u8>().ok().map(u64::from)
}

/// `dnp3_func:<number or name>`.
fn func(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let code = FUNCTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(v))
        .map(|(_, c)| u64::from(*c))
        .or_else(|| byte(v))
        .ok_or_else(|| format!("dnp3_func: invalid function code '{v}'"));
    let code = tryv!(st, c.o, c.kw, code);
    push_app(st, c, false, AppValue::Ints(vec![IntCmp::Eq(code)]));
}

/// `dnp3_ind:<name>{,<name>}`: any of the named indications set.
fn ind(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let bits = v.split(',').map(str::trim).try_fold(0u32, |acc, n| {
        INDICATIONS
            .iter()
            .position(|i| i.eq_ignore_ascii_case(n))
            // Suricata 7.0.10 takes the reserved names, `config_corrupt` and
            // `already_executing` but never matches them, whatever the indications
            // (IIN2 bits 4 to 7 set or not; checked with every bit set).
            .map(|p| {
                acc | if (8..=11).contains(&p) {
                    0
                } else {
                    0x8000 >> p
                }
            })
            .ok_or_else(|| format!("dnp3_ind: unknown indication '{n}'"))
    });
    let set = tryv!(st, c.o, c.kw, bits);
    push_app(
        st,
        c,
        false,
        AppValue::Bits {
            set,
            clear: 0,
            text: v.to_owned(),
        },
    );
}

/// `dnp3_obj:<group>,<variation>`.
fn obj(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let pair = v
        .split_once(',')
        .and_then(|(g, var)| Some((byte(g)?, byte(var)?)))
        .ok_or_else(|| format!("dnp3_obj: expected <group>,<variation>, got '{v}'"));
    let (g, var) = tryv!(st, c.o, c.kw, pair);
    push_app(
        st,
        c,
        false,
        AppValue::Ints(vec![IntCmp::Eq(g), IntCmp::Eq(var)]),
    );
}

#[cfg(test)]
mod tests {
    use crate::ast::{AppValue, IntCmp, Opt};

    fn app(rule: &str) -> Option<AppValue> {
        let r = crate::parse_rule(rule).ok()?;
        r.options.iter().find_map(|o| match o {
            Opt::App(a) => Some(a.value.clone()),
            _ => None,
        })
    }

    #[test]
    fn values() {
        let r = |o: &str| app(&format!("alert dnp3 any any -> any any ({o} sid:1;)"));
        assert_eq!(
            r("dnp3_func:direct_operate;"),
            Some(AppValue::Ints(vec![IntCmp::Eq(5)]))
        );
        assert_eq!(
            r("dnp3_func:129;"),
            Some(AppValue::Ints(vec![IntCmp::Eq(129)]))
        );
        assert_eq!(r("dnp3_func:nope;"), None);
        // The dotted names Suricata 7.0.10 also takes.
        assert_eq!(
            r("dnp3.func:read;"),
            Some(AppValue::Ints(vec![IntCmp::Eq(1)]))
        );
        assert!(r("dnp3.ind:need_time;").is_some());
        assert_eq!(
            r("dnp3.obj:60,1;"),
            Some(AppValue::Ints(vec![IntCmp::Eq(60), IntCmp::Eq(1)]))
        );
        assert_eq!(r("dnp3_func:256;"), None);
        match r("dnp3_ind:device_restart,class_1_events;") {
            Some(AppValue::Bits { set, .. }) => assert_eq!(set, 0x8000 | 0x0200),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            r("dnp3_ind:no_func_code_support;").map(|v| matches!(v, AppValue::Bits { set: 1, .. })),
            Some(true)
        );
        assert_eq!(r("dnp3_ind:bogus;"), None);
        // The reserved bits, config_corrupt and already_executing name nothing
        // Suricata matches.
        match r("dnp3_ind:reserved_1,reserved_2,config_corrupt,already_executing;") {
            Some(AppValue::Bits { set, .. }) => assert_eq!(set, 0),
            other => panic!("{other:?}"),
        }
        match r("dnp3_ind:already_executing,event_buffer_overflow;") {
            Some(AppValue::Bits { set, .. }) => assert_eq!(set, 0x0008),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            r("dnp3_obj:12,1;"),
            Some(AppValue::Ints(vec![IntCmp::Eq(12), IntCmp::Eq(1)]))
        );
        assert_eq!(r("dnp3_obj:12;"), None);
        assert_eq!(r("dnp3_obj:300,1;"), None);
    }
}
