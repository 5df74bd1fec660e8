//! The pool model of the campus: identical GPUs, the waiting queue in submission order,
//! and the scheduler (FCFS or EASY backfill). This is the queueing-theory model (M/M/c
//! validation runs on it); `placement = "nodes"` uses [`super::nodes`] instead.
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
//! Cost of a scheduling pass. After a job ends, a full pass starts the head jobs that fit
//! (O(1) each), computes the head's reservation (O(R) over the R running jobs, at most one
//! per GPU) and then looks for backfill candidates through an index of the waiting jobs
//! by GPU count and walltime request (`lanes`): O(S log Q) per candidate for S distinct
//! GPU counts and Q waiting jobs, plus a scan of the group's own waiting jobs (few), instead
//! of a scan of the whole queue. When only new submissions arrived since the last pass,
//! the cached reservation stays valid and only the new jobs are checked (O(1) each).

mod lanes;
mod predict;

use std::collections::{BTreeSet, VecDeque};

use lanes::{SizeLanes, Slot};

use super::request::QueuedJob;
use crate::scenario::Campus;
use crate::scenario::raw::SchedulerKind;
use crate::scenario::recurring::TimeLimits;
use crate::units::SimTime;

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

/// A waiting job and where it sits in the queue.
#[derive(Clone, Copy, Debug)]
enum Waiting {
    Background(Slot),
    Group(usize, u64, QueuedJob),
}

impl Waiting {
    fn seq(&self) -> u64 {
        match self {
            Waiting::Background(s) => s.seq,
            Waiting::Group(_, seq, _) => *seq,
        }
    }
    fn q(&self) -> QueuedJob {
        match self {
            Waiting::Background(s) => s.q,
            Waiting::Group(_, _, q) => *q,
        }
    }
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
pub struct PoolCluster {
    total: u32,
    free: u32,
    group_used: u32,
    group_limit: u32,
    scheduler: SchedulerKind,
    maintenance: Vec<(SimTime, SimTime)>,
    /// MaxTime by time window (empty: none): a job over it is skipped, and one that must
    /// end in its window and cannot is blocked as by maintenance ahead.
    time_limits: TimeLimits,
    background: SizeLanes,
    group: Lane,
    seq: u64,
    /// Running jobs keyed by (walltime end, job, gpus); kept only when something reads it
    /// (EASY reservations, wait predictions): under FCFS without predictions it is 19% of
    /// the run time for nothing (`burstsim bench --only fcfs`).
    running: BTreeSet<(SimTime, u32, u32)>,
    track_running: bool,
    queued_gpus: u64,
    blocked: Blocked,
    /// A job ended or left the queue since the last full pass.
    needs_full_pass: bool,
    /// Jobs enqueued since the last pass.
    arrivals: Vec<QueuedJob>,
}

impl PoolCluster {
    /// An idle cluster that keeps the running jobs' walltime ends for EASY and for
    /// [`PoolCluster::predict_start`].
    pub fn new(campus: &Campus) -> PoolCluster {
        PoolCluster::with_tracking(campus, true)
    }

    /// An idle cluster; `track_running = false` (FCFS only, no wait predictions) skips
    /// the bookkeeping of walltime ends.
    pub fn with_tracking(campus: &Campus, track_running: bool) -> PoolCluster {
        let track_running = track_running || campus.scheduler == SchedulerKind::EasyBackfill;
        PoolCluster {
            total: campus.gpus,
            free: campus.gpus,
            group_used: 0,
            group_limit: campus.group_gpu_limit.unwrap_or(u32::MAX),
            scheduler: campus.scheduler,
            maintenance: campus.maintenance.clone(),
            time_limits: campus.time_limits.clone(),
            background: SizeLanes::default(),
            group: Lane::default(),
            seq: 0,
            running: BTreeSet::new(),
            track_running,
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
        self.background.live() + self.group.live
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
        self.background.iter().map(|(_, q)| q).chain(self.group.entries.iter().filter(|e| e.alive).map(|e| &e.q))
    }

    /// Adds a job at the back of the queue.
    pub fn enqueue(&mut self, q: QueuedJob) {
        self.seq += 1;
        if q.group {
            self.group.push(Entry { seq: self.seq, q, alive: true });
        } else {
            self.background.push(self.seq, q);
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
        if self.track_running {
            let removed = self.running.remove(&(walltime_end, job, gpus));
            debug_assert!(removed, "invariant: only running jobs finish");
        }
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
    /// Also true when the time window in force keeps it from starting now.
    fn maintenance_blocks(&self, now: SimTime, walltime: SimTime) -> bool {
        super::windows::blocks(&self.maintenance, now, walltime) || !self.time_limits.may_start(now, walltime)
    }

    fn start(&mut self, now: SimTime, q: QueuedJob, started: &mut Vec<QueuedJob>) {
        debug_assert!(q.gpus <= self.free, "invariant: a job starts only on free GPUs");
        self.free -= q.gpus;
        if q.group {
            self.group_used += q.gpus;
        }
        self.queued_gpus -= u64::from(q.gpus);
        if self.track_running {
            self.running.insert((now.saturating_add(q.walltime), q.job, q.gpus));
        }
        started.push(q);
    }

    fn held(&self, q: &QueuedJob) -> bool {
        q.group && self.group_used + q.gpus > self.group_limit
    }

    /// Held by the group limit, or asking more than the MaxTime of the window in force
    /// (Slurm's `PartitionTimeLimit`: skipped, blocking nobody, until a window allows it).
    fn skipped(&self, now: SimTime, q: &QueuedJob) -> bool {
        self.held(q) || !self.time_limits.within_max(now, q.walltime)
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
        let clear = super::windows::clear_from(&self.maintenance, head.walltime, shadow);
        if clear != shadow {
            shadow = clear;
            extra = self.total - head.gpus;
        }
        if !self.time_limits.is_empty() {
            (shadow, extra) = self.reserve_in_window(head, shadow, extra);
        }
        Reservation { job: head.job, gpus: head.gpus, group: head.group, shadow, extra }
    }

    /// The head's shadow moved to the first time both the time windows and maintenance
    /// allow it, with the GPUs free then (by walltime ends) beyond its own.
    fn reserve_in_window(&self, head: &QueuedJob, mut shadow: SimTime, mut extra: u32) -> (SimTime, u32) {
        loop {
            let t = self.time_limits.earliest_start(shadow, head.walltime);
            let t = super::windows::clear_from(&self.maintenance, head.walltime, t);
            if t == shadow {
                return (shadow, extra);
            }
            shadow = t;
            let ended: u32 = self.running.iter().take_while(|r| r.0 <= shadow).map(|r| r.2).sum();
            extra = (self.free + ended).saturating_sub(head.gpus).max(extra);
        }
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
            if self.skipped(now, q) {
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
                self.remove_queued(q);
                self.start(now, *q, started);
            }
        }
        self.arrivals = arrivals;
    }

    fn remove_queued(&mut self, q: &QueuedJob) {
        if q.group {
            // New arrivals sit at the back: search from there.
            let pos = self
                .group
                .entries
                .iter()
                .rposition(|e| e.alive && e.q.job == q.job)
                .expect("invariant: the job is queued");
            self.group.kill(pos);
        } else {
            let removed = self.background.remove_job(q.job, q.gpus);
            debug_assert!(removed, "invariant: the job is queued");
        }
    }

    /// The longest walltime a job may have to start now without overlapping maintenance;
    /// `None` during a window.
    fn maintenance_limit(&self, now: SimTime) -> Option<SimTime> {
        let i = self.maintenance.partition_point(|&(_, end)| end <= now);
        match self.maintenance.get(i) {
            Some(&(start, _)) if start <= now => None,
            Some(&(start, _)) => Some(start - now),
            None => Some(SimTime::MAX),
        }
    }

    /// The earliest waiting job not held by the group limit (nor over the MaxTime of the
    /// window in force).
    fn next_eligible(&self, now: SimTime) -> Option<Waiting> {
        let bg = match self.time_limits.at(now).and_then(|w| w.max) {
            None => self.background.front(),
            Some(max) => self.background.first_backfill(self.total, max, 0, 0),
        };
        let bg = bg.map(Waiting::Background);
        let gr = self
            .group
            .entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.alive && !self.skipped(now, &e.q))
            .map(|(pos, e)| Waiting::Group(pos, e.seq, e.q));
        match (bg, gr) {
            (Some(b), Some(g)) => Some(if b.seq() < g.seq() { b } else { g }),
            (b, g) => b.or(g),
        }
    }

    fn take(&mut self, w: Waiting) {
        match w {
            Waiting::Background(slot) => self.background.remove(slot),
            Waiting::Group(pos, _, _) => self.group.kill(pos),
        }
    }

    fn full_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        self.blocked = Blocked::Nothing;
        // Start the earliest eligible jobs while they fit; the first that does not is the head.
        while self.free > 0 {
            let Some(head) = self.next_eligible(now) else { break };
            let q = head.q();
            if q.gpus <= self.free && !self.maintenance_blocks(now, q.walltime) {
                self.take(head);
                self.start(now, q, started);
            } else {
                self.blocked = match self.scheduler {
                    SchedulerKind::Fcfs => Blocked::Fcfs,
                    SchedulerKind::EasyBackfill => Blocked::Easy(self.reserve(now, &q)),
                };
                break;
            }
        }
        if matches!(self.blocked, Blocked::Easy(_)) {
            self.backfill(now, started);
        }
        if self.free == 0 && self.blocked == Blocked::Nothing && self.queue_len() > 0 {
            // Nothing more can start until a job ends (which forces a full pass).
            self.blocked = Blocked::Fcfs;
        }
    }

    /// Starts, in queue order, every job that can run now without delaying the head's
    /// reservation. Each step asks the index for the earliest candidate; since every
    /// condition only tightens as jobs start, this starts exactly the jobs a scan of the
    /// queue in order would.
    fn backfill(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        while self.free > 0 {
            let Blocked::Easy(mut r) = self.blocked else { return };
            let Some(long) = self.maintenance_limit(now) else { return };
            let long = long.min(self.time_limits.longest_start(now).unwrap_or(SimTime::MAX));
            let short = r.shadow.saturating_sub(now).min(long);
            let bg =
                self.background.first_backfill(self.free, short, r.extra.min(self.free), long).map(Waiting::Background);
            let gr = self
                .group
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.alive && !self.skipped(now, &e.q))
                .find(|(_, e)| self.may_backfill(now, &e.q, &r).is_some())
                .map(|(pos, e)| Waiting::Group(pos, e.seq, e.q));
            let pick = match (bg, gr) {
                (Some(b), Some(g)) => {
                    if b.seq() < g.seq() {
                        b
                    } else {
                        g
                    }
                }
                (Some(b), None) => b,
                (None, Some(g)) => g,
                (None, None) => return,
            };
            let q = pick.q();
            debug_assert!(
                self.may_backfill(now, &q, &r).is_some(),
                "invariant: the index returns only valid candidates"
            );
            if now.saturating_add(q.walltime) > r.shadow {
                r.extra -= q.gpus;
                self.blocked = Blocked::Easy(r);
            }
            self.take(pick);
            self.start(now, q, started);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(super) fn campus(gpus: u32, scheduler: SchedulerKind) -> Campus {
        let s = match scheduler {
            SchedulerKind::Fcfs => "fcfs",
            SchedulerKind::EasyBackfill => "easy-backfill",
        };
        let text = format!(
            "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 1\n[campus]\ngpus = {gpus}\nvram_gb = 80\n\
             scheduler = \"{s}\"\ngroup_gpu_limit = 4\n[[workload.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
        );
        crate::scenario::Scenario::from_toml_str(&text, "pool-test.toml").expect("valid").campus
    }

    pub(super) fn q(job: u32, gpus: u32, walltime: SimTime, group: bool) -> QueuedJob {
        QueuedJob { job, gpus, walltime, group }
    }

    fn ids(v: &[QueuedJob]) -> Vec<u32> {
        v.iter().map(|q| q.job).collect()
    }

    #[test]
    fn fcfs_never_lets_a_later_job_overtake_the_head() {
        let mut c = PoolCluster::new(&campus(8, SchedulerKind::Fcfs));
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
        let mut c = PoolCluster::new(&campus(8, SchedulerKind::EasyBackfill));
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
        let mut c = PoolCluster::new(&campus(8, SchedulerKind::EasyBackfill));
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
        let mut c = PoolCluster::new(&campus(16, SchedulerKind::Fcfs));
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
        let mut c = PoolCluster::new(&cp);
        let mut s = Vec::new();
        c.enqueue(q(0, 2, 50, false)); // ends at 50: fine
        c.enqueue(q(1, 2, 150, false)); // would cross the window: waits
        c.schedule(0, &mut s);
        assert_eq!(ids(&s), vec![0]);
        assert_eq!(c.reservation().unwrap().shadow, 200);
    }
}
