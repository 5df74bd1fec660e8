//! Built-in benchmarks behind `burstsim bench`: the engine alone on reference
//! configurations, the users' own work (the default scenario end to end, a saturated
//! season, the shipped sweeps on the node model), and Monte Carlo scaling over threads.
//!
//! The users' cases also run on the pool model **with the same jobs** (the same scenario
//! with `campus.placement` switched to the pool, repetitions interleaved with the node
//! runs), so the table gives how far the faithful model is from the idealised one in one
//! run, on one machine load.
//!
//! A command rather than `benches/` because it measures the exact binary users run, needs
//! no extra dependency or compile step, and can be repeated on any machine (including a
//! cluster node) with one line. Each case runs several times; we report the median and
//! the range, never a single time.

use std::collections::HashMap;
use std::time::Instant;

pub mod minimal_loop;

use crate::engine::{Observer, Place, simulate, simulate_observed};
use crate::experiment;
use crate::scenario::Scenario;
use crate::scenario::raw::Placement;
use crate::sweep::{self, Sweep};
use crate::units::SimTime;
use crate::workload::JobStream;

/// One benchmark case and its measurements.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// Case name.
    pub name: String,
    /// What it measures.
    pub what: String,
    /// Work units per run (jobs, or replications).
    pub units: f64,
    /// Name of the unit.
    pub unit: &'static str,
    /// Wall-clock seconds of each repetition.
    pub seconds: Vec<f64>,
    /// Wall-clock seconds of each repetition of the same work on the pool model (same
    /// jobs), when the case has a pool twin.
    pub pool_seconds: Vec<f64>,
    /// Instructions one repetition executes, when counted ([`instructions`]).
    pub instructions: Option<f64>,
}

impl BenchResult {
    /// A case measured in jobs, without a pool twin.
    fn of_jobs(name: &str, what: &str, jobs: usize, seconds: Vec<f64>) -> BenchResult {
        BenchResult {
            name: name.into(),
            what: what.into(),
            units: jobs as f64,
            unit: "jobs",
            seconds,
            pool_seconds: Vec::new(),
            instructions: None,
        }
    }
    fn sorted(&self) -> Vec<f64> {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        s
    }
    /// Median seconds.
    pub fn median(&self) -> f64 {
        crate::stats::percentile_sorted(&self.sorted(), 0.5)
    }
    /// Fastest and slowest repetition.
    pub fn range(&self) -> (f64, f64) {
        let s = self.sorted();
        (s[0], s[s.len() - 1])
    }
    /// Units per second at the median.
    pub fn rate(&self) -> f64 {
        self.units / self.median()
    }
    /// This case's speed as a share of the pool model's on the same jobs (pool median
    /// seconds over this median), when it has a pool twin.
    pub fn pool_ratio(&self) -> Option<f64> {
        if self.pool_seconds.is_empty() {
            return None;
        }
        let mut s = self.pool_seconds.clone();
        s.sort_by(f64::total_cmp);
        Some(crate::stats::percentile_sorted(&s, 0.5) / self.median())
    }
    /// Instructions per unit (per job), when counted.
    pub fn instructions_per_unit(&self) -> Option<f64> {
        self.instructions.map(|i| i / self.units)
    }
}

/// Instructions that one repetition of a bench case executes, counted by callgrind: this
/// binary is run again as `bench --only ONLY --repetitions 1 ARGS` under `valgrind
/// --tool=callgrind`, collecting only inside [`counted`] (or [`counted_twin`] when `twin`),
/// i.e. the work the case times, without setup. Unlike seconds, the count does not depend
/// on the machine's load, so it is the figure to compare on a busy machine. `None` when
/// valgrind is not installed or the run fails. (Hardware counters through `perf` would be
/// faster, but a container or VM often has none: `perf stat -e instructions true`.)
pub fn instructions(exe: &std::path::Path, only: &str, args: &[String], twin: bool) -> Option<f64> {
    let out = std::env::temp_dir().join(format!("burstsim-bench-{}-{only}-{twin}.callgrind", std::process::id()));
    let function = if twin { "burstsim::bench::counted_twin" } else { "burstsim::bench::counted" };
    let status = std::process::Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect={function}"))
        .arg(exe)
        .args(["bench", "--only", only, "--repetitions", "1"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    callgrind_total(&text?)
}

/// The instruction total of a callgrind output file (its `summary:` or `totals:` line).
pub fn callgrind_total(text: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix("summary:").or_else(|| l.strip_prefix("totals:")))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok())
        .map(|v| v as f64)
}

/// The reference engine configuration of the performance issue as a scenario: `gpus`
/// GPUs, `scheduler`, offered load `load`, GPU counts {1,2,4,8} w.p. {.5,.25,.15,.10},
/// lognormal runtimes with mean 6 h and σ = 1 (cv = √(e − 1)), sized for about `jobs`
/// jobs. All jobs are the group's, so per-job waits are recorded.
pub fn reference_scenario(gpus: u32, scheduler: &str, load: f64, jobs: f64) -> Scenario {
    reference_scenario_with_runtime(gpus, scheduler, load, jobs, 6.0)
}

/// As [`reference_scenario`] with another mean runtime (hours).
pub fn reference_scenario_with_runtime(
    gpus: u32,
    scheduler: &str,
    load: f64,
    jobs: f64,
    mean_runtime_h: f64,
) -> Scenario {
    let mean_gpus = 0.5 * 1.0 + 0.25 * 2.0 + 0.15 * 4.0 + 0.10 * 8.0;
    let rate_per_hour = load * f64::from(gpus) / (mean_gpus * mean_runtime_h);
    let horizon_days = (jobs / rate_per_hour / 24.0).clamp(1.0, 3650.0);
    let cv = (std::f64::consts::E - 1.0).sqrt();
    let text = format!(
        "name = \"reference\"\n[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = {horizon_days}\nwarmup_days = 0\nreplications = 1\n\
         [campus]\ngpus = {gpus}\nvram_gb = 80\nscheduler = \"{scheduler}\"\n\
         [[workload.classes]]\nname = \"ref\"\njobs_per_week = {}\ngpus = {{ kind = \"choice\", values = [1, 2, 4, 8], weights = [0.5, 0.25, 0.15, 0.10] }}\n\
         runtime_hours = {{ kind = \"lognormal\", mean = {mean_runtime_h}, cv = {cv} }}\nwalltime_factor = {{ kind = \"uniform\", low = 1.0, high = 3.0 }}\n",
        rate_per_hour * 168.0
    );
    Scenario::from_toml_str(&text, "reference").expect("the reference scenario is valid")
}

/// The node-model reference: `nodes` × 8 GPUs placed as Slurm's cons_tres does, EASY-
/// style backfill every 30 s, multifactor priority with fair-share over four accounts that
/// share the load equally (each with the reference job mix: {1,2,4,8} GPUs, lognormal 6 h,
/// walltime requests 1–3× the runtime), offered load `load`, one year.
pub fn reference_nodes_scenario(nodes: u32, load: f64) -> Scenario {
    let cv = (std::f64::consts::E - 1.0).sqrt();
    let mut text = format!(
        "name = \"reference-nodes\"\n[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 365\nwarmup_days = 0\nreplications = 1\n\
         [campus]\nplacement = \"nodes\"\nnodes = {nodes}\ngpus_per_node = 8\nvram_gb = 80\nscheduler = \"easy-backfill\"\n\
         priority = \"multifactor\"\n"
    );
    for a in 1..=4 {
        text.push_str(&format!("[[campus.accounts]]\nname = \"a{a}\"\n"));
    }
    text.push_str(&format!("[background]\noffered_load = {load}\n"));
    for a in 1..=4 {
        text.push_str(&format!(
            "[[background.classes]]\nname = \"c{a}\"\naccount = \"a{a}\"\n\
             gpus = {{ kind = \"choice\", values = [1, 2, 4, 8], weights = [0.5, 0.25, 0.15, 0.10] }}\n\
             runtime_hours = {{ kind = \"lognormal\", mean = 6.0, cv = {cv} }}\n\
             walltime_factor = {{ kind = \"uniform\", low = 1.0, high = 3.0 }}\n"
        ));
    }
    text.push_str("[[workload.classes]]\nname = \"none\"\njobs_per_week = 0\nruntime_hours = 1\n");
    Scenario::from_toml_str(&text, "reference-nodes").expect("the node reference scenario is valid")
}

/// Times the engine alone (one policy, one replication; generation excluded).
pub fn engine_case(name: &str, what: &str, scenario: &Scenario, repetitions: usize) -> BenchResult {
    let jobs = JobStream::generate(scenario, 0);
    let mut seconds = Vec::new();
    for _ in 0..repetitions {
        let t = Instant::now();
        let out = counted(|| simulate(scenario, &jobs, 0, 0));
        seconds.push(t.elapsed().as_secs_f64());
        std::hint::black_box(out);
    }
    BenchResult::of_jobs(name, what, jobs.jobs.len(), seconds)
}

/// The engine on a strict-FCFS pool scenario against [`minimal_loop`] on the same jobs,
/// like for like: each side draws the jobs (the engine by `JobStream::generate`, the loop
/// by its own draws of the same quantities from the same streams) and keeps the same
/// headline statistics; repetitions interleaved so both see the same machine load. The
/// engine's case (named `name`) and the loop's (`fcfs-minimal-loop`), and how many jobs
/// start at a different time in the two (0 when they simulate the same model, which the
/// comparison needs).
pub fn engine_vs_minimal_loop(
    name: &str,
    what: &str,
    scenario: &Scenario,
    repetitions: usize,
) -> (BenchResult, BenchResult, usize) {
    let (mut engine, mut minimal) = (Vec::new(), Vec::new());
    let (mut differ, mut jobs) = (0, 0);
    for _ in 0..repetitions {
        let t = Instant::now();
        let (stream, out) = counted(|| {
            let stream = JobStream::generate(scenario, 0);
            let out = simulate(scenario, &stream, 0, 0);
            (stream, out)
        });
        engine.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let outcome = std::hint::black_box(counted_twin(|| minimal_loop::run(scenario, 0)));
        minimal.push(t.elapsed().as_secs_f64());
        differ = out.records.iter().zip(&outcome.starts).filter(|(r, s)| r.start != **s).count();
        jobs = stream.jobs.len();
    }
    let case = |name: &str, what: &str, seconds| BenchResult::of_jobs(name, what, jobs, seconds);
    (
        case(name, &format!("{what}, generation included"), engine),
        case(
            "fcfs-minimal-loop",
            "the same jobs drawn and run in the smallest strict-FCFS loop, keeping the engine's headline statistics (bench/minimal_loop.rs), 1 thread",
            minimal,
        ),
        differ,
    )
}

/// Runs `f`: the work of one repetition of a case, the only code whose instructions
/// `bench --instructions` counts (callgrind collects inside this function alone,
/// [`instructions`]). Never inlined, so that it keeps its name in the binary.
#[inline(never)]
pub fn counted<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// As [`counted`], for the twin a case is compared with (the minimal loop, the pool).
#[inline(never)]
pub fn counted_twin<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Times one replication of every policy of a scenario, generation included.
pub fn end_to_end_case(name: &str, scenario: &Scenario, repetitions: usize) -> BenchResult {
    let mut seconds = Vec::new();
    let mut jobs = 0;
    for _ in 0..repetitions {
        let (s, n) = counted(|| time_end_to_end(scenario));
        seconds.push(s);
        jobs = n;
    }
    BenchResult {
        name: name.into(),
        what: format!("{} policies × 1 replication, generation included", scenario.policies.len()),
        units: jobs as f64,
        unit: "jobs",
        seconds,
        pool_seconds: Vec::new(),
        instructions: None,
    }
}

/// As [`end_to_end_case`], each repetition followed by the same work on the pool model
/// ([`on_pool`]), so both see the same machine load.
pub fn end_to_end_vs_pool(name: &str, what: &str, scenario: &Scenario, repetitions: usize) -> BenchResult {
    let pool = on_pool(scenario);
    let mut r = end_to_end_case(name, scenario, 0);
    for _ in 0..repetitions {
        let (s, n) = counted(|| time_end_to_end(scenario));
        r.seconds.push(s);
        r.units = n as f64;
        r.pool_seconds.push(counted_twin(|| time_end_to_end(&pool)).0);
    }
    r.what = format!("{what}; {} policies × 1 replication, generation included", scenario.policies.len());
    r
}

/// Seconds to generate replication 0 and simulate it under every policy, and the jobs
/// simulated (jobs × policies).
fn time_end_to_end(scenario: &Scenario) -> (f64, usize) {
    let t = Instant::now();
    let stream = JobStream::generate(scenario, 0);
    for p in 0..scenario.policies.len() {
        std::hint::black_box(simulate(scenario, &stream, p, 0));
    }
    (t.elapsed().as_secs_f64(), stream.jobs.len() * scenario.policies.len())
}

/// The same scenario on the pool model: one queue of identical GPUs (as many as the
/// nodes hold), the group's GPU limit, FCFS or EASY as the scenario says; node shapes,
/// priorities and the other accounts' limits are not modelled there. The job stream is
/// unchanged, so the two models simulate the same jobs.
///
/// Patience and balking are switched off there: the pool's queue can withdraw only the
/// group's jobs, so it cannot model other accounts giving up.
pub fn on_pool(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    s.campus.placement = Placement::Pool;
    for a in &mut s.campus.accounts {
        a.patience = Default::default();
    }
    s
}

/// The `saturated` case's scenario: the shipped default's campus, accounts and workload,
/// with its graduation season (background offered load 0.70 × 1.45 ≈ 1.0) started on
/// 1 March instead of 1 April, so that 86 days at load 1.0 (to 25 May) queue over 2,000
/// jobs (the default's own 55 days peak near 1,600); measured from 1 March after the
/// default's 14-day warm-up; campus-only (the queue is the point, not the cloud).
pub fn saturated_scenario() -> Scenario {
    let mut doc: toml::Table = toml::from_str(crate::scenario::DEFAULT_SCENARIO).expect("the default parses");
    let sim = doc.get_mut("simulation").and_then(toml::Value::as_table_mut).expect("the default has [simulation]");
    sim.insert("start_date".into(), "2027-03-01".into());
    sim.insert("horizon_days".into(), 86.into());
    crate::scenario::keys::set_path(&mut doc, "background.seasons.graduation-season.start", "03-01")
        .expect("the default has a graduation season");
    if let Some(toml::Value::Array(policies)) = doc.get_mut("policies") {
        policies.retain(|p| p.get("kind").and_then(toml::Value::as_str) == Some("campus-only"));
    }
    let text = toml::to_string(&doc).expect("serialises");
    Scenario::from_toml_str(&text, "saturated").expect("the saturated scenario is valid")
}

/// A scenario cut to `days` of measured window after one day of warm-up (a smoke test's
/// version of a long case: it runs the same code, it measures nothing).
///
/// # Panics
/// When the shortened scenario does not validate (a shipped scenario always does).
pub fn shortened(scenario: &Scenario, days: f64) -> Scenario {
    let mut raw = scenario.raw.clone();
    raw.simulation.horizon_days = Some(days);
    raw.simulation.warmup_days = 1.0;
    Scenario::from_raw(raw).expect("a shortened shipped scenario is valid")
}

/// Counts waiting jobs over time: submissions minus first campus starts.
#[derive(Default)]
struct FirstStarts {
    seen: std::collections::HashSet<u32>,
    times: Vec<SimTime>,
}

impl Observer for FirstStarts {
    fn started(&mut self, t: SimTime, job: u32, place: Place, _gpus: u32) {
        if place == Place::Campus && self.seen.insert(job) {
            self.times.push(t);
        }
    }
}

/// The most jobs waiting at once for their first start on campus in replication 0 of a
/// campus-only scenario (every job is submitted to campus), to show that a case is as
/// saturated as it claims.
pub fn peak_queued(scenario: &Scenario) -> usize {
    let stream = JobStream::generate(scenario, 0);
    let mut starts = FirstStarts::default();
    simulate_observed(scenario, &stream, 0, 0, &mut starts);
    let mut submits: Vec<SimTime> = stream.jobs.iter().map(|j| j.submit).collect();
    submits.sort_unstable();
    starts.times.sort_unstable();
    let (mut peak, mut s) = (0usize, 0usize);
    for (i, &t) in submits.iter().enumerate() {
        while s < starts.times.len() && starts.times[s] <= t {
            s += 1;
        }
        peak = peak.max(i + 1 - s.min(i + 1));
    }
    peak
}

/// Times a shipped sweep on the node model (`campus.placement = "nodes"` forced in the
/// document, whatever the file says) at `replications` per point, and the same sweep on
/// the pool model, interleaved; policies unchanged between points are reused as `burstsim
/// sweep` does. `shrink_days`: a short horizon for a smoke test. Units: jobs simulated,
/// counted from replication 0 of each point's job stream (replications differ by a few
/// percent) times the replications and policies run.
///
/// # Panics
/// When the shipped file does not make a valid sweep (a bug caught by the smoke test).
pub fn sweep_case(
    name: &str,
    text: &str,
    file: &str,
    replications: u32,
    repetitions: usize,
    shrink_days: Option<u32>,
) -> BenchResult {
    let mut sw = Sweep::new(text, file, &[]).expect("the shipped sweep is valid");
    let campus = sw.base.get_mut("campus").and_then(toml::Value::as_table_mut).expect("the sweep has [campus]");
    campus.insert("placement".into(), "nodes".into());
    let sim = sw.base.get_mut("simulation").and_then(toml::Value::as_table_mut).expect("the sweep has [simulation]");
    sim.insert("replications".into(), i64::from(replications).into());
    if let Some(days) = shrink_days {
        sim.insert("horizon_days".into(), i64::from(days).into());
        sim.insert("warmup_days".into(), 1.into());
    }
    let points: Vec<Scenario> =
        (0..sw.points.len()).map(|p| sw.scenario(p).expect("every point of the shipped sweep is valid")).collect();
    let run_all = |scenarios: &[Scenario]| -> (f64, f64) {
        let t = Instant::now();
        let mut cache = HashMap::new();
        let mut jobs = 0.0;
        for s in scenarios {
            let fresh = (0..s.policies.len()).filter(|&p| !cache.contains_key(&sweep::policy_key(s, p))).count();
            let results = sweep::run_point(s, &mut cache, &|| {}, &|| false)
                .expect("the shipped sweep's points run within the watchdog's budget");
            std::hint::black_box(results);
            jobs += (fresh * s.replications as usize) as f64;
        }
        (t.elapsed().as_secs_f64(), jobs)
    };
    let pool: Vec<Scenario> = points.iter().map(on_pool).collect();
    let (mut seconds, mut pool_seconds, mut policy_years) = (Vec::new(), Vec::new(), 0.0);
    for _ in 0..repetitions {
        let (s, n) = run_all(&points);
        seconds.push(s);
        policy_years = n;
        pool_seconds.push(run_all(&pool).0);
    }
    // Jobs per policy-replication, from each point's replication 0.
    let per_year =
        points.iter().map(|s| JobStream::generate(s, 0).jobs.len() as f64).sum::<f64>() / points.len() as f64;
    BenchResult {
        name: name.into(),
        what: format!(
            "{file} on nodes, {} points × {replications} replications ({policy_years:.0} policy-replications), all threads",
            points.len()
        ),
        units: policy_years * per_year,
        unit: "jobs",
        seconds,
        pool_seconds,
        instructions: None,
    }
}

/// Times a Monte Carlo run of a scenario on `threads` threads.
pub fn monte_carlo_case(scenario: &Scenario, threads: usize, repetitions: usize) -> BenchResult {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let mut seconds = Vec::new();
    for _ in 0..repetitions {
        let t = Instant::now();
        let r = pool.install(|| experiment::run(scenario, None, &|| {}));
        seconds.push(t.elapsed().as_secs_f64());
        std::hint::black_box(r);
    }
    BenchResult {
        name: format!("monte-carlo-{threads}t"),
        what: format!(
            "{} × {} replications × {} policies, {threads} thread(s)",
            scenario.name,
            scenario.replications,
            scenario.policies.len()
        ),
        units: f64::from(scenario.replications),
        unit: "replications",
        seconds,
        pool_seconds: Vec::new(),
        instructions: None,
    }
}

/// The results as an aligned table.
pub fn to_table(results: &[BenchResult]) -> String {
    let mut out = format!(
        "{:<20} {:>10} {:>21} {:>16} {:>8} {:>10}  {}\n",
        "case", "median s", "range s", "rate", "vs pool", "instr/job", "what"
    );
    for r in results {
        let (lo, hi) = r.range();
        let rate = r.rate();
        let rate = if rate >= 1e6 {
            format!("{:.2} M {}/s", rate / 1e6, r.unit)
        } else if rate >= 1e3 {
            format!("{:.0} k {}/s", rate / 1e3, r.unit)
        } else {
            format!("{rate:.2} {}/s", r.unit)
        };
        let vs_pool = r.pool_ratio().map_or("-".to_string(), |x| format!("{x:.2}"));
        let per_job = r.instructions_per_unit().map_or("-".to_string(), |x| format!("{x:.0}"));
        out.push_str(&format!(
            "{:<20} {:>10.3} {:>10.3} – {:<8.3} {:>16} {:>8} {:>10}  {}\n",
            r.name,
            r.median(),
            lo,
            hi,
            rate,
            vs_pool,
            per_job,
            r.what
        ));
    }
    out
}

/// Peak resident memory of this process so far, in MiB (Linux `VmHWM`; `None` elsewhere).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Generates and simulates a large year once (metrics only), returning the job count and
/// the peak resident memory afterwards (run it in a fresh process for a clean figure).
pub fn memory_case(scenario: &Scenario) -> (usize, Option<f64>) {
    let jobs = JobStream::generate(scenario, 0);
    let n = jobs.jobs.len();
    std::hint::black_box(crate::engine::simulate_metrics(scenario, &jobs, 0, 0));
    (n, peak_rss_mib())
}
