//! Tests of the plan: a plan kept between passes holds the steps of one rebuilt at every
//! pass (a property test against a reference), and reservations, account limits, blocks
//! and maintenance on small hand-made clusters. The step functions' own tests are in
//! `steps.rs`.

use super::steps::{earliest_on_rising, earliest_where};
use super::*;

/// What the cluster keeps for the plan in the property test below: nodes, releases per
/// node and account, and their versions.
struct Running {
    nodes: Vec<Node>,
    node_releases: Vec<Vec<(SimTime, u32)>>,
    node_versions: Vec<u64>,
    account_running: Vec<Vec<(SimTime, u32)>>,
    account_versions: Vec<u64>,
    jobs: Vec<(u32, u32, SimTime, u16)>,
}

impl Running {
    fn start(&mut self, node: u32, gpus: u32, end: SimTime, account: u16) {
        let n = node as usize;
        self.nodes[n].free -= gpus;
        let r = &mut self.node_releases[n];
        r.insert(r.partition_point(|x| *x < (end, gpus)), (end, gpus));
        self.node_versions[n] += 1;
        let a = &mut self.account_running[usize::from(account)];
        a.insert(a.partition_point(|x| *x < (end, gpus)), (end, gpus));
        self.account_versions[usize::from(account)] += 1;
        self.jobs.push((node, gpus, end, account));
    }
    fn finish(&mut self, i: usize) {
        let (node, gpus, end, account) = self.jobs.swap_remove(i);
        let n = node as usize;
        self.nodes[n].free += gpus;
        let r = &mut self.node_releases[n];
        r.remove(r.iter().position(|x| *x == (end, gpus)).unwrap());
        self.node_versions[n] += 1;
        let a = &mut self.account_running[usize::from(account)];
        a.remove(a.iter().position(|x| *x == (end, gpus)).unwrap());
        self.account_versions[usize::from(account)] += 1;
    }
}

/// The steps as the plan before issue 21 built them at every pass (one vector per node
/// and per capped account, rebuilt from the releases) and changed them in place.
struct Reference {
    now: SimTime,
    free: Vec<Steps>,
    accounts: Vec<(Steps, Steps)>,
}

impl Reference {
    fn new(now: SimTime, run: &Running, caps: &[(Option<u32>, Option<u32>)]) -> Reference {
        let free = (0..run.nodes.len())
            .map(|i| {
                let mut v = i64::from(run.nodes[i].free);
                let mut steps = vec![(now, v)];
                for &(t, g) in &run.node_releases[i] {
                    let t = t.max(now);
                    v += i64::from(g);
                    match steps.last_mut() {
                        Some(last) if last.0 == t => last.1 = v,
                        _ => steps.push((t, v)),
                    }
                }
                steps
            })
            .collect();
        let accounts = run
            .account_running
            .iter()
            .zip(caps)
            .map(|(rel, cap)| {
                let (mut gs, mut js) = (Vec::new(), Vec::new());
                if *cap == (None, None) {
                    return (gs, js);
                }
                let mut g: i64 = rel.iter().map(|r| i64::from(r.1)).sum();
                let mut j = rel.len() as i64;
                gs.push((now, g));
                js.push((now, j));
                for &(t, gpus) in rel {
                    let t = t.max(now);
                    g -= i64::from(gpus);
                    j -= 1;
                    if gs.last().is_some_and(|l: &(SimTime, i64)| l.0 == t) {
                        gs.last_mut().unwrap().1 = g;
                        js.last_mut().unwrap().1 = j;
                    } else {
                        gs.push((t, g));
                        js.push((t, j));
                    }
                }
                (gs, js)
            })
            .collect();
        Reference { now, free, accounts }
    }
    fn block(&mut self, node: u32, from: SimTime, until: SimTime) {
        set_to_zero(&mut self.free[node as usize], from.max(self.now), until);
    }
    fn reserve(&mut self, t: SimTime, alloc: &Allocation, ask: &Ask) {
        let end = t.saturating_add(ask.walltime);
        for &(n, g) in alloc {
            if t > self.now {
                set_to_zero(&mut self.free[n as usize], t, end);
            } else {
                add(&mut self.free[n as usize], t, end, -i64::from(g));
            }
        }
        let (gs, js) = &mut self.accounts[usize::from(ask.account)];
        if !gs.is_empty() {
            add(gs, t, end, i64::from(ask.gpus));
            add(js, t, end, 1);
        }
    }
}

fn assert_as_reference(plan: &Plan, reference: &Reference) {
    for n in 0..plan.nodes.len() as u32 {
        assert_eq!(plan.steps(n), &reference.free[n as usize], "node {n}");
    }
    for a in 0..plan.caps.len() {
        assert_eq!(plan.account_applied(a), reference.accounts[a], "account {a}");
    }
}

fn assert_same_steps(kept: &Plan, fresh: &Plan) {
    for n in 0..kept.nodes.len() as u32 {
        assert_eq!(kept.steps(n), fresh.steps(n), "node {n}");
        assert_eq!(kept.monotone[n as usize], fresh.monotone[n as usize], "node {n}");
    }
    for a in 0..kept.caps.len() {
        assert_eq!(kept.account_applied(a), fresh.account_applied(a), "account {a}");
    }
    assert_eq!(kept.free_now, fresh.free_now);
}

/// The earliest start ≥ `from` that the account's limits allow, by the plain walk on its
/// steps written out with this pass's reservations (the reference for the plan's bound,
/// its walk of base and reservations together, and its binary search to the first time
/// the running jobs alone leave room).
fn account_reference(plan: &Plan, ask: &Ask, from: SimTime) -> Option<SimTime> {
    let a = usize::from(ask.account);
    let (gpu_cap, job_cap) = plan.caps[a];
    let (gpus, jobs) = plan.account_applied(a);
    let mut t = from;
    for _ in 0..64 {
        let mut next = t;
        if let Some(cap) = gpu_cap {
            let most = i64::from(cap) - i64::from(ask.gpus);
            next = next.max(earliest_where(&gpus, |v| v <= most, ask.walltime, t, SimTime::MAX)?);
        }
        if let Some(cap) = job_cap {
            let most = i64::from(cap) - 1;
            next = next.max(earliest_where(&jobs, |v| v <= most, ask.walltime, next, SimTime::MAX)?);
        }
        if next == t {
            return Some(t);
        }
        t = next;
    }
    None
}

proptest::proptest! {
    /// A plan kept between passes and refreshed (only changed nodes and accounts
    /// rebuilt, reservations on copies) holds exactly the steps of a plan rebuilt from
    /// scratch at every pass, before and after the pass's reservations and blocks, and
    /// answers every query the same; the `first` table answers as the binary search on
    /// the steps does, and the one-node search from the table as the scan of every node
    /// does.
    /// Jobs whose walltime end has passed are left running at times, to
    /// exercise the rebuild of a node with a release at or before `now`.
    #[test]
    fn refreshing_equals_rebuilding(
        sizes in proptest::collection::vec(proptest::sample::select(vec![4u32, 8]), 1..6),
        passes in proptest::collection::vec(
            (
                1u64..60,
                proptest::collection::vec((0u32..8, 1u32..9, 1u64..300, 0u16..3, proptest::bool::ANY), 0..6),
                proptest::collection::vec((1u32..9, 1u64..200, 0u16..3, 0u8..4), 0..8),
            ),
            1..25,
        ),
    ) {
        let nodes: Vec<Node> =
            sizes.iter().enumerate().map(|(i, &g)| Node { gpus: g, free: g, partition: (i % 2) as u16 }).collect();
        let caps = vec![(Some(12), Some(3)), (None, None), (None, Some(2))];
        let maintenance = [(500, 520)];
        let mut run = Running {
            nodes: nodes.clone(),
            node_releases: vec![Vec::new(); nodes.len()],
            node_versions: vec![0; nodes.len()],
            account_running: vec![Vec::new(); caps.len()],
            account_versions: vec![0; caps.len()],
            jobs: Vec::new(),
        };
        let mut kept = Plan::empty(&nodes, caps.clone(), &maintenance, 2);
        let mut now = 0;
        for (dt, changes, asks) in passes {
            now += dt;
            // Most passes end the jobs past their walltime end first, as the cluster
            // does; the others keep them, which only the steps below are checked on
            // (a release before `now` folds into the first piece, and the free GPUs
            // the cluster lists then disagree with the steps: that never happens).
            if dt % 4 != 0 {
                while let Some(i) = run.jobs.iter().position(|j| j.2 <= now) {
                    run.finish(i);
                }
            }
            for (node, gpus, len, account, finish) in changes {
                if finish && !run.jobs.is_empty() {
                    run.finish(node as usize % run.jobs.len());
                    continue;
                }
                let n = node % nodes.len() as u32;
                let g = gpus.min(run.nodes[n as usize].free);
                if g > 0 {
                    run.start(n, g, now + len, account);
                }
            }
            let horizon = now + 250;
            kept.refresh(now, horizon, &run.nodes, &run.node_releases, &run.node_versions,
                &run.account_running, &run.account_versions);
            let mut fresh = Plan::empty(&nodes, caps.clone(), &maintenance, 2);
            fresh.rebuild(now, horizon, &run.nodes, &run.node_releases, &run.account_running);
            let mut reference = Reference::new(now, &run, &caps);
            assert_same_steps(&kept, &fresh);
            assert_as_reference(&kept, &reference);
            for n in 0..nodes.len() as u32 {
                for k in 0..=nodes[n as usize].gpus {
                    for (from, until) in [(now, SimTime::MAX), (now + 7, now + 90), (now + 40, SimTime::MAX)] {
                        proptest::prop_assert_eq!(
                            kept.earliest_untouched(n, k, from, until),
                            earliest_on_rising(kept.steps(n), i64::from(k), from, until)
                        );
                    }
                }
            }
            if run.jobs.iter().any(|j| j.2 <= now) {
                continue;
            }
            for (gpus, walltime, account, kind) in asks {
                let shape = match kind {
                    0 | 1 => Shape::OneNode(gpus.min(8)),
                    2 => Shape::Whole(1 + gpus % 2),
                    _ => Shape::Exact(1 + gpus % 3, 1 + gpus % 4),
                };
                let ask = Ask { partition: u16::from(kind == 1), shape, walltime, account, gpus };
                if gpus == 8 && walltime % 5 == 0 {
                    let n = walltime as u32 % nodes.len() as u32;
                    kept.block(n, now + walltime % 3 * 20, now + walltime);
                    fresh.block(n, now + walltime % 3 * 20, now + walltime);
                    reference.block(n, now + walltime % 3 * 20, now + walltime);
                }
                if let Shape::OneNode(k) = ask.shape {
                    proptest::prop_assert_eq!(kept.one_node_now(ask.partition, k, walltime), kept.one_node(&ask, now));
                }
                // The account's bound answers as the search on its steps would, and the
                // search as the plain walk on the steps written out.
                for from in [now, now + 30, now + 120] {
                    let searched = kept.clone().account_search(&ask, from);
                    proptest::prop_assert_eq!(kept.clone().account_from(&ask, from), searched);
                    proptest::prop_assert_eq!(searched, account_reference(&kept, &ask, from));
                }
                proptest::prop_assert_eq!(kept.start_now(&ask), fresh.start_now(&ask));
                let found = kept.earliest(&ask);
                proptest::prop_assert_eq!(&found, &fresh.earliest(&ask));
                if let Some((t, alloc)) = found {
                    kept.reserve(t, &alloc, &ask);
                    fresh.reserve(t, &alloc, &ask);
                    reference.reserve(t, &alloc, &ask);
                }
                assert_same_steps(&kept, &fresh);
                assert_as_reference(&kept, &reference);
            }
        }
    }
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
    let mut plan =
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
    let mut plan =
        Plan::new(0, 1000, &nodes, std::iter::empty(), std::iter::empty(), vec![(None, None)], &[(50, 60)], 1);
    assert_eq!(plan.earliest(&ask(Shape::OneNode(1), 40)).unwrap().0, 0);
    assert_eq!(plan.earliest(&ask(Shape::OneNode(1), 51)).unwrap().0, 60);
}
