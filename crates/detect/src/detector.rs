//! The detector: build (compile, order, group, prefilter) and per-packet inspection with
//! Suricata's alert semantics.

use std::collections::HashMap;

use app::BufferId;
use rules::{Action, LoadedRule, Vars};

use crate::input::{Alert, Input, MatchedOn};
use crate::options::{ActionClass, BuildStats, DetectOptions, DiagKind, Diagnostic};
use crate::prefilter::Prefilter;
use crate::sig::{self, BitsAct, ProtoM, Sig, Slot};
use crate::state::{FlowDetect, Hit, Scratch};
use crate::threshold::{self, Deferred, Global, Spec, Verdict};

mod frame;
mod groups;
mod packet;
mod tx;

use groups::{share_response_body, FpEntry, PktGroup, TxGroup};
pub(crate) use packet::{dsize_ok, ends_ok};
use packet::{flow_ok, header_ok, payload_targets, pkt_opt_ok};

/// Text and metadata of a loaded rule, for output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    /// Signature id.
    pub sid: u32,
    /// Generator id.
    pub gid: u32,
    /// Revision.
    pub rev: u32,
    /// Action.
    pub action: Action,
    /// Priority (1 highest).
    pub priority: u32,
    /// `msg`.
    pub msg: String,
    /// `classtype`.
    pub classtype: Option<String>,
    /// `metadata` entries.
    pub metadata: Vec<String>,
    /// `target`: which side of the alert is the target (EVE `alert.source`/`target`).
    pub target: Option<rules::ast::Target>,
    /// `tag` options: what an alert of the rule tags after it (`tag.rs`).
    pub tags: Vec<rules::tag::Tag>,
    /// `tls_store`: a match asks for the flow's certificate chain (`tls_store.rs`).
    pub tls_store: bool,
    /// `bypass`: a match bypasses the flow (`bypass.rs`).
    pub bypass: bool,
    /// `config: logging disable ...`: a match disables logging (`log_config.rs`).
    pub log_off: bool,
}

/// Packet protocol classes of the signature groups.
pub(crate) const CLASSES: usize = 4;
/// Directions of the signature groups: to-server, to-client, no flow.
pub(crate) const DIRS: usize = 3;

/// Compiled rules, shared read-only by all workers (`Send + Sync`).
#[derive(Debug)]
pub struct Detector {
    sigs: Vec<Sig>,
    /// Flowbit names by id.
    bit_names: Vec<String>,
    /// `flowint` names by id.
    int_names: Vec<String>,
    globals: Vec<Global>,
    infos: Vec<RuleInfo>,
    rule_to_info: HashMap<u32, u32>,
    pkt_groups: Vec<PktGroup>,
    tx_groups: [TxGroup; 2],
    /// Rules over frames (`frame`), in signature order.
    frame_sigs: Vec<u32>,
    /// Distinct address/port headers ([`Sig::ends`]).
    n_ends: usize,
    alert_max: usize,
    stats: BuildStats,
    lists: crate::lists::Lists,
    /// Host and IP-pair bits (`xbits`, `hostbits`), shared by the workers.
    hosts: crate::xbits::HostTable,
    /// Host tags (`tag:host`), shared by the workers.
    pub(crate) host_tags: crate::tag::HostTags,
    /// The digest files of each direction carry, as Suricata computes them.
    pub(crate) digest: crate::files::DigestInUse,
}

pub(crate) fn class_of_proto(p: u8) -> usize {
    match p {
        6 => 0,
        17 => 1,
        1 | 58 => 2,
        _ => 3,
    }
}

fn sig_classes(s: &Sig) -> Vec<usize> {
    match s.proto {
        ProtoM::Ip(_) => (0..CLASSES).collect(),
        ProtoM::L4(p) => vec![class_of_proto(p)],
        ProtoM::AnyIcmp => vec![2],
    }
}

fn sig_dirs(s: &Sig) -> Vec<usize> {
    if s.flow.to_server {
        vec![0]
    } else if s.flow.to_client {
        vec![1]
    } else if s.flow.needs_flow {
        vec![0, 1]
    } else {
        vec![0, 1, 2]
    }
}

/// Gives each signature the id of its addresses, ports and `<>` (the same id for the
/// same ones); returns how many distinct ones there are.
fn intern_ends(sigs: &mut [Sig]) -> usize {
    type Key = (
        Vec<(u32, u32)>,
        Vec<(u128, u128)>,
        Vec<(u32, u32)>,
        Vec<(u128, u128)>,
        Vec<(u16, u16)>,
        Vec<(u16, u16)>,
        bool,
    );
    let mut ids: HashMap<Key, u32> = HashMap::new();
    for s in sigs.iter_mut() {
        let key = (
            s.src.v4.clone(),
            s.src.v6.clone(),
            s.dst.v4.clone(),
            s.dst.v6.clone(),
            s.sports.ranges.clone(),
            s.dports.ranges.clone(),
            s.bidir,
        );
        let n = ids.len() as u32;
        s.ends = *ids.entry(key).or_insert(n);
    }
    ids.len()
}

impl Detector {
    /// Compiles `rules` (a rule set's `rules`, in load order). Rules the detector cannot
    /// evaluate are skipped and reported. `vars` resolves addresses in
    /// `threshold.config` suppressions.
    pub fn build(
        rules: &[LoadedRule],
        opts: &DetectOptions,
        vars: &Vars,
    ) -> (Detector, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut stats = BuildStats {
            rules_total: rules.len(),
            ..BuildStats::default()
        };
        let mut bits = sig::BitNames::default();
        let mut sigs = Vec::new();
        let mut globals = Vec::new();
        let mut infos = Vec::new();
        let mut rule_to_info = HashMap::new();
        for (i, lr) in rules.iter().enumerate() {
            let r = &lr.rule;
            if !r.enabled {
                stats.rules_disabled += 1;
                continue;
            }
            let res = sig::compile(i, lr, &mut bits, opts).and_then(|s| {
                let g = threshold::global_for(&opts.thresholds, vars, r.meta.gid, r.meta.sid)
                    .map_err(|e| sig::Refusal {
                        unsupported: false,
                        keyword: "threshold.config".into(),
                        message: e,
                    })?;
                let spec = g.threshold.filter(|_| g.exact || s.threshold.is_none());
                if let Some(t) = spec.or(s.threshold.as_ref().map(Spec::from_rule)) {
                    if t.track == rules::Track::ByFlow {
                        return Err(sig::Refusal {
                            unsupported: true,
                            keyword: "threshold".into(),
                            message: "threshold track by_flow".into(),
                        });
                    }
                }
                Ok((s, g))
            });
            match res {
                Ok((s, g)) => {
                    rule_to_info.insert(i as u32, infos.len() as u32);
                    infos.push(RuleInfo {
                        sid: r.meta.sid,
                        gid: r.meta.gid,
                        rev: r.meta.rev,
                        action: r.action,
                        priority: lr.priority,
                        msg: r.meta.msg.clone().unwrap_or_default(),
                        classtype: r.meta.classtype.clone(),
                        metadata: r.meta.metadata.clone(),
                        target: r.meta.target,
                        tags: crate::tag::of_rule(&r.options),
                        tls_store: crate::tls_store::of_rule(&r.options),
                        bypass: crate::bypass::of_rule(&r.options),
                        log_off: crate::log_config::of_rule(&r.options),
                    });
                    sigs.push(s);
                    globals.push(g);
                }
                Err(f) => {
                    if f.unsupported {
                        stats.rules_unsupported += 1;
                    } else {
                        stats.rules_failed += 1;
                    }
                    diags.push(Diagnostic {
                        rule: i,
                        sid: r.meta.sid,
                        gid: r.meta.gid,
                        kind: if f.unsupported {
                            DiagKind::Unsupported
                        } else {
                            DiagKind::Failed
                        },
                        keyword: f.keyword,
                        message: f.message,
                    });
                }
            }
        }
        // Suricata's signature order: action-order, flowbits (setters first), priority;
        // sid for a stable result.
        let rank = |a: Action| {
            let c = ActionClass::of(a);
            opts.action_order
                .iter()
                .position(|x| *x == c)
                .unwrap_or(opts.action_order.len())
        };
        let var_ranks: Vec<(u8, u8)> = sigs
            .iter()
            .map(|s| crate::vars::rank(&rules[s.rule as usize].rule))
            .collect();
        let mut order: Vec<usize> = (0..sigs.len()).collect();
        order.sort_by_key(|&i| {
            let s = &sigs[i];
            (
                rank(s.action),
                std::cmp::Reverse(s.bits_rank),
                std::cmp::Reverse(var_ranks[i]),
                std::cmp::Reverse(crate::flowint::rank(&s.flowint)),
                s.priority,
                s.gid,
                s.sid,
                s.rule,
            )
        });
        let mut sigs_sorted = Vec::with_capacity(sigs.len());
        let mut globals_sorted = Vec::with_capacity(sigs.len());
        let mut slots: Vec<Option<(Sig, Global)>> =
            sigs.into_iter().zip(globals).map(Some).collect();
        for i in order {
            let (s, g) = slots[i].take().expect("each index once");
            sigs_sorted.push(s);
            globals_sorted.push(g);
        }
        let mut sigs = sigs_sorted;
        stats.rules_loaded = sigs.len();
        let n_ends = intern_ends(&mut sigs);

        // Groups.
        let mut pkt_entries: Vec<Vec<FpEntry>> = (0..CLASSES * DIRS).map(|_| Vec::new()).collect();
        let mut pkt_groups: Vec<PktGroup> =
            (0..CLASSES * DIRS).map(|_| PktGroup::default()).collect();
        let mut tx_entries: [HashMap<BufferId, Vec<FpEntry>>; 2] = [HashMap::new(), HashMap::new()];
        let mut tx_groups = [TxGroup::default(), TxGroup::default()];
        let mut frame_sigs = Vec::new();
        for (si, s) in sigs.iter().enumerate() {
            let si = si as u32;
            if s.fp.is_some() {
                stats.rules_prefiltered += 1;
            }
            if !s.frames.is_empty() {
                frame_sigs.push(si);
                continue;
            }
            if s.is_tx() {
                let dirs: Vec<usize> = if s.app_both {
                    vec![0, 1]
                } else {
                    vec![s.app_dir.index()]
                };
                for d in dirs {
                    match s.fp.as_ref().or(s.pre_fp.as_ref()) {
                        Some((Slot::App(b), p, nc)) => {
                            tx_entries[d]
                                .entry(*b)
                                .or_default()
                                .push((p.clone(), *nc, si))
                        }
                        _ => tx_groups[d]
                            .always
                            .entry(s.app_proto.unwrap_or(app::AppProto::Unknown))
                            .push(si),
                    }
                }
                continue;
            }
            for c in sig_classes(s) {
                for d in sig_dirs(s) {
                    let g = c * DIRS + d;
                    match &s.fp {
                        Some((Slot::Payload, p, nc)) => pkt_entries[g].push((p.clone(), *nc, si)),
                        _ => pkt_groups[g].always.push(si),
                    }
                }
            }
        }
        for (g, entries) in pkt_entries.into_iter().enumerate() {
            if entries.is_empty() {
                continue;
            }
            match Prefilter::build(opts.mpm_kind, &entries) {
                Ok(mut p) => {
                    p.gate_dsize(|si| crate::prefilter::sig_dsize(&sigs[si as usize]));
                    pkt_groups[g].payload = Some(p)
                }
                Err(sigs) => {
                    pkt_groups[g].always.extend(sigs);
                    pkt_groups[g].always.sort_unstable();
                }
            }
        }
        share_response_body(&mut tx_entries[app::Direction::ToClient.index()]);
        for d in 0..2 {
            let mut bufs: Vec<_> = std::mem::take(&mut tx_entries[d]).into_iter().collect();
            bufs.sort_by_key(|x| x.0.name());
            for (b, entries) in bufs {
                match Prefilter::build(opts.mpm_kind, &entries) {
                    Ok(p) => tx_groups[d].bufs.push((b, p)),
                    Err(ss) => {
                        let v = tx_groups[d].always.entry(b.proto());
                        v.extend(ss);
                        v.sort_unstable();
                    }
                }
            }
        }
        for g in &pkt_groups {
            if let Some(p) = &g.payload {
                stats.matchers += 1;
                stats.patterns += p.stats().patterns;
                stats.mpm_memory += p.stats().memory;
            }
        }
        for g in &mut tx_groups {
            g.index_bufs();
        }
        for g in &tx_groups {
            for (_, p) in &g.bufs {
                stats.matchers += 1;
                stats.patterns += p.stats().patterns;
                stats.mpm_memory += p.stats().memory;
            }
        }
        for g in &mut pkt_groups {
            let (iponly, rest): (Vec<u32>, Vec<u32>) =
                g.always.iter().partition(|&&si| sigs[si as usize].iponly);
            g.always = rest;
            g.always_iponly = iponly;
        }
        stats.groups = pkt_groups
            .iter()
            .filter(|g| g.payload.is_some() || !g.always.is_empty() || !g.always_iponly.is_empty())
            .count()
            + tx_groups
                .iter()
                .filter(|g| !g.bufs.is_empty() || !g.always.is_empty())
                .count();
        let mut hosts = crate::xbits::HostTable::default();
        sigs.iter_mut()
            .flat_map(|s| s.xbits.iter_mut())
            .for_each(|o| hosts.intern(o));
        let int_names = crate::flowint::intern(sigs.iter_mut().flat_map(crate::lua::flowints_mut));
        let mut bit_names = vec![String::new(); bits.ids.len()];
        for (name, &id) in &bits.ids {
            bit_names[id as usize] = name.clone();
        }
        let dirs: Vec<Vec<usize>> = sigs.iter().map(sig_dirs).collect();
        let digest = crate::files::DigestInUse::of(
            sigs.iter()
                .zip(&dirs)
                .map(|(s, d)| (s.sid, &s.files, &d[..])),
        );
        let det = Detector {
            digest,
            sigs,
            bit_names,
            int_names,
            globals: globals_sorted,
            infos,
            rule_to_info,
            pkt_groups,
            tx_groups,
            frame_sigs,
            n_ends,
            alert_max: opts.packet_alert_max,
            stats,
            lists: opts.lists.clone(),
            hosts,
            host_tags: Default::default(),
        };
        (det, diags)
    }

    /// The datasets and reputation data its rules consult (shared with the run).
    pub fn lists(&self) -> &crate::lists::Lists {
        &self.lists
    }

    /// Counters of the build.
    pub fn stats(&self) -> &BuildStats {
        &self.stats
    }

    /// Number of rules loaded.
    pub fn len(&self) -> usize {
        self.sigs.len()
    }

    /// True when no rule was loaded.
    pub fn is_empty(&self) -> bool {
        self.sigs.is_empty()
    }

    /// Text and metadata of the rule with rule-set index `rule` (as in [`Alert::rule`]).
    pub fn rule(&self, rule: u32) -> Option<&RuleInfo> {
        self.rule_to_info
            .get(&rule)
            .map(|&i| &self.infos[i as usize])
    }

    /// `xbits`/`hostbits` sets refused because the host table was full.
    pub fn host_bits_dropped(&self) -> u64 {
        self.hosts.dropped()
    }

    /// The name of flowbit `id` (see [`FlowDetect::flowbits`](crate::FlowDetect::flowbits)).
    pub fn flowbit_name(&self, id: u32) -> Option<&str> {
        self.bit_names.get(id as usize).map(String::as_str)
    }

    /// The name of `flowint` variable `id` (see [`FlowDetect::flowints`]).
    pub fn flowint_name(&self, id: u32) -> Option<&str> {
        self.int_names.get(id as usize).map(String::as_str)
    }

    /// The payload prefilter of packet signature group `gi` (`offload`).
    pub(crate) fn payload_prefilter(&self, gi: usize) -> Option<&Prefilter> {
        self.pkt_groups.get(gi)?.payload.as_ref()
    }

    /// The compiled signatures (`offload`).
    pub(crate) fn sigs(&self) -> &[Sig] {
        &self.sigs
    }

    /// Rule-set indexes of the rules that have a fast pattern but whose group's
    /// prefilter could not be built, so they run on every packet or transaction.
    pub(crate) fn prefilter_fallbacks(&self) -> std::collections::HashSet<u32> {
        let pkt = self.pkt_groups.iter().flat_map(|g| &g.always);
        let tx = self
            .tx_groups
            .iter()
            .flat_map(|g| g.always.values().flatten());
        pkt.chain(tx)
            .map(|&si| &self.sigs[si as usize])
            .filter(|s| s.fp.is_some())
            .map(|s| s.rule)
            .collect()
    }

    /// Fresh per-worker scratch space.
    pub fn scratch(&self) -> Scratch {
        Scratch::new(self.sigs.len(), self.n_ends)
    }

    /// Inspects one packet (and the stream chunk / app-layer state handed with it) and
    /// appends its alerts to `alerts`, in Suricata's order (action-order, flowbits,
    /// priority, sid), at most `packet-alert-max`. `flow` is the flow's detection state
    /// (`None` for packets without a flow).
    pub fn inspect(
        &self,
        scratch: &mut Scratch,
        flow: Option<&mut FlowDetect>,
        input: &Input<'_>,
        alerts: &mut Vec<Alert>,
    ) {
        match flow {
            Some(fd) => self.inspect_with(scratch, fd, input, alerts),
            None => {
                let mut tmp = std::mem::take(&mut scratch.tmp_flow);
                tmp.reset();
                self.inspect_with(scratch, &mut tmp, input, alerts);
                scratch.tmp_flow = tmp;
            }
        }
    }

    fn inspect_with(
        &self,
        scratch: &mut Scratch,
        fd: &mut FlowDetect,
        input: &Input<'_>,
        alerts: &mut Vec<Alert>,
    ) {
        scratch.verdict = crate::verdict::Verdict::default();
        let layout = std::mem::take(&mut scratch.layout);
        fd.vars.start_packet();
        fd.tls_store.start_packet(input.flow.map(|f| f.to_server));
        if fd.passed {
            return;
        }
        if fd.dropped {
            scratch.verdict.drop = true;
            scratch.verdict.drop_flow = true;
            return;
        }
        scratch.next_packet();
        let pkt = input.packet;
        if pkt.ip_version == 0 && pkt.n_events == 0 {
            return;
        }
        // A packet a tunnel was decoded from (Teredo, VXLAN, GRE ...) gets no payload
        // inspection: its payload is the inner packet, inspected on its own (Suricata
        // sets no-payload-inspection on a tunnel's parent; tests/parity/cases/teredo-*).
        let payload = if pkt.has(wire::flags::HAS_INNER) {
            &[][..]
        } else {
            pkt.payload(input.frame)
        };
        if input.packet_rules || input.stream.is_some() || input.flow.is_some() {
            let dir = match input.flow {
                Some(f) if f.to_server => 0,
                Some(_) => 1,
                None => 2,
            };
            let g = &self.pkt_groups[class_of_proto(pkt.proto) * DIRS + dir];
            // IP-only rules run on the first packet of each flow direction, an
            // end-of-flow pseudo-packet included (Suricata's flow flags say per
            // direction whether IP-only rules ran; a pseudo-packet is a packet).
            let pseudo = !input.packet_rules && dir < 2;
            let iponly_ok = (input.packet_rules || pseudo) && (dir == 2 || !fd.iponly_done[dir]);
            scratch.next_gen();
            scratch.add_sorted(&g.always);
            if iponly_ok {
                scratch.add_sorted(&g.always_iponly);
            }
            if let Some(pf) = &g.payload {
                let mut seen = std::mem::take(&mut scratch.seen);
                // A TCP flow's direction remembers its packets' scans for the raw
                // stream chunks built from them (`stream_memo.rs`).
                let memo_dir = (dir < 2 && pkt.proto == wire::ip_proto::TCP).then_some(dir);
                let mut recorded = false;
                if input.packet_rules && !payload.is_empty() {
                    if scratch.pre_active {
                        // Matched elsewhere (`offload`): the same candidates.
                        let pre = std::mem::take(&mut scratch.pre_sigs);
                        pre.iter().for_each(|&s| scratch.add_cand(s));
                        scratch.pre_sigs = pre;
                    } else {
                        let n = pkt.payload_len as u64;
                        match (memo_dir, layout.payload_at) {
                            (Some(d), Some(off)) if payload.len() == pkt.payload_len as usize => {
                                let mut ids = std::mem::take(&mut scratch.memo_ids);
                                ids.clear();
                                pf.scan_recording(payload, Some(n), &mut seen, &mut ids, |s| {
                                    scratch.add_cand(s)
                                });
                                let m = scratch.memos.get_or_new(&mut fd.stream_memo);
                                m.dirs[d].record(off, payload.len(), &ids, layout.rewrites);
                                scratch.memo_ids = ids;
                                recorded = true;
                            }
                            _ => pf.scan_packet(payload, n, &mut seen, |s| scratch.add_cand(s)),
                        }
                    }
                }
                if let (Some(d), Some(m)) = (memo_dir, scratch.memos.get(fd.stream_memo)) {
                    // Bytes of the stream no record stands for.
                    if pkt.payload_len > 0 && !recorded {
                        m.dirs[d].forget();
                    }
                }
                if let Some(st) = input.stream {
                    let n = pkt.payload_len as u64;
                    let mut plan = std::mem::take(&mut scratch.memo_plan);
                    let from = memo_dir.zip(layout.stream_at);
                    let planned = from.is_some_and(|(d, a)| {
                        scratch.memos.get(fd.stream_memo).is_some_and(|m| {
                            let rw = layout.rewrites;
                            m.dirs[d].plan(a, st.len(), pf.overlap(), rw, &mut plan)
                        })
                    });
                    if planned {
                        pf.scan_parts(st, &plan, Some(n), &mut seen, |s| scratch.add_cand(s));
                    } else {
                        pf.scan_packet(st, n, &mut seen, |s| scratch.add_cand(s));
                    }
                    scratch.memo_plan = plan;
                    if let Some(((d, a), m)) = from.zip(scratch.memos.get(fd.stream_memo)) {
                        m.dirs[d].consumed(a + st.len() as u64);
                    }
                }
                scratch.seen = seen;
            }
            // Signature order without sorting the rules that need no prefilter.
            scratch.order_cands();
            let cands = std::mem::take(&mut scratch.cands);
            for &si in &cands {
                let s = &self.sigs[si as usize];
                if s.iponly && !iponly_ok {
                    continue;
                }
                if let Some(on) = self.eval_packet(s, scratch, fd, input, payload) {
                    self.matched(si, s, on, scratch, fd, input.packet);
                }
            }
            scratch.cands = cands;
            if (input.packet_rules || pseudo) && dir < 2 {
                fd.iponly_done[dir] = true;
            }
        }
        if let (Some(af), Some(fi)) = (input.app, input.flow) {
            if !self.frame_sigs.is_empty() {
                self.inspect_frames(scratch, fd, input, fi, af);
            }
            if input.txs {
                self.inspect_txs(scratch, fd, input, fi, af, payload);
            }
        }
        crate::lua::apply_writes(fd);
        fd.vars.end_packet();
        let before = alerts.len();
        self.finalize(scratch, fd, input, alerts);
        fd.alerted |= alerts.len() > before;
    }

    /// Post-match work of a rule: flowbits actions and the hit record.
    fn matched(
        &self,
        si: u32,
        s: &Sig,
        on: MatchedOn,
        scratch: &mut Scratch,
        fd: &mut FlowDetect,
        pkt: &wire::Packet,
    ) {
        s.xbits
            .iter()
            .filter(|o| !o.is_cond())
            .for_each(|o| self.hosts.act(o, pkt));
        s.flowint.iter().for_each(|o| o.act(fd));
        // `infos` is in rule-set order, `sigs` in signature order: by the rule's index.
        let info = self.rule(s.rule);
        if info.is_some_and(|i| i.tls_store) {
            fd.tls_store.request();
        }
        fd.bypass |= info.is_some_and(|i| i.bypass);
        if info.is_some_and(|i| i.log_off) {
            fd.log_marks.mark(on);
        }
        fd.vars.commit(&mut scratch.vars.captured);
        for a in &s.bits_act {
            match *a {
                BitsAct::Set(b) => fd.set_bit(b, true),
                BitsAct::Unset(b) => fd.set_bit(b, false),
                BitsAct::Toggle(b) => {
                    let v = fd.bit(b);
                    fd.set_bit(b, !v)
                }
            }
        }
        // One alert per rule per packet; a transaction rule may alert once for each
        // transaction it matched (Suricata keeps alerts that differ by tx id), a frame
        // rule once for each frame.
        if !matches!(on, MatchedOn::Tx(_) | MatchedOn::Frame(_)) {
            let st = &mut scratch.hit_stamp[si as usize];
            if *st == scratch.hit_gen {
                return;
            }
            *st = scratch.hit_gen;
        }
        // A `noalert` rule still counts for its verdict (drop, reject, pass).
        if s.noalert && matches!(s.action, Action::Alert | Action::Log) {
            return;
        }
        scratch.hits.push(Hit {
            sig: si,
            alert: Alert {
                rule: s.rule,
                sid: s.sid,
                gid: s.gid,
                rev: s.rev,
                action: s.action,
                priority: s.priority,
                matched_on: on,
                deferred: None,
            },
        });
        if !matches!(on, MatchedOn::Tx(_)) && crate::bidir::twice(s, pkt) {
            let h = scratch.hits[scratch.hits.len() - 1];
            scratch.hits.push(h);
        }
    }

    fn finalize(
        &self,
        scratch: &mut Scratch,
        fd: &mut FlowDetect,
        input: &Input<'_>,
        alerts: &mut Vec<Alert>,
    ) {
        if scratch.hits.is_empty() {
            return;
        }
        scratch.hits.sort_unstable_by_key(|h| {
            let tx = match h.alert.matched_on {
                MatchedOn::Tx(id) => id,
                MatchedOn::Frame(f) => f.id,
                _ => 0,
            };
            (h.sig, tx)
        });
        let pkt = input.packet;
        let (src, dst) = (
            wire::ip_addr(pkt.ip_version == 4, &pkt.src),
            wire::ip_addr(pkt.ip_version == 4, &pkt.dst),
        );
        let now = pkt.ts.0;
        let mut kept = 0;
        for h in &scratch.hits {
            let s = &self.sigs[h.sig as usize];
            // Header-only rules and matches on the stream or a transaction act on the
            // whole flow; matches on a packet's own payload or options on the packet.
            let flow_scope = input.flow.is_some()
                && (s.flow_action
                    || matches!(h.alert.matched_on, MatchedOn::Tx(_) | MatchedOn::Stream)
                    || matches!(h.alert.matched_on, MatchedOn::Frame(f) if !f.datagram));
            if s.action == Action::Pass {
                scratch.verdict.add(Action::Pass, flow_scope);
                if flow_scope {
                    fd.passed = true;
                }
                // 7.0's `alert` keyword makes a pass rule log its match (`allowed`).
                if !s.noalert && kept < self.alert_max {
                    scratch.stats.alerts += 1;
                    alerts.push(h.alert);
                }
                break;
            }
            let g = &self.globals[h.sig as usize];
            if g.suppress.iter().any(|x| x.hits(src, dst)) {
                scratch.stats.alerts_suppressed += 1;
                continue;
            }
            let spec = g
                .threshold
                .filter(|_| g.exact || s.threshold.is_none())
                .or(s.threshold.as_ref().map(Spec::from_rule));
            let mut deferred = None;
            if let Some(spec) = spec {
                let Some(key) = threshold::key(spec.track, pkt.src, pkt.dst) else {
                    continue;
                };
                deferred = scratch
                    .share_thresholds
                    .then(|| Deferred::of(h.sig, spec, key, now))
                    .flatten();
                let local = match deferred {
                    Some(_) => Verdict::Alert,
                    None => scratch.thresholds.check(h.sig, &spec, key, now),
                };
                match local {
                    Verdict::Alert => {}
                    Verdict::Quiet => {
                        scratch.stats.alerts_suppressed += 1;
                        continue;
                    }
                    Verdict::Full => {
                        scratch.stats.threshold_table_full += 1;
                        continue;
                    }
                }
            }
            let mut alert = h.alert;
            alert.deferred = deferred;
            if let Some(rf) = &g.rate_filter {
                let key = threshold::rate_key(rf.track, pkt.src, pkt.dst);
                if let Some(a) = scratch.rates.check(h.sig, rf, key, now) {
                    alert.action = a;
                }
            }
            if scratch.verdict.add(alert.action, flow_scope) {
                if flow_scope {
                    fd.passed = true;
                }
                break;
            }
            if s.noalert || alert.action == Action::Sdrop {
                continue;
            }
            // A drop beyond `packet-alert-max` is not logged but still takes effect.
            if kept >= self.alert_max {
                scratch.stats.alerts_discarded += 1;
                continue;
            }
            kept += 1;
            // A deferred alert is counted where its threshold check is made.
            scratch.stats.alerts += u64::from(alert.deferred.is_none());
            alerts.push(alert);
        }
    }

    /// Header, flow, packet options and flowbits conditions.
    fn pre_checks(
        &self,
        s: &Sig,
        fd: &FlowDetect,
        input: &Input<'_>,
        ends: &mut crate::state::EndsMemo,
    ) -> bool {
        crate::events::undecoded_ok(s, input.packet)
            && header_ok(s, input.packet, input.flow, ends)
            && flow_ok(s, input.flow)
            && s.pkt.iter().all(|o| pkt_opt_ok(o, input, fd))
            && s.xbits
                .iter()
                .filter(|o| o.is_cond())
                .all(|o| self.hosts.check(o, input.packet))
            && s.flowint.iter().all(|o| o.pre(fd))
            && s.vars.iter().all(|c| c.matches(&fd.vars))
            && s.bits_cond.iter().all(|c| {
                let f = |b: &u32| fd.bit(*b) == c.set;
                if c.all {
                    c.bits.iter().all(f)
                } else {
                    c.bits.iter().any(f)
                }
            })
    }

    fn eval_packet(
        &self,
        s: &Sig,
        scratch: &mut Scratch,
        fd: &FlowDetect,
        input: &Input<'_>,
        payload: &[u8],
    ) -> Option<MatchedOn> {
        if !self.pre_checks(s, fd, input, &mut scratch.ends) {
            return None;
        }
        scratch.stats.rules_evaluated += 1;
        scratch.vars.captured.clear();
        let Some(prog) = &s.payload else {
            // On a pseudo-packet only IP-only rules (checked by the caller), rules that
            // are IP-only but for a negated address (Suricata's "like IP-only": no
            // keyword refuses a pseudo-packet; on a session still open) and rules
            // of an app-layer protocol without buffers or packet options (`alert http
            // any any ...`, which Suricata matches on the end-of-flow pseudo-packets of
            // a session still open; with `dsize:0` it does not: bug-5578) match.
            let app_rule =
                input.eof_open && s.app_proto.is_some() && !s.is_tx() && s.pkt.is_empty();
            let like_iponly = s.like_iponly && input.eof_open;
            let any = input.packet_rules || s.iponly || like_iponly || app_rule;
            return (any && !crate::only_stream::never_matches(s)).then_some(MatchedOn::Packet);
        };
        let (stream_ok, pkt_ok) = payload_targets(s.payload_mode, input);
        if stream_ok {
            if let Some(st) = input.stream.filter(|b| !b.is_empty()) {
                if prog.matches(st, &mut scratch.vars) {
                    return Some(MatchedOn::Stream);
                }
            }
        }
        if pkt_ok
            && !payload.is_empty()
            && prog.matches_pre(payload, &mut scratch.vars, scratch.pcre_pre.get())
        {
            return Some(MatchedOn::Packet);
        }
        None
    }
}
