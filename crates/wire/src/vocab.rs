//! The words every layer above `wire` shares: the direction of a packet within its flow,
//! IP protocol numbers, TCP flag bits and IP addresses from [`Packet`](crate::Packet)'s
//! fixed 16-byte layout. Declared once here, so that `flow`, `app`, `detect`, `engine`
//! and `gen` never restate them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub use crate::proto::ipv4::protocol as ip_proto;
pub use crate::proto::tcp::flags as tcp_flags;

/// Direction of a packet or of stream data within a flow, relative to the side that
/// opened it (Suricata's `to_server` / `to_client`).
///
/// This is the traffic's direction; a rule header's `->` / `<>` is a different concept
/// and lives in `rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client (the flow's initiator) to the server.
    ToServer = 0,
    /// From the server to the client.
    ToClient = 1,
}

impl Direction {
    /// The other direction.
    #[inline]
    pub fn reverse(self) -> Direction {
        match self {
            Direction::ToServer => Direction::ToClient,
            Direction::ToClient => Direction::ToServer,
        }
    }

    /// 0 for to-server, 1 for to-client: an index into per-direction arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The address held in `bytes`, [`Packet`](crate::Packet)'s layout: IPv4 in the first
/// four bytes when `v4`, else IPv6.
#[inline]
pub fn ip_addr(v4: bool, bytes: &[u8; 16]) -> IpAddr {
    if v4 {
        IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]))
    } else {
        IpAddr::V6(Ipv6Addr::from(*bytes))
    }
}

/// Whether an IP protocol carries ports in its first four bytes (TCP, UDP, SCTP).
#[inline]
pub fn has_ports(proto: u8) -> bool {
    matches!(proto, ip_proto::TCP | ip_proto::UDP | ip_proto::SCTP)
}

/// Whether an IP protocol is ICMP or ICMPv6.
#[inline]
pub fn is_icmp(proto: u8) -> bool {
    matches!(proto, ip_proto::ICMP | ip_proto::ICMPV6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_reverses_and_indexes() {
        assert_eq!(Direction::ToServer.reverse(), Direction::ToClient);
        assert_eq!(Direction::ToClient.reverse().index(), 0);
        assert_eq!(Direction::ToClient.index(), 1);
    }

    #[test]
    fn addresses_by_version() {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&[10, 0, 0, 1]);
        assert_eq!(ip_addr(true, &b), "10.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(ip_addr(false, &b), "a00:1::".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn protocol_classes() {
        assert!(has_ports(6) && has_ports(17) && has_ports(132) && !has_ports(1));
        assert!(is_icmp(1) && is_icmp(58) && !is_icmp(6));
    }
}
