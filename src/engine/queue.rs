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
    heap: BinaryHeap<Reverse<Keyed>>,
    seq: u64,
}

/// An event with its key `(time, class, seq)` packed into one `u128`: the time in the
/// high 64 bits, the class in the next 2 and the insertion number in the low 62. The
/// order of the packed keys is the order of the tuples, and keys are unique (the
/// insertion number is), so the heap never compares the event itself: one integer
/// comparison per sift step instead of a tuple's (the heap was ~10% of a node-model run;
/// docs/PERFORMANCE.md).
#[derive(Clone, Copy, Debug)]
struct Keyed {
    key: u128,
    event: Event,
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Insertion numbers fit in the key's low 62 bits.
const SEQ_BITS: u32 = 62;

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        debug_assert!(self.seq < 1 << SEQ_BITS, "invariant: insertion numbers fit their bits");
        let key = u128::from(time) << 64 | u128::from(event.class()) << SEQ_BITS | u128::from(self.seq);
        self.heap.push(Reverse(Keyed { key, event }));
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(k)| (k.key >> 64) as SimTime)
    }

    /// Removes and returns the next event if it happens at `time`.
    pub fn pop_at(&mut self, time: SimTime) -> Option<Event> {
        match self.heap.peek() {
            Some(Reverse(k)) if (k.key >> 64) as SimTime == time => self.heap.pop().map(|Reverse(k)| k.event),
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
