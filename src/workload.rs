//! The job stream of one replication: other groups' jobs and the group's own, sorted by
//! submission time.
//!
//! The stream depends only on the scenario and `(seed, replication)`, never on the
//! policy, so every policy of a replication sees exactly the same jobs (common random
//! numbers). Every class has its own arrival stream and every job its own attribute
//! stream (`rng::Purpose`), so changing one class leaves the others untouched, and the
//! k-th job of a class keeps its runtime, size and deadline across sweep points.

pub mod arrivals;
pub mod calendar;
pub mod load;

use rand::RngExt;

use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::raw::JobKind;
use crate::scenario::{JobClass, Scenario};
use crate::units::{DAY, HOUR, SimTime, hours_to_secs};
use crate::workload::calendar::Calendar;

/// Longest runtime a sampled job may have (ten years).
pub const MAX_RUNTIME_HOURS: f64 = 24.0 * 3650.0;

/// Deadline value meaning "no deadline".
pub const NO_DEADLINE: SimTime = SimTime::MAX;

/// One job as submitted.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Submission time.
    pub submit: SimTime,
    /// True runtime on one campus GPU type, seconds (≥ 1).
    pub runtime: SimTime,
    /// Requested walltime ÷ runtime (≥ 1).
    pub walltime_factor: f64,
    /// GPUs.
    pub gpus: u32,
    /// Index of its class (in the background or the group list).
    pub class: u16,
    /// True for the group's own jobs (the ones policies route and metrics measure).
    pub group: bool,
    /// Index of the job among its class's arrivals (generated jobs) or among the group's
    /// jobs (a log's); with `class` it keys the job's own random streams
    /// ([`crate::rng::job_key`]).
    pub ordinal: u32,
    /// Memory per GPU, GB.
    pub vram_gb: f64,
    /// Data to upload for a cloud run, GB.
    pub data_gb: f64,
    /// Absolute deadline, or [`NO_DEADLINE`].
    pub deadline: SimTime,
    /// CV or transformer.
    pub kind: JobKind,
    /// Slurm account of a background job ([`OTHERS`]: the shared "others" account; the
    /// group's jobs always use the group's account).
    pub account: u16,
    /// Partition (index).
    pub partition: u16,
    /// Nodes asked for (0: the scheduler chooses).
    pub nodes: u16,
    /// GPUs per node asked for (0: the scheduler chooses).
    pub gpus_per_node: u16,
}

/// [`Job::account`] of a job in the shared "others" account (a log's jobs).
pub const OTHERS: u16 = u16::MAX;

impl Job {
    /// A job with the plainest attributes: `gpus` GPUs for `runtime` seconds submitted at
    /// `submit`, an exact walltime request, no memory, data or deadline, the first class and
    /// partition, the shared "others" account (the group's jobs use the group's). For logs
    /// and tests; change the fields that matter with struct update syntax.
    pub fn plain(submit: SimTime, gpus: u32, runtime: SimTime, group: bool) -> Job {
        Job {
            submit,
            runtime,
            walltime_factor: 1.0,
            gpus,
            class: 0,
            group,
            ordinal: 0,
            vram_gb: 0.0,
            data_gb: 0.0,
            deadline: NO_DEADLINE,
            kind: JobKind::default(),
            account: OTHERS,
            partition: 0,
            nodes: 0,
            gpus_per_node: 0,
        }
    }

    /// The walltime the scheduler is told for `work` seconds of remaining runtime,
    /// capped at the cluster's limit.
    pub fn walltime_request(&self, work: SimTime, max_walltime: Option<SimTime>) -> SimTime {
        let w = (work as f64 * self.walltime_factor).ceil() as SimTime;
        w.max(work).min(max_walltime.unwrap_or(SimTime::MAX))
    }
}

/// Other groups' jobs from a real log, converted once when the scenario is loaded.
#[derive(Clone, Debug)]
pub struct TraceSource {
    /// The log's jobs on its own clock (0 = first submission), sorted, all background.
    pub jobs: Vec<Job>,
    /// End of the log's period (last submission + 1 s).
    pub extent: SimTime,
    /// Bootstrap block boundary on the log's clock (aligned to local midnight / weekday).
    pub phase: SimTime,
    /// Replay or bootstrap.
    pub mode: crate::scenario::raw::TraceMode,
    /// Block length.
    pub block: crate::trace::bootstrap::Block,
    /// Bootstrap: the season window in weeks (blocks come from the same part of the year),
    /// or `None` for uniform draws over the whole log.
    pub season_window_weeks: Option<u32>,
    /// Local time (seconds since 1970-01-01 local) of the jobs' clock 0, when the log has
    /// calendar dates.
    pub origin_local: Option<i64>,
    /// Draws are uniform only because the log has no dates and `draw` was left out (a
    /// warning says the seasons are scrambled).
    pub undated: bool,
    /// FNV-1a hash of the log file's bytes (part of the scenario hash).
    pub content_hash: u64,
    /// Load scale (1 = as logged).
    pub scale: f64,
}

impl TraceSource {
    /// The jobs of one replication, sorted by submission.
    ///
    /// Replay: the log as it was, each job kept with probability `scale` when it is below
    /// 1 (a scale above 1 is refused when the scenario loads: a replay has one history).
    /// Bootstrap: with `scale = whole + fraction`, `whole` independent resamples
    /// superposed, plus one more whose jobs are each kept with probability `fraction`.
    /// Resample c is drawn from `Purpose::Bootstrap` (c = 0) or `Purpose::BootstrapCopy(c)`,
    /// and the thinning from `Purpose::TraceScale`, so the first resample does not move
    /// when the scale changes. No job is ever a shifted twin of another; two copies that
    /// happen to draw the same source block for the same output block coincide there
    /// (probability 1 ÷ the number of blocks it may draw from).
    pub fn jobs_for(&self, scenario: &Scenario, replication: u64) -> Vec<Job> {
        use crate::scenario::raw::TraceMode;
        let mut thin = stream(scenario.seed, replication, Purpose::TraceScale);
        let (whole, fraction) = (self.scale.floor() as u64, self.scale - self.scale.floor());
        let mut keep =
            |jobs: Vec<Job>| -> Vec<Job> { jobs.into_iter().filter(|_| thin.random::<f64>() < fraction).collect() };
        let mut out = match self.mode {
            TraceMode::Replay => {
                debug_assert!(self.scale <= 1.0, "invariant: a replay's scale above 1 is refused at load");
                let jobs: Vec<Job> = self.jobs.iter().filter(|j| j.submit < scenario.horizon).cloned().collect();
                if self.scale >= 1.0 { jobs } else { keep(jobs) }
            }
            TraceMode::Bootstrap => {
                let spec = self.bootstrap_spec(scenario);
                let copies = whole + u64::from(fraction > 0.0);
                let mut out = Vec::new();
                for c in 0..copies {
                    let purpose = if c == 0 { Purpose::Bootstrap } else { Purpose::BootstrapCopy(c) };
                    let copy = crate::trace::bootstrap::resample(
                        &self.jobs,
                        &spec,
                        &mut stream(scenario.seed, replication, purpose),
                    );
                    out.extend(if c < whole { copy } else { keep(copy) });
                }
                out
            }
        };
        out.sort_by_key(|j| j.submit); // stable: copies in order at equal times
        out
    }

    /// What a bootstrap of this log over `scenario` draws from.
    pub fn bootstrap_spec(&self, scenario: &Scenario) -> crate::trace::bootstrap::BootstrapSpec {
        use crate::trace::bootstrap::{BootstrapSpec, Draw, Seasons};
        let draw = match (self.season_window_weeks, self.origin_local) {
            (Some(window_weeks), Some(source_origin)) => Draw::Season(Seasons {
                window_weeks,
                source_origin,
                // The output clock's 0 is the start date's midnight minus the warm-up.
                output_origin: scenario.start_date.to_days() * DAY as i64 - scenario.warmup as i64,
            }),
            _ => Draw::Uniform,
        };
        BootstrapSpec { block: self.block, phase: self.phase, extent: self.extent, horizon: scenario.horizon, draw }
    }
}

/// All jobs of one replication, sorted by submission time (ties: background first, then
/// in generation order).
#[derive(Clone, Debug, Default)]
pub struct JobStream {
    /// The jobs.
    pub jobs: Vec<Job>,
}

impl JobStream {
    /// Generates the jobs of replication `replication`. Each class draws its arrivals
    /// from its own stream and each job its attributes from a stream of its own, so
    /// changing one class (or a later season) leaves the rest of the stream unchanged.
    pub fn generate(scenario: &Scenario, replication: u64) -> JobStream {
        let mut jobs = Vec::new();
        let add_classes = |jobs: &mut Vec<Job>, group: bool, classes: &[JobClass], calendar: &Calendar| {
            for (i, class) in classes.iter().enumerate() {
                let source = Source { seed: scenario.seed, replication, group, class: i as u16 };
                generate_class(jobs, class, source, calendar, scenario.horizon);
            }
        };
        add_classes(&mut jobs, false, &scenario.background, &scenario.background_calendar);
        if let Some(src) = &scenario.background_trace {
            let mut trace = src.jobs_for(scenario, replication);
            // A log's group jobs are numbered among themselves (generated ones by class).
            for (ordinal, j) in trace.iter_mut().filter(|j| j.group).enumerate() {
                j.ordinal = ordinal as u32;
            }
            jobs.extend(trace);
        }
        add_classes(&mut jobs, true, &scenario.group, &scenario.group_calendar);
        jobs.sort_by_key(|j| j.submit); // stable: keeps the documented tie order
        JobStream { jobs }
    }

    /// Builds a stream from jobs given in code (tests, traces); sorts them stably.
    pub fn from_jobs(mut jobs: Vec<Job>) -> JobStream {
        jobs.sort_by_key(|j| j.submit); // stable: keeps the documented tie order
        for (ordinal, j) in jobs.iter_mut().filter(|j| j.group).enumerate() {
            j.ordinal = ordinal as u32;
        }
        JobStream { jobs }
    }

    /// Number of the group's jobs.
    pub fn group_jobs(&self) -> usize {
        self.jobs.iter().filter(|j| j.group).count()
    }
}

/// Where a generated class's random numbers come from.
#[derive(Clone, Copy)]
struct Source {
    seed: u64,
    replication: u64,
    group: bool,
    class: u16,
}

fn generate_class(out: &mut Vec<Job>, class: &JobClass, src: Source, calendar: &Calendar, horizon: SimTime) {
    let (group, index) = (src.group, src.class);
    let mut arrivals_rng = stream(src.seed, src.replication, Purpose::Arrivals { group, class: index });
    let times = arrivals::nonhomogeneous_poisson(class.rate_per_sec, calendar, horizon, &mut arrivals_rng);
    out.reserve(times.len());
    for (ordinal, submit) in times.into_iter().enumerate() {
        let ordinal = ordinal as u32;
        let attributes = Purpose::JobAttributes { group, class: index, index: ordinal };
        let rng: &mut SimRng = &mut stream(src.seed, src.replication, attributes);
        // Heavy tails are cut at ten years so clock arithmetic never overflows.
        let runtime = hours_to_secs(class.runtime_hours.sample(rng).min(MAX_RUNTIME_HOURS), 1);
        let gpus = class.gpus.sample(rng).round().max(1.0) as u32;
        let walltime_factor = class.walltime_factor.sample(rng).clamp(1.0, 1000.0);
        let vram_gb = class.vram_gb.sample(rng);
        // Heavy-tailed data sizes are cut at 10 PB, far beyond any upload that can finish.
        let data_gb = class.data_gb.sample(rng).min(1e7);
        let deadline = match &class.deadline_hours {
            Some(d) => submit.saturating_add((d.sample(rng) * HOUR as f64).round() as SimTime),
            None => NO_DEADLINE,
        };
        out.push(Job {
            submit,
            runtime,
            walltime_factor,
            gpus,
            class: index,
            group,
            ordinal,
            vram_gb,
            data_gb,
            deadline,
            kind: class.kind,
            account: class.account,
            partition: class.partition,
            nodes: class.nodes,
            gpus_per_node: class.gpus_per_node,
        });
    }
}
