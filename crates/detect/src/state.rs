//! Mutable detection state: [`FlowDetect`] per flow (flowbits, per-transaction done
//! sets, flow-level pass) and [`Scratch`] per worker (candidate lists, transform buffers,
//! threshold counters).

use std::collections::HashSet;

use crate::input::Alert;
use crate::threshold::ThresholdTable;

/// Most (rule, transaction) pairs remembered per flow before the oldest transactions
/// are forgotten.
pub const MAX_TX_DONE: usize = 65_536;

/// Most transactions per flow whose last inspection is remembered (the oldest is
/// forgotten first; a forgotten transaction is simply inspected in full again). Above
/// what one flow holds in inspection both ways (`app::AppConfig::max_tx`, 512 by
/// default): an SMB flow whose open file transaction holds the inspection floor keeps
/// hundreds after it, and a smaller list forgot and re-inspected them on every packet.
pub const MAX_TX_SEEN: usize = 1024;

/// How a transaction looked when it was last inspected in one direction, and the
/// candidates whose verdict may still change without the transaction changing.
#[derive(Debug, Clone, Default)]
pub(crate) struct TxSeen {
    pub dir: u8,
    pub id: u64,
    /// Fingerprint of the transaction's buffers other than the bodies, the flowbits and
    /// the flow flags.
    pub fp: u64,
    /// Fingerprint of the bodies.
    pub fp_body: u64,
    /// Candidates that did not match and also look at the packet (payload, packet
    /// options) or wait for an `app-layer-event`: evaluated again on every packet even
    /// when the transaction did not change.
    pub pkt_cands: Vec<u32>,
    /// Candidates that did not match and inspect a body: evaluated again when only a
    /// body changed.
    pub body_cands: Vec<u32>,
    /// How far each body instance was scanned by its matcher ([`crate::body_scan`]).
    pub body_marks: crate::body_scan::BodyMarks,
}

impl Drop for TxSeen {
    /// The lists go back to the worker's pool ([`crate::cand_pool`]).
    fn drop(&mut self) {
        for list in [&mut self.pkt_cands, &mut self.body_cands] {
            if list.capacity() != 0 {
                crate::cand_pool::give(std::mem::take(list));
            }
        }
    }
}

/// Detection state of one flow. The engine keeps one beside each flow and passes it to
/// every [`crate::Detector::inspect`] call for a packet of that flow.
#[derive(Debug, Default, Clone)]
pub struct FlowDetect {
    bits: Vec<u64>,
    /// The ids of the flowbits that are set, in the order they were set (EVE
    /// `metadata.flowbits`).
    set_order: Vec<u32>,
    /// (transaction, rule) pairs already done; boxed and made on the first one, as
    /// every open flow holds a `FlowDetect` (the set itself is 48 bytes inline, the
    /// box 8 until used: the extra allocation is the point).
    #[allow(clippy::box_collection)]
    tx_done: Option<Box<HashSet<(u64, u32)>>>,
    /// Bumped whenever a flowbit changes value.
    pub(crate) bits_gen: u64,
    /// Last inspection of recent transactions (the first ones in a slab slot).
    pub(crate) tx_seen: crate::seen_list::SeenList,
    /// Per direction: every transaction below this id was inspected in its final
    /// state and is not inspected again (Suricata frees such transactions).
    pub(crate) tx_floor: [u64; 2],
    /// A `pass` rule matched: no more detection on this flow.
    pub(crate) passed: bool,
    /// The flow was dropped (IPS): no more detection on this flow.
    pub(crate) dropped: bool,
    /// IP-only rules already ran for [to-server, to-client] packets.
    pub(crate) iponly_done: [bool; 2],
    /// `flowint` variables, made on the first one set (few flows have any).
    ints: Option<Box<FlowInts>>,
    /// Session tags (`tag:session`).
    pub(crate) tags: crate::tag::FlowTags,
    /// `flowvar`/`pktvar` values (`vars.rs`).
    pub(crate) vars: crate::vars::FlowVars,
    /// `tls_store` requests (`tls_store.rs`).
    pub(crate) tls_store: crate::tls_store::Requests,
    /// An alert was raised on the flow (Lua's `SCFlowHasAlerts`).
    pub(crate) alerted: bool,
    /// A rule with `bypass` matched a packet of the flow (`bypass.rs`).
    pub(crate) bypass: bool,
    /// Transactions a `config` rule asked not to log (`log_config.rs`).
    pub(crate) log_marks: crate::log_config::LogMarks,
    /// Per direction, the TCP packets whose scans a raw stream chunk may reuse: a
    /// handle to an entry of the worker's table (`stream_memo.rs`).
    pub(crate) stream_memo: crate::stream_memo::MemoHandle,
}

/// The `flowint` variables of a flow.
#[derive(Debug, Default, Clone)]
struct FlowInts {
    /// Values by id (`None`: not set).
    vals: Vec<Option<u32>>,
    /// The ids of the variables set, in the order they were first set (EVE
    /// `metadata.flowints`).
    order: Vec<u32>,
}

impl FlowDetect {
    /// Fresh state for a new flow.
    pub fn new() -> Self {
        FlowDetect::default()
    }

    /// Whether a `tls_store` rule matched a packet of the flow going `dir`: the
    /// certificate chain of that side is to be stored.
    pub fn tls_store_requested(&self, dir: app::Direction) -> bool {
        self.tls_store.requested(dir)
    }

    /// Whether a rule with `bypass` matched a packet of the flow: the flow is to be
    /// bypassed.
    pub fn bypass_requested(&self) -> bool {
        self.bypass
    }

    /// The transactions of the flow a `config: logging disable` rule matched: the
    /// transaction loggers skip them.
    pub fn log_marks(&self) -> &crate::log_config::LogMarks {
        &self.log_marks
    }

    /// The same, to forget the marks of transactions logged already.
    pub fn log_marks_mut(&mut self) -> &mut crate::log_config::LogMarks {
        &mut self.log_marks
    }

    /// The flow's and the last inspected packet's variables (`flowvar`, `pktvar`).
    pub fn vars(&self) -> &crate::vars::FlowVars {
        &self.vars
    }

    /// Clears all state, keeping allocations.
    pub(crate) fn reset(&mut self) {
        self.stream_memo = Default::default();
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.set_order.clear();
        self.tx_done = None;
        self.bits_gen = 0;
        self.tx_seen.clear();
        self.tx_floor = [0; 2];
        self.passed = false;
        self.dropped = false;
        self.iponly_done = [false; 2];
        self.ints = None;
        self.alerted = false;
        self.tags.clear();
        self.vars.clear();
        self.tls_store = Default::default();
        self.bypass = false;
        self.log_marks.clear();
    }

    /// Forgets which transactions were inspected, keeping the flow's variables: the
    /// flow changed protocol (SMTP `STARTTLS` to TLS) and its new transactions count
    /// from 0 again.
    pub fn restart_txs(&mut self) {
        self.tx_done = None;
        self.tx_seen.clear();
        self.tx_floor = [0; 2];
    }

    /// The value of `flowint` variable `id`, if set.
    pub(crate) fn int(&self, id: u32) -> Option<u32> {
        self.ints
            .as_ref()
            .and_then(|i| i.vals.get(id as usize).copied().flatten())
    }

    /// Sets `flowint` variable `id` (a change of flow state, as a flowbit's).
    pub(crate) fn set_int(&mut self, id: u32, v: u32) {
        let ints = self.ints.get_or_insert_with(Box::default);
        let i = id as usize;
        if ints.vals.len() <= i {
            ints.vals.resize(i + 1, None);
        }
        if ints.vals[i].is_none() {
            ints.order.push(id);
        }
        ints.vals[i] = Some(v);
        self.bits_gen += 1;
    }

    /// The `flowint` variables that are set, `(id, value)` in the order they were
    /// first set (EVE `metadata.flowints`; names by [`crate::Detector::flowint_name`]).
    pub fn flowints(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ints
            .iter()
            .flat_map(|i| i.order.iter())
            .filter_map(|&id| Some((id, self.int(id)?)))
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
        let old = self.bits[w];
        if on {
            self.bits[w] |= 1 << (id % 64);
        } else {
            self.bits[w] &= !(1 << (id % 64));
        }
        if self.bits[w] != old {
            self.bits_gen += 1;
            if on {
                self.set_order.push(id);
            } else {
                self.set_order.retain(|&b| b != id);
            }
        }
    }

    /// The ids of the flowbits that are set, in the order they were set (names from
    /// [`Detector::flowbit_name`](crate::Detector::flowbit_name)).
    pub fn flowbits(&self) -> &[u32] {
        &self.set_order
    }

    pub(crate) fn tx_done(&self, tx: u64, sig: u32) -> bool {
        self.tx_done
            .as_ref()
            .is_some_and(|d| d.contains(&(tx, sig)))
    }

    pub(crate) fn mark_tx_done(&mut self, tx: u64, sig: u32) {
        let done = self.tx_done.get_or_insert_with(Box::default);
        if done.len() >= MAX_TX_DONE {
            // Forget the older half of the transactions: a flow with that many live
            // (transaction, rule) pairs is hostile; re-alerting is the safe failure.
            let mut ids: Vec<u64> = done.iter().map(|x| x.0).collect();
            ids.sort_unstable();
            let cut = ids[ids.len() / 2];
            done.retain(|x| x.0 > cut);
        }
        done.insert((tx, sig));
    }

    /// Forgets per-transaction state of transactions below `id` (call when the app layer
    /// frees them).
    pub fn forget_txs_before(&mut self, id: u64) {
        if let Some(d) = &mut self.tx_done {
            d.retain(|x| x.0 >= id);
        }
        self.tx_seen.retain(|x| x.id >= id);
    }

    /// The remembered inspection of transaction `id` in direction `dir`. The list is
    /// kept sorted by (id, direction): a binary search, not a walk, for flows with
    /// hundreds of transactions in inspection.
    pub(crate) fn tx_seen_index(&self, dir: u8, id: u64) -> Option<usize> {
        self.tx_seen
            .binary_search_by_key(&(id, dir), |t| (t.id, t.dir))
            .ok()
    }

    /// [`Self::tx_seen_index`], looking first at entries `hint..hint + 3`: a pass visits
    /// the transactions in id order, so the entry sought usually follows the one found
    /// before (a flow with hundreds of live transactions, SMB's, walks the list in order
    /// instead of a binary search's cache misses per transaction). Any `hint` gives the
    /// same answer.
    pub(crate) fn tx_seen_index_near(&self, dir: u8, id: u64, hint: usize) -> Option<usize> {
        let key = (id, dir);
        for (i, t) in self.tx_seen.iter().enumerate().skip(hint).take(3) {
            match (t.id, t.dir).cmp(&key) {
                std::cmp::Ordering::Equal => return Some(i),
                // The entries before `hint` are below the key too (the list is sorted):
                // it is not remembered.
                std::cmp::Ordering::Greater if i > hint => return None,
                // The key may lie before `hint`.
                std::cmp::Ordering::Greater => break,
                std::cmp::Ordering::Less => {}
            }
        }
        self.tx_seen_index(dir, id)
    }

    /// The lowest transaction id not yet inspected in its final state in the to-server
    /// (`to_server`) or to-client direction: Suricata's "inspect id", the transaction an
    /// alert on stream data is attributed to (EVE `tx_guessed`).
    pub fn inspect_tx(&self, to_server: bool) -> u64 {
        self.tx_floor[usize::from(!to_server)]
    }

    /// Transaction `id` was inspected in direction `dir` in its final state: when it is
    /// the lowest one not yet finished, the floor moves past it.
    pub(crate) fn finish_tx(&mut self, dir: u8, id: u64) {
        let f = &mut self.tx_floor[dir as usize & 1];
        if id == *f {
            *f = id + 1;
            self.tx_seen.retain(|t| t.dir != dir || t.id > id);
        }
    }

    /// Remembers the inspection of a transaction, forgetting the oldest one when full.
    #[cfg(test)]
    pub(crate) fn remember_tx(&mut self, seen: TxSeen) {
        self.remember_tx_at(self.tx_seen_index(seen.dir, seen.id), seen)
    }

    /// [`Self::remember_tx`] where `at` is [`Self::tx_seen_index`] of the transaction,
    /// looked up by the caller.
    pub(crate) fn remember_tx_at(&mut self, at: Option<usize>, seen: TxSeen) {
        debug_assert_eq!(at, self.tx_seen_index(seen.dir, seen.id));
        if let Some(i) = at {
            self.tx_seen[i] = seen;
            return;
        }
        if self.tx_seen.len() >= MAX_TX_SEEN {
            // The oldest: the list is sorted by id.
            self.tx_seen.remove(0);
        }
        // A flow usually has one or two transactions in inspection: those stay in
        // the list's slab slot (`seen_list.rs`).
        let at = self
            .tx_seen
            .partition_point(|t| (t.id, t.dir) < (seen.id, seen.dir));
        self.tx_seen.insert(at, seen);
    }

    /// True once a `pass` rule matched on this flow: later calls raise nothing.
    pub fn is_passed(&self) -> bool {
        self.passed
    }

    /// Marks the flow dropped: the engine calls this in IPS mode when a
    /// [`crate::Verdict::drop_flow`] came back; later calls raise nothing.
    pub fn drop_flow(&mut self) {
        self.dropped = true;
    }

    /// True once the flow was dropped with [`FlowDetect::drop_flow`].
    pub fn is_dropped(&self) -> bool {
        self.dropped
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
    /// Candidates of the pass: sorted runs ([`Self::add_sorted`]) one after the other,
    /// then the unsorted ones ([`Self::add_cand`]) from `cands_tail` on; made one sorted
    /// list by [`Self::order_cands`].
    pub(crate) cands: Vec<u32>,
    /// Where each sorted run after the first begins in `cands`.
    run_starts: Vec<usize>,
    /// Where the unsorted candidates begin in `cands`, once one was added.
    cands_tail: Option<usize>,
    /// Merge space of `order_cands`.
    merge_buf: Vec<u32>,
    pub(crate) hits: Vec<Hit>,
    pub(crate) vars: crate::program::ProgVars,
    pub(crate) xbuf: Vec<u8>,
    pub(crate) xtmp: Vec<u8>,
    pub(crate) thresholds: ThresholdTable,
    /// Leave the threshold checks of rules tracked by source, destination or rule to
    /// the caller ([`Scratch::share_thresholds`]).
    pub(crate) share_thresholds: bool,
    /// `rate_filter` counters.
    pub(crate) rates: crate::threshold::RateTable,
    /// Verdict of the last inspect call.
    pub(crate) verdict: crate::verdict::Verdict,
    /// Flowbits of flow-less packets (state lives only for the call).
    pub(crate) tmp_flow: FlowDetect,
    /// Pattern stamps of the prefilter scans.
    pub(crate) seen: crate::prefilter::Seen,
    /// Counters.
    pub(crate) stats: ScratchStats,
    /// Candidates of the packet payload found by a matcher elsewhere (`offload`): used
    /// instead of the payload prefilter scan while `pre_active`.
    pub(crate) pre_sigs: Vec<u32>,
    pub(crate) pre_active: bool,
    /// Outcomes of the packet payload's `pcre` DFAs run elsewhere (`offload`).
    pub(crate) pcre_pre: PcrePre,
    /// The packet and body candidate lists of a transaction's pass, before they are
    /// copied into the lists the flow keeps ([`crate::cand_pool::refill`]).
    pub(crate) pkt_tmp: Vec<u32>,
    pub(crate) body_tmp: Vec<u32>,
    /// The address and port checks of this packet, by the rules' shared ends id.
    pub(crate) ends: EndsMemo,
    /// Where the next inspect call's bytes lie in their stream ([`Self::stream_layout`]).
    pub(crate) layout: crate::stream_memo::StreamLayout,
    /// The patterns of the packet scan being recorded (`stream_memo.rs`).
    pub(crate) memo_ids: Vec<u32>,
    /// The prefilter plan of a raw stream chunk (`stream_memo.rs`).
    pub(crate) memo_plan: crate::stream_memo::Plan,
    /// The flows' memos of their packets' scans (`stream_memo.rs`).
    pub(crate) memos: crate::stream_memo::MemoTable,
}

/// The outcome of each distinct address/port header ([`crate::sig::Sig::ends`]) on the
/// packet of the current inspect call: thousands of rules share a few hundred headers
/// (`$HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS`), so each is checked once per packet.
#[derive(Debug, Default)]
pub(crate) struct EndsMemo {
    /// `slot[id] == gen << 1 | ok`: header `id` was checked on this packet.
    slot: Vec<u32>,
    gen: u32,
}

impl EndsMemo {
    /// A memo for `n` distinct headers.
    pub(crate) fn new(n: usize) -> EndsMemo {
        EndsMemo {
            slot: vec![0; n],
            gen: 1,
        }
    }

    /// Forgets every outcome (a new packet).
    pub(crate) fn next_packet(&mut self) {
        self.gen += 1;
        if self.gen >= 1 << 31 {
            self.slot.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
    }

    /// The outcome of header `id` on this packet, computed by `check` the first time.
    #[inline]
    pub(crate) fn get(&mut self, id: u32, check: impl FnOnce() -> bool) -> bool {
        let Some(s) = self.slot.get_mut(id as usize) else {
            return check();
        };
        if *s >> 1 == self.gen {
            return *s & 1 == 1;
        }
        let ok = check();
        *s = self.gen << 1 | u32::from(ok);
        ok
    }
}

/// Whether each `pcre` DFA run elsewhere matched one payload (Kargus §4.5): a regex whose
/// DFA found no match in exactly that buffer needs no PCRE2 run there.
#[derive(Debug, Default)]
pub(crate) struct PcrePre {
    pub(crate) active: bool,
    /// Address and length of the payload the DFAs ran over.
    pub(crate) addr: usize,
    pub(crate) len: usize,
    /// `(address of the pcre's source, matched)`, sorted by address.
    pub(crate) outcomes: Vec<(usize, bool)>,
    /// PCRE2 runs saved.
    pub(crate) skipped: std::sync::atomic::AtomicU64,
}

impl PcrePre {
    /// Self while outcomes are set.
    pub(crate) fn get(&self) -> Option<&PcrePre> {
        self.active.then_some(self)
    }

    /// Whether the DFA of the regex `source` matched `buf`; `None` when it did not run
    /// over exactly `buf` (another buffer, a copy, a regex without a DFA).
    pub(crate) fn outcome(
        &self,
        buf: &[u8],
        source: &std::sync::Arc<(String, rules::PcreFlags)>,
    ) -> Option<bool> {
        if buf.as_ptr() as usize != self.addr || buf.len() != self.len {
            return None;
        }
        let key = std::sync::Arc::as_ptr(source) as usize;
        let i = self.outcomes.binary_search_by_key(&key, |e| e.0).ok()?;
        Some(self.outcomes[i].1)
    }
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
    /// `pcre` runs stopped by `pcre.match-limit`/`match-limit-recursion` (the rule did
    /// not match there).
    pub pcre_limit_hits: u64,
    /// Bytes the prefilter matchers scanned (`osprey.detect.mpm_bytes`).
    pub mpm_bytes: u64,
    /// Matches they reported, every pattern at every end (`osprey.detect.mpm_matches`).
    pub mpm_matches: u64,
    /// Patterns passed on to the detector, each once per buffer
    /// (`osprey.detect.mpm_patterns`).
    pub mpm_patterns: u64,
    /// Signatures those patterns made candidates (`osprey.detect.mpm_candidates`).
    pub mpm_candidates: u64,
    /// Signatures a pattern would have made candidates whose `dsize` the packet failed
    /// (`osprey.detect.mpm_dsize_skipped`).
    pub mpm_dsize_skipped: u64,
}

impl Scratch {
    /// From now on, alerts of rules whose threshold (or `detection_filter`) is tracked
    /// `by_src`, `by_dst` or `by_rule` are raised with their check left undone in
    /// [`Alert::deferred`](crate::Alert::deferred), for a [`crate::SharedThresholds`]
    /// that sees every worker's matches: workers given flows by address pair each see
    /// only some of a source's matches.
    pub fn share_thresholds(&mut self) {
        self.share_thresholds = true;
    }

    pub(crate) fn new(nsigs: usize, nends: usize) -> Scratch {
        Scratch {
            ends: EndsMemo::new(nends),
            stamp: vec![0; nsigs],
            gen: 0,
            hit_stamp: vec![0; nsigs],
            hit_gen: 0,
            cands: Vec::new(),
            run_starts: Vec::new(),
            cands_tail: None,
            merge_buf: Vec::new(),
            hits: Vec::new(),
            vars: crate::program::ProgVars::default(),
            xbuf: Vec::new(),
            xtmp: Vec::new(),
            thresholds: ThresholdTable::default(),
            share_thresholds: false,
            rates: Default::default(),
            verdict: Default::default(),
            tmp_flow: FlowDetect::default(),
            seen: Default::default(),
            stats: ScratchStats::default(),
            pre_sigs: Vec::new(),
            pre_active: false,
            pcre_pre: PcrePre::default(),
            pkt_tmp: Vec::new(),
            body_tmp: Vec::new(),
            layout: Default::default(),
            memo_ids: Vec::new(),
            memo_plan: Default::default(),
            memos: Default::default(),
        }
    }

    /// Says where the next [`crate::Detector::inspect`] call's packet payload and raw
    /// stream chunk lie in the flow's TCP stream, so that the chunk's prefilter can
    /// reuse the scans of the packets it was built from (`stream_memo.rs`). It holds
    /// for that one call; without it the chunk is scanned whole.
    pub fn stream_layout(&mut self, layout: crate::stream_memo::StreamLayout) {
        self.layout = layout;
    }

    /// Counters so far.
    pub fn stats(&self) -> ScratchStats {
        ScratchStats {
            pcre_limit_hits: self.vars.pcre_limit_hits,
            mpm_bytes: self.seen.counts.bytes,
            mpm_matches: self.seen.counts.matches.reported,
            mpm_patterns: self.seen.counts.matches.unique,
            mpm_candidates: self.seen.counts.candidates,
            mpm_dsize_skipped: self.seen.counts.dsize_skipped,
            ..self.stats.clone()
        }
    }

    /// What the rules decided for the packet of the last
    /// [`crate::Detector::inspect`] call (drop, reject, pass and their scope).
    pub fn verdict(&self) -> crate::verdict::Verdict {
        self.verdict
    }

    /// Starts a new candidate pass.
    pub(crate) fn next_gen(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
        self.cands.clear();
        self.run_starts.clear();
        self.cands_tail = None;
    }

    /// Starts a new packet.
    pub(crate) fn next_packet(&mut self) {
        self.hit_gen = self.hit_gen.wrapping_add(1);
        if self.hit_gen == 0 {
            self.hit_stamp.iter_mut().for_each(|s| *s = 0);
            self.hit_gen = 1;
        }
        self.hits.clear();
        self.ends.next_packet();
    }

    /// Adds an unsorted candidate (a prefilter hit); a sig already a candidate of this
    /// pass is skipped.
    pub(crate) fn add_cand(&mut self, sig: u32) {
        let s = &mut self.stamp[sig as usize];
        if *s != self.gen {
            *s = self.gen;
            if self.cands_tail.is_none() {
                self.cands_tail = Some(self.cands.len());
            }
            self.cands.push(sig);
        }
    }

    /// Adds the candidates of `sigs`, sorted in ascending order (a group's rules without
    /// a fast pattern, an earlier pass's list): they stay a sorted run, so ordering the
    /// pass costs a merge instead of a sort. Must come before any [`Self::add_cand`].
    pub(crate) fn add_sorted(&mut self, sigs: &[u32]) {
        debug_assert!(self.cands_tail.is_none(), "sorted runs come first");
        debug_assert!(sigs.windows(2).all(|w| w[0] < w[1]), "run not sorted");
        if !self.cands.is_empty() {
            self.run_starts.push(self.cands.len());
        }
        for &sig in sigs {
            let s = &mut self.stamp[sig as usize];
            if *s != self.gen {
                *s = self.gen;
                self.cands.push(sig);
            }
        }
    }

    /// Makes `cands` one ascending list (signature order): sorts only the unsorted
    /// candidates (a packet's few prefilter hits), then merges the runs.
    pub(crate) fn order_cands(&mut self) {
        let n = self.cands.len();
        if let Some(t) = self.cands_tail.take() {
            self.cands[t..].sort_unstable();
            if t > 0 {
                self.run_starts.push(t);
            }
        }
        // Merge the first run with each next one in turn (at most a few runs).
        let mut bounds = std::mem::take(&mut self.run_starts);
        bounds.push(n);
        let mut end = bounds[0];
        for &next in &bounds[1..] {
            if end < next {
                let (a, b) = self.cands[..next].split_at(end);
                if a.last() > b.first() {
                    self.merge_buf.clear();
                    merge_sorted(a, b, &mut self.merge_buf);
                    self.cands[..next].copy_from_slice(&self.merge_buf);
                }
            }
            end = next;
        }
        bounds.clear();
        self.run_starts = bounds;
    }
}

/// Appends to `out` the union of the ascending, disjoint lists `a` and `b`, ascending.
fn merge_sorted(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

#[cfg(test)]
mod tx_seen_tests {
    use super::*;

    fn seen(dir: u8, id: u64) -> TxSeen {
        let mut t = TxSeen::default();
        (t.dir, t.id) = (dir, id);
        t
    }

    #[test]
    fn rarely_used_parts_cost_a_pointer_until_used() {
        // Every open flow holds one: flowints, flowvars, logging marks and the
        // (transaction, rule) pairs done are boxed on first use.
        let n = std::mem::size_of::<FlowDetect>();
        assert!(n <= 200, "{n}");
        let mut fd = FlowDetect::new();
        assert_eq!((fd.int(3), fd.flowints().count()), (None, 0));
        assert!(!fd.tx_done(1, 7));
        fd.set_int(3, 9);
        fd.set_int(1, 4);
        fd.set_int(3, 10);
        assert_eq!(fd.flowints().collect::<Vec<_>>(), [(3, 10), (1, 4)]);
        fd.mark_tx_done(1, 7);
        assert!(fd.tx_done(1, 7) && !fd.tx_done(2, 7));
        fd.forget_txs_before(2);
        assert!(!fd.tx_done(1, 7));
        fd.restart_txs();
        assert!(!fd.tx_done(1, 7));
        // The remembered inspections take a slab slot with room for two (a
        // transaction in both directions), then move to the heap.
        assert_eq!(fd.tx_seen.capacity(), 0);
        fd.remember_tx(seen(0, 1));
        assert_eq!(fd.tx_seen.capacity(), 2);
        fd.remember_tx(seen(1, 1));
        assert_eq!(fd.tx_seen.capacity(), 2);
        fd.remember_tx(seen(0, 2));
        assert!(fd.tx_seen.capacity() > 2);
    }

    #[test]
    fn ends_memo_checks_each_header_once_per_packet() {
        let mut m = EndsMemo::new(2);
        let calls = std::cell::Cell::new(0);
        let get = |m: &mut EndsMemo, id, ok| {
            m.get(id, || {
                calls.set(calls.get() + 1);
                ok
            })
        };
        // Before any packet is started too: a fresh memo knows nothing.
        assert!(!get(&mut m, 0, false));
        assert!(!get(&mut m, 0, true));
        assert!(get(&mut m, 1, true));
        assert!(get(&mut m, 1, false));
        // An id past the memo is checked every time.
        assert!(get(&mut m, 7, true));
        assert!(!get(&mut m, 7, false));
        m.next_packet();
        assert!(get(&mut m, 0, true));
        assert!(get(&mut m, 0, false));
        assert_eq!(calls.get(), 5);
        // The generation wraps without stale outcomes.
        m.gen = (1 << 31) - 1;
        m.next_packet();
        assert_eq!(m.gen, 1);
        assert!(m.slot.iter().all(|&s| s == 0));
    }

    #[test]
    fn flowbits_listed_in_the_order_they_were_set() {
        let mut fd = FlowDetect::new();
        fd.set_bit(70, true);
        fd.set_bit(2, true);
        fd.set_bit(70, true);
        fd.set_bit(5, true);
        assert_eq!(fd.flowbits(), [70, 2, 5]);
        fd.set_bit(2, false);
        fd.set_bit(9, false);
        assert_eq!(fd.flowbits(), [70, 5]);
        fd.set_bit(2, true);
        assert_eq!(fd.flowbits(), [70, 5, 2]);
        fd.reset();
        assert!(fd.flowbits().is_empty());
    }

    #[test]
    fn bits_gen_moves_only_when_a_bit_changes() {
        let mut fd = FlowDetect::new();
        fd.set_bit(3, true);
        let g = fd.bits_gen;
        fd.set_bit(3, true);
        assert_eq!(fd.bits_gen, g);
        fd.set_bit(3, false);
        assert_eq!(fd.bits_gen, g + 1);
        fd.set_bit(70, false);
        assert_eq!(fd.bits_gen, g + 1);
    }

    #[test]
    fn floor_moves_past_contiguous_finished_txs_only() {
        let mut fd = FlowDetect::new();
        fd.remember_tx(seen(0, 0));
        fd.remember_tx(seen(0, 1));
        fd.remember_tx(seen(1, 0));
        fd.finish_tx(0, 1);
        assert_eq!(fd.tx_floor, [0, 0]);
        fd.finish_tx(0, 0);
        assert_eq!(fd.tx_floor, [1, 0]);
        assert_eq!(fd.tx_seen_index(0, 0), None);
        assert!(fd.tx_seen_index(0, 1).is_some());
        assert!(fd.tx_seen_index(1, 0).is_some());
        fd.reset();
        assert_eq!(fd.tx_floor, [0, 0]);
        assert!(fd.tx_seen.is_empty());
    }

    #[test]
    fn remembered_txs_are_capped_oldest_first() {
        let mut fd = FlowDetect::new();
        for id in 0..(MAX_TX_SEEN as u64 + 10) {
            fd.remember_tx(seen(0, id));
        }
        assert_eq!(fd.tx_seen.len(), MAX_TX_SEEN);
        assert_eq!(fd.tx_seen_index(0, 0), None);
        assert!(fd.tx_seen_index(0, MAX_TX_SEEN as u64 + 9).is_some());
        fd.remember_tx(seen(0, MAX_TX_SEEN as u64 + 9));
        assert_eq!(fd.tx_seen.len(), MAX_TX_SEEN);
    }

    #[test]
    fn remembered_txs_found_in_any_insertion_order() {
        let mut fd = FlowDetect::new();
        // Both directions, out of order, some replaced: each found where it is.
        for (dir, id) in [(1, 5), (0, 7), (0, 5), (1, 2), (0, 0), (1, 7), (0, 5)] {
            fd.remember_tx(seen(dir, id));
        }
        assert_eq!(fd.tx_seen.len(), 6);
        for (dir, id) in [(0, 0), (1, 2), (0, 5), (1, 5), (0, 7), (1, 7)] {
            let i = fd.tx_seen_index(dir, id).expect("remembered");
            assert_eq!((fd.tx_seen[i].dir, fd.tx_seen[i].id), (dir, id));
        }
        assert_eq!(fd.tx_seen_index(1, 0), None);
        assert_eq!(fd.tx_seen_index(0, 2), None);
        assert_eq!(fd.tx_seen_index(0, 8), None);
        // The lookup from a hint answers as the binary search, whatever the hint.
        for id in 0..9 {
            for dir in 0..2 {
                for hint in 0..fd.tx_seen.len() + 2 {
                    assert_eq!(
                        fd.tx_seen_index_near(dir, id, hint),
                        fd.tx_seen_index(dir, id),
                        "dir {dir} id {id} hint {hint}"
                    );
                }
            }
        }
        // Forgetting and finishing keep the order the lookup needs.
        fd.forget_txs_before(2);
        fd.finish_tx(1, 2);
        assert_eq!(fd.tx_seen_index(0, 0), None);
        assert!(fd.tx_seen_index(1, 5).is_some() && fd.tx_seen_index(0, 7).is_some());
        fd.remember_tx(seen(1, 3));
        assert!(fd.tx_seen_index(1, 3).is_some() && fd.tx_seen_index(1, 7).is_some());
        // Full: the oldest goes, whichever direction it was remembered in.
        let mut fd = FlowDetect::new();
        for id in (0..MAX_TX_SEEN as u64).rev() {
            fd.remember_tx(seen((id % 2) as u8, id + 1));
        }
        // Ids 1..=MAX, odd ones to-server: id 1 is the oldest.
        fd.remember_tx(seen(1, 0));
        assert_eq!(fd.tx_seen.len(), MAX_TX_SEEN);
        assert_eq!(fd.tx_seen_index(0, 1), None);
        assert!(fd.tx_seen_index(1, 0).is_some() && fd.tx_seen_index(1, 2).is_some());
    }
}

#[cfg(test)]
mod cands_tests {
    use super::*;

    #[test]
    fn runs_and_hits_come_out_in_signature_order_once() {
        let mut s = Scratch::new(64, 0);
        s.next_gen();
        s.add_sorted(&[3, 9, 20, 40]);
        s.add_sorted(&[1, 9, 21]);
        for h in [50, 2, 9, 33, 2, 0] {
            s.add_cand(h);
        }
        s.order_cands();
        assert_eq!(s.cands, vec![0, 1, 2, 3, 9, 20, 21, 33, 40, 50]);
        // A new pass starts empty; hits alone are sorted too.
        s.next_gen();
        for h in [7, 5, 6] {
            s.add_cand(h);
        }
        s.order_cands();
        assert_eq!(s.cands, vec![5, 6, 7]);
        s.next_gen();
        s.add_sorted(&[4, 8]);
        s.order_cands();
        assert_eq!(s.cands, vec![4, 8]);
        s.next_gen();
        s.order_cands();
        assert!(s.cands.is_empty());
    }
}
