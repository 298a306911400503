//! The S-PATCH / V-PATCH performance model (V-PATCH paper §5): filter hit rates from the
//! filters' occupancy (equations 1-3) and the cost per input byte of filtering and
//! verification (equations 4-9), with the constants fitted from measurements at two
//! pattern counts. `osprey bench mpm --model` measures and prints it.
//!
//! Filter 1 and filter 2 have `m = 65,536` bits, filter 3 has 2^20 here (the paper uses
//! the same size for all three, so its `h3 = h2²`; with a larger filter 3,
//! `h3 = h2 · h(filter 3)`).
//!
//! Verification of filter-1 hits (equation 7) is counted per *entry* behind the filter
//! bit, not per set bit. The paper takes verifying a hit as one hash-table lookup of
//! constant cost, and notes (§4.1.2) that a bucket holds references to patterns that are
//! compared one by one. That is the same while a set bit stands for about one pattern
//! (`x ≪ m`, where equation 2 gives `h ≈ x / m`). Filter 1 leaves that regime: every
//! one-byte pattern is 256 entries (the paper's `x1` counts them), so with 20,000 random
//! patterns filter 1 holds `x1 ≈ 120,000` entries in 65,536 bits: `h1 = 0.82`, but a random
//! window finds `e1 = x1 / m ≈ 1.9` entries behind its bit, each compared and (a one-byte
//! pattern) reported. By the reasoning of equation 1 (each of the `x1` insertions lands on
//! a given bit with chance `1/m`), `e1` is the expected number of entries per position, so
//! the short verification costs `e1 · V_small`; `e1 = h1` up to collisions. Measured on
//! this machine, the cost per entry stays within ±15% of its mean from 1,000 to 20,000
//! patterns while the cost per set bit grows 2.4 times; with `h1`, a fit of equation 7
//! lets `V_large` absorb that growth (`h3` grows about quadratically with the pattern
//! count) and extrapolates badly.

/// Bits of filters 1 and 2 (one per 2-byte window).
pub const F12_BITS: usize = 1 << 16;
/// Bits of filter 3.
pub const F3_BITS: usize = 1 << crate::spatch::F3_BITS;

/// Equations 1-2: the chance that a bit of an `m`-bit filter is set after `x` random keys
/// were inserted, which is the hit rate of a random lookup.
pub fn expected_hit_rate(m: usize, x: f64) -> f64 {
    1.0 - (1.0 - 1.0 / m as f64).powf(x)
}

/// Equation 3: the chance that at least one of `lanes` independent lookups hits.
pub fn vector_hit_rate(h: f64, lanes: usize) -> f64 {
    1.0 - (1.0 - h).powi(lanes as i32)
}

/// Set bits of the three filters of an S-PATCH / V-PATCH matcher and the width of its
/// filtering round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Set bits of filter 1 (short patterns) out of [`F12_BITS`].
    pub f1: usize,
    /// Set bits of filter 2 (long patterns) out of [`F12_BITS`].
    pub f2: usize,
    /// Set bits of filter 3 out of [`F3_BITS`].
    pub f3: usize,
    /// Entries behind filter 1 (the paper's `x1`): one per short pattern and 2-byte window
    /// it accepts, so 256 for a one-byte pattern.
    pub short_entries: usize,
    /// Positions per filtering step: 1 (scalar), 8 (AVX2) or 16 (AVX-512).
    pub lanes: usize,
}

/// Hit rates per input position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitRates {
    /// Filter 1 (`h1`).
    pub h1: f64,
    /// Filter 2 (`h2`).
    pub h2: f64,
    /// Filters 2 and 3 (`h3`).
    pub h3: f64,
    /// Filter 2 for a whole vector step (`h2'`, equation 3): the rate at which the
    /// speculative filter-3 gather runs.
    pub h2_vec: f64,
    /// Expected filter-1 entries per position (`e1 = x1 / m`): the rate at which short
    /// patterns are verified.
    pub e1: f64,
}

impl Occupancy {
    /// The hit rates on random input: a lookup hits with the fraction of set bits.
    pub fn hit_rates(&self) -> HitRates {
        let h1 = self.f1 as f64 / F12_BITS as f64;
        let h2 = self.f2 as f64 / F12_BITS as f64;
        let h3 = h2 * (self.f3 as f64 / F3_BITS as f64);
        HitRates {
            h1,
            h2,
            h3,
            h2_vec: vector_hit_rate(h2, self.lanes),
            e1: self.short_entries as f64 / F12_BITS as f64,
        }
    }
}

/// One measurement: hit rates and the measured cost per byte of each phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The matcher's hit rates.
    pub rates: HitRates,
    /// Filtering cost per byte.
    pub filter: f64,
    /// Verification cost per byte of the short patterns (filter-1 hits).
    pub verify_short: f64,
    /// Verification cost per byte of the long patterns (filter-3 hits).
    pub verify_long: f64,
}

/// The model's constants (equations 6-7), in the unit of the samples (nanoseconds in the
/// benchmark).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// `c'1,2`: computing the indexes and reading filters 1 and 2.
    pub c12: f64,
    /// `c'3`: hashing and reading filter 3 (paid at the filter-2 hit rate of a step).
    pub c3: f64,
    /// `V_small`: verifying one filter-1 entry (looking it up, comparing, reporting).
    pub v_small: f64,
    /// `V_large`: verifying a filter-3 hit.
    pub v_large: f64,
}

/// Solve `[a b; c d] [x; y] = [e; f]`; `None` when singular.
fn solve2(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64) -> Option<(f64, f64)> {
    let det = a * d - b * c;
    if det.abs() < 1e-12 {
        return None;
    }
    Some(((e * d - b * f) / det, (a * f - e * c) / det))
}

impl CostModel {
    /// Fit the constants from two samples (two pattern counts): filtering cost
    /// `c12 + c3 · h2'` through both; `V_small` the verification cost of both samples'
    /// short patterns over their filter-1 entries (`Σ verify_short / Σ e1`), `V_large` the
    /// same for the long patterns and filter-3 hits (`Σ verify_long / Σ h3`; 0 where
    /// neither sample has hits). `None` when the two samples do not determine the
    /// filtering constants (equal `h2'`).
    pub fn fit(a: &Sample, b: &Sample) -> Option<CostModel> {
        let (ra, rb) = (&a.rates, &b.rates);
        let (c12, c3) = solve2(1.0, ra.h2_vec, 1.0, rb.h2_vec, a.filter, b.filter)?;
        let per_hit = |cost: f64, hits: f64| if hits > 0.0 { cost / hits } else { 0.0 };
        Some(CostModel {
            c12,
            c3,
            v_small: per_hit(a.verify_short + b.verify_short, ra.e1 + rb.e1),
            v_large: per_hit(a.verify_long + b.verify_long, ra.h3 + rb.h3),
        })
    }

    /// Equation 6: filtering cost per byte.
    pub fn filter_cost(&self, r: &HitRates) -> f64 {
        self.c12 + self.c3 * r.h2_vec
    }

    /// Equation 7, first term: verification cost per byte of the short patterns.
    pub fn verify_short_cost(&self, r: &HitRates) -> f64 {
        r.e1 * self.v_small
    }

    /// Equation 7, second term: verification cost per byte of the long patterns.
    pub fn verify_long_cost(&self, r: &HitRates) -> f64 {
        r.h3 * self.v_large
    }

    /// Equation 7: verification cost per byte.
    pub fn verify_cost(&self, r: &HitRates) -> f64 {
        self.verify_short_cost(r) + self.verify_long_cost(r)
    }

    /// Equations 8-9: total cost per byte.
    pub fn cost(&self, r: &HitRates) -> f64 {
        self.filter_cost(r) + self.verify_cost(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_rates() {
        assert_eq!(expected_hit_rate(F12_BITS, 0.0), 0.0);
        let h = expected_hit_rate(F12_BITS, 65_536.0);
        assert!((h - (1.0 - (-1.0f64).exp())).abs() < 1e-4, "{h}");
        assert!((vector_hit_rate(0.1, 8) - (1.0 - 0.9f64.powi(8))).abs() < 1e-12);
        let occ = Occupancy {
            f1: F12_BITS / 4,
            f2: F12_BITS / 2,
            f3: F3_BITS / 4,
            short_entries: F12_BITS / 2,
            lanes: 1,
        };
        let r = occ.hit_rates();
        assert_eq!(
            (r.h1, r.h2, r.h3, r.h2_vec, r.e1),
            (0.25, 0.5, 0.125, 0.5, 0.5)
        );
    }

    #[test]
    fn fit_recovers_constants() {
        let truth = CostModel {
            c12: 0.5,
            c3: 2.0,
            v_small: 7.0,
            v_large: 40.0,
        };
        let sample = |h1: f64, e1: f64, h2: f64, h3: f64, lanes| {
            let rates = HitRates {
                h1,
                h2,
                h3,
                h2_vec: vector_hit_rate(h2, lanes),
                e1,
            };
            Sample {
                rates,
                filter: truth.filter_cost(&rates),
                verify_short: truth.verify_short_cost(&rates),
                verify_long: truth.verify_long_cost(&rates),
            }
        };
        let a = sample(0.1, 0.11, 0.05, 0.01, 8);
        let b = sample(0.6, 1.2, 0.2, 0.08, 8);
        let fit = CostModel::fit(&a, &b).unwrap();
        for (x, y) in [
            (fit.c12, truth.c12),
            (fit.c3, truth.c3),
            (fit.v_small, truth.v_small),
            (fit.v_large, truth.v_large),
        ] {
            assert!((x - y).abs() < 1e-9, "{fit:?}");
        }
        let mid = sample(0.3, 0.4, 0.1, 0.03, 8);
        let want = mid.filter + mid.verify_short + mid.verify_long;
        assert!((fit.cost(&mid.rates) - want).abs() < 1e-9);
        assert!(CostModel::fit(&a, &a).is_none());
        // No filter-3 hits at either count: V_large is not determined and stays 0.
        let (mut a0, mut b0) = (a, b);
        a0.rates.h3 = 0.0;
        b0.rates.h3 = 0.0;
        assert_eq!(CostModel::fit(&a0, &b0).unwrap().v_large, 0.0);
    }
}
