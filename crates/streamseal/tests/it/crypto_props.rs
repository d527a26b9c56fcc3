//! Property tests of the crypto core: round trips over arbitrary inputs, and
//! every tampering the threat model (`lib.rs`) names rejected with its own
//! `ErrorCode`.
//!
//! Run with `cargo test -p streamseal --test it crypto_props:: -- --nocapture`.

use std::collections::BTreeSet;
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use streamseal::aad::{self, AadContents, AadSender};
use streamseal::bundle::{BUNDLE_VERSION, SealedBundle, open_bundle};
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::{
    self, COMMITMENT_LEN, ENVELOPE_VERSION, Envelope, MAX_PLAINTEXT_LEN, MIN_CIPHERTEXT_LEN,
    Opened, SealedPayload, open, open_matching, seal,
};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, KeyId, MAX_KEYS, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::signature::{NONCE_LEN, SIGNATURE_LEN};
use streamseal::slot::{DecisionOption, Slot, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
use streamseal::wrap::{KeyWrap, WRAP_CT_LEN, WRAP_ENC_LEN, unwrap_stream_key, wrap_stream_key};
use streamseal::{CryptoError, ErrorCode};
use streamseal_vectors::golden;
use unicode_normalization::UnicodeNormalization as _;

use crate::support::code;

// ---------------------------------------------------------------------------
// Configuration and helpers
// ---------------------------------------------------------------------------

/// No regression files are written next to the sources: a failing case is
/// printed (already shrunk) and must be turned into a named test by hand.
fn cases(n: u32) -> Config {
    Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    }
}

fn ring_with(root: &str, generation: u32, key: &[u8; 32]) -> Keyring {
    let mut ring = Keyring::new(root).unwrap();
    ring.insert(generation, StreamKey::from_bytes(key)).unwrap();
    ring
}

fn flip_bit(bytes: &mut [u8], bit: usize) {
    bytes[bit / 8] ^= 1 << (bit % 8);
}

/// Who seals a slot that names no author (a trace step, a decision card).
const SIGNER_BOT: &str = "bot_sealer";

/// The subject that seals `slot`: its author where it names one.
fn subject_of(slot: &Slot) -> &str {
    slot.author_id().unwrap_or(SIGNER_BOT)
}

/// The sender every property seals as: one fixed identity key (no key
/// generation per case), registered as the subject of each slot it seals,
/// and an opener that holds it as its own key.
struct Sealer {
    key: IdentityKey,
    trust: TrustStore,
}

impl Sealer {
    fn new() -> Self {
        Sealer {
            key: IdentityKey::from_secret(
                RecipientKind::User,
                KeyId::new("key_sealer").unwrap(),
                SecretKey::from_bytes(&[0x5e; 32]),
            ),
            trust: TrustStore::new(TrustPolicy::TofuWithAlerts),
        }
    }

    fn signer<'a>(&'a self, slot: &'a Slot) -> Signer<'a> {
        Signer::new(subject_of(slot), &self.key).unwrap()
    }

    /// The AAD sender of what this sealer seals into `slot`.
    fn sender(&self, slot: &Slot) -> AadSender {
        self.signer(slot).aad_sender()
    }

    fn seal(
        &self,
        ring: &Keyring,
        slot: &Slot,
        plaintext: &[u8],
    ) -> Result<SealedPayload, CryptoError> {
        seal(ring, &self.signer(slot), slot, plaintext)
    }

    /// [`Sealer::seal`] drawing from `rng`.
    fn seal_with(
        &self,
        rng: &mut FixedRandomness<'_>,
        ring: &Keyring,
        slot: &Slot,
        plaintext: &[u8],
    ) -> Result<SealedPayload, CryptoError> {
        hazmat::seal_envelope_with(rng, ring, &self.signer(slot), slot, plaintext)
    }

    /// Sender keys holding this sealer's key as `sealed_as`'s subject's.
    fn keys(&self, sealed_as: &Slot) -> SenderKeys<'_> {
        SenderKeys::new(&self.trust).with_own(subject_of(sealed_as), &self.key)
    }

    /// Opens as `slot`, holding the key of the subject that sealed `slot`.
    fn open(
        &self,
        ring: &Keyring,
        slot: &Slot,
        sealed: &SealedPayload,
    ) -> Result<Opened, CryptoError> {
        open(ring, &self.keys(slot), slot, sealed)
    }
}

fn aad_bytes(sealed: &SealedPayload) -> Vec<u8> {
    decode_base64("aad", &sealed.envelope.aad).unwrap()
}

fn with_aad(sealed: &SealedPayload, aad: &[u8]) -> SealedPayload {
    let mut out = sealed.clone();
    out.envelope.aad = encode_base64(aad);
    out
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// A non-empty id of at most 64 UTF-8 bytes: API-like ASCII, or any Unicode
/// scalar values (control characters, combining marks, astral planes).
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}_[0-9A-Z]{1,26}",
        prop::collection::vec(any::<char>(), 1..=16).prop_map(String::from_iter),
    ]
}

fn generation() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), Just(0u32), Just(u32::MAX)]
}

fn phase() -> impl Strategy<Value = StepPhase> {
    prop_oneof![Just(StepPhase::Started), Just(StepPhase::Completed)]
}

fn author_type() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("user".to_owned()),
        Just("bot".to_owned()),
        Just("persona".to_owned()),
        id(),
    ]
}

fn message_slot() -> impl Strategy<Value = Slot> {
    (id(), id(), id(), author_type(), any::<u32>()).prop_map(
        |(stream_id, message_id, author_id, author_type, revision)| Slot::Message {
            stream_id,
            message_id,
            author_id,
            author_type,
            revision,
        },
    )
}

fn bot_reply_slot() -> impl Strategy<Value = Slot> {
    (id(), id(), id(), id()).prop_map(|(stream_id, message_id, author_id, invocation_id)| {
        Slot::BotReply {
            stream_id,
            message_id,
            author_id,
            invocation_id,
        }
    })
}

fn trace_step_slot() -> impl Strategy<Value = Slot> {
    (id(), id(), id(), phase(), prop::option::of(id())).prop_map(
        |(invocation_id, step_id, step_type, phase, message_id)| Slot::TraceStep {
            invocation_id,
            step_id,
            step_type,
            phase,
            message_id,
        },
    )
}

/// 1 to 8 options with distinct ids, in arbitrary order.
fn options() -> impl Strategy<Value = Vec<DecisionOption>> {
    prop::collection::btree_set(id(), 1..=8)
        .prop_flat_map(|ids| {
            let n = ids.len();
            (
                Just(ids.into_iter().collect::<Vec<_>>()),
                prop::collection::vec(
                    prop_oneof![Just("primary".to_owned()), Just("neutral".to_owned()), id()],
                    n,
                ),
            )
        })
        .prop_map(|(ids, tones)| {
            ids.into_iter()
                .zip(tones)
                .map(|(id, tone)| DecisionOption { id, tone })
                .collect::<Vec<_>>()
        })
        .prop_shuffle()
}

fn decision_card_slot() -> impl Strategy<Value = Slot> {
    ((id(), id(), id(), id()), options(), any::<bool>()).prop_map(
        |((stream_id, decision_id, invocation_id, runtime_session_id), options, allow_note)| {
            Slot::DecisionCard {
                stream_id,
                decision_id,
                invocation_id,
                runtime_session_id,
                options,
                allow_note,
            }
        },
    )
}

fn decision_note_slot() -> impl Strategy<Value = Slot> {
    (id(), id(), id()).prop_map(|(decision_id, option_id, decided_by)| Slot::DecisionNote {
        decision_id,
        option_id,
        decided_by,
    })
}

/// Every slot kind, equally likely.
fn slot() -> impl Strategy<Value = Slot> {
    prop_oneof![
        message_slot(),
        bot_reply_slot(),
        trace_step_slot(),
        decision_card_slot(),
        decision_note_slot(),
    ]
}

/// A slot and a sender allowed to seal it: the slot's author where it
/// names one, any subject otherwise; any key kind and key id.
fn sender_and_slot() -> impl Strategy<Value = (AadSender, Slot)> {
    (slot(), id(), recipient_kind(), key_id()).prop_map(|(slot, subject, kind, key_id)| {
        let subject = slot.author_id().map_or(subject, str::to_owned);
        (
            AadSender {
                subject,
                kind,
                key_id: key_id.as_str().to_owned(),
            },
            slot,
        )
    })
}

fn plaintext() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=4096)
}

/// Recipient kinds as the wire parses them: `user`, `bot`, or any other value.
fn recipient_kind() -> impl Strategy<Value = RecipientKind> {
    prop_oneof![
        Just(RecipientKind::User),
        Just(RecipientKind::Bot),
        id().prop_map(|s| RecipientKind::parse(&s)),
    ]
}

/// Key ids of 1 to 128 characters (up to 512 UTF-8 bytes).
fn key_id() -> impl Strategy<Value = KeyId> {
    prop_oneof![
        "[a-z0-9_-]{1,40}",
        prop::collection::vec(any::<char>(), 1..=128).prop_map(String::from_iter),
    ]
    .prop_map(|s| KeyId::new(s).unwrap())
}

fn passphrase() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,24}",
        prop::collection::vec(any::<char>(), 0..=24).prop_map(String::from_iter),
        // Decomposed accents: NFC changes these bytes.
        "(e\u{301}|a\u{308}|\u{1100}\u{1161}|x){1,8}",
    ]
}

/// A string different from `s`: `other` when it differs, else `s` extended.
fn differ(s: &str, other: &str) -> String {
    if s == other {
        format!("{s}\u{e9}")
    } else {
        other.to_owned()
    }
}

/// One slot per field of `slot`, with only that field changed, plus the same
/// values under another kind. `other` is an arbitrary replacement value.
fn mutations(slot: &Slot, other: &str, other_n: u32) -> Vec<(&'static str, Slot)> {
    let mut out: Vec<(&'static str, Slot)> = Vec::new();
    match slot {
        Slot::Message {
            stream_id,
            message_id,
            author_id,
            author_type,
            revision,
        } => {
            let mk = |s: &str, m: &str, a: &str, t: &str, r: u32| Slot::Message {
                stream_id: s.into(),
                message_id: m.into(),
                author_id: a.into(),
                author_type: t.into(),
                revision: r,
            };
            let r2 = if other_n == *revision {
                revision.wrapping_add(1)
            } else {
                other_n
            };
            let t = author_type.as_str();
            out.push((
                "message.streamId",
                mk(
                    &differ(stream_id, other),
                    message_id,
                    author_id,
                    t,
                    *revision,
                ),
            ));
            out.push((
                "message.messageId",
                mk(
                    stream_id,
                    &differ(message_id, other),
                    author_id,
                    t,
                    *revision,
                ),
            ));
            out.push((
                "message.authorId",
                mk(
                    stream_id,
                    message_id,
                    &differ(author_id, other),
                    t,
                    *revision,
                ),
            ));
            out.push((
                "message.authorType",
                mk(
                    stream_id,
                    message_id,
                    author_id,
                    &differ(author_type, other),
                    *revision,
                ),
            ));
            out.push((
                "message.revision",
                mk(stream_id, message_id, author_id, t, r2),
            ));
            out.push((
                "message.revision+1",
                mk(
                    stream_id,
                    message_id,
                    author_id,
                    t,
                    revision.wrapping_add(1),
                ),
            ));
            out.push((
                "message as botReply",
                Slot::BotReply {
                    stream_id: stream_id.clone(),
                    message_id: message_id.clone(),
                    author_id: author_id.clone(),
                    invocation_id: revision.to_string(),
                },
            ));
        }
        Slot::BotReply {
            stream_id,
            message_id,
            author_id,
            invocation_id,
        } => {
            let mk = |s: &str, m: &str, a: &str, i: &str| Slot::BotReply {
                stream_id: s.into(),
                message_id: m.into(),
                author_id: a.into(),
                invocation_id: i.into(),
            };
            out.push((
                "botReply.streamId",
                mk(
                    &differ(stream_id, other),
                    message_id,
                    author_id,
                    invocation_id,
                ),
            ));
            out.push((
                "botReply.messageId",
                mk(
                    stream_id,
                    &differ(message_id, other),
                    author_id,
                    invocation_id,
                ),
            ));
            out.push((
                "botReply.authorId",
                mk(
                    stream_id,
                    message_id,
                    &differ(author_id, other),
                    invocation_id,
                ),
            ));
            out.push((
                "botReply.invocationId",
                mk(
                    stream_id,
                    message_id,
                    author_id,
                    &differ(invocation_id, other),
                ),
            ));
            out.push((
                "botReply as message",
                Slot::Message {
                    stream_id: stream_id.clone(),
                    message_id: message_id.clone(),
                    author_id: author_id.clone(),
                    author_type: "bot".into(),
                    revision: 1,
                },
            ));
        }
        Slot::TraceStep {
            invocation_id,
            step_id,
            step_type,
            phase,
            message_id,
        } => {
            let mk = |i: &str, s: &str, t: &str, p: StepPhase, m: Option<String>| Slot::TraceStep {
                invocation_id: i.into(),
                step_id: s.into(),
                step_type: t.into(),
                phase: p,
                message_id: m,
            };
            let flipped = match phase {
                StepPhase::Started => StepPhase::Completed,
                StepPhase::Completed => StepPhase::Started,
            };
            out.push((
                "traceStep.invocationId",
                mk(
                    &differ(invocation_id, other),
                    step_id,
                    step_type,
                    *phase,
                    message_id.clone(),
                ),
            ));
            out.push((
                "traceStep.stepId",
                mk(
                    invocation_id,
                    &differ(step_id, other),
                    step_type,
                    *phase,
                    message_id.clone(),
                ),
            ));
            out.push((
                "traceStep.stepType",
                mk(
                    invocation_id,
                    step_id,
                    &differ(step_type, other),
                    *phase,
                    message_id.clone(),
                ),
            ));
            out.push((
                "traceStep.phase",
                mk(
                    invocation_id,
                    step_id,
                    step_type,
                    flipped,
                    message_id.clone(),
                ),
            ));
            match message_id {
                None => out.push((
                    "traceStep.messageId absent->present",
                    mk(
                        invocation_id,
                        step_id,
                        step_type,
                        *phase,
                        Some(other.to_owned()),
                    ),
                )),
                Some(m) => {
                    out.push((
                        "traceStep.messageId present->absent",
                        mk(invocation_id, step_id, step_type, *phase, None),
                    ));
                    out.push((
                        "traceStep.messageId changed",
                        mk(
                            invocation_id,
                            step_id,
                            step_type,
                            *phase,
                            Some(differ(m, other)),
                        ),
                    ));
                }
            }
            out.push((
                "traceStep as decisionNote",
                Slot::DecisionNote {
                    decision_id: invocation_id.clone(),
                    option_id: step_id.clone(),
                    decided_by: step_type.clone(),
                },
            ));
        }
        Slot::DecisionCard {
            stream_id,
            decision_id,
            invocation_id,
            runtime_session_id,
            options,
            allow_note,
        } => {
            let card = |s: &str, d: &str, i: &str, r: &str, o: Vec<DecisionOption>, n: bool| {
                Slot::DecisionCard {
                    stream_id: s.into(),
                    decision_id: d.into(),
                    invocation_id: i.into(),
                    runtime_session_id: r.into(),
                    options: o,
                    allow_note: n,
                }
            };
            let mk = |s: &str, d: &str, o: Vec<DecisionOption>, n: bool| {
                card(s, d, invocation_id, runtime_session_id, o, n)
            };
            out.push((
                "decisionCard.invocationId",
                card(
                    stream_id,
                    decision_id,
                    &differ(invocation_id, other),
                    runtime_session_id,
                    options.clone(),
                    *allow_note,
                ),
            ));
            out.push((
                "decisionCard.runtimeSessionId",
                card(
                    stream_id,
                    decision_id,
                    invocation_id,
                    &differ(runtime_session_id, other),
                    options.clone(),
                    *allow_note,
                ),
            ));
            out.push((
                "decisionCard.streamId",
                mk(
                    &differ(stream_id, other),
                    decision_id,
                    options.clone(),
                    *allow_note,
                ),
            ));
            out.push((
                "decisionCard.decisionId",
                mk(
                    stream_id,
                    &differ(decision_id, other),
                    options.clone(),
                    *allow_note,
                ),
            ));
            out.push((
                "decisionCard.allowNote",
                mk(stream_id, decision_id, options.clone(), !allow_note),
            ));
            // Each option's id and tone, one at a time.
            let ids: BTreeSet<&str> = options.iter().map(|o| o.id.as_str()).collect();
            let mut fresh = differ(&options[0].id, other);
            while ids.contains(fresh.as_str()) {
                fresh.push('~');
            }
            for i in 0..options.len() {
                let mut changed_id = options.clone();
                changed_id[i].id.clone_from(&fresh);
                out.push((
                    "decisionCard.options[i].id",
                    mk(stream_id, decision_id, changed_id, *allow_note),
                ));
                let mut changed_tone = options.clone();
                changed_tone[i].tone = differ(&options[i].tone, other);
                out.push((
                    "decisionCard.options[i].tone",
                    mk(stream_id, decision_id, changed_tone, *allow_note),
                ));
            }
            let mut added = options.clone();
            added.push(DecisionOption {
                id: fresh.clone(),
                tone: "neutral".into(),
            });
            out.push((
                "decisionCard.options +1",
                mk(stream_id, decision_id, added, *allow_note),
            ));
            if options.len() > 1 {
                let mut removed = options.clone();
                removed.pop();
                out.push((
                    "decisionCard.options -1",
                    mk(stream_id, decision_id, removed, *allow_note),
                ));
                let mut reordered = options.clone();
                reordered.rotate_left(1);
                out.push((
                    "decisionCard.options reordered",
                    mk(stream_id, decision_id, reordered, *allow_note),
                ));
            }
        }
        Slot::DecisionNote {
            decision_id,
            option_id,
            decided_by,
        } => {
            let mk = |d: &str, o: &str, b: &str| Slot::DecisionNote {
                decision_id: d.into(),
                option_id: o.into(),
                decided_by: b.into(),
            };
            out.push((
                "decisionNote.decisionId",
                mk(&differ(decision_id, other), option_id, decided_by),
            ));
            out.push((
                "decisionNote.optionId",
                mk(decision_id, &differ(option_id, other), decided_by),
            ));
            out.push((
                "decisionNote.decidedBy",
                mk(decision_id, option_id, &differ(decided_by, other)),
            ));
            out.push((
                "decisionNote as traceStep",
                Slot::TraceStep {
                    invocation_id: decision_id.clone(),
                    step_id: option_id.clone(),
                    step_type: decided_by.clone(),
                    phase: StepPhase::Completed,
                    message_id: None,
                },
            ));
        }
    }
    out
}

/// The outcome of opening a payload whose AAD bytes were replaced by
/// `mutated`, predicted from re-parsing them.
///
/// `full_knowledge`: the opener states the whole slot (`open`), so a parse
/// whose slot or binding differs from what was sealed is a mismatch.
/// Otherwise the opener accepts any slot (`open_matching(|_| true)`): only
/// version, root stream and generation are checked. Either way, a changed
/// sender then names a key the opener does not hold (`UNKNOWN_KEY`), or the
/// opener's key for that subject and key id under another kind
/// (`SENDER_MISMATCH`); a slot that changed and was accepted reaches the key
/// commitment and AES-GCM, which refuses the changed AAD.
fn predict_aad_flip(original: &AadContents, mutated: &[u8], full_knowledge: bool) -> ErrorCode {
    match aad::parse(mutated) {
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::MalformedAad, "{e}");
            ErrorCode::MalformedAad
        }
        Ok(parsed) => {
            assert_ne!(
                &parsed, original,
                "different AAD bytes parsed to identical contents: the encoding is not canonical"
            );
            let binding_differs = parsed.version != original.version
                || parsed.root_stream_id != original.root_stream_id
                || parsed.key_generation != original.key_generation;
            let (sender, was) = (&parsed.sender, &original.sender);
            if binding_differs || (full_knowledge && parsed.slot != original.slot) {
                ErrorCode::AadMismatch
            } else if sender.subject != was.subject || sender.key_id != was.key_id {
                ErrorCode::UnknownKey
            } else if sender.kind != was.kind {
                ErrorCode::SenderMismatch
            } else {
                ErrorCode::DecryptionFailed
            }
        }
    }
}

fn assert_aad_flip(
    sealer: &Sealer,
    ring: &Keyring,
    slot: &Slot,
    sealed: &SealedPayload,
    bit: usize,
) {
    let original = aad::parse(&aad_bytes(sealed)).unwrap();
    let mut mutated = aad_bytes(sealed);
    flip_bit(&mut mutated, bit);
    let tampered = with_aad(sealed, &mutated);

    let want = predict_aad_flip(&original, &mutated, true);
    let got = code(sealer.open(ring, slot, &tampered));
    assert_eq!(got, want, "open, bit {bit}");

    let want = predict_aad_flip(&original, &mutated, false);
    let got = code(open_matching(ring, &sealer.keys(slot), &tampered, |_| true));
    assert_eq!(got, want, "open_matching(accept all), bit {bit}");
}

// ---------------------------------------------------------------------------
// Envelopes: round trips
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn seal_open_round_trip(
        root in id(),
        generation in generation(),
        key in any::<[u8; 32]>(),
        slot in slot(),
        plaintext in plaintext(),
        iv in any::<[u8; 12]>(),
        z in prop::collection::vec(any::<u8>(), NONCE_LEN),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with(&root, generation, &key);
        // The seal draws the iv, then the signature's 64 bytes Z: nothing else.
        let random = [iv.as_slice(), z.as_slice()].concat();
        let sealed = {
 let mut rng = FixedRandomness::new(&random);
let sealed = sealer.seal_with(&mut rng, &ring, &slot, &plaintext);
            assert_eq!(Some(rng.remaining()), Some(0));
            sealed
}
        .unwrap();

        prop_assert_eq!(sealed.envelope.v, ENVELOPE_VERSION);
        prop_assert_eq!(sealed.envelope.key_generation, generation);
        prop_assert_eq!(decode_base64("iv", &sealed.envelope.iv).unwrap(), iv.to_vec());
        // ciphertext = commitment (32) || AES-GCM(signature (64) || content) || tag (16).
        let ct = decode_base64("ciphertext", &sealed.ciphertext).unwrap();
        let commitment = envelope::key_commitment(&key, 2, &iv);
        prop_assert_eq!(&ct[..COMMITMENT_LEN], commitment.as_slice());
        prop_assert_eq!(ct.len(), COMMITMENT_LEN + SIGNATURE_LEN + plaintext.len() + 16);
        prop_assert_eq!(
            aad::parse(&aad_bytes(&sealed)).unwrap(),
            AadContents {
                version: 2,
                root_stream_id: root.clone(),
                key_generation: generation,
                sender: sealer.sender(&slot),
                slot: slot.clone(),
            }
        );
        // The same randomness seals the same bytes.
        let again = sealer.seal_with(&mut FixedRandomness::new(&random), &ring, &slot, &plaintext).unwrap();
        prop_assert_eq!(&again, &sealed);

        let opened = sealer.open(&ring, &slot, &sealed).unwrap();
        prop_assert_eq!(&*opened.plaintext, plaintext.as_slice());
        prop_assert_eq!(opened.key_generation, generation);
        prop_assert_eq!(opened.sealed_by.subject.as_str(), subject_of(&slot));
        prop_assert_eq!(opened.sealed_by.key_id.as_str(), "key_sealer");
        prop_assert_eq!(opened.sealed_by.status, TrustLevel::Verified);
        let opened = open_matching(&ring, &sealer.keys(&slot), &sealed, |_| true).unwrap();
        prop_assert_eq!(&opened.slot, &slot);
        prop_assert_eq!(&*opened.plaintext, plaintext.as_slice());

        // Through the wire form and back.
        let reparsed = SealedPayload::from_json(&sealed.to_json()).unwrap();
        prop_assert_eq!(&reparsed, &sealed);
        prop_assert_eq!(&*sealer.open(&ring, &slot, &reparsed).unwrap().plaintext, plaintext.as_slice());
    }

    /// `seal_with_generation` is gone: a seal always uses the keyring's
    /// current generation, the newest held, whatever order the keys arrived
    /// in. Here the member holds the generations up to `chosen` (inserted
    /// newest first, so an older key arriving later must not lower it) and
    /// its seal is under `chosen`, which only that generation's key opens.
    #[test]
    fn seal_uses_the_newest_generation_among_several(
        root in id(),
        generations in prop::collection::btree_set(generation(), 1..=5),
        pick in any::<Index>(),
        key_seed in any::<u8>(),
        slot in slot(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=256),
    ) {
        let who = Sealer::new();
        let generations: Vec<u32> = generations.into_iter().collect();
        let key_of = |i: usize| [key_seed.wrapping_add(u8::try_from(i).unwrap()); 32];
        let chosen = *pick.get(&generations);
        let mut full = Keyring::new(root.as_str()).unwrap();
        let mut sealer = Keyring::new(root.as_str()).unwrap();
        for (i, g) in generations.iter().enumerate().rev() {
            full.insert(*g, StreamKey::from_bytes(&key_of(i))).unwrap();
            if *g <= chosen {
                sealer.insert(*g, StreamKey::from_bytes(&key_of(i))).unwrap();
                prop_assert_eq!(sealer.current_generation(), Some(chosen));
            }
        }
        let sealed = who.seal(&sealer, &slot, &plaintext).unwrap();
        prop_assert_eq!(sealed.envelope.key_generation, chosen);
        let opened = open_matching(&full, &who.keys(&slot), &sealed, |s| s == &slot).unwrap();
        prop_assert_eq!(opened.slot, slot.clone());
        prop_assert_eq!(&*opened.plaintext, plaintext.as_slice());
        // The member holding every generation seals under the newest.
        let newest = *generations.last().unwrap();
        prop_assert_eq!(who.seal(&full, &slot, &plaintext).unwrap().envelope.key_generation, newest);

        // Only the chosen generation's key opens it: a keyring holding every
        // other key (same root, generation renumbered to `chosen`) fails GCM.
        for g in generations.iter().filter(|g| **g != chosen) {
            let mut wrong = Keyring::new(root.as_str()).unwrap();
            wrong.insert(chosen, full.key(*g).unwrap().clone()).unwrap();
            prop_assert_eq!(code(who.open(&wrong, &slot, &sealed)), ErrorCode::DecryptionFailed);
        }
    }

    #[test]
    fn two_seals_never_share_an_iv(
        slot in slot(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=64),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with("stream_root", 0, &[7; 32]);
        let a = sealer.seal(&ring, &slot, &plaintext).unwrap();
        let b = sealer.seal(&ring, &slot, &plaintext).unwrap();
        prop_assert_ne!(&a.envelope.iv, &b.envelope.iv);
        // A fresh iv gives a fresh key commitment (the ciphertext's first 32 bytes).
        let commitment = |s: &SealedPayload| {
            decode_base64("ciphertext", &s.ciphertext).unwrap()[..COMMITMENT_LEN].to_vec()
        };
        prop_assert_ne!(commitment(&a), commitment(&b));
        prop_assert_ne!(&a.ciphertext, &b.ciphertext);
        prop_assert_eq!(&a.envelope.aad, &b.envelope.aad);
    }

    #[test]
    fn aad_encode_parse_round_trip(
        version in any::<u8>(),
        root in id(),
        generation in generation(),
        (sender, slot) in sender_and_slot(),
        stranger in id(),
    ) {
        let bytes = aad::encode(version, &root, generation, &sender, &slot).unwrap();
        prop_assert!(bytes.starts_with(aad::AAD_LABEL));
        prop_assert_eq!(bytes[aad::AAD_LABEL.len()], version);
        let parsed = aad::parse(&bytes).unwrap();
        prop_assert_eq!(
            &parsed,
            &AadContents {
                version,
                root_stream_id: root.clone(),
                key_generation: generation,
                sender: sender.clone(),
                slot: slot.clone(),
            }
        );
        // Deterministic, and re-encoding the parse gives the same bytes.
        prop_assert_eq!(&aad::encode(version, &root, generation, &sender, &slot).unwrap(), &bytes);
        prop_assert_eq!(
            aad::encode(
                parsed.version,
                &parsed.root_stream_id,
                parsed.key_generation,
                &parsed.sender,
                &parsed.slot,
            )
            .unwrap(),
            bytes
        );
        prop_assert!(slot.validate().is_ok());
        // A slot that names an author is sealed by that author only.
        if let Some(author) = slot.author_id() {
            let other = AadSender { subject: differ(author, &stranger), ..sender.clone() };
            prop_assert_eq!(
                code(aad::encode(version, &root, generation, &other, &slot)),
                ErrorCode::InvalidField
            );
        }
    }

    #[test]
    fn aad_encoding_is_injective(
        a in (any::<u8>(), id(), generation(), sender_and_slot()),
        b in (any::<u8>(), id(), generation(), sender_and_slot()),
    ) {
        let ea = aad::encode(a.0, &a.1, a.2, &a.3.0, &a.3.1).unwrap();
        let eb = aad::encode(b.0, &b.1, b.2, &b.3.0, &b.3.1).unwrap();
        prop_assert_eq!(ea == eb, a == b);
    }

    #[test]
    fn envelope_json_round_trip(
        v in any::<u32>(),
        key_generation in any::<u32>(),
        iv in ".*",
        aad_text in prop::collection::vec(any::<char>(), 0..=40).prop_map(String::from_iter),
        ciphertext in ".*",
    ) {
        let envelope = Envelope { v, key_generation, iv, aad: aad_text, extra: Default::default() };
        let json = envelope.to_json();
        prop_assert_eq!(&Envelope::from_json(&json).unwrap(), &envelope);

        // The wire names of section 2: exactly the spec's {v, keyGeneration, iv, aad}
        // (the key commitment travels inside the ciphertext).
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let keys: BTreeSet<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        prop_assert_eq!(keys, BTreeSet::from(["v", "keyGeneration", "iv", "aad"]));

        let payload = SealedPayload { ciphertext, envelope, extra: Default::default() };
        let json = payload.to_json();
        prop_assert_eq!(&SealedPayload::from_json(&json).unwrap(), &payload);

        // Unknown fields are kept at both levels and written back (API §9.6);
        // the known fields read the same.
        let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
        value["extra"] = serde_json::json!({"nested": [1, 2]});
        value["envelope"]["alg"] = serde_json::json!("future");
        let kept = SealedPayload::from_json(&value.to_string()).unwrap();
        prop_assert_eq!(&kept.ciphertext, &payload.ciphertext);
        prop_assert_eq!((kept.envelope.v, kept.envelope.key_generation), (v, key_generation));
        prop_assert_eq!((&kept.envelope.iv, &kept.envelope.aad), (&payload.envelope.iv, &payload.envelope.aad));
        prop_assert_eq!(kept.extra.get_json("extra"), Some(serde_json::json!({"nested": [1, 2]})));
        prop_assert_eq!(kept.envelope.extra.get_json("alg"), Some(serde_json::json!("future")));
        prop_assert_eq!(serde_json::from_str::<serde_json::Value>(&kept.to_json()).unwrap(), value);
    }
}

#[test]
fn plaintext_at_the_size_limit_round_trips() {
    let sealer = Sealer::new();
    let ring = ring_with("stream_root", 9, &[0x42; 32]);
    let slot = golden::sample_slots()[0].1.clone();
    let plaintext: Vec<u8> = (0..MAX_PLAINTEXT_LEN)
        .map(|i| u8::try_from(i % 251).unwrap())
        .collect();
    let sealed = sealer.seal(&ring, &slot, &plaintext).unwrap();
    assert_eq!(
        &*sealer.open(&ring, &slot, &sealed).unwrap().plaintext,
        plaintext.as_slice()
    );
    let mut over = plaintext;
    over.push(0);
    assert_eq!(
        code(sealer.seal(&ring, &slot, &over)),
        ErrorCode::InputTooLarge
    );
}

// ---------------------------------------------------------------------------
// Envelopes: attacks
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn any_changed_slot_field_is_aad_mismatch(
        root in id(),
        generation in generation(),
        key in any::<[u8; 32]>(),
        slot in slot(),
        other in id(),
        other_n in any::<u32>(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=64),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with(&root, generation, &key);
        let sealed = sealer.seal(&ring, &slot, &plaintext).unwrap();
        // The opener holds the sealer's key, under the moved slot's author
        // as well: the slot itself is what refuses it.
        let muts = mutations(&slot, &other, other_n);
        prop_assert!(muts.len() >= 4);
        for (what, moved) in muts {
            prop_assert_ne!(&moved, &slot, "{} did not change the slot", what);
            let keys = sealer.keys(&slot).with_own(subject_of(&moved), &sealer.key);
            prop_assert_eq!(code(open(&ring, &keys, &moved, &sealed)), ErrorCode::AadMismatch, "{}", what);
            prop_assert_eq!(
                code(open_matching(&ring, &keys, &sealed, |s| s == &moved)),
                ErrorCode::AadMismatch,
                "{}", what
            );
        }
    }

    #[test]
    fn another_root_streams_keyring_is_aad_mismatch(
        root in id(),
        other_root in id(),
        generation in generation(),
        key in any::<[u8; 32]>(),
        slot in slot(),
    ) {
        prop_assume!(root != other_root);
        let sealer = Sealer::new();
        let sealed = sealer.seal(&ring_with(&root, generation, &key), &slot, b"x").unwrap();
        // Even holding the very same key under the same generation.
        let other = ring_with(&other_root, generation, &key);
        prop_assert_eq!(code(sealer.open(&other, &slot, &sealed)), ErrorCode::AadMismatch);
        prop_assert_eq!(
            code(open_matching(&other, &sealer.keys(&slot), &sealed, |_| true)),
            ErrorCode::AadMismatch
        );
    }

    #[test]
    fn changed_envelope_generation_is_aad_mismatch(
        root in id(),
        generation in generation(),
        new_generation in generation(),
        key in any::<[u8; 32]>(),
        other_key in any::<[u8; 32]>(),
        slot in slot(),
        also_held in any::<bool>(),
    ) {
        prop_assume!(generation != new_generation);
        let sealer = Sealer::new();
        let mut ring = ring_with(&root, generation, &key);
        let mut sealed = sealer.seal(&ring, &slot, b"payload").unwrap();
        if also_held {
            ring.insert(new_generation, StreamKey::from_bytes(&other_key)).unwrap();
        }
        sealed.envelope.key_generation = new_generation;
        prop_assert_eq!(code(sealer.open(&ring, &slot, &sealed)), ErrorCode::AadMismatch);
        prop_assert_eq!(
            code(open_matching(&ring, &sealer.keys(&slot), &sealed, |_| true)),
            ErrorCode::AadMismatch
        );
    }

    #[test]
    fn changed_envelope_version_is_unsupported(
        v in any::<u32>(),
        slot in slot(),
    ) {
        prop_assume!(v != ENVELOPE_VERSION);
        let sealer = Sealer::new();
        let ring = ring_with("stream_root", 0, &[1; 32]);
        let mut sealed = sealer.seal(&ring, &slot, b"payload").unwrap();
        sealed.envelope.v = v;
        prop_assert_eq!(code(sealer.open(&ring, &slot, &sealed)), ErrorCode::UnsupportedEnvelopeVersion);
    }

    #[test]
    fn flipped_iv_bit_is_decryption_failed(
        key in any::<[u8; 32]>(),
        slot in slot(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=512),
        bit in 0usize..96,
    ) {
        let sealer = Sealer::new();
        let ring = ring_with("stream_root", 3, &key);
        let mut sealed = sealer.seal(&ring, &slot, &plaintext).unwrap();
        let mut iv = decode_base64("iv", &sealed.envelope.iv).unwrap();
        flip_bit(&mut iv, bit);
        sealed.envelope.iv = encode_base64(&iv);
        prop_assert_eq!(code(sealer.open(&ring, &slot, &sealed)), ErrorCode::DecryptionFailed);
    }

    #[test]
    fn flipped_ciphertext_bit_is_decryption_failed(
        key in any::<[u8; 32]>(),
        slot in slot(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=512),
        bit in any::<Index>(),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with("stream_root", 3, &key);
        let mut sealed = sealer.seal(&ring, &slot, &plaintext).unwrap();
        let mut ct = decode_base64("ciphertext", &sealed.ciphertext).unwrap();
        let bit = bit.index(ct.len() * 8);
        flip_bit(&mut ct, bit);
        sealed.ciphertext = encode_base64(&ct);
        prop_assert_eq!(code(sealer.open(&ring, &slot, &sealed)), ErrorCode::DecryptionFailed);
    }

    /// Cut below the commitment, the signature and the tag (112 bytes), a
    /// ciphertext is refused on its length before any key is used; longer,
    /// the commitment or AES-GCM refuses it.
    #[test]
    fn truncated_or_extended_ciphertext_is_decryption_failed(
        slot in slot(),
        plaintext in prop::collection::vec(any::<u8>(), 0..=128),
        cut in any::<Index>(),
        extra in prop::collection::vec(any::<u8>(), 1..=16),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with("stream_root", 3, &[5; 32]);
        let sealed = sealer.seal(&ring, &slot, &plaintext).unwrap();
        let ct = decode_base64("ciphertext", &sealed.ciphertext).unwrap();
        let mut short = sealed.clone();
        let kept = cut.index(ct.len());
        short.ciphertext = encode_base64(&ct[..kept]);
        prop_assert_eq!(MIN_CIPHERTEXT_LEN, COMMITMENT_LEN + SIGNATURE_LEN + 16);
        let want = if kept < MIN_CIPHERTEXT_LEN {
            ErrorCode::InvalidLength
        } else {
            ErrorCode::DecryptionFailed
        };
        prop_assert_eq!(code(sealer.open(&ring, &slot, &short)), want);
        let mut long = sealed;
        long.ciphertext = encode_base64(&[ct, extra].concat());
        prop_assert_eq!(code(sealer.open(&ring, &slot, &long)), ErrorCode::DecryptionFailed);
    }

    #[test]
    fn flipped_aad_bit_is_the_error_its_reparse_predicts(
        root in id(),
        generation in generation(),
        slot in slot(),
        bit in any::<Index>(),
    ) {
        let sealer = Sealer::new();
        let ring = ring_with(&root, generation, &[9; 32]);
        let sealed = sealer.seal(&ring, &slot, b"the plaintext").unwrap();
        let bit = bit.index(aad_bytes(&sealed).len() * 8);
        assert_aad_flip(&sealer, &ring, &slot, &sealed, bit);
    }

    #[test]
    fn missing_generation_is_unknown_key_generation(
        root in id(),
        generation in generation(),
        others in prop::collection::btree_set(any::<u32>(), 1..=4),
        slot in slot(),
    ) {
        let others: Vec<u32> = others.into_iter().filter(|g| *g != generation).collect();
        prop_assume!(!others.is_empty());
        let sealer = Sealer::new();
        let sealed = sealer.seal(&ring_with(&root, generation, &[3; 32]), &slot, b"p").unwrap();
        let mut opener = Keyring::new(root.as_str()).unwrap();
        for g in &others {
            opener.insert(*g, StreamKey::from_bytes(&[3; 32])).unwrap();
        }
        match sealer.open(&opener, &slot, &sealed) {
            Err(CryptoError::UnknownKeyGeneration { generation: g }) => prop_assert_eq!(g, generation),
            other => prop_assert!(false, "expected UNKNOWN_KEY_GENERATION, got {:?}", other.map(|_| ())),
        }
    }
}

/// Every bit of the AAD of every sample slot (golden inputs) and of a large
/// decision card, flipped one at a time.
#[test]
fn every_aad_bit_of_the_sample_slots() {
    let mut slots: Vec<Slot> = golden::sample_slots()
        .into_iter()
        .map(|(_, slot, _, _)| slot)
        .collect();
    slots.push(Slot::DecisionCard {
        stream_id: "s".into(),
        decision_id: "d".into(),
        invocation_id: "i".into(),
        runtime_session_id: "r".into(),
        options: (0..5)
            .map(|i| DecisionOption {
                id: format!("o{i}"),
                tone: "t".into(),
            })
            .collect(),
        allow_note: false,
    });
    let sealer = Sealer::new();
    let ring = ring_with(golden::ROOT, 2, &[0x40; 32]);
    let mut flips = 0usize;
    let mut full = std::collections::BTreeMap::<&str, usize>::new();
    let mut partial = std::collections::BTreeMap::<&str, usize>::new();
    for slot in &slots {
        let sealed = sealer.seal(&ring, slot, b"x").unwrap();
        for bit in 0..aad_bytes(&sealed).len() * 8 {
            assert_aad_flip(&sealer, &ring, slot, &sealed, bit);
            let mut m = aad_bytes(&sealed);
            flip_bit(&mut m, bit);
            let tampered = with_aad(&sealed, &m);
            *full
                .entry(code(sealer.open(&ring, slot, &tampered)).as_str())
                .or_default() += 1;
            *partial
                .entry(
                    code(open_matching(&ring, &sealer.keys(slot), &tampered, |_| {
                        true
                    }))
                    .as_str(),
                )
                .or_default() += 1;
            flips += 1;
        }
    }
    println!("aad bit flips: {flips}; open: {full:?}; open_matching(accept all): {partial:?}");
    // Every predicted outcome occurs: label/length/flag bits (and an author
    // no longer the sender) break parsing, content bits still parse but move
    // the ciphertext, a changed sender key id (or an unauthored slot's
    // subject) names a key the opener does not hold, a changed sender kind
    // is not the kind of the opener's key, and a moved slot that the opener
    // accepts is refused by the key commitment and AES-GCM.
    assert_eq!(
        full.keys().copied().collect::<Vec<_>>(),
        [
            "AAD_MISMATCH",
            "MALFORMED_AAD",
            "SENDER_MISMATCH",
            "UNKNOWN_KEY"
        ]
    );
    assert_eq!(
        partial.keys().copied().collect::<Vec<_>>(),
        [
            "AAD_MISMATCH",
            "DECRYPTION_FAILED",
            "MALFORMED_AAD",
            "SENDER_MISMATCH",
            "UNKNOWN_KEY"
        ]
    );
}

// ---------------------------------------------------------------------------
// Key wraps
// ---------------------------------------------------------------------------

fn decoys() -> impl Strategy<Value = Vec<([u8; 32], RecipientKind, bool)>> {
    prop::collection::vec(
        (any::<[u8; 32]>(), recipient_kind(), any::<bool>()),
        0..MAX_KEYS,
    )
}

/// The caller's keys: `decoys` with the real key inserted at `pos`. A decoy
/// flagged `true` is registered under the real key's kind and id (an older
/// key of the same runtime); the others under ids of their own.
fn keyset(
    me: &IdentityKey,
    decoys: &[([u8; 32], RecipientKind, bool)],
    pos: Index,
) -> Vec<IdentityKey> {
    let mut mine: Vec<IdentityKey> = decoys
        .iter()
        .enumerate()
        .map(|(i, (secret, kind, same_id))| {
            let (kind, key_id) = if *same_id {
                (me.kind().clone(), me.key_id().clone())
            } else {
                (kind.clone(), KeyId::new(format!("decoy-{i}")).unwrap())
            };
            IdentityKey::from_secret(kind, key_id, SecretKey::from_bytes(secret))
        })
        .collect();
    let at = pos.index(mine.len() + 1);
    mine.insert(at, me.clone());
    mine
}

/// The senders a member accepts: `decoys` (other distributors, each under
/// its own key id) with the real sender inserted at `pos`.
fn senderset(sender: &IdentityKey, decoys: &[[u8; 32]], pos: Index) -> Vec<Recipient> {
    let mut senders: Vec<Recipient> = decoys
        .iter()
        .enumerate()
        .map(|(i, secret)| {
            Recipient::of(&IdentityKey::from_secret(
                RecipientKind::User,
                KeyId::new(format!("sender-decoy-{i}")).unwrap(),
                SecretKey::from_bytes(secret),
            ))
        })
        .collect();
    let at = pos.index(senders.len() + 1);
    senders.insert(at, Recipient::of(sender));
    senders
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn wrap_unwrap_round_trip(
        root in id(),
        generation in generation(),
        kind in recipient_kind(),
        key_id in key_id(),
        secret in any::<[u8; 32]>(),
        (sender_kind, sender_key_id, sender_secret) in (recipient_kind(), key_id(), any::<[u8; 32]>()),
        stream_key in any::<[u8; 32]>(),
        ephemeral in any::<[u8; 32]>(),
        decoys in decoys(),
        pos in any::<Index>(),
        sender_decoys in prop::collection::vec(any::<[u8; 32]>(), 0..8),
        sender_pos in any::<Index>(),
        named in any::<bool>(),
    ) {
        let me = IdentityKey::from_secret(kind.clone(), key_id.clone(), SecretKey::from_bytes(&secret));
        let sender = IdentityKey::from_secret(sender_kind, sender_key_id, SecretKey::from_bytes(&sender_secret));
        let key = StreamKey::from_bytes(&stream_key);
        let mut wrap = {
 let mut rng = FixedRandomness::new(&ephemeral);
let wrap = hazmat::wrap_stream_key_with(&mut rng, &root, generation, &key, &sender, &Recipient::of(&me));
            // Exactly the 32 bytes of ikmE were drawn.
            assert_eq!(Some(rng.remaining()), Some(0));
            wrap
}
        .unwrap();
        prop_assert_eq!(wrap.key_generation, generation);
        prop_assert_eq!(wrap.recipient_key_id.as_deref(), Some(key_id.as_str()));
        prop_assert_eq!(wrap.recipient_kind.as_ref(), Some(&kind));
        prop_assert_eq!(decode_base64("wrapEnc", &wrap.wrap_enc).unwrap().len(), WRAP_ENC_LEN);
        prop_assert_eq!(decode_base64("wrapCt", &wrap.wrap_ct).unwrap().len(), WRAP_CT_LEN);

        // The record survives its JSON form.
        let json = serde_json::to_string(&wrap).unwrap();
        prop_assert_eq!(&serde_json::from_str::<KeyWrap>(&json).unwrap(), &wrap);

        if !named {
            // A sealedContext wrap names no recipient: every key is tried.
            wrap.recipient_key_id = None;
            wrap.recipient_kind = None;
        }
        let mine = keyset(&me, &decoys, pos);
        prop_assert!(mine.len() <= MAX_KEYS);
        let senders = senderset(&sender, &sender_decoys, sender_pos);
        let opened = unwrap_stream_key(&root, &wrap, &mine, &senders).unwrap();
        prop_assert!(opened.key == key);
        // It says which of the caller's keys and which accepted sender.
        prop_assert_eq!(mine[opened.recipient].public_key(), me.public_key());
        prop_assert_eq!(&senders[opened.sender], &Recipient::of(&sender));
        let alone = unwrap_stream_key(&root, &wrap, std::slice::from_ref(&me), &[Recipient::of(&sender)]).unwrap();
        prop_assert!(alone.key == key);
        prop_assert_eq!((alone.sender, alone.recipient), (0, 0));
    }

    #[test]
    fn wrap_attacks(
        root in id(),
        other_root in id(),
        generation in generation(),
        other_generation in generation(),
        kind in recipient_kind(),
        key_id in key_id(),
        other_key_id in key_id(),
        secret in any::<[u8; 32]>(),
        other_secret in any::<[u8; 32]>(),
        (sender_kind, sender_key_id, sender_secret) in (recipient_kind(), key_id(), any::<[u8; 32]>()),
        stream_key in any::<[u8; 32]>(),
        field_bit in (any::<bool>(), any::<Index>()),
    ) {
        let me = IdentityKey::from_secret(kind.clone(), key_id.clone(), SecretKey::from_bytes(&secret));
        let sender = IdentityKey::from_secret(sender_kind.clone(), sender_key_id.clone(), SecretKey::from_bytes(&sender_secret));
        let accepted = [Recipient::of(&sender)];
        let wrap = wrap_stream_key(&root, generation, &StreamKey::from_bytes(&stream_key), &sender, &Recipient::of(&me)).unwrap();
        let mine = std::slice::from_ref(&me);
        let mut unnamed = wrap.clone();
        unnamed.recipient_key_id = None;
        unnamed.recipient_kind = None;
        prop_assert!(unwrap_stream_key(&root, &wrap, mine, &accepted).is_ok());

        // Presented for another root stream.
        if other_root != root {
            prop_assert_eq!(code(unwrap_stream_key(&other_root, &wrap, mine, &accepted)), ErrorCode::UntrustedWrap);
            prop_assert_eq!(code(unwrap_stream_key(&other_root, &unnamed, mine, &accepted)), ErrorCode::UntrustedWrap);
        }
        // Relabelled with another generation.
        if other_generation != generation {
            for w in [&wrap, &unnamed] {
                let mut moved = w.clone();
                moved.key_generation = other_generation;
                prop_assert_eq!(code(unwrap_stream_key(&root, &moved, mine, &accepted)), ErrorCode::UntrustedWrap);
            }
        }
        // Readdressed to a key id the caller does not hold.
        if other_key_id != key_id {
            let mut readdressed = wrap.clone();
            readdressed.recipient_key_id = Some(other_key_id.as_str().to_owned());
            match unwrap_stream_key(&root, &readdressed, mine, &accepted) {
                Err(CryptoError::NoMatchingKey { key_id: named }) => prop_assert_eq!(named, other_key_id.as_str()),
                other => prop_assert!(false, "expected NO_MATCHING_KEY, got {:?}", other.map(|_| ())),
            }
            // Held under that id and kind, but moved to it: the info differs.
            let impostor = IdentityKey::from_secret(kind.clone(), other_key_id.clone(), SecretKey::from_bytes(&secret));
            prop_assert_eq!(
                code(unwrap_stream_key(&root, &readdressed, std::slice::from_ref(&impostor), &accepted)),
                ErrorCode::UntrustedWrap
            );
        }
        // Named with another kind than the caller's key of that id.
        let other_kind = match &kind {
            RecipientKind::User => RecipientKind::Bot,
            _ => RecipientKind::User,
        };
        let mut rekinded = wrap.clone();
        rekinded.recipient_kind = Some(other_kind.clone());
        prop_assert_eq!(code(unwrap_stream_key(&root, &rekinded, mine, &accepted)), ErrorCode::NoMatchingKey);
        // The caller's key registered as another kind does not open it either.
        let same_secret_other_kind = IdentityKey::from_secret(other_kind, key_id.clone(), SecretKey::from_bytes(&secret));
        prop_assert_eq!(
            code(unwrap_stream_key(&root, &unnamed, std::slice::from_ref(&same_secret_other_kind), &accepted)),
            ErrorCode::UntrustedWrap
        );
        // Another secret under the same kind and id (a replaced key).
        if other_secret != secret {
            let replaced = IdentityKey::from_secret(kind.clone(), key_id.clone(), SecretKey::from_bytes(&other_secret));
            if replaced.public_key() != me.public_key() {
                prop_assert_eq!(
                    code(unwrap_stream_key(&root, &wrap, std::slice::from_ref(&replaced), &accepted)),
                    ErrorCode::UntrustedWrap
                );
            }
        }
        // Presented as made by another sender: another key under the same
        // kind and id, the same key under another id or kind, the recipient
        // itself, or no accepted sender at all.
        let other_kind_of_sender = match &sender_kind {
            RecipientKind::User => RecipientKind::Bot,
            _ => RecipientKind::User,
        };
        let mut impersonated = vec![
            Recipient { kind: other_kind_of_sender, ..Recipient::of(&sender) },
        ];
        let other_sender = IdentityKey::from_secret(sender_kind.clone(), sender_key_id.clone(), SecretKey::from_bytes(&other_secret));
        if other_sender.public_key() != sender.public_key() {
            impersonated.push(Recipient::of(&other_sender));
        }
        if other_key_id != sender_key_id {
            impersonated.push(Recipient { key_id: other_key_id.clone(), ..Recipient::of(&sender) });
        }
        if me.public_key() != sender.public_key() {
            impersonated.push(Recipient::of(&me));
        }
        for w in [&wrap, &unnamed] {
            for claimed in &impersonated {
                prop_assert_eq!(
                    code(unwrap_stream_key(&root, w, mine, std::slice::from_ref(claimed))),
                    ErrorCode::UntrustedWrap
                );
            }
            // All of them together still do not make the real sender.
            prop_assert_eq!(code(unwrap_stream_key(&root, w, mine, &impersonated)), ErrorCode::UntrustedWrap);
            prop_assert_eq!(code(unwrap_stream_key(&root, w, mine, &[])), ErrorCode::UntrustedWrap);
        }
        // One flipped bit of wrapEnc or wrapCt.
        let (in_enc, bit) = field_bit;
        let mut flipped = wrap.clone();
        if in_enc {
            let mut enc = decode_base64("wrapEnc", &wrap.wrap_enc).unwrap();
            flip_bit(&mut enc, bit.index(WRAP_ENC_LEN * 8));
            flipped.wrap_enc = encode_base64(&enc);
        } else {
            let mut ct = decode_base64("wrapCt", &wrap.wrap_ct).unwrap();
            flip_bit(&mut ct, bit.index(WRAP_CT_LEN * 8));
            flipped.wrap_ct = encode_base64(&ct);
        }
        prop_assert_eq!(code(unwrap_stream_key(&root, &flipped, mine, &accepted)), ErrorCode::UntrustedWrap);
    }

    #[test]
    fn unnamed_wrap_with_none_of_the_keys_fails_after_trying_all(
        decoys in prop::collection::vec(any::<[u8; 32]>(), 0..=MAX_KEYS),
        secret in any::<[u8; 32]>(),
    ) {
        let me = IdentityKey::from_secret(RecipientKind::Bot, KeyId::new("m").unwrap(), SecretKey::from_bytes(&secret));
        let owner = IdentityKey::from_secret(RecipientKind::User, KeyId::new("o").unwrap(), SecretKey::from_bytes(&[7; 32]));
        let mut wrap = wrap_stream_key("r", 0, &StreamKey::from_bytes(&[1; 32]), &owner, &Recipient::of(&me)).unwrap();
        wrap.recipient_key_id = None;
        wrap.recipient_kind = None;
        let mine: Vec<IdentityKey> = decoys
            .iter()
            .filter(|d| **d != secret)
            .map(|d| IdentityKey::from_secret(RecipientKind::Bot, KeyId::new("m").unwrap(), SecretKey::from_bytes(d)))
            .filter(|k| k.public_key() != me.public_key())
            .collect();
        prop_assert_eq!(code(unwrap_stream_key("r", &wrap, &mine, &[Recipient::of(&owner)])), ErrorCode::UntrustedWrap);
    }
}

// ---------------------------------------------------------------------------
// Private-key bundles
// ---------------------------------------------------------------------------

/// Parameters a new bundle may have: from the creation floor (m = 19456,
/// t = 2, p = 1) to a little above it, one or two lanes.
fn new_bundle_params() -> impl Strategy<Value = KdfParams> {
    (19_456u32..=20_480, 1u32..=2).prop_map(|(m, p)| KdfParams::argon2id(m, 2, p))
}

proptest! {
    #![proptest_config(cases(16))]

    #[test]
    fn bundle_round_trip_and_tampering(
        secret in any::<[u8; 32]>(),
        other_secret in any::<[u8; 32]>(),
        pass in passphrase(),
        wrong in passphrase(),
        params in new_bundle_params(),
        randomness in any::<[u8; 28]>(),
        bundle_bit in any::<Index>(),
        salt_bit in any::<Index>(),
    ) {
        let secret = SecretKey::from_bytes(&secret);
        let public = secret.public_key();
        let limits = KdfLimits::default();
        let bundle = hazmat::create_bundle_with(&mut FixedRandomness::new(&randomness), &secret, &pass, &params).unwrap();
        prop_assert_eq!(&bundle.kdf_params, &params);
        // 16 salt bytes, then 12 iv bytes, from the fixed randomness.
        prop_assert_eq!(decode_base64("kdfSalt", &bundle.kdf_salt).unwrap(), randomness[..16].to_vec());
        let raw = decode_base64("bundle", &bundle.encrypted_private_bundle).unwrap();
        prop_assert_eq!(raw.len(), 61);
        prop_assert_eq!(raw[0], BUNDLE_VERSION);
        prop_assert_eq!(&raw[1..13], &randomness[16..]);

        let opened = open_bundle(&public, &bundle, &pass, &limits).unwrap();
        prop_assert_eq!(*opened.to_bytes(), *secret.to_bytes());
        prop_assert_eq!(opened.public_key(), public);

        // The same passphrase in any normalisation form opens it.
        let nfd: String = pass.nfd().collect();
        let nfc: String = pass.nfc().collect();
        prop_assert_eq!(*open_bundle(&public, &bundle, &nfd, &limits).unwrap().to_bytes(), *secret.to_bytes());
        prop_assert_eq!(*open_bundle(&public, &bundle, &nfc, &limits).unwrap().to_bytes(), *secret.to_bytes());

        // Another passphrase (not canonically equivalent) does not.
        if wrong.nfc().collect::<String>() != nfc {
            prop_assert_eq!(code(open_bundle(&public, &bundle, &wrong, &limits)), ErrorCode::WrongPassphrase);
        }
        // Presented with another record's public key.
        let other_public = SecretKey::from_bytes(&other_secret).public_key();
        if other_public != public {
            prop_assert_eq!(code(open_bundle(&other_public, &bundle, &pass, &limits)), ErrorCode::WrongPassphrase);
        }
        // Other KDF parameters than it was made with.
        let mut reparam = bundle.clone();
        reparam.kdf_params.t = 3;
        prop_assert_eq!(code(open_bundle(&public, &reparam, &pass, &limits)), ErrorCode::WrongPassphrase);

        // One flipped bit of the bundle: the version byte is told apart, the
        // rest fails authentication.
        let bit = bundle_bit.index(raw.len() * 8);
        let mut flipped = raw.clone();
        flip_bit(&mut flipped, bit);
        let tampered = SealedBundle { encrypted_private_bundle: encode_base64(&flipped), ..bundle.clone() };
        let want = if bit < 8 { ErrorCode::UnsupportedBundleVersion } else { ErrorCode::WrongPassphrase };
        prop_assert_eq!(code(open_bundle(&public, &tampered, &pass, &limits)), want);

        // One flipped bit of the salt.
        let mut salt = decode_base64("kdfSalt", &bundle.kdf_salt).unwrap();
        let bit = salt_bit.index(salt.len() * 8);
        flip_bit(&mut salt, bit);
        let tampered = SealedBundle { kdf_salt: encode_base64(&salt), ..bundle.clone() };
        prop_assert_eq!(code(open_bundle(&public, &tampered, &pass, &limits)), ErrorCode::WrongPassphrase);
    }
}

// ---------------------------------------------------------------------------
// End to end: a sealed stream across wraps and envelopes
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn generation_roll_keeps_old_messages_readable_and_new_ones_private(
        root in id(),
        slot in slot(),
        old in prop::collection::vec(any::<u8>(), 0..=256),
        new in prop::collection::vec(any::<u8>(), 0..=256),
        g0 in 0u32..u32::MAX,
    ) {
        let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
        let removed = IdentityKey::generate(RecipientKind::Bot, KeyId::new("runtime").unwrap()).unwrap();
        let k0 = StreamKey::generate().unwrap();
        let k1 = StreamKey::generate().unwrap();
        let g1 = g0 + 1;
        let sealer = Sealer::new();
        let mut ring = Keyring::new(root.as_str()).unwrap();
        ring.insert(g0, k0.clone()).unwrap();
        let old_sealed = sealer.seal(&ring, &slot, &old).unwrap();
        ring.insert(g1, k1.clone()).unwrap();
        // Inserting the newer key raised the sealing generation.
        prop_assert_eq!(ring.current_generation(), Some(g1));
        let new_sealed = sealer.seal(&ring, &slot, &new).unwrap();
        prop_assert_eq!(new_sealed.envelope.key_generation, g1);

        // The removed runtime got only generation g0's wrap.
        let w0 = wrap_stream_key(&root, g0, &k0, &owner, &Recipient::of(&removed)).unwrap();
        let w1 = wrap_stream_key(&root, g1, &k1, &owner, &Recipient::of(&owner)).unwrap();
        let from_owner = [Recipient::of(&owner)];
        let mut theirs = Keyring::new(root.as_str()).unwrap();
        theirs.insert(g0, unwrap_stream_key(&root, &w0, std::slice::from_ref(&removed), &from_owner).unwrap().key).unwrap();
        prop_assert_eq!(code(unwrap_stream_key(&root, &w1, std::slice::from_ref(&removed), &from_owner)), ErrorCode::NoMatchingKey);
        prop_assert_eq!(&*sealer.open(&theirs, &slot, &old_sealed).unwrap().plaintext, old.as_slice());
        prop_assert_eq!(code(sealer.open(&theirs, &slot, &new_sealed)), ErrorCode::UnknownKeyGeneration);
        // Relabelling the new ciphertext with the old generation does not help.
        let mut relabelled = new_sealed.clone();
        relabelled.envelope.key_generation = g0;
        prop_assert_eq!(code(sealer.open(&theirs, &slot, &relabelled)), ErrorCode::AadMismatch);
    }
}

/// API §9.6 asks the library to keep the fields it does not know, so a
/// sealed payload and its envelope keep them (issue 17). The attack: a
/// server adds fields that look like a second envelope, generation or AAD.
/// They are carried, written back, and never read: the opener recomputes
/// everything from the known fields, and a real change to one of those is
/// still refused.
#[test]
fn unknown_fields_in_a_sealed_payload_are_kept_and_never_read() {
    let sealer = Sealer::new();
    let ring = ring_with("stream_root", 3, &[7; 32]);
    let slot = Slot::Message {
        stream_id: "stream_root".into(),
        message_id: "msg_1".into(),
        author_id: "usr_1".into(),
        author_type: "user".into(),
        revision: 0,
    };
    let sealed = sealer.seal(&ring, &slot, b"hello").unwrap();
    let mut value = serde_json::to_value(&sealed).unwrap();
    value["aad"] = serde_json::json!("AAAA");
    value["envelope"]["v"] = serde_json::json!(2);
    value["envelope"]["keyGeneration2"] = serde_json::json!(0);
    value["envelope"]["aadOverride"] = serde_json::json!({"slot": "elsewhere"});
    let with_fields: SealedPayload = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&with_fields).unwrap(), value);
    assert_eq!(
        with_fields.extra.get_json("aad"),
        Some(serde_json::json!("AAAA"))
    );
    assert_eq!(with_fields.envelope.extra.len(), 2);
    let opened = sealer.open(&ring, &slot, &with_fields).unwrap();
    assert_eq!(opened.plaintext.as_slice(), b"hello");

    // The known fields still bind: another generation is refused with the
    // unknown fields present.
    let mut moved = with_fields.clone();
    moved.envelope.key_generation = 4;
    let refused = code(sealer.open(&ring, &slot, &moved));
    assert!(
        [ErrorCode::UnknownKeyGeneration, ErrorCode::AadMismatch].contains(&refused),
        "{refused:?}"
    );
}

/// Fixed randomness reaches only the call it is handed to: the same bytes
/// seal to the same output (which is what makes them hazardous), and the
/// public `seal` right after still draws its own iv and `Z` from the
/// operating system. No state outlives a hazmat call.
#[test]
fn fixed_randomness_reaches_only_the_call_it_is_given_to() {
    let sealer = Sealer::new();
    let ring = ring_with("stream_root", 0, &[7; 32]);
    let slot = golden::sample_slots()[0].1.clone();
    let fixed = [0x42; 12 + NONCE_LEN];
    let a = sealer
        .seal_with(&mut FixedRandomness::new(&fixed), &ring, &slot, b"x")
        .unwrap();
    let b = sealer
        .seal_with(&mut FixedRandomness::new(&fixed), &ring, &slot, b"x")
        .unwrap();
    assert_eq!(a, b, "the same fixed bytes seal to the same payload");
    assert_eq!(a.envelope.iv, encode_base64(&[0x42; 12]));
    let c = sealer.seal(&ring, &slot, b"x").unwrap();
    assert_ne!(
        c.envelope.iv, a.envelope.iv,
        "the public seal drew its own iv"
    );
    assert_ne!(c.ciphertext, a.ciphertext);
    assert_eq!(
        sealer.open(&ring, &slot, &c).unwrap().plaintext.as_slice(),
        b"x"
    );
}
