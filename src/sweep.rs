//! Parameter sweeps: "as X varies, how do cost and wait move, and which setting should we
//! choose?"
//!
//! A sweep parameter is a dotted path into the scenario file, where arrays of tables are
//! addressed by their `name` (`policies.overflow-4h.threshold_hours`,
//! `background.seasons.final-exams.multiplier`, `cloud.offers.a800-monthly.gpus`) or by
//! index. Values come from the command line (`KEY=1,2,4` or `KEY=0:48:4`, inclusive) or
//! from a `[sweep]` table in the scenario. Up to three parameters form a grid. Every point
//! is the scenario with those values set, checked like any scenario, and run with the
//! same seed and replications (common random numbers), so neighbouring points differ only
//! by the parameter. A policy whose inputs do not change between points (say the
//! campus-only baseline of a threshold sweep) is simulated once and reused: its results
//! would be identical anyway.
//!
//! Each parameter has a [`Role`]: a **decision** the group takes (a policy's threshold, a
//! monthly rental's size, a budget) or a **condition** it cannot control (season
//! intensity, the other groups' load, prices). A sweep with conditions is judged by
//! [`decide`]: the best decision at each scenario point (a combination of condition
//! values) and a robust choice across them, instead of "the cheapest point", which would
//! pick a calendar. [`Role::infer`] gives the default from the path; `role = …` in the
//! `[sweep]` table or `--decision KEY` / `--condition KEY` override it.
//!
//! A parameter may also be a named **scale axis** that multiplies several keys by the same
//! factor (`exam-intensity = { scale = [KEY, KEY], values = [1.0, 1.3] }`).

pub mod assemble;
pub mod decide;
pub mod recommend;
pub mod store;
pub mod table;

use crate::scenario::keys::{KeyError, Role, get_number, set_path};

use std::collections::HashMap;

use serde::Deserialize;

use crate::experiment::{self, PolicyResults, Results};
use crate::scenario::raw::RawScenario;
use crate::scenario::{Scenario, ScenarioError};

/// A sweep specification that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// `--param` is not `KEY=VALUES`.
    #[error("--param '{0}' is not of the form KEY=V1,V2,… or KEY=START:STOP:STEP")]
    Syntax(String),
    /// A range is empty, endless or has a bad step.
    #[error("'{spec}': {problem}")]
    BadRange {
        /// The range as given.
        spec: String,
        /// What is wrong.
        problem: String,
    },
    /// A dotted path that does not lead to a scenario key, or a value of the wrong type
    /// for its key ([`KeyError`], shared with every other user of the scenario's keys).
    #[error(transparent)]
    Key(#[from] KeyError),
    /// Too many parameters or points.
    #[error("{0}")]
    TooBig(String),
    /// A point's scenario is invalid.
    #[error("sweep point {point} ({values}): {problem}")]
    InvalidPoint {
        /// Point index.
        point: usize,
        /// Its parameter values.
        values: String,
        /// Why.
        problem: ScenarioError,
    },
    /// No parameters at all.
    #[error("nothing to sweep: give --param KEY=V1,V2,… or a [sweep] table in the scenario")]
    Empty,
}

/// One swept parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Dotted path, or the name of a scale axis.
    pub key: String,
    /// The values as written (parsed to the key's type when applied).
    pub values: Vec<String>,
    /// Decision or condition.
    pub role: Role,
    /// A scale axis: the dotted paths whose values in the file are multiplied by the
    /// axis value (empty: `key` itself is the path set to the value).
    pub scale: Vec<String>,
    /// Condition axes: the weight of each value (the weight of a scenario point is the
    /// product over its condition axes); `None` for equal weights.
    pub weights: Option<Vec<f64>>,
    /// Axis title for charts, English and Chinese (else derived from the key).
    pub label: Option<(String, Option<String>)>,
}

impl Param {
    /// A parameter setting `key` to each of `values`, with the role inferred from the key.
    pub fn new(key: &str, values: Vec<String>) -> Param {
        Param { key: key.to_string(), values, role: Role::infer(key), scale: Vec::new(), weights: None, label: None }
    }
}

/// Most parameters in one grid.
pub const MAX_PARAMS: usize = 3;
/// Most points in one sweep.
pub const MAX_POINTS: usize = 10_000;

/// Parses `KEY=V1,V2,…` or `KEY=START:STOP:STEP`.
pub fn parse_param(spec: &str) -> Result<Param, SweepError> {
    let (key, values) = spec.split_once('=').ok_or_else(|| SweepError::Syntax(spec.to_string()))?;
    let key = key.trim();
    if key.is_empty() || values.trim().is_empty() {
        return Err(SweepError::Syntax(spec.to_string()));
    }
    Ok(Param::new(key, expand_values(values.trim())?))
}

/// Parses `KEY=W1,W2,…` (`--weight`): weights of a condition axis's values.
pub fn parse_weights(spec: &str) -> Result<(String, Vec<f64>), SweepError> {
    let (key, values) = spec.split_once('=').ok_or_else(|| SweepError::Syntax(spec.to_string()))?;
    let weights = values
        .split(',')
        .map(|w| w.trim().parse::<f64>().ok().filter(|w| w.is_finite() && *w >= 0.0))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| SweepError::BadRange {
            spec: spec.into(),
            problem: "weights are numbers ≥ 0, one per value of the axis, e.g. KEY=1,2,1".into(),
        })?;
    Ok((key.trim().to_string(), weights))
}

/// `a,b,c` or `start:stop:step` (inclusive of `stop` up to rounding).
pub fn expand_values(text: &str) -> Result<Vec<String>, SweepError> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() == 3 {
        let num = |s: &str| {
            s.trim()
                .parse::<f64>()
                .map_err(|_| SweepError::BadRange { spec: text.into(), problem: format!("'{s}' is not a number") })
        };
        let (a, b, step) = (num(parts[0])?, num(parts[1])?, num(parts[2])?);
        if !(a.is_finite() && b.is_finite() && step.is_finite()) || step <= 0.0 || b < a {
            return Err(SweepError::BadRange {
                spec: text.into(),
                problem: "give START:STOP:STEP with finite numbers, STOP ≥ START and STEP > 0".into(),
            });
        }
        let n = ((b - a) / step + 1e-9).floor() as usize + 1;
        if n > MAX_POINTS {
            return Err(SweepError::TooBig(format!("'{text}' has {n} values; at most {MAX_POINTS} points per sweep")));
        }
        let integral = [a, b, step].iter().all(|v| v.fract() == 0.0);
        return Ok((0..n)
            .map(|i| {
                let v = a + step * i as f64;
                if integral { format!("{}", v as i64) } else { format!("{}", (v * 1e9).round() / 1e9) }
            })
            .collect());
    }
    let values: Vec<String> = text.split(',').map(|s| s.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err(SweepError::BadRange { spec: text.into(), problem: "an empty value in the list".into() });
    }
    Ok(values)
}

fn value_list(v: &toml::Value) -> Result<Vec<String>, SweepError> {
    Ok(match v {
        toml::Value::String(s) => expand_values(s)?,
        toml::Value::Array(a) => a
            .iter()
            .map(|x| match x {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        other => vec![other.to_string()],
    })
}

/// Reads the `[sweep]` table of a scenario text: each key a path, each value an array of
/// values or a `"START:STOP:STEP"` string, or a table
/// `{ values = …, role = "decision" | "condition", weights = […], scale = [PATH, …],
/// label = "…", label_zh = "…" }` (with `scale`, the key names the axis and each path's
/// value in the file is multiplied by the axis value).
pub fn params_from_table(table: &toml::Table) -> Result<Vec<Param>, SweepError> {
    let mut out = Vec::new();
    for (key, v) in table {
        let toml::Value::Table(t) = v else {
            out.push(Param::new(key, value_list(v)?));
            continue;
        };
        let bad = |problem: String| SweepError::Key(KeyError::BadPath { path: format!("sweep.{key}"), problem });
        const FIELDS: [&str; 6] = ["values", "role", "weights", "scale", "label", "label_zh"];
        if let Some(k) = t.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(bad(format!("unknown field '{k}'; an axis table takes {}", FIELDS.join(", "))));
        }
        let values = value_list(t.get("values").ok_or_else(|| bad("an axis table needs values = [...]".into()))?)?;
        let scale: Vec<String> = match t.get("scale") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) if !a.is_empty() => a
                .iter()
                .map(|p| p.as_str().map(String::from))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("scale is a list of dotted paths (strings)".into()))?,
            Some(_) => return Err(bad("scale is a non-empty list of dotted paths".into())),
        };
        let role = match t.get("role") {
            None if scale.is_empty() => Role::infer(key),
            // A scale axis is a decision only when every key it scales is one.
            None => {
                if scale.iter().all(|p| Role::infer(p) == Role::Decision) {
                    Role::Decision
                } else {
                    Role::Condition
                }
            }
            Some(r) => r
                .as_str()
                .and_then(Role::parse)
                .ok_or_else(|| bad(format!("role = {r} is not allowed; give \"decision\" or \"condition\"")))?,
        };
        let weights = match t.get("weights") {
            None => None,
            Some(toml::Value::Array(a)) => Some(
                a.iter()
                    .map(|w| w.as_float().or_else(|| w.as_integer().map(|i| i as f64)))
                    .collect::<Option<Vec<f64>>>()
                    .ok_or_else(|| bad("weights are numbers, one per value".into()))?,
            ),
            Some(_) => return Err(bad("weights is a list of numbers, one per value".into())),
        };
        let text = |f: &str| t.get(f).and_then(|v| v.as_str()).map(String::from);
        let label = text("label").map(|en| (en, text("label_zh")));
        let mut p = Param { key: key.clone(), values, role, scale, weights: None, label };
        if let Some(w) = weights {
            p.set_weights(w)?;
        }
        out.push(p);
    }
    Ok(out)
}

impl Param {
    /// Sets the weights of a condition axis's values.
    ///
    /// # Errors
    /// On a decision axis, with the wrong count, a negative or non-finite weight, or all zero.
    pub fn set_weights(&mut self, w: Vec<f64>) -> Result<(), SweepError> {
        let bad = |problem: String| SweepError::Key(KeyError::BadPath { path: self.key.clone(), problem });
        if self.role == Role::Decision {
            return Err(bad("weights belong to condition axes (scenario points), not to decisions".into()));
        }
        if w.len() != self.values.len() {
            return Err(bad(format!("{} weights given for {} values", w.len(), self.values.len())));
        }
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) || w.iter().all(|x| *x == 0.0) {
            return Err(bad("weights must be numbers ≥ 0, not all zero".into()));
        }
        self.weights = Some(w);
        Ok(())
    }
}

/// The grid: every combination of values, the first parameter varying slowest.
pub fn grid(params: &[Param]) -> Result<Vec<Vec<String>>, SweepError> {
    if params.is_empty() {
        return Err(SweepError::Empty);
    }
    if params.len() > MAX_PARAMS {
        return Err(SweepError::TooBig(format!(
            "{} parameters given; a sweep grid takes at most {MAX_PARAMS}",
            params.len()
        )));
    }
    let total: usize = params.iter().map(|p| p.values.len()).product();
    if total > MAX_POINTS {
        return Err(SweepError::TooBig(format!("the grid has {total} points; at most {MAX_POINTS}")));
    }
    let mut points = vec![Vec::new()];
    for p in params {
        points = points
            .into_iter()
            .flat_map(|prefix| p.values.iter().map(move |v| [prefix.clone(), vec![v.clone()]].concat()))
            .collect();
    }
    Ok(points)
}

/// A scenario document (the file's TOML table, without its `[sweep]` table) and the
/// sweep parameters.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The document all points start from.
    pub base: toml::Table,
    /// Swept parameters.
    pub params: Vec<Param>,
    /// Values per point.
    pub points: Vec<Vec<String>>,
    /// File name for messages.
    pub file: String,
}

impl Sweep {
    /// Builds a sweep from scenario text and command-line parameters; without any, the
    /// scenario's `[sweep]` table is used.
    ///
    /// # Errors
    /// Syntax errors of the file, bad parameters, or a first point that does not validate.
    pub fn new(text: &str, file: &str, cli: &[String]) -> Result<Sweep, SweepError> {
        let mut base: toml::Table = toml::from_str(text).map_err(|e| SweepError::InvalidPoint {
            point: 0,
            values: "base scenario".into(),
            problem: ScenarioError::Syntax { file: file.into(), message: e.to_string().trim_end().to_string() },
        })?;
        let from_file = match base.remove("sweep") {
            Some(toml::Value::Table(t)) => params_from_table(&t)?,
            Some(_) => {
                return Err(SweepError::Key(KeyError::BadPath {
                    path: "sweep".into(),
                    problem: "[sweep] must be a table of path = [values]".into(),
                }));
            }
            None => Vec::new(),
        };
        // A sweep runs no sensitivity band (its axes are the sensitivity question), and the
        // band's inputs are checked against the central value: a point that moves a swept
        // key past an input's low or high was refused although the point itself is valid.
        base.remove("sensitivity");
        let params =
            if cli.is_empty() { from_file } else { cli.iter().map(|s| parse_param(s)).collect::<Result<_, _>>()? };
        for p in &params {
            for path in &p.scale {
                if get_number(&base, path).is_none() {
                    return Err(SweepError::Key(KeyError::BadPath {
                        path: path.clone(),
                        problem: format!("axis '{}' scales it, but it is not a number in the scenario file", p.key),
                    }));
                }
            }
            if !p.scale.is_empty() && p.values.iter().any(|v| v.parse::<f64>().map_or(true, |x| !x.is_finite())) {
                return Err(SweepError::Key(KeyError::BadValue {
                    path: p.key.clone(),
                    value: p.values.join(","),
                    problem: "a scale axis takes numbers (factors)".into(),
                }));
            }
        }
        let points = grid(&params)?;
        let sweep = Sweep { base, params, points, file: file.into() };
        for p in 0..sweep.points.len() {
            sweep.scenario(p)?;
        }
        Ok(sweep)
    }

    /// Sets the role of a parameter (`--decision KEY`, `--condition KEY`).
    ///
    /// # Errors
    /// When no parameter has that key (the message lists them).
    pub fn set_role(&mut self, key: &str, role: Role) -> Result<(), SweepError> {
        let i = self.index_of(key)?;
        self.params[i].role = role;
        if role == Role::Decision && self.params[i].weights.is_some() {
            return Err(SweepError::Key(KeyError::BadPath {
                path: key.into(),
                problem: "weights belong to condition axes; drop them or keep it a condition".into(),
            }));
        }
        Ok(())
    }

    /// Sets the weights of a condition axis (`--weight KEY=W1,W2,…`).
    ///
    /// # Errors
    /// An unknown key or bad weights.
    pub fn set_weights(&mut self, key: &str, weights: Vec<f64>) -> Result<(), SweepError> {
        let i = self.index_of(key)?;
        self.params[i].set_weights(weights)
    }

    fn index_of(&self, key: &str) -> Result<usize, SweepError> {
        self.params.iter().position(|p| p.key == key).ok_or_else(|| {
            SweepError::Key(KeyError::BadPath {
                path: key.into(),
                problem: format!(
                    "not a swept parameter; the parameters are: {}",
                    self.params.iter().map(|p| p.key.as_str()).collect::<Vec<_>>().join(", ")
                ),
            })
        })
    }

    /// The label of a point: `key=value, …`.
    pub fn label(&self, point: usize) -> String {
        self.params
            .iter()
            .zip(&self.points[point])
            .map(|(p, v)| format!("{}={v}", p.key))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The scenario of one point.
    ///
    /// # Errors
    /// A bad path, value or resulting scenario.
    pub fn scenario(&self, point: usize) -> Result<Scenario, SweepError> {
        let mut doc = self.base.clone();
        for (p, v) in self.params.iter().zip(&self.points[point]) {
            if p.scale.is_empty() {
                set_path(&mut doc, &p.key, v)?;
                continue;
            }
            let factor: f64 = v.parse().map_err(|_| {
                SweepError::Key(KeyError::BadValue {
                    path: p.key.clone(),
                    value: v.clone(),
                    problem: "a scale axis takes numbers (factors)".into(),
                })
            })?;
            for path in &p.scale {
                let base = get_number(&self.base, path).ok_or_else(|| {
                    SweepError::Key(KeyError::BadPath {
                        path: path.clone(),
                        problem: format!("axis '{}' scales it, but it is not a number in the scenario file", p.key),
                    })
                })?;
                let scaled = (base * factor * 1e9).round() / 1e9;
                set_path(&mut doc, path, &format!("{scaled}"))?;
            }
        }
        let raw = RawScenario::deserialize(toml::Value::Table(doc)).map_err(|e| {
            let message = e.to_string();
            match self.params.iter().find(|p| message.contains(p.key.rsplit('.').next().unwrap_or(&p.key))) {
                Some(p) if message.contains("unknown field") => {
                    SweepError::Key(KeyError::BadPath { path: p.key.clone(), problem: message.trim_end().to_string() })
                }
                _ => SweepError::InvalidPoint {
                    point,
                    values: self.label(point),
                    problem: ScenarioError::Syntax { file: self.file.clone(), message: message.trim_end().to_string() },
                },
            }
        })?;
        Scenario::from_raw(raw).map_err(|problem| SweepError::InvalidPoint {
            point,
            values: self.label(point),
            problem,
        })
    }
}

/// A key identifying everything a policy's results depend on: the scenario without the
/// other policies, and this policy (under the shared background, also the baseline policy
/// whose exact run recorded the background it was replayed against).
pub fn policy_key(scenario: &Scenario, policy: usize) -> u64 {
    let mut raw = scenario.raw.clone();
    raw.policies = vec![scenario.raw.policies[policy].clone()];
    if shared_background(scenario) && policy != scenario.baseline {
        raw.policies.push(scenario.raw.policies[scenario.baseline].clone());
    }
    raw.simulation.baseline_policy = None;
    toml::to_string(&raw)
        .expect("serialises")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Runs one point, reusing the results of policies whose inputs did not change. `None`
/// when `stop()` turned true before the point finished (nothing of it is kept).
///
/// # Errors
/// [`crate::engine::Runaway`] when a replication exceeds its event budget.
pub fn run_point(
    scenario: &Scenario,
    cache: &mut HashMap<u64, PolicyResults>,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<Results>, crate::engine::Runaway> {
    run_point_costed(scenario, cache, &|_| progress(), stop)
}

/// What [`run_point_costed`] reports per finished replication: each simulated policy's
/// index in the point's scenario and the wall time its simulation took.
pub type PointProgress<'a> = dyn Fn(&[(usize, std::time::Duration)]) + Sync + 'a;

/// As [`run_point`], but `progress` is given, per finished replication, each simulated
/// policy's index in `scenario.policies` and the wall time its simulation took (reused
/// policies are not simulated, so they are not in the list).
///
/// # Errors
/// As [`run_point`].
pub fn run_point_costed(
    scenario: &Scenario,
    cache: &mut HashMap<u64, PolicyResults>,
    progress: &PointProgress<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<Results>, crate::engine::Runaway> {
    let keys: Vec<u64> = (0..scenario.policies.len()).map(|p| policy_key(scenario, p)).collect();
    let mut todo: Vec<usize> = (0..keys.len()).filter(|&p| !cache.contains_key(&keys[p])).collect();
    // Under the shared background the baseline's exact run records what the others are
    // replayed against: a point with anything to simulate simulates all its policies.
    let shared = shared_background(scenario);
    if shared && !todo.is_empty() {
        todo = (0..keys.len()).collect();
    }
    let mut results = Results::new(scenario);
    results.replications = (0..u64::from(scenario.replications)).collect();
    if !todo.is_empty() {
        let mut sub = scenario.clone();
        sub.policies = todo.iter().map(|&p| scenario.policies[p].clone()).collect();
        sub.baseline = if shared { scenario.baseline } else { 0 };
        let ticked = |times: &[std::time::Duration]| {
            let timed: Vec<(usize, std::time::Duration)> = todo.iter().copied().zip(times.iter().copied()).collect();
            progress(&timed);
        };
        let (r, stopping) = experiment::run_until_costed(&sub, None, &ticked, stop)?;
        if matches!(stopping, experiment::Stopping::Interrupted { .. }) {
            return Ok(None);
        }
        for (k, pr) in todo.iter().zip(r.policies) {
            cache.insert(keys[*k], pr);
        }
    }
    for (p, key) in keys.iter().enumerate() {
        results.policies[p] = cache[key].clone();
    }
    Ok(Some(results))
}

/// Whether `scenario`'s policies run under the shared background (issue 42).
fn shared_background(scenario: &Scenario) -> bool {
    crate::scenario::campus_model::effective(scenario).0 == crate::scenario::raw::CampusModel::Shared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_lists_and_ranges() {
        assert_eq!(expand_values("0:48:12").unwrap(), ["0", "12", "24", "36", "48"]);
        assert_eq!(expand_values("1,2, 4").unwrap(), ["1", "2", "4"]);
        assert_eq!(expand_values("0.5:1.5:0.5").unwrap(), ["0.5", "1", "1.5"]);
        assert!(expand_values("5:1:1").is_err());
        assert!(expand_values("0:1:0").is_err());
        assert!(parse_param("no-equals").is_err());
    }

    #[test]
    fn grids_vary_the_last_parameter_fastest() {
        let p = |k: &str, v: &[&str]| Param::new(k, v.iter().map(|s| s.to_string()).collect());
        let g = grid(&[p("a", &["1", "2"]), p("b", &["x", "y"])]).unwrap();
        assert_eq!(g, vec![vec!["1", "x"], vec!["1", "y"], vec!["2", "x"], vec!["2", "y"]]);
        assert!(grid(&[p("a", &["1"]), p("b", &["1"]), p("c", &["1"]), p("d", &["1"])]).is_err());
    }

    #[test]
    fn keys_are_decisions_or_conditions_by_their_path() {
        for k in [
            "policies.overflow.threshold_hours",
            "policies.capped.budget.cap_cny",
            "cloud.offers.a800-monthly.gpus",
            "cloud.offers.a800-monthly.rent_months",
        ] {
            assert_eq!(Role::infer(k), Role::Decision, "{k}");
        }
        for k in [
            "background.seasons.final-exams.multiplier",
            "background.offered_load",
            "cloud.offers.rtx4090-hourly.price_per_gpu_hour_cny",
            "cloud.offers.a800-hourly.capacity_gpus",
            "workload.classes.debug.jobs_per_week",
            "campus.gpus",
            "simulation.seed",
            "something-new",
        ] {
            assert_eq!(Role::infer(k), Role::Condition, "{k}");
        }
    }

    #[test]
    fn axis_tables_set_roles_weights_labels_and_scale_keys() {
        let text = "name = \"x\"\n[sweep]\n\"policies.a.threshold_hours\" = [1, 2]\n\
                    exam = { scale = [\"s.a\", \"s.b\"], values = [1.0, 1.5], weights = [3, 1], label = \"Exams\" }\n\
                    \"campus.gpus\" = { values = [8, 16], role = \"decision\" }\n";
        let doc: toml::Table = toml::from_str(text).unwrap();
        let params = params_from_table(doc["sweep"].as_table().unwrap()).unwrap();
        let by = |k: &str| params.iter().find(|p| p.key == k).unwrap();
        assert_eq!(by("policies.a.threshold_hours").role, Role::Decision);
        assert_eq!(by("campus.gpus").role, Role::Decision, "role = overrides the inferred condition");
        let exam = by("exam");
        assert_eq!((exam.role, exam.scale.len(), exam.weights.clone()), (Role::Condition, 2, Some(vec![3.0, 1.0])));
        assert_eq!(exam.label, Some(("Exams".to_string(), None)));
        let bad = |t: &str| {
            let doc: toml::Table = toml::from_str(t).unwrap();
            params_from_table(doc["sweep"].as_table().unwrap()).unwrap_err().to_string()
        };
        assert!(bad("[sweep]\nk = { values = [1], role = \"maybe\" }").contains("\"decision\" or \"condition\""));
        assert!(bad("[sweep]\nk = { values = [1, 2], weights = [1] }").contains("1 weights given for 2 values"));
        assert!(bad("[sweep]\n\"policies.a.x\" = { values = [1], weights = [1] }").contains("condition axes"));
        assert!(bad("[sweep]\nk = { valus = [1] }").contains("unknown field 'valus'"));
    }

    /// Before: a point moving a key past a band input's low or high was refused
    /// ("low is above the central value"), though a sweep runs no band.
    #[test]
    fn a_sweep_ignores_the_scenarios_sensitivity_band() {
        let text = format!(
            "{}\n[[sensitivity.inputs]]\npath = \"campus.accounts.group.fairshare\"\nlow = 1\nhigh = 3\n",
            crate::scenario::DEFAULT_SCENARIO
        );
        crate::scenario::Scenario::from_toml_str(&text, "s.toml").expect("the band is valid at the central value");
        let sweep = Sweep::new(&text, "s.toml", &["campus.accounts.group.fairshare=0.5,5".into()])
            .expect("points outside the band's range are valid points");
        assert_eq!(sweep.points.len(), 2);
    }

    #[test]
    fn a_scale_axis_multiplies_each_key_by_its_value() {
        let text = "[background]\n[[background.seasons]]\nname = \"exams\"\nmultiplier = 1.4\n\
                    [[background.seasons]]\nname = \"grad\"\nmultiplier = 2\n";
        let base: toml::Table = toml::from_str(text).unwrap();
        assert_eq!(get_number(&base, "background.seasons.exams.multiplier"), Some(1.4));
        assert_eq!(get_number(&base, "background.seasons.1.multiplier"), Some(2.0));
        assert_eq!(get_number(&base, "background.seasons.none.multiplier"), None);
        // The shipped exam-season sweep scales both exam seasons.
        let sw = Sweep::new(include_str!("../scenarios/exam-season.toml"), "exam-season.toml", &[]).unwrap();
        let axis = sw.params.iter().position(|p| p.key == "exam-intensity").unwrap();
        assert_eq!(sw.params[axis].role, Role::Condition);
        let roles: Vec<Role> = sw.params.iter().map(|p| p.role).collect();
        assert_eq!(roles.iter().filter(|r| **r == Role::Decision).count(), 2, "threshold and rented months");
        let p = sw.points.iter().position(|v| v[axis] == "1.3").unwrap();
        let raw = toml::Table::try_from(&sw.scenario(p).unwrap().raw).unwrap();
        let m = |name: &str| get_number(&raw, &format!("background.seasons.{name}.multiplier")).unwrap();
        let base = toml::Table::try_from(
            &crate::scenario::Scenario::from_toml_str(
                include_str!("../scenarios/exam-season.toml"),
                "exam-season.toml",
            )
            .unwrap()
            .raw,
        )
        .unwrap();
        let b = |name: &str| get_number(&base, &format!("background.seasons.{name}.multiplier")).unwrap();
        assert!((m("final-exams") - b("final-exams") * 1.3).abs() < 1e-9);
        assert!((m("graduation-season") - b("graduation-season") * 1.3).abs() < 1e-9);
        assert_eq!(m("iclr-deadline"), 1.25, "other seasons are untouched");
    }
}
