//! The one list of every name the bindings export, and `cargo xtask
//! exports`, the check that every binding exports exactly these.
//!
//! Each [`Export`] is one function, class, constructor, method or record /
//! enum type, spelt the UniFFI way (`snake_case` functions and methods,
//! `PascalCase` types). Its other spellings follow from it: JS and Kotlin and
//! Swift take the camelCase, Python the name as it is. Where a binding has a
//! name of its own, or no such name at all, the entry says so and why.
//!
//! [`check`] reads what each binding really exports, never its sources:
//! the symbols of the built UniFFI library (`nm -D`), the installed npm
//! package (imported by Node) and its declarations, the installed wheel
//! (imported by Python), the Kotlin the jar compiled, the committed Swift,
//! and the table in README.md, which `cargo xtask exports --write` writes
//! from this list. A name added, renamed or dropped on one side only fails.
//!
//! Not listed, by rule: the wire types (requests, responses, events of the
//! API), which JS declares as TypeScript types and UniFFI passes as JSON
//! text; each language's own machinery (`free`, `close`, `destroy`,
//! `*Protocol`, `FfiConverter*`, `InternalError`); Python's primary
//! constructors (`X(...)`, always there); and the JS worker entry
//! (`streamseal/worker`), a proxy that runs the names listed here in a
//! Worker. Types are compared exactly in the UniFFI library; the generated
//! languages and the `.d.ts` must have each listed type and may declare
//! more (their own helpers, the wire types). Kotlin and Python are read
//! from the last `cargo xtask package` (as `cargo xtask test` runs it just
//! before), the UniFFI library is rebuilt first.

mod check;

pub use check::{command, test};

/// What kind of name an [`Export`] is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A free function.
    Function,
    /// A class: an object with a handle (UniFFI `Object`, a wasm-bindgen class).
    Class,
    /// A constructor of the class named: `new` is the primary one (`new X(...)`,
    /// `X(...)`), any other a static factory.
    Constructor(&'static str),
    /// A method of the class named.
    Method(&'static str),
    /// A record, enum or error type.
    Type,
}

/// Where an [`Export`] exists.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    /// In JS and in UniFFI, JS under the camelCase of the name.
    Both,
    /// In both, JS under this name of its own.
    JsNamed(&'static str),
    /// In JS only, under this name; the note says why.
    JsOnly(&'static str),
    /// In UniFFI only; the note says why.
    UniffiOnly,
}

/// One exported name.
#[derive(Clone, Copy, Debug)]
pub struct Export {
    /// Function, class, constructor, method or type.
    pub kind: Kind,
    /// The UniFFI spelling (for [`Side::JsOnly`], the JS one).
    pub name: &'static str,
    /// Which bindings export it.
    pub side: Side,
    /// Why it is on one side only, or spelt apart; empty when it is not.
    pub note: &'static str,
}

const fn both(kind: Kind, name: &'static str) -> Export {
    Export {
        kind,
        name,
        side: Side::Both,
        note: "",
    }
}

const fn func(name: &'static str) -> Export {
    both(Kind::Function, name)
}

const fn class(name: &'static str) -> Export {
    both(Kind::Class, name)
}

const fn method(class: &'static str, name: &'static str) -> Export {
    both(Kind::Method(class), name)
}

const fn ctor(class: &'static str, name: &'static str) -> Export {
    both(Kind::Constructor(class), name)
}

const fn ty(name: &'static str) -> Export {
    both(Kind::Type, name)
}

const fn uniffi_only(kind: Kind, name: &'static str, note: &'static str) -> Export {
    Export {
        kind,
        name,
        side: Side::UniffiOnly,
        note,
    }
}

const fn js_only(kind: Kind, name: &'static str, note: &'static str) -> Export {
    Export {
        kind,
        name,
        side: Side::JsOnly(name),
        note,
    }
}

const fn js_named(kind: Kind, name: &'static str, js: &'static str, note: &'static str) -> Export {
    Export {
        kind,
        name,
        side: Side::JsNamed(js),
        note,
    }
}

const CLIENT: &str = "the endpoints over `fetch` with the retry policy (js/src/client.js); \
     the native apps bring their own HTTP client";
const LOADER: &str = "loads the WASM module; the native library loads itself on first call";
const ASYNC: &str = "the suspend / async form of the Argon2id call; in JS, `streamseal/worker` runs it off the main thread";
const ASYNC_TOOL: &str = "the suspend / async form of the Argon2id call; in JS the call is a tool of the Node module and `streamseal/bot`, not of the browser's `streamseal` or its worker, which runs `setUp`, `unlock` and `changePassphrase` off the main thread";
const JSON_TEXT: &str =
    "a record to or from JSON text; in JS the record is the parsed JSON already";
const RECORD_CTOR: &str = "builds a record, which UniFFI cannot give methods; JS passes a plain object or omits it for the default";
const KEY_OBJECT: &str = "UniFFI passes secret and stream keys as objects that zeroize on drop; JS passes bytes and the keyring imports and exports them";
const TEST_PRIMITIVE: &str = "raw primitive for crafting hostile inputs in the Kotlin and Python tests; the JS tests craft theirs with WebCrypto";
const SET_UP: &str = "JS returns a `SetUpKey` that keeps the new identity in WASM memory until taken; UniFFI returns the `NewUserKey` record holding an `IdentityKey` object";
const AAD_INPUTS: &str = "the AAD and HPKE info bytes, for the Kotlin and Python vector tests; the JS tests build them in test code (test/hostile-server.mjs) and compare them with the vectors";
const WEBCRYPTO: &str = "the async open of JS, whose AES-256-GCM and signature verify run in WebCrypto (hardware AES, native Ed25519; WASM has neither) with every other check in WASM; native code has both in the library";
const PENDING: &str = "what the JS async opens drive: the checks before AES-GCM, then the jobs for WebCrypto and the hazmat finish in WASM";
const WEBCRYPTO_SEAL: &str = "the async seal of JS, whose AES-256-GCM runs in WebCrypto (hardware AES) with the signature and every other step in WASM; native code has AES in hardware in the library";
const SEALING_KEYRING: &str = "the keyring a runtime's JS async seals complete under (a copy sharing the invocation's seal counts and clear); native callers seal through the invocation itself";
const PENDING_SEAL: &str = "what the JS async seals drive: every step but AES-GCM in WASM, the job for WebCrypto, the payload built in WASM from its output";
const WEBCRYPTO_X25519: &str = "the async key-wrap open of JS, whose DH(skR, enc) runs in the platform (WebCrypto, node:crypto) with every other step in WASM (DH(skR, pkS) included, kept with the IdentityKey); native code has X25519 in the library";
const PLATFORM_DH: &str = "what the JS async key-wrap opens drive: the arguments read once and each wrap's DH(skR, enc) listed in WASM, computed by the platform, then the open in WASM with those results (DH(skR, pkS) never the platform's)";
const SECRET_OBJECT: &str = "UniFFI passes the secret as a `SecretKey` object that zeroizes on drop; JS passes its 32 bytes";

/// Every exported name, grouped as the README table shows them.
pub const EXPORTS: &[Export] = &[
    // Loading and background work.
    js_only(Kind::Function, "init", LOADER),
    js_only(Kind::Function, "initSync", LOADER),
    uniffi_only(
        Kind::Function,
        "wait_for_background_work",
        "waits for the async forms' threads before an interpreter exits; a JS worker ends with `terminate()`",
    ),
    // Errors.
    ty("StreamsealError"),
    func("error_codes"),
    // Keys and passphrases.
    class("IdentityKey"),
    ctor("IdentityKey", "generate"),
    js_named(
        Kind::Constructor("IdentityKey"),
        "from_secret",
        "fromSecretKey",
        SECRET_OBJECT,
    ),
    uniffi_only(Kind::Method("IdentityKey"), "secret_key", SECRET_OBJECT),
    js_only(
        Kind::Method("IdentityKey"),
        "exportSecretKey",
        SECRET_OBJECT,
    ),
    method("IdentityKey", "key_id"),
    method("IdentityKey", "kind"),
    method("IdentityKey", "public_key"),
    method("IdentityKey", "recipient"),
    uniffi_only(Kind::Class, "SecretKey", KEY_OBJECT),
    uniffi_only(Kind::Constructor("SecretKey"), "generate", KEY_OBJECT),
    uniffi_only(Kind::Constructor("SecretKey"), "from_bytes", KEY_OBJECT),
    uniffi_only(Kind::Method("SecretKey"), "public_key", KEY_OBJECT),
    uniffi_only(Kind::Method("SecretKey"), "to_bytes", KEY_OBJECT),
    uniffi_only(Kind::Class, "StreamKey", KEY_OBJECT),
    uniffi_only(Kind::Constructor("StreamKey"), "generate", KEY_OBJECT),
    uniffi_only(Kind::Constructor("StreamKey"), "from_bytes", KEY_OBJECT),
    uniffi_only(Kind::Method("StreamKey"), "to_bytes", KEY_OBJECT),
    uniffi_only(Kind::Method("StreamKey"), "equals", KEY_OBJECT),
    func("check_public_key"),
    func("fingerprint"),
    ty("Fingerprint"),
    ty("Recipient"),
    ty("KdfParams"),
    ty("KdfLimits"),
    uniffi_only(Kind::Function, "kdf_limits_default", RECORD_CTOR),
    uniffi_only(Kind::Function, "kdf_params_default", RECORD_CTOR),
    uniffi_only(Kind::Function, "kdf_params_argon2id", RECORD_CTOR),
    uniffi_only(Kind::Function, "kdf_params_creation_floor", RECORD_CTOR),
    uniffi_only(
        Kind::Function,
        "kdf_params_check",
        "checks a record UniFFI cannot give methods; JS calls check the params they are given",
    ),
    ty("SealedBundle"),
    func("create_bundle"),
    uniffi_only(Kind::Function, "create_bundle_async", ASYNC_TOOL),
    func("open_bundle"),
    uniffi_only(Kind::Function, "open_bundle_async", ASYNC_TOOL),
    uniffi_only(Kind::Function, "bundle_aad", AAD_INPUTS),
    js_named(Kind::Function, "set_up_user_key", "setUp", SET_UP),
    uniffi_only(Kind::Function, "set_up_user_key_async", ASYNC),
    uniffi_only(Kind::Type, "NewUserKey", SET_UP),
    js_only(Kind::Class, "SetUpKey", SET_UP),
    js_only(Kind::Method("SetUpKey"), "record", SET_UP),
    js_only(Kind::Method("SetUpKey"), "takeIdentity", SET_UP),
    func("unlock"),
    uniffi_only(Kind::Function, "unlock_async", ASYNC),
    func("change_passphrase"),
    uniffi_only(Kind::Function, "change_passphrase_async", ASYNC),
    // Stream keys and envelopes.
    class("Keyring"),
    ctor("Keyring", "new"),
    method("Keyring", "clear"),
    method("Keyring", "conflicted_generations"),
    method("Keyring", "contains"),
    method("Keyring", "current_generation"),
    method("Keyring", "generations"),
    method("Keyring", "lower_seal_budget"),
    method("Keyring", "newest_generation"),
    method("Keyring", "root_stream_id"),
    method("Keyring", "seal_budget"),
    method("Keyring", "seal_count"),
    uniffi_only(Kind::Method("Keyring"), "insert", KEY_OBJECT),
    js_only(Kind::Method("Keyring"), "generateKey", KEY_OBJECT),
    js_only(Kind::Method("Keyring"), "importKey", KEY_OBJECT),
    js_only(Kind::Method("Keyring"), "exportKey", KEY_OBJECT),
    ty("Slot"),
    ty("SlotKind"),
    ty("StepPhase"),
    ty("DecisionOption"),
    ty("AadContents"),
    ty("AadSender"),
    func("aad_encode"),
    func("aad_parse"),
    ty("Envelope"),
    ty("SealedPayload"),
    ty("OpenedEnvelope"),
    ty("SealedBy"),
    func("seal"),
    func("open"),
    js_only(Kind::Function, "openAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpen", PENDING),
    js_only(Kind::Class, "PendingOpens", PENDING),
    js_only(Kind::Method("PendingOpens"), "jobs", PENDING),
    js_only(Kind::Method("PendingOpens"), "hazmatFinish", PENDING),
    js_only(Kind::Method("PendingOpens"), "hazmatFinishOne", PENDING),
    js_only(Kind::Method("PendingOpens"), "invocationKeyring", PENDING),
    js_only(Kind::Method("PendingOpens"), "hazmatFinishPrompt", PENDING),
    js_only(
        Kind::Method("PendingOpens"),
        "hazmatFinishInvocation",
        PENDING,
    ),
    js_only(Kind::Function, "sealAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "prepareSeal", PENDING_SEAL),
    js_only(Kind::Class, "PendingSeals", PENDING_SEAL),
    js_only(Kind::Method("PendingSeals"), "job", PENDING_SEAL),
    js_only(
        Kind::Method("PendingSeals"),
        "hazmatFinishSeal",
        PENDING_SEAL,
    ),
    uniffi_only(Kind::Function, "envelope_from_json", JSON_TEXT),
    uniffi_only(Kind::Function, "sealed_payload_from_json", JSON_TEXT),
    uniffi_only(Kind::Function, "sealed_payload_to_json", JSON_TEXT),
    func("encode_base64"),
    func("decode_base64"),
    // Key wraps.
    ty("KeyWrap"),
    ty("Unwrapped"),
    func("wrap_stream_key"),
    func("unwrap_stream_key"),
    js_only(Kind::Function, "unwrapStreamKeyAsync", WEBCRYPTO_X25519),
    js_only(Kind::Function, "hazmatPrepareUnwrap", PLATFORM_DH),
    js_only(Kind::Class, "PendingUnwrap", PLATFORM_DH),
    js_only(Kind::Method("PendingUnwrap"), "requests", PLATFORM_DH),
    js_only(Kind::Method("PendingUnwrap"), "hazmatFinish", PLATFORM_DH),
    js_only(
        Kind::Method("PendingUnwrap"),
        "hazmatFinishKeyWraps",
        PLATFORM_DH,
    ),
    uniffi_only(Kind::Function, "wrap_info", AAD_INPUTS),
    // Trust.
    class("TrustStore"),
    ctor("TrustStore", "new"),
    ctor("TrustStore", "from_bytes"),
    method("TrustStore", "acknowledge_change"),
    method("TrustStore", "admit"),
    method("TrustStore", "forget"),
    method("TrustStore", "keys_of"),
    method("TrustStore", "observe"),
    method("TrustStore", "pinned"),
    method("TrustStore", "policy"),
    method("TrustStore", "set_policy"),
    method("TrustStore", "to_bytes"),
    method("TrustStore", "trusted"),
    method("TrustStore", "trusted_by_id"),
    method("TrustStore", "verify"),
    class("TrustedKey"),
    ctor("TrustedKey", "own"),
    method("TrustedKey", "level"),
    method("TrustedKey", "recipient"),
    method("TrustedKey", "subject"),
    ty("PinnedKey"),
    class("SafetyNumber"),
    method("SafetyNumber", "digits"),
    method("SafetyNumber", "display"),
    method("SafetyNumber", "matches_digits"),
    method("SafetyNumber", "matches_scanned"),
    method("SafetyNumber", "scannable"),
    func("safety_number"),
    func("owner_key"),
    func("owner_recipient"),
    // Stream state.
    class("StreamState"),
    ctor("StreamState", "new"),
    ctor("StreamState", "from_bytes"),
    method("StreamState", "accept_sender"),
    method("StreamState", "commit_roll"),
    method("StreamState", "drop_keys"),
    method("StreamState", "high_water"),
    method("StreamState", "is_sealed"),
    method("StreamState", "keyring"),
    method("StreamState", "mark_sealed"),
    method("StreamState", "observe_e2e_enabled"),
    method("StreamState", "owner_user_id"),
    method("StreamState", "prepare_roll"),
    method("StreamState", "remove_sender"),
    method("StreamState", "root_stream_id"),
    method("StreamState", "senders"),
    method("StreamState", "set_owner"),
    method("StreamState", "to_bytes"),
    method("StreamState", "was_acted_on"),
    ty("AdmittedGeneration"),
    class("PreparedRoll"),
    method("PreparedRoll", "key_generation"),
    js_named(
        Kind::Method("PreparedRoll"),
        "request_json",
        "request",
        "the `POST .../key-wraps` body: JSON text in UniFFI, the object in JS",
    ),
    method("PreparedRoll", "roster"),
    method("PreparedRoll", "wraps"),
    ty("RosterEntry"),
    ty("SkippedWrap"),
    ty("WrapsReport"),
    func("open_key_wraps"),
    js_only(Kind::Function, "openKeyWrapsAsync", WEBCRYPTO_X25519),
    js_only(Kind::Function, "hazmatPrepareKeyWraps", PLATFORM_DH),
    // Messages and history.
    ty("KeySender"),
    ty("OwnKeys"),
    ty("PresentedKey"),
    func("with_machine_key"),
    func("seal_message"),
    func("seal_edit"),
    func("open_message"),
    func("open_messages"),
    js_only(Kind::Function, "openMessageAsync", WEBCRYPTO),
    js_only(Kind::Function, "openMessagesAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpenMessage", PENDING),
    js_only(Kind::Function, "prepareOpenMessages", PENDING),
    js_only(Kind::Function, "sealMessageAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "sealEditAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "prepareSealMessage", PENDING_SEAL),
    js_only(Kind::Function, "prepareSealEdit", PENDING_SEAL),
    ty("OpenedMessage"),
    ty("OpenResult"),
    func("check_send_rules"),
    func("mint_client_message_id"),
    func("with_client_message_id"),
    func("mint_message_id"),
    // Bot runtimes.
    class("OpenedInvocation"),
    ctor("OpenedInvocation", "open"),
    method("OpenedInvocation", "generations"),
    method("OpenedInvocation", "hazmat_seal_reply_with_randomness"),
    method("OpenedInvocation", "history"),
    method("OpenedInvocation", "invocation_id"),
    method("OpenedInvocation", "prompt"),
    method("OpenedInvocation", "prompt_sealed_by"),
    method("OpenedInvocation", "seal_complete_reply"),
    method("OpenedInvocation", "seal_decision_card"),
    method("OpenedInvocation", "seal_message"),
    method("OpenedInvocation", "seal_reply"),
    method("OpenedInvocation", "seal_step"),
    method("OpenedInvocation", "seal_step_started"),
    method("OpenedInvocation", "step_frames"),
    method("OpenedInvocation", "wraps"),
    js_only(Kind::Function, "openInvocationAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpenInvocation", PENDING),
    js_only(Kind::Function, "sealReplyAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "sealCompleteReplyAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "sealFollowUpAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "sealStepStartedAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "sealStepAsync", WEBCRYPTO_SEAL),
    js_only(
        Kind::Function,
        "sealRuntimeDecisionCardAsync",
        WEBCRYPTO_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "sealingKeyring",
        SEALING_KEYRING,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealReply",
        PENDING_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealCompleteReply",
        PENDING_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealMessage",
        PENDING_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealStepStarted",
        PENDING_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealStep",
        PENDING_SEAL,
    ),
    js_only(
        Kind::Method("OpenedInvocation"),
        "prepareSealDecisionCard",
        PENDING_SEAL,
    ),
    ty("HistoryEntry"),
    ty("HistoryItem"),
    ty("OpenedStep"),
    ty("StepPlacement"),
    func("open_step"),
    js_only(Kind::Function, "openStepAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpenStep", PENDING),
    // Decisions.
    func("seal_decision_card"),
    js_only(Kind::Function, "sealDecisionCardAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "prepareSealDecisionCard", PENDING_SEAL),
    func("open_decision_card"),
    js_only(Kind::Function, "openDecisionCardAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpenDecisionCard", PENDING),
    ty("OpenedDecisionCard"),
    func("seal_decision_note"),
    js_only(Kind::Function, "sealDecisionNoteAsync", WEBCRYPTO_SEAL),
    js_only(Kind::Function, "prepareSealDecisionNote", PENDING_SEAL),
    func("open_decision_answer"),
    js_only(Kind::Function, "openDecisionAnswerAsync", WEBCRYPTO),
    js_only(Kind::Function, "prepareOpenDecisionAnswer", PENDING),
    ty("DecisionAnswer"),
    // Realtime events.
    func("decode_event"),
    ty("RealtimeEvent"),
    func("decode_hello_ack"),
    ty("HelloAckInfo"),
    // The sans-IO endpoints.
    func("endpoints"),
    func("endpoint"),
    func("endpoint_count"),
    ty("EndpointInfo"),
    ty("Family"),
    ty("AuthKind"),
    ty("HttpMethod"),
    ty("RequiredScope"),
    func("missing_scope"),
    js_named(
        Kind::Type,
        "Context",
        "ContextInit",
        "the base URL, token and version a request is built with",
    ),
    func("build_request"),
    ty("HttpRequest"),
    ty("RequestBody"),
    uniffi_only(
        Kind::Type,
        "Header",
        "a header as a record; JS headers are `[name, value]` pairs",
    ),
    ty("HttpResponse"),
    func("parse_response"),
    ty("ApiResponse"),
    func("next_page"),
    func("next_cursor"),
    func("next_message_query"),
    // The retry policy.
    func("retry_step"),
    func("no_response_retry_facts"),
    func("default_retry_policy"),
    ty("RetryFacts"),
    ty("RetryKind"),
    ty("RetryPolicy"),
    ty("RetryStep"),
    ty("GiveUpReason"),
    js_only(Kind::Function, "createClient", CLIENT),
    // Hazmat: tests and vectors only.
    func("hazmat_seal_with_randomness"),
    js_only(
        Kind::Function,
        "hazmatPrepareSealWithRandomness",
        PENDING_SEAL,
    ),
    func("hazmat_wrap_stream_key_with_randomness"),
    func("hazmat_create_bundle_with_randomness"),
    func("hazmat_xeddsa_sign"),
    func("hazmat_xeddsa_sign_with_randomness"),
    func("hazmat_xeddsa_verify"),
    uniffi_only(Kind::Function, "hazmat_derive_key", TEST_PRIMITIVE),
    uniffi_only(Kind::Function, "hazmat_aes256gcm_seal", TEST_PRIMITIVE),
];

/// `snake_case` to `camelCase`.
pub fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl Export {
    /// The JS name, if JS exports it.
    pub fn js(&self) -> Option<String> {
        match self.side {
            Side::Both => Some(match self.kind {
                Kind::Class | Kind::Type => self.name.to_owned(),
                _ => camel(self.name),
            }),
            Side::JsNamed(js) | Side::JsOnly(js) => Some(js.to_owned()),
            Side::UniffiOnly => None,
        }
    }

    /// The UniFFI name (the Python spelling), if UniFFI exports it.
    pub fn uniffi(&self) -> Option<&'static str> {
        match self.side {
            Side::JsOnly(_) => None,
            _ => Some(self.name),
        }
    }

    /// The Kotlin and Swift name, if UniFFI exports it.
    pub fn kotlin_swift(&self) -> Option<String> {
        self.uniffi().map(|name| match self.kind {
            Kind::Class | Kind::Type => name.to_owned(),
            _ => camel(name),
        })
    }

    /// The class a constructor or method belongs to.
    pub fn owner(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Constructor(class) | Kind::Method(class) => Some(class),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn camel_case_is_the_js_spelling() {
        assert_eq!(camel("open_key_wraps"), "openKeyWraps");
        assert_eq!(camel("hazmat_aes256gcm_seal"), "hazmatAes256gcmSeal");
        assert_eq!(camel("seal"), "seal");
    }

    #[test]
    fn each_name_is_listed_once_and_its_class_is_listed() {
        let mut seen = BTreeSet::new();
        for e in EXPORTS {
            assert!(
                seen.insert((e.owner(), e.name, e.js())),
                "{e:?} is listed twice"
            );
            if let Some(class) = e.owner() {
                assert!(
                    EXPORTS
                        .iter()
                        .any(|c| c.kind == Kind::Class && c.name == class),
                    "{e:?} belongs to a class that is not listed"
                );
            }
            assert_eq!(
                e.side == Side::Both,
                e.note.is_empty(),
                "{e:?}: a name on one side or spelt apart says why, and only then"
            );
        }
    }
}
