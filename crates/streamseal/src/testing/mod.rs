//! Test seams (feature `test-seams` only; never in a shipped build): the
//! crypto layer's fixed-randomness seam, re-exported, and the golden-vector
//! generator, which needs the sealed flows and the wire types.

pub use streamseal_crypto::testing::*;

pub mod golden;
