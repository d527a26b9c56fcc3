//! The XEdDSA primitive alone (`streamseal::signature`): sign and verify raw
//! bytes with an X25519 identity key. **Hazmat**, hence the `hazmat` prefix
//! of both exports.
//!
//! Envelopes need none of this: `seal` and every sealing flow sign, and every
//! opening flow verifies, a domain-separated input of their own (FORMAT.md
//! section 2: `"streamseal/signature"`, the envelope version, the AAD, the
//! content). These two sign and verify exactly the bytes given, with the
//! same key an app's envelopes are signed with, so an app must never sign
//! bytes a peer chose (a peer could hand over bytes that read as something
//! else of the app's) and must domain-separate what it signs itself.
//!
//! Both take the bytes as a `Uint8Array` only (anything else is
//! `INVALID_FIELD`): the glue would take a string as array-like and hand
//! over zeros, one per character, and a signature over those would verify
//! for any other string of the same length.

use js_sys::Uint8Array;
use streamseal::identity::PublicKey;
use streamseal::signature::{self, SIGNATURE_LEN, Signature};
use streamseal::{CryptoError, ErrorCode};
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, error_with, js};
use crate::keys::IdentityKey;

/// The bytes of a `Uint8Array` parameter, copied into WASM memory; anything
/// else is `INVALID_FIELD` naming `field`.
fn bytes_of(field: &str, value: &Uint8Array) -> JsResult<Vec<u8>> {
    if !value.is_instance_of::<Uint8Array>() {
        return Err(error_with(
            ErrorCode::InvalidField,
            &format!("field `{field}` is invalid: pass a Uint8Array"),
        ));
    }
    Ok(value.to_vec())
}

/// **Hazmat.** The XEdDSA signature (64 bytes, `R || s`) of `message`
/// exactly as given, made with `identity`'s X25519 secret key
/// (`streamseal::signature::sign`; 64 fresh random bytes per signature).
/// Envelopes sign a domain-separated input of their own; never sign bytes a
/// peer chose with this. `RANDOMNESS_UNAVAILABLE` without randomness.
#[wasm_bindgen(js_name = hazmatXeddsaSign)]
pub fn hazmat_xeddsa_sign(identity: &IdentityKey, message: &Uint8Array) -> JsResult<Vec<u8>> {
    let message = bytes_of("message", message)?;
    let signed = js(signature::sign(identity.core(), &message))?;
    Ok(signed.as_bytes().to_vec())
}

/// **Hazmat.** `hazmatXeddsaSign` drawing the 64 bytes `Z` from
/// `randomness`, to the last byte: for reproducing the golden signatures
/// only (one `Z` twice reveals the secret key).
#[wasm_bindgen(js_name = hazmatXeddsaSignWithRandomness)]
pub fn hazmat_xeddsa_sign_with_randomness(
    identity: &IdentityKey,
    message: &Uint8Array,
    randomness: &[u8],
) -> JsResult<Vec<u8>> {
    let message = bytes_of("message", message)?;
    let signed = js(streamseal::hazmat::drawing_exactly(randomness, |rng| {
        streamseal::hazmat::sign_with(rng, identity.core(), &message)
    }))?;
    Ok(signed.as_bytes().to_vec())
}

/// **Hazmat.** Checks that `signature` (64 bytes) is the XEdDSA signature of
/// `message` exactly as given under `public_key` (44-character base64;
/// `streamseal::signature::verify`). Returns nothing when it is; throws a
/// `StreamsealError` otherwise: `INVALID_FIELD` for a signature that does
/// not verify, `INVALID_PUBLIC_KEY` for a key that is not canonical or of
/// small order, `INVALID_LENGTH` / `MALFORMED_BASE64` for a key or a
/// signature of the wrong shape.
#[wasm_bindgen(js_name = hazmatXeddsaVerify)]
pub fn hazmat_xeddsa_verify(
    public_key: &str,
    message: &Uint8Array,
    signature: &Uint8Array,
) -> JsResult<()> {
    let public = js(PublicKey::from_base64(public_key))?;
    let message = bytes_of("message", message)?;
    let signed = bytes_of("signature", signature)?;
    let wrong_length = || CryptoError::InvalidLength {
        field: "signature",
        expected: SIGNATURE_LEN.to_string(),
        actual: signed.len(),
    };
    let signed: [u8; SIGNATURE_LEN] = js(signed.as_slice().try_into().map_err(|_| wrong_length()))?;
    js(signature::verify(
        &public,
        &message,
        &Signature::from_bytes(signed),
    ))
}
