//! Monte Carlo experiments: replications × policies in parallel, with common random
//! numbers, folded into per-policy statistics.
//!
//! Replication `r` generates its job stream once from `(seed, r)` and every policy runs
//! on that same stream (common random numbers), so differences between policies are
//! differences in what they decide. Replications run in parallel with rayon (and the
//! policies of one replication too); results are collected in index order and folded
//! sequentially, so every number is identical for any thread count. Replications are
//! processed in chunks, so memory does not grow with their number.

pub mod risk;
pub mod sequential;

pub mod summary;

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::{Halt, Runaway, simulate_metrics_until, simulate_reference_until, simulate_shared_until};
use crate::metric::Metric;
use crate::metrics::{Daily, RunMetrics};
use crate::scenario::raw::CampusModel;

use crate::scenario::Scenario;
use crate::workload::JobStream;

pub use sequential::Sequential;
pub use summary::{ClassRow, PairedRow, SeasonRow, Summaries, SummaryRow};

/// Replications folded per parallel chunk (bounds memory; does not affect results).
const CHUNK: usize = 64;

/// Upper edges (hours) of the wait histogram kept for CDF charts: 0, then 1 minute to
/// 60 days on a log scale (48 bins per decade).
pub fn wait_bin_edges() -> Vec<f64> {
    let mut v = vec![0.0];
    let (lo, hi): (f64, f64) = (1.0 / 60.0, 24.0 * 60.0);
    let n = (48.0 * (hi / lo).log10()).ceil() as usize;
    for i in 0..=n {
        v.push(lo * 10f64.powf(i as f64 / 48.0));
    }
    v.push(f64::INFINITY);
    v
}

/// Fixed-point scale of [`DailySums`]: 2³², about 2·10⁻¹⁰ resolution.
const FIXED_SCALE: f64 = 4_294_967_296.0;

/// Sums over replications of the daily series, in fixed point (value × 2³², rounded, in
/// `i128`). Integer addition is associative, so the sums, and the means derived from
/// them, are bit-identical whatever the order or grouping of the replications: one
/// thread or many, one machine or merged shards.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DailySums {
    /// Σ mean GPUs requested by jobs waiting on campus, per day.
    pub campus_queue_gpus: Vec<i128>,
    /// Σ mean busy campus GPUs, per day.
    pub campus_busy_gpus: Vec<i128>,
    /// Σ mean busy cloud GPUs, per day.
    pub cloud_busy_gpus: Vec<i128>,
    /// Σ spending, per day.
    pub cost_cny: Vec<i128>,
}

impl DailySums {
    /// Zeros for `days` days.
    pub fn new(days: usize) -> DailySums {
        let z = vec![0i128; days];
        DailySums { campus_queue_gpus: z.clone(), campus_busy_gpus: z.clone(), cloud_busy_gpus: z.clone(), cost_cny: z }
    }

    fn fixed(v: f64) -> i128 {
        (v * FIXED_SCALE).round() as i128
    }

    /// Adds one replication's series.
    pub fn add(&mut self, d: &Daily) {
        let add = |acc: &mut Vec<i128>, v: &[f64]| acc.iter_mut().zip(v).for_each(|(a, b)| *a += Self::fixed(*b));
        add(&mut self.campus_queue_gpus, &d.campus_queue_gpus);
        add(&mut self.campus_busy_gpus, &d.campus_busy_gpus);
        add(&mut self.cloud_busy_gpus, &d.cloud_busy_gpus);
        add(&mut self.cost_cny, &d.cost_cny);
    }

    /// Adds another set of sums (merging shards).
    pub fn merge(&mut self, other: &DailySums) {
        let add = |acc: &mut Vec<i128>, v: &[i128]| acc.iter_mut().zip(v).for_each(|(a, b)| *a += b);
        add(&mut self.campus_queue_gpus, &other.campus_queue_gpus);
        add(&mut self.campus_busy_gpus, &other.campus_busy_gpus);
        add(&mut self.cloud_busy_gpus, &other.cloud_busy_gpus);
        add(&mut self.cost_cny, &other.cost_cny);
    }

    /// The mean over `n` replications of a summed value.
    pub fn mean(sum: i128, n: usize) -> f64 {
        sum as f64 / FIXED_SCALE / n.max(1) as f64
    }
}

/// Everything kept of one policy across replications.
#[derive(Clone, Debug, Default)]
pub struct PolicyResults {
    /// Per replication (in order), one value per [`Metric::ALL`].
    pub values: Vec<Vec<f64>>,
    /// Per replication: looked unstable?
    pub unstable: Vec<bool>,
    /// Sums of the daily series over replications (divide by the count for means).
    pub daily_sum: DailySums,
    /// Counts of measured waits per bin of [`wait_bin_edges`], over all replications.
    pub wait_hist: Vec<u64>,
    /// The same per group class of the scenario (class × bin).
    pub class_wait_hist: Vec<Vec<u64>>,
    /// Per replication (in order), per class row of [`Scenario::class_names`], the values
    /// of the scenario's class metrics.
    pub class_values: Vec<Vec<Vec<f64>>>,
    /// Per replication (in order), per season row ([`crate::metrics::season::SeasonSet`]),
    /// per class row, the values of [`crate::metrics::season::SEASON_METRICS`].
    pub season_values: Vec<Vec<Vec<Vec<f64>>>>,
}

/// The results of an experiment.
#[derive(Clone, Debug)]
pub struct Results {
    /// Replication indices, in order.
    pub replications: Vec<u64>,
    /// One entry per scenario policy.
    pub policies: Vec<PolicyResults>,
}

/// Why the replications stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Stopping {
    /// The fixed number of replications ran.
    Fixed,
    /// Sequential stopping: every watched CI reached its target, or (a rule with paired
    /// targets) the decision was settled first.
    TargetReached {
        /// The rule.
        rule: Sequential,
        /// The decision was settled before every watched CI reached its target.
        settled: bool,
        /// Watched metrics undefined in every year of a policy (skipped).
        undefined: Vec<String>,
    },
    /// Sequential stopping: the maximum number of replications ran before the targets
    /// were reached.
    MaximumReached {
        /// The rule.
        rule: Sequential,
        /// The watched CI furthest from its target.
        worst: sequential::Shortfall,
    },
    /// Interrupted (Ctrl-C, SIGTERM): only the replications that finished are kept.
    Interrupted {
        /// Replications finished.
        done: usize,
        /// Replications planned: the fixed count, or under sequential stopping the maximum.
        planned: usize,
        /// Under sequential stopping the total was not known in advance.
        sequential: bool,
    },
}

impl Results {
    /// Empty results for a scenario.
    pub fn new(scenario: &Scenario) -> Results {
        let days = scenario.window_days();
        let bins = wait_bin_edges().len();
        let empty = PolicyResults {
            values: Vec::new(),
            unstable: Vec::new(),
            daily_sum: DailySums::new(days),
            wait_hist: vec![0; bins],
            class_wait_hist: vec![vec![0; bins]; scenario.group.len()],
            class_values: Vec::new(),
            season_values: Vec::new(),
        };
        Results { replications: Vec::new(), policies: vec![empty; scenario.policies.len()] }
    }

    /// Folds one replication's per-policy metrics in (call in replication order).
    pub fn push(&mut self, replication: u64, per_policy: Vec<RunMetrics>) {
        let edges = wait_bin_edges();
        self.replications.push(replication);
        for (pr, m) in self.policies.iter_mut().zip(per_policy) {
            pr.daily_sum.add(&m.daily);
            let bin = |w: f64| edges.partition_point(|&e| e < w).min(edges.len() - 1);
            for &w in &m.waits_h {
                pr.wait_hist[bin(w)] += 1;
            }
            for (hist, waits) in pr.class_wait_hist.iter_mut().zip(&m.class_waits_h) {
                for &w in waits {
                    hist[bin(w)] += 1;
                }
            }
            pr.values.push(m.values);
            pr.unstable.push(m.unstable);
            pr.class_values.push(m.classes);
            pr.season_values.push(m.seasons);
        }
    }

    /// The values of one metric of one policy, in replication order.
    pub fn column(&self, policy: usize, metric: Metric) -> Vec<f64> {
        self.policies[policy].values.iter().map(|v| v[metric.index()]).collect()
    }

    /// `policy − other` of one metric in each replication (the years are the same, so the
    /// difference is paired); NaN where either is undefined.
    pub fn paired_column(&self, policy: usize, other: usize, metric: Metric) -> Vec<f64> {
        let (x, y) = (self.column(policy, metric), self.column(other, metric));
        x.iter().zip(&y).map(|(x, y)| x - y).collect()
    }

    /// The values of one class metric of one policy (class row `class`, metric `metric` of
    /// the scenario's class metric set), in replication order.
    pub fn class_column(&self, policy: usize, class: usize, metric: usize) -> Vec<f64> {
        self.policies[policy].class_values.iter().map(|v| v[class][metric]).collect()
    }

    /// The values of one season metric of one policy (season row `season`, class row
    /// `class`, metric `metric` of [`crate::metrics::season::SEASON_METRICS`]), in
    /// replication order.
    pub fn season_column(&self, policy: usize, season: usize, class: usize, metric: usize) -> Vec<f64> {
        self.policies[policy].season_values.iter().map(|v| v[season][class][metric]).collect()
    }
}

/// Runs every policy of one replication (the job stream is generated once: CRN).
///
/// # Panics
/// If a replication exceeds its event budget (see [`crate::engine::watchdog`]), which
/// validation rules out; [`run_replication_until`] returns it as an error.
pub fn run_replication(scenario: &Scenario, replication: u64) -> Vec<RunMetrics> {
    match run_replication_until(scenario, replication, &|| false) {
        Ok(m) => m,
        Err(Halt::Runaway(e)) => panic!("{e}"),
        Err(Halt::Cancelled) => unreachable!("never cancelled"),
    }
}

/// As [`run_replication`], ending early when `stop()` turns true ([`Halt::Cancelled`])
/// or when a policy's run exceeds its event budget ([`Halt::Runaway`], the first policy's
/// in policy order, so the message does not depend on the thread count).
///
/// # Errors
/// [`Halt`].
pub fn run_replication_until(
    scenario: &Scenario,
    replication: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<RunMetrics>, Halt> {
    Ok(run_replication_timed(scenario, replication, stop)?.into_iter().map(|(m, _)| m).collect())
}

/// As [`run_replication_until`], with the wall time each policy's simulation took (plus
/// an equal share of the job stream's generation): what a progress bar weighs work by, since
/// one policy can cost several times another. The times never enter the results.
fn run_replication_timed(
    scenario: &Scenario,
    replication: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<(RunMetrics, Duration)>, Halt> {
    if stop() {
        return Err(Halt::Cancelled);
    }
    let t0 = Instant::now();
    let jobs = JobStream::generate_until(scenario, replication, stop).ok_or(Halt::Cancelled)?;
    // The stream is generated for all the policies: each carries an equal share of it.
    let generation = t0.elapsed() / scenario.policies.len().max(1) as u32;
    if crate::scenario::campus_model::effective(scenario).0 == CampusModel::Shared {
        return run_shared(scenario, &jobs, replication, generation, stop);
    }
    let runs: Vec<Result<(RunMetrics, Duration), Halt>> = (0..scenario.policies.len())
        .into_par_iter()
        .map(|p| {
            let t0 = Instant::now();
            simulate_metrics_until(scenario, &jobs, p, replication, stop).map(|m| (m, generation + t0.elapsed()))
        })
        .collect();
    first_halt(runs)
}

/// One replication under the shared background (`engine/shared.rs`): the baseline's exact
/// run, which records the other groups' campus, then every other policy against that
/// record, in parallel. The baseline's figures are the exact model's.
fn run_shared(
    scenario: &Scenario,
    jobs: &JobStream,
    replication: u64,
    generation: Duration,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<(RunMetrics, Duration)>, Halt> {
    let base = scenario.baseline;
    let t0 = Instant::now();
    let (base_metrics, background) = simulate_reference_until(scenario, jobs, base, replication, stop)?;
    let base_time = generation + t0.elapsed();
    let runs: Vec<Result<(RunMetrics, Duration), Halt>> = (0..scenario.policies.len())
        .into_par_iter()
        .filter(|&p| p != base)
        .map(|p| {
            let t0 = Instant::now();
            simulate_shared_until(scenario, jobs, p, replication, &background, stop)
                .map(|m| (m, generation + t0.elapsed()))
        })
        .collect();
    let mut out = first_halt(runs)?;
    out.insert(base, (base_metrics, base_time));
    Ok(out)
}

/// All the values, or the first runaway in order (else the first cancellation).
fn first_halt<T>(runs: Vec<Result<T, Halt>>) -> Result<Vec<T>, Halt> {
    if let Some(r) = runs.iter().find_map(|r| match r {
        Err(Halt::Runaway(e)) => Some(e.clone()),
        _ => None,
    }) {
        return Err(Halt::Runaway(r));
    }
    runs.into_iter().collect()
}

/// Runs the given replications (in parallel, in chunks) and folds them into `results`
/// in order. `progress` is called once per finished replication.
///
/// # Panics
/// As [`run_replication`].
pub fn run_into(scenario: &Scenario, replications: &[u64], results: &mut Results, progress: &(dyn Fn() + Sync)) {
    if let Err(e) = run_into_until(scenario, replications, results, progress, &|| false) {
        panic!("{e}");
    }
}

/// As [`run_into`], but replications not finished when `stop()` turns true are skipped
/// (those in flight stop within milliseconds: the engine polls `stop`). Returns
/// `Ok(false)` if any was skipped; the replications that did finish are folded in (in
/// order), so their results stand.
///
/// # Errors
/// [`Runaway`] when a replication exceeds its event budget (the first in replication
/// order); nothing of its chunk is folded in.
pub fn run_into_until(
    scenario: &Scenario,
    replications: &[u64],
    results: &mut Results,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<bool, Runaway> {
    run_into_costed(scenario, replications, results, &|_| progress(), stop)
}

/// As [`run_into_until`], but `progress` is given, for each finished replication, the
/// wall time each policy took to simulate, in policy order.
///
/// # Errors
/// As [`run_into_until`].
pub fn run_into_costed(
    scenario: &Scenario,
    replications: &[u64],
    results: &mut Results,
    progress: &(dyn Fn(&[Duration]) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<bool, Runaway> {
    run_chunks(scenario, replications.iter().copied(), results, progress, stop)
}

/// As [`run_into_costed`], drawing the replication indices from an iterator one chunk at a
/// time: memory follows the replications that ran, not the number asked for (a list of
/// 10^9 indices alone would take 8 GB before the first replication started).
fn run_chunks(
    scenario: &Scenario,
    replications: impl IntoIterator<Item = u64>,
    results: &mut Results,
    progress: &(dyn Fn(&[Duration]) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<bool, Runaway> {
    let mut indices = replications.into_iter();
    loop {
        let chunk: Vec<u64> = indices.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            break;
        }
        let done: Vec<Option<Result<Vec<RunMetrics>, Halt>>> = chunk
            .par_iter()
            .map(|&r| {
                if stop() {
                    return None;
                }
                let m = run_replication_timed(scenario, r, stop).map(|runs| {
                    let (metrics, times): (Vec<RunMetrics>, Vec<Duration>) = runs.into_iter().unzip();
                    progress(&times);
                    metrics
                });
                Some(m)
            })
            .collect();
        if let Some(e) = done.iter().find_map(|d| match d {
            Some(Err(Halt::Runaway(e))) => Some(e.clone()),
            _ => None,
        }) {
            return Err(e);
        }
        let complete = done.iter().all(|d| matches!(d, Some(Ok(_))));
        for (&r, m) in chunk.iter().zip(done) {
            if let Some(Ok(m)) = m {
                results.push(r, m);
            }
        }
        if !complete {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs a scenario: its fixed number of replications, or under a [`Sequential`] rule in
/// growing batches until every watched CI is narrow enough (or `max_replications` ran);
/// see [`sequential`] for the rule and its measured coverage.
///
/// # Panics
/// As [`run_replication`].
pub fn run(scenario: &Scenario, rule: Option<&Sequential>, progress: &(dyn Fn() + Sync)) -> (Results, Stopping) {
    match run_until(scenario, rule, progress, &|| false) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

/// As [`run`], stopping early (with [`Stopping::Interrupted`]) when `stop()` turns true.
///
/// # Errors
/// [`Runaway`] when a replication exceeds its event budget.
pub fn run_until(
    scenario: &Scenario,
    rule: Option<&Sequential>,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Results, Stopping), Runaway> {
    run_until_costed(scenario, rule, &|_| progress(), stop)
}

/// As [`run_until`], but `progress` is given the wall time each policy of a finished
/// replication took to simulate (in policy order), for progress bars that weigh policies by cost.
///
/// # Errors
/// As [`run_until`].
pub fn run_until_costed(
    scenario: &Scenario,
    rule: Option<&Sequential>,
    progress: &(dyn Fn(&[Duration]) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Results, Stopping), Runaway> {
    let mut results = Results::new(scenario);
    let max = scenario.max_replications as usize;
    let first = match rule {
        None => scenario.replications as usize,
        Some(_) => (scenario.replications as usize).max(sequential::MIN_REPLICATIONS).min(max.max(1)),
    };
    let interrupted = |r: Results| {
        let done = r.replications.len();
        let (planned, sequential) = match rule {
            None => (scenario.replications as usize, false),
            Some(_) => (max, true),
        };
        Ok((r, Stopping::Interrupted { done, planned, sequential }))
    };
    if !run_chunks(scenario, 0..first as u64, &mut results, progress, stop)? {
        return interrupted(results);
    }
    let Some(rule) = rule else { return Ok((results, Stopping::Fixed)) };
    loop {
        let check = rule.check(scenario, &results);
        if check.met {
            return Ok((
                results,
                Stopping::TargetReached { rule: rule.clone(), settled: check.settled, undefined: check.undefined },
            ));
        }
        let have = results.replications.len();
        if have >= max {
            let worst = check.worst.expect("a check that is not met names its worst CI");
            return Ok((results, Stopping::MaximumReached { rule: rule.clone(), worst }));
        }
        // Next batch: half again as many (at least 2, at most the remaining budget), so
        // the rule looks only about 2.5·ln(n/20) + 1 times by n replications.
        let batch = (have / 2).max(2).min(max - have);
        if !run_chunks(scenario, have as u64..(have + batch) as u64, &mut results, progress, stop)? {
            return interrupted(results);
        }
    }
}
