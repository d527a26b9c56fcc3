//! Test seams (feature `test-seams` only; never in a shipped build): the
//! crypto layer's fixed-randomness seam, re-exported for the binding test
//! suites. The golden-vector generator is the dev-only crate
//! `streamseal-vectors`.

pub use streamseal_crypto::testing::*;
