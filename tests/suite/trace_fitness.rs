//! `fit` and `validate --trace` on logs that do not fit the stated cluster (issue 27,
//! item 10): a warning when the offered load is above 1 or submissions have a long gap,
//! exit 2 when nothing is replayable, and `--gpus` that is no whole number of nodes refused.

use std::path::Path;

use assert_cmd::Command;

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

/// Writes an SWF log of `(submit s, run time s, processors)` jobs (waits 0) on a
/// `max_procs` cluster.
fn swf(dir: &Path, name: &str, max_procs: u32, jobs: &[(i64, i64, u32)]) -> std::path::PathBuf {
    let mut text = format!("; MaxProcs: {max_procs}\n");
    for (k, (submit, run, procs)) in jobs.iter().enumerate() {
        text.push_str(&format!(
            "{} {submit} 0 {run} {procs} -1 -1 {procs} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            k + 1,
            run * 2
        ));
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(args: &[&str], log: &Path) -> (Option<i32>, String) {
    let o = burstsim().args(args).arg(log).output().unwrap();
    (o.status.code(), String::from_utf8(o.stderr).unwrap())
}

/// 200 jobs an hour apart: `procs` processors for `hours` on average (0.6 to 1.4 times it,
/// so that `fit` has run times to fit).
fn even(procs: u32, hours: i64) -> Vec<(i64, i64, u32)> {
    (0..200).map(|k| (k * 3600, hours * 3600 * (k % 5 + 3) / 5, procs)).collect()
}

#[test]
fn an_overloaded_log_is_named_by_validate_and_fit() {
    let dir = tempfile::tempdir().unwrap();
    // 16 processors for 6 h every hour on 32: offered load 3.
    let log = swf(dir.path(), "hot.swf", 32, &even(16, 6));
    let (code, err) = run(&["validate", "--format", "csv", "--trace"], &log);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: the log's offered load on the stated 32 processors is 3.0"), "{err}");
    let out = dir.path().join("fit.toml");
    let (code, err) = run(&["fit", "-o", out.to_str().unwrap()], &log);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("offered load on the stated 32 processors is 3.0"), "fit warns too: {err}");
    // The same jobs on a cluster that can carry them: no warning.
    let calm = swf(dir.path(), "calm.swf", 128, &even(16, 6));
    let (_, err) = run(&["validate", "--format", "csv", "--trace"], &calm);
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_long_gap_in_submissions_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = vec![(0, 600, 1)];
    jobs.extend(even(1, 1).into_iter().map(|(s, r, p)| (s + 86_400 * 1000, r, p)));
    let log = swf(dir.path(), "early.swf", 64, &jobs);
    let (code, err) = run(&["validate", "--format", "csv", "--trace"], &log);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("no job was submitted for 1000.0 days (before the job on line 3"), "{err}");
    let (_, err) = run(&["fit", "-o", dir.path().join("f.toml").to_str().unwrap()], &log);
    assert!(err.contains("no job was submitted for 1000.0 days"), "{err}");
}

#[test]
fn a_log_with_nothing_replayable_exits_2_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let log = swf(dir.path(), "big.swf", 64, &even(16, 1));
    let (code, err) = run(&["validate", "--gpus", "8", "--trace"], &log);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no job of the log can be replayed on 8 processors: 200 larger than the cluster"), "{err}");
}

#[test]
fn gpus_that_are_no_whole_number_of_nodes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = swf(dir.path(), "n.swf", 64, &even(4, 1));
    let (code, err) = run(&["validate", "--gpus", "64", "--gpus-per-node", "6", "--trace"], &log);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--gpus 64 is not a multiple of --gpus-per-node 6") && err.contains("60 or 66"), "{err}");
    let (code, err) = run(&["validate", "--gpus", "60", "--gpus-per-node", "6", "--format", "csv", "--trace"], &log);
    assert_eq!(code, Some(0), "{err}");
}
