//! `burstsim fit LOG`: estimates a scenario's background load (and, if named, the group's
//! own workload) from a cluster's own log.
//!
//! What is estimated, and how:
//! - **cluster size**: given, else the log header's `MaxProcs` (or `MaxNodes`); a log
//!   that does not state it (every sacct export, CSV job lists) needs `--gpus N`: the
//!   peak use of the log's own jobs is only a lower bound, and sizing the cluster by it
//!   overstates the offered load ([`FitError::NoClusterSize`] says that peak);
//! - **offered load**: Σ(size × run time) ÷ (cluster × span between the first and last
//!   submission), written as `background.offered_load`, so the simulated load matches
//!   the log's whatever the fitted runtime means are;
//! - **classes** by job size (1, 2, 3–4, 5–8, … GPUs; small buckets merged), each with
//!   its GPU-count mix (`choice` of the observed counts), its share of the work
//!   (`load_share`), its runtime distribution fitted by maximum likelihood (lognormal,
//!   gamma, Weibull; the smallest AIC among the fits whose mean is within 20% of the
//!   class's mean runtime, [`super::mle::best_with_mean`]); when the log records requests,
//!   the class's requested times and run times are written together as `requests`
//!   ([`RequestFit`]: the request's 101 quantiles, and the used fraction run time ÷ request
//!   by slice of the request's distribution), which the simulation draws jointly, so the
//!   requests keep the log's distribution (a site's limits included) and the run times
//!   theirs; without requests the parametric run time is written with an assumed factor;
//! - **seasons**: one recurring season per calendar month with multiplier = the month's
//!   work submitted per day (GPU-hours) ÷ the log's mean, so the multipliers average 1
//!   over the log's period and each month keeps the offered load it had (a month of many
//!   small jobs is not made busier than it was: the simulation draws a job's size and run
//!   time whatever the month);
//! - **hour of week**: relative arrival rates by local hour and weekday, written as the
//!   background's `hourly_profile` (168 values, Monday 00:00 first);
//! - **request bands**: when the log records requests and has a profile, each background
//!   size class is split by the log's request quantiles, and each part gets its own
//!   `hourly_profile`, so the jobs asking for long runs arrive when the log's did
//!   ([`bands`] has the rules);
//! - **outages, scheduler cycle, patience** ([`super::infer`], the exact rules there):
//!   whole-cluster outages inferred from the recorded schedule (stretches of an hour or
//!   more in which jobs waited, the first of them fitted and nothing started), fitted as
//!   a renewal process and written as `[campus.outages]` with `kills_jobs = false`; the
//!   cycle from the granularity of the recorded waits (`scheduler_cycle_seconds`); the
//!   share of cancelled jobs (status 5) and, if any, an exponential patience for the
//!   log's account;
//! - **horizon**: one calendar year from the log's first day (the scenario leaves
//!   `horizon_days` out), whatever the log's span, unless [`LogFitOptions::horizon_days`]
//!   asks otherwise: a short log describes the load, not the length of the question.
//!
//! # Minimum data
//! Each part is fitted only from enough data, and falls back to something simpler with
//! a [`FitWarning`] that says why (printed by `fit` and written into the file):
//! - the arrival profile needs [`MIN_JOBS_PER_CELL`] jobs per cell on average and the
//!   cells covered repeatedly: hour of week (168 cells) needs ≥ 1,680 jobs over
//!   ≥ [`MIN_WEEKS`] weeks; else hour of day (24 cells, the same for every weekday) needs
//!   ≥ 240 jobs over ≥ [`MIN_DAYS`] days; else the profile is flat;
//! - a month's multiplier needs ≥ [`MIN_MONTH_DAYS`] days of the log in that month and
//!   ≥ [`MIN_MONTH_JOBS`] jobs; other months get 1, and with fewer than two such months
//!   no seasons are written (flat over the year);
//! - a runtime fit needs at least two distinct run times in its size class (size
//!   classes hold ≥ 50 jobs unless the log is smaller, [`size_classes`]), and the whole
//!   fit at least 10 usable jobs.
//!
//! With a [`GroupMark`], that user's or account's jobs are fitted apart (same size classes
//! and runtime fits) as the group's `[[workload.classes]]` with `jobs_per_week` rates; the
//! background, its seasons and hourly profile then come from the other jobs only.
//!
//! Sizes and runtimes use the same conversion as replay ([`super::replay::to_jobs`]).

pub mod bands;
pub mod lab;
mod requests;
pub mod write;

pub use requests::{MIN_JOBS_PER_ROW, REQUEST_QUANTILES, RequestFit, USED_QUANTILES, USED_ROWS};

mod arrivals;
use arrivals::{arrival_profile, profile_cell, seasons};

use super::mle::{self, Fit};
use super::replay::{ReplayOptions, to_jobs};
use crate::date::Date;
use crate::job::Job;
use crate::trace::convert::Units;
use crate::trace::{Trace, TraceInfo};
use crate::units::{DAY, SimTime};

/// Jobs per cell, on average, below which an arrival profile is not estimated (a cell's
/// relative rate then has a standard error above about 30%).
pub const MIN_JOBS_PER_CELL: f64 = 10.0;
/// Weeks of log an hour-of-week profile needs (each hour of the week seen this often).
pub const MIN_WEEKS: f64 = 4.0;
/// Days of log an hour-of-day profile needs.
pub const MIN_DAYS: f64 = 7.0;
/// Days of log in a calendar month for its own multiplier.
pub const MIN_MONTH_DAYS: f64 = 14.0;
/// Jobs in a calendar month for its own multiplier.
pub const MIN_MONTH_JOBS: usize = 20;

/// What to fit.
#[derive(Clone, Debug)]
pub struct LogFitOptions {
    /// Cluster size; `None` = the log header's (an error when the log has none).
    pub gpus: Option<u32>,
    /// Simulated days; `None` = one calendar year from the start date (the scenario
    /// default, so the key is left out).
    pub horizon_days: Option<f64>,
    /// What job sizes count.
    pub units: Units,
    /// Processors per GPU.
    pub procs_per_gpu: f64,
    /// Scenario name.
    pub name: String,
    /// Where the log came from (for the file's comments).
    pub source: String,
    /// Whose jobs are the group's own (fitted as `[[workload.classes]]`); `None`: the
    /// whole log is the background.
    pub group: Option<GroupMark>,
}

/// How the group's own jobs are recognised in a log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupMark {
    /// The log's user name or id.
    User(String),
    /// The log's account (Slurm) or group id (SWF).
    Account(String),
}

impl std::fmt::Display for GroupMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GroupMark::User(u) => write!(f, "user '{u}'"),
            GroupMark::Account(a) => write!(f, "account '{a}'"),
        }
    }
}

/// The group's own jobs in the log, fitted as its workload.
#[derive(Clone, Debug)]
pub struct GroupFit {
    /// Who the group is in the log.
    pub mark: GroupMark,
    /// The group's jobs.
    pub jobs: usize,
    /// Size classes of the group's jobs; `work_share` is within the group.
    pub classes: Vec<ClassFit>,
}

/// One job-size class.
#[derive(Clone, Debug)]
pub struct ClassFit {
    /// Name, e.g. `size-5-8`.
    pub name: String,
    /// Jobs.
    pub jobs: usize,
    /// Share of the log's work (GPU-seconds).
    pub work_share: f64,
    /// Observed GPU counts and how many jobs had each.
    pub gpu_counts: Vec<(u32, usize)>,
    /// The three fits of runtime in hours (lognormal, gamma, Weibull).
    pub fits: [Fit; 3],
    /// The fit with the smallest AIC.
    pub chosen: Fit,
    /// Mean runtime in the log, hours.
    pub mean_runtime_h: f64,
    /// Requests and run times drawn together; `None` when the log has no requests.
    pub requests: Option<RequestFit>,
    /// The requests of the class, in hours, when it is one request band of a size class
    /// (`(lower, upper]`, `None` for an open end; [`bands`]).
    pub request_band: Option<RequestBand>,
    /// The class's own arrival profile, when it is a request band ([`bands`]).
    pub profile: Option<ArrivalProfile>,
}

/// A request band's bounds in hours, `(lower, upper]`; `None` for an open end.
pub type RequestBand = (Option<f64>, Option<f64>);

/// One calendar month's arrival rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonthRate {
    /// 1–12.
    pub month: u8,
    /// Days of the log's period in this month (over all years).
    pub days: f64,
    /// Jobs submitted in it.
    pub jobs: usize,
    /// Work submitted per day ÷ the log's mean (1 when the log has no day in the month).
    pub multiplier: f64,
}

/// The arrival rate by time of week that was fitted.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrivalProfile {
    /// 168 relative rates, Monday 00:00 first (NaN for an hour the log never covered).
    HourOfWeek(Vec<f64>),
    /// 24 relative rates by local hour, the same for every weekday.
    HourOfDay(Vec<f64>),
    /// No profile: arrivals are flat over the week.
    Flat,
}

impl ArrivalProfile {
    /// The 168 values of `hourly_profile` (`None` for a flat profile).
    pub fn hourly_168(&self) -> Option<Vec<f64>> {
        match self {
            ArrivalProfile::HourOfWeek(v) => Some(v.clone()),
            ArrivalProfile::HourOfDay(v) => Some((0..168).map(|h| v[h % 24]).collect()),
            ArrivalProfile::Flat => None,
        }
    }
}

/// Something the fit fell back on or could not do, said plainly.
#[derive(Clone, Debug, PartialEq)]
pub enum FitWarning {
    /// Too little data for an hour-of-week profile; hour of day used instead.
    HourOfDayProfile {
        /// Jobs of the background.
        jobs: usize,
        /// Weeks the log covers.
        weeks: f64,
    },
    /// Too little data for any profile; arrivals are flat over the week.
    FlatProfile {
        /// Jobs of the background.
        jobs: usize,
        /// Days the log covers.
        days: f64,
    },
    /// Too few well-covered months for monthly seasons.
    NoSeasons {
        /// Months with enough data.
        months: usize,
    },
    /// Some months had too little data and keep multiplier 1.
    ThinMonths {
        /// Their short names.
        months: Vec<&'static str>,
    },
}

impl std::fmt::Display for FitWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitWarning::HourOfDayProfile { jobs, weeks } => write!(
                f,
                "an hour-of-week profile needs at least {:.0} jobs over {MIN_WEEKS:.0} weeks ({MIN_JOBS_PER_CELL:.0} per hour of \
                 the week); the log has {jobs} over {weeks:.1} weeks, so the profile is by hour of day, the same every weekday",
                168.0 * MIN_JOBS_PER_CELL
            ),
            FitWarning::FlatProfile { jobs, days } => write!(
                f,
                "an hour-of-day profile needs at least {:.0} jobs over {MIN_DAYS:.0} days ({MIN_JOBS_PER_CELL:.0} per hour of \
                 the day); the log has {jobs} over {days:.1} days, so arrivals are flat over the week (no hourly_profile)",
                24.0 * MIN_JOBS_PER_CELL
            ),
            FitWarning::NoSeasons { months } => write!(
                f,
                "monthly seasons need at least two calendar months with {MIN_MONTH_DAYS:.0}+ days and {MIN_MONTH_JOBS}+ jobs \
                 in the log; it has {months}, so no seasons are written (the rate is flat over the year)"
            ),
            FitWarning::ThinMonths { months } => write!(
                f,
                "{} had fewer than {MIN_MONTH_DAYS:.0} days or {MIN_MONTH_JOBS} jobs in the log, so multiplier 1 is used there",
                months.join(", ")
            ),
        }
    }
}

/// Everything `fit` estimated.
#[derive(Clone, Debug)]
pub struct LogFit {
    /// Options used.
    pub options: LogFitOptions,
    /// Cluster size used.
    pub cluster_gpus: u32,
    /// Where the size came from.
    pub cluster_from: String,
    /// Whether sizes are GPUs (else processors).
    pub counted_gpus: bool,
    /// Local date of the first submission, when the log has a calendar.
    pub start: Option<Date>,
    /// Days between the first and last submission.
    pub span_days: f64,
    /// Jobs used.
    pub jobs: usize,
    /// Jobs left out, by reason.
    pub left_out: Vec<(&'static str, usize)>,
    /// The log's offered load.
    pub offered_load: f64,
    /// Size classes, smallest first.
    pub classes: Vec<ClassFit>,
    /// Monthly rates (empty without a calendar, or with fewer than two months with
    /// enough data); months with too little data have multiplier 1.
    pub months: Vec<MonthRate>,
    /// Relative arrival rate by time of week (local time); `Flat` without a calendar.
    pub profile: ArrivalProfile,
    /// What was simplified for lack of data.
    pub warnings: Vec<FitWarning>,
    /// The group's own jobs, when a group was named.
    pub group: Option<GroupFit>,
    /// Outages inferred from the recorded schedule ([`super::infer`]); `None` when the log
    /// has no waits or shows none.
    pub outages: Option<super::infer::OutageFit>,
    /// The scheduler cycle the recorded waits show, with the share of positive waits it
    /// divides.
    pub cycle: Option<(crate::units::SimTime, f64)>,
    /// Cancellations (status 5) and the patience they imply.
    pub patience: super::infer::PatienceFit,
}

/// Why a log cannot be fitted.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// The log does not state the cluster's size and none was given.
    #[error(
        "the log does not state the cluster's size (no MaxProcs or MaxNodes header; sacct exports and CSV job lists never do): \
         give --gpus N, the GPUs of the whole cluster{}",
        peak.map_or(String::new(), |p| format!(". For reference, the log's own jobs held at most {p} at once; the cluster \
         is at least that large, and sizing it by that peak would overstate its load"))
    )]
    NoClusterSize {
        /// Peak concurrent use of the log's jobs, when starts are recorded.
        peak: Option<u32>,
    },
    /// Too few usable jobs.
    #[error(
        "only {0} usable jobs (with a run time and a size that fits the cluster); at least 10 are needed to fit anything"
    )]
    TooFewJobs(usize),
    /// All jobs submitted at the same second.
    #[error("every job was submitted at the same time; arrival rates cannot be estimated")]
    NoSpan,
    /// No size class of these jobs has runtimes that can be fitted.
    #[error("{whose} ({jobs}) have too few distinct run times to fit a runtime distribution in any size class")]
    Unfittable {
        /// Whose jobs.
        whose: String,
        /// How many.
        jobs: usize,
    },
    /// Too few jobs are left for the background once the group's are taken out.
    #[error(
        "only {jobs} usable jobs are left once {mark}'s are taken out; at least 10 are needed to fit the other groups' load (leave out --group-user/--group-account to use the whole log as the background)"
    )]
    TooFewOtherJobs {
        /// Who was named.
        mark: GroupMark,
        /// How many usable jobs the others have.
        jobs: usize,
    },
    /// The named group has too few usable jobs in the log.
    #[error(
        "the log has {jobs} usable jobs of {mark}; at least 10 are needed to fit the group's workload (SWF logs name users and groups by number)"
    )]
    TooFewGroupJobs {
        /// Who was named.
        mark: GroupMark,
        /// How many usable jobs they have.
        jobs: usize,
    },
}

/// Fits a log (see the module doc).
///
/// # Errors
/// [`FitError`] when the log has too few usable jobs or no time span.
pub fn fit(trace: &Trace, o: &LogFitOptions) -> Result<LogFit, FitError> {
    let (cluster_gpus, cluster_from) = cluster_size(trace, o)?;
    let ro = ReplayOptions { units: o.units, procs_per_gpu: o.procs_per_gpu, ..ReplayOptions::new(cluster_gpus) };
    let conv = to_jobs(trace, &ro);
    let jobs = &conv.jobs;
    if jobs.len() < 10 {
        return Err(FitError::TooFewJobs(jobs.len()));
    }
    let span = jobs.last().map_or(0, |j| j.submit) as f64;
    if span <= 0.0 {
        return Err(FitError::NoSpan);
    }
    let has_requests = trace.jobs.iter().any(|j| j.requested_time.is_some_and(|r| r > 0));
    // The group's jobs (if named) are fitted apart; the rest are the background.
    let is_group = |src: usize| match &o.group {
        None => false,
        Some(GroupMark::User(u)) => trace.jobs[src].user.as_deref() == Some(u.as_str()),
        Some(GroupMark::Account(a)) => trace.jobs[src].group.as_deref() == Some(a.as_str()),
    };
    // Each job with its recorded request in seconds (at least its run time; the run time
    // when the log records none).
    let (mut ours, mut others): (Vec<Member>, Vec<Member>) = (Vec::new(), Vec::new());
    for (j, &src) in jobs.iter().zip(&conv.source) {
        let request = trace.jobs[src].requested_time.filter(|&r| r > 0).map_or(j.runtime, |r| r as SimTime);
        let member = (j, request.max(j.runtime));
        if is_group(src) { ours.push(member) } else { others.push(member) }
    }
    let group = match &o.group {
        None => None,
        Some(mark) if ours.len() < 10 => {
            return Err(FitError::TooFewGroupJobs { mark: mark.clone(), jobs: ours.len() });
        }
        Some(mark) if others.len() < 10 => {
            return Err(FitError::TooFewOtherJobs { mark: mark.clone(), jobs: others.len() });
        }
        Some(mark) => {
            let classes = fit_classes(&ours, has_requests, None);
            if classes.is_empty() {
                return Err(FitError::Unfittable { whose: format!("{mark}'s jobs"), jobs: ours.len() });
            }
            Some(GroupFit { mark: mark.clone(), jobs: ours.len(), classes })
        }
    };
    let works: Vec<f64> = others.iter().map(|(j, _)| work(j)).collect();
    let total_work: f64 = works.iter().sum();
    let local = |t: i64| trace.info.local_time(t + conv.origin);
    let start = local(0).map(|t| Date::from_days(t.div_euclid(DAY as i64)));
    let mut warnings = Vec::new();
    let (months, profile) = match local(0) {
        Some(t0) => {
            let submits: Vec<i64> = others.iter().map(|(j, _)| t0 + j.submit as i64).collect();
            let (from, to) = (t0, t0 + span as i64);
            (seasons(&submits, &works, from, to, &mut warnings), arrival_profile(&submits, from, to, &mut warnings))
        }
        None => (Vec::new(), ArrivalProfile::Flat),
    };
    // Request bands with their own profiles need requests and a profile to refine.
    let cells = match &profile {
        ArrivalProfile::HourOfWeek(v) | ArrivalProfile::HourOfDay(v) if has_requests => Some(v.len()),
        _ => None,
    };
    let banding = cells.zip(local(0)).map(|(cells, t0)| {
        let cell: Vec<usize> = others.iter().map(|(j, _)| profile_cell(t0 + j.submit as i64, cells)).collect();
        let requests: Vec<SimTime> = others.iter().map(|(_, r)| *r).collect();
        Banding { bounds: bands::band_bounds(&requests), cells, cell }
    });
    let classes = fit_classes(&others, has_requests, banding.as_ref());
    if classes.is_empty() {
        let whose = if o.group.is_some() { "the other groups' jobs" } else { "the log's jobs" };
        return Err(FitError::Unfittable { whose: whose.into(), jobs: others.len() });
    }
    Ok(LogFit {
        options: o.clone(),
        cluster_gpus,
        cluster_from,
        counted_gpus: conv.counted_gpus,
        start,
        span_days: span / DAY as f64,
        jobs: others.len(),
        left_out: conv.left_out.clone(),
        offered_load: total_work / (f64::from(cluster_gpus) * span),
        classes,
        months,
        profile,
        warnings,
        group,
        outages: super::infer::fit_outages(
            &super::infer::outages(&conv, cluster_gpus, super::infer::MIN_OUTAGE),
            span as crate::units::SimTime,
        ),
        cycle: super::infer::cycle(&conv).map(|c| {
            let waits: Vec<i64> = conv.recorded_wait.iter().flatten().copied().filter(|&w| w > 0).collect();
            (c, waits.iter().filter(|&&w| w % c as i64 == 0).count() as f64 / waits.len() as f64)
        }),
        patience: super::infer::patience(trace),
    })
}

/// GPU-seconds of a job.
fn work(j: &Job) -> f64 {
    f64::from(j.gpus) * j.runtime as f64
}

/// A usable job of the log with its recorded request in seconds (≥ its run time).
type Member<'a> = (&'a Job, SimTime);

/// How background size classes are split by request ([`bands`]).
struct Banding {
    /// Upper bounds of the request bands (seconds).
    bounds: Vec<SimTime>,
    /// Cells of the profile: 168 (hour of week) or 24 (hour of day).
    cells: usize,
    /// Each member's cell, in the members' order.
    cell: Vec<usize>,
}

/// Size classes of `members`, each with its fits (see the module doc); with `banding`,
/// the members are first split by request band and each band into size classes, each
/// with the band's profile; `work_share` is within `members`.
fn fit_classes(members: &[Member], has_requests: bool, banding: Option<&Banding>) -> Vec<ClassFit> {
    let total_work: f64 = members.iter().map(|(j, _)| work(j)).sum();
    let everyone: Vec<usize> = (0..members.len()).collect();
    let Some(b) = banding else {
        return size_split(&everyone, members, total_work, has_requests, None, "");
    };
    let band = |i: usize| bands::band_of(&b.bounds, members[i].1);
    let mut counts = vec![0usize; b.bounds.len() + 1];
    for i in 0..members.len() {
        counts[band(i)] += 1;
    }
    let groups = bands::merged_bands(&counts);
    if groups.len() < 2 {
        return size_split(&everyone, members, total_work, has_requests, None, "");
    }
    let mut classes = Vec::new();
    for (k, &(first, last)) in groups.iter().enumerate() {
        let part: Vec<usize> = everyone.iter().copied().filter(|&i| (first..=last).contains(&band(i))).collect();
        let mut in_cell = vec![0usize; b.cells];
        for &i in &part {
            in_cell[b.cell[i]] += 1;
        }
        let profile = bands::band_profile(&in_cell);
        let profile =
            if profile.len() == 168 { ArrivalProfile::HourOfWeek(profile) } else { ArrivalProfile::HourOfDay(profile) };
        let hours = |x: usize| b.bounds.get(x).map(|&v| v as f64 / 3600.0);
        let range = (first.checked_sub(1).and_then(hours), hours(last));
        let suffix = format!("-r{}", k + 1);
        classes.extend(size_split(&part, members, total_work, has_requests, Some((range, profile)), &suffix));
    }
    classes
}

/// The jobs `part` (indices into `members`) by size class, each fitted; `suffix` ends
/// each name. A class whose runtimes cannot be fitted (fewer than 2, or all equal) is
/// left out; the writer reports the jobs that are in no class.
fn size_split(
    part: &[usize],
    members: &[Member],
    total_work: f64,
    has_requests: bool,
    band: Option<(RequestBand, ArrivalProfile)>,
    suffix: &str,
) -> Vec<ClassFit> {
    let mut classes = Vec::new();
    for (lo, hi) in size_classes(part.iter().map(|&i| members[i].0.gpus), part.len()) {
        let class: Vec<usize> = part.iter().copied().filter(|&i| (lo..=hi).contains(&members[i].0.gpus)).collect();
        if let Some(c) = fit_class(&class, members, lo, total_work, has_requests, band.clone()) {
            classes.push(ClassFit { name: format!("{}{suffix}", c.name), ..c });
        }
    }
    classes
}

/// A size class's name from its jobs' sizes (`counts`, sorted by size), e.g. `size-5-8`
/// (`size-{lo}` when all alike).
fn class_name(counts: &[(u32, usize)], lo: u32) -> String {
    match (counts.first(), counts.last()) {
        (Some((a, _)), Some((b, _))) if a != b => format!("size-{a}-{b}"),
        _ => format!("size-{lo}"),
    }
}

/// The jobs `class` (indices into `members`) of size class `lo..` as one class, with its
/// request band and profile if it is one; `None` when its run times cannot be fitted.
fn fit_class(
    class: &[usize],
    members: &[Member],
    lo: u32,
    total_work: f64,
    has_requests: bool,
    band: Option<(RequestBand, ArrivalProfile)>,
) -> Option<ClassFit> {
    let pairs: Vec<(SimTime, SimTime)> = class.iter().map(|&i| (members[i].0.runtime, members[i].1)).collect();
    let jobs: Vec<&Job> = class.iter().map(|&i| members[i].0).collect();
    let hours: Vec<f64> = jobs.iter().map(|j| j.runtime as f64 / 3600.0).collect();
    let fits = mle::fit_all(&hours)?;
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for j in &jobs {
        match counts.iter_mut().find(|(g, _)| *g == j.gpus) {
            Some((_, n)) => *n += 1,
            None => counts.push((j.gpus, 1)),
        }
    }
    counts.sort_unstable();
    let requests = has_requests.then(|| RequestFit::from_pairs(&pairs));
    let (request_band, profile) = band.map_or((None, None), |(r, p)| (Some(r), Some(p)));
    let mean_runtime_h = hours.iter().sum::<f64>() / hours.len() as f64;
    Some(ClassFit {
        name: class_name(&counts, lo),
        jobs: jobs.len(),
        work_share: jobs.iter().map(|j| work(j)).sum::<f64>() / total_work,
        gpu_counts: counts,
        chosen: mle::best_with_mean(&fits, mean_runtime_h),
        fits,
        mean_runtime_h,
        requests,
        request_band,
        profile,
    })
}

/// The cluster's size [`fit`] uses, and where it came from: [`LogFitOptions::gpus`], else
/// the log header's `MaxProcs` (or `MaxNodes`), in GPUs.
///
/// # Errors
/// [`FitError::NoClusterSize`] when neither gives it.
pub fn cluster_size(trace: &Trace, o: &LogFitOptions) -> Result<(u32, String), FitError> {
    if let Some(g) = o.gpus {
        return Ok((g, "given with --gpus".into()));
    }
    let per = if o.procs_per_gpu > 0.0 { o.procs_per_gpu } else { 1.0 };
    let from_header = |v: Option<u32>, what: &str| {
        v.map(|p| (((f64::from(p) / per).floor() as u32).max(1), format!("the log header's {what} ({p})")))
    };
    let TraceInfo { max_procs, max_nodes, .. } = trace.info;
    if let Some(x) = from_header(max_procs, "MaxProcs").or_else(|| from_header(max_nodes, "MaxNodes")) {
        return Ok(x);
    }
    Err(FitError::NoClusterSize { peak: peak_use(trace, o.units, per) })
}

/// Peak concurrent use of the log's jobs from recorded starts and run times (`None`
/// when no start is recorded): a lower bound of the cluster's size, for messages.
pub fn peak_use(trace: &Trace, units: Units, procs_per_gpu: f64) -> Option<u32> {
    let big = ReplayOptions { units, procs_per_gpu, ..ReplayOptions::new(u32::MAX) };
    let conv = to_jobs(trace, &big);
    let mut events: Vec<(i64, i64)> = Vec::new();
    for (j, w) in conv.jobs.iter().zip(&conv.recorded_wait) {
        if let Some(w) = w {
            let s = j.submit as i64 + w;
            events.push((s, i64::from(j.gpus)));
            events.push((s + j.runtime as i64, -i64::from(j.gpus)));
        }
    }
    events.sort_unstable();
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in events {
        now += d;
        peak = peak.max(now);
    }
    (peak > 0).then(|| peak.min(i64::from(u32::MAX)) as u32)
}

/// Size classes `[lo, hi]`: 1, 2, 3–4, 5–8, …; a bucket with fewer than max(50, 2 %) of
/// the jobs is merged into the next one (the last into the previous).
pub fn size_classes(sizes: impl Iterator<Item = u32>, n: usize) -> Vec<(u32, u32)> {
    let bucket = |g: u32| if g <= 1 { 0 } else { 32 - (g - 1).leading_zeros() };
    let mut counts = [0usize; 33];
    for g in sizes {
        counts[bucket(g) as usize] += 1;
    }
    // Bucket b ≥ 1 holds 2^(b−1)+1 ..= 2^b.
    let bounds = |b: u32| match b {
        0 => (1, 1),
        32.. => ((1u32 << 31) + 1, u32::MAX),
        _ => ((1u32 << (b - 1)) + 1, 1u32 << b),
    };
    let min = 50.max(n / 50);
    let mut out: Vec<(u32, u32, usize)> = Vec::new();
    let mut open: Option<(u32, usize)> = None;
    for b in 0..33u32 {
        if counts[b as usize] == 0 {
            continue;
        }
        let (lo, hi) = bounds(b);
        let (start, c) = open.map_or((lo, 0), |(s, c)| (s, c));
        let c = c + counts[b as usize];
        if c >= min {
            out.push((start, hi, c));
            open = None;
        } else {
            open = Some((start, c));
        }
    }
    if let Some((_, c)) = open {
        match out.last_mut() {
            Some(last) => {
                last.1 = u32::MAX;
                last.2 += c;
            }
            None => out.push((1, u32::MAX, c)),
        }
    }
    // Tighten the open ends to what was observed is done by the caller's filter; keep
    // the last class open-ended so no job falls outside.
    if let Some(last) = out.last_mut() {
        last.1 = u32::MAX;
    }
    out.into_iter().map(|(lo, hi, _)| (lo, hi)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_merge_small_buckets() {
        let sizes: Vec<u32> =
            std::iter::repeat_n(1, 100).chain(std::iter::repeat_n(2, 10)).chain(std::iter::repeat_n(4, 60)).collect();
        assert_eq!(size_classes(sizes.iter().copied(), sizes.len()), vec![(1, 1), (2, u32::MAX)]);
        let sizes: Vec<u32> = std::iter::repeat_n(3, 60).chain(std::iter::repeat_n(70, 60)).collect();
        assert_eq!(size_classes(sizes.iter().copied(), sizes.len()), vec![(3, 4), (65, u32::MAX)]);
    }
}
