//! RFB's per-flow state: the handshake (RFC 6143 7.1-7.3) read in turn from both
//! directions: protocol versions, security types (a single type from the server in
//! version 3.3, a list and the client's choice from 3.7), the VNC authentication
//! challenge and response, the security result, ClientInit and ServerInit. The whole
//! handshake is the flow's one transaction, complete with ServerInit; what follows
//! (framebuffer updates, input) is not read.

use super::parser::{self, PixelFormat, Version};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// Bytes buffered per direction while the handshake waits on the other side.
pub const MAX_BUFFER: usize = 64 * 1024;

/// The handshake of one flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfbTx {
    /// The server's protocol version.
    pub server_version: Option<Version>,
    /// The client's protocol version.
    pub client_version: Option<Version>,
    /// The security type in use.
    pub security_type: Option<u32>,
    /// VNC authentication challenge (server).
    pub challenge: Option<[u8; 16]>,
    /// VNC authentication response (client).
    pub response: Option<[u8; 16]>,
    /// The security result (0 OK, 1 failed).
    pub security_result: Option<u32>,
    /// The reason the server gave for refusing the connection.
    pub failure_reason: Option<Vec<u8>>,
    /// ClientInit's shared flag.
    pub shared: Option<bool>,
    /// ServerInit: framebuffer width, height, pixel format and desktop name.
    pub server_init: Option<(u16, u16, PixelFormat, Vec<u8>)>,
    /// ServerInit was read, the server named a security type the parser does not
    /// follow, the security result was not OK or failed, or bytes of the wrong side
    /// confused the parser.
    pub complete: bool,
}

/// What the handshake waits for next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    ServerVersion,
    ClientVersion,
    /// Version 3.3: the server's security type.
    SecurityType,
    /// Version 3.7 and later: the server's list of types.
    SecurityTypes,
    ClientChoice,
    FailureReason,
    Challenge,
    Response,
    SecurityResult,
    ClientInit,
    ServerInit,
    /// Done, or stopped (nothing more is read).
    Done,
}

/// The RFB state of one flow.
#[derive(Debug)]
pub struct RfbState {
    tx: RfbTx,
    step: Step,
    buf: [Vec<u8>; 2],
    events: Events,
    failed: bool,
    /// The parser stopped on bytes of the side it was not waiting for: not a parser
    /// error for Suricata 7.0.10 (no `app_layer.error.rfb.parser`, no app-layer error
    /// policy: in IPS mode the flow goes on and its rules are inspected).
    confused: bool,
    /// Bytes of each direction the handshake consumed.
    taken: [u64; 2],
    /// Record each message for the `frame` keyword ([`crate::Config::frames`]).
    record: bool,
    /// The messages taken since [`RfbState::take_pdus`] last asked: direction,
    /// offset among the bytes the parser was given in that direction, bytes.
    pdus: Vec<(Direction, u64, Vec<u8>)>,
}

impl Default for RfbState {
    fn default() -> Self {
        RfbState {
            tx: RfbTx::default(),
            step: Step::ServerVersion,
            buf: Default::default(),
            events: Events::default(),
            failed: false,
            confused: false,
            taken: [0; 2],
            record: false,
            pdus: Vec::new(),
        }
    }
}

impl RfbState {
    /// The flow's transaction, once the server has spoken.
    pub fn tx(&self) -> Option<&RfbTx> {
        self.tx.server_version.as_ref().map(|_| &self.tx)
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the handshake did not parse (nothing more is read).
    pub fn errored(&self) -> bool {
        self.failed && !self.confused
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize) {
        self.events.raise(i);
        ctx.anomalies
            .parser(AppProto::Rfb, super::EVENTS[i], Some(0));
    }

    /// Whether the handshake follows version 3.3 (a single security type, no result
    /// after "None"); 3.7 and later otherwise. The client's version is the one in use.
    fn v33(&self) -> bool {
        self.tx
            .client_version
            .as_ref()
            .is_some_and(|v| v.minor == "003")
    }

    fn v38(&self) -> bool {
        self.tx
            .client_version
            .as_ref()
            .is_some_and(|v| v.minor.as_str() >= "008")
    }

    /// The handshake messages taken since the last call, for `rfb.pdu` frames
    /// (recorded only with [`crate::Config::frames`]): direction, offset among the
    /// bytes the parser was given in that direction, the message.
    pub fn take_pdus(&mut self) -> Vec<(Direction, u64, Vec<u8>)> {
        std::mem::take(&mut self.pdus)
    }

    /// In-order bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        self.record = ctx.config.frames;
        if self.step == Step::Done || self.failed {
            return;
        }
        let b = &mut self.buf[dir.index()];
        if b.len() + data.len() > MAX_BUFFER {
            self.failed = true;
            self.raise(ctx, super::MALFORMED_MESSAGE);
            ctx.counters.incr(Counter::ErrorRfb);
            return;
        }
        b.extend_from_slice(data);
        // Suricata 7.0.10 keeps one state for both directions: bytes of the side the
        // handshake is not waiting for confuse it (`rfb.confused_state`) and stop the
        // parser, e.g. the server's security result after "None"; the transaction then
        // counts as complete (found by the differential harness's `rfb` family).
        if self.waits_for().is_some_and(|w| w != dir) {
            self.failed = true;
            self.confused = true;
            self.tx.complete = true;
            self.raise(ctx, super::CONFUSED_STATE);
            return;
        }
        while self.step != Step::Done && !self.failed {
            match self.step(ctx) {
                Some(true) => {}
                Some(false) => break,
                None => {
                    self.failed = true;
                    self.raise(ctx, super::MALFORMED_MESSAGE);
                    ctx.counters.incr(Counter::ErrorRfb);
                }
            }
        }
        if self.step == Step::Done {
            self.buf = Default::default();
        }
    }

    /// The direction whose bytes the next step reads (`None` once done).
    fn waits_for(&self) -> Option<Direction> {
        use Direction::{ToClient as S, ToServer as C};
        Some(match self.step {
            Step::ClientVersion | Step::ClientChoice | Step::Response | Step::ClientInit => C,
            Step::Done => return None,
            _ => S,
        })
    }

    /// Takes `n` bytes of `dir` if they are there: one handshake message, an
    /// `rfb.pdu` frame.
    fn take(&mut self, dir: Direction, n: usize) -> Option<Vec<u8>> {
        self.take_as(dir, n, true)
    }

    /// [`RfbState::take`], the message recorded as a frame only when `framed`.
    fn take_as(&mut self, dir: Direction, n: usize, framed: bool) -> Option<Vec<u8>> {
        let b = &mut self.buf[dir.index()];
        let m: Vec<u8> = (b.len() >= n).then(|| b.drain(..n).collect())?;
        let at = self.taken[dir.index()];
        self.taken[dir.index()] += n as u64;
        if self.record && framed {
            self.pdus.push((dir, at, m.clone()));
        }
        Some(m)
    }

    fn peek(&self, dir: Direction, n: usize) -> Option<&[u8]> {
        self.buf[dir.index()].get(..n)
    }

    /// One step of the handshake: `Some(true)` when it advanced, `Some(false)` when it
    /// waits for bytes, `None` when they are malformed.
    fn step(&mut self, ctx: &mut AppCtx) -> Option<bool> {
        use Direction::{ToClient as S, ToServer as C};
        let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        match self.step {
            Step::ServerVersion | Step::ClientVersion => {
                let dir = if self.step == Step::ServerVersion {
                    S
                } else {
                    C
                };
                let Some(b) = self.take(dir, 12) else {
                    return Some(false);
                };
                let v = parser::version(&b)?;
                if dir == S {
                    self.tx.server_version = Some(v);
                    // Suricata counts the transaction when it opens, with the
                    // server's version, whether or not the handshake completes.
                    ctx.counters.incr(Counter::TxRfb);
                    self.step = Step::ClientVersion;
                } else {
                    self.tx.client_version = Some(v);
                    self.step = if self.v33() {
                        Step::SecurityType
                    } else {
                        Step::SecurityTypes
                    };
                }
            }
            Step::SecurityType => {
                let Some(b) = self.take(S, 4) else {
                    return Some(false);
                };
                let t = be32(&b);
                self.choose(ctx, t, true);
            }
            Step::SecurityTypes => {
                let Some(&[n]) = self.peek(S, 1) else {
                    return Some(false);
                };
                let Some(_) = self.take(S, 1 + usize::from(n)) else {
                    return Some(false);
                };
                self.step = if n == 0 {
                    Step::FailureReason
                } else {
                    Step::ClientChoice
                };
            }
            Step::ClientChoice => {
                let Some(b) = self.take(C, 1) else {
                    return Some(false);
                };
                self.choose(ctx, u32::from(b[0]), false);
            }
            Step::FailureReason => {
                let Some(l) = self.peek(S, 4) else {
                    return Some(false);
                };
                let len = be32(l) as usize;
                if len > MAX_BUFFER {
                    return None;
                }
                // Suricata 7.0.10 parses the reason without framing it (checked on
                // sv-ether.pcap's 10.0.0.1:40000 flow).
                let Some(b) = self.take_as(S, 4 + len, false) else {
                    return Some(false);
                };
                self.tx.failure_reason = Some(b[4..].to_vec());
                self.step = Step::Done;
            }
            Step::Challenge | Step::Response => {
                let dir = if self.step == Step::Challenge { S } else { C };
                let Some(b) = self.take(dir, 16) else {
                    return Some(false);
                };
                let v: [u8; 16] = b.try_into().ok()?;
                if dir == S {
                    self.tx.challenge = Some(v);
                    self.step = Step::Response;
                } else {
                    self.tx.response = Some(v);
                    self.step = Step::SecurityResult;
                }
            }
            Step::SecurityResult => {
                let Some(b) = self.take(S, 4) else {
                    return Some(false);
                };
                let r = be32(&b);
                self.tx.security_result = Some(r);
                self.step = match r {
                    0 => Step::ClientInit,
                    1 if self.v38() => Step::FailureReason,
                    1 => Step::Done,
                    // "Too many attempts" and unknown results complete the transaction
                    // (found by the differential harness's `rfb` family).
                    2 => {
                        self.tx.complete = true;
                        Step::Done
                    }
                    _ => {
                        self.raise(ctx, super::UNKNOWN_SECURITY_RESULT);
                        self.tx.complete = true;
                        Step::Done
                    }
                };
            }
            Step::ClientInit => {
                let Some(b) = self.take(C, 1) else {
                    return Some(false);
                };
                self.tx.shared = Some(b[0] != 0);
                self.step = Step::ServerInit;
            }
            Step::ServerInit => {
                let Some(h) = self.peek(S, 24) else {
                    return Some(false);
                };
                let len = be32(&h[20..24]) as usize;
                if len > MAX_BUFFER {
                    return None;
                }
                let Some(b) = self.take(S, 24 + len) else {
                    return Some(false);
                };
                let (w, h, pf) = parser::server_init(&b)?;
                self.tx.server_init = Some((w, h, pf, b[24..].to_vec()));
                self.tx.complete = true;
                self.step = Step::Done;
            }
            Step::Done => return Some(false),
        }
        Some(true)
    }

    /// The security type in use: 0 (the server refuses: a reason follows), 1 (none),
    /// 2 (VNC authentication); any other one stops the parser
    /// (`rfb.unimplemented_security_type`).
    fn choose(&mut self, ctx: &mut AppCtx, t: u32, by_server: bool) {
        if t != 0 {
            self.tx.security_type = Some(t);
        }
        self.step = match t {
            0 => Step::FailureReason,
            // No security result after "None", whatever the version: Suricata 7.0.10
            // waits for ClientInit (a 3.8 server's result then confuses it).
            1 => Step::ClientInit,
            2 => Step::Challenge,
            // Suricata 7.0.10 skips the rest; the transaction counts as complete when
            // the server named the type (3.3), not when the client chose it.
            _ => {
                self.raise(ctx, super::UNIMPLEMENTED_SECURITY_TYPE);
                self.tx.complete = by_server;
                Step::Done
            }
        };
    }

    /// A hole in one direction: the handshake cannot go on.
    pub fn gap(&mut self, ctx: &mut AppCtx) {
        ctx.counters.incr(Counter::Gap);
        if self.step != Step::Done {
            self.step = Step::Done;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(client: &[u8], server: &[u8], step: usize) -> (RfbState, AppCtx) {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = RfbState::default();
        // Each side in small pieces, given when the handshake waits for that side (as
        // a TCP conversation delivers them: a side speaks after it heard the other).
        let (mut c, mut v) = (client.chunks(step), server.chunks(step));
        loop {
            let next = match s.waits_for() {
                Some(Direction::ToServer) => c.next().map(|b| (Direction::ToServer, b)),
                Some(Direction::ToClient) => v.next().map(|b| (Direction::ToClient, b)),
                None => None,
            };
            let Some((d, b)) = next else { break };
            s.parse(&mut ctx, d, b);
        }
        (s, ctx)
    }

    /// After "None" a 3.8 server's security result confuses Suricata 7.0.10's parser
    /// (it waits for ClientInit): `rfb.confused_state`, nothing more is read, no name.
    #[test]
    fn a_result_after_none_confuses_the_parser() {
        let mut ctx = AppCtx::default();
        let mut s = RfbState::default();
        let (c, v) = (Direction::ToServer, Direction::ToClient);
        s.parse(&mut ctx, v, b"RFB 003.008\n");
        s.parse(&mut ctx, c, b"RFB 003.008\n");
        s.parse(&mut ctx, v, &[1, 1]);
        s.parse(&mut ctx, c, &[1]);
        assert!(!s.errored());
        s.parse(&mut ctx, v, &[0, 0, 0, 0]);
        // Confused, which Suricata 7.0.10 does not count as a parser error.
        assert!(!s.errored());
        assert!(s.events().has(super::super::CONFUSED_STATE));
        s.parse(&mut ctx, c, &[1]);
        let t = s.tx().unwrap();
        assert_eq!((t.security_type, t.security_result), (Some(1), None));
        assert!(t.server_init.is_none() && t.complete);
    }

    /// A 3.3 server and a 3.8 client (difftest case dt-15-1447): the server's 4-byte
    /// type reads as an empty list and a failure reason, the client's response confuses
    /// the parser; the transaction completes without a type, and its fingerprint
    /// changes so that the to-server rules see it again (Suricata 7.0.10 matches
    /// `rfb.sectype:<=1` on the client's next packet).
    #[test]
    fn a_confused_handshake_completes_with_a_new_fingerprint() {
        use crate::Transaction as _;
        let mut ctx = AppCtx::default();
        let mut s = RfbState::default();
        let (c, v) = (Direction::ToServer, Direction::ToClient);
        s.parse(&mut ctx, v, b"RFB 003.003\n");
        s.parse(&mut ctx, c, b"RFB 003.008\n");
        s.parse(&mut ctx, v, &[0, 0, 0, 2]);
        s.parse(&mut ctx, v, &[0xc1, 7, 0x1f, 0xab]);
        let before = s.tx().unwrap().fingerprint();
        assert!(!s.tx().unwrap().complete && !s.errored());
        s.parse(&mut ctx, c, &[0x36; 16]);
        // Not a parser error (dt-2-108 in IPS mode: Suricata 7.0.10 counts none and
        // applies no app-layer error policy), but nothing more is parsed.
        assert!(!s.errored() && s.events().has(super::super::CONFUSED_STATE));
        assert_eq!(ctx.counters.get(Counter::ErrorRfb), 0);
        s.parse(&mut ctx, v, &[0, 0, 0, 0]);
        assert!(s.tx().unwrap().security_result.is_none());
        let t = s.tx().unwrap();
        assert!(t.complete && t.security_type.is_none());
        assert_ne!(t.fingerprint(), before);
    }

    #[test]
    fn real_handshakes_in_any_split() {
        for step in [1, 3, 12, 4096] {
            // sv-ether.pcap, 192.168.1.123:58102 -> 192.168.1.10:5900 (3.8).
            let (s, ctx) = run(
                include_bytes!("testdata/v38_client.bin"),
                include_bytes!("testdata/v38_server.bin"),
                step,
            );
            let t = s.tx().unwrap();
            assert!(t.complete && !s.errored());
            assert_eq!(t.security_type, Some(2));
            assert_eq!(t.security_result, Some(0));
            let (w, h, pf, name) = t.server_init.as_ref().unwrap();
            assert_eq!(
                (*w, *h, pf.bits_per_pixel, name.as_slice()),
                (800, 600, 32, &[0xa0][..])
            );
            assert_eq!(ctx.counters.get(Counter::TxRfb), 1);
            // 192.168.1.123:58048 -> 192.168.1.10:5900 (3.3).
            let (s, _) = run(
                include_bytes!("testdata/v33_client.bin"),
                include_bytes!("testdata/v33_server.bin"),
                step,
            );
            assert!(s.tx().unwrap().complete);
            // 10.0.0.1:40000 -> 10.0.0.2:5900: no security type, a reason.
            let (s, ctx) = run(
                include_bytes!("testdata/fail_client.bin"),
                include_bytes!("testdata/fail_server.bin"),
                step,
            );
            let t = s.tx().unwrap();
            assert!(!t.complete && t.security_type.is_none());
            // A handshake that fails is still a transaction, as Suricata counts it.
            assert_eq!(ctx.counters.get(Counter::TxRfb), 1);
            assert_eq!(t.failure_reason.as_deref(), Some(&b"AAAAAAAAAAAAAAAA"[..]));
        }
    }

    /// With frames on, each handshake message is an `rfb.pdu` (its direction and
    /// offset), as Suricata 7.0.10 frames them on sv-ether.pcap's 3.8 flow; a failure
    /// reason is not framed; with frames off nothing is kept.
    #[test]
    fn handshake_messages_for_frames() {
        let mut ctx = AppCtx::default();
        ctx.config.frames = true;
        let mut s = RfbState::default();
        let (c, v) = (Direction::ToServer, Direction::ToClient);
        let server = include_bytes!("testdata/v38_server.bin");
        let client = include_bytes!("testdata/v38_client.bin");
        s.parse(&mut ctx, v, server);
        s.parse(&mut ctx, c, client);
        let got: Vec<_> = s
            .take_pdus()
            .into_iter()
            .map(|(d, at, m)| (d == c, at, m.len()))
            .collect();
        assert_eq!(
            got,
            [
                (false, 0, 12),
                (true, 0, 12),
                (false, 12, 2),
                (true, 12, 1),
                (false, 14, 16),
                (true, 13, 16),
                (false, 30, 4),
                (true, 29, 1),
                (false, 34, 25),
            ]
        );
        assert!(s.take_pdus().is_empty());
        let mut s = RfbState::default();
        s.parse(&mut ctx, v, include_bytes!("testdata/fail_server.bin"));
        s.parse(&mut ctx, c, include_bytes!("testdata/fail_client.bin"));
        let got: Vec<_> = s.take_pdus().into_iter().map(|p| p.2.len()).collect();
        assert_eq!(got, [12, 12, 1]);
        ctx.config.frames = false;
        let mut s = RfbState::default();
        s.parse(&mut ctx, v, server);
        assert!(s.take_pdus().is_empty());
    }

    #[test]
    fn unimplemented_types_and_bad_input() {
        let mut ctx = AppCtx::default();
        let mut s = RfbState::default();
        s.parse(
            &mut ctx,
            Direction::ToClient,
            b"RFB 003.889\n\x04\x1e\x21\x24\x23",
        );
        s.parse(&mut ctx, Direction::ToServer, b"RFB 003.008\n\x1e");
        assert_eq!(s.tx().unwrap().security_type, Some(30));
        assert!(s.events().has(super::super::UNIMPLEMENTED_SECURITY_TYPE));
        let mut s = RfbState::default();
        s.parse(&mut ctx, Direction::ToClient, b"XYZ 003.008\n");
        assert!(s.errored() && s.tx().is_none());
        assert_eq!(ctx.counters.get(Counter::ErrorRfb), 1);
        assert_eq!(ctx.counters.get(Counter::TxRfb), 1);
        let mut s = RfbState::default();
        s.parse(&mut ctx, Direction::ToServer, &vec![0; MAX_BUFFER + 1]);
        assert!(s.errored());
    }
}
