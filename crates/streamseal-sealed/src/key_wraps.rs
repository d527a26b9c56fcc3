//! Admitting generations from `GET streams/{id}/e2e/key-wraps` (and from a
//! claimed invocation's `sealedContext`) into a member's [`StreamState`].
//!
//! Ask for the root stream (threads use their root's key). Each wrap
//! addressed to one of the caller's keys is opened **only as made by an
//! accepted sender** of the root (the state's accepted senders that the trust
//! store still trusts, and the caller's own keys): a wrap the server minted
//! is skipped with `UNTRUSTED_WRAP`, and the generation it names is never
//! admitted. Wraps addressed to others are passed over. A wrap that gives a
//! generation already held a *different* key is reported as a conflict: the
//! key held is kept and nothing is sealed under that generation again. One
//! bad wrap never fails the whole response.
//!
//! The generation new ciphertexts are sealed under is the larger of the
//! high-water generation and `currentKeyGeneration`: when the announced
//! generation's key is missing, sealing fails (`UNKNOWN_KEY_GENERATION`)
//! instead of falling back to an older key a removed member holds. The
//! announcement is the server's word: it never counts as a generation held
//! and is not persisted.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
//! use streamseal_sealed::{key_wraps::open_key_wraps, state::StreamState};
//! use streamseal_crypto::trust::{TrustPolicy, TrustStore, TrustedKey};
//! use streamseal_wire::keys::KeyWraps;
//!
//! let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("k1")?)?;
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("m-a")?)?;
//! // The bot runtime made generation 0 and wrapped it to the owner.
//! let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! let bot_key = trust.admit("bot_1", &Recipient::of(&bot))?;
//! let runtime_state = StreamState::new("stream_r")?;
//! let roll = runtime_state.prepare_roll(&bot, &[TrustedKey::own("bot_1", &bot), trust.admit("usr_1", &Recipient::of(&owner))?])?;
//! let listed = KeyWraps {
//!     current_key_generation: 0,
//!     owner_user_id: "usr_1".into(),
//!     wraps: roll.wraps().to_vec(),
//!     extra: Default::default(),
//! };
//! // The owner's device accepts the bot's key as a key sender for this root.
//! let mut state = StreamState::new("stream_r")?;
//! state.accept_sender(&bot_key)?;
//! let report = open_key_wraps(&mut state, &trust, &listed, &[owner])?;
//! assert_eq!(report.admitted.len(), 1);
//! assert_eq!(report.admitted[0].sender, "bot_1");
//! assert_eq!(state.high_water(), Some(0));
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use crate::state::{AdmittedGeneration, StreamState};
use streamseal_crypto::error::{CryptoError, Error, ErrorCode, Result};
use streamseal_crypto::hazmat::{self, PlatformDh};
use streamseal_crypto::identity::IdentityKey;
use streamseal_crypto::trust::TrustStore;
use streamseal_crypto::wrap::KeyWrap;
use streamseal_wire::keys::KeyWraps;

/// A wrap addressed to the caller that was not admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct SkippedWrap {
    /// Its generation.
    pub key_generation: u32,
    /// Why it was not admitted (`UNTRUSTED_WRAP` for a wrap no accepted
    /// sender made, `MALFORMED_BASE64`, `INVALID_LENGTH`, ...).
    pub code: ErrorCode,
}

/// What opening a list of wraps did to the state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct WrapsReport {
    /// Generations whose key was admitted (or confirmed) from an accepted sender.
    pub admitted: Vec<AdmittedGeneration>,
    /// Wraps addressed to the caller that were not admitted.
    pub skipped: Vec<SkippedWrap>,
    /// Generations for which an accepted sender gave a key other than the
    /// one held: the held key is kept, and nothing is sealed under them.
    pub conflicts: Vec<u32>,
}

/// Most HPKE opens admitting one list of wraps may cost (each wrap addressed
/// to the caller costs its candidate keys times the accepted senders); more
/// is `INPUT_TOO_LARGE`, checked before any work. An owner with one key and
/// three senders reaches it at about 5,000 wraps addressed to it.
pub const MAX_WRAP_TRIALS: usize = 16_384;

fn addressed_to(wrap: &KeyWrap, mine: &[IdentityKey]) -> bool {
    match &wrap.recipient_key_id {
        None => true,
        Some(id) => mine.iter().any(|k| k.key_id().as_str() == id),
    }
}

/// Admits into `state` every wrap of `wraps` addressed to one of `mine`
/// that an accepted sender made (see the module docs).
///
/// # Errors
///
/// `TOO_MANY_KEYS` when `mine`, or the accepted senders the trust store still
/// trusts together with `mine`, hold more than 32 keys; `INPUT_TOO_LARGE` when
/// the wraps would cost more than [`MAX_WRAP_TRIALS`] opens. A wrap that does
/// not open is reported in [`WrapsReport::skipped`], not returned.
pub fn admit_wraps(
    state: &mut StreamState,
    trust: &TrustStore,
    wraps: &[KeyWrap],
    mine: &[IdentityKey],
) -> Result<WrapsReport> {
    admit_wraps_with_platform_dh(state, trust, wraps, mine, &mut PlatformDh::new())
}

/// The X25519 operations [`admit_wraps`] may do for `wraps`, as (index in
/// `mine`, public key), each once: what a platform computes for
/// [`admit_wraps_with_platform_dh`] (see
/// [`streamseal_crypto::hazmat::PlatformDh`]). Empty where [`admit_wraps`]
/// refuses the list before any X25519 (`TOO_MANY_KEYS`, `INPUT_TOO_LARGE`):
/// it then gives that error itself, and [`open_key_wraps`] after what it
/// records first (the owner, the sealed flag), so the two-step open ends as
/// the one-step one does.
pub fn admit_dh_requests(
    state: &StreamState,
    trust: &TrustStore,
    wraps: &[KeyWrap],
    mine: &[IdentityKey],
) -> Vec<(usize, [u8; 32])> {
    let Ok(senders) = state.sender_keys(trust, mine) else {
        return Vec::new();
    };
    let keys: Vec<_> = senders.into_iter().map(|(r, _, _)| r).collect();
    if check_trials(wraps, mine, keys.len()).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for wrap in wraps.iter().filter(|w| addressed_to(w, mine)) {
        match hazmat::unwrap_dh_requests(wrap, mine, &keys) {
            Ok(requests) => out.extend(requests),
            Err(_) => return Vec::new(),
        }
    }
    hazmat::distinct_dh_requests(out)
}

/// [`admit_wraps`] with the X25519 results of `dh` (what is not filed there
/// computed here): the same report and the same errors.
///
/// # Errors
///
/// As [`admit_wraps`].
pub fn admit_wraps_with_platform_dh(
    state: &mut StreamState,
    trust: &TrustStore,
    wraps: &[KeyWrap],
    mine: &[IdentityKey],
    dh: &mut PlatformDh,
) -> Result<WrapsReport> {
    let senders = state.sender_keys(trust, mine)?;
    let keys: Vec<_> = senders.iter().map(|(r, _, _)| r.clone()).collect();
    check_trials(wraps, mine, keys.len())?;
    let mut report = WrapsReport::default();
    for wrap in wraps.iter().filter(|w| addressed_to(w, mine)) {
        let root = state.root_stream_id().to_owned();
        match hazmat::unwrap_stream_key_with_platform_dh(&root, wrap, mine, &keys, dh) {
            Ok(opened) => {
                let generation = wrap.key_generation;
                match state.keyring_mut().insert(generation, opened.key) {
                    Ok(()) => {
                        let (sender, subject, level) = senders
                            .get(opened.sender)
                            .cloned()
                            .ok_or(CryptoError::UntrustedWrap)?;
                        let subject = if subject.is_empty() {
                            // One of the caller's own keys.
                            String::from("self")
                        } else {
                            subject
                        };
                        report.admitted.push(AdmittedGeneration {
                            key_generation: generation,
                            sender: subject,
                            sender_key_id: sender.key_id,
                            level,
                        });
                    }
                    Err(CryptoError::KeyGenerationConflict { generation }) => {
                        state.keyring_mut().mark_conflicted(generation);
                        if !report.conflicts.contains(&generation) {
                            report.conflicts.push(generation);
                        }
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Err(e @ CryptoError::TooManyKeys { .. }) => return Err(e.into()),
            Err(e) => report.skipped.push(SkippedWrap {
                key_generation: wrap.key_generation,
                code: e.code(),
            }),
        }
    }
    if !report.admitted.is_empty() {
        state.mark_sealed();
    }
    Ok(report)
}

/// `INPUT_TOO_LARGE` when opening `wraps` could cost more than
/// [`MAX_WRAP_TRIALS`] HPKE opens with `senders` accepted senders.
fn check_trials(wraps: &[KeyWrap], mine: &[IdentityKey], senders: usize) -> Result<()> {
    let trials = wraps
        .iter()
        .filter(|w| addressed_to(w, mine))
        .map(|w| match &w.recipient_key_id {
            Some(id) => mine.iter().filter(|k| k.key_id().as_str() == id).count(),
            None => mine.len(),
        })
        .fold(0usize, usize::saturating_add)
        .saturating_mul(senders);
    if trials > MAX_WRAP_TRIALS {
        return Err(Error::Crypto(CryptoError::InputTooLarge {
            field: "wraps",
            limit: MAX_WRAP_TRIALS,
            actual: trials,
        }));
    }
    Ok(())
}

/// Opens the key-wraps list of the state's root stream with the caller's
/// keys: admits what accepted senders made, records the owner (pinned the
/// first time: a different `ownerUserId` later is `UNEXPECTED_AUTHOR`),
/// and takes `currentKeyGeneration` as an announcement.
///
/// # Errors
///
/// `INVALID_LENGTH` when `ownerUserId` is empty or over 1024 bytes;
/// `UNEXPECTED_AUTHOR` when another owner is pinned; then as [`admit_wraps`]
/// (`TOO_MANY_KEYS`, `INPUT_TOO_LARGE`).
pub fn open_key_wraps(
    state: &mut StreamState,
    trust: &TrustStore,
    wraps: &KeyWraps,
    mine: &[IdentityKey],
) -> Result<WrapsReport> {
    open_key_wraps_with_platform_dh(state, trust, wraps, mine, &mut PlatformDh::new())
}

/// [`open_key_wraps`] with the X25519 results of `dh` (see
/// [`admit_wraps_with_platform_dh`]): the same report, state and errors.
///
/// # Errors
///
/// As [`open_key_wraps`].
pub fn open_key_wraps_with_platform_dh(
    state: &mut StreamState,
    trust: &TrustStore,
    wraps: &KeyWraps,
    mine: &[IdentityKey],
    dh: &mut PlatformDh,
) -> Result<WrapsReport> {
    state.set_owner(&wraps.owner_user_id)?;
    // The list exists only for an encrypted stream (400 otherwise).
    state.mark_sealed();
    let report = admit_wraps_with_platform_dh(state, trust, &wraps.wraps, mine, dh)?;
    state.keyring_mut().announce(wraps.current_key_generation);
    Ok(report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use streamseal_crypto::identity::{KeyId, RecipientKind};
    use streamseal_crypto::trust::TrustPolicy;

    /// The platform's X25519 results (all of them, none, or all but one)
    /// give exactly the report, the state and the errors of `open_key_wraps`:
    /// over a list with wraps from two accepted senders, one the server
    /// minted, a garbage one and one addressed to someone else.
    #[test]
    fn platform_results_give_the_same_admission() {
        use streamseal_crypto::identity::Recipient;
        use streamseal_crypto::stream_key::StreamKey;
        use streamseal_crypto::wrap::wrap_stream_key;
        let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("k1").unwrap()).unwrap();
        let other = IdentityKey::generate(RecipientKind::User, KeyId::new("k2").unwrap()).unwrap();
        let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("m-a").unwrap()).unwrap();
        let admin = IdentityKey::generate(RecipientKind::User, KeyId::new("a-1").unwrap()).unwrap();
        let server =
            IdentityKey::generate(RecipientKind::User, KeyId::new("a-1").unwrap()).unwrap();
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let bot_key = trust.admit("bot_1", &Recipient::of(&bot)).unwrap();
        let admin_key = trust.admit("usr_2", &Recipient::of(&admin)).unwrap();
        let to_owner = Recipient::of(&owner);
        let key = |b: u8| StreamKey::from_bytes(&[b; 32]);
        let mut garbage = wrap_stream_key("stream_r", 4, &key(4), &admin, &to_owner).unwrap();
        garbage.wrap_ct = "!".into();
        let wraps = vec![
            wrap_stream_key("stream_r", 0, &key(0), &bot, &to_owner).unwrap(),
            wrap_stream_key("stream_r", 1, &key(1), &admin, &to_owner).unwrap(),
            wrap_stream_key("stream_r", 2, &key(2), &server, &to_owner).unwrap(),
            wrap_stream_key("stream_r", 3, &key(3), &admin, &Recipient::of(&other)).unwrap(),
            garbage,
        ];
        let listed = KeyWraps {
            current_key_generation: 2,
            owner_user_id: "usr_1".into(),
            wraps,
            extra: Default::default(),
        };
        let fresh = || {
            let mut state = StreamState::new("stream_r").unwrap();
            state.accept_sender(&bot_key).unwrap();
            state.accept_sender(&admin_key).unwrap();
            state
        };
        let second = IdentityKey::generate(RecipientKind::User, KeyId::new("k3").unwrap()).unwrap();
        let mine = [owner, second];
        let mut plain_state = fresh();
        let plain = open_key_wraps(&mut plain_state, &trust, &listed, &mine).unwrap();
        assert_eq!(plain.admitted.len(), 2);
        assert_eq!(plain.skipped.len(), 2, "the minted one and the garbage one");
        let requests = admit_dh_requests(&fresh(), &trust, &listed.wraps, &mine);
        let file = |requests: &[(usize, [u8; 32])]| {
            let mut dh = PlatformDh::new();
            for (k, public) in requests {
                let secret = mine[*k].secret_key().to_bytes();
                let result = x25519_dalek::StaticSecret::from(*secret)
                    .diffie_hellman(&x25519_dalek::PublicKey::from(*public));
                dh.insert(*k, *public, result.as_bytes());
            }
            dh
        };
        let mut partial = requests.clone();
        partial.remove(1);
        for mut dh in [file(&requests), PlatformDh::new(), file(&partial)] {
            let mut state = fresh();
            let report =
                open_key_wraps_with_platform_dh(&mut state, &trust, &listed, &mine, &mut dh)
                    .unwrap();
            assert_eq!(report, plain);
            assert_eq!(
                *state.encode_body().unwrap(),
                *plain_state.encode_body().unwrap()
            );
        }
        // Over the trial budget, both refuse alike, before any work.
        let many = vec![listed.wraps[0].clone(); MAX_WRAP_TRIALS];
        let code = |r: Result<WrapsReport>| r.unwrap_err().code();
        assert!(admit_dh_requests(&fresh(), &trust, &many, &mine).is_empty());
        assert_eq!(
            code(admit_wraps(&mut fresh(), &trust, &many, &mine)),
            ErrorCode::InputTooLarge
        );
        assert_eq!(
            code(admit_wraps_with_platform_dh(
                &mut fresh(),
                &trust,
                &many,
                &mine,
                &mut PlatformDh::new()
            )),
            ErrorCode::InputTooLarge
        );
    }

    #[test]
    fn a_list_costing_more_than_the_trial_budget_is_refused_before_any_work() {
        let me = IdentityKey::generate(RecipientKind::User, KeyId::new("k").unwrap()).unwrap();
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let mut state = StreamState::new("stream_r").unwrap();
        // Garbage wraps addressed to the caller: refused for their number,
        // not opened one by one (each would be skipped as malformed).
        let wrap = KeyWrap {
            key_generation: 1,
            recipient_key_id: Some("k".into()),
            recipient_kind: None,
            wrap_enc: "x".into(),
            wrap_ct: "x".into(),
            extra: Default::default(),
        };
        let many = vec![wrap.clone(); MAX_WRAP_TRIALS + 1];
        let err = admit_wraps(&mut state, &trust, &many, std::slice::from_ref(&me)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InputTooLarge);
        // At the budget, the list is read and each bad wrap skipped on its own.
        let report = admit_wraps(&mut state, &trust, &many[..3], &[me]).unwrap();
        assert_eq!(report.skipped.len(), 3);
        assert_eq!(report.skipped[0].code, ErrorCode::MalformedBase64);
    }
}
