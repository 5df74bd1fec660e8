//! The look shared by every chart: sizes, fonts, the policy palette, the frame (title,
//! legend panel on the right, note line at the bottom) and number formatting.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::i18n::{L, Lang};
use crate::write::fmt_num;

/// Sizes, language and the title prefix of one set of charts.
#[derive(Clone, Debug)]
pub struct Theme {
    /// Label language.
    pub lang: Lang,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Base font size, pixels.
    pub font_px: f64,
    /// First part of every title (scenario label or name, or `--title`); empty: the
    /// caption alone.
    pub prefix: String,
    /// Whether charts have a title line at all (`--title ""` turns it off).
    pub titled: bool,
    /// Pixels per output pixel: 1 for SVG, 2 for the supersampled PNG drawing.
    pub scale: f64,
    /// Totals are for one calendar year: cost labels say "CNY/year".
    pub annual: bool,
    /// Display names of policies, classes and seasons (`label`, `label_zh`).
    pub names: std::sync::Arc<crate::scenario::labels::DisplayNames>,
    /// Where every tick label drawn is recorded with the value it stands for, when set
    /// ([`crate::plot::drawn_ticks`]: a test reads each label back against its tick).
    pub tick_log: Option<std::sync::Arc<std::sync::Mutex<Vec<DrawnTick>>>>,
}

/// How the labels of an axis read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// A label is the number at its position (and a unit suffix such as `%`).
    Linear,
    /// A label is 10 to the power of its position (log axes).
    Log10,
    /// Labels are names (categories, dates, durations), not numbers to read back.
    Named,
}

/// One tick label as drawn, with the number it must read as: what the tick-label test
/// checks on every axis of every chart.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnTick {
    /// Which axis: `x`, `y` or `colour bar`.
    pub axis: &'static str,
    /// Which panel: the number of labels recorded before its axes were drawn (one
    /// number per panel of a chart).
    pub panel: usize,
    /// The value at the tick, in the units of its label (10^position on a log axis).
    pub value: f64,
    /// The label drawn.
    pub label: String,
    /// How the label reads.
    pub scale: Scale,
}

impl Theme {
    /// Records a tick label drawn at `value` (label units) when the theme keeps a log.
    pub fn record_tick(&self, axis: &'static str, panel: usize, value: f64, label: &str, scale: Scale) {
        if let Some(log) = &self.tick_log
            && let Ok(mut v) = log.lock()
        {
            v.push(DrawnTick { axis, panel, value, label: label.to_string(), scale });
        }
    }

    /// The panel number the next axes' labels are recorded with ([`DrawnTick::panel`]).
    pub fn next_panel(&self) -> usize {
        self.tick_log.as_ref().and_then(|l| l.lock().ok().map(|v| v.len())).unwrap_or(0)
    }
}

/// Colour-blind-safe policy colours (Okabe–Ito, then Tableau), in policy order.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(80, 80, 80),    // dark grey
    RGBColor(140, 86, 75),   // brown
    RGBColor(148, 103, 189), // purple
    RGBColor(188, 189, 34),  // olive
];

/// The colour of the `i`-th policy of a folder (the same in every chart).
pub fn policy_colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Dark grey for text and frames.
pub const INK: RGBColor = RGBColor(40, 40, 40);
/// Light grey for grid lines.
pub const GRID: RGBColor = RGBColor(225, 225, 225);

/// Any drawing error as text.
pub trait Textual<T> {
    /// Converts the error to its message.
    fn s(self) -> Result<T, String>;
}

impl<T, E: std::fmt::Display> Textual<T> for Result<T, E> {
    fn s(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// A line with a dot (a policy's series).
    Series(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled box (a stacked bar component or a shaded band).
    Swatch(RGBAColor),
    /// A small faint dot.
    Faint(RGBColor),
    /// A black diamond (the recommended point).
    Diamond,
}

impl Theme {
    /// The same theme drawn `k` times larger (for supersampling).
    pub fn scaled(&self, k: u32) -> Theme {
        Theme {
            width: self.width * k,
            height: self.height * k,
            font_px: self.font_px * f64::from(k),
            scale: self.scale * f64::from(k),
            ..self.clone()
        }
    }

    /// A line width of `n` output pixels.
    pub fn lw(&self, n: u32) -> u32 {
        (f64::from(n) * self.scale).round().max(1.0) as u32
    }

    /// A text style `scale` × the base size.
    pub fn font(&self, scale: f64) -> TextStyle<'static> {
        ("sans-serif", self.font_px * scale).into_font().color(&INK)
    }

    /// A label of the theme's language.
    pub fn t(&self, l: L) -> &'static str {
        l.per_window(self.annual).get(self.lang)
    }

    /// `prefix: caption` (Chinese `prefix：caption`), the caption alone without a
    /// prefix, or `None` when titles are off.
    pub fn title(&self, caption: &str) -> Option<String> {
        match (self.titled, self.prefix.is_empty()) {
            (false, _) => None,
            (true, true) => Some(caption.to_string()),
            (true, false) => Some(format!("{}{}{caption}", self.prefix, self.t(L::Colon))),
        }
    }

    /// Pixels for a multiple of the font size.
    pub fn px(&self, scale: f64) -> i32 {
        (self.font_px * scale).round() as i32
    }

    /// Fills `root` white, draws the title, the legend panel (right) and the note (bottom),
    /// and returns the area left for the plot.
    ///
    /// # Errors
    /// Backend errors as text.
    pub fn frame<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        caption: &str,
        legend: &[(String, Mark)],
        note: &str,
    ) -> Result<DrawingArea<DB, Shift>, String> {
        root.fill(&WHITE).s()?;
        let mut area = root.margin(self.px(0.6), self.px(0.4), self.px(0.6), self.px(0.6));
        if let Some(title) = self.title(caption) {
            let (top, rest) = area.split_vertically(self.px(2.2));
            let style = self.font(1.3).pos(Pos::new(HPos::Left, VPos::Center));
            top.draw_text(&title, &style, (0, self.px(0.9))).s()?;
            area = rest;
        }
        if !note.is_empty() {
            let h = area.dim_in_pixel().1 as i32;
            let (rest, bottom) = area.split_vertically(h - self.px(1.6));
            let style = self.font(0.75).color(&RGBColor(90, 90, 90)).pos(Pos::new(HPos::Left, VPos::Center));
            bottom.draw_text(note, &style, (0, self.px(0.9))).s()?;
            area = rest;
        }
        if legend.is_empty() {
            return Ok(area);
        }
        let font = self.font(0.85);
        let mut widest = 0u32;
        for (label, _) in legend {
            widest = widest.max(root.estimate_text_size(label, &font).s()?.0);
        }
        let w = area.dim_in_pixel().0 as i32;
        let legend_w = (widest as i32 + self.px(3.2)).min(w * 2 / 5);
        let (plot, panel) = area.split_horizontally(w - legend_w);
        self.legend(&panel, legend)?;
        Ok(plot)
    }

    fn legend<DB: DrawingBackend>(
        &self,
        panel: &DrawingArea<DB, Shift>,
        entries: &[(String, Mark)],
    ) -> Result<(), String> {
        let row = self.px(1.35);
        let x0 = self.px(0.6);
        let sw = self.px(1.6);
        let font = self.font(0.85).pos(Pos::new(HPos::Left, VPos::Center));
        let mut y = self.px(1.2);
        for (label, mark) in entries {
            let (a, b) = ((x0, y), (x0 + sw, y));
            match *mark {
                Mark::Series(c) => {
                    panel.draw(&PathElement::new(vec![a, b], c.stroke_width(self.lw(3)))).s()?;
                    panel.draw(&Circle::new((x0 + sw / 2, y), self.px(0.25), c.filled())).s()?;
                }
                Mark::Dashed(c) => {
                    let step = sw / 4;
                    for k in 0..2 {
                        let s = x0 + 2 * k * step;
                        panel.draw(&PathElement::new(vec![(s, y), (s + step, y)], c.stroke_width(self.lw(3)))).s()?;
                    }
                }
                Mark::Swatch(c) => {
                    let h = self.px(0.4);
                    panel.draw(&Rectangle::new([(x0, y - h), (x0 + sw, y + h)], c.filled())).s()?;
                }
                Mark::Faint(c) => {
                    panel.draw(&Circle::new((x0 + sw / 2, y), self.px(0.15), c.mix(0.35).filled())).s()?;
                }
                Mark::Diamond => {
                    let r = self.px(0.45);
                    let (cx, cy) = (x0 + sw / 2, y);
                    let pts = vec![(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy), (cx, cy - r)];
                    panel.draw(&PathElement::new(pts, BLACK.stroke_width(self.lw(3)))).s()?;
                }
            }
            panel.draw_text(label, &font, (x0 + sw + self.px(0.5), y)).s()?;
            y += row;
        }
        Ok(())
    }

    /// The legend entries of the policies, in order, by display name.
    pub fn policy_legend(&self, policies: &[String]) -> Vec<(String, Mark)> {
        policies.iter().enumerate().map(|(i, p)| (self.policy(p), Mark::Series(policy_colour(i)))).collect()
    }

    /// The display name of a policy in the theme's language (the id without a label).
    pub fn policy(&self, id: &str) -> String {
        self.names.policies.get(id, self.lang)
    }

    /// The display name of a job class.
    pub fn class(&self, id: &str) -> String {
        self.names.classes.get(id, self.lang)
    }

    /// The display name of a season.
    pub fn season(&self, id: &str) -> String {
        self.names.seasons.get(id, self.lang)
    }
}

/// A linear numeric axis with its own tick positions (grid lines and labels).
#[derive(Clone, Debug)]
pub struct LinearAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for LinearAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        let t = if span > 0.0 { (v - self.lo) / span } else { 0.5 };
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// The coordinates of every chart.
pub type Coords = Cartesian2d<LinearAxis, LinearAxis>;

/// Round tick positions of a numeric axis and their labels, from one step: the one
/// routine every numeric axis of every chart (and the heatmap's colour bar) is ticked
/// and labelled with, so a label cannot say another number than its tick's. Labels have
/// as many decimals as the step needs, all of them the same (0.0, 2.5, 5.0, 7.5), and
/// never fewer than a position added by hand needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// Tick positions, increasing.
    pub positions: Vec<f64>,
    /// Decimals of every label.
    pub decimals: usize,
    /// Text after every number (`%`), empty for none.
    pub suffix: &'static str,
}

/// The decimals (up to 6) that write `x` exactly.
fn decimals_of(x: f64) -> usize {
    let whole = |y: f64| (y.round() - y).abs() <= 1e-6 * y.abs().max(1.0);
    (0..6).find(|&d| whole(x * 10f64.powi(d as i32))).unwrap_or(6)
}

impl Ticks {
    /// About `n` round ticks (1, 2, 2.5 or 5 × 10^k apart) inside `[lo, hi]`.
    pub fn new(lo: f64, hi: f64, n: usize) -> Ticks {
        let positions = nice_ticks(lo, hi, n);
        let step = if positions.len() >= 2 {
            positions[1] - positions[0]
        } else if hi > lo && n > 0 {
            nice_step(hi - lo, n)
        } else {
            1.0
        };
        let mut t = Ticks { positions, decimals: decimals_of(step), suffix: "" };
        t.fit_decimals();
        t
    }

    /// The same ticks with `suffix` after every label.
    pub fn with_suffix(mut self, suffix: &'static str) -> Ticks {
        self.suffix = suffix;
        self
    }

    /// Adds a tick at `v` (removing neighbours closer than `gap`, except `keep`), and
    /// widens the labels' decimals if `v` needs more.
    pub fn insert(&mut self, v: f64, gap: f64, keep: f64) {
        if self.positions.iter().any(|t| (t - v).abs() < 1e-9 * v.abs().max(1.0)) {
            return;
        }
        self.positions.retain(|t| (t - v).abs() >= gap || *t == keep);
        self.positions.push(v);
        self.positions.sort_by(f64::total_cmp);
        self.fit_decimals();
    }

    /// `v` with as many decimals as it needs (up to 6): a number on a tick placed by hand.
    pub fn exact(v: f64) -> String {
        fmt_num(v, decimals_of(v))
    }

    fn fit_decimals(&mut self) {
        self.decimals = self.positions.iter().map(|&t| decimals_of(t)).fold(self.decimals, usize::max);
    }

    /// The label of the tick at `v`.
    pub fn label(&self, v: f64) -> String {
        format!("{}{}", fmt_num(v, self.decimals), self.suffix)
    }
}

/// One axis: range, tick positions, description and tick label format.
pub struct AxisSpec<'f> {
    /// Low end.
    pub lo: f64,
    /// High end.
    pub hi: f64,
    /// Tick positions.
    pub ticks: Vec<f64>,
    /// Description (with unit); empty for none.
    pub desc: String,
    /// Tick label of a value.
    pub fmt: Box<dyn Fn(f64) -> String + 'f>,
    /// How the labels read (what the tick-label record says they stand for).
    pub scale: Scale,
    /// Whether to draw the tick labels (off for the upper of two stacked panels).
    pub labels: bool,
    /// Least width, in pixels, kept for the tick labels (aligns stacked panels).
    pub reserve: i32,
    /// Whether ticks may be thinned when their labels would touch (not for categories,
    /// whose every label names something).
    pub thin: bool,
}

impl<'f> AxisSpec<'f> {
    /// A linear axis over `[lo, hi]` with about `n` round ticks ([`Ticks`]).
    pub fn linear(lo: f64, hi: f64, n: usize, desc: &str) -> AxisSpec<'f> {
        AxisSpec::numeric(lo, hi, Ticks::new(lo, hi, n), desc)
    }

    /// A linear axis over `[lo, hi]` ticked and labelled by `ticks`.
    pub fn numeric(lo: f64, hi: f64, ticks: Ticks, desc: &str) -> AxisSpec<'f> {
        let positions = ticks.positions.clone();
        let mut axis = AxisSpec::with_ticks(lo, hi, positions, desc, move |v| ticks.label(v));
        axis.scale = Scale::Linear;
        axis
    }

    /// An axis with given tick positions and labels of its own (names: dates, durations,
    /// swept values as written); set [`AxisSpec::scale`] when the labels are numbers.
    pub fn with_ticks(lo: f64, hi: f64, ticks: Vec<f64>, desc: &str, fmt: impl Fn(f64) -> String + 'f) -> AxisSpec<'f> {
        AxisSpec {
            lo,
            hi,
            ticks,
            desc: desc.to_string(),
            fmt: Box::new(fmt),
            scale: Scale::Named,
            labels: true,
            reserve: 0,
            thin: true,
        }
    }

    /// An axis of `n` categories at 0, 1, …, n − 1, each with half a step of room around it
    /// (heatmap rows and columns); `fmt` labels category `k`.
    pub fn categories(n: usize, desc: &str, fmt: impl Fn(f64) -> String + 'f) -> AxisSpec<'f> {
        let mut axis = AxisSpec::with_ticks(-0.5, n as f64 - 0.5, (0..n).map(|k| k as f64).collect(), desc, fmt);
        axis.thin = false;
        axis
    }

    /// The value a label at position `v` stands for (10^v on a log axis).
    fn value_at(&self, v: f64) -> f64 {
        if self.scale == Scale::Log10 { 10f64.powf(v) } else { v }
    }
}

impl Theme {
    /// A chart on `area` with a light grid at the ticks, axis descriptions and labels.
    ///
    /// # Errors
    /// Backend errors as text.
    pub fn axes<'a, DB: DrawingBackend + 'a>(
        &self,
        area: &DrawingArea<DB, Shift>,
        x: &AxisSpec<'_>,
        y: &AxisSpec<'_>,
    ) -> Result<ChartContext<'a, DB, Coords>, String> {
        let tick_font = self.font(0.8);
        let widest = self.label_width(area, y)?.max(y.reserve);
        let y_area = widest + if y.desc.is_empty() { self.px(0.8) } else { self.px(2.4) };
        let x_area = match (x.labels, x.desc.is_empty()) {
            (false, _) => self.px(0.3),
            (true, true) => self.px(1.8),
            (true, false) => self.px(3.0),
        };
        // Ticks whose labels would touch at this size are thinned (every k-th kept).
        let (w, h) = area.dim_in_pixel();
        let plot_w = w as i32 - y_area - self.px(1.0);
        let plot_h = h as i32 - x_area - self.px(0.6);
        let em = area.estimate_text_size("0", &tick_font).s()?.1 as i32;
        let x_ticks = if x.labels && x.thin {
            let widths: Vec<i32> = x
                .ticks
                .iter()
                .map(|&t| area.estimate_text_size(&(x.fmt)(t), &tick_font).map(|s| s.0 as i32))
                .collect::<Result<_, _>>()
                .s()?;
            thin(x, plot_w, &widths, self.px(0.5))
        } else {
            x.ticks.clone()
        };
        let y_ticks =
            if y.labels && y.thin { thin(y, plot_h, &vec![em; y.ticks.len()], self.px(0.2)) } else { y.ticks.clone() };
        let mut chart = ChartBuilder::on(area)
            .margin_top(self.px(0.6))
            .margin_right(self.px(1.0))
            .x_label_area_size(x_area)
            .y_label_area_size(y_area)
            .build_cartesian_2d(
                LinearAxis { lo: x.lo, hi: x.hi, ticks: x_ticks.clone() },
                LinearAxis { lo: y.lo, hi: y.hi, ticks: y_ticks.clone() },
            )
            .s()?;
        let panel = self.next_panel();
        let label = |axis: &AxisSpec<'_>, name: &'static str, v: f64| {
            if !axis.labels {
                return String::new();
            }
            let text = (axis.fmt)(v);
            self.record_tick(name, panel, axis.value_at(v), &text, axis.scale);
            text
        };
        let xfmt = |v: &f64| label(x, "x", *v);
        let yfmt = |v: &f64| label(y, "y", *v);
        let mut mesh = chart.configure_mesh();
        mesh.label_style(tick_font.clone())
            .axis_desc_style(self.font(0.9))
            .bold_line_style(GRID.stroke_width(self.lw(1)))
            .axis_style(INK.stroke_width(self.lw(2)))
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .x_labels(x_ticks.len().max(2))
            .y_labels(y_ticks.len().max(2));
        if !x.desc.is_empty() {
            mesh.x_desc(x.desc.as_str());
        }
        if !y.desc.is_empty() {
            mesh.y_desc(y.desc.as_str());
        }
        mesh.draw().s()?;
        Ok(chart)
    }
}

impl Theme {
    /// `text` at `scale` × the base size, made to fit `width` pixels: drawn smaller (down
    /// to 0.7 of `scale`), then cut with "…". Returns the text and the scale to draw it at.
    ///
    /// # Errors
    /// Backend errors as text.
    pub fn fit<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        text: &str,
        scale: f64,
        width: i32,
    ) -> Result<(String, f64), String> {
        let wide = |t: &str, k: f64| -> Result<bool, String> {
            Ok(area.estimate_text_size(t, &self.font(k)).s()?.0 as i32 > width)
        };
        for k in [1.0, 0.9, 0.8, 0.7] {
            if !wide(text, scale * k)? {
                return Ok((text.to_string(), scale * k));
            }
        }
        let small = scale * 0.7;
        let mut chars: Vec<char> = text.chars().collect();
        while !chars.is_empty() {
            chars.pop();
            let cut: String = chars.iter().collect::<String>().trim_end().to_string() + "…";
            if !wide(&cut, small)? {
                return Ok((cut, small));
            }
        }
        Ok((String::new(), small))
    }
}

/// The ticks of `axis` thinned to every k-th (the smallest k, counted from the first)
/// so that no two neighbouring labels, `sizes[i]` pixels long along the axis, come closer
/// than `gap` on an axis `length` pixels long.
fn thin(axis: &AxisSpec<'_>, length: i32, sizes: &[i32], gap: i32) -> Vec<f64> {
    let span = axis.hi - axis.lo;
    if axis.ticks.len() < 3 || span <= 0.0 || length <= 0 {
        return axis.ticks.clone();
    }
    let at = |t: f64| (t - axis.lo) / span * f64::from(length);
    // Of the k ways to keep every k-th tick, the one with the most round labels (0 and
    // powers of ten: 0.1, 1, 10 on a log axis, 0 and 10 among 0, 5, 10, 15).
    let round = |i: &usize| {
        let v = (axis.fmt)(axis.ticks[*i]).replace(',', "").parse::<f64>().unwrap_or(f64::NAN).abs();
        v == 0.0 || (v.log10() - v.log10().round()).abs() < 1e-9
    };
    for k in 1..axis.ticks.len() {
        let fits = |kept: &[usize]| {
            kept.windows(2).all(|w| {
                let d = (at(axis.ticks[w[1]]) - at(axis.ticks[w[0]])).abs();
                d >= f64::from((sizes[w[0]] + sizes[w[1]]) / 2 + gap)
            })
        };
        let best = (0..k)
            .map(|offset| (offset..axis.ticks.len()).step_by(k).collect::<Vec<usize>>())
            .filter(|kept| fits(kept))
            .max_by_key(|kept| (kept.iter().filter(|i| round(i)).count(), std::cmp::Reverse(kept[0])));
        if let Some(kept) = best {
            return kept.into_iter().map(|i| axis.ticks[i]).collect();
        }
    }
    vec![axis.ticks[0]]
}

impl Theme {
    /// The width of the widest tick label of `axis`.
    ///
    /// # Errors
    /// Backend errors as text.
    pub fn label_width<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        axis: &AxisSpec<'_>,
    ) -> Result<i32, String> {
        let font = self.font(0.8);
        let mut widest = 0u32;
        for &t in &axis.ticks {
            widest = widest.max(area.estimate_text_size(&(axis.fmt)(t), &font).s()?.0);
        }
        Ok(widest as i32)
    }
}

/// The step between about `n` round ticks over `span`: 1, 2, 2.5 or 5 × 10^k.
pub fn nice_step(span: f64, n: usize) -> f64 {
    let raw = span / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag)
}

/// About `n` round tick positions (1, 2, 2.5 or 5 × 10^k apart) inside `[lo, hi]`.
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo || n == 0 {
        return vec![];
    }
    let step = nice_step(hi - lo, n);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v }).collect()
}

/// Draws a 95% CI bar from `from` to `to` (data coordinates; one of x or y equal) with
/// caps `cap` pixels long, clipped to the chart's ranges; a clipped end has no cap.
///
/// # Errors
/// Backend errors as text.
pub fn ci_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Coords>,
    from: (f64, f64),
    to: (f64, f64),
    cap: i32,
    style: ShapeStyle,
) -> Result<(), String> {
    if ![from.0, from.1, to.0, to.1].iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    let (xr, yr) = (chart.x_range(), chart.y_range());
    let clamp = |p: (f64, f64)| (p.0.clamp(xr.start, xr.end), p.1.clamp(yr.start, yr.end));
    let (a, b) = (clamp(from), clamp(to));
    let (pa, pb) = (chart.backend_coord(&a), chart.backend_coord(&b));
    root.draw(&PathElement::new(vec![pa, pb], style)).s()?;
    let vertical = from.0 == to.0;
    for (p, kept) in [(pa, a == from), (pb, b == to)] {
        if kept {
            let ends =
                if vertical { [(p.0 - cap, p.1), (p.0 + cap, p.1)] } else { [(p.0, p.1 - cap), (p.0, p.1 + cap)] };
            root.draw(&PathElement::new(ends.to_vec(), style)).s()?;
        }
    }
    Ok(())
}

/// Draws a dashed polyline through `pts` (backend pixels): `dash` pixels on, `gap` off.
///
/// # Errors
/// Backend errors as text.
pub fn dashed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pts: &[(i32, i32)],
    dash: i32,
    gap: i32,
    style: ShapeStyle,
) -> Result<(), String> {
    let (dash, gap) = (f64::from(dash.max(1)), f64::from(gap.max(1)));
    let mut phase = 0.0;
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        let len = dx.hypot(dy);
        let mut t = 0.0;
        while t < len {
            let on = phase < dash;
            let step = if on { dash - phase } else { dash + gap - phase }.min(len - t);
            if on {
                let p = |u: f64| (a.0 + (dx * u / len).round() as i32, a.1 + (dy * u / len).round() as i32);
                area.draw(&PathElement::new(vec![p(t), p(t + step)], style)).s()?;
            }
            t += step;
            phase = (phase + step) % (dash + gap);
        }
    }
    Ok(())
}

/// Decimals that show a value of this size to about three significant digits.
pub fn decimals_for(span: f64) -> usize {
    let s = span.abs();
    if !s.is_finite() || s >= 100.0 {
        0
    } else if s >= 10.0 {
        1
    } else if s >= 1.0 {
        2
    } else {
        3
    }
}

/// `[lo, hi]` padded by `pad` × the span on both sides (a degenerate range gets ±1).
pub fn padded(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(1.0) {
        let d = if hi.abs() > 0.0 { hi.abs() * 0.1 } else { 1.0 };
        return (lo - d, hi + d);
    }
    (lo - span * pad, hi + span * pad)
}

/// Month names for the date axes.
pub fn month_label(lang: Lang, year: i32, month: u8, with_year: bool) -> String {
    const EN: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    match (lang, with_year) {
        (Lang::En, true) => format!("{} {year}", EN[usize::from(month - 1)]),
        (Lang::En, false) => EN[usize::from(month - 1)].to_string(),
        (Lang::Zh, true) => crate::i18n::fill(L::MonthFormat.get(lang), &[&year.to_string(), &month.to_string()]),
        (Lang::Zh, false) => {
            let full = crate::i18n::fill(L::MonthFormat.get(lang), &[&year.to_string(), &month.to_string()]);
            full.split_once('年').map_or(full.clone(), |(_, m)| m.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(nice_ticks(0.0, 100.0, 5), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(nice_ticks(0.3, 1.2, 4), vec![0.5, 0.75, 1.0]);
        assert!(nice_ticks(1.0, 1.0, 4).is_empty());
    }

    #[test]
    fn tick_labels_have_just_the_decimals_their_step_needs_and_all_the_same() {
        let labels = |t: &Ticks| t.positions.iter().map(|&v| t.label(v)).collect::<Vec<_>>();
        assert_eq!(labels(&Ticks::new(0.0, 4.4, 5)), ["0", "1", "2", "3", "4"]);
        assert_eq!(labels(&Ticks::new(0.0, 10.0, 4)), ["0.0", "2.5", "5.0", "7.5", "10.0"]);
        assert_eq!(labels(&Ticks::new(0.0, 1.3, 5)), ["0.0", "0.5", "1.0"]);
        assert_eq!(labels(&Ticks::new(0.0, 1.3, 6)), ["0.00", "0.25", "0.50", "0.75", "1.00", "1.25"]);
        assert_eq!(labels(&Ticks::new(0.0, 70_000.0, 4)), ["0", "20,000", "40,000", "60,000"]);
        let mut pct = Ticks::new(40.0, 100.0, 5).with_suffix("%");
        pct.insert(95.0, 6.0, 100.0);
        assert_eq!(labels(&pct), ["40%", "60%", "80%", "95%", "100%"]);
        let mut half = Ticks::new(0.0, 4.0, 4);
        half.insert(2.5, 0.5, 4.0);
        assert_eq!(labels(&half), ["0.0", "1.0", "2.0", "2.5", "3.0", "4.0"]);
    }

    /// Every tick [`Ticks`] places (at the counts the charts use, over spans from 10^-3 to
    /// 10^6) reads back as its own position, and the labels of one axis have one number of
    /// decimals: a label never rounds its tick.
    #[test]
    fn every_tick_label_reads_back_as_its_position() {
        let read = |label: &str| label.replace(',', "").replace('−', "-").parse::<f64>().expect("a number");
        let mut checked = 0;
        for exp in -3..=6 {
            for mantissa in [1.0, 1.3, 2.0, 2.4, 3.1, 4.4, 5.0, 6.7, 7.5, 9.9] {
                let span = mantissa * 10f64.powi(exp);
                for lo_frac in [0.0, -0.3, 0.17] {
                    let lo = lo_frac * span;
                    for n in 3..=10 {
                        let ticks = Ticks::new(lo, lo + span, n);
                        for &t in &ticks.positions {
                            let label = ticks.label(t);
                            let back = read(&label);
                            assert!(
                                (back - t).abs() <= 1e-9 * span.max(1.0),
                                "tick {t} over span {span} (n = {n}) is labelled {label:?}"
                            );
                            let decimals = label.split_once('.').map_or(0, |(_, f)| f.len());
                            assert_eq!(decimals, ticks.decimals, "{label:?} over span {span} (n = {n})");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked} ticks checked");
    }

    #[test]
    fn ranges_are_padded_and_never_empty() {
        assert_eq!(padded(0.0, 10.0, 0.1), (-1.0, 11.0));
        let (a, b) = padded(5.0, 5.0, 0.1);
        assert!(a < 5.0 && b > 5.0);
    }

    #[test]
    fn months_read_naturally_in_both_languages() {
        assert_eq!(month_label(Lang::En, 2026, 9, true), "Sep 2026");
        assert_eq!(month_label(Lang::Zh, 2027, 1, true), "2027年1月");
        assert_eq!(month_label(Lang::Zh, 2027, 3, false), "3月");
    }
}
