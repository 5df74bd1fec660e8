//! Writes a [`LogFit`] as a commented scenario file that `burstsim run` accepts: the log
//! becomes `[background]` (the other groups' load, with its monthly seasons and hour-of-week
//! profile), with a commented template for the group's own jobs.

use std::fmt::Write as _;

use super::{ClassFit, LogFit};
use crate::evidence::mle::Fit;
use crate::scenario::dist::{DistSpec, DistTable};
use crate::scenario::requests::Requests;

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const LAST_DAY: [u8; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A distribution spec as an inline TOML value.
fn spec(s: &DistSpec) -> String {
    let list = |v: &[f64]| v.iter().map(|x| num(*x)).collect::<Vec<_>>().join(", ");
    match &s.0 {
        DistTable::Fixed { value } => num(*value),
        DistTable::Lognormal { mean, cv } => {
            format!("{{ kind = \"lognormal\", mean = {}, cv = {} }}", num(*mean), num(*cv))
        }
        DistTable::Gamma { shape, scale } => {
            format!("{{ kind = \"gamma\", shape = {}, scale = {} }}", num(*shape), num(*scale))
        }
        DistTable::Weibull { shape, scale } => {
            format!("{{ kind = \"weibull\", shape = {}, scale = {} }}", num(*shape), num(*scale))
        }
        DistTable::Choice { values, weights } => {
            format!("{{ kind = \"choice\", values = [{}], weights = [{}] }}", list(values), list(weights))
        }
        DistTable::Empirical { samples } => format!("{{ kind = \"empirical\", samples = [{}] }}", list(samples)),
        DistTable::Exponential { mean } => format!("{{ kind = \"exponential\", mean = {} }}", num(*mean)),
        other => toml::to_string(other).unwrap_or_default(),
    }
}

/// Six significant digits, always a valid TOML float or integer.
fn num(x: f64) -> String {
    if x == x.round() && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let digits = (5 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{x:.digits$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn fit_cell(f: &Fit) -> String {
    format!("{:>10.0} {:>6.3}", f.aic, f.ks)
}

/// The scheduler cycle, outages and patience the log shows ([`crate::evidence::infer`]).
fn write_capacity(s: &mut String, fit: &LogFit) {
    match fit.cycle {
        Some((c, share)) => {
            let _ = writeln!(
                s,
                "scheduler_cycle_seconds = {c}   # {:.1}% of the log's positive waits are multiples of {c} s",
                share * 100.0
            );
        }
        None => {
            let _ = writeln!(s, "# No scheduler cycle: the log's waits show no common granularity (or too few waits).");
        }
    }
    let p = &fit.patience;
    match p.mean_h {
        Some(mean) => {
            let _ = writeln!(
                s,
                "\n# Patience: {} of {} jobs ({:.1}%) were cancelled (status 5); exponential patience by maximum\n\
                 # likelihood, every recorded wait exposed to cancelling: mean = total wait ÷ cancellations.",
                p.cancelled,
                p.jobs,
                p.share() * 100.0
            );
            let _ = writeln!(
                s,
                "[[campus.accounts]]\nname = \"others\"\npatience_hours = {}",
                spec(&DistSpec::exponential(mean))
            );
        }
        None => {
            let _ = writeln!(
                s,
                "# No patience: {} of {} jobs were cancelled (status 5), so the log shows no reneging.",
                p.cancelled, p.jobs
            );
        }
    }
    if let Some(o) = &fit.outages {
        let _ = writeln!(
            s,
            "\n# Outages inferred from the log: {} stretches of at least 1 h in which jobs waited, the first of\n\
             # them fitted the free capacity and nothing started ({:.0} h of {:.0} h; rule: docs/VALIDATION.md).\n\
             # Time between outages: exponential, mean = hours without an outage ÷ outages;\n\
             # durations: {}.",
            o.count, o.hours, o.period_hours, o.duration_note
        );
        let _ = writeln!(s, "[campus.outages]");
        let _ = writeln!(s, "time_between_hours = {}", spec(&DistSpec::exponential(o.mean_between_h)));
        let _ = writeln!(s, "duration_hours = {}", spec(&o.duration));
        let _ = writeln!(s, "kills_jobs = false   # the log's jobs ran through them: only the scheduler stopped");
    } else {
        let _ = writeln!(s, "# No outages inferred (the log records no waits, or shows no such stretch).");
    }
}

/// One `[[<table>.classes]]` entry: `rate` is its `load_share` or `jobs_per_week` line;
/// its jobs are counted as a share of `of` jobs (`of_what`, e.g. "the log").
fn write_class(s: &mut String, c: &ClassFit, table: &str, rate: &str, (of, of_what): (usize, &str)) {
    let name = if table == "workload" { group_class_name(c) } else { c.name.clone() };
    let _ = writeln!(s, "\n[[{table}.classes]]");
    let _ = writeln!(s, "name = \"{name}\"");
    // With requests, run time and request are drawn together from the log's pairs; the
    // parametric fit stays in the header for reference.
    let requests = c.requests.as_ref().map(|r| {
        let round = |v: &[f64]| v.iter().map(parse_num).collect::<Vec<f64>>();
        let hours = round(&r.hours);
        let used: Vec<Vec<f64>> = r.used_fraction.iter().map(|row| round(row)).collect();
        let mean = Requests::new(hours.clone(), used.clone()).map_or(f64::NAN, |q| q.mean_runtime_h());
        (hours, used, mean)
    });
    let fitted_mean = requests.as_ref().map_or(c.chosen.mean(), |r| r.2);
    let _ = writeln!(
        s,
        "# {} jobs ({:.1}% of {}); runtime mean {:.3} h in the log, {:.3} h fitted",
        c.jobs,
        100.0 * c.jobs as f64 / of as f64,
        of_what,
        c.mean_runtime_h,
        fitted_mean
    );
    if let Some((lo, hi)) = c.request_band {
        let h = |x: Option<f64>, none: &str| x.map_or(none.to_string(), |v| format!("{} h", num(v)));
        let _ = writeln!(
            s,
            "# Request band ({}, {}]: cut at the log's request quantiles (docs/TRACES.md, \"Request bands\")",
            h(lo, "0"),
            h(hi, "∞")
        );
    }
    let _ = writeln!(s, "{rate}");
    if let Some(how) = c.profile.as_ref().and_then(super::ArrivalProfile::hourly_168) {
        let _ =
            writeln!(s, "# Its arrival rate by hour of week (local time): the log's, times the band's share of the");
        let _ = writeln!(s, "# arrivals around each hour (docs/TRACES.md); it replaces the background's own profile.");
        write_profile(s, &how);
    }
    let gpus = if c.gpu_counts.len() == 1 {
        num(f64::from(c.gpu_counts[0].0))
    } else {
        spec(&DistSpec::choice(
            c.gpu_counts.iter().map(|(g, _)| f64::from(*g)).collect(),
            c.gpu_counts.iter().map(|(_, n)| *n as f64).collect(),
        ))
    };
    let _ = writeln!(s, "gpus = {gpus}");
    match requests {
        Some((hours, used, _)) => {
            let list = |v: &[f64]| v.iter().map(|x| num(*x)).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                s,
                "# Requested time and run time drawn together (docs/SCENARIOS.md, \"Requests drawn with the run\n\
                 # time\"): the log's requests, {} quantiles (hours), then run time ÷ request from the row of\n\
                 # the request's slice ({} rows of {} quantiles). The best parametric run-time fit ({}, KS {:.3})\n\
                 # is in the table above, not used.",
                hours.len(),
                used.len(),
                used.first().map_or(0, Vec::len),
                c.chosen.family.name(),
                c.chosen.ks
            );
            let _ = writeln!(s, "[{table}.classes.requests]");
            let _ = writeln!(s, "hours = [{}]", list(&hours));
            let _ = writeln!(s, "used_fraction = [");
            for row in &used {
                let _ = writeln!(s, "  [{}],", list(row));
            }
            let _ = writeln!(s, "]");
        }
        None => {
            let _ = writeln!(
                s,
                "# {}: maximum likelihood, chosen by AIC with the mean kept; KS {:.3}",
                c.chosen.family.name(),
                c.chosen.ks
            );
            let _ = writeln!(s, "runtime_hours = {}", spec(&c.chosen.spec()));
            let _ = writeln!(s, "walltime_factor = 1.5   # (assumption) the log records no requested times");
        }
    }
}

/// `hourly_profile = [...]`, one row of 24 per weekday.
fn write_profile(s: &mut String, how: &[f64]) {
    let _ = writeln!(s, "hourly_profile = [");
    for (d, name) in WEEKDAYS.iter().enumerate() {
        // Hours the log never covered (a log shorter than a week) get the mean rate.
        let row: Vec<String> = how[d * 24..d * 24 + 24]
            .iter()
            .map(|v| if v.is_finite() { format!("{v:.2}") } else { "1.00".into() })
            .collect();
        let _ = writeln!(s, "  {},   # {name}", row.join(", "));
    }
    let _ = writeln!(s, "]");
}

/// `x` as [`num`] writes it, read back (what a loaded scenario will hold).
fn parse_num(x: &f64) -> f64 {
    num(*x).parse().unwrap_or(*x)
}

/// The name a class of the group's own jobs gets in `[[workload.classes]]` (`our-size-1`).
pub fn group_class_name(c: &ClassFit) -> String {
    format!("our-{}", c.name)
}

/// The scenario text: the fitted campus on one pool of GPUs, the background, and the
/// group's workload when one was named (else a commented template). [`super::lab::to_toml`]
/// writes the file `burstsim fit` writes, which adds the lab's sections.
pub fn to_toml(fit: &LogFit) -> String {
    compose(fit, &TextLayout::default())
}

/// How [`compose`] writes a fit beyond [`to_toml`]'s text.
#[derive(Default)]
pub(super) struct TextLayout<'a> {
    /// Nodes of this many GPUs (`placement = "nodes"`) instead of one pool.
    pub gpus_per_node: Option<u32>,
    /// Lines added to the header (without the leading `# `).
    pub header: &'a [String],
    /// The lab's sections follow: no template for the group's jobs, and no word that the
    /// offers and policies are still to be added.
    pub lab: bool,
}

/// The scenario text as `layout` says (see [`to_toml`]).
pub(super) fn compose(fit: &LogFit, layout: &TextLayout) -> String {
    let mut s = String::new();
    let o = &fit.options;
    let unit = if fit.counted_gpus { "GPUs" } else { "processors (1 processor = 1 simulated GPU)" };
    let _ = writeln!(s, "# Scenario fitted by `burstsim fit` from {}", o.source);
    let _ = writeln!(
        s,
        "# burstsim {}. Every figure below is estimated from the log unless marked (assumption).",
        crate::VERSION
    );
    let _ = writeln!(s, "# Reference for every key: docs/SCENARIOS.md; how the fit works: docs/TRACES.md.");
    for line in layout.header {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "#");
    match &fit.group {
        None => {
            let _ = writeln!(s, "# Log: {} jobs used over {:.1} days; job sizes in {unit}.", fit.jobs, fit.span_days);
        }
        Some(g) => {
            let _ = writeln!(
                s,
                "# Log: {} jobs of other groups (the background) and {} of {} (the group) over {:.1} days; job sizes in {unit}.",
                fit.jobs, g.jobs, g.mark, fit.span_days
            );
        }
    }
    let in_classes: usize = fit.classes.iter().map(|c| c.jobs).sum();
    if in_classes < fit.jobs {
        let _ =
            writeln!(s, "#   left out: {} jobs (in size classes too small or uniform to fit)", fit.jobs - in_classes);
    }
    if let Some(g) = &fit.group {
        let ours: usize = g.classes.iter().map(|c| c.jobs).sum();
        if ours < g.jobs {
            let _ = writeln!(
                s,
                "#   left out: {} of the group's jobs (in size classes too small or uniform to fit)",
                g.jobs - ours
            );
        }
    }
    for (why, n) in &fit.left_out {
        let _ = writeln!(s, "#   left out: {n} jobs ({why})");
    }
    let _ = writeln!(s, "# Cluster: {} from {}.", fit.cluster_gpus, fit.cluster_from);
    for w in &fit.warnings {
        let _ = writeln!(s, "# Warning: {w}.");
    }
    let _ = writeln!(
        s,
        "# Offered load = Σ(size × run time) / (cluster × span) = {:.4}; {:.1} jobs per week.",
        fit.offered_load,
        fit.jobs as f64 / fit.span_days * 7.0
    );
    let _ = writeln!(s, "#");
    let _ = writeln!(s, "# Runtime (hours) by maximum likelihood; used: the lowest AIC among the fits whose mean is");
    let _ = writeln!(s, "# within 20% of the log's (else the closest mean), so the load implies the log's job counts.");
    if fit.classes.iter().any(|c| c.requests.is_some()) {
        let _ = writeln!(s, "# The log records requests, so the classes draw run times with them (`requests`) and the");
        let _ = writeln!(s, "# chosen fits are for reference only.");
    }
    let _ = writeln!(s, "# KS = Kolmogorov-Smirnov distance between the fit and the log (0 = perfect).");
    let _ = writeln!(
        s,
        "#   {:<14} {:>6} {:>17} {:>17} {:>17}  {:<9} {:>9} {:>9}",
        "class", "jobs", "lognormal AIC KS", "gamma AIC KS", "weibull AIC KS", "chosen", "mean log", "mean fit"
    );
    let ours = fit.group.iter().flat_map(|g| g.classes.iter().map(|c| (format!("our-{}", c.name), c)));
    for (name, c) in fit.classes.iter().map(|c| (c.name.clone(), c)).chain(ours) {
        let _ = writeln!(
            s,
            "#   {:<14} {:>6} {} {} {}  {:<9} {:>9.3} {:>9.3}",
            name,
            c.jobs,
            fit_cell(&c.fits[0]),
            fit_cell(&c.fits[1]),
            fit_cell(&c.fits[2]),
            c.chosen.family.name(),
            c.mean_runtime_h,
            c.chosen.mean()
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "name = {:?}", o.name);
    let what = if fit.group.is_some() { "Background load and the group's workload" } else { "Background load" };
    let _ = writeln!(s, "description = {:?}", format!("{what} fitted from {}", o.source));
    let _ = writeln!(s, "\n[simulation]");
    let start = fit.start.map_or_else(|| "2026-09-01".to_string(), |d| d.to_string());
    let note = if fit.start.is_some() {
        "the log's first submission (local date)"
    } else {
        "(assumption: the log has no calendar dates)"
    };
    let _ = writeln!(s, "start_date = \"{start}\"   # {note}");
    let horizon = match o.horizon_days {
        Some(h) => {
            let _ = writeln!(s, "horizon_days = {}   # asked for with --horizon-days", num(h));
            h
        }
        None => {
            let _ = writeln!(
                s,
                "# horizon_days is left out: one calendar year from start_date (the log spans {:.1} days)",
                fit.span_days
            );
            365.0
        }
    };
    let _ = writeln!(
        s,
        "warmup_days = {}   # the queue fills up from empty; not measured",
        (horizon / 10.0).floor().min(14.0)
    );
    let _ = writeln!(s, "replications = 10\nseed = 1");
    let _ = writeln!(s, "\n[campus]");
    match layout.gpus_per_node {
        None => {
            let _ = writeln!(s, "gpus = {}", fit.cluster_gpus);
        }
        Some(g) => {
            let _ = writeln!(s, "placement = \"nodes\"   # Slurm's node model, asked for with --gpus-per-node");
            let _ = writeln!(
                s,
                "nodes = {}   # × gpus_per_node = the cluster's {} GPUs",
                fit.cluster_gpus / g,
                fit.cluster_gpus
            );
            let _ = writeln!(s, "gpus_per_node = {g}");
        }
    }
    let _ = writeln!(s, "vram_gb = 80                  # (assumption) not in the log");
    let _ = writeln!(s, "scheduler = \"easy-backfill\"   # (assumption) what most clusters run");
    write_capacity(&mut s, fit);
    let _ = writeln!(s, "\n[background]");
    let whose =
        if fit.group.is_some() { "The other groups' offered load in the log" } else { "The log's offered load" };
    let _ = writeln!(s, "# {whose}; the monthly multipliers below average 1 over its period.");
    let _ = writeln!(s, "offered_load = {}", num(fit.offered_load));
    let _ = writeln!(s, "season_overlap = \"max\"");
    if let Some(how) = fit.profile.hourly_168() {
        match fit.profile {
            super::ArrivalProfile::HourOfDay(_) => {
                let _ = writeln!(s, "# Arrival rate by hour of day relative to the mean (local time), the same every");
                let _ = writeln!(s, "# weekday (too few jobs for hour of week; see the warnings above), one row per");
                let _ = writeln!(s, "# day, hours 00–23; it multiplies the monthly seasons below.");
            }
            _ => {
                let _ =
                    writeln!(s, "# Arrival rate by hour of week relative to the mean (local time), one row per day,");
                let _ = writeln!(s, "# hours 00–23; it multiplies the monthly seasons below.");
            }
        }
        write_profile(&mut s, &how);
    }
    for c in &fit.classes {
        write_class(
            &mut s,
            c,
            "background",
            &format!(
                "load_share = {}   # share of {} work",
                num(c.work_share),
                if fit.group.is_some() { "the other groups'" } else { "the log's" }
            ),
            (fit.jobs, if fit.group.is_some() { "the other groups' jobs" } else { "the log" }),
        );
    }
    if !fit.months.is_empty() {
        let _ = writeln!(
            s,
            "\n# Monthly arrival-rate multipliers: work (GPU-hours) submitted per day in the month ÷ the\n# log's mean, so each month keeps its load (docs/TRACES.md, \"Seasons\")."
        );
        for m in &fit.months {
            let i = m.month as usize - 1;
            let _ = writeln!(s, "[[background.seasons]]");
            let _ = writeln!(s, "name = \"month-{}\"", MONTHS[i]);
            let _ = writeln!(s, "start = \"{:02}-01\"\nend = \"{:02}-{:02}\"", m.month, m.month, LAST_DAY[i]);
            let why = if m.days >= super::MIN_MONTH_DAYS && m.jobs >= super::MIN_MONTH_JOBS {
                format!("{} jobs over {:.1} days", m.jobs, m.days)
            } else if m.days > 0.0 {
                format!("too little data ({} jobs over {:.1} days): the mean rate", m.jobs, m.days)
            } else {
                "no data in the log".into()
            };
            let _ = writeln!(s, "multiplier = {}   # {why}", num((m.multiplier * 1000.0).round() / 1000.0));
        }
    }
    match &fit.group {
        Some(g) => {
            let _ = writeln!(s, "\n# The group's own jobs: those of {} in the log ({} jobs), by size.", g.mark, g.jobs);
            let _ = writeln!(
                s,
                "# Memory, data sizes, deadlines and job kind are not in the log: add them (docs/SCENARIOS.md §6),"
            );
            if layout.lab {
                let _ = writeln!(s, "# Arrivals are flat over the week.");
            } else {
                let _ = writeln!(
                    s,
                    "# and the cloud offers and policies to compare (§10, §11). Arrivals are flat over the week."
                );
            }
            for c in &g.classes {
                let per_week = c.jobs as f64 / fit.span_days * 7.0;
                write_class(
                    &mut s,
                    c,
                    "workload",
                    &format!("jobs_per_week = {}", num((per_week * 1000.0).round() / 1000.0)),
                    (g.jobs, "the group's jobs"),
                );
            }
        }
        None if layout.lab => {}
        None => {
            let _ = writeln!(s, "\n# Your group's own jobs go here (see docs/SCENARIOS.md §6 and §9), e.g.:");
            let _ = writeln!(s, "# [[workload.classes]]\n# name = \"our-training\"\n# jobs_per_week = 10\n# gpus = 2");
            let _ = writeln!(s, "# runtime_hours = {{ kind = \"lognormal\", mean = 8.0, cv = 1.0 }}");
            let _ = writeln!(s, "# (or fit them from the log: burstsim fit LOG --group-user NAME)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_valid_toml_with_six_significant_digits() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.123456789), "0.123457");
        assert_eq!(num(1234.56789), "1234.57");
        assert_eq!(num(2.5e-7), "0.00000025");
        for x in [0.7, 12.25, 1e-3, 33.333333] {
            let v: toml::Value = toml::from_str(&format!("x = {}", num(x))).unwrap();
            assert!(
                (v["x"].as_float().unwrap_or_else(|| v["x"].as_integer().unwrap() as f64) - x).abs()
                    < 1e-5 * x.max(1.0)
            );
        }
    }
}
