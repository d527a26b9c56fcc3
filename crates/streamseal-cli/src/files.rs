//! The CLI's own file formats: a key file and a keyring file. Both hold
//! secrets in base64 and exist only so the developer tools can pass keys
//! between commands; apps keep keys inside the library.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use streamseal::encoding::{decode_base64_array, encode_base64};
use streamseal::identity::{IdentityKey, KeyId, RecipientKind, SecretKey};
use streamseal::stream_key::{Keyring, StreamKey};

use crate::failure::{Failure, Outcome};

/// Reads a file, or standard input for `-`.
pub fn read_text(path: &str) -> Outcome<String> {
    if path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| Failure::io("standard input", e))
    } else {
        std::fs::read_to_string(path).map_err(|e| Failure::io(path, e))
    }
}

/// Parses JSON text into a value, naming the source in errors. An object
/// with a key twice, at any depth, is refused, as the library refuses it
/// in what the service sends (`streamseal::wire::parse_value`).
pub fn parse_json(source: &str, text: &str) -> Outcome<Value> {
    parse_as(source, text)
}

/// Deserialises JSON text into `T`, naming the source in errors (a key
/// twice refused, as by [`parse_json`]).
pub fn parse_as<T: serde::de::DeserializeOwned>(source: &str, text: &str) -> Outcome<T> {
    streamseal::wire::parse(text).map_err(|e| Failure {
        code: "MALFORMED_JSON".into(),
        message: format!("{source}: {e}"),
    })
}

/// Writes `value` pretty-printed to `out`, or standard output.
pub fn emit(value: &Value, out: Option<&Path>) -> Outcome {
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
    match out {
        Some(path) => std::fs::write(path, text).map_err(|e| Failure::io(path.display(), e)),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn field<'a>(value: &'a Value, source: &str, name: &str) -> Outcome<&'a str> {
    value
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Failure {
            code: "INVALID_FIELD".into(),
            message: format!("{source}: missing string field `{name}`"),
        })
}

/// `{kind, keyId, publicKey, secretKey}`.
pub fn key_to_json(key: &IdentityKey) -> Value {
    json!({
        "kind": key.kind().as_str(),
        "keyId": key.key_id().as_str(),
        "publicKey": key.public_key().to_base64(),
        "secretKey": encode_base64(key.secret_key().to_bytes().as_slice()),
    })
}

/// Reads a key file written by `keygen` or `bundle open`.
pub fn read_key(path: &str) -> Outcome<IdentityKey> {
    let value = parse_json(path, &read_text(path)?)?;
    let secret = decode_base64_array::<32>("secretKey", field(&value, path, "secretKey")?)?;
    let key = IdentityKey::from_secret(
        RecipientKind::parse(field(&value, path, "kind")?),
        KeyId::new(field(&value, path, "keyId")?)?,
        SecretKey::from_bytes(&secret),
    );
    if key.public_key().to_base64() != field(&value, path, "publicKey")? {
        return Err(streamseal::CryptoError::BundleKeyMismatch.into());
    }
    Ok(key)
}

/// `{rootStreamId, currentGeneration, keys: {generation: base64}}`.
/// `currentGeneration` is the newest generation held: a keyring seals under
/// it, and nothing lowers it.
pub fn keyring_to_json(ring: &Keyring) -> Outcome<Value> {
    let mut keys = BTreeMap::new();
    for generation in ring.generations() {
        keys.insert(
            generation.to_string(),
            encode_base64(ring.key(generation)?.to_bytes().as_slice()),
        );
    }
    Ok(json!({
        "rootStreamId": ring.root_stream_id(),
        "currentGeneration": ring.current_generation(),
        "keys": keys,
    }))
}

/// Reads a keyring file.
pub fn read_keyring(path: &str) -> Outcome<Keyring> {
    let value = parse_json(path, &read_text(path)?)?;
    let mut ring = Keyring::new(field(&value, path, "rootStreamId")?)?;
    let keys = value
        .get("keys")
        .and_then(Value::as_object)
        .ok_or_else(|| Failure {
            code: "INVALID_FIELD".into(),
            message: format!("{path}: missing object `keys`"),
        })?;
    for (generation, key) in keys {
        let generation: u32 = generation.parse().map_err(|_| Failure {
            code: "INVALID_FIELD".into(),
            message: format!("{path}: `{generation}` is not a key generation"),
        })?;
        let text = key.as_str().unwrap_or_default();
        ring.insert(
            generation,
            StreamKey::from_bytes(&decode_base64_array::<32>("keys", text)?),
        )?;
    }
    // The sealing generation is the newest key held; a file naming another
    // one (an edited file trying to seal under an older key, or a newer one
    // whose key it lacks) is refused rather than silently followed.
    if let Some(current) = value.get("currentGeneration").and_then(Value::as_u64) {
        let current = u32::try_from(current).map_err(|_| Failure {
            code: "INVALID_FIELD".into(),
            message: format!("{path}: currentGeneration out of range"),
        })?;
        if ring.current_generation() != Some(current) {
            return Err(Failure {
                code: "INVALID_FIELD".into(),
                message: format!(
                    "{path}: currentGeneration {current} is not the newest generation held"
                ),
            });
        }
    }
    Ok(ring)
}
