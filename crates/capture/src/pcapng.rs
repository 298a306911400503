//! pcapng files: sections of either byte order, interfaces with their own link type and
//! timestamp resolution, enhanced / simple / obsolete packet blocks; other blocks skipped.

use wire::LinkType;

use crate::step::{u16_at, u32_at, Found, Step, MAX_BLOCK, MAX_CAPLEN};
use crate::timestamp::Resolution;
use crate::{CaptureStats, Timestamp};

/// Section Header Block type (the same in both byte orders).
pub(crate) const SHB_TYPE: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;

const IDB: u32 = 1;
const OPB: u32 = 2;
const SPB: u32 = 3;
const EPB: u32 = 6;

const OPT_END: u16 = 0;
const OPT_IF_TSRESOL: u16 = 9;
const OPT_IF_TSOFFSET: u16 = 14;

/// Smallest block: type, length, trailing length.
const MIN_BLOCK: usize = 12;

/// Interfaces per section beyond which a file is treated as hostile (each IDB costs a
/// few bytes of memory, so this bounds what a file can make us allocate).
const MAX_INTERFACES: usize = 65_536;

/// One Interface Description Block.
#[derive(Clone, Copy, Debug)]
struct Interface {
    link: LinkType,
    /// 0: no limit.
    snap: u32,
    resolution: Resolution,
    offset_secs: i64,
}

/// Parser state: the current section's byte order and interfaces.
#[derive(Clone, Debug, Default)]
pub(crate) struct PcapngReader {
    big: bool,
    interfaces: Vec<Interface>,
}

impl PcapngReader {
    /// Looks at the block at the start of `w`.
    pub(crate) fn step(&mut self, w: &[u8], stats: &mut CaptureStats) -> Step {
        if w.len() < MIN_BLOCK {
            return Step::NeedMore(MIN_BLOCK);
        }
        let is_shb = w[..4] == SHB_TYPE;
        let big = if is_shb {
            match section_byte_order(w) {
                Some(big) => big,
                None => return bad_stop(stats),
            }
        } else {
            self.big
        };
        let btype = u32_at(w, 0, big);
        let len = u32_at(w, 4, big) as usize;
        if len < MIN_BLOCK || !len.is_multiple_of(4) {
            return bad_stop(stats);
        }
        let is_packet = matches!(btype, EPB | SPB | OPB);
        if len > MAX_BLOCK {
            return if is_packet {
                // Far more than MAX_CAPLEN of packet: skip it, the next block is findable.
                stats.oversize += 1;
                Step::Skip(len)
            } else if is_shb || btype == IDB {
                bad_stop(stats)
            } else {
                Step::Skip(len)
            };
        }
        if !is_shb && !is_packet && btype != IDB {
            return Step::Skip(len);
        }
        if w.len() < len {
            return Step::NeedMore(len);
        }
        if u32_at(w, len - 4, big) != len as u32 {
            return bad_stop(stats);
        }
        let body = &w[8..len - 4];
        match btype {
            _ if is_shb => self.section(body, big, stats, len),
            IDB => self.interface(body, stats, len),
            EPB | OPB => self.packet(body, btype, stats, len),
            _ => self.simple_packet(body, stats, len),
        }
    }

    fn section(&mut self, body: &[u8], big: bool, stats: &mut CaptureStats, len: usize) -> Step {
        // magic, major, minor, section length (i64), options.
        if body.len() < 16 || u16_at(body, 4, big) != 1 {
            return bad_stop(stats);
        }
        self.big = big;
        self.interfaces.clear();
        Step::Skip(len)
    }

    fn interface(&mut self, body: &[u8], stats: &mut CaptureStats, len: usize) -> Step {
        if body.len() < 8 || self.interfaces.len() >= MAX_INTERFACES {
            // Later packets could not be matched to their interface.
            return bad_stop(stats);
        }
        let mut iface = Interface {
            link: LinkType(u16_at(body, 0, self.big)),
            snap: u32_at(body, 4, self.big),
            resolution: Resolution::MICROS,
            offset_secs: 0,
        };
        for (code, value) in Options::new(&body[8..], self.big) {
            match (code, value.len()) {
                (OPT_IF_TSRESOL, 1) => iface.resolution = Resolution::from_option(value[0]),
                (OPT_IF_TSOFFSET, 8) => {
                    let hi = u32_at(value, 0, self.big);
                    let lo = u32_at(value, 4, self.big);
                    iface.offset_secs = ((u64::from(hi) << 32) | u64::from(lo)) as i64;
                }
                _ => {}
            }
        }
        self.interfaces.push(iface);
        Step::Skip(len)
    }

    /// Enhanced (type 6) and obsolete (type 2) packet blocks share their layout, except
    /// that the obsolete one has a 16-bit interface id followed by a drop count.
    fn packet(&self, body: &[u8], btype: u32, stats: &mut CaptureStats, len: usize) -> Step {
        if body.len() < 20 {
            return bad_skip(stats, len);
        }
        let interface = if btype == EPB {
            u32_at(body, 0, self.big)
        } else {
            u32::from(u16_at(body, 0, self.big))
        };
        let Some(iface) = self.interfaces.get(interface as usize) else {
            return bad_skip(stats, len);
        };
        let hi = u32_at(body, 4, self.big);
        let lo = u32_at(body, 8, self.big);
        let caplen = u32_at(body, 12, self.big);
        let wire_len = u32_at(body, 16, self.big);
        if caplen > MAX_CAPLEN {
            stats.oversize += 1;
            return Step::Skip(len);
        }
        if caplen as usize > body.len() - 20 {
            return bad_skip(stats, len);
        }
        let units = (u64::from(hi) << 32) | u64::from(lo);
        let ts = iface.resolution.to_timestamp(units, iface.offset_secs);
        // Data starts after the block header (8) and the 20 fixed bytes.
        let keep = snap_cut(caplen, iface.snap, stats);
        Step::Frame(Found {
            len,
            data: 28..28 + keep as usize,
            wire_len,
            ts,
            link: iface.link,
            interface,
        })
    }

    /// Simple Packet Block: interface 0, no timestamp, captured length implied.
    fn simple_packet(&self, body: &[u8], stats: &mut CaptureStats, len: usize) -> Step {
        let Some(iface) = self.interfaces.first() else {
            return bad_skip(stats, len);
        };
        if body.len() < 4 {
            return bad_skip(stats, len);
        }
        let wire_len = u32_at(body, 0, self.big);
        let room = (body.len() - 4) as u32;
        let mut caplen = wire_len.min(room);
        if iface.snap != 0 {
            caplen = caplen.min(iface.snap);
        }
        // `room` < MAX_BLOCK, but keep the frame size limit uniform across block kinds.
        if caplen > MAX_CAPLEN {
            stats.oversize += 1;
            return Step::Skip(len);
        }
        Step::Frame(Found {
            len,
            data: 12..12 + caplen as usize,
            wire_len,
            ts: Timestamp::default(),
            link: iface.link,
            interface: 0,
        })
    }
}

/// Byte order of a section header block at the start of `w` (at least 12 bytes).
pub(crate) fn section_byte_order(w: &[u8]) -> Option<bool> {
    match u32_at(w, 8, false) {
        BYTE_ORDER_MAGIC => Some(false),
        _ if u32_at(w, 8, true) == BYTE_ORDER_MAGIC => Some(true),
        _ => None,
    }
}

/// Cuts a captured length to the interface's snapshot length, as libpcap does.
fn snap_cut(caplen: u32, snap: u32, stats: &mut CaptureStats) -> u32 {
    if snap != 0 && caplen > snap {
        stats.oversize += 1;
        snap
    } else {
        caplen
    }
}

fn bad_stop(stats: &mut CaptureStats) -> Step {
    stats.bad_blocks += 1;
    Step::Stop
}

fn bad_skip(stats: &mut CaptureStats, len: usize) -> Step {
    stats.bad_blocks += 1;
    Step::Skip(len)
}

/// Iterator over `(code, value)` options; stops at `opt_endofopt` or malformed data.
struct Options<'a> {
    rest: &'a [u8],
    big: bool,
}

impl<'a> Options<'a> {
    fn new(rest: &'a [u8], big: bool) -> Options<'a> {
        Options { rest, big }
    }
}

impl<'a> Iterator for Options<'a> {
    type Item = (u16, &'a [u8]);

    fn next(&mut self) -> Option<(u16, &'a [u8])> {
        if self.rest.len() < 4 {
            return None;
        }
        let code = u16_at(self.rest, 0, self.big);
        let len = usize::from(u16_at(self.rest, 2, self.big));
        if code == OPT_END || self.rest.len() - 4 < len {
            self.rest = &[];
            return None;
        }
        let value = &self.rest[4..4 + len];
        let padded = (4 + len + 3) & !3;
        self.rest = self.rest.get(padded..).unwrap_or(&[]);
        Some((code, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_bounds_checked() {
        let mut raw = Vec::new();
        raw.extend_from_slice(&9u16.to_le_bytes());
        raw.extend_from_slice(&1u16.to_le_bytes());
        raw.extend_from_slice(&[9, 0, 0, 0]);
        raw.extend_from_slice(&2u16.to_le_bytes());
        raw.extend_from_slice(&100u16.to_le_bytes());
        raw.extend_from_slice(&[1, 2]);
        let got: Vec<_> = Options::new(&raw, false).collect();
        assert_eq!(got, vec![(9u16, &[9u8][..])]);
        // An option whose value ends the data without padding is still read.
        let mut tail = raw[..5].to_vec();
        tail.truncate(5);
        assert_eq!(Options::new(&tail, false).count(), 1);
    }

    #[test]
    fn rejects_bad_block_lengths() {
        let mut st = CaptureStats::default();
        let mut r = PcapngReader::default();
        let mut blk = vec![0u8; 16];
        blk[0] = 0x0b; // unknown block type, little-endian
        for len in [0u32, 8, 13, 18] {
            blk[4..8].copy_from_slice(&len.to_le_bytes());
            assert_eq!(r.step(&blk, &mut st), Step::Stop, "length {len}");
        }
        assert_eq!(st.bad_blocks, 4);
        blk[4..8].copy_from_slice(&16u32.to_le_bytes());
        assert_eq!(r.step(&blk, &mut st), Step::Skip(16));
        blk[4..8].copy_from_slice(&(64u32 << 20).to_le_bytes());
        assert_eq!(r.step(&blk, &mut st), Step::Skip(64 << 20));
        // A packet before any interface is a bad block, skipped.
        let mut epb = vec![0u8; 32];
        epb[0] = 6;
        epb[4..8].copy_from_slice(&32u32.to_le_bytes());
        epb[28..32].copy_from_slice(&32u32.to_le_bytes());
        assert_eq!(r.step(&epb, &mut st), Step::Skip(32));
        assert_eq!(st.bad_blocks, 5);
    }
}
