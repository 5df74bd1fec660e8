//! Every tick label of every chart says the number at its tick (issue 43 item 8: a step
//! of 2.5 was labelled "2", "8", "12"): the default run (with its sensitivity band, for
//! the tornado) and the two shipped sweeps are drawn, made cheap as in
//! `chart_layout.rs`, in English and Chinese, into the chart model
//! (`burstsim::plot::drawn_ticks`), and every numeric label is read back against its
//! position: ticks sit at round numbers, so the label must write its tick exactly (to
//! 10^-9); the labels of one linear axis all have the same decimals (as many as the step
//! needs).

use std::path::Path;

use burstsim::i18n::Lang;
use burstsim::plot::PlotOptions;
use burstsim::plot::theme::Scale;

/// The number a label writes (thousands commas, the minus sign and a `%` removed).
fn read(label: &str) -> Option<f64> {
    label.replace(',', "").replace('−', "-").trim_end_matches('%').parse::<f64>().ok()
}

/// Decimals a label is written with.
fn decimals(label: &str) -> usize {
    label.trim_end_matches('%').split_once('.').map_or(0, |(_, f)| f.len())
}

/// Multiplies the cells of `file` in `dir` under the headers `scaled` (or ending in
/// `_h` or `_cny` when `scaled` is empty) by `k`: the same charts over other spans.
fn rescale(dir: &Path, file: &str, scaled: &[&str], k: f64) {
    let path = dir.join(file);
    let Ok(text) = std::fs::read_to_string(&path) else { return };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let hit = |h: &str| if scaled.is_empty() { h.ends_with("_h") || h.ends_with("_cny") } else { scaled.contains(&h) };
    let mut out = header.join(",") + "\n";
    for line in lines {
        // Only rows without quoted cells are rescaled (labels with commas are quoted).
        let cells: Vec<String> = if line.contains('"') {
            vec![line.to_string()]
        } else {
            line.split(',')
                .zip(&header)
                .map(|(c, h)| match c.parse::<f64>() {
                    Ok(v) if hit(h) => (v * k).to_string(),
                    _ => c.to_string(),
                })
                .collect()
        };
        out += &(cells.join(",") + "\n");
    }
    std::fs::write(&path, out).unwrap();
}

/// The faults of the tick labels of every chart of shipped scenario `name` (and, for a
/// run, of copies whose waits and costs are rescaled, so the axes take other steps), and
/// the charts with numeric labels checked.
fn tick_faults(name: &str) -> (Vec<String>, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let Some(out) = crate::chart_layout::output_of(name, tmp.path()) else { return (Vec::new(), Vec::new()) };
    let mut faults = Vec::new();
    let mut checked = Vec::new();
    let mut folders = vec![(1.0, out.clone())];
    if out.join("summary.csv").exists() {
        for k in [0.23, 0.37, 0.61, 1.9, 2.7, 4.3, 7.3, 13.0] {
            let copy = tmp.path().join(format!("scaled-{k}"));
            std::fs::create_dir_all(&copy).unwrap();
            for e in std::fs::read_dir(&out).unwrap() {
                let p = e.unwrap().path();
                if p.is_file() {
                    std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
                }
            }
            rescale(&copy, "summary.csv", &["mean", "ci95_low", "ci95_high", "std_dev"], k);
            rescale(&copy, "replications.csv", &[], k);
            rescale(&copy, "sensitivity.csv", &["mean_diff", "ci95_low", "ci95_high", "mean"], k);
            folders.push((k, copy));
        }
    }
    for (k, lang, out) in folders.iter().flat_map(|(k, o)| [Lang::En, Lang::Zh].map(|l| (*k, l, o))) {
        let name = format!("{name} ×{k}");
        let opts = PlotOptions { lang, system_fonts: false, ..PlotOptions::default() };
        for (chart, ticks) in burstsim::plot::drawn_ticks(out, &opts).unwrap() {
            let numeric: Vec<_> = ticks.iter().filter(|t| t.scale != Scale::Named).collect();
            if !numeric.is_empty() {
                checked.push(chart.clone());
            }
            for t in &numeric {
                let Some(back) = read(&t.label) else {
                    faults.push(format!("{name} {lang:?} {chart} {}: {:?} is not a number", t.axis, t.label));
                    continue;
                };
                // Ticks sit at round numbers, so a label writes its tick exactly: "2" at
                // 2.5 is within the half unit of its last digit and still half a unit out.
                if (back - t.value).abs() > 1e-9 * t.value.abs().max(1.0) {
                    faults.push(format!(
                        "{name} {lang:?} {chart} {}: tick at {} is labelled {:?}",
                        t.axis, t.value, t.label
                    ));
                }
            }
            // One axis's linear labels share their decimals (2.5 and 5.0, not 2.5 and 5).
            let mut axes: Vec<(usize, &str)> = numeric.iter().map(|t| (t.panel, t.axis)).collect();
            axes.dedup();
            for (panel, axis) in axes {
                let on = |t: &&&burstsim::plot::theme::DrawnTick| t.axis == axis && t.panel == panel;
                let mut ds: Vec<usize> = numeric
                    .iter()
                    .filter(|t| on(t) && t.scale == Scale::Linear && !is_swept(&chart, axis))
                    .map(|t| decimals(&t.label))
                    .collect();
                ds.sort_unstable();
                ds.dedup();
                if ds.len() > 1 {
                    let labels: Vec<&str> = numeric.iter().filter(on).map(|t| t.label.as_str()).collect();
                    faults.push(format!("{name} {lang:?} {chart} {axis}: decimals differ: {labels:?}"));
                }
            }
        }
    }
    (faults, checked)
}

/// Swept values are labelled as written in the scenario (1.15 beside 1.2): only their
/// reading is checked, not a common number of decimals.
fn is_swept(chart: &str, axis: &str) -> bool {
    axis == "x" && (chart.starts_with("sweep_") || chart.contains("policy_map"))
}

#[test]
fn every_tick_label_of_the_default_run_reads_as_its_tick() {
    let (faults, checked) = tick_faults("default");
    assert!(faults.is_empty(), "{} faults:\n{}", faults.len(), faults.join("\n"));
    for chart in ["cost_vs_wait", "sensitivity_tornado", "cost_breakdown", "campus_timeline", "monthly_use"] {
        assert!(checked.iter().any(|c| c == chart), "{chart} has no numeric tick labels checked: {checked:?}");
    }
}

#[test]
fn every_tick_label_of_the_shipped_sweeps_reads_as_its_tick() {
    for name in ["threshold-sweep", "exam-season"] {
        let (faults, checked) = tick_faults(name);
        assert!(faults.is_empty(), "{} faults:\n{}", faults.len(), faults.join("\n"));
        assert!(!checked.is_empty(), "{name}: no chart with numeric tick labels");
    }
}
