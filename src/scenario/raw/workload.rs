//! `[workload]` as written: the group's own job classes, seasons and hourly profile; the
//! job class is also the background's.

use serde::{Deserialize, Serialize};

use super::calendar::{RawSeason, SeasonOverlap};
use super::defaults::zero;
use crate::job::JobKind;
use crate::scenario::dist::DistSpec;

/// `[workload]`: the group's own jobs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    /// Job classes of the group.
    #[serde(default)]
    pub classes: Vec<RawJobClass>,
    /// Seasons multiplying the group's arrival rates (its own deadlines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<RawSeason>,
    /// `max` or `product`.
    #[serde(default)]
    pub season_overlap: SeasonOverlap,
    /// Relative arrival rates by hour: 24 values (hour of day, every day alike) or 168
    /// (hour of week, Monday 00:00 first); normalised to average 1, multiplies the seasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_profile: Option<Vec<f64>>,
    /// The group's Slurm account (default "group"); `[[campus.accounts]]` may give its
    /// fair-share and limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

/// A class of jobs with its arrival rate and size distributions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJobClass {
    /// Name, unique within its list.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// Arrivals per week outside any season.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs_per_week: Option<f64>,
    /// Share of the background's offered load (background with `offered_load` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_share: Option<f64>,
    /// GPUs per job (whole numbers).
    #[serde(default = "one")]
    pub gpus: DistSpec,
    /// Runtime on one campus GPU type, in hours (required unless `requests` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_hours: Option<DistSpec>,
    /// Memory needed per GPU.
    #[serde(default = "zero")]
    pub vram_gb: DistSpec,
    /// Data that must be uploaded before a cloud run.
    #[serde(default = "zero")]
    pub data_gb: DistSpec,
    /// Deadline after submission, in hours; none = no deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_hours: Option<DistSpec>,
    /// Requested walltime ÷ true runtime (≥ 1): what the scheduler believes.
    #[serde(default = "default_walltime_factor")]
    pub walltime_factor: DistSpec,
    /// The requested walltime and the share of it used, drawn together (instead of
    /// `runtime_hours` and `walltime_factor`; [`crate::scenario::requests`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<RawRequests>,
    /// The class's own relative arrival rates by hour (24 or 168, as the list's
    /// `hourly_profile`), instead of its list's profile; the list's seasons still apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_profile: Option<Vec<f64>>,
    /// `cv` or `transformer`.
    #[serde(default)]
    pub kind: JobKind,
    /// Slurm account of a background class (default: one shared account, "others").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Partition the jobs ask for (default: the first partition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// Nodes the jobs ask for (`--nodes`); with `gpus_per_node`, `gpus` must be their product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// GPUs per node the jobs ask for (`--gres=gpu:k`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_per_node: Option<u32>,
}

/// `requests = { hours = […], used_fraction = [[…], …] }` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRequests {
    /// Quantiles of the requested time in hours, at equal steps of probability, ascending.
    pub hours: Vec<f64>,
    /// Rows of quantiles of run time ÷ request, one per equal slice of the request's
    /// probability, each ascending in (0, 1].
    pub used_fraction: Vec<Vec<f64>>,
}

/// The default `walltime_factor` (a class that leaves it out).
pub fn default_walltime_factor() -> DistSpec {
    DistSpec::fixed(1.5)
}

fn one() -> DistSpec {
    DistSpec::fixed(1.0)
}
