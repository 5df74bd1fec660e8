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

mod facets;
mod heatmap;
mod policy_map;

use facets::FacetGrid;

pub use heatmap::{Heatmap, heat};
pub use policy_map::{PolicyMap, cost_text, decision_words, shown_name, shown_text};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::data::Stat;
use super::folder::{AxisMeta, SweepFolder};
use super::theme::{AxisSpec, INK, Mark, Scale, Textual, Theme, Ticks, dashed, decimals_for, padded, policy_colour};
use crate::i18n::{L, Lang, fill};
use crate::plot::chart::Chart;
use crate::scenario::keys::Role;
use crate::scenario::labels::DisplayNames;
use crate::write::fmt_num;

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
    let stem = field.trim_matches('_');
    let mut words = stem.replace('_', " ");
    if words.is_empty() {
        words = last.replace('_', " ");
    }
    // Abbreviations keep their capitals ("GPUs", not "Gpus" after the first letter is raised).
    words = words
        .split(' ')
        .map(|w| match w {
            "gpus" => "GPUs",
            "gpu" => "GPU",
            "vram" => "VRAM",
            "gb" => "GB",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" ");
    let zh = if lang == Lang::Zh { crate::i18n::field_zh(if stem.is_empty() { last } else { stem }) } else { None };
    if let Some(z) = zh {
        words = z.to_string();
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

/// The title of the swept key `key` (its axis label when the sweep has it, else the key
/// in words): how decisions, facets and the report name a swept value.
pub fn key_label(sw: &SweepFolder, key: &str, lang: Lang) -> String {
    match sw.params.iter().position(|p| p == key) {
        Some(i) => param_label(sw, i, lang),
        None => axis_label_named(key, None, lang, &sw.names),
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
        // The band is drawn at the confidence each bound of the recommendation had (the
        // stored 95% t interval scaled to it), so what the chart shows as inside the band
        // is what the rule accepted.
        let widened = |st: &Stat| -> Stat {
            let k = match sw.band_confidence {
                Some(c) if st.replications >= 2 => crate::stats::ratio_to_95(c, st.replications as usize),
                _ => 1.0,
            };
            Stat { low: st.mean - (st.mean - st.low) * k, high: st.mean + (st.high - st.mean) * k, ..st.clone() }
        };
        let stats: Vec<(usize, Vec<String>, Stat)> =
            sw.rows.iter().filter(|r| r.2.metric == metric).map(|r| (r.0, r.1.clone(), widened(&r.2))).collect();
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
        // More than 12 swept values: round ticks ([`Ticks`]) instead of every value.
        let x_auto = numeric.as_ref().filter(|n| n.len() > 12).map(|_| Ticks::new(xmin, xmax, 8));
        let xticks: Vec<f64> = match (&numeric, &x_auto) {
            (_, Some(t)) => t.positions.clone(),
            (Some(n), None) => n.clone(),
            (None, _) => (0..xs_text.len()).map(|k| k as f64).collect(),
        };
        let best_marks = sw.has_decisions();
        let mut legend = th.policy_legend(&sw.policies);
        let band_text = sw.band_confidence.map(|c| crate::write::fmt_num(c * 100.0, 2) + "%");
        let band_label = band_text.as_ref().map_or_else(|| th.t(L::Ci95).to_string(), |b| fill(th.t(L::CiAt), &[b]));
        legend.push((band_label, Mark::Swatch(INK.mix(0.18))));
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
        let reps = sw.replications_count().to_string();
        let mut note = match &band_text {
            Some(b) => fill(th.t(L::NoteSweepAt), &[b, &reps]),
            None => fill(th.t(L::NoteSweep), &[&reps]),
        };
        if trimmed {
            note.push_str(&format!(" ({MAX_FACETS}/{})", facets_except(sw, x).len()));
        }
        let area = th.frame(root, &self.caption(th), &legend, &note)?;
        let xf = |v: f64| match (&numeric, &x_auto) {
            (_, Some(t)) => t.label(v),
            // A swept value is labelled as written (1.15, not 1.1).
            (Some(n), None) => {
                n.iter().position(|x| (x - v).abs() < 1e-9).map_or_else(|| Ticks::exact(v), |k| xs_text[k].clone())
            }
            (None, _) => xs_text.get(v.round() as usize).cloned().unwrap_or_default(),
        };
        let log_label = |v: f64| {
            let real = 10f64.powf(v);
            if real >= 1.0 {
                fmt_num(real, 0)
            } else {
                // One significant digit is what a 1-2-5 log tick has (0.002, not 0).
                let decimals = ((-real.log10()).ceil() as usize).clamp(1, 6);
                format!("{real:.decimals$}").trim_end_matches('0').trim_end_matches('.').to_string()
            }
        };
        let key = param_label(sw, x, th.lang);
        let y_desc = if log { fill(th.t(L::LogScale), &[th.t(label)]) } else { th.t(label).to_string() };
        let draw_panel = |panel: &DrawingArea<DB, Shift>,
                          facet: &[String],
                          x_desc: &str,
                          y_desc: &str|
         -> Result<(), String> {
            let mut x_spec = AxisSpec::with_ticks(x0, x1, xticks.clone(), x_desc, xf);
            x_spec.scale = if numeric.is_some() { Scale::Linear } else { Scale::Named };
            let y_spec = if log {
                let mut spec = AxisSpec::with_ticks(y0, y1, log_ticks(y0, y1), y_desc, log_label);
                spec.scale = Scale::Log10;
                spec
            } else {
                AxisSpec::linear(y0, y1, 6, y_desc)
            };
            let chart = th.axes(panel, &x_spec, &y_spec)?;
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
            Ok(())
        };
        if all.len() == 1 && all[0].is_empty() {
            return draw_panel(&area, &all[0], &key, &y_desc);
        }
        let grid = FacetGrid::new(sw, x, &all);
        let cells = grid.layout(&area, th, &key, &y_desc)?;
        for (facet, cell) in all.iter().zip(cells) {
            draw_panel(&cell, facet, "", "")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(zh("campus.max_walltime_hours"), "最长运行时限（小时）");
        assert_eq!(zh("campus.nodes"), "节点数");
        assert_eq!(zh("campus.some_new_key"), "Some new key", "a field without a Chinese name keeps its words");
        assert_eq!(en("exam-intensity"), "Exam-intensity");
        assert_eq!(en("gpus"), "GPUs", "an abbreviation keeps its capitals");
        assert_eq!(en("workload.classes.train.vram_gb"), "Train: VRAM GB");
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
