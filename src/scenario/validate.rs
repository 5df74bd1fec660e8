//! Raw scenario → checked [`Scenario`]. Each check names the key path and says what is
//! allowed; the caller adds the file and line.

use std::collections::HashSet;

use super::dist::{DistSpec, Sampler};
use super::model::{
    Account, Budget, Campus, ComputeTimeout, Destination, JobClass, NodeGroup, Offer, Partition, Policy, Scenario,
    SizeRule,
};
use super::raw::*;
use crate::date::{Clock, Date, days_in_month, days_in_year_from};
use crate::job::Job;
use crate::scenario::calendar::Calendar;
use crate::units::{DAY, HOUR, MINUTE, SimTime, hours_to_secs};
use serde::Deserialize;

mod cloud;
mod trace;

mod accounts;
mod capacity;
mod feasibility;
mod labels;
mod nodes;
mod workload;

use accounts::{accounts, with_expected_use};
use cloud::{offer, policy};
use labels::check_labels;
use nodes::{node_groups, partitions, with_nodes};
mod recurring;
use trace::trace_source;
use workload::{calendar, class_calendars, job_class, with_profile};

/// Longest horizon accepted: ten years (longer runs are almost surely a unit mistake).
pub const MAX_HORIZON_DAYS: f64 = 3650.0;

/// The most replications a run may ask for (`replications`, `max_replications`, `-n`).
/// Each replication keeps its per-policy, per-class and per-season values for the CSVs
/// and intervals (a few KB for the default), so 10^5 is already hundreds of MB; and at
/// 10^5 a 95% interval is 100 times narrower than at 10, finer than any input is known.
pub const MAX_REPLICATIONS: u32 = 100_000;

/// The refusal of a replication count above [`MAX_REPLICATIONS`]: `what` names the count
/// as the user gave it (`1000000000` for a key, `--replications 1000000000` on the command
/// line, `replications=1000000000` in Python). One text for every way of asking, so no
/// front end passes what a scenario file may not (issue 45 item 4).
pub fn too_many_replications(what: &str) -> String {
    format!("{what} is not allowed; give at most {MAX_REPLICATIONS} (each replication's values are kept in memory)")
}
/// Most jobs one replication may submit (memory: about 130 bytes per job).
pub const MAX_JOBS_PER_REPLICATION: f64 = 5e7;
/// Backfill reservations per pass by default (docs/ARCHITECTURE.md, "How many jobs get a
/// reservation").
pub const DEFAULT_BF_RESERVATIONS: u32 = 8;
/// The account of background jobs that name none (and of a trace's jobs).
pub const OTHERS_ACCOUNT: &str = "others";
/// The group's account when `workload.account` is not given.
pub const GROUP_ACCOUNT: &str = "group";
/// Wait thresholds (hours) of the per-class "waited longer than t" shares by default.
pub const DEFAULT_WAIT_THRESHOLDS_H: [f64; 3] = [1.0, 4.0, 24.0];
/// Most GPUs accepted anywhere (a bound that keeps memory and time sane).
pub const MAX_GPUS: u32 = 1_000_000;

/// A refused value: the key path and what is allowed.
#[derive(Debug)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

type Result<T> = std::result::Result<T, Invalid>;

fn bad<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T> {
    Err(Invalid { key: key.into(), message: message.into() })
}

fn finite_at_least(key: &str, v: f64, min: f64, what: &str) -> Result<f64> {
    if v.is_finite() && v >= min { Ok(v) } else { bad(key, format!("{v} is not allowed; {what}")) }
}

fn positive(key: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        bad(key, format!("{v} is not allowed; it must be a positive finite number"))
    }
}

fn nonneg(key: &str, v: f64) -> Result<f64> {
    finite_at_least(key, v, 0.0, "it must be a finite number ≥ 0")
}

/// Builds a sampler and checks its values stay within `[lo, hi]`.
fn sampler(key: &str, spec: &DistSpec, lo: f64, hi: f64, rule: &str) -> Result<Sampler> {
    let s = spec.sampler().map_err(|e| Invalid { key: key.to_string(), message: e.to_string() })?;
    let (a, b) = s.support();
    if a < lo || b > hi {
        if a == b {
            return bad(key, format!("{a} is not allowed; {rule}"));
        }
        return bad(key, format!("values from {a} to {b} are possible; {rule}"));
    }
    if !(s.mean().is_finite() && s.mean() >= 0.0) {
        return bad(key, format!("the mean {} is not a finite number ≥ 0", s.mean()));
    }
    Ok(s)
}

/// A finite number in `[lo, hi]`.
fn within(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<f64> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        bad(key, format!("{v} is not allowed; give {what} from {} to {}", bound(lo, what), bound(hi, what)))
    }
}

/// A range's bound for a message: no float noise (`1/60` h is "0.0167 (one minute)", not
/// `0.016666666666666666`).
fn bound(x: f64, what: &str) -> String {
    let text = if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let t = format!("{x:.4}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if what == "hours" && x > 0.0 && x < 1.0 && (x * 60.0 - (x * 60.0).round()).abs() < 1e-9 {
        let minutes = (x * 60.0).round();
        format!("{text} ({minutes:.0} minute{})", if minutes == 1.0 { "" } else { "s" })
    } else {
        text
    }
}

fn date(key: &str, text: &str) -> Result<Date> {
    Date::parse(text).map_err(|e| Invalid { key: key.to_string(), message: e.to_string() })
}

fn unique<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = HashSet::new();
    for (i, n) in names.enumerate() {
        if n.trim().is_empty() {
            return bad(format!("{key}[{i}].name"), "an empty name is not allowed");
        }
        if !seen.insert(n) {
            return bad(format!("{key}[{i}].name"), format!("'{n}' is used twice; names must be unique"));
        }
    }
    Ok(())
}

pub fn validate(mut raw: RawScenario, base: &std::path::Path) -> Result<Scenario> {
    let background_trace = match raw.background.as_mut().and_then(|b| b.trace.as_mut()) {
        None => None,
        Some(t) => {
            let src = trace_source(t, base, &raw.campus, &raw.simulation)?;
            Some(std::sync::Arc::new(src))
        }
    };
    let Settings { start_date, horizon_days, warmup, horizon, clock, max_replications, thresholds_h } =
        settings(&raw.simulation)?;
    let sim = &raw.simulation;
    let mut campus = campus(&raw, clock, horizon)?;
    let (background, background_calendar) = background(&raw, &campus, clock, warmup, horizon)?;
    let (group, group_calendar) = group(&raw, &campus, clock, horizon)?;
    if group.is_empty() && background.is_empty() {
        return bad("workload.classes", "there are no jobs to simulate; add at least one [[workload.classes]]");
    }

    unique("cloud.offers", raw.cloud.offers.iter().map(|o| o.name.as_str()))?;
    let offers = raw
        .cloud
        .offers
        .iter()
        .enumerate()
        .map(|(i, o)| offer(&format!("cloud.offers[{i}]"), o, clock, horizon))
        .collect::<Result<Vec<_>>>()?;

    let raw_policies = policies_or_campus_only(&raw);
    unique("policies", raw_policies.iter().map(|p| p.name.as_str()))?;
    let policies = raw_policies
        .iter()
        .enumerate()
        .map(|(i, p)| policy(&format!("policies[{i}]"), p, &raw, &offers))
        .collect::<Result<Vec<_>>>()?;
    feasibility::check_background(&background, &campus)?;
    if let Some(t) = &background_trace {
        feasibility::check_trace(t, &campus)?;
    }
    for (pi, p) in policies.iter().enumerate() {
        feasibility::check_group(&format!("policies[{pi}]"), p, &group, &campus, &offers)?;
    }
    let baseline = match &sim.baseline_policy {
        None => 0,
        Some(name) => policies.iter().position(|p| &p.name == name).ok_or_else(|| Invalid {
            key: "simulation.baseline_policy".into(),
            message: format!(
                "no policy is named '{name}'; the policies are: {}",
                names(policies.iter().map(|p| p.name.as_str()))
            ),
        })?,
    };

    check_job_count(&background, &background_calendar, &group, &group_calendar, background_trace.as_deref(), horizon)?;
    check_labels(&raw)?;
    with_expected_use(
        &mut campus,
        &accounts::Demand {
            background: &background,
            background_calendar: &background_calendar,
            group: &group,
            group_calendar: &group_calendar,
            trace: background_trace.as_deref(),
            window: (warmup, horizon),
        },
    );
    let mut resolved = raw.clone();
    resolved.policies = raw_policies;
    resolved.simulation.horizon_days = Some(horizon_days);
    let scenario = Scenario {
        name: raw.name.clone().unwrap_or_else(|| "scenario".into()),
        description: raw.description.clone().unwrap_or_default(),
        start_date,
        horizon,
        warmup,
        replications: sim.replications,
        seed: sim.seed,
        ci_target: sim.ci_target,
        ci_target_paired: sim.ci_target_paired,
        max_replications,
        baseline,
        campus,
        background,
        background_calendar,
        background_trace,
        group,
        group_calendar,
        offers,
        policies,
        class_metrics: crate::scenario::class_metrics::ClassMetricSet { thresholds_h },
        names: super::labels::DisplayNames::from_raw(&resolved),
        raw: resolved,
        stale_calibration_header: None,
        campus_model: sim.campus_model.unwrap_or_default(),
    };
    crate::scenario::sensitivity::check(&scenario).map_err(|(key, message)| Invalid { key, message })?;
    Ok(scenario)
}

/// The `[simulation]` table checked: the dates, the window the metrics cover and the
/// stopping rule, in the order a reader finds the keys.
struct Settings {
    start_date: Date,
    horizon_days: f64,
    warmup: SimTime,
    horizon: SimTime,
    clock: Clock,
    max_replications: u32,
    thresholds_h: Vec<f64>,
}

fn settings(sim: &RawSimulation) -> Result<Settings> {
    let start_date = date("simulation.start_date", &sim.start_date)?;
    let year_days = days_in_year_from(start_date) as f64;
    let horizon_days = sim.horizon_days.unwrap_or(year_days);
    if !(1.0 / 24.0..=MAX_HORIZON_DAYS).contains(&horizon_days) {
        return bad(
            "simulation.horizon_days",
            format!(
                "{horizon_days} is not allowed; use at least one hour (1/24 day) and at most {MAX_HORIZON_DAYS} days \
                 (omit it for one calendar year from start_date)"
            ),
        );
    }
    let warmup_days = nonneg("simulation.warmup_days", sim.warmup_days)?;
    if warmup_days > MAX_HORIZON_DAYS {
        return bad(
            "simulation.warmup_days",
            format!("{warmup_days} days is not allowed; give at most {MAX_HORIZON_DAYS} days of warm-up"),
        );
    }
    if sim.replications == 0 {
        return bad(
            "simulation.replications",
            "0 is not allowed; run at least 1 replication (5 or more for a meaningful confidence interval)",
        );
    }
    if sim.replications > MAX_REPLICATIONS {
        return bad("simulation.replications", too_many_replications(&sim.replications.to_string()));
    }
    if let Some(t) = sim.ci_target
        && !(t.is_finite() && t > 0.0 && t < 1.0)
    {
        return bad(
            "simulation.ci_target",
            format!("{t} is not allowed; give a relative half-width between 0 and 1, e.g. 0.05"),
        );
    }
    if let Some(t) = sim.ci_target_paired
        && !(t.is_finite() && t > 0.0 && t < 1.0)
    {
        return bad(
            "simulation.ci_target_paired",
            format!("{t} is not allowed; give a relative half-width between 0 and 1, e.g. 0.1"),
        );
    }
    if sim.ci_target.is_some() && sim.ci_target_paired.is_some() {
        return bad(
            "simulation.ci_target_paired",
            "cannot be given with simulation.ci_target: give one stopping rule (ci_target_paired stops on the \
             decision, ci_target on each policy's own intervals)"
                .to_string(),
        );
    }
    let max_replications = sim.max_replications.unwrap_or(sim.replications.max(1000));
    if max_replications > MAX_REPLICATIONS {
        return bad("simulation.max_replications", too_many_replications(&max_replications.to_string()));
    }
    if max_replications < sim.replications {
        return bad(
            "simulation.max_replications",
            format!("{max_replications} is not allowed; it must be at least replications ({})", sim.replications),
        );
    }
    // The warm-up runs before the start date, in whole hours so that hour-of-day
    // profiles stay aligned with local time.
    let warmup = (warmup_days * 24.0).round() as SimTime * HOUR;
    let horizon = warmup + (horizon_days * DAY as f64).round() as SimTime;
    if start_date.add_days((horizon - warmup).div_ceil(DAY) as i64).year() > 9999
        || start_date.add_days(-(warmup.div_ceil(DAY) as i64)).year() < 1900
    {
        return bad(
            "simulation.horizon_days",
            format!(
                "{horizon_days} days from {start_date} (after {warmup_days} days of warm-up) do not fit between \
                 1900-01-01 and 9999-12-31, the days the calendar knows; use another start_date or a shorter horizon"
            ),
        );
    }
    let clock = Clock { start: start_date, warmup };
    let thresholds_h = wait_thresholds(sim.report_wait_thresholds_h.as_deref())?;

    Ok(Settings { start_date, horizon_days, warmup, horizon, clock, max_replications, thresholds_h })
}

/// Other groups' job classes (`[background]`) with their season calendar; with
/// `offered_load`, each class's share turned into an arrival rate.
fn background(
    raw: &RawScenario,
    campus: &Campus,
    clock: Clock,
    warmup: SimTime,
    horizon: SimTime,
) -> Result<(Vec<JobClass>, Calendar)> {
    match &raw.background {
        None => Ok((Vec::new(), Calendar::flat())),
        Some(bg) => {
            unique("background.classes", bg.classes.iter().map(|c| c.name.as_str()))?;
            let mut classes = Vec::new();
            for (i, c) in bg.classes.iter().enumerate() {
                let key = format!("background.classes[{i}]");
                let by_share = bg.offered_load.is_some() || bg.offered_load_outside_seasons.is_some();
                let class = job_class(&key, c, by_share, campus, false)?;
                let (_, max_gpus) = class.gpus.support();
                if max_gpus > campus.gpus as f64 {
                    return bad(
                        format!("{key}.gpus"),
                        format!("jobs of up to {max_gpus} GPUs do not fit the campus cluster's {} GPUs", campus.gpus),
                    );
                }
                classes.push(class);
            }
            let cal = calendar("background.seasons", &bg.seasons, bg.season_overlap, clock, horizon)?;
            let cal = with_profile("background.hourly_profile", cal, bg.hourly_profile.as_deref(), clock)?;
            class_calendars("background.classes", &mut classes, &bg.classes, &cal, clock)?;
            let load_key = match (bg.offered_load, bg.offered_load_outside_seasons) {
                (Some(_), Some(_)) => {
                    return bad(
                        "background.offered_load_outside_seasons",
                        "give offered_load (the mean over the measured year) or offered_load_outside_seasons \
                         (the load on days in no season), not both",
                    );
                }
                (Some(l), None) => Some(("background.offered_load", l, true)),
                (None, Some(l)) => Some(("background.offered_load_outside_seasons", l, false)),
                (None, None) => None,
            };
            if let Some((key, load, annual_mean)) = load_key {
                let load = nonneg(key, load)?;
                if load >= 5.0 {
                    return bad(
                        key,
                        format!("{load} is not allowed; give a fraction of capacity below 5 (0.75 = 75%)"),
                    );
                }
                if classes.is_empty() {
                    return bad(
                        "background.classes",
                        "offered_load needs at least one class to say what the jobs look like (a trace brings its own load)",
                    );
                }
                let shares: f64 = classes.iter().map(|c| c.rate_per_sec).sum();
                if shares <= 0.0 {
                    return bad("background.classes", "the load_share values sum to 0; at least one must be positive");
                }
                // offered_load is the mean over the measured year: the season multipliers
                // (and hourly profile) shape the load around it, so the base rate is
                // divided by their mean over the window. offered_load_outside_seasons is
                // the base rate itself.
                // A class with its own hourly profile is divided by its own mean.
                // rate_per_sec holds the share until here; convert to arrival rates.
                for c in &mut classes {
                    let mean = if annual_mean { c.calendar(&cal).mean_multiplier(warmup, horizon) } else { 1.0 };
                    if mean.is_nan() || mean <= 0.0 {
                        return bad(
                            "background.seasons",
                            "the season multipliers are 0 over the whole measured window, so no load can be offered; \
                             raise a multiplier or drop offered_load",
                        );
                    }
                    let work_per_job = c.gpus.mean() * c.timing.mean_runtime_h() * HOUR as f64;
                    c.rate_per_sec = load * campus.gpus as f64 * (c.rate_per_sec / shares) / work_per_job / mean;
                }
            }
            Ok((classes, cal))
        }
    }
}

/// `simulation.report_wait_thresholds_h`: at most 12 increasing hours, or the defaults.
fn wait_thresholds(thresholds: Option<&[f64]>) -> Result<Vec<f64>> {
    match thresholds {
        None => Ok(DEFAULT_WAIT_THRESHOLDS_H.to_vec()),
        Some(v) => {
            let key = "simulation.report_wait_thresholds_h";
            if v.len() > 12 {
                return bad(key, format!("{} thresholds are not allowed; give at most 12", v.len()));
            }
            for (i, &t) in v.iter().enumerate() {
                finite_at_least(&format!("{key}[{i}]"), t, 0.0, "thresholds are hours, finite and ≥ 0")?;
                if i > 0 && t <= v[i - 1] {
                    return bad(
                        format!("{key}[{i}]"),
                        format!("{t} is not allowed; give thresholds in increasing order"),
                    );
                }
            }
            Ok(v.to_vec())
        }
    }
}

/// The group's own job classes (`[workload]`) with their season calendar.
fn group(raw: &RawScenario, campus: &Campus, clock: Clock, horizon: SimTime) -> Result<(Vec<JobClass>, Calendar)> {
    unique("workload.classes", raw.workload.classes.iter().map(|c| c.name.as_str()))?;
    let mut group = Vec::new();
    for (i, c) in raw.workload.classes.iter().enumerate() {
        group.push(job_class(&format!("workload.classes[{i}]"), c, false, campus, true)?);
    }
    let group_calendar =
        calendar("workload.seasons", &raw.workload.seasons, raw.workload.season_overlap, clock, horizon)?;
    let group_calendar =
        with_profile("workload.hourly_profile", group_calendar, raw.workload.hourly_profile.as_deref(), clock)?;
    class_calendars("workload.classes", &mut group, &raw.workload.classes, &group_calendar, clock)?;
    Ok((group, group_calendar))
}

/// The policies as written, or campus-only alone when the scenario names none.
fn policies_or_campus_only(raw: &RawScenario) -> Vec<RawPolicy> {
    let mut raw_policies = raw.policies.clone();
    if raw_policies.is_empty() {
        raw_policies.push(RawPolicy {
            name: "campus-only".into(),
            kind: PolicyKind::CampusOnly,
            offers: vec![],
            threshold_hours: None,
            timeout_per_gpu_hour: None,
            timeout_floor_hours: None,
            timeout_cap_hours: None,
            reserved_offer: None,
            rules: vec![],
            debug_offer: None,
            debug_hours: None,
            main_classes: vec![],
            when_cloud_full: WhenFull::Wait,
            budget: None,
            label: None,
            label_zh: None,
            rent_when_needed: None,
        });
    }
    raw_policies
}

/// Refuses a scenario whose expected job count per replication would not fit in memory.
fn check_job_count(
    background: &[JobClass],
    background_calendar: &Calendar,
    group: &[JobClass],
    group_calendar: &Calendar,
    background_trace: Option<&crate::scenario::trace_source::TraceSource>,
    horizon: SimTime,
) -> Result<()> {
    let expected_jobs: f64 = background
        .iter()
        .map(|c| c.rate_per_sec * horizon as f64 * background_calendar.mean_multiplier(0, horizon))
        .chain(group.iter().map(|c| c.rate_per_sec * horizon as f64 * group_calendar.mean_multiplier(0, horizon)))
        .sum();
    let expected_jobs = expected_jobs
        + background_trace.map_or(0.0, |t| t.scale * t.jobs.len() as f64 * horizon as f64 / t.extent.max(1) as f64);
    if expected_jobs > MAX_JOBS_PER_REPLICATION {
        return bad(
            "workload",
            format!(
                "this scenario would submit about {expected_jobs:.2e} jobs per replication (about {:.0} GB of memory); the limit is {MAX_JOBS_PER_REPLICATION:.0e}: shorten the horizon or lower the arrival rates",
                expected_jobs * 100.0 / 1e9
            ),
        );
    }
    Ok(())
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = it.map(|s| format!("'{s}'")).collect();
    if v.is_empty() { "(none)".into() } else { v.join(", ") }
}

fn campus(raw: &RawScenario, clock: Clock, horizon: SimTime) -> Result<Campus> {
    let c = &raw.campus;
    let groups_given = !c.node_groups.is_empty();
    let gpus = campus_gpus(c)?;
    if gpus == 0 || gpus > MAX_GPUS {
        return bad("campus.gpus", format!("{gpus} GPUs is not allowed; use 1 to {MAX_GPUS}"));
    }
    let vram_gb = match (c.vram_gb, groups_given) {
        (Some(v), _) => positive("campus.vram_gb", v)?,
        (None, true) => 0.0, // from the node groups below
        (None, false) => return bad("campus.vram_gb", "missing; give the memory per GPU in GB"),
    };
    if let Some(0) = c.group_gpu_limit {
        return bad(
            "campus.group_gpu_limit",
            "0 is not allowed; the group could never run a job (omit the key for no limit)",
        );
    }
    let max_walltime = match c.max_walltime_hours {
        None => None,
        Some(h) if h.is_infinite() && h > 0.0 => None,
        Some(h) => {
            let h = positive("campus.max_walltime_hours", h)?;
            // Jobs longer than the limit are cut into segments; a limit of seconds would
            // cut every job into thousands (a fuzz case ran for minutes at 1e-7 h).
            if h < 1.0 / 60.0 {
                return bad(
                    "campus.max_walltime_hours",
                    format!(
                        "{h} is not allowed; give at least 1/60 h (one minute): a shorter limit cuts every job into \
                         thousands of resubmitted segments (write inf for no limit)"
                    ),
                );
            }
            Some(hours_to_secs(h, 1))
        }
    };
    let price = nonneg("campus.price_per_gpu_hour_cny", c.price_per_gpu_hour_cny)?;
    let maintenance = maintenance_windows(c, clock, horizon)?;
    let max_walltime_default = max_walltime;
    let partitions = partitions(c, price, max_walltime_default)?;
    let node_groups = node_groups(c, gpus, vram_gb, &partitions)?;
    let partitions = with_nodes(partitions, &node_groups);
    if c.placement == Placement::Nodes
        && let Some(p) = partitions.iter().find(|p| p.gpus == 0)
    {
        return bad("campus.partitions", format!("partition '{}' has no nodes; give it a node group", p.name));
    }
    let vram_gb = node_groups.iter().map(|g| g.vram_gb).fold(vram_gb, f64::max);
    let capacity = capacity::capacity(c, clock, horizon, &node_groups)?;
    let recurring::Recurring { maintenance, node_windows, time_limits, week } =
        recurring::apply(c, clock, horizon, &node_groups, maintenance)?;
    let (accounts, group_account) = accounts(raw, capacity::patience)?;
    let group_gpu_limit = accounts[usize::from(group_account)].gpu_limit;
    check_pool_allows(c, &accounts, group_account)?;
    let priority = priority(c)?;
    let backfill = backfill(c, &partitions)?;
    Ok(Campus {
        gpus,
        gpu_type: node_groups.first().map_or_else(|| c.gpu_type.clone(), |g| g.gpu_type.clone()),
        vram_gb,
        scheduler: c.scheduler,
        placement: c.placement,
        node_groups,
        partitions,
        priority,
        backfill,
        accounts,
        group_account,
        group_gpu_limit,
        max_walltime,
        price_per_gpu_hour_cny: price,
        maintenance,
        capacity,
        time_limits,
        node_windows,
        week,
    })
}

/// Refuses what only the node model can simulate when `placement = "pool"`: other
/// accounts' patience, multifactor priorities, several partitions, per-account limits.
fn check_pool_allows(c: &RawCampus, accounts: &[Account], group_account: u16) -> Result<()> {
    // The pool keeps one queue of other accounts' jobs and cannot take one out of it: a
    // background job that gives up would stay queued (a debug assertion in tests, a silent
    // error in release). Balking needs no withdrawal; the group's own patience works.
    if c.placement == Placement::Pool
        && let Some(i) = c
            .accounts
            .iter()
            .position(|a| a.patience_hours.is_some() && a.name != accounts[usize::from(group_account)].name)
    {
        return bad(
            format!("campus.accounts[{i}].patience_hours"),
            "other accounts' patience needs placement = \"nodes\": the pool cannot withdraw their jobs \
             (leave patience out, or use the node model)",
        );
    }
    let pool_only = |key: &str, what: &str| -> Result<()> {
        if c.placement == Placement::Pool {
            return bad(key, format!("{what} need placement = \"nodes\"; the pool models one queue of identical GPUs"));
        }
        Ok(())
    };
    if c.priority == PriorityKind::Multifactor {
        pool_only("campus.priority", "multifactor priorities")?;
    }
    if c.multifactor.is_some() && c.priority != PriorityKind::Multifactor {
        return bad("campus.multifactor", "weights are only used with priority = \"multifactor\"");
    }
    if c.partitions.len() > 1 {
        pool_only("campus.partitions", "several partitions")?;
    }
    let limited = accounts.iter().enumerate().any(|(i, a)| {
        (i != usize::from(group_account) && a.gpu_limit.is_some()) || a.max_jobs.is_some() || a.max_submit.is_some()
    });
    if limited {
        pool_only("campus.accounts", "limits other than the group's GPU limit")?;
    }
    Ok(())
}

/// The campus's size in GPUs, from `node_groups` or from `gpus` / `nodes` ×
/// `gpus_per_node` (one of the two forms, and consistent).
fn campus_gpus(c: &RawCampus) -> Result<u32> {
    let groups_given = !c.node_groups.is_empty();
    if groups_given && (c.gpus.is_some() || c.nodes.is_some() || c.gpus_per_node.is_some()) {
        return bad(
            "campus.node_groups",
            "give the nodes either as node_groups or as gpus / nodes × gpus_per_node, not both",
        );
    }
    if groups_given && c.placement == Placement::Pool {
        return bad("campus.node_groups", "node groups need placement = \"nodes\" (the pool has no nodes)");
    }
    for (i, g) in c.node_groups.iter().enumerate() {
        // Named before the total, which would otherwise be reported as campus.gpus.
        for (key, value) in [("nodes", g.nodes), ("gpus_per_node", g.gpus_per_node)] {
            if value == 0 {
                return bad(format!("campus.node_groups[{i}].{key}"), "0 is not allowed; give at least 1");
            }
        }
    }
    let gpus = if groups_given {
        c.node_groups
            .iter()
            .try_fold(0u32, |acc, g| acc.checked_add(g.nodes.saturating_mul(g.gpus_per_node)))
            .unwrap_or(u32::MAX)
    } else {
        match (c.gpus, c.nodes, c.gpus_per_node) {
            (Some(g), None, None) => g,
            (None, Some(n), Some(p)) => n.saturating_mul(p),
            (Some(g), Some(n), Some(p)) if n.checked_mul(p) == Some(g) => g,
            (Some(_), Some(_), Some(_)) => {
                return bad("campus.gpus", "gpus does not equal nodes × gpus_per_node; give one or the other");
            }
            _ => return bad("campus", "give the cluster size as gpus = N, or as nodes = N and gpus_per_node = M"),
        }
    };
    Ok(gpus)
}

/// `campus.maintenance`: whole-day windows in simulated seconds, sorted, none overlapping.
fn maintenance_windows(c: &RawCampus, clock: Clock, horizon: SimTime) -> Result<Vec<(SimTime, SimTime)>> {
    let mut maintenance = Vec::new();
    for (i, w) in c.maintenance.iter().enumerate() {
        let key = format!("campus.maintenance[{i}]");
        let a = date(&format!("{key}.start"), &w.start)?;
        let b = date(&format!("{key}.end"), &w.end)?;
        if b < a {
            return bad(
                format!("{key}.end"),
                format!("'{b}' is before the start '{a}'; the end date must not come before the start"),
            );
        }
        let from = clock.seconds_of(a).max(0) as SimTime;
        let to = (clock.seconds_of(b.add_days(1)).max(0) as SimTime).min(horizon + 400 * DAY);
        if to > from {
            maintenance.push((from, to, i));
        }
    }
    maintenance.sort_unstable();
    for w in maintenance.windows(2) {
        let ((_, prev_end, prev), (start, _, i)) = (w[0], w[1]);
        if start < prev_end {
            return bad(
                format!("campus.maintenance[{i}]"),
                format!("this window overlaps campus.maintenance[{prev}]; merge them into one"),
            );
        }
    }
    Ok(maintenance.into_iter().map(|(from, to, _)| (from, to)).collect())
}

/// `campus.priority` with its `[campus.multifactor]` weights checked.
fn priority(c: &RawCampus) -> Result<crate::scenario::model::Priority> {
    Ok(match (&c.priority, &c.multifactor) {
        (PriorityKind::Fifo, _) => crate::scenario::model::Priority::Fifo,
        (PriorityKind::Multifactor, m) => {
            let m = m.clone().unwrap_or_else(|| toml::from_str("").expect("all multifactor keys have defaults"));
            let k = "campus.multifactor";
            for (name, w) in [
                ("weight_age", m.weight_age),
                ("weight_fairshare", m.weight_fairshare),
                ("weight_job_size", m.weight_job_size),
                ("weight_partition", m.weight_partition),
            ] {
                nonneg(&format!("{k}.{name}"), w)?;
            }
            let days = |name: &str, v: f64| -> Result<SimTime> {
                Ok(hours_to_secs(within(&format!("{k}.{name}"), v, 1.0 / 1440.0, 3650.0, "days")? * 24.0, 60))
            };
            let calc = within(&format!("{k}.calc_period_minutes"), m.calc_period_minutes, 1.0, 1440.0, "minutes")?;
            crate::scenario::model::Priority::Multifactor(crate::scenario::model::Multifactor {
                weight_age: m.weight_age,
                weight_fairshare: m.weight_fairshare,
                weight_job_size: m.weight_job_size,
                weight_partition: m.weight_partition,
                max_age: days("max_age_days", m.max_age_days)?,
                half_life: days("decay_half_life_days", m.decay_half_life_days)?,
                calc_period: hours_to_secs(calc / 60.0, 60),
                first_calc: hours_to_secs(calc / 60.0, 60),
                slurm_usage: false,
                favor_small: m.favor_small,
                fairshare_algorithm: m.fairshare_algorithm,
            })
        }
    })
}

/// The backfill settings (`campus.bf_*`); the window defaults to the longest partition
/// time limit.
fn backfill(c: &RawCampus, partitions: &[Partition]) -> Result<crate::scenario::model::Backfill> {
    let interval = within("campus.bf_interval_seconds", c.bf_interval_seconds.unwrap_or(30.0), 1.0, 3600.0, "seconds")?;
    let resolution =
        within("campus.bf_resolution_seconds", c.bf_resolution_seconds.unwrap_or(60.0), 1.0, 3600.0, "seconds")?;
    let max_job_test = c.bf_max_job_test.unwrap_or(500);
    if max_job_test == 0 {
        return bad("campus.bf_max_job_test", "0 is not allowed; backfill must test at least one job");
    }
    let longest = partitions.iter().filter_map(|p| p.max_walltime).max();
    let window = match c.bf_window_hours {
        Some(h) => hours_to_secs(within("campus.bf_window_hours", h, 1.0 / 60.0, 24.0 * 365.0, "hours")?, 60),
        None => longest.unwrap_or(DAY),
    };
    Ok(crate::scenario::model::Backfill {
        interval: interval.round() as SimTime,
        max_job_test,
        reservations: c.bf_reservations.unwrap_or(DEFAULT_BF_RESERVATIONS).min(max_job_test),
        window,
        planner: c.bf_planner.unwrap_or_default(),
        resolution: resolution.round() as SimTime,
    })
}

/// The first node index and the node count of `group` (`None`: the whole cluster), for
/// drains and reservations of some nodes; an unknown group is an error at `{key}.node_group`.
fn node_range(key: &str, group: Option<&str>, groups: &[NodeGroup]) -> Result<(u32, u32)> {
    let Some(name) = group else { return Ok((0, groups.iter().map(|g| g.nodes).sum())) };
    let Some(at) = groups.iter().position(|g| g.name == name) else {
        return bad(
            format!("{key}.node_group"),
            format!(
                "no node group is named '{name}'; the groups are: {}",
                names(groups.iter().map(|g| g.name.as_str()))
            ),
        );
    };
    Ok((groups[..at].iter().map(|g| g.nodes).sum(), groups[at].nodes))
}
