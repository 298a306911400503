//! A streaming decoder of `lzma`-alone data (`Content-Encoding: lzma`), written from
//! the public-domain LZMA specification (Igor Pavlov's `lzma-specification.txt`).
//!
//! libhtp (Suricata 7.0.10) decodes such bodies with 7-Zip's `LzmaDec` when
//! `lzma-enabled` is set. What it does, checked against Suricata 7.0.10 (the cases in
//! `crates/cli/tests/data/http-lzma.pcap`, see `crates/cli/tests/http_lzma.rs`):
//!
//! - the 13-byte header (5 property bytes, 8 bytes of size) is collected first; a body
//!   cut inside it gives nothing, and property bytes over 224 (xz data declared `lzma`)
//!   make the whole body vanish without an event;
//! - symbols are decoded as soon as their bytes are there, so a cut body gives what
//!   its whole symbols hold, without an event; bytes after the end marker are
//!   ignored, and the header's size is not read (a body announcing 10 bytes is decoded
//!   to its end marker);
//! - the dictionary grows with the output: a header's dictionary larger than
//!   `lzma-memlimit` is fine until the output reaches the limit, which is an error.
//!
//! Why not the `lzma-rs` crate: its streaming decoder writes output only when its
//! circular dictionary fills or at the end, so a body's decoded bytes would reach the
//! rules late, and on a memory-limit error its output is lost; libhtp hands each
//! symbol's bytes on as it decodes them. This decoder keeps the input bytes of at most
//! one symbol (20) between calls and grows its window up to the smaller of the
//! dictionary size and the memory limit, so hostile input costs bounded memory.

/// The most input one symbol reads (`LZMA_REQUIRED_INPUT_MAX`): a symbol is decoded
/// once this many bytes are there, or at the end of the body with what is left.
const MAX_SYMBOL_INPUT: usize = 20;
/// Header: 1 byte of lc/lp/pb, 4 of dictionary size, 8 of uncompressed size.
pub(crate) const HEADER_LEN: usize = 13;

const PROB_INIT: u16 = 1 << 10;
const TOP: u32 = 1 << 24;
const STATES: usize = 12;
const POS_STATES_MAX: usize = 1 << 4;
const END_POS_MODEL: usize = 14;
const FULL_DISTANCES: usize = 128;
const MATCH_MIN_LEN: usize = 2;

// Offsets of the probability tables in one array.
const IS_MATCH: usize = 0;
const IS_REP: usize = IS_MATCH + STATES * POS_STATES_MAX;
const IS_REP_G0: usize = IS_REP + STATES;
const IS_REP_G1: usize = IS_REP_G0 + STATES;
const IS_REP_G2: usize = IS_REP_G1 + STATES;
const IS_REP0_LONG: usize = IS_REP_G2 + STATES;
const POS_SLOT: usize = IS_REP0_LONG + STATES * POS_STATES_MAX;
const SPEC_POS: usize = POS_SLOT + 4 * 64;
const ALIGN: usize = SPEC_POS + 1 + FULL_DISTANCES - END_POS_MODEL;
/// A length decoder: choice, choice2, low (16 trees of 8), mid (16 of 8), high (256).
const LEN_SIZE: usize = 2 + 2 * POS_STATES_MAX * 8 + 256;
const LEN: usize = ALIGN + 16;
const REP_LEN: usize = LEN + LEN_SIZE;
const LITERAL: usize = REP_LEN + LEN_SIZE;

/// Why decoding stopped for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The header's property byte is over 224: libhtp drops the body silently.
    BadProps,
    /// Corrupt data (libhtp's `SZ_ERROR_DATA`).
    Data,
    /// The output reached the memory limit with a larger dictionary
    /// (`LZMA_MEMLIMIT_REACHED`).
    MemLimit,
    /// The end marker.
    End,
}

/// The input ran out inside a symbol.
struct Short;

/// The range decoder over a slice, reading from `pos`.
struct Rc<'a> {
    range: u32,
    code: u32,
    data: &'a [u8],
    pos: usize,
}

impl Rc<'_> {
    #[inline]
    fn byte(&mut self) -> Result<u8, Short> {
        let b = *self.data.get(self.pos).ok_or(Short)?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn normalize(&mut self) -> Result<(), Short> {
        if self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.byte()?);
        }
        Ok(())
    }

    #[inline]
    fn bit(&mut self, p: &mut u16) -> Result<u32, Short> {
        self.normalize()?;
        let bound = (self.range >> 11) * u32::from(*p);
        if self.code < bound {
            self.range = bound;
            *p += ((1 << 11) - *p) >> 5;
            Ok(0)
        } else {
            self.range -= bound;
            self.code -= bound;
            *p -= *p >> 5;
            Ok(1)
        }
    }

    fn tree(&mut self, probs: &mut [u16], bits: u32) -> Result<u32, Short> {
        let mut m = 1usize;
        for _ in 0..bits {
            m = (m << 1) + self.bit(&mut probs[m])? as usize;
        }
        Ok(m as u32 - (1 << bits))
    }

    fn reverse(&mut self, probs: &mut [u16], bits: u32) -> Result<u32, Short> {
        let (mut m, mut sym) = (1usize, 0u32);
        for i in 0..bits {
            let b = self.bit(&mut probs[m])?;
            m = (m << 1) + b as usize;
            sym |= b << i;
        }
        Ok(sym)
    }

    fn direct(&mut self, bits: u32) -> Result<u32, Short> {
        let mut res = 0u32;
        for _ in 0..bits {
            self.normalize()?;
            self.range >>= 1;
            let (code, borrow) = self.code.overflowing_sub(self.range);
            let bit = u32::from(!borrow);
            if !borrow {
                self.code = code;
            }
            res = (res << 1) | bit;
        }
        Ok(res)
    }

    fn len(&mut self, probs: &mut [u16], pos_state: usize) -> Result<usize, Short> {
        let (choice, rest) = probs.split_at_mut(1);
        if self.bit(&mut choice[0])? == 0 {
            let low = &mut rest[1 + pos_state * 8..1 + pos_state * 8 + 8];
            return Ok(self.tree(low, 3)? as usize);
        }
        if self.bit(&mut rest[0])? == 0 {
            let at = 1 + POS_STATES_MAX * 8 + pos_state * 8;
            return Ok(8 + self.tree(&mut rest[at..at + 8], 3)? as usize);
        }
        let at = 1 + 2 * POS_STATES_MAX * 8;
        Ok(16 + self.tree(&mut rest[at..at + 256], 8)? as usize)
    }
}

/// One decoded symbol.
enum Symbol {
    Literal(u8),
    /// A match: length and distance (0 is the last byte).
    Match(usize, u32),
    End,
}

/// The streaming decoder of one body.
pub(crate) struct LzmaDec {
    header: [u8; HEADER_LEN],
    header_len: usize,
    /// Range decoder initialised (its 5 bytes read).
    started: bool,
    lc: u32,
    lp: u32,
    pb: u32,
    dict_size: u32,
    memlimit: usize,
    probs: Vec<u16>,
    range: u32,
    code: u32,
    state: usize,
    reps: [u32; 4],
    /// The window: grows with the output up to `win_cap`, then circular.
    win: Vec<u8>,
    win_cap: usize,
    win_pos: usize,
    /// Bytes decoded so far.
    total: u64,
    /// Input bytes kept between calls (fewer than a symbol may need).
    pend: Vec<u8>,
    /// Bytes of a match still to copy when `until` paused it, and its distance.
    rem: (usize, u32),
    stopped: Option<Stop>,
}

impl LzmaDec {
    /// A decoder whose window and tables may not exceed `memlimit` bytes
    /// (`lzma-memlimit`).
    pub(crate) fn new(memlimit: usize) -> Self {
        LzmaDec {
            header: [0; HEADER_LEN],
            header_len: 0,
            started: false,
            lc: 0,
            lp: 0,
            pb: 0,
            dict_size: 0,
            memlimit,
            probs: Vec::new(),
            range: u32::MAX,
            code: 0,
            state: 0,
            reps: [0; 4],
            win: Vec::new(),
            win_cap: 0,
            win_pos: 0,
            total: 0,
            pend: Vec::new(),
            rem: (0, 0),
            stopped: None,
        }
    }

    /// Bytes decoded so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Why decoding stopped, if it did.
    pub(crate) fn stopped(&self) -> Option<Stop> {
        self.stopped
    }

    /// Heap bytes held (window, tables, kept input).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.win.capacity() + self.probs.capacity() * 2 + self.pend.capacity()
    }

    /// Decodes `input`, appending output to `out` while it is shorter than `limit`
    /// (bytes past it are decoded and counted, not kept), until the input runs out,
    /// the stream stops, or [`LzmaDec::total`] reaches `until` (the bytes not decoded
    /// then are kept: feed nothing to go on). `last`: no more input comes, so the
    /// bytes kept for a symbol are decoded with what there is.
    pub(crate) fn feed(
        &mut self,
        mut input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
        until: u64,
        last: bool,
    ) {
        if self.stopped.is_some() {
            return;
        }
        if self.header_len < HEADER_LEN {
            let take = (HEADER_LEN - self.header_len).min(input.len());
            self.header[self.header_len..self.header_len + take].copy_from_slice(&input[..take]);
            self.header_len += take;
            input = &input[take..];
            if self.header_len < HEADER_LEN || !self.read_header() {
                return;
            }
        }
        if self.rem.0 > 0 {
            let (len, dist) = std::mem::take(&mut self.rem);
            self.copy(len, dist, out, limit, until);
        }
        let mut data = std::mem::take(&mut self.pend);
        data.extend_from_slice(input);
        let mut rc = Rc {
            range: self.range,
            code: self.code,
            data: &data,
            pos: 0,
        };
        if !self.started {
            if data.len() < 5 {
                self.pend = data;
                return;
            }
            self.started = true;
            rc.code = u32::from_be_bytes([data[1], data[2], data[3], data[4]]);
            rc.pos = 5;
            rc.range = u32::MAX;
            if data[0] != 0 || rc.code == u32::MAX {
                self.stopped = Some(Stop::Data);
                return;
            }
            // The tables, once the stream starts well: at most 6 MiB (lc + lp <= 12),
            // as libhtp's decoder allocates them whatever `lzma-memlimit` says.
            let n = LITERAL + (0x300usize << (self.lc + self.lp));
            self.probs.clear();
            self.probs.resize(n, PROB_INIT);
        }
        while self.stopped.is_none() && self.total < until {
            let avail = data.len() - rc.pos;
            if avail == 0 || (!last && avail < MAX_SYMBOL_INPUT) {
                break;
            }
            let saved = (rc.range, rc.code, rc.pos);
            match self.symbol(&mut rc) {
                Ok(Symbol::End) => self.stopped = Some(Stop::End),
                Ok(Symbol::Literal(b)) => {
                    self.literal_state();
                    self.put(b, out, limit);
                }
                Ok(Symbol::Match(len, dist)) => self.copy(len, dist, out, limit, until),
                Err(Short) => {
                    // Only at the end of the body: the cut symbol is dropped.
                    (rc.range, rc.code, rc.pos) = saved;
                    break;
                }
            }
        }
        self.range = rc.range;
        self.code = rc.code;
        let used = rc.pos;
        if self.stopped.is_none() {
            data.drain(..used);
            self.pend = data;
        }
    }

    /// Parses the collected header; `false` when decoding cannot start.
    fn read_header(&mut self) -> bool {
        let mut d = u32::from(self.header[0]);
        if d >= 9 * 5 * 5 {
            self.stopped = Some(Stop::BadProps);
            return false;
        }
        self.lc = d % 9;
        d /= 9;
        self.lp = d % 5;
        self.pb = d / 5;
        let dict = u32::from_le_bytes([
            self.header[1],
            self.header[2],
            self.header[3],
            self.header[4],
        ]);
        self.dict_size = dict.max(1 << 12);
        // The size bytes are not read: libhtp's decoder goes to the end marker (or the
        // end of the body) whatever they say (Suricata 7.0.10 decodes a body whose
        // header announces 10 bytes in full).
        self.win_cap = self.dict_size as usize;
        true
    }

    /// The byte `dist` back (0: the last one); 0 before the start, as `LzmaDec`.
    #[inline]
    fn back(&self, dist: usize) -> u8 {
        if self.win.is_empty() || dist >= self.win.len() {
            return 0;
        }
        let i = if self.win_pos > dist {
            self.win_pos - dist - 1
        } else {
            self.win.len() + self.win_pos - dist - 1
        };
        self.win[i]
    }

    /// Decodes one symbol; the probabilities and range decoder move, the state, reps
    /// and window do not (the caller applies the symbol).
    fn symbol(&mut self, rc: &mut Rc<'_>) -> Result<Symbol, Short> {
        let pos_state = (self.total & ((1 << self.pb) - 1)) as usize;
        let st = self.state;
        if rc.bit(&mut self.probs[IS_MATCH + (st << 4) + pos_state])? == 0 {
            let prev = u32::from(self.back(0));
            let lit_state =
                (((self.total & ((1 << self.lp) - 1)) as u32) << self.lc) + (prev >> (8 - self.lc));
            let base = LITERAL + 0x300 * lit_state as usize;
            let mut sym = 1usize;
            if st >= 7 {
                let mut mb = u32::from(self.back(self.reps[0] as usize));
                while sym < 0x100 {
                    let mbit = ((mb >> 7) & 1) as usize;
                    mb <<= 1;
                    let b = rc.bit(&mut self.probs[base + ((1 + mbit) << 8) + sym])? as usize;
                    sym = (sym << 1) | b;
                    if mbit != b {
                        break;
                    }
                }
            }
            while sym < 0x100 {
                sym = (sym << 1) | rc.bit(&mut self.probs[base + sym])? as usize;
            }
            return Ok(Symbol::Literal((sym - 0x100) as u8));
        }
        let mut reps = self.reps;
        let len;
        let new_state;
        if rc.bit(&mut self.probs[IS_REP + st])? != 0 {
            if rc.bit(&mut self.probs[IS_REP_G0 + st])? == 0 {
                if rc.bit(&mut self.probs[IS_REP0_LONG + (st << 4) + pos_state])? == 0 {
                    return Ok(self.short_rep());
                }
            } else {
                let dist;
                if rc.bit(&mut self.probs[IS_REP_G1 + st])? == 0 {
                    dist = reps[1];
                } else {
                    if rc.bit(&mut self.probs[IS_REP_G2 + st])? == 0 {
                        dist = reps[2];
                    } else {
                        dist = reps[3];
                        reps[3] = reps[2];
                    }
                    reps[2] = reps[1];
                }
                reps[1] = reps[0];
                reps[0] = dist;
            }
            len = rc.len(&mut self.probs[REP_LEN..REP_LEN + LEN_SIZE], pos_state)?;
            new_state = if st < 7 { 8 } else { 11 };
        } else {
            reps = [0, reps[0], reps[1], reps[2]];
            len = rc.len(&mut self.probs[LEN..LEN + LEN_SIZE], pos_state)?;
            new_state = if st < 7 { 7 } else { 10 };
            reps[0] = self.distance(rc, len)?;
            if reps[0] == u32::MAX {
                return Ok(Symbol::End);
            }
        }
        self.reps = reps;
        self.state = new_state;
        Ok(Symbol::Match(len + MATCH_MIN_LEN, reps[0]))
    }

    fn short_rep(&mut self) -> Symbol {
        self.state = if self.state < 7 { 9 } else { 11 };
        Symbol::Match(1, self.reps[0])
    }

    fn distance(&mut self, rc: &mut Rc<'_>, len: usize) -> Result<u32, Short> {
        let len_state = len.min(3);
        let at = POS_SLOT + len_state * 64;
        let slot = rc.tree(&mut self.probs[at..at + 64], 6)?;
        if slot < 4 {
            return Ok(slot);
        }
        let direct = (slot >> 1) - 1;
        let mut dist = (2 | (slot & 1)) << direct;
        if (slot as usize) < END_POS_MODEL {
            let at = SPEC_POS + dist as usize - slot as usize;
            dist += rc.reverse(&mut self.probs[at..], direct)?;
        } else {
            dist = dist.wrapping_add(rc.direct(direct - 4)? << 4);
            dist = dist.wrapping_add(rc.reverse(&mut self.probs[ALIGN..ALIGN + 16], 4)?);
        }
        Ok(dist)
    }

    /// Appends one output byte; `false` when the memory limit stops decoding.
    #[inline]
    fn put(&mut self, b: u8, out: &mut Vec<u8>, limit: usize) -> bool {
        if self.win.len() < self.win_cap {
            if self.win.len() >= self.memlimit {
                self.stopped = Some(Stop::MemLimit);
                return false;
            }
            self.win.push(b);
            self.win_pos = self.win.len() % self.win_cap.max(1);
        } else {
            self.win[self.win_pos] = b;
            self.win_pos += 1;
            if self.win_pos == self.win.len() {
                self.win_pos = 0;
            }
        }
        self.total += 1;
        if out.len() < limit {
            out.push(b);
        }
        true
    }

    /// Applies a match, pausing it when the output reaches `until` (the rest waits in
    /// `rem`).
    fn copy(&mut self, len: usize, dist: u32, out: &mut Vec<u8>, limit: usize, until: u64) {
        if u64::from(dist) >= self.total || dist >= self.dict_size {
            self.stopped = Some(Stop::Data);
            return;
        }
        for done in 0..len {
            if self.total >= until {
                self.rem = (len - done, dist);
                return;
            }
            let b = self.back(dist as usize);
            if !self.put(b, out, limit) {
                return;
            }
        }
    }

    /// Applies the state change of a literal (after [`LzmaDec::symbol`] gave one).
    fn literal_state(&mut self) {
        self.state = match self.state {
            s if s < 4 => 0,
            s if s < 10 => s - 3,
            s => s - 6,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text `testdata/text*.lzma` hold (made with Python's `lzma`, liblzma).
    fn text() -> Vec<u8> {
        (0..3000)
            .flat_map(|i| {
                format!("line {i} of the lzma test text, with some words repeated\n").into_bytes()
            })
            .collect()
    }
    const TEXT: &[u8] = include_bytes!("testdata/text.txt.lzma");
    const TEXT_LC2LP2: &[u8] = include_bytes!("testdata/text-lc2lp2pb0.lzma");
    const BOMB_DICT64K: &[u8] = include_bytes!("testdata/bomb-a3m-dict64k.lzma");
    const BOMB_DICT8M: &[u8] = include_bytes!("testdata/bomb-a3m-dict8m.lzma");

    /// Decodes `data` in chunks of `split`, then the end: output (kept up to `limit`),
    /// bytes decoded, and why it stopped.
    fn decode(
        data: &[u8],
        split: usize,
        memlimit: usize,
        limit: usize,
    ) -> (Vec<u8>, u64, Option<Stop>) {
        let mut d = LzmaDec::new(memlimit);
        let mut out = Vec::new();
        for c in data.chunks(split.max(1)) {
            d.feed(c, &mut out, limit, u64::MAX, false);
        }
        d.feed(&[], &mut out, limit, u64::MAX, true);
        (out, d.total(), d.stopped())
    }

    #[test]
    fn decodes_liblzma_output_at_any_split() {
        let want = text();
        for data in [TEXT, TEXT_LC2LP2] {
            for split in [1, 2, 5, 13, 19, 20, 21, 100, 1 << 20] {
                let (out, total, stop) = decode(data, split, 1 << 20, usize::MAX);
                assert_eq!(out, want, "split {split}");
                assert_eq!(total, want.len() as u64);
                assert_eq!(stop, Some(Stop::End));
            }
        }
    }

    #[test]
    fn symbols_come_out_as_their_bytes_arrive() {
        // Without the end of the body, all but the last symbol's input (fewer than
        // 20 bytes) is decoded.
        let mut d = LzmaDec::new(1 << 20);
        let mut out = Vec::new();
        d.feed(&TEXT[..800], &mut out, usize::MAX, u64::MAX, false);
        assert!(out.len() > 1000);
        assert!(text().starts_with(&out));
    }

    #[test]
    fn a_cut_body_gives_its_whole_symbols() {
        let want = text();
        for cut in [13, 17, 18, 40, 700, TEXT.len() - 1] {
            let (out, _, stop) = decode(&TEXT[..cut], 7, 1 << 20, usize::MAX);
            assert!(want.starts_with(&out), "cut {cut}");
            assert_eq!(stop, None, "cut {cut}");
        }
        // Inside the header: nothing.
        assert_eq!(decode(&TEXT[..9], 3, 1 << 20, usize::MAX).1, 0);
    }

    #[test]
    fn header_faults() {
        // Property byte over 224 (xz data declared lzma).
        let mut bad = TEXT.to_vec();
        bad[0] = 0xfd;
        assert_eq!(
            decode(&bad, 50, 1 << 20, usize::MAX),
            (vec![], 0, Some(Stop::BadProps))
        );
        // The range coder's first byte must be 0.
        let mut bad = TEXT.to_vec();
        bad[13] = 1;
        assert_eq!(decode(&bad, 50, 1 << 20, usize::MAX).2, Some(Stop::Data));
        // A huge dictionary is fine while the output stays under the limit.
        let mut huge = TEXT.to_vec();
        huge[1..5].copy_from_slice(&[0xff; 4]);
        assert_eq!(decode(&huge, 50, 1 << 20, usize::MAX).0, text());
    }

    #[test]
    fn the_header_size_is_not_read() {
        let want = text();
        let mut known = TEXT.to_vec();
        known[5..13].copy_from_slice(&100u64.to_le_bytes());
        known.extend_from_slice(b"junk after the end marker");
        let n = want.len() as u64;
        assert_eq!(
            decode(&known, 64, 1 << 20, usize::MAX),
            (want, n, Some(Stop::End))
        );
    }

    #[test]
    fn memory_limit_and_output_limit() {
        // 3 MiB of `A` with an 8 MiB dictionary: the output stops at the limit.
        let (out, total, stop) = decode(BOMB_DICT8M, 100, 1 << 20, 1000);
        assert_eq!(
            (out.len(), total, stop),
            (1000, 1 << 20, Some(Stop::MemLimit))
        );
        // With a 64 KiB dictionary the window stays small: all of it is decoded.
        let (out, total, stop) = decode(BOMB_DICT64K, 100, 1 << 20, 10);
        assert_eq!(
            (out, total, stop),
            (b"AAAAAAAAAA".to_vec(), 3 << 20, Some(Stop::End))
        );
    }

    #[test]
    fn until_pauses_decoding() {
        let mut d = LzmaDec::new(1 << 20);
        let mut out = Vec::new();
        d.feed(BOMB_DICT64K, &mut out, usize::MAX, 32 << 10, false);
        assert!(d.total() >= 32 << 10 && d.total() < (32 << 10) + 300);
        assert_eq!(d.stopped(), None);
        d.feed(&[], &mut out, usize::MAX, u64::MAX, true);
        assert_eq!((out.len(), d.stopped()), (3 << 20, Some(Stop::End)));
    }

    #[test]
    fn hostile_input_never_panics() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for round in 0..300 {
            let mut data = TEXT[..13 + round % 40].to_vec();
            data[0] = (round % 225) as u8;
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data.push(x as u8);
            }
            if round % 3 == 0 {
                data[13] = 0;
            }
            let (out, total, _) = decode(&data, 1 + round % 97, 1 << 16, 1 << 12);
            assert!(out.len() <= 1 << 12 && total <= 1 << 16 || total > 0);
        }
    }
}
