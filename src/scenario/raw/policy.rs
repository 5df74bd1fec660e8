//! `[[policies]]` as written: the kinds, their thresholds and rules, what a job does when
//! its offer is full, and the budget. Apart from `[cloud]`: a policy names offers, it does
//! not describe them.

use serde::{Deserialize, Serialize};

use crate::scenario::dist::DistSpec;

/// Where a job goes when the offer it was sent to has no free GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WhenFull {
    /// Wait in the offer's own queue.
    #[default]
    Wait,
    /// Go to (or stay in) the campus queue.
    Campus,
}

/// The kind of a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyKind {
    /// Every job queues on campus.
    CampusOnly,
    /// Every job goes to the named offers.
    CloudOnly,
    /// Predict the campus wait at submission; above the threshold, go to the cloud.
    OverflowPredicted,
    /// Queue on campus; not started within the threshold, withdraw to the cloud.
    OverflowTimeout,
    /// Monthly-rented GPUs first, then campus with an overflow rule.
    ReservedFirst,
    /// Route by VRAM and GPU count.
    BySize,
    /// A job whose predicted campus completion misses its deadline goes to the cloud.
    DeadlineAware,
    /// The guide's plan: queue on campus, debug on a cheap offer, move the main run to
    /// the cloud if the campus has not started it when debugging ends.
    GuideHybrid,
}

/// A routing rule of a `by-size` policy; the first rule a job matches decides.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// Matches jobs needing at most this much memory per GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_vram_gb: Option<f64>,
    /// Matches jobs with at most this many GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<u32>,
    /// `campus` or an offer name.
    pub target: String,
}

/// Budget period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetPeriod {
    /// Calendar months.
    #[default]
    Month,
    /// Semesters: 1 Sep – end of Feb, and 1 Mar – 31 Aug.
    Semester,
    /// The whole simulated period.
    Horizon,
}

/// A cap on variable cloud spending.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    /// The cap per period.
    pub cap_cny: f64,
    /// `month`, `semester` or `horizon`.
    #[serde(default)]
    pub period: BudgetPeriod,
    /// Fractions of the cap at which an alert is recorded.
    #[serde(default = "default_alerts")]
    pub alerts: Vec<f64>,
}

fn default_alerts() -> Vec<f64> {
    vec![0.5, 0.8, 1.0]
}

/// One `[[policies]]` entry. Which keys apply depends on `kind` (see docs/SCENARIOS.md);
/// a key given to a kind that does not use it is an error.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Unique name, shown in tables and used in sweep paths.
    pub name: String,
    /// Display name in charts, reports and the terminal table (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Chinese display name for `--lang zh` (default: `label`, then the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_zh: Option<String>,
    /// The rule.
    pub kind: PolicyKind,
    /// Cloud offers to use, in order of preference (the first that fits the job).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offers: Vec<String>,
    /// Overflow threshold in hours (predicted or elapsed campus wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_hours: Option<f64>,
    /// `overflow-timeout`: a waiting limit proportional to the job's requested compute,
    /// in hours of waiting per GPU-hour requested (GPUs × walltime request), instead of
    /// the constant `threshold_hours`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_per_gpu_hour: Option<f64>,
    /// With `timeout_per_gpu_hour`: the shortest limit, hours (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_floor_hours: Option<f64>,
    /// With `timeout_per_gpu_hour`: the longest limit, hours (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_cap_hours: Option<f64>,
    /// `reserved-first`: the monthly offer whose GPUs take jobs first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_offer: Option<String>,
    /// `by-size`: routing rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RawRule>,
    /// `guide-hybrid`: the cheap offer used for debugging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_offer: Option<String>,
    /// `guide-hybrid`: how long debugging takes, in hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_hours: Option<DistSpec>,
    /// `guide-hybrid`: the job classes treated as main runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub main_classes: Vec<String>,
    /// What a job does when its offer is full.
    #[serde(default)]
    pub when_cloud_full: WhenFull,
    /// A cap on hourly cloud spending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<RawBudget>,
    /// `guide-hybrid`: its monthly offers are not rented up front; a rental starts (for
    /// the offer's `min_term_days`) when a main job is ready after debugging and the
    /// campus has not started it, and later jobs use the machine until the term ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_when_needed: Option<bool>,
}
