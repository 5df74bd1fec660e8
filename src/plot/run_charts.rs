//! Charts of a run's policies: cost against p95 wait (with the Pareto frontier), the
//! wait-time distribution, and the cost broken down by component.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::Chart;
use super::data::WaitPoint;
use super::folder::RunFolder;
use super::theme::{AxisSpec, INK, Mark, Textual, Theme, Ticks, ci_bar, dashed, padded, policy_colour};
use crate::i18n::{L, fill};
use crate::write::fmt_num;

/// Total cost against the 95th-percentile wait, one point per policy with 95% CI error
/// bars in both directions, faint dots for single replications, and the Pareto frontier
/// (policies no other policy beats on both cost and wait) joined by a dashed line.
pub struct CostVsWait<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

/// The indices of `points` (x, y) on the lower-left Pareto frontier, by increasing x.
pub fn pareto_frontier(points: &[(f64, f64)]) -> Vec<usize> {
    let mut front: Vec<usize> = (0..points.len())
        .filter(|&i| {
            let (xi, yi) = points[i];
            !points.iter().enumerate().any(|(j, &(xj, yj))| j != i && xj <= xi && yj <= yi && (xj < xi || yj < yi))
        })
        .collect();
    front.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0).then(points[a].1.total_cmp(&points[b].1)));
    front
}

impl Chart for CostVsWait<'_> {
    fn name(&self) -> String {
        "cost_vs_wait".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::CostVsWaitTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let pts: Vec<(usize, &str, _, _)> = run
            .policies
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let (x, y) = (run.stat(p, "wait_p95_h")?, run.stat(p, "total_cost_cny")?);
                (x.mean.is_finite() && y.mean.is_finite()).then_some((i, p.as_str(), x, y))
            })
            .collect();
        let reps: Vec<(usize, f64, f64)> = run
            .replications
            .iter()
            .flatten()
            .filter_map(|(p, m)| {
                let i = run.policies.iter().position(|q| q == p)?;
                let (x, y) = (*m.get("wait_p95_h")?, *m.get("total_cost_cny")?);
                (x.is_finite() && y.is_finite()).then_some((i, x, y))
            })
            .collect();
        let finite = |v: f64, m: f64| if v.is_finite() { v } else { m };
        let xs = pts
            .iter()
            .flat_map(|p| [finite(p.2.low, p.2.mean), finite(p.2.high, p.2.mean)])
            .chain(reps.iter().map(|r| r.1));
        let ys = pts
            .iter()
            .flat_map(|p| [finite(p.3.low, p.3.mean), finite(p.3.high, p.3.mean)])
            .chain(reps.iter().map(|r| r.2));
        let (xmin, xmax) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
        let (ymin, ymax) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
        // Waits and costs are never negative: a CI reaching below 0 is clipped at 0.
        let (xmin, ymin) = (xmin.max(0.0), ymin.max(0.0));
        let (mut x0, x1) = padded(xmin, xmax, 0.06);
        let (mut y0, y1) = padded(ymin, ymax, 0.06);
        x0 = x0.max(0.0);
        y0 = y0.max(0.0);
        let mut legend = th.policy_legend(&run.policies);
        legend.push((th.t(L::Pareto).into(), Mark::Dashed(INK)));
        if !reps.is_empty() {
            legend.push((th.t(L::Replication).into(), Mark::Faint(INK)));
        }
        let n = run.replications_count().to_string();
        let area = th.frame(root, &self.caption(th), &legend, &fill(th.t(L::NoteRun), &[&n]))?;
        let chart = th.axes(
            &area,
            &AxisSpec::linear(x0, x1, 8, th.t(L::WaitP95Axis)),
            &AxisSpec::linear(y0, y1, 7, th.t(L::TotalCostAxis)),
        )?;
        let plot = chart.plotting_area();
        for &(i, x, y) in &reps {
            plot.draw(&Circle::new((x, y), th.px(0.16), policy_colour(i).mix(0.3).filled())).s()?;
        }
        let front = pareto_frontier(&pts.iter().map(|p| (p.2.mean, p.3.mean)).collect::<Vec<_>>());
        let abs = |c: (f64, f64)| chart.backend_coord(&c);
        let line: Vec<(i32, i32)> = front.iter().map(|&k| abs((pts[k].2.mean, pts[k].3.mean))).collect();
        dashed(root, &line, th.px(0.6), th.px(0.4), INK.stroke_width(th.lw(2)))?;
        let bar_w = (th.font_px / 8.0).max(f64::from(th.lw(2))) as u32;
        for &(i, _, x, y) in &pts {
            let style = policy_colour(i).stroke_width(bar_w);
            let cap = th.px(0.3);
            ci_bar(root, &chart, (x.low, y.mean), (x.high, y.mean), cap, style)?;
            ci_bar(root, &chart, (x.mean, y.low), (x.mean, y.high), cap, style)?;
        }
        let r = th.px(0.38);
        // Boxes the names must avoid: the points, their error bars and the other names.
        let mut taken: Vec<(i32, i32, i32, i32)> = Vec::new();
        let pad = th.px(0.2);
        for &(_, _, x, y) in &pts {
            let (xr, yr) = (chart.x_range(), chart.y_range());
            let h =
                [x.low, x.high].map(|v| abs((if v.is_finite() { v } else { x.mean }.clamp(xr.start, xr.end), y.mean)));
            let v =
                [y.low, y.high].map(|v| abs((x.mean, if v.is_finite() { v } else { y.mean }.clamp(yr.start, yr.end))));
            taken.push((h[0].0.min(h[1].0), h[0].1 - pad, h[0].0.max(h[1].0), h[0].1 + pad));
            taken.push((v[0].0 - pad, v[0].1.min(v[1].1), v[0].0 + pad, v[0].1.max(v[1].1)));
        }
        for &(i, _, x, y) in &pts {
            let c = abs((x.mean, y.mean));
            root.draw(&Circle::new(c, r, policy_colour(i).filled())).s()?;
            root.draw(&Circle::new(c, r, WHITE.stroke_width(th.lw(2)))).s()?;
            taken.push((c.0 - r, c.1 - r, c.0 + r, c.1 + r));
        }
        for &k in &front {
            let c = abs((pts[k].2.mean, pts[k].3.mean));
            root.draw(&Circle::new(c, r + th.px(0.22), INK.stroke_width(th.lw(2)))).s()?;
        }
        // Names next to the points, avoiding each other and the points.
        let font = th.font(0.8);
        let (px_x, px_y) = plot.get_pixel_range();
        let mut names: Vec<(i32, i32, i32, i32)> = Vec::new();
        for &(i, id, x, y) in &pts {
            let name = th.policy(id);
            let name = name.as_str();
            let c = abs((x.mean, y.mean));
            let (w, h) = root.estimate_text_size(name, &font).s()?;
            let (w, h) = (w as i32, h as i32);
            // Beside the point first, then one, two and three lines farther out (with a
            // leader line): the first place that covers nothing, else the least covered;
            // covering another name counts far more than covering a bar or a point.
            let options: Vec<(i32, i32, i32)> = (0..4)
                .flat_map(|k| {
                    let gap = r + th.px(0.35) + k * h;
                    [
                        (c.0 + gap, c.1 - h / 2),
                        (c.0 - gap - w, c.1 - h / 2),
                        (c.0 - w / 2, c.1 - gap - h),
                        (c.0 - w / 2, c.1 + gap),
                        (c.0 + gap, c.1 - gap - h),
                        (c.0 + gap, c.1 + gap),
                        (c.0 - gap - w, c.1 - gap - h),
                        (c.0 - gap - w, c.1 + gap),
                    ]
                    .map(|(x, y)| (x, y, k))
                })
                .collect();
            let area = |b: (i32, i32, i32, i32), t: &(i32, i32, i32, i32)| {
                ((b.2.min(t.2) - b.0.max(t.0)).max(0) * (b.3.min(t.3) - b.1.max(t.1)).max(0)) as i64
            };
            let overlap = |b: (i32, i32, i32, i32)| {
                taken.iter().map(|t| area(b, t)).sum::<i64>()
                    + names.iter().map(|t| area(b, t) * 100).sum::<i64>()
                    + i64::from(b.0 < px_x.start || b.2 > px_x.end || b.1 < px_y.start || b.3 > px_y.end)
                        * 1_000_000_000
            };
            let (best, far) = options
                .iter()
                .map(|&(lx, ly, k)| ((lx, ly, lx + w, ly + h), k))
                .min_by_key(|&(b, k)| (overlap(b), k))
                .expect("options");
            names.push(best);
            if far > 0 {
                let to = (c.0.clamp(best.0, best.2), c.1.clamp(best.1, best.3));
                root.draw(&PathElement::new(vec![c, to], policy_colour(i).stroke_width(th.lw(1)))).s()?;
            }
            let colour = policy_colour(i);
            let style = font.clone().color(&colour).pos(Pos::new(HPos::Left, VPos::Top));
            root.draw_text(name, &style, (best.0, best.1)).s()?;
        }
        Ok(())
    }
}

/// The share of jobs that waited at most x hours, per policy (log x axis).
pub struct WaitCdf<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

/// Wait ticks of the CDF axis: (hours, English label, Chinese label).
const WAIT_TICKS: [(f64, &str); 8] = [
    (1.0 / 60.0, "1 min"),
    (10.0 / 60.0, "10 min"),
    (1.0, "1 h"),
    (6.0, "6 h"),
    (24.0, "1 d"),
    (72.0, "3 d"),
    (168.0, "1 wk"),
    (672.0, "4 wk"),
];

impl Chart for WaitCdf<'_> {
    fn name(&self) -> String {
        "wait_cdf".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::WaitCdfTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let series: Vec<Vec<&WaitPoint>> =
            run.policies.iter().map(|p| run.waits.iter().filter(|w| &w.policy == p).collect()).collect();
        let x1 = cdf_end(&series);
        let legend = th.policy_legend(&run.policies);
        let area = th.frame(root, &self.caption(th), &legend, th.t(L::NoteCdf))?;
        cdf_panel(
            &area,
            th,
            &series,
            x1,
            th.t(L::WaitAxis),
            th.t(L::ShareAxis),
            th.px(0.14).max(th.lw(2) as i32) as u32,
        )
    }
}

/// The share of each job class's jobs that waited at most x hours, one panel per class
/// of the group (the scenario's order), one line per policy: the wait of the big
/// training runs is what a PI quotes, and the pooled CDF hides it. Classes a
/// `guide-hybrid` policy treats as main runs are marked in their panel's title.
pub struct ClassWaitCdf<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

impl ClassWaitCdf<'_> {
    /// The classes of `class_waits.csv`, in file order (the scenario's).
    fn classes(&self) -> Vec<String> {
        super::data::policy_order(self.run.class_waits.iter().map(|(c, _)| c.as_str()))
    }

    /// Classes named in some policy's `main_classes` (from `run.toml`).
    fn main_classes(&self) -> Vec<String> {
        let policies = self.run.table.as_ref().and_then(|t| t.get("policies")).and_then(|v| v.as_array());
        policies
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("main_classes").and_then(|v| v.as_array()))
            .flatten()
            .filter_map(|v| v.as_str().map(String::from))
            .collect()
    }
}

impl Chart for ClassWaitCdf<'_> {
    fn name(&self) -> String {
        "class_wait_cdf".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::ClassWaitCdfTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let classes = self.classes();
        let main = self.main_classes();
        let series_of = |class: &str| -> Vec<Vec<&WaitPoint>> {
            run.policies
                .iter()
                .map(|p| run.class_waits.iter().filter(|(c, w)| c == class && &w.policy == p).map(|(_, w)| w).collect())
                .collect()
        };
        let all: Vec<Vec<Vec<&WaitPoint>>> = classes.iter().map(|c| series_of(c)).collect();
        // One x range for every panel, so the classes compare at a glance.
        let x1 = all.iter().map(|s| cdf_end(s)).fold(cdf_end(&[]), f64::max);
        let legend = th.policy_legend(&run.policies);
        let area = th.frame(root, &self.caption(th), &legend, th.t(L::NoteClassCdf))?;
        let cols = if classes.len() <= 2 { classes.len().max(1) } else { 2 };
        let rows = classes.len().div_ceil(cols).max(1);
        let panels = area.split_evenly((rows, cols));
        for ((class, series), panel) in classes.iter().zip(&all).zip(panels) {
            let (head, body) = panel.split_vertically(th.px(1.6));
            let is_main = main.contains(class);
            let mut title = th.class(class);
            if is_main {
                title = format!("{title} — {}", th.t(L::MainRuns));
            }
            let style = th.font(if is_main { 1.0 } else { 0.9 }).pos(Pos::new(HPos::Center, VPos::Center));
            let w = head.dim_in_pixel().0 as i32;
            head.draw_text(&title, &style, (w / 2, th.px(0.9))).s()?;
            cdf_panel(&body, th, series, x1, "", "", th.px(0.1).max(th.lw(2) as i32) as u32)?;
        }
        Ok(())
    }
}

/// Where a CDF chart's log wait axis ends (log10 hours): where every series has (almost)
/// all its jobs, at least at 6 h and at most 60 days.
fn cdf_end(series: &[Vec<&WaitPoint>]) -> f64 {
    let mut end_h: f64 = 6.0;
    for s in series {
        let finite = || s.iter().filter(|w| w.wait_h.is_finite());
        let first_full = finite().find(|w| w.share >= 0.999).map(|w| w.wait_h);
        let last = finite().map(|w| w.wait_h).fold(0.0, f64::max);
        end_h = end_h.max(first_full.unwrap_or(last) * 1.3);
    }
    end_h.min(24.0 * 60.0).log10()
}

/// Draws CDF lines (one per policy, in policy colours) on `area` with a log wait axis
/// from 1 minute to `x1` (log10 hours) and a share axis from a little below the lowest curve to 100%.
fn cdf_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    th: &Theme,
    series: &[Vec<&WaitPoint>],
    x1: f64,
    x_desc: &str,
    y_desc: &str,
    width: u32,
) -> Result<(), String> {
    let x0 = (1.0f64 / 60.0).log10();
    let ticks: Vec<f64> = WAIT_TICKS.iter().map(|t| t.0.log10()).filter(|&v| v >= x0 - 1e-9 && v <= x1).collect();
    let zh = th.lang == crate::i18n::Lang::Zh;
    let xf = move |v: f64| {
        let (h, en) = WAIT_TICKS
            .iter()
            .min_by(|a, b| (a.0.log10() - v).abs().total_cmp(&(b.0.log10() - v).abs()))
            .expect("ticks");
        if zh { zh_duration(*h) } else { (*en).to_string() }
    };
    // The share axis starts a little below the lowest curve (most jobs of a campus start
    // within a minute: from 0% three quarters of the height would be empty), at a
    // multiple of 10%; 95% is always a tick (the p95 the tables quote).
    // Each curve starts at the share of jobs that waited at most a minute (the axis start).
    let start = |s: &Vec<&WaitPoint>| {
        let finite = || s.iter().filter(|w| w.share.is_finite() && w.wait_h.is_finite());
        finite().rfind(|w| w.wait_h <= 1.0 / 60.0).or_else(|| finite().next()).map(|w| w.share * 100.0)
    };
    let lowest = series.iter().filter_map(start).fold(100.0f64, f64::min);
    let y0 = (((lowest - 5.0) / 10.0).floor() * 10.0).clamp(0.0, 80.0);
    let mut y_ticks = Ticks::new(y0, 100.0, 5).with_suffix("%");
    // 95% replaces a neighbour it would sit on.
    y_ticks.insert(95.0, (100.0 - y0) / 5.0 * 0.6, 100.0);
    let y_spec = AxisSpec::numeric(y0, 100.0, y_ticks, y_desc);
    let chart = th.axes(area, &AxisSpec::with_ticks(x0, x1, ticks, x_desc, xf), &y_spec)?;
    let plot = chart.plotting_area();
    for (i, points) in series.iter().enumerate() {
        let mut line: Vec<(f64, f64)> = Vec::new();
        for w in points.iter().filter(|w| w.share.is_finite() && w.wait_h.is_finite()) {
            let x = if w.wait_h > 0.0 { w.wait_h.log10().max(x0) } else { x0 };
            if x > x1 {
                break;
            }
            if let Some(last) = line.last_mut().filter(|l| l.0 == x) {
                last.1 = w.share * 100.0;
            } else {
                line.push((x, w.share * 100.0));
            }
        }
        if let Some(&(_, y)) = line.last() {
            line.push((x1, y));
        }
        plot.draw(&PathElement::new(line, policy_colour(i).stroke_width(width))).s()?;
    }
    Ok(())
}

fn zh_duration(h: f64) -> String {
    // Chinese units are built from labels so the font subset covers them.
    let (n, unit) = if h < 1.0 {
        ((h * 60.0).round(), L::UnitMinute)
    } else if h < 24.0 {
        (h, L::UnitHour)
    } else if h < 168.0 {
        (h / 24.0, L::UnitDay)
    } else {
        (h / 168.0, L::UnitWeek)
    };
    format!("{}{}", n.round(), unit.get(crate::i18n::Lang::Zh))
}

/// Mean cost per policy as stacked horizontal bars (campus, cloud hourly, cloud monthly,
/// storage, upload time), with the total's 95% CI at the end of each bar.
pub struct CostBreakdown<'a> {
    /// The run.
    pub run: &'a RunFolder,
}

/// The components of `total_cost_cny`, with their colours.
pub const COMPONENTS: [(&str, L, RGBColor); 5] = [
    ("campus_cost_cny", L::CompCampus, RGBColor(136, 136, 136)),
    ("hourly_cost_cny", L::CompHourly, RGBColor(78, 154, 200)),
    ("monthly_cost_cny", L::CompMonthly, RGBColor(31, 78, 121)),
    ("storage_cost_cny", L::CompStorage, RGBColor(240, 170, 90)),
    ("transfer_cost_cny", L::CompTransfer, RGBColor(200, 90, 70)),
];

impl Chart for CostBreakdown<'_> {
    fn name(&self) -> String {
        "cost_breakdown".into()
    }

    fn caption(&self, th: &Theme) -> String {
        th.t(L::CostBreakdownTitle).into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String> {
        let run = self.run;
        let n = run.policies.len();
        let value = |p: &str, m: &str| run.stat(p, m).map(|s| s.mean).filter(|v| v.is_finite()).unwrap_or(0.0);
        let totals: Vec<Option<&super::data::Stat>> =
            run.policies.iter().map(|p| run.stat(p, "total_cost_cny")).collect();
        // A single year's bill, median to 90th-percentile year (summary.csv's year columns).
        let years: Vec<Option<(f64, f64)>> = run
            .policies
            .iter()
            .map(|p| {
                run.year(p, "total_cost_cny").map(|y| (y.p50, y.p90)).filter(|y| y.0.is_finite() && y.1.is_finite())
            })
            .collect();
        let max = totals
            .iter()
            .flatten()
            .map(|s| if s.high.is_finite() { s.high } else { s.mean })
            .chain(years.iter().flatten().map(|y| y.1))
            .fold(0.0, f64::max);
        let x1 = if max > 0.0 { max * 1.3 } else { 1.0 };
        // A component no policy spends on (monthly rent when nothing rents by the month)
        // has no bar and no legend entry.
        let legend: Vec<(String, Mark)> = COMPONENTS
            .iter()
            .filter(|(m, _, _)| run.policies.iter().any(|p| value(p, m) > 0.0))
            .map(|(_, l, c)| (th.t(*l).to_string(), Mark::Swatch(c.to_rgba())))
            .chain(years.iter().any(Option::is_some).then(|| (th.t(L::YearP50P90).to_string(), Mark::Series(INK))))
            .collect();
        let reps = run.replications_count().to_string();
        let note = if years.iter().any(Option::is_some) { L::NoteCostYears } else { L::NoteRun };
        let area = th.frame(root, &self.caption(th), &legend, &fill(th.t(note), &[&reps]))?;
        let names: Vec<String> = run.policies.iter().map(|p| th.policy(p)).collect();
        let yf = move |v: f64| {
            let k = v.round() as i64;
            if (0..n as i64).contains(&k) { names[n - 1 - k as usize].clone() } else { String::new() }
        };
        let y_spec = AxisSpec::with_ticks(-0.6, n as f64 - 0.4, (0..n).map(|k| k as f64).collect(), "", &yf);
        let x_spec = AxisSpec::numeric(0.0, x1, Ticks::new(0.0, max.max(1.0), 6), th.t(L::CostAxis));
        let chart = th.axes(&area, &x_spec, &y_spec)?;
        let plot = chart.plotting_area();
        for (i, p) in run.policies.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let mut left = 0.0;
            for (metric, _, colour) in COMPONENTS {
                let v = value(p, metric).max(0.0);
                if v > 0.0 {
                    plot.draw(&Rectangle::new([(left, y - 0.32), (left + v, y + 0.32)], colour.filled())).s()?;
                }
                left += v;
            }
            if let Some((p50, p90)) = years[i] {
                // Under the bar, clear of the next one (bars span y ± 0.32, one apart).
                let yy = y - 0.43;
                let style = INK.stroke_width(th.lw(1));
                ci_bar(root, &chart, (p50, yy), (p90, yy), th.px(0.15), style)?;
                root.draw(&Circle::new(chart.backend_coord(&(p50, yy)), th.px(0.15), INK.filled())).s()?;
                let at = chart.backend_coord(&(p90, yy));
                let font = th.font(0.65).pos(Pos::new(HPos::Left, VPos::Center));
                root.draw_text(&fill(th.t(L::P90Label), &[&fmt_num(p90, 0)]), &font, (at.0 + th.px(0.4), at.1)).s()?;
            }
            if let Some(t) = totals[i] {
                let style = INK.stroke_width(th.lw(2));
                ci_bar(root, &chart, (t.low, y), (t.high, y), th.px(0.3), style)?;
                let end = if t.high.is_finite() { t.high } else { t.mean };
                let label = if t.half_width().is_finite() {
                    format!("{} ± {}", fmt_num(t.mean, 0), fmt_num(t.half_width(), 0))
                } else {
                    fmt_num(t.mean, 0)
                };
                let at = chart.backend_coord(&(end, y));
                let font = th.font(0.75).pos(Pos::new(HPos::Left, VPos::Center));
                root.draw_text(&label, &font, (at.0 + th.px(0.5), at.1)).s()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pareto_frontier_keeps_only_undominated_points_by_wait() {
        let pts = [(29.0, 85_000.0), (0.35, 112_000.0), (12.3, 104_000.0), (17.7, 118_000.0), (0.35, 120_000.0)];
        assert_eq!(pareto_frontier(&pts), vec![1, 2, 0]);
        assert_eq!(pareto_frontier(&[(1.0, 1.0), (1.0, 1.0)]), vec![0, 1]);
    }

    #[test]
    fn chinese_durations_use_units() {
        assert_eq!(zh_duration(1.0 / 6.0), "10分钟");
        assert_eq!(zh_duration(168.0), "1周");
    }
}
