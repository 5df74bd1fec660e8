//! One function per subcommand: arguments → library calls → output.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burstsim::experiment::{self, Summaries};
use burstsim::output::{self, table, warnings};
use burstsim::scenario::{Scenario, ScenarioError};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::args::{BenchArgs, Cli, Command, Format, MergeArgs, RunArgs, SweepArgs, ValidateArgs};

/// A bad-input error (exit code 2) that is not a scenario error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Exit code for an error: 2 for bad input, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    let bad_input = err.chain().any(|e| {
        e.is::<ScenarioError>()
            || e.is::<UsageError>()
            || e.is::<burstsim::sweep::SweepError>()
            || e.downcast_ref::<burstsim::sweep::store::StoreError>()
                .is_some_and(|s| !matches!(s, burstsim::sweep::store::StoreError::Io(_)))
            || e.downcast_ref::<burstsim::experiment::shard::ShardError>()
                .is_some_and(|s| !matches!(s, burstsim::experiment::shard::ShardError::Io(_)))
            || e.is::<burstsim::output::occupied::Occupied>()
            || e.is::<burstsim::output::lock::LockError>()
    });
    if bad_input { 2 } else { 1 }
}

/// Set by the first Ctrl-C or SIGTERM: long work stops after what is in flight.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// How long after the first Ctrl-C / SIGTERM the process may take to stop on its own
/// before it is aborted: simulations in flight poll the flag and stop within
/// milliseconds, then the finished replications are written (charts are skipped).
const STOP_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// First Ctrl-C / SIGTERM: stop the replications in flight and write what is finished
/// (aborting if that takes longer than [`STOP_WITHIN`], so a signal always ends the run
/// within a second); second: abort at once. The handler never panics: with stderr closed
/// (its reader gone) `eprintln!` would kill the handler thread, and no later signal could
/// stop the process.
fn install_interrupt_handler() {
    use std::io::Write;
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            burstsim::output::lock::release_all();
            let _ = writeln!(
                std::io::stderr(),
                "\nburstsim: aborted; files already written are complete, nothing else was written"
            );
            std::process::exit(130);
        }
        let _ = writeln!(
            std::io::stderr(),
            "\nburstsim: interrupted: stopping the replications in progress and writing the finished ones (Ctrl-C again to abort)"
        );
        std::thread::spawn(|| {
            use std::io::Write;
            std::thread::sleep(STOP_WITHIN);
            burstsim::output::lock::release_all();
            let _ = writeln!(
                std::io::stderr(),
                "burstsim: aborted: the work in progress did not stop within {} s of the signal; files already \
                 written are complete",
                STOP_WITHIN.as_secs()
            );
            std::process::exit(130);
        });
    });
}

/// Exit code of a run cut short by Ctrl-C or SIGTERM (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

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
        Command::Fit(a) => crate::trace_cmd::fit(a),
        Command::Plot(a) => crate::plot_cmd::plot(a),
        Command::Calibrate(a) => crate::calibrate_cmd::calibrate(a),
    }
}

fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(UsageError("--threads 0 is not allowed; give at least 1".into()).into());
        }
        b = b.num_threads(n);
    }
    b.build().context("could not start the worker threads")
}

pub(crate) fn progress_bar(len: u64, quiet: bool, what: &str) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({eta_average} left)")
            .expect("valid template")
            .with_key("eta_average", eta_from_average)
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// Time left at the average rate since the bar started (elapsed × left / done). The units
/// of a bar are alike (replications, or a sweep's policy-replications), so this is close
/// once a tenth is done; indicatif's own `{eta}` weighs the last few steps, which arrive
/// in bursts (one per thread, then nothing while a chunk runs) and made it jump.
fn eta_from_average(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let (done, len) = (state.pos(), state.len().unwrap_or(0));
    if done == 0 {
        let _ = w.write_str("…");
        return;
    }
    let secs = state.elapsed().as_secs_f64() * len.saturating_sub(done) as f64 / done as f64;
    let _ = write!(w, "{:#}", indicatif::HumanDuration(std::time::Duration::from_secs_f64(secs)));
}

/// A rate with three significant digits (0.0412, 0.412, 4.12, 41.2, 412), so that a slow
/// run does not print "0.0 replications/s".
fn significant(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (2 - x.log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// Progress under sequential stopping: the total is unknown, so show replications done
/// against the most allowed, without a bar that would suggest a plan or an ETA.
fn sequential_progress(max: u64, quiet: bool) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(max), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} replications: {pos} done (sequential: stops when the CIs meet --ci-target; at most {len}), {elapsed}",
        )
        .expect("valid template"),
    );
    pb
}

fn load_scenario(path: Option<&std::path::Path>) -> Result<Scenario> {
    Ok(match path {
        Some(p) => Scenario::load(p)?,
        None => Scenario::embedded_default(),
    })
}

fn run(a: RunArgs) -> Result<ExitCode> {
    let cli_rule = if a.ci_target.is_empty() {
        None
    } else {
        Some(experiment::sequential::parse_ci_targets(&a.ci_target).map_err(UsageError)?)
    };
    if a.replications == Some(0) {
        bail!(UsageError("--replications 0 is not allowed; run at least 1 (20 or more for useful intervals)".into()));
    }
    let targets = a
        .targets
        .iter()
        .map(|t| burstsim::target::parse_target(t).map_err(UsageError))
        .collect::<Result<Vec<_>, _>>()?;
    let scenario = load_scenario(a.scenario.as_deref())?.with_overrides(a.seed, a.replications);
    burstsim::target::check_classes(&targets, &scenario.class_names()).map_err(UsageError)?;
    if let Some(spec) = &a.shard {
        return run_shard(&a, &scenario, spec);
    }
    let out_dir = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(&scenario.name));
    let _lock = lock_out_dir(&out_dir, "run")?;
    claim_out_dir(&out_dir, &scenario, "run", a.force, a.quiet)?;
    let rule = cli_rule.or_else(|| scenario.ci_target.map(experiment::Sequential::relative_default));
    let pool = pool(a.threads)?;

    let pb = match &rule {
        None => progress_bar(u64::from(scenario.replications), a.quiet, "replications"),
        Some(_) => sequential_progress(u64::from(scenario.max_replications), a.quiet),
    };
    let started = Instant::now();
    let (results, stopping) =
        pool.install(|| experiment::run_until(&scenario, rule.as_ref(), &|| pb.inc(1), &interrupted))?;
    pb.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    let cut_short = matches!(stopping, experiment::Stopping::Interrupted { .. });
    if cut_short && results.replications.is_empty() {
        say!(
            "burstsim: interrupted before any replication finished; no files written (earlier outputs in {} are untouched)",
            out_dir.display()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }

    let summaries = Summaries::new(&scenario, &results);
    let warns = warnings::collect(&scenario, &results, &stopping);
    let encoding = output::csv::Encoding::excel(a.excel);
    output::write_run_encoded(&out_dir, &scenario, &results, &summaries, &stopping, &warns, encoding)?;
    let risks = burstsim::experiment::risk::policy_risks(&scenario, &results, &targets);
    if targets.is_empty() {
        let _ = std::fs::remove_file(out_dir.join("risk.csv")); // an earlier run's, now stale
    } else {
        output::atomic_write(&out_dir.join("risk.csv"), &encoding.encode(output::csv::risk_csv(&targets, &risks)))?;
    }
    let stop_band = || cut_short || interrupted();
    let band = pool.install(|| {
        crate::sensitivity_cmd::after_run(&a, &scenario, &results, &targets, &out_dir, encoding, &stop_band)
    })?;
    if !a.quiet {
        print!("{}", table::render(&scenario, &summaries, results.replications.len()));
        if !targets.is_empty() {
            print!("{}", table::risk_table(&targets, &risks));
        }
        if a.by_class {
            print!("\n{}", table::render_by_class(&scenario, &summaries));
        }
        if let Some(band) = &band {
            print!("{}", burstsim::sensitivity::band::render(band));
        }
        println!(
            "\nFiles: {}/{{summary,paired,classes,seasons,replications,timeseries,waits{}{}}}.csv and run.toml",
            out_dir.display(),
            if targets.is_empty() { "" } else { ",risk" },
            if band.is_some() { ",sensitivity" } else { "" }
        );
    }
    // Charts can take seconds; a run cut short by a signal must end within one.
    crate::plot_cmd::after(&out_dir, a.no_charts || cut_short, a.quiet);
    for w in &warns {
        say!("burstsim: warning: {w}");
    }
    let n = results.replications.len();
    say!(
        "burstsim: {} replications × {} policies in {:.1} s ({} replications/s, {} threads)",
        n,
        scenario.policies.len(),
        elapsed,
        significant(n as f64 / elapsed.max(1e-9)),
        pool.current_num_threads()
    );
    if let experiment::Stopping::Interrupted { sequential, .. } = stopping {
        let again = if sequential {
            "run the same command again to let sequential stopping finish"
        } else {
            "run the same command again for all of them"
        };
        say!("burstsim: interrupted: wrote the {n} finished replications to {}; {again}", out_dir.display());
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// Takes the output folder for this process before any work starts: creates it, proves
/// it writable and refuses it while another burstsim writes there (see
/// `burstsim::output::lock`). Held until the returned lock is dropped.
fn lock_out_dir(dir: &std::path::Path, kind: &str) -> Result<burstsim::output::lock::OutputLock> {
    Ok(announced(burstsim::output::lock::OutputLock::exclusive(dir, kind)?))
}

/// Prints the notice of a lock taken over from a process that died.
fn announced(lock: burstsim::output::lock::OutputLock) -> burstsim::output::lock::OutputLock {
    if let Some(n) = lock.notice() {
        say!("burstsim: {n}");
    }
    lock
}

/// Refuses an output folder holding another run's results (unless `force`) before any
/// work starts; says so when earlier results are replaced.
fn claim_out_dir(
    dir: &std::path::Path,
    scenario: &Scenario,
    kind: &'static str,
    force: bool,
    quiet: bool,
) -> Result<()> {
    use burstsim::output::occupied::{Claim, Holds, claim_run};
    let before = Holds::inspect(dir);
    match claim_run(dir, scenario.hash(), kind, force)? {
        Claim::Fresh => {}
        Claim::Same if !quiet => say!(
            "burstsim: '{}' holds an earlier run of this same scenario (same seed and replications); its files are replaced",
            dir.display()
        ),
        Claim::Forced => say!("burstsim: --force: replacing {} in '{}'", before.describe(), dir.display()),
        Claim::Same => {}
    }
    Ok(())
}

fn validate(a: ValidateArgs) -> Result<ExitCode> {
    use burstsim::validation;
    let cases = if a.quick { validation::quick_cases() } else { validation::builtin_cases() };
    let pool = pool(a.threads)?;
    let started = Instant::now();
    let rows = pool.install(|| validation::run_all(&cases, None, validation::DEFAULT_SEED));
    match a.format {
        Format::Csv => print!("{}", validation::to_csv(&rows)),
        Format::Table => print!("{}", validation::to_table(&rows)),
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
    if wanted("fcfs-reference") {
        let scn = bench::reference_scenario(512, "fcfs", 0.8, a.reference_jobs * scale);
        run(engine("fcfs-reference", "strict FCFS, 512 GPUs, load 0.8, 1 thread", scn));
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
    print!("{}", bench::to_table(&results));
    Ok(ExitCode::SUCCESS)
}

fn sweep(a: SweepArgs) -> Result<ExitCode> {
    use burstsim::metrics::Metric;
    use burstsim::sweep::{self, Sweep, recommend, store};
    let targets =
        a.targets.iter().map(|t| recommend::parse_target(t).map_err(UsageError)).collect::<Result<Vec<_>, _>>()?;
    if let Some(r) = a.risk {
        if !(r.is_finite() && r > 0.0 && r < 1.0) {
            bail!(UsageError(format!(
                "--risk {r} is not allowed; give the largest acceptable chance of a year that misses, between 0 and 1, e.g. 0.1"
            )));
        }
        if targets.is_empty() {
            bail!(UsageError("--risk needs at least one --target, e.g. --target 'wait_p95_h<=2' --risk 0.1".into()));
        }
    }
    let text = std::fs::read_to_string(&a.scenario)
        .map_err(|cause| ScenarioError::Read { path: a.scenario.display().to_string(), cause })?;
    let file = a.scenario.display().to_string();
    let mut sw = Sweep::new(&text, &file, &a.params)?;
    for key in &a.decisions {
        sw.set_role(key, sweep::Role::Decision)?;
    }
    for key in &a.conditions {
        sw.set_role(key, sweep::Role::Condition)?;
    }
    for spec in &a.weights {
        let (key, w) = sweep::parse_weights(spec)?;
        sw.set_weights(&key, w)?;
    }
    if let Some(n) = a.replications {
        if n == 0 {
            bail!(UsageError("--replications 0 is not allowed".into()));
        }
        sweep::set_path(&mut sw.base, "simulation.replications", &n.to_string())?;
    }
    if let Some(s) = a.seed {
        sweep::set_path(&mut sw.base, "simulation.seed", &s.to_string())?;
    }
    let first = sw.scenario(0)?;
    burstsim::target::check_classes(&targets, &first.class_names()).map_err(UsageError)?;
    let pairs = match &a.break_even {
        None => None,
        Some(spec) => {
            let (x, y) = spec
                .split_once(',')
                .ok_or_else(|| UsageError(format!("--break-even '{spec}' must be POLICY_A,POLICY_B")))?;
            for p in [x, y] {
                if first.policy_index(p.trim()).is_none() {
                    let names: Vec<&str> = first.policies.iter().map(|p| p.name.as_str()).collect();
                    bail!(UsageError(format!(
                        "--break-even: no policy is named '{}'; the policies are: {}",
                        p.trim(),
                        names.join(", ")
                    )));
                }
            }
            Some((x.trim().to_string(), y.trim().to_string()))
        }
    };
    // output/threshold-sweep/, not output/threshold-sweep-sweep/; a scenario whose name
    // does not say "sweep" gets the suffix, so its sweep never meets its run's folder.
    let folder = if first.name.ends_with("sweep") { first.name.clone() } else { format!("{}-sweep", first.name) };
    let out_dir = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(folder));
    let shard = a.shard.as_deref().map(burstsim::experiment::shard::parse_spec).transpose()?;
    // Shards of one sweep share the folder: none may remove the others' points.
    // A folder holding this same sweep keeps its finished points (shards of one sweep
    // share it); another sweep's folder is refused unless --force.
    let _lock = match shard {
        None => lock_out_dir(&out_dir, "sweep")?,
        // The shards of one sweep write the folder together, each holding its own slot.
        Some((i, n)) => announced(burstsim::output::lock::OutputLock::shared(
            &out_dir,
            "sweep shard",
            &store::sweep_hash(&sw),
            &format!("shard-{i}-of-{n}"),
        )?),
    };
    let st = store::Store::open(&out_dir, &sw, a.resume || shard.is_some(), a.force)?;
    let pool = pool(a.threads)?;
    let total = sw.points.len();
    let done_before = (0..total).filter(|&p| st.is_done(p)).count();
    if done_before > 0 && !a.quiet {
        if a.resume || shard.is_some() {
            say!("burstsim: resuming: {done_before} of {total} points already finished in {}", out_dir.display());
        } else {
            say!(
                "burstsim: '{}' holds this same sweep: reusing its {done_before} of {total} finished points (the same numbers; --force recomputes them)",
                out_dir.display()
            );
        }
    }
    // Progress in policy-replications, the unit of work: a point that reuses a policy
    // simulated at an earlier point costs less, and counting points made the ETA wrong.
    let to_run = |p: usize| !(st.is_done(p) || shard.is_some_and(|(i, n)| p as u32 % n != i));
    let mut planned = std::collections::HashSet::new();
    let (mut work, mut total_work) = (vec![0u64; total], 0u64);
    for (p, units) in work.iter_mut().enumerate() {
        if to_run(p) {
            let scn = sw.scenario(p)?;
            let fresh = (0..scn.policies.len()).filter(|&k| planned.insert(sweep::policy_key(&scn, k))).count();
            *units = fresh as u64; // per replication
            total_work += fresh as u64 * u64::from(scn.replications);
        }
    }
    let pb = progress_bar(total_work, a.quiet, "policy-replications");
    let started = Instant::now();
    let mut cache = std::collections::HashMap::new();
    for (p, &units) in work.iter().enumerate() {
        if !to_run(p) {
            continue;
        }
        let scn = sw.scenario(p)?;
        pb.set_message(format!("policy-replications, point {}", sw.label(p)));
        let tick = || pb.inc(units);
        let Some(results) = pool.install(|| sweep::run_point(&scn, &mut cache, &tick, &interrupted))? else {
            pb.finish_and_clear();
            let done = (0..total).filter(|&p| st.is_done(p)).count();
            say!(
                "burstsim: interrupted: {done} of {total} points are finished and kept in {}; continue with the same command plus --resume",
                out_dir.display()
            );
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        };
        st.save(p, &sw.label(p), &scn, &results)?;
    }
    pb.finish_and_clear();
    let done = (0..total).filter(|&p| st.is_done(p)).count();
    if done < total {
        let Some((i, n)) = shard else {
            // Every point ran in this process: a point that reads as unfinished now was
            // replaced by another process writing there without the lock (an older burstsim).
            let missing: Vec<String> = (0..total).filter(|&p| !st.is_done(p)).map(|p| format!("{p:04}")).collect();
            bail!(
                "points {} in '{}' were changed by another process while this sweep ran; nothing was assembled. \
                 Run the sweep again into a folder that only it writes",
                missing.join(", "),
                out_dir.display()
            );
        };
        say!(
            "burstsim: sweep shard {i}/{n} finished; {done} of {total} points are done in {}. When every shard has finished, \
             `burstsim sweep {} --resume --out {}` (same options) assembles sweep.csv",
            out_dir.display(),
            a.scenario.display(),
            out_dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut summaries = Vec::new();
    let mut raw = Vec::new();
    for p in 0..total {
        let (s, r) = st.load(p)?;
        summaries.push(s);
        raw.push(r);
    }
    let encoding = output::csv::Encoding::excel(a.excel);
    output::atomic_write(&out_dir.join("sweep.csv"), &encoding.encode(store::sweep_csv(&sw, &raw)))?;
    // Per point and policy, the simulated years that missed the targets (None: the point
    // was written by an older burstsim without per-year values).
    let risks: Vec<Option<Vec<burstsim::experiment::risk::PolicyRisk>>> = if targets.is_empty() {
        vec![None; total]
    } else {
        (0..total).map(|p| st.load_risk(p, &targets)).collect::<Result<_, _>>()?
    };
    let points: Vec<recommend::PointResult> = summaries
        .into_iter()
        .enumerate()
        .map(|(i, s)| recommend::PointResult {
            point: i,
            label: sw.label(i),
            summaries: s,
            risk: risks[i].clone().unwrap_or_default(),
        })
        .collect();

    let mut report = String::new();
    report.push_str(&format!(
        "{}: sweep of {} points × {} policies, {} replications per point; mean ± 95% CI half-width\n\n",
        first.name,
        total,
        first.policies.len(),
        first.replications
    ));
    report.push_str(&format!(
        "{:<44} {:<20} {:>22} {:>16} {:>16} {:>12}{}\n",
        "point",
        "policy",
        "total cost (CNY)",
        "mean wait (h)",
        "p95 wait (h)",
        "cloud (%)",
        if targets.is_empty() { String::new() } else { format!(" {:>16}", "years missing") }
    ));
    let row = |label: &str, pr: &recommend::PointResult, name: &str| {
        let g = |m: Metric| pr.summaries.get(name, m).map(|r| r.summary);
        let f = |m: Metric, scale: f64, d: usize| {
            g(m).map_or("–".to_string(), |s| {
                if s.half_width.is_nan() {
                    format!("{:.*}", d, s.mean * scale)
                } else {
                    format!("{:.*} ± {:.*}", d, s.mean * scale, d, s.half_width * scale)
                }
            })
        };
        let missing = if targets.is_empty() {
            String::new()
        } else {
            let c = pr.risk.iter().find(|r| r.policy == name).map(|r| r.count);
            format!(
                " {:>16}",
                c.map_or("–".to_string(), |c| format!("{}/{} ({:.0}%)", c.missed, c.years, c.share() * 100.0))
            )
        };
        format!(
            "{:<44} {:<20} {:>22} {:>16} {:>16} {:>12}{missing}\n",
            label,
            name,
            f(Metric::TotalCost, 1.0, 0),
            f(Metric::WaitMean, 1.0, 2),
            f(Metric::WaitP95, 1.0, 2),
            f(Metric::CloudJobShare, 100.0, 1)
        )
    };
    // A policy the sweep does not touch has the same results at every point: show it once.
    // It is "the same" when its whole row reads the same at every point (every shown
    // figure and the years missing the targets): with zero prices the cost alone is the
    // same at every point while the waits differ.
    let constant = |name: &str| {
        let first_row = row("", &points[0], name);
        points.len() > 1 && points.iter().all(|pr| row("", pr, name) == first_row)
    };
    for pr in &points {
        for policy in first.policies.iter().filter(|p| !constant(&p.name)) {
            report.push_str(&row(&pr.label, pr, &policy.name));
        }
    }
    for policy in first.policies.iter().filter(|p| constant(&p.name)) {
        report.push_str(&row("(same at every point)", &points[0], &policy.name));
    }
    let conditions = sw.params.iter().any(|p| p.role == sweep::Role::Condition);
    st.record_analysis(&sw, &targets, a.risk)?;
    if targets.is_empty() {
        // An earlier sweep's recommendation in this folder would be stale now.
        for f in ["recommendation.txt", "risk.csv", "decisions.csv"] {
            let _ = std::fs::remove_file(out_dir.join(f));
        }
        if conditions && sw.params.iter().any(|p| p.role == sweep::Role::Decision) && !a.quiet {
            report.push_str(
                "\nGive --target to get the best decision at each scenario point and a robust choice across them.\n",
            );
        }
    } else {
        let mean = recommend::recommend(&points, &targets, recommend::Rule::MeanYear);
        let rule = match a.risk {
            None => recommend::Rule::MeanYear,
            Some(max_miss) => recommend::Rule::Risk { max_miss },
        };
        let axes: Vec<sweep::decide::Axis> = sw
            .params
            .iter()
            .map(|p| sweep::decide::Axis { key: p.key.clone(), role: p.role, weights: p.weights.clone() })
            .collect();
        let analysis = sweep::decide::analyse(&axes, &sw.points, &points, &targets, rule);
        output::atomic_write(&out_dir.join("decisions.csv"), &encoding.encode(analysis.csv(&points)))?;
        let (text, full) = if conditions {
            // Conditions are not choices: no "cheapest point" over them, but the best
            // decision at each scenario point and a robust choice.
            let text = analysis.render(&points);
            (text.clone(), text + &analysis.render_details())
        } else {
            match a.risk {
                None => (recommend::render(&mean, 12), recommend::render(&mean, usize::MAX)),
                Some(max_miss) => {
                    let risk = recommend::recommend(&points, &targets, recommend::Rule::Risk { max_miss });
                    // Only the risk rule's choice reads "choose policy …": charts mark that one.
                    let compare = format!("\n{}", recommend::render_comparison(&mean));
                    (recommend::render(&risk, 12) + &compare, recommend::render(&risk, usize::MAX) + &compare)
                }
            }
        };
        output::atomic_write(&out_dir.join("recommendation.txt"), full.as_bytes())?;
        if risks.iter().all(Option::is_some) {
            let all: Vec<_> = risks.iter().map(|r| r.clone().unwrap_or_default()).collect();
            output::atomic_write(
                &out_dir.join("risk.csv"),
                &encoding.encode(store::risk_csv(&sw, &targets, &all, mean.confidence_each)),
            )?;
        } else {
            let _ = std::fs::remove_file(out_dir.join("risk.csv"));
        }
        report.push('\n');
        report.push_str(&text);
    }
    let lines = recommend::break_even_lines(&first);
    if !lines.is_empty() {
        report.push_str("\nMonthly vs hourly from the scenario's prices (break-even utilisation):\n");
        for l in lines {
            report.push_str(&format!("  {l}\n"));
        }
    }
    if let Some((x, y)) = pairs {
        if sw.params.len() != 1 {
            say!("burstsim: warning: --break-even needs a one-parameter sweep; skipped");
        } else {
            let values: Vec<f64> = sw.params[0].values.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect();
            match recommend::crossing(&points, &values, &x, &y) {
                Some(c) => {
                    report.push_str(&format!(
                        "\nBreak-even along {}: the mean costs of '{x}' and '{y}' cross at about {:.3}; below it '{}' is cheaper.\n",
                        sw.params[0].key, c.value, c.cheaper_below
                    ));
                    for (name, u) in [(&x, c.monthly_utilization.0), (&y, c.monthly_utilization.1)] {
                        if u.is_finite() {
                            report.push_str(&format!(
                                "  There '{name}' keeps its monthly GPUs about {:.0}% busy.\n",
                                u * 100.0
                            ));
                        }
                    }
                }
                None => report.push_str(&format!(
                    "\nBreak-even along {}: the mean costs of '{x}' and '{y}' do not cross in the swept range.\n",
                    sw.params[0].key
                )),
            }
        }
    }
    if !a.quiet {
        print!("{report}");
        println!(
            "\nFiles: {}/sweep.csv, points/*/{{summary,paired}}.csv{}",
            out_dir.display(),
            if targets.is_empty() { "" } else { ", recommendation.txt, risk.csv, decisions.csv" }
        );
    }
    crate::plot_cmd::after_sweep(&out_dir, &sw.base, a.no_charts, a.quiet);
    let unstable: usize =
        points.iter().filter(|p| p.summaries.rows.iter().any(|r| r.unstable_replications > 0)).count();
    if unstable > 0 {
        say!(
            "burstsim: warning: the campus is unstable in some replications at {unstable} of {total} points (offered load ≥ 1 or a growing backlog); their averages depend on the horizon"
        );
    }
    say!("burstsim: {} points ({} resumed) in {:.1} s", total, done_before, started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

fn run_shard(a: &RunArgs, scenario: &Scenario, spec: &str) -> Result<ExitCode> {
    use burstsim::experiment::{Results, shard};
    let (index, count) = shard::parse_spec(spec)?;
    if !a.ci_target.is_empty() || scenario.ci_target.is_some() {
        bail!(UsageError(
            "sequential stopping (ci_target) cannot be split into shards; give a fixed number of replications".into()
        ));
    }
    let reps = shard::replications(scenario.replications, index, count);
    // --out names the folder that collects every shard; each shard has its own folder
    // inside it (an --out that already ends in this shard's name is taken as that folder).
    let own = format!("shard-{index}-of-{count}");
    let base = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(&scenario.name).join("shards"));
    let out_dir = if base.file_name().is_some_and(|n| n.to_string_lossy() == own) { base } else { base.join(&own) };
    let shards_dir = out_dir.parent().map_or_else(|| std::path::PathBuf::from("."), std::path::Path::to_path_buf);
    let _lock = lock_out_dir(&out_dir, "shard")?;
    let claim = burstsim::output::occupied::claim_shard(&out_dir, scenario.hash(), index, count, a.force)?;
    if claim == burstsim::output::occupied::Claim::Forced {
        say!("burstsim: --force: replacing the shard in '{}'", out_dir.display());
    }
    let pool = pool(a.threads)?;
    let pb = progress_bar(reps.len() as u64, a.quiet, "replications");
    let started = Instant::now();
    let mut results = Results::new(scenario);
    let complete =
        pool.install(|| experiment::run_into_until(scenario, &reps, &mut results, &|| pb.inc(1), &interrupted))?;
    pb.finish_and_clear();
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
    use burstsim::experiment::{Stopping, shard};
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
