//! Randomness: the caller's generator, passed in, or the operating system's
//! (`crypto.getRandomValues` in browsers) through `getrandom`.
//!
//! Every public operation that draws randomness uses [`OsRng`]. The
//! operations the golden vectors need with fixed randomness take the
//! generator as a parameter (`rust-hpke`'s model, `setup_sender(mode, pk,
//! info, csprng)`) and are public only under [`crate::hazmat`]; nothing else
//! can make the library draw other bytes, and there is no global state.

pub use rand_core::{TryCryptoRng, TryRng};

use crate::error::{CryptoError, CryptoResult};

/// The operating system's generator (`getrandom::SysRng`): what every public
/// operation draws from.
pub use getrandom::SysRng as OsRng;

/// What the operations draw from, as one object-safe interface: each
/// operation is compiled once (taking `&mut dyn Source`), whatever generator
/// a caller passes, instead of once per generator type (the WASM module
/// would carry every copy).
pub trait Source {
    /// Fills `buf`, or fails with `RANDOMNESS_UNAVAILABLE`.
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the generator has no bytes to give.
    fn fill(&mut self, buf: &mut [u8]) -> CryptoResult<()>;
}

impl<R: TryCryptoRng + ?Sized> Source for R {
    fn fill(&mut self, buf: &mut [u8]) -> CryptoResult<()> {
        self.try_fill_bytes(buf)
            .map_err(|_| CryptoError::RandomnessUnavailable)
    }
}

/// Fills `buf` from `rng`, or fails with `RANDOMNESS_UNAVAILABLE`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when `rng` has no bytes to give.
pub fn fill_from(rng: &mut dyn Source, buf: &mut [u8]) -> CryptoResult<()> {
    rng.fill(buf)
}

/// `N` bytes from `rng`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when `rng` has no bytes to give.
pub fn array_from<const N: usize>(rng: &mut dyn Source) -> CryptoResult<[u8; N]> {
    let mut out = [0u8; N];
    rng.fill(&mut out)?;
    Ok(out)
}

/// `N` bytes from the operating system.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when the operating system has none to give.
pub fn array<const N: usize>() -> CryptoResult<[u8; N]> {
    array_from(&mut OsRng)
}
