//! What one replication of one policy measured.
//!
//! Waits and costs are for the group's own jobs submitted after the warm-up; utilisation
//! and offered load are the whole campus cluster's over `[warm-up, horizon)`. The list of
//! metrics ([`Metric::ALL`]) is the column order of `replications.csv` and the row order
//! of `summary.csv`; names are a stable contract (see DESIGN.md).

pub mod class;
pub mod daily;
pub mod season;

use crate::stats::percentile_sorted;

pub use daily::{Daily, DailyLevel};

use crate::metric::Metric;

// Which metrics a scenario writes depends on the scenario, which stands above the metric
// names ([`crate::metric`]); so these two methods live here.
impl Metric {
    /// Whether a scenario's outputs carry this metric: every metric but the
    /// [`Metric::CAPACITY`] ones, which only a scenario with the capacity model on has,
    /// and the [`Metric::WINDOWED`] ones, which only a campus with recurring windows has.
    pub fn written(self, scenario: &crate::scenario::Scenario) -> bool {
        (!Metric::CAPACITY.contains(&self) || scenario.models_capacity())
            && (!Metric::WINDOWED.contains(&self) || scenario.has_windows())
    }

    /// The metrics a scenario's outputs carry, in [`Metric::ALL`] order.
    pub fn all_written(scenario: &crate::scenario::Scenario) -> Vec<Metric> {
        Metric::ALL.iter().copied().filter(|m| m.written(scenario)).collect()
    }
}

/// The measurements of one replication of one policy.
#[derive(Clone, Debug, PartialEq)]
pub struct RunMetrics {
    /// One value per [`Metric::ALL`] entry (NaN = not defined in this replication).
    pub values: Vec<f64>,
    /// Waits (hours) of the measured group jobs: completed ones, in completion order,
    /// and reneged ones up to when they gave up (censored waits, docs/STATISTICS.md).
    pub waits_h: Vec<f64>,
    /// Daily series.
    pub daily: Daily,
    /// The scenario looked unstable in this replication (offered load ≥ 1, or a large
    /// backlog still growing at the horizon).
    pub unstable: bool,
    /// Per group class, then one entry for the whole group ([`crate::scenario::class_metrics::ALL_CLASSES`]): the
    /// values of the scenario's [`crate::scenario::class_metrics::ClassMetricSet`].
    pub classes: Vec<Vec<f64>>,
    /// Per group class of the scenario, the waits (hours) of its measured jobs, in
    /// completion order (for the per-class wait distribution).
    pub class_waits_h: Vec<Vec<f64>>,
    /// Per season row of [`season::SeasonSet`], per class row (as `classes`), the values
    /// of [`season::SEASON_METRICS`].
    pub seasons: Vec<Vec<Vec<f64>>>,
}

impl RunMetrics {
    /// The value of a metric.
    pub fn get(&self, m: Metric) -> f64 {
        self.values[m.index()]
    }
}

/// `values(t)` of every tally, computed once per distinct tally: rows often hold the same
/// jobs (with one class, a class's row and the "all classes" row; with no season on the
/// clock, "outside seasons" and "all"), and sorting their waits is most of the cost (four
/// sorts of every wait were a third of the end of a pool run with one class). Exact: equal
/// tallies give equal values. Tallies compare by `==`, which takes `0.0` for `-0.0`; no
/// wait, count or charge is ever negative zero (all start at `+0.0` and only grow).
pub fn values_once<T: PartialEq>(tallies: &[T], values: impl Fn(&T) -> Vec<f64>) -> Vec<Vec<f64>> {
    let mut out: Vec<Vec<f64>> = Vec::with_capacity(tallies.len());
    for (i, t) in tallies.iter().enumerate() {
        let v = match tallies[..i].iter().position(|u| u == t) {
            Some(k) => out[k].clone(),
            None => values(t),
        };
        out.push(v);
    }
    out
}

/// Wait statistics from a list of waits (hours): mean, p50, p95, p99, share > 0.
pub fn wait_stats(waits_h: &[f64]) -> [f64; 5] {
    if waits_h.is_empty() {
        return [f64::NAN; 5];
    }
    let mut sorted = waits_h.to_vec();
    sorted.sort_unstable_by(f64::total_cmp); // the same array as a stable sort: equal keys are equal bits
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    let waited = sorted.iter().filter(|&&w| w > 0.0).count() as f64 / sorted.len() as f64;
    [mean, percentile_sorted(&sorted, 0.5), percentile_sorted(&sorted, 0.95), percentile_sorted(&sorted, 0.99), waited]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for m in Metric::ALL {
            assert_eq!(Metric::from_name(m.name()), Some(m));
            assert_eq!(Metric::ALL[m.index()], m);
        }
    }
}
