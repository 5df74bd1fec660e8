//! Offered load: how much GPU work a scenario's arrivals bring to the campus, as a share
//! of its GPUs, over the measured year and in its busiest season.
//!
//! `background.offered_load` is the *annual mean* of the other groups' load: season
//! multipliers and an hourly profile shape it around that mean (validation divides the
//! base rate by the calendar's mean multiplier over the window). These figures are
//! expectations from the scenario, not measurements; the `campus_offered_load` metric
//! measures the same thing on each replication's actual jobs.

use crate::scenario::calendar::Calendar;
use crate::scenario::{JobClass, Scenario};
use crate::units::{HOUR, SimTime};

/// The expected offered load of a scenario (shares of the campus GPUs).
#[derive(Clone, Debug, PartialEq)]
pub struct OfferedLoad {
    /// Other groups' mean load over the measured window (generated classes only).
    pub background_mean: f64,
    /// The group's own mean load, were every job to run on campus.
    pub group_mean: f64,
    /// The season with the highest background load, and that load; `None` without seasons.
    pub peak: Option<(String, f64)>,
    /// Other groups' jobs also come from a log, whose load is not included above.
    pub has_trace: bool,
}

/// GPU-seconds per second at multiplier 1.
fn base_work<'a>(classes: impl IntoIterator<Item = &'a JobClass>) -> f64 {
    // A fold from +0.0, not `sum()`: the float sum of no terms is -0.0, which printed as
    // "the group's own jobs add -0.000" for a scenario without group classes.
    classes
        .into_iter()
        .map(|c| c.rate_per_sec * c.gpus.mean() * c.timing.mean_runtime_h() * HOUR as f64)
        .fold(0.0, |a, b| a + b)
}

/// GPU-seconds per second of `classes` under the multiplier `m` gives each calendar: the
/// classes that follow `list` together, each class with a calendar of its own apart
/// (so a scenario without class profiles sums exactly as before they existed).
fn work_under(classes: &[JobClass], list: &Calendar, m: impl Fn(&Calendar) -> Option<f64>) -> Option<f64> {
    let mut total = base_work(classes.iter().filter(|c| c.calendar.is_none())) * m(list)?;
    for c in classes {
        if let Some(own) = &c.calendar {
            total += base_work([c]) * m(own)?;
        }
    }
    Some(total)
}

/// The mean multiplier of `cal` over the parts of season `season`'s windows inside `[a, b)`.
fn season_mean(cal: &Calendar, season: usize, a: SimTime, b: SimTime) -> Option<f64> {
    let (mut integral, mut len) = (0.0, 0.0);
    for w in cal.windows.iter().filter(|w| w.season == season) {
        let (from, to) = (w.start.max(a), w.end.min(b));
        if to > from {
            integral += cal.mean_multiplier(from, to) * (to - from) as f64;
            len += (to - from) as f64;
        }
    }
    (len > 0.0).then(|| integral / len)
}

/// The expected offered load of `scn`.
pub fn offered_load(scn: &Scenario) -> OfferedLoad {
    let (a, b) = (scn.warmup, scn.horizon);
    let gpus = f64::from(scn.campus.gpus);
    let (bg, cal) = (&scn.background, &scn.background_calendar);
    let mean = |c: &Calendar| Some(c.mean_multiplier(a, b));
    let peak = (0..cal.seasons.len())
        .filter_map(|s| {
            work_under(bg, cal, |c| season_mean(c, s, a, b)).map(|w| (cal.seasons[s].name.clone(), w / gpus))
        })
        .max_by(|x, y| x.1.total_cmp(&y.1));
    OfferedLoad {
        background_mean: work_under(bg, cal, mean).unwrap_or(0.0) / gpus,
        group_mean: work_under(&scn.group, &scn.group_calendar, mean).unwrap_or(0.0) / gpus,
        peak,
        has_trace: scn.background_trace.is_some(),
    }
}

impl std::fmt::Display for OfferedLoad {
    /// One line for the terminal: "campus load from other groups: 0.70 mean over the
    /// measured window, 0.97 in graduation-season (the peak); the group's own jobs add 0.09".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "offered campus load from other groups: {:.2} mean over the measured window", self.background_mean)?;
        if let Some((name, load)) = &self.peak {
            write!(f, ", {load:.2} in {name} (the busiest season)")?;
        }
        if self.has_trace {
            write!(f, " plus the trace's own load")?;
        }
        write!(f, "; the group's own jobs add {:.3} if all run on campus", self.group_mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_without_group_jobs_adds_zero_not_minus_zero() {
        let text = include_str!("../../tests/fixtures/advise/probe-load.toml");
        let scn = Scenario::from_toml_str(text, "probe-load.toml").unwrap();
        assert!(scn.group.is_empty(), "the fixture has no group classes");
        let line = offered_load(&scn).to_string();
        assert!(line.ends_with("the group's own jobs add 0.000 if all run on campus"), "{line}");
    }

    #[test]
    fn offered_load_is_the_annual_mean_and_seasons_shape_it() {
        // The default gives the load on days in no season: the year's mean is higher.
        let scn = Scenario::embedded_default();
        let mean = scn.background_calendar.mean_multiplier(scn.warmup, scn.horizon);
        assert!(mean > 1.1 && mean < 1.3, "{mean}");
        let l = offered_load(&scn);
        assert!((l.background_mean - 0.70 * mean).abs() < 1e-9, "{l:?}");
        let (name, peak) = l.peak.clone().unwrap();
        assert_eq!(name, "graduation-season");
        let grad = scn
            .raw
            .background
            .as_ref()
            .unwrap()
            .seasons
            .iter()
            .find(|s| s.name == "graduation-season")
            .unwrap()
            .multiplier;
        assert!((peak - 0.70 * grad).abs() < 1e-9, "{peak}");
        assert!(l.group_mean > 0.0 && l.group_mean < 0.2);
        // The same scenario with offered_load = 0.70: the year averages exactly 0.70 and
        // graduation season is its multiplier / mean of that.
        let text =
            crate::scenario::DEFAULT_SCENARIO.replace("offered_load_outside_seasons = 0.70", "offered_load = 0.70");
        let annual = offered_load(&Scenario::from_toml_str(&text, "annual.toml").unwrap());
        assert!((annual.background_mean - 0.70).abs() < 1e-9, "{annual:?}");
        assert!((annual.peak.unwrap().1 - 0.70 * grad / mean).abs() < 1e-9);
    }
}
