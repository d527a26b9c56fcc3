//! The crypto core: base64, key wraps, envelopes, AAD and the passphrase bundle.
//! Records and enums (`Slot`, `SealedPayload`, `KeyWrap`, `SealedBundle`,
//! `KdfParams`, `AadContents`, `AadSender`, `SealedBy`) are the core's own
//! types, exported through the core's `uniffi` feature. Sealing is signed by
//! the caller's identity key; opening checks the signature (see
//! [`crate::sender`]).

use std::sync::Arc;
use streamseal::wire::JsonRecord as _;

use streamseal::aad::{self, AadContents, AadSender};
use streamseal::bundle::{self, SealedBundle};
use streamseal::encoding;
use streamseal::envelope::{self, Envelope, SealedPayload};
use streamseal::hazmat;
use streamseal::identity::{PublicKey, RecipientKind};
use streamseal::kdf::KdfParams;
use streamseal::sender::SealedBy;
use streamseal::slot::Slot;
use streamseal::wrap::{self, KeyWrap};

use crate::error::Result;
use crate::keys::{
    IdentityKey, KdfLimits, Keyring, Recipient, SecretKey, StreamKey, identity_keys, keep_dh,
    kept_dh, recipients,
};
use crate::sender::{OwnKeys, PresentedKey, sender_keys, signer};
use crate::trust::TrustStore;

/// Canonical padded standard base64 of `bytes`.
#[uniffi::export]
pub fn encode_base64(bytes: Vec<u8>) -> String {
    encoding::encode_base64(&bytes)
}

/// Strict base64 decoding (`MALFORMED_BASE64` for anything but the one canonical spelling).
#[uniffi::export]
pub fn decode_base64(text: String) -> Result<Vec<u8>> {
    Ok(encoding::decode_base64("base64", &text)?)
}

/// Wraps `key` (generation `generation` of `root_stream_id`) to `recipient`
/// with HPKE auth mode from `sender` (the caller's own identity key), wrap
/// format version 2.
#[uniffi::export]
pub fn wrap_stream_key(
    root_stream_id: String,
    generation: u32,
    key: Arc<StreamKey>,
    sender: Arc<IdentityKey>,
    recipient: Recipient,
) -> Result<KeyWrap> {
    Ok(wrap::wrap_stream_key(
        &root_stream_id,
        generation,
        &key.0,
        &sender.0,
        &recipient.to_core()?,
    )?)
}

/// A stream key opened from a wrap, with who made it.
#[derive(uniffi::Record)]
pub struct Unwrapped {
    /// The stream key.
    pub key: Arc<StreamKey>,
    /// The index, in the `senders` given, of the key that made the wrap.
    pub sender: u32,
    /// The index, in `mine`, of the caller's key the wrap was made to.
    pub recipient: u32,
}

/// Opens a key wrap of `root_stream_id` with one of the caller's keys (at
/// most 32), accepting it only as made by one of `senders` (at most 32).
/// A wrap that opens under no (sender, key) pair is `UNTRUSTED_WRAP`. Apps
/// use [`crate::sealed::open_key_wraps`], which takes the senders from the
/// stream state and the trust store; this is the primitive underneath.
#[uniffi::export]
pub fn unwrap_stream_key(
    root_stream_id: String,
    wrap: KeyWrap,
    mine: Vec<Arc<IdentityKey>>,
    senders: Vec<Recipient>,
) -> Result<Unwrapped> {
    let senders = recipients(&senders)?;
    let mut dh = kept_dh(&mine);
    let opened = hazmat::unwrap_stream_key_with_platform_dh(
        &root_stream_id,
        &wrap,
        &identity_keys(&mine),
        &senders,
        &mut dh,
    );
    keep_dh(&mine, &mut dh);
    let opened = opened?;
    Ok(Unwrapped {
        key: Arc::new(StreamKey(opened.key)),
        sender: u32::try_from(opened.sender).unwrap_or(u32::MAX),
        recipient: u32::try_from(opened.recipient).unwrap_or(u32::MAX),
    })
}

/// The HPKE `info` (version 2) of a wrap (see FORMAT.md).
#[uniffi::export]
pub fn wrap_info(
    root_stream_id: String,
    generation: u32,
    recipient_kind: String,
    recipient_key_id: String,
    sender_kind: String,
    sender_key_id: String,
) -> Result<Vec<u8>> {
    Ok(wrap::wrap_info(
        &root_stream_id,
        generation,
        &RecipientKind::parse(&recipient_kind),
        &recipient_key_id,
        &RecipientKind::parse(&sender_kind),
        &sender_key_id,
    )?)
}

/// Seals `plaintext` into `slot` under the keyring's current generation
/// (the only one it seals under: no export picks or lowers it), signed by
/// `identity` as `subject`'s (the slot's author where the slot names one,
/// else `INVALID_FIELD`).
#[uniffi::export]
pub fn seal(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    slot: Slot,
    plaintext: Vec<u8>,
) -> Result<SealedPayload> {
    let signer = signer(&identity, &subject)?;
    Ok(envelope::seal(&keyring.lock(), &signer, &slot, &plaintext)?)
}

/// An opened envelope: the slot its AAD bound, the generation, who sealed
/// it and the content.
#[derive(Clone, PartialEq, Eq, uniffi::Record)]
pub struct OpenedEnvelope {
    /// The slot the AAD bound.
    pub slot: Slot,
    /// The generation it was sealed under.
    pub key_generation: u32,
    /// Who sealed it, and how sure the opener is.
    pub sealed_by: SealedBy,
    /// The content (without the signature).
    pub plaintext: Vec<u8>,
}

impl std::fmt::Debug for OpenedEnvelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedEnvelope")
            .field("slot", &self.slot)
            .field("key_generation", &self.key_generation)
            .field("sealed_by", &self.sealed_by)
            .field("plaintext", &"[redacted]")
            .finish()
    }
}

/// Opens a payload the caller expects in `expected`; the AAD must bind
/// exactly that slot, the keyring's root stream and the envelope's
/// generation, and the signature must verify under the key held for the
/// sender the AAD names: one of `own` (`"verified"`), a key `trust` pins
/// (`"verified"` or `"unverified"`; `KEY_CHANGED`, `KEY_NOT_VERIFIED` by its
/// policy), or one of `presented` (`"unverified"`). None: `UNKNOWN_KEY`; a
/// signature that does not verify: `SENDER_MISMATCH`.
#[uniffi::export(default(own = None, presented = []))]
pub fn open(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    expected: Slot,
    sealed: SealedPayload,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<OpenedEnvelope> {
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    let opened = envelope::open(&keyring.lock(), &senders, &expected, &sealed)?;
    Ok(OpenedEnvelope {
        slot: opened.slot,
        key_generation: opened.key_generation,
        sealed_by: opened.sealed_by,
        plaintext: opened.plaintext.to_vec(),
    })
}

/// Parses `{ciphertext, envelope}` from JSON (unknown fields ignored).
#[uniffi::export]
pub fn sealed_payload_from_json(json: String) -> Result<SealedPayload> {
    Ok(SealedPayload::from_json(&json)?)
}

/// Serialises `{ciphertext, envelope}` as compact JSON.
#[uniffi::export]
pub fn sealed_payload_to_json(payload: SealedPayload) -> String {
    payload.to_json()
}

/// Parses an envelope from JSON.
#[uniffi::export]
pub fn envelope_from_json(json: String) -> Result<Envelope> {
    Ok(Envelope::from_json(&json)?)
}

/// The canonical AAD bytes of `slot` sealed by `sender` (FORMAT.md section
/// 3); a sender that is not the slot's author is `INVALID_FIELD`.
#[uniffi::export]
pub fn aad_encode(
    version: u8,
    root_stream_id: String,
    key_generation: u32,
    sender: AadSender,
    slot: Slot,
) -> Result<Vec<u8>> {
    Ok(aad::encode(
        version,
        &root_stream_id,
        key_generation,
        &sender,
        &slot,
    )?)
}

/// Parses AAD bytes strictly.
#[uniffi::export]
pub fn aad_parse(bytes: Vec<u8>) -> Result<AadContents> {
    Ok(aad::parse(&bytes)?)
}

/// Protects `secret` with `passphrase` (its UTF-8 bytes; the library zeroizes
/// its decoded copy after use, wipe your own) with Argon2id and `params`, then AES-256-GCM.
/// `params` must be at least `kdf_params_creation_floor()`
/// (`KDF_PARAMS_OUT_OF_BOUNDS`). Blocks for the KDF's duration: call it off
/// the main thread.
#[uniffi::export]
pub fn create_bundle(
    secret: Arc<SecretKey>,
    passphrase: Vec<u8>,
    params: KdfParams,
) -> Result<SealedBundle> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    Ok(bundle::create_bundle(&secret.0, &passphrase, &params)?)
}

/// Opens a bundle of the record whose public key is `public_key` with
/// `passphrase` (its UTF-8 bytes; the decoded copy is zeroized). Checks `limits`
/// before any work, then blocks for the KDF: call it off the main thread.
#[uniffi::export]
pub fn open_bundle(
    public_key: String,
    bundle: SealedBundle,
    passphrase: Vec<u8>,
    limits: KdfLimits,
) -> Result<Arc<SecretKey>> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    let public_key = PublicKey::from_base64(&public_key)?;
    let secret = bundle::open_bundle(&public_key, &bundle, &passphrase, &limits.into())?;
    Ok(Arc::new(SecretKey(secret)))
}

/// The AAD of a bundle of `version` for `public_key`.
#[uniffi::export]
pub fn bundle_aad(version: u8, public_key: String) -> Result<Vec<u8>> {
    Ok(bundle::bundle_aad(
        version,
        &PublicKey::from_base64(&public_key)?,
    ))
}
