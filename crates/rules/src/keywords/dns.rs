//! DNS: `dns.query` and `dns.opcode`.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;

/// DNS.
const DNS: &[AppProto] = &[AppProto::Dns];

/// DNS keywords.
pub(super) const KEYWORDS: &[Keyword] =
    &[
        Keyword::new("dns.opcode", Value::Required, Kind::Option, opcode)
            .protos(DNS)
            .once()
            .about(
                "match the DNS header opcode",
                "rules/dns-keywords.html#dns-opcode",
            ),
    ];

/// `dns.opcode:[!]N`, N from 0 to 15 (the header's 4-bit field).
fn opcode(st: &mut State, c: &Ctx<'_>) {
    let v = c.o.value.unwrap_or("").trim();
    let (negated, n) = match v.strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, v),
    };
    let op = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::uint(n, 15).map_err(|e| format!("dns.opcode: {e}"))
    );
    push_app(st, c, negated, AppValue::Ints(vec![IntCmp::Eq(op)]));
}

/// DNS buffers.
pub(super) const STICKY: Stickies = &[(&[Buffer::DnsQuery], DNS)];
