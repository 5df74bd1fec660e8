//! Common random numbers across sweep points: a changed parameter changes only what it
//! must. These are the properties a threshold or exam-season sweep relies on for smooth
//! curves and tight paired differences.

use burstsim::job::Job;
use burstsim::scenario::{DEFAULT_SCENARIO, Scenario};
use burstsim::workload::JobStream;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "crn.toml").expect("valid scenario")
}

#[test]
fn changing_one_seasons_multiplier_leaves_every_earlier_arrival_identical() {
    let base = scenario(DEFAULT_SCENARIO);
    let changed = scenario(&DEFAULT_SCENARIO.replacen("multiplier = 1.387\n", "multiplier = 1.397\n", 1));
    assert_ne!(changed.resolved_toml(), base.resolved_toml(), "the graduation-season multiplier was changed");
    // Graduation season starts on 1 April 2027.
    let cal = &base.background_calendar;
    let season = cal.seasons.iter().position(|s| s.name == "graduation-season").unwrap();
    let start = cal.windows.iter().filter(|w| w.season == season).map(|w| w.start).min().unwrap();
    assert_eq!(base.clock().date_at(start).to_string(), "2027-04-01");
    for r in 0..3 {
        let (a, b) = (JobStream::generate(&base, r), JobStream::generate(&changed, r));
        let before = |s: &JobStream| -> Vec<Job> { s.jobs.iter().filter(|j| j.submit < start).cloned().collect() };
        let (x, y) = (before(&a), before(&b));
        assert!(x.len() > 100_000, "most of the year lies before the season: {}", x.len());
        assert_eq!(x, y, "replication {r}: a job before the season changed");
        // After it, the background's k-th job of each class keeps its attributes.
        for class in 0..base.background.len() as u16 {
            let attrs = |s: &JobStream| -> Vec<(u32, u64, u32)> {
                let mut v: Vec<_> = s
                    .jobs
                    .iter()
                    .filter(|j| !j.group && j.class == class)
                    .map(|j| (j.ordinal, j.runtime, j.gpus))
                    .collect();
                v.sort_unstable();
                v
            };
            let (p, q) = (attrs(&a), attrs(&b));
            let common = p.len().min(q.len());
            let moved = p[..common].iter().zip(&q[..common]).filter(|(x, y)| x != y).count();
            assert_eq!(moved, 0, "replication {r}, class {class}: {moved} jobs' attributes moved");
        }
        assert!(b.jobs.len() > a.jobs.len(), "a heavier season brings more jobs");
    }
}

#[test]
fn changing_one_classs_rate_leaves_the_other_classes_identical() {
    let base = scenario(DEFAULT_SCENARIO);
    let changed = scenario(&DEFAULT_SCENARIO.replace("jobs_per_week = 40", "jobs_per_week = 41"));
    let debug = base.group.iter().position(|c| c.name == "debug").unwrap() as u16;
    for r in 0..3 {
        let (a, b) = (JobStream::generate(&base, r), JobStream::generate(&changed, r));
        let others =
            |s: &JobStream| -> Vec<Job> { s.jobs.iter().filter(|j| !(j.group && j.class == debug)).cloned().collect() };
        assert_eq!(others(&a), others(&b), "replication {r}: another class changed");
        let debug_jobs = |s: &JobStream| s.jobs.iter().filter(|j| j.group && j.class == debug).count();
        assert_ne!(debug_jobs(&a), debug_jobs(&b), "the changed class did change");
    }
}
