//! # streamseal-wasm
//!
//! The wasm-bindgen layer of the `streamseal` npm package (`js/`): a thin
//! forwarder over the core with no logic of its own.
//!
//! - Wire types and results cross as **plain JS objects** (serde-wasm-bindgen)
//!   typed by the TypeScript the core's `wasm` feature generates (tsify);
//!   bytes are `Uint8Array`, key generations `number`.
//! - Secret holders ([`keys::IdentityKey`], [`keys::Keyring`],
//!   [`state::StreamState`], [`state::PreparedRoll`],
//!   `OpenedInvocation` with the `runtime` feature) stay in WASM memory as classes with
//!   `free()` and `Symbol.dispose`; the core zeroizes them on drop. Only
//!   `exportSecretKey` / `exportKey` hand secret bytes to JS; a persisted
//!   state leaves only sealed under the identity key (`toBytes`).
//! - Where a flow takes several class instances (the caller's identity
//!   keys, the trusted recipients of a roll), an array crosses: each
//!   instance is copied inside WASM memory ([`error::copies_of`]), so the
//!   caller keeps its objects.
//! - Every failure is a `StreamsealError` ([`error`]) with the core's stable
//!   `code`. Nothing panics on any input.
//! - Envelopes are signed by their sender (envelope version 2, [`sender`]):
//!   sealing takes the caller's `IdentityKey` and its subject; opening takes
//!   its `TrustStore`, optionally its own keys (`OwnKeys`) and keys the
//!   server presented (`PresentedKey[]`), builds a core `SenderKeys` per
//!   call, and returns `sealedBy: {subject, kind, keyId, status}` with
//!   `status` `"verified"` or `"unverified"`.
//! - The signature primitive alone (module `signature`, with the `tools`
//!   feature): `hazmatXeddsaSign` /
//!   `hazmatXeddsaVerify` sign and verify raw bytes with an identity key.
//!   Hazmat: envelopes sign a domain-separated input themselves; an app must
//!   never sign bytes a peer chose.
//!
//! Modules: [`crypto`] (envelopes, wraps), [`sender`] (who
//! seals, whose signatures an opener accepts), `signature` (XEdDSA over
//! raw bytes, hazmat) and `tools` (the golden vectors' fixed randomness, the
//! AAD codec, the bundle alone), both with the `tools` feature, [`trust`] (the trust store, fingerprints, safety
//! numbers), [`state`] (the persistent stream state, opening key wraps,
//! rolls), [`flows`] (the sealed flows), [`pending`] (opens whose AES-GCM
//! runs in the platform's WebCrypto: the package's async opens). The sans-IO endpoints and the
//! realtime events are the second module (`streamseal-wasm-api`,
//! `streamseal/api`), loaded on first use; [`error`] is what both share
//! (`streamseal-wasm-glue`).
//! The `hazmat*WithRandomness` exports take the randomness as a parameter
//! (`streamseal::hazmat`), for reproducing the golden vectors; there is no
//! test-only build flavour of the sealing code and no global seam. They,
//! the raw XEdDSA exports and the AAD codec are built with the `tools`
//! feature only (modules `tools` and `signature`): the Node entry and
//! `streamseal/bot` have them, the browser's first module does not.

// Exports return the one coded `StreamsealError`; each one's codes are its core call's.
#![allow(clippy::missing_errors_doc)]

pub mod crypto;
pub use streamseal_wasm_glue::error;
pub mod flows;
pub mod keys;
pub mod pending;
pub mod sender;
#[cfg(feature = "tools")]
pub mod signature;
pub mod state;
#[cfg(feature = "tools")]
pub mod tools;
pub mod trust;

#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const STREAMSEAL_ERROR_TS: &str = r#"
/** Every error the package throws: the core's stable code, and per-field details for VALIDATION_FAILED. */
export declare class StreamsealError extends Error {
  readonly name: "StreamsealError";
  /** The stable code, e.g. "AAD_MISMATCH" (the same strings as every other binding). */
  readonly code: ErrorCode;
  /** For VALIDATION_FAILED: field path -> reasons. */
  readonly details?: Record<string, string[]>;
}
"#;
