//! libpcap files: both byte orders, micro- and nanosecond timestamps.

use wire::LinkType;

use crate::step::{u16_at, u32_at, Found, Step, MAX_CAPLEN};
use crate::{CaptureStats, Timestamp};

/// Length of the file header.
pub(crate) const HEADER_LEN: usize = 24;

/// Magic numbers, as read in the file's own byte order.
const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Alexey Kuznetzov's patched format: 8 more bytes per record header.
const MAGIC_KUZNETZOV: u32 = 0xa1b2_cd34;

/// Whether the first four bytes are a libpcap magic number in either byte order.
pub(crate) fn is_magic(first: [u8; 4]) -> bool {
    let le = u32::from_le_bytes(first);
    let be = u32::from_be_bytes(first);
    [MAGIC_MICROS, MAGIC_NANOS, MAGIC_KUZNETZOV]
        .iter()
        .any(|&m| m == le || m == be)
}

/// Parser state: what the file header said.
#[derive(Clone, Debug)]
pub(crate) struct PcapReader {
    big: bool,
    nanos: bool,
    record_header: usize,
    snap: u32,
    link: LinkType,
}

impl PcapReader {
    /// Parses the file header (`header` holds at least `HEADER_LEN` bytes).
    pub(crate) fn from_header(header: &[u8]) -> Result<PcapReader, &'static str> {
        if header.len() < HEADER_LEN {
            return Err("file shorter than the 24-byte header");
        }
        let (big, magic) = match u32_at(header, 0, false) {
            m @ (MAGIC_MICROS | MAGIC_NANOS | MAGIC_KUZNETZOV) => (false, m),
            _ => (true, u32_at(header, 0, true)),
        };
        let (nanos, record_header) = match magic {
            MAGIC_MICROS => (false, 16),
            MAGIC_NANOS => (true, 16),
            MAGIC_KUZNETZOV => (false, 24),
            _ => return Err("unknown magic number"),
        };
        if u16_at(header, 4, big) != 2 {
            return Err("unsupported version (major version is not 2)");
        }
        let snap = match u32_at(header, 16, big) {
            // As libpcap: a zero or absurd snapshot length means the maximum.
            0 => MAX_CAPLEN,
            s if s > MAX_CAPLEN => MAX_CAPLEN,
            s => s,
        };
        // The low 16 bits hold the link type; the high bits carry FCS information.
        let link = LinkType((u32_at(header, 20, big) & 0xffff) as u16);
        Ok(PcapReader {
            big,
            nanos,
            record_header,
            snap,
            link,
        })
    }

    /// The link type of every frame in the file.
    #[cfg(test)]
    pub(crate) fn link(&self) -> LinkType {
        self.link
    }

    /// Looks at the record at the start of `w`.
    pub(crate) fn step(&self, w: &[u8], stats: &mut CaptureStats) -> Step {
        let hl = self.record_header;
        if w.len() < hl {
            return Step::NeedMore(hl);
        }
        let secs = u32_at(w, 0, self.big);
        let frac = u32_at(w, 4, self.big);
        let caplen = u32_at(w, 8, self.big);
        let wire_len = u32_at(w, 12, self.big);
        if caplen > MAX_CAPLEN {
            // The record header is garbage: nothing after it can be located.
            stats.oversize += 1;
            return Step::Stop;
        }
        let total = hl + caplen as usize;
        if w.len() < total {
            return Step::NeedMore(total);
        }
        let keep = if caplen > self.snap {
            // libpcap reads the record but keeps only the snapshot length.
            stats.oversize += 1;
            self.snap
        } else {
            caplen
        };
        let ts = if self.nanos {
            Timestamp::new(i64::from(secs), frac)
        } else {
            Timestamp::new(
                i64::from(secs) + i64::from(frac / 1_000_000),
                (frac % 1_000_000) * 1000,
            )
        };
        Step::Frame(Found {
            len: total,
            data: hl..hl + keep as usize,
            wire_len,
            ts,
            link: self.link,
            interface: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(big: bool, magic: u32, snap: u32, link: u32) -> Vec<u8> {
        let mut h = Vec::new();
        let put32 = |h: &mut Vec<u8>, v: u32| {
            h.extend_from_slice(&if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            })
        };
        put32(&mut h, magic);
        let v: [u8; 4] = if big { [0, 2, 0, 4] } else { [2, 0, 4, 0] };
        h.extend_from_slice(&v);
        put32(&mut h, 0);
        put32(&mut h, 0);
        put32(&mut h, snap);
        put32(&mut h, link);
        h
    }

    #[test]
    fn header_variants() {
        for big in [false, true] {
            let r = PcapReader::from_header(&header(big, MAGIC_NANOS, 0, 113 | 0x1000_0000));
            let r = r.unwrap();
            assert!(r.nanos);
            assert_eq!(r.big, big);
            assert_eq!(r.snap, MAX_CAPLEN);
            assert_eq!(r.link(), LinkType::LINUX_SLL);
            let k = PcapReader::from_header(&header(big, MAGIC_KUZNETZOV, 100, 1)).unwrap();
            assert_eq!(k.record_header, 24);
            assert_eq!(k.snap, 100);
        }
        assert!(PcapReader::from_header(&header(false, 0x1234_5678, 0, 1)).is_err());
        assert!(PcapReader::from_header(&[0xd4, 0xc3, 0xb2, 0xa1]).is_err());
        let mut bad_version = header(false, MAGIC_MICROS, 0, 1);
        bad_version[4] = 3;
        assert!(PcapReader::from_header(&bad_version).is_err());
        assert!(is_magic([0xa1, 0xb2, 0xc3, 0xd4]));
        assert!(is_magic([0x4d, 0x3c, 0xb2, 0xa1]));
        assert!(!is_magic([0x0a, 0x0d, 0x0d, 0x0a]));
    }

    #[test]
    fn record_steps() {
        let r = PcapReader::from_header(&header(false, MAGIC_MICROS, 4, 1)).unwrap();
        let mut st = CaptureStats::default();
        let mut rec = Vec::new();
        for v in [5u32, 2_500_000, 6, 60] {
            rec.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(r.step(&rec, &mut st), Step::NeedMore(22));
        rec.extend_from_slice(b"abcdef");
        let Step::Frame(f) = r.step(&rec, &mut st) else {
            panic!("expected a frame")
        };
        // Cut to the snapshot length, counted as oversize.
        assert_eq!(f.data, 16..20);
        assert_eq!(f.len, 22);
        assert_eq!(f.ts, Timestamp::new(7, 500_000_000));
        assert_eq!(st.oversize, 1);
        rec[8..12].copy_from_slice(&(MAX_CAPLEN + 1).to_le_bytes());
        assert_eq!(r.step(&rec, &mut st), Step::Stop);
        assert_eq!(st.oversize, 2);
        assert_eq!(r.step(&rec[..3], &mut st), Step::NeedMore(16));
    }
}
