//! What the sensitivity band varies: the `[sensitivity]` section of a scenario (or, without
//! one, the documented default ranges of docs/ASSUMPTIONS.md), checked when the scenario
//! is loaded so that a bad input is an error with file, line and key before anything runs.
//!
//! An input is either one dotted path (`background.offered_load_outside_seasons`, the same
//! paths as `burstsim sweep` takes, arrays of tables addressed by name) set to its low and
//! high value, or a *scale* input that multiplies several paths by the same factor (the
//! patience of every account, say), exactly as a sweep's scale axis does.
//!
//! It belongs to the scenario, not to `crate::sensitivity` that runs the band: checking
//! the section at load needs only the scenario's keys, its requirements (`crate::target`)
//! and variants of the scenario itself.

pub(super) mod raw;

use serde::Deserialize;

pub use raw::{DEFAULT_REPLICATIONS, RawInput, RawSensitivity};

use super::keys::{Role, get_number, set_path};
use super::model::{Priority, Scenario};
use super::raw::{Placement, RawScenario};
use crate::i18n::{L, Lang};

/// The requirement that defines "recommended" when neither `run --target` nor
/// `[sensitivity] targets` gives one: the group's 95th-percentile wait at most a day.
pub const DEFAULT_TARGET: &str = "wait_p95_h<=24";

/// Most inputs in one band (each costs two runs of the whole experiment).
pub const MAX_INPUTS: usize = 12;

/// How an input changes the scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    /// The number at this path is set to the level's value.
    Path(String),
    /// The numbers at these paths are multiplied by the level's value (a factor).
    Scale(Vec<String>),
}

/// One checked input of the band.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Id (`sensitivity.csv`'s `input` column).
    pub id: String,
    /// What it changes.
    pub setting: Setting,
    /// Low, central and high value (for a scale input: factors, central 1).
    pub low: f64,
    /// The scenario's own value (1 for a scale input).
    pub central: f64,
    /// High value.
    pub high: f64,
    /// English name.
    pub label: String,
    /// Chinese name.
    pub label_zh: String,
}

impl Input {
    /// The paths it changes, space-separated (for the CSV).
    pub fn paths(&self) -> String {
        match &self.setting {
            Setting::Path(p) => p.clone(),
            Setting::Scale(ps) => ps.join(" "),
        }
    }

    /// Whether the values are factors applied to the scenario's numbers.
    pub fn is_scale(&self) -> bool {
        matches!(self.setting, Setting::Scale(_))
    }

    /// Sets the input to `value` in a scenario document (`base` holds the central values).
    ///
    /// # Errors
    /// The path's problem, as [`set_path`] words it.
    pub fn apply(&self, base: &toml::Table, doc: &mut toml::Table, value: f64) -> Result<(), String> {
        match &self.setting {
            Setting::Path(p) => set_path(doc, p, &number_text(value)).map_err(|e| e.to_string()),
            Setting::Scale(paths) => {
                for p in paths {
                    let x = get_number(base, p).ok_or_else(|| format!("'{p}' is not a number in the scenario"))?;
                    let scaled = (x * value * 1e9).round() / 1e9;
                    set_path(doc, p, &number_text(scaled)).map_err(|e| e.to_string())?;
                }
                Ok(())
            }
        }
    }
}

/// A value as text for [`set_path`], which keeps the key's type (a float key stays a
/// float; an integer key stays an integer when the value is whole).
fn number_text(value: f64) -> String {
    format!("{value}")
}

/// The scenario as a document of its resolved values (what `run.toml` holds).
pub fn document(scenario: &Scenario) -> toml::Table {
    let mut raw = scenario.raw.clone();
    raw.sensitivity = None;
    toml::Table::try_from(&raw).expect("a raw scenario always serialises to a table")
}

/// The scenario with `input` at `value`, `replications` replications, and no band of
/// its own.
///
/// # Errors
/// Why the changed scenario is not valid (the message of its check).
pub fn variant(scenario: &Scenario, input: &Input, value: f64, replications: u32) -> Result<Scenario, String> {
    let base = document(scenario);
    let mut doc = base.clone();
    input.apply(&base, &mut doc, value)?;
    let mut raw =
        RawScenario::deserialize(toml::Value::Table(doc)).map_err(|e| e.to_string().trim_end().to_string())?;
    raw.simulation.replications = replications;
    raw.sensitivity = None;
    Scenario::from_raw(raw).map(|s| s.with_overrides(None, Some(replications))).map_err(|e| e.to_string())
}

/// The inputs of a scenario's band: its `[[sensitivity.inputs]]`, or without them the
/// default ranges ([`default_inputs`]).
///
/// # Panics
/// Never for a scenario that passed [`check`] (which applies the same conversion).
pub fn inputs(scenario: &Scenario) -> Vec<Input> {
    match scenario.raw.sensitivity.as_ref().and_then(|s| s.inputs.as_ref()) {
        Some(raw) => {
            let doc = document(scenario);
            raw.iter().enumerate().map(|(i, r)| convert(&doc, i, r).expect("checked when loaded")).collect()
        }
        None => default_inputs(scenario),
    }
}

/// The default ranges, for a scenario without `[[sensitivity.inputs]]` (docs/ASSUMPTIONS.md,
/// "Sensitivity band"): each is used only where the scenario has the input at all.
/// - background load (`background.offered_load_outside_seasons`, else
///   `background.offered_load`): ×0.85 and ×1.15;
/// - the peak season (the background season with the largest multiplier, when above 1):
///   its excess over 1 ×0.75 and ×1.25 (1.45 → 1.3375 … 1.5625);
/// - the group's shares (its account's `fairshare`, under multifactor priority with a
///   fair-share weight on the node model): ×0.5 and ×2;
/// - patience (every account's `patience_hours` mean, when any account has one): ×0.5 and ×2.
pub fn default_inputs(scenario: &Scenario) -> Vec<Input> {
    let doc = document(scenario);
    let mut out = Vec::new();
    let label = |l: L| (l.get(Lang::En).to_string(), l.get(Lang::Zh).to_string());
    let round = |v: f64| (v * 1e6).round() / 1e6;
    for key in ["background.offered_load_outside_seasons", "background.offered_load"] {
        if let Some(v) = get_number(&doc, key) {
            let (en, zh) = label(L::SensBackgroundLoad);
            out.push(Input {
                id: "background-load".into(),
                setting: Setting::Path(key.into()),
                low: round(v * 0.85),
                central: v,
                high: round(v * 1.15),
                label: en,
                label_zh: zh,
            });
            break;
        }
    }
    let peak = scenario.raw.background.as_ref().and_then(|b| {
        b.seasons.iter().filter(|s| s.multiplier > 1.0).max_by(|a, b| a.multiplier.total_cmp(&b.multiplier))
    });
    if let Some(season) = peak {
        let path = format!("background.seasons.{}.multiplier", season.name);
        if let Some(m) = get_number(&doc, &path) {
            let (en, zh) = label(L::SensPeakSeason);
            out.push(Input {
                id: "peak-season".into(),
                setting: Setting::Path(path),
                low: round(1.0 + (m - 1.0) * 0.75),
                central: m,
                high: round(1.0 + (m - 1.0) * 1.25),
                label: en,
                label_zh: zh,
            });
        }
    }
    let fair_share_counts = scenario.campus.placement == Placement::Nodes
        && matches!(&scenario.campus.priority, Priority::Multifactor(m) if m.weight_fairshare > 0.0);
    let group = &scenario.campus.accounts[usize::from(scenario.campus.group_account)].name;
    let path = format!("campus.accounts.{group}.fairshare");
    if let (true, Some(v)) = (fair_share_counts, get_number(&doc, &path)) {
        let (en, zh) = label(L::SensGroupShares);
        out.push(Input {
            id: "group-shares".into(),
            setting: Setting::Path(path),
            low: round(v * 0.5),
            central: v,
            high: round(v * 2.0),
            label: en,
            label_zh: zh,
        });
    }
    let patience: Vec<String> = scenario
        .raw
        .campus
        .accounts
        .iter()
        .map(|a| format!("campus.accounts.{}.patience_hours.mean", a.name))
        .filter(|p| get_number(&doc, p).is_some())
        .collect();
    if !patience.is_empty() {
        let (en, zh) = label(L::SensPatience);
        out.push(Input {
            id: "patience".into(),
            setting: Setting::Scale(patience),
            low: 0.5,
            central: 1.0,
            high: 2.0,
            label: en,
            label_zh: zh,
        });
    }
    out
}

/// One `[[sensitivity.inputs]]` entry checked against the scenario document; errors as
/// (key, message).
fn convert(doc: &toml::Table, i: usize, r: &RawInput) -> Result<Input, (String, String)> {
    let key = |k: &str| format!("sensitivity.inputs[{i}].{k}");
    let bad = |k: &str, m: String| Err((key(k), m));
    let condition = |p: &str| -> Result<(), (String, String)> {
        if Role::infer(p) == Role::Decision || p.starts_with("simulation.") {
            return Err((
                key(if r.path.is_some() { "path" } else { "scale" }),
                format!(
                    "'{p}' is a choice of the group or a setting of the run, not an uncertain input; \
                     the band varies conditions such as background.offered_load_outside_seasons, \
                     background.seasons.NAME.multiplier or campus.accounts.NAME.fairshare (compare choices with `burstsim sweep`)"
                ),
            ));
        }
        if get_number(doc, p).is_none() {
            return Err((
                key(if r.path.is_some() { "path" } else { "scale" }),
                format!(
                    "'{p}' is not a number in the scenario (every default filled in); give the dotted path of a number, arrays of tables by name, e.g. campus.accounts.group.fairshare"
                ),
            ));
        }
        Ok(())
    };
    let setting = match (&r.path, r.scale.is_empty()) {
        (Some(p), true) => {
            condition(p)?;
            Setting::Path(p.clone())
        }
        (None, false) => {
            for p in &r.scale {
                condition(p)?;
            }
            Setting::Scale(r.scale.clone())
        }
        (Some(_), false) => {
            return bad("scale", "give either path (a value) or scale (factors of several paths), not both".into());
        }
        (None, true) => {
            return bad("path", "missing: give path = \"DOTTED.KEY\" (or scale = [paths] for factors)".into());
        }
    };
    let id = match (&r.name, &setting) {
        (Some(n), _) if n.trim().is_empty() => return bad("name", "an empty name is not allowed".into()),
        (Some(n), _) => n.clone(),
        (None, Setting::Path(p)) => p.clone(),
        (None, Setting::Scale(_)) => {
            return bad("name", "missing: a scale input needs a name (its id in sensitivity.csv)".into());
        }
    };
    let central = match &setting {
        Setting::Path(p) => get_number(doc, p).expect("checked above"),
        Setting::Scale(_) => 1.0,
    };
    let what = if matches!(setting, Setting::Scale(_)) { "factor" } else { "value" };
    for (k, v) in [("low", r.low), ("high", r.high)] {
        if !v.is_finite() {
            return bad(k, format!("{v} is not allowed; give a finite {what}"));
        }
    }
    if r.low > central {
        return bad("low", format!("{} is above the central {what} {central}; low must be at most it", r.low));
    }
    if r.high < central {
        return bad("high", format!("{} is below the central {what} {central}; high must be at least it", r.high));
    }
    let label = r.label.clone().unwrap_or_else(|| id.clone());
    let label_zh = r.label_zh.clone().unwrap_or_else(|| label.clone());
    Ok(Input { id, setting, low: r.low, central, high: r.high, label, label_zh })
}

/// Checks a scenario's `[sensitivity]` (called when the scenario is loaded): the
/// replications, the targets, and each input (a condition that is a number in the
/// scenario; low ≤ central ≤ high; a valid scenario at low and at high). Errors as
/// (key, message), located in the file by the caller.
///
/// # Errors
/// The first problem found.
pub fn check(scenario: &Scenario) -> Result<(), (String, String)> {
    let Some(s) = &scenario.raw.sensitivity else { return Ok(()) };
    if s.replications == 0 || s.replications > 10_000 {
        return Err((
            "sensitivity.replications".into(),
            format!(
                "{} is not allowed; give 1 to 10000 replications per level (default {DEFAULT_REPLICATIONS})",
                s.replications
            ),
        ));
    }
    let mut targets = Vec::new();
    for (i, t) in s.targets.iter().enumerate() {
        targets.push(crate::target::parse_target(t).map_err(|m| (format!("sensitivity.targets[{i}]"), m))?);
    }
    crate::target::check_classes(&targets, &scenario.class_names()).map_err(|m| ("sensitivity.targets".into(), m))?;
    let Some(raw) = &s.inputs else { return Ok(()) };
    if raw.len() > MAX_INPUTS {
        return Err((
            "sensitivity.inputs".into(),
            format!("{} inputs given; at most {MAX_INPUTS} (each adds two runs of the whole experiment)", raw.len()),
        ));
    }
    let doc = document(scenario);
    let mut ids: Vec<String> = Vec::new();
    for (i, r) in raw.iter().enumerate() {
        let input = convert(&doc, i, r)?;
        if ids.contains(&input.id) {
            return Err((
                format!("sensitivity.inputs[{i}].name"),
                format!("'{}' is used twice; every input needs its own id (name)", input.id),
            ));
        }
        for (k, v) in [("low", input.low), ("high", input.high)] {
            variant(scenario, &input, v, 1).map_err(|m| {
                (
                    format!("sensitivity.inputs[{i}].{k}"),
                    format!("with {} at {v} the scenario is not valid: {m}", input.paths()),
                )
            })?;
        }
        ids.push(input.id);
    }
    Ok(())
}
