//! The tornado chart of the sensitivity band (`charts/sensitivity_tornado`), drawn from
//! `sensitivity.csv` alone: per uncertain input (the widest spread on top), one bar per
//! policy from its paired difference at the input's low value to that at its high value,
//! a dot at the scenario's value, and a whisker for the 95% CI of the difference at each
//! of the three levels; cost on the left, the p95 wait (the metric the tables and the
//! targets use) on the right.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::Chart;
use super::data::CsvTable;
use super::error::PlotError;
use super::folder::RunFolder;
use super::theme::{AxisSpec, INK, Mark, Textual, Theme, ci_bar, policy_colour};
use crate::i18n::{L, Lang, fill};
use crate::sensitivity::band::Row;

/// Columns of `sensitivity.csv` the chart and the report use.
pub const COLUMNS: &[&str] = &[
    "input",
    "level",
    "value",
    "policy",
    "metric",
    "mean_diff",
    "ci95_low",
    "ci95_high",
    "replications",
    "recommended",
    "baseline",
    "mean",
    "meets_targets",
    "targets",
    "label",
    "label_zh",
];

/// Reads `sensitivity.csv`.
///
/// # Errors
/// A missing column or a cell that is not a number (file, line, column).
pub fn read(t: &CsvTable) -> Result<Vec<Row>, PlotError> {
    (0..t.rows.len())
        .map(|i| {
            Ok(Row {
                input: t.text(i, "input").to_string(),
                level: t.text(i, "level").to_string(),
                value: t.num(i, "value")?,
                policy: t.text(i, "policy").to_string(),
                metric: t.text(i, "metric").to_string(),
                mean_diff: t.num(i, "mean_diff")?,
                ci95_low: t.num(i, "ci95_low")?,
                ci95_high: t.num(i, "ci95_high")?,
                recommended: t.text(i, "recommended").to_string(),
                baseline: t.text(i, "baseline").to_string(),
                mean: t.num(i, "mean")?,
                replications: t.num(i, "replications")?.max(0.0) as usize,
                meets_targets: t.text(i, "meets_targets") == "true",
                targets: t.text(i, "targets").to_string(),
                label: t.text(i, "label").to_string(),
                label_zh: t.text(i, "label_zh").to_string(),
            })
        })
        .collect()
}

/// An input's name in a language (its `label_zh` for Chinese, else its `label`, else its id).
pub fn input_label(rows: &[Row], input: &str, lang: Lang) -> String {
    let Some(r) = rows.iter().find(|r| r.input == input) else { return input.to_string() };
    let zh = (lang == Lang::Zh).then_some(&r.label_zh).filter(|s| !s.is_empty());
    zh.or(Some(&r.label).filter(|s| !s.is_empty())).cloned().unwrap_or_else(|| input.to_string())
}

/// Inputs in the order of their rows.
pub fn inputs(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        if !out.contains(&r.input) {
            out.push(r.input.clone());
        }
    }
    out
}

/// The paired difference of `policy` on `metric` at `level` of `input` (NaN if absent).
pub fn diff(rows: &[Row], input: &str, level: &str, policy: &str, metric: &str) -> f64 {
    rows.iter()
        .find(|r| r.input == input && r.level == level && r.policy == policy && r.metric == metric)
        .map_or(f64::NAN, |r| r.mean_diff)
}

/// The 95% CI of the paired difference of `policy` on `metric` at `level` of `input`
/// (NaN ends if absent).
pub fn diff_ci(rows: &[Row], input: &str, level: &str, policy: &str, metric: &str) -> (f64, f64) {
    rows.iter()
        .find(|r| r.input == input && r.level == level && r.policy == policy && r.metric == metric)
        .map_or((f64::NAN, f64::NAN), |r| (r.ci95_low, r.ci95_high))
}

/// The metrics of the two panels: cost, and the p95 wait the tables and targets use.
const PANELS: [(&str, L); 2] = [("total_cost_cny", L::TornadoCostAxis), ("wait_p95_h", L::TornadoWaitAxis)];

/// The tornado chart.
pub struct Tornado<'a> {
    /// The run (its `sensitivity` rows are drawn).
    pub run: &'a RunFolder,
}

impl Tornado<'_> {
    /// Non-baseline policies, in the scenario's order, with their colour index.
    fn policies(&self) -> Vec<(usize, String)> {
        let base = self.run.sensitivity.first().map(|r| r.baseline.clone()).unwrap_or_default();
        self.run.policies.iter().enumerate().filter(|(_, p)| **p != base).map(|(i, p)| (i, p.clone())).collect()
    }

    /// Inputs sorted by their widest spread (largest first; drawn top down).
    fn sorted_inputs(&self) -> Vec<String> {
        let rows = &self.run.sensitivity;
        let policies = self.policies();
        let spread = |input: &str| {
            let mut s: f64 = 0.0;
            for (_, p) in &policies {
                let (lo, hi) = (diff(rows, input, "low", p, PANELS[1].0), diff(rows, input, "high", p, PANELS[1].0));
                if (hi - lo).is_finite() {
                    s = s.max((hi - lo).abs());
                }
            }
            s
        };
        let mut v = inputs(rows);
        v.sort_by(|a, b| spread(b).total_cmp(&spread(a)));
        v
    }
}

impl Chart for Tornado<'_> {
    fn name(&self) -> String {
        "sensitivity_tornado".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::TornadoTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let rows = &self.run.sensitivity;
        let policies = self.policies();
        let legend: Vec<(String, Mark)> =
            policies.iter().map(|(i, p)| (th.policy(p), Mark::Swatch(policy_colour(*i).to_rgba()))).collect();
        let reps = rows.first().map_or(String::new(), |r| r.replications.to_string());
        let area = th.frame(root, &self.caption(th), &legend, &fill(th.t(L::NoteTornado), &[&reps]))?;
        let inputs = self.sorted_inputs();
        let n = inputs.len().max(1);
        let k = policies.len().max(1);
        let base = rows.first().map(|r| th.policy(&r.baseline)).unwrap_or_default();
        let labels: Vec<String> = inputs.iter().map(|i| input_label(rows, i, th.lang)).collect();
        let w = area.dim_in_pixel().0 as i32;
        let (left, right) = area.split_horizontally(w / 2 + th.px(2.0));
        for (panel, (metric, axis)) in [left, right].iter().zip(PANELS) {
            let mut lo: f64 = 0.0;
            let mut hi: f64 = 0.0;
            for input in &inputs {
                for (_, p) in &policies {
                    for level in ["low", "central", "high"] {
                        let (a, b) = diff_ci(rows, input, level, p, metric);
                        for v in [diff(rows, input, level, p, metric), a, b] {
                            if v.is_finite() {
                                lo = lo.min(v);
                                hi = hi.max(v);
                            }
                        }
                    }
                }
            }
            let pad = ((hi - lo) * 0.08).max(1e-9);
            let (x0, x1) = (lo - pad, hi + pad);
            let names = labels.clone();
            let first = metric == PANELS[0].0;
            let yf = move |v: f64| {
                let r = v.round() as i64;
                if first && (0..n as i64).contains(&r) { names[n - 1 - r as usize].clone() } else { String::new() }
            };
            let mut y_spec = AxisSpec::with_ticks(-0.5, n as f64 - 0.5, (0..n).map(|r| r as f64).collect(), "", yf);
            y_spec.labels = first;
            let x_spec = AxisSpec::linear(x0, x1, 5, &fill(th.t(axis), &[&base]));
            let chart = th.axes(panel, &x_spec, &y_spec)?;
            let plot = chart.plotting_area();
            plot.draw(&PathElement::new(vec![(0.0, -0.5), (0.0, n as f64 - 0.5)], INK.stroke_width(th.lw(2)))).s()?;
            let band_h = 0.8 / k as f64;
            for (row, input) in inputs.iter().enumerate() {
                let yc = (n - 1 - row) as f64;
                for (j, (ci, p)) in policies.iter().enumerate() {
                    let y = yc + 0.4 - band_h * (j as f64 + 0.5);
                    let (a, m, b) = (
                        diff(rows, input, "low", p, metric),
                        diff(rows, input, "central", p, metric),
                        diff(rows, input, "high", p, metric),
                    );
                    let colour = policy_colour(*ci);
                    let h = band_h * 0.38;
                    if a.is_finite() && m.is_finite() {
                        plot.draw(&Rectangle::new([(a.min(m), y - h), (a.max(m), y + h)], colour.mix(0.45).filled()))
                            .s()?;
                    }
                    if b.is_finite() && m.is_finite() {
                        plot.draw(&Rectangle::new([(b.min(m), y - h), (b.max(m), y + h)], colour.filled())).s()?;
                    }
                    // Whiskers: the 95% CI of the difference at each level, above the bar.
                    for level in ["low", "central", "high"] {
                        let (a, b) = diff_ci(rows, input, level, p, metric);
                        let style = INK.stroke_width(th.lw(1));
                        ci_bar(root, &chart, (a, y), (b, y), th.px(0.15), style)?;
                    }
                    if m.is_finite() {
                        let at = chart.backend_coord(&(m, y));
                        root.draw(&Circle::new(at, th.px(0.22), INK.filled())).s()?;
                    }
                }
            }
        }
        Ok(())
    }
}
