//! Decisions apart from conditions: the best decision at each scenario point, and a
//! robust choice across them.
//!
//! A sweep's axes are decisions (the group chooses: a threshold, a rental size) or
//! conditions (the group faces: exam intensity, prices). A **scenario point** is one
//! combination of condition values; a **decision** is a policy together with the values
//! of the decision axes that policy depends on (campus-only does not depend on an
//! overflow threshold, so it is one decision, not one per threshold).
//!
//! - **Best decision at each scenario point**: the cheapest (mean total cost) decision
//!   meeting every target under the chosen rule ([`Rule::MeanYear`] or [`Rule::Risk`]),
//!   with the Bonferroni correction over the K candidates *at that scenario point*
//!   ([`recommend::recommend`] on that point's results alone).
//! - **Minimax regret**: regret(d, s) = cost(d, s) − the best feasible cost at s; a
//!   decision that misses the targets at s has infinite regret there (it is never
//!   acceptable), and scenario points where no decision meets the targets are left out
//!   (and named). Choose the decision whose worst regret is smallest.
//! - **Worst-case compliance**: among decisions meeting the targets at every scenario
//!   point, the one whose largest cost over the points is smallest.
//! - **Weighted expected cost** (with weights on condition values): among decisions
//!   meeting the targets at every point of positive weight, the smallest weighted mean
//!   cost.
//!
//! Costs and regrets are compared on their means. Each scenario point's verdicts hold
//! with 95% confidence for that point; "meets the targets at every one of S points"
//! therefore holds with at least 1 − 0.05·S (Bonferroni over the points), which the
//! output states.

mod render;

use std::collections::HashMap;

use super::Role;
use super::recommend::{self, PointResult, Recommendation, Rule, Verdict, same_rows};
use crate::experiment::summary::SummaryRow;
use crate::metrics::Metric;
use crate::stats::Summary;
use crate::target::Target;

/// One swept axis as the analysis sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Key (dotted path or scale-axis name).
    pub key: String,
    /// Decision or condition.
    pub role: Role,
    /// Weights of the values (conditions only).
    pub weights: Option<Vec<f64>>,
}

/// One combination of condition values.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioPoint {
    /// `key=value, …` of the condition axes ("base scenario" without conditions).
    pub label: String,
    /// Values of the condition axes, in axis order.
    pub values: Vec<String>,
    /// Indices (into the analysed points) of the sweep points at this scenario point.
    pub points: Vec<usize>,
    /// Normalised weight (equal when no weights were given).
    pub weight: f64,
}

/// A policy with the values of the decision axes it depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// `overflow (threshold_hours=4)`, or just the policy name.
    pub label: String,
    /// Policy.
    pub policy: String,
    /// Per decision axis: its value, or `None` when the policy does not depend on it.
    pub values: Vec<Option<String>>,
}

/// One decision at one scenario point.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Index of the sweep point (into the analysed points).
    pub point: usize,
    /// The verdict under the rule, with that scenario point's correction.
    pub verdict: Verdict,
}

impl Cell {
    /// Whether it meets every target.
    pub fn feasible(&self) -> bool {
        self.verdict.reasons.is_empty()
    }
}

/// Which robust criterion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// Smallest worst regret.
    MinimaxRegret,
    /// Meets the targets everywhere; smallest worst-case cost.
    WorstCase,
    /// Meets the targets wherever the weight is positive; smallest weighted mean cost.
    WeightedCost,
}

impl Criterion {
    /// The `kind` column of `decisions.csv`.
    pub fn kind(self) -> &'static str {
        match self {
            Criterion::MinimaxRegret => "minimax-regret",
            Criterion::WorstCase => "worst-case",
            Criterion::WeightedCost => "weighted-cost",
        }
    }
}

/// A robust choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Robust {
    /// The criterion.
    pub criterion: Criterion,
    /// The decision chosen.
    pub decision: usize,
    /// Its worst regret, worst-case cost or weighted mean cost (CNY).
    pub value: f64,
    /// The scenario point of the worst regret or cost.
    pub at: Option<usize>,
}

/// The whole analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The targets.
    pub targets: Vec<Target>,
    /// The rule.
    pub rule: Rule,
    /// Keys of the condition axes.
    pub condition_keys: Vec<String>,
    /// Keys of the decision axes.
    pub decision_keys: Vec<String>,
    /// Scenario points, in sweep order.
    pub scenarios: Vec<ScenarioPoint>,
    /// Decisions, by policy then by the decision values' order.
    pub decisions: Vec<Decision>,
    /// `cells[d][s]`: decision `d` at scenario point `s`.
    pub cells: Vec<Vec<Option<Cell>>>,
    /// Per scenario point, the recommendation among its candidates.
    pub per_scenario: Vec<Recommendation>,
    /// Per scenario point, the best decision (None: no decision meets the targets).
    pub best: Vec<Option<usize>>,
    /// Minimax regret, if any decision has a finite worst regret.
    pub minimax: Option<Robust>,
    /// Worst-case compliance, if some decision meets the targets everywhere.
    pub worst_case: Option<Robust>,
    /// Weighted expected cost (only when weights were given).
    pub weighted: Option<Robust>,
    /// Whether weights were given.
    pub weights_given: bool,
}

fn rows_of<'a>(pr: &'a PointResult, policy: &str) -> Vec<&'a SummaryRow> {
    pr.summaries.rows.iter().filter(|r| r.policy == policy).collect()
}

/// The last part of a key worth showing in a decision label: `threshold_hours` for
/// `policies.overflow.threshold_hours` (decision of policy `overflow`), else the last two
/// parts (`a800-monthly.gpus`).
fn short_key(key: &str, policy: &str) -> String {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.len() >= 3 && parts[0] == "policies" && parts[1] == policy {
        return parts[2..].join(".");
    }
    if parts.len() >= 2 { parts[parts.len() - 2..].join(".") } else { key.to_string() }
}

/// Analyses a sweep: `axes` in parameter order, `values[i]` the values of point `i`
/// (parallel with `points`).
///
/// # Panics
/// If `values` and `points` differ in length, or a point lacks a cost.
pub fn analyse(
    axes: &[Axis],
    values: &[Vec<String>],
    points: &[PointResult],
    targets: &[Target],
    rule: Rule,
) -> Analysis {
    assert_eq!(values.len(), points.len(), "one list of values per point");
    let cond: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].role == Role::Condition).collect();
    let dec: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].role == Role::Decision).collect();

    // Scenario points, in order of first appearance.
    let mut scenarios: Vec<ScenarioPoint> = Vec::new();
    let mut scenario_of = vec![0; points.len()];
    for (i, v) in values.iter().enumerate() {
        let cv: Vec<String> = cond.iter().map(|&a| v[a].clone()).collect();
        let s = match scenarios.iter().position(|s| s.values == cv) {
            Some(s) => s,
            None => {
                let label = if cond.is_empty() {
                    "base scenario".to_string()
                } else {
                    cond.iter().zip(&cv).map(|(&a, x)| format!("{}={x}", axes[a].key)).collect::<Vec<_>>().join(", ")
                };
                scenarios.push(ScenarioPoint { label, values: cv, points: Vec::new(), weight: 1.0 });
                scenarios.len() - 1
            }
        };
        scenarios[s].points.push(i);
        scenario_of[i] = s;
    }
    // Weights: the product over condition axes of each value's weight, normalised.
    let weights_given = cond.iter().any(|&a| axes[a].weights.is_some());
    let value_order = |a: usize| -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for v in values {
            if !seen.contains(&v[a]) {
                seen.push(v[a].clone());
            }
        }
        seen
    };
    for (k, &a) in cond.iter().enumerate() {
        if let Some(w) = &axes[a].weights {
            let order = value_order(a);
            for s in &mut scenarios {
                let i = order.iter().position(|x| *x == s.values[k]).unwrap_or(0);
                s.weight *= w.get(i).copied().unwrap_or(0.0);
            }
        }
    }
    let total: f64 = scenarios.iter().map(|s| s.weight).sum();
    for s in &mut scenarios {
        s.weight = if total > 0.0 { s.weight / total } else { 0.0 };
    }

    // Which decision axes each policy depends on: its results differ between two points
    // that differ only in that axis.
    let mut policies: Vec<String> = Vec::new();
    for pr in points {
        for r in &pr.summaries.rows {
            if !policies.contains(&r.policy) {
                policies.push(r.policy.clone());
            }
        }
    }
    let mut depends: HashMap<(String, usize), bool> = HashMap::new();
    for &a in &dec {
        let mut groups: HashMap<Vec<&str>, usize> = HashMap::new();
        for (i, v) in values.iter().enumerate() {
            let rest: Vec<&str> = v.iter().enumerate().filter(|(b, _)| *b != a).map(|(_, x)| x.as_str()).collect();
            let first = *groups.entry(rest).or_insert(i);
            for p in &policies {
                if !same_rows(&rows_of(&points[first], p), &rows_of(&points[i], p)) {
                    depends.insert((p.clone(), a), true);
                }
            }
        }
    }
    let decision_values = |i: usize, policy: &str| -> Vec<Option<String>> {
        dec.iter().map(|&a| depends.get(&(policy.to_string(), a)).map(|_| values[i][a].clone())).collect()
    };
    // Decisions, ordered by policy and then by the values' order on each axis.
    let mut decisions: Vec<Decision> = Vec::new();
    for (i, pr) in points.iter().enumerate() {
        for p in &policies {
            if pr.summaries.get(p, Metric::TotalCost).is_none() {
                continue;
            }
            let v = decision_values(i, p);
            if !decisions.iter().any(|d| &d.policy == p && d.values == v) {
                let shown: Vec<String> = dec
                    .iter()
                    .zip(&v)
                    .filter_map(|(&a, x)| x.as_ref().map(|x| format!("{}={x}", short_key(&axes[a].key, p))))
                    .collect();
                let label = if shown.is_empty() { p.clone() } else { format!("{p} ({})", shown.join(", ")) };
                decisions.push(Decision { label, policy: p.clone(), values: v });
            }
        }
    }
    let orders: Vec<Vec<String>> = dec.iter().map(|&a| value_order(a)).collect();
    let rank = |d: &Decision| -> Vec<usize> {
        let mut r = vec![policies.iter().position(|p| *p == d.policy).unwrap_or(0)];
        for (k, v) in d.values.iter().enumerate() {
            r.push(v.as_ref().map_or(0, |x| orders[k].iter().position(|o| o == x).unwrap_or(0) + 1));
        }
        r
    };
    decisions.sort_by_key(|d| rank(d));
    let decision_of = |i: usize, policy: &str| -> Option<usize> {
        let v = decision_values(i, policy);
        decisions.iter().position(|d| d.policy == policy && d.values == v)
    };

    // Each scenario point on its own: its candidates, its correction, its best decision.
    let index_of: HashMap<usize, usize> = points.iter().enumerate().map(|(i, pr)| (pr.point, i)).collect();
    let mut cells: Vec<Vec<Option<Cell>>> = vec![vec![None; scenarios.len()]; decisions.len()];
    let mut per_scenario = Vec::new();
    let mut best = Vec::new();
    for (s, sp) in scenarios.iter().enumerate() {
        let subset: Vec<PointResult> = sp.points.iter().map(|&i| points[i].clone()).collect();
        let rec = recommend::recommend(&subset, targets, rule);
        for v in rec.met.iter().chain(&rec.ruled_out) {
            let i = index_of[&v.point];
            if let Some(d) = decision_of(i, &v.policy)
                && cells[d][s].is_none()
            {
                cells[d][s] = Some(Cell { point: i, verdict: v.clone() });
            }
        }
        best.push(rec.chosen.as_ref().and_then(|v| decision_of(index_of[&v.point], &v.policy)));
        per_scenario.push(rec);
    }
    let _ = scenario_of;

    let cost = |d: usize, s: usize| cells[d][s].as_ref().map_or(f64::NAN, |c| c.verdict.cost.mean);
    let feasible = |d: usize, s: usize| cells[d][s].as_ref().is_some_and(Cell::feasible);
    let best_cost: Vec<Option<f64>> = best.iter().enumerate().map(|(s, b)| b.map(|d| cost(d, s))).collect();
    // The smallest value wins; ties go to the smaller mean cost over the points, then
    // to the earlier decision.
    let mean_cost = |d: usize| (0..scenarios.len()).map(|s| cost(d, s)).sum::<f64>() / scenarios.len().max(1) as f64;
    let pick = |criterion: Criterion, scored: Vec<(usize, f64, Option<usize>)>| -> Option<Robust> {
        scored
            .into_iter()
            .filter(|x| x.1.is_finite())
            .min_by(|a, b| a.1.total_cmp(&b.1).then(mean_cost(a.0).total_cmp(&mean_cost(b.0))).then(a.0.cmp(&b.0)))
            .map(|(decision, value, at)| Robust { criterion, decision, value, at })
    };
    let minimax = if best_cost.iter().all(Option::is_none) {
        None
    } else {
        let scored = (0..decisions.len())
            .map(|d| {
                let mut worst = (0.0, None);
                for (s, b) in best_cost.iter().enumerate() {
                    let Some(b) = b else { continue };
                    let r = if feasible(d, s) { cost(d, s) - b } else { f64::INFINITY };
                    if worst.1.is_none() || r > worst.0 {
                        worst = (r, Some(s));
                    }
                }
                (d, worst.0, worst.1)
            })
            .collect();
        pick(Criterion::MinimaxRegret, scored)
    };
    let worst_over = |d: usize, inside: &dyn Fn(usize) -> bool| -> (f64, Option<usize>) {
        let mut worst = (f64::NEG_INFINITY, None);
        for s in (0..scenarios.len()).filter(|&s| inside(s)) {
            if !feasible(d, s) {
                return (f64::INFINITY, Some(s));
            }
            if cost(d, s) > worst.0 {
                worst = (cost(d, s), Some(s));
            }
        }
        worst
    };
    let worst_case = pick(
        Criterion::WorstCase,
        (0..decisions.len())
            .map(|d| {
                let (v, at) = worst_over(d, &|_| true);
                (d, v, at)
            })
            .collect(),
    );
    let weighted = if weights_given {
        let scored = (0..decisions.len())
            .map(|d| {
                let (w, _) = worst_over(d, &|s| scenarios[s].weight > 0.0);
                let v = if w.is_finite() {
                    scenarios
                        .iter()
                        .enumerate()
                        .filter(|(_, sp)| sp.weight > 0.0)
                        .map(|(s, sp)| sp.weight * cost(d, s))
                        .sum()
                } else {
                    f64::INFINITY
                };
                (d, v, None)
            })
            .collect();
        pick(Criterion::WeightedCost, scored)
    } else {
        None
    };
    Analysis {
        targets: targets.to_vec(),
        rule,
        condition_keys: cond.iter().map(|&a| axes[a].key.clone()).collect(),
        decision_keys: dec.iter().map(|&a| axes[a].key.clone()).collect(),
        scenarios,
        decisions,
        cells,
        per_scenario,
        best,
        minimax,
        worst_case,
        weighted,
        weights_given,
    }
}

impl Analysis {
    /// The summary of `metric` (or a class target's metric) of decision `d` at scenario `s`.
    pub fn summary(&self, points: &[PointResult], d: usize, s: usize, t: &Target) -> Option<Summary> {
        let c = self.cells[d][s].as_ref()?;
        Some(recommend::target_summary(&points[c.point].summaries, &self.decisions[d].policy, t))
    }

    /// The metrics shown beside the cost: the targets', then the mean and p95 waits.
    pub fn shown_metrics(&self) -> Vec<Target> {
        let mut out: Vec<Target> = Vec::new();
        let plain = |m| Target { class: None, metric: m, cmp: crate::target::Cmp::AtMost, value: f64::NAN };
        for t in self.targets.iter().cloned().chain([plain(Metric::WaitMean), plain(Metric::WaitP95)]) {
            if t.metric != Metric::TotalCost && !out.iter().any(|o| o.name() == t.name()) {
                out.push(t);
            }
        }
        out
    }

    /// The confidence of "meets the targets at every scenario point" (Bonferroni over the
    /// points, each at 95%).
    pub fn joint_confidence(&self) -> f64 {
        (1.0 - (1.0 - recommend::FAMILY_CONFIDENCE) * self.scenarios.len() as f64).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Summaries;
    use crate::stats::t_975;
    use crate::target::parse_target;

    fn summary(mean: f64, half_width: f64) -> Summary {
        let n = 20;
        Summary { n, mean, std_dev: half_width * (n as f64).sqrt() / t_975(n - 1), half_width }
    }

    /// A sweep point with policies given as (name, cost, p95 wait); half-widths small.
    fn point(i: usize, policies: &[(&str, f64, f64)]) -> PointResult {
        let mut rows = Vec::new();
        for &(p, cost, p95) in policies {
            let row = |metric, summary| SummaryRow { policy: p.into(), metric, summary, unstable_replications: 0 };
            rows.push(row(Metric::TotalCost, summary(cost, 10.0)));
            rows.push(row(Metric::WaitMean, summary(p95 / 3.0, 0.01)));
            rows.push(row(Metric::WaitP95, summary(p95, 0.01)));
        }
        PointResult {
            point: i,
            label: format!("point {i}"),
            summaries: Summaries { rows, paired: Vec::new(), classes: Vec::new(), seasons: Vec::new() },
            risk: Vec::new(),
        }
    }

    fn axes() -> Vec<Axis> {
        vec![
            Axis { key: "exam".into(), role: Role::Condition, weights: None },
            Axis { key: "policies.overflow.threshold_hours".into(), role: Role::Decision, weights: None },
        ]
    }

    /// exam ∈ {1, 1.3} × threshold ∈ {4, 12}; campus-only is the same at both thresholds
    /// of one exam value and always misses `wait_p95_h<=2`.
    fn sweep(costs: [[(f64, f64); 2]; 2]) -> (Vec<Vec<String>>, Vec<PointResult>) {
        let mut values = Vec::new();
        let mut points = Vec::new();
        for (e, exam) in ["1", "1.3"].iter().enumerate() {
            for (t, th) in ["4", "12"].iter().enumerate() {
                let i = points.len();
                let campus = 1000.0 + 100.0 * e as f64;
                let (c, w) = costs[e][t];
                points.push(point(i, &[("campus-only", campus, 30.0 + e as f64), ("overflow", c, w)]));
                values.push(vec![exam.to_string(), th.to_string()]);
            }
        }
        (values, points)
    }

    #[test]
    fn the_best_decision_differs_between_scenario_points() {
        // Light exams: threshold 12 is cheaper and meets 2 h. Heavy exams: only 4 does.
        let (values, points) = sweep([[(5000.0, 1.0), (4000.0, 1.5)], [(6000.0, 1.2), (4500.0, 3.0)]]);
        let t = vec![parse_target("wait_p95_h<=2").unwrap()];
        let a = analyse(&axes(), &values, &points, &t, Rule::MeanYear);
        assert_eq!(a.scenarios.len(), 2);
        let labels: Vec<&str> = a.decisions.iter().map(|d| d.label.as_str()).collect();
        assert_eq!(labels, ["campus-only", "overflow (threshold_hours=4)", "overflow (threshold_hours=12)"]);
        let best: Vec<&str> = a.best.iter().map(|b| a.decisions[b.unwrap()].label.as_str()).collect();
        assert_eq!(best, ["overflow (threshold_hours=12)", "overflow (threshold_hours=4)"]);
        // Bonferroni over the candidates at each scenario point: campus-only once, two thresholds.
        assert_eq!(a.per_scenario[0].candidates, 3);
        assert!((a.per_scenario[0].confidence_each - (1.0 - 0.05 / 3.0)).abs() < 1e-12);
        // Only threshold 4 meets the target at both points.
        let wc = a.worst_case.as_ref().unwrap();
        assert_eq!(a.decisions[wc.decision].label, "overflow (threshold_hours=4)");
        assert_eq!((wc.value, wc.at), (6000.0, Some(1)));
        let text = a.render(&points);
        assert!(
            text.contains("exam=1.3") && text.contains("worst-case compliance: overflow (threshold_hours=4)"),
            "{text}"
        );
        let csv = String::from_utf8(a.csv(&points)).unwrap();
        assert!(
            csv.lines().nth(1).unwrap().starts_with("best,exam=1,1,overflow (threshold_hours=12),overflow,12,true,0,"),
            "{csv}"
        );
        assert!(!a.render_details().contains("choose policy"));
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn minimax_regret_matches_a_hand_computed_example() {
        // Three scenario points, three decisions A, B, C (policies), all meeting the target:
        //        s1    s2    s3
        // A     100   200   300
        // B     150   150   320
        // C     130   160   310
        // best  100   150   300
        // Regrets: A 0, 50, 0 (worst 50); B 50, 0, 20 (worst 50); C 30, 10, 10 (worst 30,
        // at s1): minimax regret chooses C, which is best at no point.
        let costs = [[100.0, 200.0, 300.0], [150.0, 150.0, 320.0], [130.0, 160.0, 310.0]];
        let axes = vec![Axis { key: "s".into(), role: Role::Condition, weights: None }];
        let mut values = Vec::new();
        let mut points = Vec::new();
        for s in 0..3 {
            let ps: Vec<(&str, f64, f64)> =
                ["A", "B", "C"].iter().enumerate().map(|(d, n)| (*n, costs[d][s], 1.0)).collect();
            points.push(point(s, &ps));
            values.push(vec![format!("{}", s + 1)]);
        }
        let t = vec![parse_target("wait_p95_h<=2").unwrap()];
        let a = analyse(&axes, &values, &points, &t, Rule::MeanYear);
        let m = a.minimax.as_ref().unwrap();
        assert_eq!(a.decisions[m.decision].label, "C");
        assert!((m.value - 30.0).abs() < 1e-9 && m.at == Some(0), "{m:?}");
        // Worst-case cost: A 300, B 320, C 310 → A.
        assert_eq!(a.decisions[a.worst_case.as_ref().unwrap().decision].label, "A");
        // Weighted: s1 heavy. A: .8·100+.1·200+.1·300 = 130; B: 120+15+32 = 167; C: 104+16+31 = 151 → A.
        let mut axes = axes;
        axes[0].weights = Some(vec![8.0, 1.0, 1.0]);
        let a = analyse(&axes, &values, &points, &t, Rule::MeanYear);
        let w = a.weighted.as_ref().unwrap();
        assert_eq!(a.decisions[w.decision].label, "A");
        assert!((w.value - 130.0).abs() < 1e-9);
    }

    #[test]
    fn a_decision_that_never_meets_the_target_is_never_chosen() {
        // campus-only is the cheapest everywhere but always misses the target.
        let (values, points) = sweep([[(5000.0, 1.0), (4000.0, 1.5)], [(6000.0, 1.2), (4500.0, 3.0)]]);
        let t = vec![parse_target("wait_p95_h<=2").unwrap()];
        let a = analyse(&axes(), &values, &points, &t, Rule::MeanYear);
        let campus = a.decisions.iter().position(|d| d.policy == "campus-only").unwrap();
        assert!(a.best.iter().all(|b| *b != Some(campus)));
        for r in [&a.minimax, &a.worst_case].into_iter().flatten() {
            assert_ne!(r.decision, campus);
        }
        // When nothing meets the target at one point, that point has no best decision and
        // nothing complies everywhere; minimax regret leaves the point out.
        let (values, points) = sweep([[(5000.0, 1.0), (4000.0, 1.5)], [(6000.0, 2.5), (4500.0, 3.0)]]);
        let a = analyse(&axes(), &values, &points, &t, Rule::MeanYear);
        assert_eq!(a.best[1], None);
        assert!(a.worst_case.is_none());
        assert_eq!(a.decisions[a.minimax.as_ref().unwrap().decision].label, "overflow (threshold_hours=12)");
        assert!(a.render(&points).contains("no decision meets the targets"));
    }
}
