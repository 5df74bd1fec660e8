//! The policy map of a sweep with conditions: the best decision at each scenario point
//! (from `decisions.csv`), with its cost and the first target's metric. It draws the
//! decision analysis, not a metric against a parameter, so it stands apart from the
//! line charts and the heatmaps.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{MAX_FACETS, key_label, panels, param_label};
use crate::i18n::{L, Lang, fill};
use crate::plot::chart::Chart;
use crate::plot::folder::{DecisionRow, SweepFolder};
use crate::plot::theme::{
    AxisSpec, INK, Mark, PALETTE, Scale, Textual, Theme, Ticks, decimals_for, padded, policy_colour,
};
use crate::scenario::keys::Role;
use crate::write::fmt_num;

/// A decision in words: the policy's display name and the decision values it depends on,
/// each by its axis title ("overflow: Overflow threshold (h) = 8"), not the raw
/// `decisions.csv` label ("overflow with threshold_hours=8").
pub fn decision_words(sw: &SweepFolder, d: &DecisionRow, lang: Lang) -> String {
    if d.policy.is_empty() {
        return d.decision.clone();
    }
    let parts: Vec<String> = d
        .values
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{} = {v}", key_label(sw, k, lang)))
        .collect();
    let name = sw.names.policies.get(&d.policy, lang);
    if parts.is_empty() { name } else { format!("{name}{}{}", L::Colon.get(lang), parts.join("; ")) }
}

/// The policy map: the best decision at each scenario point, with its cost and the first
/// target's metric. One condition: the condition along x, the decisions as rows, a dot at
/// each point's best (and the robust choices as shaded rows). Two or more: a grid of
/// cells coloured by the best decision (further conditions as panels).
pub struct PolicyMap<'a> {
    /// The sweep (with `decisions.csv`).
    pub sweep: &'a SweepFolder,
}

impl PolicyMap<'_> {
    fn conditions(&self) -> Vec<usize> {
        let sw = self.sweep;
        (0..sw.params.len()).filter(|&i| sw.axes.get(i).and_then(|a| a.role) == Some(Role::Condition)).collect()
    }
}

/// A cost as "¥12,345 ± 678".
pub fn cost_text(c: (f64, f64, f64)) -> String {
    format!("¥{} ± {}", fmt_num(c.0, 0), fmt_num((c.2 - c.1) / 2.0, 0))
}

/// The name of the shown metric in words ("Mean of yearly p95 wait (h)"; a class's
/// metric keeps its class prefix).
pub fn shown_name(sw: &SweepFolder, name: &str, lang: Lang) -> String {
    let (class, metric) = match name.rsplit_once(':') {
        Some((c, m)) => (Some(c), m),
        None => (None, name),
    };
    let words = super::metric_label(metric).0.get(lang);
    match class {
        Some(c) => format!("{}{}{words}", sw.names.classes.get(c, lang), L::Colon.get(lang)),
        None => words.to_string(),
    }
}

/// The shown metric (a rate in %) as "1.23 ± 0.45" (its name is in the note).
pub fn shown_text(s: &Option<(String, f64, f64, f64)>) -> String {
    let Some((name, m, lo, hi)) = s else { return String::new() };
    let metric = name.rsplit(':').next().unwrap_or(name);
    let pct = crate::metric::Metric::from_name(metric).is_some_and(|m| m.shown_in_percent());
    let k = if pct { 100.0 } else { 1.0 };
    let d = decimals_for(m * k).min(2);
    format!("{} ± {}{}", fmt_num(m * k, d), fmt_num((hi - lo) / 2.0 * k, d), if pct { "%" } else { "" })
}

/// The two robust choices: decision kind, legend label, band colour. Distinct hues, so
/// a reader tells them apart when they pick different rows.
const ROBUST: [(&str, L, RGBColor, f64); 2] = [
    ("minimax-regret", L::RobustMinimax, RGBColor(0, 114, 178), 0.18),
    ("worst-case", L::RobustWorstCase, RGBColor(230, 159, 0), 0.28),
];

impl Chart for PolicyMap<'_> {
    fn name(&self) -> String {
        "policy_map".into()
    }

    fn caption(&self, th: &Theme) -> String {
        match self.conditions().as_slice() {
            [c] => fill(th.t(L::PolicyMapTitle), &[&param_label(self.sweep, *c, th.lang)]),
            _ => th.t(L::PolicyMapGridTitle).to_string(),
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let sw = self.sweep;
        let conds = self.conditions();
        let best: Vec<&DecisionRow> = sw.decisions.iter().filter(|d| d.kind == "best").collect();
        let shown =
            best.iter().find_map(|d| d.shown.as_ref().map(|s| shown_name(sw, &s.0, th.lang))).unwrap_or_default();
        // Inside an English sentence: "of the mean of yearly p95 wait (h)".
        let shown = match shown.chars().next() {
            Some(c) if th.lang == crate::i18n::Lang::En => {
                c.to_lowercase().collect::<String>() + &shown[c.len_utf8()..]
            }
            _ => shown,
        };
        let note = fill(th.t(L::NotePolicyMap), &[&shown]);
        // Decisions in the order they first appear (best rows, then robust rows).
        let mut names: Vec<String> = Vec::new();
        for d in sw.decisions.iter().filter(|d| !d.policy.is_empty() && d.kind != "equivalent") {
            if !names.contains(&d.decision) {
                names.push(d.decision.clone());
            }
        }
        let none_row = best.iter().any(|d| d.policy.is_empty());
        let colour = |d: &DecisionRow| {
            sw.policies.iter().position(|p| *p == d.policy).map_or(RGBColor(150, 150, 150), policy_colour)
        };
        let cond_value = |d: &DecisionRow, c: usize| {
            d.conditions.iter().find(|(k, _)| *k == sw.params[c]).map(|(_, v)| v.clone()).unwrap_or_default()
        };
        if conds.len() == 1 {
            let c = conds[0];
            let xs = sw.values(c);
            let numeric: Option<Vec<f64>> =
                xs.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
            let xpos = |v: &str| {
                let k = xs.iter().position(|x| x == v).unwrap_or(0);
                numeric.as_ref().map_or(k as f64, |n| n[k])
            };
            let (xmin, xmax) = match &numeric {
                Some(n) => n.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &v| (a.0.min(v), a.1.max(v))),
                None => (0.0, xs.len().saturating_sub(1) as f64),
            };
            let (x0, x1) = padded(xmin, xmax, 0.12);
            let mut rows: Vec<String> = names
                .iter()
                .map(|n| {
                    sw.decisions.iter().find(|d| &d.decision == n).map_or(n.clone(), |d| decision_words(sw, d, th.lang))
                })
                .collect();
            if none_row {
                rows.push(th.t(L::NoDecision).to_string());
            }
            let row_of = |d: &DecisionRow| {
                if d.policy.is_empty() {
                    rows.len() - 1
                } else {
                    names.iter().position(|n| *n == d.decision).unwrap_or(0)
                }
            };
            let mut legend: Vec<(String, Mark)> = Vec::new();
            for (kind, l, c, alpha) in ROBUST {
                if sw.decisions.iter().any(|d| d.kind == kind) {
                    legend.push((th.t(l).to_string(), Mark::Swatch(c.mix(alpha))));
                }
            }
            let area = th.frame(root, &self.caption(th), &legend, &note)?;
            let xf = |v: f64| match &numeric {
                // The ticks are the swept values, labelled as written.
                Some(n) => {
                    n.iter().position(|x| (x - v).abs() < 1e-9).map_or_else(|| Ticks::exact(v), |k| xs[k].clone())
                }
                None => xs.get(v.round() as usize).cloned().unwrap_or_default(),
            };
            let yf = |v: f64| rows.get(v.round() as usize).cloned().unwrap_or_default();
            let xticks: Vec<f64> = match &numeric {
                Some(n) => n.clone(),
                None => (0..xs.len()).map(|k| k as f64).collect(),
            };
            let xl = param_label(sw, c, th.lang);
            let mut x_spec = AxisSpec::with_ticks(x0, x1, xticks, &xl, xf);
            x_spec.scale = if numeric.is_some() { Scale::Linear } else { Scale::Named };
            let y_spec = AxisSpec::categories(rows.len(), th.t(L::DecisionAxis), yf);
            let chart = th.axes(&area, &x_spec, &y_spec)?;
            let plot = chart.plotting_area();
            // Both robust choices on one row share it: minimax regret the upper half.
            let robust_rows: Vec<Option<usize>> =
                ROBUST.iter().map(|r| sw.decisions.iter().find(|d| d.kind == r.0).map(row_of)).collect();
            let shared = robust_rows[0].is_some() && robust_rows[0] == robust_rows[1];
            for (k, (_, _, c, alpha)) in ROBUST.iter().enumerate() {
                if let Some(row) = robust_rows[k] {
                    let y = row as f64;
                    let (lo, hi) = match (shared, k) {
                        (false, _) => (y - 0.35, y + 0.35),
                        (true, 0) => (y, y + 0.35),
                        (true, _) => (y - 0.35, y),
                    };
                    plot.draw(&Rectangle::new([(x0, lo), (x1, hi)], c.mix(*alpha).filled())).s()?;
                }
            }
            for d in &best {
                let at = (xpos(&cond_value(d, c)), row_of(d) as f64);
                let p = chart.backend_coord(&at);
                if d.policy.is_empty() {
                    let r = th.px(0.4);
                    for (a, b) in [((-r, -r), (r, r)), ((-r, r), (r, -r))] {
                        root.draw(&PathElement::new(
                            vec![(p.0 + a.0, p.1 + a.1), (p.0 + b.0, p.1 + b.1)],
                            INK.stroke_width(th.lw(3)),
                        ))
                        .s()?;
                    }
                    continue;
                }
                root.draw(&Circle::new(p, th.px(0.4), colour(d).filled())).s()?;
                let style = th.font(0.7).pos(Pos::new(HPos::Center, VPos::Bottom));
                root.draw_text(&cost_text(d.cost), &style, (p.0, p.1 - th.px(0.55))).s()?;
                let below = th.font(0.65).pos(Pos::new(HPos::Center, VPos::Top));
                root.draw_text(&shown_text(&d.shown), &below, (p.0, p.1 + th.px(0.55))).s()?;
            }
            return Ok(());
        }
        // Two or more conditions: cells coloured by decision.
        let (cx, cy) = (conds[0], conds[1]);
        let (xs, ys) = (sw.values(cx), sw.values(cy));
        let deco = |k: usize| PALETTE[k % PALETTE.len()];
        let legend: Vec<(String, Mark)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let text = sw
                    .decisions
                    .iter()
                    .find(|d| &d.decision == n)
                    .map_or(n.clone(), |d| decision_words(sw, d, th.lang));
                (text, Mark::Swatch(deco(k).mix(0.45)))
            })
            .collect();
        let area = th.frame(root, &self.caption(th), &legend, &note)?;
        let mut facets: Vec<Vec<(String, String)>> = Vec::new();
        for d in &best {
            let f: Vec<(String, String)> =
                conds[2..].iter().map(|&c| (sw.params[c].clone(), cond_value(d, c))).collect();
            if !facets.contains(&f) {
                facets.push(f);
            }
        }
        facets.truncate(MAX_FACETS);
        let xf = |v: f64| xs.get(v.round() as usize).cloned().unwrap_or_default();
        let yf = |v: f64| ys.get(v.round() as usize).cloned().unwrap_or_default();
        for (facet, panel) in facets.iter().zip(panels(&area, facets.len())) {
            let panel = if facet.is_empty() {
                panel
            } else {
                let (head, rest) = panel.split_vertically(th.px(1.4));
                let style = th.font(0.75).pos(Pos::new(HPos::Center, VPos::Center));
                let title = facet
                    .iter()
                    .map(|(k, v)| format!("{} = {v}", key_label(sw, k, th.lang)))
                    .collect::<Vec<_>>()
                    .join(", ");
                head.draw_text(&title, &style, (head.dim_in_pixel().0 as i32 / 2, th.px(0.8))).s()?;
                rest
            };
            let (xl, yl) = (param_label(sw, cx, th.lang), param_label(sw, cy, th.lang));
            let chart =
                th.axes(&panel, &AxisSpec::categories(xs.len(), &xl, xf), &AxisSpec::categories(ys.len(), &yl, yf))?;
            for d in best.iter().filter(|d| conds[2..].iter().zip(facet).all(|(&c, (_, v))| cond_value(d, c) == *v)) {
                let (Some(xi), Some(yi)) =
                    (xs.iter().position(|v| *v == cond_value(d, cx)), ys.iter().position(|v| *v == cond_value(d, cy)))
                else {
                    continue;
                };
                let (x, y) = (xi as f64, yi as f64);
                let fillc = match names.iter().position(|n| *n == d.decision) {
                    Some(k) if !d.policy.is_empty() => deco(k).mix(0.45),
                    _ => RGBColor(235, 235, 235).mix(1.0),
                };
                chart
                    .plotting_area()
                    .draw(&Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], fillc.filled()))
                    .s()?;
                let centre = chart.backend_coord(&(x, y));
                let lines = if d.policy.is_empty() {
                    vec![th.t(L::NoDecision).to_string()]
                } else {
                    vec![decision_words(sw, d, th.lang), cost_text(d.cost), shown_text(&d.shown)]
                };
                for (k, l) in lines.iter().enumerate() {
                    let style = th.font(0.65).pos(Pos::new(HPos::Center, VPos::Center));
                    let dy = (k as i32 - 1) * th.px(0.9);
                    root.draw_text(l, &style, (centre.0, centre.1 + dy)).s()?;
                }
            }
        }
        Ok(())
    }
}
