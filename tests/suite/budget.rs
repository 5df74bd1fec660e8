//! A year's budget (issue 43 item 5): `summary.csv`'s per-year quantiles and the share of
//! years above mean + 20%, checked against the years of `replications.csv` computed here
//! independently; the table, both reports and the cost chart show them, and name the ±.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

const YEARS: usize = 7;

/// Runs the tiny fixture for [`YEARS`] years into `dir` (charts on, no sensitivity band)
/// and returns the terminal output (`--verbose`, so that the full table is in it).
fn run(dir: &Path) -> String {
    let out = Command::cargo_bin("burstsim")
        .expect("binary built")
        .args([
            "run",
            "tests/fixtures/tiny.toml",
            "--replications",
            &YEARS.to_string(),
            "--no-sensitivity",
            "--verbose",
            "--out",
        ])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of a CSV file as column → cell.
fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records().map(|rec| header.iter().cloned().zip(rec.unwrap().iter().map(str::to_string)).collect()).collect()
}

fn cell(row: &BTreeMap<String, String>, col: &str) -> f64 {
    let text = row.get(col).unwrap_or_else(|| panic!("no column '{col}' in {row:?}"));
    if text.is_empty() { f64::NAN } else { text.parse().unwrap() }
}

/// Hyndman–Fan type 7 (numpy's default), written out again here.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    if lo + 1 < sorted.len() { sorted[lo] * (1.0 - frac) + sorted[lo + 1] * frac } else { sorted[lo] }
}

/// Per (policy, metric): the spread of the years in `replications.csv`: (p50, p90, years
/// above mean × 1.2, years).
fn expected(dir: &Path) -> BTreeMap<(String, String), (f64, f64, usize, usize)> {
    let reps = rows(&dir.join("replications.csv"));
    let metrics: Vec<String> = reps[0]
        .keys()
        .filter(|k| !matches!(k.as_str(), "policy" | "replication" | "seed" | "unstable"))
        .cloned()
        .collect();
    let mut by: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in &reps {
        for m in &metrics {
            let v = cell(r, m);
            let e = by.entry((r["policy"].clone(), m.clone())).or_default();
            if v.is_finite() {
                e.push(v);
            }
        }
    }
    by.into_iter()
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let above = v.iter().filter(|&&x| x > mean * 1.2).count();
            (k, (quantile(&v, 0.5), quantile(&v, 0.9), above, v.len()))
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// 1234567.4 → "1,234,567".
fn grouped(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn summary_year_columns_are_the_quantiles_and_counts_of_the_years_in_replications_csv() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    let want = expected(dir.path());
    let summary = rows(&dir.path().join("summary.csv"));
    let mut checked = 0;
    let mut spread_costs = 0;
    let mut years_above = 0;
    for r in &summary {
        let key = (r["policy"].clone(), r["metric"].clone());
        let Some(&(p50, p90, above, n)) = want.get(&key) else { continue };
        let (got50, got90, share) =
            (cell(r, "year_p50"), cell(r, "year_p90"), cell(r, "year_share_above_mean_plus_20pct"));
        assert!(close(got50, p50), "{key:?}: year_p50 {got50}, the years give {p50}");
        assert!(close(got90, p90), "{key:?}: year_p90 {got90}, the years give {p90}");
        if n > 0 {
            // A count of years over the years: k / N exactly.
            assert!(close(share, above as f64 / n as f64), "{key:?}: share {share}, the years give {above} of {n}");
            assert_eq!(cell(r, "replications") as usize, n, "{key:?}");
        }
        if key.1 == "total_cost_cny" {
            spread_costs += usize::from(p90 > p50);
            years_above += above;
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} summary rows checked");
    // Not vacuous: the bills do spread, and some year is above the buffer.
    assert!(spread_costs >= 5, "{spread_costs} policies with p90 > p50");
    assert!(years_above > 0, "no year above mean + 20% in any policy");
    // The new columns come last, after the older ones (readers by position keep working).
    let header = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .ends_with("std_dev,replications,unstable_replications,year_p50,year_p90,year_share_above_mean_plus_20pct"),
        "{}",
        header.lines().next().unwrap()
    );
}

#[test]
fn the_table_both_reports_and_the_cost_chart_show_a_years_budget_and_name_the_ci() {
    let dir = tempfile::tempdir().unwrap();
    let table = run(dir.path());
    let out = Command::cargo_bin("burstsim").unwrap().args(["plot", "--lang", "zh"]).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = expected(dir.path());
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let zh = std::fs::read_to_string(dir.path().join("report.zh.md")).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("charts/cost_breakdown.svg")).unwrap();
    let svg_zh = std::fs::read_to_string(dir.path().join("charts-zh/cost_breakdown.svg")).unwrap();
    // The ± is named, in the table and in both reports.
    assert!(table.contains(&format!("± is the 95% CI of the mean over {YEARS} simulated years")), "{table}");
    assert!(md.contains(&format!("the 95% confidence interval of the mean over the {YEARS} simulated years")), "{md}");
    assert!(zh.contains(&format!("{YEARS}个模拟年份平均值的95%置信区间")), "{zh}");
    // The budget section says what it is.
    assert!(md.contains("## Budget a year") && md.contains("it is not the 95% CI of the mean"), "{md}");
    assert!(zh.contains("## 一年的预算") && zh.contains("这不是平均值的95%置信区间"), "{zh}");
    let policies: Vec<String> = rows(&dir.path().join("summary.csv"))
        .iter()
        .filter(|r| r["metric"] == "total_cost_cny")
        .map(|r| r["policy"].clone())
        .collect();
    assert!(policies.len() >= 5);
    for p in &policies {
        let (p50, p90, above, n) = want[&(p.clone(), "total_cost_cny".to_string())];
        let (a, b) = (grouped(p50), grouped(p90));
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p.as_str()))
            .unwrap_or_else(|| panic!("no row of {p}:\n{table}"));
        assert!(line.contains(&format!("{a} / {b}")), "{p}: the table's row lacks p50 / p90 {a} / {b}: {line}");
        assert!(table.contains(&format!("{p} {above} of {n}")), "{p}: {above} of {n} years above:\n{table}");
        let row = |text: &str, years: String| {
            text.lines().any(|l| l.starts_with(&format!("| {p} |")) && l.contains(&format!("| {a} | {b} | {years} |")))
        };
        assert!(row(&md, format!("{above} of {n}")), "{p}: report.md lacks | {a} | {b} | {above} of {n} |\n{md}");
        assert!(row(&zh, format!("{above}年（共{n}年）")), "{p}: report.zh.md lacks its budget row\n{zh}");
        assert!(
            svg.contains(&format!("p90 {b}")) && svg_zh.contains(&format!("p90 {b}")),
            "{p}: no p90 {b} on the chart"
        );
    }
}
