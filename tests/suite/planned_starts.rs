//! Slurm's planned starts, pass by pass, on the state Slurm had (issue 22 item 2).
//!
//! A whole-run replay cannot isolate the planner: one start a second off changes the
//! state of every later pass. This check does not replay. For every backfill pass of a
//! recorded run it rebuilds what slurmctld had at that moment from the run's digest of
//! slurmctld's log (`scripts/slurm-replay.py run --digest`, or `digest` afterwards; the
//! format is in that script's docs) and the run's results file: the running jobs with
//! their nodes, start times and time limits, the queued jobs in job-id order (every
//! priority is 1 on that cluster, so job-id order is Slurm's), the pass's second and the
//! clock's phase on Unix time. It runs one backfill pass of burstsim's Slurm planner
//! ([`SlurmPlan`]) and of the exact planner ([`Plan`]) on that state and compares, job by
//! job, the start each gives with the one slurmctld logged: `_dump_job_sched`'s planned
//! start, or the pass's own start of the job (`_start_job`, a start now).
//!
//! A test-only harness, not a `validate` option: the digest is this repository's recording
//! format, and the check drives the planners' public entry points directly (no engine, no
//! trace reader), so what it measures is the planner and nothing else. Numbers are pinned
//! in `planned_starts_on_state_matched_passes_are_as_docs_validation_says` and written
//! in docs/VALIDATION.md; `cargo test --test suite planned_starts -- --nocapture` prints
//! them, and `BURSTSIM_PLANNED_STARTS_DIFF=1` every difference.

use std::collections::{BTreeMap, HashMap};

use burstsim::cluster::placement::{Allocation, Node};
use burstsim::cluster::plan::{Ask, Held, Plan};
use burstsim::cluster::slurm_planner::SlurmPlan;
use burstsim::scenario::shape::Shape;

/// The cluster of scripts/slurm-cluster.sh: 4 nodes of 8 CPUs (a CPU is a GPU here).
const NODES: usize = 4;
const PER_NODE: u32 = 8;
/// Its `bf_window=60` (minutes) and `bf_resolution=1`, in seconds.
const BF_WINDOW: u64 = 3600;
const BF_RESOLUTION: u64 = 1;
/// Its `bf_interval` (seconds): the cycle.
const BF_INTERVAL: u64 = 2;

/// The recorded runs with a digest: (results file, digest).
pub const RUNS: &[(&str, &str)] = &[
    ("tests/fixtures/slurm/recorded/frag-40-4.csv", "tests/fixtures/slurm/recorded/frag-40-4.digest.csv"),
    ("tests/fixtures/slurm/recorded/frag-40-5.csv", "tests/fixtures/slurm/recorded/frag-40-5.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-6.csv", "tests/fixtures/slurm/recorded/random-30-6.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-7.csv", "tests/fixtures/slurm/recorded/random-30-7.digest.csv"),
    // Recorded on 4 December 2026, after the planner was built and pinned on the runs above
    // (an out-of-sample check of it), on an otherwise idle machine.
    ("tests/fixtures/slurm/recorded/frag-40-6.csv", "tests/fixtures/slurm/recorded/frag-40-6.digest.csv"),
    ("tests/fixtures/slurm/recorded/frag-40-7.csv", "tests/fixtures/slurm/recorded/frag-40-7.digest.csv"),
    ("tests/fixtures/slurm/recorded/frag-40-8.csv", "tests/fixtures/slurm/recorded/frag-40-8.digest.csv"),
    ("tests/fixtures/slurm/recorded/frag-40-9.csv", "tests/fixtures/slurm/recorded/frag-40-9.digest.csv"),
    ("tests/fixtures/slurm/recorded/frag-40-10.csv", "tests/fixtures/slurm/recorded/frag-40-10.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-8.csv", "tests/fixtures/slurm/recorded/random-30-8.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-9.csv", "tests/fixtures/slurm/recorded/random-30-9.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-10.csv", "tests/fixtures/slurm/recorded/random-30-10.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-11.csv", "tests/fixtures/slurm/recorded/random-30-11.digest.csv"),
    ("tests/fixtures/slurm/recorded/random-30-12.csv", "tests/fixtures/slurm/recorded/random-30-12.digest.csv"),
];

/// The runs of a list recorded before the planner was built (its in-sample runs) and the
/// ones recorded after (out of sample): the first run number of the later ones.
const FIRST_LATER_RUN: fn(&str) -> u32 = |list| if list == "frag-40" { 6 } else { 8 };

/// One job of a recorded run.
#[derive(Clone, Debug)]
struct Job {
    name: String,
    slurm_id: u64,
    cpus: u32,
    nodes: u32,
    limit: u64,
}

/// One row of a digest.
#[derive(Clone, Debug)]
struct Row {
    t: f64,
    event: String,
    job: String,
    start: Option<u64>,
    nodes: Vec<u32>,
}

/// A decision of one pass for one job: its start and nodes (0-based).
#[derive(Clone, Debug, PartialEq)]
struct Decision {
    start: u64,
    nodes: Vec<u32>,
}

/// The state at one backfill pass and what slurmctld decided in it.
#[derive(Clone, Debug)]
struct Pass {
    now: u64,
    /// Running jobs: (index into the jobs, start, nodes).
    running: Vec<(usize, u64, Vec<u32>)>,
    /// Queued jobs in Slurm's order (job id).
    queued: Vec<usize>,
    /// Slurm's decisions: job index → planned start (or the pass's start) and nodes.
    slurm: BTreeMap<usize, Decision>,
}

/// A recorded run read back: its jobs, the phase of its clock on Unix time, and its passes.
struct Run {
    jobs: Vec<Job>,
    phase: u64,
    passes: Vec<Pass>,
}

/// `n3` → [2]; `n[1-2]` → [0, 1]; `n[1,3-4]` → [0, 2, 3].
fn node_list(s: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("node list '{s}' is not n<k> or n[<ranges>]");
    let body = s.strip_prefix('n').ok_or_else(bad)?;
    let ranges = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')).unwrap_or(body);
    let mut out = Vec::new();
    for part in ranges.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if a == 0 || b < a {
            return Err(bad());
        }
        out.extend((a..=b).map(|k| k - 1));
    }
    Ok(out)
}

fn records(path: &str) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let headers = r.headers().unwrap_or_else(|e| panic!("{path}: {e}")).clone();
    r.records()
        .enumerate()
        .map(|(i, rec)| {
            let rec = rec.unwrap_or_else(|e| panic!("{path} row {}: {e}", i + 2));
            headers.iter().zip(rec.iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect()
        })
        .collect()
}

fn field<'a>(row: &'a HashMap<String, String>, key: &str, path: &str) -> &'a str {
    row.get(key).map(String::as_str).unwrap_or_else(|| panic!("{path}: no column {key}"))
}

fn number<T: std::str::FromStr>(row: &HashMap<String, String>, key: &str, path: &str) -> T {
    let v = field(row, key, path);
    v.parse().unwrap_or_else(|_| panic!("{path}: {key} = '{v}' is not a number"))
}

/// Reads a results file and its digest and rebuilds every pass.
fn read_run(results: &str, digest: &str) -> Run {
    let jobs: Vec<Job> = records(results)
        .iter()
        .map(|r| Job {
            name: field(r, "job", results).to_string(),
            slurm_id: number(r, "slurm_id", results),
            cpus: number(r, "cpus", results),
            nodes: number(r, "nodes", results),
            limit: number(r, "timelimit_s", results),
        })
        .collect();
    let index: HashMap<&str, usize> = jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let rows: Vec<Row> = records(digest)
        .iter()
        .map(|r| Row {
            t: number(r, "t_s", digest),
            event: field(r, "event", digest).to_string(),
            job: field(r, "job", digest).to_string(),
            start: Some(field(r, "start_s", digest)).filter(|s| !s.is_empty()).map(|_| number(r, "start_s", digest)),
            nodes: match field(r, "nodes", digest) {
                "" => Vec::new(),
                s => node_list(s).unwrap_or_else(|e| panic!("{digest}: {e}")),
            },
        })
        .collect();
    let origin = rows.first().filter(|r| r.event == "origin").and_then(|r| r.start);
    let phase = origin.unwrap_or_else(|| panic!("{digest}: the first row is not the origin")) % 30;
    let job_of =
        |r: &Row| *index.get(r.job.as_str()).unwrap_or_else(|| panic!("{digest}: job '{}' not in {results}", r.job));

    let mut submitted: BTreeMap<u64, usize> = BTreeMap::new(); // slurm id → job
    let mut running: BTreeMap<usize, (u64, Vec<u32>)> = BTreeMap::new();
    let mut passes: Vec<Pass> = Vec::new();
    let mut open: Option<Pass> = None; // the pass whose decisions are being read
    for r in &rows[1..] {
        match r.event.as_str() {
            "pass" => {
                passes.extend(open.take());
                open = Some(Pass {
                    now: r.t.floor() as u64,
                    running: running.iter().map(|(&j, (s, n))| (j, *s, n.clone())).collect(),
                    queued: submitted.values().copied().filter(|j| !running.contains_key(j)).collect(),
                    slurm: BTreeMap::new(),
                });
            }
            "plan" => {
                let p = open.as_mut().unwrap_or_else(|| panic!("{digest}: a plan before any pass"));
                let start = r.start.unwrap_or_else(|| panic!("{digest}: a plan without start_s"));
                p.slurm.insert(job_of(r), Decision { start, nodes: r.nodes.clone() });
            }
            "submit" => {
                let j = job_of(r);
                submitted.insert(jobs[j].slurm_id, j);
            }
            "start" | "bf_start" => {
                let j = job_of(r);
                let start = r.t.floor() as u64;
                if r.event == "bf_start" {
                    let p = open.as_mut().unwrap_or_else(|| panic!("{digest}: a backfill start before any pass"));
                    p.slurm.insert(j, Decision { start, nodes: r.nodes.clone() });
                }
                running.insert(j, (start, r.nodes.clone()));
            }
            "end" => {
                let j = job_of(r);
                running.remove(&j);
                submitted.remove(&jobs[j].slurm_id);
            }
            other => panic!("{digest}: unknown event '{other}'"),
        }
    }
    passes.extend(open);
    Run { jobs, phase, passes }
}

fn ask(job: &Job) -> Ask {
    Ask { partition: 0, shape: Shape::of(job.cpus, 0, 0, PER_NODE), walltime: job.limit, account: 0, gpus: job.cpus }
}

/// The running jobs of a pass as allocations `(walltime end, nodes and CPUs)`, and the
/// nodes with their free CPUs.
fn state(run: &Run, pass: &Pass) -> (Vec<(u64, u64, Allocation)>, Vec<Node>) {
    let mut nodes = vec![Node { gpus: PER_NODE, free: PER_NODE, partition: 0 }; NODES];
    let running: Vec<(u64, u64, Allocation)> = pass
        .running
        .iter()
        .map(|(j, start, on)| {
            let job = &run.jobs[*j];
            let per = job.cpus / job.nodes.max(1);
            for &n in on {
                nodes[n as usize].free -= per;
            }
            (start + job.limit, job.slurm_id, on.iter().map(|&n| (n, per)).collect())
        })
        .collect();
    (running, nodes)
}

/// Which planner a pass is run with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Planner {
    /// burstsim's model of Slurm's (`bf_planner = "slurm"`).
    Slurm,
    /// burstsim's exact plan (the default).
    Exact,
}

/// One backfill pass of a planner on the pass's state: every queued job in order, a start
/// now or a planned start with a reservation, as Slurm's pass walks the queue (it plans
/// on when a start leaves no CPU free). With `stop_when_full`, as the engine's pass
/// (`src/cluster/nodes.rs`, `src/cluster/nodes/slurm_pass.rs`): after a start that
/// leaves no CPU free the pass ends, which changes no start (nothing more can start in
/// the pass, and the next pass plans afresh) but leaves the later jobs without a plan.
fn plan_pass(run: &Run, pass: &Pass, planner: Planner, stop_when_full: bool) -> BTreeMap<usize, Decision> {
    let (running, nodes) = state(run, pass);
    let now = pass.now;
    let mut out = BTreeMap::new();
    let decision = |t: u64, a: &Allocation| Decision { start: t, nodes: a.iter().map(|&(n, _)| n).collect() };
    match planner {
        Planner::Slurm => {
            let mut plan = SlurmPlan::new(
                now,
                BF_WINDOW,
                BF_RESOLUTION,
                &nodes,
                |_| false,
                running.iter().map(|(e, o, a)| (*e, *o, a)),
                &[],
            )
            .with_phase(run.phase);
            for &j in &pass.queued {
                let job = &run.jobs[j];
                match plan.earliest(&ask(job), false) {
                    Some((t, a)) if t == now => {
                        plan.started(&a, now + job.limit, job.slurm_id);
                        out.insert(j, decision(t, &a));
                        if stop_when_full && !plan.any_free_now() {
                            break;
                        }
                    }
                    Some((t, a)) => {
                        plan.reserve(t, &a, job.limit);
                        out.insert(j, decision(t, &a));
                    }
                    None => {}
                }
            }
        }
        Planner::Exact => {
            let releases = running.iter().flat_map(|(e, _, a)| a.iter().map(move |&(n, g)| (n, *e, g)));
            let held = running.iter().map(|(e, _, a)| Held { end: *e, account: 0, gpus: a.iter().map(|x| x.1).sum() });
            let mut plan = Plan::new(now, now + BF_WINDOW, &nodes, releases, held, vec![(None, None)], &[], 1);
            for &j in &pass.queued {
                let ask = ask(&run.jobs[j]);
                if let Some((t, a)) = plan.earliest(&ask) {
                    plan.reserve(t, &a, &ask);
                    out.insert(j, decision(t, &a));
                    if stop_when_full && t == now && !plan.any_free_now_anywhere() {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// What one planner reproduced of one run's (or several runs') Slurm decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Slurm's decisions compared (planned starts and starts in the pass).
    pub compared: usize,
    /// Of them, the planned ones (`_dump_job_sched`; the rest are starts now).
    pub planned: usize,
    /// Same start within `bf_resolution` (1 s).
    pub within_resolution: usize,
    /// Same start within `bf_interval` (2 s, the cycle).
    pub within_cycle: usize,
    /// Same start within the resolution and the same nodes.
    pub same_nodes: usize,
    /// Planned starts (not starts now) that are the same within the resolution.
    pub planned_within_resolution: usize,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.compared += o.compared;
        self.planned += o.planned;
        self.within_resolution += o.within_resolution;
        self.within_cycle += o.within_cycle;
        self.same_nodes += o.same_nodes;
        self.planned_within_resolution += o.planned_within_resolution;
    }
}

/// Compares one planner with every pass of a run.
fn compare(run: &Run, planner: Planner, stop_when_full: bool, label: &str) -> Tally {
    let show = std::env::var_os("BURSTSIM_PLANNED_STARTS_DIFF").is_some();
    let mut t = Tally::default();
    for pass in &run.passes {
        let ours = plan_pass(run, pass, planner, stop_when_full);
        for (j, s) in &pass.slurm {
            let o = ours.get(j);
            let planned = s.start > pass.now;
            let d = o.map(|o| o.start.abs_diff(s.start));
            t.compared += 1;
            t.planned += usize::from(planned);
            let res = d.is_some_and(|d| d <= BF_RESOLUTION);
            t.within_resolution += usize::from(res);
            t.planned_within_resolution += usize::from(res && planned);
            t.within_cycle += usize::from(d.is_some_and(|d| d <= BF_INTERVAL));
            let nodes = res && o.is_some_and(|o| o.nodes == s.nodes);
            t.same_nodes += usize::from(nodes);
            if show && !nodes && !stop_when_full {
                let name = &run.jobs[*j].name;
                let fmt = |d: &Decision| format!("{:+} s on {:?}", d.start as i64 - pass.now as i64, d.nodes);
                eprintln!(
                    "  {label} {planner:?} pass {} {name}: Slurm {}, burstsim {}",
                    pass.now,
                    fmt(s),
                    o.map_or("none".to_string(), fmt)
                );
            }
        }
    }
    t
}

/// The tallies of one list's runs with one planner, and the number of passes.
fn measure(list: &str, later: bool, planner: Planner, stop_when_full: bool) -> (Tally, usize) {
    let (mut tally, mut passes) = (Tally::default(), 0);
    let number = |r: &str| -> Option<u32> { r.split(&format!("/{list}-")).nth(1)?.strip_suffix(".csv")?.parse().ok() };
    let picked = |r: &str| number(r).is_some_and(|n| (n >= FIRST_LATER_RUN(list)) == later);
    for (results, digest) in RUNS.iter().filter(|(r, _)| picked(r)) {
        let run = read_run(results, digest);
        passes += run.passes.len();
        tally.add(compare(&run, planner, stop_when_full, results));
    }
    (tally, passes)
}

#[test]
fn node_lists_read_as_slurm_writes_them() {
    assert_eq!(node_list("n3"), Ok(vec![2]));
    assert_eq!(node_list("n[1-2]"), Ok(vec![0, 1]));
    assert_eq!(node_list("n[1,3-4]"), Ok(vec![0, 2, 3]));
    assert!(node_list("x1").is_err());
    assert!(node_list("n[2-1]").is_err());
}

/// What was measured (docs/VALIDATION.md, "Slurm's planned starts, pass by pass"):
/// per list, runs (`false`: those the planner was built on; `true`: those recorded after)
/// and planner (and walk), the tally over the runs.
const PINNED: &[(&str, bool, &str, Planner, bool, Tally)] = &[
    ("frag-40", false, "slurm", Planner::Slurm, false, tally(602, 548, 602, 602, 602, 548)),
    ("frag-40", false, "exact", Planner::Exact, false, tally(602, 548, 221, 286, 141, 172)),
    ("frag-40", false, "slurm, engine's walk", Planner::Slurm, true, tally(602, 548, 602, 602, 602, 548)),
    ("random-30", false, "slurm", Planner::Slurm, false, tally(336, 289, 336, 336, 336, 289)),
    ("random-30", false, "exact", Planner::Exact, false, tally(336, 289, 211, 253, 123, 170)),
    ("random-30", false, "slurm, engine's walk", Planner::Slurm, true, tally(336, 289, 301, 301, 301, 254)),
    ("frag-40", true, "slurm", Planner::Slurm, false, tally(1361, 1223, 1361, 1361, 1361, 1223)),
    ("frag-40", true, "exact", Planner::Exact, false, tally(1361, 1223, 491, 642, 324, 379)),
    ("frag-40", true, "slurm, engine's walk", Planner::Slurm, true, tally(1361, 1223, 1361, 1361, 1361, 1223)),
    ("random-30", true, "slurm", Planner::Slurm, false, tally(863, 749, 863, 863, 863, 749)),
    ("random-30", true, "exact", Planner::Exact, false, tally(863, 749, 488, 580, 317, 384)),
    ("random-30", true, "slurm, engine's walk", Planner::Slurm, true, tally(863, 749, 788, 788, 788, 674)),
];

const fn tally(
    compared: usize,
    planned: usize,
    within_resolution: usize,
    within_cycle: usize,
    same_nodes: usize,
    planned_within_resolution: usize,
) -> Tally {
    Tally { compared, planned, within_resolution, within_cycle, same_nodes, planned_within_resolution }
}

#[test]
fn planned_starts_on_state_matched_passes_are_as_docs_validation_says() {
    let mut wrong = Vec::new();
    for &(list, later, name, planner, stop, pinned) in PINNED {
        let (t, passes) = measure(list, later, planner, stop);
        let list = if later { format!("{list} (later runs)") } else { list.to_string() };
        let share = |k: usize| k as f64 / t.compared as f64;
        eprintln!(
            "{list} {name}: {} decisions in {passes} passes ({} planned); same start within {BF_RESOLUTION} s {:.3}, within {BF_INTERVAL} s {:.3}, and same nodes {:.3}; planned ones within {BF_RESOLUTION} s {}/{}",
            t.compared,
            t.planned,
            share(t.within_resolution),
            share(t.within_cycle),
            share(t.same_nodes),
            t.planned_within_resolution,
            t.planned,
        );
        if t != pinned {
            wrong.push(format!("{list} {name}: measured {t:?}, pinned {pinned:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "planned starts differ from what docs/VALIDATION.md says (update both if intended; \
         BURSTSIM_PLANNED_STARTS_DIFF=1 prints every difference):\n{}",
        wrong.join("\n")
    );
}
