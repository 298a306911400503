//! Packet timestamps: seconds and nanoseconds since the Unix epoch.

use std::fmt;

/// A capture timestamp with nanosecond precision.
///
/// Ordered chronologically (seconds first, then nanoseconds). `nanos` is always below
/// 1,000,000,000 for values built with [`Timestamp::new`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Nanoseconds within the second, `0..1_000_000_000`.
    pub nanos: u32,
}

const NANOS_PER_SEC: u32 = 1_000_000_000;

impl Timestamp {
    /// Builds a timestamp, carrying excess nanoseconds into the seconds.
    pub fn new(secs: i64, nanos: u32) -> Timestamp {
        Timestamp {
            secs: secs.saturating_add(i64::from(nanos / NANOS_PER_SEC)),
            nanos: nanos % NANOS_PER_SEC,
        }
    }

    /// Builds a timestamp from microseconds since the epoch.
    pub fn from_micros(micros: i64) -> Timestamp {
        let secs = micros.div_euclid(1_000_000);
        let rem = micros.rem_euclid(1_000_000) as u32;
        Timestamp {
            secs,
            nanos: rem * 1000,
        }
    }

    /// Microseconds since the epoch (sub-microsecond part truncated), saturating.
    pub fn as_micros(self) -> i64 {
        self.secs
            .saturating_mul(1_000_000)
            .saturating_add(i64::from(self.nanos / 1000))
    }

    /// Nanoseconds since the epoch, saturating.
    pub fn as_nanos(self) -> i128 {
        i128::from(self.secs) * i128::from(NANOS_PER_SEC) + i128::from(self.nanos)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.secs, self.nanos)
    }
}

/// Fractional-second resolution of a pcapng interface (`if_tsresol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// Units of 10^-n seconds.
    Decimal(u8),
    /// Units of 2^-n seconds.
    Binary(u8),
}

impl Resolution {
    /// Microseconds: the pcapng default when `if_tsresol` is absent.
    pub(crate) const MICROS: Resolution = Resolution::Decimal(6);

    /// Decodes the one-byte `if_tsresol` option value.
    pub(crate) fn from_option(byte: u8) -> Resolution {
        if byte & 0x80 == 0 {
            Resolution::Decimal(byte)
        } else {
            Resolution::Binary(byte & 0x7f)
        }
    }

    /// Converts a 64-bit count of units into a timestamp; never panics, saturates.
    pub(crate) fn to_timestamp(self, units: u64, offset_secs: i64) -> Timestamp {
        let (secs, nanos) = match self {
            Resolution::Decimal(e) if e <= 9 => {
                let per_sec = 10u64.pow(u32::from(e));
                let rem = units % per_sec;
                (units / per_sec, rem * 10u64.pow(9 - u32::from(e)))
            }
            Resolution::Decimal(e) if e <= 19 => {
                let per_sec = 10u64.pow(u32::from(e));
                let rem = units % per_sec;
                (units / per_sec, rem / 10u64.pow(u32::from(e) - 9))
            }
            // Finer than 10^-19 s: a 64-bit count is always below one second.
            Resolution::Decimal(e) => {
                let div = 10u128.checked_pow(u32::from(e) - 9).unwrap_or(u128::MAX);
                (0, (u128::from(units) / div) as u64)
            }
            Resolution::Binary(b) if b < 64 => {
                let rem = units & ((1u64 << b) - 1);
                let nanos = (u128::from(rem) * u128::from(NANOS_PER_SEC)) >> b;
                (units >> b, nanos as u64)
            }
            Resolution::Binary(b) => {
                let nanos = (u128::from(units) * u128::from(NANOS_PER_SEC)) >> b;
                (0, nanos as u64)
            }
        };
        let secs = i64::try_from(secs).unwrap_or(i64::MAX);
        // `nanos` < 10^9 in every arm above.
        Timestamp::new(secs.saturating_add(offset_secs), nanos as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_and_micros() {
        let a = Timestamp::new(10, 999_999_999);
        let b = Timestamp::new(11, 0);
        assert!(a < b);
        assert_eq!(a.as_micros(), 10_999_999);
        assert_eq!(
            Timestamp::from_micros(10_999_999),
            Timestamp::new(10, 999_999_000)
        );
        assert_eq!(Timestamp::from_micros(-1), Timestamp::new(-1, 999_999_000));
        assert_eq!(
            Timestamp::new(1, 2_500_000_000),
            Timestamp::new(3, 500_000_000)
        );
        assert_eq!(Timestamp::new(1, 5).to_string(), "1.000000005");
        assert_eq!(Timestamp::new(2, 7).as_nanos(), 2_000_000_007);
    }

    #[test]
    fn resolutions() {
        let us = Resolution::MICROS.to_timestamp(1_500_000_123, 0);
        assert_eq!(us, Timestamp::new(1500, 123_000));
        let ns = Resolution::from_option(9).to_timestamp(1_500_000_000_123, 0);
        assert_eq!(ns, Timestamp::new(1500, 123));
        let ps = Resolution::from_option(12).to_timestamp(2_000_000_000_123_456, 0);
        assert_eq!(ps, Timestamp::new(2000, 123));
        let bin = Resolution::from_option(0x80 | 10).to_timestamp(3 * 1024 + 512, 5);
        assert_eq!(bin, Timestamp::new(8, 500_000_000));
        // Hostile resolutions never panic.
        for byte in 0..=255u8 {
            let r = Resolution::from_option(byte);
            let t = r.to_timestamp(u64::MAX, i64::MAX);
            assert!(t.nanos < NANOS_PER_SEC);
            let _ = r.to_timestamp(0, i64::MIN);
        }
    }
}
