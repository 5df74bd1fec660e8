//! Nothing lost on interruption: Ctrl-C (SIGINT) or SIGTERM during a run writes the
//! replications that finished, marks the run as interrupted and exits 130; during a sweep
//! the finished points stay and `--resume` completes it to the same bytes.

use std::process::{Command, Stdio};
use std::time::Duration;

fn burstsim() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("burstsim"))
}

fn signal(child: &std::process::Child, sig: &str) {
    let ok = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success();
    assert!(ok, "kill {sig} failed");
}

#[test]
fn ctrl_c_during_a_run_writes_the_finished_replications_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let child = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "-n", "400", "--threads", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-INT");
    let res = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(130), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    if out.join("run.toml").exists() {
        let manifest = std::fs::read_to_string(out.join("run.toml")).unwrap();
        assert!(manifest.contains("# stopping: interrupted after"), "{manifest}");
        assert!(err.contains("wrote the") && err.contains("finished replications"), "{err}");
        let reps = std::fs::read_to_string(out.join("replications.csv")).unwrap().lines().count() - 1;
        assert!(reps > 0 && reps < 400 * 9, "{reps} rows");
    } else {
        assert!(err.contains("no files written"), "{err}");
    }
}

#[test]
fn sigterm_during_a_sweep_keeps_finished_points_and_resume_completes_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "sweep",
        "tests/fixtures/tiny.toml",
        "-n",
        "6",
        "--threads",
        "1",
        "-p",
        "policies.overflow-2h.threshold_hours=0:20:1",
    ];
    let whole = dir.path().join("whole");
    assert!(burstsim().args(args).arg("--quiet").arg("--out").arg(&whole).status().unwrap().success());
    let part = dir.path().join("part");
    let child = burstsim().args(args).arg("--quiet").arg("--out").arg(&part).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-TERM");
    let res = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    if res.status.code() == Some(130) {
        assert!(err.contains("--resume"), "the message says how to continue: {err}");
    } else {
        assert!(res.status.success(), "finished before the signal: {err}");
    }
    let resumed = burstsim().args(args).args(["--quiet", "--resume", "--out"]).arg(&part).status().unwrap();
    assert!(resumed.success());
    assert_eq!(std::fs::read(part.join("sweep.csv")).unwrap(), std::fs::read(whole.join("sweep.csv")).unwrap());
}

#[test]
fn ctrl_c_under_sequential_stopping_reports_done_without_a_planned_total() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // A target this tight is never met: the run would go on to max_replications.
    let child = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "--ci-target", "0.0001", "--threads", "1", "--no-charts", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    signal(&child, "-INT");
    let res = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(130), "{err}");
    if !out.join("run.toml").exists() {
        assert!(err.contains("no files written"), "a very slow machine: nothing finished yet: {err}");
        return;
    }
    let manifest = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(manifest.contains("before sequential stopping ended"), "{manifest}");
    assert!(err.contains("interrupted after") && err.contains("let sequential stopping finish"), "{err}");
    assert!(!err.contains(" of 3 replications"), "the scenario's 3 is not the plan: {err}");
}
