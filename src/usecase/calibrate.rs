//! `calibrate`: fits a scenario's unmeasured campus inputs to what the group observed
//! (`[calibration]`, and a log's monthly waits with `sacct`), then writes the calibrated
//! scenario and its CSVs and renders the fitted values with intervals and each
//! observation's residual. The messages name the command line's flags: the binary is its
//! only front end so far.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{Error, Front, Progress, Stage};
use crate::evidence::calibrate::{self, CalibrateError, Calibration, spec::Who, write};
use crate::trace::{self, ReadOptions};
use crate::write::atomic_write;

/// Files a calibration writes (an output folder holding only these may be rewritten).
const OWN_FILES: [&str; 4] =
    ["calibration.csv", "calibration_residuals.csv", "calibration_points.csv", "calibrated.toml"];

/// The arguments of `calibrate`, as the front end received them.
#[derive(Clone, Debug, Default)]
pub struct CalibrateOptions {
    /// Replications per evaluated point (overrides `calibration.replications`).
    pub replications: Option<u32>,
    /// Most evaluated points (overrides `calibration.budget`).
    pub budget: Option<u32>,
    /// Master seed (overrides the scenario's).
    pub seed: Option<u64>,
    /// Worker threads (default: one per core); results do not depend on it.
    pub threads: Option<usize>,
    /// Output folder (default: `output/<scenario name>-calibration/`).
    pub out: Option<PathBuf>,
    /// Replace files in a folder that holds files other than a calibration's.
    pub force: bool,
    /// Observations from a log (sacct, or SWF with dates), and whose jobs it holds.
    pub sacct: Option<(PathBuf, Who)>,
    /// Keep only this account's jobs of the log.
    pub account: Option<String>,
}

/// A checked calibration: the spec, the scenario, its folder.
pub struct CalibrateRequest {
    text: String,
    file: String,
    spec: calibrate::spec::Spec,
    scenario: crate::scenario::Scenario,
    doc: toml::Table,
    base: PathBuf,
    out: PathBuf,
    pool: rayon::ThreadPool,
    /// The output folder's lock, held from the checks until the files are written.
    _lock: crate::write::lock::OutputLock,
}

impl CalibrateRequest {
    /// Reads the scenario and the log, checks the `[calibration]` table, the arguments
    /// and the output folder.
    ///
    /// # Errors
    /// An unreadable file, a bad scenario, calibration table, log or argument, or a
    /// folder holding other files (without `force`).
    pub fn new(path: &Path, a: &CalibrateOptions) -> Result<CalibrateRequest, Error> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Failed(format!("could not read scenario '{file}': {e}")))?;
        let extra = match &a.sacct {
            None => Vec::new(),
            Some((log, who)) => {
                let t = trace::read_file(log, &ReadOptions::default())?;
                calibrate::sacct::observations(&t, &log.display().to_string(), *who, a.account.as_deref())
                    .map_err(|e| Error::Usage(e.to_string()))?
            }
        };
        let (mut spec, scenario, doc) = calibrate::prepare(&text, &file, extra).map_err(bad_input)?;
        if let Some(n) = a.replications {
            if n < 2 {
                return Err(Error::Usage("--replications: at least 2 per point".into()));
            }
            Front::Cli.check_replications("replications", n)?;
            spec.replications = n;
        } else if spec.replications > crate::scenario::MAX_REPLICATIONS {
            // `calibration.replications` (or the `simulation.replications` it defaults to,
            // which validation has capped already): as the scenario's own key says it.
            return Err(crate::scenario::ScenarioError::Invalid {
                file: file.clone(),
                line: crate::scenario::locate::line_of(&text, "calibration.replications"),
                key: "calibration.replications".into(),
                message: crate::scenario::too_many_replications(&spec.replications.to_string()),
            }
            .into());
        }
        if let Some(b) = a.budget {
            spec.budget = b;
        }
        let mut doc = doc;
        if let Some(seed) = a.seed {
            crate::scenario::keys::set_path(&mut doc, "simulation.seed", &seed.to_string())?;
        }
        let out =
            a.out.clone().unwrap_or_else(|| PathBuf::from("output").join(format!("{}-calibration", scenario.name)));
        check_out_dir(&out, a.force)?;
        // Created, writable and ours before the first point is simulated (issue 45 item 3):
        // a calibration takes minutes and its files come last.
        let lock = crate::write::lock::OutputLock::exclusive(&out, "calibrate")?;
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let pool = super::pool(a.threads, Front::Cli)?;
        Ok(CalibrateRequest { text, file, spec, scenario, doc, base, out, pool, _lock: lock })
    }

    /// Evaluates points until the search and the intervals are done, the budget is
    /// spent or `stop` says so (the outcome says which).
    ///
    /// # Errors
    /// A point that does not validate or runs away.
    pub fn run(&self, progress: &dyn Progress, stop: &(dyn Fn() -> bool + Sync)) -> Result<CalibrateOutcome, Error> {
        progress.start(Stage::Search { most: u64::from(self.spec.budget) });
        let started = Instant::now();
        // The search reports points done; the display counts steps.
        let shown = std::sync::atomic::AtomicU64::new(0);
        let step = |done: usize, _| {
            let done = done as u64;
            progress.advance(done.saturating_sub(shown.swap(done, std::sync::atomic::Ordering::Relaxed)));
        };
        let result = self.pool.install(|| {
            calibrate::run(self.spec.clone(), &self.scenario, &self.doc, &self.base, &self.file, &step, &stop)
        });
        progress.finish();
        let cal = result.map_err(bad_input)?;
        Ok(CalibrateOutcome { cal, started })
    }

    /// Writes the calibrated scenario and the calibration's CSVs into the folder.
    ///
    /// # Errors
    /// The folder or a file cannot be written.
    pub fn write(&self, outcome: &CalibrateOutcome) -> Result<(), Error> {
        let (out, cal) = (&self.out, &outcome.cal);
        std::fs::create_dir_all(out)
            .map_err(|e| Error::Failed(format!("could not create '{}': {e}", out.display())))?;
        let write_file = |name: &str, body: String| {
            atomic_write(&out.join(name), body.as_bytes())
                .map_err(|e| Error::Failed(format!("could not write '{}': {e}", out.join(name).display())))
        };
        write_file("calibrated.toml", write::calibrated_toml(&self.text, cal, &self.file))?;
        write_file("calibration.csv", write::fitted_csv(cal))?;
        write_file("calibration_residuals.csv", write::residuals_csv(cal))?;
        write_file("calibration_points.csv", write::points_csv(cal))?;
        Ok(())
    }

    /// What was written where, and how long it took.
    pub fn summary(&self, outcome: &CalibrateOutcome) -> String {
        format!(
            "{} points in {:.1} s; wrote {}/calibrated.toml and calibration*.csv",
            outcome.cal.points.len(),
            outcome.started.elapsed().as_secs_f64(),
            self.out.display()
        )
    }
}

/// A finished (or stopped) calibration.
pub struct CalibrateOutcome {
    /// The fitted inputs, the residuals and every evaluated point.
    pub cal: Calibration,
    started: Instant,
}

impl CalibrateOutcome {
    /// Whether a stop ended the search early (the results are from the points so far).
    pub fn stopped(&self) -> bool {
        self.cal.stopped
    }

    /// The fitted values and residuals as the terminal shows them.
    pub fn table(&self) -> String {
        table(&self.cal)
    }
}

/// Calibration errors as the use cases' errors: the scenario's and the sweep's keep
/// their kind, an interruption is a failure, the rest is bad input.
fn bad_input(e: CalibrateError) -> Error {
    match e {
        CalibrateError::Scenario(e) => e.into(),
        CalibrateError::Sweep(e) => e.into(),
        CalibrateError::Interrupted => Error::Failed(e.to_string()),
        other => Error::Usage(other.to_string()),
    }
}

/// Refuses an output folder that holds files a calibration did not write (unless --force).
fn check_out_dir(dir: &Path, force: bool) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let foreign: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !OWN_FILES.contains(&n.as_str()) && n != crate::write::lock::LOCK_FILE)
        .collect();
    if !foreign.is_empty() && !force {
        return Err(Error::Usage(format!(
            "'{}' holds files a calibration did not write ({}); choose another --out or give --force",
            dir.display(),
            foreign.join(", ")
        )));
    }
    Ok(())
}

/// The calibration as the terminal shows it: the fitted inputs with their intervals,
/// each observation's residual, and what the fit could not do.
fn table(cal: &Calibration) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let pct = 100.0 * cal.spec.confidence;
    let _ = writeln!(
        out,
        "Calibration of policy {} ({} replications per point, {} points)",
        cal.policy,
        cal.spec.replications,
        cal.points.len()
    );
    out.push('\n');
    let _ = writeln!(out, "{:<48} {:>10} {:>24}   range", "input", "fitted", format!("{pct:.0}% interval"));
    for f in &cal.fitted {
        let iv = format!(
            "{}{} to {}{}",
            if f.low_open { "≤" } else { "" },
            f.low,
            f.high,
            if f.high_open { "+" } else { "" }
        );
        let _ = writeln!(out, "{:<48} {:>10} {:>24}   {} to {}", f.input.name, f.value, iv, f.input.low, f.input.high);
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{:<48} {:>16} {:>26} {:>7} {:>26}",
        "observation", "observed (h)", "simulated (h, 95% CI)", "z", "fresh years (h, 95% CI)"
    );
    let interval =
        |s: &calibrate::Simulated| format!("{:.2} ({:.2} to {:.2})", s.summary.mean, s.summary.low(), s.summary.high());
    for r in &cal.residuals {
        let o = &r.observation;
        let (sim, z) = match &r.simulated {
            Some(s) => (interval(s), format!("{:+.2}", s.z(o.value))),
            None => ("no job".into(), "-".into()),
        };
        let fresh = match &r.fresh {
            Some(s) => interval(s),
            None if cal.fresh_checked => "no job".into(),
            None => "-".into(),
        };
        let _ = writeln!(
            out,
            "{:<48} {:>16} {:>26} {:>7} {:>26}{}",
            o.label,
            format!("{} ± {}", o.value, o.tolerance),
            sim,
            z,
            fresh,
            if r.met { "" } else { "  NOT MET" }
        );
    }
    if cal.fresh_checked {
        let _ = writeln!(
            out,
            "simulated: the calibration's own years (replications from 2^32, which no run reaches); fresh years: \
             the calibrated scenario on replications 0 to {}, the years `burstsim run` reports, unseen by the fit",
            cal.spec.replications - 1
        );
    }
    out.push('\n');
    for line in write::notes(cal) {
        let _ = writeln!(out, "{line}");
    }
    let unmet: Vec<_> = cal.residuals.iter().filter(|r| !r.met).collect();
    if unmet.is_empty() {
        let _ = writeln!(
            out,
            "The calibrated scenario meets every observation within its tolerance and the simulation's spread."
        );
    } else {
        let _ = writeln!(
            out,
            "The calibration cannot meet {} of {} observations within the ranges:",
            unmet.len(),
            cal.residuals.len()
        );
        for r in unmet {
            let o = &r.observation;
            let _ = match &r.simulated {
                Some(s) => writeln!(
                    out,
                    "  {}: simulated {:.2} h, observed {} h ± {} h: off by {:+.2} h ({:+.1} scales)",
                    o.label,
                    s.summary.mean,
                    o.value,
                    o.tolerance,
                    s.residual(o.value),
                    s.z(o.value)
                ),
                None => writeln!(out, "  {}: no simulated job in it", o.label),
            };
        }
    }
    if cal.budget_cut_search {
        let _ = writeln!(
            out,
            "note: the search used its whole budget before its finest step; a larger --budget may find a better point"
        );
    }
    if cal.intervals_cut {
        let _ = writeln!(
            out,
            "warning: the budget ran out before every interval end was found to 1/16 of its range: \
             the intervals may be narrower than the observations allow; raise --budget"
        );
    }
    if cal.stopped {
        let _ = writeln!(out, "note: interrupted; these results are from the points evaluated so far");
    }
    out
}
