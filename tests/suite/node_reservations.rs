//! Recurring reservations of named nodes (`[[campus.reservations]]` with `nodes`;
//! docs/SCENARIOS.md "Recurring reservations and time-of-day limits"), as Slurm applies a
//! reservation it knows in advance: no job starts on a reserved node if its walltime
//! request would run into one of the node's windows (it may start on another node, and a
//! job that ends by the window starts there), the backfill plans of both planners reserve
//! no job across a window, the forecast agrees, and over random job lists every job ends
//! once, no node is over its GPUs and no job runs on a reserved node in its window.

use std::collections::HashMap;

use burstsim::cluster::{Cluster, QueuedJob, Request};
use burstsim::engine::{Observer, Place, simulate_observed};
use burstsim::job::Job;
use burstsim::scenario::Scenario;
use burstsim::units::SimTime;
use burstsim::workload::JobStream;
use rand::{RngExt, SeedableRng};

const H: u64 = 3600;

/// 2026-09-07 is a Monday; no warm-up, so clock 0 is Monday 00:00. Two nodes of 8 GPUs;
/// node 0 reserved daily 22:00–24:00.
fn two_nodes(planner: &str) -> Scenario {
    let text = format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 14\nwarmup_days = 0\nreplications = 1\n\
         [campus]\nplacement = \"nodes\"\nnodes = 2\ngpus_per_node = 8\nvram_gb = 80\nbf_planner = \"{planner}\"\n\
         [[campus.reservations]]\nname = \"nightly\"\nstart_time = \"2026-09-07T22:00\"\nduration_minutes = 120\n\
         flags = \"DAILY\"\nnodes = 1\n\
         [background]\n[[background.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    Scenario::from_toml_str(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn job(job: u32, walltime_hours: u64) -> QueuedJob {
    QueuedJob { job, gpus: 8, walltime: walltime_hours * H, group: false }
}

/// Submits a job at `t` and runs the schedulers then; the jobs that started.
fn submit(c: &mut Cluster, t: SimTime, q: QueuedJob) -> Vec<u32> {
    c.enqueue(t, q, Request::default());
    let mut started = Vec::new();
    c.schedule(t, &mut started);
    started.iter().map(|q| q.job).collect()
}

/// At 12:00 a 24-h job would run into node 0's 22:00 window: it starts on node 1, though
/// best fit (both planners) puts a job on the lowest of two idle nodes. At 13:00 a 10-h
/// job (to 23:00) does not start on node 0, while a 9-h one, ending as the window begins,
/// does.
#[test]
fn a_long_job_is_kept_off_a_reserved_node_before_its_window_and_a_short_one_is_not() {
    for planner in ["exact", "slurm"] {
        let mut c = Cluster::new(&two_nodes(planner).campus, true);
        assert_eq!(submit(&mut c, 12 * H, job(0, 24)), [0], "{planner}");
        assert_eq!(c.allocation(0), Some(&[(1, 8)][..]), "{planner}: the 24-h job is on the unreserved node");
        assert!(submit(&mut c, 13 * H, job(1, 10)).is_empty(), "{planner}: 13:00–23:00 crosses the window");
        assert_eq!(submit(&mut c, 13 * H, job(2, 9)), [2], "{planner}: 13:00–22:00 ends as it begins");
        assert_eq!(c.allocation(2), Some(&[(0, 8)][..]), "{planner}");
    }
}

/// At 20:00 node 1 is busy to 24:00 and node 0 is free but reserved from 22:00. A 4-h job
/// must not be started now by backfill (the plan of either planner would put it on node 0
/// now if it did not know the window), and the forecast plans it at 24:00: a 2-h job is
/// promised 20:00 on node 0 (it ends at 22:00), a 3-h job 24:00.
#[test]
fn backfill_reserves_no_job_across_a_window_and_the_forecast_agrees() {
    for planner in ["exact", "slurm"] {
        let mut c = Cluster::new(&two_nodes(planner).campus, true);
        assert_eq!(submit(&mut c, 12 * H, job(0, 12)), [0], "{planner}");
        assert_eq!(c.allocation(0), Some(&[(1, 8)][..]), "{planner}");
        assert!(submit(&mut c, 20 * H, job(1, 4)).is_empty(), "{planner}: 20:00–24:00 crosses the window");
        let forecast = |hours| c.predict_start(20 * H, job(9, hours), Request::default(), u64::MAX);
        assert_eq!(forecast(2), 20 * H, "{planner}");
        assert_eq!(forecast(3), 24 * H, "{planner}");
    }
}

/// The exact plan (every forecast) with a job ending at 21:00 on the only node, reserved
/// from 22:00: a 2-h job is not planned at 21:00 (it would run into the window) but at
/// 24:00; a 1-h job at 21:00.
#[test]
fn the_forecast_plans_no_job_into_a_window_after_a_release() {
    let text = "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 14\nwarmup_days = 0\nreplications = 1\n\
         [campus]\nplacement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nvram_gb = 80\n\
         [[campus.reservations]]\nstart_time = \"2026-09-07T22:00\"\nduration_minutes = 120\nflags = \"DAILY\"\nnodes = 1\n\
         [background]\n[[background.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n";
    let s = Scenario::from_toml_str(text, "test.toml").expect("valid");
    let mut c = Cluster::new(&s.campus, true);
    assert_eq!(submit(&mut c, 20 * H, job(0, 1)), [0]);
    assert_eq!(c.predict_start(20 * H, job(1, 2), Request::default(), u64::MAX), 24 * H);
    assert_eq!(c.predict_start(20 * H, job(1, 1), Request::default(), u64::MAX), 21 * H);
}

/// Nothing else happens: a 4-h job submitted at 21:00 to the one node, reserved
/// 22:00–24:00, starts when the window ends (the window's end wakes the schedulers), not
/// before and not at some later unrelated event.
#[test]
fn a_job_kept_off_by_a_window_starts_as_it_ends() {
    for planner in ["exact", "slurm"] {
        let text = format!(
            "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 14\nwarmup_days = 0\nreplications = 1\n\
             [campus]\nplacement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nvram_gb = 80\nbf_planner = \"{planner}\"\n\
             [[campus.reservations]]\nstart_time = \"2026-09-07T22:00\"\nduration_minutes = 120\nflags = \"DAILY\"\nnodes = 1\n\
             [background]\n[[background.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
        );
        let s = Scenario::from_toml_str(&text, "test.toml").expect("valid");
        let stream = JobStream::from_jobs(vec![Job::plain(21 * H, 2, 4 * H, false)]);
        let out = burstsim::engine::simulate(&s, &stream, 0, 0);
        assert_eq!(out.records[0].start, 24 * H, "{planner}");
    }
}

/// Watches a run: per job its starts and completions, per node its GPUs in use, and
/// every placement on a reserved node against the node's windows.
struct Watch<'a> {
    scn: &'a Scenario,
    walltime: Vec<SimTime>,
    on_node: HashMap<u32, Vec<(u32, u32)>>,
    node_busy: Vec<u32>,
    completions: Vec<u32>,
    placements: usize,
    reserved_placements: usize,
}

impl Observer for Watch<'_> {
    fn placed(&mut self, t: SimTime, job: u32, nodes: &[(u32, u32)]) {
        self.placements += 1;
        let w = self.walltime[job as usize];
        for &(n, g) in nodes {
            for &(a, b) in self.scn.campus.node_windows.of(n) {
                assert!(t + w <= a || t >= b, "job {job} placed at {t} for {w} s on node {n}, reserved {a}–{b}");
            }
            self.reserved_placements += usize::from(!self.scn.campus.node_windows.of(n).is_empty());
            self.node_busy[n as usize] += g;
            assert!(self.node_busy[n as usize] <= 8, "node {n} over its 8 GPUs at {t}");
        }
        assert!(self.on_node.insert(job, nodes.to_vec()).is_none(), "job {job} placed twice without ending");
    }
    fn ended(&mut self, _t: SimTime, job: u32, place: Place, _gpus: u32, completed: bool) {
        if place == Place::Campus {
            for (n, g) in self.on_node.remove(&job).expect("a campus job ends where it was placed") {
                self.node_busy[n as usize] -= g;
            }
        }
        assert!(completed, "job {job} was stopped (no walltime limit, no failures: nothing may stop it)");
        self.completions[job as usize] += 1;
    }
}

/// Random jobs (1–8 GPUs, 10 min – 40 h, requests up to 2× the run time) over two weeks on
/// three nodes: node 0 reserved daily 02:00–03:00, nodes 0 and 1 every Wednesday
/// 09:00–17:00, node 2 never (so every job can start). Both planners, FIFO and
/// multifactor.
#[test]
fn with_reservations_every_job_ends_once_and_none_runs_into_a_window() {
    let reservations = "[[campus.reservations]]\nstart_time = \"2026-09-07T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"\nnodes = 1\n\
         [[campus.reservations]]\nstart_time = \"2026-09-09T09:00\"\nduration_minutes = 480\nflags = \"WEEKLY\"\nnodes = 2\n";
    for extra in ["", "bf_planner = \"slurm\"", "priority = \"multifactor\"\nbf_reservations = 2"] {
        let text = format!(
            "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 14\nwarmup_days = 0\nreplications = 1\n\
             [campus]\nplacement = \"nodes\"\nnodes = 3\ngpus_per_node = 8\nvram_gb = 80\nbf_interval_seconds = 60\n{extra}\n\
             {reservations}\
             [background]\n[[background.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
        );
        let s = Scenario::from_toml_str(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let (mut placements, mut reserved) = (0, 0);
        for seed in 0..4 {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let mut t = 0;
            let jobs: Vec<Job> = (0..150)
                .map(|_| {
                    t += rng.random_range(0..3 * H);
                    let runtime = rng.random_range(600..40 * H);
                    let factor: f64 = rng.random_range(1.0..2.0);
                    Job { walltime_factor: factor, ..Job::plain(t, rng.random_range(1..=8), runtime, false) }
                })
                .collect();
            let walltime = jobs.iter().map(|j| j.walltime_request(j.runtime, None)).collect();
            let stream = JobStream::from_jobs(jobs);
            let mut w = Watch {
                scn: &s,
                walltime,
                on_node: HashMap::new(),
                node_busy: vec![0; 3],
                completions: vec![0; stream.jobs.len()],
                placements: 0,
                reserved_placements: 0,
            };
            let out = simulate_observed(&s, &stream, 0, 0, &mut w);
            for (i, r) in out.records.iter().enumerate() {
                assert!(r.start != u64::MAX, "{extra:?}, seed {seed}: job {i} never started");
                assert_eq!(w.completions[i], 1, "{extra:?}, seed {seed}: job {i} completed {} times", w.completions[i]);
            }
            assert!(w.node_busy.iter().all(|&b| b == 0) && w.on_node.is_empty());
            placements += w.placements;
            reserved += w.reserved_placements;
        }
        // The reserved nodes are used (between windows), not kept empty.
        assert!(reserved * 4 > placements, "{extra:?}: {reserved} of {placements} placements on reserved nodes");
    }
}
