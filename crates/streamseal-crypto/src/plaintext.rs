//! Decrypted plaintexts: owned bytes, wiped when dropped.
//!
//! A [`Plaintext`] is what opening an envelope hands out: the content where
//! AES-GCM decrypted it (inside the buffer the ciphertext was decoded into,
//! with no move to its front), readable as `&[u8]`. When it is dropped the
//! whole allocation is wiped, spare capacity included, with 8-byte volatile
//! writes (zeroize over the buffer viewed as `u64` words; the bytes that do
//! not fill a word one by one): a 64 KiB plaintext is wiped in an eighth of
//! the writes `Zeroizing<Vec<u8>>` makes (BENCHMARKS.md, "What a 64 KiB
//! envelope open spends").
//!
//! ```
//! use streamseal_crypto::plaintext::Plaintext;
//!
//! let text = Plaintext::from_vec(b"ship it".to_vec());
//! assert_eq!(&*text, b"ship it");
//! assert_eq!(format!("{text:?}"), "Plaintext([redacted; 7 bytes])");
//! let owned = text.into_zeroizing(); // the caller's to wipe (on drop) from here
//! assert_eq!(owned.as_slice(), b"ship it");
//! ```

use std::fmt;
use std::ops::{Deref, Range};

use zeroize::{Zeroize, Zeroizing};

/// Decrypted bytes, wiped on drop (see the module docs). Never printed:
/// `Debug` shows only the length.
pub struct Plaintext {
    buffer: Vec<u8>,
    range: Range<usize>,
}

impl Plaintext {
    /// Takes `bytes` over as a plaintext (wiped when dropped).
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        let range = 0..bytes.len();
        Self {
            buffer: bytes,
            range,
        }
    }

    /// The bytes of `buffer` in `range` (clamped to it) as the plaintext;
    /// the whole buffer is wiped when it is dropped.
    pub(crate) fn within(buffer: Vec<u8>, range: Range<usize>) -> Self {
        let end = range.end.min(buffer.len());
        let start = range.start.min(end);
        Self {
            buffer,
            range: start..end,
        }
    }

    /// The plaintext's bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.buffer.get(self.range.clone()).unwrap_or_default()
    }

    /// The plaintext in a buffer of its own length, for callers that keep
    /// a `Zeroizing<Vec<u8>>` (which wipes it on drop from then on). The
    /// bytes move to the front of the buffer they are in; no copy is left
    /// behind unwiped.
    pub fn into_zeroizing(mut self) -> Zeroizing<Vec<u8>> {
        let mut buffer = Zeroizing::new(std::mem::take(&mut self.buffer));
        let range = std::mem::replace(&mut self.range, 0..0);
        if range.start > 0 {
            buffer.copy_within(range.clone(), 0);
        }
        // What lies past the plaintext (the tag, a moved tail) stays in the
        // spare capacity, which `Zeroizing<Vec<u8>>` wipes too.
        buffer.truncate(range.len());
        buffer
    }
}

impl Deref for Plaintext {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for Plaintext {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl fmt::Debug for Plaintext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Plaintext([redacted; {} bytes])", self.range.len())
    }
}

impl Drop for Plaintext {
    fn drop(&mut self) {
        wipe(&mut self.buffer);
    }
}

/// Wipes `buffer`'s whole allocation with volatile writes, 8 bytes at a time
/// where the allocation's alignment allows, and empties it.
pub(crate) fn wipe(buffer: &mut Vec<u8>) {
    wipe_slice(buffer.as_mut_slice());
    buffer.spare_capacity_mut().zeroize();
    buffer.clear();
}

/// Wipes `bytes` with volatile writes: the aligned middle as `u64` words,
/// the ends byte by byte.
fn wipe_slice(bytes: &mut [u8]) {
    let (head, words, tail) = bytemuck::pod_align_to_mut::<u8, u64>(bytes);
    head.zeroize();
    words.zeroize();
    tail.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipe_clears_every_byte_whatever_the_length_and_alignment() {
        let mut buffer = vec![0xa5u8; 4200];
        for start in 0..9 {
            for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4099] {
                buffer.fill(0xa5);
                let part = &mut buffer[start..start + len];
                wipe_slice(part);
                assert!(part.iter().all(|&b| b == 0), "start {start} len {len}");
                // Only that part: the bytes around it are untouched.
                assert!(buffer[..start].iter().all(|&b| b == 0xa5));
                assert!(buffer[start + len..].iter().all(|&b| b == 0xa5));
            }
        }
        let mut whole = vec![1u8; 100];
        whole.reserve(50);
        let capacity = whole.capacity();
        wipe(&mut whole);
        assert!(whole.is_empty());
        assert_eq!(whole.capacity(), capacity, "the allocation is kept, wiped");
    }

    #[test]
    fn a_view_into_a_buffer_reads_and_moves_out_as_its_range() {
        let text = Plaintext::within(b"roomcontenttag".to_vec(), 4..11);
        assert_eq!(text.as_slice(), b"content");
        assert_eq!(&*text.into_zeroizing(), b"content");
        let clamped = Plaintext::within(b"abc".to_vec(), 2..9);
        assert_eq!(clamped.as_slice(), b"c");
        assert_eq!(format!("{clamped:?}"), "Plaintext([redacted; 1 bytes])");
    }
}
