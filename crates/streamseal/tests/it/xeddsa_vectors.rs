//! XEdDSA (XEd25519) signatures of `streamseal::signature`, cross-checked
//! against an independent implementation: libxeddsa (C, on libsodium and
//! ref10) through its Python binding, the PyPI package `xeddsa`. The vectors
//! are in `tests/vectors/xeddsa/`; `tests/vectors/README.md` says how they
//! were made.
//!
//! - `libxeddsa_signatures.json` (made by libxeddsa): every signature
//!   verifies under its X25519 public key; signing the same message with the
//!   same key and the same 64 bytes `Z` reproduces it byte for byte (`Z`
//!   given through `hazmat::sign_with`, which is `signature::sign` drawing
//!   from the generator it is given); and each is refused with any one of its 512 bits flipped,
//!   under another case's key, and over another message.
//! - `streamseal_signatures_checked.json` (made by `signature::sign`, then
//!   verified by libxeddsa): libxeddsa's verdicts are all "verifies", and
//!   "refuses" for a flipped bit, another message and another key; the
//!   signatures are still the ones this code makes; and the small-order-key
//!   forgeries in it, refused by libxeddsa, are refused here too.
//!
//! Both implementations hash the clamped private key as it is (not reduced
//! mod q) into the nonce when the Edwards sign bit of `kB` is 0, as Signal's
//! own reference `xed25519_sign` does; the cases cover both sign bits, so a
//! byte-for-byte match holds on both branches of `calculate_key_pair`.
//!
//! To make `streamseal_signatures_checked.json` again (only when the set of
//! cases below changes):
//!
//! ```text
//! STREAMSEAL_XEDDSA_OUT=/tmp/ours.json cargo test -p streamseal \
//!     --test it xeddsa_vectors::libxeddsa_verified_our_signatures
//! python3 tests/vectors/xeddsa/generate.py check /tmp/ours.json \
//!     > tests/vectors/xeddsa/streamseal_signatures_checked.json
//! ```

use std::path::PathBuf;

use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::scalar::Scalar;
use serde_json::{Value, json};
use sha2::{Digest, Sha512};
use streamseal::ErrorCode;
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, RecipientKind, SecretKey};
use streamseal::signature::{self, NONCE_LEN, SIGNATURE_LEN, Signature};

fn load(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors/xeddsa")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn unhex(value: &Value) -> Vec<u8> {
    hex::decode(value.as_str().expect("hex string")).expect("hex")
}

fn unhex_array<const N: usize>(value: &Value) -> [u8; N] {
    unhex(value)
        .try_into()
        .unwrap_or_else(|v: Vec<u8>| panic!("expected {N} bytes, got {}", v.len()))
}

struct Case {
    id: String,
    private: [u8; 32],
    public: PublicKey,
    message: Vec<u8>,
    nonce: [u8; NONCE_LEN],
    signature: Signature,
}

impl Case {
    fn from_json(c: &Value) -> Case {
        Case {
            id: c["id"].to_string(),
            private: unhex_array(&c["private"]),
            public: PublicKey::from_bytes(unhex_array(&c["public"])),
            message: unhex(&c["message"]),
            nonce: unhex_array(&c["nonce"]),
            signature: Signature::from_bytes(unhex_array(&c["signature"])),
        }
    }

    fn key(&self) -> IdentityKey {
        IdentityKey::from_secret(
            RecipientKind::User,
            KeyId::new("key_vector").unwrap(),
            SecretKey::from_bytes(&self.private),
        )
    }
}

fn cases(doc: &Value) -> Vec<Case> {
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(Case::from_json)
        .collect()
}

/// `signature::sign` with `nonce` as the randomness it draws; asserts it
/// draws exactly the 64 bytes.
fn sign_with_nonce(key: &IdentityKey, message: &[u8], nonce: &[u8; NONCE_LEN]) -> Signature {
    {
        let mut rng = FixedRandomness::new(nonce);
        let signed = hazmat::sign_with(&mut rng, key, message).unwrap();
        assert_eq!(Some(rng.remaining()), Some(0), "sign draws exactly Z");
        signed
    }
}

fn refused_as(result: Result<(), streamseal::CryptoError>, code: ErrorCode, what: &str) {
    match result {
        Ok(()) => panic!("{what}: verified"),
        Err(e) => assert_eq!(e.code(), code, "{what}: {e}"),
    }
}

fn libxeddsa_cases() -> Vec<Case> {
    let doc = load("libxeddsa_signatures.json");
    assert_eq!(doc["source"]["package"], "xeddsa 1.2.0");
    let cases = cases(&doc);
    assert_eq!(cases.len(), 24);
    let bits: Vec<u64> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ed25519_sign_bit_of_kB"].as_u64().unwrap())
        .collect();
    assert!(bits.contains(&0) && bits.contains(&1), "both sign bits");
    cases
}

#[test]
fn verifies_every_libxeddsa_signature() {
    for case in libxeddsa_cases() {
        assert_eq!(case.key().public_key(), case.public, "case {}", case.id);
        signature::verify(&case.public, &case.message, &case.signature)
            .unwrap_or_else(|e| panic!("case {}: {e}", case.id));
    }
}

#[test]
fn reproduces_libxeddsa_signatures_byte_for_byte() {
    for case in libxeddsa_cases() {
        let ours = sign_with_nonce(&case.key(), &case.message, &case.nonce);
        assert_eq!(ours, case.signature, "case {}", case.id);
    }
}

/// Each `IdentityKey` derives its EdDSA key pair on its first signature
/// and keeps it (the clones made after share it): the signatures made with
/// the pair kept are libxeddsa's too, for keys of both sign bits, whatever
/// signed first with the object.
#[test]
fn reproduces_libxeddsa_signatures_with_the_key_pair_kept() {
    let cases = libxeddsa_cases();
    for case in &cases {
        let key = case.key();
        let before = format!("{key:?}");
        // Warm the object with another message and nonce first.
        let other = cases.iter().find(|c| c.id != case.id).expect("two cases");
        let _ = sign_with_nonce(&key, &other.message, &other.nonce);
        let kept = key.clone();
        for signer in [&key, &kept] {
            let ours = sign_with_nonce(signer, &case.message, &case.nonce);
            assert_eq!(ours, case.signature, "case {}", case.id);
        }
        assert_eq!(format!("{key:?}"), before, "the kept pair is never printed");
    }
}

#[test]
fn refuses_every_single_bit_flip() {
    let mut refused = 0;
    for case in libxeddsa_cases() {
        for bit in 0..SIGNATURE_LEN * 8 {
            let mut bytes = *case.signature.as_bytes();
            bytes[bit / 8] ^= 1 << (bit % 8);
            refused_as(
                signature::verify(&case.public, &case.message, &Signature::from_bytes(bytes)),
                ErrorCode::InvalidField,
                &format!("case {} bit {bit}", case.id),
            );
            refused += 1;
        }
    }
    assert_eq!(refused, 24 * 512);
}

#[test]
fn refuses_another_key_and_another_message() {
    let cases = libxeddsa_cases();
    for (i, case) in cases.iter().enumerate() {
        let other = &cases[(i + 1) % cases.len()];
        refused_as(
            signature::verify(&other.public, &case.message, &case.signature),
            ErrorCode::InvalidField,
            &format!("case {} under case {}'s key", case.id, other.id),
        );
        let mut longer = case.message.clone();
        longer.push(0);
        refused_as(
            signature::verify(&case.public, &longer, &case.signature),
            ErrorCode::InvalidField,
            &format!("case {} with a byte appended", case.id),
        );
        if let Some((last, rest)) = case.message.split_last() {
            refused_as(
                signature::verify(&case.public, rest, &case.signature),
                ErrorCode::InvalidField,
                &format!("case {} with its last byte dropped", case.id),
            );
            let mut changed = case.message.clone();
            *changed.last_mut().unwrap() = last ^ 0x80;
            refused_as(
                signature::verify(&case.public, &changed, &case.signature),
                ErrorCode::InvalidField,
                &format!("case {} with its last byte changed", case.id),
            );
        }
    }
}

/// The cases `signature::sign` makes for libxeddsa to verify: inputs from
/// SHA-512 of fixed labels, so that they are the same on every run.
fn label(text: &str) -> [u8; 64] {
    Sha512::digest(format!("streamseal xeddsa, made by streamseal: {text}")).into()
}

fn our_cases() -> Vec<Value> {
    [0usize, 1, 32, 64, 100, 255, 1000, 3]
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let private: [u8; 32] = label(&format!("key {i}"))[..32].try_into().unwrap();
            let nonce = label(&format!("nonce {i}"));
            let message: Vec<u8> = (0..len.div_ceil(64))
                .flat_map(|block| label(&format!("message {i} {block}")))
                .take(len)
                .collect();
            let key = IdentityKey::from_secret(
                RecipientKind::User,
                KeyId::new("key_vector").unwrap(),
                SecretKey::from_bytes(&private),
            );
            let signed = sign_with_nonce(&key, &message, &nonce);
            json!({
                "id": i,
                "private": hex::encode(private),
                "public": hex::encode(key.public_key().as_bytes()),
                "message": hex::encode(&message),
                "nonce": hex::encode(nonce),
                "signature": hex::encode(signed.as_bytes()),
            })
        })
        .collect()
}

/// Small-order public keys (u = 0, the point of order 2 in Edwards form,
/// and u = 1, of order 4) with signatures `R = rB, s = r` that need no
/// secret: the plain Ed25519 equation accepts about half of them for u = 0
/// and a quarter for u = 1, which is why `verify` refuses such keys first.
fn weak_key_forgeries() -> Vec<Value> {
    let mut one = [0u8; 32];
    one[0] = 1;
    let message = b"forged without any secret key";
    [("u = 0", [0u8; 32]), ("u = 1", one)]
        .iter()
        .flat_map(|(name, u)| {
            (1u64..=8).map(move |r| {
                let r = Scalar::from(r);
                let mut sig = [0u8; 64];
                sig[..32].copy_from_slice((r * ED25519_BASEPOINT_POINT).compress().as_bytes());
                sig[32..].copy_from_slice(r.as_bytes());
                json!({
                    "comment": name,
                    "public": hex::encode(u),
                    "message": hex::encode(message),
                    "signature": hex::encode(sig),
                })
            })
        })
        .collect()
}

/// Writes the input of `generate.py check` when `STREAMSEAL_XEDDSA_OUT`
/// names a file (see the module docs); the test below checks the committed
/// copy against the same cases either way.
fn emit_streamseal_signatures_if_asked() {
    let Some(out) = std::env::var_os("STREAMSEAL_XEDDSA_OUT") else {
        return;
    };
    let doc = json!({
        "made_by": {
            "implementation": "streamseal::signature::sign (xeddsa crate 1.1.0)",
            "test": "crates/streamseal/tests/it/xeddsa_vectors.rs libxeddsa_verified_our_signatures",
        },
        "cases": our_cases(),
        "weak_key_forgeries": weak_key_forgeries(),
    });
    std::fs::write(out, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
}

#[test]
fn libxeddsa_verified_our_signatures() {
    emit_streamseal_signatures_if_asked();
    let doc = load("streamseal_signatures_checked.json");
    assert_eq!(doc["checked_by"]["package"], "xeddsa 1.2.0");
    let checked = doc["cases"].as_array().unwrap();
    let fresh = our_cases();
    assert_eq!(checked.len(), fresh.len());
    let mut sign_bits = Vec::new();
    for (c, f) in checked.iter().zip(&fresh) {
        // The recorded signatures are the ones this code makes today.
        for field in ["private", "public", "message", "nonce", "signature"] {
            assert_eq!(c[field], f[field], "case {} {field}", c["id"]);
        }
        for verdict in [
            "libxeddsa_verifies",
            "libxeddsa_rejects_flipped_bit",
            "libxeddsa_rejects_other_message",
            "libxeddsa_rejects_other_key",
            "libxeddsa_reproduces_with_same_nonce",
        ] {
            assert_eq!(c[verdict], true, "case {} {verdict}", c["id"]);
        }
        sign_bits.push(c["ed25519_sign_bit_of_kB"].as_u64().unwrap());
        let case = Case::from_json(c);
        signature::verify(&case.public, &case.message, &case.signature).unwrap();
    }
    assert!(
        sign_bits.contains(&0) && sign_bits.contains(&1),
        "both sign bits"
    );

    let forgeries = doc["weak_key_forgeries"].as_array().unwrap();
    let fresh = weak_key_forgeries();
    // Why `verify` checks the key first: the pinned crate's own verify (the
    // plain Ed25519 equation) accepts some of these. If an upgrade makes it
    // refuse them all, this line and the docs of `signature` can go.
    let accepted_by_crate = fresh
        .iter()
        .filter(|f| {
            let sig: [u8; 64] = unhex_array(&f["signature"]);
            xeddsa::Verify::verify(
                &xeddsa::xed25519::PublicKey(unhex_array(&f["public"])),
                &unhex(&f["message"]),
                &sig,
            )
            .is_ok()
        })
        .count();
    assert!(accepted_by_crate > 0, "the crate alone accepts forgeries");
    assert_eq!(forgeries.len(), fresh.len());
    for (f, ours) in forgeries.iter().zip(&fresh) {
        for field in ["comment", "public", "message", "signature"] {
            assert_eq!(f[field], ours[field], "forgery {field}");
        }
        assert_eq!(f["libxeddsa_verifies"], false, "{f}");
        let public = PublicKey::from_bytes(unhex_array(&f["public"]));
        let sig = Signature::from_bytes(unhex_array(&f["signature"]));
        refused_as(
            signature::verify(&public, &unhex(&f["message"]), &sig),
            ErrorCode::InvalidPublicKey,
            &f["comment"].to_string(),
        );
    }
}

#[test]
fn refuses_small_order_and_non_canonical_keys() {
    let real = IdentityKey::generate(RecipientKind::User, KeyId::new("key_a").unwrap()).unwrap();
    let signed = signature::sign(&real, b"m").unwrap();
    signature::verify(&real.public_key(), b"m", &signed).unwrap();

    let le = |hex_be: &str| -> [u8; 32] {
        let mut b: [u8; 32] = hex::decode(hex_be).unwrap().try_into().unwrap();
        b.reverse();
        b
    };
    let p = "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed";
    let mut high_bit = *real.public_key().as_bytes();
    high_bit[31] |= 0x80;
    let refused: [(&str, [u8; 32]); 8] = [
        ("u = 0 (order 2 in Edwards form)", [0; 32]),
        ("u = 1 (order 4)", le(&format!("{:064x}", 1))),
        (
            "order 8",
            le("00b8495f16056286fdb1329ceb8d09da6ac49ff1fae35616aeb8413b7c7aebe0"),
        ),
        (
            "order 8",
            le("57119fd0dd4e22d8868e1c58c45c44045bef839c55b1d0b1248c50a3bc959c5f"),
        ),
        ("u = p - 1 (on the twist)", {
            let mut b = le(p);
            b[0] -= 1;
            b
        }),
        ("u = p (0, not canonical)", le(p)),
        ("u = p + 1 (1, not canonical)", {
            let mut b = le(p);
            b[0] += 1;
            b
        }),
        ("a real key with bit 255 set", high_bit),
    ];
    // Twice: the second time the key's conversion is kept, as refused.
    for _ in 0..2 {
        for (name, u) in refused {
            refused_as(
                signature::verify(&PublicKey::from_bytes(u), b"m", &signed),
                ErrorCode::InvalidPublicKey,
                name,
            );
            assert_eq!(
                signature::ed25519_public_key(&PublicKey::from_bytes(u))
                    .unwrap_err()
                    .code(),
                ErrorCode::InvalidPublicKey,
                "{name}"
            );
        }
    }
}

/// `signature::verify` converts each public key once and keeps it
/// (`CONVERTED_KEYS_KEPT`). Whatever it keeps, it accepts and refuses what
/// the `xeddsa` crate's own verify does: libxeddsa's signatures, each under
/// every case's key, with bits flipped, with `s + L`, over another
/// message; first as the store stands (the suite's other tests share it),
/// then with all these keys kept, then after more keys than it keeps
/// pushed them out.
#[test]
fn verify_is_the_crates_verify_with_each_conversion_kept() {
    use xeddsa::Verify as _;
    use xeddsa::xed25519;

    let cases = libxeddsa_cases();
    let mut signatures = Vec::new();
    for case in &cases {
        let sig = *case.signature.as_bytes();
        signatures.push((case.message.clone(), sig));
        let mut flipped = sig;
        flipped[7] ^= 0x10;
        signatures.push((case.message.clone(), flipped));
        let mut flipped = sig;
        flipped[40] ^= 0x01;
        signatures.push((case.message.clone(), flipped));
        // s + L: the same signature to a verify that skipped `s < L`.
        signatures.push((
            case.message.clone(),
            crate::support::malleated_s_plus_l(sig),
        ));
        let mut other = case.message.clone();
        other.push(0);
        signatures.push((other, sig));
    }
    let check = |round: &str| {
        let mut accepted = 0;
        for case in &cases {
            let crate_key = xed25519::PublicKey(*case.public.as_bytes());
            for (message, sig) in &signatures {
                let ours = signature::verify(&case.public, message, &Signature::from_bytes(*sig));
                let theirs = crate_key.verify(message, sig);
                assert_eq!(ours.is_ok(), theirs.is_ok(), "{round}: case {}", case.id);
                if let Err(e) = ours {
                    assert_eq!(e.code(), ErrorCode::InvalidField, "{round}");
                }
                accepted += usize::from(theirs.is_ok());
            }
        }
        // Each case's own signature, and nothing else.
        assert_eq!(accepted, cases.len(), "{round}");
    };
    check("as the store stands");
    check("all kept");
    for i in 0..signature::CONVERTED_KEYS_KEPT + 8 {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&(i as u64).to_le_bytes());
        let other = SecretKey::from_bytes(&seed).public_key();
        signature::verify(&other, b"m", &cases[0].signature).unwrap_err();
    }
    check("after more keys than are kept");
}

#[test]
fn signatures_travel_as_88_characters_of_base64() {
    let key = IdentityKey::generate(RecipientKind::Bot, KeyId::new("key_b").unwrap()).unwrap();
    let signed = signature::sign(&key, b"").unwrap();
    let text = signed.to_base64();
    assert_eq!(text.len(), signature::SIGNATURE_BASE64_LEN);
    assert_eq!(Signature::from_base64(&text).unwrap(), signed);
    assert!(format!("{signed:?}").contains(&text));

    // Fresh randomness each time: two signatures of one message differ.
    assert_ne!(signature::sign(&key, b"").unwrap(), signed);

    let short = &text[..84];
    assert_eq!(
        Signature::from_base64(short).unwrap_err().code(),
        ErrorCode::InvalidLength
    );
    // Non-canonical padding bits: the last character before "==" must
    // carry zero low bits.
    let mut bad = text.clone();
    bad.replace_range(85..86, if &text[85..86] == "B" { "C" } else { "B" });
    assert_eq!(
        Signature::from_base64(&bad).unwrap_err().code(),
        ErrorCode::MalformedBase64
    );
    // No randomness, no signature.
    let err = {
        let randomness = &[0u8; NONCE_LEN - 1];
        let mut rng = FixedRandomness::new(randomness);
        hazmat::sign_with(&mut rng, &key, b"m")
    };
    assert_eq!(err.unwrap_err().code(), ErrorCode::RandomnessUnavailable);
}
