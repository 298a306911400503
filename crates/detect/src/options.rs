//! Build options and diagnostics of the detector.

use rules::threshold::ThresholdConfig;
use rules::Action;

/// Suricata's `action-order` classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionClass {
    /// `pass`
    Pass,
    /// `drop` (and Snort's `sdrop`)
    Drop,
    /// `reject`, `rejectsrc`, `rejectdst`, `rejectboth`
    Reject,
    /// `alert` (and Snort's `log`)
    Alert,
}

impl ActionClass {
    /// The class of an action.
    pub fn of(a: Action) -> ActionClass {
        match a {
            Action::Pass => ActionClass::Pass,
            Action::Drop | Action::Sdrop => ActionClass::Drop,
            Action::Reject | Action::RejectSrc | Action::RejectDst | Action::RejectBoth => {
                ActionClass::Reject
            }
            Action::Alert | Action::Log => ActionClass::Alert,
        }
    }

    /// Parses an `action-order` entry.
    pub fn parse(s: &str) -> Option<ActionClass> {
        Some(match s.trim() {
            "pass" => ActionClass::Pass,
            "drop" => ActionClass::Drop,
            "reject" => ActionClass::Reject,
            "alert" => ActionClass::Alert,
            _ => return None,
        })
    }
}

/// How to build a [`crate::Detector`].
#[derive(Debug, Clone)]
pub struct DetectOptions {
    /// Multi-pattern matcher implementation for every (group, buffer) prefilter
    /// (default: [`mpm::Kind::fastest`]).
    pub mpm_kind: mpm::Kind,
    /// `packet-alert-max`: most alerts kept per packet (Suricata's default 15).
    pub packet_alert_max: usize,
    /// `action-order` (Suricata's default: pass, drop, reject, alert).
    pub action_order: Vec<ActionClass>,
    /// `threshold.config` entries (global thresholds, suppressions, event filters).
    pub thresholds: ThresholdConfig,
    /// `pcre.match-limit` / `pcre.match-limit-recursion`.
    pub pcre_limits: crate::pcre::PcreLimits,
    /// Datasets and reputation data the rules consult (shared with the run).
    pub lists: crate::lists::Lists,
    /// `security.lua` and where Lua scripts are found.
    pub lua: crate::lua::LuaConfig,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            mpm_kind: mpm::Kind::fastest(),
            packet_alert_max: 15,
            action_order: vec![
                ActionClass::Pass,
                ActionClass::Drop,
                ActionClass::Reject,
                ActionClass::Alert,
            ],
            thresholds: ThresholdConfig::default(),
            pcre_limits: crate::pcre::PcreLimits::default(),
            lists: crate::lists::Lists::default(),
            lua: crate::lua::LuaConfig::default(),
        }
    }
}

/// Why a rule was not loaded into the detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagKind {
    /// The rule uses a keyword, buffer, protocol or option value the detector cannot
    /// evaluate as Suricata does: skipped rather than mis-evaluated.
    Unsupported,
    /// The rule is invalid for detection (for example a pcre PCRE2 rejects, too many
    /// variables).
    Failed,
}

/// A rule the detector skipped, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Index of the rule in the rule set.
    pub rule: usize,
    /// Signature id.
    pub sid: u32,
    /// Generator id.
    pub gid: u32,
    /// Unsupported or failed.
    pub kind: DiagKind,
    /// The keyword, buffer or protocol responsible (a stable key for counting).
    pub keyword: String,
    /// Human-readable detail.
    pub message: String,
}

/// Counters of a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Rules given.
    pub rules_total: usize,
    /// Rules loaded into the detector.
    pub rules_loaded: usize,
    /// Rules skipped as unsupported.
    pub rules_unsupported: usize,
    /// Rules skipped as failed.
    pub rules_failed: usize,
    /// Disabled (commented-out) rules ignored.
    pub rules_disabled: usize,
    /// Loaded rules with a fast pattern (prefiltered).
    pub rules_prefiltered: usize,
    /// Signature groups.
    pub groups: usize,
    /// Multi-pattern matchers built.
    pub matchers: usize,
    /// Patterns over all matchers.
    pub patterns: usize,
    /// Bytes used by the matchers.
    pub mpm_memory: usize,
}
