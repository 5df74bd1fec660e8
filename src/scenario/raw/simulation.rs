//! `[simulation]` as written: the clock, horizon, replications and seed. Its own file
//! because it is a section of the scenario file like the others (issue 25).

use serde::{Deserialize, Serialize};

/// `[simulation]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSimulation {
    /// First day simulated, `YYYY-MM-DD`.
    pub start_date: String,
    /// Length of the measured window from the start date, in days (default: one calendar
    /// year, 365 or 366 days); arrivals stop at its end and the jobs already submitted run
    /// to completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_days: Option<f64>,
    /// Days simulated *before* the start date so the campus queue is not empty when
    /// measuring begins (rounded to whole hours); nothing in the warm-up is measured.
    #[serde(default)]
    pub warmup_days: f64,
    /// Independent replications per policy.
    #[serde(default = "default_replications")]
    pub replications: u32,
    /// Master seed; every random stream derives from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Sequential stopping: add replications until the CI half-widths of `total_cost_cny`
    /// and `wait_mean_h` are within this fraction of their means (`--ci-target 0.05`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_target: Option<f64>,
    /// Sequential stopping on the decision: add replications until each policy's paired
    /// cost difference against the baseline (and each target metric's) is within this
    /// fraction of its value, or the decision is settled (`--ci-target paired:0.1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_target_paired: Option<f64>,
    /// Upper bound on replications under sequential stopping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_replications: Option<u32>,
    /// Policy that paired differences are taken against (default: the first policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_policy: Option<String>,
    /// Wait thresholds (hours) for the per-class "waited longer than t" shares in
    /// `classes.csv` (default: 1, 4 and 24 h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_wait_thresholds_h: Option<Vec<f64>>,
    /// How the other groups' campus is simulated for each policy (default `exact`; see
    /// [`CampusModel`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campus_model: Option<CampusModel>,
}

/// How the other groups' campus is simulated for each policy (issue 42).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CampusModel {
    /// Every policy's year simulated jointly with the other groups' jobs: the reference.
    #[default]
    Exact,
    /// The other groups' campus simulated once per replication, in the baseline policy's
    /// exact run, and replayed for the other policies (`engine/shared.rs`); scenarios the
    /// check has not covered run exact (`scenario::campus_model`).
    Shared,
}

impl CampusModel {
    /// The value as `simulation.campus_model` spells it.
    pub fn key(self) -> &'static str {
        match self {
            CampusModel::Exact => "exact",
            CampusModel::Shared => "shared",
        }
    }
}

fn default_replications() -> u32 {
    20
}
fn default_seed() -> u64 {
    1
}
