//! The per-flow QUIC state and its transactions, as Suricata 7 makes them: every long
//! header packet of a datagram is a transaction (its version), the one that completes
//! the client's or the server's hello carries what the hello says. Once a direction's
//! hello has been seen, the rest of that direction is encrypted with keys a passive
//! observer does not have and is not parsed; a Retry makes the client start again
//! with new keys. A packet that does not open with the Initial keys is a parser error.

use std::collections::{BTreeMap, VecDeque};

use super::crypto::{self, Keys};
use super::frames::{chlo, crypto_frames};
use super::header::{self, is_gquic, PacketType, Parsed};
use super::hello::{self, Extension};
use crate::events::Events;
use crate::tls::ja3::Ja3;
use crate::{AppCtx, Counter, Direction};

/// The most bytes of CRYPTO frames kept per direction while the hello is incomplete
/// (beyond it `quic.crypto_frag_too_long` is raised and the frame dropped).
pub const MAX_CRYPTO: u64 = 65536;

/// One QUIC transaction: one long-header packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuicTx {
    /// Transaction id, increasing within the flow.
    pub id: u64,
    /// The direction the packet travelled.
    pub dir: Direction,
    /// The packet's version field.
    pub version: u32,
    /// Whether `quic.version` has a buffer: a long header's version (IETF or Google
    /// QUIC Q046+). Suricata 7.0.10 gives a legacy Google QUIC public header (Q043)
    /// none, though it logs its version.
    pub version_buffer: bool,
    /// The server name (TLS server_name extension, or the CHLO's `SNI` tag).
    pub sni: Option<Vec<u8>>,
    /// The CHLO's user agent (`UAID`).
    pub ua: Option<Vec<u8>>,
    /// The CHLO's CYU fingerprints.
    pub cyu: Vec<Ja3>,
    /// The ClientHello's JA3.
    pub ja3: Option<Ja3>,
    /// The ServerHello's JA3S.
    pub ja3s: Option<Ja3>,
    /// The hello's extensions.
    pub extensions: Vec<Extension>,
}

impl QuicTx {
    fn new(id: u64, dir: Direction, version: u32) -> Self {
        QuicTx {
            id,
            dir,
            version,
            version_buffer: true,
            sni: None,
            ua: None,
            cyu: Vec::new(),
            ja3: None,
            ja3s: None,
            extensions: Vec::new(),
        }
    }
}

/// The CRYPTO stream of one direction, kept in pieces until the hello is whole.
#[derive(Debug, Default)]
struct CryptoStream {
    frags: BTreeMap<u64, Vec<u8>>,
}

impl CryptoStream {
    /// Adds a frame; `false` when it reaches past [`MAX_CRYPTO`] (dropped).
    fn add(&mut self, offset: u64, data: &[u8]) -> bool {
        if offset.saturating_add(data.len() as u64) > MAX_CRYPTO {
            return false;
        }
        let e = self.frags.entry(offset).or_default();
        if data.len() > e.len() {
            *e = data.to_vec();
        }
        true
    }

    /// The bytes contiguous from offset 0.
    fn contiguous(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        for (&off, d) in &self.frags {
            let end = off as usize + d.len();
            if off as usize > out.len() {
                break;
            }
            if end > out.len() {
                out.extend_from_slice(&d[out.len() - off as usize..]);
            }
        }
        out
    }

    /// The first handshake message, once it is whole.
    fn message(&self) -> Option<Vec<u8>> {
        let b = self.contiguous();
        let len = usize::from(*b.get(1)?) << 16 | usize::from(b[2]) << 8 | usize::from(*b.get(3)?);
        (b.len() >= 4 + len).then(|| b[..4 + len].to_vec())
    }
}

/// QUIC state of one flow.
#[derive(Debug, Default)]
pub struct QuicState {
    txs: VecDeque<QuicTx>,
    next_id: u64,
    keys: Option<Keys>,
    retried: bool,
    hello_done: [bool; 2],
    crypto: [CryptoStream; 2],
    events: Events,
}

/// Why a datagram's parsing stopped early.
enum Stop {
    /// A header that does not parse.
    Header,
    /// An Initial packet that does not open with the Initial keys.
    Decrypt,
}

impl QuicState {
    /// Transactions made so far.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &QuicTx> {
        self.txs.iter()
    }

    /// The app-layer events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// One datagram travelling `dir`: `false` on a parser error (counted as
    /// `app_layer.error.quic.parser`).
    pub fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> bool {
        match self.packets(ctx, dir, payload) {
            Ok(()) => true,
            Err(stop) => {
                if let Stop::Decrypt = stop {
                    self.events.raise(super::FAILED_DECRYPT);
                }
                ctx.counters.incr(Counter::ErrorQuic);
                false
            }
        }
    }

    fn packets(&mut self, ctx: &mut AppCtx, dir: Direction, mut buf: &[u8]) -> Result<(), Stop> {
        while !buf.is_empty() {
            if self.hello_done[dir.index()] {
                // The rest of this direction is encrypted with handshake keys.
                return Ok(());
            }
            let h = match header::parse(buf) {
                Parsed::Long(h) => h,
                Parsed::Short => return Ok(()),
                Parsed::Malformed => return Err(Stop::Header),
            };
            let (pkt, rest) = buf.split_at(h.len);
            buf = rest;
            let gquic = is_gquic(h.version);
            if h.ty == PacketType::Initial && !gquic && dir == Direction::ToServer {
                if self.keys.is_none() {
                    self.keys = Keys::initial(h.version, h.dcid);
                }
            } else if h.ty == PacketType::Retry && dir == Direction::ToClient && !self.retried {
                // The client starts again with keys from the Retry's connection id.
                if self.keys.take().is_some() {
                    self.hello_done[Direction::ToServer.index()] = false;
                    self.crypto[Direction::ToServer.index()] = CryptoStream::default();
                    self.retried = true;
                }
            }
            let mut tx = QuicTx::new(0, dir, h.version);
            tx.version_buffer = pkt.first().is_some_and(|b| b & 0x80 != 0);
            if h.ty == PacketType::Initial {
                if let Some(at) = h.clear_payload {
                    // Google QUIC: a 12-byte message hash, then the frames.
                    if let Some(c) = pkt.get(at + 12..).and_then(|p| chlo(h.version, p)) {
                        tx.sni = c.sni;
                        tx.ua = c.ua;
                        tx.cyu.extend(c.cyu);
                    }
                } else if let Some(keys) = &self.keys {
                    let k = match dir {
                        Direction::ToServer => &keys.client,
                        Direction::ToClient => &keys.server,
                    };
                    let plain = crypto::open(k, pkt, h.pn_offset).ok_or(Stop::Decrypt)?;
                    self.frames(dir, &plain, &mut tx);
                }
            }
            self.push(ctx, tx);
        }
        Ok(())
    }

    /// Takes the CRYPTO frames of a decrypted Initial packet; the transaction gets the
    /// hello once it is whole.
    fn frames(&mut self, dir: Direction, plain: &[u8], tx: &mut QuicTx) {
        let Some(frames) = crypto_frames(plain) else {
            self.events.raise(super::ERROR_ON_DATA);
            return;
        };
        let stream = &mut self.crypto[dir.index()];
        for f in frames {
            if !stream.add(f.offset, f.data) {
                self.events.raise(super::CRYPTO_FRAG_TOO_LONG);
            }
        }
        let Some(msg) = stream.message() else {
            return;
        };
        let Some(h) = hello::parse(&msg) else {
            self.events.raise(super::ERROR_ON_DATA);
            *stream = CryptoStream::default();
            return;
        };
        *stream = CryptoStream::default();
        if h.client != (dir == Direction::ToServer) {
            return;
        }
        self.hello_done[dir.index()] = true;
        tx.sni = h.sni;
        if h.client {
            tx.ja3 = Some(h.ja3);
        } else {
            tx.ja3s = Some(h.ja3);
        }
        tx.extensions = h.extensions;
    }

    fn push(&mut self, ctx: &mut AppCtx, mut tx: QuicTx) {
        tx.id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxQuic);
        self.txs.push_back(tx);
        while self.txs.len() > ctx.config.max_tx.max(1) {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quic::log::quic_object;
    use serde_json::Value;

    const CF_CLIENT: &[u8] = include_bytes!("testdata/cf-client-initial.bin");
    const CF_ACK: &[u8] = include_bytes!("testdata/cf-server-initial-ack.bin");
    const CF_HELLO: &[u8] = include_bytes!("testdata/cf-server-initial-hello.bin");
    const CF_HANDSHAKE: &[u8] = include_bytes!("testdata/cf-server-handshake.bin");

    fn objects(s: &QuicState) -> Vec<String> {
        s.txs().map(|t| quic_object(t).to_string()).collect()
    }

    /// sv-ether.pcap 35716-35719: the records are those Suricata 7.0.10 wrote.
    #[test]
    fn a_v1_handshake_decrypts_to_suricatas_records() {
        let mut ctx = AppCtx::default();
        let mut s = QuicState::default();
        assert!(s.datagram(&mut ctx, Direction::ToServer, CF_CLIENT));
        assert!(s.datagram(&mut ctx, Direction::ToClient, CF_ACK));
        assert!(s.datagram(&mut ctx, Direction::ToClient, CF_HELLO));
        // After the ServerHello the server's packets are not parsed.
        assert!(s.datagram(&mut ctx, Direction::ToClient, CF_HANDSHAKE));
        let want: Vec<String> = [
            r#"{"version":"1","sni":"cloudflare-quic.com","ja3":{"hash":"3cbc33c648fe331404456f48a5a27170","string":"771,4865-4866-4867,16-0-45-27-10-51-43-57-17513-13,29-23-24,"},"extensions":[{"name":"alpn","type":16,"values":["h3"]},{"name":"server_name","type":0,"values":["cloudflare-quic.com"]},{"name":"psk_key_exchange_modes","type":45},{"name":"compress_certificate","type":27},{"name":"supported_groups","type":10},{"name":"key_share","type":51},{"name":"supported_versions","type":43,"values":["Tls13"]},{"name":"quic_transport_parameters","type":57},{"type":17513},{"name":"signature_algorithms","type":13,"values":["1027","2052","1025","1283","2053","1281","2054","1537","513"]}]}"#,
            r#"{"version":"1"}"#,
            r#"{"version":"1","ja3s":{"hash":"eb1d94daa7e0344597e756a1fb6e7054","string":"771,4865,51-43"},"extensions":[{"name":"key_share","type":51},{"name":"supported_versions","type":43,"values":["Tls13"]}]}"#,
        ]
        .iter()
        .map(|s| serde_json::from_str::<Value>(s).unwrap().to_string())
        .collect();
        assert_eq!(objects(&s), want);
        let dirs: Vec<_> = s.txs().map(|t| t.dir).collect();
        assert_eq!(
            dirs,
            [
                Direction::ToServer,
                Direction::ToClient,
                Direction::ToClient
            ]
        );
        assert_eq!(ctx.counters.get(Counter::TxQuic), 3);
        assert_eq!(ctx.counters.get(Counter::ErrorQuic), 0);
        assert!(s.events().is_empty());
    }

    /// sv-ether.pcap 40087-40089: the ClientHello's CRYPTO frames, shuffled over three
    /// packets; the third packet's transaction has it.
    #[test]
    fn a_hello_over_three_packets() {
        let mut ctx = AppCtx::default();
        let mut s = QuicState::default();
        for p in [
            &include_bytes!("testdata/split-hello-1.bin")[..],
            include_bytes!("testdata/split-hello-2.bin"),
            include_bytes!("testdata/split-hello-3.bin"),
        ] {
            assert!(s.datagram(&mut ctx, Direction::ToServer, p));
        }
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 3);
        assert!(txs[0].sni.is_none() && txs[1].ja3.is_none());
        assert_eq!(
            txs[2].sni.as_deref(),
            Some(&b"optimizationguide-pa.googleapis.com"[..])
        );
        assert_eq!(
            txs[2].ja3.as_ref().unwrap().hash,
            "2adbc782adea01297ab7fcf01fe2acc1"
        );
        assert_eq!(txs[2].extensions.len(), 13);
    }

    /// sv-ether.pcap 40057: Google QUIC's CHLO, in the clear.
    #[test]
    fn a_q046_chlo() {
        let mut ctx = AppCtx::default();
        let mut s = QuicState::default();
        let chlo = include_bytes!("testdata/q046-chlo.bin");
        assert!(s.datagram(&mut ctx, Direction::ToServer, chlo));
        let want = r#"{"version":"Q046","sni":"clients1.google.com","ua":"Chrome/79.0.3945.117 Linux x86_64","cyu":[{"hash":"910a5e3a4d51593bd59a44611544f209","string":"46,PAD-SNI-VER-CCS-UAID-TCID-PDMD-SMHL-ICSL-NONP-MIDS-SCLS-CSCT-COPT-IRTT-CFCW-SFCW"}]}"#;
        let want = serde_json::from_str::<Value>(want).unwrap().to_string();
        assert_eq!(objects(&s), [want]);
        // Google QUIC has no "hello done": the next packet is parsed again.
        assert!(s.datagram(&mut ctx, Direction::ToServer, chlo));
        assert_eq!(s.tx_count(), 2);
    }

    #[test]
    fn a_q043_public_header_has_no_version_buffer() {
        let mut ctx = AppCtx::default();
        let mut s = QuicState::default();
        // Public flags, connection id, Q043, packet number, message hash, a STREAM
        // frame with a CHLO holding one SNI tag.
        let mut chlo = b"CHLO\x01\x00\x00\x00SNI\x00\x03\x00\x00\x00a.b".to_vec();
        let mut p = b"\x0d\x01\x02\x03\x04\x05\x06\x07\x08Q043\x01".to_vec();
        p.extend_from_slice(&[0x5a; 12]);
        p.extend_from_slice(&[0xa0, 0x01, 0, chlo.len() as u8]);
        p.append(&mut chlo);
        assert!(s.datagram(&mut ctx, Direction::ToServer, &p));
        let tx = s.txs().next().unwrap();
        assert_eq!(tx.sni.as_deref(), Some(&b"a.b"[..]));
        assert!(!tx.version_buffer);
        let mut s = QuicState::default();
        assert!(s.datagram(
            &mut ctx,
            Direction::ToServer,
            include_bytes!("testdata/q046-chlo.bin")
        ));
        assert!(s.txs().next().unwrap().version_buffer);
    }

    #[test]
    fn a_damaged_initial_fails_to_decrypt() {
        let mut ctx = AppCtx::default();
        let mut s = QuicState::default();
        let mut bad = CF_CLIENT.to_vec();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(!s.datagram(&mut ctx, Direction::ToServer, &bad));
        assert_eq!(s.tx_count(), 0);
        assert!(s.events().has(crate::quic::FAILED_DECRYPT));
        assert_eq!(ctx.counters.get(Counter::ErrorQuic), 1);
        // A truncated header is an error too.
        assert!(!s.datagram(&mut ctx, Direction::ToServer, &CF_CLIENT[..30]));
        assert_eq!(ctx.counters.get(Counter::ErrorQuic), 2);
    }

    #[test]
    fn crypto_frames_are_bounded() {
        let mut c = CryptoStream::default();
        assert!(c.add(10, b"cd"));
        assert!(c.add(0, b"\x01\x00\x00"));
        assert!(c.message().is_none());
        assert!(c.add(3, b"\x08abcdef"));
        assert_eq!(c.contiguous(), b"\x01\x00\x00\x08abcdefcd");
        assert_eq!(c.message().unwrap(), b"\x01\x00\x00\x08abcdefcd");
        assert!(!c.add(MAX_CRYPTO - 1, b"xx"));
    }

    #[test]
    fn live_transactions_are_bounded() {
        let mut ctx = AppCtx::default();
        ctx.config.max_tx = 2;
        let mut s = QuicState::default();
        let chlo = include_bytes!("testdata/q046-chlo.bin");
        for _ in 0..5 {
            s.datagram(&mut ctx, Direction::ToServer, chlo);
        }
        assert_eq!(s.txs().count(), 2);
        assert_eq!(ctx.counters.get(Counter::TxLimit), 3);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_datagrams_never_panic(
            dgs in proptest::collection::vec(proptest::collection::vec(0u8.., 0..300), 0..8),
            prefix in 0usize..64,
        ) {
            let mut ctx = AppCtx::default();
            let mut s = QuicState::default();
            for (i, d) in dgs.iter().enumerate() {
                let dir = if i % 2 == 0 { Direction::ToServer } else { Direction::ToClient };
                s.datagram(&mut ctx, dir, d);
                // A real header followed by garbage.
                let mut p = CF_CLIENT[..prefix.min(CF_CLIENT.len())].to_vec();
                p.extend(d);
                s.datagram(&mut ctx, dir, &p);
                let _ = super::super::frames::crypto_frames(d);
                let _ = super::super::frames::chlo(u32::from_be_bytes(*b"Q046"), d);
                let _ = hello::parse(d);
            }
        }
    }
}
