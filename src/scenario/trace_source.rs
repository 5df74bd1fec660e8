//! Other groups' jobs from a real log (`[background.trace]`), read and converted once
//! when the scenario is checked: plain data the workload draws each replication from
//! (`crate::workload` replays or block-bootstraps it).

use crate::job::Job;
use crate::units::SimTime;

/// Other groups' jobs from a real log, converted once when the scenario is loaded.
#[derive(Clone, Debug)]
pub struct TraceSource {
    /// The log's jobs on its own clock (0 = first submission), sorted, all background.
    pub jobs: Vec<Job>,
    /// End of the log's period (last submission + 1 s).
    pub extent: SimTime,
    /// Bootstrap block boundary on the log's clock (aligned to local midnight / weekday).
    pub phase: SimTime,
    /// Replay or bootstrap.
    pub mode: crate::scenario::raw::TraceMode,
    /// Block length.
    pub block: crate::trace::bootstrap::BlockLength,
    /// Bootstrap: the season window in weeks (blocks come from the same part of the year),
    /// or `None` for uniform draws over the whole log.
    pub season_window_weeks: Option<u32>,
    /// Local time (seconds since 1970-01-01 local) of the jobs' clock 0, when the log has
    /// calendar dates.
    pub origin_local: Option<i64>,
    /// Draws are uniform only because the log has no dates and `draw` was left out (a
    /// warning says the seasons are scrambled).
    pub undated: bool,
    /// FNV-1a hash of the log file's bytes (part of the scenario hash).
    pub content_hash: u64,
    /// Load scale (1 = as logged).
    pub scale: f64,
}
