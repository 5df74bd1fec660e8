//! `burstsim validate --trace LOG`: replays a real log through the engine; the log
//! reading it shares with `burstsim fit LOG` (`fit_cmd.rs`).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burstsim::evidence::replay::{self, FairshareReplay, ReplayError, ReplayOptions};
use burstsim::scenario::raw::{FairshareAlgorithm, PriorityKind, SchedulerKind};
use burstsim::trace::convert::Estimates;
use burstsim::trace::convert::Units;
use burstsim::trace::{self, CsvMapping, ReadOptions, Trace};

use crate::args::{
    BfPlannerArg, EstimatesArg, FairshareArg, OutagesArg, OutputFormatArg, PriorityArg, ReadArgs, SchedulerArg,
    TraceFormatArg, UnitsArg, ValidateArgs, spelled,
};
use crate::common::UsageError;

fn usage(msg: String) -> anyhow::Error {
    UsageError(msg).into()
}

/// How to read a log, as the arguments say (`--mapping` parsed).
pub fn read_options(a: &ReadArgs) -> Result<ReadOptions> {
    let format = a.trace_format.map(|f| match f {
        TraceFormatArg::Swf => trace::Format::Swf,
        TraceFormatArg::Sacct => trace::Format::Sacct,
        TraceFormatArg::Csv => trace::Format::Csv,
    });
    let mapping = a.mapping.as_deref().map(CsvMapping::from_arg).transpose().map_err(|e| usage(e.to_string()))?;
    Ok(ReadOptions { strict: a.strict, format, mapping })
}

/// Reads a log as the arguments say, printing the read summary on stderr.
pub fn read_trace(path: &std::path::Path, a: &ReadArgs) -> Result<Trace> {
    let opts = read_options(a)?;
    let t = trace::read_file(path, &opts).map_err(|e| match e {
        trace::TraceError::Read { .. } => anyhow::Error::new(e),
        other => usage(other.to_string()),
    })?;
    say_part!("burstsim: {}", burstsim::output::printable::printable(&t.report.summary(&path.display().to_string())));
    if t.jobs.is_empty() {
        bail!(usage(format!("{}: no jobs could be read", path.display())));
    }
    Ok(t)
}

/// `--units`.
pub fn units_of(a: &ReadArgs) -> Units {
    match a.units {
        UnitsArg::Auto => Units::Auto,
        UnitsArg::Procs => Units::Procs,
        UnitsArg::Gpus => Units::Gpus,
    }
}

/// `--units` and `--procs-per-gpu`.
pub fn units(a: &ReadArgs) -> Result<(Units, f64)> {
    let u = units_of(a);
    if !(a.procs_per_gpu.is_finite() && a.procs_per_gpu > 0.0) {
        bail!(usage(format!("--procs-per-gpu {} is not allowed; give a positive number", a.procs_per_gpu)));
    }
    Ok((u, a.procs_per_gpu))
}

/// `burstsim validate --trace LOG`.
pub fn validate_trace(a: ValidateArgs) -> Result<ExitCode> {
    let t = &a.replay;
    let path = t.trace.clone().expect("dispatched only with --trace");
    // Files written after the replay: proved writable before it (issue 45 item 3).
    for file in t.jobs_out.iter().chain(&t.fitted_out).chain(&t.correction_out) {
        burstsim::write::probe_file(file)?;
    }
    let scheduler = match t.scheduler {
        SchedulerArg::Fcfs => SchedulerKind::Fcfs,
        SchedulerArg::EasyBackfill => SchedulerKind::EasyBackfill,
    };
    let estimates = match t.estimates {
        EstimatesArg::Recorded => Estimates::Recorded,
        EstimatesArg::Exact => Estimates::Exact,
    };
    let priority = match t.priority {
        PriorityArg::Fifo => PriorityKind::Fifo,
        PriorityArg::Multifactor if t.gpus_per_node.is_some() => PriorityKind::Multifactor,
        PriorityArg::Multifactor => bail!(usage("--priority multifactor needs nodes: add --gpus-per-node G".into())),
    };
    if let Some(s) = t.bf_interval.filter(|s| !(1..=3600).contains(s)) {
        bail!(usage(format!("--bf-interval {s} is not allowed; give 1 to 3600 seconds (Slurm's default is 30)")));
    }
    let infer_outages = t.outages == OutagesArg::Infer;
    let cycle = match t.cycle.as_str() {
        "none" | "0" => None,
        "auto" => Some(None),
        other => match other.parse::<u64>() {
            Ok(s) if (1..=86_400).contains(&s) => Some(Some(s)),
            _ => bail!(usage(format!("--cycle '{other}' is not allowed; use none, auto or 1 to 86400 seconds"))),
        },
    };
    if t.bf_reservations == Some(0) {
        bail!(usage("--bf-reservations 0 is not allowed; give at least 1".into()));
    }
    let (units, procs_per_gpu) = units(&t.read)?;
    let log = read_trace(&path, &t.read)?;
    let fairshare = fairshare(t, &log)?;
    let mut o = match t.gpus_per_node {
        None => {
            let gpus = match t.gpus.or(log.info.max_procs) {
                Some(g) if g > 0 => g,
                _ => bail!(usage(format!(
                    "{}: the log does not give its size (no MaxProcs): add --gpus N",
                    path.display()
                ))),
            };
            ReplayOptions::new(gpus)
        }
        Some(g) => {
            let (n, g) = nodes(t.gpus, log.info.max_procs, t.nodes, g, &path)?;
            ReplayOptions::on_nodes(n, g)
        }
    };
    o.scheduler = scheduler;
    o.units = units;
    o.procs_per_gpu = procs_per_gpu;
    o.estimates = estimates;
    o.priority = priority;
    o.bf_interval_s = t.bf_interval;
    o.bf_reservations = t.bf_reservations;
    o.bf_planner = t.bf_planner.map(|p| match p {
        BfPlannerArg::Exact => burstsim::scenario::raw::BfPlanner::Exact,
        BfPlannerArg::Slurm => burstsim::scenario::raw::BfPlanner::Slurm,
    });
    o.bf_resolution_s = t.bf_resolution;
    o.completing_s = match t.completing {
        Some(c) if c > 600 => bail!(usage(format!("--completing {c} is not allowed; give 0 to 600 seconds"))),
        c => c.unwrap_or(0),
    };
    o.infer_outages = infer_outages;
    if let Some(h) = t.outage_min_hours {
        if !(h.is_finite() && h > 0.0 && h <= 1000.0) {
            bail!(usage(format!("--outage-min-hours {h} is not allowed; give more than 0 and at most 1000")));
        }
        o.outage_min = (h * 3600.0).round().max(1.0) as u64;
    }
    o.cycle = cycle;
    o.fairshare = fairshare;
    let gpus = o.gpus;
    let conv = replay::to_jobs(&log, &o);
    if conv.jobs.is_empty() {
        let why: Vec<String> = conv.left_out.iter().map(|(why, n)| format!("{n} {why}")).collect();
        bail!(usage(format!(
            "{}: no job of the log can be replayed on {gpus} {}: {}; check --gpus and --units",
            path.display(),
            if conv.counted_gpus { "GPUs" } else { "processors" },
            if why.is_empty() { "the log has no jobs".to_string() } else { why.join(", ") }
        )));
    }
    warn_fitness(&log, &conv, gpus);
    let started = Instant::now();
    if let Some(n) = t.backtest {
        return backtest(&a, &log, &path, units, procs_per_gpu, n, started);
    }
    if let Some(site) = t.site_rules {
        return site_rules_replay(&a, &o, &log, &path, &spelled(&site), started);
    }
    if t.out_of_sample {
        if o.nodes.is_some() || infer_outages || cycle.is_some() {
            bail!(usage(
                "--out-of-sample fits its own outages and cycle on a pool: leave out --gpus-per-node, --outages and --cycle".into()
            ));
        }
        holdout_replications(t.replications)?;
        let h = burstsim::evidence::holdout::out_of_sample(&log, gpus, units, procs_per_gpu, t.replications, t.seed)
            .map_err(|e| usage(format!("{}: {e}", path.display())))?;
        write_fitted(t.fitted_out.as_deref(), &h.scenario_toml)?;
        match a.format {
            OutputFormatArg::Csv => print!("{}", h.to_csv()),
            OutputFormatArg::Table => {
                println!(
                    "{}: fitted on the first half ({} jobs), simulated the second half's period {} times; waits in hours",
                    path.display(),
                    h.first_jobs,
                    t.replications
                );
                println!();
                print!("{}", h.to_table());
                let m = h.mean();
                println!(
                    "\nMean wait: recorded {:.3} h, simulated {:.3} h (95% CI {:.3}–{:.3}), ratio {:.2}.",
                    h.recorded.mean_h,
                    m.mean,
                    m.low(),
                    m.high(),
                    m.mean / h.recorded.mean_h
                );
            }
        }
        say!("burstsim: out-of-sample check in {:.1} s", started.elapsed().as_secs_f64());
        return Ok(ExitCode::SUCCESS);
    }
    let r = replay::replay(&log, &o).map_err(|e| match e {
        ReplayError::Scenario(_) => anyhow::Error::new(e).context(format!("could not replay '{}'", path.display())),
        other => usage(format!("{}: {other}", path.display())),
    })?;
    if let Some(file) = &t.jobs_out {
        burstsim::write::atomic_write(file, r.jobs_csv(&log).as_bytes())
            .with_context(|| format!("could not write '{}'", file.display()))?;
        say!("burstsim: wrote {} ({} jobs)", file.display(), r.converted.jobs.len());
    }
    match a.format {
        OutputFormatArg::Csv => {
            print!("{}", r.to_csv());
            if !r.has_recorded_waits() {
                say!(
                    "burstsim: the log records no waits: the recorded column is empty; the simulated one covers all {} replayed jobs",
                    r.simulated_side().n
                );
            }
        }
        OutputFormatArg::Table => {
            let unit = if r.converted.counted_gpus { "GPUs" } else { "processors" };
            let campus = match o.nodes {
                None => format!("{gpus} {unit}"),
                Some((n, g)) => format!(
                    "{n} nodes × {g} {unit} ({} priority, bf_interval {} s)",
                    match &o.fairshare {
                        Some(f) => format!(
                            "{} fair-share, shares {}, half-life {} s, calc period {} s",
                            t.fairshare.as_ref().map(spelled).unwrap_or_default(),
                            replay::fairshare_accounts(f)
                                .iter()
                                .map(|(n, s)| format!("{n}={s}"))
                                .collect::<Vec<_>>()
                                .join(","),
                            f.half_life_s,
                            f.calc_period_s
                        ),
                        None => spelled(&t.priority),
                    },
                    t.bf_interval.unwrap_or(30)
                ),
            };
            println!(
                "{}: {} jobs replayed on {campus} under {} ({} estimates); waits in hours",
                path.display(),
                r.converted.jobs.len(),
                spelled(&t.scheduler),
                spelled(&t.estimates)
            );
            for (why, n) in &r.converted.left_out {
                println!("  left out: {n} jobs ({why})");
            }
            if infer_outages {
                let hours: f64 = r.outages.iter().map(|&(a, b)| (b - a) as f64 / 3600.0).sum();
                println!(
                    "  outages inferred from the log: {} ({hours:.0} h), the scheduler stopped during each",
                    r.outages.len()
                );
            }
            if cycle.is_some() {
                match r.cycle {
                    0 => println!("  scheduler cycle: none (the log's waits show no common granularity)"),
                    c => println!("  scheduler cycle: {c} s (passes at multiples of it)"),
                }
            }
            println!();
            print!("{}", r.to_table());
            println!(
                "\nSimulated utilisation {:.3}; the log's own waits include its scheduler's quirks (docs/VALIDATION.md).",
                r.utilization
            );
            if !r.has_recorded_waits() {
                println!(
                    "The log records no waits (e.g. NASA-iPSC, the Lublin model): the recorded column is unavailable, \
                     and the simulated column covers all {} replayed jobs.",
                    r.simulated_side().n
                );
            }
        }
    }
    say!("burstsim: replay in {:.1} s", started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `validate --trace LOG --site-rules SITE [--shake N]`.
fn site_rules_replay(
    a: &ValidateArgs,
    o: &ReplayOptions,
    log: &Trace,
    path: &std::path::Path,
    site: &str,
    started: Instant,
) -> Result<ExitCode> {
    use burstsim::evidence::site_rules::{SHAKE_SECONDS, SiteRules, rules_replay};
    let t = &a.replay;
    let Some(rules) = SiteRules::parse(site) else {
        bail!(usage(format!("--site-rules '{site}' is not known; use kth (or kth-maxtime-only)")));
    };
    if o.nodes.is_some() || o.infer_outages || o.cycle.is_some() || o.fairshare.is_some() {
        bail!(usage(
            "--site-rules replays the documented rules alone on a pool: leave out --gpus-per-node, --outages, \
             --cycle and --fairshare"
                .into()
        ));
    }
    if t.out_of_sample {
        return site_rules_out_of_sample(a, o, log, path, site, rules, started);
    }
    if t.shake > 1000 {
        bail!(usage(format!("--shake {} is not allowed; give 0 to 1000 replays", t.shake)));
    }
    let r =
        rules_replay(log, o, rules, t.shake, t.shake_seed).map_err(|e| usage(format!("{}: {e}", path.display())))?;
    if let Some(file) = &t.jobs_out {
        burstsim::write::atomic_write(file, r.replay.jobs_csv(log).as_bytes())
            .with_context(|| format!("could not write '{}'", file.display()))?;
        say!("burstsim: wrote {} ({} jobs)", file.display(), r.replay.converted.jobs.len());
    }
    match a.format {
        OutputFormatArg::Csv => print!("{}", r.to_csv()),
        OutputFormatArg::Table => {
            println!(
                "{}: {} jobs replayed on {} processors under {} with the site's documented rules ({site}); \
                 mean waits in hours, simulated waits rounded to the log's minute",
                path.display(),
                r.replay.converted.jobs.len(),
                o.gpus,
                spelled(&t.scheduler)
            );
            for (why, n) in &r.replay.converted.left_out {
                println!("  left out: {n} jobs ({why})");
            }
            let (over, across) = r.recorded_breaks;
            println!(
                "  recorded starts against the rules: {over} of {} over the MaxTime in force, {across} more would not \
                 have ended in their window (by their requests)",
                r.checked
            );
            if !r.shaken.is_empty() {
                println!(
                    "  shaking: {} more replays, submissions moved by up to ±{SHAKE_SECONDS} s (seed {})",
                    r.shaken.len(),
                    t.shake_seed
                );
            }
            println!();
            print!("{}", r.to_table());
        }
    }
    say!("burstsim: site-rules replay in {:.1} s", started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `validate --trace LOG --site-rules SITE --out-of-sample [--replications N --seed S]`.
fn site_rules_out_of_sample(
    a: &ValidateArgs,
    o: &ReplayOptions,
    log: &Trace,
    path: &std::path::Path,
    site: &str,
    rules: burstsim::evidence::site_rules::SiteRules,
    started: Instant,
) -> Result<ExitCode> {
    let t = &a.replay;
    if t.shake > 0 || t.jobs_out.is_some() {
        bail!(usage(
            "--out-of-sample with --site-rules simulates fitted jobs: its interval is over --replications; \
             leave out --shake and --jobs-out"
                .into()
        ));
    }
    holdout_replications(t.replications)?;
    let h = burstsim::evidence::rules_holdout::rules_out_of_sample(log, o, rules, t.replications, t.seed)
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    write_fitted(t.fitted_out.as_deref(), &h.scenario_toml)?;
    match a.format {
        OutputFormatArg::Csv => print!("{}", h.to_csv()),
        OutputFormatArg::Table => {
            println!(
                "{}: fitted on the {} jobs submitted before {} (local time), simulated {} to {} ({} days) {} times \
                 on {} processors under {} with the site's documented rules ({site}); mean waits in hours, \
                 rounded to the log's minute; intervals: 95% CI over replications (seed {})",
                path.display(),
                h.fit_jobs,
                rules.split(),
                rules.split(),
                rules.regime_end().add_days(-1),
                h.test_days,
                t.replications,
                o.gpus,
                spelled(&t.scheduler),
                t.seed
            );
            println!();
            print!("{}", h.to_table());
            println!("(replay: the site-rules replay of the recorded jobs over the same period, for reference)");
        }
    }
    say!("burstsim: out-of-sample check under site rules in {:.1} s", started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `--fairshare`, `--shares`, `--decay-half-life`, `--calc-period`, `--calc-offset`.
fn fairshare(t: &crate::args::TraceValidateArgs, log: &Trace) -> Result<Option<FairshareReplay>> {
    let Some(alg) = t.fairshare else { return Ok(None) };
    let algorithm = match alg {
        FairshareArg::Classic => FairshareAlgorithm::Classic,
        FairshareArg::FairTree => FairshareAlgorithm::FairTree,
    };
    let shares = match &t.shares {
        None => {
            let mut names: Vec<String> = Vec::new();
            for j in &log.jobs {
                if let Some(g) = j.group.as_deref().filter(|g| !g.is_empty())
                    && !names.iter().any(|n| n == g)
                {
                    names.push(g.to_string());
                }
            }
            names.into_iter().map(|n| (n, 1.0)).collect()
        }
        Some(list) => parse_shares(list)?,
    };
    let secs = |flag: &str, v: Option<u64>, default: u64, max: u64| -> Result<u64> {
        let v = v.unwrap_or(default);
        if !(60..=max).contains(&v) {
            bail!(usage(format!("{flag} {v} is not allowed; give 60 to {max} seconds")));
        }
        Ok(v)
    };
    let half_life_s = secs("--decay-half-life", t.decay_half_life, 7 * 86_400, 3650 * 86_400)?;
    let calc_period_s = secs("--calc-period", t.calc_period, 300, 86_400)?;
    if !calc_period_s.is_multiple_of(60) {
        bail!(usage(format!(
            "--calc-period {calc_period_s} is not allowed; give whole minutes in seconds (PriorityCalcPeriod is in minutes), e.g. 60"
        )));
    }
    if let Some(c) = t.calc_offset.filter(|&c| c > calc_period_s) {
        bail!(usage(format!("--calc-offset {c} is not allowed; give 0 to {calc_period_s} seconds (the calc period)")));
    }
    Ok(Some(FairshareReplay {
        algorithm,
        shares,
        half_life_s,
        calc_period_s,
        calc_offset_s: t.calc_offset,
        slurm_usage: t.slurm_usage,
    }))
}

/// `--shares NAME=SHARES,…`.
fn parse_shares(list: &str) -> Result<Vec<(String, f64)>> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for item in list.split(',') {
        let bad = |why: &str| usage(format!("--shares: '{item}' {why}; give NAME=SHARES,… e.g. group=1,others=4"));
        let Some((name, v)) = item.split_once('=') else { bail!(bad("is not NAME=SHARES")) };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
            bail!(bad("has no account name of letters, digits, '_', '-' or '.'"));
        }
        let shares = match v.trim().parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => s,
            _ => bail!(bad("needs shares above 0")),
        };
        if out.iter().any(|(n, _)| n == name) {
            bail!(bad("names an account twice"));
        }
        out.push((name.to_string(), shares));
    }
    Ok(out)
}

/// Prints what makes the log a poor description of the stated cluster (offered load
/// above 1, a long gap in submissions); see `burstsim::trace::fitness`.
fn warn_fitness(log: &Trace, conv: &burstsim::trace::convert::Converted, gpus: u32) {
    for w in burstsim::trace::fitness::check(log, conv, gpus) {
        say!("burstsim: warning: {w}");
    }
}

/// The node count and GPUs per node of `--gpus-per-node G [--nodes N] [--gpus N]`: --nodes,
/// else ⌈GPUs / G⌉ with GPUs from --gpus or the log's MaxProcs (`max_procs`).
fn nodes(
    gpus: Option<u32>,
    max_procs: Option<u32>,
    nodes: Option<u32>,
    per_node: u32,
    path: &std::path::Path,
) -> Result<(u32, u32)> {
    if per_node == 0 || gpus == Some(0) {
        bail!(usage("--gpus-per-node 0 and --gpus 0 are not allowed; give at least 1".into()));
    }
    let n = match (nodes, gpus) {
        (Some(0), _) => bail!(usage("--nodes 0 is not allowed; give at least 1".into())),
        (Some(n), Some(g)) if u64::from(n) * u64::from(per_node) != u64::from(g) => bail!(usage(format!(
            "--gpus {g} is not --nodes {n} × --gpus-per-node {per_node} = {}; give two of the three",
            u64::from(n) * u64::from(per_node)
        ))),
        (Some(n), _) => n,
        (None, Some(g)) if g % per_node != 0 => bail!(usage(format!(
            "--gpus {g} is not a multiple of --gpus-per-node {per_node}: {} nodes would hold {} GPUs; give --gpus {} or {}, \
             or --nodes N instead of --gpus",
            g.div_ceil(per_node),
            u64::from(g.div_ceil(per_node)) * u64::from(per_node),
            (g / per_node) * per_node,
            u64::from(g.div_ceil(per_node)) * u64::from(per_node)
        ))),
        (None, g) => match g.or(max_procs) {
            Some(g) if g > 0 => g.div_ceil(per_node),
            _ => bail!(usage(format!(
                "{}: the log does not give its size (no MaxProcs): add --nodes N (or --gpus N)",
                path.display()
            ))),
        },
    };
    if u64::from(n) * u64::from(per_node) > u64::from(u32::MAX) {
        bail!(usage(format!("--nodes {n} × --gpus-per-node {per_node} is too large")));
    }
    Ok((n, per_node))
}

/// The replications an out-of-sample check accepts (2 for an interval; at most 1000).
fn holdout_replications(n: u32) -> Result<()> {
    if !(2..=1000).contains(&n) {
        bail!(usage(format!("--replications {n} is not allowed; give 2 to 1000")));
    }
    Ok(())
}

/// Writes an out-of-sample check's fitted scenario where `--fitted-out` asks.
fn write_fitted(file: Option<&std::path::Path>, toml: &str) -> Result<()> {
    if let Some(file) = file {
        burstsim::write::atomic_write(file, toml.as_bytes())
            .with_context(|| format!("could not write '{}'", file.display()))?;
        say!("burstsim: wrote {}", file.display());
    }
    Ok(())
}

/// `validate --trace LOG --out-of-sample --backtest N` (all of it in `burstsim::backtest`).
fn backtest(
    a: &ValidateArgs,
    log: &Trace,
    path: &std::path::Path,
    units: Units,
    procs_per_gpu: f64,
    probes: usize,
    started: Instant,
) -> Result<ExitCode> {
    use burstsim::backtest::{BacktestOptions, backtest};
    let t = &a.replay;
    let rules = t
        .site_rules
        .map(|s| {
            let s = spelled(&s);
            burstsim::evidence::site_rules::SiteRules::parse(&s)
                .ok_or_else(|| usage(format!("--site-rules '{s}' is not known; use kth")))
        })
        .transpose()?;
    let gpus =
        t.gpus.or(log.info.max_procs).ok_or_else(|| usage("the log does not give its size: add --gpus N".into()))?;
    let o = BacktestOptions {
        units,
        procs_per_gpu,
        replications: t.replications,
        seed: t.seed,
        rules,
        ..BacktestOptions::new(gpus, probes)
    };
    let b = crate::common::pool(a.threads)?
        .install(|| {
            backtest(log, &o, &|k, n| {
                if k % 10 == 0 || k == n {
                    say!("burstsim: backtest {k}/{n} probes")
                }
            })
        })
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    match a.format {
        OutputFormatArg::Csv => print!("{}", b.to_csv()),
        OutputFormatArg::Table => print!("{}", b.to_report(&path.display().to_string())),
    }
    if let Some(file) = &t.correction_out {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let source = format!(
            "burstsim validate --trace {name} --out-of-sample --backtest {probes} --replications {} --seed {}{}: \
             all {} probes",
            t.replications,
            t.seed,
            t.site_rules.map_or(String::new(), |s| format!(" --site-rules {}", spelled(&s))),
            b.probes.len()
        );
        let toml = b.correction(&source).to_toml().map_err(|e| anyhow::anyhow!("correction: {e}"))?;
        burstsim::write::atomic_write(file, toml.as_bytes())
            .with_context(|| format!("could not write '{}'", file.display()))?;
        say!("burstsim: wrote {}", file.display());
    }
    say!("burstsim: backtest in {:.1} s", started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}
