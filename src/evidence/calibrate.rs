//! Calibration: fit the campus inputs nobody measured (the other groups' load, the peak
//! seasons' multipliers, the group's fair-share, patience) to what the group observed
//! (waits by class and months, stated in `[[calibration.observed]]` or read from a
//! sacct export), by simulation.
//!
//! A calibration is a small sweep with an objective: every candidate point is the
//! scenario file with the fitted keys set by [`crate::scenario::keys::set_path`], checked like any
//! scenario, and simulated by the same engine on the same replications (common random
//! numbers), so neighbouring points differ only by their inputs and the objective is
//! smooth enough for a derivative-free search ([`search`]). The objective is
//! Σᵢ zᵢ², zᵢ = (mᵢ − ln(observedᵢ + tolᵢ))/sᵢ, with mᵢ the mean over the simulated years
//! of ln(yearly value + tolᵢ) and sᵢ² = τᵢ² + (1 + 1/n)·σᵢ², σᵢ the year-to-year spread on
//! that scale and τᵢ the tolerance there (an observation is one year's value;
//! [`observe::Simulated`] says why the log scale). The scales sᵢ are held fixed at those
//! of the best point, by rounds of search ([`run`]), so a noisy point is not rated closer
//! for its noise. Intervals are profile intervals: the values whose objective is within
//! the χ²₁ quantile of the minimum (docs/CALIBRATION.md says why and where that is
//! approximate).
//!
//! Only the policy the group runs today (the baseline, normally campus-only) is simulated:
//! the observations were made under it.
//!
//! **Out of sample by construction.** The search simulates its years on replications
//! [`FIRST_CALIBRATION_REPLICATION`]`..+n`, a stream no `run`, `sweep`, band or validation
//! reaches (they all count replications from 0 in a `u32`, at most
//! [`crate::scenario::MAX_REPLICATIONS`]). After the fit, the calibrated scenario is
//! simulated once more on replications `0..n`, the years `burstsim run` reports, which the
//! fit never saw: [`Residual::fresh`], the figure a reviewer asks for.

pub mod observe;
pub mod sacct;
pub mod search;
pub mod spec;
pub mod write;

use std::path::Path;

use serde::Deserialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

use crate::scenario::keys::set_path;
use crate::scenario::raw::RawScenario;
use crate::scenario::{Scenario, ScenarioError};
use crate::sweep::SweepError;
pub use observe::Simulated;
pub use spec::{FitInput, Observation, Spec};

/// The first replication of a calibration's own simulated years: 2³², beyond any
/// replication a `run`, `sweep`, band or validation simulates (they count from 0 in a
/// `u32` and validation allows at most [`crate::scenario::MAX_REPLICATIONS`]), so the
/// years the fit sees are never the years a run of the calibrated file reports. Each
/// stream is derived from (seed, replication, purpose) (`rng::derive_seed`, crate-private), so
/// these are independent years of the same seed.
pub const FIRST_CALIBRATION_REPLICATION: u64 = 1 << 32;

const _: () = assert!(FIRST_CALIBRATION_REPLICATION > u32::MAX as u64);
const _: () = assert!(FIRST_CALIBRATION_REPLICATION > crate::scenario::MAX_REPLICATIONS as u64);

/// A calibration that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The scenario or its `[calibration]` table is invalid.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A fitted key cannot be set.
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// A point inside the ranges gives an invalid scenario.
    #[error("the point {point} gives an invalid scenario: {problem}; narrow the [[calibration.fit]] ranges")]
    InvalidPoint {
        /// The inputs, `name=value, …`.
        point: String,
        /// Why.
        problem: ScenarioError,
    },
    /// No observation to fit to.
    #[error("no observations: add [[calibration.observed]] to the scenario or give --sacct LOG")]
    NoObservations,
    /// An observation has no simulated jobs at any evaluated point.
    #[error(
        "observation '{0}': fewer than two simulated years have a job in it at any point tried; \
         choose a window with jobs (months, a season) or a class that runs then"
    )]
    Unobservable(String),
    /// Interrupted before the first evaluation.
    #[error("interrupted before any point was simulated")]
    Interrupted,
}

/// The fitted value of one input.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The input.
    pub input: FitInput,
    /// Best value (the one written).
    pub value: f64,
    /// Interval at the spec's confidence.
    pub low: f64,
    /// Interval's high end.
    pub high: f64,
    /// The interval reaches the range's low end (the data do not bound it there).
    pub low_open: bool,
    /// The interval reaches the range's high end.
    pub high_open: bool,
    /// The best value is on the range's bound (within 1/128 of the range) while the
    /// interval is bounded on the other side: the observations want a value beyond it.
    pub at_bound: Option<&'static str>,
    /// The observations bound the input on at least one side. When they do not (the
    /// interval is the whole range), the best point is arbitrary: `value` is then the
    /// file's own value, which the calibrated file keeps.
    pub identified: bool,
}

/// One observation at the best point.
#[derive(Clone, Debug, PartialEq)]
pub struct Residual {
    /// The observation.
    pub observation: Observation,
    /// Its simulated value at the best point, on the calibration's own years
    /// ([`FIRST_CALIBRATION_REPLICATION`]; `None`: no simulated year had a job in it).
    pub simulated: Option<Simulated>,
    /// Its value in the calibrated scenario (the values written, an input not identified
    /// at the file's value) on fresh years: replications `0..n`, those `burstsim run`
    /// simulates, which the fit never saw (`None`: not simulated, after an interruption,
    /// or fewer than two years with a job in it).
    pub fresh: Option<Simulated>,
    /// Met: |z| within the normal quantile of the confidence level.
    pub met: bool,
}

/// One evaluated point, for `calibration_points.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Input values.
    pub values: Vec<f64>,
    /// Per observation, what this point simulated (`None`: fewer than two years had a job
    /// in it), so a reader sees how each statistic and its spread move with the inputs.
    pub simulated: Vec<Option<Simulated>>,
    /// Σ z² over the observations (`+∞`: could not be computed).
    pub objective: f64,
}

/// The result of a calibration.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The checked specification.
    pub spec: Spec,
    /// Per input.
    pub fitted: Vec<Fitted>,
    /// Per observation.
    pub residuals: Vec<Residual>,
    /// Every evaluated point, in order.
    pub points: Vec<Point>,
    /// Objective threshold of the intervals above the minimum (χ²₁ quantile).
    pub delta: f64,
    /// The search stopped at the budget before its finest step.
    pub budget_cut_search: bool,
    /// The budget ran out before every interval end was bracketed to 1/16 of its range:
    /// the intervals may be narrower than the observations allow.
    pub intervals_cut: bool,
    /// Interrupted: the result is from the points evaluated.
    pub stopped: bool,
    /// Name of the simulated policy.
    pub policy: String,
    /// The calibrated scenario was simulated on fresh years (replications `0..n`): false
    /// only after an interruption.
    pub fresh_checked: bool,
}

impl Calibration {
    /// True when every observation is met at the best point.
    pub fn meets_observations(&self) -> bool {
        self.residuals.iter().all(|r| r.met)
    }
}

/// A fitted value written with 4 significant digits (what is simulated is what is written).
pub fn round_value(v: f64) -> (f64, String) {
    if v == 0.0 || !v.is_finite() {
        return (v, format!("{v}"));
    }
    let decimals = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text };
    (text.parse().expect("formatted number parses"), text)
}

/// The value of input `input` at grid coordinate `g`.
fn value_at(input: &FitInput, g: u32) -> (f64, String) {
    round_value(input.low + (input.high - input.low) * f64::from(g) / f64::from(search::GRID))
}

/// The scenario of one point: `doc` with the inputs set to `values` (as written), only
/// the spec's policy kept, the spec's replications. Also what a test uses to simulate a
/// hidden scenario.
///
/// # Errors
/// A key that cannot be set, or a scenario that does not validate at these values.
pub fn point_scenario(
    doc: &toml::Table,
    spec: &Spec,
    values: &[String],
    base: &Path,
    file: &str,
) -> Result<Scenario, CalibrateError> {
    let values: Vec<Option<&str>> = values.iter().map(|v| Some(v.as_str())).collect();
    scenario_with(doc, spec, &values, base, file)
}

/// As [`point_scenario`], setting only the inputs with a value (`None`: the keys keep the
/// file's values, as the calibrated file keeps an input not identified).
fn scenario_with(
    doc: &toml::Table,
    spec: &Spec,
    values: &[Option<&str>],
    base: &Path,
    file: &str,
) -> Result<Scenario, CalibrateError> {
    let mut doc = doc.clone();
    for (input, v) in spec.inputs.iter().zip(values) {
        let Some(v) = v else { continue };
        for key in &input.keys {
            set_path(&mut doc, key, v).map_err(SweepError::from)?;
        }
    }
    let label = || {
        spec.inputs
            .iter()
            .zip(values)
            .map(|(i, v)| format!("{}={}", i.name, v.unwrap_or("(as in the file)")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let raw = RawScenario::deserialize(toml::Value::Table(doc)).map_err(|e| CalibrateError::InvalidPoint {
        point: label(),
        problem: ScenarioError::Syntax { file: file.into(), message: e.to_string().trim_end().to_string() },
    })?;
    let mut scn =
        Scenario::from_raw_at(raw, base).map_err(|problem| CalibrateError::InvalidPoint { point: label(), problem })?;
    scn.policies = vec![scn.policies[spec.policy].clone()];
    scn.baseline = 0;
    Ok(scn.with_overrides(None, Some(spec.replications)))
}

/// The objective Σ zᵢ² of simulated observations, zᵢ = residualᵢ / scaleᵢ, each scale
/// the point's own (`scales` = `None`) or the given one (a reweighting round, [`run`]).
/// `+∞` when an observation cannot be simulated.
fn objective(sims: &[Option<Simulated>], obs: &[Observation], scales: Option<&[f64]>) -> f64 {
    let mut sum = 0.0;
    for (i, (s, o)) in sims.iter().zip(obs).enumerate() {
        let Some(s) = s else { return f64::INFINITY };
        let scale = scales.map_or(s.scale, |c| c[i]);
        sum += (s.gap(o.value) / scale).powi(2);
    }
    sum
}

/// Searches with the scales of the previous search's best point, at most this many times,
/// before the last search and its intervals ([`run`]).
const MAX_REWEIGHTS: usize = 4;

/// The points a calibration has simulated, each once (so a later search with other
/// scales reads them for free), and how many it may simulate.
struct Simulations<'a> {
    spec: &'a Spec,
    doc: &'a toml::Table,
    base: &'a Path,
    file: &'a str,
    progress: &'a dyn Fn(usize, usize),
    /// Grid point → index in `points`.
    index: std::collections::HashMap<Vec<u32>, usize>,
    /// Per point, its values and what it simulated (the objective is filled in at the end).
    points: Vec<Point>,
    /// The first invalid point.
    failure: Option<CalibrateError>,
    /// Points that may be simulated in all, so far.
    limit: usize,
}

impl Simulations<'_> {
    /// The objective at grid point `g` with `scales`, simulating the point when it is new;
    /// `None` when it is new and the limit is reached.
    fn objective_at(&mut self, g: &[u32], scales: Option<&[f64]>) -> Option<f64> {
        if self.failure.is_some() {
            return Some(f64::INFINITY);
        }
        let i = match self.index.get(g) {
            Some(&i) => i,
            None => {
                if self.points.len() >= self.limit {
                    return None;
                }
                let spec = self.spec;
                let vals: Vec<(f64, String)> = spec.inputs.iter().zip(g).map(|(i, &g)| value_at(i, g)).collect();
                let texts: Vec<String> = vals.iter().map(|v| v.1.clone()).collect();
                let scn = match point_scenario(self.doc, spec, &texts, self.base, self.file) {
                    Ok(s) => s,
                    Err(e) => {
                        self.failure = Some(e);
                        return Some(f64::INFINITY);
                    }
                };
                let years = observe::simulate_years(
                    &scn,
                    0,
                    FIRST_CALIBRATION_REPLICATION,
                    spec.replications,
                    &spec.observations,
                );
                let simulated = years
                    .iter()
                    .zip(&spec.observations)
                    .map(|(y, o)| observe::simulated(y, o.value, o.tolerance))
                    .collect();
                self.points.push(Point { values: vals.iter().map(|v| v.0).collect(), simulated, objective: f64::NAN });
                self.index.insert(g.to_vec(), self.points.len() - 1);
                (self.progress)(self.points.len(), spec.budget as usize);
                self.points.len() - 1
            }
        };
        Some(objective(&self.points[i].simulated, &self.spec.observations, scales))
    }

    /// The scales of the point at `g` (`None`: an observation not simulated there).
    fn scales_at(&self, g: &[u32]) -> Option<Vec<f64>> {
        self.points[self.index[g]].simulated.iter().map(|s| s.map(|s| s.scale)).collect()
    }
}

/// Checks the scenario text's `[calibration]` (plus `extra` observations, e.g. from a
/// sacct export) and returns the spec, the scenario and its document.
///
/// # Errors
/// The scenario's or the table's errors, with file and line.
pub fn prepare(
    text: &str,
    file: &str,
    extra: Vec<Observation>,
) -> Result<(Spec, Scenario, toml::Table), CalibrateError> {
    let scenario = Scenario::from_toml_str(text, file)?;
    let mut doc: toml::Table = toml::from_str(text)
        .map_err(|e| ScenarioError::Syntax { file: file.into(), message: e.to_string().trim_end().to_string() })?;
    doc.remove("calibration");
    doc.remove("sweep");
    let mut spec = spec::check(scenario.raw.calibration.as_ref(), &scenario, &doc, text, file)?;
    spec.observations.extend(extra);
    if spec.observations.is_empty() {
        return Err(CalibrateError::NoObservations);
    }
    let needed = search::design_size(spec.inputs.len()) + 2 * spec.inputs.len();
    if (spec.budget as usize) < needed {
        return Err(ScenarioError::Invalid {
            file: file.into(),
            line: crate::scenario::locate::line_of(text, "calibration.budget"),
            key: "calibration.budget".into(),
            message: format!(
                "{} inputs need a budget of at least {needed} evaluations (the first design and the interval ends)",
                spec.inputs.len()
            ),
        }
        .into());
    }
    Ok((spec, scenario, doc))
}

/// Runs a calibration. `base` resolves relative paths of the scenario (a trace);
/// `progress(done, budget)` is called after each evaluated point; `stop()` ends the
/// search early (the result then covers what was evaluated).
///
/// # Errors
/// [`CalibrateError`]: bad input, an invalid point, an observation never simulated.
pub fn run(
    spec: Spec,
    scenario: &Scenario,
    doc: &toml::Table,
    base: &Path,
    file: &str,
    progress: &dyn Fn(usize, usize),
    stop: &dyn Fn() -> bool,
) -> Result<Calibration, CalibrateError> {
    let delta = ChiSquared::new(1.0).expect("1 degree of freedom").inverse_cdf(spec.confidence);
    let z_met = Normal::standard().inverse_cdf(0.5 + spec.confidence / 2.0);
    let dims = spec.inputs.len();
    let budget = spec.budget as usize;
    let mut state = Simulations {
        spec: &spec,
        doc,
        base,
        file,
        progress,
        index: std::collections::HashMap::new(),
        points: Vec::new(),
        failure: None,
        limit: budget.saturating_sub(search::interval_reserve(dims, budget)).max(search::design_size(dims)),
    };
    // Reweighting. Each point's own scale rates a point whose years vary more as closer
    // (its zᵢ shrink as σᵢ grows, so near saturation no multiplier is ever far), and the
    // minimum of Σzᵢ² drifts to noisy points. So the scales are fixed: a first search with
    // each point's own, then searches with the scales of the last best point, until that
    // point's scales are the ones used (iteratively reweighted least squares; for as many
    // observations as inputs the minimum is where simulated = observed whatever the
    // scales). The searches share the budget left after the intervals' reserve.
    let mut scales: Option<Vec<f64>> = None;
    for _ in 0..MAX_REWEIGHTS {
        // Every simulated point is free to revisit, so a search may ask for `limit` points
        // in all: those simulated so far and the ones still allowed.
        let room = state.limit;
        let found = search::locate(dims, room, &mut |g| state.objective_at(g, scales.as_deref()), stop);
        if state.failure.is_some() || found.evaluations.is_empty() || stop() {
            break;
        }
        let best = &found.evaluations[found.best];
        let Some(next) = state.scales_at(&best.at).filter(|_| best.objective.is_finite()) else { break };
        let converged = scales.as_ref() == Some(&next);
        scales = Some(next);
        if converged {
            break;
        }
    }
    // Interrupted: the last search reads only the points simulated (never stopped itself,
    // so what was simulated gives the result).
    let interrupted = stop();
    state.limit = if interrupted { state.points.len() } else { budget };
    let room = state.limit.max(search::design_size(dims));
    let go_on = || false;
    let outcome = search::minimise(
        dims,
        room,
        delta,
        &mut |g| state.objective_at(g, scales.as_deref()),
        if interrupted { &go_on } else { stop },
    );
    let Simulations { index, mut points, failure, .. } = state;
    if let Some(e) = failure {
        return Err(e);
    }
    if outcome.evaluations.is_empty() {
        return Err(CalibrateError::Interrupted);
    }
    for point in &mut points {
        point.objective = objective(&point.simulated, &spec.observations, scales.as_deref());
    }
    let best = outcome.best;
    let sims = &points[index[&outcome.evaluations[best].at]].simulated;
    if !outcome.evaluations[best].objective.is_finite() {
        // Some observation was never simulated at any point: name the first.
        let never =
            (0..spec.observations.len()).find(|&i| points.iter().all(|p| p.simulated[i].is_none())).unwrap_or(0);
        return Err(CalibrateError::Unobservable(spec.observations[never].label.clone()));
    }
    let g = f64::from(search::GRID);
    // Every point simulated in any round that lies within the threshold under the final
    // scales belongs to the interval, not only those of the last search.
    let threshold = outcome.evaluations[best].objective + delta;
    let inside: Vec<&Point> = points.iter().filter(|p| p.objective <= threshold).collect();
    let fitted: Vec<Fitted> = spec
        .inputs
        .iter()
        .enumerate()
        .zip(&outcome.intervals)
        .zip(&outcome.evaluations[best].at)
        .map(|(((k, input), iv), &at)| {
            let to_value = |u: f64| input.low + (input.high - input.low) * u / g;
            let low = inside.iter().map(|p| p.values[k]).fold(round_value(to_value(iv.low)).0, f64::min);
            let high = inside.iter().map(|p| p.values[k]).fold(round_value(to_value(iv.high)).0, f64::max);
            let (low_open, high_open) = (iv.low_open || low <= input.low, iv.high_open || high >= input.high);
            let identified = !(low_open && high_open);
            let at_bound = if !identified {
                None
            } else if at <= search::GRID / 128 {
                Some("low")
            } else if at >= search::GRID - search::GRID / 128 {
                Some("high")
            } else {
                None
            };
            Fitted {
                input: input.clone(),
                value: if identified { value_at(input, at).0 } else { input.current },
                low,
                high,
                low_open,
                high_open,
                at_bound,
                identified,
            }
        })
        .collect();
    let stopped = outcome.stopped || interrupted;
    // The check a reviewer asks for: the calibrated scenario, as written, on the years
    // `run` reports (replications 0..n), none of which the fit saw.
    let fresh_checked = !stopped && !stop();
    let fresh: Vec<Option<Simulated>> = if !fresh_checked {
        vec![None; spec.observations.len()]
    } else {
        // As the calibrated file writes them: a fitted value with 4 significant digits
        // (the value simulated), an input not identified as the file has it.
        let written: Vec<Option<String>> =
            fitted.iter().map(|f| f.identified.then(|| round_value(f.value).1)).collect();
        let written: Vec<Option<&str>> = written.iter().map(Option::as_deref).collect();
        let scn = scenario_with(doc, &spec, &written, base, file)?;
        let years = observe::simulate_years(&scn, 0, 0, spec.replications, &spec.observations);
        years.iter().zip(&spec.observations).map(|(y, o)| observe::simulated(y, o.value, o.tolerance)).collect()
    };
    let residuals = spec
        .observations
        .iter()
        .zip(sims)
        .zip(fresh)
        .map(|((o, s), fresh)| Residual {
            observation: o.clone(),
            simulated: *s,
            fresh,
            met: s.is_some_and(|s| s.z(o.value).abs() <= z_met),
        })
        .collect();
    let policy = scenario.policies[spec.policy].name.clone();
    Ok(Calibration {
        spec,
        fitted,
        residuals,
        points,
        delta,
        budget_cut_search: outcome.budget_cut_search,
        intervals_cut: outcome.intervals_cut,
        stopped,
        policy,
        fresh_checked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_four_significant_digits() {
        assert_eq!(round_value(0.712_345), (0.7123, "0.7123".into()));
        assert_eq!(round_value(1.5), (1.5, "1.5".into()));
        assert_eq!(round_value(96.0), (96.0, "96".into()));
        assert_eq!(round_value(12_345.6), (12_346.0, "12346".into()));
    }
}
