//! Kerberos 5's per-flow state: over UDP each datagram is one message, over TCP each
//! record (a 4-byte length, RFC 4120 7.2.2) is one. Every request, reply and error is
//! a transaction of its own, as Suricata counts them; an error remembers the type of
//! the last request of the flow (`failed_request`).

use std::collections::VecDeque;

use super::parser::{self, Krb5Message, Parsed};
use crate::{AppCtx, AppProto, Counter, Direction, Events, Transport};

/// The largest TCP record buffered; a larger one is skipped (counted in
/// `osprey.app.krb5.record_limit`).
pub const MAX_RECORD: usize = 256 * 1024;

/// One Kerberos message of a flow.
#[derive(Clone, Debug)]
pub struct Krb5Tx {
    pub(crate) id: u64,
    /// The direction the message travelled: Suricata 7.0.10 inspects a Kerberos
    /// transaction in that direction only.
    pub dir: Direction,
    /// The message.
    pub msg: Krb5Message,
    /// For an error: the type of the flow's last request.
    pub failed_request: Option<u32>,
    /// Its own events, as Suricata 7.0.10 keeps them per transaction: weak encryption
    /// of a reply, a malformed message that came after it.
    pub events: Events,
}

/// One TCP direction: the record being read.
#[derive(Clone, Debug, Default)]
struct TcpSide {
    buf: Vec<u8>,
    /// Bytes of an over-long record still to skip.
    skip: usize,
    lost: bool,
}

/// The Kerberos 5 state of one flow.
#[derive(Debug)]
pub struct Krb5State {
    transport: Transport,
    txs: VecDeque<Krb5Tx>,
    next_id: u64,
    last_request: Option<u32>,
    tcp: [TcpSide; 2],
    failed: bool,
    events: Events,
}

impl Krb5State {
    /// A fresh state over `transport`.
    pub fn new(transport: Transport) -> Self {
        Krb5State {
            transport,
            txs: VecDeque::new(),
            next_id: 0,
            last_request: None,
            tcp: Default::default(),
            failed: false,
            events: Events::default(),
        }
    }

    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &Krb5Tx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the TCP stream parser failed (nothing more is parsed).
    pub fn errored(&self) -> bool {
        self.failed
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
        self.events.raise(i);
        ctx.anomalies.parser(AppProto::Krb5, super::EVENTS[i], tx);
    }

    fn error_counter(&self) -> Counter {
        match self.transport {
            Transport::Tcp => Counter::ErrorKrb5Tcp,
            Transport::Udp => Counter::ErrorKrb5Udp,
        }
    }

    /// One whole message travelling `dir`; `false` when it does not parse (raises
    /// `krb5.malformed_data` and counts the parser error).
    pub fn message(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> bool {
        let msg = match parser::parse_message(data) {
            Parsed::Message(m) => m,
            Parsed::Other => return true,
            Parsed::Malformed => {
                self.raise(ctx, super::MALFORMED_DATA, None);
                if let Some(t) = self.txs.back_mut() {
                    t.events.raise(super::MALFORMED_DATA);
                }
                ctx.counters.incr(self.error_counter());
                return false;
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        let failed_request = (msg.msg_type == parser::ERROR)
            .then_some(self.last_request)
            .flatten();
        if matches!(msg.msg_type, parser::AS_REQ | parser::TGS_REQ) {
            self.last_request = Some(msg.msg_type);
        }
        let mut events = Events::default();
        if msg.etype.is_some_and(parser::weak_etype) {
            self.raise(ctx, super::WEAK_ENCRYPTION, Some(id));
            events.raise(super::WEAK_ENCRYPTION);
        }
        ctx.counters.incr(match self.transport {
            Transport::Tcp => Counter::TxKrb5Tcp,
            Transport::Udp => Counter::TxKrb5Udp,
        });
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(Krb5Tx {
            id,
            dir,
            msg,
            failed_request,
            events,
        });
        true
    }

    /// In-order TCP bytes of one direction: records of a 4-byte length (its top bit
    /// reserved) and a message.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, mut data: &[u8]) {
        let d = dir.index();
        while !data.is_empty() && !self.failed && !self.tcp[d].lost {
            let s = &mut self.tcp[d];
            if s.skip > 0 {
                let n = s.skip.min(data.len());
                s.skip -= n;
                data = &data[n..];
                continue;
            }
            let want = if s.buf.len() < 4 {
                4
            } else {
                let len = u32::from_be_bytes([s.buf[0], s.buf[1], s.buf[2], s.buf[3]]);
                4 + (len & 0x7fff_ffff) as usize
            };
            let n = (want - s.buf.len()).min(data.len());
            s.buf.extend_from_slice(&data[..n]);
            data = &data[n..];
            if s.buf.len() < want {
                continue;
            }
            if want == 4 {
                let len = u32::from_be_bytes([s.buf[0], s.buf[1], s.buf[2], s.buf[3]]);
                let len = (len & 0x7fff_ffff) as usize;
                if len > MAX_RECORD {
                    s.buf.clear();
                    s.skip = len;
                    ctx.counters.incr(Counter::Krb5RecordLimit);
                    continue;
                }
                if len > 0 {
                    continue;
                }
                // An empty record: the header is all there is, and no message.
                s.buf.clear();
                if !self.message(ctx, dir, &[]) {
                    self.failed = true;
                }
                continue;
            }
            let rec = std::mem::take(&mut s.buf);
            if !self.message(ctx, dir, &rec[4..]) {
                self.failed = true;
            }
        }
    }

    /// A hole in one TCP direction: record boundaries are lost, nothing more is read
    /// on that side.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        let s = &mut self.tcp[dir.index()];
        s.buf.clear();
        s.lost = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sv-ether.pcap, 192.168.189.100:65285 -> 192.168.189.1:88 (TCP records): an
    /// AS-REQ and its AS-REP (the encrypted part in RC4), and from port 65284 the
    /// KRB-ERROR answering an AS-REQ.
    const AS_REQ: &[u8] = include_bytes!("testdata/as_req.bin");
    const AS_REP: &[u8] = include_bytes!("testdata/as_rep.bin");
    const ERROR: &[u8] = include_bytes!("testdata/error.bin");

    fn objects(s: &Krb5State) -> Vec<String> {
        s.txs()
            .map(|t| super::super::log::krb5_object(t).to_string())
            .collect()
    }

    /// A record of length zero (found by replaying the fuzz corpus: it looped for
    /// ever, the 4-byte header being taken for the whole record again and again).
    #[test]
    fn an_empty_tcp_record_ends_parsing() {
        let mut ctx = AppCtx::default();
        let mut s = Krb5State::new(Transport::Tcp);
        s.parse(&mut ctx, Direction::ToServer, &[0, 0, 0, 0, 0x6a, 0x01]);
        assert!(s.failed);
        assert_eq!(s.txs().count(), 0);
    }

    #[test]
    fn a_real_exchange_over_tcp_in_any_split() {
        for step in [1, 5, 64, 4096] {
            let mut ctx = AppCtx::default();
            ctx.anomalies.set_enabled(true);
            let mut s = Krb5State::new(Transport::Tcp);
            for c in AS_REQ.chunks(step) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            for c in AS_REP.chunks(step) {
                s.parse(&mut ctx, Direction::ToClient, c);
            }
            assert!(!s.errored());
            // As Suricata 7.0.10 logs them.
            assert_eq!(
                objects(&s),
                [
                    r#"{"msg_type":"KRB_AS_REQ","cname":"test","realm":"DOM189.LOCAL","sname":"krbtgt/DOM189.LOCAL","encryption":"<none>","weak_encryption":false}"#,
                    r#"{"msg_type":"KRB_AS_REP","cname":"test","realm":"DOM189.LOCAL","sname":"krbtgt/DOM189.LOCAL","encryption":"rc4-hmac","weak_encryption":true,"ticket_encryption":"aes256-cts-hmac-sha1-96","ticket_weak_encryption":false}"#,
                ]
            );
            let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
            assert_eq!(got, [("krb5.weak_encryption", Some(1))]);
            assert_eq!(ctx.counters.get(Counter::TxKrb5Tcp), 2);
        }
    }

    #[test]
    fn an_error_names_the_request_it_answers() {
        let mut ctx = AppCtx::default();
        let mut s = Krb5State::new(Transport::Tcp);
        s.parse(&mut ctx, Direction::ToServer, AS_REQ);
        s.parse(&mut ctx, Direction::ToClient, ERROR);
        assert_eq!(
            objects(&s)[1],
            r#"{"msg_type":"KRB_ERROR","failed_request":"KRB_AS_REQ","error_code":"KDC_ERR_PREAUTH_REQUIRED","cname":"<empty>","realm":"<empty>","sname":"krbtgt/DOM189.LOCAL","encryption":"<none>","weak_encryption":false}"#
        );
    }

    #[test]
    fn udp_and_bad_input() {
        let mut ctx = AppCtx::default();
        let mut s = Krb5State::new(Transport::Udp);
        assert!(s.message(&mut ctx, Direction::ToServer, &AS_REQ[4..]));
        assert!(!s.message(&mut ctx, Direction::ToServer, &AS_REQ[4..40]));
        assert!(s.events().has(super::super::MALFORMED_DATA));
        assert_eq!(ctx.counters.get(Counter::ErrorKrb5Udp), 1);
        assert_eq!(s.txs().count(), 1);
        // TCP: a record that does not parse stops the flow.
        let mut s = Krb5State::new(Transport::Tcp);
        s.parse(&mut ctx, Direction::ToServer, &[0, 0, 0, 3, 0x6a, 1, 0]);
        assert!(s.errored());
        // An over-long record is skipped and counted.
        let mut s = Krb5State::new(Transport::Tcp);
        let big = (MAX_RECORD as u32 + 1).to_be_bytes();
        s.parse(&mut ctx, Direction::ToServer, &big);
        s.parse(&mut ctx, Direction::ToServer, &vec![0; MAX_RECORD + 1]);
        s.parse(&mut ctx, Direction::ToServer, AS_REQ);
        assert!(!s.errored() && s.txs().count() == 1);
        assert_eq!(ctx.counters.get(Counter::Krb5RecordLimit), 1);
    }
}
