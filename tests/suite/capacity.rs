//! The capacity model (issue 14): node failures, drains, outages, scheduler cycles, start
//! delays, patience and balking. A job killed by a failure is re-queued and finishes
//! exactly once; no job runs on a node while it is down; a reneged or balked job never
//! starts; every invariant holds under every policy with every feature on; with every
//! feature off nothing changes (the golden files and the Erlang C cases cover that).

use std::collections::{HashMap, HashSet};

use burstsim::engine::{Observer, Place, simulate_observed};
use burstsim::job::Job;
use burstsim::job::JobKind;
use burstsim::metric::Metric;
use burstsim::scenario::Scenario;
use burstsim::units::{HOUR, SimTime};
use burstsim::workload::JobStream;

/// Watches a run: starts, ends, placements, nodes going down and up, jobs giving up.
#[derive(Default)]
struct Watch {
    campus_gpus: u32,
    busy: u32,
    running: HashMap<u32, (Place, u32)>,
    on_nodes: HashMap<u32, Vec<u32>>,
    down: HashSet<u32>,
    /// Nodes down for a failure (no drains in the scenario): nothing may run there.
    strict_down: bool,
    starts: HashMap<u32, u32>,
    completions: HashMap<u32, u32>,
    gave_up: HashMap<u32, bool>,
    log: Vec<(SimTime, u32, &'static str)>,
}

impl Observer for Watch {
    fn started(&mut self, t: SimTime, job: u32, place: Place, gpus: u32) {
        assert!(!self.gave_up.contains_key(&job), "job {job} started at {t} after it reneged or balked");
        assert!(self.running.insert(job, (place, gpus)).is_none(), "job {job} started twice without ending");
        *self.starts.entry(job).or_default() += 1;
        if place == Place::Campus {
            self.busy += gpus;
            assert!(self.busy <= self.campus_gpus, "campus over capacity at {t}");
        }
        self.log.push((t, job, "start"));
    }
    fn placed(&mut self, t: SimTime, job: u32, nodes: &[(u32, u32)]) {
        for &(n, _) in nodes {
            assert!(!self.down.contains(&n), "job {job} placed at {t} on node {n}, which is down");
        }
        self.on_nodes.insert(job, nodes.iter().map(|a| a.0).collect());
    }
    fn ended(&mut self, t: SimTime, job: u32, place: Place, gpus: u32, completed: bool) {
        assert_eq!(self.running.remove(&job), Some((place, gpus)), "job {job} ended where it was not running");
        if place == Place::Campus {
            self.busy -= gpus;
        }
        self.on_nodes.remove(&job);
        if completed {
            *self.completions.entry(job).or_default() += 1;
        }
        self.log.push((t, job, if completed { "end" } else { "stop" }));
    }
    fn node_state(&mut self, t: SimTime, node: u32, up: bool) {
        if up {
            assert!(self.down.remove(&node), "node {node} came up at {t} without being down");
        } else {
            assert!(self.down.insert(node), "node {node} went down twice");
            if self.strict_down {
                let on: Vec<u32> = self.on_nodes.iter().filter(|(_, ns)| ns.contains(&node)).map(|(&j, _)| j).collect();
                assert!(on.is_empty(), "jobs {on:?} still run on node {node}, which failed at {t}");
            }
        }
    }
    fn gave_up(&mut self, t: SimTime, job: u32, reneged: bool) {
        assert!(!self.running.contains_key(&job), "job {job} gave up at {t} while running");
        assert!(self.gave_up.insert(job, reneged).is_none(), "job {job} gave up twice");
        if reneged {
            assert!(!self.starts.contains_key(&job), "job {job} reneged at {t} after it had started");
        }
    }
}

fn job(submit_h: f64, runtime_h: f64, gpus: u32, ordinal: u32) -> Job {
    Job {
        walltime_factor: 1.5,
        ordinal,
        vram_gb: 10.0,
        kind: JobKind::Cv,
        ..Job::plain((submit_h * HOUR as f64) as SimTime, gpus, (runtime_h * HOUR as f64) as SimTime, false)
    }
}

/// One node of 8 GPUs that fails every 10 h and is repaired in 1 h.
fn one_failing_node(extra: &str) -> Scenario {
    let text = format!(
        "name = \"fail\"\n[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 2\nreplications = 1\n\
         [campus]\nplacement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nvram_gb = 80\nscheduler = \"easy-backfill\"\n\
         bf_interval_seconds = 1\n\
         [campus.node_failures]\ntime_between_failures_hours = 10\nrepair_hours = 1\n{extra}\n\
         [background]\n[[background.classes]]\nname = \"log\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    Scenario::from_toml_str(&text, "fail.toml").expect("valid")
}

#[test]
fn a_job_on_a_node_that_fails_mid_job_is_requeued_and_finishes_exactly_once() {
    let scn = one_failing_node("");
    // Starts at 8 h, would end at 13 h; the node fails at 10 h and is back at 11 h.
    let stream = JobStream::from_jobs(vec![job(8.0, 5.0, 4, 0)]);
    let mut w = Watch { campus_gpus: 8, strict_down: true, ..Watch::default() };
    let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
    let h = |x: f64| (x * HOUR as f64) as SimTime;
    assert_eq!(w.log, vec![(h(8.0), 0, "start"), (h(10.0), 0, "stop"), (h(11.0), 0, "start"), (h(16.0), 0, "end")]);
    assert_eq!(w.completions.get(&0), Some(&1), "finishes exactly once");
    assert_eq!(out.records[0].end, h(16.0), "no checkpoint: the whole 5 h run again after the repair");
    let m = &out.metrics;
    assert_eq!(m.get(Metric::FailureKilledJobs), 1.0);
    assert!((m.get(Metric::FailureLostWorkGpuHours) - 8.0).abs() < 1e-9, "2 h × 4 GPUs lost");
    // Failures at 10 h, 21 h, 32 h, 43 h of the 48-h window, each 1 h × 8 GPUs.
    assert!((m.get(Metric::CapacityLostGpuHours) - 32.0).abs() < 1e-9, "{}", m.get(Metric::CapacityLostGpuHours));
}

#[test]
fn a_checkpointing_job_keeps_the_work_up_to_its_last_checkpoint() {
    let scn = one_failing_node("checkpoint_interval_hours = 0.5");
    let stream = JobStream::from_jobs(vec![job(8.25, 5.0, 4, 0)]);
    let mut w = Watch { campus_gpus: 8, strict_down: true, ..Watch::default() };
    let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
    // 1.75 h done at the failure, 1.5 h kept: 3.5 h left from 11 h.
    let h = |x: f64| (x * HOUR as f64).round() as SimTime;
    assert_eq!(out.records[0].end, h(14.5));
    assert!((out.metrics.get(Metric::FailureLostWorkGpuHours) - 0.25 * 4.0).abs() < 1e-9);
}

#[test]
fn nothing_starts_on_a_failed_node_until_its_repair() {
    let scn = one_failing_node("");
    // Submitted while the node is down (10 h – 11 h): starts at the repair.
    let stream = JobStream::from_jobs(vec![job(10.2, 1.0, 1, 0)]);
    let mut w = Watch { campus_gpus: 8, strict_down: true, ..Watch::default() };
    let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
    assert_eq!(out.records[0].start, 11 * HOUR);
}

/// The tiny fixture on 8 nodes of 8 GPUs with every capacity feature on.
fn tiny_with_everything(drains: bool) -> Scenario {
    let mut text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    text = text.replace("[campus]\ngpus = 64\n", "[campus]\nplacement = \"nodes\"\nnodes = 8\ngpus_per_node = 8\n");
    let mut extra = String::from(
        "scheduler_cycle_seconds = 60\nmin_start_delay_seconds = 30\n\
         [campus.node_failures]\ntime_between_failures_hours = { kind = \"exponential\", mean = 150 }\n\
         repair_hours = { kind = \"lognormal\", mean = 6, cv = 1.0 }\ncheckpoint_interval_hours = 1\n\
         [campus.outages]\ntime_between_hours = { kind = \"exponential\", mean = 300 }\n\
         duration_hours = { kind = \"exponential\", mean = 4 }\n\
         [[campus.accounts]]\nname = \"others\"\npatience_hours = { kind = \"exponential\", mean = 12 }\n\
         balk_gpu_hours_ahead = 1500\n\
         [[campus.accounts]]\nname = \"group\"\npatience_hours = { kind = \"exponential\", mean = 24 }\nbalk_wait_hours = 48\n",
    );
    if drains {
        extra.push_str("[[campus.drains]]\nstart = \"2026-10-15\"\nend = \"2026-10-16\"\nnodes = 3\n");
    }
    text.replace("[[campus.maintenance]]", &format!("{extra}[[campus.maintenance]]"))
        .pipe(|t| Scenario::from_toml_str(&t, "tiny-capacity.toml").expect("valid"))
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

fn check_everything(scn: &Scenario, strict_down: bool) {
    for policy in 0..scn.policies.len() {
        for replication in 0..2 {
            let jobs = JobStream::generate(scn, replication);
            let mut w = Watch { campus_gpus: scn.campus.gpus, strict_down, ..Watch::default() };
            let out = simulate_observed(scn, &jobs, policy, replication, &mut w);
            let name = &scn.policies[policy].name;
            for (i, rec) in out.records.iter().enumerate() {
                let i = i as u32;
                match w.gave_up.get(&i) {
                    Some(_) => {
                        assert_eq!(w.completions.get(&i), None, "{name}: job {i} gave up and completed");
                        assert_eq!(rec.end, SimTime::MAX, "{name}: job {i} gave up but has an end");
                    }
                    None => assert_eq!(w.completions.get(&i), Some(&1), "{name}: job {i} must end exactly once"),
                }
                if rec.start != SimTime::MAX {
                    assert!(rec.start >= rec.submit && rec.end >= rec.start, "{name}: job {i} record {rec:?}");
                }
            }
            assert!(w.running.is_empty() && w.busy == 0, "{name}: resources not released at the end");
            let m = &out.metrics;
            for metric in Metric::CAPACITY {
                let v = m.get(metric);
                assert!(v.is_finite() && v >= 0.0, "{name}: {} = {v}", metric.name());
            }
            assert!(m.get(Metric::FailureKilledJobs) > 0.0, "{name}: the scenario should kill some jobs");
            assert!(m.get(Metric::RenegedShare) > 0.0, "{name}: some jobs should renege");
            let parts = [
                Metric::CampusCost,
                Metric::HourlyCost,
                Metric::MonthlyCost,
                Metric::TransferCost,
                Metric::StorageCost,
            ];
            let sum: f64 = parts.iter().map(|&x| m.get(x)).sum();
            assert!((m.get(Metric::TotalCost) - sum).abs() <= 1e-6 * sum.max(1.0), "{name}: costs do not add up");
        }
    }
}

#[test]
fn invariants_hold_under_every_policy_with_every_feature_on() {
    check_everything(&tiny_with_everything(false), true);
}

#[test]
fn invariants_hold_with_drains_too() {
    check_everything(&tiny_with_everything(true), false);
}

#[test]
fn a_reneged_job_never_starts_and_balking_jobs_are_never_submitted() {
    // One node, a 40-h job holding it; behind it jobs whose patience (fixed 2 h) runs
    // out long before it ends.
    let text = "name = \"patience\"\n[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 3\nreplications = 1\n\
         [campus]\nplacement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nvram_gb = 80\nscheduler = \"easy-backfill\"\n\
         [[campus.accounts]]\nname = \"others\"\npatience_hours = 2\nbalk_gpu_hours_ahead = 100\n\
         [background]\n[[background.classes]]\nname = \"log\"\njobs_per_week = 0\nruntime_hours = 1\n";
    let scn = Scenario::from_toml_str(text, "patience.toml").unwrap();
    let stream = JobStream::from_jobs(vec![
        job(0.0, 40.0, 8, 0),
        job(1.0, 1.0, 8, 1),  // nothing queued: joins; reneges at 3 h
        job(1.5, 5.0, 8, 2),  // 12 GPU-h queued (8 × 1.5 h): joins; reneges at 3.5 h
        job(2.0, 10.0, 8, 3), // queue holds 12 + 60 GPU-h: joins; reneges at 4 h
        job(2.5, 1.0, 8, 4),  // queue holds 12 + 60 + 120 = 192 GPU-h > 100: balks
    ]);
    let mut w = Watch { campus_gpus: 8, ..Watch::default() };
    let out = simulate_observed(&scn, &stream, 0, 0, &mut w);
    assert_eq!(w.gave_up, HashMap::from([(1, true), (2, true), (3, true), (4, false)]));
    for j in 1..5 {
        assert_eq!(out.records[j].start, SimTime::MAX, "job {j} never starts");
    }
    assert_eq!(w.completions.get(&0), Some(&1));
    assert!((out.metrics.get(Metric::RenegedShare) - 3.0 / 5.0).abs() < 1e-12);
    assert!((out.metrics.get(Metric::BalkedShare) - 1.0 / 5.0).abs() < 1e-12);
}

#[test]
fn a_scheduler_cycle_and_a_start_delay_are_waited_out() {
    let text = "name = \"cycle\"\n[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 1\nreplications = 1\n\
         [campus]\ngpus = 8\nvram_gb = 80\nscheduler = \"easy-backfill\"\nscheduler_cycle_seconds = 60\n\
         min_start_delay_seconds = 10\n\
         [background]\n[[background.classes]]\nname = \"log\"\njobs_per_week = 0\nruntime_hours = 1\n";
    let scn = Scenario::from_toml_str(text, "cycle.toml").unwrap();
    let mut a = job(0.0, 1.0, 1, 0);
    a.submit = 55; // released at 65, next pass at 120
    let mut b = job(0.0, 1.0, 1, 1);
    b.submit = 125; // released at 135, next pass at 180
    let out = simulate_observed(&scn, &JobStream::from_jobs(vec![a, b]), 0, 0, &mut ());
    assert_eq!((out.records[0].start, out.records[1].start), (120, 180));
}

#[test]
fn failures_outages_and_patience_are_the_same_for_the_same_seed() {
    let scn = tiny_with_everything(true);
    let a = burstsim::engine::simulate(&scn, &JobStream::generate(&scn, 0), 0, 0);
    let b = burstsim::engine::simulate(&scn, &JobStream::generate(&scn, 0), 0, 0);
    assert_eq!(a.records, b.records, "same seed, same run");
    assert_eq!(a.metrics.get(Metric::CapacityLostGpuHours), b.metrics.get(Metric::CapacityLostGpuHours));
    let c = burstsim::engine::simulate(&scn, &JobStream::generate(&scn, 1), 0, 1);
    assert_ne!(a.metrics.get(Metric::CapacityLostGpuHours), c.metrics.get(Metric::CapacityLostGpuHours));
}

#[test]
fn capacity_metrics_are_written_only_when_the_model_is_on() {
    let off = Scenario::load(std::path::Path::new("tests/fixtures/tiny.toml")).unwrap();
    assert!(!off.models_capacity());
    assert!(!off.has_windows());
    assert_eq!(Metric::all_written(&off).len(), Metric::ALL.len() - Metric::CAPACITY.len() - Metric::WINDOWED.len());
    let on = tiny_with_everything(false);
    assert!(!on.has_windows(), "no recurring windows: jobs_never_startable is not written");
    let expected: Vec<Metric> = Metric::ALL.iter().copied().filter(|m| !Metric::WINDOWED.contains(m)).collect();
    assert_eq!(Metric::all_written(&on), expected);
}

/// Issue 27, item 11: capacity lost to node failures during a whole-cluster outage was
/// counted twice (once as the node's, once as the cluster's), so the lost GPU-hours could
/// exceed the capacity. Outages cover most of the time here and nodes fail half of it.
/// (Seen failing before the fix: lost > capacity in every replication.)
#[test]
fn capacity_lost_never_exceeds_the_capacity() {
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let mut raw =
        text.replace("[campus]\ngpus = 64\n", "[campus]\nplacement = \"nodes\"\nnodes = 8\ngpus_per_node = 8\n");
    raw = raw.replace("horizon_days = 60", "horizon_days = 20").replace(
        "[[campus.maintenance]]",
        "[campus.node_failures]\ntime_between_failures_hours = { kind = \"exponential\", mean = 20 }\n\
         repair_hours = { kind = \"exponential\", mean = 20 }\n\
         [campus.outages]\ntime_between_hours = { kind = \"exponential\", mean = 10 }\n\
         duration_hours = { kind = \"exponential\", mean = 100 }\n[[campus.maintenance]]",
    );
    let scn = Scenario::from_toml_str(&raw, "tiny-outages.toml").expect("valid");
    assert!(scn.campus.capacity.outages.is_some() && scn.campus.capacity.node_failures.is_some());
    let capacity_h = 64.0 * (scn.horizon - scn.warmup) as f64 / HOUR as f64;
    for r in 0..3 {
        let out = burstsim::engine::simulate(&scn, &JobStream::generate(&scn, r), 0, r);
        let lost = out.metrics.get(Metric::CapacityLostGpuHours);
        assert!(lost <= capacity_h + 1e-6, "replication {r}: {lost} GPU-h lost of {capacity_h}");
        assert!(lost > 0.5 * capacity_h, "replication {r}: the outages cover most of the window, lost only {lost}");
    }
}
