//! DNS: `dns.query` and `dns.opcode`.

use super::{verbatim, Keyword, Stickies};
use crate::ast::AppProto;
use crate::buffers::Buffer;

/// DNS.
const DNS: &[AppProto] = &[AppProto::Dns];

/// DNS keywords.
pub(super) const KEYWORDS: &[Keyword] = &[verbatim("dns.opcode").protos(DNS).about(
    "match the DNS header opcode",
    "rules/dns-keywords.html#dns-opcode",
)];

/// DNS buffers.
pub(super) const STICKY: Stickies = &[(&[Buffer::DnsQuery], DNS)];
