//! Reads Suricata's `host-os-policy` section (policy name → list of nets) into the
//! table the defragmenter and the stream reassembly look hosts up in.

use ::config::Config;
use flow::host_policy::{HostPolicy, POLICY_NAMES};
use std::sync::Arc;

/// The `host-os-policy` table of this configuration (empty when the section is
/// absent: every host then gets the built-in default, BSD). Entries that cannot be
/// used are warned about and skipped, as Suricata does.
pub(crate) fn read(config: &Config) -> Arc<HostPolicy> {
    let lists: Vec<(&str, Vec<String>)> = POLICY_NAMES
        .iter()
        .filter_map(|n| Some((*n, config.get_list(&format!("host-os-policy.{n}"))?)))
        .collect();
    let (table, errors) = HostPolicy::build(
        lists
            .iter()
            .map(|(n, v)| (*n, v.iter().map(String::as_str))),
    );
    for e in errors {
        tracing::warn!("{e}");
    }
    Arc::new(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flow::OverlapPolicy;

    fn v4(s: &str) -> [u8; 16] {
        let mut a = [0; 16];
        a[..4].copy_from_slice(&s.parse::<std::net::Ipv4Addr>().unwrap().octets());
        a
    }

    #[test]
    fn stock_section_and_ipv6_nets() {
        let y = "host-os-policy:\n  windows: [0.0.0.0/0]\n  bsd: []\n  linux: [10.0.0.0/8, \"2001:db8::/32\"]\n  solaris: 192.168.0.1\n";
        let t = read(&Config::parse(y, None).unwrap());
        assert_eq!(t.defrag(true, &v4("8.8.8.8")), Some(OverlapPolicy::Windows));
        assert_eq!(t.stream(true, &v4("8.8.8.8")), Some(OverlapPolicy::Bsd));
        assert_eq!(
            t.defrag(true, &v4("10.2.3.4")),
            Some(OverlapPolicy::OldLinux)
        );
        assert_eq!(t.stream(true, &v4("10.2.3.4")), Some(OverlapPolicy::Linux));
        assert_eq!(
            t.defrag(true, &v4("192.168.0.1")),
            Some(OverlapPolicy::SolarisFrag)
        );
        let a6 = "2001:db8::7"
            .parse::<std::net::Ipv6Addr>()
            .unwrap()
            .octets();
        assert_eq!(t.stream(false, &a6), Some(OverlapPolicy::Linux));
        assert_eq!(t.defrag(false, &[0; 16]), None);
    }

    #[test]
    fn absent_section_is_empty() {
        assert!(read(&Config::parse("stream: {}\n", None).unwrap()).is_empty());
    }
}
