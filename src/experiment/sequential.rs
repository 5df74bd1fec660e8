//! Sequential stopping: add replications until the confidence intervals of chosen metrics
//! are narrow enough (`--ci-target`), with a stopping rule whose coverage is measured.
//!
//! # Targets
//! Each [`CiTarget`] names a metric and the largest 95% CI half-width accepted, relative
//! to |mean| or absolute in the metric's unit. It must hold for every policy. The
//! command-line forms ([`parse_ci_targets`]):
//!
//! ```text
//! --ci-target 0.05                  relative 5% on the defaults (total_cost_cny, wait_mean_h)
//! --ci-target 5%                    the same
//! --ci-target total_cost_cny=2%     relative 2% on that metric
//! --ci-target wait_mean_h=0.1       absolute: ±0.1 h
//! --ci-target deadline_miss_rate=1pp  absolute on a rate: ±1 percentage point
//! ```
//! A bare number is relative (the old meaning of `--ci-target`); after `METRIC=` a number
//! without `%` is absolute, in the unit the tables show. Rates and shares are shown in
//! percent ([`Metric::shown_in_percent`]), so their absolute widths are written in
//! percentage points with `pp`; a bare number on them is refused (0.01 and 1 would both
//! be plausible), as for `--target` ([`crate::target`]). Several may be given; a named
//! metric overrides the bare default for that metric.
//!
//! # The rule
//! 1. Run at least [`MIN_REPLICATIONS`] (20) replications, or the scenario's count if larger.
//! 2. Check every watched metric of every policy: stop when each 95% half-width is
//!    within its target, computed on all replications so far (the very interval that
//!    summary.csv then reports).
//! 3. Otherwise add half again as many replications (a geometric batch: 20, 30, 45, 67,
//!    100, …) and check again, up to `max_replications`.
//!
//! Stopping "when the spread happens to be small" lets the stopping time depend on the
//! data, and the final interval then covers the truth less often than 95%: the spread
//! (and, for right-skewed per-year values such as mean waits, the mean) is
//! underestimated exactly when the rule stops. Two things limit that, both measured on
//! 1,000 sequential experiments per setting (docs/STATISTICS.md):
//! - geometric batches: the rule looks about 2.5·ln(n/20) + 1 times by n replications
//!   instead of n times;
//! - a minimum of 20: at 10 the t interval of a skewed per-year mean under-covers even
//!   without any stopping (0.933 at a fixed n = 10 on the test queue), and the early looks
//!   are where selection bites. The minimum of 10 covered 0.915 at ±10%; 20 covers
//!   0.937–0.947 across ±5%, ±10%, ±20%. It matches the default replication count.
//!
//! The check is `slow_sequential_stopping_covers_the_erlang_c_mean_wait` in
//! tests/suite/monte_carlo.rs.
//!
//! # Undefined values
//! A year in which a metric is undefined (NaN) is left out of its CI, as in summary.csv;
//! a watched metric needs at least [`MIN_REPLICATIONS`] defined years. A metric undefined
//! in every year of a policy (a monthly-GPU utilisation without monthly GPUs) has no
//! mean to estimate; it is skipped for that policy and the stopping record says so.
//! `budget_cap_day` is refused: it is undefined in every year the cap is never hit, so
//! the mean of the other years answers a different question.

use std::fmt;

use super::Results;
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::stats::{Summary, summarize};

/// Replications run before the rule may stop.
pub const MIN_REPLICATIONS: usize = 20;

/// The metrics a bare `--ci-target X` (or `simulation.ci_target`) applies to.
pub const DEFAULT_METRICS: [Metric; 2] = [Metric::TotalCost, Metric::WaitMean];

/// Metrics that are undefined by design in some years, refused as CI targets.
const REFUSED: [(Metric, &str); 1] =
    [(Metric::BudgetCapDay, "it is undefined in every year the budget cap is never hit")];

/// The largest 95% CI half-width accepted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Width {
    /// A fraction of |mean| (0.02 = ±2%).
    Relative(f64),
    /// In the metric's own unit.
    Absolute(f64),
}

/// One watched metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CiTarget {
    /// The metric.
    pub metric: Metric,
    /// Its largest accepted half-width.
    pub width: Width,
}

impl fmt::Display for CiTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.width {
            Width::Relative(r) => write!(f, "{} ±{}%", self.metric.name(), r * 100.0),
            Width::Absolute(a) if self.metric.shown_in_percent() => {
                write!(f, "{} ±{} pp", self.metric.name(), (a * 100.0 * 1e9).round() / 1e9)
            }
            Width::Absolute(a) => write!(f, "{} ±{a} {}", self.metric.name(), self.metric.unit()),
        }
    }
}

impl CiTarget {
    /// The half-width accepted for a summary (NaN when relative and the mean is undefined).
    pub fn allowed(&self, s: &Summary) -> f64 {
        match self.width {
            Width::Relative(r) => r * s.mean.abs(),
            Width::Absolute(a) => a,
        }
    }
}

/// A sequential stopping rule: the targets, all of which must hold for every policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Sequential {
    /// Watched metrics and widths.
    pub targets: Vec<CiTarget>,
}

impl Sequential {
    /// Relative `fraction` on [`DEFAULT_METRICS`] (what `simulation.ci_target` means).
    pub fn relative_default(fraction: f64) -> Sequential {
        Sequential {
            targets: DEFAULT_METRICS.map(|metric| CiTarget { metric, width: Width::Relative(fraction) }).to_vec(),
        }
    }

    /// Checks results against the rule.
    pub fn check(&self, scenario: &Scenario, results: &Results) -> Check {
        let mut check = Check { met: true, worst: None, undefined: Vec::new() };
        let mut worst_ratio = 0.0;
        for (p, policy) in scenario.policies.iter().enumerate() {
            for t in &self.targets {
                let s = summarize(&results.column(p, t.metric));
                if s.n == 0 && !results.replications.is_empty() {
                    check.undefined.push(format!("{} for '{}'", t.metric.name(), policy.name));
                    continue;
                }
                let allowed = t.allowed(&s);
                let ok = s.n >= MIN_REPLICATIONS.min(results.replications.len().max(1))
                    && s.n >= 2
                    && (s.half_width == 0.0 || s.half_width <= allowed);
                if ok {
                    continue;
                }
                check.met = false;
                let ratio = if allowed > 0.0 { s.half_width / allowed } else { f64::INFINITY };
                let ratio = if ratio.is_nan() { f64::INFINITY } else { ratio };
                if check.worst.is_none() || ratio > worst_ratio {
                    worst_ratio = ratio;
                    check.worst = Some(Shortfall { policy: policy.name.clone(), target: *t, summary: s });
                }
            }
        }
        check
    }
}

impl fmt::Display for Sequential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.targets.iter().map(ToString::to_string).collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// The watched CI furthest from its target.
#[derive(Clone, Debug, PartialEq)]
pub struct Shortfall {
    /// Policy.
    pub policy: String,
    /// The target it misses.
    pub target: CiTarget,
    /// Its summary.
    pub summary: Summary,
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, s) = (self.target.metric, &self.summary);
        write!(f, "{} of '{}' is {:.4} ± {:.4} {}", m.name(), self.policy, s.mean, s.half_width, m.unit())?;
        if s.mean != 0.0 && s.half_width.is_finite() {
            write!(f, " (±{:.1}%)", 100.0 * s.half_width / s.mean.abs())?;
        }
        write!(f, ", wanted {}", self.target)?;
        if matches!(self.target.width, Width::Relative(_)) && s.mean.abs() <= s.half_width {
            write!(
                f,
                "; its mean is too close to 0 for a relative width: give an absolute one, e.g. --ci-target {}={}",
                m.name(),
                if m.shown_in_percent() {
                    format!("{}pp", round_up(s.half_width * 100.0 / 2.0))
                } else {
                    round_up(s.half_width / 2.0).to_string()
                }
            )?;
        }
        Ok(())
    }
}

/// A short round number at or above `v` (1, 2 or 5 × a power of ten).
fn round_up(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|k| k * p).find(|&x| x >= v).unwrap_or(10.0 * p)
}

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Every watched CI (that is defined) is within its target.
    pub met: bool,
    /// When not met: the CI furthest from its target.
    pub worst: Option<Shortfall>,
    /// Watched metrics undefined in every year of a policy (skipped), as "metric for 'policy'".
    pub undefined: Vec<String>,
}

/// Parses `--ci-target` values (see the module documentation for the forms).
///
/// # Errors
/// A message naming the form expected, or the metrics allowed.
pub fn parse_ci_targets(specs: &[String]) -> Result<Sequential, String> {
    let mut named: Vec<CiTarget> = Vec::new();
    let mut bare: Option<f64> = None;
    for spec in specs {
        let spec = spec.trim();
        match spec.split_once('=') {
            None => {
                let r = parse_number(spec).map(|(v, _)| v).filter(|&v| v > 0.0 && v < 1.0).ok_or_else(|| {
                    format!(
                        "--ci-target '{spec}' is not allowed; give a relative half-width between 0 and 1 (0.05 or 5%), \
                             or METRIC=WIDTH (e.g. total_cost_cny=2%, wait_mean_h=0.1 for ±0.1 h)"
                    )
                })?;
                bare = Some(r);
            }
            Some((name, width)) => {
                let name = name.trim();
                let metric = Metric::from_name(name).ok_or_else(|| {
                    let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                    format!("--ci-target '{spec}': no metric is named '{name}'; the metrics are: {}", names.join(", "))
                })?;
                if let Some((_, why)) = REFUSED.iter().find(|(m, _)| *m == metric) {
                    return Err(format!(
                        "--ci-target '{spec}': {name} cannot be a CI target: {why}, so the mean of the other years answers a different question"
                    ));
                }
                let width = width.trim();
                let points = width.strip_suffix("pp").map(|n| n.trim().parse::<f64>().ok());
                let width = match (metric.shown_in_percent(), points, parse_number(width)) {
                    (true, Some(Some(v)), _) if v > 0.0 && v <= 100.0 => Width::Absolute(v / 100.0),
                    (false, Some(_), _) => {
                        return Err(format!(
                            "--ci-target '{spec}': {name} is in {} and is not shown in percent, so 'pp' (percentage points) does not apply; \
                             give a positive number in {} (e.g. {name}=0.1) or a percentage of the mean (e.g. {name}=2%)",
                            metric.unit(),
                            metric.unit()
                        ));
                    }
                    (_, None, Some((v, true))) if v > 0.0 && v < 1.0 => Width::Relative(v),
                    (false, None, Some((v, false))) if v > 0.0 && v.is_finite() => Width::Absolute(v),
                    (true, _, _) => {
                        return Err(format!(
                            "--ci-target '{spec}': {name} is a rate shown in percent; give an absolute width in percentage points \
                             (e.g. {name}=1pp for ±1 point) or a relative one as a percentage of the mean between 0% and 100% \
                             (e.g. {name}=10%)"
                        ));
                    }
                    _ => {
                        return Err(format!(
                            "--ci-target '{spec}': give the width as a percentage of the mean between 0% and 100% (e.g. {name}=2%) \
                             or as a positive number in {} (e.g. {name}=0.1)",
                            metric.unit()
                        ));
                    }
                };
                named.retain(|t| t.metric != metric);
                named.push(CiTarget { metric, width });
            }
        }
    }
    let mut targets: Vec<CiTarget> = match bare {
        Some(r) => DEFAULT_METRICS
            .iter()
            .filter(|m| !named.iter().any(|t| t.metric == **m))
            .map(|&metric| CiTarget { metric, width: Width::Relative(r) })
            .collect(),
        None => Vec::new(),
    };
    targets.extend(named);
    if targets.is_empty() {
        return Err("--ci-target needs a value, e.g. 0.05 or total_cost_cny=2%".into());
    }
    Ok(Sequential { targets })
}

/// `"0.05"` → (0.05, false); `"5%"` → (0.05, true).
fn parse_number(text: &str) -> Option<(f64, bool)> {
    let (num, pct) = match text.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (text, false),
    };
    let v: f64 = num.parse().ok().filter(|v: &f64| v.is_finite())?;
    Some(if pct { (v / 100.0, true) } else { (v, false) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(specs: &[&str]) -> Result<Sequential, String> {
        parse_ci_targets(&specs.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_bare_form_is_relative_on_the_defaults() {
        let r = parse(&["0.05"]).unwrap();
        assert_eq!(r, Sequential::relative_default(0.05));
        assert_eq!(parse(&["5%"]).unwrap(), r);
        assert_eq!(r.to_string(), "total_cost_cny ±5%, wait_mean_h ±5%");
    }

    #[test]
    fn named_targets_are_relative_with_percent_and_absolute_without() {
        let r = parse(&["total_cost_cny=2%", "wait_mean_h=0.1"]).unwrap();
        assert_eq!(
            r.targets,
            [
                CiTarget { metric: Metric::TotalCost, width: Width::Relative(0.02) },
                CiTarget { metric: Metric::WaitMean, width: Width::Absolute(0.1) },
            ]
        );
        assert_eq!(r.to_string(), "total_cost_cny ±2%, wait_mean_h ±0.1 h");
        // A named metric overrides the bare default for it; the other default stays.
        let r = parse(&["0.05", "wait_mean_h=0.1"]).unwrap();
        assert_eq!(r.to_string(), "total_cost_cny ±5%, wait_mean_h ±0.1 h");
        let r = parse(&["wait_p95_h=5%"]).unwrap();
        assert_eq!(r.targets.len(), 1, "without a bare value only the named metrics are watched");
    }

    #[test]
    fn bad_forms_and_undefined_metrics_are_refused_with_the_reason() {
        for (spec, needle) in [
            ("1.5", "between 0 and 1"),
            ("0", "between 0 and 1"),
            ("wait_mean=0.1", "no metric is named 'wait_mean'"),
            ("wait_mean_h=-1", "positive number in h"),
            ("wait_mean_h=150%", "between 0% and 100%"),
            ("budget_cap_day=1", "never hit"),
            ("total_cost_cny=", "percentage of the mean"),
            ("deadline_miss_rate=0.01", "percentage points"),
            ("deadline_miss_rate=1", "e.g. deadline_miss_rate=1pp"),
            ("wait_mean_h=1pp", "does not apply"),
        ] {
            let e = parse(&[spec]).unwrap_err();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }

    #[test]
    fn rates_take_absolute_widths_in_percentage_points() {
        let r = parse(&["deadline_miss_rate=1pp", "cloud_job_share=10%"]).unwrap();
        assert_eq!(
            r.targets,
            [
                CiTarget { metric: Metric::DeadlineMissRate, width: Width::Absolute(0.01) },
                CiTarget { metric: Metric::CloudJobShare, width: Width::Relative(0.1) },
            ]
        );
        assert_eq!(r.to_string(), "deadline_miss_rate ±1 pp, cloud_job_share ±10%");
    }

    #[test]
    fn a_relative_target_near_a_zero_mean_suggests_an_absolute_one() {
        let s = Shortfall {
            policy: "cloud".into(),
            target: CiTarget { metric: Metric::WaitMean, width: Width::Relative(0.05) },
            summary: Summary { n: 10, mean: 0.001, std_dev: 0.003, half_width: 0.002 },
        };
        let text = s.to_string();
        assert!(text.contains("--ci-target wait_mean_h=0.001"), "{text}");
        assert_eq!(round_up(0.0013), 0.002);
        assert_eq!(round_up(0.3), 0.5);
    }
}
