//! Link-layer header types (the `LINKTYPE_*` values of pcap and pcapng).

/// A pcap/pcapng link-layer type. Open newtype: unknown values survive and are
/// reported by the decoder rather than rejected by the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkType(pub u16);

/// Ethernet, the most common link type.
impl Default for LinkType {
    fn default() -> Self {
        LinkType::ETHERNET
    }
}

impl LinkType {
    /// BSD loopback / null encapsulation (4-byte host-order address family).
    pub const NULL: LinkType = LinkType(0);
    /// Ethernet II / IEEE 802.3.
    pub const ETHERNET: LinkType = LinkType(1);
    /// PPP (RFC 1661 framing with protocol field).
    pub const PPP: LinkType = LinkType(9);
    /// Raw IP (value used by some systems for DLT_RAW).
    pub const RAW_OLD: LinkType = LinkType(12);
    /// Raw IP (OpenBSD's DLT_RAW).
    pub const RAW_OPENBSD: LinkType = LinkType(14);
    /// PPP in HDLC-like framing (RFC 1662).
    pub const PPP_HDLC: LinkType = LinkType(50);
    /// PPP over Ethernet / serial with HDLC framing (PPP_SERIAL, 0xff03 prefix).
    pub const PPP_ETHER: LinkType = LinkType(51);
    /// Raw IPv4 or IPv6, version from the first nibble.
    pub const RAW: LinkType = LinkType(101);
    /// Cisco HDLC.
    pub const C_HDLC: LinkType = LinkType(104);
    /// OpenBSD loopback (4-byte network-order address family).
    pub const LOOP: LinkType = LinkType(108);
    /// Linux cooked capture v1 (SLL).
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// Raw IPv4.
    pub const IPV4: LinkType = LinkType(228);
    /// Raw IPv6.
    pub const IPV6: LinkType = LinkType(229);
    /// Linux cooked capture v2 (SLL2).
    pub const LINUX_SLL2: LinkType = LinkType(276);

    /// The conventional `LINKTYPE_` name without the prefix, or `None` if unknown.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            LinkType::NULL => "NULL",
            LinkType::ETHERNET => "ETHERNET",
            LinkType::PPP => "PPP",
            LinkType::RAW_OLD | LinkType::RAW_OPENBSD | LinkType::RAW => "RAW",
            LinkType::PPP_HDLC => "PPP_HDLC",
            LinkType::PPP_ETHER => "PPP_ETHER",
            LinkType::C_HDLC => "C_HDLC",
            LinkType::LOOP => "LOOP",
            LinkType::LINUX_SLL => "LINUX_SLL",
            LinkType::IPV4 => "IPV4",
            LinkType::IPV6 => "IPV6",
            LinkType::LINUX_SLL2 => "LINUX_SLL2",
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(LinkType::ETHERNET.name(), Some("ETHERNET"));
        assert_eq!(LinkType(9999).name(), None);
    }
}
