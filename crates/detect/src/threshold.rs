//! Thresholds: the rule's `threshold` / `detection_filter` or a `threshold.config`
//! entry replacing it, `suppress` lines, and the per-worker counters they use.
//!
//! Counting follows Suricata 7: an entry remembers the start of its window and a count;
//! a match more than `seconds` after the window start opens a new window.
//! `limit`: alert on the first `count` matches of a window. `threshold`: alert on every
//! `count`-th match within a window. `both`: alert once, on the `count`-th match of a
//! window. `detection_filter`: alert on every match after the first `count` of a window.
//!
//! `rate_filter` (threshold.config) changes the action of a rule whose matches exceed
//! `count` within `seconds` (per source, destination, address pair or rule) to
//! `new_action` for `timeout` seconds; the alert is still raised, with the new action.

use std::collections::HashMap;

use rules::threshold::{SuppressTrack, ThresholdConfig, ThresholdEntry};
use rules::{AddrSet, ThresholdType, Track, Vars};

/// Most threshold entries a worker tracks; beyond it new keys are not counted (they
/// alert as if unthresholded would be wrong, so they are suppressed and counted).
pub const MAX_THRESHOLD_ENTRIES: usize = 1 << 20;

/// A threshold specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    /// `None`: detection_filter.
    pub kind: Option<ThresholdType>,
    pub track: Track,
    pub count: u32,
    pub seconds: u32,
}

impl Spec {
    pub fn from_rule(t: &rules::Threshold) -> Spec {
        Spec {
            kind: t.kind,
            track: t.track,
            count: t.count,
            seconds: t.seconds,
        }
    }
}

/// A suppression.
#[derive(Debug, Clone)]
pub(crate) enum Suppress {
    All,
    Src(AddrSet),
    Dst(AddrSet),
    Either(AddrSet),
}

impl Suppress {
    pub fn hits(&self, src: std::net::IpAddr, dst: std::net::IpAddr) -> bool {
        match self {
            Suppress::All => true,
            Suppress::Src(s) => s.contains(src),
            Suppress::Dst(s) => s.contains(dst),
            Suppress::Either(s) => s.contains(src) || s.contains(dst),
        }
    }
}

/// `threshold.config` entries that apply to one rule.
#[derive(Debug, Clone, Default)]
pub(crate) struct Global {
    pub threshold: Option<Spec>,
    pub exact: bool,
    pub suppress: Vec<Suppress>,
    pub rate_filter: Option<RateFilter>,
}

/// A `rate_filter` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RateFilter {
    pub track: Track,
    pub count: u32,
    pub seconds: u32,
    pub new_action: rules::Action,
    pub timeout: u32,
}

/// Resolves the `threshold.config` entries for (gid, sid). Errors name an address that
/// does not resolve.
pub(crate) fn global_for(
    cfg: &ThresholdConfig,
    vars: &Vars,
    gid: u32,
    sid: u32,
) -> Result<Global, String> {
    let mut g = Global::default();
    let applies = |eg: u32, es: u32| (eg == 0 || eg == gid) && (es == 0 || es == sid);
    for e in &cfg.entries {
        match e {
            ThresholdEntry::Threshold {
                gid: eg,
                sid: es,
                kind,
                track,
                count,
                seconds,
            } if applies(*eg, *es) => {
                // Suricata 7.0.10 does not apply a threshold.config `track by_flow`
                // entry: the rule alerts on every match.
                if *track == Track::ByFlow {
                    continue;
                }
                let exact = *es != 0;
                if g.threshold.is_none() || (exact && !g.exact) {
                    g.threshold = Some(Spec {
                        kind: Some(*kind),
                        track: *track,
                        count: *count,
                        seconds: *seconds,
                    });
                    g.exact = exact;
                }
            }
            ThresholdEntry::Suppress {
                gid: eg,
                sid: es,
                track,
            } if applies(*eg, *es) => g.suppress.push(match track {
                None => Suppress::All,
                Some((t, a)) => {
                    let set = a.resolve(vars)?;
                    match t {
                        SuppressTrack::BySrc => Suppress::Src(set),
                        SuppressTrack::ByDst => Suppress::Dst(set),
                        SuppressTrack::ByEither => Suppress::Either(set),
                    }
                }
            }),
            ThresholdEntry::RateFilter {
                gid: eg,
                sid: es,
                track,
                count,
                seconds,
                new_action,
                timeout,
            } if applies(*eg, *es) && g.rate_filter.is_none() => {
                let new_action = rules::Action::parse(new_action)
                    .ok_or_else(|| format!("rate_filter new_action `{new_action}`"))?;
                g.rate_filter = Some(RateFilter {
                    track: *track,
                    count: *count,
                    seconds: *seconds,
                    new_action,
                    timeout: *timeout,
                });
            }
            _ => {}
        }
    }
    Ok(g)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Rule,
    Ip([u8; 16]),
    Pair([u8; 16], [u8; 16]),
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    first_ns: u64,
    count: u32,
}

/// Per-worker threshold counters.
#[derive(Debug, Default)]
pub(crate) struct ThresholdTable {
    map: HashMap<(u32, Key), Entry>,
}

/// Outcome of a threshold check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The match alerts.
    Alert,
    /// The threshold keeps it quiet.
    Quiet,
    /// The table holds [`MAX_THRESHOLD_ENTRIES`] keys: not counted, not alerted.
    Full,
}

/// A threshold check left undone by a worker (see [`crate::Scratch::share_thresholds`]):
/// rules tracked `by_src`, `by_dst` or `by_rule` count matches that several workers
/// make, so one [`SharedThresholds`] table counts them all, in capture order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deferred {
    sig: u32,
    spec: Spec,
    key: Key,
    now_ns: u64,
}

impl Deferred {
    /// The check of a match of `sig` under `spec`, counted under `key`, at `now_ns`,
    /// when it must be shared; `None` when the worker can count it alone (`by_both`
    /// keeps an address pair, whose packets all go to one worker).
    pub(crate) fn of(sig: u32, spec: Spec, key: Key, now_ns: u64) -> Option<Deferred> {
        matches!(spec.track, Track::BySrc | Track::ByDst | Track::ByRule).then_some(Deferred {
            sig,
            spec,
            key,
            now_ns,
        })
    }
}

/// Threshold counters shared by every worker, applied to their [`Deferred`] checks in
/// capture order: a rule tracked `by_src` alerts as often with several workers as with
/// one.
#[derive(Debug, Default)]
pub struct SharedThresholds {
    table: ThresholdTable,
}

impl SharedThresholds {
    /// Counts the match `d` and says whether it alerts.
    pub fn check(&mut self, d: &Deferred) -> Verdict {
        self.table.check(d.sig, &d.spec, d.key, d.now_ns)
    }
}

impl ThresholdTable {
    /// Counts one match of `sig` and says whether it alerts.
    pub fn check(&mut self, sig: u32, spec: &Spec, key: Key, now_ns: u64) -> Verdict {
        let window = spec.seconds as u64 * 1_000_000_000;
        let c = spec.count;
        let Some(e) = self.map.get_mut(&(sig, key)) else {
            if self.map.len() >= MAX_THRESHOLD_ENTRIES {
                self.map
                    .retain(|_, e| now_ns.saturating_sub(e.first_ns) < 3_600_000_000_000);
                if self.map.len() >= MAX_THRESHOLD_ENTRIES {
                    return Verdict::Full;
                }
            }
            self.map.insert(
                (sig, key),
                Entry {
                    first_ns: now_ns,
                    count: 1,
                },
            );
            let alert = match spec.kind {
                Some(ThresholdType::Limit) => c >= 1,
                Some(ThresholdType::Threshold) | Some(ThresholdType::Both) => c <= 1,
                Some(ThresholdType::Backoff) => true,
                None => c == 0,
            };
            return if alert {
                Verdict::Alert
            } else {
                Verdict::Quiet
            };
        };
        let within = now_ns < e.first_ns.saturating_add(window);
        let alert = if within {
            e.count = e.count.saturating_add(1);
            match spec.kind {
                Some(ThresholdType::Limit) => e.count <= c,
                Some(ThresholdType::Threshold) => {
                    if e.count >= c {
                        e.count = 0;
                        true
                    } else {
                        false
                    }
                }
                Some(ThresholdType::Both) => e.count == c,
                Some(ThresholdType::Backoff) => true,
                None => e.count > c,
            }
        } else {
            e.first_ns = now_ns;
            e.count = 1;
            match spec.kind {
                Some(ThresholdType::Limit) => c >= 1,
                Some(ThresholdType::Threshold) | Some(ThresholdType::Both) => c <= 1,
                Some(ThresholdType::Backoff) => true,
                None => c == 0,
            }
        };
        if alert {
            Verdict::Alert
        } else {
            Verdict::Quiet
        }
    }
}

/// Per-worker `rate_filter` counters.
#[derive(Debug, Default)]
pub(crate) struct RateTable {
    map: HashMap<(u32, Key), RateEntry>,
}

#[derive(Debug, Clone, Copy)]
struct RateEntry {
    first_ns: u64,
    count: u32,
    /// The new action applies until then.
    until_ns: u64,
}

impl RateTable {
    /// Counts one match of `sig` and returns the action it takes: `new_action` while
    /// the rate is exceeded (more than `count` matches within `seconds`) and for
    /// `timeout` seconds after, `None` (the rule's own action) otherwise or when the
    /// table is full.
    pub fn check(
        &mut self,
        sig: u32,
        rf: &RateFilter,
        key: Key,
        now_ns: u64,
    ) -> Option<rules::Action> {
        const S: u64 = 1_000_000_000;
        if !self.map.contains_key(&(sig, key)) && self.map.len() >= MAX_THRESHOLD_ENTRIES {
            self.map.retain(|_, e| {
                now_ns.saturating_sub(e.first_ns) < 3_600 * S || e.until_ns > now_ns
            });
            if self.map.len() >= MAX_THRESHOLD_ENTRIES {
                return None;
            }
        }
        let e = self.map.entry((sig, key)).or_insert(RateEntry {
            first_ns: now_ns,
            count: 0,
            until_ns: 0,
        });
        if e.until_ns > now_ns {
            return Some(rf.new_action);
        }
        if now_ns >= e.first_ns.saturating_add(rf.seconds as u64 * S) {
            e.first_ns = now_ns;
            e.count = 0;
        }
        e.count = e.count.saturating_add(1);
        if e.count > rf.count {
            e.until_ns = now_ns.saturating_add(rf.timeout as u64 * S);
            e.first_ns = now_ns;
            e.count = 0;
            return Some(rf.new_action);
        }
        None
    }
}

/// The key a `rate_filter` tracks: like [`key`], but `by_both` is the unordered
/// address pair (both directions of a conversation count together).
pub(crate) fn rate_key(track: Track, src: [u8; 16], dst: [u8; 16]) -> Key {
    match track {
        Track::ByBoth => Key::Pair(src.min(dst), src.max(dst)),
        Track::ByFlow => Key::Rule,
        t => key(t, src, dst).unwrap_or(Key::Rule),
    }
}

/// The key a threshold tracks for a packet's addresses.
pub(crate) fn key(track: Track, src: [u8; 16], dst: [u8; 16]) -> Option<Key> {
    Some(match track {
        Track::ByRule => Key::Rule,
        Track::BySrc => Key::Ip(src),
        Track::ByDst => Key::Ip(dst),
        Track::ByBoth => Key::Pair(src, dst),
        Track::ByFlow => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn run(kind: Option<ThresholdType>, count: u32, times: &[u64]) -> Vec<bool> {
        let mut t = ThresholdTable::default();
        let spec = Spec {
            kind,
            track: Track::ByRule,
            count,
            seconds: 60,
        };
        times
            .iter()
            .map(|&ts| t.check(0, &spec, Key::Rule, ts * S) == Verdict::Alert)
            .collect()
    }

    #[test]
    fn limit() {
        assert_eq!(
            run(Some(ThresholdType::Limit), 2, &[0, 1, 2, 3, 61, 62, 63]),
            [true, true, false, false, true, true, false]
        );
    }

    #[test]
    fn threshold() {
        assert_eq!(
            run(Some(ThresholdType::Threshold), 3, &[0, 1, 2, 3, 4, 5, 6]),
            [false, false, true, false, false, true, false]
        );
    }

    #[test]
    fn both() {
        assert_eq!(
            run(Some(ThresholdType::Both), 2, &[0, 1, 2, 3, 70, 71]),
            [false, true, false, false, false, true]
        );
    }

    #[test]
    fn rate_filter_switches_action_for_timeout() {
        let rf = RateFilter {
            track: Track::ByRule,
            count: 1,
            seconds: 60,
            new_action: rules::Action::Drop,
            timeout: 10,
        };
        let mut t = RateTable::default();
        let got: Vec<_> = [0, 1, 5, 12, 30, 31]
            .iter()
            .map(|&ts| t.check(0, &rf, Key::Rule, ts * S))
            .collect();
        let d = Some(rules::Action::Drop);
        // 1st match: own action; 2nd exceeds the rate: new action until 11 s; the
        // match at 12 opens a new count.
        assert_eq!(got, [None, d, d, None, d, d]);
    }

    #[test]
    fn rate_key_pairs_are_unordered() {
        let a = [1u8; 16];
        let b = [2u8; 16];
        assert_eq!(rate_key(Track::ByBoth, a, b), rate_key(Track::ByBoth, b, a));
        assert_ne!(rate_key(Track::BySrc, a, b), rate_key(Track::BySrc, b, a));
    }

    #[test]
    fn detection_filter() {
        assert_eq!(
            run(None, 2, &[0, 1, 2, 3, 80, 81, 82]),
            [false, false, true, true, false, false, true]
        );
    }
}
