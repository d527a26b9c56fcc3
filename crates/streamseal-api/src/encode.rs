//! Percent-encoding of path segments and query components.

/// Percent-encodes `text` so that it is one path segment or one query
/// component: every byte outside the RFC 3986 unreserved set
/// (`A-Z a-z 0-9 - . _ ~`) becomes `%XX` (upper-case hex, UTF-8 bytes).
///
/// ```
/// use streamseal_api::encode_component;
/// assert_eq!(encode_component("a b/c?d"), "a%20b%2Fc%3Fd");
/// assert_eq!(encode_component("stream_01J8"), "stream_01J8");
/// assert_eq!(encode_component("é"), "%C3%A9");
/// ```
pub fn encode_component(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            let hex = |n: u8| char::from(HEX.get(usize::from(n)).copied().unwrap_or(b'0'));
            out.push(hex(b >> 4));
            out.push(hex(b & 0x0f));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode_component;

    #[test]
    fn dot_segments_and_reserved_bytes_are_escaped_or_kept() {
        assert_eq!(encode_component(".."), "..");
        assert_eq!(encode_component("%2F"), "%252F");
        assert_eq!(encode_component("a+b&c=d#e"), "a%2Bb%26c%3Dd%23e");
    }
}
