//! The scenario file exactly as written: a serde mirror of the TOML with defaults and
//! no logic. Every struct refuses unknown keys, so a misspelt key is an error that names
//! it, never a silent default. [`super::validate`] turns this into a checked
//! [`super::model::Scenario`]; this form is also what `run.toml` writes back (fully resolved).

use serde::{Deserialize, Serialize};

use super::dist::DistSpec;
pub use crate::job::JobKind;

/// The whole file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Short name, used for the default output folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One sentence on the question this scenario answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Title of the charts and the report (default: `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`; without either, Chinese charts have no scenario prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// Clock, horizon, replications and seed.
    pub simulation: RawSimulation,
    /// The campus cluster.
    pub campus: RawCampus,
    /// Other groups' load on the campus cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<RawBackground>,
    /// The group's own jobs.
    #[serde(default)]
    pub workload: RawWorkload,
    /// Cloud offers.
    #[serde(default)]
    pub cloud: RawCloud,
    /// The policies to compare (default: campus-only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<RawPolicy>,
    /// Sweep parameters (`path = [values]` or `path = "start:stop:step"`), used by
    /// `burstsim sweep`; `burstsim run` ignores them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<toml::Table>,
    /// The sensitivity band of `burstsim run` (`crate::sensitivity`): its replications,
    /// targets and inputs; absent, the documented default ranges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<super::sensitivity::raw::RawSensitivity>,
    /// Inputs to fit and observations to fit them to, used by `burstsim calibrate`;
    /// `burstsim run` and `sweep` ignore them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<super::calibration::RawCalibration>,
}

/// `[simulation]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSimulation {
    /// First day simulated, `YYYY-MM-DD`.
    pub start_date: String,
    /// Length of the measured window from the start date, in days (default: one calendar
    /// year, 365 or 366 days); arrivals stop at its end and the jobs already submitted run
    /// to completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_days: Option<f64>,
    /// Days simulated *before* the start date so the campus queue is not empty when
    /// measuring begins (rounded to whole hours); nothing in the warm-up is measured.
    #[serde(default)]
    pub warmup_days: f64,
    /// Independent replications per policy.
    #[serde(default = "default_replications")]
    pub replications: u32,
    /// Master seed; every random stream derives from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Sequential stopping: add replications until the CI half-widths of `total_cost_cny`
    /// and `wait_mean_h` are within this fraction of their means (`--ci-target 0.05`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_target: Option<f64>,
    /// Upper bound on replications under sequential stopping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_replications: Option<u32>,
    /// Policy that paired differences are taken against (default: the first policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_policy: Option<String>,
    /// Wait thresholds (hours) for the per-class "waited longer than t" shares in
    /// `classes.csv` (default: 1, 4 and 24 h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_wait_thresholds_h: Option<Vec<f64>>,
}

fn default_replications() -> u32 {
    20
}
fn default_seed() -> u64 {
    1
}

/// Scheduler of the campus cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerKind {
    /// Strict first-come first-served: nothing overtakes the first waiting job.
    Fcfs,
    /// EASY backfilling: the first waiting job gets a reservation; later jobs may start
    /// early if, by their walltime estimates, they do not delay it.
    #[default]
    EasyBackfill,
}

/// `[campus]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCampus {
    /// Total GPUs (give either this, or `nodes` and `gpus_per_node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<u32>,
    /// Number of nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// GPUs per node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_per_node: Option<u32>,
    /// GPU model, for reports.
    #[serde(default = "default_gpu_type")]
    pub gpu_type: String,
    /// Memory per GPU (required unless `node_groups` describe the nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_gb: Option<f64>,
    /// `fcfs` or `easy-backfill`.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// `pool` (one pool of identical GPUs; the queueing-theory model) or `nodes` (Slurm's
    /// cons_tres placement on nodes and partitions).
    #[serde(default)]
    pub placement: Placement,
    /// Queue order: `fifo` (submission order) or `multifactor` (Slurm's priority plugin).
    #[serde(default)]
    pub priority: PriorityKind,
    /// Weights and periods of the multifactor priority (`priority = "multifactor"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multifactor: Option<RawMultifactor>,
    /// Seconds between backfill passes (Slurm `bf_interval`; default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_interval_seconds: Option<f64>,
    /// Most queued jobs one backfill pass tests (Slurm `bf_max_job_test`; default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_max_job_test: Option<u32>,
    /// Of the jobs a backfill pass tests, how many get a reservation (default 8; Slurm
    /// reserves for every tested job, i.e. `bf_max_job_test`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_reservations: Option<u32>,
    /// How far ahead backfill plans (Slurm `bf_window`; default the walltime limit, else 1 day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_window_hours: Option<f64>,
    /// Groups of identical nodes (`placement = "nodes"`), instead of `nodes` × `gpus_per_node`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_groups: Vec<RawNodeGroup>,
    /// Partitions (queues), each with its own price and limit; default one partition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<RawPartition>,
    /// Slurm accounts (research groups) with fair-share and limits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<RawAccount>,
    /// Most GPUs the group may use at once (Slurm GrpTRES); none = no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_gpu_limit: Option<u32>,
    /// Longest a job may run; a longer job is stopped at the limit and resubmitted (to the
    /// back of the queue) to continue its remaining work: it checkpoints at the limit, so
    /// no work is lost. None = no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_walltime_hours: Option<f64>,
    /// Internal charge (机时费) per GPU-hour; may be 0.
    #[serde(default)]
    pub price_per_gpu_hour_cny: f64,
    /// Maintenance windows: no job runs during them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintenance: Vec<RawWindow>,
    /// Node failures (`placement = "nodes"`): per node, time between failures and repair
    /// time. Off when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_failures: Option<RawNodeFailures>,
    /// Planned drains of some nodes (`placement = "nodes"`): from `start` the nodes take no
    /// new job (running ones finish), until the end of `end`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drains: Vec<RawDrain>,
    /// Unplanned whole-cluster outages at random times. Off when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outages: Option<RawOutages>,
    /// The scheduler passes only at multiples of this many seconds on the clock (0 or
    /// absent: at every event, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_cycle_seconds: Option<f64>,
    /// A job joins the queue this many seconds after its submission (0 or absent: at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_start_delay_seconds: Option<f64>,
}

/// `[campus.node_failures]`: every node fails and is repaired independently.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNodeFailures {
    /// Hours from a node's repair (or the start) to its next failure.
    pub time_between_failures_hours: DistSpec,
    /// Hours a failed node stays down.
    pub repair_hours: DistSpec,
    /// How often a campus job checkpoints; a job killed by a failure keeps the work up to
    /// its last checkpoint. Absent: it keeps only the work before its current segment
    /// (segments end at the walltime limit, where jobs checkpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_interval_hours: Option<f64>,
}

/// `[[campus.drains]]`: a planned drain (maintenance) of some nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDrain {
    /// First day, `YYYY-MM-DD` (from 00:00).
    pub start: String,
    /// Last day, inclusive.
    pub end: String,
    /// How many nodes: the first ones of `node_group` (or of the cluster).
    pub nodes: u32,
    /// Which node group (default: the cluster's nodes in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
}

/// `[campus.outages]`: unplanned whole-cluster outages.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutages {
    /// Hours from the end of one outage (or the start) to the next.
    pub time_between_hours: DistSpec,
    /// Hours an outage lasts.
    pub duration_hours: DistSpec,
    /// Whether an outage kills the running jobs (a power or network loss; true, the
    /// default) or only stops the scheduler (false: running jobs go on, nothing starts).
    #[serde(default = "yes")]
    pub kills_jobs: bool,
}

/// How the campus places jobs on GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// One pool of identical GPUs: a job's GPUs may come from anywhere (M/M/c).
    #[default]
    Pool,
    /// Nodes and partitions, placed as Slurm's select/cons_tres does.
    Nodes,
}

/// Queue order of the campus scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PriorityKind {
    /// Submission order (a re-queued segment joins at the back).
    #[default]
    Fifo,
    /// Slurm's priority/multifactor: age, fair-share, job size and partition.
    Multifactor,
}

/// `[campus.multifactor]`: Slurm's PriorityWeight* and periods.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMultifactor {
    /// PriorityWeightAge.
    #[serde(default = "default_weight_age")]
    pub weight_age: f64,
    /// PriorityWeightFairshare.
    #[serde(default = "default_weight_fairshare")]
    pub weight_fairshare: f64,
    /// PriorityWeightJobSize.
    #[serde(default = "default_weight_job_size")]
    pub weight_job_size: f64,
    /// PriorityWeightPartition.
    #[serde(default = "default_weight_partition")]
    pub weight_partition: f64,
    /// PriorityMaxAge, days: the age factor reaches 1 at this age.
    #[serde(default = "default_max_age_days")]
    pub max_age_days: f64,
    /// PriorityDecayHalfLife, days: past usage counts half after this long.
    #[serde(default = "default_half_life_days")]
    pub decay_half_life_days: f64,
    /// PriorityCalcPeriod, minutes: how often usage decays and priorities are recomputed.
    #[serde(default = "default_calc_period_minutes")]
    pub calc_period_minutes: f64,
    /// PriorityFavorSmall: the job-size factor favours small jobs instead of large ones.
    #[serde(default)]
    pub favor_small: bool,
}

fn default_weight_age() -> f64 {
    1000.0
}
fn default_weight_fairshare() -> f64 {
    10000.0
}
fn default_weight_job_size() -> f64 {
    1000.0
}
fn default_weight_partition() -> f64 {
    1000.0
}
fn default_max_age_days() -> f64 {
    7.0
}
fn default_half_life_days() -> f64 {
    7.0
}
fn default_calc_period_minutes() -> f64 {
    5.0
}

/// `[[campus.node_groups]]`: identical nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNodeGroup {
    /// Name, for reports.
    pub name: String,
    /// Number of nodes.
    pub nodes: u32,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// GPU model.
    #[serde(default = "default_gpu_type")]
    pub gpu_type: String,
    /// Memory per GPU, GB.
    pub vram_gb: f64,
    /// CPU cores per node (recorded; jobs ask for GPUs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    /// Memory per node, GB (recorded; jobs ask for GPUs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_gb: Option<f64>,
    /// The partition these nodes belong to (default: the first partition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
}

/// `[[campus.partitions]]`: a queue over some node groups.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPartition {
    /// Name (jobs name it with `partition = "…"`).
    pub name: String,
    /// Internal charge per GPU-hour (default: `campus.price_per_gpu_hour_cny`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_hour_cny: Option<f64>,
    /// Slurm PriorityJobFactor of the partition (the multifactor partition factor is this
    /// divided by the largest one).
    #[serde(default = "one_f64")]
    pub priority_job_factor: f64,
    /// Walltime limit of the partition (default: `campus.max_walltime_hours`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_walltime_hours: Option<f64>,
}

/// `[[campus.accounts]]`: a Slurm account (a research group) with its fair-share and
/// association limits.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAccount {
    /// Name (classes name it with `account = "…"`; the group's is `workload.account`).
    pub name: String,
    /// Fair-share shares (Slurm `fairshare=`), relative to the other accounts.
    #[serde(default = "one_f64")]
    pub fairshare: f64,
    /// GrpTRES=gres/gpu: GPUs the account's running jobs may hold at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_limit: Option<u32>,
    /// MaxJobs: running jobs at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_jobs: Option<u32>,
    /// MaxSubmit: pending and running jobs at once; a job over it waits to be submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_submit: Option<u32>,
    /// Patience: hours a job waits in the queue before its user cancels it (reneging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience_hours: Option<DistSpec>,
    /// Balking: a job is not submitted when the waiting jobs already ask for more than
    /// this many GPU-hours (GPUs × walltime requests, what `squeue` shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balk_gpu_hours_ahead: Option<f64>,
    /// Balking: a job is not submitted when its forecast start (`squeue --start`) is more
    /// than this many hours away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balk_wait_hours: Option<f64>,
}

fn default_gpu_type() -> String {
    "A100-40G".to_string()
}

/// A closed range of whole days, `start` to `end` inclusive.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWindow {
    /// First day, `YYYY-MM-DD`.
    pub start: String,
    /// Last day (inclusive), `YYYY-MM-DD`.
    pub end: String,
}

/// How overlapping seasons combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SeasonOverlap {
    /// The largest multiplier applies (the default).
    #[default]
    Max,
    /// Multipliers multiply.
    Product,
}

/// A named season of the academic calendar.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSeason {
    /// Name, used in sweep paths (`background.seasons.final-exams.multiplier`) and charts.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// First day: `YYYY-MM-DD`, or `MM-DD` to recur every year.
    pub start: String,
    /// Last day (inclusive), in the same form as `start`.
    pub end: String,
    /// Arrival-rate multiplier during the season (1 = normal).
    pub multiplier: f64,
}

/// `[background]`: the other groups.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBackground {
    /// Offered load as the *mean over the measured window*, a fraction of campus GPU
    /// capacity (what a measured annual utilisation is): the seasons and hourly profile
    /// shape the load around this mean. When given (or `offered_load_outside_seasons`),
    /// each class's arrival rate follows from its `load_share`; otherwise each class needs
    /// `jobs_per_week`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_load: Option<f64>,
    /// Offered load on days in no season (multiplier 1), a fraction of capacity: the
    /// seasons raise or lower it from there, so the annual mean differs (it is printed).
    /// Give this or `offered_load`, not both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_load_outside_seasons: Option<f64>,
    /// The other groups' job classes.
    #[serde(default)]
    pub classes: Vec<RawJobClass>,
    /// A real cluster log as (part of) the other groups' load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<RawTrace>,
    /// Seasons multiplying the other groups' arrival rates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<RawSeason>,
    /// `max` or `product`.
    #[serde(default)]
    pub season_overlap: SeasonOverlap,
    /// Relative arrival rates by hour: 24 values (hour of day, every day alike) or 168
    /// (hour of week, Monday 00:00 first); normalised to average 1, multiplies the seasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_profile: Option<Vec<f64>>,
}

/// How a trace feeds the background.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceMode {
    /// Each replication is a different resample of whole days or weeks of the log.
    #[default]
    Bootstrap,
    /// The log as it was, from its first submission (every replication sees the same jobs).
    Replay,
}

/// Block length of the bootstrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceBlock {
    /// Whole days (keeps the daily rhythm).
    Day,
    /// Whole weeks (keeps the daily and the weekly rhythm).
    #[default]
    Week,
}

/// How a bootstrap draws the log's blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceDraw {
    /// From the same part of the year (within `season_window_weeks`); needs a log with
    /// calendar dates.
    Season,
    /// Uniformly from the whole log, whatever the time of year.
    Uniform,
}

/// What a trace's job sizes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceUnits {
    /// GPUs when the log has GPU counts, else processors.
    #[default]
    Auto,
    /// Processors.
    Procs,
    /// GPUs.
    Gpus,
}

/// `[background.trace]`: other groups' jobs from a real log (SWF, sacct or CSV).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    /// The log file, relative to the scenario file (run.toml records it absolute).
    pub path: String,
    /// `swf`, `sacct` or `csv`; detected from the name and content when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// CSV logs: a preset name (`alibaba-openb-2023`, `alibaba-dlrm-2025`) or a table of
    /// column names (see docs/TRACES.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<toml::Value>,
    /// `bootstrap` (default) or `replay`.
    #[serde(default)]
    pub mode: TraceMode,
    /// `week` (default) or `day`.
    #[serde(default)]
    pub block: TraceBlock,
    /// Bootstrap only: `season` or `uniform`. Left out: `season` when the log has
    /// calendar dates, else `uniform` (with a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<TraceDraw>,
    /// Bootstrap with `draw = "season"`: each block comes from within ± this many weeks
    /// (plus half a block) of its place in the year; 0 = the same week or day of the
    /// year. Left out: 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_window_weeks: Option<u32>,
    /// `auto`, `procs` or `gpus`.
    #[serde(default)]
    pub units: TraceUnits,
    /// Processors (or GPUs) of the log per simulated GPU; sizes are divided and rounded up.
    #[serde(default = "one_f64")]
    pub procs_per_gpu: f64,
    /// Load scale: below 1 each job is kept with this probability; above 1 (bootstrap
    /// only) independent resamples are superposed (the whole part, plus one more thinned
    /// to the fractional part).
    #[serde(default = "one_f64")]
    pub scale: f64,
    /// Replay only: skip this many days at the start of the log (time shift).
    #[serde(default)]
    pub skip_days: f64,
    /// Jobs of this user in the log are the group's own (routed by the policy, measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_user: Option<String>,
    /// Jobs of this account/group in the log are the group's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_account: Option<String>,
}

/// `[workload]`: the group's own jobs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    /// Job classes of the group.
    #[serde(default)]
    pub classes: Vec<RawJobClass>,
    /// Seasons multiplying the group's arrival rates (its own deadlines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<RawSeason>,
    /// `max` or `product`.
    #[serde(default)]
    pub season_overlap: SeasonOverlap,
    /// Relative arrival rates by hour: 24 values (hour of day, every day alike) or 168
    /// (hour of week, Monday 00:00 first); normalised to average 1, multiplies the seasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_profile: Option<Vec<f64>>,
    /// The group's Slurm account (default "group"); `[[campus.accounts]]` may give its
    /// fair-share and limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

/// A class of jobs with its arrival rate and size distributions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJobClass {
    /// Name, unique within its list.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// Arrivals per week outside any season.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs_per_week: Option<f64>,
    /// Share of the background's offered load (background with `offered_load` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_share: Option<f64>,
    /// GPUs per job (whole numbers).
    #[serde(default = "one")]
    pub gpus: DistSpec,
    /// Runtime on one campus GPU type, in hours.
    pub runtime_hours: DistSpec,
    /// Memory needed per GPU.
    #[serde(default = "zero")]
    pub vram_gb: DistSpec,
    /// Data that must be uploaded before a cloud run.
    #[serde(default = "zero")]
    pub data_gb: DistSpec,
    /// Deadline after submission, in hours; none = no deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_hours: Option<DistSpec>,
    /// Requested walltime ÷ true runtime (≥ 1): what the scheduler believes.
    #[serde(default = "default_walltime_factor")]
    pub walltime_factor: DistSpec,
    /// `cv` or `transformer`.
    #[serde(default)]
    pub kind: JobKind,
    /// Slurm account of a background class (default: one shared account, "others").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Partition the jobs ask for (default: the first partition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// Nodes the jobs ask for (`--nodes`); with `gpus_per_node`, `gpus` must be their product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// GPUs per node the jobs ask for (`--gres=gpu:k`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_per_node: Option<u32>,
}

fn one() -> DistSpec {
    DistSpec::fixed(1.0)
}
fn zero() -> DistSpec {
    DistSpec::fixed(0.0)
}
fn default_walltime_factor() -> DistSpec {
    DistSpec::fixed(1.5)
}

/// `[cloud]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCloud {
    /// The offers.
    #[serde(default)]
    pub offers: Vec<RawOffer>,
}

/// How an offer is paid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BillingMode {
    /// Pay per GPU-hour used (按量).
    Hourly,
    /// A fixed number of GPUs rented for whole months, paid busy or idle (包月).
    Monthly,
}

/// Billing granularity of an hourly offer: usage is rounded up to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// Per second.
    #[default]
    Second,
    /// Per started minute.
    Minute,
    /// Per started hour.
    Hour,
}

/// Speed of an offer's GPU relative to the campus GPU, per job kind.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawSpeed {
    /// CV jobs.
    pub cv: f64,
    /// Transformer jobs.
    pub transformer: f64,
}

impl Default for RawSpeed {
    fn default() -> Self {
        RawSpeed { cv: 1.0, transformer: 1.0 }
    }
}

/// `rent_months`: month numbers, one month, or a text such as `"4-5"` (a text can be swept).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawMonths {
    /// `[4, 5]`.
    List(Vec<i64>),
    /// `4`.
    One(i64),
    /// `"4-5"`, `"11-2"`, `"4+9-10"`, `"all"` or `"none"`.
    Text(String),
}

/// Where a job goes when the offer it was sent to has no free GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WhenFull {
    /// Wait in the offer's own queue.
    #[default]
    Wait,
    /// Go to (or stay in) the campus queue.
    Campus,
}

/// One `[[cloud.offers]]` entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOffer {
    /// Unique name, referenced by policies.
    pub name: String,
    /// GPU model, for reports.
    pub gpu_type: String,
    /// Memory per GPU.
    pub vram_gb: f64,
    /// Speed relative to the campus GPU.
    #[serde(default)]
    pub speed: RawSpeed,
    /// `hourly` or `monthly`.
    pub billing: BillingMode,
    /// Hourly offers: price per GPU-hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_hour_cny: Option<f64>,
    /// Monthly offers: price per GPU per 30-day month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_month_cny: Option<f64>,
    /// Monthly offers: GPUs rented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<u32>,
    /// Monthly offers: the calendar months rented each year, as numbers (`[4, 5]`) or a
    /// text of months and ranges (`"4-5"`, `"11-2"` across the new year, `"4+9-10"`).
    /// The GPUs exist, and rent is paid, only in these months; left out (and no
    /// `rent_periods`): rented for the whole measured window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_months: Option<RawMonths>,
    /// Monthly offers: rented date ranges (inclusive), besides or instead of `rent_months`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rent_periods: Vec<RawWindow>,
    /// Monthly offers: the shortest rental, in days, when a policy starts one as it needs
    /// it (`rent_when_needed`); default 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_term_days: Option<f64>,
    /// Hourly offers: most GPUs the platform can give at once; none = unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_gpus: Option<u32>,
    /// `second`, `minute` or `hour`; each billing session is rounded up to it.
    #[serde(default)]
    pub granularity: Granularity,
    /// Smallest charge per billing session, in minutes.
    #[serde(default)]
    pub minimum_charge_minutes: f64,
    /// Time from renting to a running instance, in minutes (not billed).
    #[serde(default = "zero")]
    pub startup_delay_minutes: DistSpec,
    /// Upload bandwidth in MB/s: a job's data becomes transfer time before compute.
    /// None = data is already there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_mb_per_s: Option<f64>,
    /// Whether the GPU is billed while the data uploads.
    #[serde(default = "yes")]
    pub upload_billed: bool,
    /// Storage price per GB-day, charged from upload until `retention_days` after the job.
    #[serde(default)]
    pub storage_price_per_gb_day_cny: f64,
    /// Storage each job gets free.
    #[serde(default)]
    pub free_storage_gb: f64,
    /// Days data stays (and is billed) after the job ends.
    #[serde(default)]
    pub retention_days: f64,
    /// Instance interruptions per running hour (platform instability).
    #[serde(default)]
    pub interruption_rate_per_hour: f64,
    /// Hours between checkpoints: an interruption loses the work since the last one.
    #[serde(default = "default_checkpoint")]
    pub checkpoint_interval_hours: f64,
    /// Runtime stretch from slow storage (≥ 1): "full price for half the speed" is 2.
    #[serde(default = "one_f64")]
    pub io_slowdown: f64,
}

fn yes() -> bool {
    true
}
fn one_f64() -> f64 {
    1.0
}
fn default_checkpoint() -> f64 {
    1.0
}

/// The kind of a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyKind {
    /// Every job queues on campus.
    CampusOnly,
    /// Every job goes to the named offers.
    CloudOnly,
    /// Predict the campus wait at submission; above the threshold, go to the cloud.
    OverflowPredicted,
    /// Queue on campus; not started within the threshold, withdraw to the cloud.
    OverflowTimeout,
    /// Monthly-rented GPUs first, then campus with an overflow rule.
    ReservedFirst,
    /// Route by VRAM and GPU count.
    BySize,
    /// A job whose predicted campus completion misses its deadline goes to the cloud.
    DeadlineAware,
    /// The guide's plan: queue on campus, debug on a cheap offer, move the main run to
    /// the cloud if the campus has not started it when debugging ends.
    GuideHybrid,
}

/// A routing rule of a `by-size` policy; the first rule a job matches decides.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// Matches jobs needing at most this much memory per GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_vram_gb: Option<f64>,
    /// Matches jobs with at most this many GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<u32>,
    /// `campus` or an offer name.
    pub target: String,
}

/// Budget period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetPeriod {
    /// Calendar months.
    #[default]
    Month,
    /// Semesters: 1 Sep – end of Feb, and 1 Mar – 31 Aug.
    Semester,
    /// The whole simulated period.
    Horizon,
}

/// A cap on variable cloud spending.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    /// The cap per period.
    pub cap_cny: f64,
    /// `month`, `semester` or `horizon`.
    #[serde(default)]
    pub period: BudgetPeriod,
    /// Fractions of the cap at which an alert is recorded.
    #[serde(default = "default_alerts")]
    pub alerts: Vec<f64>,
}

fn default_alerts() -> Vec<f64> {
    vec![0.5, 0.8, 1.0]
}

/// One `[[policies]]` entry. Which keys apply depends on `kind` (see docs/SCENARIOS.md);
/// a key given to a kind that does not use it is an error.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Unique name, shown in tables and used in sweep paths.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// The rule.
    pub kind: PolicyKind,
    /// Cloud offers to use, in order of preference (the first that fits the job).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offers: Vec<String>,
    /// Overflow threshold in hours (predicted or elapsed campus wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_hours: Option<f64>,
    /// `overflow-timeout`: a waiting limit proportional to the job's requested compute,
    /// in hours of waiting per GPU-hour requested (GPUs × walltime request), instead of
    /// the constant `threshold_hours`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_per_gpu_hour: Option<f64>,
    /// With `timeout_per_gpu_hour`: the shortest limit, hours (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_floor_hours: Option<f64>,
    /// With `timeout_per_gpu_hour`: the longest limit, hours (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_cap_hours: Option<f64>,
    /// `reserved-first`: the monthly offer whose GPUs take jobs first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_offer: Option<String>,
    /// `by-size`: routing rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RawRule>,
    /// `guide-hybrid`: the cheap offer used for debugging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_offer: Option<String>,
    /// `guide-hybrid`: how long debugging takes, in hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_hours: Option<DistSpec>,
    /// `guide-hybrid`: the job classes treated as main runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub main_classes: Vec<String>,
    /// What a job does when its offer is full.
    #[serde(default)]
    pub when_cloud_full: WhenFull,
    /// A cap on hourly cloud spending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<RawBudget>,
    /// `guide-hybrid`: its monthly offers are not rented up front; a rental starts (for
    /// the offer's `min_term_days`) when a main job is ready after debugging and the
    /// campus has not started it, and later jobs use the machine until the term ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_when_needed: Option<bool>,
}
