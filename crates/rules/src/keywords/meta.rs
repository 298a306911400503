//! Rule metadata: `msg`, `sid`, `rev`, `gid`, `classtype`, `priority`, `reference`,
//! `metadata`, `target`.

use super::{Ctx, Keyword, Kind, Value};
use crate::ast::{Reference, Target};
use crate::diag::Reason;
use crate::lexer;
use crate::parser::state::{quoted, State};
use crate::values as v;

/// Metadata keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("msg", Value::Quoted, Kind::Meta, msg)
        .once()
        .own_check()
        .about("text of the alert", "rules/meta.html#msg-message"),
    Keyword::new("sid", Value::Required, Kind::Meta, sid)
        .once()
        .about(
            "the rule's signature id",
            "rules/meta.html#sid-signature-id",
        ),
    Keyword::new("rev", Value::Required, Kind::Meta, rev)
        .once()
        .about("the rule's revision number", "rules/meta.html#rev-revision"),
    Keyword::new("gid", Value::Required, Kind::Meta, gid).about(
        "the rule's generator id (1 unless set)",
        "rules/meta.html#gid-group-id",
    ),
    Keyword::new("classtype", Value::Required, Kind::Meta, classtype).about(
        "class of the alert, from classification.config (sets a default priority)",
        "rules/meta.html#classtype",
    ),
    Keyword::new("priority", Value::Required, Kind::Meta, priority).about(
        "alert priority (1 is the highest), overriding the classtype",
        "rules/meta.html#priority",
    ),
    Keyword::new("reference", Value::Required, Kind::Meta, reference).about(
        "link to a description of the threat (type,id from reference.config)",
        "rules/meta.html#reference",
    ),
    Keyword::new("metadata", Value::Required, Kind::Meta, metadata).about(
        "free key-value pairs copied into the alert",
        "rules/meta.html#metadata",
    ),
    Keyword::new("target", Value::Required, Kind::Meta, target).about(
        "which side of the alert is the target (src_ip or dest_ip)",
        "rules/meta.html#target",
    ),
];

fn msg(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    if st.seen_msg {
        st.err(o.name_off, Reason::Semantic, kw, "msg given twice");
    }
    st.seen_msg = true;
    if let Some(s) = quoted(st, o, kw) {
        st.meta.msg = Some(lexer::unescape_text(s).into_owned());
    }
}

fn sid(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    if st.seen_sid {
        st.err(o.name_off, Reason::Semantic, kw, "sid given twice");
    }
    st.seen_sid = true;
    let n = tryv!(st, o, kw, v::uint(val.trim_matches('"'), u32::MAX as u64));
    if n == 0 {
        st.err(off, Reason::InvalidValue, kw, "sid 0 is invalid");
    }
    st.meta.sid = n as u32;
}

fn rev(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    if st.seen_rev {
        st.err(o.name_off, Reason::Semantic, kw, "rev given twice");
    }
    st.seen_rev = true;
    st.meta.rev = tryv!(st, o, kw, v::uint(val.trim_matches('"'), u32::MAX as u64)) as u32;
}

/// `gid:N`: decimal digits only, below 4294967295 (Suricata 7.0.10 refuses `0x10` and
/// 4294967295); given twice, the last one holds (as Suricata takes it).
fn gid(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val.trim_matches('"').trim();
    st.seen_gid = true;
    if val.is_empty() || !val.bytes().all(|b| b.is_ascii_digit()) {
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            format!("bad gid '{val}'"),
        );
        return;
    }
    st.meta.gid = tryv!(st, o, kw, v::uint(val, u64::from(u32::MAX) - 1)) as u32;
}

fn classtype(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    // Given twice, the last one holds (Suricata 7.0.10 warns and uses it).
    st.seen_classtype = true;
    if !val
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("bad classtype name '{val}'"),
        );
        return;
    }
    st.meta.classtype = Some(val.to_owned());
}

/// `priority:N`: decimal digits (Suricata 7.0.10 takes 0 and values past 255, refuses a
/// sign, hexadecimal and trailing letters); given twice, the last one holds.
fn priority(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val.trim();
    let off = c.o.value_off;
    if val.is_empty() || !val.bytes().all(|b| b.is_ascii_digit()) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("bad priority '{val}'"),
        );
        return;
    }
    let p = val.parse::<u64>().unwrap_or(u64::MAX);
    st.meta.priority = Some(p.min(u64::from(u32::MAX)) as u32);
}

fn reference(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let Some((sys, id)) = val.split_once(',') else {
        st.err(off, Reason::InvalidValue, kw, "reference needs system,id");
        return;
    };
    let (sys, id) = (sys.trim(), id.trim());
    if sys.is_empty() || id.is_empty() {
        st.err(off, Reason::InvalidValue, kw, "reference needs system,id");
        return;
    }
    let id = lexer::strip_quotes(id).unwrap_or(id);
    st.meta.references.push(Reference {
        system: sys.to_ascii_lowercase(),
        id: id.to_owned(),
    });
}

fn metadata(st: &mut State, c: &Ctx<'_>) {
    let val = c.val;
    for item in val.split(',') {
        let item = item.trim();
        if !item.is_empty() {
            st.meta.metadata.push(item.to_owned());
        }
    }
}

fn target(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let t = match val {
        "src_ip" => Target::SrcIp,
        "dest_ip" => Target::DestIp,
        _ => {
            st.err(
                off,
                Reason::InvalidValue,
                kw,
                "target must be src_ip or dest_ip",
            );
            return;
        }
    };
    // Twice: the same side again is taken, the other side is refused (as Suricata 7.0.10
    // does).
    if st.meta.target.is_some_and(|old| old != t) {
        st.err(off, Reason::Semantic, kw, "conflicting target values");
        return;
    }
    st.meta.target = Some(t);
}

#[cfg(test)]
mod tests {
    fn loads(opts: &str) -> bool {
        crate::parse_rule(&format!(
            "alert udp any any -> any any (msg:\"m\"; {opts} sid:1;)"
        ))
        .is_ok()
    }

    /// Values found by the differential harness's `meta` family (Suricata 7.0.10's
    /// answers on the same rules).
    #[test]
    fn meta_values_load_as_suricata_loads_them() {
        assert!(loads("gid:4294967294;"));
        assert!(!loads("gid:4294967295;"));
        assert!(!loads("gid:0x10;"));
        assert!(loads("gid:1; gid:2;"));
        assert!(loads("priority:0;"));
        assert!(loads("priority:256;"));
        assert!(loads("priority:2147483648;"));
        assert!(!loads("priority:+5;"));
        assert!(!loads("priority:0x10;"));
        assert!(!loads("priority:-1;"));
        assert!(loads("classtype:bad-unknown; classtype:trojan-activity;"));
        assert!(loads("target:src_ip; target:src_ip;"));
        assert!(!loads("target:src_ip; target:dest_ip;"));
    }
}
