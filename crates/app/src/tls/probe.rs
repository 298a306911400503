//! TLS protocol detection.

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes the first bytes of a direction for a TLS record header (or an SSLv2
/// ClientHello), on any port.
pub(crate) fn probe(dir: Direction, data: &[u8]) -> Probe {
    // SSLv2 ClientHello: 2-byte length with the high bit set, type 1, version 3.x.
    if dir == Direction::ToServer && !data.is_empty() && data[0] & 0x80 != 0 {
        if data.len() < 5 {
            return Probe::NeedMore;
        }
        if data[2] == 1 && data[3] == 3 && data[4] <= 3 {
            return Probe::Match(AppProto::Tls);
        }
        return Probe::NoMatch;
    }
    let types: &[u8] = match dir {
        Direction::ToServer => &[0x16],
        Direction::ToClient => &[0x15, 0x16, 0x17],
    };
    match data {
        [] => Probe::NeedMore,
        [t, ..] if !types.contains(t) => Probe::NoMatch,
        [_] => Probe::NeedMore,
        [_, 3] => Probe::NeedMore,
        [_, 3, v, ..] if *v <= 4 => Probe::Match(AppProto::Tls),
        _ => Probe::NoMatch,
    }
}
