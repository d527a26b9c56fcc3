//! The byte framing shared by the AAD, the HPKE `info` and the bundle AAD
//! (FORMAT.md, "Framing"): big-endian integers, strings as a `u16` byte
//! length followed by UTF-8, and a strict reader that refuses anything a
//! writer would not have produced.

use crate::error::{CryptoError, CryptoResult};

/// Longest string field, in UTF-8 bytes. Ids in the API are at most 256
/// characters; this leaves room without letting one field dominate.
pub const MAX_STR_LEN: usize = 1024;

/// Appends framed values to a byte buffer.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// A buffer that starts with the domain label `magic`.
    pub fn with_magic(magic: &[u8]) -> Self {
        Writer {
            buf: magic.to_vec(),
        }
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// A big-endian `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// A big-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// A non-empty string of at most [`MAX_STR_LEN`] bytes, length-prefixed.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `v` is empty or longer than [`MAX_STR_LEN`] bytes.
    pub fn str(&mut self, field: &'static str, v: &str) -> CryptoResult<&mut Self> {
        check_str(field, v)?;
        // check_str bounds the length to MAX_STR_LEN, which fits in u16.
        let len =
            u16::try_from(v.len()).map_err(|_| CryptoError::length(field, "1..=1024", v.len()))?;
        self.u16(len);
        self.buf.extend_from_slice(v.as_bytes());
        Ok(self)
    }

    /// `0` for none, or `1` and the string as [`Writer::str`] writes it.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when the string is empty or longer than [`MAX_STR_LEN`] bytes.
    pub fn opt_str(&mut self, field: &'static str, v: Option<&str>) -> CryptoResult<&mut Self> {
        match v {
            None => Ok(self.u8(0)),
            Some(s) => {
                self.u8(1);
                self.str(field, s)
            }
        }
    }

    /// `0` or `1`.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// A big-endian `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Fixed-size bytes, written without a length.
    pub fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(v);
        self
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Checks a string field: 1 to [`MAX_STR_LEN`] bytes.
///
/// # Errors
///
/// `INVALID_LENGTH` otherwise.
pub fn check_str(field: &'static str, v: &str) -> CryptoResult<()> {
    if v.is_empty() || v.len() > MAX_STR_LEN {
        return Err(CryptoError::length(field, "1..=1024 bytes", v.len()));
    }
    Ok(())
}

/// Reads framed values; every method fails with `MALFORMED_AAD`-style errors
/// built by the caller-supplied constructor.
///
/// # Errors
///
/// Each fallible method returns the caller's error (from [`Reader::new`]'s
/// `err`) when the input is truncated or not what a [`Writer`] writes.
pub struct Reader<'a> {
    rest: &'a [u8],
    err: fn(&'static str) -> CryptoError,
}

impl<'a> Reader<'a> {
    /// Reads `input`; `err` makes the error of every failure from its reason.
    pub fn new(input: &'a [u8], err: fn(&'static str) -> CryptoError) -> Self {
        Reader { rest: input, err }
    }

    /// The caller's error for `reason` (a value that read but is not allowed).
    pub fn fail(&self, reason: &'static str) -> CryptoError {
        (self.err)(reason)
    }

    fn take(&mut self, n: usize) -> CryptoResult<&'a [u8]> {
        if self.rest.len() < n {
            return Err((self.err)("truncated"));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    /// The domain label `magic`.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn magic(&mut self, magic: &[u8]) -> CryptoResult<()> {
        if self.take(magic.len())? != magic {
            return Err((self.err)("wrong domain label"));
        }
        Ok(())
    }

    /// One byte.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn u8(&mut self) -> CryptoResult<u8> {
        let b = self.take(1)?;
        b.first().copied().ok_or_else(|| (self.err)("truncated"))
    }

    /// A big-endian `u16`.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn u16(&mut self) -> CryptoResult<u16> {
        let b = self.take(2)?;
        let arr: [u8; 2] = b.try_into().map_err(|_| (self.err)("truncated"))?;
        Ok(u16::from_be_bytes(arr))
    }

    /// A big-endian `u32`.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn u32(&mut self) -> CryptoResult<u32> {
        let b = self.take(4)?;
        let arr: [u8; 4] = b.try_into().map_err(|_| (self.err)("truncated"))?;
        Ok(u32::from_be_bytes(arr))
    }

    /// A length-prefixed UTF-8 string of 1 to [`MAX_STR_LEN`] bytes.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn str(&mut self) -> CryptoResult<String> {
        let len = usize::from(self.u16()?);
        if len == 0 || len > MAX_STR_LEN {
            return Err((self.err)("string length out of range"));
        }
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| (self.err)("string is not UTF-8"))
    }

    /// A presence flag (`0` or `1`), then the string if present.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn opt_str(&mut self) -> CryptoResult<Option<String>> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.str().map(Some),
            _ => Err((self.err)("presence flag is not 0 or 1")),
        }
    }

    /// `0` or `1`.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn bool(&mut self) -> CryptoResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err((self.err)("boolean is not 0 or 1")),
        }
    }

    /// A big-endian `u64`.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn u64(&mut self) -> CryptoResult<u64> {
        let b = self.take(8)?;
        let arr: [u8; 8] = b.try_into().map_err(|_| (self.err)("truncated"))?;
        Ok(u64::from_be_bytes(arr))
    }

    /// `N` fixed bytes.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn array<const N: usize>(&mut self) -> CryptoResult<[u8; N]> {
        let b = self.take(N)?;
        b.try_into().map_err(|_| (self.err)("truncated"))
    }

    /// Nothing left.
    ///
    /// # Errors
    ///
    /// The reader's error when the input is truncated or not what a [`Writer`] writes.
    pub fn end(self) -> CryptoResult<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err((self.err)("trailing bytes"))
        }
    }
}
