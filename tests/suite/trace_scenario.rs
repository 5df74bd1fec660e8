//! `[background.trace]`: a real log as the other groups' load, replayed or block
//! bootstrapped per replication under the usual common-random-number rules.

use crate::common;

use burstsim::date::Date;
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
    let scn = Scenario::from_toml_str(&text, &file.display().to_string());
    // The log is read when the scenario loads: leave nothing behind in the temp folder.
    let _ = std::fs::remove_dir_all(&dir);
    scn.unwrap_or_else(|e| panic!("{e}"))
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
    for w in burstsim::output::warnings::trace_warnings(&s) {
        eprintln!("kth-trace.toml: {w}");
    }
    let jobs = JobStream::generate(&s, 0);
    let out = burstsim::engine::simulate(&s, &jobs, 0, 0);
    // The log's load is about 0.70 of 100 processors.
    let load = out.metrics.get(burstsim::metric::Metric::CampusOfferedLoad);
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
    assert!(out.metrics.get(burstsim::metric::Metric::JobsCompleted) >= from_log as f64 - 5.0);
    let err = std::panic::catch_unwind(|| scenario_with("replay", "day", "group_user = \"nobody\"\n")).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("background.trace.group_user") && msg.contains("'nobody'"), "{msg}");
}

#[test]
fn a_replay_thins_below_scale_1_refuses_above_and_skip_days_shifts_it() {
    let count = |extra: &str| {
        let s = scenario_with("replay", "day", extra);
        JobStream::generate(&s, 0).jobs.iter().filter(|j| !j.group).count() as f64
    };
    let base = count("");
    let half = count("scale = 0.5\n");
    assert!((half / base - 0.5).abs() < 0.2, "{half} of {base}");
    let skipped = count("skip_days = 5\n");
    assert!(skipped < base * 0.6 && skipped > base * 0.4, "skipping 5 of 10 days: {skipped} of {base}");
    // A replay has one history: copying it would only add twins.
    let err = std::panic::catch_unwind(|| scenario_with("replay", "day", "scale = 2\n")).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("background.trace.scale") && msg.contains("mode = \"bootstrap\""), "{msg}");
}

/// Local midnight of 2001-01-01 (a Monday) as a Unix time: the synthetic logs' clock 0.
const JAN_2001: i64 = 978_307_200;

/// An SWF log of `days` days with `per_day` jobs a day; job h of day d runs
/// 1000 + d·per_day + h seconds, so every job is unique and tells which day it came from.
/// With `dated`, the header gives UnixStartTime (2001-01-01 00:00, time zone 0).
fn synthetic_log(days: u64, per_day: u64, dated: bool) -> String {
    let mut swf = String::from("; MaxProcs: 8\n");
    if dated {
        swf.push_str(&format!("; UnixStartTime: {JAN_2001}\n; TimeZone: 0\n"));
    }
    for d in 0..days {
        for h in 0..per_day {
            let (submit, run, procs) = (d * DAY + 3600 * (8 + h), 1000 + d * per_day + h, 1 + h % 2);
            swf.push_str(&format!(
                "{} {submit} 0 {run} {procs} -1 -1 {procs} {run} -1 1 1 1 -1 1 -1 -1 -1\n",
                d * per_day + h + 1
            ));
        }
    }
    swf
}

/// A scenario from 2026-09-07 (a Monday) over `horizon_days` whose background is `log`.
fn scenario_on(log: &str, horizon_days: u32, trace_keys: &str) -> Result<Scenario, String> {
    let tag = log.len() as u64 * 31 + trace_keys.bytes().map(u64::from).sum::<u64>() + u64::from(horizon_days);
    let dir = std::env::temp_dir().join(format!("burstsim-trace-season-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("log.swf"), log).unwrap();
    let text = format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = {horizon_days}\nseed = 11\n[campus]\ngpus = 8\nvram_gb = 80\n\
         [background.trace]\npath = \"log.swf\"\n{trace_keys}\
         [[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 2\n"
    );
    let scn = Scenario::from_toml_str(&text, &dir.join("s.toml").display().to_string()).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    scn
}

/// Day of the year (0 = 1 January) of a day counted from 1970-01-01.
fn day_of_year(days: i64) -> i64 {
    let d = Date::from_days(days);
    days - Date::new(d.year(), 1, 1).unwrap().to_days()
}

fn days_apart_in_year(a: i64, b: i64) -> i64 {
    let x = (a - b).rem_euclid(365);
    x.min(365 - x)
}

/// For every background job: how many days from its own date in the year the log's
/// copy of it was (its runtime names its source day).
fn season_offsets(s: &Scenario, jobs: &JobStream, per_day: u64) -> Vec<i64> {
    let start = s.start_date.to_days();
    jobs.jobs
        .iter()
        .filter(|j| !j.group)
        .map(|j| {
            let source_day = JAN_2001.div_euclid(DAY as i64) + ((j.runtime - 1000) / per_day) as i64;
            let output_day = start + (j.submit / DAY) as i64;
            days_apart_in_year(day_of_year(source_day), day_of_year(output_day))
        })
        .collect()
}

#[test]
fn a_dated_log_is_bootstrapped_by_season_and_run_toml_records_the_window() {
    // Two years and a bit of a log from 2001-01-01; a year of simulation from September.
    let log = synthetic_log(800, 3, true);
    let s = scenario_on(&log, 365, "").unwrap();
    let trace = s.background_trace.as_ref().unwrap();
    assert_eq!((trace.season_window_weeks, trace.undated), (Some(2), false), "dated logs default to ±2 weeks");
    let resolved = s.resolved_toml();
    assert!(resolved.contains("draw = \"season\"") && resolved.contains("season_window_weeks = 2"), "{resolved}");
    for r in 0..4 {
        let offsets = season_offsets(&s, &JobStream::generate(&s, r), 3);
        assert!(offsets.len() > 1000);
        // ±(2 weeks + half a week), and a day for leap years.
        let worst = offsets.iter().max().unwrap();
        assert!(*worst <= 18, "replication {r}: a job came from {worst} days away in the year");
    }
    assert!(burstsim::output::warnings::trace_warnings(&s).is_empty(), "two years fill every window");
    // The same log drawn uniformly lands weeks anywhere in the year.
    let u = scenario_on(&log, 365, "draw = \"uniform\"\n").unwrap();
    let offsets = season_offsets(&u, &JobStream::generate(&u, 0), 3);
    let far = offsets.iter().filter(|&&d| d > 18).count();
    assert!(far * 2 > offsets.len(), "uniform: only {far} of {} jobs out of season", offsets.len());
    // Window 0: the matching week of each year only.
    let z = scenario_on(&log, 365, "season_window_weeks = 0\n").unwrap();
    assert!(season_offsets(&z, &JobStream::generate(&z, 0), 3).iter().all(|&d| d <= 4));
}

#[test]
fn a_log_shorter_than_a_year_widens_the_window_with_a_warning() {
    // 120 days from January: a simulation from September has no week of it nearby.
    let s = scenario_on(&synthetic_log(120, 3, true), 365, "").unwrap();
    let warnings = burstsim::output::warnings::trace_warnings(&s);
    let text = warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("shorter than a year") && text.contains("of 53 simulated weeks"), "{text}");
    let jobs = JobStream::generate(&s, 0);
    let weeks: std::collections::BTreeSet<u64> = jobs.jobs.iter().map(|j| j.submit / (7 * DAY)).collect();
    assert_eq!(weeks.len(), 53, "every simulated week still gets jobs");
}

#[test]
fn an_undated_log_is_drawn_uniformly_with_a_warning_and_season_keys_are_checked() {
    let s = scenario_on(&synthetic_log(60, 3, false), 28, "").unwrap();
    assert!(s.background_trace.as_ref().unwrap().undated);
    let text: Vec<String> = burstsim::output::warnings::trace_warnings(&s).iter().map(|w| w.to_string()).collect();
    assert!(text.len() == 1 && text[0].contains("no calendar dates"), "{text:?}");
    let quiet = scenario_on(&synthetic_log(60, 3, false), 28, "draw = \"uniform\"\n").unwrap();
    assert!(burstsim::output::warnings::trace_warnings(&quiet).is_empty(), "an explicit uniform draw needs no warning");
    let cases = [
        (synthetic_log(60, 3, false), "draw = \"season\"\n", "background.trace.draw", "no calendar dates"),
        (
            synthetic_log(60, 3, false),
            "season_window_weeks = 3\n",
            "background.trace.season_window_weeks",
            "draw = \"uniform\"",
        ),
        (
            synthetic_log(60, 3, true),
            "season_window_weeks = 27\n",
            "background.trace.season_window_weeks",
            "0 (the same week",
        ),
        (
            synthetic_log(60, 3, true),
            "draw = \"uniform\"\nseason_window_weeks = 1\n",
            "background.trace.season_window_weeks",
            "applies only",
        ),
        (
            synthetic_log(60, 3, true),
            "mode = \"replay\"\ndraw = \"season\"\n",
            "background.trace.draw",
            "only a bootstrap",
        ),
    ];
    for (log, keys, key, words) in cases {
        let e = scenario_on(&log, 28, keys).unwrap_err();
        assert!(e.contains(key) && e.contains(words), "{keys}: {e}");
    }
}

#[test]
fn a_scale_above_1_superposes_independent_resamples_without_twins() {
    // 60 undated days (uniform draws over 60 blocks), 8 unique jobs a day.
    let log = synthetic_log(60, 8, false);
    let keys = |scale: &str| format!("block = \"day\"\ndraw = \"uniform\"\nscale = {scale}\n");
    let background = |s: &Scenario, r: u64| -> Vec<burstsim::job::Job> {
        JobStream::generate(s, r).jobs.into_iter().filter(|j| !j.group).collect()
    };
    let one = scenario_on(&log, 56, &keys("1")).unwrap();
    let scaled = scenario_on(&log, 56, &keys("2.5")).unwrap();
    let (mut n1, mut n25, mut twins, mut first_copy_kept) = (0usize, 0usize, 0usize, true);
    for r in 0..20 {
        let a = background(&one, r);
        let b = background(&scaled, r);
        n1 += a.len();
        n25 += b.len();
        // The first resample is the scale-1 one: changing the scale moves no draw of it.
        first_copy_kept &= a.iter().all(|j| b.contains(j));
        // A twin: the same job (same source, so same runtime) again within a second.
        twins += b
            .iter()
            .enumerate()
            .filter(|(i, j)| b[i + 1..].iter().take_while(|k| k.submit <= j.submit + 1).any(|k| k.runtime == j.runtime))
            .count();
    }
    assert!(first_copy_kept);
    assert_eq!(n1, 20 * 56 * 8, "scale 1: one whole resample");
    let ratio = n25 as f64 / n1 as f64;
    assert!((ratio - 2.5).abs() < 0.05, "scale 2.5 gives {ratio:.3} × the jobs");
    // Copies coincide only where two of them drew the same source day (chance 1/60 per
    // pair of copies and day, halved for pairs with the thinned third): about 1.5% of
    // jobs, where twins one second apart made every job of the second copy a twin.
    let twin_share = twins as f64 / n25 as f64;
    eprintln!(
        "scale 2.5: {ratio:.3} × the jobs of scale 1; {:.2}% of jobs have a twin within a second",
        twin_share * 100.0
    );
    assert!(twin_share < 0.10, "{:.1}% of jobs have a twin within a second", twin_share * 100.0);
}
