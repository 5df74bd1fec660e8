//! Property test: EASY backfilling never starts the head job after the reservation it was
//! given, on random small workloads (random cluster size, job sizes, runtimes, walltime
//! over-estimates, a walltime limit that forces resubmissions, and a maintenance window).
//! Fixed seed; failures are persisted under `tests/easy_reservation.proptest-regressions`.

use std::collections::HashMap;

use burstsim::cluster::Reservation;
use burstsim::engine::{Observer, Place, simulate_observed};
use burstsim::scenario::Scenario;
use burstsim::scenario::raw::JobKind;
use burstsim::units::{HOUR, SimTime};
use burstsim::workload::{Job, JobStream, NO_DEADLINE};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

#[derive(Default)]
struct Watch {
    first_shadow: HashMap<u32, SimTime>,
    campus_start: HashMap<u32, SimTime>,
    busy: u32,
    max_busy: u32,
}

impl Observer for Watch {
    fn started(&mut self, t: SimTime, job: u32, place: Place, gpus: u32) {
        assert_eq!(place, Place::Campus);
        self.campus_start.entry(job).or_insert(t);
        self.busy += gpus;
        self.max_busy = self.max_busy.max(self.busy);
    }
    fn ended(&mut self, _t: SimTime, _job: u32, _place: Place, gpus: u32, _completed: bool) {
        self.busy -= gpus;
    }
    fn reservation(&mut self, _t: SimTime, r: Reservation) {
        self.first_shadow.entry(r.job).or_insert(r.shadow);
    }
}

fn scenario(gpus: u32, walltime_h: u32, maintenance_day: Option<u32>) -> Scenario {
    let maint = maintenance_day
        .map(|d| format!("[[campus.maintenance]]\nstart = \"2026-01-{:02}\"\nend = \"2026-01-{:02}\"\n", d + 1, d + 1))
        .unwrap_or_default();
    let text = format!(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 20\n\n[campus]\ngpus = {gpus}\nvram_gb = 80\nscheduler = \"easy-backfill\"\nmax_walltime_hours = {walltime_h}\n{maint}\n[[workload.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    Scenario::from_toml_str(&text, "prop.toml").expect("valid")
}

fn jobs_strategy(max_gpus: u32) -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0u64..5 * 24 * 3600, 1u32..=max_gpus, 60u64..30 * 3600, 1.0f64..4.0, any::<bool>()), 5..120)
        .prop_map(|v| {
            v.into_iter()
                .map(|(submit, gpus, runtime, factor, group)| Job {
                    submit,
                    runtime,
                    walltime_factor: factor,
                    gpus,
                    class: 0,
                    group,
                    ordinal: 0,
                    vram_gb: 0.0,
                    data_gb: 0.0,
                    deadline: NO_DEADLINE,
                    kind: JobKind::Cv,
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(Config {
        cases: 200,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    })]

    #[test]
    fn prop_easy_never_starts_the_head_after_its_reservation(
        gpus in 2u32..24,
        walltime_h in 4u32..48,
        maintenance in proptest::option::of(2u32..6),
        seed_jobs in jobs_strategy(24),
    ) {
        let scn = scenario(gpus, walltime_h, maintenance);
        let jobs: Vec<Job> = seed_jobs.into_iter().map(|mut j| { j.gpus = j.gpus.min(gpus); j }).collect();
        let stream = JobStream::from_jobs(jobs);
        let mut w = Watch::default();
        let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
        prop_assert!(w.max_busy <= gpus);
        for (job, shadow) in &w.first_shadow {
            let start = w.campus_start.get(job).copied();
            prop_assert!(start.is_some_and(|s| s <= *shadow), "head {job} started at {start:?}, reservation {shadow}");
        }
        for (i, r) in out.records.iter().enumerate() {
            prop_assert!(r.start >= stream.jobs[i].submit && r.end > r.start && r.end != SimTime::MAX);
            let _ = HOUR;
        }
    }
}
