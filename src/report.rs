//! The report of an output folder: `report.html` (one self-contained file: the charts as
//! inline SVG, the tables, the scenario's key parameters, the recommendation, the seed
//! and the version) and `report.md` (the same content for pasting into documents, with
//! the charts as links to `charts/*.png`).
//!
//! The content is built once as a list of [`Block`]s and rendered twice. For Chinese
//! reports drawn with the bundled font subset, the HTML embeds a bundled subset as a web
//! font (the small one of the labels and shipped names when it covers the page, else the
//! 3 MB GB 2312 one), so the page shows Chinese correctly even on a machine without
//! Chinese fonts.

mod decisions;
mod parameters;
mod seasons;
mod sensitivity;

use decisions::decision_blocks;
use parameters::parameter_blocks;

use std::path::{Path, PathBuf};

use crate::i18n::{L, Lang, fill};
use crate::plot::data::Stat;
use crate::plot::folder::{Folder, RunFolder, SweepFolder};
use crate::plot::font::{ChosenFont, NOTO_SC_LABELS, NOTO_SC_SUBSET, missing_chars, needed_chars};
use crate::plot::sweep_charts::{HEADLINE, metric_label};
use crate::plot::theme::{Theme, decimals_for};
use crate::plot::{ChartFile, PlotError, PlotOptions, run_charts::COMPONENTS};
use crate::write::fmt_num;

/// What [`plot_dir`] wrote.
#[derive(Debug)]
pub struct PlotOutput {
    /// The charts, in report order.
    pub charts: Vec<ChartFile>,
    /// Where they were written (`charts/`, or `charts-zh/` for Chinese).
    pub charts_dir: PathBuf,
    /// `report.html` (`report.zh.html` for Chinese).
    pub report_html: PathBuf,
    /// `report.md` (`report.zh.md` for Chinese).
    pub report_md: PathBuf,
    /// The font the charts were drawn with.
    pub font: ChosenFont,
    /// Things the user should know (missing glyphs, unreadable `run.toml`, …).
    pub warnings: Vec<String>,
}

/// Redraws every chart of the output folder `dir` into `dir/charts/` and writes
/// `dir/report.html` and `dir/report.md` (for Chinese: `dir/charts-zh/`,
/// `dir/report.zh.html`, `dir/report.zh.md`, beside the English files): what
/// `burstsim plot` does, and `run` and `sweep` after their CSVs.
///
/// # Errors
/// [`PlotError`]: bad input (missing file or column, bad option or font) or a failure
/// to draw or write.
pub fn plot_dir(dir: &Path, opts: &PlotOptions) -> Result<PlotOutput, PlotError> {
    let drawn = crate::plot::draw_dir(dir, opts)?;
    let (html, md) = write(dir, &drawn.folder, &drawn.charts, &drawn.theme, &drawn.font)?;
    Ok(PlotOutput {
        charts: drawn.charts,
        charts_dir: drawn.charts_dir,
        report_html: html,
        report_md: md,
        font: drawn.font,
        warnings: drawn.warnings,
    })
}

/// A piece of the report.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// The page title.
    Title(String),
    /// A section heading.
    Heading(String),
    /// A paragraph.
    Para(String),
    /// A paragraph to stand out (the recommendation).
    Strong(String),
    /// A list of items.
    List(Vec<String>),
    /// A table: header and rows.
    Table(Vec<String>, Vec<Vec<String>>),
    /// Preformatted text.
    Pre(String),
    /// Preformatted text folded under a summary line.
    Details(String, String),
    /// The `i`-th chart.
    Chart(usize),
}

/// Most rows of the sweep table in the report (the rest are in `sweep.csv`).
const MAX_SWEEP_ROWS: usize = 300;

/// Writes `report.html` and `report.md` into `dir` (Chinese: `report.zh.html`,
/// `report.zh.md`, linking to `charts-zh/`).
///
/// # Errors
/// I/O errors naming the file.
pub fn write(
    dir: &Path,
    folder: &Folder,
    charts: &[ChartFile],
    theme: &Theme,
    font: &ChosenFont,
) -> Result<(PathBuf, PathBuf), PlotError> {
    let blocks = blocks(folder, charts.len(), theme.lang);
    let html = dir.join(theme.lang.report_file("html"));
    let md = dir.join(theme.lang.report_file("md"));
    crate::write::atomic_write(&html, render_html(&blocks, charts, theme.lang, font).as_bytes())?;
    crate::write::atomic_write(&md, render_md(&blocks, charts, theme.lang).as_bytes())?;
    Ok((html, md))
}

/// `mean ± half-width`, in the unit's scale, or `–`.
fn pm(s: Option<&Stat>, scale: f64) -> String {
    let Some(s) = s.filter(|s| s.mean.is_finite()) else { return "–".into() };
    let hw = s.half_width() * scale;
    if s.mean == 0.0 && (hw == 0.0 || !hw.is_finite()) {
        return "0".into();
    }
    let d = decimals_for((s.mean * scale).abs());
    if hw.is_finite() {
        format!("{} ± {}", fmt_num(s.mean * scale, d), fmt_num(hw, d))
    } else {
        fmt_num(s.mean * scale, d)
    }
}

/// The content of the report.
pub fn blocks(folder: &Folder, n_charts: usize, lang: Lang) -> Vec<Block> {
    // The scenario's label in the language, else its id.
    let title = folder.title(lang).unwrap_or_else(|| folder.name().to_string());
    match folder {
        Folder::Run(r) => run_blocks(r, n_charts, lang, folder.annual(), &title),
        Folder::Sweep(s) => sweep_blocks(s, n_charts, lang, folder.annual(), &title),
    }
}

/// The scenario's description in the report's language: `description_zh` for Chinese
/// when given, else `description`.
fn description(table: &toml::Table, lang: Lang) -> Option<&str> {
    let zh = if lang == Lang::Zh { table.get("description_zh").and_then(|v| v.as_str()) } else { None };
    zh.or_else(|| table.get("description").and_then(|v| v.as_str()))
}

/// The separator of a list in running text ("a, b" / "a、b").
fn lang_sep(lang: Lang) -> &'static str {
    if lang == Lang::Zh { "、" } else { ", " }
}

fn version_line(lang: Lang) -> String {
    fill(L::Generated.get(lang), &[crate::VERSION])
}

fn run_blocks(r: &RunFolder, n_charts: usize, lang: Lang, annual: bool, title: &str) -> Vec<Block> {
    let t = |l: L| l.get(lang).to_string();
    let names = &r.names;
    let policy = |id: &str| names.policies.get(id, lang);
    let mut b = vec![Block::Title(fill(L::ReportRunTitle.get(lang), &[title]))];
    let mut meta = Vec::new();
    if let Some(d) = r.table.as_ref().and_then(|t| description(t, lang)) {
        meta.push(format!("{}{}{d}", t(L::Description), t(L::Colon)));
    }
    let unknown = t(L::Unknown);
    meta.push(format!("{}{}{}", t(L::Seed), t(L::Colon), r.header.seed.as_deref().unwrap_or(&unknown)));
    meta.push(format!("{}{}{}", t(L::Replications), t(L::Colon), r.replications_count()));
    meta.push(format!("{}{}{}", t(L::Version), t(L::Colon), r.header.version.as_deref().unwrap_or(&unknown)));
    b.push(Block::List(meta));
    b.push(Block::Para(version_line(lang)));
    b.push(Block::Para(fill(
        L::CiLegend.get(lang),
        &[&r.replications_count().to_string(), L::BudgetHeading.get(lang)],
    )));
    if !r.header.warnings.is_empty() {
        b.push(Block::Heading(t(L::WarningsHeading)));
        b.push(Block::List(r.header.warnings.iter().map(|w| crate::output::warnings::in_lang(w, lang)).collect()));
    }
    // The report leads with the paired differences (what each policy costs and saves against
    // the baseline on the same simulated years): that is the answer; absolute figures follow.
    if let Some(base) = r.paired.first().map(|p| p.baseline.clone()) {
        b.push(Block::Heading(fill(L::PairedHeading.get(lang), &[&policy(&base)])));
        let mut head = vec![t(L::Policy)];
        head.extend(HEADLINE.iter().map(|m| format!("Δ {}", metric_label(m).0.per_window(annual).get(lang))));
        let rows = r
            .policies
            .iter()
            .filter(|p| **p != base && r.paired.iter().any(|x| &x.policy == *p))
            .map(|p| {
                let mut row = vec![policy(p)];
                row.extend(HEADLINE.iter().map(|m| {
                    let x = r.paired.iter().find(|x| &x.policy == p && x.metric == *m);
                    let s = x.map(|x| Stat {
                        policy: x.policy.clone(),
                        metric: x.metric.clone(),
                        mean: x.mean,
                        low: x.low,
                        high: x.high,
                        replications: 0,
                    });
                    let text = pm(s.as_ref(), metric_label(m).1);
                    if s.as_ref().is_some_and(|s| s.mean > 0.0) { format!("+{text}") } else { text }
                }));
                row
            })
            .collect();
        b.push(Block::Table(head, rows));
    }
    if let Some(m) = &r.model {
        let zh = lang == Lang::Zh;
        b.push(Block::Heading(t(L::ModelHeading)));
        let mut lines = vec![m.model_line(zh), m.priority_line(zh), m.patience_line(zh)];
        lines.extend(m.account_lines(zh));
        b.push(Block::List(lines));
    }
    b.push(Block::Heading(t(L::SummaryHeading)));
    // The headline metrics, then the cloud share by GPU-hours and the group's own reneged
    // and balked shares where the folder has them.
    let mut shown: Vec<&str> = HEADLINE.to_vec();
    shown.extend(
        ["cloud_gpu_hour_share", "group_reneged_share", "group_balked_share"]
            .into_iter()
            .filter(|m| r.policies.iter().any(|p| r.stat(p, m).is_some())),
    );
    let mut head = vec![t(L::Policy)];
    head.extend(shown.iter().map(|m| metric_label(m).0.per_window(annual).get(lang).to_string()));
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let mut row = vec![policy(p)];
            row.extend(shown.iter().map(|m| pm(r.stat(p, m), metric_label(m).1)));
            row
        })
        .collect();
    b.push(Block::Table(head, rows));
    b.extend(seasons::summary_notes(r, lang));
    b.extend(budget_blocks(r, lang, annual));
    let mut head = vec![t(L::Policy)];
    head.extend(COMPONENTS.iter().map(|c| format!("{}{}", c.1.get(lang), L::CnyUnit.per_window(annual).get(lang))));
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let mut row = vec![policy(p)];
            row.extend(COMPONENTS.iter().map(|c| pm(r.stat(p, c.0), 1.0)));
            row
        })
        .collect();
    b.push(Block::Heading(t(L::CostBreakdownTitle)));
    b.push(Block::Table(head, rows));
    b.extend(seasons::outcome_blocks(r, lang));
    b.extend(class_blocks(r, lang));
    b.extend(seasons::season_blocks(r, lang));
    b.extend(sensitivity::blocks(r, lang));
    b.push(Block::Heading(t(L::ChartsHeading)));
    b.extend((0..n_charts).map(Block::Chart));
    b.extend(methods_blocks(lang));
    b.push(Block::Heading(t(L::ParamsHeading)));
    match &r.table {
        Some(table) => b.extend(parameter_blocks(table, lang)),
        None => b.push(Block::Para(t(L::NoScenario))),
    }
    b
}

/// "Budget a year": per policy, the mean total cost with its CI, then the spread of
/// single years (median and 90th-percentile year, the years above mean + 20%), from
/// `summary.csv`'s year columns; nothing for folders written before them.
fn budget_blocks(r: &RunFolder, lang: Lang, annual: bool) -> Vec<Block> {
    let metric = "total_cost_cny";
    if r.policies.iter().all(|p| r.year(p, metric).is_none()) {
        return Vec::new();
    }
    let t = |l: L| l.get(lang).to_string();
    let unit = L::CnyUnit.per_window(annual).get(lang);
    let head = vec![
        t(L::Policy),
        format!("{}{unit}", t(L::BudgetMean)),
        format!("{}{unit}", t(L::BudgetP50)),
        format!("{}{unit}", t(L::BudgetP90)),
        t(L::BudgetAbove),
    ];
    let money = |v: f64| if v.is_finite() { fmt_num(v, 0) } else { "–".into() };
    let rows = r
        .policies
        .iter()
        .filter_map(|p| {
            let y = r.year(p, metric)?;
            let above = fill(L::YearsOf.get(lang), &[&y.above_years().to_string(), &y.replications.to_string()]);
            Some(vec![r.names.policies.get(p, lang), pm(r.stat(p, metric), 1.0), money(y.p50), money(y.p90), above])
        })
        .collect();
    vec![
        Block::Heading(t(L::BudgetHeading)),
        Block::Para(fill(L::BudgetNote.get(lang), &[&r.replications_count().to_string()])),
        Block::Table(head, rows),
    ]
}

/// The "methods, assumptions and limitations" section: what is simulated, what the CIs
/// cover, and the model's known bias.
fn methods_blocks(lang: Lang) -> Vec<Block> {
    let t = |l: L| l.get(lang).to_string();
    vec![
        Block::Heading(t(L::MethodsHeading)),
        Block::Para(t(L::MethodsModel)),
        Block::Para(t(L::MethodsCi)),
        Block::Para(t(L::MethodsBias)),
    ]
}

/// The per-class table of a run (from `classes.csv`): jobs, mean and p95 wait, the
/// shares over each reporting threshold, deadline misses and the cloud share.
fn class_blocks(r: &RunFolder, lang: Lang) -> Vec<Block> {
    let classes = r.class_names();
    if classes.is_empty() {
        return Vec::new();
    }
    let t = |l: L| l.get(lang).to_string();
    let mut thresholds: Vec<String> = Vec::new();
    for (_, s) in &r.classes {
        if let Some(x) = s.metric.strip_prefix("wait_over_").and_then(|m| m.strip_suffix("h_share"))
            && !thresholds.iter().any(|t| t == x)
        {
            thresholds.push(x.to_string());
        }
    }
    let mut head = vec![t(L::Policy), t(L::Class), t(L::Jobs)];
    head.push(metric_label("wait_mean_h").0.get(lang).to_string());
    head.push(metric_label("wait_p95_h").0.get(lang).to_string());
    head.extend(thresholds.iter().map(|x| fill(L::WaitOver.get(lang), &[x])));
    head.push(metric_label("deadline_miss_rate").0.get(lang).to_string());
    head.push(metric_label("cloud_job_share").0.get(lang).to_string());
    let mut rows = Vec::new();
    for p in &r.policies {
        for c in &classes {
            let g = |m: &str, scale: f64| pm(r.class_stat(p, c, m), scale);
            let mut row = vec![r.names.policies.get(p, lang), class_name(r, c, lang)];
            row.push(r.class_stat(p, c, "jobs_completed").map_or("–".into(), |s| format!("{:.0}", s.mean)));
            row.push(g("wait_mean_h", 1.0));
            row.push(g("wait_p95_h", 1.0));
            row.extend(thresholds.iter().map(|x| g(&format!("wait_over_{x}h_share"), 100.0)));
            row.push(g("deadline_miss_rate", 100.0));
            row.push(g("cloud_job_share", 100.0));
            rows.push(row);
        }
    }
    let all = class_name(r, crate::scenario::class_metrics::ALL_CLASSES, lang);
    vec![
        Block::Heading(t(L::ClassHeading)),
        Block::Para(fill(L::ClassNote.get(lang), &[&all])),
        Block::Table(head, rows),
    ]
}

/// A class's display name; the row of every group job is "(all classes)" translated.
fn class_name(r: &RunFolder, class: &str, lang: Lang) -> String {
    if class == crate::scenario::class_metrics::ALL_CLASSES {
        L::AllClasses.get(lang).to_string()
    } else {
        r.names.classes.get(class, lang)
    }
}

fn sweep_blocks(s: &SweepFolder, n_charts: usize, lang: Lang, annual: bool, title: &str) -> Vec<Block> {
    let t = |l: L| l.get(lang).to_string();
    let policy = |id: &str| s.names.policies.get(id, lang);
    let mut b = vec![Block::Title(fill(L::ReportSweepTitle.get(lang), &[title]))];
    let points = s.rows.iter().map(|r| r.0).max().map_or(0, |m| m + 1);
    let mut meta = Vec::new();
    if let Some(d) = s.table.as_ref().and_then(|t| description(t, lang)) {
        meta.push(format!("{}{}{d}", t(L::Description), t(L::Colon)));
    }
    // Each swept key by its axis title, the key itself after it for whoever edits the file.
    let swept: Vec<String> =
        s.params.iter().map(|k| format!("{} ({k})", crate::plot::sweep_charts::key_label(s, k, lang))).collect();
    meta.push(format!("{}{}{}", t(L::SweptParams), t(L::Colon), swept.join(lang_sep(lang))));
    meta.push(format!("{}{}{points}", t(L::Points), t(L::Colon)));
    meta.push(format!("{}{}{}", t(L::Replications), t(L::Colon), s.replications_count()));
    let seed = s.table.as_ref().and_then(|t| t.get("simulation")).and_then(|v| v.get("seed")).map(|v| v.to_string());
    meta.push(format!("{}{}{}", t(L::Seed), t(L::Colon), seed.unwrap_or_else(|| t(L::Unknown))));
    b.push(Block::List(meta));
    b.push(Block::Para(version_line(lang)));
    b.push(Block::Heading(t(L::RecommendationHeading)));
    match (&s.recommended, &s.recommendation_text) {
        (Some(r), _) => {
            let at = r.values.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ");
            b.push(Block::Strong(fill(L::Chosen.get(lang), &[&policy(&r.policy), &at])));
        }
        (None, None) => b.push(Block::Para(t(L::NoRecommendation))),
        (None, Some(_)) => {}
    }
    b.extend(decision_blocks(s, lang));
    if let Some(text) = &s.recommendation_text {
        // The analysis is written in English: the Chinese report folds it away below the
        // table in Chinese.
        let text = text.trim_end().to_string();
        b.push(if lang == Lang::Zh { Block::Details(t(L::FullAnalysis), text) } else { Block::Pre(text) });
    }
    b.push(Block::Heading(t(L::ChartsHeading)));
    b.extend((0..n_charts).map(Block::Chart));
    b.extend(methods_blocks(lang));
    b.push(Block::Heading(t(L::SweepPointsHeading)));
    let mut head: Vec<String> = s
        .params
        .iter()
        .zip(&s.axes)
        .map(|(k, a)| crate::plot::sweep_charts::axis_label_named(k, Some(a), lang, &s.names))
        .collect();
    head.push(t(L::Policy));
    head.extend(HEADLINE.iter().map(|m| metric_label(m).0.per_window(annual).get(lang).to_string()));
    let mut keys: Vec<(&Vec<String>, &str)> = Vec::new();
    for r in &s.rows {
        if !keys.iter().any(|k| k.0 == &r.1 && k.1 == r.2.policy) {
            keys.push((&r.1, &r.2.policy));
        }
    }
    let total = keys.len();
    let rows = keys
        .into_iter()
        .take(MAX_SWEEP_ROWS)
        .map(|(values, policy)| {
            let mut row = values.clone();
            row.push(s.names.policies.get(policy, lang));
            row.extend(HEADLINE.iter().map(|m| pm(s.stat(values, policy, m), metric_label(m).1)));
            row
        })
        .collect();
    b.push(Block::Table(head, rows));
    if total > MAX_SWEEP_ROWS {
        b.push(Block::Para(fill(L::RowsTrimmed.get(lang), &[&(total - MAX_SWEEP_ROWS).to_string()])));
    }
    b.push(Block::Heading(t(L::ParamsHeading)));
    match &s.table {
        Some(table) => b.extend(parameter_blocks(table, lang)),
        None => b.push(Block::Para(t(L::NoScenario))),
    }
    b
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Standard base64 (for the embedded font).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

const CSS: &str = "body{max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
h1{font-size:1.6em;margin-bottom:.3em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;margin:.6em 0;font-size:.92em;display:block;overflow-x:auto;max-width:100%}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}\
th{background:#f3f3f3;word-break:keep-all}td:first-child,th:first-child{text-align:left;white-space:nowrap}\
figure{margin:1.2em 0}figure svg{width:100%;height:auto;border:1px solid #eee}figcaption{color:#555;font-size:.9em}\
pre{background:#f6f6f6;padding:.8em;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em}.strong{font-weight:bold;font-size:1.1em}";

fn render_html(blocks: &[Block], charts: &[ChartFile], lang: Lang, font: &ChosenFont) -> String {
    let stack =
        "\"Noto Sans CJK SC\",\"Source Han Sans SC\",\"WenQuanYi Micro Hei\",\"Microsoft YaHei\",\"PingFang SC\"";
    // The body first: the embedded font is the smallest bundled one that covers its text.
    let mut h = String::new();
    for b in blocks {
        match b {
            Block::Title(t) => h.push_str(&format!("<h1>{}</h1>\n", esc(t))),
            Block::Heading(t) => h.push_str(&format!("<h2>{}</h2>\n", esc(t))),
            Block::Para(t) => h.push_str(&format!("<p>{}</p>\n", esc(t))),
            Block::Strong(t) => h.push_str(&format!("<p class=\"strong\">{}</p>\n", esc(t))),
            Block::List(items) => {
                h.push_str("<ul>\n");
                items.iter().for_each(|i| h.push_str(&format!("<li>{}</li>\n", esc(i))));
                h.push_str("</ul>\n");
            }
            Block::Table(head, rows) => {
                h.push_str("<table>\n<tr>");
                head.iter().for_each(|c| h.push_str(&format!("<th>{}</th>", esc(c))));
                h.push_str("</tr>\n");
                for r in rows {
                    h.push_str("<tr>");
                    r.iter().for_each(|c| h.push_str(&format!("<td>{}</td>", esc(c))));
                    h.push_str("</tr>\n");
                }
                h.push_str("</table>\n");
            }
            Block::Pre(t) => h.push_str(&format!("<pre>{}</pre>\n", esc(t))),
            Block::Details(summary, t) => {
                h.push_str(&format!("<details><summary>{}</summary><pre>{}</pre></details>\n", esc(summary), esc(t)))
            }
            Block::Chart(i) => {
                let c = &charts[*i];
                let svg = c.svg.trim_start();
                let svg = if svg.starts_with("<?xml") { svg.split_once("?>").map_or(svg, |x| x.1) } else { svg };
                h.push_str(&format!(
                    "<figure id=\"{}\">\n{}\n<figcaption>{} (<a href=\"{folder}/{}.svg\">SVG</a>, <a href=\"{folder}/{}.png\">PNG</a>)</figcaption>\n</figure>\n",
                    esc(&c.name),
                    svg.trim(),
                    esc(&c.caption),
                    c.name,
                    c.name,
                    folder = lang.charts_folder()
                ));
            }
        }
    }
    let body = h;
    let fonts = if font.is_bundled_cjk {
        let embedded = if missing_chars(NOTO_SC_LABELS, &needed_chars(&body)).is_empty() {
            NOTO_SC_LABELS
        } else {
            NOTO_SC_SUBSET
        };
        format!(
            "@font-face{{font-family:\"burstsim-sans\";src:url(data:font/otf;base64,{}) format(\"opentype\")}}\
             body,svg text{{font-family:\"burstsim-sans\",{stack},sans-serif}}",
            base64(embedded)
        )
    } else {
        format!("body{{font-family:\"DejaVu Sans\",\"Helvetica Neue\",Arial,{stack},sans-serif}}")
    };
    let title = blocks.iter().find_map(|b| if let Block::Title(t) = b { Some(t.as_str()) } else { None }).unwrap_or("");
    format!(
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}{fonts}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        lang.html_code(),
        esc(title)
    )
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn render_md(blocks: &[Block], charts: &[ChartFile], lang: Lang) -> String {
    let mut m = String::new();
    for b in blocks {
        match b {
            Block::Title(t) => m.push_str(&format!("# {t}\n\n")),
            Block::Heading(t) => m.push_str(&format!("## {t}\n\n")),
            Block::Para(t) => m.push_str(&format!("{t}\n\n")),
            Block::Strong(t) => m.push_str(&format!("**{t}**\n\n")),
            Block::List(items) => {
                items.iter().for_each(|i| m.push_str(&format!("- {i}\n")));
                m.push('\n');
            }
            Block::Table(head, rows) => {
                m.push_str(&format!("| {} |\n", head.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")));
                let align: Vec<&str> = (0..head.len()).map(|k| if k == 0 { ":---" } else { "---:" }).collect();
                m.push_str(&format!("| {} |\n", align.join(" | ")));
                for r in rows {
                    m.push_str(&format!("| {} |\n", r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")));
                }
                m.push('\n');
            }
            Block::Pre(t) => m.push_str(&format!("```text\n{t}\n```\n\n")),
            Block::Details(summary, t) => m.push_str(&format!("{summary}:\n\n```text\n{t}\n```\n\n")),
            Block::Chart(i) => {
                let c = &charts[*i];
                m.push_str(&format!("![{}]({}/{}.png)\n\n", c.caption, lang.charts_folder(), c.name));
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn html_text_is_escaped() {
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn means_show_their_half_width_at_a_sensible_precision() {
        let s = Stat {
            policy: "p".into(),
            metric: "m".into(),
            mean: 112_304.2,
            low: 108_924.0,
            high: 115_684.4,
            replications: 10,
        };
        assert_eq!(pm(Some(&s), 1.0), "112,304 ± 3,380");
        let s = Stat { mean: 0.327, low: 0.313, high: 0.341, ..s };
        assert_eq!(pm(Some(&s), 100.0), "32.7 ± 1.4");
        assert_eq!(pm(None, 1.0), "–");
    }
}
