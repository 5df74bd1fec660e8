//! Validation's side of [`crate::scenario::feasibility`]: every class (background and
//! group), and every place each policy may send a group class, checked once, with an
//! error that names the class's key and says what would fit.
//!
//! After these checks the engine's routing never meets a job that no place can take
//! (`policy.rs` relies on it), no job waits for ever in the campus queue (which kept the
//! node model's scheduler waking for ever: a run that never ended), and campus-only never
//! sends a job to the cloud.

use super::*;
use crate::scenario::feasibility::{
    CampusMisfit, SlurmAsk, WindowMisfit, campus_misfit, hours_words, offer_could_take, offer_surely_takes,
    window_misfit,
};
use crate::scenario::model::Timing;
use crate::scenario::week::when;

/// The largest job of a class: its GPUs and memory per GPU (tops of the supports).
fn largest(c: &JobClass) -> (u32, f64) {
    let (_, gpus) = c.gpus.support();
    (gpus.min(f64::from(u32::MAX)) as u32, c.vram_gb.support().1)
}

fn ask_of(c: &JobClass) -> SlurmAsk {
    SlurmAsk { account: c.account, partition: c.partition, nodes: c.nodes, gpus_per_node: c.gpus_per_node }
}

/// The key of a class that a misfit is best reported at.
fn misfit_key(key: &str, c: &JobClass, m: &CampusMisfit) -> String {
    match m {
        CampusMisfit::TooFewNodes { .. } if c.nodes > 0 => format!("{key}.nodes"),
        CampusMisfit::Memory { .. } => format!("{key}.vram_gb"),
        _ => format!("{key}.gpus"),
    }
}

/// What would fit instead, in words.
fn remedy(m: &CampusMisfit) -> &'static str {
    match m {
        CampusMisfit::TooManyGpus { .. } => "shrink the class or give the campus (its partition) more GPUs",
        CampusMisfit::TooFewNodes { .. } => {
            "ask for fewer nodes (more GPUs per node), or give the partition more nodes"
        }
        CampusMisfit::Memory { .. } => "lower the class's vram_gb or give its partition GPUs with more memory",
        CampusMisfit::AccountLimit { .. } => "raise the account's gpu_limit or shrink the class",
    }
}

/// The key of a class's walltime requests.
fn request_key(key: &str, c: &JobClass) -> String {
    match c.timing {
        Timing::Independent { .. } => format!("{key}.runtime_hours"),
        Timing::Joint(_) => format!("{key}.requests"),
    }
}

/// Why no job of a class can start, given the windows, and what would fit.
fn windows_text(campus: &Campus, w: &WindowMisfit) -> String {
    let by = campus.week.describe(w.longest.bound);
    let what = if w.longest.request == 0 {
        format!("no walltime request can ever start: {by} leaves no gap in the week")
    } else {
        format!(
            "the longest walltime request that can ever start is {} (from {}), held there by {by}",
            hours_words(w.longest.request),
            when(w.longest.at)
        )
    };
    format!(
        "its jobs ask at least {} of walltime (runtime × walltime_factor, within the partition's max_walltime), \
         and {what}; ask for at most that, or shorten or move the window (a job that cannot start would otherwise \
         wait until the windows' expansion ends, 400 days past the horizon)",
        hours_words(w.shortest_request)
    )
}

/// Every background class can start on the campus: it has no other place, and a job
/// that can never start would wait there for ever (and the run with it).
pub(super) fn check_background(classes: &[JobClass], campus: &Campus) -> Result<()> {
    for (i, c) in classes.iter().enumerate() {
        let key = format!("background.classes[{i}]");
        let (gpus, _) = largest(c);
        // Background jobs are placed without a memory check (they bring no model of their
        // own GPUs' memory), so only GPUs, nodes and limits decide.
        if let Some(m) = campus_misfit(campus, ask_of(c), gpus, 0.0) {
            return bad(
                misfit_key(&key, c, &m),
                format!(
                    "class '{}' can never start on the campus (its only place): jobs of up to {gpus} GPUs, but {m}; {}",
                    c.name,
                    remedy(&m)
                ),
            );
        }
        if let Some(w) = window_misfit(campus, c, ask_of(c)).filter(|w| w.all) {
            return bad(
                request_key(&key, c),
                format!(
                    "class '{}' can never start on the campus (its only place): {}",
                    c.name,
                    windows_text(campus, &w)
                ),
            );
        }
    }
    Ok(())
}

/// A background trace's jobs can all start on the campus: other groups' jobs in the
/// "others" account, the group's own (marked by `group_user` / `group_account`) in the
/// group's, all in the first partition without a node shape. (A group job of the log has
/// no class, so its policy's offers are not a place it is sure to have.)
pub(super) fn check_trace(trace: &crate::scenario::trace_source::TraceSource, campus: &Campus) -> Result<()> {
    let others = campus.accounts.iter().position(|a| a.name == OTHERS_ACCOUNT).expect("always present") as u16;
    for group in [false, true] {
        let account = if group { campus.group_account } else { others };
        let ask = SlurmAsk { account, partition: 0, nodes: 0, gpus_per_node: 0 };
        let Some(gpus) = trace.jobs.iter().filter(|j| j.group == group).map(|j| j.gpus).max() else { continue };
        if let Some(m) = campus_misfit(campus, ask, gpus, 0.0) {
            let whose = if group { "the group's" } else { "other groups'" };
            return bad(
                "background.trace.path",
                format!(
                    "the log has {whose} jobs of {gpus} GPUs, which can never start on the campus: {m}; give the \
                     cluster the log ran on (or a larger one), or drop those jobs from the log"
                ),
            );
        }
    }
    Ok(())
}

/// Under policy `p` (at `key`), every group class has a place that can always take its
/// largest job: the campus, or an offer the policy may use that is there whenever a job
/// arrives. Campus-only has the campus only.
pub(super) fn check_group(
    key: &str,
    p: &Policy,
    classes: &[JobClass],
    campus: &Campus,
    offers: &[Offer],
) -> Result<()> {
    for (ci, c) in classes.iter().enumerate() {
        let (gpus, vram) = largest(c);
        let on_campus = campus_misfit(campus, ask_of(c), gpus, vram);
        let windows = match on_campus {
            None => window_misfit(campus, c, ask_of(c)).filter(|w| w.all),
            Some(_) => None,
        };
        if on_campus.is_none() && windows.is_none() {
            continue;
        }
        let places = p.places();
        let sure = places.iter().any(|t| match t {
            Destination::Campus => false,
            Destination::Offer(o) => offer_surely_takes(&offers[*o], p, *o, gpus, vram),
        });
        if sure {
            continue;
        }
        if let Some(w) = windows {
            let campus_only = if p.kind == PolicyKind::CampusOnly {
                "campus-only never uses the cloud"
            } else {
                "no offer the policy may use is there for every job"
            };
            return bad(
                request_key(&format!("workload.classes[{ci}]"), c),
                format!(
                    "class '{}' can never start under policy '{}' ({key}): {campus_only}, and on the campus {}",
                    c.name,
                    p.name,
                    windows_text(campus, &w)
                ),
            );
        }
        let misfit = on_campus.expect("a misfit or windows, by the test above");
        let where_ = names(places.iter().map(|t| match t {
            Destination::Campus => "campus",
            Destination::Offer(o) => offers[*o].name.as_str(),
        }));
        let part = campus.partition(c.partition);
        let (room, memory) = match campus.placement {
            Placement::Pool => (campus.gpus, campus.vram_gb),
            Placement::Nodes => (part.gpus, part.vram_gb),
        };
        // Offers that could take the job but are not always there.
        let part_time: Vec<&str> = places
            .iter()
            .filter_map(|t| match t {
                Destination::Offer(o) if offer_could_take(&offers[*o], gpus, vram) => Some(offers[*o].name.as_str()),
                _ => None,
            })
            .collect();
        let part_time = if part_time.is_empty() {
            String::new()
        } else {
            format!(
                "; {} is rented only for some months or when needed, so a job arriving outside a rental, or needing \
                 longer than one, would wait in its line for ever",
                names(part_time.into_iter())
            )
        };
        let campus_only = if p.kind == PolicyKind::CampusOnly { " (campus-only never uses the cloud)" } else { "" };
        return bad(
            format!("workload.classes[{ci}]"),
            format!(
                "class '{}' needs up to {gpus} GPUs with {vram} GB each, which no place policy '{}' ({key}) may use \
                 can serve ({where_}){campus_only}; campus has {room} GPUs of {memory} GB{}; on campus: {misfit}{part_time}; \
                 so {}, or add an offer that fits",
                c.name,
                p.name,
                campus.group_gpu_limit.map(|l| format!(" and a group limit of {l}")).unwrap_or_default(),
                remedy(&misfit),
            ),
        );
    }
    Ok(())
}
