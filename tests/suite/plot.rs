//! Charts and reports: every chart of a run and of a two-parameter sweep is drawn from a
//! small output folder, as valid SVG and PNG of the requested size, with the policy names
//! and axis labels in the SVG text; Chinese labels are text in the SVG and glyphs (not
//! boxes) in the PNG; bad folders are refused with the file named (exit code 2); the
//! HTML report opens in headless Chromium when it is installed.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use burstsim::i18n::Lang;
use burstsim::plot::{self, PlotOptions};

const SCENARIO: &str = "tests/fixtures/plot-tiny.toml";
const POLICIES: [&str; 3] = ["campus-only", "overflow-2h", "reserved"];

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

/// The run and sweep folders, made once per test process by the real binary (the run
/// draws its charts itself; the sweep is made with --no-charts).
fn fixtures() -> &'static (tempfile::TempDir, PathBuf, PathBuf) {
    static DIRS: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let (run, sweep) = (tmp.path().join("run"), tmp.path().join("sweep"));
        let out = burstsim().args(["run", SCENARIO, "-n", "3", "--quiet", "--out"]).arg(&run).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let out = burstsim()
            .args(["sweep", SCENARIO, "-n", "2", "--quiet", "--no-charts"])
            .args([
                "-p",
                "policies.overflow-2h.threshold_hours=0,4",
                "-p",
                "background.seasons.crunch.multiplier=1,1.5",
            ])
            // A target every point meets, so there is always a recommendation to mark.
            .args(["--target", "total_cost_cny<=1000000000", "--out"])
            .arg(&sweep)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (tmp, run, sweep)
    })
}

/// A fresh copy of a fixture folder's data files (no charts), so tests do not interfere.
fn copy_of(src: &Path) -> tempfile::TempDir {
    let dst = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_file() && !name.starts_with("report.") {
            std::fs::copy(&p, dst.path().join(&name)).unwrap();
        }
    }
    dst
}

fn opts(lang: Lang, width: u32, height: u32) -> PlotOptions {
    PlotOptions { lang, width, height, system_fonts: false, ..PlotOptions::default() }
}

/// Width, height and RGB pixels of a PNG file.
fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", path.display());
    let header =
        (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), header);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn check_svg(path: &Path, width: u32, height: u32) -> String {
    let svg = std::fs::read_to_string(path).unwrap();
    assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{}", path.display());
    assert!(svg.contains(&format!("width=\"{width}\"")) && svg.contains(&format!("height=\"{height}\"")));
    assert!(svg.contains("font-family=\"sans-serif\""), "portable font family");
    svg
}

#[test]
fn the_run_command_draws_every_chart_and_the_report() {
    let (_, run, _) = fixtures();
    for name in ["cost_vs_wait", "wait_cdf", "class_wait_cdf", "cost_breakdown", "campus_timeline", "monthly_use"] {
        check_svg(&run.join("charts").join(format!("{name}.svg")), 1600, 1000);
        let (w, h, _) = read_png(&run.join("charts").join(format!("{name}.png")));
        assert_eq!((w, h), (1600, 1000), "{name}: PNGs are at least 1600 px wide by default");
    }
    assert!(run.join("report.html").is_file() && run.join("report.md").is_file());
}

#[test]
fn run_charts_are_valid_svg_and_png_of_the_requested_size_with_labels() {
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::En, 1700, 900)).unwrap();
    // Six run charts, and the sensitivity tornado when the folder has a band.
    let tornado = dir.path().join("sensitivity.csv").is_file();
    assert_eq!(
        out.charts.len(),
        6 + usize::from(tornado),
        "{:?}",
        out.charts.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let labels = [
        ("cost_vs_wait", vec!["Total cost (CNY)", "Mean of yearly p95 wait (h)", "Pareto frontier"]),
        ("wait_cdf", vec!["Jobs that waited at most this long (%)", "1 h"]),
        ("class_wait_cdf", vec!["How long jobs wait, by job class", "\nsmall\n", "\nbig\n", "1 h"]),
        ("cost_breakdown", vec!["Mean cost (CNY)", "Campus GPU time", "Cloud, monthly rent"]),
        ("campus_timeline", vec!["GPUs requested by queued jobs", "Busy campus GPUs", "crunch ×1.3", "paper-push ×2"]),
        ("monthly_use", vec!["Campus GPUs busy, all groups (%)", "Cloud GPUs in use by the group", "Oct 2026"]),
    ];
    for (name, texts) in labels {
        let svg = check_svg(&dir.path().join("charts").join(format!("{name}.svg")), 1700, 900);
        for t in texts.iter().chain(if name == "cost_breakdown" { &[][..] } else { &POLICIES[..] }) {
            assert!(svg.contains(t), "{name}.svg lacks '{t}'");
        }
        assert!(svg.contains("plot-tiny: "), "{name}: the title starts with the scenario name");
        let (w, h, px) = read_png(&dir.path().join("charts").join(format!("{name}.png")));
        assert_eq!((w, h), (1700, 900));
        let distinct: std::collections::HashSet<&[u8]> = px.chunks(3).collect();
        assert!(distinct.len() > 50, "{name}.png has content ({} colours)", distinct.len());
    }
}

#[test]
fn sweep_charts_show_each_metric_heatmaps_the_best_decisions_and_human_axis_titles() {
    let (_, _, sweep) = fixtures();
    let dir = copy_of(sweep);
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::En, 1600, 1000)).unwrap();
    let names: Vec<&str> = out.charts.iter().map(|c| c.name.as_str()).collect();
    for m in ["total_cost_cny", "wait_mean_h", "wait_p95_h", "deadline_miss_rate", "cloud_job_share"] {
        assert!(names.contains(&format!("sweep_{m}").as_str()), "{names:?}");
    }
    for p in POLICIES {
        for m in ["total_cost_cny", "wait_p95_h"] {
            assert!(names.contains(&format!("heatmap_{m}_{p}").as_str()), "{names:?}");
        }
    }
    // The threshold is a decision, the crunch multiplier a condition: the charts mark the
    // best decision at each condition, and the policy map shows it.
    assert!(names.contains(&"policy_map"), "{names:?}");
    let svg = check_svg(&dir.path().join("charts/sweep_wait_p95_h.svg"), 1600, 1000);
    // The band is drawn at the confidence each bound of the rule had (Bonferroni over the
    // candidates at a scenario point), which sweep.toml records; not at 95%.
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(dir.path().join("sweep.toml")).unwrap()).unwrap();
    let confidence = manifest["confidence_each"].as_float().unwrap();
    assert!(confidence > 0.95 && confidence < 1.0, "{confidence}");
    let band = format!("{}% CI", burstsim::write::fmt_num(confidence * 100.0, 2));
    for t in ["Overflow threshold of overflow-2h (h)", "Mean of yearly p95 wait (h)", "best at this condition", &band] {
        assert!(svg.contains(t), "sweep_wait_p95_h.svg lacks '{t}'");
    }
    assert!(!svg.contains(">95% CI<"), "the band is not labelled 95%");
    assert!(!svg.contains(">policies.overflow-2h.threshold_hours<"), "the axis title is not the raw key");
    let heat = check_svg(&dir.path().join("charts/heatmap_total_cost_cny_overflow-2h.svg"), 1600, 1000);
    assert!(heat.contains("load in crunch (× base)") && heat.contains("overflow-2h"), "{heat}");
    let map = check_svg(&dir.path().join("charts/policy_map.svg"), 1600, 1000);
    assert!(map.contains("Best decision against Other groups") && map.contains("¥"), "{map}");
    let (w, h, _) = read_png(&dir.path().join("charts/heatmap_wait_p95_h_reserved.png"));
    assert_eq!((w, h), (1600, 1000));
    let text = std::fs::read_to_string(dir.path().join("recommendation.txt")).unwrap();
    assert!(text.contains("Best decision at each scenario point"), "{text}");
    assert_eq!(burstsim::plot::data::parse_recommendation(&text), None, "no calendar is recommended");
    let csv = std::fs::read_to_string(dir.path().join("decisions.csv")).unwrap();
    assert!(csv.starts_with("kind,scenario_point,background.seasons.crunch.multiplier,decision,policy,"), "{csv}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("Best decision at each scenario point"), "the analysis is in the report");
    assert!(html.contains("<li>Seed: 11</li>"), "the seed comes from scenario.toml");
}

#[test]
fn a_target_is_drawn_as_a_line_and_the_chinese_axis_titles_are_human() {
    let (_, _, sweep) = fixtures();
    let dir = copy_of(sweep);
    // A target inside the drawn range: the largest mean p95 wait of the sweep.
    let csv = std::fs::read_to_string(dir.path().join("sweep.csv")).unwrap();
    let mean = csv.lines().next().unwrap().split(',').position(|c| c == "mean").unwrap();
    let top = csv
        .lines()
        .filter(|l| l.contains(",wait_p95_h,"))
        .filter_map(|l| l.split(',').nth(mean).and_then(|v| v.parse::<f64>().ok()))
        .fold(0.0, f64::max);
    let target = format!("{:.1}", top.max(0.1));
    let manifest = std::fs::read_to_string(dir.path().join("sweep.toml")).unwrap();
    let manifest =
        manifest
            .lines()
            .map(|l| {
                if l.starts_with("targets = ") {
                    format!("targets = [\"wait_p95_h<={target}\"]")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
    std::fs::write(dir.path().join("sweep.toml"), manifest).unwrap();
    burstsim::report::plot_dir(dir.path(), &opts(Lang::En, 1600, 1000)).unwrap();
    let svg = check_svg(&dir.path().join("charts/sweep_wait_p95_h.svg"), 1600, 1000);
    assert!(svg.contains(&format!("target ≤ {target}")), "the target is labelled");
    assert!(svg.to_ascii_uppercase().contains("#B40000"), "the target line is drawn in its colour");
    let cost = check_svg(&dir.path().join("charts/sweep_total_cost_cny.svg"), 1600, 1000);
    assert!(!cost.contains("target"), "no target on cost");
    burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    let zh = check_svg(&dir.path().join("charts-zh/sweep_wait_p95_h.svg"), 1600, 1000);
    // The policy is called by its Chinese label in the axis title.
    assert!(zh.contains("超2小时上云的溢出阈值（小时）") && zh.contains(&format!("目标 ≤ {target}")), "{zh}");
}

#[test]
fn chinese_labels_are_text_in_the_svg_and_glyphs_in_the_png() {
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    assert!(out.font.is_bundled_cjk, "the bundled subset is enough, no system font: {}", out.font.name);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let svg = check_svg(&dir.path().join("charts-zh/cost_vs_wait.svg"), 1600, 1000);
    for t in ["总成本（元）", "各年第95百分位等待时间的平均（小时）", "帕累托前沿", "campus-only"]
    {
        assert!(svg.contains(t), "cost_vs_wait.svg lacks '{t}'");
    }
    let svg = check_svg(&dir.path().join("charts-zh/campus_timeline.svg"), 1600, 1000);
    assert!(svg.contains("2026年10月") && svg.contains("本组时段"), "Chinese dates and legend");
    // The title band of the PNG is not blank.
    let (w, _, px) = read_png(&dir.path().join("charts-zh/cost_vs_wait.png"));
    let title_rows = &px[(w as usize * 3) * 10..(w as usize * 3) * 50];
    assert!(title_rows.chunks(3).filter(|p| p[0] < 128).count() > 500, "the Chinese title is drawn");
    // The report embeds the subset so the page shows Chinese without system fonts.
    let html = std::fs::read_to_string(dir.path().join("report.zh.html")).unwrap();
    assert!(html.contains("lang=\"zh-CN\"") && html.contains("@font-face") && html.contains("结果汇总"));
    // The small report subset covers this report, so the page stays under 1 MB (issue 26:
    // it was 4.2 MB with the whole 3 MB subset embedded).
    assert!(html.len() < 1 << 20, "report.zh.html is {} bytes", html.len());
    assert!(html.contains(&burstsim::report::base64(burstsim::plot::font::NOTO_SC_LABELS)), "the small subset");
}

/// Ink of `text` drawn at 48 px with the bundled Chinese font (or DejaVu, which has no
/// Chinese glyphs and draws boxes).
fn ink(text: &str, font: &'static [u8]) -> Vec<bool> {
    use plotters::prelude::*;
    let (w, h) = (200u32, 80u32);
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let backend = BitMapBackend::with_buffer(&mut buf, (w, h));
        let root = plot::typeset::Typeset::new(backend, font, true).unwrap().into_drawing_area();
        root.draw_text(text, &("sans-serif", 48.0).into_font().color(&BLACK), (10, 10)).unwrap();
        root.present().unwrap();
    }
    buf.chunks(3).map(|p| p[0] < 128).collect()
}

#[test]
fn chinese_charts_call_things_by_their_labels_and_start_with_no_english_id() {
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let svg = check_svg(&dir.path().join("charts-zh/cost_vs_wait.svg"), 1600, 1000);
    assert!(svg.contains("超2小时上云") && svg.contains("包月优先"), "policies by their label_zh");
    assert!(!svg.contains("\noverflow-2h\n") && !svg.contains("\nreserved\n"), "ids with a label are not drawn");
    for chart in ["cost_vs_wait", "wait_cdf", "class_wait_cdf", "campus_timeline", "monthly_use"] {
        let svg = std::fs::read_to_string(dir.path().join(format!("charts-zh/{chart}.svg"))).unwrap();
        assert!(!svg.contains("plot-tiny"), "{chart}: a Chinese title never starts with the English id");
    }
    let timeline = std::fs::read_to_string(dir.path().join("charts-zh/campus_timeline.svg")).unwrap();
    assert!(timeline.contains("赶稿期 ×1.3"), "seasons by their label_zh");
    let classes = std::fs::read_to_string(dir.path().join("charts-zh/class_wait_cdf.svg")).unwrap();
    assert!(
        classes.contains("各类作业的等待时间分布") && classes.contains("\n主训练\n") && classes.contains("\nsmall\n")
    );
    let html = std::fs::read_to_string(dir.path().join("report.zh.html")).unwrap();
    for t in ["超2小时上云", "主训练", "“全部作业”", "id=\"class_wait_cdf\""] {
        assert!(html.contains(t), "report.zh.html lacks '{t}'");
    }
    // With a Chinese scenario label, the titles start with it (and a Chinese colon).
    let manifest = std::fs::read_to_string(dir.path().join("run.toml")).unwrap();
    let manifest = manifest.replacen("name = \"plot-tiny\"\n", "name = \"plot-tiny\"\nlabel_zh = \"测试课题组\"\n", 1);
    std::fs::write(dir.path().join("run.toml"), manifest).unwrap();
    burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("charts-zh/wait_cdf.svg")).unwrap();
    assert!(svg.contains("测试课题组：作业等待时间分布"), "the Chinese label is the title prefix");
    assert!(
        std::fs::read_to_string(dir.path().join("report.zh.html"))
            .unwrap()
            .contains("<h1>burstsim 模拟结果：测试课题组</h1>")
    );
}

#[test]
fn a_label_no_font_covers_is_a_warning_that_names_its_characters() {
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    let manifest = std::fs::read_to_string(dir.path().join("run.toml")).unwrap();
    assert!(manifest.contains("label_zh = \"包月优先\""), "labels travel in run.toml");
    std::fs::write(dir.path().join("run.toml"), manifest.replace("label_zh = \"包月优先\"", "label_zh = \"龘的方案\""))
        .unwrap();
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    assert!(out.warnings.iter().any(|w| w.contains("'龘'") && w.contains("boxes")), "{:?}", out.warnings);
    // English charts do not draw the Chinese label, so they need no Chinese glyph.
    let out = burstsim::report::plot_dir(dir.path(), &opts(Lang::En, 1600, 1000)).unwrap();
    assert!(out.warnings.is_empty() && !out.font.is_bundled_cjk, "{:?} {}", out.warnings, out.font.name);
}

#[test]
fn chinese_glyphs_are_drawn_as_characters_not_boxes() {
    use burstsim::plot::font::{DEJAVU_SANS, NOTO_SC_SUBSET};
    let cheng = ink("成", NOTO_SC_SUBSET);
    let ben = ink("本", NOTO_SC_SUBSET);
    let tofu = ink("成", DEJAVU_SANS);
    let count = |v: &[bool]| v.iter().filter(|&&b| b).count();
    assert!(count(&cheng) > 100 && count(&ben) > 100, "glyphs have ink");
    assert_ne!(cheng, ben, "two characters look different");
    assert_ne!(cheng, tofu, "the glyph is not the missing-glyph box");
    assert_eq!(ink("成", DEJAVU_SANS), ink("本", DEJAVU_SANS), "DejaVu draws the same box for both");
}

#[test]
fn the_plot_command_redraws_with_the_style_options() {
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    let out = burstsim()
        .args(["plot"])
        .arg(dir.path())
        .args(["--lang", "zh", "--width", "1800", "--height", "1100", "--title", "课题组 2026", "--font-size", "30"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("report.zh.html") && stdout.contains("charts-zh"), "{stdout}");
    let svg = check_svg(&dir.path().join("charts-zh/wait_cdf.svg"), 1800, 1100);
    assert!(svg.contains("课题组 2026：作业等待时间分布"), "custom title prefix");
    assert_eq!(read_png(&dir.path().join("charts-zh/wait_cdf.png")).0, 1800);
    let out = burstsim()
        .args(["plot"])
        .arg(dir.path())
        .args(["--title", "", "--font"])
        .arg("assets/fonts/DejaVuSans.ttf")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("DejaVuSans.ttf#0"));
    assert!(!std::fs::read_to_string(dir.path().join("charts/wait_cdf.svg")).unwrap().contains(": How long"));
}

#[test]
fn bad_folders_and_options_exit_with_2_and_name_the_file() {
    let (_, run, _) = fixtures();
    let check = |dir: &Path, extra: &[&str], expect: &[&str]| {
        let out = burstsim().args(["plot"]).arg(dir).args(extra).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        for e in expect {
            assert!(err.contains(e), "stderr lacks '{e}': {err}");
        }
    };
    let empty = tempfile::tempdir().unwrap();
    check(empty.path(), &[], &["neither summary.csv", "sweep.csv"]);
    let dir = copy_of(run);
    std::fs::remove_file(dir.path().join("waits.csv")).unwrap();
    check(dir.path(), &[], &["waits.csv", "is missing"]);
    let dir = copy_of(run);
    std::fs::write(dir.path().join("timeseries.csv"), "policy,day,date\na,0,2026-10-01\n").unwrap();
    check(dir.path(), &[], &["timeseries.csv", "campus_queue_gpus"]);
    let dir = copy_of(run);
    std::fs::write(
        dir.path().join("summary.csv"),
        "policy,metric,unit,mean,ci95_low,ci95_high,replications\na,b,h,x,1,2,3\n",
    )
    .unwrap();
    check(dir.path(), &[], &["summary.csv", "line 2", "'x'"]);
    check(run, &["--width", "50"], &["--width 50"]);
    check(run, &["--font", "/no/such/font.ttf"], &["/no/such/font.ttf"]);
}

#[test]
fn no_charts_leaves_only_the_data_files() {
    let (_, _, sweep) = fixtures();
    assert!(!sweep.join("charts").exists() && !sweep.join("report.html").exists());
    assert!(sweep.join("scenario.toml").is_file(), "the sweep keeps its base scenario for the report");
}

/// Headless Chromium, if installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| std::process::Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// A 1200 × 6000 screenshot of `page` in headless Chromium: (width, height, pixels).
/// With `BURSTSIM_SCREENSHOT_DIR` set, the PNG is also copied there as `name`, to look at.
fn screenshot(chromium: &str, page: &Path, name: &str) -> (u32, u32, Vec<u8>) {
    let profile = tempfile::tempdir().unwrap();
    let shot = profile.path().join("shot.png");
    let url = format!("file://{}", std::fs::canonicalize(page).unwrap().display());
    let out = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.path().join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .args(["--window-size=1200,6000", &url])
        .output()
        .unwrap();
    assert!(shot.is_file(), "no screenshot of {}: {}", page.display(), String::from_utf8_lossy(&out.stderr));
    if let Some(keep) = std::env::var_os("BURSTSIM_SCREENSHOT_DIR") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&shot, Path::new(&keep).join(name)).unwrap();
    }
    read_png(&shot)
}

/// Pixels dark enough to be text or table lines, and pixels of a clear colour (charts).
fn ink_and_colour(px: &[u8]) -> (usize, usize) {
    let dark = px.chunks(3).filter(|p| p.iter().all(|&c| c < 100)).count();
    let coloured = px.chunks(3).filter(|p| p.iter().max().unwrap() - p.iter().min().unwrap() > 80).count();
    (dark, coloured)
}

#[test]
fn the_english_and_chinese_reports_render_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        eprintln!(
            "SKIPPED the_english_and_chinese_reports_render_in_headless_chromium: no chromium (apt-get install -y chromium)"
        );
        return;
    };
    let (_, run, _) = fixtures();
    let dir = copy_of(run);
    burstsim::report::plot_dir(dir.path(), &opts(Lang::En, 1600, 1000)).unwrap();
    burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    let (w, h, en) = screenshot(chromium, &dir.path().join("report.html"), "report-en.png");
    assert_eq!((w, h), (1200, 6000));
    let (dark, coloured) = ink_and_colour(&en);
    assert!(dark > 5_000, "English: text and table lines are visible ({dark} dark pixels)");
    assert!(coloured > 5_000, "English: the charts' colours are visible ({coloured} coloured pixels)");
    let (w, h, zh) = screenshot(chromium, &dir.path().join("report.zh.html"), "report-zh.png");
    assert_eq!((w, h), (1200, 6000));
    let (dark, coloured) = ink_and_colour(&zh);
    assert!(dark > 5_000, "Chinese: text and table lines are visible ({dark} dark pixels)");
    assert!(coloured > 5_000, "Chinese: the charts' colours are visible ({coloured} coloured pixels)");
    assert_ne!(en, zh, "the two languages render differently");
    // The Chinese title at the top is drawn with glyphs (the embedded font), not left
    // blank: the first 120 rows hold text ink.
    let top = &zh[..1200 * 3 * 120];
    assert!(top.chunks(3).filter(|p| p.iter().all(|&c| c < 100)).count() > 300, "the Chinese heading is drawn");
}

#[test]
fn the_chinese_sweep_report_leads_with_the_decisions_in_chinese_and_folds_the_english_analysis() {
    let (_, _, sweep) = fixtures();
    let dir = copy_of(sweep);
    burstsim::report::plot_dir(dir.path(), &opts(Lang::Zh, 1600, 1000)).unwrap();
    let html = std::fs::read_to_string(dir.path().join("report.zh.html")).unwrap();
    let table = html.find("<th>情景点</th>").expect("a decisions table with Chinese headers");
    let folded = html.find("<details><summary>完整分析").expect("the English analysis folded under a Chinese summary");
    assert!(table < folded, "the Chinese table comes first");
    assert!(html.contains("该条件下的最优决策") && html.contains("稳健："), "best and robust rows, in Chinese");
    assert_eq!(html.matches("<pre>Decisions for").count(), 1, "the English analysis once");
    assert!(html.contains("</summary><pre>Decisions for"), "and only inside the folded block");
    let en = std::fs::read_to_string(dir.path().join("report.html"));
    if let Ok(en) = en {
        assert!(!en.contains("<details>"), "the English report shows the analysis as it is");
    }
}
