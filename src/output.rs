//! Output files: the CSV contract of DESIGN.md, the run manifest, the terminal table and
//! warnings. Every file is produced as bytes by a pure function and written atomically
//! (temporary file in the same folder, flushed, then renamed), so an interrupted run never
//! leaves a half-written file under a final name.

pub mod csv;
pub mod printable;
pub mod shard;
pub mod table;
pub mod warnings;

use std::path::Path;

use crate::experiment::{Results, Stopping, Summaries};
use crate::scenario::Scenario;
use crate::write::atomic_write;

/// The files of a finished run, written atomically into `dir` (created if needed), CSVs
/// in plain UTF-8; `run.toml` first, so a folder with any of the new files names their run.
///
/// # Errors
/// I/O errors, naming the file.
pub fn write_run(
    dir: &Path,
    scenario: &Scenario,
    results: &Results,
    summaries: &Summaries,
    stopping: &Stopping,
    warnings: &[warnings::Warning],
) -> std::io::Result<()> {
    write_run_encoded(dir, scenario, results, summaries, stopping, warnings, csv::Encoding::Utf8)
}

/// As [`write_run`], with the CSV files in `encoding` (`--excel`: UTF-8 with a BOM).
///
/// # Errors
/// I/O errors, naming the file.
pub fn write_run_encoded(
    dir: &Path,
    scenario: &Scenario,
    results: &Results,
    summaries: &Summaries,
    stopping: &Stopping,
    warnings: &[warnings::Warning],
    encoding: csv::Encoding,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("could not create '{}': {e}", dir.display())))?;
    // The manifest first: a write that fails part-way (a full disk) leaves a folder that
    // says which run it holds, so the same command may complete it without --force.
    atomic_write(&dir.join("run.toml"), run_manifest(scenario, results, stopping, warnings).as_bytes())?;
    let write = |name: &str, bytes: Vec<u8>| atomic_write(&dir.join(name), &encoding.encode(bytes));
    write("summary.csv", csv::summary_csv(summaries))?;
    write("paired.csv", csv::paired_csv(summaries))?;
    write("classes.csv", csv::classes_csv(summaries))?;
    write("seasons.csv", csv::seasons_csv(summaries))?;
    write("replications.csv", csv::replications_csv(scenario, results))?;
    write("timeseries.csv", csv::timeseries_csv(scenario, results))?;
    write("waits.csv", csv::waits_csv(scenario, results))?;
    write("class_waits.csv", csv::class_waits_csv(scenario, results))
}

/// `run.toml`: the resolved scenario (loadable again, with the seed and replication count
/// used) preceded by comment lines with the version, the scenario hash, how the
/// replications stopped and the warnings.
pub fn run_manifest(
    scenario: &Scenario,
    results: &Results,
    stopping: &Stopping,
    warnings: &[warnings::Warning],
) -> String {
    let mut raw = scenario.raw.clone();
    raw.simulation.replications = results.replications.len() as u32;
    let mut out = String::new();
    out.push_str(&format!("# burstsim {} run manifest\n", crate::VERSION));
    out.push_str(&format!("# scenario: {} (hash {:016x})\n", scenario.name, scenario.hash()));
    out.push_str(&format!("# seed: {}; replications: {}\n", scenario.seed, results.replications.len()));
    let stop = match stopping {
        Stopping::Fixed => "fixed number of replications".to_string(),
        Stopping::TargetReached { rule, settled, undefined } => {
            let skipped = if undefined.is_empty() {
                String::new()
            } else {
                format!(" (undefined in every year, so not watched: {})", undefined.join(", "))
            };
            if *settled {
                format!(
                    "sequential: the decision was settled before every watched 95% CI met its target ({rule}){skipped}"
                )
            } else {
                format!("sequential: every watched 95% CI within its target ({rule}){skipped}")
            }
        }
        Stopping::MaximumReached { rule, worst } => {
            format!(
                "sequential: simulation.max_replications reached before every CI met its target ({rule}); furthest: {worst}"
            )
        }
        Stopping::Interrupted { done, planned, sequential: false } => {
            format!("interrupted after {done} of {planned} replications; the results cover those only")
        }
        Stopping::Interrupted { done, planned, sequential: true } => format!(
            "interrupted after {done} replications, before sequential stopping ended (at most {planned}); the results cover those only"
        ),
    };
    out.push_str(&format!("# stopping: {stop}\n"));
    let model = crate::scenario::assumptions::Assumptions::of(scenario);
    out.push_str(&format!(
        "# {}\n# {}\n# {}\n",
        model.model_line(false),
        model.priority_line(false),
        model.patience_line(false)
    ));
    for line in model.account_lines(false) {
        out.push_str(&format!("# account {line}\n"));
    }
    if let Some(line) = crate::scenario::campus_model::header_line(scenario) {
        out.push_str(&format!("# {line}\n"));
    }
    for w in warnings {
        out.push_str(&format!("# warning: {w}\n"));
    }
    out.push_str("# The rest is the fully resolved scenario; `burstsim run run.toml` repeats this run.\n\n");
    out.push_str(&toml::to_string(&raw).expect("a raw scenario always serialises"));
    out
}
