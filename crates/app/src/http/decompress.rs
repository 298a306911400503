//! Streaming gzip/deflate decoding of HTTP bodies with an output cap.
//!
//! Like libhtp, the declared encoding is only a hint: the first bytes pick the format
//! (gzip magic, a valid zlib header, else raw deflate), and a stream that fails to
//! inflate before producing anything is passed through unchanged. Up to
//! `response-body-decompress-layer-limit` layers are stacked (`Content-Encoding: gzip,
//! deflate`). Output beyond the caller's cap is never produced: inflating stops there,
//! so a compression bomb costs neither memory nor time.
//!
//! `lzma` layers (`lzma-enabled`) are undone by [`super::lzma`]; they follow libhtp's
//! own rules (no sniffing, a memory limit, the compression-bomb check), see
//! [`Layer::lzma_run`].

use flate2::{Decompress, FlushDecompress, Status};

use super::lzma::{LzmaDec, Stop};
use crate::util::push_capped;

mod codings;
mod gzip_header;
mod lzma_layer;
pub use codings::LzmaLimits;
pub(crate) use codings::{codings, codings_http1, Coding};
use gzip_header::{gzip_header_len, zlib_accepts_header, GzHdr};

/// Most inflate states kept per thread for the next compressed body (each holds its
/// 32 KiB window and tables, about 43 KiB).
const MAX_KEPT_INFLATERS: usize = 4;

thread_local! {
    /// Inflate states of finished bodies (every worker is one thread). Boxed as the
    /// layers hold them: they move between the two without being copied or reboxed.
    #[allow(clippy::vec_box)]
    static INFLATERS: std::cell::RefCell<Vec<Box<Decompress>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An inflate state that goes back to the thread's kept ones when the layer leaves
/// the inflate phase or is dropped, so a compressed body does not allocate one. (Only
/// its drop takes the state out.)
struct Inflater(Option<Box<Decompress>>);

impl Inflater {
    /// A fresh state (a kept one reset, else a new one), with or without the zlib
    /// header.
    fn new(zlib: bool) -> Self {
        let kept = INFLATERS
            .try_with(|k| k.try_borrow_mut().ok()?.pop())
            .ok()
            .flatten();
        Inflater(Some(match kept {
            Some(mut d) => {
                // flate2: the same as replacing it with a freshly made state.
                d.reset(zlib);
                d
            }
            None => Box::new(Decompress::new(zlib)),
        }))
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        let Some(d) = self.0.take() else {
            return;
        };
        // During thread teardown the kept states may be gone: it is then freed.
        let _ = INFLATERS.try_with(|k| {
            if let Ok(mut k) = k.try_borrow_mut() {
                if k.len() < MAX_KEPT_INFLATERS {
                    k.push(d);
                }
            }
        });
    }
}

/// Where one layer is.
enum Phase {
    /// Collecting the first bytes to pick the format (`len` of them so far).
    Sniff { buf: [u8; SNIFF], len: usize },
    /// Collecting a gzip header of unknown length (in [`Layer::hdr`]).
    GzipHeader,
    /// Inflating.
    Inflate(Inflater),
    /// A gzip stream ended: its trailer (CRC-32 and size) is being collected to check
    /// it against the output (`len` bytes of it so far).
    Trailer { buf: [u8; 8], len: usize },
    /// Stream ended; later bytes (garbage) are ignored.
    Done,
    /// Not compressed after all: bytes go through unchanged.
    Passthrough,
}

struct Layer {
    phase: Phase,
    produced: bool,
    /// Every byte fed while nothing was produced yet, to pass through if it turns out
    /// not to be compressed (at most [`RAW_KEEP`] bytes).
    raw: Vec<u8>,
    raw_over: bool,
    /// A gzip header being collected ([`Phase::GzipHeader`]); the buffer is kept.
    hdr: Vec<u8>,
    /// Decompression failures libhtp would report (its `GZip decompressor` warnings)
    /// since [`Decoder::take_failures`] last asked.
    failures: u32,
    /// The coding the header declared for this layer.
    declared: Coding,
    /// Failures libhtp reports once this layer inflates bytes of the other format
    /// than the declared one (its first tries fail).
    mismatch: u32,
    /// The bytes were not in the declared format (the mismatch was seen): they are
    /// kept until the stream ends, in case it fails.
    guessed: bool,
    /// Such a stream failed: what it produced in this call is replaced by its bytes.
    revert: bool,
    /// Those failures, once due (reported on top of the other layers', since they
    /// concern other bytes).
    switched: u32,
    /// CRC-32 and length of a gzip stream's whole output (`None`: not gzip, or the
    /// output was cut at the cap, so the trailer cannot be checked).
    crc: Option<flate2::Crc>,
    /// An lzma layer's decoder (made at its first bytes).
    lz: Option<Box<LzmaDec>>,
    /// The lzma settings.
    limits: LzmaLimits,
    /// Input bytes this layer took (the compression-bomb ratio's base).
    wire: u64,
    /// `LZMA_MEMLIMIT_REACHED` events due.
    memlimits: u32,
    /// `COMPRESSION_BOMB` events due.
    bombs: u32,
    /// Bodies whose lzma decoding stopped at Osprey's own bound (8 times the larger
    /// limit) before the stream ended, not yet counted.
    cut: u32,
    /// The layer was found a compression bomb: later bytes are dropped, each chunk
    /// reported again, as libhtp does.
    bombed: bool,
    /// An lzma layer passed its bytes through in the last call: libhtp hands them to
    /// the body, past the layers after it.
    direct: bool,
}

/// libhtp restarts a failing decompressor this many times (other window sizes and
/// formats), reporting each failure, before it passes the body through.
const RESTARTS: u32 = 3;

/// Failures of a layer whose bytes are a stream of the other format (gzip declared
/// `deflate`, raw deflate declared `gzip`): its first try and a restart (sv-ether.pcap's
/// `gzip, deflate` and `deflate, gzip` responses, in either order of the bytes, give
/// Suricata four over their two layers; `gzip, gzip` and `deflate, deflate` none).
const MISMATCH: u32 = 2;

/// Bytes kept for passthrough before the first output.
const RAW_KEEP: usize = 64 * 1024;

/// Sniffing needs this many bytes (gzip magic or a zlib header).
const SNIFF: usize = 2;
/// A gzip header with name/comment/extra fields longer than this is treated as
/// not-gzip.
const GZIP_HEADER_MAX: usize = 4096;
const SCRATCH: usize = 16 * 1024;

impl Layer {
    fn new(declared: Coding) -> Self {
        Layer {
            declared,
            mismatch: 0,
            switched: 0,
            guessed: false,
            revert: false,
            crc: None,
            phase: Phase::Sniff {
                buf: [0; SNIFF],
                len: 0,
            },
            produced: false,
            raw: Vec::new(),
            raw_over: false,
            hdr: Vec::new(),
            failures: 0,
            lz: None,
            limits: LzmaLimits::default(),
            wire: 0,
            memlimits: 0,
            bombs: 0,
            cut: 0,
            bombed: false,
            direct: false,
        }
    }

    /// The layer [`Layer::new`] makes, keeping this one's emptied buffers (an inflate
    /// state goes back to the thread's kept ones).
    fn reset(&mut self, declared: Coding) {
        let mut raw = std::mem::take(&mut self.raw);
        let mut hdr = std::mem::take(&mut self.hdr);
        raw.clear();
        hdr.clear();
        if raw.capacity() > KEEP_RAW {
            raw = Vec::new();
        }
        let limits = self.limits;
        *self = Layer::new(declared);
        self.limits = limits;
        self.raw = raw;
        self.hdr = hdr;
    }

    /// Feeds `input`, appending at most `room` bytes to `out`. Returns `true` if the
    /// stream was found corrupt after it had produced output (counted by the caller).
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> bool {
        if self.declared == Coding::Lzma {
            return self.lzma_run(input, out, room, false);
        }
        let live = matches!(
            self.phase,
            Phase::Sniff { .. } | Phase::GzipHeader | Phase::Inflate(_)
        );
        if live && (!self.produced || self.guessed) && !self.raw_over {
            self.raw_over = push_capped(&mut self.raw, input, RAW_KEEP);
        }
        let start = out.len();
        let r = self.step(input, out, room);
        if std::mem::take(&mut self.revert) {
            out.truncate(start);
            self.pass_through(out, start + room);
        }
        if self.produced && !self.guessed {
            // Not needed any more: emptied (kept while small, for the next body when
            // the decoder is reused).
            if self.raw.capacity() > KEEP_RAW {
                self.raw = Vec::new();
            } else {
                self.raw.clear();
            }
        }
        r
    }

    /// Switches to passthrough, emitting everything fed so far.
    fn pass_through(&mut self, out: &mut Vec<u8>, limit: usize) {
        self.phase = Phase::Passthrough;
        push_room(out, &self.raw, limit);
        self.raw.clear();
    }

    fn step(&mut self, mut input: &[u8], out: &mut Vec<u8>, room: usize) -> bool {
        let start_len = out.len();
        let limit = start_len + room;
        loop {
            match &mut self.phase {
                Phase::Sniff { buf, len } => {
                    let take = (SNIFF - *len).min(input.len());
                    buf[*len..*len + take].copy_from_slice(&input[..take]);
                    *len += take;
                    input = &input[take..];
                    if *len < SNIFF {
                        return false;
                    }
                    let head = *buf;
                    if head[0] == 0x1f && head[1] == 0x8b {
                        if self.declared == Coding::Deflate {
                            self.mismatch = MISMATCH;
                            self.guessed = true;
                        }
                        self.hdr.clear();
                        self.hdr.extend_from_slice(&head);
                        self.phase = Phase::GzipHeader;
                    } else {
                        let zlib = head[0] & 0x0f == 8
                            && head[0] >> 4 <= 7
                            && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0;
                        if zlib && self.declared == Coding::Deflate {
                            // libhtp inflates `deflate` raw first: that try and its
                            // first restart fail before the zlib one works.
                            self.failures += 2;
                        }
                        if !zlib && self.declared == Coding::Gzip {
                            self.mismatch = MISMATCH;
                            self.guessed = true;
                        }
                        self.phase = Phase::Inflate(Inflater::new(zlib));
                        if self.inflate(&head, out, limit) {
                            return true;
                        }
                    }
                }
                Phase::GzipHeader => {
                    let buf = &mut self.hdr;
                    let before = buf.len();
                    let take = input
                        .len()
                        .min(GZIP_HEADER_MAX + 1 - before.min(GZIP_HEADER_MAX));
                    buf.extend_from_slice(&input[..take]);
                    match gzip_header_len(buf) {
                        GzHdr::Need if buf.len() <= GZIP_HEADER_MAX => return false,
                        GzHdr::Need | GzHdr::Bad => {
                            self.pass_through(out, limit);
                            return false;
                        }
                        GzHdr::Len(n) => {
                            if !zlib_accepts_header(&buf[..n]) {
                                // zlib refuses the header: the first try and a restart
                                // fail before libhtp gets past it.
                                self.failures += 2;
                            }
                            self.crc = Some(flate2::Crc::new());
                            // Bytes of `input` past what was taken belong after the
                            // header's rest.
                            input = &input[take..];
                            self.phase = Phase::Inflate(Inflater::new(false));
                            let hdr = std::mem::take(&mut self.hdr);
                            let corrupt = self.inflate(&hdr[n..], out, limit);
                            self.hdr = hdr;
                            self.hdr.clear();
                            if corrupt {
                                return true;
                            }
                        }
                    }
                }
                Phase::Inflate(_) => return self.inflate(input, out, limit),
                Phase::Trailer { .. } => {
                    self.trailer(input);
                    return false;
                }
                Phase::Done => return false,
                Phase::Passthrough => {
                    push_room(out, input, limit);
                    return false;
                }
            }
            if input.is_empty() {
                return false;
            }
        }
    }

    fn inflate(&mut self, mut input: &[u8], out: &mut Vec<u8>, limit: usize) -> bool {
        let Phase::Inflate(Inflater(Some(z))) = &mut self.phase else {
            return false;
        };
        let mut scratch = [0u8; SCRATCH];
        while !input.is_empty() && out.len() < limit {
            let (in0, out0) = (z.total_in(), z.total_out());
            let want = SCRATCH.min(limit - out.len());
            let res = z.decompress(input, &mut scratch[..want], FlushDecompress::None);
            let used = (z.total_in() - in0) as usize;
            let made = (z.total_out() - out0) as usize;
            out.extend_from_slice(&scratch[..made]);
            if let Some(c) = &mut self.crc {
                c.update(&scratch[..made]);
            }
            input = &input[used.min(input.len())..];
            if made > 0 && !self.produced {
                self.produced = true;
                self.switched += std::mem::take(&mut self.mismatch);
            }
            match res {
                Ok(Status::StreamEnd) => {
                    self.phase = if self.crc.is_some() {
                        Phase::Trailer {
                            buf: [0; 8],
                            len: 0,
                        }
                    } else {
                        Phase::Done
                    };
                    self.trailer(input);
                    return false;
                }
                Ok(_) if used == 0 && made == 0 => return false,
                Ok(_) => {}
                Err(_) => {
                    if self.guessed && self.produced {
                        // Bytes of neither format that happened to inflate a little
                        // (a JSON body declared gzip): every try failed, as for bytes
                        // that inflate to nothing, and they go through unchanged.
                        self.switched = 0;
                        self.failures += 1 + RESTARTS;
                        self.revert = true;
                        self.phase = Phase::Done;
                        return false;
                    }
                    if self.produced || self.raw_over {
                        self.failures += 1;
                        self.phase = Phase::Done;
                        return true;
                    }
                    // Data that is no compressed stream fails the first try and every
                    // restart.
                    self.failures += 1 + RESTARTS;
                    // Not compressed at all: libhtp passes such bodies through.
                    self.pass_through(out, limit);
                    return false;
                }
            }
        }
        if !input.is_empty() {
            // Output cut at the cap: the trailer cannot be checked.
            self.crc = None;
        }
        false
    }
}

impl Layer {
    /// Collects the gzip trailer from `input`; once whole, a CRC-32 or size that does
    /// not match the output is a failure (zlib's "incorrect data check").
    fn trailer(&mut self, input: &[u8]) {
        let Phase::Trailer { buf, len } = &mut self.phase else {
            return;
        };
        let take = input.len().min(8 - *len);
        buf[*len..*len + take].copy_from_slice(&input[..take]);
        *len += take;
        if *len < 8 {
            return;
        }
        let t = *buf;
        if let Some(c) = self.crc.take() {
            let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
            let len = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
            if crc != c.sum() || len != c.amount() {
                self.failures += 1;
            }
        }
        self.phase = Phase::Done;
    }
}

fn push_room(out: &mut Vec<u8>, data: &[u8], limit: usize) {
    let room = limit.saturating_sub(out.len());
    out.extend_from_slice(&data[..data.len().min(room)]);
}

/// The most output space a [`Decoder`] keeps between calls.
const KEEP_TMP: usize = 16 << 10;
/// The most passthrough space a layer of a kept decoder keeps.
const KEEP_RAW: usize = 4 << 10;
/// Most boxed decoders kept per thread for the next compressed body.
const MAX_KEPT_DECODERS: usize = 8;

thread_local! {
    /// Decoders of finished bodies with their layers and buffers (every worker is one
    /// thread: its own).
    #[allow(clippy::vec_box)]
    static DECODERS: std::cell::RefCell<Vec<Box<Decoder>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A chain of decoders for one body.
pub(crate) struct Decoder {
    layers: Vec<Layer>,
    /// Output space of the layers, kept between calls up to [`KEEP_TMP`] bytes each.
    tmp: Vec<u8>,
    /// The other layer's side of `tmp` (an output becomes the next layer's input).
    tmp2: Vec<u8>,
}

/// The lzma events a [`Decoder`] found since it was last asked
/// ([`Decoder::take_lzma_events`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LzmaEvents {
    /// `LZMA_MEMLIMIT_REACHED`.
    pub(crate) memlimit: u32,
    /// `COMPRESSION_BOMB`.
    pub(crate) bomb: u32,
    /// Decoding stopped at Osprey's bound with the stream unfinished (no event in
    /// libhtp; counted in `osprey.app.http.decompress_cut`).
    pub(crate) cut: u32,
}

impl Decoder {
    /// A decoder undoing `codings` in order.
    pub(crate) fn new(codings: &[Coding]) -> Self {
        Decoder {
            layers: codings.iter().map(|&c| Layer::new(c)).collect(),
            tmp: Vec::new(),
            tmp2: Vec::new(),
        }
    }

    /// The decoder a message with `Content-Encoding` value `ce` needs (at most `limit`
    /// layers), if it names a coding libhtp undoes: a kept one reset when there is one
    /// (give it back with [`Decoder::give`]), so a compressed body allocates none.
    pub(crate) fn boxed_for_header(
        ce: Option<&[u8]>,
        limit: usize,
        lzma: &LzmaLimits,
    ) -> Option<Box<Self>> {
        let c = codings_http1(ce?, limit, lzma).0;
        if c.is_empty() {
            return None;
        }
        let kept = DECODERS
            .try_with(|k| k.try_borrow_mut().ok()?.pop())
            .ok()
            .flatten();
        let mut d = match kept {
            Some(mut d) => {
                d.reset(&c);
                d
            }
            None => Box::new(Decoder::new(&c)),
        };
        for l in &mut d.layers {
            l.limits = *lzma;
        }
        Some(d)
    }

    /// Whether an lzma layer wants the bytes past the body limit (libhtp decodes
    /// them, and the memory limit or the bomb check may fire there).
    pub(crate) fn decodes_past_limit(&self) -> bool {
        self.layers
            .iter()
            .any(|l| l.declared == Coding::Lzma && !matches!(l.phase, Phase::Done))
    }

    /// Heap bytes of the lzma layers' decoders (window, tables, kept input).
    pub(crate) fn lzma_heap_bytes(&self) -> usize {
        self.layers
            .iter()
            .filter_map(|l| l.lz.as_ref())
            .map(|d| d.heap_bytes())
            .sum()
    }

    /// The lzma events since the last call.
    pub(crate) fn take_lzma_events(&mut self) -> LzmaEvents {
        let mut e = LzmaEvents::default();
        for l in &mut self.layers {
            e.memlimit += std::mem::take(&mut l.memlimits);
            e.bomb += std::mem::take(&mut l.bombs);
            e.cut += std::mem::take(&mut l.cut);
        }
        e
    }

    /// Makes this decoder the one [`Decoder::new`] makes for `codings`, keeping its
    /// layers' buffers.
    fn reset(&mut self, codings: &[Coding]) {
        self.layers.truncate(codings.len());
        for (l, &c) in self.layers.iter_mut().zip(codings) {
            l.reset(c);
        }
        for &c in &codings[self.layers.len()..] {
            self.layers.push(Layer::new(c));
        }
        self.tmp.clear();
        self.tmp2.clear();
    }

    /// Keeps a decoder whose body ended for [`Decoder::boxed_for_header`] (its inflate
    /// states go back to the thread's kept ones now), while there is room.
    pub(crate) fn give(mut d: Box<Self>) {
        for l in &mut d.layers {
            l.reset(l.declared);
        }
        // During thread teardown the kept decoders may be gone: it is then freed.
        let _ = DECODERS.try_with(|k| {
            if let Ok(mut k) = k.try_borrow_mut() {
                if k.len() < MAX_KEPT_DECODERS {
                    k.push(d);
                }
            }
        });
    }

    /// Decodes `input`, appending at most `room` bytes to `out`. Returns `true` if a
    /// layer found corrupt data after producing output.
    pub(crate) fn feed(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> bool {
        let mut corrupt = false;
        // The first layer reads `input` itself; each layer writes into the kept `tmp`
        // buffer, which then holds the next layer's input (no copy of `input`, no
        // allocation per chunk once the two buffers have grown).
        let mut cur: Vec<u8> = std::mem::take(&mut self.tmp2);
        let n = self.layers.len();
        for (i, layer) in self.layers.iter_mut().enumerate() {
            self.tmp.clear();
            // Only the last layer's output is capped to `room`; an intermediate layer holds
            // still-compressed data, which is smaller than what it expands to.
            let cap = if i + 1 == n {
                room
            } else {
                room.saturating_add(1 << 16)
            };
            let src: &[u8] = if i == 0 { input } else { &cur };
            corrupt |= layer.feed(src, &mut self.tmp, cap);
            std::mem::swap(&mut cur, &mut self.tmp);
            if layer.direct {
                // Passed through by an lzma layer: not for the layers after it.
                break;
            }
        }
        push_room(out, if n == 0 { input } else { &cur }, out.len() + room);
        // The decoder keeps both buffers while they are small (a flow waiting for more
        // body holds no large buffer).
        for b in [&mut cur, &mut self.tmp] {
            b.clear();
            if b.capacity() > KEEP_TMP {
                *b = Vec::new();
            }
        }
        self.tmp2 = cur;
        corrupt
    }

    /// Decompression failures since the last call (libhtp reports each one as
    /// `GZIP_DECOMPRESSION_FAILED`; when several layers fail on the same bytes, it
    /// reports those of one).
    pub(crate) fn take_failures(&mut self) -> u32 {
        let switched: u32 = self
            .layers
            .iter_mut()
            .map(|l| std::mem::take(&mut l.switched))
            .sum();
        self.layers
            .iter_mut()
            .map(|l| std::mem::take(&mut l.failures))
            .max()
            .unwrap_or(0)
            + switched
    }

    /// Flushes a stream that ended while the format was still being sniffed.
    pub(crate) fn finish(&mut self, out: &mut Vec<u8>, room: usize) {
        let end = out.len().saturating_add(room);
        // A body shorter than the sniff window cannot be compressed: pass it through.
        if let Some(Layer {
            phase: Phase::Sniff { buf, len },
            ..
        }) = self.layers.first_mut()
        {
            let n = std::mem::take(len);
            push_room(out, &buf[..n], out.len() + room);
        }
        // An lzma layer decodes the bytes it kept for a symbol with what there is;
        // its output goes through the layers after it.
        for i in 0..self.layers.len() {
            let l = &self.layers[i];
            if l.declared != Coding::Lzma || (l.lz.is_none() && !l.bombed) {
                continue;
            }
            let mut cur = Vec::new();
            let last = i + 1 == self.layers.len();
            let room = end.saturating_sub(out.len());
            let cap = if last {
                room
            } else {
                room.saturating_add(1 << 16)
            };
            self.layers[i].lzma_run(&[], &mut cur, cap, true);
            let n = self.layers.len();
            for (j, l) in self.layers.iter_mut().enumerate().skip(i + 1) {
                let mut next = Vec::new();
                let cap = if j + 1 == n {
                    room
                } else {
                    room.saturating_add(1 << 16)
                };
                l.feed(&cur, &mut next, cap);
                cur = next;
            }
            push_room(out, &cur, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use std::io::Write;

    fn gz(d: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(d).unwrap();
        e.finish().unwrap()
    }
    fn zl(d: &[u8]) -> Vec<u8> {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(d).unwrap();
        e.finish().unwrap()
    }
    fn raw(d: &[u8]) -> Vec<u8> {
        let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
        e.write_all(d).unwrap();
        e.finish().unwrap()
    }

    fn run(c: &[Coding], data: &[u8], split: usize, room: usize) -> Vec<u8> {
        let mut d = Decoder::new(c);
        let mut out = Vec::new();
        for chunk in data.chunks(split.max(1)) {
            let r = room - out.len().min(room);
            d.feed(chunk, &mut out, r);
        }
        let r = room - out.len().min(room);
        d.finish(&mut out, r);
        out
    }

    #[test]
    fn kept_inflate_states_decode_the_next_bodies_as_fresh_ones() {
        let kept = || INFLATERS.with(|k| k.borrow().len());
        let text: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        // A body cut off mid-stream leaves its state dirty; it is kept on drop.
        let g = gz(&text);
        let _ = run(&[Coding::Gzip], &g[..g.len() / 2], 100, usize::MAX);
        assert_eq!(kept(), 1);
        // The next bodies (gzip, zlib, raw deflate) take it, reset, and decode right.
        for (c, data) in [
            (Coding::Gzip, gz(&text)),
            (Coding::Deflate, zl(&text)),
            (Coding::Deflate, raw(&text)),
        ] {
            assert_eq!(run(&[c], &data, 333, usize::MAX), text);
            assert_eq!(kept(), 1);
        }
        // Bounded: many layers alive at once give back at most the bound.
        let mut many: Vec<Decoder> = (0..MAX_KEPT_INFLATERS + 3)
            .map(|_| Decoder::new(&[Coding::Gzip]))
            .collect();
        let mut out = Vec::new();
        for d in &mut many {
            d.feed(&g[..40], &mut out, usize::MAX);
        }
        assert_eq!(kept(), 0);
        drop(many);
        assert_eq!(kept(), MAX_KEPT_INFLATERS);
    }

    /// Decodes `data` in chunks of `split` with `d`: the output and the failures.
    fn decode_with(d: &mut Decoder, data: &[u8], split: usize) -> (Vec<u8>, u32) {
        let mut out = Vec::new();
        let mut failures = 0;
        for chunk in data.chunks(split) {
            d.feed(chunk, &mut out, 1 << 20);
            failures += d.take_failures();
        }
        d.finish(&mut out, 1 << 20);
        (out, failures + d.take_failures())
    }

    #[test]
    fn kept_decoders_decode_the_next_bodies_as_new_ones() {
        DECODERS.with(|k| k.borrow_mut().clear());
        let text = b"kept decoder body ".repeat(300);
        let mut gzip_header = gz(&text);
        // A gzip header with a file name: collected in the kept header buffer.
        gzip_header[3] |= 8;
        gzip_header.splice(10..10, b"name.txt\0".iter().copied());
        let cases: [(&[u8], Vec<u8>); 7] = [
            (b"gzip", gz(&text)),
            (b"deflate", zl(&text)),
            (b"deflate", raw(&text)),
            (b"gzip", gzip_header),
            (b"deflate, gzip", gz(&zl(&text))),
            (b"gzip", text.clone()),
            (b"gzip", b"x".to_vec()),
        ];
        // Twice over: the second round reuses decoders that decoded other formats.
        for round in 0..2 {
            for (ce, data) in &cases {
                let mut d = Decoder::boxed_for_header(Some(ce), 2, &LzmaLimits::default()).unwrap();
                let got = decode_with(&mut d, data, 7);
                let want = decode_with(&mut Decoder::new(&codings(ce, 2)), data, 7);
                assert_eq!(got, want, "{} round {round}", String::from_utf8_lossy(ce));
                Decoder::give(d);
                assert_eq!(DECODERS.with(|k| k.borrow().len()), 1);
            }
        }
        assert!(Decoder::boxed_for_header(Some(b"br"), 2, &LzmaLimits::default()).is_none());
        // Bounded.
        for _ in 0..MAX_KEPT_DECODERS + 2 {
            Decoder::give(Box::new(Decoder::new(&[Coding::Gzip])));
        }
        assert_eq!(DECODERS.with(|k| k.borrow().len()), MAX_KEPT_DECODERS);
        DECODERS.with(|k| k.borrow_mut().clear());
    }

    #[test]
    fn codings_parse() {
        assert_eq!(codings(b"gzip", 2).as_slice(), [Coding::Gzip]);
        // Listed order, as libhtp (see `layers_of_the_other_format_fail_first`).
        assert_eq!(
            codings(b"gzip, deflate", 2).as_slice(),
            [Coding::Gzip, Coding::Deflate]
        );
        assert_eq!(codings(b"gzip, gzip, gzip", 2).len(), 2);
        assert!(codings(b"br", 2).is_empty());
        assert!(codings(b"identity", 2).is_empty());
        // NUL bytes are ignored; an unknown token ends the list.
        assert_eq!(
            codings(b"gz\0ip, x-deflate, br, gzip", 4).as_slice(),
            [Coding::Gzip, Coding::Deflate]
        );
    }

    #[test]
    fn formats_any_split() {
        let text = b"hello hello hello EICAR body".repeat(50);
        for enc in [gz(&text), zl(&text), raw(&text)] {
            for split in [1, 2, 3, 7, 100, 100_000] {
                for c in [Coding::Gzip, Coding::Deflate] {
                    assert_eq!(run(&[c], &enc, split, 1 << 20), text, "split {split}");
                }
            }
        }
    }

    #[test]
    fn gzip_faults_count_as_libhtp_reports_them() {
        let text = b"hello hello hello EICAR body".repeat(5);
        let fails = |data: &[u8], c: Coding| {
            let mut d = Decoder::new(&[c]);
            let mut out = Vec::new();
            d.feed(data, &mut out, 1 << 20);
            (out, d.take_failures())
        };
        let good = gz(&text);
        assert_eq!(fails(&good, Coding::Gzip), (text.clone(), 0));
        // A corrupt CRC in the trailer: the body is there, one failure.
        let mut bad_crc = good.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 0xff;
        assert_eq!(fails(&bad_crc, Coding::Gzip), (text.clone(), 1));
        // A reserved header flag: zlib refuses it (two failures).
        let mut reserved = good.clone();
        reserved[3] |= 0x20;
        assert_eq!(fails(&reserved, Coding::Gzip).1, 2);
        // `deflate` sent with a zlib header; not compressed at all.
        assert_eq!(fails(&zl(&text), Coding::Deflate), (text.clone(), 2));
        assert_eq!(fails(b"plain text body", Coding::Gzip).1, 4);
    }

    #[test]
    fn two_layers() {
        let text = b"layered".repeat(10);
        let enc = gz(&zl(&text));
        // Content-Encoding: deflate, gzip: the gzip layer is undone first whatever the
        // order (each layer finds its format).
        assert_eq!(run(&codings(b"deflate, gzip", 2), &enc, 5, 1 << 20), text);
    }

    #[test]
    fn layers_of_the_other_format_fail_first() {
        let text = b"X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR".repeat(2);
        let undo = |ce: &[u8], enc: &[u8]| {
            let mut d = Decoder::new(&codings(ce, 2));
            let mut out = Vec::new();
            d.feed(enc, &mut out, 1 << 20);
            (out, d.take_failures())
        };
        // sv-ether.pcap: `gzip,deflate` over deflate(gzip(x)) and `deflate,gzip` over
        // gzip(deflate(x)): Suricata decodes them and reports four failures each.
        assert_eq!(undo(b"gzip,deflate", &raw(&gz(&text))), (text.clone(), 4));
        assert_eq!(undo(b"deflate,gzip", &gz(&raw(&text))), (text.clone(), 4));
        // The same coding twice: none.
        assert_eq!(undo(b"gzip,gzip", &gz(&gz(&text))), (text.clone(), 0));
        assert_eq!(
            undo(b"deflate,deflate", &raw(&raw(&text))),
            (text.clone(), 0)
        );
    }

    #[test]
    fn passthrough_and_cap() {
        assert_eq!(
            run(&[Coding::Gzip], b"plain text body", 3, 100),
            b"plain text body"
        );
        assert_eq!(run(&[Coding::Gzip], b"x", 3, 100), b"x");
        let bomb = gz(&vec![0u8; 10 << 20]);
        let out = run(&[Coding::Gzip], &bomb, 4096, 1000);
        assert_eq!(out.len(), 1000);
    }

    const LZ_TEXT: &[u8] = include_bytes!("testdata/text.txt.lzma");
    const LZ_BOMB_DICT64K: &[u8] = include_bytes!("testdata/bomb-a3m-dict64k.lzma");
    const LZ_BOMB_DICT8M: &[u8] = include_bytes!("testdata/bomb-a3m-dict8m.lzma");

    fn lz_text() -> Vec<u8> {
        (0..3000)
            .flat_map(|i| {
                format!("line {i} of the lzma test text, with some words repeated\n").into_bytes()
            })
            .collect()
    }

    const LZMA_ON: LzmaLimits = LzmaLimits {
        layers: 1,
        memlimit: 1 << 20,
        bomb_limit: 1 << 20,
    };

    /// Decodes `data` declared `ce` with lzma on, in chunks of `split`, the output
    /// kept up to `room`: output, failures, and the lzma events after each chunk.
    fn lz_run(
        ce: &[u8],
        data: &[u8],
        split: usize,
        room: usize,
    ) -> (Vec<u8>, u32, Vec<LzmaEvents>) {
        let mut d = Decoder::boxed_for_header(Some(ce), 2, &LZMA_ON).expect("a decoder");
        let (mut out, mut failures, mut events) = (Vec::new(), 0, Vec::new());
        for c in data.chunks(split) {
            let r = room.saturating_sub(out.len());
            d.feed(c, &mut out, r);
            failures += d.take_failures();
            events.push(d.take_lzma_events());
        }
        let r = room.saturating_sub(out.len());
        d.finish(&mut out, r);
        failures += d.take_failures();
        events.push(d.take_lzma_events());
        Decoder::give(d);
        (out, failures, events)
    }

    #[test]
    fn lzma_codings_follow_libhtp() {
        let on = LZMA_ON;
        let off = LzmaLimits::default();
        let c = |v: &[u8], l: &LzmaLimits| {
            let (c, bomb) = codings_http1(v, 2, l);
            (c.to_vec(), bomb)
        };
        // Exactly `lzma` (any case): one layer when on, passed through when off.
        assert_eq!(c(b"lzma", &on), (vec![Coding::Lzma], false));
        assert_eq!(c(b"LZMA", &on), (vec![Coding::Lzma], false));
        assert_eq!(c(b"lzma", &off), (vec![], false));
        // Surrounding spaces and NUL bytes do not count (both ways of reading it).
        assert_eq!(c(b" Lzma ", &on), (vec![Coding::Lzma], false));
        assert_eq!(c(b"l\0zm\0a\0", &on), (vec![Coding::Lzma], false));
        assert_eq!(c(b" \0lzma", &on), (vec![Coding::Lzma], false));
        // In a list, `lzma` needs fewer layers before it than `lzma-enabled` allows;
        // else the list ends there with a compression bomb.
        assert_eq!(
            c(b"lzma, gzip", &on),
            (vec![Coding::Lzma, Coding::Gzip], false)
        );
        assert_eq!(c(b"gzip, lzma", &on), (vec![Coding::Gzip], true));
        assert_eq!(c(b"lzma, lzma", &on), (vec![Coding::Lzma], true));
        assert_eq!(c(b"lzma, gzip", &off), (vec![], true));
        assert_eq!(c(b"gzip, lzma", &off), (vec![Coding::Gzip], true));
        // `LZMA` in a list and `x-lzma` are unknown: the list ends.
        assert_eq!(c(b"gzip, LZMA", &on), (vec![Coding::Gzip], false));
        assert_eq!(c(b"x-lzma", &on), (vec![], false));
        // HTTP/2 knows no lzma.
        assert!(codings(b"lzma", 2).is_empty());
    }

    #[test]
    fn lzma_bodies_as_suricata_decodes_them() {
        let text = lz_text();
        for split in [1, 9, 100, 1400] {
            let (out, failures, _) = lz_run(b"lzma", LZ_TEXT, split, 1 << 20);
            assert_eq!((out.len(), failures), (text.len(), 0), "split {split}");
            assert_eq!(out, text);
        }
        // Capped output: the rest is decoded, not kept.
        assert_eq!(lz_run(b"lzma", LZ_TEXT, 100, 1000).0, text[..1000]);
        // Not lzma at all (the range coder's first byte is not 0): a try and a
        // restart fail, the chunk goes through, and the later ones.
        let plain = b"X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";
        assert_eq!(lz_run(b"lzma", plain, 40, 1 << 20).0, plain);
        assert_eq!(lz_run(b"lzma", plain, 40, 1 << 20).1, 2);
        // Corrupt after some output: one failure, that output only.
        let mut bad = LZ_TEXT.to_vec();
        for b in &mut bad[200..] {
            *b ^= 0x55;
        }
        let (out, failures, _) = lz_run(b"lzma", &bad, 1400, 1 << 20);
        assert_eq!(failures, 1);
        assert!(!out.is_empty() && text.starts_with(&out[..out.len().min(100)]));
        // xz data declared lzma: the body vanishes, no failure.
        let mut xz = LZ_TEXT.to_vec();
        xz[0] = 0xfd;
        assert_eq!(
            lz_run(b"lzma", &xz, 1400, 1 << 20).0.len()
                + lz_run(b"lzma", &xz, 1400, 1 << 20).1 as usize,
            0
        );
    }

    #[test]
    fn lzma_limits_raise_their_events() {
        let total = |e: &[LzmaEvents]| {
            e.iter().fold(LzmaEvents::default(), |a, b| LzmaEvents {
                memlimit: a.memlimit + b.memlimit,
                bomb: a.bomb + b.bomb,
                cut: a.cut + b.cut,
            })
        };
        // An 8 MiB dictionary: the memory limit at 1 MiB of output, two failures, the
        // chunk passed through.
        let (out, failures, ev) = lz_run(b"lzma", LZ_BOMB_DICT8M, 1400, usize::MAX);
        assert_eq!((out.len(), failures), ((1 << 20) + LZ_BOMB_DICT8M.len(), 2));
        assert_eq!(
            total(&ev),
            LzmaEvents {
                memlimit: 1,
                bomb: 0,
                cut: 0
            }
        );
        // A 64 KiB dictionary: the bomb check stops it at a 4 KiB buffer past 1 MiB
        // where the output is over 2048 times the input, and every later chunk and
        // the end of the body report it again.
        let (out, failures, ev) = lz_run(b"lzma", LZ_BOMB_DICT64K, 100, usize::MAX);
        assert_eq!((out.len() % 4096, failures), (0, 0));
        assert!(out.len() > 1 << 20 && out.len() < 1 << 21, "{}", out.len());
        let first = ev.iter().position(|e| e.bomb > 0).expect("a bomb");
        assert!(ev[first..].iter().all(|e| e.bomb == 1));
        // In one chunk: twice (Suricata 7.0.10).
        let (_, _, ev) = lz_run(b"lzma", LZ_BOMB_DICT64K, 1400, usize::MAX);
        assert_eq!(total(&ev).bomb, 2);
    }

    #[test]
    fn lzma_decoding_past_its_bound_is_counted() {
        // 128 KiB limits: decoding stops at 1 MiB of output (8 times the larger limit),
        // before the 533-byte body's ratio (over 2048 past 1.09 MB) makes it a bomb.
        let small = LzmaLimits {
            layers: 1,
            memlimit: 128 << 10,
            bomb_limit: 128 << 10,
        };
        let mut d = Decoder::boxed_for_header(Some(b"lzma"), 2, &small).expect("a decoder");
        let mut out = Vec::new();
        d.feed(LZ_BOMB_DICT64K, &mut out, usize::MAX);
        d.finish(&mut out, usize::MAX);
        let e = d.take_lzma_events();
        assert_eq!((e.cut, e.bomb, e.memlimit), (1, 0, 0));
        assert_eq!(out.len(), 1 << 20);
        assert_eq!(d.take_lzma_events(), LzmaEvents::default());
        // With the default limits the same body ends as a bomb, never cut.
        let (_, _, ev) = lz_run(b"lzma", LZ_BOMB_DICT64K, 1400, usize::MAX);
        assert!(ev.iter().all(|e| e.cut == 0));
    }

    #[test]
    fn an_lzma_layer_passes_through_past_the_next_layers() {
        // `lzma, gzip` over gzip data: the lzma layer fails, and the gzip bytes reach
        // the body undecoded (Suricata 7.0.10).
        let text = lz_text();
        let g = gz(&text[..500]);
        let (out, failures, _) = lz_run(b"lzma, gzip", &g, 1400, 1 << 20);
        assert_eq!((out, failures), (g, 2));
    }
}
