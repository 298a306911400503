//! The batch prefilter interface: a matcher that takes many packet payloads at once
//! (tagged with their offload group, [`OffloadPlan::group_of`]) and reports, per payload,
//! the ids of the group's patterns found in it and the outcomes of the regex DFAs those
//! patterns call for ([`OffloadPlan::pattern_dfas`]). Detection then takes them in place
//! of its own scan ([`OffloadPlan::inspect_with_pcre`]).
//!
//! Two implementations: [`CpuBatchPrefilter`] (the CPU multi-pattern matchers over the
//! offload groups, matching at once) and the GPU offload of the engine (the `gpu` crate's
//! batch buffer, matched on the device or its CPU executor when flushed). Both give the
//! same pattern ids and DFA outcomes for the same payloads.
//!
//! The caller numbers the payloads it pushes (items, in increasing order); a prefilter
//! reports the items it matched, in that order, into a [`BatchMatches`]. An item it did
//! not take, or lost (a device error), has no entry: detection scans that payload itself.

use crate::offload::OffloadPlan;
use crate::prefilter::Seen;

/// A matcher of payload batches (see the module documentation).
pub trait BatchPrefilter {
    /// Queues `payload`, of offload group `group`, as item `item` (numbers increase from
    /// push to push). Results of queued items come into `out` at this push or a later one
    /// (when the batch fills up) or at [`flush`](Self::flush). Returns false when the
    /// payload is not taken (too large for the batch): it gets no results.
    fn push(&mut self, item: u32, group: u32, payload: &[u8], out: &mut BatchMatches) -> bool;

    /// Matches every queued item; their results into `out`.
    fn flush(&mut self, out: &mut BatchMatches);
}

/// What a batch prefilter found, item after item (reused from batch to batch).
#[derive(Debug, Default, Clone)]
pub struct BatchMatches {
    items: Vec<ItemMatches>,
    patterns: Vec<u32>,
    dfas: Vec<(u32, bool)>,
}

/// What was found in one item: where its pattern ids and DFA outcomes lie in the
/// [`BatchMatches`] it belongs to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ItemMatches {
    /// The caller's number of the item.
    pub item: u32,
    patterns: (u32, u32),
    dfas: (u32, u32),
}

impl BatchMatches {
    /// Forgets every result (the allocations stay).
    pub fn clear(&mut self) {
        self.items.clear();
        self.patterns.clear();
        self.dfas.clear();
    }

    /// Starts the results of item `item` (after those of the items before it); the next
    /// [`push_pattern`](Self::push_pattern) and [`push_dfa`](Self::push_dfa) calls
    /// belong to it.
    pub fn begin(&mut self, item: u32) {
        let p = self.patterns.len() as u32;
        let d = self.dfas.len() as u32;
        self.items.push(ItemMatches {
            item,
            patterns: (p, p),
            dfas: (d, d),
        });
    }

    /// Pattern `id` (of the item's offload group) was found in the current item
    /// (repeats allowed).
    pub fn push_pattern(&mut self, id: u32) {
        self.patterns.push(id);
        if let Some(it) = self.items.last_mut() {
            it.patterns.1 = self.patterns.len() as u32;
        }
    }

    /// Regex DFA `dfa` run over the current item found a match or not.
    pub fn push_dfa(&mut self, dfa: u32, matched: bool) {
        self.dfas.push((dfa, matched));
        if let Some(it) = self.items.last_mut() {
            it.dfas.1 = self.dfas.len() as u32;
        }
    }

    /// The items matched, in increasing item order.
    pub fn items(&self) -> &[ItemMatches] {
        &self.items
    }

    /// The pattern ids found in `item` (an entry of [`items`](Self::items)).
    pub fn patterns(&self, item: &ItemMatches) -> &[u32] {
        &self.patterns[item.patterns.0 as usize..item.patterns.1 as usize]
    }

    /// The `(DFA id, matched)` outcomes of `item`.
    pub fn dfas(&self, item: &ItemMatches) -> &[(u32, bool)] {
        &self.dfas[item.dfas.0 as usize..item.dfas.1 as usize]
    }
}

/// The CPU's batch prefilter: one multi-pattern matcher per offload group of a plan, and
/// the plan's regex DFAs; each payload is matched when pushed.
#[derive(Debug)]
pub struct CpuBatchPrefilter<'p> {
    plan: &'p OffloadPlan,
    matchers: Vec<Option<mpm::Matcher>>,
    seen: Seen,
    dfas: Vec<u32>,
}

impl<'p> CpuBatchPrefilter<'p> {
    /// Matchers of `kind` for the offload groups of `plan` (AC-Compact where `kind`
    /// cannot hold a group; a group nothing can hold matches nothing).
    pub fn new(plan: &'p OffloadPlan, kind: mpm::Kind) -> CpuBatchPrefilter<'p> {
        let matchers = plan
            .groups()
            .iter()
            .map(|pats| {
                mpm::Matcher::new(kind, pats)
                    .or_else(|_| mpm::Matcher::new(mpm::Kind::AcCompact, pats))
                    .ok()
            })
            .collect();
        CpuBatchPrefilter {
            plan,
            matchers,
            seen: Seen::default(),
            dfas: Vec::new(),
        }
    }
}

impl BatchPrefilter for CpuBatchPrefilter<'_> {
    fn push(&mut self, item: u32, group: u32, payload: &[u8], out: &mut BatchMatches) -> bool {
        let Some(Some(matcher)) = self.matchers.get(group as usize) else {
            return false;
        };
        out.begin(item);
        let (plan, seen, dfas) = (self.plan, &mut self.seen, &mut self.dfas);
        seen.begin(plan.groups()[group as usize].len());
        dfas.clear();
        matcher.scan(payload, &mut |m: mpm::Match| {
            if seen.first(m.pattern as usize) {
                out.push_pattern(m.pattern);
                dfas.extend_from_slice(plan.pattern_dfas(group, m.pattern));
            }
        });
        dfas.sort_unstable();
        dfas.dedup();
        for &id in dfas.iter() {
            let hit = plan.pcre_dfas()[id as usize].find_end(payload).is_some();
            out.push_dfa(id, hit);
        }
        true
    }

    fn flush(&mut self, _out: &mut BatchMatches) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Detector;
    use std::sync::Arc;

    fn det(text: &str) -> Arc<Detector> {
        Arc::new(crate::testutil::detector(text))
    }

    use crate::testutil::packet;

    #[test]
    fn batch_matches_keep_each_items_results_apart() {
        let mut m = BatchMatches::default();
        m.begin(3);
        m.push_pattern(1);
        m.push_pattern(4);
        m.push_dfa(0, true);
        m.begin(7);
        m.begin(9);
        m.push_dfa(2, false);
        let items = m.items().to_vec();
        assert_eq!(
            items.iter().map(|i| i.item).collect::<Vec<_>>(),
            vec![3, 7, 9]
        );
        assert_eq!(m.patterns(&items[0]), &[1, 4]);
        assert_eq!(m.dfas(&items[0]), &[(0, true)]);
        assert!(m.patterns(&items[1]).is_empty() && m.dfas(&items[1]).is_empty());
        assert!(m.patterns(&items[2]).is_empty());
        assert_eq!(m.dfas(&items[2]), &[(2, false)]);
        m.clear();
        assert!(m.items().is_empty());
    }

    #[test]
    fn the_cpu_batch_prefilter_finds_each_pattern_once_with_its_dfas() {
        let d = det(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"GET\"; pcre:\"/id=[0-9]+x/\"; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"b\"; content:\"evil\"; sid:2;)\n",
            "alert udp any any -> any any (msg:\"c\"; content:\"boo\"; sid:3;)\n",
        ));
        let plan = OffloadPlan::build(&d);
        let tcp = plan.group_of(6).unwrap();
        let udp = plan.group_of(17).unwrap();
        let mut pf = CpuBatchPrefilter::new(&plan, mpm::Kind::fastest());
        let mut out = BatchMatches::default();
        assert!(pf.push(0, tcp, b"GET /?id=12x GET evil", &mut out));
        assert!(pf.push(1, udp, b"nothing", &mut out));
        assert!(pf.push(2, udp, b"boo boo", &mut out));
        assert!(!pf.push(3, 99, b"GET", &mut out), "no such group");
        pf.flush(&mut out);
        let items = out.items().to_vec();
        assert_eq!(items.len(), 3);
        let mut found = out.patterns(&items[0]).to_vec();
        found.sort();
        assert_eq!(found.len(), 2, "GET and evil, once each");
        assert_eq!(out.dfas(&items[0]), &[(0, true)]);
        assert!(out.patterns(&items[1]).is_empty());
        assert_eq!(out.patterns(&items[2]).len(), 1);
        assert!(out.dfas(&items[2]).is_empty());
        // Detection with these results raises what its own scan raises.
        let (p, frame) = packet(6, b"GET /?id=12x GET evil");
        let input = crate::Input::packet(&p, &frame, None);
        let mut s = d.scratch();
        let (mut cpu, mut off) = (Vec::new(), Vec::new());
        d.inspect(&mut s, None, &input, &mut cpu);
        plan.inspect_with_pcre(
            &mut s,
            None,
            &input,
            out.patterns(&items[0]),
            out.dfas(&items[0]),
            &mut off,
        );
        let sids = |a: &[crate::Alert]| {
            let mut v: Vec<u32> = a.iter().map(|x| d.rule(x.rule).unwrap().sid).collect();
            v.sort();
            v
        };
        assert_eq!(sids(&cpu), vec![1, 2]);
        assert_eq!(sids(&off), sids(&cpu));
    }
}
