//! `requests`: a job class's requested walltime and the share of it its jobs use, drawn
//! together (docs/SCENARIOS.md, "Requests drawn with the run time").
//!
//! A class gives either `runtime_hours` and `walltime_factor`, drawn independently of each
//! other, or `requests`, which keeps what a log shows about the two together:
//!
//! ```toml
//! requests = { hours = [0.1, 1, 4, 4, 15], used_fraction = [[0.01, 0.5, 1], [0.2, 0.9, 1]] }
//! ```
//!
//! Each job draws `u` uniform in [0, 1); its requested time is the quantile function of
//! `hours` at `u` (linear between the listed quantiles, which are at equal steps of
//! probability, so repeated values, a site's limits, keep their mass); the row of
//! `used_fraction` is the `u`-slice it falls in (row k of K covers `[k/K, (k+1)/K)`); a
//! second uniform draw gives the used fraction from that row's quantile function; run
//! time = request × fraction. The request is kept to the second, so a 4-h request is a
//! 4-h request to the scheduler. `burstsim fit` writes this form from a log's recorded
//! requests (`src/evidence/fit.rs`).

use rand::RngExt;

/// Why a `requests` table is refused; each variant names the field and the rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestsError {
    /// Fewer than two quantiles of the requested time.
    #[error("'hours' needs at least two quantiles (the smallest and the largest request), found {0}")]
    TooFewHours(usize),
    /// A requested time outside (0, ten years].
    #[error("'hours' value {0} is not allowed; requested times must be more than 0 and at most 87600 hours")]
    HoursOutOfRange(f64),
    /// Quantiles of the requested time out of order.
    #[error("'hours' must be ascending (quantiles at equal steps of probability); {0} comes after {1}")]
    HoursNotAscending(f64, f64),
    /// No row of used fractions.
    #[error("'used_fraction' needs at least one row of quantiles")]
    NoRows,
    /// An empty row of used fractions.
    #[error("'used_fraction' row {0} is empty; give at least one quantile of run time ÷ request")]
    EmptyRow(usize),
    /// A used fraction outside (0, 1].
    #[error("'used_fraction' row {0} value {1} is not allowed; run time ÷ request must be more than 0 and at most 1")]
    FractionOutOfRange(usize, f64),
    /// A row of used fractions out of order.
    #[error("'used_fraction' row {0} must be ascending; {1} comes after {2}")]
    FractionNotAscending(usize, f64, f64),
}

/// Longest request allowed, hours (ten years, the cap on sampled run times).
const MAX_HOURS: f64 = 24.0 * 3650.0;

/// The validated `requests` table of a class.
#[derive(Clone, Debug, PartialEq)]
pub struct Requests {
    hours: Vec<f64>,
    used_fraction: Vec<Vec<f64>>,
    mean_runtime_h: f64,
}

impl Requests {
    /// Checks the quantiles and computes the mean run time.
    ///
    /// # Errors
    /// [`RequestsError`] naming the field and the rule broken.
    pub fn new(hours: Vec<f64>, used_fraction: Vec<Vec<f64>>) -> Result<Requests, RequestsError> {
        if hours.len() < 2 {
            return Err(RequestsError::TooFewHours(hours.len()));
        }
        if let Some(&h) = hours.iter().find(|h| !(h.is_finite() && **h > 0.0 && **h <= MAX_HOURS)) {
            return Err(RequestsError::HoursOutOfRange(h));
        }
        if let Some(w) = hours.windows(2).find(|w| w[1] < w[0]) {
            return Err(RequestsError::HoursNotAscending(w[1], w[0]));
        }
        if used_fraction.is_empty() {
            return Err(RequestsError::NoRows);
        }
        for (i, row) in used_fraction.iter().enumerate() {
            if row.is_empty() {
                return Err(RequestsError::EmptyRow(i));
            }
            if let Some(&f) = row.iter().find(|f| !(f.is_finite() && **f > 0.0 && **f <= 1.0)) {
                return Err(RequestsError::FractionOutOfRange(i, f));
            }
            if let Some(w) = row.windows(2).find(|w| w[1] < w[0]) {
                return Err(RequestsError::FractionNotAscending(i, w[1], w[0]));
            }
        }
        let k = used_fraction.len() as f64;
        // E[run time] = Σ_k P(slice k) E[request | slice k] E[fraction | row k]
        // = Σ_k ∫ over slice k of the request quantile function × mean of row k.
        let mean_runtime_h = used_fraction
            .iter()
            .enumerate()
            .map(|(i, row)| integral(&hours, i as f64 / k, (i + 1) as f64 / k) * integral(row, 0.0, 1.0))
            .sum();
        Ok(Requests { hours, used_fraction, mean_runtime_h })
    }

    /// The requested time's quantiles, hours.
    pub fn hours(&self) -> &[f64] {
        &self.hours
    }

    /// The rows of used-fraction quantiles, one per slice of the request's probability.
    pub fn used_fraction(&self) -> &[Vec<f64>] {
        &self.used_fraction
    }

    /// The mean run time in hours (exact for the interpolated quantile functions).
    pub fn mean_runtime_h(&self) -> f64 {
        self.mean_runtime_h
    }

    /// Draws (request in hours, run time ÷ request) with two uniform draws, in that order.
    pub fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        let u = rng.random::<f64>();
        let k = ((u * self.used_fraction.len() as f64) as usize).min(self.used_fraction.len() - 1);
        (quantile(&self.hours, u), quantile(&self.used_fraction[k], rng.random::<f64>()))
    }
}

/// The quantile function through `q` (values at probabilities 0, 1/(n−1), …, 1, linear
/// between them) at `u`.
pub fn quantile(q: &[f64], u: f64) -> f64 {
    if q.len() == 1 {
        return q[0];
    }
    let h = u.clamp(0.0, 1.0) * (q.len() - 1) as f64;
    let i = (h.floor() as usize).min(q.len() - 2);
    q[i] + (h - i as f64) * (q[i + 1] - q[i])
}

/// ∫ from `a` to `b` of the quantile function through `q` ([`quantile`]), 0 ≤ a ≤ b ≤ 1.
fn integral(q: &[f64], a: f64, b: f64) -> f64 {
    if q.len() == 1 {
        return q[0] * (b - a);
    }
    let n = (q.len() - 1) as f64;
    (0..q.len() - 1)
        .map(|i| {
            let (lo, hi) = ((i as f64 / n).max(a), ((i + 1) as f64 / n).min(b));
            if hi > lo { (hi - lo) * 0.5 * (quantile(q, lo) + quantile(q, hi)) } else { 0.0 }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_mean_run_time_is_the_mean_of_many_draws() {
        let r = Requests::new(vec![0.5, 1.0, 4.0, 4.0, 15.0], vec![vec![0.1, 1.0], vec![0.5], vec![0.2, 0.4, 1.0]])
            .unwrap();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let n = 200_000;
        let mean = (0..n).map(|_| r.sample(&mut rng)).map(|(h, f)| h * f).sum::<f64>() / f64::from(n);
        assert!((mean / r.mean_runtime_h() - 1.0).abs() < 0.01, "{mean} vs {}", r.mean_runtime_h());
    }

    #[test]
    fn repeated_quantiles_keep_their_mass_and_slices_pick_their_row() {
        // Half the requests are exactly 4 h; those jobs (slice 1 of 2) use all of it.
        let r = Requests::new(vec![1.0, 4.0, 4.0], vec![vec![0.5], vec![1.0]]).unwrap();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2);
        let draws: Vec<(f64, f64)> = (0..10_000).map(|_| r.sample(&mut rng)).collect();
        let at_4h = draws.iter().filter(|d| d.0 == 4.0).count() as f64 / 1e4;
        assert!((at_4h - 0.5).abs() < 0.02, "{at_4h}");
        assert!(draws.iter().all(|&(h, f)| if h < 4.0 { f == 0.5 } else { f == 1.0 }));
    }

    #[test]
    fn bad_tables_are_refused_naming_the_rule() {
        let e = |h: Vec<f64>, f: Vec<Vec<f64>>| Requests::new(h, f).unwrap_err().to_string();
        assert!(e(vec![1.0], vec![vec![1.0]]).contains("at least two quantiles"));
        assert!(e(vec![0.0, 1.0], vec![vec![1.0]]).contains("more than 0"));
        assert!(e(vec![2.0, 1.0], vec![vec![1.0]]).contains("ascending"));
        assert!(e(vec![1.0, 2.0], vec![]).contains("at least one row"));
        assert!(e(vec![1.0, 2.0], vec![vec![]]).contains("row 0 is empty"));
        assert!(e(vec![1.0, 2.0], vec![vec![1.5]]).contains("at most 1"));
        assert!(e(vec![1.0, 2.0], vec![vec![0.5, 0.2]]).contains("row 0 must be ascending"));
    }
}
