//! One campus model in every shipped scenario (issue 20): the scenarios that say they use
//! "the default's cluster" carry the default's `[campus]` and background classes exactly
//! (scripts/sync-campus.py copies them), every shipped scenario runs Slurm's node model,
//! and every account that runs jobs is named in the scenario, so no share is implicit.

use crate::common;

use burstsim::scenario::Scenario;
use burstsim::scenario::raw::Placement;

/// Scenarios whose campus and background classes are the default's (as in
/// scripts/sync-campus.py).
const COPIES: [&str; 5] = ["threshold-sweep", "all-policies", "exam-season", "monthly-vs-hourly", "starburst"];

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(format!("{name}.toml"))
}

fn table(name: &str) -> toml::Table {
    let text = std::fs::read_to_string(scenario_path(name)).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("scenarios/{name}.toml: {e}"))
}

/// Every `scenarios/*.toml`, loaded; the trace scenario only when the shared logs are here.
fn shipped() -> Vec<(String, Scenario)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "expected the shipped scenarios in {}: {names:?}", dir.display());
    let mut out = Vec::new();
    for name in names {
        if name == "kth-trace" && common::shared_data("data/traces/pwa-kth-sp2").is_none() {
            continue; // shared_data says why (and fails under CI)
        }
        let s = Scenario::load(&scenario_path(&name)).unwrap_or_else(|e| panic!("scenarios/{name}.toml: {e}"));
        out.push((name, s));
    }
    out
}

#[test]
fn scenarios_that_say_they_use_the_default_cluster_carry_it_exactly() {
    let default = table("default");
    for name in COPIES {
        let t = table(name);
        for section in ["campus", "background"] {
            assert_eq!(
                t.get(section),
                default.get(section),
                "scenarios/{name}.toml: [{section}] differs from scenarios/default.toml's; \
                 run python3 scripts/sync-campus.py (or say in the file how and why it differs, and drop it from COPIES)"
            );
        }
    }
}

#[test]
fn every_shipped_scenario_runs_slurms_node_model() {
    for (name, s) in shipped() {
        assert_eq!(
            s.campus.placement,
            Placement::Nodes,
            "scenarios/{name}.toml runs the idealised pool; shipped scenarios use placement = \"nodes\" \
             (the pool is for the queueing-theory checks)"
        );
    }
}

#[test]
fn every_account_that_runs_jobs_is_named_in_the_scenario() {
    for (name, s) in shipped() {
        for a in &s.campus.accounts {
            assert!(
                a.listed || a.expected_use == 0.0,
                "scenarios/{name}.toml: account '{}' runs {:.3} of the campus GPUs but is not listed under \
                 [[campus.accounts]], so its shares are implicit",
                a.name,
                a.expected_use
            );
        }
    }
}

/// Shares that differ from expected use on purpose, with the reason.
const SHARES_APART_ON_PURPOSE: [(&str, &str, &str); 1] = [(
    "monthly-vs-hourly",
    "group",
    "the default lab's shares (1.6%) with a workload of fine-tuning jobs alone, swept from 2 to 40 a week: \
     its use crosses its shares along the sweep",
)];

#[test]
fn shipped_scenarios_give_no_warning_about_their_own_settings() {
    use burstsim::output::warnings::{Warning, scenario_warnings};
    for (name, s) in shipped() {
        let w: Vec<_> = scenario_warnings(&s)
            .into_iter()
            .filter(|w| match w {
                Warning::IgnoredByModel { .. }
                | Warning::LimitAboveCampus { .. }
                | Warning::BalkingSizedForAnotherCampus { .. }
                | Warning::StaleCalibrationHeader { .. } => true,
                Warning::SharesFarFromUse { account, .. } => {
                    !SHARES_APART_ON_PURPOSE.iter().any(|(n, a, _)| *n == name && a == account)
                }
                _ => false,
            })
            .collect();
        assert!(w.is_empty(), "scenarios/{name}.toml: {w:?}");
    }
}

/// Issue 45 item 5: the default copied onto a smaller campus keeps limits, a balking
/// threshold and a calibration header sized for its 384 GPUs; each is warned about.
#[test]
fn the_default_adapted_to_a_smaller_campus_is_told_what_was_sized_for_the_larger_one() {
    use burstsim::output::warnings::{Warning, scenario_warnings};
    use burstsim::scenario::{DEFAULT_SCENARIO, fingerprint};
    let default = Scenario::from_toml_str(DEFAULT_SCENARIO, "default.toml").unwrap();
    assert_eq!(
        fingerprint::written(DEFAULT_SCENARIO),
        Some(fingerprint::of(&toml::from_str(DEFAULT_SCENARIO).unwrap()).as_str()),
        "the default's calibration header must carry the fingerprint of its values"
    );
    assert_eq!(default.stale_calibration_header, None);
    let small = DEFAULT_SCENARIO.replacen("nodes = 48\n", "nodes = 4\n", 1);
    let s = Scenario::from_toml_str(&small, "small.toml").unwrap();
    let w = scenario_warnings(&s);
    let limits: Vec<_> = w
        .iter()
        .filter_map(|w| if let Warning::LimitAboveCampus { account, .. } = w { Some(account.as_str()) } else { None })
        .collect();
    assert_eq!(limits, ["vision-labs", "nlp-labs", "ai4science", "engineering"], "{w:?}");
    let balking = w.iter().filter(|w| matches!(w, Warning::BalkingSizedForAnotherCampus { gpus: 32, .. })).count();
    assert_eq!(balking, 5, "{w:?}");
    assert!(w.iter().any(|w| matches!(w, Warning::StaleCalibrationHeader { .. })), "{w:?}");
    let text = w.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert!(text.contains("balk_gpu_hours_ahead = 18432 is 576 hours of this campus's 32 GPUs"), "{text}");
    assert!(text.contains("2 days of 32 GPUs is 1536"), "{text}");
    // A comment changed, no value: the header still describes the file.
    let recommented = DEFAULT_SCENARIO.replacen("nodes = 48\n", "nodes = 48   # unchanged\n", 1);
    assert_eq!(Scenario::from_toml_str(&recommented, "d.toml").unwrap().stale_calibration_header, None);
}

/// The mean of `metric` for `policy` and `class` in a golden CSV (`class` None: summary.csv).
fn golden_mean(file: &str, policy: &str, class: Option<&str>, metric: &str) -> f64 {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let prefix = match class {
        Some(c) => format!("{policy},{c},{metric},"),
        None => format!("{policy},{metric},"),
    };
    let line = text.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("{file}: no {prefix}"));
    // policy,[class,]metric,unit,mean,…
    let mean_field = if class.is_some() { 4 } else { 3 };
    line.split(',').nth(mean_field).unwrap().parse().unwrap()
}

/// Issue 43 item 6: the default's "recommended" was judged on the yearly p95 of all the
/// group's jobs alone, a figure its 30-minute debug runs (60% of its jobs) dominate, so
/// campus-only "met" it while its main-training runs waited 100 h at the 95th
/// percentile. The default's own targets bound the main-training runs too, and on the
/// default's golden years campus-only meets the all-jobs bound and misses that one, so
/// the class target is what decides (seen failing before `[sensitivity] targets` was in
/// the default: the only target was the all-jobs default).
#[test]
fn the_default_judges_its_recommendation_on_the_main_training_runs_as_well_as_on_all_jobs() {
    use burstsim::metric::Metric;
    use burstsim::sensitivity::{TargetSource, targets};
    let scn = Scenario::embedded_default();
    let (targets, source) = targets(&scn, &[]);
    assert_eq!(source, TargetSource::Scenario, "the default states its own targets");
    let all =
        targets.iter().find(|t| t.class.is_none() && t.metric == Metric::WaitP95).expect("an all-jobs p95 target");
    let main = targets
        .iter()
        .find(|t| t.class.as_deref() == Some("main-training") && t.metric == Metric::WaitP95)
        .expect("a main-training p95 target");
    let all_p95 = golden_mean("default-2.summary.csv", "campus-only", None, "wait_p95_h");
    let main_p95 = golden_mean("default-2.classes.csv", "campus-only", Some("main-training"), "wait_p95_h");
    assert!(all_p95 <= all.value, "campus-only meets {all} on its mean ({all_p95:.1} h)");
    assert!(main_p95 > main.value, "campus-only misses {main} on its mean ({main_p95:.1} h)");
}
