//! What detection hands a batch matcher (the GPU, Kargus §4.5 / MIDeA §3.2): the payload
//! fast patterns of every packet signature group, and the regex DFAs of the `pcre`
//! options; and how matches found elsewhere come back into [`Detector::inspect`].
//!
//! **Offload groups.** A packet's signature group depends on its protocol class and its
//! flow direction, and the direction is known only after flow tracking — later than a
//! worker fills its batch. So one offload group serves one protocol class: the union of the
//! payload fast patterns of the class's groups (to server, to client, no flow). A worker
//! tags each payload with [`OffloadPlan::group_of`] (one batch buffer for all groups, a
//! group id per packet: MIDeA §3.2.1); the matcher reports the union pattern ids found;
//! [`OffloadPlan::inspect`] turns them into the candidates of the packet's real group —
//! exactly the candidates the CPU prefilter scan would give — and runs the rest of
//! detection (option evaluation, alerts) on the CPU as [`Detector::inspect`] does. A
//! batch matcher implements [`crate::BatchPrefilter`] ([`crate::CpuBatchPrefilter`] on
//! the CPU).
//!
//! **Regex DFAs (Kargus §4.5).** The `pcre` options in the payload programs of the
//! signatures a union pattern makes candidates, whose regex has a DFA
//! ([`crate::pcre_dfa`], at most [`crate::PCRE_DFA_MAX_STATES`] states), are numbered:
//! [`OffloadPlan::pcre_dfas`] are their tables, [`OffloadPlan::pattern_dfas`] the DFAs a
//! found pattern calls for. The matcher runs them over the same payload and
//! [`OffloadPlan::inspect_with_pcre`] hands their outcomes to option evaluation: a `pcre`
//! evaluated over exactly that payload from its start (not relative to an earlier match
//! further in) whose DFA found no match fails (or, negated, holds) without running PCRE2;
//! a DFA match still runs PCRE2, for the match position the next options need.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::detector::{class_of_proto, Detector, CLASSES, DIRS};
use crate::input::{Alert, Input};
use crate::pcre_dfa::{pcre_dfa, NoDfa};
use crate::program::Step;
use crate::state::{FlowDetect, Scratch};

/// The offload groups of a detector and how their matches map back to signatures.
#[derive(Debug)]
pub struct OffloadPlan {
    detector: Arc<Detector>,
    /// Patterns of each offload group; a pattern's id is its index.
    groups: Vec<Vec<mpm::Pattern>>,
    /// Offload group of each protocol class (`None`: no payload prefilter in the class).
    class_group: [Option<u32>; CLASSES],
    /// Per packet signature group (`class * DIRS + dir`), per union pattern id: the
    /// signatures the pattern makes candidates in that group.
    sigs: Vec<Vec<Vec<u32>>>,
    /// Per offload group, per union pattern id: the DFA ids its candidates' `pcre` call for.
    pat_dfas: Vec<Vec<Vec<u32>>>,
    /// The DFAs, by id.
    dfas: Vec<mpm::PlainDfa>,
    /// Per DFA id: the addresses of the `pcre` sources (one per compiled option) it stands for.
    dfa_srcs: Vec<Vec<usize>>,
}

impl OffloadPlan {
    /// The plan of `detector` (built once, shared read-only by the workers).
    pub fn build(detector: &Arc<Detector>) -> OffloadPlan {
        Self::build_with(detector, &mut |src| {
            pcre_dfa(&src.0, src.1, crate::PCRE_DFA_MAX_STATES).ok()
        })
    }

    /// The `pcre` sources whose DFAs [`OffloadPlan::build`] builds, once each, in the order
    /// it builds them (cheap: no DFA is built). A cache of the DFAs is keyed by them.
    pub fn pcre_sources(detector: &Arc<Detector>) -> Vec<(String, rules::PcreFlags)> {
        let mut v = Vec::new();
        Self::build_with(detector, &mut |src| {
            v.push(src.clone());
            None
        });
        v
    }

    /// [`OffloadPlan::build`] with the regex DFAs from `dfa_of` (called once per distinct
    /// `pcre` source, in [`OffloadPlan::pcre_sources`]' order; `None`: no DFA, the regex
    /// stays with PCRE2): the hook through which the GPU set-up takes them from its cache.
    /// `dfa_of` must answer what [`crate::pcre_dfa`] would (at most
    /// [`crate::PCRE_DFA_MAX_STATES`] states).
    pub fn build_with(
        detector: &Arc<Detector>,
        dfa_of: &mut dyn FnMut(&(String, rules::PcreFlags)) -> Option<mpm::PlainDfa>,
    ) -> OffloadPlan {
        let mut groups = Vec::new();
        let mut class_group = [None; CLASSES];
        let mut sigs = vec![Vec::new(); CLASSES * DIRS];
        for (class, slot) in class_group.iter_mut().enumerate() {
            let mut ids: HashMap<(Vec<u8>, bool), u32> = HashMap::new();
            let mut pats: Vec<mpm::Pattern> = Vec::new();
            for dir in 0..DIRS {
                let gi = class * DIRS + dir;
                let Some(pf) = detector.payload_prefilter(gi) else {
                    continue;
                };
                let mut map: Vec<Vec<u32>> = Vec::new();
                for (pat, nocase, group_sigs) in pf.entries() {
                    let next = pats.len() as u32;
                    let id = *ids.entry((pat.to_vec(), nocase)).or_insert_with(|| {
                        pats.push(if nocase {
                            mpm::Pattern::nocase(pat.to_vec(), next)
                        } else {
                            mpm::Pattern::new(pat.to_vec(), next)
                        });
                        next
                    });
                    if map.len() <= id as usize {
                        map.resize(id as usize + 1, Vec::new());
                    }
                    map[id as usize].extend_from_slice(group_sigs);
                }
                sigs[gi] = map;
            }
            if !pats.is_empty() {
                *slot = Some(groups.len() as u32);
                groups.push(pats);
            }
        }
        let mut plan = OffloadPlan {
            detector: detector.clone(),
            pat_dfas: groups.iter().map(|g| vec![Vec::new(); g.len()]).collect(),
            groups,
            class_group,
            sigs,
            dfas: Vec::new(),
            dfa_srcs: Vec::new(),
        };
        plan.number_pcre_dfas(dfa_of);
        plan
    }

    /// Build the DFAs of the candidates' payload `pcre` and note which patterns call for them.
    fn number_pcre_dfas(
        &mut self,
        dfa_of: &mut dyn FnMut(&(String, rules::PcreFlags)) -> Option<mpm::PlainDfa>,
    ) {
        let det = self.detector.clone();
        let mut by_text: HashMap<(String, rules::PcreFlags), Option<u32>> = HashMap::new();
        let mut by_src: HashMap<usize, Option<u32>> = HashMap::new();
        for class in 0..CLASSES {
            let Some(group) = self.class_group[class] else {
                continue;
            };
            for dir in 0..DIRS {
                let map = &self.sigs[class * DIRS + dir];
                for (pat, sigs) in map.iter().enumerate() {
                    for &sig in sigs {
                        let Some(prog) = det
                            .sigs()
                            .get(sig as usize)
                            .and_then(|s| s.payload.as_ref())
                        else {
                            continue;
                        };
                        for st in &prog.steps {
                            let Step::Pcre(pc) = st else {
                                continue;
                            };
                            let key = Arc::as_ptr(&pc.source) as usize;
                            let id = *by_src.entry(key).or_insert_with(|| {
                                let id =
                                    *by_text.entry((*pc.source).clone()).or_insert_with(|| {
                                        let d = dfa_of(&pc.source)?;
                                        self.dfas.push(d);
                                        self.dfa_srcs.push(Vec::new());
                                        Some(self.dfas.len() as u32 - 1)
                                    });
                                if let Some(id) = id {
                                    self.dfa_srcs[id as usize].push(key);
                                }
                                id
                            });
                            if let Some(id) = id {
                                self.pat_dfas[group as usize][pat].push(id);
                            }
                        }
                    }
                }
            }
        }
        for v in self.pat_dfas.iter_mut().flatten() {
            v.sort_unstable();
            v.dedup();
        }
    }

    /// The regex DFAs of the candidates' payload `pcre` options (index = DFA id).
    pub fn pcre_dfas(&self) -> &[mpm::PlainDfa] {
        &self.dfas
    }

    /// The DFA ids (sorted) that pattern `pattern` of offload group `group` calls for.
    pub fn pattern_dfas(&self, group: u32, pattern: u32) -> &[u32] {
        self.pat_dfas
            .get(group as usize)
            .and_then(|g| g.get(pattern as usize))
            .map_or(&[], Vec::as_slice)
    }

    /// The detector the plan belongs to.
    pub fn detector(&self) -> &Arc<Detector> {
        &self.detector
    }

    /// Patterns of each offload group (index = group id; a pattern's id is its index in
    /// its group).
    pub fn groups(&self) -> &[Vec<mpm::Pattern>] {
        &self.groups
    }

    /// The offload group of a packet of IP protocol `proto`; `None` when no rule of its
    /// class has a payload fast pattern (nothing to match: inspect it on the CPU).
    pub fn group_of(&self, proto: u8) -> Option<u32> {
        self.class_group[class_of_proto(proto)]
    }

    /// [`Detector::inspect`] for an input whose packet payload was matched elsewhere:
    /// `patterns` are the ids (in the packet's offload group, any order, repeats allowed)
    /// of the patterns found in exactly `input.packet.payload(input.frame)`. The stream
    /// chunk and application-layer buffers of the input are matched on the CPU as usual.
    pub fn inspect(
        &self,
        scratch: &mut Scratch,
        flow: Option<&mut FlowDetect>,
        input: &Input<'_>,
        patterns: &[u32],
        alerts: &mut Vec<Alert>,
    ) {
        let dir = match input.flow {
            Some(f) if f.to_server => 0,
            Some(_) => 1,
            None => 2,
        };
        let gi = class_of_proto(input.packet.proto) * DIRS + dir;
        let mut pre = std::mem::take(&mut scratch.pre_sigs);
        pre.clear();
        if let Some(map) = self.sigs.get(gi) {
            for &p in patterns {
                if let Some(v) = map.get(p as usize) {
                    pre.extend_from_slice(v);
                }
            }
        }
        scratch.pre_sigs = pre;
        scratch.pre_active = true;
        self.detector.inspect(scratch, flow, input, alerts);
        scratch.pre_active = false;
    }

    /// [`OffloadPlan::inspect`], also taking the outcomes of the regex DFAs run over the
    /// same payload: `dfas` are `(DFA id, matched)` pairs (any order). Returns how many
    /// PCRE2 runs the outcomes saved.
    pub fn inspect_with_pcre(
        &self,
        scratch: &mut Scratch,
        flow: Option<&mut FlowDetect>,
        input: &Input<'_>,
        patterns: &[u32],
        dfas: &[(u32, bool)],
        alerts: &mut Vec<Alert>,
    ) -> u64 {
        let payload = input.packet.payload(input.frame);
        let pre = &mut scratch.pcre_pre;
        pre.outcomes.clear();
        for &(id, matched) in dfas {
            if let Some(srcs) = self.dfa_srcs.get(id as usize) {
                pre.outcomes.extend(srcs.iter().map(|&a| (a, matched)));
            }
        }
        pre.outcomes.sort_unstable();
        pre.addr = payload.as_ptr() as usize;
        pre.len = payload.len();
        pre.active = !pre.outcomes.is_empty();
        pre.skipped.store(0, Ordering::Relaxed);
        self.inspect(scratch, flow, input, patterns, alerts);
        scratch.pcre_pre.active = false;
        scratch.pcre_pre.skipped.load(Ordering::Relaxed)
    }
}

/// The `pcre` options of a detector as DFAs (Kargus §4.5).
#[derive(Debug, Default)]
pub struct PcreDfas {
    /// The distinct `(pattern, flags)` that became DFAs, with their tables.
    pub dfas: Vec<((String, rules::PcreFlags), mpm::PlainDfa)>,
    /// Distinct `(pattern, flags)` seen.
    pub total: usize,
    /// `pcre` options (not distinct) in the rules.
    pub options: usize,
    /// `pcre` options whose regex became a DFA.
    pub options_with_dfa: usize,
    /// Distinct regexes refused, by reason ([`NoDfa::kind`]).
    pub refused: BTreeMap<String, usize>,
}

impl Detector {
    /// Build the DFA of every distinct `pcre` of the loaded rules that has one of at most
    /// `max_states` states ([`crate::PCRE_DFA_MAX_STATES`] is Kargus's limit).
    pub fn pcre_dfas(&self, max_states: u32) -> PcreDfas {
        let mut out = PcreDfas::default();
        let mut seen: HashMap<Arc<(String, rules::PcreFlags)>, bool> = HashMap::new();
        let mut by_text: HashMap<(String, rules::PcreFlags), bool> = HashMap::new();
        self.each_pcre(|src| {
            out.options += 1;
            let ok = match seen.get(src) {
                Some(&ok) => ok,
                None => {
                    let ok = match by_text.get(&**src) {
                        Some(&ok) => ok,
                        None => {
                            out.total += 1;
                            let r = pcre_dfa(&src.0, src.1, max_states);
                            let ok = r.is_ok();
                            match r {
                                Ok(d) => out.dfas.push(((**src).clone(), d)),
                                Err(e) => {
                                    *out.refused.entry(refusal(&e)).or_default() += 1;
                                }
                            }
                            by_text.insert((**src).clone(), ok);
                            ok
                        }
                    };
                    seen.insert(src.clone(), ok);
                    ok
                }
            };
            out.options_with_dfa += usize::from(ok);
        });
        out
    }

    /// The `(pattern, flags)` of every `pcre` step (tests).
    #[cfg(test)]
    pub(crate) fn each_pcre_source(&self, mut f: impl FnMut(&(String, rules::PcreFlags))) {
        self.each_pcre(|s| f(s));
    }

    /// Every `pcre` step of every signature (payload and app-layer programs).
    fn each_pcre(&self, mut f: impl FnMut(&Arc<(String, rules::PcreFlags)>)) {
        for s in self.sigs() {
            let progs = s.payload.iter().chain(s.app.iter().map(|a| &a.prog));
            for p in progs {
                for st in &p.steps {
                    if let Step::Pcre(pc) = st {
                        f(&pc.source);
                    }
                }
            }
        }
    }
}

fn refusal(e: &NoDfa) -> String {
    match e {
        NoDfa::Syntax(s) => format!("syntax: {s}"),
        other => other.kind().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FlowInfo;

    fn det(text: &str) -> Arc<Detector> {
        Arc::new(crate::testutil::detector(text))
    }

    use crate::testutil::packet;

    #[test]
    fn union_groups_map_back_to_the_cpu_candidates() {
        let d = det(concat!(
            "alert tcp any any -> any any (msg:\"a\"; flow:to_server; content:\"evil\"; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"b\"; flow:to_client; content:\"EVIL\"; nocase; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"evil\"; sid:3;)\n",
            "alert udp any any -> any any (msg:\"d\"; content:\"boo\"; sid:4;)\n",
        ));
        let plan = OffloadPlan::build(&d);
        assert_eq!(plan.groups().len(), 2, "one group per class with patterns");
        let tg = plan.group_of(6).unwrap() as usize;
        assert_eq!(plan.groups()[tg].len(), 2, "evil and EVIL/nocase");
        assert_eq!(plan.group_of(1), None, "no ICMP rules");
        for (to_server, want) in [(true, vec![1, 3]), (false, vec![2, 3])] {
            let (p, frame) = packet(6, b"an evil payload");
            let info = FlowInfo {
                to_server,
                established: true,
                payload_in_stream: false,
                app_proto: app::AppProto::Unknown,
                counts: Default::default(),
            };
            let input = Input::packet(&p, &frame, Some(info));
            let mut s = d.scratch();
            let (mut cpu, mut off) = (Vec::new(), Vec::new());
            let mut fd = FlowDetect::default();
            d.inspect(&mut s, Some(&mut fd), &input, &mut cpu);
            // Every pattern of the group "found" (a matcher reports what it finds; the
            // union holds both case variants).
            let found: Vec<u32> = (0..plan.groups()[tg].len() as u32).collect();
            let mut fd = FlowDetect::default();
            plan.inspect(&mut s, Some(&mut fd), &input, &found, &mut off);
            let sids = |a: &[Alert]| {
                let mut v: Vec<u32> = a.iter().map(|x| d.rule(x.rule).unwrap().sid).collect();
                v.sort();
                v
            };
            assert_eq!(sids(&cpu), want);
            assert_eq!(sids(&off), want);
            // Nothing found: no candidates, no alerts; the next CPU inspect scans again.
            let mut none = Vec::new();
            plan.inspect(&mut s, None, &input, &[], &mut none);
            assert!(none.is_empty());
            let mut again = Vec::new();
            let mut fd = FlowDetect::default();
            d.inspect(&mut s, Some(&mut fd), &input, &mut again);
            assert_eq!(sids(&again), want);
        }
    }

    #[test]
    fn pcre_dfas_are_counted_once_per_regex() {
        let d = det(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"x\"; pcre:\"/a+b/i\"; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"b\"; content:\"y\"; pcre:\"/a+b/i\"; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"z\"; pcre:\"/(a)\\1/\"; sid:3;)\n",
        ));
        let r = d.pcre_dfas(crate::PCRE_DFA_MAX_STATES);
        assert_eq!(
            (r.options, r.options_with_dfa, r.total, r.dfas.len()),
            (3, 2, 2, 1)
        );
        assert_eq!(r.refused.values().sum::<usize>(), 1);
        assert!(r.dfas[0].1.find_end(b"xAAB").is_some());
    }

    #[test]
    fn dfas_from_the_hook_make_the_plan_build_makes() {
        let d = det(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"GET\"; pcre:\"/id=[0-9]+x/\"; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"b\"; content:\"GET\"; pcre:\"/(a)\\1/\"; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"POST\"; pcre:\"/id=[0-9]+x/\"; sid:3;)\n",
        ));
        let plan = OffloadPlan::build(&d);
        let sources = OffloadPlan::pcre_sources(&d);
        // Each distinct regex once, the back-reference included (it is asked, has no DFA).
        assert_eq!(sources.len(), 2, "{sources:?}");
        let mut calls = Vec::new();
        let hooked = OffloadPlan::build_with(&d, &mut |s| {
            calls.push(s.clone());
            pcre_dfa(&s.0, s.1, crate::PCRE_DFA_MAX_STATES).ok()
        });
        assert_eq!(calls, sources);
        assert_eq!(hooked.pcre_dfas(), plan.pcre_dfas());
        assert_eq!(plan.pcre_dfas().len(), 1);
        // A hook without DFAs leaves every regex to PCRE2.
        let none = OffloadPlan::build_with(&d, &mut |_| None);
        assert!(none.pcre_dfas().is_empty());
    }

    #[test]
    fn pcre_dfa_outcomes_replace_pcre2_only_where_they_decide() {
        let d = det(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"GET\"; pcre:\"/id=[0-9]+x/\"; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"b\"; content:\"GET\"; pcre:!\"/evil[a-z]/\"; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"GET\"; content:\"id\"; pcre:\"/^=[0-9]/R\"; sid:3;)\n",
            "alert tcp any any -> any any (msg:\"d\"; content:\"GET\"; pcre:\"/(a)\\1/\"; sid:4;)\n",
        ));
        let plan = OffloadPlan::build(&d);
        let g = plan.group_of(6).unwrap();
        // Three regexes have DFAs (not the back-reference); GET calls for all three.
        assert_eq!(plan.pcre_dfas().len(), 3);
        assert_eq!(plan.pattern_dfas(g, 0), &[0, 1, 2]);
        assert!(plan.pattern_dfas(g, 9).is_empty());
        let sids = |a: &[Alert]| {
            let mut v: Vec<u32> = a.iter().map(|x| d.rule(x.rule).unwrap().sid).collect();
            v.sort();
            v
        };
        for (payload, want) in [
            (&b"GET /?id=12x"[..], vec![1, 2, 3]),
            (b"GET /?id=12 evilx aa", vec![3, 4]),
            (b"GET /?xd=12 zz", vec![2]),
        ] {
            let (p, frame) = packet(6, payload);
            let input = Input::packet(&p, &frame, None);
            let mut s = d.scratch();
            let mut cpu = Vec::new();
            d.inspect(&mut s, None, &input, &mut cpu);
            let outcomes: Vec<(u32, bool)> = (0..3)
                .map(|id| {
                    (
                        id,
                        plan.pcre_dfas()[id as usize].find_end(payload).is_some(),
                    )
                })
                .collect();
            let mut off = Vec::new();
            let skipped = plan.inspect_with_pcre(&mut s, None, &input, &[0], &outcomes, &mut off);
            assert_eq!(sids(&cpu), want);
            assert_eq!(sids(&off), want);
            let misses = outcomes.iter().filter(|o| !o.1).count() as u64;
            // Every DFA miss saved a PCRE2 run, except the relative pcre's (sid 3), which
            // runs after "id" only.
            assert!(
                skipped >= misses.saturating_sub(1) && skipped <= misses,
                "{skipped}"
            );
            // An outcome is taken as given: a false "no match" silences sid 1.
            if want.contains(&1) {
                let mut lie = Vec::new();
                plan.inspect_with_pcre(&mut s, None, &input, &[0], &[(0, false)], &mut lie);
                assert!(!sids(&lie).contains(&1));
                // ... but not for a copy of the payload (other bytes address).
                let copy = frame.clone();
                let input = Input::packet(&p, &copy, None);
                let mut again = Vec::new();
                plan.inspect(&mut s, None, &input, &[0], &mut again);
                assert_eq!(sids(&again), want);
            }
        }
    }
}
