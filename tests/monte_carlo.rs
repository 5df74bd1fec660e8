//! Monte Carlo runs: thread-count independence, CI coverage, paired differences, the CSV
//! contract, sequential stopping.

use burstsim::experiment::{self, Results, Stopping, Summaries};
use burstsim::metrics::Metric;
use burstsim::output::{csv as out_csv, write_run};
use burstsim::scenario::Scenario;
use burstsim::stats::summarize;

fn tiny() -> Scenario {
    Scenario::load(std::path::Path::new("tests/fixtures/tiny.toml")).expect("fixture")
}

fn run_with_threads(scn: &Scenario, threads: usize) -> (Results, Stopping) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| experiment::run(scn, None, &|| {}))
}

#[test]
fn results_are_byte_identical_for_one_two_and_sixteen_threads() {
    let scn = tiny().with_overrides(None, Some(4));
    let bytes = |threads| {
        let (r, _) = run_with_threads(&scn, threads);
        let s = Summaries::new(&scn, &r);
        [
            out_csv::summary_csv(&s),
            out_csv::paired_csv(&s),
            out_csv::replications_csv(&scn, &r),
            out_csv::timeseries_csv(&scn, &r),
            out_csv::waits_csv(&scn, &r),
        ]
    };
    let one = bytes(1);
    assert_eq!(one, bytes(2));
    assert_eq!(one, bytes(16));
}

/// M/M/c as a scenario: `c` GPUs, FCFS, exponential 1 h jobs at load ρ.
fn mmc(c: u32, rho: f64, horizon_days: u32, replications: u32, seed: u64) -> Scenario {
    let text = format!(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = {horizon_days}\nwarmup_days = 1\nreplications = {replications}\nseed = {seed}\n\
         [campus]\ngpus = {c}\nvram_gb = 80\nscheduler = \"fcfs\"\n\
         [[workload.classes]]\nname = \"m\"\njobs_per_week = {}\nruntime_hours = {{ kind = \"exponential\", mean = 1.0 }}\nwalltime_factor = 1\n",
        rho * f64::from(c) * 168.0
    );
    Scenario::from_toml_str(&text, "mmc.toml").unwrap()
}

/// Slow statistical check: over 200 independent experiments, the 95% CI of the campus
/// utilisation of an M/M/4 queue at ρ = 0.7 (true mean 0.7 in steady state) must cover
/// the truth. The bound is three binomial standard errors around 0.95 (0.904–0.996 at
/// 200 trials), so a correct interval fails it about 0.3% of the time while an interval
/// far too narrow (a normal quantile on a handful of replications, coverage ≈ 0.66 with
/// z = 1) fails it always. `TRIALS=1000` runs a sharper check.
#[test]
fn slow_statistical_check_ci_covers_a_known_mean_about_95_percent_of_the_time() {
    let trials: u64 = std::env::var("TRIALS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let covered: usize = (0..trials)
        .map(|t| {
            let scn = mmc(4, 0.7, 20, 10, 1000 + t);
            let (r, _) = experiment::run(&scn, None, &|| {});
            let s = summarize(&r.column(0, Metric::CampusUtilization));
            usize::from(s.low() <= 0.7 && 0.7 <= s.high())
        })
        .sum();
    let share = covered as f64 / trials as f64;
    eprintln!("coverage of the 95% CI over {trials} experiments: {share}");
    let se = (0.95 * 0.05 / trials as f64).sqrt();
    assert!((share - 0.95).abs() <= 3.0 * se, "coverage {share} outside 0.95 ± 3 × {se:.4}");
}

#[test]
fn paired_differences_of_a_policy_with_itself_are_exactly_zero() {
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let base = &text[..text.find("[[policies]]").unwrap()];
    let scn = Scenario::from_toml_str(
        &format!("{base}[[policies]]\nname = \"a\"\nkind = \"overflow-predicted\"\nthreshold_hours = 2\noffers = [\"small-hourly\", \"big-hourly\"]\n[[policies]]\nname = \"b\"\nkind = \"overflow-predicted\"\nthreshold_hours = 2\noffers = [\"small-hourly\", \"big-hourly\"]\n"),
        "self.toml",
    )
    .unwrap();
    let (r, _) = experiment::run(&scn, None, &|| {});
    let s = Summaries::new(&scn, &r);
    for row in s.paired.iter().filter(|p| p.policy == "b") {
        if row.summary.n > 0 {
            assert_eq!((row.summary.mean, row.summary.half_width), (0.0, 0.0), "{:?}", row.metric);
        }
    }
    assert!(s.paired.iter().filter(|p| p.policy == "b").any(|p| p.summary.n == 3));
}

fn header(path: &std::path::Path) -> Vec<String> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let h = rdr.headers().unwrap().iter().map(String::from).collect();
    let rows = rdr.records().count();
    assert!(rows > 0, "{} has rows", path.display());
    h
}

#[test]
fn output_files_parse_and_carry_the_contract_columns() {
    let scn = tiny();
    let (r, stop) = experiment::run(&scn, None, &|| {});
    let s = Summaries::new(&scn, &r);
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path(), &scn, &r, &s, stop, &[]).unwrap();
    let has = |file: &str, cols: &[&str]| {
        let h = header(&dir.path().join(file));
        for c in cols {
            assert!(h.iter().any(|x| x == c), "{file} lacks column {c}: {h:?}");
        }
        h
    };
    has("summary.csv", &["policy", "metric", "unit", "mean", "ci95_low", "ci95_high", "std_dev", "replications"]);
    has("paired.csv", &["policy", "baseline", "metric", "unit", "mean_diff", "ci95_low", "ci95_high"]);
    let reps = has("replications.csv", &["policy", "replication", "seed"]);
    for m in [
        "total_cost_cny",
        "cloud_cost_cny",
        "campus_cost_cny",
        "storage_cost_cny",
        "wait_mean_h",
        "wait_p50_h",
        "wait_p95_h",
        "wait_p99_h",
        "turnaround_mean_h",
        "deadline_miss_rate",
        "cloud_job_share",
        "cloud_gpu_hours",
        "campus_utilization",
        "jobs_completed",
    ] {
        assert!(reps.iter().any(|x| x == m), "replications.csv lacks {m}");
    }
    has(
        "timeseries.csv",
        &["policy", "day", "date", "campus_queue_gpus", "campus_busy_gpus", "cloud_busy_gpus", "cost_cny"],
    );
    let again = Scenario::load(&dir.path().join("run.toml")).expect("run.toml is a loadable scenario");
    assert_eq!(again.hash(), scn.hash(), "run.toml resolves to the same scenario");
}

#[test]
fn sequential_stopping_adds_replications_until_the_target_or_the_maximum() {
    let scn = mmc(8, 0.6, 10, 3, 5);
    let (r, stop) = experiment::run(&scn, Some(0.05), &|| {});
    match stop {
        Stopping::TargetReached { target } => assert!(r.worst_relative_half_width() <= target),
        other => panic!("expected the target to be reached, got {other:?}"),
    }
    assert!(r.replications.len() > 3);
    let mut capped = mmc(8, 0.6, 10, 3, 5);
    capped.max_replications = 4;
    let (r, stop) = experiment::run(&capped, Some(0.0001), &|| {});
    assert!(matches!(stop, Stopping::MaximumReached { .. }));
    assert_eq!(r.replications.len(), 4);
}

#[test]
fn class_results_add_up_to_the_group_and_the_all_classes_row_matches_the_summary() {
    use burstsim::metrics::class::ALL_CLASSES;
    let scn = tiny().with_overrides(None, Some(3));
    let (r, _) = experiment::run(&scn, None, &|| {});
    let s = Summaries::new(&scn, &r);
    let csv = String::from_utf8(out_csv::classes_csv(&s)).unwrap();
    assert_eq!(csv.lines().next(), Some("policy,class,metric,unit,mean,ci95_low,ci95_high,std_dev,replications"));
    for p in &scn.policies {
        let all = |m: &str| s.class(&p.name, ALL_CLASSES, m).unwrap().summary.mean;
        let whole = |m: Metric| s.get(&p.name, m).unwrap().summary.mean;
        // The whole group's row is the headline figure, computed from the same waits.
        for (class_metric, metric) in [
            ("wait_mean_h", Metric::WaitMean),
            ("wait_p95_h", Metric::WaitP95),
            ("jobs_completed", Metric::JobsCompleted),
            ("cloud_job_share", Metric::CloudJobShare),
        ] {
            let (a, b) = (all(class_metric), whole(metric));
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{}: {class_metric} {a} vs {metric:?} {b}", p.name);
        }
        // Class job counts add up to the group's, and class costs to at most the total
        // (monthly rent is not attributed to a class).
        let per_class: f64 = scn.group.iter().map(|c| s.class(&p.name, &c.name, "jobs_completed").unwrap().summary.mean).sum();
        assert!((per_class - all("jobs_completed")).abs() < 1e-9);
        let cost: f64 = scn.group.iter().map(|c| s.class(&p.name, &c.name, "variable_cost_cny").unwrap().summary.mean).sum();
        let expected = whole(Metric::TotalCost) - whole(Metric::MonthlyCost);
        assert!((cost - expected).abs() <= 1e-6 * expected.max(1.0), "{}: {cost} vs {expected}", p.name);
    }
}
