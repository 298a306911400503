//! Which other rules might also fire on an attack flow, judged from the rules alone:
//! a rule can only fire if its header admits the flow and every content it requires
//! appears somewhere in the flow's bytes (a necessary condition, so the check is
//! conservative). Attacks on which another rule might fire are dropped, so the alerts
//! of the remaining attacks are known exactly.

use crate::synth::{Attack, Payload};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::literal::Extractor;
use rules::{AppProto, LoadedRule, Match, PcreFlags, Protocol};
use std::net::IpAddr;

struct Req {
    sid: u32,
    /// Exact checks per buffer, when every buffer of the rule can be checked exactly.
    exact: Option<Vec<(rules::Buffer, Vec<crate::solve::Item>)>>,
    rule: usize,
    contents: Vec<(Vec<u8>, bool)>,
    /// Alternatives of which one must appear (from a pcre's literal prefixes).
    any_of: Vec<Vec<u8>>,
}

/// Index over a rule set for the co-firing check.
pub struct Predictor<'a> {
    rules: &'a [LoadedRule],
    reqs: Vec<Req>,
    ac: AhoCorasick,
    anchor_of: Vec<usize>,
    contentless: Vec<usize>,
}

fn applies_to_tcp(p: Protocol) -> bool {
    matches!(
        p,
        Protocol::Tcp
            | Protocol::TcpPkt
            | Protocol::TcpStream
            | Protocol::Ip
            | Protocol::Ipv4
            | Protocol::App(AppProto::Http | AppProto::Http1)
    )
}

fn pcre_literals(pattern: &str, flags: PcreFlags) -> Vec<Vec<u8>> {
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(flags.contains(PcreFlags::CASELESS))
        .ignore_whitespace(flags.contains(PcreFlags::EXTENDED))
        .build()
        .parse(pattern)
    else {
        return Vec::new();
    };
    let seq = Extractor::new().extract(&hir);
    match seq.literals() {
        Some(lits) if !lits.is_empty() && lits.len() <= 64 && lits.iter().all(|l| l.len() >= 3) => {
            lits.iter().map(|l| l.as_bytes().to_vec()).collect()
        }
        _ => Vec::new(),
    }
}

impl<'a> Predictor<'a> {
    /// Indexes `rules` (all of them, including ones the generator cannot synthesize).
    pub fn new(rules: &'a [LoadedRule]) -> Predictor<'a> {
        let mut reqs = Vec::new();
        let mut pats: Vec<Vec<u8>> = Vec::new();
        let mut anchor_of = Vec::new();
        let mut contentless = Vec::new();
        for (i, lr) in rules.iter().enumerate() {
            let r = &lr.rule;
            let silent = r.options.iter().any(|o| {
                matches!(o, rules::Opt::NoAlert)
                    || matches!(o, rules::Opt::Flowbits(f) if f.cmd == rules::BitsCmd::NoAlert)
            });
            if !r.enabled
                || silent
                || r.action != rules::Action::Alert
                || !applies_to_tcp(r.header.protocol)
            {
                continue;
            }
            if !options_admit(&r.options) {
                continue;
            }
            // Per buffer, the longest prefix of matches that converts: a prefix of a
            // conjunction is weaker, so the check stays conservative.
            let exact: Option<Vec<_>> = Some(
                r.buffers
                    .iter()
                    .filter(|bm| bm.transforms.is_empty())
                    .map(|bm| {
                        let n = (0..=bm.matches.len())
                            .rev()
                            .find(|&n| crate::solve::items(&bm.matches[..n], b"").is_ok())
                            .unwrap_or(0);
                        let items = crate::solve::items(&bm.matches[..n], b"").unwrap_or_default();
                        (bm.buffer, items)
                    })
                    .collect(),
            );
            let mut contents = Vec::new();
            let mut any_of = Vec::new();
            for bm in &r.buffers {
                let transformed = !bm.transforms.is_empty();
                for m in &bm.matches {
                    match m {
                        Match::Content(c) if !c.negated && !c.pattern.is_empty() => {
                            let p = if transformed {
                                c.pattern.strip_prefix(b".").unwrap_or(&c.pattern).to_vec()
                            } else {
                                c.pattern.clone()
                            };
                            if !p.is_empty() {
                                contents.push((p, c.nocase || transformed));
                            }
                        }
                        Match::Pcre(p) if !p.negated && any_of.is_empty() => {
                            any_of = pcre_literals(&p.pattern, p.flags)
                        }
                        _ => {}
                    }
                }
            }
            let idx = reqs.len();
            let anchor = contents
                .iter()
                .map(|(p, _)| p.clone())
                .max_by_key(Vec::len)
                .or_else(|| any_of.iter().min_by_key(|l| l.len()).cloned());
            match anchor {
                Some(a) if contents.is_empty() => {
                    // A pcre's alternatives: any one of them may be the one present.
                    let _ = a;
                    for l in &any_of {
                        pats.push(l.clone());
                        anchor_of.push(idx);
                    }
                }
                Some(a) => {
                    pats.push(a);
                    anchor_of.push(idx);
                }
                None => contentless.push(idx),
            }
            reqs.push(Req {
                sid: r.meta.sid,
                exact: exact.filter(|e| !e.is_empty()),
                rule: i,
                contents,
                any_of,
            });
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&pats)
            .expect("co-firing automaton");
        Predictor {
            rules,
            reqs,
            ac,
            anchor_of,
            contentless,
        }
    }

    fn header_admits(&self, lr: &LoadedRule, a: &Attack, client: IpAddr, server: IpAddr) -> bool {
        // Client ports are ephemeral (49152..65535): any of them may be the one used.
        let eph = |ports: &rules::PortSet| {
            (49152..=65535u16)
                .step_by(61)
                .chain([65535])
                .any(|p| ports.contains(p))
        };
        let fwd = lr.src_addrs.contains(client)
            && lr.dst_addrs.contains(server)
            && lr.dst_ports.contains(a.server_port)
            && eph(&lr.src_ports);
        let rev = lr.src_addrs.contains(server)
            && lr.dst_addrs.contains(client)
            && lr.src_ports.contains(a.server_port)
            && eph(&lr.dst_ports);
        fwd || rev
    }

    /// The sids (other than the attack's own) that might fire on the attack's flow.
    pub fn others(&self, a: &Attack) -> Vec<u32> {
        let (c, s) = a.probe_addrs();
        let bytes: Vec<u8> = match &a.payload {
            Payload::Http(req, resp) => [req.render(), resp.render()].concat(),
            Payload::Tcp { client, server } => [client.as_slice(), server.as_slice()].concat(),
        };
        let mut cands: Vec<usize> = self
            .ac
            .find_overlapping_iter(&bytes)
            .map(|m| self.anchor_of[m.pattern().as_usize()])
            .collect();
        cands.extend(self.contentless.iter().copied());
        cands.sort_unstable();
        cands.dedup();
        let lower = bytes.to_ascii_lowercase();
        let mut out = Vec::new();
        for i in cands {
            let q = &self.reqs[i];
            if q.sid == a.sid {
                continue;
            }
            let present = |p: &[u8], nocase: bool| {
                if nocase {
                    let lp = p.to_ascii_lowercase();
                    lower.windows(lp.len()).any(|w| w == lp.as_slice())
                } else {
                    bytes.windows(p.len()).any(|w| w == p)
                }
            };
            if !q.contents.iter().all(|(p, nc)| present(p, *nc)) {
                continue;
            }
            if q.contents.is_empty()
                && !q.any_of.is_empty()
                && !q.any_of.iter().any(|l| present(l, true))
            {
                continue;
            }
            if !dsize_admits(&self.rules[q.rule].rule.options, a) {
                continue;
            }
            if let Some(ex) = &q.exact {
                if !ex
                    .iter()
                    .all(|(b, items)| exact_match(*b, items, &a.payload))
                {
                    continue;
                }
            }
            if self.header_admits(&self.rules[q.rule], a, c, s) {
                out.push(q.sid);
            }
        }
        out
    }
}

/// Whether some version of buffer `b` of the attack's traffic satisfies `items`; buffers
/// the generator does not model count as satisfied (conservative).
fn exact_match(b: rules::Buffer, items: &[crate::solve::Item], p: &Payload) -> bool {
    use crate::solve::check;
    use crate::synth::{buffer_of, Side};
    match p {
        Payload::Tcp { client, server } => {
            b != rules::Buffer::Payload || check(items, client) || check(items, server)
        }
        Payload::Http(req, resp) => {
            if b == rules::Buffer::Payload {
                return check(items, &req.render()) || check(items, &resp.render());
            }
            let mut any_known = false;
            for side in [Side::ToServer, Side::ToClient] {
                if let Some(buf) = buffer_of(b, side, req, resp) {
                    any_known = true;
                    if check(items, &buf) {
                        return true;
                    }
                }
            }
            !any_known && !known_buffer(b)
        }
    }
}

/// Buffers [`crate::synth::buffer_of`] models (absent means empty, so no match).
fn known_buffer(b: rules::Buffer) -> bool {
    use rules::Buffer as B;
    matches!(
        b,
        B::HttpUri
            | B::HttpUriRaw
            | B::HttpMethod
            | B::HttpRequestBody
            | B::FileData
            | B::HttpResponseBody
            | B::HttpStatCode
            | B::HttpStatMsg
            | B::HttpHeader
            | B::HttpUserAgent
            | B::HttpHost
            | B::HttpAccept
            | B::HttpAcceptEnc
            | B::HttpAcceptLang
            | B::HttpReferer
            | B::HttpContentType
            | B::HttpCookie
            | B::HttpServer
            | B::HttpLocation
    )
}

/// Flag bytes of the packets the generator sends: SYN, SYN/ACK, ACK, PSH/ACK, FIN/ACK.
const SENT_FLAGS: [u8; 5] = [0x02, 0x12, 0x10, 0x18, 0x11];

/// False when a non-payload option rules out every flow the generator writes (each
/// flow has its own addresses, so per-source or per-destination thresholds above one
/// event never trigger; only TCP with the flags in [`SENT_FLAGS`] is sent).
fn options_admit(opts: &[rules::Opt]) -> bool {
    use rules::{Opt, Track};
    opts.iter().all(|o| match o {
        Opt::Threshold(t) | Opt::DetectionFilter(t) => {
            let per_flow = !matches!(t.track, Track::ByRule);
            let counted = !matches!(t.kind, Some(rules::ThresholdType::Limit));
            !(per_flow && counted && t.count > 1)
        }
        Opt::IpProto {
            op: rules::IpProtoOp::Eq,
            proto,
        } => *proto == wire::ip_proto::TCP,
        Opt::Itype(_) | Opt::Icode(_) | Opt::IcmpId(_) | Opt::IcmpSeq(_) => false,
        Opt::Flags(f) => SENT_FLAGS.iter().any(|&sent| f.matches(sent)),
        _ => true,
    })
}

/// False when a `dsize` rules out every packet of the attack's flow (control packets
/// have no payload; data packets carry at most 1460 bytes).
fn dsize_admits(opts: &[rules::Opt], a: &Attack) -> bool {
    let Some(cmp) = opts.iter().find_map(|o| match o {
        rules::Opt::Dsize(c) => Some(*c),
        _ => None,
    }) else {
        return true;
    };
    if cmp.matches(0) {
        return true;
    }
    match &a.payload {
        Payload::Tcp { client, server } => {
            cmp.matches(client.len() as u64) || cmp.matches(server.len() as u64)
        }
        Payload::Http(req, resp) => [req.render().len(), resp.render().len()]
            .iter()
            .any(|&n| (1..=n.min(1460)).any(|k| cmp.matches(k as u64))),
    }
}
