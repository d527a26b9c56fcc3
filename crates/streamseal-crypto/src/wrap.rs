//! Key wraps: a stream key sealed to one recipient's X25519 public key with
//! HPKE (RFC 9180) in **auth mode** (section 5.1.3), suite DHKEM(X25519,
//! HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM (kem 0x0020, kdf 0x0001, aead
//! 0x0002), from the identity key of the member who made the generation.
//!
//! Auth mode mixes `DH(skS, pkR)` into the shared secret (RFC 9180 section
//! 4.1, `AuthEncap`), so only the holder of the sender's secret key can make
//! a wrap that opens under the sender's public key: the server, which knows
//! every public key, cannot mint a generation of its own for a member who
//! accepts only the stream's real key distributors (base mode allowed that).
//! RFC 9180 section 9.1.1 notes that auth mode does not prevent the
//! *recipient* from forging wraps to itself (key-compromise impersonation);
//! a recipient gains nothing from forging a key to itself.
//!
//! The HPKE `info` (RFC 9180 section 5.1) binds what the wrap is for:
//!
//! ```text
//! info = "streamseal/wrap"   15 bytes, domain label
//!        u8  wrap format version (2)
//!        str root stream id
//!        u32 key generation (big-endian)
//!        str recipient kind  ("user", "bot", ...)
//!        str recipient key id
//!        str sender kind
//!        str sender key id
//! ```
//!
//! so a wrap moved to another root stream, generation, recipient or claimed
//! sender does not open (`UNTRUSTED_WRAP`). The HPKE `aad` is empty; the
//! plaintext is the 32-byte stream key, so `wrapCt` is 48 bytes and
//! `wrapEnc` 32 bytes. Format version 1 (base mode) is gone, not kept as a
//! fallback an attacker could choose.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
//! use streamseal_crypto::stream_key::StreamKey;
//! use streamseal_crypto::wrap::{unwrap_stream_key, wrap_stream_key};
//!
//! let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("k1")?)?;
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("m-a")?)?;
//! let key = StreamKey::generate()?;
//! let wrap = wrap_stream_key("stream_root", 2, &key, &owner, &Recipient::of(&bot))?;
//! // The bot accepts keys from the owner only, and learns who made the wrap.
//! let opened = unwrap_stream_key("stream_root", &wrap, &[bot.clone()], &[Recipient::of(&owner)])?;
//! assert_eq!(opened.key, key);
//! assert_eq!(opened.sender, 0);
//! // A wrap made by anyone else (here: the bot itself posing as a sender the
//! // caller does not accept) does not open.
//! let forged = wrap_stream_key("stream_root", 3, &key, &bot, &Recipient::of(&bot))?;
//! let err = unwrap_stream_key("stream_root", &forged, &[bot], &[Recipient::of(&owner)]).unwrap_err();
//! assert_eq!(err.code().as_str(), "UNTRUSTED_WRAP");
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use crate::extra::Extra;
use std::convert::Infallible;

use hpke::rand_core::{TryCryptoRng, TryRng};
use hpke::{Deserializable as _, OpModeS, Serializable as _};
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::codec::Writer;
use crate::dhkem;
use crate::encoding::{decode_base64_array, encode_base64};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{IdentityKey, MAX_KEYS, Recipient, RecipientKind};
use crate::random;
use crate::stream_key::{STREAM_KEY_LEN, StreamKey};

type Kem = hpke::kem::X25519HkdfSha256;
type Kdf = hpke::kdf::HkdfSha256;
type Aead = hpke::aead::AesGcm256;

/// The domain label at the start of the HPKE `info`.
pub const WRAP_INFO_LABEL: &[u8] = b"streamseal/wrap";
/// The wrap format version bound in the `info`.
pub const WRAP_VERSION: u8 = 2;
/// Length of `wrapEnc` (the X25519 encapsulated key) in bytes.
pub const WRAP_ENC_LEN: usize = 32;
/// Length of `wrapCt` (the wrapped stream key and its tag) in bytes.
pub const WRAP_CT_LEN: usize = STREAM_KEY_LEN + 16;
/// Most HPKE opens one wrap may cost (the caller's keys times the accepted
/// senders); a wrap naming no key id with 32 keys and 32 senders is at the limit.
pub const MAX_TRIAL_OPENS: usize = MAX_KEYS * MAX_KEYS;

/// One key wrap as the API carries it (API §2.12). In a claimed
/// invocation's `sealedContext` the recipient fields are absent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct KeyWrap {
    /// The generation of the wrapped key.
    pub key_generation: u32,
    /// The key id the wrap is addressed to, when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_key_id: Option<String>,
    /// The kind of the recipient, when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_kind: Option<RecipientKind>,
    /// The HPKE encapsulated key, base64 (32 bytes).
    pub wrap_enc: String,
    /// The wrapped stream key with its tag, base64 (48 bytes).
    pub wrap_ct: String,
    /// Fields of this object that the library does not know (API §9.6),
    /// kept and written back unchanged. Nothing in them is read when the
    /// record is opened or checked.
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extra: Extra,
}

/// A stream key opened from a wrap, with the sender that made it.
#[derive(Debug)]
pub struct Unwrapped {
    /// The stream key.
    pub key: StreamKey,
    /// The index, in the `senders` given, of the sender whose identity key made the wrap.
    pub sender: usize,
    /// The index, in `mine`, of the caller's key the wrap was made to.
    pub recipient: usize,
}

/// The HPKE `info` (version 2) for a wrap of `root_stream_id`'s key of
/// `generation` to the key `recipient_key_id` of kind `recipient_kind`, made
/// by the key `sender_key_id` of kind `sender_kind`.
///
/// # Errors
///
/// `INVALID_LENGTH` when a string (id or kind spelling) is empty or over
/// 1024 bytes.
pub fn wrap_info(
    root_stream_id: &str,
    generation: u32,
    recipient_kind: &RecipientKind,
    recipient_key_id: &str,
    sender_kind: &RecipientKind,
    sender_key_id: &str,
) -> CryptoResult<Vec<u8>> {
    let mut w = Writer::with_magic(WRAP_INFO_LABEL);
    w.u8(WRAP_VERSION)
        .str("rootStreamId", root_stream_id)?
        .u32(generation)
        .str("recipientKind", recipient_kind.as_str())?
        .str("recipientKeyId", recipient_key_id)?
        .str("senderKind", sender_kind.as_str())?
        .str("senderKeyId", sender_key_id)?;
    Ok(w.finish())
}

fn kem_secret(key: &IdentityKey) -> CryptoResult<<Kem as hpke::Kem>::PrivateKey> {
    let sk_bytes = key.secret_key().to_bytes();
    <Kem as hpke::Kem>::PrivateKey::from_bytes(sk_bytes.as_slice())
        .map_err(|_| CryptoError::InvalidPublicKey)
}

fn kem_public(key: &Recipient) -> CryptoResult<<Kem as hpke::Kem>::PublicKey> {
    <Kem as hpke::Kem>::PublicKey::from_bytes(key.public_key.as_bytes())
        .map_err(|_| CryptoError::InvalidPublicKey)
}

/// Wraps `key` (the key of `generation` of `root_stream_id`) to `recipient`,
/// authenticated as made by `sender` (the caller's own identity key).
///
/// # Errors
///
/// `INVALID_LENGTH` when a framed id or kind is empty or over 1024 bytes;
/// `INVALID_PUBLIC_KEY` when the recipient's key is unusable (low order);
/// `RANDOMNESS_UNAVAILABLE`.
pub fn wrap_stream_key(
    root_stream_id: &str,
    generation: u32,
    key: &StreamKey,
    sender: &IdentityKey,
    recipient: &Recipient,
) -> CryptoResult<KeyWrap> {
    wrap_stream_key_from(
        &mut random::OsRng,
        root_stream_id,
        generation,
        key,
        sender,
        recipient,
    )
}

/// [`wrap_stream_key`] drawing its 32 bytes of `ikmE` from `rng` (public
/// under [`crate::hazmat`]).
pub(crate) fn wrap_stream_key_from(
    rng: &mut dyn random::Source,
    root_stream_id: &str,
    generation: u32,
    key: &StreamKey,
    sender: &IdentityKey,
    recipient: &Recipient,
) -> CryptoResult<KeyWrap> {
    let info = wrap_info(
        root_stream_id,
        generation,
        &recipient.kind,
        recipient.key_id.as_str(),
        sender.kind(),
        sender.key_id().as_str(),
    )?;
    let pk = kem_public(recipient)?;
    let sender_pair = (kem_secret(sender)?, kem_public(&Recipient::of(sender))?);
    // RFC 9180 section 4.1: the ephemeral key pair is DeriveKeyPair(random(Nsk)).
    // Draw those 32 bytes fallibly here, then hand them to hpke.
    let mut seed = SeedRng::new(random::array_from::<32>(rng)?);
    let (enc, ct) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
        &OpModeS::Auth(sender_pair),
        &pk,
        &info,
        key.to_bytes().as_slice(),
        b"",
        &mut seed,
    )
    // EncapError: a DH output was all zero, i.e. a low-order public key
    // (RFC 9180 section 7.1.4).
    .map_err(|_| CryptoError::InvalidPublicKey)?;
    if seed.overrun {
        return Err(CryptoError::RandomnessUnavailable);
    }
    Ok(KeyWrap {
        key_generation: generation,
        recipient_key_id: Some(recipient.key_id.as_str().to_owned()),
        recipient_kind: Some(recipient.kind.clone()),
        wrap_enc: encode_base64(&enc.to_bytes()),
        wrap_ct: encode_base64(&ct),
        extra: Default::default(),
    })
}

/// Opens a wrap of `root_stream_id`'s key with one of `mine` (at most 32),
/// accepting it only as made by one of `senders` (at most 32): the keys the
/// caller accepts as distributors of this stream's keys, from its trust store.
///
/// When the wrap names a key id, only the key with that id (and kind, if
/// named) is tried, and a wrap naming none of `mine` is `NO_MATCHING_KEY`.
/// When it names none (the wraps of a `sealedContext`), each key is tried in
/// turn under its own kind and id. A wrap that opens under no (sender, key)
/// pair is `UNTRUSTED_WRAP`: made by a sender the caller does not accept
/// (the server minting a generation), altered, or moved.
///
/// # Errors
///
/// `TOO_MANY_KEYS` when `mine` or `senders` holds more than 32;
/// `MALFORMED_BASE64` or `INVALID_LENGTH` for `wrapEnc` and `wrapCt`;
/// `NO_MATCHING_KEY` when the wrap names none of `mine`; `UNTRUSTED_WRAP`
/// when it opens under no (sender, key) pair.
pub fn unwrap_stream_key(
    root_stream_id: &str,
    wrap: &KeyWrap,
    mine: &[IdentityKey],
    senders: &[Recipient],
) -> CryptoResult<Unwrapped> {
    unwrap_stream_key_with_dh(root_stream_id, wrap, mine, senders, &mut Computed)
}

/// Where the X25519 results of opening a wrap come from: computed here
/// ([`Computed`]), or, for a wrap's `enc` only, among those a platform
/// computed ([`crate::hazmat::PlatformDh`]).
pub(crate) trait DhSource {
    /// `DH(skR, enc)`: `X25519(mine[key]'s secret, enc)`; all zero for a
    /// low-order `enc` (the caller refuses that).
    fn ephemeral(&mut self, key: usize, mine: &IdentityKey, enc: &[u8; 32]) -> Zeroizing<[u8; 32]>;

    /// `DH(skR, pkS)`: `X25519(mine[key]'s secret, sender)` for a sender's
    /// identity key. Never a platform's: a wrong value the server can
    /// predict here (e.g. `DH(skR, enc)` of its own `enc` filed under
    /// `pkS`) would let it make a wrap that opens as the sender's.
    fn sender(&mut self, key: usize, mine: &IdentityKey, sender: &[u8; 32]) -> Zeroizing<[u8; 32]>;

    /// A wrap opened under `(mine[key], sender)`: a source may keep that
    /// pair's [`Self::sender`] result for the sender's later wraps
    /// ([`crate::hazmat::SenderDh`]).
    fn opened(&mut self, _key: usize, _sender: &[u8; 32]) {}
}

/// Every X25519 computed here.
pub(crate) struct Computed;

impl DhSource for Computed {
    fn ephemeral(
        &mut self,
        _key: usize,
        mine: &IdentityKey,
        enc: &[u8; 32],
    ) -> Zeroizing<[u8; 32]> {
        mine.secret_key().diffie_hellman(enc)
    }

    fn sender(
        &mut self,
        _key: usize,
        mine: &IdentityKey,
        sender: &[u8; 32],
    ) -> Zeroizing<[u8; 32]> {
        mine.secret_key().diffie_hellman(sender)
    }
}

fn check_key_counts(mine: &[IdentityKey], senders: &[Recipient]) -> CryptoResult<()> {
    for (limit, actual) in [(MAX_KEYS, mine.len()), (MAX_KEYS, senders.len())] {
        if actual > limit {
            return Err(CryptoError::TooManyKeys { limit, actual });
        }
    }
    Ok(())
}

/// The keys of `mine` a wrap is tried under, with their indices: the one it
/// names (by id, and by kind if it names one), else every key.
fn candidates<'k>(
    wrap: &KeyWrap,
    mine: &'k [IdentityKey],
) -> CryptoResult<Vec<(usize, &'k IdentityKey)>> {
    match &wrap.recipient_key_id {
        Some(id) => {
            let named: Vec<(usize, &IdentityKey)> = mine
                .iter()
                .enumerate()
                .filter(|(_, k)| k.key_id().as_str() == id)
                .filter(|(_, k)| {
                    wrap.recipient_kind
                        .as_ref()
                        .is_none_or(|kind| kind == k.kind())
                })
                .collect();
            if named.is_empty() {
                return Err(CryptoError::NoMatchingKey { key_id: id.clone() });
            }
            Ok(named)
        }
        None => Ok(mine.iter().enumerate().collect()),
    }
}

/// The X25519 operations of [`unwrap_stream_key`] for `wrap` that a
/// platform may compute, as `(index in mine, enc)`, appended to `out`:
/// `DH(skR, enc)` for each key it would try. Not `DH(skR, pkS)`, which is
/// computed here or kept ([`DhSource::sender`]). Nothing for a wrap it
/// would refuse before any (an undecodable `wrapEnc` or `wrapCt`, no key of
/// `mine` named): [`unwrap_stream_key`] gives that error again.
///
/// # Errors
///
/// `TOO_MANY_KEYS`, as [`unwrap_stream_key`].
pub(crate) fn dh_requests(
    wrap: &KeyWrap,
    mine: &[IdentityKey],
    senders: &[Recipient],
    out: &mut Vec<(usize, [u8; 32])>,
) -> CryptoResult<()> {
    check_key_counts(mine, senders)?;
    let (Ok(enc), Ok(_)) = (
        decode_base64_array::<WRAP_ENC_LEN>("wrapEnc", &wrap.wrap_enc),
        decode_base64_array::<WRAP_CT_LEN>("wrapCt", &wrap.wrap_ct),
    ) else {
        return Ok(());
    };
    let Ok(keys) = candidates(wrap, mine) else {
        return Ok(());
    };
    for (index, _) in keys {
        out.push((index, enc));
    }
    Ok(())
}

/// [`unwrap_stream_key`] with its X25519 results from `dh`.
pub(crate) fn unwrap_stream_key_with_dh(
    root_stream_id: &str,
    wrap: &KeyWrap,
    mine: &[IdentityKey],
    senders: &[Recipient],
    dh: &mut dyn DhSource,
) -> CryptoResult<Unwrapped> {
    check_key_counts(mine, senders)?;
    let enc_bytes = decode_base64_array::<WRAP_ENC_LEN>("wrapEnc", &wrap.wrap_enc)?;
    let ct = decode_base64_array::<WRAP_CT_LEN>("wrapCt", &wrap.wrap_ct)?;
    // RFC 9180's AuthDecap for each (key, sender) pair, with each X25519
    // done once: DH(skR, enc) per key of mine, DH(skR, pkS) per pair, pkR
    // the key's own public half (`dhkem`).
    for (recipient, candidate) in candidates(wrap, mine)? {
        let dh_e = dh.ephemeral(recipient, candidate, &enc_bytes);
        if dhkem::all_zero(&dh_e) {
            // A low-order enc: no sender's wrap opens under this key.
            continue;
        }
        for (sender, from) in senders.iter().enumerate() {
            let dh_s = dh.sender(recipient, candidate, from.public_key.as_bytes());
            if let Some(key) = try_open(
                root_stream_id,
                wrap.key_generation,
                candidate,
                from,
                &enc_bytes,
                &ct,
                [&dh_e, &dh_s],
            )? {
                dh.opened(recipient, from.public_key.as_bytes());
                return Ok(Unwrapped {
                    key,
                    sender,
                    recipient,
                });
            }
        }
    }
    Err(CryptoError::UntrustedWrap)
}

/// Opens the wrap as made by `sender` to `mine`, from the two DH results
/// `[DH(skR, enc), DH(skR, pkS)]`: `None` when it does not open.
fn try_open(
    root_stream_id: &str,
    generation: u32,
    mine: &IdentityKey,
    sender: &Recipient,
    enc: &[u8; WRAP_ENC_LEN],
    ct: &[u8],
    [dh_e, dh_s]: [&[u8; dhkem::LEN]; 2],
) -> CryptoResult<Option<StreamKey>> {
    // A key whose kind cannot be framed (an empty `Other` kind) cannot be the
    // recipient or sender of any wrap: skip it rather than stop trying the others.
    let Ok(info) = wrap_info(
        root_stream_id,
        generation,
        mine.kind(),
        mine.key_id().as_str(),
        &sender.kind,
        sender.key_id.as_str(),
    ) else {
        return Ok(None);
    };
    let Some(shared) = dhkem::auth_shared_secret(
        dh_e,
        dh_s,
        enc,
        mine.public_key().as_bytes(),
        sender.public_key.as_bytes(),
    ) else {
        return Ok(None);
    };
    let Some(plain) = dhkem::open(shared, &info, ct) else {
        return Ok(None);
    };
    let bytes: Zeroizing<[u8; STREAM_KEY_LEN]> = Zeroizing::new(
        plain
            .as_slice()
            .try_into()
            .map_err(|_| CryptoError::length("wrapCt", WRAP_CT_LEN, plain.len() + 16))?,
    );
    Ok(Some(StreamKey::from_bytes(&bytes)))
}

/// Serves hpke the 32 ephemeral bytes drawn beforehand. hpke's RNG interface
/// is infallible; drawing first lets an OS RNG failure surface as an error
/// instead of a panic inside hpke.
pub(crate) struct SeedRng {
    seed: [u8; 32],
    pos: usize,
    overrun: bool,
}

impl SeedRng {
    pub(crate) fn new(seed: [u8; 32]) -> Self {
        SeedRng {
            seed,
            pos: 0,
            overrun: false,
        }
    }
}

impl Drop for SeedRng {
    fn drop(&mut self) {
        self.seed.zeroize();
    }
}

impl TryRng for SeedRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for byte in dst.iter_mut() {
            match self.seed.get(self.pos) {
                Some(b) => *byte = *b,
                None => {
                    // Never reached with DHKEM(X25519): it asks for exactly 32
                    // bytes. Flag it so the wrap is refused, not weakened.
                    self.overrun = true;
                    *byte = 0;
                }
            }
            self.pos = self.pos.saturating_add(1);
        }
        Ok(())
    }
}

impl TryCryptoRng for SeedRng {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::hazmat::{PlatformDh, unwrap_dh_requests, unwrap_stream_key_with_platform_dh};
    use crate::identity::KeyId;
    use proptest::prelude::*;

    #[derive(Default)]
    struct Recording(Vec<(usize, [u8; 32])>);

    /// Records every `DH(skR, enc)` an unwrap does (what a platform may
    /// compute), computing each here.
    impl DhSource for Recording {
        fn ephemeral(
            &mut self,
            key: usize,
            mine: &IdentityKey,
            enc: &[u8; 32],
        ) -> Zeroizing<[u8; 32]> {
            self.0.push((key, *enc));
            Computed.ephemeral(key, mine, enc)
        }

        fn sender(
            &mut self,
            key: usize,
            mine: &IdentityKey,
            sender: &[u8; 32],
        ) -> Zeroizing<[u8; 32]> {
            Computed.sender(key, mine, sender)
        }
    }

    fn key(kind: RecipientKind, id: &str, seed: u8) -> IdentityKey {
        IdentityKey::from_secret(
            kind,
            KeyId::new(id).unwrap(),
            crate::identity::SecretKey::from_bytes(&[seed; 32]),
        )
    }

    fn view(r: &CryptoResult<Unwrapped>) -> Result<(Vec<u8>, usize, usize), CryptoError> {
        r.as_ref()
            .map(|u| (u.key.to_bytes().to_vec(), u.sender, u.recipient))
            .map_err(Clone::clone)
    }

    fn platform(requests: &[(usize, [u8; 32])], mine: &[IdentityKey]) -> PlatformDh {
        let mut dh = PlatformDh::new();
        for (k, public) in requests {
            dh.insert(*k, *public, &mine[*k].secret_key().diffie_hellman(public));
        }
        dh
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Whoever made the wrap (one of the senders, or a key not among
        /// them), however it is addressed, and however it was altered: the
        /// requests cover every X25519 the unwrap does, and the unwrap with
        /// the platform's results (all, none, or all but one) gives exactly
        /// the result and the error of `unwrap_stream_key`.
        #[test]
        fn platform_results_give_the_same_unwrap(
            seeds in proptest::collection::vec(1u8..=250, 5),
            made_by in 0usize..4,
            named in any::<bool>(),
            alter in 0u8..4,
            drop_one in any::<prop::sample::Index>(),
        ) {
            let mine = [key(RecipientKind::User, "k1", seeds[0]), key(RecipientKind::Bot, "k2", seeds[1])];
            let senders: Vec<IdentityKey> = (2..5)
                .map(|i| key(RecipientKind::User, &format!("s{i}"), seeds[i]))
                .collect();
            let accepted: Vec<Recipient> = senders.iter().map(Recipient::of).collect();
            let outsider = key(RecipientKind::User, "s0", 251);
            let maker = senders.get(made_by).unwrap_or(&outsider);
            let stream_key = StreamKey::from_bytes(&[seeds[4]; 32]);
            let mut wrap = wrap_stream_key("stream_r", 3, &stream_key, maker, &Recipient::of(&mine[1])).unwrap();
            if !named {
                wrap.recipient_key_id = None;
                wrap.recipient_kind = None;
            }
            match alter {
                1 => wrap.wrap_enc = encode_base64(&[0u8; 32]),
                2 => wrap.wrap_ct.replace_range(0..1, if wrap.wrap_ct.starts_with('A') { "B" } else { "A" }),
                3 => wrap.wrap_enc.push('='),
                _ => {}
            }
            let plain = unwrap_stream_key("stream_r", &wrap, &mine, &accepted);
            let requests = unwrap_dh_requests(&wrap, &mine, &accepted).unwrap();
            let mut recorded = Recording::default();
            let recorded_result = unwrap_stream_key_with_dh("stream_r", &wrap, &mine, &accepted, &mut recorded);
            prop_assert_eq!(view(&recorded_result), view(&plain));
            for op in &recorded.0 {
                prop_assert!(requests.contains(op), "an X25519 not requested: {:?}", op.0);
            }
            let full = unwrap_stream_key_with_platform_dh("stream_r", &wrap, &mine, &accepted, &mut platform(&requests, &mine));
            prop_assert_eq!(view(&full), view(&plain));
            let none = unwrap_stream_key_with_platform_dh("stream_r", &wrap, &mine, &accepted, &mut PlatformDh::new());
            prop_assert_eq!(view(&none), view(&plain));
            if !requests.is_empty() {
                let mut partial = requests.clone();
                partial.remove(drop_one.index(requests.len()));
                let some = unwrap_stream_key_with_platform_dh("stream_r", &wrap, &mine, &accepted, &mut platform(&partial, &mine));
                prop_assert_eq!(view(&some), view(&plain));
            }
            // Opens exactly when an accepted sender made it, unaltered.
            prop_assert_eq!(plain.is_ok(), made_by < 3 && alter == 0);
        }
    }

    /// A wrong platform result never opens a wrap: with `DH(skR, pkS)`
    /// replaced, the sender's genuine wrap is `UNTRUSTED_WRAP`.
    #[test]
    fn a_wrong_platform_result_does_not_open() {
        let me = key(RecipientKind::Bot, "k", 9);
        let sender = key(RecipientKind::User, "s", 10);
        let wrap = wrap_stream_key(
            "stream_r",
            1,
            &StreamKey::from_bytes(&[1; 32]),
            &sender,
            &Recipient::of(&me),
        )
        .unwrap();
        let accepted = [Recipient::of(&sender)];
        let mine = [me];
        let requests = unwrap_dh_requests(&wrap, &mine, &accepted).unwrap();
        assert_eq!(
            requests,
            vec![(
                0,
                decode_base64_array::<32>("wrapEnc", &wrap.wrap_enc).unwrap()
            )],
            "DH(skR, enc) alone: DH(skR, pkS) is never a platform's"
        );
        for wrong in 0..requests.len() {
            let mut dh = PlatformDh::new();
            for (i, (k, public)) in requests.iter().enumerate() {
                let mut result = mine[*k].secret_key().diffie_hellman(public);
                if i == wrong {
                    result[0] ^= 1;
                }
                dh.insert(*k, *public, &result);
            }
            let err =
                unwrap_stream_key_with_platform_dh("stream_r", &wrap, &mine, &accepted, &mut dh)
                    .unwrap_err();
            assert_eq!(err, CryptoError::UntrustedWrap);
        }
        assert!(
            unwrap_stream_key_with_platform_dh(
                "stream_r",
                &wrap,
                &mine,
                &accepted,
                &mut platform(&requests, &mine)
            )
            .is_ok()
        );
    }

    fn wrap_from(sender: &IdentityKey, to: &IdentityKey, generation: u8) -> KeyWrap {
        wrap_stream_key(
            "stream_r",
            u32::from(generation),
            &StreamKey::from_bytes(&[generation; 32]),
            sender,
            &Recipient::of(to),
        )
        .unwrap()
    }

    fn open_with(
        wrap: &KeyWrap,
        mine: &[IdentityKey],
        accepted: &[Recipient],
        dh: &mut PlatformDh,
    ) -> CryptoResult<Unwrapped> {
        unwrap_stream_key_with_platform_dh("stream_r", wrap, mine, accepted, dh)
    }

    /// What a wrap opened with is kept, and only that: the result with the
    /// sender that made it, not those tried before it. Seeded from the
    /// cache, the sender's next wrap opens to what `unwrap_stream_key` gives
    /// with one X25519 (`DH(skR, enc)`), and the cache comes back whole.
    #[test]
    fn a_kept_result_opens_the_next_wrap_with_one_x25519() {
        let owner = key(RecipientKind::User, "owner", 10);
        let other = key(RecipientKind::User, "other", 11);
        let mine = [key(RecipientKind::Bot, "k", 9)];

        let first = wrap_from(&owner, &mine[0], 1);
        let tried_first = [Recipient::of(&other), Recipient::of(&owner)];
        let mut dh = PlatformDh::new();
        open_with(&first, &mine, &tried_first, &mut dh).unwrap();
        assert_eq!(
            dh.len(),
            2,
            "the other sender's (tried first) and the owner's"
        );
        let kept = dh.keep_opened(0);
        assert_eq!(kept.len(), 1);
        assert!(kept.contains(owner.public_key().as_bytes()));
        assert!(
            !kept.contains(other.public_key().as_bytes()),
            "a result no wrap confirmed is not kept"
        );
        assert_eq!(
            format!("{kept:?}"),
            "SenderDh(1 results)",
            "no secret printed"
        );

        let next = wrap_from(&owner, &mine[0], 2);
        let accepted = [Recipient::of(&owner), Recipient::of(&other)];
        let mut dh = PlatformDh::new();
        dh.seed(0, kept);
        let got = open_with(&next, &mine, &accepted, &mut dh);
        assert_eq!(dh.len(), 0, "no DH(skR, pkS) computed: the kept one served");
        assert_eq!(
            view(&got),
            view(&unwrap_stream_key("stream_r", &next, &mine, &accepted))
        );
        assert_eq!(got.unwrap().key.to_bytes().as_slice(), &[2; 32]);
        assert_eq!(dh.keep_opened(0).len(), 1, "the cache comes back");
        assert!(dh.keep_opened(1).is_empty(), "another key's is its own");
    }

    /// The server's wraps gain nothing from a warm cache: a wrap it minted
    /// (made by a key no accepted sender holds) or moved to another
    /// generation stays `UNTRUSTED_WRAP` with the owner's result seeded, and
    /// leaves nothing new in the cache.
    #[test]
    fn a_warm_cache_opens_no_minted_or_moved_wrap() {
        let owner = key(RecipientKind::User, "owner", 10);
        let mallory = key(RecipientKind::User, "owner", 66);
        let mine = [key(RecipientKind::Bot, "k", 9)];
        let accepted = [Recipient::of(&owner)];
        let mut dh = PlatformDh::new();
        open_with(&wrap_from(&owner, &mine[0], 1), &mine, &accepted, &mut dh).unwrap();
        let mut kept = dh.keep_opened(0);

        let minted = wrap_from(&mallory, &mine[0], 2);
        let mut moved = wrap_from(&owner, &mine[0], 3);
        moved.key_generation = 4;
        for wrap in [minted, moved] {
            let mut dh = PlatformDh::new();
            dh.seed(0, kept);
            assert_eq!(
                open_with(&wrap, &mine, &accepted, &mut dh).unwrap_err(),
                CryptoError::UntrustedWrap
            );
            kept = dh.keep_opened(0);
            assert_eq!(kept.len(), 1, "nothing confirmed, nothing new kept");
        }
    }

    /// A wrap the server makes with its own ephemeral key `e1` as both the
    /// `enc` and the "sender" scalar, claiming the owner: it opens exactly
    /// when `DH(skR, pkS)` is taken to be `DH(skR, enc) = DH(e1, pkR)`, which
    /// the server knows. So a platform result filed under the owner's key
    /// (a platform misfiling `DH(skR, enc)`) is never used for
    /// `DH(skR, pkS)`: the forged wrap stays `UNTRUSTED_WRAP`, nothing is
    /// kept, and the owner's genuine wraps still open.
    #[test]
    fn a_platform_result_is_never_taken_as_the_senders() {
        use hpke::Kem as _;
        let owner = key(RecipientKind::User, "owner", 10);
        let mine = [key(RecipientKind::Bot, "k", 9)];
        let accepted = [Recipient::of(&owner)];
        let pk_s = *owner.public_key().as_bytes();
        let info = wrap_info(
            "stream_r",
            1,
            mine[0].kind(),
            mine[0].key_id().as_str(),
            owner.kind(),
            owner.key_id().as_str(),
        )
        .unwrap();
        let ikm = [0x51; 32];
        let (e1, e1_pk) = Kem::derive_keypair(&ikm);
        let (enc, ct) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
            &OpModeS::Auth((e1, kem_public(&Recipient::of(&owner)).unwrap())),
            &kem_public(&Recipient::of(&mine[0])).unwrap(),
            &info,
            &[0xEE; 32],
            b"",
            &mut SeedRng::new(ikm),
        )
        .unwrap();
        let enc: [u8; 32] = enc.to_bytes().into();
        assert_eq!(enc, <[u8; 32]>::from(e1_pk.to_bytes()));
        let forged = KeyWrap {
            key_generation: 1,
            recipient_key_id: Some(mine[0].key_id().as_str().to_owned()),
            recipient_kind: Some(mine[0].kind().clone()),
            wrap_enc: encode_base64(&enc),
            wrap_ct: encode_base64(&ct),
            extra: Extra::default(),
        };
        let misfiled = mine[0].secret_key().diffie_hellman(&enc);
        let mut dh = PlatformDh::new();
        dh.insert(0, enc, &misfiled);
        dh.insert(0, pk_s, &misfiled);
        assert_eq!(
            open_with(&forged, &mine, &accepted, &mut dh).unwrap_err(),
            CryptoError::UntrustedWrap
        );
        let kept = dh.keep_opened(0);
        assert!(kept.is_empty());
        let mut dh = PlatformDh::new();
        dh.seed(0, kept);
        dh.insert(0, pk_s, &misfiled);
        let genuine = wrap_from(&owner, &mine[0], 2);
        assert_eq!(
            open_with(&genuine, &mine, &accepted, &mut dh)
                .unwrap()
                .key
                .to_bytes()
                .as_slice(),
            &[2; 32]
        );
    }

    /// A platform's wrong `DH(skR, enc)` fails the wrap and keeps nothing;
    /// and a cache handed in as another key's opens nothing (its results
    /// are not that key's).
    #[test]
    fn wrong_results_are_not_kept_and_a_misfiled_cache_opens_nothing() {
        let owner = key(RecipientKind::User, "owner", 10);
        let mine = [
            key(RecipientKind::Bot, "k", 9),
            key(RecipientKind::Bot, "j", 12),
        ];
        let accepted = [Recipient::of(&owner)];
        let wrap = wrap_from(&owner, &mine[0], 1);
        let requests = unwrap_dh_requests(&wrap, &mine, &accepted).unwrap();
        let mut dh = PlatformDh::new();
        for (k, enc) in &requests {
            let mut wrong = mine[*k].secret_key().diffie_hellman(enc);
            wrong[31] ^= 0x40;
            dh.insert(*k, *enc, &wrong);
        }
        assert_eq!(
            open_with(&wrap, &mine, &accepted, &mut dh).unwrap_err(),
            CryptoError::UntrustedWrap
        );
        assert!(dh.keep_opened(0).is_empty());

        // Kept for key 0, then handed in as key 1's: key 1's wrap does not open.
        let mut dh = PlatformDh::new();
        open_with(&wrap, &mine, &accepted, &mut dh).unwrap();
        let kept = dh.keep_opened(0);
        assert_eq!(kept.len(), 1);
        let to_j = wrap_from(&owner, &mine[1], 2);
        let mut dh = PlatformDh::new();
        dh.seed(1, kept);
        assert_eq!(
            open_with(&to_j, &mine, &accepted, &mut dh).unwrap_err(),
            CryptoError::UntrustedWrap
        );
    }
}
