//! Modbus/TCP (port 502): MBAP frames parsed with the `sawp-modbus` crate (the parser
//! Suricata itself uses), requests paired with their responses by transaction id,
//! unit and function, each pair one transaction logged as Suricata's `modbus` record.
//!
//! Off unless `app-layer.protocols.modbus.enabled: yes` (as in Suricata's stock
//! configuration).
//!
//! - [`state`]: the per-flow state ([`ModbusState`]) and transactions ([`ModbusTx`]);
//! - `proto`: events and the protocol contract, with the `modbus` keyword's `check`;
//! - [`log`]: the EVE object; [`detect`]: the `modbus` keyword against a transaction.

pub mod detect;
pub mod log;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, EVENTS};
pub use state::{ModbusState, ModbusTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;
use sawp::probe::{Probe as _, Status};

/// Probes a TCP direction for a well-formed MBAP frame (`sawp-modbus`'s strict probe,
/// as Suricata 7.0.10 runs it: a frame whose header and function data raise no error
/// flag and whose function code is one sawp-modbus names). A first request with a
/// user-defined, unassigned or reserved code the crate does not name (65, 100, 0x2C
/// ...) fails the probe: the flow is Modbus only if the other direction's first frame
/// passes (checked with hand-made captures: a user-defined request answered by an
/// exception leaves the flow without Modbus).
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    let parser = sawp_modbus::Modbus { probe_strict: true };
    match parser.probe(data, sawp::parser::Direction::Unknown) {
        Status::Recognized => Probe::Match(AppProto::Modbus),
        Status::Incomplete => Probe::NeedMore,
        Status::Unrecognized => Probe::NoMatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_a_frame() {
        let rd = [0, 1, 0, 0, 0, 6, 1, 3, 0, 0, 0, 10];
        assert_eq!(
            probe_tcp(Direction::ToServer, &rd),
            Probe::Match(AppProto::Modbus)
        );
        assert_eq!(probe_tcp(Direction::ToServer, &rd[..5]), Probe::NeedMore);
        // A protocol id other than 0.
        let bad = [0, 1, 0, 7, 0, 6, 1, 3, 0, 0, 0, 10];
        assert_eq!(probe_tcp(Direction::ToServer, &bad), Probe::NoMatch);
        assert_eq!(
            probe_tcp(Direction::ToServer, b"GET / HTTP/1.1\r\n"),
            Probe::NoMatch
        );
    }

    #[test]
    fn codes_sawp_does_not_name_fail_the_probe() {
        // User-defined 100 with data, its exception (0xE4), user-defined 65 alone,
        // unassigned 44: not Modbus, as Suricata's strict probe says.
        for frame in [
            &[0, 1, 0, 0, 0, 4, 1, 100, 1, 2][..],
            &[0, 1, 0, 0, 0, 3, 1, 0xE4, 1],
            &[0, 1, 0, 0, 0, 2, 1, 65],
            &[0, 1, 0, 0, 0, 2, 1, 44],
        ] {
            assert_eq!(probe_tcp(Direction::ToServer, frame), Probe::NoMatch);
        }
        // Poll 484 (9) and Diagnostic (8), reserved but named, pass.
        let diag = [0, 1, 0, 0, 0, 6, 1, 8, 0, 0, 0, 0];
        assert_eq!(
            probe_tcp(Direction::ToServer, &diag),
            Probe::Match(AppProto::Modbus)
        );
        let poll = [0, 1, 0, 0, 0, 2, 1, 9];
        assert_eq!(
            probe_tcp(Direction::ToClient, &poll),
            Probe::Match(AppProto::Modbus)
        );
    }
}
