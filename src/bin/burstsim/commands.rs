//! One function per subcommand: arguments → library calls → output. The longer ones have
//! their own files (`sweep_cmd`, `trace_cmd`, `calibrate_cmd`, `plot_cmd`); what they all
//! share is in `common`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burstsim::experiment::{self, Summaries};
use burstsim::output::{self, table, warnings};
use burstsim::scenario::Scenario;

use crate::args::{BenchArgs, Cli, Command, MergeArgs, OutputFormatArg, RunArgs, ValidateArgs};
use burstsim::usecase::{Front, Progress, Stage};

use crate::common::{
    Bars, EXIT_INTERRUPTED, UsageError, claim_out_dir, install_interrupt_handler, interrupted, lock_out_dir, pool,
};
use crate::sweep_cmd::sweep;

/// Runs a subcommand.
pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    install_interrupt_handler();
    match cli.command {
        Command::Run(a) => run(a),
        Command::Sweep(a) => sweep(a),
        Command::Merge(a) => merge(a),
        Command::Validate(a) if a.replay.trace.is_some() => crate::trace_cmd::validate_trace(a),
        Command::Validate(a) => validate(a),
        Command::Bench(a) => bench(a),
        Command::Fit(a) => crate::fit_cmd::fit(a),
        Command::Plot(a) => crate::plot_cmd::plot(a),
        Command::Calibrate(a) => crate::calibrate_cmd::calibrate(a),
        Command::Advise(a) => crate::advise_cmd::advise(a),
    }
}

/// Runs `burstsim run`: the library's run use case (`burstsim::usecase::run`) between
/// the folder's lock and the terminal's tables; with `--shard`, one shard of it.
fn run(a: RunArgs) -> Result<ExitCode> {
    use burstsim::usecase::run::{RunOptions, RunRequest, Source};
    let options = RunOptions {
        seed: a.seed,
        replications: a.replications,
        targets: a.targets.clone(),
        ci_target: a.ci_target.clone(),
        sensitivity: !a.no_sensitivity,
        sensitivity_replications: a.sensitivity_replications,
        threads: a.threads,
        campus_model: a.campus_model.map(Into::into),
    };
    let source = a.scenario.as_deref().map_or(Source::Default, Source::Path);
    let request = RunRequest::new(source, &options, Front::Cli)?;
    if let Some(spec) = &a.shard {
        return run_shard(&a, request.scenario(), spec);
    }
    let out_dir = a.out.clone().unwrap_or_else(|| request.default_dir());
    let _lock = lock_out_dir(&out_dir, "run")?;
    claim_out_dir(&out_dir, request.scenario(), "run", a.force, a.quiet)?;
    let Some(outcome) = request.run(&Bars::new(a.quiet), &interrupted)? else {
        say!(
            "burstsim: interrupted before any replication finished; no files written (earlier outputs in {} are untouched)",
            out_dir.display()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    };
    outcome.write(&out_dir, output::csv::Encoding::excel(a.excel))?;
    if !a.quiet {
        // The decision first; the full tables only when asked for (issue 46 item 6).
        print!("{}", outcome.decision(a.lang.into()));
        if a.verbose {
            print!("\n{}", outcome.table(a.by_class));
        } else if a.by_class {
            print!("\n{}", outcome.class_table());
        }
        print!("{}", outcome.files(&out_dir));
    }
    // Charts can take seconds; a run cut short by a signal must end within one.
    crate::plot_cmd::after(&out_dir, a.no_charts || outcome.cut_short(), a.quiet);
    for w in &outcome.warnings {
        say!("burstsim: warning: {w}");
    }
    say!("burstsim: {}", outcome.timing());
    if let Some(line) = outcome.interrupted(&out_dir) {
        say!("burstsim: {line}");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

fn validate(a: ValidateArgs) -> Result<ExitCode> {
    use burstsim::validation;
    let cases = if a.quick { validation::quick_cases() } else { validation::builtin_cases() };
    let pool = pool(a.threads)?;
    let started = Instant::now();
    let rows = pool.install(|| validation::run_all(&cases, None, validation::DEFAULT_SEED));
    match a.format {
        OutputFormatArg::Csv => print!("{}", validation::to_csv(&rows)),
        OutputFormatArg::Table => print!("{}", validation::to_table(&rows)),
    }
    say!("burstsim: {} cases in {:.1} s", cases.len(), started.elapsed().as_secs_f64());
    if validation::all_pass(&rows) {
        Ok(ExitCode::SUCCESS)
    } else {
        say!("burstsim: error: some checks failed (pass = false above)");
        Ok(ExitCode::from(1))
    }
}

fn bench(a: BenchArgs) -> Result<ExitCode> {
    use burstsim::bench;
    if a.repetitions == 0 {
        bail!(UsageError("--repetitions 0 is not allowed".into()));
    }
    let (reps, scale) = if a.smoke { (1, 0.01) } else { (a.repetitions, 1.0) };
    let wanted = |name: &str| a.only.as_deref().is_none_or(|o| name.contains(o));
    let single = pool(Some(1))?;
    let mut results = Vec::new();
    let mut run = |r: bench::BenchResult| {
        say!("burstsim: {} done (median {:.3} s)", r.name, r.median());
        results.push(r);
    };
    let engine = |name: &str, what: &str, scn: Scenario| single.install(|| bench::engine_case(name, what, &scn, reps));
    if wanted("fcfs-reference") || wanted("fcfs-minimal-loop") {
        // The pool engine beside the smallest loop of the same model, interleaved.
        let scn = bench::reference_scenario(512, "fcfs", 0.8, a.reference_jobs * scale);
        let (eng, minimal, differ) = single.install(|| {
            bench::engine_vs_minimal_loop("fcfs-reference", "strict FCFS, 512 GPUs, load 0.8, 1 thread", &scn, reps)
        });
        let ratio = minimal.median() / eng.median();
        run(eng);
        run(minimal);
        if differ > 0 {
            say!(
                "burstsim: warning: {differ} jobs start at different times in the engine and the minimal loop: the two are not the same model"
            );
        }
        say!(
            "burstsim: pool FCFS runs at {ratio:.2} of the minimal loop's speed, like for like (both draw the jobs and keep the headline statistics; issue 42 target: at least 0.5)"
        );
    }
    if wanted("easy-0.85-year") {
        let jobs = 0.85 * 512.0 / (2.3 * 6.0) * 24.0 * 365.0 * scale;
        run(engine(
            "easy-0.85-year",
            "EASY backfill, 512 GPUs, load 0.85, one year, 1 thread",
            bench::reference_scenario(512, "easy-backfill", 0.85, jobs),
        ));
    }
    if wanted("easy-0.95") {
        let jobs = 0.95 * 512.0 / (2.3 * 6.0) * 24.0 * 365.0 * scale;
        run(engine(
            "easy-0.95",
            "EASY backfill, 512 GPUs, load 0.95 (long queues), one year, 1 thread",
            bench::reference_scenario(512, "easy-backfill", 0.95, jobs),
        ));
    }
    for nodes in [48u32, 512] {
        let name = format!("nodes-{nodes}x8-0.85-year");
        if wanted(&name) && !a.smoke {
            let what = format!(
                "{nodes} nodes × 8, multifactor over 4 accounts, backfill every 30 s, load 0.85, one year, 1 thread"
            );
            run(engine(&name, &what, bench::reference_nodes_scenario(nodes, 0.85)));
        }
    }
    if a.only.as_deref() == Some("memory") {
        // Alone, in its own process, so the peak is this case's.
        let jobs = 10_000_000.0 * scale;
        let scn = bench::reference_scenario_with_runtime(1024, "easy-backfill", 0.8, jobs, 0.35);
        let t = Instant::now();
        let (n, peak) = bench::memory_case(&scn);
        println!(
            "memory: {n} jobs in one replication (1,024 GPUs, EASY, load 0.8, {:.0} days), generated and simulated in {:.1} s; peak resident memory {}",
            scn.horizon as f64 / 86_400.0,
            t.elapsed().as_secs_f64(),
            peak.map_or("unknown".to_string(), |p| format!(
                "{p:.0} MiB ({:.0} bytes per job)",
                p * 1_048_576.0 / n as f64
            ))
        );
        return Ok(ExitCode::SUCCESS);
    }
    let default = Scenario::embedded_default();
    if wanted("default-e2e") {
        let what = "the shipped default, exactly (nodes, multifactor, 6 accounts), 1 thread";
        let scn = if a.smoke { bench::shortened(&default, 7.0) } else { default.clone() };
        run(single.install(|| bench::end_to_end_vs_pool("default-e2e", what, &scn, reps)));
    }
    if wanted("saturated") {
        let scn =
            if a.smoke { bench::shortened(&bench::saturated_scenario(), 3.0) } else { bench::saturated_scenario() };
        let peak = single.install(|| bench::peak_queued(&scn));
        let what =
            format!("the default's graduation season (load ≈ 1.0, up to {peak} jobs queued), campus-only, 1 thread");
        run(single.install(|| bench::end_to_end_vs_pool("saturated", &what, &scn, reps)));
    }
    // The shipped sweeps on nodes: long, so one repetition at a fixed replication count.
    let (sweep_reps, shrink) = if a.smoke { (1, Some(3)) } else { (a.sweep_replications, None) };
    for (name, text, file) in [
        ("threshold-sweep", include_str!("../../../scenarios/threshold-sweep.toml"), "scenarios/threshold-sweep.toml"),
        ("exam-season", include_str!("../../../scenarios/exam-season.toml"), "scenarios/exam-season.toml"),
    ] {
        if wanted(name) {
            run(bench::sweep_case(name, text, file, sweep_reps, 1, shrink));
        }
    }
    if wanted("monte-carlo") {
        let scn = if a.smoke { bench::shortened(&default, 7.0).with_overrides(None, Some(2)) } else { default.clone() };
        let r1 = bench::monte_carlo_case(&scn, 1, reps.min(3));
        let r2 = bench::monte_carlo_case(&scn, 2, reps.min(3));
        let speedup = r1.median() / r2.median();
        run(r1);
        run(r2);
        say!("burstsim: Monte Carlo speed-up on 2 threads: {speedup:.2}× (efficiency {:.0}%)", speedup * 50.0);
    }
    // The capacity model on (issue 14): the default year with node failures, a drain,
    // outages, patience and balking (scenarios/capacity.toml).
    let capacity = Scenario::from_toml_str(include_str!("../../../scenarios/capacity.toml"), "scenarios/capacity.toml")
        .expect("the shipped capacity scenario is valid");
    let capacity = if a.smoke { bench::shortened(&capacity, 7.0) } else { capacity };
    if wanted("capacity-e2e") {
        run(single.install(|| bench::end_to_end_case("capacity-e2e", &capacity, reps)));
    }
    if wanted("capacity-monte-carlo") {
        let scn = if a.smoke { capacity.clone().with_overrides(None, Some(2)) } else { capacity.clone() };
        let mut r = bench::monte_carlo_case(&scn, 2, reps.min(3));
        r.name = "capacity-monte-carlo-2t".into();
        run(r);
    }
    if a.instructions {
        count_instructions(&a, &mut results)?;
    }
    print!("{}", bench::to_table(&results));
    Ok(ExitCode::SUCCESS)
}

/// `bench --instructions`: each case that times its work through `bench::counted` (all
/// but the sweeps and Monte Carlo scaling) run once more under callgrind.
fn count_instructions(a: &BenchArgs, results: &mut [burstsim::bench::BenchResult]) -> Result<()> {
    let exe = std::env::current_exe().context("finding this program to count its instructions")?;
    let mut args = vec!["--reference-jobs".to_string(), a.reference_jobs.to_string()];
    if a.smoke {
        args.push("--smoke".into());
    }
    for r in results.iter_mut() {
        let (only, twin) = match r.name.as_str() {
            "fcfs-minimal-loop" => ("fcfs-reference", true),
            "threshold-sweep" | "exam-season" => continue,
            n if n.starts_with("monte-carlo") || n.starts_with("capacity-monte-carlo") => continue,
            n => (n, false),
        };
        say!("burstsim: counting the instructions of {} under callgrind", r.name);
        r.instructions = burstsim::bench::instructions(&exe, only, &args, twin);
        if r.instructions.is_none() {
            say!(
                "burstsim: warning: no instruction count for {} (is valgrind installed? `valgrind --version`)",
                r.name
            );
        }
    }
    Ok(())
}

fn run_shard(a: &RunArgs, scenario: &Scenario, spec: &str) -> Result<ExitCode> {
    use burstsim::experiment::Results;
    use burstsim::output::shard;
    let (index, count) = shard::parse_spec(spec)?;
    if !a.ci_target.is_empty() {
        bail!(UsageError(
            "sequential stopping (--ci-target) cannot be split into shards; give a fixed number of replications".into()
        ));
    }
    if a.replications.is_none() && (scenario.ci_target.is_some() || scenario.ci_target_paired.is_some()) {
        bail!(UsageError(format!(
            "the scenario stops sequentially (simulation.ci_target{}), which cannot be split into shards; \
             give the years to split with --replications N (e.g. -n {})",
            if scenario.ci_target_paired.is_some() { "_paired" } else { "" },
            scenario.max_replications
        )));
    }
    let reps = shard::replications(scenario.replications, index, count);
    // --out names the folder that collects every shard; each shard has its own folder
    // inside it (an --out that already ends in this shard's name is taken as that folder).
    let own = format!("shard-{index}-of-{count}");
    let base = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(&scenario.name).join("shards"));
    let out_dir = if base.file_name().is_some_and(|n| n.to_string_lossy() == own) { base } else { base.join(&own) };
    let shards_dir = out_dir.parent().map_or_else(|| std::path::PathBuf::from("."), std::path::Path::to_path_buf);
    let _lock = lock_out_dir(&out_dir, "shard")?;
    let claim = burstsim::write::occupied::claim_shard(&out_dir, scenario.hash(), index, count, a.force)?;
    if claim == burstsim::write::occupied::Claim::Forced {
        say!("burstsim: --force: replacing the shard in '{}'", out_dir.display());
    }
    let pool = pool(a.threads)?;
    let bars = Bars::new(a.quiet);
    bars.start(Stage::Counted { total: reps.len() as u64, what: "replications", seconds_left: None });
    let started = Instant::now();
    let mut results = Results::new(scenario);
    let complete =
        pool.install(|| experiment::run_into_until(scenario, &reps, &mut results, &|| bars.advance(1), &interrupted))?;
    bars.finish();
    if !complete {
        say!("burstsim: interrupted: shard {index}/{count} is incomplete and was not written; run it again");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    shard::write(&out_dir, scenario, &results, index, count)?;
    say!(
        "burstsim: shard {index}/{count}: {} replications in {:.1} s, written to {}; when all {count} shards are done: burstsim merge {}",
        reps.len(),
        started.elapsed().as_secs_f64(),
        out_dir.display(),
        shards_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn merge(a: MergeArgs) -> Result<ExitCode> {
    use burstsim::experiment::Stopping;
    use burstsim::output::shard;
    let mut dirs = Vec::new();
    for d in &a.dirs {
        if d.join("shard.toml").exists() {
            dirs.push(d.clone());
        } else {
            let mut inner: Vec<_> = std::fs::read_dir(d)
                .with_context(|| format!("could not read '{}'", d.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("shard-")))
                .collect();
            if inner.is_empty() {
                bail!(UsageError(format!(
                    "'{}' is neither a shard folder (no shard.toml) nor a folder of shard-* folders",
                    d.display()
                )));
            }
            inner.sort();
            dirs.extend(inner);
        }
    }
    let shards = dirs.iter().map(|d| shard::read(d)).collect::<Result<Vec<_>, _>>()?;
    let (scenario, results) = shard::merge(shards)?;
    let out_dir = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(&scenario.name));
    let _lock = lock_out_dir(&out_dir, "merge")?;
    claim_out_dir(&out_dir, &scenario, "merge", a.force, a.quiet)?;
    let summaries = Summaries::new(&scenario, &results);
    let warns = warnings::collect(&scenario, &results, &Stopping::Fixed);
    let encoding = output::csv::Encoding::excel(a.excel);
    output::write_run_encoded(&out_dir, &scenario, &results, &summaries, &Stopping::Fixed, &warns, encoding)?;
    if !a.quiet {
        print!("{}", table::render(&scenario, &summaries, results.replications.len()));
    }
    crate::plot_cmd::after(&out_dir, a.no_charts, a.quiet);
    for w in &warns {
        say!("burstsim: warning: {w}");
    }
    say!(
        "burstsim: merged {} shards ({} replications) into {}",
        dirs.len(),
        results.replications.len(),
        out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
