//! When a body is first inspected: the minimal inspect sizes under
//! `http-body-inline` (IPS mode by default), for plain and decompressed bodies.

use crate::AppCtx;

/// The minimal inspect size a new message's body waits for: none under
/// `http-body-inline` (IPS mode by default), where a body is inspected as it comes.
pub(super) fn min_inspect(ctx: &AppCtx, configured: usize) -> usize {
    if ctx.config.http_body_inline {
        0
    } else {
        configured
    }
}

/// libhtp hands decompressed body bytes on in blocks of this size (and the rest when
/// the body ends).
const DECOMPRESSED_BLOCK: usize = 8192;

/// The minimal inspect size of a body that is decompressed: under `http-body-inline`
/// it is not inspected before a whole decompressed block is out, or its end (difftest
/// `http/gzip`, `http/deflate` in IPS mode: Suricata 7.0.10 alerts at the body's end).
pub(super) fn decoded_min_inspect(ctx: &AppCtx, current: usize) -> usize {
    if ctx.config.http_body_inline {
        DECOMPRESSED_BLOCK
    } else {
        current
    }
}
