//! Hand-computed cases of Slurm's planner. The first is a real one: the first passes of
//! the recorded run `tests/fixtures/slurm/recorded/frag-40-1.csv`, whose planned starts
//! slurmctld's backfill log gave (`_dump_job_sched`).

use super::*;

fn nodes(free: &[u32]) -> Vec<Node> {
    free.iter().map(|&f| Node { gpus: 8, free: f, partition: 0 }).collect()
}

fn one(k: u32, walltime: SimTime) -> Ask {
    Ask { partition: 0, shape: Shape::OneNode(k), walltime, account: 0, gpus: k }
}

/// frag-40-1 at 6 s: f01 (16 CPUs on n1-n2, limit end 120), f02 (2 on n3, 62), f03 (6 on
/// n3, 64), f04 (6 on n4, 126). Node numbers here are Slurm's minus one.
fn frag_40_1_at(now: SimTime) -> SlurmPlan {
    let running = [(120, vec![(0, 8), (1, 8)]), (62, vec![(2, 2)]), (64, vec![(2, 6)]), (126, vec![(3, 6)])];
    SlurmPlan::new(
        now,
        3600,
        1,
        &nodes(&[0, 0, 0, 2]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    )
}

#[test]
fn a_job_is_planned_at_the_end_of_the_last_job_of_its_group_as_slurm_planned_frag_40_1() {
    // f05 (3 CPUs, 60 s): the exact earliest start is 64 (f03's end frees n3). Slurm's
    // groups: the first end (62) rounded up to 90, so the first group is every end up to
    // 120: 62, 64 and 120. It fits after that group: planned at 120, on n1 (the run
    // n1-n3 of free nodes, the lowest of equal nodes). slurmctld: "to start at" +120 s on n1.
    let mut p = frag_40_1_at(6);
    let (t, a) = p.earliest(&one(3, 60), false).expect("planned");
    assert_eq!((t, a.clone()), (120, vec![(0, 3)]));
    p.reserve(t, &a, 60);
    // f06 (7 CPUs): the same group puts it on n1 at 120, which overlaps f05's reservation,
    // so it is tried again from 120 without n1: n2 at 120 (Slurm: +120 s on n2).
    let (t, a) = p.earliest(&one(7, 60), false).expect("planned");
    assert_eq!((t, a.clone()), (120, vec![(1, 7)]));
    p.reserve(t, &a, 60);
    // f07 (8 CPUs, at 8 s in Slurm; the same map): tried from 120 on n3-n4 only. f01 is on
    // neither and is passed over; passing it over lets f04 (126) into the first group, so
    // the job is planned at 126, on n3 (Slurm: +126 s on n3), not at 120.
    let (t, a) = p.earliest(&one(8, 60), false).expect("planned");
    assert_eq!((t, a), (126, vec![(2, 8)]));
}

/// frag-40-4 at its pass of 67 s (its clock is 16 s past a multiple of 30 s of Unix
/// time): f21 (16 CPUs on n1-n2, limit end 119), f25 (2 on n3, 115), f26 (5 on n3, 185),
/// f27 (7 on n4, 125) and f37 (1 on n3, 125), each with its job id as its order.
fn frag_40_4_at_67(f27_order: u64) -> SlurmPlan {
    let running = [
        (119, 21, vec![(0, 8), (1, 8)]),
        (115, 25, vec![(2, 2)]),
        (185, 26, vec![(2, 5)]),
        (125, f27_order, vec![(3, 7)]),
        (125, 37, vec![(2, 1)]),
    ];
    SlurmPlan::new(67, 3600, 1, &nodes(&[0, 0, 0, 1]), |_| false, running.iter().map(|(e, o, a)| (*e, *o, a)), &[])
        .with_phase(16)
}

#[test]
fn running_jobs_with_the_same_end_leave_in_job_id_order_as_slurm_planned_frag_40_4() {
    // f28 (7 CPUs, 60 s): n4 at 125 (slurmctld: +125 on n4).
    let mut p = frag_40_4_at_67(27);
    let (t, a) = p.earliest(&one(7, 60), false).expect("planned");
    assert_eq!((t, a.clone()), (125, vec![(3, 7)]));
    p.reserve(t, &a, 60);
    // f29 (3 CPUs) on n1-n3 (n4 is f28's from 125). Ends in order: 115 (n3), 119 (n1-n2),
    // then the two at 125: f27 (on n4, passed over) before f37 (on n3), as their ids.
    // Barrier 115 + 16 = 131 rounded up to 150, i.e. 134: the group takes ends up to 164.
    // After f37 the next end, f26's 185, is past it: the group closes and the job fits
    // n3's 3 free CPUs at 125 (slurmctld: +125 on n3).
    assert_eq!(p.earliest(&one(3, 60), false), Some((125, vec![(2, 3)])));
    // With f37 before f27 the passed-over f27 comes last, so f26 joins the group and
    // the job is planned at 185 (on n1): what burstsim gave when ties went by allocation.
    let mut q = frag_40_4_at_67(40);
    let (t, a) = q.earliest(&one(7, 60), false).expect("planned");
    q.reserve(t, &a, 60);
    assert_eq!(q.earliest(&one(3, 60), false), Some((185, vec![(0, 3)])));
}

#[test]
fn a_job_that_fits_now_on_nodes_no_reservation_holds_starts_now() {
    let mut p = frag_40_1_at(6);
    let (t, a) = p.earliest(&one(3, 60), false).expect("planned");
    p.reserve(t, &a, 60); // n1 from 120 to 180
    // 2 CPUs fit n4 now: start now.
    assert_eq!(p.earliest(&one(2, 60), false), Some((6, vec![(3, 2)])));
    // With only a start now allowed, a job that cannot start now gets nothing.
    assert_eq!(p.earliest(&one(8, 60), true), None);
}

#[test]
fn the_windows_double_after_each_group() {
    // One node, 8 GPUs, all held by four 2-GPU jobs ending at 40, 75, 200 and 500. A job
    // of 8 needs all four ends. Barrier: 40 rounded up to 60; the first group takes ends
    // up to 60 + 30 = 90 (40, 75); the window doubles to 60, but 200 > 120, so to 120,
    // then 240: the second group is 200 (up to 300); then 480: 500. Planned at 500.
    // A job of 6 fits after the second group: planned at 200 (the exact start: 200);
    // a job of 4 fits after the first: 75 (exact: 75).
    let running = [(40, vec![(0, 2)]), (75, vec![(0, 2)]), (200, vec![(0, 2)]), (500, vec![(0, 2)])];
    let p = SlurmPlan::new(
        0,
        3600,
        1,
        &nodes(&[0]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    );
    assert_eq!(p.earliest(&one(8, 10), false).map(|x| x.0), Some(500));
    assert_eq!(p.earliest(&one(6, 10), false).map(|x| x.0), Some(200));
    assert_eq!(p.earliest(&one(4, 10), false).map(|x| x.0), Some(75));
    // Where the exact plan and Slurm's differ: 2 GPUs free after 40, but the group runs
    // to 75.
    assert_eq!(p.earliest(&one(2, 10), false).map(|x| x.0), Some(75));
    // Doubling, not growing by 30 s: ends 40, 200, 230, 900. After the first group (40)
    // the window goes 60, 120, 240, so the second group is 200 and 230 (up to 300): a job
    // of 4 is planned at 230. Growing by 30 s (60, 90, 120, 150) would stop at 210 and
    // plan it at 200.
    let running = [(40, vec![(0, 2)]), (200, vec![(0, 2)]), (230, vec![(0, 2)]), (900, vec![(0, 2)])];
    let p = SlurmPlan::new(
        0,
        3600,
        1,
        &nodes(&[0]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    );
    assert_eq!(p.earliest(&one(4, 10), false).map(|x| x.0), Some(230));
}

#[test]
fn reservations_sit_on_the_resolution_grid_and_try_later_moves_past_them() {
    // Two nodes: n1 busy until 100 (8 GPUs), n2 idle. bf_resolution 60.
    let running = [(100, vec![(0, 8)])];
    let mut p = SlurmPlan::new(
        10,
        3600,
        60,
        &nodes(&[0, 8]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    );
    // A job of 8 for 50 s planned at 100 on n1: reserved on [60, 120) (rounded down).
    let (t, a) = p.earliest(&Ask { shape: Shape::OneNode(8), ..one(8, 50) }, false).unwrap();
    assert_eq!((t, a.clone()), (10, vec![(1, 8)]), "n2 is idle: it starts now");
    p.started(&a, 60, 99);
    // A job of 8 for 50 s: n2's job (60) and n1's (100) fall in one group (barrier 90, ends
    // up to 120), so it is planned at 100, on n1 (the lower of two idle nodes), although n2
    // is free at 60. Reserved on [60, 120): both ends rounded down to the minute.
    let (t, a) = p.earliest(&one(8, 50), false).unwrap();
    assert_eq!((t, a.clone()), (100, vec![(0, 8)]));
    p.reserve(t, &a, 50);
    assert_eq!(p.records(), vec![(0, 60, vec![0, 1]), (60, 120, vec![1]), (120, 3600, vec![0, 1])]);
    // A job of 8 for 30 s: planned on n1 at 100 again, which overlaps that reservation, so
    // tried again from 100 on n2 only: its job ends at 60, and the job is planned at 100.
    let (t, a) = p.earliest(&one(8, 30), false).unwrap();
    assert_eq!((t, a), (100, vec![(1, 8)]));
}

#[test]
fn best_fit_picks_the_run_of_consecutive_nodes_with_the_fewest_usable_gpus() {
    // Free 3, 3, 0, 4: a 3-GPU job. Plain best fit takes n1 (3 free); cons_tres sees the
    // runs n1-n2 (6 usable) and n4 (4) and takes the smaller run: n4.
    let ns = nodes(&[3, 3, 0, 4]);
    assert_eq!(place_now(&ns, |_| false, 0, Shape::OneNode(3)), Some(vec![(3, 3)]));
    // Within a run, the node with the fewest free, the lowest on a tie.
    let ns = nodes(&[5, 3, 3, 6]);
    assert_eq!(place_now(&ns, |_| false, 0, Shape::OneNode(2)), Some(vec![(1, 2)]));
    // A node that cannot take the job breaks a run: free 2, 5, 2, 5 for a 4-GPU job gives
    // runs n2 and n4 (5 each): the first.
    let ns = nodes(&[2, 5, 2, 5]);
    assert_eq!(place_now(&ns, |_| false, 0, Shape::OneNode(4)), Some(vec![(1, 4)]));
    // Whole nodes: idle n1, n3, n4: runs n1 (8) and n3-n4 (16); two nodes: n3-n4.
    let ns = nodes(&[8, 0, 8, 8]);
    assert_eq!(place_now(&ns, |_| false, 0, Shape::Whole(2)), Some(vec![(2, 8), (3, 8)]));
    // Down nodes take nothing.
    assert_eq!(place_now(&ns, |n| n == 3, 0, Shape::Whole(2)), Some(vec![(0, 8), (2, 8)]));
}

#[test]
fn adding_a_reservation_splits_the_map_and_merges_equal_neighbours() {
    let running = [(1000, vec![(0, 8), (1, 8)])];
    let mut p = SlurmPlan::new(
        0,
        600,
        1,
        &nodes(&[0, 0]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    );
    p.reserve(100, &vec![(0, 8)], 100);
    assert_eq!(p.records(), vec![(0, 100, vec![0, 1]), (100, 200, vec![1]), (200, 600, vec![0, 1])]);
    // A second reservation on the same node right after: [200, 300) loses n1, and the
    // record [100, 200) and the new [200, 300) have the same nodes: merged (one pair).
    p.reserve(200, &vec![(0, 8)], 100);
    assert_eq!(p.records(), vec![(0, 100, vec![0, 1]), (100, 300, vec![1]), (300, 600, vec![0, 1])]);
}

/// A reserved node (one node, its window 22:00–24:00): at 20:00 a job ends at 21:00 on
/// it. A 2-h job tried from 20:00 sees the node clear (20:00–22:00 misses the window), and
/// the will-run test finds it a start at 21:00, which would run into the window; so it is
/// tried from 21:00, where the node is left out, and then from the window's end plus one
/// second (Slurm's `find_resv_end`). A 1-h job fits before the window: 21:00.
#[test]
fn no_job_is_planned_across_a_window_of_its_reserved_nodes() {
    const H: SimTime = 3600;
    let windows = Arc::new(NodeWindows::new(1, [(0, vec![(22 * H, 24 * H), (46 * H, 48 * H), (70 * H, 72 * H)])]));
    let running = [(21 * H, vec![(0, 8)])];
    let plan = SlurmPlan::new(
        20 * H,
        48 * H,
        60,
        &nodes(&[0]),
        |_| false,
        running.iter().enumerate().map(|(i, (e, a))| (*e, i as u64, a)),
        &[],
    )
    .with_node_windows(windows);
    let (t, a) = plan.earliest(&one(8, 2 * H), false).expect("planned");
    assert_eq!((t, a), (24 * H + 1, vec![(0, 8)]));
    assert_eq!(plan.earliest(&one(8, H), false).map(|p| p.0), Some(21 * H));
    assert_eq!(plan.earliest(&one(8, 23 * H), false), None, "23 h never fits between two windows");
    // Free now, a 3-h job is not started into the window, nor is a 2-h one tried now only.
    let idle = SlurmPlan::new(20 * H, 48 * H, 60, &nodes(&[8]), |_| false, std::iter::empty(), &[])
        .with_node_windows(Arc::new(NodeWindows::new(1, [(0, vec![(22 * H, 24 * H)])])));
    assert_eq!(idle.earliest(&one(8, 3 * H), false).map(|p| p.0), Some(24 * H + 1));
    assert_eq!(idle.earliest(&one(8, 3 * H), true), None);
    assert_eq!(idle.earliest(&one(8, 2 * H), true).map(|p| p.0), Some(20 * H), "ends as the window starts");
}

/// cons_tres's one-node best fit as it was first written: every run collected, then the
/// one with the fewest usable GPUs (the first on a tie), and in it the node with the
/// fewest free GPUs. [`place_on`] finds it in one sweep; the property below compares them.
fn one_node_by_collected_runs(nodes: &[Node], ok: impl Fn(u32) -> bool, k: u32) -> Option<Allocation> {
    let offer =
        |i: usize| if nodes[i].partition == 0 && ok(i as u32) && nodes[i].free >= k { nodes[i].free } else { 0 };
    let mut runs: Vec<(usize, usize, u64)> = Vec::new();
    let mut open: Option<(usize, u64)> = None;
    for i in 0..nodes.len() {
        let o = offer(i);
        if o > 0 {
            open = Some(open.map_or((i, u64::from(o)), |(s, sum)| (s, sum + u64::from(o))));
        } else if let Some((s, sum)) = open.take() {
            runs.push((s, i - 1, sum));
        }
    }
    if let Some((s, sum)) = open {
        runs.push((s, nodes.len() - 1, sum));
    }
    let &(s, e, _) = runs.iter().min_by_key(|r| r.2)?;
    let best = (s..=e).min_by_key(|&i| nodes[i].free)?;
    Some(vec![(best as u32, k)])
}

/// One backfill pass of a property case: the nodes' free GPUs and partitions, the
/// running jobs `(end, node, GPUs)`, and the jobs tested `(GPUs, walltime, now only)`.
type Pass = (Vec<(u32, u16)>, Vec<(SimTime, u32, u32)>, Vec<(u32, SimTime, bool)>);

/// Runs one pass on `plan` (already reset to it) and records every answer and the map.
fn walk(plan: &mut SlurmPlan, now: SimTime, jobs: &[(u32, SimTime, bool)], order: &mut u64) -> Vec<String> {
    let mut seen = Vec::new();
    for &(k, walltime, now_only) in jobs {
        let found = plan.earliest(&one(k, walltime), now_only);
        seen.push(format!("{found:?}"));
        match found {
            Some((t, alloc)) if t == now => {
                *order += 1;
                plan.started(&alloc, now + walltime, *order);
            }
            Some((t, alloc)) => plan.reserve(t, &alloc, walltime),
            None => {}
        }
        seen.push(format!("{:?} {}", plan.records(), plan.any_free_now()));
    }
    seen
}

proptest::proptest! {
    /// A plan kept from pass to pass and rebuilt with `reset` (its buffers reused: running
    /// jobs' nodes in one buffer, records, node sets, the will-run test's free GPUs) plans
    /// every job of every pass as a plan built afresh with `new` does, and leaves the same
    /// map; running jobs given out of order are sorted as `new` sorts them.
    #[test]
    fn a_kept_plan_plans_as_a_fresh_one(
        passes in proptest::collection::vec(
            (
                proptest::collection::vec((0u32..9, 0u16..2), 1..7),
                proptest::collection::vec((1u64..400, 0u32..7, 1u32..9), 0..8),
                proptest::collection::vec((1u32..9, 1u64..300, proptest::bool::ANY), 0..8),
            ),
            1..8,
        ),
    ) {
        let mut kept = SlurmPlan::default();
        let (mut order_kept, mut order_fresh) = (0, 0);
        for (i, (free, running, jobs)) in passes.iter().enumerate() {
            let now = 10 * i as SimTime;
            let pass: &Pass = &(free.clone(), running.clone(), jobs.clone());
            let ns: Vec<Node> = pass.0.iter().map(|&(f, p)| Node { gpus: 8, free: f.min(8), partition: p }).collect();
            let allocs: Vec<(SimTime, Allocation)> = pass
                .1
                .iter()
                .map(|&(end, n, g)| (now + end, vec![(n % ns.len() as u32, g)]))
                .collect();
            let running = || allocs.iter().enumerate().rev().map(|(j, (e, a))| (*e, j as u64, a));
            let down = |n: u32| n == 5;
            let maintenance = [(200, 230)];
            kept.reset(now, 600, 7, &ns, down, running(), &maintenance);
            let mut fresh = SlurmPlan::new(now, 600, 7, &ns, down, running(), &maintenance);
            proptest::prop_assert_eq!(kept.records(), fresh.records());
            let a = walk(&mut kept, now, &pass.2, &mut order_kept);
            let b = walk(&mut fresh, now, &pass.2, &mut order_fresh);
            proptest::prop_assert_eq!(a, b);
            for k in 1..9 {
                proptest::prop_assert_eq!(
                    place_now(&ns, down, 0, Shape::OneNode(k)),
                    one_node_by_collected_runs(&ns, |n| !down(n), k)
                );
            }
        }
    }
}
