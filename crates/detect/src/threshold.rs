//! Thresholds: the rule's `threshold` / `detection_filter` or a `threshold.config`
//! entry replacing it, `suppress` lines, and the per-worker counters they use.
//!
//! Counting follows Suricata 7: an entry remembers the start of its window and a count;
//! a match more than `seconds` after the window start opens a new window.
//! `limit`: alert on the first `count` matches of a window. `threshold`: alert on every
//! `count`-th match within a window. `both`: alert once, on the `count`-th match of a
//! window. `detection_filter`: alert on every match after the first `count` of a window.

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
    pub rate_filter: bool,
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
                gid: eg, sid: es, ..
            } if applies(*eg, *es) => g.rate_filter = true,
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
pub(crate) enum Verdict {
    Alert,
    Quiet,
    Full,
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
    fn detection_filter() {
        assert_eq!(
            run(None, 2, &[0, 1, 2, 3, 80, 81, 82]),
            [false, false, true, true, false, false, true]
        );
    }
}
