//! A decision card's plaintext: the canonical JSON of its
//! [`DecisionCardContent`], written and read here and nowhere else.
//!
//! The plaintext is exactly what serde_json writes for the content, compact
//! and in field order, and nothing else:
//!
//! ```text
//! {"title":S,"body":S,"labels":{K:S,K:S,...}}
//! ```
//!
//! - no whitespace, the three fields in this order, each once, no other field;
//! - the labels' keys strictly ascending by their UTF-8 bytes (a `BTreeMap`'s
//!   order), so none repeats;
//! - each string escapes `"` and `\` as `\"` and `\\`, the control characters
//!   U+0008, U+0009, U+000A, U+000C and U+000D as `\b`, `\t`, `\n`, `\f` and
//!   `\r`, the other controls below U+0020 as `\u00xx` (lowercase hex), and
//!   nothing else: every other character is its UTF-8 bytes (`/`, DEL and
//!   non-ASCII included).
//!
//! So one content has one plaintext. Every binding reads the same bytes the
//! same way; where JSON parsers disagree (a repeated key, `\u` escapes of
//! ordinary or lone-surrogate characters, whitespace) the card is refused
//! everywhere (`MALFORMED_JSON`). And the browser's first module opens a card
//! without a JSON library: serde_json's parser, there for this type alone,
//! was a tenth of that module.
//!
//! The property tests (`crates/streamseal/tests/it/roundtrip_props.rs`) check
//! both directions against serde_json: what [`encode`] writes is serde_json's
//! output, and [`decode`] accepts a plaintext only if serde_json would write
//! the content it reads as exactly those bytes.

use std::collections::BTreeMap;

use streamseal_crypto::error::{Error, Result};
use zeroize::Zeroizing;

use crate::decisions::DecisionCardContent;

const TITLE: &[u8] = b"{\"title\":";
const BODY: &[u8] = b",\"body\":";
const LABELS: &[u8] = b",\"labels\":{";
const END: &[u8] = b"}}";
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The short escape of a byte (`n` for a line feed, ...), if it has one.
fn short_escape(byte: u8) -> Option<u8> {
    match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        0x08 => Some(b'b'),
        0x09 => Some(b't'),
        0x0a => Some(b'n'),
        0x0c => Some(b'f'),
        0x0d => Some(b'r'),
        _ => None,
    }
}

/// The lowercase hex digit of a nibble.
fn hex_digit(nibble: u8) -> u8 {
    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0')
}

/// How many bytes [`write_string`] writes for `text`.
fn string_len(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|b| {
            if short_escape(b).is_some() {
                2
            } else if b < 0x20 {
                6
            } else {
                1
            }
        })
        .sum::<usize>()
}

fn write_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    // Escapes concern ASCII bytes only; a multi-byte character's bytes are
    // all at least 0x80 and are copied as they are.
    for b in text.bytes() {
        if let Some(e) = short_escape(b) {
            out.extend_from_slice(&[b'\\', e]);
        } else if b < 0x20 {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                hex_digit(b >> 4),
                hex_digit(b & 0xf),
            ]);
        } else {
            out.push(b);
        }
    }
    out.push(b'"');
}

/// The card's plaintext, in a buffer of its exact size that is wiped on
/// drop: no reallocation leaves a copy of the content behind.
pub(crate) fn encode(content: &DecisionCardContent) -> Zeroizing<Vec<u8>> {
    let labels: usize = content
        .labels
        .iter()
        .map(|(k, v)| string_len(k) + 1 + string_len(v))
        .sum::<usize>()
        + content.labels.len().saturating_sub(1);
    let len = TITLE.len()
        + string_len(&content.title)
        + BODY.len()
        + string_len(&content.body)
        + LABELS.len()
        + labels
        + END.len();
    let mut out = Zeroizing::new(Vec::with_capacity(len));
    out.extend_from_slice(TITLE);
    write_string(&mut out, &content.title);
    out.extend_from_slice(BODY);
    write_string(&mut out, &content.body);
    out.extend_from_slice(LABELS);
    for (i, (key, label)) in content.labels.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(&mut out, key);
        out.push(b':');
        write_string(&mut out, label);
    }
    out.extend_from_slice(END);
    debug_assert_eq!(out.len(), len);
    out
}

/// Reads a card's plaintext, refusing every byte string [`encode`] would
/// not write: `MALFORMED_JSON` naming the byte where it stopped, never
/// quoting the content.
pub(crate) fn decode(plaintext: &[u8]) -> Result<DecisionCardContent> {
    let mut r = Reader {
        bytes: plaintext,
        at: 0,
    };
    r.expect(TITLE)?;
    let title = r.string()?;
    r.expect(BODY)?;
    let body = r.string()?;
    r.expect(LABELS)?;
    let mut labels = BTreeMap::new();
    if !r.eat(b'}') {
        loop {
            let at = r.at;
            let key = r.string()?;
            if labels
                .last_key_value()
                .is_some_and(|(last, _): (&String, _)| *last >= key)
            {
                return Err(malformed(at, "a label's key out of order or repeated"));
            }
            r.expect(b":")?;
            let label = r.string()?;
            labels.insert(key, label);
            if r.eat(b'}') {
                break;
            }
            r.expect(b",")?;
        }
    }
    r.expect(b"}")?;
    if r.at != plaintext.len() {
        return Err(malformed(r.at, "bytes after the card"));
    }
    Ok(DecisionCardContent {
        title,
        body,
        labels,
    })
}

fn malformed(at: usize, what: &str) -> Error {
    Error::MalformedJson {
        reason: format!("decrypted content: not a card's canonical JSON ({what} at byte {at})"),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn expect(&mut self, token: &[u8]) -> Result<()> {
        if self
            .bytes
            .get(self.at..)
            .is_some_and(|rest| rest.starts_with(token))
        {
            self.at += token.len();
            Ok(())
        } else {
            Err(malformed(self.at, "an unexpected byte"))
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.at) == Some(&byte);
        if found {
            self.at += 1;
        }
        found
    }

    /// One string, unescaped. Its buffer is sized by the raw string first
    /// (an unescaped string is never longer), so it never reallocates, and
    /// is wiped if the string is refused half-read.
    fn string(&mut self) -> Result<String> {
        self.expect(b"\"")?;
        let raw = self.raw_string_len();
        let mut out = Zeroizing::new(Vec::with_capacity(raw));
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(malformed(self.at, "an unterminated string"));
            };
            match b {
                b'"' => {
                    self.at += 1;
                    break;
                }
                b'\\' => {
                    let byte = self.escape()?;
                    out.push(byte);
                }
                0x00..=0x1f => return Err(malformed(self.at, "an unescaped control character")),
                _ => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
        // The one UTF-8 check: outside strings every byte is matched against
        // ASCII tokens, escapes decode to ASCII, and a quote or backslash is
        // never part of a multi-byte character, so a string's bytes are whole
        // characters exactly when the plaintext is UTF-8.
        String::from_utf8(std::mem::take(&mut *out)).map_err(|e| {
            let mut bytes = e.into_bytes();
            zeroize::Zeroize::zeroize(&mut bytes);
            malformed(self.at, "a string that is not UTF-8")
        })
    }

    /// Bytes from here to the string's closing quote (or to the end).
    fn raw_string_len(&self) -> usize {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            match b {
                b'"' => return i,
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        rest.len()
    }

    /// One escape, as [`write_string`] writes it, and nothing else.
    fn escape(&mut self) -> Result<u8> {
        let at = self.at;
        let refused = || malformed(at, "an escape serde_json does not write");
        let byte = match self.bytes.get(at + 1) {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'b') => 0x08,
            Some(b't') => 0x09,
            Some(b'n') => 0x0a,
            Some(b'f') => 0x0c,
            Some(b'r') => 0x0d,
            Some(b'u') => {
                let Some(&[b'0', b'0', hi, lo]) = self.bytes.get(at + 2..at + 6) else {
                    return Err(refused());
                };
                let nibble = |c: u8| HEX.iter().position(|&h| h == c);
                let (Some(hi), Some(lo)) = (nibble(hi), nibble(lo)) else {
                    return Err(refused());
                };
                // At most 0xff: both nibbles are below 16.
                let byte = u8::try_from(hi * 16 + lo).map_err(|_| refused())?;
                if byte >= 0x20 || short_escape(byte).is_some() {
                    return Err(refused());
                }
                self.at += 4;
                byte
            }
            _ => return Err(refused()),
        };
        self.at += 2;
        Ok(byte)
    }
}
