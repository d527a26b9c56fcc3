//! Bundle open (`bundle::open_bundle`, `sealed::user_key::unlock`): the
//! passphrase-protected private key of `GET me/e2e-key`.
//!
//! Argon2 is capped: every open uses `KdfLimits` of at most m = 16 KiB,
//! t = 1, p = 2, so a record asking for more is refused before any work
//! (`KDF_PARAMS_OUT_OF_BOUNDS`) and the fuzzer never waits in the KDF.
//!
//! Mode 0: an `OwnKey` or `SealedBundle` JSON text (seeds: the own_key
//! fixture and `bundles.json`'s records). Round-trip oracle; opened with
//! the record's own parameters (capped) and again with them forced to
//! m = 8, t = 1, p = 1 so that AES-GCM is reached.
//! Mode 1: a bundle sealed once with m = 8, t = 1, p = 1 (the secret and
//! passphrase of `bundles.json`), edited (bytes, salt, parameters,
//! passphrase, public key). It opens only unedited, to the same secret.
//!
//! `create_bundle` refuses anything below the creation floor (m = 19 MiB,
//! t = 2), which would make every execution wait in Argon2; the bundle is
//! sealed with `hazmat::seal_bundle_below_floor_with` instead (the same sealing with
//! only the caps on opening checked): it stands for a record made before the
//! floor existed, which opening must still accept. The harness only opens.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::bundle::{SealedBundle, open_bundle};
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::SecretKey;
use streamseal::kdf::{KdfLimits, KdfParams, passphrase_bytes};
use streamseal::sealed::user_key::unlock;
use streamseal::wire::keys::OwnKey;
use streamseal_fuzz::{ByteEdit, edit, hex32, json_round_trip, mode};

const PASSPHRASE: &str = "correct horse battery staple";
const SECRET: &str = "707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f";

fn capped() -> KdfLimits {
    KdfLimits {
        max_m: 16,
        max_t: 1,
        max_p: 2,
        ..KdfLimits::default()
    }
}

fn small() -> KdfParams {
    KdfParams::argon2id(8, 1, 1)
}

fn sealed_once() -> &'static Option<(SecretKey, SealedBundle)> {
    static B: OnceLock<Option<(SecretKey, SealedBundle)>> = OnceLock::new();
    B.get_or_init(|| {
        let secret = SecretKey::from_bytes(&hex32(SECRET));
        let randomness: Vec<u8> = (0xd0..0xd0 + 28).collect();
        let bundle = hazmat::seal_bundle_below_floor_with(
            &mut FixedRandomness::new(&randomness),
            &secret,
            PASSPHRASE,
            &small(),
        );
        bundle.ok().map(|b| (secret, b))
    })
}

#[derive(Arbitrary, Debug)]
enum Passphrase {
    Right,
    Decomposed,
    Other(String),
}

#[derive(Arbitrary, Debug)]
struct Structured {
    bundle_edits: Vec<ByteEdit>,
    salt_edits: Vec<ByteEdit>,
    m: Option<u8>,
    t: Option<u8>,
    p: Option<u8>,
    passphrase: Passphrase,
    other_public_key: Option<[u8; 32]>,
}

fn json_mode(text: &str) {
    let Some((secret, _)) = sealed_once() else {
        return;
    };
    let public = secret.public_key();
    if let Ok(record) = serde_json::from_str::<OwnKey>(text) {
        json_round_trip("OwnKey", &record);
        let _ = record.kdf_params.check(&KdfLimits::default());
        if let Ok(me) = unlock(&record, PASSPHRASE, &capped()) {
            assert_eq!(
                me.public_key(),
                record.public_key,
                "unlocked to another key"
            );
        }
        let forced = OwnKey {
            kdf_params: small(),
            ..record
        };
        if let Ok(me) = unlock(&forced, PASSPHRASE, &capped()) {
            assert_eq!(
                me.public_key(),
                forced.public_key,
                "unlocked to another key"
            );
        }
    }
    if let Ok(bundle) = serde_json::from_str::<SealedBundle>(text) {
        json_round_trip("SealedBundle", &bundle);
        let _ = bundle.kdf_params.check(&KdfLimits::default());
        for candidate in [
            bundle.clone(),
            SealedBundle {
                kdf_params: small(),
                ..bundle
            },
        ] {
            if let Ok(opened) = open_bundle(&public, &candidate, PASSPHRASE, &capped()) {
                assert_eq!(opened.public_key(), public, "opened to another key");
            }
        }
    }
}

fn structured_mode(input: Structured) {
    let Some((secret, original)) = sealed_once() else {
        return;
    };
    let mut bytes = decode_base64("b", &original.encrypted_private_bundle).unwrap_or_default();
    let mut salt = decode_base64("s", &original.kdf_salt).unwrap_or_default();
    let (bytes0, salt0) = (bytes.clone(), salt.clone());
    edit(&mut bytes, &input.bundle_edits);
    edit(&mut salt, &input.salt_edits);
    let params = KdfParams::argon2id(
        input.m.map_or(8, u32::from),
        input.t.map_or(1, u32::from),
        input.p.map_or(1, u32::from),
    );
    let bundle = SealedBundle {
        encrypted_private_bundle: encode_base64(&bytes),
        kdf_salt: encode_base64(&salt),
        kdf_params: params.clone(),
    };
    let passphrase = match &input.passphrase {
        Passphrase::Right => PASSPHRASE.to_owned(),
        // Unicode NFD of a passphrase with accents; NFC makes it another
        // spelling of the same bytes only if the text is the same.
        Passphrase::Decomposed => "correct horse battery staple\u{301}".to_owned(),
        Passphrase::Other(s) => s.clone(),
    };
    let public = input.other_public_key.map_or_else(
        || secret.public_key(),
        |b| SecretKey::from_bytes(&b).public_key(),
    );
    let unchanged = bytes == bytes0
        && salt == salt0
        && params == small()
        && *passphrase_bytes(&passphrase) == *passphrase_bytes(PASSPHRASE)
        && public == secret.public_key();
    match open_bundle(&public, &bundle, &passphrase, &capped()) {
        Ok(opened) => {
            assert!(unchanged, "an edited bundle opened");
            assert_eq!(*opened.to_bytes(), *secret.to_bytes());
        }
        Err(e) => assert!(!unchanged, "an untouched bundle did not open: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    if m % 2 == 0 {
        if let Ok(text) = std::str::from_utf8(rest) {
            json_mode(text);
        }
    } else if let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) {
        structured_mode(input);
    }
});
