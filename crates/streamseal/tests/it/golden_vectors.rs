//! The golden vectors of `tests/vectors/streamseal/` are reproduced byte for
//! byte from their fixed inputs, and each one opens through the public API
//! without any test seam.
//!
//! Regenerate after a deliberate format change with
//! `STREAMSEAL_BLESS=1 cargo test -p streamseal --test it golden_vectors::`.

use std::path::PathBuf;

use serde_json::Value;
use streamseal::bundle::{SealedBundle, open_bundle};
use streamseal::envelope::{SealedPayload, open, open_matching};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::KdfLimits;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
use streamseal::wrap::{KeyWrap, unwrap_stream_key, wrap_info};
use streamseal::{CryptoError, ErrorCode};
use streamseal_vectors::golden;

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
        let sender = identity(v, "sender");
        let subject = v["senderSubject"].as_str().unwrap();
        // The opener pinned the sender's key on first use: unverified.
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        trust.observe(subject, &Recipient::of(&sender)).unwrap();
        let keys = SenderKeys::new(&trust);
        let opened = open(&ring, &keys, &slot, &sealed).unwrap();
        assert_eq!(
            opened.plaintext.as_slice(),
            v["plaintext"].as_str().unwrap().as_bytes()
        );
        assert_eq!(opened.sealed_by.subject, subject);
        assert_eq!(opened.sealed_by.status, TrustLevel::Unverified);
        // Sealed again from the sender's key and the drawn randomness: the same bytes.
        let random = hex::decode(v["randomHex"].as_str().unwrap()).unwrap();
        let signer = Signer::new(subject, &sender).unwrap();
        let again = hazmat::seal_envelope_with(
            &mut FixedRandomness::new(&random),
            &ring,
            &signer,
            &slot,
            v["plaintext"].as_str().unwrap().as_bytes(),
        )
        .unwrap();
        assert_eq!(again, sealed, "{}", v["name"]);
        // The envelope carries exactly the AAD bytes the vector states, and
        // the ciphertext starts with its key commitment.
        let aad = streamseal::encoding::decode_base64("aad", &sealed.envelope.aad).unwrap();
        assert_eq!(hex::encode(&aad), v["aadHex"].as_str().unwrap());
        let ciphertext =
            streamseal::encoding::decode_base64("ciphertext", &sealed.ciphertext).unwrap();
        assert_eq!(
            hex::encode(&ciphertext[..32]),
            v["commitmentHex"].as_str().unwrap()
        );
        let input =
            streamseal::envelope::signature_input(2, &aad, opened.plaintext.as_slice()).unwrap();
        assert_eq!(
            hex::encode(&input),
            v["signatureInputHex"].as_str().unwrap()
        );
        let signature: [u8; 64] = hex::decode(v["signatureHex"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        streamseal::signature::verify(
            &sender.public_key(),
            &input,
            &streamseal::signature::Signature::from_bytes(signature),
        )
        .unwrap();
        // An opener that knows only the kind learns the slot from the AAD.
        let learned = open_matching(&ring, &keys, &sealed, |s| s.kind() == slot.kind()).unwrap();
        assert_eq!(learned.slot, slot);
        // An opener that pins another key for the sender refuses it.
        let mut other_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let impostor = IdentityKey::from_secret(
            sender.kind().clone(),
            sender.key_id().clone(),
            SecretKey::from_bytes(&[0x99; 32]),
        );
        other_trust
            .observe(subject, &Recipient::of(&impostor))
            .unwrap();
        let refused = open(&ring, &SenderKeys::new(&other_trust), &slot, &sealed);
        assert_eq!(refused.unwrap_err().code(), ErrorCode::SenderMismatch);
    }
}

/// The identity key a vector names by `{prefix}Kind` (`{prefix}KeyKind` for
/// the owner's), `{prefix}KeyId`, `{prefix}SecretKeyHex`, checked against
/// `{prefix}PublicKey`.
fn identity(v: &Value, prefix: &str) -> IdentityKey {
    let kind = v
        .get(format!("{prefix}Kind"))
        .or_else(|| v.get(format!("{prefix}KeyKind")))
        .and_then(Value::as_str)
        .unwrap();
    let kind = RecipientKind::parse(kind);
    let key_id = KeyId::new(v[format!("{prefix}KeyId")].as_str().unwrap()).unwrap();
    let secret = SecretKey::from_bytes(&key32(&v[format!("{prefix}SecretKeyHex")]));
    assert_eq!(
        secret.public_key(),
        PublicKey::from_base64(v[format!("{prefix}PublicKey")].as_str().unwrap()).unwrap(),
        "{prefix}PublicKey"
    );
    IdentityKey::from_secret(kind, key_id, secret)
}

#[test]
fn wrap_vectors_reproduce_and_open_from_their_sender() {
    let file = load("wraps.json");
    let vectors = file["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 3);
    for v in vectors {
        let me = identity(v, "recipient");
        let sender = identity(v, "sender");
        let record: KeyWrap = serde_json::from_value(v["wrap"].clone()).unwrap();
        let root = v["rootStreamId"].as_str().unwrap();
        let generation = u32::try_from(v["keyGeneration"].as_u64().unwrap()).unwrap();
        assert_eq!(record.key_generation, generation);
        let stream_key = StreamKey::from_bytes(&key32(&v["streamKeyHex"]));

        // Made again from the sender's key and the drawn ikmE: the same bytes.
        let random = hex::decode(v["randomHex"].as_str().unwrap()).unwrap();
        let again = hazmat::wrap_stream_key_with(
            &mut FixedRandomness::new(&random),
            root,
            generation,
            &stream_key,
            &sender,
            &Recipient::of(&me),
        )
        .unwrap();
        assert_eq!(again, record, "{}", v["name"]);

        // Opened by the recipient, accepting that sender (among others).
        let stranger = IdentityKey::from_secret(
            sender.kind().clone(),
            sender.key_id().clone(),
            SecretKey::from_bytes(&[0x99; 32]),
        );
        let senders = [Recipient::of(&stranger), Recipient::of(&sender)];
        let opened = unwrap_stream_key(root, &record, std::slice::from_ref(&me), &senders).unwrap();
        assert!(opened.key == stream_key);
        assert_eq!((opened.sender, opened.recipient), (1, 0));
        // Presented as made by anyone else, it does not open.
        let refused: Result<_, CryptoError> =
            unwrap_stream_key(root, &record, std::slice::from_ref(&me), &senders[..1]);
        assert_eq!(refused.unwrap_err().code(), ErrorCode::UntrustedWrap);

        let info = wrap_info(
            root,
            generation,
            me.kind(),
            me.key_id().as_str(),
            sender.kind(),
            sender.key_id().as_str(),
        )
        .unwrap();
        assert_eq!(hex::encode(info), v["infoHex"].as_str().unwrap());
        assert_eq!(v["senderKind"].as_str().unwrap(), sender.kind().as_str());
        assert_eq!(v["recipientKind"].as_str().unwrap(), me.kind().as_str());
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
        message["signatureHex"].as_str().unwrap(),
        message["commitmentHex"].as_str().unwrap(),
        message["senderPublicKey"].as_str().unwrap(),
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
    use streamseal::sealed::runtime::{HistoryItem, OpenedInvocation};
    use streamseal::sealed::state::StreamState;
    use streamseal::wire::ids::MessageId;
    use streamseal::wire::invocation::Invocation;

    let file = load("invocations.json");
    for v in file["vectors"].as_array().unwrap() {
        let runtime = IdentityKey::from_secret(
            RecipientKind::parse(v["runtimeKeyKind"].as_str().unwrap()),
            KeyId::new(v["runtimeKeyId"].as_str().unwrap()).unwrap(),
            SecretKey::from_bytes(&key32(&v["runtimeSecretKeyHex"])),
        );
        let owner_key = identity(v, "owner");
        let owner = v["ownerUserId"].as_str().unwrap();
        let bot = v["botId"].as_str().unwrap();
        let invocation: Invocation = serde_json::from_value(v["invocation"].clone()).unwrap();
        // The runtime pinned the owner's key and accepts it as key sender.
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let owner_trusted = trust.admit(owner, &Recipient::of(&owner_key)).unwrap();
        let member = identity(v, "member");
        let member_id = v["memberUserId"].as_str().unwrap();
        let fresh = || {
            let mut state = StreamState::new(invocation.root_stream_id.as_str()).unwrap();
            state.set_owner(owner).unwrap();
            state
        };
        // A runtime that does not accept the owner's key admits no generation.
        let mut unaccepting = fresh();
        let refused = OpenedInvocation::open(
            &invocation,
            &mut unaccepting,
            &SenderKeys::new(&trust),
            bot,
            std::slice::from_ref(&runtime),
        );
        assert_eq!(refused.unwrap_err().code(), ErrorCode::UntrustedWrap);
        let mut state = fresh();
        state.accept_sender(&owner_trusted).unwrap();
        let senders = SenderKeys::new(&trust).with_presented(member_id, &Recipient::of(&member));
        let opened = OpenedInvocation::open(
            &invocation,
            &mut state,
            &senders,
            bot,
            std::slice::from_ref(&runtime),
        )
        .unwrap();
        assert_eq!(
            opened.prompt_sealed_by.status.as_str(),
            v["expectedPromptStatus"].as_str().unwrap()
        );
        assert_eq!(opened.wraps().admitted.len(), 1);
        assert_eq!(opened.wraps().admitted[0].sender, owner);
        assert!(state.was_acted_on(&invocation.source_message_id, invocation.source_revision));
        assert_eq!(opened.prompt, v["expectedPrompt"].as_str().unwrap());
        let history: Vec<Value> = opened
            .history
            .iter()
            .map(|h| match h {
                HistoryItem::Opened { entry } => serde_json::json!({
                    "text": entry.text,
                    "sealedBy": entry.sealed_by.subject,
                    "status": entry.sealed_by.status.as_str(),
                }),
                HistoryItem::Failed { code, .. } => panic!("history item failed: {code}"),
            })
            .collect();
        assert_eq!(Value::from(history), v["expectedHistory"]);
        let id = MessageId::parse(v["replyMessageId"].as_str().unwrap()).unwrap();
        let random = hex::decode(v["replyRandomHex"].as_str().unwrap()).unwrap();
        let body = streamseal::sealed::hazmat::seal_reply_with(
            &mut FixedRandomness::new(&random),
            &opened,
            &id,
            v["replyText"].as_str().unwrap(),
        )
        .unwrap();
        assert_eq!(serde_json::to_value(&body).unwrap(), v["sealedComplete"]);
    }
}
