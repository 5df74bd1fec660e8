//! An output folder read back for charts: a run (`summary.csv`, …, `run.toml`) or a
//! sweep (`sweep.csv`, `sweep.toml`, `recommendation.txt`, `scenario.toml`).

use std::path::{Path, PathBuf};

use super::data::{self, CsvTable, Day, ManifestHeader, Paired, Recommended, Stat, WaitPoint};
use super::error::PlotError;
use crate::date::Date;
use crate::scenario::Scenario;
use crate::scenario::labels::DisplayNames;

/// A season drawn as a shaded band, in days from the start date.
#[derive(Clone, Debug, PartialEq)]
pub struct SeasonBand {
    /// Name from the scenario.
    pub name: String,
    /// Arrival-rate multiplier.
    pub multiplier: f64,
    /// First day (fractional days from the start).
    pub start_day: f64,
    /// First day after the season.
    pub end_day: f64,
    /// A season of the group itself (`[[workload.seasons]]`), not of the other groups.
    pub own: bool,
}

/// A run's output folder.
#[derive(Debug)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
    /// Scenario name (from `run.toml`, else the folder name).
    pub name: String,
    /// Policies in the scenario's order.
    pub policies: Vec<String>,
    /// `summary.csv`.
    pub summary: Vec<Stat>,
    /// `summary.csv`'s spread of single years (empty for folders written before it).
    pub years: Vec<data::YearStat>,
    /// `paired.csv`.
    pub paired: Vec<Paired>,
    /// `classes.csv` (optional; folders written before it existed have none): (class, statistic).
    pub classes: Vec<(String, Stat)>,
    /// `seasons.csv` (optional; older folders have none): (season, class, statistic).
    pub season_stats: Vec<(String, String, Stat)>,
    /// Ids of the group classes that have a deadline (None when `run.toml` cannot be
    /// loaded), for saying what "deadline miss" covers.
    pub deadline_classes: Option<Vec<String>>,
    /// `replications.csv` (optional): per replication, metric → value.
    pub replications: Option<Vec<data::ReplicationRow>>,
    /// `timeseries.csv`.
    pub days: Vec<Day>,
    /// `waits.csv`.
    pub waits: Vec<WaitPoint>,
    /// `class_waits.csv` (optional; older folders have none): (class, wait point).
    pub class_waits: Vec<(String, WaitPoint)>,
    /// Display names from `run.toml` (ids when it has none).
    pub names: DisplayNames,
    /// `run.toml`'s comment header.
    pub header: ManifestHeader,
    /// The campus model and assumptions of the scenario in `run.toml`, if it loads.
    pub model: Option<crate::scenario::assumptions::Assumptions>,
    /// `run.toml` as a TOML table (for the report's parameters), if readable.
    pub table: Option<toml::Table>,
    /// The first simulated day.
    pub start: Option<Date>,
    /// Seasons to shade.
    pub seasons: Vec<SeasonBand>,
    /// `sensitivity.csv` (optional: runs with `--no-sensitivity` and older folders have none).
    pub sensitivity: Vec<crate::sensitivity::band::Row>,
    /// Campus GPUs, if known.
    pub campus_gpus: Option<f64>,
    /// Campus maintenance windows, in days from the start.
    pub maintenance: Vec<(f64, f64)>,
    notes: Vec<String>,
}

impl RunFolder {
    /// The statistic of `policy` and `metric`.
    pub fn stat(&self, policy: &str, metric: &str) -> Option<&Stat> {
        self.summary.iter().find(|s| s.policy == policy && s.metric == metric)
    }

    /// The spread of single years of `policy` and `metric` (from `summary.csv`).
    pub fn year(&self, policy: &str, metric: &str) -> Option<&data::YearStat> {
        self.years.iter().find(|s| s.policy == policy && s.metric == metric)
    }

    /// A class statistic of a policy (from `classes.csv`).
    pub fn class_stat(&self, policy: &str, class: &str, metric: &str) -> Option<&Stat> {
        self.classes.iter().find(|(c, s)| c == class && s.policy == policy && s.metric == metric).map(|(_, s)| s)
    }

    /// A season statistic of a policy (from `seasons.csv`).
    pub fn season_stat(&self, policy: &str, season: &str, class: &str, metric: &str) -> Option<&Stat> {
        self.season_stats
            .iter()
            .find(|(s, c, x)| s == season && c == class && x.policy == policy && x.metric == metric)
            .map(|(_, _, x)| x)
    }

    /// The season rows of `seasons.csv`, in file order.
    pub fn season_names(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (s, _, _) in &self.season_stats {
            if !v.contains(s) {
                v.push(s.clone());
            }
        }
        v
    }

    /// The classes of `classes.csv`, in file order.
    pub fn class_names(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (c, _) in &self.classes {
            if !v.contains(c) {
                v.push(c.clone());
            }
        }
        v
    }

    /// Replications per policy (from `summary.csv`).
    pub fn replications_count(&self) -> u32 {
        self.summary.iter().map(|s| s.replications).max().unwrap_or(0)
    }
}

/// A sweep's output folder.
#[derive(Debug)]
pub struct SweepFolder {
    /// The folder.
    pub dir: PathBuf,
    /// Scenario name (from `scenario.toml`, else the folder name).
    pub name: String,
    /// Swept parameter keys, in order.
    pub params: Vec<String>,
    /// Policies in the scenario's order.
    pub policies: Vec<String>,
    /// Rows: (point, parameter values, statistic).
    pub rows: Vec<(usize, Vec<String>, Stat)>,
    /// `recommendation.txt`, if the sweep had targets.
    pub recommendation_text: Option<String>,
    /// The recommended point and policy, if one was chosen.
    pub recommended: Option<Recommended>,
    /// `scenario.toml` (the sweep's base scenario), if present.
    pub table: Option<toml::Table>,
    /// Per parameter (parallel with `params`): role and label from `sweep.toml`.
    pub axes: Vec<AxisMeta>,
    /// The targets of the last analysis (`sweep.toml`), for the target lines.
    pub targets: Vec<crate::target::Target>,
    /// The confidence of each bound the recommendation's rule used on means
    /// (`sweep.toml`'s `confidence_each`: 95% Bonferroni-corrected over the candidates);
    /// the line charts draw their bands at it. None: 95%.
    pub band_confidence: Option<f64>,
    /// `decisions.csv`, if the sweep had targets.
    pub decisions: Vec<DecisionRow>,
    /// Display names from `scenario.toml` (ids when it has none).
    pub names: DisplayNames,
    notes: Vec<String>,
}

/// What `sweep.toml` says about one axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AxisMeta {
    /// Decision or condition (None: an older folder).
    pub role: Option<crate::scenario::keys::Role>,
    /// The axis title given in the scenario, English.
    pub label: Option<String>,
    /// The axis title given in the scenario, Chinese.
    pub label_zh: Option<String>,
}

/// One row of `decisions.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRow {
    /// `best`, `minimax-regret`, `worst-case` or `weighted-cost`.
    pub kind: String,
    /// (condition key, value) of the scenario point.
    pub conditions: Vec<(String, String)>,
    /// The decision's label.
    pub decision: String,
    /// Its policy (empty when no decision meets the targets there).
    pub policy: String,
    /// (decision key, value); empty values where the policy does not depend on the key.
    pub values: Vec<(String, String)>,
    /// Whether it meets the targets there.
    pub meets: bool,
    /// Mean total cost and its 95% CI.
    pub cost: (f64, f64, f64),
    /// The first metric shown beside the cost (a target's): name, mean, low, high.
    pub shown: Option<(String, f64, f64, f64)>,
}

impl SweepFolder {
    /// Whether the sweep has condition axes and their analysis.
    pub fn has_decisions(&self) -> bool {
        !self.decisions.is_empty() && self.axes.iter().any(|a| a.role == Some(crate::scenario::keys::Role::Condition))
    }

    /// Whether `policy` at the point with these values is the best decision at its
    /// scenario point (`decisions.csv`).
    pub fn is_best(&self, policy: &str, values: &[String]) -> bool {
        let value_of = |key: &str| self.params.iter().position(|p| p == key).map(|i| values[i].as_str());
        self.decisions.iter().filter(|d| d.kind == "best" && d.policy == policy).any(|d| {
            d.conditions.iter().all(|(k, v)| value_of(k) == Some(v.as_str()))
                && d.values.iter().all(|(k, v)| v.is_empty() || value_of(k) == Some(v.as_str()))
        })
    }

    /// Whether `sweep.csv` has rows of this metric.
    pub fn has_metric(&self, metric: &str) -> bool {
        self.rows.iter().any(|r| r.2.metric == metric)
    }

    /// The distinct values of parameter `p`, in order of appearance.
    pub fn values(&self, p: usize) -> Vec<String> {
        data::policy_order(self.rows.iter().map(|r| r.1[p].as_str()))
    }

    /// The statistic of a metric and policy at the point whose values are `values`.
    pub fn stat(&self, values: &[String], policy: &str, metric: &str) -> Option<&Stat> {
        self.rows.iter().find(|r| r.1 == values && r.2.policy == policy && r.2.metric == metric).map(|r| &r.2)
    }

    /// Replications per point.
    pub fn replications_count(&self) -> u32 {
        self.rows.iter().map(|r| r.2.replications).max().unwrap_or(0)
    }
}

/// A run or a sweep folder.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one Folder exists per plot or report call; boxing would only add indirection"
)]
pub enum Folder {
    /// A run.
    Run(RunFolder),
    /// A sweep.
    Sweep(SweepFolder),
}

impl Folder {
    /// Whether the totals are annual: the scenario's measured window is one calendar year
    /// from its start date (horizon_days omitted, or equal to that year's 365 or 366
    /// days). Unknown (no scenario file) counts as not annual, so labels say only "CNY".
    pub fn annual(&self) -> bool {
        let table = match self {
            Folder::Run(r) => r.table.as_ref(),
            Folder::Sweep(s) => s.table.as_ref(),
        };
        let Some(sim) = table.and_then(|t| t.get("simulation")).and_then(|v| v.as_table()) else { return false };
        let Some(start) = sim.get("start_date").and_then(|v| v.as_str()).and_then(|d| Date::parse(d).ok()) else {
            return false;
        };
        let year = crate::date::days_in_year_from(start) as f64;
        match sim.get("horizon_days") {
            None => true,
            Some(v) => v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) == Some(year),
        }
    }

    /// Reads the folder: a sweep if it has `sweep.csv`, a run if it has `summary.csv`.
    ///
    /// # Errors
    /// [`PlotError`] naming the missing or malformed file.
    pub fn open(dir: &Path) -> Result<Folder, PlotError> {
        if dir.join("sweep.csv").is_file() {
            Ok(Folder::Sweep(open_sweep(dir)?))
        } else if dir.join("summary.csv").is_file() {
            Ok(Folder::Run(open_run(dir)?))
        } else {
            Err(PlotError::NotAnOutputFolder { dir: dir.display().to_string() })
        }
    }

    /// Scenario name.
    pub fn name(&self) -> &str {
        match self {
            Folder::Run(r) => &r.name,
            Folder::Sweep(s) => &s.name,
        }
    }

    /// Display names of the scenario's policies, classes and seasons.
    pub fn names(&self) -> &DisplayNames {
        match self {
            Folder::Run(r) => &r.names,
            Folder::Sweep(s) => &s.names,
        }
    }

    /// The scenario's title in `lang` ([`DisplayNames::title`]): its label, else for
    /// English its name; `None` for Chinese without a Chinese title.
    pub fn title(&self, lang: crate::i18n::Lang) -> Option<String> {
        let table = match self {
            Folder::Run(r) => r.table.as_ref(),
            Folder::Sweep(s) => s.table.as_ref(),
        };
        let description = table.and_then(|t| t.get("description")).and_then(|v| v.as_str());
        self.names().title(self.name(), description, lang)
    }

    /// Things noticed while reading (shown as warnings).
    pub fn notes(&self) -> &[String] {
        match self {
            Folder::Run(r) => &r.notes,
            Folder::Sweep(s) => &s.notes,
        }
    }

    /// Every name the charts may draw (policies, seasons, parameters), concatenated, for
    /// choosing a font that covers them.
    pub fn texts(&self, lang: crate::i18n::Lang) -> String {
        let mut t = String::from(self.name());
        t.push_str(&self.names().texts(lang));
        match self {
            Folder::Run(r) => {
                r.policies.iter().for_each(|p| t.push_str(p));
                r.seasons.iter().for_each(|s| t.push_str(&s.name));
                r.class_names().iter().for_each(|c| t.push_str(c));
            }
            Folder::Sweep(s) => {
                s.policies.iter().for_each(|p| t.push_str(p));
                s.params.iter().for_each(|p| t.push_str(p));
                s.axes.iter().flat_map(|a| [&a.label, &a.label_zh]).flatten().for_each(|l| t.push_str(l));
                s.decisions.iter().for_each(|d| t.push_str(&d.decision));
                s.rows.iter().take(10_000).for_each(|r| r.1.iter().for_each(|v| t.push_str(v)));
            }
        }
        t
    }
}

fn dir_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "burstsim".into())
}

fn open_run(dir: &Path) -> Result<RunFolder, PlotError> {
    let summary_table = CsvTable::read(&dir.join("summary.csv"), data::SUMMARY_COLUMNS)?;
    let summary = data::stats(&summary_table)?;
    let years = data::year_stats(&summary_table)?;
    if summary.is_empty() {
        return Err(PlotError::Value {
            path: dir.join("summary.csv").display().to_string(),
            line: 2,
            message: "no rows".into(),
        });
    }
    let paired = data::paired(&CsvTable::read(&dir.join("paired.csv"), data::PAIRED_COLUMNS)?)?;
    let days = data::days(&CsvTable::read(&dir.join("timeseries.csv"), data::TIMESERIES_COLUMNS)?)?;
    let waits = data::waits(&CsvTable::read(&dir.join("waits.csv"), data::WAITS_COLUMNS)?)?;
    let class_waits_path = dir.join("class_waits.csv");
    let class_waits = if class_waits_path.is_file() {
        data::class_waits(&CsvTable::read(&class_waits_path, data::CLASS_WAITS_COLUMNS)?)?
    } else {
        Vec::new()
    };
    let sensitivity_path = dir.join("sensitivity.csv");
    let sensitivity = if sensitivity_path.is_file() {
        super::tornado::read(&CsvTable::read(&sensitivity_path, super::tornado::COLUMNS)?)?
    } else {
        Vec::new()
    };
    let reps_path = dir.join("replications.csv");
    let mut notes = Vec::new();
    let replications = if reps_path.is_file() {
        Some(data::replications(&CsvTable::read(&reps_path, &["policy"])?)?)
    } else {
        notes
            .push(format!("'{}' is missing: the cost-vs-wait chart shows no single replications", reps_path.display()));
        None
    };
    let classes_path = dir.join("classes.csv");
    let classes = if classes_path.is_file() {
        data::class_stats(&CsvTable::read(&classes_path, data::CLASSES_COLUMNS)?)?
    } else {
        Vec::new()
    };
    let seasons_path = dir.join("seasons.csv");
    let season_stats = if seasons_path.is_file() {
        data::season_stats(&CsvTable::read(&seasons_path, data::SEASONS_COLUMNS)?)?
    } else {
        Vec::new()
    };
    let policies = data::policy_order(summary.iter().map(|s| s.policy.as_str()));
    let manifest = dir.join("run.toml");
    let (mut header, mut table, mut scenario) = (ManifestHeader::default(), None, None);
    match std::fs::read_to_string(&manifest) {
        Ok(text) => {
            header = data::manifest_header(&text);
            match toml::from_str::<toml::Table>(&text) {
                Ok(t) => table = Some(t),
                Err(e) => notes
                    .push(format!("'{}' is not valid TOML ({e}); the report omits its parameters", manifest.display())),
            }
            match Scenario::load(&manifest) {
                Ok(s) => scenario = Some(s),
                Err(e) => {
                    notes.push(format!("'{}' cannot be loaded ({e}); charts show no seasons", manifest.display()))
                }
            }
        }
        Err(_) => notes
            .push(format!("'{}' is missing: charts show no seasons and the report no parameters", manifest.display())),
    }
    let model = scenario.as_ref().map(crate::scenario::assumptions::Assumptions::of);
    let name = scenario.as_ref().map(|s| s.name.clone()).unwrap_or_else(|| dir_name(dir));
    let names = table.as_ref().map(DisplayNames::from_table).unwrap_or_default();
    let start =
        scenario.as_ref().map(|s| s.start_date).or_else(|| days.first().and_then(|d| Date::parse(&d.date).ok()));
    let seasons = scenario.as_ref().map(seasons_of).unwrap_or_default();
    let deadline_classes = scenario
        .as_ref()
        .map(|s| s.group.iter().filter(|c| c.deadline_hours.is_some()).map(|c| c.name.clone()).collect::<Vec<_>>());
    let campus_gpus = scenario.as_ref().map(|s| f64::from(s.campus.gpus));
    let maintenance = scenario
        .as_ref()
        .map(|s| {
            // Days from the start date (the warm-up before it is not charted).
            let day = |t: u64| (t as f64 - s.warmup as f64) / 86_400.0;
            s.campus
                .maintenance
                .iter()
                .filter(|&&(_, b)| b > s.warmup)
                .map(|&(a, b)| (day(a).max(0.0), day(b)))
                .collect()
        })
        .unwrap_or_default();
    Ok(RunFolder {
        dir: dir.to_path_buf(),
        name,
        classes,
        season_stats,
        deadline_classes,
        policies,
        summary,
        years,
        paired,
        replications,
        days,
        waits,
        class_waits,
        sensitivity,
        names,
        header,
        model,
        table,
        start,
        seasons,
        campus_gpus,
        maintenance,
        notes,
    })
}

/// The seasons of both calendars as bands in days.
fn seasons_of(s: &Scenario) -> Vec<SeasonBand> {
    let day = 86_400.0;
    let mut out = Vec::new();
    for (cal, own) in [(&s.background_calendar, false), (&s.group_calendar, true)] {
        // Days from the start date; windows in the warm-up before it are not charted.
        let warmup = s.warmup as f64;
        for w in cal.windows.iter().filter(|w| w.end > s.warmup) {
            let Some(season) = cal.seasons.get(w.season) else { continue };
            out.push(SeasonBand {
                name: season.name.clone(),
                multiplier: w.multiplier,
                start_day: ((w.start as f64 - warmup) / day).max(0.0),
                end_day: (w.end as f64 - warmup) / day,
                own,
            });
        }
    }
    out
}

fn open_sweep(dir: &Path) -> Result<SweepFolder, PlotError> {
    let path = dir.join("sweep.csv");
    let t = CsvTable::read(&path, data::SWEEP_COLUMNS)?;
    let metric_at = t.col("policy").expect("checked");
    let params: Vec<String> = t.columns()[1..metric_at].to_vec();
    let stats = data::stats(&t)?;
    let mut rows = Vec::with_capacity(stats.len());
    for (i, s) in stats.into_iter().enumerate() {
        let point = t.num(i, "point")?.max(0.0) as usize;
        let values = params.iter().map(|p| t.text(i, p).to_string()).collect();
        rows.push((point, values, s));
    }
    if rows.is_empty() {
        return Err(PlotError::Value { path: path.display().to_string(), line: 2, message: "no rows".into() });
    }
    let policies = data::policy_order(rows.iter().map(|r| r.2.policy.as_str()));
    let mut notes = Vec::new();
    let recommendation_text = std::fs::read_to_string(dir.join("recommendation.txt")).ok();
    let recommended = recommendation_text.as_deref().and_then(data::parse_recommendation);
    let scenario_path = dir.join("scenario.toml");
    let table = match std::fs::read_to_string(&scenario_path) {
        Ok(text) => match toml::from_str::<toml::Table>(&text) {
            Ok(t) => Some(t),
            Err(e) => {
                notes.push(format!("'{}' is not valid TOML ({e})", scenario_path.display()));
                None
            }
        },
        Err(_) => None,
    };
    let name = table
        .as_ref()
        .and_then(|t| t.get("name"))
        .and_then(|v| v.as_str())
        .map(String::from)
        .unwrap_or_else(|| dir_name(dir));
    let (axes, targets, band_confidence) = sweep_manifest(dir, &params, &mut notes);
    let decisions_path = dir.join("decisions.csv");
    let decisions = if decisions_path.is_file() { decision_rows(&decisions_path)? } else { Vec::new() };
    let names = table.as_ref().map(DisplayNames::from_table).unwrap_or_default();
    Ok(SweepFolder {
        dir: dir.to_path_buf(),
        name,
        params,
        policies,
        rows,
        recommendation_text,
        recommended,
        table,
        axes,
        targets,
        band_confidence,
        decisions,
        names,
        notes,
    })
}

/// The axes' roles and labels and the targets, from `sweep.toml` (defaults when absent).
fn sweep_manifest(
    dir: &Path,
    params: &[String],
    notes: &mut Vec<String>,
) -> (Vec<AxisMeta>, Vec<crate::target::Target>, Option<f64>) {
    let path = dir.join("sweep.toml");
    let table = match std::fs::read_to_string(&path).map(|t| toml::from_str::<toml::Table>(&t)) {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => {
            notes.push(format!("'{}' is not valid TOML ({e}); axes are labelled from their keys", path.display()));
            toml::Table::new()
        }
        Err(_) => toml::Table::new(),
    };
    let axes_table = table.get("axes").and_then(|v| v.as_table());
    let axes = params
        .iter()
        .map(|key| {
            let t = axes_table.and_then(|a| a.get(key)).and_then(|v| v.as_table());
            let text = |f: &str| t.and_then(|t| t.get(f)).and_then(|v| v.as_str()).map(String::from);
            AxisMeta {
                role: text("role").and_then(|r| crate::scenario::keys::Role::parse(&r)),
                label: text("label"),
                label_zh: text("label_zh"),
            }
        })
        .collect();
    let mut targets = Vec::new();
    for v in table.get("targets").and_then(|v| v.as_array()).into_iter().flatten() {
        match v.as_str().map(crate::target::parse_target) {
            Some(Ok(t)) => targets.push(t),
            _ => notes.push(format!("'{}': target {v} cannot be read; no target line for it", path.display())),
        }
    }
    let confidence = table.get("confidence_each").and_then(|v| v.as_float()).filter(|c| *c > 0.0 && *c < 1.0);
    (axes, targets, confidence)
}

fn decision_rows(path: &Path) -> Result<Vec<DecisionRow>, PlotError> {
    let t = CsvTable::read(path, &["kind", "scenario_point", "decision", "policy", "meets_targets", "total_cost_cny"])?;
    let cols = t.columns().to_vec();
    let at = |name: &str| cols.iter().position(|c| c == name).expect("checked");
    let conditions = &cols[at("scenario_point") + 1..at("decision")];
    let decisions = &cols[at("policy") + 1..at("meets_targets")];
    let cost_at = at("total_cost_cny");
    let shown = cols.get(cost_at + 3).cloned();
    let mut out = Vec::new();
    for i in 0..t.rows.len() {
        let pairs = |keys: &[String]| keys.iter().map(|k| (k.clone(), t.text(i, k).to_string())).collect::<Vec<_>>();
        let triple = |name: &str| -> Result<(f64, f64, f64), PlotError> {
            Ok((t.num(i, name)?, t.num(i, &format!("{name}_ci95_low"))?, t.num(i, &format!("{name}_ci95_high"))?))
        };
        let shown = match &shown {
            Some(name) => {
                let (m, lo, hi) = triple(name)?;
                Some((name.clone(), m, lo, hi))
            }
            None => None,
        };
        out.push(DecisionRow {
            kind: t.text(i, "kind").to_string(),
            conditions: pairs(conditions),
            decision: t.text(i, "decision").to_string(),
            policy: t.text(i, "policy").to_string(),
            values: pairs(decisions),
            meets: t.text(i, "meets_targets") == "true",
            cost: triple("total_cost_cny")?,
            shown,
        });
    }
    Ok(out)
}
