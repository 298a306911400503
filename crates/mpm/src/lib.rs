//! Osprey `mpm` crate.
