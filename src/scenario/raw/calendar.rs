//! Days and seasons as written, shared by several sections: a closed range of days
//! (`campus.maintenance`, an offer's `rent_periods`) and the named seasons of the
//! workload and the background. Apart so that those sections need not import each other.

use serde::{Deserialize, Serialize};

/// A closed range of whole days, `start` to `end` inclusive.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWindow {
    /// First day, `YYYY-MM-DD`.
    pub start: String,
    /// Last day (inclusive), `YYYY-MM-DD`.
    pub end: String,
}

/// How overlapping seasons combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SeasonOverlap {
    /// The largest multiplier applies (the default).
    #[default]
    Max,
    /// Multipliers multiply.
    Product,
}

/// A named season of the academic calendar.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSeason {
    /// Name, used in sweep paths (`background.seasons.final-exams.multiplier`) and charts.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// First day: `YYYY-MM-DD`, or `MM-DD` to recur every year.
    pub start: String,
    /// Last day (inclusive), in the same form as `start`.
    pub end: String,
    /// Arrival-rate multiplier during the season (1 = normal).
    pub multiplier: f64,
}
