//! What the printed numbers mean: the measured window is the calendar year from the start
//! date, offered load is what the scenario says it is, and the waits count every campus
//! queueing segment. Each test states the hand computation it checks.

use burstsim::metric::Metric;
use burstsim::scenario::{DEFAULT_SCENARIO, Scenario};
use burstsim::units::DAY;
use burstsim::workload::JobStream;
use burstsim::workload::load::offered_load;

/// The measured offered load of one replication: campus work submitted in the window
/// (all groups) ÷ (GPUs × window), as the `campus_offered_load` metric defines it.
fn measured_load(scn: &Scenario, replication: u64) -> f64 {
    let jobs = JobStream::generate(scn, replication);
    let work: f64 = jobs
        .jobs
        .iter()
        .filter(|j| j.submit >= scn.warmup && j.submit < scn.horizon)
        .map(|j| f64::from(j.gpus) * j.runtime as f64)
        .sum();
    work / (f64::from(scn.campus.gpus) * scn.window() as f64)
}

fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[test]
fn the_default_measures_one_calendar_year_from_its_start_date() {
    let scn = Scenario::embedded_default();
    assert_eq!(scn.window(), 365 * DAY, "1 Sep 2026 to 31 Aug 2027");
    assert!(scn.is_one_year());
    assert_eq!(scn.warmup, 14 * DAY, "the warm-up runs before the start date");
    assert_eq!(scn.clock().date_at(scn.warmup).to_string(), "2026-09-01");
    // Without horizon_days the window is the calendar year, 366 days across 29 Feb 2028.
    let text = DEFAULT_SCENARIO
        .replace("start_date = \"2026-09-01\"", "start_date = \"2027-09-01\"")
        .replace("horizon_days = 365 ", "# horizon_days = 365 ");
    let leap = Scenario::from_toml_str(&text, "leap.toml").unwrap();
    assert_eq!(leap.window(), 366 * DAY);
    assert!(leap.is_one_year());
}

#[test]
fn offered_load_is_the_measured_annual_mean() {
    // offered_load = 0.70 with the default's seasons: the jobs of a simulated year offer
    // 0.70 of the campus (plus the group's own jobs), not 0.70 × the mean multiplier.
    let text = DEFAULT_SCENARIO.replace("offered_load_outside_seasons = 0.70", "offered_load = 0.70");
    let scn = Scenario::from_toml_str(&text, "annual.toml").unwrap();
    let expected = offered_load(&scn);
    assert!((expected.background_mean - 0.70).abs() < 1e-12);
    let loads: Vec<f64> = (0..6).map(|r| measured_load(&scn, r)).collect();
    let (m, se) = mean_and_se(&loads);
    let target = expected.background_mean + expected.group_mean;
    assert!((m - target).abs() < 4.0 * se + 1e-3, "measured {m} ± {se} vs {target}");
    // The default itself gives 0.70 on days in no season: its year averages more.
    let default = Scenario::embedded_default();
    let d = offered_load(&default);
    let loads: Vec<f64> = (0..6).map(|r| measured_load(&default, r)).collect();
    let (m, se) = mean_and_se(&loads);
    assert!(d.background_mean > 0.78, "{d:?}");
    assert!((m - d.background_mean - d.group_mean).abs() < 4.0 * se + 1e-3, "measured {m} ± {se} vs {d:?}");
}

#[test]
fn both_load_keys_at_once_are_refused() {
    let text = DEFAULT_SCENARIO
        .replace("offered_load_outside_seasons = 0.70", "offered_load_outside_seasons = 0.70\noffered_load = 0.7");
    let err = Scenario::from_toml_str(&text, "both.toml").unwrap_err().to_string();
    assert!(err.contains("not both"), "{err}");
}

#[test]
fn costs_are_annual_figures() {
    // The same scenario measured for 351 days (the old horizon − warm-up) reads ~4% lower
    // than over its year: the year is what the totals must cover.
    let scn = Scenario::embedded_default();
    let jobs = JobStream::generate(&scn, 0);
    let m = burstsim::engine::simulate(&scn, &jobs, 0, 0).metrics;
    let measured = jobs.jobs.iter().filter(|j| j.group && j.submit >= scn.warmup && j.submit < scn.horizon).count();
    assert_eq!(m.get(Metric::JobsCompleted) as usize, measured, "every group job of the year is counted");
}

/// Watches where jobs go: every withdrawal from the campus queue and every start.
#[derive(Default)]
struct Moves {
    withdrawn: Vec<(u64, u32)>,
    started: std::collections::HashMap<u32, Vec<(u64, burstsim::engine::Place)>>,
}

impl burstsim::engine::Observer for Moves {
    fn started(&mut self, t: u64, job: u32, place: burstsim::engine::Place, _gpus: u32) {
        self.started.entry(job).or_default().push((t, place));
    }
    fn withdrawn(&mut self, t: u64, job: u32) {
        self.withdrawn.push((t, job));
    }
}

#[test]
fn a_job_that_finds_the_cloud_full_keeps_its_campus_queue_position() {
    // The tiny fixture's timeout-4h policy falls back to the campus when the cloud is
    // full. With a heavy group load the offers are often full at a timeout: such a job
    // must stay where it is in the campus queue, never leave it and join at the back.
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml")
        .unwrap()
        .replace("jobs_per_week = 30", "jobs_per_week = 150");
    let scn = Scenario::from_toml_str(&text, "full.toml").unwrap();
    let p = scn.policy_index("timeout-4h").unwrap();
    assert_eq!(scn.policies[p].when_full, burstsim::scenario::raw::WhenFull::Campus);
    let (mut stayed, mut moved) = (0, 0);
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        let mut w = Moves::default();
        let out = burstsim::engine::simulate_observed(&scn, &jobs, p, r, &mut w);
        // Every withdrawal starts a cloud run at that very second.
        for &(t, j) in &w.withdrawn {
            let starts = &w.started[&j];
            assert!(
                starts.iter().any(|&(s, place)| s == t && matches!(place, burstsim::engine::Place::Offer(_))),
                "job {j} left the campus queue at {t} without starting in the cloud: {starts:?}"
            );
            moved += 1;
        }
        // Jobs that waited past the timeout on campus stayed in the queue.
        stayed += jobs
            .jobs
            .iter()
            .zip(&out.records)
            .filter(|(job, rec)| {
                job.group && rec.place == burstsim::engine::Place::Campus && rec.start - job.submit > 4 * 3600
            })
            .count();
    }
    assert!(moved > 0 && stayed > 0, "the scenario must exercise both branches: {moved} moved, {stayed} stayed");
}

#[test]
fn waits_count_every_campus_queueing_segment() {
    // 8 GPUs, a 1 h walltime limit, FCFS. The group's 3 h job (8 GPUs) starts at 0, is
    // stopped at 1 h and re-queued behind a background 8-GPU job of 30 min submitted at
    // 1 s: that runs 1:00–1:30, the group job 1:30–2:30, is stopped again, re-queued and
    // restarts at once, ending at 3:30. Its wait is the 30 min of the second queueing; its
    // wait to the first start is 0.
    let text = "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 1\n\
        [campus]\ngpus = 8\nvram_gb = 80\nscheduler = \"fcfs\"\nmax_walltime_hours = 1\n\
        [[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 1\n";
    let scn = Scenario::from_toml_str(text, "segments.toml").unwrap();
    let job = |submit, runtime, group| burstsim::job::Job {
        vram_gb: 1.0,
        kind: burstsim::job::JobKind::Cv,
        ..burstsim::job::Job::plain(submit, 8, runtime, group)
    };
    let jobs = JobStream::from_jobs(vec![job(0, 3 * 3600, true), job(1, 1800, false)]);
    let out = burstsim::engine::simulate(&scn, &jobs, 0, 0);
    assert_eq!(out.records[0].end, 3 * 3600 + 1800);
    assert_eq!(out.metrics.get(Metric::WaitMean), 0.5);
    assert_eq!(out.metrics.get(Metric::FirstWaitMean), 0.0);
    assert_eq!(out.metrics.get(Metric::WalltimeResubmits), 2.0);
}
