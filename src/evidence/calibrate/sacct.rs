//! Observations from a cluster's own log (a `sacct --parsable2` export, or any log the
//! trace readers read that has calendar dates): for every calendar month with at least
//! [`MIN_JOBS`] started jobs, the mean and the p90 of their waits (Start − Submit), with
//! the log's own standard error as the tolerance. A log of the group's jobs only gives
//! observations of class `all`; a log of the whole campus, of class `campus`.

use super::spec::{Observation, Statistic, Who, Window};
use crate::date::Date;
use crate::trace::Trace;

/// Fewest started jobs in a month for it to give observations.
pub const MIN_JOBS: usize = 30;
/// Smallest tolerance (hours, 3 minutes): a month whose waits are all zero has a
/// standard error of zero, which no simulation could meet exactly.
pub const MIN_TOLERANCE_H: f64 = 0.05;

/// Why a log gives no observations.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The log's times are not calendar times.
    #[error("{0}: the log has no calendar dates (a sacct export or an SWF log with UnixStartTime has them)")]
    NoDates(String),
    /// Too few jobs.
    #[error(
        "{file}: no calendar month has {MIN_JOBS} started jobs{account}; calibrate from stated observations instead"
    )]
    TooFewJobs {
        /// The log.
        file: String,
        /// ` of account X` when filtered.
        account: String,
    },
}

/// The observations of a log: `who` is [`Who::Group`] (a log of the group's jobs) or
/// [`Who::Campus`] (the whole campus); `account` keeps only that account's jobs.
///
/// # Errors
/// [`LogError`] when the log has no dates or no month with enough jobs.
pub fn observations(trace: &Trace, file: &str, who: Who, account: Option<&str>) -> Result<Vec<Observation>, LogError> {
    let mut by_month: Vec<Vec<f64>> = vec![Vec::new(); 12];
    for j in &trace.jobs {
        if account.is_some_and(|a| j.group.as_deref() != Some(a)) {
            continue;
        }
        let (Some(wait), Some(local)) = (j.wait(), trace.info.local_time(j.submit)) else { continue };
        let month = Date::from_days(local.div_euclid(86_400)).month();
        by_month[usize::from(month) - 1].push(wait as f64 / 3600.0);
    }
    if trace.info.unix_start.is_none() {
        return Err(LogError::NoDates(file.into()));
    }
    let whose = match who {
        Who::Campus => "campus",
        _ => "all",
    };
    let mut out = Vec::new();
    for (m, waits) in by_month.iter_mut().enumerate() {
        if waits.len() < MIN_JOBS {
            continue;
        }
        let month = m as u8 + 1;
        let n = waits.len() as f64;
        let mean = waits.iter().sum::<f64>() / n;
        let sd = (waits.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        waits.sort_by(f64::total_cmp);
        let p90 = crate::stats::percentile_sorted(waits, 0.9);
        // Order-statistic standard error of the p90: the ranks n·p ± √(n·p·(1−p)).
        let spread = (n * 0.9 * 0.1).sqrt();
        let rank = |r: f64| waits[(r.round().max(0.0) as usize).min(waits.len() - 1)];
        let p90_se = (rank(n * 0.9 + spread) - rank(n * 0.9 - spread)) / 2.0;
        for (statistic, value, se) in [(Statistic::Mean, mean, sd / n.sqrt()), (Statistic::Percentile(90), p90, p90_se)]
        {
            out.push(Observation {
                label: format!("{whose}, months {month} (log), {}", statistic.name()),
                who,
                window: Window::Months(vec![month]),
                statistic,
                value,
                tolerance: se.max(MIN_TOLERANCE_H),
            });
        }
    }
    if out.is_empty() {
        return Err(LogError::TooFewJobs {
            file: file.into(),
            account: account.map_or(String::new(), |a| format!(" of account {a}")),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{TraceInfo, TraceJob};

    #[test]
    fn months_with_enough_jobs_give_a_mean_and_a_p90() {
        // 40 jobs in March 2026 (waits 0..39 h), 5 in April: only March counts.
        let march = Date::new(2026, 3, 10).unwrap().to_days() * 86_400;
        let april = Date::new(2026, 4, 10).unwrap().to_days() * 86_400;
        let mut jobs = Vec::new();
        for i in 0..40 {
            let mut j = TraceJob::new(i + 1, format!("{i}"), march);
            j.start = Some(march + i as i64 * 3600);
            jobs.push(j);
        }
        for i in 0..5 {
            let mut j = TraceJob::new(50 + i, format!("a{i}"), april);
            j.start = Some(april);
            jobs.push(j);
        }
        let trace =
            Trace { info: TraceInfo { unix_start: Some(0), ..TraceInfo::default() }, jobs, report: Default::default() };
        let obs = observations(&trace, "log", Who::Group, None).unwrap();
        assert_eq!(obs.len(), 2);
        assert_eq!(obs[0].window, Window::Months(vec![3]));
        assert!((obs[0].value - 19.5).abs() < 1e-9);
        assert!((obs[1].value - 35.1).abs() < 1e-9, "{}", obs[1].value);
        assert!(obs.iter().all(|o| o.tolerance > 0.0));
        assert!(matches!(observations(&trace, "log", Who::Group, Some("other")), Err(LogError::TooFewJobs { .. })));
    }
}
