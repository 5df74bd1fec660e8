//! Raw scenario → checked [`Scenario`]. Each check names the key path and says what is
//! allowed; the caller adds the file and line.

use std::collections::HashSet;

use super::dist::{DistSpec, Sampler};
use super::raw::*;
use super::{Budget, Campus, JobClass, Offer, Policy, Rule, Scenario, Target};
use crate::date::{Date, days_in_month};
use crate::units::{DAY, HOUR, MINUTE, SimTime, hours_to_secs};
use crate::workload::Job;
use crate::workload::calendar::{Calendar, Season, SeasonWindow};
use serde::Deserialize;

/// Longest horizon accepted: ten years (longer runs are almost surely a unit mistake).
pub const MAX_HORIZON_DAYS: f64 = 3650.0;
/// Most jobs one replication may submit (memory: about 100 bytes per job).
pub const MAX_JOBS_PER_REPLICATION: f64 = 5e7;
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
    let horizon_days = sim.horizon_days;
    if !(horizon_days >= 1.0 / 24.0 && horizon_days <= MAX_HORIZON_DAYS) {
        return bad(
            "simulation.horizon_days",
            format!(
                "{horizon_days} is not allowed; use at least one hour (1/24 day) and at most {MAX_HORIZON_DAYS} days"
            ),
        );
    }
    let warmup_days = nonneg("simulation.warmup_days", sim.warmup_days)?;
    if warmup_days >= horizon_days {
        return bad(
            "simulation.warmup_days",
            format!("{warmup_days} days is not allowed; the warm-up must end before the horizon ({horizon_days} days)"),
        );
    }
    if sim.replications == 0 {
        return bad(
            "simulation.replications",
            "0 is not allowed; run at least 1 replication (5 or more for a meaningful confidence interval)",
        );
    }
    if let Some(t) = sim.ci_target {
        if !(t.is_finite() && t > 0.0 && t < 1.0) {
            return bad(
                "simulation.ci_target",
                format!("{t} is not allowed; give a relative half-width between 0 and 1, e.g. 0.05"),
            );
        }
    }
    let max_replications = sim.max_replications.unwrap_or(sim.replications.max(1000));
    if max_replications < sim.replications {
        return bad(
            "simulation.max_replications",
            format!("{max_replications} is not allowed; it must be at least replications ({})", sim.replications),
        );
    }
    let horizon = (horizon_days * DAY as f64).round() as SimTime;
    let warmup = (warmup_days * DAY as f64).round() as SimTime;
    if start_date.add_days(horizon.div_ceil(DAY) as i64).year() > 9999 {
        return bad(
            "simulation.horizon_days",
            format!(
                "{horizon_days} days from {start_date} do not end before 9999-12-31, the last day the calendar knows; \
                 use an earlier start_date or a shorter horizon"
            ),
        );
    }

    let campus = campus(&raw.campus, start_date, horizon)?;

    let (background, background_calendar) = match &raw.background {
        None => (Vec::new(), Calendar::flat()),
        Some(bg) => {
            unique("background.classes", bg.classes.iter().map(|c| c.name.as_str()))?;
            let mut classes = Vec::new();
            for (i, c) in bg.classes.iter().enumerate() {
                let key = format!("background.classes[{i}]");
                let class = job_class(&key, c, bg.offered_load.is_some())?;
                let (_, max_gpus) = class.gpus.support();
                if max_gpus > campus.gpus as f64 {
                    return bad(
                        format!("{key}.gpus"),
                        format!("jobs of up to {max_gpus} GPUs do not fit the campus cluster's {} GPUs", campus.gpus),
                    );
                }
                classes.push(class);
            }
            if let Some(load) = bg.offered_load {
                let load = nonneg("background.offered_load", load)?;
                if load >= 5.0 {
                    return bad(
                        "background.offered_load",
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
                // rate_per_sec holds the share until here; convert to arrival rates.
                for c in &mut classes {
                    let work_per_job = c.gpus.mean() * c.runtime_hours.mean() * HOUR as f64;
                    c.rate_per_sec = load * campus.gpus as f64 * (c.rate_per_sec / shares) / work_per_job;
                }
            }
            let cal = calendar("background.seasons", &bg.seasons, bg.season_overlap, start_date, horizon)?;
            (classes, cal)
        }
    };

    unique("workload.classes", raw.workload.classes.iter().map(|c| c.name.as_str()))?;
    let mut group = Vec::new();
    for (i, c) in raw.workload.classes.iter().enumerate() {
        group.push(job_class(&format!("workload.classes[{i}]"), c, false)?);
    }
    let group_calendar =
        calendar("workload.seasons", &raw.workload.seasons, raw.workload.season_overlap, start_date, horizon)?;
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
        + background_trace.as_ref().map_or(0.0, |t| t.jobs.len() as f64 * horizon as f64 / t.extent.max(1) as f64);
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
        raw: resolved,
    })
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = it.map(|s| format!("'{s}'")).collect();
    if v.is_empty() { "(none)".into() } else { v.join(", ") }
}

fn campus(c: &RawCampus, start: Date, horizon: SimTime) -> Result<Campus> {
    let gpus = match (c.gpus, c.nodes, c.gpus_per_node) {
        (Some(g), None, None) => g,
        (None, Some(n), Some(p)) => n.checked_mul(p).unwrap_or(u32::MAX),
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
        Some(h) => Some(hours_to_secs(positive("campus.max_walltime_hours", h)?, 1)),
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
        let from = (a.to_days() - start.to_days()).max(0) as SimTime * DAY;
        let to = ((b.to_days() - start.to_days() + 1).max(0) as SimTime * DAY).min(horizon + 400 * DAY);
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

fn calendar(
    key: &str,
    seasons: &[RawSeason],
    overlap: SeasonOverlap,
    start: Date,
    horizon: SimTime,
) -> Result<Calendar> {
    unique(key, seasons.iter().map(|s| s.name.as_str()))?;
    let origin = start.to_days();
    let horizon_days = horizon.div_ceil(DAY) as i64;
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
                    let first = start.year() - 1;
                    let last = start.add_days(horizon_days).year();
                    (first..=last)
                        .map(|y| (y, if wraps { y + 1 } else { y }))
                        .filter(|&(_, end_year)| end_year >= 1900)
                        .map(|(y, end_year)| (in_year(y, am, ad), in_year(end_year, bm, bd)))
                        .collect()
                }
                _ => return bad(format!("{k}.end"), "start and end must both be YYYY-MM-DD or both MM-DD"),
            };
        for (a, b) in spans {
            let from = (a.to_days() - origin).clamp(0, horizon_days);
            let to = (b.to_days() - origin + 1).clamp(0, horizon_days);
            if to > from {
                windows.push(SeasonWindow {
                    season: i,
                    start: from as SimTime * DAY,
                    end: to as SimTime * DAY,
                    multiplier,
                });
            }
        }
        named.push(Season { name: s.name.clone(), multiplier });
    }
    Ok(Calendar::new(named, windows, overlap))
}

fn offer(key: &str, o: &RawOffer) -> Result<Offer> {
    let vram_gb = positive(&format!("{key}.vram_gb"), o.vram_gb)?;
    let speed_cv =
        within(&format!("{key}.speed.cv"), o.speed.cv, 1e-3, 100.0, "a speed factor relative to the campus GPU")?;
    let speed_transformer = within(
        &format!("{key}.speed.transformer"),
        o.speed.transformer,
        1e-3,
        100.0,
        "a speed factor relative to the campus GPU",
    )?;
    let (price_h, price_m, capacity) = match o.billing {
        BillingMode::Hourly => {
            if o.price_per_gpu_month_cny.is_some() {
                return bad(
                    format!("{key}.price_per_gpu_month_cny"),
                    "an hourly offer is priced per GPU-hour; use price_per_gpu_hour_cny (or billing = \"monthly\")",
                );
            }
            if o.gpus.is_some() {
                return bad(
                    format!("{key}.gpus"),
                    "gpus is the rented count of a monthly offer; for an hourly offer give capacity_gpus",
                );
            }
            let Some(p) = o.price_per_gpu_hour_cny else {
                return bad(
                    format!("{key}.price_per_gpu_hour_cny"),
                    "missing; an hourly offer needs a price per GPU-hour (0 for free credit)",
                );
            };
            if let Some(0) = o.capacity_gpus {
                return bad(format!("{key}.capacity_gpus"), "0 is not allowed; omit it for unlimited capacity");
            }
            (nonneg(&format!("{key}.price_per_gpu_hour_cny"), p)?, 0.0, o.capacity_gpus)
        }
        BillingMode::Monthly => {
            if o.price_per_gpu_hour_cny.is_some() {
                return bad(
                    format!("{key}.price_per_gpu_hour_cny"),
                    "a monthly offer is priced per GPU-month; use price_per_gpu_month_cny (or billing = \"hourly\")",
                );
            }
            if o.capacity_gpus.is_some() {
                return bad(
                    format!("{key}.capacity_gpus"),
                    "a monthly offer's capacity is its rented gpus; give gpus only",
                );
            }
            let Some(p) = o.price_per_gpu_month_cny else {
                return bad(
                    format!("{key}.price_per_gpu_month_cny"),
                    "missing; a monthly offer needs a price per GPU-month",
                );
            };
            let gpus = match o.gpus {
                Some(g) if g > 0 && g <= MAX_GPUS => g,
                Some(g) => return bad(format!("{key}.gpus"), format!("{g} is not allowed; rent 1 to {MAX_GPUS} GPUs")),
                None => return bad(format!("{key}.gpus"), "missing; say how many GPUs are rented monthly"),
            };
            (0.0, nonneg(&format!("{key}.price_per_gpu_month_cny"), p)?, Some(gpus))
        }
    };
    let min_charge = nonneg(&format!("{key}.minimum_charge_minutes"), o.minimum_charge_minutes)?;
    let interruption_rate_per_hour = finite_at_least(
        &format!("{key}.interruption_rate_per_hour"),
        o.interruption_rate_per_hour,
        0.0,
        "it must be a finite rate ≥ 0 per hour",
    )?;
    let checkpoint_hours = within(
        &format!("{key}.checkpoint_interval_hours"),
        o.checkpoint_interval_hours,
        1.0 / 3600.0,
        8760.0,
        "hours between checkpoints",
    )?;
    // Each interruption loses up to a checkpoint interval; when interruptions are expected
    // several times per interval, work almost never completes (the expected run time
    // grows like e^(rate·interval)).
    if interruption_rate_per_hour * checkpoint_hours > 3.0 {
        return bad(
            format!("{key}.interruption_rate_per_hour"),
            format!(
                "{interruption_rate_per_hour} per hour with checkpoints every {checkpoint_hours} h means {:.1} interruptions per checkpoint interval, so jobs would almost never finish; keep rate × interval ≤ 3 (checkpoint more often)",
                interruption_rate_per_hour * checkpoint_hours
            ),
        );
    }
    let upload = match o.upload_mb_per_s {
        None => None,
        Some(b) => Some(within(&format!("{key}.upload_mb_per_s"), b, 1e-3, 1e7, "a bandwidth in MB/s")?),
    };
    Ok(Offer {
        name: o.name.clone(),
        gpu_type: o.gpu_type.clone(),
        vram_gb,
        speed_cv,
        speed_transformer,
        billing: o.billing,
        price_per_gpu_hour_cny: price_h,
        price_per_gpu_month_cny: price_m,
        capacity,
        granularity: match o.granularity {
            Granularity::Second => 1,
            Granularity::Minute => MINUTE,
            Granularity::Hour => HOUR,
        },
        minimum_charge: (min_charge * MINUTE as f64).round() as SimTime,
        startup_minutes: sampler(
            &format!("{key}.startup_delay_minutes"),
            &o.startup_delay_minutes,
            0.0,
            f64::INFINITY,
            "delays must be ≥ 0 minutes",
        )?,
        upload_mb_per_s: upload,
        upload_billed: o.upload_billed,
        storage_price_per_gb_day_cny: nonneg(
            &format!("{key}.storage_price_per_gb_day_cny"),
            o.storage_price_per_gb_day_cny,
        )?,
        free_storage_gb: nonneg(&format!("{key}.free_storage_gb"), o.free_storage_gb)?,
        retention: (within(&format!("{key}.retention_days"), o.retention_days, 0.0, 3650.0, "days of retention")?
            * DAY as f64)
            .round() as SimTime,
        interruption_rate_per_hour,
        checkpoint_interval: hours_to_secs(checkpoint_hours, 1),
        io_slowdown: within(
            &format!("{key}.io_slowdown"),
            o.io_slowdown,
            1.0,
            100.0,
            "a runtime stretch from slow storage (slow storage can only stretch runtimes)",
        )?,
    })
}

fn offer_ref(key: &str, name: &str, offers: &[Offer]) -> Result<usize> {
    offers.iter().position(|o| o.name == name).ok_or_else(|| Invalid {
        key: key.to_string(),
        message: format!(
            "no offer is named '{name}'; the offers are: {}",
            names(offers.iter().map(|o| o.name.as_str()))
        ),
    })
}

fn policy(key: &str, p: &RawPolicy, raw: &RawScenario, offers: &[Offer]) -> Result<Policy> {
    use PolicyKind::*;
    let kind_name = toml::Value::try_from(p.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    let unused = |field: &str| -> Result<()> {
        bad(format!("{key}.{field}"), format!("not used by a policy of kind '{kind_name}'; remove it"))
    };
    let needs = |field: &str, what: &str| Invalid {
        key: format!("{key}.{field}"),
        message: format!("missing; a policy of kind '{kind_name}' needs {what}"),
    };

    let wants_offers = !matches!(p.kind, CampusOnly);
    let wants_threshold =
        matches!(p.kind, OverflowPredicted | OverflowTimeout | ReservedFirst | BySize | DeadlineAware | GuideHybrid);
    if !wants_offers && !p.offers.is_empty() {
        unused("offers")?;
    }
    if !wants_threshold && p.threshold_hours.is_some() {
        unused("threshold_hours")?;
    }
    if p.kind != ReservedFirst && p.reserved_offer.is_some() {
        unused("reserved_offer")?;
    }
    if p.kind != BySize && !p.rules.is_empty() {
        unused("rules")?;
    }
    if p.kind != GuideHybrid {
        if p.debug_offer.is_some() {
            unused("debug_offer")?;
        }
        if p.debug_hours.is_some() {
            unused("debug_hours")?;
        }
        if !p.main_classes.is_empty() {
            unused("main_classes")?;
        }
    }
    let offer_ids = p
        .offers
        .iter()
        .enumerate()
        .map(|(i, n)| offer_ref(&format!("{key}.offers[{i}]"), n, offers))
        .collect::<Result<Vec<_>>>()?;
    if matches!(p.kind, CloudOnly | OverflowPredicted | OverflowTimeout | DeadlineAware | GuideHybrid)
        && offer_ids.is_empty()
    {
        return Err(needs("offers", "at least one cloud offer, e.g. offers = [\"a800-hourly\"]"));
    }
    let threshold = match p.threshold_hours {
        None => {
            if matches!(p.kind, OverflowPredicted | OverflowTimeout) {
                return Err(needs("threshold_hours", "a threshold in hours (inf = never overflow)"));
            }
            None
        }
        Some(h) if h.is_infinite() && h > 0.0 => None,
        Some(h) => Some(hours_to_secs(nonneg(&format!("{key}.threshold_hours"), h)?, 0)),
    };
    if p.threshold_hours.is_some() && offer_ids.is_empty() {
        return Err(needs("offers", "offers to overflow to when threshold_hours is given"));
    }
    let reserved = match (&p.reserved_offer, p.kind) {
        (Some(n), _) => {
            let i = offer_ref(&format!("{key}.reserved_offer"), n, offers)?;
            if offers[i].billing != BillingMode::Monthly {
                return bad(
                    format!("{key}.reserved_offer"),
                    format!("'{n}' is billed hourly; reserved-first needs a monthly offer"),
                );
            }
            Some(i)
        }
        (None, ReservedFirst) => return Err(needs("reserved_offer", "the monthly offer whose GPUs take jobs first")),
        (None, _) => None,
    };
    let mut rules = Vec::new();
    for (i, r) in p.rules.iter().enumerate() {
        let k = format!("{key}.rules[{i}]");
        let target = if r.target == "campus" {
            Target::Campus
        } else {
            Target::Offer(offer_ref(&format!("{k}.target"), &r.target, offers)?)
        };
        rules.push(Rule {
            max_vram_gb: match r.max_vram_gb {
                Some(v) => nonneg(&format!("{k}.max_vram_gb"), v)?,
                None => f64::INFINITY,
            },
            max_gpus: r.max_gpus.unwrap_or(u32::MAX),
            target,
        });
    }
    if p.kind == BySize && rules.is_empty() {
        return Err(needs(
            "rules",
            "routing rules, e.g. rules = [{ max_vram_gb = 24, max_gpus = 1, target = \"campus\" }, { target = \"a800-hourly\" }]",
        ));
    }
    let (debug_offer, debug_hours, main_class) = if p.kind == GuideHybrid {
        let Some(d) = &p.debug_offer else {
            return Err(needs("debug_offer", "the cheap offer used to debug while the job queues"));
        };
        let Some(h) = &p.debug_hours else { return Err(needs("debug_hours", "how long debugging takes, in hours")) };
        if p.main_classes.is_empty() {
            return Err(needs("main_classes", "the names of the job classes treated as main runs"));
        }
        let mut main = vec![false; raw.workload.classes.len()];
        for (i, name) in p.main_classes.iter().enumerate() {
            let Some(c) = raw.workload.classes.iter().position(|c| &c.name == name) else {
                return bad(
                    format!("{key}.main_classes[{i}]"),
                    format!(
                        "no job class is named '{name}'; the classes are: {}",
                        names(raw.workload.classes.iter().map(|c| c.name.as_str()))
                    ),
                );
            };
            main[c] = true;
        }
        (
            Some(offer_ref(&format!("{key}.debug_offer"), d, offers)?),
            Some(sampler(&format!("{key}.debug_hours"), h, 0.0, f64::INFINITY, "debugging takes ≥ 0 hours")?),
            main,
        )
    } else {
        (None, None, vec![false; raw.workload.classes.len()])
    };
    let budget = match &p.budget {
        None => None,
        Some(b) => {
            let cap_cny = nonneg(&format!("{key}.budget.cap_cny"), b.cap_cny)?;
            let mut alerts = b.alerts.clone();
            for (i, a) in alerts.iter().enumerate() {
                if !(a.is_finite() && *a > 0.0) {
                    return bad(
                        format!("{key}.budget.alerts[{i}]"),
                        format!("{a} is not allowed; alerts are positive fractions of the cap, e.g. 0.8"),
                    );
                }
            }
            alerts.sort_by(f64::total_cmp);
            alerts.dedup();
            Some(Budget { cap_cny, period: b.period, alerts })
        }
    };
    Ok(Policy {
        name: p.name.clone(),
        kind: p.kind,
        offers: offer_ids,
        threshold,
        reserved,
        rules,
        debug_offer,
        debug_hours,
        main_class,
        when_full: p.when_cloud_full,
        budget,
    })
}

/// The largest job of a class must fit at least one place the policy may send it.
fn check_every_class_can_run(
    key: &str,
    p: &Policy,
    classes: &[JobClass],
    raw: &[RawJobClass],
    campus: &Campus,
    offers: &[Offer],
) -> Result<()> {
    for (ci, c) in classes.iter().enumerate() {
        let gpus = c.gpus.support().1;
        let vram = c.vram_gb.support().1;
        let campus_fits = gpus <= campus.gpus as f64
            && gpus <= campus.group_gpu_limit.unwrap_or(u32::MAX) as f64
            && vram <= campus.vram_gb;
        let offer_fits = |o: usize| gpus <= offers[o].capacity.unwrap_or(u32::MAX) as f64 && vram <= offers[o].vram_gb;
        let places = crate::policy::places(p);
        let ok = places.iter().any(|t| match t {
            Target::Campus => campus_fits,
            Target::Offer(o) => offer_fits(*o),
        });
        if !ok {
            let where_ = names(places.iter().map(|t| match t {
                Target::Campus => "campus",
                Target::Offer(o) => offers[*o].name.as_str(),
            }));
            return bad(
                format!("workload.classes[{ci}]"),
                format!(
                    "class '{}' needs up to {gpus} GPUs with {vram} GB each, which no place policy '{}' ({key}) may use can serve ({where_}); \
                     campus has {} GPUs of {} GB{}, so shrink the class, raise the limits, or add an offer that fits",
                    raw[ci].name,
                    p.name,
                    campus.gpus,
                    campus.vram_gb,
                    campus.group_gpu_limit.map(|l| format!(" and a group limit of {l}")).unwrap_or_default()
                ),
            );
        }
    }
    Ok(())
}

/// Reads and converts `[background.trace]` once. The path becomes absolute in the
/// resolved scenario, so `run.toml` and shard folders can be run from anywhere.
fn trace_source(
    t: &mut RawTrace,
    base: &std::path::Path,
    campus: &RawCampus,
    sim: &RawSimulation,
) -> Result<crate::workload::TraceSource> {
    use crate::trace::{self, Format, ReadOptions, bootstrap, replay};
    let key = "background.trace";
    let path = base.join(&t.path);
    let format = match &t.format {
        None => None,
        Some(f) => Some(Format::parse(f).ok_or_else(|| Invalid {
            key: format!("{key}.format"),
            message: format!("'{f}' is not allowed; use \"swf\", \"sacct\" or \"csv\" (or leave it out to detect it)"),
        })?),
    };
    let mapping = match &t.mapping {
        None => None,
        Some(toml::Value::String(name)) => Some(trace::CsvMapping::preset(name).ok_or_else(|| Invalid {
            key: format!("{key}.mapping"),
            message: format!("no preset is named '{name}'; use \"alibaba-openb-2023\", \"alibaba-dlrm-2025\" or a table of column names"),
        })?),
        Some(v) => Some(trace::CsvMapping::deserialize(v.clone()).map_err(|e| Invalid {
            key: format!("{key}.mapping"),
            message: e.to_string().trim_end().to_string(),
        })?),
    };
    let procs_per_gpu = within(&format!("{key}.procs_per_gpu"), t.procs_per_gpu, 1e-3, 1e6, "processors per GPU")?;
    let bytes = std::fs::read(&path).map_err(|e| Invalid {
        key: format!("{key}.path"),
        message: format!("could not read '{}': {e} (paths are relative to the scenario file)", path.display()),
    })?;
    let content_hash =
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
    let log = trace::read_bytes(&bytes, &path.display().to_string(), &ReadOptions { strict: false, format, mapping })
        .map_err(|e| Invalid { key: format!("{key}.path"), message: e.to_string() })?;
    let gpus = match (campus.gpus, campus.nodes, campus.gpus_per_node) {
        (Some(g), _, _) => g,
        (None, Some(n), Some(p)) => n.saturating_mul(p),
        _ => u32::MAX,
    };
    let mut options = replay::ReplayOptions::new(gpus);
    options.units = match t.units {
        TraceUnits::Auto => replay::Units::Auto,
        TraceUnits::Procs => replay::Units::Procs,
        TraceUnits::Gpus => replay::Units::Gpus,
    };
    options.procs_per_gpu = procs_per_gpu;
    let mut converted = replay::to_jobs(&log, &options);
    let scale =
        within(&format!("{key}.scale"), t.scale, 0.0, 100.0, "a load scale (0.5 keeps half the jobs, 2 doubles them)")?;
    let skip_days = within(&format!("{key}.skip_days"), t.skip_days, 0.0, 36500.0, "days of the log to skip")?;
    if skip_days > 0.0 {
        if t.mode != TraceMode::Replay {
            return bad(
                format!("{key}.skip_days"),
                "only a replay can skip days; a bootstrap draws from the whole log",
            );
        }
        let skip = (skip_days * DAY as f64).round() as SimTime;
        let keep: Vec<usize> = (0..converted.jobs.len()).filter(|&i| converted.jobs[i].submit >= skip).collect();
        converted.jobs = keep
            .iter()
            .map(|&i| Job { submit: converted.jobs[i].submit - skip, ..converted.jobs[i].clone() })
            .collect();
        converted.source = keep.iter().map(|&i| converted.source[i]).collect();
        converted.origin += skip as i64;
    }
    // The group's own jobs in the log: marked by user or account, if the campus can run
    // them for the group (larger ones stay with the other groups).
    let limit = campus.group_gpu_limit.unwrap_or(u32::MAX);
    let mut marked = 0usize;
    if t.group_user.is_some() || t.group_account.is_some() {
        for (job, &src) in converted.jobs.iter_mut().zip(&converted.source) {
            let tj = &log.jobs[src];
            let hit = t.group_user.as_deref().is_some_and(|u| tj.user.as_deref() == Some(u))
                || t.group_account.as_deref().is_some_and(|a| tj.group.as_deref() == Some(a));
            if hit && job.gpus <= limit {
                job.group = true;
                job.class = u16::MAX;
                marked += 1;
            }
        }
        if marked == 0 {
            return bad(
                format!("{key}.group_user"),
                format!(
                    "no job of the log belongs to {} (or every one needs more than the group limit of {limit} GPUs)",
                    t.group_user
                        .as_deref()
                        .map(|u| format!("user '{u}'"))
                        .or(t.group_account.as_deref().map(|a| format!("account '{a}'")))
                        .unwrap_or_default()
                ),
            );
        }
    }
    if converted.jobs.is_empty() {
        return bad(
            format!("{key}.path"),
            format!("'{}' has no usable jobs ({} rows read)", path.display(), log.jobs.len()),
        );
    }
    let extent = converted.jobs.last().map_or(1, |j| j.submit + 1);
    let block = match t.block {
        TraceBlock::Day => bootstrap::Block::Day,
        TraceBlock::Week => bootstrap::Block::Week,
    };
    if t.mode == TraceMode::Bootstrap && extent < block.seconds() * 2 {
        return bad(
            format!("{key}.block"),
            format!(
                "the log spans {:.1} days: too short to resample whole {}s; use block = \"day\" or mode = \"replay\"",
                extent as f64 / 86_400.0,
                if block == bootstrap::Block::Week { "week" } else { "day" }
            ),
        );
    }
    let weekday = Date::parse(&sim.start_date).map_or(0, |d| (d.to_days() + 3).rem_euclid(7) as u8);
    let phase =
        log.info.local_time(converted.origin).map_or(0, |origin| bootstrap::aligned_phase(origin, block, weekday));
    // Record the path absolute so the resolved scenario runs from anywhere.
    t.path = std::fs::canonicalize(&path).unwrap_or(path).display().to_string();
    Ok(crate::workload::TraceSource { jobs: converted.jobs, extent, phase, mode: t.mode, block, content_hash, scale })
}
