//! Length-framed binary protocols over TCP — DCERPC (PDUs with a `frag_length`) — as
//! far as the engine needs them: the protocol is detected (so `alert dcerpc` rules
//! apply and EVE carries the `app_proto`) and each completed PDU asks for raw stream
//! inspection of its direction, as Suricata's parsers do, so that content rules see the
//! message when it is complete rather than when a stream chunk fills up. (SMB has its
//! own parser: [`crate::smb`].)
//!
//! The message contents are not parsed: rules with the protocol's own keywords
//! (`dce_iface`, ...) are still refused as unsupported.

use crate::detect::{AppProto, Probe};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol};
use crate::{AppCtx, Counter, Direction, Transport};

/// Bytes of a DCERPC connection-oriented PDU header.
const DCERPC_HDR: usize = 16;

/// Which framing a [`Framed`] state follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// DCERPC connection-oriented PDUs.
    Dcerpc,
}

impl Framing {
    fn header_len(self) -> usize {
        match self {
            Framing::Dcerpc => DCERPC_HDR,
        }
    }

    /// The whole length of the record whose header is `h`, or `None` if `h` is not a
    /// header of this framing.
    fn record_len(self, h: &[u8]) -> Option<u64> {
        match self {
            Framing::Dcerpc => {
                let len = dcerpc_header(h)?;
                Some(u64::from(len))
            }
        }
    }
}

/// `frag_length` of a DCERPC connection-oriented header, if `h` is one: version 5.0 or
/// 5.1, a known PDU type, integer representation big- or little-endian, and a length
/// that covers at least the header.
fn dcerpc_header(h: &[u8]) -> Option<u16> {
    if h.len() < DCERPC_HDR || h[0] != 5 || h[1] > 1 || h[2] > 20 {
        return None;
    }
    let len = match h[4] & 0xf0 {
        0x10 => u16::from_le_bytes([h[8], h[9]]),
        0x00 => u16::from_be_bytes([h[8], h[9]]),
        _ => return None,
    };
    (usize::from(len) >= DCERPC_HDR).then_some(len)
}

/// Probes the first bytes of a TCP direction for DCERPC: a connection-oriented PDU
/// header (see [`dcerpc_header`]). To the server the first PDU must be a bind or an
/// alter-context, as a client opens an association.
pub(crate) fn probe_dcerpc(dir: Direction, data: &[u8]) -> Probe {
    if data.first().is_some_and(|&b| b != 5) || data.get(1).is_some_and(|&b| b > 1) {
        return Probe::NoMatch;
    }
    if data.len() < DCERPC_HDR {
        return Probe::NeedMore;
    }
    match dcerpc_header(data) {
        Some(_) if dir == Direction::ToClient || matches!(data[2], 11 | 14) => {
            Probe::Match(AppProto::Dcerpc)
        }
        _ => Probe::NoMatch,
    }
}

/// One direction's framing position.
#[derive(Clone, Debug, Default)]
struct Side {
    /// Header bytes of the next record gathered so far.
    hdr: Vec<u8>,
    /// Bytes of the current record still to come (0: a header is next).
    remaining: u64,
    /// Records completed since the engine last asked.
    completed: bool,
    /// The framing was lost (a header that is not one, or a gap): nothing more is
    /// framed in this direction.
    lost: bool,
    /// Records completed.
    records: u64,
}

/// Per-flow state of a length-framed protocol: where each direction's next record
/// starts.
#[derive(Clone, Debug)]
pub struct Framed {
    framing: Framing,
    sides: [Side; 2],
}

impl Framed {
    /// A flow framed by `framing`.
    pub fn new(framing: Framing) -> Self {
        Framed {
            framing,
            sides: Default::default(),
        }
    }

    /// In-order stream bytes of one direction.
    pub fn parse(&mut self, dir: Direction, mut data: &[u8]) {
        let hl = self.framing.header_len();
        let side = &mut self.sides[dir.index()];
        while !data.is_empty() && !side.lost {
            if side.remaining > 0 {
                let n = usize::try_from(side.remaining)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                side.remaining -= n as u64;
                data = &data[n..];
                if side.remaining == 0 {
                    side.completed = true;
                    side.records += 1;
                }
                continue;
            }
            let n = (hl - side.hdr.len()).min(data.len());
            side.hdr.extend_from_slice(&data[..n]);
            data = &data[n..];
            if side.hdr.len() < hl {
                break;
            }
            match self.framing.record_len(&side.hdr) {
                Some(len) => {
                    side.remaining = len.saturating_sub(hl as u64);
                    side.hdr.clear();
                    if side.remaining == 0 {
                        side.completed = true;
                        side.records += 1;
                    }
                }
                None => side.lost = true,
            }
        }
    }

    /// A hole in one direction: its framing is lost.
    pub fn gap(&mut self, dir: Direction) {
        self.sides[dir.index()].lost = true;
    }

    /// Whether a record of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.sides[dir.index()].completed)
    }

    /// Records completed in `dir` so far.
    pub fn records(&self, dir: Direction) -> u64 {
        self.sides[dir.index()].records
    }
}

/// The state of a new DCERPC flow (TCP only): PDU framing.
pub(crate) fn new_dcerpc(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| {
        (
            AppState::Dcerpc(Framed::new(Framing::Dcerpc)),
            Counter::FlowDcerpcTcp,
        )
    })
}

/// Record framing on the protocol contract: no transactions; a completed DCERPC PDU
/// asks for raw stream inspection.
impl Protocol for Framed {
    fn parse(&mut self, _ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        Framed::parse(self, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, _ctx: &mut AppCtx, dir: Direction, _len: u64) {
        Framed::gap(self, dir)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        Framed::take_completed(self, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::*;

    fn dce(ptype: u8, len: u16) -> Vec<u8> {
        let mut h = vec![5, 0, ptype, 3, 0x10, 0, 0, 0];
        h.extend_from_slice(&len.to_le_bytes());
        h.extend_from_slice(&[0, 0, 1, 0, 0, 0]);
        h.resize(usize::from(len), 0xaa);
        h
    }

    #[test]
    fn dcerpc_probe() {
        let bind = dce(11, 72);
        assert_eq!(
            probe_dcerpc(ToServer, &bind),
            Probe::Match(AppProto::Dcerpc)
        );
        assert_eq!(probe_dcerpc(ToServer, &bind[..10]), Probe::NeedMore);
        assert_eq!(probe_dcerpc(ToServer, &dce(0, 40)), Probe::NoMatch);
        assert_eq!(
            probe_dcerpc(ToClient, &dce(12, 40)),
            Probe::Match(AppProto::Dcerpc)
        );
        assert_eq!(probe_dcerpc(ToServer, b"\x05\x02"), Probe::NoMatch);
        assert_eq!(probe_dcerpc(ToServer, b"\x16\x03\x01"), Probe::NoMatch);
        let mut big_endian = dce(11, 72);
        big_endian[4] = 0;
        big_endian[8..10].copy_from_slice(&72u16.to_be_bytes());
        assert_eq!(
            probe_dcerpc(ToServer, &big_endian),
            Probe::Match(AppProto::Dcerpc)
        );
    }

    #[test]
    fn records_complete_across_any_split() {
        let mut stream = dce(0, 100);
        stream.extend(dce(2, 16));
        stream.extend(dce(0, 19));
        for cut in 0..stream.len() {
            let mut f = Framed::new(Framing::Dcerpc);
            f.parse(ToServer, &stream[..cut]);
            let early = f.records(ToServer);
            f.parse(ToServer, &stream[cut..]);
            assert_eq!(f.records(ToServer), 3, "cut {cut}");
            assert!(early <= 3);
            assert!(f.take_completed(ToServer));
            assert!(!f.take_completed(ToServer));
            assert!(!f.take_completed(ToClient));
        }
    }

    #[test]
    fn completion_is_reported_per_record() {
        let mut f = Framed::new(Framing::Dcerpc);
        let pdu = dce(0, 40);
        f.parse(ToServer, &pdu[..39]);
        assert!(!f.take_completed(ToServer));
        f.parse(ToServer, &pdu[39..]);
        assert!(f.take_completed(ToServer));
    }

    #[test]
    fn garbage_loses_the_framing_and_a_gap_too() {
        let mut f = Framed::new(Framing::Dcerpc);
        f.parse(ToServer, &[0x16; 64]);
        f.parse(ToServer, &dce(0, 40));
        assert_eq!(f.records(ToServer), 0);
        let mut f = Framed::new(Framing::Dcerpc);
        f.gap(ToClient);
        f.parse(ToClient, &dce(2, 16));
        assert_eq!(f.records(ToClient), 0);
        f.parse(ToServer, &dce(0, 16));
        assert_eq!(f.records(ToServer), 1);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut x: u32 = 0x1234_5678;
        for framing in [Framing::Dcerpc] {
            let mut f = Framed::new(framing);
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let chunk: Vec<u8> = (0..(x % 40)).map(|i| (x >> (i % 24)) as u8).collect();
                f.parse(if x & 1 == 0 { ToServer } else { ToClient }, &chunk);
                let _ = probe_dcerpc(ToServer, &chunk);
            }
        }
    }
}
