//! `[cloud]` as written: the offers, their billing, speed, rentals, transfer and storage
//! terms. Apart from `[[policies]]`, which only name offers.

use serde::{Deserialize, Serialize};

use super::calendar::RawWindow;
use super::defaults::{one_f64, yes, zero};
use crate::scenario::dist::DistSpec;

/// `[cloud]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCloud {
    /// The offers.
    #[serde(default)]
    pub offers: Vec<RawOffer>,
}

/// How an offer is paid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BillingMode {
    /// Pay per GPU-hour used (按量).
    Hourly,
    /// A fixed number of GPUs rented for whole months, paid busy or idle (包月).
    Monthly,
}

/// Billing granularity of an hourly offer: usage is rounded up to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// Per second.
    #[default]
    Second,
    /// Per started minute.
    Minute,
    /// Per started hour.
    Hour,
}

/// Speed of an offer's GPU relative to the campus GPU, per job kind.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawSpeed {
    /// CV jobs.
    pub cv: f64,
    /// Transformer jobs.
    pub transformer: f64,
}

impl Default for RawSpeed {
    fn default() -> Self {
        RawSpeed { cv: 1.0, transformer: 1.0 }
    }
}

/// `rent_months`: month numbers, one month, or a text such as `"4-5"` (a text can be swept).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawMonths {
    /// `[4, 5]`.
    List(Vec<i64>),
    /// `4`.
    One(i64),
    /// `"4-5"`, `"11-2"`, `"4+9-10"`, `"all"` or `"none"`.
    Text(String),
}

/// One `[[cloud.offers]]` entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOffer {
    /// Unique name, referenced by policies.
    pub name: String,
    /// GPU model, for reports.
    pub gpu_type: String,
    /// Memory per GPU.
    pub vram_gb: f64,
    /// Speed relative to the campus GPU.
    #[serde(default)]
    pub speed: RawSpeed,
    /// `hourly` or `monthly`.
    pub billing: BillingMode,
    /// Hourly offers: price per GPU-hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_hour_cny: Option<f64>,
    /// Monthly offers: price per GPU per 30-day month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_month_cny: Option<f64>,
    /// Monthly offers: GPUs rented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<u32>,
    /// Monthly offers: the calendar months rented each year, as numbers (`[4, 5]`) or a
    /// text of months and ranges (`"4-5"`, `"11-2"` across the new year, `"4+9-10"`).
    /// The GPUs exist, and rent is paid, only in these months; left out (and no
    /// `rent_periods`): rented for the whole measured window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_months: Option<RawMonths>,
    /// Monthly offers: rented date ranges (inclusive), besides or instead of `rent_months`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rent_periods: Vec<RawWindow>,
    /// Monthly offers: the shortest rental, in days, when a policy starts one as it needs
    /// it (`rent_when_needed`); default 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_term_days: Option<f64>,
    /// Hourly offers: most GPUs the platform can give at once; none = unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_gpus: Option<u32>,
    /// `second`, `minute` or `hour`; each billing session is rounded up to it.
    #[serde(default)]
    pub granularity: Granularity,
    /// Smallest charge per billing session, in minutes.
    #[serde(default)]
    pub minimum_charge_minutes: f64,
    /// Time from renting to a running instance, in minutes (not billed).
    #[serde(default = "zero")]
    pub startup_delay_minutes: DistSpec,
    /// Upload bandwidth in MB/s: a job's data becomes transfer time before compute.
    /// None = data is already there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_mb_per_s: Option<f64>,
    /// Whether the GPU is billed while the data uploads.
    #[serde(default = "yes")]
    pub upload_billed: bool,
    /// Storage price per GB-day, charged from upload until `retention_days` after the job.
    #[serde(default)]
    pub storage_price_per_gb_day_cny: f64,
    /// Storage each job gets free.
    #[serde(default)]
    pub free_storage_gb: f64,
    /// Days data stays (and is billed) after the job ends.
    #[serde(default)]
    pub retention_days: f64,
    /// Instance interruptions per running hour (platform instability).
    #[serde(default)]
    pub interruption_rate_per_hour: f64,
    /// Hours between checkpoints: an interruption loses the work since the last one.
    #[serde(default = "default_checkpoint")]
    pub checkpoint_interval_hours: f64,
    /// Runtime stretch from slow storage (≥ 1): "full price for half the speed" is 2.
    #[serde(default = "one_f64")]
    pub io_slowdown: f64,
}

fn default_checkpoint() -> f64 {
    1.0
}
