//! SMTP (RFC 5321): detection, then the command/reply state machine, one transaction
//! per mail, the `smtp` and `email` EVE objects and Suricata's SMTP app-layer events.
//! Suricata 7 takes a TCP flow for SMTP when the client's first bytes are an `EHLO`,
//! `HELO` or `QUIT` command (any case).
//!
//! - [`parser`]: bounded lines, commands and replies;
//! - [`state`]: the per-flow state machine ([`SmtpState`]) and transactions ([`SmtpTx`]);
//! - [`email`]: the message: status, headers, attachments, URLs;
//! - [`mime`]: the MIME structure, decoding, attachments as files, URL extraction;
//! - `events`: the event table; `proto`: the protocol contract; [`log`]: EVE objects.

pub mod email;
mod events;
pub mod log;
pub mod mime;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use events::EVENTS;
pub(crate) use proto::{new_state, BUFFERS};
pub use state::{SmtpState, SmtpTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Commands that open an SMTP session in Suricata's protocol detection.
const OPENERS: [&[u8]; 3] = [b"EHLO", b"HELO", b"QUIT"];

/// Probes the first bytes a client sent for an SMTP command that opens a session.
pub(crate) fn probe(data: &[u8]) -> Probe {
    let n = data.len().min(4);
    if !OPENERS
        .iter()
        .any(|o| o[..n].eq_ignore_ascii_case(&data[..n]))
    {
        Probe::NoMatch
    } else if n < 4 {
        Probe::NeedMore
    } else {
        Probe::Match(AppProto::Smtp)
    }
}

/// [`probe`] for the registry: only the client's bytes decide.
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    match dir {
        Direction::ToServer => probe(data),
        Direction::ToClient => Probe::NoMatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openers() {
        assert_eq!(
            probe(b"EHLO mail.example.com\r\n"),
            Probe::Match(AppProto::Smtp)
        );
        assert_eq!(probe(b"helo x"), Probe::Match(AppProto::Smtp));
        assert_eq!(probe(b"QUIT\r\n"), Probe::Match(AppProto::Smtp));
        assert_eq!(probe(b"EH"), Probe::NeedMore);
        assert_eq!(probe(b""), Probe::NeedMore);
        assert_eq!(probe(b"MAIL FROM:<a@b>"), Probe::NoMatch);
        assert_eq!(probe(b"GET / HTTP/1.1"), Probe::NoMatch);
    }
}
