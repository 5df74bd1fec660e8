//! The academic calendar: named seasons that multiply arrival rates.
//!
//! Seasons are written as whole days (`2026-10-20` to `2026-11-17`, inclusive) or as
//! month-days that recur every year (`10-20` to `11-17`; a recurring season may wrap the
//! new year, `12-20` to `01-10`). Validation expands them into concrete windows on the
//! simulation clock; here they become a piecewise-constant multiplier. Where seasons
//! overlap, the largest multiplier applies by default (`season_overlap = "max"`), or they
//! multiply (`"product"`); days in no season have multiplier 1.

use crate::scenario::raw::SeasonOverlap;
use crate::units::SimTime;

/// A season expanded onto the clock: `[start, end)` in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct SeasonWindow {
    /// Index of the season in its list.
    pub season: usize,
    /// First second of the window.
    pub start: SimTime,
    /// First second after the window.
    pub end: SimTime,
    /// Arrival-rate multiplier.
    pub multiplier: f64,
}

/// A named season (for reports and charts).
#[derive(Clone, Debug, PartialEq)]
pub struct Season {
    /// Name from the scenario.
    pub name: String,
    /// Multiplier from the scenario.
    pub multiplier: f64,
}

/// A piecewise-constant arrival-rate multiplier over the horizon.
#[derive(Clone, Debug, PartialEq)]
pub struct Calendar {
    /// The seasons, as named in the scenario.
    pub seasons: Vec<Season>,
    /// Their windows on the clock.
    pub windows: Vec<SeasonWindow>,
    /// `(from, multiplier)` pieces, sorted, the first starting at 0.
    pieces: Vec<(SimTime, f64)>,
}

impl Calendar {
    /// A calendar with no seasons (multiplier 1 everywhere).
    pub fn flat() -> Calendar {
        Calendar { seasons: Vec::new(), windows: Vec::new(), pieces: vec![(0, 1.0)] }
    }

    /// Builds the multiplier from expanded windows.
    pub fn new(seasons: Vec<Season>, windows: Vec<SeasonWindow>, overlap: SeasonOverlap) -> Calendar {
        let mut cuts: Vec<SimTime> = vec![0];
        for w in &windows {
            cuts.push(w.start);
            cuts.push(w.end);
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut pieces: Vec<(SimTime, f64)> = Vec::with_capacity(cuts.len());
        for &c in &cuts {
            let active = windows.iter().filter(|w| w.start <= c && c < w.end).map(|w| w.multiplier);
            let m = match overlap {
                SeasonOverlap::Max => active.fold(None, |acc: Option<f64>, m| Some(acc.map_or(m, |a| a.max(m)))),
                SeasonOverlap::Product => active.fold(None, |acc: Option<f64>, m| Some(acc.unwrap_or(1.0) * m)),
            }
            .unwrap_or(1.0);
            if pieces.last().is_none_or(|&(_, last)| last != m) {
                pieces.push((c, m));
            }
        }
        Calendar { seasons, windows, pieces }
    }

    /// The multiplier in force at `t`.
    pub fn multiplier_at(&self, t: SimTime) -> f64 {
        let i = self.pieces.partition_point(|&(from, _)| from <= t);
        self.pieces[i.saturating_sub(1)].1
    }

    /// The largest multiplier anywhere in `[0, horizon)`.
    pub fn max_multiplier(&self, horizon: SimTime) -> f64 {
        self.pieces.iter().filter(|(from, _)| *from < horizon).map(|p| p.1).fold(0.0, f64::max)
    }

    /// The time-average multiplier over `[from, to)`.
    pub fn mean_multiplier(&self, from: SimTime, to: SimTime) -> f64 {
        if to <= from {
            return self.multiplier_at(from);
        }
        let mut acc = 0.0;
        for (i, &(start, m)) in self.pieces.iter().enumerate() {
            let end = self.pieces.get(i + 1).map_or(SimTime::MAX, |p| p.0);
            let (a, b) = (start.max(from), end.min(to));
            if b > a {
                acc += m * (b - a) as f64;
            }
        }
        acc / (to - from) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cal(overlap: SeasonOverlap) -> Calendar {
        let seasons = vec![Season { name: "a".into(), multiplier: 2.0 }, Season { name: "b".into(), multiplier: 0.5 }];
        let windows = vec![
            SeasonWindow { season: 0, start: 10, end: 30, multiplier: 2.0 },
            SeasonWindow { season: 1, start: 20, end: 40, multiplier: 0.5 },
        ];
        Calendar::new(seasons, windows, overlap)
    }

    #[test]
    fn overlapping_seasons_take_the_maximum_by_default() {
        let c = cal(SeasonOverlap::Max);
        assert_eq!([0, 10, 25, 35, 40].map(|t| c.multiplier_at(t)), [1.0, 2.0, 2.0, 0.5, 1.0]);
        assert_eq!(c.max_multiplier(100), 2.0);
        assert!((c.mean_multiplier(0, 50) - (10.0 + 40.0 + 5.0 + 10.0) / 50.0).abs() < 1e-12);
    }

    #[test]
    fn overlapping_seasons_can_multiply() {
        let c = cal(SeasonOverlap::Product);
        assert_eq!([0, 10, 25, 35].map(|t| c.multiplier_at(t)), [1.0, 2.0, 1.0, 0.5]);
    }
}
