//! The one error crossing the boundary.

use std::collections::HashMap;

use streamseal::{Error, ErrorCode};

/// Makes [`StreamsealError`] from the core's one table of codes
/// (`streamseal_crypto::error_code_table!`): a variant per code, in its order, named
/// as the core's `ErrorCode` variant (the docs and spellings of the table are
/// not needed here; the code crosses as `ErrorCode::as_str`).
macro_rules! ffi_error {
    ($($(#[doc = $doc:literal])* $variant:ident => $text:literal [$($layer:ident)*], $message:tt $({ $($fields:tt)* })?;)*) => {
        /// Every failure of the binding. One variant per stable code of the
        /// core (Kotlin `StreamsealException.AadMismatch`, Swift
        /// `StreamsealError.AadMismatch`, Python `StreamsealError.AadMismatch`),
        /// each carrying the code's string (`ErrorCode::as_str`), the core's
        /// message and, for `VALIDATION_FAILED`, the per-field reasons.
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
        #[uniffi::export(Display)]
        pub enum StreamsealError {
            $(
                /// See the core's `ErrorCode` of the same name.
                #[error("{code}: {error_message}")]
                $variant {
                    /// The stable code, e.g. `AAD_MISMATCH`.
                    code: String,
                    /// What failed; never secret material or plaintext.
                    error_message: String,
                    /// Field to reasons (`VALIDATION_FAILED` only; empty otherwise).
                    details: HashMap<String, Vec<String>>,
                },
            )*
            /// A code added to the core after this binding was written.
            #[error("{code}: {error_message}")]
            Unknown {
                /// The stable code.
                code: String,
                /// What failed.
                error_message: String,
                /// Field to reasons.
                details: HashMap<String, Vec<String>>,
            },
            /// The service answered an API call with an error status
            /// (`parse_response`); `code` is the service's own named code
            /// (`RATE_LIMITED`, ...) or `HTTP_<status>` when the body names none.
            #[error("{code}: {error_message}")]
            Api {
                /// The service's code, or `HTTP_<status>`.
                code: String,
                /// The service's message (or the compat webhook's plain text).
                error_message: String,
                /// Validation failures of a 400.
                details: HashMap<String, Vec<String>>,
                /// The HTTP status.
                status: u16,
                /// Seconds to wait before retrying a 429 or 5xx.
                retry_after: Option<u64>,
                /// Whether sending the same request again cannot do the work twice.
                retry_safe: bool,
                /// A 409 that may mean an earlier attempt of the same request landed.
                may_have_landed: bool,
                /// The `Service-Version` echo, when the response carried one.
                version: Option<String>,
                /// `RateLimit-Limit`.
                rate_limit_limit: Option<u32>,
                /// `RateLimit-Remaining`.
                rate_limit_remaining: Option<u32>,
                /// `RateLimit-Reset` (seconds).
                rate_limit_reset_seconds: Option<u32>,
                /// What `retry_step` decides from.
                retry: streamseal::api::retry::RetryFacts,
            },
            /// A 2xx whose body is not the endpoint's type (`parse_response`):
            /// `code` is `MALFORMED_JSON`; the status, the version echo and the
            /// rate-limit figures are kept, as on every other outcome.
            #[error("{code}: {error_message}")]
            MalformedResponse {
                /// `MALFORMED_JSON`.
                code: String,
                /// Why the body did not read (never the body itself).
                error_message: String,
                /// Always empty.
                details: HashMap<String, Vec<String>>,
                /// The HTTP status (2xx).
                status: u16,
                /// The `Service-Version` echo, when the response carried one.
                version: Option<String>,
                /// The version whose shapes the body was read with.
                shape: String,
                /// `RateLimit-Limit`.
                rate_limit_limit: Option<u32>,
                /// `RateLimit-Remaining`.
                rate_limit_remaining: Option<u32>,
                /// `RateLimit-Reset` (seconds).
                rate_limit_reset_seconds: Option<u32>,
            },
        }

        impl From<Error> for StreamsealError {
            fn from(err: Error) -> Self {
                let code = err.code().as_str().to_owned();
                let error_message = err.to_string();
                let details: HashMap<String, Vec<String>> = err
                    .details()
                    .map(|d| d.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                match err.code() {
                    $(ErrorCode::$variant => StreamsealError::$variant { code, error_message, details },)*
                    _ => StreamsealError::Unknown { code, error_message, details },
                }
            }
        }

        impl From<streamseal::CryptoError> for StreamsealError {
            fn from(err: streamseal::CryptoError) -> Self {
                Error::from(err).into()
            }
        }

        impl StreamsealError {
            /// The stable code of any variant.
            pub fn code(&self) -> &str {
                match self {
                    $(StreamsealError::$variant { code, .. })|*
                    | StreamsealError::Unknown { code, .. }
                    | StreamsealError::Api { code, .. }
                    | StreamsealError::MalformedResponse { code, .. } => code,
                }
            }
        }
    };
}

streamseal_crypto::error_code_table!(ffi_error);

/// The binding's result type.
pub type Result<T, E = StreamsealError> = std::result::Result<T, E>;

/// Every stable error code of the core, in declaration order
/// (`ErrorCode::ALL`): binding tests prove each one is reachable.
#[uniffi::export]
pub fn error_codes() -> Vec<String> {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect()
}

/// Parses JSON text into a core type, as `MALFORMED_JSON` on failure (the
/// documents the service sent; requests go through [`request_from_json`]).
/// An object with a key twice, at any depth, is refused
/// (`streamseal::wire::parse`).
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T> {
    Ok(streamseal::wire::parse(json)?)
}

/// Parses a request document (JSON text: a body or a query) through the
/// core's one validation path (`streamseal::wire::requests::decode`) and
/// validates it: a value of the wrong type, a missing field or `null` for
/// a required one is `VALIDATION_FAILED` keyed by its wire path, like a
/// broken bound; only text that is not JSON is `MALFORMED_JSON`.
pub(crate) fn request_from_json<T>(json: &str) -> Result<T>
where
    T: serde::de::DeserializeOwned + streamseal::wire::requests::Validate,
{
    Ok(streamseal::wire::requests::decode::from_json(json)?)
}

/// Like [`request_from_json`] without the bounds, for callers that check
/// them after rules of their own (`check_send_rules`).
pub(crate) fn request_shape_from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T> {
    Ok(streamseal::wire::requests::decode::decode_json(json)?)
}

/// Serialises a core type as compact JSON.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| {
        Error::MalformedJson {
            reason: e.to_string(),
        }
        .into()
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use streamseal::CryptoError;

    /// One core error of every code.
    fn one_of_each() -> Vec<Error> {
        vec![
            CryptoError::MalformedBase64 { field: "f" }.into(),
            CryptoError::InvalidLength {
                field: "f",
                expected: "32".into(),
                actual: 1,
            }
            .into(),
            CryptoError::InputTooLarge {
                field: "f",
                limit: 1,
                actual: 2,
            }
            .into(),
            Error::MalformedJson { reason: "r".into() },
            CryptoError::InvalidField {
                field: "f",
                reason: "r".into(),
            }
            .into(),
            CryptoError::UnsupportedEnvelopeVersion { version: 1 }.into(),
            CryptoError::MalformedAad { reason: "r" }.into(),
            CryptoError::AadMismatch { what: "slot" }.into(),
            CryptoError::UnknownKeyGeneration { generation: 1 }.into(),
            CryptoError::KeyGenerationConflict { generation: 1 }.into(),
            CryptoError::DecryptionFailed.into(),
            CryptoError::InvalidPublicKey.into(),
            CryptoError::NoMatchingKey { key_id: "k".into() }.into(),
            CryptoError::UntrustedWrap.into(),
            CryptoError::TooManyKeys {
                limit: 32,
                actual: 33,
            }
            .into(),
            CryptoError::UnsupportedBundleVersion { version: 2 }.into(),
            CryptoError::MalformedBundle { reason: "r" }.into(),
            CryptoError::WrongPassphrase.into(),
            CryptoError::BundleKeyMismatch.into(),
            CryptoError::UnsupportedKdf { reason: "r".into() }.into(),
            CryptoError::KdfParamsOutOfBounds {
                param: "m",
                value: 1,
                min: 8,
                max: 9,
            }
            .into(),
            CryptoError::RandomnessUnavailable.into(),
            Error::ValidationFailed {
                details: BTreeMap::from([("content".to_owned(), vec!["empty".to_owned()])]),
            },
            Error::E2eStreamRequiresCiphertext,
            Error::E2ePayloadRequiresE2eStream,
            CryptoError::KeyChanged {
                subject: "usr_1".into(),
                key_id: "k".into(),
            }
            .into(),
            CryptoError::KeyNotVerified {
                subject: "usr_1".into(),
                key_id: "k".into(),
            }
            .into(),
            CryptoError::UnknownKey {
                subject: "usr_1".into(),
                key_id: "k".into(),
            }
            .into(),
            Error::PromptReplayed {
                message_id: "msg_1".into(),
            },
            Error::SealedStreamDowngrade { reason: "r" },
            Error::ReplySenderMismatch {
                expected: "bot_1".into(),
                actual: "usr_1".into(),
            },
            Error::UnexpectedAuthor {
                expected: "usr_1".into(),
                actual: "usr_2".into(),
            },
            Error::UnprovenDecisionAnswer { reason: "r" },
            CryptoError::SealBudgetExhausted {
                generation: 0,
                budget: 1,
            }
            .into(),
            Error::StaleRoll { generation: 1 },
            CryptoError::MalformedState { reason: "r" }.into(),
            CryptoError::StateAuthFailed.into(),
            CryptoError::SenderMismatch {
                subject: "usr_1".into(),
                key_id: "k".into(),
                reason: "r",
            }
            .into(),
            Error::StaleKeyGeneration {
                generation: 0,
                newest: 1,
            },
            Error::DuplicateMessage {
                message_id: "msg_1".into(),
                revision: 1,
            },
        ]
    }

    #[test]
    fn every_core_code_has_its_own_variant_with_code_message_and_details() {
        let errors = one_of_each();
        let codes: Vec<&str> = errors.iter().map(|e| e.code().as_str()).collect();
        let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes, all, "one error of every code, in order");
        let mut variants = std::collections::BTreeSet::new();
        for err in errors {
            let message = err.to_string();
            let ffi = StreamsealError::from(err.clone());
            assert_eq!(ffi.code(), err.code().as_str());
            assert!(!matches!(ffi, StreamsealError::Unknown { .. }), "{ffi}");
            assert_eq!(ffi.to_string(), format!("{}: {message}", err.code()));
            variants.insert(format!("{:?}", std::mem::discriminant(&ffi)));
            if let StreamsealError::ValidationFailed { details, .. } = &ffi {
                assert_eq!(details.get("content"), Some(&vec!["empty".to_owned()]));
            }
        }
        assert_eq!(variants.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn error_codes_lists_the_core_codes() {
        assert_eq!(error_codes().len(), 40);
        assert_eq!(
            error_codes().first().map(String::as_str),
            Some("MALFORMED_BASE64")
        );
    }
}
