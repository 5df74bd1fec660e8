//! `run`: a scenario's replications (a fixed number, or until a sequential rule is met),
//! then the sensitivity band; the outcome writes the run's folder (run.toml, the CSVs,
//! risk.csv with targets, sensitivity.csv with the band) and renders the terminal table.
//! `burstsim run` and Python's `burstsim.run` both go through [`RunRequest`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{Error, Front, Progress, Stage};
use crate::experiment::risk::{self, PolicyRisk};
use crate::experiment::{self, Results, Sequential, Stopping, Summaries};
use crate::output::csv::Encoding;
use crate::output::{self, table, warnings};
use crate::scenario::Scenario;
use crate::sensitivity::{self, Band, band};
use crate::target::{self, Target};
use crate::write::atomic_write;

/// The file the band writes into a run's folder.
pub const BAND_FILE: &str = "sensitivity.csv";

/// Where a run's scenario comes from; it is loaded after the arguments are checked, so a
/// bad argument is named before a bad file.
pub enum Source<'a> {
    /// The scenario built into burstsim.
    Default,
    /// A scenario file.
    Path(&'a Path),
    /// A scenario the caller has loaded.
    Loaded(Box<Scenario>),
}

/// The arguments of a run, as the front end received them.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Master seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Replications instead of the scenario's.
    pub replications: Option<u32>,
    /// Targets for risk.csv and the band (`wait_p95_h<=24`).
    pub targets: Vec<String>,
    /// Sequential stopping rules (`--ci-target`), instead of the scenario's.
    pub ci_target: Vec<String>,
    /// Compute the sensitivity band (when the scenario does not turn it off).
    pub sensitivity: bool,
    /// The band's replications per level, instead of the scenario's.
    pub sensitivity_replications: Option<u32>,
    /// Worker threads (default: one per core); results do not depend on it.
    pub threads: Option<usize>,
    /// How the other groups' campus is simulated, instead of the scenario's
    /// (`simulation.campus_model`).
    pub campus_model: Option<crate::scenario::raw::CampusModel>,
}

/// A checked run: the scenario with its overrides, the targets and the stopping rule.
pub struct RunRequest {
    scenario: Scenario,
    targets: Vec<Target>,
    rule: Option<Sequential>,
    sensitivity: bool,
    sensitivity_replications: Option<u32>,
    pool: rayon::ThreadPool,
}

impl RunRequest {
    /// Checks the arguments, then loads the scenario and checks the targets against its
    /// classes.
    ///
    /// # Errors
    /// A bad argument ([`Error::Usage`], naming it as `front` spells it) or scenario.
    pub fn new(source: Source<'_>, o: &RunOptions, front: Front) -> Result<RunRequest, Error> {
        let cli_rule = if o.ci_target.is_empty() {
            None
        } else {
            Some(experiment::sequential::parse_ci_targets(&o.ci_target).map_err(Error::Usage)?)
        };
        if o.replications == Some(0) {
            return Err(Error::Usage(format!(
                "{} is not allowed; run at least 1 (20 or more for useful intervals)",
                front.arg("replications", 0)
            )));
        }
        if let Some(n) = o.replications {
            front.check_replications("replications", n)?;
        }
        if o.sensitivity_replications == Some(0) {
            return Err(Error::Usage(format!(
                "{} is not allowed; give at least 1 (or {})",
                front.arg("sensitivity_replications", 0),
                if front == Front::Cli { "--no-sensitivity" } else { "sensitivity=False" }
            )));
        }
        let targets =
            o.targets.iter().map(|t| target::parse_target(t).map_err(Error::Usage)).collect::<Result<Vec<_>, _>>()?;
        let scenario = match source {
            Source::Default => Scenario::embedded_default(),
            Source::Path(p) => Scenario::load(p)?,
            Source::Loaded(s) => *s,
        }
        .with_overrides(o.seed, o.replications)
        .with_campus_model(o.campus_model);
        target::check_classes(&targets, &scenario.class_names()).map_err(Error::Usage)?;
        // The scenario's stopping rule, unless the caller fixed the replications: `-n 5`
        // runs exactly 5 years.
        let own_rule = if o.replications.is_some() {
            None
        } else {
            scenario
                .ci_target_paired
                .map(Sequential::paired_default)
                .or_else(|| scenario.ci_target.map(Sequential::relative_default))
        };
        let decision_targets = crate::sensitivity::targets(&scenario, &targets).0;
        let rule = cli_rule.or(own_rule).map(|r| r.with_decision(&decision_targets));
        let pool = super::pool(o.threads, front)?;
        Ok(RunRequest {
            scenario,
            targets,
            rule,
            sensitivity: o.sensitivity,
            sensitivity_replications: o.sensitivity_replications,
            pool,
        })
    }

    /// The scenario with the request's seed and replications.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The run's folder when the caller names none: `output/<scenario name>`.
    pub fn default_dir(&self) -> PathBuf {
        Path::new("output").join(&self.scenario.name)
    }

    /// Runs the replications, then the band (unless the run was cut short, `stop` says
    /// so, or the band is off). `None` when stopped before any replication finished.
    ///
    /// # Errors
    /// A replication that ran away, or a band level that makes the scenario invalid.
    pub fn run(&self, progress: &dyn Progress, stop: &(dyn Fn() -> bool + Sync)) -> Result<Option<RunOutcome>, Error> {
        let scenario = &self.scenario;
        progress.start(match &self.rule {
            None => {
                Stage::Counted { total: u64::from(scenario.replications), what: "replications", seconds_left: None }
            }
            Some(_) => Stage::Sequential { max: u64::from(scenario.max_replications) },
        });
        let started = Instant::now();
        let (results, stopping) =
            self.pool.install(|| experiment::run_until(scenario, self.rule.as_ref(), &|| progress.advance(1), stop))?;
        progress.finish();
        let elapsed = started.elapsed().as_secs_f64();
        let cut_short = matches!(stopping, Stopping::Interrupted { .. });
        if cut_short && results.replications.is_empty() {
            return Ok(None);
        }
        let summaries = Summaries::new(scenario, &results);
        let warns = warnings::collect(scenario, &results, &stopping);
        let risks = risk::policy_risks(scenario, &results, &self.targets);
        let stop_band = || cut_short || stop();
        let band = self.pool.install(|| self.band(&results, progress, &stop_band))?;
        Ok(Some(RunOutcome {
            scenario: scenario.clone(),
            results,
            summaries,
            stopping,
            warnings: warns,
            targets: self.targets.clone(),
            risks,
            band,
            elapsed,
            threads: self.pool.current_num_threads(),
        }))
    }

    /// The sensitivity band of a finished run, unless it is turned off (`sensitivity`
    /// false, `[sensitivity] enabled = false`) or `stop` says so. `None` when no band was
    /// computed.
    fn band(
        &self,
        results: &Results,
        progress: &dyn Progress,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<Band>, Error> {
        let scenario = &self.scenario;
        let (enabled, own) = sensitivity::settings(scenario);
        if !self.sensitivity || !enabled || stop() {
            return Ok(None);
        }
        let inputs = crate::scenario::sensitivity::inputs(scenario);
        let n = sensitivity::replications_per_level(self.sensitivity_replications, own, results.replications.len());
        let total = sensitivity::extra_replications(inputs.len(), n as usize);
        progress.start(Stage::Counted { total, what: "sensitivity band", seconds_left: None });
        let started = Instant::now();
        let band = sensitivity::run(
            scenario,
            results,
            &inputs,
            sensitivity::targets(scenario, &self.targets),
            n,
            &|| progress.advance(1),
            stop,
        )?;
        progress.finish();
        let Some(band) = band else {
            progress.note(&format!("interrupted: the sensitivity band was not finished; {BAND_FILE} not written"));
            return Ok(None);
        };
        progress.note(&format!(
            "sensitivity band: {} input(s) × 2 levels × {n} replications in {:.1} s",
            inputs.len(),
            started.elapsed().as_secs_f64()
        ));
        Ok(Some(band))
    }
}

/// A finished run: the results and what is computed from them.
pub struct RunOutcome {
    /// The scenario run (with the request's overrides).
    pub scenario: Scenario,
    /// Every replication's measurements.
    pub results: Results,
    /// Means, intervals and paired differences.
    pub summaries: Summaries,
    /// Why the replications stopped.
    pub stopping: Stopping,
    /// What the reader must know about these numbers.
    pub warnings: Vec<warnings::Warning>,
    /// The targets asked for.
    pub targets: Vec<Target>,
    /// Per policy, the simulated years that missed the targets.
    pub risks: Vec<PolicyRisk>,
    /// The sensitivity band, when computed.
    pub band: Option<Band>,
    /// Seconds the replications took (the band not included).
    pub elapsed: f64,
    /// Worker threads used.
    pub threads: usize,
}

impl RunOutcome {
    /// Whether a stop ended the replications early.
    pub fn cut_short(&self) -> bool {
        matches!(self.stopping, Stopping::Interrupted { .. })
    }

    /// Writes the run's files into `dir` (taken by the caller: [`RunOutcome::write_folder`]
    /// takes it): run.toml and the CSVs, risk.csv with targets and sensitivity.csv with the
    /// band; an earlier run's risk.csv or sensitivity.csv that this run does not replace is
    /// removed, so no stale file is left beside new results.
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn write(&self, dir: &Path, encoding: Encoding) -> std::io::Result<()> {
        output::write_run_encoded(
            dir,
            &self.scenario,
            &self.results,
            &self.summaries,
            &self.stopping,
            &self.warnings,
            encoding,
        )?;
        let risk = dir.join("risk.csv");
        if self.targets.is_empty() {
            let _ = std::fs::remove_file(&risk); // an earlier run's, now stale
        } else {
            atomic_write(&risk, &encoding.encode(output::csv::risk_csv(&self.targets, &self.risks)))?;
        }
        let band_path = dir.join(BAND_FILE);
        match &self.band {
            None => {
                let _ = std::fs::remove_file(&band_path); // an earlier run's band, now stale
            }
            Some(b) => atomic_write(&band_path, &encoding.encode(band::csv(b)))?,
        }
        Ok(())
    }

    /// Writes the whole folder as `burstsim run --out DIR` does, for a caller that ran
    /// without taking it first: under the folder's lock and the same refusal of another
    /// run's folder unless `force`, the files of [`RunOutcome::write`], then, with
    /// `charts`, the charts and report.html/report.md. Returns the notices and warnings
    /// to show (a lock taken over from a process that died, the charts' warnings).
    ///
    /// # Errors
    /// The folder is another process's or another run's, a file cannot be written, or
    /// the charts fail.
    pub fn write_folder(
        &self,
        dir: &Path,
        force: bool,
        charts: bool,
        encoding: Encoding,
    ) -> Result<Vec<String>, Error> {
        use crate::write::{lock::OutputLock, occupied};
        let mut notes = Vec::new();
        let lock = OutputLock::exclusive(dir, "run")?;
        if let Some(n) = lock.notice() {
            notes.push(n.to_string());
        }
        occupied::claim_run(dir, self.scenario.hash(), "run", force)?;
        self.write(dir, encoding)?;
        if charts {
            let out = crate::report::plot_dir(dir, &crate::plot::PlotOptions::default())?;
            notes.extend(out.warnings);
        }
        drop(lock);
        Ok(notes)
    }

    /// The CSV bytes of one file of the output contract: summary, paired, classes,
    /// seasons, replications, timeseries, waits, class_waits, risk (with targets),
    /// sensitivity (with the band). `None` for a file this run has not.
    pub fn csv(&self, name: &str) -> Option<Vec<u8>> {
        let (s, r, m) = (&self.scenario, &self.results, &self.summaries);
        Some(match (name, &self.band) {
            ("summary", _) => output::csv::summary_csv(m),
            ("paired", _) => output::csv::paired_csv(m),
            ("classes", _) => output::csv::classes_csv(m),
            ("seasons", _) => output::csv::seasons_csv(m),
            ("replications", _) => output::csv::replications_csv(s, r),
            ("timeseries", _) => output::csv::timeseries_csv(s, r),
            ("waits", _) => output::csv::waits_csv(s, r),
            ("class_waits", _) => output::csv::class_waits_csv(s, r),
            ("risk", _) if !self.targets.is_empty() => output::csv::risk_csv(&self.targets, &self.risks),
            ("sensitivity", Some(b)) => band::csv(b),
            _ => return None,
        })
    }

    /// run.toml's text.
    pub fn manifest(&self) -> String {
        output::run_manifest(&self.scenario, &self.results, &self.stopping, &self.warnings)
    }

    /// The terminal's tables: the summary, the targets' risks, with `by_class` the
    /// per-class table, and the band's section.
    pub fn table(&self, by_class: bool) -> String {
        let mut out = table::render(&self.scenario, &self.summaries, self.results.replications.len());
        if !self.targets.is_empty() {
            out.push_str(&table::risk_table(&self.targets, &self.risks));
        }
        if by_class {
            out.push('\n');
            out.push_str(&table::render_by_class(&self.scenario, &self.summaries));
        }
        if let Some(b) = &self.band {
            out.push_str(&band::render(b));
        }
        out
    }

    /// The decision, first on the terminal (10–20 lines): the recommended policy for the
    /// targets, its cost and paired difference against the baseline with their 95% CIs,
    /// the main jobs' waits, how sure, and whether the band changes it
    /// ([`super::decision`]); in `lang`.
    pub fn decision(&self, lang: crate::i18n::Lang) -> String {
        super::decision::render(
            &super::decision::DecisionInput {
                scenario: &self.scenario,
                results: &self.results,
                summaries: &self.summaries,
                targets: &self.targets,
                band: self.band.as_ref(),
                stopping: &self.stopping,
            },
            lang,
        )
    }

    /// The per-class table alone (`run --by-class` without `--verbose`).
    pub fn class_table(&self) -> String {
        table::render_by_class(&self.scenario, &self.summaries)
    }

    /// The line naming the files written into `dir` (after the tables).
    pub fn files(&self, dir: &Path) -> String {
        format!(
            "\nFiles: {}/{{summary,paired,classes,seasons,replications,timeseries,waits{}{}}}.csv and run.toml\n",
            dir.display(),
            if self.targets.is_empty() { "" } else { ",risk" },
            if self.band.is_some() { ",sensitivity" } else { "" }
        )
    }

    /// How much ran, how fast: replications × policies, seconds, rate and threads.
    pub fn timing(&self) -> String {
        let n = self.results.replications.len();
        format!(
            "{} replications × {} policies in {:.1} s ({} replications/s, {} threads)",
            n,
            self.scenario.policies.len(),
            self.elapsed,
            super::significant(n as f64 / self.elapsed.max(1e-9)),
            self.threads
        )
    }

    /// When a stop cut the run short: what was written to `dir` and how to finish.
    pub fn interrupted(&self, dir: &Path) -> Option<String> {
        let Stopping::Interrupted { sequential, .. } = self.stopping else { return None };
        let again = if sequential {
            "run the same command again to let sequential stopping finish"
        } else {
            "run the same command again for all of them"
        };
        Some(format!(
            "interrupted: wrote the {} finished replications to {}; {again}",
            self.results.replications.len(),
            dir.display()
        ))
    }
}
