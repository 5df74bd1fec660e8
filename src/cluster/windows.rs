//! Maintenance windows as both cluster models and both backfill planners read them: a
//! sorted list of disjoint `(start, end)` windows (validation merges overlapping ones, and
//! whole-cluster recurring reservations join them), in which no job may run.
//!
//! Recurring reservations make the list long (two a weekday for a year: ~600 windows), so
//! every query starts with a binary search for the first window not yet over.
//!
//! Time-of-day limits (`[[campus.time_limits]]`, [`TimeLimits`]) also decide when a job may
//! start; [`start_from`] gives the earliest start both allow, which is what a backfill
//! plan and a forecast must use.

use crate::scenario::recurring::{TimeLimits, not_over, runs_into};
use crate::units::SimTime;

/// Whether a job with walltime request `w` may not start at `now`: a window is in
/// progress, or the job could still be running when the next one begins.
pub(super) fn blocks(windows: &[(SimTime, SimTime)], now: SimTime, w: SimTime) -> bool {
    runs_into(windows, now, w)
}

/// The earliest time ≥ `from` at which `[t, t + w)` crosses no window.
pub(super) fn clear_from(windows: &[(SimTime, SimTime)], w: SimTime, from: SimTime) -> SimTime {
    let mut t = from;
    for &(start, end) in not_over(windows, from) {
        if start <= t || t.saturating_add(w) > start {
            t = end;
        } else {
            break;
        }
    }
    t
}

/// The earliest time ≥ `from` at which a job with walltime request `w` crosses no
/// maintenance window and the time-of-day limits let it start (its request within the
/// MaxTime then, and ending in its window where the window demands it). Both searches only
/// move forward, so alternating them until neither moves gives the earliest time both
/// allow. Inlined: the plan asks it at every earliest-start query, and without limits it
/// is [`clear_from`] and one test.
#[inline]
pub(super) fn start_from(windows: &[(SimTime, SimTime)], limits: &TimeLimits, w: SimTime, from: SimTime) -> SimTime {
    let mut t = clear_from(windows, w, from);
    if limits.is_empty() {
        return t;
    }
    loop {
        let allowed = limits.earliest_start(t, w);
        let clear = clear_from(windows, w, allowed);
        if clear == t {
            return t;
        }
        t = clear;
    }
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

    /// Daily from 1970-01-01 (clock 0 = local midnight): 07:00–16:00 at most 4 h and ending
    /// by 16:00; 16:00–07:00 unlimited.
    fn day_and_night() -> TimeLimits {
        use crate::scenario::recurring::{Days, LimitRule};
        let rule = |h: u32, max: Option<SimTime>, end_in_window| LimitRule {
            days: Days::DAILY,
            second_of_day: h * 3600,
            max,
            end_in_window,
        };
        TimeLimits::expand(&[rule(7, Some(4 * 3600), true), rule(16, None, false)], 0, 4, |l| l)
    }

    #[test]
    fn a_start_waits_for_a_window_that_allows_it_and_past_maintenance() {
        const H: SimTime = 3600;
        let tl = day_and_night();
        assert_eq!(start_from(&[], &tl, 2 * H, 8 * H), 8 * H);
        assert_eq!(start_from(&[], &tl, 5 * H, 8 * H), 16 * H, "over the day's MaxTime");
        assert_eq!(start_from(&[], &tl, 3 * H, 14 * H), 16 * H, "would not end by 16:00");
        assert_eq!(start_from(&[(16 * H, 17 * H)], &tl, 3 * H, 14 * H), 17 * H);
        assert_eq!(start_from(&[(20 * H, 31 * H)], &tl, 3 * H, 19 * H), 31 * H, "07:00 next day");
        assert_eq!(start_from(&[(20 * H, 31 * H)], &tl, 5 * H, 19 * H), 40 * H, "then 16:00");
        assert_eq!(start_from(&W, &TimeLimits::default(), 150, 0), clear_from(&W, 150, 0));
    }

    #[test]
    fn the_start_is_the_first_minute_both_allow() {
        const H: SimTime = 3600;
        let tl = day_and_night();
        let maintenance = [(10 * H, 12 * H), (30 * H, 31 * H), (45 * H, 47 * H)];
        let allowed = |t: SimTime, w: SimTime| !blocks(&maintenance, t, w) && tl.may_start(t, w);
        for w in [60, 2 * H, 4 * H, 5 * H, 9 * H] {
            for from in (0..60 * H).step_by(600) {
                let t = start_from(&maintenance, &tl, w, from);
                assert!(allowed(t, w), "w {w}, from {from}: {t} is not allowed");
                let first = (from..=t).step_by(60).find(|&s| allowed(s, w));
                assert_eq!(first, Some(t), "w {w}, from {from}: an earlier minute is allowed");
            }
        }
    }
}
