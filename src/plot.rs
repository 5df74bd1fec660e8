//! Charts of a run or a sweep, drawn from its output folder alone (the CSV files and
//! `run.toml`), as SVG (for editing) and PNG (for documents), plus the report files.
//!
//! ```text
//! OUTPUT_DIR ─ folder::Folder::open (run: summary/paired/replications/timeseries/waits.csv, run.toml;
//!                                    sweep: sweep.csv, sweep.toml, recommendation.txt, scenario.toml)
//!            ─ font::choose (a font with a glyph for every character to draw)
//!            ─ run_charts / time_charts / sweep_charts ─▶ OUTPUT_DIR/charts/NAME.{svg,png}
//!            ─ report ─▶ OUTPUT_DIR/report.html, report.md
//! ```
//!
//! Chinese output sits beside the English, never over it: `charts-zh/`, `report.zh.html`
//! and `report.zh.md` ([`Lang::charts_folder`], [`Lang::report_file`]).
//!
//! Every chart is one type implementing [`Chart`], drawn once on an SVG backend and once
//! on a bitmap backend. Colours are fixed per policy by its position in the folder's
//! policy list (the scenario's order), so a policy has the same colour in every chart of
//! a run or a sweep. See docs/CHARTS.md for what each chart shows.

pub mod chart;
pub mod data;
pub mod error;
pub mod folder;
pub mod font;
use crate::i18n;
pub mod layout;
pub mod run_charts;
pub mod sweep_charts;
pub mod theme;
pub mod time_charts;
pub mod tornado;
pub mod typeset;

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::i18n::Lang;
pub use chart::Chart;
pub use error::PlotError;
pub use folder::Folder;
pub use font::FontSpec;
use theme::Theme;

/// How to draw.
#[derive(Clone, Debug)]
pub struct PlotOptions {
    /// Language of the labels.
    pub lang: Lang,
    /// Width in pixels (SVG and PNG).
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The first part of every chart title (default: the scenario name); `Some("")`
    /// draws no title line.
    pub title: Option<String>,
    /// Base font size in pixels (default: width ÷ 64, 25 px at 1600 px).
    pub font_size: Option<f64>,
    /// A font to use instead of the bundled ones.
    pub font: Option<FontSpec>,
    /// Whether to look for Chinese fonts of the system when the bundled ones lack a
    /// character (tests turn this off to check the bundled fonts alone).
    pub system_fonts: bool,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            lang: Lang::En,
            width: 1600,
            height: 1000,
            title: None,
            font_size: None,
            font: None,
            system_fonts: true,
        }
    }
}

/// One drawn chart.
#[derive(Clone, Debug)]
pub struct ChartFile {
    /// File stem (`cost_vs_wait`).
    pub name: String,
    /// Its title (without the scenario prefix), for captions.
    pub caption: String,
    /// The SVG text.
    pub svg: String,
    /// Where the SVG was written.
    pub svg_path: PathBuf,
    /// Where the PNG was written.
    pub png_path: PathBuf,
}

/// The charts of an output folder, drawn and written ([`draw_dir`]); the report is
/// written from them ([`crate::report::plot_dir`]).
#[derive(Debug)]
pub struct Drawn {
    /// The folder the charts were drawn from.
    pub folder: Folder,
    /// The charts, in report order.
    pub charts: Vec<ChartFile>,
    /// Where they were written (`charts/`, or `charts-zh/` for Chinese).
    pub charts_dir: PathBuf,
    /// The sizes, language and names the charts were drawn with.
    pub theme: Theme,
    /// The font the charts were drawn with.
    pub font: font::ChosenFont,
    /// Things the user should know (missing glyphs, unreadable `run.toml`, …).
    pub warnings: Vec<String>,
}

/// Redraws every chart of the output folder `dir` into `dir/charts/` (for Chinese:
/// `dir/charts-zh/`, beside the English charts). [`crate::report::plot_dir`] adds the
/// report.
///
/// # Errors
/// [`PlotError`]: bad input (missing file or column, bad option or font) or a failure
/// to draw or write.
pub fn draw_dir(dir: &Path, opts: &PlotOptions) -> Result<Drawn, PlotError> {
    let (folder, theme, chosen, warnings) = prepare(dir, opts)?;
    let charts_dir = dir.join(opts.lang.charts_folder());
    std::fs::create_dir_all(&charts_dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("could not create '{}': {e}", charts_dir.display())))?;
    let charts = font::with_font(&chosen, || -> Result<Vec<ChartFile>, PlotError> {
        charts_of(&folder).iter().map(|c| render(c.as_ref(), &charts_dir, &theme, chosen.bytes)).collect()
    })??;
    Ok(Drawn { folder, charts, charts_dir, theme, font: chosen, warnings })
}

/// The text-layout faults of every chart of the output folder `dir` drawn with `opts`
/// (chart name, faults; charts without faults are left out). Nothing is written.
///
/// # Errors
/// As [`draw_dir`] for bad input; [`PlotError::Draw`] when a chart cannot be drawn.
pub fn layout_faults(dir: &Path, opts: &PlotOptions) -> Result<Vec<(String, Vec<layout::Fault>)>, PlotError> {
    let (folder, theme, chosen, _) = prepare(dir, opts)?;
    font::with_font(&chosen, || -> Result<Vec<(String, Vec<layout::Fault>)>, PlotError> {
        let mut out = Vec::new();
        for chart in charts_of(&folder) {
            let name = chart.name();
            let probe = layout::TextProbe::new((theme.width, theme.height), chosen.bytes)
                .map_err(|message| PlotError::Draw { chart: name.clone(), message })?;
            let boxes = probe.boxes.clone();
            let root = probe.into_drawing_area();
            chart.draw_probe(&root, &theme).map_err(|message| PlotError::Draw { chart: name.clone(), message })?;
            let faults = layout::faults(&boxes.borrow(), theme.width, theme.height);
            if !faults.is_empty() {
                out.push((name, faults));
            }
        }
        Ok(out)
    })?
}

/// Every tick label of every chart of the output folder `dir` drawn with `opts`, with the
/// value at its tick (chart name, labels in drawing order). Nothing is written; a test
/// reads each label back against its tick.
///
/// # Errors
/// As [`layout_faults`].
pub fn drawn_ticks(dir: &Path, opts: &PlotOptions) -> Result<Vec<(String, Vec<theme::DrawnTick>)>, PlotError> {
    let (folder, mut theme, chosen, _) = prepare(dir, opts)?;
    font::with_font(&chosen, || -> Result<Vec<(String, Vec<theme::DrawnTick>)>, PlotError> {
        let mut out = Vec::new();
        for chart in charts_of(&folder) {
            let name = chart.name();
            let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            theme.tick_log = Some(log.clone());
            let probe = layout::TextProbe::new((theme.width, theme.height), chosen.bytes)
                .map_err(|message| PlotError::Draw { chart: name.clone(), message })?;
            let root = probe.into_drawing_area();
            chart.draw_probe(&root, &theme).map_err(|message| PlotError::Draw { chart: name.clone(), message })?;
            let ticks = log.lock().map(|v| v.clone()).unwrap_or_default();
            out.push((name, ticks));
        }
        Ok(out)
    })?
}

/// The folder, the theme its charts are drawn with, the font and the warnings so far.
fn prepare(dir: &Path, opts: &PlotOptions) -> Result<(Folder, Theme, font::ChosenFont, Vec<String>), PlotError> {
    check_options(opts)?;
    let folder = Folder::open(dir)?;
    let mut warnings = folder.notes().to_vec();
    // The title prefix: `--title` (empty: no title line), else the scenario's label in the
    // language (never the English id on a Chinese chart: the caption alone then).
    let titled = opts.title.as_deref() != Some("");
    let prefix = opts.title.clone().unwrap_or_else(|| folder.title(opts.lang).unwrap_or_default());
    let font_px = opts.font_size.unwrap_or_else(|| (f64::from(opts.width) / 64.0).clamp(12.0, 48.0));
    let annual = folder.annual();
    let names = std::sync::Arc::new(folder.names().clone());
    let theme = Theme {
        lang: opts.lang,
        width: opts.width,
        height: opts.height,
        font_px,
        prefix,
        titled,
        scale: 1.0,
        annual,
        names,
        tick_log: None,
    };
    let mut text = folder.texts(opts.lang);
    text.push_str(&theme.prefix);
    for l in i18n::L::ALL {
        text.push_str(l.get(opts.lang));
    }
    let system: &[(&str, u32)] = if opts.system_fonts { font::SYSTEM_CJK_FONTS } else { &[] };
    let (chosen, font_warnings) = font::choose(&text, opts.lang, opts.font.as_ref(), system)?;
    warnings.extend(font_warnings);
    Ok((folder, theme, chosen, warnings))
}

/// The charts of a folder, in report order.
fn charts_of(folder: &Folder) -> Vec<Box<dyn ChartDyn + '_>> {
    let mut out: Vec<Box<dyn ChartDyn + '_>> = Vec::new();
    match folder {
        Folder::Run(run) => {
            out.push(Box::new(run_charts::CostVsWait { run }));
            out.push(Box::new(run_charts::WaitCdf { run }));
            if !run.class_waits.is_empty() {
                out.push(Box::new(run_charts::ClassWaitCdf { run }));
            }
            out.push(Box::new(run_charts::CostBreakdown { run }));
            out.push(Box::new(time_charts::CampusTimeline { run }));
            out.push(Box::new(time_charts::MonthlyUse { run }));
            if !run.sensitivity.is_empty() {
                out.push(Box::new(tornado::Tornado { run }));
            }
        }
        Folder::Sweep(sweep) => {
            for metric in sweep_charts::HEADLINE {
                if sweep.has_metric(metric) {
                    out.push(Box::new(sweep_charts::MetricLines { sweep, metric }));
                }
            }
            if sweep.has_decisions() {
                out.push(Box::new(sweep_charts::PolicyMap { sweep }));
            }
            if sweep.params.len() >= 2 {
                for metric in sweep_charts::HEATMAP_METRICS {
                    for (i, policy) in sweep.policies.iter().enumerate() {
                        if sweep.has_metric(metric) {
                            out.push(Box::new(sweep_charts::Heatmap { sweep, metric, policy, index: i }));
                        }
                    }
                }
            }
        }
    }
    out
}

fn check_options(o: &PlotOptions) -> Result<(), PlotError> {
    let bad = |m: String| Err(PlotError::Option(m));
    if !(200..=10_000).contains(&o.width) {
        return bad(format!("--width {} is not allowed; give 200 to 10000 pixels (default 1600)", o.width));
    }
    if !(150..=10_000).contains(&o.height) {
        return bad(format!("--height {} is not allowed; give 150 to 10000 pixels (default 1000)", o.height));
    }
    if let Some(s) = o.font_size.filter(|s| !(s.is_finite() && (6.0..=200.0).contains(s))) {
        return bad(format!("--font-size {s} is not allowed; give 6 to 200 pixels (default width ÷ 64)"));
    }
    Ok(())
}

/// PNGs are drawn this many times larger and scaled down, which smooths lines.
const SUPERSAMPLE: u32 = 2;
/// Resolution written into the PNGs: 1600 px print 20 cm wide.
const PNG_DPI: f64 = 203.2;

/// Object-safe drawing of a chart on the two backends used (the generic [`Chart::draw`]
/// cannot be called through `dyn`).
pub trait ChartDyn {
    /// File stem.
    fn name(&self) -> String;
    /// Title without the scenario prefix.
    fn caption(&self, th: &Theme) -> String;
    /// Draws on an SVG backend.
    ///
    /// # Errors
    /// The backend's error, as text.
    fn draw_svg(&self, root: &DrawingArea<typeset::Typeset<SVGBackend<'_>>, Shift>, th: &Theme) -> Result<(), String>;
    /// Draws on a bitmap backend.
    ///
    /// # Errors
    /// The backend's error, as text.
    fn draw_png(
        &self,
        root: &DrawingArea<typeset::Typeset<BitMapBackend<'_>>, Shift>,
        th: &Theme,
    ) -> Result<(), String>;
    /// Draws on the text-layout probe ([`layout::TextProbe`]).
    ///
    /// # Errors
    /// The chart's error, as text.
    fn draw_probe(&self, root: &DrawingArea<layout::TextProbe, Shift>, th: &Theme) -> Result<(), String>;
}

impl<C: Chart> ChartDyn for C {
    fn name(&self) -> String {
        Chart::name(self)
    }
    fn caption(&self, th: &Theme) -> String {
        Chart::caption(self, th)
    }
    fn draw_svg(&self, root: &DrawingArea<typeset::Typeset<SVGBackend<'_>>, Shift>, th: &Theme) -> Result<(), String> {
        self.draw(root, th)
    }
    fn draw_png(
        &self,
        root: &DrawingArea<typeset::Typeset<BitMapBackend<'_>>, Shift>,
        th: &Theme,
    ) -> Result<(), String> {
        self.draw(root, th)
    }
    fn draw_probe(&self, root: &DrawingArea<layout::TextProbe, Shift>, th: &Theme) -> Result<(), String> {
        self.draw(root, th)
    }
}

/// Draws `chart` as `dir/NAME.svg` and `dir/NAME.png` (both written atomically), with
/// the text laid out in `font` (face 0 of the bytes).
///
/// # Errors
/// [`PlotError::Draw`] or an I/O error.
pub fn render(chart: &dyn ChartDyn, dir: &Path, theme: &Theme, font: &'static [u8]) -> Result<ChartFile, PlotError> {
    let name = chart.name();
    let draw_err = |message: String| PlotError::Draw { chart: name.clone(), message };
    let mut svg = String::new();
    {
        let backend = SVGBackend::with_string(&mut svg, (theme.width, theme.height));
        let root = typeset::Typeset::new(backend, font, false).map_err(draw_err)?.into_drawing_area();
        chart.draw_svg(&root, theme).map_err(draw_err)?;
        root.present().map_err(|e| draw_err(e.to_string()))?;
    }
    let svg_path = dir.join(format!("{name}.svg"));
    crate::write::atomic_write(&svg_path, svg.as_bytes())?;
    let big = theme.scaled(SUPERSAMPLE);
    let mut buf = vec![0u8; big.width as usize * big.height as usize * 3];
    {
        let backend = BitMapBackend::with_buffer(&mut buf, (big.width, big.height));
        let root = typeset::Typeset::new(backend, font, true).map_err(draw_err)?.into_drawing_area();
        chart.draw_png(&root, &big).map_err(draw_err)?;
        root.present().map_err(|e| draw_err(e.to_string()))?;
    }
    let small = downsample(&buf, big.width as usize, big.height as usize, SUPERSAMPLE as usize);
    let png_path = dir.join(format!("{name}.png"));
    let bytes = encode_png(&small, theme.width, theme.height).map_err(|e| draw_err(e.to_string()))?;
    crate::write::atomic_write(&png_path, &bytes)?;
    Ok(ChartFile { name, caption: chart.caption(theme), svg, svg_path, png_path })
}

/// Averages `k` × `k` blocks of an RGB image `w` × `h` (row by row, so it is fast even
/// in unoptimised test builds).
pub fn downsample(rgb: &[u8], w: usize, h: usize, k: usize) -> Vec<u8> {
    let (ow, oh) = (w / k, h / k);
    let n = (k * k) as u32;
    let mut out = vec![0u8; ow * oh * 3];
    let mut acc = vec![0u32; ow * 3];
    for (y, out_row) in out.chunks_exact_mut(ow * 3).enumerate() {
        acc.fill(0);
        for dy in 0..k {
            let start = (y * k + dy) * w * 3;
            let row = &rgb[start..start + ow * k * 3];
            for (a, block) in acc.chunks_exact_mut(3).zip(row.chunks_exact(3 * k)) {
                for px in block.chunks_exact(3) {
                    a[0] += u32::from(px[0]);
                    a[1] += u32::from(px[1]);
                    a[2] += u32::from(px[2]);
                }
            }
        }
        for (o, a) in out_row.iter_mut().zip(&acc) {
            *o = ((a + n / 2) / n) as u8;
        }
    }
    debug_assert!(oh * ow * 3 == out.len());
    out
}

/// Encodes an RGB image as PNG with its print resolution.
///
/// # Errors
/// The encoder's error.
pub fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let ppm = (PNG_DPI / 0.0254).round() as u32;
        enc.set_pixel_dims(Some(png::PixelDimensions { xppu: ppm, yppu: ppm, unit: png::Unit::Meter }));
        let mut writer = enc.write_header()?;
        writer.write_image_data(rgb)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsampling_averages_each_block() {
        // 4×2 pixels → 2×1: a black/white block averages to grey, a red block stays red.
        let px = |r, g, b| [r, g, b];
        let rows = [
            [px(0, 0, 0), px(255, 255, 255), px(255, 0, 0), px(255, 0, 0)],
            [px(255, 255, 255), px(0, 0, 0), px(255, 0, 0), px(255, 0, 0)],
        ];
        let rgb: Vec<u8> = rows.iter().flatten().flatten().copied().collect();
        assert_eq!(downsample(&rgb, 4, 2, 2), vec![128, 128, 128, 255, 0, 0]);
    }

    #[test]
    fn pngs_carry_their_size_and_print_resolution() {
        let bytes = encode_png(&[255; 3 * 6], 3, 2).unwrap();
        assert_eq!(&bytes[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 3);
        assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 2);
        assert!(bytes.windows(4).any(|w| w == b"pHYs"));
    }

    #[test]
    fn options_out_of_range_are_refused_with_the_flag_named() {
        let bad = PlotOptions { width: 10, ..PlotOptions::default() };
        assert!(check_options(&bad).unwrap_err().to_string().contains("--width 10"));
        let bad = PlotOptions { font_size: Some(f64::NAN), ..PlotOptions::default() };
        assert!(check_options(&bad).unwrap_err().to_string().contains("--font-size"));
        assert!(check_options(&PlotOptions::default()).is_ok());
    }
}
