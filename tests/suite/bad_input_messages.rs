//! The messages of issue 27, item 13 (and the meaningless targets of item 12): each bad
//! input is refused naming what is wrong, in words a user reads, without echoing hidden
//! characters and without spending seconds on absurd sizes first. Listed with their
//! messages in docs/ROBUSTNESS.md ("Bad input: the messages").

use std::time::{Duration, Instant};

use assert_cmd::Command;
use burstsim::scenario::Scenario;

const TINY: &str = "tests/fixtures/tiny.toml";

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn tiny() -> String {
    std::fs::read_to_string(TINY).unwrap()
}

/// The tiny fixture on node groups: `groups` is the `[[campus.node_groups]]` text.
fn on_groups(groups: &str) -> String {
    tiny().replacen("[campus]\ngpus = 64\nvram_gb = 80\n", "[campus]\nplacement = \"nodes\"\n", 1).replacen(
        "[[campus.maintenance]]",
        &format!("{groups}[[campus.maintenance]]"),
        1,
    )
}

fn group(name: &str, nodes: u32) -> String {
    format!(
        "[[campus.node_groups]]\nname = \"{name}\"\nnodes = {nodes}\ngpus_per_node = 8\ngpu_type = \"A100\"\nvram_gb = 80\n"
    )
}

fn error(text: &str) -> String {
    match Scenario::from_toml_str(text, "test.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_fixture_on_node_groups_is_valid() {
    Scenario::from_toml_str(&on_groups(&(group("a", 4) + &group("b", 4))), "test.toml").unwrap();
}

#[test]
fn a_node_group_without_nodes_is_named_not_reported_as_campus_gpus() {
    // The only group empty: the campus total is 0 GPUs, which was reported as campus.gpus.
    let e = error(&on_groups(&group("a", 0)));
    assert!(e.contains("campus.node_groups[0].nodes: 0 is not allowed"), "{e}");
    assert!(!e.contains("campus.gpus"), "{e}");
    let e = error(&on_groups(&(group("a", 4) + &group("b", 0))));
    assert!(e.contains("campus.node_groups[1].nodes: 0 is not allowed"), "{e}");
}

#[test]
fn too_many_node_groups_are_refused_before_parsing() {
    let groups: String = (0..1001).map(|i| group(&format!("g{i}"), 1)).collect();
    let started = Instant::now();
    let e = error(&on_groups(&groups));
    assert!(e.contains("campus.node_groups: 1001 node groups; at most 1000"), "{e}");
    assert!(e.starts_with("test.toml:"), "with the line of the first group too many: {e}");
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    let big = format!("{}\n{}", tiny(), "# padding\n".repeat(500_000));
    let e = error(&big);
    assert!(e.contains("a scenario is at most 4 MB"), "{e}");
}

#[test]
fn range_bounds_are_printed_as_people_write_them() {
    let text = tiny().replacen("max_walltime_hours = 48\n", "max_walltime_hours = 48\nbf_window_hours = 0.001\n", 1);
    let e = error(&text);
    assert!(e.contains("from 0.0167 (1 minute) to 8760"), "{e}");
    assert!(!e.contains("0.01666"), "no float noise: {e}");
}

#[test]
fn hidden_characters_in_echoed_input_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bidi.toml");
    std::fs::write(&f, "name = \"x\u{202E}y\0z\u{200B}\"\n[campus]\n").unwrap();
    let o = burstsim().arg("run").arg(&f).args(["-n", "1", "--out"]).arg(dir.path().join("o")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    for raw in ['\u{202E}', '\0', '\u{200B}'] {
        assert!(!err.contains(raw), "{raw:?} echoed raw: {err:?}");
    }
    assert!(err.contains("\\u{202E}") && err.contains("\\u{0000}") && err.contains("\\u{200B}"), "{err}");
}

#[test]
fn a_utf16_log_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("jobs.txt");
    let text = std::fs::read_to_string("tests/fixtures/traces/sacct_small.txt").unwrap();
    let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    std::fs::write(&log, utf16).unwrap();
    let o = burstsim().args(["validate", "--trace"]).arg(&log).args(["--gpus", "8"]).output().unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is UTF-16 (little-endian) text") && err.contains("iconv"), "{err}");
}

#[test]
fn meaningless_targets_are_refused_on_the_command_line() {
    for (target, says) in [("wait_p95_h<=-5", "never negative"), ("deadline_miss_rate<=150%", "between 0% and 100%")] {
        let dir = tempfile::tempdir().unwrap();
        let o = burstsim()
            .args(["run", TINY, "-n", "2", "-q", "--no-charts", "--target", target, "--out"])
            .arg(dir.path().join("o"))
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{target}: {err}");
        assert!(err.contains(says), "{target}: {err}");
    }
}

#[test]
fn input_method_characters_are_named_with_the_ascii_to_type() {
    // Issue 45 item 5: each of these was "string values must be quoted, expected literal
    // string", which says nothing of the character.
    let digits = error(&tiny().replacen("gpus = 64\n", "gpus = ６４\n", 1));
    assert!(digits.starts_with("test.toml:"), "{digits}");
    assert!(digits.contains("campus.gpus: full-width digit '６' (U+FF16) outside quotes: write 6"), "{digits}");
    let comma = error(&tiny().replacen("gpus = 64\n", "gpus = 64，\n", 1));
    assert!(comma.contains("full-width comma '，'") && comma.contains("write ,"), "{comma}");
    let quotes = error(&tiny().replacen("name = \"tiny\"", "name = “tiny”", 1));
    assert!(quotes.contains("Chinese quotation mark '“'") && quotes.contains("write \""), "{quotes}");
    assert!(!quotes.contains("string values must be quoted"), "{quotes}");
    // Inside quotes and comments the same characters are text: the file loads.
    let fine = tiny().replacen("name = \"tiny\"", "name = \"小，６４“组”\" # 全角，注释", 1);
    Scenario::from_toml_str(&fine, "test.toml").unwrap();
}

/// Runs `burstsim ARGS` with a 20-second timeout (a refusal takes milliseconds; a run of
/// 10^9 replications would not end) and returns its exit code and stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let o = burstsim().args(args).timeout(Duration::from_secs(20)).output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn replication_counts_over_the_limit_are_refused_on_the_command_line_as_in_the_file() {
    // Issue 45 item 4: the file's `replications = 1000000000` was refused, `-n 1000000000`
    // started running (run, calibrate) or blamed the file's line (sweep, advise).
    let limit = burstsim::scenario::MAX_REPLICATIONS;
    let over = (limit + 1).to_string();
    let in_file = error(&tiny().replacen("replications = 3\n", &format!("replications = {over}\n"), 1));
    let said = format!("{over} is not allowed; give at most {limit} (each replication's values are kept in memory)");
    assert!(in_file.contains(&format!("simulation.replications: {said}")), "{in_file}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let out = out.to_str().unwrap();
    let (q, n) = ("tests/fixtures/snapshot/squeue.txt", "tests/fixtures/snapshot/sinfo.txt");
    let commands: Vec<Vec<&str>> = vec![
        vec!["run", TINY, "-n", &over, "-q", "--no-charts", "--out", out],
        vec!["run", TINY, "-n", &over, "--shard", "1/2", "-q", "--out", out],
        vec!["sweep", TINY, "-p", "campus.gpus=64,72", "-n", &over, "-q", "--no-charts", "--out", out],
        vec!["calibrate", "tests/fixtures/calibrate-pool.toml", "-n", &over, "-q", "--out", out],
        vec![
            "advise",
            "--squeue",
            q,
            "--sinfo",
            n,
            "--partition",
            "gpu",
            "--gpus",
            "4",
            "--walltime",
            "1-00:00:00",
            "-n",
            &over,
        ],
    ];
    for args in commands {
        let (code, err) = refused(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("--replications {said}")), "{args:?}: {err}");
    }
    // The limit itself is allowed (refused later only for its own reasons, if any).
    let (code, err) = refused(&["run", TINY, "-n", &limit.to_string(), "--shard", "1/200000", "-q", "--out", out]);
    assert!(!err.contains("is not allowed; give at most"), "{code:?}: {err}");
    // calibrate's own key, which defaults to simulation.replications and was not capped.
    let cal = std::fs::read_to_string("tests/fixtures/calibrate-pool.toml").unwrap();
    let line = cal.lines().position(|l| l == "[calibration]").unwrap() + 2;
    let file = dir.path().join("cal.toml");
    std::fs::write(
        &file,
        cal.replacen("[calibration]\nreplications = 4\n", &format!("[calibration]\nreplications = {over}\n"), 1),
    )
    .unwrap();
    let (code, err) = refused(&["calibrate", file.to_str().unwrap(), "-q", "--out", out]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("cal.toml:{line}: calibration.replications: {said}")), "{err}");
}

/// A four-week pool of 8 GPUs with one group class asking `runtime` hours; `windows` is
/// the `[campus]` text of its reservations or time limits.
fn windowed(windows: &str, runtime: &str) -> String {
    format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 28\nwarmup_days = 0\nreplications = 1\n\n\
         [campus]\ngpus = 8\nvram_gb = 80\n{windows}\n\n[[workload.classes]]\nname = \"w\"\njobs_per_week = 40\n\
         gpus = 1\nwalltime_factor = 1\nruntime_hours = {runtime}\n"
    )
}

fn reservation(name: &str, start: &str, minutes: u32, flags: &str) -> String {
    format!(
        "\n[[campus.reservations]]\nname = \"{name}\"\nstart_time = \"{start}\"\nduration_minutes = {minutes}\nflags = \"{flags}\"\n"
    )
}

fn time_limit(start: &str, max_hours: u32, end_in_window: bool) -> String {
    format!(
        "\n[[campus.time_limits]]\ndays = [\"DAILY\"]\nstart = \"{start}\"\nmax_hours = {max_hours}\nend_in_window = {end_in_window}\n"
    )
}

#[test]
fn each_scenario_input_of_issue_45_is_refused_or_warned_with_its_message() {
    // The catalogue of docs/ROBUSTNESS.md ("Issue 45: what a careful user tried"), the
    // scenario files' half; the command-line and Python halves are tested where named there.
    let never = "can never start under policy 'campus-only'";
    let refusals: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "a daily reservation of 1,440 minutes",
            windowed(&reservation("backup", "2026-09-07T00:00", 1440, "DAILY"), "1"),
            vec!["workload.classes[0].runtime_hours", never, "campus.reservations[0] 'backup'", "leaves no gap"],
        ),
        (
            "a weekly reservation of 10,080 minutes",
            windowed(&reservation("all-week", "2026-09-07T00:00", 10080, "WEEKLY"), "1"),
            vec![never, "campus.reservations[0] 'all-week' (WEEKLY", "leaves no gap"],
        ),
        (
            "WEEKDAY and WEEKEND reservations together",
            windowed(
                &(reservation("wd", "2026-09-07T00:00", 1440, "WEEKDAY")
                    + &reservation("we", "2026-09-12T00:00", 1440, "WEEKEND")),
                "1",
            ),
            vec![never, "leaves no gap"],
        ),
        (
            "a time limit below every request",
            windowed(&time_limit("00:00", 4, false), "10"),
            vec![never, "the longest walltime request that can ever start is 4 h", "campus.time_limits[0]"],
        ),
        (
            "end-in-window windows shorter than the requests",
            windowed(&(time_limit("08:00", 24, true) + &time_limit("20:00", 24, true)), "13"),
            vec![never, "is 12 h (from Mon 08:00)", "jobs end in the window"],
        ),
        (
            "a reservation on 30 February",
            windowed(&reservation("x", "2026-02-30T00:00", 60, "DAILY"), "1"),
            vec!["campus.reservations[0].start_time: '2026-02-30' is not a day of the calendar"],
        ),
        (
            "a reservation in year 0001",
            windowed(&reservation("x", "0001-01-01T00:00", 60, "DAILY"), "1"),
            vec!["'0001-01-01' lies outside the years 1900 to 9999"],
        ),
        (
            "10^9 replications",
            tiny().replacen("replications = 3\n", "replications = 1000000000\n", 1),
            vec!["simulation.replications: 1000000000 is not allowed; give at most 100000"],
        ),
        (
            "a full-width digit",
            tiny().replacen("gpus = 64\n", "gpus = ６４\n", 1),
            vec!["campus.gpus: full-width digit '６' (U+FF16) outside quotes: write 6"],
        ),
    ];
    for (what, text, says) in refusals {
        let e = error(&text);
        assert!(e.starts_with("test.toml:"), "{what}: names the file and line: {e}");
        for s in says {
            assert!(e.contains(s), "{what}: {s:?} not in {e}");
        }
    }
    // Accepted with a warning: only the longer requests of the class can never start.
    use burstsim::output::warnings::scenario_warnings;
    let nightly = windowed(
        &reservation("backup", "2026-09-07T02:00", 60, "DAILY"),
        "{ kind = \"choice\", values = [2, 30], weights = [2, 1] }",
    );
    let s = Scenario::from_toml_str(&nightly, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    let w = scenario_warnings(&s).iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    for said in ["group class 'w': about 3", "campus.reservations[0] 'backup'", "counted in jobs_never_startable"] {
        assert!(w.contains(said), "{said:?} not in {w}");
    }
    // The default adapted to a smaller campus: warned about what was sized for 384 GPUs.
    let small = burstsim::scenario::DEFAULT_SCENARIO.replacen("nodes = 48\n", "nodes = 4\n", 1);
    let s = Scenario::from_toml_str(&small, "small.toml").unwrap();
    let w = scenario_warnings(&s).iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    for said in [
        "gpu_limit = 128 is more than the campus's 32 GPUs",
        "balk_gpu_hours_ahead = 18432 is 576 hours",
        "header on top of the scenario no longer describes it",
    ] {
        assert!(w.contains(said), "{said:?} not in {w}");
    }
}
