//! Civil (calendar) dates for the academic calendar, without time zones.
//!
//! The scenario names dates as `"2026-09-01"`; seasons may also recur every year as
//! `"10-20"` (month-day). We only need day arithmetic, so this is the classic
//! days-from-civil conversion (proleptic Gregorian) rather than a full date-time crate,
//! which would add a heavy dependency for twenty lines of arithmetic.

use std::fmt;

/// A calendar date (proleptic Gregorian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: i32,
    month: u8,
    day: u8,
}

/// Why a date string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    /// The text is not of the form `YYYY-MM-DD` (or `MM-DD` where a recurring date is allowed).
    #[error("'{0}' is not a date; write it as YYYY-MM-DD, e.g. \"2026-09-01\"")]
    Malformed(String),
    /// The month or day does not exist (e.g. `2026-02-30`).
    #[error("'{0}' is not a day of the calendar")]
    NoSuchDay(String),
}

impl Date {
    /// A date from its parts; `None` when the day does not exist.
    pub fn new(year: i32, month: u8, day: u8) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        if !(1900..=9999).contains(&year) {
            return None;
        }
        Some(Date { year, month, day })
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Result<Date, DateError> {
        let parts: Vec<&str> = text.trim().split('-').collect();
        if parts.len() != 3 || parts[0].len() != 4 || parts[1].len() != 2 || parts[2].len() != 2 {
            return Err(DateError::Malformed(text.to_string()));
        }
        let num = |s: &str| s.parse::<i32>().map_err(|_| DateError::Malformed(text.to_string()));
        let (y, m, d) = (num(parts[0])?, num(parts[1])?, num(parts[2])?);
        Date::new(y, m as u8, d as u8).ok_or_else(|| DateError::NoSuchDay(text.to_string()))
    }

    /// The year.
    pub fn year(self) -> i32 {
        self.year
    }
    /// The month, 1–12.
    pub fn month(self) -> u8 {
        self.month
    }
    /// The day of the month, 1–31.
    pub fn day(self) -> u8 {
        self.day
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn to_days(self) -> i64 {
        // Howard Hinnant's days_from_civil.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// The date `n` days later (earlier when negative).
    pub fn add_days(self, n: i64) -> Date {
        Date::from_days(self.to_days() + n)
    }
}

/// Number of days in a month of a year.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_days_across_leap_years() {
        assert_eq!(Date::parse("1970-01-01").unwrap().to_days(), 0);
        assert_eq!(Date::parse("2000-03-01").unwrap().to_days(), 11_017);
        for d in -1000..40_000 {
            assert_eq!(Date::from_days(d).to_days(), d);
        }
        assert_eq!(Date::parse("2028-02-28").unwrap().add_days(1).to_string(), "2028-02-29");
    }

    #[test]
    fn refuses_impossible_and_malformed_dates() {
        assert!(matches!(Date::parse("2026-02-30"), Err(DateError::NoSuchDay(_))));
        assert!(matches!(Date::parse("2026/02/03"), Err(DateError::Malformed(_))));
        assert!(matches!(Date::parse("26-2-3"), Err(DateError::Malformed(_))));
    }
}
