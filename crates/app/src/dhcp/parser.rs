//! DHCP messages (RFC 2131): the BOOTP header, the magic cookie and the options
//! (RFC 2132) after it. Options are kept in order, at most [`MAX_OPTIONS`].

use std::net::Ipv4Addr;

/// The magic cookie after the 236-byte BOOTP header.
pub const MAGIC: [u8; 4] = [0x63, 0x82, 0x53, 0x63];
/// The BOOTP header's length, before the cookie.
pub const HEADER_LEN: usize = 236;
/// Options kept per message at most (more are counted as malformed).
pub const MAX_OPTIONS: usize = 255;

/// `DHCP Message Type` (53).
pub const OPT_MSG_TYPE: u8 = 53;
/// `Host Name` (12).
pub const OPT_HOSTNAME: u8 = 12;
/// `IP Address Lease Time` (51).
pub const OPT_LEASE_TIME: u8 = 51;
/// `Renewal (T1) Time Value` (58).
pub const OPT_RENEWAL_TIME: u8 = 58;
/// `Rebinding (T2) Time Value` (59).
pub const OPT_REBINDING_TIME: u8 = 59;

/// One parsed DHCP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DhcpMessage {
    /// `op`: 1 request, 2 reply.
    pub op: u8,
    /// `xid`.
    pub xid: u32,
    /// `chaddr`, its first `hlen` bytes (at most 16).
    pub chaddr: Vec<u8>,
    /// `ciaddr`.
    pub ciaddr: Ipv4Addr,
    /// `yiaddr`.
    pub yiaddr: Ipv4Addr,
    /// `siaddr`.
    pub siaddr: Ipv4Addr,
    /// `giaddr`.
    pub giaddr: Ipv4Addr,
    /// The options, in order: code and value.
    pub options: Vec<(u8, Vec<u8>)>,
    /// An option ran past the end of the message.
    pub truncated: bool,
    /// An option's value has the wrong length for its code, or there were more than
    /// [`MAX_OPTIONS`].
    pub malformed: bool,
}

impl DhcpMessage {
    /// The value of the first option `code`.
    pub fn option(&self, code: u8) -> Option<&[u8]> {
        self.options
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, v)| v.as_slice())
    }

    /// The DHCP message type (option 53), if present.
    pub fn msg_type(&self) -> Option<u8> {
        match self.option(OPT_MSG_TYPE) {
            Some([t]) => Some(*t),
            _ => None,
        }
    }

    /// A 4-byte time option (lease, renewal, rebinding), if present.
    pub fn time(&self, code: u8) -> Option<u32> {
        let v: [u8; 4] = self.option(code)?.try_into().ok()?;
        Some(u32::from_be_bytes(v))
    }
}

fn ip(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

/// Whether `data` starts like a DHCP message: `op` 1 or 2 and the magic cookie.
pub fn looks_like_dhcp(data: &[u8]) -> bool {
    data.len() >= HEADER_LEN + 4
        && matches!(data[0], 1 | 2)
        && data[HEADER_LEN..HEADER_LEN + 4] == MAGIC
}

/// Parses one message; `None` when it is not DHCP (too short, bad `op` or cookie).
pub fn parse_message(data: &[u8]) -> Option<DhcpMessage> {
    if !looks_like_dhcp(data) {
        return None;
    }
    let hlen = usize::from(data[2]).min(16);
    let mut m = DhcpMessage {
        op: data[0],
        xid: u32::from_be_bytes([data[4], data[5], data[6], data[7]]),
        chaddr: data[28..28 + hlen].to_vec(),
        ciaddr: ip(&data[12..16]),
        yiaddr: ip(&data[16..20]),
        siaddr: ip(&data[20..24]),
        giaddr: ip(&data[24..28]),
        options: Vec::new(),
        truncated: false,
        malformed: false,
    };
    let mut rest = &data[HEADER_LEN + 4..];
    // A pad option (0) is read as Suricata 7.0.10 reads it: like any other option, a
    // length byte and that many bytes after its code (so a lone pad swallows what
    // follows; found by the differential harness's `dhcp` family). Only END stops.
    while let [code, tail @ ..] = rest {
        if *code == 255 {
            break;
        }
        let Some((&len, tail)) = tail.split_first() else {
            m.truncated = true;
            break;
        };
        let Some(value) = tail.get(..usize::from(len)) else {
            m.truncated = true;
            break;
        };
        let fixed = match *code {
            OPT_MSG_TYPE => Some(1),
            OPT_LEASE_TIME | OPT_RENEWAL_TIME | OPT_REBINDING_TIME => Some(4),
            _ => None,
        };
        if fixed.is_some_and(|n| n != value.len()) || m.options.len() >= MAX_OPTIONS {
            m.malformed = true;
        } else {
            m.options.push((*code, value.to_vec()));
        }
        rest = &tail[usize::from(len)..];
    }
    Some(m)
}

/// Suricata's name for a DHCP message type.
pub fn msg_type_name(t: u8) -> &'static str {
    match t {
        1 => "discover",
        2 => "offer",
        3 => "request",
        4 => "decline",
        5 => "ack",
        6 => "nak",
        7 => "release",
        8 => "inform",
        _ => "unknown",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// sv-ether.pcap: a DHCPACK (10.16.1.x, port 67 -> 68) with lease, renewal and
    /// rebinding times and a host name.
    pub(crate) const ACK: &[u8] = include_bytes!("testdata/ack.bin");

    #[test]
    fn a_real_ack() {
        let m = parse_message(ACK).unwrap();
        assert_eq!((m.op, m.xid), (2, 4016330564));
        assert_eq!(m.msg_type(), Some(5));
        assert_eq!(m.yiaddr, Ipv4Addr::new(10, 16, 1, 4));
        assert_eq!(m.chaddr[..6], [0x00, 0x11, 0x32, 0x17, 0x49, 0xf0]);
        assert_eq!(m.time(OPT_LEASE_TIME), Some(3600));
        assert_eq!(m.time(OPT_RENEWAL_TIME), Some(1681));
        assert_eq!(m.option(OPT_HOSTNAME), Some(&b"nas1\0"[..]));
        assert!(!m.truncated && !m.malformed);
    }

    #[test]
    fn bad_options() {
        let mut m = ACK[..HEADER_LEN + 4].to_vec();
        m.extend_from_slice(&[53, 1, 5, 51, 2, 0, 1, 12, 9, b'a']);
        let p = parse_message(&m).unwrap();
        assert!(p.malformed && p.truncated);
        assert_eq!(p.msg_type(), Some(5));
        assert!(parse_message(&ACK[..200]).is_none());
    }

    #[test]
    fn a_pad_option_has_a_length_as_in_suricata() {
        let with = |opts: &[u8]| {
            let mut m = ACK[..HEADER_LEN + 4].to_vec();
            m.extend_from_slice(opts);
            m.push(255);
            parse_message(&m).unwrap()
        };
        // Pad, length 0, then the lease time: read.
        let m = with(&[0, 0, 51, 4, 0, 0, 0, 9]);
        assert_eq!(m.time(OPT_LEASE_TIME), Some(9));
        // A lone pad takes the lease time's code as its length: nothing left to read.
        let m = with(&[0, 51, 4, 0, 0, 0, 9]);
        assert_eq!(m.time(OPT_LEASE_TIME), None);
        assert!(m.truncated);
        // Pad of length 1 skips one byte.
        let m = with(&[0, 1, 0, 51, 4, 0, 0, 0, 9]);
        assert_eq!(m.time(OPT_LEASE_TIME), Some(9));
    }

    proptest! {
        #[test]
        fn arbitrary_options_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut m = ACK[..HEADER_LEN + 4].to_vec();
            m.extend_from_slice(&data);
            let p = parse_message(&m).unwrap();
            prop_assert!(p.options.len() <= MAX_OPTIONS);
            let _ = parse_message(&data);
        }
    }
}
