//! `burstsim validate --trace` and `burstsim fit` from the command line.

use assert_cmd::Command;

mod common;

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

const TINY: &str = "tests/fixtures/traces/tiny.swf";

fn stdout(args: &[&str]) -> (bool, String, String) {
    let out = burstsim().args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn csv_value(csv: &str, stat: &str, col: usize) -> f64 {
    let line = csv.lines().find(|l| l.starts_with(&format!("{stat},"))).unwrap_or_else(|| panic!("{stat} in {csv}"));
    line.split(',').nth(col).unwrap().parse().unwrap()
}

#[test]
fn easy_replay_of_the_tiny_log_reproduces_its_waits_and_fcfs_does_not() {
    let (ok, out, err) = stdout(&["validate", "--trace", TINY, "--scheduler", "easy-backfill", "--format", "csv"]);
    assert!(ok, "{err}");
    assert!(err.contains("7 jobs read, 1 rows skipped"), "the read summary is on stderr: {err}");
    assert!(err.contains("line 15"), "the bad row's line is named: {err}");
    assert_eq!(csv_value(&out, "jobs", 1), 7.0);
    for stat in ["mean_wait_h", "p50_wait_h", "p90_wait_h", "p99_wait_h", "zero_wait_share"] {
        assert_eq!(csv_value(&out, stat, 1), csv_value(&out, stat, 2), "{stat}\n{out}");
    }
    let (ok, out, _) = stdout(&["validate", "--trace", TINY, "--gpus", "4", "--scheduler", "fcfs", "--format", "csv"]);
    assert!(ok);
    // FCFS makes job 7 wait behind job 6: 980 s more in total.
    let diff = (csv_value(&out, "mean_wait_h", 2) - csv_value(&out, "mean_wait_h", 1)) * 3600.0 * 7.0;
    assert!((diff - 980.0).abs() < 1e-6, "{diff}\n{out}");
}

#[test]
fn replay_prints_a_side_by_side_table() {
    let (ok, out, err) = stdout(&["validate", "--trace", TINY]);
    assert!(ok, "{err}");
    for word in
        ["recorded", "simulated", "mean_wait_h", "p99_wait_h", "zero_wait_share", "4 processors", "easy-backfill"]
    {
        assert!(out.contains(word), "{word} missing:\n{out}");
    }
}

#[test]
fn replay_refuses_bad_input_with_exit_code_2() {
    let out = burstsim().args(["validate", "--trace", TINY, "--strict"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("tiny.swf:15:") && err.contains("--strict"), "{err}");
    let out = burstsim().args(["validate", "--trace", TINY, "--scheduler", "sjf"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = burstsim().args(["validate", "--trace", "tests/fixtures/traces/sacct_small.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "no size in a sacct log: --gpus is needed");
    assert!(String::from_utf8(out.stderr).unwrap().contains("--gpus"));
    let out = burstsim().args(["validate", "--trace", "no/such/file.swf", "--gpus", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a missing file is an I/O failure");
}

#[test]
fn validate_without_trace_is_unchanged() {
    let out = burstsim().args(["validate", "--gpus", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--gpus needs --trace");
}

#[test]
fn sacct_fixture_replays_on_gpus() {
    let (ok, out, err) =
        stdout(&["validate", "--trace", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8", "--format", "csv"]);
    assert!(ok, "{err}");
    // 10 jobs: 1 pending and 1 still running when the log was taken (its elapsed time so
    // far is not a run time), 1 cancelled before it started, 1 CPU-only; 6 replayed.
    assert_eq!(csv_value(&out, "jobs", 1), 6.0, "{out}");
    let (ok, table, _) = stdout(&["validate", "--trace", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8"]);
    assert!(ok);
    assert!(table.contains("left out: 2 jobs (still running or pending when the log was taken)"), "{table}");
}

/// A log without recorded waits (SWF wait −1, as NASA-iPSC and the Lublin model).
fn no_wait_log(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("; MaxProcs: 4\n; UnixStartTime: 1000000000\n");
    for i in 0..20u64 {
        text.push_str(&format!(
            "{i} {} -1 {} {} -1 -1 {} -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
            i * 50,
            100 + i * 7,
            1 + i % 4,
            1 + i % 4
        ));
    }
    let path = dir.join("no-waits.swf");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_log_without_recorded_waits_shows_the_simulated_figures_not_nan() {
    let dir = tempfile::tempdir().unwrap();
    let log = no_wait_log(dir.path());
    let log = log.to_str().unwrap();
    let (ok, out, err) = stdout(&["validate", "--trace", log]);
    assert!(ok, "{err}");
    assert!(!out.contains("NaN"), "{out}");
    assert!(out.contains("the recorded column is unavailable") && out.contains("all 20 replayed jobs"), "{out}");
    let jobs = out.lines().find(|l| l.starts_with("jobs ")).unwrap();
    assert_eq!(jobs.split_whitespace().collect::<Vec<_>>(), ["jobs", "unavailable", "20", "–"], "{jobs}");
    let (ok, csv, err) = stdout(&["validate", "--trace", log, "--format", "csv"]);
    assert!(ok && err.contains("recorded column is empty"), "{err}");
    assert!(csv.contains("\njobs,,20\n") && !csv.contains("NaN"), "{csv}");
    assert!(csv_value(&csv, "mean_wait_h", 2) > 0.0, "20 jobs on 4 processors queue: {csv}");
}

#[test]
fn nasa_ipsc_replays_with_simulated_figures() {
    let Some(nasa) = common::shared_data("data/traces/pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz") else { return };
    let (ok, out, err) = stdout(&["validate", "--trace", nasa.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(!out.contains("NaN") && out.contains("unavailable"), "{out}");
    let mean = out.lines().find(|l| l.starts_with("mean_wait_h")).unwrap();
    let simulated: f64 = mean.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(simulated.is_finite() && simulated >= 0.0, "{mean}");
}

#[test]
fn fit_writes_a_scenario_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let scn = dir.path().join("tiny-fit.toml");
    let out = burstsim()
        .args(["fit", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8", "-o"])
        .arg(&scn)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "7 usable jobs are too few to fit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let swf = dir.path().join("many.swf");
    let mut text = String::from("; MaxProcs: 16\n; UnixStartTime: 1000000000\n");
    for i in 0..400u64 {
        let (size, run) = (1 + (i * 7) % 8, 60 + (i * 7919) % 7200);
        text.push_str(&format!(
            "{i} {} {} {run} {size} -1 -1 {size} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            i * 3600,
            i % 5 * 60,
            run * 2
        ));
    }
    std::fs::write(&swf, &text).unwrap();
    let out = burstsim().args(["fit"]).arg(&swf).arg("-o").arg(&scn).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("Offered load") && printed.contains("KS"), "{printed}");
    let run = burstsim()
        .args(["run"])
        .arg(&scn)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // --group-user: the log's user 1 (every job here) leaves no background, said plainly;
    // with users 1 and 2, user 2's jobs become the group's workload and the scenario runs.
    let out = burstsim().args(["fit"]).arg(&swf).args(["--group-user", "1", "-o"]).arg(&scn).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only 0 usable jobs are left once user '1''s are taken out"));
    let two_users: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i >= 2 && i % 4 == 0 { l.replacen(" -1 1 1 1 ", " -1 1 2 1 ", 1) } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&swf, two_users + "\n").unwrap();
    let grouped = dir.path().join("grouped.toml");
    let out = burstsim().args(["fit"]).arg(&swf).args(["--group-user", "2", "-o"]).arg(&grouped).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&grouped).unwrap();
    assert!(written.contains("[[workload.classes]]") && written.contains("of user '2' (the group)"), "{written}");
    let run2 = burstsim()
        .args(["run"])
        .arg(&grouped)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("out2"))
        .output()
        .unwrap();
    assert!(run2.status.success(), "{}", String::from_utf8_lossy(&run2.stderr));
    assert!(!String::from_utf8_lossy(&run2.stderr).contains("no job of the group arrived"));
    // A group whose 14 jobs all ran exactly one hour on one GPU cannot be fitted: an
    // error, not a scenario silently without the group's workload.
    let mut uniform = String::from("; MaxProcs: 16\n; UnixStartTime: 1000000000\n");
    for i in 0..60u64 {
        let (user, size, run) = if i < 14 { (2, 1, 3600) } else { (1, 1 + i % 8, 60 + (i * 7919) % 7200) };
        uniform.push_str(&format!(
            "{i} {} 0 {run} {size} -1 -1 {size} {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
            i * 3600,
            run * 2
        ));
    }
    let uniform_log = dir.path().join("uniform.swf");
    std::fs::write(&uniform_log, uniform).unwrap();
    let out = burstsim().args(["fit"]).arg(&uniform_log).args(["--group-user", "2", "-o"]).arg(&scn).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("user '2''s jobs (14) have too few distinct run times"), "{err}");
    // A background-only scenario says so, instead of warning about few jobs per percentile.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no job of the group arrived after the warm-up"), "{stderr}");
    assert!(!stderr.contains("p95 and p99 waits rest on very few jobs"), "{stderr}");
}
