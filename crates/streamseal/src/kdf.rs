//! Argon2id (RFC 9106, version 0x13 = 19): the passphrase KDF of the
//! private-key bundle, with bounds on every parameter that comes from the
//! server.
//!
//! The `kdfParams` of a key record are hostile input: a crafted record could
//! otherwise ask a phone for gigabytes of memory or minutes of work. Opening
//! checks them against [`KdfLimits`] before any memory is allocated.
//!
//! | parameter | default | accepted by default | why |
//! |---|---|---|---|
//! | `m` (KiB) | 65 536 (64 MiB) | `8·p` ..= 131 072 (128 MiB) | RFC 9106 section 4, second recommended option, uses 64 MiB; twice that stays within what a foreground mobile app may allocate. Hosts with less (iOS extensions) pass tighter [`KdfLimits`]. |
//! | `t` | 3 | 1 ..= 10 | RFC 9106's option uses 3; 10 bounds the time a record can demand to a few seconds natively. |
//! | `p` | 1 | 1 ..= 8 | WASM and most runtimes compute lanes on one thread, so lanes add no speed for us. |
//! | salt (bytes) | 16 | 16 ..= 64 | RFC 9106 section 3.1 recommends 128 bits; 64 bounds the input. |
//! | `algorithm`, `version` | `argon2id`, 19 | exactly these | the only ones this format uses. |
//!
//! ```
//! use streamseal::kdf::{KdfLimits, KdfParams};
//!
//! let params = KdfParams::default();
//! assert_eq!((params.m, params.t, params.p), (65_536, 3, 1));
//! let hostile = KdfParams { m: 4 * 1024 * 1024, ..KdfParams::default() };
//! let err = hostile.check(&KdfLimits::default()).unwrap_err();
//! assert_eq!(err.code().as_str(), "KDF_PARAMS_OUT_OF_BOUNDS");
//! ```

use argon2::{Algorithm, Argon2, Params, Version};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization as _;
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// The `algorithm` value of Argon2id parameters.
pub const ARGON2ID: &str = "argon2id";
/// Argon2 version 0x13.
pub const ARGON2_VERSION: u32 = 19;
/// Length of the derived key in bytes.
pub const DERIVED_KEY_LEN: usize = 32;
/// Length of a freshly generated salt in bytes.
pub const SALT_LEN: usize = 16;

/// `kdfParams` of a key record: `{algorithm, m, t, p, version}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct KdfParams {
    /// Always `argon2id`.
    pub algorithm: String,
    /// Memory cost in KiB.
    pub m: u32,
    /// Iterations.
    pub t: u32,
    /// Parallelism (lanes).
    pub p: u32,
    /// Argon2 version, 19.
    pub version: u32,
}

impl Default for KdfParams {
    /// Argon2id, m = 64 MiB, t = 3, p = 1 (see the module docs).
    fn default() -> Self {
        KdfParams {
            algorithm: ARGON2ID.to_owned(),
            m: 65_536,
            t: 3,
            p: 1,
            version: ARGON2_VERSION,
        }
    }
}

/// Inclusive bounds on KDF parameters accepted from a key record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct KdfLimits {
    /// Highest memory cost in KiB.
    pub max_m: u32,
    /// Highest iteration count.
    pub max_t: u32,
    /// Highest parallelism.
    pub max_p: u32,
    /// Shortest salt in bytes.
    pub min_salt_len: usize,
    /// Longest salt in bytes.
    pub max_salt_len: usize,
}

impl Default for KdfLimits {
    fn default() -> Self {
        KdfLimits {
            max_m: 131_072,
            max_t: 10,
            max_p: 8,
            min_salt_len: 16,
            max_salt_len: 64,
        }
    }
}

fn out_of_bounds(
    param: &'static str,
    value: impl Into<u64>,
    min: impl Into<u64>,
    max: impl Into<u64>,
) -> Error {
    Error::KdfParamsOutOfBounds {
        param,
        value: value.into(),
        min: min.into(),
        max: max.into(),
    }
}

impl KdfParams {
    /// Argon2id with the given costs, version 19.
    pub fn argon2id(m: u32, t: u32, p: u32) -> Self {
        KdfParams {
            algorithm: ARGON2ID.to_owned(),
            m,
            t,
            p,
            version: ARGON2_VERSION,
        }
    }

    /// Checks algorithm, version and every cost against `limits`.
    pub fn check(&self, limits: &KdfLimits) -> Result<()> {
        if self.algorithm != ARGON2ID {
            return Err(Error::UnsupportedKdf {
                reason: format!("algorithm must be `{ARGON2ID}`"),
            });
        }
        if self.version != ARGON2_VERSION {
            return Err(Error::UnsupportedKdf {
                reason: format!("version {} (only 19 is supported)", self.version),
            });
        }
        if !(1..=limits.max_p).contains(&self.p) {
            return Err(out_of_bounds("p", self.p, 1u32, limits.max_p));
        }
        let min_m = self.p.saturating_mul(8);
        if !(min_m..=limits.max_m).contains(&self.m) {
            return Err(out_of_bounds("m", self.m, min_m, limits.max_m));
        }
        if !(1..=limits.max_t).contains(&self.t) {
            return Err(out_of_bounds("t", self.t, 1u32, limits.max_t));
        }
        Ok(())
    }
}

/// Checks a salt's length against `limits`.
pub(crate) fn check_salt(salt: &[u8], limits: &KdfLimits) -> Result<()> {
    // Argon2 itself needs at least 8 bytes, whatever the caller's limits say.
    let min = limits.min_salt_len.max(argon2::MIN_SALT_LEN);
    if !(min..=limits.max_salt_len).contains(&salt.len()) {
        return Err(out_of_bounds(
            "salt",
            salt.len() as u64,
            min as u64,
            limits.max_salt_len as u64,
        ));
    }
    Ok(())
}

/// The passphrase bytes fed to Argon2: the UTF-8 of its Unicode NFC form, so
/// the same passphrase typed on keyboards that compose accents differently
/// (iOS, Android, desktop) derives the same key.
pub fn passphrase_bytes(passphrase: &str) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(passphrase.nfc().collect::<String>().into_bytes())
}

/// Derives the 32-byte bundle key with Argon2id after checking `params` and
/// the salt against `limits`.
pub fn derive_key(
    passphrase: &str,
    salt: &[u8],
    params: &KdfParams,
    limits: &KdfLimits,
) -> Result<Zeroizing<[u8; DERIVED_KEY_LEN]>> {
    params.check(limits)?;
    check_salt(salt, limits)?;
    let argon_params = Params::new(params.m, params.t, params.p, Some(DERIVED_KEY_LEN))
        .map_err(|_| out_of_bounds("m", params.m, params.p.saturating_mul(8), limits.max_m))?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, argon_params);
    let mut out = Zeroizing::new([0u8; DERIVED_KEY_LEN]);
    argon
        .hash_password_into(&passphrase_bytes(passphrase), salt, out.as_mut())
        .map_err(|e| Error::UnsupportedKdf {
            reason: format!("argon2 refused the parameters: {e}"),
        })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn bounds_at_both_edges() {
        let l = KdfLimits::default();
        assert!(KdfParams::argon2id(131_072, 10, 8).check(&l).is_ok());
        assert!(KdfParams::argon2id(8, 1, 1).check(&l).is_ok());
        for bad in [
            KdfParams::argon2id(131_073, 1, 1),
            KdfParams::argon2id(7, 1, 1),
            KdfParams::argon2id(64, 11, 1),
            KdfParams::argon2id(64, 0, 1),
            KdfParams::argon2id(64, 1, 9),
            KdfParams::argon2id(64, 1, 0),
            KdfParams::argon2id(63, 1, 8),
        ] {
            assert_eq!(
                bad.check(&l).unwrap_err().code(),
                ErrorCode::KdfParamsOutOfBounds,
                "{bad:?}"
            );
        }
        let wrong = KdfParams {
            algorithm: "argon2i".into(),
            ..KdfParams::default()
        };
        assert_eq!(
            wrong.check(&l).unwrap_err().code(),
            ErrorCode::UnsupportedKdf
        );
    }

    #[test]
    fn nfc_makes_compositions_equal() {
        assert_eq!(
            *passphrase_bytes("caf\u{e9}"),
            *passphrase_bytes("cafe\u{301}")
        );
    }
}
