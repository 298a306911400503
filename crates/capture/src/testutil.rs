//! Builders of handcrafted capture files and a reader driver shared by the unit tests.

use std::io::{self, Read};
use std::path::Path;

use crate::{Batch, CaptureError, CaptureStats, FileSource, LinkType, Source, Timestamp};

/// A frame as the tests compare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Got {
    pub(crate) data: Vec<u8>,
    pub(crate) ts: Timestamp,
    pub(crate) wire_len: u32,
    pub(crate) link: LinkType,
    pub(crate) interface: u32,
    pub(crate) index: u64,
}

/// Writes integers in a chosen byte order.
pub(crate) struct Out {
    pub(crate) big: bool,
    pub(crate) bytes: Vec<u8>,
}

impl Out {
    pub(crate) fn u16(&mut self, v: u16) {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
    }
}

/// A libpcap file.
pub(crate) fn pcap(
    big: bool,
    nanos: bool,
    snap: u32,
    link: u32,
    recs: &[(u32, u32, &[u8], u32)],
) -> Vec<u8> {
    let mut o = Out {
        big,
        bytes: Vec::new(),
    };
    o.u32(if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 });
    o.u16(2);
    o.u16(4);
    o.u32(0);
    o.u32(0);
    o.u32(snap);
    o.u32(link);
    for &(secs, frac, data, wire_len) in recs {
        o.u32(secs);
        o.u32(frac);
        o.u32(data.len() as u32);
        o.u32(wire_len);
        o.bytes.extend_from_slice(data);
    }
    o.bytes
}

/// A pcapng file under construction.
pub(crate) struct Ng(pub(crate) Out);

impl Ng {
    pub(crate) fn new(big: bool) -> Ng {
        let mut ng = Ng(Out {
            big,
            bytes: Vec::new(),
        });
        ng.shb();
        ng
    }

    /// Appends a block: type, body (padded to 4), lengths.
    pub(crate) fn block(&mut self, btype: u32, body: &[u8]) -> &mut Ng {
        let padded = (body.len() + 3) & !3;
        let len = (12 + padded) as u32;
        self.0.u32(btype);
        self.0.u32(len);
        self.0.bytes.extend_from_slice(body);
        self.0
            .bytes
            .resize(self.0.bytes.len() + padded - body.len(), 0);
        self.0.u32(len);
        self
    }

    fn body(&self) -> Out {
        Out {
            big: self.0.big,
            bytes: Vec::new(),
        }
    }

    /// A new section header in the writer's current byte order.
    pub(crate) fn shb(&mut self) -> &mut Ng {
        let mut b = self.body();
        b.u32(0x1a2b_3c4d);
        b.u16(1);
        b.u16(0);
        b.bytes.extend_from_slice(&[0xff; 8]);
        let body = b.bytes;
        self.block(0x0a0d_0d0a, &body)
    }

    /// An interface; `tsresol` adds the `if_tsresol` option.
    pub(crate) fn idb(&mut self, link: u16, snap: u32, tsresol: Option<u8>) -> &mut Ng {
        let mut b = self.body();
        b.u16(link);
        b.u16(0);
        b.u32(snap);
        // An option we ignore first, then if_tsresol, then opt_endofopt.
        b.u16(2);
        b.u16(3);
        b.bytes.extend_from_slice(b"et0\0");
        if let Some(r) = tsresol {
            b.u16(9);
            b.u16(1);
            b.bytes.extend_from_slice(&[r, 0, 0, 0]);
        }
        b.u32(0);
        let body = b.bytes;
        self.block(1, &body)
    }

    /// An enhanced packet block.
    pub(crate) fn epb(&mut self, iface: u32, units: u64, data: &[u8], wire_len: u32) -> &mut Ng {
        let mut b = self.body();
        b.u32(iface);
        b.u32((units >> 32) as u32);
        b.u32(units as u32);
        b.u32(data.len() as u32);
        b.u32(wire_len);
        b.bytes.extend_from_slice(data);
        let body = b.bytes;
        self.block(6, &body)
    }

    /// An obsolete packet block.
    pub(crate) fn opb(&mut self, iface: u16, units: u64, data: &[u8], wire_len: u32) -> &mut Ng {
        let mut b = self.body();
        b.u16(iface);
        b.u16(0);
        b.u32((units >> 32) as u32);
        b.u32(units as u32);
        b.u32(data.len() as u32);
        b.u32(wire_len);
        b.bytes.extend_from_slice(data);
        let body = b.bytes;
        self.block(2, &body)
    }

    /// A simple packet block.
    pub(crate) fn spb(&mut self, data: &[u8], wire_len: u32) -> &mut Ng {
        let mut b = self.body();
        b.u32(wire_len);
        b.bytes.extend_from_slice(data);
        let body = b.bytes;
        self.block(3, &body)
    }

    /// Switches the byte order of what follows (call `shb` next).
    pub(crate) fn order(&mut self, big: bool) -> &mut Ng {
        self.0.big = big;
        self
    }

    pub(crate) fn bytes(&self) -> Vec<u8> {
        self.0.bytes.clone()
    }
}

/// A reader handing out data in chunks of varying small sizes, to hit buffer edges.
pub(crate) struct Chunky {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl Chunky {
    pub(crate) fn new(data: Vec<u8>) -> Chunky {
        Chunky {
            data,
            pos: 0,
            step: 0,
        }
    }
}

impl Read for Chunky {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.step = self.step % 13 + 1;
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// How a test feeds bytes to the readers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Mode {
    Memory,
    Stream,
}

pub(crate) const MODES: [Mode; 2] = [Mode::Memory, Mode::Stream];

pub(crate) fn open_mode(mode: Mode, bytes: Vec<u8>) -> Result<FileSource, CaptureError> {
    let name = Path::new("test.cap");
    match mode {
        Mode::Memory => FileSource::from_bytes(name, bytes),
        Mode::Stream => FileSource::from_reader(name, Box::new(Chunky::new(bytes))),
    }
}

/// Reads everything with batches of at most `max` frames.
pub(crate) fn drain(src: &mut dyn Source, max: usize) -> (Vec<Got>, CaptureStats) {
    let mut batch = Batch::new();
    let mut out = Vec::new();
    loop {
        let n = src.next_batch(&mut batch, max).expect("read");
        assert_eq!(n, batch.len());
        assert!(n <= max.max(1));
        if n == 0 {
            break;
        }
        out.extend(batch.iter().map(|f| Got {
            data: f.data.to_vec(),
            ts: f.ts,
            wire_len: f.wire_len,
            link: f.link,
            interface: f.interface,
            index: f.index,
        }));
    }
    // Exhausted sources stay exhausted.
    assert_eq!(src.next_batch(&mut batch, max).expect("read"), 0);
    (out, src.stats())
}

/// Opens and drains in every mode, checking the modes agree; returns the frames.
pub(crate) fn read_all(bytes: &[u8]) -> (Vec<Got>, CaptureStats) {
    let mut first: Option<(Vec<Got>, CaptureStats)> = None;
    for mode in MODES {
        let mut src = open_mode(mode, bytes.to_vec()).expect("open");
        let got = drain(&mut src, 5);
        if let Some(f) = &first {
            assert_eq!(f, &got, "{mode:?} disagrees with memory mode");
        } else {
            first = Some(got);
        }
    }
    first.expect("at least one mode")
}
