//! What one candidate point predicts for the observations: the scenario is simulated by
//! the engine on replications `0..n` (the same job streams at every point: common random
//! numbers), and each observation's statistic is computed from the per-job records of
//! each simulated year. The experiment runner folds records away into metrics, so the
//! replications are run here with the same engine calls (`JobStream::generate`, then
//! `engine::simulate`), in parallel and collected in replication order: the numbers do
//! not depend on the thread count.

use rayon::prelude::*;

use super::spec::{Observation, Who, Window};
use crate::engine::{self, JobRecord};
use crate::job::Job;
use crate::scenario::Scenario;
use crate::stats::{Summary, summarize};
use crate::units::{HOUR, SimTime};
use crate::workload::JobStream;

/// The simulated value of one observation at one point, over the replications.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Simulated {
    /// Mean over the simulated years, and the year-to-year spread (`std_dev`), with a 95%
    /// CI of the mean.
    pub summary: Summary,
    /// Scale of the residual: √(tolerance² + (1 + 1/n)·σ²_year), since the observation is
    /// one year's value and the simulated mean has its own Monte Carlo error.
    pub scale: f64,
}

impl Simulated {
    /// Residual of the observation, simulated − observed (hours).
    pub fn residual(&self, observed: f64) -> f64 {
        self.summary.mean - observed
    }

    /// The residual in units of its scale.
    pub fn z(&self, observed: f64) -> f64 {
        self.residual(observed) / self.scale
    }
}

/// Whether a job falls in an observation's jobs and window.
fn matches(scenario: &Scenario, o: &Observation, job: &Job) -> bool {
    let whose = match o.who {
        Who::Campus => true,
        Who::Group => job.group,
        Who::Class(c) => job.group && job.class == c,
    };
    whose
        && match &o.window {
            Window::Year => true,
            Window::Months(months) => months.contains(&scenario.clock().date_at(job.submit).month()),
            Window::Season(windows) => windows.iter().any(|&(a, b)| job.submit >= a && job.submit < b),
        }
}

/// Each observation's statistic in one simulated year: the waits (first start −
/// submission) of the jobs submitted in the measured window that match it and started.
/// NaN for an observation no job matched.
pub fn year_statistics(scenario: &Scenario, jobs: &[Job], records: &[JobRecord], obs: &[Observation]) -> Vec<f64> {
    obs.iter()
        .map(|o| {
            let mut waits: Vec<f64> = jobs
                .iter()
                .zip(records)
                .filter(|(j, r)| j.submit >= scenario.warmup && j.submit < scenario.horizon && r.start != SimTime::MAX)
                .filter(|(j, _)| matches(scenario, o, j))
                .map(|(j, r)| (r.start - j.submit) as f64 / HOUR as f64)
                .collect();
            o.statistic.of(&mut waits)
        })
        .collect()
}

/// Simulates `policy` of `scenario` on replications `0..replications` and returns, per
/// observation, its value in each year (replication order).
pub fn simulate_years(scenario: &Scenario, policy: usize, replications: u32, obs: &[Observation]) -> Vec<Vec<f64>> {
    let years: Vec<Vec<f64>> = (0..u64::from(replications))
        .into_par_iter()
        .map(|r| {
            let stream = JobStream::generate(scenario, r);
            let out = engine::simulate(scenario, &stream, policy, r);
            year_statistics(scenario, &stream.jobs, &out.records, obs)
        })
        .collect();
    (0..obs.len()).map(|i| years.iter().map(|y| y[i]).collect()).collect()
}

/// Summarises one observation's yearly values (`None` when fewer than two years have a
/// value: the spread, and so the scale, is unknown).
pub fn simulated(years: &[f64], tolerance: f64) -> Option<Simulated> {
    let summary = summarize(years);
    if summary.n < 2 {
        return None;
    }
    let var_year = summary.std_dev * summary.std_dev;
    let scale = (tolerance * tolerance + (1.0 + 1.0 / summary.n as f64) * var_year).sqrt();
    Some(Simulated { summary, scale })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_adds_the_year_to_year_spread_to_the_tolerance() {
        let s = simulated(&[1.0, 3.0], 2.0).unwrap();
        // σ² = 2, n = 2: 4 + 1.5·2 = 7.
        assert!((s.scale - 7f64.sqrt()).abs() < 1e-12);
        assert!((s.z(0.0) - 2.0 / 7f64.sqrt()).abs() < 1e-12);
        assert!(simulated(&[1.0, f64::NAN], 1.0).is_none(), "one year with a value gives no spread");
    }
}
