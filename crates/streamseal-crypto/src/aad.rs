//! The canonical AAD encoding that binds a ciphertext to its slot.
//!
//! ```text
//! aad = "streamseal/aad"        14 bytes, domain label
//!       u8   envelope version    (2)
//!       u8   slot kind code      (1..=5, see SlotKind)
//!       str  root stream id      (the stream that owns the key)
//!       u32  key generation      (big-endian)
//!       str  sender subject      (the user or bot id that signed)
//!       str  sender kind         (`user`, `bot`, ...)
//!       str  sender key id       (the key it signed with, 1 to 128 characters)
//!       ...  the slot's fields, in the fixed order of its kind
//! str   = u16 byte length (1..=1024, big-endian) || UTF-8 bytes
//! opt   = u8 0 (absent) | u8 1 || str
//! bool  = u8 0 | u8 1
//! ```
//!
//! Every field is length-prefixed or fixed-size and the order is fixed by the
//! kind byte, so the encoding is injective; the parser is strict (exact label,
//! no trailing bytes, flags only 0 or 1, UTF-8 only), so each AAD has exactly
//! one spelling. FORMAT.md gives every field of every kind with examples.
//!
//! ```
//! use streamseal_crypto::aad::{self, AadContents, AadSender};
//! use streamseal_crypto::identity::RecipientKind;
//! use streamseal_crypto::slot::Slot;
//!
//! let slot = Slot::DecisionNote {
//!     decision_id: "dreq_1".into(),
//!     option_id: "yes".into(),
//!     decided_by: "usr_1".into(),
//! };
//! let sender = AadSender { subject: "usr_1".into(), kind: RecipientKind::User, key_id: "key_a".into() };
//! let bytes = aad::encode(2, "stream_root", 3, &sender, &slot)?;
//! assert!(bytes.starts_with(b"streamseal/aad\x02\x05"));
//! let parsed = aad::parse(&bytes)?;
//! assert_eq!(parsed, AadContents { version: 2, root_stream_id: "stream_root".into(), key_generation: 3, sender, slot });
//!
//! // A note whose signer is not its decider has no encoding.
//! let other = AadSender { subject: "usr_2".into(), kind: RecipientKind::User, key_id: "key_b".into() };
//! assert!(aad::encode(2, "stream_root", 3, &other, &parsed.slot).is_err());
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use crate::codec::{Reader, Writer};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{MAX_KEY_ID_LEN, RecipientKind};
use crate::slot::{Slot, SlotKind};

/// The domain label every AAD starts with.
pub const AAD_LABEL: &[u8] = b"streamseal/aad";

/// Largest AAD accepted from the network, in bytes (a decision card with 64
/// options of maximal ids and tones is about 130 KiB; real ones are tiny).
pub const MAX_AAD_LEN: usize = 160 * 1024;

/// What an AAD carries, once parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AadContents {
    /// The envelope version the AAD was written for.
    pub version: u8,
    /// The root stream that owns the key.
    pub root_stream_id: String,
    /// The key generation.
    pub key_generation: u32,
    /// Who signed the sealed content (the sender's identity key).
    pub sender: AadSender,
    /// The slot.
    pub slot: Slot,
}

/// The sender an AAD names: the user or bot whose identity key signed the
/// sealed content, and which of its keys. Where the slot names an author
/// ([`Slot::author_id`]), the sender's subject is that author.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AadSender {
    /// The user or bot id.
    pub subject: String,
    /// The kind its key is registered as.
    pub kind: RecipientKind,
    /// The id its key is registered under (1 to 128 characters).
    pub key_id: String,
}

impl AadSender {
    /// Whether the sender may seal `slot`: its subject is the slot's author
    /// where the slot names one, and its key id is 1 to 128 characters.
    fn check(&self, slot: &Slot) -> Result<(), &'static str> {
        let len = self.key_id.chars().count();
        if !(1..=MAX_KEY_ID_LEN).contains(&len) {
            return Err("sender key id out of range");
        }
        match slot.author_id() {
            Some(author) if author != self.subject => Err("the sender is not the slot's author"),
            _ => Ok(()),
        }
    }
}

/// Encodes the AAD of `slot` sealed by `sender`, for an envelope `version`,
/// under the key of `root_stream_id` at `key_generation`. A sender that is
/// not the slot's author is `INVALID_FIELD`.
///
/// # Errors
///
/// `INVALID_FIELD` when the sender is not the slot's author or its key id is
/// not 1 to 128 characters, or when decision option ids repeat;
/// `INVALID_LENGTH` when a string is empty or over 1024 bytes, or a decision
/// card has no options or more than 64.
pub fn encode(
    version: u8,
    root_stream_id: &str,
    key_generation: u32,
    sender: &AadSender,
    slot: &Slot,
) -> CryptoResult<Vec<u8>> {
    sender
        .check(slot)
        .map_err(|reason| CryptoError::invalid("sender", reason))?;
    let mut w = Writer::with_magic(AAD_LABEL);
    w.u8(version).u8(slot.kind().code());
    w.str("rootStreamId", root_stream_id)?;
    w.u32(key_generation);
    w.str("sender.subject", &sender.subject)?
        .str("sender.kind", sender.kind.as_str())?
        .str("sender.keyId", &sender.key_id)?;
    encode_slot(&mut w, slot)?;
    Ok(w.finish())
}

/// Writes the kind-specific fields of a slot.
pub(crate) fn encode_slot(w: &mut Writer, slot: &Slot) -> CryptoResult<()> {
    slot.write_fields(w)
}

fn malformed(reason: &'static str) -> CryptoError {
    CryptoError::MalformedAad { reason }
}

/// Parses AAD bytes strictly. Only what [`encode`] produces is accepted.
///
/// # Errors
///
/// `INPUT_TOO_LARGE` when `bytes` exceed the AAD size limit; `MALFORMED_AAD`
/// when they are not exactly what [`encode`] produces.
pub fn parse(bytes: &[u8]) -> CryptoResult<AadContents> {
    if bytes.len() > MAX_AAD_LEN {
        return Err(CryptoError::InputTooLarge {
            field: "aad",
            limit: MAX_AAD_LEN,
            actual: bytes.len(),
        });
    }
    let mut r = Reader::new(bytes, malformed);
    r.magic(AAD_LABEL)?;
    let version = r.u8()?;
    let kind = SlotKind::from_code(r.u8()?).ok_or_else(|| malformed("unknown slot kind"))?;
    let root_stream_id = r.str()?;
    let key_generation = r.u32()?;
    let sender = AadSender {
        subject: r.str()?,
        kind: RecipientKind::parse(&r.str()?),
        key_id: r.str()?,
    };
    let slot = Slot::read_fields(kind, &mut r)?;
    r.end()?;
    sender.check(&slot).map_err(malformed)?;
    Ok(AadContents {
        version,
        root_stream_id,
        key_generation,
        sender,
        slot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use crate::slot::{DecisionOption, StepPhase};

    fn msg() -> Slot {
        Slot::Message {
            stream_id: "s".into(),
            message_id: "m".into(),
            author_id: "a".into(),
            author_type: "user".into(),
            revision: 2,
        }
    }

    fn sender() -> AadSender {
        AadSender {
            subject: "a".into(),
            kind: RecipientKind::User,
            key_id: "k".into(),
        }
    }

    #[test]
    fn exact_bytes_of_a_message_slot() {
        let got = encode(2, "r", 7, &sender(), &msg()).unwrap();
        let mut want = b"streamseal/aad".to_vec();
        want.extend_from_slice(&[2, 1, 0, 1, b'r', 0, 0, 0, 7]);
        want.extend_from_slice(&[0, 1, b'a', 0, 4, b'u', b's', b'e', b'r', 0, 1, b'k']);
        want.extend_from_slice(&[0, 1, b's', 0, 1, b'm', 0, 1, b'a']);
        want.extend_from_slice(&[0, 4, b'u', b's', b'e', b'r', 0, 0, 0, 2]);
        assert_eq!(got, want);
        assert_eq!(parse(&got).unwrap().sender, sender());
    }

    #[test]
    fn the_sender_is_the_author() {
        let other = AadSender {
            subject: "b".into(),
            ..sender()
        };
        assert_eq!(
            encode(2, "r", 7, &other, &msg()).unwrap_err().code(),
            ErrorCode::InvalidField
        );
        // Bytes naming another signer than the author do not parse either.
        let good = encode(2, "r", 7, &sender(), &msg()).unwrap();
        let mut bad = good.clone();
        let at = b"streamseal/aad".len() + 2 + 3 + 4 + 2;
        assert_eq!(bad[at], b'a');
        bad[at] = b'b';
        assert_eq!(parse(&bad).unwrap_err().code(), ErrorCode::MalformedAad);
        // A trace step names no author: any signer may seal it.
        let step = Slot::TraceStep {
            invocation_id: "i".into(),
            step_id: "s".into(),
            step_type: "thinking".into(),
            phase: StepPhase::Started,
            message_id: None,
        };
        assert!(encode(2, "r", 7, &other, &step).is_ok());
        let long_key = AadSender {
            key_id: "k".repeat(129),
            ..sender()
        };
        assert_eq!(
            encode(2, "r", 7, &long_key, &msg()).unwrap_err().code(),
            ErrorCode::InvalidField
        );
    }

    #[test]
    fn strictness() {
        let good = encode(2, "r", 7, &sender(), &msg()).unwrap();
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(
            parse(&trailing).unwrap_err().code(),
            ErrorCode::MalformedAad
        );
        for cut in 0..good.len() {
            assert_eq!(
                parse(&good[..cut]).unwrap_err().code(),
                ErrorCode::MalformedAad
            );
        }
        let mut bad_kind = good.clone();
        bad_kind[15] = 9;
        assert_eq!(
            parse(&bad_kind).unwrap_err().code(),
            ErrorCode::MalformedAad
        );
    }

    #[test]
    fn empty_ids_are_refused() {
        let slot = Slot::Message {
            stream_id: String::new(),
            message_id: "m".into(),
            author_id: "a".into(),
            author_type: "user".into(),
            revision: 1,
        };
        assert_eq!(
            encode(2, "r", 0, &sender(), &slot).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
    }

    /// `Slot::validate` (in slot.rs, which does not import this module)
    /// refuses exactly what encoding refuses, with the same error.
    #[test]
    fn slot_validate_agrees_with_encoding() {
        let option = |id: &str, tone: &str| DecisionOption {
            id: id.into(),
            tone: tone.into(),
        };
        let slots = [
            msg(),
            Slot::BotReply {
                stream_id: "s".into(),
                message_id: "m".into(),
                author_id: "a".into(),
                invocation_id: "i".into(),
            },
            Slot::TraceStep {
                invocation_id: "i".into(),
                step_id: "t".into(),
                step_type: "tool".into(),
                phase: StepPhase::Started,
                message_id: Some("m".into()),
            },
            Slot::DecisionCard {
                stream_id: "s".into(),
                decision_id: "d".into(),
                invocation_id: "i".into(),
                runtime_session_id: "r".into(),
                options: vec![option("yes", "primary"), option("no", "neutral")],
                allow_note: true,
            },
            Slot::DecisionNote {
                decision_id: "d".into(),
                option_id: "o".into(),
                decided_by: "u".into(),
            },
        ];
        let long = "x".repeat(crate::codec::MAX_STR_LEN + 1);
        let bad_strings = ["".to_owned(), long.clone()];
        let many: Vec<DecisionOption> = (0..65).map(|i| option(&i.to_string(), "t")).collect();
        let bad_options = [
            vec![],
            many,
            vec![option("a", "t"), option("a", "u")],
            vec![option("", "t")],
            vec![option("a", &long)],
            vec![option("a", "t"), option("b", "")],
        ];
        let mut cases = Vec::new();
        for slot in slots {
            // Each string field (but the enum-like `phase`) made empty and
            // too long in turn, and each bad option list.
            let fields: usize = match &slot {
                Slot::Message { .. } => 4,
                Slot::BotReply { .. } => 4,
                Slot::TraceStep { .. } => 4,
                Slot::DecisionCard { .. } => 4,
                Slot::DecisionNote { .. } => 3,
            };
            for field in 0..fields {
                for bad in &bad_strings {
                    let mut s = slot.clone();
                    let target: &mut String = match &mut s {
                        Slot::Message {
                            stream_id,
                            message_id,
                            author_id,
                            author_type,
                            ..
                        } => [stream_id, message_id, author_id, author_type]
                            .into_iter()
                            .nth(field),
                        Slot::BotReply {
                            stream_id,
                            message_id,
                            author_id,
                            invocation_id,
                        } => [stream_id, message_id, author_id, invocation_id]
                            .into_iter()
                            .nth(field),
                        Slot::TraceStep {
                            invocation_id,
                            step_id,
                            step_type,
                            message_id,
                            ..
                        } => {
                            let m = message_id.get_or_insert_with(String::new);
                            [invocation_id, step_id, step_type, m]
                                .into_iter()
                                .nth(field)
                        }
                        Slot::DecisionCard {
                            stream_id,
                            decision_id,
                            invocation_id,
                            runtime_session_id,
                            ..
                        } => [stream_id, decision_id, invocation_id, runtime_session_id]
                            .into_iter()
                            .nth(field),
                        Slot::DecisionNote {
                            decision_id,
                            option_id,
                            decided_by,
                        } => [decision_id, option_id, decided_by].into_iter().nth(field),
                    }
                    .expect("field index in range");
                    target.clone_from(bad);
                    cases.push(s);
                }
            }
            if let Slot::DecisionCard { .. } = slot {
                for bad in &bad_options {
                    let mut s = slot.clone();
                    if let Slot::DecisionCard { options, .. } = &mut s {
                        options.clone_from(bad);
                    }
                    cases.push(s);
                }
            }
            cases.push(slot);
        }
        assert!(cases.len() > 30, "{}", cases.len());
        for slot in &cases {
            let encoded = encode_slot(&mut Writer::default(), slot);
            assert_eq!(
                format!("{:?}", slot.validate()),
                format!("{encoded:?}"),
                "{slot:?}"
            );
        }
    }
}
