//! The sensitivity band (`burstsim::sensitivity`, docs/SCENARIOS.md §18): its CSV
//! contract, zero spread when an input does not move, the direction of an input that
//! matters, flip detection, the robust policy, the errors of a bad `[sensitivity]`, and
//! the CLI (file, chart, `plot` from the CSV alone, `--no-sensitivity`). Small scenarios
//! and 2–3 replications, so it stays fast on 2 cores.

use std::path::Path;

use assert_cmd::Command;
use burstsim::experiment;
use burstsim::scenario::Scenario;
use burstsim::sensitivity::band::{self, BandVerdict, COLUMNS, InputOutcome, Row};
use burstsim::sensitivity::{self, TargetSource};

/// A small pool campus whose queue the other groups' load drives: 16 GPUs, 30 days,
/// a campus-only baseline and an overflow policy.
const SMALL: &str = r#"name = "small"
[simulation]
start_date = "2026-09-01"
horizon_days = 30
warmup_days = 3
replications = 3
seed = 11

[campus]
gpus = 16
vram_gb = 80

[background]
offered_load = 0.75
[[background.classes]]
name = "others"
gpus = { kind = "choice", values = [1, 2, 4], weights = [0.5, 0.3, 0.2] }
runtime_hours = { kind = "lognormal", mean = 4.0, cv = 1.0 }

[[workload.classes]]
name = "train"
jobs_per_week = 15
gpus = 1
runtime_hours = { kind = "lognormal", mean = 3.0, cv = 1.0 }
vram_gb = 24

[[cloud.offers]]
name = "a800-hourly"
gpu_type = "A800"
vram_gb = 80
billing = "hourly"
price_per_gpu_hour_cny = 5.0

[[policies]]
name = "campus-only"
kind = "campus-only"

[[policies]]
name = "overflow"
kind = "overflow-timeout"
threshold_hours = 2
offers = ["a800-hourly"]
"#;

fn scenario(extra: &str) -> Scenario {
    Scenario::from_toml_str(&format!("{SMALL}\n{extra}"), "small.toml").unwrap()
}

fn band_of(s: &Scenario, n: u32) -> band::Band {
    let (results, _) = experiment::run(s, None, &|| {});
    let inputs = burstsim::scenario::sensitivity::inputs(s);
    sensitivity::run(s, &results, &inputs, sensitivity::targets(s, &[]), n, &|| {}, &|| false).unwrap().unwrap()
}

fn rows_of(csv: &[u8]) -> (Vec<String>, Vec<csv::StringRecord>) {
    let mut r = csv::Reader::from_reader(csv);
    let head = r.headers().unwrap().iter().map(String::from).collect();
    (head, r.records().map(Result::unwrap).collect())
}

fn cell<'a>(head: &[String], row: &'a csv::StringRecord, col: &str) -> &'a str {
    &row[head.iter().position(|h| h == col).unwrap_or_else(|| panic!("no column {col}"))]
}

#[test]
fn the_csv_has_its_columns_and_one_row_per_input_level_policy_and_metric() {
    let s = scenario(
        "[sensitivity]\nreplications = 2\n[[sensitivity.inputs]]\npath = \"background.offered_load\"\nlow = 0.6\nhigh = 0.85\n\
         [[sensitivity.inputs]]\nname = \"runtimes\"\nscale = [\"background.classes.others.runtime_hours.mean\"]\nlow = 0.8\nhigh = 1.2\n",
    );
    let b = band_of(&s, 2);
    let (head, rows) = rows_of(&band::csv(&b));
    assert_eq!(head, COLUMNS, "the column contract");
    assert_eq!(
        &head[..11],
        &[
            "input",
            "level",
            "value",
            "policy",
            "metric",
            "unit",
            "mean_diff",
            "ci95_low",
            "ci95_high",
            "replications",
            "recommended"
        ]
    );
    assert_eq!(rows.len(), 2 * 3 * 2 * 3, "inputs × levels × policies × metrics");
    for r in &rows {
        assert_eq!(cell(&head, r, "replications"), "2");
        if cell(&head, r, "policy") == "campus-only" {
            assert_eq!(cell(&head, r, "mean_diff"), "0", "the baseline against itself");
        }
    }
    let value = |input: &str, level: &str| {
        rows.iter()
            .find(|r| cell(&head, r, "input") == input && cell(&head, r, "level") == level)
            .map(|r| cell(&head, r, "value").to_string())
            .unwrap()
    };
    assert_eq!(
        [
            value("background.offered_load", "low"),
            value("background.offered_load", "central"),
            value("background.offered_load", "high")
        ],
        ["0.6", "0.75", "0.85"]
    );
    assert_eq!(
        [value("runtimes", "low"), value("runtimes", "central")],
        ["0.8", "1"],
        "a scale input's values are factors"
    );
    // The central level is one set of results, whatever the input.
    let central: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| cell(&head, r, "level") == "central")
        .map(|r| ["policy", "metric", "mean", "mean_diff"].iter().map(|c| cell(&head, r, c).to_string()).collect())
        .collect();
    assert_eq!(central[..6], central[6..]);
    // The file reads back into the same outcome the band computed.
    let back: Vec<Row> = rows
        .iter()
        .map(|r| Row {
            input: cell(&head, r, "input").into(),
            level: cell(&head, r, "level").into(),
            value: cell(&head, r, "value").parse().unwrap(),
            policy: cell(&head, r, "policy").into(),
            metric: cell(&head, r, "metric").into(),
            mean_diff: cell(&head, r, "mean_diff").parse().unwrap(),
            ci95_low: cell(&head, r, "ci95_low").parse().unwrap_or(f64::NAN),
            ci95_high: cell(&head, r, "ci95_high").parse().unwrap_or(f64::NAN),
            replications: 2,
            recommended: cell(&head, r, "recommended").into(),
            baseline: cell(&head, r, "baseline").into(),
            mean: cell(&head, r, "mean").parse().unwrap(),
            meets_targets: cell(&head, r, "meets_targets") == "true",
            targets: cell(&head, r, "targets").into(),
            label: cell(&head, r, "label").into(),
            label_zh: cell(&head, r, "label_zh").into(),
        })
        .collect();
    let mut from_csv = BandVerdict::from_rows(&back);
    let mut direct = b.outcome();
    // Costs go through the CSV's shortest round-trip text: compare them as text.
    assert_eq!(format!("{:?}", from_csv.central_cost), format!("{:?}", direct.central_cost));
    from_csv.central_cost.clear();
    direct.central_cost.clear();
    assert_eq!(from_csv, direct);
}

#[test]
fn an_input_whose_low_and_high_equal_the_central_value_has_zero_spread() {
    // low = high = the scenario's value: the two extra runs must reproduce the run's own
    // first replications exactly (same seeds, same workload), so every difference is 0.
    let s = scenario(
        "[sensitivity]\nreplications = 2\n[[sensitivity.inputs]]\npath = \"background.offered_load\"\nlow = 0.75\nhigh = 0.75\n",
    );
    let b = band_of(&s, 2);
    let ib = &b.inputs[0];
    for level in [&ib.low, &ib.high] {
        for (x, c) in level.summaries.rows.iter().zip(&ib.central.summaries.rows) {
            assert_eq!((x.policy.as_str(), x.metric), (c.policy.as_str(), c.metric));
            let bits = |v: f64| if v.is_nan() { u64::MAX } else { v.to_bits() };
            assert_eq!(bits(x.summary.mean), bits(c.summary.mean), "{} {:?}", x.policy, x.metric);
        }
        assert_eq!(level.recommended, ib.central.recommended);
    }
    assert!(!b.flips());
}

#[test]
fn more_background_load_makes_the_campus_wait_longer_and_overflow_save_more_wait() {
    let s = scenario(
        "[sensitivity]\nreplications = 3\n[[sensitivity.inputs]]\npath = \"background.offered_load\"\nlow = 0.5\nhigh = 0.92\n",
    );
    let b = band_of(&s, 3);
    let ib = &b.inputs[0];
    let wait =
        |l: &band::Level| l.summaries.get("campus-only", burstsim::metric::Metric::WaitMean).unwrap().summary.mean;
    let (lo, mid, hi) = (wait(&ib.low), wait(&ib.central), wait(&ib.high));
    assert!(lo < mid && mid < hi, "campus-only mean wait must grow with the load: {lo} {mid} {hi}");
    // Overflow's paired saving in wait (a negative difference) grows with the queue.
    let saving =
        |l: &band::Level| l.summaries.paired("overflow", burstsim::metric::Metric::WaitMean).unwrap().summary.mean;
    assert!(saving(&ib.high) < saving(&ib.low), "{} vs {}", saving(&ib.high), saving(&ib.low));
}

fn outcome(recommended: [[Option<&str>; 3]; 2], meeting: [[&[&str]; 3]; 2]) -> BandVerdict {
    let s = |x: &Option<&str>| x.map(String::from);
    let v = |m: &[&str]| m.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    BandVerdict {
        policies: vec!["campus-only".into(), "overflow".into(), "timeout".into()],
        central_cost: vec![100.0, 130.0, 120.0],
        inputs: (0..2)
            .map(|i| InputOutcome {
                id: format!("input-{i}"),
                label: format!("Input {i}"),
                label_zh: String::new(),
                recommended: [s(&recommended[i][0]), s(&recommended[i][1]), s(&recommended[i][2])],
                meeting: [v(meeting[i][0]), v(meeting[i][1]), v(meeting[i][2])],
            })
            .collect(),
    }
}

#[test]
fn a_flip_is_detected_where_low_or_high_recommends_another_policy_and_the_robust_policy_meets_every_level() {
    let c = Some("campus-only");
    let all: &[&str] = &["campus-only", "overflow", "timeout"];
    let steady = outcome([[c, c, c], [c, c, c]], [[all, all, all], [all, all, all]]);
    assert!(!steady.flips());
    assert_eq!(steady.robust(), ["campus-only", "timeout", "overflow"], "cheapest first by central cost");

    // At the high value of input 1, campus-only misses: timeout is recommended there.
    let no_campus: &[&str] = &["overflow", "timeout"];
    let flipped = outcome([[c, c, c], [c, c, Some("timeout")]], [[all, all, all], [all, all, no_campus]]);
    assert!(flipped.flips());
    assert_eq!(flipped.inputs.iter().map(InputOutcome::flips).collect::<Vec<_>>(), [false, true]);
    assert_eq!(flipped.robust(), ["timeout", "overflow"], "campus-only fails one level, so it is not robust");

    // A flip to "none meets the targets" is a flip too, and then nothing is robust.
    let none: &[&str] = &[];
    let lost = outcome([[None, c, c], [c, c, c]], [[none, all, all], [all, all, all]]);
    assert!(lost.flips());
    assert!(lost.robust().is_empty());
}

#[test]
fn the_default_ranges_cover_load_peak_season_shares_and_patience_where_the_scenario_has_them() {
    let d = Scenario::embedded_default();
    let ids: Vec<String> = burstsim::scenario::sensitivity::default_inputs(&d).into_iter().map(|i| i.id).collect();
    assert_eq!(
        ids,
        ["background-load", "peak-season", "group-shares", "patience"],
        "the default has patience (issue 20)"
    );
    let inputs = burstsim::scenario::sensitivity::default_inputs(&d);
    for i in &inputs {
        assert!(i.low < i.central && i.central < i.high, "{i:?}");
    }
    let peak = &inputs[1];
    assert_eq!(peak.paths(), "background.seasons.graduation-season.multiplier");
    let capacity = Scenario::load(Path::new("scenarios/capacity.toml")).unwrap();
    let ids: Vec<String> =
        burstsim::scenario::sensitivity::default_inputs(&capacity).into_iter().map(|i| i.id).collect();
    assert!(ids.contains(&"patience".to_string()), "{ids:?}");
    // A pool campus ignores fair-share, so the shares are not varied there.
    let ids: Vec<String> =
        burstsim::scenario::sensitivity::default_inputs(&scenario("")).into_iter().map(|i| i.id).collect();
    assert_eq!(ids, ["background-load"]);
    // The default states its own targets (issue 43 item 6); a scenario without them gets
    // the default target.
    assert_eq!(sensitivity::targets(&d, &[]).1, TargetSource::Scenario);
    assert_eq!(sensitivity::targets(&capacity, &[]).1, TargetSource::Default);
}

fn error(extra: &str) -> (String, String) {
    let text = format!("{SMALL}\n{extra}");
    match Scenario::from_toml_str(&text, "small.toml") {
        Ok(_) => panic!("accepted:\n{extra}"),
        Err(e) => (e.to_string(), text),
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    let lines: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{needle:?} must be on exactly one line");
    lines[0]
}

#[test]
fn a_bad_sensitivity_section_is_refused_with_file_line_and_key() {
    let input = |body: &str| format!("[sensitivity]\n[[sensitivity.inputs]]\n{body}\n");
    let cases: Vec<(String, &str, &str, &str)> = vec![
        (
            input("path = \"background.offered_load\"\nlow = 0.9\nhigh = 0.95"),
            "low = 0.9",
            "sensitivity.inputs[0].low",
            "above the central value 0.75",
        ),
        (
            input("path = \"background.offered_load\"\nlow = 0.5\nhigh = 0.7"),
            "high = 0.7",
            "sensitivity.inputs[0].high",
            "below the central value",
        ),
        (
            input("path = \"policies.overflow.threshold_hours\"\nlow = 1\nhigh = 4"),
            "path = ",
            "sensitivity.inputs[0].path",
            "a choice of the group",
        ),
        (
            input("path = \"background.nothing\"\nlow = 1\nhigh = 4"),
            "path = ",
            "sensitivity.inputs[0].path",
            "not a number in the scenario",
        ),
        // A missing key points at the table that lacks it.
        (
            input("scale = [\"background.offered_load\"]\nlow = 0.5\nhigh = 1.1"),
            "[[sensitivity.inputs]]",
            "sensitivity.inputs[0].name",
            "needs a name",
        ),
        (
            input("path = \"campus.gpus\"\nlow = 0\nhigh = 20"),
            "low = 0",
            "sensitivity.inputs[0].low",
            "with campus.gpus at 0 the scenario is not valid",
        ),
        ("[sensitivity]\nreplications = 0\n".into(), "replications = 0", "sensitivity.replications", "1 to 10000"),
        ("[sensitivity]\ntargets = [\"wait_p95<=24\"]\n".into(), "targets = ", "sensitivity.targets[0]", "wait_p95"),
    ];
    for (extra, at, key, says) in cases {
        let (e, text) = error(&extra);
        let prefix = format!("small.toml:{}: {key}: ", line_of(&text, at));
        assert!(e.starts_with(&prefix), "expected {prefix:?}, got:\n{e}");
        assert!(e.contains(says), "expected {says:?} in:\n{e}");
    }
    // An unknown key is refused by the parser, with its line.
    let (e, text) = error("[sensitivity]\nreplicatons = 2\n");
    assert!(e.contains(&format!("line {}", line_of(&text, "replicatons"))) && e.contains("replicatons"), "{e}");
}

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").unwrap()
}

#[test]
fn run_writes_the_band_the_tornado_and_the_report_section_and_plot_redraws_them_from_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let scn = dir.path().join("small.toml");
    std::fs::write(&scn, SMALL).unwrap();
    let out = dir.path().join("out");
    let assert = burstsim()
        .args([
            "run",
            scn.to_str().unwrap(),
            "-n",
            "2",
            "--sensitivity-replications",
            "2",
            "--verbose",
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(stdout.contains("Sensitivity band") && stdout.contains("Background load"), "{stdout}");
    assert!(stdout.contains("The recommendation") && stdout.contains("sensitivity}.csv"), "{stdout}");
    let csv = std::fs::read(out.join("sensitivity.csv")).unwrap();
    let (head, rows) = rows_of(&csv);
    assert_eq!(head, COLUMNS);
    assert_eq!(rows.len(), 3 * 2 * 3, "one default input (the load) on a pool campus");
    for f in ["charts/sensitivity_tornado.png", "charts/sensitivity_tornado.svg"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Sensitivity band") && report.contains("Background load"), "{report}");
    // Redrawn from the files alone, in Chinese too.
    std::fs::remove_dir_all(out.join("charts")).unwrap();
    burstsim().args(["plot", out.to_str().unwrap(), "-q"]).assert().success();
    assert!(out.join("charts/sensitivity_tornado.png").is_file());
    burstsim().args(["plot", out.to_str().unwrap(), "--lang", "zh", "-q"]).assert().success();
    assert!(out.join("charts-zh/sensitivity_tornado.png").is_file());
    let zh = std::fs::read_to_string(out.join("report.zh.md")).unwrap();
    assert!(zh.contains("敏感性区间") && zh.contains("其他课题组的负载"), "{zh}");
    // --no-sensitivity leaves no stale band behind.
    burstsim()
        .args([
            "run",
            scn.to_str().unwrap(),
            "-n",
            "2",
            "--no-sensitivity",
            "--no-charts",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(!out.join("sensitivity.csv").exists());
    burstsim()
        .args([
            "run",
            scn.to_str().unwrap(),
            "-n",
            "2",
            "--sensitivity-replications",
            "0",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .code(2);
}
