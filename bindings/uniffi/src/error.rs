//! The one error crossing the boundary.

use std::collections::HashMap;

use streamseal::{Error, ErrorCode};

macro_rules! ffi_error {
    ($($variant:ident),* $(,)?) => {
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
                /// The service's message.
                error_message: String,
                /// Validation failures of a 400.
                details: HashMap<String, Vec<String>>,
                /// The failure as JSON: status, rate-limit figures, retry safety, body.
                failure_json: String,
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

        impl StreamsealError {
            /// The stable code of any variant.
            pub fn code(&self) -> &str {
                match self {
                    $(StreamsealError::$variant { code, .. })|*
                    | StreamsealError::Unknown { code, .. }
                    | StreamsealError::Api { code, .. } => code,
                }
            }
        }
    };
}

ffi_error!(
    MalformedBase64,
    InvalidLength,
    InputTooLarge,
    MalformedJson,
    InvalidField,
    UnsupportedEnvelopeVersion,
    MalformedAad,
    AadMismatch,
    UnknownKeyGeneration,
    KeyGenerationConflict,
    DecryptionFailed,
    InvalidPublicKey,
    NoMatchingKey,
    WrapOpenFailed,
    TooManyKeys,
    UnsupportedBundleVersion,
    MalformedBundle,
    WrongPassphrase,
    BundleKeyMismatch,
    UnsupportedKdf,
    KdfParamsOutOfBounds,
    RandomnessUnavailable,
    ValidationFailed,
    E2eStreamRequiresCiphertext,
    E2ePayloadRequiresE2eStream,
);

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

/// Parses JSON text into a core type, as `MALFORMED_JSON` on failure.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| {
        Error::MalformedJson {
            reason: e.to_string(),
        }
        .into()
    })
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
