//! Slurm 22.05's backfill planner (`campus.bf_planner = "slurm"`), beside the exact plan
//! of [`super::plan`].
//!
//! The exact plan gives a job that cannot start now the earliest time at which it fits
//! for its whole walltime. Slurm's `sched/backfill` plans differently, in two layers
//! (read from `src/plugins/sched/backfill/backfill.c` and
//! `src/plugins/select/cons_common/job_test.c` of Slurm 22.05; no code is taken from them):
//!
//! - **The backfill map** holds only *planned* jobs, node by node: a list of time records,
//!   each with the set of nodes no planned job holds then. A planned job's nodes leave the
//!   set from its start to its end, both rounded down to `bf_resolution`. Running jobs are
//!   not in the map.
//! - **The will-run test** of the node selection plugin gets the nodes the map leaves free
//!   over the job's window (from the time being tried, `start_res`, to `start_res` plus the
//!   walltime). If the job fits the free GPUs now on those nodes, it can start at
//!   `start_res`. Otherwise the plugin takes the running jobs on those nodes in order of
//!   their walltime ends and removes them **in groups**: the first group is every job
//!   ending up to 30 s after the first end rounded up to a multiple of 30 s; after each
//!   group the window doubles (until the next end falls inside it). After each group it
//!   tests the job again, and the job's start is the end of the **last** job of the first
//!   group after which it fits. So a job is planned later than its exact earliest start
//!   whenever the release it needed came early in its group.
//! - **Trying later.** While walking the map, the planner notes `later_start`: the end of
//!   the first record after which a node the job could not use becomes usable. When the
//!   job does not fit, or its planned start is after `later_start`, it is tried again from
//!   `later_start` (`TRY_LATER`). A planned start that overlaps a reservation on the chosen
//!   nodes is tried again from that start.
//! - **Placement** is cons_tres's best fit: nodes that can hold the job form runs of
//!   consecutive node numbers; the run with the fewest usable GPUs among those that hold the
//!   job is chosen (the first such on a tie), and in it the node with the fewest free GPUs
//!   (the lowest on a tie). Plain best fit over all nodes, what [`super::placement`]
//!   does, differs when equal nodes sit in different runs.
//!
//! - **Advance reservations** of some nodes (recurring reservations of named nodes,
//!   [`NodeWindows`]), as `job_test_resv` applies them: at each time tried, the nodes of
//!   the job's partition with a window overlapping `[start_res, start_res + walltime)`
//!   are left out, and when any was, the first window end after `start_res`, plus one
//!   second, is a `later_start` too (Slurm's `find_resv_end`: over every reserved node,
//!   unrounded). A planned start on nodes whose windows it would run into (the
//!   will-run test found it after `start_res`) is tried again from that start, so no
//!   reservation is planned across a window.
//!
//! Not modelled: advance reservations of users (maintenance moves the start past the
//! window, as an all-node reservation does), licences, features, and Slurm's wall-clock
//! limits on a pass. Down nodes are left out of every plan (Slurm does
//! not know when they come back). Account limits are the caller's: a job a limit holds is
//! not tested, as Slurm skips it.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::sync::Arc;

use super::placement::{Allocation, Node};
use super::plan::Ask;
use crate::scenario::recurring::{NodeWindows, TimeLimits};
use crate::scenario::shape::Shape;
use crate::units::SimTime;

/// select/cons_tres's first will-run window (seconds): fixed in Slurm 22.05, not a setting.
pub const FIRST_WINDOW: SimTime = 30;

/// Retries of one job before the planner gives up on it (Slurm is bounded by time instead).
const MAX_TRIES: usize = 4096;

/// A set of node indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct NodeSet(Vec<u64>);

impl NodeSet {
    /// Empties the set for `n` nodes, keeping its buffer.
    fn clear_for(&mut self, n: usize) {
        self.0.clear();
        self.0.resize(n.div_ceil(64).max(1), 0);
    }
    /// Makes this set a copy of `other`, keeping its buffer.
    fn copy_from(&mut self, other: &NodeSet) {
        self.0.clear();
        self.0.extend_from_slice(&other.0);
    }
    fn insert(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    fn remove(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    fn contains(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1 << (i % 64)) != 0
    }
    fn and(&mut self, other: &NodeSet) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }
    fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// One record of the backfill map: the nodes no planned job holds over `[begin, end)`.
#[derive(Clone, Debug)]
struct Slot {
    begin: SimTime,
    end: SimTime,
    avail: NodeSet,
}

/// A running job as the will-run test sees it. Its allocation is
/// `SlurmPlan::allocs[at..at + len]`: one buffer for every running job's nodes, so that
/// building the plan at each pass copies them instead of allocating one vector per job
/// (those allocations and frees were 23% of a Slurm-planner year).
#[derive(Clone, Copy, Debug)]
struct Running {
    end: SimTime,
    /// Its place among jobs with the same end (Slurm's job list order: job id).
    order: u64,
    at: u32,
    len: u32,
}

/// Buffers an `earliest` reuses from one job to the next (its node sets and the will-run
/// test's free GPUs), so that testing a job allocates nothing.
#[derive(Clone, Debug, Default)]
struct Scratch {
    avail: NodeSet,
    free: Vec<u32>,
}

/// The plan of one backfill pass, as Slurm builds it. It can be kept from one pass to
/// the next and rebuilt with [`SlurmPlan::reset`], which reuses its buffers.
#[derive(Clone, Debug, Default)]
pub struct SlurmPlan {
    now: SimTime,
    /// Latest planned start that gets a reservation (`now + bf_window`).
    horizon: SimTime,
    resolution: SimTime,
    nodes: Vec<Node>,
    /// Nodes that are up.
    up: NodeSet,
    /// Per partition: its nodes that are up (what a job of the partition may use).
    usable: Vec<NodeSet>,
    /// Running jobs by walltime end, then `order`.
    running: Vec<Running>,
    /// The running jobs' `(node, GPUs)`, each job's a contiguous piece (`Running::at`).
    allocs: Vec<(u32, u32)>,
    slots: Vec<Slot>,
    maintenance: Vec<(SimTime, SimTime)>,
    /// Time-of-day limits (none unless [`SlurmPlan::with_time_limits`]).
    time_limits: Arc<TimeLimits>,
    /// Per-node reservation windows (none unless [`SlurmPlan::with_node_windows`]).
    node_windows: Arc<NodeWindows>,
    /// The clock's offset from Slurm's epoch modulo 30 s: Slurm aligns its will-run
    /// windows on the epoch, burstsim on its clock (0 here; on the recorded lists the
    /// runs' own offsets, 0-28 s, changed no start).
    phase: SimTime,
    scratch: RefCell<Scratch>,
}

impl SlurmPlan {
    /// The plan at `now`: the nodes (with their free GPUs now), which are down, the running
    /// jobs' `(walltime end, order, allocation)`, and the maintenance windows. `window` is
    /// `bf_window`, `resolution` `bf_resolution` (seconds, at least 1).
    ///
    /// `order` breaks ties between running jobs with the same end: the will-run test
    /// removes them in that order. Slurm removes them in its job list's order (a stable
    /// sort by end of a list kept in job-id order), so give the job id or submission
    /// index; the order decides where a window closes when a job on none of the usable
    /// nodes ends at the same second as one on them.
    pub fn new<'a>(
        now: SimTime,
        window: SimTime,
        resolution: SimTime,
        nodes: &[Node],
        down: impl Fn(u32) -> bool,
        running: impl Iterator<Item = (SimTime, u64, &'a Allocation)>,
        maintenance: &[(SimTime, SimTime)],
    ) -> SlurmPlan {
        let mut plan = SlurmPlan::default();
        plan.reset(now, window, resolution, nodes, down, running, maintenance);
        plan
    }

    /// This plan rebuilt as [`SlurmPlan::new`] builds one, keeping its buffers (a pass
    /// rebuilds the map as Slurm does, without allocating it again). The time-of-day
    /// limits, the node windows and the phase are kept.
    #[allow(clippy::too_many_arguments)] // the arguments of `new`, and the plan itself
    pub fn reset<'a>(
        &mut self,
        now: SimTime,
        window: SimTime,
        resolution: SimTime,
        nodes: &[Node],
        down: impl Fn(u32) -> bool,
        running: impl Iterator<Item = (SimTime, u64, &'a Allocation)>,
        maintenance: &[(SimTime, SimTime)],
    ) {
        let resolution = resolution.max(1);
        self.up.clear_for(nodes.len());
        for i in 0..nodes.len() as u32 {
            if !down(i) {
                self.up.insert(i);
            }
        }
        self.running.clear();
        self.allocs.clear();
        for (end, order, a) in running {
            let at = self.allocs.len() as u32;
            self.allocs.extend_from_slice(a);
            self.running.push(Running { end, order, at, len: a.len() as u32 });
        }
        let allocs = &self.allocs;
        // A caller that keeps its running jobs in this order (the node model does) saves
        // the sort; the check costs one comparison per job.
        if !self.running.is_sorted_by(|a, b| by_end(allocs, a, b) != Ordering::Greater) {
            self.running.sort_unstable_by(|a, b| by_end(allocs, a, b));
        }
        let begin = now / resolution * resolution;
        let end = (now.saturating_add(window) / resolution * resolution).max(begin + resolution);
        self.slots.truncate(1);
        if self.slots.is_empty() {
            self.slots.push(Slot { begin, end, avail: NodeSet::default() });
        }
        let all = &mut self.slots[0];
        (all.begin, all.end) = (begin, end);
        all.avail.clear_for(nodes.len());
        (0..nodes.len() as u32).for_each(|i| all.avail.insert(i));
        self.now = now;
        self.horizon = now.saturating_add(window);
        self.resolution = resolution;
        self.nodes.clear();
        self.nodes.extend_from_slice(nodes);
        self.maintenance.clear();
        self.maintenance.extend_from_slice(maintenance);
        let partitions = nodes.iter().map(|n| usize::from(n.partition) + 1).max().unwrap_or(0);
        self.usable.resize_with(partitions, NodeSet::default);
        self.usable.iter_mut().for_each(|u| u.clear_for(nodes.len()));
        for (i, n) in nodes.iter().enumerate() {
            if self.up.contains(i as u32) {
                self.usable[usize::from(n.partition)].insert(i as u32);
            }
        }
    }

    /// Sets the time-of-day limits and node windows of a kept plan (see
    /// [`SlurmPlan::with_time_limits`], [`SlurmPlan::with_node_windows`]).
    pub fn set_windows(&mut self, limits: &Arc<TimeLimits>, windows: &Arc<NodeWindows>) {
        if !Arc::ptr_eq(&self.time_limits, limits) {
            self.time_limits = Arc::clone(limits);
        }
        if !Arc::ptr_eq(&self.node_windows, windows) {
            self.node_windows = Arc::clone(windows);
        }
    }

    /// A running job's `(node, GPUs)`.
    fn alloc_of(&self, r: &Running) -> &[(u32, u32)] {
        &self.allocs[r.at as usize..(r.at + r.len) as usize]
    }

    /// The same plan, planning jobs only where the time-of-day limits let them start (as
    /// maintenance is planned around).
    pub fn with_time_limits(mut self, limits: Arc<TimeLimits>) -> SlurmPlan {
        self.time_limits = limits;
        self
    }

    /// The same plan, keeping jobs off reserved nodes across their windows (see the module
    /// doc, "Advance reservations").
    pub fn with_node_windows(mut self, windows: Arc<NodeWindows>) -> SlurmPlan {
        self.node_windows = windows;
        self
    }

    /// The plan with its clock `phase` seconds past a multiple of [`FIRST_WINDOW`] on
    /// Slurm's clock (Unix time): select/cons_tres aligns the will-run windows on multiples
    /// of 30 s of Unix time, so on a clock whose 0 is Unix time `t0` the phase is
    /// `t0 % 30`. [`SlurmPlan::new`] takes 0 (the engine's clock has no date); a check
    /// against a recorded Slurm run needs the run's own phase (its windows close at other
    /// ends otherwise). Values of 30 or more are taken modulo 30.
    pub fn with_phase(mut self, phase: SimTime) -> SlurmPlan {
        self.phase = phase % FIRST_WINDOW;
        self
    }

    /// The job's planned start and nodes, or `None` when it gets no plan (it does not fit
    /// before the window ends). With `now_only` (a job past `bf_reservations`) only a start
    /// now is tried. A start now is `(now, allocation)`: start it, then [`SlurmPlan::started`].
    pub fn earliest(&self, ask: &Ask, now_only: bool) -> Option<(SimTime, Allocation)> {
        let mut scratch = self.scratch.take();
        let found = self.earliest_with(&mut scratch, ask, now_only);
        self.scratch.replace(scratch);
        found
    }

    /// [`SlurmPlan::earliest`] with the buffers it reuses.
    fn earliest_with(&self, scratch: &mut Scratch, ask: &Ask, now_only: bool) -> Option<(SimTime, Allocation)> {
        let now = self.now;
        let Scratch { avail, free } = scratch;
        let usable = self.usable.get(usize::from(ask.partition))?; // a partition without nodes: none
        let min_nodes = shape_nodes(ask.shape);
        let mut start_res = now;
        for _ in 0..MAX_TRIES {
            let moved = self.maintenance_from(ask.walltime, start_res);
            if moved != start_res && now_only {
                return None;
            }
            start_res = moved;
            let end = start_res.saturating_add(ask.walltime);
            let later = self.avail_over(avail, usable, start_res, end);
            let mut later = later.filter(|_| !now_only);
            if !self.node_windows.is_empty() {
                later = self.leave_out_reserved(avail, usable, start_res, ask.walltime, later, now_only);
            }
            if avail.count() < min_nodes {
                match later {
                    Some(l) => {
                        start_res = l;
                        continue;
                    }
                    None => return None,
                }
            }
            let Some((t, alloc)) = self.will_run(ask, avail, free, now_only) else {
                match later {
                    Some(l) => {
                        start_res = l;
                        continue;
                    }
                    None => return None,
                }
            };
            let t = t.max(start_res);
            if t <= now {
                return Some((now, alloc));
            }
            if now_only {
                return None;
            }
            // A later start found by the will-run test may itself cross a maintenance
            // window or fall where the time-of-day limits forbid the job: plan from there.
            let allowed = self.maintenance_from(ask.walltime, t);
            if allowed != t {
                start_res = allowed;
                continue;
            }
            // Nodes clear of their windows from `start_res` may not be from `t`: try from
            // `t`, where the test leaves them out.
            if !self.node_windows.is_empty() && alloc.iter().any(|&(n, _)| self.node_windows.blocks(n, t, ask.walltime))
            {
                start_res = t;
                continue;
            }
            if let Some(l) = later
                && t > l
            {
                start_res = l;
                continue;
            }
            if t > self.horizon {
                return None;
            }
            let (rs, re) = self.rounded(t, ask.walltime);
            if self.overlaps(&alloc, rs, re) {
                start_res = t;
                continue;
            }
            return Some((t, alloc));
        }
        None
    }

    /// `job_test_resv` for the reserved nodes: leaves out of `avail` every node of `usable`
    /// whose windows overlap `[start_res, start_res + walltime)`; when one was, the first
    /// window end after `start_res` plus one second (if before the backfill window ends) is the
    /// `later_start` when it is earlier. Returns the `later_start`.
    fn leave_out_reserved(
        &self,
        avail: &mut NodeSet,
        usable: &NodeSet,
        start_res: SimTime,
        walltime: SimTime,
        later: Option<SimTime>,
        now_only: bool,
    ) -> Option<SimTime> {
        let mut overlap = false;
        for &n in self.node_windows.reserved() {
            if usable.contains(n) && self.node_windows.blocks(n, start_res, walltime) {
                avail.remove(n);
                overlap = true;
            }
        }
        if !overlap || now_only {
            return later;
        }
        match self.node_windows.first_end_after(start_res).map(|e| e + 1) {
            Some(e) if e < self.horizon && later.is_none_or(|l| e < l) => Some(e),
            _ => later,
        }
    }

    /// Puts in `avail` the nodes the map leaves free over `[start_res, end]` among
    /// `usable`; returns `later_start`: the end of the first record (from `start_res` on)
    /// after which some usable node not free so far becomes free.
    fn avail_over(&self, avail: &mut NodeSet, usable: &NodeSet, start_res: SimTime, end: SimTime) -> Option<SimTime> {
        avail.copy_from(usable);
        let mut later = None;
        for (i, s) in self.slots.iter().enumerate() {
            if s.end > start_res
                && later.is_none()
                && let Some(next) = self.slots.get(i + 1)
            {
                // Is (usable ∩ next) ⊄ (avail ∩ this record)? Word by word, without
                // building either set (two allocations per record otherwise).
                let words = usable.0.iter().zip(&next.avail.0).zip(avail.0.iter().zip(&s.avail.0));
                if words.into_iter().any(|((u, n), (a, c))| u & n & !(a & c) != 0) {
                    later = Some(s.end);
                }
            }
            if s.end <= start_res {
                continue;
            }
            if s.begin <= end {
                avail.and(&s.avail);
            } else {
                break;
            }
        }
        later
    }

    /// The will-run test: `(now, nodes)` if the job fits the free GPUs now on `avail`;
    /// else the running jobs on those nodes are removed in groups of widening windows and
    /// the answer is the end of the last job of the first group after which it fits.
    fn will_run(
        &self,
        ask: &Ask,
        avail: &NodeSet,
        free: &mut Vec<u32>,
        now_only: bool,
    ) -> Option<(SimTime, Allocation)> {
        free.clear();
        free.extend(self.nodes.iter().map(|n| n.free));
        // `place` finds a placement exactly when at least `need` nodes can take their
        // share (`offers`), and a node's offer only grows as jobs are removed. So the
        // offering nodes are counted once and then as each removed job frees GPUs, and
        // `place` runs only once it must succeed: most groups free too little, and the
        // placements tried after them were 32% of a Slurm-planner year.
        let need = shape_nodes(ask.shape) as usize;
        let offering = |i: usize, free: &[u32]| {
            let n = &self.nodes[i];
            n.partition == ask.partition && avail.contains(i as u32) && offers(n, free[i], ask.shape)
        };
        let mut count = (0..self.nodes.len()).filter(|&i| offering(i, free)).count();
        if count >= need
            && let Some(a) = place(&self.nodes, free, avail, ask)
        {
            return Some((self.now, a));
        }
        if now_only {
            return None;
        }
        // Every running job in order of end; those on none of `avail` are passed over,
        // and (as in Slurm) passing one over does not close the group: the job after it
        // joins the group whatever its end.
        let jobs = &self.running;
        let on_avail = |r: &Running| self.alloc_of(r).iter().any(|&(n, _)| avail.contains(n));
        let mut barrier = None::<SimTime>;
        let mut window = FIRST_WINDOW;
        let mut i = 0;
        let mut more = true;
        while more {
            let mut last = None;
            loop {
                let Some(r) = jobs.get(i) else {
                    more = false;
                    break;
                };
                i += 1;
                if !on_avail(r) {
                    continue;
                }
                // Windows are aligned on multiples of 30 s of the clock (Slurm's is the
                // epoch: `phase` is the clock's offset from it).
                let b = *barrier.get_or_insert_with(|| {
                    let e = r.end + self.phase;
                    e + (FIRST_WINDOW - e % FIRST_WINDOW) - self.phase
                });
                for &(n, g) in self.alloc_of(r) {
                    let before = offering(n as usize, free);
                    free[n as usize] += g;
                    count += usize::from(!before && offering(n as usize, free));
                }
                last = Some(r.end);
                match jobs.get(i) {
                    None => {
                        more = false;
                        break;
                    }
                    Some(next) if next.end > b.saturating_add(window) => break,
                    Some(_) => {}
                }
            }
            let Some(last) = last else { break };
            let b = barrier.expect("set with the first job removed");
            loop {
                window = window.saturating_mul(2);
                if jobs.get(i).is_none_or(|next| next.end <= b.saturating_add(window)) {
                    break;
                }
            }
            if count >= need
                && let Some(a) = place(&self.nodes, free, avail, ask)
            {
                return Some((last.max(self.now), a));
            }
        }
        None
    }

    /// A reservation's `[start, end)` on the map's grid: both rounded down to the
    /// resolution, at least one resolution long, from the map's start on.
    fn rounded(&self, t: SimTime, walltime: SimTime) -> (SimTime, SimTime) {
        let r = self.resolution;
        let start = (t / r * r).max(self.slots[0].begin);
        let end = (t.saturating_add(walltime) / r * r).max(start + r);
        (start, end)
    }

    /// Whether some record over `[start, end)` has one of the nodes planned for another job.
    fn overlaps(&self, alloc: &Allocation, start: SimTime, end: SimTime) -> bool {
        self.slots
            .iter()
            .filter(|s| s.end > start && s.begin < end)
            .any(|s| alloc.iter().any(|&(n, _)| !s.avail.contains(n)))
    }

    /// The earliest time ≥ `from` when `[t, t + w)` crosses no maintenance window and the
    /// time-of-day limits let a job of walltime `w` start.
    fn maintenance_from(&self, w: SimTime, from: SimTime) -> SimTime {
        super::windows::start_from(&self.maintenance, &self.time_limits, w, from)
    }

    /// A job started now on `alloc`, running to `end` (its walltime end), with its `order`
    /// (as in [`SlurmPlan::new`]): its GPUs are taken and the will-run tests of later jobs
    /// see it among the running jobs.
    pub fn started(&mut self, alloc: &Allocation, end: SimTime, order: u64) {
        for &(n, g) in alloc {
            self.nodes[n as usize].free -= g;
        }
        let at = self.allocs.len() as u32;
        self.allocs.extend_from_slice(alloc);
        let r = Running { end, order, at, len: alloc.len() as u32 };
        let allocs = &self.allocs;
        let i = self.running.partition_point(|x| by_end(allocs, x, &r) != Ordering::Greater);
        self.running.insert(i, r);
    }

    /// Whether any node has a free GPU now.
    pub fn any_free_now(&self) -> bool {
        self.nodes.iter().enumerate().any(|(i, n)| n.free > 0 && self.up.contains(i as u32))
    }

    /// Reserves the nodes of `alloc` for a job planned at `t` for `walltime` (Slurm's
    /// `_add_reservation`): the records are split at the rounded start and end, the nodes
    /// leave every record between, and then one pair of neighbouring records with the same
    /// nodes is merged, as Slurm merges one.
    pub fn reserve(&mut self, t: SimTime, alloc: &Allocation, walltime: SimTime) {
        let (start, end) = self.rounded(t, walltime);
        let mut one_before = 0;
        let mut at = None;
        for (i, s) in self.slots.iter().enumerate() {
            if s.end > start {
                at = Some((i, true));
                break;
            }
            if s.end == start {
                at = Some((i, false));
                break;
            }
            one_before = i;
        }
        let Some((j, split)) = at else { return };
        if split {
            let s = self.slots[j].clone();
            self.slots[j].end = start;
            self.slots.insert(j + 1, Slot { begin: start, end: s.end, avail: s.avail });
        }
        let mut one_after = None;
        let mut k = j + 1;
        while k < self.slots.len() {
            if end < self.slots[k].end {
                let s = self.slots[k].clone();
                self.slots[k].end = end;
                self.slots.insert(k + 1, Slot { begin: end, end: s.end, avail: s.avail });
            }
            for &(n, _) in alloc {
                self.slots[k].avail.remove(n);
            }
            if end == self.slots[k].end {
                if k + 1 < self.slots.len() {
                    one_after = Some(k + 1);
                }
                break;
            }
            k += 1;
        }
        let mut i = one_before;
        while Some(i) != one_after && i + 1 < self.slots.len() {
            if self.slots[i].avail != self.slots[i + 1].avail {
                i += 1;
                continue;
            }
            self.slots[i].end = self.slots[i + 1].end;
            self.slots.remove(i + 1);
            break;
        }
    }

    /// The map's records as `(begin, end, free nodes)`, for tests and debugging.
    pub fn records(&self) -> Vec<(SimTime, SimTime, Vec<u32>)> {
        self.slots
            .iter()
            .map(|s| (s.begin, s.end, (0..self.nodes.len() as u32).filter(|&n| s.avail.contains(n)).collect()))
            .collect()
    }
}

/// The running jobs' order: by walltime end, then `order`, then allocation.
fn by_end(allocs: &[(u32, u32)], a: &Running, b: &Running) -> Ordering {
    let alloc = |r: &Running| &allocs[r.at as usize..(r.at + r.len) as usize];
    (a.end, a.order).cmp(&(b.end, b.order)).then_with(|| alloc(a).cmp(alloc(b)))
}

/// Where cons_tres puts a job on `nodes` with `free` GPUs each, among `avail`, or `None`
/// if it does not fit. The nodes that can take the job (a share of it, for a multi-node
/// shape) form runs of consecutive node numbers; each run counts its usable GPUs. A
/// one-node job goes to the run with the fewest usable GPUs (the first on a tie), on its
/// node with the fewest free GPUs (the lowest on a tie). A multi-node job takes nodes in
/// number order from the run with the fewest usable GPUs that holds it; when no run holds
/// it, from the largest run first, then the next.
fn place(nodes: &[Node], free: &[u32], avail: &NodeSet, ask: &Ask) -> Option<Allocation> {
    place_on(nodes, |i| free[i], |n| avail.contains(n), ask.partition, ask.shape)
}

/// `place` over every node of the partition (the main scheduler's placement in the
/// Slurm planner's mode).
pub fn place_now(nodes: &[Node], down: impl Fn(u32) -> bool, partition: u16, shape: Shape) -> Option<Allocation> {
    place_on(nodes, |i| nodes[i].free, |n| !down(n), partition, shape)
}

/// [`place`] with node `i`'s free GPUs given by `free(i)` and its usability by `ok(i)`.
fn place_on(
    nodes: &[Node],
    free: impl Fn(usize) -> u32,
    ok: impl Fn(u32) -> bool,
    partition: u16,
    shape: Shape,
) -> Option<Allocation> {
    let count = shape_nodes(shape);
    let per_node = match shape {
        Shape::OneNode(k) | Shape::Exact(_, k) => k,
        Shape::Whole(_) => 0,
    };
    // Per node: the GPUs it offers the job (0 = it cannot take its share).
    let offer = |i: usize| -> u32 {
        let n = &nodes[i];
        let f = free(i);
        if n.partition == partition && ok(i as u32) && offers(n, f, shape) { f } else { 0 }
    };
    if count == 1 {
        // The run with the fewest usable GPUs (every run holds a one-node job; the first
        // on a tie), found in one sweep without collecting the runs: most jobs take one
        // node, and the vector of runs was an allocation per placement.
        let mut best: Option<(usize, usize, u64)> = None;
        for_each_run(nodes.len(), offer, |run| {
            if best.is_none_or(|b| run.2 < b.2) {
                best = Some(run);
            }
        });
        let (s, e, _) = best?;
        let best = (s..=e).min_by_key(|&i| free(i))?; // min_by_key keeps the first on a tie
        let g = if let Shape::Whole(_) = shape { nodes[best].gpus } else { per_node };
        return Some(vec![(best as u32, g)]);
    }
    let mut runs: Vec<(usize, usize, u64)> = Vec::new();
    for_each_run(nodes.len(), offer, |run| runs.push(run));
    let mut picked: Allocation = Vec::new();
    let need_nodes = count as usize;
    while picked.len() < need_nodes && !runs.is_empty() {
        let rem = need_nodes - picked.len();
        let holds = |r: &(usize, usize, u64)| r.1 - r.0 + 1 >= rem;
        let idx = match runs.iter().enumerate().filter(|(_, r)| holds(r)).min_by_key(|(_, r)| r.2) {
            Some((i, _)) => i,
            None => runs.iter().enumerate().max_by_key(|(i, r)| (r.2, std::cmp::Reverse(*i)))?.0,
        };
        let (s, e, _) = runs.remove(idx);
        for (i, node) in nodes.iter().enumerate().take(e + 1).skip(s) {
            if picked.len() == need_nodes {
                break;
            }
            let g = if let Shape::Whole(_) = shape { node.gpus } else { per_node };
            picked.push((i as u32, g));
        }
    }
    if picked.len() < need_nodes {
        return None;
    }
    picked.sort_unstable();
    Some(picked)
}

/// How many nodes a job of this shape takes.
fn shape_nodes(shape: Shape) -> u32 {
    match shape {
        Shape::OneNode(_) => 1,
        Shape::Exact(n, _) | Shape::Whole(n) => n,
    }
}

/// Whether a node with `free` free GPUs can take its share of a job of this shape: the
/// whole node, or the share's GPUs (at least one).
fn offers(node: &Node, free: u32, shape: Shape) -> bool {
    match shape {
        Shape::Whole(_) => free == node.gpus,
        Shape::OneNode(k) | Shape::Exact(_, k) => free >= k.max(1),
    }
}

/// Calls `f` with every run of consecutive nodes among `0..n` that can take the job
/// (`offer(i) > 0`), in node order: `(first, last, usable GPUs)`.
fn for_each_run(n: usize, offer: impl Fn(usize) -> u32, mut f: impl FnMut((usize, usize, u64))) {
    let mut open: Option<(usize, u64)> = None;
    for i in 0..n {
        let o = offer(i);
        if o > 0 {
            open = Some(match open {
                Some((s, sum)) => (s, sum + u64::from(o)),
                None => (i, u64::from(o)),
            });
        } else if let Some((s, sum)) = open.take() {
            f((s, i - 1, sum));
        }
    }
    if let Some((s, sum)) = open {
        f((s, n - 1, sum));
    }
}

#[cfg(test)]
mod tests;
