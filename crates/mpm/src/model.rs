//! The S-PATCH / V-PATCH performance model (V-PATCH paper §5): filter hit rates from the
//! filters' occupancy (equations 1-3) and the cost per input byte of filtering and
//! verification (equations 4-9), with four constants fitted from measurements at two
//! pattern counts. `osprey bench mpm --model` measures and prints it.
//!
//! Filter 1 and filter 2 have `m = 65,536` bits, filter 3 has 2^20 here (the paper uses
//! the same size for all three, so its `h3 = h2²`; with a larger filter 3,
//! `h3 = h2 · h(filter 3)`).

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
    /// Verification cost per byte (total minus filtering).
    pub verify: f64,
}

/// The model's constants (equations 6-7), in the unit of the samples (nanoseconds per byte
/// in the benchmark).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// `c'1,2`: computing the indexes and reading filters 1 and 2.
    pub c12: f64,
    /// `c'3`: hashing and reading filter 3 (paid at the filter-2 hit rate of a step).
    pub c3: f64,
    /// `V_small`: verifying a filter-1 hit.
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
    /// Fit the four constants from two samples (two pattern counts): filtering cost
    /// `c12 + c3 · h2'` and verification cost `h1 · V_small + h3 · V_large` through both.
    /// `None` when the two samples do not determine them (equal hit rates).
    pub fn fit(a: &Sample, b: &Sample) -> Option<CostModel> {
        let (c12, c3) = solve2(1.0, a.rates.h2_vec, 1.0, b.rates.h2_vec, a.filter, b.filter)?;
        let (v_small, v_large) = solve2(
            a.rates.h1, a.rates.h3, b.rates.h1, b.rates.h3, a.verify, b.verify,
        )?;
        Some(CostModel {
            c12,
            c3,
            v_small,
            v_large,
        })
    }

    /// Equation 6: filtering cost per byte.
    pub fn filter_cost(&self, r: &HitRates) -> f64 {
        self.c12 + self.c3 * r.h2_vec
    }

    /// Equation 7: verification cost per byte.
    pub fn verify_cost(&self, r: &HitRates) -> f64 {
        r.h1 * self.v_small + r.h3 * self.v_large
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
            lanes: 1,
        };
        let r = occ.hit_rates();
        assert_eq!((r.h1, r.h2, r.h3, r.h2_vec), (0.25, 0.5, 0.125, 0.5));
    }

    #[test]
    fn fit_recovers_constants() {
        let truth = CostModel {
            c12: 0.5,
            c3: 2.0,
            v_small: 7.0,
            v_large: 40.0,
        };
        let sample = |h1: f64, h2: f64, h3: f64, lanes| {
            let rates = HitRates {
                h1,
                h2,
                h3,
                h2_vec: vector_hit_rate(h2, lanes),
            };
            Sample {
                rates,
                filter: truth.filter_cost(&rates),
                verify: truth.verify_cost(&rates),
            }
        };
        let (a, b) = (sample(0.1, 0.05, 0.01, 8), sample(0.3, 0.2, 0.08, 8));
        let fit = CostModel::fit(&a, &b).unwrap();
        for (x, y) in [
            (fit.c12, truth.c12),
            (fit.c3, truth.c3),
            (fit.v_small, truth.v_small),
            (fit.v_large, truth.v_large),
        ] {
            assert!((x - y).abs() < 1e-9, "{fit:?}");
        }
        assert!(CostModel::fit(&a, &a).is_none());
    }
}
