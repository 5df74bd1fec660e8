//! `[background.trace]`: a real log as the other groups' load, replayed or block
//! bootstrapped per replication under the usual common-random-number rules.

mod common;

use burstsim::scenario::Scenario;
use burstsim::units::DAY;
use burstsim::workload::JobStream;

/// A ten-day SWF log (jobs every 3 hours, sizes 1-4, runtimes 1-3 h) in a temporary
/// folder, and a scenario next to it that uses it.
fn scenario(mode: &str, block: &str) -> Scenario {
    scenario_with(mode, block, "")
}

fn scenario_with(mode: &str, block: &str, extra: &str) -> Scenario {
    let tag: u64 = extra.bytes().map(u64::from).sum();
    let dir = std::env::temp_dir().join(format!("burstsim-trace-scenario-{}-{mode}-{block}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut swf = String::from("; MaxProcs: 8\n");
    for i in 0..80u64 {
        let (submit, run, procs) = (i * 3 * 3600 + (i * 577) % 3000, 3600 + (i * 911) % 7200, 1 + i % 4);
        swf.push_str(&format!(
            "{} {submit} 0 {run} {procs} -1 -1 {procs} {} -1 1 {} 1 -1 1 -1 -1 -1\n",
            i + 1,
            run * 2,
            1 + i % 3
        ));
    }
    std::fs::write(dir.join("ten-days.swf"), swf).unwrap();
    let text = format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 28\nseed = 4\n[campus]\ngpus = 8\nvram_gb = 80\n\
         [background.trace]\npath = \"ten-days.swf\"\nmode = \"{mode}\"\nblock = \"{block}\"\n{extra}\
         [[workload.classes]]\nname = \"g\"\njobs_per_week = 3\nruntime_hours = 2\n"
    );
    // Relative paths are resolved against the scenario file's folder.
    let file = dir.join("s.toml");
    Scenario::from_toml_str(&text, &file.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn replay_puts_the_log_at_the_start_of_every_replication() {
    let s = scenario("replay", "day");
    let a = JobStream::generate(&s, 0);
    let b = JobStream::generate(&s, 1);
    let bg =
        |j: &JobStream| j.jobs.iter().filter(|j| !j.group).map(|j| (j.submit, j.runtime, j.gpus)).collect::<Vec<_>>();
    assert!(!bg(&a).is_empty());
    assert_eq!(bg(&a), bg(&b), "replay: the same log in every replication");
}

#[test]
fn bootstrap_resamples_whole_blocks_differently_per_replication_and_reproducibly() {
    let s = scenario("bootstrap", "day");
    let a = JobStream::generate(&s, 0);
    let a2 = JobStream::generate(&s, 0);
    assert_eq!(a.jobs, a2.jobs, "same seed and replication: same resample");
    let bg = |j: &JobStream| j.jobs.iter().filter(|j| !j.group).map(|j| j.submit).collect::<Vec<_>>();
    let counts: Vec<usize> = (0..6).map(|r| bg(&JobStream::generate(&s, r)).len()).collect();
    assert!(
        counts.iter().any(|&c| c != counts[0]) || (1..6).any(|r| bg(&JobStream::generate(&s, r)) != bg(&a)),
        "replications differ"
    );
    assert!(bg(&a).iter().all(|&t| t < s.horizon));
    assert!(bg(&a).last().is_some_and(|&t| t > 20 * DAY), "the resample covers the horizon");
}

#[test]
fn a_missing_log_names_the_key_and_the_path() {
    let text = "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 28\n[campus]\ngpus = 8\nvram_gb = 80\n\
                [background.trace]\npath = \"nowhere.swf\"\n[[workload.classes]]\nname = \"g\"\njobs_per_week = 3\nruntime_hours = 2\n";
    let e = Scenario::from_toml_str(text, "t.toml").unwrap_err().to_string();
    assert!(
        e.contains("background.trace.path") && e.contains("nowhere.swf") && e.contains("relative to the scenario file"),
        "{e}"
    );
}

#[test]
fn the_kth_log_runs_as_a_bootstrapped_background() {
    if common::shared_data("data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz").is_none() {
        return;
    }
    let s = Scenario::load(std::path::Path::new("scenarios/kth-trace.toml")).unwrap();
    let jobs = JobStream::generate(&s, 0);
    let out = burstsim::engine::simulate(&s, &jobs, 0, 0);
    // The log's load is about 0.70 of 100 processors.
    let load = out.metrics.get(burstsim::metrics::Metric::CampusOfferedLoad);
    assert!((0.5..0.95).contains(&load), "offered load {load}");
    assert!(out.records.iter().all(|r| r.end != u64::MAX));
}

#[test]
fn a_users_jobs_in_the_log_become_the_groups_and_are_routed_and_measured() {
    let s = scenario_with("replay", "day", "group_user = \"2\"\n");
    let jobs = JobStream::generate(&s, 0);
    let from_log = jobs.jobs.iter().filter(|j| j.group && j.class == u16::MAX).count();
    assert!((20..=30).contains(&from_log), "a third of the 80 jobs: {from_log}");
    let out = burstsim::engine::simulate(&s, &jobs, 0, 0);
    assert!(out.metrics.get(burstsim::metrics::Metric::JobsCompleted) >= from_log as f64 - 5.0);
    let err = std::panic::catch_unwind(|| scenario_with("replay", "day", "group_user = \"nobody\"\n")).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("background.trace.group_user") && msg.contains("'nobody'"), "{msg}");
}

#[test]
fn scaling_thins_or_replicates_the_log_and_skip_days_shifts_it() {
    let count = |extra: &str| {
        let s = scenario_with("replay", "day", extra);
        JobStream::generate(&s, 0).jobs.iter().filter(|j| !j.group).count() as f64
    };
    let base = count("");
    let half = count("scale = 0.5\n");
    let double = count("scale = 2\n");
    assert!((half / base - 0.5).abs() < 0.2, "{half} of {base}");
    assert_eq!(double, 2.0 * base, "whole copies");
    let skipped = count("skip_days = 5\n");
    assert!(skipped < base * 0.6 && skipped > base * 0.4, "skipping 5 of 10 days: {skipped} of {base}");
}
