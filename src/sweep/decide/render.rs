//! The analysis written out: the text of the terminal and of `recommendation.txt`, and
//! `decisions.csv`. Formatting reads the analysis and decides nothing, so it stands apart
//! from the computation of the best and robust decisions. There is no Chinese version of
//! this text (the report embeds it as is).

use super::{Analysis, Cell, Criterion, Pairing, Regret, Robust};
use crate::stats::Summary;
use crate::sweep::recommend::{self, PointResult, Rule};
use crate::sweep::table::{Table, WIDTH, cny, wrap};
use crate::target::Target;
use crate::write::CsvBytes;
use crate::write::num;

fn ci(s: &Summary, scale: f64, d: usize) -> String {
    if !s.mean.is_finite() {
        "–".into()
    } else if s.half_width.is_finite() {
        format!("{:.*} ± {:.*}", d, s.mean * scale, d, s.half_width * scale)
    } else {
        format!("{:.*}", d, s.mean * scale)
    }
}

/// Adds a paragraph, wrapped to the page width.
fn say(out: &mut String, text: String) {
    out.push_str(&wrap(&text, WIDTH));
}

fn cost_text(s: &Summary) -> String {
    if s.half_width.is_finite() { format!("{} ± {}", cny(s.mean), cny(s.half_width)) } else { cny(s.mean) }
}

/// A metric's header and value: "wait_p95_h (h)" and "0.14 ± 0.06" (rates in %).
fn metric_text(t: &Target, x: Option<Summary>) -> (String, String) {
    let (scale, unit) = if t.metric.shown_in_percent() { (100.0, "%") } else { (1.0, t.metric.unit()) };
    (format!("{} ({unit})", t.name()), x.map_or("–".into(), |x| ci(&x, scale, 2)))
}

impl Analysis {
    fn label(&self, s: Option<usize>) -> &str {
        s.map_or("–", |s| self.scenarios[s].label.as_str())
    }

    /// The decisions equivalent to the best at scenario point `s` (not the best itself).
    pub fn equivalents(&self, s: usize) -> Vec<(usize, Regret)> {
        let Some(b) = self.best[s] else { return Vec::new() };
        let best_cost = self.cells[b][s].as_ref().map_or(f64::NAN, |c| c.verdict.cost.mean);
        let mut out: Vec<(usize, Regret)> = (0..self.decisions.len())
            .filter(|&d| d != b)
            .filter_map(|d| self.regrets[d][s].filter(|r| r.equivalent(best_cost)).map(|r| (d, r)))
            .collect();
        out.sort_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
        out
    }

    /// "equivalent (…): overflow with threshold_hours=8 (+1.3%), …" (None without any).
    fn equivalent_text(&self, s: usize) -> Option<String> {
        let b = self.best[s]?;
        let best_cost = self.cells[b][s].as_ref()?.verdict.cost.mean;
        let list: Vec<String> = self
            .equivalents(s)
            .iter()
            .map(|(d, r)| format!("{} (+{:.1}%)", self.decisions[*d].label, r.mean / best_cost * 100.0))
            .collect();
        (!list.is_empty()).then(|| {
            format!(
                "equivalent (within {:.0}% of the best cost, or the regret's 95% CI reaches 0): {}",
                super::EQUIVALENT_SHARE * 100.0,
                list.join(", ")
            )
        })
    }

    /// The analysis as text: the best decision at each scenario point, then the robust
    /// choices and the points that decide them.
    pub fn render(&self, points: &[PointResult]) -> String {
        let targets: Vec<String> = self.targets.iter().map(|t| t.to_string()).collect();
        let rule = match self.rule {
            Rule::MeanYear => "a statement about the mean year".to_string(),
            Rule::Risk { max_miss } => {
                format!("in a given year, at most a {:.1}% chance of a year that misses", max_miss * 100.0)
            }
        };
        let mut out = format!("Decisions for {} ({rule}):\n", targets.join(" and "));
        say(
            &mut out,
            format!(
                "  decisions: {}; conditions (scenario points): {}\n",
                if self.decision_keys.is_empty() { "the policies".to_string() } else { self.decision_keys.join(", ") },
                if self.condition_keys.is_empty() { "none".to_string() } else { self.condition_keys.join(", ") }
            ),
        );
        let ks: Vec<usize> = self.per_scenario.iter().map(|r| r.candidates).collect();
        let same_k = ks.windows(2).all(|w| w[0] == w[1]);
        let k_text = |s: usize| {
            let r = &self.per_scenario[s];
            format!("{} candidates, each bound at {:.2}%", r.candidates, r.confidence_each * 100.0)
        };
        say(
            &mut out,
            format!(
                "  Best decision at each scenario point (cheapest meeting every target; 95% confidence at each point, \
             Bonferroni over that point's candidates{}):\n",
                if same_k && !ks.is_empty() { format!(": {}", k_text(0)) } else { String::new() }
            ),
        );
        let first = self.shown_metrics().into_iter().next();
        let metric_head = first.as_ref().map_or(String::new(), |t| metric_text(t, None).0);
        let mut head = vec!["scenario point", "best decision", "total cost (CNY)"];
        if first.is_some() {
            head.push(&metric_head);
        }
        if !same_k {
            head.push("candidates");
        }
        let mut t = Table::new(&head, &[false, false, true, true, false]);
        for (s, sp) in self.scenarios.iter().enumerate() {
            let rec = &self.per_scenario[s];
            let mut row = vec![sp.label.clone()];
            match self.best[s] {
                Some(d) => {
                    let c = &self.cells[d][s].as_ref().expect("the best has a cell").verdict;
                    row.extend([self.decisions[d].label.clone(), cost_text(&c.cost)]);
                    if let Some(m) = &first {
                        row.push(metric_text(m, self.summary(points, d, s, m)).1);
                    }
                }
                None => row.extend(["no decision meets the targets".to_string(), "–".into(), "–".into()]),
            }
            if !same_k {
                row.push(k_text(s));
            }
            t.row(row);
            if let Some(e) = self.equivalent_text(s) {
                t.note(e);
            }
            if self.best[s].is_none()
                && let Some(c) = &rec.closest
            {
                let d = self.decision_of_cell(c.point, &c.policy, points);
                t.note(format!("closest: {d} ({})", c.reasons.join("; ")));
            }
        }
        out.push_str(&t.render(4));
        if self.scenarios.len() > 1 {
            self.render_robust(&mut out);
        }
        out
    }

    fn decision_of_cell(&self, point: usize, policy: &str, points: &[PointResult]) -> String {
        let i = points.iter().position(|p| p.point == point);
        (0..self.decisions.len())
            .find(|&d| self.decisions[d].policy == policy && self.cells[d].iter().flatten().any(|c| Some(c.point) == i))
            .map_or(policy.to_string(), |d| self.decisions[d].label.clone())
    }

    fn render_robust(&self, out: &mut String) {
        say(out, format!("  Robust choice across the {} scenario points:\n", self.scenarios.len()));
        let none: Vec<&str> =
            self.scenarios.iter().zip(&self.best).filter(|(_, b)| b.is_none()).map(|(s, _)| s.label.as_str()).collect();
        match &self.minimax {
            Some(r) => {
                let interval = r.at.and_then(|s| self.regrets[r.decision][s]).map_or(String::new(), |g| {
                    let i = g.interval_text(cny);
                    if i.is_empty() { i } else { format!(" ({i})") }
                });
                say(
                    out,
                    format!(
                        "    minimax regret: {}: worst regret {} CNY{interval}\n",
                        self.decisions[r.decision].label,
                        cny(r.value)
                    ),
                );
                self.deciding(out, r, "worst regret");
                if !none.is_empty() {
                    say(out, format!("      left out, where no decision meets the targets: {}\n", none.join("; ")));
                }
            }
            None => {
                say(out, "    minimax regret: no decision meets the targets at every point where one does\n".into())
            }
        }
        match &self.worst_case {
            Some(r) => {
                say(
                    out,
                    format!(
                        "    worst-case compliance: {}: meets the targets at all {} points; worst-case cost {} CNY\n",
                        self.decisions[r.decision].label,
                        self.scenarios.len(),
                        cny(r.value)
                    ),
                );
                self.deciding(out, r, "worst-case cost");
            }
            None => {
                let most = (0..self.decisions.len())
                    .map(|d| {
                        let n = (0..self.scenarios.len())
                            .filter(|&s| self.cells[d][s].as_ref().is_some_and(Cell::feasible))
                            .count();
                        (d, n)
                    })
                    .max_by_key(|x| x.1);
                say(
                    out,
                    format!(
                        "    worst-case compliance: no decision meets the targets at every scenario point{}\n",
                        most.filter(|m| m.1 > 0).map_or(String::new(), |(d, n)| format!(
                            " (most: {} at {n} of {})",
                            self.decisions[d].label,
                            self.scenarios.len()
                        ))
                    ),
                );
            }
        }
        if self.weights_given {
            let w: Vec<String> = self.scenarios.iter().map(|s| format!("{} {:.2}", s.label, s.weight)).collect();
            match &self.weighted {
                Some(r) => {
                    say(
                        out,
                        format!(
                            "    weighted expected cost ({}): {}: {} CNY\n",
                            w.join(", "),
                            self.decisions[r.decision].label,
                            cny(r.value)
                        ),
                    );
                    self.deciding(out, r, "weighted cost");
                }
                None => say(
                    out,
                    format!(
                        "    weighted expected cost ({}): no decision meets the targets at every weighted point\n",
                        w.join(", ")
                    ),
                ),
            }
        }
        say(
            out,
            format!(
                "  Regrets and costs compare means (each regret's 95% CI is paired over the same simulated years where \
             the per-year costs allow). \"Meets the targets at every point\" holds with at least {:.0}% confidence \
             (95% at each of {} points, Bonferroni).\n",
                self.joint_confidence() * 100.0,
                self.scenarios.len()
            ),
        );
    }

    /// The lines under a robust choice: the point that decides it, the runner-up, and the
    /// alternative only the targets rule out.
    fn deciding(&self, out: &mut String, r: &Robust, what: &str) {
        if let Some(s) = r.at.filter(|_| r.criterion != Criterion::WeightedCost) {
            say(out, format!("      decided at {}, where its {what} occurs\n", self.scenarios[s].label));
        }
        if let Some((d, v, at)) = r.runner_up {
            let at = at.filter(|_| r.criterion != Criterion::WeightedCost);
            say(
                out,
                format!(
                    "      next: {}, {what} {} CNY{}\n",
                    self.decisions[d].label,
                    cny(v),
                    at.map_or(String::new(), |s| format!(" (at {})", self.label(Some(s))))
                ),
            );
        }
        if let Some(x) = &r.ruled_out {
            let why: Vec<String> =
                x.at.iter()
                    .filter_map(|&s| {
                        let c = self.cells[x.decision][s].as_ref()?;
                        Some(format!("at {}: {}", self.scenarios[s].label, c.verdict.reasons.join("; ")))
                    })
                    .collect();
            say(
                out,
                format!(
                    "      {} would do better ({what} {} CNY) but is not shown to meet the targets at {} of {} points ({}){}\n",
                    self.decisions[x.decision].label,
                    cny(x.value),
                    x.at.len(),
                    self.scenarios.len(),
                    why.join("; "),
                    if x.marginal {
                        ": only the interval misses there (the mean meets the target), so the choice rests on it; \
                     more replications may settle it"
                    } else {
                        ""
                    }
                ),
            );
        }
    }

    /// Each scenario point's candidates, one row per decision, cheapest feasible first:
    /// cost, regret with its 95% interval, the first target's metric and the verdict (for
    /// `recommendation.txt`). No line reads "choose policy …", so charts do not take one
    /// scenario point's choice for the sweep's.
    pub fn render_details(&self, points: &[PointResult]) -> String {
        let mut out = String::new();
        let first = self.shown_metrics().into_iter().next();
        let metric_head = first.as_ref().map_or(String::new(), |t| metric_text(t, None).0);
        for (s, sp) in self.scenarios.iter().enumerate() {
            let rec = &self.per_scenario[s];
            let title =
                if self.condition_keys.is_empty() { "All candidates".to_string() } else { format!("At {}", sp.label) };
            say(
                &mut out,
                format!(
                    "\n{title} ({} candidates, each bound at {:.2}%: Bonferroni over this point's candidates):\n",
                    rec.candidates,
                    rec.confidence_each * 100.0
                ),
            );
            let mut head = vec!["decision", "total cost (CNY)", "regret (CNY)"];
            if first.is_some() {
                head.push(&metric_head);
            }
            head.push("verdict");
            let mut t = Table::new(&head, &[false, true, true, true, false]);
            let mut shown = Vec::new();
            let mut welch = false;
            let mut paired_years = None;
            for v in rec.met.iter().chain(&rec.ruled_out) {
                let Some(d) = (0..self.decisions.len()).find(|&d| {
                    self.cells[d][s].as_ref().is_some_and(|c| points[c.point].point == v.point)
                        && self.decisions[d].policy == v.policy
                }) else {
                    continue;
                };
                if shown.contains(&d) {
                    continue;
                }
                shown.push(d);
                let c = self.cells[d][s].as_ref().expect("found by its cell");
                let best = self.best[s] == Some(d);
                let regret = self.regrets[d][s];
                let r = match regret {
                    _ if best => "0".to_string(),
                    Some(g) => {
                        match g.pairing {
                            Pairing::Welch => welch = true,
                            Pairing::Paired(n) => paired_years = Some(n),
                            Pairing::Best => {}
                        }
                        let mark = if g.pairing == Pairing::Welch { " (Welch)" } else { "" };
                        if g.low.is_finite() {
                            format!("{} ± {}{mark}", cny(g.mean), cny((g.high - g.low) / 2.0))
                        } else {
                            format!("{}{mark}", cny(g.mean))
                        }
                    }
                    None => "–".into(),
                };
                let best_cost = self.best[s].and_then(|b| self.cells[b][s].as_ref()).map(|b| b.verdict.cost.mean);
                let verdict = if !c.feasible() {
                    "ruled out".to_string()
                } else if best {
                    "best".into()
                } else if regret.zip(best_cost).is_some_and(|(g, b)| g.equivalent(b)) {
                    "equivalent".into()
                } else {
                    "meets".into()
                };
                let mut row = vec![self.decisions[d].label.clone(), cost_text(&c.verdict.cost), r];
                if let Some(m) = &first {
                    row.push(metric_text(m, self.summary(points, d, s, m)).1);
                }
                row.push(verdict);
                t.row(row);
                if !c.feasible() {
                    t.note(c.verdict.reasons.join("; "));
                } else if best {
                    match (self.rule, &c.verdict.miss) {
                        (Rule::Risk { .. }, Some(m)) => t.note(format!(
                            "{}; the chance that a year misses is at most {:.1}%",
                            recommend::describe_misses(m),
                            c.verdict.miss_upper * 100.0
                        )),
                        _ => {
                            for (tg, m) in &c.verdict.margins {
                                t.note(format!("{tg}: met with a margin of {m:.4} (CI bound to target)"));
                            }
                        }
                    }
                }
            }
            out.push_str(&t.render(2));
            if let Some(n) = paired_years {
                say(
                    &mut out,
                    format!(
                        "  Regret = cost − the best's cost here, ± its 95% CI half-width, paired over the same {n} \
                     simulated years (common random numbers){}. Verdict \"equivalent\": meets the targets within \
                     {:.0}% of the best cost, or the regret's CI reaches 0.\n",
                        if welch {
                            "; (Welch) marks an unpaired interval where the per-year costs could not be paired"
                        } else {
                            ""
                        },
                        super::EQUIVALENT_SHARE * 100.0
                    ),
                );
            } else if welch {
                say(
                    &mut out,
                    format!(
                        "  Regret = cost − the best's cost here, ± its 95% CI half-width; the per-year costs could not be \
                     paired (not stored, or different years), so the interval is Welch's, unpaired, wider than a \
                     paired one. Verdict \"equivalent\": meets the targets within {:.0}% of the best cost, or the \
                     regret's CI reaches 0.\n",
                        super::EQUIVALENT_SHARE * 100.0
                    ),
                );
            }
            if let Some(tf) = &rec.too_few {
                say(
                    &mut out,
                    format!(
                        "  too few replications for any candidate to qualify: at zero misses {} replications are needed \
                     (with the correction for {} candidates): rerun with -n {}\n",
                        tf.needed, rec.candidates, tf.needed
                    ),
                );
            }
        }
        out
    }

    /// With one scenario point (a sweep without conditions): the decisions equivalent to
    /// the chosen one, as a line to add under the recommendation (empty without any).
    pub fn render_equivalents(&self) -> String {
        match (self.scenarios.len(), self.equivalent_text(0)) {
            (1, Some(e)) => format!("  {e}\n"),
            _ => String::new(),
        }
    }

    /// `decisions.csv`: one `best` row per scenario point, one `equivalent` row per
    /// decision equivalent to it there, then for each robust choice one row per scenario
    /// point with that decision's figures there. Columns: kind, scenario_point, one per
    /// condition axis, decision, policy, one per decision axis (empty where the policy does
    /// not depend on it), meets_targets, regret_cny (cost − the best feasible cost at that
    /// point) with regret_cny_ci95_low/high and regret_interval (`paired` over the same
    /// years, or `welch-unpaired`), equivalent_to_best, weight, candidates,
    /// confidence_each, corrected_over (the set the Bonferroni correction runs over: the
    /// candidates at that scenario point, as in `risk.csv`), then mean/ci95_low/ci95_high
    /// of total_cost_cny and of each shown metric (the targets' first, then wait_mean_h and
    /// wait_p95_h; rates as fractions).
    pub fn csv(&self, points: &[PointResult]) -> Vec<u8> {
        let shown = self.shown_metrics();
        let mut header: Vec<String> = vec!["kind".into(), "scenario_point".into()];
        header.extend(self.condition_keys.iter().cloned());
        header.extend(["decision".to_string(), "policy".into()]);
        header.extend(self.decision_keys.iter().cloned());
        header.extend(
            [
                "meets_targets",
                "regret_cny",
                "regret_cny_ci95_low",
                "regret_cny_ci95_high",
                "regret_interval",
                "equivalent_to_best",
                "weight",
                "candidates",
                "confidence_each",
                "corrected_over",
            ]
            .map(String::from),
        );
        for name in std::iter::once("total_cost_cny".to_string()).chain(shown.iter().map(Target::name)) {
            header.extend([name.clone(), format!("{name}_ci95_low"), format!("{name}_ci95_high")]);
        }
        let mut w = CsvBytes::new(&header);
        let mut rows: Vec<(&str, usize, Option<usize>)> = Vec::new();
        for s in 0..self.scenarios.len() {
            rows.push(("best", s, self.best[s]));
            rows.extend(self.equivalents(s).into_iter().map(|(d, _)| ("equivalent", s, Some(d))));
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
            let regret = d.and_then(|d| self.regrets[d][s]);
            let best_cost = self.best[s].and_then(|b| self.cells[b][s].as_ref()).map(|c| c.verdict.cost.mean);
            let equivalent = regret.zip(best_cost).is_some_and(|(g, b)| g.equivalent(b));
            let opt = |x: Option<f64>| x.filter(|v| v.is_finite()).map_or(String::new(), num);
            row.extend([
                feasible.to_string(),
                opt(regret.map(|g| g.mean)),
                opt(regret.map(|g| g.low)),
                opt(regret.map(|g| g.high)),
                regret.map_or(String::new(), |g| g.pairing.name().to_string()),
                equivalent.to_string(),
                num(sp.weight),
                rec.candidates.to_string(),
                num(rec.confidence_each),
                format!("the {} candidates at {}", rec.candidates, sp.label),
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
