//! No job vanishes, no run hangs (issue 27, items 1–5): every class must be able to start
//! somewhere, or the scenario is refused with file:line:key and what would fit; intervals
//! that drive events have lower bounds; a replication that runs away stops with an error,
//! and a cancelled one stops at once.
//!
//! Each catalogue case below panicked, hung or silently went wrong before
//! `scenario::feasibility` (noted per case). The property test against an independent
//! oracle is `tests/suite/feasibility_property.rs`.

use burstsim::engine::{Halt, simulate, simulate_until};
use burstsim::scenario::Scenario;
use burstsim::workload::JobStream;

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

// ---- through the command line ---------------------------------------------------------

fn burstsim() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("burstsim").expect("binary built")
}

/// Every bad input above, as the scenario files a user would write.
fn catalogue() -> Vec<(&'static str, String)> {
    let wide = "\n[[workload.classes]]\nname = \"wide\"\njobs_per_week = 2\ngpus = 60\nnodes = 60\ngpus_per_node = 1\nruntime_hours = 2\nvram_gb = 24\n";
    let twelve =
        "\n[[workload.classes]]\nname = \"twelve\"\njobs_per_week = 2\ngpus = 12\nruntime_hours = 2\nvram_gb = 24\n";
    let lab = "\n[[campus.accounts]]\nname = \"lab\"\ngpu_limit = 4\n";
    let base = campus48(GROUP_SMALL, CAMPUS_ONLY, 8);
    let with = |table: &str| base.replace("vram_gb = 80\n\n", &format!("vram_gb = 80\n\n{table}\n"));
    vec![
        ("shape wider than the campus, overflow", campus48(wide, OVERFLOW, 8)),
        ("shape wider than the campus, campus-only", campus48(wide, CAMPUS_ONLY, 64)),
        (
            "group limit below whole nodes",
            campus48(twelve, CAMPUS_ONLY, 8).replace("vram_gb = 80\n\n", "vram_gb = 80\ngroup_gpu_limit = 12\n\n"),
        ),
        ("never rented", rented_only("rent_periods = [{ start = \"2020-01-01\", end = \"2020-01-31\" }]")),
        ("rented one day", rented_only("rent_periods = [{ start = \"2026-09-10\", end = \"2026-09-10\" }]")),
        (
            "background over its account's limit",
            with_background("name = \"bg\"\njobs_per_week = 5\ngpus = 16\naccount = \"lab\"\nruntime_hours = 2\n", lab),
        ),
        (
            "background shape wider than the campus",
            with_background(
                "name = \"bg\"\njobs_per_week = 5\ngpus = 60\nnodes = 60\ngpus_per_node = 1\nruntime_hours = 2\n",
                "",
            ),
        ),
        (
            "background bigger than the campus",
            with_background("name = \"bg\"\njobs_per_week = 5\ngpus = 400\nruntime_hours = 2\n", ""),
        ),
        (
            "failures every 0.36 s",
            with("[campus.node_failures]\ntime_between_failures_hours = 0.0001\nrepair_hours = 2\n"),
        ),
        ("outages of 3.6 s", with("[campus.outages]\ntime_between_hours = 100\nduration_hours = 0.001\n")),
    ]
}

#[test]
fn no_bad_input_of_the_catalogue_panics_or_runs_past_10_s_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    for (what, text) in catalogue() {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, &text).unwrap();
        let out = burstsim()
            .args(["run", file.to_str().unwrap(), "--replications", "2", "--quiet", "--no-charts", "--out"])
            .arg(dir.path().join("out"))
            .timeout(std::time::Duration::from_secs(10))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: exit code {:?}, stderr:\n{stderr}", out.status.code());
        assert!(stderr.contains("bad.toml:"), "{what}: names the file and line:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    }
}

/// Sends `signal` to a run whose single replication takes minutes (five years of the
/// default campus) once it is simulating (after 3 s: the job stream takes about 1 s), and returns its exit code and the seconds from
/// the signal to its exit.
#[cfg(unix)]
fn signal_a_long_run(signal: &str) -> (Option<i32>, f64, String) {
    let dir = tempfile::tempdir().unwrap();
    let text = burstsim::scenario::DEFAULT_SCENARIO
        .replace("horizon_days = 365 ", "horizon_days = 1825 ")
        .replace("replications = 10 ", "replications = 2 ");
    let file = dir.path().join("long.toml");
    std::fs::write(&file, text).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("burstsim");
    let mut child = std::process::Command::new(bin)
        .args(["run", file.to_str().unwrap(), "--quiet", "--no-charts", "--threads", "1", "--out"])
        .arg(dir.path().join("out"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3000));
    assert!(child.try_wait().unwrap().is_none(), "still simulating after 3 s");
    let sent = std::time::Instant::now();
    let killed = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed().as_secs() > 30 {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let secs = sent.elapsed().as_secs_f64();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code(), secs, stderr)
}

#[cfg(unix)]
#[test]
fn one_sigterm_or_sigint_ends_a_run_within_a_second() {
    // Before: the first signal only asked the replication in flight to finish: 363 s for
    // ten simulated years (for ever, when it hung).
    for signal in ["-TERM", "-INT"] {
        let (code, secs, stderr) = signal_a_long_run(signal);
        assert_eq!(code, Some(130), "{signal}: exit code 130 (interrupted)");
        assert!(secs < 1.5, "{signal}: the run ended {secs:.2} s after the signal");
        // The simulation itself stopped (not the one-second backstop).
        assert!(stderr.contains("interrupted before any replication finished"), "{signal}: {stderr}");
    }
}
