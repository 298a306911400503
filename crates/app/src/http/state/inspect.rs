//! When a decompressed body is first inspected under `http-body-inline` (IPS mode by
//! default; plain bodies: `Config::min_inspect`).

use crate::AppCtx;

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
