//! The crypto core: envelopes, AADs, key wraps, the passphrase bundle and
//! strict base64, each forwarding to the core function of the same name.

use streamseal::bundle::{self, SealedBundle};
use streamseal::envelope::{self, SealedPayload};
use streamseal::identity::{PublicKey, Recipient};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::slot::Slot;
use streamseal::wrap::{self, KeyWrap};
use streamseal::{ErrorCode, aad, encoding};
use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, input, js, output};
use crate::keys::{IdentityKey, Keyring};

/// Optional KDF parameters (the library's defaults when `undefined`).
pub(crate) fn kdf_params(params: Option<Ts<KdfParams>>) -> JsResult<KdfParams> {
    params.map_or_else(|| Ok(KdfParams::default()), |p| input("params", &p))
}

/// Optional KDF limits (the library's defaults when `undefined`).
pub(crate) fn kdf_limits(limits: Option<Ts<KdfLimits>>) -> JsResult<KdfLimits> {
    limits.map_or_else(|| Ok(KdfLimits::default()), |l| input("limits", &l))
}

/// Seals `plaintext` into `slot` under the keyring's current generation.
#[wasm_bindgen]
pub fn seal(keyring: &Keyring, slot: Ts<Slot>, plaintext: &[u8]) -> JsResult<Ts<SealedPayload>> {
    let slot = input("slot", &slot)?;
    output(&js(envelope::seal(keyring.core(), &slot, plaintext))?)
}

/// Seals `plaintext` into `slot` under a chosen generation.
#[wasm_bindgen(js_name = sealWithGeneration)]
pub fn seal_with_generation(
    keyring: &Keyring,
    generation: u32,
    slot: Ts<Slot>,
    plaintext: &[u8],
) -> JsResult<Ts<SealedPayload>> {
    let slot = input("slot", &slot)?;
    output(&js(envelope::seal_with_generation(
        keyring.core(),
        generation,
        &slot,
        plaintext,
    ))?)
}

/// Opens a sealed payload that must belong to `slot` (the AAD is
/// recomputed from `slot`, never trusted from the envelope).
#[wasm_bindgen]
pub fn open(keyring: &Keyring, slot: Ts<Slot>, sealed: Ts<SealedPayload>) -> JsResult<Vec<u8>> {
    let slot = input("slot", &slot)?;
    let sealed = input("sealed", &sealed)?;
    // The decrypted buffer itself goes to JS (wasm-bindgen copies it into a
    // Uint8Array and frees it): the plaintext's owner is the caller now, so
    // no second copy is made only to zeroize the first.
    let mut plain = js(envelope::open(keyring.core(), &slot, &sealed))?;
    Ok(std::mem::take(&mut *plain))
}

/// The canonical AAD bytes of `slot` (FORMAT.md section 3).
#[wasm_bindgen(js_name = aadEncode)]
pub fn aad_encode(
    version: u8,
    root_stream_id: &str,
    key_generation: u32,
    slot: Ts<Slot>,
) -> JsResult<Vec<u8>> {
    let slot = input("slot", &slot)?;
    js(aad::encode(version, root_stream_id, key_generation, &slot))
}

/// Parses AAD bytes.
#[wasm_bindgen(js_name = aadParse)]
pub fn aad_parse(bytes: &[u8]) -> JsResult<Ts<aad::AadContents>> {
    output(&js(aad::parse(bytes))?)
}

/// Wraps the keyring's key of `generation` to `recipient` (HPKE).
#[wasm_bindgen(js_name = wrapStreamKey)]
pub fn wrap_stream_key(
    keyring: &Keyring,
    generation: u32,
    recipient: Ts<Recipient>,
) -> JsResult<Ts<KeyWrap>> {
    let recipient = input("recipient", &recipient)?;
    let key = js(keyring.core().key(generation))?;
    output(&js(wrap::wrap_stream_key(
        keyring.core().root_stream_id(),
        generation,
        key,
        &recipient,
    ))?)
}

/// Opens a key wrap with `mine` and holds the key in `keyring` under the
/// wrap's generation.
#[wasm_bindgen(js_name = unwrapStreamKey)]
pub fn unwrap_stream_key(
    keyring: &mut Keyring,
    record: Ts<KeyWrap>,
    mine: &IdentityKey,
) -> JsResult<()> {
    let record = input("record", &record)?;
    let key = js(wrap::unwrap_stream_key(
        keyring.core().root_stream_id(),
        &record,
        mine.mine(),
    ))?;
    js(keyring.core_mut().insert(record.key_generation, key))
}

/// Seals `key`'s secret under `passphrase` (Argon2id with `params`, the
/// library's defaults when omitted).
#[wasm_bindgen(js_name = createBundle)]
pub fn create_bundle(
    key: &IdentityKey,
    passphrase: &str,
    params: Option<Ts<KdfParams>>,
) -> JsResult<Ts<SealedBundle>> {
    let params = kdf_params(params)?;
    output(&js(bundle::create_bundle(
        key.core().secret_key(),
        passphrase,
        &params,
    ))?)
}

/// Opens a bundle into an identity key of `kind` and `keyId`; the bundle
/// must hold the secret of `publicKey`.
#[wasm_bindgen(js_name = openBundle)]
pub fn open_bundle(
    kind: &str,
    key_id: &str,
    public_key: &str,
    sealed: Ts<SealedBundle>,
    passphrase: &str,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<IdentityKey> {
    let sealed = input("bundle", &sealed)?;
    let limits = kdf_limits(limits)?;
    let key_id = js(streamseal::identity::KeyId::new(key_id))?;
    let public = js(PublicKey::from_base64(public_key))?;
    let secret = js(bundle::open_bundle(&public, &sealed, passphrase, &limits))?;
    Ok(IdentityKey::from_core(
        streamseal::identity::IdentityKey::from_secret(
            streamseal::identity::RecipientKind::parse(kind),
            key_id,
            secret,
        ),
    ))
}

/// Canonical padded standard base64.
#[wasm_bindgen(js_name = encodeBase64)]
pub fn encode_base64(bytes: &[u8]) -> String {
    encoding::encode_base64(bytes)
}

/// Strict base64 decoding (`MALFORMED_BASE64`).
#[wasm_bindgen(js_name = decodeBase64)]
pub fn decode_base64(text: &str) -> JsResult<Vec<u8>> {
    js(encoding::decode_base64("base64", text))
}

/// Every stable error code, in declaration order.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<String> {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect()
}
