//! Checks of `[[campus.reservations]]` and `[[campus.time_limits]]` (issue 22 item 3) and
//! their expansion over the run ([`crate::scenario::recurring`]): whole-cluster
//! reservations join the maintenance windows, those of some nodes become per-node windows
//! ([`NodeWindows`]) that the schedulers plan around.

use super::*;
use crate::date::DateError;
use crate::scenario::recurring::{self as rec, Days, LimitRule, NodeWindows, TimeLimits};
use crate::scenario::week::{WeekPattern, WeekWindow};

/// Days past the horizon over which recurring windows are expanded (as far as the
/// maintenance and drain windows reach: jobs still run after the horizon).
const BEYOND_HORIZON_DAYS: u64 = 400;

/// Sorted `[start, end)` windows on the clock.
type Windows = Vec<(SimTime, SimTime)>;

/// `YYYY-MM-DDTHH:MM[:SS]` into a date and seconds after midnight.
fn start_time(key: &str, text: &str) -> Result<(Date, u32)> {
    let why = format!(
        "'{text}' is not a start time; write it as Slurm's StartTime, YYYY-MM-DDTHH:MM, e.g. \"2026-09-07T02:00\""
    );
    let Some((d, t)) = text.trim().split_once('T') else { return bad(key, why) };
    let d = match Date::parse(d) {
        Ok(d) => d,
        // The shape is right but the day is not (30 February, year 0001): say that, as
        // dates elsewhere in a scenario do, rather than repeat the format.
        Err(e @ (DateError::NoSuchDay(_) | DateError::YearOutOfRange(_))) => return bad(key, e.to_string()),
        Err(DateError::Malformed(_)) => return bad(key, why),
    };
    let Some(t) = rec::parse_time_of_day(t) else { return bad(key, why) };
    Ok((d, t))
}

/// What [`apply`] makes of the recurring keys.
pub(super) struct Recurring {
    /// Whole-cluster maintenance with the whole-cluster reservations added.
    pub maintenance: Windows,
    /// The windows of the reservations of some nodes, per node.
    pub node_windows: NodeWindows,
    /// The time-of-day limits on the clock.
    pub time_limits: TimeLimits,
    /// Reservations and limits as one week (what can ever start).
    pub week: WeekPattern,
}

/// The week's occurrences of a reservation recurring `on` those days at `second` local
/// time for `len` seconds.
fn week_windows(on: Days, second: u32, len: SimTime, reservation: usize) -> Vec<WeekWindow> {
    (0..7)
        .filter(|&d| on.has(d))
        .map(|d| WeekWindow { start: d as SimTime * DAY + SimTime::from(second), len, reservation })
        .collect()
}

/// Whole-cluster maintenance with the whole-cluster reservations added, the windows of the
/// reservations of some nodes per node, the time-of-day limits, and all of them as a week.
pub(super) fn apply(
    c: &RawCampus,
    clock: Clock,
    horizon: SimTime,
    groups: &[NodeGroup],
    maintenance: Windows,
) -> Result<Recurring> {
    let mut week = WeekPattern::default();
    // Local wall time is the clock's own: clock 0 is `clock.seconds_of` = 0.
    let zero = clock.start.to_days() * 86_400 - clock.warmup as i64;
    let to_clock = |local: i64| local - zero;
    let last_day = clock.start.to_days() + ((horizon / DAY) + BEYOND_HORIZON_DAYS) as i64;
    let mut whole = Vec::new();
    let mut per_node: Vec<(u32, Windows)> = Vec::new();
    for (i, r) in c.reservations.iter().enumerate() {
        let k = format!("campus.reservations[{i}]");
        let (day, second) = start_time(&format!("{k}.start_time"), &r.start_time)?;
        let minutes = within(
            &format!("{k}.duration_minutes"),
            r.duration_minutes,
            1.0,
            7.0 * 1440.0,
            "minutes (Slurm's Duration)",
        )?;
        let on = match r.flags.trim().to_ascii_uppercase().as_str() {
            "DAILY" => Days::DAILY,
            "WEEKDAY" => Days::WEEKDAY,
            "WEEKEND" => Days::WEEKEND,
            "WEEKLY" => Days::one(rec::weekday(day.to_days())),
            _ => {
                return bad(
                    format!("{k}.flags"),
                    format!(
                        "'{}' is not allowed; give one of DAILY, WEEKLY, WEEKDAY, WEEKEND (how the reservation recurs)",
                        r.flags
                    ),
                );
            }
        };
        let longest = if on == Days::one(rec::weekday(day.to_days())) { 7.0 * 1440.0 } else { 1440.0 };
        if minutes > longest {
            return bad(
                format!("{k}.duration_minutes"),
                format!(
                    "{minutes} is not allowed with Flags={}; give at most {longest} minutes, or one occurrence would \
                     overlap the next",
                    r.flags.trim()
                ),
            );
        }
        let len = (minutes * 60.0).round() as SimTime;
        let windows = rec::occurrences(on, day.to_days(), (last_day - day.to_days()).max(0), second, len, to_clock);
        let in_week = week_windows(on, second, len, i);
        week.reservation_names.push(format!(
            "{k}{} ({} from {} for {minutes} min)",
            r.name.as_deref().map(|n| format!(" '{n}'")).unwrap_or_default(),
            r.flags.trim().to_ascii_uppercase(),
            r.start_time.trim()
        ));
        match (r.nodes, &r.node_group) {
            (None, None) => {
                whole.extend(windows);
                week.whole.extend(in_week);
            }
            (n, group) => {
                if c.placement == Placement::Pool {
                    return bad(
                        format!("{k}.nodes"),
                        "a reservation of some nodes needs placement = \"nodes\"; on the pool leave `nodes` and \
                         `node_group` out (the whole cluster)",
                    );
                }
                let (first, count) = node_range(&k, group.as_deref(), groups)?;
                let n = n.unwrap_or(count);
                if n == 0 || n > count {
                    return bad(
                        format!("{k}.nodes"),
                        format!("{n} is not allowed; give 1 to {count} (the nodes there)"),
                    );
                }
                per_node.extend((first..first + n).map(|node| (node, windows.clone())));
                let nodes: u32 = groups.iter().map(|g| g.nodes).sum();
                week.per_node.resize(nodes as usize, Vec::new());
                for node in first..first + n {
                    week.per_node[node as usize].extend(in_week.iter().copied());
                }
            }
        }
    }
    let node_windows = NodeWindows::new(groups.iter().map(|g| g.nodes).sum(), per_node);
    let maintenance = if whole.is_empty() {
        maintenance
    } else {
        whole.extend(maintenance);
        rec::union(whole)
    };

    let mut rules = Vec::new();
    let mut seen: Vec<(usize, u32, usize)> = Vec::new();
    for (i, t) in c.time_limits.iter().enumerate() {
        let k = format!("campus.time_limits[{i}]");
        if t.days.is_empty() {
            return bad(format!("{k}.days"), "give at least one day: DAILY, WEEKDAY, WEEKEND or Mon … Sun");
        }
        let mut days = Days(0);
        for d in &t.days {
            let Some(x) = Days::parse_word(d) else {
                return bad(
                    format!("{k}.days"),
                    format!("'{d}' is not allowed; give DAILY, WEEKDAY, WEEKEND or a day name Mon, Tue, … Sun"),
                );
            };
            days.0 |= x.0;
        }
        let Some(second) = rec::parse_time_of_day(&t.start) else {
            return bad(
                format!("{k}.start"),
                format!("'{}' is not a time of day; write it as HH:MM, e.g. \"07:00\"", t.start),
            );
        };
        for wd in (0..7).filter(|&wd| days.has(wd)) {
            if let Some(&(_, _, j)) = seen.iter().find(|s| s.0 == wd && s.1 == second) {
                return bad(
                    format!("{k}.start"),
                    format!(
                        "campus.time_limits[{j}] already opens a window on {} at {}; give each day and time one rule",
                        rec::DAY_NAMES[wd],
                        t.start.trim()
                    ),
                );
            }
            seen.push((wd, second, i));
        }
        let max = if t.max_hours.is_infinite() && t.max_hours > 0.0 {
            None
        } else {
            let h = within(&format!("{k}.max_hours"), t.max_hours, 1.0 / 60.0, 24.0 * 365.0, "hours (inf: no limit)")?;
            Some(hours_to_secs(h, 1))
        };
        rules.push(LimitRule { days, second_of_day: second, max, end_in_window: t.end_in_window });
        week.rule_names.push(format!(
            "{k} ({} from {}: {}{})",
            t.days.join(", "),
            t.start.trim(),
            max.map_or("no MaxTime".into(), |m| format!("MaxTime {} h", crate::units::secs_to_hours(m))),
            if t.end_in_window { ", jobs end in the window" } else { "" }
        ));
    }
    let first_day = clock.start.to_days() - (clock.warmup / DAY) as i64 - 1;
    let time_limits = TimeLimits::expand(&rules, first_day, last_day - first_day + 1, to_clock);
    week.rules = rules;
    Ok(Recurring { maintenance, node_windows, time_limits, week })
}
