//! `flowint`: named unsigned 32-bit integers stored per flow. Comparisons (`==`, `!=`,
//! `<`, `>`, `<=`, `>=`), `isset` and `notset`/`isnotset` are conditions checked with
//! the rule's other packet conditions; `=`, `+` and `-` change the variable when the
//! rule matches. The operand is a number or another flowint's name (an unset one makes
//! the keyword fail, as in Suricata).

use std::collections::HashMap;

use crate::sig::Refusal;
use crate::state::FlowDetect;

/// What a `flowint` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntOp {
    Set,
    Add,
    Sub,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    IsSet,
    NotSet,
}

/// The value a `flowint` works with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Operand {
    None,
    Lit(u32),
    /// Another variable: its name and id.
    Var(String, u32),
}

/// One `flowint` keyword of a rule.
#[derive(Debug, Clone)]
pub(crate) struct FlowintOp {
    pub name: String,
    /// Dense id of `name` (assigned by [`intern`]).
    pub id: u32,
    pub op: IntOp,
    pub val: Operand,
}

impl FlowintOp {
    /// A condition (checked before the payload), not a change.
    pub(crate) fn is_cond(&self) -> bool {
        !matches!(self.op, IntOp::Set | IntOp::Add | IntOp::Sub)
    }

    fn operand(&self, fd: &FlowDetect) -> Option<u32> {
        match &self.val {
            Operand::Lit(v) => Some(*v),
            Operand::Var(_, id) => fd.int(*id),
            Operand::None => None,
        }
    }

    /// Whether the condition holds on the flow.
    pub(crate) fn check(&self, fd: &FlowDetect) -> bool {
        let cur = fd.int(self.id);
        match self.op {
            IntOp::IsSet => return cur.is_some(),
            IntOp::NotSet => return cur.is_none(),
            _ => {}
        }
        let (Some(a), Some(b)) = (cur, self.operand(fd)) else {
            return false;
        };
        match self.op {
            IntOp::Eq => a == b,
            IntOp::Ne => a != b,
            IntOp::Lt => a < b,
            IntOp::Gt => a > b,
            IntOp::Le => a <= b,
            IntOp::Ge => a >= b,
            _ => true,
        }
    }

    /// What the detector checks before the payload: the condition, or for a change
    /// that its operand is known.
    pub(crate) fn pre(&self, fd: &FlowDetect) -> bool {
        if self.is_cond() {
            self.check(fd)
        } else {
            self.ready(fd)
        }
    }

    /// Whether the change can be made (its operand is known).
    pub(crate) fn ready(&self, fd: &FlowDetect) -> bool {
        self.is_cond() || self.operand(fd).is_some()
    }

    /// Makes the change on a matching rule. An unset variable counts as 0 for `+`;
    /// `-` leaves it unset (Suricata 7.0.10: the rule matches, the variable stays
    /// unset, checked on tests/data/http-files.pcap).
    pub(crate) fn act(&self, fd: &mut FlowDetect) {
        let Some(v) = self.operand(fd) else { return };
        let cur = fd.int(self.id);
        let new = match (self.op, cur) {
            (IntOp::Set, _) => v,
            (IntOp::Add, c) => c.unwrap_or(0).wrapping_add(v),
            (IntOp::Sub, Some(c)) => c.wrapping_sub(v),
            _ => return,
        };
        fd.set_int(self.id, new);
    }
}

/// Suricata's ordering rank of a rule for its `flowint` keywords: 3 changes only, 2
/// changes and checks, 1 checks, 0 none (higher first: a rule that changes a variable
/// runs before the rules that check it, whatever their priority; checked on
/// Suricata 7.0.10).
pub(crate) fn rank(ops: &[FlowintOp]) -> u8 {
    let sets = ops.iter().any(|o| !o.is_cond());
    let reads = ops.iter().any(FlowintOp::is_cond);
    match (sets, reads) {
        (true, false) => 3,
        (true, true) => 2,
        (false, true) => 1,
        _ => 0,
    }
}

fn bad(msg: String) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: "flowint".into(),
        message: msg,
    }
}

/// `flowint:<name>,<op>[,<value>]` as the rules crate split it.
pub(crate) fn compile(name: &str, op: &str, value: Option<&str>) -> Result<FlowintOp, Refusal> {
    let op = match op {
        "=" => IntOp::Set,
        "+" => IntOp::Add,
        "-" => IntOp::Sub,
        "==" => IntOp::Eq,
        "!=" => IntOp::Ne,
        "<" => IntOp::Lt,
        ">" => IntOp::Gt,
        "<=" => IntOp::Le,
        ">=" => IntOp::Ge,
        "isset" => IntOp::IsSet,
        "notset" | "isnotset" => IntOp::NotSet,
        o => return Err(bad(format!("flowint: unknown operator '{o}'"))),
    };
    let val = match value.map(str::trim) {
        None => Operand::None,
        Some(v) if v.starts_with(|c: char| c.is_ascii_digit()) => Operand::Lit(
            v.parse()
                .map_err(|_| bad(format!("flowint: invalid value '{v}'")))?,
        ),
        Some(v) if !v.is_empty() => Operand::Var(v.to_owned(), 0),
        Some(_) => return Err(bad("flowint: empty value".into())),
    };
    if matches!(op, IntOp::IsSet | IntOp::NotSet) != (val == Operand::None) {
        return Err(bad("flowint: operator and value do not agree".into()));
    }
    Ok(FlowintOp {
        name: name.trim().to_owned(),
        id: 0,
        op,
        val,
    })
}

/// Gives every variable of `ops` its dense id, shared by all rules; returns the names
/// by id.
pub(crate) fn intern<'a>(ops: impl Iterator<Item = &'a mut FlowintOp>) -> Vec<String> {
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut names = Vec::new();
    let mut id = |n: &str| {
        let next = ids.len() as u32;
        *ids.entry(n.to_owned()).or_insert_with(|| {
            names.push(n.to_owned());
            next
        })
    };
    for o in ops {
        o.id = id(&o.name);
        if let Operand::Var(n, i) = &mut o.val {
            *i = id(n);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(list: &[(&str, &str, Option<&str>)]) -> Vec<FlowintOp> {
        let mut v: Vec<FlowintOp> = list
            .iter()
            .map(|(n, o, x)| compile(n, o, *x).unwrap())
            .collect();
        intern(v.iter_mut());
        v
    }

    #[test]
    fn set_add_sub_and_compare() {
        let o = ops(&[
            ("c", "+", Some("1")),
            ("c", ">", Some("1")),
            ("c", "isset", None),
            ("c", "notset", None),
            ("c", "-", Some("5")),
            ("c", "=", Some("7")),
            ("c", "==", Some("d")),
            ("d", "=", Some("c")),
        ]);
        let mut fd = FlowDetect::default();
        // `-` on an unset variable leaves it unset.
        o[4].act(&mut fd);
        assert_eq!(fd.int(o[0].id), None);
        assert!(!o[2].check(&fd) && o[3].check(&fd) && !o[1].check(&fd));
        o[0].act(&mut fd);
        assert_eq!(fd.int(o[0].id), Some(1));
        assert!(!o[1].check(&fd) && o[2].check(&fd) && !o[3].check(&fd));
        o[0].act(&mut fd);
        assert!(o[1].check(&fd));
        // A variable operand that is unset: the comparison fails.
        assert!(!o[6].check(&fd) && !o[7].ready(&FlowDetect::default()));
        o[5].act(&mut fd);
        o[7].act(&mut fd);
        assert!(o[6].check(&fd));
        o[4].act(&mut fd);
        assert_eq!(fd.int(o[0].id), Some(2));
    }

    #[test]
    fn rank_puts_changes_first() {
        let o = ops(&[("c", "+", Some("1")), ("c", ">", Some("1"))]);
        assert_eq!(rank(&o[..1]), 3);
        assert_eq!(rank(&o), 2);
        assert_eq!(rank(&o[1..]), 1);
        assert_eq!(rank(&[]), 0);
    }

    #[test]
    fn refuses_bad_values() {
        assert!(compile("x", "+", None).is_err());
        assert!(compile("x", "isset", Some("1")).is_err());
        assert!(compile("x", "~", Some("1")).is_err());
        assert!(compile("x", "=", Some("99999999999")).is_err());
    }
}
