//! Dev-only: the golden vectors of `tests/vectors/streamseal/` (every output
//! of the format made from fixed inputs, so that the Rust tests and every
//! binding reproduce them byte for byte) and their generator.
//!
//! Nothing an app builds depends on this crate. It draws fixed randomness
//! through the crypto layer's `hazmat` operations, which take the generator
//! as a parameter. Its binary writes the files or checks them for drift:
//!
//! ```text
//! cargo run -p streamseal-vectors                 # regenerate tests/vectors/streamseal
//! cargo run -p streamseal-vectors -- --check      # fail if a committed file differs
//! ```

#![forbid(unsafe_code)]

// Every generator fails only when the library refuses its own fixed inputs,
// which the golden-vector tests would show at once: one `Result` of the
// library's `Error`, not a contract worth an `# Errors` section each.
#[allow(clippy::missing_errors_doc)]
pub mod golden;
