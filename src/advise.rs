//! Queue or rent, now (issue 23): from a snapshot of the live campus, when would a job
//! submitted now start, and is it cheaper to wait for the campus, rent by the hour now, or
//! wait a few hours and then rent?
//!
//! ```text
//! Snapshot (trace::snapshot) + Scenario + Probe
//!   ─ forward.rs: the campus run on from the snapshot, per replication ─▶ probe's start
//!   ─ choices.rs: each choice's cost and finish per replication ─▶ means with 95% CIs
//!   ─▶ Advice { start distribution, Slurm's estimate, choices, the cheapest meeting the deadline }
//! ```
//!
//! Replications run in parallel and are collected in order, so the advice does not
//! depend on the number of threads. Every replication draws its own runtimes for the
//! snapshot's jobs, its own arrivals and its own cloud start-up; the choices of one
//! replication share them (common random numbers), so their differences are sharp.

mod choices;
pub mod correction;
mod forward;
pub mod table;

use rayon::prelude::*;
use serde::Serialize;

use crate::job::JobKind;
use crate::scenario::Scenario;
use crate::stats::binomial::clopper_pearson;
use crate::stats::percentile_sorted;
use crate::trace::snapshot::{Snapshot, SnapshotWarning, SubmitRequest};
pub use choices::{Choice, ChoiceKind};

/// The job someone is about to submit (or has just submitted: [`Probe::job_id`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// GPUs, all nodes together.
    pub gpus: u32,
    /// Nodes (`--nodes`); `None` lets the scheduler place it.
    pub nodes: Option<u32>,
    /// Time limit asked for (`--time`), seconds.
    pub walltime_s: i64,
    /// Expected runtime on a campus GPU, seconds (at most the limit).
    pub runtime_s: i64,
    /// Partition.
    pub partition: String,
    /// Account; `None`: not checked.
    pub account: Option<String>,
    /// Its expected Slurm priority; `None`: it queues behind every pending job (FIFO,
    /// or a group with no fair-share advantage).
    pub priority: Option<u64>,
    /// The id of the job when it is already in the snapshot's queue: it is taken out of
    /// the pending jobs, and Slurm's estimated start for it is shown beside the advice.
    pub job_id: Option<String>,
    /// What it computes (the cloud offer's speed for it).
    pub kind: JobKind,
    /// Data to upload for a cloud run, GB.
    pub data_gb: f64,
}

/// How much to simulate and what to decide against.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Replications of the forward simulation.
    pub replications: u32,
    /// Master seed.
    pub seed: u64,
    /// Days of new arrivals simulated after the snapshot.
    pub horizon_days: f64,
    /// The waits (hours) after which "wait, then rent" rents.
    pub waits_h: Vec<f64>,
    /// The job must finish within this many seconds of the snapshot; `None`: no deadline.
    pub deadline_s: Option<i64>,
    /// A choice meets the deadline when it finishes in time with at least this probability.
    pub confidence: f64,
    /// The hourly offer to rent (by name); `None`: the one cheapest to rent now.
    pub offer: Option<String>,
    /// A widening of the start intervals learned by a backtest ([`correction`]); `None`:
    /// the replications' intervals alone (too narrow on real logs: docs/ADVISE.md).
    pub correction: Option<correction::Correction>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            replications: 200,
            seed: 1,
            horizon_days: 14.0,
            waits_h: vec![1.0, 4.0, 12.0, 24.0],
            deadline_s: None,
            confidence: 0.9,
            offer: None,
            correction: None,
        }
    }
}

/// Hours at which [`StartDistribution::within`] gives the chance of having started.
pub const WITHIN_HOURS: [f64; 4] = [1.0, 4.0, 12.0, 24.0];

/// What advise answers.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    /// When the snapshot was taken (its clock); every `_s` figure counts from here.
    pub taken_at: i64,
    /// The campus the forward simulation ran.
    pub campus: CampusSummary,
    /// When the job starts on campus.
    pub start: StartDistribution,
    /// Slurm's own estimated start for the job (`squeue --start`), seconds after the
    /// snapshot, when the job is in the snapshot and Slurm has one.
    pub slurm_estimate_s: Option<i64>,
    /// Each choice's cost and finish.
    pub choices: Vec<Choice>,
    /// The deadline, seconds after the snapshot.
    pub deadline_s: Option<i64>,
    /// The probability a choice must finish by the deadline with.
    pub confidence: f64,
    /// Index in `choices` of the cheapest choice meeting the deadline (none without a
    /// deadline, or when no choice meets it).
    pub recommended: Option<usize>,
    /// What the user should know about the inputs (a stale snapshot, jobs left out).
    pub warnings: Vec<AdviceWarning>,
}

/// Something about the inputs that weakens the advice.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AdviceWarning {
    /// The snapshot is older than [`crate::trace::snapshot::STALE_AFTER_S`].
    Stale {
        /// Its age, seconds.
        age_s: i64,
    },
    /// The snapshot's time is ahead of now (clocks, or Unix against local time).
    FromFuture {
        /// How far ahead, seconds.
        ahead_s: i64,
    },
    /// A job of the snapshot that reading found doubtful (far past its time limit,
    /// started or submitted after the snapshot): the message names the file and line.
    Job {
        /// What is doubtful, where, and how the job is simulated.
        message: String,
        /// The same in Chinese (for the table; not in the JSON).
        #[serde(skip)]
        message_zh: String,
    },
    /// Jobs of the snapshot not simulated: another partition, no GPUs, larger than the partition.
    LeftOut {
        /// How many.
        jobs: usize,
    },
    /// Replications in which the job had not started when the horizon's arrivals ended.
    NotStarted {
        /// How many.
        replications: usize,
        /// Of how many.
        of: usize,
        /// The horizon, days.
        horizon_days: f64,
    },
}

impl std::fmt::Display for AdviceWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdviceWarning::Stale { age_s } => write!(f, "{}", SnapshotWarning::Stale { age_s: *age_s }),
            AdviceWarning::FromFuture { ahead_s } => write!(f, "{}", SnapshotWarning::FromFuture { ahead_s: *ahead_s }),
            AdviceWarning::Job { message, .. } => write!(f, "{message}"),
            AdviceWarning::LeftOut { jobs } => write!(
                f,
                "{jobs} jobs of the snapshot are left out (another partition, no GPUs, or larger than the partition)"
            ),
            AdviceWarning::NotStarted { replications, of, horizon_days } => write!(
                f,
                "in {replications} of {of} replications the job had not started after {horizon_days} days of \
                 arrivals; raise --horizon-days"
            ),
        }
    }
}

/// The campus as the forward simulation saw it.
#[derive(Clone, Debug, Serialize)]
pub struct CampusSummary {
    /// The partition.
    pub partition: String,
    /// Its usable GPUs.
    pub gpus: u32,
    /// Running jobs started from the snapshot.
    pub running: usize,
    /// Pending jobs started from the snapshot.
    pub pending: usize,
    /// Of those, how many queue ahead of the job.
    pub ahead: usize,
    /// Jobs of the snapshot left out (other partitions, no GPUs, too large, running on
    /// nodes that take no new job).
    pub left_out: usize,
}

/// The distribution of the job's start over the replications.
#[derive(Clone, Debug, Serialize)]
pub struct StartDistribution {
    /// Replications run.
    pub replications: u32,
    /// Of those, how many started the job within the horizon.
    pub started: u32,
    /// The chance of having started within 1, 4, 12 and 24 hours, with 95% intervals.
    pub within: Vec<Within>,
    /// 10th percentile, seconds after the snapshot (`None`: beyond the horizon).
    pub p10_s: Option<f64>,
    /// Median.
    pub median_s: Option<f64>,
    /// 90th percentile.
    pub p90_s: Option<f64>,
    /// Mean (`None` when any replication did not start the job).
    pub mean_s: Option<f64>,
    /// The 50%, 80% and 95% intervals widened by [`Options::correction`] (empty without
    /// one): what a backtest found they must be to hold out of sample.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corrected: Vec<CorrectedInterval>,
}

/// A central interval of the start widened by a learned [`correction::Correction`].
#[derive(Clone, Debug, Serialize)]
pub struct CorrectedInterval {
    /// Nominal level (0.5, 0.8, 0.95).
    pub level: f64,
    /// Lower end, seconds after the snapshot (`None`: beyond the horizon).
    pub low_s: Option<f64>,
    /// Upper end (`None`: beyond the horizon or unbounded).
    pub high_s: Option<f64>,
    /// Calibration probes the correction was learned from.
    pub probes: usize,
}

/// The chance of having started within some hours.
#[derive(Clone, Debug, Serialize)]
pub struct Within {
    /// Hours after the snapshot.
    pub hours: f64,
    /// Share of replications.
    pub p: f64,
    /// Clopper–Pearson 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// Why advise cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum AdviseError {
    /// The job does not suit the snapshot (partition, account, size).
    #[error(transparent)]
    Request(#[from] crate::trace::snapshot::RequestError),
    /// The job is described inconsistently.
    #[error("{0}")]
    Probe(String),
    /// The partition has no usable node with GPUs.
    #[error("partition '{partition}' has no usable node with GPUs in the snapshot (all down, drained or GPU-less)")]
    NoUsableNodes {
        /// The partition.
        partition: String,
    },
    /// The scenario made for the forward simulation does not validate.
    #[error("the scenario cannot be run forward from the snapshot: {0}")]
    Scenario(String),
    /// What advise does not do yet.
    #[error("{0}")]
    Unsupported(String),
    /// The named offer is not an hourly offer of the scenario.
    #[error("offer '{name}' is not an hourly offer of the scenario; hourly offers: {}", known.join(", "))]
    UnknownOffer {
        /// The name given.
        name: String,
        /// The scenario's hourly offers.
        known: Vec<String>,
    },
    /// A forward run exceeded the engine's event budget (a bug).
    #[error("a forward simulation ran away: {0}")]
    Runaway(String),
}

/// Advises on `probe` submitted to the campus of `snapshot`, with `scenario`'s arrivals,
/// backfill settings and cloud offers. `now` (the snapshot's clock) decides the staleness
/// warning.
///
/// # Errors
/// [`AdviseError`], naming what is wrong.
pub fn advise(
    snapshot: &Snapshot,
    scenario: &Scenario,
    probe: &Probe,
    options: &Options,
    now: i64,
) -> Result<Advice, AdviseError> {
    let (probe, slurm_estimate_s) = resolve(snapshot, scenario, probe)?;
    let fwd =
        forward::Forward::new(snapshot, scenario, &probe, options.replications, options.seed, options.horizon_days)?;
    let starts = replicate(&fwd, options)?;
    let offer = choices::pick_offer(fwd.scenario(), &probe, options)?;
    let choices = choices::evaluate(fwd.scenario(), &probe, options, &starts, offer);
    let recommended = options.deadline_s.and_then(|_| choices::cheapest_meeting(&choices, options.confidence));

    let mut warnings: Vec<AdviceWarning> = snapshot
        .warnings(now)
        .into_iter()
        .map(|w| match w {
            SnapshotWarning::Stale { age_s } => AdviceWarning::Stale { age_s },
            SnapshotWarning::FromFuture { ahead_s } => AdviceWarning::FromFuture { ahead_s },
            job => AdviceWarning::Job { message: job.to_string(), message_zh: job.zh() },
        })
        .collect();
    let (running, pending, ahead) = fwd.counts();
    if fwd.left_out > 0 {
        warnings.push(AdviceWarning::LeftOut { jobs: fwd.left_out });
    }
    let not_started = starts.iter().filter(|s| s.is_none()).count();
    if not_started > 0 {
        warnings.push(AdviceWarning::NotStarted {
            replications: not_started,
            of: starts.len(),
            horizon_days: options.horizon_days,
        });
    }
    Ok(Advice {
        taken_at: snapshot.taken_at,
        campus: CampusSummary {
            partition: probe.partition.clone(),
            gpus: fwd.campus_gpus(),
            running,
            pending,
            ahead,
            left_out: fwd.left_out,
        },
        start: distribution(&starts, options.correction.as_ref()),
        slurm_estimate_s,
        choices,
        deadline_s: options.deadline_s,
        confidence: options.confidence,
        recommended,
        warnings,
    })
}

/// The probe's start in each replication of [`advise`]'s forward simulation, seconds
/// after the snapshot (`None`: not started within the horizon), in replication order:
/// the sample [`StartDistribution`] summarises, for a backtest that scores quantiles
/// other than the three advise prints (`crate::backtest`). The same checks,
/// seeds and replications as [`advise`], so the two agree replication by replication.
///
/// # Errors
/// As [`advise`].
pub fn start_samples(
    snapshot: &Snapshot,
    scenario: &Scenario,
    probe: &Probe,
    options: &Options,
) -> Result<Vec<Option<u64>>, AdviseError> {
    let (probe, _) = resolve(snapshot, scenario, probe)?;
    let fwd =
        forward::Forward::new(snapshot, scenario, &probe, options.replications, options.seed, options.horizon_days)?;
    replicate(&fwd, options)
}

/// The probe as simulated (its priority from the snapshot when it is already queued) and
/// Slurm's estimate for it, after checking it against the snapshot and the scenario.
fn resolve(snapshot: &Snapshot, scenario: &Scenario, probe: &Probe) -> Result<(Probe, Option<i64>), AdviseError> {
    let mut probe = probe.clone();
    let mut slurm_estimate_s = None;
    if let Some(id) = &probe.job_id {
        let job = snapshot
            .pending
            .iter()
            .find(|j| &j.id == id)
            .ok_or_else(|| AdviseError::Probe(format!("job {id} is not pending in the snapshot")))?;
        slurm_estimate_s = job.estimated_start.map(|t| t - snapshot.taken_at);
        probe.priority = Some(job.priority);
    }
    if probe.gpus == 0 {
        return Err(AdviseError::Probe("the job asks for 0 GPUs; advise is for GPU jobs (--gpus 1 or more)".into()));
    }
    if probe.runtime_s < 1 || probe.walltime_s < probe.runtime_s {
        return Err(AdviseError::Probe(format!(
            "the expected runtime ({} s) must be at least 1 s and at most the time limit ({} s)",
            probe.runtime_s, probe.walltime_s
        )));
    }
    let accounts: Vec<String> = scenario.campus.accounts.iter().map(|a| a.name.clone()).collect();
    let request = SubmitRequest {
        gpus: probe.gpus,
        nodes: probe.nodes,
        partition: probe.partition.clone(),
        account: probe.account.clone().unwrap_or_default(),
    };
    let known = if probe.account.is_some() { accounts } else { vec![String::new()] };
    snapshot.check_request(&request, &known)?;
    Ok((probe, slurm_estimate_s))
}

/// The probe's start in each replication, in parallel and collected in order.
fn replicate(fwd: &forward::Forward, options: &Options) -> Result<Vec<Option<u64>>, AdviseError> {
    (0..u64::from(options.replications.max(1))).into_par_iter().map(|r| fwd.probe_start(r)).collect()
}

/// The start distribution of the replications' starts (`None`: not started), with the
/// intervals widened by `correction` when there is one.
fn distribution(starts: &[Option<u64>], correction: Option<&correction::Correction>) -> StartDistribution {
    let n = starts.len();
    let started: Vec<f64> = starts.iter().flatten().map(|&s| s as f64).collect();
    // Quantiles over all n replications, those that never started counting as +∞: a
    // quantile that falls on (or between) them is beyond the horizon.
    let mut all: Vec<f64> = starts.iter().map(|s| s.map_or(f64::INFINITY, |s| s as f64)).collect();
    all.sort_by(f64::total_cmp);
    let quantile = |p: f64| Some(percentile_sorted(&all, p)).filter(|q| q.is_finite());
    let within = WITHIN_HOURS
        .iter()
        .map(|&h| {
            let k = started.iter().filter(|&&s| s <= h * 3600.0).count();
            let (low, high) = clopper_pearson(k, n, 0.95);
            Within { hours: h, p: k as f64 / n.max(1) as f64, low, high }
        })
        .collect();
    StartDistribution {
        replications: n as u32,
        started: started.len() as u32,
        within,
        p10_s: quantile(0.1),
        median_s: quantile(0.5),
        p90_s: quantile(0.9),
        mean_s: (started.len() == n && n > 0).then(|| started.iter().sum::<f64>() / n as f64),
        corrected: correction
            .map(|c| {
                correction::LEVELS
                    .iter()
                    .enumerate()
                    .map(|(k, &level)| {
                        let (lo, hi) = correction::central_interval(&all, level);
                        let (lo, hi) = c.apply(k, lo, hi);
                        let finite = |x: f64| Some(x).filter(|x| x.is_finite());
                        CorrectedInterval { level, low_s: finite(lo), high_s: finite(hi), probes: c.probes }
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}
