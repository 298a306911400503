//! Per-worker decoder counters, named as in Suricata's stats.json.

use crate::event::Event;

macro_rules! counters {
    ($($variant:ident => $name:literal,)*) => {
        /// A plain decoder counter (not an event, not a derived value).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum Counter {
            $($variant,)*
        }

        impl Counter {
            /// Every counter, in discriminant order.
            pub const ALL: &'static [Counter] = &[$(Counter::$variant,)*];
            /// Number of counters.
            pub const COUNT: usize = Counter::ALL.len();
            const NAMES: &'static [&'static str] = &[$($name,)*];

            /// The stats.json name, e.g. `"decoder.ipv4"`.
            pub fn name(self) -> &'static str {
                Counter::NAMES[self as usize]
            }
        }
    };
}

counters! {
    Pkts => "decoder.pkts",
    Bytes => "decoder.bytes",
    Invalid => "decoder.invalid",
    Ipv4 => "decoder.ipv4",
    Ipv6 => "decoder.ipv6",
    Ethernet => "decoder.ethernet",
    Arp => "decoder.arp",
    UnknownEthertype => "decoder.unknown_ethertype",
    Chdlc => "decoder.chdlc",
    Raw => "decoder.raw",
    Null => "decoder.null",
    Sll => "decoder.sll",
    Tcp => "decoder.tcp",
    Udp => "decoder.udp",
    Sctp => "decoder.sctp",
    Esp => "decoder.esp",
    Icmpv4 => "decoder.icmpv4",
    Icmpv6 => "decoder.icmpv6",
    Ppp => "decoder.ppp",
    Pppoe => "decoder.pppoe",
    Geneve => "decoder.geneve",
    Gre => "decoder.gre",
    Vlan => "decoder.vlan",
    VlanQinq => "decoder.vlan_qinq",
    VlanQinqinq => "decoder.vlan_qinqinq",
    Vxlan => "decoder.vxlan",
    Vntag => "decoder.vntag",
    Ieee8021ah => "decoder.ieee8021ah",
    Teredo => "decoder.teredo",
    Ipv4InIpv6 => "decoder.ipv4_in_ipv6",
    Ipv6InIpv6 => "decoder.ipv6_in_ipv6",
    Mpls => "decoder.mpls",
    Erspan => "decoder.erspan",
    Nsh => "decoder.nsh",
    TooManyLayers => "decoder.too_many_layers",
    Ipv4ChecksumBad => "osprey.decoder.ipv4_checksum_bad",
    TcpChecksumBad => "osprey.decoder.tcp_checksum_bad",
    UdpChecksumBad => "osprey.decoder.udp_checksum_bad",
    Icmpv4ChecksumBad => "osprey.decoder.icmpv4_checksum_bad",
    Icmpv6ChecksumBad => "osprey.decoder.icmpv6_checksum_bad",
    UnknownLinkType => "osprey.decoder.unknown_link_type",
}

/// Decoder counters of one worker. Plain `u64`s, no atomics: each worker owns one and
/// the engine [`merge`](DecodeStats::merge)s them for output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeStats {
    counters: [u64; Counter::COUNT],
    events: [u64; Event::COUNT],
    max_pkt_size: u64,
}

impl Default for DecodeStats {
    fn default() -> Self {
        DecodeStats {
            counters: [0; Counter::COUNT],
            events: [0; Event::COUNT],
            max_pkt_size: 0,
        }
    }
}

impl DecodeStats {
    /// All counters at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one to `counter`.
    #[inline]
    pub fn incr(&mut self, counter: Counter) {
        self.counters[counter as usize] += 1;
    }

    /// Adds `n` to `counter`.
    #[inline]
    pub fn add(&mut self, counter: Counter, n: u64) {
        self.counters[counter as usize] += n;
    }

    /// Counts one occurrence of `event` (used by the decoder, and by later stages such
    /// as defragmentation for the `ipv4.frag_*` / `ipv6.frag_*` events).
    #[inline]
    pub fn event(&mut self, event: Event) {
        self.events[event as usize] += 1;
    }

    /// Counts one captured frame of `caplen` bytes (`decoder.pkts`, `decoder.bytes`,
    /// `decoder.max_pkt_size`).
    #[inline]
    pub fn frame(&mut self, caplen: usize) {
        self.counters[Counter::Pkts as usize] += 1;
        self.counters[Counter::Bytes as usize] += caplen as u64;
        self.max_pkt_size = self.max_pkt_size.max(caplen as u64);
    }

    /// The value of a plain counter.
    pub fn get(&self, counter: Counter) -> u64 {
        self.counters[counter as usize]
    }

    /// How often `event` occurred.
    pub fn event_count(&self, event: Event) -> u64 {
        self.events[event as usize]
    }

    /// `decoder.avg_pkt_size`: bytes / pkts, integer division as Suricata reports it.
    pub fn avg_pkt_size(&self) -> u64 {
        let pkts = self.get(Counter::Pkts);
        self.get(Counter::Bytes).checked_div(pkts).unwrap_or(0)
    }

    /// `decoder.max_pkt_size`: the largest captured frame.
    pub fn max_pkt_size(&self) -> u64 {
        self.max_pkt_size
    }

    /// Every counter with its dotted stats.json name: plain counters, then
    /// `decoder.avg_pkt_size` and `decoder.max_pkt_size`, then every
    /// `decoder.event.<proto>.<event>` (zeros included, as Suricata prints them).
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let plain = Counter::ALL.iter().map(|&c| (c.name(), self.get(c)));
        let derived = [
            ("decoder.avg_pkt_size", self.avg_pkt_size()),
            ("decoder.max_pkt_size", self.max_pkt_size),
        ];
        let events = Event::ALL
            .iter()
            .map(|&e| (e.counter_name(), self.event_count(e)));
        plain.chain(derived).chain(events)
    }

    /// Adds another worker's counters into these (max for `max_pkt_size`).
    pub fn merge(&mut self, other: &DecodeStats) {
        for (a, b) in self.counters.iter_mut().zip(other.counters.iter()) {
            *a += b;
        }
        for (a, b) in self.events.iter_mut().zip(other.events.iter()) {
            *a += b;
        }
        self.max_pkt_size = self.max_pkt_size.max(other.max_pkt_size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_merge() {
        let mut a = DecodeStats::new();
        a.frame(100);
        a.incr(Counter::Ipv4);
        a.event(Event::Ipv4TruncPkt);
        let mut b = DecodeStats::new();
        b.frame(300);
        b.incr(Counter::Ipv4);
        b.add(Counter::Tcp, 5);
        a.merge(&b);
        assert_eq!(a.get(Counter::Pkts), 2);
        assert_eq!(a.get(Counter::Ipv4), 2);
        assert_eq!(a.get(Counter::Tcp), 5);
        assert_eq!(a.avg_pkt_size(), 200);
        assert_eq!(a.max_pkt_size(), 300);
        let all: Vec<_> = a.counters().collect();
        assert!(all.contains(&("decoder.pkts", 2)));
        assert!(all.contains(&("decoder.avg_pkt_size", 200)));
        assert!(all.contains(&("decoder.event.ipv4.trunc_pkt", 1)));
        let mut names: Vec<_> = all.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "counter names are unique");
        assert_eq!(DecodeStats::new().avg_pkt_size(), 0);
    }
}
