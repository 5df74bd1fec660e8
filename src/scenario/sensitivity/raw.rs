//! `[sensitivity]` as written in the scenario file: the serde mirror the raw scenario
//! holds (`crate::scenario::raw::RawScenario::sensitivity`), checked by the parent module.

use serde::{Deserialize, Serialize};

/// `[sensitivity]` exactly as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSensitivity {
    /// Whether `run` computes the band (default true; `run --no-sensitivity` turns it off too).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Replications per level (default [`DEFAULT_REPLICATIONS`]; at most the run's own).
    #[serde(default = "default_replications")]
    pub replications: u32,
    /// Requirements that define the recommended policy, as `--target` takes them
    /// (`run --target` replaces them; without either, [`super::DEFAULT_TARGET`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    /// The inputs to vary (absent: the default ranges, [`super::default_inputs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<RawInput>>,
}

impl Default for RawSensitivity {
    fn default() -> Self {
        RawSensitivity { enabled: true, replications: DEFAULT_REPLICATIONS, targets: Vec::new(), inputs: None }
    }
}

/// `[[sensitivity.inputs]]` exactly as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInput {
    /// Id in `sensitivity.csv` (default: the path; required with `scale`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Dotted path of the number to set to `low` and `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Dotted paths multiplied by the factors `low` and `high` (instead of `path`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale: Vec<String>,
    /// Low value (a factor with `scale`).
    pub low: f64,
    /// High value (a factor with `scale`).
    pub high: f64,
    /// Name on charts and tables (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese name (default: `label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
}

fn yes() -> bool {
    true
}

fn default_replications() -> u32 {
    DEFAULT_REPLICATIONS
}

/// Replications per level of the band unless the scenario or the command line says otherwise.
pub const DEFAULT_REPLICATIONS: u32 = 4;
