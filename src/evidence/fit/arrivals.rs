//! When the log's jobs arrive: monthly multipliers (the seasons) and the hour-of-day or
//! hour-of-week profile, each with the minimum data of the module doc of `fit.rs` and a
//! [`FitWarning`] for each step down. Apart from the size classes and runtime fits,
//! which look at what the jobs are, not when they come.

use super::{
    ArrivalProfile, FitWarning, MIN_DAYS, MIN_JOBS_PER_CELL, MIN_MONTH_DAYS, MIN_MONTH_JOBS, MIN_WEEKS, MonthRate,
};
use crate::date::Date;
use crate::units::DAY;

/// The arrival profile the data supports (see the module doc), with a warning for each
/// step down.
pub(super) fn arrival_profile(submits: &[i64], from: i64, to: i64, warnings: &mut Vec<FitWarning>) -> ArrivalProfile {
    let (jobs, days) = (submits.len(), (to - from) as f64 / DAY as f64);
    if jobs as f64 >= 168.0 * MIN_JOBS_PER_CELL && days >= 7.0 * MIN_WEEKS {
        return ArrivalProfile::HourOfWeek(hour_of_week_rates(submits, from, to));
    }
    if jobs as f64 >= 24.0 * MIN_JOBS_PER_CELL && days >= MIN_DAYS {
        warnings.push(FitWarning::HourOfDayProfile { jobs, weeks: days / 7.0 });
        return ArrivalProfile::HourOfDay(hour_of_day_rates(submits, from, to));
    }
    warnings.push(FitWarning::FlatProfile { jobs, days });
    ArrivalProfile::Flat
}

/// Monthly multipliers for the months with enough data (see the module doc): each month's
/// work submitted per day (`work[i]` is job `i`'s GPU-seconds) ÷ the log's mean.
///
/// Work, not job counts: the simulation draws a job's size and run time whatever the
/// month, so a multiplier scales the month's offered load. A log whose busy months bring
/// many small jobs (KTH-SP2's May: 1.32× the mean jobs a day, about the mean load) would
/// otherwise get months far busier and far quieter than it had, and queues that wait
/// longer than its own (docs/VALIDATION.md, "Out of sample within the regime", point 6).
pub(super) fn seasons(
    submits: &[i64],
    work: &[f64],
    from: i64,
    to: i64,
    warnings: &mut Vec<FitWarning>,
) -> Vec<MonthRate> {
    const NAMES: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let mut months = month_rates(submits, work, from, to);
    let enough = |m: &MonthRate| m.days >= MIN_MONTH_DAYS && m.jobs >= MIN_MONTH_JOBS;
    let good = months.iter().filter(|m| enough(m)).count();
    if good < 2 {
        warnings.push(FitWarning::NoSeasons { months: good });
        return Vec::new();
    }
    let thin: Vec<&'static str> =
        months.iter().filter(|m| m.days > 0.0 && !enough(m)).map(|m| NAMES[m.month as usize - 1]).collect();
    for m in months.iter_mut().filter(|m| !enough(m)) {
        m.multiplier = 1.0;
    }
    if !thin.is_empty() {
        warnings.push(FitWarning::ThinMonths { months: thin });
    }
    months
}

fn month_rates(submits: &[i64], work: &[f64], from: i64, to: i64) -> Vec<MonthRate> {
    debug_assert_eq!(submits.len(), work.len());
    let day = DAY as i64;
    let mut days = [0.0f64; 12];
    let mut t = from;
    while t < to {
        let next = ((t.div_euclid(day) + 1) * day).min(to);
        days[Date::from_days(t.div_euclid(day)).month() as usize - 1] += (next - t) as f64 / day as f64;
        t = next;
    }
    let (mut jobs, mut month_work) = ([0usize; 12], [0.0f64; 12]);
    for (&s, &w) in submits.iter().zip(work) {
        let m = Date::from_days(s.div_euclid(day)).month() as usize - 1;
        jobs[m] += 1;
        month_work[m] += w;
    }
    let mean = month_work.iter().sum::<f64>() / days.iter().sum::<f64>();
    (0..12)
        .map(|m| MonthRate {
            month: m as u8 + 1,
            days: days[m],
            jobs: jobs[m],
            multiplier: if days[m] >= 1.0 && mean > 0.0 { (month_work[m] / days[m] / mean).min(100.0) } else { 1.0 },
        })
        .collect()
}

/// The cell of local time `t` in a profile of `cells` hours (168: hour of week, Monday
/// 00:00 first; else hour of day).
pub(super) fn profile_cell(t: i64, cells: usize) -> usize {
    if cells == 168 { hour_of_week(t) } else { (t.rem_euclid(DAY as i64) / 3600) as usize }
}

/// Hour-of-week index (Monday 00:00 = 0) of local seconds since 1970-01-01 (a Thursday).
fn hour_of_week(t: i64) -> usize {
    let day = t.div_euclid(DAY as i64);
    let weekday = (day + 3).rem_euclid(7); // Monday = 0
    (weekday * 24 + t.rem_euclid(DAY as i64) / 3600) as usize
}

/// Relative arrival rates by local hour of the day (24 values averaging 1 over the log's
/// exposure).
fn hour_of_day_rates(submits: &[i64], from: i64, to: i64) -> Vec<f64> {
    let mut exposure = [0.0f64; 24];
    let mut t = from;
    while t < to {
        let next = ((t.div_euclid(3600) + 1) * 3600).min(to);
        exposure[(t.rem_euclid(DAY as i64) / 3600) as usize] += (next - t) as f64 / 3600.0;
        t = next;
    }
    let mut counts = [0usize; 24];
    for &s in submits {
        counts[(s.rem_euclid(DAY as i64) / 3600) as usize] += 1;
    }
    let mean = submits.len() as f64 / exposure.iter().sum::<f64>();
    (0..24).map(|h| if exposure[h] > 0.0 { counts[h] as f64 / exposure[h] / mean } else { f64::NAN }).collect()
}

fn hour_of_week_rates(submits: &[i64], from: i64, to: i64) -> Vec<f64> {
    let mut exposure = [0.0f64; 168];
    let mut t = from;
    while t < to {
        let next = ((t.div_euclid(3600) + 1) * 3600).min(to);
        exposure[hour_of_week(t)] += (next - t) as f64 / 3600.0;
        t = next;
    }
    let mut counts = [0usize; 168];
    for &s in submits {
        counts[hour_of_week(s)] += 1;
    }
    let mean = submits.len() as f64 / exposure.iter().sum::<f64>();
    (0..168).map(|h| if exposure[h] > 0.0 { counts[h] as f64 / exposure[h] / mean } else { f64::NAN }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrival_profile_steps_down_with_the_data_and_says_why() {
        let day = 86_400;
        // `n` submissions spread evenly over `days` days from a Monday.
        let spread = |n: i64, days: i64| -> (Vec<i64>, i64, i64) {
            let from = 4 * day;
            ((0..n).map(|i| from + i * days * day / n).collect(), from, from + days * day)
        };
        let mut w = Vec::new();
        let (s, a, b) = spread(2_000, 35);
        assert!(matches!(arrival_profile(&s, a, b, &mut w), ArrivalProfile::HourOfWeek(v) if v.len() == 168));
        assert!(w.is_empty());
        let (s, a, b) = spread(2_000, 20);
        assert!(matches!(arrival_profile(&s, a, b, &mut w), ArrivalProfile::HourOfDay(v) if v.len() == 24));
        assert!(matches!(w[..], [FitWarning::HourOfDayProfile { jobs: 2_000, .. }]), "{w:?}");
        w.clear();
        let (s, a, b) = spread(300, 3);
        assert_eq!(arrival_profile(&s, a, b, &mut w), ArrivalProfile::Flat, "300 jobs but only 3 days");
        let (s, a, b) = spread(100, 60);
        assert_eq!(arrival_profile(&s, a, b, &mut w), ArrivalProfile::Flat, "60 days but only 100 jobs");
        assert!(w.iter().all(|x| matches!(x, FitWarning::FlatProfile { .. })) && w.len() == 2);
        assert!(w[1].to_string().contains("the log has 100 over 60.0 days"), "{}", w[1]);
        // Hour of day is written as 168 values, the same every weekday.
        let hod = ArrivalProfile::HourOfDay((0..24).map(f64::from).collect()).hourly_168().unwrap();
        assert_eq!((hod.len(), hod[24 + 5], hod[167]), (168, 5.0, 23.0));
    }

    #[test]
    fn months_with_too_little_data_keep_multiplier_one_and_one_month_gives_no_seasons() {
        let day = 86_400;
        let from = 0; // 1970-01-01
        let mut w = Vec::new();
        // 40 days, 4 jobs a day: January is full, February has 9 days (36 jobs).
        let s: Vec<i64> = (0..160).map(|i| from + i * day / 4).collect();
        let m = seasons(&s, &vec![1.0; s.len()], from, from + 40 * day, &mut w);
        assert!(m.is_empty() && matches!(w[..], [FitWarning::NoSeasons { months: 1 }]), "{w:?}");
        w.clear();
        // 75 days: January and February full, March 16 days but only 10 jobs.
        let mut s: Vec<i64> = (0..236).map(|i| from + i * day / 4).collect();
        s.extend((0..10).map(|i| from + 59 * day + i * day));
        let m = seasons(&s, &vec![1.0; s.len()], from, from + 75 * day, &mut w);
        assert_eq!(m[2].multiplier, 1.0, "March has too few jobs");
        assert!(m[0].multiplier > 1.0, "January is estimated: {:?}", m[0]);
        assert!(matches!(&w[..], [FitWarning::ThinMonths { months }] if months == &["Mar"]), "{w:?}");
    }

    #[test]
    fn calendar_rates_average_one() {
        // 1970-01-05 is a Monday.
        assert_eq!(hour_of_week(4 * 86_400), 0);
        assert_eq!(hour_of_week(4 * 86_400 + 7 * 86_400 - 1), 167);
        let from = 0;
        let to = 365 * 86_400;
        let submits: Vec<i64> = (0..3650).map(|i| i * 8640 + if i % 2 == 0 { 0 } else { 3600 }).collect();
        let work: Vec<f64> = (0..submits.len()).map(|i| 1.0 + (i % 7) as f64).collect();
        let months = month_rates(&submits, &work, from, to);
        let mean: f64 = months.iter().map(|m| m.multiplier * m.days).sum::<f64>() / 365.0;
        assert!((mean - 1.0).abs() < 1e-9, "{mean}");
        let how = hour_of_week_rates(&submits, from, to);
        assert!((how.iter().sum::<f64>() / 168.0 - 1.0).abs() < 0.01);
    }

    #[test]
    fn a_month_of_many_small_jobs_keeps_the_load_it_had() {
        // January: 4 jobs a day of 1 GPU-hour; February: 8 a day of half an hour each.
        // The same work a day, so the same multiplier, though twice the jobs.
        let day = 86_400;
        let mut submits: Vec<i64> = (0..31 * 4).map(|i| i * day / 4).collect();
        let mut work = vec![3600.0; submits.len()];
        submits.extend((0..28 * 8).map(|i| 31 * day + i * day / 8));
        work.resize(submits.len(), 1800.0);
        let m = month_rates(&submits, &work, 0, 59 * day);
        assert!((m[0].multiplier - 1.0).abs() < 1e-9 && (m[1].multiplier - 1.0).abs() < 1e-9, "{:?}", &m[..2]);
        assert_eq!((m[0].jobs, m[1].jobs), (124, 224));
        // Twice the work a day in February: its multiplier is twice January's.
        let heavy: Vec<f64> = work.iter().enumerate().map(|(i, &w)| if i >= 124 { 2.0 * w } else { w }).collect();
        let m = month_rates(&submits, &heavy, 0, 59 * day);
        assert!((m[1].multiplier / m[0].multiplier - 2.0).abs() < 1e-9, "{:?}", &m[..2]);
    }
}
