//! No job vanishes, no run hangs (issue 27, items 1–5): every class must be able to start
//! somewhere, or the scenario is refused with file:line:key and what would fit; intervals
//! that drive events have lower bounds; a replication that runs away stops with an error,
//! and a cancelled one stops at once.
//!
//! Each catalogue case below panicked, hung or silently went wrong before
//! `scenario::feasibility` (noted per case). The property test checks validation against
//! an independent oracle: the real node scheduler, given the job alone on the empty
//! cluster.

use burstsim::cluster::nodes::NodeCluster;
use burstsim::cluster::{QueuedJob, Request};
use burstsim::engine::{Halt, simulate, simulate_until};
use burstsim::scenario::Scenario;
use burstsim::workload::JobStream;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// The error a text is refused with.
fn error(text: &str) -> String {
    match Scenario::from_toml_str(text, "test.toml") {
        Ok(_) => panic!("the scenario was accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The 1-based line of the only line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let lines: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{needle:?} must be on exactly one line of\n{text}");
    lines[0]
}

/// Refused at `test.toml:<line of at>: <key>: ` with every `says` part.
fn assert_invalid(text: &str, at: &str, key: &str, says: &[&str]) -> String {
    let e = error(text);
    let prefix = format!("test.toml:{}: {key}: ", line_of(text, at));
    assert!(e.starts_with(&prefix), "expected the error to start with {prefix:?}, got:\n{e}");
    for s in says {
        assert!(e.contains(s), "expected the error to mention {s:?}, got:\n{e}");
    }
    e
}

/// A 48-node × 8-GPU campus (the issue's), an hourly offer of `offer_gpus` GPUs at most,
/// and the given classes and policies.
fn campus48(classes: &str, policies: &str, offer_gpus: u32) -> String {
    format!(
        r#"[simulation]
start_date = "2026-09-01"
horizon_days = 30
replications = 2

[campus]
placement = "nodes"
priority = "multifactor"
nodes = 48
gpus_per_node = 8
vram_gb = 80
{classes}
[[cloud.offers]]
name = "hourly"
gpu_type = "A800"
vram_gb = 80
billing = "hourly"
price_per_gpu_hour_cny = 5.0
capacity_gpus = {offer_gpus}
{policies}"#
    )
}

const GROUP_SMALL: &str = r#"
[[workload.classes]]
name = "small"
jobs_per_week = 5
gpus = 1
runtime_hours = 1
vram_gb = 24
"#;

const CAMPUS_ONLY: &str = r#"
[[policies]]
name = "campus-only"
kind = "campus-only"
"#;

const OVERFLOW: &str = r#"
[[policies]]
name = "overflow"
kind = "overflow-timeout"
threshold_hours = 4
offers = ["hourly"]
"#;

// ---- group classes --------------------------------------------------------------

#[test]
fn a_shape_of_more_nodes_than_the_campus_has_is_refused_under_every_policy() {
    // Before: accepted (384 GPUs ≥ 60), then panicked in policy.rs ("validated: some
    // place fits every class") under overflow with an offer too small, and under
    // campus-only silently used the offer.
    let wide = "\n[[workload.classes]]\nname = \"wide\"\njobs_per_week = 2\ngpus = 60\nnodes = 60\ngpus_per_node = 1\nruntime_hours = 2\nvram_gb = 24\n";
    for policies in [OVERFLOW, CAMPUS_ONLY] {
        let text = campus48(wide, policies, 8);
        assert_invalid(
            &text,
            "[[workload.classes]]",
            "workload.classes[0]",
            &[
                "class 'wide' needs up to 60 GPUs",
                "the shape 60 nodes × 1 GPU needs",
                "has 48 nodes",
                "ask for fewer nodes",
            ],
        );
    }
    // With an offer that can take it, the overflow policy may run it; campus-only may not.
    let text = campus48(wide, OVERFLOW, 64);
    let s = Scenario::from_toml_str(&text, "test.toml").expect("the offer takes the wide jobs");
    let out = simulate(&s, &JobStream::generate(&s, 0), 0, 0);
    assert!(out.records.iter().all(|r| r.end != u64::MAX), "every job ends");
    let e = assert_invalid(&campus48(wide, CAMPUS_ONLY, 64), "[[workload.classes]]", "workload.classes[0]", &[]);
    assert!(e.contains("campus-only never uses the cloud"), "{e}");
}

#[test]
fn campus_only_refuses_a_class_whose_shape_cannot_be_placed_although_its_gpus_fit() {
    // The issue's case: 2 nodes × 4 GPUs in a partition with one 8-GPU node. Before,
    // campus-only sent these jobs to the cloud (2.9% cloud jobs, a wrong baseline).
    let text = r#"[simulation]
start_date = "2026-09-01"
horizon_days = 30

[campus]
placement = "nodes"

[[campus.partitions]]
name = "big"

[[campus.partitions]]
name = "small"

[[campus.node_groups]]
name = "fat"
nodes = 1
gpus_per_node = 8
vram_gb = 80
partition = "big"

[[campus.node_groups]]
name = "thin"
nodes = 8
gpus_per_node = 4
vram_gb = 80
partition = "small"

[[workload.classes]]
name = "pair"
jobs_per_week = 3
gpus = 8
nodes = 2
gpus_per_node = 4
partition = "big"
runtime_hours = 4
vram_gb = 40

[[cloud.offers]]
name = "hourly"
gpu_type = "A800"
vram_gb = 80
billing = "hourly"
price_per_gpu_hour_cny = 5.0

[[policies]]
name = "campus-only"
kind = "campus-only"
"#;
    assert_invalid(
        text,
        "[[workload.classes]]",
        "workload.classes[0]",
        &["campus-only never uses the cloud", "partition 'big' has 1 node that", "2 nodes × 4 GPUs"],
    );
    // In the partition that has the nodes, it is accepted.
    let ok = text.replacen("partition = \"big\"\nruntime_hours", "partition = \"small\"\nruntime_hours", 1);
    Scenario::from_toml_str(&ok, "test.toml").expect("eight 4-GPU nodes hold 2 × 4");
}

#[test]
fn a_group_limit_below_the_whole_nodes_a_job_would_hold_is_refused() {
    // 12 GPUs on 8-GPU nodes take 2 whole nodes (16 GPUs), which a limit of 12 holds for
    // ever: before, campus-only accepted it and the jobs never started.
    let class =
        "\n[[workload.classes]]\nname = \"twelve\"\njobs_per_week = 2\ngpus = 12\nruntime_hours = 2\nvram_gb = 24\n";
    let text = campus48(class, CAMPUS_ONLY, 8).replace("vram_gb = 80\n\n", "vram_gb = 80\ngroup_gpu_limit = 12\n\n");
    assert_invalid(
        &text,
        "[[workload.classes]]",
        "workload.classes[0]",
        &["account 'group' may hold at most 12 GPUs", "would hold 16", "raise the account's gpu_limit"],
    );
    let ok = text.replace("group_gpu_limit = 12", "group_gpu_limit = 16");
    Scenario::from_toml_str(&ok, "test.toml").expect("a limit of two whole nodes admits it");
}

/// One class of 16 GPUs (more than the 8-GPU campus) with a monthly offer whose only
/// rental is `rental`; the policy may use that offer only.
fn rented_only(rental: &str) -> String {
    format!(
        r#"[simulation]
start_date = "2026-09-01"
horizon_days = 30

[campus]
gpus = 8
vram_gb = 80

[[workload.classes]]
name = "big"
jobs_per_week = 3
gpus = 16
runtime_hours = 10
vram_gb = 40

[[cloud.offers]]
name = "monthly"
gpu_type = "A800"
vram_gb = 80
billing = "monthly"
price_per_gpu_month_cny = 2500
gpus = 16
{rental}

[[policies]]
name = "cloud"
kind = "cloud-only"
offers = ["monthly"]
"#
    )
}

#[test]
fn a_class_whose_only_place_is_an_offer_rented_for_some_months_is_refused() {
    // Before: exit 0, the jobs never ran and vanished from every metric (never rented),
    // or waited for a rental too short for them.
    for rental in [
        "rent_periods = [{ start = \"2020-01-01\", end = \"2020-01-31\" }]", // never rented in the run
        "rent_periods = [{ start = \"2026-09-10\", end = \"2026-09-10\" }]", // one day, shorter than many jobs
    ] {
        assert_invalid(
            &rented_only(rental),
            "[[workload.classes]]",
            "workload.classes[0]",
            &[
                "class 'big' needs up to 16 GPUs",
                "'monthly' is rented only for some months",
                "wait in its line for ever",
            ],
        );
    }
    // Rented the whole time, the offer is a sure place.
    let s = Scenario::from_toml_str(&rented_only(""), "test.toml").expect("always rented");
    let out = simulate(&s, &JobStream::generate(&s, 0), 0, 0);
    assert!(!out.records.is_empty() && out.records.iter().all(|r| r.end != u64::MAX), "every job ends");
}

// ---- background classes -----------------------------------------------------------

/// The 48 × 8 campus with one background class `bg` (and a small group class).
fn with_background(bg: &str, accounts: &str) -> String {
    campus48(&format!("{accounts}\n[[background.classes]]\n{bg}\n{GROUP_SMALL}"), CAMPUS_ONLY, 8)
}

#[test]
fn background_classes_that_can_never_start_are_refused() {
    // Before: each one hung in the node model (the priority recalculation woke the
    // scheduler for ever) and a single SIGTERM could not stop it.
    let lab = "\n[[campus.accounts]]\nname = \"lab\"\ngpu_limit = 4\n";
    let cases: [(&str, &str, &str, &str, &[&str]); 3] = [
        (
            "name = \"bg\"\njobs_per_week = 5\ngpus = 16\naccount = \"lab\"\nruntime_hours = 2\n",
            lab,
            "gpus = 16",
            "background.classes[0].gpus",
            &["class 'bg' can never start", "account 'lab' may hold at most 4 GPUs", "would hold 16"],
        ),
        (
            "name = \"bg\"\njobs_per_week = 5\ngpus = 60\nnodes = 60\ngpus_per_node = 1\nruntime_hours = 2\n",
            "",
            "nodes = 60",
            "background.classes[0].nodes",
            &["60 nodes × 1 GPU needs", "partition 'campus' has 48 nodes"],
        ),
        (
            "name = \"bg\"\njobs_per_week = 5\ngpus = 400\nruntime_hours = 2\n",
            "",
            "gpus = 400",
            "background.classes[0].gpus",
            &["400 GPUs", "384"],
        ),
    ];
    for (bg, accounts, at, key, says) in cases {
        assert_invalid(&with_background(bg, accounts), at, key, says);
    }
}

#[test]
fn a_background_class_bigger_than_its_partition_is_refused() {
    let text = r#"[simulation]
start_date = "2026-09-01"
horizon_days = 30

[campus]
placement = "nodes"

[[campus.partitions]]
name = "a"

[[campus.partitions]]
name = "b"

[[campus.node_groups]]
name = "na"
nodes = 2
gpus_per_node = 8
vram_gb = 80
partition = "a"

[[campus.node_groups]]
name = "nb"
nodes = 8
gpus_per_node = 8
vram_gb = 80
partition = "b"

[[background.classes]]
name = "bg"
jobs_per_week = 5
gpus = 32
partition = "a"
runtime_hours = 2

[[workload.classes]]
name = "small"
jobs_per_week = 5
gpus = 1
runtime_hours = 1
vram_gb = 24
"#;
    assert_invalid(text, "gpus = 32", "background.classes[0].gpus", &["32 GPUs do not fit partition 'a'", "16 GPUs"]);
}

// ---- intervals that drive events --------------------------------------------------

#[test]
fn sub_minute_and_sub_hour_failure_and_outage_intervals_are_refused() {
    // Before: accepted (the mean only had to be above 0); a 30-day run never ended.
    let base = campus48(GROUP_SMALL, CAMPUS_ONLY, 8);
    let cases = [
        (
            "[campus.node_failures]\ntime_between_failures_hours = { kind = \"exponential\", mean = 0.0001 }\nrepair_hours = 2\n",
            "time_between_failures_hours",
            "campus.node_failures.time_between_failures_hours",
            "give at least 1 h",
        ),
        (
            "[campus.node_failures]\ntime_between_failures_hours = 100\nrepair_hours = { kind = \"exponential\", mean = 0.001 }\n",
            "repair_hours",
            "campus.node_failures.repair_hours",
            "give at least 1 minute (1/60 h)",
        ),
        (
            "[campus.outages]\ntime_between_hours = 0.5\nduration_hours = 1\n",
            "time_between_hours",
            "campus.outages.time_between_hours",
            "give at least 1 h",
        ),
        (
            "[campus.outages]\ntime_between_hours = 100\nduration_hours = 0.001\n",
            "duration_hours",
            "campus.outages.duration_hours",
            "give at least 1 minute (1/60 h)",
        ),
    ];
    for (table, at, key, says) in cases {
        let text = base.replace("vram_gb = 80\n\n", &format!("vram_gb = 80\n\n{table}\n"));
        assert_invalid(&text, at, key, &[says]);
        // At the bound itself the scenario is accepted.
        let at_bound = text.replace("0.0001", "1").replace("0.001", "0.0166667").replace("= 0.5", "= 1");
        Scenario::from_toml_str(&at_bound, "test.toml").expect("the bound itself is allowed");
    }
}

// ---- the watchdog and cancellation --------------------------------------------------

/// A valid scenario made infeasible behind validation's back (fields are public): the
/// background class's account may hold fewer GPUs than its jobs ask, so they never start
/// and the multifactor recalculation wakes the scheduler for ever.
fn stuck_scenario() -> Scenario {
    let text = with_background(
        "name = \"bg\"\njobs_per_week = 20\ngpus = 8\naccount = \"lab\"\nruntime_hours = 2\n",
        "\n[[campus.accounts]]\nname = \"lab\"\n",
    );
    let mut s = Scenario::from_toml_str(&text, "test.toml").expect("valid before the mutation");
    let lab = s.campus.accounts.iter().position(|a| a.name == "lab").unwrap();
    s.campus.accounts[lab].gpu_limit = Some(4);
    s
}

#[test]
fn a_replication_that_never_ends_stops_with_the_watchdogs_error() {
    let s = stuck_scenario();
    let jobs = JobStream::generate(&s, 0);
    let started = std::time::Instant::now();
    let r = simulate_until(&s, &jobs, 0, 0, &mut (), None, &|| false);
    let secs = started.elapsed().as_secs_f64();
    match r {
        Err(Halt::Runaway(e)) => {
            let msg = e.to_string();
            assert!(msg.contains("replication 0 of policy 'campus-only'"), "{msg}");
            assert!(msg.contains("some work never ends"), "{msg}");
            assert!(e.events > e.budget, "{e:?}");
        }
        other => panic!("expected a runaway, got {:?}", other.map(|o| o.records.len())),
    }
    assert!(secs < 30.0, "the default budget ran out in {secs:.1} s");
}

#[test]
fn a_cancelled_replication_stops_at_once_and_checks_never_change_results() {
    let s = stuck_scenario();
    let jobs = JobStream::generate(&s, 0);
    let started = std::time::Instant::now();
    let r = simulate_until(&s, &jobs, 0, 0, &mut (), None, &|| true);
    assert!(matches!(r, Err(Halt::Cancelled)), "cancelled");
    assert!(started.elapsed().as_secs_f64() < 1.0, "stopped within a second");

    // A valid scenario gives the same records with and without the checks.
    let text = campus48(GROUP_SMALL, OVERFLOW, 8);
    let s = Scenario::from_toml_str(&text, "test.toml").unwrap();
    let jobs = JobStream::generate(&s, 3);
    let plain = simulate(&s, &jobs, 0, 3);
    let checked = simulate_until(&s, &jobs, 0, 3, &mut (), None, &|| false).expect("within budget");
    assert_eq!(plain.records, checked.records);
    assert_eq!(format!("{:?}", plain.metrics), format!("{:?}", checked.metrics));
}

// ---- the property: validation accepts exactly the scenarios whose jobs can all start ----

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
