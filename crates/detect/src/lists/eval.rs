//! The compiled forms of the list keywords and their evaluation: `dataset`/`datarep`
//! as a step of a buffer program ([`ListC`]), `iprep` and `geoip` as packet options
//! ([`IntelC`]).

use super::{Dataset, Lists};
use rules::{DatasetCmd, IntelOpt, IpSide, ListMatch, RepOp};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone, Copy)]
enum How {
    Cmd(DatasetCmd),
    Rep(RepOp, u16),
}

/// A compiled `dataset`/`datarep`: the shared set and what to do with the buffer.
#[derive(Debug, Clone)]
pub(crate) struct ListC {
    set: Arc<Dataset>,
    how: How,
}

impl ListC {
    /// Resolves the set (creating and loading it on first use).
    pub(crate) fn compile(
        l: &ListMatch,
        lists: &Lists,
        rule_file: Option<&Path>,
    ) -> Result<ListC, String> {
        Ok(match l {
            ListMatch::Dataset { cmd, spec } => ListC {
                set: lists.for_rule(spec, rule_file, false)?,
                how: How::Cmd(*cmd),
            },
            ListMatch::Datarep { spec, op, value } => ListC {
                set: lists.for_rule(spec, rule_file, true)?,
                how: How::Rep(*op, *value),
            },
        })
    }

    /// Evaluates on the whole buffer (the cursor plays no part): `set` matches when the
    /// value is new, `unset` when it was there.
    pub(crate) fn matches(&self, buf: &[u8]) -> bool {
        match self.how {
            How::Cmd(DatasetCmd::IsSet) => self.set.contains(buf),
            How::Cmd(DatasetCmd::IsNotSet) => !self.set.contains(buf),
            How::Cmd(DatasetCmd::Set) => self.set.add(buf, 0) == super::Added::New,
            How::Cmd(DatasetCmd::Unset) => self.set.remove(buf),
            How::Rep(op, v) => self
                .set
                .get(buf)
                .is_some_and(|r| op.holds(u32::from(r), u32::from(v))),
        }
    }
}

/// A compiled `iprep` or `geoip`.
#[derive(Debug, Clone)]
pub(crate) enum IntelC {
    /// `iprep`
    Rep(RepC),
    /// `geoip`
    Geo(super::geoip::GeoC),
}

/// A compiled `iprep`.
#[derive(Debug, Clone)]
pub(crate) struct RepC {
    side: IpSide,
    cat: u8,
    op: RepOp,
    value: u8,
    lists: Lists,
}

/// The packet's address `a` (its 16 bytes) as an address of its version.
pub(crate) fn addr(version: u8, a: &[u8; 16]) -> IpAddr {
    if version == 4 {
        IpAddr::V4(Ipv4Addr::new(a[0], a[1], a[2], a[3]))
    } else {
        IpAddr::V6(Ipv6Addr::from(*a))
    }
}

impl IntelC {
    /// Compiles `iprep` against the loaded reputation data (failed when none is
    /// configured or the category is unknown, as Suricata fails such a rule) and
    /// `geoip` against the `geoip-database` (without one the rule is unsupported: the
    /// error's flag says so).
    pub(crate) fn compile(o: &IntelOpt, lists: &Lists) -> Result<IntelC, (bool, String)> {
        match o {
            IntelOpt::Iprep {
                side,
                category,
                op,
                value,
            } => {
                let rep = lists.iprep().ok_or((
                    false,
                    "no reputation data (reputation-categories-file) configured".to_string(),
                ))?;
                let cat = rep
                    .category(category)
                    .ok_or_else(|| (false, format!("unknown reputation category '{category}'")))?;
                Ok(IntelC::Rep(RepC {
                    side: *side,
                    cat,
                    op: *op,
                    value: *value,
                    lists: lists.clone(),
                }))
            }
            IntelOpt::Geoip {
                side,
                countries,
                negated,
            } => {
                let db = lists.geoip().ok_or((
                    true,
                    "geoip: no GeoIP database (geoip-database) configured".to_string(),
                ))?;
                Ok(IntelC::Geo(super::geoip::GeoC::new(
                    *side, countries, *negated, db,
                )))
            }
        }
    }

    /// Whether a rule with it can still be IP-only (looked at once per flow
    /// direction): `iprep` can, `geoip` cannot (Suricata checks it on every packet).
    pub(crate) fn ip_only(&self) -> bool {
        matches!(self, IntelC::Rep(_))
    }

    /// Evaluates on the packet's addresses.
    pub(crate) fn matches(&self, p: &wire::Packet) -> bool {
        match self {
            IntelC::Rep(r) => r.matches(p),
            IntelC::Geo(g) => g.matches(p),
        }
    }
}

impl RepC {
    fn one(&self, a: IpAddr) -> bool {
        self.lists
            .iprep()
            .and_then(|r| r.score(a, self.cat))
            .is_some_and(|s| self.op.holds(u32::from(s), u32::from(self.value)))
    }

    fn matches(&self, p: &wire::Packet) -> bool {
        let src = || self.one(addr(p.ip_version, &p.src));
        let dst = || self.one(addr(p.ip_version, &p.dst));
        match self.side {
            IpSide::Src => src(),
            IpSide::Dst => dst(),
            IpSide::Both => src() && dst(),
            IpSide::Any => src() || dst(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::{IpRep, ListsConfig};
    use rules::{DatasetType, SetSpec};

    fn spec(kind: Option<DatasetType>) -> SetSpec {
        SetSpec {
            name: "s".into(),
            kind,
            ..SetSpec::default()
        }
    }

    fn ds(cmd: DatasetCmd, kind: Option<DatasetType>, l: &Lists) -> ListC {
        let m = ListMatch::Dataset {
            cmd,
            spec: spec(kind),
        };
        ListC::compile(&m, l, None).unwrap()
    }

    #[test]
    fn dataset_commands_on_a_shared_set() {
        let l = Lists::default();
        let set = ds(DatasetCmd::Set, Some(DatasetType::String), &l);
        let isset = ds(DatasetCmd::IsSet, None, &l);
        let isnot = ds(DatasetCmd::IsNotSet, None, &l);
        let unset = ds(DatasetCmd::Unset, None, &l);
        assert!(isnot.matches(b"a") && !isset.matches(b"a"));
        assert!(set.matches(b"a"), "new value");
        assert!(!set.matches(b"a"), "already there");
        assert!(isset.matches(b"a") && !isnot.matches(b"a"));
        assert!(unset.matches(b"a") && !unset.matches(b"a"));
        let m = ListMatch::Datarep {
            spec: spec(None),
            op: RepOp::Ge,
            value: 0,
        };
        let rep = ListC::compile(&m, &l, None).unwrap();
        assert!(!rep.matches(b"a"), "datarep needs the value in the set");
        set.matches(b"b");
        assert!(rep.matches(b"b"));
    }

    fn iprep(side: IpSide, cat: &str, op: RepOp, value: u8) -> IntelOpt {
        IntelOpt::Iprep {
            side,
            category: cat.into(),
            op,
            value,
        }
    }

    #[test]
    fn iprep_sides() {
        let mut r = IpRep::default();
        r.parse_categories("1,Bad,x\n").unwrap();
        r.parse_reputation("10.0.0.1,1,90\n10.0.0.2,1,10\n")
            .unwrap();
        let l = Lists::new(ListsConfig::default(), Some(r));
        let c = |s, op, v| IntelC::compile(&iprep(s, "Bad", op, v), &l).unwrap();
        let (p, _) = crate::testutil::packet(17, b"x");
        assert!(c(IpSide::Src, RepOp::Gt, 50).matches(&p));
        assert!(!c(IpSide::Dst, RepOp::Gt, 50).matches(&p));
        assert!(c(IpSide::Any, RepOp::Gt, 50).matches(&p));
        assert!(!c(IpSide::Both, RepOp::Gt, 50).matches(&p));
        assert!(c(IpSide::Both, RepOp::Gt, 5).matches(&p));
        assert!(c(IpSide::Dst, RepOp::Eq, 10).matches(&p));
        assert!(IntelC::compile(&iprep(IpSide::Src, "Nope", RepOp::Gt, 1), &l).is_err());
        let none = Lists::default();
        assert!(IntelC::compile(&iprep(IpSide::Src, "Bad", RepOp::Gt, 1), &none).is_err());
        let geo = IntelOpt::Geoip {
            side: IpSide::Src,
            countries: vec!["US".into()],
            negated: false,
        };
        assert!(
            IntelC::compile(&geo, &l).unwrap_err().0,
            "geoip without a database is unsupported"
        );
    }
}
