//! TCP Fast Open (RFC 7413): whether a SYN carries the Fast Open option.
//!
//! Suricata 7 takes a SYN's payload into the stream only when the SYN has the option
//! (kind 34, or the experimental kind 254 with the magic 0xF989 that stacks used before
//! kind 34 was assigned); the payload of any other SYN is the packet's alone, and a
//! SYN/ACK that acknowledges it carries a wrong acknowledgement number.

use wire::proto::tcp::{TcpOption, TcpOptions};
use wire::{tcp_flags, Packet};

/// The option kind IANA assigned to TCP Fast Open.
const KIND_TFO: u8 = 34;
/// The experimental option kind (RFC 6994), TFO when its first two bytes are the magic.
const KIND_EXPERIMENTAL: u8 = 254;
/// The experiment identifier of TCP Fast Open in the experimental option.
const TFO_MAGIC: [u8; 2] = [0xF9, 0x89];

/// True when the options of a TCP header hold a Fast Open option.
pub fn has_tfo_option(mut options: TcpOptions<'_>) -> bool {
    options.any(|o| match o {
        TcpOption::Unknown { kind, data } => {
            kind == KIND_TFO || (kind == KIND_EXPERIMENTAL && data.starts_with(&TFO_MAGIC))
        }
        _ => false,
    })
}

/// True when `p` (decoded from `buf`) is a SYN without ACK that carries a payload and
/// the Fast Open option. Only such packets have their options read.
pub fn syn_has_tfo(p: &Packet, buf: &[u8]) -> bool {
    p.tcp_flags & (tcp_flags::SYN | tcp_flags::ACK) == tcp_flags::SYN
        && p.payload_len > 0
        && p.tcp(buf).is_some_and(|t| has_tfo_option(t.options()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(bytes: &[u8]) -> bool {
        has_tfo_option(TcpOptions::new(bytes))
    }

    #[test]
    fn option_kinds() {
        // MSS, SACK-permitted, then kind 34 with an 8-byte cookie.
        let mut o = vec![2, 4, 5, 0xb4, 4, 2];
        assert!(!has(&o));
        o.extend_from_slice(&[34, 10, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(has(&o));
        // A cookie request (kind 34, length 2) is the option too.
        assert!(has(&[1, 1, 34, 2]));
        // Experimental kind with the TFO magic (tcp-fastopen-01's SYN), and without it.
        assert!(has(&[254, 12, 0xf9, 0x89, 1, 2, 3, 4, 5, 6, 7, 8]));
        assert!(!has(&[254, 12, 0xf9, 0x88, 1, 2, 3, 4, 5, 6, 7, 8]));
        // Malformed options end the walk without a match or a panic.
        assert!(!has(&[34]));
        assert!(!has(&[2, 40, 34, 2]));
    }
}
