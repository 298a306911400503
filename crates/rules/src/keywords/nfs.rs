//! NFS: `nfs_procedure` and `nfs.version`, unsigned comparisons matched on an NFS
//! transaction (its procedure number, its protocol version).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// NFS.
const NFS: &[AppProto] = &[AppProto::Nfs];

/// NFS keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("nfs_procedure", Value::Required, Kind::Option, procedure)
        .protos(NFS)
        .once()
        .about(
            "match the NFS procedure number",
            "rules/nfs-keywords.html#procedure",
        ),
    Keyword::new("nfs.version", Value::Required, Kind::Option, version)
        .protos(NFS)
        .once()
        .about("compare the NFS version", "rules/nfs-keywords.html#version"),
];

/// NFS buffers: none.
pub(super) const STICKY: Stickies = &[];

/// `nfs_procedure:N`, `<N`, `>=N`, `A-B`, `!N` ...: a 32-bit comparison in Suricata's
/// unsigned syntax (one that holds for every value or none, `>=0`, is refused).
fn procedure(st: &mut State, c: &Ctx<'_>) {
    cmp(st, c, "nfs_procedure")
}

/// `nfs.version:N` (and the other comparisons): a 32-bit comparison.
fn version(st: &mut State, c: &Ctx<'_>) {
    cmp(st, c, "nfs.version")
}

fn cmp(st: &mut State, c: &Ctx<'_>, name: &str) {
    let v = c.o.value.unwrap_or("");
    let n = tryv!(
        st,
        c.o,
        c.kw,
        nfs_uint(v).map_err(|e| format!("{name}: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![n]));
}

/// Suricata 7.0.10 reads these two keywords with its inclusive integer parser: a range
/// `A-B` (or `A<>B`) holds A and B too (`4-6` matches ACCESS), needs A below B, A above
/// 0 and B below the 32-bit maximum (`1-2` is taken, `1-1`, `0-2` and `5-4294967295`
/// are refused); every other form reads as [`crate::values::suricata_uint`] does
/// (checked with `suricata -T` and on hand-made flows: tests/parity/difftest/fixed/
/// dt-205-nfs-*). The range is kept as the exclusive one holding the same values.
fn nfs_uint(v: &str) -> Result<IntCmp, String> {
    let max = u64::from(u32::MAX);
    let t = v.trim();
    let plain = t
        .bytes()
        .all(|b| b.is_ascii_digit() || b" \t<>-".contains(&b));
    let range = match crate::values::int_cmp(t, max) {
        Ok(IntCmp::Range(a, b)) if plain => Some((a, b)),
        _ => None,
    };
    match range {
        Some((a, b)) if a == 0 || b >= max || a >= b => {
            Err(format!("'{t}': an inclusive range Suricata refuses"))
        }
        Some((a, b)) => Ok(IntCmp::Range(a - 1, b + 1)),
        None => crate::values::suricata_uint(v, max),
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::IntCmp;

    #[test]
    fn comparisons_that_always_or_never_hold_are_refused() {
        let ok = |o: &str| crate::parse_rule(&format!("alert nfs any any -> any any ({o} sid:1;)"));
        assert!(ok("nfs_procedure:>=1;").is_ok());
        assert!(ok("nfs_procedure:1-3;").is_ok());
        assert!(ok("nfs.version:<4;").is_ok());
        assert!(ok("nfs_procedure:>=0;").is_err());
        assert!(ok("nfs_procedure:<0;").is_err());
        assert!(ok("nfs.version:<=4294967295;").is_err());
        assert!(ok("nfs_procedure:4294967296;").is_err());
    }

    #[test]
    fn ranges_are_inclusive_as_suricata_reads_them() {
        let parse =
            |o: &str| crate::parse_rule(&format!("alert nfs any any -> any any ({o} sid:1;)"));
        let range = |o: &str| {
            let r = parse(o).ok()?;
            r.options.iter().find_map(|x| match x {
                crate::ast::Opt::App(a) => match &a.value {
                    crate::ast::AppValue::Ints(v) => v.first().copied(),
                    _ => None,
                },
                _ => None,
            })
        };
        // Held as the exclusive range of the same values.
        assert_eq!(range("nfs_procedure:4-6;"), Some(IntCmp::Range(3, 7)));
        assert_eq!(range("nfs.version:1-2;"), Some(IntCmp::Range(0, 3)));
        assert_eq!(range("nfs_procedure:3<>5;"), Some(IntCmp::Range(2, 6)));
        assert_eq!(range("nfs_procedure:<4;"), Some(IntCmp::Lt(4)));
        // As `suricata -T` answers.
        for bad in [
            "0-2",
            "1-1",
            "2-1",
            "0-0",
            "1-4294967295",
            "4294967294-4294967295",
            "!1-3",
            "=1-3",
            "0x1-3",
        ] {
            assert!(parse(&format!("nfs_procedure:{bad};")).is_err(), "{bad}");
        }
        assert!(parse("nfs_procedure:5-4294967294;").is_ok());
    }
}
