//! Charts over the simulated calendar: the campus queue and busy GPUs day by day with the
//! seasons shaded and named, and GPU use month by month.
//!
//! Monthly use is computed from `timeseries.csv` (monthly means of the daily campus and
//! cloud busy GPUs), not from the `monthly_utilization` metric: that metric is one number
//! per replication (how busy the rented monthly GPUs were over the whole horizon), while
//! this chart shows how the year's seasons move the campus and the cloud use.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::Chart;
use super::folder::{RunFolder, SeasonBand};
use super::theme::{AxisSpec, INK, Mark, Scale, Textual, Theme, Ticks, dashed, month_label, padded, policy_colour};
use crate::date::Date;
use crate::i18n::{L, fill};
use crate::write::fmt_num;

/// Shading of the other groups' seasons.
const OTHER_SEASON: RGBColor = RGBColor(230, 159, 0);
/// Shading of the other groups' quiet seasons (multiplier below 1: holidays).
const QUIET_SEASON: RGBColor = RGBColor(86, 180, 233);
/// Shading of the group's own seasons.
const OWN_SEASON: RGBColor = RGBColor(148, 103, 189);
/// Shading of campus maintenance windows.
const MAINTENANCE: RGBColor = RGBColor(120, 120, 120);

/// The campus queue (GPUs requested by waiting jobs) and the busy campus GPUs per day,
/// one line per policy, in two stacked panels with the seasons shaded and named.
pub struct CampusTimeline<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

/// Day offsets of the first of each month in `[0, days]` with their labels.
fn month_ticks(th: &Theme, start: Option<Date>, days: f64) -> Vec<(f64, String)> {
    let Some(start) = start else {
        let ticks = super::theme::Ticks::new(0.0, days, 8);
        return ticks.positions.iter().map(|&d| (d, ticks.label(d))).collect();
    };
    let mut out = Vec::new();
    let mut first = true;
    for d in 0..=(days as i64) {
        let date = start.add_days(d);
        if date.day() == 1 {
            out.push((d as f64, month_label(th.lang, date.year(), date.month(), first || date.month() == 1)));
            first = false;
        }
    }
    out
}

fn series(run: &RunFolder, policy: &str, value: impl Fn(&super::data::Day) -> f64) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> =
        run.days.iter().filter(|d| d.policy == policy).map(|d| (f64::from(d.day) + 0.5, value(d))).collect();
    v.retain(|p| p.1.is_finite());
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

fn draw_maintenance<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, super::theme::Coords>,
    windows: &[(f64, f64)],
    (x1, y0, y1): (f64, f64, f64),
) -> Result<(), String> {
    for &(a, b) in windows.iter().filter(|w| w.1 > 0.0 && w.0 < x1) {
        let rect = [(a.max(0.0), y0), (b.min(x1), y1)];
        chart.plotting_area().draw(&Rectangle::new(rect, MAINTENANCE.mix(0.3).filled())).s()?;
    }
    Ok(())
}

fn band_colour(b: &SeasonBand) -> RGBColor {
    match (b.own, b.multiplier < 1.0) {
        (true, _) => OWN_SEASON,
        (false, true) => QUIET_SEASON,
        (false, false) => OTHER_SEASON,
    }
}

fn draw_bands<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, super::theme::Coords>,
    bands: &[SeasonBand],
    (x1, y0, y1): (f64, f64, f64),
) -> Result<(), String> {
    for b in bands.iter().filter(|b| b.end_day > 0.0 && b.start_day < x1) {
        let c = band_colour(b);
        let rect = [(b.start_day.max(0.0), y0), (b.end_day.min(x1), y1)];
        chart.plotting_area().draw(&Rectangle::new(rect, c.mix(0.16).filled())).s()?;
        // A thin edge keeps back-to-back seasons apart.
        let edge = [(b.start_day.max(0.0), y0), (b.start_day.max(0.0), y1)];
        chart.plotting_area().draw(&PathElement::new(edge.to_vec(), c.mix(0.45).stroke_width(1))).s()?;
    }
    Ok(())
}

impl Chart for CampusTimeline<'_> {
    fn name(&self) -> String {
        "campus_timeline".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::CampusTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let days = run.days.iter().map(|d| f64::from(d.day) + 1.0).fold(1.0, f64::max);
        let mut legend = th.policy_legend(&run.policies);
        if run.seasons.iter().any(|s| !s.own && s.multiplier >= 1.0) {
            legend.push((th.t(L::OtherSeason).into(), Mark::Swatch(OTHER_SEASON.mix(0.35))));
        }
        if run.seasons.iter().any(|s| !s.own && s.multiplier < 1.0) {
            legend.push((th.t(L::QuietSeason).into(), Mark::Swatch(QUIET_SEASON.mix(0.35))));
        }
        if run.seasons.iter().any(|s| s.own) {
            legend.push((th.t(L::OwnSeason).into(), Mark::Swatch(OWN_SEASON.mix(0.35))));
        }
        if run.campus_gpus.is_some() {
            legend.push((th.t(L::Capacity).into(), Mark::Dashed(INK)));
        }
        if !run.maintenance.is_empty() {
            legend.push((th.t(L::Maintenance).into(), Mark::Swatch(MAINTENANCE.mix(0.5))));
        }
        let n = run.replications_count().to_string();
        let area = th.frame(root, &self.caption(th), &legend, &fill(th.t(L::NoteTimeseries), &[&n]))?;
        let h = area.dim_in_pixel().1 as i32;
        let (upper, lower) = area.split_vertically(h * 52 / 100);
        let ticks = month_ticks(th, run.start, days);
        let tick_days: Vec<f64> = ticks.iter().map(|t| t.0).collect();
        let xf = |v: f64| ticks.iter().find(|t| (t.0 - v).abs() < 0.01).map(|t| t.1.clone()).unwrap_or_default();
        let max_of =
            |f: &dyn Fn(&super::data::Day) -> f64| run.days.iter().map(f).filter(|v| v.is_finite()).fold(0.0, f64::max);
        let qmax = padded(0.0, max_of(&|d| d.queue).max(1.0), 0.06).1;
        let bmax = padded(0.0, max_of(&|d| d.busy).max(run.campus_gpus.unwrap_or(1.0)), 0.06).1;
        let width = th.px(0.1).max(th.lw(2) as i32) as u32;
        // Upper panel: the queue, with the season names.
        let mut x_spec = AxisSpec::with_ticks(0.0, days, tick_days.clone(), "", xf);
        x_spec.labels = false;
        let mut q_spec = AxisSpec::linear(0.0, qmax, 5, th.t(L::QueueAxis));
        let mut b_spec = AxisSpec::linear(0.0, bmax, 5, th.t(L::BusyAxis));
        let reserve = th.label_width(&upper, &q_spec)?.max(th.label_width(&lower, &b_spec)?);
        (q_spec.reserve, b_spec.reserve) = (reserve, reserve);
        // The season names sit level in a strip above the queue, in up to three rows: each
        // at the start of its band, in the first row where it covers no other name (rotated
        // names in the plot were small and crossed the curves).
        let font = th.font(0.72);
        let row_h = th.px(0.95);
        let (strip, upper) = upper.split_vertically(3 * row_h + th.px(0.3));
        let chart = th.axes(&upper, &x_spec, &q_spec)?;
        draw_maintenance(&chart, &run.maintenance, (days, 0.0, qmax))?;
        draw_bands(&chart, &run.seasons, (days, 0.0, qmax))?;
        for (i, p) in run.policies.iter().enumerate() {
            let line = series(run, p, |d| d.queue);
            chart.plotting_area().draw(&PathElement::new(line, policy_colour(i).stroke_width(width))).s()?;
        }
        let mut sorted: Vec<&SeasonBand> =
            run.seasons.iter().filter(|b| b.start_day < days && b.end_day > 0.0).collect();
        sorted.sort_by(|a, b| a.start_day.total_cmp(&b.start_day));
        let strip_left = strip.get_base_pixel().0;
        let right_end = chart.backend_coord(&(days, qmax)).0;
        let mut row_end = [i32::MIN; 3];
        for b in sorted {
            let label = format!("{} ×{}", th.season(&b.name), b.multiplier);
            let (w, _) = root.estimate_text_size(&label, &font).s()?;
            let w = w as i32;
            let start = chart.backend_coord(&(b.start_day.max(0.0), qmax)).0;
            // The first row free at the band's start, else the row that frees up first.
            let gap = th.px(0.4);
            let row = (0..3)
                .find(|&r| row_end[r] + gap <= start)
                .unwrap_or_else(|| (0..3).min_by_key(|&r| row_end[r]).unwrap_or(0));
            let x = start.max(row_end[row] + gap).min(right_end - w).max(strip_left);
            row_end[row] = x + w;
            let c = match (b.own, b.multiplier < 1.0) {
                (true, _) => RGBColor(100, 60, 140),
                (false, true) => RGBColor(20, 100, 150),
                (false, false) => RGBColor(150, 95, 0),
            };
            let style = font.clone().color(&c).pos(Pos::new(HPos::Left, VPos::Center));
            let y = strip.get_base_pixel().1 + th.px(0.3) + row as i32 * row_h + row_h / 2;
            root.draw_text(&label, &style, (x, y)).s()?;
        }
        // Lower panel: busy campus GPUs and the capacity.
        let mut date_spec = AxisSpec::with_ticks(0.0, days, tick_days, th.t(L::DateAxis), xf);
        // Without a start date the ticks are day numbers ([`Ticks`]), else month names.
        date_spec.scale = if run.start.is_none() { Scale::Linear } else { Scale::Named };
        let chart = th.axes(&lower, &date_spec, &b_spec)?;
        draw_maintenance(&chart, &run.maintenance, (days, 0.0, bmax))?;
        draw_bands(&chart, &run.seasons, (days, 0.0, bmax))?;
        for (i, p) in run.policies.iter().enumerate() {
            let line = series(run, p, |d| d.busy);
            chart.plotting_area().draw(&PathElement::new(line, policy_colour(i).stroke_width(width))).s()?;
        }
        if let Some(cap) = run.campus_gpus {
            let style = INK.stroke_width(th.lw(2));
            let line = [chart.backend_coord(&(0.0, cap)), chart.backend_coord(&(days, cap))];
            dashed(root, &line, th.px(0.6), th.px(0.4), style)?;
        }
        Ok(())
    }
}

/// Per month: the campus cluster's utilisation (all groups) as lines, and the cloud
/// GPUs the group kept busy as grouped bars, one colour per policy.
pub struct MonthlyUse<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

/// Monthly means per policy: (year, month) → (campus busy, cloud busy).
pub fn monthly_means(run: &RunFolder, policy: &str) -> BTreeMap<(i32, u8), (f64, f64)> {
    let mut acc: BTreeMap<(i32, u8), (f64, f64, f64)> = BTreeMap::new();
    for d in run.days.iter().filter(|d| d.policy == policy) {
        let Ok(date) = Date::parse(&d.date) else { continue };
        let e = acc.entry((date.year(), date.month())).or_insert((0.0, 0.0, 0.0));
        if d.busy.is_finite() && d.cloud.is_finite() {
            *e = (e.0 + d.busy, e.1 + d.cloud, e.2 + 1.0);
        }
    }
    acc.into_iter().filter(|(_, v)| v.2 > 0.0).map(|(k, v)| (k, (v.0 / v.2, v.1 / v.2))).collect()
}

impl Chart for MonthlyUse<'_> {
    fn name(&self) -> String {
        "monthly_use".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::MonthlyTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let per_policy: Vec<BTreeMap<(i32, u8), (f64, f64)>> =
            run.policies.iter().map(|p| monthly_means(run, p)).collect();
        let mut months: Vec<(i32, u8)> = per_policy.iter().flat_map(|m| m.keys().copied()).collect();
        months.sort_unstable();
        months.dedup();
        let nm = months.len().max(1);
        let cap = run.campus_gpus;
        let campus = |busy: f64| cap.map_or(busy, |c| 100.0 * busy / c.max(1.0));
        let cmax = per_policy.iter().flat_map(|m| m.values().map(|v| campus(v.0))).fold(0.0, f64::max);
        let cmax = if cap.is_some() { 100.0f64.max(cmax) } else { padded(0.0, cmax.max(1.0), 0.08).1 };
        let cloud_max =
            padded(0.0, per_policy.iter().flat_map(|m| m.values().map(|v| v.1)).fold(0.0, f64::max).max(0.5), 0.08).1;
        let legend = th.policy_legend(&run.policies);
        let gpus = cap.map_or_else(|| th.t(L::Unknown).to_string(), |c| fmt_num(c, 0));
        let area = th.frame(root, &self.caption(th), &legend, &fill(th.t(L::NoteMonthly), &[&gpus]))?;
        let h = area.dim_in_pixel().1 as i32;
        let (upper, lower) = area.split_vertically(h / 2);
        let labels: Vec<String> =
            months.iter().enumerate().map(|(k, &(y, m))| month_label(th.lang, y, m, k == 0 || m == 1)).collect();
        let xf = |v: f64| labels.get(v.round() as usize).cloned().unwrap_or_default();
        let ticks: Vec<f64> = (0..nm).map(|k| k as f64).collect();
        let (lo, hi) = (-0.5, nm as f64 - 0.5);
        let cdesc = if cap.is_some() { th.t(L::CampusUtilAxis) } else { th.t(L::BusyAxis) };
        let mut x_spec = AxisSpec::with_ticks(lo, hi, ticks.clone(), "", xf);
        x_spec.labels = false;
        let c_ticks = Ticks::new(0.0, cmax, 5).with_suffix(if cap.is_some() { "%" } else { "" });
        let mut c_spec = AxisSpec::numeric(0.0, cmax, c_ticks, cdesc);
        let mut g_spec = AxisSpec::linear(0.0, cloud_max, 5, th.t(L::CloudGpusAxis));
        let reserve = th.label_width(&upper, &c_spec)?.max(th.label_width(&lower, &g_spec)?);
        (c_spec.reserve, g_spec.reserve) = (reserve, reserve);
        let chart = th.axes(&upper, &x_spec, &c_spec)?;
        let width = th.px(0.12).max(th.lw(2) as i32) as u32;
        for (i, m) in per_policy.iter().enumerate() {
            let pts: Vec<(f64, f64)> =
                months.iter().enumerate().filter_map(|(k, key)| m.get(key).map(|v| (k as f64, campus(v.0)))).collect();
            let c = policy_colour(i);
            chart.plotting_area().draw(&PathElement::new(pts.clone(), c.stroke_width(width))).s()?;
            for p in pts {
                chart.plotting_area().draw(&Circle::new(p, th.px(0.22), c.filled())).s()?;
            }
        }
        let chart = th.axes(&lower, &AxisSpec::with_ticks(lo, hi, ticks, th.t(L::MonthAxis), xf), &g_spec)?;
        let np = run.policies.len().max(1) as f64;
        let w = 0.8 / np;
        for (i, m) in per_policy.iter().enumerate() {
            for (k, key) in months.iter().enumerate() {
                let Some(&(_, cloud)) = m.get(key) else { continue };
                let x = k as f64 - 0.4 + i as f64 * w;
                let rect = [(x + w * 0.08, 0.0), (x + w * 0.92, cloud)];
                chart.plotting_area().draw(&Rectangle::new(rect, policy_colour(i).filled())).s()?;
            }
        }
        Ok(())
    }
}
