//! Replay of a log through the engine: the log's jobs become burstsim [`Job`](crate::job::Job)s, run on a
//! campus of N GPUs under FCFS or EASY backfill, and the simulated queue delays are set
//! next to the recorded ones (`burstsim validate --trace`).
//!
//! The campus is a pool of N GPUs (`placement = "pool"`), or, with [`ReplayOptions::nodes`],
//! N nodes × G GPUs (`placement = "nodes"`: Slurm's best-fit placement, a job larger than
//! a node on whole nodes, backfill every `bf_interval` and FIFO or multifactor priority;
//! see `cluster/nodes.rs`). [`Replay::jobs_csv`] gives each job's recorded and simulated
//! start, for a start-by-start comparison with a real Slurm.
//!
//! The log's jobs are converted by [`crate::trace::convert`] ([`to_jobs`] here takes the
//! conversion settings from [`ReplayOptions`]).
//!
//! They run as background jobs, so no policy,
//! group limit or walltime limit touches them, and their waits come from the engine's
//! per-job records.
//!
//! With [`ReplayOptions::fairshare`] the replay runs Slurm's fair-share as a cluster with
//! slurmdbd does: every job in its log's account (the `group` field), each account with
//! its shares, fair-share the only priority factor, usage decaying with the half-life and
//! priorities recomputed on the cluster's own timer. Slurm's root user association is
//! modelled, not deleted: `sacctmgr add account` puts every account under `root`, beside
//! the user `root` of account `root` with one share, which runs nothing. It is account
//! [`ROOT_ACCOUNT`] here with one share (unless the shares give it another), so the
//! classic factor's normalised shares and Fair Tree's number of user associations are
//! Slurm's.

use crate::engine::simulate;
use crate::scenario::raw::{FairshareAlgorithm, PriorityKind, SchedulerKind};
use crate::scenario::recurring::TimeLimits;
use crate::scenario::{Scenario, ScenarioError};
use crate::stats::percentile_sorted;
use crate::trace::Trace;
use crate::trace::convert::{self, Conversion};
use crate::trace::convert::{Converted, Estimates, Units};
use crate::units::{DAY, SimTime};
use crate::workload::JobStream;

/// How to turn a log into jobs and what to run them on.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// GPUs (or processors) of the simulated cluster.
    pub gpus: u32,
    /// Queue discipline.
    pub scheduler: SchedulerKind,
    /// What a job's size counts.
    pub units: Units,
    /// Processors (or GPUs) per simulated GPU; sizes are divided by it and rounded up.
    pub procs_per_gpu: f64,
    /// Which runtime estimates the scheduler sees.
    pub estimates: Estimates,
    /// Nodes instead of a pool: `(nodes, GPUs per node)`; `gpus` is then their product.
    pub nodes: Option<(u32, u32)>,
    /// Queue order (multifactor only on nodes; every job is in one account, so only the
    /// age and job-size factors order the queue).
    pub priority: PriorityKind,
    /// Seconds between backfill passes on nodes (Slurm `bf_interval`; `None`: 30).
    pub bf_interval_s: Option<u32>,
    /// Tested jobs that get a reservation each backfill pass on nodes (`None`: the
    /// scenario default, 16; Slurm reserves for every tested job).
    pub bf_reservations: Option<u32>,
    /// The backfill planner on nodes (`None`: the scenario default, exact).
    pub bf_planner: Option<crate::scenario::raw::BfPlanner>,
    /// Slurm's `bf_resolution` for the Slurm planner (`None`: 60 s, Slurm's default).
    pub bf_resolution_s: Option<u32>,
    /// Seconds each job holds its GPUs past its recorded end (Slurm's COMPLETING state:
    /// a node is released for the next start a moment after the job ends); 0 by default.
    pub completing_s: u32,
    /// Stop the scheduler during the log's own outages ([`super::infer::outages`]).
    pub infer_outages: bool,
    /// Shortest inferred outage (default [`super::infer::MIN_OUTAGE`], one hour).
    pub outage_min: SimTime,
    /// Scheduler cycle: `None` none; `Some(None)` the log's own ([`super::infer::cycle`]);
    /// `Some(Some(s))` every `s` seconds.
    pub cycle: Option<Option<SimTime>>,
    /// Fair-share from the log's accounts (on nodes only; the priority is then
    /// multifactor with fair-share as its only factor, whatever `priority` says).
    pub fairshare: Option<FairshareReplay>,
}

/// The account of Slurm's root user association, modelled with one share (module doc).
pub const ROOT_ACCOUNT: &str = "root";

/// Fair-share as a real Slurm with accounting runs it (`scripts/slurm-cluster.sh` with
/// `BURSTSIM_SLURM_ACCOUNTING`): PriorityWeightFairshare the only weight.
#[derive(Clone, Debug, PartialEq)]
pub struct FairshareReplay {
    /// Classic (`PriorityFlags=NO_FAIR_TREE`) or Fair Tree.
    pub algorithm: FairshareAlgorithm,
    /// Each account's raw shares (sacctmgr's `fairshare=`), in this order; every job of
    /// the log must be in one of them. [`ROOT_ACCOUNT`] is added with 1 share if absent.
    pub shares: Vec<(String, f64)>,
    /// PriorityDecayHalfLife, seconds (at least 60).
    pub half_life_s: SimTime,
    /// PriorityCalcPeriod, seconds (at least 60).
    pub calc_period_s: SimTime,
    /// Seconds from the log's first submission to the first recomputation (slurmctld's
    /// timer runs from its start: `scripts/slurm-replay.py run --calc-phase P` gives
    /// `calc_period_s − P`); `None`: one period.
    pub calc_offset_s: Option<SimTime>,
    /// Book usage as Slurm 22.05's decay thread does (`cluster::priority`, "Slurm's
    /// bookkeeping"): credited to running jobs at each recalculation, factors held
    /// between them, classic's one period behind. Else exactly.
    pub slurm_usage: bool,
}

/// Weight of the fair-share factor in a fair-share replay (the cluster's
/// PriorityWeightFairshare; the order does not depend on it, only on the factors).
pub const FAIRSHARE_WEIGHT: f64 = 10_000.0;

/// Why a fair-share replay cannot put a job in an account.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The replay scenario was refused.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A job has no account.
    #[error(
        "line {line}: job '{job}' has no account; a fair-share replay needs every job's account (the mapping's `group` column)"
    )]
    NoAccount {
        /// 1-based line of the job in the log.
        line: usize,
        /// Its id.
        job: String,
    },
    /// A job's account has no shares.
    #[error("line {line}: job '{job}': account '{account}' has no shares; the accounts with shares are {known}")]
    UnknownAccount {
        /// 1-based line of the job in the log.
        line: usize,
        /// Its id.
        job: String,
        /// The account as written.
        account: String,
        /// The accounts that have shares, comma-separated.
        known: String,
    },
}

impl ReplayOptions {
    /// How this replay converts the log's jobs.
    pub fn conversion(&self) -> Conversion {
        Conversion { gpus: self.gpus, units: self.units, procs_per_gpu: self.procs_per_gpu, estimates: self.estimates }
    }

    /// `gpus` GPUs in a pool, EASY backfill, automatic units, one unit per GPU, recorded
    /// estimates, FIFO.
    pub fn new(gpus: u32) -> ReplayOptions {
        ReplayOptions {
            gpus,
            scheduler: SchedulerKind::EasyBackfill,
            units: Units::Auto,
            procs_per_gpu: 1.0,
            estimates: Estimates::Recorded,
            nodes: None,
            priority: PriorityKind::Fifo,
            bf_interval_s: None,
            bf_reservations: None,
            bf_planner: None,
            bf_resolution_s: None,
            completing_s: 0,
            infer_outages: false,
            outage_min: super::infer::MIN_OUTAGE,
            cycle: None,
            fairshare: None,
        }
    }

    /// As [`ReplayOptions::new`] on `nodes` nodes of `gpus_per_node` GPUs each.
    pub fn on_nodes(nodes: u32, gpus_per_node: u32) -> ReplayOptions {
        ReplayOptions { nodes: Some((nodes, gpus_per_node)), ..ReplayOptions::new(nodes.saturating_mul(gpus_per_node)) }
    }
}

/// Converts a log's jobs with the replay's settings ([`crate::trace::convert::to_jobs`]).
pub fn to_jobs(trace: &Trace, o: &ReplayOptions) -> Converted {
    if o.completing_s == 0 {
        return convert::to_jobs(trace, &o.conversion());
    }
    // Each job runs `completing_s` longer; its time limit stays as recorded.
    let mut t = trace.clone();
    for j in &mut t.jobs {
        j.runtime = j.runtime.map(|r| r + i64::from(o.completing_s));
    }
    convert::to_jobs(&t, &o.conversion())
}

/// The scenario a replay runs: the options' campus (a pool of `gpus` GPUs, or nodes ×
/// GPUs per node with its priority and backfill settings) and scheduler, no walltime
/// limit, no maintenance, and one background class with no arrivals of its own (the
/// log's jobs come in through [`JobStream::from_jobs`]).
///
/// # Errors
/// [`ScenarioError`] if the values are out of range (e.g. 0 GPUs, a log longer than
/// ten years, a backfill interval over an hour, multifactor priority on a pool).
pub fn scenario(o: &ReplayOptions, last_submit: SimTime) -> Result<Scenario, ScenarioError> {
    let horizon_days = (last_submit / DAY + 1) as f64;
    let scheduler = match o.scheduler {
        SchedulerKind::Fcfs => "fcfs",
        SchedulerKind::EasyBackfill => "easy-backfill",
    };
    let priority = match (o.priority, &o.fairshare) {
        (_, Some(_)) | (PriorityKind::Multifactor, None) => "multifactor",
        (PriorityKind::Fifo, None) => "fifo",
    };
    let mut campus = match o.nodes {
        None => format!("gpus = {}\n", o.gpus),
        Some((n, g)) => format!("placement = \"nodes\"\nnodes = {n}\ngpus_per_node = {g}\n"),
    };
    campus.push_str(&format!("vram_gb = 80\nscheduler = \"{scheduler}\"\npriority = \"{priority}\"\n"));
    if let Some(s) = o.bf_interval_s {
        campus.push_str(&format!("bf_interval_seconds = {s}\n"));
    }
    if let Some(r) = o.bf_reservations {
        campus.push_str(&format!("bf_reservations = {r}\n"));
    }
    if let Some(p) = o.bf_planner {
        let name = match p {
            crate::scenario::raw::BfPlanner::Exact => "exact",
            crate::scenario::raw::BfPlanner::Slurm => "slurm",
        };
        campus.push_str(&format!("bf_planner = \"{name}\"\n"));
    }
    if let Some(r) = o.bf_resolution_s {
        campus.push_str(&format!("bf_resolution_seconds = {r}\n"));
    }
    if let Some(f) = &o.fairshare {
        campus.push_str(&fairshare_toml(f));
    }
    let text = format!(
        "name = \"trace-replay\"\n\
         [simulation]\nstart_date = \"2000-01-01\"\nhorizon_days = {horizon_days}\nreplications = 1\n\
         [campus]\n{campus}\
         [background]\n[[background.classes]]\nname = \"trace\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    Scenario::from_toml_str(&text, "<trace replay>")
}

/// The `[campus.multifactor]` and `[[campus.accounts]]` tables of a fair-share replay.
fn fairshare_toml(f: &FairshareReplay) -> String {
    let algorithm = match f.algorithm {
        FairshareAlgorithm::Classic => "classic",
        FairshareAlgorithm::FairTree => "fair-tree",
    };
    let mut s = format!(
        "[campus.multifactor]\nweight_age = 0\nweight_fairshare = {FAIRSHARE_WEIGHT}\nweight_job_size = 0\n\
         weight_partition = 0\ndecay_half_life_days = {}\ncalc_period_minutes = {}\nfairshare_algorithm = \"{algorithm}\"\n",
        f.half_life_s as f64 / DAY as f64,
        f.calc_period_s as f64 / 60.0
    );
    for (name, shares) in fairshare_accounts(f) {
        let name = toml::Value::String(name).to_string();
        s.push_str(&format!("[[campus.accounts]]\nname = {name}\nfairshare = {shares}\n"));
    }
    s
}

/// The accounts of a fair-share replay with their shares: as given, then
/// [`ROOT_ACCOUNT`] with one share if they do not name it.
pub fn fairshare_accounts(f: &FairshareReplay) -> Vec<(String, f64)> {
    let mut v = f.shares.clone();
    if !v.iter().any(|(n, _)| n == ROOT_ACCOUNT) {
        v.push((ROOT_ACCOUNT.to_string(), 1.0));
    }
    v
}

/// The account index (in `scn.campus.accounts`) of each converted job, from the log's
/// `group` field.
fn job_accounts(trace: &Trace, c: &Converted, scn: &Scenario, f: &FairshareReplay) -> Result<Vec<u16>, ReplayError> {
    let listed = fairshare_accounts(f);
    c.source
        .iter()
        .map(|&i| {
            let t = &trace.jobs[i];
            let name = t.group.as_deref().filter(|g| !g.is_empty());
            let Some(name) = name else { return Err(ReplayError::NoAccount { line: t.line, job: t.id.clone() }) };
            match (listed.iter().any(|(n, _)| n == name), scn.campus.accounts.iter().position(|a| a.name == name)) {
                (true, Some(a)) => Ok(a as u16),
                _ => Err(ReplayError::UnknownAccount {
                    line: t.line,
                    job: t.id.clone(),
                    account: name.to_string(),
                    known: listed.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                }),
            }
        })
        .collect()
}

/// Queue-delay statistics of a set of jobs, in hours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaitStats {
    /// Jobs.
    pub n: usize,
    /// Mean wait.
    pub mean_h: f64,
    /// Median.
    pub p50_h: f64,
    /// 90th percentile.
    pub p90_h: f64,
    /// 95th percentile.
    pub p95_h: f64,
    /// 99th percentile.
    pub p99_h: f64,
    /// Share of jobs that did not wait at all.
    pub zero_share: f64,
    /// Share of jobs that waited at most a minute (logs often round waits to minutes).
    pub minute_share: f64,
}

impl WaitStats {
    /// Statistics of waits given in seconds (type-7 percentiles).
    pub fn of_seconds(waits: &[i64]) -> WaitStats {
        let mut h: Vec<f64> = waits.iter().map(|&w| w as f64 / 3600.0).collect();
        h.sort_by(f64::total_cmp);
        let n = h.len();
        let nan_if_empty = |v: f64| if n == 0 { f64::NAN } else { v };
        WaitStats {
            n,
            mean_h: nan_if_empty(h.iter().sum::<f64>() / n.max(1) as f64),
            p50_h: percentile_sorted(&h, 0.5),
            p90_h: percentile_sorted(&h, 0.9),
            p95_h: percentile_sorted(&h, 0.95),
            p99_h: percentile_sorted(&h, 0.99),
            zero_share: nan_if_empty(waits.iter().filter(|&&w| w == 0).count() as f64 / n.max(1) as f64),
            minute_share: nan_if_empty(waits.iter().filter(|&&w| w <= 60).count() as f64 / n.max(1) as f64),
        }
    }
}

/// Recorded and simulated queue delays of the same jobs.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The conversion (what was left out and why).
    pub converted: Converted,
    /// Waits the log recorded, over the jobs that have one.
    pub recorded: WaitStats,
    /// Simulated waits of the same jobs.
    pub simulated: WaitStats,
    /// Simulated waits of every replayed job (also those without a recorded wait).
    pub simulated_all: WaitStats,
    /// Busy share of the simulated cluster from the first submission to the last end.
    pub utilization: f64,
    /// Simulated start of each replayed job (same order as `converted.jobs`), on the
    /// replay's clock; `None` if it never started.
    pub starts: Vec<Option<SimTime>>,
    /// The outages the scheduler was stopped for (inferred from the log), on the replay's clock.
    pub outages: Vec<(SimTime, SimTime)>,
    /// The scheduler cycle used (0: none).
    pub cycle: SimTime,
}

/// Converts, simulates and compares.
///
/// # Errors
/// [`ReplayError::Scenario`] when the replay scenario is refused (0 GPUs, over ten
/// years); with fair-share, a job without an account or in one without shares.
pub fn replay(trace: &Trace, o: &ReplayOptions) -> Result<Replay, ReplayError> {
    replay_converted(trace, o, to_jobs(trace, o), &TimeLimits::default())
}

/// As [`replay`], of jobs already converted (and perhaps changed: a subset, shaken
/// submissions, exact requests), under time-of-day limits on the replay's clock
/// (`super::site_rules`; empty: none).
///
/// # Errors
/// As [`replay`].
pub fn replay_converted(
    trace: &Trace,
    o: &ReplayOptions,
    mut converted: Converted,
    time_limits: &TimeLimits,
) -> Result<Replay, ReplayError> {
    let last = converted.jobs.last().map_or(0, |j| j.submit);
    let mut scn = scenario(o, last)?;
    scn.campus.time_limits = time_limits.clone();
    if let Some(f) = &o.fairshare {
        let accounts = job_accounts(trace, &converted, &scn, f)?;
        for (job, a) in converted.jobs.iter_mut().zip(accounts) {
            job.account = a;
        }
        if let crate::scenario::Priority::Multifactor(m) = &mut scn.campus.priority {
            if let Some(offset) = f.calc_offset_s {
                m.first_calc = offset;
            }
            m.slurm_usage = f.slurm_usage;
        }
    }
    let outages = if o.infer_outages { super::infer::outages(&converted, o.gpus, o.outage_min) } else { Vec::new() };
    let cycle = match o.cycle {
        None => 0,
        Some(Some(s)) => s,
        Some(None) => super::infer::cycle(&converted).unwrap_or(0),
    };
    scn.campus.capacity.outage_windows = outages.clone();
    scn.campus.capacity.cycle = cycle;
    let stream = JobStream::from_jobs(converted.jobs.clone());
    let out = simulate(&scn, &stream, 0, 0);
    let (mut rec, mut sim, mut all) = (Vec::new(), Vec::new(), Vec::new());
    let mut work = 0.0;
    let mut end = 0;
    let starts = out.records.iter().map(|r| (r.start != SimTime::MAX).then_some(r.start)).collect();
    for ((r, job), recorded) in out.records.iter().zip(&stream.jobs).zip(&converted.recorded_wait) {
        if r.start == SimTime::MAX {
            continue;
        }
        let w = (r.start - r.submit) as i64;
        all.push(w);
        if let Some(x) = recorded {
            rec.push(*x);
            sim.push(w);
        }
        work += f64::from(job.gpus) * job.runtime as f64;
        end = end.max(r.end);
    }
    Ok(Replay {
        recorded: WaitStats::of_seconds(&rec),
        simulated: WaitStats::of_seconds(&sim),
        simulated_all: WaitStats::of_seconds(&all),
        utilization: if end == 0 { f64::NAN } else { work / (f64::from(o.gpus) * end as f64) },
        converted,
        starts,
        outages,
        cycle,
    })
}

impl Replay {
    /// Whether the log records waits (queue delays) at all. Without them (NASA-iPSC, the
    /// Lublin model) the comparison has only one side: the simulated waits of every
    /// replayed job.
    pub fn has_recorded_waits(&self) -> bool {
        self.recorded.n > 0
    }

    /// The simulated side of the comparison: the same jobs as the recorded side, or every
    /// replayed job when the log records no waits.
    pub fn simulated_side(&self) -> &WaitStats {
        if self.has_recorded_waits() { &self.simulated } else { &self.simulated_all }
    }

    /// Rows `(statistic, recorded, simulated)` in hours or shares, for tables and CSV; a
    /// recorded value is `None` when the log records no waits.
    pub fn rows(&self) -> Vec<(&'static str, Option<f64>, f64)> {
        let (r, s) = (&self.recorded, self.simulated_side());
        let rec = |v: f64| self.has_recorded_waits().then_some(v);
        vec![
            ("jobs", rec(r.n as f64), s.n as f64),
            ("mean_wait_h", rec(r.mean_h), s.mean_h),
            ("p50_wait_h", rec(r.p50_h), s.p50_h),
            ("p90_wait_h", rec(r.p90_h), s.p90_h),
            ("p95_wait_h", rec(r.p95_h), s.p95_h),
            ("p99_wait_h", rec(r.p99_h), s.p99_h),
            ("zero_wait_share", rec(r.zero_share), s.zero_share),
            ("wait_le_1min_share", rec(r.minute_share), s.minute_share),
        ]
    }

    /// The side-by-side table; the recorded column reads "unavailable" when the log
    /// records no waits.
    pub fn to_table(&self) -> String {
        let mut s = format!("{:<18} {:>12} {:>12} {:>10}\n", "queue delay", "recorded", "simulated", "sim/rec");
        for (name, r, x) in self.rows() {
            let f = |v: f64| if name == "jobs" { format!("{v:.0}") } else { format!("{v:.3}") };
            let (rec, ratio) = match r {
                None => ("unavailable".to_string(), "–".to_string()),
                Some(r) if r != 0.0 && r.is_finite() => (f(r), format!("{:.2}", x / r)),
                Some(r) => (f(r), "–".to_string()),
            };
            s.push_str(&format!("{:<18} {:>12} {:>12} {:>10}\n", name, rec, f(x), ratio));
        }
        s
    }

    /// The same as CSV: `metric,recorded,simulated,ratio` with rows `jobs`,
    /// `mean_wait_h`, `p50_wait_h`, `p90_wait_h`, `p95_wait_h`, `p99_wait_h`,
    /// `zero_wait_share` (ratio = simulated ÷ recorded; recorded and ratio empty when the
    /// log records no waits, ratio empty when the recorded value is 0).
    pub fn to_csv(&self) -> String {
        let mut s = String::from("metric,recorded,simulated,ratio\n");
        for (name, r, x) in self.rows().into_iter().filter(|r| r.0 != "wait_le_1min_share") {
            let ratio = r.filter(|&r| r != 0.0 && r.is_finite()).map_or(String::new(), |r| (x / r).to_string());
            s.push_str(&format!("{name},{},{x},{ratio}\n", r.map_or(String::new(), |r| r.to_string())));
        }
        s
    }
}

/// Columns of [`Replay::jobs_csv`].
pub const JOBS_HEADER: &str = "job,submit,size,recorded_start,simulated_start,recorded_wait_s,simulated_wait_s";

impl Replay {
    /// One row per replayed job, in submission order (`burstsim validate --trace
    /// --jobs-out`): the log's job id, submission, size in simulated GPUs, recorded and
    /// simulated start, recorded and simulated wait. Times are whole seconds after the
    /// log's first submission (any job's, also one left out), so they read on the log's
    /// own clock; the recorded fields are empty when the log has no start for the job,
    /// the simulated ones when it never started. `trace` must be the log the replay
    /// converted.
    pub fn jobs_csv(&self, trace: &Trace) -> String {
        let c = &self.converted;
        let first = trace.jobs.iter().map(|j| j.submit).min().unwrap_or(c.origin);
        let shift = c.origin - first;
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        let opt = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
        for (i, job) in c.jobs.iter().enumerate() {
            let t = &trace.jobs[c.source[i]];
            let submit = job.submit as i64 + shift;
            let sim_start = self.starts[i].map(|s| s as i64 + shift);
            let recorded_start = c.recorded_wait[i].map(|w| submit + w);
            let row = [
                t.id.clone(),
                submit.to_string(),
                job.gpus.to_string(),
                opt(recorded_start),
                opt(sim_start),
                opt(c.recorded_wait[i]),
                opt(sim_start.map(|s| s - submit)),
            ];
            w.write_record(&row).expect("writing to memory cannot fail");
        }
        let body =
            String::from_utf8(w.into_inner().expect("writing to memory cannot fail")).expect("UTF-8 in, UTF-8 out");
        format!("{JOBS_HEADER}\n{body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{JobState, TraceJob};

    fn job(id: usize, submit: i64, wait: i64, runtime: i64, procs: u32, req: i64) -> TraceJob {
        let mut j = TraceJob::new(id, id.to_string(), submit);
        j.start = Some(submit + wait);
        j.runtime = Some(runtime);
        j.procs = Some(procs);
        j.requested_time = Some(req);
        j
    }

    #[test]
    fn conversion_rules() {
        let mut t = Trace {
            jobs: vec![job(1, 100, 0, 50, 4, 200), job(2, 90, 5, 0, 3, -1), job(3, 95, 0, 10, 9, 5)],
            ..Trace::default()
        };
        t.jobs.push(TraceJob::new(4, "4", 99));
        let mut o = ReplayOptions::new(8);
        o.procs_per_gpu = 2.0;
        let c = to_jobs(&t, &o);
        assert_eq!(c.origin, 90);
        assert_eq!(
            c.jobs.iter().map(|j| (j.submit, j.runtime, j.gpus)).collect::<Vec<_>>(),
            [(0, 1, 2), (5, 10, 5), (10, 50, 2)]
        );
        assert_eq!(c.jobs.iter().map(|j| j.walltime_factor).collect::<Vec<_>>(), [1.0, 1.0, 4.0]);
        assert_eq!(c.recorded_wait, [Some(5), Some(0), Some(0)]);
        assert_eq!(c.left_out, [("no run time", 1)]);
    }

    #[test]
    fn fcfs_replay_of_a_hand_computed_queue() {
        // 2 GPUs: A (2 GPUs, 100 s) at 0; B (1 GPU, 10 s) at 1 waits 99 s; C (1, 10) at 2 waits 98 s.
        let t = Trace {
            jobs: vec![job(1, 0, 0, 100, 2, 100), job(2, 1, 99, 10, 1, 10), job(3, 2, 98, 10, 1, 10)],
            ..Trace::default()
        };
        let mut o = ReplayOptions::new(2);
        o.scheduler = SchedulerKind::Fcfs;
        let r = replay(&t, &o).unwrap();
        assert_eq!(r.recorded, r.simulated);
        assert!((r.simulated.mean_h - 197.0 / 3.0 / 3600.0).abs() < 1e-12);
        assert!((r.utilization - 220.0 / 220.0).abs() < 1e-12);
    }

    /// The canonical case of docs/VALIDATION.md on 4 nodes × 8 GPUs: four 6-GPU jobs leave
    /// 2 free GPUs on each node; an 8-GPU job waits for a whole node while a 2-GPU job
    /// backfills past it. On a 32-GPU pool it is the other way round.
    fn canonical() -> Trace {
        let mut jobs: Vec<TraceJob> = (1..=4).map(|i| job(i, 0, 1, 13, 6, 120)).collect();
        jobs.push(job(5, 2, 12, 6, 8, 120));
        jobs.push(job(6, 4, 1, 6, 2, 60));
        jobs.push(job(7, 5, 0, 1, 40, 60)); // more than 4 nodes hold
        Trace { jobs, ..Trace::default() }
    }

    #[test]
    fn on_nodes_a_whole_node_job_waits_and_a_small_one_backfills() {
        let t = canonical();
        let mut o = ReplayOptions::on_nodes(4, 8);
        o.bf_interval_s = Some(2);
        let r = replay(&t, &o).unwrap();
        assert_eq!(r.converted.left_out, [("larger than the cluster", 1)]);
        // Fills start at 0 (main scheduler on submit); the 2-GPU job at the backfill pass
        // at 4 (on node 0, the node reserved for the 8-GPU job: it ends first); the 8-GPU job
        // when the fills end at 13.
        assert_eq!(r.starts, [Some(0), Some(0), Some(0), Some(0), Some(13), Some(4)]);
        assert_eq!(
            r.jobs_csv(&t),
            "job,submit,size,recorded_start,simulated_start,recorded_wait_s,simulated_wait_s\n\
             1,0,6,1,0,1,0\n2,0,6,1,0,1,0\n3,0,6,1,0,1,0\n4,0,6,1,0,1,0\n5,2,8,14,13,12,11\n6,4,2,5,4,1,0\n"
        );
        // The backfill interval delays the small job to the next pass.
        o.bf_interval_s = Some(30);
        assert_eq!(replay(&t, &o).unwrap().starts[5], Some(13), "no pass before the fills end at 13");
        let pool = replay(&t, &ReplayOptions::new(32)).unwrap();
        assert_eq!(pool.starts[4..], [Some(2), Some(8)], "a pool starts the 8-GPU job on the fragments");
    }

    #[test]
    fn jobs_out_clock_is_the_logs_first_submission_and_empty_without_waits() {
        let mut t = canonical();
        t.jobs.truncate(2);
        for j in &mut t.jobs {
            j.submit += 100;
            j.start = None;
        }
        t.jobs.push(TraceJob::new(9, "unfinished", 90)); // left out, but the log's first submission
        t.jobs[2].state = JobState::Running;
        let r = replay(&t, &ReplayOptions::on_nodes(1, 8)).unwrap();
        assert_eq!(r.jobs_csv(&t).lines().skip(1).collect::<Vec<_>>(), ["1,10,6,,10,,0", "2,10,6,,23,,13"]);
    }

    /// Known gap (docs/VALIDATION.md, "Comparing with burstsim"): Slurm's backfill reserves
    /// *whole nodes* for the jobs it plans (`_add_reservation` in sched/backfill removes the
    /// planned job's nodes from the map for its window), burstsim's plan only the job's
    /// GPUs (`Plan::reserve` in cluster/plan.rs). One node × 8: A (4 GPUs, limit 100 s)
    /// runs; B (6 GPUs, limit 60 s) is planned on the node at 100; C (2 GPUs, limit 200 s)
    /// would overlap B's window. Slurm keeps C off the node until A ends (C starts at 100,
    /// with B); burstsim backfills C at once into the 2 GPUs B leaves free.
    #[test]
    fn backfill_reservations_hold_whole_nodes_as_slurms_do() {
        let t = Trace {
            jobs: vec![job(1, 0, 0, 100, 4, 100), job(2, 1, 99, 10, 6, 60), job(3, 2, 98, 10, 2, 200)],
            ..Trace::default()
        };
        let mut o = ReplayOptions::on_nodes(1, 8);
        o.bf_interval_s = Some(2);
        let r = replay(&t, &o).unwrap();
        assert_eq!(r.starts, [Some(0), Some(100), Some(100)], "C must not backfill into B's node");
    }
}
