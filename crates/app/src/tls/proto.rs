//! TLS on the protocol contract. A TLS session has no transactions of its own: the
//! state is one pseudo-transaction (id 0) that is never final, whose buffers fill in
//! as the handshake goes by.

use serde_json::Value;

use super::TlsState;
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

const SNI: usize = 0;
const SUBJECT: usize = 1;
const ISSUER: usize = 2;
const CERTS: usize = 3;
const JA3_HASH: usize = 4;
const JA3_STRING: usize = 5;
const JA3S_HASH: usize = 6;
const JA3S_STRING: usize = 7;
const SERIAL: usize = 8;
const FINGERPRINT: usize = 9;
const RANDOM: usize = 10;
const RANDOM_TIME: usize = 11;
const RANDOM_BYTES: usize = 12;
const JA4_HASH: usize = 13;

/// TLS's inspection buffers (indexed by the constants above).
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("tls.sni", Some(Direction::ToServer)),
    BufferDef::new("tls.cert_subject", Some(Direction::ToClient)),
    BufferDef::new("tls.cert_issuer", Some(Direction::ToClient)),
    // Each DER certificate of the server's chain.
    BufferDef::new("tls.certs", Some(Direction::ToClient)).multi(),
    BufferDef::new("ja3.hash", Some(Direction::ToServer)),
    BufferDef::new("ja3.string", Some(Direction::ToServer)),
    BufferDef::new("ja3s.hash", Some(Direction::ToClient)),
    BufferDef::new("ja3s.string", Some(Direction::ToClient)),
    BufferDef::new("tls.cert_serial", Some(Direction::ToClient)),
    BufferDef::new("tls.cert_fingerprint", Some(Direction::ToClient)),
    // The random of the hello of the packet's side (all 32 bytes, the first 4, the
    // last 28).
    BufferDef::new("tls.random", None),
    BufferDef::new("tls.random_time", None),
    BufferDef::new("tls.random_bytes", None),
    BufferDef::new("ja4.hash", Some(Direction::ToServer)),
];

/// The state of a new TLS flow.
pub(crate) fn new_state(_: Transport) -> Option<(AppState, Counter)> {
    Some((AppState::Tls(slabs::SlabBox::default()), Counter::FlowTls))
}

impl Protocol for TlsState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        TlsState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        TlsState::gap(self, ctx, dir)
    }

    fn close(&mut self, _ctx: &mut AppCtx) {
        TlsState::close(self)
    }

    fn errored(&self) -> bool {
        TlsState::errored(self)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        f(self)
    }

    /// The session, whatever the id (alerts on it carry 0).
    fn find_tx(&self, _id: u64) -> Option<&dyn Transaction> {
        Some(self)
    }
}

/// The ServerHello's random before it is parsed: Suricata 7.0.10 reads the to-client
/// `tls.random` buffers from a zeroed field once the ClientHello is in, so they hold 32
/// (4, 28) zero bytes until the ServerHello fills them (`tls.random; bsize:32;` alerts
/// on the server's first packet; difftest class `tls/server-tls.random`).
const UNSET_RANDOM: [u8; 32] = [0; 32];

impl TlsState {
    /// The random the `tls.random` buffers hold for a side whose hello is not parsed:
    /// zeros on the to-client side once the ClientHello is in, else none.
    fn unset_random(&self, dir: Direction) -> Option<&'static [u8; 32]> {
        (dir == Direction::ToClient && self.client_hello_done()).then_some(&UNSET_RANDOM)
    }
}

impl Transaction for TlsState {
    fn id(&self) -> u64 {
        0
    }

    fn proto(&self) -> AppProto {
        AppProto::Tls
    }

    /// The client side once its ClientHello is in, the server side once the
    /// clear-text handshake is over.
    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => self.client_hello_done(),
            Direction::ToClient => self.handshake_done(),
        }
    }

    /// The session's buffers are inspected for as long as it lasts.
    fn is_final(&self) -> bool {
        false
    }

    fn fingerprint(&self) -> (u64, u64) {
        let len = |x: Option<&[u8]>| x.map_or(u64::MAX, |b| b.len() as u64);
        let h = mix(len(self.sni()), len(self.cert_subject().map(str::as_bytes)));
        let h = mix(h, len(self.cert_issuer().map(str::as_bytes)));
        let h = mix(h, self.certs().count() as u64);
        let h = mix(
            h,
            u64::from(self.ja3().is_some()) | u64::from(self.ja3s().is_some()) << 1,
        );
        let h = mix(h, u64::from(self.last_message().0));
        let h = mix(h, u64::from(self.server_hello_done()));
        let v = |d| self.side_version(d).map_or(u64::MAX, u64::from);
        let h = mix(mix(h, v(Direction::ToServer)), v(Direction::ToClient));
        (mix(h, u64::from(self.certs_inspectable())), 0)
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        // Suricata inspects the certificate buffers from its TLS "handshake done"
        // progress on (see `TlsState::certs_inspectable`).
        match b.local() {
            SNI => {
                if let Some(x) = self.sni() {
                    f(x)
                }
            }
            SUBJECT if self.certs_inspectable() => {
                if let Some(x) = self.cert_subject() {
                    f(x.as_bytes())
                }
            }
            ISSUER if self.certs_inspectable() => {
                if let Some(x) = self.cert_issuer() {
                    f(x.as_bytes())
                }
            }
            CERTS if self.certs_inspectable() => self.certs().for_each(f),
            JA3_HASH | JA3_STRING => {
                if let Some(j) = self.ja3() {
                    f(if b.local() == JA3_HASH {
                        j.hash.as_bytes()
                    } else {
                        j.string.as_bytes()
                    })
                }
            }
            JA3S_HASH | JA3S_STRING => {
                if let Some(j) = self.ja3s() {
                    f(if b.local() == JA3S_HASH {
                        j.hash.as_bytes()
                    } else {
                        j.string.as_bytes()
                    })
                }
            }
            SERIAL | FINGERPRINT if self.certs_inspectable() => {
                if let Some(c) = self.cert_info() {
                    f(if b.local() == SERIAL {
                        c.serial.as_bytes()
                    } else {
                        c.fingerprint.as_bytes()
                    })
                }
            }
            // The client's random is inspected once the ServerHello is in, as
            // Suricata 7.0.10 does (a rule on it alerts on the first to-server
            // inspection after the ServerHello, not on the ClientHello's packet).
            RANDOM | RANDOM_TIME | RANDOM_BYTES
                if dir == Direction::ToClient || self.server_hello_done() =>
            {
                if let Some(r) = self.random(dir).or_else(|| self.unset_random(dir)) {
                    f(match b.local() {
                        RANDOM => &r[..],
                        RANDOM_TIME => &r[..4],
                        _ => &r[4..],
                    })
                }
            }
            JA4_HASH => {
                if let Some(j) = self.ja4() {
                    f(j.as_bytes())
                }
            }
            _ => {}
        }
    }

    /// `tls.version`, `ssl_version`, `ssl_state` and the certificate keywords (see
    /// `super::keywords`).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        super::keywords::check(self, opt, dir)
    }

    /// Logged once the clear-text handshake is over, or when the flow ends.
    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.handshake_done()
    }

    fn log(&self, extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::tls_object(self, extended))
    }

    /// The extended object, without `from_proto` (Suricata's alerts leave it out).
    fn alert_object(&self) -> Value {
        let mut v = super::log::tls_object(self, true);
        if let Some(o) = v.as_object_mut() {
            o.remove("from_proto");
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::tests::{client_hello_msg, records, server_hello_msg};
    use super::super::parser::CT_HANDSHAKE;
    use super::*;

    fn random_bufs(s: &TlsState, dir: Direction) -> Vec<Vec<u8>> {
        ["tls.random", "tls.random_time", "tls.random_bytes"]
            .into_iter()
            .flat_map(|name| {
                let mut got = vec![];
                let id = BufferId::of(AppProto::Tls, name).unwrap();
                s.buffers(id, dir, &mut |b| got.push(b.to_vec()));
                got
            })
            .collect()
    }

    #[test]
    fn to_client_randoms_are_zeros_until_the_server_hello() {
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        // Nothing before the ClientHello, either way.
        assert!(random_bufs(&s, Direction::ToClient).is_empty());
        let ch = records(CT_HANDSHAKE, &client_hello_msg("a.example", &[]), 1000);
        s.parse(&mut ctx, Direction::ToServer, &ch[..ch.len() - 1]);
        assert!(random_bufs(&s, Direction::ToClient).is_empty());
        s.parse(&mut ctx, Direction::ToServer, &ch[ch.len() - 1..]);
        // The ClientHello in: the server's side reads zeros (Suricata 7.0.10), the
        // client's its own random.
        assert_eq!(
            random_bufs(&s, Direction::ToClient),
            [vec![0; 32], vec![0; 4], vec![0; 28]]
        );
        // The client's own random waits for the ServerHello (IPS timing, h1).
        assert!(random_bufs(&s, Direction::ToServer).is_empty());
        let sh = records(CT_HANDSHAKE, &server_hello_msg(0x0303, false), 1000);
        s.parse(&mut ctx, Direction::ToClient, &sh);
        let server = s.random(Direction::ToClient).unwrap();
        assert_eq!(server, &[9; 32]);
        assert_eq!(random_bufs(&s, Direction::ToClient)[0], server);
        let client = random_bufs(&s, Direction::ToServer);
        assert_eq!(client.len(), 3);
        assert_eq!(client[0], s.random(Direction::ToServer).unwrap());
    }

    fn random_time(s: &TlsState, dir: Direction) -> Option<Vec<u8>> {
        let b = BufferId::of(AppProto::Tls, "tls.random_time").expect("tls.random_time");
        let mut got = None;
        s.buffers(b, dir, &mut |x| got = Some(x.to_vec()));
        got
    }

    #[test]
    fn the_client_random_waits_for_the_server_hello() {
        // dt-1-111 (IPS mode): `tls.random_time` to the server alerts on the first
        // to-server inspection after the ServerHello, as Suricata 7.0.10.
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        let ch = client_hello_msg("a.example", &[0x0303]);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &records(CT_HANDSHAKE, &ch, 10_000),
        );
        assert!(s.client_hello_done() && s.random(Direction::ToServer).is_some());
        assert_eq!(random_time(&s, Direction::ToServer), None);
        let fp = s.fingerprint();
        let sh = server_hello_msg(0x0303, false);
        s.parse(
            &mut ctx,
            Direction::ToClient,
            &records(CT_HANDSHAKE, &sh, 10_000),
        );
        assert_ne!(s.fingerprint(), fp);
        let want = s.random(Direction::ToServer).map(|r| r[..4].to_vec());
        assert_eq!(random_time(&s, Direction::ToServer), want);
        let server = s.random(Direction::ToClient).map(|r| r[..4].to_vec());
        assert_eq!(random_time(&s, Direction::ToClient), server);
    }
}
