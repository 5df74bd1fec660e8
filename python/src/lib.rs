//! `burstsim._burstsim`: the Rust side of the Python package. It calls the library's use
//! cases (`burstsim::usecase`), the same ones the command line calls, and hands Python
//! plain data: CSV text, folder paths, strings and numbers. The pandas, tqdm and notebook
//! glue lives in `python/burstsim/__init__.py`.
//!
//! Long work runs on a worker thread with the GIL released; the calling thread wakes
//! every 50 ms, takes the GIL, runs Python's signal handlers (Ctrl-C raises
//! `KeyboardInterrupt` there) and reports progress. A pending exception sets the stop
//! flag the library's replications poll, so they end within milliseconds and the
//! exception is raised once the worker has returned.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use burstsim::i18n::Lang;
use burstsim::output::csv::Encoding;
use burstsim::output::printable::printable;
use burstsim::plot::PlotOptions;
use burstsim::scenario::{self, ScenarioError as LibScenarioError};
use burstsim::sweep::{self, recommend};
use burstsim::usecase::run::{RunOptions, RunOutcome, RunRequest, Source};
use burstsim::usecase::sweep::{SweepEnd, SweepOptions, SweepRequest, SweepSource};
use burstsim::usecase::{self, Counter, Front};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _burstsim,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be used: .file, .line, .key, .message."
);

/// An error's text as the CLI prints it: messages quote users' files, so NUL, escape,
/// bidirectional and zero-width characters are shown as `\u{…}` escapes (the CLI's
/// `burstsim::output::printable`), never raw in a traceback or a notebook cell.
fn shown(text: &str) -> String {
    printable(text).into_owned()
}

/// Turns a library scenario error into `ScenarioError` with `file`, `line`, `key` and
/// `message` attributes (any of the first three may be None), each escaped as the CLI
/// escapes its error text.
fn scenario_err(py: Python<'_>, e: &LibScenarioError) -> PyErr {
    let (file, line, key, message) = e.parts();
    let err = ScenarioError::new_err(shown(&e.to_string()));
    let value = err.value(py);
    let _ = value.setattr("file", file.as_deref().map(shown));
    let _ = value.setattr("line", line);
    let _ = value.setattr("key", key.as_deref().map(shown));
    let _ = value.setattr("message", shown(&message));
    err
}

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(shown(&e.to_string()))
}

fn runtime_err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(shown(&e.to_string()))
}

/// A checked scenario and the TOML text it came from.
#[pyclass(frozen, module = "burstsim._burstsim")]
struct Scenario {
    text: String,
    file: String,
    /// The text as read (before any `with_values`): error lines point into it.
    origin: String,
    inner: scenario::Scenario,
}

fn load(py: Python<'_>, text: &str, file: &str) -> PyResult<Scenario> {
    let inner = scenario::Scenario::from_toml_str(text, file).map_err(|e| scenario_err(py, &e))?;
    Ok(Scenario { text: text.to_string(), file: file.to_string(), origin: text.to_string(), inner })
}

#[pymethods]
impl Scenario {
    /// The built-in default scenario (the CLI's `burstsim run` without a file).
    #[staticmethod]
    fn default(py: Python<'_>) -> PyResult<Scenario> {
        load(py, scenario::DEFAULT_SCENARIO, "<embedded default>")
    }

    /// Checks scenario text; `file` names it in errors and resolves relative paths.
    #[staticmethod]
    #[pyo3(signature = (text, file = "<string>"))]
    fn from_text(py: Python<'_>, text: &str, file: &str) -> PyResult<Scenario> {
        load(py, text, file)
    }

    /// Reads and checks a scenario file.
    #[staticmethod]
    fn from_path(py: Python<'_>, path: PathBuf) -> PyResult<Scenario> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(&path)
            .map_err(|cause| scenario_err(py, &LibScenarioError::Read { path: file.clone(), cause }))?;
        load(py, &text, &file)
    }

    /// A copy with dotted keys set (`[("campus.nodes", "32")]`), each value typed like
    /// the key it replaces, as a sweep sets them; checked again as a whole.
    fn with_values(&self, py: Python<'_>, values: Vec<(String, String)>) -> PyResult<Scenario> {
        let (text, inner) =
            scenario::with_values(&self.text, &self.origin, &self.file, &values).map_err(|e| scenario_err(py, &e))?;
        Ok(Scenario { text, file: self.file.clone(), origin: self.origin.clone(), inner })
    }

    /// The TOML text (as given, or as rewritten by `with_values`).
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// The file name errors use.
    #[getter]
    fn file(&self) -> &str {
        &self.file
    }

    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }

    #[getter]
    fn replications(&self) -> u32 {
        self.inner.replications
    }

    #[getter]
    fn policies(&self) -> Vec<String> {
        self.inner.policies.iter().map(|p| p.name.clone()).collect()
    }

    #[getter]
    fn classes(&self) -> Vec<String> {
        self.inner.class_names()
    }

    /// The scenario with every default filled in, loadable again (as in `run.toml`).
    fn resolved_toml(&self) -> String {
        self.inner.resolved_toml()
    }

    /// The scenario's stable hash (the one `run.toml` records).
    fn hash(&self) -> String {
        format!("{:016x}", self.inner.hash())
    }
}

/// A use case's failure as a Python exception: a scenario's as `ScenarioError`, other
/// bad input as `ValueError`, a failure of the work as `RuntimeError`.
fn usecase_err(py: Python<'_>, e: usecase::Error) -> PyErr {
    match e {
        usecase::Error::Scenario(s) => scenario_err(py, &s),
        usecase::Error::Sweep(sweep::SweepError::InvalidPoint { problem, .. }) => scenario_err(py, &problem),
        e @ usecase::Error::Key(_) => value_err(e),
        e if e.is_bad_input() => value_err(e),
        e => runtime_err(e),
    }
}

/// Runs `work` on a worker thread with the GIL released. `work` gets a [`Counter`] to
/// report to and a stop poll. Every 50 ms the calling thread runs Python's signal
/// handlers and calls `progress(done, total)` when either moved; an exception from
/// either stops the work and is raised when it has returned.
fn watched<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    work: impl FnOnce(&Counter, &(dyn Fn() -> bool + Sync)) -> T + Send,
) -> PyResult<T> {
    let counter = Counter::default();
    let stop = AtomicBool::new(false);
    let mut pending: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::thread::scope(|s| {
            let worker = s.spawn(|| work(&counter, &|| stop.load(Ordering::Relaxed)));
            let mut shown = (u64::MAX, u64::MAX);
            let mut report = |last: bool| {
                Python::attach(|py| {
                    if pending.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        pending = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                    let now = counter.read();
                    if let (Some(cb), true) = (&progress, now != shown || last) {
                        shown = now;
                        if let Err(e) = cb.call1(py, now) {
                            pending.get_or_insert(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                });
            };
            while !worker.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                report(false);
            }
            let out = worker.join();
            report(true);
            out
        })
    });
    if let Some(e) = pending {
        return Err(e);
    }
    outcome.map_err(|_| runtime_err("burstsim panicked; this is a bug, please report it"))
}

/// A finished run: the results and everything written from them.
#[pyclass(frozen, module = "burstsim._burstsim")]
struct Run(RunOutcome);

/// `burstsim run`: the scenario's replications (or its sequential rule), then, when
/// `sensitivity`, the band. Progress counts replications, then the band's replications.
#[pyfunction]
#[pyo3(signature = (scenario, replications = None, seed = None, threads = None, targets = vec![], ci_target = vec![], sensitivity = false, sensitivity_replications = None, progress = None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario: &Scenario,
    replications: Option<u32>,
    seed: Option<u64>,
    threads: Option<usize>,
    targets: Vec<String>,
    ci_target: Vec<String>,
    sensitivity: bool,
    sensitivity_replications: Option<u32>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Run> {
    let options = RunOptions {
        seed,
        replications,
        targets,
        ci_target,
        sensitivity,
        sensitivity_replications,
        threads,
        campus_model: None,
    };
    let request = RunRequest::new(Source::Loaded(Box::new(scenario.inner.clone())), &options, Front::Python)
        .map_err(|e| usecase_err(py, e))?;
    let outcome = watched(py, progress, |counter, stop| request.run(counter, stop))?.map_err(|e| usecase_err(py, e))?;
    match outcome {
        // Only a stop we did not ask for; ours raised KeyboardInterrupt above.
        None => Err(runtime_err("the run was interrupted")),
        Some(o) if o.cut_short() => Err(runtime_err("the run was interrupted")),
        Some(o) => Ok(Run(o)),
    }
}

fn lang(code: &str) -> PyResult<Lang> {
    match code {
        "en" => Ok(Lang::En),
        "zh" => Ok(Lang::Zh),
        other => Err(value_err(format!("lang '{other}' is not known; use 'en' or 'zh'"))),
    }
}

/// Draws the charts and the report of an output folder (`burstsim plot DIR [--lang zh]`);
/// returns (charts folder, chart names in report order, report.html, warnings).
#[pyfunction]
#[pyo3(signature = (dir, lang_code = "en"))]
fn plot_dir(py: Python<'_>, dir: PathBuf, lang_code: &str) -> PyResult<(PathBuf, Vec<String>, PathBuf, Vec<String>)> {
    let opts = PlotOptions { lang: lang(lang_code)?, ..PlotOptions::default() };
    let out = py
        .detach(|| burstsim::report::plot_dir(&dir, &opts))
        .map_err(|e| if e.is_bad_input() { value_err(e) } else { runtime_err(e) })?;
    Ok((out.charts_dir, out.charts.into_iter().map(|c| c.name).collect(), out.report_html, out.warnings))
}

#[pymethods]
impl Run {
    /// The CSV text of one file of the output contract: summary, paired, classes,
    /// seasons, replications, timeseries, waits, class_waits, risk (with targets),
    /// sensitivity (with the band).
    fn csv(&self, name: &str) -> PyResult<String> {
        let bytes = self.0.csv(name).ok_or_else(|| value_err(format!("no file '{name}.csv' in this run")))?;
        String::from_utf8(bytes).map_err(runtime_err)
    }

    /// Writes the run's folder as `burstsim run --out DIR` does: run.toml and the CSVs
    /// (risk.csv with targets, sensitivity.csv with the band; stale ones removed), under
    /// the same lock and the same refusal of another run's folder unless `force`; then,
    /// unless `charts` is false, the charts and report.html/report.md. Returns warnings.
    #[pyo3(signature = (dir, force = false, charts = true, excel = false))]
    fn write(&self, py: Python<'_>, dir: PathBuf, force: bool, charts: bool, excel: bool) -> PyResult<Vec<String>> {
        py.detach(|| self.0.write_folder(&dir, force, charts, Encoding::excel(excel))).map_err(|e| usecase_err(py, e))
    }

    /// The terminal table of `burstsim run` (and the band's section, when computed).
    fn table(&self) -> String {
        self.0.table(false)
    }

    /// The warnings the CLI prints after the run.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.0.warnings.iter().map(ToString::to_string).collect()
    }

    /// Replications run (fewer than asked only under sequential stopping).
    #[getter]
    fn replications_done(&self) -> usize {
        self.0.results.replications.len()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.0.scenario.seed
    }

    #[getter]
    fn scenario_name(&self) -> &str {
        &self.0.scenario.name
    }

    /// run.toml's text.
    fn manifest(&self) -> String {
        self.0.manifest()
    }
}

/// A finished sweep: its folder (every file `burstsim sweep --out DIR` writes) and the
/// recommendation.
#[pyclass(frozen, module = "burstsim._burstsim")]
struct SweepRun {
    #[pyo3(get)]
    dir: PathBuf,
    #[pyo3(get)]
    text: String,
    /// The chosen (policy, point label, mean cost, cost CI half-width), when one meets the targets.
    #[pyo3(get)]
    chosen: Option<(String, String, f64, f64)>,
    /// Every (policy, point label, mean cost) meeting the targets, cheapest first.
    #[pyo3(get)]
    met: Vec<(String, String, f64)>,
    /// "mean-year" or "risk".
    #[pyo3(get)]
    rule: Option<String>,
    #[pyo3(get)]
    confidence_each: Option<f64>,
}

/// `burstsim sweep`: every point of the grid into `dir` (a folder that holds this same
/// sweep keeps its finished points, as the CLI does), then sweep.csv and, with
/// targets, the recommendation, decisions.csv and risk.csv, then the charts.
#[pyfunction]
#[pyo3(signature = (text, file, params, dir, decisions = vec![], conditions = vec![], weights = vec![], targets = vec![], risk = None, replications = None, seed = None, threads = None, force = false, charts = true, progress = None))]
#[allow(clippy::too_many_arguments)]
fn run_sweep(
    py: Python<'_>,
    text: &str,
    file: &str,
    params: Vec<String>,
    dir: PathBuf,
    decisions: Vec<String>,
    conditions: Vec<String>,
    weights: Vec<String>,
    targets: Vec<String>,
    risk: Option<f64>,
    replications: Option<u32>,
    seed: Option<u64>,
    threads: Option<usize>,
    force: bool,
    charts: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<SweepRun> {
    let options = SweepOptions {
        params,
        decisions,
        conditions,
        weights,
        targets,
        risk,
        replications,
        seed,
        out: Some(dir.clone()),
        force,
        threads,
        ..SweepOptions::default()
    };
    let request =
        SweepRequest::new(SweepSource::Text { text, file }, &options, Front::Python).map_err(|e| usecase_err(py, e))?;
    let end = watched(py, progress, |counter, stop| request.run(counter, stop))?.map_err(|e| usecase_err(py, e))?;
    let SweepEnd::Assembled(done) = end else {
        return Err(runtime_err("the sweep was interrupted"));
    };
    // As `burstsim sweep`: the base scenario kept beside the sweep, then the charts.
    done.write_base().map_err(runtime_err)?;
    if charts {
        plot_dir(py, dir.clone(), "en")?;
    }
    let verdict = |v: &recommend::Verdict| (v.policy.clone(), v.label.clone(), v.cost.mean);
    let rec = done.assembled.recommendation.as_ref();
    Ok(SweepRun {
        dir,
        text: done.assembled.text.clone(),
        chosen: rec
            .and_then(|r| r.chosen.as_ref())
            .map(|v| (v.policy.clone(), v.label.clone(), v.cost.mean, v.cost.half_width)),
        met: rec.map(|r| r.met.iter().map(verdict).collect()).unwrap_or_default(),
        rule: rec.map(|r| match r.rule {
            recommend::Rule::MeanYear => "mean-year".to_string(),
            recommend::Rule::Risk { .. } => "risk".to_string(),
        }),
        confidence_each: rec.map(|r| r.confidence_each),
    })
}

#[pymodule]
fn _burstsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("VERSION", burstsim::VERSION)?;
    m.add_class::<Scenario>()?;
    m.add_class::<Run>()?;
    m.add_class::<SweepRun>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(plot_dir, m)?)?;
    Ok(())
}
