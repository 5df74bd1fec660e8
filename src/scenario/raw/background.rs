//! `[background]` as written: the other groups' load (classes, seasons, hourly profile)
//! and `[background.trace]`, a real log as part of it. Apart from `[workload]` because the
//! trace keys are the background's alone.

use serde::{Deserialize, Serialize};

use super::calendar::{RawSeason, SeasonOverlap};
use super::defaults::one_f64;
use super::workload::RawJobClass;

/// `[background]`: the other groups.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBackground {
    /// Offered load as the *mean over the measured window*, a fraction of campus GPU
    /// capacity (what a measured annual utilisation is): the seasons and hourly profile
    /// shape the load around this mean. When given (or `offered_load_outside_seasons`),
    /// each class's arrival rate follows from its `load_share`; otherwise each class needs
    /// `jobs_per_week`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_load: Option<f64>,
    /// Offered load on days in no season (multiplier 1), a fraction of capacity: the
    /// seasons raise or lower it from there, so the annual mean differs (it is printed).
    /// Give this or `offered_load`, not both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_load_outside_seasons: Option<f64>,
    /// The other groups' job classes.
    #[serde(default)]
    pub classes: Vec<RawJobClass>,
    /// A real cluster log as (part of) the other groups' load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<RawTrace>,
    /// Seasons multiplying the other groups' arrival rates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<RawSeason>,
    /// `max` or `product`.
    #[serde(default)]
    pub season_overlap: SeasonOverlap,
    /// Relative arrival rates by hour: 24 values (hour of day, every day alike) or 168
    /// (hour of week, Monday 00:00 first); normalised to average 1, multiplies the seasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_profile: Option<Vec<f64>>,
}

/// How a trace feeds the background.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceMode {
    /// Each replication is a different resample of whole days or weeks of the log.
    #[default]
    Bootstrap,
    /// The log as it was, from its first submission (every replication sees the same jobs).
    Replay,
}

/// Block length of the bootstrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceBlock {
    /// Whole days (keeps the daily rhythm).
    Day,
    /// Whole weeks (keeps the daily and the weekly rhythm).
    #[default]
    Week,
}

/// How a bootstrap draws the log's blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceDraw {
    /// From the same part of the year (within `season_window_weeks`); needs a log with
    /// calendar dates.
    Season,
    /// Uniformly from the whole log, whatever the time of year.
    Uniform,
}

/// What a trace's job sizes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceUnits {
    /// GPUs when the log has GPU counts, else processors.
    #[default]
    Auto,
    /// Processors.
    Procs,
    /// GPUs.
    Gpus,
}

/// `[background.trace]`: other groups' jobs from a real log (SWF, sacct or CSV).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    /// The log file, relative to the scenario file (run.toml records it absolute).
    pub path: String,
    /// `swf`, `sacct` or `csv`; detected from the name and content when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// CSV logs: a preset name (`alibaba-openb-2023`, `alibaba-dlrm-2025`) or a table of
    /// column names (see docs/TRACES.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<toml::Value>,
    /// `bootstrap` (default) or `replay`.
    #[serde(default)]
    pub mode: TraceMode,
    /// `week` (default) or `day`.
    #[serde(default)]
    pub block: TraceBlock,
    /// Bootstrap only: `season` or `uniform`. Left out: `season` when the log has
    /// calendar dates, else `uniform` (with a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<TraceDraw>,
    /// Bootstrap with `draw = "season"`: each block comes from within ± this many weeks
    /// (plus half a block) of its place in the year; 0 = the same week or day of the
    /// year. Left out: 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_window_weeks: Option<u32>,
    /// `auto`, `procs` or `gpus`.
    #[serde(default)]
    pub units: TraceUnits,
    /// Processors (or GPUs) of the log per simulated GPU; sizes are divided and rounded up.
    #[serde(default = "one_f64")]
    pub procs_per_gpu: f64,
    /// Load scale: below 1 each job is kept with this probability; above 1 (bootstrap
    /// only) independent resamples are superposed (the whole part, plus one more thinned
    /// to the fractional part).
    #[serde(default = "one_f64")]
    pub scale: f64,
    /// Replay only: skip this many days at the start of the log (time shift).
    #[serde(default)]
    pub skip_days: f64,
    /// Jobs of this user in the log are the group's own (routed by the policy, measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_user: Option<String>,
    /// Jobs of this account/group in the log are the group's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_account: Option<String>,
}
