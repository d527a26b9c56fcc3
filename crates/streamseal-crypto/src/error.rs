//! Errors with stable string codes: one top-level [`Error`] over the crypto
//! layer's own [`CryptoError`].
//!
//! The crypto layer's operations return [`CryptoError`], which holds only
//! the codes they can fail with; the layers above return [`Error`], which
//! holds their own codes and the crypto layer's as [`Error::Crypto`], into
//! which `?` converts a [`CryptoError`] (rustls' model: one top-level error
//! over per-concern enums). Both have a `code()`: an
//! [`ErrorCode`] whose [`ErrorCode::as_str`] spelling (`AAD_MISMATCH`,
//! `WRONG_PASSPHRASE`, ...) is part of the public contract: the JavaScript and
//! mobile bindings expose the same strings unchanged, so front ends can branch
//! on them. Codes are only ever added, never renamed.
//!
//! ```
//! use streamseal_crypto::{encoding, ErrorCode};
//!
//! let err = encoding::decode_base64("iv", "not base64!").unwrap_err();
//! assert_eq!(err.code(), ErrorCode::MalformedBase64);
//! assert_eq!(err.code().as_str(), "MALFORMED_BASE64");
//! let top: streamseal_crypto::Error = err.into();
//! assert_eq!(top.code().as_str(), "MALFORMED_BASE64");
//! ```
//!
//! The codes are declared once, in the table of the hidden macro
//! `error_code_table!` below; the code enum, its spellings, the TypeScript
//! union, both error enums and the UniFFI binding's error variants are all
//! made from it.

use std::fmt;

/// The one list of error codes: each code's doc, its variant name and its
/// stable spelling, in declaration order (the order of [`ErrorCode::ALL`],
/// of the TypeScript union and of the UniFFI binding's error variants).
///
/// An entry is the code's doc, its variant name, its stable spelling, the
/// layer whose error enum carries it (`[crypto]` puts it in [`CryptoError`],
/// which the top-level [`Error`] holds as [`Error::Crypto`]; `[]` makes it a
/// variant of [`Error`] itself), the
/// message of the error that carries it (`thiserror`'s `#[error(...)]`
/// arguments) and that error's fields, if any:
/// `/// doc` `Variant => "SPELLING" [crypto], ("message {field}") { field: Type };`.
///
/// It hands the whole list to the macro named `$then`, whose rule reads
/// `$($(#[doc = $doc:literal])* $variant:ident => $text:literal [$($layer:ident)*], $message:tt $({ $($fields:tt)* })?;)*`.
/// This crate makes [`ErrorCode`], [`ErrorCode::ALL`], [`ErrorCode::as_str`]
/// (and so [`ErrorCode::parse`], `Display`, serde and the UniFFI string), the
/// TypeScript union `ErrorCode`, the crypto layer's [`CryptoError`] and the
/// top-level [`Error`] with their `code()`s from it; the UniFFI binding makes one `StreamsealError` variant per code
/// (`streamseal_crypto::error_code_table!(...)`). A new code is one entry
/// here. Codes are only ever added, never renamed.
#[doc(hidden)]
#[macro_export]
macro_rules! error_code_table {
    ($then:ident) => {
        $then! {
            /// A field is not canonical, padded, standard-alphabet base64.
            MalformedBase64 => "MALFORMED_BASE64" [crypto], ("field `{field}` is not canonical padded standard base64") {
                /// The field that failed.
                field: &'static str,
            };
            /// A field decoded to (or was given with) the wrong number of bytes or characters.
            InvalidLength => "INVALID_LENGTH" [crypto], ("field `{field}` has length {actual}, expected {expected}") {
                /// The field that failed.
                field: &'static str,
                /// The accepted length or range, as text (e.g. `"32"` or `"1..=128"`).
                expected: String,
                /// The length that was given.
                actual: usize,
            };
            /// An input exceeds the size this library accepts from the network.
            InputTooLarge => "INPUT_TOO_LARGE" [crypto], ("field `{field}` is {actual} bytes, more than the limit of {limit}") {
                /// The field that failed.
                field: &'static str,
                /// The limit in bytes.
                limit: usize,
                /// The size that was given.
                actual: usize,
            };
            /// A JSON document did not parse into the expected shape.
            MalformedJson => "MALFORMED_JSON" [], ("malformed JSON: {reason}") {
                /// What the parser reported (no input bytes are quoted).
                reason: String,
            };
            /// A field value is outside what the format allows (empty id, bad enum value, ...).
            InvalidField => "INVALID_FIELD" [crypto], ("field `{field}` is invalid: {reason}") {
                /// The field that failed.
                field: &'static str,
                /// The rule it broke.
                reason: String,
            };
            /// The envelope names a version this library does not know.
            UnsupportedEnvelopeVersion => "UNSUPPORTED_ENVELOPE_VERSION" [crypto], ("unsupported envelope version {version}") {
                /// The version the envelope named.
                version: u64,
            };
            /// The AAD bytes do not parse as a streamseal AAD.
            MalformedAad => "MALFORMED_AAD" [crypto], ("malformed AAD: {reason}") {
                /// What is wrong with the AAD bytes.
                reason: &'static str,
            };
            /// The AAD does not bind the slot, root stream, generation or version the opener expects.
            AadMismatch => "AAD_MISMATCH" [crypto], ("AAD mismatch: the ciphertext is bound to another {what}") {
                /// Which binding differs (`slot`, `root stream`, `key generation`, `version`).
                what: &'static str,
            };
            /// No key for the envelope's key generation is in the keyring.
            UnknownKeyGeneration => "UNKNOWN_KEY_GENERATION" [crypto], ("no key for key generation {generation}") {
                /// The generation asked for.
                generation: u32,
            };
            /// A different key is already held for this key generation.
            KeyGenerationConflict => "KEY_GENERATION_CONFLICT" [crypto], ("a different key is already held for key generation {generation}") {
                /// The generation that conflicts.
                generation: u32,
            };
            /// AES-256-GCM authentication failed: the ciphertext, iv or key is wrong.
            DecryptionFailed => "DECRYPTION_FAILED" [crypto], ("decryption failed: the ciphertext does not authenticate");
            /// The public key is not usable for X25519 (for example a low-order point).
            InvalidPublicKey => "INVALID_PUBLIC_KEY" [crypto], ("the public key is not usable for X25519 (low-order point)");
            /// A key wrap names none of the caller's keys.
            NoMatchingKey => "NO_MATCHING_KEY" [crypto], ("the key wrap is addressed to key `{key_id}`, which the caller does not hold") {
                /// The key id the wrap names.
                key_id: String,
            };
            /// The key wrap does not open as made by a sender the caller accepts, for this root
            /// stream, generation and recipient key: forged by another sender, altered, or moved.
            UntrustedWrap => "UNTRUSTED_WRAP" [crypto], ("the key wrap was not made by an accepted sender for this stream, generation and key");
            /// More keys were given than the format allows (32).
            TooManyKeys => "TOO_MANY_KEYS" [crypto], ("{actual} keys given, at most {limit} are allowed") {
                /// The limit.
                limit: usize,
                /// How many were given.
                actual: usize,
            };
            /// The private-key bundle names a version this library does not know.
            UnsupportedBundleVersion => "UNSUPPORTED_BUNDLE_VERSION" [crypto], ("unsupported private-key bundle version {version}") {
                /// The version byte of the bundle.
                version: u8,
            };
            /// The private-key bundle is structurally broken (length).
            MalformedBundle => "MALFORMED_BUNDLE" [crypto], ("malformed private-key bundle: {reason}") {
                /// What is wrong.
                reason: &'static str,
            };
            /// The passphrase does not open the bundle (or the bundle belongs to another record).
            WrongPassphrase => "WRONG_PASSPHRASE" [crypto], ("wrong passphrase (or the bundle belongs to another key record)");
            /// The bundle opened, but the key inside does not match the record's public key.
            BundleKeyMismatch => "BUNDLE_KEY_MISMATCH" [crypto], ("the bundle's private key does not match the record's public key");
            /// The KDF algorithm or version is not Argon2id version 19.
            UnsupportedKdf => "UNSUPPORTED_KDF" [crypto], ("unsupported KDF: {reason}") {
                /// What is not supported.
                reason: String,
            };
            /// An Argon2 parameter or the salt length is outside the accepted bounds.
            KdfParamsOutOfBounds => "KDF_PARAMS_OUT_OF_BOUNDS" [crypto], ("KDF parameter `{param}` = {value} is outside {min}..={max}") {
                /// The parameter (`m`, `t`, `p`, `salt`).
                param: &'static str,
                /// The value given.
                value: u64,
                /// The lowest accepted value.
                min: u64,
                /// The highest accepted value.
                max: u64,
            };
            /// The operating system's random number generator failed.
            RandomnessUnavailable => "RANDOMNESS_UNAVAILABLE" [crypto], ("the system random number generator failed");
            /// A request failed validation against the API's bounds before sending.
            ValidationFailed => "VALIDATION_FAILED" [], ("validation failed: {}", summarize(details)) {
                /// Field name to reasons, as the service's own 400 body carries them.
                details: ValidationDetails,
            };
            /// A plaintext body was about to be sent to a sealed stream (the service's own code).
            E2eStreamRequiresCiphertext => "E2E_STREAM_REQUIRES_CIPHERTEXT" [], ("the stream is sealed: send `sealed`, not plaintext `content`");
            /// A sealed body was about to be sent to a stream that is not sealed (the service's own code).
            E2ePayloadRequiresE2eStream => "E2E_PAYLOAD_REQUIRES_E2E_STREAM" [], ("the stream is not sealed: send plaintext `content`, not `sealed`");
            /// The server presented a key that differs from the one pinned for that subject and key id.
            KeyChanged => "KEY_CHANGED" [crypto], ("key `{key_id}` of `{subject}` differs from the pinned key") {
                /// The user or bot id.
                subject: String,
                /// The key id.
                key_id: String,
            };
            /// The caller's trust policy needs a verified key and this one is only pinned.
            KeyNotVerified => "KEY_NOT_VERIFIED" [crypto], ("key `{key_id}` of `{subject}` is pinned but not verified") {
                /// The user or bot id.
                subject: String,
                /// The key id.
                key_id: String,
            };
            /// No key is pinned in the trust store for that subject and key id.
            UnknownKey => "UNKNOWN_KEY" [crypto], ("no key `{key_id}` of `{subject}` is pinned") {
                /// The user or bot id.
                subject: String,
                /// The key id.
                key_id: String,
            };
            /// A prompt already acted on was delivered again as a new invocation.
            PromptReplayed => "PROMPT_REPLAYED" [], ("the prompt (message `{message_id}`) was already acted on by another invocation") {
                /// The message that triggered the prompt.
                message_id: String,
            };
            /// A stream the caller knows to be sealed was presented as plaintext.
            SealedStreamDowngrade => "SEALED_STREAM_DOWNGRADE" [], ("the stream is known to be sealed: {reason}") {
                /// What presented it as plaintext.
                reason: &'static str,
            };
            /// The server asked a runtime to seal its reply as someone other than its own bot.
            ReplySenderMismatch => "REPLY_SENDER_MISMATCH" [], ("the reply would be sealed as `{actual}`, not as the runtime's bot `{expected}`") {
                /// The runtime's own bot id.
                expected: String,
                /// The sender the server named.
                actual: String,
            };
            /// Sealed new work (a prompt) names an author the caller does not act for.
            UnexpectedAuthor => "UNEXPECTED_AUTHOR" [], ("the author `{actual}` is not `{expected}`") {
                /// The author the caller acts for.
                expected: String,
                /// The author the content names.
                actual: String,
            };
            /// A sealed card's answer carries no sealed note that proves the option and decider.
            UnprovenDecisionAnswer => "UNPROVEN_DECISION_ANSWER" [], ("the decision answer is not proven: {reason}") {
                /// What is missing or does not match.
                reason: &'static str,
            };
            /// The generation has sealed as many messages as its budget allows: roll the generation.
            SealBudgetExhausted => "SEAL_BUDGET_EXHAUSTED" [crypto], ("generation {generation} has sealed its budget of {budget} messages: roll the generation") {
                /// The generation.
                generation: u32,
                /// The budget.
                budget: u64,
            };
            /// A prepared roll no longer follows the newest generation held.
            StaleRoll => "STALE_ROLL" [], ("the prepared roll to generation {generation} is stale") {
                /// The generation the roll prepared.
                generation: u32,
            };
            /// Persisted state (stream state, trust store) does not parse.
            MalformedState => "MALFORMED_STATE" [crypto], ("malformed persisted state: {reason}") {
                /// What is wrong.
                reason: &'static str,
            };
            /// Persisted state does not authenticate under the caller's identity key.
            StateAuthFailed => "STATE_AUTH_FAILED" [crypto], ("the persisted state does not authenticate under this identity key");
            /// The envelope's signature does not verify under the key pinned (or
            /// presented) for the sender its AAD names: sealed by another key holder.
            SenderMismatch => "SENDER_MISMATCH" [crypto], ("the envelope is not signed by key `{key_id}` of `{subject}`: {reason}") {
                /// The sender the AAD names.
                subject: String,
                /// The key id the AAD names.
                key_id: String,
                /// What does not match.
                reason: &'static str,
            };
            /// New work (a prompt, a decision answer) sealed under a generation older
            /// than the newest the caller holds: a removed member's key, or a replay.
            StaleKeyGeneration => "STALE_KEY_GENERATION" [], ("sealed under generation {generation}, older than the newest held ({newest})") {
                /// The generation the content is sealed under.
                generation: u32,
                /// The newest generation the caller holds.
                newest: u32,
            };
            /// A page repeats a message it already opened (the same bound id and revision).
            DuplicateMessage => "DUPLICATE_MESSAGE" [], ("message `{message_id}` at revision {revision} appears twice") {
                /// The bound message id.
                message_id: String,
                /// The revision.
                revision: u32,
            };
        }
    };
}

/// Makes [`ErrorCode`] and everything spelled per code from
/// [`error_code_table!`](crate::error_code_table).
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $variant:ident => $text:literal [$($layer:ident)*], $message:tt $({ $($fields:tt)* })?;)*) => {
        /// A stable, machine-readable error code.
        ///
        /// The string form ([`ErrorCode::as_str`]) is what crosses every binding.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order. Bindings use this to prove each one is reachable.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The stable string spelling of the code, e.g. `"AAD_MISMATCH"`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }
        }

        /// The TypeScript union of every code (feature `wasm`); a test keeps it
        /// equal to [`ErrorCode::ALL`].
        #[cfg(feature = "wasm")]
        pub const ERROR_CODE_TS: &str = error_codes!(@union $($text),*);
    };
    (@union $first:literal $(, $rest:literal)*) => {
        concat!("export type ErrorCode = \"", $first, "\"", $(" | \"", $rest, "\"",)* ";")
    };
}

error_code_table!(error_codes);

/// Makes the two error enums from the entries of
/// [`error_code_table!`](crate::error_code_table): [`CryptoError`] from the
/// entries tagged `crypto`, the top-level [`Error`] from the others plus
/// [`Error::Crypto`] (rustls' model: one top-level error over per-concern
/// enums, each code's variant and message written once).
macro_rules! layer_errors {
    // An entry tagged `crypto` goes to the crypto layer's enum.
    (@munch [$($crypto:tt)*] [$($rest:tt)*] $(#[doc = $doc:literal])* $variant:ident => $text:literal [crypto $($more:ident)*], $message:tt $({ $($fields:tt)* })?; $($tail:tt)*) => {
        layer_errors!(@munch [$($crypto)* $variant, $message $({ $($fields)* })?;] [$($rest)*] $($tail)*);
    };
    // An entry tagged `[]` goes to the top-level enum (any other tag fails
    // to match, so a misspelt layer does not compile).
    (@munch [$($crypto:tt)*] [$($rest:tt)*] $(#[doc = $doc:literal])* $variant:ident => $text:literal [], $message:tt $({ $($fields:tt)* })?; $($tail:tt)*) => {
        layer_errors!(@munch [$($crypto)*] [$($rest)* $variant, $message $({ $($fields)* })?;] $($tail)*);
    };
    (@munch [$($cv:ident, $cm:tt $({ $($cf:tt)* })?;)*] [$($tv:ident, $tm:tt $({ $($tf:tt)* })?;)*]) => {
        /// The error of the crypto layer: only the codes its operations can
        /// return (no `VALIDATION_FAILED`, no `MALFORMED_JSON`, none of the
        /// sealed flows' rules).
        ///
        /// Its variants are the entries tagged `crypto` in the one table of
        /// codes; in the layers above it is [`Error::Crypto`], into which
        /// `?` converts it.
        ///
        /// ```
        /// use streamseal_crypto::{encoding, CryptoError, Error, ErrorCode};
        ///
        /// let err: CryptoError = encoding::decode_base64("iv", "not base64!").unwrap_err();
        /// assert_eq!(err, CryptoError::MalformedBase64 { field: "iv" });
        /// let top = Error::from(err);
        /// assert_eq!(top.code(), ErrorCode::MalformedBase64);
        /// assert!(matches!(top, Error::Crypto(CryptoError::MalformedBase64 { .. })));
        /// ```
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        #[non_exhaustive]
        pub enum CryptoError {
            $(
                #[doc = concat!("See [`ErrorCode::", stringify!($cv), "`].")]
                #[error $cm]
                $cv $({ $($cf)* })?,
            )*
        }

        impl CryptoError {
            /// The codes a [`CryptoError`] can carry, in the table's order.
            pub const CODES: &'static [ErrorCode] = &[$(ErrorCode::$cv,)*];

            /// The stable code of this error.
            pub fn code(&self) -> ErrorCode {
                match self {
                    $(CryptoError::$cv { .. } => ErrorCode::$cv,)*
                }
            }
        }

        /// The one top-level error: every code, whichever layer raised it.
        ///
        /// The layers above the crypto (wire, API, sealed flows) return it.
        /// [`Error::Crypto`] holds the codes of [`CryptoError::CODES`],
        /// whichever layer raised them (the sealed flows raise some of them
        /// too, e.g. `AAD_MISMATCH`): it names a kind of failure, not where
        /// it happened. Branch on [`Error::code`].
        ///
        /// Messages never contain secret material or plaintext; they name the field
        /// and the rule that failed.
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        #[non_exhaustive]
        pub enum Error {
            /// A failure of the crypto layer (its codes are [`CryptoError::CODES`]).
            #[error(transparent)]
            Crypto(#[from] CryptoError),
            $(
                #[doc = concat!("See [`ErrorCode::", stringify!($tv), "`].")]
                #[error $tm]
                $tv $({ $($tf)* })?,
            )*
        }

        impl Error {
            /// The stable code of this error.
            pub fn code(&self) -> ErrorCode {
                match self {
                    Error::Crypto(e) => e.code(),
                    $(Error::$tv { .. } => ErrorCode::$tv,)*
                }
            }
        }
    };
    ($($entries:tt)*) => {
        layer_errors!(@munch [] [] $($entries)*);
    };
}

error_code_table!(layer_errors);

impl ErrorCode {
    /// Parses a code from its string spelling.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == s)
    }
}

ts_decl!(ERROR_CODE_TS);

// Crosses UniFFI as its stable spelling (`"UNTRUSTED_WRAP"`), as it does to
// JS: `HistoryItem::Failed` carries one, and Kotlin, Swift and Python see a
// string (`typealias ErrorCode = String`).
#[cfg(feature = "uniffi")]
uniffi::custom_type!(ErrorCode, String, {
    lower: |code| code.as_str().to_owned(),
    try_lift: |text| ErrorCode::parse(&text).ok_or_else(|| uniffi::deps::anyhow::anyhow!("unknown error code")),
});

// Crosses to JavaScript (feature `wasm`) as its stable spelling.
#[cfg(feature = "wasm")]
impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "wasm")]
impl<'de> serde::Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        ErrorCode::parse(&text).ok_or_else(|| serde::de::Error::custom("unknown error code"))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Per-field reasons of a failed request validation, in the service's own
/// 400 shape (`{"error": ..., "details": {field: [reason, ...]}}`).
pub type ValidationDetails = std::collections::BTreeMap<String, Vec<String>>;

ts_decl!("export type ValidationDetails = Record<string, string[]>;");

fn summarize(details: &ValidationDetails) -> String {
    details
        .iter()
        .map(|(field, reasons)| format!("{field}: {}", reasons.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    /// Field-level details for validation failures (`None` for every other error).
    pub fn details(&self) -> Option<&ValidationDetails> {
        match self {
            Error::ValidationFailed { details } => Some(details),
            _ => None,
        }
    }

    /// Shorthand for a [`CryptoError::InvalidLength`] with a textual expectation.
    pub fn length(field: &'static str, expected: impl ToString, actual: usize) -> Error {
        CryptoError::length(field, expected, actual).into()
    }

    /// Shorthand for a [`CryptoError::InvalidField`].
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> Error {
        CryptoError::invalid(field, reason).into()
    }
}

impl CryptoError {
    /// Shorthand for a [`CryptoError::InvalidLength`] with a textual expectation.
    pub fn length(field: &'static str, expected: impl ToString, actual: usize) -> CryptoError {
        CryptoError::InvalidLength {
            field,
            expected: expected.to_string(),
            actual,
        }
    }

    /// Shorthand for a [`CryptoError::InvalidField`].
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> CryptoError {
        CryptoError::InvalidField {
            field,
            reason: reason.into(),
        }
    }
}

/// The result type of the layers above the crypto.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The crypto layer's result type.
pub type CryptoResult<T> = std::result::Result<T, CryptoError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "wasm")]
    #[test]
    fn typescript_union_names_every_code_once() {
        for code in ErrorCode::ALL {
            let quoted = format!("\"{}\"", code.as_str());
            assert_eq!(ERROR_CODE_TS.matches(&quoted).count(), 1, "{quoted}");
        }
        assert_eq!(ERROR_CODE_TS.matches('|').count() + 1, ErrorCode::ALL.len());
        let union: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|c| format!("\"{}\"", c.as_str()))
            .collect();
        assert_eq!(
            ERROR_CODE_TS,
            format!("export type ErrorCode = {};", union.join(" | "))
        );
    }

    #[test]
    fn the_crypto_layer_names_only_its_own_codes() {
        let crypto = CryptoError::CODES;
        assert!(!crypto.is_empty());
        assert!(crypto.iter().all(|c| ErrorCode::ALL.contains(c)));
        // In the table's order, each once.
        let positions: Vec<usize> = crypto
            .iter()
            .map(|c| ErrorCode::ALL.iter().position(|a| a == c).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]));
        for above in [
            ErrorCode::ValidationFailed,
            ErrorCode::MalformedJson,
            ErrorCode::E2eStreamRequiresCiphertext,
            ErrorCode::PromptReplayed,
            ErrorCode::SealedStreamDowngrade,
            ErrorCode::StaleKeyGeneration,
            ErrorCode::DuplicateMessage,
        ] {
            assert!(
                !crypto.contains(&above),
                "{above} is not the crypto layer's"
            );
        }
    }

    #[test]
    fn a_crypto_error_keeps_its_code_and_message_in_the_top_level_error() {
        let cases = [
            CryptoError::MalformedBase64 { field: "iv" },
            CryptoError::length("iv", 12, 11),
            CryptoError::invalid("slot", "empty"),
            CryptoError::AadMismatch { what: "slot" },
            CryptoError::DecryptionFailed,
            CryptoError::KdfParamsOutOfBounds {
                param: "m",
                value: 1,
                min: 8,
                max: 9,
            },
            CryptoError::SenderMismatch {
                subject: "usr_1".into(),
                key_id: "k".into(),
                reason: "signature",
            },
        ];
        for err in cases {
            let (code, message) = (err.code(), err.to_string());
            let top = Error::from(err.clone());
            assert_eq!(top.code(), code);
            assert_eq!(top.to_string(), message);
            assert_eq!(top, Error::Crypto(err));
        }
    }

    #[test]
    fn codes_are_unique_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {code}");
            assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                "{code}"
            );
        }
        assert_eq!(ErrorCode::parse("NOPE"), None);
    }
}
