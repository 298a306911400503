//! The AVX-512 filtering round (F and BW): 16 positions per step, two steps per iteration,
//! mask registers for the filter hits and `vpcompressd` for the candidate positions.

use crate::spatch::{filter_scalar_from, Cands, Filters, CHUNK, F3_BITS, F3_MUL, SLACK};
use std::arch::x86_64::*;

/// Positions per vector step.
const W: usize = 16;
/// Input bytes one step loads.
const LOAD: usize = 32;

/// Whether this CPU runs the AVX-512 round.
pub(crate) fn is_supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

/// The AVX-512 filtering round ([`crate::spatch::FilterRound`]).
pub(crate) fn filter(fl: &Filters, hay: &[u8], start: usize, end: usize, c: &mut Cands) {
    assert!(
        is_supported(),
        "AVX-512 round on a CPU without AVX-512 F/BW"
    );
    assert!(start <= end && end < hay.len() && end - start <= CHUNK);
    assert!(c.short.len() >= CHUNK + SLACK && c.long.len() >= CHUNK + SLACK);
    assert!(
        c.ns == 0 && c.nl == 0,
        "a round starts with empty candidate arrays"
    );
    // SAFETY: AVX-512 F/BW are available (checked above); the bounds `steps` relies on are
    // the asserted ones.
    let from = unsafe { steps(fl, hay, start, end, c) };
    filter_scalar_from(fl, hay, start, from, end, c);
}

/// Filter positions `start..` in steps of 2 x 16 while the loads stay inside `hay` and the
/// positions inside `start..end`; returns the first position not filtered.
///
/// # Safety
///
/// AVX-512 F and BW must be available; `end - start <= CHUNK`, `end <= hay.len()`, the
/// candidate arrays hold `CHUNK + SLACK` entries and are empty, so before a step at `i` at
/// most `i - start` positions are stored.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn steps(fl: &Filters, hay: &[u8], start: usize, end: usize, c: &mut Cands) -> usize {
    let n = hay.len();
    let p = hay.as_ptr();
    let f12 = fl.f12.as_ptr() as *const i32;
    let f3 = fl.f3.as_ptr() as *const i32;
    let short = c.short.as_mut_ptr();
    let long = c.long.as_mut_ptr();
    let (mut ns, mut nl) = (c.ns, c.nl);
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut i = start;
    while i + 2 * W <= end && i + W + LOAD <= n {
        // SAFETY: i + W + LOAD <= n, so both 32-byte loads are inside `hay`.
        let (wa, wb) = unsafe { (windows(p.add(i)), windows(p.add(i + W))) };
        // SAFETY: the filter arrays are F12_WORDS and F3_WORDS long, the indices
        // `lookup` and `filter3` compute stay below those sizes.
        let (va, vb) = unsafe { (lookup(f12, wa), lookup(f12, wb)) };
        let rel = _mm512_add_epi32(_mm512_set1_epi32((i - start) as i32), lanes);
        let rel_b = _mm512_add_epi32(rel, _mm512_set1_epi32(W as i32));
        let one = _mm512_set1_epi32(1);
        let two = _mm512_set1_epi32(0x1_0000);
        let (m1a, m1b) = (
            _mm512_test_epi32_mask(va, one),
            _mm512_test_epi32_mask(vb, one),
        );
        let (m2a, m2b) = (
            _mm512_test_epi32_mask(va, two),
            _mm512_test_epi32_mask(vb, two),
        );
        if m1a | m1b != 0 {
            // SAFETY: at most 32 positions of this round are stored per iteration and
            // i + 32 <= end, so ns + 32 <= CHUNK + SLACK.
            unsafe {
                ns = store(short, ns, m1a, rel);
                ns = store(short, ns, m1b, rel_b);
            }
        }
        if m2a | m2b != 0 {
            // SAFETY: as for `lookup` above.
            let (ma, mb) = unsafe { (filter3(f3, wa, m2a), filter3(f3, wb, m2b)) };
            if ma | mb != 0 {
                // SAFETY: as for the short stores.
                unsafe {
                    nl = store(long, nl, ma, rel);
                    nl = store(long, nl, mb, rel_b);
                }
            }
        }
        i += 2 * W;
    }
    c.ns = ns;
    c.nl = nl;
    i
}

/// The 4-byte sliding windows of the 16 positions at `p`: lane `j` holds bytes
/// `p[j..j + 4]`, little-endian. Dwords `k, k + 1` go to the front of 128-bit lane `k`,
/// then one in-lane byte shuffle builds the four windows of that lane.
///
/// # Safety
///
/// AVX-512 F/BW; `p[..32]` readable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn windows(p: *const u8) -> __m512i {
    // SAFETY: the caller guarantees 32 readable bytes.
    let raw = _mm512_castsi256_si512(unsafe { _mm256_loadu_si256(p as *const __m256i) });
    let dwords = _mm512_setr_epi32(0, 1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3, 4, 0, 0);
    let spread = _mm512_permutexvar_epi32(dwords, raw);
    let shuffle = _mm512_broadcast_i32x4(_mm_setr_epi8(
        0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,
    ));
    _mm512_shuffle_epi8(spread, shuffle)
}

/// The merged filter-1/2 words of the windows, shifted so bit 0 is filter 1 and bit 16
/// filter 2.
///
/// # Safety
///
/// AVX-512 F; `f12` points to `F12_WORDS` words.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn lookup(f12: *const i32, win: __m512i) -> __m512i {
    let idx = _mm512_and_si512(win, _mm512_set1_epi32(0xffff));
    // SAFETY: idx >> 4 < 4096 = F12_WORDS.
    let words = unsafe { _mm512_i32gather_epi32::<4>(_mm512_srli_epi32::<4>(idx), f12) };
    _mm512_srlv_epi32(words, _mm512_and_si512(idx, _mm512_set1_epi32(15)))
}

/// Filter 3 for the lanes in `pass2`: fold, hash, masked gather. Returns the passing lanes.
///
/// # Safety
///
/// AVX-512 F/BW; `f3` points to `F3_WORDS` words.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn filter3(f3: *const i32, win: __m512i, pass2: __mmask16) -> __mmask16 {
    // ASCII-lowercase: b'A'..=b'Z' + 63 are the bytes -128..=-103 (signed).
    let t = _mm512_add_epi8(win, _mm512_set1_epi8(63));
    let upper = _mm512_cmplt_epi8_mask(t, _mm512_set1_epi8(-102));
    let folded = _mm512_mask_add_epi8(win, upper, win, _mm512_set1_epi8(0x20));
    let h = _mm512_srli_epi32::<{ 32 - F3_BITS }>(_mm512_mullo_epi32(
        folded,
        _mm512_set1_epi32(F3_MUL as i32),
    ));
    // SAFETY: h < 2^F3_BITS, so h >> 5 < F3_WORDS.
    let words = unsafe {
        _mm512_mask_i32gather_epi32::<4>(
            _mm512_setzero_si512(),
            pass2,
            _mm512_srli_epi32::<5>(h),
            f3,
        )
    };
    let bits = _mm512_srlv_epi32(words, _mm512_and_si512(h, _mm512_set1_epi32(31)));
    _mm512_mask_test_epi32_mask(pass2, bits, _mm512_set1_epi32(1))
}

/// Store the lanes of `rel` selected by `mask` at `dst[count..]`, packed; returns the new
/// count.
///
/// # Safety
///
/// AVX-512 F; `dst[count..count + 16]` writable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn store(dst: *mut u32, count: usize, mask: __mmask16, rel: __m512i) -> usize {
    let packed = _mm512_maskz_compress_epi32(mask, rel);
    // SAFETY: the caller guarantees 16 writable slots at `count`.
    unsafe { _mm512_storeu_si512(dst.add(count) as *mut _, packed) };
    count + mask.count_ones() as usize
}
