//! Raw scenario → checked [`Scenario`]. Each check names the key path and says what is
//! allowed; the caller adds the file and line.

use std::collections::HashSet;

use super::dist::{DistSpec, Sampler};
use super::raw::*;
use super::{Budget, Campus, JobClass, Offer, Policy, Rule, Scenario, Target};
use crate::date::{Clock, Date, days_in_month, days_in_year_from};
use crate::units::{DAY, HOUR, MINUTE, SimTime, hours_to_secs};
use crate::workload::Job;
use crate::workload::calendar::{Calendar, HourlyProfile, Season, SeasonWindow};
use serde::Deserialize;

mod cloud;
mod trace;

use cloud::{check_every_class_can_run, offer, policy};
use trace::trace_source;

/// Longest horizon accepted: ten years (longer runs are almost surely a unit mistake).
pub const MAX_HORIZON_DAYS: f64 = 3650.0;
/// Most jobs one replication may submit (memory: about 130 bytes per job).
pub const MAX_JOBS_PER_REPLICATION: f64 = 5e7;
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
        bad(key, format!("{v} is not allowed; give {what} from {lo} to {hi}"))
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
    let sim = &raw.simulation;
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
    if let Some(t) = sim.ci_target
        && !(t.is_finite() && t > 0.0 && t < 1.0)
    {
        return bad(
            "simulation.ci_target",
            format!("{t} is not allowed; give a relative half-width between 0 and 1, e.g. 0.05"),
        );
    }
    let max_replications = sim.max_replications.unwrap_or(sim.replications.max(1000));
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
    let thresholds_h = match &sim.report_wait_thresholds_h {
        None => DEFAULT_WAIT_THRESHOLDS_H.to_vec(),
        Some(v) => {
            let key = "simulation.report_wait_thresholds_h";
            if v.len() > 12 {
                return bad(key, format!("{} thresholds are not allowed; give at most 12", v.len()));
            }
            for (i, &t) in v.iter().enumerate() {
                finite_at_least(&format!("{key}[{i}]"), t, 0.0, "thresholds are hours, finite and ≥ 0")?;
                if i > 0 && t <= v[i - 1] {
                    return bad(format!("{key}[{i}]"), format!("{t} is not allowed; give thresholds in increasing order"));
                }
            }
            v.clone()
        }
    };

    let campus = campus(&raw.campus, clock, horizon)?;

    let (background, background_calendar) = match &raw.background {
        None => (Vec::new(), Calendar::flat()),
        Some(bg) => {
            unique("background.classes", bg.classes.iter().map(|c| c.name.as_str()))?;
            let mut classes = Vec::new();
            for (i, c) in bg.classes.iter().enumerate() {
                let key = format!("background.classes[{i}]");
                let class =
                    job_class(&key, c, bg.offered_load.is_some() || bg.offered_load_outside_seasons.is_some())?;
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
                    return bad(key, format!("{load} is not allowed; give a fraction of capacity below 5 (0.75 = 75%)"));
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
                let mean = if annual_mean { cal.mean_multiplier(warmup, horizon) } else { 1.0 };
                if !(mean > 0.0) {
                    return bad(
                        "background.seasons",
                        "the season multipliers are 0 over the whole measured window, so no load can be offered; \
                         raise a multiplier or drop offered_load",
                    );
                }
                // rate_per_sec holds the share until here; convert to arrival rates.
                for c in &mut classes {
                    let work_per_job = c.gpus.mean() * c.runtime_hours.mean() * HOUR as f64;
                    c.rate_per_sec = load * campus.gpus as f64 * (c.rate_per_sec / shares) / work_per_job / mean;
                }
            }
            (classes, cal)
        }
    };

    unique("workload.classes", raw.workload.classes.iter().map(|c| c.name.as_str()))?;
    let mut group = Vec::new();
    for (i, c) in raw.workload.classes.iter().enumerate() {
        group.push(job_class(&format!("workload.classes[{i}]"), c, false)?);
    }
    let group_calendar =
        calendar("workload.seasons", &raw.workload.seasons, raw.workload.season_overlap, clock, horizon)?;
    let group_calendar =
        with_profile("workload.hourly_profile", group_calendar, raw.workload.hourly_profile.as_deref(), clock)?;
    if group.is_empty() && background.is_empty() {
        return bad("workload.classes", "there are no jobs to simulate; add at least one [[workload.classes]]");
    }

    unique("cloud.offers", raw.cloud.offers.iter().map(|o| o.name.as_str()))?;
    let offers = raw
        .cloud
        .offers
        .iter()
        .enumerate()
        .map(|(i, o)| offer(&format!("cloud.offers[{i}]"), o))
        .collect::<Result<Vec<_>>>()?;

    let mut raw_policies = raw.policies.clone();
    if raw_policies.is_empty() {
        raw_policies.push(RawPolicy {
            name: "campus-only".into(),
            kind: PolicyKind::CampusOnly,
            offers: vec![],
            threshold_hours: None,
            reserved_offer: None,
            rules: vec![],
            debug_offer: None,
            debug_hours: None,
            main_classes: vec![],
            when_cloud_full: WhenFull::Wait,
            budget: None,
        });
    }
    unique("policies", raw_policies.iter().map(|p| p.name.as_str()))?;
    let policies = raw_policies
        .iter()
        .enumerate()
        .map(|(i, p)| policy(&format!("policies[{i}]"), p, &raw, &offers))
        .collect::<Result<Vec<_>>>()?;
    for (pi, p) in policies.iter().enumerate() {
        check_every_class_can_run(&format!("policies[{pi}]"), p, &group, &raw.workload.classes, &campus, &offers)?;
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

    let expected_jobs: f64 = background
        .iter()
        .map(|c| c.rate_per_sec * horizon as f64 * background_calendar.mean_multiplier(0, horizon))
        .chain(group.iter().map(|c| c.rate_per_sec * horizon as f64 * group_calendar.mean_multiplier(0, horizon)))
        .sum();
    let expected_jobs = expected_jobs
        + background_trace
            .as_ref()
            .map_or(0.0, |t| t.scale * t.jobs.len() as f64 * horizon as f64 / t.extent.max(1) as f64);
    if expected_jobs > MAX_JOBS_PER_REPLICATION {
        return bad(
            "workload",
            format!(
                "this scenario would submit about {expected_jobs:.2e} jobs per replication (about {:.0} GB of memory); the limit is {MAX_JOBS_PER_REPLICATION:.0e}: shorten the horizon or lower the arrival rates",
                expected_jobs * 100.0 / 1e9
            ),
        );
    }
    let mut resolved = raw.clone();
    resolved.policies = raw_policies;
    resolved.simulation.horizon_days = Some(horizon_days);
    Ok(Scenario {
        name: raw.name.clone().unwrap_or_else(|| "scenario".into()),
        description: raw.description.clone().unwrap_or_default(),
        start_date,
        horizon,
        warmup,
        replications: sim.replications,
        seed: sim.seed,
        ci_target: sim.ci_target,
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
        class_metrics: crate::metrics::class::ClassMetricSet { thresholds_h },
        raw: resolved,
    })
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = it.map(|s| format!("'{s}'")).collect();
    if v.is_empty() { "(none)".into() } else { v.join(", ") }
}

fn campus(c: &RawCampus, clock: Clock, horizon: SimTime) -> Result<Campus> {
    let gpus = match (c.gpus, c.nodes, c.gpus_per_node) {
        (Some(g), None, None) => g,
        (None, Some(n), Some(p)) => n.saturating_mul(p),
        (Some(g), Some(n), Some(p)) if n.checked_mul(p) == Some(g) => g,
        (Some(_), Some(_), Some(_)) => {
            return bad("campus.gpus", "gpus does not equal nodes × gpus_per_node; give one or the other");
        }
        _ => return bad("campus", "give the cluster size as gpus = N, or as nodes = N and gpus_per_node = M"),
    };
    if gpus == 0 || gpus > MAX_GPUS {
        return bad("campus.gpus", format!("{gpus} GPUs is not allowed; use 1 to {MAX_GPUS}"));
    }
    let vram_gb = positive("campus.vram_gb", c.vram_gb)?;
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
    let maintenance = maintenance.into_iter().map(|(from, to, _)| (from, to)).collect();
    Ok(Campus {
        gpus,
        gpu_type: c.gpu_type.clone(),
        vram_gb,
        scheduler: c.scheduler,
        group_gpu_limit: c.group_gpu_limit,
        max_walltime,
        price_per_gpu_hour_cny: price,
        maintenance,
    })
}

/// A job class; with `by_share`, `rate_per_sec` temporarily holds the load share.
fn job_class(key: &str, c: &RawJobClass, by_share: bool) -> Result<JobClass> {
    let rate_per_sec = if by_share {
        if c.jobs_per_week.is_some() {
            return bad(
                format!("{key}.jobs_per_week"),
                "not used when background.offered_load is given; give load_share instead (or drop offered_load)",
            );
        }
        nonneg(&format!("{key}.load_share"), c.load_share.unwrap_or(1.0))?
    } else {
        if c.load_share.is_some() {
            return bad(
                format!("{key}.load_share"),
                "load_share is only used with background.offered_load; give jobs_per_week instead",
            );
        }
        let Some(w) = c.jobs_per_week else {
            return bad(format!("{key}.jobs_per_week"), "missing; give the arrival rate in jobs per week");
        };
        nonneg(&format!("{key}.jobs_per_week"), w)? / (7.0 * DAY as f64)
    };
    let gpus = sampler(&format!("{key}.gpus"), &c.gpus, 1.0, MAX_GPUS as f64, "GPU counts must be whole numbers ≥ 1")?;
    if !gpus.is_integral() {
        return bad(
            format!("{key}.gpus"),
            "GPU counts must be whole numbers: use a number, or a choice/empirical of whole numbers",
        );
    }
    let runtime_hours =
        sampler(&format!("{key}.runtime_hours"), &c.runtime_hours, 0.0, f64::INFINITY, "runtimes must be ≥ 0 hours")?;
    if runtime_hours.mean() <= 0.0 {
        return bad(format!("{key}.runtime_hours"), "the mean runtime must be positive");
    }
    Ok(JobClass {
        name: c.name.clone(),
        rate_per_sec,
        gpus,
        runtime_hours,
        vram_gb: sampler(&format!("{key}.vram_gb"), &c.vram_gb, 0.0, f64::INFINITY, "memory must be ≥ 0 GB")?,
        data_gb: sampler(&format!("{key}.data_gb"), &c.data_gb, 0.0, f64::INFINITY, "data sizes must be ≥ 0 GB")?,
        deadline_hours: match &c.deadline_hours {
            None => None,
            Some(d) => Some(sampler(
                &format!("{key}.deadline_hours"),
                d,
                0.0,
                f64::INFINITY,
                "deadlines must be ≥ 0 hours after submission",
            )?),
        },
        walltime_factor: sampler(
            &format!("{key}.walltime_factor"),
            &c.walltime_factor,
            1.0,
            f64::INFINITY,
            "the walltime request is at least the true runtime: factors must be ≥ 1",
        )?,
        kind: c.kind,
    })
}

/// Parses `YYYY-MM-DD` or a recurring `MM-DD`.
enum DayOf {
    Exact(Date),
    Recurring(u8, u8),
}

fn day_of(key: &str, text: &str) -> Result<DayOf> {
    let t = text.trim();
    if t.len() == 5 && t.as_bytes()[2] == b'-' {
        let m: u8 = t[..2].parse().map_err(|_| Invalid { key: key.into(), message: format!("'{t}' is not MM-DD") })?;
        let d: u8 = t[3..].parse().map_err(|_| Invalid { key: key.into(), message: format!("'{t}' is not MM-DD") })?;
        if !(1..=12).contains(&m) || d == 0 || d > days_in_month(2024, m) {
            return bad(key, format!("'{t}' is not a day of the year"));
        }
        return Ok(DayOf::Recurring(m, d));
    }
    Ok(DayOf::Exact(date(key, t).map_err(|e| Invalid {
        key: e.key,
        message: format!("{}; or write MM-DD for a season that recurs every year", e.message),
    })?))
}

/// The date of a month-day in a year (29 Feb becomes 28 Feb in common years). A year
/// outside the calendar's 1900–9999 clamps to its first or last day; callers only pass
/// such a year for one end of a span that wraps the new year, so the clamped span still
/// covers the right days of the simulated period (which lies within 1900–9999).
fn in_year(year: i32, m: u8, d: u8) -> Date {
    match year {
        ..1900 => Date::new(1900, 1, 1),
        10000.. => Date::new(9999, 12, 31),
        _ => Date::new(year, m, d.min(days_in_month(year, m))),
    }
    .expect("clamped to a real day")
}

/// Adds the hourly profile at `key` (if given) to a calendar whose clock starts at local
/// midnight of `start`.
fn with_profile(key: &str, cal: Calendar, rates: Option<&[f64]>, clock: Clock) -> Result<Calendar> {
    let Some(rates) = rates else { return Ok(cal) };
    if !matches!(rates.len(), 24 | 168) {
        return bad(
            key,
            format!(
                "{} values are not allowed; give 24 (hour of day, 0 = midnight) or 168 (hour of week, Monday 00:00 first)",
                rates.len()
            ),
        );
    }
    for (i, &r) in rates.iter().enumerate() {
        if !(r.is_finite() && (0.0..=1e6).contains(&r)) {
            return bad(
                format!("{key}[{i}]"),
                format!("{r} is not allowed; relative rates must be finite numbers from 0 to 10⁶ (only ratios matter)"),
            );
        }
    }
    // Clock 0 is midnight of the start date minus the warm-up (whole hours).
    let offset = clock.hour_of_week_at_zero();
    match HourlyProfile::new(rates, offset) {
        Some(p) => Ok(cal.with_profile(p)),
        None => bad(key, "all values are 0; at least one hour must have arrivals (omit the key for a flat profile)"),
    }
}

fn calendar(
    key: &str,
    seasons: &[RawSeason],
    overlap: SeasonOverlap,
    clock: Clock,
    horizon: SimTime,
) -> Result<Calendar> {
    unique(key, seasons.iter().map(|s| s.name.as_str()))?;
    let first_day = clock.date_at(0);
    let last_day = clock.date_at(horizon);
    let mut named = Vec::new();
    let mut windows = Vec::new();
    for (i, s) in seasons.iter().enumerate() {
        let k = format!("{key}[{i}]");
        let multiplier =
            finite_at_least(&format!("{k}.multiplier"), s.multiplier, 0.0, "multipliers must be finite numbers ≥ 0")?;
        if multiplier > 100.0 {
            return bad(
                format!("{k}.multiplier"),
                format!("{multiplier} is not allowed; multipliers above 100 are almost surely a mistake"),
            );
        }
        let spans: Vec<(Date, Date)> =
            match (day_of(&format!("{k}.start"), &s.start)?, day_of(&format!("{k}.end"), &s.end)?) {
                (DayOf::Exact(a), DayOf::Exact(b)) => {
                    if b < a {
                        return bad(
                            format!("{k}.end"),
                            format!("'{b}' is before the start '{a}'; the end date must not come before the start"),
                        );
                    }
                    vec![(a, b)]
                }
                (DayOf::Recurring(am, ad), DayOf::Recurring(bm, bd)) => {
                    let wraps = (bm, bd) < (am, ad);
                    let first = first_day.year() - 1;
                    let last = last_day.year();
                    (first..=last)
                        .map(|y| (y, if wraps { y + 1 } else { y }))
                        .filter(|&(_, end_year)| end_year >= 1900)
                        .map(|(y, end_year)| (in_year(y, am, ad), in_year(end_year, bm, bd)))
                        .collect()
                }
                _ => return bad(format!("{k}.end"), "start and end must both be YYYY-MM-DD or both MM-DD"),
            };
        for (a, b) in spans {
            let from = clock.seconds_of(a).clamp(0, horizon as i64) as SimTime;
            let to = clock.seconds_of(b.add_days(1)).clamp(0, horizon as i64) as SimTime;
            if to > from {
                windows.push(SeasonWindow { season: i, start: from, end: to, multiplier });
            }
        }
        named.push(Season { name: s.name.clone(), multiplier });
    }
    Ok(Calendar::new(named, windows, overlap))
}
