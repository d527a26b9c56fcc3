//! Issue 20: the open split at its AES-GCM part, for a platform's AES-GCM
//! (WebCrypto in the npm package). `prepare_open` runs every check before
//! decryption; `PendingOpen::finish` verifies the signature over what the
//! platform decrypted. The attacks first: a caller (or a compromised
//! platform path) handing `finish` bytes other than the true decryption, a
//! moved ciphertext refused before any AES-GCM, and a page whose split open
//! differs from the one-call open in any entry.
//!
//! Run with `cargo test -p streamseal --test it split_open::`.

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use proptest::prelude::*;
use proptest::test_runner::Config;
use streamseal::envelope::{open, prepare_open, seal};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::messages::{self, MessageToOpen};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::common::AuthorType;
use streamseal::wire::ids::MessageId;
use zeroize::Zeroizing;

/// The stable code of a refusal.
fn code<E: Into<streamseal::Error>>(error: E) -> String {
    error.into().code().as_str().to_owned()
}

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const AUTHOR: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const KEY: [u8; 32] = [7; 32];

fn slot(message_id: &str, revision: u32) -> Slot {
    Slot::Message {
        stream_id: ROOT.into(),
        message_id: message_id.into(),
        author_id: AUTHOR.into(),
        author_type: "user".into(),
        revision,
    }
}

fn setup() -> (Keyring, IdentityKey, TrustStore) {
    let mut ring = Keyring::new(ROOT).unwrap();
    ring.insert(0, StreamKey::from_bytes(&KEY)).unwrap();
    let me = IdentityKey::generate(RecipientKind::User, KeyId::new("key_1").unwrap()).unwrap();
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    trust.observe(AUTHOR, &Recipient::of(&me)).unwrap();
    (ring, me, trust)
}

/// What a platform's AES-256-GCM (here the `aes-gcm` crate, called directly) decrypts a job to.
fn platform_decrypt(
    key: &[u8; 32],
    iv: &[u8; 12],
    aad: &[u8],
    ciphertext: &[u8],
) -> Option<Vec<u8>> {
    Aes256Gcm::new(&(*key).into())
        .decrypt(
            &Nonce::from(*iv),
            Payload {
                msg: ciphertext,
                aad,
            },
        )
        .ok()
}

proptest! {
    #![proptest_config(Config { cases: 48, failure_persistence: None, ..Config::default() })]

    /// prepare + the platform's AES-GCM + finish gives what `open` gives, and
    /// any other bytes handed to `finish` are SENDER_MISMATCH.
    #[test]
    fn split_open_equals_open_and_finish_checks_the_signature(
        content in proptest::collection::vec(any::<u8>(), 0..3000),
        flip in any::<prop::sample::Index>(),
    ) {
        let (ring, me, trust) = setup();
        let senders = SenderKeys::new(&trust);
        let slot = slot("msg_01JD3R00000000000000000001", 1);
        let sealed = seal(&ring, &Signer::new(AUTHOR, &me).unwrap(), &slot, &content).unwrap();
        let whole = open(&ring, &senders, &slot, &sealed).unwrap();

        let pending = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
        prop_assert_eq!(pending.key_generation(), 0);
        prop_assert_eq!(pending.slot(), &slot);
        let decrypted = platform_decrypt(&KEY, pending.iv(), pending.aad(), pending.ciphertext()).unwrap();
        // Any one bit of the decryption changed: the signature refuses it.
        let mut bent = decrypted.clone();
        let bit = flip.index(bent.len() * 8);
        bent[bit / 8] ^= 1 << (bit % 8);
        let refused = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap().finish(&ring, Zeroizing::new(bent));
        prop_assert_eq!(code(refused.unwrap_err()), "SENDER_MISMATCH");

        let split = pending.finish(&ring, Zeroizing::new(decrypted)).unwrap();
        prop_assert_eq!(&*split.plaintext, &*whole.plaintext);
        prop_assert_eq!(&split.plaintext[..], &content[..]);
        prop_assert_eq!(split.slot, whole.slot);
        prop_assert_eq!(split.key_generation, whole.key_generation);
        prop_assert_eq!(split.sealed_by, whole.sealed_by);
    }
}

#[test]
fn finish_refuses_what_is_not_the_senders_decryption() {
    let (ring, me, trust) = setup();
    let senders = SenderKeys::new(&trust);
    let slot = slot("msg_01JD3R00000000000000000001", 1);
    let sealed = seal(
        &ring,
        &Signer::new(AUTHOR, &me).unwrap(),
        &slot,
        b"pay invoice 42",
    )
    .unwrap();
    let prepare = || prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
    // Too short to hold a signature, empty, and a signature over another content.
    for forged in [vec![0u8; 10], Vec::new()] {
        assert_eq!(
            code(prepare().finish(&ring, Zeroizing::new(forged)).unwrap_err()),
            "SENDER_MISMATCH"
        );
    }
    let pending = prepare();
    let mut decrypted =
        platform_decrypt(&KEY, pending.iv(), pending.aad(), pending.ciphertext()).unwrap();
    decrypted.truncate(64);
    decrypted.extend_from_slice(b"pay invoice 43");
    assert_eq!(
        code(
            pending
                .finish(&ring, Zeroizing::new(decrypted))
                .unwrap_err()
        ),
        "SENDER_MISMATCH"
    );
    // Another key holder (a member sealing as the author under its own key): the platform's
    // AES-GCM opens it, the signature does not.
    let other = IdentityKey::generate(RecipientKind::User, KeyId::new("key_1").unwrap()).unwrap();
    let forged = seal(
        &ring,
        &Signer::new(AUTHOR, &other).unwrap(),
        &slot,
        b"pay invoice 44",
    )
    .unwrap();
    let pending = prepare_open(&ring, &senders, &forged, |s| *s == slot).unwrap();
    let decrypted =
        platform_decrypt(&KEY, pending.iv(), pending.aad(), pending.ciphertext()).unwrap();
    assert_eq!(
        code(
            pending
                .finish(&ring, Zeroizing::new(decrypted))
                .unwrap_err()
        ),
        "SENDER_MISMATCH"
    );
}

#[test]
fn prepare_refuses_before_any_aes_gcm_with_the_codes_of_open() {
    let (ring, me, trust) = setup();
    let senders = SenderKeys::new(&trust);
    let here = slot("msg_01JD3R00000000000000000001", 1);
    let sealed = seal(&ring, &Signer::new(AUTHOR, &me).unwrap(), &here, b"hello").unwrap();
    let elsewhere = slot("msg_01JD3R00000000000000000002", 1);
    let newer = slot("msg_01JD3R00000000000000000001", 2);
    for moved in [elsewhere, newer] {
        let whole = code(open(&ring, &senders, &moved, &sealed).unwrap_err());
        let split = code(prepare_open(&ring, &senders, &sealed, |s| *s == moved).unwrap_err());
        assert_eq!(
            (whole.as_str(), split.as_str()),
            ("AAD_MISMATCH", "AAD_MISMATCH")
        );
    }
    // A keyring without the generation, and one whose key differs (the commitment).
    let empty = Keyring::new(ROOT).unwrap();
    assert_eq!(
        code(prepare_open(&empty, &senders, &sealed, |s| *s == here).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );
    let mut other = Keyring::new(ROOT).unwrap();
    other.insert(0, StreamKey::from_bytes(&[8; 32])).unwrap();
    assert_eq!(
        code(prepare_open(&other, &senders, &sealed, |s| *s == here).unwrap_err()),
        "DECRYPTION_FAILED"
    );
    // An unpinned sender.
    let stranger = TrustStore::new(TrustPolicy::TofuWithAlerts);
    assert_eq!(
        code(
            prepare_open(&ring, &SenderKeys::new(&stranger), &sealed, |s| *s == here).unwrap_err()
        ),
        "UNKNOWN_KEY"
    );
}

#[test]
fn a_page_opened_in_two_steps_equals_the_one_call_open() {
    let (ring, me, trust) = setup();
    let senders = SenderKeys::new(&trust);
    let signer = Signer::new(AUTHOR, &me).unwrap();
    let mut page = Vec::new();
    for i in 0..6u64 {
        let id = MessageId::mint(1_700_000_000_000 + i).unwrap();
        let body =
            messages::seal_message(&ring, &signer, ROOT, &id, &format!("message {i}")).unwrap();
        let message = MessageToOpen {
            id: id.as_str().to_owned(),
            author_id: AUTHOR.into(),
            author_type: AuthorType::from("user"),
            revision: if i == 3 { 2 } else { 1 },
            client_message_id: None,
            sealed: body.sealed,
        };
        page.push(message);
    }
    page.push(page[0].clone()); // a repeat: DUPLICATE_MESSAGE
    let whole: Vec<_> = messages::open_messages_to_open(&ring, &senders, ROOT, &page)
        .into_iter()
        .map(|r| r.map(|m| (m.message_id, m.text, m.sealed_by)).map_err(code))
        .collect();
    let split: Vec<_> = messages::finish_messages(
        messages::prepare_messages(&ring, &senders, ROOT, &page)
            .into_iter()
            .map(|item| {
                let pending = item?;
                let job = pending.envelope();
                let decrypted =
                    platform_decrypt(&KEY, job.iv(), job.aad(), job.ciphertext()).unwrap();
                pending.finish(&ring, Zeroizing::new(decrypted))
            }),
    )
    .into_iter()
    .map(|r| r.map(|m| (m.message_id, m.text, m.sealed_by)).map_err(code))
    .collect();
    assert_eq!(split, whole);
    let codes: Vec<_> = whole
        .iter()
        .map(|r| r.as_ref().err().map_or("opened", String::as_str))
        .collect();
    assert_eq!(
        codes,
        [
            "opened",
            "opened",
            "opened",
            "AAD_MISMATCH",
            "opened",
            "opened",
            "DUPLICATE_MESSAGE"
        ]
    );
}

/// The Ed25519 key a platform verifies under (`signer_ed25519`) verifies
/// every golden envelope's XEdDSA signature with an independent RFC 8032
/// implementation (ed25519-dalek, strict: `s < L`, canonical `R`), and a
/// malleated `s + L` does not.
#[test]
fn the_platform_key_verifies_xeddsa_signatures_with_an_independent_ed25519() {
    use ed25519_dalek::{Signature, VerifyingKey};
    let file = streamseal_vectors::golden::envelopes().unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 8);
    for v in vectors {
        let public =
            streamseal::identity::PublicKey::from_base64(v["senderPublicKey"].as_str().unwrap())
                .unwrap();
        let ed = streamseal::signature::ed25519_public_key(&public).unwrap();
        let key = VerifyingKey::from_bytes(&ed).unwrap();
        let input = hex::decode(v["signatureInputHex"].as_str().unwrap()).unwrap();
        let signature: [u8; 64] = hex::decode(v["signatureHex"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        key.verify_strict(&input, &Signature::from_bytes(&signature))
            .unwrap();
        let mut other = input.clone();
        *other.last_mut().unwrap() ^= 1;
        assert!(
            key.verify_strict(&other, &Signature::from_bytes(&signature))
                .is_err()
        );
        // s + L: the same point, a second encoding; both refuse it.
        let malleated = crate::support::malleated_s_plus_l(signature);
        assert!(
            key.verify_strict(&input, &Signature::from_bytes(&malleated))
                .is_err()
        );
        assert!(
            streamseal::signature::verify(
                &public,
                &input,
                &streamseal::signature::Signature::from_bytes(malleated)
            )
            .is_err()
        );
    }
}

/// An open whose AES-GCM ran elsewhere completes only under the key
/// `prepare_open` checked: a keyring cleared in between refuses it, and so
/// does one given another key of the generation (whose tag differs).
#[test]
fn finish_checks_the_key_is_still_held() {
    let (ring, me, trust) = setup();
    let senders = SenderKeys::new(&trust);
    let slot = slot("msg_01JD3R00000000000000000001", 1);
    let sealed = seal(
        &ring,
        &Signer::new(AUTHOR, &me).unwrap(),
        &slot,
        b"revoked soon",
    )
    .unwrap();
    let pending = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
    let decrypted =
        platform_decrypt(&KEY, pending.iv(), pending.aad(), pending.ciphertext()).unwrap();

    // The same key in another keyring (a clone would share the clearing), then cleared.
    let mut cleared = Keyring::new(ROOT).unwrap();
    cleared.insert(0, StreamKey::from_bytes(&KEY)).unwrap();
    assert_eq!(cleared.key_tag(0).unwrap(), ring.key_tag(0).unwrap());
    cleared.clear();
    let again = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
    assert_eq!(
        code(
            again
                .finish(&cleared, Zeroizing::new(decrypted.clone()))
                .unwrap_err()
        ),
        "UNKNOWN_KEY_GENERATION"
    );
    let mut other = Keyring::new(ROOT).unwrap();
    other.insert(0, StreamKey::from_bytes(&[8; 32])).unwrap();
    assert_ne!(ring.key_tag(0).unwrap(), other.key_tag(0).unwrap());
    assert_eq!(ring.key_tag(0).unwrap(), ring.key_tag(0).unwrap());
    let third = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
    assert_eq!(
        code(
            streamseal::hazmat::finish_open_verified_elsewhere(
                third,
                &other,
                Zeroizing::new(decrypted.clone())
            )
            .unwrap_err()
        ),
        "DECRYPTION_FAILED"
    );
    assert_eq!(
        &*pending
            .finish(&ring, Zeroizing::new(decrypted))
            .unwrap()
            .plaintext,
        b"revoked soon"
    );
}

/// A ciphertext the caller decoded (the npm package, for large ones, with
/// the platform's base64): the same pending open as from the text, the
/// same refusals after decoding, and the core's bound on its length.
#[test]
fn a_ciphertext_decoded_by_the_caller_prepares_as_the_text_does() {
    use streamseal::encoding::decode_base64;
    use streamseal::envelope::{MAX_CIPHERTEXT_LEN, prepare_open_decoded};
    let (ring, me, trust) = setup();
    let senders = SenderKeys::new(&trust);
    let slot = slot("msg_01JD3R00000000000000000001", 1);
    let sealed = seal(
        &ring,
        &Signer::new(AUTHOR, &me).unwrap(),
        &slot,
        &[5; 20_000],
    )
    .unwrap();
    let bytes = decode_base64("ciphertext", &sealed.ciphertext).unwrap();
    let from_text = prepare_open(&ring, &senders, &sealed, |s| *s == slot).unwrap();
    let decoded =
        prepare_open_decoded(&ring, &senders, &sealed.envelope, &bytes, |s| *s == slot).unwrap();
    assert_eq!(decoded.ciphertext(), from_text.ciphertext());
    assert_eq!(decoded.aad(), from_text.aad());
    assert_eq!(decoded.iv(), from_text.iv());
    assert_eq!(
        &decoded.open(&ring).unwrap().plaintext[..],
        &[5; 20_000][..]
    );
    // Moved, bent (commitment), short: the text's codes.
    let other = self::slot("msg_01JD3R00000000000000000002", 1);
    let moved = prepare_open_decoded(&ring, &senders, &sealed.envelope, &bytes, |s| *s == other);
    assert_eq!(code(moved.unwrap_err()), "AAD_MISMATCH");
    let mut bent = bytes.clone();
    bent[0] ^= 1;
    let bent = prepare_open_decoded(&ring, &senders, &sealed.envelope, &bent, |s| *s == slot);
    assert_eq!(code(bent.unwrap_err()), "DECRYPTION_FAILED");
    let short = prepare_open_decoded(&ring, &senders, &sealed.envelope, &bytes[..100], |s| {
        *s == slot
    });
    assert_eq!(code(short.unwrap_err()), "INVALID_LENGTH");
    let huge = vec![0u8; MAX_CIPHERTEXT_LEN + 1];
    let huge = prepare_open_decoded(&ring, &senders, &sealed.envelope, &huge, |s| *s == slot);
    assert_eq!(code(huge.unwrap_err()), "INPUT_TOO_LARGE");
}
