//! The sensitivity band: how each policy's paired cost and wait differences against the
//! baseline, and the recommended policy, move when the inputs nobody measured (the
//! background load, the peak season, the group's shares, patience) are at the low or
//! high end of their plausible range instead of the scenario's value.
//!
//! Simulation output analysis calls this input uncertainty: the CIs of a run say how
//! precisely the model's answer is known *given* its inputs; the band says how much the
//! answer moves with inputs that are themselves uncertain.
//!
//! ```text
//! Scenario ─ spec::inputs ─▶ [Input]   ([sensitivity] or the documented default ranges)
//! per input, low and high: spec::variant (set_path, as a sweep point) ─ experiment::run ─▶ Results
//! central: the run's own first n replications (the same seeds: no extra simulation)
//! each level: Summaries (paired differences) + recommend (sweep::recommend) ─▶ Level
//! Band ─▶ sensitivity.csv (band::csv), the terminal table (band::render), the tornado chart
//! ```
//!
//! Every level runs replications `0..n` with the run's seed, so each replication's
//! workload is the same at low, central and high (common random numbers): a level
//! differs from the central one only by the input. One input at a time; each costs two
//! runs of the whole experiment at `n` replications ([`spec::RawSensitivity::replications`],
//! default 4, at most the run's own).
//!
//! "Recommended" is the rule `burstsim sweep` applies (reused, not repeated): the cheapest
//! policy whose 95% CI meets every target, Bonferroni-corrected over the policies, with the
//! targets of `run --target`, else `[sensitivity] targets`, else [`spec::DEFAULT_TARGET`].

pub mod band;
use crate::scenario::sensitivity as spec;

pub use band::{Band, InputBand, Level, LevelKind};
pub use spec::{DEFAULT_REPLICATIONS, DEFAULT_TARGET, Input, RawInput, RawSensitivity, Setting};

use crate::experiment::{self, Results, Summaries};
use crate::scenario::Scenario;
use crate::sweep::recommend::{PointResult, Rule, recommend};
use crate::target::Target;

/// Where the targets that define "recommended" came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetSource {
    /// `run --target`.
    CommandLine,
    /// `[sensitivity] targets`.
    Scenario,
    /// [`spec::DEFAULT_TARGET`].
    Default,
}

/// The targets of the band: `cli` if any, else the scenario's, else the default.
///
/// # Panics
/// Never for a checked scenario (its targets were parsed when it was loaded).
pub fn targets(scenario: &Scenario, cli: &[Target]) -> (Vec<Target>, TargetSource) {
    if !cli.is_empty() {
        return (cli.to_vec(), TargetSource::CommandLine);
    }
    let own = scenario.raw.sensitivity.as_ref().map(|s| s.targets.clone()).unwrap_or_default();
    if !own.is_empty() {
        let parsed = own.iter().map(|t| crate::target::parse_target(t).expect("checked when loaded")).collect();
        return (parsed, TargetSource::Scenario);
    }
    (vec![crate::target::parse_target(DEFAULT_TARGET).expect("a valid target")], TargetSource::Default)
}

/// Whether the band is on for this scenario, and its replications per level
/// (before capping at the run's own).
pub fn settings(scenario: &Scenario) -> (bool, u32) {
    let s = scenario.raw.sensitivity.clone().unwrap_or_default();
    (s.enabled, s.replications)
}

/// Replications per level of the band: the count asked for (`--sensitivity-replications`,
/// else the scenario's own from [`settings`]), at most the replications the run itself
/// did (the band pairs each level with the run's own years), and at least 1.
pub fn replications_per_level(requested: Option<u32>, own: u32, run_replications: usize) -> u32 {
    requested.unwrap_or(own).min(u32::try_from(run_replications).unwrap_or(u32::MAX)).max(1)
}

/// A level that could not be built: the input, its value and why.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("sensitivity input '{input}' at {value}: {message}")]
pub struct LevelError {
    /// Input id.
    pub input: String,
    /// The value.
    pub value: f64,
    /// Why the scenario at that value is not valid.
    pub message: String,
}

/// The results of the first `n` replications of `results` (replications `0..n`, the
/// central level of the band).
pub fn first_replications(results: &Results, n: usize) -> Results {
    let mut out = results.clone();
    out.replications.truncate(n);
    for p in &mut out.policies {
        p.values.truncate(n);
        p.unstable.truncate(n);
        p.class_values.truncate(n);
    }
    out
}

/// One level: its summaries and the recommendation under `targets`.
pub fn level(kind: LevelKind, value: f64, scenario: &Scenario, results: &Results, targets: &[Target]) -> Level {
    let summaries = Summaries::new(scenario, results);
    let point = PointResult { point: 0, label: kind.name().into(), summaries, risk: Vec::new(), costs: Vec::new() };
    let rec = recommend(std::slice::from_ref(&point), targets, Rule::MeanYear);
    Level {
        kind,
        value,
        recommended: rec.chosen.map(|v| v.policy),
        meeting: rec.met.into_iter().map(|v| v.policy).collect(),
        summaries: point.summaries,
    }
}

/// Computes the band of `scenario` from its run's `results` (the central level is their
/// first `replications` replications). `progress` is called per finished replication of
/// the extra runs; `None` when `stop()` turned true before the band was complete.
///
/// # Errors
/// [`LevelError`] when a default range makes the scenario invalid (inputs given in the
/// scenario were checked when it was loaded).
pub fn run(
    scenario: &Scenario,
    results: &Results,
    inputs: &[Input],
    targets: (Vec<Target>, TargetSource),
    replications: u32,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<Band>, LevelError> {
    let n = (replications as usize).min(results.replications.len()).max(1);
    let variants = inputs
        .iter()
        .map(|input| {
            let build = |v: f64| {
                spec::variant(scenario, input, v, n as u32).map_err(|message| LevelError {
                    input: input.id.clone(),
                    value: v,
                    message,
                })
            };
            Ok((build(input.low)?, build(input.high)?))
        })
        .collect::<Result<Vec<_>, LevelError>>()?;
    let mut central_scenario = scenario.clone().with_overrides(None, Some(n as u32));
    central_scenario.ci_target = None;
    central_scenario.ci_target_paired = None;
    let central_results = first_replications(results, n);
    let central = level(LevelKind::Central, f64::NAN, &central_scenario, &central_results, &targets.0);
    let mut out = Vec::new();
    for (input, (low_s, high_s)) in inputs.iter().zip(&variants) {
        let mut levels = Vec::new();
        for (kind, s, v) in [(LevelKind::Low, low_s, input.low), (LevelKind::High, high_s, input.high)] {
            let (r, stopping) = experiment::run_until(s, None, progress, stop).map_err(|runaway| LevelError {
                input: input.id.clone(),
                value: v,
                message: runaway.to_string(),
            })?;
            if matches!(stopping, experiment::Stopping::Interrupted { .. }) {
                return Ok(None);
            }
            levels.push(level(kind, v, s, &r, &targets.0));
        }
        let high = levels.pop().expect("two levels");
        let low = levels.pop().expect("two levels");
        let mut mid = central.clone();
        mid.value = input.central;
        out.push(InputBand { input: input.clone(), low, central: mid, high });
    }
    Ok(Some(Band {
        inputs: out,
        central,
        targets: targets.0,
        source: targets.1,
        replications: n,
        policies: scenario.policies.iter().map(|p| p.name.clone()).collect(),
        baseline: scenario.policies[scenario.baseline].name.clone(),
    }))
}

/// Replication runs the band adds: 2 per input, `n` replications each.
pub fn extra_replications(inputs: usize, n: usize) -> u64 {
    2 * inputs as u64 * n as u64
}
