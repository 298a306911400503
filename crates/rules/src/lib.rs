//! Osprey `rules` crate.
