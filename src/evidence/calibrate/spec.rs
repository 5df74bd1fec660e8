//! The checked form of `[calibration]`: the inputs to fit with their ranges, and the
//! observations with the window and the jobs they describe. Every refusal is a
//! [`ScenarioError::Invalid`] with the file, the line, the key and what is allowed.

use crate::scenario::calibration::{RawCalibration, RawFit, RawObserved};
use crate::scenario::class_metrics::ALL_CLASSES;
use crate::scenario::keys::get_number;
use crate::scenario::locate::line_of;
use crate::scenario::{Scenario, ScenarioError};
use crate::units::SimTime;

/// Evaluations when `budget` is not given.
pub const DEFAULT_BUDGET: u32 = 60;
/// Fewest evaluations allowed: the first design and a little search.
pub const MIN_BUDGET: u32 = 8;
/// Confidence of the intervals when `confidence` is not given.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// One input to fit: one or several keys set to the same value, within `[low, high]`.
#[derive(Clone, Debug, PartialEq)]
pub struct FitInput {
    /// Name in tables and CSVs (default: the first key).
    pub name: String,
    /// Dotted paths set to the value (sweep paths).
    pub keys: Vec<String>,
    /// Lowest value tried.
    pub low: f64,
    /// Highest value tried.
    pub high: f64,
    /// The value in the scenario file (of the first key).
    pub current: f64,
}

/// The statistic of an observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// Mean wait.
    Mean,
    /// A percentile of the waits (50, 90 or 95).
    Percentile(u8),
}

impl Statistic {
    /// The names allowed, as in `summary.csv`.
    pub const NAMES: [&'static str; 4] = ["wait_mean_h", "wait_p50_h", "wait_p90_h", "wait_p95_h"];

    /// Parses one of [`Statistic::NAMES`].
    pub fn parse(text: &str) -> Option<Statistic> {
        match text {
            "wait_mean_h" => Some(Statistic::Mean),
            "wait_p50_h" => Some(Statistic::Percentile(50)),
            "wait_p90_h" => Some(Statistic::Percentile(90)),
            "wait_p95_h" => Some(Statistic::Percentile(95)),
            _ => None,
        }
    }

    /// The name, as in `summary.csv`.
    pub fn name(self) -> String {
        match self {
            Statistic::Mean => "wait_mean_h".into(),
            Statistic::Percentile(p) => format!("wait_p{p}_h"),
        }
    }

    /// The statistic of some waits (hours); NaN for none.
    pub fn of(self, waits: &mut [f64]) -> f64 {
        if waits.is_empty() {
            return f64::NAN;
        }
        match self {
            Statistic::Mean => waits.iter().sum::<f64>() / waits.len() as f64,
            Statistic::Percentile(p) => {
                waits.sort_by(f64::total_cmp);
                crate::stats::percentile_sorted(waits, f64::from(p) / 100.0)
            }
        }
    }
}

/// Whose jobs an observation describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// One class of the group (its index).
    Class(u16),
    /// Every job of the group.
    Group,
    /// Every job on the campus (the other groups' too).
    Campus,
}

/// When the observed jobs were submitted.
#[derive(Clone, Debug, PartialEq)]
pub enum Window {
    /// The whole measured year.
    Year,
    /// Calendar months (1–12) of the submission date.
    Months(Vec<u8>),
    /// A season's windows on the clock, `[start, end)`.
    Season(Vec<(SimTime, SimTime)>),
}

/// One checked observation.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// `class, window, statistic` in words, e.g. `main-training, months 4-5, wait_p90_h`.
    pub label: String,
    /// Whose jobs.
    pub who: Who,
    /// When submitted.
    pub window: Window,
    /// The statistic.
    pub statistic: Statistic,
    /// Observed value, hours.
    pub value: f64,
    /// Its tolerance, hours (> 0).
    pub tolerance: f64,
}

/// A checked `[calibration]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// Inputs to fit.
    pub inputs: Vec<FitInput>,
    /// Observations to fit them to.
    pub observations: Vec<Observation>,
    /// Replications per evaluated point.
    pub replications: u32,
    /// Index of the simulated policy.
    pub policy: usize,
    /// Most evaluations.
    pub budget: u32,
    /// Confidence of the intervals.
    pub confidence: f64,
}

/// The default range of a key the calibration knows, as `(low, high)` from the value in
/// the file (docs/CALIBRATION.md lists them).
pub fn default_range(key: &str, current: f64) -> Option<(f64, f64)> {
    let last = key.rsplit('.').next().unwrap_or(key);
    let parts: Vec<&str> = key.split('.').collect();
    match (parts.as_slice(), last) {
        (["background", "offered_load" | "offered_load_outside_seasons"], _) => Some((0.4, 0.95)),
        (["background", "seasons", _, "multiplier"], _) => Some((1.0, 2.0)),
        (["campus", "accounts", _, "fairshare"], _) => Some((current / 4.0, current * 4.0)),
        (_, "mean") if key.contains("patience_hours") => Some((6.0, 168.0)),
        _ => None,
    }
}

/// Checks a `[calibration]` table against its scenario. `text` is the scenario file's
/// text (for lines), `file` its name, `doc` its TOML table.
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the key and what is allowed.
pub fn check(
    raw: Option<&RawCalibration>,
    scenario: &Scenario,
    doc: &toml::Table,
    text: &str,
    file: &str,
) -> Result<Spec, ScenarioError> {
    let bad = |key: &str, message: String| ScenarioError::Invalid {
        file: file.to_string(),
        line: line_of(text, key),
        key: key.to_string(),
        message,
    };
    let Some(raw) = raw else {
        return Err(bad(
            "calibration",
            "the scenario has no [calibration] table: add [[calibration.fit]] inputs and \
             [[calibration.observed]] observations (docs/CALIBRATION.md), or give --sacct LOG"
                .into(),
        ));
    };
    if raw.fit.is_empty() {
        return Err(bad(
            "calibration",
            "nothing to fit: add [[calibration.fit]] with key = \"background.offered_load_outside_seasons\" (or another input)"
                .into(),
        ));
    }
    let inputs = raw.fit.iter().enumerate().map(|(i, f)| check_fit(f, i, doc, &bad)).collect::<Result<Vec<_>, _>>()?;
    for (i, a) in inputs.iter().enumerate() {
        for b in &inputs[..i] {
            if let Some(k) = a.keys.iter().find(|k| b.keys.contains(k)) {
                return Err(bad(&format!("calibration.fit[{i}]"), format!("'{k}' is fitted twice; fit each key once")));
            }
        }
    }
    let observations = raw
        .observed
        .iter()
        .enumerate()
        .map(|(i, o)| check_observed(o, &format!("calibration.observed[{i}]"), scenario, &bad))
        .collect::<Result<Vec<_>, _>>()?;
    let replications = raw.replications.unwrap_or(scenario.replications);
    if replications < 2 {
        return Err(bad(
            "calibration.replications",
            "at least 2 replications per point: the year-to-year spread enters the objective".into(),
        ));
    }
    let policy = match &raw.policy {
        None => scenario.baseline,
        Some(name) => scenario.policy_index(name).ok_or_else(|| {
            let names: Vec<&str> = scenario.policies.iter().map(|p| p.name.as_str()).collect();
            bad("calibration.policy", format!("no policy '{name}'; the policies are: {}", names.join(", ")))
        })?,
    };
    let budget = raw.budget.unwrap_or(DEFAULT_BUDGET);
    if budget < MIN_BUDGET {
        return Err(bad(
            "calibration.budget",
            format!("at least {MIN_BUDGET} evaluations; {DEFAULT_BUDGET} is typical"),
        ));
    }
    let confidence = raw.confidence.unwrap_or(DEFAULT_CONFIDENCE);
    if !(confidence > 0.5 && confidence < 1.0) {
        return Err(bad("calibration.confidence", "a level between 0.5 and 1, e.g. 0.95".into()));
    }
    Ok(Spec { inputs, observations, replications, policy, budget, confidence })
}

fn check_fit(
    f: &RawFit,
    i: usize,
    doc: &toml::Table,
    bad: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<FitInput, ScenarioError> {
    let at = format!("calibration.fit[{i}]");
    let keys = match (&f.key, &f.keys) {
        (Some(k), None) => vec![k.clone()],
        (None, Some(ks)) if !ks.is_empty() => ks.clone(),
        (Some(_), Some(_)) => return Err(bad(&at, "give key or keys, not both".into())),
        _ => return Err(bad(&at, "missing key = \"dotted.path\" (or keys = [\"…\", \"…\"])".into())),
    };
    let mut current = f64::NAN;
    for (j, k) in keys.iter().enumerate() {
        let value = get_number(doc, k).ok_or_else(|| {
            bad(
                &format!("{at}.key"),
                format!(
                    "'{k}' is not a number written in the scenario file; a fitted key must be written there \
                     (the calibrated file replaces its value), e.g. background.offered_load_outside_seasons"
                ),
            )
        })?;
        if j == 0 {
            current = value;
        }
    }
    let defaults = default_range(&keys[0], current);
    let (low, high) = match (f.low, f.high, defaults) {
        (Some(l), Some(h), _) => (l, h),
        (l, h, Some((dl, dh))) => (l.unwrap_or(dl), h.unwrap_or(dh)),
        _ => {
            return Err(bad(
                &at,
                format!(
                    "'{}' has no default range; give low = … and high = … (defaults exist for background load, \
                     season multipliers, account fairshare and patience_hours.mean)",
                    keys[0]
                ),
            ));
        }
    };
    if !(low.is_finite() && high.is_finite() && low < high) {
        return Err(bad(
            &format!("{at}.low"),
            format!("the range must have low < high, both finite; got {low} to {high}"),
        ));
    }
    Ok(FitInput { name: f.name.clone().unwrap_or_else(|| keys[0].clone()), keys, low, high, current })
}

fn check_observed(
    o: &RawObserved,
    at: &str,
    scenario: &Scenario,
    bad: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Observation, ScenarioError> {
    let who = match o.class.as_str() {
        "all" => Who::Group,
        "campus" => Who::Campus,
        name => match scenario.group.iter().position(|c| c.name == name) {
            Some(i) => Who::Class(i as u16),
            None => {
                let names: Vec<&str> = scenario.group.iter().map(|c| c.name.as_str()).collect();
                return Err(bad(
                    &format!("{at}.class"),
                    format!(
                        "no class '{name}' in [[workload.classes]]; allowed: all (the group), campus (every job), {}",
                        names.join(", ")
                    ),
                ));
            }
        },
    };
    let window = match (&o.months, &o.season) {
        (Some(_), Some(_)) => return Err(bad(&format!("{at}.months"), "give months or season, not both".into())),
        (None, None) => Window::Year,
        (Some(m), None) => Window::Months(parse_months(m).map_err(|e| bad(&format!("{at}.months"), e))?),
        (None, Some(name)) => Window::Season(season_windows(scenario, name).ok_or_else(|| {
            let names: Vec<&str> = scenario
                .background_calendar
                .seasons
                .iter()
                .chain(&scenario.group_calendar.seasons)
                .map(|s| s.name.as_str())
                .collect();
            bad(&format!("{at}.season"), format!("no season '{name}'; the seasons are: {}", names.join(", ")))
        })?),
    };
    let statistic = Statistic::parse(&o.statistic).ok_or_else(|| {
        bad(
            &format!("{at}.statistic"),
            format!("'{}' is not allowed; use one of {}", o.statistic, Statistic::NAMES.join(", ")),
        )
    })?;
    if !(o.value.is_finite() && o.value >= 0.0) {
        return Err(bad(&format!("{at}.value"), "a wait in hours, ≥ 0".into()));
    }
    if !(o.tolerance.is_finite() && o.tolerance > 0.0) {
        return Err(bad(&format!("{at}.tolerance"), "a tolerance in hours, > 0 (how far off the value may be)".into()));
    }
    let class = match who {
        Who::Class(i) => scenario.group[i as usize].name.clone(),
        Who::Group => ALL_CLASSES.trim_matches(['(', ')']).to_string(),
        Who::Campus => "campus".into(),
    };
    let when = match (&window, &o.season) {
        (Window::Year, _) => "year".to_string(),
        (Window::Months(m), _) => format!("months {}", m.iter().map(u8::to_string).collect::<Vec<_>>().join(",")),
        (Window::Season(_), Some(s)) => s.clone(),
        (Window::Season(_), None) => unreachable!("a season window comes from a season name"),
    };
    Ok(Observation {
        label: format!("{class}, {when}, {}", statistic.name()),
        who,
        window,
        statistic,
        value: o.value,
        tolerance: o.tolerance,
    })
}

/// The windows of a season (background seasons first, then the group's) by name.
fn season_windows(scenario: &Scenario, name: &str) -> Option<Vec<(SimTime, SimTime)>> {
    for cal in [&scenario.background_calendar, &scenario.group_calendar] {
        if let Some(i) = cal.seasons.iter().position(|s| s.name == name) {
            return Some(cal.windows.iter().filter(|w| w.season == i).map(|w| (w.start, w.end)).collect());
        }
    }
    None
}

/// `4`, `"4"`, `"4-5"`, `"11-2"` (wrapping over the new year) or `"3,4,9"`.
pub fn parse_months(value: &toml::Value) -> Result<Vec<u8>, String> {
    let help = "months are 1-12: 4, \"4-5\" (April-May), \"11-2\" (November-February) or \"3,4,9\"";
    let month = |s: &str| s.trim().parse::<u8>().ok().filter(|m| (1..=12).contains(m)).ok_or_else(|| help.to_string());
    let text = match value {
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return Err(help.into()),
    };
    let mut out = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (mut m, b) = (month(a)?, month(b)?);
                loop {
                    out.push(m);
                    if m == b {
                        break;
                    }
                    m = m % 12 + 1;
                }
            }
            None => out.push(month(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_ranges_wrap_over_the_new_year() {
        let m = |s: &str| parse_months(&toml::Value::String(s.into()));
        assert_eq!(m("4-5").unwrap(), [4, 5]);
        assert_eq!(m("11-2").unwrap(), [1, 2, 11, 12]);
        assert_eq!(m("3, 9,3").unwrap(), [3, 9]);
        assert_eq!(parse_months(&toml::Value::Integer(7)).unwrap(), [7]);
        assert!(m("0-3").is_err() && m("13").is_err() && m("april").is_err());
    }

    #[test]
    fn statistics_of_waits() {
        assert_eq!(Statistic::Mean.of(&mut [1.0, 2.0, 6.0]), 3.0);
        assert_eq!(Statistic::Percentile(50).of(&mut [5.0, 1.0, 3.0]), 3.0);
        assert!(Statistic::Mean.of(&mut []).is_nan());
        for n in Statistic::NAMES {
            assert_eq!(Statistic::parse(n).unwrap().name(), n);
        }
    }

    #[test]
    fn default_ranges_exist_for_the_documented_inputs_only() {
        assert_eq!(default_range("background.offered_load_outside_seasons", 0.7), Some((0.4, 0.95)));
        assert_eq!(default_range("background.seasons.graduation-season.multiplier", 1.45), Some((1.0, 2.0)));
        assert_eq!(default_range("campus.accounts.group.fairshare", 1.6), Some((0.4, 6.4)));
        assert_eq!(default_range("campus.accounts.group.patience_hours.mean", 48.0), Some((6.0, 168.0)));
        assert_eq!(default_range("campus.gpus", 384.0), None);
    }
}
