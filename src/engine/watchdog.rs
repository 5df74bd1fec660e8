//! Bounded work: a replication stops with an error when it does far more work than its
//! jobs can need, and stops at once when the user cancels the run.
//!
//! Validation proves that every job can start somewhere and bounds every interval that
//! drives events (`scenario::feasibility`, `validate/capacity.rs`), so a replication's
//! work is bounded by construction. The watchdog is the net under that proof: should a
//! case slip through, the run ends with a message naming the replication and policy
//! instead of running for ever (issue 27: such runs ignored even SIGTERM).
//!
//! # The budget
//!
//! Events here are the engine loop's steps: each instant it wakes at, plus each event it
//! handles there. A healthy replication needs a handful per job (arrival, start, end, a
//! backfill tick, a walltime resubmission) plus events that come with the clock rather
//! than with jobs: priority recalculations (at most one per simulated minute while jobs
//! wait) and node failures and outages (at most about one per node per simulated hour on
//! average, validation's bound). The budget is
//!
//! ```text
//! EVENTS_PER_JOB × (jobs + 1) + CLOCK_EVENTS_PER_MINUTE × (horizon in minutes)
//!     + FAILURE_EVENTS_PER_NODE_HOUR × (nodes + 1) × (horizon in hours)
//! ```
//!
//! with 1,000 events per job, 8 per simulated minute and 16 per node-hour. The shipped
//! scenarios use 3.0 to 6.7 events per job (one replication of each under every policy,
//! 2026-12-01), so the budget is 150 to 540 times what they need; yet a job stuck for
//! ever, which wakes the scheduler every recalculation period, exhausts it in seconds of
//! wall time (`tests/suite/feasibility.rs`).
//!
//! # Cancellation
//!
//! Every [`POLL_EVERY`] steps the loop calls the caller's `stop`; when it returns true the
//! replication ends with [`Halt::Cancelled`] and its partial results are dropped. Neither
//! check reads or changes anything the simulation computes, so results are bit-identical
//! with and without them.

use crate::units::{HOUR, MINUTE, SimTime};

/// Events allowed per job of the stream.
pub const EVENTS_PER_JOB: u64 = 1_000;
/// Events allowed per simulated minute of the horizon (priority recalculations and other
/// clock-driven wake-ups).
pub const CLOCK_EVENTS_PER_MINUTE: u64 = 8;
/// Events allowed per node and simulated hour of the horizon (failures and repairs,
/// outages).
pub const FAILURE_EVENTS_PER_NODE_HOUR: u64 = 16;
/// Steps between two calls of the cancellation check (an atomic load behind a closure,
/// a few nanoseconds). A step of a saturated node campus (a backfill pass over hundreds
/// of queued jobs) can take tens of microseconds, so 256 steps stay within milliseconds.
pub const POLL_EVERY: u64 = 256;

/// The event budget of one replication of `jobs` jobs on `nodes` nodes up to `horizon`.
pub fn budget(jobs: usize, nodes: u64, horizon: SimTime) -> u64 {
    let per_job = EVENTS_PER_JOB.saturating_mul(jobs as u64 + 1);
    let clock = CLOCK_EVENTS_PER_MINUTE.saturating_mul(horizon.div_ceil(MINUTE));
    let failures = FAILURE_EVENTS_PER_NODE_HOUR.saturating_mul(nodes + 1).saturating_mul(horizon.div_ceil(HOUR));
    per_job.saturating_add(clock).saturating_add(failures)
}

/// Why a replication stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The caller's `stop` turned true (Ctrl-C, SIGTERM).
    Cancelled,
    /// The replication exceeded its event budget.
    Runaway(Runaway),
}

/// A replication that did far more work than its jobs can need (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "replication {replication} of policy '{policy}' stopped after {events} events for {jobs} jobs (its budget, \
     {budget}, is over 100 times what such a run needs) at simulated day {day}: some work never ends, e.g. a job \
     that can never start or an event that repeats without end. Validation should have refused this scenario: \
     please report it with the scenario file"
)]
pub struct Runaway {
    /// The replication.
    pub replication: u64,
    /// The policy's name.
    pub policy: String,
    /// Events done.
    pub events: u64,
    /// The budget.
    pub budget: u64,
    /// Jobs in the stream.
    pub jobs: usize,
    /// Simulated day (from clock 0) when it stopped.
    pub day: u64,
}

/// The step counter of one replication.
pub(crate) struct Watchdog<'s> {
    steps: u64,
    budget: u64,
    stop: &'s (dyn Fn() -> bool + Sync),
}

impl<'s> Watchdog<'s> {
    pub(crate) fn new(budget: u64, stop: &'s (dyn Fn() -> bool + Sync)) -> Watchdog<'s> {
        Watchdog { steps: 0, budget, stop }
    }

    /// Counts `n` steps; `Err` when over budget or cancelled (the latter checked every
    /// [`POLL_EVERY`] steps).
    #[inline]
    pub(crate) fn count(&mut self, n: u64) -> Result<(), Halt> {
        let before = self.steps;
        self.steps += n;
        if self.steps > self.budget {
            return Err(Halt::Runaway(Runaway {
                replication: 0,
                policy: String::new(),
                events: self.steps,
                budget: self.budget,
                jobs: 0,
                day: 0,
            }));
        }
        if before / POLL_EVERY != self.steps / POLL_EVERY && (self.stop)() {
            return Err(Halt::Cancelled);
        }
        Ok(())
    }
}
