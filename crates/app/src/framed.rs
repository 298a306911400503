//! Length-framed SMB over TCP (records behind a NetBIOS session service header) as far
//! as the engine needs it: the protocol is detected (so `alert smb` rules apply and EVE
//! carries the `app_proto`). DCERPC has its own parser (`crate::dcerpc`).
//!
//! The message contents are not parsed: rules with SMB's own keywords
//! (`smb.named_pipe`, ...) are still refused as unsupported.

use crate::detect::{AppProto, Probe};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol};
use crate::{AppCtx, Counter, Direction, Transport};

/// Bytes of an NBSS header: a type and a 24-bit length (direct TCP, as SMB2 uses it).
const NBSS_HDR: usize = 4;

/// NBSS session message (carries an SMB record).
const NBSS_MESSAGE: u8 = 0x00;
/// NBSS types that carry no SMB record: session request, positive and negative
/// response, retarget, keep-alive.
const NBSS_CONTROL: [u8; 5] = [0x81, 0x82, 0x83, 0x84, 0x85];

/// Which framing a [`Framed`] state follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// NBSS records (SMB1/2/3 over TCP port 139/445 or any port).
    Nbss,
}

impl Framing {
    fn header_len(self) -> usize {
        match self {
            Framing::Nbss => NBSS_HDR,
        }
    }

    /// The whole length of the record whose header is `h`, or `None` if `h` is not a
    /// header of this framing.
    fn record_len(self, h: &[u8]) -> Option<u64> {
        match self {
            Framing::Nbss => {
                if h[0] != NBSS_MESSAGE && !NBSS_CONTROL.contains(&h[0]) {
                    return None;
                }
                Some(NBSS_HDR as u64 + u64::from(u32::from_be_bytes([0, h[1], h[2], h[3]])))
            }
        }
    }
}

/// Probes the first bytes of a TCP direction for SMB: NBSS control records (session
/// request, keep-alive, ...) are skipped; the first session message must hold an SMB1,
/// SMB2 or SMB3 (transform) header (`\xffSMB`, `\xfeSMB`, `\xfdSMB`).
pub(crate) fn probe_smb(data: &[u8]) -> Probe {
    let mut rest = data;
    loop {
        if rest.len() < NBSS_HDR {
            return if rest.is_empty() || rest[0] == NBSS_MESSAGE || NBSS_CONTROL.contains(&rest[0])
            {
                Probe::NeedMore
            } else {
                Probe::NoMatch
            };
        }
        let Some(len) = Framing::Nbss.record_len(&rest[..NBSS_HDR]) else {
            return Probe::NoMatch;
        };
        if rest[0] == NBSS_MESSAGE {
            let magic = &rest[NBSS_HDR..rest.len().min(NBSS_HDR + 4)];
            let full = [
                [0xff, b'S', b'M', b'B'],
                [0xfe, b'S', b'M', b'B'],
                [0xfd, b'S', b'M', b'B'],
            ];
            return if full.iter().any(|m| *m == magic) {
                Probe::Match(AppProto::Smb)
            } else if magic.len() < 4 && full.iter().any(|m| m.starts_with(magic)) {
                Probe::NeedMore
            } else {
                Probe::NoMatch
            };
        }
        // A control record: look behind it.
        match usize::try_from(len).ok().and_then(|l| rest.get(l..)) {
            Some(r) => rest = r,
            None => return Probe::NeedMore,
        }
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

/// The state of a new SMB flow (TCP only): NBSS record framing.
pub(crate) fn new_smb(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Smb(Framed::new(Framing::Nbss)), Counter::FlowSmb))
}

/// Record framing on the protocol contract: no transactions; SMB leaves raw inspection
/// to the stream chunks, as Suricata's SMB parser does.
impl Protocol for Framed {
    fn parse(&mut self, _ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        Framed::parse(self, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, _ctx: &mut AppCtx, dir: Direction, _len: u64) {
        Framed::gap(self, dir)
    }

    fn take_completed(&mut self, _dir: Direction) -> bool {
        false
    }
}

/// [`probe_smb`] for the registry: SMB is recognised from either side.
pub(crate) fn probe_smb_tcp(_dir: Direction, data: &[u8]) -> Probe {
    probe_smb(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::*;

    fn nbss(body: &[u8]) -> Vec<u8> {
        let l = body.len() as u32;
        let mut v = vec![0, (l >> 16) as u8, (l >> 8) as u8, l as u8];
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn smb_probe() {
        let smb2 = nbss(b"\xfeSMB\x40\x00\x00\x00");
        assert_eq!(probe_smb(&smb2), Probe::Match(AppProto::Smb));
        assert_eq!(probe_smb(&smb2[..6]), Probe::NeedMore);
        assert_eq!(probe_smb(&smb2[..2]), Probe::NeedMore);
        assert_eq!(
            probe_smb(&nbss(b"\xffSMB\x72")),
            Probe::Match(AppProto::Smb)
        );
        assert_eq!(probe_smb(&nbss(b"GET / HTTP/1.0")), Probe::NoMatch);
        assert_eq!(probe_smb(b"GET / HTTP/1.0"), Probe::NoMatch);
        // A session request on port 139, then the first SMB record.
        let mut v = vec![0x81, 0, 0, 4, 1, 2, 3, 4];
        assert_eq!(probe_smb(&v), Probe::NeedMore);
        v.extend_from_slice(&smb2);
        assert_eq!(probe_smb(&v), Probe::Match(AppProto::Smb));
    }

    #[test]
    fn records_complete_across_any_split() {
        let mut stream = nbss(&[7u8; 100]);
        stream.extend(nbss(&[]));
        stream.extend(nbss(&[9u8; 3]));
        for cut in 0..stream.len() {
            let mut f = Framed::new(Framing::Nbss);
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
    fn garbage_loses_the_framing_and_a_gap_too() {
        let mut f = Framed::new(Framing::Nbss);
        f.parse(ToServer, &[0x16; 64]);
        f.parse(ToServer, &nbss(b"\xfeSMB"));
        assert_eq!(f.records(ToServer), 0);
        let mut f = Framed::new(Framing::Nbss);
        f.gap(ToClient);
        f.parse(ToClient, &nbss(b"\xfeSMB"));
        assert_eq!(f.records(ToClient), 0);
        f.parse(ToServer, &nbss(b"\xfeSMB"));
        assert_eq!(f.records(ToServer), 1);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut x: u32 = 0x1234_5678;
        for framing in [Framing::Nbss] {
            let mut f = Framed::new(framing);
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let chunk: Vec<u8> = (0..(x % 40)).map(|i| (x >> (i % 24)) as u8).collect();
                f.parse(if x & 1 == 0 { ToServer } else { ToClient }, &chunk);
                let _ = probe_smb(&chunk);
            }
        }
    }
}
