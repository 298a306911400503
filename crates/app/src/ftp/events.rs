//! FTP's application-layer events with Suricata's names (`app-layer-event:ftp.<name>`,
//! `rules/ftp-events.rules`). [`raise`] records one in the flow's set and queues the
//! occurrence for the EVE anomaly log.

use crate::{AppCtx, AppProto, Events};

/// FTP's events, in table order (the indices below).
pub(crate) static EVENTS: &[&str] = &[
    "ftp.request_command_too_long",
    "ftp.response_command_too_long",
];

/// A client line longer than the line limit.
pub(crate) const REQUEST_COMMAND_TOO_LONG: usize = 0;
/// A server line longer than the line limit.
pub(crate) const RESPONSE_COMMAND_TOO_LONG: usize = 1;

/// Raises event `i` on transaction `tx`: in the flow's set (for rules) and as one
/// occurrence (for the EVE anomaly log).
pub(crate) fn raise(events: &mut Events, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
    events.raise(i);
    ctx.anomalies.parser(AppProto::Ftp, EVENTS[i], tx);
}
