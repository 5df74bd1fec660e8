//! Wait prediction: when would a job submitted now start on campus, as the scheduler
//! itself would say (`squeue --start`)? Used by the policies that leave the campus queue
//! when the predicted wait is too long, or a deadline would be missed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::PoolCluster;
use crate::cluster::windows;
use crate::scenario::recurring::TimeLimits;
use crate::units::SimTime;

impl PoolCluster {
    /// Predicted start of a new job with `gpus` and `walltime` if it were submitted now,
    /// from the scheduler's own view, as `squeue --start` gives it: running jobs end at
    /// their walltime requests, waiting jobs start in queue order, and no job overlaps a
    /// maintenance window. The new job starts only where the time-of-day limits let it
    /// (`[[campus.time_limits]]`); the jobs ahead are placed without them, as they are
    /// placed without backfilling and holds by the group limit (the scheduler skips a job
    /// over the MaxTime in force, so placing it in order would delay every later job):
    /// this is a planning estimate.
    ///
    /// Callers only compare the prediction with a limit, so the walk through the queue
    /// stops as soon as the start is known to fall after `limit`: the result is exact when
    /// it is ≤ `limit` and otherwise some time after `limit`. Under overload (a queue of
    /// thousands) this makes a prediction cost the jobs ahead up to the limit, not the
    /// whole queue; the queue is walked in submission order by merging the per-size lanes,
    /// without sorting it (O(log L) per job for L lanes).
    pub fn predict_start(&self, now: SimTime, gpus: u32, walltime: SimTime, limit: SimTime) -> SimTime {
        debug_assert!(self.track_running, "invariant: predictions need the running jobs' ends");
        let mut ends: BinaryHeap<Reverse<(SimTime, u32)>> =
            self.running.iter().map(|&(e, _, g)| Reverse((e, g))).collect();
        let mut free = self.free;
        let mut t = now;
        let (maintenance, no_limits) = (&self.maintenance, TimeLimits::default());
        let mut place = |g: u32, w: SimTime, limits: &TimeLimits, ends: &mut BinaryHeap<Reverse<(SimTime, u32)>>| {
            loop {
                while free < g {
                    let Some(Reverse((e, freed))) = ends.pop() else { break };
                    t = t.max(e);
                    free += freed;
                }
                // A job may not overlap a maintenance window (it waits for the window's
                // end, by which time every job started before it has ended), nor start
                // where the time-of-day limits forbid it.
                let allowed = windows::start_from(maintenance, limits, w, t);
                if allowed == t {
                    break;
                }
                t = allowed;
                while let Some(&Reverse((e, freed))) = ends.peek() {
                    if e > t {
                        break;
                    }
                    ends.pop();
                    free += freed;
                }
            }
            let start = t;
            free = free.saturating_sub(g);
            ends.push(Reverse((start.saturating_add(w), g)));
            start
        };
        let group = self.group.entries.iter().filter(|e| e.alive).map(|e| (e.seq, e.q.gpus, e.q.walltime));
        let lanes: Vec<Box<dyn Iterator<Item = Ahead> + '_>> = self
            .background
            .lanes_in_order()
            .map(|l| Box::new(l) as Box<dyn Iterator<Item = _>>)
            .chain(std::iter::once(Box::new(group) as Box<dyn Iterator<Item = _>>))
            .collect();
        for (_, g, w) in merge_by_seq(lanes) {
            // Every later job starts no earlier than this one (starts only move forward).
            let start = place(g, w, &no_limits, &mut ends);
            if start > limit {
                return start;
            }
        }
        place(gpus, walltime, &self.time_limits, &mut ends)
    }
}

/// A waiting job as the prediction sees it: `(submission sequence, GPUs, walltime)`.
type Ahead = (u64, u32, SimTime);

/// Merges streams that are each sorted by their first field into one sorted stream,
/// keeping a heap of the streams' heads.
fn merge_by_seq<'a>(mut streams: Vec<Box<dyn Iterator<Item = Ahead> + 'a>>) -> impl Iterator<Item = Ahead> + 'a {
    let mut heads: BinaryHeap<Reverse<(Ahead, usize)>> =
        streams.iter_mut().enumerate().filter_map(|(i, s)| s.next().map(|x| Reverse((x, i)))).collect();
    std::iter::from_fn(move || {
        let Reverse((item, i)) = heads.pop()?;
        if let Some(next) = streams[i].next() {
            debug_assert!(next.0 > item.0, "invariant: each stream is in submission order");
            heads.push(Reverse((next, i)));
        }
        Some(item)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::pool::tests::{campus, q};
    use crate::scenario::raw::SchedulerKind;

    #[test]
    fn predicted_start_follows_walltime_ends_in_queue_order() {
        let mut c = PoolCluster::new(&campus(4, SchedulerKind::Fcfs));
        let mut s = Vec::new();
        c.enqueue(q(0, 4, 100, false));
        c.schedule(0, &mut s);
        c.enqueue(q(1, 2, 50, false));
        c.schedule(0, &mut s);
        // Job 1 starts at 100 (on 2 GPUs); a 3-GPU job needs job 1's GPUs back: 150.
        assert_eq!(c.predict_start(10, 3, 10, SimTime::MAX), 150);
        assert_eq!(c.predict_start(10, 2, 10, SimTime::MAX), 100);
        // With a limit the answer is exact at or below it, and only "after the limit" above.
        assert_eq!(c.predict_start(10, 3, 10, 150), 150);
        assert!(c.predict_start(10, 3, 10, 99) > 99);
    }

    /// The prediction as first written: sort the waiting jobs and place them all.
    fn reference_prediction(
        running: &[(SimTime, u32)],
        waiting: &[(u32, SimTime)],
        free: u32,
        new: (u32, SimTime),
    ) -> SimTime {
        let mut ends: BinaryHeap<Reverse<(SimTime, u32)>> = running.iter().map(|&e| Reverse(e)).collect();
        let (mut free, mut t) = (free, 0);
        let mut place = |g: u32, w: SimTime| {
            while free < g {
                let Reverse((e, freed)) = ends.pop().expect("enough GPUs eventually");
                t = t.max(e);
                free += freed;
            }
            free -= g;
            ends.push(Reverse((t + w, g)));
            t
        };
        for &(g, w) in waiting {
            place(g, w);
        }
        place(new.0, new.1)
    }

    #[test]
    fn limited_predictions_agree_with_a_full_sorted_walk() {
        // Random queues of background and group jobs on 16 GPUs, some withdrawn: the
        // lazy, limited prediction equals the reference when at most the limit, and is
        // past the limit exactly when the reference is.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for trial in 0..300 {
            let mut c = PoolCluster::new(&campus(
                16,
                if trial % 2 == 0 { SchedulerKind::Fcfs } else { SchedulerKind::EasyBackfill },
            ));
            let mut jobs = Vec::new();
            let mut started = Vec::new();
            for id in 0..(5 + next(40)) as u32 {
                let job = q(id, 1 + next(8) as u32, 1 + next(500), next(4) == 0);
                jobs.push(job);
                c.enqueue(job);
                if id == 8 {
                    c.schedule(0, &mut started);
                }
            }
            let mut gone: Vec<u32> = started.iter().map(|q| q.job).collect();
            for j in &jobs {
                if j.group && !gone.contains(&j.job) && next(3) == 0 && c.withdraw(j.job) {
                    gone.push(j.job);
                }
            }
            let running: Vec<(SimTime, u32)> = started.iter().map(|q| (q.walltime, q.gpus)).collect();
            let waiting: Vec<(u32, SimTime)> =
                jobs.iter().filter(|j| !gone.contains(&j.job)).map(|j| (j.gpus, j.walltime)).collect();
            let new = (1 + next(16) as u32, 1 + next(300));
            let free = 16 - running.iter().map(|r| r.1).sum::<u32>();
            let full = reference_prediction(&running, &waiting, free, new);
            assert_eq!(c.predict_start(0, new.0, new.1, SimTime::MAX), full, "trial {trial}");
            for limit in [0, next(2000), full, full.saturating_sub(1), full + 1] {
                let got = c.predict_start(0, new.0, new.1, limit);
                if full <= limit {
                    assert_eq!(got, full, "trial {trial}, limit {limit}");
                } else {
                    assert!(got > limit, "trial {trial}, limit {limit}: {got}");
                }
            }
        }
    }

    #[test]
    fn predictions_walk_background_and_group_jobs_in_submission_order() {
        // Two GPUs, busy until 5. Queued in this order, across two background lanes and
        // the group queue: bg 2 GPUs × 100 s, bg 1 × 10, group 2 × 50, bg 1 × 1000. In
        // submission order they start at 5, 105, 115 and 165; a new 2-GPU job at 1165.
        let mut c = PoolCluster::new(&campus(2, SchedulerKind::Fcfs));
        let mut s = Vec::new();
        c.enqueue(q(0, 2, 5, false));
        c.schedule(0, &mut s);
        c.enqueue(q(1, 2, 100, false));
        c.enqueue(q(2, 1, 10, false));
        c.enqueue(q(3, 2, 50, true));
        c.enqueue(q(4, 1, 1000, false));
        assert_eq!(c.predict_start(0, 2, 1, SimTime::MAX), 1165);
        assert!(c.predict_start(0, 2, 1, 200) > 200);
    }
}
