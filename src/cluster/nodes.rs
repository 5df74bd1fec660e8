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
//!
//! **Reserved nodes** (recurring reservations of named nodes, `scenario::recurring`'s
//! `NodeWindows`) are known to all three: a job is placed now only on nodes none of whose
//! windows overlaps `[now, now + walltime request)`, and in a plan each window holds its
//! node whole (nothing is planned on the node across it), as Slurm keeps jobs outside a
//! reservation off its nodes when their time limit would overlap it. Without such
//! reservations none of this code runs.

use std::collections::VecDeque;

use super::job_map::JobMap;
use super::limits::Limits;
use super::placement::{Allocation, Nodes};
use super::plan::Plan;
use super::priority::PriorityState;
use super::queue::{Key, Queue, Waiting, Walk};
use super::request::{QueuedJob, Request};
use crate::scenario::shape::Shape;

mod exact_pass;
mod reserved;
mod slurm_pass;
use crate::scenario::Campus;
use crate::scenario::raw::{BfPlanner, SchedulerKind};
use crate::scenario::recurring::NodeWindows;
use crate::units::SimTime;

#[derive(Clone, Debug)]
struct Running {
    alloc: Allocation,
    end: SimTime,
    account: u16,
    gpus: u32,
    start: SimTime,
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
    /// Exact plan or Slurm's planner (`nodes/slurm_pass.rs`), and its `bf_resolution`.
    planner: BfPlanner,
    resolution: SimTime,
    maintenance: Vec<(SimTime, SimTime)>,
    /// MaxTime by time window (`scenario::recurring`; empty: none), shared with the plans.
    time_limits: std::sync::Arc<crate::scenario::recurring::TimeLimits>,
    /// Per-node reservation windows (empty: none, the default), shared with the Slurm plan.
    node_windows: std::sync::Arc<NodeWindows>,
    /// The longest walltime request ever queued: a plan blocks the windows that start
    /// before its horizon plus this (no job planned by then can reach a later one).
    longest_walltime: SimTime,
    partition_factor: Vec<f64>,
    max_per_node: Vec<u32>,
    limits: Limits,
    prio: PriorityState,
    /// Waiting jobs in priority order.
    queue: Queue,
    /// Per account: jobs waiting to be submitted (MaxSubmit).
    deferred: Vec<VecDeque<Waiting>>,
    running: JobMap<Running>,
    /// Per node: the running jobs' `(walltime end, GPUs)`, sorted (what a plan starts from).
    node_releases: Vec<Vec<(SimTime, u32)>>,
    /// Per account: its running jobs' `(walltime end, GPUs)`, sorted.
    account_running: Vec<Vec<(SimTime, u32)>>,
    /// Per node and per account: how many times its free GPUs or releases changed (the
    /// plan rebuilds only what changed since its last refresh).
    node_version: Vec<u64>,
    account_version: Vec<u64>,
    /// The plan of the last pass (kept: the next pass refreshes only what changed).
    plan: Plan,
    /// The forecast's own plan, kept the same way (a forecast is asked for at `&self`,
    /// hence the cell; it used to clone the pass's plan, every buffer of it, each time).
    forecast_plan: std::cell::RefCell<Plan>,
    /// The Slurm planner's map, rebuilt at each pass as Slurm does, in the buffers of the
    /// last pass (with `bf_planner = "slurm"`).
    slurm_plan: crate::cluster::slurm_planner::SlurmPlan,
    /// With the Slurm planner: the running jobs as `(walltime end, job)`, sorted, the
    /// order its map takes them in; kept at each start and end so that a pass does not
    /// sort them again (that sort was 8% of a Slurm-planner year). Empty otherwise.
    running_by_end: Vec<(SimTime, u32)>,
    /// Reused scratch: per-partition "blocked" flags and the queue walk of a pass.
    scratch_blocked: Vec<bool>,
    walk: Walk,
    seq: u64,
    queued_gpus: u64,
    /// GPUs × walltime request summed over the waiting jobs (deferred included), exactly.
    queued_gpu_secs: u128,
    queued_group: usize,
    /// Something changed since the last main pass / backfill pass.
    dirty_main: bool,
    /// The last main pass stopped with every partition blocked, at the jobs in
    /// `main_blockers` (per partition, the first job that did not fit), and nothing but
    /// arrivals changed since: a main pass would stop at the same jobs and start
    /// nothing, unless an arrival comes before its partition's blocker. Never set with
    /// time-of-day limits (a job can become over its MaxTime, skipped instead of
    /// blocking, as time passes).
    main_settled: bool,
    main_blockers: Vec<Key>,
    dirty_backfill: bool,
    /// Nodes that are down (failed or drained) and until when: `(node, until)`.
    down: Vec<(u32, SimTime)>,
    /// Waiting jobs that may not start before a time ([`NodeCluster::pin`]; empty
    /// outside the shared background's replays).
    pins: JobMap<SimTime>,
}

impl NodeCluster {
    /// An idle cluster.
    pub fn new(campus: &Campus) -> NodeCluster {
        let nodes = Nodes::new(&campus.node_groups, campus.partitions.len());
        let limits = Limits::new(&campus.accounts);
        let caps: Vec<_> = (0..campus.accounts.len()).map(|a| limits.caps(a as u16)).collect();
        let time_limits = std::sync::Arc::new(campus.time_limits.clone());
        let mut plan = Plan::empty(&nodes.nodes, caps, &campus.maintenance, campus.partitions.len());
        plan.set_time_limits(time_limits.clone());
        NodeCluster {
            node_releases: vec![Vec::new(); nodes.nodes.len()],
            account_running: vec![Vec::new(); campus.accounts.len()],
            node_version: vec![0; nodes.nodes.len()],
            account_version: vec![0; campus.accounts.len()],
            forecast_plan: std::cell::RefCell::new(plan.clone()),
            slurm_plan: Default::default(),
            running_by_end: Vec::new(),
            plan,
            scratch_blocked: Vec::new(),
            walk: Walk::default(),
            total: campus.gpus,
            busy: 0,
            nodes,
            scheduler: campus.scheduler,
            interval: campus.backfill.interval.max(1),
            max_job_test: campus.backfill.max_job_test,
            reservations: campus.backfill.reservations,
            window: campus.backfill.window,
            planner: campus.backfill.planner,
            resolution: campus.backfill.resolution,
            maintenance: campus.maintenance.clone(),
            time_limits,
            node_windows: std::sync::Arc::new(campus.node_windows.clone()),
            longest_walltime: 0,
            partition_factor: campus.partitions.iter().map(|p| p.priority_factor).collect(),
            max_per_node: campus.partitions.iter().map(|p| p.max_gpus_per_node).collect(),
            limits,
            prio: PriorityState::new(campus),
            queue: Queue::new(campus.accounts.len()),
            deferred: vec![VecDeque::new(); campus.accounts.len()],
            running: JobMap::default(),
            seq: 0,
            queued_gpus: 0,
            queued_gpu_secs: 0,
            queued_group: 0,
            dirty_main: false,
            main_settled: false,
            main_blockers: Vec::new(),
            dirty_backfill: false,
            down: Vec::new(),
            pins: JobMap::default(),
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
    /// GPUs × walltime requests of the waiting jobs (deferred submissions included), as
    /// `queued_jobs().map(|q| f64::from(q.gpus) * q.walltime as f64).sum()` gives it, in
    /// O(1) instead of O(Q) (balking asks at every arrival). Bit-identical: every term and
    /// every partial sum is an integer, so while the total is at most 2^53 each addition
    /// of that sum is exact, in any order, and equals the integer total; above that, the
    /// sum is computed as written.
    pub fn queued_gpu_secs(&self) -> f64 {
        if self.queued_gpu_secs <= 1 << f64::MANTISSA_DIGITS {
            self.queued_gpu_secs as f64
        } else {
            self.queued_jobs().map(|q| f64::from(q.gpus) * q.walltime as f64).sum()
        }
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
    /// The `(node, GPUs)` a running job holds.
    pub fn allocation(&self, job: u32) -> Option<&[(u32, u32)]> {
        self.running.get(&job).map(|r| r.alloc.as_slice())
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
        if self.prio.books_as_slurm() {
            // In job order, so that the sums do not depend on the map's order.
            let mut jobs: Vec<(u32, u16, u32, SimTime)> =
                self.running.iter().map(|(&j, r)| (j, r.account, r.gpus, r.start)).collect();
            jobs.sort_unstable();
            self.prio.book_as_slurm(now, jobs.iter().map(|&(_, a, g, s)| (a, g, s)));
            return;
        }
        let limits = &self.limits;
        self.prio.accrue(now, |a| limits.usage(a as u16).gpus);
    }

    fn waiting(&mut self, now: SimTime, q: QueuedJob, req: Request) -> Waiting {
        self.seq += 1;
        let shape = self.shape(q.gpus, &req);
        let priority =
            self.prio.priority(now, now, q.gpus, req.account, self.partition_factor[usize::from(req.partition)]);
        Waiting { q, req, shape, since: now, seq: self.seq, priority }
    }

    fn insert(&mut self, w: Waiting) {
        self.queue.insert(w);
        self.limits.submitted(w.req.account);
        // The main pass would stop at its partition's blocker again, before this job.
        if !(self.main_settled && self.main_blockers[usize::from(w.req.partition)] < w.key()) {
            self.dirty_main = true;
        }
        // A new job changes what backfill can start only if it could start now itself:
        // its reservation, were it to get one, would only restrict the others.
        if self.nodes.fits(w.req.partition, w.shape) {
            self.dirty_backfill = true;
        }
    }

    /// Submits a job at `now` (or defers it while its account is at `MaxSubmit`).
    pub fn enqueue(&mut self, now: SimTime, q: QueuedJob, req: Request) {
        self.accrue(now);
        let w = self.waiting(now, q, req);
        self.longest_walltime = self.longest_walltime.max(q.walltime);
        self.queued_gpus += u64::from(q.gpus);
        self.queued_gpu_secs += u128::from(q.gpus) * u128::from(q.walltime);
        if q.group {
            self.queued_group += 1;
        }
        if self.limits.may_submit(req.account) {
            self.insert(w);
        } else {
            self.deferred[usize::from(req.account)].push_back(w);
        }
    }

    /// Forbids the schedulers to start a waiting job before `not_before`. Until then it is
    /// an ordinary waiting job (it blocks its partition when it does not fit, backfill
    /// reserves it where the plan puts it, the forecast plans it) except where a scheduler
    /// would start it early: there it is passed over, neither started nor blocking nor
    /// reserved. The shared background's replay of a recorded start (`engine/shared.rs`):
    /// the other groups' jobs stay visible to the group's jobs, with their priority and
    /// reservations, and none starts before the reference run started it.
    pub fn pin(&mut self, job: u32, not_before: SimTime) {
        self.pins.insert(job, not_before);
    }

    /// Whether a waiting job is pinned past `now` (see [`NodeCluster::pin`]).
    fn pinned(&self, job: u32, now: SimTime) -> bool {
        !self.pins.is_empty() && self.pins.get(&job).is_some_and(|&t| t > now)
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
        self.queued_gpu_secs -= u128::from(w.q.gpus) * u128::from(w.q.walltime);
        if w.q.group {
            self.queued_group -= 1;
        }
    }

    /// Removes a waiting job (overflow to the cloud). False if it is not waiting.
    pub fn withdraw(&mut self, now: SimTime, job: u32) -> bool {
        if !self.pins.is_empty() {
            self.pins.remove(&job);
        }
        if let Some(w) = self.queue.remove(job) {
            self.forget(&w);
            self.limits.withdrawn(w.req.account);
            self.main_settled = false;
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
        if self.planner == BfPlanner::Slurm {
            remove_sorted(&mut self.running_by_end, (r.end, job));
        }
        for &(n, g) in &r.alloc {
            remove_sorted(&mut self.node_releases[n as usize], (r.end, g));
            self.node_version[n as usize] += 1;
        }
        remove_sorted(&mut self.account_running[usize::from(r.account)], (r.end, r.gpus));
        self.account_version[usize::from(r.account)] += 1;
        self.nodes.give_back(&r.alloc);
        self.busy -= r.alloc.iter().map(|a| a.1).sum::<u32>();
        self.limits.ended(r.account, r.gpus);
        self.main_settled = false;
        self.release_deferred(now, r.account);
        self.dirty_main = true;
        self.dirty_backfill = true;
    }

    /// The running jobs holding GPUs on a node, in job order.
    pub fn jobs_on_node(&self, node: u32) -> Vec<u32> {
        let mut v: Vec<u32> =
            self.running.iter().filter(|(_, r)| r.alloc.iter().any(|a| a.0 == node)).map(|(&j, _)| j).collect();
        v.sort_unstable();
        v
    }

    /// Takes a node out of service until `until` (a failure's repair, a drain's end):
    /// nothing is placed or planned on it. Its running jobs go on (the engine kills those
    /// of a failed node first).
    pub fn set_node_down(&mut self, node: u32, until: SimTime) {
        self.nodes.set_down(node, true);
        match self.down.iter_mut().find(|d| d.0 == node) {
            Some(d) => d.1 = until,
            None => self.down.push((node, until)),
        }
        self.down.sort_unstable();
        self.invalidate();
    }

    /// Puts a node back in service.
    pub fn set_node_up(&mut self, node: u32) {
        self.nodes.set_down(node, false);
        self.down.retain(|d| d.0 != node);
        self.invalidate();
    }

    /// Marks that something outside the queue changed (maintenance ended).
    pub fn invalidate(&mut self) {
        self.main_settled = false;
        self.dirty_main = true;
        self.dirty_backfill = true;
    }

    fn start(&mut self, now: SimTime, w: &Waiting, alloc: Allocation, started: &mut Vec<QueuedJob>) {
        // A start can put a blocker's account at its limit: then it is skipped, not
        // blocking, and a main pass may start the job behind it.
        self.main_settled = false;
        if !self.pins.is_empty() {
            self.pins.remove(&w.q.job);
        }
        self.accrue(now);
        self.nodes.take(&alloc);
        let held: u32 = alloc.iter().map(|a| a.1).sum();
        self.busy += held;
        debug_assert!(self.busy <= self.total, "invariant: GPUs in use never exceed the cluster");
        self.limits.started(w.req.account, held);
        self.forget(w);
        let end = now.saturating_add(w.q.walltime);
        for &(n, g) in &alloc {
            insert_sorted(&mut self.node_releases[n as usize], (end, g));
            self.node_version[n as usize] += 1;
        }
        insert_sorted(&mut self.account_running[usize::from(w.req.account)], (end, held));
        if self.planner == BfPlanner::Slurm {
            insert_sorted(&mut self.running_by_end, (end, w.q.job));
        }
        self.account_version[usize::from(w.req.account)] += 1;
        self.running.insert(w.q.job, Running { alloc, end, account: w.req.account, gpus: held, start: now });
        started.push(w.q);
    }

    /// True when maintenance (or the time window in force) forbids starting a job with
    /// this walltime now.
    fn maintenance_blocks(&self, now: SimTime, walltime: SimTime) -> bool {
        super::windows::blocks(&self.maintenance, now, walltime) || !self.time_limits.may_start(now, walltime)
    }

    /// Over the MaxTime of the window in force: skipped as Slurm skips a job pending on
    /// `PartitionTimeLimit`, until a window allows it.
    fn over_time_limit(&self, now: SimTime, walltime: SimTime) -> bool {
        !self.time_limits.within_max(now, walltime)
    }

    /// Recomputes every queued job's priority and re-sorts the queue (PriorityCalcPeriod).
    fn recompute_priorities(&mut self, now: SimTime) {
        self.accrue(now);
        let fairshare = self.prio.fairshare_factors();
        let (prio, factors) = (&self.prio, &self.partition_factor);
        self.queue.reorder(|w| {
            prio.priority_with(
                now,
                w.since,
                w.q.gpus,
                fairshare[usize::from(w.req.account)],
                factors[usize::from(w.req.partition)],
            )
        });
        // A new order may let the main scheduler start a job; backfill runs again on the
        // next change of capacity (a new order moves reservations but frees nothing).
        self.main_settled = false;
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
        } else {
            debug_assert!(
                !(self.main_settled && self.main_pass_would_start(now)),
                "invariant: a main pass skipped for arrivals behind the blockers would start nothing"
            );
        }
        if self.scheduler == SchedulerKind::EasyBackfill && self.dirty_backfill && now.is_multiple_of(self.interval) {
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

    /// Whether account `a`'s jobs may be visited by a pass: its limit does not hold even
    /// a 1-GPU job (GPUs or running jobs at the cap). Otherwise it is skipped whole.
    fn open(&self, a: usize) -> bool {
        self.limits.hold(a as u16, 1).is_none()
    }

    /// The queue walk from the front, from the reused scratch buffer (give it back with
    /// `self.walk = walk`).
    fn walk_from_front(&mut self) -> Walk {
        let mut walk = std::mem::take(&mut self.walk);
        walk.restart(&self.queue, |a| self.open(a));
        walk
    }

    fn main_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        self.main_settled = false;
        if self.busy == self.total || self.queue.is_empty() {
            return; // the walk below would stop at its first job
        }
        let mut blocked = std::mem::take(&mut self.scratch_blocked);
        blocked.clear();
        blocked.resize(self.max_per_node.len(), false);
        self.main_blockers.resize(blocked.len(), Key::FIRST);
        // A pass that met a pinned job does not settle: the pin ends with time, not with
        // a change the settled check watches.
        let mut pin_blocked = false;
        let mut walk = self.walk_from_front();
        while let Some(a) = walk.next() {
            if self.busy == self.total || blocked.iter().all(|&b| b) {
                break;
            }
            let w = *walk.job(&self.queue, a);
            let p = usize::from(w.req.partition);
            if blocked[p]
                || self.limits.hold(w.req.account, self.allocated_gpus(&w)).is_some()
                || self.over_time_limit(now, w.q.walltime)
            {
                walk.skip(&self.queue, a, self.open(a));
                continue;
            }
            let pinned = self.pinned(w.q.job, now);
            pin_blocked |= pinned;
            // Pinned and able to start now: passed over, not blocking (blocking would keep
            // GPUs idle that the exact model's background would fill, and delay the group's
            // jobs behind it; docs/VALIDATION.md "Shared background" measured both rules).
            if pinned && !self.maintenance_blocks(now, w.q.walltime) && self.place_now(now, &w).is_some() {
                walk.skip(&self.queue, a, self.open(a));
                continue;
            }
            if !self.maintenance_blocks(now, w.q.walltime)
                && !pinned
                && let Some(alloc) = self.place_now(now, &w)
            {
                walk.take(&mut self.queue, a); // the cursor now points at the next
                self.start(now, &w, alloc, started);
                walk.refresh(&self.queue, a, self.open(a));
                continue;
            }
            blocked[p] = true;
            self.main_blockers[p] = w.key();
            walk.skip(&self.queue, a, self.open(a));
        }
        self.main_settled = blocked.iter().all(|&b| b) && self.time_limits.is_empty() && !pin_blocked;
        self.scratch_blocked = blocked;
        self.walk = walk;
    }

    /// Whether a main pass now would start a job: a dry run in queue order, for the debug
    /// check that the passes `main_settled` skips start nothing.
    fn main_pass_would_start(&self, now: SimTime) -> bool {
        if self.busy == self.total {
            return false;
        }
        let mut blocked = vec![false; self.max_per_node.len()];
        for w in self.queue.iter() {
            let p = usize::from(w.req.partition);
            if blocked.iter().all(|&b| b) {
                break;
            }
            if blocked[p]
                || self.limits.hold(w.req.account, self.allocated_gpus(w)).is_some()
                || self.over_time_limit(now, w.q.walltime)
            {
                continue;
            }
            if !self.maintenance_blocks(now, w.q.walltime)
                && !self.pinned(w.q.job, now)
                && self.place_now(now, w).is_some()
            {
                return true;
            }
            blocked[p] = true;
        }
        false
    }

    /// GPUs a job will hold (whole nodes for a multi-node job without a shape).
    fn allocated_gpus(&self, w: &Waiting) -> u32 {
        match w.shape {
            Shape::Whole(n) => n * self.max_per_node[usize::from(w.req.partition)],
            _ => w.q.gpus,
        }
    }
}

/// Inserts into a sorted list.
fn insert_sorted(v: &mut Vec<(SimTime, u32)>, x: (SimTime, u32)) {
    let i = v.partition_point(|y| *y < x);
    v.insert(i, x);
}

/// Removes one occurrence from a sorted list.
fn remove_sorted(v: &mut Vec<(SimTime, u32)>, x: (SimTime, u32)) {
    let i = v.partition_point(|y| *y < x);
    debug_assert!(v.get(i) == Some(&x), "invariant: a running job's release is listed once");
    v.remove(i);
}
