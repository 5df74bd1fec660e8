//! The campus cluster: GPUs, the waiting queue, and the scheduler (FCFS or EASY backfill).
//!
//! The cluster is a pool of identical GPUs (node boundaries are not modelled: a job's
//! GPUs may come from several nodes). The queue is ordered by submission (a resubmitted
//! segment goes to the back). The group's jobs are subject to the per-group GPU limit: a
//! group job that would exceed it is *held* and skipped, as Slurm does for jobs pending on
//! `GrpTRES`, without blocking anyone else.
//!
//! Scheduling uses walltime *requests*, never true runtimes:
//! - **FCFS** starts jobs in queue order and stops at the first eligible job that does not
//!   fit;
//! - **EASY backfill** gives that first job (the *head*) a reservation at the *shadow
//!   time*, the earliest time enough GPUs are free by the running jobs' walltime ends, and
//!   then starts any later job that fits now and either ends (by its request) before the
//!   shadow time or uses only the *extra* GPUs the head will not need.
//!
//! A full pass is O(R + Q) for R running and Q waiting jobs. When only new submissions
//! arrived since the last pass, the cached reservation stays valid and only the new jobs
//! are checked (O(1) each): this keeps a long queue from making every arrival a full scan.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use crate::scenario::Campus;
use crate::scenario::raw::SchedulerKind;
use crate::units::SimTime;

/// A job waiting on (or started by) the campus scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedJob {
    /// Job index in the stream.
    pub job: u32,
    /// GPUs.
    pub gpus: u32,
    /// Walltime request for this segment.
    pub walltime: SimTime,
    /// A job of the group (subject to the group limit)?
    pub group: bool,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    seq: u64,
    q: QueuedJob,
    alive: bool,
}

/// One FIFO lane with tombstones for removals from the middle.
#[derive(Debug, Default)]
struct Lane {
    entries: VecDeque<Entry>,
    live: usize,
}

impl Lane {
    fn push(&mut self, e: Entry) {
        self.entries.push_back(e);
        self.live += 1;
    }
    fn kill(&mut self, pos: usize) {
        debug_assert!(self.entries[pos].alive, "invariant: a queued job leaves the queue once");
        self.entries[pos].alive = false;
        self.live -= 1;
    }
    fn tidy(&mut self) {
        while self.entries.front().is_some_and(|e| !e.alive) {
            self.entries.pop_front();
        }
        if self.entries.len() > 64 && self.entries.len() > 2 * self.live {
            self.entries.retain(|e| e.alive);
        }
    }
}

/// The reservation of the head job under EASY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reservation {
    /// The head job.
    pub job: u32,
    /// Its GPUs.
    pub gpus: u32,
    /// Whether it is a group job.
    pub group: bool,
    /// When it is guaranteed to start, by walltime requests.
    pub shadow: SimTime,
    /// GPUs free at the shadow time beyond what the head needs.
    pub extra: u32,
}

/// What the last full pass left behind, valid until a job ends or leaves the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocked {
    /// Every eligible job started; only held group jobs wait.
    Nothing,
    /// FCFS: the head does not fit and nothing may overtake it.
    Fcfs,
    /// EASY: the head holds this reservation.
    Easy(Reservation),
}

/// The campus cluster's state.
#[derive(Debug)]
pub struct Cluster {
    total: u32,
    free: u32,
    group_used: u32,
    group_limit: u32,
    scheduler: SchedulerKind,
    maintenance: Vec<(SimTime, SimTime)>,
    background: Lane,
    group: Lane,
    seq: u64,
    /// Running jobs keyed by (walltime end, job, gpus).
    running: BTreeSet<(SimTime, u32, u32)>,
    queued_gpus: u64,
    blocked: Blocked,
    /// A job ended or left the queue since the last full pass.
    needs_full_pass: bool,
    /// Jobs enqueued since the last pass.
    arrivals: Vec<QueuedJob>,
}

impl Cluster {
    /// An idle cluster.
    pub fn new(campus: &Campus) -> Cluster {
        Cluster {
            total: campus.gpus,
            free: campus.gpus,
            group_used: 0,
            group_limit: campus.group_gpu_limit.unwrap_or(u32::MAX),
            scheduler: campus.scheduler,
            maintenance: campus.maintenance.clone(),
            background: Lane::default(),
            group: Lane::default(),
            seq: 0,
            running: BTreeSet::new(),
            queued_gpus: 0,
            blocked: Blocked::Nothing,
            needs_full_pass: false,
            arrivals: Vec::new(),
        }
    }

    /// Total GPUs.
    pub fn total(&self) -> u32 {
        self.total
    }
    /// GPUs in use.
    pub fn busy(&self) -> u32 {
        self.total - self.free
    }
    /// GPUs the group holds.
    pub fn group_used(&self) -> u32 {
        self.group_used
    }
    /// GPUs requested by waiting jobs.
    pub fn queued_gpus(&self) -> u64 {
        self.queued_gpus
    }
    /// Waiting jobs.
    pub fn queue_len(&self) -> usize {
        self.background.live + self.group.live
    }
    /// Waiting group jobs.
    pub fn queued_group_jobs(&self) -> usize {
        self.group.live
    }
    /// The current EASY reservation, if the last pass made one.
    pub fn reservation(&self) -> Option<Reservation> {
        match self.blocked {
            Blocked::Easy(r) => Some(r),
            _ => None,
        }
    }

    /// The waiting jobs (in no particular order).
    pub fn queued_jobs(&self) -> impl Iterator<Item = &QueuedJob> {
        self.background.entries.iter().chain(&self.group.entries).filter(|e| e.alive).map(|e| &e.q)
    }

    /// Adds a job at the back of the queue.
    pub fn enqueue(&mut self, q: QueuedJob) {
        self.seq += 1;
        let e = Entry { seq: self.seq, q, alive: true };
        if q.group {
            self.group.push(e)
        } else {
            self.background.push(e)
        }
        self.queued_gpus += u64::from(q.gpus);
        self.arrivals.push(q);
    }

    /// Removes a waiting group job (overflow to the cloud). False if it is not waiting.
    pub fn withdraw(&mut self, job: u32) -> bool {
        let Some(pos) = self.group.entries.iter().position(|e| e.alive && e.q.job == job) else {
            return false;
        };
        let q = self.group.entries[pos].q;
        self.group.kill(pos);
        self.group.tidy();
        self.queued_gpus -= u64::from(q.gpus);
        self.arrivals.retain(|a| a.job != job);
        self.needs_full_pass = true;
        true
    }

    /// Releases a finished (or walltime-killed) job's GPUs.
    pub fn finish(&mut self, job: u32, walltime_end: SimTime, gpus: u32, group: bool) {
        let removed = self.running.remove(&(walltime_end, job, gpus));
        debug_assert!(removed, "invariant: only running jobs finish");
        self.free += gpus;
        if group {
            self.group_used -= gpus;
        }
        debug_assert!(self.free <= self.total, "invariant: free GPUs never exceed the cluster");
        self.needs_full_pass = true;
    }

    /// Marks that something outside the queue changed (maintenance ended).
    pub fn invalidate(&mut self) {
        self.needs_full_pass = true;
    }

    /// True when maintenance forbids starting a job with this walltime now: a window is in
    /// progress, or the job could still be running when the next one begins.
    fn maintenance_blocks(&self, now: SimTime, walltime: SimTime) -> bool {
        let i = self.maintenance.partition_point(|&(_, end)| end <= now);
        match self.maintenance.get(i) {
            Some(&(start, _)) => start <= now || now.saturating_add(walltime) > start,
            None => false,
        }
    }

    fn start(&mut self, now: SimTime, q: QueuedJob, started: &mut Vec<QueuedJob>) {
        debug_assert!(q.gpus <= self.free, "invariant: a job starts only on free GPUs");
        self.free -= q.gpus;
        if q.group {
            self.group_used += q.gpus;
        }
        self.queued_gpus -= u64::from(q.gpus);
        self.running.insert((now.saturating_add(q.walltime), q.job, q.gpus));
        started.push(q);
    }

    fn held(&self, q: &QueuedJob) -> bool {
        q.group && self.group_used + q.gpus > self.group_limit
    }

    /// The EASY reservation for `head`: the earliest time enough GPUs are free by walltime
    /// ends, moved past any maintenance window the head would overlap.
    fn reserve(&self, now: SimTime, head: &QueuedJob) -> Reservation {
        let mut avail = self.free;
        let mut shadow = now;
        for &(end, _, g) in &self.running {
            if avail >= head.gpus {
                break;
            }
            avail += g;
            shadow = end;
        }
        let mut extra = avail.saturating_sub(head.gpus);
        // Maintenance: if the head would overlap a window, it starts after it (by then
        // every running job has ended, as none may cross a window).
        for &(start, end) in &self.maintenance {
            if end <= shadow {
                continue;
            }
            if start <= shadow || shadow.saturating_add(head.walltime) > start {
                shadow = end;
                extra = self.total - head.gpus;
            } else {
                break;
            }
        }
        Reservation { job: head.job, gpus: head.gpus, group: head.group, shadow, extra }
    }

    /// Under a reservation, may `q` start now without delaying the head? Returns whether
    /// it uses the extra GPUs (ends after the shadow time).
    fn may_backfill(&self, now: SimTime, q: &QueuedJob, r: &Reservation) -> Option<bool> {
        if q.gpus > self.free || self.maintenance_blocks(now, q.walltime) {
            return None;
        }
        // A group job must leave the group quota a group head needs, even if it ends
        // before the shadow time: while it runs the head would be held by the group limit
        // and lose its place to later jobs (found by the reservation property test).
        if r.group && q.group && self.group_used + q.gpus + r.gpus > self.group_limit {
            return None;
        }
        if now.saturating_add(q.walltime) <= r.shadow {
            return Some(false);
        }
        // Ends after the shadow: must fit in the extra GPUs.
        (q.gpus <= r.extra).then_some(true)
    }

    /// Starts whatever the scheduler allows at `now`; appends started jobs to `started`.
    pub fn schedule(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        if self.needs_full_pass {
            if self.free > 0 {
                self.full_pass(now, started);
                self.needs_full_pass = false;
            }
        } else {
            self.arrivals_pass(now, started);
        }
        self.arrivals.clear();
        self.background.tidy();
        self.group.tidy();
    }

    fn arrivals_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        let arrivals = std::mem::take(&mut self.arrivals);
        for q in &arrivals {
            if self.free == 0 {
                break;
            }
            if self.held(q) {
                continue;
            }
            let start = match self.blocked {
                Blocked::Fcfs => false,
                Blocked::Easy(mut r) => match self.may_backfill(now, q, &r) {
                    Some(uses_extra) => {
                        if uses_extra {
                            r.extra -= q.gpus;
                            self.blocked = Blocked::Easy(r);
                        }
                        true
                    }
                    None => false,
                },
                Blocked::Nothing => {
                    if q.gpus <= self.free && !self.maintenance_blocks(now, q.walltime) {
                        true
                    } else {
                        self.blocked = match self.scheduler {
                            SchedulerKind::Fcfs => Blocked::Fcfs,
                            SchedulerKind::EasyBackfill => Blocked::Easy(self.reserve(now, q)),
                        };
                        false
                    }
                }
            };
            if start {
                self.remove_queued(q.job, q.group);
                self.start(now, *q, started);
            }
        }
        self.arrivals = arrivals;
    }

    fn remove_queued(&mut self, job: u32, group: bool) {
        let lane = if group { &mut self.group } else { &mut self.background };
        // New arrivals sit at the back: search from there.
        let pos = lane.entries.iter().rposition(|e| e.alive && e.q.job == job).expect("invariant: the job is queued");
        lane.kill(pos);
    }

    fn full_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        self.blocked = Blocked::Nothing;
        let (mut ib, mut ig) = (0usize, 0usize);
        loop {
            if self.free == 0 {
                break;
            }
            // Next live entry in submission order across the two lanes.
            while ib < self.background.entries.len() && !self.background.entries[ib].alive {
                ib += 1;
            }
            while ig < self.group.entries.len() && !self.group.entries[ig].alive {
                ig += 1;
            }
            let b = self.background.entries.get(ib).map(|e| e.seq);
            let g = self.group.entries.get(ig).map(|e| e.seq);
            let from_group = match (b, g) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(sb), Some(sg)) => sg < sb,
            };
            let (pos, q) =
                if from_group { (ig, self.group.entries[ig].q) } else { (ib, self.background.entries[ib].q) };
            if from_group {
                ig += 1
            } else {
                ib += 1
            }
            if self.held(&q) {
                continue;
            }
            let start = match self.blocked {
                Blocked::Nothing => {
                    if q.gpus <= self.free && !self.maintenance_blocks(now, q.walltime) {
                        true
                    } else if self.scheduler == SchedulerKind::Fcfs {
                        self.blocked = Blocked::Fcfs;
                        break;
                    } else {
                        self.blocked = Blocked::Easy(self.reserve(now, &q));
                        false
                    }
                }
                Blocked::Easy(mut r) => match self.may_backfill(now, &q, &r) {
                    Some(uses_extra) => {
                        if uses_extra {
                            r.extra -= q.gpus;
                            self.blocked = Blocked::Easy(r);
                        }
                        true
                    }
                    None => false,
                },
                Blocked::Fcfs => unreachable!("FCFS stops at its head"),
            };
            if start {
                if from_group {
                    self.group.kill(pos)
                } else {
                    self.background.kill(pos)
                }
                self.start(now, q, started);
            }
        }
        if self.free == 0 && self.blocked == Blocked::Nothing && self.queue_len() > 0 {
            // Nothing more can start until a job ends (which forces a full pass).
            self.blocked = Blocked::Fcfs;
        }
    }

    /// Predicted start of a new job with `gpus` and `walltime` if it were submitted now,
    /// from the scheduler's own view, as `squeue --start` gives it: running jobs end at
    /// their walltime requests, waiting jobs start in queue order, and no job overlaps a
    /// maintenance window. Backfilling and holds by the group limit are ignored, so this is
    /// a planning estimate.
    pub fn predict_start(&self, now: SimTime, gpus: u32, walltime: SimTime) -> SimTime {
        let mut ends: BinaryHeap<Reverse<(SimTime, u32)>> =
            self.running.iter().map(|&(e, _, g)| Reverse((e, g))).collect();
        let mut free = self.free;
        let mut t = now;
        let maintenance = &self.maintenance;
        let mut place = |g: u32, w: SimTime, ends: &mut BinaryHeap<Reverse<(SimTime, u32)>>| -> SimTime {
            loop {
                while free < g {
                    let Some(Reverse((e, freed))) = ends.pop() else { break };
                    t = t.max(e);
                    free += freed;
                }
                // A job may not overlap a maintenance window: it waits for the window's
                // end, by which time every job started before it has ended.
                let i = maintenance.partition_point(|&(_, end)| end <= t);
                match maintenance.get(i) {
                    Some(&(start, end)) if start <= t || t.saturating_add(w) > start => {
                        t = end;
                        while let Some(&Reverse((e, freed))) = ends.peek() {
                            if e > t {
                                break;
                            }
                            ends.pop();
                            free += freed;
                        }
                    }
                    _ => break,
                }
            }
            let start = t;
            free = free.saturating_sub(g);
            ends.push(Reverse((start.saturating_add(w), g)));
            start
        };
        let mut b = self.background.entries.iter().filter(|e| e.alive).peekable();
        let mut gq = self.group.entries.iter().filter(|e| e.alive).peekable();
        loop {
            let next = match (b.peek(), gq.peek()) {
                (None, None) => break,
                (Some(_), None) => b.next(),
                (None, Some(_)) => gq.next(),
                (Some(x), Some(y)) => {
                    if x.seq < y.seq {
                        b.next()
                    } else {
                        gq.next()
                    }
                }
            }
            .expect("peeked");
            place(next.q.gpus, next.q.walltime, &mut ends);
        }
        place(gpus, walltime, &mut ends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campus(gpus: u32, scheduler: SchedulerKind) -> Campus {
        Campus {
            gpus,
            gpu_type: "test".into(),
            vram_gb: 80.0,
            scheduler,
            group_gpu_limit: Some(4),
            max_walltime: None,
            price_per_gpu_hour_cny: 0.0,
            maintenance: vec![],
        }
    }

    fn q(job: u32, gpus: u32, walltime: SimTime, group: bool) -> QueuedJob {
        QueuedJob { job, gpus, walltime, group }
    }

    fn ids(v: &[QueuedJob]) -> Vec<u32> {
        v.iter().map(|q| q.job).collect()
    }

    #[test]
    fn fcfs_never_lets_a_later_job_overtake_the_head() {
        let mut c = Cluster::new(&campus(8, SchedulerKind::Fcfs));
        let mut s = Vec::new();
        c.enqueue(q(0, 6, 100, false));
        c.schedule(0, &mut s);
        c.enqueue(q(1, 4, 100, false)); // does not fit: head
        c.enqueue(q(2, 1, 10, false)); // would fit, but FCFS
        c.schedule(1, &mut s);
        assert_eq!(ids(&s), vec![0]);
        c.finish(0, 100, 6, false);
        c.schedule(50, &mut s);
        assert_eq!(ids(&s), vec![0, 1, 2]);
    }

    #[test]
    fn easy_backfills_short_jobs_and_protects_the_reservation() {
        let mut c = Cluster::new(&campus(8, SchedulerKind::EasyBackfill));
        let mut s = Vec::new();
        c.enqueue(q(0, 6, 100, false));
        c.schedule(0, &mut s);
        c.enqueue(q(1, 8, 100, false)); // head: needs all 8 at 100, so extra 0
        c.enqueue(q(2, 1, 50, false)); // ends at 51 <= 100: backfill
        c.enqueue(q(3, 1, 500, false)); // ends after 100, extra 0: no
        c.schedule(1, &mut s);
        assert_eq!(ids(&s), vec![0, 2]);
        let r = c.reservation().unwrap();
        assert_eq!((r.job, r.shadow, r.extra), (1, 100, 0));
        // With a 4-GPU head, 4 GPUs are extra at the shadow: a long 1-GPU job may use them.
        let mut c = Cluster::new(&campus(8, SchedulerKind::EasyBackfill));
        let mut s = Vec::new();
        c.enqueue(q(0, 6, 100, false));
        c.enqueue(q(1, 4, 100, false));
        c.enqueue(q(2, 1, 500, false));
        c.schedule(0, &mut s);
        assert_eq!(ids(&s), vec![0, 2]);
        assert_eq!(c.reservation().unwrap().extra, 3);
    }

    #[test]
    fn the_group_limit_holds_group_jobs_without_blocking_others() {
        let mut c = Cluster::new(&campus(16, SchedulerKind::Fcfs));
        let mut s = Vec::new();
        c.enqueue(q(0, 4, 100, true));
        c.enqueue(q(1, 2, 100, true)); // held: group at its limit of 4
        c.enqueue(q(2, 2, 100, false));
        c.schedule(0, &mut s);
        assert_eq!(ids(&s), vec![0, 2]);
        assert_eq!(c.queued_group_jobs(), 1);
    }

    #[test]
    fn maintenance_keeps_jobs_from_crossing_a_window() {
        let mut cp = campus(8, SchedulerKind::EasyBackfill);
        cp.maintenance = vec![(100, 200)];
        let mut c = Cluster::new(&cp);
        let mut s = Vec::new();
        c.enqueue(q(0, 2, 50, false)); // ends at 50: fine
        c.enqueue(q(1, 2, 150, false)); // would cross the window: waits
        c.schedule(0, &mut s);
        assert_eq!(ids(&s), vec![0]);
        assert_eq!(c.reservation().unwrap().shadow, 200);
    }

    #[test]
    fn predicted_start_follows_walltime_ends_in_queue_order() {
        let mut c = Cluster::new(&campus(4, SchedulerKind::Fcfs));
        let mut s = Vec::new();
        c.enqueue(q(0, 4, 100, false));
        c.schedule(0, &mut s);
        c.enqueue(q(1, 2, 50, false));
        c.schedule(0, &mut s);
        // Job 1 starts at 100 (on 2 GPUs); a 3-GPU job needs job 1's GPUs back: 150.
        assert_eq!(c.predict_start(10, 3, 10), 150);
        assert_eq!(c.predict_start(10, 2, 10), 100);
    }
}
