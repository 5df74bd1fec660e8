//! Numbers that say what they are (issue 20 item 6): waits by season add up to what the
//! stream holds, the season "(all)" is the headline itself, and the table's headers say
//! what each figure is (mean of yearly p95, cloud share by jobs and GPU-hours, the classes
//! deadline misses cover).

use burstsim::engine::simulate_metrics;
use burstsim::experiment::{self, Summaries};
use burstsim::metric::Metric;
use burstsim::metrics::season::{ALL_SEASONS, OUTSIDE_SEASONS, SEASON_METRICS, SeasonSet};
use burstsim::output::table;
use burstsim::scenario::Scenario;
use burstsim::workload::JobStream;

fn tiny(replications: u32) -> Scenario {
    Scenario::load(std::path::Path::new("tests/fixtures/tiny.toml")).unwrap().with_overrides(None, Some(replications))
}

fn k(name: &str) -> usize {
    SEASON_METRICS.iter().position(|m| m.0 == name).unwrap()
}

#[test]
fn each_season_holds_the_group_jobs_submitted_in_its_windows_and_all_is_the_headline() {
    let s = tiny(2);
    let seasons = SeasonSet::of(&s);
    assert_eq!(seasons.names, ["crunch", OUTSIDE_SEASONS, ALL_SEASONS], "the fixture's one season, then the two rows");
    let windows = &s.background_calendar.windows;
    let all_classes = s.class_names().len() - 1;
    for r in 0..2 {
        let stream = JobStream::generate(&s, r);
        let group: Vec<_> = stream.jobs.iter().filter(|j| j.group && j.submit >= s.warmup).collect();
        // Counted here from the calendar's own windows, not by the engine.
        let in_crunch =
            group.iter().filter(|j| windows.iter().any(|w| w.start <= j.submit && j.submit < w.end)).count();
        assert!(in_crunch > 0 && in_crunch < group.len(), "the fixture's season holds some of the jobs");
        for p in 0..s.policies.len() {
            let m = simulate_metrics(&s, &stream, p, r);
            let cell = |season: usize, class: usize, metric: &str| m.seasons[season][class][k(metric)];
            assert_eq!(cell(0, all_classes, "jobs_submitted"), in_crunch as f64);
            assert_eq!(cell(1, all_classes, "jobs_submitted"), (group.len() - in_crunch) as f64);
            assert_eq!(cell(2, all_classes, "jobs_submitted"), group.len() as f64);
            // The whole window, every class: exactly the headline waits (the same jobs).
            assert_eq!(cell(2, all_classes, "wait_mean_h"), m.get(Metric::WaitMean), "policy {p}");
            assert_eq!(cell(2, all_classes, "wait_p50_h"), m.get(Metric::WaitP50), "policy {p}");
            assert_eq!(cell(2, all_classes, "wait_p95_h"), m.get(Metric::WaitP95), "policy {p}");
            assert_eq!(cell(2, all_classes, "cloud_job_share"), m.get(Metric::CloudJobShare), "policy {p}");
            // Per class, the season rows hold the class's jobs.
            let per_class: f64 = (0..all_classes).map(|c| cell(0, c, "jobs_submitted")).sum();
            assert_eq!(per_class, in_crunch as f64, "the classes of a season add up to it");
        }
    }
}

#[test]
fn the_table_says_what_each_figure_is() {
    let s = tiny(2);
    let (results, _) = experiment::run(&s, None, &|| {});
    let summaries = Summaries::new(&s, &results);
    let text = table::render(&s, &summaries, 2);
    for header in ["p95 wait (h, mean of yearly p95)", "cloud jobs (%)", "cloud GPU-h (%)", "deadline miss (%)*"] {
        assert!(text.contains(header), "the table has '{header}':\n{text}");
    }
    // The fixture's only class with a deadline is "big"; "small" has none.
    let note = text.lines().find(|l| l.starts_with("* deadline miss")).expect("a deadline note");
    assert!(note.contains("(big)"), "the note names exactly the classes with a deadline: {note}");
    // seasons.csv has the contract's columns, and a row per policy × season × class × metric.
    let csv = String::from_utf8(burstsim::output::csv::seasons_csv(&summaries)).unwrap();
    assert_eq!(csv.lines().next(), Some("policy,season,class,metric,unit,mean,ci95_low,ci95_high,replications"));
    assert_eq!(csv.lines().count() - 1, s.policies.len() * 3 * s.class_names().len() * SEASON_METRICS.len());
}
