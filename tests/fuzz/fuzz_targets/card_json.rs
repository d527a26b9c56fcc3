//! A decision card's plaintext (`open_decision_card`), against serde_json.
//!
//! The input is the plaintext itself, sealed (fixed iv and signature nonce)
//! by the vectors' bot under a card's slot, so every input reaches the
//! card's codec after a real decryption and signature check. The card's JSON
//! is canonical (FORMAT.md section 3, **decisionCard**): it must open
//! exactly when serde_json reads it as a content that serde_json writes back
//! as the same bytes, and then to that content; anything else is
//! `MALFORMED_JSON`. What opens seals again to the same plaintext.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamseal::ErrorCode;
use streamseal::envelope::open;
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionCardContent, card_slot, open_decision_card, seal_decision_card,
};
use streamseal::sender::Signer;
use streamseal::slot::DecisionOption;
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::ids::DecisionId;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal_fuzz::{
    ENVELOPE_BOT, ROOT, envelope_keyring, envelope_sender_keys, envelope_senders, seal_randomness,
};

const DECISION: &str = "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T";

fuzz_target!(|plaintext: &[u8]| {
    let ring = envelope_keyring();
    let senders = envelope_senders();
    let Some((_, bot)) = senders.iter().find(|(s, _)| *s == ENVELOPE_BOT) else {
        return;
    };
    let Ok(signer) = Signer::new(ENVELOPE_BOT, bot) else {
        return;
    };
    let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let keys = envelope_sender_keys(&trust);
    let mut card = CreateDecisionRequest {
        decision_id: DECISION.to_owned(),
        sealed: None,
        options: vec![DecisionOption {
            id: "go".into(),
            tone: "primary".into(),
        }],
        allow_note: true,
        runtime_session_id: "session-1".into(),
        invocation_id: "inv_1".into(),
    };
    let slot = card_slot(ROOT, &card);
    let Ok(sealed) = hazmat::seal_envelope_with(
        &mut FixedRandomness::new(&seal_randomness(&[7; 12])),
        &ring,
        &signer,
        &slot,
        plaintext,
    ) else {
        // Too large to seal: nothing to open.
        return;
    };
    card.sealed = Some(sealed);
    let oracle = serde_json::from_slice::<DecisionCardContent>(plaintext)
        .ok()
        .filter(|c| serde_json::to_vec(c).is_ok_and(|again| again == plaintext));
    match open_decision_card(&ring, &keys, ROOT, &card) {
        Ok(opened) => {
            assert_eq!(
                Some(&opened.content),
                oracle.as_ref(),
                "opened what serde_json would not write"
            );
            // Sealed again (its labels on options of their own), the
            // plaintext is the same bytes.
            let options: Vec<DecisionOption> = opened
                .content
                .labels
                .keys()
                .map(|id| DecisionOption {
                    id: id.clone(),
                    tone: "neutral".into(),
                })
                .collect();
            let Ok(decision) = DecisionId::parse(DECISION) else {
                return;
            };
            let placement = CardPlacement {
                stream_id: ROOT,
                decision_id: &decision,
                runtime_session_id: "session-1",
                invocation_id: "inv_1",
            };
            if let Ok(again) =
                seal_decision_card(&ring, &signer, placement, options, true, &opened.content)
            {
                let reopened = open(
                    &ring,
                    &keys,
                    &card_slot(ROOT, &again),
                    again.sealed.as_ref().unwrap(),
                )
                .expect("a card sealed here opens");
                assert_eq!(&reopened.plaintext[..], plaintext, "sealed to other bytes");
            }
        }
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::MalformedJson, "{e}");
            assert!(oracle.is_none(), "refused what serde_json writes");
        }
    }
});
