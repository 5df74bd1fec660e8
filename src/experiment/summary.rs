//! From per-replication values to the tables users read: per policy and metric the mean,
//! standard deviation and 95% CI; and paired differences against the baseline policy
//! (replication by replication, so common random numbers cancel the shared noise).

use super::Results;
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::stats::{Summary, percentile_sorted, summarize};

/// The guide's budget buffer: estimate the bill, then add 20% (DOMAIN.md, "Overspending";
/// the platforms' own budgeting advice in market.md). A year above mean × (1 + this) is a
/// year that buffer would not have covered.
pub const BUDGET_BUFFER: f64 = 0.2;

/// How single simulated years spread (what budgeting one year needs, which the CI of
/// the mean does not say): empirical quantiles of the per-year values and how many years
/// ended above the mean plus [`BUDGET_BUFFER`]. Quantiles are Hyndman–Fan type 7 (linear
/// between order statistics, numpy's and R's default; docs/STATISTICS.md), over the years
/// with a finite value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YearSpread {
    /// The median year.
    pub p50: f64,
    /// The 90th-percentile year: nine years in ten at or below it, by the simulated years.
    pub p90: f64,
    /// Years strictly above mean × (1 + [`BUDGET_BUFFER`]).
    pub above_buffer: usize,
    /// Years with a finite value (the denominator of the share).
    pub years: usize,
}

impl YearSpread {
    /// No per-year values (a sweep's summaries, read back from `sweep.csv`).
    pub const UNKNOWN: YearSpread = YearSpread { p50: f64::NAN, p90: f64::NAN, above_buffer: 0, years: 0 };

    /// The spread of `values` (one per simulated year; NaN years are left out) around `mean`,
    /// the mean of their finite values.
    pub fn of(values: &[f64], mean: f64) -> YearSpread {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let limit = mean * (1.0 + BUDGET_BUFFER);
        YearSpread {
            p50: percentile_sorted(&sorted, 0.5),
            p90: percentile_sorted(&sorted, 0.9),
            above_buffer: sorted.iter().filter(|&&v| v > limit).count(),
            years: sorted.len(),
        }
    }

    /// The share of years above mean + [`BUDGET_BUFFER`] (NaN without years).
    pub fn above_buffer_share(&self) -> f64 {
        if self.years == 0 { f64::NAN } else { self.above_buffer as f64 / self.years as f64 }
    }
}

/// One row of `summary.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// Policy name.
    pub policy: String,
    /// The metric.
    pub metric: Metric,
    /// Mean, spread and CI over replications.
    pub summary: Summary,
    /// Replications in which the scenario looked unstable under this policy.
    pub unstable_replications: usize,
    /// How single years spread (p50, p90, years above mean + 20%).
    pub years: YearSpread,
}

/// One row of `paired.csv`: policy minus baseline, per replication, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedRow {
    /// Policy name.
    pub policy: String,
    /// Baseline policy name.
    pub baseline: String,
    /// The metric.
    pub metric: Metric,
    /// Summary of the differences.
    pub summary: Summary,
}

/// One row of `classes.csv`: a class metric of one policy, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassRow {
    /// Policy name.
    pub policy: String,
    /// Class name, or [`crate::scenario::class_metrics::ALL_CLASSES`].
    pub class: String,
    /// Metric name (of the scenario's class metric set).
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// Mean, spread and CI over replications.
    pub summary: Summary,
}

/// One row of `seasons.csv`: a season metric of one class row of one policy, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct SeasonRow {
    /// Policy name.
    pub policy: String,
    /// Season name, or [`crate::metrics::season::OUTSIDE_SEASONS`] or
    /// [`crate::metrics::season::ALL_SEASONS`].
    pub season: String,
    /// Class name, or [`crate::scenario::class_metrics::ALL_CLASSES`].
    pub class: String,
    /// Metric name (of [`crate::metrics::season::SEASON_METRICS`]).
    pub metric: &'static str,
    /// Its unit.
    pub unit: &'static str,
    /// Mean and CI over the replications in which it is defined.
    pub summary: Summary,
}

/// All summaries of an experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct Summaries {
    /// Policy × metric.
    pub rows: Vec<SummaryRow>,
    /// Policy × metric against the baseline.
    pub paired: Vec<PairedRow>,
    /// Policy × class × class metric.
    pub classes: Vec<ClassRow>,
    /// Policy × season × class × season metric.
    pub seasons: Vec<SeasonRow>,
}

impl Summaries {
    /// Summarises results.
    pub fn new(scenario: &Scenario, results: &Results) -> Summaries {
        let mut rows = Vec::new();
        let mut paired = Vec::new();
        let b = scenario.baseline;
        for (p, policy) in scenario.policies.iter().enumerate() {
            let unstable = results.policies[p].unstable.iter().filter(|&&u| u).count();
            for m in Metric::all_written(scenario) {
                let col = results.column(p, m);
                let summary = summarize(&col);
                rows.push(SummaryRow {
                    policy: policy.name.clone(),
                    metric: m,
                    summary,
                    unstable_replications: unstable,
                    years: YearSpread::of(&col, summary.mean),
                });
                let diffs = results.paired_column(p, b, m);
                paired.push(PairedRow {
                    policy: policy.name.clone(),
                    baseline: scenario.policies[b].name.clone(),
                    metric: m,
                    summary: summarize(&diffs),
                });
            }
        }
        let mut classes = Vec::new();
        let metric_names = scenario.class_metrics.names();
        for (p, policy) in scenario.policies.iter().enumerate() {
            for (c, class) in scenario.class_names().iter().enumerate() {
                for (k, (metric, unit)) in metric_names.iter().enumerate() {
                    classes.push(ClassRow {
                        policy: policy.name.clone(),
                        class: class.clone(),
                        metric: metric.clone(),
                        unit: unit.to_string(),
                        summary: summarize(&results.class_column(p, c, k)),
                    });
                }
            }
        }
        let mut seasons = Vec::new();
        let season_names = crate::metrics::season::SeasonSet::of(scenario).names;
        for (p, policy) in scenario.policies.iter().enumerate() {
            for (si, season) in season_names.iter().enumerate() {
                for (c, class) in scenario.class_names().iter().enumerate() {
                    for (k, &(metric, unit)) in crate::metrics::season::SEASON_METRICS.iter().enumerate() {
                        seasons.push(SeasonRow {
                            policy: policy.name.clone(),
                            season: season.clone(),
                            class: class.clone(),
                            metric,
                            unit,
                            summary: summarize(&results.season_column(p, si, c, k)),
                        });
                    }
                }
            }
        }
        Summaries { rows, paired, classes, seasons }
    }

    /// The summary of one season metric of one class row of one policy.
    pub fn season(&self, policy: &str, season: &str, class: &str, metric: &str) -> Option<&SeasonRow> {
        self.seasons.iter().find(|r| r.policy == policy && r.season == season && r.class == class && r.metric == metric)
    }

    /// The summary of one class metric of one policy.
    pub fn class(&self, policy: &str, class: &str, metric: &str) -> Option<&ClassRow> {
        self.classes.iter().find(|r| r.policy == policy && r.class == class && r.metric == metric)
    }

    /// The summary of one policy's metric.
    pub fn get(&self, policy: &str, metric: Metric) -> Option<&SummaryRow> {
        self.rows.iter().find(|r| r.policy == policy && r.metric == metric)
    }

    /// The paired difference of one policy's metric.
    pub fn paired(&self, policy: &str, metric: Metric) -> Option<&PairedRow> {
        self.paired.iter().find(|r| r.policy == policy && r.metric == metric)
    }
}
