//! Checks of the job classes (`[[workload.classes]]` and `[[background.classes]]`: rates,
//! size and runtime distributions, account, partition and node shape) and of the seasons
//! and hourly profiles that shape their arrivals into a [`Calendar`].

use super::*;
use crate::scenario::calendar::{HourlyProfile, Season, SeasonWindow};
use crate::scenario::model::Timing;
use crate::scenario::requests::Requests;

/// A job class; with `by_share`, `rate_per_sec` temporarily holds the load share.
pub(super) fn job_class(key: &str, c: &RawJobClass, by_share: bool, campus: &Campus, group: bool) -> Result<JobClass> {
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
    let timing = timing(key, c)?;
    let (account, partition, nodes, gpus_per_node) = slurm_request(key, c, &gpus, campus, group)?;
    Ok(JobClass {
        name: c.name.clone(),
        rate_per_sec,
        gpus,
        timing,
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
        kind: c.kind,
        account,
        partition,
        nodes,
        gpus_per_node,
        calendar: None,
    })
}

/// Gives each class with its own `hourly_profile` its calendar: `list`'s seasons with
/// that profile instead of the list's (`key` is the list's, e.g. `background.classes`).
pub(super) fn class_calendars(
    key: &str,
    classes: &mut [JobClass],
    raw: &[RawJobClass],
    list: &Calendar,
    clock: Clock,
) -> Result<()> {
    for (i, (c, r)) in classes.iter_mut().zip(raw).enumerate() {
        if let Some(rates) = r.hourly_profile.as_deref() {
            let own = with_profile(&format!("{key}[{i}].hourly_profile"), list.clone(), Some(rates), clock)?;
            c.calendar = Some(own);
        }
    }
    Ok(())
}

/// A class's run times and requests: `runtime_hours` with `walltime_factor`, or `requests`.
fn timing(key: &str, c: &RawJobClass) -> Result<Timing> {
    match (&c.runtime_hours, &c.requests) {
        (Some(_), Some(_)) => bad(
            format!("{key}.requests"),
            "give either runtime_hours (with walltime_factor) or requests (which draws the run time with the \
             request), not both",
        ),
        (None, None) => bad(
            format!("{key}.runtime_hours"),
            "missing; give the run time in hours (or requests = { hours = […], used_fraction = […] })",
        ),
        (Some(r), None) => {
            let runtime_hours =
                sampler(&format!("{key}.runtime_hours"), r, 0.0, f64::INFINITY, "runtimes must be ≥ 0 hours")?;
            if runtime_hours.mean() <= 0.0 {
                return bad(format!("{key}.runtime_hours"), "the mean runtime must be positive");
            }
            let walltime_factor = sampler(
                &format!("{key}.walltime_factor"),
                &c.walltime_factor,
                1.0,
                f64::INFINITY,
                "the walltime request is at least the true runtime: factors must be ≥ 1",
            )?;
            Ok(Timing::Independent { runtime_hours, walltime_factor })
        }
        (None, Some(r)) => {
            if c.walltime_factor != crate::scenario::raw::default_walltime_factor() {
                return bad(
                    format!("{key}.walltime_factor"),
                    "not used with requests (the request is drawn from requests.hours); leave it out",
                );
            }
            let requests = Requests::new(r.hours.clone(), r.used_fraction.clone())
                .map_err(|e| Invalid { key: format!("{key}.requests"), message: e.to_string() })?;
            Ok(Timing::Joint(requests))
        }
    }
}

/// A class's account, partition and node shape, checked against the campus.
fn slurm_request(
    key: &str,
    c: &RawJobClass,
    gpus: &Sampler,
    campus: &Campus,
    group: bool,
) -> Result<(u16, u16, u16, u16)> {
    let account = match (&c.account, group) {
        (Some(_), true) => {
            return bad(format!("{key}.account"), "the group's classes use workload.account; leave account out here");
        }
        (None, true) => campus.group_account,
        (None, false) => campus.accounts.iter().position(|a| a.name == OTHERS_ACCOUNT).expect("always present") as u16,
        (Some(name), false) => match campus.accounts.iter().position(|a| &a.name == name) {
            Some(i) if i == usize::from(campus.group_account) => {
                return bad(
                    format!("{key}.account"),
                    format!("'{name}' is the group's own account; other groups need their own"),
                );
            }
            Some(i) => i as u16,
            None => {
                return bad(
                    format!("{key}.account"),
                    format!(
                        "no account is named '{name}'; list it under [[campus.accounts]] (the accounts are: {})",
                        names(campus.accounts.iter().map(|a| a.name.as_str()))
                    ),
                );
            }
        },
    };
    let partition = match &c.partition {
        None => 0,
        Some(name) => campus.partitions.iter().position(|p| &p.name == name).ok_or_else(|| Invalid {
            key: format!("{key}.partition"),
            message: format!(
                "no partition is named '{name}'; the partitions are: {}",
                names(campus.partitions.iter().map(|p| p.name.as_str()))
            ),
        })? as u16,
    };
    let (nodes, per_node) = match (c.nodes, c.gpus_per_node) {
        (None, None) => (0, 0),
        (Some(n), Some(g)) if n >= 1 && g >= 1 => {
            if campus.placement == Placement::Pool {
                return bad(format!("{key}.nodes"), "a node shape needs campus.placement = \"nodes\"");
            }
            let (lo, hi) = gpus.support();
            if lo != hi || lo != f64::from(n) * f64::from(g) {
                return bad(
                    format!("{key}.gpus"),
                    format!("with nodes = {n} and gpus_per_node = {g}, gpus must be their product, {}", n * g),
                );
            }
            let p = campus.partition(partition);
            if g > p.max_gpus_per_node {
                return bad(
                    format!("{key}.gpus_per_node"),
                    format!(
                        "{g} GPUs per node do not fit partition '{}', whose nodes have {}",
                        p.name, p.max_gpus_per_node
                    ),
                );
            }
            (u16::try_from(n).unwrap_or(u16::MAX), g as u16)
        }
        _ => return bad(format!("{key}.nodes"), "give both nodes and gpus_per_node (each ≥ 1), or neither"),
    };
    Ok((account, partition, nodes, per_node))
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
pub(super) fn with_profile(key: &str, cal: Calendar, rates: Option<&[f64]>, clock: Clock) -> Result<Calendar> {
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

pub(super) fn calendar(
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
