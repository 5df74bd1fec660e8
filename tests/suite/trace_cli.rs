//! `burstsim validate --trace` and `burstsim fit` from the command line.

use assert_cmd::Command;

use crate::common;

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

const TINY: &str = "tests/fixtures/traces/tiny.swf";

fn stdout(args: &[&str]) -> (bool, String, String) {
    let out = burstsim().args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn csv_value(csv: &str, stat: &str, col: usize) -> f64 {
    let line = csv.lines().find(|l| l.starts_with(&format!("{stat},"))).unwrap_or_else(|| panic!("{stat} in {csv}"));
    line.split(',').nth(col).unwrap().parse().unwrap()
}

#[test]
fn easy_replay_of_the_tiny_log_reproduces_its_waits_and_fcfs_does_not() {
    let (ok, out, err) = stdout(&["validate", "--trace", TINY, "--scheduler", "easy-backfill", "--format", "csv"]);
    assert!(ok, "{err}");
    assert!(err.contains("7 jobs read, 1 rows skipped"), "the read summary is on stderr: {err}");
    assert!(err.contains("line 15"), "the bad row's line is named: {err}");
    assert_eq!(csv_value(&out, "jobs", 1), 7.0);
    for stat in ["mean_wait_h", "p50_wait_h", "p90_wait_h", "p99_wait_h", "zero_wait_share"] {
        assert_eq!(csv_value(&out, stat, 1), csv_value(&out, stat, 2), "{stat}\n{out}");
    }
    let (ok, out, _) = stdout(&["validate", "--trace", TINY, "--gpus", "4", "--scheduler", "fcfs", "--format", "csv"]);
    assert!(ok);
    // FCFS makes job 7 wait behind job 6: 980 s more in total.
    let diff = (csv_value(&out, "mean_wait_h", 2) - csv_value(&out, "mean_wait_h", 1)) * 3600.0 * 7.0;
    assert!((diff - 980.0).abs() < 1e-6, "{diff}\n{out}");
}

#[test]
fn replay_prints_a_side_by_side_table() {
    let (ok, out, err) = stdout(&["validate", "--trace", TINY]);
    assert!(ok, "{err}");
    for word in
        ["recorded", "simulated", "mean_wait_h", "p99_wait_h", "zero_wait_share", "4 processors", "easy-backfill"]
    {
        assert!(out.contains(word), "{word} missing:\n{out}");
    }
}

#[test]
fn replay_refuses_bad_input_with_exit_code_2() {
    let out = burstsim().args(["validate", "--trace", TINY, "--strict"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("tiny.swf:15:") && err.contains("--strict"), "{err}");
    let out = burstsim().args(["validate", "--trace", TINY, "--scheduler", "sjf"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = burstsim().args(["validate", "--trace", "tests/fixtures/traces/sacct_small.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "no size in a sacct log: --gpus is needed");
    assert!(String::from_utf8(out.stderr).unwrap().contains("--gpus"));
    let out = burstsim().args(["validate", "--trace", "no/such/file.swf", "--gpus", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a missing file is an I/O failure");
}

#[test]
fn validate_without_trace_is_unchanged() {
    let out = burstsim().args(["validate", "--gpus", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--gpus needs --trace");
}

#[test]
fn sacct_fixture_replays_on_gpus() {
    let (ok, out, err) =
        stdout(&["validate", "--trace", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8", "--format", "csv"]);
    assert!(ok, "{err}");
    // 10 jobs: 1 pending and 1 still running when the log was taken (its elapsed time so
    // far is not a run time), 1 cancelled before it started, 1 CPU-only; 6 replayed.
    assert_eq!(csv_value(&out, "jobs", 1), 6.0, "{out}");
    let (ok, table, _) = stdout(&["validate", "--trace", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8"]);
    assert!(ok);
    assert!(table.contains("left out: 2 jobs (still running or pending when the log was taken)"), "{table}");
}

/// A log without recorded waits (SWF wait −1, as NASA-iPSC and the Lublin model).
fn no_wait_log(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("; MaxProcs: 4\n; UnixStartTime: 1000000000\n");
    for i in 0..20u64 {
        text.push_str(&format!(
            "{i} {} -1 {} {} -1 -1 {} -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
            i * 50,
            100 + i * 7,
            1 + i % 4,
            1 + i % 4
        ));
    }
    let path = dir.join("no-waits.swf");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_log_without_recorded_waits_shows_the_simulated_figures_not_nan() {
    let dir = tempfile::tempdir().unwrap();
    let log = no_wait_log(dir.path());
    let log = log.to_str().unwrap();
    let (ok, out, err) = stdout(&["validate", "--trace", log]);
    assert!(ok, "{err}");
    assert!(!out.contains("NaN"), "{out}");
    assert!(out.contains("the recorded column is unavailable") && out.contains("all 20 replayed jobs"), "{out}");
    let jobs = out.lines().find(|l| l.starts_with("jobs ")).unwrap();
    assert_eq!(jobs.split_whitespace().collect::<Vec<_>>(), ["jobs", "unavailable", "20", "–"], "{jobs}");
    let (ok, csv, err) = stdout(&["validate", "--trace", log, "--format", "csv"]);
    assert!(ok && err.contains("recorded column is empty"), "{err}");
    assert!(csv.contains("\njobs,,20,\n") && !csv.contains("NaN"), "{csv}");
    assert!(csv_value(&csv, "mean_wait_h", 2) > 0.0, "20 jobs on 4 processors queue: {csv}");
}

#[test]
fn nasa_ipsc_replays_with_simulated_figures() {
    let Some(nasa) = common::shared_data("data/traces/pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz") else { return };
    let (ok, out, err) = stdout(&["validate", "--trace", nasa.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(!out.contains("NaN") && out.contains("unavailable"), "{out}");
    let mean = out.lines().find(|l| l.starts_with("mean_wait_h")).unwrap();
    let simulated: f64 = mean.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(simulated.is_finite() && simulated >= 0.0, "{mean}");
}

#[test]
fn fit_writes_a_scenario_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let scn = dir.path().join("tiny-fit.toml");
    let out = burstsim()
        .args(["fit", "tests/fixtures/traces/sacct_small.txt", "--gpus", "8", "-o"])
        .arg(&scn)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "7 usable jobs are too few to fit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let swf = dir.path().join("many.swf");
    let mut text = String::from("; MaxProcs: 16\n; UnixStartTime: 1000000000\n");
    for i in 0..400u64 {
        let (size, run) = (1 + (i * 7) % 8, 60 + (i * 7919) % 7200);
        text.push_str(&format!(
            "{i} {} {} {run} {size} -1 -1 {size} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
            i * 3600,
            i % 5 * 60,
            run * 2
        ));
    }
    std::fs::write(&swf, &text).unwrap();
    let out = burstsim().args(["fit"]).arg(&swf).arg("-o").arg(&scn).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("Offered load") && printed.contains("KS"), "{printed}");
    let run = burstsim()
        .args(["run"])
        .arg(&scn)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // --group-user: the log's user 1 (every job here) leaves no background, said plainly;
    // with users 1 and 2, user 2's jobs become the group's workload and the scenario runs.
    let out = burstsim().args(["fit"]).arg(&swf).args(["--group-user", "1", "-o"]).arg(&scn).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only 0 usable jobs are left once user '1''s are taken out"));
    let two_users: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i >= 2 && i % 4 == 0 { l.replacen(" -1 1 1 1 ", " -1 1 2 1 ", 1) } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&swf, two_users + "\n").unwrap();
    let grouped = dir.path().join("grouped.toml");
    let out = burstsim().args(["fit"]).arg(&swf).args(["--group-user", "2", "-o"]).arg(&grouped).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&grouped).unwrap();
    assert!(written.contains("[[workload.classes]]") && written.contains("of user '2' (the group)"), "{written}");
    let run2 = burstsim()
        .args(["run"])
        .arg(&grouped)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("out2"))
        .output()
        .unwrap();
    assert!(run2.status.success(), "{}", String::from_utf8_lossy(&run2.stderr));
    assert!(!String::from_utf8_lossy(&run2.stderr).contains("no job of the group arrived"));
    // A group whose 14 jobs all ran exactly one hour on one GPU cannot be fitted: an
    // error, not a scenario silently without the group's workload.
    let mut uniform = String::from("; MaxProcs: 16\n; UnixStartTime: 1000000000\n");
    for i in 0..60u64 {
        let (user, size, run) = if i < 14 { (2, 1, 3600) } else { (1, 1 + i % 8, 60 + (i * 7919) % 7200) };
        uniform.push_str(&format!(
            "{i} {} 0 {run} {size} -1 -1 {size} {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
            i * 3600,
            run * 2
        ));
    }
    let uniform_log = dir.path().join("uniform.swf");
    std::fs::write(&uniform_log, uniform).unwrap();
    let out = burstsim().args(["fit"]).arg(&uniform_log).args(["--group-user", "2", "-o"]).arg(&scn).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("user '2''s jobs (14) have too few distinct run times"), "{err}");
    // Without a group, the file carries the default's lab workload (issue 46 item 7), so
    // its run has the group's jobs.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("no job of the group arrived"), "{stderr}");
    // The fitted part alone (the file up to the copied lab sections) is a background-only
    // scenario: its run says so, instead of warning about few jobs per percentile.
    let full = std::fs::read_to_string(&scn).unwrap();
    let cut = full.find("\n# ---- The group's own jobs").expect("the copied workload's marker");
    let background = dir.path().join("background-only.toml");
    std::fs::write(&background, &full[..cut]).unwrap();
    let run = burstsim()
        .args(["run"])
        .arg(&background)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("out3"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("no job of the group arrived after the warm-up"), "{stderr}");
    assert!(!stderr.contains("p95 and p99 waits rest on very few jobs"), "{stderr}");
}

/// Real Slurm 22.05 runs of the job lists in `tests/fixtures/slurm/` (4 nodes × 8 CPUs,
/// FIFO, bf_interval=2), as `scripts/slurm-replay.py run` recorded them (docs/VALIDATION.md).
const SLURM_RUNS: &str = "tests/fixtures/slurm/recorded";
const SLURM_MAPPING: &str = "tests/fixtures/slurm/results.mapping.toml";

/// `validate --trace RUN --jobs-out` with extra arguments; the rows by job name as
/// (recorded start, simulated start).
fn replay_starts(run: &str, extra: &[&str]) -> Vec<(String, i64, i64)> {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs.csv");
    let run = format!("{SLURM_RUNS}/{run}.csv");
    let mut args = vec!["validate", "--trace", &run, "--mapping", SLURM_MAPPING, "--units", "gpus"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--jobs-out", jobs.to_str().unwrap()]);
    let (ok, _, err) = stdout(&args);
    assert!(ok, "{args:?}: {err}");
    let text = std::fs::read_to_string(&jobs).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("job,submit,size,recorded_start,simulated_start,recorded_wait_s,simulated_wait_s"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 7, "{l}");
            let (submit, rec, sim): (i64, i64, i64) =
                (f[1].parse().unwrap(), f[3].parse().unwrap(), f[4].parse().unwrap());
            assert_eq!(
                (f[5].parse::<i64>().unwrap(), f[6].parse::<i64>().unwrap()),
                (rec - submit, sim - submit),
                "{l}"
            );
            (f[0].to_string(), rec, sim)
        })
        .collect()
}

const ON_NODES: &[&str] =
    &["--gpus-per-node", "8", "--nodes", "4", "--priority", "fifo", "--bf-interval", "2", "--bf-reservations", "500"];

fn agree(rows: &[(String, i64, i64)]) -> usize {
    rows.iter().filter(|(_, rec, sim)| (rec - sim).abs() <= 3).count()
}

fn start_of(rows: &[(String, i64, i64)], job: &str) -> i64 {
    rows.iter().find(|r| r.0 == job).unwrap().2
}

#[test]
fn a_real_slurm_run_replays_on_nodes_with_its_fragmentation_and_backfill() {
    for run in ["canonical-1", "canonical-2", "canonical-3"] {
        let nodes = replay_starts(run, ON_NODES);
        assert_eq!(agree(&nodes), 6, "{run}: every start within a scheduling cycle of Slurm's: {nodes:?}");
        assert!(start_of(&nodes, "small2") < start_of(&nodes, "big8"), "{run}: small2 backfills past big8");
        assert!(start_of(&nodes, "big8") >= 12, "{run}: big8 waits for a whole node (fills run 12 s)");
        // A 32-GPU pool has no fragments: big8 starts at once and small2 waits for it.
        let pool = replay_starts(run, &["--gpus", "32"]);
        assert!(start_of(&pool, "big8") < start_of(&pool, "small2"), "{run}: {pool:?}");
    }
}

#[test]
fn a_random_real_slurm_list_agrees_on_nodes_as_docs_validation_says() {
    // Floor: 30 − 2 × 6, six being the most starts two real Slurm runs of this list
    // disagreed on (docs/VALIDATION.md, "Comparing with burstsim").
    for run in ["random-30-1", "random-30-2", "random-30-3"] {
        let nodes = agree(&replay_starts(run, ON_NODES));
        let pool = agree(&replay_starts(run, &["--gpus", "32"]));
        assert!(nodes >= 18, "{run}: {nodes} of 30 starts agree on nodes");
        assert!(nodes >= pool, "{run}: nodes {nodes}, pool {pool}");
    }
}

#[test]
fn node_replay_options_are_checked() {
    let canon = format!("{SLURM_RUNS}/canonical-1.csv");
    let base = ["validate", "--trace", &canon, "--mapping", SLURM_MAPPING, "--units", "gpus"];
    for (extra, says) in [
        (&["--gpus", "30", "--gpus-per-node", "8", "--nodes", "4"][..], "--gpus 30 is not --nodes 4"),
        (&["--gpus", "32", "--priority", "multifactor"][..], "--priority multifactor needs nodes"),
        (&["--gpus-per-node", "8"][..], "add --nodes N"),
        (&["--gpus-per-node", "8", "--nodes", "4", "--bf-interval", "0"][..], "--bf-interval 0"),
        (&["--gpus-per-node", "0", "--nodes", "4"][..], "--gpus-per-node 0"),
        (&["--gpus", "32", "--bf-interval", "2"][..], "--gpus-per-node"),
        (&["--gpus", "32", "--fairshare", "classic"][..], "--gpus-per-node"),
        (&["--gpus-per-node", "8", "--nodes", "4", "--fairshare", "fair"][..], "possible values: classic, fair-tree"),
        (
            &["--gpus-per-node", "8", "--nodes", "4", "--fairshare", "classic", "--calc-period", "90"][..],
            "whole minutes",
        ),
        (&["--gpus-per-node", "8", "--nodes", "4", "--fairshare", "classic", "--shares", "group=0"][..], "above 0"),
        (
            &["--gpus-per-node", "8", "--nodes", "4", "--fairshare", "classic", "--shares", "group=1,others"][..],
            "is not NAME=SHARES",
        ),
        (
            &["--gpus-per-node", "8", "--nodes", "4", "--fairshare", "fair-tree", "--shares", "group=1"][..],
            "line 2: job 'fill1': account 'others' has no shares; the accounts with shares are group, root",
        ),
    ] {
        let out = burstsim().args(base).args(extra).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    // --gpus alone sizes the nodes when it is a whole number of them: 32 / 8 = 4 nodes
    // (30 would silently replay on 32 GPUs: refused, tests/suite/trace_fitness.rs).
    let (ok, out, err) = stdout(&[&base[..], &["--gpus", "32", "--gpus-per-node", "8"]].concat());
    assert!(ok && out.contains("on 4 nodes × 8 GPUs"), "{out}{err}");
}

/// Runs of the fair-share lists on the real Slurm with accounting (slurmdbd; accounts
/// `group` and `others`, one share each, beside root's; PriorityWeightFairshare the only
/// weight; half-life 10 min; a recalculation every minute, the list started 10 s after
/// one: `slurm-replay.py run --calc-phase 10`), with the algorithm each ran under
/// (docs/VALIDATION.md, "A real Slurm with fair-share").
const FAIRSHARE_RUNS: &[(&str, &str)] = &[
    ("fairshare-flip-fairtree-1", "fair-tree"),
    ("fairshare-flip-fairtree-2", "fair-tree"),
    ("fairshare-flip-classic-1", "classic"),
    ("fairshare-flip-classic-2", "classic"),
    ("fairshare-lag-classic-1", "classic"),
    ("fairshare-lag-classic-2", "classic"),
    ("fairshare-lag-fairtree-1", "fair-tree"),
    ("fairshare-lag-fairtree-2", "fair-tree"),
];

/// The replay of a fair-share run: the cluster's nodes and backfill, and its fair-share
/// settings (the first recalculation 60 − 10 = 50 s after the first submission).
/// `algorithm` "fifo" replays without fair-share, for contrast.
fn fairshare_replay(run: &str, algorithm: &str, slurm_usage: bool) -> Vec<(String, i64, i64)> {
    let args = common::fairshare_replay_args(algorithm, slurm_usage);
    replay_starts(run, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Each job's account in a recorded run.
fn run_accounts(run: &str) -> std::collections::HashMap<String, String> {
    let text = std::fs::read_to_string(format!("{SLURM_RUNS}/{run}.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (job, account) = (0, header.iter().position(|h| *h == "account").unwrap());
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[job].to_string(), f[account].to_string())
        })
        .collect()
}

/// Pairs of jobs of different accounts that Slurm started more than 3 s apart (a
/// fair-share decision each), and how many of them the replay starts in Slurm's order.
fn account_order(rows: &[(String, i64, i64)], accounts: &std::collections::HashMap<String, String>) -> (usize, usize) {
    let triples: Vec<(&str, i64, i64)> = rows.iter().map(|r| (accounts[&r.0].as_str(), r.1, r.2)).collect();
    common::account_order(&triples, 3)
}

fn mean_wait_ratio(rows: &[(String, i64, i64)], run: &str) -> f64 {
    let submit: std::collections::HashMap<String, i64> = {
        let text = std::fs::read_to_string(format!("{SLURM_RUNS}/{run}.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .map(|f| (f[0].into(), f[1].parse().unwrap()))
            .collect()
    };
    let (rec, sim): (i64, i64) = rows.iter().fold((0, 0), |(r, s), j| (r + j.1 - submit[&j.0], s + j.2 - submit[&j.0]));
    sim as f64 / rec as f64
}

#[test]
fn fair_share_replays_start_the_accounts_in_the_order_a_real_slurm_did() {
    for &(run, algorithm) in FAIRSHARE_RUNS {
        let accounts = run_accounts(run);
        let slurm = fairshare_replay(run, algorithm, true);
        let (same, pairs) = account_order(&slurm, &accounts);
        let other = if algorithm == "classic" { "fair-tree" } else { "classic" };
        let (swapped, fifo) = (fairshare_replay(run, other, true), fairshare_replay(run, "fifo", false));
        let ratio = mean_wait_ratio(&slurm, run);
        eprintln!(
            "{run}: {} of {} starts within 3 s, account order {same} of {pairs}, mean wait ratio {ratio:.2}; \
             {other}: {} within 3 s, order {}; FIFO: {} within 3 s, order {}; exact usage: {} within 3 s, order {}",
            agree(&slurm),
            slurm.len(),
            agree(&swapped),
            account_order(&swapped, &accounts).0,
            agree(&fifo),
            account_order(&fifo, &accounts).0,
            agree(&fairshare_replay(run, algorithm, false)),
            account_order(&fairshare_replay(run, algorithm, false), &accounts).0,
        );
        // Every fair-share decision of the real run, with Slurm's bookkeeping.
        assert_eq!(same, pairs, "{run}: {slurm:?}");
        assert!(pairs > 0, "{run}: no decision between accounts");
        // The mean wait within 10% of the real run's (two real runs differ by 6%).
        assert!((ratio - 1.0).abs() <= 0.10, "{run}: mean wait ratio {ratio:.3}");
        // At least as close as the other algorithm and as FIFO, start by start.
        assert!(agree(&slurm) >= agree(&swapped).max(agree(&fifo)), "{run}");
    }
}

/// On each list the algorithm's own decisions are visible: FIFO gets Fair Tree's runs of
/// the flip list and classic's runs of the lag list wrong, and the wrong algorithm gets
/// the flip list wrong under either (the lists are in docs/VALIDATION.md).
#[test]
fn the_fair_share_lists_tell_fifo_and_the_two_algorithms_apart() {
    for (run, algorithm, wrong) in [
        ("fairshare-flip-fairtree-1", "fair-tree", "fifo"),
        ("fairshare-flip-fairtree-1", "fair-tree", "classic"),
        ("fairshare-flip-classic-1", "classic", "fair-tree"),
        ("fairshare-lag-classic-1", "classic", "fifo"),
    ] {
        let accounts = run_accounts(run);
        let (same, pairs) = account_order(&fairshare_replay(run, wrong, true), &accounts);
        assert!(
            same < pairs,
            "{run}: replayed with {wrong} instead of {algorithm}, every account decision still agrees"
        );
    }
}

/// The lists recorded for Slurm's planner (issue 22 item 2; docs/VALIDATION.md, "Slurm's
/// backfill planner"): five runs of random-30, three of the fragmentation-heavy frag-40.
const PLANNER_LISTS: &[(&str, &[&str])] = &[
    (
        "random-30",
        &[
            "random-30-1",
            "random-30-2",
            "random-30-3",
            "random-30-4",
            "random-30-5",
            "random-30-6",
            "random-30-7",
            "random-30-8",
            "random-30-9",
            "random-30-10",
            "random-30-11",
            "random-30-12",
        ],
    ),
    (
        "frag-40",
        &[
            "frag-40-1",
            "frag-40-2",
            "frag-40-3",
            "frag-40-4",
            "frag-40-5",
            "frag-40-6",
            "frag-40-7",
            "frag-40-8",
            "frag-40-9",
            "frag-40-10",
        ],
    ),
];

/// Starts within 3 s between two recorded runs of one list.
fn slurm_self_agreement(a: &str, b: &str) -> usize {
    let starts = |run: &str| -> std::collections::HashMap<String, i64> {
        let text = std::fs::read_to_string(format!("{SLURM_RUNS}/{run}.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .map(|f| (f[0].into(), f[2].parse().unwrap()))
            .collect()
    };
    let (sa, sb) = (starts(a), starts(b));
    sa.iter().filter(|(j, s)| (**s - sb[*j]).abs() <= 3).count()
}

#[test]
fn slurms_planner_on_the_recorded_lists_measures_as_docs_validation_says() {
    const SLURM: &[&str] = &["--bf-planner", "slurm", "--bf-resolution", "1"];
    for &(list, runs) in PLANNER_LISTS {
        let (mut pairs, mut self_agree) = (0, 0);
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                pairs += 1;
                self_agree += slurm_self_agreement(a, b);
            }
        }
        let (mut exact, mut slurm, mut exact_c, mut slurm_c) = (0, 0, 0, 0);
        let (mut ratio_exact_c, mut ratio_slurm_c) = (0.0, 0.0);
        for run in runs {
            let with = |extra: &[&str]| replay_starts(run, &[ON_NODES, extra].concat());
            let (e, s) = (with(&[]), with(SLURM));
            let (ec, sc) = (with(&["--completing", "1"]), with(&[SLURM, &["--completing", "1"]].concat()));
            // Without the 1-s release Slurm takes after every end, both planners wait less
            // than Slurm on every run (0.54-0.92 of Slurm's mean wait).
            for (name, rows) in [("exact", &e), ("slurm", &s)] {
                let r = mean_wait_ratio(rows, run);
                assert!(r < 0.95, "{run} {name}: mean wait ratio {r:.2}");
            }
            ratio_exact_c += mean_wait_ratio(&ec, run) / runs.len() as f64;
            ratio_slurm_c += mean_wait_ratio(&sc, run) / runs.len() as f64;
            exact += agree(&e);
            slurm += agree(&s);
            exact_c += agree(&ec);
            slurm_c += agree(&sc);
        }
        // With it, the list's mean wait (the mean of its runs' ratios) is within ±10% of
        // Slurm's under Slurm's planner on both lists; the exact planner's is on random-30
        // only (0.969; frag-40 0.882, docs/VALIDATION.md).
        let (want_exact, want_slurm) = if list == "random-30" { (0.969, 0.965) } else { (0.882, 0.957) };
        for (name, r, want) in [("exact", ratio_exact_c, want_exact), ("slurm", ratio_slurm_c, want_slurm)] {
            assert!((r - want).abs() < 0.0005, "{list} {name} --completing 1: mean wait ratio {r:.3}, docs say {want}");
        }
        let n = runs.len();
        let jobs = replay_starts(runs[0], ON_NODES).len();
        let share = |k: usize, of: usize| k as f64 / (of * jobs) as f64;
        let own = share(self_agree, pairs);
        eprintln!(
            "{list}: Slurm vs Slurm {own:.3}; exact {:.3}, slurm {:.3}; with --completing 1: exact {:.3}, slurm {:.3}",
            share(exact, n),
            share(slurm, n),
            share(exact_c, n),
            share(slurm_c, n)
        );
        // What the figures are: neither planner reaches Slurm's own agreement without the
        // release delay; with it, Slurm's planner agrees more often than without. Neither
        // reaches Slurm's own agreement on random-30 (0.922 and 0.900 against 0.934); on
        // frag-40 Slurm's planner does (0.647 against 0.633).
        assert!(share(exact, n) < own && share(slurm, n) < own, "{list}");
        assert!(share(slurm_c, n) > share(slurm, n), "{list}");
        let got = [own, share(exact, n), share(slurm, n), share(exact_c, n), share(slurm_c, n)];
        let want =
            if list == "random-30" { [0.934, 0.817, 0.797, 0.922, 0.900] } else { [0.633, 0.535, 0.495, 0.605, 0.647] };
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 0.0005, "{list}: {got:.3?}, docs/VALIDATION.md says {want:?}");
        }
    }
}
