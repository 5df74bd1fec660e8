//! Charts of a sweep: each headline metric against the first swept parameter (one line
//! per policy, a shaded 95% CI band, the recommended point marked; one panel per value
//! of the other parameters), and for grids of two or more parameters a heatmap per
//! policy.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Chart;
use super::data::Stat;
use super::folder::SweepFolder;
use super::i18n::{L, fill};
use super::theme::{
    AxisSpec, INK, Mark, Textual, Theme, decimals_for, fmt_num, nice_ticks, padded, policy_colour, tick,
};

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

fn facet_title(sweep: &SweepFolder, from: usize, values: &[String]) -> String {
    sweep.params[from..].iter().zip(values).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
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

/// One headline metric against the first swept parameter.
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
        let key = self.sweep.params.first().map_or("", String::as_str);
        fill(th.t(L::SweepTitle), &[th.t(metric_label(self.metric).0), key])
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let (sw, metric) = (self.sweep, self.metric);
        let (label, scale) = metric_label(metric);
        let xs_text = sw.values(0);
        let numeric: Option<Vec<f64>> =
            xs_text.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
        let xpos = |v: &str| -> f64 {
            let k = xs_text.iter().position(|x| x == v).unwrap_or(0);
            numeric.as_ref().map_or(k as f64, |n| n[k])
        };
        let mut all = facets(sw, 1);
        let trimmed = all.len() > MAX_FACETS;
        all.truncate(MAX_FACETS);
        let stats: Vec<&(usize, Vec<String>, Stat)> = sw.rows.iter().filter(|r| r.2.metric == metric).collect();
        let (ymin, ymax) = stats
            .iter()
            .flat_map(|r| [r.2.low, r.2.high, r.2.mean])
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v * scale), a.1.max(v * scale)));
        // Every headline metric is non-negative: CI bands reaching below 0 are clipped.
        let (y0, y1) = padded(ymin.max(0.0), ymax, 0.06);
        let y0 = y0.max(0.0);
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
        let mut legend = th.policy_legend(&sw.policies);
        legend.push((th.t(L::Ci95).into(), Mark::Swatch(INK.mix(0.18))));
        if sw.recommended.is_some() {
            legend.push((th.t(L::Recommended).into(), Mark::Diamond));
        }
        let mut note = fill(th.t(L::NoteSweep), &[&sw.replications_count().to_string()]);
        if trimmed {
            note.push_str(&format!(" ({MAX_FACETS}/{})", facets(sw, 1).len()));
        }
        let area = th.frame(root, &self.caption(th), &legend, &note)?;
        let xspan = x1 - x0;
        let xf = |v: f64| match &numeric {
            Some(_) => tick(v, xspan.max(if v.fract() == 0.0 { 20.0 } else { 1.0 })),
            None => xs_text.get(v.round() as usize).cloned().unwrap_or_default(),
        };
        let yspan = y1 - y0;
        let yf = move |v: f64| tick(v, yspan);
        let key = sw.params.first().cloned().unwrap_or_default();
        for (facet, panel) in all.iter().zip(panels(&area, all.len())) {
            let panel = if all.len() > 1 || !facet.is_empty() {
                let (head, rest) = panel.split_vertically(th.px(1.4));
                let style = th.font(0.75).pos(Pos::new(HPos::Center, VPos::Center));
                let w = head.dim_in_pixel().0 as i32;
                head.draw_text(&facet_title(sw, 1, facet), &style, (w / 2, th.px(0.8))).s()?;
                rest
            } else {
                panel
            };
            let x_spec = AxisSpec::with_ticks(x0, x1, xticks.clone(), &key, &xf);
            let chart = th.axes(&panel, &x_spec, &AxisSpec::linear(y0, y1, 6, th.t(label), &yf))?;
            let plot = chart.plotting_area();
            for (i, policy) in sw.policies.iter().enumerate() {
                let mut pts: Vec<(f64, &Stat, bool)> = stats
                    .iter()
                    .filter(|r| r.2.policy == *policy && r.1[1..] == facet[..] && r.2.mean.is_finite())
                    .map(|r| (xpos(&r.1[0]), &r.2, is_recommended(sw, policy, &r.1)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let c = policy_colour(i);
                let band: Vec<(f64, f64)> = pts
                    .iter()
                    .filter(|p| p.1.low.is_finite())
                    .map(|p| (p.0, (p.1.low * scale).clamp(y0, y1)))
                    .chain(
                        pts.iter()
                            .rev()
                            .filter(|p| p.1.high.is_finite())
                            .map(|p| (p.0, (p.1.high * scale).clamp(y0, y1))),
                    )
                    .collect();
                if band.len() >= 4 {
                    plot.draw(&Polygon::new(band, c.mix(0.12).filled())).s()?;
                }
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1.mean * scale)).collect();
                plot.draw(&PathElement::new(line.clone(), c.stroke_width(th.px(0.12).max(th.lw(2) as i32) as u32)))
                    .s()?;
                for &p in &line {
                    plot.draw(&Circle::new(p, th.px(0.2), c.filled())).s()?;
                }
                for p in pts.iter().filter(|p| p.2) {
                    let at = chart.backend_coord(&(p.0, p.1.mean * scale));
                    let r = th.px(0.6);
                    let d =
                        vec![(at.0, at.1 - r), (at.0 + r, at.1), (at.0, at.1 + r), (at.0 - r, at.1), (at.0, at.1 - r)];
                    root.draw(&PathElement::new(d, BLACK.stroke_width(th.lw(3)))).s()?;
                    let style = th.font(0.75).pos(Pos::new(HPos::Left, VPos::Bottom));
                    root.draw_text(th.t(L::Recommended), &style, (at.0 + r, at.1 - r)).s()?;
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
        fill(th.t(L::HeatmapTitle), &[th.t(metric_label(self.metric).0), self.policy])
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
                head.draw_text(&facet_title(sw, 2, facet), &style, (head.dim_in_pixel().0 as i32 / 2, th.px(0.8)))
                    .s()?;
                rest
            };
            let x_spec = AxisSpec::categories(xs.len(), &sw.params[0], &xf);
            let y_spec = AxisSpec::categories(ys.len(), &sw.params[1], &yf);
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
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("overflow-4h", 1), "overflow-4h");
        assert_eq!(slug("a b/c", 1), "a_b_c");
        assert_eq!(slug("方案", 3), "policy3");
    }
}
