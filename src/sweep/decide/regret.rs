//! The uncertainty of a regret: cost(d, s) − cost(best, s) with a 95% interval, and the
//! rule that calls a decision "equivalent" to the best.
//!
//! Every point of a sweep runs the same seed and replication indices, so year r of one
//! decision and year r of another at the same scenario point faced the same workload
//! (common random numbers). The interval is then the Student-t interval of the mean of
//! the per-year differences (**paired**), much narrower than comparing the two means as
//! if independent. When the per-year costs are not available for both (a folder written
//! by an older burstsim) or the two were not run on the same years, the interval is
//! Welch's (unpaired), and it is labelled so.

use crate::stats::{Summary, summarize, t_quantile};
use crate::sweep::recommend::YearCosts;

/// A decision within this share of the best cost at a scenario point is equivalent to it.
pub const EQUIVALENT_SHARE: f64 = 0.02;

/// How a regret's interval was formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// The best decision itself: regret 0, no interval.
    Best,
    /// Paired over this many simulated years (common random numbers).
    Paired(usize),
    /// Welch's unpaired interval (the per-year costs could not be paired).
    Welch,
}

impl Pairing {
    /// The `regret_interval` column of `decisions.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Pairing::Best => "",
            Pairing::Paired(_) => "paired",
            Pairing::Welch => "welch-unpaired",
        }
    }
}

/// A regret with its 95% interval (NaN ends without one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regret {
    /// Mean cost difference to the best at the scenario point (CNY).
    pub mean: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
    /// How the interval was formed.
    pub pairing: Pairing,
}

impl Regret {
    /// The best decision's own regret.
    pub fn zero() -> Regret {
        Regret { mean: 0.0, low: 0.0, high: 0.0, pairing: Pairing::Best }
    }

    /// Whether a decision with this regret is equivalent to the best whose mean cost is
    /// `best_cost`: within [`EQUIVALENT_SHARE`] of it, or its interval reaches 0 (the data
    /// do not show it dearer).
    pub fn equivalent(&self, best_cost: f64) -> bool {
        self.mean <= EQUIVALENT_SHARE * best_cost.abs() || self.low <= 0.0
    }

    /// "95% CI -567 to 3,035, paired over 20 years" (empty for the best itself).
    pub fn interval_text(&self, cny: impl Fn(f64) -> String) -> String {
        match self.pairing {
            Pairing::Best => String::new(),
            _ if !self.low.is_finite() => "no interval: fewer than 2 years".into(),
            Pairing::Paired(n) => format!("95% CI {} to {}, paired over {n} years", cny(self.low), cny(self.high)),
            Pairing::Welch => format!(
                "95% CI {} to {}, Welch, unpaired: the per-year costs could not be paired",
                cny(self.low),
                cny(self.high)
            ),
        }
    }

    /// "1,234 CNY (95% CI -567 to 3,035, paired over 20 years)".
    pub fn text(&self, cny: impl Fn(f64) -> String) -> String {
        match self.interval_text(&cny) {
            i if i.is_empty() => format!("{} CNY", cny(self.mean)),
            i => format!("{} CNY ({i})", cny(self.mean)),
        }
    }
}

/// The per-year costs of `policy` at a point, by replication.
fn years<'a>(costs: &'a [YearCosts], policy: &str) -> Option<&'a [(u64, f64)]> {
    costs.iter().find(|c| c.policy == policy).map(|c| c.years.as_slice()).filter(|y| !y.is_empty())
}

/// The regret of decision `a` (its policy's per-year costs among `a_costs`, its mean-cost
/// summary `a_sum`) against the best `b`: paired over the years both ran, else Welch.
pub fn regret(
    (a_policy, a_costs, a_sum): (&str, &[YearCosts], &Summary),
    (b_policy, b_costs, b_sum): (&str, &[YearCosts], &Summary),
) -> Regret {
    if let (Some(x), Some(y)) = (years(a_costs, a_policy), years(b_costs, b_policy)) {
        let mut x = x.to_vec();
        let mut y = y.to_vec();
        x.sort_by_key(|p| p.0);
        y.sort_by_key(|p| p.0);
        if x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| p.0 == q.0) {
            let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p.1 - q.1).collect();
            let s = summarize(&d);
            return Regret { mean: s.mean, low: s.low(), high: s.high(), pairing: Pairing::Paired(s.n) };
        }
    }
    welch(a_sum, b_sum)
}

/// Welch's 95% interval of the difference of two means (Welch–Satterthwaite degrees of
/// freedom, rounded down: slightly conservative).
pub fn welch(a: &Summary, b: &Summary) -> Regret {
    let mean = a.mean - b.mean;
    if a.n < 2 || b.n < 2 {
        return Regret { mean, low: f64::NAN, high: f64::NAN, pairing: Pairing::Welch };
    }
    let (va, vb) = (a.std_dev.powi(2) / a.n as f64, b.std_dev.powi(2) / b.n as f64);
    let se = (va + vb).sqrt();
    let hw = if se == 0.0 {
        0.0
    } else {
        let df = (va + vb).powi(2) / (va.powi(2) / (a.n - 1) as f64 + vb.powi(2) / (b.n - 1) as f64);
        t_quantile(0.975, (df.floor() as usize).max(1)) * se
    };
    Regret { mean, low: mean - hw, high: mean + hw, pairing: Pairing::Welch }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(policy: &str, v: &[f64]) -> Vec<YearCosts> {
        vec![YearCosts { policy: policy.into(), years: v.iter().enumerate().map(|(i, x)| (i as u64, *x)).collect() }]
    }

    /// Two decisions whose costs swing together from year to year: the paired interval
    /// sees the steady difference of 10, the unpaired one drowns it in the swings.
    #[test]
    fn common_random_numbers_make_the_paired_interval_narrow() {
        let b = [100.0, 300.0, 150.0, 500.0, 250.0];
        let a: Vec<f64> = b.iter().enumerate().map(|(i, x)| x + 10.0 + (i % 2) as f64).collect();
        let (ca, cb) = (costs("a", &a), costs("b", &b));
        let (sa, sb) = (summarize(&a), summarize(&b));
        let paired = regret(("a", &ca, &sa), ("b", &cb, &sb));
        assert_eq!(paired.pairing, Pairing::Paired(5));
        assert!((paired.mean - 10.4).abs() < 1e-9);
        assert!(paired.low > 9.0 && paired.high < 12.0, "{paired:?}");
        assert!(!paired.equivalent(100.0), "10.4 is over 2% of 100 and the interval excludes 0");
        let unpaired = welch(&sa, &sb);
        assert!(unpaired.low < 0.0 && unpaired.high > 100.0, "{unpaired:?}");
        assert!(unpaired.equivalent(100.0), "the interval reaches 0");
        // Welch by hand: equal n and variances give df = 2(n − 1) = 4.
        let (x, y) = (summarize(&[1.0, 2.0, 3.0]), summarize(&[2.0, 3.0, 4.0]));
        let w = welch(&x, &y);
        let t4 = t_quantile(0.975, 4);
        assert!((w.mean + 1.0).abs() < 1e-12 && (w.high - w.mean - t4 * (2.0f64 / 3.0).sqrt()).abs() < 1e-9, "{w:?}");
    }

    #[test]
    fn years_that_do_not_match_are_not_paired() {
        let ca = costs("a", &[1.0, 2.0, 3.0]);
        let cb = costs("b", &[1.0, 2.0]);
        let (sa, sb) = (summarize(&[1.0, 2.0, 3.0]), summarize(&[1.0, 2.0]));
        assert_eq!(regret(("a", &ca, &sa), ("b", &cb, &sb)).pairing, Pairing::Welch);
        assert_eq!(regret(("a", &[], &sa), ("b", &cb, &sb)).pairing, Pairing::Welch);
        // Within 2% of the best cost is equivalent even when the interval excludes 0.
        let r = Regret { mean: 1.5, low: 1.0, high: 2.0, pairing: Pairing::Paired(20) };
        assert!(r.equivalent(100.0) && !r.equivalent(50.0));
    }
}
