//! Output files: the CSV contract of DESIGN.md, the run manifest, the terminal table and
//! warnings. Every file is produced as bytes by a pure function and written atomically
//! (temporary file in the same folder, flushed, then renamed), so an interrupted run never
//! leaves a half-written file under a final name.

pub mod csv;
pub mod lock;
pub mod occupied;
pub mod printable;
pub mod table;
pub mod warnings;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::experiment::{Results, Stopping, Summaries};
use crate::scenario::Scenario;

/// Writes `bytes` to `path` atomically: a temporary sibling is written and synced, then
/// renamed over the target.
///
/// # Errors
/// Any I/O error, with the path in the message.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp: PathBuf = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| std::io::Error::new(e.kind(), format!("could not write '{}': {e}", path.display())))
}

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
    out.push_str(&format!("# burstsim {} run manifest\n", env!("CARGO_PKG_VERSION")));
    out.push_str(&format!("# scenario: {} (hash {:016x})\n", scenario.name, scenario.hash()));
    out.push_str(&format!("# seed: {}; replications: {}\n", scenario.seed, results.replications.len()));
    let stop = match stopping {
        Stopping::Fixed => "fixed number of replications".to_string(),
        Stopping::TargetReached { rule, undefined } => {
            let skipped = if undefined.is_empty() {
                String::new()
            } else {
                format!(" (undefined in every year, so not watched: {})", undefined.join(", "))
            };
            format!("sequential: every watched 95% CI within its target ({rule}){skipped}")
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
    for w in warnings {
        out.push_str(&format!("# warning: {w}\n"));
    }
    out.push_str("# The rest is the fully resolved scenario; `burstsim run run.toml` repeats this run.\n\n");
    out.push_str(&toml::to_string(&raw).expect("a raw scenario always serialises"));
    out
}

/// Formats a number for CSV: shortest round-trip text, empty for NaN, `0` for −0.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn numbers_are_plain_and_nan_is_empty() {
        assert_eq!(num(f64::NAN), "");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1e-7), "0.0000001");
    }
}
