//! `[campus]` as written: the cluster's size and nodes, its scheduler and priorities,
//! partitions, accounts and capacity keys. The largest section of the file, so it stands
//! apart from the others (issue 25).

use serde::{Deserialize, Serialize};

use super::calendar::RawWindow;
use super::defaults::{one_f64, yes};
use crate::scenario::dist::DistSpec;

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

/// How the backfill pass plans a job that cannot start now (`placement = "nodes"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BfPlanner {
    /// The exact earliest start: every running job's walltime end is a candidate time, and
    /// a job is planned at the first at which it fits for its whole walltime.
    #[default]
    Exact,
    /// As Slurm 22.05's sched/backfill and select/cons_tres plan it: running jobs' ends
    /// taken in groups of widening time windows, the job planned at the end of the last
    /// job of the first group after which it fits; reservations on whole nodes rounded to
    /// `bf_resolution_seconds`; Slurm's best-fit node choice (`cluster::slurm_planner`).
    Slurm,
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
    /// How the backfill pass plans future starts: `exact` (default) or `slurm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_planner: Option<BfPlanner>,
    /// Slurm's `bf_resolution` (seconds; default 60): the grid of its backfill map's
    /// reservations. Only the Slurm planner reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf_resolution_seconds: Option<f64>,
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
    /// Recurring reservations, as `scontrol create reservation StartTime=… Duration=…
    /// Flags=DAILY|WEEKLY|WEEKDAY|WEEKEND` makes them: no job runs in them on their nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<RawReservation>,
    /// MaxTime by time of day and day of week (a partition limit a site changes on a
    /// timer): each rule opens a window that lasts until the next rule's start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time_limits: Vec<RawTimeLimit>,
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

/// `[[campus.reservations]]`: a recurring reservation (Slurm's `scontrol create
/// reservation`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReservation {
    /// Its name (for messages; Slurm's `ReservationName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// First occurrence, `YYYY-MM-DDTHH:MM` (Slurm's `StartTime`), local time.
    pub start_time: String,
    /// Minutes (Slurm's `Duration`).
    pub duration_minutes: f64,
    /// How it recurs: `DAILY`, `WEEKLY` (the start's weekday), `WEEKDAY` (Monday to
    /// Friday) or `WEEKEND` (Saturday and Sunday).
    pub flags: String,
    /// How many nodes: the first ones of `node_group` (or of the cluster); absent: the
    /// whole cluster (`Nodes=ALL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// Which node group (default: the cluster's nodes in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
}

/// `[[campus.time_limits]]`: from `start` on each of `days`, jobs may ask at most
/// `max_hours` until the next rule's window opens.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTimeLimit {
    /// Days the window opens on: `DAILY`, `WEEKDAY`, `WEEKEND` or day names `Mon`…`Sun`.
    pub days: Vec<String>,
    /// Local time it opens, `HH:MM`.
    pub start: String,
    /// MaxTime in the window, hours (`inf`: no limit).
    pub max_hours: f64,
    /// A job started in this window must end, by its walltime request, before the window
    /// closes (KTH: no job ran across 07:00 and 16:00 on weekdays).
    #[serde(default)]
    pub end_in_window: bool,
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

/// How multifactor priority turns usage and shares into a fair-share factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FairshareAlgorithm {
    /// Classic fair-share, 2^(−U/S) (Slurm's `PriorityFlags=NO_FAIR_TREE`).
    #[default]
    Classic,
    /// Fair Tree (Slurm's default since 19.05): accounts ranked by level fair-share S/U,
    /// the factor is the rank over the number of user associations.
    FairTree,
}

impl FairshareAlgorithm {
    /// Whether this is the default (classic), which the resolved scenario leaves out so
    /// that scenarios written before the key existed serialise as they did.
    pub fn is_classic(&self) -> bool {
        *self == FairshareAlgorithm::Classic
    }
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
    /// The fair-share algorithm: `"classic"` (default) or `"fair-tree"`.
    #[serde(default, skip_serializing_if = "FairshareAlgorithm::is_classic")]
    pub fairshare_algorithm: FairshareAlgorithm,
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
