//! What a hostile server can make without any member's secret key, shared by
//! the hostile-server suite and the stream-state property tests.

use std::convert::Infallible;

use hpke::rand_core::{TryCryptoRng, TryRng};
use hpke::{Deserializable as _, OpModeS, Serializable as _};
use streamseal::encoding::encode_base64;
use streamseal::identity::Recipient;
use streamseal::stream_key::StreamKey;
use streamseal::wrap::{KeyWrap, wrap_info};

/// Serves hpke a fixed 32-byte seed (the ephemeral key material).
pub struct SeedRng(pub [u8; 32], pub usize);

impl TryRng for SeedRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for b in dst {
            *b = self.0[self.1 % 32];
            self.1 += 1;
        }
        Ok(())
    }
}

impl TryCryptoRng for SeedRng {}

/// What the server could mint before wrap format 2: an HPKE **base-mode**
/// wrap of `key` for `generation` of `root` (it needs only the recipient's
/// public key) whose `info` names `posing_as` as the sender, byte for byte as
/// a genuine wrap's would. `seed` is the ephemeral key material.
pub fn base_mode_wrap(
    root: &str,
    generation: u32,
    key: &StreamKey,
    posing_as: &Recipient,
    to: &Recipient,
    seed: [u8; 32],
) -> KeyWrap {
    type Kem = hpke::kem::X25519HkdfSha256;
    let info = wrap_info(
        root,
        generation,
        &to.kind,
        to.key_id.as_str(),
        &posing_as.kind,
        posing_as.key_id.as_str(),
    )
    .unwrap();
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(to.public_key.as_bytes()).unwrap();
    let (enc, ct) =
        hpke::single_shot_seal_with_rng::<hpke::aead::AesGcm256, hpke::kdf::HkdfSha256, Kem>(
            &OpModeS::Base,
            &pk,
            &info,
            key.to_bytes().as_slice(),
            b"",
            &mut SeedRng(seed, 0),
        )
        .unwrap();
    KeyWrap {
        key_generation: generation,
        recipient_key_id: Some(to.key_id.as_str().to_owned()),
        recipient_kind: Some(to.kind.clone()),
        wrap_enc: encode_base64(&enc.to_bytes()),
        wrap_ct: encode_base64(&ct),
        extra: Default::default(),
    }
}
