//! Nothing overwritten silently, through the binary: `run`, `merge` and `sweep` refuse a
//! folder holding other results unless `--force`, redo the same work in place, `plot
//! --lang zh` writes beside the English output, and shards written with `--out` land in
//! their own folders with a merge hint that names the right one.

use std::path::Path;

use assert_cmd::Command;

const TINY: &str = "tests/fixtures/tiny.toml";
const THRESHOLDS: &str = "policies.overflow-2h.threshold_hours=0,4";

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn run(out: &Path, extra: &[&str]) -> std::process::Output {
    burstsim().args(["run", TINY, "--no-charts", "-q", "--out"]).arg(out).args(extra).output().unwrap()
}

fn sweep(out: &Path, extra: &[&str]) -> std::process::Output {
    burstsim()
        .args(["sweep", TINY, "-q", "--no-charts", "-p", THRESHOLDS, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_run_with_other_settings_is_refused_unless_forced_and_the_same_run_is_redone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    assert!(run(&out, &["-n", "3"]).status.success());
    let before = std::fs::read(out.join("replications.csv")).unwrap();

    // The same command again: the same scenario, so the same numbers replace the files.
    let again = burstsim().args(["run", TINY, "--no-charts", "-n", "3", "--out"]).arg(&out).output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("this same scenario"), "{}", stderr(&again));
    assert_eq!(std::fs::read(out.join("replications.csv")).unwrap(), before);

    // Fewer replications into the same folder: refused, nothing touched.
    let fewer = run(&out, &["-n", "2"]);
    assert_eq!(fewer.status.code(), Some(2), "{}", stderr(&fewer));
    let err = stderr(&fewer);
    assert!(
        err.contains(&out.display().to_string()) && err.contains("--force") && err.contains("--out"),
        "names the folder and both ways out: {err}"
    );
    assert!(err.contains("replications: 3"), "says what the folder holds: {err}");
    assert_eq!(std::fs::read(out.join("replications.csv")).unwrap(), before, "the earlier results are intact");

    // With --force they are replaced.
    let forced = run(&out, &["-n", "2", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(stderr(&forced).contains("--force: replacing"), "{}", stderr(&forced));
    assert_ne!(std::fs::read(out.join("replications.csv")).unwrap(), before);
}

#[test]
fn a_smaller_sweep_does_not_replace_a_larger_one_and_the_same_sweep_reuses_its_points() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    assert!(sweep(&out, &["-n", "3"]).status.success());
    let csv = std::fs::read(out.join("sweep.csv")).unwrap();

    let smaller = sweep(&out, &["-n", "2"]);
    assert_eq!(smaller.status.code(), Some(2), "{}", stderr(&smaller));
    assert!(stderr(&smaller).contains("a sweep (sweep.toml)") && stderr(&smaller).contains("--force"));
    assert_eq!(std::fs::read(out.join("sweep.csv")).unwrap(), csv, "the 3-replication sweep is intact");

    // The same sweep again reuses its finished points: same bytes, no recomputation.
    let same = burstsim()
        .args(["sweep", TINY, "--no-charts", "-p", THRESHOLDS, "-n", "3", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(same.status.success(), "{}", stderr(&same));
    assert!(stderr(&same).contains("reusing its 2 of 2 finished points"), "{}", stderr(&same));
    assert_eq!(std::fs::read(out.join("sweep.csv")).unwrap(), csv);

    let forced = sweep(&out, &["-n", "2", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_ne!(std::fs::read(out.join("sweep.csv")).unwrap(), csv);
    // --resume keeps points and --force discards them: both at once is a usage error.
    assert_eq!(sweep(&out, &["-n", "2", "--force", "--resume"]).status.code(), Some(2));
}

#[test]
fn runs_and_sweeps_never_mix_in_one_folder_even_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    assert!(run(&out, &["-n", "2"]).status.success());
    let s = sweep(&out, &["-n", "2", "--force"]);
    assert_eq!(s.status.code(), Some(2));
    assert!(stderr(&s).contains("not a sweep's results"), "{}", stderr(&s));
    assert!(!out.join("sweep.toml").exists());
}

#[test]
fn chinese_charts_and_report_sit_beside_the_english_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let o =
        burstsim().args(["run", "tests/fixtures/plot-tiny.toml", "-n", "2", "-q", "--out"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let english_html = std::fs::read(out.join("report.html")).unwrap();
    let english_svg = std::fs::read(out.join("charts/cost_vs_wait.svg")).unwrap();
    let zh = burstsim().args(["plot"]).arg(&out).args(["--lang", "zh"]).output().unwrap();
    assert!(zh.status.success(), "{}", stderr(&zh));
    assert_eq!(std::fs::read(out.join("report.html")).unwrap(), english_html, "the English report is untouched");
    assert_eq!(std::fs::read(out.join("charts/cost_vs_wait.svg")).unwrap(), english_svg, "English charts untouched");
    let html = std::fs::read_to_string(out.join("report.zh.html")).unwrap();
    assert!(html.contains("lang=\"zh-CN\"") && html.contains("charts-zh/cost_vs_wait.svg"), "links its own charts");
    let md = std::fs::read_to_string(out.join("report.zh.md")).unwrap();
    assert!(md.contains("](charts-zh/cost_vs_wait.png)"), "{md}");
    assert!(out.join("charts-zh/cost_vs_wait.png").exists());
    let stdout = String::from_utf8_lossy(&zh.stdout);
    assert!(stdout.contains("charts-zh") && stdout.contains("report.zh.html"), "{stdout}");
}

#[test]
fn shards_given_one_out_folder_write_apart_and_the_hint_names_that_folder() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    let mut hints = Vec::new();
    for i in 0..2 {
        let o = burstsim()
            .args(["run", TINY, "-n", "4", "-q", "--shard", &format!("{i}/2"), "--out"])
            .arg(&shards)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        hints.push(stderr(&o));
    }
    for i in 0..2 {
        assert!(shards.join(format!("shard-{i}-of-2/shard.toml")).exists(), "shard {i} has its own folder");
    }
    assert!(
        hints[1].contains(&format!("burstsim merge {}", shards.display())),
        "the hint names the folder of the shards: {}",
        hints[1]
    );
    let merged = dir.path().join("merged");
    let m = burstsim().arg("merge").arg(&shards).args(["-q", "--no-charts", "--out"]).arg(&merged).output().unwrap();
    assert!(m.status.success(), "{}", stderr(&m));
    let single = dir.path().join("single");
    assert!(run(&single, &["-n", "4"]).status.success());
    assert_eq!(std::fs::read(merged.join("summary.csv")).unwrap(), std::fs::read(single.join("summary.csv")).unwrap());
    // Re-running a shard (a failed array task) is the same work: allowed. Another
    // scenario's shard in that folder is refused.
    let again =
        burstsim().args(["run", TINY, "-n", "4", "-q", "--shard", "1/2", "--out"]).arg(&shards).output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    let other =
        burstsim().args(["run", TINY, "-n", "6", "-q", "--shard", "1/2", "--out"]).arg(&shards).output().unwrap();
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    // A merge into a folder holding another run is refused too.
    let m = burstsim().arg("merge").arg(&shards).args(["-q", "--no-charts", "--out"]).arg(&single).output().unwrap();
    assert!(m.status.success(), "the same scenario: a merge equals the single run: {}", stderr(&m));
    let other_run = dir.path().join("other");
    assert!(run(&other_run, &["-n", "2"]).status.success());
    let m = burstsim().arg("merge").arg(&shards).args(["-q", "--no-charts", "--out"]).arg(&other_run).output().unwrap();
    assert_eq!(m.status.code(), Some(2), "{}", stderr(&m));
}
