//! Property tests of EASY backfilling on random small workloads (random cluster size, job
//! sizes, runtimes, walltime over-estimates, a walltime limit that forces resubmissions,
//! and a maintenance window):
//!
//! - the head never starts after the reservation it was given (EASY's promise);
//! - no backfill is missed: after every scheduling pass that leaves a reservation, no
//!   waiting job could have started then without delaying it (it fits the free GPUs,
//!   crosses no maintenance window, and ends by its walltime request before the shadow
//!   time or fits in the GPUs the head leaves spare). A scheduler that never backfills
//!   fails this;
//! - over many workloads, jobs do overtake earlier ones (so the property above is not
//!   vacuous: an FCFS scheduler, which reports no reservation, would fail this).
//!
//! Fixed seed; failures are persisted under `tests/easy_reservation.proptest-regressions`.

use std::collections::HashMap;

use burstsim::cluster::Reservation;
use burstsim::engine::{Observer, Place, simulate_observed};
use burstsim::job::Job;
use burstsim::job::JobKind;
use burstsim::scenario::Scenario;
use burstsim::units::SimTime;
use burstsim::workload::JobStream;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed, TestRunner};

/// Mirrors the campus queue from the observer's callbacks.
struct Watch<'a> {
    jobs: &'a [Job],
    gpus: u32,
    max_walltime: Option<SimTime>,
    maintenance: Vec<(SimTime, SimTime)>,
    first_shadow: HashMap<u32, SimTime>,
    campus_start: HashMap<u32, SimTime>,
    busy: u32,
    max_busy: u32,
    /// Work left per job (a walltime kill resubmits the rest).
    remaining: Vec<SimTime>,
    /// Start of the running segment per job.
    running_since: Vec<Option<SimTime>>,
    done: Vec<bool>,
    /// When each job last entered the queue (submission or resubmission).
    enqueued: Vec<SimTime>,
    /// (entered the queue, started) of every segment.
    segments: Vec<(SimTime, SimTime)>,
    reservations: usize,
    /// Backfills that should have happened: (time, waiting job, reservation).
    missed: Vec<(SimTime, u32, Reservation)>,
}

impl<'a> Watch<'a> {
    fn new(scn: &Scenario, jobs: &'a [Job]) -> Self {
        Watch {
            jobs,
            gpus: scn.campus.gpus,
            max_walltime: scn.campus.max_walltime,
            maintenance: scn.campus.maintenance.clone(),
            first_shadow: HashMap::new(),
            campus_start: HashMap::new(),
            busy: 0,
            max_busy: 0,
            remaining: jobs.iter().map(|j| j.runtime).collect(),
            running_since: vec![None; jobs.len()],
            done: vec![false; jobs.len()],
            enqueued: jobs.iter().map(|j| j.submit).collect(),
            segments: Vec::new(),
            reservations: 0,
            missed: Vec::new(),
        }
    }

    /// The cluster's rule: no job may start during a maintenance window or run into the next.
    fn maintenance_blocks(&self, now: SimTime, walltime: SimTime) -> bool {
        self.maintenance
            .iter()
            .find(|&&(_, end)| end > now)
            .is_some_and(|&(start, _)| start <= now || now + walltime > start)
    }

    /// Segments that started while a segment queued strictly earlier was still waiting.
    fn overtakes(&self) -> usize {
        self.segments.iter().filter(|b| self.segments.iter().any(|a| a.0 < b.0 && a.1 > b.1)).count()
    }
}

impl Observer for Watch<'_> {
    fn started(&mut self, t: SimTime, job: u32, place: Place, gpus: u32) {
        assert_eq!(place, Place::Campus);
        self.campus_start.entry(job).or_insert(t);
        self.busy += gpus;
        self.max_busy = self.max_busy.max(self.busy);
        self.running_since[job as usize] = Some(t);
        self.segments.push((self.enqueued[job as usize], t));
    }
    fn ended(&mut self, t: SimTime, job: u32, _place: Place, gpus: u32, completed: bool) {
        self.busy -= gpus;
        let j = job as usize;
        let since = self.running_since[j].take().expect("only a running job ends");
        self.remaining[j] = self.remaining[j].saturating_sub(t - since);
        self.done[j] = completed;
        self.enqueued[j] = t;
    }
    fn reservation(&mut self, t: SimTime, r: Reservation) {
        self.reservations += 1;
        self.first_shadow.entry(r.job).or_insert(r.shadow);
        let free = self.gpus - self.busy;
        for (i, job) in self.jobs.iter().enumerate() {
            let waiting = job.submit <= t && self.running_since[i].is_none() && !self.done[i];
            if !waiting || i as u32 == r.job {
                continue;
            }
            let walltime = job.walltime_request(self.remaining[i], self.max_walltime);
            let could_start = job.gpus <= free
                && !self.maintenance_blocks(t, walltime)
                && (t + walltime <= r.shadow || job.gpus <= r.extra);
            if could_start {
                self.missed.push((t, i as u32, r));
            }
        }
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
                    walltime_factor: factor,
                    kind: JobKind::Cv,
                    ..Job::plain(submit, gpus, runtime, group)
                })
                .collect()
        })
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    }
}

/// Runs one random case; returns the stream and what the watch found.
fn run_case(gpus: u32, walltime_h: u32, maintenance: Option<u32>, mut jobs: Vec<Job>) -> (JobStream, Outcome) {
    let scn = scenario(gpus, walltime_h, maintenance);
    for j in &mut jobs {
        j.gpus = j.gpus.min(gpus);
    }
    let stream = JobStream::from_jobs(jobs);
    let mut w = Watch::new(&scn, &stream.jobs);
    let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
    let outcome = Outcome {
        max_busy: w.max_busy,
        late_heads: w
            .first_shadow
            .iter()
            .filter(|(job, shadow)| w.campus_start.get(job).is_none_or(|s| s > shadow))
            .map(|(&job, &shadow)| (job, shadow, w.campus_start.get(&job).copied()))
            .collect(),
        missed: w.missed.clone(),
        reservations: w.reservations,
        overtakes: w.overtakes(),
        records: out.records,
    };
    (stream, outcome)
}

/// What one simulation showed.
struct Outcome {
    max_busy: u32,
    late_heads: Vec<(u32, SimTime, Option<SimTime>)>,
    missed: Vec<(SimTime, u32, Reservation)>,
    reservations: usize,
    overtakes: usize,
    records: Vec<burstsim::engine::JobRecord>,
}

fn case_strategy() -> impl Strategy<Value = (u32, u32, Option<u32>, Vec<Job>)> {
    (2u32..24, 4u32..48, proptest::option::of(2u32..6), jobs_strategy(24))
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn prop_easy_keeps_the_heads_reservation_and_misses_no_backfill(case in case_strategy()) {
        let (gpus, walltime_h, maintenance, jobs) = case;
        let (stream, o) = run_case(gpus, walltime_h, maintenance, jobs);
        prop_assert!(o.max_busy <= gpus);
        prop_assert!(o.late_heads.is_empty(), "heads started after their reservation (job, shadow, start): {:?}", o.late_heads);
        prop_assert!(
            o.missed.is_empty(),
            "{} missed backfills; the first: at t={} job {} ({:?}) was left waiting under {:?}",
            o.missed.len(), o.missed[0].0, o.missed[0].1, stream.jobs[o.missed[0].1 as usize], o.missed[0].2
        );
        for (i, r) in o.records.iter().enumerate() {
            prop_assert!(r.start >= stream.jobs[i].submit && r.end > r.start && r.end != SimTime::MAX);
        }
    }
}

/// The property above is only worth something if the random workloads make EASY hold
/// reservations and backfill: over 100 of them, some jobs must start ahead of jobs queued
/// before them (FCFS never lets that happen) and most queues must see a reservation.
#[test]
fn random_workloads_do_make_easy_reserve_and_backfill() {
    let mut runner = TestRunner::new(config(100));
    let (mut with_overtakes, mut with_reservations) = (0, 0);
    for _ in 0..100 {
        let (gpus, walltime_h, maintenance, jobs) = case_strategy().new_tree(&mut runner).unwrap().current();
        let (_, o) = run_case(gpus, walltime_h, maintenance, jobs);
        with_overtakes += usize::from(o.overtakes > 0);
        with_reservations += usize::from(o.reservations > 0);
    }
    eprintln!(
        "{with_reservations} of 100 workloads made a reservation, {with_overtakes} had jobs overtaking earlier ones"
    );
    assert!(with_reservations >= 50, "only {with_reservations} of 100 workloads ever made a reservation");
    assert!(with_overtakes >= 30, "jobs overtook earlier ones in only {with_overtakes} of 100 workloads");
}
