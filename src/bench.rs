//! Built-in benchmarks behind `burstsim bench`: the engine alone on reference
//! configurations, the default scenario end to end, and Monte Carlo scaling over threads.
//!
//! A command rather than `benches/` because it measures the exact binary users run, needs
//! no extra dependency or compile step, and can be repeated on any machine (including a
//! cluster node) with one line. Each case runs several times; we report the median and
//! the range, never a single time.

use std::time::Instant;

use crate::engine::simulate;
use crate::experiment;
use crate::scenario::Scenario;
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
}

impl BenchResult {
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
        let out = simulate(scenario, &jobs, 0, 0);
        seconds.push(t.elapsed().as_secs_f64());
        std::hint::black_box(out);
    }
    BenchResult { name: name.into(), what: what.into(), units: jobs.jobs.len() as f64, unit: "jobs", seconds }
}

/// Times one replication of every policy of a scenario, generation included.
pub fn end_to_end_case(name: &str, scenario: &Scenario, repetitions: usize) -> BenchResult {
    let mut seconds = Vec::new();
    let mut jobs = 0;
    for _ in 0..repetitions {
        let t = Instant::now();
        let stream = JobStream::generate(scenario, 0);
        for p in 0..scenario.policies.len() {
            std::hint::black_box(simulate(scenario, &stream, p, 0));
        }
        seconds.push(t.elapsed().as_secs_f64());
        jobs = stream.jobs.len() * scenario.policies.len();
    }
    BenchResult {
        name: name.into(),
        what: format!("{} policies × 1 replication, generation included", scenario.policies.len()),
        units: jobs as f64,
        unit: "jobs",
        seconds,
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
    }
}

/// The results as an aligned table.
pub fn to_table(results: &[BenchResult]) -> String {
    let mut out = format!("{:<20} {:>10} {:>21} {:>16}  {}\n", "case", "median s", "range s", "rate", "what");
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
        out.push_str(&format!(
            "{:<20} {:>10.3} {:>10.3} – {:<8.3} {:>16}  {}\n",
            r.name,
            r.median(),
            lo,
            hi,
            rate,
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
