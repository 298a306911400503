//! DNP3 (IEEE 1815) over TCP port 20000: link frames with their CRCs checked
//! ([`link`]), transport segments reassembled into application fragments
//! ([`state`]), fragments parsed into function code, internal indications and
//! objects ([`parser`]), the points of the object types Suricata decodes
//! ([`objects`]), each fragment one transaction logged as Suricata's `dnp3` record
//! ([`log`]).
//!
//! Off unless `app-layer.protocols.dnp3.enabled: yes` (as in Suricata's stock
//! configuration). Suricata 7 parses DNP3 over TCP only; so does this module.

pub mod link;
pub mod log;
pub mod objects;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS, EVENTS};
pub use state::{Dnp3State, Dnp3Tx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes a TCP direction for a DNP3 link header: the start bytes, a length of at
/// least 5 and a right header CRC.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    if data.len() < 2 {
        return if data.is_empty() || data[0] == link::START[0] {
            Probe::NeedMore
        } else {
            Probe::NoMatch
        };
    }
    if data[..2] != link::START {
        return Probe::NoMatch;
    }
    if data.len() < link::HEADER_LEN {
        return Probe::NeedMore;
    }
    let crc = link::crc(&data[..8]).to_le_bytes();
    if data[2] >= 5 && data[8..10] == crc {
        Probe::Match(AppProto::Dnp3)
    } else {
        Probe::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_a_header() {
        let mut f = vec![0x05, 0x64, 0x05, 0xC9, 0x0A, 0x00, 0x01, 0x00];
        f.extend_from_slice(&link::crc(&f).to_le_bytes());
        let m = |b: &[u8]| probe_tcp(Direction::ToServer, b);
        assert_eq!(m(&f), Probe::Match(AppProto::Dnp3));
        assert_eq!(m(&f[..6]), Probe::NeedMore);
        f[9] ^= 1;
        assert_eq!(m(&f), Probe::NoMatch);
        assert_eq!(m(b"GET / HTTP/1.1\r\n"), Probe::NoMatch);
    }
}
