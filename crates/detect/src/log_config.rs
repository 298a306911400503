//! `config: logging disable, type tx|flow, scope tx|flow` (Suricata 7's `config`
//! keyword, typed by `rules::log_config`): a match marks a transaction of the flow as
//! not to be logged, and the transaction loggers skip it (engine `applog.rs`, output
//! `AppLogger`): no EVE `http`/`dns`/`tls`/`smb` ... record is written for it from then
//! on, whatever its protocol. Records already written stay; alerts, `fileinfo` and
//! `anomaly` records are not transaction records and stay too.
//!
//! Which transaction, as Suricata 7.0.10 does it (measured on captures):
//! - a rule matched on a transaction marks that transaction, for the four type/scope
//!   pairs alike;
//! - any other match (a packet or stream rule on a flow with an application layer)
//!   marks transaction 0 of the flow, the transaction id Suricata's detection holds
//!   outside its transaction loop: it only changes anything while transaction 0 is
//!   not logged yet (a UDP DNS query matched by an `alert udp ... content` rule).
//!
//! A protocol whose requests and responses are separate transactions (DNS, through
//! `app::Transaction::log_pair`) carries the change from a skipped request to the
//! response of the same message id, as Suricata's unidirectional transactions do: a
//! `dns.query` match silences both the `query` and the `answer` records.
//!
//! The marks kept are those of transactions not logged yet: the engine forgets the
//! others after each logging pass ([`LogMarks::forget_below`]), so the set is bounded
//! by the flow's unlogged transactions, which the application layer bounds. Request
//! keys wait for their response, at most [`MAX_KEYS`] per flow: a new one past that
//! replaces the oldest, counted ([`LogMarks::take_evicted`]; the engine's
//! `osprey.detect.config_keys_evicted`).

use crate::input::MatchedOn;
use crate::sig::{failed, Refusal};
use rules::ast::Opt;

/// Checks a `config` value (the rules crate checked it already; a rule built by hand
/// may not have been).
pub(crate) fn compile(value: Option<&str>) -> Result<(), Refusal> {
    let v = value.unwrap_or("");
    rules::log_config::LogConfig::parse(v)
        .map(|_| ())
        .map_err(|e| failed(rules::log_config::NAME, format!("config:{v}: {e}")))
}

/// Whether a rule's options hold `config` (its matches disable logging).
pub(crate) fn of_rule(options: &[Opt]) -> bool {
    options
        .iter()
        .any(|o| matches!(o, Opt::Keyword { name, .. } if *name == rules::log_config::NAME))
}

/// Request keys (DNS message ids) a flow keeps for the responses to come.
pub const MAX_KEYS: usize = 64;

/// The transactions of a flow whose logging a `config` rule disabled. Boxed and made
/// on the first mark: every open flow has one and few rules disable logging.
#[derive(Debug, Default, Clone)]
pub struct LogMarks {
    marks: Option<Box<Marks>>,
}

#[derive(Debug, Default, Clone)]
struct Marks {
    /// Transaction ids, unordered, each once.
    ids: Vec<u64>,
    /// Keys of skipped requests whose response is to be skipped too, oldest first.
    keys: Vec<u64>,
    /// Keys replaced by newer ones past [`MAX_KEYS`].
    evicted: u64,
}

impl LogMarks {
    /// A `config` rule matched `on`: marks the transaction (see the module docs).
    pub(crate) fn mark(&mut self, on: MatchedOn) {
        let id = match on {
            MatchedOn::Tx(id) => id,
            MatchedOn::Packet | MatchedOn::Stream | MatchedOn::Frame(_) => 0,
        };
        let m = self.marks.get_or_insert_with(Box::default);
        if !m.ids.contains(&id) {
            m.ids.push(id);
        }
    }

    /// Whether the logging of transaction `tx_id` was disabled.
    pub fn disabled(&self, tx_id: u64) -> bool {
        self.marks.as_ref().is_some_and(|m| m.ids.contains(&tx_id))
    }

    /// Whether the transaction loggers skip `tx`: it was marked, or it is the
    /// response to a skipped request (whose key this remembers, for the response).
    pub fn skip(&mut self, tx: &dyn app::Transaction) -> bool {
        let Some(m) = &mut self.marks else {
            return false;
        };
        let pair = tx.log_pair();
        if m.ids.contains(&tx.id()) {
            if let Some((key, false)) = pair {
                m.keys.retain(|&k| k != key);
                if m.keys.len() >= MAX_KEYS {
                    m.keys.remove(0);
                    m.evicted += 1;
                }
                m.keys.push(key);
            }
            return true;
        }
        match pair {
            Some((key, true)) => match m.keys.iter().position(|&k| k == key) {
                Some(i) => {
                    m.keys.remove(i);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }

    /// Request keys replaced by newer ones (more than [`MAX_KEYS`] requests skipped
    /// with no response yet) since the last call.
    pub fn take_evicted(&mut self) -> u64 {
        self.marks
            .as_mut()
            .map_or(0, |m| std::mem::take(&mut m.evicted))
    }

    /// Forgets the marks of transactions below `next` (logged, or skipped, already).
    pub fn forget_below(&mut self, next: u64) {
        if let Some(m) = &mut self.marks {
            m.ids.retain(|&id| id >= next);
        }
    }

    /// Forgets every mark and request key.
    pub fn clear(&mut self) {
        if let Some(m) = &mut self.marks {
            m.ids.clear();
            m.keys.clear();
        }
    }

    /// Number of marks and request keys kept.
    pub fn len(&self) -> usize {
        self.marks
            .as_ref()
            .map_or(0, |m| m.ids.len() + m.keys.len())
    }

    /// Whether no mark or request key is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_matches_mark_their_transaction_others_mark_zero() {
        let mut m = LogMarks::default();
        m.mark(MatchedOn::Tx(3));
        m.mark(MatchedOn::Tx(3));
        assert!(m.disabled(3) && !m.disabled(0) && m.len() == 1);
        m.mark(MatchedOn::Packet);
        m.mark(MatchedOn::Stream);
        assert!(m.disabled(0) && m.len() == 2);
        m.forget_below(1);
        assert!(!m.disabled(0) && m.disabled(3));
        m.forget_below(4);
        assert!(m.is_empty());
        m.mark(MatchedOn::Tx(7));
        m.clear();
        assert!(!m.disabled(7));
    }

    /// A DNS message over UDP: `id`, a response when `response`, one question `a.b`.
    fn dns(id: u16, response: bool) -> Vec<u8> {
        let flags: u16 = if response { 0x8180 } else { 0x0100 };
        let mut m = Vec::new();
        for v in [id, flags, 1, 0, 0, 0] {
            m.extend_from_slice(&v.to_be_bytes());
        }
        m.extend_from_slice(b"\x01a\x01b\x00\x00\x01\x00\x01");
        m
    }

    /// Each transaction of `f` in order: (id, whether `marks` skips it).
    fn skips(f: &app::AppFlow, marks: &mut LogMarks) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        let proto = f.state().protocol().expect("DNS state");
        proto.each_tx(&mut |tx| out.push((tx.id(), marks.skip(tx))));
        out
    }

    #[test]
    fn a_skipped_dns_request_skips_its_response_only() {
        use app::{AppCtx, Direction, Transport};
        let mut ctx = AppCtx::default();
        let mut f = app::AppFlow::new(Transport::Udp, 40000, 53);
        f.datagram(&mut ctx, Direction::ToServer, &dns(7, false));
        let mut m = LogMarks::default();
        m.mark(MatchedOn::Tx(0));
        assert_eq!(skips(&f, &mut m), [(0, true)]);
        m.forget_below(1);
        assert!(!m.is_empty(), "the key waits for the response");
        f.datagram(&mut ctx, Direction::ToClient, &dns(8, true));
        f.datagram(&mut ctx, Direction::ToClient, &dns(7, true));
        // Transaction 0 again (logged already: forgotten), the other id's response,
        // then the answer to the skipped request, once.
        let got = skips(&f, &mut m);
        assert_eq!(got, [(0, false), (1, false), (2, true)]);
        assert!(m.is_empty());
        assert_eq!(skips(&f, &mut m), [(0, false), (1, false), (2, false)]);
    }

    #[test]
    fn request_keys_are_bounded_and_evictions_counted() {
        use app::{AppCtx, Direction, Transport};
        let mut ctx = AppCtx::default();
        let mut f = app::AppFlow::new(Transport::Udp, 40000, 53);
        let n = MAX_KEYS as u16 + 3;
        let mut m = LogMarks::default();
        for id in 0..n {
            f.datagram(&mut ctx, Direction::ToServer, &dns(id, false));
            m.mark(MatchedOn::Tx(u64::from(id)));
        }
        assert!(skips(&f, &mut m).iter().all(|&(_, s)| s));
        m.forget_below(u64::from(n));
        assert_eq!(m.len(), MAX_KEYS);
        assert_eq!(m.take_evicted(), 3);
        assert_eq!(m.take_evicted(), 0);
    }

    #[test]
    fn compile_checks_the_value() {
        assert!(compile(Some("logging disable, type tx, scope tx")).is_ok());
        let e = compile(Some("logging disable")).unwrap_err();
        assert!(!e.unsupported);
        assert!(compile(None).is_err());
    }

    #[test]
    fn rules_with_config_are_found() {
        let r = rules::parse_rule(
            "alert dns any any -> any any (dns.query; content:\"a\"; \
             config: logging disable, type tx, scope tx; sid:1;)",
        )
        .unwrap();
        assert!(of_rule(&r.options));
        let r = rules::parse_rule("alert dns any any -> any any (sid:1;)").unwrap();
        assert!(!of_rule(&r.options));
    }
}
