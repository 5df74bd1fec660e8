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
