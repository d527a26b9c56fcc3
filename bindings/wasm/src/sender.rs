//! Who sealed it (`streamseal::sender`, envelope version 2): the signer of
//! what the caller seals, and the keys it checks senders' signatures against.
//!
//! - **Sealing** functions take the caller's `IdentityKey` and the subject
//!   it is registered as (its user or bot id): the AAD names that sender
//!   (subject, kind, key id; the subject must be the slot's author where the
//!   slot names one) and the ciphertext carries its XEdDSA signature.
//! - **Opening** functions take the caller's `TrustStore` and, optionally,
//!   its own keys (`OwnKeys`: what they signed opens as `"verified"`) and keys
//!   the server presented (`PresentedKey[]`: a signature by one opens as
//!   `"unverified"`, only while the store pins no key of that subject: a
//!   first sight; a pin always wins, and a runtime's prompt never counts
//!   them). A core `SenderKeys` is built from them per call. Every opened
//!   result carries `sealedBy: {subject, kind, keyId, status}`.

use serde::Deserialize;
use streamseal::ErrorCode;
use streamseal::identity::{KeyId, PublicKey, Recipient, RecipientKind};
use streamseal::sender::{SenderKeys, Signer};
use tsify::Tsify;
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, error_with, from_js, js};
use crate::keys::IdentityKey;
use crate::trust::TrustStore;

#[wasm_bindgen(typescript_custom_section)]
const SENDER_TS: &str = r#"
/** The caller's own keys, registered as `subject`'s (its user or bot id): what they signed opens as "verified". Each key is copied inside WASM memory; the caller keeps its objects. */
export interface OwnKeys {
  subject: string;
  keys: IdentityKey | IdentityKey[];
}
"#;

#[wasm_bindgen]
extern "C" {
    /// `OwnKeys` as it crosses from JS (`{subject, keys}`).
    #[wasm_bindgen(typescript_type = "OwnKeys")]
    pub type OwnKeysArg;

    /// `PresentedKey[]` as it crosses from JS.
    #[wasm_bindgen(typescript_type = "PresentedKey[]")]
    pub type PresentedKeys;
}

/// A key the server presented for `subject` (a member list, a presence
/// entry): a signature by it opens as `"unverified"` while the trust store
/// pins no key of `subject` (a first sight; otherwise `UNKNOWN_KEY` until the
/// app observes it; under `"verified-only"`: `KEY_NOT_VERIFIED`).
#[derive(Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PresentedKey {
    /// The user or bot id the server presents the key for.
    pub subject: String,
    /// The kind the key is registered as.
    pub kind: RecipientKind,
    /// The id the key is registered under.
    pub key_id: KeyId,
    /// The X25519 public key, 44-character base64.
    pub public_key: PublicKey,
}

/// The signer of what the caller seals: `identity`, registered as `subject`'s
/// (1 to 1024 bytes, else `INVALID_LENGTH`).
pub(crate) fn signer<'a>(identity: &'a IdentityKey, subject: &'a str) -> JsResult<Signer<'a>> {
    js(Signer::new(subject, identity.core()))
}

/// The subject and the copies of the keys of `own`.
fn own_keys(own: &JsValue) -> JsResult<(String, Vec<streamseal::identity::IdentityKey>)> {
    let wrong = || {
        error_with(
            ErrorCode::InvalidField,
            "field `own` is invalid: expected {subject, keys} (keys: an IdentityKey or an array of them)",
        )
    };
    if !own.is_object() {
        return Err(wrong());
    }
    let subject = js_sys::Reflect::get(own, &JsValue::from_str("subject"))
        .map_err(|_| wrong())?
        .as_string()
        .ok_or_else(wrong)?;
    let keys = js_sys::Reflect::get(own, &JsValue::from_str("keys")).map_err(|_| wrong())?;
    Ok((subject, IdentityKey::list("own.keys", &keys)?))
}

/// The core `SenderKeys` of one call: the trust store's pins under its
/// policy, the caller's own keys (`own`), and the keys the server presented
/// (`presented`).
pub(crate) fn sender_keys<'a>(
    trust: &'a TrustStore,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<SenderKeys<'a>> {
    let mut keys = SenderKeys::new(trust.core());
    if let Some(own) = own {
        let (subject, mine) = own_keys(&own)?;
        for key in &mine {
            keys = keys.with_own(&subject, key);
        }
    }
    if let Some(presented) = presented {
        let presented: Vec<PresentedKey> = from_js("presented", presented.into())?;
        for key in presented {
            let recipient = Recipient {
                kind: key.kind,
                key_id: key.key_id,
                public_key: key.public_key,
            };
            keys = keys.with_presented(&key.subject, &recipient);
        }
    }
    Ok(keys)
}
