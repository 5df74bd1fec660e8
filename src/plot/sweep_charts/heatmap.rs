//! The heatmap of a sweep: one metric of one policy over the grid of the first two
//! parameters (further parameters as panels), with a sequential colour scale and its bar.
//! It stands apart from the line charts: it reads the grid, not one parameter against the
//! others, and has its own colour scale ([`heat`]).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{MAX_FACETS, is_recommended, metric_label, panels, param_label, slug};
use crate::i18n::{L, Lang, fill};
use crate::plot::chart::Chart;
use crate::plot::folder::SweepFolder;
use crate::plot::theme::{AxisSpec, INK, Scale, Textual, Theme, Ticks, decimals_for};
use crate::write::fmt_num;

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
            let x_spec = AxisSpec::categories(xs.len(), &xl, xf);
            let y_spec = AxisSpec::categories(ys.len(), &yl, yf);
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
        let ticks = Ticks::new(lo, hi, 8);
        let panel = th.next_panel();
        for &t in &ticks.positions {
            let y = bottom - ((t - lo) / (hi - lo) * f64::from(bottom - top)).round() as i32;
            bar.draw(&PathElement::new(vec![(right, y), (right + th.px(0.3), y)], INK.stroke_width(th.lw(1)))).s()?;
            let label = ticks.label(t);
            th.record_tick("colour bar", panel, t, &label, Scale::Linear);
            bar.draw_text(&label, &font, (right + th.px(0.45), y)).s()?;
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
}
