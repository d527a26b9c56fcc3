//! Envelopes: sealing a plaintext into its slot, signed by its sender, and
//! opening it again.
//!
//! A sealed payload travels as `{ciphertext, envelope: {v, keyGeneration, iv, aad}}`
//! (the spec's shape, unchanged), every binary value in padded base64
//! (FORMAT.md section 2, version 2):
//!
//! - the AAD ([`crate::aad`]) binds the slot, the root stream, the generation
//!   and the **sender** (subject, kind, key id);
//! - `ciphertext` is the key commitment (32 bytes, HKDF-SHA256 of the stream
//!   key and the iv: one ciphertext never opens under two keys, which AES-GCM
//!   alone would let a key holder craft), then AES-256-GCM under the keyring's
//!   key of `keyGeneration` with a fresh random 96-bit `iv` over
//!   `signature || content`, where the signature is the sender's XEdDSA
//!   signature ([`crate::signature`]) over the AAD and the content: a key
//!   holder can seal, but only as itself. The commitment travels inside the
//!   opaque `ciphertext` so that a server storing only the spec's four
//!   envelope fields keeps it.
//!
//! Opening never trusts `aad` alone: the opener states the slot it expects
//! (or, knowing only part of it, a check over the parsed slot), the root
//! stream comes from its keyring, the generation from the envelope must
//! equal the one inside the AAD, and the signature is checked against the
//! key the caller's [`SenderKeys`] hold for the sender the AAD names.
//!
//! ```
//! use streamseal_crypto::envelope::{open, seal};
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_crypto::sender::{SenderKeys, Signer};
//! use streamseal_crypto::slot::Slot;
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//! use streamseal_crypto::trust::{TrustPolicy, TrustStore};
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("laptop")?)?;
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let slot = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_1".into(),
//!     author_id: "usr_1".into(),
//!     author_type: "user".into(),
//!     revision: 1,
//! };
//! let sealed = seal(&ring, &Signer::new("usr_1", &me)?, &slot, b"hello")?;
//! let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! let keys = SenderKeys::new(&trust).with_own("usr_1", &me);
//! assert_eq!(&*open(&ring, &keys, &slot, &sealed)?.plaintext, b"hello");
//!
//! // The server moves it to another message: rejected.
//! let moved = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_2".into(),
//!     author_id: "usr_1".into(),
//!     author_type: "user".into(),
//!     revision: 1,
//! };
//! assert_eq!(open(&ring, &keys, &moved, &sealed).unwrap_err().code().as_str(), "AAD_MISMATCH");
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use crate::extra::Extra;
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq as _;
use zeroize::Zeroizing;

use crate::aad::{self, AadContents, MAX_AAD_LEN};
use crate::aead::{self, IV_LEN, TAG_LEN};
use crate::encoding::{
    decode_base64_array, decode_base64_bounded, decode_base64_bounded_after, encode_base64,
};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::PublicKey;
use crate::plaintext::Plaintext;
use crate::random;
use crate::sender::{SealedBy, SenderKeys, Signer};
use crate::signature::{self, SIGNATURE_LEN, Signature};
use crate::slot::Slot;
use crate::stream_key::{Keyring, STREAM_KEY_LEN};
use crate::trust::TrustLevel;

/// The only envelope version this library writes and reads. Version 1 (no
/// sender signature, no key commitment) is not read: nothing shipped it.
pub const ENVELOPE_VERSION: u32 = 2;

/// Largest plaintext sealed or opened (4 MiB): a message is at most 50 000
/// characters; this bound keeps hostile ciphertexts from costing memory.
pub const MAX_PLAINTEXT_LEN: usize = 4 * 1024 * 1024;

/// Length of the key commitment, in bytes.
pub const COMMITMENT_LEN: usize = 32;

/// Largest ciphertext accepted: the commitment, the signature, the plaintext
/// bound and the tag.
pub const MAX_CIPHERTEXT_LEN: usize = COMMITMENT_LEN + SIGNATURE_LEN + MAX_PLAINTEXT_LEN + TAG_LEN;

/// Smallest ciphertext accepted: the commitment, the signature and the tag
/// (an empty content).
pub const MIN_CIPHERTEXT_LEN: usize = COMMITMENT_LEN + SIGNATURE_LEN + TAG_LEN;

/// The HKDF salt of the key commitment.
pub const COMMITMENT_LABEL: &[u8] = b"streamseal/commit";

/// The label the signature input starts with.
pub const SIGNATURE_LABEL: &[u8] = b"streamseal/signature";

/// The envelope of a sealed payload, as the wire carries it. Values are kept
/// as text so that a list containing one odd envelope still parses; they are
/// checked strictly when the payload is opened.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Envelope {
    /// Envelope version (2).
    pub v: u32,
    /// The key generation the ciphertext is sealed under.
    pub key_generation: u32,
    /// The 12-byte AES-GCM nonce, base64.
    pub iv: String,
    /// The AAD bytes, base64.
    pub aad: String,
    /// Fields of this object that the library does not know (API §9.6),
    /// kept and written back unchanged. Nothing in them is read when the
    /// record is opened or checked.
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extra: Extra,
}

/// `{ciphertext, envelope}`: what every sealed surface of the API carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SealedPayload {
    /// `commitment || AES-GCM ciphertext || tag`, base64.
    pub ciphertext: String,
    /// The envelope.
    pub envelope: Envelope,
    /// Fields of this object that the library does not know (API §9.6),
    /// kept and written back unchanged. Nothing in them is read when the
    /// record is opened or checked.
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extra: Extra,
}

/// The key commitment of an envelope (FORMAT.md section 2):
/// `HKDF-SHA256(salt = "streamseal/commit", ikm = stream key, info = u8 version || iv)`, 32 bytes.
pub fn key_commitment(
    key: &[u8; STREAM_KEY_LEN],
    version: u8,
    iv: &[u8; IV_LEN],
) -> [u8; COMMITMENT_LEN] {
    let hk = Hkdf::<Sha256>::new(Some(COMMITMENT_LABEL), key);
    let mut out = [0u8; COMMITMENT_LEN];
    let mut info = [0u8; 1 + IV_LEN];
    info[0] = version;
    info[1..].copy_from_slice(iv);
    // 32 bytes is far below HKDF-SHA256's 8160-byte limit.
    let _ = hk.expand(&info, &mut out);
    out
}

/// What the sender signs: `"streamseal/signature" || u8 version || u32 len(aad) || aad || content`
/// (FORMAT.md section 2). It holds the content, so it is zeroized on drop.
///
/// # Errors
///
/// `INPUT_TOO_LARGE` when `aad` is longer than a `u32` can count.
pub fn signature_input(
    version: u8,
    aad: &[u8],
    content: &[u8],
) -> CryptoResult<Zeroizing<Vec<u8>>> {
    let mut input = Zeroizing::new(Vec::with_capacity(
        signature_prefix_len(aad) + content.len(),
    ));
    write_signature_prefix(&mut input, version, aad)?;
    input.extend_from_slice(content);
    Ok(input)
}

/// The length of the signature input before the content.
fn signature_prefix_len(aad: &[u8]) -> usize {
    SIGNATURE_LABEL.len() + 5 + aad.len()
}

/// Appends `"streamseal/signature" || u8 version || u32 len(aad) || aad` to `out`.
fn write_signature_prefix(out: &mut Vec<u8>, version: u8, aad: &[u8]) -> CryptoResult<()> {
    let aad_len = u32::try_from(aad.len()).map_err(|_| CryptoError::InputTooLarge {
        field: "aad",
        limit: MAX_AAD_LEN,
        actual: aad.len(),
    })?;
    out.extend_from_slice(SIGNATURE_LABEL);
    out.push(version);
    out.extend_from_slice(&aad_len.to_be_bytes());
    out.extend_from_slice(aad);
    Ok(())
}

/// Seals `plaintext` into `slot`, signed by `signer`, under the keyring's
/// sealing generation (see [`Keyring`]), counted against that generation's
/// seal budget. Where the slot names an author, it must be the signer's
/// subject (`INVALID_FIELD`).
///
/// Randomness is drawn in this order: the 12-byte iv, then the signature's
/// 64 bytes.
///
/// # Errors
///
/// `INPUT_TOO_LARGE` when `plaintext` exceeds the size limit;
/// `INVALID_FIELD` or `INVALID_LENGTH` when the slot and sender do not encode
/// as an AAD (see [`aad::encode`]); `UNKNOWN_KEY_GENERATION`,
/// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring has
/// no usable sealing key; `RANDOMNESS_UNAVAILABLE`.
pub fn seal(
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<SealedPayload> {
    seal_from(&mut random::OsRng, keyring, signer, slot, plaintext)
}

/// [`seal`] drawing the 12 iv bytes, then the signature's 64 bytes `Z`,
/// from `rng` (public under [`crate::hazmat`]).
pub(crate) fn seal_from(
    rng: &mut dyn random::Source,
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<SealedPayload> {
    prepare_seal_from(rng, keyring, signer, slot, plaintext)?.seal(keyring)
}

/// Every step of [`seal`] but AES-GCM: the size check, the AAD, the sealing
/// generation (the seal is counted against its budget here), the iv, the
/// key commitment and the signature. What is left is AES-256-GCM of
/// [`PendingSeal::aead_input`] under the key of
/// [`PendingSeal::key_generation`] with [`PendingSeal::iv`] and
/// [`PendingSeal::aad`], which [`PendingSeal::seal`] (in this library) or
/// [`PendingSeal::finish`] (after a platform's AES-GCM, e.g. WebCrypto's)
/// completes into the payload [`seal`] gives, byte for byte.
///
/// # Errors
///
/// As [`seal`].
pub fn prepare_seal(
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<PendingSeal> {
    prepare_seal_from(&mut random::OsRng, keyring, signer, slot, plaintext)
}

/// [`prepare_seal`] drawing the 12 iv bytes, then the signature's 64 bytes
/// `Z`, from `rng`.
pub(crate) fn prepare_seal_from(
    rng: &mut dyn random::Source,
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<PendingSeal> {
    if plaintext.len() > MAX_PLAINTEXT_LEN {
        return Err(CryptoError::InputTooLarge {
            field: "plaintext",
            limit: MAX_PLAINTEXT_LEN,
            actual: plaintext.len(),
        });
    }
    let version = envelope_version_byte();
    let generation = keyring
        .current_generation()
        .ok_or(CryptoError::UnknownKeyGeneration { generation: 0 })?;
    let aad_bytes = aad::encode(
        version,
        keyring.root_stream_id(),
        generation,
        &signer.aad_sender(),
        slot,
    )?;
    let (generation, key) = keyring.key_for_sealing()?;
    let iv = random::array_from::<IV_LEN>(rng)?;
    let signed = signature::sign_from(
        rng,
        signer.key(),
        &signature_input(version, &aad_bytes, plaintext)?,
    )?;
    let mut inner = Zeroizing::new(Vec::with_capacity(SIGNATURE_LEN + plaintext.len()));
    inner.extend_from_slice(signed.as_bytes());
    inner.extend_from_slice(plaintext);
    Ok(PendingSeal {
        generation,
        commitment: key_commitment(key.as_array(), version, &iv),
        iv,
        aad: aad_bytes,
        inner,
    })
}

/// A seal with every step but AES-GCM done ([`prepare_seal`]). It holds the
/// signature and the content (wiped on drop), no key.
pub struct PendingSeal {
    generation: u32,
    commitment: [u8; COMMITMENT_LEN],
    iv: [u8; IV_LEN],
    aad: Vec<u8>,
    /// `signature || content`: what AES-GCM encrypts.
    inner: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for PendingSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSeal")
            .field("key_generation", &self.generation)
            .field("input_len", &self.inner.len())
            .finish_non_exhaustive()
    }
}

impl PendingSeal {
    /// The generation whose key seals it (the keyring's sealing generation).
    pub fn key_generation(&self) -> u32 {
        self.generation
    }

    /// The AES-GCM nonce (drawn fresh).
    pub fn iv(&self) -> &[u8; IV_LEN] {
        &self.iv
    }

    /// The AAD AES-GCM authenticates.
    pub fn aad(&self) -> &[u8] {
        &self.aad
    }

    /// What AES-GCM encrypts: `signature (64 bytes) || content`. It holds
    /// the content: a copy handed to a platform is the caller's to wipe.
    pub fn aead_input(&self) -> &[u8] {
        &self.inner
    }

    /// Encrypts with the keyring's key (this library's AES-GCM): the rest of
    /// [`seal`].
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` when `keyring` no longer holds the key
    /// [`prepare_seal`] committed to (cleared, or given another key of the
    /// generation, in between).
    pub fn seal(self, keyring: &Keyring) -> CryptoResult<SealedPayload> {
        let key = self.key_committed_to(keyring)?;
        let sealed = aead::seal(key.as_array(), &self.iv, &self.inner, &self.aad)?;
        Ok(self.payload(&sealed))
    }

    /// Whether `keyring` holds the key this seal committed to: the key a
    /// platform must encrypt with, and the one [`Self::finish`] requires.
    pub fn is_committed_to(&self, keyring: &Keyring) -> bool {
        self.key_committed_to(keyring).is_ok()
    }

    /// The key of [`Self::key_generation`] `keyring` holds, if it is the one
    /// [`prepare_seal`] committed to (`UNKNOWN_KEY_GENERATION` otherwise: the
    /// keyring was cleared, or given another key of the generation, or is
    /// another stream's).
    fn key_committed_to<'k>(
        &self,
        keyring: &'k Keyring,
    ) -> CryptoResult<&'k crate::stream_key::StreamKey> {
        let generation = self.generation;
        let key = keyring.key(generation)?;
        let expected = key_commitment(key.as_array(), envelope_version_byte(), &self.iv);
        if bool::from(expected.ct_eq(&self.commitment)) {
            Ok(key)
        } else {
            Err(CryptoError::UnknownKeyGeneration { generation })
        }
    }

    /// Completes the seal with `sealed`, what AES-256-GCM (a platform's,
    /// e.g. WebCrypto's) encrypted [`Self::aead_input`] to
    /// (`ciphertext || 16-byte tag`) under the key of
    /// [`Self::key_generation`], [`Self::iv`] and [`Self::aad`]. The caller
    /// is trusted to have run exactly that: other bytes make an envelope no
    /// member opens. What is checked here: `keyring` still holds the key
    /// the seal committed to (a keyring cleared meanwhile, as by a revoke,
    /// seals nothing more, as [`Self::seal`] does not), the length, and that
    /// the bytes are not the input itself (a glue passing the plaintext
    /// through would otherwise send it in the clear).
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` when `keyring` no longer holds the key;
    /// `INVALID_LENGTH` when `sealed` is not 16 bytes longer than the input;
    /// `INVALID_FIELD` when it starts with the input unencrypted.
    pub fn finish(self, keyring: &Keyring, sealed: &[u8]) -> CryptoResult<SealedPayload> {
        self.key_committed_to(keyring)?;
        let expected = self.inner.len() + TAG_LEN;
        if sealed.len() != expected {
            return Err(CryptoError::length(
                "sealed",
                "the AES-GCM input and a 16-byte tag",
                sealed.len(),
            ));
        }
        if sealed.get(..self.inner.len()) == Some(&self.inner[..]) {
            return Err(CryptoError::invalid(
                "sealed",
                "is the plaintext, not its encryption",
            ));
        }
        Ok(self.payload(sealed))
    }

    fn payload(&self, sealed: &[u8]) -> SealedPayload {
        let mut ciphertext = Vec::with_capacity(COMMITMENT_LEN + sealed.len());
        ciphertext.extend_from_slice(&self.commitment);
        ciphertext.extend_from_slice(sealed);
        SealedPayload {
            ciphertext: encode_base64(&ciphertext),
            envelope: Envelope {
                v: ENVELOPE_VERSION,
                key_generation: self.generation,
                iv: encode_base64(&self.iv),
                aad: encode_base64(&self.aad),
                extra: Default::default(),
            },
            extra: Default::default(),
        }
    }
}

fn envelope_version_byte() -> u8 {
    // ENVELOPE_VERSION is 2; the AAD carries it as one byte.
    u8::try_from(ENVELOPE_VERSION).unwrap_or(u8::MAX)
}

/// An opened envelope: the slot its AAD bound, who sealed it and the content.
pub struct Opened {
    /// The slot the AAD bound (the caller's, or the one its check accepted).
    pub slot: Slot,
    /// The generation it was sealed under.
    pub key_generation: u32,
    /// Who sealed it, and how sure the opener is.
    pub sealed_by: SealedBy,
    /// The content (without the signature), wiped on drop.
    pub plaintext: Plaintext,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("slot", &self.slot)
            .field("key_generation", &self.key_generation)
            .field("sealed_by", &self.sealed_by)
            .field("plaintext", &"[redacted]")
            .finish()
    }
}

/// Opens a payload whose slot the caller knows completely.
///
/// The AAD is recomputed from `expected`, the keyring's root stream, the
/// envelope's generation and the sender it names, and must equal the
/// envelope's `aad` byte for byte; the signature must verify under the key
/// `senders` hold for that sender.
///
/// # Errors
///
/// As [`open_matching`], where a slot other than `expected` is
/// `AAD_MISMATCH`.
pub fn open(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    expected: &Slot,
    sealed: &SealedPayload,
) -> CryptoResult<Opened> {
    open_matching(keyring, senders, sealed, |slot| slot == expected)
}

/// Opens a payload whose slot the caller knows only in part (a history item
/// carries a sequence but no message id): the AAD is parsed strictly, its
/// version, root stream and generation are checked against the envelope and
/// keyring, `accept` decides on the slot, and the slot is returned with the
/// plaintext so the caller learns the fields the AAD carried.
///
/// The checks run in this order, each refusing with its code: version
/// (`UNSUPPORTED_ENVELOPE_VERSION`), sizes and base64, the AAD's parse
/// (`MALFORMED_AAD`), its binding and slot (`AAD_MISMATCH`), the key
/// (`UNKNOWN_KEY_GENERATION`), the sender's key (`UNKNOWN_KEY`,
/// `KEY_CHANGED`, `KEY_NOT_VERIFIED`), the key commitment and AES-GCM
/// (`DECRYPTION_FAILED`), the signature (`SENDER_MISMATCH`).
///
/// # Errors
///
/// `UNSUPPORTED_ENVELOPE_VERSION`; `MALFORMED_BASE64`, `INVALID_LENGTH` or
/// `INPUT_TOO_LARGE` for the iv, AAD and ciphertext; `MALFORMED_AAD`;
/// `AAD_MISMATCH` (binding or slot refused); `UNKNOWN_KEY_GENERATION`;
/// `UNKNOWN_KEY`, `KEY_CHANGED`, `KEY_NOT_VERIFIED` or `INVALID_LENGTH` (key
/// id) for the sender's key; `DECRYPTION_FAILED`; `SENDER_MISMATCH`.
pub fn open_matching(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    sealed: &SealedPayload,
    accept: impl FnOnce(&Slot) -> bool,
) -> CryptoResult<Opened> {
    // Back to back with the check of the commitment: no second check.
    prepare_open(keyring, senders, sealed, accept)?.decrypt_and_verify(keyring)
}

/// Checks a payload up to its AES-GCM part: every check of
/// [`open_matching`] before decryption (version, sizes and base64, the
/// AAD's parse, binding and slot, the key held, the sender's key, the key
/// commitment) runs here, in the same order and with the same codes. What
/// is left is AES-256-GCM over [`PendingOpen::ciphertext`] and the
/// signature, which [`PendingOpen::open`] (in this library) or
/// [`PendingOpen::finish`] (after a platform's AES-GCM, e.g. WebCrypto's)
/// completes.
///
/// # Errors
///
/// As [`open_matching`], except `DECRYPTION_FAILED` for AES-GCM and
/// `SENDER_MISMATCH` for the signature, which come from the second step.
pub fn prepare_open(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    sealed: &SealedPayload,
    accept: impl FnOnce(&Slot) -> bool,
) -> CryptoResult<PendingOpen> {
    prepare_open_from(
        keyring,
        senders,
        &sealed.envelope,
        Ciphertext::Base64(&sealed.ciphertext),
        accept,
    )
}

/// [`prepare_open`] for a payload whose ciphertext the caller has decoded:
/// `ciphertext` is the decoding of the canonical padded base64 the wire
/// carried (the npm package decodes large ones with the platform's base64,
/// and only when re-encoding them gives the text back: exactly the texts
/// [`prepare_open`]'s strict decode accepts, to the same bytes). Every other
/// check is [`prepare_open`]'s, in the same order and with the same codes;
/// bytes that are not the ciphertext fail its commitment, tag or signature.
///
/// # Errors
///
/// As [`prepare_open`]; `INPUT_TOO_LARGE` when `ciphertext` is longer than
/// [`MAX_CIPHERTEXT_LEN`].
pub fn prepare_open_decoded(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    envelope: &Envelope,
    ciphertext: &[u8],
    accept: impl FnOnce(&Slot) -> bool,
) -> CryptoResult<PendingOpen> {
    prepare_open_from(
        keyring,
        senders,
        envelope,
        Ciphertext::Decoded(ciphertext),
        accept,
    )
}

/// A payload's ciphertext as the wire carried it, or decoded by the caller.
#[derive(Clone, Copy)]
enum Ciphertext<'a> {
    Base64(&'a str),
    Decoded(&'a [u8]),
}

impl Ciphertext<'_> {
    /// The ciphertext decoded behind `room` bytes, bounded.
    fn decode_after(self, room: usize) -> CryptoResult<Vec<u8>> {
        match self {
            Ciphertext::Base64(text) => {
                decode_base64_bounded_after("ciphertext", text, MAX_CIPHERTEXT_LEN, room)
            }
            Ciphertext::Decoded(bytes) => {
                if bytes.len() > MAX_CIPHERTEXT_LEN {
                    return Err(CryptoError::InputTooLarge {
                        field: "ciphertext",
                        limit: MAX_CIPHERTEXT_LEN,
                        actual: bytes.len(),
                    });
                }
                let mut buffer = Vec::with_capacity(room.saturating_add(bytes.len()));
                buffer.resize(room, 0);
                buffer.extend_from_slice(bytes);
                Ok(buffer)
            }
        }
    }
}

fn prepare_open_from(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    envelope: &Envelope,
    ciphertext: Ciphertext<'_>,
    accept: impl FnOnce(&Slot) -> bool,
) -> CryptoResult<PendingOpen> {
    if envelope.v != ENVELOPE_VERSION {
        return Err(CryptoError::UnsupportedEnvelopeVersion {
            version: u64::from(envelope.v),
        });
    }
    let iv = decode_base64_array::<IV_LEN>("iv", &envelope.iv)?;
    let aad_bytes = decode_base64_bounded("aad", &envelope.aad, MAX_AAD_LEN)?;
    // The ciphertext is decoded behind room for the signature input's
    // prefix: `open` then verifies and returns the content where it was
    // decrypted, with one move of it (see `PendingOpen::open`).
    let room = signature_prefix_len(&aad_bytes);
    let buffer = ciphertext.decode_after(room)?;
    let decoded = buffer.len() - room;
    if decoded < MIN_CIPHERTEXT_LEN {
        return Err(CryptoError::length(
            "ciphertext",
            "at least 112 bytes (commitment, signature and tag)",
            decoded,
        ));
    }
    let contents = aad::parse(&aad_bytes)?;
    check_binding(&contents, keyring, envelope)?;
    if !accept(&contents.slot) {
        return Err(CryptoError::AadMismatch { what: "slot" });
    }
    // Re-encode what was checked and authenticate exactly those bytes.
    let expected = aad::encode(
        contents.version,
        &contents.root_stream_id,
        contents.key_generation,
        &contents.sender,
        &contents.slot,
    )?;
    if expected != aad_bytes {
        return Err(CryptoError::MalformedAad {
            reason: "not in canonical form",
        });
    }
    let key = keyring.key(envelope.key_generation)?;
    let (public, status) = senders.resolve(&contents.sender)?;
    let committed = buffer
        .get(room..room + COMMITMENT_LEN)
        .ok_or(CryptoError::DecryptionFailed)?;
    if !bool::from(key_commitment(key.as_array(), contents.version, &iv).ct_eq(committed)) {
        return Err(CryptoError::DecryptionFailed);
    }
    Ok(PendingOpen {
        contents,
        public,
        status,
        iv,
        aad: expected,
        // The AES-GCM part stays where it was decoded (no copy of the message).
        start: room + COMMITMENT_LEN,
        buffer,
    })
}

/// An envelope whose every check up to AES-GCM has passed
/// ([`prepare_open`]): what is left is to decrypt [`Self::ciphertext`] under
/// the key of [`Self::key_generation`] with [`Self::iv`] and [`Self::aad`],
/// then to verify the sender's signature over what it decrypts to.
///
/// It holds no key and no plaintext: only what the wire carried and what the
/// checks established.
pub struct PendingOpen {
    contents: AadContents,
    public: PublicKey,
    status: TrustLevel,
    iv: [u8; IV_LEN],
    aad: Vec<u8>,
    /// Room for the signature input's prefix, the commitment, then the
    /// AES-GCM part (from `start`).
    buffer: Vec<u8>,
    start: usize,
}

impl std::fmt::Debug for PendingOpen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingOpen")
            .field("slot", &self.contents.slot)
            .field("key_generation", &self.contents.key_generation)
            .field("ciphertext_len", &self.ciphertext().len())
            .finish_non_exhaustive()
    }
}

impl PendingOpen {
    /// The generation whose key decrypts it (checked to be held).
    pub fn key_generation(&self) -> u32 {
        self.contents.key_generation
    }

    /// The slot the AAD binds (accepted by the caller's check).
    pub fn slot(&self) -> &Slot {
        &self.contents.slot
    }

    /// The AES-GCM nonce.
    pub fn iv(&self) -> &[u8; IV_LEN] {
        &self.iv
    }

    /// The AAD AES-GCM authenticates: the canonical re-encoding of what was
    /// checked, equal to the bytes received.
    pub fn aad(&self) -> &[u8] {
        &self.aad
    }

    /// `AES-GCM ciphertext || tag` (the commitment already checked and removed).
    pub fn ciphertext(&self) -> &[u8] {
        self.buffer.get(self.start..).unwrap_or_default()
    }

    /// The key commitment, checked again against the key `keyring` holds
    /// now: an open whose AES-GCM ran elsewhere, or later, completes only if
    /// the key is still held and is the one [`prepare_open`] checked (a
    /// keyring cleared, or given another key of the generation, in between
    /// refuses it).
    fn check_still_held(&self, keyring: &Keyring) -> CryptoResult<()> {
        let key = keyring.key(self.contents.key_generation)?;
        let committed = self
            .buffer
            .get(self.start - COMMITMENT_LEN..self.start)
            .ok_or(CryptoError::DecryptionFailed)?;
        let expected = key_commitment(key.as_array(), self.contents.version, &self.iv);
        if bool::from(expected.ct_eq(committed)) {
            Ok(())
        } else {
            Err(CryptoError::DecryptionFailed)
        }
    }

    /// Decrypts with the keyring's key (this library's AES-GCM) and verifies
    /// the signature: the rest of [`open_matching`].
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` when `keyring` no longer holds the key;
    /// `DECRYPTION_FAILED`; `SENDER_MISMATCH`.
    pub fn open(self, keyring: &Keyring) -> CryptoResult<Opened> {
        self.check_still_held(keyring)?;
        self.decrypt_and_verify(keyring)
    }

    /// [`Self::open`] once the commitment is known to match `keyring`'s key.
    fn decrypt_and_verify(mut self, keyring: &Keyring) -> CryptoResult<Opened> {
        let key = keyring.key(self.contents.key_generation)?;
        // From here the buffer holds plaintext: wiped on drop, whatever happens.
        let mut buffer = Zeroizing::new(std::mem::take(&mut self.buffer));
        let start = self.start;
        let sealed = buffer
            .get_mut(start..)
            .ok_or(CryptoError::DecryptionFailed)?;
        aead::open_in_place_detached(key.as_array(), &self.iv, sealed, &self.aad)?;
        // [room | commitment | signature | content | tag]: the signature
        // input is the prefix written just before the content, then the
        // content, where AES-GCM left it.
        let content_start = start + SIGNATURE_LEN;
        let content_end = buffer.len() - TAG_LEN;
        let signed: [u8; SIGNATURE_LEN] = buffer
            .get(start..content_start)
            .and_then(|s| s.try_into().ok())
            .ok_or(CryptoError::DecryptionFailed)?;
        let mut prefix = Vec::with_capacity(signature_prefix_len(&self.aad));
        write_signature_prefix(&mut prefix, self.contents.version, &self.aad)?;
        let input_start = content_start
            .checked_sub(prefix.len())
            .ok_or(CryptoError::DecryptionFailed)?;
        buffer
            .get_mut(input_start..content_start)
            .ok_or(CryptoError::DecryptionFailed)?
            .copy_from_slice(&prefix);
        let verified = signature::verify(
            &self.public,
            buffer
                .get(input_start..content_end)
                .ok_or(CryptoError::DecryptionFailed)?,
            &Signature::from_bytes(signed),
        );
        // The content stays where it was decrypted; the whole buffer is
        // wiped when the plaintext is dropped.
        let plaintext = Plaintext::within(std::mem::take(&mut *buffer), content_start..content_end);
        self.opened(plaintext, verified.is_ok())
    }

    /// Completes the open with `decrypted`, what AES-256-GCM (a platform's,
    /// e.g. WebCrypto's) authenticated and decrypted [`Self::ciphertext`] to
    /// under the key of [`Self::key_generation`], [`Self::iv`] and
    /// [`Self::aad`]: the sender's signature is verified over it here.
    ///
    /// The caller is trusted to have run AES-GCM with exactly those inputs,
    /// under the key `keyring` holds for the generation; a platform refusing
    /// the tag is `DECRYPTION_FAILED`, which the caller reports without
    /// calling this. The key commitment is checked again against that key.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` or `DECRYPTION_FAILED` when `keyring` no
    /// longer holds the key [`prepare_open`] checked; `SENDER_MISMATCH` when
    /// the signature is missing or does not verify.
    pub fn finish(self, keyring: &Keyring, decrypted: Zeroizing<Vec<u8>>) -> CryptoResult<Opened> {
        self.check_still_held(keyring)?;
        self.complete(decrypted, true)
    }

    /// The sender's key the signature is checked against (from the caller's
    /// own keys, trust store or presented keys; never from the envelope).
    pub fn signer(&self) -> &PublicKey {
        &self.public
    }

    /// The sender's key as an Ed25519 public key
    /// ([`signature::ed25519_public_key`]), for a platform's Ed25519 verify of
    /// the signature; `None` for a key the signature check refuses anyway.
    pub fn signer_ed25519(&self) -> Option<[u8; 32]> {
        signature::ed25519_public_key(&self.public).ok()
    }

    /// What the sender signed, without the content: `"streamseal/signature"
    /// || u8 version || u32 len(aad) || aad` (the content follows it).
    ///
    /// # Errors
    ///
    /// `INPUT_TOO_LARGE` for an AAD longer than a `u32` counts (never, after
    /// [`prepare_open`]'s bound).
    pub fn signature_prefix(&self) -> CryptoResult<Vec<u8>> {
        let mut prefix = Vec::with_capacity(signature_prefix_len(&self.aad));
        write_signature_prefix(&mut prefix, self.contents.version, &self.aad)?;
        Ok(prefix)
    }

    /// [`Self::finish`] for a signature a platform verified (see
    /// [`crate::hazmat::finish_open_verified_elsewhere`]).
    pub(crate) fn finish_verified_elsewhere(
        self,
        keyring: &Keyring,
        decrypted: Zeroizing<Vec<u8>>,
    ) -> CryptoResult<Opened> {
        self.check_still_held(keyring)?;
        self.complete(decrypted, false)
    }

    fn complete(self, mut decrypted: Zeroizing<Vec<u8>>, verify: bool) -> CryptoResult<Opened> {
        // AES-GCM's output is its input less the tag: bytes of another
        // length are not this envelope's decryption (a glue handing one
        // job's bytes to another, whose signature a platform verified).
        if decrypted.len().saturating_add(TAG_LEN) != self.ciphertext().len() {
            return Err(self.mismatch("not the length of the envelope's decryption"));
        }
        let signed: Option<[u8; SIGNATURE_LEN]> = decrypted
            .get(..SIGNATURE_LEN)
            .and_then(|s| s.try_into().ok());
        let Some(signed) = signed else {
            return Err(self.mismatch("no signature"));
        };
        let verified = !verify
            || signature::verify(
                &self.public,
                &signature_input(
                    self.contents.version,
                    &self.aad,
                    decrypted.get(SIGNATURE_LEN..).unwrap_or_default(),
                )?,
                &Signature::from_bytes(signed),
            )
            .is_ok();
        // The content after the signature, in the one buffer.
        let end = decrypted.len();
        let plaintext = Plaintext::within(std::mem::take(&mut *decrypted), SIGNATURE_LEN..end);
        self.opened(plaintext, verified)
    }

    fn mismatch(&self, reason: &'static str) -> CryptoError {
        CryptoError::SenderMismatch {
            subject: self.contents.sender.subject.clone(),
            key_id: self.contents.sender.key_id.clone(),
            reason,
        }
    }

    /// The result, once the signature over `plaintext` was checked.
    fn opened(self, plaintext: Plaintext, verified: bool) -> CryptoResult<Opened> {
        if !verified {
            return Err(self.mismatch("the signature does not verify under the sender's key"));
        }
        let contents = self.contents;
        let sealed_by = SealedBy {
            subject: contents.sender.subject,
            kind: contents.sender.kind,
            key_id: contents.sender.key_id,
            status: self.status,
        };
        Ok(Opened {
            slot: contents.slot,
            key_generation: contents.key_generation,
            sealed_by,
            plaintext,
        })
    }
}

fn check_binding(
    contents: &AadContents,
    keyring: &Keyring,
    envelope: &Envelope,
) -> CryptoResult<()> {
    if u32::from(contents.version) != envelope.v {
        return Err(CryptoError::AadMismatch {
            what: "envelope version",
        });
    }
    if contents.root_stream_id != keyring.root_stream_id() {
        return Err(CryptoError::AadMismatch {
            what: "root stream",
        });
    }
    if contents.key_generation != envelope.key_generation {
        return Err(CryptoError::AadMismatch {
            what: "key generation",
        });
    }
    Ok(())
}
