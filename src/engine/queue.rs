//! The event queue and its ordering rule.
//!
//! Events are ordered by the key `(time, class, seq)`:
//! - `time`: whole seconds on the clock;
//! - `class`: at the same second, events that *free* resources come first (job ends),
//!   then changes of capacity (maintenance ends, rentals starting or ending; node failures,
//!   repairs and drains; outages: a job ending at the second its node fails has completed),
//!   then timers (overflow timeouts, end of debugging, patience running out, start delays),
//!   so a timer sees the state after everything that freed GPUs at that second; new
//!   submissions are handled after all of these (they come from the sorted job stream,
//!   not from this queue), and the campus scheduler runs once at the end of the second;
//! - `seq`: insertion order, so equal events are handled first-in first-out.
//!
//! This is the single place where the tie-break rule is stated; the engine relies on it
//! for determinism.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::units::SimTime;

/// Something scheduled to happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A job's segment on the campus ends (completed, or killed at its walltime).
    CampusEnd(u32),
    /// A job's cloud run ends.
    CloudEnd(u32),
    /// A debugging session (guide-hybrid) ends.
    DebugDone(u32),
    /// A maintenance window ends: the campus can start jobs again.
    MaintenanceEnd,
    /// An overflow-timeout policy's deadline for a job to start on campus.
    Timeout(u32),
    /// The horizon: arrivals have stopped; snapshot the backlog.
    Horizon,
    /// A rental of a monthly offer (index) begins: its GPUs exist from now.
    RentalStart(u16),
    /// A rental of a monthly offer (index) ends: it has no GPUs from now.
    RentalEnd(u16),
    /// The campus asked to be scheduled now (a backfill tick, a priority recomputation);
    /// the scheduler runs at the end of every second that has an event anyway.
    CampusTick,
    /// A node fails: its jobs are killed and re-queued.
    NodeDown(u32),
    /// A failed node is repaired.
    NodeUp(u32),
    /// A planned drain (index) begins: its nodes take no new jobs.
    DrainStart(u32),
    /// A planned drain (index) ends.
    DrainEnd(u32),
    /// A whole-cluster outage (index) begins.
    OutageStart(u32),
    /// A whole-cluster outage ends.
    OutageEnd,
    /// A queued job's patience runs out: its user cancels it if it has not started.
    Renege(u32),
    /// A job's minimum start delay has passed: it joins the campus queue.
    Release(u32),
}

impl Event {
    /// The tie-break class (lower runs first at the same second).
    fn class(self) -> u8 {
        match self {
            Event::CampusEnd(_) | Event::CloudEnd(_) => 0,
            Event::MaintenanceEnd
            | Event::RentalStart(_)
            | Event::RentalEnd(_)
            | Event::NodeUp(_)
            | Event::DrainEnd(_)
            | Event::OutageEnd => 1,
            Event::NodeDown(_) | Event::DrainStart(_) | Event::OutageStart(_) => 1,
            Event::DebugDone(_) | Event::Timeout(_) | Event::Renege(_) | Event::Release(_) => 2,
            Event::Horizon | Event::CampusTick => 3,
        }
    }
}

/// A min-queue of events keyed by `(time, class, seq)`.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(SimTime, u8, u64, Event)>>,
    seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse((time, event.class(), self.seq, event)));
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse((t, ..))| *t)
    }

    /// Removes and returns the next event if it happens at `time`.
    pub fn pop_at(&mut self, time: SimTime) -> Option<Event> {
        match self.heap.peek() {
            Some(Reverse((t, ..))) if *t == time => self.heap.pop().map(|Reverse((_, _, _, e))| e),
            _ => None,
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_class_then_insertion() {
        let mut q = EventQueue::new();
        q.push(10, Event::Timeout(1));
        q.push(10, Event::CampusEnd(2));
        q.push(5, Event::Timeout(3));
        q.push(10, Event::CampusEnd(4));
        q.push(10, Event::MaintenanceEnd);
        let mut out = Vec::new();
        while let Some(t) = q.peek_time() {
            while let Some(e) = q.pop_at(t) {
                out.push((t, e));
            }
        }
        assert_eq!(
            out,
            vec![
                (5, Event::Timeout(3)),
                (10, Event::CampusEnd(2)),
                (10, Event::CampusEnd(4)),
                (10, Event::MaintenanceEnd),
                (10, Event::Timeout(1)),
            ]
        );
    }
}
