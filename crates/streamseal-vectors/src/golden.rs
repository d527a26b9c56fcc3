//! The golden vectors of `tests/vectors/streamseal/`: every output of the
//! format produced from fixed inputs, so the Rust tests and every binding
//! reproduce them byte for byte. FORMAT.md describes the files' shapes.

use serde_json::{Value, json};

use streamseal_crypto::aad;
use streamseal_crypto::bundle::{self, BUNDLE_VERSION};
use streamseal_crypto::envelope::{self, ENVELOPE_VERSION};
use streamseal_crypto::error::{Error, Result};
use streamseal_crypto::hazmat::{self, drawing_exactly};
use streamseal_crypto::identity::{IdentityKey, KeyId, Recipient, RecipientKind, SecretKey};
use streamseal_crypto::kdf::{KdfParams, passphrase_bytes};
use streamseal_crypto::sender::Signer;
use streamseal_crypto::signature;
use streamseal_crypto::slot::{DecisionOption, Slot, StepPhase};
use streamseal_crypto::stream_key::{Keyring, StreamKey};
use streamseal_crypto::wrap;

/// The root stream all vectors use.
pub const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";

/// `n` bytes `start, start+1, ...` (wrapping): readable fixed inputs.
pub fn pattern(start: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| start.wrapping_add(u8::try_from(i % 256).unwrap_or(0)))
        .collect()
}

fn array32(start: u8) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = start.wrapping_add(u8::try_from(i).unwrap_or(0));
    }
    out
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

/// The owner (a user) of the vectors' stream.
pub const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
/// The bot of the vectors' stream.
pub const BOT: &str = "bot_01JD3QB0T0000000000000000B";

/// Who signs a vector: subject, key kind, key id, secret key seed.
pub type SignerSpec = (&'static str, RecipientKind, &'static str, u8);

/// The owner's laptop key (the wraps' `key_owner_laptop`).
pub fn owner_signer() -> SignerSpec {
    (OWNER, RecipientKind::User, "key_owner_laptop", 0x10)
}

/// The runtime's machine A key (the wraps' `machine-a`).
pub fn bot_signer() -> SignerSpec {
    (BOT, RecipientKind::Bot, "machine-a", 0x20)
}

/// The identity key of a signer spec.
pub fn signer_key(spec: &SignerSpec) -> Result<IdentityKey> {
    Ok(IdentityKey::from_secret(
        spec.1.clone(),
        KeyId::new(spec.2)?,
        SecretKey::from_bytes(&array32(spec.3)),
    ))
}

/// One slot of every kind (and the prompt form of a message), with its
/// plaintext and signer.
pub fn sample_slots() -> Vec<(&'static str, Slot, &'static str, SignerSpec)> {
    vec![
        (
            "message",
            Slot::Message {
                stream_id: ROOT.into(),
                message_id: "msg_01JD3QH2A7C4E6G8J0K2M4P6R8".into(),
                author_id: OWNER.into(),
                author_type: "user".into(),
                revision: 1,
            },
            "Ship the release on Thursday?",
            owner_signer(),
        ),
        (
            "message-edited-in-thread",
            Slot::Message {
                stream_id: "stream_01JD3QJ5THREAD00000000000A".into(),
                message_id: "msg_01JD3QJ6B8D0F2H4K6M8P0R2T4".into(),
                author_id: OWNER.into(),
                author_type: "user".into(),
                revision: 3,
            },
            "Édité : « la version finale » ✅",
            owner_signer(),
        ),
        (
            "invocation-prompt",
            Slot::invocation_prompt(ROOT, "msg_01JD3QK7C9E1G3J5M7P9S1V3X5", OWNER, "user", 2),
            "@helper summarise this thread",
            owner_signer(),
        ),
        (
            "bot-reply",
            Slot::BotReply {
                stream_id: ROOT.into(),
                message_id: "msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6".into(),
                author_id: BOT.into(),
                invocation_id: "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7".into(),
            },
            "Here is the summary: three decisions, one open question.",
            bot_signer(),
        ),
        (
            "trace-step-started",
            Slot::TraceStep {
                invocation_id: "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7".into(),
                step_id: "step_01JD3QPA0000000000000001".into(),
                step_type: "tool_call".into(),
                phase: StepPhase::Started,
                message_id: None,
            },
            "search(\"release date\")",
            bot_signer(),
        ),
        (
            "trace-step-completed",
            Slot::TraceStep {
                invocation_id: "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7".into(),
                step_id: "step_01JD3QPA0000000000000001".into(),
                step_type: "message_sent".into(),
                phase: StepPhase::Completed,
                message_id: Some("msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6".into()),
            },
            "3 results",
            bot_signer(),
        ),
        (
            "decision-card",
            Slot::DecisionCard {
                stream_id: ROOT.into(),
                decision_id: "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T".into(),
                invocation_id: "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7".into(),
                runtime_session_id: "session-1".into(),
                options: vec![
                    DecisionOption {
                        id: "approve".into(),
                        tone: "primary".into(),
                    },
                    DecisionOption {
                        id: "reject".into(),
                        tone: "neutral".into(),
                    },
                ],
                allow_note: true,
            },
            "{\"title\":\"Deploy?\",\"body\":\"All checks green.\",\"labels\":{\"approve\":\"Deploy\",\"reject\":\"Wait\"}}",
            bot_signer(),
        ),
        (
            "decision-note",
            Slot::DecisionNote {
                decision_id: "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T".into(),
                option_id: "approve".into(),
                decided_by: OWNER.into(),
            },
            "Go ahead, I am on call.",
            owner_signer(),
        ),
    ]
}

/// `envelopes.json`.
pub fn envelopes() -> Result<Value> {
    let generation = 2u32;
    let key_bytes = array32(0x40);
    let mut ring = Keyring::new(ROOT)?;
    ring.insert(generation, StreamKey::from_bytes(&key_bytes))?;
    let mut vectors = Vec::new();
    for (i, (name, slot, plaintext, spec)) in sample_slots().into_iter().enumerate() {
        let key = signer_key(&spec)?;
        let signer = Signer::new(spec.0, &key)?;
        let step = u8::try_from(i).unwrap_or(0);
        let iv = pattern(0xa0u8.wrapping_add(step), 12);
        let z = pattern(
            0x30u8.wrapping_add(step.wrapping_mul(8)),
            signature::NONCE_LEN,
        );
        let random = [iv.as_slice(), z.as_slice()].concat();
        let sealed = drawing_exactly(&random, |rng| {
            hazmat::seal_envelope_with(rng, &ring, &signer, &slot, plaintext.as_bytes())
        })?;
        let version = u8::try_from(ENVELOPE_VERSION).unwrap_or(u8::MAX);
        let aad_bytes = aad::encode(version, ROOT, generation, &signer.aad_sender(), &slot)?;
        let input = envelope::signature_input(version, &aad_bytes, plaintext.as_bytes())?;
        let signed = drawing_exactly(&z, |rng| hazmat::sign_with(rng, &key, &input))?;
        let iv_array: [u8; 12] = iv.as_slice().try_into().unwrap_or_default();
        vectors.push(json!({
            "name": name,
            "rootStreamId": ROOT,
            "keyGeneration": generation,
            "streamKeyHex": hex::encode(key_bytes),
            "slot": to_json(&slot)?,
            "senderSubject": spec.0,
            "senderKind": spec.1.as_str(),
            "senderKeyId": spec.2,
            "senderSecretKeyHex": hex::encode(array32(spec.3)),
            "senderPublicKey": key.public_key().to_base64(),
            "plaintext": plaintext,
            "randomHex": hex::encode(&random),
            "aadHex": hex::encode(&aad_bytes),
            "signatureInputHex": hex::encode(&input),
            "signatureHex": hex::encode(signed.as_bytes()),
            "commitmentHex": hex::encode(envelope::key_commitment(&key_bytes, version, &iv_array)),
            "sealed": to_json(&sealed)?,
        }));
    }
    Ok(json!({
        "description": "Envelope version 2 of every slot kind: the ciphertext is the key commitment (commitmentHex) then AES-256-GCM over signature || content, with the sender's XEdDSA signature over the AAD and the content. randomHex is what the seal drew: the 12-byte iv, then the signature's 64 bytes Z.",
        "envelopeVersion": ENVELOPE_VERSION,
        "vectors": vectors,
    }))
}

/// `wraps.json`.
pub fn wraps() -> Result<Value> {
    // (name, recipient kind, recipient key id, generation, recipient seed,
    //  sender kind, sender key id, sender seed): generation 0 is made by the
    // runtime's machine A (wrapped to the owner and to itself); generation 3
    // by the owner, after a roll.
    type Case = (
        &'static str,
        RecipientKind,
        &'static str,
        u32,
        u8,
        RecipientKind,
        &'static str,
        u8,
    );
    let cases: [Case; 3] = [
        (
            "owner-user-key",
            RecipientKind::User,
            "key_owner_laptop",
            0,
            0x10,
            RecipientKind::Bot,
            "machine-a",
            0x20,
        ),
        (
            "runtime-machine-a",
            RecipientKind::Bot,
            "machine-a",
            0,
            0x20,
            RecipientKind::Bot,
            "machine-a",
            0x20,
        ),
        (
            "runtime-machine-b-rolled",
            RecipientKind::Bot,
            "machine-b",
            3,
            0x30,
            RecipientKind::User,
            "key_owner_laptop",
            0x10,
        ),
    ];
    let mut vectors = Vec::new();
    for (i, (name, kind, key_id, generation, seed, sender_kind, sender_key_id, sender_seed)) in
        cases.into_iter().enumerate()
    {
        let sender_secret = array32(sender_seed);
        let sender = IdentityKey::from_secret(
            sender_kind.clone(),
            KeyId::new(sender_key_id)?,
            SecretKey::from_bytes(&sender_secret),
        );
        let secret_bytes = array32(seed);
        let me = IdentityKey::from_secret(
            kind.clone(),
            KeyId::new(key_id)?,
            SecretKey::from_bytes(&secret_bytes),
        );
        let stream_key = array32(0x60u8.wrapping_add(u8::try_from(i).unwrap_or(0)));
        let ikm_e = pattern(0xc0u8.wrapping_add(u8::try_from(i).unwrap_or(0)), 32);
        let record = drawing_exactly(&ikm_e, |rng| {
            hazmat::wrap_stream_key_with(
                rng,
                ROOT,
                generation,
                &StreamKey::from_bytes(&stream_key),
                &sender,
                &Recipient::of(&me),
            )
        })?;
        let info = wrap::wrap_info(ROOT, generation, &kind, key_id, &sender_kind, sender_key_id)?;
        vectors.push(json!({
            "name": name,
            "rootStreamId": ROOT,
            "keyGeneration": generation,
            "recipientKind": kind.as_str(),
            "recipientKeyId": key_id,
            "recipientSecretKeyHex": hex::encode(secret_bytes),
            "recipientPublicKey": me.public_key().to_base64(),
            "senderKind": sender_kind.as_str(),
            "senderKeyId": sender_key_id,
            "senderSecretKeyHex": hex::encode(sender_secret),
            "senderPublicKey": sender.public_key().to_base64(),
            "streamKeyHex": hex::encode(stream_key),
            "randomHex": hex::encode(&ikm_e),
            "infoHex": hex::encode(&info),
            "wrap": to_json(&record)?,
        }));
    }
    Ok(json!({
        "description": "Wrap format version 2: HPKE auth-mode key wraps (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM) from the sender's identity key. randomHex is the ephemeral ikmE.",
        "vectors": vectors,
    }))
}

/// `bundles.json`.
pub fn bundles() -> Result<Value> {
    // Every vector is made with `create_bundle`, so at least the creation
    // floor (m = 19 MiB, t = 2, p = 1): the cheapest a real bundle can be.
    let cases: [(&str, &str, KdfParams, u8); 3] = [
        (
            "ascii-passphrase",
            "correct horse battery staple",
            KdfParams::creation_floor(),
            0x70,
        ),
        // NFD input: the KDF must see its NFC form (same as the NFC spelling).
        (
            "decomposed-passphrase",
            "cafe\u{301} cre\u{300}me",
            KdfParams::creation_floor(),
            0x80,
        ),
        (
            "two-lanes",
            "pässwörd",
            KdfParams::argon2id(19_456, 2, 2),
            0x90,
        ),
    ];
    let mut vectors = Vec::new();
    for (i, (name, passphrase, params, seed)) in cases.into_iter().enumerate() {
        let secret_bytes = array32(seed);
        let secret = SecretKey::from_bytes(&secret_bytes);
        let random = pattern(0xd0u8.wrapping_add(u8::try_from(i).unwrap_or(0)), 16 + 12);
        let sealed = drawing_exactly(&random, |rng| {
            hazmat::create_bundle_with(rng, &secret, passphrase, &params)
        })?;
        vectors.push(json!({
            "name": name,
            "passphrase": passphrase,
            "passphraseKdfBytesHex": hex::encode(passphrase_bytes(passphrase).as_slice()),
            "secretKeyHex": hex::encode(secret_bytes),
            "publicKey": secret.public_key().to_base64(),
            "randomHex": hex::encode(&random),
            "aadHex": hex::encode(bundle::bundle_aad(BUNDLE_VERSION, &secret.public_key())),
            "record": to_json(&sealed)?,
        }));
    }
    Ok(json!({
        "description": "Argon2id passphrase bundles of a private key. randomHex is the 16-byte salt then the 12-byte iv.",
        "bundleVersion": BUNDLE_VERSION,
        "vectors": vectors,
    }))
}

/// `invocations.json`: one complete sealed invocation, `sealedContext` in,
/// `sealed-complete` body out.
pub fn invocations() -> Result<Value> {
    use streamseal_sealed::runtime::OpenedInvocation;
    use streamseal_wire::ids::MessageId;
    use streamseal_wire::invocation::Invocation;

    let owner = OWNER;
    let bot = BOT;
    let member = "usr_01JD3QS2E3C4N5D6000000000A";
    let member_secret = array32(0x12);
    let member_key = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("key_member_phone")?,
        SecretKey::from_bytes(&member_secret),
    );
    let invocation_id = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7";
    let source = "msg_01JD3QK7C9E1G3J5M7P9S1V3X5";
    let generation = 1u32;
    let stream_key = array32(0x50);
    let runtime_secret = array32(0x21);
    let runtime = IdentityKey::from_secret(
        RecipientKind::Bot,
        KeyId::new("machine-b")?,
        SecretKey::from_bytes(&runtime_secret),
    );
    let owner_secret = array32(0x11);
    let owner_key = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("key_owner_laptop")?,
        SecretKey::from_bytes(&owner_secret),
    );
    let mut ring = Keyring::new(ROOT)?;
    ring.insert(generation, StreamKey::from_bytes(&stream_key))?;

    // What the owner's client sealed earlier, and the server now serves.
    let mut wrap = drawing_exactly(&pattern(0x31, 32), |rng| {
        hazmat::wrap_stream_key_with(
            rng,
            ROOT,
            generation,
            &StreamKey::from_bytes(&stream_key),
            &owner_key,
            &Recipient::of(&runtime),
        )
    })?;
    wrap.recipient_key_id = None;
    wrap.recipient_kind = None;
    // Each seal draws its iv, then its signature's 64 bytes.
    let seal_random = |start: u8| pattern(start, 12 + signature::NONCE_LEN);
    let history_msg = |i: u8,
                       id: &str,
                       author: &str,
                       key: &IdentityKey,
                       text: &str|
     -> Result<Value> {
        let slot = Slot::Message {
            stream_id: ROOT.into(),
            message_id: id.into(),
            author_id: author.into(),
            author_type: "user".into(),
            revision: 1,
        };
        let signer = Signer::new(author, key)?;
        let sealed = drawing_exactly(&seal_random(0x70 + i * 16), |rng| {
            hazmat::seal_envelope_with(rng, &ring, &signer, &slot, text.as_bytes())
        })?;
        Ok(
            json!({"ciphertext": sealed.ciphertext, "envelope": to_json(&sealed.envelope)?, "role": "user", "sequence": (i + 1).to_string()}),
        )
    };
    let prompt_slot = Slot::invocation_prompt(ROOT, source, owner, "user", 2);
    let prompt = drawing_exactly(&seal_random(0x90), |rng| {
        hazmat::seal_envelope_with(
            rng,
            &ring,
            &Signer::new(owner, &owner_key)?,
            &prompt_slot,
            b"@helper what did we decide about the release?",
        )
    })?;
    let invocation = json!({
        "id": invocation_id,
        "workspaceId": "ws_01JD3Q00000000000000000000",
        "rootStreamId": ROOT,
        "activeStreamId": ROOT,
        "sourceMessageId": source,
        "responseStreamId": ROOT,
        "actor": {"type": "bot", "id": bot, "slug": "helper"},
        "trigger": "mention",
        "requiredCapability": "mentionable",
        "sourceRevision": 2,
        "authorUserId": owner,
        "mentionedActorSlugs": ["helper"],
        "claimToken": "clm_golden_vector_token",
        "claimExpiresAt": "2026-11-21T10:01:00Z",
        "runtimeSessionId": "session-1",
        "metadata": {},
        "sealedContext": {
            "callbackToken": "cbt_golden_vector_token",
            "wraps": [to_json(&wrap)?],
            "history": [
                history_msg(0, "msg_01JD3QH2A7C4E6G8J0K2M4P6R8", owner, &owner_key, "Ship the release on Thursday?")?,
                history_msg(1, "msg_01JD3QJ6B8D0F2H4K6M8P0R2T4", member, &member_key, "Thursday works, after the freeze.")?,
            ],
            "prompt": to_json(&prompt)?,
            "reply": {"keyGeneration": generation, "senderId": bot},
            "trigger": {"messageId": source, "authorName": "Ada", "authorType": "user", "createdAt": "2026-11-21T10:00:00Z"},
        },
    });

    // The runtime's side, through the public flow.
    let parsed: Invocation =
        serde_json::from_value(invocation.clone()).map_err(|e| Error::MalformedJson {
            reason: e.to_string(),
        })?;
    // The runtime pinned the owner's key and accepts it as the key sender.
    let mut trust = streamseal_crypto::trust::TrustStore::new(
        streamseal_crypto::trust::TrustPolicy::TofuWithAlerts,
    );
    let owner_trusted = trust.admit(owner, &Recipient::of(&owner_key))?;
    let mut state = streamseal_sealed::state::StreamState::new(ROOT)?;
    state.set_owner(owner)?;
    state.accept_sender(&owner_trusted)?;
    // The member's key is only the server's word (presented, not pinned).
    let senders = streamseal_crypto::sender::SenderKeys::new(&trust)
        .with_presented(member, &Recipient::of(&member_key));
    let opened = OpenedInvocation::open(
        &parsed,
        &mut state,
        &senders,
        bot,
        std::slice::from_ref(&runtime),
    )?;
    let reply_id = MessageId::parse("msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6")?;
    let reply_text = "We decided: ship on Thursday, after the freeze.";
    let reply_random = seal_random(0xb0);
    let complete = drawing_exactly(&reply_random, |rng| {
        streamseal_sealed::hazmat::seal_reply_with(rng, &opened, &reply_id, reply_text)
    })?;
    let history: Vec<Value> = opened
        .history
        .iter()
        .filter_map(|h| match h {
            streamseal_sealed::runtime::HistoryItem::Opened { entry } => Some(json!({
                "text": entry.text,
                "sealedBy": entry.sealed_by.subject,
                "status": entry.sealed_by.status.as_str(),
            })),
            streamseal_sealed::runtime::HistoryItem::Failed { .. } => None,
        })
        .collect();
    Ok(json!({
        "description": "A claimed sealed invocation: the runtime, which pinned the owner's key (ownerPublicKey) and accepts it as the stream's key sender, and was presented the member's key (memberPublicKey, not pinned), opens sealedContext with its key and seals the reply as botId, signed with its key. replyRandomHex is the reply's iv then its signature's 64 bytes.",
        "vectors": [{
            "name": "mention-with-history",
            "runtimeKeyKind": "bot",
            "runtimeKeyId": "machine-b",
            "runtimeSecretKeyHex": hex::encode(runtime_secret),
            "botId": bot,
            "ownerUserId": owner,
            "ownerKeyKind": "user",
            "ownerKeyId": "key_owner_laptop",
            "ownerSecretKeyHex": hex::encode(owner_secret),
            "ownerPublicKey": owner_key.public_key().to_base64(),
            "memberUserId": member,
            "memberKeyKind": "user",
            "memberKeyId": "key_member_phone",
            "memberSecretKeyHex": hex::encode(member_secret),
            "memberPublicKey": member_key.public_key().to_base64(),
            "expectedPromptStatus": opened.prompt_sealed_by.status.as_str(),
            "streamKeyHex": hex::encode(stream_key),
            "invocation": invocation,
            "expectedPrompt": opened.prompt,
            "expectedHistory": history,
            "replyMessageId": reply_id.as_str(),
            "replyText": reply_text,
            "replyRandomHex": hex::encode(&reply_random),
            "sealedComplete": to_json(&complete)?,
        }],
    }))
}

/// Every golden file: (file name, pretty JSON text with a final newline).
pub fn files() -> Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    for (name, value) in [
        ("envelopes.json", envelopes()?),
        ("wraps.json", wraps()?),
        ("bundles.json", bundles()?),
        ("invocations.json", invocations()?),
    ] {
        let text = serde_json::to_string_pretty(&value).map_err(|e| Error::MalformedJson {
            reason: e.to_string(),
        })?;
        out.push((name, format!("{text}\n")));
    }
    Ok(out)
}
