//! Exact (Clopper–Pearson) confidence bounds for a binomial proportion, and the
//! Bonferroni correction for choosing among several candidates.
//!
//! Used for "in what share of simulated years does this setting miss the target?": each
//! replication is one independent simulated year, so the number of years that miss is
//! Binomial(n, p) and p is the chance that a given year misses.
//!
//! ```text
//! two-sided 1−α interval for k successes in n trials:
//!   low  = Beta(k, n−k+1).quantile(α/2)      (0 when k = 0)
//!   high = Beta(k+1, n−k).quantile(1−α/2)    (1 when k = n)
//! one-sided 1−α upper bound:
//!   high = Beta(k+1, n−k).quantile(1−α)      (1 when k = n)
//! at k = 0 the upper bound has the closed form 1 − α^(1/n)
//! ```
//! "Exact" means the coverage is at least the nominal level for every p and n (the
//! interval is conservative because the binomial is discrete); it never relies on a
//! normal approximation, which is poor for the small counts (0–3 misses in 20 years)
//! this is used for.

use statrs::distribution::{Beta, ContinuousCDF};

/// The two-sided Clopper–Pearson interval of confidence `confidence` (e.g. 0.95) for
/// `k` successes in `n` trials; `(0, 1)` when `n == 0`.
///
/// # Examples
/// ```
/// use burstsim::stats::binomial::clopper_pearson;
/// let (low, high) = clopper_pearson(5, 10, 0.95);
/// assert!((low - 0.187086).abs() < 1e-6 && (high - 0.812914).abs() < 1e-6);
/// ```
///
/// # Panics
/// If `k > n` or `confidence` is not in (0, 1).
pub fn clopper_pearson(k: usize, n: usize, confidence: f64) -> (f64, f64) {
    check(k, n, confidence);
    let alpha = 1.0 - confidence;
    let low = if k == 0 { 0.0 } else { beta_quantile(k as f64, (n - k + 1) as f64, alpha / 2.0) };
    (low, upper_or_one(k, n, 1.0 - alpha / 2.0))
}

/// The one-sided Clopper–Pearson upper bound of confidence `confidence`: with that
/// probability (at least) the true proportion is at or below it. 1 when `n == 0`.
///
/// # Examples
/// ```
/// use burstsim::stats::binomial::upper_bound;
/// // No miss in 10 years: the chance of a miss may still be 26% (95% confidence).
/// assert!((upper_bound(0, 10, 0.95) - 0.258866).abs() < 1e-6);
/// ```
///
/// # Panics
/// If `k > n` or `confidence` is not in (0, 1).
pub fn upper_bound(k: usize, n: usize, confidence: f64) -> f64 {
    check(k, n, confidence);
    upper_or_one(k, n, confidence)
}

/// The fewest trials for which zero successes give a one-sided upper bound at or below
/// `max_share`, at confidence `confidence`: the smallest n with 1 − (1 − confidence)^(1/n)
/// ≤ `max_share`, i.e. n ≥ ln(1 − confidence) / ln(1 − max_share).
///
/// # Examples
/// ```
/// use burstsim::stats::binomial::trials_needed_at_zero;
/// assert_eq!(trials_needed_at_zero(0.1, 0.95), 29);   // the "rule of three": about 3/0.1
/// ```
///
/// # Panics
/// If `max_share` is not in (0, 1) or `confidence` is not in (0, 1).
pub fn trials_needed_at_zero(max_share: f64, confidence: f64) -> usize {
    assert!(max_share > 0.0 && max_share < 1.0, "a share in (0, 1) is needed");
    assert!(confidence > 0.0 && confidence < 1.0, "a confidence in (0, 1) is needed");
    let n = ((1.0 - confidence).ln() / (1.0 - max_share).ln()).ceil().max(1.0) as usize;
    // Guard against rounding at an exact boundary: step to the true smallest n.
    let bound = |n: usize| 1.0 - (1.0 - confidence).powf(1.0 / n as f64);
    let mut n = n;
    while n > 1 && bound(n - 1) <= max_share {
        n -= 1;
    }
    while bound(n) > max_share {
        n += 1;
    }
    n
}

/// The confidence each of `k` bounds needs so that all of them hold together with
/// confidence at least `family` (Bonferroni: 1 − (1 − family)/k). Bonferroni is valid
/// under any dependence between the bounds, which matters here: with common random
/// numbers every candidate setting is simulated on the same years, so their estimates
/// are strongly correlated.
///
/// # Panics
/// If `k == 0` or `family` is not in (0, 1).
pub fn bonferroni(family: f64, k: usize) -> f64 {
    assert!(k > 0, "at least one candidate");
    assert!(family > 0.0 && family < 1.0, "a confidence in (0, 1) is needed");
    1.0 - (1.0 - family) / k as f64
}

fn check(k: usize, n: usize, confidence: f64) {
    assert!(k <= n, "{k} successes in {n} trials");
    assert!(confidence > 0.0 && confidence < 1.0, "a confidence in (0, 1) is needed");
}

fn upper_or_one(k: usize, n: usize, q: f64) -> f64 {
    if k == n { 1.0 } else { beta_quantile((k + 1) as f64, (n - k) as f64, q) }
}

fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    Beta::new(a, b).expect("shapes are positive").inverse_cdf(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(X ≥ k) and P(X ≤ k) for X ~ Binomial(n, p), by direct summation (independent of
    /// the Beta function the bounds use).
    fn tails(k: usize, n: usize, p: f64) -> (f64, f64) {
        let pmf = |i: usize| {
            let ln_choose: f64 = (1..=i).map(|j| ((n - i + j) as f64 / j as f64).ln()).sum();
            (ln_choose + i as f64 * p.ln() + (n - i) as f64 * (1.0 - p).ln()).exp()
        };
        ((k..=n).map(pmf).sum(), (0..=k).map(pmf).sum())
    }

    #[test]
    fn interval_matches_published_values() {
        // R: binom.test(5, 10)$conf.int = 0.1870860 0.8129140
        let (l, h) = clopper_pearson(5, 10, 0.95);
        assert!((l - 0.187_086_0).abs() < 1e-6 && (h - 0.812_914_0).abs() < 1e-6, "{l} {h}");
        // R: binom.test(1, 10)$conf.int = 0.002528579 0.445016117
        let (l, h) = clopper_pearson(1, 10, 0.95);
        assert!((l - 0.002_528_579).abs() < 1e-8 && (h - 0.445_016_117).abs() < 1e-7, "{l} {h}");
        // R: binom.test(3, 20)$conf.int = 0.03207094 0.37892683
        let (l, h) = clopper_pearson(3, 20, 0.95);
        assert!((l - 0.032_070_94).abs() < 1e-7 && (h - 0.378_926_83).abs() < 1e-7, "{l} {h}");
    }

    #[test]
    fn closed_forms_at_the_edges() {
        // k = 0: upper = 1 − (α/2)^(1/n); k = n: lower = (α/2)^(1/n); k = 1: lower = 1 − (1 − α/2)^(1/n).
        for n in [1, 2, 10, 29, 100] {
            let (l, h) = clopper_pearson(0, n, 0.95);
            assert_eq!(l, 0.0);
            assert!((h - (1.0 - 0.025f64.powf(1.0 / n as f64))).abs() < 1e-9, "n={n}: {h}");
            let (l, h) = clopper_pearson(n, n, 0.95);
            assert_eq!(h, 1.0);
            assert!((l - 0.025f64.powf(1.0 / n as f64)).abs() < 1e-9, "n={n}: {l}");
            let u = upper_bound(0, n, 0.95);
            assert!((u - (1.0 - 0.05f64.powf(1.0 / n as f64))).abs() < 1e-9, "n={n}: {u}");
        }
        assert!((upper_bound(0, 10, 0.95) - 0.258_866).abs() < 1e-6);
        assert_eq!(clopper_pearson(0, 0, 0.95), (0.0, 1.0));
    }

    #[test]
    fn bounds_put_exactly_alpha_in_each_binomial_tail() {
        // The defining property: at the upper bound, P(X ≤ k) = α/2; at the lower, P(X ≥ k) = α/2.
        for (k, n) in [(2, 7), (4, 20), (13, 40), (1, 50)] {
            let (l, h) = clopper_pearson(k, n, 0.95);
            assert!((tails(k, n, l).0 - 0.025).abs() < 1e-9, "k={k} n={n} low={l}");
            assert!((tails(k, n, h).1 - 0.025).abs() < 1e-9, "k={k} n={n} high={h}");
            let u = upper_bound(k, n, 0.99);
            assert!((tails(k, n, u).1 - 0.01).abs() < 1e-9, "k={k} n={n} upper={u}");
        }
    }

    #[test]
    fn trials_needed_at_zero_is_the_smallest_sufficient_n() {
        assert_eq!(trials_needed_at_zero(0.1, 0.95), 29); // ln 0.05 / ln 0.9 = 28.4
        assert!(upper_bound(0, 29, 0.95) <= 0.1 && upper_bound(0, 28, 0.95) > 0.1);
        // Bonferroni over 20 candidates: each at 99.75%, ln 0.0025 / ln 0.9 = 56.9.
        let c = bonferroni(0.95, 20);
        assert!((c - 0.9975).abs() < 1e-12);
        assert_eq!(trials_needed_at_zero(0.1, c), 57);
        assert!(upper_bound(0, 57, c) <= 0.1 && upper_bound(0, 56, c) > 0.1);
        assert_eq!(trials_needed_at_zero(0.5, 0.5), 1);
    }
}
