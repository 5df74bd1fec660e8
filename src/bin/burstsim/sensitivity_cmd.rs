//! The sensitivity band at the end of `burstsim run`: which inputs, how many replications,
//! a progress bar for the extra runs, and `sensitivity.csv` (the library does the work:
//! `burstsim::sensitivity`).

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use burstsim::experiment::Results;
use burstsim::output::csv::Encoding;
use burstsim::scenario::Scenario;
use burstsim::sensitivity::{self, Band, band};
use burstsim::target::Target;

use crate::args::RunArgs;
use crate::common::UsageError;

/// The file the band writes into a run's folder.
pub const FILE: &str = "sensitivity.csv";

/// Computes and writes the band of a finished run, unless it is turned off
/// (`--no-sensitivity`, `[sensitivity] enabled = false`) or the run was cut short; a
/// `sensitivity.csv` of an earlier run is removed then, so no stale band is left beside
/// new results. `None` when no band was computed.
///
/// # Errors
/// `--sensitivity-replications 0`, a default range that makes the scenario invalid, or
/// a failure to write the file.
pub fn after_run(
    a: &RunArgs,
    scenario: &Scenario,
    results: &Results,
    targets: &[Target],
    out_dir: &Path,
    encoding: Encoding,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<Band>> {
    let path = out_dir.join(FILE);
    let (enabled, own) = sensitivity::settings(scenario);
    if a.sensitivity_replications == Some(0) {
        return Err(UsageError(
            "--sensitivity-replications 0 is not allowed; give at least 1 (or --no-sensitivity)".into(),
        )
        .into());
    }
    if a.no_sensitivity || !enabled || stop() {
        let _ = std::fs::remove_file(&path); // an earlier run's band, now stale
        return Ok(None);
    }
    let inputs = sensitivity::spec::inputs(scenario);
    let n = sensitivity::replications_per_level(a.sensitivity_replications, own, results.replications.len());
    let total = sensitivity::extra_replications(inputs.len(), n as usize);
    let pb = crate::common::progress_bar(total, a.quiet, "sensitivity band");
    let started = Instant::now();
    let band =
        sensitivity::run(scenario, results, &inputs, sensitivity::targets(scenario, targets), n, &|| pb.inc(1), stop)?;
    pb.finish_and_clear();
    let Some(band) = band else {
        let _ = std::fs::remove_file(&path);
        say!("burstsim: interrupted: the sensitivity band was not finished; {FILE} not written");
        return Ok(None);
    };
    burstsim::write::atomic_write(&path, &encoding.encode(band::csv(&band)))?;
    say!(
        "burstsim: sensitivity band: {} input(s) × 2 levels × {n} replications in {:.1} s",
        inputs.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(Some(band))
}
