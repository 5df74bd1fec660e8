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

/// The tables of a TOML text.
fn doc(text: &str) -> toml::Table {
    text.parse::<toml::Table>().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Issue 46 item 7: the fitted file runs as a lab's scenario. Without a group in the log it
/// has the default's workload, cloud offers, policies and targets, equal to the default's
/// values, and its run compares those policies on the group's jobs (before, one policy on
/// no job: an empty table).
#[test]
fn the_fitted_scenario_has_the_defaults_offers_policies_and_targets_and_compares_them() {
    let (out, dir, scn) = fit(&["--gpus", "64"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&scn).unwrap();
    assert!(text.contains("are copied from burstsim's default"), "the header says where they come from:\n{text}");
    let (ours, default) = (doc(&text), doc(burstsim::scenario::DEFAULT_SCENARIO));
    for key in ["cloud", "policies", "workload"] {
        assert_eq!(ours.get(key), default.get(key), "{key} equal to the default's");
    }
    assert_eq!(ours["sensitivity"]["targets"], default["sensitivity"]["targets"]);
    assert_eq!(ours["campus"]["gpus"].as_integer(), Some(64), "the campus stays the fitted one");
    let run = burstsim()
        .arg("run")
        .arg(&scn)
        .args(["-n", "2", "-q", "--no-charts", "--no-sensitivity", "--out"])
        .arg(dir.path().join("o"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(!err.contains("no job of the group arrived"), "the group has jobs: {err}");
    let summary = std::fs::read_to_string(dir.path().join("o/summary.csv")).unwrap();
    let mut policies: Vec<&str> = summary.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    policies.dedup();
    assert_eq!(policies, ["campus-only", "overflow-4h", "timeout-12h", "guide-hybrid"], "{summary}");
    let cost = |p: &str| -> f64 {
        let row = summary.lines().find(|l| l.starts_with(&format!("{p},total_cost_cny,"))).unwrap();
        row.split(',').nth(3).unwrap().parse().unwrap()
    };
    assert!(cost("guide-hybrid") > 0.0, "the guide's policy rents its debugging: a real cost\n{summary}");
}

/// Two fits of one log into two files are two scenarios: each runs into its own
/// output/<name>/ (`run` refuses a folder holding another scenario's results).
#[test]
fn two_fits_into_two_files_get_two_names_and_both_run_into_their_own_folders() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(LOG);
    for file in ["lab-a.toml", "lab-b.toml"] {
        let out = burstsim().current_dir(dir.path()).arg("fit").arg(&log).args(["--gpus", "64", "-o", file]).output();
        let out = out.unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    for name in ["lab-a", "lab-b"] {
        let text = std::fs::read_to_string(dir.path().join(format!("{name}.toml"))).unwrap();
        assert_eq!(doc(&text)["name"].as_str(), Some(name), "the -o file's stem");
        let run = burstsim()
            .current_dir(dir.path())
            .args(["run", &format!("{name}.toml"), "-n", "2", "-q", "--no-charts", "--no-sensitivity"])
            .output()
            .unwrap();
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        assert!(dir.path().join("output").join(name).join("summary.csv").exists(), "output/{name}/");
    }
    // Without -o the log's name: <log>-fit.toml holding the scenario <log>-fit.
    let out = burstsim().current_dir(dir.path()).arg("fit").arg(&log).args(["--gpus", "64"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join("sacct_29_jobs-fit.toml")).unwrap();
    assert_eq!(doc(&text)["name"].as_str(), Some("sacct_29_jobs-fit"));
}

#[test]
fn the_name_option_wins_over_the_files_stem() {
    let (out, _dir, scn) = fit(&["--gpus", "64", "--name", "our-campus"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(doc(&std::fs::read_to_string(&scn).unwrap())["name"].as_str(), Some("our-campus"));
}

/// `--gpus-per-node G` writes the campus as Slurm's nodes; a size G does not divide is
/// refused before anything is written, naming the flag, both values and what would do.
#[test]
fn gpus_per_node_writes_nodes_and_refuses_a_size_it_does_not_divide() {
    let (out, _dir, scn) = fit(&["--gpus", "64", "--gpus-per-node", "8"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&scn).unwrap();
    let campus = &doc(&text)["campus"];
    assert_eq!(campus["placement"].as_str(), Some("nodes"), "{text}");
    assert_eq!((campus["nodes"].as_integer(), campus["gpus_per_node"].as_integer()), (Some(8), Some(8)));
    assert!(campus.get("gpus").is_none(), "nodes × gpus_per_node, not gpus as well");
    let s = Scenario::load(&scn).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(s.campus.placement, burstsim::scenario::raw::Placement::Nodes);
    assert_eq!(s.campus.gpus, 64);

    let (out, _dir, scn) = fit(&["--gpus", "64", "--gpus-per-node", "6"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--gpus-per-node 6 does not divide the cluster's 64 GPUs"), "{err}");
    assert!(err.contains("G one of 1, 2, 4, 8, 16, 32, 64") && err.contains("(60 or 66)"), "{err}");
    assert!(!scn.exists(), "nothing written");
}
