//! Timestamps in the formats Suricata writes (UTC).

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

/// EVE's `timestamp`: `2026-11-22T01:10:41.987826+0000`.
pub fn eve_timestamp(secs: i64, micros: u32) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{micros:06}+0000")
}

/// fast.log's timestamp: `11/22/2026-01:10:41.987826`.
pub fn fast_timestamp(secs: i64, micros: u32) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{mo:02}/{d:02}/{y:04}-{h:02}:{mi:02}:{s:02}.{micros:06}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(eve_timestamp(0, 0), "1970-01-01T00:00:00.000000+0000");
        // 2008-05-16 15:50:54 UTC, a timestamp of samples/sample.pcap.
        assert_eq!(
            eve_timestamp(1_210_953_054, 123),
            "2008-05-16T15:50:54.000123+0000"
        );
        assert_eq!(
            fast_timestamp(1_210_953_054, 5),
            "05/16/2008-15:50:54.000005"
        );
        // Leap day and end of year.
        assert_eq!(
            eve_timestamp(951_782_400, 0),
            "2000-02-29T00:00:00.000000+0000"
        );
        assert_eq!(
            eve_timestamp(1_704_067_199, 0),
            "2023-12-31T23:59:59.000000+0000"
        );
        assert_eq!(eve_timestamp(-1, 0), "1969-12-31T23:59:59.000000+0000");
    }
}
