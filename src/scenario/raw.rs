//! The scenario file exactly as written: a serde mirror of the TOML with defaults and
//! no logic. Every struct refuses unknown keys, so a misspelt key is an error that names
//! it, never a silent default. `scenario::validate` turns this into a checked
//! [`super::model::Scenario`]; this form is also what `run.toml` writes back (fully resolved).

use serde::{Deserialize, Serialize};

mod background;
mod calendar;
mod campus;
mod cloud;
mod defaults;
mod policy;
mod simulation;
mod workload;

pub use background::{RawBackground, RawTrace, TraceBlock, TraceDraw, TraceMode, TraceUnits};
pub use calendar::{RawSeason, RawWindow, SeasonOverlap};
pub use campus::{
    BfPlanner, FairshareAlgorithm, Placement, PriorityKind, RawAccount, RawCampus, RawDrain, RawMultifactor,
    RawNodeFailures, RawNodeGroup, RawOutages, RawPartition, RawTimeLimit, SchedulerKind,
};
pub use cloud::{BillingMode, Granularity, RawCloud, RawMonths, RawOffer, RawSpeed};
pub use policy::{BudgetPeriod, PolicyKind, RawBudget, RawPolicy, RawRule, WhenFull};
pub use simulation::{CampusModel, RawSimulation};
pub use workload::{RawJobClass, RawRequests, RawWorkload, default_walltime_factor};

/// The whole file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Short name, used for the default output folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One sentence on the question this scenario answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The description in Chinese, for `--lang zh` reports (default: `description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_zh: Option<String>,
    /// Title of the charts and the report (default: `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`; without either, Chinese charts have no scenario prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// Clock, horizon, replications and seed.
    pub simulation: RawSimulation,
    /// The campus cluster.
    pub campus: RawCampus,
    /// Other groups' load on the campus cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<RawBackground>,
    /// The group's own jobs.
    #[serde(default)]
    pub workload: RawWorkload,
    /// Cloud offers.
    #[serde(default)]
    pub cloud: RawCloud,
    /// The policies to compare (default: campus-only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<RawPolicy>,
    /// Sweep parameters (`path = [values]` or `path = "start:stop:step"`), used by
    /// `burstsim sweep`; `burstsim run` ignores them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<toml::Table>,
    /// The sensitivity band of `burstsim run` (`crate::sensitivity`): its replications,
    /// targets and inputs; absent, the documented default ranges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<super::sensitivity::raw::RawSensitivity>,
    /// Inputs to fit and observations to fit them to, used by `burstsim calibrate`;
    /// `burstsim run` and `sweep` ignore them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<super::calibration::RawCalibration>,
}
