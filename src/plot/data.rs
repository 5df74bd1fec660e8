//! Reading an output folder back: the CSV files of a run or a sweep, by column name (so
//! columns added later do not break old charts), with errors that name the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::PlotError;

/// One row of `summary.csv` (or of `sweep.csv` without its point columns).
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    /// Policy name.
    pub policy: String,
    /// Metric name (`total_cost_cny`, …).
    pub metric: String,
    /// Mean over replications (NaN when undefined).
    pub mean: f64,
    /// Lower end of the 95% CI.
    pub low: f64,
    /// Upper end of the 95% CI.
    pub high: f64,
    /// Replications.
    pub replications: u32,
}

impl Stat {
    /// Half the width of the 95% CI (NaN when unknown).
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// One row of `paired.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// Policy.
    pub policy: String,
    /// The policy it is compared with.
    pub baseline: String,
    /// Metric name.
    pub metric: String,
    /// Mean of policy − baseline.
    pub mean: f64,
    /// Lower end of its 95% CI.
    pub low: f64,
    /// Upper end of its 95% CI.
    pub high: f64,
}

/// One row of `timeseries.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Day {
    /// Policy.
    pub policy: String,
    /// Day from the start (0-based).
    pub day: u32,
    /// The date, `YYYY-MM-DD`.
    pub date: String,
    /// GPUs requested by jobs waiting on campus.
    pub queue: f64,
    /// Busy campus GPUs (all groups).
    pub busy: f64,
    /// Busy cloud GPUs (the group's).
    pub cloud: f64,
}

/// One row of `waits.csv`: the share of jobs that waited at most `wait_h`.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitPoint {
    /// Policy.
    pub policy: String,
    /// Wait, hours.
    pub wait_h: f64,
    /// Cumulative share in [0, 1].
    pub share: f64,
}

/// A CSV file read into rows of strings, with column lookup by name.
#[derive(Debug)]
pub struct CsvTable {
    path: PathBuf,
    columns: Vec<String>,
    /// The data rows.
    pub rows: Vec<csv::StringRecord>,
}

impl CsvTable {
    /// Reads `path`, checking that every column of `required` is present.
    ///
    /// # Errors
    /// [`PlotError::Missing`], [`PlotError::Columns`] or [`PlotError::Value`] (malformed CSV).
    pub fn read(path: &Path, required: &[&str]) -> Result<CsvTable, PlotError> {
        let shown = path.display().to_string();
        if !path.is_file() {
            return Err(PlotError::Missing { path: shown });
        }
        let bad = |line: u64, message: String| PlotError::Value { path: shown.clone(), line, message };
        let mut rdr = csv::Reader::from_path(path).map_err(|e| bad(0, e.to_string()))?;
        let columns: Vec<String> = rdr.headers().map_err(|e| bad(1, e.to_string()))?.iter().map(String::from).collect();
        let missing: Vec<String> =
            required.iter().filter(|c| !columns.iter().any(|h| h == *c)).map(|c| c.to_string()).collect();
        if !missing.is_empty() {
            return Err(PlotError::Columns { path: shown, missing, found: columns });
        }
        let mut rows = Vec::new();
        for (i, r) in rdr.records().enumerate() {
            rows.push(r.map_err(|e| bad(i as u64 + 2, e.to_string()))?);
        }
        Ok(CsvTable { path: path.to_path_buf(), columns, rows })
    }

    /// The index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Column names.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The text of column `name` in row `i` (a required column).
    pub fn text(&self, i: usize, name: &str) -> &str {
        self.col(name).and_then(|c| self.rows[i].get(c)).unwrap_or("")
    }

    /// The number in column `name` of row `i`; an empty cell is NaN.
    ///
    /// # Errors
    /// [`PlotError::Value`] naming the file, line and column.
    pub fn num(&self, i: usize, name: &str) -> Result<f64, PlotError> {
        let t = self.text(i, name).trim();
        if t.is_empty() {
            return Ok(f64::NAN);
        }
        t.parse().map_err(|_| PlotError::Value {
            path: self.path.display().to_string(),
            line: i as u64 + 2,
            message: format!("column '{name}' holds '{t}', which is not a number"),
        })
    }
}

/// Reads `summary.csv`-shaped rows (also used for `sweep.csv`).
pub(crate) fn stats(t: &CsvTable) -> Result<Vec<Stat>, PlotError> {
    (0..t.rows.len())
        .map(|i| {
            Ok(Stat {
                policy: t.text(i, "policy").to_string(),
                metric: t.text(i, "metric").to_string(),
                mean: t.num(i, "mean")?,
                low: t.num(i, "ci95_low")?,
                high: t.num(i, "ci95_high")?,
                replications: t.num(i, "replications")?.max(0.0) as u32,
            })
        })
        .collect()
}

/// One row's spread of single simulated years, from the last columns of `summary.csv`
/// ([`crate::output::csv::YEAR_COLUMNS`]; folders written before them have none).
#[derive(Clone, Debug, PartialEq)]
pub struct YearStat {
    /// Policy name.
    pub policy: String,
    /// Metric name.
    pub metric: String,
    /// The median year.
    pub p50: f64,
    /// The 90th-percentile year.
    pub p90: f64,
    /// Share of years above mean + 20% (the guide's budget buffer).
    pub above_share: f64,
    /// Replications (the share's denominator).
    pub replications: u32,
}

impl YearStat {
    /// How many years were above mean + 20% (the share times the years, which it is).
    pub fn above_years(&self) -> u32 {
        (self.above_share * f64::from(self.replications)).round() as u32
    }
}

/// Reads the year columns of `summary.csv`; empty when the file has none of them.
pub(crate) fn year_stats(t: &CsvTable) -> Result<Vec<YearStat>, PlotError> {
    let [p50, p90, share] = crate::output::csv::YEAR_COLUMNS;
    if [p50, p90, share].iter().any(|c| t.col(c).is_none()) {
        return Ok(Vec::new());
    }
    (0..t.rows.len())
        .map(|i| {
            Ok(YearStat {
                policy: t.text(i, "policy").to_string(),
                metric: t.text(i, "metric").to_string(),
                p50: t.num(i, p50)?,
                p90: t.num(i, p90)?,
                above_share: t.num(i, share)?,
                replications: t.num(i, "replications")?.max(0.0) as u32,
            })
        })
        .collect()
}

/// Reads `classes.csv` rows: (class, statistic).
pub(crate) fn class_stats(t: &CsvTable) -> Result<Vec<(String, Stat)>, PlotError> {
    let stats = stats(t)?;
    Ok((0..t.rows.len()).map(|i| t.text(i, "class").to_string()).zip(stats).collect())
}

/// Reads `seasons.csv` rows: (season, class, statistic).
pub(crate) fn season_stats(t: &CsvTable) -> Result<Vec<(String, String, Stat)>, PlotError> {
    let stats = stats(t)?;
    Ok((0..t.rows.len())
        .map(|i| (t.text(i, "season").to_string(), t.text(i, "class").to_string()))
        .zip(stats)
        .map(|((s, c), x)| (s, c, x))
        .collect())
}

/// Columns of `seasons.csv` the report uses.
pub const SEASONS_COLUMNS: &[&str] =
    &["policy", "season", "class", "metric", "mean", "ci95_low", "ci95_high", "replications"];
/// Columns of `classes.csv` the report uses.
pub const CLASSES_COLUMNS: &[&str] = &["policy", "class", "metric", "mean", "ci95_low", "ci95_high", "replications"];
/// Columns of `summary.csv` the charts use.
pub const SUMMARY_COLUMNS: &[&str] = &["policy", "metric", "mean", "ci95_low", "ci95_high", "replications"];
/// Columns of `paired.csv` the report uses.
pub const PAIRED_COLUMNS: &[&str] = &["policy", "baseline", "metric", "mean_diff", "ci95_low", "ci95_high"];
/// Columns of `timeseries.csv` the charts use.
pub const TIMESERIES_COLUMNS: &[&str] =
    &["policy", "day", "date", "campus_queue_gpus", "campus_busy_gpus", "cloud_busy_gpus"];
/// Columns of `class_waits.csv` the charts use.
pub const CLASS_WAITS_COLUMNS: &[&str] = &["policy", "class", "wait_h_at_most", "cumulative_share"];
/// Columns of `waits.csv` the charts use.
pub const WAITS_COLUMNS: &[&str] = &["policy", "wait_h_at_most", "cumulative_share"];
/// Columns of `sweep.csv` after the parameter columns.
pub const SWEEP_COLUMNS: &[&str] = &["point", "policy", "metric", "mean", "ci95_low", "ci95_high", "replications"];

/// Reads `paired.csv`.
pub(crate) fn paired(t: &CsvTable) -> Result<Vec<Paired>, PlotError> {
    (0..t.rows.len())
        .map(|i| {
            Ok(Paired {
                policy: t.text(i, "policy").to_string(),
                baseline: t.text(i, "baseline").to_string(),
                metric: t.text(i, "metric").to_string(),
                mean: t.num(i, "mean_diff")?,
                low: t.num(i, "ci95_low")?,
                high: t.num(i, "ci95_high")?,
            })
        })
        .collect()
}

/// Reads `timeseries.csv`.
pub(crate) fn days(t: &CsvTable) -> Result<Vec<Day>, PlotError> {
    (0..t.rows.len())
        .map(|i| {
            Ok(Day {
                policy: t.text(i, "policy").to_string(),
                day: t.num(i, "day")?.max(0.0) as u32,
                date: t.text(i, "date").to_string(),
                queue: t.num(i, "campus_queue_gpus")?,
                busy: t.num(i, "campus_busy_gpus")?,
                cloud: t.num(i, "cloud_busy_gpus")?,
            })
        })
        .collect()
}

/// Reads `waits.csv`.
pub(crate) fn waits(t: &CsvTable) -> Result<Vec<WaitPoint>, PlotError> {
    (0..t.rows.len())
        .map(|i| {
            Ok(WaitPoint {
                policy: t.text(i, "policy").to_string(),
                wait_h: t.num(i, "wait_h_at_most")?,
                share: t.num(i, "cumulative_share")?,
            })
        })
        .collect()
}

/// Reads `class_waits.csv`: (class, wait point).
pub(crate) fn class_waits(t: &CsvTable) -> Result<Vec<(String, WaitPoint)>, PlotError> {
    let points = waits(t)?;
    Ok((0..t.rows.len()).map(|i| t.text(i, "class").to_string()).zip(points).collect())
}

/// One replication of one policy: (policy, metric → value).
pub type ReplicationRow = (String, BTreeMap<String, f64>);

/// Per replication: (policy, metric → value), from `replications.csv`.
pub(crate) fn replications(t: &CsvTable) -> Result<Vec<ReplicationRow>, PlotError> {
    let metrics: Vec<String> = t
        .columns()
        .iter()
        .filter(|c| !matches!(c.as_str(), "policy" | "replication" | "seed" | "unstable"))
        .cloned()
        .collect();
    (0..t.rows.len())
        .map(|i| {
            let mut m = BTreeMap::new();
            for c in &metrics {
                m.insert(c.clone(), t.num(i, c)?);
            }
            Ok((t.text(i, "policy").to_string(), m))
        })
        .collect()
}

/// The policies in order of first appearance.
pub fn policy_order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    }
    out
}

/// What `run.toml`'s header comments say (`# burstsim X run manifest`, `# seed: …`,
/// `# warning: …`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ManifestHeader {
    /// burstsim version that wrote the run.
    pub version: Option<String>,
    /// Master seed.
    pub seed: Option<String>,
    /// Replications.
    pub replications: Option<String>,
    /// How the replications stopped.
    pub stopping: Option<String>,
    /// Warnings of the run.
    pub warnings: Vec<String>,
}

/// Parses the comment header of a `run.toml`.
pub fn manifest_header(text: &str) -> ManifestHeader {
    let mut h = ManifestHeader::default();
    for line in text.lines().take_while(|l| l.starts_with('#') || l.trim().is_empty()) {
        let l = line.trim_start_matches('#').trim();
        if let Some(v) = l.strip_prefix("burstsim ").and_then(|r| r.split_whitespace().next()) {
            h.version = Some(v.to_string());
        } else if let Some(r) = l.strip_prefix("seed: ") {
            let (seed, rest) = r.split_once(';').unwrap_or((r, ""));
            h.seed = Some(seed.trim().to_string());
            h.replications = rest.trim().strip_prefix("replications: ").map(|s| s.trim().to_string());
        } else if let Some(r) = l.strip_prefix("stopping: ") {
            h.stopping = Some(r.to_string());
        } else if let Some(r) = l.strip_prefix("warning: ") {
            h.warnings.push(r.to_string());
        }
    }
    h
}

/// The recommended point of a sweep, from `recommendation.txt`'s line
/// `choose policy 'X' at KEY=VALUE[, KEY=VALUE]: …`.
#[derive(Clone, Debug, PartialEq)]
pub struct Recommended {
    /// Policy.
    pub policy: String,
    /// (parameter key, value) pairs of the point.
    pub values: Vec<(String, String)>,
}

/// Finds the recommendation in the text of `recommendation.txt`.
pub fn parse_recommendation(text: &str) -> Option<Recommended> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix("choose policy '"))?;
    let (policy, rest) = line.split_once("' at ")?;
    // A policy the sweep does not change: "at any point (the sweep does not change it; e.g. at LABEL): …".
    let rest = match rest.strip_prefix("any point (the sweep does not change it; e.g. at ") {
        Some(r) => r.split_once("): ").map_or(r, |(label, _)| label),
        None => rest,
    };
    // The point label ends at the first ": " (values never contain one).
    let label = rest.split_once(": ").map_or(rest, |(a, _)| a);
    let mut values = Vec::new();
    for part in label.split(", ") {
        let (k, v) = part.split_once('=')?;
        values.push((k.trim().to_string(), v.trim().to_string()));
    }
    Some(Recommended { policy: policy.to_string(), values })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommendations_are_found_with_one_or_two_parameters() {
        let t = "Recommendation for wait_p95_h ≤ 2 (each with 95% confidence):\n  choose policy 'overflow' at \
                 policies.overflow.threshold_hours=20: total cost 102781 ± 2807 CNY\n";
        let r = parse_recommendation(t).unwrap();
        assert_eq!(r.policy, "overflow");
        assert_eq!(r.values, vec![("policies.overflow.threshold_hours".to_string(), "20".to_string())]);
        let same = parse_recommendation(
            "  choose policy 'c' at any point (the sweep does not change it; e.g. at x=1, y.z=2.5): total",
        )
        .unwrap();
        assert_eq!(same.values, vec![("x".to_string(), "1".to_string()), ("y.z".to_string(), "2.5".to_string())]);
        let r = parse_recommendation("  choose policy 'a b' at x=1, y.z=2.5: total").unwrap();
        assert_eq!(r.values.len(), 2);
        assert_eq!(r.values[1], ("y.z".to_string(), "2.5".to_string()));
        assert_eq!(parse_recommendation("  no point and policy meets every target"), None);
    }

    #[test]
    fn the_manifest_header_gives_version_seed_and_warnings() {
        let h = manifest_header(
            "# burstsim 0.1.0 run manifest\n# scenario: tiny (hash 1)\n# seed: 7; replications: 3\n\
             # stopping: fixed\n# warning: only 3 replications\n\nname = \"x\"\n# seed: 9\n",
        );
        assert_eq!(h.version.as_deref(), Some("0.1.0"));
        assert_eq!(h.seed.as_deref(), Some("7"));
        assert_eq!(h.replications.as_deref(), Some("3"));
        assert_eq!(h.warnings, vec!["only 3 replications".to_string()]);
    }

    #[test]
    fn missing_columns_are_named_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("summary.csv");
        std::fs::write(&p, "policy,metric,mean\na,b,1\n").unwrap();
        let e = CsvTable::read(&p, SUMMARY_COLUMNS).unwrap_err().to_string();
        assert!(e.contains("summary.csv") && e.contains("ci95_low"), "{e}");
        std::fs::write(&p, "policy,metric,mean,ci95_low,ci95_high,replications\na,b,x,1,2,3\n").unwrap();
        let t = CsvTable::read(&p, SUMMARY_COLUMNS).unwrap();
        let e = stats(&t).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("'x'"), "{e}");
    }
}
