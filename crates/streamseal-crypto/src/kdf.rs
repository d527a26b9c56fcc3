//! Argon2id (RFC 9106, version 0x13 = 19): the passphrase KDF of the
//! private-key bundle, with a floor on the parameters a new bundle is made
//! with and bounds on every parameter that comes from the server.
//!
//! Two different rules, deliberately kept apart:
//!
//! - **Creating or re-sealing** a bundle ([`crate::bundle::create_bundle`],
//!   and through it `user_key::set_up` and `user_key::change_passphrase`)
//!   needs at least the [creation floor](KdfParams::creation_floor):
//!   m = 19 MiB, t = 2, p = 1, the minimum the OWASP Password Storage Cheat
//!   Sheet gives for Argon2id. The bundle is stored on the server, which the
//!   threat model does not trust: whoever holds a copy can guess passphrases
//!   offline for as long as they like, and nothing can raise the cost of a
//!   weak bundle after it has been uploaded. Below the floor is
//!   `KDF_PARAMS_OUT_OF_BOUNDS`, checked in one place
//!   ([`KdfParams::check_for_new_bundle`]) before any work.
//! - **Opening** a record checks it against [`KdfLimits`] only. The
//!   `kdfParams` of a key record are hostile input: a crafted record could
//!   otherwise ask a phone for gigabytes of memory or minutes of work, so the
//!   caps are checked before any memory is allocated. They have no floor
//!   beyond what Argon2 itself needs: a record made before the floor existed
//!   still opens, and re-sealing it (a passphrase change) lifts it to the
//!   floor.
//!
//! | parameter | default | floor for new bundles | accepted on open by default | why |
//! |---|---|---|---|---|
//! | `m` (KiB) | 65 536 (64 MiB) | 19 456 (19 MiB) | `8·p` ..= 131 072 (128 MiB) | RFC 9106 section 4, second recommended option, uses 64 MiB; the floor is OWASP's minimum; twice the default stays within what a foreground mobile app may allocate. Hosts with less (iOS extensions) pass tighter [`KdfLimits`]. |
//! | `t` | 3 | 2 | 1 ..= 10 | RFC 9106's option uses 3, OWASP's minimum with 19 MiB is 2; 10 bounds the time a record can demand to a few seconds natively. |
//! | `p` | 1 | 1 | 1 ..= 8 | WASM and most runtimes compute lanes on one thread, so lanes add no speed for us. |
//! | salt (bytes) | 16 | 16 (always fresh) | 16 ..= 64 | RFC 9106 section 3.1 recommends 128 bits; 64 bounds the input. |
//! | `algorithm`, `version` | `argon2id`, 19 | exactly these | exactly these | the only ones this format uses. |
//!
//! A new bundle must also lie within the default caps, so that every client
//! can open what any client creates.
//!
//! ```
//! use streamseal_crypto::kdf::{KdfLimits, KdfParams};
//!
//! let params = KdfParams::default();
//! assert_eq!((params.m, params.t, params.p), (65_536, 3, 1));
//! let hostile = KdfParams { m: 4 * 1024 * 1024, ..KdfParams::default() };
//! let err = hostile.check(&KdfLimits::default()).unwrap_err();
//! assert_eq!(err.code().as_str(), "KDF_PARAMS_OUT_OF_BOUNDS");
//!
//! // Opening accepts an old, cheap record; creating one is refused.
//! let weak = KdfParams::argon2id(8 * 1024, 1, 1);
//! assert!(weak.check(&KdfLimits::default()).is_ok());
//! let err = KdfParams::for_new_bundle(8 * 1024, 1, 1).unwrap_err();
//! assert_eq!(err.code().as_str(), "KDF_PARAMS_OUT_OF_BOUNDS");
//! assert_eq!(KdfParams::for_new_bundle(19_456, 2, 1)?, KdfParams::creation_floor());
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use crate::extra::Extra;
use argon2::{Algorithm, Argon2, Params, Version};
use serde::{Deserialize, Serialize};
#[cfg(feature = "nfc")]
use unicode_normalization::UnicodeNormalization as _;
use zeroize::{Zeroize as _, Zeroizing};

use crate::error::{CryptoError, CryptoResult};

/// The `algorithm` value of Argon2id parameters.
pub const ARGON2ID: &str = "argon2id";
/// Argon2 version 0x13.
pub const ARGON2_VERSION: u32 = 19;
/// Length of the derived key in bytes.
pub const DERIVED_KEY_LEN: usize = 32;
/// Length of a freshly generated salt in bytes.
pub const SALT_LEN: usize = 16;

/// The least memory cost (KiB) a new or re-sealed bundle may use: 19 MiB,
/// the OWASP Password Storage Cheat Sheet's minimum for Argon2id.
pub const CREATION_MIN_M: u32 = 19_456;
/// The least iteration count a new or re-sealed bundle may use (OWASP's
/// minimum with 19 MiB).
pub const CREATION_MIN_T: u32 = 2;
/// The least parallelism a new or re-sealed bundle may use.
pub const CREATION_MIN_P: u32 = 1;

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
    /// Fields of this object that the library does not know (API §9.6),
    /// kept and written back unchanged. Nothing in them is read when the
    /// record is opened or checked.
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extra: Extra,
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
            extra: Default::default(),
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
) -> CryptoError {
    CryptoError::KdfParamsOutOfBounds {
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
            extra: Default::default(),
        }
    }

    /// The cheapest parameters a new or re-sealed bundle may use: Argon2id,
    /// m = 19 MiB ([`CREATION_MIN_M`]), t = 2, p = 1, version 19, the OWASP
    /// Password Storage Cheat Sheet's minimum. A bundle lives on the server,
    /// where a copy can be attacked offline forever; [`KdfParams::default`]
    /// costs more and is what apps should use where they can afford it.
    pub fn creation_floor() -> Self {
        KdfParams::argon2id(CREATION_MIN_M, CREATION_MIN_T, CREATION_MIN_P)
    }

    /// Argon2id parameters for a new or re-sealed bundle, checked by
    /// [`KdfParams::check_for_new_bundle`] (`KDF_PARAMS_OUT_OF_BOUNDS` below
    /// the creation floor or above the default caps).
    ///
    /// # Errors
    ///
    /// `KDF_PARAMS_OUT_OF_BOUNDS` when a cost is below the creation floor or
    /// above [`KdfLimits::default`].
    pub fn for_new_bundle(m: u32, t: u32, p: u32) -> CryptoResult<Self> {
        let params = KdfParams::argon2id(m, t, p);
        params.check_for_new_bundle()?;
        Ok(params)
    }

    /// Checks parameters a bundle is about to be created or re-sealed with:
    /// algorithm and version as [`KdfParams::check`], every cost at least
    /// the creation floor (m = 19 MiB, t = 2, p = 1; see
    /// [`KdfParams::creation_floor`]) and at most [`KdfLimits::default`], so
    /// that every client can open what any client creates
    /// (`KDF_PARAMS_OUT_OF_BOUNDS`, `UNSUPPORTED_KDF`).
    ///
    /// This is the only place the floor is enforced; opening a record checks
    /// [`KdfParams::check`] alone, so records made before the floor existed
    /// still open.
    ///
    /// # Errors
    ///
    /// `UNSUPPORTED_KDF` when the algorithm is not Argon2id or the version not
    /// 19; `KDF_PARAMS_OUT_OF_BOUNDS` when a cost is below the creation floor or
    /// above [`KdfLimits::default`].
    pub fn check_for_new_bundle(&self) -> CryptoResult<()> {
        let caps = KdfLimits::default();
        self.check(&caps)?;
        if self.p < CREATION_MIN_P {
            return Err(out_of_bounds("p", self.p, CREATION_MIN_P, caps.max_p));
        }
        if self.m < CREATION_MIN_M {
            return Err(out_of_bounds("m", self.m, CREATION_MIN_M, caps.max_m));
        }
        if self.t < CREATION_MIN_T {
            return Err(out_of_bounds("t", self.t, CREATION_MIN_T, caps.max_t));
        }
        Ok(())
    }

    /// Checks algorithm, version and every cost against `limits`: the caps
    /// on what is accepted when *opening* a record (no creation floor).
    ///
    /// # Errors
    ///
    /// `UNSUPPORTED_KDF` when the algorithm is not Argon2id or the version not
    /// 19; `KDF_PARAMS_OUT_OF_BOUNDS` when a cost is outside `limits`.
    pub fn check(&self, limits: &KdfLimits) -> CryptoResult<()> {
        if self.algorithm != ARGON2ID {
            return Err(CryptoError::UnsupportedKdf {
                reason: format!("algorithm must be `{ARGON2ID}`"),
            });
        }
        if self.version != ARGON2_VERSION {
            return Err(CryptoError::UnsupportedKdf {
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
pub(crate) fn check_salt(salt: &[u8], limits: &KdfLimits) -> CryptoResult<()> {
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
///
/// Without the `nfc` feature (the npm package's WASM build) the text is
/// taken as NFC already: the package's JS entries normalise every passphrase
/// with `String.prototype.normalize("NFC")` before it crosses
/// (js/src/nfc.js), and its tests open the `decomposed-passphrase` vector
/// through them.
pub fn passphrase_bytes(passphrase: &str) -> Zeroizing<Vec<u8>> {
    #[cfg(feature = "nfc")]
    {
        // NFC makes UTF-8 at most three times longer (UAX #15, section 9):
        // reserving that up front means the buffer is never reallocated, so
        // no copy of the passphrase is left behind in freed memory.
        let mut nfc = Zeroizing::new(String::with_capacity(passphrase.len().saturating_mul(3)));
        nfc.extend(passphrase.nfc());
        Zeroizing::new(std::mem::take(&mut *nfc).into_bytes())
    }
    #[cfg(not(feature = "nfc"))]
    {
        Zeroizing::new(passphrase.as_bytes().to_vec())
    }
}

/// A passphrase handed over as bytes, as the bindings take it so that the
/// caller can wipe its own copy (a `Uint8Array`, `ByteArray`, `Data` or
/// `bytes`): the UTF-8 text, which [`derive_key`] then normalises to NFC.
///
/// The bytes become the text without a copy and are zeroized when the
/// returned value is dropped; bytes that are not UTF-8 are zeroized before
/// `INVALID_FIELD` (field `passphrase`) returns, and the error quotes none
/// of them.
///
/// # Errors
///
/// `INVALID_FIELD` (field `passphrase`) when `bytes` are not UTF-8.
pub fn passphrase_from_utf8(bytes: Vec<u8>) -> CryptoResult<Zeroizing<String>> {
    String::from_utf8(bytes).map(Zeroizing::new).map_err(|e| {
        let mut bytes = e.into_bytes();
        bytes.zeroize();
        CryptoError::invalid("passphrase", "is not UTF-8")
    })
}

/// Derives the 32-byte bundle key with Argon2id after checking `params` and
/// the salt against `limits`.
///
/// # Errors
///
/// `UNSUPPORTED_KDF` when the algorithm or version is not Argon2id 19 (or
/// Argon2 refuses the parameters); `KDF_PARAMS_OUT_OF_BOUNDS` when a cost or
/// the salt's length is outside `limits`.
pub fn derive_key(
    passphrase: &str,
    salt: &[u8],
    params: &KdfParams,
    limits: &KdfLimits,
) -> CryptoResult<Zeroizing<[u8; DERIVED_KEY_LEN]>> {
    params.check(limits)?;
    check_salt(salt, limits)?;
    let argon_params = Params::new(params.m, params.t, params.p, Some(DERIVED_KEY_LEN))
        .map_err(|_| out_of_bounds("m", params.m, params.p.saturating_mul(8), limits.max_m))?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, argon_params);
    let mut out = Zeroizing::new([0u8; DERIVED_KEY_LEN]);
    argon
        .hash_password_into(&passphrase_bytes(passphrase), salt, out.as_mut())
        .map_err(|e| CryptoError::UnsupportedKdf {
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
    fn creation_floor_is_owasp_minimum_and_apart_from_open_caps() {
        let floor = KdfParams::creation_floor();
        assert_eq!((floor.m, floor.t, floor.p), (19_456, 2, 1));
        assert_eq!((floor.algorithm.as_str(), floor.version), (ARGON2ID, 19));
        assert!(floor.check_for_new_bundle().is_ok());
        assert!(KdfParams::default().check_for_new_bundle().is_ok());
        // The top of the open caps is still allowed for a new bundle.
        assert!(
            KdfParams::argon2id(131_072, 10, 8)
                .check_for_new_bundle()
                .is_ok()
        );
        for (bad, param, min) in [
            (KdfParams::argon2id(19_455, 2, 1), "m", 19_456),
            (KdfParams::argon2id(8, 1, 1), "m", 19_456),
            (KdfParams::argon2id(65_536, 1, 1), "t", 2),
            (KdfParams::argon2id(19_456, 0, 1), "t", 1),
            (KdfParams::argon2id(19_456, 2, 0), "p", 1),
            (KdfParams::argon2id(131_073, 2, 1), "m", 8),
            (KdfParams::argon2id(19_456, 11, 1), "t", 1),
        ] {
            // Each of these except the last two still opens: the floor is
            // for creating, not for reading what the server holds.
            let err = bad.check_for_new_bundle().unwrap_err();
            assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds, "{bad:?}");
            match err {
                CryptoError::KdfParamsOutOfBounds {
                    param: p, min: m, ..
                } => {
                    assert_eq!((p, m), (param, min), "{bad:?}");
                }
                other => panic!("{other:?}"),
            }
            let (m, t, p) = (bad.m, bad.t, bad.p);
            assert_eq!(
                KdfParams::for_new_bundle(m, t, p).unwrap_err().code(),
                ErrorCode::KdfParamsOutOfBounds
            );
        }
        for old in [
            KdfParams::argon2id(8, 1, 1),
            KdfParams::argon2id(19_455, 2, 1),
            KdfParams::argon2id(65_536, 1, 1),
        ] {
            assert!(old.check(&KdfLimits::default()).is_ok(), "{old:?}");
        }
        let wrong = KdfParams {
            algorithm: "argon2i".into(),
            ..KdfParams::creation_floor()
        };
        assert_eq!(
            wrong.check_for_new_bundle().unwrap_err().code(),
            ErrorCode::UnsupportedKdf
        );
        assert_eq!(
            KdfParams::for_new_bundle(19_456, 2, 1).unwrap(),
            KdfParams::creation_floor()
        );
    }

    #[test]
    fn passphrase_bytes_decode_as_utf8_or_invalid_field() {
        let text = passphrase_from_utf8("pässwörd".as_bytes().to_vec()).unwrap();
        assert_eq!(text.as_str(), "pässwörd");
        let err = passphrase_from_utf8(vec![b'o', b'k', 0xff, 0xfe]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidField);
        assert!(!format!("{err} {err:?}").contains("ok"), "{err:?}");
    }

    #[test]
    #[cfg(feature = "nfc")]
    fn nfc_makes_compositions_equal() {
        assert_eq!(
            *passphrase_bytes("caf\u{e9}"),
            *passphrase_bytes("cafe\u{301}")
        );
    }
}
