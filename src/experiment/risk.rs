//! Risk across years: in what share of simulated years does a policy miss its targets?
//!
//! Every replication is one independent simulated year, so the number of years that miss
//! is binomial and its share gets an exact Clopper–Pearson interval
//! ([`crate::stats::binomial`]). This answers a different question from the CI of the
//! mean: a setting whose *mean* p95 wait is safely under 2 h can still exceed 2 h in one
//! year in four.
//!
//! A year *misses* when any target's metric is on the wrong side of its bound. A year in
//! which a target's metric is undefined (NaN, e.g. no group job finished) cannot be shown
//! to meet it, so it is counted as a miss too (conservative), and counted separately in
//! [`MissCount::undefined`] so the output can say so.

use super::Results;
use crate::scenario::Scenario;
use crate::stats::binomial::{clopper_pearson, upper_bound};
use crate::target::Target;

/// How many of the simulated years missed the targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MissCount {
    /// Simulated years (replications).
    pub years: usize,
    /// Years that missed at least one target, or in which a target's metric was undefined.
    pub missed: usize,
    /// Of `missed`: years that met every target that was defined but had an undefined one.
    pub undefined: usize,
}

impl MissCount {
    /// Counts the years (rows) missing any of `targets`; `column(t)` gives the per-year
    /// values of target `t`'s metric (of its class, for a class target), all of the same
    /// length.
    ///
    /// # Panics
    /// If the columns differ in length.
    pub fn count(targets: &[Target], column: impl Fn(&Target) -> Vec<f64>) -> MissCount {
        let cols: Vec<(&Target, Vec<f64>)> = targets.iter().map(|t| (t, column(t))).collect();
        let years = cols.first().map_or(0, |c| c.1.len());
        assert!(cols.iter().all(|c| c.1.len() == years), "every metric has one value per year");
        let mut out = MissCount { years, ..MissCount::default() };
        for y in 0..years {
            let verdicts: Vec<Option<bool>> = cols.iter().map(|(t, v)| t.missed_by(v[y])).collect();
            if verdicts.contains(&Some(true)) {
                out.missed += 1;
            } else if verdicts.contains(&None) {
                out.missed += 1;
                out.undefined += 1;
            }
        }
        out
    }

    /// The share of years that missed (NaN without years).
    pub fn share(&self) -> f64 {
        if self.years == 0 { f64::NAN } else { self.missed as f64 / self.years as f64 }
    }

    /// The exact two-sided 95% interval of the chance that a year misses.
    pub fn ci95(&self) -> (f64, f64) {
        clopper_pearson(self.missed, self.years, 0.95)
    }

    /// The one-sided upper bound of the chance that a year misses, at `confidence`.
    pub fn upper(&self, confidence: f64) -> f64 {
        upper_bound(self.missed, self.years, confidence)
    }
}

/// The years one policy missed.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRisk {
    /// Policy name.
    pub policy: String,
    /// Its count.
    pub count: MissCount,
}

/// For every policy of an experiment, the years that missed `targets`. A class target
/// whose class is not in the scenario is undefined in every year.
pub fn policy_risks(scenario: &Scenario, results: &Results, targets: &[Target]) -> Vec<PolicyRisk> {
    let classes = scenario.class_names();
    let metrics = scenario.class_metrics.names();
    scenario
        .policies
        .iter()
        .enumerate()
        .map(|(p, policy)| PolicyRisk {
            policy: policy.name.clone(),
            count: MissCount::count(targets, |t| match &t.class {
                None => results.column(p, t.metric),
                Some(class) => {
                    let c = classes.iter().position(|n| n == class);
                    let m = metrics.iter().position(|(n, _)| n == t.metric.name());
                    match (c, m) {
                        (Some(c), Some(m)) => results.class_column(p, c, m),
                        _ => vec![f64::NAN; results.replications.len()],
                    }
                }
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::Metric;
    use crate::target::parse_target;

    #[test]
    fn a_year_misses_when_any_target_misses_or_is_undefined() {
        let targets = [parse_target("wait_p95_h<=2").unwrap(), parse_target("cloud_job_share<=50%").unwrap()];
        let p95 = vec![1.0, 3.0, 1.5, f64::NAN, 2.0, 0.5];
        let cloud = vec![0.1, 0.1, 0.9, 0.1, 0.2, f64::NAN];
        let c = MissCount::count(&targets, |t| if t.metric == Metric::WaitP95 { p95.clone() } else { cloud.clone() });
        // Years 1 (p95) and 2 (cloud) miss; 3 and 5 are undefined; 0 and 4 (on the bound) meet.
        assert_eq!(c, MissCount { years: 6, missed: 4, undefined: 2 });
        assert!((c.share() - 4.0 / 6.0).abs() < 1e-12);
        let (lo, hi) = c.ci95();
        assert!(lo < c.share() && c.share() < hi);
        assert!(MissCount::default().share().is_nan());
    }
}
