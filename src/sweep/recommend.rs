//! Choosing a setting from a sweep: the cheapest point and policy that meets every target
//! with 95% confidence, and the monthly-vs-hourly break-even.
//!
//! Two rules, two different statements (docs/STATISTICS.md):
//! - [`Rule::MeanYear`], **a statement about the mean year**: the confidence interval of
//!   the mean over simulated years lies on the right side of every target. About one
//!   simulated year in four can still miss a target chosen this way.
//! - [`Rule::Risk`], **a statement about each year**: the chance that a given year misses
//!   any target is at most `max_miss`, judged by the exact (Clopper–Pearson) upper bound
//!   of the share of simulated years that missed ([`crate::experiment::risk`]).
//!
//! Either way the choice is made among K candidates (distinct point–policy pairs), so each
//! candidate's bound is taken at confidence 1 − 0.05/K (Bonferroni): then, whatever the
//! dependence between candidates (common random numbers make it strong), the chance that
//! *any* candidate that truly fails passes its check is at most 5%, so the chosen one
//! truly meets the targets with at least 95% confidence. One bound per candidate is
//! enough even with several targets: a candidate that truly fails, fails some target, and
//! passing requires that target's bound to be wrong.

mod break_even;

pub use break_even::{Crossing, average_month_hours, break_even_lines, crossing};

use crate::experiment::Summaries;
use crate::experiment::risk::{MissCount, PolicyRisk};
use crate::experiment::summary::SummaryRow;
use crate::metric::Metric;
use crate::stats::binomial::{bonferroni, trials_needed_at_zero, upper_bound};
use crate::stats::{Summary, t_975, t_quantile};

use crate::target::{Cmp, Target};

/// The summaries of one sweep point.
#[derive(Clone, Debug)]
pub struct PointResult {
    /// Index.
    pub point: usize,
    /// `key=value, …`.
    pub label: String,
    /// Its summaries.
    pub summaries: Summaries,
    /// Per policy, the simulated years that missed the targets (empty when the point's
    /// per-year values are not available; [`Rule::Risk`] then cannot judge it).
    pub risk: Vec<PolicyRisk>,
    /// Per policy, the total cost of each simulated year (empty when not available):
    /// regrets are then paired over the years ([`crate::sweep::decide`]).
    pub costs: Vec<YearCosts>,
}

/// One policy's total cost in each simulated year of a point.
#[derive(Clone, Debug, PartialEq)]
pub struct YearCosts {
    /// Policy.
    pub policy: String,
    /// (replication index, total_cost_cny), in file order.
    pub years: Vec<(u64, f64)>,
}

/// How candidates are judged against the targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// The CI of the mean over simulated years meets every target.
    MeanYear,
    /// The chance that a simulated year misses any target is at most `max_miss`.
    Risk {
        /// The largest acceptable chance of a year that misses (e.g. 0.1).
        max_miss: f64,
    },
}

/// Confidence of the whole choice (each candidate's bound is Bonferroni-corrected to it).
pub const FAMILY_CONFIDENCE: f64 = 0.95;

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
    /// Empty when every target is met; else the reasons.
    pub reasons: Vec<String>,
    /// Worst relative violation (0 when met): how far the bound is past the target.
    pub worst_violation: f64,
    /// Mean-year rule: the margin between each target and the CI bound, in the metric's
    /// units (NaN without a CI). Risk rule: one entry per target, each the margin
    /// between `max_miss` and the upper bound of the chance of a miss.
    pub margins: Vec<(Target, f64)>,
    /// Risk rule: the years that missed (None under the mean-year rule, or unknown).
    pub miss: Option<MissCount>,
    /// Risk rule: the corrected upper bound of the chance that a year misses (NaN otherwise).
    pub miss_upper: f64,
    /// The policy's results are the same at every point (the sweep does not touch it):
    /// the text then says so instead of pointing at one point.
    pub same_at_every_point: bool,
}

impl Verdict {
    /// "at x=1", or for a policy the sweep does not change "at any point (the sweep does
    /// not change it; e.g. at x=1)" (charts read the label after the last "at ").
    pub fn at(&self) -> String {
        if self.same_at_every_point {
            format!("at any point (the sweep does not change it; e.g. at {})", self.label)
        } else {
            format!("at {}", self.label)
        }
    }
}

/// With the risk rule and no candidate qualifying: there were too few replications for
/// any candidate to qualify, even one that never missed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TooFewYears {
    /// The most replications any candidate had.
    pub years: usize,
    /// The upper bound of a candidate with zero misses in that many years.
    pub best_possible: f64,
    /// Replications needed for zero misses to qualify (at the corrected confidence).
    pub needed: usize,
}

/// The outcome of a recommendation.
#[derive(Clone, Debug)]
pub struct Recommendation {
    /// The targets.
    pub targets: Vec<Target>,
    /// The rule applied.
    pub rule: Rule,
    /// K: distinct point–policy candidates (a policy the sweep does not change counts once).
    pub candidates: usize,
    /// The confidence of each candidate's bound: 1 − 0.05/K.
    pub confidence_each: f64,
    /// The cheapest candidate meeting every target, if any.
    pub chosen: Option<Verdict>,
    /// Every candidate meeting every target, cheapest first (the first is `chosen`).
    pub met: Vec<Verdict>,
    /// Every candidate that does not meet them, cheapest first.
    pub ruled_out: Vec<Verdict>,
    /// With no candidate meeting them: the one closest to doing so.
    pub closest: Option<Verdict>,
    /// Risk rule, nothing chosen, and even zero misses could not qualify.
    pub too_few: Option<TooFewYears>,
}

fn judge(target: &Target, s: &Summary, confidence: f64) -> (Option<String>, f64, f64) {
    let op = if target.cmp == Cmp::AtMost { "≤" } else { "≥" };
    let name = target.name();
    if s.n == 0 || s.mean.is_nan() {
        return (Some(format!("{name} is undefined here")), f64::INFINITY, f64::NAN);
    }
    if s.n < 2 || s.half_width.is_nan() {
        return (Some(format!("{name}: one replication gives no confidence interval")), f64::INFINITY, f64::NAN);
    }
    // The stored 95% half-width scaled to the corrected level (exact: the same t interval).
    let hw = if confidence == 0.95 {
        s.half_width
    } else {
        s.half_width * t_quantile(0.5 + confidence / 2.0, s.n - 1) / t_975(s.n - 1)
    };
    let bound = if target.cmp == Cmp::AtMost { s.mean + hw } else { s.mean - hw };
    let margin = if target.cmp == Cmp::AtMost { target.value - bound } else { bound - target.value };
    let scale = target.value.abs().max(1e-9);
    if margin >= 0.0 {
        return (None, 0.0, margin);
    }
    let mean_ok = if target.cmp == Cmp::AtMost { s.mean <= target.value } else { s.mean >= target.value };
    let reason = if mean_ok {
        format!(
            "{name}: mean {} meets {op} {} but the {} CI reaches {}",
            target.show(s.mean),
            crate::target::bound_text(target.metric, target.value),
            percent(confidence),
            target.show(bound)
        )
    } else {
        format!(
            "{name}: mean {} misses {op} {}",
            target.show(s.mean),
            crate::target::bound_text(target.metric, target.value)
        )
    };
    (Some(reason), -margin / scale, margin)
}

/// A confidence as a short percentage: 95%, 97.5%, 98.33%, 99.975% (at most two
/// decimals unless that would round to 100%).
fn percent(c: f64) -> String {
    let p = c * 100.0;
    let exact = |d: i32| ((p * 10f64.powi(d)).round() - p * 10f64.powi(d)).abs() < 1e-6;
    let d = (0..6)
        .find(|&d| exact(d) || (d >= 2 && format!("{p:.*}", d as usize) != format!("{:.*}", d as usize, 100.0)))
        .unwrap_or(6);
    format!("{p:.*}%", d as usize)
}

fn share(v: f64) -> String {
    let p = v * 100.0;
    if p != 0.0 && p.abs() < 1.0 { format!("{p:.2}%") } else { format!("{p:.1}%") }
}

/// How the years missed, in words: "missed in 3 of 20 years (15.0%, 95% CI 3.2–37.9%)".
pub fn describe_misses(c: &MissCount) -> String {
    let (lo, hi) = c.ci95();
    let undefined = if c.undefined > 0 {
        format!(", {} of them with a target metric undefined", c.undefined)
    } else {
        String::new()
    };
    format!(
        "missed in {} of {} years ({}, 95% CI {}–{}{undefined})",
        c.missed,
        c.years,
        share(c.share()),
        share(lo),
        share(hi)
    )
}

fn judge_risk(count: Option<&MissCount>, max_miss: f64, confidence: f64) -> (Option<String>, f64, f64) {
    let Some(c) = count else {
        return (
            Some("no per-year values stored for this point (written by an older burstsim); rerun the sweep without --resume".into()),
            f64::INFINITY,
            f64::NAN,
        );
    };
    let upper = c.upper(confidence);
    if upper <= max_miss {
        return (None, 0.0, upper);
    }
    let reason = format!(
        "{}; the chance of a miss may be up to {} ({} bound) > {}",
        describe_misses(c),
        share(upper),
        percent(confidence),
        share(max_miss)
    );
    (Some(reason), (upper - max_miss) / max_miss, upper)
}

/// The summary of a target's metric for `policy`: the headline metric, or for a class
/// target the class's row of `classes.csv` (undefined, n = 0, when the class is absent).
///
/// # Panics
/// If a headline metric is not summarised.
pub fn target_summary(s: &Summaries, policy: &str, t: &Target) -> Summary {
    match &t.class {
        None => s.get(policy, t.metric).map(|r| r.summary).expect("every metric is summarised"),
        Some(class) => s
            .classes
            .iter()
            .find(|r| r.policy == policy && &r.class == class && r.metric == t.metric.name())
            .map_or(Summary { n: 0, mean: f64::NAN, std_dev: f64::NAN, half_width: f64::NAN }, |r| r.summary),
    }
}

/// Whether two policies' summaries are the same simulation's (NaN, for a metric that is
/// undefined, equals NaN here).
pub(crate) fn same_rows(a: &[&SummaryRow], b: &[&SummaryRow]) -> bool {
    let bits = |s: &Summary| (s.n, s.mean.to_bits(), s.std_dev.to_bits(), s.half_width.to_bits());
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.metric == y.metric && bits(&x.summary) == bits(&y.summary))
}

/// The cheapest (mean `total_cost_cny`) point and policy that meets every target under
/// `rule`, with the Bonferroni correction over the distinct candidates.
///
/// # Panics
/// If a policy lacks a summary of `total_cost_cny` or of a target's metric.
pub fn recommend(points: &[PointResult], targets: &[Target], rule: Rule) -> Recommendation {
    // Candidates, and which of them are the same simulation (a policy the sweep does not
    // touch has identical results at every point; it is one hypothesis, not many).
    let mut candidates: Vec<(&PointResult, &str)> = Vec::new();
    let mut distinct: Vec<(&str, Vec<&SummaryRow>)> = Vec::new();
    for pr in points {
        let mut policies: Vec<&str> = pr.summaries.rows.iter().map(|r| r.policy.as_str()).collect();
        policies.dedup();
        for policy in policies {
            let rows: Vec<&SummaryRow> = pr.summaries.rows.iter().filter(|r| r.policy == policy).collect();
            if !distinct.iter().any(|(p, r)| *p == policy && same_rows(r, &rows)) {
                distinct.push((policy, rows));
            }
            candidates.push((pr, policy));
        }
    }
    let k = distinct.len().max(1);
    let same_everywhere = |policy: &str| points.len() > 1 && distinct.iter().filter(|(p, _)| *p == policy).count() == 1;
    let confidence = bonferroni(FAMILY_CONFIDENCE, k);
    let mut verdicts = Vec::new();
    for (pr, policy) in candidates {
        let cost = pr.summaries.get(policy, Metric::TotalCost).map(|r| r.summary).expect("every policy has a cost");
        let mut reasons = Vec::new();
        let mut worst: f64 = 0.0;
        let mut margins = Vec::new();
        let mut miss = None;
        let mut miss_upper = f64::NAN;
        match rule {
            Rule::MeanYear => {
                for t in targets {
                    let s = target_summary(&pr.summaries, policy, t);
                    let (reason, violation, margin) = judge(t, &s, confidence);
                    worst = worst.max(violation);
                    margins.push((t.clone(), margin));
                    reasons.extend(reason);
                }
            }
            Rule::Risk { max_miss } => {
                miss = pr.risk.iter().find(|r| r.policy == policy).map(|r| r.count);
                let (reason, violation, upper) = judge_risk(miss.as_ref(), max_miss, confidence);
                worst = violation;
                miss_upper = upper;
                margins = targets.iter().map(|t| (t.clone(), max_miss - upper)).collect();
                reasons.extend(reason);
            }
        }
        verdicts.push(Verdict {
            point: pr.point,
            label: pr.label.clone(),
            policy: policy.to_string(),
            cost,
            reasons,
            worst_violation: worst,
            margins,
            miss,
            miss_upper,
            same_at_every_point: same_everywhere(policy),
        });
    }
    verdicts.sort_by(|a, b| a.cost.mean.total_cmp(&b.cost.mean).then(a.point.cmp(&b.point)));
    let (ok, ruled_out): (Vec<Verdict>, Vec<Verdict>) = verdicts.into_iter().partition(|v| v.reasons.is_empty());
    let chosen = ok.first().cloned();
    let closest = if chosen.is_none() {
        ruled_out
            .iter()
            .min_by(|a, b| a.worst_violation.total_cmp(&b.worst_violation).then(a.cost.mean.total_cmp(&b.cost.mean)))
            .cloned()
    } else {
        None
    };
    let too_few = match rule {
        Rule::Risk { max_miss } if chosen.is_none() => {
            let years = ruled_out.iter().filter_map(|v| v.miss.map(|m| m.years)).max().unwrap_or(0);
            let best_possible = upper_bound(0, years, confidence);
            (best_possible > max_miss).then(|| TooFewYears {
                years,
                best_possible,
                needed: trials_needed_at_zero(max_miss, confidence),
            })
        }
        _ => None,
    };
    Recommendation {
        targets: targets.to_vec(),
        rule,
        candidates: k,
        confidence_each: confidence,
        chosen,
        met: ok,
        ruled_out,
        closest,
        too_few,
    }
}

/// The recommendation as text, listing at most `limit` groups of ruled-out candidates.
pub fn render(r: &Recommendation, limit: usize) -> String {
    let targets: Vec<String> = r.targets.iter().map(|t| t.to_string()).collect();
    let correction = if r.candidates > 1 {
        format!(
            "95% confidence for the choice among {} candidates: each bound at {} (Bonferroni)",
            r.candidates,
            percent(r.confidence_each)
        )
    } else {
        "95% confidence".to_string()
    };
    let mut out = match r.rule {
        Rule::MeanYear => {
            format!("Recommendation for {}, a statement about the mean year ({correction}):\n", targets.join(" and "))
        }
        Rule::Risk { max_miss } => format!(
            "Recommendation for {} in a given year, at most a {} chance of a year that misses ({correction}):\n",
            targets.join(" and "),
            share(max_miss)
        ),
    };
    match &r.chosen {
        Some(v) => {
            out.push_str(&format!(
                "  choose policy '{}' {}: total cost {:.0} ± {:.0} CNY\n",
                v.policy,
                v.at(),
                v.cost.mean,
                v.cost.half_width
            ));
            match (r.rule, &v.miss) {
                (Rule::Risk { .. }, Some(m)) => out.push_str(&format!(
                    "    {}; the chance that a year misses is at most {} ({} bound)\n",
                    describe_misses(m),
                    share(v.miss_upper),
                    percent(r.confidence_each)
                )),
                _ => {
                    for (t, m) in &v.margins {
                        out.push_str(&format!("    {t}: met with a margin of {m:.4} (CI bound to target)\n"));
                    }
                }
            }
        }
        None => {
            let what = match r.rule {
                Rule::MeanYear => "meets every target".to_string(),
                Rule::Risk { max_miss } => {
                    format!("keeps the chance of a year that misses at or below {}", share(max_miss))
                }
            };
            out.push_str(&format!("  no point and policy {what} with 95% confidence.\n"));
            if let Some(t) = &r.too_few {
                out.push_str(&format!(
                    "  too few replications for any candidate to qualify: even zero misses in {} years only bound the chance of a miss by {} ({} bound); \
                     at zero misses {} replications are needed (with the correction for {} candidates): rerun with -n {}\n",
                    t.years,
                    share(t.best_possible),
                    percent(r.confidence_each),
                    t.needed,
                    r.candidates,
                    t.needed
                ));
            }
            if let Some(c) = &r.closest {
                out.push_str(&format!(
                    "  closest: policy '{}' {} (total cost {:.0} ± {:.0} CNY): {}\n",
                    c.policy,
                    c.at(),
                    c.cost.mean,
                    c.cost.half_width,
                    c.reasons.join("; ")
                ));
            }
        }
    }
    if !r.ruled_out.is_empty() && limit > 0 {
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

/// One paragraph saying what the other rule would choose, for comparison (it never starts
/// with "choose policy", so charts mark only the primary rule's choice).
pub fn render_comparison(r: &Recommendation) -> String {
    let what = match r.rule {
        Rule::MeanYear => "The mean-year rule (a statement about the mean year: the CI of the mean meets each target)",
        Rule::Risk { .. } => "The risk rule (a statement about each year)",
    };
    match &r.chosen {
        Some(v) => format!(
            "{what}, with the same correction, would choose policy '{}' {} (total cost {:.0} ± {:.0} CNY).\n",
            v.policy,
            v.at(),
            v.cost.mean,
            v.cost.half_width
        ),
        None => format!("{what}, with the same correction, would choose nothing.\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::summary::YearSpread;
    use crate::target::parse_target;

    #[test]
    fn a_mean_inside_the_target_with_a_ci_outside_is_not_met() {
        let t = Target { class: None, metric: Metric::WaitP95, cmp: Cmp::AtMost, value: 24.0 };
        let s = Summary { n: 10, mean: 23.0, std_dev: 2.0, half_width: 1.5 };
        let (reason, violation, _) = judge(&t, &s, 0.95);
        assert!(reason.unwrap().contains("95% CI reaches 24.5"));
        assert!(violation > 0.0);
        let s = Summary { n: 10, mean: 22.0, std_dev: 2.0, half_width: 1.5 };
        assert_eq!(judge(&t, &s, 0.95).0, None);
        // At 99% the same interval is wider by t(0.995, 9) / t(0.975, 9) = 3.2498 / 2.2622.
        let (reason, _, margin) = judge(&t, &s, 0.99);
        assert!(reason.unwrap().contains("99% CI reaches 24.15"), "{margin}");
    }

    fn summary(mean: f64, half_width: f64, n: usize) -> Summary {
        Summary { n, mean, std_dev: half_width * (n as f64).sqrt() / t_975(n - 1), half_width }
    }

    /// A point with one policy `p`: its mean cost, its p95 wait (mean ± 95% half-width)
    /// and how many of `n` years missed `wait_p95_h<=2`.
    fn point(i: usize, policy: &str, cost: f64, p95: (f64, f64), missed: usize, n: usize) -> PointResult {
        let row = |metric, summary| SummaryRow {
            policy: policy.into(),
            metric,
            summary,
            unstable_replications: 0,
            years: YearSpread::UNKNOWN,
        };
        PointResult {
            point: i,
            label: format!("x={i}"),
            summaries: Summaries {
                rows: vec![
                    row(Metric::TotalCost, summary(cost, 100.0, n)),
                    row(Metric::WaitP95, summary(p95.0, p95.1, n)),
                ],
                paired: Vec::new(),
                classes: Vec::new(),
                seasons: Vec::new(),
            },
            risk: vec![PolicyRisk { policy: policy.into(), count: MissCount { years: n, missed, undefined: 0 } }],
            costs: Vec::new(),
        }
    }

    fn target() -> Vec<Target> {
        vec![parse_target("wait_p95_h<=2").unwrap()]
    }

    /// Issue 27, item 13: "choose policy 'campus-only' at x=0" read as if x mattered to it.
    #[test]
    fn a_policy_the_sweep_does_not_change_is_chosen_at_any_point() {
        let points = [point(0, "c", 500.0, (1.0, 0.1), 0, 40), point(1, "c", 500.0, (1.0, 0.1), 0, 40)];
        let text = render(&recommend(&points, &target(), Rule::MeanYear), 12);
        assert!(text.contains("choose policy 'c' at any point (the sweep does not change it; e.g. at x=0):"), "{text}");
        let moved = [point(0, "c", 500.0, (1.0, 0.1), 0, 40), point(1, "c", 600.0, (1.0, 0.1), 0, 40)];
        let text = render(&recommend(&moved, &target(), Rule::MeanYear), 12);
        assert!(text.contains("choose policy 'c' at x=0:"), "{text}");
    }

    #[test]
    fn the_mean_year_rule_and_the_risk_rule_choose_different_points() {
        // x=0: cheap, the mean p95 wait is safely under 2 h, but 8 of 40 years exceed it.
        // x=1: dearer, and no year in 40 exceeded 2 h.
        let points = [point(0, "p", 1000.0, (1.5, 0.2), 8, 40), point(1, "p", 2000.0, (1.0, 0.1), 0, 40)];
        let mean = recommend(&points, &target(), Rule::MeanYear);
        assert_eq!(mean.candidates, 2);
        assert_eq!(mean.chosen.as_ref().map(|v| v.point), Some(0));
        let risk = recommend(&points, &target(), Rule::Risk { max_miss: 0.1 });
        let chosen = risk.chosen.as_ref().expect("x=1 qualifies");
        assert_eq!(chosen.point, 1);
        // Zero misses in 40 years at 97.5% (Bonferroni, K = 2): 1 − 0.025^(1/40) = 0.0881.
        assert!((chosen.miss_upper - 0.088_11).abs() < 1e-4, "{}", chosen.miss_upper);
        let why = &risk.ruled_out[0].reasons[0];
        assert!(why.contains("missed in 8 of 40 years (20.0%"), "{why}");
        let text = render(&risk, 12);
        assert!(
            text.contains("each bound at 97.5% (Bonferroni)") && text.contains("choose policy 'p' at x=1"),
            "{text}"
        );
        assert!(render(&mean, 12).contains("a statement about the mean year"));
    }

    #[test]
    fn the_bonferroni_correction_changes_the_choice() {
        // x=0's 95% CI of the mean ends at 1.99 h: it passes alone, uncorrected.
        let cheap = point(0, "p", 1000.0, (1.9, 0.09), 0, 10);
        let t = target();
        assert_eq!(judge(&t[0], &cheap.summaries.rows[1].summary, 0.95).0, None);
        assert_eq!(recommend(std::slice::from_ref(&cheap), &t, Rule::MeanYear).chosen.map(|v| v.point), Some(0));
        // Among three candidates each CI is taken at 98.33%: x=0's reaches about 2.02 h
        // and the next cheapest, x=1, is chosen instead.
        let points = [cheap, point(1, "p", 1500.0, (1.0, 0.1), 0, 10), point(2, "p", 3000.0, (0.5, 0.1), 0, 10)];
        let r = recommend(&points, &t, Rule::MeanYear);
        assert_eq!(r.candidates, 3);
        assert!((r.confidence_each - (1.0 - 0.05 / 3.0)).abs() < 1e-12);
        assert_eq!(r.chosen.map(|v| v.point), Some(1));
        assert!(r.ruled_out[0].reasons[0].contains("98.33% CI reaches 2.0167"), "{:?}", r.ruled_out[0].reasons);
    }

    #[test]
    fn confidences_print_short() {
        assert_eq!(percent(0.95), "95%");
        assert_eq!(percent(0.975), "97.5%");
        assert_eq!(percent(1.0 - 0.05 / 3.0), "98.33%");
        assert_eq!(percent(0.9975), "99.75%");
        assert_eq!(percent(1.0 - 0.05 / 1000.0), "99.995%");
        assert_eq!(percent(1.0 - 0.05 / 30_000.0), "99.9998%");
    }

    #[test]
    fn a_policy_the_sweep_does_not_change_is_one_candidate() {
        let same = |i| {
            let mut p = point(i, "campus-only", 500.0, (5.0, 0.5), 20, 20);
            let nan = Summary { n: 0, mean: f64::NAN, std_dev: f64::NAN, half_width: f64::NAN };
            let row = SummaryRow {
                policy: "campus-only".into(),
                metric: Metric::MonthlyUtilization,
                summary: nan,
                unstable_replications: 0,
                years: YearSpread::UNKNOWN,
            };
            p.summaries.rows.push(row);
            p
        };
        let mut a = point(0, "burst", 1000.0, (1.0, 0.1), 0, 20);
        let b = point(1, "burst", 1200.0, (0.9, 0.1), 0, 20);
        // Two policies per point: campus-only (identical at both points) and burst.
        let mut b2 = b.clone();
        for (pr, extra) in [(&mut a, same(0)), (&mut b2, same(1))] {
            pr.summaries.rows.splice(0..0, extra.summaries.rows);
            pr.risk.extend(extra.risk);
        }
        let r = recommend(&[a, b2], &target(), Rule::MeanYear);
        assert_eq!(r.candidates, 3, "campus-only once, burst at two points");
    }

    #[test]
    fn too_few_years_says_how_many_are_needed() {
        // Zero misses in 10 years bound the chance of a miss by 0.259 > 0.1 (95%, K = 1).
        let r = recommend(&[point(0, "p", 1000.0, (0.5, 0.1), 0, 10)], &target(), Rule::Risk { max_miss: 0.1 });
        assert!(r.chosen.is_none());
        let t = r.too_few.expect("too few years");
        assert_eq!((t.years, t.needed), (10, 29));
        assert!((t.best_possible - 0.258_866).abs() < 1e-6);
        let text = render(&r, 12);
        assert!(text.contains("29 replications are needed") && text.contains("-n 29"), "{text}");
        // With 20 candidates each bound is at 99.75%: 57 replications at zero misses.
        let points: Vec<PointResult> = (0..20).map(|i| point(i, "p", 1000.0 + i as f64, (0.5, 0.1), 0, 10)).collect();
        let r = recommend(&points, &target(), Rule::Risk { max_miss: 0.1 });
        assert_eq!(r.too_few.map(|t| t.needed), Some(57));
        // Enough years but too many misses is not "too few".
        let r = recommend(&[point(0, "p", 1000.0, (0.5, 0.1), 20, 100)], &target(), Rule::Risk { max_miss: 0.1 });
        assert!(r.chosen.is_none() && r.too_few.is_none());
    }
}
