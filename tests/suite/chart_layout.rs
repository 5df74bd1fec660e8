//! The text layout of every chart of every shipped scenario: no two pieces of text drawn
//! over each other and none running off the canvas (`burstsim::plot::layout_faults`), in
//! English and Chinese, at the default 1600 × 1000 and at `--width 800` (800 × 500).
//!
//! Each shipped scenario runs as shipped (its policies, labels, swept values and targets),
//! made cheaper where the charts do not show it: 2 replications, 12 of the 48 campus
//! nodes (the background load is a share of the campus, so it shrinks with it), and for
//! sweeps, whose charts show no calendar, a 30-day year. The sensitivity band (the tornado
//! chart, four fifths of a run's time) runs for the default only, at 1 replication per
//! level: the other run scenarios have the same uncertain inputs, and their policy names
//! are checked in every other chart. The numbers differ from a full run; the labels,
//! panels and legends are the shipped ones. One test per scenario, so they run in parallel
//! with the rest of the suite.

use std::path::{Path, PathBuf};
use std::process::Command;

use burstsim::i18n::Lang;
use burstsim::plot::PlotOptions;

/// The commands' extra flags per shipped scenario, as the README runs them.
fn flags(name: &str) -> &'static [&'static str] {
    match name {
        "exam-season" | "threshold-sweep" => &["--target", "wait_p95_h<=2"],
        "monthly-vs-hourly" => &["--break-even", "hourly,monthly-4"],
        _ => &[],
    }
}

/// The shipped scenario `name` made cheap (module doc), written into `dir`.
fn cheap_copy(name: &str, dir: &Path) -> Option<(PathBuf, bool)> {
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(scenarios.join(format!("{name}.toml"))).unwrap();
    let mut t: toml::Table = toml::from_str(&text).unwrap();
    let sweep = t.contains_key("sweep");
    let sim = t["simulation"].as_table_mut().unwrap();
    sim.insert("replications".into(), 2.into());
    if sweep {
        sim.insert("horizon_days".into(), 30.into());
        sim.insert("warmup_days".into(), 3.into());
    }
    let campus = t.get_mut("campus").and_then(|c| c.as_table_mut()).unwrap();
    if campus.get("gpus_per_node").and_then(|v| v.as_integer()) == Some(8) {
        campus.insert("nodes".into(), 12.into());
    }
    // A log named by a path relative to scenarios/ is read from there.
    if let Some(trace) = t.get_mut("background").and_then(|b| b.get_mut("trace")).and_then(|v| v.as_table_mut()) {
        let rel = trace["path"].as_str().unwrap().to_string();
        let shared = rel.trim_start_matches("../../shared/");
        crate::common::shared_data(shared)?;
        let abs = scenarios.join(&rel);
        trace.insert("path".into(), abs.display().to_string().into());
        t["simulation"].as_table_mut().unwrap().insert("horizon_days".into(), 60.into());
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, toml::to_string(&t).unwrap()).unwrap();
    Some((path, sweep))
}

/// Runs (or sweeps) the cheap copy of `name` into `dir/name/`, without charts.
pub(crate) fn output_of(name: &str, dir: &Path) -> Option<PathBuf> {
    let (scenario, sweep) = cheap_copy(name, dir)?;
    let out = dir.join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_burstsim"));
    if sweep {
        cmd.arg("sweep");
    } else {
        cmd.arg("run");
        if name == "default" {
            cmd.args(["--sensitivity-replications", "1"]);
        } else {
            cmd.arg("--no-sensitivity");
        }
    }
    cmd.arg(&scenario).args(["-n", "2", "-q", "--no-charts", "-o"]).arg(&out).args(flags(name));
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    Some(out)
}

/// The text-layout faults of every chart of shipped scenario `name` in both languages at
/// both sizes (module doc); empty when the scenario's data is absent outside CI.
fn faults_of(name: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let Some(out) = output_of(name, tmp.path()) else { return Vec::new() };
    eprintln!("{name}: simulated in {:.1} s", started.elapsed().as_secs_f64());
    let mut faults = Vec::new();
    for lang in [Lang::En, Lang::Zh] {
        for (width, height) in [(1600, 1000), (800, 500)] {
            let opts = PlotOptions { lang, width, height, system_fonts: false, ..PlotOptions::default() };
            let charts = burstsim::plot::layout_faults(&out, &opts).unwrap();
            for (chart, list) in charts {
                faults.extend(list.iter().map(|f| format!("{name} {lang:?} {width}: {chart}: {f}")));
            }
        }
    }
    faults
}

/// Every shipped scenario has a test below (a new scenario fails here until it has one).
const CHECKED: [&str; 8] = [
    "all-policies",
    "capacity",
    "default",
    "exam-season",
    "kth-trace",
    "monthly-vs-hourly",
    "starburst",
    "threshold-sweep",
];

#[test]
fn every_shipped_scenario_has_a_layout_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    shipped.sort();
    assert_eq!(shipped, CHECKED, "add a layout test for each new shipped scenario");
}

macro_rules! layout_test {
    ($test:ident, $name:literal) => {
        #[test]
        fn $test() {
            assert!(CHECKED.contains(&$name));
            let faults = faults_of($name);
            assert!(faults.is_empty(), "{} text-layout fault(s):\n{}", faults.len(), faults.join("\n"));
        }
    };
}

layout_test!(all_policies_charts_lay_out_their_text, "all-policies");
layout_test!(capacity_charts_lay_out_their_text, "capacity");
layout_test!(default_charts_lay_out_their_text, "default");
layout_test!(exam_season_charts_lay_out_their_text, "exam-season");
layout_test!(kth_trace_charts_lay_out_their_text, "kth-trace");
layout_test!(monthly_vs_hourly_charts_lay_out_their_text, "monthly-vs-hourly");
layout_test!(starburst_charts_lay_out_their_text, "starburst");
layout_test!(threshold_sweep_charts_lay_out_their_text, "threshold-sweep");
