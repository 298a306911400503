//! NFS: `nfs_procedure` and `nfs.version`, unsigned comparisons matched on an NFS
//! transaction (its procedure number, its protocol version).

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue};
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
        crate::values::suricata_uint(v, u64::from(u32::MAX)).map_err(|e| format!("{name}: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![n]));
}

#[cfg(test)]
mod tests {
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
}
