//! Transaction inspection: a flow's transactions, through the app layer's
//! [`app::Transaction`] contract, against the rules of the packet's direction.

use super::Detector;
use crate::input::{FlowInfo, Input, MatchedOn};
use crate::sig::{Sig, Slot};
use crate::state::{FlowDetect, Scratch};
use crate::transform;
use app::{mix_fingerprint as fp_mix, Transaction};

use super::packet::payload_targets;

impl Detector {
    pub(super) fn inspect_txs(
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
        let floor = fd.tx_floor[di as usize];
        // Where the last transaction's remembered inspection was found: the next one's
        // usually follows it.
        let mut hint = 0;
        let mut run = |tx: &dyn Transaction| {
            let id = tx.id();
            let proto = tx.proto();
            if id < fd.tx_floor[di as usize] {
                return;
            }
            let (fp_hdr, fp_body) = tx.fingerprint();
            // Flowbits set by an earlier transaction of this call count too.
            let fp = fp_mix(fp_mix(fd.bits_gen, flow_flags), fp_hdr);
            // Looked up once: nothing below changes the list until `remember_tx_at`.
            let seen_at = fd.tx_seen_index_near(di, id, hint);
            hint = seen_at.map_or(hint, |i| i + 1);
            let seen_i = seen_at.filter(|&i| fd.tx_seen[i].fp == fp);
            // Unchanged, bodies included, and no candidate left that looks at the packet:
            // the pass would evaluate nothing and remember the same inspection (a flow
            // whose first transaction never completes keeps every later one).
            if let Some(i) = seen_i {
                let t = &fd.tx_seen[i];
                if t.fp_body == fp_body && t.pkt_cands.is_empty() {
                    if tx.is_final() {
                        fd.finish_tx(di, id);
                    }
                    return;
                }
            }
            scratch.next_gen();
            // Suricata inspects a transaction again only where it progressed: with the
            // flowbits and everything but the bodies unchanged, only the rules that look
            // at the packet, the rules that inspect a body (when a body changed) and the
            // body fast patterns can change a verdict.
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
            // A body grown by appending is scanned from where its last scan ended
            // (`body_scan.rs`): the patterns before were reported then and their rules
            // are among the body candidates added again above.
            let old_marks = seen_i.map(|i| fd.tx_seen[i].body_marks);
            let mut marks = old_marks.unwrap_or_default();
            if let Some(body_only) = body_only {
                // DCERPC rules also inspect the calls SMB carries.
                let dce_in_smb = proto == app::AppProto::Smb;
                if !body_only {
                    if let Some(v) = tg.always.get(proto) {
                        scratch.add_sorted(v);
                    }
                    if dce_in_smb {
                        if let Some(v) = tg.always.get(app::AppProto::Dcerpc) {
                            scratch.add_sorted(v);
                        }
                    }
                }
                for &(i, is_body) in tg.bufs_by_proto.get(proto).unwrap_or_default() {
                    if body_only && !is_body {
                        continue;
                    }
                    let (b, pf) = &tg.bufs[usize::from(i)];
                    let mut seen = std::mem::take(&mut scratch.seen);
                    let mut instance = 0u8;
                    tx.buffers(*b, dir, &mut |buf| {
                        let mut from = 0;
                        if is_body {
                            if body_only {
                                from = marks.resume(*b, instance, buf, pf.overlap());
                            }
                            marks.record(*b, instance, buf);
                            instance = instance.saturating_add(1);
                        }
                        pf.scan(&buf[from..], &mut seen, |s| scratch.add_cand(s))
                    });
                    scratch.seen = seen;
                }
            }
            scratch.order_cands();
            let cands = std::mem::take(&mut scratch.cands);
            // The lists of this transaction's previous pass are reused (emptied), and
            // its body list is kept when only packet-dependent rules run again.
            let keep_body = matches!((seen_i, body_only), (Some(_), None));
            let (old_pkt, old_body) = match seen_at {
                Some(i) => {
                    let t = &mut fd.tx_seen[i];
                    (
                        std::mem::take(&mut t.pkt_cands),
                        std::mem::take(&mut t.body_cands),
                    )
                }
                None => (Vec::new(), Vec::new()),
            };
            // Built in the worker's scratch lists, then copied into lists of the
            // worker's pool (no allocation per transaction once warm).
            let mut pkt_cands = std::mem::take(&mut scratch.pkt_tmp);
            let mut body_cands = std::mem::take(&mut scratch.body_tmp);
            pkt_cands.clear();
            body_cands.clear();
            for &si in &cands {
                let s = &self.sigs[si as usize];
                // A file rule alerts once per direction (each file travels one way), an
                // `app-layer-event` rule too (the transaction's events hold both ways).
                let done = if s.files.is_empty()
                    && !crate::events::per_direction(s)
                    && !crate::lua::per_direction(s)
                {
                    si
                } else {
                    si | u32::from(di) << 31
                };
                if fd.tx_done(id, done) {
                    continue;
                }
                if self.eval_tx(s, scratch, fd, input, tx, dir, payload) {
                    fd.mark_tx_done(id, done);
                    self.matched(si, s, MatchedOn::Tx(id), scratch, fd, input.packet);
                    continue;
                }
                // An `app-layer-event` rule is done with a direction whose side was
                // complete without the event (Suricata's "can't match"); until then
                // it is evaluated on every pass, as an event changes no fingerprint.
                let event_rule = crate::events::per_direction(s);
                if event_rule && crate::events::cant_match(s, tx, dir, input) {
                    fd.mark_tx_done(id, done);
                    continue;
                }
                if s.looks_at_packet() || event_rule {
                    pkt_cands.push(si);
                }
                if !keep_body
                    && (s.app.iter().any(|a| a.buf.is_body())
                        || matches!(&s.fp, Some((Slot::App(b), ..)) if b.is_body())
                        || !s.files.is_empty()
                        || crate::lua::inspects_body(s))
                {
                    body_cands.push(si);
                }
            }
            scratch.cands = cands;
            let pkt_list = crate::cand_pool::refill(old_pkt, &pkt_cands);
            let body_list = if keep_body {
                old_body
            } else {
                crate::cand_pool::refill(old_body, &body_cands)
            };
            scratch.pkt_tmp = pkt_cands;
            scratch.body_tmp = body_cands;
            // Flowbits set by this pass change the fingerprint: the next packet
            // inspects the transaction in full again.
            fd.remember_tx_at(
                seen_at,
                crate::state::TxSeen {
                    dir: di,
                    id,
                    fp,
                    fp_body,
                    pkt_cands: pkt_list,
                    body_cands: body_list,
                    body_marks: marks,
                },
            );
            if tx.is_final() {
                fd.finish_tx(di, id);
            }
        };
        // SIP, SMB, DCERPC and SMTP expose no transactions (rules with their keywords
        // are unsupported); their rules inspect packets and the raw stream.
        // Those below the floor are done with (`run` checks again: the floor moves).
        af.each_tx_from(floor, &mut |tx| run(tx));
    }

    /// The id below which detection is done with the transactions of a flow whose
    /// state is `fd`: each direction that has transaction rules inspected them in
    /// their final state (Suricata's per-direction inspect progress); `u64::MAX` when
    /// no more detection runs on the flow (`pass`, dropped) or no rule inspects
    /// transactions.
    pub fn tx_done_before(&self, fd: &FlowDetect) -> u64 {
        if fd.passed || fd.dropped {
            return u64::MAX;
        }
        (0..2)
            .filter(|&d| {
                let tg = &self.tx_groups[d];
                !(tg.bufs.is_empty() && tg.always.is_empty())
            })
            .map(|d| fd.tx_floor[d])
            .min()
            .unwrap_or(u64::MAX)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_tx(
        &self,
        s: &Sig,
        scratch: &mut Scratch,
        fd: &FlowDetect,
        input: &Input<'_>,
        tx: &dyn Transaction,
        dir: app::Direction,
        payload: &[u8],
    ) -> bool {
        // DCERPC rules also inspect the DCERPC calls SMB carries.
        if !s.app_proto.is_some_and(|p| p.covers(tx.proto()))
            || !self.pre_checks(s, fd, input, &mut scratch.ends)
        {
            return false;
        }
        // Suricata's matcher never finds this rule's fast pattern in the transaction.
        if s.mpm_buf.is_some_and(|b| tx.prefilter_blind(b)) {
            return false;
        }
        scratch.stats.rules_evaluated += 1;
        scratch.vars.captured.clear();
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
        let dce_le = tx.dce_little_endian().unwrap_or(false);
        for ap in &s.app {
            let mut any = false;
            let (xbuf, xtmp, vars) = (&mut scratch.xbuf, &mut scratch.xtmp, &mut scratch.vars);
            tx.buffers(ap.buf, dir, &mut |b| {
                if any {
                    return;
                }
                vars.dce_le = dce_le;
                any = if ap.transforms.is_empty() {
                    ap.prog.matches(b, vars)
                } else {
                    transform::apply(&ap.transforms, b, xbuf, xtmp);
                    ap.prog.matches(xbuf, vars)
                };
                vars.dce_le = false;
            });
            if !any {
                return false;
            }
        }
        s.tx_opts
            .iter()
            .all(|o| crate::files::is_file(o) || crate::tls::check(tx, o, dir, input))
            && s.files.matches(tx, dir, s.sid, self.digest)
            && s.lua_tx
                .iter()
                .all(|l| l.matches_tx(tx, dir, input, fd, s.app_both))
    }
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
