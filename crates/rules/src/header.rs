//! Address and port expressions of the rule header, and their resolution against
//! variables into interval sets.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::vars::Vars;

/// Deepest nesting of `[...]` and `!` accepted in one expression (variables included).
pub const MAX_NESTING: usize = 32;
/// Most elements accepted in one expression after variable expansion.
pub const MAX_ELEMENTS: usize = 100_000;

/// An IP network: address and prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpNet {
    /// Address (host bits as written).
    pub addr: IpAddr,
    /// Prefix length (32/128 for a single host).
    pub prefix: u8,
}

/// Address expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AddrExpr {
    /// `any`
    Any,
    /// `$NAME`
    Var(String),
    /// Address or CIDR block.
    Net(IpNet),
    /// `a-b` range.
    Range(IpAddr, IpAddr),
    /// `[a,b,...]`
    List(Vec<AddrExpr>),
    /// `!x`
    Not(Box<AddrExpr>),
}

/// Port expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PortExpr {
    /// `any`
    Any,
    /// `$NAME`
    Var(String),
    /// One port.
    Port(u16),
    /// `a:b`, `a:`, `:b` (inclusive; open ends become 0 / 65535).
    Range(u16, u16),
    /// `[a,b,...]`
    List(Vec<PortExpr>),
    /// `!x`
    Not(Box<PortExpr>),
}

fn split_list(inner: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced ']'".into());
                }
            }
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if out.len() > MAX_ELEMENTS {
            return Err("too many list elements".into());
        }
    }
    if depth != 0 {
        return Err("unbalanced '['".into());
    }
    out.push(inner[start..].trim());
    if out.iter().any(|s| s.is_empty()) {
        return Err("empty list element".into());
    }
    Ok(out)
}

fn list_body(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    // The first '[' must close at the very end.
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 && i != s.len() - 1 {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(inner)
}

fn valid_var_name(n: &str) -> bool {
    !n.is_empty()
        && n.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

impl AddrExpr {
    /// Parses an address expression.
    pub fn parse(s: &str) -> Result<AddrExpr, String> {
        Self::parse_depth(s.trim(), 0)
    }

    fn parse_depth(s: &str, depth: usize) -> Result<AddrExpr, String> {
        if depth > MAX_NESTING {
            return Err(format!("address nested deeper than {MAX_NESTING}"));
        }
        if s.is_empty() {
            return Err("empty address".into());
        }
        if let Some(rest) = s.strip_prefix('!') {
            return Ok(AddrExpr::Not(Box::new(Self::parse_depth(
                rest.trim_start(),
                depth + 1,
            )?)));
        }
        if s.starts_with('[') {
            let inner = list_body(s).ok_or_else(|| format!("malformed address list '{s}'"))?;
            let items = split_list(inner)?;
            let list = items
                .into_iter()
                .map(|i| Self::parse_depth(i, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(AddrExpr::List(list));
        }
        if s.eq_ignore_ascii_case("any") {
            return Ok(AddrExpr::Any);
        }
        if let Some(name) = s.strip_prefix('$') {
            if !valid_var_name(name) {
                return Err(format!("bad variable name '{s}'"));
            }
            return Ok(AddrExpr::Var(name.to_owned()));
        }
        if let Some((a, b)) = s.split_once('-') {
            let a: IpAddr = a
                .trim()
                .parse()
                .map_err(|_| format!("bad address '{a}' in range"))?;
            let b: IpAddr = b
                .trim()
                .parse()
                .map_err(|_| format!("bad address '{b}' in range"))?;
            if a.is_ipv4() != b.is_ipv4() {
                return Err(format!("address range '{s}' mixes IPv4 and IPv6"));
            }
            if ip_to_u128(a) > ip_to_u128(b) {
                return Err(format!("address range '{s}' is backwards"));
            }
            return Ok(AddrExpr::Range(a, b));
        }
        if let Some((a, m)) = s.split_once('/') {
            let addr: IpAddr = a.parse().map_err(|_| format!("bad address '{a}'"))?;
            let max = if addr.is_ipv4() { 32 } else { 128 };
            let prefix = if let Ok(p) = m.parse::<u8>() {
                if p > max {
                    return Err(format!("prefix /{p} too long for {a}"));
                }
                p
            } else if let (true, Ok(mask)) = (addr.is_ipv4(), m.parse::<Ipv4Addr>()) {
                let bits = u32::from(mask);
                let ones = bits.leading_ones();
                if bits.checked_shl(ones).unwrap_or(0) != 0 {
                    return Err(format!("netmask '{m}' is not contiguous"));
                }
                ones as u8
            } else {
                return Err(format!("bad netmask '{m}'"));
            };
            return Ok(AddrExpr::Net(IpNet { addr, prefix }));
        }
        let addr: IpAddr = s.parse().map_err(|_| format!("bad address '{s}'"))?;
        let prefix = if addr.is_ipv4() { 32 } else { 128 };
        Ok(AddrExpr::Net(IpNet { addr, prefix }))
    }

    /// Resolves variables and negations into the set of addresses the expression covers.
    pub fn resolve(&self, vars: &Vars) -> Result<AddrSet, String> {
        let mut budget = MAX_ELEMENTS;
        let s = self.eval(vars, 0, &mut budget)?;
        if s.is_empty() {
            return Err(format!("address '{self}' matches nothing"));
        }
        Ok(s)
    }

    fn eval(&self, vars: &Vars, depth: usize, budget: &mut usize) -> Result<AddrSet, String> {
        if depth > MAX_NESTING {
            return Err(format!(
                "address variables nested deeper than {MAX_NESTING} (loop?)"
            ));
        }
        if *budget == 0 {
            return Err("address expression too large".into());
        }
        *budget -= 1;
        Ok(match self {
            AddrExpr::Any => AddrSet::any(),
            AddrExpr::Var(n) => {
                let v = vars
                    .address(n)
                    .ok_or_else(|| format!("address variable ${n} is not defined"))?;
                let e = AddrExpr::parse_depth(v.trim(), depth + 1)
                    .map_err(|e| format!("in ${n} = {v}: {e}"))?;
                e.eval(vars, depth + 1, budget)?
            }
            AddrExpr::Net(n) => AddrSet::from_net(*n),
            AddrExpr::Range(a, b) => {
                let mut s = AddrSet::default();
                if a.is_ipv4() {
                    s.v4.push((ip_to_u128(*a) as u32, ip_to_u128(*b) as u32));
                } else {
                    s.v6.push((ip_to_u128(*a), ip_to_u128(*b)));
                }
                s
            }
            // Like Suricata, `!x` covers the rest of the address families x names
            // only: `!10.0.0.1` (and `!$HOME_NET`) holds no IPv6 address.
            AddrExpr::Not(e) => e.eval(vars, depth + 1, budget)?.complement_present(),
            AddrExpr::List(items) => {
                let mut pos = AddrSet::default();
                let mut neg = AddrSet::default();
                let mut any_pos = false;
                for i in items {
                    match i {
                        AddrExpr::Not(inner) => {
                            neg = neg.union(&inner.eval(vars, depth + 1, budget)?);
                        }
                        _ => {
                            any_pos = true;
                            pos = pos.union(&i.eval(vars, depth + 1, budget)?);
                        }
                    }
                }
                if !any_pos {
                    // Only negations: the rest of the families they name.
                    pos = neg.families();
                }
                let left = pos.subtract(&neg);
                if left.is_empty() {
                    return Err(format!(
                        "'{self}': no addresses left after merging addresses and negated addresses"
                    ));
                }
                left
            }
        })
    }
}

/// What an address expression is made of, variables expanded: Suricata treats a rule
/// differently when its addresses hold a negation (not an IP-only rule) or an IPv6 range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AddrUse {
    /// A `!` somewhere.
    pub negation: bool,
    /// An IPv6 `a-b` range somewhere.
    pub ipv6_range: bool,
}

impl AddrUse {
    /// Both uses together.
    pub fn or(self, o: AddrUse) -> AddrUse {
        AddrUse {
            negation: self.negation || o.negation,
            ipv6_range: self.ipv6_range || o.ipv6_range,
        }
    }
}

impl AddrExpr {
    /// What the expression is made of (an undefined or looping variable adds nothing:
    /// [`AddrExpr::resolve`] reports it).
    pub fn uses(&self, vars: &Vars) -> AddrUse {
        self.uses_depth(vars, 0)
    }

    fn uses_depth(&self, vars: &Vars, depth: usize) -> AddrUse {
        if depth > MAX_NESTING {
            return AddrUse::default();
        }
        match self {
            AddrExpr::Any | AddrExpr::Net(_) => AddrUse::default(),
            AddrExpr::Range(a, _) => AddrUse {
                negation: false,
                ipv6_range: a.is_ipv6(),
            },
            AddrExpr::Var(n) => vars
                .address(n)
                .and_then(|v| AddrExpr::parse_depth(v.trim(), depth + 1).ok())
                .map_or(AddrUse::default(), |e| e.uses_depth(vars, depth + 1)),
            AddrExpr::List(items) => items.iter().fold(AddrUse::default(), |u, i| {
                u.or(i.uses_depth(vars, depth + 1))
            }),
            AddrExpr::Not(e) => AddrUse {
                negation: true,
                ..e.uses_depth(vars, depth + 1)
            },
        }
    }
}

impl PortExpr {
    /// Parses a port expression.
    pub fn parse(s: &str) -> Result<PortExpr, String> {
        Self::parse_depth(s.trim(), 0)
    }

    fn parse_depth(s: &str, depth: usize) -> Result<PortExpr, String> {
        if depth > MAX_NESTING {
            return Err(format!("port nested deeper than {MAX_NESTING}"));
        }
        if s.is_empty() {
            return Err("empty port".into());
        }
        if let Some(rest) = s.strip_prefix('!') {
            return Ok(PortExpr::Not(Box::new(Self::parse_depth(
                rest.trim_start(),
                depth + 1,
            )?)));
        }
        if s.starts_with('[') {
            let inner = list_body(s).ok_or_else(|| format!("malformed port list '{s}'"))?;
            let items = split_list(inner)?;
            let list = items
                .into_iter()
                .map(|i| Self::parse_depth(i, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(PortExpr::List(list));
        }
        if s.eq_ignore_ascii_case("any") {
            return Ok(PortExpr::Any);
        }
        if let Some(name) = s.strip_prefix('$') {
            if !valid_var_name(name) {
                return Err(format!("bad variable name '{s}'"));
            }
            return Ok(PortExpr::Var(name.to_owned()));
        }
        let port = |p: &str| -> Result<u16, String> {
            p.trim()
                .parse::<u16>()
                .map_err(|_| format!("bad port '{p}'"))
        };
        if let Some((a, b)) = s.split_once(':') {
            let lo = if a.trim().is_empty() { 0 } else { port(a)? };
            let hi = if b.trim().is_empty() { 65535 } else { port(b)? };
            if a.trim().is_empty() && b.trim().is_empty() {
                return Err("port range ':' has no bounds".into());
            }
            if lo > hi {
                return Err(format!("port range '{s}' is backwards"));
            }
            return Ok(PortExpr::Range(lo, hi));
        }
        Ok(PortExpr::Port(port(s)?))
    }

    /// Resolves variables and negations into the set of ports covered.
    pub fn resolve(&self, vars: &Vars) -> Result<PortSet, String> {
        let mut budget = MAX_ELEMENTS;
        let s = self.eval(vars, 0, &mut budget)?;
        if s.ranges.is_empty() {
            return Err(format!("port '{self}' matches nothing"));
        }
        Ok(s)
    }

    fn eval(&self, vars: &Vars, depth: usize, budget: &mut usize) -> Result<PortSet, String> {
        if depth > MAX_NESTING {
            return Err(format!(
                "port variables nested deeper than {MAX_NESTING} (loop?)"
            ));
        }
        if *budget == 0 {
            return Err("port expression too large".into());
        }
        *budget -= 1;
        Ok(match self {
            PortExpr::Any => PortSet {
                ranges: vec![(0, 65535)],
            },
            PortExpr::Var(n) => {
                let v = vars
                    .port(n)
                    .ok_or_else(|| format!("port variable ${n} is not defined"))?;
                let e = PortExpr::parse_depth(v.trim(), depth + 1)
                    .map_err(|e| format!("in ${n} = {v}: {e}"))?;
                e.eval(vars, depth + 1, budget)?
            }
            PortExpr::Port(p) => PortSet {
                ranges: vec![(*p, *p)],
            },
            PortExpr::Range(a, b) => PortSet {
                ranges: vec![(*a, *b)],
            },
            PortExpr::Not(e) => e.eval(vars, depth + 1, budget)?.complement(),
            PortExpr::List(items) => {
                let mut pos = Vec::new();
                let mut neg = Vec::new();
                let mut any_pos = false;
                for i in items {
                    match i {
                        PortExpr::Not(inner) => {
                            neg.extend(inner.eval(vars, depth + 1, budget)?.ranges)
                        }
                        _ => {
                            any_pos = true;
                            pos.extend(i.eval(vars, depth + 1, budget)?.ranges);
                        }
                    }
                }
                if !any_pos {
                    pos.push((0, 65535));
                }
                let pos = PortSet::normalized(pos);
                let neg = PortSet::normalized(neg).complement();
                pos.intersect(&neg)
            }
        })
    }
}

fn ip_to_u128(a: IpAddr) -> u128 {
    match a {
        IpAddr::V4(v) => u32::from(v) as u128,
        IpAddr::V6(v) => u128::from(v),
    }
}

/// A set of addresses as sorted, merged, inclusive intervals per family.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddrSet {
    /// IPv4 intervals.
    pub v4: Vec<(u32, u32)>,
    /// IPv6 intervals.
    pub v6: Vec<(u128, u128)>,
}

fn normalize<T: Copy + Ord + Bump>(mut v: Vec<(T, T)>) -> Vec<(T, T)> {
    v.sort_unstable();
    let mut out: Vec<(T, T)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        if let Some(last) = out.last_mut() {
            if a <= last.1 || last.1.next() == Some(a) {
                if b > last.1 {
                    last.1 = b;
                }
                continue;
            }
        }
        out.push((a, b));
    }
    out
}

fn complement<T: Copy + Ord + Bump>(v: &[(T, T)], min: T, max: T) -> Vec<(T, T)> {
    let mut out = Vec::new();
    let mut cur = Some(min);
    for &(a, b) in v {
        if let Some(c) = cur {
            if a > c {
                out.push((c, a.prev().unwrap_or(min)));
            }
        }
        cur = b.next();
    }
    if let Some(c) = cur {
        out.push((c, max));
    }
    out
}

trait Bump: Sized {
    fn next(self) -> Option<Self>;
    fn prev(self) -> Option<Self>;
}

macro_rules! bump {
    ($($t:ty),*) => {$(
        impl Bump for $t {
            fn next(self) -> Option<Self> { self.checked_add(1) }
            fn prev(self) -> Option<Self> { self.checked_sub(1) }
        }
    )*};
}
bump!(u16, u32, u128);

fn intersect<T: Copy + Ord>(a: &[(T, T)], b: &[(T, T)]) -> Vec<(T, T)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl AddrSet {
    /// Every address.
    pub fn any() -> Self {
        AddrSet {
            v4: vec![(0, u32::MAX)],
            v6: vec![(0, u128::MAX)],
        }
    }

    fn from_net(n: IpNet) -> Self {
        let mut s = AddrSet::default();
        match n.addr {
            IpAddr::V4(a) => {
                let a = u32::from(a);
                let mask = if n.prefix == 0 {
                    0
                } else {
                    u32::MAX << (32 - n.prefix as u32)
                };
                s.v4.push((a & mask, (a & mask) | !mask));
            }
            IpAddr::V6(a) => {
                let a = u128::from(a);
                let mask = if n.prefix == 0 {
                    0
                } else {
                    u128::MAX << (128 - n.prefix as u32)
                };
                s.v6.push((a & mask, (a & mask) | !mask));
            }
        }
        s
    }

    /// True if no address is in the set.
    pub fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    /// True if every address is in the set.
    pub fn is_any(&self) -> bool {
        self == &AddrSet::any()
    }

    /// Membership test.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match ip {
            IpAddr::V4(a) => {
                let a = u32::from(a);
                self.v4.iter().any(|&(l, h)| l <= a && a <= h)
            }
            IpAddr::V6(a) => {
                let a = u128::from(a);
                self.v6.iter().any(|&(l, h)| l <= a && a <= h)
            }
        }
    }

    fn union(&self, o: &AddrSet) -> AddrSet {
        let mut v4 = self.v4.clone();
        v4.extend_from_slice(&o.v4);
        let mut v6 = self.v6.clone();
        v6.extend_from_slice(&o.v6);
        AddrSet {
            v4: normalize(v4),
            v6: normalize(v6),
        }
    }

    fn complement(&self) -> AddrSet {
        AddrSet {
            v4: complement(&normalize(self.v4.clone()), 0, u32::MAX),
            v6: complement(&normalize(self.v6.clone()), 0, u128::MAX),
        }
    }

    /// Every address of the families this set has addresses in.
    fn families(&self) -> AddrSet {
        let any = AddrSet::any();
        AddrSet {
            v4: if self.v4.is_empty() { vec![] } else { any.v4 },
            v6: if self.v6.is_empty() { vec![] } else { any.v6 },
        }
    }

    /// The complement within the families this set has addresses in.
    fn complement_present(&self) -> AddrSet {
        self.families().subtract(self)
    }

    fn subtract(&self, o: &AddrSet) -> AddrSet {
        let c = o.complement();
        AddrSet {
            v4: intersect(&normalize(self.v4.clone()), &c.v4),
            v6: intersect(&normalize(self.v6.clone()), &c.v6),
        }
    }
}

/// A set of ports as sorted, merged, inclusive ranges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PortSet {
    /// Ranges.
    pub ranges: Vec<(u16, u16)>,
}

impl PortSet {
    fn normalized(v: Vec<(u16, u16)>) -> Self {
        PortSet {
            ranges: normalize(v),
        }
    }

    fn complement(&self) -> PortSet {
        PortSet {
            ranges: complement(&normalize(self.ranges.clone()), 0, u16::MAX),
        }
    }

    fn intersect(&self, o: &PortSet) -> PortSet {
        PortSet {
            ranges: intersect(&self.ranges, &o.ranges),
        }
    }

    /// Membership test.
    pub fn contains(&self, p: u16) -> bool {
        self.ranges.iter().any(|&(l, h)| l <= p && p <= h)
    }

    /// True if every port is in the set.
    pub fn is_any(&self) -> bool {
        self.ranges == [(0, 65535)]
    }
}

impl fmt::Display for IpNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let full = if self.addr.is_ipv4() { 32 } else { 128 };
        if self.prefix == full {
            write!(f, "{}", self.addr)
        } else {
            write!(f, "{}/{}", self.addr, self.prefix)
        }
    }
}

impl fmt::Display for AddrExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddrExpr::Any => f.write_str("any"),
            AddrExpr::Var(n) => write!(f, "${n}"),
            AddrExpr::Net(n) => write!(f, "{n}"),
            AddrExpr::Range(a, b) => write!(f, "{a}-{b}"),
            AddrExpr::Not(e) => write!(f, "!{e}"),
            AddrExpr::List(l) => {
                f.write_str("[")?;
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Display for PortExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortExpr::Any => f.write_str("any"),
            PortExpr::Var(n) => write!(f, "${n}"),
            PortExpr::Port(p) => write!(f, "{p}"),
            PortExpr::Range(a, b) => write!(f, "{a}:{b}"),
            PortExpr::Not(e) => write!(f, "!{e}"),
            PortExpr::List(l) => {
                f.write_str("[")?;
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// An unspecified IPv6 address, used in tests and defaults.
pub const V6_ANY: Ipv6Addr = Ipv6Addr::UNSPECIFIED;

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn parse_addresses() {
        assert_eq!(AddrExpr::parse("any").unwrap(), AddrExpr::Any);
        assert_eq!(
            AddrExpr::parse("$HOME_NET").unwrap(),
            AddrExpr::Var("HOME_NET".into())
        );
        assert_eq!(
            AddrExpr::parse("10.0.0.0/255.0.0.0").unwrap(),
            AddrExpr::Net(IpNet {
                addr: ip("10.0.0.0"),
                prefix: 8
            })
        );
        let e =
            AddrExpr::parse("[1.2.3.4, ![5.6.7.0/24,$X], 2001:db8::/32, 1.1.1.1-1.1.1.9]").unwrap();
        assert_eq!(
            e.to_string(),
            "[1.2.3.4,![5.6.7.0/24,$X],2001:db8::/32,1.1.1.1-1.1.1.9]"
        );
        assert_eq!(AddrExpr::parse(&e.to_string()).unwrap(), e);
        for bad in [
            "",
            "[1.2.3.4",
            "1.2.3.4]",
            "[1.2.3.4,]",
            "1.2.3.4/33",
            "10.0.0.0/255.0.255.0",
            "$",
            "x",
            "2.2.2.2-1.1.1.1",
        ] {
            assert!(AddrExpr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parse_ports() {
        assert_eq!(
            PortExpr::parse("1024:").unwrap(),
            PortExpr::Range(1024, 65535)
        );
        assert_eq!(PortExpr::parse(":80").unwrap(), PortExpr::Range(0, 80));
        let e = PortExpr::parse("[80,!81, $HTTP_PORTS,[1:3]]").unwrap();
        assert_eq!(PortExpr::parse(&e.to_string()).unwrap(), e);
        for bad in ["", "65536", "90:80", ":", "[80", "a"] {
            assert!(PortExpr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolve_with_vars() {
        let vars = Vars::suricata_default();
        let home = AddrExpr::parse("$HOME_NET")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(home.contains(ip("10.1.2.3")));
        assert!(!home.contains(ip("8.8.8.8")));
        let ext = AddrExpr::parse("$EXTERNAL_NET")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(ext.contains(ip("8.8.8.8")));
        // `!$HOME_NET` negates IPv4 networks: no IPv6 address (Suricata 7.0.10, see
        // tests/parity/cases/iponly-ipv6-*).
        assert!(!ext.contains(ip("::1")));
        assert!(!ext.contains(ip("192.168.1.1")));
        let l = AddrExpr::parse("[10.0.0.0/8,!10.1.1.1]")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(l.contains(ip("10.1.1.2")) && !l.contains(ip("10.1.1.1")));
        assert!(AddrExpr::parse("!any").unwrap().resolve(&vars).is_err());
        assert!(AddrExpr::parse("$NOPE").unwrap().resolve(&vars).is_err());
        let p = PortExpr::parse("$FILE_DATA_PORTS")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(p.contains(80) && p.contains(143) && !p.contains(81));
        let p = PortExpr::parse("[1:100,!50]")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(p.contains(49) && !p.contains(50) && !p.contains(101));
        let p = PortExpr::parse("$SHELLCODE_PORTS")
            .unwrap()
            .resolve(&vars)
            .unwrap();
        assert!(!p.contains(80) && p.contains(81));
        assert!(PortExpr::parse("[80,!80]").unwrap().resolve(&vars).is_err());
    }

    #[test]
    fn negation_stays_in_its_families() {
        let vars = Vars::suricata_default();
        let set = |e: &str| AddrExpr::parse(e).unwrap().resolve(&vars);
        let n = set("!2001:db8::1").unwrap();
        assert!(n.contains(ip("2001:db8::2")) && !n.contains(ip("2001:db8::1")));
        assert!(!n.contains(ip("10.0.0.1")));
        let n = set("[!10.0.0.1]").unwrap();
        assert!(n.contains(ip("10.0.0.2")) && !n.contains(ip("::1")));
        let n = set("![2001:db8::/32,10.0.0.0/8]").unwrap();
        assert!(n.contains(ip("2001:db9::1")) && n.contains(ip("192.0.2.1")));
        assert!(!n.contains(ip("2001:db8::1")) && !n.contains(ip("10.0.0.1")));
        let n = set("[2001:db8::1-2001:db8::ff,!2001:db8::10-2001:db8::20]").unwrap();
        assert!(n.contains(ip("2001:db8::21")) && !n.contains(ip("2001:db8::15")));
        // Lists that merge to nothing are refused, nested ones too.
        assert!(set("!::/0").is_err());
        assert!(set("[2001:db8::/32,!2001:db8::/32]").is_err());
        assert!(set("![2001:db8::1,!2001:db8::/32]").is_err());
    }

    #[test]
    fn uses_reports_negations_and_ipv6_ranges() {
        let vars = Vars::suricata_default();
        let u = |e: &str| AddrExpr::parse(e).unwrap().uses(&vars);
        assert_eq!(u("$HOME_NET"), AddrUse::default());
        assert!(u("$EXTERNAL_NET").negation);
        assert!(u("[1.2.3.4,!5.6.7.8]").negation);
        assert!(!u("1.2.3.4-1.2.3.9").ipv6_range);
        let r = u("[2001:db8::1-2001:db8::5]");
        assert!(r.ipv6_range && !r.negation);
        assert!(
            u("![2001:db8::1-2001:db8::5]")
                .or(AddrUse::default())
                .negation
        );
    }

    #[test]
    fn variable_loops_are_caught() {
        let mut vars = Vars::default();
        vars.set_address("A", "[$B]");
        vars.set_address("B", "$A");
        let e = AddrExpr::parse("$A").unwrap().resolve(&vars).unwrap_err();
        assert!(e.contains("nested"), "{e}");
    }

    #[test]
    fn deep_nesting_is_capped() {
        let s = format!("{}1.2.3.4{}", "[".repeat(1000), "]".repeat(1000));
        assert!(AddrExpr::parse(&s).is_err());
        let s = "!".repeat(10_000) + "80";
        assert!(PortExpr::parse(&s).is_err());
    }
}
