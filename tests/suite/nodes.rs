//! The campus as Slurm runs it, with known answers: fragmentation, best fit, reservations
//! that backfill never delays, fair-share order, limit holds and partitions; and the
//! invariants (GPUs in use never exceed a node's GPUs, jobs stay in their partition, every
//! job ends exactly once) under every policy on random workloads.

use std::collections::HashMap;

use burstsim::engine::{Observer, Place, simulate, simulate_observed};
use burstsim::job::Job;
use burstsim::scenario::Scenario;
use burstsim::units::{HOUR, SimTime};
use burstsim::workload::JobStream;

/// A campus of `nodes` × 8 GPUs on nodes, easy-backfill, with `extra` TOML appended to
/// `[campus]` and after it.
fn campus(nodes: u32, campus_extra: &str, rest: &str) -> Scenario {
    let text = format!(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 30\n\
         [campus]\nplacement = \"nodes\"\nnodes = {nodes}\ngpus_per_node = 8\nvram_gb = 80\nscheduler = \"easy-backfill\"\n\
         bf_interval_seconds = 1\n{campus_extra}\n{rest}\n\
         [[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    Scenario::from_toml_str(&text, "nodes-test.toml").expect("valid scenario")
}

/// A background job: submitted at `submit` seconds, `gpus` GPUs, running `runtime`
/// seconds with an exact walltime request.
fn job(submit: SimTime, gpus: u32, runtime: SimTime) -> Job {
    Job::plain(submit, gpus, runtime, false)
}

/// Where and when each job started.
#[derive(Default)]
struct Starts {
    at: HashMap<u32, SimTime>,
    nodes: HashMap<u32, Vec<(u32, u32)>>,
}

impl Observer for Starts {
    fn started(&mut self, t: SimTime, job: u32, _place: Place, _gpus: u32) {
        self.at.entry(job).or_insert(t);
    }
    fn placed(&mut self, _t: SimTime, job: u32, nodes: &[(u32, u32)]) {
        self.nodes.entry(job).or_insert_with(|| nodes.to_vec());
    }
}

fn run(scn: &Scenario, jobs: Vec<Job>) -> Starts {
    let stream = JobStream::from_jobs(jobs);
    let mut s = Starts::default();
    simulate_observed(scn, &stream, 0, 0, &mut s);
    s
}

#[test]
fn eight_free_gpus_spread_over_eight_nodes_do_not_start_an_eight_gpu_job() {
    // Eight nodes each run a 7-GPU job (until 10 h, 11 h, …); an 8-GPU job arrives at 1 s
    // while 8 GPUs are free in all: it must wait for the first node to empty, at 10 h.
    let scn = campus(8, "", "");
    let mut jobs: Vec<Job> = (0..8).map(|i| job(0, 7, (10 + i) * HOUR)).collect();
    jobs.push(job(1, 8, HOUR));
    let s = run(&scn, jobs);
    assert_eq!(s.at[&8], 10 * HOUR, "the 8-GPU job waits for a whole node");
    // On a pool of the same 64 GPUs it would start at once.
    let pool = Scenario::from_toml_str(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 30\n[campus]\ngpus = 64\nvram_gb = 80\n\
         scheduler = \"easy-backfill\"\n[[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 1\n",
        "pool.toml",
    )
    .unwrap();
    let mut jobs: Vec<Job> = (0..8).map(|i| job(0, 7, (10 + i) * HOUR)).collect();
    jobs.push(job(1, 8, HOUR));
    assert_eq!(run(&pool, jobs).at[&8], 1);
}

#[test]
fn best_fit_and_a_reservation_that_backfill_does_not_delay() {
    // Two 8-GPU nodes. Job 0 takes 2 GPUs of node 0 until 10 h; job 1 takes 5 of node 1
    // until 4 h. A 2-GPU job then goes to node 1 (3 free: the tightest fit), not node 0.
    let scn = campus(2, "", "");
    let jobs = vec![job(0, 2, 10 * HOUR), job(0, 5, 4 * HOUR), job(10, 2, 20 * HOUR)];
    let s = run(&scn, jobs);
    assert_eq!(s.nodes[&2], vec![(1, 2)], "best fit: the node with the fewest free GPUs that fit");

    // Reservation: node 0 has 2 GPUs busy until 10 h, node 1 has 7 busy until 4 h. An
    // 8-GPU head (submitted at 10 s) is planned on node 1 at 4 h. A 1-GPU job of 2 h
    // backfills at once; a 6-GPU job of 5 h fits node 0 now and does not touch node 1:
    // it starts too; a 1-GPU job of 10 h fits node 1 now but would cross the head's
    // reservation, so it may not start there: it goes to node 0 only if room is left
    // (node 0 is full after the 6-GPU job), else it waits. The head starts at 4 h.
    let jobs = vec![
        job(0, 2, 10 * HOUR),
        job(0, 7, 4 * HOUR),
        job(10, 8, HOUR),
        job(20, 1, 2 * HOUR),
        job(30, 6, 5 * HOUR),
        job(40, 1, 10 * HOUR),
    ];
    let s = run(&scn, jobs);
    assert_eq!(s.at[&2], 4 * HOUR, "the head starts at its reservation, not later");
    assert!(s.at[&3] < 60, "a short job backfills at once");
    assert!(s.at[&4] < 60, "a job on another node backfills at once");
    assert!(s.at[&5] >= 4 * HOUR, "a long job may not delay the head's reservation");
}

#[test]
fn fair_share_puts_a_light_account_ahead_of_a_heavy_one() {
    // One 8-GPU node, fair-share only. Account "heavy" ran 8 GPUs for 2 days; then, with
    // the node busy, heavy submits an 8-GPU job before light does: light's goes first.
    let accounts = "priority = \"multifactor\"\n[campus.multifactor]\nweight_age = 0\nweight_job_size = 0\n\
                    weight_partition = 0\ncalc_period_minutes = 1\n\
                    [[campus.accounts]]\nname = \"heavy\"\n[[campus.accounts]]\nname = \"light\"\n";
    let scn = campus(1, accounts, "");
    let (heavy, light) = (0u16, 1u16);
    let mut jobs = vec![job(0, 8, 48 * HOUR), job(HOUR, 8, HOUR), job(2 * HOUR, 8, HOUR)];
    jobs[0].account = heavy;
    jobs[1].account = heavy;
    jobs[2].account = light;
    let s = run(&scn, jobs.clone());
    assert_eq!(s.at[&2], 48 * HOUR, "light's later job starts first");
    assert_eq!(s.at[&1], 49 * HOUR);
    // Without fair-share (FIFO) submission order decides.
    let fifo = campus(1, "[[campus.accounts]]\nname = \"heavy\"\n[[campus.accounts]]\nname = \"light\"\n", "");
    let s = run(&fifo, jobs);
    assert_eq!((s.at[&1], s.at[&2]), (48 * HOUR, 49 * HOUR));
}

#[test]
fn a_job_over_its_accounts_gpu_limit_is_held_without_blocking_others() {
    // Account "capped" may hold 8 GPUs (GrpTRES). Three 4-GPU jobs of it and then a
    // 4-GPU job of "others": the third capped job is held until one of its own ends,
    // while the other account's job starts at once although it came later.
    let scn = campus(2, "[[campus.accounts]]\nname = \"capped\"\ngpu_limit = 8\n", "");
    let mut jobs = vec![job(0, 4, 5 * HOUR), job(0, 4, 7 * HOUR), job(10, 4, HOUR), job(20, 4, HOUR)];
    for j in &mut jobs[..3] {
        j.account = 0;
    }
    let s = run(&scn, jobs);
    assert_eq!(s.at[&2], 5 * HOUR, "held by the account's limit until its first job ends");
    assert!(s.at[&3] < 60, "another account's job is not blocked by the held one");
}

#[test]
fn a_job_never_runs_outside_its_partition() {
    // Partition "a100" has one node, "v100" two. Four 8-GPU a100 jobs run one at a time on
    // node 0 although the v100 nodes are idle.
    let groups = "[[campus.partitions]]\nname = \"a100\"\n[[campus.partitions]]\nname = \"v100\"\n\
                  [[campus.node_groups]]\nname = \"a\"\nnodes = 1\ngpus_per_node = 8\nvram_gb = 80\npartition = \"a100\"\n\
                  [[campus.node_groups]]\nname = \"v\"\nnodes = 2\ngpus_per_node = 8\nvram_gb = 32\npartition = \"v100\"\n";
    let text = format!(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 30\n[campus]\nplacement = \"nodes\"\n\
         scheduler = \"easy-backfill\"\n{groups}\n[[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 1\n"
    );
    let scn = Scenario::from_toml_str(&text, "partitions.toml").unwrap();
    let s = run(&scn, (0..4).map(|i| job(i, 8, HOUR)).collect());
    for j in 0..4u32 {
        assert_eq!(s.nodes[&j], vec![(0, 8)], "job {j} must run on the a100 node");
        assert_eq!(s.at[&j], u64::from(j) * HOUR);
    }
}

/// Checks node-level invariants as jobs start and end.
#[derive(Default)]
struct NodeChecker {
    node_gpus: Vec<u32>,
    node_partition: Vec<u16>,
    job_partition: Vec<u16>,
    used: Vec<u32>,
    held: HashMap<u32, Vec<(u32, u32)>>,
    completions: HashMap<u32, u32>,
}

impl Observer for NodeChecker {
    fn placed(&mut self, t: SimTime, job: u32, nodes: &[(u32, u32)]) {
        assert!(self.held.insert(job, nodes.to_vec()).is_none(), "job {job} placed twice at {t}");
        for &(n, g) in nodes {
            let n = n as usize;
            self.used[n] += g;
            assert!(self.used[n] <= self.node_gpus[n], "node {n} over its GPUs at {t}");
            assert_eq!(self.node_partition[n], self.job_partition[job as usize], "job {job} ran outside its partition");
        }
    }
    fn ended(&mut self, _t: SimTime, job: u32, place: Place, _gpus: u32, completed: bool) {
        if place == Place::Campus {
            for (n, g) in self.held.remove(&job).expect("a campus job was placed") {
                self.used[n as usize] -= g;
            }
        }
        if completed {
            *self.completions.entry(job).or_default() += 1;
        }
    }
}

#[test]
fn invariants_hold_on_nodes_under_every_policy() {
    // The tiny fixture's workload and every policy kind, on 8 nodes × 8 GPUs in two
    // partitions, multifactor priority, limits for two accounts.
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml")
        .unwrap()
        .replace("gpus = 64\nvram_gb = 80\n", "placement = \"nodes\"\npriority = \"multifactor\"\nbf_interval_seconds = 30\n")
        .replace(
            "[[campus.maintenance]]",
            "[[campus.partitions]]\nname = \"main\"\n[[campus.partitions]]\nname = \"small\"\nprice_per_gpu_hour_cny = 1.0\n\
             [[campus.node_groups]]\nname = \"big\"\nnodes = 6\ngpus_per_node = 8\nvram_gb = 80\npartition = \"main\"\n\
             [[campus.node_groups]]\nname = \"four\"\nnodes = 4\ngpus_per_node = 4\nvram_gb = 80\npartition = \"small\"\n\
             [[campus.accounts]]\nname = \"others\"\nfairshare = 4\ngpu_limit = 40\nmax_jobs = 30\nmax_submit = 400\n\
             [[campus.maintenance]]",
        )
        // The other groups' jobs go to the small partition (4-GPU nodes: 8-GPU jobs take two).
        .replace("[[background.classes]]\nname = \"others\"\n", "[[background.classes]]\nname = \"others\"\npartition = \"small\"\n");
    let scn = Scenario::from_toml_str(&text, "tiny-nodes.toml").expect("tiny on nodes");
    let mut node_gpus = Vec::new();
    let mut node_partition = Vec::new();
    for g in &scn.campus.node_groups {
        for _ in 0..g.nodes {
            node_gpus.push(g.gpus_per_node);
            node_partition.push(g.partition);
        }
    }
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        for p in 0..scn.policies.len() {
            let mut c = NodeChecker {
                node_gpus: node_gpus.clone(),
                node_partition: node_partition.clone(),
                job_partition: jobs.jobs.iter().map(|j| j.partition).collect(),
                used: vec![0; node_gpus.len()],
                ..NodeChecker::default()
            };
            let out = simulate_observed(&scn, &jobs, p, r, &mut c);
            for i in 0..jobs.jobs.len() as u32 {
                assert_eq!(c.completions.get(&i), Some(&1), "{}: job {i} must end exactly once", scn.policies[p].name);
            }
            assert!(c.used.iter().all(|&u| u == 0), "GPUs released at the end");
            assert!(out.records.iter().all(|rec| rec.end != u64::MAX));
        }
    }
    // Same seed, same records.
    let jobs = JobStream::generate(&scn, 0);
    assert_eq!(simulate(&scn, &jobs, 2, 0).records, simulate(&scn, &jobs, 2, 0).records);
}
