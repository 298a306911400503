//! IKE's per-flow state: each datagram is one message and one transaction, as Suricata
//! counts them. What a message teaches the flow (IKEv1: the domain of interpretation,
//! the responder's chosen transform, each side's key exchange and nonce; IKEv2: the
//! responder's chosen algorithms) stays on the flow, and each transaction keeps a copy
//! of it as it was when the message came: Suricata logs a message's record with the
//! flow's knowledge at that time.

use std::collections::VecDeque;
use std::sync::Arc;

use super::parser::{self, Header, Transform, HEADER_LEN};
use super::v2::{self, Chosen};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// One side's key exchange data and nonce (IKEv1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Side {
    /// Key exchange data.
    pub key_exchange: Option<Arc<[u8]>>,
    /// Nonce.
    pub nonce: Option<Arc<[u8]>>,
}

/// What the flow knows, copied into each transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// IKEv1: the domain of interpretation of the first SA seen.
    pub doi: Option<u32>,
    /// IKEv1: the first transform the responder sent.
    pub chosen: Option<Arc<Transform>>,
    /// The initiator's (client's) key exchange and nonce.
    pub client: Side,
    /// The responder's (server's).
    pub server: Side,
    /// IKEv2: the algorithms the responder chose.
    pub v2_chosen: Chosen,
}

/// The parts of a message only IKEv2 has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct V2Info {
    /// Notify types.
    pub notify: Vec<String>,
    /// Error notifications.
    pub errors: u32,
}

/// One IKE message.
#[derive(Clone, Debug)]
pub struct IkeTx {
    pub(crate) id: u64,
    /// The direction it travelled.
    pub dir: Direction,
    /// Its header.
    pub hdr: Header,
    /// IKEv1: its payloads are encrypted (only the first one's type is known).
    pub encrypted: bool,
    /// Its payload types, as logged.
    pub payload_types: Vec<String>,
    /// IKEv1 from the initiator: the transforms it proposed.
    pub proposals: Vec<Transform>,
    /// Its vendor IDs.
    pub vendor_ids: Vec<Vec<u8>>,
    /// IKEv2 only.
    pub v2: Option<V2Info>,
    /// The flow's knowledge when it came.
    pub known: Known,
    /// Its payloads did not parse.
    pub malformed: bool,
}

impl IkeTx {
    /// The key exchange data and nonce of the side that sends in `dir`.
    pub fn side(&self, dir: Direction) -> &Side {
        match dir {
            Direction::ToServer => &self.known.client,
            Direction::ToClient => &self.known.server,
        }
    }
}

/// The IKE state of one flow.
#[derive(Debug, Default)]
pub struct IkeState {
    txs: VecDeque<IkeTx>,
    next_id: u64,
    known: Known,
    events: Events,
    /// Messages come after a non-ESP marker (port 4500).
    natt: bool,
}

impl IkeState {
    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &IkeTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
        self.events.raise(i);
        ctx.anomalies.parser(AppProto::Ike, super::EVENTS[i], tx);
    }

    /// One datagram travelling `dir`; `false` when it is not an IKE message (raises
    /// `ike.malformed_data` and counts the parser error). Over port 4500 a message
    /// follows a 4-byte zero non-ESP marker; ESP packets and NAT keepalives there are
    /// passed over.
    pub fn message(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> bool {
        let data = match super::strip_marker(data, &mut self.natt) {
            Some(d) => d,
            None => return true,
        };
        let hdr = match parser::header(data) {
            Some(h) if (1..=2).contains(&h.major) => h,
            _ => {
                self.raise(ctx, super::MALFORMED_DATA, None);
                ctx.counters.incr(Counter::ErrorIke);
                return false;
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        let len = (hdr.length as usize).clamp(HEADER_LEN, data.len());
        let body = &data[HEADER_LEN..len];
        let mut tx = IkeTx {
            id,
            dir,
            encrypted: false,
            payload_types: Vec::new(),
            proposals: Vec::new(),
            vendor_ids: Vec::new(),
            v2: None,
            known: Known::default(),
            malformed: false,
            hdr,
        };
        let mut events = Vec::new();
        if tx.hdr.major == 1 {
            if (tx.hdr.length as usize) < data.len() {
                events.push(super::proto::PAYLOAD_EXTRA_DATA);
            }
            self.v1(&mut tx, body, &mut events);
        } else {
            self.v2(&mut tx, body, &mut events);
            if (tx.hdr.length as usize) < data.len() {
                events.push(super::proto::PAYLOAD_EXTRA_DATA);
            }
        }
        tx.known = self.known.clone();
        ctx.counters.incr(Counter::TxIke);
        for e in events {
            self.raise(ctx, e, Some(id));
        }
        let ok = !tx.malformed;
        if !ok {
            self.raise(ctx, super::MALFORMED_DATA, Some(id));
            ctx.counters.incr(Counter::ErrorIke);
        }
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(tx);
        ok
    }

    fn side(&mut self, dir: Direction) -> &mut Side {
        match dir {
            Direction::ToServer => &mut self.known.client,
            Direction::ToClient => &mut self.known.server,
        }
    }

    fn v1(&mut self, tx: &mut IkeTx, body: &[u8], events: &mut Vec<usize>) {
        if tx.hdr.flags & 0x01 != 0 {
            tx.encrypted = true;
            tx.payload_types
                .extend(parser::v1_type_name(tx.hdr.next_payload).map(String::from));
            return;
        }
        let Some(p) = parser::v1_payloads(body, tx.hdr.next_payload) else {
            tx.malformed = true;
            return;
        };
        tx.payload_types = p
            .types
            .iter()
            .filter_map(|&t| parser::v1_type_name(t).map(String::from))
            .collect();
        if self.known.doi.is_none() {
            self.known.doi = p.doi;
        }
        let side = self.side(tx.dir);
        if let Some(k) = p.key_exchange {
            side.key_exchange = Some(k.into());
        }
        if let Some(n) = p.nonce {
            side.nonce = Some(n.into());
        }
        tx.vendor_ids = p.vendor_ids;
        match tx.dir {
            Direction::ToServer => tx.proposals = p.transforms,
            Direction::ToClient => {
                if p.transforms.len() > 1 {
                    events.push(super::MULTIPLE_SERVER_PROPOSAL);
                }
                if let Some(first) = p.transforms.into_iter().next() {
                    self.known.chosen = Some(Arc::new(first));
                }
            }
        }
    }

    fn v2(&mut self, tx: &mut IkeTx, body: &[u8], events: &mut Vec<usize>) {
        let Some(p) = v2::payloads(body, tx.hdr.next_payload) else {
            tx.malformed = true;
            tx.v2 = Some(V2Info::default());
            return;
        };
        tx.payload_types = p.types;
        tx.vendor_ids = p.vendor_ids;
        *events = p.events;
        let side = self.side(tx.dir);
        if let Some(k) = p.key_exchange {
            side.key_exchange = Some(k.into());
        }
        if let Some(n) = p.nonce {
            side.nonce = Some(n.into());
        }
        if tx.dir == Direction::ToClient {
            if let Some(c) = p.chosen {
                self.known.v2_chosen = c;
            }
        }
        tx.v2 = Some(V2Info {
            notify: p.notify,
            errors: p.errors,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sv-ether.pcap, 192.168.12.1:500 <-> 192.168.12.2:500: a main-mode exchange
    /// (SA, then key exchange and nonces, then encrypted identification).
    const SA_INIT: &[u8] = include_bytes!("testdata/v1_sa_init.bin");
    const SA_RESP: &[u8] = include_bytes!("testdata/v1_sa_resp.bin");
    const KE_INIT: &[u8] = include_bytes!("testdata/v1_ke_init.bin");
    const KE_RESP: &[u8] = include_bytes!("testdata/v1_ke_resp.bin");
    const ENC: &[u8] = include_bytes!("testdata/v1_enc.bin");

    #[test]
    fn the_flow_learns_from_each_message() {
        let mut ctx = AppCtx::default();
        let mut s = IkeState::default();
        for (d, m) in [
            (Direction::ToServer, SA_INIT),
            (Direction::ToClient, SA_RESP),
            (Direction::ToServer, KE_INIT),
            (Direction::ToClient, KE_RESP),
            (Direction::ToServer, ENC),
        ] {
            assert!(s.message(&mut ctx, d, m));
        }
        let t: Vec<_> = s.txs().collect();
        assert_eq!(t.len(), 5);
        assert_eq!(ctx.counters.get(Counter::TxIke), 5);
        assert!(t[0].known.chosen.is_none() && t[0].proposals.len() == 1);
        assert_eq!(t[1].known.chosen.as_ref().unwrap().len(), 7);
        assert!(t[1].proposals.is_empty());
        assert!(t[2].known.server.nonce.is_none());
        assert_eq!(t[2].known.client.key_exchange.as_ref().unwrap().len(), 128);
        assert_eq!(t[3].known.server.nonce.as_ref().unwrap().len(), 20);
        assert!(t[4].encrypted);
        assert_eq!(t[4].payload_types, ["Identification"]);
        assert!(s.events().is_empty());
    }

    /// As Suricata 7.0.10 inspects them (found by the differential harness's `ike`
    /// family): a message in its own direction only, the chosen SA attribute on the
    /// responder's SA message only.
    #[test]
    fn messages_are_inspected_in_their_direction_and_the_chosen_sa_once() {
        use crate::proto::Transaction;
        let mut ctx = AppCtx::default();
        let mut s = IkeState::default();
        for (d, m) in [
            (Direction::ToServer, SA_INIT),
            (Direction::ToClient, SA_RESP),
            (Direction::ToServer, KE_INIT),
            (Direction::ToClient, KE_RESP),
        ] {
            assert!(s.message(&mut ctx, d, m));
        }
        let t: Vec<_> = s.txs().collect();
        let hash = t[1].chosen_attribute("alg_hash").unwrap();
        let opt = rules::AppOpt {
            name: "ike.chosen_sa_attribute",
            protos: &[],
            negated: false,
            value: rules::AppValue::Named {
                name: "alg_hash".into(),
                cmp: rules::IntCmp::Eq(hash),
            },
        };
        let hits: Vec<bool> = t
            .iter()
            .map(|x| x.check(&opt, Direction::ToClient))
            .collect();
        assert_eq!(hits, [false, true, false, false]);
        assert!(!t[1].check(&opt, Direction::ToServer));
        let spi = crate::BufferId::of(crate::AppProto::Ike, "ike.init_spi").unwrap();
        let seen = |x: &IkeTx, d| {
            let mut n = 0;
            x.buffers(spi, d, &mut |_| n += 1);
            n
        };
        assert_eq!(
            (
                seen(t[0], Direction::ToServer),
                seen(t[0], Direction::ToClient)
            ),
            (1, 0)
        );
    }

    /// An initiator SPI of zeros is not a non-ESP marker: the message is IKE (as
    /// Suricata 7.0.10 detects and parses it).
    #[test]
    fn a_zero_initiator_spi_is_a_message() {
        let mut m = SA_INIT.to_vec();
        m[..8].fill(0);
        assert!(matches!(
            super::super::probe_udp(Direction::ToServer, &m),
            crate::detect::Probe::Match(_)
        ));
        let mut ctx = AppCtx::default();
        let mut s = IkeState::default();
        assert!(s.message(&mut ctx, Direction::ToServer, &m));
        let t = s.txs().next().unwrap();
        assert_eq!((t.hdr.init_spi, t.proposals.len()), ([0; 8], 1));
    }

    #[test]
    fn bad_messages() {
        let mut ctx = AppCtx::default();
        let mut s = IkeState::default();
        // Too short for a header.
        assert!(!s.message(&mut ctx, Direction::ToServer, &SA_INIT[..20]));
        // A payload chain cut short: a transaction, marked malformed.
        assert!(!s.message(&mut ctx, Direction::ToServer, &SA_INIT[..60]));
        assert_eq!(s.txs().count(), 1);
        assert!(s.events().has(super::super::MALFORMED_DATA));
        assert_eq!(ctx.counters.get(Counter::ErrorIke), 2);
        // Over port 4500: the non-ESP marker, then a message; ESP is passed over.
        let mut nat = vec![0; 4];
        nat.extend_from_slice(SA_INIT);
        assert!(s.message(&mut ctx, Direction::ToServer, &nat));
        assert!(s.message(&mut ctx, Direction::ToServer, &[1, 2, 3, 4, 0, 0, 0, 1]));
        assert!(s.message(&mut ctx, Direction::ToServer, &[0xff]));
        assert_eq!(s.txs().count(), 2);
    }
}
