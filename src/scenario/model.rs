//! The typed model the engine runs: a checked [`Scenario`] and its parts (campus, job
//! classes, offers, policies). Plain data, built only by validation; the files of
//! `crate::scenario` import it from here, and `crate::scenario` hands it on.

use super::calendar::Calendar;
use super::dist::Sampler;
use super::raw::{
    BillingMode, BudgetPeriod, FairshareAlgorithm, Placement, PolicyKind, RawScenario, SchedulerKind, WhenFull,
};
use super::requests::Requests;
use super::trace_source::TraceSource;
use super::{capacity, labels};
use crate::date::Date;
use crate::job::JobKind;
use crate::units::SimTime;

/// A checked scenario, ready to simulate. Built only by [`Scenario::load`],
/// [`Scenario::from_toml_str`] or [`Scenario::from_raw`], so every field holds a valid value.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Short name (default output folder `output/<name>/`).
    pub name: String,
    /// What question it answers.
    pub description: String,
    /// First measured day (its midnight is clock time [`Scenario::warmup`]).
    pub start_date: Date,
    /// End of the measured window: arrivals stop at this time and jobs already submitted
    /// run to completion.
    pub horizon: SimTime,
    /// Start of the measured window (midnight of `start_date`); the warm-up runs on
    /// `[0, warmup)` and metrics ignore jobs submitted in it.
    pub warmup: SimTime,
    /// Replications per policy.
    pub replications: u32,
    /// Master seed.
    pub seed: u64,
    /// Sequential stopping target (relative CI half-width), if any.
    pub ci_target: Option<f64>,
    /// Sequential stopping on the decision (relative width of the paired differences), if any.
    pub ci_target_paired: Option<f64>,
    /// Most replications under sequential stopping.
    pub max_replications: u32,
    /// Index of the baseline policy for paired differences.
    pub baseline: usize,
    /// The campus cluster.
    pub campus: Campus,
    /// Other groups' job classes (arrival rates per second at multiplier 1).
    pub background: Vec<JobClass>,
    /// Seasons of the other groups.
    pub background_calendar: Calendar,
    /// Other groups' jobs from a real log (`[background.trace]`), shared by all clones.
    pub background_trace: Option<std::sync::Arc<TraceSource>>,
    /// The group's own job classes.
    pub group: Vec<JobClass>,
    /// Seasons of the group (its deadlines).
    pub group_calendar: Calendar,
    /// Cloud offers.
    pub offers: Vec<Offer>,
    /// Policies to compare (at least one).
    pub policies: Vec<Policy>,
    /// The per-class metrics reported (with the scenario's wait thresholds).
    pub class_metrics: super::class_metrics::ClassMetricSet,
    /// Display names (`label`, `label_zh`) of the scenario, policies, classes and seasons.
    pub names: labels::DisplayNames,
    /// The resolved raw form, written back as `run.toml`. Not public: a front end or a
    /// library user reads it with [`Scenario::raw`] and edits a clone, which
    /// [`Scenario::from_raw`] checks again, so no caller outside the crate can make a
    /// validated scenario invalid. Inside the crate only `scenario` edits it in place
    /// (`with_overrides`); the others read it or clone it.
    pub(crate) raw: RawScenario,
    /// A `burstsim calibrate` header on top of the file whose fingerprint no longer
    /// matches the file's values (copied or edited since): warned about before a run.
    pub stale_calibration_header: Option<super::fingerprint::StaleHeader>,
    /// The campus model asked for (`simulation.campus_model`, `--campus-model`); the one
    /// in force is [`crate::scenario::campus_model::effective`]'s.
    pub campus_model: super::raw::CampusModel,
}

/// The campus cluster.
#[derive(Clone, Debug)]
pub struct Campus {
    /// Total GPUs.
    pub gpus: u32,
    /// GPU model (of the first node group).
    pub gpu_type: String,
    /// Memory per GPU, GB (the largest of any node group: what the campus can ever serve).
    pub vram_gb: f64,
    /// Queue discipline.
    pub scheduler: SchedulerKind,
    /// Pool of GPUs, or nodes placed as Slurm's cons_tres does.
    pub placement: Placement,
    /// Node groups (the pool is one group of `gpus` one-GPU "nodes" for reports only).
    pub node_groups: Vec<NodeGroup>,
    /// Partitions; at least one.
    pub partitions: Vec<Partition>,
    /// Queue order.
    pub priority: Priority,
    /// Backfill parameters (node placement).
    pub backfill: Backfill,
    /// Accounts: the listed ones, then implicit ones ("others", the group's) if needed.
    pub accounts: Vec<Account>,
    /// Index of the group's account.
    pub group_account: u16,
    /// Most GPUs the group may hold at once.
    pub group_gpu_limit: Option<u32>,
    /// Longest segment a job may run before it is killed and resubmitted.
    pub max_walltime: Option<SimTime>,
    /// Internal price per GPU-hour.
    pub price_per_gpu_hour_cny: f64,
    /// Maintenance windows `[start, end)`, sorted and disjoint.
    pub maintenance: Vec<(SimTime, SimTime)>,
    /// Failures, drains, outages, scheduler cycle and start delay (all off by default).
    pub capacity: capacity::Capacity,
    /// MaxTime by time window (`[[campus.time_limits]]`; empty: none, the default).
    pub time_limits: super::recurring::TimeLimits,
    /// Recurring reservations of named nodes, per node (`[[campus.reservations]]` with
    /// `nodes` or `node_group`; empty: none, the default). Node placement only.
    pub node_windows: super::recurring::NodeWindows,
    /// The reservations and time-of-day limits as one week (empty: none), from which
    /// [`super::feasibility::campus_reach`] finds the longest request that can ever start.
    pub week: super::week::WeekPattern,
}

/// A group of identical nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeGroup {
    /// Name.
    pub name: String,
    /// Nodes.
    pub nodes: u32,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// GPU model.
    pub gpu_type: String,
    /// Memory per GPU, GB.
    pub vram_gb: f64,
    /// Partition (index).
    pub partition: u16,
}

/// A partition (queue).
#[derive(Clone, Debug, PartialEq)]
pub struct Partition {
    /// Name.
    pub name: String,
    /// Internal charge per GPU-hour.
    pub price_per_gpu_hour_cny: f64,
    /// Partition factor of the multifactor priority, in [0, 1].
    pub priority_factor: f64,
    /// Walltime limit.
    pub max_walltime: Option<SimTime>,
    /// GPUs per node of its largest node group (0 if it has no nodes).
    pub max_gpus_per_node: u32,
    /// Memory per GPU of its best node group.
    pub vram_gb: f64,
    /// GPUs in all its nodes.
    pub gpus: u32,
}

/// Queue order.
#[derive(Clone, Debug, PartialEq)]
pub enum Priority {
    /// Submission order.
    Fifo,
    /// Slurm's priority/multifactor.
    Multifactor(Multifactor),
}

/// Checked multifactor weights and periods.
#[derive(Clone, Debug, PartialEq)]
pub struct Multifactor {
    /// PriorityWeightAge.
    pub weight_age: f64,
    /// PriorityWeightFairshare.
    pub weight_fairshare: f64,
    /// PriorityWeightJobSize.
    pub weight_job_size: f64,
    /// PriorityWeightPartition.
    pub weight_partition: f64,
    /// PriorityMaxAge.
    pub max_age: SimTime,
    /// PriorityDecayHalfLife.
    pub half_life: SimTime,
    /// PriorityCalcPeriod.
    pub calc_period: SimTime,
    /// When the first recomputation comes (clock time). A scenario's is one
    /// `calc_period` after the start; a replay of a real Slurm run sets the phase of
    /// slurmctld's own timer (`burstsim validate --trace --calc-offset`). Not a scenario key.
    pub first_calc: SimTime,
    /// Usage as Slurm 22.05's decay thread books it (`cluster::priority`, "Slurm's
    /// bookkeeping") instead of exactly; the replay's `--slurm-usage`. Not a scenario key.
    pub slurm_usage: bool,
    /// PriorityFavorSmall.
    pub favor_small: bool,
    /// Classic fair-share or Fair Tree (`PriorityFlags=NO_FAIR_TREE` or not).
    pub fairshare_algorithm: FairshareAlgorithm,
}

/// Backfill parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Backfill {
    /// Seconds between passes (`bf_interval`).
    pub interval: SimTime,
    /// Jobs tested per pass (`bf_max_job_test`).
    pub max_job_test: u32,
    /// Of those, how many get a reservation (the rest may only start now).
    pub reservations: u32,
    /// Planning horizon (`bf_window`).
    pub window: SimTime,
    /// How future starts are planned (exact, or as Slurm's planner does).
    pub planner: crate::scenario::raw::BfPlanner,
    /// Slurm's `bf_resolution` in seconds (the Slurm planner's reservation grid).
    pub resolution: SimTime,
}

/// A Slurm account with its fair-share and limits.
#[derive(Clone, Debug)]
pub struct Account {
    /// Name.
    pub name: String,
    /// Fair-share shares.
    pub fairshare: f64,
    /// GrpTRES=gres/gpu.
    pub gpu_limit: Option<u32>,
    /// MaxJobs.
    pub max_jobs: Option<u32>,
    /// MaxSubmit.
    pub max_submit: Option<u32>,
    /// Patience and balking of the account's jobs (off by default).
    pub patience: capacity::Patience,
    /// Listed under `[[campus.accounts]]`; `false` for the `others` and group accounts that
    /// validation adds, whose shares are then their expected use (`validate/accounts.rs`).
    pub listed: bool,
    /// Expected use: the mean share of the campus GPUs its jobs would keep busy over the
    /// measured window were they all to run on campus (from the scenario, not measured).
    pub expected_use: f64,
}

impl Campus {
    /// The partition of index `p`.
    pub fn partition(&self, p: u16) -> &Partition {
        &self.partitions[usize::from(p)]
    }
}

/// A class of jobs.
#[derive(Clone, Debug)]
pub struct JobClass {
    /// Name.
    pub name: String,
    /// Arrivals per second at calendar multiplier 1.
    pub rate_per_sec: f64,
    /// GPUs per job.
    pub gpus: Sampler,
    /// Run time on a campus GPU and walltime request: how they are drawn.
    pub timing: Timing,
    /// Memory per GPU, GB.
    pub vram_gb: Sampler,
    /// Data to upload for a cloud run, GB.
    pub data_gb: Sampler,
    /// Deadline after submission, hours.
    pub deadline_hours: Option<Sampler>,
    /// CV or transformer.
    pub kind: JobKind,
    /// Slurm account (index into `Campus::accounts`).
    pub account: u16,
    /// Partition (index into `Campus::partitions`).
    pub partition: u16,
    /// Nodes asked for (0: let the scheduler choose).
    pub nodes: u16,
    /// GPUs per node asked for (0: let the scheduler choose).
    pub gpus_per_node: u16,
    /// The class's own calendar (its list's seasons × the class's `hourly_profile`);
    /// `None`: the class follows its list's calendar.
    pub calendar: Option<Calendar>,
}

/// Longest runtime a sampled job may have (ten years): heavy tails are cut there so
/// clock arithmetic never overflows.
pub const MAX_RUNTIME_HOURS: f64 = 24.0 * 3650.0;

impl JobClass {
    /// The calendar the class's arrivals follow: its own, else its list's (`list`).
    pub fn calendar<'a>(&'a self, list: &'a Calendar) -> &'a Calendar {
        self.calendar.as_ref().unwrap_or(list)
    }

    /// Draws one job's run time (seconds), GPUs and walltime factor, in the order the
    /// workload has always drawn them: a joint class its request and the share used
    /// first; an independent one its run time first and its factor after the GPUs.
    pub fn draw_size<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> (SimTime, u32, f64) {
        use crate::units::hours_to_secs;
        let (runtime, joint_factor) = match &self.timing {
            Timing::Independent { runtime_hours, .. } => {
                (hours_to_secs(runtime_hours.sample(rng).min(MAX_RUNTIME_HOURS), 1), None)
            }
            Timing::Joint(requests) => {
                let (request_h, used) = requests.sample(rng);
                let request = hours_to_secs(request_h, 1);
                let runtime = ((request as f64 * used).round() as SimTime).clamp(1, request);
                (runtime, Some(crate::job::exact_factor(request as i64, runtime)))
            }
        };
        let gpus = self.gpus.sample(rng).round().max(1.0) as u32;
        let walltime_factor = match (&self.timing, joint_factor) {
            (_, Some(f)) => f,
            (Timing::Independent { walltime_factor, .. }, None) => walltime_factor.sample(rng).clamp(1.0, 1000.0),
            (Timing::Joint(_), None) => unreachable!("invariant: a joint class draws its factor with its run time"),
        };
        (runtime, gpus, walltime_factor)
    }
}

/// How a class draws its jobs' run times and walltime requests.
#[derive(Clone, Debug)]
pub enum Timing {
    /// `runtime_hours`, then `walltime_factor` (request ÷ run time, ≥ 1), independently.
    Independent {
        /// Runtime on a campus GPU, hours.
        runtime_hours: Sampler,
        /// Walltime request ÷ runtime (≥ 1).
        walltime_factor: Sampler,
    },
    /// `requests`: the request, then the share of it used, drawn together.
    Joint(Requests),
}

impl Timing {
    /// The mean run time, hours.
    pub fn mean_runtime_h(&self) -> f64 {
        match self {
            Timing::Independent { runtime_hours, .. } => runtime_hours.mean(),
            Timing::Joint(r) => r.mean_runtime_h(),
        }
    }

    /// One job's run time ÷ request (the share of its request it uses), in (0, 1].
    pub fn sample_used_fraction<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Timing::Independent { walltime_factor, .. } => 1.0 / walltime_factor.sample(rng).clamp(1.0, 1000.0),
            Timing::Joint(r) => r.sample(rng).1,
        }
    }
}

/// A cloud offer.
#[derive(Clone, Debug)]
pub struct Offer {
    /// Name.
    pub name: String,
    /// GPU model.
    pub gpu_type: String,
    /// Memory per GPU, GB.
    pub vram_gb: f64,
    /// Speed relative to campus for CV jobs.
    pub speed_cv: f64,
    /// Speed relative to campus for transformer jobs.
    pub speed_transformer: f64,
    /// Hourly or monthly.
    pub billing: BillingMode,
    /// Price per GPU-hour (hourly offers; 0 for monthly).
    pub price_per_gpu_hour_cny: f64,
    /// Price per GPU-month (monthly offers; 0 for hourly).
    pub price_per_gpu_month_cny: f64,
    /// GPUs available at once: the rented GPUs of a monthly offer, the platform's
    /// capacity of an hourly one; `None` = unlimited.
    pub capacity: Option<u32>,
    /// Monthly offers rented for chosen months (`rent_months`, `rent_periods`): the
    /// rented windows `[start, end)` on the clock, sorted and disjoint; outside them the
    /// offer has no GPUs and costs nothing. `None`: rented the whole time (or, under a
    /// policy with `rent_when_needed`, whenever that policy starts a rental).
    pub rentals: Option<Vec<(SimTime, SimTime)>>,
    /// Shortest rental a policy starts when it needs one (`min_term_days`).
    pub min_term: SimTime,
    /// Billing granularity in seconds (1, 60 or 3600).
    pub granularity: SimTime,
    /// Smallest charge per session.
    pub minimum_charge: SimTime,
    /// Start-up delay, minutes.
    pub startup_minutes: Sampler,
    /// Upload bandwidth, MB/s (`None` = instant).
    pub upload_mb_per_s: Option<f64>,
    /// Whether upload time is billed GPU time.
    pub upload_billed: bool,
    /// Storage price per GB-day.
    pub storage_price_per_gb_day_cny: f64,
    /// Free storage per job, GB.
    pub free_storage_gb: f64,
    /// Retention after the job.
    pub retention: SimTime,
    /// Interruptions per running hour.
    pub interruption_rate_per_hour: f64,
    /// Checkpoint interval.
    pub checkpoint_interval: SimTime,
    /// Runtime stretch from slow storage.
    pub io_slowdown: f64,
}

impl Offer {
    /// Speed relative to campus for a job kind.
    pub fn speed(&self, kind: JobKind) -> f64 {
        match kind {
            JobKind::Cv => self.speed_cv,
            JobKind::Transformer => self.speed_transformer,
        }
    }
}

/// Where a `by-size` rule sends a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The campus queue.
    Campus,
    /// An offer (index into [`Scenario::offers`]).
    Offer(usize),
}

/// A checked `by-size` rule.
#[derive(Clone, Debug)]
pub struct SizeRule {
    /// Upper bound on VRAM per GPU.
    pub max_vram_gb: f64,
    /// Upper bound on GPUs.
    pub max_gpus: u32,
    /// Destination.
    pub target: Destination,
}

/// A checked budget.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Cap per period, CNY.
    pub cap_cny: f64,
    /// The period.
    pub period: BudgetPeriod,
    /// Alert fractions, ascending.
    pub alerts: Vec<f64>,
}

/// A waiting limit proportional to a job's requested compute, as Starburst (USENIX
/// ATC'24) gives its jobs: large jobs may wait longer for the campus, small ones less.
///
/// ```text
/// T = clamp(k × GPUs × walltime request, floor, cap)
/// ```
///
/// with k in hours of waiting per GPU-hour requested (so in seconds per GPU-second).
/// A job that asks for no compute at all gets the floor, even with k = inf.
///
/// # Examples
///
/// ```
/// use burstsim::scenario::ComputeTimeout;
/// use burstsim::units::HOUR;
/// let t = ComputeTimeout { per_gpu_hour: 0.1, floor: 0, cap: None };
/// // 4 GPUs × 10 h requested = 40 GPU-hours, × 0.1 = 4 h.
/// assert_eq!(t.limit(4, 10 * HOUR), Some(4 * HOUR));
/// let clamped = ComputeTimeout { per_gpu_hour: 0.1, floor: 2 * HOUR, cap: Some(6 * HOUR) };
/// assert_eq!(clamped.limit(1, 10 * HOUR), Some(2 * HOUR));
/// assert_eq!(clamped.limit(8, 10 * HOUR), Some(6 * HOUR));
/// let never = ComputeTimeout { per_gpu_hour: f64::INFINITY, floor: 0, cap: None };
/// assert_eq!(never.limit(1, HOUR), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComputeTimeout {
    /// k: hours of waiting per GPU-hour of requested compute; ≥ 0, may be infinite.
    pub per_gpu_hour: f64,
    /// The shortest limit.
    pub floor: SimTime,
    /// The longest limit; `None` = no cap.
    pub cap: Option<SimTime>,
}

impl ComputeTimeout {
    /// The limit for a job of `gpus` GPUs asking the campus for `walltime`; `None` means
    /// the job never gives up on the campus.
    pub fn limit(&self, gpus: u32, walltime: SimTime) -> Option<SimTime> {
        let gpu_secs = f64::from(gpus) * walltime as f64;
        let raw = if gpu_secs == 0.0 { 0.0 } else { self.per_gpu_hour * gpu_secs };
        let t = raw.max(self.floor as f64);
        match self.cap {
            Some(cap) if t >= cap as f64 => Some(cap),
            // Beyond the clock's range of durations (as `units::hours_to_secs`): never.
            None if t >= (SimTime::MAX / 4) as f64 => None,
            _ => Some(t.round() as SimTime),
        }
    }
}

/// A checked policy.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Name.
    pub name: String,
    /// The rule.
    pub kind: PolicyKind,
    /// Offers in order of preference.
    pub offers: Vec<usize>,
    /// Overflow threshold; `None` = never overflow (infinite).
    pub threshold: Option<SimTime>,
    /// `overflow-timeout` only: a limit that grows with the job's requested compute, used
    /// instead of `threshold` (which is then `None`).
    pub compute_timeout: Option<ComputeTimeout>,
    /// Reserved (monthly) offer for `reserved-first`.
    pub reserved: Option<usize>,
    /// Rules for `by-size`.
    pub rules: Vec<SizeRule>,
    /// Debug offer for `guide-hybrid`.
    pub debug_offer: Option<usize>,
    /// Debugging time for `guide-hybrid`, hours.
    pub debug_hours: Option<Sampler>,
    /// Per group class: is it a main run (`guide-hybrid`)?
    pub main_class: Vec<bool>,
    /// Behaviour when an offer is full.
    pub when_full: WhenFull,
    /// Spending cap.
    pub budget: Option<Budget>,
    /// `guide-hybrid`: monthly offers without fixed months are rented only when a main
    /// job needs one, for their minimum term.
    pub rent_when_needed: bool,
}

impl Policy {
    /// Every place the policy may send a job (validation checks each can take the
    /// classes it may get). The campus is always a place: it is where a job goes when
    /// no offer can take it.
    pub fn places(&self) -> Vec<Destination> {
        let mut v: Vec<Destination> = vec![Destination::Campus];
        if self.kind != PolicyKind::CampusOnly {
            v.extend(self.offers.iter().map(|&o| Destination::Offer(o)));
            v.extend(self.reserved.map(Destination::Offer));
            v.extend(self.rules.iter().map(|r| r.target));
        }
        v
    }
}
