//! The secret holders: `IdentityKey` and `Keyring` stay in WASM memory as
//! classes. `free()` (or `using`, through `Symbol.dispose`) drops them, and
//! the core zeroizes their secrets on drop. Only the explicit
//! `exportSecretKey` / `exportKey` hand secret bytes to JS.

use std::cell::RefCell;
use std::rc::Rc;

use streamseal::hazmat::{PlatformDh, SenderDh};
use streamseal::identity::{self, KeyId, PublicKey, RecipientKind, SecretKey};
use streamseal::stream_key::{self, STREAM_KEY_LEN, StreamKey};
use tsify::Ts;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::error::{JsResult, copies_of, js, output};

/// An X25519 identity key (a user's key or a runtime machine's key). The
/// secret stays in WASM memory; call `free()` when done.
///
/// Once a key wrap from a sender opened with it, the object also keeps
/// `X25519(secret, sender's key)` (in WASM memory, at most 256 senders,
/// zeroized by `free()`), so that sender's next wraps open with one X25519
/// instead of two. Another object made from the same secret keeps its own.
/// A `PendingUnwrap` (an async key-wrap open under way) holds a copy of the
/// secret and shares these results until it is finished or freed, even
/// past this object's `free()`.
#[wasm_bindgen]
pub struct IdentityKey {
    inner: identity::IdentityKey,
    /// `X25519(secret, pkS)` for each sender whose wrap this key opened
    /// (`streamseal::hazmat::SenderDh`): that sender's next wrap opens with
    /// one X25519. Shared with the copies the binding makes of this object,
    /// which hold the same secret; zeroized when the last is dropped.
    senders_dh: Rc<RefCell<SenderDh>>,
}

/// The caller's keys for a key-wrap open, each with its cache of results
/// with senders (`IdentityKey::senders_dh`).
pub(crate) struct Mine {
    /// The keys, in the caller's order.
    pub(crate) keys: Vec<identity::IdentityKey>,
    kept: Vec<Rc<RefCell<SenderDh>>>,
}

impl Mine {
    /// Hands each key's kept results to `dh` under the key's index (moved:
    /// the cell is empty until [`Self::keep`] gives them back).
    pub(crate) fn seed(&self, dh: &mut PlatformDh) {
        for (key, kept) in self.kept.iter().enumerate() {
            dh.seed(key, std::mem::take(&mut *kept.borrow_mut()));
        }
    }

    /// Gives each key its results back, with those of senders under which
    /// a wrap opened in the call `dh` served (the same object twice in the
    /// list merges both).
    pub(crate) fn keep(&self, dh: &mut PlatformDh) {
        for (key, kept) in self.kept.iter().enumerate() {
            let back = dh.keep_opened(key);
            kept.borrow_mut().absorb(back);
        }
    }
}

impl IdentityKey {
    /// Wraps a core key.
    pub(crate) fn from_core(inner: identity::IdentityKey) -> Self {
        IdentityKey {
            inner,
            senders_dh: Rc::default(),
        }
    }

    /// The caller's keys from an `IdentityKey` or an array of them, with
    /// their caches of results with senders.
    pub(crate) fn mine(param: &str, value: &JsValue) -> JsResult<Mine> {
        let copies: Vec<IdentityKey> = copies_of(param, "IdentityKey", COPY_IDENTITY_KEY, value)?;
        let (keys, kept) = copies.into_iter().map(|k| (k.inner, k.senders_dh)).unzip();
        Ok(Mine { keys, kept })
    }

    /// The core key.
    pub(crate) fn core(&self) -> &identity::IdentityKey {
        &self.inner
    }

    /// The caller's keys from an `IdentityKey` or an array of them (copied
    /// inside WASM memory; the caller keeps its objects).
    pub(crate) fn list(param: &str, value: &JsValue) -> JsResult<Vec<identity::IdentityKey>> {
        Self::mine(param, value).map(|mine| mine.keys)
    }
}

/// The method `copies_of` calls to copy an `IdentityKey` inside WASM memory.
const COPY_IDENTITY_KEY: &str = "__streamsealCopyIdentityKey";

#[wasm_bindgen]
impl IdentityKey {
    /// A fresh key of `kind` (`"user"`, `"bot"`) registered under `keyId`.
    pub fn generate(kind: &str, key_id: &str) -> JsResult<IdentityKey> {
        let key_id = js(KeyId::new(key_id))?;
        js(identity::IdentityKey::generate(
            RecipientKind::parse(kind),
            key_id,
        ))
        .map(Self::from_core)
    }

    /// Imports a key from its 32 secret bytes (e.g. from platform storage).
    #[wasm_bindgen(js_name = fromSecretKey)]
    pub fn from_secret_key(kind: &str, key_id: &str, secret: &[u8]) -> JsResult<IdentityKey> {
        let key_id = js(KeyId::new(key_id))?;
        let bytes: Zeroizing<[u8; identity::KEY_LEN]> = Zeroizing::new(js(secret
            .try_into()
            .map_err(|_| streamseal::CryptoError::InvalidLength {
                field: "secretKey",
                expected: identity::KEY_LEN.to_string(),
                actual: secret.len(),
            }))?);
        Ok(Self::from_core(identity::IdentityKey::from_secret(
            RecipientKind::parse(kind),
            key_id,
            SecretKey::from_bytes(&bytes),
        )))
    }

    /// The key's kind (`"user"`, `"bot"`, or a newer one).
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.inner.kind().as_str().to_owned()
    }

    /// The id the key is registered under.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> String {
        self.inner.key_id().as_str().to_owned()
    }

    /// The public key, 44-character base64.
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> String {
        self.inner.public_key().to_base64()
    }

    /// The recipient to wrap stream keys to (`{kind, keyId, publicKey}`).
    pub fn recipient(&self) -> JsResult<Ts<identity::Recipient>> {
        output(&identity::Recipient::of(&self.inner))
    }

    /// The 32 secret bytes. The only way a secret key leaves WASM memory:
    /// for the app's own secure storage (and, inside the package, for the
    /// platform's X25519 of the async key-wrap opens); zero the array after
    /// use.
    #[wasm_bindgen(js_name = exportSecretKey)]
    pub fn export_secret_key(&self) -> js_sys::Uint8Array {
        // Copied straight into a JS array from a buffer wiped on drop: no
        // copy is left in freed WASM memory (a `Vec` return would leave one).
        let bytes = self.inner.secret_key().to_bytes();
        js_sys::Uint8Array::from(&bytes[..])
    }

    /// A copy in WASM memory, for the binding's own use (`copies_of`): the
    /// secret never crosses to JS.
    #[wasm_bindgen(js_name = __streamsealCopyIdentityKey, skip_typescript)]
    pub fn copy_for_binding(&self) -> IdentityKey {
        IdentityKey {
            inner: self.inner.clone(),
            senders_dh: Rc::clone(&self.senders_dh),
        }
    }
}

/// The stream keys of one root stream by generation. Keys stay in WASM
/// memory; call `free()` when done.
#[wasm_bindgen]
pub struct Keyring {
    inner: stream_key::Keyring,
}

impl Keyring {
    /// Wraps a core keyring.
    pub(crate) fn from_core(inner: stream_key::Keyring) -> Self {
        Keyring { inner }
    }

    /// The core keyring.
    pub(crate) fn core(&self) -> &stream_key::Keyring {
        &self.inner
    }

    /// The core keyring, mutably.
    pub(crate) fn core_mut(&mut self) -> &mut stream_key::Keyring {
        &mut self.inner
    }
}

#[wasm_bindgen]
impl Keyring {
    /// An empty keyring for `rootStreamId`.
    #[wasm_bindgen(constructor)]
    pub fn new(root_stream_id: &str) -> JsResult<Keyring> {
        js(stream_key::Keyring::new(root_stream_id)).map(Self::from_core)
    }

    /// The root stream whose keys these are.
    #[wasm_bindgen(getter, js_name = rootStreamId)]
    pub fn root_stream_id(&self) -> String {
        self.inner.root_stream_id().to_owned()
    }

    /// The generation sealing uses (`undefined` while empty): the newest
    /// held, or a newer one announced whose key is missing (sealing then
    /// fails rather than fall back). Nothing lowers it.
    #[wasm_bindgen(getter, js_name = currentGeneration)]
    pub fn current_generation(&self) -> Option<u32> {
        self.inner.current_generation()
    }

    /// The newest generation held (`undefined` while empty).
    #[wasm_bindgen(getter, js_name = newestGeneration)]
    pub fn newest_generation(&self) -> Option<u32> {
        self.inner.newest_generation()
    }

    /// The generations held, ascending.
    #[wasm_bindgen(unchecked_return_type = "number[]")]
    pub fn generations(&self) -> JsResult<JsValue> {
        crate::error::to_js(&self.inner.generations())
    }

    /// Whether a key for `generation` is held.
    pub fn contains(&self, generation: u32) -> bool {
        self.inner.contains(generation)
    }

    /// Generates a fresh key and holds it as `generation` (sealing moves up
    /// to it when it is the newest).
    #[wasm_bindgen(js_name = generateKey)]
    pub fn generate_key(&mut self, generation: u32) -> JsResult<()> {
        let key = js(StreamKey::generate())?;
        js(self.inner.insert(generation, key))
    }

    /// Holds 32 key bytes as `generation` (from the app's secure storage).
    #[wasm_bindgen(js_name = importKey)]
    pub fn import_key(&mut self, generation: u32, key: &[u8]) -> JsResult<()> {
        let bytes: Zeroizing<[u8; STREAM_KEY_LEN]> =
            Zeroizing::new(js(key.try_into().map_err(|_| {
                streamseal::CryptoError::InvalidLength {
                    field: "streamKey",
                    expected: STREAM_KEY_LEN.to_string(),
                    actual: key.len(),
                }
            }))?);
        js(self.inner.insert(generation, StreamKey::from_bytes(&bytes)))
    }

    /// The 32 bytes of the key of `generation`. The only way a stream key
    /// leaves WASM memory; zero the array after use.
    #[wasm_bindgen(js_name = exportKey)]
    pub fn export_key(&self, generation: u32) -> JsResult<js_sys::Uint8Array> {
        // Copied straight into a JS array from a buffer wiped on drop: no
        // copy is left in freed WASM memory (a `Vec` return would leave one).
        let bytes = js(self.inner.key(generation))?.to_bytes();
        Ok(js_sys::Uint8Array::from(&bytes[..]))
    }

    /// How many envelopes this keyring (and its clones) sealed under `generation`.
    #[wasm_bindgen(js_name = sealCount)]
    pub fn seal_count(&self, generation: u32) -> f64 {
        // At most the seal budget (2^30): exact as a JS number.
        self.inner.seal_count(generation) as f64
    }

    /// Seals allowed per generation before `SEAL_BUDGET_EXHAUSTED` (2^30
    /// unless lowered): roll the generation then.
    #[wasm_bindgen(getter, js_name = sealBudget)]
    pub fn seal_budget(&self) -> f64 {
        self.inner.seal_budget() as f64
    }

    /// Lowers the seal budget per generation; it never rises again.
    #[wasm_bindgen(js_name = lowerSealBudget)]
    pub fn lower_seal_budget(&mut self, budget: u32) {
        self.inner.lower_seal_budget(u64::from(budget));
    }

    /// Generations for which two different keys were offered: never sealed under.
    #[wasm_bindgen(js_name = conflictedGenerations, unchecked_return_type = "number[]")]
    pub fn conflicted_generations(&self) -> JsResult<JsValue> {
        crate::error::to_js(&self.inner.conflicted_generations())
    }

    /// Drops (and zeroizes) every key.
    pub fn clear(&mut self) {
        self.inner.clear();
    }
}

/// Checks the shape of a public key: 44 characters of canonical padded
/// base64 of 32 bytes (`MALFORMED_BASE64`, `INVALID_LENGTH`), and returns it
/// unchanged. A low-order point passes; it is refused where it is used (a
/// wrap to it is `INVALID_PUBLIC_KEY`).
#[wasm_bindgen(js_name = checkPublicKey)]
pub fn check_public_key(public_key: &str) -> JsResult<String> {
    js(PublicKey::from_base64(public_key)).map(|k| k.to_base64())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use streamseal::hazmat::unwrap_stream_key_with_platform_dh;
    use streamseal::identity::Recipient;
    use streamseal::wrap::wrap_stream_key;

    /// The same object twice in `identities` (one cache behind both
    /// indices): what a wrap kept under either index is there afterwards,
    /// and the cache is whole again after each call.
    #[test]
    fn the_same_object_twice_keeps_one_whole_cache() {
        let me = IdentityKey::from_core(
            identity::IdentityKey::generate(RecipientKind::Bot, KeyId::new("k").unwrap()).unwrap(),
        );
        let owner =
            identity::IdentityKey::generate(RecipientKind::User, KeyId::new("o").unwrap()).unwrap();
        let admin =
            identity::IdentityKey::generate(RecipientKind::User, KeyId::new("a").unwrap()).unwrap();
        let accepted = [Recipient::of(&owner), Recipient::of(&admin)];
        let twice = || Mine {
            keys: vec![me.inner.clone(), me.inner.clone()],
            kept: vec![Rc::clone(&me.senders_dh), me.copy_for_binding().senders_dh],
        };
        for (generation, from) in [(1, &owner), (2, &admin), (3, &owner)] {
            let wrap = wrap_stream_key(
                "stream_r",
                generation,
                &StreamKey::from_bytes(&[7; 32]),
                from,
                &Recipient::of(&me.inner),
            )
            .unwrap();
            let mine = twice();
            let mut dh = PlatformDh::new();
            mine.seed(&mut dh);
            assert!(me.senders_dh.borrow().is_empty(), "moved into the call");
            unwrap_stream_key_with_platform_dh("stream_r", &wrap, &mine.keys, &accepted, &mut dh)
                .unwrap();
            mine.keep(&mut dh);
        }
        let kept = me.senders_dh.borrow();
        assert_eq!(kept.len(), 2);
        assert!(kept.contains(owner.public_key().as_bytes()));
        assert!(kept.contains(admin.public_key().as_bytes()));
    }
}
