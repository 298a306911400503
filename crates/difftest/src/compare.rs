//! The comparison: for each case, Suricata's two runs against each other (cases where
//! they disagree are set aside), then Suricata's alerts of the case's sid against
//! Osprey's as multisets of (sid, 5-tuple, pcap_cnt); rules Suricata refuses leave the
//! alert comparison and are checked against what Osprey does with them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::batch::Batch;
use crate::known::Known;
use crate::oracle::{AlertKey, Run};

/// How a case differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Suricata refuses the rule, Osprey loads it.
    OspreyAccepts,
    /// Suricata loads the rule, Osprey refuses it.
    OspreyRejects,
    /// Suricata alerts where Osprey does not.
    Missing,
    /// Osprey alerts where Suricata does not.
    Extra,
    /// Both alert, on different packets or a different number of times.
    Packets,
}

impl Kind {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::OspreyAccepts => "osprey-accepts",
            Kind::OspreyRejects => "osprey-rejects",
            Kind::Missing => "missing",
            Kind::Extra => "extra",
            Kind::Packets => "packets",
        }
    }
}

/// One case on which the engines differ.
#[derive(Clone, Debug)]
pub struct Diff {
    /// The case's index.
    pub index: u32,
    /// Its template.
    pub template: String,
    /// How it differs.
    pub kind: Kind,
    /// Suricata's alerts for the case's sid.
    pub suricata: Vec<AlertKey>,
    /// Osprey's.
    pub osprey: Vec<AlertKey>,
    /// Listed in the known differences.
    pub known: bool,
}

/// The outcome of a batch.
#[derive(Debug, Default)]
pub struct Report {
    /// The seed.
    pub seed: u64,
    /// Cases generated.
    pub cases: usize,
    /// Rules Suricata refused (left out of the alert comparison).
    pub suricata_rejected: usize,
    /// Cases whose two Suricata runs disagreed (left out).
    pub unstable: usize,
    /// Cases compared on alerts.
    pub compared: usize,
    /// Of those, cases where Suricata alerted (the hits that are real hits).
    pub suricata_alerted: usize,
    /// Compared cases with identical alerts.
    pub agreed: usize,
    /// Every difference (acceptance and alerts).
    pub diffs: Vec<Diff>,
}

impl Report {
    /// Differences not listed as known.
    pub fn unexplained(&self) -> impl Iterator<Item = &Diff> {
        self.diffs.iter().filter(|d| !d.known)
    }

    /// Agreement on the alert comparison, in percent.
    pub fn agreement(&self) -> f64 {
        if self.compared == 0 {
            return 100.0;
        }
        100.0 * self.agreed as f64 / self.compared as f64
    }

    /// Differences by (template, kind): count, and the first case's index.
    pub fn classes(&self) -> BTreeMap<(String, Kind), (usize, u32, bool)> {
        let mut m: BTreeMap<(String, Kind), (usize, u32, bool)> = BTreeMap::new();
        for d in &self.diffs {
            let e = m
                .entry((d.template.clone(), d.kind))
                .or_insert((0, d.index, d.known));
            e.0 += 1;
        }
        m
    }

    /// A human-readable summary.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let acc = self
            .diffs
            .iter()
            .filter(|d| matches!(d.kind, Kind::OspreyAccepts | Kind::OspreyRejects))
            .count();
        let _ = writeln!(
            s,
            "seed {}: {} cases; Suricata refused {} rules ({} acceptance differences); {} unstable between Suricata runs; {} compared ({} with Suricata alerts): {} agree ({:.2}%); {} differences, {} not known",
            self.seed,
            self.cases,
            self.suricata_rejected,
            acc,
            self.unstable,
            self.compared,
            self.suricata_alerted,
            self.agreed,
            self.agreement(),
            self.diffs.len(),
            self.unexplained().count()
        );
        for ((t, k), (n, first, known)) in self.classes() {
            let _ = writeln!(
                s,
                "  {t} {}: {n} (first: case {first}){}",
                k.name(),
                if known { " [known]" } else { "" }
            );
        }
        s
    }

    /// The summary as JSON.
    pub fn json(&self) -> serde_json::Value {
        let classes: Vec<serde_json::Value> = self
            .classes()
            .into_iter()
            .map(|((t, k), (n, first, known))| {
                serde_json::json!({"template": t, "kind": k.name(), "cases": n,
                                   "first_case": first, "known": known})
            })
            .collect();
        serde_json::json!({
            "seed": self.seed, "cases": self.cases,
            "suricata_rejected": self.suricata_rejected, "unstable": self.unstable,
            "compared": self.compared, "suricata_alerted": self.suricata_alerted,
            "agreed": self.agreed, "agreement_percent": self.agreement(),
            "differences": self.diffs.len(),
            "unexplained": self.unexplained().count(),
            "classes": classes,
        })
    }
}

/// Compares the runs of a batch.
pub fn compare(batch: &Batch, s1: &Run, s2: &Run, osprey: &Run, known: &Known) -> Report {
    let mut r = Report {
        seed: batch.seed,
        cases: batch.cases.len(),
        ..Report::default()
    };
    let none: Vec<AlertKey> = Vec::new();
    for c in &batch.cases {
        let line = c.index as usize + 1;
        let sid = c.sid();
        let a = s1.alerts.get(&sid).unwrap_or(&none);
        let b = s2.alerts.get(&sid).unwrap_or(&none);
        let o = osprey.alerts.get(&sid).unwrap_or(&none);
        let s_rej = s1.rejected_lines.contains(&line) || s2.rejected_lines.contains(&line);
        let o_rej = osprey.rejected_lines.contains(&line);
        let diff = |kind, suricata: &Vec<AlertKey>| Diff {
            index: c.index,
            template: c.spec.template.clone(),
            kind,
            suricata: suricata.clone(),
            osprey: o.clone(),
            known: known.covers(&c.spec.template, kind),
        };
        if s_rej {
            r.suricata_rejected += 1;
            if !o_rej {
                r.diffs.push(diff(Kind::OspreyAccepts, &none));
            }
            continue;
        }
        if a != b {
            r.unstable += 1;
            continue;
        }
        if o_rej {
            r.diffs.push(diff(Kind::OspreyRejects, a));
            continue;
        }
        r.compared += 1;
        r.suricata_alerted += usize::from(!a.is_empty());
        if a == o {
            r.agreed += 1;
            continue;
        }
        let kind = if o.is_empty() {
            Kind::Missing
        } else if a.is_empty() {
            Kind::Extra
        } else {
            Kind::Packets
        };
        r.diffs.push(diff(kind, a));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::SID_BASE;

    fn alert(sid: u32, cnt: u64) -> AlertKey {
        AlertKey {
            sid,
            src: "10.0.0.1".into(),
            sport: Some(1),
            dst: "10.0.0.2".into(),
            dport: Some(2),
            proto: "TCP".into(),
            pcap_cnt: Some(cnt),
            payload: None,
        }
    }

    fn run(alerts: &[AlertKey], rejected: &[usize]) -> Run {
        let mut r = Run::default();
        for a in alerts {
            r.alerts.entry(a.sid).or_default().push(a.clone());
        }
        r.rejected_lines = rejected.iter().copied().collect();
        r
    }

    #[test]
    fn every_outcome_is_told_apart() {
        let b = Batch::generate(3, 6);
        let s = |i: u32, c| alert(SID_BASE + i, c);
        // case 0 agrees, 1 unstable, 2 missing, 3 extra, 4 refused by both, 5 refused by
        // Suricata only.
        let s1 = run(&[s(0, 4), s(1, 4), s(2, 4)], &[5, 6]);
        let s2 = run(&[s(0, 4), s(2, 4)], &[5, 6]);
        let o = run(&[s(0, 4), s(3, 9)], &[5]);
        let r = compare(&b, &s1, &s2, &o, &Known::default());
        assert_eq!(
            (r.suricata_rejected, r.unstable, r.compared, r.agreed),
            (2, 1, 3, 1)
        );
        let kinds: Vec<(u32, Kind)> = r.diffs.iter().map(|d| (d.index, d.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (2, Kind::Missing),
                (3, Kind::Extra),
                (5, Kind::OspreyAccepts)
            ]
        );
        assert_eq!(r.unexplained().count(), 3);
        assert!(r.text().contains("3 differences, 3 not known"));
    }
}
