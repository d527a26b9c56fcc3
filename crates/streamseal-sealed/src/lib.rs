//! Sealed-stream flows: the operations the web app, the mobile apps and bot
//! runtimes call, each a complete step over the wire types.
//!
//! | flow | module |
//! |---|---|
//! | unlock, set up, re-seal the user's key (`me/e2e-key`) | [`user_key`] |
//! | what a member remembers of a root stream, persisted | [`state`] |
//! | key-wraps list -> generations admitted from accepted senders | [`key_wraps`] |
//! | send, edit and open stream messages | [`messages`] |
//! | a runtime's claimed invocation: open `sealedContext`, seal steps and replies | [`runtime`] |
//! | generation 0 of a new sealed session, and rolling the generation | [`session`] |
//! | sealed decision cards and their notes | [`decisions`] |
//! | an open checked up to AES-GCM, completed elsewhere (WebCrypto) | [`pending`] |
//! | presence keys, key policy, revoke and grant events | [`presence`] |
//!
//! Every flow keeps the crypto core's guarantees: opening recomputes the
//! slot from what the caller knows (stream, message, author, revision,
//! invocation, step, decision), so a hostile server cannot move a ciphertext.
//!
//! **Trust in public keys.** Public keys come from the server, so every key
//! a flow uses goes through the caller's [`streamseal_crypto::trust::TrustStore`]:
//! pinned on first sight, never used silently once it changes, and verified
//! when the users compare safety numbers ([`streamseal_crypto::fingerprint`]). Wraps are
//! HPKE auth mode from the identity key of the member who made the
//! generation, and a member admits a generation only from the senders its
//! [`state::StreamState`] accepts for that root: the server cannot mint one.
//! Everything a member seals is signed by its identity key (a
//! [`streamseal_crypto::sender::Signer`]) and every opener checks that signature against
//! its [`streamseal_crypto::sender::SenderKeys`], so no key holder can seal as another.
//! The state persists what the member knows (sealed flag, high-water
//! generation, keys, acted-on prompts), so neither a response nor a restart
//! rolls it back.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_sealed::{messages, state::StreamState};
//! use streamseal_crypto::sender::Signer;
//! use streamseal_crypto::trust::TrustedKey;
//! use streamseal_wire::ids::MessageId;
//!
//! let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner-key")?)?;
//! let mut state = StreamState::new("stream_01JD3QG1YB5V6Z8R9T0W2X4K7M")?;
//! let roll = state.prepare_roll(&owner, &[TrustedKey::own("usr_1", &owner)])?;
//! state.commit_roll(roll)?; // after its POST succeeded
//! let id = MessageId::mint(1_700_000_000_000)?;
//! let body = messages::seal_message(state.keyring(), &Signer::new("usr_1", &owner)?, "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M", &id, "hi")?;
//! assert!(body.content.is_none() && body.sealed.is_some());
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

#![forbid(unsafe_code)]

mod card_json;
pub mod decisions;
pub mod hazmat;
pub mod key_wraps;
pub mod messages;
pub mod pending;
pub mod presence;
pub mod runtime;
pub mod session;
pub mod state;
pub mod user_key;

use streamseal_crypto::plaintext::Plaintext;
use zeroize::Zeroize as _;

use streamseal_crypto::stream_key::Keyring;
pub use streamseal_crypto::{Error, ErrorCode, Result};

// The UniFFI shape of the flows' result records (feature `uniffi`, for
// bindings/uniffi), in the namespace `streamseal_sealed`. The generated code
// is the macro's, outside this crate's own sources, which stay free of
// `unsafe`.
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("streamseal_sealed");

/// A plaintext as UTF-8 text (every sealed surface carries text or JSON).
///
/// The decrypted buffer becomes the text without a copy (the content moves
/// to its front, [`Plaintext::into_zeroizing`]). The flows hand
/// their plaintext to the app as an ordinary `String`, so zeroizing the
/// buffer behind a copy that is not zeroized would cost time (16% of a
/// 64 KiB open) and protect nothing; a plaintext that is not UTF-8 is
/// zeroized before the error returns.
pub(crate) fn utf8(plain: Plaintext) -> Result<String> {
    let mut plain = plain.into_zeroizing();
    String::from_utf8(std::mem::take(&mut *plain)).map_err(|e| {
        let mut bytes = e.into_bytes();
        bytes.zeroize();
        Error::invalid("plaintext", "is not UTF-8")
    })
}

/// New work (a prompt, a decision answer) sealed under a generation older
/// than the newest the keyring holds is `STALE_KEY_GENERATION`.
pub(crate) fn refuse_stale(keyring: &Keyring, generation: u32) -> Result<()> {
    match keyring.newest_generation() {
        Some(newest) if generation < newest => {
            Err(Error::StaleKeyGeneration { generation, newest })
        }
        _ => Ok(()),
    }
}
