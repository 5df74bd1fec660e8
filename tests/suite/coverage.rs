//! Measured coverage of the 95% CI on the default scenario (issue "Numbers a PI can
//! defend", item 9): how often the interval printed after `n` replications contains the
//! true mean, for the headline metrics whose across-year distributions are skewed, and
//! for each policy's paired difference against the baseline (what the decision rests on,
//! issue 43).
//!
//! Slow; run by hand (figures in docs/STATISTICS.md):
//! `COVERAGE_REFERENCE=1000 COVERAGE_EXPERIMENTS=200 COVERAGE_N=10 cargo test --release --test suite coverage:: -- --ignored --nocapture`
//!
//! `COVERAGE_N` may list several sizes (`10,20`): the experiment replications
//! (`COVERAGE_EXPERIMENTS` × the largest size) are then cut into blocks of each size in
//! turn, so one simulation measures every size (the blocks of different sizes overlap;
//! those of one size do not).
//!
//! The truth is the mean over `COVERAGE_REFERENCE` replications that no experiment uses
//! (its own standard error is printed and is small against the CI half-widths); the
//! experiments are disjoint blocks of `COVERAGE_N` further replications, each summarised
//! exactly as `burstsim run` summarises (Student-t 95%).

use burstsim::experiment::{self, Results};
use burstsim::metric::Metric;
use burstsim::scenario::Scenario;
use burstsim::stats::summarize;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
#[ignore = "slow: minutes in release; run by hand, figures go to docs/STATISTICS.md"]
fn coverage_of_the_default_scenarios_headline_cis() {
    let scn = Scenario::embedded_default();
    let (reference, experiments) = (env("COVERAGE_REFERENCE", 1000), env("COVERAGE_EXPERIMENTS", 200));
    let sizes: Vec<u64> = std::env::var("COVERAGE_N")
        .unwrap_or_else(|_| "10".into())
        .split(',')
        .map(|v| v.trim().parse().expect("COVERAGE_N: sizes like 10 or 10,20"))
        .collect();
    let largest = *sizes.iter().max().expect("COVERAGE_N: at least one size");
    let pool = experiments * largest;
    let reps: Vec<u64> = (0..reference + pool).collect();
    let mut results = Results::new(&scn);
    experiment::run_into(&scn, &reps, &mut results, &|| {});
    let metrics = [Metric::TotalCost, Metric::WaitMean, Metric::WaitP95, Metric::DeadlineMissRate];
    println!("policy,metric,truth,truth_se,experiments,n,coverage,coverage_se,mean_half_width");
    // Each policy's own figures, then its paired difference against the baseline (the
    // figure the decision rests on), as `paired.csv` and the decision print it.
    let mut columns = Vec::new();
    for (p, policy) in scn.policies.iter().enumerate() {
        for m in metrics {
            columns.push((policy.name.clone(), m, results.column(p, m)));
        }
    }
    let base = scn.baseline;
    for (p, policy) in scn.policies.iter().enumerate().filter(|(p, _)| *p != base) {
        for m in [Metric::TotalCost, Metric::WaitMean, Metric::WaitP95] {
            let name = format!("{}-minus-{}", policy.name, scn.policies[base].name);
            columns.push((name, m, results.paired_column(p, base, m)));
        }
    }
    for (name, m, col) in &columns {
        for &n in &sizes {
            let truth = summarize(&col[..reference as usize]);
            let mut covered = 0u64;
            let mut used = 0u64;
            let mut half = 0.0;
            for e in 0..pool / n {
                let from = (reference + e * n) as usize;
                let s = summarize(&col[from..from + n as usize]);
                if !s.half_width.is_finite() {
                    continue;
                }
                used += 1;
                half += s.half_width;
                covered += u64::from(s.low() <= truth.mean && truth.mean <= s.high());
            }
            let c = covered as f64 / used.max(1) as f64;
            println!(
                "{},{},{:.6},{:.6},{used},{n},{c:.3},{:.3},{:.6}",
                name,
                m.name(),
                truth.mean,
                truth.std_dev / (truth.n as f64).sqrt(),
                (c * (1.0 - c) / used.max(1) as f64).sqrt(),
                half / used.max(1) as f64
            );
        }
    }
}
