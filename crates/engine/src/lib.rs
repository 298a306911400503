//! Osprey `engine` crate.
