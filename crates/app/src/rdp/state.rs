//! RDP's per-flow state: the connection sequence read from both directions, one
//! transaction per message Suricata logs (the X.224 connection request and confirm,
//! the MCS Connect Initial with the client's data and the Connect Response, and, when
//! the server selected TLS or CredSSP, the TLS handshake's certificates). Parsing stops
//! after the Connect Response or the certificates, where the session's encrypted part
//! begins, and on a hole.

use std::collections::VecDeque;

use super::parser::{self, ClientCore, Mcs, NegRequest, NegResponse, X224};
use crate::{AppCtx, Counter, Direction};

/// Bytes buffered per direction for one incomplete TPKT packet or TLS record.
pub const MAX_BUFFER: usize = 64 * 1024;

/// What one transaction logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// The client's X.224 connection request.
    InitialRequest {
        /// The `mstshash` cookie.
        cookie: Option<String>,
        /// The RDP negotiation request.
        neg: Option<NegRequest>,
    },
    /// The server's X.224 connection confirm with its negotiation response or failure.
    InitialResponse(Option<NegResponse>),
    /// The MCS Connect Initial: the client core data and the channels requested.
    ConnectRequest {
        /// The client core data block.
        client: Option<Box<ClientCore>>,
        /// The channel names of the client network data block.
        channels: Vec<String>,
    },
    /// The MCS Connect Response.
    ConnectResponse,
    /// The server's TLS certificates: their serial numbers.
    TlsHandshake(Vec<String>),
}

/// One logged message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RdpTx {
    pub(crate) id: u64,
    /// What it carries.
    pub msg: Message,
}

/// The RDP state of one flow.
#[derive(Debug, Default)]
pub struct RdpState {
    txs: VecDeque<RdpTx>,
    next_id: u64,
    buf: [Vec<u8>; 2],
    /// The server selected a TLS-based protocol: TLS records follow.
    tls: bool,
    /// The server's handshake messages in TLS mode, across records.
    handshake: Vec<u8>,
    done: bool,
    failed: bool,
}

impl RdpState {
    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &RdpTx> {
        self.txs.iter()
    }

    /// Whether the parser failed (nothing more is read).
    pub fn errored(&self) -> bool {
        self.failed
    }

    /// A hole in either direction: the sequence cannot be followed any more.
    pub fn gap(&mut self, ctx: &mut AppCtx) {
        ctx.counters.incr(Counter::Gap);
        self.done = true;
    }

    fn push(&mut self, ctx: &mut AppCtx, msg: Message) {
        self.next_id += 1;
        ctx.counters.incr(Counter::TxRdp);
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(RdpTx {
            id: self.next_id - 1,
            msg,
        });
    }

    fn fail(&mut self, ctx: &mut AppCtx) {
        self.failed = true;
        ctx.counters.incr(Counter::ErrorRdp);
    }

    /// In-order bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        if self.done || self.failed {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf[dir.index()]);
        if buf.len() + data.len() > MAX_BUFFER {
            self.fail(ctx);
            return;
        }
        buf.extend_from_slice(data);
        let mut at = 0;
        while !self.done && !self.failed && at < buf.len() {
            match self.next(ctx, dir, &buf[at..]) {
                Some(0) => break,
                Some(n) => at += n,
                None => self.fail(ctx),
            }
        }
        buf.drain(..at.min(buf.len()));
        self.buf[dir.index()] = buf;
    }

    /// Reads one TPKT packet or TLS record from `b`: the bytes it took (0: incomplete);
    /// `None` when they do not parse.
    fn next(&mut self, ctx: &mut AppCtx, dir: Direction, b: &[u8]) -> Option<usize> {
        if self.tls {
            let Some((len, kind, body)) = parser::tls_record(b).ok()? else {
                return Some(0);
            };
            if dir == Direction::ToClient && kind == 22 {
                self.server_handshake(ctx, body)?;
            }
            return Some(len);
        }
        let Some((len, tpdu)) = parser::tpkt(b).ok()? else {
            return Some(0);
        };
        match parser::x224(tpdu)? {
            X224::Request { cookie, neg } => {
                self.push(ctx, Message::InitialRequest { cookie, neg });
            }
            X224::Confirm(neg) => {
                if let Some(NegResponse::Selected { protocol, .. }) = neg {
                    self.tls = protocol != 0;
                }
                self.push(ctx, Message::InitialResponse(neg));
            }
            X224::Data(d) => match parser::mcs(d)? {
                Mcs::ConnectInitial(user) => {
                    let mut client = None;
                    let mut channels = Vec::new();
                    for (kind, body) in parser::blocks(parser::gcc_blocks(user)?) {
                        match kind {
                            0xC001 => client = parser::client_core(body).map(Box::new),
                            0xC003 => channels = parser::channels(body),
                            _ => {}
                        }
                    }
                    self.push(ctx, Message::ConnectRequest { client, channels });
                }
                Mcs::ConnectResponse => {
                    self.push(ctx, Message::ConnectResponse);
                    self.done = true;
                }
                Mcs::Other => {}
            },
            X224::Other => {}
        }
        Some(len)
    }

    /// A TLS handshake record from the server: its messages, across records, until the
    /// Certificate message.
    fn server_handshake(&mut self, ctx: &mut AppCtx, body: &[u8]) -> Option<()> {
        if self.handshake.len() + body.len() > MAX_BUFFER {
            return None;
        }
        self.handshake.extend_from_slice(body);
        loop {
            let h = &self.handshake;
            if h.len() < 4 {
                return Some(());
            }
            let len = usize::from(h[1]) << 16 | usize::from(h[2]) << 8 | usize::from(h[3]);
            if h.len() < 4 + len {
                return Some(());
            }
            if h[0] == 11 {
                let serials = parser::certificate_serials(&h[4..4 + len])?;
                self.handshake.clear();
                self.push(ctx, Message::TlsHandshake(serials));
                self.done = true;
                return Some(());
            }
            self.handshake.drain(..4 + len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The connection sequence of the RDP flow of sv-ether.pcap
    /// (10.226.41.226:13178 -> 10.226.29.74:3389), client and server TPDUs.
    fn sv_ether() -> Vec<(Direction, Vec<u8>)> {
        let text = include_str!("testdata/sv-ether-rdp.hex");
        text.lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (d, h) = l.split_once(' ').unwrap();
                let dir = if d == "c" {
                    Direction::ToServer
                } else {
                    Direction::ToClient
                };
                (dir, unhex(h))
            })
            .collect()
    }

    #[test]
    fn sv_ether_sequence_in_any_split() {
        for step in [1, 5, 64, 4096] {
            let mut ctx = AppCtx::default();
            let mut s = RdpState::default();
            for (dir, bytes) in sv_ether() {
                for c in bytes.chunks(step) {
                    s.parse(&mut ctx, dir, c);
                }
            }
            assert!(!s.errored());
            let kinds: Vec<_> = s.txs().map(|t| (t.id, &t.msg)).collect();
            assert_eq!(kinds.len(), 4, "step {step}");
            assert_eq!(
                kinds[0].1,
                &Message::InitialRequest {
                    cookie: Some("A70067".into()),
                    neg: None
                }
            );
            assert_eq!(kinds[1].1, &Message::InitialResponse(None));
            let Message::ConnectRequest { client, channels } = kinds[2].1 else {
                panic!("connect request")
            };
            let c = client.as_ref().unwrap();
            assert_eq!(
                (c.version, c.desktop_width, c.desktop_height),
                (0x80004, 1152, 864)
            );
            assert_eq!((c.build, c.client_name.as_str()), (2600, "ISD2-KM84178"));
            assert_eq!(c.color_depth, Some(15));
            assert_eq!(c.id.as_deref(), Some("55274-OEM-0011903-00107"));
            assert_eq!(channels, &["rdpdr", "cliprdr", "rdpsnd"]);
            assert_eq!(kinds[3], (3, &Message::ConnectResponse));
            assert_eq!(ctx.counters.get(Counter::TxRdp), 4);
        }
    }

    #[test]
    fn garbage_fails_once() {
        let mut ctx = AppCtx::default();
        let mut s = RdpState::default();
        s.parse(&mut ctx, Direction::ToServer, b"\x16\x03\x01\x00\x05hello");
        s.parse(&mut ctx, Direction::ToServer, b"more");
        assert!(s.errored());
        assert_eq!(ctx.counters.get(Counter::ErrorRdp), 1);
        assert_eq!(s.txs().count(), 0);
    }
}
