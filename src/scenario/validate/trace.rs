//! Reading `[background.trace]` once, when the scenario is checked: the log, its
//! conversion to jobs, the group's own jobs in it, time shift and load scale.

use super::*;

/// Reads and converts `[background.trace]` once. The path becomes absolute in the
/// resolved scenario, so `run.toml` and shard folders can be run from anywhere.
pub(super) fn trace_source(
    t: &mut RawTrace,
    base: &std::path::Path,
    campus: &RawCampus,
    sim: &RawSimulation,
) -> Result<crate::scenario::trace_source::TraceSource> {
    use crate::trace::convert::{self, Conversion, Units};
    use crate::trace::{self, Format, ReadOptions, bootstrap};
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
    let units = match t.units {
        TraceUnits::Auto => Units::Auto,
        TraceUnits::Procs => Units::Procs,
        TraceUnits::Gpus => Units::Gpus,
    };
    let mut converted = convert::to_jobs(&log, &Conversion { units, procs_per_gpu, ..Conversion::new(gpus) });
    let scale =
        within(&format!("{key}.scale"), t.scale, 0.0, 100.0, "a load scale (0.5 keeps half the jobs, 2 doubles them)")?;
    if scale > 1.0 && t.mode == TraceMode::Replay {
        return bad(
            format!("{key}.scale"),
            format!(
                "{scale} is not allowed with mode = \"replay\": a replay has one history, and copying its jobs would \
                 add twins, not independent load; use mode = \"bootstrap\" (independent resamples are superposed), \
                 or a scale of at most 1 (thinning)"
            ),
        );
    }
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
        TraceBlock::Day => bootstrap::BlockLength::Day,
        TraceBlock::Week => bootstrap::BlockLength::Week,
    };
    if t.mode == TraceMode::Bootstrap && extent < block.seconds() * 2 {
        return bad(
            format!("{key}.block"),
            format!(
                "the log spans {:.1} days: too short to resample whole {}s; use block = \"day\" or mode = \"replay\"",
                extent as f64 / 86_400.0,
                if block == bootstrap::BlockLength::Week { "week" } else { "day" }
            ),
        );
    }
    // The weekday of the scenario clock's 0: the start date minus the warm-up (whole hours,
    // as validation rounds it; a warm-up of part days shifts block starts off midnight).
    let warmup_hours = (sim.warmup_days.max(0.0) * 24.0).round() as i64;
    let weekday = Date::parse(&sim.start_date)
        .map_or(0, |d| ((d.to_days() * 24 - warmup_hours).div_euclid(24) + 3).rem_euclid(7) as u8);
    let origin_local = log.info.local_time(converted.origin);
    let phase = origin_local.map_or(0, |origin| bootstrap::aligned_phase(origin, block, weekday));
    let (season_window_weeks, undated) = draw_rule(t, origin_local.is_some(), &path)?;
    // Record the path absolute so the resolved scenario runs from anywhere.
    t.path = std::fs::canonicalize(&path).unwrap_or(path).display().to_string();
    Ok(crate::scenario::trace_source::TraceSource {
        jobs: converted.jobs,
        extent,
        phase,
        mode: t.mode,
        block,
        season_window_weeks,
        origin_local,
        undated,
        content_hash,
        scale,
    })
}

/// How a bootstrap draws blocks: `(season window in weeks, or None for uniform; uniform
/// only because the log has no dates)`. A season draw is recorded in the resolved
/// scenario (`draw = "season"` and its window), so `run.toml` says what was used.
fn draw_rule(t: &mut RawTrace, dated: bool, path: &std::path::Path) -> Result<(Option<u32>, bool)> {
    let key = "background.trace";
    if t.mode == TraceMode::Replay {
        if t.draw.is_some() || t.season_window_weeks.is_some() {
            let which = if t.draw.is_some() { "draw" } else { "season_window_weeks" };
            return bad(format!("{key}.{which}"), "only a bootstrap draws blocks; a replay keeps the log's own dates");
        }
        return Ok((None, false));
    }
    let undated = || {
        format!(
            "'{}' has no calendar dates (an SWF log without UnixStartTime, or a CSV log with relative times), so its \
             blocks cannot be matched to the time of year; use draw = \"uniform\"",
            path.display()
        )
    };
    let window = match t.season_window_weeks {
        Some(w) if w > MAX_SEASON_WINDOW_WEEKS => {
            return bad(
                format!("{key}.season_window_weeks"),
                format!(
                    "{w} weeks is not allowed; use 0 (the same week of the year) to {MAX_SEASON_WINDOW_WEEKS} (any time of year)"
                ),
            );
        }
        w => w,
    };
    match (t.draw, dated) {
        (Some(TraceDraw::Uniform), _) => match window {
            Some(_) => bad(
                format!("{key}.season_window_weeks"),
                "applies only to draw = \"season\"; a uniform draw takes blocks from anywhere in the log",
            ),
            None => Ok((None, false)),
        },
        (Some(TraceDraw::Season), false) => bad(format!("{key}.draw"), undated()),
        (None, false) if window.is_some() => bad(format!("{key}.season_window_weeks"), undated()),
        (None, false) => Ok((None, true)),
        (_, true) => {
            let w = window.unwrap_or(crate::trace::bootstrap::DEFAULT_SEASON_WINDOW_WEEKS);
            t.draw = Some(TraceDraw::Season);
            t.season_window_weeks = Some(w);
            Ok((Some(w), false))
        }
    }
}

/// The widest season window: 26 weeks either side reaches every time of year.
const MAX_SEASON_WINDOW_WEEKS: u32 = 26;
