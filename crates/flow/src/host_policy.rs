//! Suricata's `host-os-policy`: which IP stack a host runs, by network, and so how
//! overlapping IP fragments and TCP segments sent to it are reassembled. The table is
//! built once from the configuration and shared (an [`Arc`]) by every worker; the
//! defragmenter looks up each datagram's destination, the stream reassembly the host
//! receiving the segments. The longest matching prefix wins; an address no net covers
//! has no entry (the caller's default applies: BSD).
//!
//! One OS name gives two policies: Suricata 7.0.10's defragmenter and its stream
//! engine do not resolve the same names alike (found by running it on every overlap
//! shape under every name: `windows` keeps the old fragment bytes unless a new
//! fragment covers them whole, but lets a new TCP segment that starts earlier win, as
//! `bsd` does). See [`defrag_policy`] and [`stream_policy`].
//!
//! [`Arc`]: std::sync::Arc

use crate::reasm::OverlapPolicy;
use std::net::{IpAddr, Ipv4Addr};

/// The names Suricata's `host-os-policy` section accepts, in the order Suricata
/// documents them.
pub const POLICY_NAMES: [&str; 13] = [
    "bsd",
    "bsd-right",
    "old-linux",
    "linux",
    "old-solaris",
    "solaris",
    "hpux10",
    "hpux11",
    "irix",
    "macos",
    "vista",
    "windows2k3",
    "windows",
];

/// How Suricata 7.0.10's defragmenter reassembles overlapping fragments sent to a
/// host of this `host-os-policy` name (`None`: not a name Suricata accepts).
pub fn defrag_policy(name: &str) -> Option<OverlapPolicy> {
    Some(match name {
        "bsd" | "hpux10" | "irix" => OverlapPolicy::Bsd,
        "bsd-right" => OverlapPolicy::BsdRight,
        "linux" | "old-linux" => OverlapPolicy::OldLinux,
        "solaris" => OverlapPolicy::SolarisFrag,
        "old-solaris" | "hpux11" | "macos" => OverlapPolicy::First,
        "windows" | "windows2k3" | "vista" => OverlapPolicy::Windows,
        _ => return None,
    })
}

/// How Suricata 7.0.10's stream engine reassembles overlapping TCP segments sent to a
/// host of this `host-os-policy` name (`None`: not a name Suricata accepts).
pub fn stream_policy(name: &str) -> Option<OverlapPolicy> {
    Some(match name {
        "bsd" | "bsd-right" | "hpux10" | "irix" | "macos" | "windows" | "windows2k3" => {
            OverlapPolicy::Bsd
        }
        "linux" => OverlapPolicy::Linux,
        "old-linux" => OverlapPolicy::OldLinux,
        "solaris" | "old-solaris" | "hpux11" => OverlapPolicy::SolarisStream,
        "vista" => OverlapPolicy::First,
        _ => return None,
    })
}

/// One net: address bits (IPv4 in the low 32 bits), prefix length, and the policies
/// of its hosts (defragmentation, stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Net {
    addr: u128,
    prefix: u8,
    policy: (OverlapPolicy, OverlapPolicy),
}

/// An immutable host → overlap policy table (longest prefix wins).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostPolicy {
    /// IPv4 nets, longest prefix first.
    v4: Vec<Net>,
    /// IPv6 nets, longest prefix first.
    v6: Vec<Net>,
}

impl HostPolicy {
    /// Builds the table from `(policy name, nets)` pairs as the configuration lists
    /// them (`windows: [0.0.0.0/0, "2001:db8::/32"]`). A net listed twice keeps its
    /// last policy. Returns the table and one message per entry that was ignored (an
    /// unknown policy name, an address or prefix that does not parse).
    pub fn build<'a, I, N>(entries: I) -> (HostPolicy, Vec<String>)
    where
        I: IntoIterator<Item = (&'a str, N)>,
        N: IntoIterator<Item = &'a str>,
    {
        let mut t = HostPolicy::default();
        let mut errors = Vec::new();
        for (name, nets) in entries {
            let policy = match defrag_policy(name).zip(stream_policy(name)) {
                Some(p) => p,
                None => {
                    for n in nets {
                        errors.push(format!(
                            "host-os-policy: unsupported policy {name:?} for {n}"
                        ));
                    }
                    continue;
                }
            };
            for n in nets {
                match parse_net(n) {
                    Some((true, addr, prefix)) => push(
                        &mut t.v4,
                        Net {
                            addr,
                            prefix,
                            policy,
                        },
                    ),
                    Some((false, addr, prefix)) => push(
                        &mut t.v6,
                        Net {
                            addr,
                            prefix,
                            policy,
                        },
                    ),
                    None => errors.push(format!("host-os-policy: invalid address {n:?} ({name})")),
                }
            }
        }
        for v in [&mut t.v4, &mut t.v6] {
            // Stable: among equal prefixes the order of the configuration is kept.
            v.sort_by_key(|n| std::cmp::Reverse(n.prefix));
        }
        (t, errors)
    }

    /// Whether no net is listed.
    pub fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    /// The defragmentation policy of the host at `addr` (IPv4 in the first 4 bytes
    /// when `v4`), `None` when no listed net covers it.
    pub fn defrag(&self, v4: bool, addr: &[u8; 16]) -> Option<OverlapPolicy> {
        self.find(v4, addr).map(|p| p.0)
    }

    /// The stream reassembly policy of the host at `addr` (IPv4 in the first 4 bytes
    /// when `v4`), `None` when no listed net covers it.
    pub fn stream(&self, v4: bool, addr: &[u8; 16]) -> Option<OverlapPolicy> {
        self.find(v4, addr).map(|p| p.1)
    }

    fn find(&self, v4: bool, addr: &[u8; 16]) -> Option<(OverlapPolicy, OverlapPolicy)> {
        let (nets, a, bits) = if v4 {
            let a = u32::from_be_bytes([addr[0], addr[1], addr[2], addr[3]]);
            (&self.v4, a as u128, 32)
        } else {
            (&self.v6, u128::from_be_bytes(*addr), 128)
        };
        nets.iter()
            .find(|n| a & mask(n.prefix, bits) == n.addr)
            .map(|n| n.policy)
    }
}

/// Adds `n`, replacing an entry for the same net.
fn push(v: &mut Vec<Net>, n: Net) {
    match v
        .iter_mut()
        .find(|o| o.addr == n.addr && o.prefix == n.prefix)
    {
        Some(o) => o.policy = n.policy,
        None => v.push(n),
    }
}

/// The mask of a `prefix`-bit net in a `bits`-bit address.
fn mask(prefix: u8, bits: u32) -> u128 {
    let all = if bits == 32 {
        u32::MAX as u128
    } else {
        u128::MAX
    };
    if prefix == 0 {
        0
    } else {
        all & !(all >> prefix as u32)
    }
}

/// `addr` or `addr/prefix`: (is IPv4, masked address bits, prefix length).
fn parse_net(s: &str) -> Option<(bool, u128, u8)> {
    let s = s.trim();
    let (a, p) = match s.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (s, None),
    };
    let (v4, bits, addr) = match a.trim().parse::<IpAddr>().ok()? {
        IpAddr::V4(x) => (true, 32u32, u32::from(x) as u128),
        IpAddr::V6(x) => (false, 128, u128::from(x)),
    };
    let prefix = match p {
        None => bits,
        Some(p) => match p.trim().parse::<u32>() {
            Ok(n) if n <= bits => n,
            // A dotted netmask (`10.0.0.0/255.0.0.0`).
            _ if v4 => {
                let m = u32::from(p.trim().parse::<Ipv4Addr>().ok()?);
                if m.leading_ones() + m.trailing_zeros() != 32 {
                    return None;
                }
                m.leading_ones()
            }
            _ => return None,
        },
    } as u8;
    Some((v4, addr & mask(prefix, bits), prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;

    fn a4(s: &str) -> [u8; 16] {
        let mut a = [0; 16];
        a[..4].copy_from_slice(&s.parse::<Ipv4Addr>().unwrap().octets());
        a
    }

    fn a6(s: &str) -> [u8; 16] {
        s.parse::<Ipv6Addr>().unwrap().octets()
    }

    #[test]
    fn stock_config_is_windows_for_every_ipv4_host() {
        let (t, e) = HostPolicy::build([("windows", vec!["0.0.0.0/0"]), ("bsd", vec![])]);
        assert!(e.is_empty());
        assert_eq!(
            t.defrag(true, &a4("10.1.2.3")),
            Some(OverlapPolicy::Windows)
        );
        // Suricata's stream keeps BSD's outcome under `windows`.
        assert_eq!(t.stream(true, &a4("10.1.2.3")), Some(OverlapPolicy::Bsd));
        assert_eq!(
            t.defrag(true, &a4("255.255.255.255")),
            Some(OverlapPolicy::Windows)
        );
        // No IPv6 net listed: the caller's default.
        assert_eq!(t.defrag(false, &a6("2001:db8::1")), None);
    }

    #[test]
    fn longest_prefix_wins_whatever_the_order() {
        let (t, e) = HostPolicy::build([
            ("linux", vec!["10.0.0.5", "2001:db8:1::/48"]),
            ("solaris", vec!["10.0.0.0/8", "2001:db8::/32"]),
            ("vista", vec!["10.0.0.0/24"]),
            ("hpux11", vec!["::/0"]),
        ]);
        assert!(e.is_empty());
        assert_eq!(
            t.defrag(true, &a4("10.0.0.5")),
            Some(OverlapPolicy::OldLinux)
        );
        assert_eq!(t.stream(true, &a4("10.0.0.5")), Some(OverlapPolicy::Linux));
        assert_eq!(
            t.defrag(true, &a4("10.0.0.6")),
            Some(OverlapPolicy::Windows)
        );
        assert_eq!(t.stream(true, &a4("10.0.0.6")), Some(OverlapPolicy::First));
        assert_eq!(
            t.defrag(true, &a4("10.9.0.6")),
            Some(OverlapPolicy::SolarisFrag)
        );
        assert_eq!(
            t.stream(true, &a4("10.9.0.6")),
            Some(OverlapPolicy::SolarisStream)
        );
        assert_eq!(t.defrag(true, &a4("11.0.0.1")), None);
        assert_eq!(
            t.stream(false, &a6("2001:db8:1::9")),
            Some(OverlapPolicy::Linux)
        );
        assert_eq!(
            t.defrag(false, &a6("2001:db8:2::9")),
            Some(OverlapPolicy::SolarisFrag)
        );
        assert_eq!(t.defrag(false, &a6("fe80::1")), Some(OverlapPolicy::First));
    }

    #[test]
    fn host_bits_netmasks_and_errors() {
        let (t, e) = HostPolicy::build([
            ("bsd", vec!["192.168.1.77/16", "172.16.0.0/255.240.0.0"]),
            ("nonsense", vec!["1.2.3.4"]),
            (
                "windows",
                vec!["1.2.3.4/33", "not-an-ip", "172.16.0.0/255.0.255.0"],
            ),
        ]);
        assert_eq!(e.len(), 4, "{e:?}");
        assert_eq!(
            t.defrag(true, &a4("192.168.200.1")),
            Some(OverlapPolicy::Bsd)
        );
        assert_eq!(t.defrag(true, &a4("172.31.0.1")), Some(OverlapPolicy::Bsd));
        assert_eq!(t.defrag(true, &a4("1.2.3.4")), None);
        assert!(!t.is_empty());
        assert!(HostPolicy::build([("windows", Vec::<&str>::new())])
            .0
            .is_empty());
    }

    #[test]
    fn a_net_listed_twice_keeps_its_last_policy() {
        let (t, _) =
            HostPolicy::build([("windows", vec!["0.0.0.0/0"]), ("linux", vec!["0.0.0.0/0"])]);
        assert_eq!(
            t.defrag(true, &a4("8.8.8.8")),
            Some(OverlapPolicy::OldLinux)
        );
    }

    #[test]
    fn defragmenter_uses_the_destination_policy() {
        use crate::defrag::{Defrag, DefragConfig, DefragResult, FragKey, Fragment};
        use crate::key::Family;
        use std::sync::Arc;
        let (t, _) =
            HostPolicy::build([("windows", vec!["10.0.0.0/8"]), ("linux", vec!["10.0.0.2"])]);
        let mut d = Defrag::new(DefragConfig::default()).with_host_policy(Arc::new(t));
        let mut hdr = [0u8; 20];
        hdr[0] = 0x45;
        hdr[9] = 17;
        let mut run = |dst: &str| {
            let key = FragKey {
                src: a4("10.9.9.9"),
                dst: a4(dst),
                id: 7,
                proto: 17,
                family: Family::V4,
                vlan: 0,
            };
            let f = |offset, more, data: &'static [u8]| Fragment {
                key,
                offset,
                more,
                data,
                header: &hdr,
                v6_next: None,
                ts_us: 0,
            };
            // Old [8,16), then a new [0,12) that starts before and ends inside it.
            d.insert(&f(8, true, b"OOOOOOOO"));
            d.insert(&f(0, true, b"NNNNNNNNNNNN"));
            match d.insert(&f(16, false, b"FF")) {
                DefragResult::Reassembled(b) => b[20..].to_vec(),
                r => panic!("{r:?}"),
            }
        };
        assert_eq!(
            run("10.0.0.1"),
            b"NNNNNNNNOOOOOOOOFF",
            "windows keeps the old bytes"
        );
        assert_eq!(
            run("10.0.0.2"),
            b"NNNNNNNNNNNNOOOOFF",
            "linux: the new start wins"
        );
        assert_eq!(run("11.0.0.1"), b"NNNNNNNNNNNNOOOOFF", "unlisted: bsd");
    }
}
