//! The DCERPC keywords evaluated on a call ([`check`]) and the `dcerpc.stub_data`
//! buffer ([`stub_data`]), shared by DCERPC over TCP/UDP and SMB named pipes.

use rules::{AppOpt, AppValue};

use super::parser::ptype;
use super::state::DceTx;
use crate::Direction;

/// Evaluates `dcerpc.iface` and `dcerpc.opnum` (`opt.name`, aliases resolved by the
/// rule parser) on `tx`, `opt.negated` included; other keywords do not match.
///
/// - `dcerpc.iface`: the request's context is bound to the interface (UUID equal, the
///   server accepted it, the major version passes the comparison, if any); without
///   `any_frag` the request's first fragment must have been seen.
/// - `dcerpc.opnum`: the request's operation number passes one of the comparisons.
pub fn check(tx: &DceTx, opt: &AppOpt, _dir: Direction) -> bool {
    let hit = match (&opt.value, opt.name) {
        (
            AppValue::Iface {
                uuid,
                version,
                any_frag,
            },
            "dcerpc.iface",
        ) => tx.iface.is_some_and(|i| {
            i.accepted()
                && i.uuid == *uuid
                && version.is_none_or(|v| v.matches(u64::from(i.version)))
                && (*any_frag || tx.req.first)
        }),
        (AppValue::Ints(v), "dcerpc.opnum") => tx.opnum.is_some_and(|op| {
            tx.request.is_none_or(|t| t == ptype::REQUEST)
                && v.iter().any(|c| c.matches(u64::from(op)))
        }),
        _ => return false,
    };
    hit != opt.negated
}

/// The `dcerpc.stub_data` buffer of `tx` as seen in `dir`: the request's reassembled
/// stub to the server, the response's to the client; `None` when that side has none.
pub fn stub_data(tx: &DceTx, dir: Direction) -> Option<&[u8]> {
    let (t, f) = match dir {
        Direction::ToServer => (tx.request, &tx.req),
        Direction::ToClient => (tx.response, &tx.res),
    };
    let carries = matches!(t, Some(ptype::REQUEST | ptype::RESPONSE));
    (carries && f.count > 0).then_some(f.stub.as_slice())
}
