//! Capacity that fails, schedulers that cycle, users who give up (issue 14): the checked
//! model of `[campus.node_failures]`, `[[campus.drains]]`, `[campus.outages]`,
//! `campus.scheduler_cycle_seconds`, `campus.min_start_delay_seconds` and the accounts'
//! patience and balking keys. Every part is off unless the scenario names it; the engine
//! (`engine/capacity.rs`) acts on it.

use super::dist::Sampler;
use crate::units::SimTime;

/// Everything that takes capacity away or delays starts (all off by default).
#[derive(Clone, Debug, Default)]
pub struct Capacity {
    /// Per-node failures and repairs (node placement only).
    pub node_failures: Option<NodeFailures>,
    /// Planned drains of some nodes, sorted by start.
    pub drains: Vec<Drain>,
    /// Random whole-cluster outages.
    pub outages: Option<Outages>,
    /// Fixed whole-cluster outage windows `[start, end)` that stop the scheduler but kill
    /// nothing (a replay's inferred outages; no TOML key), sorted and disjoint.
    pub outage_windows: Vec<(SimTime, SimTime)>,
    /// The scheduler passes only at multiples of this (0: at every event).
    pub cycle: SimTime,
    /// A job joins the queue this long after its submission.
    pub min_start_delay: SimTime,
}

impl Capacity {
    /// Whether any part is on (the capacity metrics are then written).
    pub fn any(&self) -> bool {
        self.node_failures.is_some()
            || !self.drains.is_empty()
            || self.outages.is_some()
            || !self.outage_windows.is_empty()
            || self.cycle > 0
            || self.min_start_delay > 0
    }
}

/// Per-node failures.
#[derive(Clone, Debug)]
pub struct NodeFailures {
    /// Hours between a node's repair and its next failure.
    pub between_h: Sampler,
    /// Hours of repair.
    pub repair_h: Sampler,
    /// Campus checkpoint interval (`None`: only segment boundaries are checkpoints).
    pub checkpoint: Option<SimTime>,
}

/// A planned drain: the nodes take no new jobs on `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drain {
    /// Start.
    pub start: SimTime,
    /// End.
    pub end: SimTime,
    /// Node indices (in node-group order).
    pub nodes: Vec<u32>,
}

/// Random whole-cluster outages.
#[derive(Clone, Debug)]
pub struct Outages {
    /// Hours from one outage's end to the next outage.
    pub between_h: Sampler,
    /// Hours an outage lasts.
    pub duration_h: Sampler,
    /// Whether running jobs are killed (else only the scheduler stops).
    pub kills_jobs: bool,
}

/// An account's patience and balking.
#[derive(Clone, Debug, Default)]
pub struct Patience {
    /// Hours a queued job waits before it is cancelled.
    pub patience_h: Option<Sampler>,
    /// Not submitted when the queue holds more than this many GPU-hours of requests.
    pub balk_gpu_hours: Option<f64>,
    /// Not submitted when the forecast start is further away than this.
    pub balk_wait: Option<SimTime>,
}

impl Patience {
    /// Whether any of it is on.
    pub fn any(&self) -> bool {
        self.patience_h.is_some() || self.balk_gpu_hours.is_some() || self.balk_wait.is_some()
    }
}
