//! The detector: build (compile, order, group, prefilter) and per-packet inspection with
//! Suricata's alert semantics.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use app::http::HttpBuffer;
use rules::{Action, LoadedRule, Vars};

use crate::input::{Alert, FlowInfo, Input, MatchedOn};
use crate::options::{ActionClass, BuildStats, DetectOptions, DiagKind, Diagnostic};
use crate::prefilter::Prefilter;
use crate::sig::{self, proto_matches, AppBuf, BitsAct, PayloadMode, PktOpt, ProtoM, Sig, Slot};
use crate::state::{FlowDetect, Hit, Scratch};
use crate::threshold::{self, Deferred, Global, Spec, Verdict};
use crate::transform;

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
}

/// A fast pattern entry: bytes, nocase, signature.
type FpEntry = (Vec<u8>, bool, u32);

/// Packet protocol classes of the signature groups.
pub(crate) const CLASSES: usize = 4;
/// Directions of the signature groups: to-server, to-client, no flow.
pub(crate) const DIRS: usize = 3;

#[derive(Debug, Default)]
struct PktGroup {
    /// Rules without a payload fast pattern, IP-only rules excepted, in signature order.
    always: Vec<u32>,
    /// IP-only rules (they run on the first packet of each flow direction only), in
    /// signature order: kept apart so the other packets do not walk past them.
    always_iponly: Vec<u32>,
    payload: Option<Prefilter>,
}

#[derive(Debug, Default)]
struct TxGroup {
    always: HashMap<app::AppProto, Vec<u32>>,
    bufs: Vec<(AppBuf, Prefilter)>,
}

/// Compiled rules, shared read-only by all workers (`Send + Sync`).
#[derive(Debug)]
pub struct Detector {
    sigs: Vec<Sig>,
    globals: Vec<Global>,
    infos: Vec<RuleInfo>,
    rule_to_info: HashMap<u32, u32>,
    pkt_groups: Vec<PktGroup>,
    tx_groups: [TxGroup; 2],
    alert_max: usize,
    stats: BuildStats,
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
            let res = sig::compile(i, lr, &mut bits).and_then(|s| {
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
        let mut order: Vec<usize> = (0..sigs.len()).collect();
        order.sort_by_key(|&i| {
            let s = &sigs[i];
            (
                rank(s.action),
                std::cmp::Reverse(s.bits_rank),
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
        let sigs = sigs_sorted;
        stats.rules_loaded = sigs.len();

        // Groups.
        let mut pkt_entries: Vec<Vec<FpEntry>> = (0..CLASSES * DIRS).map(|_| Vec::new()).collect();
        let mut pkt_groups: Vec<PktGroup> =
            (0..CLASSES * DIRS).map(|_| PktGroup::default()).collect();
        let mut tx_entries: [HashMap<AppBuf, Vec<FpEntry>>; 2] = [HashMap::new(), HashMap::new()];
        let mut tx_groups = [TxGroup::default(), TxGroup::default()];
        for (si, s) in sigs.iter().enumerate() {
            let si = si as u32;
            if s.fp.is_some() {
                stats.rules_prefiltered += 1;
            }
            if s.is_tx() {
                let dirs: Vec<usize> = if s.app_both {
                    vec![0, 1]
                } else {
                    vec![s.app_dir.index()]
                };
                for d in dirs {
                    match &s.fp {
                        Some((Slot::App(b), p, nc)) => {
                            tx_entries[d]
                                .entry(*b)
                                .or_default()
                                .push((p.clone(), *nc, si))
                        }
                        _ => tx_groups[d]
                            .always
                            .entry(s.app_proto.unwrap_or(app::AppProto::Unknown))
                            .or_default()
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
                Ok(p) => pkt_groups[g].payload = Some(p),
                Err(sigs) => {
                    pkt_groups[g].always.extend(sigs);
                    pkt_groups[g].always.sort_unstable();
                }
            }
        }
        for d in 0..2 {
            let mut bufs: Vec<_> = std::mem::take(&mut tx_entries[d]).into_iter().collect();
            bufs.sort_by_key(|x| x.0.name());
            for (b, entries) in bufs {
                match Prefilter::build(opts.mpm_kind, &entries) {
                    Ok(p) => tx_groups[d].bufs.push((b, p)),
                    Err(ss) => {
                        let v = tx_groups[d].always.entry(b.proto()).or_default();
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
        let det = Detector {
            sigs,
            globals: globals_sorted,
            infos,
            rule_to_info,
            pkt_groups,
            tx_groups,
            alert_max: opts.packet_alert_max,
            stats,
        };
        (det, diags)
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

    /// The payload prefilter of packet signature group `gi` (`offload`).
    pub(crate) fn payload_prefilter(&self, gi: usize) -> Option<&Prefilter> {
        self.pkt_groups.get(gi)?.payload.as_ref()
    }

    /// The compiled signatures (`offload`).
    pub(crate) fn sigs(&self) -> &[Sig] {
        &self.sigs
    }

    /// Fresh per-worker scratch space.
    pub fn scratch(&self) -> Scratch {
        Scratch::new(self.sigs.len())
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
        if pkt.ip_version == 0 {
            return;
        }
        let payload = pkt.payload(input.frame);
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
                if input.packet_rules && !payload.is_empty() {
                    if scratch.pre_active {
                        // Matched elsewhere (`offload`): the same candidates.
                        let pre = std::mem::take(&mut scratch.pre_sigs);
                        pre.iter().for_each(|&s| scratch.add_cand(s));
                        scratch.pre_sigs = pre;
                    } else {
                        pf.scan(payload, &mut seen, |s| scratch.add_cand(s));
                    }
                }
                if let Some(st) = input.stream {
                    pf.scan(st, &mut seen, |s| scratch.add_cand(s));
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
                    self.matched(si, s, on, scratch, fd);
                }
            }
            scratch.cands = cands;
            if (input.packet_rules || pseudo) && dir < 2 {
                fd.iponly_done[dir] = true;
            }
        }
        if let (Some(af), Some(fi)) = (input.app, input.flow) {
            self.inspect_txs(scratch, fd, input, fi, af, payload);
        }
        self.finalize(scratch, fd, input, alerts);
    }

    fn inspect_txs(
        &self,
        scratch: &mut Scratch,
        fd: &mut FlowDetect,
        input: &Input<'_>,
        fi: FlowInfo,
        af: &app::AppFlow,
        payload: &[u8],
    ) {
        let dir = if fi.to_server {
            app::Direction::ToServer
        } else {
            app::Direction::ToClient
        };
        let tg = &self.tx_groups[dir.index()];
        if tg.bufs.is_empty() && tg.always.is_empty() {
            return;
        }
        let flow_flags = u64::from(fi.established)
            | u64::from(fi.payload_in_stream) << 1
            | u64::from(input.packet_rules) << 2;
        let di = dir.index() as u8;
        let mut run = |tx: TxView<'_>| {
            if tx.id() < fd.tx_floor[di as usize] {
                return;
            }
            let (fp_hdr, fp_body) = tx.fingerprint();
            // Flowbits set by an earlier transaction of this call count too.
            let fp = fp_mix(fp_mix(fd.bits_gen, flow_flags), fp_hdr);
            scratch.next_gen();
            // Suricata inspects a transaction again only where it progressed: with the
            // flowbits and everything but the bodies unchanged, only the rules that look
            // at the packet, the rules that inspect a body (when a body changed) and the
            // body fast patterns can change a verdict.
            let seen_i = fd
                .tx_seen_index(di, tx.id())
                .filter(|&i| fd.tx_seen[i].fp == fp);
            let body_only = match seen_i {
                Some(i) => {
                    let t = &fd.tx_seen[i];
                    scratch.add_sorted(&t.pkt_cands);
                    if t.fp_body == fp_body {
                        None
                    } else {
                        scratch.add_sorted(&t.body_cands);
                        Some(true)
                    }
                }
                None => Some(false),
            };
            if let Some(body_only) = body_only {
                if !body_only {
                    if let Some(v) = tg.always.get(&tx.proto()) {
                        scratch.add_sorted(v);
                    }
                }
                for (b, pf) in &tg.bufs {
                    if b.proto() != tx.proto() || (body_only && !b.is_body()) {
                        continue;
                    }
                    let mut seen = std::mem::take(&mut scratch.seen);
                    tx.each(*b, dir, |buf| {
                        pf.scan(buf, &mut seen, |s| scratch.add_cand(s))
                    });
                    scratch.seen = seen;
                }
            }
            scratch.order_cands();
            let cands = std::mem::take(&mut scratch.cands);
            let (mut pkt_cands, mut body_cands) = (Vec::new(), Vec::new());
            for &si in &cands {
                if fd.tx_done(tx.id(), si) {
                    continue;
                }
                let s = &self.sigs[si as usize];
                if self.eval_tx(s, scratch, fd, input, &tx, dir, payload) {
                    fd.mark_tx_done(tx.id(), si);
                    self.matched(si, s, MatchedOn::Tx(tx.id()), scratch, fd);
                    continue;
                }
                if s.looks_at_packet() {
                    pkt_cands.push(si);
                }
                if s.app.iter().any(|a| a.buf.is_body()) {
                    body_cands.push(si);
                }
            }
            scratch.cands = cands;
            if let (Some(i), None) = (seen_i, body_only) {
                // Only the packet-dependent rules ran: the body list stays.
                body_cands = std::mem::take(&mut fd.tx_seen[i].body_cands);
            }
            // Flowbits set by this pass change the fingerprint: the next packet
            // inspects the transaction in full again.
            fd.remember_tx(crate::state::TxSeen {
                dir: di,
                id: tx.id(),
                fp,
                fp_body,
                pkt_cands,
                body_cands,
            });
            if tx.is_final() {
                fd.finish_tx(di, tx.id());
            }
        };
        match af.state() {
            app::AppState::Http(h) => h.txs().for_each(|t| run(TxView::Http(t))),
            // HTTP/2 streams are HTTP transactions to the `http.*` buffers.
            app::AppState::Http2(h) => h.txs().for_each(|t| run(TxView::Http(t))),
            app::AppState::Dns(d) => d.txs().for_each(|t| run(TxView::Dns(t))),
            app::AppState::Tls(t) => run(TxView::Tls(t)),
            // No rule inspects SIP, SMB, DCERPC or SMTP buffers (rules with their
            // keywords are unsupported); their rules inspect packets and the raw stream.
            app::AppState::Sip(_)
            | app::AppState::Smb(_)
            | app::AppState::Dcerpc(_)
            | app::AppState::Smtp
            | app::AppState::None => {}
        }
    }

    /// Post-match work of a rule: flowbits actions and the hit record.
    fn matched(&self, si: u32, s: &Sig, on: MatchedOn, scratch: &mut Scratch, fd: &mut FlowDetect) {
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
        // transaction it matched (Suricata keeps alerts that differ by tx id).
        if !matches!(on, MatchedOn::Tx(_)) {
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
                _ => 0,
            };
            (h.sig, tx)
        });
        let pkt = input.packet;
        let (src, dst) = (
            addr(pkt.ip_version, &pkt.src),
            addr(pkt.ip_version, &pkt.dst),
        );
        let now = pkt.ts.0;
        let mut kept = 0;
        for h in &scratch.hits {
            let s = &self.sigs[h.sig as usize];
            // Header-only rules and matches on the stream or a transaction act on the
            // whole flow; matches on a packet's own payload or options on the packet.
            let flow_scope = input.flow.is_some()
                && (s.flow_action
                    || matches!(h.alert.matched_on, MatchedOn::Tx(_) | MatchedOn::Stream));
            if s.action == Action::Pass {
                scratch.verdict.add(Action::Pass, flow_scope);
                if flow_scope {
                    fd.passed = true;
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
    fn pre_checks(&self, s: &Sig, fd: &FlowDetect, input: &Input<'_>) -> bool {
        header_ok(s, input.packet, input.flow)
            && flow_ok(s, input.flow)
            && s.pkt
                .iter()
                .all(|o| pkt_opt_ok(o, input.packet, input.frame))
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
        if !self.pre_checks(s, fd, input) {
            return None;
        }
        scratch.stats.rules_evaluated += 1;
        let Some(prog) = &s.payload else {
            // On a pseudo-packet only IP-only rules (checked by the caller) match.
            return (input.packet_rules || s.iponly).then_some(MatchedOn::Packet);
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

    #[allow(clippy::too_many_arguments)]
    fn eval_tx(
        &self,
        s: &Sig,
        scratch: &mut Scratch,
        fd: &FlowDetect,
        input: &Input<'_>,
        tx: &TxView<'_>,
        dir: app::Direction,
        payload: &[u8],
    ) -> bool {
        if s.app_proto != Some(tx.proto()) || !self.pre_checks(s, fd, input) {
            return false;
        }
        scratch.stats.rules_evaluated += 1;
        if let Some(prog) = &s.payload {
            let (stream_ok, pkt_ok) = payload_targets(s.payload_mode, input);
            let on_stream = stream_ok
                && input
                    .stream
                    .is_some_and(|st| !st.is_empty() && prog.matches(st, &mut scratch.vars));
            let on_packet = !on_stream
                && pkt_ok
                && !payload.is_empty()
                && prog.matches_pre(payload, &mut scratch.vars, scratch.pcre_pre.get());
            if !on_stream && !on_packet {
                return false;
            }
        }
        for ap in &s.app {
            let mut any = false;
            let (xbuf, xtmp, vars) = (&mut scratch.xbuf, &mut scratch.xtmp, &mut scratch.vars);
            tx.each(ap.buf, dir, |b| {
                if any {
                    return;
                }
                any = if ap.transforms.is_empty() {
                    ap.prog.matches(b, vars)
                } else {
                    transform::apply(&ap.transforms, b, xbuf, xtmp);
                    ap.prog.matches(xbuf, vars)
                };
            });
            if !any {
                return false;
            }
        }
        true
    }
}

/// Mixes `v` into the fingerprint `h` (a multiply-rotate hash over a few lengths and
/// states; two different states colliding in 64 bits is not a practical concern).
fn fp_mix(h: u64, v: u64) -> u64 {
    (h ^ v)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        .wrapping_add(0x632B_E59B_D9B4_E019)
}

impl Sig {
    /// Whether the rule's verdict on a transaction also depends on the packet (payload
    /// content, packet options, flow state or app-layer protocol checks).
    fn looks_at_packet(&self) -> bool {
        self.payload.is_some()
            || !self.pkt.is_empty()
            || !self.alp.is_empty()
            || self.flow.not_established
    }
}

/// Which payloads a payload program may inspect in this call: (stream chunk, packet).
fn payload_targets(mode: PayloadMode, input: &Input<'_>) -> (bool, bool) {
    let in_stream = input.flow.is_some_and(|f| f.payload_in_stream);
    match mode {
        PayloadMode::Packet => (false, input.packet_rules),
        PayloadMode::Stream => (true, false),
        PayloadMode::Both => (true, input.packet_rules && !in_stream),
        PayloadMode::BothAndPacket => (true, input.packet_rules),
    }
}

fn addr(ver: u8, b: &[u8; 16]) -> IpAddr {
    if ver == 4 {
        IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3]))
    } else {
        IpAddr::V6(Ipv6Addr::from(*b))
    }
}

fn has_ports(proto: u8) -> bool {
    matches!(proto, 6 | 17 | 132)
}

fn header_ok(s: &Sig, p: &wire::Packet, flow: Option<FlowInfo>) -> bool {
    let proto_ok = match s.proto {
        ProtoM::Ip(None) => true,
        ProtoM::Ip(Some(v)) => p.ip_version == v,
        // Like Suricata, a TCP/UDP rule needs the transport header decoded (a UDP
        // length that disagrees with the IP payload leaves it undecoded); pseudo-packets
        // (no frame offsets) stand for a decoded flow.
        ProtoM::L4(x) => p.proto == x && (!matches!(x, 6 | 17) || p.l4_off != 0 || p.l3_off == 0),
        ProtoM::AnyIcmp => p.proto == 1 || p.proto == 58,
    };
    if !proto_ok {
        return false;
    }
    let cur = flow.map_or(app::AppProto::Unknown, |f| f.app_proto);
    if let Some(ap) = s.app_proto {
        if flow.is_none() || !proto_matches(ap, s.http_only, cur) {
            return false;
        }
    }
    for c in &s.alp {
        if proto_matches(c.proto, c.only, cur) == c.negated {
            return false;
        }
    }
    let (src, dst) = (addr(p.ip_version, &p.src), addr(p.ip_version, &p.dst));
    let ports = has_ports(p.proto);
    let port_ok = |set: &rules::PortSet, port: u16| {
        if ports {
            set.contains(port)
        } else {
            set.is_any()
        }
    };
    let fwd = s.src.contains(src)
        && s.dst.contains(dst)
        && port_ok(&s.sports, p.sport)
        && port_ok(&s.dports, p.dport);
    fwd || (s.bidir
        && s.src.contains(dst)
        && s.dst.contains(src)
        && port_ok(&s.sports, p.dport)
        && port_ok(&s.dports, p.sport))
}

fn flow_ok(s: &Sig, flow: Option<FlowInfo>) -> bool {
    let f = &s.flow;
    if !f.needs_flow {
        return true;
    }
    let Some(fi) = flow else { return false };
    (!f.to_server || fi.to_server)
        && (!f.to_client || !fi.to_server)
        && (!f.established || fi.established)
        && (!f.not_established || !fi.established)
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn icmp_has_id_seq(p: &wire::Packet) -> bool {
    match p.proto {
        1 => matches!(p.icmp_type, 0 | 8 | 13 | 14 | 15 | 16 | 17 | 18),
        58 => matches!(p.icmp_type, 128 | 129),
        _ => false,
    }
}

/// `dsize` as Suricata evaluates it: a negated non-zero size (`dsize:!N`) makes the
/// rule require a payload (Suricata's signature mask), so it never matches an empty
/// packet; `<N` and `<=N` do match empty packets.
fn dsize_ok(c: &rules::IntCmp, len: u64) -> bool {
    if len == 0 && matches!(c, rules::IntCmp::Ne(n) if *n > 0) {
        return false;
    }
    c.matches(len)
}

fn pkt_opt_ok(o: &PktOpt, p: &wire::Packet, frame: &[u8]) -> bool {
    let tcp = p.proto == 6 && p.l4_off != 0;
    let icmp = (p.proto == 1 || p.proto == 58) && p.l4_off != 0;
    match o {
        PktOpt::Dsize(c) => dsize_ok(c, p.payload_len as u64),
        PktOpt::Flags(f) => tcp && f.matches(p.tcp_flags),
        PktOpt::Ttl(c) => c.matches(p.ttl as u64),
        PktOpt::Itype(c) => icmp && c.matches(p.icmp_type as u64),
        PktOpt::Icode(c) => icmp && c.matches(p.icmp_code as u64),
        PktOpt::IcmpId(v) => {
            icmp && icmp_has_id_seq(p) && be16(frame, p.l4_off as usize + 4) == Some(*v)
        }
        PktOpt::IcmpSeq(v) => {
            icmp && icmp_has_id_seq(p) && be16(frame, p.l4_off as usize + 6) == Some(*v)
        }
        PktOpt::Seq(v) => tcp && p.seq == *v,
        PktOpt::Ack(v) => tcp && p.ack == *v,
        PktOpt::Window { negated, size } => tcp && (p.window == *size) != *negated,
        PktOpt::IpId(v) => p.ip_version == 4 && p.ip_id as u16 == *v,
        PktOpt::Tos { negated, value } => p.ip_version == 4 && (p.tos == *value) != *negated,
        PktOpt::IpProto { op, proto } => match op {
            Some('!') => p.proto != *proto,
            Some('<') => p.proto < *proto,
            Some('>') => p.proto > *proto,
            _ => p.proto == *proto,
        },
        PktOpt::SameIp => p.src == p.dst,
    }
}

/// One transaction of any supported protocol.
enum TxView<'a> {
    Http(&'a app::http::HttpTx),
    Dns(&'a app::dns::DnsTx),
    Tls(&'a app::tls::TlsState),
}

impl TxView<'_> {
    fn id(&self) -> u64 {
        match self {
            TxView::Http(t) => t.id(),
            TxView::Dns(t) => t.id(),
            TxView::Tls(_) => 0,
        }
    }

    fn proto(&self) -> app::AppProto {
        match self {
            TxView::Http(_) => app::AppProto::Http,
            TxView::Dns(_) => app::AppProto::Dns,
            TxView::Tls(_) => app::AppProto::Tls,
        }
    }

    /// Whether the transaction can no longer change (both sides complete).
    fn is_final(&self) -> bool {
        match self {
            TxView::Http(t) => t.is_complete(),
            TxView::Dns(_) => true,
            TxView::Tls(_) => false,
        }
    }

    /// Fingerprints (everything but the bodies, the bodies) that change whenever a
    /// buffer of the transaction may have changed.
    fn fingerprint(&self) -> (u64, u64) {
        match self {
            TxView::Http(t) => {
                let (mut h, mut body) = (0, 0);
                for (m, d) in [
                    (t.request(), app::Direction::ToServer),
                    (t.response(), app::Direction::ToClient),
                ] {
                    h = fp_mix(h, m.progress() as u64);
                    h = fp_mix(h, m.headers().len() as u64);
                    h = fp_mix(h, u64::from(m.truncated()));
                    let raw = t.buffer(HttpBuffer::HeaderRaw, d);
                    h = fp_mix(h, raw.map_or(u64::MAX, |b| b.len() as u64));
                    body = fp_mix(body, m.body_len());
                    body = fp_mix(body, u64::from(m.body_truncated()));
                    let ib = m.inspectable_body().map_or(u64::MAX, |b| b.len() as u64);
                    body = fp_mix(body, ib);
                }
                (h, body)
            }
            // A DNS transaction is one message: it never changes.
            TxView::Dns(_) => (0, 0),
            TxView::Tls(t) => {
                let len = |x: Option<&[u8]>| x.map_or(u64::MAX, |b| b.len() as u64);
                let h = fp_mix(len(t.sni()), len(t.cert_subject().map(str::as_bytes)));
                let h = fp_mix(h, len(t.cert_issuer().map(str::as_bytes)));
                let h = fp_mix(h, t.certs().count() as u64);
                (fp_mix(h, u64::from(t.certs_inspectable())), 0)
            }
        }
    }

    /// Calls `f` with each instance of buffer `b` the transaction has now.
    fn each(&self, b: AppBuf, dir: app::Direction, mut f: impl FnMut(&[u8])) {
        match (self, b) {
            (TxView::Http(t), AppBuf::Http(h)) => {
                if let Some(x) = t.buffer(h, dir) {
                    f(x)
                }
            }
            (TxView::Http(t), AppBuf::FileData) => {
                let h = match dir {
                    app::Direction::ToServer => HttpBuffer::RequestBody,
                    app::Direction::ToClient => HttpBuffer::ResponseBody,
                };
                if let Some(x) = t.buffer(h, dir) {
                    f(x)
                }
            }
            (TxView::Dns(t), AppBuf::DnsQuery) => t.queries().for_each(f),
            (TxView::Tls(t), AppBuf::TlsSni) => {
                if let Some(x) = t.sni() {
                    f(x)
                }
            }
            // Suricata inspects the certificate buffers from its TLS "handshake done"
            // progress on (see `TlsState::certs_inspectable`).
            (TxView::Tls(t), AppBuf::TlsSubject) if t.certs_inspectable() => {
                if let Some(x) = t.cert_subject() {
                    f(x.as_bytes())
                }
            }
            (TxView::Tls(t), AppBuf::TlsIssuer) if t.certs_inspectable() => {
                if let Some(x) = t.cert_issuer() {
                    f(x.as_bytes())
                }
            }
            (TxView::Tls(t), AppBuf::TlsCerts) if t.certs_inspectable() => t.certs().for_each(f),
            _ => {}
        }
    }
}

#[cfg(test)]
mod dsize_tests {
    use super::dsize_ok;
    use rules::IntCmp;

    #[test]
    fn negated_dsize_needs_a_payload() {
        assert!(!dsize_ok(&IntCmp::Ne(9), 0));
        assert!(dsize_ok(&IntCmp::Ne(9), 10));
        assert!(!dsize_ok(&IntCmp::Ne(9), 9));
        assert!(dsize_ok(&IntCmp::Lt(10), 0));
        assert!(dsize_ok(&IntCmp::Le(10), 0));
        assert!(dsize_ok(&IntCmp::Eq(0), 0));
    }
}
