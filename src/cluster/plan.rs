//! The backfill plan: the one place that computes future starts.
//!
//! A plan is what Slurm's `sched/backfill` builds each pass: from the running jobs'
//! walltime ends it knows, per node, how many GPUs are free at every future time, and per
//! account how many GPUs and jobs it holds. Jobs are then taken in priority order; each
//! gets the **earliest start** at which its shape fits on nodes of its partition for its
//! whole walltime request, its account's `GrpTRES`/`MaxJobs` allow it, and it does not
//! cross a maintenance window; the plan then **reserves** those GPUs from that time, so
//! every later (lower-priority) job is planned around it. A job whose earliest start is
//! now is started; no job can start now in a way that delays the reservation of any job
//! planned before it.
//!
//! The scheduler's backfill pass and the wait forecast that policies read (what
//! `squeue --start` shows) both walk the queue through this plan; they differ only in
//! which jobs they walk (see `nodes.rs`).
//!
//! Representation: per node a step function of free GPUs, `(from time, free)` pieces
//! starting at `now`; per account a step function of GPUs and of running jobs. A query
//! scans the steps once (O(steps)); a reservation splits at most two pieces per node.

mod steps;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use super::placement::{Allocation, Node};
use crate::scenario::recurring::TimeLimits;
use crate::scenario::shape::Shape;
use crate::units::SimTime;
use steps::{Steps, add, earliest_at_least, earliest_at_least_until, earliest_where_sum, set_to_zero, value_at};

/// What one job asks of the plan.
#[derive(Clone, Copy, Debug)]
pub struct Ask {
    /// Partition.
    pub partition: u16,
    /// Node shape.
    pub shape: Shape,
    /// Walltime request.
    pub walltime: SimTime,
    /// Account.
    pub account: u16,
    /// GPUs counted against the account's limit.
    pub gpus: u32,
}

/// A running job as the plan sees it.
#[derive(Clone, Copy, Debug)]
pub struct Held {
    /// Walltime end.
    pub end: SimTime,
    /// Account.
    pub account: u16,
    /// GPUs it holds (for the account's limit).
    pub gpus: u32,
}

/// The plan of one pass.
///
/// **Kept between passes, not rebuilt** (issue 21): the free-GPU steps of a node with only
/// its running jobs (the *base*) change only when a job starts or ends on that node, so
/// [`Plan::refresh`] rebuilds just the nodes (and accounts) whose version moved since the
/// last pass, and a pass's reservations go to a copy of a node's base made the first time
/// the pass touches it (copy-on-write; `monotone` = not touched = read the base). Every
/// query therefore reads exactly the steps a full [`Plan::rebuild`] at `now` would have
/// built: the base's first piece is moved to `now` at each refresh, and a base with a
/// release at or before `now` is rebuilt (none should exist: a job is released when it
/// ends, before the pass). The test `refreshing_equals_rebuilding` checks this.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    now: SimTime,
    /// Latest start the plan considers.
    horizon: SimTime,
    nodes: Vec<Node>,
    /// Per node: free GPUs over time with the running jobs only (first piece at `now`).
    base: Vec<Steps>,
    /// Per node: the caller's version of the node when its base was built (`u64::MAX`:
    /// never built).
    base_version: Vec<u64>,
    /// Per partition and GPU count k (`partition * stride + k`), one entry per node of the
    /// partition (at `slot[node]`): the first piece of the node's base with at least k
    /// free GPUs, as `(from, free, node)`, with `from` = 0 for the first piece (it starts
    /// at `now`) and `free` = `NONE` when no piece has k free. A node untouched by the pass
    /// answers an earliest-start query from this table in O(1), and the best untouched
    /// node for k is a scan of one short contiguous column.
    first: Vec<Vec<(SimTime, i64, u32)>>,
    /// Per column of `first`: its entries with some piece free (`free` ≠ `NONE`), sorted.
    /// Kept in step with `first` as nodes are rebuilt (a few per pass), so the best
    /// untouched node for k GPUs is the first entry whose node the pass has not touched,
    /// found in a step or two instead of a scan of every node (the scan was ~10% of a
    /// node-model year: 48 keys compared per query, 590,000 queries).
    ranked: Vec<Vec<(SimTime, i64, u32)>>,
    /// GPU counts per column block: the most GPUs of a node, plus one.
    stride: usize,
    /// Per node: its index in its partition's columns.
    slot: Vec<u32>,
    /// Per node: this pass's copy of the base once a reservation or block touched it.
    free: Vec<Steps>,
    /// Per account: GPUs and running jobs over time with the running jobs only.
    account_base: Vec<(Steps, Steps)>,
    account_version: Vec<u64>,
    /// Per account: this pass's reservations alone, as GPUs and jobs over time (a piece
    /// from time 0 with value 0, then the reservations added). The account's planned use
    /// is its base plus these; a query walks both at once ([`steps::earliest_where_sum`])
    /// instead of adding every reservation to the base, whose steps have a piece per
    /// running job (hundreds for a big account: applying reservations to them was ~6% of
    /// a node-model year even when only needed on demand). Most queries are answered by
    /// a bound and read neither (see [`Plan::account_from`]).
    account_reservations: Vec<(Steps, Steps)>,
    /// Per account: the GPUs and jobs of all its reservations in this pass (the bound).
    account_reserved: Vec<(i64, i64)>,
    caps: Vec<(Option<u32>, Option<u32>)>,
    maintenance: Vec<(SimTime, SimTime)>,
    /// Time-of-day limits: a job is planned only where its window lets it start (none by
    /// default; see [`Plan::set_time_limits`]).
    time_limits: Arc<TimeLimits>,
    /// Nodes of each partition.
    by_partition: Vec<Vec<u32>>,
    /// Nodes with free GPUs at the plan's start, and how many (kept as jobs start now):
    /// only these can take a job now.
    free_now: Vec<(u32, u32)>,
    /// Per node: no reservation touched it in this plan, so its free GPUs only grow with
    /// time (releases) and its earliest start is a binary search, not a scan (and its
    /// steps are the base's).
    monotone: Vec<bool>,
    /// Nodes and accounts touched in this pass (to reset at the next refresh).
    touched: Vec<u32>,
    touched_accounts: Vec<u16>,
}

/// `Plan::first`'s "no piece has that many free GPUs".
const NONE: i64 = i64::MIN;

/// Replaces `old` by `new` in a sorted column of [`Plan::ranked`] (an entry whose `free`
/// is `NONE` is not listed). When both are listed, only the entries between their two
/// places move, one step each: a refresh re-ranks ~10 entries per pass, and a remove and
/// an insert each moved the column's whole tail.
fn rerank(ranked: &mut Vec<(SimTime, i64, u32)>, old: (SimTime, i64, u32), new: (SimTime, i64, u32)) {
    let at_old = (old.1 != NONE).then(|| {
        let i = ranked.partition_point(|e| *e < old);
        debug_assert_eq!(ranked.get(i), Some(&old), "invariant: `ranked` mirrors `first`");
        i
    });
    match (at_old, new.1 != NONE) {
        (Some(i), true) => {
            let j = ranked.partition_point(|e| *e < new);
            if j > i {
                // `new` goes after `old`'s place: the entries between move down one.
                ranked.copy_within(i + 1..j, i);
                ranked[j - 1] = new;
            } else {
                ranked.copy_within(j..i, j + 1);
                ranked[j] = new;
            }
        }
        (Some(i), false) => {
            ranked.remove(i);
        }
        (None, true) => {
            let j = ranked.partition_point(|e| *e < new);
            ranked.insert(j, new);
        }
        (None, false) => {}
    }
}

impl Plan {
    /// The plan at `now`: nodes with their free GPUs now, the running jobs' releases per
    /// node (`(node, walltime end, gpus)`), the accounts' use now and running jobs, and
    /// their caps. Starts later than `horizon` are not planned.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        now: SimTime,
        horizon: SimTime,
        nodes: &[Node],
        releases: impl Iterator<Item = (u32, SimTime, u32)>,
        running: impl Iterator<Item = Held>,
        caps: Vec<(Option<u32>, Option<u32>)>,
        maintenance: &[(SimTime, SimTime)],
        partitions: usize,
    ) -> Plan {
        let mut per_node: Vec<Vec<(SimTime, u32)>> = vec![Vec::new(); nodes.len()];
        for (n, end, g) in releases {
            per_node[n as usize].push((end, g));
        }
        per_node.iter_mut().for_each(|r| r.sort_unstable());
        let accounts = caps.len();
        let mut per_account: Vec<Vec<(SimTime, u32)>> = vec![Vec::new(); accounts];
        for h in running {
            per_account[usize::from(h.account)].push((h.end, h.gpus));
        }
        per_account.iter_mut().for_each(|r| r.sort_unstable());
        let mut plan = Plan::empty(nodes, caps, maintenance, partitions);
        plan.rebuild(now, horizon, nodes, &per_node, &per_account);
        plan
    }

    /// An empty plan for these nodes, account caps and maintenance windows, to be
    /// [`Plan::rebuild`]t at each pass (its buffers are reused).
    pub fn empty(
        nodes: &[Node],
        caps: Vec<(Option<u32>, Option<u32>)>,
        maintenance: &[(SimTime, SimTime)],
        partitions: usize,
    ) -> Plan {
        let mut by_partition = vec![Vec::new(); partitions];
        for (i, n) in nodes.iter().enumerate() {
            by_partition[usize::from(n.partition)].push(i as u32);
        }
        let accounts = caps.len();
        let stride = nodes.iter().map(|n| n.gpus as usize).max().unwrap_or(0) + 1;
        Plan {
            now: 0,
            horizon: 0,
            nodes: nodes.to_vec(),
            base: vec![Vec::new(); nodes.len()],
            base_version: vec![u64::MAX; nodes.len()],
            first: (0..partitions * stride)
                .map(|c| by_partition[c / stride].iter().map(|&n| (0, NONE, n)).collect())
                .collect(),
            ranked: vec![Vec::new(); partitions * stride],
            stride,
            slot: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    by_partition[usize::from(n.partition)].iter().position(|&m| m == i as u32).unwrap_or(0) as u32
                })
                .collect(),
            free: vec![Vec::new(); nodes.len()],
            account_base: vec![(Vec::new(), Vec::new()); accounts],
            account_version: vec![u64::MAX; accounts],
            account_reservations: vec![(vec![(0, 0)], vec![(0, 0)]); accounts],
            account_reserved: vec![(0, 0); accounts],
            caps,
            maintenance: maintenance.to_vec(),
            time_limits: Arc::default(),
            by_partition,
            free_now: Vec::new(),
            monotone: vec![true; nodes.len()],
            touched: Vec::new(),
            touched_accounts: Vec::new(),
        }
    }

    /// Plans every job where the time-of-day limits let it start: its request within the
    /// MaxTime in force at its planned start, and ending in that window where the window
    /// demands it (as a maintenance window is planned around). Without this a job the
    /// limits keep from starting now got no reservation, so smaller jobs could delay it
    /// indefinitely, and a forecast promised starts the limits forbid.
    pub fn set_time_limits(&mut self, limits: Arc<TimeLimits>) {
        self.time_limits = limits;
    }

    /// Rebuilds the plan at `now` from the nodes' state, each node's running releases
    /// `(walltime end, gpus)` sorted by time, and each account's running jobs `(walltime
    /// end, gpus)` sorted by time. Accounts without caps get no steps (never consulted).
    pub fn rebuild(
        &mut self,
        now: SimTime,
        horizon: SimTime,
        nodes: &[Node],
        node_releases: &[Vec<(SimTime, u32)>],
        account_running: &[Vec<(SimTime, u32)>],
    ) {
        self.base_version.iter_mut().for_each(|v| *v = u64::MAX);
        self.account_version.iter_mut().for_each(|v| *v = u64::MAX);
        let (nv, av) = (vec![0; nodes.len()], vec![0; account_running.len()]);
        self.refresh(now, horizon, nodes, node_releases, &nv, account_running, &av);
    }

    /// [`Plan::rebuild`], rebuilding only the nodes and accounts whose version (the
    /// caller's count of changes to its releases or free GPUs) differs from the last
    /// refresh's; the result is the same.
    #[allow(clippy::too_many_arguments)]
    pub fn refresh(
        &mut self,
        now: SimTime,
        horizon: SimTime,
        nodes: &[Node],
        node_releases: &[Vec<(SimTime, u32)>],
        node_versions: &[u64],
        account_running: &[Vec<(SimTime, u32)>],
        account_versions: &[u64],
    ) {
        self.now = now;
        self.horizon = horizon;
        self.nodes.copy_from_slice(nodes);
        self.free_now.clear();
        for n in self.touched.drain(..) {
            self.monotone[n as usize] = true;
        }
        for a in self.touched_accounts.drain(..) {
            let (gs, js) = &mut self.account_reservations[usize::from(a)];
            gs.clear();
            gs.push((0, 0));
            js.clear();
            js.push((0, 0));
            self.account_reserved[usize::from(a)] = (0, 0);
        }
        for (i, node) in nodes.iter().enumerate() {
            if node.free > 0 {
                self.free_now.push((i as u32, node.free));
            }
            let steps = &mut self.base[i];
            // A release at or before `now` would fold into the first piece: rebuild.
            if self.base_version[i] == node_versions[i] && steps.get(1).is_none_or(|s| s.0 > now) {
                steps[0].0 = now;
                continue;
            }
            self.base_version[i] = node_versions[i];
            steps.clear();
            let mut v = i64::from(node.free);
            steps.push((now, v));
            for &(t, g) in &node_releases[i] {
                let t = t.max(now);
                v += i64::from(g);
                match steps.last_mut() {
                    Some(last) if last.0 == t => last.1 = v,
                    _ => steps.push((t, v)),
                }
            }
            // The first piece with at least k free, for every k (the steps only rise).
            let (col, slot) = (usize::from(node.partition) * self.stride, self.slot[i] as usize);
            let mut p = 0;
            for k in 0..self.stride {
                while p < steps.len() && steps[p].1 < k as i64 {
                    p += 1;
                }
                let entry = match steps.get(p) {
                    Some(&(from, free)) => (if p == 0 { 0 } else { from }, free, i as u32),
                    None => (0, NONE, i as u32),
                };
                let old = std::mem::replace(&mut self.first[col + k][slot], entry);
                if old != entry {
                    rerank(&mut self.ranked[col + k], old, entry);
                }
            }
        }
        for (a, rel) in account_running.iter().enumerate() {
            let (gs, js) = &mut self.account_base[a];
            if self.caps[a] == (None, None) {
                gs.clear();
                js.clear();
                continue;
            }
            if self.account_version[a] == account_versions[a] && gs.get(1).is_none_or(|s| s.0 > now) {
                gs[0].0 = now;
                js[0].0 = now;
                continue;
            }
            self.account_version[a] = account_versions[a];
            gs.clear();
            js.clear();
            let mut g: i64 = rel.iter().map(|r| i64::from(r.1)).sum();
            let mut j = rel.len() as i64;
            gs.push((now, g));
            js.push((now, j));
            for &(t, gpus) in rel {
                let t = t.max(now);
                g -= i64::from(gpus);
                j -= 1;
                if gs.last().is_some_and(|l| l.0 == t) {
                    gs.last_mut().expect("non-empty").1 = g;
                    js.last_mut().expect("non-empty").1 = j;
                } else {
                    gs.push((t, g));
                    js.push((t, j));
                }
            }
        }
    }

    /// A node's free-GPU steps in this pass.
    fn steps(&self, node: u32) -> &Steps {
        let n = node as usize;
        if self.monotone[n] { &self.base[n] } else { &self.free[n] }
    }

    /// [`earliest_on_rising`] on an untouched node's steps (its base) for `k` GPUs, read
    /// from the `first` table in O(1).
    fn earliest_untouched(&self, node: u32, k: u32, from: SimTime, until: SimTime) -> Option<(SimTime, i64)> {
        debug_assert!(self.monotone[node as usize] && (k as usize) < self.stride);
        let n = node as usize;
        let (f, free, _) =
            self.first[usize::from(self.nodes[n].partition) * self.stride + k as usize][self.slot[n] as usize];
        let t = f.max(from);
        // The first piece is stored as 0 (it starts at `now` ≤ `from`).
        (free != NONE && t <= until)
            .then(|| (t, if f >= from || from == self.now { free } else { value_at(&self.base[node as usize], t) }))
    }

    /// An account's GPU and running-job steps in this pass with its reservations added,
    /// written out (for the tests: the plan itself never builds them).
    #[cfg(test)]
    fn account_applied(&self, a: usize) -> (Steps, Steps) {
        let (base, reserved) = (&self.account_base[a], &self.account_reservations[a]);
        if base.0.is_empty() {
            return base.clone(); // an account without caps has no steps
        }
        (steps::sum(&base.0, &reserved.0), steps::sum(&base.1, &reserved.1))
    }

    /// Marks a node unavailable on `[from, until)` (failed until its repair, or drained
    /// until the drain ends): nothing is planned on it then. Call after [`Plan::rebuild`].
    pub fn block(&mut self, node: u32, from: SimTime, until: SimTime) {
        let from = from.max(self.now);
        set_to_zero(self.taken_steps(node), from, until);
        if from == self.now {
            self.free_now.retain(|f| f.0 != node);
        }
    }

    /// A node's free-GPU steps, to take GPUs from (a reservation or a block). Every such
    /// change goes through here, because it ends the node's "free GPUs only grow with
    /// time" (`monotone`) on which the fast earliest-start search relies.
    fn taken_steps(&mut self, node: u32) -> &mut Steps {
        let n = node as usize;
        if self.monotone[n] {
            self.monotone[n] = false;
            self.touched.push(node);
            self.free[n].clone_from(&self.base[n]);
        }
        &mut self.free[n]
    }

    /// Free GPUs of a node at the plan's start (after the reservations made so far).
    pub fn free_now(&self, node: u32) -> u32 {
        value_at(self.steps(node), self.now).max(0) as u32
    }

    /// Whether any node has a free GPU now (in the plan).
    pub fn any_free_now_anywhere(&self) -> bool {
        !self.free_now.is_empty()
    }

    /// The job's start now and where, if it can start now without delaying any
    /// reservation in the plan (a cheaper [`Plan::earliest`] for jobs that get no
    /// reservation of their own).
    pub fn start_now(&mut self, ask: &Ask) -> Option<(SimTime, Allocation)> {
        // Nodes first: most tested jobs do not fit the few free GPUs, and that is cheap.
        let found = match ask.shape {
            Shape::OneNode(k) => self
                .free_now
                .iter()
                .filter(|&&(n, free)| {
                    free >= k
                        && self.nodes[n as usize].partition == ask.partition
                        && earliest_at_least(self.steps(n), i64::from(k), ask.walltime, self.now) == Some(self.now)
                })
                .min_by_key(|&&(n, free)| (free, n))
                .map(|&(n, _)| (self.now, vec![(n, k)])),
            _ => self.nodes_from(ask, self.now).filter(|(t, _)| *t == self.now),
        }?;
        if self.allowed_from(ask.walltime, self.now) != self.now || self.account_from(ask, self.now)? != self.now {
            return None;
        }
        Some(found)
    }

    /// Whether any node of a partition has a free GPU now (in the plan).
    pub fn any_free_now(&self, partition: u16) -> bool {
        self.by_partition[usize::from(partition)].iter().any(|&n| self.free_now(n) > 0)
    }

    /// The earliest `(start ≥ from, free GPUs then, node)` of a one-node job over the nodes
    /// of its partition, the smallest such key (ties: best fit, then lowest index): the
    /// plain scan of every node.
    fn one_node(&self, ask: &Ask, from: SimTime) -> Option<(SimTime, i64, u32)> {
        let Shape::OneNode(k) = ask.shape else { return None };
        let mut best: Option<(SimTime, i64, u32)> = None;
        for &n in &self.by_partition[usize::from(ask.partition)] {
            if self.nodes[n as usize].gpus < k {
                continue;
            }
            let until = best.map_or(SimTime::MAX, |b| b.0);
            let found = if self.monotone[n as usize] {
                self.earliest_untouched(n, k, from, until)
            } else {
                let steps = &self.free[n as usize];
                earliest_at_least_until(steps, i64::from(k), ask.walltime, from, until).map(|t| (t, value_at(steps, t)))
            };
            if let Some((t, free)) = found {
                let key = (t, free, n);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        best
    }

    /// [`Plan::one_node`] from `now`, without a search on every node: the untouched nodes'
    /// keys do not depend on the walltime and sit, sorted, in one column of `ranked`, so
    /// their best is the first untouched entry there; only the nodes this pass touched (a
    /// handful) are searched. The same minimum over the same keys
    /// (`refreshing_equals_rebuilding` checks it on random plans).
    fn one_node_now(&self, partition: u16, k: u32, walltime: SimTime) -> Option<(SimTime, i64, u32)> {
        if k as usize >= self.stride {
            return None; // larger than every node
        }
        // Entries are `(from, free, node)` with `from` = 0 for a first piece (at `now`) and
        // every later piece after `now`: the order of `(max(from, now), free, node)`.
        // `ranked` holds them sorted: the first untouched one is the best.
        let best = self.ranked[usize::from(partition) * self.stride + k as usize]
            .iter()
            .find(|e| self.monotone[e.2 as usize])
            .copied();
        let mut best = best.map(|(f, free, n)| (f.max(self.now), free, n));
        for &n in &self.touched {
            let node = &self.nodes[n as usize];
            if node.partition != partition || node.gpus < k {
                continue;
            }
            let until = best.map_or(SimTime::MAX, |b| b.0);
            let steps = &self.free[n as usize];
            if let Some(t) = earliest_at_least_until(steps, i64::from(k), walltime, self.now, until) {
                let key = (t, value_at(steps, t), n);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        best
    }

    /// The earliest time ≥ `from` at which the nodes can hold the job, with where.
    fn nodes_from(&self, ask: &Ask, from: SimTime) -> Option<(SimTime, Allocation)> {
        let nodes = &self.by_partition[usize::from(ask.partition)];
        let w = ask.walltime;
        match ask.shape {
            Shape::OneNode(k) => {
                let best =
                    if from == self.now { self.one_node_now(ask.partition, k, w) } else { self.one_node(ask, from) };
                best.map(|(t, _, n)| (t, vec![(n, k)]))
            }
            Shape::Exact(count, _) | Shape::Whole(count) if count > 0 => {
                let per = |n: u32| if let Shape::Exact(_, g) = ask.shape { g } else { self.nodes[n as usize].gpus };
                // Candidate times: `from` and every change after it, in order.
                let mut times: Vec<SimTime> =
                    nodes.iter().flat_map(|&n| self.steps(n).iter().map(|s| s.0)).filter(|&t| t > from).collect();
                times.push(from);
                times.sort_unstable();
                times.dedup();
                for t in times {
                    let mut fit: Vec<(i64, u32)> = nodes
                        .iter()
                        .filter(|&&n| {
                            let need = i64::from(per(n));
                            self.nodes[n as usize].gpus >= per(n)
                                && earliest_at_least(self.steps(n), need, w, t) == Some(t)
                        })
                        .map(|&n| (value_at(self.steps(n), t), n))
                        .collect();
                    if fit.len() >= count as usize {
                        fit.sort_unstable();
                        let mut a: Allocation = fit[..count as usize].iter().map(|&(_, n)| (n, per(n))).collect();
                        a.sort_unstable();
                        return Some((t, a));
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// The earliest time ≥ `from` at which the account's limits allow the job.
    ///
    /// First a bound: the account's GPUs and jobs in the plan never exceed their values
    /// now (running jobs only end) plus everything reserved in this pass, so when that sum
    /// leaves room for the job, every time allows it and the answer is `from`, exactly
    /// what the search on the steps would give. Only otherwise are the steps
    /// searched.
    fn account_from(&mut self, ask: &Ask, from: SimTime) -> Option<SimTime> {
        let a = usize::from(ask.account);
        let (gpu_cap, job_cap) = self.caps[a];
        let (gpus_now, jobs_now) = {
            let (g, j) = &self.account_base[a];
            (g.first().map_or(0, |s| s.1), j.first().map_or(0, |s| s.1))
        };
        let (reserved_gpus, reserved_jobs) = self.account_reserved[a];
        if gpu_cap.is_none_or(|cap| gpus_now + reserved_gpus + i64::from(ask.gpus) <= i64::from(cap))
            && job_cap.is_none_or(|cap| jobs_now + reserved_jobs < i64::from(cap))
        {
            return Some(from);
        }
        self.account_search(ask, from)
    }

    /// [`Plan::account_from`] by searching the account's steps (no bound): its running
    /// jobs and this pass's reservations, walked together.
    fn account_search(&mut self, ask: &Ask, from: SimTime) -> Option<SimTime> {
        let a = usize::from(ask.account);
        let (gpu_cap, job_cap) = self.caps[a];
        let ((gpus, jobs), (gpus_reserved, jobs_reserved)) = (&self.account_base[a], &self.account_reservations[a]);
        let mut t = from;
        for _ in 0..64 {
            let mut next = t;
            if let Some(cap) = gpu_cap {
                let most = i64::from(cap) - i64::from(ask.gpus);
                next = next.max(earliest_where_sum(gpus, gpus_reserved, |v| v <= most, ask.walltime, t, SimTime::MAX)?);
            }
            if let Some(cap) = job_cap {
                let most = i64::from(cap) - 1;
                next =
                    next.max(earliest_where_sum(jobs, jobs_reserved, |v| v <= most, ask.walltime, next, SimTime::MAX)?);
            }
            if next == t {
                return Some(t);
            }
            t = next;
        }
        None
    }

    /// The earliest time ≥ `from` when `[t, t + w)` crosses no maintenance window and the
    /// time-of-day limits let a job of walltime `w` start.
    fn allowed_from(&self, w: SimTime, from: SimTime) -> SimTime {
        super::windows::start_from(&self.maintenance, &self.time_limits, w, from)
    }

    /// The earliest start of a job in this plan and where, or `None` when it cannot start
    /// before the plan's horizon.
    pub fn earliest(&mut self, ask: &Ask) -> Option<(SimTime, Allocation)> {
        let mut from = self.now;
        for _ in 0..256 {
            let from_m = self.allowed_from(ask.walltime, from);
            let (t, alloc) = self.nodes_from(ask, from_m)?;
            if t > self.horizon {
                return None;
            }
            let t_acc = self.account_from(ask, t)?;
            let t_m = self.allowed_from(ask.walltime, t_acc);
            if t_m == t {
                return Some((t, alloc));
            }
            from = t_m;
        }
        None
    }

    /// Reserves an allocation for a job from `t` for its walltime.
    ///
    /// A job starting now takes only its GPUs. A job planned for later holds its **whole
    /// nodes** for its window, as Slurm's backfill does (`_add_reservation` in
    /// sched/backfill marks the planned job's nodes busy in its node-space map): no later
    /// job may be planned into the GPUs such a node has left over during that window. With
    /// only the GPUs reserved, burstsim backfilled small jobs that Slurm holds back (found by
    /// replaying job lists on a real Slurm 22.05; docs/VALIDATION.md).
    pub fn reserve(&mut self, t: SimTime, alloc: &Allocation, ask: &Ask) {
        let end = t.saturating_add(ask.walltime);
        for &(n, g) in alloc {
            if t > self.now {
                set_to_zero(self.taken_steps(n), t, end);
                continue;
            }
            add(self.taken_steps(n), t, end, -i64::from(g));
            if t == self.now
                && let Some(i) = self.free_now.iter().position(|f| f.0 == n)
            {
                self.free_now[i].1 -= g;
                if self.free_now[i].1 == 0 {
                    self.free_now.swap_remove(i);
                }
            }
        }
        let a = usize::from(ask.account);
        if self.caps[a] != (None, None) {
            let reserved = &mut self.account_reserved[a];
            if reserved.1 == 0 {
                self.touched_accounts.push(ask.account); // first reservation of the pass
            }
            reserved.0 += i64::from(ask.gpus);
            reserved.1 += 1;
            let (gpus, jobs) = &mut self.account_reservations[a];
            add(gpus, t, end, i64::from(ask.gpus));
            add(jobs, t, end, 1);
        }
    }
}
