//! The AVX2 filtering round: 8 positions per step, two steps per iteration.

use crate::spatch::{filter_scalar_from, Cands, Filters, CHUNK, F3_BITS, F3_MUL, SLACK};
use std::arch::x86_64::*;

/// Positions per vector step.
const W: usize = 8;
/// Input bytes one step loads.
const LOAD: usize = 16;
/// Up to this many filter-2 hits in an iteration, filter 3 is read with scalar loads
/// instead of gathers.
const SCALAR_F3: u32 = 3;

/// Whether this CPU runs the AVX2 round (with POPCNT and BMI1 for the mask arithmetic,
/// which every AVX2 CPU has).
pub(crate) fn is_supported() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("popcnt")
        && is_x86_feature_detected!("bmi1")
}

/// For each 8-bit mask, the indices of its set bits packed in the low bytes (the
/// permutation that moves the passing lanes to the front).
static COMPRESS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut packed, mut k, mut bit) = (0u64, 0, 0);
        while bit < 8 {
            if m >> bit & 1 != 0 {
                packed |= (bit as u64) << (8 * k);
                k += 1;
            }
            bit += 1;
        }
        t[m] = packed;
        m += 1;
    }
    t
};

/// The AVX2 filtering round ([`crate::spatch::FilterRound`]).
pub(crate) fn filter(fl: &Filters, hay: &[u8], start: usize, end: usize, c: &mut Cands) {
    assert!(is_supported(), "AVX2 round on a CPU without AVX2");
    assert!(start <= end && end < hay.len() && end - start <= CHUNK);
    assert!(c.short.len() >= CHUNK + SLACK && c.long.len() >= CHUNK + SLACK);
    assert!(
        c.ns == 0 && c.nl == 0,
        "a round starts with empty candidate arrays"
    );
    // SAFETY: AVX2, POPCNT and BMI1 are available (checked above); the bounds `steps`
    // relies on are the asserted ones.
    let from = unsafe { steps(fl, hay, start, end, c) };
    filter_scalar_from(fl, hay, start, from, end, c);
}

/// Filter positions `start..` in steps of 2 x 8 while the loads stay inside `hay` and the
/// positions inside `start..end`; returns the first position not filtered.
///
/// # Safety
///
/// AVX2, POPCNT and BMI1 must be available; `end - start <= CHUNK`, `end <= hay.len()`,
/// the candidate arrays hold `CHUNK + SLACK` entries and are empty (`c.ns == c.nl == 0`),
/// so before a step at `i` at most `i - start` positions are stored.
#[target_feature(enable = "avx2,popcnt,bmi1")]
unsafe fn steps(fl: &Filters, hay: &[u8], start: usize, end: usize, c: &mut Cands) -> usize {
    let n = hay.len();
    let p = hay.as_ptr();
    let f12 = fl.f12.as_ptr() as *const i32;
    let f3 = fl.f3.as_ptr() as *const i32;
    let short = c.short.as_mut_ptr();
    let long = c.long.as_mut_ptr();
    let (mut ns, mut nl) = (c.ns, c.nl);
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let mut i = start;
    while i + 2 * W <= end && i + W + LOAD <= n {
        // SAFETY: i + W + LOAD <= n, so both 16-byte loads are inside `hay`.
        let (wa, wb) = unsafe { (windows(p.add(i)), windows(p.add(i + W))) };
        // SAFETY: the filter arrays are F12_WORDS and F3_WORDS long, the indices
        // `lookup` and `filter3` compute stay below those sizes.
        let (va, vb) = unsafe { (lookup(f12, wa), lookup(f12, wb)) };
        let rel = _mm256_add_epi32(_mm256_set1_epi32((i - start) as i32), lanes);
        let rel_b = _mm256_add_epi32(rel, _mm256_set1_epi32(W as i32));
        let m1 = movemask(_mm256_slli_epi32::<31>(va)) | movemask(_mm256_slli_epi32::<31>(vb)) << W;
        let f2a = _mm256_slli_epi32::<15>(va);
        let f2b = _mm256_slli_epi32::<15>(vb);
        if m1 != 0 {
            // SAFETY: at most 16 positions of this round are stored per iteration and
            // i + 16 <= end, so ns + 16 <= CHUNK + SLACK.
            unsafe {
                ns = store(short, ns, m1 & 0xff, rel);
                ns = store(short, ns, m1 >> W, rel_b);
            }
        }
        let m2 = movemask(f2a) | movemask(f2b) << W;
        if m2 != 0 {
            let (ma, mb) = if m2.count_ones() <= SCALAR_F3 {
                // Few filter-2 hits: a scalar filter-3 load each is cheaper than two
                // gathers (AMD's gathers are slow).
                let (mut bits, mut m3) = (m2, 0u32);
                while bits != 0 {
                    let j = bits.trailing_zeros();
                    m3 |= (fl.f3_at(hay, i + j as usize) as u32) << j;
                    bits &= bits - 1;
                }
                (m3 & 0xff, m3 >> W)
            } else {
                // SAFETY: as for `lookup` above.
                unsafe {
                    (
                        if m2 & 0xff != 0 {
                            filter3(f3, wa, f2a)
                        } else {
                            0
                        },
                        if m2 >> W != 0 {
                            filter3(f3, wb, f2b)
                        } else {
                            0
                        },
                    )
                }
            };
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

/// The sign bits of the eight 32-bit lanes.
#[inline]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn movemask(v: __m256i) -> u32 {
    _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u32
}

/// The 4-byte sliding windows of the 8 positions at `p`: lane `j` holds bytes
/// `p[j..j + 4]`, little-endian, so its low 16 bits are the 2-byte window.
///
/// # Safety
///
/// AVX2, POPCNT and BMI1; `p[..16]` readable.
#[inline]
#[target_feature(enable = "avx2,popcnt,bmi1")]
unsafe fn windows(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 16 readable bytes.
    let raw = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(p as *const __m128i)) };
    let shuffle = _mm256_setr_epi8(
        0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6, //
        4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10,
    );
    _mm256_shuffle_epi8(raw, shuffle)
}

/// The merged filter-1/2 words of the windows, shifted so bit 0 is filter 1 and bit 16
/// filter 2.
///
/// # Safety
///
/// AVX2, POPCNT and BMI1; `f12` points to `F12_WORDS` words (the index is a 16-bit
/// window shifted by 4).
#[inline]
#[target_feature(enable = "avx2,popcnt,bmi1")]
unsafe fn lookup(f12: *const i32, win: __m256i) -> __m256i {
    let idx = _mm256_and_si256(win, _mm256_set1_epi32(0xffff));
    // SAFETY: idx >> 4 < 4096 = F12_WORDS.
    let words = unsafe { _mm256_i32gather_epi32::<4>(f12, _mm256_srli_epi32::<4>(idx)) };
    _mm256_srlv_epi32(words, _mm256_and_si256(idx, _mm256_set1_epi32(15)))
}

/// Filter 3 for the lanes whose sign bit is set in `pass2`: fold, hash, masked gather.
/// Returns the mask of lanes that pass.
///
/// # Safety
///
/// AVX2, POPCNT and BMI1; `f3` points to `F3_WORDS` words.
#[inline]
#[target_feature(enable = "avx2,popcnt,bmi1")]
unsafe fn filter3(f3: *const i32, win: __m256i, pass2: __m256i) -> u32 {
    // ASCII-lowercase: b'A'..=b'Z' + 63 are the bytes -128..=-103 (signed).
    let t = _mm256_add_epi8(win, _mm256_set1_epi8(63));
    let upper = _mm256_cmpgt_epi8(_mm256_set1_epi8(-102), t);
    let folded = _mm256_or_si256(win, _mm256_and_si256(upper, _mm256_set1_epi8(0x20)));
    let h = _mm256_srli_epi32::<{ 32 - F3_BITS as i32 }>(_mm256_mullo_epi32(
        folded,
        _mm256_set1_epi32(F3_MUL as i32),
    ));
    // SAFETY: h < 2^F3_BITS, so h >> 5 < F3_WORDS.
    let words = unsafe {
        _mm256_mask_i32gather_epi32::<4>(
            _mm256_setzero_si256(),
            f3,
            _mm256_srli_epi32::<5>(h),
            pass2,
        )
    };
    let bits = _mm256_srlv_epi32(words, _mm256_and_si256(h, _mm256_set1_epi32(31)));
    movemask(_mm256_slli_epi32::<31>(bits))
}

/// Store the lanes of `rel` selected by the 8-bit `mask` at `dst[count..]`, packed; returns
/// the new count.
///
/// # Safety
///
/// AVX2, POPCNT and BMI1; `dst[count..count + 8]` writable.
#[inline]
#[target_feature(enable = "avx2,popcnt,bmi1")]
unsafe fn store(dst: *mut u32, count: usize, mask: u32, rel: __m256i) -> usize {
    let perm = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(COMPRESS[mask as usize] as i64));
    // SAFETY: the caller guarantees 8 writable slots at `count`.
    unsafe {
        _mm256_storeu_si256(
            dst.add(count) as *mut __m256i,
            _mm256_permutevar8x32_epi32(rel, perm),
        )
    };
    count + mask.count_ones() as usize
}
