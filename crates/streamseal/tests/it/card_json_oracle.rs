//! A decision card's plaintext against serde_json as the oracle.
//!
//! The card's JSON is written and read by the core's own codec
//! (`streamseal-sealed/src/card_json.rs`), so that one content has one
//! plaintext and the browser's module needs no JSON parser. These tests hold
//! it to serde_json, through the public API only:
//! - what `seal_decision_card` encrypts is byte for byte `serde_json::to_vec`
//!   of the content;
//! - `open_decision_card` accepts a plaintext exactly when serde_json reads
//!   it as a content that serde_json writes back as the same bytes, and
//!   then returns that content; every other plaintext is `MALFORMED_JSON`.

use std::collections::BTreeMap;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use streamseal::envelope::{open, seal};
use streamseal::identity::{IdentityKey, KeyId, RecipientKind};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionCardContent, card_slot, open_decision_card, seal_decision_card,
};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::DecisionOption;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::ids::DecisionId;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::{Error, ErrorCode};

const ROOT: &str = "stream_root";

/// Strings made of what the card's JSON must escape, may not escape and
/// must leave alone: quotes, backslashes, every control character, `/`,
/// DEL, non-ASCII and any other character.
fn card_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just('"'),
        Just('\\'),
        Just('/'),
        Just('\u{7f}'),
        Just('é'),
        (0u8..0x20).prop_map(char::from),
        proptest::char::range('a', 'z'),
        any::<char>(),
    ];
    vec(piece, 0..10).prop_map(|chars| chars.into_iter().collect())
}

fn content() -> impl Strategy<Value = DecisionCardContent> {
    (
        card_text(),
        card_text(),
        btree_map("[a-z]{1,6}", card_text(), 0..4),
    )
        .prop_map(|(title, body, labels)| DecisionCardContent {
            title,
            body,
            labels,
        })
}

/// One change of the kind a JSON parser may take and a canonical reader
/// must not (or, for `Keep`, must).
#[derive(Clone, Debug)]
enum Change {
    Keep,
    /// A byte inserted (whitespace, a quote, a brace, ...).
    Insert(usize, u8),
    /// A byte removed.
    Remove(usize),
    /// A byte replaced.
    Replace(usize, u8),
    /// Cut short.
    Truncate(usize),
    /// A character spelled as a `\u` escape (lower- or uppercase hex).
    Escape(usize, bool),
    /// The first label repeated at the end.
    RepeatLabel,
    /// `body` before `title`.
    SwapFields,
    /// Another field inside the object.
    ExtraField,
}

fn change() -> impl Strategy<Value = Change> {
    let at = any::<prop::sample::Index>();
    prop_oneof![
        2 => Just(Change::Keep),
        1 => (at.clone(), prop::sample::select(b" \t\n\r\"\\{}[],:0u/".to_vec()))
            .prop_map(|(i, b)| Change::Insert(i.index(1 << 16), b)),
        1 => at.clone().prop_map(|i| Change::Remove(i.index(1 << 16))),
        1 => (at.clone(), any::<u8>()).prop_map(|(i, b)| Change::Replace(i.index(1 << 16), b)),
        1 => at.clone().prop_map(|i| Change::Truncate(i.index(1 << 16))),
        1 => (at, any::<bool>()).prop_map(|(i, upper)| Change::Escape(i.index(1 << 16), upper)),
        1 => Just(Change::RepeatLabel),
        1 => Just(Change::SwapFields),
        1 => Just(Change::ExtraField),
    ]
}

fn apply(content: &DecisionCardContent, change: &Change) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(content).unwrap();
    let len = bytes.len();
    match *change {
        Change::Keep => {}
        Change::Insert(i, b) => bytes.insert(i % (len + 1), b),
        Change::Remove(i) => {
            bytes.remove(i % len);
        }
        Change::Replace(i, b) => bytes[i % len] = b,
        Change::Truncate(i) => bytes.truncate(i % len),
        Change::Escape(i, upper) => {
            // Re-spell one character of the text as `\uXXXX` (a pair for
            // one beyond the BMP), wherever it is, even in syntax.
            let text = String::from_utf8(bytes.clone()).unwrap();
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            let (at, c) = chars[i % chars.len()];
            let mut units = [0u16; 2];
            let spelled: String = c
                .encode_utf16(&mut units)
                .iter()
                .map(|u| {
                    if upper {
                        format!("\\u{u:04X}")
                    } else {
                        format!("\\u{u:04x}")
                    }
                })
                .collect();
            let mut changed = text[..at].to_owned();
            changed.push_str(&spelled);
            changed.push_str(&text[at + c.len_utf8()..]);
            bytes = changed.into_bytes();
        }
        Change::RepeatLabel => {
            if let Some((k, v)) = content.labels.iter().next() {
                let entry = format!(
                    ",{}:{}",
                    serde_json::to_string(k).unwrap(),
                    serde_json::to_string(v).unwrap()
                );
                // Before the labels' closing brace.
                bytes.splice(len - 2..len - 2, entry.into_bytes());
            }
        }
        Change::SwapFields => {
            let swapped = format!(
                "{{\"body\":{},\"title\":{},\"labels\":{}}}",
                serde_json::to_string(&content.body).unwrap(),
                serde_json::to_string(&content.title).unwrap(),
                serde_json::to_string(&content.labels).unwrap()
            );
            bytes = swapped.into_bytes();
        }
        Change::ExtraField => {
            bytes.splice(len - 1..len - 1, b",\"note\":1".iter().copied());
        }
    }
    bytes
}

struct Fixture {
    ring: Keyring,
    bot: IdentityKey,
    trust: TrustStore,
}

impl Fixture {
    fn new() -> Self {
        let mut ring = Keyring::new(ROOT).unwrap();
        ring.insert(0, StreamKey::generate().unwrap()).unwrap();
        Self {
            ring,
            bot: IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap())
                .unwrap(),
            trust: TrustStore::new(TrustPolicy::TofuWithAlerts),
        }
    }

    fn keys(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.trust).with_own("bot_1", &self.bot)
    }

    fn signer(&self) -> Signer<'_> {
        Signer::new("bot_1", &self.bot).unwrap()
    }

    fn options(labels: &BTreeMap<String, String>) -> Vec<DecisionOption> {
        let mut options: Vec<DecisionOption> = labels
            .keys()
            .map(|id| DecisionOption {
                id: id.clone(),
                tone: "neutral".into(),
            })
            .collect();
        if options.is_empty() {
            options.push(DecisionOption {
                id: "go".into(),
                tone: "primary".into(),
            });
        }
        options
    }

    /// A card whose sealed plaintext is `plaintext`, whatever it is, signed by
    /// the bot (`streamseal::envelope::seal` under the card's slot).
    fn card_with(&self, plaintext: &[u8]) -> CreateDecisionRequest {
        let mut card = CreateDecisionRequest {
            decision_id: DecisionId::mint(1_763_700_000_000)
                .unwrap()
                .as_str()
                .to_owned(),
            sealed: None,
            options: Self::options(&BTreeMap::new()),
            allow_note: true,
            runtime_session_id: "session-1".into(),
            invocation_id: "inv_1".into(),
        };
        let slot = card_slot(ROOT, &card);
        card.sealed = Some(seal(&self.ring, &self.signer(), &slot, plaintext).unwrap());
        card
    }

    fn open(&self, plaintext: &[u8]) -> Result<DecisionCardContent, Error> {
        let card = self.card_with(plaintext);
        open_decision_card(&self.ring, &self.keys(), ROOT, &card).map(|opened| opened.content)
    }
}

/// What serde_json reads from `bytes`, if it would write it back as them.
fn oracle(bytes: &[u8]) -> Option<DecisionCardContent> {
    serde_json::from_slice::<DecisionCardContent>(bytes)
        .ok()
        .filter(|c| serde_json::to_vec(c).unwrap() == bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The sealer writes serde_json's bytes, and they open to the content.
    #[test]
    fn a_card_seals_serde_jsons_bytes(content in content()) {
        let fx = Fixture::new();
        let decision = DecisionId::mint(1_763_700_000_000).unwrap();
        let placement = CardPlacement {
            stream_id: ROOT,
            decision_id: &decision,
            runtime_session_id: "session-1",
            invocation_id: "inv_1",
        };
        let options = Fixture::options(&content.labels);
        let card = seal_decision_card(&fx.ring, &fx.signer(), placement, options, true, &content).unwrap();
        let opened = open(&fx.ring, &fx.keys(), &card_slot(ROOT, &card), card.sealed.as_ref().unwrap()).unwrap();
        prop_assert_eq!(&opened.plaintext[..], &serde_json::to_vec(&content).unwrap()[..]);
        prop_assert_eq!(open_decision_card(&fx.ring, &fx.keys(), ROOT, &card).unwrap().content, content);
    }

    /// A changed plaintext opens exactly when serde_json reads it and
    /// writes it back unchanged, to the content serde_json reads; otherwise
    /// it is `MALFORMED_JSON`.
    #[test]
    fn a_card_opens_exactly_what_serde_json_writes(content in content(), change in change()) {
        let fx = Fixture::new();
        let bytes = apply(&content, &change);
        match (fx.open(&bytes), oracle(&bytes)) {
            (Ok(read), Some(expected)) => prop_assert_eq!(read, expected),
            (Err(e), None) => prop_assert_eq!(e.code(), ErrorCode::MalformedJson, "{}", e),
            (got, expected) => prop_assert!(
                false,
                "{:?}: read {:?}, serde_json {:?}",
                String::from_utf8_lossy(&bytes),
                got,
                expected
            ),
        }
    }

    /// Bytes that are not JSON at all, or barely: the same verdict.
    #[test]
    fn arbitrary_bytes_open_only_as_serde_jsons_bytes(bytes in vec(any::<u8>(), 0..48)) {
        let fx = Fixture::new();
        let mut framed = b"{\"title\":\"".to_vec();
        framed.extend_from_slice(&bytes);
        for candidate in [bytes.clone(), framed] {
            let read = fx.open(&candidate);
            let expected = oracle(&candidate);
            prop_assert_eq!(read.as_ref().ok(), expected.as_ref());
            if let Err(e) = read {
                prop_assert_eq!(e.code(), ErrorCode::MalformedJson);
            }
        }
    }
}

/// Fixed cases that JSON parsers take and the card refuses, each next to
/// the canonical spelling that opens.
#[test]
fn spellings_json_allows_and_the_card_refuses() {
    let fx = Fixture::new();
    let canonical = br#"{"title":"a\"b\\c\n\u001f/","body":"","labels":{"go":"Go"}}"#;
    let opened = fx.open(canonical).unwrap();
    assert_eq!(opened.title, "a\"b\\c\n\u{1f}/");
    assert_eq!(opened.labels["go"], "Go");
    for refused in [
        // Whitespace.
        &br#"{"title":"t", "body":"","labels":{}}"#[..],
        br#"{"title":"t","body":"","labels":{}} "#,
        // A repeated label (serde_json keeps the last) and labels out of order.
        br#"{"title":"t","body":"","labels":{"go":"A","go":"B"}}"#,
        br#"{"title":"t","body":"","labels":{"no":"A","go":"B"}}"#,
        // Escapes serde_json does not write: `\/`, `\u0041`, uppercase hex,
        // a control's `\u` where it has a short escape, lone surrogates.
        br#"{"title":"\/","body":"","labels":{}}"#,
        br#"{"title":"\u0041","body":"","labels":{}}"#,
        br#"{"title":"\u001F","body":"","labels":{}}"#,
        br#"{"title":"\u000a","body":"","labels":{}}"#,
        br#"{"title":"\ud800","body":"","labels":{}}"#,
        // An unknown field, a field missing, another order.
        br#"{"title":"t","body":"","labels":{},"x":1}"#,
        br#"{"title":"t","labels":{}}"#,
        br#"{"body":"","title":"t","labels":{}}"#,
        // A raw control character, and bytes that are not UTF-8.
        b"{\"title\":\"\x01\",\"body\":\"\",\"labels\":{}}",
        b"{\"title\":\"\xff\",\"body\":\"\",\"labels\":{}}",
        b"",
    ] {
        let err = fx.open(refused).unwrap_err();
        assert_eq!(
            err.code(),
            ErrorCode::MalformedJson,
            "{}",
            String::from_utf8_lossy(refused)
        );
    }
}
