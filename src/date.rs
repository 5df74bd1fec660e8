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
    /// The year is outside what the calendar arithmetic and the academic calendars cover.
    #[error("'{0}' lies outside the years 1900 to 9999 that a scenario may name")]
    YearOutOfRange(String),
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
        if !(1900..=9999).contains(&y) {
            return Err(DateError::YearOutOfRange(text.to_string()));
        }
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

/// The simulation clock against the civil calendar.
///
/// The measured window is the year (or `horizon_days`) from midnight of the start date;
/// the warm-up runs *before* it, so clock 0 is `start − warm-up` and the start date's
/// midnight is clock time `warmup`. Seasons, maintenance, budget periods and daily series
/// are placed through this mapping so that a date means the same day whatever the
/// warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// First measured day.
    pub start: Date,
    /// Clock time of the start date's midnight (the warm-up length), whole hours.
    pub warmup: u64,
}

impl Clock {
    /// Clock seconds of a date's midnight (negative before clock 0).
    pub fn seconds_of(self, d: Date) -> i64 {
        (d.to_days() - self.start.to_days()) * 86_400 + self.warmup as i64
    }

    /// The civil date at clock time `t`.
    pub fn date_at(self, t: u64) -> Date {
        let since_start = t as i64 - self.warmup as i64;
        self.start.add_days(since_start.div_euclid(86_400))
    }

    /// The measured day index of clock time `t` (0 = the start date); `None` during the
    /// warm-up.
    pub fn day_index(self, t: u64) -> Option<usize> {
        t.checked_sub(self.warmup).map(|s| (s / 86_400) as usize)
    }

    /// Hour of the week (Monday 00:00 = 0) at clock time 0.
    pub fn hour_of_week_at_zero(self) -> u64 {
        // 1970-01-01 (day 0) was a Thursday: Monday-based weekday = (days + 3) mod 7.
        let weekday = (self.start.to_days() + 3).rem_euclid(7);
        let hours = weekday * 24 - (self.warmup / 3_600) as i64;
        hours.rem_euclid(168) as u64
    }
}

/// Days from `start` to the same month-day a year later (365, or 366 across a 29 February).
pub fn days_in_year_from(start: Date) -> i64 {
    let next =
        Date::new(start.year() + 1, start.month(), start.day().min(days_in_month(start.year() + 1, start.month())))
            .unwrap_or_else(|| start.add_days(365));
    next.to_days() - start.to_days()
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
    fn the_clock_puts_the_warm_up_before_the_start_date() {
        let start = Date::parse("2026-09-01").unwrap(); // a Tuesday
        let c = Clock { start, warmup: 14 * 86_400 };
        assert_eq!(c.seconds_of(start), 14 * 86_400);
        assert_eq!(c.date_at(0).to_string(), "2026-08-18");
        assert_eq!(c.date_at(14 * 86_400 - 1).to_string(), "2026-08-31");
        assert_eq!(c.date_at(14 * 86_400).to_string(), "2026-09-01");
        assert_eq!(c.day_index(14 * 86_400 - 1), None);
        assert_eq!(c.day_index(15 * 86_400), Some(1));
        // 2026-08-18 is a Tuesday: hour 24 of the week.
        assert_eq!(c.hour_of_week_at_zero(), 24);
        assert_eq!(Clock { start, warmup: 0 }.hour_of_week_at_zero(), 24);
        assert_eq!(Clock { start, warmup: 3_600 }.hour_of_week_at_zero(), 23);
        assert_eq!(days_in_year_from(start), 365);
        assert_eq!(days_in_year_from(Date::parse("2027-09-01").unwrap()), 366);
        assert_eq!(days_in_year_from(Date::parse("2028-02-29").unwrap()), 365);
    }

    #[test]
    fn refuses_impossible_and_malformed_dates() {
        assert!(matches!(Date::parse("2026-02-30"), Err(DateError::NoSuchDay(_))));
        assert!(matches!(Date::parse("0001-01-01"), Err(DateError::YearOutOfRange(_))));
        assert!(matches!(Date::parse("2026/02/03"), Err(DateError::Malformed(_))));
        assert!(matches!(Date::parse("26-2-3"), Err(DateError::Malformed(_))));
    }
}
