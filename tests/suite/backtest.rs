//! The backtest of `advise` on a log's own jobs (issue 44 item 1;
//! `burstsim::backtest`, `validate --out-of-sample --backtest N`): on a small
//! synthetic SWF log built here, every probe lies after the period its scenario was
//! fitted on and is spread over the test months, the result does not depend on the
//! thread count, and the command prints the table and one CSV row per probe. The
//! out-of-sample correction (issue 44 item 2): learned only from probes of earlier
//! months, and bringing a model known to be too narrow to near-nominal coverage; on
//! KTH-SP2 and LANL-CM5 (slow_, ignored) the figures docs/VALIDATION.md quotes.

use assert_cmd::Command;
use burstsim::advise::correction::{Correction, from_log_scale};
use burstsim::backtest::{BacktestOptions, ProbeResult, QUANTILES, WAIT_CLASSES, backtest, rolling_corrections};
use burstsim::date::Date;
use burstsim::trace::{ReadOptions, read_bytes};

/// 2024-01-01 00:00 UTC.
const UNIX_START: i64 = 1_704_067_200;

/// 150 days of jobs on 16 processors, queued first come, first served (so the recorded
/// waits are those of a real queue): about one job every 50 minutes, 1–8 processors,
/// 5 minutes to 2.3 hours, each asking for twice its run time.
fn log() -> String {
    let mut text = format!("; UnixStartTime: {UNIX_START}\n; TimeZone: 0\n; MaxProcs: 16\n");
    let mut placed: Vec<(i64, i64, u32)> = Vec::new(); // (start, end, size)
    let mut last_start = 0;
    for i in 0..4_300i64 {
        let submit = i * 3_000 + (i * 7_919) % 1_500;
        let size = 1 + ((i * 13) % 8) as u32;
        let runtime = 300 + (i * 104_729) % 8_000;
        let mut t = submit.max(last_start);
        loop {
            let used: u32 = placed.iter().filter(|&&(s, e, _)| s <= t && t < e).map(|p| p.2).sum();
            if used + size <= 16 {
                break;
            }
            t = placed.iter().map(|p| p.1).filter(|&e| e > t).min().expect("a running job ends");
        }
        last_start = t;
        placed.retain(|p| p.1 > t);
        placed.push((t, t + runtime, size));
        text.push_str(&format!(
            "{} {submit} {} {runtime} {size} -1 -1 {size} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            i + 1,
            t - submit,
            2 * runtime
        ));
    }
    text
}

#[test]
fn every_probe_is_scored_out_of_sample_and_spread_over_the_test_months() {
    let trace = read_bytes(log().as_bytes(), "synthetic.swf", &ReadOptions::default()).unwrap();
    let o = BacktestOptions { replications: 8, ..BacktestOptions::new(16, 12) };
    let b = backtest(&trace, &o, &|_, _| {}).unwrap();
    assert_eq!(b.probes.len(), 12);
    // 60 days fitted first: the first probe month is March 2024, then April and May.
    let months: Vec<(String, usize)> =
        b.months().iter().map(|(d, n)| (format!("{}-{:02}", d.year(), d.month()), *n)).collect();
    assert_eq!(months.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(), ["2024-03", "2024-04", "2024-05"]);
    assert!(months.iter().all(|m| m.1 >= 3), "{months:?}");
    // One fit per month, on the jobs before it only: as many jobs as were submitted before it.
    let first = Date::new(2024, 1, 1).unwrap().to_days() * 86_400;
    for (month, jobs, rules) in &b.fits {
        let cut = month.to_days() * 86_400 - first;
        let before = trace.jobs.iter().filter(|j| j.submit < cut).count();
        assert_eq!(*jobs, before, "the fit for {month}");
        assert!(!rules);
    }
    for p in &b.probes {
        assert!(b.fits.iter().any(|(m, _, _)| p.local_submit >= m.to_days() * 86_400));
        let q = p.quantiles;
        assert!(q.windows(2).all(|w| w[0] <= w[1]), "quantiles in order: {q:?}");
        let job = trace.jobs.iter().find(|j| j.id == p.id).unwrap();
        assert_eq!(p.recorded_s, job.wait().unwrap());
        assert_eq!((p.gpus, p.limit_s), (job.procs.unwrap(), job.requested_time.unwrap()));
    }
    // Waits counted once per class, and every class's share is a share.
    let s = b.scores();
    assert_eq!(s[0].n + s[1].n + s[2].n, s[3].n);
    assert!(s.iter().all(|c| c.coverage.iter().all(|x| c.n == 0 || (0.0..=1.0).contains(x))));
    assert!(s[3].coverage[0] <= s[3].coverage[1] && s[3].coverage[1] <= s[3].coverage[2]);
    // The same answer on one thread.
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let again = one.install(|| backtest(&trace, &o, &|_, _| {})).unwrap();
    assert_eq!(again.probes, b.probes);
}

#[test]
fn the_command_prints_the_table_and_one_csv_row_per_probe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synthetic.swf");
    std::fs::write(&path, log()).unwrap();
    let run = |extra: &[&str]| {
        let out = Command::cargo_bin("burstsim")
            .unwrap()
            .args(["validate", "--trace"])
            .arg(&path)
            .args(["--gpus", "16", "--out-of-sample", "--backtest", "9", "--replications", "6"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = run(&["--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 10, "{csv}");
    assert!(lines[0].starts_with("job,local_submit,gpus,limit_s,running,pending,rules,recorded_s,q025_s"));
    let table = run(&[]);
    for class in WAIT_CLASSES {
        assert!(table.lines().any(|l| l.starts_with(class)), "{class} in\n{table}");
    }
    assert!(table.contains("probes by month: 2024-03 3, 2024-04 3, 2024-05 3"), "{table}");
    assert!(table.contains("out of sample, corrected"), "{table}");
    assert!(csv.lines().all(|l| l.split(',').count() == 23), "{csv}");
    // --correction-out writes what advise --correction reads: learned from all 9 probes.
    let file = dir.path().join("correction.toml");
    run(&["--correction-out", file.to_str().unwrap()]);
    let c = Correction::from_toml(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!((c.probes, c.offset_s), (9, 60.0));
    assert!(c.source.contains("--backtest 9"), "{}", c.source);
    // Without --out-of-sample the flag is refused: a backtest is always out of sample.
    let refused = Command::cargo_bin("burstsim")
        .unwrap()
        .args(["validate", "--trace"])
        .arg(&path)
        .args(["--gpus", "16", "--backtest", "9"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

/// Probes on the 1st–28th of `months` consecutive months from January 2024, `per_month`
/// each, with raw quantiles `q` and recorded wait `w` given by `make(k)`.
fn probes(months: i64, per_month: i64, make: &dyn Fn(i64) -> ([f64; 7], i64)) -> Vec<ProbeResult> {
    let mut out = Vec::new();
    for m in 0..months {
        let first = Date::new(2024 + (m / 12) as i32, 1 + (m % 12) as u8, 1).unwrap().to_days() * 86_400;
        for i in 0..per_month {
            let k = m * per_month + i;
            let (quantiles, recorded_s) = make(k);
            out.push(ProbeResult {
                id: k.to_string(),
                local_submit: first + i * 28 * 86_400 / per_month,
                gpus: 1,
                limit_s: 3_600,
                running: 0,
                pending: 0,
                rules: false,
                recorded_s,
                quantiles,
                plan_s: None,
                rule_s: 0.0,
            });
        }
    }
    out
}

/// A raw model whose start quantiles are those of ln(wait + 60) ~ N(mu, sd).
fn model(mu: f64, sd: f64) -> [f64; 7] {
    // Standard normal quantiles of QUANTILES.
    const Z: [f64; 7] = [-1.959_964, -1.281_552, -0.674_490, 0.0, 0.674_490, 1.281_552, 1.959_964];
    assert_eq!(QUANTILES.len(), Z.len());
    Z.map(|z| from_log_scale(mu + sd * z, 60.0).round())
}

#[test]
fn the_correction_is_learned_only_from_probes_of_earlier_months() {
    // Six months of 20 probes; recorded waits spread so that every correction differs.
    let base = probes(6, 20, &|k| (model(6.0, 0.2), (k * 997 % 20_000) + 10));
    let min = 30;
    let corrections = rolling_corrections(&base, 60.0, min);
    // Months 1 and 2 have 0 and 20 earlier probes: no correction; then 40, 60, 80, 100.
    let learned_from: Vec<Option<usize>> =
        corrections.iter().step_by(20).map(|c| c.as_ref().map(|c| c.probes)).collect();
    assert_eq!(learned_from, [None, None, Some(40), Some(60), Some(80), Some(100)]);
    for (k, c) in corrections.iter().enumerate() {
        let Some(c) = c else { continue };
        // Every probe of its month and later rewritten (a scored probe, its neighbours and
        // the future): its correction must not move.
        let month = k / 20 * 20;
        let mut changed = base.clone();
        for p in &mut changed[month..] {
            p.recorded_s = 10_000_000;
            p.quantiles = [0.0; 7];
        }
        let again = &rolling_corrections(&changed, 60.0, min)[k];
        assert_eq!(again.as_ref(), Some(c), "probe {k}'s correction moved when probes from its month on changed");
        // And it is exactly the one learned from the earlier probes.
        let earlier: Vec<_> = base[..month].iter().map(ProbeResult::calibration).collect();
        assert_eq!(c.widen, Correction::learn(&earlier, 60.0, "").widen);
    }
}

#[test]
fn a_model_three_times_too_narrow_is_corrected_to_near_nominal_coverage_out_of_sample() {
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, StandardNormal};
    // Twelve months of 100 probes: the true ln(wait + 60) is N(mu, 1) around a mean that
    // changes from probe to probe; the model says N(mu, 0.3), so its 80% interval holds
    // only P(|Z| ≤ 0.38) = 30% of the recorded waits.
    let mut rng = rand_pcg::Pcg64::seed_from_u64(44);
    let draws: Vec<(f64, f64)> = (0..1_200)
        .map(|_| {
            let mu = rng.random_range(5.0..11.0);
            let z: f64 = StandardNormal.sample(&mut rng);
            (mu, z)
        })
        .collect();
    let all = probes(12, 100, &|k| {
        let (mu, z) = draws[k as usize];
        (model(mu, 0.3), from_log_scale(mu + z, 60.0).round() as i64)
    });
    let corrections = rolling_corrections(&all, 60.0, 50);
    let scored: Vec<(&ProbeResult, &Correction)> =
        all.iter().zip(&corrections).filter_map(|(p, c)| c.as_ref().map(|c| (p, c))).collect();
    assert_eq!(scored.len(), 1_100, "the first month calibrates only");
    for (k, nominal) in [0.5, 0.8, 0.95].into_iter().enumerate() {
        let raw = scored.iter().filter(|(p, _)| p.covered(k)).count() as f64 / 1_100.0;
        let corrected = scored.iter().filter(|(p, c)| p.covered_corrected(c, k, 1)).count() as f64 / 1_100.0;
        assert!(raw < nominal - 0.3, "the raw {nominal} interval holds {raw}: the model is not too narrow");
        assert!((corrected - nominal).abs() < 0.035, "the corrected {nominal} interval holds {corrected}");
    }
    // The 80% widening is close to what the model lacks: 1.2816 × (1 − 0.3) on the log scale.
    let last = corrections.last().unwrap().as_ref().unwrap();
    assert!((last.widen[1] - 1.281_552 * 0.7).abs() < 0.12, "{:?}", last.widen);
}

/// The backtest of a shared log with the figures docs/VALIDATION.md quotes ("Backtest"),
/// printed; the overall out-of-sample corrected coverage must meet issue 44's targets.
fn slow_backtest(rel: &str, gpus: u32, rules: Option<burstsim::evidence::site_rules::SiteRules>) {
    let Some(path) = crate::common::shared_data(rel) else { return };
    let trace = read_bytes(&std::fs::read(&path).unwrap(), rel, &ReadOptions::default()).unwrap();
    let o = BacktestOptions { rules, ..BacktestOptions::new(gpus, 300) };
    let b = backtest(&trace, &o, &|_, _| {}).unwrap();
    println!("{}", b.to_report(rel));
    let c = b.corrected_scores()[3];
    assert!(c.n >= 200, "{} probes scored out of sample", c.n);
    assert!(c.raw[1] < 0.5, "the raw 80% interval holds {}: no longer too narrow; revisit the docs", c.raw[1]);
    assert!((0.75..=0.85).contains(&c.corrected[1]), "corrected 80% holds {}", c.corrected[1]);
    for (k, nominal) in [(0, 0.5), (2, 0.95)] {
        assert!((c.corrected[k] - nominal).abs() <= 0.07, "corrected {nominal} holds {}", c.corrected[k]);
    }
}

#[test]
#[ignore = "slow: 300 probes of KTH-SP2 × 40 replications (about 15 s on 2 cores)"]
fn slow_backtest_kth_sp2_corrected_out_of_sample() {
    slow_backtest(
        "data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz",
        100,
        Some(burstsim::evidence::site_rules::SiteRules::Kth),
    );
}

#[test]
#[ignore = "slow: 300 probes of LANL-CM5 × 40 replications (about 30 s on 2 cores)"]
fn slow_backtest_lanl_cm5_corrected_out_of_sample() {
    slow_backtest("data/traces/pwa-lanl-cm5/LANL-CM5-1994-4.1-cln.swf.gz", 1024, None);
}
