//! The CSV files of a run, as bytes (pure functions; the caller writes them atomically).
//! Column names are a stable contract (DESIGN.md): add columns, never rename or drop.

use crate::date::Date;
use crate::experiment::risk::PolicyRisk;
use crate::experiment::{DailySums, Results, Summaries, wait_bin_edges};
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::target::Target;
use crate::write::{CsvBytes, num};

/// How the user-facing CSV files are encoded. Plain UTF-8 is the stable contract; Excel
/// on Windows (Chinese locales especially) reads a CSV without a byte-order mark in the
/// local code page and garbles Chinese names, so `--excel` writes UTF-8 with a BOM. The
/// `csv` crate (and so every reader in burstsim) skips a BOM, so both forms read back
/// the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark (the default).
    #[default]
    Utf8,
    /// UTF-8 starting with the byte-order mark EF BB BF, for Excel (`--excel`).
    Utf8Bom,
}

/// The UTF-8 byte-order mark.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

impl Encoding {
    /// `--excel` → [`Encoding::Utf8Bom`].
    pub fn excel(on: bool) -> Encoding {
        if on { Encoding::Utf8Bom } else { Encoding::Utf8 }
    }

    /// The file's bytes in this encoding (CSV text from this module is UTF-8 already).
    pub fn encode(self, bytes: Vec<u8>) -> Vec<u8> {
        match self {
            Encoding::Utf8 => bytes,
            Encoding::Utf8Bom => [UTF8_BOM, &bytes].concat(),
        }
    }
}

/// The columns `summary.csv` ends with, after `unstable_replications`: how single
/// simulated years spread ([`crate::experiment::summary::YearSpread`]): the median year,
/// the 90th-percentile year, and the share of years above mean + 20% (the guide's budget
/// buffer, [`crate::experiment::summary::BUDGET_BUFFER`]). Appended at the end so that
/// readers by position of the older columns keep working.
pub const YEAR_COLUMNS: [&str; 3] = ["year_p50", "year_p90", "year_share_above_mean_plus_20pct"];

/// `summary.csv`: policy × metric.
pub fn summary_csv(s: &Summaries) -> Vec<u8> {
    let mut w = CsvBytes::new(
        ["policy", "metric", "unit"]
            .into_iter()
            .chain(SUMMARY_COLUMNS)
            .chain(["unstable_replications"])
            .chain(YEAR_COLUMNS),
    );
    for r in &s.rows {
        let x = &r.summary;
        let y = &r.years;
        w.row(
            [r.policy.clone(), r.metric.name().into(), r.metric.unit().into()]
                .into_iter()
                .chain(summary_cells(x, true))
                .chain([r.unstable_replications.to_string()])
                .chain([num(y.p50), num(y.p90), num(y.above_buffer_share())]),
        );
    }
    w.finish()
}

/// `classes.csv`: policy × class × class metric (the group's classes, then
/// [`crate::scenario::class_metrics::ALL_CLASSES`] for every group job).
pub fn classes_csv(s: &Summaries) -> Vec<u8> {
    let mut w = CsvBytes::new(["policy", "class", "metric", "unit"].into_iter().chain(SUMMARY_COLUMNS));
    for r in &s.classes {
        let x = &r.summary;
        w.row(
            [r.policy.clone(), r.class.clone(), r.metric.clone(), r.unit.clone()]
                .into_iter()
                .chain(summary_cells(x, true)),
        );
    }
    w.finish()
}

/// `seasons.csv`: policy × season × class × season metric, by the jobs' submission
/// times ([`crate::metrics::season`]).
pub fn seasons_csv(s: &Summaries) -> Vec<u8> {
    let mut w =
        CsvBytes::new(["policy", "season", "class", "metric", "unit", "mean", "ci95_low", "ci95_high", "replications"]);
    for r in &s.seasons {
        let x = &r.summary;
        w.row([
            r.policy.clone(),
            r.season.clone(),
            r.class.clone(),
            r.metric.to_string(),
            r.unit.to_string(),
            num(x.mean),
            num(x.low_nonneg()),
            num(x.high()),
            x.n.to_string(),
        ]);
    }
    w.finish()
}

/// Per policy, replication, season row and class row, every season metric (shards carry
/// these so a merge can summarise them as one run does).
pub fn season_replications_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut header = vec!["policy", "replication", "season", "class"];
    header.extend(crate::metrics::season::SEASON_METRICS.iter().map(|m| m.0));
    let mut w = CsvBytes::new(&header);
    let classes = scenario.class_names();
    let seasons = crate::metrics::season::SeasonSet::of(scenario).names;
    for (p, policy) in scenario.policies.iter().enumerate() {
        let pr = &results.policies[p];
        for (i, &r) in results.replications.iter().enumerate() {
            for (si, season) in seasons.iter().enumerate() {
                for (c, class) in classes.iter().enumerate() {
                    let mut row = vec![policy.name.clone(), r.to_string(), season.clone(), class.clone()];
                    row.extend(pr.season_values[i][si][c].iter().map(|&v| num(v)));
                    w.row(&row);
                }
            }
        }
    }
    w.finish()
}

/// Per policy, replication and class row, every class metric (shards carry these so a
/// merge can summarise them as one run does).
pub fn class_replications_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut header = vec!["policy".to_string(), "replication".into(), "class".into()];
    header.extend(scenario.class_metrics.names().into_iter().map(|n| n.0));
    let mut w = CsvBytes::new(&header);
    let classes = scenario.class_names();
    for (p, policy) in scenario.policies.iter().enumerate() {
        let pr = &results.policies[p];
        for (i, &r) in results.replications.iter().enumerate() {
            for (c, class) in classes.iter().enumerate() {
                let mut row = vec![policy.name.clone(), r.to_string(), class.clone()];
                row.extend(pr.class_values[i][c].iter().map(|&v| num(v)));
                w.row(&row);
            }
        }
    }
    w.finish()
}

/// The names of the five columns every summary row ends with ([`summary_cells`]).
const SUMMARY_COLUMNS: [&str; 5] = ["mean", "ci95_low", "ci95_high", "std_dev", "replications"];

/// The five columns every summary row ends with: `mean, ci95_low, ci95_high, std_dev,
/// replications` (paired.csv names the first `mean_diff`). `nonneg`: the quantity
/// cannot be negative, so the interval's low end is clamped at 0 ([`crate::stats::Summary::low_nonneg`]);
/// false for paired differences.
fn summary_cells(x: &crate::stats::Summary, nonneg: bool) -> [String; 5] {
    let low = if nonneg { x.low_nonneg() } else { x.low() };
    [num(x.mean), num(low), num(x.high()), num(x.std_dev), x.n.to_string()]
}

/// `paired.csv`: policy − baseline, per metric.
pub fn paired_csv(s: &Summaries) -> Vec<u8> {
    let mut w = CsvBytes::new([
        "policy",
        "baseline",
        "metric",
        "unit",
        "mean_diff",
        "ci95_low",
        "ci95_high",
        "std_dev",
        "replications",
    ]);
    for r in &s.paired {
        let x = &r.summary;
        w.row(
            [r.policy.clone(), r.baseline.clone(), r.metric.name().into(), r.metric.unit().into()]
                .into_iter()
                .chain(summary_cells(x, false)),
        );
    }
    w.finish()
}

/// `replications.csv`: policy × replication, one column per metric.
pub fn replications_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut header = vec!["policy".to_string(), "replication".into(), "seed".into()];
    let written = Metric::all_written(scenario);
    header.extend(written.iter().map(|m| m.name().to_string()));
    header.push("unstable".into());
    let mut w = CsvBytes::new(&header);
    for (p, policy) in scenario.policies.iter().enumerate() {
        let pr = &results.policies[p];
        for (i, &r) in results.replications.iter().enumerate() {
            let mut row = vec![policy.name.clone(), r.to_string(), scenario.seed.to_string()];
            row.extend(written.iter().map(|m| num(pr.values[i][m.index()])));
            row.push(pr.unstable[i].to_string());
            w.row(&row);
        }
    }
    w.finish()
}

/// The columns of `risk.csv` after the point columns of a sweep: the targets (as text),
/// the years simulated, how many missed (a year with a target metric undefined counts as
/// missed, and is also counted in `undefined_years`), their share and its exact
/// (Clopper–Pearson) 95% interval.
pub const RISK_COLUMNS: [&str; 8] =
    ["policy", "targets", "years", "missed_years", "undefined_years", "miss_share", "ci95_low", "ci95_high"];

/// One policy's `risk.csv` fields, in the order of [`RISK_COLUMNS`].
pub fn risk_fields(targets: &[Target], r: &PolicyRisk) -> Vec<String> {
    let (lo, hi) = r.count.ci95();
    let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    vec![
        r.policy.clone(),
        targets.join(" and "),
        r.count.years.to_string(),
        r.count.missed.to_string(),
        r.count.undefined.to_string(),
        num(r.count.share()),
        num(lo),
        num(hi),
    ]
}

/// `risk.csv` of a run: per policy, the years that missed the targets, with the exact
/// 95% interval and the one-sided 95% upper bound of the chance that a year misses.
pub fn risk_csv(targets: &[Target], risks: &[PolicyRisk]) -> Vec<u8> {
    let mut header: Vec<&str> = RISK_COLUMNS.to_vec();
    header.push("upper95");
    let mut w = CsvBytes::new(&header);
    for r in risks {
        let mut row = risk_fields(targets, r);
        row.push(num(r.count.upper(0.95)));
        w.row(&row);
    }
    w.finish()
}

/// `timeseries.csv`: policy × day, means over replications.
pub fn timeseries_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut w = CsvBytes::new([
        "policy",
        "day",
        "date",
        "campus_queue_gpus",
        "campus_busy_gpus",
        "cloud_busy_gpus",
        "cost_cny",
    ]);
    let n = results.replications.len();
    let start: Date = scenario.start_date;
    for (p, policy) in scenario.policies.iter().enumerate() {
        let d = &results.policies[p].daily_sum;
        for day in 0..d.campus_queue_gpus.len() {
            w.row([
                policy.name.clone(),
                day.to_string(),
                start.add_days(day as i64).to_string(),
                num(DailySums::mean(d.campus_queue_gpus[day], n)),
                num(DailySums::mean(d.campus_busy_gpus[day], n)),
                num(DailySums::mean(d.cloud_busy_gpus[day], n)),
                num(DailySums::mean(d.cost_cny[day], n)),
            ]);
        }
    }
    w.finish()
}

/// `waits.csv`: the distribution of the group's waits per policy, pooled over
/// replications, as a cumulative share at each bin's upper edge (for CDF charts).
pub fn waits_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut w = CsvBytes::new(["policy", "wait_h_at_most", "jobs", "cumulative_share"]);
    for (p, policy) in scenario.policies.iter().enumerate() {
        for row in cdf_rows(&results.policies[p].wait_hist) {
            w.row(std::iter::once(policy.name.clone()).chain(row));
        }
    }
    w.finish()
}

/// `class_waits.csv`: as `waits.csv`, per policy and group class (the id; display
/// names are in `run.toml`).
pub fn class_waits_csv(scenario: &Scenario, results: &Results) -> Vec<u8> {
    let mut w = CsvBytes::new(["policy", "class", "wait_h_at_most", "jobs", "cumulative_share"]);
    for (p, policy) in scenario.policies.iter().enumerate() {
        for (class, hist) in scenario.group.iter().zip(&results.policies[p].class_wait_hist) {
            for row in cdf_rows(hist) {
                w.row([policy.name.clone(), class.name.clone()].into_iter().chain(row));
            }
        }
    }
    w.finish()
}

/// The rows (wait_h_at_most, jobs, cumulative_share) of a wait histogram: the bins with
/// jobs, plus the first and last, each at its upper edge.
fn cdf_rows(hist: &[u64]) -> Vec<[String; 3]> {
    let edges = wait_bin_edges();
    let total: u64 = hist.iter().sum();
    let mut acc = 0;
    let mut out = Vec::new();
    for (edge, &count) in edges.iter().zip(hist) {
        acc += count;
        if count == 0 && acc != total && acc != 0 {
            continue;
        }
        if !edge.is_finite() {
            continue;
        }
        let share = if total == 0 { f64::NAN } else { acc as f64 / total as f64 };
        out.push([num(*edge), count.to_string(), num(share)]);
    }
    out
}
