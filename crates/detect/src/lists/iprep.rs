//! IP reputation (`iprep`): categories from `reputation-categories-file`
//! (`id,short name,description`, ids 0 to 59) and scores from `reputation-files`
//! (`address[/prefix],category id,score`, scores 0 to 127). A lookup takes the most
//! specific entry holding the address (a host, else the narrowest network), as
//! Suricata 7 does.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;

/// Most categories Suricata allows.
pub const MAX_CATEGORIES: u8 = 60;

/// Networks of one family and prefix length: network -> (category, score) list.
type Networks = HashMap<u128, Vec<(u8, u8)>>;

/// The loaded reputation data.
#[derive(Debug, Default)]
pub struct IpRep {
    /// Short name -> category id.
    categories: HashMap<String, u8>,
    /// Per (is IPv6, prefix length), network -> (category, score) list; prefix lengths
    /// kept longest first in `lens`.
    nets: HashMap<(bool, u8), Networks>,
    lens: Vec<(bool, u8)>,
}

fn key(a: IpAddr) -> (bool, u128, u8) {
    match a {
        IpAddr::V4(a) => (false, u32::from(a) as u128, 32),
        IpAddr::V6(a) => (true, u128::from(a), 128),
    }
}

fn mask(v: u128, len: u8, bits: u8) -> u128 {
    if len == 0 {
        return 0;
    }
    let keep = u128::MAX << (bits - len);
    let full = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    v & keep & full
}

impl IpRep {
    /// Reads the categories file's text.
    pub fn parse_categories(&mut self, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut f = line.splitn(3, ',');
            let (Some(id), Some(name)) = (f.next(), f.next()) else {
                return Err(format!("line {}: expected id,name,description", i + 1));
            };
            let id = match id.trim().parse::<u8>() {
                Ok(n) if n < MAX_CATEGORIES => n,
                _ => return Err(format!("line {}: bad category id '{id}'", i + 1)),
            };
            self.categories.insert(name.trim().to_owned(), id);
        }
        Ok(())
    }

    /// Reads one reputation file's text; returns the entries added.
    pub fn parse_reputation(&mut self, text: &str) -> Result<usize, String> {
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |m: &str| format!("line {}: {m}: '{line}'", i + 1);
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let [addr, cat, score] = f[..] else {
                return Err(bad("expected address,category,score"));
            };
            let (ip, plen) = match addr.split_once('/') {
                Some((a, l)) => (a, Some(l)),
                None => (addr, None),
            };
            let ip: IpAddr = ip.parse().map_err(|_| bad("bad address"))?;
            let (v6, v, bits) = key(ip);
            let len = match plen {
                Some(l) => match l.parse::<u8>() {
                    Ok(l) if l <= bits => l,
                    _ => return Err(bad("bad prefix length")),
                },
                None => bits,
            };
            let cat = match cat.parse::<u8>() {
                Ok(c) if self.categories.values().any(|x| *x == c) => c,
                _ => return Err(bad("unknown category")),
            };
            let score = match score.parse::<u8>() {
                Ok(s) if s <= 127 => s,
                _ => return Err(bad("bad score (0 to 127)")),
            };
            let list = self
                .nets
                .entry((v6, len))
                .or_default()
                .entry(mask(v, len, bits))
                .or_default();
            match list.iter_mut().find(|(c, _)| *c == cat) {
                Some(e) => e.1 = score,
                None => list.push((cat, score)),
            }
            if !self.lens.contains(&(v6, len)) {
                self.lens.push((v6, len));
                self.lens.sort_by_key(|l| std::cmp::Reverse(l.1));
            }
            n += 1;
        }
        Ok(n)
    }

    /// Reads the files (reputation files relative to `dir`).
    pub fn load(categories: &Path, files: &[&Path]) -> Result<IpRep, String> {
        let mut r = IpRep::default();
        let text = std::fs::read_to_string(categories)
            .map_err(|e| format!("{}: {e}", categories.display()))?;
        r.parse_categories(&text)
            .map_err(|e| format!("{}: {e}", categories.display()))?;
        for f in files {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            r.parse_reputation(&text)
                .map_err(|e| format!("{}: {e}", f.display()))?;
        }
        Ok(r)
    }

    /// The id of a category by short name.
    pub fn category(&self, name: &str) -> Option<u8> {
        self.categories.get(name).copied()
    }

    /// The score of `a` in category `cat`, from its most specific entry: 0 when that
    /// entry gives the category no score (as Suricata 7.0.10: a listed host is at 0 in
    /// the other categories, difftest `iprep/*`), `None` when `a` is not listed.
    pub fn score(&self, a: IpAddr, cat: u8) -> Option<u8> {
        let (v6, v, bits) = key(a);
        for &(fam, len) in &self.lens {
            if fam != v6 {
                continue;
            }
            if let Some(list) = self
                .nets
                .get(&(fam, len))
                .and_then(|m| m.get(&mask(v, len, bits)))
            {
                return Some(list.iter().find(|(c, _)| *c == cat).map_or(0, |(_, s)| *s));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep() -> IpRep {
        let mut r = IpRep::default();
        r.parse_categories("1,BadHosts,Known bad hosts\n2,Google,Known google host\n")
            .unwrap();
        r.parse_reputation(
            "1.2.3.4,1,101\n1.1.1.1,1,10\n10.0.0.0/8,2,50\n10.1.0.0/16,1,20\n2001:db8::/32,2,7\n",
        )
        .unwrap();
        r
    }

    #[test]
    fn hosts_and_networks() {
        let r = rep();
        let bad = r.category("BadHosts").unwrap();
        let g = r.category("Google").unwrap();
        assert_eq!(r.score("1.2.3.4".parse().unwrap(), bad), Some(101));
        assert_eq!(r.score("1.2.3.5".parse().unwrap(), bad), None);
        assert_eq!(r.score("10.9.9.9".parse().unwrap(), g), Some(50));
        // The /16 is the most specific entry: its categories only, the others at 0.
        assert_eq!(r.score("10.1.2.3".parse().unwrap(), bad), Some(20));
        assert_eq!(r.score("10.1.2.3".parse().unwrap(), g), Some(0));
        assert_eq!(r.score("1.2.3.4".parse().unwrap(), g), Some(0));
        assert_eq!(r.score("2001:db8::5".parse().unwrap(), g), Some(7));
        assert_eq!(r.category("Nope"), None);
    }

    #[test]
    fn bad_lines_are_refused() {
        let mut r = rep();
        assert!(r.parse_reputation("1.2.3.4,9,1").is_err());
        assert!(r.parse_reputation("1.2.3.4,1,200").is_err());
        assert!(r.parse_reputation("1.2.3.4/33,1,2").is_err());
        assert!(r.parse_reputation("nope,1,2").is_err());
        assert!(r.parse_categories("99,X,y").is_err());
    }
}
