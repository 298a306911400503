//! IKE on the protocol contract: each message is a transaction, complete as it
//! arrives and logged then (without a `tx_id`, in the direction it travelled, as
//! Suricata writes `ike` records).

use serde_json::Value;

use super::parser::attr_key;
use super::state::{IkeState, IkeTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// IKE's inspection buffers: the SPIs (as hex text; the initiator's to the server, the
/// responder's to the client, the sides Suricata 7.0.10 registers them for), the vendor
/// IDs of the initiator's messages (hex text, one each), and the key exchange data and
/// nonce of the message (none when empty).
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("ike.init_spi", Some(Direction::ToServer)),
    BufferDef::new("ike.resp_spi", Some(Direction::ToClient)),
    BufferDef::new("ike.vendor", Some(Direction::ToServer)).multi(),
    BufferDef::new("ike.key_exchange_payload", None),
    BufferDef::new("ike.nonce_payload", None),
];

/// IKE's application-layer events (Suricata's `ipsec-events.rules`).
pub(crate) static EVENTS: &[&str] = &[
    "ike.malformed_data",
    "ike.no_encryption",
    "ike.weak_crypto_enc",
    "ike.weak_crypto_prf",
    "ike.weak_crypto_dh",
    "ike.weak_crypto_auth",
    "ike.weak_crypto_no_dh",
    "ike.weak_crypto_no_auth",
    "ike.invalid_proposal",
    "ike.unknown_proposal",
    "ike.payload_extra_data",
    "ike.multiple_server_proposal",
];

/// A message that does not parse.
pub(crate) const MALFORMED_DATA: usize = 0;
/// An IKEv2 proposal for AH (no encryption).
pub(crate) const NO_ENCRYPTION: usize = 1;
/// A weak encryption algorithm proposed.
pub(crate) const WEAK_CRYPTO_ENC: usize = 2;
/// A weak pseudo-random function proposed.
pub(crate) const WEAK_CRYPTO_PRF: usize = 3;
/// A weak Diffie-Hellman group proposed.
pub(crate) const WEAK_CRYPTO_DH: usize = 4;
/// A weak integrity algorithm proposed.
pub(crate) const WEAK_CRYPTO_AUTH: usize = 5;
/// A proposal without a Diffie-Hellman group.
pub(crate) const WEAK_CRYPTO_NO_DH: usize = 6;
/// A proposal without integrity nor an AEAD cipher.
pub(crate) const WEAK_CRYPTO_NO_AUTH: usize = 7;
/// A proposal with a null PRF or DH group.
pub(crate) const INVALID_PROPOSAL: usize = 8;
/// A proposal with a transform of unknown type.
pub(crate) const UNKNOWN_PROPOSAL: usize = 9;
/// Bytes past the message's length.
pub(crate) const PAYLOAD_EXTRA_DATA: usize = 10;
/// An IKEv1 responder sending more than one transform.
pub(crate) const MULTIPLE_SERVER_PROPOSAL: usize = 11;

/// The state of a new IKE flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    match t {
        Transport::Udp => Some((AppState::Ike(Box::default()), Counter::FlowIke)),
        Transport::Tcp => None,
    }
}

impl Protocol for IkeState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if self.message(ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        IkeState::events(self).each(EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

fn hex(b: &[u8]) -> String {
    crate::tls::ja3::hex_lower(b)
}

impl IkeTx {
    /// The key exchange data or nonce (`get`) of the message itself, when it carries a
    /// payload of type `kind` that is not empty: Suricata 7.0.10 reads a message's own
    /// payloads, not what the flow learnt before (found by the differential harness's
    /// `ike` family and `cli/tests/eve_issue24c.rs`).
    fn own(
        &self,
        dir: Direction,
        kind: &str,
        get: fn(&super::state::Side) -> &Option<std::sync::Arc<[u8]>>,
    ) -> Option<&[u8]> {
        if !self.payload_types.iter().any(|t| t == kind) {
            return None;
        }
        get(self.side(dir)).as_deref().filter(|b| !b.is_empty())
    }

    /// The value of the chosen transform's attribute named `name` (`alg_hash`,
    /// `sa_key_length`, ...; IKEv2: `alg_enc`, `alg_auth`, `alg_prf`, `alg_dh`) as
    /// logged: what the flow knows when the message came.
    pub fn chosen_attribute(&self, name: &str) -> Option<u64> {
        if self.hdr.major == 2 {
            let c = &self.known.v2_chosen;
            return match name {
                "alg_enc" => Some(c.enc),
                "alg_auth" => Some(c.auth),
                "alg_prf" => Some(c.prf),
                "alg_dh" => Some(c.dh),
                _ => None,
            }
            .filter(|&v| v != 0)
            .map(u64::from);
        }
        self.known
            .chosen
            .as_ref()?
            .iter()
            .find(|a| attr_key(a.kind) == name)
            .and_then(|a| a.num())
    }
}

impl Transaction for IkeTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Ike
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// A message's buffers in the direction it travelled only, as Suricata 7.0.10
    /// inspects IKE transactions; no key exchange data or nonce for IKEv2, which
    /// Suricata does not expose (found by the differential harness's `ike` family).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if dir != self.dir || (self.hdr.major == 2 && b.local() >= 3) {
            return;
        }
        match b.local() {
            0 => f(hex(&self.hdr.init_spi).as_bytes()),
            1 => f(hex(&self.hdr.resp_spi).as_bytes()),
            2 => self.vendor_ids.iter().for_each(|v| f(hex(v).as_bytes())),
            3 => {
                if let Some(k) = self.own(dir, "KeyExchange", |s| &s.key_exchange) {
                    f(k)
                }
            }
            4 => {
                if let Some(n) = self.own(dir, "Nonce", |s| &s.nonce) {
                    f(n)
                }
            }
            _ => {}
        }
    }

    /// `ike.exchtype`, `ike.chosen_sa_attribute`, `ike.nonce_payload_length` and
    /// `ike.key_exchange_payload_length` (of the side sending in `dir`; no match when
    /// it sent none), in the message's direction only. The chosen SA attribute matches
    /// on the IKEv1 responder message that carries the SA, not on later ones; IKEv2's
    /// payload lengths never match (as in Suricata 7.0.10).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        if dir != self.dir {
            return false;
        }
        let v1 = self.hdr.major == 1;
        let (value, cmps) = match (&opt.value, opt.name) {
            (rules::AppValue::Named { name, cmp }, "ike.chosen_sa_attribute") => {
                let carries_sa = !v1
                    || (self.dir == Direction::ToClient
                        && self
                            .payload_types
                            .iter()
                            .any(|t| t == "SecurityAssociation"));
                (
                    self.chosen_attribute(name).filter(|_| carries_sa),
                    std::slice::from_ref(cmp),
                )
            }
            (rules::AppValue::Ints(_), "ike.nonce_payload_length")
            | (rules::AppValue::Ints(_), "ike.key_exchange_payload_length")
                if !v1 =>
            {
                return false
            }
            (rules::AppValue::Ints(v), name) => {
                let value = match name {
                    "ike.exchtype" => Some(u64::from(self.hdr.exchange_type)),
                    "ike.nonce_payload_length" => {
                        self.own(dir, "Nonce", |s| &s.nonce).map(|b| b.len() as u64)
                    }
                    "ike.key_exchange_payload_length" => self
                        .own(dir, "KeyExchange", |s| &s.key_exchange)
                        .map(|b| b.len() as u64),
                    _ => return false,
                };
                (value, &v[..])
            }
            _ => return false,
        };
        value.is_some_and(|x| cmps.iter().any(|c| c.matches(x)) != opt.negated)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::ike_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::ike_object(self)
    }
}
