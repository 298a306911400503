//! `threshold.config`: global `threshold`, `event_filter`, `suppress` and `rate_filter`
//! lines.

use std::path::Path;
use std::sync::Arc;

use crate::ast::{ThresholdType, Track};
use crate::diag::{Diagnostic, Reason};
use crate::header::AddrExpr;
use crate::values::uint;

/// Tracking of a `suppress` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuppressTrack {
    /// `by_src`
    BySrc,
    /// `by_dst`
    ByDst,
    /// `by_either`
    ByEither,
}

/// One line of a threshold file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThresholdEntry {
    /// `threshold` or `event_filter` (same meaning).
    Threshold {
        /// gid (0: any).
        gid: u32,
        /// sid (0: any).
        sid: u32,
        /// Type.
        kind: ThresholdType,
        /// Tracking.
        track: Track,
        /// Count.
        count: u32,
        /// Seconds.
        seconds: u32,
    },
    /// `suppress`
    Suppress {
        /// gid (0: any).
        gid: u32,
        /// sid (0: any).
        sid: u32,
        /// Tracking and the addresses suppressed (none: suppress the rule entirely).
        track: Option<(SuppressTrack, AddrExpr)>,
    },
    /// `rate_filter`
    RateFilter {
        /// gid (0: any).
        gid: u32,
        /// sid (0: any).
        sid: u32,
        /// Tracking.
        track: Track,
        /// Count.
        count: u32,
        /// Seconds.
        seconds: u32,
        /// Action once the rate is exceeded (`alert`, `drop`, `pass`, `reject`, `log`, `sdrop`).
        new_action: String,
        /// How long the new action applies, in seconds.
        timeout: u32,
    },
}

/// A parsed threshold file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThresholdConfig {
    /// Entries in file order.
    pub entries: Vec<ThresholdEntry>,
}

fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

fn parse_line(t: &str) -> Result<ThresholdEntry, String> {
    let (cmd, rest) = t
        .split_once(char::is_whitespace)
        .ok_or("expected a command and options")?;
    let mut gid = None;
    let mut sid = None;
    let mut kind = None;
    let mut track = None;
    let mut count = None;
    let mut seconds = None;
    let mut ip = None;
    let mut new_action = None;
    let mut timeout = None;
    for part in split_top(rest) {
        let (k, v) = part
            .split_once(char::is_whitespace)
            .ok_or_else(|| format!("'{part}' needs a value"))?;
        let v = v.trim();
        let n = |v: &str| uint(v, u32::MAX as u64).map(|x| x as u32);
        match k {
            "gen_id" => gid = Some(n(v)?),
            "sig_id" => sid = Some(n(v)?),
            "type" => {
                kind = Some(ThresholdType::parse(v).ok_or_else(|| format!("unknown type '{v}'"))?)
            }
            "track" => track = Some(v.to_owned()),
            "count" => count = Some(n(v)?),
            "seconds" => seconds = Some(n(v)?),
            "ip" => ip = Some(AddrExpr::parse(v)?),
            "new_action" => {
                if !["alert", "drop", "pass", "reject", "log", "sdrop"].contains(&v) {
                    return Err(format!("unknown new_action '{v}'"));
                }
                new_action = Some(v.to_owned())
            }
            "timeout" => timeout = Some(n(v)?),
            _ => return Err(format!("unknown option '{k}'")),
        }
    }
    let gid = gid.ok_or("missing gen_id")?;
    let sid = sid.ok_or("missing sig_id")?;
    let rule_track = |t: Option<String>| -> Result<Track, String> {
        let t = t.ok_or("missing track")?;
        Track::parse(&t).ok_or_else(|| format!("unknown track '{t}'"))
    };
    Ok(match cmd {
        "threshold" | "event_filter" => ThresholdEntry::Threshold {
            gid,
            sid,
            kind: kind.ok_or("missing type")?,
            track: rule_track(track)?,
            count: count.ok_or("missing count")?,
            seconds: seconds.ok_or("missing seconds")?,
        },
        "suppress" => {
            let track = match (track, ip) {
                (None, None) => None,
                (Some(t), Some(ip)) => {
                    let t = match t.as_str() {
                        "by_src" => SuppressTrack::BySrc,
                        "by_dst" => SuppressTrack::ByDst,
                        "by_either" => SuppressTrack::ByEither,
                        _ => return Err(format!("unknown suppress track '{t}'")),
                    };
                    Some((t, ip))
                }
                (Some(_), None) => return Err("suppress with track needs ip".into()),
                (None, Some(_)) => return Err("suppress with ip needs track".into()),
            };
            ThresholdEntry::Suppress { gid, sid, track }
        }
        "rate_filter" => ThresholdEntry::RateFilter {
            gid,
            sid,
            track: rule_track(track)?,
            count: count.ok_or("missing count")?,
            seconds: seconds.ok_or("missing seconds")?,
            new_action: new_action.ok_or("missing new_action")?,
            timeout: timeout.ok_or("missing timeout")?,
        },
        other => return Err(format!("unknown command '{other}'")),
    })
}

impl ThresholdConfig {
    /// Parses a threshold file's text; bad lines give diagnostics and are skipped.
    pub fn parse(src: &str) -> (Self, Vec<Diagnostic>) {
        let mut out = ThresholdConfig::default();
        let mut diags = Vec::new();
        for (i, line) in src.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            match parse_line(t) {
                Ok(e) => out.entries.push(e),
                Err(m) => diags.push(
                    Diagnostic::error(Reason::Config, Some("threshold"), m).at(i as u32 + 1, 1),
                ),
            }
        }
        (out, diags)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<(Self, Vec<Diagnostic>), Diagnostic> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostic::error(Reason::Io, None, format!("cannot read threshold file: {e}"))
                .in_file(Some(Arc::from(path)))
        })?;
        let (c, mut d) = Self::parse(&text);
        for x in &mut d {
            x.file = Some(Arc::from(path));
        }
        Ok((c, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_line_kinds() {
        let src = "# x\n\
            threshold gen_id 1, sig_id 1000001, type limit, track by_flow, count 1, seconds 60\n\
            event_filter gen_id 0, sig_id 0, type both, track by_src, count 10, seconds 10\n\
            suppress gen_id 1, sig_id 2\n\
            suppress gen_id 1, sig_id 1000001, track by_either, ip [1.2.3.4,$SUPPRESS]\n\
            rate_filter gen_id 1, sig_id 1000001, track by_rule, count 1, seconds 60, new_action drop, timeout 1000\n\
            suppress gen_id 1, sig_id 1, track by_src\n\
            threshold gen_id 1, sig_id 1, type sometimes, track by_src, count 1, seconds 1\n\
            frobnicate gen_id 1, sig_id 1\n";
        let (c, d) = ThresholdConfig::parse(src);
        assert_eq!(c.entries.len(), 5);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].line, 7);
        match &c.entries[3] {
            ThresholdEntry::Suppress {
                track: Some((SuppressTrack::ByEither, AddrExpr::List(l))),
                ..
            } => {
                assert_eq!(l.len(), 2)
            }
            e => panic!("{e:?}"),
        }
        assert!(matches!(
            c.entries[4],
            ThresholdEntry::RateFilter {
                track: Track::ByRule,
                timeout: 1000,
                ..
            }
        ));
    }

    #[test]
    fn corpus_threshold_files_parse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/open");
        let Ok(rd) = std::fs::read_dir(dir) else {
            assert!(
                std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
                "missing {dir}"
            );
            eprintln!("skip: {dir} not found");
            return;
        };
        let mut n = 0;
        for e in rd.flatten() {
            let p = e.path().join("threshold.config");
            if p.exists() {
                let (_, d) = ThresholdConfig::load(&p).unwrap();
                assert!(d.is_empty(), "{}: {d:?}", p.display());
                n += 1;
            }
        }
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/etc/threshold.config"
        );
        if let Ok((_, d)) = ThresholdConfig::load(Path::new(p)) {
            assert!(d.is_empty());
        }
        assert!(n > 0);
    }
}
