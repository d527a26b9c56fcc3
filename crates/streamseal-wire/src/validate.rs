//! The checks behind every request's `validate()`.
//!
//! A request collects every failure into [`ValidationDetails`] (field to
//! reasons) and returns them together as
//! [`crate::Error::ValidationFailed`], the service's own 400 shape.
//!
//! Field names are the wire names. Nested fields are written as a path:
//! `.` between an object and its field, `[i]` for the i-th array item, for
//! example `reply.messageId`, `wraps[0].recipientKeyId`,
//! `sources[2].url`. Lengths count characters (Unicode scalar values), as the
//! spec's bounds say "characters" and as [`streamseal_crypto::identity::KeyId`] counts.
//! The service's own reason texts are not shown in the spec; the reasons
//! here name the bound, and the field keys are what a front end matches on.
//!
//! The same keys and the same error come back when a request does not even
//! decode (a fraction for an integer, a string for a boolean, `null` for a
//! required string, a missing field): [`crate::requests::decode`]
//! turns every decoding failure into a reason under the failing field's
//! full path, then runs `validate()`, so an app matches on one shape.
//!
//! Date-time fields (`before`/`after` of message and memo search, `since`
//! of the delegation list; API §1: "Timestamps are ISO 8601 date-time
//! strings") are checked as RFC 3339 `date-time` (section 5.6), the profile
//! of ISO 8601 that JSON APIs mean by date-time: `full-date "T"
//! full-time`, four-digit year, month and day in range for the month (leap
//! years included), hour 00 to 23, minute 00 to 59, second 00 to 59 (60
//! only as a true leap second, 23:59:60 UTC on the last day of a month),
//! optional fractional seconds of any length, and an offset `Z` or
//! `+hh:mm`/`-hh:mm` (hour 00 to 23, minute 00 to 59). A lowercase `t` or
//! `z` is accepted, as RFC 3339 allows ("may alternatively be lower
//! case"); a space instead of `T` is not (ISO 8601 requires the `T`). The
//! checker is cross-checked against the `time` crate's RFC 3339 parser in
//! a property test.

use streamseal_crypto::error::{Error, Result, ValidationDetails};

/// A collector of validation failures, keyed by wire path: the request
/// bodies of this crate and the endpoint layer above record into one, so
/// that every failure of a request comes back at once.
#[derive(Debug, Default)]
pub struct Check {
    details: ValidationDetails,
}

/// `parent.child`.
pub(crate) fn path(parent: &str, child: &str) -> String {
    format!("{parent}.{child}")
}

/// `parent[index]`.
pub(crate) fn item(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

impl Check {
    /// An empty collector.
    pub fn new() -> Self {
        Check::default()
    }

    /// Records a failure of `field`.
    pub fn fail(&mut self, field: &str, reason: impl Into<String>) {
        self.details
            .entry(field.to_owned())
            .or_default()
            .push(reason.into());
    }

    /// `value` has `min..=max` characters.
    pub fn len(&mut self, field: &str, value: &str, min: usize, max: usize) {
        let n = value.chars().count();
        if n < min {
            self.fail(
                field,
                if min == 1 {
                    "must not be empty".to_owned()
                } else {
                    format!("must be at least {min} characters")
                },
            );
        } else if n > max {
            self.fail(field, format!("must be at most {max} characters"));
        }
    }

    /// Like [`Check::len`] for an optional field (absent passes).
    pub fn opt_len(&mut self, field: &str, value: Option<&str>, min: usize, max: usize) {
        if let Some(value) = value {
            self.len(field, value, min, max);
        }
    }

    /// `value` has exactly `n` characters.
    pub fn exact_len(&mut self, field: &str, value: &str, n: usize) {
        if value.chars().count() != n {
            self.fail(field, format!("must be exactly {n} characters"));
        }
    }

    /// `value` is within `min..=max`.
    pub fn range(&mut self, field: &str, value: u64, min: u64, max: u64) {
        if !(min..=max).contains(&value) {
            self.fail(field, format!("must be between {min} and {max}"));
        }
    }

    /// Like [`Check::range`] for an optional field (absent passes).
    pub fn opt_range(&mut self, field: &str, value: Option<u32>, min: u64, max: u64) {
        if let Some(value) = value {
            self.range(field, u64::from(value), min, max);
        }
    }

    /// An array has at most `max` items.
    pub fn count(&mut self, field: &str, n: usize, max: usize) {
        if n > max {
            self.fail(field, format!("must have at most {max} items"));
        }
    }

    /// A request enum value is one the spec allows.
    pub fn known(&mut self, field: &str, is_known: bool, allowed: &[&str]) {
        if !is_known {
            self.fail(field, format!("must be one of: {}", allowed.join(", ")));
        }
    }

    /// Like [`Check::date_time`] for an optional field (absent passes).
    pub fn opt_date_time(&mut self, field: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.date_time(field, value);
        }
    }

    /// `value` is an RFC 3339 date-time (see the module docs).
    pub fn date_time(&mut self, field: &str, value: &str) {
        if !is_date_time(value) {
            self.fail(
                field,
                "must be an RFC 3339 date-time, e.g. 2026-07-12T09:30:00Z",
            );
        }
    }

    /// Whether nothing failed yet.
    pub fn is_empty(&self) -> bool {
        self.details.is_empty()
    }

    /// Every failure so far as [`Error::ValidationFailed`] (empty when
    /// nothing failed: call it only after a failure).
    pub fn into_error(self) -> Error {
        Error::ValidationFailed {
            details: self.details,
        }
    }

    /// `Ok(())` when nothing failed, else every failure at once.
    ///
    /// # Errors
    ///
    /// `VALIDATION_FAILED` with every failure recorded, keyed by wire path.
    pub fn finish(self) -> Result<()> {
        if self.details.is_empty() {
            Ok(())
        } else {
            Err(Error::ValidationFailed {
                details: self.details,
            })
        }
    }
}

/// The digits of `text` as a number, when all of them are ASCII digits.
fn digits(text: &[u8]) -> Option<u32> {
    text.iter().try_fold(0u32, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Whether `text` is an RFC 3339 `date-time` (section 5.6; see the module
/// docs for the exact rules, lowercase `t`/`z` and leap seconds).
pub(crate) fn is_date_time(text: &str) -> bool {
    let b = text.as_bytes();
    // full-date "T" partial-time: "YYYY-MM-DDTHH:MM:SS", 19 bytes.
    let (Some(date_time), Some(rest)) = (b.get(..19), b.get(19..)) else {
        return false;
    };
    let num = |from: usize, to: usize| date_time.get(from..to).and_then(digits);
    let literal =
        |at: usize, expected: &[u8]| date_time.get(at).is_some_and(|c| expected.contains(c));
    if !(literal(4, b"-")
        && literal(7, b"-")
        && literal(10, b"Tt")
        && literal(13, b":")
        && literal(16, b":"))
    {
        return false;
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        num(0, 4),
        num(5, 7),
        num(8, 10),
        num(11, 13),
        num(14, 16),
        num(17, 19),
    ) else {
        return false;
    };
    if !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return false;
    }
    // time-secfrac: "." 1*DIGIT.
    let rest = match rest.split_first() {
        Some((b'.', fraction)) => {
            let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            fraction.get(n..).unwrap_or_default()
        }
        _ => rest,
    };
    // time-offset: "Z" / ("+" / "-") time-hour ":" time-minute.
    let offset_minutes: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(h), Some(m)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if h > 23 || m > 59 {
                return false;
            }
            let minutes = i64::from(h * 60 + m);
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => return false,
    };
    second < 60 || is_leap_second(year, month, day, hour, minute, offset_minutes)
}

/// Whether `hh:mm:60` at `offset_minutes` is 23:59:60 UTC on the last day
/// of a month, the only place a leap second is inserted (RFC 3339 5.7).
fn is_leap_second(
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    offset_minutes: i64,
) -> bool {
    let utc = i64::from(hour * 60 + minute) - offset_minutes;
    if utc.rem_euclid(1440) != 23 * 60 + 59 {
        return false;
    }
    // 23:59 UTC is at most a day before the local date (an offset is less
    // than a day), and the day before the 1st is the last of a month.
    match utc.div_euclid(1440) {
        -1 => day == 1,
        0 => day == days_in_month(year, month),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn collects_every_failure_under_its_path() {
        let mut c = Check::new();
        c.len("a", "", 1, 3);
        c.len("a", "abcd", 1, 3);
        c.exact_len(&path("b", "c"), "xy", 3);
        c.range(&item("d", 2), 301, 15, 300);
        c.len("ok", "é", 1, 1);
        let details = c.finish().err().and_then(|e| e.details().cloned());
        let keys: Vec<String> = details.map(|d| d.into_keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["a", "b.c", "d[2]"]);
    }

    #[test]
    fn date_times_of_rfc_3339() {
        for ok in [
            "2026-07-12T09:30:00Z",
            "2026-07-12t09:30:00z",
            "2026-07-12T09:30:00.5+02:00",
            "2026-07-12T09:30:00.123456789123-23:59",
            "2024-02-29T00:00:00Z",
            "2000-02-29T23:59:59-00:00",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2016-12-31T23:59:60Z",
            "2017-01-01T00:59:60+01:00",
            "2016-06-30T19:59:60-04:00",
            "2017-03-01T00:00:60+00:01",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "",
            "last tuesday",
            "2026-13-01",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-07-12",
            "2026-07-12T09:30Z",
            "2026-07-12 09:30:00Z",
            "2026-07-12T09:30:00",
            "2026-07-12T24:00:00Z",
            "2026-07-12T09:60:00Z",
            "2026-07-12T09:30:61Z",
            "2026-07-12T09:30:60Z",
            "2016-12-30T23:59:60Z",
            "2017-01-02T00:59:60+01:00",
            "2016-12-31T23:59:60+00:01",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-07-12T09:30:00.Z",
            "2026-07-12T09:30:00+2:00",
            "2026-07-12T09:30:00+24:00",
            "2026-07-12T09:30:00+02:60",
            "2026-07-12T09:30:00+0200",
            "2026-07-12T09:30:00Z ",
            " 2026-07-12T09:30:00Z",
            "26-07-12T09:30:00Z",
            "+2026-07-12T09:30:00Z",
            "2026-07-12T09:30:00ZZ",
            "２026-07-12T09:30:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    /// What the `time` crate's RFC 3339 parser accepts, with the separator
    /// restricted to `T`/`t` (`time` takes any byte there, as RFC 3339's
    /// note lets applications choose; this library keeps ISO 8601's `T`).
    fn time_accepts(text: &str) -> bool {
        use time::OffsetDateTime;
        use time::format_description::well_known::Rfc3339;
        matches!(text.as_bytes().get(10), Some(b'T' | b't'))
            && OffsetDateTime::parse(text, &Rfc3339).is_ok()
    }

    /// Near-misses around the grammar: every component drawn from valid
    /// and out-of-range values, and from a few wrong separators.
    fn near_date_times() -> impl Strategy<Value = String> {
        let two = || {
            prop_oneof![
                0u32..=99,
                0u32..=12,
                0u32..=31,
                0u32..=23,
                0u32..=59,
                59u32..=61
            ]
        };
        let lit = |valid: &'static str, wrong: &'static [&'static str]| {
            prop_oneof![
                4 => Just(valid),
                1 => proptest::sample::select(wrong),
            ]
        };
        (
            prop_oneof![0u32..=9999, 1999u32..=2101, Just(2000u32), Just(1900u32)],
            (two(), two(), two(), two(), two()),
            (
                lit("-", &["/", ""]),
                lit("T", &["t", " ", "X", "TT", ""]),
                lit(":", &[".", ""]),
            ),
            prop_oneof![Just(String::new()), "\\.[0-9]{0,12}", "\\.[0-9a]{1,3}"],
            prop_oneof![
                Just("Z".to_owned()),
                Just("z".to_owned()),
                (prop_oneof![Just('+'), Just('-')], two(), two()).prop_map(|(s, h, m)| format!("{s}{h:02}:{m:02}")),
                "[+-]?[0-9]{0,5}",
                Just(String::new()),
            ],
            prop_oneof![8 => Just(""), 1 => Just(" "), 1 => Just("Z")],
        )
            .prop_map(|(year, (month, day, hour, minute, second), (dash, t, colon), frac, offset, tail)| {
                format!("{year:04}{dash}{month:02}{dash}{day:02}{t}{hour:02}{colon}{minute:02}{colon}{second:02}{frac}{offset}{tail}")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 20_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn date_time_checker_agrees_with_the_time_crate(text in near_date_times()) {
            prop_assert_eq!(is_date_time(&text), time_accepts(&text), "{}", text);
        }

        #[test]
        fn date_time_checker_agrees_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(is_date_time(&text), time_accepts(&text), "{}", text);
        }

        #[test]
        fn every_valid_instant_is_accepted(
            secs in -62_167_219_200i64..253_402_300_799,
            nanos in 0u32..1_000_000_000,
            offset in -1439i32..=1439,
        ) {
            use time::{OffsetDateTime, UtcOffset};
            use time::format_description::well_known::Rfc3339;
            let at = OffsetDateTime::from_unix_timestamp(secs)
                .ok()
                .and_then(|t| t.replace_nanosecond(nanos).ok());
            let offset = UtcOffset::from_whole_seconds(offset * 60).ok();
            if let (Some(at), Some(offset)) = (at, offset) {
                let local = at.to_offset(offset);
                if (0..=9999).contains(&local.year())
                    && let Ok(text) = local.format(&Rfc3339)
                {
                    prop_assert!(is_date_time(&text), "{}", text);
                }
            }
        }
    }
}
