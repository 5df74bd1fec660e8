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
//! --ci-target paired:10%            the decision: each policy's difference against the
//!                                   baseline, on total_cost_cny and each target's metric,
//!                                   within ±10% of its value, or the decision settled
//! --ci-target paired:total_cost_cny=10%   one paired metric (the decision also stops it)
//! ```
//! A bare number is relative (the old meaning of `--ci-target`); after `METRIC=` a number
//! without `%` is absolute, in the unit the tables show. Rates and shares are shown in
//! percent ([`Metric::shown_in_percent`]), so their absolute widths are written in
//! percentage points with `pp`; a bare number on them is refused (0.01 and 1 would both
//! be plausible), as for `--target` ([`crate::target`]). Several may be given; a named
//! metric overrides the bare default for that metric.
//!
//! # Paired targets and the decision
//! The decision rests on each policy's difference against the baseline over the same
//! years (common random numbers), not on each policy's own interval: for cost that
//! interval is about half as wide, so a rule on the policies' own CIs ran about four
//! times the years the decision needed. A `paired:` target watches that difference for
//! every policy but the baseline. A rule with paired targets also stops as soon as the
//! decision is **settled** ([`settled`]): every policy's verdict on every target is the
//! same at both ends of its interval (Bonferroni over the policies, as the recommendation
//! judges), and the cheapest policy that meets them is cheaper than every other one that
//! does, by a paired 95% CI that excludes 0. More years would then narrow the intervals
//! without changing the answer. The targets are the run's (`--target`, the scenario's
//! `[sensitivity] targets`, else the default), set by the run with
//! [`Sequential::with_decision`].
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

use super::{Results, Summaries};
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::stats::binomial::bonferroni;
use crate::stats::{Summary, summarize};
use crate::target::{Cmp, Target};

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
    /// Watch each policy's difference against the baseline (over the same years), not
    /// the policy's own value.
    pub paired: bool,
}

impl fmt::Display for CiTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.paired {
            write!(f, "paired ")?;
        }
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
    /// The relative width a bare `paired:X` asked for: [`Sequential::with_decision`]
    /// watches each target's metric at it too.
    pub paired_width: Option<f64>,
    /// The targets whose settled decision also stops the rule (empty: only the widths do).
    pub decision: Vec<Target>,
}

impl Sequential {
    /// Relative `fraction` on [`DEFAULT_METRICS`] (what `simulation.ci_target` means).
    pub fn relative_default(fraction: f64) -> Sequential {
        Sequential {
            targets: DEFAULT_METRICS
                .map(|metric| CiTarget { metric, width: Width::Relative(fraction), paired: false })
                .to_vec(),
            paired_width: None,
            decision: Vec::new(),
        }
    }

    /// Relative `fraction` on the paired cost difference, and (once
    /// [`Sequential::with_decision`] gives the targets) on each target's metric: what
    /// `--ci-target paired:X` and `simulation.ci_target_paired` mean.
    pub fn paired_default(fraction: f64) -> Sequential {
        Sequential {
            targets: vec![CiTarget { metric: Metric::TotalCost, width: Width::Relative(fraction), paired: true }],
            paired_width: Some(fraction),
            decision: Vec::new(),
        }
    }

    /// Whether any target is paired (the rule then stops on the decision too).
    pub fn has_paired(&self) -> bool {
        self.targets.iter().any(|t| t.paired)
    }

    /// The rule with the run's `targets`: a rule with paired targets stops when the
    /// decision on them is settled, and a bare `paired:X` also watches the paired
    /// difference of each target's metric (the targets on all of the group's jobs; a
    /// class's difference has no per-year column to watch, its verdict still counts).
    pub fn with_decision(mut self, targets: &[Target]) -> Sequential {
        if !self.has_paired() {
            return self;
        }
        if let Some(fraction) = self.paired_width {
            for t in targets.iter().filter(|t| t.class.is_none()) {
                if !self.targets.iter().any(|w| w.paired && w.metric == t.metric) {
                    self.targets.push(CiTarget { metric: t.metric, width: Width::Relative(fraction), paired: true });
                }
            }
        }
        self.decision = targets.to_vec();
        self
    }

    /// Checks results against the rule.
    pub fn check(&self, scenario: &Scenario, results: &Results) -> Check {
        let mut check = Check { met: true, worst: None, undefined: Vec::new(), settled: false };
        let mut worst_ratio = 0.0;
        let b = scenario.baseline;
        for (p, policy) in scenario.policies.iter().enumerate() {
            for t in &self.targets {
                if t.paired && p == b {
                    continue;
                }
                let values = if t.paired { results.paired_column(p, b, t.metric) } else { results.column(p, t.metric) };
                let s = summarize(&values);
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
        if !check.met
            && !self.decision.is_empty()
            && results.replications.len() >= MIN_REPLICATIONS
            && settled(scenario, results, &self.decision)
        {
            check.met = true;
            check.settled = true;
        }
        check
    }
}

/// Whether more years could not change the decision on `targets` (see the module
/// documentation): every policy's verdict on every target is the same at both ends of
/// its interval, at the recommendation's Bonferroni-corrected confidence over the
/// policies, and the cheapest policy that meets them is cheaper than each other one that
/// does by a paired 95% CI wholly above 0 (a difference of exactly 0 in every year, two
/// policies that behave alike, is no choice to settle).
pub fn settled(scenario: &Scenario, results: &Results, targets: &[Target]) -> bool {
    let summaries = Summaries::new(scenario, results);
    let confidence = bonferroni(0.95, scenario.policies.len().max(1));
    let mut meeting = Vec::new();
    for (p, policy) in scenario.policies.iter().enumerate() {
        let mut meets_all = true;
        for t in targets {
            let s = target_summary(&summaries, &policy.name, t);
            if s.n < 2 || !s.mean.is_finite() || !s.half_width.is_finite() {
                return false;
            }
            let hw = s.half_width_at(confidence);
            let (low, high) = (s.mean - hw, s.mean + hw);
            let (ok_low, ok_high) = match t.cmp {
                Cmp::AtMost => (low <= t.value, high <= t.value),
                Cmp::AtLeast => (low >= t.value, high >= t.value),
            };
            if ok_low != ok_high {
                return false;
            }
            meets_all &= ok_low;
        }
        if meets_all {
            meeting.push(p);
        }
    }
    let cost =
        |p: usize| summaries.get(&scenario.policies[p].name, Metric::TotalCost).map_or(f64::NAN, |r| r.summary.mean);
    let Some(&cheapest) = meeting.iter().min_by(|a, b| cost(**a).total_cmp(&cost(**b))) else {
        return true;
    };
    meeting.iter().filter(|&&p| p != cheapest).all(|&p| {
        let d = summarize(&results.paired_column(p, cheapest, Metric::TotalCost));
        (d.mean == 0.0 && d.half_width == 0.0) || d.low() > 0.0
    })
}

/// A target's summary: the policy's metric, or its class's row when the target names a
/// class (NaN when the class has no row).
fn target_summary(s: &Summaries, policy: &str, t: &Target) -> Summary {
    let missing = Summary { n: 0, mean: f64::NAN, std_dev: f64::NAN, half_width: f64::NAN };
    match &t.class {
        None => s.get(policy, t.metric).map_or(missing, |r| r.summary),
        Some(class) => s
            .classes
            .iter()
            .find(|r| r.policy == policy && &r.class == class && r.metric == t.metric.name())
            .map_or(missing, |r| r.summary),
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
    /// Every watched CI (that is defined) is within its target, or the decision is settled.
    pub met: bool,
    /// The rule stops because the decision is settled, before every width was met.
    pub settled: bool,
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
    let mut bare_paired: Option<f64> = None;
    for spec in specs {
        let spec = spec.trim();
        let (paired, body) = match spec.strip_prefix("paired:") {
            Some(rest) => (true, rest.trim()),
            None => (false, spec),
        };
        match body.split_once('=') {
            None if paired => {
                let r = parse_number(body).map(|(v, _)| v).filter(|&v| v > 0.0 && v < 1.0).ok_or_else(|| {
                    format!(
                        "--ci-target '{spec}' is not allowed; give a relative half-width of the paired differences \
                         between 0 and 1 (paired:0.1 or paired:10%), or paired:METRIC=WIDTH"
                    )
                })?;
                bare_paired = Some(r);
            }
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
                named.retain(|t| t.metric != metric || t.paired != paired);
                named.push(CiTarget { metric, width, paired });
            }
        }
    }
    let mut targets: Vec<CiTarget> = match bare {
        Some(r) => DEFAULT_METRICS
            .iter()
            .filter(|m| !named.iter().any(|t| t.metric == **m && !t.paired))
            .map(|&metric| CiTarget { metric, width: Width::Relative(r), paired: false })
            .collect(),
        None => Vec::new(),
    };
    if let Some(r) = bare_paired
        && !named.iter().any(|t| t.paired && t.metric == Metric::TotalCost)
    {
        targets.push(CiTarget { metric: Metric::TotalCost, width: Width::Relative(r), paired: true });
    }
    targets.extend(named);
    if targets.is_empty() {
        return Err("--ci-target needs a value, e.g. 0.05 or total_cost_cny=2%".into());
    }
    Ok(Sequential { targets, paired_width: bare_paired, decision: Vec::new() })
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
                CiTarget { metric: Metric::TotalCost, width: Width::Relative(0.02), paired: false },
                CiTarget { metric: Metric::WaitMean, width: Width::Absolute(0.1), paired: false },
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
    fn paired_forms_watch_the_differences_and_a_bare_one_adds_the_targets_metrics() {
        let r = parse(&["paired:10%"]).unwrap();
        assert_eq!(r, Sequential::paired_default(0.1));
        assert!(r.has_paired() && r.decision.is_empty());
        let targets = [
            crate::target::parse_target("wait_p95_h<=24").unwrap(),
            crate::target::parse_target("main:wait_mean_h<=4").unwrap(),
        ];
        let r = r.with_decision(&targets);
        assert_eq!(r.to_string(), "paired total_cost_cny ±10%, paired wait_p95_h ±10%");
        assert_eq!(r.decision.len(), 2, "every target judges the decision, a class's too");
        let r = parse(&["paired:wait_p95_h=0.5", "total_cost_cny=2%"]).unwrap();
        assert_eq!(r.to_string(), "paired wait_p95_h ±0.5 h, total_cost_cny ±2%");
        assert_eq!(r.clone().with_decision(&targets).targets, r.targets, "no bare paired width: nothing added");
        let own = parse(&["5%"]).unwrap().with_decision(&targets);
        assert!(own.decision.is_empty(), "a rule on the policies' own CIs does not stop on the decision");
        for (spec, needle) in [("paired:1.5", "paired differences"), ("paired:wait_mean=1", "no metric is named")] {
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
                CiTarget { metric: Metric::DeadlineMissRate, width: Width::Absolute(0.01), paired: false },
                CiTarget { metric: Metric::CloudJobShare, width: Width::Relative(0.1), paired: false },
            ]
        );
        assert_eq!(r.to_string(), "deadline_miss_rate ±1 pp, cloud_job_share ±10%");
    }

    #[test]
    fn a_relative_target_near_a_zero_mean_suggests_an_absolute_one() {
        let s = Shortfall {
            policy: "cloud".into(),
            target: CiTarget { metric: Metric::WaitMean, width: Width::Relative(0.05), paired: false },
            summary: Summary { n: 10, mean: 0.001, std_dev: 0.003, half_width: 0.002 },
        };
        let text = s.to_string();
        assert!(text.contains("--ci-target wait_mean_h=0.001"), "{text}");
        assert_eq!(round_up(0.0013), 0.002);
        assert_eq!(round_up(0.3), 0.5);
    }
}
