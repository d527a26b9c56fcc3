//! Official public test vectors (`tests/vectors/{wycheproof,hpke,argon2}/`,
//! provenance in `tests/vectors/README.md`) run through the primitives the
//! way the library uses them:
//!
//! - Wycheproof AES-256-GCM through the crate's own AES-GCM wrapper;
//! - Wycheproof X25519 through `x25519-dalek`, and every low-order public key
//!   through the library's HPKE wrap path, which must refuse it;
//! - Wycheproof HKDF-SHA256 through `hkdf` (the version `hpke` uses inside);
//! - RFC 9180 HPKE base and auth mode, X25519 / HKDF-SHA256 / AES-256-GCM,
//!   through `hpke` with the ephemeral key material of the vector, and the
//!   library's key wrap checked to be exactly that auth mode;
//! - RFC 9106 and the reference implementation's Argon2id KATs through
//!   `argon2`, and the KATs also through `streamseal::kdf::derive_key`.
//!
//! Every family asserts its exact case counts and prints them
//! (`cargo test -p streamseal --test it official_vectors:: -- --nocapture`).

use std::convert::Infallible;
use std::path::PathBuf;

use hpke::rand_core::{TryCryptoRng, TryRng};
use hpke::{Deserializable as _, Kem as _, OpModeR, OpModeS, Serializable as _};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use streamseal::ErrorCode;
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::{KdfLimits, KdfParams, derive_key};
use streamseal::stream_key::StreamKey;
use streamseal::wrap::{unwrap_stream_key, wrap_info, wrap_stream_key};

type HpkeKem = hpke::kem::X25519HkdfSha256;
type HpkeKdf = hpke::kdf::HkdfSha256;
type HpkeAead = hpke::aead::AesGcm256;

fn load<T: DeserializeOwned>(relative: &str) -> T {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors")
        .join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap_or_else(|e| panic!("bad hex {text:?}: {e}"))
}

fn unhex32(text: &str) -> [u8; 32] {
    unhex(text)
        .try_into()
        .unwrap_or_else(|v: Vec<u8>| panic!("expected 32 bytes, got {}", v.len()))
}

// ---------------------------------------------------------------------------
// Wycheproof (v1 schema)
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wycheproof<G> {
    algorithm: String,
    number_of_tests: usize,
    test_groups: Vec<G>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AeadGroup {
    #[serde(rename = "type")]
    kind: String,
    key_size: u32,
    iv_size: u32,
    tag_size: u32,
    tests: Vec<AeadCase>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AeadCase {
    tc_id: u32,
    key: String,
    iv: String,
    aad: String,
    msg: String,
    ct: String,
    tag: String,
    result: String,
}

#[derive(Deserialize)]
struct XdhGroup {
    #[serde(rename = "type")]
    kind: String,
    curve: String,
    tests: Vec<XdhCase>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct XdhCase {
    tc_id: u32,
    public: String,
    private: String,
    shared: String,
    result: String,
}

#[derive(Deserialize)]
struct HkdfGroup {
    #[serde(rename = "type")]
    kind: String,
    tests: Vec<HkdfCase>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HkdfCase {
    tc_id: u32,
    ikm: String,
    salt: String,
    info: String,
    size: usize,
    okm: String,
    result: String,
}

#[test]
fn wycheproof_aes_256_gcm() {
    let file: Wycheproof<AeadGroup> = load("wycheproof/aes_gcm_test_k256_iv96.json");
    assert_eq!(file.algorithm, "AES-GCM");
    let (mut total, mut valid, mut invalid) = (0usize, 0usize, 0usize);
    for group in &file.test_groups {
        assert_eq!(group.kind, "AeadTest");
        assert_eq!(
            (group.key_size, group.iv_size, group.tag_size),
            (256, 96, 128)
        );
        for case in &group.tests {
            let id = case.tc_id;
            let key: [u8; 32] = unhex32(&case.key);
            let iv_bytes = unhex(&case.iv);
            // The filter kept only 96-bit-iv groups: every case must have a
            // 12-byte iv (the only length the wrapper takes).
            assert_eq!(iv_bytes.len(), 12, "tcId {id}: iv length");
            let iv: [u8; 12] = iv_bytes.try_into().unwrap();
            let aad = unhex(&case.aad);
            let msg = unhex(&case.msg);
            // Wycheproof's `ct` excludes the tag; the wrapper speaks ct || tag.
            let tag = unhex(&case.tag);
            assert_eq!(tag.len(), 16, "tcId {id}: tag length");
            let mut ct_tag = unhex(&case.ct);
            ct_tag.extend_from_slice(&tag);

            let sealed = hazmat::aes256gcm_seal(&key, &iv, &msg, &aad).unwrap();
            let opened = hazmat::aes256gcm_open(&key, &iv, &ct_tag, &aad);
            match case.result.as_str() {
                "valid" => {
                    assert_eq!(
                        hex::encode(&sealed),
                        hex::encode(&ct_tag),
                        "tcId {id}: seal"
                    );
                    assert_eq!(opened.unwrap(), msg, "tcId {id}: open");
                    valid += 1;
                }
                "invalid" => {
                    let err = opened.expect_err(&format!("tcId {id}: invalid case opened"));
                    assert_eq!(err.code(), ErrorCode::DecryptionFailed, "tcId {id}");
                    // A correct seal of `msg` is not the forged ct || tag.
                    assert_ne!(sealed, ct_tag, "tcId {id}: seal reproduces a forgery");
                    invalid += 1;
                }
                other => panic!("tcId {id}: unexpected result {other:?}"),
            }
            total += 1;
        }
    }
    assert_eq!(total, file.number_of_tests);
    assert_eq!((total, valid, invalid), (66, 39, 27));
    println!(
        "wycheproof aes-256-gcm: {total} cases ({valid} valid, {invalid} invalid) passed \
         through streamseal::hazmat::aes256gcm_seal/open, all 12-byte ivs"
    );
}

#[test]
fn wycheproof_x25519() {
    let file: Wycheproof<XdhGroup> = load("wycheproof/x25519_test.json");
    assert_eq!(file.algorithm, "XDH");
    let (mut total, mut valid, mut acceptable) = (0usize, 0usize, 0usize);
    let (mut low_order_refused, mut others_wrapped) = (0usize, 0usize);
    let wrapped_key = StreamKey::generate().unwrap();
    // Wraps are HPKE auth mode: the sender's own key pair goes in too.
    let sender = IdentityKey::generate(RecipientKind::User, KeyId::new("sender").unwrap()).unwrap();
    let mut low_order_senders_refused = 0usize;
    let genuine_recipient =
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("k").unwrap()).unwrap();
    let genuine = wrap_stream_key(
        "stream_root",
        0,
        &wrapped_key,
        &sender,
        &Recipient::of(&genuine_recipient),
    )
    .unwrap();
    for group in &file.test_groups {
        assert_eq!(group.kind, "XdhComp");
        assert_eq!(group.curve, "curve25519");
        for case in &group.tests {
            let id = case.tc_id;
            let public = unhex32(&case.public);
            let private = unhex32(&case.private);
            let shared = unhex32(&case.shared);
            assert_eq!(
                hex::encode(x25519_dalek::x25519(private, public)),
                case.shared,
                "tcId {id}"
            );
            match case.result.as_str() {
                "valid" => valid += 1,
                "acceptable" => acceptable += 1,
                other => panic!("tcId {id}: unexpected result {other:?}"),
            }

            // The library's wrap path must refuse a public key whose DH output
            // is all zero (RFC 9180 section 7.1.4) and take every other one.
            let recipient = Recipient {
                kind: RecipientKind::Bot,
                key_id: KeyId::new("k").unwrap(),
                public_key: PublicKey::from_bytes(public),
            };
            let wrapped = wrap_stream_key("stream_root", 0, &wrapped_key, &sender, &recipient);
            if shared == [0u8; 32] {
                let err = wrapped.expect_err(&format!("tcId {id}: low-order key wrapped"));
                assert_eq!(err.code(), ErrorCode::InvalidPublicKey, "tcId {id}");
                low_order_refused += 1;
                // Named as the only accepted *sender*, a low-order key makes
                // DH(skR, pkS) all zero: the unwrap refuses, never opens.
                let as_sender = Recipient {
                    kind: RecipientKind::User,
                    key_id: KeyId::new("sender").unwrap(),
                    public_key: PublicKey::from_bytes(public),
                };
                let err = unwrap_stream_key(
                    "stream_root",
                    &genuine,
                    std::slice::from_ref(&genuine_recipient),
                    &[as_sender],
                )
                .expect_err(&format!("tcId {id}: opened as made by a low-order sender"));
                assert_eq!(err.code(), ErrorCode::UntrustedWrap, "tcId {id}");
                low_order_senders_refused += 1;
            } else {
                wrapped.unwrap_or_else(|e| panic!("tcId {id}: wrap refused: {e}"));
                others_wrapped += 1;
            }
            total += 1;
        }
    }
    assert_eq!(total, file.number_of_tests);
    assert_eq!((total, valid, acceptable), (518, 264, 254));
    assert_eq!((low_order_refused, others_wrapped), (31, 487));
    println!(
        "wycheproof x25519: {total} cases ({valid} valid, {acceptable} acceptable) passed \
         through x25519_dalek::x25519"
    );
    println!(
        "wycheproof x25519 via wrap_stream_key: {low_order_refused} low-order public keys \
         refused with INVALID_PUBLIC_KEY, {others_wrapped} others wrapped; \
         the same {low_order_senders_refused} refused as accepted wrap senders (UNTRUSTED_WRAP)"
    );
    assert_eq!(low_order_senders_refused, 31);
}

#[test]
fn wycheproof_hkdf_sha256() {
    type Hkdf = hkdf::Hkdf<sha2::Sha256>;
    let file: Wycheproof<HkdfGroup> = load("wycheproof/hkdf_sha256_test.json");
    assert_eq!(file.algorithm, "HKDF-SHA-256");
    let (mut total, mut valid, mut invalid, mut empty_salt) = (0usize, 0usize, 0usize, 0usize);
    for group in &file.test_groups {
        assert_eq!(group.kind, "HkdfTest");
        for case in &group.tests {
            let id = case.tc_id;
            let ikm = unhex(&case.ikm);
            let salt = unhex(&case.salt);
            let info = unhex(&case.info);
            // An empty salt in the vector is an empty byte string, which RFC
            // 5869 section 2.2 treats as HashLen zeros (HMAC pads keys with
            // zeros); hkdf's `None` means HashLen zeros. All three agree.
            let hk = Hkdf::new(Some(&salt), &ikm);
            let mut okm = vec![0u8; case.size];
            let expanded = hk.expand(&info, &mut okm);
            match case.result.as_str() {
                "valid" => {
                    expanded.unwrap_or_else(|e| panic!("tcId {id}: {e}"));
                    assert_eq!(hex::encode(&okm), case.okm, "tcId {id}");
                    if salt.is_empty() {
                        for other in [Hkdf::new(None, &ikm), Hkdf::new(Some(&[0u8; 32]), &ikm)] {
                            let mut again = vec![0u8; case.size];
                            other.expand(&info, &mut again).unwrap();
                            assert_eq!(again, okm, "tcId {id}: empty salt vs None/zeros");
                        }
                        empty_salt += 1;
                    }
                    valid += 1;
                }
                "invalid" => {
                    assert!(case.size > 255 * 32, "tcId {id}: size {}", case.size);
                    assert!(expanded.is_err(), "tcId {id}: oversize expand succeeded");
                    invalid += 1;
                }
                other => panic!("tcId {id}: unexpected result {other:?}"),
            }
            total += 1;
        }
    }
    assert_eq!(total, file.number_of_tests);
    assert_eq!((total, valid, invalid), (86, 83, 3));
    assert!(empty_salt > 0);
    println!(
        "wycheproof hkdf-sha256: {total} cases ({valid} valid, {invalid} invalid) passed \
         through hkdf::Hkdf<Sha256> ({empty_salt} empty-salt cases also equal None and 32 zero bytes)"
    );
}

// ---------------------------------------------------------------------------
// RFC 9180 HPKE, base mode, DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
struct HpkeEntry {
    mode: u8,
    kem_id: u16,
    kdf_id: u16,
    aead_id: u16,
    info: String,
    #[serde(rename = "ikmE")]
    ikm_e: String,
    #[serde(rename = "skRm")]
    sk_rm: String,
    #[serde(rename = "pkRm")]
    pk_rm: String,
    #[serde(rename = "pkEm")]
    pk_em: String,
    enc: String,
    shared_secret: String,
    /// Auth modes only: the sender's key pair.
    #[serde(rename = "skSm", default)]
    sk_sm: Option<String>,
    #[serde(rename = "pkSm", default)]
    pk_sm: Option<String>,
    encryptions: Vec<HpkeEncryption>,
    exports: Vec<HpkeExport>,
}

#[derive(Deserialize)]
struct HpkeEncryption {
    aad: String,
    ct: String,
    pt: String,
}

#[derive(Deserialize)]
struct HpkeExport {
    exporter_context: String,
    #[serde(rename = "L")]
    len: usize,
    exported_value: String,
}

/// Yields exactly the vector's `ikmE`, and panics if asked for more.
struct FixedRng {
    bytes: Vec<u8>,
    pos: usize,
}

impl FixedRng {
    fn new(bytes: Vec<u8>) -> Self {
        FixedRng { bytes, pos: 0 }
    }

    fn fully_drawn(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

impl TryRng for FixedRng {
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
        let end = self.pos + dst.len();
        assert!(end <= self.bytes.len(), "hpke asked for more than ikmE");
        dst.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
        Ok(())
    }
}

impl TryCryptoRng for FixedRng {}

/// Every encryption of `v` in sequence order on one context each side, then
/// every export on both sides.
fn check_contexts(
    v: &HpkeEntry,
    sender: &mut hpke::aead::AeadCtxS<HpkeAead, HpkeKdf, HpkeKem>,
    receiver: &mut hpke::aead::AeadCtxR<HpkeAead, HpkeKdf, HpkeKem>,
) {
    for (seq, e) in v.encryptions.iter().enumerate() {
        let aad = unhex(&e.aad);
        let pt = unhex(&e.pt);
        let ct = sender.seal(&pt, &aad).unwrap();
        assert_eq!(hex::encode(&ct), e.ct, "encryption {seq}: seal");
        assert_eq!(
            receiver.open(&unhex(&e.ct), &aad).unwrap(),
            pt,
            "encryption {seq}: open"
        );
    }
    for (i, x) in v.exports.iter().enumerate() {
        let context = unhex(&x.exporter_context);
        let mut from_sender = vec![0u8; x.len];
        let mut from_receiver = vec![0u8; x.len];
        sender.export(&context, &mut from_sender).unwrap();
        receiver.export(&context, &mut from_receiver).unwrap();
        assert_eq!(hex::encode(&from_sender), x.exported_value, "export {i}");
        assert_eq!(from_receiver, from_sender, "export {i}: receiver");
    }
}

#[test]
fn rfc9180_hpke_base_x25519_sha256_aes256gcm() {
    let entries: Vec<HpkeEntry> = load("hpke/rfc9180_x25519_sha256_aes256gcm_base.json");
    assert_eq!(entries.len(), 1);
    let v = &entries[0];
    assert_eq!((v.mode, v.kem_id, v.kdf_id, v.aead_id), (0, 32, 1, 2));
    assert_eq!(
        (
            HpkeKem::KEM_ID,
            <HpkeKdf as hpke::kdf::Kdf>::KDF_ID,
            <HpkeAead as hpke::aead::Aead>::AEAD_ID
        ),
        (v.kem_id, v.kdf_id, v.aead_id)
    );
    let info = unhex(&v.info);

    // The recipient: skRm deserializes, and its public key is pkRm.
    let sk_r = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(&unhex(&v.sk_rm)).unwrap();
    let pk_r = HpkeKem::sk_to_pk(&sk_r);
    assert_eq!(hex::encode(pk_r.to_bytes()), v.pk_rm, "pk(skRm) != pkRm");
    assert_eq!(
        <HpkeKem as hpke::Kem>::PublicKey::from_bytes(&unhex(&v.pk_rm)).unwrap(),
        pk_r
    );

    // The sender, with DeriveKeyPair(ikmE) as the ephemeral key.
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (enc, mut sender) = hpke::setup_sender_with_rng::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeS::Base,
        &pk_r,
        &info,
        &mut rng,
    )
    .unwrap();
    assert!(rng.fully_drawn(), "hpke drew fewer bytes than ikmE");
    assert_eq!(hex::encode(enc.to_bytes()), v.enc);
    assert_eq!(v.enc, v.pk_em);

    // The KEM's shared secret, on both sides.
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (ss, _) = HpkeKem::encap_with_rng(&pk_r, None, &mut rng).unwrap();
    assert_eq!(hex::encode(ss.0), v.shared_secret, "encap: shared_secret");
    let ss = HpkeKem::decap(&sk_r, None, &enc).unwrap();
    assert_eq!(hex::encode(ss.0), v.shared_secret, "decap: shared_secret");

    let mut receiver =
        hpke::setup_receiver::<HpkeAead, HpkeKdf, HpkeKem>(&OpModeR::Base, &sk_r, &enc, &info)
            .unwrap();

    check_contexts(v, &mut sender, &mut receiver);

    // The single-shot call the library's wrap uses reproduces encryption 0,
    // and the single-shot open the unwrap uses opens it.
    let first = &v.encryptions[0];
    let aad0 = unhex(&first.aad);
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (enc0, ct0) = hpke::single_shot_seal_with_rng::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeS::Base,
        &pk_r,
        &info,
        &unhex(&first.pt),
        &aad0,
        &mut rng,
    )
    .unwrap();
    assert!(rng.fully_drawn());
    assert_eq!(hex::encode(enc0.to_bytes()), v.enc);
    assert_eq!(hex::encode(&ct0), first.ct);
    let opened = hpke::single_shot_open::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeR::Base,
        &sk_r,
        &enc0,
        &info,
        &ct0,
        &aad0,
    )
    .unwrap();
    assert_eq!(opened, unhex(&first.pt));

    assert_eq!((v.encryptions.len(), v.exports.len()), (257, 3));
    println!(
        "rfc9180 hpke base x25519/hkdf-sha256/aes-256-gcm: 1 entry, enc, pk(skRm) and the \
         shared secret match, {} encryptions sealed and opened, {} exports passed; single_shot_seal_with_rng \
         reproduces encryption 0",
        v.encryptions.len(),
        v.exports.len()
    );
}

// ---------------------------------------------------------------------------
// RFC 9180 HPKE, auth mode (the mode of every key wrap, format version 2)
// ---------------------------------------------------------------------------

#[test]
fn rfc9180_hpke_auth_x25519_sha256_aes256gcm() {
    let entries: Vec<HpkeEntry> = load("hpke/rfc9180_x25519_sha256_aes256gcm_auth.json");
    assert_eq!(entries.len(), 1);
    let v = &entries[0];
    assert_eq!((v.mode, v.kem_id, v.kdf_id, v.aead_id), (2, 32, 1, 2));
    assert_eq!(
        (
            HpkeKem::KEM_ID,
            <HpkeKdf as hpke::kdf::Kdf>::KDF_ID,
            <HpkeAead as hpke::aead::Aead>::AEAD_ID
        ),
        (v.kem_id, v.kdf_id, v.aead_id)
    );
    let info = unhex(&v.info);

    // The recipient and the sender: each secret key's public key is the vector's.
    let sk_r = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(&unhex(&v.sk_rm)).unwrap();
    let pk_r = HpkeKem::sk_to_pk(&sk_r);
    assert_eq!(hex::encode(pk_r.to_bytes()), v.pk_rm, "pk(skRm) != pkRm");
    let sk_sm = v.sk_sm.as_deref().expect("an auth entry has skSm");
    let pk_sm = v.pk_sm.as_deref().expect("an auth entry has pkSm");
    let sk_s = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(&unhex(sk_sm)).unwrap();
    let pk_s = HpkeKem::sk_to_pk(&sk_s);
    assert_eq!(hex::encode(pk_s.to_bytes()), pk_sm, "pk(skSm) != pkSm");
    assert_eq!(
        <HpkeKem as hpke::Kem>::PublicKey::from_bytes(&unhex(pk_sm)).unwrap(),
        pk_s
    );

    // AuthEncap / AuthDecap: the shared secret mixes DH(skS, pkR) in, so
    // the same enc decapsulated without the sender, or as from another
    // sender, gives another secret.
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (ss, enc) = HpkeKem::encap_with_rng(&pk_r, Some((&sk_s, &pk_s)), &mut rng).unwrap();
    assert!(rng.fully_drawn(), "hpke drew fewer bytes than ikmE");
    assert_eq!(hex::encode(enc.to_bytes()), v.enc);
    assert_eq!(v.enc, v.pk_em);
    assert_eq!(
        hex::encode(ss.0),
        v.shared_secret,
        "AuthEncap: shared_secret"
    );
    let ss = HpkeKem::decap(&sk_r, Some(&pk_s), &enc).unwrap();
    assert_eq!(
        hex::encode(ss.0),
        v.shared_secret,
        "AuthDecap: shared_secret"
    );
    let base = HpkeKem::decap(&sk_r, None, &enc).unwrap();
    assert_ne!(
        hex::encode(base.0),
        v.shared_secret,
        "base Decap of an auth enc"
    );
    let other_sender =
        HpkeKem::sk_to_pk(&<HpkeKem as hpke::Kem>::PrivateKey::from_bytes(&[7u8; 32]).unwrap());
    let other = HpkeKem::decap(&sk_r, Some(&other_sender), &enc).unwrap();
    assert_ne!(
        hex::encode(other.0),
        v.shared_secret,
        "AuthDecap as another sender"
    );

    // The contexts: every encryption in order, every export.
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (enc, mut sender) = hpke::setup_sender_with_rng::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeS::Auth((sk_s.clone(), pk_s.clone())),
        &pk_r,
        &info,
        &mut rng,
    )
    .unwrap();
    assert!(rng.fully_drawn(), "hpke drew fewer bytes than ikmE");
    assert_eq!(hex::encode(enc.to_bytes()), v.enc);
    let mut receiver = hpke::setup_receiver::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeR::Auth(pk_s.clone()),
        &sk_r,
        &enc,
        &info,
    )
    .unwrap();
    check_contexts(v, &mut sender, &mut receiver);

    // The single-shot calls the wrap and unwrap make reproduce encryption 0;
    // opened in base mode or as from another sender, it does not open.
    let first = &v.encryptions[0];
    let aad0 = unhex(&first.aad);
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (enc0, ct0) = hpke::single_shot_seal_with_rng::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeS::Auth((sk_s.clone(), pk_s.clone())),
        &pk_r,
        &info,
        &unhex(&first.pt),
        &aad0,
        &mut rng,
    )
    .unwrap();
    assert!(rng.fully_drawn());
    assert_eq!(hex::encode(enc0.to_bytes()), v.enc);
    assert_eq!(hex::encode(&ct0), first.ct);
    let open0 = |mode: &OpModeR<'_, HpkeKem>| {
        hpke::single_shot_open::<HpkeAead, HpkeKdf, HpkeKem>(mode, &sk_r, &enc0, &info, &ct0, &aad0)
    };
    assert_eq!(
        open0(&OpModeR::Auth(pk_s.clone())).unwrap(),
        unhex(&first.pt)
    );
    assert!(
        open0(&OpModeR::Base).is_err(),
        "an auth ciphertext opened in base mode"
    );
    assert!(
        open0(&OpModeR::Auth(other_sender.clone())).is_err(),
        "an auth ciphertext opened as from another sender"
    );

    // The library's wrap is exactly this: with the vector's keys as identity
    // keys and ikmE as its randomness, `wrap_stream_key` gives the vector's
    // enc and the ciphertext hpke's auth mode gives for the v2 wrap info;
    // hpke opens it, and `unwrap_stream_key` opens it as made by the sender.
    let sender_key = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("owner-laptop").unwrap(),
        SecretKey::from_bytes(&unhex32(sk_sm)),
    );
    let recipient_key = IdentityKey::from_secret(
        RecipientKind::Bot,
        KeyId::new("machine-a").unwrap(),
        SecretKey::from_bytes(&unhex32(&v.sk_rm)),
    );
    assert_eq!(hex::encode(sender_key.public_key().as_bytes()), pk_sm);
    assert_eq!(hex::encode(recipient_key.public_key().as_bytes()), v.pk_rm);
    let stream_key = [0x5a_u8; 32];
    let wrap = {
        let ikm_e = unhex(&v.ikm_e);
        let mut rng = FixedRandomness::new(&ikm_e);
        hazmat::wrap_stream_key_with(
            &mut rng,
            "stream_root",
            7,
            &StreamKey::from_bytes(&stream_key),
            &sender_key,
            &Recipient::of(&recipient_key),
        )
    }
    .unwrap();
    let wrap_info_v2 = wrap_info(
        "stream_root",
        7,
        &RecipientKind::Bot,
        "machine-a",
        &RecipientKind::User,
        "owner-laptop",
    )
    .unwrap();
    let mut rng = FixedRng::new(unhex(&v.ikm_e));
    let (enc_w, ct_w) = hpke::single_shot_seal_with_rng::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeS::Auth((sk_s.clone(), pk_s.clone())),
        &pk_r,
        &wrap_info_v2,
        &stream_key,
        b"",
        &mut rng,
    )
    .unwrap();
    let b64 = |bytes: &[u8]| streamseal::encoding::encode_base64(bytes);
    assert_eq!(wrap.wrap_enc, b64(&enc_w.to_bytes()));
    assert_eq!(hex::encode(enc_w.to_bytes()), v.enc);
    assert_eq!(wrap.wrap_ct, b64(&ct_w));
    let opened = hpke::single_shot_open::<HpkeAead, HpkeKdf, HpkeKem>(
        &OpModeR::Auth(pk_s.clone()),
        &sk_r,
        &enc_w,
        &wrap_info_v2,
        &ct_w,
        b"",
    )
    .unwrap();
    assert_eq!(opened, stream_key);
    let unwrapped = unwrap_stream_key(
        "stream_root",
        &wrap,
        std::slice::from_ref(&recipient_key),
        &[Recipient::of(&recipient_key), Recipient::of(&sender_key)],
    )
    .unwrap();
    assert_eq!(unwrapped.key, StreamKey::from_bytes(&stream_key));
    assert_eq!((unwrapped.sender, unwrapped.recipient), (1, 0));

    assert_eq!((v.encryptions.len(), v.exports.len()), (257, 3));
    println!(
        "rfc9180 hpke auth x25519/hkdf-sha256/aes-256-gcm: 1 entry, enc, pk(skRm), pk(skSm) \
         and the AuthEncap/AuthDecap shared secret match, {} encryptions sealed and opened, \
         {} exports passed; single_shot_seal_with_rng reproduces encryption 0; \
         wrap_stream_key is that auth mode under the v2 wrap info",
        v.encryptions.len(),
        v.exports.len()
    );
}

// ---------------------------------------------------------------------------
// Argon2id version 0x13
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
struct Argon2File<T> {
    algorithm: String,
    version: u32,
    tests: Vec<T>,
}

#[derive(Deserialize)]
struct RfcCase {
    #[serde(rename = "tcId")]
    tc_id: u32,
    #[serde(rename = "t_cost")]
    t: u32,
    #[serde(rename = "m_cost_kib")]
    m: u32,
    #[serde(rename = "parallelism")]
    p: u32,
    #[serde(rename = "tag_length")]
    tag_len: usize,
    #[serde(rename = "password_hex")]
    password: String,
    #[serde(rename = "salt_hex")]
    salt: String,
    #[serde(rename = "secret_hex")]
    secret: String,
    #[serde(rename = "ad_hex")]
    ad: String,
    #[serde(rename = "tag_hex")]
    tag: String,
}

#[derive(Deserialize)]
struct PhcCase {
    #[serde(rename = "tcId")]
    tc_id: u32,
    #[serde(rename = "t_cost")]
    t: u32,
    m_cost_log2: u32,
    #[serde(rename = "m_cost_kib")]
    m: u32,
    #[serde(rename = "parallelism")]
    p: u32,
    password: String,
    password_hex: String,
    salt: String,
    salt_hex: String,
    #[serde(rename = "tag_length")]
    tag_len: usize,
    #[serde(rename = "tag_hex")]
    tag: String,
    encoded: String,
}

/// All Argon2id cases in one test, one after another, so that the 256 MiB
/// case never runs alongside another large one.
#[test]
fn argon2id_v13() {
    use argon2::{Algorithm, Argon2, AssociatedData, Params, ParamsBuilder, Version};

    // RFC 9106 section 5.3: with a secret and associated data.
    let rfc: Argon2File<RfcCase> = load("argon2/rfc9106_argon2id.json");
    assert_eq!((rfc.algorithm.as_str(), rfc.version), ("argon2id", 19));
    let mut rfc_passed = 0usize;
    for case in &rfc.tests {
        let id = case.tc_id;
        let secret = unhex(&case.secret);
        let ad = unhex(&case.ad);
        assert!(!secret.is_empty() && !ad.is_empty());
        let params = ParamsBuilder::new()
            .m_cost(case.m)
            .t_cost(case.t)
            .p_cost(case.p)
            .data(AssociatedData::new(&ad).unwrap())
            .output_len(case.tag_len)
            .build()
            .unwrap();
        let argon =
            Argon2::new_with_secret(&secret, Algorithm::Argon2id, Version::V0x13, params).unwrap();
        let mut tag = vec![0u8; case.tag_len];
        argon
            .hash_password_into(&unhex(&case.password), &unhex(&case.salt), &mut tag)
            .unwrap();
        assert_eq!(hex::encode(&tag), case.tag, "RFC 9106 tcId {id}");
        rfc_passed += 1;
    }
    assert_eq!(rfc_passed, 1);
    println!("rfc9106 argon2id: {rfc_passed} case (with secret and ad) passed through argon2");

    // The reference implementation's KATs: raw tag, then the library's KDF.
    let phc: Argon2File<PhcCase> = load("argon2/phc_argon2id_v13_kats.json");
    assert_eq!((phc.algorithm.as_str(), phc.version), ("argon2id", 19));
    let limits = KdfLimits {
        max_m: 262_144,
        min_salt_len: 8,
        ..KdfLimits::default()
    };
    let (mut raw_passed, mut via_library) = (0usize, 0usize);
    for case in &phc.tests {
        let id = case.tc_id;
        assert_eq!(case.m, 1 << case.m_cost_log2, "tcId {id}");
        assert_eq!(
            case.password.as_bytes(),
            unhex(&case.password_hex),
            "tcId {id}"
        );
        assert_eq!(case.salt.as_bytes(), unhex(&case.salt_hex), "tcId {id}");
        assert!(
            case.encoded.starts_with(&format!(
                "$argon2id$v=19$m={},t={},p={}$",
                case.m, case.t, case.p
            )),
            "tcId {id}: {}",
            case.encoded
        );

        let params = Params::new(case.m, case.t, case.p, Some(case.tag_len)).unwrap();
        let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let mut tag = vec![0u8; case.tag_len];
        argon
            .hash_password_into(case.password.as_bytes(), case.salt.as_bytes(), &mut tag)
            .unwrap();
        assert_eq!(hex::encode(&tag), case.tag, "PHC tcId {id}: raw tag");
        raw_passed += 1;

        if case.tag_len == streamseal::kdf::DERIVED_KEY_LEN {
            let key = derive_key(
                &case.password,
                case.salt.as_bytes(),
                &KdfParams::argon2id(case.m, case.t, case.p),
                &limits,
            )
            .unwrap_or_else(|e| panic!("PHC tcId {id}: derive_key: {e}"));
            assert_eq!(hex::encode(*key), case.tag, "PHC tcId {id}: derive_key");
            via_library += 1;
        }
    }
    assert_eq!((raw_passed, via_library), (8, 8));
    println!(
        "phc argon2id v19 kats: {raw_passed} cases passed through argon2 (raw tag), \
         {via_library} also through streamseal::kdf::derive_key"
    );
}
