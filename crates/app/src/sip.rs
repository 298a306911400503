//! SIP over UDP, as far as Suricata's SIP parser decides things the engine acts on: a
//! datagram is one message, a request travelling to the server or a response travelling
//! to the client; a datagram that does not parse as the message its direction expects is
//! a parser error (`app_layer.error.sip.parser`), and `app-layer.error-policy` applies to
//! that datagram. Unlike a TCP stream, the flow's next datagram is parsed again.
//!
//! The grammar is Suricata's (RFC 3261's start line and header lines): request line
//! `METHOD SP Request-URI SP SIP/version CRLF`, status line `SIP/version SP code SP
//! reason CRLF`, then `name: value CRLF` header lines up to an empty line. The body is
//! not looked at.

use crate::detect::{AppProto, Probe};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol};
use crate::{AppCtx, Counter, Direction, Transport};

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!%'*+-._`".contains(&b)
}

fn is_uri(b: u8) -> bool {
    is_token(b) || b"~#@:;=?+&$,/".contains(&b)
}

fn is_version(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"./".contains(&b)
}

fn is_reason(b: u8) -> bool {
    is_token(b) || b"$&(),/:;=?@[\\]^ ".contains(&b)
}

fn is_header_value(b: u8) -> bool {
    is_token(b) || b"\"#$&(),/;:<=>?@[]{}^|~\\\t ".contains(&b)
}

/// Splits off the longest prefix of bytes in `class`; `None` if it is empty.
fn take1(b: &[u8], class: fn(u8) -> bool) -> Option<(&[u8], &[u8])> {
    let n = b.iter().take_while(|&&c| class(c)).count();
    (n > 0).then(|| b.split_at(n))
}

fn tag<'a>(b: &'a [u8], t: &[u8]) -> Option<&'a [u8]> {
    b.strip_prefix(t)
}

fn version(b: &[u8]) -> Option<&[u8]> {
    let b = tag(b, b"SIP/")?;
    Some(take1(b, is_version)?.1)
}

/// Header lines up to and including the empty line that ends them.
fn headers(mut b: &[u8]) -> Option<&[u8]> {
    loop {
        if let Some(rest) = tag(b, b"\r\n") {
            return Some(rest);
        }
        let (_, rest) = take1(b, is_token)?;
        let rest = rest.trim_ascii_start();
        let rest = tag(rest, b":")?;
        let rest = &rest[rest
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count()..];
        let n = rest.iter().take_while(|&&c| is_header_value(c)).count();
        b = tag(&rest[n..], b"\r\n")?;
    }
}

/// Whether `b` is a SIP request: request line and header lines.
pub fn is_request(b: &[u8]) -> bool {
    let parse = || {
        let (_, b) = take1(b, |c| c.is_ascii_alphabetic())?;
        let (_, b) = take1(tag(b, b" ")?, is_uri)?;
        let b = version(tag(b, b" ")?)?;
        headers(tag(b, b"\r\n")?)
    };
    parse().is_some()
}

/// Whether `b` is a SIP response: status line and header lines.
pub fn is_response(b: &[u8]) -> bool {
    let parse = || {
        let b = tag(version(b)?, b" ")?;
        let b = tag(b.get(3..)?, b" ")?;
        let n = b.iter().take_while(|&&c| is_reason(c)).count();
        headers(tag(&b[n..], b"\r\n")?)
    };
    parse().is_some()
}

/// SIP state of one flow: how many messages parsed.
#[derive(Debug, Default)]
pub struct SipState {
    messages: u64,
}

impl SipState {
    /// Messages (transactions) parsed so far.
    pub fn tx_count(&self) -> u64 {
        self.messages
    }

    /// One datagram travelling `dir`: `false` when it is not the message its direction
    /// expects (a parser error).
    pub fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> bool {
        let ok = match dir {
            Direction::ToServer => is_request(payload),
            Direction::ToClient => is_response(payload),
        };
        if ok {
            self.messages += 1;
            ctx.counters.incr(Counter::TxSip);
        } else {
            ctx.counters.incr(Counter::ErrorSip);
        }
        ok
    }
}

/// The state of a new SIP flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Sip(SipState::default()), Counter::FlowSip))
}

/// SIP on the protocol contract: datagrams only, no transactions exposed (no rule
/// inspects SIP buffers).
impl Protocol for SipState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if SipState::datagram(self, ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }
}

/// Probes a UDP payload for SIP: a request to the server or a response to the client.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    let ok = match dir {
        Direction::ToServer => is_request(payload),
        Direction::ToClient => is_response(payload),
    };
    if ok {
        Probe::Match(AppProto::Sip)
    } else {
        Probe::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVITE: &[u8] = b"INVITE sip:francisco@bestel.com:55060 SIP/2.0\r\n\
        Via: SIP/2.0/UDP 200.57.7.195;branch=z9hG4bKff9b46fb055c0521cc24024da96cd290\r\n\
        From: <sip:200.57.7.195:55061;user=phone>;tag=GR52RWG346-34\r\n\
        Call-ID: 12013223@200.57.7.195\r\n\
        CSeq: 1 INVITE\r\n\
        Content-Length: 4\r\n\
        \r\n\
        v=0\n";
    const OK: &[u8] = b"SIP/2.0 200 Ok\r\nVia: SIP/2.0/UDP 200.57.7.195\r\nCSeq: 1 INVITE\r\n\r\n";

    #[test]
    fn requests_and_responses() {
        assert!(is_request(INVITE));
        assert!(!is_response(INVITE));
        assert!(is_response(OK));
        assert!(!is_request(OK));
        assert!(is_response(b"SIP/2.0 100 Trying\r\n\r\n"));
        // Incomplete or damaged messages.
        assert!(!is_request(&INVITE[..40]));
        assert!(!is_request(b"INVITE sip:a SIP/2.0\r\nVia x\r\n\r\n"));
        assert!(!is_response(b"SIP/2.0 20 OK\r\n\r\n"));
        assert!(!is_request(b""));
    }

    #[test]
    fn a_message_against_its_direction_is_an_error() {
        let mut ctx = AppCtx::default();
        let mut s = SipState::default();
        assert!(s.datagram(&mut ctx, Direction::ToServer, INVITE));
        assert!(s.datagram(&mut ctx, Direction::ToClient, OK));
        assert!(!s.datagram(&mut ctx, Direction::ToServer, OK));
        assert!(!s.datagram(&mut ctx, Direction::ToClient, INVITE));
        // The next datagram is parsed again.
        assert!(s.datagram(&mut ctx, Direction::ToServer, INVITE));
        assert_eq!(s.tx_count(), 3);
        assert_eq!(ctx.counters.get(Counter::TxSip), 3);
        assert_eq!(ctx.counters.get(Counter::ErrorSip), 2);
    }
}
