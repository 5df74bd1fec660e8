//! Choosing a setting from a sweep: the cheapest point and policy that meets every target
//! *with 95% confidence* (the CI bound, not just the mean, is on the right side), and the
//! monthly-vs-hourly break-even.

use crate::experiment::Summaries;
use crate::metrics::Metric;
use crate::scenario::Scenario;
use crate::scenario::raw::BillingMode;
use crate::stats::Summary;

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

/// The summaries of one sweep point.
#[derive(Clone, Debug)]
pub struct PointResult {
    /// Index.
    pub point: usize,
    /// `key=value, …`.
    pub label: String,
    /// Its summaries.
    pub summaries: Summaries,
}

/// Why a candidate was ruled out (or how close it came).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Point index.
    pub point: usize,
    /// Point label.
    pub label: String,
    /// Policy.
    pub policy: String,
    /// Mean total cost.
    pub cost: Summary,
    /// Empty when every target is met with 95% confidence; else the reasons.
    pub reasons: Vec<String>,
    /// Worst relative violation (0 when met): how far the CI bound is past the target.
    pub worst_violation: f64,
    /// Smallest margin between CI bound and target, in the metric's units (when met).
    pub margins: Vec<(Target, f64)>,
}

/// The outcome of a recommendation.
#[derive(Clone, Debug)]
pub struct Recommendation {
    /// The targets.
    pub targets: Vec<Target>,
    /// The cheapest candidate meeting every target, if any.
    pub chosen: Option<Verdict>,
    /// Every candidate that does not meet them, cheapest first.
    pub ruled_out: Vec<Verdict>,
    /// With no candidate meeting them: the one closest to doing so.
    pub closest: Option<Verdict>,
}

fn judge(target: &Target, s: &Summary) -> (Option<String>, f64, f64) {
    let op = if target.cmp == Cmp::AtMost { "≤" } else { "≥" };
    let name = target.metric.name();
    if s.n == 0 || s.mean.is_nan() {
        return (Some(format!("{name} is undefined here")), f64::INFINITY, f64::NAN);
    }
    if s.n < 2 || s.half_width.is_nan() {
        return (Some(format!("{name}: one replication gives no confidence interval")), f64::INFINITY, f64::NAN);
    }
    let bound = if target.cmp == Cmp::AtMost { s.high() } else { s.low() };
    let margin = if target.cmp == Cmp::AtMost { target.value - bound } else { bound - target.value };
    let scale = target.value.abs().max(1e-9);
    if margin >= 0.0 {
        return (None, 0.0, margin);
    }
    let mean_ok = if target.cmp == Cmp::AtMost { s.mean <= target.value } else { s.mean >= target.value };
    let reason = if mean_ok {
        format!("{name}: mean {:.4} meets {op} {} but the 95% CI reaches {:.4}", s.mean, target.value, bound)
    } else {
        format!("{name}: mean {:.4} misses {op} {}", s.mean, target.value)
    };
    (Some(reason), -margin / scale, margin)
}

/// The cheapest (mean `total_cost_cny`) point and policy whose 95% CI meets every target.
pub fn recommend(points: &[PointResult], targets: &[Target]) -> Recommendation {
    let mut verdicts = Vec::new();
    for pr in points {
        let policies: Vec<&str> = {
            let mut v: Vec<&str> = pr.summaries.rows.iter().map(|r| r.policy.as_str()).collect();
            v.dedup();
            v
        };
        for policy in policies {
            let cost = pr.summaries.get(policy, Metric::TotalCost).map(|r| r.summary).expect("every policy has a cost");
            let mut reasons = Vec::new();
            let mut worst: f64 = 0.0;
            let mut margins = Vec::new();
            for t in targets {
                let s = pr.summaries.get(policy, t.metric).map(|r| r.summary).expect("every metric is summarised");
                let (reason, violation, margin) = judge(t, &s);
                worst = worst.max(violation);
                margins.push((*t, margin));
                reasons.extend(reason);
            }
            verdicts.push(Verdict {
                point: pr.point,
                label: pr.label.clone(),
                policy: policy.to_string(),
                cost,
                reasons,
                worst_violation: worst,
                margins,
            });
        }
    }
    verdicts.sort_by(|a, b| a.cost.mean.total_cmp(&b.cost.mean).then(a.point.cmp(&b.point)));
    let (ok, ruled_out): (Vec<Verdict>, Vec<Verdict>) = verdicts.into_iter().partition(|v| v.reasons.is_empty());
    let chosen = ok.into_iter().next();
    let closest = if chosen.is_none() {
        ruled_out
            .iter()
            .min_by(|a, b| a.worst_violation.total_cmp(&b.worst_violation).then(a.cost.mean.total_cmp(&b.cost.mean)))
            .cloned()
    } else {
        None
    };
    Recommendation { targets: targets.to_vec(), chosen, ruled_out, closest }
}

/// The recommendation as text, listing at most `limit` groups of ruled-out candidates.
pub fn render(r: &Recommendation, limit: usize) -> String {
    let targets: Vec<String> = r.targets.iter().map(|t| t.to_string()).collect();
    let mut out = format!("Recommendation for {} (each with 95% confidence):\n", targets.join(" and "));
    match &r.chosen {
        Some(v) => {
            out.push_str(&format!(
                "  choose policy '{}' at {}: total cost {:.0} ± {:.0} CNY\n",
                v.policy, v.label, v.cost.mean, v.cost.half_width
            ));
            for (t, m) in &v.margins {
                out.push_str(&format!("    {t}: met with a margin of {m:.4} (CI bound to target)\n"));
            }
        }
        None => {
            out.push_str("  no point and policy meets every target with 95% confidence.\n");
            if let Some(c) = &r.closest {
                out.push_str(&format!(
                    "  closest: policy '{}' at {} (total cost {:.0} ± {:.0} CNY): {}\n",
                    c.policy,
                    c.label,
                    c.cost.mean,
                    c.cost.half_width,
                    c.reasons.join("; ")
                ));
            }
        }
    }
    if !r.ruled_out.is_empty() {
        // A policy the sweep does not touch fails the same way at every point: say it once.
        let mut groups: Vec<(String, String, f64, Vec<&str>)> = Vec::new();
        for v in &r.ruled_out {
            let why = v.reasons.join("; ");
            match groups.iter_mut().find(|g| g.0 == v.policy && g.1 == why && g.2 == v.cost.mean) {
                Some(g) => g.3.push(&v.label),
                None => groups.push((v.policy.clone(), why, v.cost.mean, vec![&v.label])),
            }
        }
        let points = {
            let mut l: Vec<&str> =
                r.ruled_out.iter().map(|v| v.label.as_str()).chain(r.chosen.iter().map(|v| v.label.as_str())).collect();
            l.sort_unstable();
            l.dedup();
            l.len()
        };
        out.push_str(&format!("  ruled out ({} point-policy pairs), cheapest first:\n", r.ruled_out.len()));
        for (policy, why, cost, labels) in groups.iter().take(limit) {
            let at = if labels.len() > 1 && labels.len() == points {
                "at every point".to_string()
            } else if labels.len() > 1 {
                format!("at {} points ({} …)", labels.len(), labels[0])
            } else {
                format!("at {}", labels[0])
            };
            out.push_str(&format!("    {policy} {at} ({cost:.0} CNY): {why}\n"));
        }
        if groups.len() > limit {
            out.push_str(&format!("    … and {} more (see recommendation.txt)\n", groups.len() - limit));
        }
    }
    out
}

/// Monthly vs hourly rental from the scenario's own prices: for each monthly offer and
/// each hourly offer with at least as much memory, the utilisation above which renting
/// monthly is cheaper per unit of work:
///
/// ```text
/// u* = P_month · speed_hourly / (720 h · P_hour · speed_monthly)
/// ```
/// (a 30-day month is 720 hours; speeds per job kind, transformer and CV).
pub fn break_even_lines(scenario: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for m in scenario.offers.iter().filter(|o| o.billing == BillingMode::Monthly) {
        for h in scenario.offers.iter().filter(|o| o.billing == BillingMode::Hourly && o.vram_gb >= m.vram_gb) {
            if h.price_per_gpu_hour_cny <= 0.0 {
                continue;
            }
            let u = |sm: f64, sh: f64| m.price_per_gpu_month_cny * sh / (720.0 * h.price_per_gpu_hour_cny * sm);
            let (ut, uc) = (u(m.speed_transformer, h.speed_transformer), u(m.speed_cv, h.speed_cv));
            let say = |u: f64| {
                if u >= 1.0 {
                    "never (even fully busy it costs more)".to_string()
                } else {
                    format!("above {:.0}% busy ({:.0} h a month)", u * 100.0, u * 720.0)
                }
            };
            out.push(format!(
                "'{}' (¥{}/GPU-month) vs '{}' (¥{}/GPU-h): monthly is cheaper {} for transformer work, {} for CV work",
                m.name,
                m.price_per_gpu_month_cny,
                h.name,
                h.price_per_gpu_hour_cny,
                say(ut),
                say(uc)
            ));
        }
    }
    out
}

/// Where, along a one-parameter sweep, the mean total costs of policies `a` and `b` cross.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossing {
    /// The parameter value (linear interpolation between neighbouring points).
    pub value: f64,
    /// The policy that is cheaper below it.
    pub cheaper_below: String,
    /// Monthly-GPU utilisation of each policy there (interpolated; NaN without monthly GPUs).
    pub monthly_utilization: (f64, f64),
}

/// Finds the first crossing of the mean total costs of `a` and `b`.
pub fn crossing(points: &[PointResult], values: &[f64], a: &str, b: &str) -> Option<Crossing> {
    let mean = |pr: &PointResult, p: &str, m: Metric| pr.summaries.get(p, m).map_or(f64::NAN, |r| r.summary.mean);
    let diff = |pr: &PointResult| mean(pr, a, Metric::TotalCost) - mean(pr, b, Metric::TotalCost);
    for i in 1..points.len().min(values.len()) {
        let (d0, d1) = (diff(&points[i - 1]), diff(&points[i]));
        if !(d0.is_finite() && d1.is_finite()) || d0.signum() == d1.signum() && d0 != 0.0 {
            continue;
        }
        let f = if d0 == d1 { 0.0 } else { d0 / (d0 - d1) };
        let lerp = |p: &str| {
            let (u0, u1) =
                (mean(&points[i - 1], p, Metric::MonthlyUtilization), mean(&points[i], p, Metric::MonthlyUtilization));
            u0 + (u1 - u0) * f
        };
        return Some(Crossing {
            value: values[i - 1] + (values[i] - values[i - 1]) * f,
            cheaper_below: if d0 < 0.0 { a.to_string() } else { b.to_string() },
            monthly_utilization: (lerp(a), lerp(b)),
        });
    }
    None
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
    fn a_mean_inside_the_target_with_a_ci_outside_is_not_met() {
        let t = Target { metric: Metric::WaitP95, cmp: Cmp::AtMost, value: 24.0 };
        let s = Summary { n: 10, mean: 23.0, std_dev: 2.0, half_width: 1.5 };
        let (reason, violation, _) = judge(&t, &s);
        assert!(reason.unwrap().contains("CI reaches 24.5"));
        assert!(violation > 0.0);
        let s = Summary { n: 10, mean: 22.0, std_dev: 2.0, half_width: 1.5 };
        assert_eq!(judge(&t, &s).0, None);
    }
}
