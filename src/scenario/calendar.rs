//! The academic calendar: named seasons that multiply arrival rates.
//!
//! Seasons are written as whole days (`2026-10-20` to `2026-11-17`, inclusive) or as
//! month-days that recur every year (`10-20` to `11-17`; a recurring season may wrap the
//! new year, `12-20` to `01-10`). Validation expands them into concrete windows on the
//! simulation clock; here they become a piecewise-constant multiplier. Where seasons
//! overlap, the largest multiplier applies by default (`season_overlap = "max"`), or they
//! multiply (`"product"`); days in no season have multiplier 1.
//!
//! An optional hourly profile (24 hours of a day, or 168 hours of a week from Monday
//! 00:00) multiplies the season multiplier: most jobs are submitted in working hours and
//! few at weekends. The profile is normalised to average 1 over its period, so class rates
//! and offered loads keep their meaning as averages.

use crate::scenario::raw::SeasonOverlap;
use crate::units::{HOUR, SimTime};

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
    /// Time-of-day or time-of-week profile, if any.
    pub profile: Option<HourlyProfile>,
}

/// Relative arrival rates by hour, repeating every day (24 values) or every week (168).
#[derive(Clone, Debug, PartialEq)]
pub struct HourlyProfile {
    /// Multiplier of each hour of the period, averaging 1.
    rates: Vec<f64>,
    /// `cumulative[h]` = Σ rates[..h] (hour-multiplier units), for exact integrals.
    cumulative: Vec<f64>,
    /// Index into `rates` of the hour that starts at clock time 0.
    offset: u64,
}

impl HourlyProfile {
    /// A profile from relative rates (24 or 168 of them, finite, ≥ 0, not all 0), with
    /// `offset` the index of the clock's first hour (for a weekly profile: 24 × the start
    /// date's weekday, Monday = 0). Returns `None` for rates that cannot be normalised.
    pub fn new(rates: &[f64], offset: u64) -> Option<HourlyProfile> {
        let sum: f64 = rates.iter().sum();
        if !matches!(rates.len(), 24 | 168)
            || rates.iter().any(|r| !r.is_finite() || *r < 0.0)
            || !(sum > 0.0 && sum.is_finite())
        {
            return None;
        }
        let mean = sum / rates.len() as f64;
        let rates: Vec<f64> = rates.iter().map(|r| r / mean).collect();
        let mut cumulative = Vec::with_capacity(rates.len() + 1);
        let mut acc = 0.0;
        cumulative.push(acc);
        for r in &rates {
            acc += r;
            cumulative.push(acc);
        }
        let offset = offset % rates.len() as u64;
        Some(HourlyProfile { rates, cumulative, offset })
    }

    fn hour_index(&self, hour: u64) -> usize {
        ((hour + self.offset) % self.rates.len() as u64) as usize
    }

    /// The multiplier in force at `t`.
    pub fn at(&self, t: SimTime) -> f64 {
        self.rates[self.hour_index(t / HOUR)]
    }

    /// ∫ profile over `[0, t)`, in seconds × multiplier.
    fn integral_to(&self, t: SimTime) -> f64 {
        let n = self.rates.len() as u64;
        let (hour, within) = (t / HOUR, t % HOUR);
        let (periods, rest) = (hour / n, hour % n);
        let first = self.offset as usize;
        // Hours [offset, offset + rest) of the period, wrapping at its end.
        let partial = |count: u64| -> f64 {
            let end = first + count as usize;
            if end <= self.rates.len() {
                self.cumulative[end] - self.cumulative[first]
            } else {
                self.cumulative[self.rates.len()] - self.cumulative[first] + self.cumulative[end - self.rates.len()]
            }
        };
        let whole = periods as f64 * n as f64 + partial(rest);
        (whole * HOUR as f64) + within as f64 * self.at(t)
    }

    /// ∫ profile over `[a, b)`, seconds × multiplier.
    fn integral(&self, a: SimTime, b: SimTime) -> f64 {
        self.integral_to(b) - self.integral_to(a)
    }

    /// The largest hourly multiplier.
    pub fn max(&self) -> f64 {
        self.rates.iter().copied().fold(0.0, f64::max)
    }
}

impl Calendar {
    /// A calendar with no seasons (multiplier 1 everywhere).
    pub fn flat() -> Calendar {
        Calendar { seasons: Vec::new(), windows: Vec::new(), pieces: vec![(0, 1.0)], profile: None }
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
        Calendar { seasons, windows, pieces, profile: None }
    }

    /// The same calendar with an hourly profile multiplying the seasons.
    pub fn with_profile(mut self, profile: HourlyProfile) -> Calendar {
        self.profile = Some(profile);
        self
    }

    /// The multiplier in force at `t` (season × hour of the profile).
    pub fn multiplier_at(&self, t: SimTime) -> f64 {
        let i = self.pieces.partition_point(|&(from, _)| from <= t);
        let season = self.pieces[i.saturating_sub(1)].1;
        self.profile.as_ref().map_or(season, |p| season * p.at(t))
    }

    /// An upper bound of the multiplier over `[0, horizon)`: the largest season multiplier
    /// times the profile's largest hour (exact without a profile; thinning needs only a bound).
    pub fn max_multiplier(&self, horizon: SimTime) -> f64 {
        let season = self.pieces.iter().filter(|(from, _)| *from < horizon).map(|p| p.1).fold(0.0, f64::max);
        season * self.profile.as_ref().map_or(1.0, HourlyProfile::max)
    }

    /// The pieces of constant multiplier on `[0, horizon)`, in order: `(start, end,
    /// multiplier)`. Season boundaries, and with a profile every hour boundary, cut
    /// pieces; the pieces before a time do not depend on anything after it.
    pub fn constant_pieces(&self, horizon: SimTime) -> impl Iterator<Item = (SimTime, SimTime, f64)> + '_ {
        let step = if self.profile.is_some() { HOUR } else { SimTime::MAX };
        let mut t = 0;
        let mut piece = 0usize;
        std::iter::from_fn(move || {
            if t >= horizon {
                return None;
            }
            while piece + 1 < self.pieces.len() && self.pieces[piece + 1].0 <= t {
                piece += 1;
            }
            let season_end = self.pieces.get(piece + 1).map_or(SimTime::MAX, |p| p.0);
            let hour_end = if step == SimTime::MAX { SimTime::MAX } else { (t / HOUR + 1) * HOUR };
            let end = season_end.min(hour_end).min(horizon);
            let m = self.multiplier_at(t);
            let out = (t, end, m);
            t = end;
            Some(out)
        })
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
                acc += m * self.profile.as_ref().map_or((b - a) as f64, |p| p.integral(a, b));
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
    fn a_profile_multiplies_the_seasons_and_keeps_the_mean() {
        // Day profile: busy 09–18 (×3 relative to night), starting at hour 0.
        let rates: Vec<f64> = (0..24).map(|h| if (9..18).contains(&h) { 3.0 } else { 1.0 }).collect();
        let p = HourlyProfile::new(&rates, 0).unwrap();
        let mean = (9.0 * 3.0 + 15.0) / 24.0;
        assert!((p.at(10 * HOUR) - 3.0 / mean).abs() < 1e-12);
        let c = cal(SeasonOverlap::Max).with_profile(p.clone());
        // Seconds 10–30 are in season "a" (×2), at night (hour 0); 10:00 is outside the seasons.
        assert!((c.multiplier_at(12) - 2.0 / mean).abs() < 1e-12);
        assert!((c.multiplier_at(10 * HOUR) - 3.0 / mean).abs() < 1e-12);
        assert!((c.max_multiplier(100) - 2.0 * 3.0 / mean).abs() < 1e-12);
        // Over whole days the profile averages 1; over a part-day, the exact integral.
        let flat = Calendar::flat().with_profile(p.clone());
        assert!((flat.mean_multiplier(0, 3 * 86_400) - 1.0).abs() < 1e-12);
        assert!((flat.mean_multiplier(9 * HOUR, 18 * HOUR) - 3.0 / mean).abs() < 1e-12);
        assert!((flat.mean_multiplier(HOUR / 2, 9 * HOUR + HOUR / 2) - (8.5 + 1.5) / 9.0 / mean).abs() < 1e-12);
        // A weekly profile with an offset: clock 0 is Wednesday (offset 48).
        let mut week = vec![1.0; 168];
        week[48] = 8.0;
        let w = HourlyProfile::new(&week, 48).unwrap();
        assert!((w.at(0) / w.at(HOUR) - 8.0).abs() < 1e-12);
        assert!((w.at(7 * 86_400) - w.at(0)).abs() < 1e-12);
        let flat = Calendar::flat().with_profile(w);
        assert!((flat.mean_multiplier(5 * 86_400, 19 * 86_400) - 1.0).abs() < 1e-12);
        // Rates that cannot be a profile.
        assert!(HourlyProfile::new(&[1.0; 23], 0).is_none());
        assert!(HourlyProfile::new(&[0.0; 24], 0).is_none());
        assert!(HourlyProfile::new(&[f64::NAN; 24], 0).is_none());
    }

    #[test]
    fn overlapping_seasons_can_multiply() {
        let c = cal(SeasonOverlap::Product);
        assert_eq!([0, 10, 25, 35].map(|t| c.multiplier_at(t)), [1.0, 2.0, 1.0, 0.5]);
    }
}
