//! Key verification (`streamseal::trust`, `streamseal::fingerprint`): the
//! trust store that pins each user's and bot's keys on first use, the
//! `TrustedKey`s only it hands out, fingerprints and safety numbers.
//!
//! Every public key comes from the server. The store pins the first key seen
//! per (subject, key id) and refuses a changed one (`KEY_CHANGED`) until the
//! user verifies it (safety numbers) or acknowledges the change; under
//! `"verified-only"` an unverified key is `KEY_NOT_VERIFIED`. What trust on
//! first use does not give: a key the server substituted *before* the first
//! sight is pinned as if genuine; only comparing safety numbers catches that.

use serde::Serialize;
use streamseal::fingerprint as fp;
use streamseal::identity::{KeyId, PublicKey, Recipient};
use streamseal::sealed::session;
use streamseal::trust::{self, TrustPolicy};
use streamseal::wire::keys::OwnerKey;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, copies_of, input, js, output, to_js};
use crate::keys::IdentityKey;

#[wasm_bindgen(typescript_custom_section)]
const TRUST_TS: &str = r#"
/** A trust policy: pinned keys usable unverified ("tofu"), only verified keys ("verified-only"), or as tofu until a verified key changes ("refuse-after-verified-change"). */
export type TrustPolicyName = "tofu" | "verified-only" | "refuse-after-verified-change";
/** What `TrustStore.observe` found for a key the server presented ("added": a further key id of a subject already known, worth showing). */
export type KeyState = "new" | "added" | "same" | "changed" | "verified" | "verified-then-changed";
"#;

/// The method `copies_of` calls to copy a `TrustedKey` inside WASM memory.
pub(crate) const COPY_TRUSTED_KEY: &str = "__streamsealCopyTrustedKey";

/// The pinned keys of the users and bots the caller deals with, and the
/// trust policy. Holds public keys only; persist it with `toBytes`.
#[wasm_bindgen]
pub struct TrustStore {
    inner: trust::TrustStore,
}

impl TrustStore {
    /// The core store.
    pub(crate) fn core(&self) -> &trust::TrustStore {
        &self.inner
    }
}

fn parse_key_id(key_id: &str) -> JsResult<KeyId> {
    js(KeyId::new(key_id))
}

/// What the store holds for one (subject, key id), for display.
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PinnedKey {
    /// The user or bot id.
    pub subject: String,
    /// The pinned key, with the kind and id it is registered under.
    pub recipient: Recipient,
    /// Whether the user verified the pinned key.
    pub verified: bool,
    /// A different key the server presented since, not yet verified or
    /// acknowledged.
    pub pending_change: Option<PublicKey>,
    /// The pin replaced a verified key by an acknowledged change and was not
    /// verified since.
    pub previously_verified: bool,
}

impl From<trust::PinnedKey> for PinnedKey {
    fn from(p: trust::PinnedKey) -> Self {
        PinnedKey {
            subject: p.subject,
            recipient: p.recipient,
            verified: p.verified,
            pending_change: p.pending_change,
            previously_verified: p.previously_verified,
        }
    }
}

#[wasm_bindgen]
impl TrustStore {
    /// An empty store under `policy`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "TrustPolicyName")] policy: &str,
    ) -> JsResult<TrustStore> {
        Ok(TrustStore {
            inner: trust::TrustStore::new(js(TrustPolicy::parse(policy))?),
        })
    }

    /// The policy `trusted` applies.
    #[wasm_bindgen(getter, unchecked_return_type = "TrustPolicyName")]
    pub fn policy(&self) -> String {
        self.inner.policy().as_str().to_owned()
    }

    /// Changes the policy; the pins stay as they are.
    #[wasm_bindgen(js_name = setPolicy)]
    pub fn set_policy(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "TrustPolicyName")] policy: &str,
    ) -> JsResult<()> {
        self.inner.set_policy(js(TrustPolicy::parse(policy))?);
        Ok(())
    }

    /// Records a key the server presented for `subject` (pinned on first
    /// sight; a different key is kept as the pending change, never replacing the pin).
    #[wasm_bindgen(unchecked_return_type = "KeyState")]
    pub fn observe(&mut self, subject: &str, recipient: Ts<Recipient>) -> JsResult<String> {
        let recipient = input("recipient", &recipient)?;
        Ok(js(self.inner.observe(subject, &recipient))?
            .as_str()
            .to_owned())
    }

    /// The key, if the policy allows using it now (`UNKNOWN_KEY`,
    /// `KEY_CHANGED`, `KEY_NOT_VERIFIED`).
    pub fn trusted(&self, subject: &str, recipient: Ts<Recipient>) -> JsResult<TrustedKey> {
        let recipient = input("recipient", &recipient)?;
        js(self.inner.trusted(subject, &recipient)).map(TrustedKey::from_core)
    }

    /// The pinned key `keyId` of `subject`, if the policy allows using it now.
    #[wasm_bindgen(js_name = trustedById)]
    pub fn trusted_by_id(&self, subject: &str, key_id: &str) -> JsResult<TrustedKey> {
        js(self.inner.trusted_by_id(subject, &parse_key_id(key_id)?)).map(TrustedKey::from_core)
    }

    /// `observe` then `trusted`: the usual way to take a key from the server.
    pub fn admit(&mut self, subject: &str, recipient: Ts<Recipient>) -> JsResult<TrustedKey> {
        let recipient = input("recipient", &recipient)?;
        js(self.inner.admit(subject, &recipient)).map(TrustedKey::from_core)
    }

    /// Marks `recipient` verified for `subject` (after the safety numbers
    /// matched); it becomes the pin if it was the pending change.
    pub fn verify(&mut self, subject: &str, recipient: Ts<Recipient>) -> JsResult<()> {
        let recipient = input("recipient", &recipient)?;
        js(self.inner.verify(subject, &recipient))
    }

    /// Accepts the pending change of `keyId` unverified.
    #[wasm_bindgen(js_name = acknowledgeChange)]
    pub fn acknowledge_change(&mut self, subject: &str, key_id: &str) -> JsResult<()> {
        js(self
            .inner
            .acknowledge_change(subject, &parse_key_id(key_id)?))
    }

    /// What the store holds for `keyId` of `subject` (`undefined` if nothing).
    #[wasm_bindgen(unchecked_return_type = "PinnedKey | undefined")]
    pub fn pinned(&self, subject: &str, key_id: &str) -> JsResult<JsValue> {
        match self.inner.pinned(subject, &parse_key_id(key_id)?) {
            Some(p) => to_js(&PinnedKey::from(p)),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Every key pinned for `subject`.
    #[wasm_bindgen(js_name = keysOf, unchecked_return_type = "PinnedKey[]")]
    pub fn keys_of(&self, subject: &str) -> JsResult<JsValue> {
        let keys: Vec<PinnedKey> = self
            .inner
            .keys_of(subject)
            .into_iter()
            .map(PinnedKey::from)
            .collect();
        to_js(&keys)
    }

    /// Drops the pin of `keyId` of `subject`; whether there was one.
    pub fn forget(&mut self, subject: &str, key_id: &str) -> JsResult<bool> {
        Ok(self.inner.forget(subject, &parse_key_id(key_id)?))
    }

    /// The persisted form, sealed under `identity` (store it as is).
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self, identity: &IdentityKey) -> JsResult<Vec<u8>> {
        js(self.inner.to_bytes(identity.core()))
    }

    /// Restores a store written by `toBytes` with the same identity key
    /// (`STATE_AUTH_FAILED` for another key or altered bytes, `MALFORMED_STATE`).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8], identity: &IdentityKey) -> JsResult<TrustStore> {
        js(trust::TrustStore::from_bytes(bytes, identity.core())).map(|inner| TrustStore { inner })
    }
}

/// A key the trust store allows to be used now: made only by a
/// `TrustStore` (or `TrustedKey.own` for the caller's own key), so holding
/// one proves the check ran.
#[wasm_bindgen]
pub struct TrustedKey {
    inner: trust::TrustedKey,
}

impl TrustedKey {
    /// Wraps a core trusted key.
    pub(crate) fn from_core(inner: trust::TrustedKey) -> Self {
        TrustedKey { inner }
    }

    /// The core trusted key.
    pub(crate) fn core(&self) -> &trust::TrustedKey {
        &self.inner
    }

    /// Takes the core keys out of a `TrustedKey` or an array of them.
    pub(crate) fn list(param: &str, value: &JsValue) -> JsResult<Vec<trust::TrustedKey>> {
        let keys: Vec<TrustedKey> = copies_of(param, "TrustedKey", COPY_TRUSTED_KEY, value)?;
        Ok(keys.into_iter().map(|k| k.inner).collect())
    }
}

#[wasm_bindgen]
impl TrustedKey {
    /// One of the caller's own keys, registered as `subject`'s: verified by
    /// definition, since the caller holds its secret.
    pub fn own(subject: &str, identity: &IdentityKey) -> TrustedKey {
        TrustedKey::from_core(trust::TrustedKey::own(subject, identity.core()))
    }

    /// The user or bot id the key belongs to.
    #[wasm_bindgen(getter)]
    pub fn subject(&self) -> String {
        self.inner.subject().to_owned()
    }

    /// The key, with the kind and id it is registered under.
    #[wasm_bindgen(getter)]
    pub fn recipient(&self) -> JsResult<Ts<Recipient>> {
        output(self.inner.recipient())
    }

    /// `"verified"` or `"unverified"` (pinned on first use only).
    #[wasm_bindgen(getter)]
    pub fn level(&self) -> JsResult<Ts<trust::TrustLevel>> {
        output(&self.inner.level())
    }

    /// A copy in WASM memory, for the binding's own use (`copies_of`).
    #[wasm_bindgen(js_name = __streamsealCopyTrustedKey, skip_typescript)]
    pub fn copy_for_binding(&self) -> TrustedKey {
        TrustedKey::from_core(self.inner.clone())
    }
}

/// The owner's key (`GET bot-runtime/owner-e2e-key`) admitted through the
/// trust store as `ownerUserId`'s (`KEY_CHANGED` when it differs from the
/// pin, `KEY_NOT_VERIFIED` under a strict policy until verified).
#[wasm_bindgen(js_name = ownerKey)]
pub fn owner_key(
    trust: &mut TrustStore,
    owner_user_id: &str,
    owner_key_record: Ts<OwnerKey>,
) -> JsResult<TrustedKey> {
    let owner = input("ownerKeyRecord", &owner_key_record)?;
    js(session::owner_key(&mut trust.inner, owner_user_id, &owner)).map(TrustedKey::from_core)
}

/// One key's fingerprint: 30 digits, and the same in six groups of five.
#[derive(Serialize, Tsify)]
pub struct Fingerprint {
    /// The 30 digits.
    pub digits: String,
    /// The digits in groups of five, for display.
    pub display: String,
}

fn parse_public_key(key: &str) -> JsResult<PublicKey> {
    js(PublicKey::from_base64(key))
}

/// The fingerprint of `publicKey` (44-character base64) as `subject`'s key.
#[wasm_bindgen]
pub fn fingerprint(subject: &str, public_key: &str) -> JsResult<Ts<Fingerprint>> {
    let key = parse_public_key(public_key)?;
    let f = js(fp::fingerprint(subject, &key))?;
    output(&Fingerprint {
        digits: f.digits().to_owned(),
        display: f.display(),
    })
}

/// The safety number of the caller's key and another party's, as the
/// caller sees it: the same 60 digits on both sides; the scannable payload
/// names which key is whose.
#[wasm_bindgen]
pub struct SafetyNumber {
    inner: fp::SafetyNumber,
}

#[wasm_bindgen]
impl SafetyNumber {
    /// The 60 digits, the same on both sides.
    #[wasm_bindgen(getter)]
    pub fn digits(&self) -> String {
        self.inner.digits().to_owned()
    }

    /// The digits in twelve groups of five, for display.
    #[wasm_bindgen(getter)]
    pub fn display(&self) -> String {
        self.inner.display()
    }

    /// The payload of the QR code this side shows.
    pub fn scannable(&self) -> Vec<u8> {
        self.inner.scannable()
    }

    /// Whether `scanned` (the other side's QR payload) shows the same two
    /// keys; compared in constant time. Not a safety number:
    /// `INVALID_FIELD`; the wrong length: `INVALID_LENGTH`.
    #[wasm_bindgen(js_name = matchesScanned)]
    pub fn matches_scanned(&self, scanned: &[u8]) -> JsResult<bool> {
        js(self.inner.matches_scanned(scanned))
    }

    /// Whether `text` (typed or pasted digits; whitespace ignored) is this
    /// safety number; compared in constant time.
    #[wasm_bindgen(js_name = matchesDigits)]
    pub fn matches_digits(&self, text: &str) -> bool {
        self.inner.matches_digits(text)
    }
}

/// The safety number between the caller's key (`localKey` of
/// `localSubject`) and the other party's (`remoteKey` of `remoteSubject`);
/// keys are 44-character base64.
#[wasm_bindgen(js_name = safetyNumber)]
pub fn safety_number(
    local_subject: &str,
    local_key: &str,
    remote_subject: &str,
    remote_key: &str,
) -> JsResult<SafetyNumber> {
    let local = parse_public_key(local_key)?;
    let remote = parse_public_key(remote_key)?;
    js(fp::safety_number(
        local_subject,
        &local,
        remote_subject,
        &remote,
    ))
    .map(|inner| SafetyNumber { inner })
}
