//! The bad-input catalogue of the crypto core: every named hostile or broken
//! input, each with the one `ErrorCode` it must produce, and a sweep of
//! random garbage through every parse and open entry point that must never
//! panic.
//!
//! Run with `cargo test -p streamseal --test it bad_inputs:: -- --nocapture`.

use std::time::{Duration, Instant};
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};

use base64::Engine as _;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use proptest::prelude::*;
use proptest::test_runner::Config;
use streamseal::aad::{self, AAD_LABEL, AadSender, MAX_AAD_LEN};
use streamseal::bundle::{self, BUNDLE_VERSION, SealedBundle, create_bundle, open_bundle};
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::{
    COMMITMENT_LEN, Envelope, MAX_CIPHERTEXT_LEN, MAX_PLAINTEXT_LEN, MIN_CIPHERTEXT_LEN,
    SealedPayload, key_commitment, open, open_matching, seal,
};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::{self, KdfLimits, KdfParams};
use streamseal::sealed::key_wraps::open_key_wraps;
use streamseal::sealed::state::StreamState;
use streamseal::sealed::user_key::{self, NewOwnKey};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::signature::SIGNATURE_LEN;
use streamseal::slot::{DecisionOption, Slot, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::keys::{KeyWraps, OwnKey};
use streamseal::wrap::{KeyWrap, unwrap_stream_key, wrap_stream_key};
use streamseal::{CryptoError, Error, ErrorCode};

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const GENERATION: u32 = 2;
const PASS: &str = "correct horse battery staple";
/// The author of the fixture's message, who seals it with the owner's key.
const AUTHOR: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
/// The owner's key id (`Fx::sender`).
const AUTHOR_KEY_ID: &str = "key_owner";

// ---------------------------------------------------------------------------
// The fixture every case starts from
// ---------------------------------------------------------------------------

struct Fx {
    ring: Keyring,
    slot: Slot,
    /// Sealed by `AUTHOR` with `sender`'s key, with the iv `[0xfb; 12]`,
    /// whose base64 uses `+` and `/`, and `Z = [0xfb; 64]`; the ciphertext
    /// and AAD lengths are not multiples of 3 (so they are padded).
    sealed: SealedPayload,
    /// Pins `sender` as `AUTHOR`'s key: the opener of every case.
    trust: TrustStore,
    me: IdentityKey,
    /// The owner's key, which made `wrap` (the sender `me` accepts) and
    /// signs the fixture's message as `AUTHOR`.
    sender: IdentityKey,
    /// Addressed to `me` from `sender`; both base64 fields use `+` or `/`.
    wrap: KeyWrap,
    public: PublicKey,
    other_public: PublicKey,
    /// Salt `[0xfb; 16]` and iv `[0xfb; 12]`, Argon2id at the creation
    /// floor (m = 19456, t = 2, p = 1): the cheapest bundle `create_bundle` makes.
    bundle: SealedBundle,
    other_bundle: SealedBundle,
}

/// The cheapest parameters a new bundle may have (OWASP's minimum).
fn floor() -> KdfParams {
    KdfParams::creation_floor()
}

fn has_plus_or_slash(s: &str) -> bool {
    s.contains('+') || s.contains('/')
}

fn fixture() -> Fx {
    let ring = {
        let mut r = Keyring::new(ROOT).unwrap();
        r.insert(GENERATION, StreamKey::from_bytes(&[0x40; 32]))
            .unwrap();
        r
    };
    let sender = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new(AUTHOR_KEY_ID).unwrap(),
        SecretKey::from_bytes(&[0x10; 32]),
    );
    let signer = Signer::new(AUTHOR, &sender).unwrap();
    // Pick ids and a body whose encodings have the shape the cases need.
    let (slot, sealed) = (0..1000)
        .find_map(|n| {
            let slot = Slot::Message {
                stream_id: ROOT.into(),
                message_id: format!("msg_{n}"),
                author_id: AUTHOR.into(),
                author_type: "user".into(),
                revision: 1,
            };
            let body = format!("sealed body {n}!");
            // The iv, then the signature's 64 bytes.
            let sealed = {
                let randomness = &[0xfb; 12 + 64];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::seal_envelope_with(&mut rng, &ring, &signer, &slot, body.as_bytes())
            }
            .unwrap();
            let aad_len = decode_base64("aad", &sealed.envelope.aad).unwrap().len();
            let ok = !aad_len.is_multiple_of(3)
                && !(MIN_CIPHERTEXT_LEN + body.len()).is_multiple_of(3)
                && has_plus_or_slash(&sealed.ciphertext);
            ok.then_some((slot, sealed))
        })
        .unwrap();
    assert_eq!(sealed.envelope.iv, "+/v7+/v7+/v7+/v7");
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    trust.admit(AUTHOR, &Recipient::of(&sender)).unwrap();

    let secret = SecretKey::from_bytes(&[0x20; 32]);
    let me = IdentityKey::from_secret(
        RecipientKind::Bot,
        KeyId::new("machine-a").unwrap(),
        secret.clone(),
    );
    let wrap = (0u8..=255)
        .find_map(|seed| {
            let w = {
                let randomness = &[seed; 32];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::wrap_stream_key_with(
                    &mut rng,
                    ROOT,
                    GENERATION,
                    &StreamKey::from_bytes(&[0x40; 32]),
                    &sender,
                    &Recipient::of(&me),
                )
            }
            .unwrap();
            (has_plus_or_slash(&w.wrap_enc) && has_plus_or_slash(&w.wrap_ct)).then_some(w)
        })
        .unwrap();

    let other_secret = SecretKey::from_bytes(&[0x30; 32]);
    let bundle = {
        let randomness = &[0xfb; 28];
        let mut rng = FixedRandomness::new(randomness);
        hazmat::create_bundle_with(&mut rng, &secret, PASS, &floor())
    }
    .unwrap();
    let other_bundle = {
        let randomness = &[0x5a; 28];
        let mut rng = FixedRandomness::new(randomness);
        hazmat::create_bundle_with(&mut rng, &other_secret, PASS, &floor())
    }
    .unwrap();
    Fx {
        ring,
        slot,
        sealed,
        trust,
        me,
        sender,
        wrap,
        public: secret.public_key(),
        other_public: other_secret.public_key(),
        bundle,
        other_bundle,
    }
}

// ---------------------------------------------------------------------------
// Base64 spellings
// ---------------------------------------------------------------------------

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// A lax decoder that ignores non-zero trailing bits: what `aGl=` is to it.
const LAX: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// The same bytes spelled with a non-zero unused bit in the last symbol
/// before the padding. A lax decoder still reads the same bytes (checked).
fn noncanonical(s: &str) -> String {
    assert!(s.ends_with('='), "needs a padded spelling: {s}");
    let pads = s.len() - s.trim_end_matches('=').len();
    let at = s.len() - pads - 1;
    let mut bytes = s.as_bytes().to_vec();
    let index = ALPHABET.iter().position(|c| *c == bytes[at]).unwrap();
    assert_eq!(index & 1, 0, "already non-canonical");
    bytes[at] = ALPHABET[index | 1];
    let out = String::from_utf8(bytes).unwrap();
    assert_eq!(LAX.decode(&out).unwrap(), LAX.decode(s).unwrap());
    out
}

/// The same bytes in the URL-safe alphabet.
fn url_safe(s: &str) -> String {
    assert!(has_plus_or_slash(s), "nothing to respell in {s}");
    let out = s.replace('+', "-").replace('/', "_");
    assert_eq!(
        base64::engine::general_purpose::URL_SAFE
            .decode(&out)
            .unwrap(),
        decode_base64("x", s).unwrap()
    );
    out
}

fn unpadded(s: &str) -> String {
    let out = s.trim_end_matches('=').to_owned();
    assert_ne!(out, s, "nothing to strip in {s}");
    out
}

fn insert_at(s: &str, at: usize, what: &str) -> String {
    format!("{}{what}{}", &s[..at], &s[at..])
}

fn replace_char(s: &str, at: usize, c: char) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    chars[at] = c;
    chars.into_iter().collect()
}

fn b64_len(n: usize) -> String {
    encode_base64(&vec![0x5a; n])
}

// ---------------------------------------------------------------------------
// Operations the cases tamper with
// ---------------------------------------------------------------------------

type Outcome = Result<(), Error>;

/// The fixture's opener: it pinned the owner's key as `AUTHOR`'s.
fn keys(fx: &Fx) -> SenderKeys<'_> {
    SenderKeys::new(&fx.trust)
}

fn open_with(fx: &Fx, f: impl FnOnce(&mut SealedPayload)) -> Outcome {
    let mut sealed = fx.sealed.clone();
    f(&mut sealed);
    open(&fx.ring, &keys(fx), &fx.slot, &sealed)
        .map(|_| ())
        .map_err(Into::into)
}

/// Opens the fixture with its ciphertext bytes edited by `f`: the first
/// `COMMITMENT_LEN` of them are the key commitment.
fn open_with_ciphertext(fx: &Fx, f: impl FnOnce(&mut Vec<u8>)) -> Outcome {
    let mut ct = decode_base64("ciphertext", &fx.sealed.ciphertext).unwrap();
    f(&mut ct);
    open_with(fx, |s| s.ciphertext = encode_base64(&ct))
}

/// Opens the fixture's ciphertext with `aad` as its AAD bytes, accepting any slot.
fn open_aad(fx: &Fx, aad: &[u8]) -> Outcome {
    let mut sealed = fx.sealed.clone();
    sealed.envelope.aad = encode_base64(aad);
    open_matching(&fx.ring, &keys(fx), &sealed, |_| true)
        .map(|_| ())
        .map_err(Into::into)
}

/// `AUTHOR` signing with the owner's key.
fn signer(fx: &Fx) -> Signer<'_> {
    Signer::new(AUTHOR, &fx.sender).unwrap()
}

fn unwrap_with(fx: &Fx, f: impl FnOnce(&mut KeyWrap)) -> Outcome {
    let mut wrap = fx.wrap.clone();
    f(&mut wrap);
    unwrap_stream_key(ROOT, &wrap, std::slice::from_ref(&fx.me), &accepted(fx))
        .map(|_| ())
        .map_err(Into::into)
}

/// The senders `me` accepts: the owner's key that made the fixture's wrap.
fn accepted(fx: &Fx) -> [Recipient; 1] {
    [Recipient::of(&fx.sender)]
}

/// The fixture's member as a stream state that accepts the owner's key and
/// opened `wraps` (announcing `current` as `currentKeyGeneration`).
fn state_after(fx: &Fx, current: u32, wraps: Vec<KeyWrap>) -> Result<StreamState, Error> {
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let owner = trust.admit("usr_owner", &Recipient::of(&fx.sender))?;
    let mut state = StreamState::new(ROOT)?;
    state.accept_sender(&owner)?;
    let listed = KeyWraps {
        current_key_generation: current,
        owner_user_id: "usr_owner".into(),
        wraps,
        extra: Default::default(),
    };
    open_key_wraps(&mut state, &trust, &listed, std::slice::from_ref(&fx.me))?;
    Ok(state)
}

fn bundle_with(fx: &Fx, f: impl FnOnce(&mut SealedBundle)) -> Outcome {
    let mut bundle = fx.bundle.clone();
    f(&mut bundle);
    open_bundle(&fx.public, &bundle, PASS, &KdfLimits::default())
        .map(|_| ())
        .map_err(Into::into)
}

fn bundle_bytes(fx: &Fx) -> Vec<u8> {
    decode_base64("bundle", &fx.bundle.encrypted_private_bundle).unwrap()
}

fn bundle_from(fx: &Fx, bytes: &[u8]) -> Outcome {
    bundle_with(fx, |b| b.encrypted_private_bundle = encode_base64(bytes))
}

fn params_with(fx: &Fx, f: impl FnOnce(&mut KdfParams)) -> Outcome {
    bundle_with(fx, |b| f(&mut b.kdf_params))
}

/// Opens a bundle of `secret_bytes` sealed under the record's public key in
/// the AAD: crafted outside `create_bundle` from the library's own parts.
fn crafted_bundle(fx: &Fx, secret_bytes: &[u8; 32]) -> Outcome {
    let salt = [0x11u8; 16];
    let iv = [0x22u8; 12];
    let key = kdf::derive_key(PASS, &salt, &floor(), &KdfLimits::default())?;
    let aad = bundle::bundle_aad(BUNDLE_VERSION, &fx.public);
    let ct = hazmat::aes256gcm_seal(&key, &iv, secret_bytes, &aad)?;
    let bytes = [&[BUNDLE_VERSION][..], &iv[..], &ct[..]].concat();
    let crafted = SealedBundle {
        encrypted_private_bundle: encode_base64(&bytes),
        kdf_salt: encode_base64(&salt),
        kdf_params: floor(),
    };
    open_bundle(&fx.public, &crafted, PASS, &KdfLimits::default())
        .map(|_| ())
        .map_err(Into::into)
}

/// The fixture's bundle as the `GET me/e2e-key` record.
fn own_key(fx: &Fx) -> OwnKey {
    NewOwnKey {
        key_id: "key_1".into(),
        public_key: fx.public,
        bundle: fx.bundle.clone(),
    }
    .into_own_key("2026-11-21T00:00:00Z")
}

/// Seals into `slot` with the owner's key, as the slot's author where it
/// names one (else as `AUTHOR`).
fn seal_slot(fx: &Fx, slot: &Slot) -> Outcome {
    let signer = Signer::new(slot.author_id().unwrap_or(AUTHOR), &fx.sender)?;
    seal(&fx.ring, &signer, slot, b"x")
        .map(|_| ())
        .map_err(Into::into)
}

fn card(options: Vec<DecisionOption>) -> Slot {
    Slot::DecisionCard {
        stream_id: ROOT.into(),
        decision_id: "dreq_1".into(),
        invocation_id: "inv_1".into(),
        runtime_session_id: "session-1".into(),
        options,
        allow_note: true,
    }
}

fn option(id: &str) -> DecisionOption {
    DecisionOption {
        id: id.into(),
        tone: "neutral".into(),
    }
}

fn trace_step() -> Slot {
    Slot::TraceStep {
        invocation_id: "inv_1".into(),
        step_id: "step_1".into(),
        step_type: "tool_call".into(),
        phase: StepPhase::Started,
        message_id: None,
    }
}

/// The sender of `aad_of(slot)`: the slot's author (else `AUTHOR`) with
/// the owner's key.
fn aad_sender(slot: &Slot) -> AadSender {
    AadSender {
        subject: slot.author_id().unwrap_or(AUTHOR).to_owned(),
        kind: RecipientKind::User,
        key_id: AUTHOR_KEY_ID.into(),
    }
}

fn aad_of(slot: &Slot) -> Vec<u8> {
    aad::encode(2, ROOT, GENERATION, &aad_sender(slot), slot).unwrap()
}

/// Offset of the root stream id's length prefix: label, version, kind.
const ROOT_LEN_AT: usize = 14 + 2;

/// Offset of the sender subject's length prefix: the root stream id, the generation.
const SUBJECT_LEN_AT: usize = ROOT_LEN_AT + 2 + ROOT.len() + 4;

/// Length of the sender in `aad_of(..)` (subject, kind `user`, key id).
const SENDER_LEN: usize = 2 + AUTHOR.len() + 2 + 4 + 2 + AUTHOR_KEY_ID.len();

/// Offset of a decision card's option count in `aad_of(card(..))`.
fn option_count_at() -> usize {
    SUBJECT_LEN_AT
        + SENDER_LEN
        + 2
        + ROOT.len()
        + 2
        + "dreq_1".len()
        + 2
        + "inv_1".len()
        + 2
        + "session-1".len()
}

/// The AAD of the fixture's slot, changed by `f`.
fn aad_edit(fx: &Fx, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = aad_of(&fx.slot);
    f(&mut bytes);
    bytes
}

/// Named malformed AADs, each opened through `aad::parse` and through the opener.
fn malformed_aads(fx: &Fx) -> Vec<(&'static str, Vec<u8>)> {
    let dup = {
        let mut b = aad_of(&card(vec![option("a"), option("b")]));
        let at = b.iter().rposition(|c| *c == b'b').unwrap();
        b[at] = b'a';
        b
    };
    vec![
        ("empty", Vec::new()),
        (
            "truncated by one byte",
            aad_edit(fx, |b| {
                b.pop();
            }),
        ),
        ("label only", AAD_LABEL.to_vec()),
        ("trailing byte", aad_edit(fx, |b| b.push(0))),
        ("wrong domain label", aad_edit(fx, |b| b[0] = b'S')),
        ("unknown slot kind 0", aad_edit(fx, |b| b[15] = 0)),
        ("unknown slot kind 6", aad_edit(fx, |b| b[15] = 6)),
        (
            "zero-length string",
            aad_edit(fx, |b| {
                // Root id length 0, its bytes dropped.
                b.drain(ROOT_LEN_AT..ROOT_LEN_AT + 2 + ROOT.len());
                b.splice(ROOT_LEN_AT..ROOT_LEN_AT, [0, 0]);
            }),
        ),
        (
            "string length 1025",
            aad_edit(fx, |b| {
                b[ROOT_LEN_AT] = 0x04;
                b[ROOT_LEN_AT + 1] = 0x01;
            }),
        ),
        ("invalid UTF-8", aad_edit(fx, |b| b[ROOT_LEN_AT + 2] = 0xff)),
        (
            "sender subject is not the message's author",
            aad_edit(fx, |b| {
                let last = SUBJECT_LEN_AT + 2 + AUTHOR.len() - 1;
                assert_eq!(b[last], b'1');
                b[last] = b'2';
            }),
        ),
        (
            "empty sender key id",
            aad_edit(fx, |b| {
                let at = SUBJECT_LEN_AT + SENDER_LEN - AUTHOR_KEY_ID.len() - 2;
                b.drain(at..at + 2 + AUTHOR_KEY_ID.len());
                b.splice(at..at, [0, 0]);
            }),
        ),
        (
            "sender key id of 129 characters",
            aad_edit(fx, |b| {
                let at = SUBJECT_LEN_AT + SENDER_LEN - AUTHOR_KEY_ID.len() - 2;
                b.drain(at..at + 2 + AUTHOR_KEY_ID.len());
                let long = "k".repeat(129);
                let prefix = u16::try_from(long.len()).unwrap().to_be_bytes();
                b.splice(at..at, [&prefix[..], long.as_bytes()].concat());
            }),
        ),
        ("bad presence flag 2", {
            let mut b = aad_of(&trace_step());
            *b.last_mut().unwrap() = 2;
            b
        }),
        ("unknown step phase 3", {
            let mut b = aad_of(&trace_step());
            let at = b.len() - 2;
            b[at] = 3;
            b
        }),
        ("allowNote byte 2", {
            let mut b = aad_of(&card(vec![option("a")]));
            *b.last_mut().unwrap() = 2;
            b
        }),
        ("option count 0", {
            let mut b = aad_of(&card(vec![option("a")]));
            b[option_count_at()..option_count_at() + 2].copy_from_slice(&[0, 0]);
            b
        }),
        ("option count 65", {
            let mut b = aad_of(&card(vec![option("a")]));
            b[option_count_at()..option_count_at() + 2].copy_from_slice(&[0, 65]);
            b
        }),
        ("duplicate option ids", dup),
    ]
}

// ---------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------

type Run = Box<dyn Fn(&Fx) -> Outcome>;

struct Case {
    name: String,
    want: ErrorCode,
    run: Run,
}

fn case<T, E: Into<Error>>(
    name: impl Into<String>,
    want: ErrorCode,
    f: impl Fn(&Fx) -> Result<T, E> + 'static,
) -> Case {
    Case {
        name: name.into(),
        want,
        run: Box::new(move |fx| f(fx).map(|_| ()).map_err(Into::into)),
    }
}

#[allow(clippy::too_many_lines)]
fn catalogue(fx: &Fx) -> Vec<Case> {
    use ErrorCode as E;
    let mut c: Vec<Case> = vec![
        // --- base64: bad alphabet, URL-safe, padding, trailing bits, whitespace
        case("iv: bad alphabet '*'", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.iv = replace_char(&s.envelope.iv, 5, '*'))
        }),
        case("iv: URL-safe alphabet", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.iv = url_safe(&s.envelope.iv))
        }),
        // Whitespace is not base64, whatever the text's length: the same
        // character that makes "+/v7+/v" MALFORMED_BASE64 must not turn
        // "+/v7+/v7\n+/v7+/v7" into a length error ("has length 12, expected 12").
        case("iv: embedded newline", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.iv = insert_at(&s.envelope.iv, 8, "\n"))
        }),
        case("iv: embedded space", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.iv = insert_at(&s.envelope.iv, 4, " "))
        }),
        case("iv: trailing CRLF", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.iv.push_str("\r\n"))
        }),
        case(
            "iv: 15 characters (missing a symbol)",
            E::MalformedBase64,
            |fx| {
                open_with(fx, |s| {
                    s.envelope.iv.pop();
                })
            },
        ),
        case("aad: bad alphabet '!'", E::MalformedBase64, |fx| {
            open_with(fx, |s| {
                s.envelope.aad = replace_char(&s.envelope.aad, 3, '!')
            })
        }),
        case("aad: missing padding", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.aad = unpadded(&s.envelope.aad))
        }),
        case(
            "aad: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| open_with(fx, |s| s.envelope.aad = noncanonical(&s.envelope.aad)),
        ),
        case("aad: one '=' too many", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.envelope.aad.push('='))
        }),
        case(
            "aad: embedded newline (MIME line break)",
            E::MalformedBase64,
            |fx| {
                open_with(fx, |s| {
                    s.envelope.aad =
                        insert_at(&s.envelope.aad, 76.min(s.envelope.aad.len() - 4), "\n")
                })
            },
        ),
        case("ciphertext: URL-safe alphabet", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.ciphertext = url_safe(&s.ciphertext))
        }),
        case("ciphertext: missing padding", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.ciphertext = unpadded(&s.ciphertext))
        }),
        case(
            "ciphertext: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| open_with(fx, |s| s.ciphertext = noncanonical(&s.ciphertext)),
        ),
        case("ciphertext: embedded tab", E::MalformedBase64, |fx| {
            open_with(fx, |s| s.ciphertext = insert_at(&s.ciphertext, 4, "\t"))
        }),
        // The key commitment is the ciphertext's first 32 bytes (its first
        // 42 characters): a bad spelling there is the ciphertext's.
        case(
            "ciphertext: bad alphabet '*' in the commitment",
            E::MalformedBase64,
            |fx| open_with(fx, |s| s.ciphertext = replace_char(&s.ciphertext, 7, '*')),
        ),
        case(
            "ciphertext: embedded newline in the commitment",
            E::MalformedBase64,
            |fx| open_with(fx, |s| s.ciphertext = insert_at(&s.ciphertext, 20, "\n")),
        ),
        case("wrapEnc: URL-safe alphabet", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_enc = url_safe(&w.wrap_enc))
        }),
        case("wrapEnc: missing padding", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_enc = unpadded(&w.wrap_enc))
        }),
        case(
            "wrapEnc: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| unwrap_with(fx, |w| w.wrap_enc = noncanonical(&w.wrap_enc)),
        ),
        case("wrapEnc: embedded newline", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_enc = insert_at(&w.wrap_enc, 20, "\n"))
        }),
        case("wrapCt: URL-safe alphabet", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = url_safe(&w.wrap_ct))
        }),
        case("wrapCt: bad alphabet '.'", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = replace_char(&w.wrap_ct, 10, '.'))
        }),
        case("wrapCt: embedded CRLF", E::MalformedBase64, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = insert_at(&w.wrap_ct, 32, "\r\n"))
        }),
        case("bundle: URL-safe alphabet", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| {
                b.encrypted_private_bundle = url_safe(&b.encrypted_private_bundle)
            })
        }),
        case("bundle: missing padding", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| {
                b.encrypted_private_bundle = unpadded(&b.encrypted_private_bundle)
            })
        }),
        case(
            "bundle: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| {
                bundle_with(fx, |b| {
                    b.encrypted_private_bundle = noncanonical(&b.encrypted_private_bundle);
                })
            },
        ),
        case("bundle: embedded newline", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| {
                b.encrypted_private_bundle = insert_at(&b.encrypted_private_bundle, 40, "\n");
            })
        }),
        case("salt: URL-safe alphabet", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| b.kdf_salt = url_safe(&b.kdf_salt))
        }),
        case("salt: missing padding", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| b.kdf_salt = unpadded(&b.kdf_salt))
        }),
        case(
            "salt: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| bundle_with(fx, |b| b.kdf_salt = noncanonical(&b.kdf_salt)),
        ),
        case("salt: embedded space", E::MalformedBase64, |fx| {
            bundle_with(fx, |b| b.kdf_salt = insert_at(&b.kdf_salt, 8, " "))
        }),
        case(
            "publicKey: non-canonical trailing bits",
            E::MalformedBase64,
            |fx| PublicKey::from_base64(&noncanonical(&fx.public.to_base64())),
        ),
        case("publicKey: URL-safe symbol '_'", E::MalformedBase64, |fx| {
            PublicKey::from_base64(&replace_char(&fx.public.to_base64(), 0, '_'))
        }),
        case(
            "publicKey: 44 characters with a newline",
            E::MalformedBase64,
            |fx| {
                let text = fx.public.to_base64();
                PublicKey::from_base64(&format!("{}\n=", &text[..42]))
            },
        ),
        case("decode_base64: \"aGl=\"", E::MalformedBase64, |_| {
            decode_base64("iv", "aGl=")
        }),
        // --- wrong lengths
        case("iv: 11 bytes", E::InvalidLength, |fx| {
            open_with(fx, |s| s.envelope.iv = b64_len(11))
        }),
        case("iv: 13 bytes", E::InvalidLength, |fx| {
            open_with(fx, |s| s.envelope.iv = b64_len(13))
        }),
        case("iv: empty", E::InvalidLength, |fx| {
            open_with(fx, |s| s.envelope.iv = String::new())
        }),
        // The fixture's ciphertext is 126 to 128 bytes: without its
        // commitment it is shorter than the 112 bytes of commitment,
        // signature and tag.
        case(
            "commitment: removed from the ciphertext",
            E::InvalidLength,
            |fx| {
                open_with_ciphertext(fx, |ct| {
                    ct.drain(..COMMITMENT_LEN);
                    assert!(ct.len() < MIN_CIPHERTEXT_LEN);
                })
            },
        ),
        // The draft that carried the commitment as a fifth envelope field:
        // the field is kept unread (API §9.6), and the ciphertext without it
        // is too short.
        case(
            "commitment: moved to an envelope field",
            E::InvalidLength,
            |fx| {
                let ct = decode_base64("ciphertext", &fx.sealed.ciphertext).unwrap();
                let mut value: serde_json::Value =
                    serde_json::from_str(&fx.sealed.to_json()).unwrap();
                value["ciphertext"] = encode_base64(&ct[COMMITMENT_LEN..]).into();
                value["envelope"]["commitment"] = encode_base64(&ct[..COMMITMENT_LEN]).into();
                let parsed = SealedPayload::from_json(&value.to_string())?;
                let mut known = parsed.envelope.clone();
                assert!(known.extra.remove("commitment").is_some());
                assert_eq!(known, fx.sealed.envelope);
                Ok::<_, Error>(open(&fx.ring, &keys(fx), &fx.slot, &parsed)?)
            },
        ),
        case("wrapEnc: 31 bytes", E::InvalidLength, |fx| {
            unwrap_with(fx, |w| w.wrap_enc = b64_len(31))
        }),
        case("wrapEnc: 33 bytes", E::InvalidLength, |fx| {
            unwrap_with(fx, |w| w.wrap_enc = b64_len(33))
        }),
        case("wrapCt: 47 bytes", E::InvalidLength, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = b64_len(47))
        }),
        case("wrapCt: 49 bytes", E::InvalidLength, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = b64_len(49))
        }),
        case("wrapCt: 4 KiB", E::InvalidLength, |fx| {
            unwrap_with(fx, |w| w.wrap_ct = b64_len(4096))
        }),
        case("publicKey: 43 characters", E::InvalidLength, |fx| {
            PublicKey::from_base64(&fx.public.to_base64()[..43])
        }),
        case("publicKey: 45 characters", E::InvalidLength, |fx| {
            PublicKey::from_base64(&format!("{}A", fx.public.to_base64()))
        }),
        case(
            "publicKey: 44 characters holding 31 bytes",
            E::InvalidLength,
            |_| {
                let text = b64_len(31);
                assert_eq!(text.len(), 44);
                PublicKey::from_base64(&text)
            },
        ),
        case(
            // The right number of characters, none of them base64.
            "publicKey: 44 characters of 2-byte UTF-8 (88 bytes)",
            E::MalformedBase64,
            |_| PublicKey::from_base64(&"\u{e9}".repeat(44)),
        ),
        case("bundle: too short (60 bytes)", E::MalformedBundle, |fx| {
            bundle_from(fx, &bundle_bytes(fx)[..60])
        }),
        case("bundle: too long (62 bytes)", E::MalformedBundle, |fx| {
            bundle_from(fx, &[bundle_bytes(fx), vec![0]].concat())
        }),
        case("bundle: only the version byte", E::MalformedBundle, |fx| {
            bundle_from(fx, &[BUNDLE_VERSION])
        }),
        case("bundle: empty", E::MalformedBundle, |fx| {
            bundle_from(fx, &[])
        }),
        case("bundle: 1025 bytes", E::InputTooLarge, |fx| {
            bundle_from(fx, &[bundle_bytes(fx), vec![0; 1025 - 61]].concat())
        }),
        case("keyId: empty", E::InvalidLength, |_| KeyId::new("")),
        case("keyId: 129 characters", E::InvalidLength, |_| {
            KeyId::new("k".repeat(129))
        }),
        case("keyId: 129 four-byte characters", E::InvalidLength, |_| {
            KeyId::new("\u{1f511}".repeat(129))
        }),
        case("rootStreamId: empty keyring id", E::InvalidLength, |_| {
            Keyring::new("")
        }),
        case(
            "slot: empty author id when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &Slot::Message {
                        stream_id: ROOT.into(),
                        message_id: "m".into(),
                        author_id: String::new(),
                        author_type: "user".into(),
                        revision: 1,
                    },
                )
            },
        ),
        case(
            "slot: empty message id when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &Slot::Message {
                        stream_id: ROOT.into(),
                        message_id: String::new(),
                        author_id: AUTHOR.into(),
                        author_type: "user".into(),
                        revision: 1,
                    },
                )
            },
        ),
        case(
            "slot: empty author type when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &Slot::Message {
                        stream_id: ROOT.into(),
                        message_id: "m".into(),
                        author_id: AUTHOR.into(),
                        author_type: String::new(),
                        revision: 1,
                    },
                )
            },
        ),
        case(
            "slot: an author other than the signer when sealing",
            E::InvalidField,
            |fx| {
                let slot = Slot::Message {
                    stream_id: ROOT.into(),
                    message_id: "m".into(),
                    author_id: "usr_someone_else".into(),
                    author_type: "user".into(),
                    revision: 1,
                };
                seal(&fx.ring, &signer(fx), &slot, b"x")
            },
        ),
        case(
            "slot: a decider other than the signer when sealing",
            E::InvalidField,
            |fx| {
                let slot = Slot::DecisionNote {
                    decision_id: "dreq_1".into(),
                    option_id: "yes".into(),
                    decided_by: "usr_someone_else".into(),
                };
                seal(&fx.ring, &signer(fx), &slot, b"x")
            },
        ),
        case("signer: empty subject", E::InvalidLength, |fx| {
            Signer::new("", &fx.sender).map(|_| ())
        }),
        case("signer: 1025-byte subject", E::InvalidLength, |fx| {
            Signer::new(&"u".repeat(1025), &fx.sender).map(|_| ())
        }),
        case(
            "slot: 1025-byte step type when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &Slot::TraceStep {
                        invocation_id: "i".into(),
                        step_id: "s".into(),
                        step_type: "t".repeat(1025),
                        phase: StepPhase::Completed,
                        message_id: None,
                    },
                )
            },
        ),
        case(
            "slot: present but empty step messageId",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &Slot::TraceStep {
                        invocation_id: "i".into(),
                        step_id: "s".into(),
                        step_type: "t".into(),
                        phase: StepPhase::Completed,
                        message_id: Some(String::new()),
                    },
                )
            },
        ),
        case(
            "decision card: 0 options when sealing",
            E::InvalidLength,
            |fx| seal_slot(fx, &card(Vec::new())),
        ),
        case(
            "decision card: 65 options when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &card((0..65).map(|i| option(&format!("o{i}"))).collect()),
                )
            },
        ),
        case(
            "decision card: duplicate option ids when sealing",
            E::InvalidField,
            |fx| seal_slot(fx, &card(vec![option("yes"), option("no"), option("yes")])),
        ),
        case(
            "decision card: empty runtime session id when sealing",
            E::InvalidLength,
            |fx| {
                let Slot::DecisionCard { options, .. } = card(vec![option("yes")]) else {
                    unreachable!()
                };
                seal_slot(
                    fx,
                    &Slot::DecisionCard {
                        stream_id: ROOT.into(),
                        decision_id: "dreq_1".into(),
                        invocation_id: "inv_1".into(),
                        runtime_session_id: String::new(),
                        options,
                        allow_note: false,
                    },
                )
            },
        ),
        case(
            "decision card: empty option tone when sealing",
            E::InvalidLength,
            |fx| {
                seal_slot(
                    fx,
                    &card(vec![DecisionOption {
                        id: "yes".into(),
                        tone: String::new(),
                    }]),
                )
            },
        ),
        // --- sizes
        case(
            "aad: base64 longer than 160 KiB decoded",
            E::InputTooLarge,
            |fx| {
                open_with(fx, |s| {
                    s.envelope.aad = "A".repeat(MAX_AAD_LEN.div_ceil(3) * 4 + 4)
                })
            },
        ),
        case(
            "aad: 160 KiB + 1 byte, well-formed base64",
            E::InputTooLarge,
            |fx| open_with(fx, |s| s.envelope.aad = b64_len(MAX_AAD_LEN + 1)),
        ),
        case("aad::parse: 160 KiB + 1 bytes", E::InputTooLarge, |_| {
            aad::parse(&vec![0; MAX_AAD_LEN + 1])
        }),
        case(
            "ciphertext: base64 longer than commitment + signature + 4 MiB + tag decoded",
            E::InputTooLarge,
            |fx| {
                open_with(fx, |s| {
                    s.ciphertext = "A".repeat(MAX_CIPHERTEXT_LEN.div_ceil(3) * 4 + 4)
                })
            },
        ),
        case(
            "plaintext: 4 MiB + 1 byte when sealing",
            E::InputTooLarge,
            |fx| {
                seal(
                    &fx.ring,
                    &signer(fx),
                    &fx.slot,
                    &vec![0; MAX_PLAINTEXT_LEN + 1],
                )
            },
        ),
        // --- versions
        case("envelope: v 0", E::UnsupportedEnvelopeVersion, |fx| {
            open_with(fx, |s| s.envelope.v = 0)
        }),
        // Version 1 had no signature and no commitment: never read.
        case("envelope: v 1", E::UnsupportedEnvelopeVersion, |fx| {
            open_with(fx, |s| s.envelope.v = 1)
        }),
        case("envelope: v 3", E::UnsupportedEnvelopeVersion, |fx| {
            open_with(fx, |s| s.envelope.v = 3)
        }),
        case(
            "envelope: v u32::MAX",
            E::UnsupportedEnvelopeVersion,
            |fx| open_with(fx, |s| s.envelope.v = u32::MAX),
        ),
        case(
            "aad: version byte 1 under envelope v 2",
            E::AadMismatch,
            |fx| {
                let sender = aad_sender(&fx.slot);
                open_aad(fx, &aad::encode(1, ROOT, GENERATION, &sender, &fx.slot)?)
            },
        ),
        case(
            "aad: version byte 3 under envelope v 2",
            E::AadMismatch,
            |fx| {
                let sender = aad_sender(&fx.slot);
                open_aad(fx, &aad::encode(3, ROOT, GENERATION, &sender, &fx.slot)?)
            },
        ),
        case(
            "bundle: version byte 0",
            E::UnsupportedBundleVersion,
            |fx| {
                let mut b = bundle_bytes(fx);
                b[0] = 0;
                bundle_from(fx, &b)
            },
        ),
        case(
            "bundle: version byte 2",
            E::UnsupportedBundleVersion,
            |fx| {
                let mut b = bundle_bytes(fx);
                b[0] = 2;
                bundle_from(fx, &b)
            },
        ),
        case(
            "bundle: version byte 2 and a version-2 length",
            E::UnsupportedBundleVersion,
            |fx| {
                let mut b = bundle_bytes(fx);
                b[0] = 2;
                b.extend_from_slice(&[0; 32]);
                bundle_from(fx, &b)
            },
        ),
        // --- key generations
        case(
            "open: generation not in the keyring",
            E::UnknownKeyGeneration,
            |fx| {
                let mut other = Keyring::new(ROOT).unwrap();
                other
                    .insert(GENERATION + 1, StreamKey::from_bytes(&[0x40; 32]))
                    .unwrap();
                other
                    .insert(GENERATION - 1, StreamKey::from_bytes(&[0x40; 32]))
                    .unwrap();
                open(&other, &keys(fx), &fx.slot, &fx.sealed)
            },
        ),
        case("open: empty keyring", E::UnknownKeyGeneration, |fx| {
            open(
                &Keyring::new(ROOT).unwrap(),
                &keys(fx),
                &fx.slot,
                &fx.sealed,
            )
        }),
        case("seal: empty keyring", E::UnknownKeyGeneration, |fx| {
            seal(&Keyring::new(ROOT).unwrap(), &signer(fx), &fx.slot, b"x")
        }),
        // `seal_with_generation` and `set_current_generation` are gone: a
        // seal uses the current generation, which only a held key or the
        // stream's announcement raises. An announced generation whose key
        // is missing makes sealing fail rather than fall back.
        case(
            "seal: announced generation not held",
            E::UnknownKeyGeneration,
            |fx| {
                let state = state_after(fx, GENERATION + 7, vec![fx.wrap.clone()])?;
                assert_eq!(state.keyring().current_generation(), Some(GENERATION + 7));
                Ok::<_, Error>(seal(state.keyring(), &signer(fx), &fx.slot, b"x")?)
            },
        ),
        case(
            "seal: generation given two keys by accepted senders",
            E::KeyGenerationConflict,
            |fx| {
                let other = wrap_stream_key(
                    ROOT,
                    GENERATION,
                    &StreamKey::from_bytes(&[0x41; 32]),
                    &fx.sender,
                    &Recipient::of(&fx.me),
                )?;
                let state = state_after(fx, GENERATION, vec![fx.wrap.clone(), other])?;
                assert_eq!(state.keyring().conflicted_generations(), vec![GENERATION]);
                Ok::<_, Error>(seal(state.keyring(), &signer(fx), &fx.slot, b"x")?)
            },
        ),
        case("seal: seal budget spent", E::SealBudgetExhausted, |fx| {
            let mut ring = fx.ring.clone();
            ring.lower_seal_budget(0);
            seal(&ring, &signer(fx), &fx.slot, b"x")
        }),
        case(
            "keyring: another key for a held generation",
            E::KeyGenerationConflict,
            |fx| {
                fx.ring
                    .clone()
                    .insert(GENERATION, StreamKey::from_bytes(&[0x41; 32]))
            },
        ),
        // --- moved ciphertexts
        case("open: another message id", E::AadMismatch, |fx| {
            let moved = Slot::Message {
                stream_id: ROOT.into(),
                message_id: "msg_other".into(),
                author_id: AUTHOR.into(),
                author_type: "user".into(),
                revision: 1,
            };
            open(&fx.ring, &keys(fx), &moved, &fx.sealed)
        }),
        case("open: another author type", E::AadMismatch, |fx| {
            let Slot::Message {
                stream_id,
                message_id,
                author_id,
                revision,
                ..
            } = fx.slot.clone()
            else {
                unreachable!()
            };
            let moved = Slot::Message {
                stream_id,
                message_id,
                author_id,
                author_type: "persona".into(),
                revision,
            };
            open(&fx.ring, &keys(fx), &moved, &fx.sealed)
        }),
        case(
            "open: another root stream's keyring with the same key",
            E::AadMismatch,
            |fx| {
                let mut other = Keyring::new("stream_other").unwrap();
                other
                    .insert(GENERATION, StreamKey::from_bytes(&[0x40; 32]))
                    .unwrap();
                open(&other, &keys(fx), &fx.slot, &fx.sealed)
            },
        ),
        case("envelope: keyGeneration relabelled", E::AadMismatch, |fx| {
            open_with(fx, |s| s.envelope.key_generation = GENERATION + 1)
        }),
        // Shorter than the commitment, the signature and the tag: refused
        // on its length, before any key is used.
        case(
            "ciphertext: empty (shorter than commitment, signature and tag)",
            E::InvalidLength,
            |fx| open_with(fx, |s| s.ciphertext = String::new()),
        ),
        case(
            "ciphertext: 16 bytes (a tag, no commitment, no signature)",
            E::InvalidLength,
            |fx| open_with(fx, |s| s.ciphertext = b64_len(16)),
        ),
        case(
            "ciphertext: 32 bytes (a commitment alone)",
            E::InvalidLength,
            |fx| open_with_ciphertext(fx, |ct| ct.truncate(COMMITMENT_LEN)),
        ),
        case(
            "ciphertext: 80 bytes (signature and tag, no commitment) of garbage",
            E::InvalidLength,
            |fx| open_with(fx, |s| s.ciphertext = b64_len(SIGNATURE_LEN + 16)),
        ),
        case(
            "ciphertext: 111 bytes (one short of commitment, signature and tag)",
            E::InvalidLength,
            |fx| {
                open_with_ciphertext(fx, |ct| {
                    assert_eq!(MIN_CIPHERTEXT_LEN, COMMITMENT_LEN + SIGNATURE_LEN + 16);
                    ct.truncate(MIN_CIPHERTEXT_LEN - 1);
                })
            },
        ),
        case(
            "ciphertext: 112 bytes (commitment, signature and tag, no content) of garbage",
            E::DecryptionFailed,
            |fx| open_with(fx, |s| s.ciphertext = b64_len(MIN_CIPHERTEXT_LEN)),
        ),
        case(
            "ciphertext: 112 bytes, the right commitment then garbage",
            E::DecryptionFailed,
            |fx| {
                open_with_ciphertext(fx, |ct| {
                    ct.truncate(COMMITMENT_LEN);
                    ct.resize(MIN_CIPHERTEXT_LEN, 0x5a);
                })
            },
        ),
        case(
            "ciphertext: of another payload in the same slot",
            E::DecryptionFailed,
            |fx| {
                let other = seal(&fx.ring, &signer(fx), &fx.slot, b"another body").unwrap();
                open_with(fx, |s| s.ciphertext = other.ciphertext)
            },
        ),
        case("iv: of another payload", E::DecryptionFailed, |fx| {
            open_with(fx, |s| s.envelope.iv = encode_base64(&[0; 12]))
        }),
        // The key commitment: the ciphertext's first 32 bytes, checked
        // before AES-GCM.
        case(
            "commitment: of another payload",
            E::DecryptionFailed,
            |fx| {
                let other = seal(&fx.ring, &signer(fx), &fx.slot, b"x").unwrap();
                let theirs = decode_base64("ciphertext", &other.ciphertext).unwrap();
                open_with_ciphertext(fx, |ct| {
                    assert_ne!(ct[..COMMITMENT_LEN], theirs[..COMMITMENT_LEN]);
                    ct[..COMMITMENT_LEN].copy_from_slice(&theirs[..COMMITMENT_LEN]);
                })
            },
        ),
        case("commitment: one bit flipped", E::DecryptionFailed, |fx| {
            open_with_ciphertext(fx, |ct| ct[COMMITMENT_LEN - 1] ^= 0x80)
        }),
        case(
            "commitment: the same iv under another key",
            E::DecryptionFailed,
            |fx| {
                let wrong = key_commitment(&[0x41; 32], 2, &[0xfb; 12]);
                open_with_ciphertext(fx, |ct| ct[..COMMITMENT_LEN].copy_from_slice(&wrong))
            },
        ),
        case("commitment: all zero", E::DecryptionFailed, |fx| {
            open_with_ciphertext(fx, |ct| ct[..COMMITMENT_LEN].fill(0))
        }),
        case(
            "commitment: 31 bytes (its first byte dropped)",
            E::DecryptionFailed,
            |fx| {
                open_with_ciphertext(fx, |ct| {
                    ct.remove(0);
                })
            },
        ),
        case(
            "commitment: 33 bytes (a byte inserted)",
            E::DecryptionFailed,
            |fx| open_with_ciphertext(fx, |ct| ct.insert(COMMITMENT_LEN, 0)),
        ),
        // --- who sealed it
        case("open: the author's key is not known", E::UnknownKey, |fx| {
            let nobody = TrustStore::new(TrustPolicy::TofuWithAlerts);
            open(&fx.ring, &SenderKeys::new(&nobody), &fx.slot, &fx.sealed)
        }),
        case(
            "open: the author's key is pinned under another key id",
            E::UnknownKey,
            |fx| {
                let mut other = TrustStore::new(TrustPolicy::TofuWithAlerts);
                let renamed = Recipient {
                    key_id: KeyId::new("key_owner_phone").unwrap(),
                    ..Recipient::of(&fx.sender)
                };
                other.admit(AUTHOR, &renamed)?;
                open(&fx.ring, &SenderKeys::new(&other), &fx.slot, &fx.sealed)
            },
        ),
        case(
            "open: the author's key id registered as another kind",
            E::SenderMismatch,
            |fx| {
                let bot = Recipient {
                    kind: RecipientKind::Bot,
                    ..Recipient::of(&fx.sender)
                };
                let nobody = TrustStore::new(TrustPolicy::TofuWithAlerts);
                let keys = SenderKeys::new(&nobody).with_presented(AUTHOR, &bot);
                open(&fx.ring, &keys, &fx.slot, &fx.sealed)
            },
        ),
        case(
            "open: a key holder signs as the author with its own key",
            E::SenderMismatch,
            |fx| {
                // Same kind and key id as the author's key, another secret.
                let mallory = IdentityKey::from_secret(
                    RecipientKind::User,
                    KeyId::new(AUTHOR_KEY_ID).unwrap(),
                    SecretKey::from_bytes(&[0x66; 32]),
                );
                let forged = seal(&fx.ring, &Signer::new(AUTHOR, &mallory)?, &fx.slot, b"x")?;
                open(&fx.ring, &keys(fx), &fx.slot, &forged)
            },
        ),
        case(
            "open: the author's key changed, the change not handled",
            E::KeyChanged,
            |fx| {
                let mut changed = fx.trust.clone();
                let replaced = Recipient {
                    public_key: SecretKey::from_bytes(&[0x67; 32]).public_key(),
                    ..Recipient::of(&fx.sender)
                };
                changed.observe(AUTHOR, &replaced)?;
                open(&fx.ring, &SenderKeys::new(&changed), &fx.slot, &fx.sealed)
            },
        ),
        case(
            "open: the author's key unverified under verified-only",
            E::KeyNotVerified,
            |fx| {
                let mut strict = TrustStore::new(TrustPolicy::VerifiedOnly);
                let _ = strict.admit(AUTHOR, &Recipient::of(&fx.sender));
                open(&fx.ring, &SenderKeys::new(&strict), &fx.slot, &fx.sealed)
            },
        ),
        case(
            "open: another key under the same generation",
            E::DecryptionFailed,
            |fx| {
                let mut other = Keyring::new(ROOT).unwrap();
                other
                    .insert(GENERATION, StreamKey::from_bytes(&[0x41; 32]))
                    .unwrap();
                open(&other, &keys(fx), &fx.slot, &fx.sealed)
            },
        ),
        // --- passphrase bundles
        case("bundle: wrong passphrase", E::WrongPassphrase, |fx| {
            open_bundle(
                &fx.public,
                &fx.bundle,
                "Correct horse battery staple",
                &KdfLimits::default(),
            )
        }),
        case("bundle: empty passphrase", E::WrongPassphrase, |fx| {
            open_bundle(&fx.public, &fx.bundle, "", &KdfLimits::default())
        }),
        case(
            "bundle: of record A with public key of record B (indistinguishable from a wrong passphrase)",
            E::WrongPassphrase,
            |fx| open_bundle(&fx.other_public, &fx.bundle, PASS, &KdfLimits::default()),
        ),
        case(
            "bundle: with the salt of another record",
            E::WrongPassphrase,
            |fx| bundle_with(fx, |b| b.kdf_salt.clone_from(&fx.other_bundle.kdf_salt)),
        ),
        case(
            "bundle: with the KDF parameters changed (t 2 -> 1)",
            E::WrongPassphrase,
            |fx| params_with(fx, |p| p.t = 1),
        ),
        case(
            "bundle: decrypts but holds another key",
            E::BundleKeyMismatch,
            |fx| crafted_bundle(fx, &[0x30; 32]),
        ),
        // --- Argon2 bounds on open
        case("kdf: m 131073 KiB", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.m = 131_073)
        }),
        case("kdf: m 4 GiB", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.m = 4 * 1024 * 1024)
        }),
        case("kdf: m u32::MAX", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.m = u32::MAX)
        }),
        case(
            "kdf: m 15 with p 2 (below 8*p)",
            E::KdfParamsOutOfBounds,
            |fx| {
                params_with(fx, |p| {
                    p.m = 15;
                    p.p = 2;
                })
            },
        ),
        case(
            "kdf: m 7 with p 1 (below 8*p)",
            E::KdfParamsOutOfBounds,
            |fx| params_with(fx, |p| p.m = 7),
        ),
        case("kdf: t 0", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.t = 0)
        }),
        case("kdf: t 11", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.t = 11)
        }),
        case("kdf: t u32::MAX", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.t = u32::MAX)
        }),
        case("kdf: p 0", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| p.p = 0)
        }),
        case("kdf: p 9", E::KdfParamsOutOfBounds, |fx| {
            params_with(fx, |p| {
                p.p = 9;
                p.m = 1024;
            })
        }),
        case("kdf: salt 15 bytes", E::KdfParamsOutOfBounds, |fx| {
            bundle_with(fx, |b| b.kdf_salt = b64_len(15))
        }),
        case("kdf: salt 65 bytes", E::KdfParamsOutOfBounds, |fx| {
            bundle_with(fx, |b| b.kdf_salt = b64_len(65))
        }),
        case("kdf: salt empty", E::KdfParamsOutOfBounds, |fx| {
            bundle_with(fx, |b| b.kdf_salt = String::new())
        }),
        case("kdf: salt 1 MiB of base64", E::KdfParamsOutOfBounds, |fx| {
            bundle_with(fx, |b| b.kdf_salt = "A".repeat(1 << 20))
        }),
        case("kdf: algorithm \"argon2i\"", E::UnsupportedKdf, |fx| {
            params_with(fx, |p| p.algorithm = "argon2i".into())
        }),
        case(
            "kdf: algorithm \"Argon2id\" (case)",
            E::UnsupportedKdf,
            |fx| params_with(fx, |p| p.algorithm = "Argon2id".into()),
        ),
        case("kdf: version 16", E::UnsupportedKdf, |fx| {
            params_with(fx, |p| p.version = 16)
        }),
        case("create_bundle: m 4 GiB", E::KdfParamsOutOfBounds, |_| {
            create_bundle(
                &SecretKey::from_bytes(&[1; 32]),
                PASS,
                &KdfParams::argon2id(4 * 1024 * 1024, 2, 1),
            )
        }),
        // --- the creation floor (m = 19456 KiB, t = 2, p = 1): new bundles only
        case(
            "create_bundle: m one below the floor",
            E::KdfParamsOutOfBounds,
            |_| {
                create_bundle(
                    &SecretKey::from_bytes(&[1; 32]),
                    PASS,
                    &KdfParams::argon2id(19_455, 2, 1),
                )
            },
        ),
        case(
            "create_bundle: t 1 (below the floor)",
            E::KdfParamsOutOfBounds,
            |_| {
                create_bundle(
                    &SecretKey::from_bytes(&[1; 32]),
                    PASS,
                    &KdfParams::argon2id(65_536, 1, 1),
                )
            },
        ),
        case(
            "create_bundle: m 8 KiB, t 1",
            E::KdfParamsOutOfBounds,
            |_| {
                create_bundle(
                    &SecretKey::from_bytes(&[1; 32]),
                    PASS,
                    &KdfParams::argon2id(8, 1, 1),
                )
            },
        ),
        case("create_bundle: p 0", E::KdfParamsOutOfBounds, |_| {
            create_bundle(
                &SecretKey::from_bytes(&[1; 32]),
                PASS,
                &KdfParams::argon2id(19_456, 2, 0),
            )
        }),
        case("set_up: below the floor", E::KdfParamsOutOfBounds, |_| {
            user_key::set_up(KeyId::new("key_1")?, PASS, &KdfParams::argon2id(64, 1, 1))
        }),
        case(
            "change_passphrase: below the floor",
            E::KdfParamsOutOfBounds,
            |fx| {
                user_key::change_passphrase(
                    &own_key(fx),
                    PASS,
                    "new passphrase",
                    &KdfParams::argon2id(19_456, 1, 1),
                    &KdfLimits::default(),
                )
            },
        ),
        // --- key wraps
        case("unwrap: 33 keys", E::TooManyKeys, |fx| {
            let mine = vec![fx.me.clone(); 33];
            unwrap_stream_key(ROOT, &fx.wrap, &mine, &accepted(fx))
        }),
        case("unwrap: 33 accepted senders", E::TooManyKeys, |fx| {
            let senders = vec![Recipient::of(&fx.sender); 33];
            unwrap_stream_key(ROOT, &fx.wrap, std::slice::from_ref(&fx.me), &senders)
        }),
        case(
            "unwrap: presented as made by another sender",
            E::UntrustedWrap,
            |fx| {
                let other = IdentityKey::from_secret(
                    RecipientKind::User,
                    KeyId::new("key_owner").unwrap(),
                    SecretKey::from_bytes(&[0x11; 32]),
                );
                unwrap_stream_key(
                    ROOT,
                    &fx.wrap,
                    std::slice::from_ref(&fx.me),
                    &[Recipient::of(&other)],
                )
            },
        ),
        case(
            "unwrap: the sender's key under another key id",
            E::UntrustedWrap,
            |fx| {
                let renamed = Recipient {
                    key_id: KeyId::new("key_owner_phone").unwrap(),
                    ..Recipient::of(&fx.sender)
                };
                unwrap_stream_key(ROOT, &fx.wrap, std::slice::from_ref(&fx.me), &[renamed])
            },
        ),
        case(
            "unwrap: the recipient posing as the sender",
            E::UntrustedWrap,
            |fx| {
                let me = std::slice::from_ref(&fx.me);
                unwrap_stream_key(ROOT, &fx.wrap, me, &[Recipient::of(&fx.me)])
            },
        ),
        case("unwrap: no accepted sender", E::UntrustedWrap, |fx| {
            unwrap_stream_key(ROOT, &fx.wrap, std::slice::from_ref(&fx.me), &[])
        }),
        case(
            "unwrap: made by the server for the member's real key",
            E::UntrustedWrap,
            |fx| {
                // The server knows every public key and can hold a key pair
                // of its own: what it wraps opens under no accepted sender.
                let server = IdentityKey::from_secret(
                    RecipientKind::User,
                    KeyId::new("key_owner").unwrap(),
                    SecretKey::from_bytes(&[0x66; 32]),
                );
                let forged = wrap_stream_key(
                    ROOT,
                    GENERATION + 1,
                    &StreamKey::from_bytes(&[0x66; 32]),
                    &server,
                    &Recipient::of(&fx.me),
                )?;
                unwrap_stream_key(ROOT, &forged, std::slice::from_ref(&fx.me), &accepted(fx))
            },
        ),
        case(
            "unwrap: wrap names a key id not held",
            E::NoMatchingKey,
            |fx| unwrap_with(fx, |w| w.recipient_key_id = Some("machine-b".into())),
        ),
        case(
            "unwrap: wrap names the held id under another kind",
            E::NoMatchingKey,
            |fx| unwrap_with(fx, |w| w.recipient_kind = Some(RecipientKind::User)),
        ),
        case(
            "unwrap: wrap names an empty key id",
            E::NoMatchingKey,
            |fx| unwrap_with(fx, |w| w.recipient_key_id = Some(String::new())),
        ),
        case(
            "unwrap: named wrap, no keys at all",
            E::NoMatchingKey,
            |fx| unwrap_stream_key(ROOT, &fx.wrap, &[], &accepted(fx)),
        ),
        case(
            "unwrap: unnamed wrap, no keys at all",
            E::UntrustedWrap,
            |fx| {
                let mut w = fx.wrap.clone();
                w.recipient_key_id = None;
                w.recipient_kind = None;
                unwrap_stream_key(ROOT, &w, &[], &accepted(fx))
            },
        ),
        case(
            "unwrap: under another root stream",
            E::UntrustedWrap,
            |fx| {
                let me = std::slice::from_ref(&fx.me);
                unwrap_stream_key("stream_other", &fx.wrap, me, &accepted(fx))
            },
        ),
        case(
            "unwrap: relabelled with another generation",
            E::UntrustedWrap,
            |fx| unwrap_with(fx, |w| w.key_generation = GENERATION + 1),
        ),
        case("unwrap: wrapEnc of another wrap", E::UntrustedWrap, |fx| {
            let other = wrap_stream_key(
                ROOT,
                GENERATION,
                &StreamKey::from_bytes(&[0x40; 32]),
                &fx.sender,
                &Recipient::of(&fx.me),
            )
            .unwrap();
            unwrap_with(fx, |w| w.wrap_enc = other.wrap_enc)
        }),
        case(
            "unwrap: all-zero (low-order) wrapEnc",
            E::UntrustedWrap,
            |fx| unwrap_with(fx, |w| w.wrap_enc = encode_base64(&[0; 32])),
        ),
        case(
            "wrap: to the all-zero public key",
            E::InvalidPublicKey,
            |_| wrap_to([0; 32]),
        ),
        case(
            "wrap: to the public key u = 1 (order 4)",
            E::InvalidPublicKey,
            |_| {
                let mut pk = [0; 32];
                pk[0] = 1;
                wrap_to(pk)
            },
        ),
        case(
            "wrap: to a public key of order 8",
            E::InvalidPublicKey,
            |_| {
                let pk: [u8; 32] =
                    hex::decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")
                        .unwrap()
                        .try_into()
                        .unwrap();
                wrap_to(pk)
            },
        ),
        // --- JSON
        case("envelope JSON: not JSON", E::MalformedJson, |_| {
            Envelope::from_json("not json")
        }),
        case("envelope JSON: empty document", E::MalformedJson, |_| {
            Envelope::from_json("")
        }),
        case("envelope JSON: truncated", E::MalformedJson, |fx| {
            let json = fx.sealed.envelope.to_json();
            Envelope::from_json(&json[..json.len() - 1])
        }),
        // The wire shape is an object; serde's derived `Deserialize` would
        // also take the positional array form, a second spelling.
        case("envelope JSON: an array", E::MalformedJson, |_| {
            Envelope::from_json("[2, 2, \"iv\", \"aad\"]")
        }),
        case("envelope JSON: v as a string", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":"2","keyGeneration":0,"iv":"AAAAAAAAAAAAAAAA","aad":""}"#)
        }),
        case("envelope JSON: v as a float", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":2.5,"keyGeneration":0,"iv":"AAAAAAAAAAAAAAAA","aad":""}"#)
        }),
        case(
            "envelope JSON: negative keyGeneration",
            E::MalformedJson,
            |_| {
                Envelope::from_json(
                    r#"{"v":2,"keyGeneration":-1,"iv":"AAAAAAAAAAAAAAAA","aad":""}"#,
                )
            },
        ),
        case(
            "envelope JSON: keyGeneration beyond u32",
            E::MalformedJson,
            |_| {
                Envelope::from_json(
                    r#"{"v":2,"keyGeneration":4294967296,"iv":"AAAAAAAAAAAAAAAA","aad":""}"#,
                )
            },
        ),
        case("envelope JSON: iv missing", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":2,"keyGeneration":0,"aad":""}"#)
        }),
        case("envelope JSON: iv null", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":2,"keyGeneration":0,"iv":null,"aad":""}"#)
        }),
        case(
            "envelope JSON: aad as a byte array",
            E::MalformedJson,
            |_| {
                Envelope::from_json(
                    r#"{"v":2,"keyGeneration":0,"iv":"AAAAAAAAAAAAAAAA","aad":[1,2]}"#,
                )
            },
        ),
        case("envelope JSON: aad missing", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":2,"keyGeneration":0,"iv":"AAAAAAAAAAAAAAAA"}"#)
        }),
        case("envelope JSON: aad null", E::MalformedJson, |_| {
            Envelope::from_json(r#"{"v":2,"keyGeneration":0,"iv":"AAAAAAAAAAAAAAAA","aad":null}"#)
        }),
        case(
            "payload JSON: ciphertext as a number",
            E::MalformedJson,
            |fx| {
                SealedPayload::from_json(&format!(
                    r#"{{"ciphertext":12,"envelope":{}}}"#,
                    fx.sealed.envelope.to_json()
                ))
            },
        ),
        case(
            "payload JSON: envelope as a string",
            E::MalformedJson,
            |fx| {
                SealedPayload::from_json(&format!(
                    r#"{{"ciphertext":"{}","envelope":"{{}}"}}"#,
                    fx.sealed.ciphertext
                ))
            },
        ),
        case("payload JSON: an array", E::MalformedJson, |fx| {
            SealedPayload::from_json(&format!(
                r#"["{}", [2, {GENERATION}, "{}", "{}"]]"#,
                fx.sealed.ciphertext, fx.sealed.envelope.iv, fx.sealed.envelope.aad,
            ))
        }),
        case("payload JSON: envelope missing", E::MalformedJson, |fx| {
            SealedPayload::from_json(&format!(r#"{{"ciphertext":"{}"}}"#, fx.sealed.ciphertext))
        }),
        case("payload JSON: nested 10 000 deep", E::MalformedJson, |_| {
            SealedPayload::from_json(&format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)))
        }),
        // --- fixed randomness that runs out (hazmat)
        case(
            "hazmat: seal with 11 of 12 iv bytes",
            E::RandomnessUnavailable,
            |fx| {
                let randomness = &[0; 11];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::seal_envelope_with(&mut rng, &fx.ring, &signer(fx), &fx.slot, b"x")
            },
        ),
        case(
            "hazmat: seal with the iv and 63 of the signature's 64 bytes",
            E::RandomnessUnavailable,
            |fx| {
                let randomness = &[0; 12 + 63];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::seal_envelope_with(&mut rng, &fx.ring, &signer(fx), &fx.slot, b"x")
            },
        ),
        case(
            "hazmat: wrap with 31 of 32 ephemeral bytes",
            E::RandomnessUnavailable,
            |fx| {
                let randomness = &[7; 31];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::wrap_stream_key_with(
                    &mut rng,
                    ROOT,
                    0,
                    &StreamKey::from_bytes(&[1; 32]),
                    &fx.sender,
                    &Recipient::of(&fx.me),
                )
            },
        ),
        case(
            "hazmat: create_bundle with salt but 11 of 12 iv bytes",
            E::RandomnessUnavailable,
            |_| {
                let randomness = &[7; 27];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::create_bundle_with(
                    &mut rng,
                    &SecretKey::from_bytes(&[1; 32]),
                    PASS,
                    &floor(),
                )
            },
        ),
        case(
            "hazmat: StreamKey::generate with 31 bytes",
            E::RandomnessUnavailable,
            |_| {
                let randomness = &[7; 31];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::generate_stream_key_with(&mut rng)
            },
        ),
        case(
            "hazmat: a secret key with no bytes",
            E::RandomnessUnavailable,
            |_| hazmat::generate_secret_key_with(&mut FixedRandomness::new(&[])),
        ),
    ];
    for (name, bytes) in malformed_aads(fx) {
        let parse_bytes = bytes.clone();
        c.push(case(
            format!("aad::parse: {name}"),
            E::MalformedAad,
            move |_| aad::parse(&parse_bytes),
        ));
        c.push(case(
            format!("open: AAD {name}"),
            E::MalformedAad,
            move |fx| open_aad(fx, &bytes),
        ));
    }
    c
}

fn wrap_to(pk: [u8; 32]) -> Result<KeyWrap, CryptoError> {
    let recipient = Recipient {
        kind: RecipientKind::User,
        key_id: KeyId::new("victim").unwrap(),
        public_key: PublicKey::from_bytes(pk),
    };
    let sender = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("key_owner").unwrap(),
        SecretKey::from_bytes(&[0x10; 32]),
    );
    wrap_stream_key(
        ROOT,
        0,
        &StreamKey::from_bytes(&[1; 32]),
        &sender,
        &recipient,
    )
}

#[test]
fn catalogue_of_bad_inputs() {
    let fx = fixture();

    // The fixture itself is sound: every case changes one thing of something
    // that opens.
    let opened = open(&fx.ring, &keys(&fx), &fx.slot, &fx.sealed).unwrap();
    assert_eq!(&*opened.plaintext, fx_body(&fx).as_bytes());
    assert_eq!(opened.sealed_by.subject, AUTHOR);
    unwrap_stream_key(ROOT, &fx.wrap, std::slice::from_ref(&fx.me), &accepted(&fx)).unwrap();
    open_bundle(&fx.public, &fx.bundle, PASS, &KdfLimits::default()).unwrap();
    crafted_bundle(&fx, &[0x20; 32]).unwrap();

    let cases = catalogue(&fx);
    let mut failures = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for c in &cases {
        assert!(
            names.insert(c.name.clone()),
            "duplicate case name {}",
            c.name
        );
        match (c.run)(&fx) {
            Ok(()) => failures.push(format!("{}: expected {}, got Ok", c.name, c.want)),
            Err(e) if e.code() != c.want => {
                failures.push(format!(
                    "{}: expected {}, got {} ({e})",
                    c.name,
                    c.want,
                    e.code()
                ));
            }
            Err(e) if self_contradictory(&e) => {
                failures.push(format!(
                    "{}: {} but the error contradicts itself: {e}",
                    c.name, c.want
                ));
            }
            Err(_) => {}
        }
    }
    let codes: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.want.as_str()).collect();
    println!(
        "bad-input catalogue: {} cases, {} distinct error codes, {} failed",
        cases.len(),
        codes.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 30);
}

/// An `INVALID_LENGTH` whose reported length is one the field accepts
/// ("has length 12, expected 12") tells the caller nothing true.
fn self_contradictory(e: &Error) -> bool {
    let Error::Crypto(CryptoError::InvalidLength {
        expected, actual, ..
    }) = e
    else {
        return false;
    };
    if let Some(min) = expected.strip_prefix("at least ") {
        // "at least 112 bytes (commitment, signature and tag)"
        let min: usize = min.split(' ').next().unwrap().parse().unwrap();
        return *actual >= min;
    }
    let spec = expected.trim_end_matches(" bytes");
    match spec.split_once("..=") {
        Some((lo, hi)) => {
            (lo.parse::<usize>().unwrap()..=hi.parse::<usize>().unwrap()).contains(actual)
        }
        None => spec.parse::<usize>().unwrap() == *actual,
    }
}

fn fx_body(fx: &Fx) -> String {
    let n = fx.slot.message_id().unwrap().trim_start_matches("msg_");
    format!("sealed body {n}!")
}

/// `INVALID_LENGTH` carries "the length that was given" (`error.rs`): for a
/// well-formed base64 value of the wrong size, that is its decoded byte
/// count (or its character count), never an estimate of neither.
#[test]
fn invalid_length_errors_report_the_length_given() {
    let fx = fixture();
    let mut wrong = Vec::new();
    let mut checked = 0;
    let fields: [(&str, usize); 3] = [("iv", 12), ("wrapEnc", 32), ("wrapCt", 48)];
    for (field, len) in fields {
        for n in [0, 1, len - 1, len + 1, len + 2, len + 3, 2 * len] {
            let text = b64_len(n);
            let outcome = match field {
                "iv" => open_with(&fx, |s| s.envelope.iv.clone_from(&text)),
                "wrapEnc" => unwrap_with(&fx, |w| w.wrap_enc.clone_from(&text)),
                _ => unwrap_with(&fx, |w| w.wrap_ct.clone_from(&text)),
            };
            match outcome {
                Err(Error::Crypto(CryptoError::InvalidLength { actual, .. })) => {
                    checked += 1;
                    if actual != n && actual != text.len() {
                        wrong.push(format!(
                            "{field}: {n} bytes ({} characters) reported as length {actual}",
                            text.len()
                        ));
                    }
                }
                other => panic!("{field} of {n} bytes: {other:?}"),
            }
        }
    }
    // A ciphertext shorter than commitment, signature and tag (112 bytes).
    for n in [
        0,
        1,
        COMMITMENT_LEN - 1,
        COMMITMENT_LEN,
        SIGNATURE_LEN + 16,
        MIN_CIPHERTEXT_LEN - 1,
    ] {
        match open_with(&fx, |s| s.ciphertext = b64_len(n)) {
            Err(Error::Crypto(CryptoError::InvalidLength { actual, .. })) => {
                checked += 1;
                if actual != n {
                    wrong.push(format!("ciphertext: {n} bytes reported as length {actual}"));
                }
            }
            other => panic!("ciphertext of {n} bytes: {other:?}"),
        }
    }
    for text in [
        b64_len(31),
        b64_len(33),
        "A".repeat(43),
        "A".repeat(45),
        "\u{e9}".repeat(43),
    ] {
        match PublicKey::from_base64(&text) {
            Err(CryptoError::InvalidLength { actual, .. }) => {
                checked += 1;
                let bytes = decode_base64("x", &text).map(|b| b.len()).ok();
                if Some(actual) != bytes && actual != text.chars().count() {
                    wrong.push(format!("publicKey {text:?} reported as length {actual}"));
                }
            }
            other => panic!("publicKey {text:?}: {other:?}"),
        }
    }
    println!(
        "invalid-length reports checked: {checked}, wrong: {}",
        wrong.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every parameter beyond the caps is refused without any Argon2 work: a
/// record asking for 4 GiB, 2^32 - 1 KiB or 2^32 - 1 passes returns at once
/// (Argon2 over 4 GiB takes seconds and the memory; u32::MAX passes, days).
#[test]
fn kdf_caps_act_before_any_argon2_work() {
    let fx = fixture();
    let hostile = [
        KdfParams::argon2id(4 * 1024 * 1024, 1, 1),
        KdfParams::argon2id(u32::MAX, u32::MAX, 1),
        KdfParams::argon2id(131_072, u32::MAX, 1),
        KdfParams::argon2id(131_072, 10, u32::MAX),
        KdfParams::argon2id(u32::MAX, 1, 8),
    ];
    for params in hostile {
        let bundle = SealedBundle {
            kdf_params: params.clone(),
            ..fx.bundle.clone()
        };
        let started = Instant::now();
        let err = open_bundle(&fx.public, &bundle, PASS, &KdfLimits::default()).unwrap_err();
        let took = started.elapsed();
        assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds, "{params:?}");
        assert!(
            took < Duration::from_millis(500),
            "{params:?} took {took:?}"
        );
        // The same through the KDF directly.
        let started = Instant::now();
        let err = kdf::derive_key(PASS, &[0; 16], &params, &KdfLimits::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds, "{params:?}");
        assert!(started.elapsed() < Duration::from_millis(500));
    }
    // Tighter caps of a constrained host (an iOS extension) bind the same way.
    let tight = KdfLimits {
        max_m: 16 * 1024,
        ..KdfLimits::default()
    };
    let bundle = SealedBundle {
        kdf_params: KdfParams::default(),
        ..fx.bundle.clone()
    };
    let started = Instant::now();
    let err = open_bundle(&fx.public, &bundle, PASS, &tight).unwrap_err();
    assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds);
    assert!(started.elapsed() < Duration::from_millis(500));
}

/// The floor binds what is created, not what is opened: a record made with
/// less (before the floor existed) still unlocks under the default caps, and
/// changing its passphrase re-seals it at the parameters given, which must
/// be at least the floor whatever the old record had.
#[test]
fn kdf_floor_binds_creating_not_opening() {
    let secret = SecretKey::from_bytes(&[0x20; 32]);
    let old_params = KdfParams::argon2id(64, 1, 1);
    let old = {
        let randomness = &[0x33; 28];
        let mut rng = FixedRandomness::new(randomness);
        hazmat::seal_bundle_below_floor_with(&mut rng, &secret, PASS, &old_params)
    }
    .unwrap();
    assert_eq!(old.kdf_params, old_params);
    // create_bundle refuses those parameters, before drawing any randomness.
    let err =
        hazmat::create_bundle_with(&mut FixedRandomness::new(&[]), &secret, PASS, &old_params)
            .unwrap_err();
    assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds);
    match &err {
        CryptoError::KdfParamsOutOfBounds {
            param, value, min, ..
        } => {
            assert_eq!((*param, *value, *min), ("m", 64, 19_456));
        }
        other => panic!("{other:?}"),
    }
    // Opening has only the caps.
    let opened = open_bundle(&secret.public_key(), &old, PASS, &KdfLimits::default()).unwrap();
    assert_eq!(*opened.to_bytes(), *secret.to_bytes());
    let record = NewOwnKey {
        key_id: "key_1".into(),
        public_key: secret.public_key(),
        bundle: old,
    }
    .into_own_key("2020-01-01T00:00:00Z");
    let me = user_key::unlock(&record, PASS, &KdfLimits::default()).unwrap();
    assert_eq!(me.public_key(), secret.public_key());
    // Re-sealing with the old parameters is refused; at the floor it works.
    let err = user_key::change_passphrase(
        &record,
        PASS,
        "new passphrase",
        &old_params,
        &KdfLimits::default(),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::KdfParamsOutOfBounds);
    let lifted = user_key::change_passphrase(
        &record,
        PASS,
        "new passphrase",
        &KdfParams::creation_floor(),
        &KdfLimits::default(),
    )
    .unwrap();
    assert_eq!(lifted.bundle.kdf_params, KdfParams::creation_floor());
    let again = user_key::unlock(
        &lifted.into_own_key("2026-11-21T00:00:00Z"),
        "new passphrase",
        &KdfLimits::default(),
    )
    .unwrap();
    assert_eq!(*again.secret_key().to_bytes(), *secret.to_bytes());
}

/// A swapped bundle/record and a wrong passphrase are indistinguishable to
/// the caller (same error value, same message), as `bundle.rs` documents.
#[test]
fn swapped_record_is_indistinguishable_from_a_wrong_passphrase() {
    let fx = fixture();
    let limits = KdfLimits::default();
    let swapped = open_bundle(&fx.other_public, &fx.bundle, PASS, &limits).unwrap_err();
    let wrong = open_bundle(&fx.public, &fx.bundle, "nope", &limits).unwrap_err();
    assert_eq!(swapped, wrong);
    assert_eq!(swapped.to_string(), wrong.to_string());
    // The other record's own bundle opens under its own key.
    open_bundle(&fx.other_public, &fx.other_bundle, PASS, &limits).unwrap();
}

// ---------------------------------------------------------------------------
// No input makes the library panic
// ---------------------------------------------------------------------------

fn garbage_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[A-Za-z0-9+/=_\\- \n\r\t]{0,120}",
        prop::collection::vec(any::<char>(), 0..=64).prop_map(String::from_iter),
        prop::collection::vec(any::<u8>(), 0..=96).prop_map(|b| encode_base64(&b)),
    ]
}

fn json_like() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        "-?[0-9]{0,12}(\\.[0-9]{0,3})?(e[+-]?[0-9]{1,3})?",
        "\"[A-Za-z0-9+/=\\\\\"]{0,24}\"",
        Just("[]".to_owned()),
        Just("{}".to_owned()),
    ];
    (
        scalar.clone(),
        scalar.clone(),
        scalar.clone(),
        scalar.clone(),
        scalar.clone(),
        scalar,
        any::<bool>(),
    )
        .prop_map(|(ct, v, g, iv, aad_v, extra, nested)| {
            // An unknown field, ignored when it parses.
            let envelope = format!(
                r#"{{"v":{v},"keyGeneration":{g},"iv":{iv},"aad":{aad_v},"extra":{extra}}}"#
            );
            if nested {
                format!(r#"{{"ciphertext":{ct},"envelope":{envelope}}}"#)
            } else {
                envelope
            }
        })
}

/// AAD-shaped bytes: random, label + random, or a valid AAD with edits.
fn aad_like() -> impl Strategy<Value = Vec<u8>> {
    let valid = aad_of(&card(vec![option("a"), option("b")]));
    let valid2 = aad_of(&trace_step());
    let valid3 = aad_of(&Slot::Message {
        stream_id: ROOT.into(),
        message_id: "msg_1".into(),
        author_id: AUTHOR.into(),
        author_type: "user".into(),
        revision: 1,
    });
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..=256),
        prop::collection::vec(any::<u8>(), 0..=128).prop_map(|tail| [
            AAD_LABEL,
            &[2u8][..],
            &tail[..]
        ]
        .concat()),
        (
            prop_oneof![Just(valid), Just(valid2), Just(valid3)],
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..=4),
            0usize..=8,
        )
            .prop_map(|(mut bytes, edits, cut)| {
                for (at, value) in edits {
                    let i = at.index(bytes.len());
                    bytes[i] = value;
                }
                let keep = bytes.len().saturating_sub(cut);
                bytes.truncate(keep);
                bytes
            }),
    ]
}

fn b64_or_garbage(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..=max).prop_map(|b| encode_base64(&b)),
        1 => garbage_text(),
    ]
}

fn allowed(code: ErrorCode, set: &[ErrorCode]) -> bool {
    set.contains(&code)
}

fn sweep_ring() -> Keyring {
    let mut ring = Keyring::new(ROOT).unwrap();
    for g in 0..4 {
        ring.insert(
            g,
            StreamKey::from_bytes(&[0x40 + u8::try_from(g).unwrap(); 32]),
        )
        .unwrap();
    }
    ring
}

fn sweep_keys() -> Vec<IdentityKey> {
    vec![
        IdentityKey::from_secret(
            RecipientKind::Bot,
            KeyId::new("machine-a").unwrap(),
            SecretKey::from_bytes(&[0x20; 32]),
        ),
        IdentityKey::from_secret(
            RecipientKind::User,
            KeyId::new("key_owner").unwrap(),
            SecretKey::from_bytes(&[0x21; 32]),
        ),
        IdentityKey::from_secret(
            RecipientKind::parse("device"),
            KeyId::new("d").unwrap(),
            SecretKey::from_bytes(&[0x22; 32]),
        ),
    ]
}

fn cfg(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(cfg(3000))]

    #[test]
    fn text_parsers_never_panic(text in garbage_text(), json in json_like()) {
        use ErrorCode as E;
        for input in [&text, &json] {
            if let Err(e) = Envelope::from_json(input) {
                prop_assert_eq!(e.code(), E::MalformedJson);
            }
            if let Err(e) = SealedPayload::from_json(input) {
                prop_assert_eq!(e.code(), E::MalformedJson);
            }
            if let Err(e) = PublicKey::from_base64(input) {
                prop_assert!(allowed(e.code(), &[E::InvalidLength, E::MalformedBase64]), "{}", e);
            }
            if let Err(e) = decode_base64("x", input) {
                prop_assert_eq!(e.code(), E::MalformedBase64);
            }
            if let Ok(bytes) = decode_base64("x", input) {
                // Strict: exactly one spelling per byte string.
                prop_assert_eq!(&encode_base64(&bytes), input);
            }
        }
    }

    #[test]
    fn aad_parse_never_panics(bytes in aad_like()) {
        match aad::parse(&bytes) {
            Ok(contents) => {
                // Whatever parses re-encodes to the very same bytes.
                prop_assert_eq!(
                    aad::encode(
                        contents.version,
                        &contents.root_stream_id,
                        contents.key_generation,
                        &contents.sender,
                        &contents.slot,
                    )
                    .unwrap(),
                    bytes
                );
            }
            Err(e) => prop_assert_eq!(e.code(), ErrorCode::MalformedAad),
        }
    }
}

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn open_never_panics(
        v in prop_oneof![3 => Just(2u32), 1 => any::<u32>()],
        key_generation in prop_oneof![3 => 0u32..6, 1 => any::<u32>()],
        iv in prop_oneof![3 => prop::collection::vec(any::<u8>(), 12).prop_map(|b| encode_base64(&b)), 1 => b64_or_garbage(16)],
        aad_b64 in prop_oneof![3 => aad_like().prop_map(|b| encode_base64(&b)), 1 => garbage_text()],
        // Around the 112 bytes of commitment, signature and tag.
        ciphertext in b64_or_garbage(192),
    ) {
        use ErrorCode as E;
        let ring = sweep_ring();
        let sealed = SealedPayload {
            ciphertext,
            envelope: Envelope { v, key_generation, iv, aad: aad_b64, extra: Default::default() },
            extra: Default::default(),
        };
        let expect_slot = trace_step();
        // The AADs of `aad_like` name `AUTHOR` with the key id `key_owner`;
        // the opener holds a key under that name, and pins nothing.
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let keys = SenderKeys::new(&trust).with_own(AUTHOR, &sweep_keys()[1]);
        for result in [
            open_matching(&ring, &keys, &sealed, |_| true).map(|_| ()),
            open_matching(&ring, &keys, &sealed, |s| s == &expect_slot).map(|_| ()),
            open(&ring, &keys, &expect_slot, &sealed).map(|_| ()),
        ] {
            match result {
                Ok(()) => prop_assert!(false, "random bytes authenticated"),
                Err(e) => prop_assert!(
                    allowed(e.code(), &[
                        E::UnsupportedEnvelopeVersion, E::MalformedBase64, E::InvalidLength,
                        E::InputTooLarge, E::MalformedAad, E::AadMismatch,
                        E::UnknownKeyGeneration, E::UnknownKey, E::SenderMismatch,
                        E::DecryptionFailed,
                    ]),
                    "{}", e
                ),
            }
        }
    }

    #[test]
    fn unwrap_never_panics(
        key_generation in any::<u32>(),
        recipient_key_id in prop::option::of(prop_oneof![Just("machine-a".to_owned()), Just("d".to_owned()), garbage_text()]),
        recipient_kind in prop::option::of(prop_oneof![Just("bot".to_owned()), Just("user".to_owned()), garbage_text()]),
        wrap_enc in prop_oneof![3 => prop::collection::vec(any::<u8>(), 32).prop_map(|b| encode_base64(&b)), 1 => b64_or_garbage(40)],
        wrap_ct in prop_oneof![3 => prop::collection::vec(any::<u8>(), 48).prop_map(|b| encode_base64(&b)), 1 => b64_or_garbage(60)],
        root in garbage_text(),
        nkeys in 0usize..=3,
        nsenders in 0usize..=3,
    ) {
        use ErrorCode as E;
        let wrap = KeyWrap {
            key_generation,
            recipient_key_id,
            recipient_kind: recipient_kind.map(|k| RecipientKind::parse(&k)),
            wrap_enc,
            wrap_ct,
            extra: Default::default(),
        };
        let keys = sweep_keys();
        for r in [ROOT, root.as_str()] {
            let senders: Vec<Recipient> = keys[..nsenders].iter().map(Recipient::of).collect();
            match unwrap_stream_key(r, &wrap, &keys[..nkeys], &senders) {
                Ok(_) => prop_assert!(false, "random bytes opened as a wrap"),
                Err(e) => prop_assert!(
                    allowed(e.code(), &[
                        E::MalformedBase64, E::InvalidLength, E::NoMatchingKey, E::UntrustedWrap,
                    ]),
                    "{}", e
                ),
            }
        }
    }
}

proptest! {
    #![proptest_config(cfg(600))]

    #[test]
    fn open_bundle_never_panics(
        version in prop_oneof![3 => Just(1u8), 1 => any::<u8>()],
        body in prop_oneof![3 => prop::collection::vec(any::<u8>(), 60), 1 => prop::collection::vec(any::<u8>(), 0..=80)],
        bundle_text in prop::option::of(garbage_text()),
        salt in prop_oneof![3 => prop::collection::vec(any::<u8>(), 16..=64).prop_map(|b| encode_base64(&b)), 1 => b64_or_garbage(80)],
        m in prop_oneof![3 => 0u32..=64, 1 => any::<u32>()],
        t in prop_oneof![3 => 0u32..=2, 1 => any::<u32>()],
        p in prop_oneof![3 => 0u32..=2, 1 => any::<u32>()],
        algorithm in prop_oneof![3 => Just("argon2id".to_owned()), 1 => garbage_text()],
        kdf_version in prop_oneof![3 => Just(19u32), 1 => any::<u32>()],
        passphrase in garbage_text(),
    ) {
        use ErrorCode as E;
        // Random large m/t/p are (overwhelmingly) out of bounds; only tiny
        // in-bounds parameters reach Argon2.
        let in_bounds = KdfParams { algorithm: algorithm.clone(), m, t, p, version: kdf_version, extra: Default::default() }
            .check(&KdfLimits::default())
            .is_ok();
        prop_assume!(!in_bounds || (m <= 64 && t <= 2 && p <= 2));
        let bundle = SealedBundle {
            encrypted_private_bundle: bundle_text.unwrap_or_else(|| encode_base64(&[&[version][..], &body[..]].concat())),
            kdf_salt: salt,
            kdf_params: KdfParams { algorithm, m, t, p, version: kdf_version, extra: Default::default() },
        };
        let public = SecretKey::from_bytes(&[0x20; 32]).public_key();
        match open_bundle(&public, &bundle, &passphrase, &KdfLimits::default()) {
            Ok(_) => prop_assert!(false, "random bytes opened as a bundle"),
            Err(e) => prop_assert!(
                allowed(e.code(), &[
                    E::MalformedBase64, E::InputTooLarge, E::MalformedBundle,
                    E::UnsupportedBundleVersion, E::KdfParamsOutOfBounds, E::UnsupportedKdf,
                    E::WrongPassphrase,
                ]),
                "{}", e
            ),
        }
    }
}
