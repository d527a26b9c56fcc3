//! The crypto core: envelopes (signed by their sender, envelope version 2),
//! key wraps and strict base64, each forwarding to the core function of the
//! same name, and how a passphrase and KDF parameters cross. The AAD codec
//! and the passphrase bundle alone are the `tools` feature's
//! (`crate::tools`), for tests and tools.

use js_sys::Uint8Array;
use serde::Serialize;
use streamseal::envelope::{self, SealedPayload};
use streamseal::identity::Recipient;
use streamseal::kdf::{self, KdfLimits, KdfParams};
use streamseal::plaintext::Plaintext;
use streamseal::sealed::key_wraps::{self, WrapsReport};
use streamseal::sender::SealedBy;
use streamseal::slot::Slot;
use streamseal::wire::keys::KeyWraps;
use streamseal::wrap::{self, KeyWrap};
use streamseal::{ErrorCode, encoding, hazmat};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::error::{JsResult, error_with, from_js, input, js, output};
use crate::keys::{IdentityKey, Keyring, Mine};
use crate::sender::{OwnKeysArg, PresentedKeys, sender_keys};
use crate::state::{StreamState, open_key_wraps_read};
use crate::trust::TrustStore;

/// Optional KDF parameters (the library's defaults when `undefined`).
pub(crate) fn kdf_params(params: Option<Ts<KdfParams>>) -> JsResult<KdfParams> {
    params.map_or_else(|| Ok(KdfParams::default()), |p| input("params", &p))
}

/// A passphrase as it crosses from JS: a `Uint8Array` of its UTF-8 (a JS
/// string cannot be wiped; the caller can `fill(0)` its array after the
/// call). Copied into a buffer that is zeroized when dropped, then decoded
/// (`INVALID_FIELD` if not UTF-8). Anything but a `Uint8Array` is
/// `INVALID_FIELD`: the glue would otherwise take a string as array-like and
/// hand over zeros, one per character.
pub(crate) fn passphrase(field: &str, value: &Uint8Array) -> JsResult<Zeroizing<String>> {
    if !value.is_instance_of::<Uint8Array>() {
        return Err(error_with(
            ErrorCode::InvalidField,
            &format!(
                "field `{field}` is invalid: pass the passphrase as a Uint8Array of its UTF-8 (new TextEncoder().encode(text)), not a string"
            ),
        ));
    }
    let mut bytes = vec![0u8; value.length() as usize];
    value.copy_to(&mut bytes);
    js(kdf::passphrase_from_utf8(bytes))
}

/// Optional KDF limits (the library's defaults when `undefined`).
pub(crate) fn kdf_limits(limits: Option<Ts<KdfLimits>>) -> JsResult<KdfLimits> {
    limits.map_or_else(|| Ok(KdfLimits::default()), |l| input("limits", &l))
}

/// Seals `plaintext` into `slot` under the keyring's current generation,
/// signed by `identity` as `subject`'s (the slot's author where it names
/// one, else `INVALID_FIELD`).
#[wasm_bindgen]
pub fn seal(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    slot: Ts<Slot>,
    plaintext: &[u8],
) -> JsResult<Ts<SealedPayload>> {
    crate::pending::prepare_seal(keyring, identity, subject, slot, plaintext)?
        .seal_here(keyring.core())
}

/// An opened envelope: the slot its AAD bound, the generation, who sealed
/// it and the content.
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct OpenedEnvelope {
    /// The slot the AAD bound.
    pub slot: Slot,
    /// The generation it was sealed under.
    pub key_generation: u32,
    /// Who sealed it, and how sure the opener is.
    pub sealed_by: SealedBy,
    /// The content (without the signature), zeroized in WASM memory once
    /// copied to JS.
    #[serde(serialize_with = "bytes")]
    #[tsify(type = "Uint8Array")]
    pub plaintext: Plaintext,
}

fn bytes<S: serde::Serializer>(value: &Plaintext, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(value)
}

/// Opens a sealed payload that must belong to `slot` (the AAD is
/// recomputed from `slot`, never trusted from the envelope), signed by the
/// sender its AAD names: checked against `own` keys (`"verified"`), the
/// keys `trust` pins (`"verified"` or `"unverified"`; `KEY_CHANGED`,
/// `KEY_NOT_VERIFIED` by its policy), then the `presented` keys of subjects
/// the store pins no key of (`"unverified"`); none: `UNKNOWN_KEY`; a
/// signature that does not verify: `SENDER_MISMATCH`.
#[wasm_bindgen]
pub fn open(
    keyring: &Keyring,
    trust: &TrustStore,
    slot: Ts<Slot>,
    sealed: Ts<SealedPayload>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<Ts<OpenedEnvelope>> {
    let slot = input("slot", &slot)?;
    let sealed = input("sealed", &sealed)?;
    let senders = sender_keys(trust, own, presented)?;
    let opened = js(envelope::open(keyring.core(), &senders, &slot, &sealed))?;
    output(&OpenedEnvelope {
        slot: opened.slot,
        key_generation: opened.key_generation,
        sealed_by: opened.sealed_by,
        plaintext: opened.plaintext,
    })
}

/// Wraps the keyring's key of `generation` to `recipient`, made by
/// `sender` (HPKE auth mode, wrap format 2: only the holder of the sender's
/// secret key can make a wrap that opens as the sender's).
#[wasm_bindgen(js_name = wrapStreamKey)]
pub fn wrap_stream_key(
    keyring: &Keyring,
    generation: u32,
    sender: &IdentityKey,
    recipient: Ts<Recipient>,
) -> JsResult<Ts<KeyWrap>> {
    let recipient = input("recipient", &recipient)?;
    let key = js(keyring.core().key(generation))?;
    output(&js(wrap::wrap_stream_key(
        keyring.core().root_stream_id(),
        generation,
        key,
        sender.core(),
        &recipient,
    ))?)
}

/// Which sender made an unwrapped key, and to which of the caller's keys.
#[derive(Serialize, Tsify)]
pub struct Unwrapped {
    /// The index, in `senders`, of the sender that made the wrap.
    pub sender: u32,
    /// The index, in `identities`, of the key the wrap was made to.
    pub recipient: u32,
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Opens a key wrap with `identities` (an `IdentityKey` or an array of
/// them), accepting it only as made by one of `senders` (the keys the
/// caller accepts as this stream's key distributors), and holds the key in
/// `keyring` under the wrap's generation. A wrap no accepted sender made is
/// `UNTRUSTED_WRAP`. The low-level form: `openKeyWraps` does this through a
/// `StreamState` and the trust store.
#[wasm_bindgen(js_name = unwrapStreamKey)]
pub fn unwrap_stream_key(
    keyring: &mut Keyring,
    record: Ts<KeyWrap>,
    #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Recipient[]")] senders: JsValue,
) -> JsResult<Ts<Unwrapped>> {
    unwrap_with(keyring, record, identities, senders)
}

/// `unwrapStreamKey`: its arguments read, then opened with WASM's X25519
/// alone.
fn unwrap_with(
    keyring: &mut Keyring,
    record: Ts<KeyWrap>,
    identities: JsValue,
    senders: JsValue,
) -> JsResult<Ts<Unwrapped>> {
    let record = input("record", &record)?;
    let mine = IdentityKey::mine("identities", &identities)?;
    let senders: Vec<Recipient> = from_js("senders", senders)?;
    unwrap_read(keyring, &record, &mine, &senders, hazmat::PlatformDh::new())
}

/// `unwrapStreamKey` with its arguments read, the X25519 results in `dh`
/// (a platform's, or none) and WASM's for the rest.
fn unwrap_read(
    keyring: &mut Keyring,
    record: &KeyWrap,
    mine: &Mine,
    senders: &[Recipient],
    mut dh: hazmat::PlatformDh,
) -> JsResult<Ts<Unwrapped>> {
    mine.seed(&mut dh);
    let opened = hazmat::unwrap_stream_key_with_platform_dh(
        keyring.core().root_stream_id(),
        record,
        &mine.keys,
        senders,
        &mut dh,
    );
    mine.keep(&mut dh);
    let opened = js(opened)?;
    js(keyring.core_mut().insert(record.key_generation, opened.key))?;
    output(&Unwrapped {
        sender: index(opened.sender),
        recipient: index(opened.recipient),
    })
}

/// The X25519 operations a key-wrap open may do, packed for the platform:
/// 33 bytes each, the index of the key in `identities` (at most
/// `MAX_KEYS`, 32), then the public key.
fn pack_dh_requests(requests: &[(usize, [u8; 32])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(requests.len() * (1 + 32));
    for (key, public) in requests {
        out.push(u8::try_from(*key).unwrap_or(u8::MAX));
        out.extend_from_slice(public);
    }
    out
}

/// The platform's answers to `requests` (the pending open's own list), in
/// `results`: for each request in order, one byte (1: the platform
/// computed it, 0: it did not, WASM computes it) and the 32 bytes of
/// `X25519(key, public)`. Copied into a buffer zeroized when dropped (the
/// caller wipes its own). `INVALID_LENGTH` when `results` is not 33 bytes
/// per request, `INVALID_FIELD` for a flag other than 0 or 1.
fn platform_dh(
    requests: &[(usize, [u8; 32])],
    results: &Uint8Array,
) -> JsResult<hazmat::PlatformDh> {
    let expected = requests.len() * (1 + 32);
    if results.length() as usize != expected {
        js(Err::<(), _>(streamseal::CryptoError::length(
            "results",
            expected,
            results.length() as usize,
        )))?;
    }
    let mut bytes = Zeroizing::new(vec![0u8; expected]);
    results.copy_to(&mut bytes);
    let mut dh = hazmat::PlatformDh::new();
    for ((key, public), result) in requests.iter().zip(bytes.chunks_exact(1 + 32)) {
        let Some((&flag, value)) = result.split_first() else {
            continue;
        };
        if flag > 1 {
            return Err(error_with(
                ErrorCode::InvalidField,
                "field `results` is invalid: a flag other than 0 or 1",
            ));
        }
        if flag == 1 {
            let Ok(value) = <&[u8; 32]>::try_from(value) else {
                continue;
            };
            dh.insert(*key, *public, value);
        }
    }
    Ok(dh)
}

/// A key-wrap open whose X25519 runs on the platform, its arguments read
/// once (`hazmatPrepareUnwrap`, `hazmatPrepareKeyWraps`): `requests` lists
/// each wrap's `X25519(key, enc)` (33 bytes each: the index of the key in
/// `identities`, then the enc; never a sender's key, which WASM computes
/// itself and keeps with the `IdentityKey`), and the finish opens with the
/// platform's results for them. It holds copies of the identity keys and
/// shares their kept results with senders (see `IdentityKey`), zeroized
/// when it is finished or freed, even if the `IdentityKey` objects were
/// freed meanwhile. What it read (the record, the senders, the keys) is
/// what it opens with: a later change to those JS values has no effect.
/// The async key-wrap opens (`unwrapStreamKeyAsync`, `openKeyWrapsAsync`)
/// drive it.
#[wasm_bindgen]
pub struct PendingUnwrap {
    what: Unwrapping,
    mine: Mine,
    /// The X25519 operations listed: a key's index in `mine`, a public key.
    requests: Vec<(usize, [u8; 32])>,
}

/// What a [`PendingUnwrap`] opens.
enum Unwrapping {
    /// One wrap (`unwrapStreamKey`).
    One {
        record: KeyWrap,
        senders: Vec<Recipient>,
    },
    /// A `key-wraps` response (`openKeyWraps`).
    Wraps(KeyWraps),
}

/// **Hazmat** (`streamseal::hazmat::PlatformDh`): `unwrapStreamKey` read
/// and listed, its X25519 operations in `requests` for the platform; its
/// `hazmatFinish` opens with their results. Nothing is computed yet.
#[wasm_bindgen(js_name = hazmatPrepareUnwrap)]
pub fn hazmat_prepare_unwrap(
    record: Ts<KeyWrap>,
    #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Recipient[]")] senders: JsValue,
) -> JsResult<PendingUnwrap> {
    let record = input("record", &record)?;
    let mine = IdentityKey::mine("identities", &identities)?;
    let senders: Vec<Recipient> = from_js("senders", senders)?;
    let requests = js(hazmat::unwrap_dh_requests(&record, &mine.keys, &senders))?;
    Ok(PendingUnwrap {
        what: Unwrapping::One { record, senders },
        mine,
        requests,
    })
}

/// **Hazmat**: `openKeyWraps` read and listed (see `hazmatPrepareUnwrap`);
/// its `hazmatFinishKeyWraps` opens. `requests` is empty for a list
/// `openKeyWraps` refuses before any X25519 (the finish gives that error).
#[wasm_bindgen(js_name = hazmatPrepareKeyWraps)]
pub fn hazmat_prepare_key_wraps(
    state: &StreamState,
    trust: &TrustStore,
    key_wraps: Ts<KeyWraps>,
    #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
) -> JsResult<PendingUnwrap> {
    let key_wraps = input("keyWraps", &key_wraps)?;
    let mine = IdentityKey::mine("identities", &identities)?;
    let requests =
        key_wraps::admit_dh_requests(state.core(), trust.core(), &key_wraps.wraps, &mine.keys);
    Ok(PendingUnwrap {
        what: Unwrapping::Wraps(key_wraps),
        mine,
        requests,
    })
}

#[wasm_bindgen]
impl PendingUnwrap {
    /// The X25519 operations for the platform, packed (33 bytes each: the
    /// index of the key in `identities`, then the public key).
    #[wasm_bindgen(getter)]
    pub fn requests(&self) -> Vec<u8> {
        pack_dh_requests(&self.requests)
    }

    /// Completes `hazmatPrepareUnwrap` with the platform's results for
    /// `requests` (33 bytes per request: 1 when computed, else 0, then the
    /// 32 result bytes; a request not computed is computed here): the
    /// result and errors of `unwrapStreamKey`, the key added to `keyring`.
    /// `results` holds secrets: wipe it (`fill(0)`) after the call. Uses
    /// this object up.
    #[wasm_bindgen(js_name = hazmatFinish)]
    pub fn hazmat_finish(
        self,
        keyring: &mut Keyring,
        results: &Uint8Array,
    ) -> JsResult<Ts<Unwrapped>> {
        let Unwrapping::One { record, senders } = &self.what else {
            return Err(not_prepared("hazmatPrepareUnwrap"));
        };
        let dh = platform_dh(&self.requests, results)?;
        unwrap_read(keyring, record, &self.mine, senders, dh)
    }

    /// Completes `hazmatPrepareKeyWraps` as `hazmatFinish` does (read it):
    /// the report, state changes and errors of `openKeyWraps`. Uses this
    /// object up.
    #[wasm_bindgen(js_name = hazmatFinishKeyWraps)]
    pub fn hazmat_finish_key_wraps(
        self,
        state: &mut StreamState,
        trust: &TrustStore,
        results: &Uint8Array,
    ) -> JsResult<Ts<WrapsReport>> {
        let Unwrapping::Wraps(key_wraps) = &self.what else {
            return Err(not_prepared("hazmatPrepareKeyWraps"));
        };
        let dh = platform_dh(&self.requests, results)?;
        open_key_wraps_read(state, trust, key_wraps, &self.mine, dh)
    }
}

/// A finish of the other kind of [`PendingUnwrap`].
fn not_prepared(by: &str) -> JsValue {
    error_with(
        ErrorCode::InvalidField,
        &format!("field `this` is invalid: not prepared by `{by}`"),
    )
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
