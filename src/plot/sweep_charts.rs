//! Charts of a sweep: each headline metric against a swept parameter (one line per
//! policy, a shaded 95% CI band, the recommended point marked; one panel per value of
//! the other parameters), for grids of two or more parameters a heatmap per policy, and,
//! when the sweep has conditions and targets, a policy map: the best decision at each
//! scenario point.
//!
//! Axes carry human titles with units ([`axis_label`]); a target on a metric is drawn as
//! a dashed line; a wait metric whose policies differ by more than 20× (campus-only's
//! 30 h next to overflow's 0.4 h) is drawn on a log scale, so the region where the
//! decision lies stays readable.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Chart;
use super::data::Stat;
use super::folder::{AxisMeta, DecisionRow, SweepFolder};
use super::i18n::{L, Lang, fill};
use super::theme::{
    AxisSpec, INK, Mark, PALETTE, Textual, Theme, dashed, decimals_for, fmt_num, nice_ticks, padded, policy_colour,
    tick,
};
use crate::scenario::labels::DisplayNames;
use crate::sweep::Role;

/// The headline metrics, one line chart each.
pub const HEADLINE: [&str; 5] =
    ["total_cost_cny", "wait_mean_h", "wait_p95_h", "deadline_miss_rate", "cloud_job_share"];
/// The metrics drawn as heatmaps for grids.
pub const HEATMAP_METRICS: [&str; 2] = ["total_cost_cny", "wait_p95_h"];
/// Most panels drawn in one chart.
const MAX_FACETS: usize = 12;

/// The label of a metric and the factor to its unit (shares are drawn in %).
pub fn metric_label(metric: &str) -> (L, f64) {
    match metric {
        "total_cost_cny" => (L::MetricTotalCost, 1.0),
        "wait_mean_h" => (L::MetricWaitMean, 1.0),
        "wait_p95_h" => (L::MetricWaitP95, 1.0),
        "deadline_miss_rate" => (L::MetricDeadlineMiss, 100.0),
        "cloud_gpu_hour_share" => (L::MetricCloudGpuShare, 100.0),
        "group_reneged_share" => (L::MetricGroupReneged, 100.0),
        "group_balked_share" => (L::MetricGroupBalked, 100.0),
        _ => (L::MetricCloudShare, 100.0),
    }
}

/// A file-name-safe form of a policy name (its index when nothing of it is safe).
pub fn slug(name: &str, index: usize) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if s.chars().all(|c| c == '_') { format!("policy{index}") } else { s }
}

/// The distinct combinations of the values of parameters `from..` in order.
fn facets(sweep: &SweepFolder, from: usize) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for r in &sweep.rows {
        let f = r.1[from.min(r.1.len())..].to_vec();
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn facet_title(sweep: &SweepFolder, from: usize, values: &[String], lang: Lang) -> String {
    (from..sweep.params.len())
        .zip(values)
        .map(|(i, v)| format!("{} = {v}", param_label(sweep, i, lang)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Splits `area` into a grid of `n` panels.
fn panels<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, n: usize) -> Vec<DrawingArea<DB, Shift>> {
    let cols = (n as f64).sqrt().ceil().max(1.0) as usize;
    let rows = n.div_ceil(cols).max(1);
    area.split_evenly((rows, cols)).into_iter().take(n).collect()
}

/// Whether the recommendation is `policy` at the point with these values.
fn is_recommended(sweep: &SweepFolder, policy: &str, values: &[String]) -> bool {
    sweep.recommended.as_ref().is_some_and(|r| {
        r.policy == policy
            && r.values.len() == values.len()
            && r.values.iter().zip(&sweep.params).zip(values).all(|((rv, key), v)| &rv.0 == key && &rv.1 == v)
    })
}

/// A human axis title for a swept key: the scenario's `label`/`label_zh` when given, else
/// a known key pattern (`policies.overflow.threshold_hours` → "Overflow threshold (h)"),
/// else the key's last part in words with the unit its suffix names.
pub fn axis_label(key: &str, meta: Option<&AxisMeta>, lang: Lang) -> String {
    axis_label_named(key, meta, lang, &DisplayNames::default())
}

/// As [`axis_label`], with the policies, classes and seasons in the key called by their
/// display names.
pub fn axis_label_named(key: &str, meta: Option<&AxisMeta>, lang: Lang, names: &DisplayNames) -> String {
    if let Some(m) = meta {
        let given = if lang == Lang::Zh { m.label_zh.as_ref().or(m.label.as_ref()) } else { m.label.as_ref() };
        if let Some(l) = given {
            return l.clone();
        }
    }
    let t = |l: L| l.get(lang);
    let parts: Vec<&str> = key.split('.').collect();
    let policy = |id: &str| names.policies.get(id, lang);
    let season = |id: &str| names.seasons.get(id, lang);
    let class = |id: &str| names.classes.get(id, lang);
    match parts.as_slice() {
        ["policies", "overflow", "threshold_hours"] => t(L::AxisThreshold).to_string(),
        ["policies", name, "threshold_hours"] => fill(t(L::AxisThresholdOf), &[&policy(name)]),
        ["policies", name, "budget", "cap_cny"] => fill(t(L::AxisBudget), &[&policy(name)]),
        ["cloud", "offers", name, "rent_months"] => fill(t(L::AxisRentMonths), &[name]),
        ["cloud", "offers", name, "gpus"] => fill(t(L::AxisMonthlyGpus), &[name]),
        ["cloud", "offers", name, "price_per_gpu_hour_cny"] => fill(t(L::AxisHourlyPrice), &[name]),
        ["cloud", "offers", name, "price_per_gpu_month_cny"] => fill(t(L::AxisMonthlyPrice), &[name]),
        ["cloud", "offers", name, "capacity_gpus"] => fill(t(L::AxisCapacity), &[name]),
        ["background", "seasons", name, "multiplier"] => fill(t(L::AxisSeason), &[&season(name)]),
        ["workload", "seasons", name, "multiplier"] => fill(t(L::AxisOwnSeason), &[&season(name)]),
        ["background", "offered_load" | "offered_load_outside_seasons"] => t(L::AxisOfferedLoad).to_string(),
        ["workload", "classes", name, "jobs_per_week"] => fill(t(L::AxisJobsPerWeek), &[&class(name)]),
        ["campus", "gpus"] => t(L::AxisCampusGpus).to_string(),
        ["campus", "group_gpu_limit"] => t(L::AxisGroupLimit).to_string(),
        ["campus", "price_per_gpu_hour_cny"] => t(L::AxisCampusPrice).to_string(),
        _ => readable_key(&parts, lang),
    }
}

/// The fallback title: `workload.classes.debug.runtime_hours.mean` → "debug: runtime
/// hours mean"; a unit suffix of the last part becomes the unit.
fn readable_key(parts: &[&str], lang: Lang) -> String {
    let last = parts.last().copied().unwrap_or_default();
    let units: [(&str, L); 7] = [
        ("_hours", L::UnitHourParen),
        ("_h", L::UnitHourParen),
        ("_cny", L::UnitCnyParen),
        ("_days", L::UnitDayParen),
        ("_minutes", L::UnitMinuteParen),
        ("multiplier", L::UnitTimesParen),
        ("factor", L::UnitTimesParen),
    ];
    let (field, unit) =
        units.iter().find_map(|(suffix, l)| last.strip_suffix(suffix).map(|f| (f, l.get(lang)))).unwrap_or((last, ""));
    let mut words = field.trim_matches('_').replace('_', " ");
    if words.is_empty() {
        words = last.replace('_', " ");
    }
    // The nearest named list entry (a policy, class, offer or season) gives the context.
    let lists = ["policies", "offers", "classes", "seasons", "maintenance"];
    let context = parts.windows(2).rev().find(|w| lists.contains(&w[0])).map(|w| w[1]);
    let mut text = match context {
        Some(c) if c != last => format!("{c}: {words}"),
        _ => words,
    };
    if let Some(first) = text.get(0..1) {
        text = first.to_uppercase() + &text[1..];
    }
    format!("{text}{unit}")
}

/// The label of parameter `i` of a sweep.
fn param_label(sw: &SweepFolder, i: usize, lang: Lang) -> String {
    axis_label_named(&sw.params[i], sw.axes.get(i), lang, &sw.names)
}

/// A decision's label with its policy called by its display name (`decisions.csv`
/// labels start with the policy id).
fn decision_text(th: &Theme, d: &DecisionRow) -> String {
    match d.decision.strip_prefix(d.policy.as_str()) {
        Some(rest) if !d.policy.is_empty() => format!("{}{rest}", th.policy(&d.policy)),
        _ => d.decision.clone(),
    }
}

/// The parameter along the x axis of the line charts: the decision with the most values
/// when roles are known (the threshold, not the exam intensity), else the first.
pub fn x_param(sw: &SweepFolder) -> usize {
    let count = |i: usize| sw.values(i).len();
    (0..sw.params.len())
        .filter(|&i| sw.axes.get(i).and_then(|a| a.role) == Some(Role::Decision))
        .max_by(|&a, &b| count(a).cmp(&count(b)).then(b.cmp(&a)))
        .unwrap_or(0)
}

/// The values of every parameter but `x`.
fn others(values: &[String], x: usize) -> Vec<String> {
    values.iter().enumerate().filter(|(i, _)| *i != x).map(|(_, v)| v.clone()).collect()
}

/// The distinct combinations of the values of every parameter but `x`, in order.
fn facets_except(sweep: &SweepFolder, x: usize) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for r in &sweep.rows {
        let f = others(&r.1, x);
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn facet_title_except(sweep: &SweepFolder, x: usize, values: &[String], lang: Lang) -> String {
    let keys: Vec<usize> = (0..sweep.params.len()).filter(|i| *i != x).collect();
    keys.iter()
        .zip(values)
        .map(|(&i, v)| format!("{} = {v}", param_label(sweep, i, lang)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a wait metric's means spread over more than 20× (then drawn on a log scale).
fn wants_log(metric: &str, means: impl Iterator<Item = f64>) -> bool {
    if !metric.starts_with("wait_") {
        return false;
    }
    let (lo, hi) = means
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
    lo.is_finite() && hi / lo > 20.0
}

/// Log-scale ticks: 1, 2 and 5 × 10^k inside `[lo, hi]` (in log10 units).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    // Over more than two decades 1 and 5 × 10^k are enough.
    let steps: &[f64] = if hi - lo > 2.0 { &[1.0, 5.0] } else { &[1.0, 2.0, 5.0] };
    for k in (lo.floor() as i32 - 1)..=(hi.ceil() as i32) {
        for &m in steps {
            let v = (m * 10f64.powi(k)).log10();
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
    }
    out
}

/// The colour of target lines.
pub const TARGET_COLOUR: RGBColor = RGBColor(180, 0, 0);

/// One headline metric against a swept parameter ([`x_param`]).
pub struct MetricLines<'a> {
    /// The sweep.
    pub sweep: &'a SweepFolder,
    /// Metric name.
    pub metric: &'a str,
}

impl Chart for MetricLines<'_> {
    fn name(&self) -> String {
        format!("sweep_{}", self.metric)
    }

    fn caption(&self, th: &Theme) -> String {
        let key = if self.sweep.params.is_empty() {
            String::new()
        } else {
            param_label(self.sweep, x_param(self.sweep), th.lang)
        };
        fill(th.t(L::SweepTitle), &[th.t(metric_label(self.metric).0), &key])
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let (sw, metric) = (self.sweep, self.metric);
        let (label, scale) = metric_label(metric);
        let x = x_param(sw);
        let xs_text = sw.values(x);
        let numeric: Option<Vec<f64>> =
            xs_text.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
        let xpos = |v: &str| -> f64 {
            let k = xs_text.iter().position(|x| x == v).unwrap_or(0);
            numeric.as_ref().map_or(k as f64, |n| n[k])
        };
        let mut all = facets_except(sw, x);
        let trimmed = all.len() > MAX_FACETS;
        all.truncate(MAX_FACETS);
        let stats: Vec<&(usize, Vec<String>, Stat)> = sw.rows.iter().filter(|r| r.2.metric == metric).collect();
        // A target is drawn when it lies within one data span of the data (a far-away
        // bound such as a cost cap of 10^9 would squash the curves).
        let (dmin, dmax) = stats
            .iter()
            .flat_map(|r| [r.2.low, r.2.high, r.2.mean])
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
        let near =
            |v: f64| v >= dmin - (dmax - dmin).max(dmax.abs() * 0.1) && v <= dmax + (dmax - dmin).max(dmax.abs() * 0.1);
        let targets: Vec<&crate::target::Target> =
            sw.targets.iter().filter(|t| t.class.is_none() && t.metric.name() == metric && near(t.value)).collect();
        let log = wants_log(metric, stats.iter().map(|r| r.2.mean));
        // On a log scale values below the smallest positive bound are drawn at it.
        let floor = stats
            .iter()
            .flat_map(|r| [r.2.low, r.2.mean])
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(f64::INFINITY, f64::min)
            * scale
            * 0.8;
        let ty = move |v: f64| if log { v.max(floor).log10() } else { v };
        let (ymin, ymax) = stats
            .iter()
            .flat_map(|r| [r.2.low, r.2.high, r.2.mean])
            .chain(targets.iter().map(|t| t.value))
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v * scale), a.1.max(v * scale)));
        // Every headline metric is non-negative: CI bands reaching below 0 are clipped.
        let (y0, y1) = if log {
            padded(ty(ymin.max(floor)), ty(ymax), 0.04)
        } else {
            let (a, b) = padded(ymin.max(0.0), ymax, 0.06);
            (a.max(0.0), b)
        };
        let (xmin, xmax) = match &numeric {
            Some(n) => n.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &v| (a.0.min(v), a.1.max(v))),
            None => (0.0, xs_text.len().saturating_sub(1) as f64),
        };
        let (x0, x1) = padded(xmin, xmax, 0.04);
        let xticks: Vec<f64> = match &numeric {
            Some(n) if n.len() <= 12 => n.clone(),
            Some(_) => nice_ticks(xmin, xmax, 8),
            None => (0..xs_text.len()).map(|k| k as f64).collect(),
        };
        let best_marks = sw.has_decisions();
        let mut legend = th.policy_legend(&sw.policies);
        legend.push((th.t(L::Ci95).into(), Mark::Swatch(INK.mix(0.18))));
        let target_text = |t: &crate::target::Target| {
            let op = if t.cmp == crate::target::Cmp::AtMost { "≤" } else { "≥" };
            let v = t.value * scale;
            fill(th.t(L::TargetLine), &[&format!("{op} {}", fmt_num(v, decimals_for(v)).trim_end_matches(".00"))])
        };
        for t in &targets {
            legend.push((target_text(t), Mark::Dashed(TARGET_COLOUR)));
        }
        let marker = if best_marks { L::BestAtPoint } else { L::Recommended };
        if sw.recommended.is_some() || best_marks {
            legend.push((th.t(marker).into(), Mark::Diamond));
        }
        let mut note = fill(th.t(L::NoteSweep), &[&sw.replications_count().to_string()]);
        if trimmed {
            note.push_str(&format!(" ({MAX_FACETS}/{})", facets_except(sw, x).len()));
        }
        let area = th.frame(root, &self.caption(th), &legend, &note)?;
        let xspan = x1 - x0;
        let xf = |v: f64| match &numeric {
            // A swept value is labelled as written (1.15, not 1.1).
            Some(n) => match n.iter().position(|x| (x - v).abs() < 1e-9) {
                Some(k) => xs_text[k].clone(),
                None => tick(v, xspan.max(if v.fract() == 0.0 { 20.0 } else { 1.0 })),
            },
            None => xs_text.get(v.round() as usize).cloned().unwrap_or_default(),
        };
        let yspan = y1 - y0;
        let yf = move |v: f64| {
            if log {
                let real = 10f64.powf(v);
                if real >= 1.0 {
                    fmt_num(real, 0)
                } else {
                    format!("{real:.2}").trim_end_matches('0').trim_end_matches('.').to_string()
                }
            } else {
                tick(v, yspan)
            }
        };
        let key = param_label(sw, x, th.lang);
        let y_desc = if log { fill(th.t(L::LogScale), &[th.t(label)]) } else { th.t(label).to_string() };
        for (facet, panel) in all.iter().zip(panels(&area, all.len())) {
            let panel = if all.len() > 1 || !facet.is_empty() {
                let (head, rest) = panel.split_vertically(th.px(1.4));
                let style = th.font(0.75).pos(Pos::new(HPos::Center, VPos::Center));
                let w = head.dim_in_pixel().0 as i32;
                head.draw_text(&facet_title_except(sw, x, facet, th.lang), &style, (w / 2, th.px(0.8))).s()?;
                rest
            } else {
                panel
            };
            let x_spec = AxisSpec::with_ticks(x0, x1, xticks.clone(), &key, &xf);
            let y_spec = if log {
                AxisSpec::with_ticks(y0, y1, log_ticks(y0, y1), &y_desc, &yf)
            } else {
                AxisSpec::linear(y0, y1, 6, &y_desc, &yf)
            };
            let chart = th.axes(&panel, &x_spec, &y_spec)?;
            let plot = chart.plotting_area();
            for t in &targets {
                let y = ty(t.value * scale);
                if y >= y0 && y <= y1 {
                    let (a, b) = (chart.backend_coord(&(x0, y)), chart.backend_coord(&(x1, y)));
                    dashed(root, &[a, b], th.px(0.5), th.px(0.3), TARGET_COLOUR.stroke_width(th.lw(2)))?;
                    let style = th.font(0.7).color(&TARGET_COLOUR).pos(Pos::new(HPos::Right, VPos::Bottom));
                    root.draw_text(&target_text(t), &style, (b.0 - th.px(0.2), b.1 - th.px(0.15))).s()?;
                }
            }
            for (i, policy) in sw.policies.iter().enumerate() {
                let mut pts: Vec<(f64, &Stat, bool)> = stats
                    .iter()
                    .filter(|r| r.2.policy == *policy && others(&r.1, x) == facet[..] && r.2.mean.is_finite())
                    .map(|r| {
                        let marked =
                            if best_marks { sw.is_best(policy, &r.1) } else { is_recommended(sw, policy, &r.1) };
                        (xpos(&r.1[x]), &r.2, marked)
                    })
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let c = policy_colour(i);
                let band: Vec<(f64, f64)> = pts
                    .iter()
                    .filter(|p| p.1.low.is_finite())
                    .map(|p| (p.0, ty(p.1.low * scale).clamp(y0, y1)))
                    .chain(
                        pts.iter()
                            .rev()
                            .filter(|p| p.1.high.is_finite())
                            .map(|p| (p.0, ty(p.1.high * scale).clamp(y0, y1))),
                    )
                    .collect();
                if band.len() >= 4 {
                    plot.draw(&Polygon::new(band, c.mix(0.12).filled())).s()?;
                }
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, ty(p.1.mean * scale))).collect();
                plot.draw(&PathElement::new(line.clone(), c.stroke_width(th.px(0.12).max(th.lw(2) as i32) as u32)))
                    .s()?;
                for &p in &line {
                    plot.draw(&Circle::new(p, th.px(0.2), c.filled())).s()?;
                }
                for p in pts.iter().filter(|p| p.2) {
                    let at = chart.backend_coord(&(p.0, ty(p.1.mean * scale)));
                    let r = th.px(0.6);
                    let d =
                        vec![(at.0, at.1 - r), (at.0 + r, at.1), (at.0, at.1 + r), (at.0 - r, at.1), (at.0, at.1 - r)];
                    root.draw(&PathElement::new(d, BLACK.stroke_width(th.lw(3)))).s()?;
                    if !best_marks {
                        let style = th.font(0.75).pos(Pos::new(HPos::Left, VPos::Bottom));
                        root.draw_text(th.t(L::Recommended), &style, (at.0 + r, at.1 - r)).s()?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// One metric of one policy over the grid of the first two parameters.
pub struct Heatmap<'a> {
    /// The sweep.
    pub sweep: &'a SweepFolder,
    /// Metric name.
    pub metric: &'a str,
    /// Policy name.
    pub policy: &'a str,
    /// Policy index (for the file name).
    pub index: usize,
}

/// A light-to-dark sequential colour scale (pale yellow → dark red) at `t` in [0, 1].
pub fn heat(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [(255, 255, 204), (254, 217, 118), (253, 141, 60), (227, 26, 28), (128, 0, 38)];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let f = t * (STOPS.len() - 1) as f64;
    let k = (f.floor() as usize).min(STOPS.len() - 2);
    let u = f - k as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * u).round() as u8;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

impl Chart for Heatmap<'_> {
    fn name(&self) -> String {
        format!("heatmap_{}_{}", self.metric, slug(self.policy, self.index))
    }

    fn caption(&self, th: &Theme) -> String {
        fill(th.t(L::HeatmapTitle), &[th.t(metric_label(self.metric).0), &th.policy(self.policy)])
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let (sw, metric) = (self.sweep, self.metric);
        let (label, scale) = metric_label(metric);
        let (xs, ys) = (sw.values(0), sw.values(1));
        let means = sw.rows.iter().filter(|r| r.2.metric == metric).map(|r| r.2.mean * scale).filter(|v| v.is_finite());
        let (lo, hi) = means.fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
        let (lo, hi) = if lo.is_finite() { (lo, if hi > lo { hi } else { lo + 1.0 }) } else { (0.0, 1.0) };
        let mut all = facets(sw, 2);
        all.truncate(MAX_FACETS);
        let note = th.t(L::NoteHeatmap);
        let area = th.frame(root, &self.caption(th), &[], note)?;
        let w = area.dim_in_pixel().0 as i32;
        let (maps, bar) = area.split_horizontally(w - th.px(7.0));
        let xf = |v: f64| xs.get(v.round() as usize).cloned().unwrap_or_default();
        let yf = |v: f64| ys.get(v.round() as usize).cloned().unwrap_or_default();
        for (facet, panel) in all.iter().zip(panels(&maps, all.len())) {
            let panel = if facet.is_empty() {
                panel
            } else {
                let (head, rest) = panel.split_vertically(th.px(1.4));
                let style = th.font(0.75).pos(Pos::new(HPos::Center, VPos::Center));
                head.draw_text(
                    &facet_title(sw, 2, facet, th.lang),
                    &style,
                    (head.dim_in_pixel().0 as i32 / 2, th.px(0.8)),
                )
                .s()?;
                rest
            };
            let (xl, yl) = (param_label(sw, 0, th.lang), param_label(sw, 1, th.lang));
            let x_spec = AxisSpec::categories(xs.len(), &xl, &xf);
            let y_spec = AxisSpec::categories(ys.len(), &yl, &yf);
            let chart = th.axes(&panel, &x_spec, &y_spec)?;
            for (xi, xv) in xs.iter().enumerate() {
                for (yi, yv) in ys.iter().enumerate() {
                    let mut values = vec![xv.clone(), yv.clone()];
                    values.extend(facet.iter().cloned());
                    let Some(s) = sw.stat(&values, self.policy, metric) else { continue };
                    let (x, y) = (xi as f64, yi as f64);
                    let v = s.mean * scale;
                    let colour = if v.is_finite() { heat((v - lo) / (hi - lo)) } else { RGBColor(235, 235, 235) };
                    chart
                        .plotting_area()
                        .draw(&Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], colour.filled()))
                        .s()?;
                    let dark =
                        0.299 * f64::from(colour.0) + 0.587 * f64::from(colour.1) + 0.114 * f64::from(colour.2) < 140.0;
                    let ink = if dark { WHITE } else { INK };
                    let centre = chart.backend_coord(&(x, y));
                    let a = chart.backend_coord(&(x - 0.5, y + 0.5));
                    let b = chart.backend_coord(&(x + 0.5, y - 0.5));
                    let cell_h = (b.1 - a.1).abs();
                    let hw = s.half_width() * scale;
                    let two_lines = cell_h > th.px(2.8) && hw.is_finite();
                    let style = th.font(0.85).color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                    let dy = if two_lines { th.px(0.45) } else { 0 };
                    let dec = decimals_for(v);
                    root.draw_text(&fmt_num(v, dec), &style, (centre.0, centre.1 - dy)).s()?;
                    if two_lines {
                        let small = th.font(0.65).color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                        root.draw_text(&format!("± {}", fmt_num(hw, dec)), &small, (centre.0, centre.1 + th.px(0.6)))
                            .s()?;
                    }
                    if is_recommended(sw, self.policy, &values) {
                        root.draw(&Rectangle::new(
                            [
                                (a.0 + th.lw(2) as i32, a.1 + th.lw(2) as i32),
                                (b.0 - th.lw(2) as i32, b.1 - th.lw(2) as i32),
                            ],
                            BLACK.stroke_width(th.lw(4)),
                        ))
                        .s()?;
                    }
                }
            }
        }
        // The colour bar, with the metric's range.
        let (bw, bh) = bar.dim_in_pixel();
        let (top, bottom) = (th.px(1.5), bh as i32 - th.px(3.5));
        let (left, right) = (th.px(0.8), th.px(2.0));
        let steps = 64;
        for k in 0..steps {
            let y_a = bottom - (bottom - top) * k / steps;
            let y_b = bottom - (bottom - top) * (k + 1) / steps;
            let c = heat((f64::from(k) + 0.5) / f64::from(steps));
            bar.draw(&Rectangle::new([(left, y_b), (right, y_a)], c.filled())).s()?;
        }
        bar.draw(&Rectangle::new([(left, top), (right, bottom)], INK.stroke_width(th.lw(1)))).s()?;
        let font = th.font(0.7).pos(Pos::new(HPos::Left, VPos::Center));
        for t in nice_ticks(lo, hi, 8) {
            let y = bottom - ((t - lo) / (hi - lo) * f64::from(bottom - top)).round() as i32;
            bar.draw(&PathElement::new(vec![(right, y), (right + th.px(0.3), y)], INK.stroke_width(th.lw(1)))).s()?;
            bar.draw_text(&tick(t, hi - lo), &font, (right + th.px(0.45), y)).s()?;
        }
        let desc = th.font(0.75).transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
        bar.draw_text(th.t(label), &desc, (bw as i32 - th.px(1.2), (top + bottom) / 2)).s()?;
        Ok(())
    }
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
fn cost_text(c: (f64, f64, f64)) -> String {
    format!("¥{} ± {}", fmt_num(c.0, 0), fmt_num((c.2 - c.1) / 2.0, 0))
}

/// The shown metric (a rate in %) as "name 1.23 ± 0.45".
fn shown_text(s: &Option<(String, f64, f64, f64)>) -> String {
    let Some((name, m, lo, hi)) = s else { return String::new() };
    let metric = name.rsplit(':').next().unwrap_or(name);
    let pct = crate::metrics::Metric::from_name(metric).is_some_and(|m| m.shown_in_percent());
    let k = if pct { 100.0 } else { 1.0 };
    let d = decimals_for(m * k).min(2);
    format!("{name} {} ± {}{}", fmt_num(m * k, d), fmt_num((hi - lo) / 2.0 * k, d), if pct { "%" } else { "" })
}

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
        let best: Vec<&super::folder::DecisionRow> = sw.decisions.iter().filter(|d| d.kind == "best").collect();
        let shown_name = best.iter().find_map(|d| d.shown.as_ref().map(|s| s.0.clone())).unwrap_or_default();
        let note = fill(th.t(L::NotePolicyMap), &[&shown_name]);
        // Decisions in the order they first appear (best rows, then robust rows).
        let mut names: Vec<String> = Vec::new();
        for d in sw.decisions.iter().filter(|d| !d.policy.is_empty()) {
            if !names.contains(&d.decision) {
                names.push(d.decision.clone());
            }
        }
        let none_row = best.iter().any(|d| d.policy.is_empty());
        let colour = |d: &super::folder::DecisionRow| {
            sw.policies.iter().position(|p| *p == d.policy).map_or(RGBColor(150, 150, 150), policy_colour)
        };
        let cond_value = |d: &super::folder::DecisionRow, c: usize| {
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
                .map(|n| sw.decisions.iter().find(|d| &d.decision == n).map_or(n.clone(), |d| decision_text(th, d)))
                .collect();
            if none_row {
                rows.push(th.t(L::NoDecision).to_string());
            }
            let row_of = |d: &super::folder::DecisionRow| {
                if d.policy.is_empty() {
                    rows.len() - 1
                } else {
                    names.iter().position(|n| *n == d.decision).unwrap_or(0)
                }
            };
            let mut legend: Vec<(String, Mark)> = Vec::new();
            let robust = [("minimax-regret", L::RobustMinimax, 0.16), ("worst-case", L::RobustWorstCase, 0.10)];
            for (kind, l, alpha) in robust {
                if sw.decisions.iter().any(|d| d.kind == kind) {
                    legend.push((th.t(l).to_string(), Mark::Swatch(RGBColor(0, 114, 178).mix(alpha))));
                }
            }
            let area = th.frame(root, &self.caption(th), &legend, &note)?;
            let xspan = x1 - x0;
            let xf = |v: f64| match &numeric {
                Some(n) => match n.iter().position(|x| (x - v).abs() < 1e-9) {
                    Some(k) => xs[k].clone(),
                    None => tick(v, xspan.max(1.0)),
                },
                None => xs.get(v.round() as usize).cloned().unwrap_or_default(),
            };
            let yf = |v: f64| rows.get(v.round() as usize).cloned().unwrap_or_default();
            let xticks: Vec<f64> = match &numeric {
                Some(n) => n.clone(),
                None => (0..xs.len()).map(|k| k as f64).collect(),
            };
            let xl = param_label(sw, c, th.lang);
            let x_spec = AxisSpec::with_ticks(x0, x1, xticks, &xl, &xf);
            let y_spec = AxisSpec::categories(rows.len(), th.t(L::DecisionAxis), &yf);
            let chart = th.axes(&area, &x_spec, &y_spec)?;
            let plot = chart.plotting_area();
            for (kind, _, alpha) in robust {
                if let Some(d) = sw.decisions.iter().find(|d| d.kind == kind) {
                    let y = row_of(d) as f64;
                    plot.draw(&Rectangle::new(
                        [(x0, y - 0.35), (x1, y + 0.35)],
                        RGBColor(0, 114, 178).mix(alpha).filled(),
                    ))
                    .s()?;
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
        let legend: Vec<(String, Mark)> =
            names.iter().enumerate().map(|(k, n)| (n.clone(), Mark::Swatch(deco(k).mix(0.45)))).collect();
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
                let title = facet.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ");
                head.draw_text(&title, &style, (head.dim_in_pixel().0 as i32 / 2, th.px(0.8))).s()?;
                rest
            };
            let (xl, yl) = (param_label(sw, cx, th.lang), param_label(sw, cy, th.lang));
            let chart =
                th.axes(&panel, &AxisSpec::categories(xs.len(), &xl, &xf), &AxisSpec::categories(ys.len(), &yl, &yf))?;
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
                    vec![decision_text(th, d), cost_text(d.cost), shown_text(&d.shown)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heat_scale_runs_from_pale_to_dark() {
        assert_eq!(heat(0.0), RGBColor(255, 255, 204));
        assert_eq!(heat(1.0), RGBColor(128, 0, 38));
        assert_eq!(heat(f64::NAN), heat(0.0));
    }

    #[test]
    fn keys_become_human_axis_titles_with_units() {
        let en = |k: &str| axis_label(k, None, Lang::En);
        let zh = |k: &str| axis_label(k, None, Lang::Zh);
        assert_eq!(en("policies.overflow.threshold_hours"), "Overflow threshold (h)");
        assert_eq!(zh("policies.overflow.threshold_hours"), "溢出阈值（小时）");
        assert_eq!(en("policies.timeout-12h.threshold_hours"), "Overflow threshold of timeout-12h (h)");
        assert_eq!(en("cloud.offers.a800-monthly.gpus"), "Monthly GPUs rented (a800-monthly)");
        assert_eq!(en("background.seasons.final-exams.multiplier"), "Other groups' load in final-exams (× base)");
        assert_eq!(
            zh("cloud.offers.rtx4090-hourly.price_per_gpu_hour_cny"),
            "rtx4090-hourly的按小时价格（元/GPU小时）"
        );
        // Readable fallbacks, with the unit the suffix names.
        assert_eq!(en("workload.classes.debug.walltime_factor"), "Debug: walltime (×)");
        assert_eq!(en("campus.max_walltime_hours"), "Max walltime (h)");
        assert_eq!(zh("campus.max_walltime_hours"), "Max walltime（小时）");
        assert_eq!(en("exam-intensity"), "Exam-intensity");
        // A label given in the scenario wins, per language.
        let meta = AxisMeta { role: None, label: Some("Exam intensity".into()), label_zh: Some("考试强度".into()) };
        assert_eq!(axis_label("exam-intensity", Some(&meta), Lang::Zh), "考试强度");
        assert_eq!(axis_label("exam-intensity", Some(&meta), Lang::En), "Exam intensity");
    }

    #[test]
    fn wait_metrics_spread_over_20_times_go_on_a_log_scale() {
        assert!(wants_log("wait_p95_h", [31.0, 0.35, 1.2].into_iter()));
        assert!(!wants_log("wait_p95_h", [3.0, 0.35].into_iter()));
        assert!(!wants_log("total_cost_cny", [1e6, 1.0].into_iter()));
        let t = log_ticks(-0.5, 1.5);
        assert_eq!(
            t.iter().map(|v| (10f64.powf(*v) * 10.0).round() / 10.0).collect::<Vec<_>>(),
            [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
        );
    }

    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("overflow-4h", 1), "overflow-4h");
        assert_eq!(slug("a b/c", 1), "a_b_c");
        assert_eq!(slug("方案", 3), "policy3");
    }
}
