//! What a calibration writes: the calibrated scenario (the original text with the fitted
//! values replaced in place, comments kept, and a comment block on top saying what was
//! fitted to what), `calibration.csv` (one row per fitted input),
//! `calibration_residuals.csv` (one row per observation) and `calibration_points.csv`
//! (every evaluated point). Pure functions to text; the caller writes the files.

use std::fmt::Write as _;

use toml::de::{DeTable, DeValue};

use super::Calibration;
use crate::stats::summarize;

/// The byte range of the value at a dotted path (arrays of tables by `name` or index,
/// as in sweep paths), if the text holds it.
pub fn value_span(text: &str, path: &str) -> Option<std::ops::Range<usize>> {
    let doc = DeTable::parse(text).ok()?;
    let steps: Vec<&str> = path.split('.').collect();
    let mut table = doc.get_ref();
    let mut i = 0;
    loop {
        let (_, value) = table.get_key_value(steps[i])?;
        i += 1;
        let value = match value.get_ref() {
            DeValue::Array(arr) => {
                let name = *steps.get(i)?;
                i += 1;
                let by_name = arr.iter().find(|e| match e.get_ref() {
                    DeValue::Table(t) => t.get("name").is_some_and(|n| n.get_ref().as_str() == Some(name)),
                    _ => false,
                });
                by_name.or_else(|| name.parse::<usize>().ok().and_then(|k| arr.get(k)))?
            }
            _ => value,
        };
        if i == steps.len() {
            return Some(value.span());
        }
        match value.get_ref() {
            DeValue::Table(t) => table = t,
            _ => return None,
        }
    }
}

/// The calibrated scenario: `text` with each fitted key's value replaced by the fitted
/// value, and a comment block on top. Keys not written in the text are refused earlier
/// ([`super::spec::check`]), so every key is found.
pub fn calibrated_toml(text: &str, cal: &Calibration, source: &str) -> String {
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    // An input the observations do not identify keeps the file's text as written.
    for f in cal.fitted.iter().filter(|f| f.identified) {
        let (_, written) = super::round_value(f.value);
        for key in &f.input.keys {
            if let Some(span) = value_span(text, key) {
                edits.push((span, written.clone()));
            }
        }
    }
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut body = text.to_string();
    for (span, v) in edits {
        body.replace_range(span, &v);
    }
    let mut head = String::new();
    let _ = writeln!(head, "{HEADER_START} from {source}: the inputs below were fitted by");
    let _ = writeln!(
        head,
        "# simulation ({} replications per point, policy {}, {} points) to the observations below;",
        cal.spec.replications,
        cal.policy,
        cal.points.len()
    );
    let _ = writeln!(
        head,
        "# everything else is the original file. Intervals: {:.0}% profile (docs/CALIBRATION.md).",
        100.0 * cal.spec.confidence
    );
    if cal.intervals_cut {
        let _ = writeln!(
            head,
            "# INTERVALS CUT BY THE BUDGET: some interval end was not found to 1/16 of its range; the\n\
             # intervals may be narrower than the observations allow (calibrate again with a larger budget)."
        );
    }
    let _ = writeln!(head, "#");
    for f in &cal.fitted {
        if !f.identified {
            let _ = writeln!(
                head,
                "#   {} = {} (kept: not identified by these observations, every value of the range {} to {} fits them)",
                f.input.name, f.input.current, f.input.low, f.input.high,
            );
            continue;
        }
        let bound = match f.at_bound {
            Some(side) => format!("  AT THE RANGE'S {} BOUND: widen the range", side.to_uppercase()),
            None => String::new(),
        };
        let _ = writeln!(
            head,
            "#   {} = {} (was {}; interval {}{} to {}{}; range {} to {}){bound}",
            f.input.name,
            super::round_value(f.value).1,
            f.input.current,
            if f.low_open { "≤" } else { "" },
            f.low,
            f.high,
            if f.high_open { "+" } else { "" },
            f.input.low,
            f.input.high,
        );
    }
    let _ = writeln!(head, "#");
    for r in &cal.residuals {
        let o = &r.observation;
        let sim = match &r.simulated {
            Some(s) => {
                format!("simulated {:.2} h (95% CI {:.2} to {:.2})", s.summary.mean, s.summary.low(), s.summary.high())
            }
            None => "not simulated (no job in it)".into(),
        };
        let _ = writeln!(
            head,
            "#   observed {}: {} h ± {} h, {sim}{}",
            o.label,
            o.value,
            o.tolerance,
            if r.met { "" } else { "  NOT MET" }
        );
        let _ = writeln!(head, "#     {}", fresh_words(cal, r));
    }
    if cal.fresh_checked {
        let _ = writeln!(
            head,
            "#   (simulated: on the calibration's own years, replications from 2^32, which no run reaches;\n\
             #   fresh years: this file on replications 0 to {}, the years `burstsim run` reports, unseen by the fit)",
            cal.spec.replications - 1
        );
    }
    let body = without_calibration_header(&body);
    // What the header vouches for: a copy of this file edited later is warned about.
    if let Ok(raw) = toml::from_str::<crate::scenario::raw::RawScenario>(body) {
        let _ = writeln!(
            head,
            "#\n{}{}",
            crate::scenario::fingerprint::HEADER_LINE,
            crate::scenario::fingerprint::of(&raw)
        );
    }
    head.push('\n');
    head + body
}

/// One observation's value on fresh years in words, for the header: the calibrated
/// scenario on replications `0..n` (the years `run` reports), which the fit never saw.
fn fresh_words(cal: &Calibration, r: &super::Residual) -> String {
    if !cal.fresh_checked {
        return "fresh years: not simulated (interrupted)".into();
    }
    match &r.fresh {
        Some(s) => format!(
            "fresh years (0 to {}): {:.2} h (95% CI {:.2} to {:.2}), {:+.1} scales from the observation",
            cal.spec.replications - 1,
            s.summary.mean,
            s.summary.low(),
            s.summary.high(),
            s.z(r.observation.value)
        ),
        None => "fresh years: fewer than two years with a job in it".into(),
    }
}

/// What a reader must know about each fitted input beyond its interval, one line each:
/// a value at the range's bound (the observations want one beyond it), an input the
/// observations do not identify (the file's value kept), an interval open on one side.
pub fn notes(cal: &Calibration) -> Vec<String> {
    let mut out = Vec::new();
    for f in &cal.fitted {
        if !f.identified {
            out.push(format!(
                "note: {} is not identified by these observations (every value of its range {} to {} fits \
                 them); the calibrated file keeps its value {}. Add an observation it moves to fit it.",
                f.input.name, f.input.low, f.input.high, f.input.current
            ));
        } else if let Some(side) = f.at_bound {
            out.push(format!(
                "warning: {} = {} is at the range's {side} bound: the observations want a value beyond it; \
                 widen the range (low/high in [[calibration.fit]]) and calibrate again",
                f.input.name, f.value
            ));
        } else if f.low_open || f.high_open {
            out.push(format!(
                "note: the interval of {} reaches the range's {}: the observations do not bound it there",
                f.input.name,
                if f.low_open { "low end" } else { "high end" }
            ));
        }
    }
    out
}

/// The first line of the comment block [`calibrated_toml`] writes.
const HEADER_START: &str = "# Calibrated by `burstsim calibrate`";

/// `text` without the comment block of an earlier calibration on top (up to and with
/// the first empty line), so calibrating a calibrated file does not stack the blocks.
fn without_calibration_header(text: &str) -> &str {
    if !text.starts_with(HEADER_START) {
        return text;
    }
    text.find("\n\n").map_or(text, |i| &text[i + 2..])
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// `calibration.csv`: one row per fitted input.
pub fn fitted_csv(cal: &Calibration) -> String {
    let mut out = String::from(
        "input,keys,range_low,range_high,original,fitted,interval_low,interval_high,interval_low_open,interval_high_open,at_bound,identified,confidence\n",
    );
    for f in &cal.fitted {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&f.input.name),
            csv_field(&f.input.keys.join(";")),
            f.input.low,
            f.input.high,
            f.input.current,
            f.value,
            f.low,
            f.high,
            f.low_open,
            f.high_open,
            f.at_bound.unwrap_or(""),
            f.identified,
            cal.spec.confidence
        );
    }
    out
}

/// `calibration_residuals.csv`: one row per observation at the best point. `residual` is
/// in hours; `residual_log`, `scale_log` and `z` are on the scale the objective uses,
/// ln(hours + tolerance) ([`super::observe::Simulated`]). These are on the calibration's
/// own years; the `fresh_` columns are the calibrated scenario on fresh years
/// (replications `0..n`, those `run` reports; empty when not simulated).
pub fn residuals_csv(cal: &Calibration) -> String {
    let mut out = String::from(
        "observation,statistic,unit,observed,tolerance,simulated_mean,ci95_low,ci95_high,year_std_dev,replications,residual,residual_log,scale_log,z,met,\
         fresh_mean,fresh_ci95_low,fresh_ci95_high,fresh_year_std_dev,fresh_replications,fresh_z\n",
    );
    for r in &cal.residuals {
        let o = &r.observation;
        let (mean, lo, hi, sd, n, res, gap, scale, z) = match &r.simulated {
            Some(s) => (
                s.summary.mean,
                s.summary.low(),
                s.summary.high(),
                s.summary.std_dev,
                s.summary.n,
                s.residual(o.value),
                s.gap(o.value),
                s.scale,
                s.z(o.value),
            ),
            None => {
                let nan = f64::NAN;
                (nan, nan, nan, nan, summarize(&[]).n, nan, nan, nan, nan)
            }
        };
        let fresh = match &r.fresh {
            Some(f) => format!(
                "{},{},{},{},{},{}",
                f.summary.mean,
                f.summary.low(),
                f.summary.high(),
                f.summary.std_dev,
                f.summary.n,
                f.z(o.value)
            ),
            None => ",,,,,".into(),
        };
        let _ = writeln!(
            out,
            "{},{},h,{},{},{mean},{lo},{hi},{sd},{n},{res},{gap},{scale},{z},{},{fresh}",
            csv_field(&o.label),
            o.statistic.name(),
            o.value,
            o.tolerance,
            r.met
        );
    }
    out
}

/// `calibration_points.csv`: every evaluated point in order, its inputs, then per
/// observation the simulated mean over the years and the years' standard deviation
/// (empty where fewer than two years had a job in it), then the objective.
pub fn points_csv(cal: &Calibration) -> String {
    let mut out = String::from("point,");
    for f in &cal.fitted {
        out.push_str(&csv_field(&f.input.name));
        out.push(',');
    }
    for r in &cal.residuals {
        let label = &r.observation.label;
        let _ =
            write!(out, "{},{},", csv_field(&format!("{label}: mean")), csv_field(&format!("{label}: year_std_dev")));
    }
    out.push_str("objective\n");
    for (i, p) in cal.points.iter().enumerate() {
        let _ = write!(out, "{i},");
        for v in &p.values {
            let _ = write!(out, "{v},");
        }
        for s in &p.simulated {
            match s {
                Some(s) => {
                    let _ = write!(out, "{},{},", s.summary.mean, s.summary.std_dev);
                }
                None => out.push_str(",,"),
            }
        }
        let _ = writeln!(out, "{}", p.objective);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_calibrations_comment_block_is_replaced_not_stacked() {
        let calibrated = "# Calibrated by `burstsim calibrate` from a.toml: …\n#   x = 1\n\n# The file's own comment.\nname = \"a\"\n";
        assert_eq!(without_calibration_header(calibrated), "# The file's own comment.\nname = \"a\"\n");
        let plain = "# The file's own comment.\n\nname = \"a\"\n";
        assert_eq!(without_calibration_header(plain), plain);
    }

    #[test]
    fn spans_of_values_in_tables_arrays_and_inline_tables() {
        let text = "[background]\noffered_load = 0.7 # the other groups\n[[background.seasons]]\nname = \"a\"\nmultiplier = 1.3\n[[background.seasons]]\nname = \"b\"\nmultiplier = 1.45\n[[campus.accounts]]\nname = \"g\"\npatience_hours = { kind = \"lognormal\", mean = 48, cv = 1 }\n";
        let at = |p: &str| value_span(text, p).map(|s| &text[s]);
        assert_eq!(at("background.offered_load"), Some("0.7"));
        assert_eq!(at("background.seasons.b.multiplier"), Some("1.45"));
        assert_eq!(at("background.seasons.0.multiplier"), Some("1.3"));
        assert_eq!(at("campus.accounts.g.patience_hours.mean"), Some("48"));
        assert_eq!(at("background.seasons.c.multiplier"), None);
        assert_eq!(at("campus.gpus"), None);
    }
}
