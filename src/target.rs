//! Targets: requirements on a metric such as `wait_p95_h<=2`, given with `--target`.
//!
//! A target can be read two ways, and burstsim keeps them apart:
//! - about the **mean year**: the mean of the metric over simulated years meets the bound
//!   (judged by the confidence interval of the mean, [`crate::sweep::recommend`]);
//! - about **each year**: one simulated year (one replication) meets the bound or misses
//!   it ([`Target::missed_by`]), and the share of years that miss is a risk
//!   ([`crate::experiment::risk`]).
//!
//! # Units
//! A bound is written in the unit the tables show, and a rate or share (shown in
//! percent, [`Metric::shown_in_percent`]) must carry its `%` sign:
//! `deadline_miss_rate<=5%`, `cloud_job_share>=10%`. A bare number on such a metric is
//! refused, because `5` (percent, as the table shows) and `0.05` (a fraction, as the
//! CSV stores) would both be plausible readings. Other metrics take a plain number in
//! their unit (`wait_p95_h<=2`, `total_cost_cny<=120000`); a `%` there is refused. The
//! bound is kept as the stored value (a fraction for rates).
//!
//! # Class targets
//! `CLASS:METRIC<=VALUE` (e.g. `main-training:wait_p95_h<=24`) bounds a metric of one job
//! class of the group (`classes.csv`) instead of the whole group. The class metrics that
//! can be bounded are those in [`CLASS_METRICS`].

use crate::i18n::Lang;
use crate::metric::Metric;

/// The metrics a class target can bound (they are class metrics as well as headline ones).
pub const CLASS_METRICS: [Metric; 8] = [
    Metric::WaitMean,
    Metric::WaitP50,
    Metric::WaitP95,
    Metric::WaitP99,
    Metric::TurnaroundMean,
    Metric::DeadlineMissRate,
    Metric::CloudJobShare,
    Metric::JobsCompleted,
];

/// `<=` or `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// The metric must be at most the value.
    AtMost,
    /// The metric must be at least the value.
    AtLeast,
}

/// A requirement such as `wait_p95_h<=24` or `main-training:wait_p95_h<=24`.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The job class whose metric is bounded (`None`: the whole group's headline metric).
    pub class: Option<String>,
    /// The metric.
    pub metric: Metric,
    /// Direction.
    pub cmp: Cmp,
    /// Bound.
    pub value: f64,
}

impl Target {
    /// The target as a reader's text in `lang`: as written (`main-training:wait_p95_h ≤
    /// 48`, [`Display`](std::fmt::Display)) in English, in words in Chinese ("主训练的第95百分位等待 ≤
    /// 48 小时", the class named by `class`), so Chinese text carries no metric or class
    /// ids; a metric without a Chinese word keeps its id.
    pub fn in_words(&self, lang: Lang, class: &dyn Fn(&str) -> String) -> String {
        if lang != Lang::Zh {
            return self.to_string();
        }
        let word = match self.metric {
            Metric::WaitMean => "平均等待",
            Metric::WaitP50 => "等待中位数",
            Metric::WaitP95 => "第95百分位等待",
            Metric::WaitP99 => "第99百分位等待",
            Metric::TurnaroundMean => "平均周转时间",
            Metric::DeadlineMissRate => "截止期错过率",
            Metric::CloudJobShare => "云端作业占比",
            Metric::JobsCompleted => "完成作业数",
            Metric::TotalCost => "年度总成本",
            _ => return self.to_string(),
        };
        let whose = match &self.class {
            Some(c) => format!("{}的", class(c)),
            None => "本组全部作业的".to_string(),
        };
        let op = if self.cmp == Cmp::AtMost { "≤" } else { "≥" };
        let unit = match self.metric.unit() {
            "h" => " 小时",
            "CNY" => " 元",
            "jobs" => " 个",
            _ => "",
        };
        format!("{whose}{word} {op} {}{unit}", bound_text(self.metric, self.value))
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.cmp == Cmp::AtMost { "≤" } else { "≥" };
        write!(f, "{} {op} {}", self.name(), bound_text(self.metric, self.value))
    }
}

impl Target {
    /// `wait_p95_h`, or `main-training:wait_p95_h` for a class target.
    pub fn name(&self) -> String {
        match &self.class {
            Some(c) => format!("{c}:{}", self.metric.name()),
            None => self.metric.name().to_string(),
        }
    }

    /// The target as it is written on the command line (`parse_target` reads it back).
    pub fn spec(&self) -> String {
        let op = if self.cmp == Cmp::AtMost { "<=" } else { ">=" };
        format!("{}{op}{}", self.name(), bound_text(self.metric, self.value))
    }
}

/// A bound as the user writes it: `5%` for a rate stored as 0.05, else the number.
pub fn bound_text(metric: Metric, value: f64) -> String {
    if metric.shown_in_percent() {
        // Round away the binary noise of ×100 (0.07 × 100 = 7.000000000000001).
        format!("{}%", (value * 100.0 * 1e9).round() / 1e9)
    } else {
        format!("{value}")
    }
}

/// Parses `metric<=value` or `metric>=value` (`<`/`>` mean the same here).
///
/// # Errors
/// A message naming the valid metrics or the form expected.
pub fn parse_target(text: &str) -> Result<Target, String> {
    let (name, cmp, value) = if let Some((a, b)) = text.split_once("<=").or_else(|| text.split_once('<')) {
        (a, Cmp::AtMost, b)
    } else if let Some((a, b)) = text.split_once(">=").or_else(|| text.split_once('>')) {
        (a, Cmp::AtLeast, b)
    } else {
        return Err(format!(
            "--target '{text}' is not of the form METRIC<=VALUE or METRIC>=VALUE, e.g. 'wait_p95_h<=24'"
        ));
    };
    let (class, name) = match name.rsplit_once(':') {
        Some((c, m)) if !c.trim().is_empty() => (Some(c.trim().to_string()), m),
        Some(_) => {
            return Err(format!(
                "--target '{text}': give the class before the ':', e.g. 'main-training:wait_p95_h<=24'"
            ));
        }
        None => (None, name),
    };
    let metric = Metric::from_name(name.trim()).ok_or_else(|| {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        format!("--target '{text}': no metric is named '{}'; the metrics are: {}", name.trim(), names.join(", "))
    })?;
    if class.is_some() && !CLASS_METRICS.contains(&metric) {
        let names: Vec<&str> = CLASS_METRICS.iter().map(|m| m.name()).collect();
        return Err(format!(
            "--target '{text}': a class target bounds one of {}, not {}",
            names.join(", "),
            metric.name()
        ));
    }
    let op = if cmp == Cmp::AtMost { "<=" } else { ">=" };
    let value = parse_bound(text, metric, op, value.trim())?;
    Ok(Target { class, metric, cmp, value })
}

/// The bound of `text` (for messages) on `metric`: see the module doc for the units.
fn parse_bound(text: &str, metric: Metric, op: &str, bound: &str) -> Result<f64, String> {
    let (number, percent) = match bound.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (bound, false),
    };
    let v: f64 = number.parse().map_err(|_| format!("--target '{text}': '{bound}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("--target '{text}': the bound must be a finite number"));
    }
    let name = metric.name();
    // Every metric is a count, a duration, an amount or a share: never negative, and a
    // share never above 100%. A bound outside that is always or never met.
    if v < 0.0 {
        return Err(format!(
            "--target '{text}': {name} is never negative, so a bound of {bound} is {}; give 0 or more",
            if op == "<=" { "never met" } else { "always met" }
        ));
    }
    if percent && v > 100.0 {
        return Err(format!(
            "--target '{text}': {name} is a share between 0% and 100%, so a bound of {bound} is {}; give 0% to 100%",
            if op == "<=" { "always met" } else { "never met" }
        ));
    }
    match (metric.shown_in_percent(), percent) {
        (true, true) => Ok(v / 100.0),
        (true, false) => {
            let hint = if v.abs() <= 1.0 && v != 0.0 {
                format!(
                    "'{name}{op}{v}%' for {v} percent, or '{name}{op}{}' if {v} was a fraction",
                    bound_text(metric, v)
                )
            } else {
                format!("'{name}{op}{v}%' for {v} percent")
            };
            Err(format!(
                "--target '{text}': {name} is a rate shown in percent, so its bound needs a % sign: write {hint}"
            ))
        }
        (false, true) => Err(format!(
            "--target '{text}': {name} is in {} and is not shown in percent; give a plain number, e.g. '{name}{op}{v}'",
            metric.unit()
        )),
        (false, false) => Ok(v),
    }
}

impl Target {
    /// A value of the target's metric as the tables show it: `4.20%` for a rate, else
    /// four decimals (for messages comparing a mean with the bound).
    pub fn show(&self, value: f64) -> String {
        if self.metric.shown_in_percent() { format!("{:.2}%", value * 100.0) } else { format!("{value:.4}") }
    }

    /// Whether one year's value misses the target: `Some(true)` when it is on the wrong
    /// side of the bound, `None` when the value is undefined (NaN) that year.
    pub fn missed_by(&self, value: f64) -> Option<bool> {
        if value.is_nan() {
            return None;
        }
        Some(match self.cmp {
            Cmp::AtMost => value > self.value,
            Cmp::AtLeast => value < self.value,
        })
    }
}

/// Checks that every class target names a class of the scenario (`classes`, the group's
/// class names).
///
/// # Errors
/// A message naming the unknown class and the classes there are.
pub fn check_classes(targets: &[Target], classes: &[String]) -> Result<(), String> {
    for t in targets {
        if let Some(c) = &t.class
            && !classes.contains(c)
        {
            return Err(format!(
                "--target '{}': the scenario has no job class named '{c}'; its classes are: {}",
                t.spec(),
                classes.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_name_valid_metrics_on_error() {
        let t = parse_target("wait_p95_h<=24").unwrap();
        assert_eq!((t.metric, t.cmp, t.value), (Metric::WaitP95, Cmp::AtMost, 24.0));
        assert_eq!(parse_target("cloud_job_share>=10%").unwrap().cmp, Cmp::AtLeast);
        let e = parse_target("wait_p96<=1").unwrap_err();
        assert!(e.contains("wait_p95_h") && e.contains("no metric"), "{e}");
        assert!(parse_target("wait_p95_h=24").is_err());
    }

    /// Issue 27, item 12 (seen accepted before the check).
    #[test]
    fn bounds_that_are_always_or_never_met_are_refused() {
        let e = parse_target("wait_p95_h<=-5").unwrap_err();
        assert!(e.contains("never negative") && e.contains("never met"), "{e}");
        assert!(parse_target("total_cost_cny>=-1").unwrap_err().contains("always met"));
        let e = parse_target("deadline_miss_rate<=150%").unwrap_err();
        assert!(e.contains("between 0% and 100%") && e.contains("always met"), "{e}");
        assert!(parse_target("cloud_job_share>=100.5%").unwrap_err().contains("never met"));
        for ok in ["wait_p95_h<=0", "deadline_miss_rate<=100%", "deadline_miss_rate<=0%", "campus_offered_load<=1.5"] {
            assert!(parse_target(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn class_targets_name_the_class_and_read_back() {
        let t = parse_target("main-training:wait_p95_h<=24").unwrap();
        assert_eq!((t.class.as_deref(), t.metric, t.value), (Some("main-training"), Metric::WaitP95, 24.0));
        assert_eq!(t.to_string(), "main-training:wait_p95_h ≤ 24");
        assert_eq!(parse_target(&t.spec()).unwrap(), t);
        let d = parse_target("main-training:deadline_miss_rate<=5%").unwrap();
        assert_eq!(parse_target(&d.spec()).unwrap(), d);
        assert_eq!(parse_target("wait_p95_h<=2").unwrap().class, None);
        let e = parse_target("main-training:total_cost_cny<=5").unwrap_err();
        assert!(e.contains("a class target bounds one of"), "{e}");
        assert!(parse_target(":wait_p95_h<=2").is_err());
    }

    #[test]
    fn a_year_on_the_bound_meets_it_and_an_undefined_year_is_neither() {
        let t = parse_target("wait_p95_h<=2").unwrap();
        assert_eq!(t.missed_by(2.0), Some(false));
        assert_eq!(t.missed_by(2.0001), Some(true));
        assert_eq!(t.missed_by(f64::NAN), None);
        let t = parse_target("cloud_job_share>=10%").unwrap();
        assert_eq!((t.missed_by(0.1), t.missed_by(0.05)), (Some(false), Some(true)));
    }

    #[test]
    fn rates_take_percent_with_the_sign_and_refuse_a_bare_number() {
        let t = parse_target("deadline_miss_rate<=5%").unwrap();
        assert!((t.value - 0.05).abs() < 1e-15);
        assert_eq!(t.to_string(), "deadline_miss_rate ≤ 5%");
        assert_eq!(parse_target("deadline_miss_rate <= 7 %").unwrap().to_string(), "deadline_miss_rate ≤ 7%");
        let e = parse_target("deadline_miss_rate<=5").unwrap_err();
        assert!(e.contains("shown in percent") && e.contains("'deadline_miss_rate<=5%'"), "{e}");
        let e = parse_target("deadline_miss_rate<=0.05").unwrap_err();
        assert!(e.contains("'deadline_miss_rate<=5%' if 0.05 was a fraction"), "{e}");
        let e = parse_target("wait_p95_h<=5%").unwrap_err();
        assert!(e.contains("is in h") && e.contains("'wait_p95_h<=5'"), "{e}");
        // The offered load is a ratio shown as is.
        assert_eq!(parse_target("campus_offered_load<=0.9").unwrap().value, 0.9);
        assert_eq!(t.show(0.042), "4.20%");
    }
}
