//! Engine analysis (`--engine-analysis`): for each rule of a rule set, whether it loaded
//! and, when it did, how the detector runs it: what kind of rule it is, the fast pattern
//! chosen and why, the buffers it inspects, whether a prefilter selects it, and warnings
//! about rules that will be slow or match differently from what their author may expect.
//!
//! Everything is read from the compiled [`Detector`] and the rule set it was built from,
//! and the fast pattern's reason comes from the same function that picked it
//! ([`crate::fastpat`]), so the report cannot disagree with what runs.

use std::collections::HashMap;

use rules::{Buffer, LoadedRule, Match, Severity};

use crate::fastpat::{self, FpReason, NoFastPattern};
use crate::options::{DiagKind, Diagnostic};
use crate::sig::{PayloadMode, Sig};
use crate::Detector;

/// Whether (and why not) a rule loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Compiled into the detector.
    Loaded,
    /// Commented out in its file (read on request): not loaded.
    Disabled,
    /// The rule failed to parse or validate: the message of the error.
    Invalid(String),
    /// Parsed, but a keyword cannot be evaluated by Osprey yet: skipped.
    Unsupported {
        /// The keyword concerned.
        keyword: String,
        /// What is missing.
        message: String,
    },
    /// Parsed, but the detector refused it (e.g. a bad `threshold.config` entry).
    Failed {
        /// The keyword concerned.
        keyword: String,
        /// Why.
        message: String,
    },
}

impl Status {
    /// One word: `loaded`, `disabled`, `invalid`, `unsupported`, `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Loaded => "loaded",
            Status::Disabled => "disabled",
            Status::Invalid(_) => "invalid",
            Status::Unsupported { .. } => "unsupported",
            Status::Failed { .. } => "failed",
        }
    }
}

/// How a loaded rule is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// IP-only: addresses (and flowbits set) only, checked on the first packet of each
    /// flow direction.
    IpOnly,
    /// Per packet: header and packet options only, no buffer.
    Packet,
    /// Per packet, inspecting the packet payload only.
    PacketPayload,
    /// Per packet, inspecting the reassembled stream only.
    Stream,
    /// Per packet, inspecting the reassembled stream, else the packet payload.
    StreamOrPacket,
    /// Per application-layer transaction (it inspects protocol buffers).
    Transaction,
}

impl RuleKind {
    /// A short name: `ip-only`, `packet`, `packet-payload`, `stream`,
    /// `stream-or-packet`, `transaction`.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::IpOnly => "ip-only",
            RuleKind::Packet => "packet",
            RuleKind::PacketPayload => "packet-payload",
            RuleKind::Stream => "stream",
            RuleKind::StreamOrPacket => "stream-or-packet",
            RuleKind::Transaction => "transaction",
        }
    }
}

/// The fast pattern of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FastPatternReport {
    /// The buffer it is in (`pkt_data` for the payload).
    pub buffer: &'static str,
    /// The bytes the prefilter matcher looks for.
    pub pattern: Vec<u8>,
    /// Matched without regard to case.
    pub nocase: bool,
    /// Why it was chosen.
    pub reason: FpReason,
    /// The `offset,length` of an explicit `fast_pattern:offset,length`.
    pub chop: Option<(u16, u16)>,
}

impl FastPatternReport {
    /// The reason in words.
    pub fn reason_text(&self) -> String {
        match (self.reason, self.chop) {
            (FpReason::Explicit, Some((o, l))) => {
                format!("explicit fast_pattern:{o},{l} (bytes {o}..{} of the content)", o + l)
            }
            (FpReason::Explicit, None) => "explicit fast_pattern".into(),
            (FpReason::Strongest { usable: 1, .. }, _) => {
                "the only content usable as fast pattern".into()
            }
            (FpReason::Strongest { strength, usable }, _) => format!(
                "highest pattern strength ({strength}) of {usable} usable contents (ties go to the longer, then the first)"
            ),
        }
    }
}

/// One buffer a rule inspects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferReport {
    /// Its name (`pkt_data`, `http.uri` ...).
    pub name: &'static str,
    /// Transforms applied before matching, in order.
    pub transforms: Vec<&'static str>,
    /// Number of matches (`content`, `pcre`, `byte_test` ...) in it.
    pub matches: usize,
    /// Number of contents among them.
    pub contents: usize,
}

/// The analysis of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleReport {
    /// Signature id (0 when the rule did not parse far enough).
    pub sid: u32,
    /// Generator id.
    pub gid: u32,
    /// Revision.
    pub rev: u32,
    /// File the rule came from.
    pub file: Option<String>,
    /// Line of the rule in it.
    pub line: u32,
    /// Loaded or why not.
    pub status: Status,
    /// Action (`alert`, `drop` ...), when the rule parsed.
    pub action: Option<String>,
    /// How it is evaluated, when it loaded.
    pub kind: Option<RuleKind>,
    /// The fast pattern, when it has one.
    pub fast_pattern: Option<FastPatternReport>,
    /// Selected by a multi-pattern prefilter (else evaluated on every packet or
    /// transaction its header and protocol admit).
    pub prefilter: bool,
    /// Buffers inspected, in rule order.
    pub buffers: Vec<BufferReport>,
    /// Warnings (loader warnings about the rule included).
    pub warnings: Vec<String>,
}

/// Where a rule is: file and line.
type At = (Option<String>, u32);

/// Analyses every rule: the rules `set` holds (in load order) with the detector built
/// from them and its diagnostics `detect_diags`, plus the rules that did not parse
/// (errors among `load_diags`, the rule set's diagnostics, which also give each rule
/// its loader warnings).
pub fn analyze(
    set: &[LoadedRule],
    load_diags: &[rules::Diagnostic],
    det: &Detector,
    detect_diags: &[Diagnostic],
) -> Vec<RuleReport> {
    let sig_of: HashMap<u32, &Sig> = det.sigs().iter().map(|s| (s.rule, s)).collect();
    let fallback = det.prefilter_fallbacks();
    let refused: HashMap<usize, &Diagnostic> = detect_diags.iter().map(|d| (d.rule, d)).collect();
    let mut load_warnings: HashMap<At, Vec<String>> = HashMap::new();
    let mut out = Vec::with_capacity(set.len());
    let mut invalid: Vec<(At, u32, Vec<String>)> = Vec::new();
    for d in load_diags {
        let file = d.file.as_ref().map(|f| f.display().to_string());
        if d.severity == Severity::Warning {
            load_warnings
                .entry((file, d.line))
                .or_default()
                .push(d.message.clone());
        } else if d.line > 0 {
            // One report per rule, however many errors it has.
            match invalid.last_mut() {
                Some((at, _, msgs)) if *at == (file.clone(), d.line) => {
                    msgs.push(d.message.clone())
                }
                _ => invalid.push(((file, d.line), d.sid.unwrap_or(0), vec![d.message.clone()])),
            }
        }
    }
    for ((file, line), sid, messages) in invalid {
        out.push(RuleReport {
            sid,
            gid: 1,
            rev: 0,
            file,
            line,
            status: Status::Invalid(messages.join("; ")),
            action: None,
            kind: None,
            fast_pattern: None,
            prefilter: false,
            buffers: Vec::new(),
            warnings: Vec::new(),
        });
    }
    for (i, lr) in set.iter().enumerate() {
        let r = &lr.rule;
        let file = lr.file.as_ref().map(|f| f.display().to_string());
        let mut warnings = load_warnings
            .remove(&(file.clone(), lr.line))
            .unwrap_or_default();
        let sig = sig_of.get(&(i as u32)).copied();
        let status = match (sig, refused.get(&i)) {
            (Some(_), _) => Status::Loaded,
            (None, Some(d)) if d.kind == DiagKind::Unsupported => Status::Unsupported {
                keyword: d.keyword.clone(),
                message: d.message.clone(),
            },
            (None, Some(d)) => Status::Failed {
                keyword: d.keyword.clone(),
                message: d.message.clone(),
            },
            (None, None) => Status::Disabled,
        };
        let buffers = r
            .buffers
            .iter()
            .map(|bm| BufferReport {
                name: bm.buffer.name(),
                transforms: bm.transforms.iter().map(|t| t.name()).collect(),
                matches: bm.matches.len(),
                contents: bm
                    .matches
                    .iter()
                    .filter(|m| matches!(m, Match::Content(_)))
                    .count(),
            })
            .collect();
        let (kind, fast_pattern, prefilter) = match sig {
            Some(s) => {
                let (fp, fp_warnings) = fast_pattern_of(lr, s);
                warnings.extend(fp_warnings);
                let pre = s.fp.is_some() && !fallback.contains(&s.rule);
                if s.fp.is_some() && !pre {
                    warnings.push("its prefilter could not be built: evaluated without one".into());
                }
                (Some(kind_of(s)), fp, pre)
            }
            None => (None, None, false),
        };
        out.push(RuleReport {
            sid: r.meta.sid,
            gid: r.meta.gid,
            rev: r.meta.rev,
            file,
            line: lr.line,
            status,
            action: Some(format!("{:?}", r.action).to_ascii_lowercase()),
            kind,
            fast_pattern,
            prefilter,
            buffers,
            warnings,
        });
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

fn kind_of(s: &Sig) -> RuleKind {
    if s.iponly {
        RuleKind::IpOnly
    } else if s.is_tx() {
        RuleKind::Transaction
    } else if s.payload.is_none() {
        RuleKind::Packet
    } else {
        match s.payload_mode {
            PayloadMode::Packet => RuleKind::PacketPayload,
            PayloadMode::Stream => RuleKind::Stream,
            PayloadMode::Both | PayloadMode::BothAndPacket => RuleKind::StreamOrPacket,
        }
    }
}

/// The fast pattern the detector took for `s`, explained, and the warnings about it.
fn fast_pattern_of(lr: &LoadedRule, s: &Sig) -> (Option<FastPatternReport>, Vec<String>) {
    let r = &lr.rule;
    let mut warnings = Vec::new();
    let has = |f: fn(&Match) -> bool| r.buffers.iter().flat_map(|b| &b.matches).any(f);
    let has_content = has(|m| matches!(m, Match::Content(_)));
    if has(|m| matches!(m, Match::Pcre(_))) && !has_content {
        warnings.push("pcre without content: the regular expression runs on every packet or transaction the header admits".into());
    }
    let explicit_ignored = r.contents().any(|(b, c)| {
        c.fast_pattern.is_some()
            && (c.negated
                || r.buffers
                    .iter()
                    .any(|bm| bm.buffer == b && !bm.transforms.is_empty()))
    });
    if explicit_ignored {
        warnings.push(
            "fast_pattern on a negated content or in a transformed buffer cannot be used".into(),
        );
    }
    let report = match fastpat::choose(r, s.is_tx()) {
        Ok(c) => {
            if c.pattern.len() < 3 {
                warnings.push(format!(
                    "fast pattern of {} byte(s): the prefilter lets many packets through",
                    c.pattern.len()
                ));
            }
            let chop = match c.content.fast_pattern {
                Some(rules::FastPattern::Chop { offset, length }) => Some((offset, length)),
                _ => None,
            };
            Some(FastPatternReport {
                buffer: c.buffer.name(),
                pattern: c.pattern,
                nocase: c.content.nocase,
                reason: c.reason,
                chop,
            })
        }
        Err(NoFastPattern::NoContent) if !s.iponly => {
            warnings.push(
                "no content: no prefilter, evaluated on every packet or transaction the header admits"
                    .into(),
            );
            None
        }
        Err(NoFastPattern::NoContent) => None,
        Err(NoFastPattern::ExplicitUnusable) => {
            warnings.push("the content marked fast_pattern is not usable, and no other is taken: no prefilter".into());
            None
        }
        Err(NoFastPattern::NoUsable) => {
            let payload_in_tx = s.is_tx() && r.contents().any(|(b, _)| b == Buffer::Payload);
            warnings.push(if payload_in_tx {
                "only payload or unusable contents in a transaction rule: no prefilter".into()
            } else {
                "only negated contents or contents in transformed buffers: no prefilter".into()
            });
            None
        }
    };
    // The detector's choice and this report come from the same function.
    debug_assert_eq!(
        report.as_ref().map(|f| (&f.pattern, f.nocase)),
        s.fp.as_ref().map(|(_, p, nc)| (p, *nc))
    );
    (report, warnings)
}

/// Renders bytes as a rule writes them: printable ASCII as is, the rest (and `|`,
/// `"`, `;`, `\`) as `|hex|` runs.
pub fn pattern_text(p: &[u8]) -> String {
    let mut out = String::with_capacity(p.len());
    let mut in_hex = false;
    for &b in p {
        let plain = (b.is_ascii_graphic() || b == b' ') && !matches!(b, b'|' | b'"' | b';' | b'\\');
        if plain {
            if in_hex {
                out.push('|');
                in_hex = false;
            }
            out.push(b as char);
        } else {
            out.push_str(if in_hex { " " } else { "|" });
            in_hex = true;
            out.push_str(&format!("{b:02X}"));
        }
    }
    if in_hex {
        out.push('|');
    }
    out
}

/// Counts of a report: rules by status, prefiltered rules, rules with warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Rules analysed.
    pub total: usize,
    /// Loaded.
    pub loaded: usize,
    /// Not loaded: disabled, invalid, unsupported or failed.
    pub skipped: usize,
    /// Loaded and selected by a prefilter.
    pub prefiltered: usize,
    /// With at least one warning.
    pub warned: usize,
    /// Loaded rules by fast pattern buffer.
    pub by_buffer: Vec<(&'static str, usize)>,
}

/// The counts of `reports`.
pub fn summarize(reports: &[RuleReport]) -> Summary {
    let mut s = Summary {
        total: reports.len(),
        ..Summary::default()
    };
    let mut by: HashMap<&'static str, usize> = HashMap::new();
    for r in reports {
        if r.status == Status::Loaded {
            s.loaded += 1;
        } else {
            s.skipped += 1;
        }
        s.prefiltered += usize::from(r.prefilter);
        s.warned += usize::from(!r.warnings.is_empty());
        if let Some(fp) = &r.fast_pattern {
            *by.entry(fp.buffer).or_default() += 1;
        }
    }
    s.by_buffer = by.into_iter().collect();
    s.by_buffer.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DetectOptions;
    use rules::{LoadOptions, RuleSet, Vars};

    fn run(src: &str) -> Vec<RuleReport> {
        let vars = Vars::suricata_default();
        let (set, diags) = RuleSet::load_str(
            src,
            Some(std::path::Path::new("t.rules")),
            &vars,
            &LoadOptions::default(),
        );
        let (det, dd) = Detector::build(&set.rules, &DetectOptions::default(), &vars);
        analyze(&set.rules, &diags, &det, &dd)
    }

    #[test]
    fn explicit_longest_http_and_skipped() {
        let reports = run(concat!(
            "alert tcp any any -> any any (content:\"abcdef\"; content:\"xy\"; fast_pattern; sid:1;)\n",
            "alert tcp any any -> any any (content:\"ab\"; content:\"abcd\"; sid:2;)\n",
            "alert http any any -> any any (flow:to_server; http.uri; content:\"/index\"; sid:3;)\n",
            "alert tcp any any -> any any (nosuchkeyword; sid:4;)\n",
            "alert tcp any any -> any any (pcre:\"/a+b/\"; sid:5;)\n",
            "alert ip 1.2.3.4 any -> any any (sid:6;)\n",
        ));
        assert_eq!(reports.len(), 6, "{reports:#?}");
        let by_sid = |sid: u32| reports.iter().find(|r| r.sid == sid).unwrap();

        let r1 = by_sid(1);
        assert_eq!(r1.status, Status::Loaded);
        assert_eq!(r1.line, 1);
        let fp = r1.fast_pattern.as_ref().unwrap();
        assert_eq!(
            (fp.pattern.as_slice(), fp.reason),
            (&b"xy"[..], FpReason::Explicit)
        );
        assert!(r1.prefilter);
        assert!(r1.warnings.iter().any(|w| w.contains("2 byte")));

        let fp = by_sid(2).fast_pattern.clone().unwrap();
        assert_eq!(fp.pattern, b"abcd");
        assert_eq!(
            fp.reason,
            FpReason::Strongest {
                strength: 12,
                usable: 2
            }
        );
        assert!(fp.reason_text().contains("of 2 usable"));

        let r3 = by_sid(3);
        assert_eq!(r3.kind, Some(RuleKind::Transaction));
        assert_eq!(r3.fast_pattern.as_ref().unwrap().buffer, "http.uri");
        assert_eq!(r3.buffers[0].name, "http.uri");

        let r4 = reports.iter().find(|r| r.line == 4).unwrap();
        assert!(matches!(r4.status, Status::Invalid(_)), "{r4:?}");

        let r5 = by_sid(5);
        assert!(!r5.prefilter);
        assert!(r5
            .warnings
            .iter()
            .any(|w| w.starts_with("pcre without content")));

        let r6 = by_sid(6);
        assert_eq!(r6.kind, Some(RuleKind::IpOnly));
        assert!(r6.warnings.is_empty());

        let s = summarize(&reports);
        assert_eq!((s.total, s.loaded, s.skipped, s.prefiltered), (6, 5, 1, 3));
    }

    #[test]
    fn chopped_and_unusable() {
        let reports = run(concat!(
            "alert tcp any any -> any any (content:\"abcdef\"; fast_pattern:1,3; sid:1;)\n",
            "alert tcp any any -> any any (content:!\"abc\"; fast_pattern; content:\"xyz\"; sid:2;)\n",
        ));
        let fp = reports[0].fast_pattern.as_ref().unwrap();
        assert_eq!(
            (fp.pattern.as_slice(), fp.chop),
            (&b"bcd"[..], Some((1, 3)))
        );
        assert!(fp.reason_text().starts_with("explicit fast_pattern:1,3"));
        assert!(reports[1].fast_pattern.is_none());
        assert!(!reports[1].prefilter);
        assert!(reports[1].warnings.iter().any(|w| w.contains("not usable")));
    }

    #[test]
    fn pattern_text_escapes() {
        assert_eq!(pattern_text(b"GET /"), "GET /");
        assert_eq!(pattern_text(b"a\x00\x01b|"), "a|00 01|b|7C|");
    }
}
