//! Daily time series: time-weighted averages of levels (queued GPUs, busy GPUs) and daily
//! sums of costs, for `timeseries.csv` and the academic-year chart.

use crate::units::{DAY, SimTime};

/// A piecewise-constant level integrated over time, per day of the measured window and
/// over the whole window. Day 0 starts at the window's start (the start date's midnight);
/// the warm-up before it is not recorded.
#[derive(Clone, Debug)]
pub struct DailyLevel {
    value: f64,
    since: SimTime,
    /// Integral (value × seconds) per day of the measured window.
    per_day: Vec<f64>,
    window: (SimTime, SimTime),
    /// Integral over the measured window.
    in_window: f64,
}

impl DailyLevel {
    /// A level of 0 from time 0, recorded for `days` days from the start of the measured
    /// window `window`.
    pub fn new(days: usize, window: (SimTime, SimTime)) -> DailyLevel {
        DailyLevel { value: 0.0, since: 0, per_day: vec![0.0; days], window, in_window: 0.0 }
    }

    /// Integrates the current value up to `now`.
    pub fn advance(&mut self, now: SimTime) {
        if now <= self.since {
            return;
        }
        if self.value != 0.0 {
            let (a, b) = (self.since.max(self.window.0), now.min(self.window.1));
            if b > a {
                self.in_window += self.value * (b - a) as f64;
            }
            let origin = self.window.0;
            let mut t = self.since.max(origin);
            let end = now.min(origin + self.per_day.len() as SimTime * DAY);
            while t < end {
                let day = ((t - origin) / DAY) as usize;
                let stop = end.min(origin + (day as SimTime + 1) * DAY);
                self.per_day[day] += self.value * (stop - t) as f64;
                t = stop;
            }
        }
        self.since = now;
    }

    /// Sets a new value from `now` on.
    pub fn set(&mut self, now: SimTime, value: f64) {
        self.advance(now);
        self.value = value;
    }

    /// The current value.
    pub fn value(&self) -> f64 {
        self.value
    }

    /// Time-average over the measured window (after [`DailyLevel::advance`] to its end).
    pub fn window_mean(&self) -> f64 {
        let len = self.window.1.saturating_sub(self.window.0);
        if len == 0 { 0.0 } else { self.in_window / len as f64 }
    }

    /// Time-average per day.
    pub fn daily_means(&self) -> Vec<f64> {
        self.per_day.iter().map(|v| v / DAY as f64).collect()
    }
}

/// Daily series of one replication of one policy over the measured window (index = day
/// from the start date).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Daily {
    /// Mean GPUs requested by jobs waiting on campus.
    pub campus_queue_gpus: Vec<f64>,
    /// Mean busy campus GPUs.
    pub campus_busy_gpus: Vec<f64>,
    /// Mean busy cloud GPUs (all offers, incl. debugging).
    pub cloud_busy_gpus: Vec<f64>,
    /// The group's spending that day: each measured job's charges on the day they are
    /// billed (the window's last day for jobs that end after it), monthly rent pro rata by
    /// day of its calendar month. Sums to the run's total cost.
    pub cost_cny: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_count_from_the_window_start_and_skip_the_warm_up() {
        let mut l = DailyLevel::new(2, (DAY, 3 * DAY));
        l.set(0, 1.0);
        l.set(DAY + DAY / 2, 3.0);
        l.advance(3 * DAY);
        assert_eq!(l.daily_means(), vec![2.0, 3.0]);
        assert_eq!(l.window_mean(), 2.5);
    }

    #[test]
    fn integrates_across_day_boundaries() {
        let mut l = DailyLevel::new(3, (0, 3 * DAY));
        l.set(DAY / 2, 2.0);
        l.set(DAY + DAY / 2, 4.0);
        l.advance(3 * DAY);
        assert_eq!(l.daily_means(), vec![1.0, 3.0, 4.0]);
        assert_eq!(l.window_mean(), (2.0 * 0.5 + 2.0 * 0.5 + 4.0 * 1.5) / 3.0);
    }
}
