//! SNMP's per-flow state: each datagram is one message and one transaction, as
//! Suricata counts them.

use std::collections::VecDeque;

use super::parser::{self, SnmpInfo};
use crate::{AppCtx, Counter, Direction, Events};

/// One SNMP message.
#[derive(Clone, Debug)]
pub struct SnmpTx {
    pub(crate) id: u64,
    /// The direction the message travelled: Suricata 7.0.10 inspects an SNMP
    /// transaction in that direction only.
    pub dir: Direction,
    /// The message's fields.
    pub info: SnmpInfo,
}

/// The SNMP state of one flow.
#[derive(Debug, Default)]
pub struct SnmpState {
    txs: VecDeque<SnmpTx>,
    next_id: u64,
    events: Events,
}

impl SnmpState {
    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &SnmpTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// One datagram; `false` when it does not parse (raises `snmp.malformed_data` and
    /// counts the parser error).
    pub fn message(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> bool {
        let Some(info) = parser::parse_message(data) else {
            // In the flow's set for `app-layer-event`, but no anomaly record: Suricata
            // 7.0.10 writes none for the five traps of sv-ether.pcap it cannot parse.
            self.events.raise(super::MALFORMED_DATA);
            ctx.counters.incr(Counter::ErrorSnmp);
            return false;
        };
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxSnmp);
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(SnmpTx { id, dir, info });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sv-ether.pcap: a v2c `get-next-request` (10.144.246.184:33938 ->
    /// 10.144.246.161:161), a v1 trap (192.168.0.2:1040 -> 192.168.0.1:162) and an
    /// encrypted v3 request (192.168.29.58:60376 -> 192.168.29.160:161).
    const GET_NEXT: &[u8] = include_bytes!("testdata/get_next.bin");
    const TRAP: &[u8] = include_bytes!("testdata/trap.bin");
    const V3_ENCRYPTED: &[u8] = include_bytes!("testdata/v3_encrypted.bin");

    #[test]
    fn real_messages_log_as_suricata() {
        let mut ctx = AppCtx::default();
        let mut s = SnmpState::default();
        for m in [GET_NEXT, TRAP, V3_ENCRYPTED] {
            assert!(s.message(&mut ctx, Direction::ToServer, m));
        }
        let got: Vec<String> = s
            .txs()
            .map(|t| super::super::log::snmp_object(t).to_string())
            .collect();
        // As Suricata 7.0.10 logs them.
        assert_eq!(
            got,
            [
                r#"{"version":2,"pdu_type":"get_next_request","vars":["0.1"],"community":"[R0_C@cti!]"}"#,
                r#"{"version":1,"pdu_type":"trap_v1","trap_type":"coldStart","trap_oid":"1.3.6.1.4.1.4.1.2.21","trap_address":"127.0.0.1","vars":["1.3.6.1.2.1.2.1.0"],"community":"public"}"#,
                r#"{"version":3,"pdu_type":"encrypted"}"#,
            ]
        );
        assert_eq!(ctx.counters.get(Counter::TxSnmp), 3);
        assert!(!s.message(&mut ctx, Direction::ToServer, &GET_NEXT[..20]));
        assert!(s.events().has(super::super::MALFORMED_DATA));
        assert_eq!(ctx.counters.get(Counter::ErrorSnmp), 1);
    }

    #[test]
    fn a_message_is_inspected_in_its_own_direction_only() {
        use crate::proto::Transaction;
        let mut ctx = AppCtx::default();
        let mut s = SnmpState::default();
        assert!(s.message(&mut ctx, Direction::ToServer, GET_NEXT));
        let tx = s.txs().next().unwrap();
        let community = crate::BufferId::of(crate::AppProto::Snmp, "snmp.community").unwrap();
        let seen = |d| {
            let mut n = 0;
            tx.buffers(community, d, &mut |_| n += 1);
            n
        };
        assert_eq!(
            (seen(Direction::ToServer), seen(Direction::ToClient)),
            (1, 0)
        );
    }
}
