//! The persistent per-root stream state (`streamseal::sealed::state`) and
//! what goes through it: opening key wraps and making generations.
//!
//! A `StreamState` is what a member remembers of one sealed root stream
//! across responses and restarts: the sealed flag (never unset), the keys
//! held and the high-water generation (only rises; sealing uses it), the
//! accepted key senders, the pinned owner and the prompts acted on. Persist
//! `toBytes(identity)` (IndexedDB, a file) after each change and restore it
//! with `StreamState.fromBytes`: it is sealed under the identity key. No
//! export lowers a generation.

use streamseal::sealed::key_wraps::{self, WrapsReport};
use streamseal::sealed::state::{self, RosterEntry};
use streamseal::wire::keys::KeyWraps;
use streamseal::wire::requests::streams::PostKeyWrapsRequest;
use streamseal::wrap::KeyWrap;
use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, input, js, output, take_once, to_js};
use crate::keys::{IdentityKey, Keyring, Mine};
use crate::trust::{TrustStore, TrustedKey};

/// What one member remembers of one sealed root stream (see the module docs).
#[wasm_bindgen]
pub struct StreamState {
    inner: state::StreamState,
}

impl StreamState {
    /// The core state.
    pub(crate) fn core(&self) -> &state::StreamState {
        &self.inner
    }

    /// The core state, mutably.
    pub(crate) fn core_mut(&mut self) -> &mut state::StreamState {
        &mut self.inner
    }
}

#[wasm_bindgen]
impl StreamState {
    /// A fresh state for `rootStreamId`: no keys, not known to be sealed.
    #[wasm_bindgen(constructor)]
    pub fn new(root_stream_id: &str) -> JsResult<StreamState> {
        js(state::StreamState::new(root_stream_id)).map(|inner| StreamState { inner })
    }

    /// The root stream.
    #[wasm_bindgen(getter, js_name = rootStreamId)]
    pub fn root_stream_id(&self) -> String {
        self.inner.root_stream_id().to_owned()
    }

    /// Whether the stream is known to be sealed (never unset once set).
    #[wasm_bindgen(getter, js_name = isSealed)]
    pub fn is_sealed(&self) -> bool {
        self.inner.is_sealed()
    }

    /// Records that the stream is sealed; nothing unsets it.
    #[wasm_bindgen(js_name = markSealed)]
    pub fn mark_sealed(&mut self) {
        self.inner.mark_sealed();
    }

    /// Reads a stream resource's `e2eEnabled`: `true` marks the state
    /// sealed; a sealed state presented without `true` is
    /// `SEALED_STREAM_DOWNGRADE`.
    #[wasm_bindgen(js_name = observeE2eEnabled)]
    pub fn observe_e2e_enabled(&mut self, e2e_enabled: Option<bool>) -> JsResult<()> {
        js(self.inner.observe_e2e_enabled(e2e_enabled))
    }

    /// The newest generation admitted from an accepted sender or made here
    /// (`undefined` before any): the generation sealing uses.
    #[wasm_bindgen(getter, js_name = highWater)]
    pub fn high_water(&self) -> Option<u32> {
        self.inner.high_water()
    }

    /// The user whose prompts this member acts on, once set.
    #[wasm_bindgen(getter, js_name = ownerUserId)]
    pub fn owner_user_id(&self) -> Option<String> {
        self.inner.owner_user_id().map(str::to_owned)
    }

    /// Pins the stream's owner; another owner later is `UNEXPECTED_AUTHOR`.
    #[wasm_bindgen(js_name = setOwner)]
    pub fn set_owner(&mut self, user_id: &str) -> JsResult<()> {
        js(self.inner.set_owner(user_id))
    }

    /// Accepts `trustedKey` as a distributor of this stream's keys: its
    /// wraps are admitted from now on, while the trust store still trusts
    /// it (at most 16; the caller's own keys are always accepted).
    #[wasm_bindgen(js_name = acceptSender)]
    pub fn accept_sender(&mut self, trusted_key: &TrustedKey) -> JsResult<()> {
        js(self.inner.accept_sender(trusted_key.core()))
    }

    /// Stops accepting the key `keyId` of `subject` (a removed member);
    /// whether it was accepted.
    #[wasm_bindgen(js_name = removeSender)]
    pub fn remove_sender(&mut self, subject: &str, key_id: &str) -> JsResult<bool> {
        let key_id = js(streamseal::identity::KeyId::new(key_id))?;
        Ok(self.inner.remove_sender(subject, &key_id))
    }

    /// The accepted key senders.
    #[wasm_bindgen(getter, unchecked_return_type = "KeySender[]")]
    pub fn senders(&self) -> JsResult<JsValue> {
        to_js(&self.inner.senders())
    }

    /// Makes the next generation (one above the high-water, or 0) wrapped
    /// from `identity` to `trustedKeys` (a `TrustedKey` or an array of
    /// them, each from the trust store). Nothing changes until `commitRoll`.
    #[wasm_bindgen(js_name = prepareRoll)]
    pub fn prepare_roll(
        &self,
        identity: &IdentityKey,
        #[wasm_bindgen(unchecked_param_type = "TrustedKey | TrustedKey[]")] trusted_keys: JsValue,
    ) -> JsResult<PreparedRoll> {
        let recipients = TrustedKey::list("trustedKeys", &trusted_keys)?;
        js(self.inner.prepare_roll(identity.core(), &recipients)).map(PreparedRoll::new)
    }

    /// Puts `roll` in force after its POST succeeded; returns its
    /// generation. A roll the state moved past is `STALE_ROLL` (nothing
    /// changes). Either way the roll is used up.
    #[wasm_bindgen(js_name = commitRoll)]
    pub fn commit_roll(&mut self, roll: &mut PreparedRoll) -> JsResult<u32> {
        let inner = take_once(&mut roll.inner, "the roll")?;
        js(self.inner.commit_roll(inner))
    }

    /// Whether the prompt of `messageId` at `revision` was acted on.
    #[wasm_bindgen(js_name = wasActedOn)]
    pub fn was_acted_on(&self, message_id: &str, revision: u32) -> bool {
        self.inner.was_acted_on(message_id, revision)
    }

    /// Drops every key (after `bot:e2e_revoke`); the sealed flag, owner and
    /// acted-on prompts are kept.
    #[wasm_bindgen(js_name = dropKeys)]
    pub fn drop_keys(&mut self) {
        self.inner.drop_keys();
    }

    /// The keys held, for the seal and open functions: a snapshot (take a
    /// new one after the state changes) whose seals count in the state.
    pub fn keyring(&self) -> Keyring {
        Keyring::from_core(self.inner.keyring().clone())
    }

    /// The persisted form, sealed under `identity` (store it as is).
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self, identity: &IdentityKey) -> JsResult<Vec<u8>> {
        js(self.inner.to_bytes(identity.core()))
    }

    /// Restores a state written by `toBytes` with the same identity key
    /// (`STATE_AUTH_FAILED` for another key or altered bytes, `MALFORMED_STATE`).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8], identity: &IdentityKey) -> JsResult<StreamState> {
        js(state::StreamState::from_bytes(bytes, identity.core()))
            .map(|inner| StreamState { inner })
    }
}

/// A new generation made and wrapped, not yet in force: post `request`,
/// then `state.commitRoll(roll)` once the POST succeeded. On a 409 drop it
/// (`free()`): its key was never sealed under.
#[wasm_bindgen]
pub struct PreparedRoll {
    inner: Option<state::PreparedRoll>,
    key_generation: u32,
    wraps: Vec<KeyWrap>,
    request: PostKeyWrapsRequest,
    roster: Vec<RosterEntry>,
}

impl PreparedRoll {
    fn new(inner: state::PreparedRoll) -> Self {
        PreparedRoll {
            key_generation: inner.key_generation(),
            wraps: inner.wraps().to_vec(),
            request: inner.request().clone(),
            roster: inner.roster().to_vec(),
            inner: Some(inner),
        }
    }
}

#[wasm_bindgen]
impl PreparedRoll {
    /// The generation this roll makes.
    #[wasm_bindgen(getter, js_name = keyGeneration)]
    pub fn key_generation(&self) -> u32 {
        self.key_generation
    }

    /// One wrap per recipient.
    #[wasm_bindgen(getter, unchecked_return_type = "KeyWrap[]")]
    pub fn wraps(&self) -> JsResult<JsValue> {
        to_js(&self.wraps)
    }

    /// The `POST streams/{rootStreamId}/e2e/key-wraps` body.
    #[wasm_bindgen(getter)]
    pub fn request(&self) -> JsResult<Ts<PostKeyWrapsRequest>> {
        output(&self.request)
    }

    /// Who can read what is sealed under this generation (subject, key,
    /// fingerprint, verified).
    #[wasm_bindgen(getter, unchecked_return_type = "RosterEntry[]")]
    pub fn roster(&self) -> JsResult<JsValue> {
        to_js(&self.roster)
    }
}

/// Opens a `key-wraps` response (of the state's root stream) with
/// `identities` (an `IdentityKey` or an array of them): admits the
/// generations an accepted sender made, skips the rest with their codes (a
/// wrap the server minted: `UNTRUSTED_WRAP`), reports conflicts, pins
/// `ownerUserId` and takes `currentKeyGeneration` as an announcement.
#[wasm_bindgen(js_name = openKeyWraps)]
pub fn open_key_wraps(
    state: &mut StreamState,
    trust: &TrustStore,
    key_wraps: Ts<KeyWraps>,
    #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
) -> JsResult<Ts<WrapsReport>> {
    let key_wraps = input("keyWraps", &key_wraps)?;
    let mine = IdentityKey::mine("identities", &identities)?;
    open_key_wraps_read(
        state,
        trust,
        &key_wraps,
        &mine,
        streamseal::hazmat::PlatformDh::new(),
    )
}

/// `openKeyWraps` with its arguments read, the X25519 results in `dh` (a
/// platform's, or none) and WASM's for the rest.
pub(crate) fn open_key_wraps_read(
    state: &mut StreamState,
    trust: &TrustStore,
    key_wraps: &KeyWraps,
    mine: &Mine,
    mut dh: streamseal::hazmat::PlatformDh,
) -> JsResult<Ts<WrapsReport>> {
    mine.seed(&mut dh);
    let report = key_wraps::open_key_wraps_with_platform_dh(
        state.core_mut(),
        trust.core(),
        key_wraps,
        &mine.keys,
        &mut dh,
    );
    mine.keep(&mut dh);
    output(&js(report)?)
}
