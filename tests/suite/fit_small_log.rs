//! `burstsim fit` on a small sacct export (29 finished jobs over 25 days, a malformed
//! `gres/gpu=abc` line, a job still running and one pending when the log was taken):
//! every part falls back with a reason instead of fitting noise, the horizon stays a
//! year, the cluster size must be given, bad lines are named, unfinished jobs are counted.

use assert_cmd::Command;
use burstsim::scenario::Scenario;

const LOG: &str = "tests/fixtures/traces/sacct_29_jobs.txt";

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn fit(extra: &[&str]) -> (std::process::Output, tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let scn = dir.path().join("small-fit.toml");
    let out = burstsim().args(["fit", LOG, "-o"]).arg(&scn).args(extra).output().unwrap();
    (out, dir, scn)
}

#[test]
fn without_gpus_the_cluster_size_is_asked_for_with_the_peak_as_a_hint() {
    let (out, _dir, scn) = fit(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not state the cluster's size") && err.contains("--gpus N"), "{err}");
    assert!(err.contains("held at most"), "the log's peak use is given as a lower bound: {err}");
    assert!(!scn.exists(), "no scenario sized by the log's peak");
}

#[test]
fn a_small_log_gets_a_flat_profile_no_seasons_and_a_one_year_horizon_with_reasons() {
    let (out, dir, scn) = fit(&["--gpus", "64"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    // The warnings say why each part was simplified.
    assert!(err.contains("warning: an hour-of-day profile needs at least 240 jobs"), "{err}");
    assert!(err.contains("the log has 29 over 24.8 days"), "counts the jobs and days: {err}");
    assert!(err.contains("flat over the week"), "{err}");
    assert!(err.contains("warning: monthly seasons need at least two calendar months"), "{err}");
    let text = std::fs::read_to_string(&scn).unwrap();
    assert!(!text.lines().any(|l| l.starts_with("hourly_profile")), "no profile from 29 jobs:\n{text}");
    assert!(!text.contains("[[background.seasons]]"), "no seasons from 25 days:\n{text}");
    assert!(text.contains("# Warning: an hour-of-day profile needs"), "the file keeps the reasons:\n{text}");
    assert!(!text.lines().any(|l| l.starts_with("horizon_days")), "horizon left at its one-year default:\n{text}");
    assert!(text.contains("Cluster: 64 from given with --gpus"), "{text}");
    let s = Scenario::load(&scn).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(s.is_one_year(), "one calendar year from the log's first day");
    assert_eq!(s.start_date.to_string(), "2025-10-06");
    // The scenario runs.
    let run = burstsim()
        .arg("run")
        .arg(&scn)
        .args(["-n", "2", "-q", "--no-charts", "--out"])
        .arg(dir.path().join("o"))
        .output();
    let run = run.unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn a_malformed_gres_is_a_bad_line_and_unfinished_jobs_are_counted_not_used() {
    let (out, _dir, scn) = fit(&["--gpus", "64"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    // The read summary names the line, the column and the text.
    assert!(err.contains("1 rows skipped"), "{err}");
    assert!(err.contains("line 60: AllocTRES gres/gpu 'gres/gpu=abc' is not readable"), "{err}");
    let text = std::fs::read_to_string(&scn).unwrap();
    assert!(text.contains("left out: 2 jobs (still running or pending when the log was taken)"), "{text}");
    assert!(text.contains("29 jobs used over"), "29 finished jobs, not the running one's partial time:\n{text}");
    assert!(!text.contains("CPU-only"), "the malformed line is not a CPU-only job:\n{text}");
    // --strict refuses the file at that line, naming the file, line and field.
    let strict = burstsim().args(["fit", LOG, "--gpus", "64", "--strict", "-o"]).arg(&scn).output().unwrap();
    assert_eq!(strict.status.code(), Some(2));
    let err = String::from_utf8_lossy(&strict.stderr);
    assert!(err.contains("sacct_29_jobs.txt:60:") && err.contains("AllocTRES gres/gpu"), "{err}");
}

#[test]
fn a_horizon_is_written_only_when_asked_for() {
    let (out, _dir, scn) = fit(&["--gpus", "64", "--horizon-days", "90"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&scn).unwrap();
    assert!(text.contains("horizon_days = 90   # asked for with --horizon-days"), "{text}");
    let (out, _dir, _) = fit(&["--gpus", "64", "--horizon-days", "0"]);
    assert_eq!(out.status.code(), Some(2));
}
