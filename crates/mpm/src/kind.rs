//! The matcher implementations, by name.

use std::fmt;

/// Which implementation a [`crate::Matcher`] uses. Later backends add variants here; names
/// are the ones `osprey bench mpm` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// Full DFA; 16-bit state ids when all states fit, 32-bit otherwise.
    AcFull,
    /// Full DFA forced to 32-bit (premultiplied) state ids.
    AcFull32,
    /// Banded goto rows plus failure links (MIDeA's AC-Compact).
    AcCompact,
    /// DFC: direct 2-byte filters, length-class filters, per-length hash tables.
    Dfc,
    /// S-PATCH: DFC's filters reorganised into separate filtering and verification rounds.
    Spatch,
    /// V-PATCH with the widest SIMD the CPU has (AVX-512, AVX2, else scalar S-PATCH).
    Vpatch,
    /// V-PATCH forced to AVX2 (building fails on a CPU without it).
    VpatchAvx2,
    /// V-PATCH forced to AVX-512 F/BW (building fails on a CPU without them).
    VpatchAvx512,
    /// Intel Hyperscan through FFI (not yet implemented).
    Hyperscan,
}

impl Kind {
    /// Every kind, implemented or not.
    pub const ALL: &'static [Kind] = &[
        Kind::AcFull,
        Kind::AcFull32,
        Kind::AcCompact,
        Kind::Dfc,
        Kind::Spatch,
        Kind::Vpatch,
        Kind::VpatchAvx2,
        Kind::VpatchAvx512,
        Kind::Hyperscan,
    ];

    /// The name used on the command line and in benchmark output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::AcFull => "ac-full",
            Kind::AcFull32 => "ac-full-32",
            Kind::AcCompact => "ac-compact",
            Kind::Dfc => "dfc",
            Kind::Spatch => "spatch",
            Kind::Vpatch => "vpatch",
            Kind::VpatchAvx2 => "vpatch-avx2",
            Kind::VpatchAvx512 => "vpatch-avx512",
            Kind::Hyperscan => "hyperscan",
        }
    }

    /// The kind named `name` (as printed by [`Kind::name`]).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Whether this build (and this CPU) can build this kind.
    pub fn is_available(self) -> bool {
        match self {
            Kind::AcFull | Kind::AcFull32 | Kind::AcCompact => true,
            Kind::Dfc | Kind::Spatch | Kind::Vpatch => true,
            Kind::VpatchAvx2 => crate::vpatch::Path::Avx2.is_supported(),
            Kind::VpatchAvx512 => crate::vpatch::Path::Avx512.is_supported(),
            Kind::Hyperscan => false,
        }
    }

    /// The fastest kind on this CPU for IDS rule sets (measured on ET Open over
    /// sv-ether.pcap, `bench/RESULTS.md`): V-PATCH where AVX2 or AVX-512 is there (about
    /// 1.6x AC-Full's packet processing there, with two thirds of its memory), AC-Full
    /// otherwise (V-PATCH's scalar path is slower).
    pub fn fastest() -> Kind {
        if Kind::VpatchAvx2.is_available() || Kind::VpatchAvx512.is_available() {
            Kind::Vpatch
        } else {
            Kind::AcFull
        }
    }

    /// The kinds this build and CPU can build: what the differential tests run.
    pub fn available() -> Vec<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_available())
            .collect()
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(k));
        }
        assert_eq!(Kind::from_name("nope"), None);
        assert!(Kind::available().contains(&Kind::AcCompact));
    }
}
