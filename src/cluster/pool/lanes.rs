//! The background part of the campus queue, indexed for backfilling.
//!
//! Waiting jobs are kept in one lane per GPU count, each in submission order, with a
//! segment tree over its positions holding the smallest walltime request below each node.
//! "The earliest waiting job with at most G GPUs and a walltime request of at most W" is
//! then a descent per lane (O(S log Q) for S distinct GPU counts) instead of a scan over
//! the whole queue. EASY backfilling asks exactly that question; with a long queue it is
//! most of the scheduler's work (see docs/PERFORMANCE.md).

use std::collections::BTreeMap;

use crate::cluster::request::QueuedJob;
use crate::units::SimTime;

/// Minimum over a growing array, with "first position ≥ from whose value ≤ w".
#[derive(Debug, Clone)]
struct MinTree {
    size: usize,
    t: Vec<SimTime>,
}

impl MinTree {
    fn with_capacity(n: usize) -> MinTree {
        let size = n.next_power_of_two().max(16);
        MinTree { size, t: vec![SimTime::MAX; 2 * size] }
    }

    fn set(&mut self, pos: usize, v: SimTime) {
        let mut i = pos + self.size;
        self.t[i] = v;
        while i > 1 {
            i /= 2;
            self.t[i] = self.t[2 * i].min(self.t[2 * i + 1]);
        }
    }

    /// The first position ≥ `from` holding a value ≤ `w` (empty and dead positions hold
    /// `SimTime::MAX`, which never matches).
    fn first_at_most(&self, from: usize, w: SimTime) -> Option<usize> {
        self.descend(1, 0, self.size, from, w.min(SimTime::MAX - 1))
    }

    fn descend(&self, node: usize, lo: usize, hi: usize, from: usize, w: SimTime) -> Option<usize> {
        if hi <= from || self.t[node] > w {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.descend(2 * node, lo, mid, from, w).or_else(|| self.descend(2 * node + 1, mid, hi, from, w))
    }
}

/// Jobs with one GPU count, in submission order.
#[derive(Debug, Clone)]
struct SizeLane {
    seqs: Vec<u64>,
    jobs: Vec<QueuedJob>,
    alive: Vec<bool>,
    tree: MinTree,
    /// No live entry before this position.
    head: usize,
    live: usize,
}

impl SizeLane {
    fn new() -> SizeLane {
        SizeLane {
            seqs: Vec::new(),
            jobs: Vec::new(),
            alive: Vec::new(),
            tree: MinTree::with_capacity(16),
            head: 0,
            live: 0,
        }
    }

    fn push(&mut self, seq: u64, q: QueuedJob) {
        if self.jobs.len() == self.tree.size {
            self.rebuild(self.tree.size * 2);
        }
        let pos = self.jobs.len();
        self.seqs.push(seq);
        self.jobs.push(q);
        self.alive.push(true);
        self.tree.set(pos, q.walltime);
        self.live += 1;
    }

    /// Rebuilds without dead entries, with room for `capacity`.
    fn rebuild(&mut self, capacity: usize) {
        let keep: Vec<usize> = (self.head..self.jobs.len()).filter(|&i| self.alive[i]).collect();
        self.seqs = keep.iter().map(|&i| self.seqs[i]).collect();
        self.jobs = keep.iter().map(|&i| self.jobs[i]).collect();
        self.alive = vec![true; keep.len()];
        self.tree = MinTree::with_capacity(capacity.max(2 * keep.len()));
        for (i, q) in self.jobs.iter().enumerate() {
            self.tree.set(i, q.walltime);
        }
        self.head = 0;
    }

    fn kill(&mut self, pos: usize) {
        debug_assert!(self.alive[pos], "invariant: a queued job leaves the queue once");
        self.alive[pos] = false;
        self.tree.set(pos, SimTime::MAX);
        self.live -= 1;
        while self.head < self.jobs.len() && !self.alive[self.head] {
            self.head += 1;
        }
    }

    fn front(&self) -> Option<usize> {
        (self.head < self.jobs.len() && self.alive[self.head]).then_some(self.head)
    }

    fn tidy(&mut self) {
        let dead = self.jobs.len() - self.head - self.live;
        if self.jobs.len() > 64 && (self.head > self.jobs.len() / 2 || dead > self.live) {
            self.rebuild(self.tree.size);
        }
    }
}

/// A position in the lanes, valid until the next `tidy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    gpus: u32,
    pos: usize,
    /// Submission order of the entry.
    pub seq: u64,
    /// The job.
    pub q: QueuedJob,
}

/// All background lanes.
#[derive(Debug, Clone, Default)]
pub(super) struct SizeLanes {
    lanes: BTreeMap<u32, SizeLane>,
    live: usize,
}

impl SizeLanes {
    pub fn live(&self) -> usize {
        self.live
    }

    pub fn push(&mut self, seq: u64, q: QueuedJob) {
        self.lanes.entry(q.gpus).or_insert_with(SizeLane::new).push(seq, q);
        self.live += 1;
    }

    fn slot(&self, gpus: u32, pos: usize) -> Slot {
        let lane = &self.lanes[&gpus];
        Slot { gpus, pos, seq: lane.seqs[pos], q: lane.jobs[pos] }
    }

    /// The earliest waiting job.
    pub fn front(&self) -> Option<Slot> {
        self.lanes
            .iter()
            .filter_map(|(&g, lane)| lane.front().map(|p| (lane.seqs[p], g, p)))
            .min()
            .map(|(_, g, p)| self.slot(g, p))
    }

    /// The earliest waiting job with at most `max_gpus` GPUs whose walltime request is at
    /// most `short`, or, if it has at most `extra_gpus` GPUs, at most `long`.
    pub fn first_backfill(&self, max_gpus: u32, short: SimTime, extra_gpus: u32, long: SimTime) -> Option<Slot> {
        let mut best: Option<(u64, u32, usize)> = None;
        for (&g, lane) in self.lanes.range(..=max_gpus) {
            let limit = if g <= extra_gpus { short.max(long) } else { short };
            if let Some(p) = lane.tree.first_at_most(lane.head, limit) {
                let seq = lane.seqs[p];
                if best.is_none_or(|(s, _, _)| seq < s) {
                    best = Some((seq, g, p));
                }
            }
        }
        best.map(|(_, g, p)| self.slot(g, p))
    }

    pub fn remove(&mut self, slot: Slot) {
        self.lanes.get_mut(&slot.gpus).expect("slot of an existing lane").kill(slot.pos);
        self.live -= 1;
    }

    /// Removes a waiting job by id (recent arrivals: searched from the back).
    pub fn remove_job(&mut self, job: u32, gpus: u32) -> bool {
        let Some(lane) = self.lanes.get_mut(&gpus) else { return false };
        let Some(pos) = (lane.head..lane.jobs.len()).rev().find(|&i| lane.alive[i] && lane.jobs[i].job == job) else {
            return false;
        };
        lane.kill(pos);
        self.live -= 1;
        true
    }

    /// Every waiting job with its submission order (unsorted).
    pub fn iter(&self) -> impl Iterator<Item = (u64, &QueuedJob)> {
        self.lanes
            .values()
            .flat_map(|l| (l.head..l.jobs.len()).filter(|&i| l.alive[i]).map(move |i| (l.seqs[i], &l.jobs[i])))
    }

    /// Each lane's waiting jobs as `(seq, gpus, walltime)`, each lane in submission order
    /// (merge them to walk the whole queue in order without sorting it).
    pub fn lanes_in_order(&self) -> impl Iterator<Item = impl Iterator<Item = (u64, u32, SimTime)> + '_> + '_ {
        self.lanes.values().map(|l| {
            (l.head..l.jobs.len()).filter(|&i| l.alive[i]).map(move |i| (l.seqs[i], l.jobs[i].gpus, l.jobs[i].walltime))
        })
    }

    pub fn tidy(&mut self) {
        for lane in self.lanes.values_mut() {
            lane.tidy();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(job: u32, gpus: u32, walltime: SimTime) -> QueuedJob {
        QueuedJob { job, gpus, walltime, group: false }
    }

    #[test]
    fn min_tree_finds_the_first_small_enough_value() {
        let mut t = MinTree::with_capacity(8);
        for (i, v) in [50, 40, 30, 60, 10, 70].iter().enumerate() {
            t.set(i, *v);
        }
        assert_eq!(t.first_at_most(0, 35), Some(2));
        assert_eq!(t.first_at_most(3, 35), Some(4));
        assert_eq!(t.first_at_most(5, 35), None);
        assert_eq!(t.first_at_most(0, 5), None);
    }

    #[test]
    fn backfill_query_matches_a_linear_scan() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for _ in 0..200 {
            let mut lanes = SizeLanes::default();
            let mut all: Vec<(u64, QueuedJob, bool)> = Vec::new();
            for seq in 0..rng.random_range(1..300u64) {
                let job = q(seq as u32, [1, 2, 3, 4, 8][rng.random_range(0..5)], rng.random_range(1..1000));
                lanes.push(seq, job);
                all.push((seq, job, true));
            }
            for _ in 0..rng.random_range(0..100) {
                if let Some(s) = lanes.front()
                    && rng.random::<bool>()
                {
                    lanes.remove(s);
                    all.iter_mut().find(|e| e.0 == s.seq).unwrap().2 = false;
                }
                let k = rng.random_range(0..all.len());
                if all[k].2 && lanes.remove_job(all[k].1.job, all[k].1.gpus) {
                    all[k].2 = false;
                }
            }
            lanes.tidy();
            let (g, short, extra, long) =
                (rng.random_range(1..9), rng.random_range(0..1000), rng.random_range(0..9), rng.random_range(0..1000));
            let expected = all.iter().find(|(_, j, alive)| {
                *alive && j.gpus <= g && (j.walltime <= short || (j.gpus <= extra && j.walltime <= long.max(short)))
            });
            assert_eq!(lanes.first_backfill(g, short, extra, long).map(|s| s.seq), expected.map(|e| e.0));
            assert_eq!(lanes.front().map(|s| s.seq), all.iter().find(|e| e.2).map(|e| e.0));
            assert_eq!(lanes.live(), all.iter().filter(|e| e.2).count());
        }
    }
}
