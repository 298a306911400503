//! Osprey `wire` crate.
