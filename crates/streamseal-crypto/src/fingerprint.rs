//! Fingerprints of identity keys and safety numbers, after Signal's numeric
//! fingerprints.
//!
//! The server hands out every public key. Trust on first use (see
//! [`crate::trust`]) notices a key that changes later, but the first key seen
//! is only the server's word. Two people close that gap by comparing a
//! **safety number** over another channel (side by side, on a call): if the
//! numbers match, each holds the key the other really has.
//!
//! ```text
//! h0 = SHA-512("streamseal/fingerprint" || u8 version || u16-be len(subject)
//!              || subject (UTF-8) || public key (32 bytes))
//! h  = SHA-512(h || public key), 5200 times
//! fingerprint digits = first 30 bytes of h as six 5-byte big-endian chunks,
//!                      each mod 100000, zero-padded to 5 digits   (30 digits)
//! safety number      = both parties' 30 digits, the smaller string first (60 digits)
//! scannable form     = "streamseal/safety-number" || u8 version
//!                      || local fingerprint bytes (first 32 bytes of h)
//!                      || remote fingerprint bytes
//! ```
//!
//! The subject (a user id `usr_...` or a bot id `bot_...`, 1 to 1024 bytes)
//! is hashed in, so the same key shown for another subject gives another
//! fingerprint. The iterations make searching for a key whose fingerprint
//! collides with a given one slower by that factor.
//!
//! ```
//! use streamseal_crypto::fingerprint::{fingerprint, safety_number};
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//!
//! let alice = IdentityKey::generate(RecipientKind::User, KeyId::new("key_laptop")?)?;
//! let bob = IdentityKey::generate(RecipientKind::User, KeyId::new("key_phone")?)?;
//!
//! // One key's fingerprint: 30 digits, shown in groups of five.
//! let print = fingerprint("usr_alice", &alice.public_key())?;
//! assert_eq!(print.digits().len(), 30);
//! assert_eq!(print.display().len(), 35);
//!
//! // Each side computes the safety number from its own point of view...
//! let on_alice = safety_number("usr_alice", &alice.public_key(), "usr_bob", &bob.public_key())?;
//! let on_bob = safety_number("usr_bob", &bob.public_key(), "usr_alice", &alice.public_key())?;
//! // ...and both get the same 60 digits.
//! assert_eq!(on_alice.digits(), on_bob.digits());
//!
//! // Bob scans the code Alice's screen shows, or types the digits she reads out.
//! assert!(on_bob.matches_scanned(&on_alice.scannable())?);
//! assert!(on_bob.matches_digits(&on_alice.display()));
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use sha2::{Digest, Sha512};
use subtle::ConstantTimeEq;

use crate::codec;
use crate::error::{CryptoError, CryptoResult};
use crate::identity::PublicKey;

/// Version of the fingerprint and safety-number format, hashed into every
/// fingerprint and carried in the scannable form.
pub const FINGERPRINT_VERSION: u8 = 1;
/// How many times the hash is iterated over the public key.
pub const FINGERPRINT_ITERATIONS: u32 = 5200;
/// Digits in one key's fingerprint.
pub const FINGERPRINT_DIGITS: usize = 30;
/// Digits in a safety number (two fingerprints).
pub const SAFETY_NUMBER_DIGITS: usize = 2 * FINGERPRINT_DIGITS;
/// Bytes of one fingerprint in the scannable form.
pub const FINGERPRINT_BYTES: usize = 32;
/// Length of the scannable form of a safety number, in bytes.
pub const SCANNABLE_LEN: usize = SAFETY_NUMBER_LABEL.len() + 1 + 2 * FINGERPRINT_BYTES;

const FINGERPRINT_LABEL: &[u8] = b"streamseal/fingerprint";
const SAFETY_NUMBER_LABEL: &[u8] = b"streamseal/safety-number";
const GROUP: usize = 5;

/// The fingerprint of one subject's public key.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fingerprint {
    digits: String,
    bytes: [u8; FINGERPRINT_BYTES],
}

impl Fingerprint {
    /// The 30 digits, without separators.
    pub fn digits(&self) -> &str {
        &self.digits
    }

    /// The digits in six groups of five separated by single spaces, for display.
    pub fn display(&self) -> String {
        grouped(&self.digits)
    }

    /// The first 32 bytes of the iterated hash: what the scannable form of a
    /// safety number carries for this key.
    pub fn as_bytes(&self) -> &[u8; FINGERPRINT_BYTES] {
        &self.bytes
    }
}

/// Computes the fingerprint of `key` as the key of `subject` (a user or bot id,
/// 1 to 1024 bytes; anything else is `INVALID_LENGTH`).
///
/// # Errors
///
/// `INVALID_LENGTH` when `subject` is empty or over 1024 bytes.
pub fn fingerprint(subject: &str, key: &PublicKey) -> CryptoResult<Fingerprint> {
    codec::check_str("subject", subject)?;
    let len = u16::try_from(subject.len())
        .map_err(|_| CryptoError::length("subject", "1..=1024 bytes", subject.len()))?;
    let mut h: [u8; 64] = Sha512::new()
        .chain_update(FINGERPRINT_LABEL)
        .chain_update([FINGERPRINT_VERSION])
        .chain_update(len.to_be_bytes())
        .chain_update(subject.as_bytes())
        .chain_update(key.as_bytes())
        .finalize()
        .into();
    for _ in 0..FINGERPRINT_ITERATIONS {
        h = Sha512::new()
            .chain_update(h)
            .chain_update(key.as_bytes())
            .finalize()
            .into();
    }
    let mut digits = String::with_capacity(FINGERPRINT_DIGITS);
    for chunk in h.chunks_exact(5).take(FINGERPRINT_DIGITS / GROUP) {
        let value = chunk.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        digits.push_str(&format!("{:05}", value % 100_000));
    }
    let mut bytes = [0u8; FINGERPRINT_BYTES];
    bytes.iter_mut().zip(h.iter()).for_each(|(d, s)| *d = *s);
    Ok(Fingerprint { digits, bytes })
}

/// The safety number of a conversation between two keys, as one side sees it.
///
/// Both sides get the same [`digits`](SafetyNumber::digits); the
/// [`scannable`](SafetyNumber::scannable) form differs (it names which key is
/// whose), so that a side scanning its own screen does not match. Two values
/// compare equal with `==` only when computed from the same side's view;
/// compare across sides with [`matches_scanned`](SafetyNumber::matches_scanned)
/// or [`matches_digits`](SafetyNumber::matches_digits).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SafetyNumber {
    digits: String,
    local: [u8; FINGERPRINT_BYTES],
    remote: [u8; FINGERPRINT_BYTES],
}

/// Computes the safety number between the caller's key (`local_key`, as the
/// key of `local_subject`) and the other party's (`remote_key` of `remote_subject`).
///
/// Subjects are 1 to 1024 bytes (else `INVALID_LENGTH`).
///
/// # Errors
///
/// `INVALID_LENGTH` when a subject is empty or over 1024 bytes.
pub fn safety_number(
    local_subject: &str,
    local_key: &PublicKey,
    remote_subject: &str,
    remote_key: &PublicKey,
) -> CryptoResult<SafetyNumber> {
    let local = fingerprint(local_subject, local_key)?;
    let remote = fingerprint(remote_subject, remote_key)?;
    let (first, second) = if local.digits <= remote.digits {
        (&local.digits, &remote.digits)
    } else {
        (&remote.digits, &local.digits)
    };
    let mut digits = String::with_capacity(SAFETY_NUMBER_DIGITS);
    digits.push_str(first);
    digits.push_str(second);
    Ok(SafetyNumber {
        digits,
        local: local.bytes,
        remote: remote.bytes,
    })
}

impl SafetyNumber {
    /// The 60 digits, without separators; the same on both sides.
    pub fn digits(&self) -> &str {
        &self.digits
    }

    /// The digits in twelve groups of five separated by single spaces, for display.
    pub fn display(&self) -> String {
        grouped(&self.digits)
    }

    /// The payload of the QR code this side shows:
    /// `"streamseal/safety-number" || u8 version || local fingerprint (32 bytes)
    /// || remote fingerprint (32 bytes)`.
    pub fn scannable(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SCANNABLE_LEN);
        out.extend_from_slice(SAFETY_NUMBER_LABEL);
        out.push(FINGERPRINT_VERSION);
        out.extend_from_slice(&self.local);
        out.extend_from_slice(&self.remote);
        out
    }

    /// Whether `scanned`, the payload of the other side's QR code, shows the
    /// same two keys: its local key is this side's remote key and its remote
    /// key this side's local key. Compared in constant time.
    ///
    /// A payload that is not a safety number (wrong label) or names another
    /// version is `INVALID_FIELD`; one of the wrong length is `INVALID_LENGTH`.
    /// This side's own payload does not match (unless both keys have the same
    /// fingerprint).
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` when `scanned` is not a streamseal safety number of this
    /// version; `INVALID_LENGTH` when it has the wrong length.
    pub fn matches_scanned(&self, scanned: &[u8]) -> CryptoResult<bool> {
        let rest = scanned.strip_prefix(SAFETY_NUMBER_LABEL).ok_or_else(|| {
            CryptoError::invalid("safetyNumber", "not a streamseal safety number")
        })?;
        let (&version, rest) = rest
            .split_first()
            .ok_or_else(|| CryptoError::length("safetyNumber", SCANNABLE_LEN, scanned.len()))?;
        if version != FINGERPRINT_VERSION {
            return Err(CryptoError::invalid(
                "safetyNumber",
                format!("unsupported safety number version {version}"),
            ));
        }
        let (their_local, their_remote) = rest
            .split_first_chunk::<FINGERPRINT_BYTES>()
            .and_then(|(local, tail)| {
                <&[u8; FINGERPRINT_BYTES]>::try_from(tail)
                    .ok()
                    .map(|remote| (local, remote))
            })
            .ok_or_else(|| CryptoError::length("safetyNumber", SCANNABLE_LEN, scanned.len()))?;
        let same = their_local.as_slice().ct_eq(self.remote.as_slice())
            & their_remote.as_slice().ct_eq(self.local.as_slice());
        Ok(bool::from(same))
    }

    /// Whether `typed` (digits the user typed or pasted) is this safety
    /// number. ASCII whitespace (the spaces between groups, line breaks) is
    /// ignored; the digits are compared in constant time.
    pub fn matches_digits(&self, typed: &str) -> bool {
        let typed: Vec<u8> = typed.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        bool::from(typed.as_slice().ct_eq(self.digits.as_bytes()))
    }
}

/// `digits` in groups of [`GROUP`] separated by single spaces.
fn grouped(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / GROUP);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && i % GROUP == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    /// Key A: bytes 0, 1, ..., 31. Key B: bytes 32, 33, ..., 63.
    fn key_a() -> PublicKey {
        PublicKey::from_bytes(std::array::from_fn(|i| u8::try_from(i).unwrap()))
    }

    fn key_b() -> PublicKey {
        PublicKey::from_bytes(std::array::from_fn(|i| u8::try_from(i + 32).unwrap()))
    }

    #[test]
    fn fingerprint_is_deterministic_and_shaped() {
        let one = fingerprint("usr_alice", &key_a()).unwrap();
        let two = fingerprint("usr_alice", &key_a()).unwrap();
        assert_eq!(one, two);
        assert_eq!(one.digits().len(), FINGERPRINT_DIGITS);
        assert!(one.digits().bytes().all(|b| b.is_ascii_digit()));
        let shown = one.display();
        assert_eq!(shown.split(' ').count(), 6);
        assert!(shown.split(' ').all(|g| g.len() == 5));
        assert_eq!(shown.replace(' ', ""), one.digits());
    }

    #[test]
    fn subject_and_key_are_domain_separated() {
        let base = fingerprint("usr_alice", &key_a()).unwrap();
        assert_ne!(base, fingerprint("usr_alicf", &key_a()).unwrap());
        assert_ne!(base, fingerprint("bot_alice", &key_a()).unwrap());
        assert_ne!(base, fingerprint("usr_alice", &key_b()).unwrap());
        assert_ne!(
            base.digits(),
            fingerprint("usr_alicf", &key_a()).unwrap().digits()
        );
        assert_ne!(
            base.as_bytes(),
            fingerprint("usr_alicf", &key_a()).unwrap().as_bytes()
        );
    }

    #[test]
    fn subject_bounds() {
        assert_eq!(
            fingerprint("", &key_a()).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
        assert!(fingerprint(&"u".repeat(1024), &key_a()).is_ok());
        assert_eq!(
            fingerprint(&"u".repeat(1025), &key_a()).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
        assert_eq!(
            safety_number("usr_a", &key_a(), "", &key_b())
                .unwrap_err()
                .code(),
            ErrorCode::InvalidLength
        );
    }

    // Expected values from an independent implementation (Python's hashlib):
    //
    // import hashlib
    // def fp(subject, key):
    //     s = subject.encode()
    //     h = hashlib.sha512(b"streamseal/fingerprint" + bytes([1])
    //                        + len(s).to_bytes(2, "big") + s + key).digest()
    //     for _ in range(5200):
    //         h = hashlib.sha512(h + key).digest()
    //     digits = "".join("%05d" % (int.from_bytes(h[i*5:i*5+5], "big") % 100000)
    //                      for i in range(6))
    //     return digits, h[:32]
    // a, b = bytes(range(32)), bytes(range(32, 64))
    // da, ba = fp("usr_alice", a)
    // db, bb = fp("bot_helper", b)
    // print(da, ba.hex())
    // print(db, bb.hex())
    // print("".join(sorted([da, db])))
    #[test]
    fn fingerprint_matches_independent_implementation() {
        let a = fingerprint("usr_alice", &key_a()).unwrap();
        assert_eq!(a.digits(), "235358755220541983096589731986");
        assert_eq!(
            hex::encode(a.as_bytes()),
            "681f72ea2f0d74ffabc05889c0907de25785d8254160244ca9c6a32e1972f387"
        );
        let b = fingerprint("bot_helper", &key_b()).unwrap();
        assert_eq!(b.digits(), "953935061911674412904992007274");
        assert_eq!(
            hex::encode(b.as_bytes()),
            "e9e3a620e1100275ca1b154fb0fa3a638d5551ead911ff5740fb164c8e8ad02e"
        );
    }

    #[test]
    fn safety_number_matches_independent_implementation() {
        let n = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        assert_eq!(
            n.digits(),
            "235358755220541983096589731986953935061911674412904992007274"
        );
    }

    #[test]
    fn both_sides_get_the_same_number() {
        let on_a = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        let on_b = safety_number("bot_helper", &key_b(), "usr_alice", &key_a()).unwrap();
        assert_eq!(on_a.digits(), on_b.digits());
        assert_eq!(on_a.digits().len(), SAFETY_NUMBER_DIGITS);
        assert_eq!(on_a.display(), on_b.display());
        assert_eq!(on_a.display().split(' ').count(), 12);
        // The sides' views differ: each names its own key first.
        assert_ne!(on_a, on_b);
        assert_ne!(on_a.scannable(), on_b.scannable());
        // Deterministic.
        assert_eq!(
            on_a,
            safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap()
        );
    }

    #[test]
    fn swapping_keys_between_subjects_changes_the_number() {
        let right = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        let swapped = safety_number("usr_alice", &key_b(), "bot_helper", &key_a()).unwrap();
        assert_ne!(right.digits(), swapped.digits());
        assert!(!right.matches_digits(swapped.digits()));
        let on_b_swapped = safety_number("bot_helper", &key_a(), "usr_alice", &key_b()).unwrap();
        assert!(!right.matches_scanned(&on_b_swapped.scannable()).unwrap());
    }

    #[test]
    fn scanned_payload_matches_only_from_the_other_side() {
        let on_a = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        let on_b = safety_number("bot_helper", &key_b(), "usr_alice", &key_a()).unwrap();
        assert_eq!(on_a.scannable().len(), SCANNABLE_LEN);
        assert!(on_a.matches_scanned(&on_b.scannable()).unwrap());
        assert!(on_b.matches_scanned(&on_a.scannable()).unwrap());
        // Scanning one's own screen does not match.
        assert!(!on_a.matches_scanned(&on_a.scannable()).unwrap());
        // Any one-byte change in either fingerprint does not match.
        let good = on_b.scannable();
        for i in SAFETY_NUMBER_LABEL.len() + 1..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x01;
            assert!(!on_a.matches_scanned(&bad).unwrap(), "byte {i}");
        }
    }

    #[test]
    fn symmetric_number_matches_its_own_payload() {
        // The same key under the same subject on both sides (a degenerate case).
        let n = safety_number("usr_alice", &key_a(), "usr_alice", &key_a()).unwrap();
        assert!(n.matches_scanned(&n.scannable()).unwrap());
    }

    #[test]
    fn scanned_payload_is_parsed_strictly() {
        let on_a = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        let good = safety_number("bot_helper", &key_b(), "usr_alice", &key_a())
            .unwrap()
            .scannable();
        let code = |bytes: &[u8]| on_a.matches_scanned(bytes).unwrap_err().code();

        let mut label = good.clone();
        label[0] ^= 0x20;
        assert_eq!(code(&label), ErrorCode::InvalidField);
        let mut version = good.clone();
        version[SAFETY_NUMBER_LABEL.len()] = 2;
        assert_eq!(code(&version), ErrorCode::InvalidField);
        assert_eq!(code(&good[..good.len() - 1]), ErrorCode::InvalidLength);
        assert_eq!(
            code(&good[..SAFETY_NUMBER_LABEL.len()]),
            ErrorCode::InvalidLength
        );
        assert_eq!(
            code(&good[..SAFETY_NUMBER_LABEL.len() + 1]),
            ErrorCode::InvalidLength
        );
        let mut long = good.clone();
        long.push(0);
        assert_eq!(code(&long), ErrorCode::InvalidLength);
        assert_eq!(code(b""), ErrorCode::InvalidField);
        assert_eq!(code(&good[1..]), ErrorCode::InvalidField);
    }

    #[test]
    fn typed_digits_compare_ignoring_spaces() {
        let on_a = safety_number("usr_alice", &key_a(), "bot_helper", &key_b()).unwrap();
        assert!(on_a.matches_digits(on_a.digits()));
        assert!(on_a.matches_digits(&on_a.display()));
        assert!(on_a.matches_digits(&format!(" {}\n", on_a.display())));
        // One digit off, one missing, one extra.
        let mut off = on_a.digits().as_bytes().to_vec();
        off[59] = if off[59] == b'0' { b'1' } else { b'0' };
        assert!(!on_a.matches_digits(std::str::from_utf8(&off).unwrap()));
        assert!(!on_a.matches_digits(&on_a.digits()[..59]));
        assert!(!on_a.matches_digits(&format!("{}0", on_a.digits())));
        assert!(!on_a.matches_digits(""));
    }
}
