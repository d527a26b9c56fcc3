//! The receiving half of DHKEM(X25519, HKDF-SHA256) in auth mode (RFC 9180
//! section 4.1, `AuthDecap`) from Diffie-Hellman results the caller already
//! has, so that a key wrap opens with the X25519 it cannot avoid and no more.
//!
//! `hpke`'s own `AuthDecap` computes `DH(skR, pkE)`, `pk(skR)` and
//! `DH(skR, pkS)` on every call. Opening a wrap tries each accepted sender in
//! turn, so with `n` senders that was `3n` X25519 scalar multiplications,
//! where `1 + n` are needed: `pk(skR)` is the identity key's public half,
//! computed once when the key was made, and `DH(skR, pkE)` is the same for
//! every sender. In WebAssembly, which has no precomputed base-point table,
//! each is a full ladder. Here the DH results come in, and only RFC 9180's
//! `ExtractAndExpand` is done:
//!
//! ```text
//! dh          = DH(skR, pkE) || DH(skR, pkS)         (each refused if all zero)
//! kem_context = enc || pkR || pkS
//! eae_prk     = LabeledExtract("", "eae_prk", dh)
//! shared      = LabeledExpand(eae_prk, "shared_secret", kem_context, 32)
//! suite_id    = "KEM" || I2OSP(0x0020, 2)
//! ```
//!
//! The key schedule and the AEAD stay `hpke`'s: [`AuthDecapped`] is a
//! [`hpke::Kem`] whose "private key" is that shared secret, handed to
//! `hpke::single_shot_open` in place of `AuthDecap`. It cannot encapsulate.
//! The tests check, over random keys and against RFC 9180's auth-mode vector,
//! that this gives `hpke`'s own `AuthDecap` shared secret and opens exactly
//! what `hpke` opens.

use hkdf::HkdfExtract;
use hpke::hybrid_array::{Array, typenum};
use hpke::kem::SharedSecret;
use hpke::rand_core::CryptoRng;
use hpke::{Deserializable, HpkeError, Serializable};
use sha2::Sha256;
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

/// X25519's sizes: keys, encapsulated keys and DH results are 32 bytes.
pub(crate) const LEN: usize = 32;

/// RFC 9180 section 7.1: DHKEM(X25519, HKDF-SHA256).
const KEM_ID: u16 = 0x0020;

/// RFC 9180 section 4.1: `suite_id = concat("KEM", I2OSP(kem_id, 2))`.
const SUITE_ID: [u8; 5] = [b'K', b'E', b'M', (KEM_ID >> 8) as u8, KEM_ID as u8];

/// RFC 9180 section 4: the version label of every labeled derivation.
const VERSION_LABEL: &[u8] = b"HPKE-v1";

/// Whether an X25519 result is the all-zero value, which RFC 9180 section
/// 7.1.4 says to refuse (a low-order public key), in constant time.
pub(crate) fn all_zero(dh: &[u8; LEN]) -> bool {
    bool::from(dh.ct_eq(&[0u8; LEN]))
}

/// `AuthDecap`'s shared secret from its two DH results (RFC 9180 section
/// 4.1): `dh_e = DH(skR, pkE)` and `dh_s = DH(skR, pkS)`, with `enc = pkE`.
/// `None` when either DH result is all zero, where `AuthDecap` fails.
pub(crate) fn auth_shared_secret(
    dh_e: &[u8; LEN],
    dh_s: &[u8; LEN],
    enc: &[u8; LEN],
    pk_r: &[u8; LEN],
    pk_s: &[u8; LEN],
) -> Option<Zeroizing<[u8; LEN]>> {
    if all_zero(dh_e) || all_zero(dh_s) {
        return None;
    }
    // LabeledExtract(salt = "", "eae_prk", dh_e || dh_s)
    let mut extract = HkdfExtract::<Sha256>::new(Some(&[]));
    for part in [VERSION_LABEL, &SUITE_ID, b"eae_prk", dh_e, dh_s] {
        extract.input_ikm(part);
    }
    let (mut prk, hkdf) = extract.finalize();
    prk.zeroize();
    // LabeledExpand(eae_prk, "shared_secret", enc || pkR || pkS, 32)
    let length = u16::try_from(LEN).unwrap_or(u16::MAX).to_be_bytes();
    let mut shared = Zeroizing::new([0u8; LEN]);
    hkdf.expand_multi_info(
        &[
            &length,
            VERSION_LABEL,
            &SUITE_ID,
            b"shared_secret",
            enc,
            pk_r,
            pk_s,
        ],
        shared.as_mut_slice(),
    )
    .ok()?;
    Some(shared)
}

/// A [`hpke::Kem`] that only decapsulates, to a shared secret computed
/// beforehand ([`auth_shared_secret`]): its private key is that secret and
/// its public and encapsulated keys carry nothing (the real ones are already
/// in the secret). `KEM_ID` is DHKEM(X25519, HKDF-SHA256)'s, so `hpke`'s key
/// schedule binds the same suite.
pub(crate) struct AuthDecapped;

/// The shared secret, as [`AuthDecapped`]'s private key. Zeroized on drop,
/// never printed.
#[derive(Clone)]
pub(crate) struct Decapsulated(Zeroizing<[u8; LEN]>);

impl Decapsulated {
    /// The shared secret [`auth_shared_secret`] gave.
    pub(crate) fn new(shared: Zeroizing<[u8; LEN]>) -> Self {
        Decapsulated(shared)
    }
}

impl ConstantTimeEq for Decapsulated {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.0.as_slice().ct_eq(other.0.as_slice())
    }
}

impl Serializable for Decapsulated {
    type OutputSize = typenum::U32;

    fn write_exact(&self, buf: &mut [u8]) {
        // hpke calls this with a buffer of `OutputSize` bytes only.
        if let Some(out) = buf.get_mut(..LEN) {
            out.copy_from_slice(self.0.as_slice());
        }
    }
}

impl Deserializable for Decapsulated {
    fn from_bytes(encoded: &[u8]) -> Result<Self, HpkeError> {
        let bytes: [u8; LEN] = encoded
            .try_into()
            .map_err(|_| HpkeError::IncorrectInputLength(LEN, encoded.len()))?;
        Ok(Decapsulated(Zeroizing::new(bytes)))
    }
}

/// [`AuthDecapped`]'s public and encapsulated keys: nothing, as the real
/// ones are bound into the shared secret already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound;

impl Serializable for Bound {
    type OutputSize = typenum::U0;

    fn write_exact(&self, _buf: &mut [u8]) {}
}

impl Deserializable for Bound {
    fn from_bytes(encoded: &[u8]) -> Result<Self, HpkeError> {
        if encoded.is_empty() {
            Ok(Bound)
        } else {
            Err(HpkeError::IncorrectInputLength(0, encoded.len()))
        }
    }
}

impl hpke::Kem for AuthDecapped {
    type PublicKey = Bound;
    type PrivateKey = Decapsulated;
    type EncappedKey = Bound;
    type NSecret = typenum::U32;
    const KEM_ID: u16 = KEM_ID;

    fn sk_to_pk(_sk: &Decapsulated) -> Bound {
        Bound
    }

    /// A "key pair" whose private key is `ikm` hashed to 32 bytes: this KEM
    /// has no key pairs of its own (nothing here calls it; `hpke`'s trait
    /// asks for it).
    fn derive_keypair(ikm: &[u8]) -> (Decapsulated, Bound) {
        use sha2::Digest as _;
        let mut hash: [u8; LEN] = Sha256::digest(ikm).into();
        let key = Decapsulated(Zeroizing::new(hash));
        hash.zeroize();
        (key, Bound)
    }

    fn decap(
        sk_recip: &Decapsulated,
        _pk_sender_id: Option<&Bound>,
        _encapped_key: &Bound,
    ) -> Result<SharedSecret<Self>, HpkeError> {
        Ok(SharedSecret(Array::from(*sk_recip.0)))
    }

    /// Refused: this KEM only decapsulates.
    fn encap_with_rng(
        _pk_recip: &Bound,
        _sender_id_keypair: Option<(&Decapsulated, &Bound)>,
        _csprng: &mut impl CryptoRng,
    ) -> Result<(SharedSecret<Self>, Bound), HpkeError> {
        Err(HpkeError::EncapError)
    }
}

/// Opens an auth-mode single-shot HPKE ciphertext (empty aad) with the shared
/// secret of [`auth_shared_secret`]: `hpke`'s key schedule and AES-256-GCM.
pub(crate) fn open(
    shared: Zeroizing<[u8; LEN]>,
    info: &[u8],
    ct: &[u8],
) -> Option<Zeroizing<Vec<u8>>> {
    hpke::single_shot_open::<hpke::aead::AesGcm256, hpke::kdf::HkdfSha256, AuthDecapped>(
        &hpke::OpModeR::Auth(Bound),
        &Decapsulated::new(shared),
        &Bound,
        info,
        ct,
        b"",
    )
    .ok()
    .map(Zeroizing::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hpke::{Kem as _, OpModeR, OpModeS};
    use proptest::prelude::*;

    type Real = hpke::kem::X25519HkdfSha256;
    type RealSk = <Real as hpke::Kem>::PrivateKey;
    type RealPk = <Real as hpke::Kem>::PublicKey;

    fn dh(sk: &[u8; 32], pk: &[u8; 32]) -> [u8; 32] {
        x25519_dalek::StaticSecret::from(*sk)
            .diffie_hellman(&x25519_dalek::PublicKey::from(*pk))
            .to_bytes()
    }

    fn public(sk: &[u8; 32]) -> [u8; 32] {
        x25519_dalek::PublicKey::from(&x25519_dalek::StaticSecret::from(*sk)).to_bytes()
    }

    fn arr(bytes: &[u8]) -> [u8; 32] {
        bytes.try_into().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Over random keys, the shared secret from the two DH results is
        /// `hpke`'s own `AuthDecap`'s, and what `hpke` seals opens here to
        /// the same bytes; under another sender it opens in neither.
        #[test]
        fn the_shared_secret_and_the_open_are_hpkes(
            sk_r in any::<[u8; 32]>(),
            sk_s in any::<[u8; 32]>(),
            other in any::<[u8; 32]>(),
            ikm_e in any::<[u8; 32]>(),
            info in proptest::collection::vec(any::<u8>(), 0..96),
            plain in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let (pk_r, pk_s) = (public(&sk_r), public(&sk_s));
            let real_sk_r = RealSk::from_bytes(&sk_r).unwrap();
            let real_sk_s = RealSk::from_bytes(&sk_s).unwrap();
            let real_pk_r = RealPk::from_bytes(&pk_r).unwrap();
            let real_pk_s = RealPk::from_bytes(&pk_s).unwrap();
            let (real_ss, enc) = Real::encap_with_rng(
                &real_pk_r,
                Some((&real_sk_s, &real_pk_s)),
                &mut crate::wrap::SeedRng::new(ikm_e),
            ).unwrap();
            let enc = arr(&enc.to_bytes());
            let ours = auth_shared_secret(&dh(&sk_r, &enc), &dh(&sk_r, &pk_s), &enc, &pk_r, &pk_s).unwrap();
            prop_assert_eq!(ours.as_slice(), real_ss.0.as_slice());

            let (enc, ct) = hpke::single_shot_seal_with_rng::<hpke::aead::AesGcm256, hpke::kdf::HkdfSha256, Real>(
                &OpModeS::Auth((real_sk_s.clone(), real_pk_s.clone())),
                &real_pk_r,
                &info,
                &plain,
                b"",
                &mut crate::wrap::SeedRng::new(ikm_e),
            ).unwrap();
            let enc = arr(&enc.to_bytes());
            let opened = open(ours, &info, &ct).unwrap();
            prop_assert_eq!(opened.as_slice(), plain.as_slice());

            // As from another sender: neither opens.
            let pk_o = public(&other);
            let real_other = hpke::single_shot_open::<hpke::aead::AesGcm256, hpke::kdf::HkdfSha256, Real>(
                &OpModeR::Auth(RealPk::from_bytes(&pk_o).unwrap()),
                &real_sk_r,
                &<Real as hpke::Kem>::EncappedKey::from_bytes(&enc).unwrap(),
                &info,
                &ct,
                b"",
            );
            let ours_other = auth_shared_secret(&dh(&sk_r, &enc), &dh(&sk_r, &pk_o), &enc, &pk_r, &pk_o)
                .and_then(|shared| open(shared, &info, &ct));
            prop_assert_eq!(real_other.is_ok(), ours_other.is_some());
            prop_assert_eq!(ours_other.is_some(), pk_o == pk_s);
        }
    }

    /// The value of the first `"name": "..."` in `text` (the vector file is
    /// one entry, and the fields of its encryption 0 come before any other
    /// encryption's), hex-decoded. This crate stays free of JSON libraries.
    fn field(text: &str, name: &str) -> Vec<u8> {
        let key = format!("\"{name}\": \"");
        let start = text.find(&key).unwrap() + key.len();
        let end = start + text[start..].find('"').unwrap();
        hex::decode(&text[start..end]).unwrap()
    }

    /// RFC 9180's auth-mode vector (X25519, HKDF-SHA256, AES-256-GCM): the
    /// shared secret, and encryption 0 opened.
    #[test]
    fn rfc9180_auth_vector() {
        let text =
            include_str!("../../../tests/vectors/hpke/rfc9180_x25519_sha256_aes256gcm_auth.json");
        assert!(text.contains("\"mode\": 2,") && text.contains("\"kem_id\": 32,"));
        let (sk_r, pk_r, pk_s, enc) = (
            arr(&field(text, "skRm")),
            arr(&field(text, "pkRm")),
            arr(&field(text, "pkSm")),
            arr(&field(text, "enc")),
        );
        assert_eq!(public(&sk_r), pk_r);
        let shared =
            auth_shared_secret(&dh(&sk_r, &enc), &dh(&sk_r, &pk_s), &enc, &pk_r, &pk_s).unwrap();
        assert_eq!(shared.as_slice(), field(text, "shared_secret").as_slice());
        // The vector's encryption 0 has an aad; the wraps' is empty, so open
        // through hpke's context with the vector's aad here.
        let mut ctx =
            hpke::setup_receiver::<hpke::aead::AesGcm256, hpke::kdf::HkdfSha256, AuthDecapped>(
                &OpModeR::Auth(Bound),
                &Decapsulated::new(shared),
                &Bound,
                &field(text, "info"),
            )
            .unwrap();
        assert_eq!(
            ctx.open(&field(text, "ct"), &field(text, "aad")).unwrap(),
            field(text, "pt")
        );
    }

    /// A low-order point gives an all-zero DH result, which is refused.
    #[test]
    fn an_all_zero_dh_result_is_refused() {
        let ok = [9u8; 32];
        assert!(auth_shared_secret(&[0; 32], &ok, &ok, &ok, &ok).is_none());
        assert!(auth_shared_secret(&ok, &[0; 32], &ok, &ok, &ok).is_none());
        assert!(auth_shared_secret(&ok, &ok, &ok, &ok, &ok).is_some());
        // The identity point (u = 0) gives zero for any key.
        assert!(all_zero(&dh(&[0x41; 32], &[0; 32])));
    }

    /// This KEM cannot encapsulate.
    #[test]
    fn it_does_not_encapsulate() {
        assert!(matches!(
            AuthDecapped::encap_with_rng(&Bound, None, &mut crate::wrap::SeedRng::new([1; 32])),
            Err(HpkeError::EncapError)
        ));
    }
}
