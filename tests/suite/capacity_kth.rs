//! Issue 14's validation on KTH-SP2 (docs/VALIDATION.md, "Outages, scheduler cycles and a
//! prediction out of sample"): the figures the docs quote, the CSV format, and the fitted
//! scenario carrying the inferred outages and cycle. Skipped without the shared logs
//! (failing under CI, tests/suite/common/mod.rs).

use crate::common;

use assert_cmd::Command;

const KTH: &str = "data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz";

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn csv_rows(out: &[u8]) -> Vec<(String, f64, f64, f64)> {
    let text = String::from_utf8(out.to_vec()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("metric,recorded,simulated,ratio"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap_or(f64::NAN))
        })
        .collect()
}

#[test]
fn the_replay_with_inferred_outages_and_cycle_gives_the_documented_figures() {
    let Some(kth) = common::shared_data(KTH) else { return };
    let out = burstsim()
        .args(["validate", "--trace"])
        .arg(&kth)
        .args([
            "--gpus",
            "100",
            "--scheduler",
            "easy-backfill",
            "--outages",
            "infer",
            "--cycle",
            "auto",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = csv_rows(&out.stdout);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        ["jobs", "mean_wait_h", "p50_wait_h", "p90_wait_h", "p95_wait_h", "p99_wait_h", "zero_wait_share"]
    );
    let mean = &rows[1];
    assert!((mean.1 - 4.249).abs() < 0.001, "recorded mean {}", mean.1);
    assert!((mean.2 - 2.619).abs() < 0.001, "simulated mean {} (docs/VALIDATION.md says 2.619)", mean.2);
    assert!((mean.3 - mean.2 / mean.1).abs() < 1e-12);
}

#[test]
fn fit_writes_the_logs_outages_and_cycle_and_the_scenario_loads() {
    let Some(kth) = common::shared_data(KTH) else { return };
    let dir = tempfile::tempdir().unwrap();
    let scn = dir.path().join("kth.toml");
    let out = burstsim().arg("fit").arg(&kth).arg("-o").arg(&scn).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&scn).unwrap();
    assert!(text.contains("scheduler_cycle_seconds = 60   # 99.8% of the log's positive waits"), "{text}");
    assert!(text.contains("[campus.outages]") && text.contains("kills_jobs = false"), "{text}");
    assert!(text.contains("# No patience: 0 of 28476 jobs were cancelled (status 5)"), "{text}");
    let s = burstsim::scenario::Scenario::load(&scn).unwrap();
    assert_eq!(s.campus.capacity.cycle, 60);
    let o = s.campus.capacity.outages.as_ref().unwrap();
    assert!(!o.kills_jobs);
    assert!((o.between_h.mean() - 7.67368).abs() < 1e-4, "{}", o.between_h.mean());
}

#[test]
fn the_out_of_sample_check_runs_and_gives_the_documented_mean() {
    let Some(kth) = common::shared_data(KTH) else { return };
    let out = burstsim()
        .args(["validate", "--trace"])
        .arg(&kth)
        .args(["--gpus", "100", "--out-of-sample", "--replications", "10", "--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mean = text.lines().find(|l| l.starts_with("mean_wait_h,")).unwrap();
    let f: Vec<f64> = mean.split(',').skip(1).map(|x| x.parse().unwrap()).collect();
    assert!((f[0] - 2.696).abs() < 0.001, "recorded second-half mean {}", f[0]);
    assert!((f[1] - 6.981).abs() < 0.001, "simulated mean {} (docs/VALIDATION.md says 6.981)", f[1]);
}
