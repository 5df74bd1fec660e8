//! Queueing-theory validation of the engine (`burstsim validate`): built-in M/M/1 and
//! M/M/c cases are run through the real scenario checks and the real engine, and the
//! measured mean wait, P(wait > 0), P(wait > t) and utilisation are compared with Erlang C
//! ([`crate::stats::queueing`]), with Student-t 95% confidence intervals from independent
//! replications; Little's law (L = λW) is checked on every case.
//!
//! Each case is an ordinary [`Scenario`] built through [`RawScenario`] →
//! [`Scenario::from_raw`]: a campus of `c` GPUs under FCFS, no group limit, no walltime
//! limit, no maintenance, no background load, one group class of 1-GPU jobs with
//! exponential runtimes of mean 1 h (walltime factor 1) arriving as a Poisson stream at
//! `ρ·c` jobs per hour, and the default campus-only policy. The engine's clock rounds
//! runtimes to the nearest second and arrival times down to the second; that moves
//! utilisation by about 0.01% and the mean wait by at most a few tenths of a percent (a
//! second against 88 s of mean wait for M/M/256, hours for M/M/1).
//!
//! The compared figures, per replication (over the jobs submitted after the warm-up),
//! then summarised across replications:
//! - `wait_mean_h`: mean wait in queue, vs E(W_q) = C/(cμ − λ);
//! - `p_wait`: share of jobs that waited at all, vs the Erlang C probability C;
//! - `p_wait_gt_mean`: share of jobs that waited longer than t = E(W_q) (the case's
//!   [`Case::tail_hours`]), vs C·exp(−(cμ − λ)t) = C·e^(−C);
//! - `utilization`: time-average busy share of the GPUs, vs ρ;
//! - `little_ratio`: L/(λW), vs 1 (below).
//!
//! # Pass rules
//! For every Erlang C metric (`wait_mean_h`, `p_wait`, `p_wait_gt_mean`) and for
//! `utilization` a row passes when
//! 1. the 95% CI is informative: its half-width is at most [`MAX_REL_HALF_WIDTH`] (10%)
//!    of the theoretical value, so a pass is never bought with a CI too wide to say
//!    anything; **and**
//! 2. the theoretical value lies inside the 95% CI, **or** the simulated mean is within
//!    [`REL_TOLERANCE`] (3%) of it. The tolerance keeps a very precise estimate from
//!    failing over a bias far below anything a user would notice (e.g. the 1-second
//!    clock), while the CI keeps a noisy estimate honest.
//!
//! Little's law is an identity on every sample path up to the jobs that straddle the
//! ends of the measured window, so it is checked per replication as the ratio
//! `L / (λ·W)` (L = time-average number waiting, λ = arrivals per hour, W = mean wait, all
//! over the measured window); the row passes when 1 is inside the CI of the ratio or the
//! mean ratio is within [`LITTLE_TOLERANCE`] (1%) of 1, with the same CI-width condition.
//! The straddling jobs move the ratio by about (jobs waiting × mean residual wait) ÷
//! (L × window), below 0.1% for every built-in case, so a 1% miss means the engine's queue
//! accounting and its wait accounting disagree.
//!
//! With 95% CIs, a row whose CI is wider than the tolerance fails by chance for about 1
//! seed in 20 even when the engine is right; the built-in sizes keep the CIs within the
//! tolerance except for the mean wait and P(W > t) of M/M/256 (see [`builtin_cases`]).
//! The default seed is fixed, so `cargo test` is not flaky.
//!
//! Results are deterministic: replications run in parallel (rayon) but are collected in
//! replication order, and every random stream derives from `(seed, replication)`.

use rayon::prelude::*;

use crate::engine;
use crate::metric::Metric;
use crate::rng::{Purpose, derive_seed};
use crate::scenario::Scenario;
use crate::scenario::dist::DistSpec;
use crate::scenario::raw::{
    Placement, PriorityKind, RawCampus, RawJobClass, RawScenario, RawSimulation, RawWorkload, SchedulerKind,
};
use crate::stats::queueing::{erlang_c, mmc_mean_wait, mmc_wait_exceeds};
use crate::stats::{Summary, summarize};
use crate::workload::JobStream;

/// Largest relative error (vs theory) accepted for an Erlang C metric or utilisation when
/// the theoretical value is outside the 95% CI.
pub const REL_TOLERANCE: f64 = 0.03;

/// Largest deviation of the Little's-law ratio `L / (λW)` from 1 accepted when 1 is
/// outside its 95% CI.
pub const LITTLE_TOLERANCE: f64 = 0.01;

/// Largest 95% CI half-width, relative to the theoretical value, for a row to pass at all.
pub const MAX_REL_HALF_WIDTH: f64 = 0.10;

/// Default master seed of `burstsim validate`.
pub const DEFAULT_SEED: u64 = 20_260_901;

/// Service rate: jobs per hour per GPU (runtimes are exponential with mean 1 h).
const MU: f64 = 1.0;

/// The CSV header of [`to_csv`] (a stable contract).
pub const CSV_HEADER: &str = "case,servers,rho,metric,theory,simulated,ci95_low,ci95_high,pass";

/// One M/M/c validation case and how much to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Name shown in the table and CSV, e.g. `M/M/16 rho=0.90`.
    pub name: String,
    /// Servers `c` (campus GPUs).
    pub servers: u32,
    /// Utilisation ρ = λ/(cμ), below 1.
    pub rho: f64,
    /// The `t` of P(wait > t), hours: the theoretical mean wait E(W_q), so that the
    /// theoretical value is C·exp(−C).
    pub tail_hours: f64,
    /// Simulated days per replication (arrivals stop here).
    pub horizon_days: f64,
    /// Days at the start of each replication left out of every measurement.
    pub warmup_days: f64,
    /// Independent replications (default; [`run_all`] may override).
    pub replications: u32,
}

impl Case {
    /// An M/M/`servers` case at utilisation `rho` with about `jobs_per_replication`
    /// measured jobs in each of `replications` replications. The warm-up is ten relaxation
    /// times `1/(μ(√c − √a)²)` (a = ρc; for M/M/1 this is exactly the relaxation time
    /// `1/(μ(1 − √ρ)²)`, 16 days at ρ = 0.9), rounded up to whole days: the transient of
    /// starting empty decays like e^(−t/relaxation time), so it is gone long before.
    ///
    /// # Panics
    /// If `servers` is 0 or `rho` is not in (0, 1). A case whose warm-up plus measured days
    /// exceed the scenario limit (3650 days) panics later, in [`Case::scenario`].
    pub fn mmc(servers: u32, rho: f64, jobs_per_replication: f64, replications: u32) -> Case {
        assert!(servers > 0 && rho > 0.0 && rho < 1.0, "an M/M/c case needs c ≥ 1 and 0 < ρ < 1");
        let c = f64::from(servers);
        let a = rho * c;
        let relaxation_h = 1.0 / (MU * (c.sqrt() - a.sqrt()).powi(2));
        let warmup_days = (10.0 * relaxation_h / 24.0).ceil().max(1.0);
        let measured_days = (jobs_per_replication / (a * MU * 24.0)).ceil().max(1.0);
        Case {
            name: format!("M/M/{servers} rho={rho:.2}"),
            servers,
            rho,
            tail_hours: mmc_mean_wait(servers, a * MU, MU),
            horizon_days: warmup_days + measured_days,
            warmup_days,
            replications,
        }
    }

    /// Arrival rate λ, jobs per hour.
    pub fn lambda_per_hour(&self) -> f64 {
        self.rho * f64::from(self.servers) * MU
    }

    /// Expected measured jobs per replication.
    pub fn jobs_per_replication(&self) -> f64 {
        self.lambda_per_hour() * 24.0 * (self.horizon_days - self.warmup_days)
    }

    /// The scenario's master seed for master seed `seed`: mixed with the case's servers
    /// and load, so different cases draw independent random numbers (a lucky stream cannot
    /// make every case agree, or disagree, together).
    pub fn seed(&self, seed: u64) -> u64 {
        derive_seed(seed, u64::from(self.servers), Purpose::Test((self.rho * 1e6).round() as u64))
    }

    /// The case as a scenario (through the same checks as a scenario file), with master
    /// seed [`Case::seed`]`(seed)`.
    ///
    /// # Panics
    /// If the scenario checks refuse it (a bug: the built-in cases are valid).
    pub fn scenario(&self, seed: u64) -> Scenario {
        let seed = self.seed(seed);
        let raw = RawScenario {
            name: Some(format!("validate-mm{}", self.servers)),
            description: Some(format!("{}: Erlang C validation case", self.name)),
            description_zh: None,
            label: None,
            label_zh: None,
            simulation: RawSimulation {
                start_date: "2026-01-01".into(),
                horizon_days: Some(self.horizon_days - self.warmup_days),
                warmup_days: self.warmup_days,
                replications: self.replications.max(1),
                seed,
                ci_target: None,
                ci_target_paired: None,
                max_replications: None,
                baseline_policy: None,
                report_wait_thresholds_h: None,
                campus_model: None,
            },
            campus: RawCampus {
                gpus: Some(self.servers),
                nodes: None,
                gpus_per_node: None,
                gpu_type: "A100-40G".into(),
                vram_gb: Some(40.0),
                scheduler: SchedulerKind::Fcfs,
                // Every M/M/c case runs on the pool: c identical servers, FIFO.
                placement: Placement::Pool,
                priority: PriorityKind::Fifo,
                multifactor: None,
                bf_interval_seconds: None,
                bf_max_job_test: None,
                bf_reservations: None,
                bf_window_hours: None,
                bf_planner: None,
                bf_resolution_seconds: None,
                node_groups: vec![],
                partitions: vec![],
                accounts: vec![],
                group_gpu_limit: None,
                max_walltime_hours: None,
                price_per_gpu_hour_cny: 0.0,
                maintenance: vec![],
                node_failures: None,
                drains: vec![],
                reservations: vec![],
                time_limits: vec![],
                outages: None,
                scheduler_cycle_seconds: None,
                min_start_delay_seconds: None,
            },
            background: None,
            workload: RawWorkload {
                classes: vec![RawJobClass {
                    name: "poisson".into(),
                    label: None,
                    label_zh: None,
                    jobs_per_week: Some(self.lambda_per_hour() * 168.0),
                    load_share: None,
                    gpus: DistSpec::fixed(1.0),
                    runtime_hours: Some(DistSpec::exponential(1.0 / MU)),
                    vram_gb: DistSpec::fixed(0.0),
                    data_gb: DistSpec::fixed(0.0),
                    deadline_hours: None,
                    walltime_factor: DistSpec::fixed(1.0),
                    requests: None,
                    hourly_profile: None,
                    kind: Default::default(),
                    account: None,
                    partition: None,
                    nodes: None,
                    gpus_per_node: None,
                }],
                seasons: vec![],
                season_overlap: Default::default(),
                hourly_profile: None,
                account: None,
            },
            cloud: Default::default(),
            policies: vec![],
            sweep: None,
            sensitivity: None,
            calibration: None,
        };
        match Scenario::from_raw(raw) {
            Ok(s) => s,
            Err(e) => panic!("validation case '{}' is not a valid scenario: {e}", self.name),
        }
    }
}

/// The cases `burstsim validate` runs: M/M/1 at ρ = 0.5 and 0.9, M/M/4 at 0.8, M/M/16
/// at 0.9, M/M/64 at 0.9 and M/M/256 at 0.95, with 1 to 16 million measured jobs each
/// (about 45 million in all: some 10 s on 2 cores in release).
///
/// The sizes follow from how noisy the mean wait is, the noisiest figure: its 95% CI is
/// about ±1–3% for the first five cases and ±5% for M/M/256 at ρ = 0.95, whose waits
/// are short, rare and correlated over hours (±2% there would take some 100 million
/// jobs). Every other figure's CI is narrower.
pub fn builtin_cases() -> Vec<Case> {
    vec![
        Case::mmc(1, 0.5, 25_000.0, 40),
        Case::mmc(1, 0.9, 70_000.0, 80),
        Case::mmc(4, 0.8, 200_000.0, 20),
        Case::mmc(16, 0.9, 400_000.0, 20),
        Case::mmc(64, 0.9, 500_000.0, 20),
        Case::mmc(256, 0.95, 800_000.0, 20),
    ]
}

/// The built-in cases with about 40% of the jobs, for a quicker smoke run (about 4 s on 2
/// cores): CIs about 1.6 times as wide, still within [`MAX_REL_HALF_WIDTH`]. M/M/256 keeps
/// 30 replications of 400,000 jobs: with 20 its mean-wait CI sat at the 10% limit
/// (10.3% after the arrival sampler changed), i.e. the precision rule, not the engine,
/// decided the row.
pub fn quick_cases() -> Vec<Case> {
    vec![
        Case::mmc(1, 0.5, 25_000.0, 12),
        Case::mmc(1, 0.9, 70_000.0, 25),
        Case::mmc(4, 0.8, 70_000.0, 20),
        Case::mmc(16, 0.9, 130_000.0, 20),
        Case::mmc(64, 0.9, 170_000.0, 20),
        Case::mmc(256, 0.95, 400_000.0, 30),
    ]
}

/// One compared figure of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRow {
    /// Case name.
    pub case: String,
    /// Servers c.
    pub servers: u32,
    /// Utilisation ρ.
    pub rho: f64,
    /// What is compared: `wait_mean_h`, `p_wait`, `p_wait_gt_mean`, `utilization` or
    /// `little_ratio`.
    pub metric: String,
    /// The value queueing theory gives.
    pub theory: f64,
    /// Mean over replications.
    pub simulated: f64,
    /// Lower end of the 95% CI of the simulated value.
    pub ci95_low: f64,
    /// Upper end of the 95% CI.
    pub ci95_high: f64,
    /// Whether the row meets its pass rule (see the module documentation).
    pub pass: bool,
}

impl CheckRow {
    /// (simulated − theory) / theory.
    pub fn relative_error(&self) -> f64 {
        (self.simulated - self.theory) / self.theory
    }
}

/// The per-replication statistics of one case.
#[derive(Clone, Copy, Debug)]
struct RepStats {
    wait_mean: f64,
    p_wait: f64,
    p_tail: f64,
    utilization: f64,
    little_ratio: f64,
}

fn replicate(scenario: &Scenario, tail_hours: f64, replication: u64) -> RepStats {
    let jobs = JobStream::generate(scenario, replication);
    let m = engine::simulate(scenario, &jobs, 0, replication).metrics;
    let n = m.waits_h.len();
    let p_tail =
        if n == 0 { f64::NAN } else { m.waits_h.iter().filter(|&&w| w > tail_hours).count() as f64 / n as f64 };
    let wait_mean = m.get(Metric::WaitMean);
    RepStats {
        wait_mean,
        p_wait: m.get(Metric::WaitedShare),
        p_tail,
        utilization: m.get(Metric::CampusUtilization),
        little_ratio: m.get(Metric::QueueLenMean) / (m.get(Metric::ArrivalRatePerHour) * wait_mean),
    }
}

/// The pass rule of the module documentation.
fn passes(theory: f64, s: &Summary, tolerance: f64) -> bool {
    let finite = theory.is_finite() && s.mean.is_finite() && s.half_width.is_finite();
    let informative = s.half_width <= MAX_REL_HALF_WIDTH * theory.abs();
    let inside = s.low() <= theory && theory <= s.high();
    let close = (s.mean - theory).abs() <= tolerance * theory.abs();
    finite && informative && (inside || close)
}

/// Runs one case with `replications` replications (at least 2, for a CI) from master
/// seed `seed` and compares it with theory: rows `wait_mean_h`, `p_wait`,
/// `p_wait_gt_mean`, `utilization`, `little_ratio`, in that order.
///
/// # Panics
/// If the case is not a valid scenario (see [`Case::scenario`]).
pub fn run_case(case: &Case, replications: u32, seed: u64) -> Vec<CheckRow> {
    let scenario = case.scenario(seed);
    let tail = case.tail_hours;
    let reps: Vec<RepStats> =
        (0..u64::from(replications)).into_par_iter().map(|r| replicate(&scenario, tail, r)).collect();
    let column = |f: fn(&RepStats) -> f64| summarize(&reps.iter().map(f).collect::<Vec<_>>());

    let c = case.servers;
    let lambda = case.lambda_per_hour();
    let erlang = erlang_c(c, lambda / MU);
    let checks: [(&str, f64, Summary, f64); 5] = [
        ("wait_mean_h", mmc_mean_wait(c, lambda, MU), column(|r| r.wait_mean), REL_TOLERANCE),
        ("p_wait", erlang, column(|r| r.p_wait), REL_TOLERANCE),
        ("p_wait_gt_mean", mmc_wait_exceeds(c, lambda, MU, tail), column(|r| r.p_tail), REL_TOLERANCE),
        ("utilization", case.rho, column(|r| r.utilization), REL_TOLERANCE),
        ("little_ratio", 1.0, column(|r| r.little_ratio), LITTLE_TOLERANCE),
    ];
    checks
        .into_iter()
        .map(|(metric, theory, s, tol)| CheckRow {
            case: case.name.clone(),
            servers: c,
            rho: case.rho,
            metric: metric.to_string(),
            theory,
            simulated: s.mean,
            ci95_low: s.low(),
            ci95_high: s.high(),
            pass: passes(theory, &s, tol),
        })
        .collect()
}

/// Runs every case in order, each with its own replication count or `replications`
/// when given, all from master seed `seed`.
pub fn run_all(cases: &[Case], replications: Option<u32>, seed: u64) -> Vec<CheckRow> {
    cases.iter().flat_map(|case| run_case(case, replications.unwrap_or(case.replications), seed)).collect()
}

/// True when every row passed (and there is at least one).
pub fn all_pass(rows: &[CheckRow]) -> bool {
    !rows.is_empty() && rows.iter().all(|r| r.pass)
}

/// A number for CSV: shortest round-trip text, empty for NaN.
fn csv_num(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v == 0.0 {
        "0".into()
    } else {
        format!("{v}")
    }
}

/// The rows as CSV with header [`CSV_HEADER`]; `pass` is `true` or `false`.
pub fn to_csv(rows: &[CheckRow]) -> String {
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    w.write_record(CSV_HEADER.split(',')).expect("writing to memory cannot fail");
    for r in rows {
        w.write_record([
            r.case.clone(),
            r.servers.to_string(),
            csv_num(r.rho),
            r.metric.clone(),
            csv_num(r.theory),
            csv_num(r.simulated),
            csv_num(r.ci95_low),
            csv_num(r.ci95_high),
            r.pass.to_string(),
        ])
        .expect("writing to memory cannot fail");
    }
    String::from_utf8(w.into_inner().expect("writing to memory cannot fail")).expect("CSV of UTF-8 text is UTF-8")
}

/// A number with four significant digits (plain notation from 1e-4 to 1e6).
fn sig4(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() { "–".into() } else { format!("{v}") };
    }
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&mag) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - mag).max(0) as usize;
    let text = format!("{v:.decimals$}");
    // 0.99996 rounds up to "1.0000": one decimal fewer keeps four significant digits.
    if decimals > 0 && text.trim_start_matches('-').parse::<f64>().is_ok_and(|r| r >= 10f64.powi(mag + 1)) {
        return format!("{v:.*}", decimals - 1);
    }
    text
}

/// The rows as an aligned table (case, c, ρ, metric, theory, simulated, 95% CI, relative
/// error, pass/FAIL) followed by a line counting the passes.
pub fn to_table(rows: &[CheckRow]) -> String {
    let header = ["case", "c", "rho", "metric", "theory", "simulated", "95% CI", "rel. error", "result"];
    let body: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                r.case.clone(),
                r.servers.to_string(),
                format!("{:.2}", r.rho),
                r.metric.clone(),
                sig4(r.theory),
                sig4(r.simulated),
                format!("[{}, {}]", sig4(r.ci95_low), sig4(r.ci95_high)),
                format!("{:+.2}%", 100.0 * r.relative_error()),
                if r.pass { "pass".into() } else { "FAIL".into() },
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    // Text columns align left, numbers right.
    let right = [false, true, true, false, true, true, true, true, false];
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = widths[i] - cell.chars().count();
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            } else {
                s.push_str(cell);
                if i + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(&header.map(String::from));
    out.push_str(&line(&widths.map(|w| "-".repeat(w))));
    for row in &body {
        out.push_str(&line(row));
    }
    let passed = rows.iter().filter(|r| r.pass).count();
    out.push_str(&format!("{passed} of {} checks passed\n", rows.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(metric: &str, theory: f64, simulated: f64, pass: bool) -> CheckRow {
        CheckRow {
            case: "M/M/4 rho=0.80".into(),
            servers: 4,
            rho: 0.8,
            metric: metric.into(),
            theory,
            simulated,
            ci95_low: simulated - 0.01,
            ci95_high: simulated + 0.01,
            pass,
        }
    }

    #[test]
    fn csv_has_the_contract_header_and_one_line_per_row() {
        let rows = vec![row("wait_mean_h", 0.7455, 0.75, true), row("p_wait", 0.5964, 0.5, false)];
        let csv = to_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "case,servers,rho,metric,theory,simulated,ci95_low,ci95_high,pass");
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("M/M/4 rho=0.80,4,0.8,wait_mean_h,0.7455,0.75,"), "{}", lines[1]);
        assert!(lines[1].ends_with(",true"));
        assert!(lines[2].ends_with(",false"));
        assert!(csv.ends_with('\n'));
    }

    #[test]
    fn table_is_aligned_and_counts_passes() {
        let rows = vec![row("wait_mean_h", 0.7455, 0.75, true), row("little_ratio", 1.0, 0.9, false)];
        let t = to_table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 5, "{t}");
        assert!(lines[0].starts_with("case"));
        // Every table line has the same width up to the last (left-aligned) column.
        let pos = |l: &str| l.find("pass").or_else(|| l.find("FAIL")).or_else(|| l.find("result"));
        assert_eq!(pos(lines[0]), pos(lines[2]));
        assert_eq!(pos(lines[2]), pos(lines[3]));
        assert!(lines[2].contains("+0.60%"), "{}", lines[2]);
        assert!(lines[3].ends_with("FAIL"));
        assert_eq!(lines[4], "1 of 2 checks passed");
    }

    #[test]
    fn pass_rule_needs_an_informative_ci_and_agreement() {
        let s = |mean: f64, hw: f64| Summary { n: 10, mean, std_dev: f64::NAN, half_width: hw };
        assert!(passes(1.0, &s(1.05, 0.06), REL_TOLERANCE)); // inside the CI
        assert!(passes(1.0, &s(1.02, 0.01), REL_TOLERANCE)); // outside, but within 3%
        assert!(!passes(1.0, &s(1.05, 0.01), REL_TOLERANCE)); // outside and 5% off
        assert!(!passes(1.0, &s(1.05, 0.2), REL_TOLERANCE)); // CI too wide to mean anything
        assert!(!passes(1.0, &s(f64::NAN, 0.01), REL_TOLERANCE));
    }

    #[test]
    fn sig4_formats() {
        assert_eq!(sig4(9.0), "9.000");
        assert_eq!(sig4(0.024412), "0.02441");
        assert_eq!(sig4(1234.6), "1235");
        assert_eq!(sig4(0.99996), "1.000");
        assert_eq!(sig4(-0.099996), "-0.1000");
        assert_eq!(sig4(f64::NAN), "–");
    }

    #[test]
    fn cases_are_valid_scenarios_with_the_requested_load() {
        for case in builtin_cases().iter().chain(&quick_cases()) {
            let s = case.scenario(1);
            assert_eq!(s.campus.gpus, case.servers);
            let rate_per_h = s.group[0].rate_per_sec * 3600.0;
            assert!((rate_per_h - case.rho * f64::from(case.servers)).abs() < 1e-9);
            assert!(case.warmup_days >= 1.0 && case.horizon_days > case.warmup_days);
        }
        let cases = builtin_cases();
        assert!(cases.iter().any(|c| c.servers >= 64 && c.rho >= 0.9));
        assert!(cases.iter().any(|c| c.servers == 1 && c.rho >= 0.9));
    }
}
