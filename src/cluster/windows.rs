//! Maintenance windows as both cluster models and both backfill planners read them: a
//! sorted list of disjoint `(start, end)` windows (validation merges overlapping ones, and
//! whole-cluster recurring reservations join them), in which no job may run.
//!
//! Recurring reservations make the list long (two a weekday for a year: ~600 windows), so
//! every query starts with a binary search for the first window not yet over.

use crate::units::SimTime;

/// Whether a job with walltime request `w` may not start at `now`: a window is in
/// progress, or the job could still be running when the next one begins.
pub(super) fn blocks(windows: &[(SimTime, SimTime)], now: SimTime, w: SimTime) -> bool {
    let i = windows.partition_point(|&(_, end)| end <= now);
    windows.get(i).is_some_and(|&(start, _)| start <= now || now.saturating_add(w) > start)
}

/// The earliest time ≥ `from` at which `[t, t + w)` crosses no window.
pub(super) fn clear_from(windows: &[(SimTime, SimTime)], w: SimTime, from: SimTime) -> SimTime {
    let mut t = from;
    for &(start, end) in &windows[windows.partition_point(|&(_, end)| end <= from)..] {
        if start <= t || t.saturating_add(w) > start {
            t = end;
        } else {
            break;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: [(SimTime, SimTime); 3] = [(100, 200), (250, 300), (1000, 1100)];

    #[test]
    fn a_job_waits_past_every_window_it_would_cross() {
        assert_eq!(clear_from(&W, 10, 0), 0);
        assert_eq!(clear_from(&W, 150, 0), 300); // crosses [100, 200); 50 s before the next
        assert_eq!(clear_from(&W, 40, 150), 200);
        assert_eq!(clear_from(&W, 60, 150), 300);
        assert_eq!(clear_from(&W, 10, 1100), 1100);
        assert_eq!(clear_from(&[], 10, 5), 5);
    }

    #[test]
    fn blocking_now_is_clearing_later() {
        for now in 0..1200 {
            for w in [1, 40, 60, 150, 800] {
                assert_eq!(blocks(&W, now, w), clear_from(&W, w, now) != now, "now {now}, w {w}");
            }
        }
    }
}
