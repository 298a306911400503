//! SMTP's application-layer events with Suricata's names (`app-layer-event:smtp.<name>`;
//! `anomaly.event` in upper case). [`raise`] records one in the flow's set and queues
//! the occurrence for the EVE anomaly log.

use crate::{AppCtx, AppProto, Events};

/// SMTP's events, in table order (the indices below).
pub(crate) static EVENTS: &[&str] = &[
    "smtp.invalid_reply",
    "smtp.unable_to_match_reply_with_request",
    "smtp.max_command_line_len_exceeded",
    "smtp.max_reply_line_len_exceeded",
    "smtp.invalid_pipelined_sequence",
    "smtp.bdat_chunk_len_exceeded",
    "smtp.no_server_welcome_message",
    "smtp.tls_rejected",
    "smtp.data_command_rejected",
    "smtp.truncated_line",
    "smtp.duplicate_fields",
    "smtp.mime_parse_failed",
    "smtp.mime_malformed_msg",
    "smtp.mime_invalid_base64",
    "smtp.mime_invalid_qp",
    "smtp.mime_long_line",
    "smtp.mime_long_enc_line",
    "smtp.mime_long_header_name",
    "smtp.mime_long_header_value",
    "smtp.mime_long_boundary",
    "smtp.mime_long_filename",
    "smtp.unparsable_content",
    "smtp.failed_protocol_change",
];

/// A server line that is not a reply (no 3-digit code), or a first reply that is
/// no welcome (not 220).
pub(crate) const INVALID_REPLY: usize = 0;
// 1 (`smtp.unable_to_match_reply_with_request`): Suricata 7 raises none for a reply
// that answers no command (none on sv-ether.pcap), nor does this.
// 2, 3 and 4 (`smtp.max_command_line_len_exceeded`, `max_reply_line_len_exceeded`,
// `invalid_pipelined_sequence`) are known to rules but not raised: Suricata 7.0.10
// raises no line-length event but `truncated_line` on sv-ether.pcap (a 4,096-byte
// `EHLO` gives only that), so lines are only cut at the line limit.
/// A `BDAT` chunk that ends inside a line (its length cuts the line).
pub(crate) const BDAT_CHUNK_LEN_EXCEEDED: usize = 5;
/// The server's first reply is not its 220 greeting.
pub(crate) const NO_SERVER_WELCOME_MESSAGE: usize = 6;
/// `STARTTLS` answered with something other than 220.
pub(crate) const TLS_REJECTED: usize = 7;
/// `DATA` answered with something other than 354.
pub(crate) const DATA_COMMAND_REJECTED: usize = 8;
/// A line longer than the line limit (its end is dropped).
pub(crate) const TRUNCATED_LINE: usize = 9;
/// A second `MAIL FROM` in one transaction.
pub(crate) const DUPLICATE_FIELDS: usize = 10;

/// The MIME structure could not be followed (a boundary too long).
pub(crate) const MIME_PARSE_FAILED: usize = 11;
/// A message that ended with a multipart entity still open.
pub(crate) const MIME_MALFORMED_MSG: usize = 12;
// 17 and 18 (`mime_long_header_name`,
// `mime_long_header_value`) are known to rules but not raised: no message of
// sv-ether.pcap raises them in Suricata 7.0.10, so when it does is not known here;
// header values are cut at `header-value-depth` without an event.
/// A base64 body with a byte outside the alphabet.
pub(crate) const MIME_INVALID_BASE64: usize = 13;
/// A quoted-printable `=` not followed by two hex digits.
pub(crate) const MIME_INVALID_QP: usize = 14;
/// A message line longer than 998 bytes.
pub(crate) const MIME_LONG_LINE: usize = 15;
/// An encoded (base64, quoted-printable) line longer than 76 bytes.
pub(crate) const MIME_LONG_ENC_LINE: usize = 16;
/// A multipart boundary longer than 254 bytes.
pub(crate) const MIME_LONG_BOUNDARY: usize = 19;
/// An attachment name longer than 255 bytes (cut).
pub(crate) const MIME_LONG_FILENAME: usize = 20;

/// Raises event `i` on transaction `tx`: in the flow's set (for rules) and as one
/// occurrence (for the EVE anomaly log).
pub(crate) fn raise(events: &mut Events, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
    events.raise(i);
    ctx.anomalies.parser(AppProto::Smtp, EVENTS[i], tx);
}
