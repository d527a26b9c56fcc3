//! The developer tools: keys, bundles, wraps, sealing and opening.

use std::path::PathBuf;
use streamseal::wire::JsonRecord as _;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use streamseal::bundle::SealedBundle;
use streamseal::envelope::{SealedPayload, open, seal};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wrap::{KeyWrap, unwrap_stream_key, wrap_stream_key};

use crate::failure::{Failure, Outcome};
use crate::files::{
    emit, key_to_json, keyring_to_json, parse_as, read_key, read_keyring, read_text,
};
use crate::passphrase::{PassphraseSource, with_progress};

/// `keygen`: a new X25519 identity key.
#[derive(Args, Debug)]
pub struct Keygen {
    /// Who the key belongs to: `user` or `bot`.
    #[arg(long, default_value = "user", value_parser = ["user", "bot"])]
    kind: String,
    /// The id the key is registered under (1 to 128 characters).
    #[arg(long)]
    key_id: String,
    /// Write the key file here instead of standard output (it holds the secret key).
    #[arg(long)]
    out: Option<PathBuf>,
}

impl Keygen {
    pub fn run(&self) -> Outcome {
        let key = IdentityKey::generate(
            RecipientKind::parse(&self.kind),
            KeyId::new(self.key_id.clone())?,
        )?;
        emit(&key_to_json(&key), self.out.as_deref())
    }
}

/// `bundle`: the passphrase-protected private-key bundle.
#[derive(Subcommand, Debug)]
pub enum Bundle {
    /// Seal a key file's secret key under a passphrase; prints the key record.
    Create {
        /// The key file (from `keygen`).
        #[arg(long)]
        key: String,
        /// Argon2id memory in KiB (at least 19456, the OWASP minimum for a new bundle).
        #[arg(long, default_value_t = KdfParams::default().m)]
        m: u32,
        /// Argon2id iterations (at least 2).
        #[arg(long, default_value_t = KdfParams::default().t)]
        t: u32,
        /// Argon2id lanes.
        #[arg(long, default_value_t = KdfParams::default().p)]
        p: u32,
        #[command(flatten)]
        passphrase: PassphraseSource,
    },
    /// Open a key record (`GET me/e2e-key` data) with its passphrase; prints the key file.
    Open {
        /// The key record JSON file, or `-` for standard input.
        #[arg(long)]
        record: String,
        /// Write the key file here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        passphrase: PassphraseSource,
    },
}

impl Bundle {
    pub fn run(&self) -> Outcome {
        match self {
            Bundle::Create {
                key,
                m,
                t,
                p,
                passphrase,
            } => {
                let key = read_key(key)?;
                // Below the creation floor or above the caps: refused before
                // the passphrase is asked for.
                let params = KdfParams::for_new_bundle(*m, *t, *p)?;
                let phrase = passphrase.read("passphrase: ")?;
                let bundle = with_progress(&params, || {
                    streamseal::bundle::create_bundle(key.secret_key(), &phrase, &params)
                })?;
                let mut record = json!({"keyId": key.key_id().as_str(), "publicKey": key.public_key().to_base64()});
                merge(
                    &mut record,
                    serde_json::to_value(&bundle).unwrap_or_default(),
                );
                emit(&record, None)
            }
            Bundle::Open {
                record,
                out,
                passphrase,
            } => {
                let text = read_text(record)?;
                let value: Value = parse_as(record, &text)?;
                let value = value.get("data").cloned().unwrap_or(value);
                let bundle: SealedBundle =
                    serde_json::from_value(value.clone()).map_err(|e| Failure {
                        code: "MALFORMED_JSON".into(),
                        message: format!("{record}: {e}"),
                    })?;
                let public = PublicKey::from_base64(
                    value
                        .get("publicKey")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                )?;
                let key_id = KeyId::new(
                    value
                        .get("keyId")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                )?;
                bundle.kdf_params.check(&KdfLimits::default())?;
                let phrase = passphrase.read("passphrase: ")?;
                let secret = with_progress(&bundle.kdf_params, || {
                    streamseal::bundle::open_bundle(
                        &public,
                        &bundle,
                        &phrase,
                        &KdfLimits::default(),
                    )
                })?;
                emit(
                    &key_to_json(&IdentityKey::from_secret(
                        RecipientKind::User,
                        key_id,
                        secret,
                    )),
                    out.as_deref(),
                )
            }
        }
    }
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

/// `keyring new`: a keyring file with a fresh generation-0 key.
#[derive(Subcommand, Debug)]
pub enum KeyringCmd {
    /// Create a keyring file for a root stream with a random generation-0 key.
    New {
        /// The root stream id.
        #[arg(long)]
        root: String,
        /// Where to write it (it holds secret keys).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

impl KeyringCmd {
    pub fn run(&self) -> Outcome {
        let KeyringCmd::New { root, out } = self;
        let mut ring = Keyring::new(root.clone())?;
        ring.insert(0, StreamKey::generate()?)?;
        emit(&keyring_to_json(&ring)?, out.as_deref())
    }
}

/// `wrap`: wrap one generation of a keyring to a recipient's public key,
/// authenticated as made by the sender's key (HPKE auth mode, wrap format 2).
#[derive(Args, Debug)]
pub struct Wrap {
    /// The keyring file.
    #[arg(long)]
    keyring: String,
    /// The key file of the sender: the member making the wrap (from `keygen`).
    /// The recipient opens the wrap only if it accepts this key as a sender.
    #[arg(long)]
    from: String,
    /// The generation to wrap (default: the keyring's current one).
    #[arg(long)]
    generation: Option<u32>,
    /// The recipient's kind (`user` or `bot`).
    #[arg(long)]
    to_kind: String,
    /// The recipient's key id.
    #[arg(long)]
    to_key_id: String,
    /// The recipient's public key (44 characters of base64).
    #[arg(long)]
    to_public_key: String,
}

impl Wrap {
    pub fn run(&self) -> Outcome {
        let ring = read_keyring(&self.keyring)?;
        let generation = self
            .generation
            .or(ring.current_generation())
            .ok_or_else(|| Failure::usage("the keyring holds no key"))?;
        let recipient = Recipient {
            kind: RecipientKind::parse(&self.to_kind),
            key_id: KeyId::new(self.to_key_id.clone())?,
            public_key: PublicKey::from_base64(&self.to_public_key)?,
        };
        let sender = read_key(&self.from)?;
        let wrap = wrap_stream_key(
            ring.root_stream_id(),
            generation,
            ring.key(generation)?,
            &sender,
            &recipient,
        )?;
        emit(&serde_json::to_value(&wrap).unwrap_or_default(), None)
    }
}

/// `unwrap`: open a key wrap with a key file, into a keyring file, accepting
/// it only as made by the named sender.
#[derive(Args, Debug)]
pub struct Unwrap {
    /// The key file of the recipient.
    #[arg(long)]
    key: String,
    /// The kind of the sender whose wraps are accepted (`user` or `bot`).
    #[arg(long)]
    from_kind: String,
    /// The key id of the accepted sender.
    #[arg(long)]
    from_key_id: String,
    /// The public key of the accepted sender (44 characters of base64).
    /// A wrap made by any other key is refused (`UNTRUSTED_WRAP`).
    #[arg(long)]
    from_public_key: String,
    /// The root stream the wrap is for.
    #[arg(long)]
    root: String,
    /// The wrap JSON file, or `-` for standard input.
    #[arg(long)]
    wrap: String,
    /// Add the key to this keyring file (created if missing) instead of printing a new keyring.
    #[arg(long)]
    keyring: Option<PathBuf>,
}

impl Unwrap {
    pub fn run(&self) -> Outcome {
        let key = read_key(&self.key)?;
        let sender = Recipient {
            kind: RecipientKind::parse(&self.from_kind),
            key_id: KeyId::new(self.from_key_id.clone())?,
            public_key: PublicKey::from_base64(&self.from_public_key)?,
        };
        let wrap: KeyWrap = parse_as(&self.wrap, &read_text(&self.wrap)?)?;
        let opened = unwrap_stream_key(&self.root, &wrap, &[key], &[sender])?;
        let mut ring = match &self.keyring {
            Some(path) if path.exists() => read_keyring(&path.display().to_string())?,
            _ => Keyring::new(self.root.clone())?,
        };
        if ring.root_stream_id() != self.root {
            return Err(Failure::usage("the keyring belongs to another root stream"));
        }
        // Inserting raises the keyring's sealing generation when it is newer.
        ring.insert(wrap.key_generation, opened.key)?;
        emit(&keyring_to_json(&ring)?, self.keyring.as_deref())
    }
}

/// `seal`: a payload in a slot, with a keyring file, signed by its sender
/// (envelope version 2).
#[derive(Args, Debug)]
pub struct SealArgs {
    /// The keyring file.
    #[arg(long)]
    keyring: String,
    /// The key file of the sender (from `keygen`): it signs the payload, and
    /// the AAD names its kind and key id.
    #[arg(long)]
    from: String,
    /// The user or bot id the sender's key is registered as (e.g. `usr_...`).
    /// Where the slot names an author (a message, a reply, a note), it must be
    /// this id (`INVALID_FIELD` otherwise).
    #[arg(long = "as", value_name = "SUBJECT")]
    subject: String,
    /// The slot as JSON (`{"kind":"message","streamId":...}`), or `@FILE`.
    #[arg(long)]
    slot: String,
    /// The plaintext (default: standard input).
    #[arg(long)]
    text: Option<String>,
}

fn read_slot(arg: &str) -> Outcome<Slot> {
    let text = match arg.strip_prefix('@') {
        Some(path) => read_text(path)?,
        None => arg.to_owned(),
    };
    parse_as("--slot", &text)
}

impl SealArgs {
    pub fn run(&self) -> Outcome {
        let ring = read_keyring(&self.keyring)?;
        let key = read_key(&self.from)?;
        let signer = Signer::new(&self.subject, &key)?;
        let slot = read_slot(&self.slot)?;
        let text = match &self.text {
            Some(t) => t.clone(),
            None => read_text("-")?,
        };
        let sealed = seal(&ring, &signer, &slot, text.as_bytes())?;
        emit(&serde_json::to_value(&sealed).unwrap_or_default(), None)
    }
}

/// `open`: the plaintext of a sealed payload in its expected slot, signed by
/// the one sender it accepts.
#[derive(Args, Debug)]
pub struct OpenArgs {
    /// The keyring file.
    #[arg(long)]
    keyring: String,
    /// The slot the payload must be bound to, as JSON or `@FILE`.
    #[arg(long)]
    slot: String,
    /// The `{ciphertext, envelope}` JSON file, or `-` for standard input.
    #[arg(long, default_value = "-")]
    sealed: String,
    /// The user or bot id of the accepted sender (default: the slot's author,
    /// when the slot names one).
    #[arg(long, value_name = "SUBJECT")]
    from_subject: Option<String>,
    /// The kind of the accepted sender's key (`user` or `bot`).
    #[arg(long)]
    from_kind: String,
    /// The key id of the accepted sender.
    #[arg(long)]
    from_key_id: String,
    /// The public key of the accepted sender (44 characters of base64). A
    /// payload signed by any other key under this sender's name is
    /// `SENDER_MISMATCH`; one naming another sender is `UNKNOWN_KEY`.
    #[arg(long)]
    from_public_key: String,
    /// The accepted key was verified with its holder (safety number or
    /// fingerprint compared): report the sender as `verified`. Without it, a
    /// key taken from the command line is `unverified`.
    #[arg(long)]
    verified: bool,
    /// Print `{text, sealedBy, keyGeneration}` as JSON instead of the plaintext.
    #[arg(long)]
    json: bool,
}

impl OpenArgs {
    pub fn run(&self) -> Outcome {
        let ring = read_keyring(&self.keyring)?;
        let slot = read_slot(&self.slot)?;
        let subject = match (&self.from_subject, slot.author_id()) {
            (Some(subject), _) => subject.clone(),
            (None, Some(author)) => author.to_owned(),
            (None, None) => {
                return Err(Failure::usage(
                    "this slot names no author: say who sealed it with --from-subject",
                ));
            }
        };
        let sender = Recipient {
            kind: RecipientKind::parse(&self.from_kind),
            key_id: KeyId::new(self.from_key_id.clone())?,
            public_key: PublicKey::from_base64(&self.from_public_key)?,
        };
        let sealed = SealedPayload::from_json(&read_text(&self.sealed)?)?;
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let keys = if self.verified {
            // Pinned, then marked verified: as an app does once the safety
            // number matched.
            trust.observe(&subject, &sender)?;
            trust.verify(&subject, &sender)?;
            SenderKeys::new(&trust)
        } else {
            SenderKeys::new(&trust).with_presented(&subject, &sender)
        };
        let opened = open(&ring, &keys, &slot, &sealed)?;
        let by = &opened.sealed_by;
        let text = String::from_utf8_lossy(&opened.plaintext);
        if self.json {
            let out = json!({
                "text": text,
                "keyGeneration": opened.key_generation,
                "sealedBy": {
                    "subject": by.subject,
                    "kind": by.kind.as_str(),
                    "keyId": by.key_id,
                    "status": by.status.as_str(),
                },
            });
            return emit(&out, None);
        }
        eprintln!(
            "sealed by {} ({} key `{}`, generation {}): {}",
            by.subject,
            by.kind.as_str(),
            by.key_id,
            opened.key_generation,
            by.status.as_str()
        );
        println!("{text}");
        Ok(())
    }
}
