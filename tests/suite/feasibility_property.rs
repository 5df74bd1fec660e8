//! Validation accepts exactly the scenarios in which every job can start (issue 27,
//! item 1): random campuses (node groups in partitions, accounts with GPU and job limits,
//! a group limit) and classes (background and group, with and without node shapes) are
//! checked against an independent oracle, the real node scheduler given the job alone on
//! the empty cluster; accepted scenarios must also run to completion.

use burstsim::cluster::nodes::NodeCluster;
use burstsim::cluster::{QueuedJob, Request};
use burstsim::engine::simulate_until;
use burstsim::scenario::Scenario;
use burstsim::workload::JobStream;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// A random class: partition, GPUs, an optional shape, an optional account (background).
#[derive(Clone, Debug)]
struct GenClass {
    partition: usize,
    gpus: u32,
    shape: Option<(u32, u32)>,
    account: Option<usize>,
}

#[derive(Clone, Debug)]
struct GenCampus {
    /// (nodes, GPUs per node, partition) per node group.
    groups: Vec<(u32, u32, usize)>,
    partitions: usize,
    /// (gpu_limit, max_jobs) per listed account.
    accounts: Vec<(Option<u32>, Option<u32>)>,
    group_limit: Option<u32>,
    background: Vec<GenClass>,
    group: Vec<GenClass>,
}

fn gen_class(partitions: usize, accounts: usize, background: bool) -> impl Strategy<Value = GenClass> {
    (0..partitions, 1u32..=24, prop::option::weighted(0.4, (1u32..=8, 1u32..=8)), prop::option::of(0..accounts.max(1)))
        .prop_map(move |(partition, gpus, shape, account)| {
            let (gpus, shape) = match shape {
                Some((n, g)) => (n * g, Some((n, g))),
                None => (gpus, None),
            };
            GenClass { partition, gpus, shape, account: if background && accounts > 0 { account } else { None } }
        })
}

fn gen_campus() -> impl Strategy<Value = GenCampus> {
    (1usize..=2, 0usize..=2).prop_flat_map(|(partitions, accounts)| {
        (
            prop::collection::vec((1u32..=6, prop::sample::select(vec![1u32, 2, 4, 8])), partitions..=3),
            prop::collection::vec((prop::option::of(1u32..=24), prop::option::weighted(0.3, 1u32..=3)), accounts),
            prop::option::weighted(0.5, 1u32..=24),
            prop::collection::vec(gen_class(partitions, accounts, true), 0..=2),
            prop::collection::vec(gen_class(partitions, accounts, false), 1..=2),
        )
            .prop_map(move |(groups, accounts, group_limit, background, group)| GenCampus {
                // Node group i is in partition i mod P: every partition has nodes.
                groups: groups.into_iter().enumerate().map(|(i, (n, g))| (n, g, i % partitions)).collect(),
                partitions,
                accounts,
                group_limit,
                background,
                group,
            })
    })
}

fn class_toml(table: &str, name: &str, c: &GenClass) -> String {
    let mut s = format!(
        "\n[[{table}]]\nname = \"{name}\"\njobs_per_week = 10\ngpus = {}\nruntime_hours = 1\npartition = \"p{}\"\n",
        c.gpus, c.partition
    );
    if let Some((n, g)) = c.shape {
        s += &format!("nodes = {n}\ngpus_per_node = {g}\n");
    }
    if let Some(a) = c.account {
        s += &format!("account = \"a{a}\"\n");
    }
    if table == "workload.classes" {
        s += "vram_gb = 10\n";
    }
    s
}

/// The scenario text; with `classes` false, only a trivially feasible group class (the
/// oracle's campus: same nodes, partitions and accounts).
fn scenario_toml(g: &GenCampus, classes: bool) -> String {
    let mut s = String::from(
        "[simulation]\nstart_date = \"2026-09-01\"\nhorizon_days = 3\n\n[campus]\nplacement = \"nodes\"\npriority = \"multifactor\"\n",
    );
    if let Some(l) = g.group_limit {
        s += &format!("group_gpu_limit = {l}\n");
    }
    for p in 0..g.partitions {
        s += &format!("\n[[campus.partitions]]\nname = \"p{p}\"\n");
    }
    for (i, (n, per, p)) in g.groups.iter().enumerate() {
        s += &format!(
            "\n[[campus.node_groups]]\nname = \"g{i}\"\nnodes = {n}\ngpus_per_node = {per}\nvram_gb = 80\npartition = \"p{p}\"\n"
        );
    }
    for (i, (limit, jobs)) in g.accounts.iter().enumerate() {
        s += &format!("\n[[campus.accounts]]\nname = \"a{i}\"\n");
        if let Some(l) = limit {
            s += &format!("gpu_limit = {l}\n");
        }
        if let Some(j) = jobs {
            s += &format!("max_jobs = {j}\n");
        }
    }
    if classes {
        for (i, c) in g.background.iter().enumerate() {
            s += &class_toml("background.classes", &format!("b{i}"), c);
        }
        for (i, c) in g.group.iter().enumerate() {
            s += &class_toml("workload.classes", &format!("w{i}"), c);
        }
    } else {
        let one = GenClass { partition: 0, gpus: 1, shape: None, account: None };
        s += &class_toml("workload.classes", "w", &one);
    }
    s += "\n[[policies]]\nname = \"campus-only\"\nkind = \"campus-only\"\n";
    s
}

/// The oracle: the real node scheduler, alone with this job on the empty campus at time
/// 0, starts it; and it would get at least the GPUs it asks for.
fn can_start_alone(campus: &burstsim::scenario::Campus, c: &GenClass, group: bool) -> bool {
    let account = match (group, c.account) {
        (true, _) => campus.group_account,
        (false, Some(a)) => campus.accounts.iter().position(|x| x.name == format!("a{a}")).unwrap() as u16,
        (false, None) => campus.accounts.iter().position(|x| x.name == "others").unwrap() as u16,
    };
    let part = campus.partitions.iter().position(|p| p.name == format!("p{}", c.partition)).unwrap();
    if c.gpus > campus.partitions[part].gpus {
        return false; // a job never gets fewer GPUs than it asks for
    }
    let (nodes, per_node) = c.shape.map_or((0, 0), |(n, g)| (n as u16, g as u16));
    let mut cluster = NodeCluster::new(campus);
    let q = QueuedJob { job: 0, gpus: c.gpus, walltime: 3600, group };
    cluster.enqueue(0, q, Request { account, partition: part as u16, nodes, gpus_per_node: per_node });
    let mut started = Vec::new();
    cluster.schedule(0, &mut started);
    started.len() == 1
}

proptest! {
    #![proptest_config(Config {
        cases: 128,
        rng_seed: RngSeed::Fixed(0x2727),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    })]

    #[test]
    fn prop_validation_accepts_exactly_the_campuses_where_every_job_can_start(g in gen_campus()) {
        let oracle_campus = Scenario::from_toml_str(&scenario_toml(&g, false), "oracle.toml")
            .expect("the campus alone is valid")
            .campus;
        // Each class alone first (a refusal of one class cannot hide another's verdict),
        // then all of them together.
        let alone = |bg: Vec<GenClass>, group: Vec<GenClass>| GenCampus { background: bg, group, ..g.clone() };
        let trivial = GenClass { partition: 0, gpus: 1, shape: None, account: None };
        let mut cases: Vec<(GenCampus, bool)> = Vec::new();
        for c in &g.background {
            cases.push((alone(vec![c.clone()], vec![trivial.clone()]), can_start_alone(&oracle_campus, c, false)));
        }
        for c in &g.group {
            cases.push((alone(vec![], vec![c.clone()]), can_start_alone(&oracle_campus, c, true)));
        }
        let all = cases.iter().all(|(_, f)| *f);
        cases.push((g.clone(), all));
        for (i, (case, feasible)) in cases.iter().enumerate() {
            let text = scenario_toml(case, true);
            match Scenario::from_toml_str(&text, "gen.toml") {
                Ok(s) => {
                    prop_assert!(feasible, "accepted, but some job can never start:\n{text}");
                    if i + 1 < cases.len() {
                        continue;
                    }
                    // Accepted ones run to completion: every job ends, within the budget.
                    let jobs = JobStream::generate(&s, 0);
                    let out = simulate_until(&s, &jobs, 0, 0, &mut (), None, &|| false);
                    let out = out.map_err(|h| format!("{h:?}"));
                    prop_assert!(out.is_ok(), "did not end: {:?}\n{text}", out.err());
                    let out = out.unwrap();
                    prop_assert!(out.records.iter().all(|r| r.end != u64::MAX), "a job never ended:\n{text}");
                }
                Err(e) => prop_assert!(!feasible, "refused, but every job can start: {e}\n{text}"),
            }
        }
    }
}
