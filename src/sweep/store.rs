//! Durable sweep results: one folder per finished point, written atomically, so an
//! interrupted sweep loses at most the point in progress and `--resume` continues where it
//! stopped. The final files are always assembled from the point folders, which is what
//! makes a resumed sweep byte-identical to an uninterrupted one.
//!
//! ```text
//! OUT/sweep.toml            the sweep: scenario hash, parameters, points (written first)
//! OUT/points/0003/          one finished point: summary.csv, paired.csv, replications.csv
//!                           (per-year values, for the risk rule), point.toml (last)
//! OUT/sweep.csv             all points (written atomically at the end)
//! ```

use std::path::{Path, PathBuf};

use super::Sweep;
use super::recommend::YearCosts;
use crate::experiment::risk::{MissCount, PolicyRisk};
use crate::experiment::summary::YearSpread;
use crate::experiment::{ClassRow, PairedRow, Results, Summaries, SummaryRow};
use crate::metric::Metric;
use crate::output::csv as out_csv;
use crate::scenario::Scenario;
use crate::stats::Summary;
use crate::target::Target;
use crate::write::{CsvBytes, atomic_write};

/// Why the output folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// I/O.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The folder holds a different sweep.
    #[error(
        "'{dir}' holds results of a different sweep (scenario or parameters changed: hash {found} there, {expected} now); \
         resume only an unchanged sweep, write to a new --out folder, or add --force (without --resume) to replace it"
    )]
    Stale {
        /// Folder.
        dir: String,
        /// Hash on disk.
        found: String,
        /// Hash of this sweep.
        expected: String,
    },
    /// A point file is damaged.
    #[error("'{0}' is damaged: {1}; delete that point folder and resume")]
    Damaged(String, String),
    /// The folder holds other results (another sweep without `--force`, or a run).
    #[error(transparent)]
    Occupied(#[from] crate::write::occupied::Occupied),
}

/// An I/O error that names the path it happened on ("could not create 'out/points': …").
fn at(path: &Path, doing: &str, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("could not {doing} '{}': {e}", path.display()))
}

/// `sweep.toml`: the hash, the parameters, each axis's role (and label, scale keys and
/// weights when given), and the targets of the last analysis.
fn manifest(sweep: &Sweep, hash: &str, analysis: Option<(&[Target], Option<f64>, Option<f64>)>) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut text = format!("# burstsim sweep manifest\nhash = \"{hash}\"\npoints = {}\n", sweep.points.len());
    if let Some((targets, risk, confidence)) = analysis {
        let specs: Vec<String> = targets.iter().map(|t| q(&t.spec())).collect();
        text.push_str(&format!("targets = [{}]\n", specs.join(", ")));
        if let Some(r) = risk {
            text.push_str(&format!("risk = {r}\n"));
        }
        if let Some(c) = confidence {
            text.push_str(&format!("confidence_each = {c}\n"));
        }
    }
    text.push_str("\n[params]\n");
    for p in &sweep.params {
        text.push_str(&format!("{} = {:?}\n", q(&p.key), p.values));
    }
    for p in &sweep.params {
        text.push_str(&format!("\n[axes.{}]\nrole = \"{}\"\n", q(&p.key), p.role.name()));
        if !p.scale.is_empty() {
            let keys: Vec<String> = p.scale.iter().map(|k| q(k)).collect();
            text.push_str(&format!("scale = [{}]\n", keys.join(", ")));
        }
        if let Some(w) = &p.weights {
            let w: Vec<String> = w.iter().map(|x| format!("{x:?}")).collect();
            text.push_str(&format!("weights = [{}]\n", w.join(", ")));
        }
        if let Some((en, zh)) = &p.label {
            text.push_str(&format!("label = {}\n", q(en)));
            if let Some(zh) = zh {
                text.push_str(&format!("label_zh = {}\n", q(zh)));
            }
        }
    }
    text
}

/// A stable hash of everything that decides a sweep's numbers.
pub fn sweep_hash(sweep: &Sweep) -> String {
    let mut text = toml::to_string(&sweep.base).expect("a TOML table serialises");
    for p in &sweep.params {
        text.push_str(&format!("\n{}={}", p.key, p.values.join(",")));
        // A scale axis's keys decide its numbers; roles, weights and labels do not.
        if !p.scale.is_empty() {
            text.push_str(&format!(" scaling {}", p.scale.join(",")));
        }
    }
    text.push_str(&format!("\nburstsim {}", env!("CARGO_PKG_VERSION")));
    format!(
        "{:016x}",
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    )
}

/// The output folder of a sweep.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    hash: String,
}

impl Store {
    /// Opens (or starts) the folder, following [`crate::write::occupied`]: a new folder
    /// is started; a folder holding this very sweep keeps its finished points (they are
    /// the same numbers), with or without `resume`; a folder holding a different sweep
    /// is refused unless `force`, which removes its points and final files first.
    ///
    /// # Errors
    /// [`StoreError::Stale`] when resuming into a different sweep;
    /// [`StoreError::Occupied`] for a different sweep without `force`, or a folder of
    /// another kind; I/O errors.
    pub fn open(dir: &Path, sweep: &Sweep, resume: bool, force: bool) -> Result<Store, StoreError> {
        use crate::write::occupied::{self, Claim, Holds, Occupied};
        let hash = sweep_hash(sweep);
        let meta = dir.join("sweep.toml");
        match occupied::claim_sweep(dir, &hash, force) {
            Err(Occupied::Other { .. }) if resume => {
                let found = match Holds::inspect(dir) {
                    Holds::Sweep { hash: Some(h) } => h,
                    _ => "(none)".to_string(),
                };
                return Err(StoreError::Stale { dir: dir.display().to_string(), found, expected: hash });
            }
            Err(e) => return Err(e.into()),
            Ok(Claim::Forced) => {
                let points = dir.join("points");
                if points.exists() {
                    std::fs::remove_dir_all(&points).map_err(|e| at(&points, "remove", e))?;
                }
                for f in ["sweep.csv", "recommendation.txt", "risk.csv", "decisions.csv"] {
                    let _ = std::fs::remove_file(dir.join(f));
                }
            }
            Ok(Claim::Fresh | Claim::Same) => {}
        }
        std::fs::create_dir_all(dir.join("points")).map_err(|e| at(&dir.join("points"), "create", e))?;
        atomic_write(&meta, manifest(sweep, &hash, None).as_bytes())?;
        Ok(Store { dir: dir.to_path_buf(), hash })
    }

    /// Rewrites `sweep.toml` with the targets and rule the results were judged by, and
    /// the confidence of each bound the mean-year rule used (Bonferroni over its
    /// candidates): the charts draw the target lines and the bands from it.
    ///
    /// # Errors
    /// I/O errors.
    pub fn record_analysis(
        &self,
        sweep: &Sweep,
        targets: &[Target],
        risk: Option<f64>,
        confidence_each: Option<f64>,
    ) -> Result<(), StoreError> {
        let text = manifest(sweep, &self.hash, Some((targets, risk, confidence_each)));
        atomic_write(&self.dir.join("sweep.toml"), text.as_bytes())?;
        Ok(())
    }

    fn point_dir(&self, point: usize) -> PathBuf {
        self.dir.join("points").join(format!("{point:04}"))
    }

    /// Whether a point finished (its `point.toml`, written last, exists with this hash).
    pub fn is_done(&self, point: usize) -> bool {
        std::fs::read_to_string(self.point_dir(point).join("point.toml")).is_ok_and(|t| t.contains(&self.hash))
    }

    /// Saves a finished point: its summaries, and its per-year values (the risk rule
    /// counts the years that miss whatever targets are given later, even on `--resume`).
    ///
    /// # Errors
    /// I/O errors.
    pub fn save(&self, point: usize, label: &str, scenario: &Scenario, results: &Results) -> Result<(), StoreError> {
        let d = self.point_dir(point);
        std::fs::create_dir_all(&d).map_err(|e| at(&d, "create", e))?;
        let summaries = Summaries::new(scenario, results);
        atomic_write(&d.join("summary.csv"), &out_csv::summary_csv(&summaries))?;
        atomic_write(&d.join("paired.csv"), &out_csv::paired_csv(&summaries))?;
        atomic_write(&d.join("replications.csv"), &out_csv::replications_csv(scenario, results))?;
        atomic_write(&d.join("classes.csv"), &out_csv::classes_csv(&summaries))?;
        atomic_write(&d.join("class_replications.csv"), &out_csv::class_replications_csv(scenario, results))?;
        let marker =
            format!("hash = \"{}\"\npoint = {point}\nvalues = {}\n", self.hash, toml::Value::String(label.to_string()));
        atomic_write(&d.join("point.toml"), marker.as_bytes())?;
        Ok(())
    }

    /// Reads a finished point back: its summaries (for recommendations) and the exact
    /// rows of its `summary.csv` (copied verbatim into `sweep.csv`).
    ///
    /// # Errors
    /// [`StoreError::Damaged`] for unreadable files.
    pub fn load(&self, point: usize) -> Result<(Summaries, Vec<csv::StringRecord>), StoreError> {
        let d = self.point_dir(point);
        let raw = read_rows(&d.join("summary.csv"), |r| Ok(r.clone()))?;
        let rows = read_rows(&d.join("summary.csv"), |r| {
            Ok(SummaryRow {
                policy: r[0].to_string(),
                metric: metric(&r[1])?,
                summary: summary(&r[3], &r[4], &r[5], &r[6], &r[7])?,
                unstable_replications: r[8].parse().map_err(|_| "unstable_replications".to_string())?,
                // A sweep decides on means and counted years, never on this spread.
                years: YearSpread::UNKNOWN,
            })
        })?;
        let paired = read_rows(&d.join("paired.csv"), |r| {
            Ok(PairedRow {
                policy: r[0].to_string(),
                baseline: r[1].to_string(),
                metric: metric(&r[2])?,
                summary: summary(&r[4], &r[5], &r[6], &r[7], &r[8])?,
            })
        })?;
        // Points saved before per-class results existed have no classes.csv.
        let classes_path = d.join("classes.csv");
        let classes = if classes_path.exists() {
            read_rows(&classes_path, |r| {
                Ok(ClassRow {
                    policy: r[0].to_string(),
                    class: r[1].to_string(),
                    metric: r[2].to_string(),
                    unit: r[3].to_string(),
                    summary: summary(&r[4], &r[5], &r[6], &r[7], &r[8])?,
                })
            })?
        } else {
            Vec::new()
        };
        // Sweep points keep no seasons (a point's seasons are a `run` of its scenario away).
        Ok((Summaries { rows, paired, classes, seasons: Vec::new() }, raw))
    }
}

impl Store {
    /// Per policy, the years of a finished point that missed `targets`, read from its
    /// `replications.csv` (matched by column name). `None` when the point has no such
    /// file (a folder written before burstsim stored per-year values).
    ///
    /// # Errors
    /// [`StoreError::Damaged`] for an unreadable file or a missing column.
    pub fn load_risk(&self, point: usize, targets: &[Target]) -> Result<Option<Vec<PolicyRisk>>, StoreError> {
        let path = self.point_dir(point).join("replications.csv");
        let class_path = self.point_dir(point).join("class_replications.csv");
        if !path.exists() || (targets.iter().any(|t| t.class.is_some()) && !class_path.exists()) {
            return Ok(None);
        }
        // Per policy (in file order), per target, the values of each year.
        let mut by_policy: Vec<(String, Vec<Vec<f64>>)> = Vec::new();
        let headline: Vec<usize> = (0..targets.len()).filter(|&k| targets[k].class.is_none()).collect();
        let names: Vec<String> = headline.iter().map(|&k| targets[k].metric.name().to_string()).collect();
        read_years(&path, None, &names, |policy, _, values| {
            if by_policy.last().is_none_or(|(p, _)| p != policy) {
                by_policy.push((policy.to_string(), vec![Vec::new(); targets.len()]));
            }
            let cols = &mut by_policy.last_mut().expect("pushed").1;
            for (&k, v) in headline.iter().zip(values) {
                cols[k].push(v);
            }
        })?;
        for (k, t) in targets.iter().enumerate() {
            let Some(class) = &t.class else { continue };
            let mut found = vec![false; by_policy.len()];
            read_years(&class_path, Some(class), &[t.metric.name().to_string()], |policy, _, values| {
                if let Some(i) = by_policy.iter().position(|(p, _)| p == policy) {
                    found[i] = true;
                    by_policy[i].1[k].push(values[0]);
                }
            })?;
            // A class the scenario does not have: undefined in every year.
            for (i, (_, cols)) in by_policy.iter_mut().enumerate() {
                if !found[i] {
                    let years = cols.iter().map(Vec::len).max().unwrap_or(0);
                    cols[k] = vec![f64::NAN; years];
                }
            }
        }
        Ok(Some(
            by_policy
                .into_iter()
                .map(|(policy, values)| PolicyRisk {
                    policy,
                    count: MissCount::count(targets, |t| {
                        values[targets.iter().position(|x| x == t).expect("a target")].clone()
                    }),
                })
                .collect(),
        ))
    }
}

impl Store {
    /// Per policy, the total cost of each simulated year of a finished point (from its
    /// `replications.csv`), for regrets paired over the years. `None` when the point has
    /// no such file (a folder written by an older burstsim): regrets are then unpaired.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] for an unreadable file, a missing column or a bad number.
    pub fn load_costs(&self, point: usize) -> Result<Option<Vec<YearCosts>>, StoreError> {
        let path = self.point_dir(point).join("replications.csv");
        if !path.exists() {
            return Ok(None);
        }
        let mut out: Vec<YearCosts> = Vec::new();
        let mut bad = None;
        read_years(&path, None, &[Metric::TotalCost.name().to_string()], |policy, rep, values| {
            let Ok(rep) = rep.parse::<u64>() else {
                bad = Some(format!("replication '{rep}' is not a count"));
                return;
            };
            if out.last().is_none_or(|c| c.policy != policy) {
                out.push(YearCosts { policy: policy.to_string(), years: Vec::new() });
            }
            out.last_mut().expect("pushed").years.push((rep, values[0]));
        })?;
        match bad {
            Some(e) => Err(StoreError::Damaged(path.display().to_string(), e)),
            None => Ok(Some(out)),
        }
    }
}

/// Reads per-year rows of `replications.csv` (or, with `class`, the rows of that class in
/// `class_replications.csv`), calling `row(policy, replication, values of columns)`.
fn read_years(
    path: &Path,
    class: Option<&str>,
    columns: &[String],
    mut row: impl FnMut(&str, &str, Vec<f64>),
) -> Result<(), StoreError> {
    let damaged = |e: String| StoreError::Damaged(path.display().to_string(), e);
    let mut rdr = csv::Reader::from_path(path).map_err(|e| damaged(e.to_string()))?;
    let header = rdr.headers().map_err(|e| damaged(e.to_string()))?.clone();
    let column =
        |name: &str| header.iter().position(|h| h == name).ok_or_else(|| damaged(format!("no column '{name}'")));
    let policy_col = column("policy")?;
    let rep_col = column("replication")?;
    let class_col = if class.is_some() { Some(column("class")?) } else { None };
    let cols: Vec<usize> = columns.iter().map(|c| column(c)).collect::<Result<_, _>>()?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| damaged(e.to_string()))?;
        if let (Some(c), Some(want)) = (class_col, class)
            && &rec[c] != want
        {
            continue;
        }
        let values = cols.iter().map(|&c| float(&rec[c])).collect::<Result<Vec<f64>, String>>().map_err(&damaged)?;
        row(&rec[policy_col], &rec[rep_col], values);
    }
    Ok(())
}

/// `risk.csv` of a sweep: per point and policy, the years that missed the targets, the
/// exact 95% interval of the chance of a miss, and the Bonferroni-corrected upper bound
/// the risk rule uses. `correction[i]` is point `i`'s scenario point and its K candidates:
/// the bound is corrected over the candidates at that scenario point, the same set as
/// `decisions.csv` (docs/STATISTICS.md §2), and the last columns say so.
pub fn risk_csv(
    sweep: &Sweep,
    targets: &[Target],
    risks: &[Vec<PolicyRisk>],
    correction: &[(String, usize, f64)],
) -> Vec<u8> {
    let mut header = vec!["point".to_string()];
    header.extend(sweep.params.iter().map(|p| p.key.clone()));
    header.extend(out_csv::RISK_COLUMNS.iter().map(|c| c.to_string()));
    header.extend(
        ["upper_bound", "upper_bound_confidence", "scenario_point", "candidates", "corrected_over"].map(String::from),
    );
    let mut w = CsvBytes::new(&header);
    for (i, point) in risks.iter().enumerate() {
        let (label, k, confidence) = &correction[i];
        for r in point {
            let mut row = vec![i.to_string()];
            row.extend(sweep.points[i].iter().cloned());
            row.extend(out_csv::risk_fields(targets, r));
            row.extend([
                crate::write::num(r.count.upper(*confidence)),
                crate::write::num(*confidence),
                label.clone(),
                k.to_string(),
                format!("the {k} candidates at {label}"),
            ]);
            w.row(&row);
        }
    }
    w.finish()
}

fn metric(name: &str) -> Result<Metric, String> {
    Metric::from_name(name).ok_or_else(|| format!("unknown metric '{name}'"))
}

fn float(s: &str) -> Result<f64, String> {
    if s.is_empty() { Ok(f64::NAN) } else { s.parse().map_err(|_| format!("'{s}' is not a number")) }
}

fn summary(mean: &str, low: &str, high: &str, sd: &str, n: &str) -> Result<Summary, String> {
    let (mean, low, high) = (float(mean)?, float(low)?, float(high)?);
    Ok(Summary {
        n: n.parse().map_err(|_| format!("'{n}' is not a count"))?,
        mean,
        std_dev: float(sd)?,
        half_width: (high - low) / 2.0,
    })
}

fn read_rows<T>(path: &Path, parse: impl Fn(&csv::StringRecord) -> Result<T, String>) -> Result<Vec<T>, StoreError> {
    let damaged = |e: String| StoreError::Damaged(path.display().to_string(), e);
    let mut rdr = csv::Reader::from_path(path).map_err(|e| damaged(e.to_string()))?;
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| damaged(e.to_string()))?;
        out.push(parse(&rec).map_err(damaged)?);
    }
    Ok(out)
}

/// `sweep.csv`: point × policy × metric, with one column per swept parameter; the
/// statistics are the points' `summary.csv` fields, verbatim.
pub fn sweep_csv(sweep: &Sweep, points: &[Vec<csv::StringRecord>]) -> Vec<u8> {
    let mut header = vec!["point".to_string()];
    header.extend(sweep.params.iter().map(|p| p.key.clone()));
    header.extend(
        [
            "policy",
            "metric",
            "unit",
            "mean",
            "ci95_low",
            "ci95_high",
            "replications",
            "std_dev",
            "unstable_replications",
        ]
        .map(String::from),
    );
    let mut w = CsvBytes::new(&header);
    // summary.csv: policy,metric,unit,mean,ci95_low,ci95_high,std_dev,replications,unstable_replications
    for (i, rows) in points.iter().enumerate() {
        for r in rows {
            let mut row = vec![i.to_string()];
            row.extend(sweep.points[i].iter().cloned());
            row.extend([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[7], &r[6], &r[8]].map(String::from));
            w.row(&row);
        }
    }
    w.finish()
}
