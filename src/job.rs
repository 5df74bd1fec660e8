//! One job as submitted: the record every layer above passes around (the workload
//! generates jobs, logs are converted to them, the cluster and the cloud run them).
//! Plain data, below the scenario, so that trace readers and the scenario can hold jobs
//! without importing the workload that generates them.

use serde::{Deserialize, Serialize};

use crate::units::SimTime;

/// What a job mostly computes: decides the cloud speed factor that applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum JobKind {
    /// Convolutional / vision work.
    Cv,
    /// Transformer / NLP / LLM work.
    #[default]
    Transformer,
}

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
    /// (`rng::job_key`, crate-private).
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
        walltime_request(work, self.walltime_factor, max_walltime)
    }
}

/// The walltime the scheduler is told for `work` seconds with walltime factor `factor`:
/// the product rounded up, at least `work`, capped at `max_walltime`.
pub fn walltime_request(work: SimTime, factor: f64, max_walltime: Option<SimTime>) -> SimTime {
    let w = (work as f64 * factor).ceil() as SimTime;
    w.max(work).min(max_walltime.unwrap_or(SimTime::MAX))
}

/// The walltime factor whose request for `runtime` seconds is exactly `request` (the
/// engine rounds the product up, and `request / runtime × runtime` may land just above).
pub fn exact_factor(request: i64, runtime: SimTime) -> f64 {
    let mut f = request as f64 / runtime as f64;
    while (runtime as f64 * f).ceil() > request as f64 {
        f = f.next_down();
    }
    f
}
