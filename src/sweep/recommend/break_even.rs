//! Monthly against hourly rental: the break-even utilisation from a scenario's own prices,
//! and where along a one-parameter sweep the mean costs of two policies cross. These
//! compare costs and judge no target, so they stand apart from the recommendation.

use super::PointResult;
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::scenario::raw::BillingMode;

/// Monthly vs hourly rental from the scenario's own prices: for each monthly offer and
/// each hourly offer with at least as much memory, the utilisation above which renting
/// monthly is cheaper per unit of work:
///
/// ```text
/// u* = P_month · speed_hourly / (H · P_hour · speed_monthly)
/// ```
/// where H is the hours of an average month of the scenario's measured window (rent is pro
/// rata by day of the calendar month: a year from 1 September has 8,760 h in 12 months, so
/// H = 730 h); speeds per job kind, transformer and CV.
pub fn break_even_lines(scenario: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let hours_per_month = average_month_hours(scenario);
    for m in scenario.offers.iter().filter(|o| o.billing == BillingMode::Monthly) {
        for h in scenario.offers.iter().filter(|o| o.billing == BillingMode::Hourly && o.vram_gb >= m.vram_gb) {
            if h.price_per_gpu_hour_cny <= 0.0 {
                continue;
            }
            let u =
                |sm: f64, sh: f64| m.price_per_gpu_month_cny * sh / (hours_per_month * h.price_per_gpu_hour_cny * sm);
            let (ut, uc) = (u(m.speed_transformer, h.speed_transformer), u(m.speed_cv, h.speed_cv));
            let say = |u: f64| {
                if u >= 1.0 {
                    "never (even fully busy it costs more)".to_string()
                } else {
                    format!("above {:.0}% busy ({:.0} h a month)", u * 100.0, u * hours_per_month)
                }
            };
            out.push(format!(
                "'{}' (¥{}/GPU-month) vs '{}' (¥{}/GPU-h): monthly is cheaper {} for transformer work, {} for CV work",
                m.name,
                m.price_per_gpu_month_cny,
                h.name,
                h.price_per_gpu_hour_cny,
                say(ut),
                say(uc)
            ));
        }
    }
    out
}

/// Hours in an average calendar month of the measured window: the window's hours over the
/// months it covers when each day counts as 1/(days in its month).
pub fn average_month_hours(scenario: &Scenario) -> f64 {
    let clock = scenario.clock();
    let days = scenario.window().div_ceil(crate::units::DAY);
    let months: f64 = (0..days)
        .map(|d| {
            let date = clock.start.add_days(d as i64);
            let covered = (scenario.window() - d * crate::units::DAY).min(crate::units::DAY) as f64 / 86_400.0;
            covered / f64::from(crate::date::days_in_month(date.year(), date.month()))
        })
        .sum();
    scenario.window() as f64 / 3_600.0 / months
}

/// Where, along a one-parameter sweep, the mean total costs of policies `a` and `b` cross.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossing {
    /// The parameter value (linear interpolation between neighbouring points).
    pub value: f64,
    /// The policy that is cheaper below it.
    pub cheaper_below: String,
    /// Monthly-GPU utilisation of each policy there (interpolated; NaN without monthly GPUs).
    pub monthly_utilization: (f64, f64),
}

/// Finds the first crossing of the mean total costs of `a` and `b`.
pub fn crossing(points: &[PointResult], values: &[f64], a: &str, b: &str) -> Option<Crossing> {
    let mean = |pr: &PointResult, p: &str, m: Metric| pr.summaries.get(p, m).map_or(f64::NAN, |r| r.summary.mean);
    let diff = |pr: &PointResult| mean(pr, a, Metric::TotalCost) - mean(pr, b, Metric::TotalCost);
    for i in 1..points.len().min(values.len()) {
        let (d0, d1) = (diff(&points[i - 1]), diff(&points[i]));
        if !(d0.is_finite() && d1.is_finite()) || d0.signum() == d1.signum() && d0 != 0.0 {
            continue;
        }
        let f = if d0 == d1 { 0.0 } else { d0 / (d0 - d1) };
        let lerp = |p: &str| {
            let (u0, u1) =
                (mean(&points[i - 1], p, Metric::MonthlyUtilization), mean(&points[i], p, Metric::MonthlyUtilization));
            u0 + (u1 - u0) * f
        };
        return Some(Crossing {
            value: values[i - 1] + (values[i] - values[i - 1]) * f,
            cheaper_below: if d0 < 0.0 { a.to_string() } else { b.to_string() },
            monthly_utilization: (lerp(a), lerp(b)),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_average_month_of_the_default_year_is_730_hours_and_the_break_even_follows() {
        let scn = Scenario::embedded_default();
        assert!((average_month_hours(&scn) - 8760.0 / 12.0).abs() < 1e-9);
        // A800: ¥2,582 a GPU-month against ¥4.98 a GPU-hour at equal speed: 2582 / (730 × 4.98).
        let lines = break_even_lines(&scn);
        assert!(lines.iter().any(|l| l.contains("above 71% busy (518 h a month)")), "{lines:?}");
    }
}
