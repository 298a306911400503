//! `geoip`: the packet's IPv4 addresses looked up in a MaxMind DB (`geoip-database`,
//! a GeoLite2/GeoIP2 Country or City database) for their `country.iso_code`, as
//! Suricata 7.0.10 does. Semantics checked against Suricata with the test database
//! `tests/data/geoip-test.mmdb`: `src`/`dst` look at one address, `both` needs each
//! address's country in the list, `any` (the default) either; a negated list (`!US`)
//! matches an address whose country is known and not in the list (an address the
//! database does not know matches neither form). IPv6 packets never match (Suricata
//! 7's `geoip` looks up IPv4 only).

use rules::IpSide;
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::Arc;

/// An opened MaxMind database, shared by the rules.
pub struct GeoDb {
    reader: maxminddb::Reader<Vec<u8>>,
}

impl std::fmt::Debug for GeoDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeoDb")
            .field("type", &self.reader.metadata().database_type)
            .finish()
    }
}

impl GeoDb {
    /// Reads the database at `path` (the whole file, checked as a MaxMind DB).
    pub fn open(path: &Path) -> Result<GeoDb, String> {
        maxminddb::Reader::open_readfile(path)
            .map(|reader| GeoDb { reader })
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The database's `database_type` (`GeoLite2-Country`, ...).
    pub fn kind(&self) -> &str {
        &self.reader.metadata().database_type
    }

    /// The ISO country code of `ip`, when the database has one (a lookup error is
    /// answered as unknown).
    pub fn country(&self, ip: Ipv4Addr) -> Option<&str> {
        let r = self.reader.lookup(ip.into()).ok()?;
        r.decode_path::<&str>(&[
            maxminddb::PathElement::Key("country"),
            maxminddb::PathElement::Key("iso_code"),
        ])
        .ok()
        .flatten()
    }
}

/// A compiled `geoip`.
#[derive(Debug, Clone)]
pub(crate) struct GeoC {
    side: IpSide,
    countries: Vec<String>,
    negated: bool,
    db: Arc<GeoDb>,
}

impl GeoC {
    /// `geoip` on `db`.
    pub(crate) fn new(side: IpSide, countries: &[String], negated: bool, db: Arc<GeoDb>) -> GeoC {
        GeoC {
            side,
            countries: countries.to_vec(),
            negated,
            db,
        }
    }

    fn one(&self, a: &[u8; 16]) -> bool {
        let ip = Ipv4Addr::new(a[0], a[1], a[2], a[3]);
        match self.db.country(ip) {
            None => false,
            Some(c) => self.countries.iter().any(|x| x == c) != self.negated,
        }
    }

    /// Evaluates on the packet's addresses.
    pub(crate) fn matches(&self, p: &wire::Packet) -> bool {
        if p.ip_version != 4 {
            return false;
        }
        let (src, dst) = (|| self.one(&p.src), || self.one(&p.dst));
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

    fn db() -> Arc<GeoDb> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/geoip-test.mmdb");
        Arc::new(GeoDb::open(&p).expect("the test database opens"))
    }

    fn pkt(src: [u8; 4], dst: [u8; 4]) -> wire::Packet {
        let mut p = wire::Packet {
            ip_version: 4,
            ..wire::Packet::default()
        };
        p.src[..4].copy_from_slice(&src);
        p.dst[..4].copy_from_slice(&dst);
        p
    }

    #[test]
    fn countries_of_the_test_database() {
        let d = db();
        assert_eq!(d.kind(), "GeoIP2-Country");
        assert_eq!(d.country(Ipv4Addr::new(192, 168, 56, 104)), Some("US"));
        assert_eq!(d.country(Ipv4Addr::new(192, 168, 10, 31)), Some("CA"));
        assert_eq!(d.country(Ipv4Addr::new(10, 10, 200, 1)), Some("GB"));
        assert_eq!(d.country(Ipv4Addr::new(172, 31, 9, 1)), Some("DE"));
        assert_eq!(d.country(Ipv4Addr::new(172, 32, 0, 1)), None);
        assert_eq!(d.country(Ipv4Addr::new(8, 8, 8, 8)), None);
    }

    #[test]
    fn sides_and_negation() {
        let d = db();
        let g = |side, cs: &[&str], neg| {
            let cs: Vec<String> = cs.iter().map(|c| c.to_string()).collect();
            GeoC::new(side, &cs, neg, d.clone())
        };
        let us_ca = pkt([192, 168, 56, 1], [192, 168, 10, 1]);
        let us_none = pkt([192, 168, 56, 1], [8, 8, 8, 8]);
        assert!(g(IpSide::Src, &["US"], false).matches(&us_ca));
        assert!(!g(IpSide::Dst, &["US"], false).matches(&us_ca));
        assert!(g(IpSide::Any, &["CA"], false).matches(&us_ca));
        assert!(!g(IpSide::Both, &["US"], false).matches(&us_ca));
        assert!(g(IpSide::Both, &["US", "CA"], false).matches(&us_ca));
        assert!(g(IpSide::Dst, &["US"], true).matches(&us_ca));
        // An address without a country matches neither form.
        assert!(!g(IpSide::Dst, &["US"], true).matches(&us_none));
        assert!(!g(IpSide::Dst, &["US"], false).matches(&us_none));
        let mut v6 = us_ca;
        v6.ip_version = 6;
        assert!(!g(IpSide::Any, &["US", "CA"], false).matches(&v6));
    }
}
