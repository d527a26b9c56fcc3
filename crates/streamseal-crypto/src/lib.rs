//! # streamseal-crypto
//!
//! The crypto layer of streamseal: everything that turns keys and bytes into
//! sealed bytes and back, and nothing that knows the service's API. Cargo
//! keeps it that way: this crate depends on no JSON library, no wire type and
//! no endpoint (`cargo tree -p streamseal-crypto`, checked by
//! `cargo xtask test`). Apps normally use it through the `streamseal` facade,
//! which re-exports every module here under the same path.
//!
//! - [`identity`]: X25519 identity keys, 44-character base64 public keys, key ids.
//! - [`stream_key`]: per-stream AES-256-GCM keys by generation, the [`Keyring`]
//!   (its sealing generation only rises; seals are counted per generation).
//! - [`wrap`]: HPKE (RFC 9180) wraps of a stream key to a recipient's public
//!   key, in auth mode from the identity key of the member who made the generation.
//! - [`slot`] and [`aad`]: where a ciphertext belongs, and the canonical AAD
//!   that binds it there.
//! - [`envelope`]: sealing and opening `{ciphertext, envelope}` payloads,
//!   signed by their sender and committed to their key.
//! - [`signature`] and [`sender`]: XEdDSA signatures with the X25519 identity
//!   keys, the [`sender::Signer`] who seals and the [`sender::SenderKeys`] an
//!   opener checks signatures against.
//! - [`bundle`] and [`kdf`]: the Argon2id passphrase-protected private-key bundle.
//! - [`trust`] and [`fingerprint`]: the keys each user and bot is known by
//!   (pinned on first use, verified by comparing safety numbers).
//! - [`codec`] and [`persist`]: the length-prefixed byte codec and the
//!   sealing of local state under the identity key, which the sealed flows'
//!   persisted state is written with.
//! - [`extra`]: the unknown fields a JSON record keeps (API §9.6).
//! - [`error`]: the crypto layer's [`CryptoError`] under the one top-level
//!   [`Error`] of every layer, with stable [`ErrorCode`]s.
//!
//! The byte-level format is written down in `crates/streamseal/FORMAT.md`,
//! with golden vectors in `tests/vectors/streamseal/`.

#![forbid(unsafe_code)]

/// Declares a TypeScript type in the WASM binding's generated `.d.ts`
/// (feature `wasm`) for a type whose serde form is hand-written, so that
/// the derived declarations of the types around it can name it. Used by this
/// crate and by the layers above it.
#[cfg(feature = "wasm")]
#[doc(hidden)]
#[macro_export]
macro_rules! ts_decl {
    ($decl:expr) => {
        const _: () = {
            // The expansion names `wasm_bindgen`: a crate using this macro
            // depends on it under its own `wasm` feature.
            #[$crate::__private::wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
            const TS_DECL: &str = $decl;
        };
    };
}
/// Without the `wasm` feature there is no `.d.ts` to declare anything in.
#[cfg(not(feature = "wasm"))]
#[doc(hidden)]
#[macro_export]
macro_rules! ts_decl {
    ($decl:expr) => {};
}

/// What the exported macros of this crate name, so that a crate using them
/// needs no dependency of its own.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "wasm")]
    pub use wasm_bindgen;
}

pub mod aad;
mod aead;
pub mod bundle;
pub mod codec;
mod dhkem;
pub mod encoding;
pub mod envelope;
pub mod error;
pub mod extra;
pub mod fingerprint;
pub mod hazmat;
pub mod identity;
pub mod kdf;
pub mod persist;
pub mod plaintext;
pub mod random;
pub mod sender;
pub mod signature;
pub mod slot;
pub mod stream_key;
pub mod trust;
pub mod wrap;

pub use error::{CryptoError, CryptoResult, Error, ErrorCode, Result};
pub use stream_key::Keyring;

// The UniFFI shape of the crate's records and enums (feature `uniffi`, for
// bindings/uniffi), in the namespace the bindings have always used. The
// generated code is the macro's, outside this crate's own sources, which stay
// free of `unsafe`.
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("streamseal");
