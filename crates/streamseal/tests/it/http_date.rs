//! Our HTTP-date reader (`streamseal_wire::http_date`) against the
//! `httpdate` crate, an independent implementation: the same Unix seconds
//! for every date `httpdate` prints in each of the three forms, and never a
//! date `httpdate` would not read, whatever a server bends.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use streamseal::wire::http_date::parse_http_date;

fn theirs(text: &str) -> Option<u64> {
    httpdate::parse_http_date(text)
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
}

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The three forms of one instant, from `httpdate`'s own IMF-fixdate.
fn forms(secs: u64) -> [String; 3] {
    let imf = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let (wd, day, mon, year, time) = (
        &imf[..3],
        &imf[5..7],
        &imf[8..11],
        &imf[12..16],
        &imf[17..25],
    );
    let full = DAYS.iter().find(|d| d.starts_with(wd)).unwrap();
    let rfc850 = format!("{full}, {day}-{mon}-{} {time} GMT", &year[2..]);
    let spaced = match day.strip_prefix('0') {
        Some(digit) => format!(" {digit}"),
        None => day.to_owned(),
    };
    let asctime = format!("{wd} {mon} {spaced} {time} {year}");
    [imf, rfc850, asctime]
}

#[test]
fn known_dates_and_refusals() {
    for text in [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  Sun, 06 Nov 1994 08:49:37 GMT\t",
    ] {
        assert_eq!(parse_http_date(text), Some(784_111_777), "{text}");
        assert_eq!(theirs(text), Some(784_111_777), "{text}");
    }
    assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(
        parse_http_date("Fri, 31 Dec 9999 23:59:59 GMT"),
        Some(253_402_300_799)
    );
    assert_eq!(
        parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT"),
        Some(1_709_208_000)
    );
    for refused in [
        "",
        "12",
        "Mon, 06 Nov 1994 08:49:37 GMT", // the weekday is wrong
        "Wed, 29 Feb 2023 12:00:00 GMT", // no such day
        "Wed, 31 Dec 1969 23:59:59 GMT", // before 1970
        "Sun, 06 Nov 1994 24:00:00 GMT", // no such hour
        "Sun, 06 Nov 1994 08:49:60 GMT", // leap seconds are not dates here
        "Sun, 06 Nov 1994 08:49:37 UTC", // only GMT
        "sun, 06 nov 1994 08:49:37 GMT", // names are case-sensitive
        "Sun, 06 Nov 1994 08:49:37 GMT\u{e9}",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 06 08:49:37 94",
    ] {
        assert_eq!(parse_http_date(refused), None, "{refused:?}");
        assert_eq!(theirs(refused), None, "{refused:?}");
    }
}

/// Instants from 1970 to 9999.
fn any_instant() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..253_402_300_800,
        // Around now, where servers' dates are.
        1_700_000_000u64..1_900_000_000,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Every form of every instant reads as `httpdate` reads it (the RFC 850
    /// form only where its two-digit year names the instant's century the
    /// way both readers do: 1970-2069).
    #[test]
    fn every_printed_form_reads_as_httpdate_reads_it(secs in any_instant()) {
        let [imf, rfc850, asctime] = forms(secs);
        prop_assert_eq!(parse_http_date(&imf), Some(secs));
        prop_assert_eq!(theirs(&imf), Some(secs));
        prop_assert_eq!(parse_http_date(&asctime), Some(secs));
        prop_assert_eq!(theirs(&asctime), Some(secs));
        prop_assert_eq!(parse_http_date(&rfc850), theirs(&rfc850));
        if secs < 3_155_760_000 {
            prop_assert_eq!(parse_http_date(&rfc850), Some(secs));
        }
    }

    /// A bent date (one byte changed, or cut) is read only if `httpdate`
    /// reads it too, as the same instant; ours is stricter in one place
    /// only, the space after an RFC 850 date's year, which `httpdate` does
    /// not look at.
    #[test]
    fn a_bent_date_is_never_read_where_httpdate_refuses(
        secs in any_instant(),
        form in 0usize..3,
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<bool>(),
    ) {
        let text = forms(secs)[form].clone();
        let mut bytes = text.into_bytes();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        let Ok(bent) = String::from_utf8(bytes) else { return Ok(()); };
        let ours = parse_http_date(&bent);
        let theirs = theirs(&bent);
        if ours.is_some() {
            prop_assert_eq!(ours, theirs, "{:?}", bent);
        } else if theirs.is_some() {
            prop_assert!(form == 1 && !cut, "we refused {:?}, httpdate read it", bent);
        }
    }

    /// Any string at all: no panic, and nothing read that `httpdate` refuses.
    #[test]
    fn any_string(text in "\\PC{0,40}") {
        if let Some(secs) = parse_http_date(&text) {
            prop_assert_eq!(Some(secs), theirs(&text));
        }
    }
}

#[test]
fn the_system_clock_now_reads_back() {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let [imf, rfc850, asctime] = forms(now);
    for text in [imf, rfc850, asctime] {
        assert_eq!(parse_http_date(&text), Some(now), "{text}");
    }
}
