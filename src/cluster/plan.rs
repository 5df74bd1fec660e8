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

use super::placement::{Allocation, Node, Shape};
use crate::units::SimTime;

/// A step function `(from, value)` with the first piece at the plan's start.
type Steps = Vec<(SimTime, i64)>;

/// The value at `t`.
fn value_at(steps: &Steps, t: SimTime) -> i64 {
    let i = steps.partition_point(|&(from, _)| from <= t);
    steps[i.saturating_sub(1)].1
}

/// The earliest `t ≥ from` such that the steps stay ≥ `need` on `[t, t + len)`.
fn earliest_at_least(steps: &Steps, need: i64, len: SimTime, from: SimTime) -> Option<SimTime> {
    earliest_at_least_until(steps, need, len, from, SimTime::MAX)
}

/// As [`earliest_at_least`], giving up (`None`) once the start would pass `until`: a
/// search for the earliest node stops scanning a node as soon as it cannot beat the best.
fn earliest_at_least_until(steps: &Steps, need: i64, len: SimTime, from: SimTime, until: SimTime) -> Option<SimTime> {
    earliest_where(steps, |v| v >= need, len, from, until)
}

/// [`earliest_at_least_until`] for steps that never decrease (a node's free GPUs when
/// only releases are planned on it): the first piece with enough stays enough whatever
/// the length, so it is a binary search. Returns the start and the value there.
fn earliest_on_rising(steps: &Steps, need: i64, from: SimTime, until: SimTime) -> Option<(SimTime, i64)> {
    let i = steps.partition_point(|s| s.1 < need);
    let s = steps.get(i)?;
    let t = s.0.max(from);
    (t <= until).then(|| (t, if s.0 >= from { s.1 } else { value_at(steps, t) }))
}

/// The earliest `t ≥ from` (and ≤ `until`) such that every value of the steps on
/// `[t, t + len)` satisfies `ok`.
fn earliest_where(
    steps: &Steps,
    ok: impl Fn(i64) -> bool,
    len: SimTime,
    from: SimTime,
    until: SimTime,
) -> Option<SimTime> {
    let mut i = steps.partition_point(|&(f, _)| f <= from).saturating_sub(1);
    let mut start = from;
    loop {
        // Advance to a piece where the value is acceptable.
        while !ok(steps[i].1) {
            i += 1;
            if i == steps.len() {
                return None;
            }
            start = steps[i].0;
        }
        if start > until {
            return None;
        }
        // Check the pieces covering [start, start + len).
        let end = start.saturating_add(len);
        let mut j = i + 1;
        loop {
            if j == steps.len() || steps[j].0 >= end {
                return Some(start);
            }
            if !ok(steps[j].1) {
                break;
            }
            j += 1;
        }
        i = j;
        start = steps[j].0;
    }
}

/// Adds `delta` to the steps on `[a, b)`.
fn add(steps: &mut Steps, a: SimTime, b: SimTime, delta: i64) {
    if b <= a {
        return;
    }
    for cut in [a, b] {
        let i = steps.partition_point(|&(f, _)| f <= cut);
        if steps[i - 1].0 != cut {
            let v = steps[i - 1].1;
            steps.insert(i, (cut, v));
        }
    }
    let from = steps.partition_point(|&(f, _)| f < a);
    for s in steps[from..].iter_mut().take_while(|s| s.0 < b) {
        s.1 += delta;
    }
}

/// Sets the steps to 0 on `[a, b)`.
fn set_to_zero(steps: &mut Steps, a: SimTime, b: SimTime) {
    if b <= a {
        return;
    }
    add(steps, a, b, 0); // splits at a and b
    let from = steps.partition_point(|&(f, _)| f < a);
    for s in steps[from..].iter_mut().take_while(|s| s.0 < b) {
        s.1 = s.1.min(0);
    }
}

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
#[derive(Clone, Debug)]
pub struct Plan {
    now: SimTime,
    /// Latest start the plan considers.
    horizon: SimTime,
    nodes: Vec<Node>,
    free: Vec<Steps>,
    account_gpus: Vec<Steps>,
    account_jobs: Vec<Steps>,
    caps: Vec<(Option<u32>, Option<u32>)>,
    maintenance: Vec<(SimTime, SimTime)>,
    /// Nodes of each partition.
    by_partition: Vec<Vec<u32>>,
    /// Nodes with free GPUs at the plan's start, and how many (kept as jobs start now):
    /// only these can take a job now.
    free_now: Vec<(u32, u32)>,
    /// Per node: no reservation touched it in this plan, so its free GPUs only grow with
    /// time (releases) and its earliest start is a binary search, not a scan.
    monotone: Vec<bool>,
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
        Plan {
            now: 0,
            horizon: 0,
            nodes: nodes.to_vec(),
            free: vec![Vec::new(); nodes.len()],
            account_gpus: vec![Vec::new(); accounts],
            account_jobs: vec![Vec::new(); accounts],
            caps,
            maintenance: maintenance.to_vec(),
            by_partition,
            free_now: Vec::new(),
            monotone: vec![true; nodes.len()],
        }
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
        self.now = now;
        self.horizon = horizon;
        self.nodes.copy_from_slice(nodes);
        self.free_now.clear();
        self.monotone.iter_mut().for_each(|m| *m = true);
        for (i, node) in nodes.iter().enumerate() {
            if node.free > 0 {
                self.free_now.push((i as u32, node.free));
            }
            let steps = &mut self.free[i];
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
        }
        for (a, rel) in account_running.iter().enumerate() {
            let (gs, js) = (&mut self.account_gpus[a], &mut self.account_jobs[a]);
            gs.clear();
            js.clear();
            if self.caps[a] == (None, None) {
                continue;
            }
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
        self.monotone[node as usize] = false;
        &mut self.free[node as usize]
    }

    /// Free GPUs of a node at the plan's start (after the reservations made so far).
    pub fn free_now(&self, node: u32) -> u32 {
        value_at(&self.free[node as usize], self.now).max(0) as u32
    }

    /// Whether any node has a free GPU now (in the plan).
    pub fn any_free_now_anywhere(&self) -> bool {
        !self.free_now.is_empty()
    }

    /// The job's start now and where, if it can start now without delaying any
    /// reservation in the plan (a cheaper [`Plan::earliest`] for jobs that get no
    /// reservation of their own).
    pub fn start_now(&self, ask: &Ask) -> Option<(SimTime, Allocation)> {
        // Nodes first: most tested jobs do not fit the few free GPUs, and that is cheap.
        let found = match ask.shape {
            Shape::OneNode(k) => self
                .free_now
                .iter()
                .filter(|&&(n, free)| {
                    free >= k
                        && self.nodes[n as usize].partition == ask.partition
                        && earliest_at_least(&self.free[n as usize], i64::from(k), ask.walltime, self.now)
                            == Some(self.now)
                })
                .min_by_key(|&&(n, free)| (free, n))
                .map(|&(n, _)| (self.now, vec![(n, k)])),
            _ => self.nodes_from(ask, self.now).filter(|(t, _)| *t == self.now),
        }?;
        if self.maintenance_from(ask.walltime, self.now) != self.now || self.account_from(ask, self.now)? != self.now {
            return None;
        }
        Some(found)
    }

    /// Whether any node of a partition has a free GPU now (in the plan).
    pub fn any_free_now(&self, partition: u16) -> bool {
        self.by_partition[usize::from(partition)].iter().any(|&n| self.free_now(n) > 0)
    }

    /// The earliest time ≥ `from` at which the nodes can hold the job, with where.
    fn nodes_from(&self, ask: &Ask, from: SimTime) -> Option<(SimTime, Allocation)> {
        let nodes = &self.by_partition[usize::from(ask.partition)];
        let w = ask.walltime;
        match ask.shape {
            Shape::OneNode(k) => {
                // Earliest over nodes; ties: best fit (fewest free then), then lowest index.
                let mut best: Option<(SimTime, i64, u32)> = None;
                for &n in nodes {
                    if self.nodes[n as usize].gpus < k {
                        continue;
                    }
                    let steps = &self.free[n as usize];
                    let until = best.map_or(SimTime::MAX, |b| b.0);
                    let found = if self.monotone[n as usize] {
                        earliest_on_rising(steps, i64::from(k), from, until)
                    } else {
                        earliest_at_least_until(steps, i64::from(k), w, from, until).map(|t| (t, value_at(steps, t)))
                    };
                    if let Some((t, free)) = found {
                        let key = (t, free, n);
                        if best.is_none_or(|b| key < b) {
                            best = Some(key);
                        }
                    }
                }
                best.map(|(t, _, n)| (t, vec![(n, k)]))
            }
            Shape::Exact(count, _) | Shape::Whole(count) if count > 0 => {
                let per = |n: u32| if let Shape::Exact(_, g) = ask.shape { g } else { self.nodes[n as usize].gpus };
                // Candidate times: `from` and every change after it, in order.
                let mut times: Vec<SimTime> = nodes
                    .iter()
                    .flat_map(|&n| self.free[n as usize].iter().map(|s| s.0))
                    .filter(|&t| t > from)
                    .collect();
                times.push(from);
                times.sort_unstable();
                times.dedup();
                for t in times {
                    let mut fit: Vec<(i64, u32)> = nodes
                        .iter()
                        .filter(|&&n| {
                            let need = i64::from(per(n));
                            self.nodes[n as usize].gpus >= per(n)
                                && earliest_at_least(&self.free[n as usize], need, w, t) == Some(t)
                        })
                        .map(|&n| (value_at(&self.free[n as usize], t), n))
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
    fn account_from(&self, ask: &Ask, from: SimTime) -> Option<SimTime> {
        let a = usize::from(ask.account);
        let (gpu_cap, job_cap) = self.caps[a];
        let mut t = from;
        for _ in 0..64 {
            let mut next = t;
            if let Some(cap) = gpu_cap {
                let most = i64::from(cap) - i64::from(ask.gpus);
                next = next.max(earliest_where(&self.account_gpus[a], |v| v <= most, ask.walltime, t, SimTime::MAX)?);
            }
            if let Some(cap) = job_cap {
                let most = i64::from(cap) - 1;
                next =
                    next.max(earliest_where(&self.account_jobs[a], |v| v <= most, ask.walltime, next, SimTime::MAX)?);
            }
            if next == t {
                return Some(t);
            }
            t = next;
        }
        None
    }

    /// The earliest time ≥ `from` when `[t, t + w)` crosses no maintenance window.
    fn maintenance_from(&self, w: SimTime, from: SimTime) -> SimTime {
        let mut t = from;
        for &(a, b) in &self.maintenance {
            if b <= t {
                continue;
            }
            if a <= t || t.saturating_add(w) > a {
                t = b;
            } else {
                break;
            }
        }
        t
    }

    /// The earliest start of a job in this plan and where, or `None` when it cannot start
    /// before the plan's horizon.
    pub fn earliest(&self, ask: &Ask) -> Option<(SimTime, Allocation)> {
        let mut from = self.now;
        for _ in 0..256 {
            let from_m = self.maintenance_from(ask.walltime, from);
            let (t, alloc) = self.nodes_from(ask, from_m)?;
            if t > self.horizon {
                return None;
            }
            let t_acc = self.account_from(ask, t)?;
            let t_m = self.maintenance_from(ask.walltime, t_acc);
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
            add(&mut self.account_gpus[a], t, end, i64::from(ask.gpus));
            add(&mut self.account_jobs[a], t, end, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_at_least_finds_the_first_long_enough_gap() {
        let steps: Steps = vec![(0, 1), (10, 4), (20, 2), (30, 8)];
        assert_eq!(earliest_at_least(&steps, 1, 100, 0), Some(0));
        assert_eq!(earliest_at_least(&steps, 2, 5, 0), Some(10));
        assert_eq!(earliest_at_least(&steps, 3, 5, 0), Some(10));
        assert_eq!(earliest_at_least(&steps, 3, 15, 0), Some(30), "4 free on [10, 20) is too short");
        assert_eq!(earliest_at_least(&steps, 9, 1, 0), None);
        assert_eq!(earliest_at_least(&steps, 2, 5, 12), Some(12));
    }

    proptest::proptest! {
        /// On steps that never decrease, the binary search finds what the general walk
        /// finds, for any need, length, start and bound.
        #[test]
        fn the_rising_search_agrees_with_the_walk(
            rises in proptest::collection::vec((1u64..50, 0i64..3), 0..20),
            first in 0i64..4,
            need in 0i64..12,
            len in 1u64..200,
            from in 0u64..600,
            until in 0u64..700,
        ) {
            let mut steps: Steps = vec![(0, first)];
            for (gap, up) in rises {
                let (t, v) = *steps.last().unwrap();
                steps.push((t + gap, v + up));
            }
            let walk = earliest_at_least_until(&steps, need, len, from, until).map(|t| (t, value_at(&steps, t)));
            proptest::prop_assert_eq!(earliest_on_rising(&steps, need, from, until), walk);
        }
    }

    #[test]
    fn adding_splits_pieces() {
        let mut steps: Steps = vec![(0, 4)];
        add(&mut steps, 5, 10, -3);
        assert_eq!(steps, vec![(0, 4), (5, 1), (10, 4)]);
        add(&mut steps, 7, 12, -1);
        assert_eq!(steps, vec![(0, 4), (5, 1), (7, 0), (10, 3), (12, 4)]);
        assert_eq!(value_at(&steps, 11), 3);
    }

    fn node(free: u32) -> Node {
        Node { gpus: 8, free, partition: 0 }
    }

    fn ask(shape: Shape, walltime: SimTime) -> Ask {
        Ask { partition: 0, shape, walltime, account: 0, gpus: 8 }
    }

    #[test]
    fn a_reservation_for_a_whole_node_job_is_not_delayed_by_later_jobs() {
        // Two 8-GPU nodes: node 0 has 4 GPUs busy until 100, node 1 2 busy until 50.
        let nodes = [node(4), node(6)];
        let rel = [(0u32, 100u64, 4u32), (1, 50, 2)];
        let mut plan = Plan::new(0, 1000, &nodes, rel.iter().copied(), std::iter::empty(), vec![(None, None)], &[], 1);
        let head = ask(Shape::OneNode(8), 200);
        let (t, a) = plan.earliest(&head).unwrap();
        assert_eq!((t, a.clone()), (50, vec![(1, 8)]), "node 1 is whole first, at 50");
        plan.reserve(t, &a, &head);
        // A 6-GPU job of 100 s would fit node 1 now only by delaying the head: it goes to
        // node 0 at 100 instead; a 2-GPU job of 40 s ends before 50 and starts now on node 1.
        let later = Ask { gpus: 6, ..ask(Shape::OneNode(6), 100) };
        assert_eq!(plan.earliest(&later).unwrap(), (100, vec![(0, 6)]));
        let short = Ask { gpus: 2, ..ask(Shape::OneNode(2), 40) };
        let (t, a) = plan.earliest(&short).unwrap();
        assert_eq!(t, 0);
        assert_eq!(a, vec![(0, 2)], "best fit now: node 0 has 4 free, node 1 has 6");
    }

    #[test]
    fn the_account_limit_delays_a_start_until_its_own_jobs_end() {
        let nodes = [node(8), node(8)];
        let running = [Held { end: 300, account: 0, gpus: 8 }];
        let plan =
            Plan::new(0, 1000, &nodes, std::iter::empty(), running.iter().copied(), vec![(Some(12), None)], &[], 1);
        // 8 GPUs held until 300, limit 12: a 8-GPU job waits for 300, a 4-GPU one starts now.
        assert_eq!(plan.earliest(&Ask { gpus: 8, ..ask(Shape::OneNode(8), 10) }).unwrap().0, 300);
        assert_eq!(plan.earliest(&Ask { gpus: 4, ..ask(Shape::OneNode(4), 10) }).unwrap().0, 0);
    }

    #[test]
    fn a_blocked_node_gets_nothing_until_it_is_back() {
        let nodes = [node(8), node(8)];
        let mut plan = Plan::new(0, 1000, &nodes, std::iter::empty(), std::iter::empty(), vec![(None, None)], &[], 1);
        plan.block(0, 0, 300);
        plan.block(1, 0, 100);
        assert!(!plan.any_free_now_anywhere());
        assert_eq!(plan.start_now(&ask(Shape::OneNode(1), 10)), None);
        assert_eq!(plan.earliest(&ask(Shape::OneNode(8), 10)).unwrap(), (100, vec![(1, 8)]));
        assert_eq!(plan.earliest(&ask(Shape::Whole(2), 10)).unwrap().0, 300);
    }

    #[test]
    fn a_drain_in_the_future_keeps_a_long_job_off_the_node() {
        // One node, drained on [100, 200): a job of 150 s cannot start now (it would run
        // into the drain); one of 50 s can.
        let nodes = [node(8)];
        let mut plan = Plan::new(0, 1000, &nodes, std::iter::empty(), std::iter::empty(), vec![(None, None)], &[], 1);
        plan.block(0, 100, 200);
        assert_eq!(plan.earliest(&ask(Shape::OneNode(8), 150)).unwrap().0, 200);
        assert_eq!(plan.earliest(&ask(Shape::OneNode(8), 50)).unwrap().0, 0);
    }

    #[test]
    fn maintenance_pushes_a_start_past_the_window() {
        let nodes = [node(8)];
        let plan =
            Plan::new(0, 1000, &nodes, std::iter::empty(), std::iter::empty(), vec![(None, None)], &[(50, 60)], 1);
        assert_eq!(plan.earliest(&ask(Shape::OneNode(1), 40)).unwrap().0, 0);
        assert_eq!(plan.earliest(&ask(Shape::OneNode(1), 51)).unwrap().0, 60);
    }
}
