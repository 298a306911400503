//! `flowvar` and `pktvar`: variables a `pcre` stores from its capture groups (named
//! `flow_<name>` / `pkt_<name>`, or listed after the pattern as `flow:<name>` /
//! `pkt:<name>`) when its rule matches, and the keywords that test them
//! (`flowvar:<name>,"<content>"`: the value contains the content), as Suricata 7 does:
//!
//! - packet variables belong to the packet being inspected: set when the rule matches,
//!   seen by the rules evaluated after it (rules that set variables are ordered before
//!   the ones that read them, [`rank`]);
//! - flow variables captured on a packet are seen by the `flowvar` tests of the rules
//!   evaluated after the capturing one on the same packet, and stored on the flow (for
//!   the alerts' metadata) once the packet is inspected, a later capture of the same
//!   name replacing the value;
//! - alerts log both in `metadata.flowvars` / `metadata.pktvars` ([`FlowVars`]).

use crate::sig::{failed, unsupported, Refusal};
use std::sync::Arc;

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarKind {
    /// `flowvar`: the flow's.
    Flow,
    /// `pktvar`: the packet's.
    Pkt,
}

/// A capture group of a `pcre` that stores a variable.
#[derive(Debug, Clone)]
pub(crate) struct VarCapture {
    group: usize,
    kind: VarKind,
    name: Arc<str>,
}

/// The variable captures of a compiled `pcre` (`old`: the targets listed after the
/// pattern, for its unnamed groups in order).
pub(crate) fn captures(
    re: &pcre2::bytes::Regex,
    old: &[String],
) -> Result<Vec<VarCapture>, Refusal> {
    let mut out = Vec::new();
    for (group, name) in re.capture_names().iter().enumerate() {
        let Some(n) = name else { continue };
        let (kind, v) = if let Some(v) = n.strip_prefix("flow_") {
            (VarKind::Flow, v)
        } else if let Some(v) = n.strip_prefix("pkt_") {
            (VarKind::Pkt, v)
        } else {
            continue;
        };
        out.push(VarCapture {
            group,
            kind,
            name: v.into(),
        });
    }
    for (i, target) in old.iter().enumerate() {
        let (kind, v) = match target.trim().split_once(':') {
            Some(("flow", v)) => (VarKind::Flow, v),
            Some(("pkt", v)) => (VarKind::Pkt, v),
            _ => {
                return Err(unsupported(
                    "pcre",
                    format!("pcre capture target '{target}'"),
                ))
            }
        };
        if i + 1 >= re.captures_len() {
            return Err(failed(
                "pcre",
                format!("pcre has no capture group for '{target}'"),
            ));
        }
        out.push(VarCapture {
            group: i + 1,
            kind,
            name: v.trim().into(),
        });
    }
    Ok(out)
}

/// Values captured by the rule being evaluated, stored when it matches.
pub(crate) type Captured = Vec<(VarKind, Arc<str>, Vec<u8>)>;

/// Runs `re` from `from` in `subject` and records the groups of `caps` into `out`
/// (replacing what an earlier run of the rule captured); the match, as `find_at`.
pub(crate) fn find_capturing(
    re: &pcre2::bytes::Regex,
    caps: &[VarCapture],
    subject: &[u8],
    from: usize,
    out: &mut Captured,
) -> Result<Option<(usize, usize)>, pcre2::Error> {
    let mut locs = re.capture_locations();
    let Some(m) = re.captures_read_at(&mut locs, subject, from)? else {
        return Ok(None);
    };
    for c in caps {
        if let Some((s, e)) = locs.get(c.group) {
            out.retain(|(k, n, _)| !(*k == c.kind && *n == c.name));
            out.push((c.kind, c.name.clone(), subject[s..e].to_vec()));
        }
    }
    Ok(Some((m.start(), m.end())))
}

/// A `flowvar` / `pktvar` test.
#[derive(Debug, Clone)]
pub(crate) struct VarCond {
    kind: VarKind,
    name: Arc<str>,
    value: Vec<u8>,
}

impl VarCond {
    /// Whether the variable is set and its value contains the content.
    pub(crate) fn matches(&self, v: &FlowVars) -> bool {
        let Some(l) = &v.lists else {
            return false;
        };
        // A flow variable captured by a rule matched earlier on the same packet is
        // seen already (Suricata 7.0.10 stores it when that rule matches: difftest
        // `vars/flowvar-capture`, tests/parity/difftest/fixed/dt-54-vars-137); it is
        // logged on the flow from the next packet on (`end_packet`).
        let found = match self.kind {
            VarKind::Flow => l
                .pending
                .iter()
                .find(|(n, _)| *n == self.name)
                .or_else(|| l.flow.iter().find(|(n, _)| *n == self.name)),
            VarKind::Pkt => l.pkt.iter().find(|(n, _)| *n == self.name),
        };
        found.is_some_and(|(_, val)| memchr::memmem::find(val, &self.value).is_some())
    }
}

/// Compiles `flowvar:<name>,"<content>"` (or `pktvar`).
pub(crate) fn cond(keyword: &str, value: Option<&str>) -> Result<VarCond, Refusal> {
    let kind = if keyword == "flowvar" {
        VarKind::Flow
    } else {
        VarKind::Pkt
    };
    let bad = |m: String| failed(keyword, m);
    let (name, content) = value
        .and_then(|v| v.split_once(','))
        .ok_or_else(|| bad(format!("{keyword} takes a name and a content")))?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(bad(format!("{keyword}: bad variable name '{name}'")));
    }
    let content = content.trim();
    let value = if content.starts_with('"') {
        match rules::values::content_value(content) {
            Ok((false, b)) => b,
            Ok((true, _)) => return Err(bad(format!("{keyword}: a negated content"))),
            Err(e) => return Err(bad(format!("{keyword}: {e}"))),
        }
    } else {
        rules::values::content_bytes(content).map_err(|e| bad(format!("{keyword}: {e}")))?
    };
    if value.is_empty() {
        return Err(bad(format!("{keyword}: empty content")));
    }
    Ok(VarCond {
        kind,
        name: name.into(),
        value,
    })
}

/// The variables of a flow and of the packet being inspected (kept in its
/// [`crate::FlowDetect`]), each list in the order its names were first set. Boxed and
/// made on the first capture: every open flow has one and few rules capture.
#[derive(Debug, Default, Clone)]
pub struct FlowVars {
    lists: Option<Box<VarLists>>,
}

#[derive(Debug, Default, Clone)]
struct VarLists {
    flow: Vec<(Arc<str>, Vec<u8>)>,
    /// Flow variables captured on the packet being inspected.
    pending: Vec<(Arc<str>, Vec<u8>)>,
    pkt: Vec<(Arc<str>, Vec<u8>)>,
}

/// No variables (what [`FlowVars::flow`] and [`FlowVars::pkt`] read before a capture).
static NO_VARS: Vec<(Arc<str>, Vec<u8>)> = Vec::new();

fn put(list: &mut Vec<(Arc<str>, Vec<u8>)>, name: Arc<str>, val: Vec<u8>) {
    match list.iter_mut().find(|(n, _)| *n == name) {
        Some(slot) => slot.1 = val,
        None => list.push((name, val)),
    }
}

impl FlowVars {
    /// A packet's inspection starts: no packet variables yet.
    pub(crate) fn start_packet(&mut self) {
        if let Some(l) = &mut self.lists {
            l.pkt.clear();
        }
    }

    /// The rule whose evaluation captured `c` matched: its packet variables are set,
    /// its flow variables wait for the end of the packet.
    pub(crate) fn commit(&mut self, c: &mut Captured) {
        if c.is_empty() {
            return;
        }
        let l = self.lists.get_or_insert_with(Box::default);
        for (kind, name, val) in c.drain(..) {
            match kind {
                VarKind::Pkt => put(&mut l.pkt, name, val),
                VarKind::Flow => put(&mut l.pending, name, val),
            }
        }
    }

    /// The packet was inspected: its flow variables are stored on the flow.
    pub(crate) fn end_packet(&mut self) {
        if let Some(l) = &mut self.lists {
            for (name, val) in std::mem::take(&mut l.pending) {
                put(&mut l.flow, name, val);
            }
        }
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        self.lists = None;
    }

    /// The flow's variables (EVE `metadata.flowvars`).
    pub fn flow(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let l = self.lists.as_ref().map_or(&NO_VARS, |l| &l.flow);
        l.iter().map(|(n, v)| (&**n, &v[..]))
    }

    /// The packet's variables (EVE `metadata.pktvars`).
    pub fn pkt(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let l = self.lists.as_ref().map_or(&NO_VARS, |l| &l.pkt);
        l.iter().map(|(n, v)| (&**n, &v[..]))
    }
}

/// Suricata's ordering ranks of a rule for flow and packet variables: 3 sets only,
/// 2 sets and reads, 1 reads, 0 neither (higher first); a rule sets a variable by a
/// `pcre` on the packet payload (checked on Suricata 7.0.10: one on an HTTP buffer
/// does not move the rule).
pub(crate) fn rank(r: &rules::ast::Rule) -> (u8, u8) {
    let sets = |prefix: &str, old: &str| {
        // Like Suricata, only a `pcre` on the packet payload counts as setting.
        r.buffers
            .iter()
            .filter(|b| b.buffer == rules::Buffer::Payload)
            .flat_map(|b| b.matches.iter())
            .any(|m| match m {
                rules::ast::Match::Pcre(p) => {
                    ["(?P<", "(?<", "(?'"]
                        .iter()
                        .any(|o| p.pattern.contains(&format!("{o}{prefix}")))
                        || p.captures.iter().any(|c| c.trim().starts_with(old))
                }
                _ => false,
            })
    };
    let reads = |kw: &str| {
        r.options
            .iter()
            .any(|o| matches!(o, rules::ast::Opt::Keyword { name, .. } if *name == kw))
    };
    let one = |s: bool, rd: bool| match (s, rd) {
        (true, false) => 3,
        (true, true) => 2,
        (false, true) => 1,
        _ => 0,
    };
    (
        one(sets("flow_", "flow:"), reads("flowvar")),
        one(sets("pkt_", "pkt:"), reads("pktvar")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_and_match_contents() {
        let c = cond("flowvar", Some(r#"host, "ex|61|mple""#)).unwrap();
        assert_eq!(
            (c.kind, &*c.name, &c.value[..]),
            (VarKind::Flow, "host", &b"example"[..])
        );
        for bad in [
            None,
            Some("host"),
            Some(r#"host,"""#),
            Some(r#" ,"x""#),
            Some(r#"a,!"x""#),
        ] {
            assert!(cond("pktvar", bad).is_err(), "{bad:?}");
        }
        let mut v = FlowVars::default();
        let mut cap: Captured = vec![
            (VarKind::Flow, "host".into(), b"www.example.com".to_vec()),
            (VarKind::Pkt, "host".into(), b"other".to_vec()),
        ];
        v.start_packet();
        v.commit(&mut cap);
        assert!(cap.is_empty());
        // Both are seen by the rules after the capturing one on the same packet; the
        // flow variable is logged on the flow from the end of the packet on.
        assert!(c.matches(&v));
        assert_eq!(v.flow().count(), 0);
        assert!(cond("pktvar", Some(r#"host,"th""#)).unwrap().matches(&v));
        v.end_packet();
        assert!(c.matches(&v));
        v.start_packet();
        assert_eq!(v.pkt().count(), 0);
        assert_eq!(
            v.flow().collect::<Vec<_>>(),
            [("host", &b"www.example.com"[..])]
        );
        // A new capture on a later packet replaces the value at once for the tests.
        let mut cap: Captured = vec![(VarKind::Flow, "host".into(), b"changed".to_vec())];
        v.commit(&mut cap);
        assert!(!c.matches(&v));
        assert!(cond("flowvar", Some(r#"host,"chan""#)).unwrap().matches(&v));
    }

    #[test]
    fn named_and_listed_captures() {
        let re = pcre2::bytes::Regex::new("(?P<flow_a>x)(?P<other>y)(?P<pkt_b>z)").unwrap();
        let caps = captures(&re, &[]).unwrap();
        let got: Vec<_> = caps.iter().map(|c| (c.group, c.kind, &*c.name)).collect();
        assert_eq!(got, [(1, VarKind::Flow, "a"), (3, VarKind::Pkt, "b")]);
        let mut out = Vec::new();
        let m = find_capturing(&re, &caps, b"__xyz", 0, &mut out).unwrap();
        assert_eq!(m, Some((2, 5)));
        assert_eq!(out.len(), 2);
        let re = pcre2::bytes::Regex::new("(a)(b)").unwrap();
        let caps = captures(&re, &["flow:one".into(), " pkt: two".into()]).unwrap();
        assert_eq!(caps[1].group, 2);
        assert!(captures(&re, &["alert:x".into()]).is_err());
        assert!(captures(&re, &["flow:a".into(), "flow:b".into(), "flow:c".into()]).is_err());
    }
}
