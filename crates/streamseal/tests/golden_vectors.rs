//! The golden vectors of `tests/vectors/streamseal/` are reproduced byte for
//! byte from their fixed inputs, and each one opens through the public API
//! without any test seam.
//!
//! Regenerate after a deliberate format change with
//! `STREAMSEAL_BLESS=1 cargo test -p streamseal --test golden_vectors`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::PathBuf;

use serde_json::Value;
use streamseal::bundle::{SealedBundle, open_bundle};
use streamseal::envelope::{SealedPayload, open, open_matching};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, RecipientKind, SecretKey};
use streamseal::kdf::KdfLimits;
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::testing::golden;
use streamseal::wrap::{KeyWrap, unwrap_stream_key, wrap_info};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/streamseal")
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn key32(hex_text: &Value) -> [u8; 32] {
    hex::decode(hex_text.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

#[test]
fn files_are_reproduced_byte_for_byte() {
    let files = golden::files().unwrap();
    if std::env::var_os("STREAMSEAL_BLESS").is_some() {
        std::fs::create_dir_all(dir()).unwrap();
        for (name, text) in &files {
            std::fs::write(dir().join(name), text).unwrap();
        }
    }
    for (name, text) in files {
        let committed = std::fs::read_to_string(dir().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (run with STREAMSEAL_BLESS=1 once)"));
        assert!(committed == text, "{name} drifted from its generator");
    }
}

#[test]
fn envelope_vectors_open() {
    let file = load("envelopes.json");
    let vectors = file["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), golden::sample_slots().len());
    let kinds: std::collections::BTreeSet<String> = vectors
        .iter()
        .map(|v| v["slot"]["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds.len(), 5, "every slot kind has a vector: {kinds:?}");
    for v in vectors {
        let mut ring = Keyring::new(v["rootStreamId"].as_str().unwrap()).unwrap();
        let generation = u32::try_from(v["keyGeneration"].as_u64().unwrap()).unwrap();
        ring.insert(
            generation,
            StreamKey::from_bytes(&key32(&v["streamKeyHex"])),
        )
        .unwrap();
        let slot: Slot = serde_json::from_value(v["slot"].clone()).unwrap();
        let sealed: SealedPayload = serde_json::from_value(v["sealed"].clone()).unwrap();
        let plain = open(&ring, &slot, &sealed).unwrap();
        assert_eq!(
            plain.as_slice(),
            v["plaintext"].as_str().unwrap().as_bytes()
        );
        // The envelope carries exactly the AAD bytes the vector states.
        let aad = streamseal::encoding::decode_base64("aad", &sealed.envelope.aad).unwrap();
        assert_eq!(hex::encode(aad), v["aadHex"].as_str().unwrap());
        // An opener that knows only the kind learns the slot from the AAD.
        let (learned, _) = open_matching(&ring, &sealed, |s| s.kind() == slot.kind()).unwrap();
        assert_eq!(learned, slot);
    }
}

#[test]
fn wrap_vectors_open() {
    let file = load("wraps.json");
    for v in file["vectors"].as_array().unwrap() {
        let kind = RecipientKind::parse(v["recipientKind"].as_str().unwrap());
        let key_id = v["recipientKeyId"].as_str().unwrap();
        let secret = SecretKey::from_bytes(&key32(&v["recipientSecretKeyHex"]));
        assert_eq!(
            secret.public_key(),
            PublicKey::from_base64(v["recipientPublicKey"].as_str().unwrap()).unwrap()
        );
        let me = IdentityKey::from_secret(kind.clone(), KeyId::new(key_id).unwrap(), secret);
        let record: KeyWrap = serde_json::from_value(v["wrap"].clone()).unwrap();
        let root = v["rootStreamId"].as_str().unwrap();
        let key = unwrap_stream_key(root, &record, &[me]).unwrap();
        assert_eq!(*key.to_bytes(), key32(&v["streamKeyHex"]));
        let info = wrap_info(root, record.key_generation, &kind, key_id).unwrap();
        assert_eq!(hex::encode(info), v["infoHex"].as_str().unwrap());
    }
}

#[test]
fn bundle_vectors_open() {
    let file = load("bundles.json");
    for v in file["vectors"].as_array().unwrap() {
        let public = PublicKey::from_base64(v["publicKey"].as_str().unwrap()).unwrap();
        let record: SealedBundle = serde_json::from_value(v["record"].clone()).unwrap();
        let secret = open_bundle(
            &public,
            &record,
            v["passphrase"].as_str().unwrap(),
            &KdfLimits::default(),
        )
        .unwrap();
        assert_eq!(*secret.to_bytes(), key32(&v["secretKeyHex"]));
    }
}

#[test]
fn format_md_worked_examples_match_the_vectors() {
    let format =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("FORMAT.md"))
            .unwrap();
    let find = |file: &str, name: &str| -> Value {
        load(file)["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    let message = find("envelopes.json", "message");
    let wrap = find("wraps.json", "runtime-machine-a");
    let bundle = find("bundles.json", "decomposed-passphrase");
    for quoted in [
        message["sealed"]["ciphertext"].as_str().unwrap(),
        wrap["wrap"]["wrapEnc"].as_str().unwrap(),
        wrap["wrap"]["wrapCt"].as_str().unwrap(),
        wrap["recipientPublicKey"].as_str().unwrap(),
        bundle["record"]["encryptedPrivateBundle"].as_str().unwrap(),
        bundle["publicKey"].as_str().unwrap(),
        bundle["passphraseKdfBytesHex"].as_str().unwrap(),
    ] {
        assert!(format.contains(quoted), "FORMAT.md lacks {quoted}");
    }
    // The hex dumps, with their spacing and comments removed, equal the vectors.
    let squashed: String = format.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(squashed.contains(wrap["infoHex"].as_str().unwrap()));
    assert!(squashed.contains(bundle["aadHex"].as_str().unwrap()));
}

#[test]
fn invocation_vector_opens_and_its_reply_reproduces() {
    use streamseal::sealed::runtime::OpenedInvocation;
    use streamseal::wire::ids::MessageId;
    use streamseal::wire::invocation::Invocation;

    let file = load("invocations.json");
    for v in file["vectors"].as_array().unwrap() {
        let runtime = IdentityKey::from_secret(
            RecipientKind::parse(v["runtimeKeyKind"].as_str().unwrap()),
            KeyId::new(v["runtimeKeyId"].as_str().unwrap()).unwrap(),
            SecretKey::from_bytes(&key32(&v["runtimeSecretKeyHex"])),
        );
        let invocation: Invocation = serde_json::from_value(v["invocation"].clone()).unwrap();
        let opened = OpenedInvocation::open(&invocation, &[runtime]).unwrap();
        assert_eq!(opened.prompt, v["expectedPrompt"].as_str().unwrap());
        let history: Vec<&str> = opened.history.iter().map(|h| h.text.as_str()).collect();
        let expected: Vec<&str> = v["expectedHistory"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(history, expected);
        let id = MessageId::parse(v["replyMessageId"].as_str().unwrap()).unwrap();
        let random = hex::decode(v["replyRandomHex"].as_str().unwrap()).unwrap();
        let body = streamseal::testing::with_fixed_randomness(&random, || {
            opened.seal_reply(&id, v["replyText"].as_str().unwrap())
        })
        .unwrap();
        assert_eq!(serde_json::to_value(&body).unwrap(), v["sealedComplete"]);
    }
}
