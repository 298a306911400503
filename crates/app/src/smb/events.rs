//! SMB's application-layer events with Suricata 7's names (`app-layer-event:smb.<name>`;
//! `anomaly.event` in upper case). [`raise`] records one on its transaction and in the
//! flow's set, and queues the occurrence for the EVE anomaly log.

use super::state::SmbState;
use crate::{AppCtx, AppProto};

/// SMB's events, in table order (the indices below).
pub(crate) static EVENTS: &[&str] = &[
    "smb.internal_error",
    "smb.malformed_data",
    "smb.malformed_ntlmssp_request",
    "smb.negotiate_malformed_dialects",
    "smb.file_overlap",
    "smb.response_to_server",
    "smb.request_to_client",
    "smb.read_request_too_large",
    "smb.read_response_too_large",
    "smb.write_request_too_large",
    "smb.negotiate_max_read_size_too_large",
    "smb.negotiate_max_write_size_too_large",
    "smb.write_queue_size_exceeded",
    "smb.write_queue_cnt_exceeded",
    "smb.read_queue_size_exceeded",
    "smb.read_queue_cnt_exceeded",
    "smb.too_many_transactions",
];

/// A message that does not parse (a bad header, a body too short for its command).
pub(crate) const MALFORMED_DATA: usize = 1;
/// A session setup whose NTLMSSP message does not parse.
pub(crate) const MALFORMED_NTLMSSP_REQUEST: usize = 2;
/// A negotiation offering no dialect.
pub(crate) const NEGOTIATE_MALFORMED_DIALECTS: usize = 3;
/// File data at an offset already received.
pub(crate) const FILE_OVERLAP: usize = 4;
/// A response travelling to the server.
pub(crate) const RESPONSE_TO_SERVER: usize = 5;
/// A request travelling to the client.
pub(crate) const REQUEST_TO_CLIENT: usize = 6;
/// A read response larger than the parser keeps.
pub(crate) const READ_RESPONSE_TOO_LARGE: usize = 8;
/// A write request larger than the parser keeps.
pub(crate) const WRITE_REQUEST_TOO_LARGE: usize = 9;
/// Transactions were dropped because the flow held too many.
pub(crate) const TOO_MANY_TRANSACTIONS: usize = 16;

/// Raises event `i` on transaction `tx` (`None`: the event of a message that opened
/// none, kept by the flow's newest transaction): on that transaction (which
/// `app-layer-event` rules inspect, as Suricata 7.0.10 keeps SMB's events per
/// transaction: sv-ether's malformed responses alert on one transaction each way, not
/// on every later one), in the flow's set and as one occurrence (for the EVE anomaly
/// log, with the transaction's id).
pub(crate) fn raise(st: &mut SmbState, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
    st.events.raise(i);
    let on = match tx {
        Some(id) => st.tx_mut(id),
        None => st.txs.back_mut(),
    };
    let id = on.map(|t| {
        t.events.raise(i);
        t.id
    });
    ctx.anomalies.parser(AppProto::Smb, EVENTS[i], id.or(tx));
}
