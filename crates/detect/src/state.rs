//! Mutable detection state: [`FlowDetect`] per flow (flowbits, per-transaction done
//! sets, flow-level pass) and [`Scratch`] per worker (candidate lists, transform buffers,
//! threshold counters).

use std::collections::HashSet;

use crate::input::Alert;
use crate::program::MAX_VARS;
use crate::threshold::ThresholdTable;

/// Most (rule, transaction) pairs remembered per flow before the oldest transactions
/// are forgotten.
pub const MAX_TX_DONE: usize = 65_536;

/// Detection state of one flow. The engine keeps one beside each flow and passes it to
/// every [`crate::Detector::inspect`] call for a packet of that flow.
#[derive(Debug, Default, Clone)]
pub struct FlowDetect {
    bits: Vec<u64>,
    tx_done: HashSet<(u64, u32)>,
    /// A `pass` rule matched: no more detection on this flow.
    pub(crate) passed: bool,
    /// IP-only rules already ran for [to-server, to-client] packets.
    pub(crate) iponly_done: [bool; 2],
}

impl FlowDetect {
    /// Fresh state for a new flow.
    pub fn new() -> Self {
        FlowDetect::default()
    }

    /// Clears all state, keeping allocations.
    pub(crate) fn reset(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.tx_done.clear();
        self.passed = false;
        self.iponly_done = [false; 2];
    }

    /// Whether flowbit `id` is set.
    pub(crate) fn bit(&self, id: u32) -> bool {
        self.bits
            .get(id as usize / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub(crate) fn set_bit(&mut self, id: u32, on: bool) {
        let w = id as usize / 64;
        if self.bits.len() <= w {
            self.bits.resize(w + 1, 0);
        }
        if on {
            self.bits[w] |= 1 << (id % 64);
        } else {
            self.bits[w] &= !(1 << (id % 64));
        }
    }

    pub(crate) fn tx_done(&self, tx: u64, sig: u32) -> bool {
        self.tx_done.contains(&(tx, sig))
    }

    pub(crate) fn mark_tx_done(&mut self, tx: u64, sig: u32) {
        if self.tx_done.len() >= MAX_TX_DONE {
            // Forget the older half of the transactions: a flow with that many live
            // (transaction, rule) pairs is hostile; re-alerting is the safe failure.
            let mut ids: Vec<u64> = self.tx_done.iter().map(|x| x.0).collect();
            ids.sort_unstable();
            let cut = ids[ids.len() / 2];
            self.tx_done.retain(|x| x.0 > cut);
        }
        self.tx_done.insert((tx, sig));
    }

    /// Forgets per-transaction state of transactions below `id` (call when the app layer
    /// frees them).
    pub fn forget_txs_before(&mut self, id: u64) {
        self.tx_done.retain(|x| x.0 >= id);
    }

    /// True once a `pass` rule matched on this flow: later calls raise nothing.
    pub fn is_passed(&self) -> bool {
        self.passed
    }
}

/// One rule that matched during a call, before alert finalization.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub sig: u32,
    pub alert: Alert,
}

/// Per-worker scratch space. Create one per worker with [`crate::Detector::scratch`].
#[derive(Debug)]
pub struct Scratch {
    /// `stamp[sig] == gen`: the sig is already a candidate in this pass.
    pub(crate) stamp: Vec<u32>,
    pub(crate) gen: u32,
    /// `hit_stamp[sig] == hit_gen`: the sig already matched for this packet.
    pub(crate) hit_stamp: Vec<u32>,
    pub(crate) hit_gen: u32,
    pub(crate) cands: Vec<u32>,
    pub(crate) hits: Vec<Hit>,
    pub(crate) vars: [u64; MAX_VARS],
    pub(crate) xbuf: Vec<u8>,
    pub(crate) xtmp: Vec<u8>,
    pub(crate) thresholds: ThresholdTable,
    /// Flowbits of flow-less packets (state lives only for the call).
    pub(crate) tmp_flow: FlowDetect,
    /// Pattern stamps of the prefilter scans.
    pub(crate) seen: crate::prefilter::Seen,
    /// Counters.
    pub(crate) stats: ScratchStats,
}

/// Counters of one worker's detection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScratchStats {
    /// Rules evaluated in full (candidates after prefilter and header checks).
    pub rules_evaluated: u64,
    /// Alerts raised (after thresholds, pass and `packet-alert-max`).
    pub alerts: u64,
    /// Alerts dropped because a packet had more than `packet-alert-max`.
    pub alerts_discarded: u64,
    /// Alerts suppressed by thresholds or suppressions.
    pub alerts_suppressed: u64,
    /// Threshold entries not tracked because the table was full.
    pub threshold_table_full: u64,
}

impl Scratch {
    pub(crate) fn new(nsigs: usize) -> Scratch {
        Scratch {
            stamp: vec![0; nsigs],
            gen: 0,
            hit_stamp: vec![0; nsigs],
            hit_gen: 0,
            cands: Vec::new(),
            hits: Vec::new(),
            vars: [0; MAX_VARS],
            xbuf: Vec::new(),
            xtmp: Vec::new(),
            thresholds: ThresholdTable::default(),
            tmp_flow: FlowDetect::default(),
            seen: Default::default(),
            stats: ScratchStats::default(),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> &ScratchStats {
        &self.stats
    }

    /// Starts a new candidate pass.
    pub(crate) fn next_gen(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
        self.cands.clear();
    }

    /// Starts a new packet.
    pub(crate) fn next_packet(&mut self) {
        self.hit_gen = self.hit_gen.wrapping_add(1);
        if self.hit_gen == 0 {
            self.hit_stamp.iter_mut().for_each(|s| *s = 0);
            self.hit_gen = 1;
        }
        self.hits.clear();
    }

    pub(crate) fn add_cand(&mut self, sig: u32) {
        let s = &mut self.stamp[sig as usize];
        if *s != self.gen {
            *s = self.gen;
            self.cands.push(sig);
        }
    }
}
