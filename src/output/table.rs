//! The terminal table: policies as rows, every figure as `mean ± 95% CI half-width`, then
//! the paired differences against the baseline in words.

use crate::experiment::Summaries;
use crate::experiment::risk::PolicyRisk;
use crate::experiment::summary::{BUDGET_BUFFER, YearSpread};
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::stats::Summary;
use crate::target::Target;

/// Groups thousands: 1234567 → "1,234,567".
fn thousands(v: f64) -> String {
    let neg = v < 0.0 && format!("{:.0}", v.abs()) != "0";
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg { format!("-{out}") } else { out }
}

/// `v` with `decimals` decimals, never "-0.00": a value that rounds to zero has no sign.
fn fixed(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

/// A figure with its CI: `12.3 ± 0.4`, scaled and with the given decimals.
fn pm(s: &Summary, scale: f64, decimals: usize) -> String {
    if s.n == 0 || s.mean.is_nan() {
        return "–".into();
    }
    if s.half_width.is_nan() {
        return fixed(s.mean * scale, decimals);
    }
    format!("{} ± {}", fixed(s.mean * scale, decimals), fixed(s.half_width * scale, decimals))
}

/// A share in percent with its CI. A share lies in [0, 100%]: when the t interval
/// reaches past either end (few replications, a rare event) it is shown clamped as
/// `8.3 (0.0–22.1)` rather than as an impossible `8.3 ± 105.9`.
fn share_pm(s: &Summary, decimals: usize) -> String {
    if s.n == 0 || s.mean.is_nan() || s.half_width.is_nan() {
        return pm(s, 100.0, decimals);
    }
    let (lo, hi) = (s.mean - s.half_width, s.mean + s.half_width);
    if lo >= 0.0 && hi <= 1.0 {
        return pm(s, 100.0, decimals);
    }
    format!(
        "{} ({}–{})",
        fixed(s.mean * 100.0, decimals),
        fixed(lo.max(0.0) * 100.0, decimals),
        fixed(hi.min(1.0) * 100.0, decimals)
    )
}

fn money(s: &Summary) -> String {
    if s.n == 0 || s.mean.is_nan() {
        return "–".into();
    }
    if s.half_width.is_nan() {
        return thousands(s.mean);
    }
    format!("{} ± {}", thousands(s.mean), thousands(s.half_width))
}

fn signed_money(s: &Summary) -> String {
    let sign = if fixed(s.mean, 0).starts_with('-') { "−" } else { "+" };
    let hw = if s.half_width.is_nan() { String::new() } else { format!(" ± {}", thousands(s.half_width)) };
    format!("{sign}¥{}{hw}", thousands(s.mean.abs()))
}

fn signed_hours(s: &Summary) -> String {
    // The sign of what is shown: −0.001 h reads "+0.00", not "−0.00".
    let sign = if fixed(s.mean, 2).starts_with('-') { "−" } else { "+" };
    let hw = if s.half_width.is_nan() { String::new() } else { format!(" ± {:.2}", s.half_width) };
    format!("{sign}{:.2}{hw} h", s.mean.abs())
}

/// The unit of the measured window's totals: "CNY/year" when the window is one calendar
/// year, else "CNY per N days".
pub fn cost_unit(scenario: &Scenario) -> String {
    if scenario.is_one_year() {
        "CNY/year".into()
    } else {
        let days = scenario.window() as f64 / crate::units::DAY as f64;
        format!("CNY per {} days", crate::write::num(days))
    }
}

/// A policy's name in the terminal: its `label` when it has one, else its id.
fn shown(scenario: &Scenario, policy: &str) -> String {
    scenario.names.policies.get(policy, crate::i18n::Lang::En)
}

/// The table's columns after the policy: header and how a policy's cell is made. The
/// group's reneged and balked shares are shown only when the scenario models patience
/// or balking (the capacity model).
fn columns(scenario: &Scenario) -> Vec<(String, Metric, f64, usize)> {
    let mut cols = vec![
        (format!("total cost ({})", cost_unit(scenario)), Metric::TotalCost, 1.0, 0),
        ("mean wait (h)".to_string(), Metric::WaitMean, 1.0, 2),
        ("p95 wait (h, mean of yearly p95)".to_string(), Metric::WaitP95, 1.0, 2),
        ("deadline miss (%)*".to_string(), Metric::DeadlineMissRate, 100.0, 1),
        ("cloud jobs (%)".to_string(), Metric::CloudJobShare, 100.0, 1),
        ("cloud GPU-h (%)".to_string(), Metric::CloudGpuHourShare, 100.0, 1),
    ];
    if Metric::GroupRenegedShare.written(scenario) {
        cols.push(("group reneged (%)".to_string(), Metric::GroupRenegedShare, 100.0, 1));
        cols.push(("group balked (%)".to_string(), Metric::GroupBalkedShare, 100.0, 1));
    }
    cols
}

/// The header of the column beside the total cost: the spread of single years' bills
/// (of single windows when the measured window is not one year).
fn year_header(scenario: &Scenario) -> &'static str {
    if scenario.is_one_year() { "a year: p50 / p90" } else { "a window: p50 / p90" }
}

/// A year's bill as a budget reads it: `87,120 / 93,800` (median / 90th-percentile year).
fn year_range(y: &YearSpread) -> String {
    if y.years == 0 || y.p50.is_nan() {
        return "–".into();
    }
    format!("{} / {}", thousands(y.p50), thousands(y.p90))
}

/// The legend of the cost columns: what ± is, what the year column is, and per policy
/// how many simulated years the guide's 20% buffer would not have covered.
fn budget_note(scenario: &Scenario, s: &Summaries, replications: usize) -> String {
    let above: Vec<String> = scenario
        .policies
        .iter()
        .filter_map(|p| {
            let y = s.get(&p.name, Metric::TotalCost)?.years;
            Some(format!("{} {} of {}", shown(scenario, &p.name), y.above_buffer, y.years))
        })
        .collect();
    format!(
        "± is the 95% CI of the mean over {replications} simulated years, not the range of one year; \
         {}: the median and 90th-percentile year's total bill (to budget a year)\n  \
         years whose bill exceeds the mean + {}% (the usual budget buffer): {}\n",
        year_header(scenario),
        crate::write::num(BUDGET_BUFFER * 100.0),
        above.join(", ")
    )
}

/// What the deadline-miss column covers: the group classes that have a deadline.
pub fn deadline_note(scenario: &Scenario) -> String {
    let classes: Vec<String> = scenario
        .group
        .iter()
        .filter(|c| c.deadline_hours.is_some())
        .map(|c| scenario.names.classes.get(&c.name, crate::i18n::Lang::En))
        .collect();
    if classes.is_empty() {
        "* deadline miss: no job class of the group has a deadline, so it is undefined (–)".to_string()
    } else {
        format!(
            "* deadline miss: jobs of the classes with a deadline only ({}); jobs that gave up or never finished count as missed",
            classes.join(", ")
        )
    }
}

/// The whole table as text.
pub fn render(scenario: &Scenario, s: &Summaries, replications: usize) -> String {
    let cols = columns(scenario);
    let mut header = vec!["policy".to_string()];
    for c in &cols {
        header.push(c.0.clone());
        if c.1 == Metric::TotalCost {
            header.push(year_header(scenario).to_string());
        }
    }
    header.push(String::new());
    let mut rows: Vec<Vec<String>> = Vec::new();
    for p in &scenario.policies {
        let g = |m: Metric| s.get(&p.name, m).map(|r| r.summary).expect("every policy is summarised");
        let unstable = s.get(&p.name, Metric::TotalCost).map_or(0, |r| r.unstable_replications);
        let mut row = vec![shown(scenario, &p.name)];
        for &(_, m, scale, decimals) in &cols {
            if m == Metric::TotalCost {
                row.push(money(&g(m)));
                row.push(s.get(&p.name, m).map_or("–".into(), |r| year_range(&r.years)));
                continue;
            }
            row.push(match m {
                // Shares: the CI is clamped to [0, 100%] (issue 27 item 13).
                _ if scale == 100.0 => share_pm(&g(m), decimals),
                _ => pm(&g(m), scale, decimals),
            });
        }
        row.push(if unstable > 0 { format!("UNSTABLE in {unstable}/{replications}") } else { String::new() });
        rows.push(row);
    }
    let mut out = String::new();
    out.push_str(&format!(
        "{}: {replications} replications (simulated years) per policy; mean ± 95% CI of the mean over {replications} years\n",
        scenario.name
    ));
    let model = crate::scenario::assumptions::Assumptions::of(scenario);
    out.push_str(&format!(
        "{}\n{}; {}\n",
        model.model_line(false),
        model.priority_line(false),
        model.patience_line(false)
    ));
    if let Some(line) = crate::scenario::campus_model::header_line(scenario) {
        out.push_str(&format!("{line}\n"));
    }
    out.push_str(&format!("{}\n\n", crate::workload::load::offered_load(scenario)));
    out.push_str(&layout(&header, &rows));
    out.push_str(&budget_note(scenario, s, replications));
    out.push_str(&deadline_note(scenario));
    out.push('\n');
    if Metric::RenegedShare.written(scenario) {
        let base = &scenario.policies[scenario.baseline].name;
        let g = |m: Metric| s.get(base, m).map(|r| r.summary).expect("every policy is summarised");
        out.push_str(&format!(
            "  group reneged/balked: the group's own jobs; campus-wide (every account) under '{}': reneged {} %, balked {} %\n",
            shown(scenario, base),
            share_pm(&g(Metric::RenegedShare), 1),
            share_pm(&g(Metric::BalkedShare), 1),
        ));
    }
    let base = &scenario.policies[scenario.baseline].name;
    let mut paired = String::new();
    for p in &scenario.policies {
        if &p.name == base {
            continue;
        }
        let d = |m: Metric| s.paired(&p.name, m).map(|r| r.summary).expect("every policy is paired");
        paired.push_str(&format!(
            "  {}: cost {} {}, mean wait {}, p95 wait {}\n",
            shown(scenario, &p.name),
            signed_money(&d(Metric::TotalCost)),
            cost_unit(scenario).trim_start_matches("CNY").replace('/', "per ").trim(),
            signed_hours(&d(Metric::WaitMean)),
            signed_hours(&d(Metric::WaitP95)),
        ));
    }
    if !paired.is_empty() {
        let base = shown(scenario, base);
        out.push_str(&format!(
            "\nPaired differences against '{base}' (same simulated years; ± is the 95% CI of the mean difference):\n{paired}"
        ));
    }
    for note in rentals_past_the_window(scenario) {
        out.push_str(&format!("\nNote: {note}\n"));
    }
    out
}

/// Rentals that run past the measured window: their rent is paid in full, so the total
/// cost of a policy renting them covers more than the window its header names (a 400-day
/// rental under "CNY per 30 days").
pub fn rentals_past_the_window(scenario: &Scenario) -> Vec<String> {
    let window_days = scenario.window() as f64 / crate::units::DAY as f64;
    let days = |t: crate::units::SimTime| crate::write::num(t as f64 / crate::units::DAY as f64);
    let mut notes = Vec::new();
    for (o, offer) in scenario.offers.iter().enumerate() {
        let on_demand = scenario.policies.iter().any(|p| crate::policy::rents_when_needed(p, scenario, o));
        let longest = offer.rentals.as_ref().map_or(0, |r| {
            r.iter()
                .filter(|&&(a, b)| a < scenario.horizon && b > scenario.horizon)
                .map(|&(a, b)| b - a)
                .max()
                .unwrap_or(0)
        });
        let what = if on_demand && offer.min_term > scenario.window() {
            format!("rents '{}' for at least {} days (min_term_days)", offer.name, days(offer.min_term))
        } else if longest > 0 {
            format!("rents '{}' for {} days, past the window's end (rent_periods)", offer.name, days(longest))
        } else {
            continue;
        };
        notes.push(format!(
            "a policy that {what}; a rental started in the {}-day window is paid in full, so that policy's total \
             cost covers more than the window",
            crate::write::num(window_days)
        ));
    }
    notes
}

/// Lays out rows of cells: the first column left-aligned, the others right-aligned.
fn layout(header: &[String], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut out = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = " ".repeat(w - c.chars().count());
            if i == 0 {
                out.push_str(c);
                out.push_str(&pad);
            } else {
                out.push_str("  ");
                out.push_str(&pad);
                out.push_str(c);
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    out.push_str(&line(&widths.iter().map(|&w| "─".repeat(w)).collect::<Vec<_>>()));
    for r in rows {
        out.push_str(&line(r));
    }
    out
}

/// The years each policy missed the targets: `risk` block of the terminal output.
pub fn risk_table(targets: &[Target], risks: &[PolicyRisk]) -> String {
    let names: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    let years = risks.first().map_or(0, |r| r.count.years);
    let mut out = format!(
        "\nYears that miss {} (each replication is one simulated year; exact 95% CI of the chance of a miss):\n",
        names.join(" or ")
    );
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    let width = risks.iter().map(|r| r.policy.chars().count()).max().unwrap_or(0).max(6);
    for r in risks {
        let (lo, hi) = r.count.ci95();
        let undefined = if r.count.undefined > 0 {
            format!(" ({} with a target metric undefined)", r.count.undefined)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "  {:<width$}  {:>4} of {years} years  {:>6}  [{} – {}]; at most {} at 95% confidence{undefined}\n",
            r.policy,
            r.count.missed,
            pct(r.count.share()),
            pct(lo),
            pct(hi),
            pct(r.count.upper(0.95)),
        ));
    }
    out
}

/// The per-class table (`run --by-class`): for each policy and each group class (then
/// all classes together), jobs per window, wait mean and quantiles, the share waiting
/// longer than each reporting threshold, deadline misses and the cloud share.
pub fn render_by_class(scenario: &Scenario, s: &Summaries) -> String {
    let thresholds = &scenario.class_metrics.thresholds_h;
    let mut header: Vec<String> = ["policy / class", "jobs", "mean wait (h)", "p50 (h)", "p95 (h, mean of yearly p95)"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    header.extend(thresholds.iter().map(|&t| format!("wait > {} h (%)", crate::write::num(t))));
    header.extend(["deadline miss (%)".to_string(), "cloud (%)".to_string()]);
    let mut rows = Vec::new();
    for p in &scenario.policies {
        rows.push(
            std::iter::once(shown(scenario, &p.name))
                .chain(std::iter::repeat_n(String::new(), header.len() - 1))
                .collect(),
        );
        for class in scenario.class_names() {
            let g = |m: &str| s.class(&p.name, &class, m).map(|r| r.summary);
            let cell = |m: &str, scale: f64, d: usize| {
                g(m).map_or("–".into(), |x| if scale == 100.0 { share_pm(&x, d) } else { pm(&x, scale, d) })
            };
            let mut row = vec![
                format!("  {}", scenario.names.classes.get(&class, crate::i18n::Lang::En)),
                g("jobs_completed").map_or("–".into(), |x| format!("{:.0}", x.mean)),
                cell("wait_mean_h", 1.0, 2),
                cell("wait_p50_h", 1.0, 2),
                cell("wait_p95_h", 1.0, 2),
            ];
            for &t in thresholds {
                row.push(cell(&crate::scenario::class_metrics::ClassMetricSet::threshold_name(t), 100.0, 1));
            }
            row.push(cell("deadline_miss_rate", 100.0, 1));
            row.push(cell("cloud_job_share", 100.0, 1));
            rows.push(row);
        }
    }
    let n = s.rows.first().map_or(0, |r| r.summary.n);
    format!(
        "By job class (mean ± 95% CI of the mean over {n} simulated years; jobs per measured window):\n{}",
        layout(&header, &rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 27, item 13: a 400-day rental under a "CNY per 30 days" header, unexplained.
    #[test]
    fn a_rental_longer_than_the_window_is_noted() {
        let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
        let mut short = text.replacen("horizon_days = 60", "horizon_days = 30", 1);
        short = short.replacen(
            "price_per_gpu_month_cny = 2500\n",
            "price_per_gpu_month_cny = 2500\nmin_term_days = 400\n",
            1,
        );
        short = short.replacen(
            "main_classes = [\"big\"]\noffers = [\"big-hourly\"]\n",
            "main_classes = [\"big\"]\noffers = [\"big-hourly\", \"big-monthly\"]\nrent_when_needed = true\n",
            1,
        );
        let scn = Scenario::from_toml_str(&short, "t.toml").unwrap();
        let notes = rentals_past_the_window(&scn);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("'big-monthly' for at least 400 days") && notes[0].contains("30-day window"),
            "{notes:?}"
        );
        let scn = Scenario::from_toml_str(&text, "t.toml").unwrap();
        assert!(rentals_past_the_window(&scn).is_empty(), "the fixture rents for the whole window");
    }

    /// Issue 27, item 13: "-0.00" and "8.3 ± 105.9" were printed.
    #[test]
    fn no_negative_zero_and_shares_stay_within_0_and_100_percent() {
        let s = |mean: f64, half_width: f64| Summary { n: 3, mean, std_dev: 0.0, half_width };
        assert_eq!(pm(&s(-0.0001, 0.0), 1.0, 2), "0.00 ± 0.00");
        assert_eq!(pm(&s(-0.0, f64::NAN), 1.0, 2), "0.00");
        assert_eq!(signed_hours(&s(-0.001, f64::NAN)), "+0.00 h");
        assert_eq!(signed_money(&s(-0.4, f64::NAN)), "+¥0");
        assert_eq!(thousands(-0.3), "0");
        assert_eq!(share_pm(&s(0.083, 1.059), 1), "8.3 (0.0–100.0)");
        assert_eq!(share_pm(&s(0.083, 0.02), 1), "8.3 ± 2.0");
        assert_eq!(share_pm(&s(0.99, 0.05), 1), "99.0 (94.0–100.0)");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(-999.0), "-999");
        assert_eq!(thousands(0.0), "0");
    }
}
