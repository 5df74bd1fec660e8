//! Time on the simulation clock and conversions at the boundaries.
//!
//! The engine counts whole seconds from the start of the warm-up, which ends at midnight
//! of the scenario's start date ([`SimTime`], see [`crate::date::Clock`]); nothing inside a replication accumulates floating-point time, so event
//! order never depends on rounding. Hours, days and CNY appear only at the edges: in
//! scenario keys (`_hours`, `_days`) and in output columns (`_h`, `_cny`).

/// A point on the simulation clock: whole seconds since the warm-up began (the start
/// date's midnight is clock time `warmup`).
pub type SimTime = u64;

/// One minute, in clock seconds.
pub const MINUTE: SimTime = 60;
/// One hour, in clock seconds.
pub const HOUR: SimTime = 3_600;
/// One day, in clock seconds.
pub const DAY: SimTime = 86_400;

/// Converts a duration in hours (from a scenario) to whole clock seconds, rounding to the
/// nearest second and never below `min_seconds`.
pub fn hours_to_secs(hours: f64, min_seconds: SimTime) -> SimTime {
    let s = (hours * HOUR as f64).round();
    if s.is_nan() || s < min_seconds as f64 {
        min_seconds
    } else if s >= u64::MAX as f64 / 4.0 {
        u64::MAX / 4
    } else {
        s as SimTime
    }
}

/// Converts clock seconds to hours for reporting.
pub fn secs_to_hours(secs: SimTime) -> f64 {
    secs as f64 / HOUR as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_round_to_nearest_second_with_a_floor() {
        assert_eq!(hours_to_secs(1.0, 1), 3600);
        assert_eq!(hours_to_secs(0.5 / 3600.0, 1), 1);
        assert_eq!(hours_to_secs(0.0, 1), 1);
        assert_eq!(hours_to_secs(f64::NAN, 7), 7);
        assert_eq!(secs_to_hours(5400), 1.5);
    }
}
