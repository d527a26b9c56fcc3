//! Crypto core benchmarks (issue 8): envelope seal/open against the raw
//! `aes-gcm` crate at the same sizes, the sender's XEdDSA signature that
//! every seal makes and every open verifies (issue 16: envelope version 2),
//! HPKE wrap/unwrap of a stream key, and bundle unlock (Argon2id) at the
//! demo's and the library's parameters.
//!
//! Run with `cargo bench -p streamseal --bench crypto`; `cargo xtask bench`
//! runs it and puts the medians and ratios in `BENCHMARKS.md`.

// A benchmark's setup failing is a broken benchmark, not an input to handle:
// unwrap/expect/panic/indexing are the clearest way to say so (clippy.toml
// allows them in tests, which benches are not). criterion's macros generate undocumented
// public items.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::hint::black_box;
use std::time::Duration;

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use streamseal::bundle::{create_bundle, open_bundle};
use streamseal::envelope::{open, seal};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::signature;
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wrap::{unwrap_stream_key, wrap_stream_key};

const ROOT: &str = "stream_01J80000000000000000000010";
const AUTHOR: &str = "usr_01J80000000000000000000002";

/// The payload sizes of every seal/open row.
const SIZES: [(usize, &str); 4] = [
    (64, "64 B"),
    (1024, "1 KiB"),
    (64 * 1024, "64 KiB"),
    (1024 * 1024, "1 MiB"),
];

fn slot() -> Slot {
    Slot::Message {
        stream_id: ROOT.into(),
        message_id: "msg_01J80000000000000000000020".into(),
        author_id: AUTHOR.into(),
        author_type: "user".into(),
        revision: 1,
    }
}

/// The author's identity key: it signs every envelope sealed here.
fn author_key() -> IdentityKey {
    IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("author-laptop").unwrap(),
        SecretKey::from_bytes(&[5u8; 32]),
    )
}

/// An opener that pinned the author's key (on first use, unverified): the
/// common case of a member reading another member's message.
fn pinned(author: &IdentityKey) -> TrustStore {
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    trust.admit(AUTHOR, &Recipient::of(author)).unwrap();
    trust
}

fn keyring() -> (Keyring, [u8; 32]) {
    let bytes = [7u8; 32];
    let mut ring = Keyring::new(ROOT).unwrap();
    ring.insert(0, StreamKey::from_bytes(&bytes)).unwrap();
    (ring, bytes)
}

/// Shorter runs for the large sizes so the whole suite stays within minutes.
fn timing<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(30);
    g
}

fn envelope_vs_aes_gcm(c: &mut Criterion) {
    let (ring, key_bytes) = keyring();
    let slot = slot();
    let author = author_key();
    let signer = Signer::new(AUTHOR, &author).unwrap();
    let trust = pinned(&author);
    let keys = SenderKeys::new(&trust);
    let iv = [9u8; 12];
    let aad = [1u8; 100]; // about the length of a message slot's AAD
    for (size, label) in SIZES {
        let plaintext = vec![0x5au8; size];
        let mut g = timing(c, "seal");
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_with_input(BenchmarkId::new("envelope", label), &plaintext, |b, p| {
            b.iter(|| seal(&ring, &signer, &slot, black_box(p)).unwrap());
        });
        g.bench_with_input(BenchmarkId::new("aes-gcm", label), &plaintext, |b, p| {
            b.iter(|| {
                let cipher = Aes256Gcm::new(&key_bytes.into());
                cipher
                    .encrypt(
                        &Nonce::from(iv),
                        Payload {
                            msg: black_box(p),
                            aad: &aad,
                        },
                    )
                    .unwrap()
            });
        });
        g.finish();

        let sealed = seal(&ring, &signer, &slot, &plaintext).unwrap();
        let raw_ct = Aes256Gcm::new(&key_bytes.into())
            .encrypt(
                &Nonce::from(iv),
                Payload {
                    msg: &plaintext,
                    aad: &aad,
                },
            )
            .unwrap();
        let mut g = timing(c, "open");
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_with_input(BenchmarkId::new("envelope", label), &sealed, |b, s| {
            b.iter(|| open(&ring, &keys, &slot, black_box(s)).unwrap());
        });
        g.bench_with_input(BenchmarkId::new("aes-gcm", label), &raw_ct, |b, ct| {
            b.iter(|| {
                let cipher = Aes256Gcm::new(&key_bytes.into());
                cipher
                    .decrypt(
                        &Nonce::from(iv),
                        Payload {
                            msg: black_box(ct),
                            aad: &aad,
                        },
                    )
                    .unwrap()
            });
        });
        g.finish();
    }
}

/// The sender's signature alone, over a 1 KiB message: what every envelope
/// seal spends signing (XEdDSA over the AAD and the content) and every open
/// spends verifying, reported beside the 1 KiB envelope seal and open; and
/// verifying over 64 KiB, for the 64 KiB open's budget.
fn signature_sign_verify(c: &mut Criterion) {
    let author = author_key();
    let public = author.public_key();
    let message = vec![0x5au8; 1024];
    let signed = signature::sign(&author, &message).unwrap();
    let mut g = timing(c, "signature");
    g.throughput(Throughput::Bytes(1024));
    g.bench_function("sign 1 KiB", |b| {
        b.iter(|| signature::sign(&author, black_box(&message)).unwrap());
    });
    // The first signature of a key object (before 2026-11-29, every one):
    // it derives the key pair that the object (and its clones) keep for the
    // next. A new object each time, made outside the timing.
    g.bench_function("sign 1 KiB, first of a key object", |b| {
        b.iter_batched(
            author_key,
            |key| signature::sign(&key, black_box(&message)).unwrap(),
            BatchSize::SmallInput,
        );
    });
    g.bench_function("verify 1 KiB", |b| {
        b.iter(|| signature::verify(&public, black_box(&message), &signed).unwrap());
    });
    // Under a key whose Ed25519 form is not kept (before 2026-11-29, every
    // verify): twice as many signers as are kept, in turn, so that each
    // verify converts its key again.
    let signers: Vec<_> = (0..2 * signature::CONVERTED_KEYS_KEPT)
        .map(|_| {
            let key =
                IdentityKey::generate(RecipientKind::User, KeyId::new("signer").unwrap()).unwrap();
            let signed = signature::sign(&key, &message).unwrap();
            (key.public_key(), signed)
        })
        .collect();
    let mut next = signers.iter().cycle();
    g.bench_function("verify 1 KiB, a key not kept", |b| {
        b.iter(|| {
            let (public, signed) = next.next().unwrap();
            signature::verify(public, black_box(&message), signed).unwrap();
        });
    });
    // The 64 KiB open's budget compares it with AES-GCM plus this.
    let large = vec![0x5au8; 64 * 1024];
    let large_signed = signature::sign(&author, &large).unwrap();
    g.throughput(Throughput::Bytes(64 * 1024));
    g.bench_function("verify 64 KiB", |b| {
        b.iter(|| signature::verify(&public, black_box(&large), &large_signed).unwrap());
    });
    g.finish();
}

/// What a 64 KiB envelope open spends beyond AES-GCM, each part alone in
/// the same run: the strict base64 decode of the wire text (the codec in use,
/// and the `base64` crate it replaced), and zeroizing a 64 KiB buffer (what
/// dropping `envelope::open`'s plaintext costs).
fn open_parts(c: &mut Criterion) {
    use base64::Engine as _;
    use zeroize::Zeroize as _;
    let size = 64 * 1024;
    let (ring, _) = keyring();
    let author = author_key();
    let signer = Signer::new(AUTHOR, &author).unwrap();
    let sealed = seal(&ring, &signer, &slot(), &vec![0x5au8; size]).unwrap();
    let text = sealed.ciphertext.clone();
    let mut g = timing(c, "open_parts");
    g.throughput(Throughput::Bytes(size as u64));
    g.bench_function("base64 decode (streamseal::encoding)", |b| {
        b.iter(|| streamseal::encoding::decode_base64("ciphertext", black_box(&text)).unwrap());
    });
    g.bench_function("base64 decode (base64 crate)", |b| {
        b.iter(|| {
            base64::engine::general_purpose::STANDARD
                .decode(black_box(&text))
                .unwrap()
        });
    });
    let buffer = vec![0x5au8; size];
    g.bench_function("copy 64 KiB", |b| {
        b.iter(|| black_box(&buffer).clone());
    });
    g.bench_function("copy + zeroize 64 KiB", |b| {
        b.iter(|| {
            let mut copy = black_box(&buffer).clone();
            copy.zeroize();
            copy
        });
    });
    // What an open hands out now: a `Plaintext`, wiped 8 bytes per write on drop.
    g.bench_function("copy + Plaintext drop 64 KiB", |b| {
        b.iter(|| {
            drop(streamseal::plaintext::Plaintext::from_vec(
                black_box(&buffer).clone(),
            ))
        });
    });
    g.finish();
}

/// HPKE auth mode (wrap format v2): the owner's key wraps to the bot's, and
/// the bot opens it accepting the owner as the sender.
fn wrap_unwrap(c: &mut Criterion) {
    let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
    let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap()).unwrap();
    let recipient = Recipient::of(&bot);
    let key = StreamKey::from_bytes(&[3u8; 32]);
    let record = wrap_stream_key(ROOT, 0, &key, &owner, &recipient).unwrap();
    let mine = [bot];
    let senders = [Recipient::of(&owner)];
    let mut g = timing(c, "hpke");
    g.bench_function("wrap", |b| {
        b.iter(|| wrap_stream_key(ROOT, 0, black_box(&key), &owner, &recipient).unwrap());
    });
    g.bench_function("unwrap", |b| {
        b.iter(|| unwrap_stream_key(ROOT, black_box(&record), &mine, &senders).unwrap());
    });
    // A stream with four key distributors the caller accepts, the wrap made
    // by the last: each is tried in turn.
    let others: Vec<Recipient> = (0..3)
        .map(|i| {
            let key = IdentityKey::generate(
                RecipientKind::User,
                KeyId::new(format!("admin-{i}")).unwrap(),
            );
            Recipient::of(&key.unwrap())
        })
        .chain([Recipient::of(&owner)])
        .collect();
    g.bench_function("unwrap, the 4th of 4 senders", |b| {
        b.iter(|| unwrap_stream_key(ROOT, black_box(&record), &mine, &others).unwrap());
    });
    g.finish();
}

fn bundle_unlock(c: &mut Criterion) {
    let secret = SecretKey::generate().unwrap();
    let public = secret.public_key();
    let limits = KdfLimits::default();
    // The demo's OWASP-minimum parameters, and the library default
    // (m = 64 MiB, t = 3, p = 1, what `KdfParams::default()` gives).
    let cases = [
        (
            "m=19MiB t=2 p=1 (demo)",
            KdfParams::argon2id(19 * 1024, 2, 1),
        ),
        ("m=64MiB t=3 p=1 (default)", KdfParams::default()),
    ];
    let mut g = c.benchmark_group("bundle_unlock");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(4));
    for (label, params) in cases {
        let bundle = create_bundle(&secret, "correct horse battery staple", &params).unwrap();
        g.bench_function(label, |b| {
            b.iter(|| {
                open_bundle(
                    &public,
                    black_box(&bundle),
                    "correct horse battery staple",
                    &limits,
                )
                .unwrap()
            });
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    envelope_vs_aes_gcm,
    signature_sign_verify,
    open_parts,
    wrap_unwrap,
    bundle_unlock
);
criterion_main!(benches);
