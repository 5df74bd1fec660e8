//! The shape of a sweep as the decision analysis sees it: its scenario points (the
//! combinations of condition values) and its decisions (a policy with the values of the
//! decision axes it depends on), and which sweep point holds each decision at each
//! scenario point. It judges nothing, so the sweep table (which is printed without
//! targets too) and the analysis share it.

use std::collections::HashMap;

use super::{Axis, Decision, ScenarioPoint};
use crate::experiment::summary::SummaryRow;
use crate::metric::Metric;
use crate::scenario::keys::Role;
use crate::sweep::recommend::{PointResult, same_rows};

/// Scenario points and decisions of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Keys of the condition axes.
    pub condition_keys: Vec<String>,
    /// Keys of the decision axes.
    pub decision_keys: Vec<String>,
    /// Scenario points, in sweep order.
    pub scenarios: Vec<ScenarioPoint>,
    /// Decisions, by policy then by the decision values' order.
    pub decisions: Vec<Decision>,
    /// Per analysed point, per policy at it: the decision it is.
    pub decision_at: Vec<Vec<(String, usize)>>,
    /// `point_of[d][s]`: the first analysed point holding decision `d` at scenario point `s`.
    pub point_of: Vec<Vec<Option<usize>>>,
}

impl Layout {
    /// The decision that `policy` at analysed point `i` is.
    pub fn decision_of(&self, i: usize, policy: &str) -> Option<usize> {
        self.decision_at.get(i)?.iter().find(|(p, _)| p == policy).map(|x| x.1)
    }

    /// The scenario point of analysed point `i`.
    pub fn scenario_of(&self, i: usize) -> Option<usize> {
        self.scenarios.iter().position(|s| s.points.contains(&i))
    }
}

fn rows_of<'a>(pr: &'a PointResult, policy: &str) -> Vec<&'a SummaryRow> {
    pr.summaries.rows.iter().filter(|r| r.policy == policy).collect()
}

/// How a decision axis is named in a decision's label: `threshold_hours` for
/// `policies.overflow.threshold_hours` (a parameter of policy `overflow` itself), else its
/// last part (`rent_months`), or the last two when another decision axis ends the same way
/// (`a800-monthly.gpus` next to `h800-monthly.gpus`).
fn short_key(key: &str, policy: &str, keys: &[String]) -> String {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.len() >= 3 && parts[0] == "policies" && parts[1] == policy {
        return parts[2..].join(".");
    }
    let last = |k: &str| k.rsplit('.').next().unwrap_or(k).to_string();
    let clash = keys.iter().any(|k| k != key && last(k) == last(key));
    if parts.len() >= 2 && clash { parts[parts.len() - 2..].join(".") } else { last(key) }
}

/// A decision's label: the policy alone, or "overflow-4h with threshold_hours=16" when
/// swept values (`shown`: key and value, among the decision axes `keys`) change it. The
/// policy's name may describe its value in the scenario file (`overflow-4h`), which the
/// sweep replaces: the label says "with" so the swept value reads as replacing it, not as
/// a second threshold.
pub fn decision_label(policy: &str, shown: &[(String, String)], keys: &[String]) -> String {
    if shown.is_empty() {
        return policy.to_string();
    }
    let values: Vec<String> = shown.iter().map(|(k, v)| format!("{}={v}", short_key(k, policy, keys))).collect();
    format!("{policy} with {}", values.join(", "))
}

/// The layout of a sweep: `axes` in parameter order, `values[i]` the values of point `i`
/// (parallel with `points`).
///
/// # Panics
/// If `values` and `points` differ in length.
pub fn layout(axes: &[Axis], values: &[Vec<String>], points: &[PointResult]) -> Layout {
    assert_eq!(values.len(), points.len(), "one list of values per point");
    let cond: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].role == Role::Condition).collect();
    let dec: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].role == Role::Decision).collect();

    // Scenario points, in order of first appearance.
    let mut scenarios: Vec<ScenarioPoint> = Vec::new();
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
    }
    // Weights: the product over condition axes of each value's weight, normalised.
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
    let keys: Vec<String> = dec.iter().map(|&a| axes[a].key.clone()).collect();
    let mut decisions: Vec<Decision> = Vec::new();
    for (i, pr) in points.iter().enumerate() {
        for p in &policies {
            if pr.summaries.get(p, Metric::TotalCost).is_none() {
                continue;
            }
            let v = decision_values(i, p);
            if !decisions.iter().any(|d| &d.policy == p && d.values == v) {
                let shown: Vec<(String, String)> = dec
                    .iter()
                    .zip(&v)
                    .filter_map(|(&a, x)| x.as_ref().map(|x| (axes[a].key.clone(), x.clone())))
                    .collect();
                decisions.push(Decision { label: decision_label(p, &shown, &keys), policy: p.clone(), values: v });
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
    let decision_at: Vec<Vec<(String, usize)>> = points
        .iter()
        .enumerate()
        .map(|(i, pr)| {
            policies
                .iter()
                .filter(|p| pr.summaries.get(p, Metric::TotalCost).is_some())
                .filter_map(|p| {
                    let v = decision_values(i, p);
                    decisions.iter().position(|d| &d.policy == p && d.values == v).map(|d| (p.clone(), d))
                })
                .collect()
        })
        .collect();
    let mut point_of = vec![vec![None; scenarios.len()]; decisions.len()];
    for (s, sp) in scenarios.iter().enumerate() {
        for &i in &sp.points {
            for (_, d) in &decision_at[i] {
                point_of[*d][s].get_or_insert(i);
            }
        }
    }
    Layout {
        condition_keys: cond.iter().map(|&a| axes[a].key.clone()).collect(),
        decision_keys: dec.iter().map(|&a| axes[a].key.clone()).collect(),
        scenarios,
        decisions,
        decision_at,
        point_of,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 26, item 3: "choose policy 'overflow-4h' at threshold_hours=16" named a policy
    /// for 4 h at 16 h.
    #[test]
    fn a_decision_is_named_with_the_swept_value_that_replaces_its_own() {
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let k = keys(&["policies.overflow-4h.threshold_hours", "cloud.offers.a800-monthly.rent_months"]);
        let shown = [("policies.overflow-4h.threshold_hours".to_string(), "16".to_string())];
        assert_eq!(decision_label("overflow-4h", &shown, &k), "overflow-4h with threshold_hours=16");
        let rent = [("cloud.offers.a800-monthly.rent_months".to_string(), "4-5".to_string())];
        assert_eq!(decision_label("monthly-a800", &rent, &k), "monthly-a800 with rent_months=4-5");
        // Two offers' gpus keep the offer in the name.
        let k = keys(&["cloud.offers.a800-monthly.gpus", "cloud.offers.h800-monthly.gpus"]);
        let gpus = [("cloud.offers.a800-monthly.gpus".to_string(), "8".to_string())];
        assert_eq!(decision_label("m", &gpus, &k), "m with a800-monthly.gpus=8");
        assert_eq!(decision_label("campus-only", &[], &k), "campus-only");
    }
}
