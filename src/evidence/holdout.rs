//! Out-of-sample validation (`burstsim validate --trace LOG --out-of-sample`): fit a
//! scenario on the first half of a log (by submission time), simulate the second half's
//! period from it (fitted arrivals, sizes, runtimes, seasons, random outages, scheduler
//! cycle; several replications), and compare the simulated waits of the log's jobs with
//! the second half's recorded waits.
//!
//! The fitted scenario is exactly what `burstsim fit` writes for the first half, with two
//! changes: its start date is the second half's first day and its horizon the second
//! half's length (in whole days), so the calendar seasons and the hour-of-week profiles
//! (the background's and each request band's) apply to the period being predicted. A month the first half never saw keeps
//! multiplier 1 (fit's rule). Waits are those of every job submitted in the measured
//! window (all background jobs: the fitted scenario has no group of its own).

use super::fit::{FitError, LogFit, LogFitOptions, fit, write::to_toml};
use super::replay::{ReplayOptions, WaitStats, to_jobs};
use crate::engine::simulate;
use crate::scenario::Scenario;
use crate::stats::{Summary, summarize};
use crate::trace::Trace;
use crate::trace::convert::Units;
use crate::units::{DAY, SimTime};
use crate::workload::JobStream;

/// What an out-of-sample check gives.
#[derive(Clone, Debug)]
pub struct OutOfSample {
    /// The scenario fitted on the first half (TOML, with the second half's dates).
    pub scenario_toml: String,
    /// Jobs in each half.
    pub first_jobs: usize,
    /// Jobs in the second half.
    pub second_jobs: usize,
    /// Recorded waits of the second half.
    pub recorded: WaitStats,
    /// Per replication, the simulated waits' statistics.
    pub simulated: Vec<WaitStats>,
}

impl OutOfSample {
    /// Mean wait over replications, with its 95% CI.
    pub fn mean(&self) -> Summary {
        summarize(&self.simulated.iter().map(|s| s.mean_h).collect::<Vec<_>>())
    }

    /// `(statistic, recorded, simulated mean, CI low, CI high)` rows.
    pub fn rows(&self) -> Vec<(&'static str, f64, Summary)> {
        let col = |f: fn(&WaitStats) -> f64| summarize(&self.simulated.iter().map(f).collect::<Vec<_>>());
        let r = &self.recorded;
        vec![
            ("jobs", r.n as f64, col(|s| s.n as f64)),
            ("mean_wait_h", r.mean_h, col(|s| s.mean_h)),
            ("p50_wait_h", r.p50_h, col(|s| s.p50_h)),
            ("p90_wait_h", r.p90_h, col(|s| s.p90_h)),
            ("p95_wait_h", r.p95_h, col(|s| s.p95_h)),
            ("p99_wait_h", r.p99_h, col(|s| s.p99_h)),
            ("zero_wait_share", r.zero_share, col(|s| s.zero_share)),
        ]
    }

    /// The comparison as CSV: `metric,recorded,simulated,ratio,ci95_low,ci95_high,replications`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("metric,recorded,simulated,ratio,ci95_low,ci95_high,replications\n");
        for (name, r, x) in self.rows() {
            let ratio = if r != 0.0 && r.is_finite() { (x.mean / r).to_string() } else { String::new() };
            s.push_str(&format!("{name},{r},{},{ratio},{},{},{}\n", x.mean, x.low(), x.high(), x.n));
        }
        s
    }

    /// The comparison as a table.
    pub fn to_table(&self) -> String {
        let mut s = format!("{:<18} {:>12} {:>24} {:>8}\n", "queue delay", "recorded", "simulated (95% CI)", "sim/rec");
        for (name, r, x) in self.rows() {
            let f = |v: f64| if name == "jobs" { format!("{v:.0}") } else { format!("{v:.3}") };
            let sim = format!("{} [{}, {}]", f(x.mean), f(x.low()), f(x.high()));
            let ratio = if r != 0.0 && r.is_finite() { format!("{:.2}", x.mean / r) } else { "–".into() };
            s.push_str(&format!("{:<18} {:>12} {:>24} {:>8}\n", name, f(r), sim, ratio));
        }
        s
    }
}

/// Why an out-of-sample check cannot run.
#[derive(Debug, thiserror::Error)]
pub enum HoldoutError {
    /// The first half cannot be fitted.
    #[error("the first half of the log cannot be fitted: {0}")]
    Fit(#[from] FitError),
    /// The fitted scenario does not load.
    #[error("the scenario fitted on the first half does not load: {0}")]
    Scenario(String),
    /// The log has no recorded waits or no calendar.
    #[error("{0}")]
    Log(String),
}

/// The scenario `burstsim fit` writes for `f`, with its start date moved to `start`, the
/// first day predicted (`why` says which, in the file's comment), so that the calendar
/// seasons and the hour-of-week profile apply to the period being predicted.
///
/// # Errors
/// [`HoldoutError::Scenario`] if the written scenario has no start date to move.
pub fn dated_toml(f: &LogFit, start: crate::date::Date, why: &str) -> Result<String, HoldoutError> {
    let mut text = to_toml(f);
    let at = text.find("start_date = \"").ok_or_else(|| HoldoutError::Scenario("no start_date".into()))?;
    let end = at + text[at..].find('\n').unwrap_or(0);
    text.replace_range(at..end, &format!("start_date = \"{start}\"   # {why}"));
    Ok(text)
}

/// Loads a fitted scenario's text with the check's replications and seed.
///
/// # Errors
/// [`HoldoutError::Scenario`] if the scenario does not load.
pub fn load(text: &str, replications: u32, seed: u64) -> Result<Scenario, HoldoutError> {
    Ok(Scenario::from_toml_str(text, "<out-of-sample>")
        .map_err(|e| HoldoutError::Scenario(e.to_string()))?
        .with_overrides(Some(seed), Some(replications)))
}

/// Fits the first half of `trace` (`gpus` units, `units`) and simulates the second half's
/// period `replications` times (seed `seed`).
///
/// # Errors
/// [`HoldoutError`] when the log has no waits or calendar, or the first half cannot be fitted.
pub fn out_of_sample(
    trace: &Trace,
    gpus: u32,
    units: Units,
    procs_per_gpu: f64,
    replications: u32,
    seed: u64,
) -> Result<OutOfSample, HoldoutError> {
    let ro = ReplayOptions { units, procs_per_gpu, ..ReplayOptions::new(gpus) };
    let all = to_jobs(trace, &ro);
    if all.recorded_wait.iter().all(Option::is_none) {
        return Err(HoldoutError::Log("the log records no waits: nothing to compare the prediction with".into()));
    }
    let n = all.jobs.len();
    if n < 40 {
        return Err(HoldoutError::Log(format!("{n} usable jobs are too few to split in halves")));
    }
    // The split: the median submission; the second half starts at its day's midnight
    // (local time), so the prediction covers whole days.
    let mid = all.origin + all.jobs[n / 2].submit as i64;
    let local_mid = trace
        .info
        .local_time(mid)
        .ok_or_else(|| HoldoutError::Log("the log has no calendar (no UnixStartTime)".into()))?;
    let offset = local_mid - mid; // local − log clock
    let day0 = local_mid.div_euclid(DAY as i64) * DAY as i64; // local midnight
    let split = day0 - offset; // on the log's clock
    let last = all.origin + all.jobs[n - 1].submit as i64;
    let days = ((last - split) as f64 / DAY as f64).ceil().max(1.0);
    let mut first = trace.clone();
    first.jobs.retain(|j| j.submit < split);
    let o = LogFitOptions {
        gpus: Some(gpus),
        horizon_days: Some(days),
        units,
        procs_per_gpu,
        name: "out-of-sample".into(),
        source: "the first half of the log".into(),
        group: None,
    };
    let f = fit(&first, &o)?;
    let start = crate::date::Date::from_days(day0.div_euclid(DAY as i64));
    let text = dated_toml(&f, start, "the second half's first day")?;
    let scn = load(&text, replications, seed)?;
    // Recorded: jobs submitted in the second half.
    let rec: Vec<i64> = all
        .jobs
        .iter()
        .zip(&all.recorded_wait)
        .filter(|(j, _)| all.origin + j.submit as i64 >= split)
        .filter_map(|(_, w)| *w)
        .collect();
    let mut simulated = Vec::new();
    for r in 0..u64::from(replications) {
        let stream = JobStream::generate(&scn, r);
        let out = simulate(&scn, &stream, 0, r);
        let waits: Vec<i64> = out
            .records
            .iter()
            .zip(&stream.jobs)
            .filter(|(rec, j)| j.submit >= scn.warmup && j.submit < scn.horizon && rec.start != SimTime::MAX)
            .map(|(rec, j)| (rec.start - j.submit) as i64)
            .collect();
        simulated.push(WaitStats::of_seconds(&waits));
    }
    Ok(OutOfSample {
        scenario_toml: text,
        first_jobs: n - rec.len().min(n),
        second_jobs: rec.len(),
        recorded: WaitStats::of_seconds(&rec),
        simulated,
    })
}
