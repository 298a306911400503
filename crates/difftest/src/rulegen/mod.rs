//! The rule generator: families of templates, each writing a rule with edge values for
//! some keywords of the registry (`rules::keywords`) and the payload and packet fields
//! that hit it or just miss it. [`FAMILIES`] names the keywords each family exercises;
//! [`uncovered`] lists the registry's keywords no family writes yet.

use gen::rng::Rng;

use crate::case::{Intent, Spec, L4};

mod accept;
mod addr;
mod b64;
mod bytes;
mod flowkw;
mod hdr;
mod header;
mod iprep;
mod lists;
mod luakw;
mod meta;
mod payload;
mod replace;
mod state;

/// A family of templates: its name, the registry keywords its rules use, its weight in a
/// batch, and the function that writes one case for a case index.
pub struct Family {
    /// Name (the first part of a template's name).
    pub name: &'static str,
    /// Keywords (as the registry names them) its rules use.
    pub keywords: &'static [&'static str],
    /// Relative share of a batch (0: drawn only when named in `--families`).
    pub weight: u32,
    /// Writes one case.
    pub make: fn(&mut Gen<'_>) -> Spec,
}

/// What a family's function gets: the random source and the case index.
pub struct Gen<'a> {
    /// Random numbers.
    pub rng: &'a mut Rng,
    /// The case's index in the batch (its addresses follow from it).
    pub index: u32,
}

impl Gen<'_> {
    /// Hit or miss, half each.
    pub fn intent(&mut self) -> Intent {
        if self.rng.chance(0.5) {
            Intent::Hit
        } else {
            Intent::Miss
        }
    }

    /// IPv6 for about a third of the cases.
    pub fn v6(&mut self) -> bool {
        self.rng.chance(0.33)
    }

    /// TCP or UDP.
    pub fn tcp_or_udp(&mut self) -> (L4, &'static str) {
        if self.rng.chance(0.6) {
            (L4::Tcp, "tcp")
        } else {
            (L4::Udp, "udp")
        }
    }

    /// A number in `lo..=hi`.
    pub fn num(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.range(lo, hi)
    }

    /// `lo..=hi` as usize.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        self.rng.range(lo as u64, hi as u64) as usize
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *self.rng.pick(items)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.chance(p)
    }

    /// `n` random filler bytes: lowercase letters and digits from the first half of the
    /// alphabet, so needles drawn from the second half never occur by chance.
    pub fn filler(&mut self, n: usize) -> Vec<u8> {
        const A: &[u8] = b"abcdefghijkl0123456789";
        (0..n).map(|_| *self.rng.pick(A)).collect()
    }

    /// A needle of `n` bytes from letters the filler never uses.
    pub fn needle(&mut self, n: usize) -> Vec<u8> {
        const A: &[u8] = b"mnopqrstuvwxyz";
        (0..n).map(|_| *self.rng.pick(A)).collect()
    }
}

/// The families of a batch.
pub static FAMILIES: &[Family] = &[
    payload::CONTENT,
    payload::RELATIVE,
    payload::MODIFIERS,
    payload::ISDATAAT,
    payload::DSIZE,
    payload::PCRE,
    bytes::BYTE_TEST,
    bytes::BYTE_JUMP,
    bytes::BYTE_EXTRACT,
    bytes::BYTE_MATH,
    header::TTL_TOS_ID,
    header::IPOPTS,
    header::FRAGBITS,
    header::FLAGS,
    header::TCP_FIELDS,
    header::ICMP,
    header::FLOW,
    addr::ADDRESSES,
    addr::PORTS,
    hdr::HDR,
    state::STATE,
    meta::META,
    flowkw::FLOWKW,
    accept::ACCEPT,
    b64::B64,
    lists::LISTS,
    luakw::LUA,
    iprep::IPREP,
    replace::REPLACE,
];

/// Writes the spec of case `index`: a family drawn by weight, then its template.
pub fn spec(rng: &mut Rng, index: u32) -> Spec {
    spec_among(rng, index, &[])
}

/// As [`spec`], drawing only among the families named in `only` (all when empty).
pub fn spec_among(rng: &mut Rng, index: u32, only: &[String]) -> Spec {
    let chosen: Vec<&Family> = FAMILIES
        .iter()
        .chain(crate::flows::FAMILIES.iter())
        .filter(|f| only.is_empty() || only.iter().any(|o| o == f.name))
        .collect();
    let chosen = if chosen.is_empty() {
        FAMILIES.iter().collect()
    } else {
        chosen
    };
    // A family of weight 0 is drawn only when named (kept out of the default draw, so
    // of the CI batch); named, it weighs 1.
    let weight = |f: &Family| {
        if only.is_empty() {
            f.weight
        } else {
            f.weight.max(1)
        }
    };
    let total: u32 = chosen.iter().map(|f| weight(f)).sum();
    let mut r = rng.below(u64::from(total)) as u32;
    let fam = chosen
        .iter()
        .find(|f| {
            let w = weight(f);
            if r < w {
                true
            } else {
                r -= w;
                false
            }
        })
        .unwrap_or(&chosen[0]);
    let mut g = Gen { rng, index };
    let mut s = (fam.make)(&mut g);
    s.template = format!("{}/{}", fam.name, s.template);
    s
}

/// Keywords of the registry no family writes (options that match something: metadata,
/// protocol keywords and sticky buffers of protocols the traffic has no parser traffic
/// for are listed too, so this is the to-do list of the generator).
pub fn uncovered() -> Vec<&'static str> {
    let used: std::collections::HashSet<&str> = FAMILIES
        .iter()
        .chain(crate::flows::FAMILIES.iter())
        .flat_map(|f| f.keywords.iter().copied())
        .collect();
    let mut v: Vec<&'static str> = rules::keywords::all()
        .map(|k| k.name)
        .filter(|n| !used.contains(n))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A spec with the defaults every family starts from.
pub fn base(template: &str, intent: Intent, v6: bool, l4: L4, proto: &'static str) -> Spec {
    Spec {
        template: template.to_string(),
        intent,
        v6,
        l4,
        proto,
        header: None,
        opts: String::new(),
        payload: Vec::new(),
        tweaks: Default::default(),
        script: None,
        files: Vec::new(),
        setup: None,
    }
}

/// Rule text of a content: printable bytes as they are, others (and `;`, `"`, `\`,
/// `|`, `:`) in a `|..|` hex block.
pub fn content_text(b: &[u8]) -> String {
    let mut s = String::new();
    let mut hex = false;
    for &c in b {
        let plain = c.is_ascii_graphic() && !b";\"\\|:".contains(&c) || c == b' ';
        if plain {
            if hex {
                s.push('|');
                hex = false;
            }
            s.push(c as char);
        } else {
            if !hex {
                s.push('|');
                hex = true;
            } else {
                s.push(' ');
            }
            s.push_str(&format!("{c:02X}"));
        }
    }
    if hex {
        s.push('|');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_keyword_is_in_the_registry() {
        for f in FAMILIES {
            for k in f.keywords {
                assert!(
                    rules::keywords::find(k).is_some(),
                    "{}: {k} is not a registry keyword",
                    f.name
                );
            }
        }
        assert!(!uncovered().contains(&"byte_jump"));
    }

    /// Every registry keyword is written by some family (a keyword added to the
    /// registry without a family shows up here).
    #[test]
    fn every_registry_keyword_is_written() {
        assert_eq!(uncovered(), Vec::<&str>::new());
    }

    #[test]
    fn generated_rules_parse_with_the_rules_crate_mostly() {
        let mut rng = Rng::new(7);
        let mut loaded = 0;
        for i in 0..2000 {
            let s = spec(&mut rng, i);
            let c = crate::case::Case {
                index: i,
                addrs: crate::case::Addrs::of(i, s.v6),
                spec: s,
            };
            loaded += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        // Edge values Suricata rejects are written on purpose, but most rules are valid.
        assert!(loaded > 1700, "only {loaded} of 2000 generated rules parse");
    }

    #[test]
    fn content_text_escapes() {
        assert_eq!(content_text(b"ab;\x00c"), "ab|3B 00|c");
    }
}
