//! `advise` scored on a real log, out of sample (issue 44 item 1: `burstsim validate
//! --trace LOG --out-of-sample --backtest N`).
//!
//! ```text
//! log ─ probes: N jobs of the test period, evenly spread in time (deterministic)
//!     ─ per probe, at its submission t:
//!         snapshot_at(t)      running jobs (started ≤ t < end: elapsed, limit) and pending
//!                             jobs (submitted < t, start > t) in the site's order (FCFS)
//!         scenario            `fit` on the jobs submitted before the probe's month
//!                             (+ the site's documented rules, KTH's time-of-day limits)
//!         advise              start_samples ─▶ quantiles 2.5 … 97.5%
//!         baselines           plan at limits (squeue --start), 0.7 × mean limit × pending
//!     ─ score the recorded start: coverage of the 50/80/95% intervals, within ×2, median
//!       absolute error, bias; overall and by recorded wait (< 1 h, 1–6 h, > 6 h)
//! ```
//!
//! **The snapshot** is what `squeue` and `sinfo` would have shown just before the probe
//! was submitted, rebuilt from the log's submit, start, run time, size and request: one
//! node holding the whole machine (both logs are run as a pool: every KTH-SP2 job takes
//! whole one-processor nodes and every LANL-CM5 job whole 32-processor ones, so a pool
//! holds exactly the jobs the nodes hold), the jobs submitted strictly before `t` that have
//! not ended (a job submitted in the same second as the probe is not in it), running ones
//! with their elapsed time and limit, pending ones with their limit and submission, all of
//! equal priority so that the forward simulation keeps them in submission order (both
//! sites queued first come, first served, with backfill). The probe's own job is never in
//! it. Jobs the log has no start for are left out (counted).
//!
//! **The scenario** is what `burstsim fit` writes for the jobs submitted before local
//! midnight of the first day of the probe's month (the fit refitted each month, as a
//! campus would refresh it): every probe is out of sample. The first probe month is the
//! first whose start lies at least [`BacktestOptions::min_fit_days`] after the log's first
//! submission. With [`SiteRules`], probes submitted before the rules changed also get the
//! documented time-of-day limits as `[[campus.time_limits]]`; later ones none.
//!
//! **The probe** is the log's job: its size, its requested time as the limit; its
//! expected run time is given as the limit too (a user does not know the real one, and a
//! job's own run time does not move its start).
//!
//! **Scores.** Each interval is the pair of quantiles of the replications' starts (those
//! that never started within the horizon count as +∞), rounded to the log's time
//! resolution (60 s when at least 99% of the recorded waits are whole minutes, as
//! KTH-SP2's are; else 1 s), and holds the probe when the recorded wait lies inside it,
//! ends included. The point forecast is the median. "Within a factor of 2" compares
//! max(forecast, 60 s) with max(recorded, 60 s), so that two waits under a minute agree.
//! The median absolute error and the bias (mean of forecast − recorded) are in hours. A
//! median beyond the horizon counts as the horizon.
//!
//! **Baselines**, on the same snapshots: [`plan_at_limits`], every running job ending at
//! its limit and each pending job, in order, placed at the earliest time its whole limit
//! fits beside those before it (the plan `squeue --start` shows; the site's time-of-day
//! rules are not in it), and [`rule_of_thumb`], 0.7 × the mean limit of the pending jobs ×
//! their number (an AWS burst advisor's rule).

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use crate::advise::correction::quantile;
use crate::advise::correction::{CalibrationProbe, Correction, DEFAULT_OFFSET_S};
use crate::advise::{AdviseError, Options, Probe, start_samples};
use crate::date::Date;
use crate::evidence::fit::{LogFitOptions, fit};
use crate::evidence::holdout::{HoldoutError, dated_toml, load};
use crate::evidence::site_rules::SiteRules;
use crate::job::JobKind;
use crate::scenario::Scenario;
use crate::scenario::raw::RawTimeLimit;
use crate::scenario::recurring::{DAY_NAMES, eu_local_offset};
use crate::stats::binomial::clopper_pearson;
use crate::trace::Trace;
use crate::trace::convert::{Conversion, Units, to_jobs};
use crate::trace::snapshot::{PendingJob, RunningJob, SinfoNode, Snapshot};

/// The partition of a rebuilt snapshot (the logs have one machine).
pub const PARTITION: &str = "batch";

/// Quantiles of the start kept per probe: the ends of the 95%, 80% and 50% intervals and
/// the median.
pub const QUANTILES: [f64; 7] = [0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975];

/// The central intervals scored, as (nominal share, index of the lower and upper end in
/// [`QUANTILES`]).
pub const INTERVALS: [(f64, usize, usize); 3] = [(0.5, 2, 4), (0.8, 1, 5), (0.95, 0, 6)];

/// Recorded-wait classes: upper bounds in hours (then all probes).
pub const WAIT_CLASSES: [&str; 4] = ["< 1 h", "1-6 h", "> 6 h", "all"];

/// Waits under this (seconds) are taken as this in the factor-of-2 comparison.
pub const FACTOR_FLOOR_S: f64 = 60.0;

/// Slack (seconds) of the widened coverage [`ClassScores::coverage_slack`]: one minute,
/// the KTH-SP2 log's resolution and twice a backfill interval of 30 s.
pub const SLACK_S: f64 = 60.0;

/// Queue-length classes of [`Backtest::diagnosis`]: name, fewest and most pending jobs
/// ahead of the probe.
pub const QUEUE_CLASSES: [(&str, usize, usize); 4] =
    [("0", 0, 0), ("1-5", 1, 5), ("6-15", 6, 15), ("> 15", 16, usize::MAX)];

/// Time limit assumed for a job the log records none for (seven days, as advise's
/// forward simulation assumes for `UNLIMITED`).
const NO_LIMIT_S: i64 = 7 * 86_400;

/// What to backtest and how.
#[derive(Clone, Debug)]
pub struct BacktestOptions {
    /// Processors (or GPUs) of the machine.
    pub gpus: u32,
    /// What a job's size counts.
    pub units: Units,
    /// Processors per simulated GPU.
    pub procs_per_gpu: f64,
    /// Probes to draw.
    pub probes: usize,
    /// Replications of advise's forward simulation per probe.
    pub replications: u32,
    /// Master seed (probe k uses `seed + k`).
    pub seed: u64,
    /// Days of arrivals advise simulates after each snapshot.
    pub horizon_days: f64,
    /// Days of the log fitted before the first probe month may begin.
    pub min_fit_days: i64,
    /// The site's documented rules, applied to probes submitted while they held.
    pub rules: Option<SiteRules>,
    /// Offset of the log scale of the out-of-sample correction, seconds
    /// ([`crate::advise::correction`]).
    pub offset_s: f64,
    /// Probes of earlier months a probe's correction must be learned from before the
    /// probe is scored corrected (the first months calibrate only).
    pub min_calibration: usize,
}

impl BacktestOptions {
    /// `probes` probes on a machine of `gpus`, 40 replications each, seed 1, 14 days of
    /// arrivals, 60 days fitted before the first probe month, no site rules.
    pub fn new(gpus: u32, probes: usize) -> BacktestOptions {
        BacktestOptions {
            gpus,
            units: Units::Auto,
            procs_per_gpu: 1.0,
            probes,
            replications: 40,
            seed: 1,
            horizon_days: 14.0,
            min_fit_days: 60,
            rules: None,
            offset_s: DEFAULT_OFFSET_S,
            min_calibration: 50,
        }
    }
}

/// A job of the log as a snapshot sees it, times on the log's clock (seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct LogJob {
    /// Index in `trace.jobs`.
    pub index: usize,
    /// Job id in the log.
    pub id: String,
    /// Submission.
    pub submit: i64,
    /// Start (`None`: the log does not say).
    pub start: Option<i64>,
    /// Run time, seconds (at least 1).
    pub runtime: i64,
    /// Size in the machine's units.
    pub gpus: u32,
    /// Requested time, seconds (`None`: not recorded).
    pub limit: Option<i64>,
}

impl LogJob {
    /// When it ended, if it started.
    pub fn end(&self) -> Option<i64> {
        self.start.map(|s| s + self.runtime)
    }
}

/// The log's jobs that fit the machine, in submission order (file order breaks ties).
pub fn log_jobs(trace: &Trace, conversion: &Conversion) -> Vec<LogJob> {
    let conv = to_jobs(trace, conversion);
    conv.jobs
        .iter()
        .zip(&conv.source)
        .map(|(j, &index)| {
            let t = &trace.jobs[index];
            LogJob {
                index,
                id: t.id.clone(),
                submit: t.submit,
                start: t.start,
                runtime: j.runtime as i64,
                gpus: j.gpus,
                limit: t.requested_time.filter(|&r| r > 0),
            }
        })
        .collect()
}

/// The snapshot just before `jobs[probe]` is submitted (module doc), its clock given by
/// `to_clock` (log clock to the snapshot's: local wall time for a fitted scenario), on one
/// node of `gpus`.
pub fn snapshot_at(jobs: &[LogJob], probe: usize, gpus: u32, to_clock: &dyn Fn(i64) -> i64) -> Snapshot {
    let t = jobs[probe].submit;
    let mut running = Vec::new();
    let mut pending = Vec::new();
    for (k, j) in jobs.iter().enumerate() {
        if k == probe || j.submit >= t {
            continue;
        }
        let (Some(start), Some(end)) = (j.start, j.end()) else { continue };
        if end <= t {
            continue;
        }
        let id = j.id.clone();
        if start <= t {
            running.push(RunningJob {
                id,
                partition: PARTITION.into(),
                account: String::new(),
                user: String::new(),
                gpus: j.gpus,
                nodes: 1,
                elapsed: t - start,
                limit: j.limit,
                hosts: Vec::new(),
            });
        } else {
            pending.push(PendingJob {
                id,
                partition: PARTITION.into(),
                account: String::new(),
                user: String::new(),
                gpus: j.gpus,
                nodes: 1,
                limit: j.limit,
                priority: 0,
                submit: to_clock(j.submit),
                estimated_start: None,
            });
        }
    }
    Snapshot {
        taken_at: to_clock(t),
        nodes: vec![SinfoNode {
            name: "machine".into(),
            state: "mixed".into(),
            cpus: gpus,
            gpus,
            partitions: vec![PARTITION.into()],
        }],
        running,
        pending,
        other_states: 0,
        notes: Vec::new(),
    }
}

/// When a job of `gpus` and limit `limit_s` queued behind every pending job starts by the
/// plan `squeue --start` shows (module doc), seconds after the snapshot, on a pool of
/// `capacity`: running jobs end at their limits, each pending job in order takes the
/// earliest time at which its size is free for its whole limit beside the jobs planned
/// before it (conservative backfill), and so does the job. `None` when it cannot fit.
pub fn plan_at_limits(snapshot: &Snapshot, capacity: u32, gpus: u32, limit_s: i64) -> Option<i64> {
    // Free capacity as a step function: (from, free) until the next step; the last step
    // lasts for ever.
    let mut steps: Vec<(i64, i64)> = vec![(0, i64::from(capacity))];
    let take = |steps: &mut Vec<(i64, i64)>, from: i64, to: i64, g: i64| {
        for at in [from, to] {
            let i = steps.partition_point(|s| s.0 <= at);
            if steps[i - 1].0 != at {
                let free = steps[i - 1].1;
                steps.insert(i, (at, free));
            }
        }
        for s in steps.iter_mut().filter(|s| s.0 >= from && s.0 < to) {
            s.1 -= g;
        }
    };
    for r in &snapshot.running {
        let left = (r.limit.unwrap_or(NO_LIMIT_S) - r.elapsed).max(0);
        if left > 0 {
            take(&mut steps, 0, left, i64::from(r.gpus));
        }
    }
    let place = |steps: &mut Vec<(i64, i64)>, g: u32, limit: i64| -> Option<i64> {
        let (g, limit) = (i64::from(g), limit.max(1));
        if g > i64::from(capacity) {
            return None;
        }
        let mut i = 0;
        while i < steps.len() {
            let from = steps[i].0;
            let mut k = i;
            while k < steps.len() && steps[k].0 < from + limit && steps[k].1 >= g {
                k += 1;
            }
            if k == steps.len() || steps[k].0 >= from + limit {
                take(steps, from, from + limit, g);
                return Some(from);
            }
            i = k + 1;
        }
        None
    };
    for p in &snapshot.pending {
        place(&mut steps, p.gpus, p.limit.unwrap_or(NO_LIMIT_S));
    }
    place(&mut steps, gpus, limit_s)
}

/// 0.7 × the mean limit of the pending jobs × their number, seconds (an AWS burst
/// advisor's rule for the wait of a job queued behind them).
pub fn rule_of_thumb(snapshot: &Snapshot) -> f64 {
    let n = snapshot.pending.len();
    if n == 0 {
        return 0.0;
    }
    let mean = snapshot.pending.iter().map(|p| p.limit.unwrap_or(NO_LIMIT_S) as f64).sum::<f64>() / n as f64;
    0.7 * mean * n as f64
}

/// `x` rounded to the nearest multiple of `resolution` seconds (+∞ stays).
fn round_to(x: f64, resolution: i64) -> f64 {
    if x.is_finite() { (x / resolution as f64).round() * resolution as f64 } else { x }
}

/// One probe's forecast and record.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    /// Job id in the log.
    pub id: String,
    /// Submission, local wall time (seconds since 1970-01-01 local).
    pub local_submit: i64,
    /// Its size.
    pub gpus: u32,
    /// Its requested time, seconds.
    pub limit_s: i64,
    /// Running and pending jobs of its snapshot.
    pub running: usize,
    /// Pending jobs ahead of it.
    pub pending: usize,
    /// Whether the site's rules applied.
    pub rules: bool,
    /// Recorded wait, seconds.
    pub recorded_s: i64,
    /// advise's start quantiles ([`QUANTILES`]), seconds, rounded to the log's resolution
    /// (+∞: beyond the horizon).
    pub quantiles: [f64; 7],
    /// The plan at limits (`None`: the plan never fits it).
    pub plan_s: Option<i64>,
    /// The rule of thumb.
    pub rule_s: f64,
}

impl ProbeResult {
    /// Whether interval `k` of [`INTERVALS`] holds the recorded wait.
    pub fn covered(&self, k: usize) -> bool {
        self.covered_within(k, 0.0)
    }

    /// Whether interval `k`, widened by `slack` seconds at each end, holds the recorded
    /// wait (how many misses are a matter of the scheduler's passes and the log's rounding).
    pub fn covered_within(&self, k: usize, slack: f64) -> bool {
        let (_, lo, hi) = INTERVALS[k];
        let w = self.recorded_s as f64;
        self.quantiles[lo] - slack <= w && w <= self.quantiles[hi] + slack
    }

    /// Its raw intervals and recorded wait, as a correction is learned from them.
    pub fn calibration(&self) -> CalibrationProbe {
        CalibrationProbe {
            intervals: INTERVALS.map(|(_, lo, hi)| (self.quantiles[lo], self.quantiles[hi])),
            recorded_s: self.recorded_s as f64,
        }
    }

    /// Interval `k` of [`INTERVALS`] widened by `correction`, its ends rounded to
    /// `resolution_s` as the raw quantiles are.
    pub fn corrected(&self, correction: &Correction, k: usize, resolution_s: i64) -> (f64, f64) {
        let (_, lo, hi) = INTERVALS[k];
        let (lo, hi) = correction.apply(k, self.quantiles[lo], self.quantiles[hi]);
        (round_to(lo, resolution_s), round_to(hi, resolution_s))
    }

    /// Whether interval `k` widened by `correction` holds the recorded wait.
    pub fn covered_corrected(&self, correction: &Correction, k: usize, resolution_s: i64) -> bool {
        let (lo, hi) = self.corrected(correction, k, resolution_s);
        let w = self.recorded_s as f64;
        lo <= w && w <= hi
    }

    /// The class of its recorded wait in [`WAIT_CLASSES`].
    pub fn class(&self) -> usize {
        match self.recorded_s {
            w if w < 3_600 => 0,
            w if w <= 6 * 3_600 => 1,
            _ => 2,
        }
    }
}

/// Point-forecast scores of one forecaster over some probes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointScores {
    /// Share within a factor of 2 (module doc).
    pub within_2x: f64,
    /// Median absolute error, hours.
    pub median_abs_h: f64,
    /// Mean of forecast − recorded, hours.
    pub bias_h: f64,
}

/// Scores of `forecasts` against `recorded` (seconds), in the same order.
pub fn point_scores(forecasts: &[f64], recorded: &[f64]) -> PointScores {
    let n = forecasts.len().min(recorded.len());
    if n == 0 {
        return PointScores { within_2x: f64::NAN, median_abs_h: f64::NAN, bias_h: f64::NAN };
    }
    let pairs = || forecasts.iter().zip(recorded);
    let within = pairs()
        .filter(|&(&f, &r)| {
            let (f, r) = (f.max(FACTOR_FLOOR_S), r.max(FACTOR_FLOOR_S));
            f <= 2.0 * r && r <= 2.0 * f
        })
        .count();
    let mut abs: Vec<f64> = pairs().map(|(f, r)| (f - r).abs()).collect();
    abs.sort_by(f64::total_cmp);
    PointScores {
        within_2x: within as f64 / n as f64,
        median_abs_h: quantile(&abs, 0.5) / 3600.0,
        bias_h: pairs().map(|(f, r)| f - r).sum::<f64>() / n as f64 / 3600.0,
    }
}

/// The scores of one wait class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassScores {
    /// Probes in the class.
    pub n: usize,
    /// Share of probes inside each interval of [`INTERVALS`].
    pub coverage: [f64; 3],
    /// The same with each interval widened by [`SLACK_S`] at both ends.
    pub coverage_slack: [f64; 3],
    /// advise's median.
    pub advise: PointScores,
    /// The plan at limits.
    pub plan: PointScores,
    /// The rule of thumb.
    pub rule: PointScores,
}

/// Scores `probes` (a median or plan beyond the horizon counts as `horizon_s`).
pub fn class_scores(probes: &[&ProbeResult], horizon_s: f64) -> ClassScores {
    let n = probes.len();
    let share = |k: usize| probes.iter().filter(|p| p.covered(k)).count() as f64 / n.max(1) as f64;
    let slack = |k: usize| probes.iter().filter(|p| p.covered_within(k, SLACK_S)).count() as f64 / n.max(1) as f64;
    let recorded: Vec<f64> = probes.iter().map(|p| p.recorded_s as f64).collect();
    let cap = |x: f64| x.min(horizon_s);
    let of = |f: &dyn Fn(&ProbeResult) -> f64| probes.iter().map(|p| cap(f(p))).collect::<Vec<f64>>();
    ClassScores {
        n,
        coverage: [share(0), share(1), share(2)],
        coverage_slack: [slack(0), slack(1), slack(2)],
        advise: point_scores(&of(&|p| p.quantiles[3]), &recorded),
        plan: point_scores(&of(&|p| p.plan_s.map_or(f64::INFINITY, |s| s as f64)), &recorded),
        rule: point_scores(&of(&|p| p.rule_s), &recorded),
    }
}

/// For each of `probes` (in submission order), the correction learned from the probes
/// of the calendar months before its own ([`Correction::learn`] on log scale
/// `offset_s`), or `None` when fewer than `min` such probes exist: a probe never
/// calibrates its own correction, nor does any probe of its month or later.
pub fn rolling_corrections(probes: &[ProbeResult], offset_s: f64, min: usize) -> Vec<Option<Correction>> {
    let mut cache: BTreeMap<i64, Option<Correction>> = BTreeMap::new();
    probes
        .iter()
        .map(|p| {
            let month = month_of(p.local_submit);
            let start = month.to_days() * 86_400;
            cache
                .entry(start)
                .or_insert_with(|| {
                    let cal: Vec<CalibrationProbe> =
                        probes.iter().filter(|c| c.local_submit < start).map(ProbeResult::calibration).collect();
                    (cal.len() >= min.max(1)).then(|| {
                        Correction::learn(&cal, offset_s, &format!("{} probes submitted before {month}", cal.len()))
                    })
                })
                .clone()
        })
        .collect()
}

/// Coverage of one class of probes scored out of sample, raw and corrected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorrectedScores {
    /// Probes scored (those with a correction from earlier months).
    pub n: usize,
    /// Share inside each raw interval of [`INTERVALS`].
    pub raw: [f64; 3],
    /// Share inside each corrected interval.
    pub corrected: [f64; 3],
}

/// How one class of probes misses the 80% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagnosis {
    /// Probes (the shares are NaN when there are none).
    pub n: usize,
    /// Share inside the 80% interval.
    pub inside: f64,
    /// Share whose recorded wait lies below it (started earlier than advise says).
    pub below: f64,
    /// Share above it.
    pub above: f64,
    /// Share whose 80% interval has zero width: every replication's start the same (the
    /// forward simulation sees nothing random before the probe starts).
    pub zero_width: f64,
}

/// [`Diagnosis`] of `probes`.
fn diagnose(probes: &[&ProbeResult]) -> Diagnosis {
    let n = probes.len();
    // NaN for no probes: the table prints "–".
    let share = |f: &dyn Fn(&ProbeResult) -> bool| probes.iter().filter(|p| f(p)).count() as f64 / n as f64;
    Diagnosis {
        n,
        inside: share(&|p| p.covered(1)),
        below: share(&|p| (p.recorded_s as f64) < p.quantiles[1]),
        above: share(&|p| (p.recorded_s as f64) > p.quantiles[5]),
        zero_width: share(&|p| p.quantiles[1] == p.quantiles[5]),
    }
}

/// What a backtest gives.
#[derive(Clone, Debug)]
pub struct Backtest {
    /// The options it ran with.
    pub options: BacktestOptions,
    /// The log's time resolution used in scoring, seconds.
    pub resolution_s: i64,
    /// Each probe, in submission order.
    pub probes: Vec<ProbeResult>,
    /// Each fitted scenario: the first day of the month it served, the jobs it was fitted
    /// on, whether the site's rules were added.
    pub fits: Vec<(Date, usize, bool)>,
    /// Jobs of the log left out of every snapshot because the log has no start for them.
    pub no_start: usize,
}

/// Why a backtest cannot run.
#[derive(Debug, thiserror::Error)]
pub enum BacktestError {
    /// The log cannot be backtested (no calendar, no waits, too short).
    #[error("{0}")]
    Log(String),
    /// A period cannot be fitted or its scenario does not load.
    #[error("fitting the log before {month}: {source}")]
    Fit {
        /// The first day of the month the fit was for.
        month: Date,
        /// Why.
        source: HoldoutError,
    },
    /// advise refused a probe.
    #[error("advise on job {id}: {source}")]
    Advise {
        /// The probe's job id.
        id: String,
        /// Why.
        source: AdviseError,
    },
}

/// The first day of the month of a local wall time.
fn month_of(local: i64) -> Date {
    let d = Date::from_days(local.div_euclid(86_400));
    Date::new(d.year(), d.month(), 1).expect("the first of a month")
}

/// `YYYY-MM-DDTHH:MM` of a local wall time.
fn local_stamp(local: i64) -> String {
    let s = local.rem_euclid(86_400);
    format!("{}T{:02}:{:02}", Date::from_days(local.div_euclid(86_400)), s / 3600, s % 3600 / 60)
}

/// The first day of the next month.
fn next_month(d: Date) -> Date {
    let (y, m) = if d.month() == 12 { (d.year() + 1, 1) } else { (d.year(), d.month() + 1) };
    Date::new(y, m, 1).expect("the first of a month")
}

/// The site's rules as `[[campus.time_limits]]` tables.
pub fn time_limit_tables(rules: SiteRules) -> Vec<RawTimeLimit> {
    rules
        .rules()
        .iter()
        .map(|r| RawTimeLimit {
            days: (0..7).filter(|&d| r.days.has(d)).map(|d| DAY_NAMES[d].to_string()).collect(),
            start: format!("{:02}:{:02}", r.second_of_day / 3600, r.second_of_day % 3600 / 60),
            max_hours: r.max.map_or(f64::INFINITY, |m| m as f64 / 3600.0),
            end_in_window: r.end_in_window,
        })
        .collect()
}

/// Picks `n` probes among `candidates` (indices into `jobs`, in submission order): for
/// k = 0 … n − 1, the first candidate not yet taken submitted at or after the k-th of n
/// evenly spaced times over `[from, to)` (the middle of its share).
pub fn choose_probes(jobs: &[LogJob], candidates: &[usize], n: usize, from: i64, to: i64) -> Vec<usize> {
    let mut chosen = Vec::with_capacity(n);
    let mut next = 0;
    for k in 0..n {
        let target = from + ((to - from) as f64 * (k as f64 + 0.5) / n as f64) as i64;
        next = next.max(candidates.partition_point(|&c| jobs[c].submit < target));
        if next >= candidates.len() {
            break;
        }
        chosen.push(candidates[next]);
        next += 1;
    }
    chosen
}

/// The scenario `fit` writes for the jobs of `trace` submitted before local midnight of
/// `month` (loaded with the backtest's replications and seed), with the site's rules when
/// `rules_on`, and how many jobs it was fitted on.
fn fit_before(
    trace: &Trace,
    o: &BacktestOptions,
    month: Date,
    rules_on: bool,
    to_local: &dyn Fn(i64) -> i64,
) -> Result<(Scenario, usize), BacktestError> {
    let cut = month.to_days() * 86_400;
    let mut before = trace.clone();
    before.jobs.retain(|j| to_local(j.submit) < cut);
    let fo = LogFitOptions {
        gpus: Some(o.gpus),
        horizon_days: Some(31.0),
        units: o.units,
        procs_per_gpu: o.procs_per_gpu,
        name: "backtest".into(),
        source: format!("the log's jobs submitted before {month} (local time)"),
        group: None,
    };
    let err = |source: HoldoutError| BacktestError::Fit { month, source };
    let f = fit(&before, &fo).map_err(|e| err(HoldoutError::from(e)))?;
    let text = dated_toml(&f, month, "the month of the probes").map_err(err)?;
    let mut scn = load(&text, o.replications, o.seed).map_err(err)?;
    if let (true, Some(rules)) = (rules_on, o.rules) {
        let mut raw = scn.raw.clone();
        raw.campus.time_limits = time_limit_tables(rules);
        scn = Scenario::from_raw(raw).map_err(|e| err(HoldoutError::Scenario(e.to_string())))?;
    }
    Ok((scn, f.jobs))
}

/// Runs the backtest of `trace` (module doc). `progress` is called after each probe with
/// the number done and the total.
///
/// # Errors
/// [`BacktestError`] when the log has no calendar or waits, a period cannot be fitted, or
/// advise refuses a probe.
pub fn backtest(
    trace: &Trace,
    o: &BacktestOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<Backtest, BacktestError> {
    let unix = trace.info.unix_start.ok_or_else(|| {
        BacktestError::Log("the log has no calendar (no UnixStartTime): months cannot be fitted".into())
    })?;
    // Local wall time of a log time: the site's (with summer time) under its rules, the
    // header's fixed offset otherwise (as `fit` reads it).
    let to_local = |t: i64| -> i64 {
        let utc = unix + t;
        if o.rules.is_some() { utc + eu_local_offset(utc) } else { utc + trace.info.tz_offset }
    };
    let conversion = Conversion { units: o.units, procs_per_gpu: o.procs_per_gpu, ..Conversion::new(o.gpus) };
    let jobs = log_jobs(trace, &conversion);
    let no_start = jobs.iter().filter(|j| j.start.is_none()).count();
    let (Some(first), Some(last)) = (jobs.first(), jobs.last()) else {
        return Err(BacktestError::Log("no job of the log fits the machine".into()));
    };
    let waits: Vec<i64> = jobs.iter().filter_map(|j| j.start.map(|s| s - j.submit)).collect();
    if waits.is_empty() {
        return Err(BacktestError::Log("the log records no waits: nothing to score".into()));
    }
    let resolution_s = if waits.iter().filter(|&&w| w % 60 == 0).count() * 100 >= waits.len() * 99 { 60 } else { 1 };
    // The test period: from the first month start at least min_fit_days in, to the end.
    let mut first_month = month_of(to_local(first.submit));
    while (first_month.to_days() * 86_400) < to_local(first.submit) + o.min_fit_days * 86_400 {
        first_month = next_month(first_month);
    }
    // On the log's clock: local midnight less the local offset there (twice, for a
    // change of summer time in between).
    let midnight = first_month.to_days() * 86_400;
    let mut from = midnight - to_local(0);
    from -= to_local(from) - midnight;
    if from >= last.submit {
        return Err(BacktestError::Log(format!(
            "the log ends before {first_month}, the first month with {} days of the log before it to fit",
            o.min_fit_days
        )));
    }
    let candidates: Vec<usize> = (0..jobs.len())
        .filter(|&k| {
            let j = &jobs[k];
            j.submit >= from && j.start.is_some() && j.limit.is_some()
        })
        .collect();
    let chosen = choose_probes(&jobs, &candidates, o.probes, from, last.submit + 1);

    let regime_end = o.rules.map(|r| r.regime_end().to_days() * 86_400);
    let mut scenarios: BTreeMap<(i64, bool), Scenario> = BTreeMap::new();
    let mut fits = Vec::new();
    let mut probes = Vec::with_capacity(chosen.len());
    for (k, &p) in chosen.iter().enumerate() {
        let job = &jobs[p];
        let local = to_local(job.submit);
        let month = month_of(local);
        let rules_on = regime_end.is_some_and(|end| local < end);
        let key = (month.to_days(), rules_on);
        let scn = match scenarios.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let (scn, jobs) = fit_before(trace, o, month, rules_on, &to_local)?;
                fits.push((month, jobs, rules_on));
                e.insert(scn)
            }
        };
        let snap = snapshot_at(&jobs, p, o.gpus, &to_local);
        let limit_s = job.limit.unwrap_or(NO_LIMIT_S);
        let probe = Probe {
            gpus: job.gpus,
            nodes: None,
            walltime_s: limit_s,
            runtime_s: limit_s,
            partition: PARTITION.into(),
            account: None,
            priority: None,
            job_id: None,
            kind: JobKind::Transformer,
            data_gb: 0.0,
        };
        let options = Options {
            replications: o.replications,
            seed: o.seed.wrapping_add(k as u64),
            horizon_days: o.horizon_days,
            ..Options::default()
        };
        let id = job.id.clone();
        let starts = start_samples(&snap, scn, &probe, &options)
            .map_err(|source| BacktestError::Advise { id: id.clone(), source })?;
        let mut sorted: Vec<f64> = starts.iter().map(|s| s.map_or(f64::INFINITY, |s| s as f64)).collect();
        sorted.sort_by(f64::total_cmp);
        let quantiles = QUANTILES.map(|q| round_to(quantile(&sorted, q), resolution_s));
        probes.push(ProbeResult {
            id,
            local_submit: local,
            gpus: job.gpus,
            limit_s,
            running: snap.running.len(),
            pending: snap.pending.len(),
            rules: rules_on,
            recorded_s: job.start.map_or(0, |s| s - job.submit),
            quantiles,
            plan_s: plan_at_limits(&snap, o.gpus, job.gpus, limit_s),
            rule_s: rule_of_thumb(&snap),
        });
        progress(k + 1, chosen.len());
    }
    Ok(Backtest { options: o.clone(), resolution_s, probes, fits, no_start })
}

impl Backtest {
    /// The horizon, seconds (a forecast beyond it is scored as it).
    pub fn horizon_s(&self) -> f64 {
        self.options.horizon_days * 86_400.0
    }

    /// Scores by [`WAIT_CLASSES`] (the last: all probes).
    pub fn scores(&self) -> [ClassScores; 4] {
        let of = |c: Option<usize>| {
            let ps: Vec<&ProbeResult> = self.probes.iter().filter(|p| c.is_none_or(|c| p.class() == c)).collect();
            class_scores(&ps, self.horizon_s())
        };
        [of(Some(0)), of(Some(1)), of(Some(2)), of(None)]
    }

    /// Each probe's correction learned from the probes of earlier months
    /// ([`rolling_corrections`] with the options' offset and minimum).
    pub fn corrections(&self) -> Vec<Option<Correction>> {
        rolling_corrections(&self.probes, self.options.offset_s, self.options.min_calibration)
    }

    /// The correction learned from every probe, for advise to carry (`--correction-out`);
    /// `source` says where it came from.
    pub fn correction(&self, source: &str) -> Correction {
        let cal: Vec<CalibrationProbe> = self.probes.iter().map(ProbeResult::calibration).collect();
        Correction::learn(&cal, self.options.offset_s, source)
    }

    /// Out-of-sample coverage by [`WAIT_CLASSES`] of the probes that have a correction from
    /// earlier months, raw and corrected.
    pub fn corrected_scores(&self) -> [CorrectedScores; 4] {
        let corrections = self.corrections();
        let scored: Vec<(&ProbeResult, &Correction)> =
            self.probes.iter().zip(&corrections).filter_map(|(p, c)| c.as_ref().map(|c| (p, c))).collect();
        let of = |class: Option<usize>| {
            let ps: Vec<&(&ProbeResult, &Correction)> =
                scored.iter().filter(|(p, _)| class.is_none_or(|c| p.class() == c)).collect();
            let n = ps.len();
            let share = |f: &dyn Fn(&ProbeResult, &Correction) -> bool| {
                ps.iter().filter(|(p, c)| f(p, c)).count() as f64 / n.max(1) as f64
            };
            CorrectedScores {
                n,
                raw: [0, 1, 2].map(|k| share(&|p, _| p.covered(k))),
                corrected: [0, 1, 2].map(|k| share(&|p, c| p.covered_corrected(c, k, self.resolution_s))),
            }
        };
        [of(Some(0)), of(Some(1)), of(Some(2)), of(None)]
    }

    /// How the 80% interval misses, by [`WAIT_CLASSES`] then by [`QUEUE_CLASSES`] (pending
    /// jobs ahead); the last row all probes.
    pub fn diagnosis(&self) -> Vec<(String, Diagnosis)> {
        let mut rows = Vec::new();
        for (c, name) in WAIT_CLASSES.iter().take(3).enumerate() {
            let ps: Vec<&ProbeResult> = self.probes.iter().filter(|p| p.class() == c).collect();
            rows.push((format!("wait {name}"), diagnose(&ps)));
        }
        for (name, lo, hi) in QUEUE_CLASSES {
            let ps: Vec<&ProbeResult> = self.probes.iter().filter(|p| (lo..=hi).contains(&p.pending)).collect();
            rows.push((format!("queue {name}"), diagnose(&ps)));
        }
        rows.push(("all".into(), diagnose(&self.probes.iter().collect::<Vec<_>>())));
        rows
    }

    /// Probes per calendar month (local), in order.
    pub fn months(&self) -> Vec<(Date, usize)> {
        let mut m: BTreeMap<i64, usize> = BTreeMap::new();
        for p in &self.probes {
            *m.entry(month_of(p.local_submit).to_days()).or_default() += 1;
        }
        m.into_iter().map(|(d, n)| (Date::from_days(d), n)).collect()
    }

    /// The scores as tables: coverage, then the point forecasts beside the baselines.
    pub fn to_table(&self) -> String {
        let s = self.scores();
        let pct = |x: f64| if x.is_nan() { "–".to_string() } else { format!("{:.0}%", 100.0 * x) };
        let h = |x: f64| if x.is_nan() { "–".to_string() } else { format!("{x:.2}") };
        let mut out = format!(
            "{:<8} {:>6} {:>8} {:>18} {:>8} {:>14}\n",
            "wait", "probes", "in 50%", "in 80% (95% CI)", "in 95%", "in 80% ± 1 min"
        );
        for (name, c) in WAIT_CLASSES.iter().zip(&s) {
            let k = (c.coverage[1] * c.n as f64).round() as usize;
            let (lo, hi) = clopper_pearson(k, c.n, 0.95);
            out.push_str(&format!(
                "{:<8} {:>6} {:>8} {:>18} {:>8} {:>14}\n",
                name,
                c.n,
                pct(c.coverage[0]),
                format!("{} ({:.0}–{:.0})", pct(c.coverage[1]), 100.0 * lo, 100.0 * hi),
                pct(c.coverage[2]),
                pct(c.coverage_slack[1])
            ));
        }
        out.push_str(&format!(
            "\n{:<8} {:>26} {:>26} {:>26}\n{:<8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            "",
            "within ×2",
            "median |error| (h)",
            "bias (h)",
            "wait",
            "advise",
            "plan",
            "rule",
            "advise",
            "plan",
            "rule",
            "advise",
            "plan",
            "rule"
        ));
        for (name, c) in WAIT_CLASSES.iter().zip(&s) {
            out.push_str(&format!(
                "{:<8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
                name,
                pct(c.advise.within_2x),
                pct(c.plan.within_2x),
                pct(c.rule.within_2x),
                h(c.advise.median_abs_h),
                h(c.plan.median_abs_h),
                h(c.rule.median_abs_h),
                h(c.advise.bias_h),
                h(c.plan.bias_h),
                h(c.rule.bias_h)
            ));
        }
        out.push_str(&format!(
            "\nhow the 80% interval misses (pending jobs ahead for the queue rows)\n{:<14} {:>6} {:>8} {:>8} {:>8} {:>11}\n",
            "probes", "n", "inside", "below", "above", "zero width"
        ));
        for (name, d) in self.diagnosis() {
            out.push_str(&format!(
                "{:<14} {:>6} {:>8} {:>8} {:>8} {:>11}\n",
                name,
                d.n,
                pct(d.inside),
                pct(d.below),
                pct(d.above),
                pct(d.zero_width)
            ));
        }
        let cs = self.corrected_scores();
        out.push_str(&format!(
            "\nout of sample, corrected: each probe's intervals widened by the correction learned from the probes of \
             the months before its own (split-conformal on ln(wait + {} s), at least {} of them); {} of {} probes \
             scored, the first months calibrate only\n",
            self.options.offset_s,
            self.options.min_calibration,
            cs[3].n,
            self.probes.len()
        ));
        out.push_str(&format!(
            "{:<8} {:>6} {:>16} {:>26} {:>16}\n",
            "wait", "probes", "in 50% raw→corr", "in 80% raw→corr (95% CI)", "in 95% raw→corr"
        ));
        for (name, c) in WAIT_CLASSES.iter().zip(&cs) {
            let k = (c.corrected[1] * c.n as f64).round() as usize;
            let (lo, hi) = clopper_pearson(k, c.n, 0.95);
            out.push_str(&format!(
                "{:<8} {:>6} {:>16} {:>26} {:>16}\n",
                name,
                c.n,
                format!("{} → {}", pct(c.raw[0]), pct(c.corrected[0])),
                format!("{} → {} ({:.0}–{:.0})", pct(c.raw[1]), pct(c.corrected[1]), 100.0 * lo, 100.0 * hi),
                format!("{} → {}", pct(c.raw[2]), pct(c.corrected[2]))
            ));
        }
        out
    }

    /// The report `validate --backtest` prints: what was run, the probes by month, then
    /// [`Backtest::to_table`]. `log` names the log.
    pub fn to_report(&self, log: &str) -> String {
        let o = &self.options;
        let months: Vec<String> =
            self.months().iter().map(|(d, n)| format!("{}-{:02} {n}", d.year(), d.month())).collect();
        let rules = self.fits.iter().filter(|f| f.2).count();
        let mut s = format!(
            "{log}: advise backtested on {} of the log's jobs ({} replications each, seed {}, {} days of arrivals), \
             each queue rebuilt at the job's submission on {} processors; the scenario fitted by `fit` on the \
             months before each probe's ({} fits{}); recorded waits at {} s resolution\n",
            self.probes.len(),
            o.replications,
            o.seed,
            o.horizon_days,
            o.gpus,
            self.fits.len(),
            if rules > 0 { format!(", {rules} with the site's documented rules") } else { String::new() },
            self.resolution_s
        );
        s.push_str(&format!("probes by month: {}\n", months.join(", ")));
        if self.no_start > 0 {
            s.push_str(&format!("{} jobs of the log have no start and are in no snapshot\n", self.no_start));
        }
        s.push_str("plan: every job running to its limit (squeue --start); rule: 0.7 × mean limit × pending jobs\n\n");
        s.push_str(&self.to_table());
        s
    }

    /// One row per probe: `job,local_submit,gpus,limit_s,running,pending,rules,recorded_s,
    /// q025_s,…,q975_s,plan_s,rule_s`, then the corrected interval ends `c025_s,c10_s,
    /// c25_s,c75_s,c90_s,c975_s` (empty while the probe's months calibrate only; quantiles
    /// beyond the horizon as `inf`).
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "job,local_submit,gpus,limit_s,running,pending,rules,recorded_s,q025_s,q10_s,q25_s,q50_s,q75_s,q90_s,q975_s,plan_s,rule_s,c025_s,c10_s,c25_s,c75_s,c90_s,c975_s\n",
        );
        for (p, c) in self.probes.iter().zip(self.corrections()) {
            let corrected = match c {
                Some(c) => {
                    let [a, b, d] = [2, 1, 0].map(|k| p.corrected(&c, k, self.resolution_s));
                    [d.0, b.0, a.0, a.1, b.1, d.1].map(|x| format!("{x}")).join(",")
                }
                None => ",,,,,".to_string(),
            };
            let q: Vec<String> = p.quantiles.iter().map(|x| format!("{x}")).collect();
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{:.0},{}\n",
                p.id,
                local_stamp(p.local_submit),
                p.gpus,
                p.limit_s,
                p.running,
                p.pending,
                p.rules,
                p.recorded_s,
                q.join(","),
                p.plan_s.map_or("inf".to_string(), |x| x.to_string()),
                p.rule_s,
                corrected
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, submit: i64, start: Option<i64>, runtime: i64, gpus: u32, limit: i64) -> LogJob {
        LogJob { index: 0, id: id.into(), submit, start, runtime, gpus, limit: Some(limit) }
    }

    #[test]
    fn the_snapshot_holds_the_jobs_submitted_before_and_not_ended() {
        let jobs = vec![
            job("a", 0, Some(10), 100, 4, 200),  // running at 50, 40 s in
            job("b", 5, Some(110), 50, 6, 60),   // pending at 50
            job("c", 20, Some(20), 10, 1, 20),   // ended at 30
            job("g", 30, None, 10, 1, 20),       // no start in the log
            job("f", 40, Some(50), 5, 2, 10),    // starts at 50: running, 0 s in
            job("p", 50, Some(120), 10, 3, 100), // the probe
            job("d", 50, Some(50), 20, 1, 30),   // submitted in the probe's second
            job("e", 60, Some(60), 10, 1, 10),   // submitted after
        ];
        let s = snapshot_at(&jobs, 5, 10, &|t| t + 1_000);
        assert_eq!(s.taken_at, 1_050);
        let running: Vec<(&str, i64, Option<i64>, u32)> =
            s.running.iter().map(|r| (r.id.as_str(), r.elapsed, r.limit, r.gpus)).collect();
        assert_eq!(running, [("a", 40, Some(200), 4), ("f", 0, Some(10), 2)]);
        let pending: Vec<(&str, i64, Option<i64>, u32)> =
            s.pending.iter().map(|p| (p.id.as_str(), p.submit, p.limit, p.gpus)).collect();
        assert_eq!(pending, [("b", 1_005, Some(60), 6)]);
        assert!(s.running.iter().chain([]).all(|r| r.id != "p") && s.pending.iter().all(|p| p.id != "p"));
        assert_eq!(s.nodes.len(), 1);
        assert_eq!((s.nodes[0].gpus, s.nodes[0].usable()), (10, true));
        // At another job's submission the probe of the first is an ordinary job.
        let s = snapshot_at(&jobs, 7, 10, &|t| t);
        assert!(s.pending.iter().any(|p| p.id == "p"));
        assert!(s.running.iter().any(|r| r.id == "d" && r.elapsed == 10));
    }

    #[test]
    fn the_plan_at_limits_is_a_conservative_backfill_plan() {
        let jobs = vec![
            job("r1", 0, Some(0), 1_000, 6, 100),    // runs 40 s in: ends at 60 by its limit
            job("r2", 0, Some(40), 1_000, 2, 1_000), // starts at 40: ends at 1000 by its limit
            job("p1", 10, Some(500), 10, 8, 50),     // plans 60–110
            job("p2", 20, Some(500), 10, 1, 30),     // backfills 0–30
            job("me", 40, Some(500), 10, 4, 100),
        ];
        let s = snapshot_at(&jobs, 4, 10, &|t| t);
        assert_eq!((s.running.len(), s.pending.len()), (2, 2));
        // Free: 1 on 0–30, 2 on 30–60, 0 on 60–110, 8 on 110–1000, 10 after.
        assert_eq!(plan_at_limits(&s, 10, 4, 100), Some(110));
        assert_eq!(plan_at_limits(&s, 10, 1, 30), Some(0));
        assert_eq!(plan_at_limits(&s, 10, 2, 30), Some(30));
        assert_eq!(plan_at_limits(&s, 10, 9, 10), Some(1_000));
        assert_eq!(plan_at_limits(&s, 10, 11, 10), None);
        assert!((rule_of_thumb(&s) - 0.7 * 40.0 * 2.0).abs() < 1e-9);
    }

    #[test]
    fn point_scores_count_factor_two_median_error_and_bias() {
        let f = [0.0, 100.0, 7_200.0, 3_600.0];
        let r = [30.0, 300.0, 3_600.0, 10_800.0];
        let s = point_scores(&f, &r);
        // (60, 60) and (7200, 3600) are within ×2; 100 against 300 and 3600 against 10800 not.
        assert_eq!(s.within_2x, 0.5);
        // |errors| 30, 200, 3600, 7200: median 1900 s.
        assert!((s.median_abs_h - 1_900.0 / 3_600.0).abs() < 1e-12);
        assert!((s.bias_h - (-30.0 - 200.0 + 3_600.0 - 7_200.0) / 4.0 / 3_600.0).abs() < 1e-12);
    }

    fn result(recorded: i64, q: [f64; 7], plan: Option<i64>) -> ProbeResult {
        ProbeResult {
            id: "x".into(),
            local_submit: 0,
            gpus: 1,
            limit_s: 3_600,
            running: 0,
            pending: 0,
            rules: false,
            recorded_s: recorded,
            quantiles: q,
            plan_s: plan,
            rule_s: 0.0,
        }
    }

    #[test]
    fn coverage_counts_the_recorded_wait_inside_each_interval() {
        let q = [0.0, 600.0, 1_200.0, 1_800.0, 2_400.0, 3_000.0, f64::INFINITY];
        let inside_50 = result(1_200, q, None); // an end of the 50% interval counts
        let inside_80 = result(3_000, q, None);
        let inside_95 = result(90_000, q, None); // the 95% interval is open above
        let below_all = result(-1, q, None);
        assert_eq!([0, 1, 2].map(|k| inside_50.covered(k)), [true, true, true]);
        assert_eq!([0, 1, 2].map(|k| inside_80.covered(k)), [false, true, true]);
        assert_eq!([0, 1, 2].map(|k| inside_95.covered(k)), [false, false, true]);
        assert_eq!([0, 1, 2].map(|k| below_all.covered(k)), [false, false, false]);
        assert_eq!([inside_50.class(), inside_80.class(), inside_95.class()], [0, 0, 2]);
        assert_eq!(result(6 * 3_600, q, None).class(), 1);
        let all = [&inside_50, &inside_80, &inside_95, &below_all];
        let c = class_scores(&all, 86_400.0);
        assert_eq!((c.n, c.coverage), (4, [0.25, 0.5, 0.75]));
        // Widened by a minute, the wait 1 s before the 95% interval's lower end (0 s) joins
        // it; it is 601 s and more before the others'.
        assert_eq!(c.coverage_slack, [0.25, 0.5, 1.0]);
        // A plan that never fits counts as the horizon: |86400 − w| for each.
        let mut e: Vec<f64> = all.iter().map(|p| (86_400.0 - p.recorded_s as f64).abs()).collect();
        e.sort_by(f64::total_cmp);
        assert!((c.plan.median_abs_h - (e[1] + e[2]) / 2.0 / 3_600.0).abs() < 1e-12);
    }

    #[test]
    fn the_diagnosis_splits_misses_below_and_above_and_counts_zero_width_intervals() {
        let q = [0.0, 600.0, 1_200.0, 1_800.0, 2_400.0, 3_000.0, 4_000.0];
        let flat = [60.0; 7];
        let ps = [result(300, flat, None), result(60, flat, None), result(100, q, None), result(5_000, q, None)];
        let d = diagnose(&ps.iter().collect::<Vec<_>>());
        assert_eq!((d.n, d.inside, d.below, d.above, d.zero_width), (4, 0.25, 0.25, 0.5, 0.5));
        assert!(diagnose(&[]).inside.is_nan(), "no probes: no share");
    }

    #[test]
    fn quantiles_reach_infinity_only_through_replications_that_never_started() {
        let v = [0.0, 10.0, 20.0, f64::INFINITY];
        assert_eq!(quantile(&v, 0.0), 0.0);
        assert!((quantile(&v, 0.5) - 15.0).abs() < 1e-12);
        assert_eq!(quantile(&v, 0.9), f64::INFINITY);
        assert_eq!(quantile(&v, 1.0), f64::INFINITY);
        assert_eq!(round_to(89.0, 60), 60.0);
        assert_eq!(round_to(91.0, 60), 120.0);
        assert_eq!(round_to(f64::INFINITY, 60), f64::INFINITY);
    }

    #[test]
    fn probes_spread_evenly_in_time_and_never_repeat() {
        let jobs: Vec<LogJob> = (0..100).map(|i| job(&i.to_string(), i * i, Some(i * i), 1, 1, 1)).collect();
        let candidates: Vec<usize> = (0..100).collect();
        let p = choose_probes(&jobs, &candidates, 4, 0, 10_000);
        // Targets 1250, 3750, 6250, 8750: the first submissions at or after them.
        assert_eq!(p, [36, 62, 80, 94]);
        // More probes than candidates: each once, in order (targets 0, 1, 2, …: submissions 0, 1, 4).
        let p = choose_probes(&jobs, &candidates[..3], 5, 0, 5);
        assert_eq!(p, [0, 1, 2]);
    }

    #[test]
    fn kth_rules_become_time_limit_tables() {
        let t = time_limit_tables(SiteRules::Kth);
        let rows: Vec<(String, &str, f64, bool)> =
            t.iter().map(|r| (r.days.join(","), r.start.as_str(), r.max_hours, r.end_in_window)).collect();
        assert_eq!(
            rows,
            [
                ("Mon,Tue,Wed,Thu,Fri".to_string(), "07:00", 4.0, true),
                ("Mon,Tue,Wed,Thu".to_string(), "16:00", 15.0, true),
                ("Fri".to_string(), "16:00", 60.0, true),
            ]
        );
    }
}
