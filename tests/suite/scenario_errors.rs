//! Bad scenario files: every refusal names the file, the line (for errors found after
//! parsing: `test.toml:<line>:`), the key path and what is allowed. Each case mutates one
//! minimal valid scenario. The messages checked here are the ones quoted in
//! docs/SCENARIOS.md ("Bad input: the error catalogue").

use crate::common;

use std::path::Path;

use burstsim::engine::simulate;
use burstsim::scenario::{DEFAULT_SCENARIO, Scenario};
use burstsim::workload::JobStream;

/// A minimal valid scenario: a small campus, one class, an hourly and a monthly offer,
/// and two policies.
const BASE: &str = r#"[simulation]
start_date = "2026-09-01"
horizon_days = 30
replications = 2

[campus]
gpus = 8
vram_gb = 80

[[workload.classes]]
name = "train"
jobs_per_week = 10
gpus = 1
runtime_hours = 2
vram_gb = 24

[[cloud.offers]]
name = "a800-hourly"
gpu_type = "A800"
vram_gb = 80
billing = "hourly"
price_per_gpu_hour_cny = 5.0

[[cloud.offers]]
name = "a800-monthly"
gpu_type = "A800"
vram_gb = 80
billing = "monthly"
price_per_gpu_month_cny = 2500
gpus = 8

[[policies]]
name = "campus-only"
kind = "campus-only"

[[policies]]
name = "overflow"
kind = "overflow-timeout"
threshold_hours = 4
offers = ["a800-hourly"]
"#;

/// `BASE` with `old` (which must occur exactly once) replaced by `new`.
fn replace(old: &str, new: &str) -> String {
    replace_in(BASE, old, new)
}

fn replace_in(text: &str, old: &str, new: &str) -> String {
    assert_eq!(text.matches(old).count(), 1, "the mutation target {old:?} must occur exactly once");
    text.replacen(old, new, 1)
}

/// `BASE` with `extra` appended (new tables at the end of the file).
fn append(extra: &str) -> String {
    format!("{BASE}\n{extra}")
}

/// The error a text is refused with.
fn error(text: &str) -> String {
    match Scenario::from_toml_str(text, "test.toml") {
        Ok(_) => panic!("the scenario was accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The 1-based line of the only line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let lines: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{needle:?} must be on exactly one line of\n{text}");
    lines[0]
}

/// A value refused after parsing: `test.toml:<line of at>: <key>: ...` and every `says` part.
fn assert_invalid(text: &str, at: &str, key: &str, says: &[&str]) -> String {
    let e = error(text);
    let prefix = format!("test.toml:{}: {key}: ", line_of(text, at));
    assert!(e.starts_with(&prefix), "expected the error to start with {prefix:?}, got:\n{e}");
    for s in says {
        assert!(e.contains(s), "expected the error to mention {s:?}, got:\n{e}");
    }
    e
}

/// A text the TOML parser refuses: the file, `at line <line of at>`, and every `says` part.
fn assert_syntax(text: &str, at: &str, says: &[&str]) -> String {
    let e = error(text);
    let prefix = format!("test.toml: TOML parse error at line {}, column", line_of(text, at));
    assert!(e.starts_with(&prefix), "expected the error to start with {prefix:?}, got:\n{e}");
    for s in says {
        assert!(e.contains(s), "expected the error to mention {s:?}, got:\n{e}");
    }
    e
}

fn simulate_every_policy(s: &Scenario) {
    let jobs = JobStream::generate(s, 0);
    for p in 0..s.policies.len() {
        simulate(s, &jobs, p, 0);
    }
}

// ---- valid input ------------------------------------------------------------------

#[test]
fn the_minimal_scenario_is_valid_and_runs() {
    let s = Scenario::from_toml_str(BASE, "test.toml").expect("BASE is valid");
    simulate_every_policy(&s);
}

#[test]
fn the_embedded_default_and_every_shipped_scenario_load() {
    Scenario::from_toml_str(DEFAULT_SCENARIO, "<embedded default>").expect("the embedded default loads");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios/*.toml found");
    for f in files {
        let uses_shared_trace = std::fs::read_to_string(&f).unwrap().contains("shared/data/traces");
        if uses_shared_trace && common::shared_data("data/traces").is_none() {
            eprintln!("skipping {}: it reads a log from the shared data", f.display());
            continue;
        }
        if let Err(e) = Scenario::load(&f) {
            panic!("{} does not load: {e}", f.display());
        }
    }
}

#[test]
fn an_infinite_threshold_means_never_overflow() {
    let s = Scenario::from_toml_str(&replace("threshold_hours = 4", "threshold_hours = inf"), "test.toml").unwrap();
    assert_eq!(s.policies[1].threshold, None);
}

#[test]
fn a_huge_finite_threshold_does_not_overflow_the_clock() {
    let s = Scenario::from_toml_str(&replace("threshold_hours = 4", "threshold_hours = 1e300"), "test.toml").unwrap();
    simulate_every_policy(&s);
}

#[test]
fn recurring_seasons_at_the_ends_of_the_calendar_do_not_panic() {
    let season = "[[workload.seasons]]\nname = \"winter\"\nstart = \"12-20\"\nend = \"01-10\"\nmultiplier = 2\n";
    for start in ["1900-01-01", "1900-06-01", "9998-06-01"] {
        let text = replace_in(&append(season), "2026-09-01", start);
        let s = Scenario::from_toml_str(&text, "test.toml").unwrap_or_else(|e| panic!("{start}: {e}"));
        assert!(s.group_calendar.max_multiplier(s.horizon) >= 1.0);
    }
    // Starting on 1 January 1900, the season's first ten days are in force from day 0.
    let text = replace_in(&append(season), "2026-09-01", "1900-01-01");
    let s = Scenario::from_toml_str(&text, "test.toml").unwrap();
    assert_eq!(s.group_calendar.multiplier_at(0), 2.0);
    assert_eq!(s.group_calendar.multiplier_at(10 * 86_400), 1.0);
}

/// `BASE` with `[workload] hourly_profile = <profile>`.
fn with_group_profile(profile: &str) -> String {
    replace("[[workload.classes]]", &format!("[workload]\nhourly_profile = {profile}\n\n[[workload.classes]]"))
}

#[test]
fn a_weekly_profile_is_aligned_to_the_start_dates_weekday() {
    // Arrivals only on Mondays; 2026-09-01 is a Tuesday, so the first Monday is day 6.
    let monday: Vec<String> = (0..168).map(|h| if h < 24 { "1" } else { "0" }.to_string()).collect();
    let s = Scenario::from_toml_str(&with_group_profile(&format!("[{}]", monday.join(", "))), "test.toml").unwrap();
    let cal = &s.group_calendar;
    assert_eq!(cal.multiplier_at(0), 0.0);
    assert_eq!(cal.multiplier_at(6 * 86_400 + 3_600), 7.0, "normalised: one day in seven carries the week");
    assert_eq!(cal.multiplier_at(7 * 86_400), 0.0);
    let jobs = JobStream::generate(&s, 0);
    assert!(!jobs.jobs.is_empty());
    assert!(jobs.jobs.iter().all(|j| (j.submit / 86_400) % 7 == 6), "every arrival is on a Monday");
    // A daily profile needs no weekday; its mean over whole days stays 1.
    let day: Vec<String> = (0..24).map(|h| if (9..18).contains(&h) { "4" } else { "1" }.to_string()).collect();
    let s = Scenario::from_toml_str(&with_group_profile(&format!("[{}]", day.join(", "))), "test.toml").unwrap();
    assert!((s.group_calendar.mean_multiplier(0, s.horizon) - 1.0).abs() < 1e-12);
    simulate_every_policy(&s);
}

#[test]
fn fails_with_a_profile_of_the_wrong_length() {
    let e = assert_invalid(
        &with_group_profile("[1, 2, 3]"),
        "hourly_profile",
        "workload.hourly_profile",
        &["3 values are not allowed", "24", "168"],
    );
    assert!(e.contains("Monday"), "{e}");
}

#[test]
fn fails_with_a_negative_or_all_zero_profile() {
    let mut day = vec!["1"; 24];
    day[5] = "-1";
    assert_invalid(
        &with_group_profile(&format!("[{}]", day.join(", "))),
        "hourly_profile",
        "workload.hourly_profile[5]",
        &["-1 is not allowed", "from 0 to 10⁶"],
    );
    let zeros = format!("[{}]", vec!["0"; 24].join(", "));
    assert_invalid(&with_group_profile(&zeros), "hourly_profile", "workload.hourly_profile", &["all values are 0"]);
}

#[test]
fn fails_with_a_walltime_limit_under_a_minute() {
    // Found by the fuzzer: 1e-7 h cut every job into one-second segments (minutes per case).
    let text = replace("vram_gb = 80\n\n", "vram_gb = 80\nmax_walltime_hours = 0.0000001\n\n");
    assert_invalid(
        &text,
        "max_walltime_hours",
        "campus.max_walltime_hours",
        &["0.0000001 is not allowed", "at least 1/60 h"],
    );
    let ok = replace("vram_gb = 80\n\n", "vram_gb = 80\nmax_walltime_hours = 0.5\n\n");
    Scenario::from_toml_str(&ok, "test.toml").expect("half an hour is a valid limit");
}

#[test]
fn a_sharp_profile_is_accepted_now_that_arrivals_draw_one_number_per_job() {
    // 4e7 jobs in ten years, all of them in one hour a week and ×2 on one day: thinning
    // needed ~1.3e10 candidate draws and was refused; the time-change sampler draws one
    // number per job, so only the job-count limit applies.
    let one_hour: Vec<&str> = (0..168).map(|h| if h == 10 { "1" } else { "0" }).collect();
    let text = replace_in(
        &replace_in(
            &with_group_profile(&format!("[{}]", one_hour.join(", "))),
            "horizon_days = 30",
            "horizon_days = 3650",
        ),
        "jobs_per_week = 10",
        "jobs_per_week = 76700",
    );
    let text = format!(
        "{text}\n[[workload.seasons]]\nname = \"crunch\"\nstart = \"2027-01-01\"\nend = \"2027-01-01\"\nmultiplier = 2\n"
    );
    Scenario::from_toml_str(&text, "test.toml").expect("a sharp profile only costs its jobs");
}

// ---- the TOML parser's refusals ---------------------------------------------------

#[test]
fn fails_with_a_syntax_error_naming_the_file_and_line() {
    let text = replace("horizon_days = 30", "horizon_days = = 30");
    assert_syntax(&text, "horizon_days = = 30", &["horizon_days = = 30"]);
}

#[test]
fn fails_with_unknown_key_at_top_level() {
    let text = format!("nmae = \"x\"\n{BASE}");
    assert_syntax(&text, "nmae", &["unknown field `nmae`", "`name`", "`simulation`", "`policies`"]);
}

#[test]
fn fails_with_unknown_key_in_simulation() {
    let text = replace("horizon_days = 30", "horizon_days = 30\nhorizon_dys = 3");
    assert_syntax(&text, "horizon_dys", &["unknown field `horizon_dys`", "`horizon_days`", "`warmup_days`"]);
}

#[test]
fn fails_with_unknown_key_in_a_class() {
    let text = replace("jobs_per_week = 10", "jobs_per_week = 10\nruntime_hour = 3");
    assert_syntax(&text, "runtime_hour =", &["unknown field `runtime_hour`", "`runtime_hours`", "`walltime_factor`"]);
}

#[test]
fn fails_with_unknown_key_in_an_offer() {
    let text = replace("price_per_gpu_hour_cny = 5.0", "price_per_gpu_hour_cny = 5.0\nprice_per_hour = 3");
    assert_syntax(&text, "price_per_hour =", &["unknown field `price_per_hour`", "`price_per_gpu_hour_cny`"]);
}

#[test]
fn fails_with_unknown_key_in_an_offers_speed() {
    let text = replace("billing = \"hourly\"", "billing = \"hourly\"\nspeed = { cv = 1, transformr = 2 }");
    assert_syntax(&text, "transformr", &["unknown field `transformr`", "expected `cv` or `transformer`"]);
}

#[test]
fn fails_with_a_speed_missing_one_of_its_keys() {
    let text = replace("billing = \"hourly\"", "billing = \"hourly\"\nspeed = { cv = 1.2 }");
    assert_syntax(&text, "speed", &["missing field `transformer`"]);
}

#[test]
fn fails_with_unknown_key_in_a_policy() {
    let text = replace("threshold_hours = 4", "threshold_hours = 4\nthreshold = 3");
    assert_syntax(&text, "threshold = 3", &["unknown field `threshold`", "`threshold_hours`", "`when_cloud_full`"]);
}

#[test]
fn fails_with_unknown_distribution_kind() {
    let text = replace("runtime_hours = 2", "runtime_hours = { kind = \"pareto\", shape = 1 }");
    assert_syntax(&text, "pareto", &["unknown variant `pareto`", "`lognormal`", "`empirical`"]);
}

#[test]
fn fails_with_unknown_distribution_parameter() {
    let text = replace("runtime_hours = 2", "runtime_hours = { kind = \"lognormal\", mean = 8, sd = 2 }");
    assert_syntax(&text, "sd = 2", &["unknown field `sd`", "expected `mean` or `cv`"]);
}

#[test]
fn fails_with_unknown_fairshare_algorithm() {
    let text = replace(
        "vram_gb = 80\n\n[[workload",
        "vram_gb = 80\n\n[campus.multifactor]\nfairshare_algorithm = \"fairtree\"\n\n[[workload",
    );
    assert_syntax(&text, "fairtree", &["unknown variant `fairtree`", "`classic`", "`fair-tree`"]);
}

#[test]
fn fails_with_unknown_policy_kind() {
    let text = replace("kind = \"campus-only\"", "kind = \"campus-first\"");
    assert_syntax(&text, "campus-first", &["unknown variant `campus-first`", "`campus-only`", "`guide-hybrid`"]);
}

#[test]
fn fails_with_wrong_type() {
    let text = replace("horizon_days = 30", "horizon_days = \"30\"");
    assert_syntax(&text, "horizon_days", &["invalid type: string \"30\", expected f64"]);
}

#[test]
fn fails_with_a_negative_count() {
    let text = replace("gpus = 8\nvram_gb = 80", "gpus = -8\nvram_gb = 80");
    assert_syntax(&text, "gpus = -8", &["invalid value: integer `-8`, expected u32"]);
}

#[test]
fn fails_with_a_missing_required_key() {
    let text = replace("start_date = \"2026-09-01\"\n", "");
    assert_syntax(&text, "[simulation]", &["missing field `start_date`"]);
}

// ---- values refused after parsing ---------------------------------------------------

#[test]
fn fails_with_negative_rate() {
    let text = replace("jobs_per_week = 10", "jobs_per_week = -1");
    assert_invalid(&text, "jobs_per_week", "workload.classes[0].jobs_per_week", &["-1 is not allowed", "≥ 0"]);
}

#[test]
fn fails_with_nan_runtime() {
    let text = replace("runtime_hours = 2", "runtime_hours = nan");
    assert_invalid(&text, "runtime_hours", "workload.classes[0].runtime_hours", &["NaN is not allowed", "finite"]);
}

#[test]
fn fails_with_nan_memory() {
    let text = replace("gpus = 8\nvram_gb = 80", "gpus = 8\nvram_gb = nan");
    assert_invalid(&text, "vram_gb = nan", "campus.vram_gb", &["NaN is not allowed", "positive finite number"]);
}

#[test]
fn fails_with_nan_threshold() {
    let text = replace("threshold_hours = 4", "threshold_hours = nan");
    assert_invalid(&text, "threshold_hours", "policies[1].threshold_hours", &["NaN is not allowed", "≥ 0"]);
}

#[test]
fn fails_with_infinite_price() {
    let text = replace("price_per_gpu_hour_cny = 5.0", "price_per_gpu_hour_cny = inf");
    assert_invalid(
        &text,
        "price_per_gpu_hour_cny",
        "cloud.offers[0].price_per_gpu_hour_cny",
        &["inf is not allowed", "finite number ≥ 0"],
    );
}

#[test]
fn fails_with_infinite_horizon() {
    let text = replace("horizon_days = 30", "horizon_days = inf");
    assert_invalid(&text, "horizon_days", "simulation.horizon_days", &["inf is not allowed", "at most 3650 days"]);
}

#[test]
fn fails_with_zero_gpus() {
    let text = replace("gpus = 8\nvram_gb = 80", "gpus = 0\nvram_gb = 80");
    assert_invalid(&text, "gpus = 0", "campus.gpus", &["0 GPUs is not allowed", "use 1 to 1000000"]);
}

#[test]
fn fails_with_choice_weights_that_sum_to_zero() {
    let text = replace("gpus = 1\n", "gpus = { kind = \"choice\", values = [1, 2], weights = [0, 0] }\n");
    assert_invalid(&text, "weights", "workload.classes[0].gpus", &["weights sum to 0", "at least one weight"]);
}

#[test]
fn fails_with_choice_values_and_weights_of_different_lengths() {
    let text = replace("gpus = 1\n", "gpus = { kind = \"choice\", values = [1, 2], weights = [1] }\n");
    assert_invalid(&text, "weights", "workload.classes[0].gpus", &["2 values but 1 weights", "one weight per value"]);
}

#[test]
fn fails_with_fractional_gpus() {
    let text = replace("gpus = 1\n", "gpus = 1.5\n");
    assert_invalid(&text, "gpus = 1.5", "workload.classes[0].gpus", &["whole numbers"]);
}

#[test]
fn fails_with_a_class_needing_more_gpus_than_the_campus_and_every_offer() {
    // Only the overflow policy (campus, a800-hourly), and the hourly offer capped at 8 GPUs.
    let text = replace("[[policies]]\nname = \"campus-only\"\nkind = \"campus-only\"\n\n", "");
    let text = replace_in(&text, "price_per_gpu_hour_cny = 5.0", "price_per_gpu_hour_cny = 5.0\ncapacity_gpus = 8");
    let text = replace_in(&text, "gpus = 1\n", "gpus = 16\n");
    assert_invalid(
        &text,
        "[[workload.classes]]",
        "workload.classes[0]",
        &["class 'train' needs up to 16 GPUs", "policy 'overflow'", "'campus', 'a800-hourly'", "campus has 8 GPUs"],
    );
}

#[test]
fn fails_with_a_class_needing_more_gpus_than_a_campus_only_policy_can_give() {
    let text = replace("gpus = 1\n", "gpus = 16\n");
    assert_invalid(
        &text,
        "[[workload.classes]]",
        "workload.classes[0]",
        &["needs up to 16 GPUs", "policy 'campus-only' (policies[0])", "('campus')"],
    );
}

#[test]
fn fails_with_more_vram_than_anything_offers() {
    let text = replace("vram_gb = 24", "vram_gb = 100");
    assert_invalid(
        &text,
        "[[workload.classes]]",
        "workload.classes[0]",
        &["needs up to 1 GPUs with 100 GB each", "campus has 8 GPUs of 80 GB"],
    );
}

#[test]
fn fails_with_season_end_before_start() {
    let text =
        append("[[workload.seasons]]\nname = \"s\"\nstart = \"2026-10-10\"\nend = \"2026-10-01\"\nmultiplier = 2\n");
    assert_invalid(
        &text,
        "end = \"2026-10-01\"",
        "workload.seasons[0].end",
        &["'2026-10-01' is before the start '2026-10-10'"],
    );
}

#[test]
fn fails_with_season_dates_of_mixed_forms() {
    let text = append("[[workload.seasons]]\nname = \"s\"\nstart = \"12-20\"\nend = \"2027-01-10\"\nmultiplier = 2\n");
    assert_invalid(
        &text,
        "end = \"2027-01-10\"",
        "workload.seasons[0].end",
        &["start and end must both be YYYY-MM-DD or both MM-DD"],
    );
}

#[test]
fn fails_with_a_season_multiplier_above_100() {
    let text = append("[[workload.seasons]]\nname = \"s\"\nstart = \"12-20\"\nend = \"01-10\"\nmultiplier = 200\n");
    assert_invalid(&text, "multiplier", "workload.seasons[0].multiplier", &["200 is not allowed", "above 100"]);
}

#[test]
fn fails_with_maintenance_end_before_start() {
    let text = replace(
        "vram_gb = 80\n\n[[workload",
        "vram_gb = 80\n\n[[campus.maintenance]]\nstart = \"2026-10-10\"\nend = \"2026-10-01\"\n\n[[workload",
    );
    assert_invalid(
        &text,
        "end = \"2026-10-01\"",
        "campus.maintenance[0].end",
        &["'2026-10-01' is before the start '2026-10-10'"],
    );
}

#[test]
fn fails_with_overlapping_maintenance_naming_the_windows_as_written() {
    // Written out of order: [1] and [2] overlap; [0] (first in time) does not.
    let windows = "[[campus.maintenance]]\nstart = \"2026-10-10\"\nend = \"2026-10-12\"\n\
                   [[campus.maintenance]]\nstart = \"2026-10-11\"\nend = \"2026-10-13\"\n\
                   [[campus.maintenance]]\nstart = \"2026-09-05\"\nend = \"2026-09-06\"\n";
    let text = replace("vram_gb = 80\n\n[[workload", &format!("vram_gb = 80\n\n{windows}\n[[workload"));
    let e = error(&text);
    let line = line_of(&text, "start = \"2026-10-11\"") - 1;
    assert!(e.starts_with(&format!("test.toml:{line}: campus.maintenance[1]: ")), "{e}");
    assert!(e.contains("overlaps campus.maintenance[0]"), "{e}");
}

#[test]
fn fails_with_a_warmup_of_more_than_ten_years() {
    // The warm-up runs before the start date, so it may be longer than the measured
    // window, but not absurdly long.
    Scenario::from_toml_str(&replace("horizon_days = 30", "horizon_days = 30\nwarmup_days = 60"), "test.toml")
        .expect("a warm-up longer than the window is fine");
    let text = replace("horizon_days = 30", "horizon_days = 30\nwarmup_days = 4000");
    assert_invalid(&text, "warmup_days", "simulation.warmup_days", &["4000 days is not allowed", "at most 3650 days"]);
}

#[test]
fn fails_with_horizon_zero() {
    let text = replace("horizon_days = 30", "horizon_days = 0");
    assert_invalid(&text, "horizon_days", "simulation.horizon_days", &["0 is not allowed", "at least one hour"]);
}

#[test]
fn fails_with_horizon_of_100_years() {
    let text = replace("horizon_days = 30", "horizon_days = 36500");
    assert_invalid(&text, "horizon_days", "simulation.horizon_days", &["36500 is not allowed", "at most 3650 days"]);
}

#[test]
fn fails_with_a_period_running_past_the_year_9999() {
    let text = replace("2026-09-01", "9999-12-01");
    Scenario::from_toml_str(&text, "test.toml").expect("30 days from 1 December end on 30 December");
    let text = replace_in(&text, "horizon_days = 30", "horizon_days = 31");
    assert_invalid(&text, "horizon_days", "simulation.horizon_days", &["do not fit between", "9999-12-31"]);
}

#[test]
fn fails_with_a_date_that_does_not_exist() {
    let text = replace("2026-09-01", "2026-02-30");
    assert_invalid(&text, "start_date", "simulation.start_date", &["'2026-02-30' is not a day of the calendar"]);
}

#[test]
fn fails_with_more_replications_than_can_be_kept() {
    let text = replace("replications = 2", "replications = 1000000000");
    assert_invalid(
        &text,
        "replications = ",
        "simulation.replications",
        &["1000000000 is not allowed", "at most 100000"],
    );
}

#[test]
fn fails_with_replications_zero() {
    let text = replace("replications = 2", "replications = 0");
    assert_invalid(&text, "replications", "simulation.replications", &["0 is not allowed", "at least 1 replication"]);
}

#[test]
fn fails_with_a_ci_target_outside_0_to_1() {
    let text = replace("replications = 2", "replications = 2\nci_target = 1.5");
    assert_invalid(&text, "ci_target", "simulation.ci_target", &["1.5 is not allowed", "between 0 and 1"]);
}

#[test]
fn fails_with_duplicate_class_names() {
    let text = append("[[workload.classes]]\nname = \"train\"\njobs_per_week = 1\nruntime_hours = 1\n");
    let e = error(&text);
    // The second class's name, the last `name = "train"` of the file.
    let line = text.lines().count() - 2;
    assert!(e.starts_with(&format!("test.toml:{line}: workload.classes[1].name: ")), "{e}");
    assert!(e.contains("'train' is used twice; names must be unique"), "{e}");
}

#[test]
fn fails_with_duplicate_policy_names() {
    let text = replace("name = \"overflow\"", "name = \"campus-only\"");
    let e = error(&text);
    let line = line_of(&text, "kind = \"overflow-timeout\"") - 1;
    assert!(e.starts_with(&format!("test.toml:{line}: policies[1].name: ")), "{e}");
    assert!(e.contains("'campus-only' is used twice; names must be unique"), "{e}");
}

#[test]
fn fails_with_a_policy_naming_an_unknown_offer_and_lists_the_valid_ones() {
    let text = replace("offers = [\"a800-hourly\"]", "offers = [\"a800-hurly\"]");
    assert_invalid(
        &text,
        "a800-hurly",
        "policies[1].offers[0]",
        &["no offer is named 'a800-hurly'", "the offers are: 'a800-hourly', 'a800-monthly'"],
    );
}

#[test]
fn fails_with_a_policy_key_not_used_by_its_kind() {
    let text = replace("kind = \"campus-only\"", "kind = \"campus-only\"\nthreshold_hours = 3");
    assert_invalid(
        &text,
        "threshold_hours = 3",
        "policies[0].threshold_hours",
        &["not used by a policy of kind 'campus-only'; remove it"],
    );
}

#[test]
fn fails_with_missing_threshold_for_overflow_timeout() {
    let text = replace("threshold_hours = 4\n", "");
    // The key is absent, so the error points at the policy's [[policies]] header.
    let e = error(&text);
    let line = line_of(&text, "name = \"overflow\"") - 1;
    assert!(e.starts_with(&format!("test.toml:{line}: policies[1].threshold_hours: ")), "{e}");
    assert!(e.contains("missing; a policy of kind 'overflow-timeout' needs a threshold in hours"), "{e}");
}

#[test]
fn fails_with_missing_threshold_and_names_the_compute_proportional_form() {
    let e = error(&replace("threshold_hours = 4\n", ""));
    assert!(e.contains("or timeout_per_gpu_hour for a limit proportional to the job's requested GPU-hours"), "{e}");
}

#[test]
fn a_compute_proportional_timeout_is_accepted_and_an_infinite_cap_means_none() {
    let text = replace(
        "threshold_hours = 4",
        "timeout_per_gpu_hour = 0.1\ntimeout_floor_hours = 0.5\ntimeout_cap_hours = inf",
    );
    let s = Scenario::from_toml_str(&text, "test.toml").unwrap();
    let c = s.policies[1].compute_timeout.expect("a compute-proportional limit");
    assert_eq!((c.per_gpu_hour, c.floor, c.cap), (0.1, 1800, None));
    assert_eq!(s.policies[1].threshold, None);
    simulate_every_policy(&s);
}

#[test]
fn fails_with_both_a_constant_and_a_compute_proportional_timeout() {
    let text = replace("threshold_hours = 4", "threshold_hours = 4\ntimeout_per_gpu_hour = 0.1");
    assert_invalid(
        &text,
        "timeout_per_gpu_hour",
        "policies[1].timeout_per_gpu_hour",
        &["give either threshold_hours (a constant limit) or timeout_per_gpu_hour", "not both"],
    );
}

#[test]
fn fails_with_a_timeout_floor_or_cap_without_timeout_per_gpu_hour() {
    for key in ["timeout_floor_hours", "timeout_cap_hours"] {
        let text = replace("threshold_hours = 4", &format!("threshold_hours = 4\n{key} = 2"));
        assert_invalid(
            &text,
            key,
            &format!("policies[1].{key}"),
            &["only used with timeout_per_gpu_hour", "a constant threshold_hours has no floor or cap"],
        );
    }
}

#[test]
fn fails_with_a_negative_or_nan_timeout_per_gpu_hour() {
    for v in ["-0.1", "nan"] {
        let text = replace("threshold_hours = 4", &format!("timeout_per_gpu_hour = {v}"));
        assert_invalid(
            &text,
            "timeout_per_gpu_hour",
            "policies[1].timeout_per_gpu_hour",
            &["is not allowed; give hours of waiting per GPU-hour requested, ≥ 0", "inf = never overflow"],
        );
    }
}

#[test]
fn fails_with_an_infinite_timeout_floor() {
    let text = replace("threshold_hours = 4", "timeout_per_gpu_hour = 0.1\ntimeout_floor_hours = inf");
    assert_invalid(
        &text,
        "timeout_floor_hours",
        "policies[1].timeout_floor_hours",
        &["inf is not allowed", "finite and ≥ 0"],
    );
}

#[test]
fn fails_with_a_timeout_cap_below_the_floor() {
    let text =
        replace("threshold_hours = 4", "timeout_per_gpu_hour = 0.1\ntimeout_floor_hours = 4\ntimeout_cap_hours = 2");
    assert_invalid(
        &text,
        "timeout_cap_hours",
        "policies[1].timeout_cap_hours",
        &["2 h is below timeout_floor_hours = 4 h", "the cap must be at least the floor"],
    );
}

#[test]
fn fails_with_a_compute_proportional_timeout_on_another_kind() {
    let text = replace(
        "kind = \"overflow-timeout\"\nthreshold_hours = 4",
        "kind = \"overflow-predicted\"\nthreshold_hours = 4\ntimeout_per_gpu_hour = 0.1",
    );
    assert_invalid(
        &text,
        "timeout_per_gpu_hour",
        "policies[1].timeout_per_gpu_hour",
        &["not used by a policy of kind 'overflow-predicted'; remove it, or use kind 'overflow-timeout'"],
    );
}

#[test]
fn fails_with_reserved_first_pointing_at_an_hourly_offer() {
    let text = replace("kind = \"overflow-timeout\"", "kind = \"reserved-first\"\nreserved_offer = \"a800-hourly\"");
    assert_invalid(
        &text,
        "reserved_offer",
        "policies[1].reserved_offer",
        &["'a800-hourly' is billed hourly; reserved-first needs a monthly offer"],
    );
}

#[test]
fn fails_with_an_unknown_baseline_policy() {
    let text = replace("replications = 2", "replications = 2\nbaseline_policy = \"nope\"");
    assert_invalid(
        &text,
        "baseline_policy",
        "simulation.baseline_policy",
        &["no policy is named 'nope'", "the policies are: 'campus-only', 'overflow'"],
    );
}

#[test]
fn fails_with_walltime_factor_below_one() {
    let text = replace("vram_gb = 24", "vram_gb = 24\nwalltime_factor = 0.5");
    assert_invalid(
        &text,
        "walltime_factor",
        "workload.classes[0].walltime_factor",
        &["0.5 is not allowed", "factors must be ≥ 1"],
    );
}

#[test]
fn fails_with_walltime_factor_that_can_fall_below_one() {
    let text = replace("vram_gb = 24", "vram_gb = 24\nwalltime_factor = { kind = \"uniform\", low = 0.8, high = 2 }");
    assert_invalid(
        &text,
        "walltime_factor",
        "workload.classes[0].walltime_factor",
        &["values from 0.8 to 2 are possible", "factors must be ≥ 1"],
    );
}

#[test]
fn fails_with_a_continuous_walltime_factor_that_starts_at_zero() {
    let text = replace("vram_gb = 24", "vram_gb = 24\nwalltime_factor = { kind = \"lognormal\", mean = 2, cv = 0.5 }");
    assert_invalid(
        &text,
        "walltime_factor",
        "workload.classes[0].walltime_factor",
        &["values from 0 to inf are possible", "factors must be ≥ 1"],
    );
}

/// `BASE` with the class's run time given as `requests = <value>` instead of `runtime_hours`.
fn with_requests(value: &str) -> String {
    replace("runtime_hours = 2", &format!("requests = {value}"))
}

#[test]
fn requests_draw_the_request_and_the_run_time_together_and_run() {
    let text = with_requests("{ hours = [1, 4, 4], used_fraction = [[0.5], [0.25, 1]] }");
    let s = Scenario::from_toml_str(&text, "test.toml").unwrap();
    let jobs = JobStream::generate(&s, 0);
    for j in &jobs.jobs {
        let request = j.walltime_request(j.runtime, None);
        assert!(request <= 4 * 3600 && j.runtime <= request, "{} s asking {request} s", j.runtime);
    }
    // Half the requests are exactly 4 h, to the second.
    let at_4h = jobs.jobs.iter().filter(|j| j.walltime_request(j.runtime, None) == 4 * 3600).count();
    assert!(at_4h * 3 > jobs.jobs.len(), "{at_4h} of {}", jobs.jobs.len());
    simulate_every_policy(&s);
}

#[test]
fn fails_with_requests_and_runtime_hours_both() {
    let text = replace("runtime_hours = 2", "runtime_hours = 2\nrequests = { hours = [1, 2], used_fraction = [[1]] }");
    assert_invalid(&text, "requests =", "workload.classes[0].requests", &["either runtime_hours", "not both"]);
}

#[test]
fn fails_with_neither_requests_nor_runtime_hours() {
    let text = replace("runtime_hours = 2\n", "");
    let e = error(&text);
    assert!(e.contains("workload.classes[0].runtime_hours: missing") && e.contains("or requests"), "{e}");
}

#[test]
fn fails_with_a_walltime_factor_beside_requests() {
    let text = with_requests("{ hours = [1, 2], used_fraction = [[1]] }\nwalltime_factor = 2");
    assert_invalid(
        &text,
        "walltime_factor",
        "workload.classes[0].walltime_factor",
        &["not used with requests", "leave it out"],
    );
}

#[test]
fn fails_with_requests_out_of_order_or_out_of_range() {
    let at = "requests =";
    let key = "workload.classes[0].requests";
    let text = with_requests("{ hours = [4, 1], used_fraction = [[1]] }");
    assert_invalid(&text, at, key, &["'hours' must be ascending", "1 comes after 4"]);
    let text = with_requests("{ hours = [0, 1], used_fraction = [[1]] }");
    assert_invalid(&text, at, key, &["'hours' value 0 is not allowed", "more than 0"]);
    let text = with_requests("{ hours = [1], used_fraction = [[1]] }");
    assert_invalid(&text, at, key, &["at least two quantiles"]);
    let text = with_requests("{ hours = [1, 2], used_fraction = [[0.5, 1.5]] }");
    assert_invalid(&text, at, key, &["row 0 value 1.5 is not allowed", "at most 1"]);
    let text = with_requests("{ hours = [1, 2], used_fraction = [] }");
    assert_invalid(&text, at, key, &["at least one row"]);
    let text = with_requests("{ hours = [1, 2], fraction = [[1]] }");
    assert_syntax(&text, at, &["unknown field `fraction`", "`used_fraction`"]);
}

#[test]
fn fails_with_gamma_of_negative_shape() {
    let text = replace("runtime_hours = 2", "runtime_hours = { kind = \"gamma\", shape = -1, scale = 2 }");
    assert_invalid(
        &text,
        "runtime_hours",
        "workload.classes[0].runtime_hours",
        &["shape = -1 is not allowed", "positive finite number"],
    );
}

#[test]
fn fails_with_an_hourly_offer_priced_per_month() {
    let text = replace("price_per_gpu_hour_cny = 5.0", "price_per_gpu_month_cny = 5.0");
    assert_invalid(
        &text,
        "price_per_gpu_month_cny = 5.0",
        "cloud.offers[0].price_per_gpu_month_cny",
        &["an hourly offer is priced per GPU-hour"],
    );
}

#[test]
fn fails_with_a_zero_speed() {
    let text = replace("billing = \"hourly\"", "billing = \"hourly\"\nspeed = { cv = 0, transformer = 1 }");
    assert_invalid(&text, "speed", "cloud.offers[0].speed.cv", &["0 is not allowed", "from 0.001 to 100"]);
}

#[test]
fn fails_with_jobs_per_week_in_a_background_given_by_offered_load() {
    let text = append(
        "[background]\noffered_load = 0.7\n[[background.classes]]\nname = \"others\"\njobs_per_week = 5\nruntime_hours = 4\n",
    );
    assert_invalid(
        &text,
        "jobs_per_week = 5",
        "background.classes[0].jobs_per_week",
        &["not used when background.offered_load is given", "load_share"],
    );
}

#[test]
fn fails_with_a_negative_budget_alert() {
    let text = replace("threshold_hours = 4", "threshold_hours = 4\nbudget = { cap_cny = 1000, alerts = [0.5, -1] }");
    assert_invalid(
        &text,
        "budget",
        "policies[1].budget.alerts[1]",
        &["-1 is not allowed", "positive fractions of the cap"],
    );
}

#[test]
fn fails_with_no_jobs_at_all() {
    let text = replace(
        "[[workload.classes]]\nname = \"train\"\njobs_per_week = 10\ngpus = 1\nruntime_hours = 2\nvram_gb = 24\n",
        "",
    );
    // Neither [workload] nor its classes are in the text: no line to point at.
    let e = error(&text);
    assert!(e.starts_with("test.toml: workload.classes: there are no jobs to simulate"), "{e}");
}

/// Other accounts' patience on the pool: the pool cannot withdraw a background job, so a
/// job that gave up stayed queued (a debug assertion fired in the bench's pool comparison).
#[test]
fn patience_of_other_accounts_needs_the_node_model() {
    let text = append(
        "[[campus.accounts]]\nname = \"others\"\npatience_hours = 12\n\
         [background]\n[[background.classes]]\nname = \"bg\"\njobs_per_week = 10\nruntime_hours = 1\n",
    );
    assert_invalid(
        &text,
        "patience_hours = 12",
        "campus.accounts[0].patience_hours",
        &["placement = \"nodes\"", "cannot withdraw"],
    );
    // Balking needs no withdrawal and stays allowed on the pool.
    let balking = text.replace("patience_hours = 12", "balk_gpu_hours_ahead = 100");
    Scenario::from_toml_str(&balking, "test.toml").expect("balking on the pool is valid");
}

/// `BASE` with the class's own `hourly_profile = <profile>`.
fn with_class_profile(profile: &str) -> String {
    replace("runtime_hours = 2\n", &format!("runtime_hours = 2\nhourly_profile = {profile}\n"))
}

#[test]
fn a_class_profile_replaces_its_lists_profile_for_that_class_only() {
    // The list arrives on Mondays only; the class, of its own, on Tuesdays only (the start).
    let only = |day: usize| -> String {
        let v: Vec<&str> = (0..168).map(|h| if h / 24 == day { "1" } else { "0" }).collect();
        format!("[{}]", v.join(", "))
    };
    let text = with_group_profile(&only(0))
        .replace("runtime_hours = 2\n", &format!("runtime_hours = 2\nhourly_profile = {}\n", only(1)));
    let s = Scenario::from_toml_str(&text, "test.toml").unwrap();
    assert_eq!(s.group_calendar.multiplier_at(3_600), 0.0, "the list: Mondays");
    assert_eq!(s.group[0].calendar(&s.group_calendar).multiplier_at(3_600), 7.0, "the class: Tuesdays");
    let jobs = JobStream::generate(&s, 0);
    assert!(!jobs.jobs.is_empty());
    assert!(jobs.jobs.iter().all(|j| (j.submit / 86_400) % 7 == 0), "every arrival is on a Tuesday");
    simulate_every_policy(&s);
}

#[test]
fn fails_with_a_class_profile_of_the_wrong_length_or_all_zero() {
    assert_invalid(
        &with_class_profile("[1, 2, 3]"),
        "hourly_profile",
        "workload.classes[0].hourly_profile",
        &["3 values are not allowed", "24", "168"],
    );
    let zeros = format!("[{}]", vec!["0"; 24].join(", "));
    assert_invalid(
        &with_class_profile(&zeros),
        "hourly_profile",
        "workload.classes[0].hourly_profile",
        &["all values are 0"],
    );
}
