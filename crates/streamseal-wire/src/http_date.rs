//! HTTP-dates (RFC 9110 section 5.6.7), read for `Retry-After` and `Date`.
//!
//! The reader takes the three forms a recipient must accept (IMF-fixdate,
//! the obsolete RFC 850 form and asctime) exactly as the `httpdate` crate
//! does, and the tests prove it: `tests/it/http_date.rs` compares the two
//! on every date they print and on bent strings. It is our own for size
//! alone: `httpdate` answers through `std::time::SystemTime`, whose time
//! and panic code made the browser's API module 451,317 bytes gzip against
//! 448,493 with this reader (446,998 reading no dates; `cargo xtask wasm`).
//!
//! ```
//! use streamseal_wire::http_date::parse_http_date;
//!
//! assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
//! assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
//! assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
//! assert_eq!(parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT"), None); // a Sunday
//! ```

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];
const DAYS: [&[u8]; 7] = [
    b"Monday",
    b"Tuesday",
    b"Wednesday",
    b"Thursday",
    b"Friday",
    b"Saturday",
    b"Sunday",
];

/// A calendar date and time of day, as read.
struct Civil {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    /// 1 for Monday .. 7 for Sunday.
    weekday: u8,
}

/// Reads an HTTP-date into Unix seconds: IMF-fixdate (`Sun, 06 Nov 1994
/// 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`, years 70-99
/// in the 1900s, 00-69 in the 2000s) or asctime (`Sun Nov  6 08:49:37
/// 1994`), surrounding whitespace ignored.
///
/// The RFC 850 form's two-digit year takes `httpdate`'s fixed 1970 pivot,
/// not RFC 9110's rule (a year more than 50 years ahead of the reader's
/// clock is the previous century's), which needs a clock this sans-IO
/// reader does not take. In 2026 the two differ only for `70` to `76`
/// (RFC 9110: 2070 to 2076; here: 1970 to 1976, a date already past). A
/// sender must not generate this obsolete form (RFC 9110 section 5.6.7). `None` for anything else: a
/// non-ASCII string, a date that does not exist, a weekday that is not the
/// date's, a year outside 1970-9999.
pub fn parse_http_date(value: &str) -> Option<u64> {
    if !value.is_ascii() {
        return None;
    }
    let s = value.trim().as_bytes();
    let civil = imf_fixdate(s)
        .or_else(|| rfc850(s))
        .or_else(|| asctime(s))?;
    civil.unix_seconds()
}

fn digit(b: u8) -> Option<u8> {
    let d = b.wrapping_sub(b'0');
    (d < 10).then_some(d)
}

fn two(s: &[u8]) -> Option<u8> {
    match s {
        [a, b] => Some(digit(*a)? * 10 + digit(*b)?),
        _ => None,
    }
}

fn four(s: &[u8]) -> Option<u16> {
    match s {
        [a, b, c, d] => Some(u16::from(two(&[*a, *b])?) * 100 + u16::from(two(&[*c, *d])?)),
        _ => None,
    }
}

fn month(name: &[u8]) -> Option<u8> {
    let i = MONTHS.iter().position(|m| m.as_slice() == name)?;
    u8::try_from(i + 1).ok()
}

/// `hh:mm:ss` at `s`.
fn time(s: &[u8]) -> Option<(u8, u8, u8)> {
    match s {
        [h1, h2, b':', m1, m2, b':', s1, s2] => {
            Some((two(&[*h1, *h2])?, two(&[*m1, *m2])?, two(&[*s1, *s2])?))
        }
        _ => None,
    }
}

/// The weekday whose name (full, or its first three letters) `name` is.
fn weekday(name: &[u8], full: bool) -> Option<u8> {
    let i = DAYS.iter().position(|d| {
        if full {
            *d == name
        } else {
            d.get(..3) == Some(name)
        }
    })?;
    u8::try_from(i + 1).ok()
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn imf_fixdate(s: &[u8]) -> Option<Civil> {
    if s.len() != 29 || s.get(3..5)? != b", " || s.get(25..)? != b" GMT" {
        return None;
    }
    if s.get(7) != Some(&b' ') || s.get(11) != Some(&b' ') || s.get(16) != Some(&b' ') {
        return None;
    }
    let (hour, minute, second) = time(s.get(17..25)?)?;
    Some(Civil {
        year: four(s.get(12..16)?)?,
        month: month(s.get(8..11)?)?,
        day: two(s.get(5..7)?)?,
        hour,
        minute,
        second,
        weekday: weekday(s.get(..3)?, false)?,
    })
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`.
fn rfc850(s: &[u8]) -> Option<Civil> {
    let comma = s.iter().position(|b| *b == b',')?;
    let weekday = weekday(s.get(..comma)?, true)?;
    let rest = s.get(comma..)?;
    // ", 06-Nov-94 08:49:37 GMT"
    if rest.len() != 24 || rest.get(..2)? != b", " || rest.get(20..)? != b" GMT" {
        return None;
    }
    if rest.get(4) != Some(&b'-') || rest.get(8) != Some(&b'-') || rest.get(11) != Some(&b' ') {
        return None;
    }
    let short_year = u16::from(two(rest.get(9..11)?)?);
    let (hour, minute, second) = time(rest.get(12..20)?)?;
    Some(Civil {
        year: if short_year < 70 {
            2000 + short_year
        } else {
            1900 + short_year
        },
        month: month(rest.get(5..8)?)?,
        day: two(rest.get(2..4)?)?,
        hour,
        minute,
        second,
        weekday,
    })
}

/// `Sun Nov  6 08:49:37 1994`.
fn asctime(s: &[u8]) -> Option<Civil> {
    if s.len() != 24 || s.get(3) != Some(&b' ') || s.get(7) != Some(&b' ') {
        return None;
    }
    if s.get(10) != Some(&b' ') || s.get(19) != Some(&b' ') {
        return None;
    }
    let day = match s.get(8..10)? {
        [b' ', d] => digit(*d)?,
        d => two(d)?,
    };
    let (hour, minute, second) = time(s.get(11..19)?)?;
    Some(Civil {
        year: four(s.get(20..24)?)?,
        month: month(s.get(4..7)?)?,
        day,
        hour,
        minute,
        second,
        weekday: weekday(s.get(..3)?, false)?,
    })
}

fn is_leap(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

impl Civil {
    /// Unix seconds, if the date exists, its weekday is right and its year
    /// is within 1970-9999.
    fn unix_seconds(&self) -> Option<u64> {
        let month_len = match self.month {
            2 if is_leap(self.year) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        if !(1970..=9999).contains(&self.year)
            || !(1..=month_len).contains(&self.day)
            || self.hour > 23
            || self.minute > 59
            || self.second > 59
        {
            return None;
        }
        let days = days_from_civil(self.year, self.month, self.day);
        // 1970-01-01 was a Thursday (4).
        if (days + 3) % 7 + 1 != u64::from(self.weekday) {
            return None;
        }
        Some(
            days * 86_400
                + u64::from(self.hour) * 3_600
                + u64::from(self.minute) * 60
                + u64::from(self.second),
        )
    }
}

/// Days from 1970-01-01 to a date from 1970 on (Howard Hinnant's
/// `days_from_civil`, over years that begin in March).
fn days_from_civil(year: u16, month: u8, day: u8) -> u64 {
    let y = u64::from(year) - u64::from(month <= 2);
    let era = y / 400;
    let yoe = y - era * 400;
    let m = u64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + u64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    // 719,468 days from 0000-03-01 to 1970-01-01.
    era * 146_097 + doe - 719_468
}
