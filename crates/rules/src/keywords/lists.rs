//! Lists and intelligence: `dataset`, `datarep` (matches on the current sticky buffer),
//! `iprep` and `geoip` (options on the packet's addresses).

use super::{Ctx, Keyword, Kind, Value};
use crate::ast::{
    parse_size, DatasetCmd, DatasetType, IntelOpt, IpSide, ListMatch, Match, Opt, RepOp, SetSpec,
};
use crate::diag::Reason;
use crate::parser::state::State;

/// List and intelligence keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dataset", Value::Required, Kind::Match, dataset).about(
        "test or add buffer data to a named set",
        "rules/datasets.html#dataset",
    ),
    Keyword::new("datarep", Value::Required, Kind::Match, datarep).about(
        "compare the reputation of buffer data in a dataset",
        "rules/datasets.html#datarep",
    ),
    Keyword::new("iprep", Value::Required, Kind::Option, iprep).about(
        "compare the IP reputation score of a host",
        "rules/ip-reputation-rules.html#iprep",
    ),
    Keyword::new("geoip", Value::Required, Kind::Option, geoip).about(
        "match the country of an address (GeoIP database)",
        "rules/header-keywords.html#geoip",
    ),
];

/// Longest set name Suricata accepts.
const MAX_NAME: usize = 63;

/// Reads the `key value` options after the fixed fields; `save`/`state` only for
/// `dataset`.
fn set_options(spec: &mut SetSpec, opts: &[&str], dataset: bool) -> Result<(), String> {
    for o in opts {
        let o = o.trim();
        let (k, v) = o
            .split_once(char::is_whitespace)
            .map(|(k, v)| (k, v.trim()))
            .unwrap_or((o, ""));
        if v.is_empty() {
            return Err(format!("option '{o}' needs a value"));
        }
        match k {
            "type" => {
                spec.kind = Some(DatasetType::parse(v).ok_or_else(|| format!("bad type '{v}'"))?)
            }
            "load" => spec.load = Some(v.to_owned()),
            "save" if dataset => spec.save = Some(v.to_owned()),
            "state" if dataset => spec.state = Some(v.to_owned()),
            "memcap" => {
                spec.memcap = Some(parse_size(v).ok_or_else(|| format!("bad memcap '{v}'"))?)
            }
            "hashsize" => {
                spec.hashsize = Some(v.parse().map_err(|_| format!("bad hashsize '{v}'"))?)
            }
            _ => return Err(format!("unknown option '{k}'")),
        }
    }
    if spec.state.is_some() && (spec.load.is_some() || spec.save.is_some()) {
        return Err("'state' cannot be combined with 'load' or 'save'".into());
    }
    Ok(())
}

fn set_name(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() || s.len() > MAX_NAME {
        return Err(format!("bad set name '{s}'"));
    }
    Ok(s.to_owned())
}

/// `dataset:<cmd>,<name>[,type <t>,load <f>,save <f>,state <f>,memcap <n>,hashsize <n>]`.
pub(crate) fn parse_dataset(v: &str) -> Result<ListMatch, String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() < 2 {
        return Err("expected <cmd>,<name>[,options]".into());
    }
    let cmd = match parts[0].trim() {
        "isset" => DatasetCmd::IsSet,
        "isnotset" => DatasetCmd::IsNotSet,
        "set" => DatasetCmd::Set,
        "unset" => DatasetCmd::Unset,
        c => return Err(format!("unknown command '{c}'")),
    };
    let mut spec = SetSpec {
        name: set_name(parts[1])?,
        ..SetSpec::default()
    };
    set_options(&mut spec, &parts[2..], true)?;
    Ok(ListMatch::Dataset { cmd, spec })
}

/// `datarep:<name>,<op>,<value>[,type <t>,load <f>,memcap <n>,hashsize <n>]`.
pub(crate) fn parse_datarep(v: &str) -> Result<ListMatch, String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() < 3 {
        return Err("expected <name>,<operator>,<value>[,options]".into());
    }
    let mut spec = SetSpec {
        name: set_name(parts[0])?,
        ..SetSpec::default()
    };
    // Suricata 7.0.10 takes `<`, `>` and `==` only (`=`, `<=`, `>=` fail the rule:
    // difftest `lists/datarep-*`).
    let op = match parts[1].trim() {
        t @ ("<" | ">" | "==") => RepOp::parse(t),
        _ => None,
    }
    .ok_or_else(|| format!("bad operator '{}'", parts[1].trim()))?;
    let value = parts[2]
        .trim()
        .parse::<u16>()
        .map_err(|_| format!("bad value '{}' (0 to 65535)", parts[2].trim()))?;
    set_options(&mut spec, &parts[3..], false)?;
    Ok(ListMatch::Datarep { spec, op, value })
}

/// `iprep:<side>,<category>,<op>,<value>`.
pub(crate) fn parse_iprep(v: &str) -> Result<IntelOpt, String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let [side, cat, op, val] = parts[..] else {
        return Err("expected <side>,<category>,<operator>,<value>".into());
    };
    let side = IpSide::parse(side).ok_or_else(|| format!("bad side '{side}'"))?;
    if cat.is_empty() {
        return Err("empty category".into());
    }
    let op = match op {
        "<" | ">" | "=" => RepOp::parse(op).unwrap_or(RepOp::Eq),
        _ => return Err(format!("bad operator '{op}' (<, > or =)")),
    };
    // Scores are 0 to 127, but Suricata 7.0.10 takes any value of a byte (difftest
    // `iprep/*`: `>,128` loads and never matches).
    let value = match val.parse::<u8>() {
        Ok(n) => n,
        _ => return Err(format!("bad value '{val}' (0 to 255)")),
    };
    Ok(IntelOpt::Iprep {
        side,
        category: cat.to_owned(),
        op,
        value,
    })
}

/// `geoip:[<side>,][!]<country>[,<country>...]` (side defaults to `any`).
pub(crate) fn parse_geoip(v: &str) -> Result<IntelOpt, String> {
    let v = v.trim();
    let (side, list) = match v.split_once(',') {
        Some((s, rest)) if IpSide::parse(s.trim()).is_some() => {
            (IpSide::parse(s.trim()).unwrap_or(IpSide::Any), rest)
        }
        _ => (IpSide::Any, v),
    };
    let negated = list.contains('!');
    let countries: Vec<String> = list
        .split(',')
        .map(|c| c.trim().trim_start_matches('!').trim().to_ascii_uppercase())
        .collect();
    if countries.is_empty() || countries.len() > 10 {
        return Err("1 to 10 country codes".into());
    }
    if let Some(c) = countries
        .iter()
        .find(|c| c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        return Err(format!("bad country code '{c}'"));
    }
    Ok(IntelOpt::Geoip {
        side,
        countries,
        negated,
    })
}

fn push_list(st: &mut State, c: &Ctx<'_>, m: Result<ListMatch, String>) {
    let m = tryv!(st, c.o, c.kw, m.map_err(|e| format!("{}: {e}", c.kw)));
    if st.sticky.is_none() {
        st.err(
            c.o.name_off,
            Reason::Semantic,
            c.kw,
            format!("{} is only supported on a sticky buffer", c.kw),
        );
        return;
    }
    let b = st.current_block();
    st.push_match(b, Match::List(Box::new(m)));
}

fn dataset(st: &mut State, c: &Ctx<'_>) {
    push_list(st, c, parse_dataset(c.val));
}

fn datarep(st: &mut State, c: &Ctx<'_>) {
    push_list(st, c, parse_datarep(c.val));
}

fn iprep(st: &mut State, c: &Ctx<'_>) {
    let o = tryv!(
        st,
        c.o,
        c.kw,
        parse_iprep(c.val).map_err(|e| format!("iprep: {e}"))
    );
    st.options.push(Opt::Intel(o));
}

fn geoip(st: &mut State, c: &Ctx<'_>) {
    let o = tryv!(
        st,
        c.o,
        c.kw,
        parse_geoip(c.val).map_err(|e| format!("geoip: {e}"))
    );
    st.options.push(Opt::Intel(o));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_values() {
        let m = parse_dataset("isset,dns-bl, type string, load dns.lst, memcap 1mb").unwrap();
        let ListMatch::Dataset { cmd, spec } = m else {
            panic!()
        };
        assert_eq!(cmd, DatasetCmd::IsSet);
        assert_eq!(spec.name, "dns-bl");
        assert_eq!(spec.kind, Some(DatasetType::String));
        assert_eq!(spec.load.as_deref(), Some("dns.lst"));
        assert_eq!(spec.memcap, Some(1 << 20));
        assert!(parse_dataset("isset").is_err());
        assert!(parse_dataset("maybe,x").is_err());
        assert!(parse_dataset("set,x,type nope").is_err());
        assert!(parse_dataset("set,x,state a,load b").is_err());
        assert!(parse_dataset("set,x,color red").is_err());
    }

    #[test]
    fn datarep_iprep_geoip_values() {
        let ListMatch::Datarep { spec, op, value } =
            parse_datarep("ua-rep, >, 10, type string, load ua.csv").unwrap()
        else {
            panic!()
        };
        assert_eq!((spec.name.as_str(), op, value), ("ua-rep", RepOp::Gt, 10));
        assert!(parse_datarep("x,>,70000").is_err());
        for op in ["=", "<=", ">=", "!="] {
            assert!(
                parse_datarep(&format!("x,{op},1,type string,load f")).is_err(),
                "{op}"
            );
        }
        assert!(parse_datarep("x,==,1,type string,load f").is_ok());
        assert!(parse_datarep("x,>,1,save f").is_err());
        assert_eq!(
            parse_iprep("src,BadHosts,>,30").unwrap(),
            IntelOpt::Iprep {
                side: IpSide::Src,
                category: "BadHosts".into(),
                op: RepOp::Gt,
                value: 30
            }
        );
        assert!(parse_iprep("src,BadHosts,>,300").is_err());
        assert!(parse_iprep("src,BadHosts,>,256").is_err());
        assert!(parse_iprep("src,BadHosts,>,255").is_ok());
        assert!(parse_iprep("src,BadHosts,>,128").is_ok());
        assert!(parse_iprep("left,BadHosts,>,3").is_err());
        assert_eq!(
            parse_geoip("dst,CN,ru").unwrap(),
            IntelOpt::Geoip {
                side: IpSide::Dst,
                countries: vec!["CN".into(), "RU".into()],
                negated: false
            }
        );
        assert_eq!(
            parse_geoip("!US").unwrap(),
            IntelOpt::Geoip {
                side: IpSide::Any,
                countries: vec!["US".into()],
                negated: true
            }
        );
        assert!(parse_geoip("src,USA").is_err());
    }
}
