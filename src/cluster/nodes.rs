//! The campus as Slurm runs it: nodes and partitions ([`super::placement`]), a queue in
//! priority order ([`super::priority`]), association limits for every account
//! ([`super::limits`]), and two schedulers sharing one plan ([`super::plan`]).
//!
//! - **Main scheduler** (Slurm's main scheduling loop, run when jobs are submitted and when
//!   they end): walks the queue in priority order and starts each job that fits now;
//!   once a job of a partition does not fit, the lower-priority jobs of that partition
//!   wait (jobs held by a limit are skipped and block nobody).
//! - **Backfill** (`sched/backfill`, every `bf_interval` when something changed): walks
//!   the queue in priority order, testing at most `bf_max_job_test` jobs that no limit
//!   holds; each gets its earliest start in the plan and a reservation from then (within
//!   `bf_window`); those whose earliest start is now are started. Every tested job is
//!   reserved, as Slurm does, so no backfilled job delays any job planned before it.
//!   Jobs a limit holds are skipped, as Slurm skips them.
//! - **Forecast** (what `squeue --start` would show for a job submitted now): the same
//!   plan, walked over the jobs ahead of it in priority order, *including* those held by
//!   limits (planned to start when their account's running jobs end), so that a group at
//!   its GPU limit is told it will wait; then the new job's earliest start.
//!
//! Every reservation uses walltime requests, never true runtimes, so the forecast is as
//! pessimistic as users' requests are generous.

use std::collections::{HashMap, VecDeque};

use super::limits::Limits;
use super::placement::{Allocation, Nodes, Shape};
use super::plan::{Ask, Held, Plan};
use super::priority::PriorityState;
use super::{QueuedJob, Request};
use crate::scenario::Campus;
use crate::scenario::raw::SchedulerKind;
use crate::units::SimTime;

/// A waiting job.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    q: QueuedJob,
    req: Request,
    shape: Shape,
    /// Eligible since (submission, or re-queue after a walltime kill).
    since: SimTime,
    seq: u64,
    priority: f64,
}

impl Waiting {
    /// Queue order: higher priority first, then earlier submission.
    fn before(&self, other: &Waiting) -> bool {
        (self.priority, std::cmp::Reverse(self.seq)) > (other.priority, std::cmp::Reverse(other.seq))
    }
}

#[derive(Clone, Debug)]
struct Running {
    alloc: Allocation,
    end: SimTime,
    account: u16,
    gpus: u32,
}

/// The node cluster's state.
#[derive(Debug)]
pub struct NodeCluster {
    total: u32,
    busy: u32,
    nodes: Nodes,
    scheduler: SchedulerKind,
    interval: SimTime,
    max_job_test: u32,
    reservations: u32,
    window: SimTime,
    maintenance: Vec<(SimTime, SimTime)>,
    partition_factor: Vec<f64>,
    max_per_node: Vec<u32>,
    limits: Limits,
    prio: PriorityState,
    /// Waiting jobs in priority order.
    queue: Vec<Waiting>,
    /// Per account: jobs waiting to be submitted (MaxSubmit).
    deferred: Vec<VecDeque<Waiting>>,
    running: HashMap<u32, Running>,
    seq: u64,
    queued_gpus: u64,
    queued_group: usize,
    /// Something changed since the last main pass / backfill pass.
    dirty_main: bool,
    dirty_backfill: bool,
}

impl NodeCluster {
    /// An idle cluster.
    pub fn new(campus: &Campus) -> NodeCluster {
        let nodes = Nodes::new(&campus.node_groups, campus.partitions.len());
        NodeCluster {
            total: campus.gpus,
            busy: 0,
            nodes,
            scheduler: campus.scheduler,
            interval: campus.backfill.interval.max(1),
            max_job_test: campus.backfill.max_job_test,
            reservations: campus.backfill.reservations,
            window: campus.backfill.window,
            maintenance: campus.maintenance.clone(),
            partition_factor: campus.partitions.iter().map(|p| p.priority_factor).collect(),
            max_per_node: campus.partitions.iter().map(|p| p.max_gpus_per_node).collect(),
            limits: Limits::new(&campus.accounts),
            prio: PriorityState::new(campus),
            queue: Vec::new(),
            deferred: vec![VecDeque::new(); campus.accounts.len()],
            running: HashMap::new(),
            seq: 0,
            queued_gpus: 0,
            queued_group: 0,
            dirty_main: false,
            dirty_backfill: false,
        }
    }

    /// Total GPUs.
    pub fn total(&self) -> u32 {
        self.total
    }
    /// GPUs in use.
    pub fn busy(&self) -> u32 {
        self.busy
    }
    /// GPUs requested by waiting jobs (deferred submissions included).
    pub fn queued_gpus(&self) -> u64 {
        self.queued_gpus
    }
    /// Waiting jobs.
    pub fn queue_len(&self) -> usize {
        self.queue.len() + self.deferred.iter().map(VecDeque::len).sum::<usize>()
    }
    /// Waiting group jobs.
    pub fn queued_group_jobs(&self) -> usize {
        self.queued_group
    }
    /// The waiting jobs (queue, then deferred submissions).
    pub fn queued_jobs(&self) -> impl Iterator<Item = &QueuedJob> {
        self.queue.iter().map(|w| &w.q).chain(self.deferred.iter().flatten().map(|w| &w.q))
    }
    /// The shape a request has on this cluster.
    pub fn shape(&self, gpus: u32, req: &Request) -> Shape {
        Shape::of(gpus, req.nodes, req.gpus_per_node, self.max_per_node[usize::from(req.partition)])
    }
    /// Whether a job could ever run (its shape fits its partition's nodes).
    pub fn could_ever_fit(&self, gpus: u32, req: &Request) -> bool {
        self.nodes.could_ever_fit(req.partition, self.shape(gpus, req))
    }

    fn accrue(&mut self, now: SimTime) {
        let usage: Vec<u32> = (0..self.deferred.len()).map(|a| self.limits.usage(a as u16).gpus).collect();
        self.prio.accrue(now, |a| usage[a]);
    }

    fn waiting(&mut self, now: SimTime, q: QueuedJob, req: Request) -> Waiting {
        self.seq += 1;
        let shape = self.shape(q.gpus, &req);
        let priority = self.prio.priority(now, now, q.gpus, req.account, self.partition_factor[usize::from(req.partition)]);
        Waiting { q, req, shape, since: now, seq: self.seq, priority }
    }

    fn insert(&mut self, w: Waiting) {
        let at = self.queue.partition_point(|x| x.before(&w));
        self.queue.insert(at, w);
        self.limits.submitted(w.req.account);
        self.dirty_main = true;
        // A new job changes what backfill can start only if it could start now itself:
        // its reservation, were it to get one, would only restrict the others.
        if self.nodes.place(w.req.partition, w.shape).is_some() {
            self.dirty_backfill = true;
        }
    }

    /// Submits a job at `now` (or defers it while its account is at `MaxSubmit`).
    pub fn enqueue(&mut self, now: SimTime, q: QueuedJob, req: Request) {
        self.accrue(now);
        let w = self.waiting(now, q, req);
        self.queued_gpus += u64::from(q.gpus);
        if q.group {
            self.queued_group += 1;
        }
        if self.limits.may_submit(req.account) {
            self.insert(w);
        } else {
            self.deferred[usize::from(req.account)].push_back(w);
        }
    }

    /// Submits deferred jobs of an account while it is under `MaxSubmit`.
    fn release_deferred(&mut self, now: SimTime, account: u16) {
        while self.limits.may_submit(account) {
            let Some(mut w) = self.deferred[usize::from(account)].pop_front() else { break };
            w.since = now;
            w.priority =
                self.prio.priority(now, now, w.q.gpus, account, self.partition_factor[usize::from(w.req.partition)]);
            self.insert(w);
        }
    }

    fn forget(&mut self, w: &Waiting) {
        self.queued_gpus -= u64::from(w.q.gpus);
        if w.q.group {
            self.queued_group -= 1;
        }
    }

    /// Removes a waiting job (overflow to the cloud). False if it is not waiting.
    pub fn withdraw(&mut self, now: SimTime, job: u32) -> bool {
        if let Some(i) = self.queue.iter().position(|w| w.q.job == job) {
            let w = self.queue.remove(i);
            self.forget(&w);
            self.limits.withdrawn(w.req.account);
            self.release_deferred(now, w.req.account);
            self.dirty_main = true;
            self.dirty_backfill = true;
            return true;
        }
        for d in 0..self.deferred.len() {
            if let Some(i) = self.deferred[d].iter().position(|w| w.q.job == job) {
                let w = self.deferred[d].remove(i).expect("found");
                self.forget(&w);
                return true;
            }
        }
        false
    }

    /// Releases a finished (or walltime-killed) job's GPUs.
    pub fn finish(&mut self, now: SimTime, job: u32) {
        self.accrue(now);
        let r = self.running.remove(&job).expect("invariant: only running jobs finish");
        self.nodes.give_back(&r.alloc);
        self.busy -= r.alloc.iter().map(|a| a.1).sum::<u32>();
        self.limits.ended(r.account, r.gpus);
        self.release_deferred(now, r.account);
        self.dirty_main = true;
        self.dirty_backfill = true;
    }

    /// Marks that something outside the queue changed (maintenance ended).
    pub fn invalidate(&mut self) {
        self.dirty_main = true;
        self.dirty_backfill = true;
    }

    fn start(&mut self, now: SimTime, w: &Waiting, alloc: Allocation, started: &mut Vec<QueuedJob>) {
        self.accrue(now);
        self.nodes.take(&alloc);
        let held: u32 = alloc.iter().map(|a| a.1).sum();
        self.busy += held;
        debug_assert!(self.busy <= self.total, "invariant: GPUs in use never exceed the cluster");
        self.limits.started(w.req.account, held);
        self.forget(w);
        self.running.insert(w.q.job, Running { alloc, end: now.saturating_add(w.q.walltime), account: w.req.account, gpus: held });
        started.push(w.q);
    }

    /// True when maintenance forbids starting a job with this walltime now.
    fn maintenance_blocks(&self, now: SimTime, walltime: SimTime) -> bool {
        let i = self.maintenance.partition_point(|&(_, end)| end <= now);
        match self.maintenance.get(i) {
            Some(&(start, _)) => start <= now || now.saturating_add(walltime) > start,
            None => false,
        }
    }

    /// Recomputes every queued job's priority and re-sorts the queue (PriorityCalcPeriod).
    fn recompute_priorities(&mut self, now: SimTime) {
        self.accrue(now);
        for w in &mut self.queue {
            w.priority =
                self.prio.priority(now, w.since, w.q.gpus, w.req.account, self.partition_factor[usize::from(w.req.partition)]);
        }
        self.queue.sort_by(|a, b| b.priority.total_cmp(&a.priority).then(a.seq.cmp(&b.seq)));
        // A new order may let the main scheduler start a job; backfill runs again on the
        // next change of capacity (a new order moves reservations but frees nothing).
        self.dirty_main = true;
    }

    /// Runs the schedulers that are due at `now`; appends started jobs to `started`.
    pub fn schedule(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        if self.prio.take_due(now) && !self.queue.is_empty() {
            self.recompute_priorities(now);
        }
        if self.dirty_main {
            self.main_pass(now, started);
            self.dirty_main = false;
        }
        if self.scheduler == SchedulerKind::EasyBackfill && self.dirty_backfill && now % self.interval == 0 {
            self.backfill_pass(now, started);
            self.dirty_backfill = false;
        }
    }

    /// When the cluster next needs `schedule` although no job arrives or ends: the next
    /// backfill tick after a change, or the next priority recomputation while jobs wait.
    pub fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        let mut next = None::<SimTime>;
        if self.scheduler == SchedulerKind::EasyBackfill && self.dirty_backfill && !self.queue.is_empty() {
            next = Some((now / self.interval + 1) * self.interval);
        }
        if self.prio.is_multifactor() && !self.queue.is_empty() {
            let c = self.prio.next_calc().max(now + 1);
            next = Some(next.map_or(c, |n| n.min(c)));
        }
        next
    }

    fn main_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        let mut blocked = vec![false; self.max_per_node.len()];
        let mut i = 0;
        while i < self.queue.len() {
            if self.busy == self.total || blocked.iter().all(|&b| b) {
                break;
            }
            let w = self.queue[i];
            let p = usize::from(w.req.partition);
            if blocked[p] || self.limits.hold(w.req.account, self.allocated_gpus(&w)).is_some() {
                i += 1;
                continue;
            }
            if !self.maintenance_blocks(now, w.q.walltime)
                && let Some(a) = self.nodes.place(w.req.partition, w.shape)
            {
                self.queue.remove(i);
                self.start(now, &w, a, started);
                continue;
            }
            blocked[p] = true;
            i += 1;
        }
    }

    /// GPUs a job will hold (whole nodes for a multi-node job without a shape).
    fn allocated_gpus(&self, w: &Waiting) -> u32 {
        match w.shape {
            Shape::Whole(n) => n * self.max_per_node[usize::from(w.req.partition)],
            _ => w.q.gpus,
        }
    }

    fn plan(&self, now: SimTime, horizon: SimTime) -> Plan {
        let releases =
            self.running.values().flat_map(|r| r.alloc.iter().map(move |&(n, g)| (n, r.end, g)));
        let held = self.running.values().map(|r| Held { end: r.end, account: r.account, gpus: r.gpus });
        let caps = (0..self.deferred.len()).map(|a| self.limits.caps(a as u16)).collect();
        Plan::new(now, horizon, &self.nodes.nodes, releases, held, caps, &self.maintenance, self.max_per_node.len())
    }

    fn ask(&self, w: &Waiting) -> Ask {
        Ask {
            partition: w.req.partition,
            shape: w.shape,
            walltime: w.q.walltime,
            account: w.req.account,
            gpus: self.allocated_gpus(w),
        }
    }

    fn backfill_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        if self.queue.is_empty() || self.busy == self.total {
            return;
        }
        // A pass can only start jobs that fit the free GPUs now; when none of the jobs it
        // would test does, it would only make reservations, which change nothing until
        // the next pass recomputes them. Skip it (same starts, far less work).
        let could_start = self
            .queue
            .iter()
            .filter(|w| self.limits.hold(w.req.account, self.allocated_gpus(w)).is_none())
            .take(self.max_job_test as usize)
            .any(|w| !self.maintenance_blocks(now, w.q.walltime) && self.nodes.place(w.req.partition, w.shape).is_some());
        if !could_start {
            return;
        }

        let mut plan = self.plan(now, now.saturating_add(self.window));
        let (mut tested, mut reserved) = (0u32, 0u32);
        let mut i = 0;
        while i < self.queue.len() && tested < self.max_job_test {
            let w = self.queue[i];
            if self.limits.hold(w.req.account, self.allocated_gpus(&w)).is_some() {
                i += 1;
                continue;
            }
            tested += 1;
            let ask = self.ask(&w);
            // The first `bf_reservations` jobs get their earliest start and a reservation;
            // later ones are only tested for a start now that delays none of those.
            let found = if reserved < self.reservations { plan.earliest(&ask) } else { plan.start_now(&ask) };
            match found {
                Some((t, alloc)) if t == now => {
                    plan.reserve(t, &alloc, &ask);
                    self.queue.remove(i);
                    self.start(now, &w, alloc, started);
                    if self.busy == self.total || !plan.any_free_now_anywhere() {
                        return;
                    }
                    continue;
                }
                Some((t, alloc)) => {
                    plan.reserve(t, &alloc, &ask);
                    reserved += 1;
                }
                None => {}
            }
            i += 1;
        }
    }

    /// What `squeue --start` would show for a job submitted now: its start in the plan,
    /// after every job ahead of it in priority order (limit-held ones included). Exact
    /// when it is at most `limit`; `SimTime::MAX` when it cannot start by then (or by the
    /// backfill window, whichever is later), or when more than `bf_max_job_test` jobs are
    /// ahead of it (Slurm gives such a job no estimate).
    pub fn predict_start(&self, now: SimTime, q: QueuedJob, req: Request, limit: SimTime) -> SimTime {
        let shape = self.shape(q.gpus, &req);
        let priority = self.prio.priority(now, now, q.gpus, req.account, self.partition_factor[usize::from(req.partition)]);
        let me = Waiting { q, req, shape, since: now, seq: self.seq + 1, priority };
        let horizon = limit.max(now.saturating_add(self.window));
        let mut plan = self.plan(now, horizon);
        let mut ahead = 0u32;
        for w in self.queue.iter().take_while(|w| w.before(&me)) {
            ahead += 1;
            if ahead > self.max_job_test {
                return SimTime::MAX;
            }
            let ask = self.ask(w);
            if let Some((t, alloc)) = plan.earliest(&ask) {
                plan.reserve(t, &alloc, &ask);
            }
        }
        plan.earliest(&self.ask(&me)).map_or(SimTime::MAX, |(t, _)| t)
    }
}
