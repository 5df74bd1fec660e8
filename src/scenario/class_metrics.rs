//! Which per-class metrics a scenario records (`report_wait_thresholds_h` decides the
//! "waited longer than t" shares): plain settings of the scenario, read by the metrics
//! that fill them ([`crate::metrics::class`]).

use crate::write::num;

/// The name of the rows that cover every group job.
pub const ALL_CLASSES: &str = "(all classes)";

/// The per-class metrics of a scenario: fixed ones, and one "waited longer than t" share
/// per reporting threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassMetricSet {
    /// The reporting thresholds, hours, ascending.
    pub thresholds_h: Vec<f64>,
}

/// The fixed metrics before the thresholds, with units.
const HEAD: [(&str, &str); 6] = [
    ("jobs_completed", "jobs"),
    ("wait_mean_h", "h"),
    ("wait_p50_h", "h"),
    ("wait_p90_h", "h"),
    ("wait_p95_h", "h"),
    ("wait_p99_h", "h"),
];
/// The fixed metrics after the thresholds, with units.
const TAIL: [(&str, &str); 13] = [
    ("turnaround_mean_h", "h"),
    ("deadline_miss_rate", "share"),
    ("cloud_job_share", "share"),
    ("variable_cost_cny", "CNY"),
    ("jobs_submitted", "jobs"),
    ("jobs_completed_campus", "jobs"),
    ("jobs_completed_cloud", "jobs"),
    ("jobs_reneged", "jobs"),
    ("jobs_balked", "jobs"),
    ("jobs_unfinished", "jobs"),
    ("reneged_share", "share"),
    ("balked_share", "share"),
    ("cloud_gpu_hour_share", "share"),
];

impl ClassMetricSet {
    /// Metric names and units, in column order.
    pub fn names(&self) -> Vec<(String, &'static str)> {
        let mut v: Vec<(String, &'static str)> = HEAD.iter().map(|&(n, u)| (n.to_string(), u)).collect();
        v.extend(self.thresholds_h.iter().map(|&t| (Self::threshold_name(t), "share")));
        v.extend(TAIL.iter().map(|&(n, u)| (n.to_string(), u)));
        v
    }

    /// The name of the "waited longer than `t` hours" share: `wait_over_4h_share`.
    pub fn threshold_name(t: f64) -> String {
        format!("wait_over_{}h_share", num(t))
    }

    /// Number of metrics.
    pub fn len(&self) -> usize {
        HEAD.len() + self.thresholds_h.len() + TAIL.len()
    }

    /// True when there are no metrics (never: the fixed ones are always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Index of a metric by name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names().iter().position(|(n, _)| n == name)
    }
}
