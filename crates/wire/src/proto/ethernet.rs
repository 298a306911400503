//! Ethernet II and IEEE 802.1Q / 802.1ad VLAN tags.

use super::{be16, view, Error};

/// Well-known EtherType values.
pub mod ethertype {
    /// IPv4.
    pub const IPV4: u16 = 0x0800;
    /// ARP.
    pub const ARP: u16 = 0x0806;
    /// IPv6.
    pub const IPV6: u16 = 0x86dd;
    /// 802.1Q customer VLAN tag.
    pub const VLAN: u16 = 0x8100;
    /// 802.1ad service VLAN tag (QinQ).
    pub const QINQ: u16 = 0x88a8;
    /// Pre-standard QinQ tag.
    pub const QINQ_9100: u16 = 0x9100;
    /// 802.1ah provider backbone bridging (MAC-in-MAC).
    pub const IEEE8021AH: u16 = 0x88e7;
    /// PPPoE discovery stage.
    pub const PPPOE_DISCOVERY: u16 = 0x8863;
    /// PPPoE session stage.
    pub const PPPOE_SESSION: u16 = 0x8864;
    /// MPLS unicast.
    pub const MPLS_UNICAST: u16 = 0x8847;
    /// MPLS multicast.
    pub const MPLS_MULTICAST: u16 = 0x8848;
    /// Cisco VN-Tag.
    pub const VNTAG: u16 = 0x8926;
    /// Network Service Header.
    pub const NSH: u16 = 0x894f;
    /// Cisco DCE (ethernet + 2 bytes, then another ethernet header).
    pub const DCE: u16 = 0x8903;
    /// Transparent Ethernet bridging (GRE, Geneve payload).
    pub const TEB: u16 = 0x6558;
    /// ERSPAN type II (GRE protocol).
    pub const ERSPAN_II: u16 = 0x88be;
    /// ERSPAN type III (GRE protocol).
    pub const ERSPAN_III: u16 = 0x22eb;
    /// PPP (GRE version 1 / PPTP protocol).
    pub const PPP: u16 = 0x880b;
}

mod field {
    use core::ops::Range;
    pub const DST: Range<usize> = 0..6;
    pub const SRC: Range<usize> = 6..12;
    pub const ETHERTYPE: usize = 12;
    pub const PAYLOAD: usize = 14;
}

/// Length of an Ethernet II header.
pub const HEADER_LEN: usize = field::PAYLOAD;

view!(
    /// An Ethernet II frame.
    EthernetFrame
);

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Ok when the buffer holds a whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Destination MAC address.
    pub fn dst_addr(&self) -> [u8; 6] {
        let mut a = [0; 6];
        a.copy_from_slice(&self.b()[field::DST]);
        a
    }
    /// Source MAC address.
    pub fn src_addr(&self) -> [u8; 6] {
        let mut a = [0; 6];
        a.copy_from_slice(&self.b()[field::SRC]);
        a
    }
    /// EtherType (or 802.3 length when ≤ 1500).
    pub fn ethertype(&self) -> u16 {
        be16(self.b(), field::ETHERTYPE)
    }
    /// Bytes after the header.
    pub fn payload(&self) -> &[u8] {
        &self.b()[field::PAYLOAD..]
    }
}

/// Length of an 802.1Q/802.1ad tag after the outer EtherType.
pub const VLAN_HEADER_LEN: usize = 4;

view!(
    /// The 4 bytes of an 802.1Q/802.1ad tag that follow its TPID (TCI, inner EtherType).
    VlanTag
);

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Ok when the buffer holds a whole tag.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < VLAN_HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Priority code point.
    pub fn priority(&self) -> u8 {
        self.b()[0] >> 5
    }
    /// VLAN identifier (12 bits).
    pub fn vlan_id(&self) -> u16 {
        be16(self.b(), 0) & 0x0fff
    }
    /// EtherType of what follows.
    pub fn ethertype(&self) -> u16 {
        be16(self.b(), 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_fields() {
        let mut f = [0u8; 20];
        f[..6].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        f[6..12].copy_from_slice(&[7, 8, 9, 10, 11, 12]);
        f[12] = 0x08;
        let e = EthernetFrame::new_checked(&f[..]).unwrap();
        assert_eq!(e.dst_addr(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(e.src_addr(), [7, 8, 9, 10, 11, 12]);
        assert_eq!(e.ethertype(), ethertype::IPV4);
        assert_eq!(e.payload().len(), 6);
        assert_eq!(
            EthernetFrame::new_checked(&f[..13]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn vlan_fields() {
        let t = VlanTag::new_checked(&[0xa0u8, 0x64, 0x86, 0xdd][..]).unwrap();
        assert_eq!(t.priority(), 5);
        assert_eq!(t.vlan_id(), 100);
        assert_eq!(t.ethertype(), ethertype::IPV6);
        assert!(VlanTag::new_checked(&[0u8; 3][..]).is_err());
    }
}
