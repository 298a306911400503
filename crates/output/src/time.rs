//! Timestamps in the formats Suricata writes: local time in the process's time zone
//! with its UTC offset, as Suricata (libc's `localtime`) writes them. `TZ` is honoured
//! (an IANA name, a TZif path or a POSIX rule); without it `/etc/localtime`; a zone that
//! cannot be found is UTC, as in libc.
//!
//! The zone is read once, at the first timestamp. Its offset is looked up per
//! timestamp (daylight saving time changes within a capture) and cached per second and
//! per thread, so a run of records within one second costs one lookup.
//!
//! Suricata's file timestamps without an offset (`fast.log`) are local time too.

use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::cell::Cell;
use std::sync::OnceLock;

/// One second as a time zone shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LocalSecond {
    /// Unix seconds.
    unix: i64,
    /// Offset from UTC, seconds east.
    offset: i32,
    /// Local (year, month, day, hour, minute, second).
    civil: (i64, u32, u32, u32, u32, u32),
}

impl LocalSecond {
    fn new(tz: &TimeZone, unix: i64) -> Self {
        let offset = Timestamp::from_second(unix)
            .map(|t| tz.to_offset(t).seconds())
            .unwrap_or(0);
        LocalSecond {
            unix,
            offset,
            civil: civil(unix.saturating_add(i64::from(offset))),
        }
    }
}

/// The process's time zone, read once.
fn local_zone() -> &'static TimeZone {
    static ZONE: OnceLock<TimeZone> = OnceLock::new();
    // This crate's unit tests format in UTC whatever the machine's zone, so their
    // expected strings hold anywhere; the binary's tests check the local zone (`TZ`)
    // against Suricata's own output.
    ZONE.get_or_init(|| {
        if cfg!(test) {
            TimeZone::UTC
        } else {
            TimeZone::system()
        }
    })
}

thread_local! {
    static LAST: Cell<Option<LocalSecond>> = const { Cell::new(None) };
}

/// `unix` in the local zone, from this thread's cache when it is the same second.
fn local_second(unix: i64) -> LocalSecond {
    LAST.with(|last| match last.get() {
        Some(s) if s.unix == unix => s,
        _ => {
            let s = LocalSecond::new(local_zone(), unix);
            last.set(Some(s));
            s
        }
    })
}

/// Splits Unix seconds into (year, month, day, hour, minute, second), UTC.
fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Days to civil date (proleptic Gregorian), after H. Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

fn format_eve(s: &LocalSecond, micros: u32) -> String {
    let mut out = Vec::with_capacity(31);
    write_eve(s, micros, &mut out);
    // Only ASCII digits and punctuation were written.
    String::from_utf8(out).unwrap_or_default()
}

/// EVE's timestamp form of `s` and `micros`, appended to `out`.
fn write_eve(s: &LocalSecond, micros: u32, out: &mut Vec<u8>) {
    use std::io::Write;
    let (y, mo, d, h, mi, sec) = s.civil;
    let sign = if s.offset < 0 { '-' } else { '+' };
    let off = s.offset.unsigned_abs();
    let (oh, om) = (off / 3600, off % 3600 / 60);
    // Writing into a `Vec` cannot fail.
    let _ = write!(
        out,
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}.{micros:06}{sign}{oh:02}{om:02}"
    );
}

fn format_fast(s: &LocalSecond, micros: u32) -> String {
    let mut out = String::with_capacity(26);
    write_fast(s, micros, &mut out);
    out
}

fn write_fast(s: &LocalSecond, micros: u32, out: &mut String) {
    use std::fmt::Write;
    let (y, mo, d, h, mi, sec) = s.civil;
    // Writing into a `String` cannot fail.
    let _ = write!(
        out,
        "{mo:02}/{d:02}/{y:04}-{h:02}:{mi:02}:{sec:02}.{micros:06}"
    );
}

/// EVE's `timestamp` in local time with its offset: `2026-11-22T02:10:41.987826+0100`.
pub fn eve_timestamp(secs: i64, micros: u32) -> String {
    format_eve(&local_second(secs), micros)
}

/// [`eve_timestamp`] appended to `out` (no `String` built).
pub(crate) fn write_eve_timestamp(out: &mut Vec<u8>, secs: i64, micros: u32) {
    write_eve(&local_second(secs), micros, out);
}

/// fast.log's timestamp, local time: `11/22/2026-02:10:41.987826`.
pub fn fast_timestamp(secs: i64, micros: u32) -> String {
    format_fast(&local_second(secs), micros)
}

/// [`fast_timestamp`] appended to `out` (no `String` of its own).
pub(crate) fn write_fast_timestamp(out: &mut String, secs: i64, micros: u32) {
    write_fast(&local_second(secs), micros, out);
}

/// syslog(3)'s timestamp, local time: `Nov  6 07:08:09` (the day padded with a space).
pub(crate) fn syslog_timestamp(secs: i64) -> String {
    format_syslog(&local_second(secs))
}

fn format_syslog(s: &LocalSecond) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (_, mo, d, h, mi, sec) = s.civil;
    let m = MONTHS[(mo.clamp(1, 12) - 1) as usize];
    format!("{m} {d:>2} {h:02}:{mi:02}:{sec:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eve_in(tz: &TimeZone, secs: i64, micros: u32) -> String {
        format_eve(&LocalSecond::new(tz, secs), micros)
    }

    fn fast_in(tz: &TimeZone, secs: i64, micros: u32) -> String {
        format_fast(&LocalSecond::new(tz, secs), micros)
    }

    #[test]
    fn syslog_form() {
        let utc = TimeZone::UTC;
        // 2026-11-06 07:08:09 and 2026-01-16 23:59:59 UTC.
        assert_eq!(
            format_syslog(&LocalSecond::new(&utc, 1_793_948_889)),
            "Nov  6 07:08:09"
        );
        assert_eq!(
            format_syslog(&LocalSecond::new(&utc, 1_768_607_999)),
            "Jan 16 23:59:59"
        );
    }

    #[test]
    fn known_dates_utc() {
        let utc = TimeZone::UTC;
        assert_eq!(eve_in(&utc, 0, 0), "1970-01-01T00:00:00.000000+0000");
        // 2008-05-16 15:50:54 UTC, a timestamp of samples/sample.pcap.
        assert_eq!(
            eve_in(&utc, 1_210_953_054, 123),
            "2008-05-16T15:50:54.000123+0000"
        );
        assert_eq!(
            fast_in(&utc, 1_210_953_054, 5),
            "05/16/2008-15:50:54.000005"
        );
        // Leap day and end of year.
        assert_eq!(
            eve_in(&utc, 951_782_400, 0),
            "2000-02-29T00:00:00.000000+0000"
        );
        assert_eq!(
            eve_in(&utc, 1_704_067_199, 0),
            "2023-12-31T23:59:59.000000+0000"
        );
        assert_eq!(eve_in(&utc, -1, 0), "1969-12-31T23:59:59.000000+0000");
    }

    #[test]
    fn offsets_follow_the_zone_and_its_summer_time() {
        // Central Europe as a POSIX rule (no tz database needed).
        let paris = TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        // Summer: +0200.
        assert_eq!(
            eve_in(&paris, 1_210_953_054, 123),
            "2008-05-16T17:50:54.000123+0200"
        );
        assert_eq!(
            fast_in(&paris, 1_210_953_054, 5),
            "05/16/2008-17:50:54.000005"
        );
        // Winter, across midnight and the year: 2023-12-31T23:30 UTC.
        assert_eq!(
            eve_in(&paris, 1_704_065_400, 0),
            "2024-01-01T00:30:00.000000+0100"
        );
        // West of UTC, with minutes: Newfoundland standard time.
        let nst = TimeZone::posix("NST3:30").unwrap();
        assert_eq!(eve_in(&nst, 0, 0), "1969-12-31T20:30:00.000000-0330");
    }

    #[test]
    fn out_of_range_seconds_do_not_panic() {
        let paris = TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        let s = eve_in(&paris, i64::MAX / 4, 0);
        assert!(s.ends_with("+0000"), "{s}");
    }

    #[test]
    fn cached_and_direct_lookups_agree() {
        for secs in [
            1_210_953_054,
            1_210_953_054,
            1_704_065_400,
            0,
            1_210_953_054,
        ] {
            assert_eq!(local_second(secs), LocalSecond::new(local_zone(), secs));
        }
        let a = eve_timestamp(1_210_953_054, 1);
        assert_eq!(
            a,
            format_eve(&LocalSecond::new(local_zone(), 1_210_953_054), 1)
        );
        let mut b = b"x".to_vec();
        write_eve_timestamp(&mut b, 1_210_953_054, 1);
        assert_eq!(b, format!("x{a}").into_bytes());
    }
}
