//! No job vanishes (issue 27): every group job submitted in the measured window ends in
//! exactly one bucket — completed on campus, completed in the cloud, reneged, balked, or
//! unfinished — in every replication, for every policy of every shipped scenario (and of
//! the all-policies fixture), overall and per class; and the jobs submitted are exactly
//! the group's jobs of the stream in the window (counted here from the stream, not by the
//! engine). Short horizons and two replications keep it fast.

use std::path::Path;

use burstsim::engine::simulate_metrics;
use burstsim::metric::Metric;
use burstsim::metrics::season::{ALL_SEASONS, SEASON_METRICS, SeasonSet};
use burstsim::scenario::Scenario;
use burstsim::scenario::class_metrics::ALL_CLASSES;
use burstsim::scenario::raw::RawScenario;
use burstsim::workload::JobStream;

use crate::common;

const BUCKETS: [&str; 5] =
    ["jobs_completed_campus", "jobs_completed_cloud", "jobs_reneged", "jobs_balked", "jobs_unfinished"];

/// A shipped scenario cut to `days` days and 2 replications; None (after saying why) when
/// it reads a shared log that is absent.
fn shortened(path: &Path, days: f64, start: Option<&str>) -> Option<Scenario> {
    let text = std::fs::read_to_string(path).unwrap();
    if text.contains("shared/data/") && common::shared_data("data/traces").is_none() {
        return None;
    }
    let mut raw: RawScenario = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    raw.simulation.horizon_days = Some(days);
    raw.simulation.replications = 2;
    if let Some(start) = start {
        raw.simulation.start_date = start.into();
    }
    Some(Scenario::from_raw_at(raw, path.parent().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Checks every replication and policy of `s`; returns the reneged and balked jobs seen.
fn check(s: &Scenario) -> (f64, f64) {
    let class_names = s.class_names();
    let metric = |name: &str| s.class_metrics.index(name).unwrap();
    let mut gave_up = (0.0, 0.0);
    for r in 0..u64::from(s.replications) {
        let stream = JobStream::generate(s, r);
        let in_window = stream.jobs.iter().filter(|j| j.group && j.submit >= s.warmup).count() as f64;
        for (p, policy) in s.policies.iter().enumerate() {
            let m = simulate_metrics(s, &stream, p, r);
            let at = format!("{} replication {r} policy {}", s.name, policy.name);
            let submitted = m.get(Metric::JobsSubmitted);
            assert_eq!(submitted, in_window, "{at}: jobs_submitted is not the stream's group jobs in the window");
            let sum: f64 = Metric::BUCKETS.iter().map(|&b| m.get(b)).sum();
            assert_eq!(sum, submitted, "{at}: the buckets hold {sum} jobs of {submitted} submitted");
            assert_eq!(
                m.get(Metric::JobsCompletedCampus) + m.get(Metric::JobsCompletedCloud),
                m.get(Metric::JobsCompleted),
                "{at}: completed on campus + in the cloud is jobs_completed"
            );
            gave_up.0 += m.get(Metric::JobsReneged);
            gave_up.1 += m.get(Metric::JobsBalked);
            let mut by_class = 0.0;
            for (c, class) in class_names.iter().enumerate() {
                let v = &m.classes[c];
                let sum: f64 = BUCKETS.iter().map(|b| v[metric(b)]).sum();
                assert_eq!(sum, v[metric("jobs_submitted")], "{at} class {class}: buckets do not add up");
                if class != ALL_CLASSES {
                    by_class += v[metric("jobs_submitted")];
                }
            }
            let all = &m.classes[class_names.len() - 1];
            assert_eq!(all[metric("jobs_submitted")], submitted, "{at}: the all-classes row is the whole group");
            assert_eq!(by_class, submitted, "{at}: the classes add up to the group");
            // The season "(all)" holds every job; its gave-up count is reneged + balked.
            let seasons = SeasonSet::of(s);
            let all_row = seasons.names.iter().position(|n| n == ALL_SEASONS).unwrap();
            let k = |name: &str| SEASON_METRICS.iter().position(|m| m.0 == name).unwrap();
            let cell = &m.seasons[all_row][class_names.len() - 1];
            assert_eq!(cell[k("jobs_submitted")], submitted, "{at}: season (all) misses jobs");
            assert_eq!(
                cell[k("jobs_gave_up")],
                m.get(Metric::JobsReneged) + m.get(Metric::JobsBalked),
                "{at}: season (all) gave-up count"
            );
        }
    }
    gave_up
}

#[test]
fn every_submitted_job_ends_in_exactly_one_bucket_in_every_shipped_scenario() {
    let mut paths: Vec<_> = std::fs::read_dir("scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths.push("tests/fixtures/tiny.toml".into());
    assert!(paths.len() >= 9, "the shipped scenarios are found");
    for path in &paths {
        if let Some(s) = shortened(path, 10.0, None) {
            check(&s);
        }
    }
}

#[test]
fn jobs_that_give_up_are_counted_in_their_buckets() {
    // The capacity scenario in its peak (graduation) season, with the group's users as
    // patient as everyone else's (and quicker to balk): they renege and balk.
    let text = std::fs::read_to_string("scenarios/capacity.toml").unwrap();
    let mut table: toml::Table = toml::from_str(&text).unwrap();
    let accounts = table["campus"]["accounts"].as_array().unwrap().clone();
    let patient = accounts.iter().find(|a| a.get("patience_hours").is_some()).unwrap().as_table().unwrap().clone();
    let accounts: Vec<toml::Value> = accounts
        .into_iter()
        .map(|mut a| {
            if a["name"].as_str() == Some("group") {
                let t = a.as_table_mut().unwrap();
                t.insert("patience_hours".into(), patient["patience_hours"].clone());
                // A group that balks sooner than the others (a fifth of their threshold).
                let balk = patient["balk_gpu_hours_ahead"].as_integer().unwrap() / 5;
                t.insert("balk_gpu_hours_ahead".into(), toml::Value::Integer(balk));
            }
            a
        })
        .collect();
    table["campus"].as_table_mut().unwrap().insert("accounts".into(), toml::Value::Array(accounts));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("capacity-patient-group.toml");
    std::fs::write(&path, toml::to_string(&table).unwrap()).unwrap();
    let s = shortened(&path, 14.0, Some("2027-04-20")).unwrap();
    let (reneged, balked) = check(&s);
    assert!(reneged > 0.0 && balked > 0.0, "the peak season makes users give up: {reneged} reneged, {balked} balked");
}
