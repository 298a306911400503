//! The lzma layer of a body decoder: libhtp's lzma decompressor, its memory limit
//! and compression-bomb check.

use super::*;

/// The ratio of output to input past which libhtp calls a body a compression bomb.
const BOMB_RATIO: u64 = 2048;
/// libhtp hands lzma output on in buffers of this size; the bomb check runs on each
/// full one (Suricata 7.0.10 stops bombs at multiples of 4 KiB past the limit).
const OUT_BUF: u64 = 4 * 1024;

impl Layer {
    /// Feeds an lzma layer as libhtp's lzma decompressor goes (checked against
    /// Suricata 7.0.10, `crates/cli/tests/http_lzma.rs`): output past `room` is still
    /// decoded and counted, up to the larger of the memory and bomb limits (the events
    /// those raise come from bytes no rule sees); every [`OUT_BUF`] bytes of output
    /// are checked against the bomb limit. Corrupt
    /// data before any output fails twice (a try and a restart) and the chunk goes
    /// through unchanged, as do the later ones; after output, once, and the layer
    /// stops (the `true` returned). The memory limit fails twice, and the chunk goes
    /// through. Property bytes libhtp's decoder refuses drop the body silently.
    pub(super) fn lzma_run(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        room: usize,
        last: bool,
    ) -> bool {
        let limit = out.len().saturating_add(room);
        self.direct = false;
        if self.bombed {
            // Each later chunk, and the end of the body, report it again.
            self.bombs += u32::from(!input.is_empty() || last);
            return false;
        }
        match self.phase {
            Phase::Passthrough => {
                push_room(out, input, limit);
                self.direct = true;
                return false;
            }
            Phase::Done => return false,
            _ => {}
        }
        self.wire += input.len() as u64;
        let lim = self.limits;
        let dec = self
            .lz
            .get_or_insert_with(|| Box::new(LzmaDec::new(lim.memlimit)));
        // Decoding past what rules see stops at 8 times the larger limit (8 MiB by
        // default: about 0.1 s at the 87 MB/s of bench/RESULTS.md's dev-build run;
        // Suricata bounds it by time, `decompression-time-limit`): a bomb of a larger
        // ratio is found (over 2048 times its input past 1 MiB), of a smaller one not.
        let hard = (lim.memlimit.max(lim.bomb_limit) as u64).saturating_mul(8);
        let bomb = |total: u64, wire: u64| {
            total > lim.bomb_limit as u64 && total > BOMB_RATIO.saturating_mul(wire)
        };
        let mut chunk = input;
        loop {
            let until = ((dec.total() / OUT_BUF + 1) * OUT_BUF).min(hard);
            dec.feed(chunk, out, limit, until, last);
            chunk = &[];
            if dec.total() < until || dec.stopped().is_some() {
                break;
            }
            if bomb(dec.total(), self.wire) {
                self.bombs += 1;
                self.bombed = true;
                self.lz = None;
                return false;
            }
            if dec.total() >= hard {
                self.cut += 1;
                self.lz = None;
                self.phase = Phase::Done;
                return false;
            }
        }
        self.produced |= dec.total() > 0;
        let stopped = dec.stopped();
        if stopped.is_some() {
            // The window and tables go now, not with the body.
            self.lz = None;
        }
        match stopped {
            None => false,
            Some(Stop::End | Stop::BadProps) => {
                self.phase = Phase::Done;
                false
            }
            Some(Stop::Data) if self.produced_lzma() => {
                self.failures += 1;
                self.phase = Phase::Done;
                true
            }
            Some(Stop::Data) => {
                self.failures += 2;
                push_room(out, input, limit);
                self.direct = true;
                self.phase = Phase::Passthrough;
                false
            }
            Some(Stop::MemLimit) => {
                self.memlimits += 1;
                self.failures += 2;
                push_room(out, input, limit);
                self.direct = true;
                self.phase = Phase::Done;
                false
            }
        }
    }

    /// Whether the lzma layer has output bytes (its decoder is gone once stopped: the
    /// flag is kept in `produced`).
    pub(super) fn produced_lzma(&self) -> bool {
        self.produced
    }
}
