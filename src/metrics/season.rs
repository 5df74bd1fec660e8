//! Results by season: a PI's question is "how long will my jobs wait in April", not the
//! year's average.
//!
//! Every group job submitted in the measured window is filed by its **submission time**
//! under each season whose window holds that time (seasons of `[background]` and of
//! `[workload]`; a name used in both lists is one row), under "outside seasons" when no
//! season holds it, and always under "all". Per season row and per class row (each group
//! class, then [`crate::scenario::class_metrics::ALL_CLASSES`]) one replication records the jobs submitted,
//! the wait's mean, p50 and p95, the jobs that gave up (reneged or balked) and the cloud
//! share. Waits are those of `wait_mean_h`: completed jobs, and reneged jobs up to the
//! moment they gave up (a censored wait, docs/STATISTICS.md). Across replications each
//! value gets the same mean and 95% CI as the headline metrics (`seasons.csv`).

use crate::scenario::Scenario;
use crate::stats::percentile_sorted;
use crate::units::SimTime;

/// The row of jobs submitted in no season.
pub const OUTSIDE_SEASONS: &str = "(outside seasons)";
/// The row of every job of the window.
pub const ALL_SEASONS: &str = "(all)";

/// The per-season metrics, with units, in column order.
pub const SEASON_METRICS: [(&str, &str); 6] = [
    ("jobs_submitted", "jobs"),
    ("wait_mean_h", "h"),
    ("wait_p50_h", "h"),
    ("wait_p95_h", "h"),
    ("jobs_gave_up", "jobs"),
    ("cloud_job_share", "share"),
];

/// The season rows of a scenario and the windows that file jobs under them.
#[derive(Clone, Debug, PartialEq)]
pub struct SeasonSet {
    /// Row names: the named seasons (background first, then the group's, each name once),
    /// then [`OUTSIDE_SEASONS`] and [`ALL_SEASONS`].
    pub names: Vec<String>,
    /// `(row, start, end)`: a job submitted in `[start, end)` belongs to `row`.
    windows: Vec<(usize, SimTime, SimTime)>,
}

impl SeasonSet {
    /// The seasons of a scenario's two calendars.
    pub fn of(scenario: &Scenario) -> SeasonSet {
        let mut names: Vec<String> = Vec::new();
        let mut windows = Vec::new();
        for cal in [&scenario.background_calendar, &scenario.group_calendar] {
            for w in &cal.windows {
                let name = &cal.seasons[w.season].name;
                let row = names.iter().position(|n| n == name).unwrap_or_else(|| {
                    names.push(name.clone());
                    names.len() - 1
                });
                windows.push((row, w.start, w.end));
            }
        }
        // Seasons listed but with no window on the clock still get their (empty) row.
        for cal in [&scenario.background_calendar, &scenario.group_calendar] {
            for s in &cal.seasons {
                if !names.contains(&s.name) {
                    names.push(s.name.clone());
                }
            }
        }
        names.push(OUTSIDE_SEASONS.into());
        names.push(ALL_SEASONS.into());
        SeasonSet { names, windows }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there are no rows (never: "outside seasons" and "all" are always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Puts in `rows` the rows a job submitted at `t` is filed under, ascending: its
    /// seasons (or "outside seasons"), then "all". The caller's buffer is reused from
    /// one job to the next (a vector per job was half the cost of filing them).
    pub fn rows_of(&self, t: SimTime, rows: &mut Vec<usize>) {
        rows.clear();
        rows.extend(self.windows.iter().filter(|w| w.1 <= t && t < w.2).map(|w| w.0));
        rows.sort_unstable();
        rows.dedup();
        if rows.is_empty() {
            rows.push(self.len() - 2);
        }
        rows.push(self.len() - 1);
    }
}

/// What one replication measured of the jobs of one season and class row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeasonTally {
    /// Jobs submitted.
    pub submitted: u64,
    /// Waits, hours (completed jobs, and reneged ones up to when they gave up).
    pub waits_h: Vec<f64>,
    /// Jobs that reneged or balked.
    pub gave_up: u64,
    /// Completed jobs, and of those the ones that ran in the cloud.
    pub completed: u64,
    /// Completed in the cloud.
    pub cloud: u64,
}

impl SeasonTally {
    /// The values of [`SEASON_METRICS`] (NaN where undefined: quantiles of no waits).
    pub fn values(&self) -> Vec<f64> {
        let mut sorted = self.waits_h.clone();
        sorted.sort_unstable_by(f64::total_cmp); // as stable: equal keys are equal bits
        let n = sorted.len();
        let mean = if n == 0 { f64::NAN } else { sorted.iter().sum::<f64>() / n as f64 };
        let cloud = if self.completed == 0 { f64::NAN } else { self.cloud as f64 / self.completed as f64 };
        vec![
            self.submitted as f64,
            mean,
            percentile_sorted(&sorted, 0.5),
            percentile_sorted(&sorted, 0.95),
            self.gave_up as f64,
            cloud,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> SeasonSet {
        SeasonSet {
            names: vec!["a".into(), "b".into(), OUTSIDE_SEASONS.into(), ALL_SEASONS.into()],
            windows: vec![(0, 10, 20), (1, 15, 30), (0, 100, 110)],
        }
    }

    #[test]
    fn a_job_is_filed_under_every_season_holding_its_submission_and_under_all() {
        let s = set();
        let mut buf = vec![7, 7, 7]; // a reused buffer: what it held before is dropped
        let mut rows_of = |t| {
            s.rows_of(t, &mut buf);
            buf.clone()
        };
        assert_eq!(rows_of(12), vec![0, 3]);
        assert_eq!(rows_of(16), vec![0, 1, 3], "overlapping seasons: both");
        assert_eq!(rows_of(20), vec![1, 3], "a window's end is outside it");
        assert_eq!(rows_of(105), vec![0, 3], "a recurring season's second window");
        assert_eq!(rows_of(50), vec![2, 3], "in no season");
    }

    #[test]
    fn values_follow_the_metric_list() {
        let t = SeasonTally { submitted: 5, waits_h: vec![4.0, 0.0, 2.0], gave_up: 2, completed: 2, cloud: 1 };
        let v = t.values();
        assert_eq!(v.len(), SEASON_METRICS.len());
        assert_eq!(v, vec![5.0, 2.0, 2.0, percentile_sorted(&[0.0, 2.0, 4.0], 0.95), 2.0, 0.5]);
        let empty = SeasonTally::default().values();
        assert_eq!(empty[0], 0.0);
        assert!(empty[1].is_nan() && empty[3].is_nan() && empty[5].is_nan());
    }
}
