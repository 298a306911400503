//! Dates in rule values (`tls_cert_notbefore:>2015-10-22`): seconds since the epoch.

/// Seconds since the epoch of a date (`YYYY-MM[-DD[THH[:MM[:SS]]]]`, UTC) or of a
/// plain number of seconds.
pub fn epoch(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().map_err(|_| format!("'{s}' is not a date"));
    }
    let bad = || format!("'{s}' is not a date");
    let (date, time) = s.split_once('T').unwrap_or((s, ""));
    let mut d = date.split('-');
    let num = |x: Option<&str>, lo: u64, hi: u64| -> Result<u64, String> {
        let x = x.ok_or_else(bad)?;
        let n: u64 = x.parse().map_err(|_| bad())?;
        if x.is_empty() || n < lo || n > hi {
            return Err(bad());
        }
        Ok(n)
    };
    let year = num(d.next(), 1970, 9999)?;
    let month = num(d.next(), 1, 12)?;
    let day = match d.next() {
        Some(x) => num(Some(x), 1, 31)?,
        None => 1,
    };
    if d.next().is_some() {
        return Err(bad());
    }
    let mut t = time.split(':').filter(|x| !x.is_empty());
    let hour = t.next().map_or(Ok(0), |x| num(Some(x), 0, 23))?;
    let min = t.next().map_or(Ok(0), |x| num(Some(x), 0, 59))?;
    let sec = t.next().map_or(Ok(0), |x| num(Some(x), 0, 60))?;
    if t.next().is_some() {
        return Err(bad());
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec)
}

/// Days from 1970-01-01 to a (proleptic Gregorian) date on or after it.
pub fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_seconds() {
        assert_eq!(epoch("1970-01-01"), Ok(0));
        assert_eq!(epoch("2014-07-15T17:04:39"), Ok(1_405_443_879));
        assert_eq!(epoch("2015-01"), Ok(1_420_070_400));
        assert_eq!(epoch("2015"), Ok(2015), "a bare number is seconds");
        assert!(epoch("2015-13-01").is_err());
        assert!(epoch("2015-01-01T25").is_err());
        assert!(epoch("x").is_err());
        assert!(epoch("1969-12-31").is_err());
    }
}
