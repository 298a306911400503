//! Loading rule files into a [`RuleSet`]: parsing, variable resolution, classtype and
//! reference checks, duplicate sids, statistics.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ast::Rule;
use crate::classification::Classifications;
use crate::diag::{Diagnostic, Reason, Severity};
use crate::header::{AddrSet, PortSet};
use crate::lexer::{self, Record};
use crate::parser::parse_record;
use crate::reference::ReferenceConfig;
use crate::vars::Vars;

/// How to load rules.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Stop at the first error and load nothing (`--strict-rules`).
    pub strict: bool,
    /// Also parse commented-out rules (`# alert ...`); they load with `enabled = false`.
    pub include_commented: bool,
    /// When set, a `classtype` not defined here is an error (as in Suricata).
    pub classifications: Option<Classifications>,
    /// When set, a `reference` system not defined here is an error (as in Suricata).
    pub references: Option<ReferenceConfig>,
}

/// A rule ready for the detection engine: the AST plus resolved header sets and origin.
#[derive(Debug, Clone)]
pub struct LoadedRule {
    /// The rule.
    pub rule: Rule,
    /// Source addresses, variables resolved.
    pub src_addrs: AddrSet,
    /// Destination addresses.
    pub dst_addrs: AddrSet,
    /// Source ports.
    pub src_ports: PortSet,
    /// Destination ports.
    pub dst_ports: PortSet,
    /// Priority: the rule's `priority`, else its classtype's, else 3.
    pub priority: u32,
    /// File the rule came from.
    pub file: Option<Arc<Path>>,
    /// Line of the rule's start.
    pub line: u32,
    /// What the source and destination addresses are made of (negations, IPv6
    /// ranges), variables expanded.
    pub addr_use: crate::header::AddrUse,
}

/// Counters gathered while loading.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Files read.
    pub files: usize,
    /// Rules in the set.
    pub loaded: usize,
    /// Rules skipped because of an error.
    pub failed: usize,
    /// Failed rules by first error's reason.
    pub failed_by_reason: BTreeMap<Reason, usize>,
    /// Keyword → number of rules using it (loaded or not).
    pub keywords: BTreeMap<String, usize>,
    /// Unsupported keyword → number of rules using it.
    pub unsupported: BTreeMap<String, usize>,
    /// Commented-out rules that were loaded (only with `include_commented`).
    pub commented: usize,
    /// Warnings emitted.
    pub warnings: usize,
    /// True when strict mode stopped loading.
    pub aborted: bool,
}

/// A set of loaded rules.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// Rules in load order.
    pub rules: Vec<LoadedRule>,
    /// Counters.
    pub stats: LoadStats,
    by_sid: HashMap<(u32, u32), usize>,
}

impl RuleSet {
    /// Loads rule files. Bad rules are reported and skipped; in strict mode the first error
    /// stops loading and the returned set is empty (`stats.aborted`).
    pub fn load(files: &[PathBuf], vars: &Vars, opts: &LoadOptions) -> (RuleSet, Vec<Diagnostic>) {
        let mut set = RuleSet::default();
        let mut diags = Vec::new();
        for f in files {
            let file: Arc<Path> = Arc::from(f.as_path());
            match std::fs::read(f) {
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    set.add_source(&text, Some(file), vars, opts, &mut diags);
                }
                Err(e) => {
                    diags.push(
                        Diagnostic::error(Reason::Io, None, format!("cannot read rule file: {e}"))
                            .in_file(Some(file)),
                    );
                    if opts.strict {
                        set.abort();
                    }
                }
            }
            if set.stats.aborted {
                break;
            }
        }
        (set, diags)
    }

    /// Loads rules from a string (`file` only labels diagnostics).
    pub fn load_str(
        src: &str,
        file: Option<&Path>,
        vars: &Vars,
        opts: &LoadOptions,
    ) -> (RuleSet, Vec<Diagnostic>) {
        let mut set = RuleSet::default();
        let mut diags = Vec::new();
        set.add_source(src, file.map(Arc::from), vars, opts, &mut diags);
        (set, diags)
    }

    fn abort(&mut self) {
        self.stats.aborted = true;
        self.rules.clear();
        self.by_sid.clear();
        self.stats.loaded = 0;
    }

    /// Adds the rules of one file's text to the set, appending diagnostics.
    pub fn add_source(
        &mut self,
        src: &str,
        file: Option<Arc<Path>>,
        vars: &Vars,
        opts: &LoadOptions,
        diags: &mut Vec<Diagnostic>,
    ) {
        self.stats.files += 1;
        for rec in lexer::records(src, opts.include_commented) {
            self.add_record(&rec, file.clone(), vars, opts, diags);
            if self.stats.aborted {
                return;
            }
        }
    }

    fn add_record(
        &mut self,
        rec: &Record<'_>,
        file: Option<Arc<Path>>,
        vars: &Vars,
        opts: &LoadOptions,
        diags: &mut Vec<Diagnostic>,
    ) {
        let parsed = parse_record(rec);
        let mut seen = Vec::with_capacity(parsed.keywords.len());
        for k in &parsed.keywords {
            if !seen.contains(&k) {
                seen.push(k);
                *self.stats.keywords.entry(k.clone()).or_default() += 1;
            }
        }
        let mut rule_diags: Vec<Diagnostic> = parsed.diagnostics;
        for d in &rule_diags {
            if d.reason == Reason::UnsupportedKeyword {
                if let Some(k) = &d.keyword {
                    *self.stats.unsupported.entry(k.clone()).or_default() += 1;
                }
            }
        }
        let mut loaded = None;
        if let Some(rule) = parsed.rule {
            match resolve(&rule, vars, opts, rec) {
                Ok((lr, warnings)) => {
                    loaded = Some(lr);
                    rule_diags.extend(warnings);
                }
                Err(d) => rule_diags.extend(d),
            }
        }
        let failed_reason = rule_diags.iter().find(|d| d.is_error()).map(|d| d.reason);
        for mut d in rule_diags {
            if d.severity == Severity::Warning {
                self.stats.warnings += 1;
            }
            d.file = file.clone();
            diags.push(d);
        }
        if let Some(reason) = failed_reason {
            self.stats.failed += 1;
            *self.stats.failed_by_reason.entry(reason).or_default() += 1;
            if opts.strict {
                self.abort();
            }
            return;
        }
        let Some(mut lr) = loaded else { return };
        lr.file = file.clone();
        lr.line = rec.line();
        let key = (lr.rule.meta.gid, lr.rule.meta.sid);
        if let Some(&idx) = self.by_sid.get(&key) {
            let old = &self.rules[idx];
            let where_ = format!(
                "{}:{}",
                old.file
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                old.line
            );
            let (l, c) = rec.pos(0);
            if lr.rule.meta.rev > old.rule.meta.rev {
                let d = Diagnostic::warning(
                    Reason::DuplicateSid,
                    Some("sid"),
                    format!(
                        "duplicate sid {} (gid {}): rev {} replaces rev {} loaded at {where_} (as Suricata does)",
                        key.1, key.0, lr.rule.meta.rev, old.rule.meta.rev
                    ),
                );
                let mut d = d.at(l, c).in_file(file);
                d.sid = Some(key.1);
                self.stats.warnings += 1;
                diags.push(d);
                self.rules[idx] = lr;
            } else {
                let d = Diagnostic::error(
                    Reason::DuplicateSid,
                    Some("sid"),
                    format!(
                        "duplicate sid {} (gid {}): rev {} already loaded at {where_}; this rule (rev {}) is skipped, as Suricata does",
                        key.1, key.0, old.rule.meta.rev, lr.rule.meta.rev
                    ),
                );
                let mut d = d.at(l, c).in_file(file);
                d.sid = Some(key.1);
                diags.push(d);
                self.stats.failed += 1;
                *self
                    .stats
                    .failed_by_reason
                    .entry(Reason::DuplicateSid)
                    .or_default() += 1;
                if opts.strict {
                    self.abort();
                }
            }
            return;
        }
        if !lr.rule.enabled {
            self.stats.commented += 1;
        }
        self.by_sid.insert(key, self.rules.len());
        self.rules.push(lr);
        self.stats.loaded = self.rules.len();
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True if no rule loaded.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Finds a rule by gid and sid.
    pub fn get(&self, gid: u32, sid: u32) -> Option<&LoadedRule> {
        self.by_sid.get(&(gid, sid)).map(|&i| &self.rules[i])
    }
}

fn resolve(
    rule: &Rule,
    vars: &Vars,
    opts: &LoadOptions,
    rec: &Record<'_>,
) -> Result<(LoadedRule, Vec<Diagnostic>), Vec<Diagnostic>> {
    let h = &rule.header;
    let mut errs = Vec::new();
    let mut warnings = Vec::new();
    let header_pos = |i: usize| -> (u32, u32) {
        let off = lexer::split_rule(&rec.text)
            .ok()
            .and_then(|r| r.header.get(i).map(|t| t.1))
            .unwrap_or(0);
        rec.pos(off)
    };
    let mut err = |i: usize, kw: &str, m: String| {
        let (l, c) = header_pos(i);
        let mut d = Diagnostic::error(Reason::Variable, Some(kw), m).at(l, c);
        d.sid = Some(rule.meta.sid);
        errs.push(d);
    };
    let src_addrs = h
        .src
        .resolve(vars)
        .map_err(|e| err(2, "source address", e))
        .ok();
    let src_ports = h
        .src_ports
        .resolve(vars)
        .map_err(|e| err(3, "source port", e))
        .ok();
    let dst_addrs = h
        .dst
        .resolve(vars)
        .map_err(|e| err(5, "destination address", e))
        .ok();
    let dst_ports = h
        .dst_ports
        .resolve(vars)
        .map_err(|e| err(6, "destination port", e))
        .ok();
    let (l, c) = rec.pos(0);
    let mut priority = rule.meta.priority;
    // Suricata 7.0.10 loads a rule whose classtype or reference system its files do not
    // name (a warning; the default priority 3), and looks class types up in any case
    // (found by the differential harness's `meta` family).
    if let Some(cls) = &opts.classifications {
        if let Some(ct) = &rule.meta.classtype {
            match cls.get(ct).or_else(|| cls.get(&ct.to_ascii_lowercase())) {
                Some(c) => priority = priority.or(Some(c.priority)),
                None => {
                    let mut d = Diagnostic::warning(
                        Reason::InvalidValue,
                        Some("classtype"),
                        format!("unknown classtype '{ct}', using default priority 3"),
                    )
                    .at(l, c);
                    d.sid = Some(rule.meta.sid);
                    warnings.push(d);
                }
            }
        }
    }
    if let Some(refs) = &opts.references {
        for r in &rule.meta.references {
            if refs.get(&r.system).is_none() {
                let mut d = Diagnostic::warning(
                    Reason::InvalidValue,
                    Some("reference"),
                    format!("unknown reference system '{}'", r.system),
                )
                .at(l, c);
                d.sid = Some(rule.meta.sid);
                warnings.push(d);
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok((
        LoadedRule {
            rule: rule.clone(),
            src_addrs: src_addrs.unwrap_or_default(),
            dst_addrs: dst_addrs.unwrap_or_default(),
            src_ports: src_ports.unwrap_or_default(),
            dst_ports: dst_ports.unwrap_or_default(),
            priority: priority.unwrap_or(3),
            file: None,
            line: 0,
            addr_use: h.src.uses(vars).or(h.dst.uses(vars)),
        },
        warnings,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(src: &str, opts: &LoadOptions) -> (RuleSet, Vec<Diagnostic>) {
        RuleSet::load_str(
            src,
            Some(Path::new("t.rules")),
            &Vars::suricata_default(),
            opts,
        )
    }

    #[test]
    fn bad_rules_are_skipped_and_located() {
        let src = "alert tcp any any -> any any (msg:\"ok\"; sid:1;)\n\
                   alert tcp any any -> any any (msg:\"bad\"; frobnicate; sid:2;)\n\
                   alert tcp $NOPE any -> any any (sid:3;)\n";
        let (set, d) = load(src, &LoadOptions::default());
        assert_eq!(set.len(), 1);
        assert_eq!(set.stats.failed, 2);
        assert_eq!(set.stats.unsupported.get("frobnicate"), Some(&1));
        assert_eq!(d[0].line, 2);
        assert_eq!(d[0].column, 42);
        assert_eq!(d[0].reason, Reason::UnsupportedKeyword);
        assert_eq!(d[0].sid, Some(2));
        assert_eq!(d[1].line, 3);
        assert_eq!(d[1].column, 11);
        assert_eq!(d[1].reason, Reason::Variable);
        assert_eq!(d[1].file.as_deref(), Some(Path::new("t.rules")));
    }

    #[test]
    fn duplicate_sids_follow_suricata() {
        let src = "alert tcp any any -> any any (sid:1; rev:2;)\n\
                   alert tcp any any -> any any (sid:1; rev:1;)\n\
                   alert tcp any any -> any any (sid:1; rev:3; msg:\"new\";)\n\
                   alert tcp any any -> any any (sid:1; gid:2;)\n";
        let (set, d) = load(src, &LoadOptions::default());
        assert_eq!(set.len(), 2);
        assert_eq!(set.stats.failed, 1);
        assert_eq!(set.get(1, 1).unwrap().rule.meta.rev, 3);
        assert!(set.get(2, 1).is_some());
        assert!(d[0].is_error() && d[0].message.contains("skipped"));
        assert!(!d[1].is_error() && d[1].message.contains("replaces"));
    }

    #[test]
    fn strict_mode_aborts() {
        let src = "alert tcp any any -> any any (sid:1;)\nalert tcp any any -> any any (sid:2; depth:3;)\n";
        let (set, _) = load(
            src,
            &LoadOptions {
                strict: true,
                ..Default::default()
            },
        );
        assert!(set.stats.aborted && set.is_empty());
    }

    #[test]
    fn commented_rules_only_on_request() {
        let src =
            "# alert tcp any any -> any any (sid:1;)\nalert tcp any any -> any any (sid:2;)\n";
        let (set, _) = load(src, &LoadOptions::default());
        assert_eq!(set.len(), 1);
        let (set, _) = load(
            src,
            &LoadOptions {
                include_commented: true,
                ..Default::default()
            },
        );
        assert_eq!(set.len(), 2);
        assert!(!set.get(1, 1).unwrap().rule.enabled);
        assert_eq!(set.stats.commented, 1);
    }

    #[test]
    fn classtype_and_reference_checks() {
        let cls = Classifications::parse(
            "config classification: trojan-activity,A Network Trojan was detected,1\n",
        )
        .0;
        let refs = ReferenceConfig::parse("config reference: url http://\n").0;
        let opts = LoadOptions {
            classifications: Some(cls),
            references: Some(refs),
            ..Default::default()
        };
        let src =
            "alert tcp any any -> any any (classtype:trojan-activity; reference:url,x; sid:1;)\n\
                   alert tcp any any -> any any (classtype:nope; sid:2;)\n\
                   alert tcp any any -> any any (reference:cve,1; sid:3;)\n\
                   alert tcp any any -> any any (classtype:Trojan-Activity; sid:4;)\n";
        let (set, d) = load(src, &opts);
        // Unknown names are warnings (Suricata 7.0.10 loads those rules), class types
        // are looked up in any case.
        assert_eq!(set.len(), 4);
        assert_eq!(set.rules[0].priority, 1);
        assert_eq!(set.get(1, 2).unwrap().priority, 3);
        assert_eq!(set.get(1, 4).unwrap().priority, 1);
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|x| !x.is_error()));
    }
}
