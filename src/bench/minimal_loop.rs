//! The floor the pool model is measured against (issue 21, item 2): strict FCFS on a pool
//! of identical GPUs, written as the smallest event loop that gives the same starts: a
//! heap of the running jobs' ends, a FIFO queue, and nothing else (no policies, metrics,
//! walltimes or observers), plus the headline figures the engine reports from those
//! starts (mean and 95th-percentile wait). The `fcfs-reference` bench case times the
//! engine on the same jobs beside it, so the ratio of the two speeds is what the
//! engine's generality costs, measured in one run.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::job::Job;
use crate::units::{SimTime, secs_to_hours};

/// What the loop gives: every job's start, and the mean and 95th-percentile wait in hours
/// of the jobs that started.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Start time of every job, in stream order (`SimTime::MAX`: never started).
    pub starts: Vec<SimTime>,
    /// Mean wait, hours.
    pub mean_wait_h: f64,
    /// 95th-percentile wait, hours.
    pub p95_wait_h: f64,
}

/// [`starts`] and the waits' mean and 95th percentile (as `stats::percentile_sorted`).
pub fn run(jobs: &[Job], gpus: u32) -> Outcome {
    let starts = starts(jobs, gpus);
    let mut waits: Vec<f64> = jobs
        .iter()
        .zip(&starts)
        .filter(|(_, s)| **s != SimTime::MAX)
        .map(|(j, s)| secs_to_hours(s - j.submit))
        .collect();
    let mean_wait_h = waits.iter().sum::<f64>() / waits.len().max(1) as f64;
    waits.sort_unstable_by(f64::total_cmp);
    let p95_wait_h = if waits.is_empty() { 0.0 } else { crate::stats::percentile_sorted(&waits, 0.95) };
    Outcome { starts, mean_wait_h, p95_wait_h }
}

/// The start time of every job (in stream order) under strict FCFS on `gpus` GPUs:
/// at each second, jobs that end free their GPUs first, then that second's submissions
/// join the queue, then the queue's head starts while it fits (the engine's order of
/// events, `engine/queue.rs`). `SimTime::MAX` for a job that never starts (larger than
/// the pool).
pub fn starts(jobs: &[Job], gpus: u32) -> Vec<SimTime> {
    let mut start = vec![SimTime::MAX; jobs.len()];
    let mut ends: BinaryHeap<Reverse<(SimTime, u32)>> = BinaryHeap::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let (mut free, mut next) = (gpus, 0usize);
    loop {
        let t_end = ends.peek().map(|Reverse((t, _))| *t);
        let t_arrival = jobs.get(next).map(|j| j.submit);
        let now = match (t_end, t_arrival) {
            (None, None) => break,
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => a.min(b),
        };
        while let Some(&Reverse((t, g))) = ends.peek() {
            if t != now {
                break;
            }
            ends.pop();
            free += g;
        }
        while next < jobs.len() && jobs[next].submit == now {
            queue.push_back(next);
            next += 1;
        }
        while let Some(&j) = queue.front() {
            if jobs[j].gpus > free {
                break;
            }
            queue.pop_front();
            free -= jobs[j].gpus;
            start[j] = now;
            ends.push(Reverse((now + jobs[j].runtime, jobs[j].gpus)));
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use crate::bench::reference_scenario;
    use crate::engine::simulate;
    use crate::workload::JobStream;

    /// The loop and the engine's pool FCFS are the same model: every job starts at the
    /// same second (so the bench's ratio compares speeds, not models).
    #[test]
    fn the_minimal_loop_starts_every_job_when_the_engines_pool_fcfs_does() {
        let scn = reference_scenario(64, "fcfs", 0.9, 20_000.0);
        let jobs = JobStream::generate(&scn, 0);
        let out = simulate(&scn, &jobs, 0, 0);
        let loop_ = super::run(&jobs.jobs, scn.campus.gpus);
        assert!(jobs.jobs.len() > 10_000, "{}", jobs.jobs.len());
        let differ = out.records.iter().zip(&loop_.starts).filter(|(r, s)| r.start != **s).count();
        assert_eq!(differ, 0, "jobs starting at another time");
        assert!(loop_.mean_wait_h > 0.1, "a queue forms at load 0.9: {}", loop_.mean_wait_h);
        let w = &out.metrics.waits_h;
        assert_eq!(w.len(), jobs.jobs.len(), "every job completes and is measured");
        let engine_mean = w.iter().sum::<f64>() / w.len() as f64;
        let gap = (loop_.mean_wait_h - engine_mean).abs() / engine_mean;
        assert!(gap < 1e-9, "mean wait {} vs the engine's {engine_mean}", loop_.mean_wait_h);
    }
}
