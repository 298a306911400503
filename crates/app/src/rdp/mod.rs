//! RDP (MS-RDPBCGR) over TCP: the connection sequence up to the MCS Connect Response
//! or the TLS hand-off, one transaction per message, logged as Suricata's `rdp`
//! records (the cookie, the security negotiation, the client's core data and channels,
//! the server certificates' serials).
//!
//! Suricata probes port 3389 for a TPKT packet holding an X.224 connection request
//! (client) or confirm (server).
//!
//! - [`parser`]: TPKT, X.224, MCS/GCC, client data blocks, the TLS certificates;
//! - [`state`]: the per-flow sequence ([`RdpState`], [`RdpTx`]);
//! - `proto`: the protocol contract; [`log`]: the EVE object; [`names`]: the names of
//!   RDP's numbers.

pub mod log;
pub mod names;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::new_state;
pub use state::{RdpState, RdpTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// The port Suricata's stock configuration probes.
pub(crate) const PORTS: &[u16] = &[3389];

/// Probes the first bytes of a TCP direction: a TPKT header and an X.224 connection
/// request (to the server) or confirm (to the client).
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    let want = match dir {
        Direction::ToServer => 0xE0,
        Direction::ToClient => 0xD0,
    };
    if data.len() < 6 {
        let ok = data.first().is_none_or(|&b| b == parser::TPKT_VERSION)
            && data.get(1).is_none_or(|&b| b == 0);
        return if ok { Probe::NeedMore } else { Probe::NoMatch };
    }
    let len = u16::from_be_bytes([data[2], data[3]]);
    if data[0] == parser::TPKT_VERSION && data[1] == 0 && len >= 11 && data[5] & 0xF0 == want {
        Probe::Match(AppProto::Rdp)
    } else {
        Probe::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe() {
        let cr = b"\x03\x00\x00\x24\x1f\xe0\x00\x00";
        assert_eq!(
            probe_tcp(Direction::ToServer, cr),
            Probe::Match(AppProto::Rdp)
        );
        assert_eq!(probe_tcp(Direction::ToClient, cr), Probe::NoMatch);
        assert_eq!(probe_tcp(Direction::ToServer, &cr[..3]), Probe::NeedMore);
        assert_eq!(probe_tcp(Direction::ToServer, b"\x16\x03"), Probe::NoMatch);
        let cc = b"\x03\x00\x00\x0b\x06\xd0\x00\x00\x12\x34\x00";
        assert_eq!(
            probe_tcp(Direction::ToClient, cc),
            Probe::Match(AppProto::Rdp)
        );
    }
}
