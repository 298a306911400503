//! Connectionless DCERPC (over UDP): each datagram is one PDU with an 80-byte header;
//! calls are keyed by activity UUID and sequence number, fragments by `fragnum`.

use std::collections::VecDeque;

use super::parser::{self, ptype, CL_FRAG, CL_HDR, CL_LASTFRAG};
use super::state::{DceTx, Interface, Outcome};

/// Connectionless DCERPC state of one UDP flow.
#[derive(Clone, Debug, Default)]
pub struct DcerpcUdp {
    txs: VecDeque<DceTx>,
    next_id: u64,
}

impl DcerpcUdp {
    /// A flow with nothing seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &DceTx> {
        self.txs.iter()
    }

    /// Transactions opened so far.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// One datagram (either direction: the PDU type says what it is); at most `max_tx`
    /// transactions are kept live. A datagram that is not a connectionless PDU is an
    /// error ([`Outcome::error`]); the flow carries on with the next one.
    pub fn datagram(&mut self, payload: &[u8], max_tx: usize) -> Outcome {
        let mut out = Outcome::default();
        let Some(h) = parser::cl_header(payload) else {
            out.error = true;
            return out;
        };
        let body = &payload[CL_HDR..CL_HDR + usize::from(h.len)];
        let fragmented = h.flags1 & CL_FRAG != 0;
        let first = !fragmented || h.fragnum == 0;
        let last = !fragmented || h.flags1 & CL_LASTFRAG != 0;
        let is_request = match h.ptype {
            ptype::REQUEST => true,
            ptype::RESPONSE | ptype::FAULT | ptype::REJECT => false,
            _ => return out,
        };
        let pos = self.txs.iter().position(|t| {
            t.activity == Some(h.activity)
                && t.call_id == h.seqnum
                && if is_request {
                    t.request.is_some() && !t.req.done
                } else {
                    t.response.is_none() || !t.res.done
                }
        });
        let pos = match pos {
            Some(p) => p,
            None => {
                let id = self.next_id;
                self.next_id += 1;
                out.new_txs += 1;
                let mut tx = DceTx::new_cl(id, h.seqnum, h.activity);
                tx.opnum = Some(h.opnum);
                tx.ctx_id = Some(0);
                tx.iface = Some(Interface {
                    ctx_id: 0,
                    uuid: h.if_id,
                    version: (h.if_version & 0xffff) as u16,
                    version_minor: (h.if_version >> 16) as u16,
                    ack_result: Some(0),
                    ack_reason: None,
                });
                self.txs.push_back(tx);
                while self.txs.len() > max_tx.max(1) {
                    self.txs.pop_front();
                    out.dropped_txs += 1;
                }
                self.txs.len() - 1
            }
        };
        let tx = &mut self.txs[pos];
        tx.little_endian = h.little_endian;
        let n = if is_request {
            tx.request = Some(ptype::REQUEST);
            tx.req.add(first, last, body.len(), body)
        } else {
            tx.response = Some(h.ptype);
            tx.res
                .add(first, last || h.ptype != ptype::RESPONSE, body.len(), body)
        };
        if n > 0 {
            out.cut += n;
            out.cut_frags += 1;
        }
        out.touched.push(tx.id);
        out
    }
}
