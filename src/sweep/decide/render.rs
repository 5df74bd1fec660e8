//! The analysis written out: the text of the terminal and of `recommendation.txt`, and
//! `decisions.csv`. Formatting reads the analysis and decides nothing, so it stands apart
//! from the computation of the best and robust decisions.

use super::{Analysis, Cell};
use crate::stats::Summary;
use crate::sweep::recommend::{self, PointResult, Rule, Verdict};
use crate::target::Target;
use crate::write::CsvBytes;
use crate::write::num;

/// Whole CNY with thousands separators: `12,345`.
fn cny(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if v < -0.5 { format!("-{out}") } else { out }
}

fn ci(s: &Summary, scale: f64, d: usize) -> String {
    if s.half_width.is_finite() {
        format!("{:.*} ± {:.*}", d, s.mean * scale, d, s.half_width * scale)
    } else {
        format!("{:.*}", d, s.mean * scale)
    }
}

impl Analysis {
    /// The analysis as text: the best decision at each scenario point, then the robust
    /// choices.
    pub fn render(&self, points: &[PointResult]) -> String {
        let targets: Vec<String> = self.targets.iter().map(|t| t.to_string()).collect();
        let rule = match self.rule {
            Rule::MeanYear => "a statement about the mean year".to_string(),
            Rule::Risk { max_miss } => {
                format!("in a given year, at most a {:.1}% chance of a year that misses", max_miss * 100.0)
            }
        };
        let mut out = format!("Decisions for {} ({rule}):\n", targets.join(" and "));
        out.push_str(&format!(
            "  decisions: {}; conditions (scenario points): {}\n",
            if self.decision_keys.is_empty() { "the policies".to_string() } else { self.decision_keys.join(", ") },
            if self.condition_keys.is_empty() { "none".to_string() } else { self.condition_keys.join(", ") }
        ));
        out.push_str(
            "  Best decision at each scenario point (cheapest meeting every target; 95% confidence at each point, \
             Bonferroni over its candidates):\n",
        );
        let shown = self.shown_metrics();
        let first = shown.first().cloned();
        let width = self.scenarios.iter().map(|s| s.label.chars().count()).max().unwrap_or(0);
        for (s, sp) in self.scenarios.iter().enumerate() {
            let rec = &self.per_scenario[s];
            let k = format!("{} candidates, each bound at {:.2}%", rec.candidates, rec.confidence_each * 100.0);
            match self.best[s] {
                Some(d) => {
                    let c = &self.cells[d][s].as_ref().expect("the best has a cell").verdict;
                    let wait = first.as_ref().and_then(|t| self.summary(points, d, s, t).map(|x| (t, x)));
                    let wait = wait.map_or(String::new(), |(t, x)| {
                        let (scale, unit) = if t.metric.shown_in_percent() {
                            (100.0, "%".to_string())
                        } else {
                            (1.0, format!(" {}", t.metric.unit()))
                        };
                        format!(", {} {}{unit}", t.name(), ci(&x, scale, 2))
                    });
                    out.push_str(&format!(
                        "    {:<width$}  {}: {} CNY{wait} ({k})\n",
                        sp.label,
                        self.decisions[d].label,
                        ci(&c.cost, 1.0, 0)
                    ));
                }
                None => {
                    let closest = rec.closest.as_ref().map_or(String::new(), |c| {
                        let d = self
                            .decision_of_verdict(points, c)
                            .map_or(c.policy.clone(), |d| self.decisions[d].label.clone());
                        format!("; closest: {d} ({})", c.reasons.join("; "))
                    });
                    out.push_str(&format!("    {:<width$}  no decision meets the targets ({k}){closest}\n", sp.label));
                }
            }
        }
        if self.scenarios.len() > 1 {
            out.push_str(&format!("  Robust choice across the {} scenario points:\n", self.scenarios.len()));
            let none: Vec<&str> = self
                .scenarios
                .iter()
                .zip(&self.best)
                .filter(|(_, b)| b.is_none())
                .map(|(s, _)| s.label.as_str())
                .collect();
            match &self.minimax {
                Some(r) => out.push_str(&format!(
                    "    minimax regret: {}: worst regret {} CNY (at {}){}\n",
                    self.decisions[r.decision].label,
                    cny(r.value),
                    r.at.map_or("–", |s| self.scenarios[s].label.as_str()),
                    if none.is_empty() {
                        String::new()
                    } else {
                        format!("; left out, where no decision meets the targets: {}", none.join("; "))
                    }
                )),
                None => {
                    out.push_str("    minimax regret: no decision meets the targets at every point where one does\n")
                }
            }
            match &self.worst_case {
                Some(r) => out.push_str(&format!(
                    "    worst-case compliance: {}: meets the targets at all {} points; worst-case cost {} CNY (at {})\n",
                    self.decisions[r.decision].label,
                    self.scenarios.len(),
                    cny(r.value),
                    r.at.map_or("–", |s| self.scenarios[s].label.as_str())
                )),
                None => {
                    let most = (0..self.decisions.len())
                        .map(|d| (d, (0..self.scenarios.len()).filter(|&s| self.cells[d][s].as_ref().is_some_and(Cell::feasible)).count()))
                        .max_by_key(|x| x.1);
                    out.push_str(&format!(
                        "    worst-case compliance: no decision meets the targets at every scenario point{}\n",
                        most.filter(|m| m.1 > 0).map_or(String::new(), |(d, n)| format!(
                            " (most: {} at {n} of {})",
                            self.decisions[d].label,
                            self.scenarios.len()
                        ))
                    ));
                }
            }
            if self.weights_given {
                let w: Vec<String> = self.scenarios.iter().map(|s| format!("{} {:.2}", s.label, s.weight)).collect();
                match &self.weighted {
                    Some(r) => out.push_str(&format!(
                        "    weighted expected cost ({}): {}: {} CNY\n",
                        w.join(", "),
                        self.decisions[r.decision].label,
                        cny(r.value)
                    )),
                    None => out.push_str(&format!(
                        "    weighted expected cost ({}): no decision meets the targets at every weighted point\n",
                        w.join(", ")
                    )),
                }
            }
            out.push_str(&format!(
                "  Regrets and costs compare means. \"Meets the targets at every point\" holds with at least {:.0}% confidence \
                 (95% at each of {} points, Bonferroni).\n",
                self.joint_confidence() * 100.0,
                self.scenarios.len()
            ));
        }
        out
    }

    fn decision_of_verdict(&self, points: &[PointResult], v: &Verdict) -> Option<usize> {
        let i = points.iter().position(|p| p.point == v.point)?;
        (0..self.decisions.len())
            .find(|&d| self.decisions[d].policy == v.policy && self.cells[d].iter().flatten().any(|c| c.point == i))
    }

    /// Each scenario point's full list of candidates and why they were ruled out (for
    /// `recommendation.txt`). The chosen line reads "best: policy …", not "choose policy
    /// …", so charts do not take one scenario point's choice for the sweep's.
    pub fn render_details(&self) -> String {
        let mut out = String::new();
        for (s, sp) in self.scenarios.iter().enumerate() {
            out.push_str(&format!("\nAt {}:\n", sp.label));
            let text =
                recommend::render(&self.per_scenario[s], usize::MAX).replace("  choose policy '", "  best: policy '");
            out.push_str(&text);
        }
        out
    }

    /// `decisions.csv`: one `best` row per scenario point, then for each robust choice one
    /// row per scenario point with that decision's figures there. Columns: kind,
    /// scenario_point, one per condition axis, decision, policy, one per decision axis
    /// (empty where the policy does not depend on it), meets_targets, regret_cny (cost −
    /// the best feasible cost at that point), weight, candidates, confidence_each, then
    /// mean/ci95_low/ci95_high of total_cost_cny and of each shown metric (the targets'
    /// first, then wait_mean_h and wait_p95_h; rates as fractions).
    pub fn csv(&self, points: &[PointResult]) -> Vec<u8> {
        let shown = self.shown_metrics();
        let mut header: Vec<String> = vec!["kind".into(), "scenario_point".into()];
        header.extend(self.condition_keys.iter().cloned());
        header.extend(["decision".to_string(), "policy".into()]);
        header.extend(self.decision_keys.iter().cloned());
        header.extend(["meets_targets", "regret_cny", "weight", "candidates", "confidence_each"].map(String::from));
        for name in std::iter::once("total_cost_cny".to_string()).chain(shown.iter().map(Target::name)) {
            header.extend([name.clone(), format!("{name}_ci95_low"), format!("{name}_ci95_high")]);
        }
        let mut w = CsvBytes::new(&header);
        let best_cost: Vec<Option<f64>> = (0..self.scenarios.len())
            .map(|s| self.best[s].and_then(|d| self.cells[d][s].as_ref()).map(|c| c.verdict.cost.mean))
            .collect();
        let mut rows: Vec<(&str, usize, Option<usize>)> = Vec::new();
        for s in 0..self.scenarios.len() {
            rows.push(("best", s, self.best[s]));
        }
        for r in [&self.minimax, &self.worst_case, &self.weighted].into_iter().flatten() {
            for s in 0..self.scenarios.len() {
                rows.push((r.criterion.kind(), s, Some(r.decision)));
            }
        }
        for (kind, s, d) in rows {
            let sp = &self.scenarios[s];
            let rec = &self.per_scenario[s];
            let mut row = vec![kind.to_string(), sp.label.clone()];
            row.extend(sp.values.iter().cloned());
            let cell = d.and_then(|d| self.cells[d][s].as_ref());
            match d {
                Some(d) => {
                    row.extend([self.decisions[d].label.clone(), self.decisions[d].policy.clone()]);
                    row.extend(self.decisions[d].values.iter().map(|v| v.clone().unwrap_or_default()));
                }
                None => {
                    row.extend(["(none meets the targets)".to_string(), String::new()]);
                    row.extend(self.decision_keys.iter().map(|_| String::new()));
                }
            }
            let feasible = cell.is_some_and(Cell::feasible);
            let regret = match (cell, best_cost[s]) {
                (Some(c), Some(b)) if feasible => num(c.verdict.cost.mean - b),
                _ => String::new(),
            };
            row.extend([
                feasible.to_string(),
                regret,
                num(sp.weight),
                rec.candidates.to_string(),
                num(rec.confidence_each),
            ]);
            let triple = |x: Option<Summary>| match x {
                Some(x) => [num(x.mean), num(x.low()), num(x.high())],
                None => [String::new(), String::new(), String::new()],
            };
            row.extend(triple(cell.map(|c| c.verdict.cost)));
            for t in &shown {
                row.extend(triple(d.and_then(|d| self.summary(points, d, s, t))));
            }
            w.row(&row);
        }
        w.finish()
    }
}
