//! The engine against queueing theory: the `burstsim validate` cases (Erlang C for M/M/1
//! and M/M/c, Little's law) must all pass, and one well-sampled M/M/c case must match the
//! Erlang C mean wait within 3%, computed here straight from the engine's waits.

use burstsim::engine::simulate;
use burstsim::scenario::Scenario;
use burstsim::stats::queueing::{erlang_c, mmc_mean_wait};
use burstsim::validation::{self, CSV_HEADER, Case, DEFAULT_SEED};
use burstsim::workload::JobStream;
use rayon::prelude::*;

/// The quick set (the built-in cases with fewer jobs) passes every check with the default
/// seed, as `burstsim validate --quick` prints. The full built-in set takes three times as
/// long in the dev profile; CI runs it in release as `burstsim validate` (.ci/run), which
/// exits 1 when a check fails.
#[test]
fn quick_cases_agree_with_theory() {
    let rows = validation::run_all(&validation::quick_cases(), None, DEFAULT_SEED);
    let table = validation::to_table(&rows);
    println!("{table}");
    assert_eq!(rows.len(), 5 * validation::quick_cases().len());
    assert!(validation::all_pass(&rows), "some quick validation checks failed:\n{table}");
    let csv = validation::to_csv(&rows);
    assert_eq!(csv.lines().next(), Some(CSV_HEADER));
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",true")));
}

/// The rows do not depend on the number of threads.
#[test]
fn results_do_not_depend_on_thread_count() {
    let case = Case::mmc(4, 0.8, 5_000.0, 6);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let a = one.install(|| validation::run_case(&case, 6, 7));
    let b = three.install(|| validation::run_case(&case, 6, 7));
    assert_eq!(a, b);
}

/// M/M/16 at ρ = 0.8, written as a scenario file: 20 replications of about 500,000
/// measured jobs each. The pooled mean wait has a standard error of about 1% here, so a
/// 3% miss would be a real disagreement, not noise.
#[test]
fn mm16_mean_wait_is_within_three_percent_of_erlang_c() {
    let (c, rho) = (16u32, 0.8);
    let lambda = rho * f64::from(c); // jobs per hour; runtimes have mean 1 h
    let toml = format!(
        r#"
        [simulation]
        start_date = "2026-01-01"
        horizon_days = 1630
        warmup_days = 3
        seed = 4242

        [campus]
        gpus = {c}
        vram_gb = 40
        scheduler = "fcfs"

        [[workload.classes]]
        name = "poisson"
        jobs_per_week = {jobs_per_week}
        runtime_hours = {{ kind = "exponential", mean = 1.0 }}
        walltime_factor = 1.0
        "#,
        jobs_per_week = lambda * 168.0
    );
    let scenario = Scenario::from_toml_str(&toml, "mm16.toml").expect("valid scenario");
    let per_rep: Vec<(f64, usize, usize)> = (0..20u64)
        .into_par_iter()
        .map(|r| {
            let jobs = JobStream::generate(&scenario, r);
            let waits = simulate(&scenario, &jobs, 0, r).metrics.waits_h;
            (waits.iter().sum::<f64>(), waits.iter().filter(|&&w| w > 0.0).count(), waits.len())
        })
        .collect();
    let total: usize = per_rep.iter().map(|p| p.2).sum();
    assert!(total > 9_000_000, "only {total} jobs measured");
    let mean_wait = per_rep.iter().map(|p| p.0).sum::<f64>() / total as f64;
    let waited = per_rep.iter().map(|p| p.1).sum::<usize>() as f64 / total as f64;
    let theory = mmc_mean_wait(c, lambda, 1.0);
    let rel = (mean_wait - theory) / theory;
    println!("M/M/16 ρ=0.8: mean wait {mean_wait:.5} h vs Erlang C {theory:.5} h ({:+.2}%)", 100.0 * rel);
    assert!(rel.abs() < 0.03, "mean wait {mean_wait} h vs Erlang C {theory} h: {:+.2}%", 100.0 * rel);
    let c_theory = erlang_c(c, lambda);
    assert!(((waited - c_theory) / c_theory).abs() < 0.03, "P(wait > 0) = {waited} vs Erlang C {c_theory}");
}
