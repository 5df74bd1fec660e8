//! The job stream of one replication: other groups' jobs and the group's own, sorted by
//! submission time.
//!
//! The stream depends only on the scenario and `(seed, replication)`, never on the
//! policy, so every policy of a replication sees exactly the same jobs (common random
//! numbers). Every class has its own arrival stream and every job its own attribute
//! stream (`rng::Purpose`), so changing one class leaves the others untouched, and the
//! k-th job of a class keeps its runtime, size and deadline across sweep points.

pub mod arrivals;
pub mod load;

use rand::RngExt;

use crate::job::{Job, NO_DEADLINE};
use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::TraceSource;
use crate::scenario::calendar::Calendar;
use crate::scenario::{JobClass, Scenario};
use crate::units::{DAY, HOUR, SimTime};

// `TraceSource` (the log's jobs, loaded with the scenario) is plain data of the scenario;
// how a replication draws from it is workload, so its methods live here.
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
        Self::generate_until(scenario, replication, &|| false).expect("a stream without a stop check is never cut")
    }

    /// As [`JobStream::generate`], but `None` soon after `stop()` turns true (it is
    /// polled between classes and every [`STREAM_POLL_EVERY`] jobs). A long horizon's
    /// stream takes seconds to draw, longer than a Ctrl-C should wait (issue 45 item 4);
    /// the jobs drawn do not depend on the polls.
    pub fn generate_until(scenario: &Scenario, replication: u64, stop: &dyn Fn() -> bool) -> Option<JobStream> {
        let mut jobs = Vec::new();
        let add_classes = |jobs: &mut Vec<Job>, group: bool, classes: &[JobClass], calendar: &Calendar| {
            for (i, class) in classes.iter().enumerate() {
                let source = Source { seed: scenario.seed, replication, group, class: i as u16 };
                if stop() || !generate_class(jobs, class, source, class.calendar(calendar), scenario.horizon, stop) {
                    return false;
                }
            }
            true
        };
        if !add_classes(&mut jobs, false, &scenario.background, &scenario.background_calendar) {
            return None;
        }
        if let Some(src) = &scenario.background_trace {
            let mut trace = src.jobs_for(scenario, replication);
            // A log's group jobs are numbered among themselves (generated ones by class).
            for (ordinal, j) in trace.iter_mut().filter(|j| j.group).enumerate() {
                j.ordinal = ordinal as u32;
            }
            jobs.extend(trace);
        }
        if !add_classes(&mut jobs, true, &scenario.group, &scenario.group_calendar) || stop() {
            return None;
        }
        jobs.sort_by_key(|j| j.submit); // stable: keeps the documented tie order
        Some(JobStream { jobs })
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

/// Jobs drawn between two polls of the stop check in [`JobStream::generate_until`]
/// (about a millisecond of drawing).
pub const STREAM_POLL_EVERY: usize = 4096;

/// Draws one class's jobs into `out`; false when `stop()` cut it short.
fn generate_class(
    out: &mut Vec<Job>,
    class: &JobClass,
    src: Source,
    calendar: &Calendar,
    horizon: SimTime,
    stop: &dyn Fn() -> bool,
) -> bool {
    let (group, index) = (src.group, src.class);
    let mut arrivals_rng = stream(src.seed, src.replication, Purpose::Arrivals { group, class: index });
    let times = arrivals::nonhomogeneous_poisson(class.rate_per_sec, calendar, horizon, &mut arrivals_rng);
    out.reserve(times.len());
    for (ordinal, submit) in times.into_iter().enumerate() {
        if ordinal % STREAM_POLL_EVERY == STREAM_POLL_EVERY - 1 && stop() {
            return false;
        }
        let ordinal = ordinal as u32;
        let attributes = Purpose::JobAttributes { group, class: index, index: ordinal };
        let rng: &mut SimRng = &mut stream(src.seed, src.replication, attributes);
        let (runtime, gpus, walltime_factor) = class.draw_size(rng);
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
    true
}
