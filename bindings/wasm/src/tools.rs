//! The exports for tests and tools rather than front ends (the `tools`
//! feature: in the Node entry and `streamseal/bot`, not in the browser's
//! first download): the `hazmat*WithRandomness` calls that reproduce the
//! golden vectors, the AAD codec alone, and the passphrase bundle alone
//! (`createBundle`, `openBundle`). A front end calls the flows over these
//! instead: every seal draws its own randomness, every open recomputes the
//! AAD from the slot it expects, and a user's bundle is made by `setUp` and
//! `changePassphrase` and opened by `unlock`, which read and write the
//! `me/e2e-key` record around it.
//!
//! The randomness is a parameter (`streamseal::hazmat`): there is no
//! test-only build of the sealing code and no global seam. The same bytes
//! twice reuse an AES-GCM or XEdDSA nonce, which is why these are hazmat.

use js_sys::Uint8Array;
use streamseal::aad::{self, AadSender};
use streamseal::bundle::{self, SealedBundle};
use streamseal::envelope::SealedPayload;
use streamseal::hazmat;
use streamseal::identity::{PublicKey, Recipient};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::slot::Slot;
use streamseal::wrap::KeyWrap;
use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::crypto::{self, kdf_limits, kdf_params};
use crate::error::{JsResult, input, js, output};
use crate::keys::{IdentityKey, Keyring};
use crate::sender::signer;

/// **Hazmat** (`streamseal::hazmat`): `seal` drawing the 12 iv bytes, then
/// the signature's 64 bytes `Z`, from `randomness`, to the last byte. For
/// reproducing the golden vectors only: the same bytes twice reuse the
/// AES-GCM and XEdDSA nonces.
#[wasm_bindgen(js_name = hazmatSealWithRandomness)]
pub fn hazmat_seal_with_randomness(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    slot: Ts<Slot>,
    plaintext: &[u8],
    randomness: &[u8],
) -> JsResult<Ts<SealedPayload>> {
    let slot = input("slot", &slot)?;
    let signer = signer(identity, subject)?;
    output(&js(hazmat::drawing_exactly(randomness, |rng| {
        hazmat::seal_envelope_with(rng, keyring.core(), &signer, &slot, plaintext)
    }))?)
}

/// The canonical AAD bytes of `slot` sealed by `sender` (FORMAT.md section
/// 3); a sender that is not the slot's author is `INVALID_FIELD`.
#[wasm_bindgen(js_name = aadEncode)]
pub fn aad_encode(
    version: u8,
    root_stream_id: &str,
    key_generation: u32,
    sender: Ts<AadSender>,
    slot: Ts<Slot>,
) -> JsResult<Vec<u8>> {
    let sender = input("sender", &sender)?;
    let slot = input("slot", &slot)?;
    js(aad::encode(
        version,
        root_stream_id,
        key_generation,
        &sender,
        &slot,
    ))
}

/// Parses AAD bytes.
#[wasm_bindgen(js_name = aadParse)]
pub fn aad_parse(bytes: &[u8]) -> JsResult<Ts<aad::AadContents>> {
    output(&js(aad::parse(bytes))?)
}

/// **Hazmat** (`streamseal::hazmat`): `wrapStreamKey` drawing its 32 bytes
/// of `ikmE` from `randomness`, to the last byte. For reproducing the golden
/// vectors only.
#[wasm_bindgen(js_name = hazmatWrapStreamKeyWithRandomness)]
pub fn hazmat_wrap_stream_key_with_randomness(
    keyring: &Keyring,
    generation: u32,
    sender: &IdentityKey,
    recipient: Ts<Recipient>,
    randomness: &[u8],
) -> JsResult<Ts<KeyWrap>> {
    let recipient = input("recipient", &recipient)?;
    let key = js(keyring.core().key(generation))?;
    output(&js(hazmat::drawing_exactly(randomness, |rng| {
        hazmat::wrap_stream_key_with(
            rng,
            keyring.core().root_stream_id(),
            generation,
            key,
            sender.core(),
            &recipient,
        )
    }))?)
}

/// **Hazmat** (`streamseal::hazmat`): `createBundle` drawing the 16 salt
/// bytes, then the 12 iv bytes, from `randomness`, to the last byte. For
/// reproducing the golden vectors only.
#[wasm_bindgen(js_name = hazmatCreateBundleWithRandomness)]
pub fn hazmat_create_bundle_with_randomness(
    key: &IdentityKey,
    passphrase: &Uint8Array,
    params: Option<Ts<KdfParams>>,
    randomness: &[u8],
) -> JsResult<Ts<SealedBundle>> {
    let passphrase = crypto::passphrase("passphrase", passphrase)?;
    let params = kdf_params(params)?;
    output(&js(hazmat::drawing_exactly(randomness, |rng| {
        hazmat::create_bundle_with(rng, key.core().secret_key(), &passphrase, &params)
    }))?)
}

/// Seals `key`'s secret under `passphrase` (a `Uint8Array` of its UTF-8,
/// zeroized in WASM memory after use; wipe your own with `fill(0)`) with
/// Argon2id and `params` (the library's defaults when omitted; at least
/// m = 19456, t = 2, p = 1, else `KDF_PARAMS_OUT_OF_BOUNDS`).
#[wasm_bindgen(js_name = createBundle)]
pub fn create_bundle(
    key: &IdentityKey,
    passphrase: &Uint8Array,
    params: Option<Ts<KdfParams>>,
) -> JsResult<Ts<SealedBundle>> {
    let passphrase = crypto::passphrase("passphrase", passphrase)?;
    let params = kdf_params(params)?;
    output(&js(bundle::create_bundle(
        key.core().secret_key(),
        &passphrase,
        &params,
    ))?)
}

/// Opens a bundle into an identity key of `kind` and `keyId` with
/// `passphrase` (a `Uint8Array` of its UTF-8, zeroized in WASM memory after
/// use); the bundle must hold the secret of `publicKey`.
#[wasm_bindgen(js_name = openBundle)]
pub fn open_bundle(
    kind: &str,
    key_id: &str,
    public_key: &str,
    sealed: Ts<SealedBundle>,
    passphrase: &Uint8Array,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<IdentityKey> {
    let passphrase = crypto::passphrase("passphrase", passphrase)?;
    let sealed = input("bundle", &sealed)?;
    let limits = kdf_limits(limits)?;
    let key_id = js(streamseal::identity::KeyId::new(key_id))?;
    let public = js(PublicKey::from_base64(public_key))?;
    let secret = js(bundle::open_bundle(&public, &sealed, &passphrase, &limits))?;
    Ok(IdentityKey::from_core(
        streamseal::identity::IdentityKey::from_secret(
            streamseal::identity::RecipientKind::parse(kind),
            key_id,
            secret,
        ),
    ))
}
