//! Shared pieces of the fuzz targets: the fixed keys of the golden vectors
//! (so that seeds taken from `tests/vectors/streamseal/*.json` open all the
//! way), structured inputs built with `arbitrary`, and the round-trip oracle.
//!
//! A harness signals a finding by panicking (libFuzzer records the input);
//! the library itself must never panic, whatever the input.

use std::fmt::Debug;

use arbitrary::Arbitrary;
use serde::Serialize;
use serde::de::DeserializeOwned;
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind, SecretKey};
use streamseal::sender::SenderKeys;
use streamseal::slot::{DecisionOption, Slot, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::TrustStore;

/// The root stream of every golden vector.
pub const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";

/// 32 bytes from 64 hex digits (constants of this file only).
pub fn hex32(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    out
}

fn identity(kind: RecipientKind, id: &str, secret_hex: &str) -> IdentityKey {
    let key_id = KeyId::new(id).unwrap_or_else(|e| unreachable!("fixed key id {id}: {e}"));
    IdentityKey::from_secret(kind, key_id, SecretKey::from_bytes(&hex32(secret_hex)))
}

/// The three recipients of `wraps.json`: the owner's user key and two
/// runtime machines.
pub fn wrap_recipients() -> Vec<IdentityKey> {
    vec![
        identity(
            RecipientKind::User,
            "key_owner_laptop",
            "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f",
        ),
        identity(
            RecipientKind::Bot,
            "machine-a",
            "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f",
        ),
        identity(
            RecipientKind::Bot,
            "machine-b",
            "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f",
        ),
    ]
}

/// The stream keys `wraps.json` wraps, by generation (0 twice, 3).
pub fn wrapped_keys() -> Vec<(u32, StreamKey)> {
    vec![
        (
            0,
            StreamKey::from_bytes(&hex32(
                "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f",
            )),
        ),
        (
            0,
            StreamKey::from_bytes(&hex32(
                "6162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f80",
            )),
        ),
        (
            3,
            StreamKey::from_bytes(&hex32(
                "62636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f8081",
            )),
        ),
    ]
}

/// The senders of `wraps.json` (wrap format 2), as a member accepting them
/// knows them: the owner's key (subject `usr_owner`) and machine A's
/// (subject `bot_1`). Machine A made generation 0, the owner generation 3.
pub fn wrap_senders() -> Vec<(&'static str, Recipient)> {
    let recipients = wrap_recipients();
    recipients
        .iter()
        .take(2)
        .zip(["usr_owner", "bot_1"])
        .map(|(k, subject)| (subject, Recipient::of(k)))
        .collect()
}

/// The sender a vector of `wraps.json` names (`senderKind`, `senderKeyId`,
/// `senderPublicKey`).
pub fn vector_sender(vector: &serde_json::Value) -> Option<Recipient> {
    let text = |name: &str| vector.get(name).and_then(serde_json::Value::as_str);
    Some(Recipient {
        kind: RecipientKind::parse(text("senderKind")?),
        key_id: KeyId::new(text("senderKeyId")?).ok()?,
        public_key: PublicKey::from_base64(text("senderPublicKey")?).ok()?,
    })
}

/// The runtime key of `invocations.json`.
pub fn invocation_runtime() -> IdentityKey {
    identity(
        RecipientKind::Bot,
        "machine-b",
        "2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40",
    )
}

/// The owner's key of `invocations.json`, which made the wrap the runtime
/// admits.
pub fn invocation_owner() -> IdentityKey {
    identity(
        RecipientKind::User,
        "key_owner_laptop",
        "1112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30",
    )
}

/// The member's key of `invocations.json` (`memberUserId`): presented to the
/// runtime by the server, not pinned; it sealed one history item.
pub fn invocation_member() -> IdentityKey {
    identity(
        RecipientKind::User,
        "key_member_phone",
        "12131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031",
    )
}

/// A key pair of the server's own, presenting itself under the owner's key
/// id: what it wraps must never be admitted.
pub fn server_key() -> IdentityKey {
    IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("key_owner_laptop").unwrap_or_else(|e| unreachable!("{e}")),
        SecretKey::from_bytes(&[0x66; 32]),
    )
}

/// The identity key the persisted stream states and trust stores of the
/// `state` and `trust` targets (and their seeds) are sealed under: the
/// owner's key of `wraps.json`.
pub fn persist_key() -> IdentityKey {
    identity(
        RecipientKind::User,
        "key_owner_laptop",
        "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f",
    )
}

/// The owner's user id in `envelopes.json` (it seals messages, the prompt and
/// the decision note).
pub const ENVELOPE_OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";

/// The bot id in `envelopes.json` (it seals the reply, steps and the card).
pub const ENVELOPE_BOT: &str = "bot_01JD3QB0T0000000000000000B";

/// The two senders of `envelopes.json` with the keys they sign with (the
/// owner's user key `key_owner_laptop` and the bot's machine-a key, the
/// same as the first two of [`wrap_recipients`]).
pub fn envelope_senders() -> Vec<(&'static str, IdentityKey)> {
    wrap_recipients()
        .into_iter()
        .take(2)
        .zip([ENVELOPE_OWNER, ENVELOPE_BOT])
        .map(|(key, subject)| (subject, key))
        .collect()
}

/// What an opener of `envelopes.json` checks signatures against: `trust`
/// plus both senders' keys as the server presented them (not pinned, so a
/// signature by them opens as `unverified`).
pub fn envelope_sender_keys(trust: &TrustStore) -> SenderKeys<'_> {
    envelope_senders()
        .iter()
        .fold(SenderKeys::new(trust), |keys, (subject, key)| {
            keys.with_presented(subject, &Recipient::of(key))
        })
}

/// The fixed randomness one `envelope::seal` draws: the 12-byte iv, then
/// the 64 bytes of the signature's nonce.
pub fn seal_randomness(iv: &[u8; 12]) -> Vec<u8> {
    let mut bytes = iv.to_vec();
    bytes.extend_from_slice(&[0x5a; 64]);
    bytes
}

/// The stream key of `envelopes.json` (generation 2 of [`ROOT`]).
pub fn envelope_key() -> StreamKey {
    StreamKey::from_bytes(&hex32(
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f",
    ))
}

/// The keyring of `envelopes.json`: generation 2 of [`ROOT`] and an
/// unrelated generation 7 (the newest, so the one it seals under).
pub fn envelope_keyring() -> Keyring {
    envelope_keyring_up_to(u32::MAX)
}

/// [`envelope_keyring`] holding only the generations up to `newest`: it
/// seals under the newest of them (a keyring seals only under its newest
/// generation), and holds nothing below 2.
pub fn envelope_keyring_up_to(newest: u32) -> Keyring {
    let mut ring = Keyring::new(ROOT).unwrap_or_else(|e| unreachable!("{e}"));
    let other = StreamKey::from_bytes(&[7u8; 32]);
    for (generation, key) in [(2, envelope_key()), (7, other)] {
        if generation <= newest {
            ring.insert(generation, key)
                .unwrap_or_else(|e| unreachable!("{e}"));
        }
    }
    ring
}

/// decode -> encode -> decode gives the same value, and the encoding is
/// stable from then on. `what` names the type in the failure message.
pub fn json_round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(what: &str, value: &T) {
    let json = serde_json::to_string(value)
        .unwrap_or_else(|e| panic!("{what}: a decoded value does not serialise: {e}"));
    let back: T = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{what}: its own encoding does not decode: {e}\n{json}"));
    assert_eq!(&back, value, "{what}: decode(encode(x)) != x\n{json}");
    let again = serde_json::to_string(&back)
        .unwrap_or_else(|e| panic!("{what}: a decoded value does not serialise: {e}"));
    assert_eq!(again, json, "{what}: encoding is not stable");
}

/// Keys whose object is not a struct with fields: maps of data. The crypto
/// records the wire carries (`sealed`, `envelope`, `prompt`, `kdfParams`,
/// key wraps) keep unknown fields like every other object (issue 17).
const NOT_FIELDS: &[&str] = &["metadata", "capabilities", "range", "details", "slots"];

/// `doc` with `fields` added to every object that is a struct with fields,
/// at every depth (names already there are left alone).
pub fn with_unknown_fields(
    doc: &serde_json::Value,
    fields: &[(&str, serde_json::Value)],
) -> serde_json::Value {
    use serde_json::Value;
    fn walk(v: &mut Value, parent: Option<&str>, fields: &[(&str, Value)]) {
        match v {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    walk(child, Some(key), fields);
                }
                if parent.is_none_or(|p| !NOT_FIELDS.contains(&p)) {
                    for (name, value) in fields {
                        if !map.contains_key(*name) {
                            map.insert((*name).to_owned(), value.clone());
                        }
                    }
                }
            }
            Value::Array(items) => {
                for child in items {
                    walk(child, parent.map(|_| "[]"), fields);
                }
            }
            _ => {}
        }
    }
    let mut out = doc.clone();
    walk(&mut out, None, fields);
    out
}

/// The unknown fields the wire oracle adds: names no spec field has (every
/// spec field is camelCase, without `_`), values of every JSON kind, and
/// the fuzzer's own document.
pub fn unknown_fields(input: &serde_json::Value) -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "fuzz_later",
            serde_json::json!({"n": [-1, 18446744073709551615u64, 0.1, 1e300], "s": "\u{e9}\u{1f680}", "z": null}),
        ),
        ("fuzz_flag", serde_json::Value::Bool(true)),
        ("fuzz_input", input.clone()),
    ]
}

/// Section 9.6 (issue 17): a decoded response keeps the fields it does not
/// know and writes them back unchanged. Its own encoding (lossless by
/// [`json_round_trip`]) gets unknown fields in every struct object at every
/// depth; the result must decode, re-encode to exactly that JSON (value
/// level), and decode again to the same value.
pub fn unknown_fields_survive<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    what: &str,
    value: &T,
    input: &serde_json::Value,
) {
    let canonical = serde_json::to_value(value)
        .unwrap_or_else(|e| panic!("{what}: a decoded value does not serialise: {e}"));
    let widened = with_unknown_fields(&canonical, &unknown_fields(input));
    let read: T = serde_json::from_value(widened.clone())
        .unwrap_or_else(|e| panic!("{what}: unknown fields make it fail: {e}\n{widened}"));
    let back = serde_json::to_value(&read)
        .unwrap_or_else(|e| panic!("{what}: a decoded value does not serialise: {e}"));
    assert_eq!(
        back, widened,
        "{what}: unknown fields not written back unchanged"
    );
    no_key_twice(what, &read);
    json_round_trip(what, &read);
}

/// A key written twice collapses when the text is read as a `Value`, so the
/// text would be longer than the same members written once.
pub fn no_key_twice<T: Serialize>(what: &str, value: &T) {
    let text = serde_json::to_string(value)
        .unwrap_or_else(|e| panic!("{what}: a decoded value does not serialise: {e}"));
    let once: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{what}: its own encoding is not JSON: {e}"));
    assert_eq!(
        text.len(),
        once.to_string().len(),
        "{what}: a key is written twice\n{text}"
    );
}

/// A short string drawn from a small alphabet of interesting values or the
/// fuzzer's own text.
#[derive(Arbitrary, Debug, Clone)]
pub enum FuzzText {
    /// Empty.
    Empty,
    /// A plain id-like value.
    Id(u8),
    /// Anything.
    Raw(String),
}

impl FuzzText {
    /// The string.
    pub fn get(&self) -> String {
        match self {
            FuzzText::Empty => String::new(),
            FuzzText::Id(n) => format!("id_{n}"),
            FuzzText::Raw(s) => s.clone(),
        }
    }
}

/// A slot built from fuzzed fields.
#[derive(Arbitrary, Debug, Clone)]
pub enum FuzzSlot {
    /// [`Slot::Message`]: stream, message, author, author type, revision.
    Message(FuzzText, FuzzText, FuzzText, FuzzText, u32),
    /// [`Slot::BotReply`].
    BotReply(FuzzText, FuzzText, FuzzText, FuzzText),
    /// [`Slot::TraceStep`].
    TraceStep(FuzzText, FuzzText, FuzzText, bool, Option<FuzzText>),
    /// [`Slot::DecisionCard`]: stream, decision, invocation, runtime
    /// session, options, allow note.
    DecisionCard(
        FuzzText,
        FuzzText,
        FuzzText,
        FuzzText,
        Vec<(FuzzText, FuzzText)>,
        bool,
    ),
    /// [`Slot::DecisionNote`].
    DecisionNote(FuzzText, FuzzText, FuzzText),
}

impl FuzzSlot {
    /// The slot.
    pub fn slot(&self) -> Slot {
        match self {
            FuzzSlot::Message(s, m, a, t, revision) => Slot::Message {
                stream_id: s.get(),
                message_id: m.get(),
                author_id: a.get(),
                author_type: t.get(),
                revision: *revision,
            },
            FuzzSlot::BotReply(s, m, a, i) => Slot::BotReply {
                stream_id: s.get(),
                message_id: m.get(),
                author_id: a.get(),
                invocation_id: i.get(),
            },
            FuzzSlot::TraceStep(i, s, t, started, m) => Slot::TraceStep {
                invocation_id: i.get(),
                step_id: s.get(),
                step_type: t.get(),
                phase: if *started {
                    StepPhase::Started
                } else {
                    StepPhase::Completed
                },
                message_id: m.as_ref().map(FuzzText::get),
            },
            FuzzSlot::DecisionCard(s, d, i, r, options, allow_note) => Slot::DecisionCard {
                stream_id: s.get(),
                decision_id: d.get(),
                invocation_id: i.get(),
                runtime_session_id: r.get(),
                options: options
                    .iter()
                    .map(|(id, tone)| DecisionOption {
                        id: id.get(),
                        tone: tone.get(),
                    })
                    .collect(),
                allow_note: *allow_note,
            },
            FuzzSlot::DecisionNote(d, o, b) => Slot::DecisionNote {
                decision_id: d.get(),
                option_id: o.get(),
                decided_by: b.get(),
            },
        }
    }
}

/// One edit of a byte string: the structured targets start from valid
/// bytes and apply a few of these, so that most inputs stay close to
/// something that opens.
#[derive(Arbitrary, Debug, Clone)]
pub enum ByteEdit {
    /// Flip bits of one byte.
    Xor(u16, u8),
    /// Cut to a length.
    Truncate(u16),
    /// Append bytes.
    Append(Vec<u8>),
    /// Insert one byte.
    Insert(u16, u8),
    /// Remove one byte.
    Remove(u16),
}

impl ByteEdit {
    /// Applies the edit (positions wrap around the length).
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        let at = |i: u16, len: usize| if len == 0 { 0 } else { usize::from(i) % len };
        match self {
            ByteEdit::Xor(i, mask) => {
                let i = at(*i, bytes.len());
                if let Some(b) = bytes.get_mut(i) {
                    *b ^= *mask;
                }
            }
            ByteEdit::Truncate(n) => bytes.truncate(usize::from(*n)),
            ByteEdit::Append(extra) => bytes.extend_from_slice(extra),
            ByteEdit::Insert(i, b) => {
                let i = at(*i, bytes.len() + 1);
                bytes.insert(i, *b);
            }
            ByteEdit::Remove(i) => {
                if !bytes.is_empty() {
                    let i = at(*i, bytes.len());
                    bytes.remove(i);
                }
            }
        }
    }
}

/// Applies `edits` to `bytes`.
pub fn edit(bytes: &mut Vec<u8>, edits: &[ByteEdit]) {
    for e in edits {
        e.apply(bytes);
    }
}

/// The golden vectors, as committed (the harnesses start from them).
pub mod vectors {
    use serde_json::Value;

    /// `tests/vectors/streamseal/wraps.json`.
    pub const WRAPS: &str = include_str!("../../vectors/streamseal/wraps.json");
    /// `tests/vectors/streamseal/envelopes.json`.
    pub const ENVELOPES: &str = include_str!("../../vectors/streamseal/envelopes.json");
    /// `tests/vectors/streamseal/bundles.json`.
    pub const BUNDLES: &str = include_str!("../../vectors/streamseal/bundles.json");
    /// `tests/vectors/streamseal/invocations.json`.
    pub const INVOCATIONS: &str = include_str!("../../vectors/streamseal/invocations.json");

    /// The `vectors` array of one file.
    pub fn list(file: &str) -> Vec<Value> {
        let doc: Value = serde_json::from_str(file).unwrap_or(Value::Null);
        match doc.get("vectors") {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        }
    }
}

/// Splits a fuzz input into its mode byte and the rest.
pub fn mode(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(m, rest)| (*m, rest))
}
