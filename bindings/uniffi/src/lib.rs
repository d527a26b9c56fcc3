//! # streamseal-ffi
//!
//! UniFFI bindings of [`streamseal`] for Kotlin (Android, JVM), Swift (iOS)
//! and Python. Proc-macros only, no UDL. Thin: every function calls the
//! core and converts at the edge; nothing here decides anything about the
//! format.
//!
//! ## What crosses, and how
//! - **Errors**: one enum, [`StreamsealError`], one variant per stable code
//!   of the core (plus `Unknown` for a code added later and `Api` for an
//!   error status of the service), each with `code` (`ErrorCode::as_str`),
//!   `error_message` and `details`. `Display` is exported (`CODE: message`):
//!   Kotlin's `toString()` and Swift's `description` are that line; Kotlin's
//!   `message`, Python's `str()` and Swift's default `localizedDescription`
//!   list the fields, code and message included, never just the variant
//!   name. No
//!   function panics: fallible steps return the core's `Error`; locks are
//!   taken poison-tolerantly; conversions use checked arithmetic.
//! - **Secret holders are objects** (`SecretKey`, `IdentityKey`,
//!   `StreamKey`, `Keyring`, `StreamState`, `PreparedRoll`,
//!   `OpenedInvocation`): handles to `Arc`s (with a `Mutex` where they
//!   change) whose core value zeroizes on drop. They have no
//!   `Debug`/`Display` export; a `StreamState` serialises only sealed under
//!   the caller's identity key (`to_bytes`).
//! - **Who sealed it** ([`sender`], envelope format version 2): every
//!   sealing function takes the sealer's `IdentityKey` and the `subject`
//!   (user or bot id) it is registered as, and signs; every opening function
//!   takes the `TrustStore` plus optional `OwnKeys` (`{subject, keys}`, whose
//!   signatures open `"verified"`) and optional `PresentedKey`s
//!   (`{subject, kind, keyId, publicKey}` the server presented and the store
//!   does not pin: `"unverified"`), builds the core's `SenderKeys` for the
//!   call, and returns who sealed it (`SealedBy {subject, kind, keyId,
//!   status}`, status `"verified"` or `"unverified"`).
//! - **Key verification** ([`trust`]): the `TrustStore` object (pins keys
//!   on first use, policy `"tofu"`, `"verified-only"` or
//!   `"refuse-after-verified-change"`), the `TrustedKey` objects it hands
//!   out (the only way to accept a key sender or wrap a roll to someone),
//!   `fingerprint` and the `SafetyNumber` object. Levels, key states and
//!   policies cross as their spellings, as in JS.
//! - **Stream state** ([`state`]): `StreamState` (sealed flag, high-water
//!   generation, keys, accepted senders, owner, prompts acted on; persisted
//!   with `to_bytes`/`from_bytes`), `PreparedRoll` (prepare, POST, then
//!   `commit_roll`), and the records of what a key-wraps open did
//!   (`WrapsReport`). No export lowers a generation.
//! - **Records and enums of the crypto core are the core's own types**,
//!   deriving `uniffi::Record`/`uniffi::Enum` behind the core's `uniffi`
//!   feature (`#[cfg_attr(feature = "uniffi", derive(...))]`): `Slot`,
//!   `SlotKind`, `StepPhase`, `DecisionOption`, `Envelope`,
//!   `SealedPayload`, `KeyWrap`, `KdfParams`, `SealedBundle`,
//!   `AadContents`, `AadSender`, `SealedBy`, `OpenedMessage`,
//!   `HistoryEntry`, `HistoryItem`, `OpenedStep`, `DecisionAnswer`, and the
//!   catalogue's
//!   `EndpointInfo`, `Family`, `AuthKind`, `RequiredScope`, `HttpMethod`.
//!   The crypto layer's are generated in the `streamseal` namespace (Kotlin
//!   package `uniffi.streamseal`, Python module `streamseal`); those of the
//!   api and sealed layers (`OpenedMessage`, `HistoryEntry`, `HistoryItem`,
//!   `OpenedStep`, `DecisionAnswer` and the catalogue's) in `streamseal_api`;
//!   the functions in `streamseal_ffi`.
//! - **Custom types** (`uniffi::custom_type!` in the core), each crossing
//!   as its wire spelling: `RecipientKind` (an open enum with
//!   `Other(String)`), `Scope` (`"messages:read"`), `Endpoint`
//!   (`"sendMessage"`, the id in `EndpointInfo`), `ErrorCode`
//!   (`"UNTRUSTED_WRAP"`, in `HistoryItem.Failed`) and `TrustLevel`
//!   (`"verified"`, in `SealedBy.status`).
//! - **Mirrored records** (small copies here, with the reason):
//!   `KdfLimits` (the core's salt bounds are `usize`, which UniFFI does not
//!   carry), `Recipient` (its `KeyId`/`PublicKey` newtypes cross as plain
//!   strings so that a malformed value raises `StreamsealError` with its
//!   code from inside the call, instead of failing in the generated lift
//!   code, which only a custom type's `try_lift` could do and which raises
//!   an internal error, not ours), and for the same reason the records of
//!   the stream state (`WrapsReport`, `AdmittedGeneration`, `SkippedWrap`,
//!   `RosterEntry`, `KeySender`, `PinnedKey`) and `PresentedKey`, whose key
//!   ids, public keys, codes and levels cross as strings; and the binding's
//!   own results of opening (`OpenedEnvelope` with the plaintext as bytes,
//!   `OpenedDecisionCard` with the content as JSON, `OpenResult` per message
//!   of a page, since a list cannot carry errors).
//! - **Wire documents as JSON text**, deliberately: the wire types of the
//!   API (`Message`, `Invocation`, `KeyWraps`, `OwnKey`, request bodies,
//!   events, ...) carry `serde_json::Value` metadata, `BTreeMap`s, open
//!   enums with `Other(String)` and versioned shapes; the app receives and
//!   sends them as JSON anyway. Functions of the sealed flows therefore take
//!   the document the server sent as JSON and return the request body to
//!   send as JSON, parsed and validated by the core.
//! - **The sans-IO endpoints** ([`api`]): `build_request`,
//!   `parse_response`, `endpoints`, `endpoint`, `endpoint_count`,
//!   `missing_scope`, `next_cursor`, `next_message_query`, `next_page` and
//!   `mint_client_message_id`: the JS package's names in snake_case, so
//!   Kotlin and Swift call them by the same camelCase names as JS. The
//!   request (one of 58 endpoints) crosses as a JSON document, see the
//!   module docs.
//!
//! Calls are synchronous. `create_bundle`, `open_bundle`, `unlock` and
//! `set_up_user_key` run Argon2id and block (tens to hundreds of
//! milliseconds with the default parameters): call them off the main thread.
//!
//! Passphrases cross as UTF-8 bytes (`Vec<u8>`: Kotlin `ByteArray`, Swift
//! `Data`, Python `bytes`) so that the caller can wipe its copy; the binding
//! decodes them (`INVALID_FIELD` if not UTF-8) into a value that zeroizes on
//! drop. New bundles need at least `kdf_params_creation_floor()` (m = 19 MiB,
//! t = 2, p = 1). No export hands a secret to foreign code unless asked for
//! by name (`SecretKey::to_bytes`, `StreamKey::to_bytes`).

// The one error enum crosses the FFI by value (UniFFI cannot box a
// variant's fields): `Api` and `MalformedResponse` carry every figure of the
// response (status, version echo, rate limits) so that no outcome loses them.
#![allow(clippy::result_large_err)]
// Exports return the one coded `StreamsealError`; each one's codes are its core call's.
#![allow(clippy::missing_errors_doc)]

pub mod api;
pub mod crypto;
pub mod error;
pub mod events;
pub mod hazmat;
pub mod keys;
pub mod off_thread;
pub mod sealed;
pub mod sender;
pub mod state;
pub mod trust;

pub use error::StreamsealError;

/// Takes a lock poison-tolerantly: no call under any of this crate's locks
/// panics, and a poisoned lock still holds a consistent value.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

uniffi::setup_scaffolding!("streamseal_ffi");
