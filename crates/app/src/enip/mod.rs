//! EtherNet/IP (ENIP) over TCP and UDP port 44818: the 24-byte encapsulation header
//! (command, length, session handle, status, sender context, options) and its data;
//! each encapsulated message, in either direction, is one transaction, as Suricata
//! counts them. Suricata 7 writes no EVE record for ENIP; rules match its
//! transactions with `enip_command`.
//!
//! Off unless `app-layer.protocols.enip.enabled: yes` (as in Suricata's stock
//! configuration).
//!
//! - [`parser`]: the encapsulation header; [`state`]: the per-flow state
//!   ([`EnipState`]) and transactions ([`EnipTx`]); `proto`: the protocol contract.

pub mod cip;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, EVENTS};
pub use state::{EnipState, EnipTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Whether `data` starts with an encapsulation header Suricata 7.0.10's probe takes
/// (found by running it on hand-made captures, TCP and UDP alike): a known command
/// other than ListInterfaces (0x64, always refused), a RegisterSession (0x65) only
/// with its 4 bytes of data, and a status among success (0), invalid command (1),
/// insufficient memory (2), incorrect data (3), invalid session handle (0x64),
/// invalid length (0x65), unsupported protocol revision (0x69) and 0x6A; the options
/// field is not looked at.
fn probe(data: &[u8]) -> Probe {
    match parser::header(data) {
        None => Probe::NeedMore,
        Some(h) if probe_accepts(&h) => Probe::Match(AppProto::Enip),
        Some(_) => Probe::NoMatch,
    }
}

/// The header checks of [`probe`].
fn probe_accepts(h: &parser::Header) -> bool {
    let status = matches!(h.status, 0..=3 | 0x64 | 0x65 | 0x69 | 0x6A);
    let command = match h.command {
        0x0064 => false,
        0x0065 => h.length == 4,
        c => parser::known_command(c),
    };
    status && command
}

/// Probes a TCP direction.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    probe(data)
}

/// Probes a UDP payload.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    match probe(payload) {
        Probe::NeedMore => Probe::NoMatch,
        p => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(command: u16, length: u16, status: u32) -> Vec<u8> {
        let mut h = command.to_le_bytes().to_vec();
        h.extend_from_slice(&length.to_le_bytes());
        h.extend_from_slice(&[0; 4]);
        h.extend_from_slice(&status.to_le_bytes());
        h.extend_from_slice(&[0; 12]);
        h
    }

    #[test]
    fn the_probe_takes_what_suricata_takes() {
        let enip = Probe::Match(AppProto::Enip);
        for c in [0u16, 4, 0x63, 0x66, 0x6F, 0x70, 0x72, 0x73] {
            assert_eq!(
                probe_tcp(Direction::ToServer, &header(c, 0, 0)),
                enip,
                "{c}"
            );
        }
        // ListInterfaces at any length, RegisterSession without its 4 bytes, unknown
        // commands.
        for (c, len) in [
            (0x64u16, 0u16),
            (0x64, 2),
            (0x65, 0),
            (0x65, 8),
            (5, 0),
            (0xC8, 0),
        ] {
            assert_eq!(
                probe_udp(Direction::ToServer, &header(c, len, 0)),
                Probe::NoMatch
            );
        }
        assert_eq!(probe_tcp(Direction::ToClient, &header(0x65, 4, 0)), enip);
        for (status, ok) in [
            (1u32, true),
            (0x69, true),
            (0x6A, true),
            (4, false),
            (0x66, false),
            (0x6B, false),
            (0x1_0000, false),
        ] {
            let p = probe_tcp(Direction::ToServer, &header(4, 0, status));
            assert_eq!(p == enip, ok, "status {status:#x}");
        }
        assert_eq!(
            probe_tcp(Direction::ToServer, &header(4, 0, 0)[..23]),
            Probe::NeedMore
        );
        assert_eq!(
            probe_udp(Direction::ToServer, &header(4, 0, 0)[..23]),
            Probe::NoMatch
        );
    }
}
