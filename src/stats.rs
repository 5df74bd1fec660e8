//! Statistics for honest uncertainty: mean, standard deviation and Student-t 95%
//! confidence intervals across replications, and percentiles within one replication.
//!
//! Inputs are collected in replication order and reduced sequentially, so results do not
//! depend on the number of threads. Missing values (NaN, e.g. a deadline-miss rate in a
//! replication without deadlines) are left out and the count says how many were used.

pub mod binomial;
pub mod queueing;

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and 95% confidence interval of a metric across replications.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Replications with a value.
    pub n: usize,
    /// Sample mean (NaN when `n == 0`).
    pub mean: f64,
    /// Sample standard deviation (n − 1; NaN when `n < 2`).
    pub std_dev: f64,
    /// Half-width of the 95% Student-t interval (NaN when `n < 2`).
    pub half_width: f64,
}

impl Summary {
    /// Lower end of the 95% CI.
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }
    /// Lower end of the 95% CI of a quantity that cannot be negative (a wait, a cost, a
    /// share, a count): the t interval's low end clamped at 0, since no value below 0 is
    /// possible (docs/STATISTICS.md, "Intervals of non-negative quantities"). Not for
    /// paired differences, which may be negative. NaN stays NaN.
    pub fn low_nonneg(&self) -> f64 {
        let low = self.low();
        if low < 0.0 { 0.0 } else { low }
    }
    /// Upper end of the 95% CI.
    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }
    /// Half-width relative to |mean| (infinite when the mean is 0 and the width is not).
    pub fn relative_half_width(&self) -> f64 {
        if self.half_width == 0.0 { 0.0 } else { self.half_width / self.mean.abs() }
    }
    /// Half-width of the two-sided Student-t interval of confidence `confidence` (0.95
    /// gives [`Summary::half_width`]); NaN when `n < 2`.
    pub fn half_width_at(&self, confidence: f64) -> f64 {
        if self.n < 2 {
            return f64::NAN;
        }
        t_quantile(0.5 + confidence / 2.0, self.n - 1) * self.std_dev / (self.n as f64).sqrt()
    }
}

/// How many times wider a t interval at `confidence` is than the 95% one, for `n`
/// replications (`n >= 2`): scales a stored 95% half-width to a corrected level.
pub fn ratio_to_95(confidence: f64, n: usize) -> f64 {
    t_quantile(0.5 + confidence / 2.0, n - 1) / t_975(n - 1)
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
pub fn t_975(df: usize) -> f64 {
    t_quantile(0.975, df)
}

/// The `p`-quantile of Student's t with `df` degrees of freedom (NaN for `df == 0`).
pub fn t_quantile(p: f64, df: usize) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    StudentsT::new(0.0, 1.0, df as f64).expect("df > 0").inverse_cdf(p)
}

/// Summarises the finite values of `values` (sequentially, in the given order).
pub fn summarize(values: &[f64]) -> Summary {
    let mut n = 0usize;
    let mut mean = 0.0;
    let mut m2 = 0.0;
    for &x in values.iter().filter(|x| x.is_finite()) {
        n += 1;
        let d = x - mean;
        mean += d / n as f64;
        m2 += d * (x - mean);
    }
    if n == 0 {
        return Summary { n, mean: f64::NAN, std_dev: f64::NAN, half_width: f64::NAN };
    }
    if n == 1 {
        return Summary { n, mean, std_dev: f64::NAN, half_width: f64::NAN };
    }
    let std_dev = (m2 / (n - 1) as f64).sqrt();
    Summary { n, mean, std_dev, half_width: t_975(n - 1) * std_dev / (n as f64).sqrt() }
}

/// The `p`-quantile (0–1) of sorted data by linear interpolation between order
/// statistics (Hyndman–Fan type 7, as numpy and R default); NaN for no data.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_of_a_non_negative_quantity_stops_at_zero() {
        let s = summarize(&[0.0, 0.1, 2.5]);
        assert!(s.low() < 0.0, "{s:?}");
        assert_eq!(s.low_nonneg(), 0.0);
        assert_eq!(s.high(), s.mean + s.half_width);
        let t = summarize(&[5.0, 5.5, 6.0]);
        assert_eq!(t.low_nonneg(), t.low());
        assert!(summarize(&[1.0]).low_nonneg().is_nan());
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t_975(9) - 2.262157).abs() < 1e-5);
        assert!((t_975(1) - 12.7062).abs() < 1e-3);
        assert!((t_975(1000) - 1.9623).abs() < 1e-3);
        // Two-sided 99% with df = 9 (tables: 3.2498).
        assert!((t_quantile(0.995, 9) - 3.249836).abs() < 1e-5);
    }

    #[test]
    fn summary_of_known_values() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0, f64::NAN]);
        assert_eq!(s.n, 4);
        assert_eq!(s.mean, 2.5);
        assert!((s.std_dev - 1.2909944).abs() < 1e-6);
        assert!((s.half_width - 3.182446 * 1.2909944 / 2.0).abs() < 1e-5);
        assert!(summarize(&[]).mean.is_nan());
        assert!(summarize(&[5.0]).half_width.is_nan());
        assert!((s.half_width_at(0.95) - s.half_width).abs() < 1e-12);
        assert!((s.half_width_at(0.99) - 5.840909 * 1.2909944 / 2.0).abs() < 1e-5);
    }

    #[test]
    fn percentiles_interpolate() {
        let d = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile_sorted(&d, 0.5), 3.0);
        assert_eq!(percentile_sorted(&d, 0.95), 4.8);
        assert_eq!(percentile_sorted(&d, 1.0), 5.0);
        assert!(percentile_sorted(&[], 0.5).is_nan());
    }
}
