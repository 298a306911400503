//! SMTP, as far as protocol detection goes: Suricata 7 takes a TCP flow for SMTP when
//! the client's first bytes are an `EHLO`, `HELO` or `QUIT` command (any case). Rules
//! for `alert smtp` then apply to the flow's packets and raw stream; the SMTP commands,
//! replies and mail bodies are not parsed (rules with SMTP keywords such as
//! `smtp.helo` are refused as unsupported).

use crate::detect::{AppProto, Probe};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol};
use crate::{AppCtx, Counter, Direction, Transport};

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

/// SMTP's per-flow state: nothing is parsed after detection.
#[derive(Clone, Copy, Debug, Default)]
pub struct SmtpState;

/// The state of a new SMTP flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then_some((AppState::Smtp(SmtpState), Counter::FlowSmtp))
}

/// SMTP on the protocol contract: detected, not parsed.
impl Protocol for SmtpState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
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
