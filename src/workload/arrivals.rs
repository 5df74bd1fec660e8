//! Arrival times: Poisson, and non-homogeneous Poisson under a season calendar.
//!
//! The non-homogeneous process is sampled exactly by a time change (Çinlar's method):
//! the points of a unit-rate Poisson process, E₁ < E₂ < … (sums of Exp(1) gaps), are
//! mapped through the inverse of the integrated rate Λ(t) = λ ∫₀ᵗ m(s) ds, walking the
//! calendar's pieces of constant multiplier forward. Arrival k is Λ⁻¹(E_k).
//!
//! Why not thinning: with thinning every candidate point at the peak rate consumes random
//! numbers, so changing one season's multiplier (a sweep of exam intensity) changes the
//! peak and shifts every arrival of the year, even months before that season. With the
//! time change, Λ(t) before a season does not depend on it, so every arrival before the
//! season is bit-identical whatever its multiplier (common random numbers across sweep
//! points; tested in tests/suite/crn.rs). It also draws one number per job instead of
//! peak ÷ mean numbers.

use rand_distr::{Distribution, Exp1};

use crate::rng::SimRng;
use crate::scenario::calendar::Calendar;
use crate::units::SimTime;

/// Arrival times in `[0, horizon)` (whole seconds, non-decreasing) of a Poisson process
/// with base rate `rate_per_sec` modulated by `calendar`.
pub fn nonhomogeneous_poisson(
    rate_per_sec: f64,
    calendar: &Calendar,
    horizon: SimTime,
    rng: &mut SimRng,
) -> Vec<SimTime> {
    if rate_per_sec.is_nan() || rate_per_sec <= 0.0 {
        return Vec::new();
    }
    let expected = rate_per_sec * calendar.mean_multiplier(0, horizon) * horizon as f64;
    let mut out = Vec::with_capacity((expected * 1.05) as usize + 16);
    let mut pieces = calendar.constant_pieces(horizon);
    // Integrated rate at the start of the current piece, and the piece.
    let mut at_start = 0.0_f64;
    let Some(mut piece) = pieces.next() else { return out };
    let mut target: f64 = Exp1.sample(rng);
    loop {
        let (start, end, m) = piece;
        let rate = rate_per_sec * m;
        let at_end = at_start + rate * (end - start) as f64;
        if target < at_end && rate > 0.0 {
            // The arrival lies in this piece: invert the linear integral.
            let t = start as f64 + (target - at_start) / rate;
            out.push((t as SimTime).clamp(start, end - 1));
            let gap: f64 = Exp1.sample(rng);
            target += gap;
            continue;
        }
        at_start = at_end;
        match pieces.next() {
            Some(p) => piece = p,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, stream};
    use crate::scenario::calendar::{Season, SeasonWindow};
    use crate::scenario::raw::SeasonOverlap;
    use crate::units::DAY;

    #[test]
    fn counts_follow_the_calendar() {
        // Rate 1 per minute; days 10–20 at ×3, days 30–40 at ×0.5.
        let seasons =
            vec![Season { name: "peak".into(), multiplier: 3.0 }, Season { name: "low".into(), multiplier: 0.5 }];
        let windows = vec![
            SeasonWindow { season: 0, start: 10 * DAY, end: 20 * DAY, multiplier: 3.0 },
            SeasonWindow { season: 1, start: 30 * DAY, end: 40 * DAY, multiplier: 0.5 },
        ];
        let cal = Calendar::new(seasons, windows, SeasonOverlap::Max);
        let mut rng = stream(3, 0, Purpose::Test(1));
        let times = nonhomogeneous_poisson(1.0 / 60.0, &cal, 50 * DAY, &mut rng);
        let per_day = 1440.0;
        let count = |a: u64, b: u64| times.iter().filter(|&&t| t >= a * DAY && t < b * DAY).count() as f64;
        // Poisson counts: relative sd of a 10-day count at 1440/day is about 0.8%.
        for (a, b, m) in [(0, 10, 1.0), (10, 20, 3.0), (20, 30, 1.0), (30, 40, 0.5), (40, 50, 1.0)] {
            let expected = per_day * 10.0 * m;
            let got = count(a, b);
            assert!((got - expected).abs() < 4.0 * expected.sqrt(), "days {a}-{b}: {got} vs {expected}");
        }
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn counts_follow_an_hourly_profile_inside_a_season() {
        // 1 per minute on average; working hours (09–18) four times as busy as the rest,
        // and days 20–40 at ×2: the hour-of-day counts follow profile × season.
        use crate::scenario::calendar::HourlyProfile;
        use crate::units::HOUR;
        let rates: Vec<f64> = (0..24).map(|h| if (9..18).contains(&h) { 4.0 } else { 1.0 }).collect();
        let profile = HourlyProfile::new(&rates, 0).unwrap();
        let windows = vec![SeasonWindow { season: 0, start: 20 * DAY, end: 40 * DAY, multiplier: 2.0 }];
        let cal = Calendar::new(vec![Season { name: "busy".into(), multiplier: 2.0 }], windows, SeasonOverlap::Max)
            .with_profile(profile);
        let mut rng = stream(5, 0, Purpose::Test(2));
        let times = nonhomogeneous_poisson(1.0 / 60.0, &cal, 60 * DAY, &mut rng);
        let mean_rate = (9.0 * 4.0 + 15.0) / 24.0;
        for (days, m) in [((0, 20), 1.0), ((20, 40), 2.0)] {
            for (hours, r) in [((9, 18), 4.0), ((0, 9), 1.0)] {
                let got = times
                    .iter()
                    .filter(|&&t| {
                        (days.0 * DAY..days.1 * DAY).contains(&t) && (hours.0..hours.1).contains(&((t % DAY) / HOUR))
                    })
                    .count() as f64;
                let expected = 60.0 * (hours.1 - hours.0) as f64 * 20.0 * m * r / mean_rate;
                assert!(
                    (got - expected).abs() < 4.0 * expected.sqrt(),
                    "days {days:?} hours {hours:?}: {got} vs {expected}"
                );
            }
        }
    }
}
