//! Osprey `capture` crate.
