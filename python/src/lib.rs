//! `burstsim._burstsim`: the Rust side of the Python package. It calls the burstsim
//! library exactly as the command line does (the same functions, in the same order) and
//! hands Python plain data: CSV text, folder paths, strings and numbers. The pandas,
//! tqdm and notebook glue lives in `python/burstsim/__init__.py`.
//!
//! Long work runs on a worker thread with the GIL released; the calling thread wakes
//! every 50 ms, takes the GIL, runs Python's signal handlers (Ctrl-C raises
//! `KeyboardInterrupt` there) and reports progress. A pending exception sets the stop
//! flag the library's replications poll, so they end within milliseconds and the
//! exception is raised once the worker has returned.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use burstsim::experiment::{self, Results, Stopping, Summaries};
use burstsim::output::{self, csv::Encoding, table, warnings};
use burstsim::plot::{Lang, PlotOptions};
use burstsim::scenario::{self, ScenarioError as LibScenarioError};
use burstsim::sensitivity::{self, Band};
use burstsim::sweep::{self, Sweep, recommend, store};
use burstsim::target::Target;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _burstsim,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be used: .file, .line, .key, .message."
);

/// Turns a library scenario error into `ScenarioError` with `file`, `line`, `key` and
/// `message` attributes (any of the first three may be None).
fn scenario_err(py: Python<'_>, e: &LibScenarioError) -> PyErr {
    let (file, line, key, message) = match e {
        LibScenarioError::Read { path, cause } => (Some(path.clone()), None, None, format!("could not read: {cause}")),
        LibScenarioError::Syntax { file, message } => (Some(file.clone()), toml_line(message), None, message.clone()),
        LibScenarioError::Invalid { file, line, key, message } => {
            (Some(file.clone()).filter(|f| !f.is_empty()), *line, Some(key.clone()), message.clone())
        }
    };
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("file", file);
    let _ = value.setattr("line", line);
    let _ = value.setattr("key", key);
    let _ = value.setattr("message", message);
    err
}

/// The line the TOML parser names ("TOML parse error at line 3, column 5").
fn toml_line(message: &str) -> Option<usize> {
    let rest = &message[message.find("line ")? + 5..];
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn runtime_err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
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
        let mut doc: toml::Table = toml::from_str(&self.text).map_err(value_err)?;
        for (key, value) in &values {
            sweep::set_path(&mut doc, key, value).map_err(|e| {
                let err = LibScenarioError::Invalid {
                    file: self.file.clone(),
                    line: None,
                    key: key.clone(),
                    message: e.to_string(),
                };
                scenario_err(py, &err)
            })?;
        }
        let text = toml::to_string(&doc).map_err(runtime_err)?;
        // The rewritten text has other line numbers than the user's file: an error names
        // the key's line in the file as read, and a parse error (a key that does not
        // exist) the keys given here instead of a line of the rewritten text.
        let inner = scenario::Scenario::from_toml_str(&text, &self.file).map_err(|e| {
            let e = match e {
                LibScenarioError::Invalid { key, message, .. } => LibScenarioError::Invalid {
                    file: self.file.clone(),
                    line: scenario::locate::line_of(&self.origin, &key),
                    key,
                    message,
                },
                LibScenarioError::Syntax { message, .. } => LibScenarioError::Invalid {
                    file: self.file.clone(),
                    line: None,
                    key: values.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", "),
                    message: message.lines().last().unwrap_or_default().to_string(),
                },
                other => other,
            };
            scenario_err(py, &e)
        })?;
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

fn pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(value_err("threads=0 is not allowed; give at least 1"));
        }
        b = b.num_threads(n);
    }
    b.build().map_err(runtime_err)
}

/// Runs `work` on a worker thread inside `pool` with the GIL released. `work` gets a
/// tick (one unit of progress done) and a stop poll. Every 50 ms the calling thread
/// runs Python's signal handlers and calls `progress(done, total)` when `done` moved;
/// an exception from either stops the work and is raised when it has returned.
fn watched<T: Send>(
    py: Python<'_>,
    pool: &rayon::ThreadPool,
    total: u64,
    progress: Option<Py<PyAny>>,
    work: impl FnOnce(&(dyn Fn() + Sync), &(dyn Fn() -> bool + Sync)) -> T + Send,
) -> PyResult<T> {
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut pending: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::thread::scope(|s| {
            let worker = s.spawn(|| {
                let tick = || {
                    done.fetch_add(1, Ordering::Relaxed);
                };
                let poll = || stop.load(Ordering::Relaxed);
                pool.install(|| work(&tick, &poll))
            });
            let mut shown = u64::MAX;
            let mut report = |last: bool| {
                Python::attach(|py| {
                    if pending.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        pending = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                    let d = done.load(Ordering::Relaxed);
                    if let (Some(cb), true) = (&progress, d != shown || last) {
                        shown = d;
                        if let Err(e) = cb.call1(py, (d, total)) {
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

fn targets_from(specs: &[String], scenario: &scenario::Scenario) -> PyResult<Vec<Target>> {
    let targets =
        specs.iter().map(|t| burstsim::target::parse_target(t).map_err(value_err)).collect::<PyResult<Vec<_>>>()?;
    burstsim::target::check_classes(&targets, &scenario.class_names()).map_err(value_err)?;
    Ok(targets)
}

/// A finished run: the results and everything written from them.
#[pyclass(frozen, module = "burstsim._burstsim")]
struct Run {
    scenario: scenario::Scenario,
    results: Results,
    summaries: Summaries,
    stopping: Stopping,
    warnings: Vec<warnings::Warning>,
    targets: Vec<Target>,
    band: Option<Band>,
}

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
    if replications == Some(0) {
        return Err(value_err("replications=0 is not allowed; run at least 1 (20 or more for useful intervals)"));
    }
    if sensitivity_replications == Some(0) {
        return Err(value_err("sensitivity_replications=0 is not allowed; give at least 1 (or sensitivity=False)"));
    }
    let cli_rule = if ci_target.is_empty() {
        None
    } else {
        Some(experiment::sequential::parse_ci_targets(&ci_target).map_err(value_err)?)
    };
    let scn = scenario.inner.clone().with_overrides(seed, replications);
    let targets = targets_from(&targets, &scn)?;
    let rule = cli_rule.or_else(|| scn.ci_target.map(experiment::Sequential::relative_default));
    let pool = pool(threads)?;
    let (enabled, own) = sensitivity::settings(&scn);
    let inputs = if sensitivity && enabled { sensitivity::spec::inputs(&scn) } else { Vec::new() };
    let total = match &rule {
        None => u64::from(scn.replications),
        Some(_) => u64::from(scn.max_replications),
    };
    let (results, stopping) = watched(py, &pool, total, progress.as_ref().map(|p| p.clone_ref(py)), |tick, stop| {
        experiment::run_until(&scn, rule.as_ref(), tick, stop)
    })?
    .map_err(runtime_err)?;
    if matches!(stopping, Stopping::Interrupted { .. }) {
        // Only a stop we did not ask for; ours raised KeyboardInterrupt above.
        return Err(runtime_err("the run was interrupted"));
    }
    let band = if inputs.is_empty() {
        None
    } else {
        let n = sensitivity::replications_per_level(sensitivity_replications, own, results.replications.len());
        let extra = sensitivity::extra_replications(inputs.len(), n as usize);
        let t = sensitivity::targets(&scn, &targets);
        watched(py, &pool, extra, progress, |tick, stop| sensitivity::run(&scn, &results, &inputs, t, n, tick, stop))?
            .map_err(runtime_err)?
    };
    let summaries = Summaries::new(&scn, &results);
    let warns = warnings::collect(&scn, &results, &stopping);
    Ok(Run { scenario: scn, results, summaries, stopping, warnings: warns, targets, band })
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

fn csv_text(bytes: Vec<u8>) -> PyResult<String> {
    String::from_utf8(bytes).map_err(runtime_err)
}

#[pymethods]
impl Run {
    /// The CSV text of one file of the output contract: summary, paired, classes,
    /// seasons, replications, timeseries, waits, class_waits, risk (with targets),
    /// sensitivity (with the band).
    fn csv(&self, name: &str) -> PyResult<String> {
        let (s, r, m) = (&self.scenario, &self.results, &self.summaries);
        let bytes = match (name, &self.band) {
            ("summary", _) => output::csv::summary_csv(m),
            ("paired", _) => output::csv::paired_csv(m),
            ("classes", _) => output::csv::classes_csv(m),
            ("seasons", _) => output::csv::seasons_csv(m),
            ("replications", _) => output::csv::replications_csv(s, r),
            ("timeseries", _) => output::csv::timeseries_csv(s, r),
            ("waits", _) => output::csv::waits_csv(s, r),
            ("class_waits", _) => output::csv::class_waits_csv(s, r),
            ("risk", _) if !self.targets.is_empty() => {
                output::csv::risk_csv(&self.targets, &experiment::risk::policy_risks(s, r, &self.targets))
            }
            ("sensitivity", Some(band)) => sensitivity::band::csv(band),
            (other, _) => return Err(value_err(format!("no file '{other}.csv' in this run"))),
        };
        csv_text(bytes)
    }

    /// Writes the run's folder as `burstsim run --out DIR` does: run.toml and the CSVs
    /// (risk.csv with targets, sensitivity.csv with the band; stale ones removed), under
    /// the same lock and the same refusal of another run's folder unless `force`; then,
    /// unless `charts` is false, the charts and report.html/report.md. Returns warnings.
    #[pyo3(signature = (dir, force = false, charts = true, excel = false))]
    fn write(&self, py: Python<'_>, dir: PathBuf, force: bool, charts: bool, excel: bool) -> PyResult<Vec<String>> {
        use burstsim::write::{atomic_write, lock::OutputLock, occupied};
        let mut notes = Vec::new();
        let lock = OutputLock::exclusive(&dir, "run").map_err(value_err)?;
        if let Some(n) = lock.notice() {
            notes.push(n.to_string());
        }
        occupied::claim_run(&dir, self.scenario.hash(), "run", force).map_err(value_err)?;
        let encoding = Encoding::excel(excel);
        let io = |e: std::io::Error| runtime_err(e);
        output::write_run_encoded(
            &dir,
            &self.scenario,
            &self.results,
            &self.summaries,
            &self.stopping,
            &self.warnings,
            encoding,
        )
        .map_err(io)?;
        let risk = dir.join("risk.csv");
        if self.targets.is_empty() {
            let _ = std::fs::remove_file(&risk);
        } else {
            atomic_write(&risk, &encoding.encode(self.csv("risk")?.into_bytes())).map_err(io)?;
        }
        let band = dir.join("sensitivity.csv");
        match &self.band {
            None => {
                let _ = std::fs::remove_file(&band);
            }
            Some(b) => atomic_write(&band, &encoding.encode(sensitivity::band::csv(b))).map_err(io)?,
        }
        if charts {
            let (_, _, _, w) = plot_dir(py, dir.clone(), "en")?;
            notes.extend(w);
        }
        drop(lock);
        Ok(notes)
    }

    /// The terminal table of `burstsim run` (and the band's section, when computed).
    fn table(&self) -> String {
        let mut out = table::render(&self.scenario, &self.summaries, self.results.replications.len());
        if !self.targets.is_empty() {
            let risks = experiment::risk::policy_risks(&self.scenario, &self.results, &self.targets);
            out.push_str(&table::risk_table(&self.targets, &risks));
        }
        if let Some(b) = &self.band {
            out.push_str(&sensitivity::band::render(b));
        }
        out
    }

    /// The warnings the CLI prints after the run.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.iter().map(ToString::to_string).collect()
    }

    /// Replications run (fewer than asked only under sequential stopping).
    #[getter]
    fn replications_done(&self) -> usize {
        self.results.replications.len()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.scenario.seed
    }

    #[getter]
    fn scenario_name(&self) -> &str {
        &self.scenario.name
    }

    /// run.toml's text.
    fn manifest(&self) -> String {
        output::run_manifest(&self.scenario, &self.results, &self.stopping, &self.warnings)
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
    let sweep_err = |e: sweep::SweepError| match e {
        sweep::SweepError::InvalidPoint { problem, .. } => Python::attach(|py| scenario_err(py, &problem)),
        other => value_err(other),
    };
    let targets =
        targets.iter().map(|t| recommend::parse_target(t).map_err(value_err)).collect::<PyResult<Vec<_>>>()?;
    if let Some(r) = risk {
        if !(r.is_finite() && r > 0.0 && r < 1.0) {
            return Err(value_err(format!("risk={r} is not allowed; give a chance between 0 and 1, e.g. 0.1")));
        }
        if targets.is_empty() {
            return Err(value_err("risk needs at least one target, e.g. target='wait_p95_h<=2'"));
        }
    }
    let mut sw = Sweep::new(text, file, &params).map_err(sweep_err)?;
    for key in &decisions {
        sw.set_role(key, sweep::Role::Decision).map_err(sweep_err)?;
    }
    for key in &conditions {
        sw.set_role(key, sweep::Role::Condition).map_err(sweep_err)?;
    }
    for spec in &weights {
        let (key, w) = sweep::parse_weights(spec).map_err(sweep_err)?;
        sw.set_weights(&key, w).map_err(sweep_err)?;
    }
    if let Some(n) = replications {
        if n == 0 {
            return Err(value_err("replications=0 is not allowed"));
        }
        sweep::set_path(&mut sw.base, "simulation.replications", &n.to_string()).map_err(value_err)?;
    }
    if let Some(s) = seed {
        sweep::set_path(&mut sw.base, "simulation.seed", &s.to_string()).map_err(value_err)?;
    }
    let first = sw.scenario(0).map_err(sweep_err)?;
    burstsim::target::check_classes(&targets, &first.class_names()).map_err(value_err)?;
    let lock = burstsim::write::lock::OutputLock::exclusive(&dir, "sweep").map_err(value_err)?;
    let st = store::Store::open(&dir, &sw, false, force).map_err(value_err)?;
    let pool = pool(threads)?;
    let total = sw.points.len();
    // Progress in policy-replications, as the CLI counts it.
    let mut planned = std::collections::HashSet::new();
    let (mut work, mut total_work) = (vec![0u64; total], 0u64);
    let mut scenarios = Vec::with_capacity(total);
    for (p, units) in work.iter_mut().enumerate() {
        let scn = sw.scenario(p).map_err(sweep_err)?;
        if !st.is_done(p) {
            let fresh = (0..scn.policies.len()).filter(|&k| planned.insert(sweep::policy_key(&scn, k))).count();
            *units = fresh as u64;
            total_work += fresh as u64 * u64::from(scn.replications);
        }
        scenarios.push(scn);
    }
    let labels: Vec<String> = (0..total).map(|p| sw.label(p)).collect();
    let finished = watched(py, &pool, total_work, progress, |tick, stop| {
        let mut cache = std::collections::HashMap::new();
        let step = AtomicU64::new(0);
        for (p, scn) in scenarios.iter().enumerate() {
            if st.is_done(p) {
                continue;
            }
            step.store(work[p], Ordering::Relaxed);
            let ticks = || {
                for _ in 0..step.load(Ordering::Relaxed) {
                    tick();
                }
            };
            match sweep::run_point(scn, &mut cache, &ticks, stop) {
                Ok(Some(results)) => st.save(p, &labels[p], scn, &results).map_err(|e| e.to_string())?,
                Ok(None) => return Ok(false),
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(true)
    })?
    .map_err(runtime_err)?;
    if !finished {
        return Err(runtime_err("the sweep was interrupted"));
    }
    let encoding = Encoding::Utf8;
    let done = sweep::assemble::assemble(&dir, &sw, &st, &first, &targets, risk, encoding).map_err(runtime_err)?;
    // As `burstsim sweep`: the base scenario kept beside the sweep, then the charts.
    sweep::assemble::write_base(&dir, &sw.base).map_err(runtime_err)?;
    if charts {
        plot_dir(py, dir.clone(), "en")?;
    }
    drop(lock);
    let verdict = |v: &recommend::Verdict| (v.policy.clone(), v.label.clone(), v.cost.mean);
    let rec = done.recommendation.as_ref();
    Ok(SweepRun {
        dir,
        text: done.text,
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
