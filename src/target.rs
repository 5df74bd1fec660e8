//! Targets: requirements on a metric such as `wait_p95_h<=2`, given with `--target`.
//!
//! A target can be read two ways, and burstsim keeps them apart:
//! - about the **mean year**: the mean of the metric over simulated years meets the bound
//!   (judged by the confidence interval of the mean, [`crate::sweep::recommend`]);
//! - about **each year**: one simulated year (one replication) meets the bound or misses
//!   it ([`Target::missed_by`]), and the share of years that miss is a risk
//!   ([`crate::experiment::risk`]).

use crate::metrics::Metric;

/// `<=` or `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// The metric must be at most the value.
    AtMost,
    /// The metric must be at least the value.
    AtLeast,
}

/// A requirement such as `wait_p95_h<=24`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The metric.
    pub metric: Metric,
    /// Direction.
    pub cmp: Cmp,
    /// Bound.
    pub value: f64,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.cmp == Cmp::AtMost { "≤" } else { "≥" };
        write!(f, "{} {op} {}", self.metric.name(), self.value)
    }
}

/// Parses `metric<=value` or `metric>=value` (`<`/`>` mean the same here).
///
/// # Errors
/// A message naming the valid metrics or the form expected.
pub fn parse_target(text: &str) -> Result<Target, String> {
    let (name, cmp, value) = if let Some((a, b)) = text.split_once("<=").or_else(|| text.split_once('<')) {
        (a, Cmp::AtMost, b)
    } else if let Some((a, b)) = text.split_once(">=").or_else(|| text.split_once('>')) {
        (a, Cmp::AtLeast, b)
    } else {
        return Err(format!(
            "--target '{text}' is not of the form METRIC<=VALUE or METRIC>=VALUE, e.g. 'wait_p95_h<=24'"
        ));
    };
    let metric = Metric::from_name(name.trim()).ok_or_else(|| {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        format!("--target '{text}': no metric is named '{}'; the metrics are: {}", name.trim(), names.join(", "))
    })?;
    let value: f64 =
        value.trim().parse().map_err(|_| format!("--target '{text}': '{}' is not a number", value.trim()))?;
    if !value.is_finite() {
        return Err(format!("--target '{text}': the bound must be a finite number"));
    }
    Ok(Target { metric, cmp, value })
}

impl Target {
    /// Whether one year's value misses the target: `Some(true)` when it is on the wrong
    /// side of the bound, `None` when the value is undefined (NaN) that year.
    pub fn missed_by(&self, value: f64) -> Option<bool> {
        if value.is_nan() {
            return None;
        }
        Some(match self.cmp {
            Cmp::AtMost => value > self.value,
            Cmp::AtLeast => value < self.value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_name_valid_metrics_on_error() {
        let t = parse_target("wait_p95_h<=24").unwrap();
        assert_eq!((t.metric, t.cmp, t.value), (Metric::WaitP95, Cmp::AtMost, 24.0));
        assert_eq!(parse_target("cloud_job_share>=0.1").unwrap().cmp, Cmp::AtLeast);
        let e = parse_target("wait_p96<=1").unwrap_err();
        assert!(e.contains("wait_p95_h") && e.contains("no metric"), "{e}");
        assert!(parse_target("wait_p95_h=24").is_err());
    }

    #[test]
    fn a_year_on_the_bound_meets_it_and_an_undefined_year_is_neither() {
        let t = parse_target("wait_p95_h<=2").unwrap();
        assert_eq!(t.missed_by(2.0), Some(false));
        assert_eq!(t.missed_by(2.0001), Some(true));
        assert_eq!(t.missed_by(f64::NAN), None);
        let t = parse_target("cloud_job_share>=0.1").unwrap();
        assert_eq!((t.missed_by(0.1), t.missed_by(0.05)), (Some(false), Some(true)));
    }
}
