//! The `[calibration]` table exactly as written: which unmeasured inputs `burstsim
//! calibrate` may fit, within which ranges, and what the group has observed. Plain data
//! with serde defaults and no logic (like [`super::raw`]), so a misspelt key is an error
//! with its line; `crate::evidence::calibrate` checks the values and runs the fit. `burstsim run`
//! and `sweep` ignore the table.

use serde::{Deserialize, Serialize};

/// `[calibration]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCalibration {
    /// Replications per evaluated point (default: `simulation.replications`); the same
    /// replications at every point (common random numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replications: Option<u32>,
    /// The policy simulated (default: the baseline policy, normally campus-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Most simulated points (evaluations) in the whole fit, intervals included (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
    /// Confidence of the reported intervals (default 0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The inputs to fit (`[[calibration.fit]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fit: Vec<RawFit>,
    /// What the group observed (`[[calibration.observed]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<RawObserved>,
}

/// `[[calibration.fit]]`: one unmeasured input.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFit {
    /// Dotted path of the key, as in sweeps (`background.offered_load_outside_seasons`,
    /// `background.seasons.graduation-season.multiplier`, `campus.accounts.group.fairshare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Several paths set to the same value (e.g. every account's
    /// `patience_hours.mean`); instead of `key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// Short name for tables and `calibration.csv` (default: the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Lowest value tried (default for known keys: docs/CALIBRATION.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Highest value tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

/// `[[calibration.observed]]`: one statistic the group has seen, e.g. "main-training,
/// April–May, p90 wait 24 h ± 8 h".
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawObserved {
    /// A class of the group's workload, `all` (every job of the group) or `campus` (every
    /// job on the campus, the other groups' included). Default `all`.
    #[serde(default = "all")]
    pub class: String,
    /// Months of submission: `"4-5"` (April–May), `"11-2"` (November–February), `"3,4"`
    /// or a single month `4`. Not with `season`; without both, the whole measured year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub months: Option<toml::Value>,
    /// A season of the scenario (background or group) by name: jobs submitted in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season: Option<String>,
    /// `wait_mean_h`, `wait_p50_h`, `wait_p90_h` or `wait_p95_h`: of the waits (first
    /// start − submission) of the jobs submitted in the window.
    pub statistic: String,
    /// The observed value (hours).
    pub value: f64,
    /// How far off the value may be (hours, > 0): the observation's own uncertainty.
    pub tolerance: f64,
}

fn all() -> String {
    "all".to_string()
}
