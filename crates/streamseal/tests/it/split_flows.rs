//! Issue 20: the sealed flows that open one envelope (a trace step, a
//! decision card, a decision answer), split at their AES-GCM part like
//! `split_open` (a platform's AES-GCM, WebCrypto in the npm package, runs in
//! between). The attacks first: a moved step, card or note refused before
//! any AES-GCM with the code of the one-call open; bytes other than the true
//! decryption handed to `finish`; a step signed by another bot, whose
//! signature verifies, refused after decryption on every completion path
//! (including the hazmat one that trusts the platform's Ed25519); a key
//! cleared in between. And the split open equals the one-call open.
//!
//! Run with `cargo test -p streamseal --test it split_flows::`.

use std::collections::BTreeMap;

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use proptest::prelude::*;
use proptest::test_runner::Config;
use streamseal::envelope::{PendingOpen, PendingSeal, open, seal};
use streamseal::hazmat::{FixedRandomness, prepare_seal_with, seal_envelope_with};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionCardContent, open_decision_answer, open_decision_card,
    prepare_decision_answer, prepare_decision_card, prepare_seal_decision_note, seal_decision_card,
    seal_decision_note,
};
use streamseal::sealed::hazmat::finish_verified_elsewhere;
use streamseal::sealed::messages::prepare_seal_message;
use streamseal::sealed::runtime::{StepPlacement, open_step, prepare_step};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::{DecisionOption, Slot, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::StepType;
use zeroize::Zeroizing;

use crate::support::resolved;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const KEY: [u8; 32] = [9; 32];
const BOT: &str = "bot_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const OTHER_BOT: &str = "bot_01JD3QF0Z9Y8X7W6V5T4S3R2Q2";
const USER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const INV: &str = "inv_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";

fn code<E: Into<streamseal::Error>>(error: E) -> String {
    error.into().code().as_str().to_owned()
}

/// A keyring of generation 0, the bot's and the user's keys, another bot's,
/// all pinned in the trust store.
struct Fixture {
    ring: Keyring,
    bot: IdentityKey,
    other_bot: IdentityKey,
    user: IdentityKey,
    trust: TrustStore,
}

fn fixture() -> Fixture {
    let mut ring = Keyring::new(ROOT).unwrap();
    ring.insert(0, StreamKey::from_bytes(&KEY)).unwrap();
    let key = |kind| IdentityKey::generate(kind, KeyId::new("key_1").unwrap()).unwrap();
    let (bot, other_bot, user) = (
        key(RecipientKind::Bot),
        key(RecipientKind::Bot),
        key(RecipientKind::User),
    );
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    trust.observe(BOT, &Recipient::of(&bot)).unwrap();
    trust
        .observe(OTHER_BOT, &Recipient::of(&other_bot))
        .unwrap();
    trust.observe(USER, &Recipient::of(&user)).unwrap();
    Fixture {
        ring,
        bot,
        other_bot,
        user,
        trust,
    }
}

/// What a platform's AES-256-GCM (the `aes-gcm` crate, called directly)
/// decrypts a pending envelope to, under `key`.
fn platform_decrypt(key: &[u8; 32], pending: &PendingOpen) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(
        Aes256Gcm::new(&(*key).into())
            .decrypt(
                &Nonce::from(*pending.iv()),
                Payload {
                    msg: pending.ciphertext(),
                    aad: pending.aad(),
                },
            )
            .unwrap(),
    )
}

const STEP_TYPE: StepType = StepType::ToolCall;

fn step_slot(phase: StepPhase) -> Slot {
    Slot::TraceStep {
        invocation_id: INV.into(),
        step_id: "step_1".into(),
        step_type: STEP_TYPE.as_str().into(),
        phase,
        message_id: None,
    }
}

fn placement(phase: StepPhase) -> StepPlacement<'static> {
    StepPlacement {
        invocation_id: INV,
        bot_id: BOT,
        step_id: "step_1",
        step_type: &STEP_TYPE,
        phase,
        message_id: None,
    }
}

#[test]
fn a_step_split_at_aes_gcm_is_the_step_and_refuses_every_move_and_forgery() {
    let fx = fixture();
    let senders = SenderKeys::new(&fx.trust);
    let signer = Signer::new(BOT, &fx.bot).unwrap();
    let sealed = seal(
        &fx.ring,
        &signer,
        &step_slot(StepPhase::Started),
        b"calling the tool",
    )
    .unwrap();

    // The split open equals the one-call open.
    let whole = open_step(&fx.ring, &senders, placement(StepPhase::Started), &sealed).unwrap();
    let pending = prepare_step(&fx.ring, &senders, placement(StepPhase::Started), &sealed).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    let split = pending.finish(&fx.ring, decrypted).unwrap();
    assert_eq!(split.text, "calling the tool");
    assert_eq!((split.text, split.sealed_by), (whole.text, whole.sealed_by));

    // Moved to the completed phase: refused before any AES-GCM, as the one-call open does.
    let moved = prepare_step(&fx.ring, &senders, placement(StepPhase::Completed), &sealed);
    assert_eq!(code(moved.unwrap_err()), "AAD_MISMATCH");
    assert_eq!(
        code(open_step(&fx.ring, &senders, placement(StepPhase::Completed), &sealed).unwrap_err()),
        "AAD_MISMATCH"
    );

    // Bytes that are not the sender's decryption: the signature refuses them.
    let pending = prepare_step(&fx.ring, &senders, placement(StepPhase::Started), &sealed).unwrap();
    let mut bent = platform_decrypt(&KEY, pending.envelope());
    let last = bent.len() - 1;
    bent[last] ^= 1;
    assert_eq!(
        code(pending.finish(&fx.ring, bent).unwrap_err()),
        "SENDER_MISMATCH"
    );

    // Another bot's step, validly signed by that bot: the step's bot is checked
    // after decryption, on both completions, the hazmat one included.
    let theirs = seal(
        &fx.ring,
        &Signer::new(OTHER_BOT, &fx.other_bot).unwrap(),
        &step_slot(StepPhase::Started),
        b"not the invoked bot",
    )
    .unwrap();
    let pending = prepare_step(&fx.ring, &senders, placement(StepPhase::Started), &theirs).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    assert_eq!(
        code(pending.finish(&fx.ring, decrypted).unwrap_err()),
        "UNEXPECTED_AUTHOR"
    );
    let pending = prepare_step(&fx.ring, &senders, placement(StepPhase::Started), &theirs).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    assert_eq!(
        code(finish_verified_elsewhere(pending, &fx.ring, decrypted).unwrap_err()),
        "UNEXPECTED_AUTHOR"
    );
    let pending = prepare_step(&fx.ring, &senders, placement(StepPhase::Started), &theirs).unwrap();
    assert_eq!(
        code(pending.open(&fx.ring).unwrap_err()),
        "UNEXPECTED_AUTHOR"
    );
}

fn card_fixture(fx: &Fixture) -> (CreateDecisionRequest, DecisionCardContent) {
    let id = DecisionId::mint(1_700_000_000_000).unwrap();
    let content = DecisionCardContent {
        title: "Deploy?".into(),
        body: "All checks are green.".into(),
        labels: BTreeMap::from([("go".into(), "Deploy".into()), ("no".into(), "Wait".into())]),
    };
    let placement = CardPlacement {
        stream_id: ROOT,
        decision_id: &id,
        runtime_session_id: "sess-1",
        invocation_id: INV,
    };
    let options = vec![
        DecisionOption {
            id: "go".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "no".into(),
            tone: "secondary".into(),
        },
    ];
    let card = seal_decision_card(
        &fx.ring,
        &Signer::new(BOT, &fx.bot).unwrap(),
        placement,
        options,
        true,
        &content,
    )
    .unwrap();
    (card, content)
}

#[test]
fn a_card_split_at_aes_gcm_is_the_card_and_refuses_moved_and_restyled_cards() {
    let fx = fixture();
    let senders = SenderKeys::new(&fx.trust);
    let (card, content) = card_fixture(&fx);

    let whole = open_decision_card(&fx.ring, &senders, ROOT, &card).unwrap();
    let pending = prepare_decision_card(&fx.ring, &senders, ROOT, &card).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    let split = pending.finish(&fx.ring, decrypted).unwrap();
    assert_eq!(split.content, content);
    assert_eq!(split, whole);

    // Posted to another stream, or its clear options restyled by the server:
    // refused before AES-GCM, with the one-call open's code.
    let mut restyled = card.clone();
    restyled.options[1].tone = "primary".into();
    for (stream, card) in [("stream_elsewhere", &card), (ROOT, &restyled)] {
        let split = prepare_decision_card(&fx.ring, &senders, stream, card).unwrap_err();
        let whole = open_decision_card(&fx.ring, &senders, stream, card).unwrap_err();
        assert_eq!(
            (code(split), code(whole)),
            ("AAD_MISMATCH".into(), "AAD_MISMATCH".into())
        );
    }
    // Not sealed at all.
    let mut bare = card.clone();
    bare.sealed = None;
    assert_eq!(
        code(prepare_decision_card(&fx.ring, &senders, ROOT, &bare).unwrap_err()),
        "INVALID_FIELD"
    );

    // The decryption swapped for another card's (same slot, other content): refused.
    let pending = prepare_decision_card(&fx.ring, &senders, ROOT, &card).unwrap();
    let mut forged = platform_decrypt(&KEY, pending.envelope()).to_vec();
    forged.truncate(64);
    forged.extend_from_slice(br#"{"title":"Deploy now","body":"","labels":{}}"#);
    assert_eq!(
        code(
            pending
                .finish(&fx.ring, Zeroizing::new(forged))
                .unwrap_err()
        ),
        "SENDER_MISMATCH"
    );

    // The keyring cleared between the two steps: the open in flight is refused.
    let pending = prepare_decision_card(&fx.ring, &senders, ROOT, &card).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    let mut cleared = fx.ring.clone();
    cleared.clear();
    assert_eq!(
        code(pending.finish(&cleared, decrypted).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );
}

#[test]
fn an_answer_split_at_aes_gcm_is_the_answer_and_refuses_what_the_server_forges() {
    let mut fx = fixture();
    let senders = SenderKeys::new(&fx.trust);
    let (card, _) = card_fixture(&fx);
    let decision = card.decision_id.clone();
    let user = Signer::new(USER, &fx.user).unwrap();
    let note = seal_decision_note(&fx.ring, &user, &decision, "go", "ship it").unwrap();
    let event = resolved(&decision, "go", USER, Some(&note));

    let whole = open_decision_answer(&fx.ring, &senders, &card, &event).unwrap();
    let pending = prepare_decision_answer(&fx.ring, &senders, &card, &event).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    let split = pending.finish(&fx.ring, decrypted).unwrap();
    assert_eq!(
        (split.option_id.as_str(), split.note.as_str()),
        ("go", "ship it")
    );
    assert_eq!(split, whole);

    // What the server can forge, each refused before AES-GCM with the one-call code:
    let forged = [
        // the note moved to the other option,
        (resolved(&decision, "no", USER, Some(&note)), "AAD_MISMATCH"),
        // to another decider,
        (resolved(&decision, "go", BOT, Some(&note)), "AAD_MISMATCH"),
        // an option the card does not have, no note, another decision.
        (
            resolved(&decision, "maybe", USER, Some(&note)),
            "UNPROVEN_DECISION_ANSWER",
        ),
        (
            resolved(&decision, "go", USER, None),
            "UNPROVEN_DECISION_ANSWER",
        ),
        (
            resolved("dreq_other", "go", USER, Some(&note)),
            "UNPROVEN_DECISION_ANSWER",
        ),
    ];
    for (event, expected) in &forged {
        let split = prepare_decision_answer(&fx.ring, &senders, &card, event).unwrap_err();
        let whole = open_decision_answer(&fx.ring, &senders, &card, event).unwrap_err();
        assert_eq!(
            (code(split), code(whole)),
            (expected.to_string(), expected.to_string())
        );
    }

    // Another key holder (a member with a user key of the same id) sealing the
    // user's note: AES-GCM opens it, the signature does not.
    let other = IdentityKey::generate(RecipientKind::User, KeyId::new("key_1").unwrap()).unwrap();
    let as_user = seal_decision_note(
        &fx.ring,
        &Signer::new(USER, &other).unwrap(),
        &decision,
        "go",
        "forged",
    )
    .unwrap();
    let event = resolved(&decision, "go", USER, Some(&as_user));
    let pending = prepare_decision_answer(&fx.ring, &senders, &card, &event).unwrap();
    let decrypted = platform_decrypt(&KEY, pending.envelope());
    assert_eq!(
        code(pending.finish(&fx.ring, decrypted).unwrap_err()),
        "SENDER_MISMATCH"
    );

    // A newer generation held: the old note is a replay, refused before AES-GCM.
    fx.ring.insert(1, StreamKey::from_bytes(&[10; 32])).unwrap();
    let event = resolved(&decision, "go", USER, Some(&note));
    let senders = SenderKeys::new(&fx.trust);
    assert_eq!(
        code(prepare_decision_answer(&fx.ring, &senders, &card, &event).unwrap_err()),
        "STALE_KEY_GENERATION"
    );
}

/// What a platform's AES-256-GCM (the `aes-gcm` crate) encrypts a pending
/// seal's input to.
fn platform_encrypt(key: &[u8; 32], pending: &PendingSeal) -> Vec<u8> {
    Aes256Gcm::new(&(*key).into())
        .encrypt(
            &Nonce::from(*pending.iv()),
            Payload {
                msg: pending.aead_input(),
                aad: pending.aad(),
            },
        )
        .unwrap()
}

proptest! {
    #![proptest_config(Config { cases: 32, failure_persistence: None, ..Config::default() })]

    /// A seal split at its AES-GCM (prepare, the platform encrypting, finish)
    /// is, byte for byte, the one-call seal drawing the same randomness; it
    /// opens; and a flow's seal (a message) is its one-call body.
    #[test]
    fn a_seal_split_at_aes_gcm_is_the_one_call_seal(
        content in proptest::collection::vec(any::<u8>(), 0..3000),
        randomness in proptest::collection::vec(any::<u8>(), 76),
    ) {
        let fx = fixture();
        let signer = Signer::new(USER, &fx.user).unwrap();
        let slot = Slot::Message {
            stream_id: ROOT.into(),
            message_id: "msg_01JD3R00000000000000000001".into(),
            author_id: USER.into(),
            author_type: "user".into(),
            revision: 1,
        };
        let whole = seal_envelope_with(&mut FixedRandomness::new(&randomness), &fx.ring, &signer, &slot, &content).unwrap();
        let pending = prepare_seal_with(&mut FixedRandomness::new(&randomness), &fx.ring, &signer, &slot, &content).unwrap();
        prop_assert_eq!(pending.key_generation(), 0);
        prop_assert_eq!(&pending.aead_input()[64..], &content[..]);
        let encrypted = platform_encrypt(&KEY, &pending);
        let split = pending.finish(&fx.ring, &encrypted).unwrap();
        prop_assert_eq!(&split, &whole);
        let opened = open(&fx.ring, &SenderKeys::new(&fx.trust), &slot, &split).unwrap();
        prop_assert_eq!(&opened.plaintext[..], &content[..]);
    }
}

#[test]
fn a_split_seal_refuses_the_plaintext_passed_through_a_wrong_length_and_a_key_gone_meanwhile() {
    let fx = fixture();
    let signer = Signer::new(USER, &fx.user).unwrap();
    let id = MessageId::parse("msg_01JD3R00000000000000000001").unwrap();
    let prepare =
        || prepare_seal_message(&fx.ring, &signer, ROOT, &id, "the launch code is 7216").unwrap();

    // A glue handing back the input (plus a tag's worth of bytes) would put
    // the text on the wire in the clear: refused.
    let pending = prepare();
    let mut passthrough = pending.seal().aead_input().to_vec();
    passthrough.extend_from_slice(&[0; 16]);
    assert_eq!(
        code(pending.finish(&fx.ring, &passthrough).unwrap_err()),
        "INVALID_FIELD"
    );
    // Without its tag, or with a byte more.
    for cut in [0usize, 16] {
        let pending = prepare();
        let mut encrypted = platform_encrypt(&KEY, pending.seal());
        encrypted.truncate(encrypted.len() - cut);
        if cut == 0 {
            encrypted.push(0);
        }
        assert_eq!(
            code(pending.finish(&fx.ring, &encrypted).unwrap_err()),
            "INVALID_LENGTH"
        );
    }
    // The platform's output: a message body that opens to the text, signed by the user.
    let pending = prepare();
    let encrypted = platform_encrypt(&KEY, pending.seal());
    let body = pending.finish(&fx.ring, &encrypted).unwrap();
    assert_eq!(body.client_message_id.as_deref(), Some(id.as_str()));
    let slot = Slot::Message {
        stream_id: ROOT.into(),
        message_id: id.as_str().into(),
        author_id: USER.into(),
        author_type: "user".into(),
        revision: 1,
    };
    let opened = open(
        &fx.ring,
        &SenderKeys::new(&fx.trust),
        &slot,
        body.sealed.as_ref().unwrap(),
    )
    .unwrap();
    assert_eq!(&opened.plaintext[..], b"the launch code is 7216");

    // Encrypted here after the keyring was cleared, or given another key of
    // the generation: the commitment names the key of prepare time, refused.
    let pending = prepare();
    let mut replaced = Keyring::new(ROOT).unwrap();
    replaced.insert(0, StreamKey::from_bytes(&[3; 32])).unwrap();
    assert_eq!(
        code(pending.encrypt(&replaced).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );

    // The seal counts against the generation's budget when prepared.
    let mut ring = fx.ring.clone();
    ring.lower_seal_budget(ring.seal_count(0) + 1);
    let note = prepare_seal_decision_note(&ring, &signer, "dreq_1", "go", "fine").unwrap();
    assert_eq!(
        code(prepare_seal_decision_note(&ring, &signer, "dreq_1", "go", "fine").unwrap_err()),
        "SEAL_BUDGET_EXHAUSTED"
    );
    assert!(note.encrypt(&ring).is_ok());

    // Finished with another stream's keyring (a key of the same generation):
    // the commitment names another key, refused.
    let pending = prepare();
    let encrypted = platform_encrypt(&KEY, pending.seal());
    assert!(!pending.seal().is_committed_to(&replaced));
    assert_eq!(
        code(pending.finish(&replaced, &encrypted).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );

    // Cleared while the platform encrypted (a revoke): neither completion
    // seals (the clones of a keyring share its clear).
    let (here, there) = (prepare(), prepare());
    let encrypted = platform_encrypt(&KEY, there.seal());
    let mut cleared = fx.ring.clone();
    cleared.clear();
    assert_eq!(
        code(here.encrypt(&cleared).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );
    assert_eq!(
        code(there.finish(&fx.ring, &encrypted).unwrap_err()),
        "UNKNOWN_KEY_GENERATION"
    );
}

/// An edit sealed from what a binding reads of the message
/// (`MessageToEdit`, its other fields ignored) is the next revision of that
/// message, by its author, and nobody else's.
#[test]
fn an_edit_of_a_message_read_in_part_is_its_next_revision() {
    use streamseal::sealed::messages::{
        MessageToEdit, MessageToOpen, open_message_to_open, prepare_seal_edit_of,
    };
    let fx = fixture();
    let signer = Signer::new(USER, &fx.user).unwrap();
    let id = "msg_01JD3R00000000000000000001";
    let part: MessageToEdit = serde_json::from_value(serde_json::json!({
        "id": id, "streamId": ROOT, "authorId": USER, "authorType": "user", "revision": 3,
        "metadata": "not an object: ignored", "unknown": [1, 2],
    }))
    .unwrap();
    let sealed = prepare_seal_edit_of(&fx.ring, &signer, &part, "edited")
        .unwrap()
        .encrypt(&fx.ring)
        .unwrap();
    let at = |revision: u32| -> MessageToOpen {
        serde_json::from_value(serde_json::json!({
            "id": id, "authorId": USER, "authorType": "user", "revision": revision,
            "sealed": sealed,
        }))
        .unwrap()
    };
    let senders = SenderKeys::new(&fx.trust);
    assert_eq!(
        open_message_to_open(&fx.ring, &senders, ROOT, &at(4))
            .unwrap()
            .text,
        "edited"
    );
    assert_eq!(
        code(open_message_to_open(&fx.ring, &senders, ROOT, &at(3)).unwrap_err()),
        "AAD_MISMATCH"
    );
    // Another member cannot edit it.
    let bot = Signer::new(BOT, &fx.bot).unwrap();
    assert_eq!(
        code(prepare_seal_edit_of(&fx.ring, &bot, &part, "x").unwrap_err()),
        "UNEXPECTED_AUTHOR"
    );
}
