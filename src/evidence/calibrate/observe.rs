//! What one candidate point predicts for the observations: the scenario is simulated by
//! the engine on replications `first..first + n` (the same job streams at every point:
//! common random numbers; a calibration's own years start at
//! [`super::FIRST_CALIBRATION_REPLICATION`], the fresh-years check at 0), and each
//! observation's statistic is computed from the per-job records of each simulated year. The experiment runner folds records away into metrics, so the
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
///
/// Residuals are taken on the scale ln(hours + tolerance), not in hours: a season near
/// saturation has yearly waits that are skewed and spread in proportion to their size,
/// so in hours a point far too high still looks close (its spread swallows the gap),
/// while on the log scale the spread is about the same at every load. Adding the
/// tolerance keeps a year without waits finite and makes differences smaller than the
/// tolerance count about linearly (docs/CALIBRATION.md, "Objective").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Simulated {
    /// Mean over the simulated years, and the year-to-year spread (`std_dev`), with a 95%
    /// CI of the mean, in hours: what the tables show.
    pub summary: Summary,
    /// Mean over the years of ln(hours + tolerance).
    pub centre: f64,
    /// The tolerance added before the logarithm (hours).
    pub offset: f64,
    /// Scale of the residual on the log scale: √(tol_log² + (1 + 1/n)·σ²_year,log), since
    /// the observation is one year's value and the simulated mean has its own Monte Carlo
    /// error; tol_log = tolerance / (observed + tolerance), the tolerance on that scale.
    pub scale: f64,
}

impl Simulated {
    /// Residual of the observation, simulated − observed (hours), for the tables.
    pub fn residual(&self, observed: f64) -> f64 {
        self.summary.mean - observed
    }

    /// Residual on the log scale: mean of ln(simulated + tolerance) − ln(observed + tolerance).
    pub fn gap(&self, observed: f64) -> f64 {
        self.centre - (observed + self.offset).ln()
    }

    /// The residual in units of its scale (on the log scale).
    pub fn z(&self, observed: f64) -> f64 {
        self.gap(observed) / self.scale
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

/// Simulates `policy` of `scenario` on replications `first..first + replications` and
/// returns, per observation, its value in each year (replication order).
pub fn simulate_years(
    scenario: &Scenario,
    policy: usize,
    first: u64,
    replications: u32,
    obs: &[Observation],
) -> Vec<Vec<f64>> {
    let years: Vec<Vec<f64>> = (first..first + u64::from(replications))
        .into_par_iter()
        .map(|r| {
            let stream = JobStream::generate(scenario, r);
            let out = engine::simulate(scenario, &stream, policy, r);
            year_statistics(scenario, &stream.jobs, &out.records, obs)
        })
        .collect();
    (0..obs.len()).map(|i| years.iter().map(|y| y[i]).collect()).collect()
}

/// Summarises one observation's yearly values against the `observed` value and its
/// `tolerance` (`None` when fewer than two years have a value: the spread, and so the
/// scale, is unknown).
pub fn simulated(years: &[f64], observed: f64, tolerance: f64) -> Option<Simulated> {
    let summary = summarize(years);
    if summary.n < 2 {
        return None;
    }
    let logs: Vec<f64> = years.iter().map(|&h| (h + tolerance).ln()).collect();
    let on_log = summarize(&logs);
    let tol_log = tolerance / (observed + tolerance);
    let scale = (tol_log * tol_log + (1.0 + 1.0 / on_log.n as f64) * on_log.std_dev * on_log.std_dev).sqrt();
    Some(Simulated { summary, centre: on_log.mean, offset: tolerance, scale })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_adds_the_year_to_year_spread_to_the_tolerance_on_the_log_scale() {
        // Years 2 h and 6 h, tolerance 2 h: ln 4 and ln 8, σ² = (ln 2)²/2, n = 2;
        // observed 6 h: tol_log = 2/8.
        let s = simulated(&[2.0, 6.0], 6.0, 2.0).unwrap();
        let var = 2f64.ln().powi(2) / 2.0;
        assert!((s.scale - (0.25f64.powi(2) + 1.5 * var).sqrt()).abs() < 1e-12);
        assert!((s.summary.mean - 4.0).abs() < 1e-12 && (s.residual(6.0) + 2.0).abs() < 1e-12);
        let gap = (4f64.ln() + 8f64.ln()) / 2.0 - 8f64.ln();
        assert!((s.z(6.0) - gap / s.scale).abs() < 1e-12);
        assert!(simulated(&[1.0, f64::NAN], 1.0, 1.0).is_none(), "one year with a value gives no spread");
    }

    #[test]
    fn a_point_far_too_high_is_far_even_when_its_years_spread_widely() {
        // Observed 24 h ± 6. Years that spread in proportion to their size (a saturated
        // season), around 400 h: in hours, with the years' spread in the scale, the gap is
        // under two scales (never rejected at 95%, however high the point); on the log
        // scale it is several.
        let high = simulated(&[160.0, 280.0, 400.0, 520.0, 640.0], 24.0, 6.0).unwrap();
        let sd = high.summary.std_dev;
        let in_hours = high.residual(24.0) / (36.0 + 1.2 * sd * sd).sqrt();
        assert!(in_hours < 1.96 && high.z(24.0) > 3.0, "hours {in_hours}, log z {}", high.z(24.0));
        // Years without waits stay finite.
        assert!(simulated(&[0.0, 0.0, 0.5], 24.0, 6.0).unwrap().z(24.0).is_finite());
    }
}
