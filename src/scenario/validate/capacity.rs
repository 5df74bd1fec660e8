//! Checks of the capacity keys (node failures, drains, outages, scheduler cycle, start
//! delay) and of the accounts' patience and balking keys.

use super::*;
use crate::scenario::capacity::{Capacity, Drain, NodeFailures, Outages, Patience};

/// Longest time a failure, repair or outage draw may take, in hours (ten years).
const MAX_HOURS: f64 = 87_600.0;

/// Shortest mean time between two failures of one node, or between two outages: one
/// hour. Each failure or outage is an event that kills jobs and re-plans the campus, and
/// a renewal process with mean gap m makes about horizon / m of them whatever the shape
/// of its distribution; a mean of seconds (each draw is rounded up to 1 s) made a 30-day
/// run of 48 nodes take millions of failures and never end (issue 27). A node or a
/// cluster that fails more than hourly is not in service at all: model it as fewer
/// nodes.
pub const MIN_MEAN_BETWEEN_H: f64 = 1.0;
/// Shortest mean repair time and outage duration: one minute (1/60 h). Below the
/// scheduler's own periods (backfill every 30 s, priorities every few minutes) a repair
/// changes nothing a user could see, and only multiplies events.
pub const MIN_MEAN_DURATION_H: f64 = 1.0 / 60.0;

/// A distribution of hours whose mean is at least `min_mean` (with the reason `why`) and
/// at most [`MAX_HOURS`].
fn hours_at_least(key: &str, spec: &DistSpec, min_mean: f64, why: &str) -> Result<Sampler> {
    let s = sampler(key, spec, 0.0, f64::INFINITY, "hours must be ≥ 0")?;
    if !(s.mean() > 0.0 && s.mean() <= MAX_HOURS) {
        return bad(
            key,
            format!("a mean of {} h is not allowed; give a mean above 0 and at most {MAX_HOURS} h", s.mean()),
        );
    }
    if s.mean() < min_mean {
        return bad(
            key,
            format!("a mean of {} h is not allowed; give at least {}: {why}", s.mean(), hours_words(min_mean)),
        );
    }
    Ok(s)
}

/// `1 h` or `1 minute (1/60 h)`, for messages.
fn hours_words(h: f64) -> String {
    if h >= 1.0 { format!("{h} h") } else { format!("{} minute (1/60 h)", (h * 60.0).round()) }
}

/// Why failures and outages may not come more often than hourly (for messages).
const BETWEEN_WHY: &str = "each one kills jobs and re-plans the campus, so shorter gaps make millions of events \
     (a node failing more than hourly is not in service: model fewer nodes)";
/// Why repairs and outages may not be shorter than a minute (for messages).
const DURATION_WHY: &str = "shorter than the scheduler's own periods, it changes nothing but the number of events";

fn hours(key: &str, spec: &DistSpec) -> Result<Sampler> {
    hours_at_least(key, spec, 0.0, "")
}

/// The campus's capacity model.
pub(super) fn capacity(c: &RawCampus, clock: Clock, horizon: SimTime, groups: &[NodeGroup]) -> Result<Capacity> {
    let nodes_only = |key: &str| -> Result<()> {
        if c.placement == Placement::Pool {
            return bad(key, "needs placement = \"nodes\": the pool has no nodes to fail or drain");
        }
        Ok(())
    };
    let node_failures = match &c.node_failures {
        None => None,
        Some(f) => {
            let k = "campus.node_failures";
            nodes_only(k)?;
            let checkpoint = match f.checkpoint_interval_hours {
                None => None,
                Some(h) => Some(hours_to_secs(
                    within(&format!("{k}.checkpoint_interval_hours"), h, 1.0 / 60.0, MAX_HOURS, "hours")?,
                    60,
                )),
            };
            Some(NodeFailures {
                between_h: hours_at_least(
                    &format!("{k}.time_between_failures_hours"),
                    &f.time_between_failures_hours,
                    MIN_MEAN_BETWEEN_H,
                    BETWEEN_WHY,
                )?,
                repair_h: hours_at_least(
                    &format!("{k}.repair_hours"),
                    &f.repair_hours,
                    MIN_MEAN_DURATION_H,
                    DURATION_WHY,
                )?,
                checkpoint,
            })
        }
    };
    let mut drains = Vec::new();
    for (i, d) in c.drains.iter().enumerate() {
        let k = format!("campus.drains[{i}]");
        nodes_only(&k)?;
        let a = date(&format!("{k}.start"), &d.start)?;
        let b = date(&format!("{k}.end"), &d.end)?;
        if b < a {
            return bad(
                format!("{k}.end"),
                format!("'{b}' is before the start '{a}'; the end date must not come before the start"),
            );
        }
        let (first, count) = node_range(&k, d.node_group.as_deref(), groups)?;
        if d.nodes == 0 || d.nodes > count {
            return bad(
                format!("{k}.nodes"),
                format!("{} is not allowed; give 1 to {count} (the nodes there)", d.nodes),
            );
        }
        let start = clock.seconds_of(a).max(0) as SimTime;
        let end = (clock.seconds_of(b.add_days(1)).max(0) as SimTime).min(horizon + 400 * DAY);
        if end > start {
            drains.push(Drain { start, end, nodes: (first..first + d.nodes).collect() });
        }
    }
    drains.sort_by_key(|d| d.start);
    let outages = match &c.outages {
        None => None,
        Some(o) => Some(Outages {
            between_h: hours_at_least(
                "campus.outages.time_between_hours",
                &o.time_between_hours,
                MIN_MEAN_BETWEEN_H,
                BETWEEN_WHY,
            )?,
            duration_h: hours_at_least(
                "campus.outages.duration_hours",
                &o.duration_hours,
                MIN_MEAN_DURATION_H,
                DURATION_WHY,
            )?,
            kills_jobs: o.kills_jobs,
        }),
    };
    let secs = |key: &str, v: Option<f64>| -> Result<SimTime> {
        Ok(within(key, v.unwrap_or(0.0), 0.0, 86_400.0, "seconds")?.round() as SimTime)
    };
    Ok(Capacity {
        node_failures,
        drains,
        outages,
        outage_windows: Vec::new(),
        cycle: secs("campus.scheduler_cycle_seconds", c.scheduler_cycle_seconds)?,
        min_start_delay: secs("campus.min_start_delay_seconds", c.min_start_delay_seconds)?,
    })
}

/// An account's patience and balking.
pub(super) fn patience(k: &str, a: &RawAccount) -> Result<Patience> {
    Ok(Patience {
        patience_h: match &a.patience_hours {
            None => None,
            Some(spec) => Some(hours(&format!("{k}.patience_hours"), spec)?),
        },
        balk_gpu_hours: match a.balk_gpu_hours_ahead {
            None => None,
            Some(v) => Some(positive(&format!("{k}.balk_gpu_hours_ahead"), v)?),
        },
        balk_wait: match a.balk_wait_hours {
            None => None,
            Some(v) => {
                Some(hours_to_secs(within(&format!("{k}.balk_wait_hours"), v, 1.0 / 3600.0, MAX_HOURS, "hours")?, 1))
            }
        },
    })
}
