//! Maximum-likelihood fits of positive data (runtimes) to the lognormal, gamma and
//! Weibull families, with the Akaike information criterion and the Kolmogorov–Smirnov
//! statistic of each fit.
//!
//! ```text
//! lognormal  μ = mean(ln x), σ² = mean((ln x − μ)²)                         (closed form)
//! gamma      ln k − ψ(k) = ln(mean x) − mean(ln x), θ = mean(x)/k            (Newton on k)
//! Weibull    Σ xᵏ ln x / Σ xᵏ − 1/k = mean(ln x), λ = (mean xᵏ)^(1/k)        (bisection on ln k)
//! AIC = 2·2 − 2·ln L (two parameters each);  KS D = supₓ |Fₙ(x) − F(x)|
//! ```
//! The family with the smallest AIC is chosen ([`best`]), or the smallest AIC among the
//! fits that keep the data's mean within 20% ([`best_with_mean`], what `fit` uses). With tens of thousands of jobs every
//! family is rejected by a formal KS test (and runtimes recorded in whole seconds or
//! minutes have ties), so D is reported as a distance, not as a p-value.

use statrs::function::erf::erfc;
use statrs::function::gamma::{digamma, gamma_lr, ln_gamma};

use crate::scenario::dist::{DistSpec, DistTable};

/// A fitted family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// ln X ~ Normal(μ, σ²); parameters (μ, σ).
    Lognormal,
    /// Shape k, scale θ.
    Gamma,
    /// Shape k, scale λ.
    Weibull,
}

impl Family {
    /// Lowercase name as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Family::Lognormal => "lognormal",
            Family::Gamma => "gamma",
            Family::Weibull => "weibull",
        }
    }
}

/// One maximum-likelihood fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The family.
    pub family: Family,
    /// First parameter (μ for lognormal, shape k otherwise).
    pub a: f64,
    /// Second parameter (σ for lognormal, scale otherwise).
    pub b: f64,
    /// Maximised log-likelihood.
    pub log_likelihood: f64,
    /// Akaike information criterion, 4 − 2 ln L.
    pub aic: f64,
    /// Kolmogorov–Smirnov distance to the data.
    pub ks: f64,
}

impl Fit {
    /// The cumulative distribution function.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        match self.family {
            Family::Lognormal => 0.5 * erfc(-(x.ln() - self.a) / (self.b * std::f64::consts::SQRT_2)),
            Family::Gamma => gamma_lr(self.a, x / self.b),
            Family::Weibull => 1.0 - (-(x / self.b).powf(self.a)).exp(),
        }
    }

    /// The mean of the fitted distribution.
    pub fn mean(&self) -> f64 {
        match self.family {
            Family::Lognormal => (self.a + self.b * self.b / 2.0).exp(),
            Family::Gamma => self.a * self.b,
            Family::Weibull => self.b * ln_gamma(1.0 + 1.0 / self.a).exp(),
        }
    }

    /// The fit as a scenario distribution spec (lognormal by mean and cv).
    pub fn spec(&self) -> DistSpec {
        match self.family {
            Family::Lognormal => DistSpec::lognormal(self.mean(), ((self.b * self.b).exp() - 1.0).sqrt()),
            Family::Gamma => DistSpec(DistTable::Gamma { shape: self.a, scale: self.b }),
            Family::Weibull => DistSpec(DistTable::Weibull { shape: self.a, scale: self.b }),
        }
    }
}

/// Fits all three families to the positive, finite values of `data` (others are
/// ignored); `None` with fewer than two distinct values.
pub fn fit_all(data: &[f64]) -> Option<[Fit; 3]> {
    let mut x: Vec<f64> = data.iter().copied().filter(|v| v.is_finite() && *v > 0.0).collect();
    x.sort_by(f64::total_cmp);
    if x.len() < 2 || x[0] == x[x.len() - 1] {
        return None;
    }
    Some([lognormal(&x), gamma(&x), weibull(&x)])
}

/// The fit with the smallest AIC.
pub fn best(fits: &[Fit; 3]) -> Fit {
    *fits.iter().min_by(|a, b| a.aic.total_cmp(&b.aic)).expect("three fits")
}

/// Largest relative gap between a fit's mean and the data's mean for
/// [`best_with_mean`] to accept it.
pub const MEAN_TOLERANCE: f64 = 0.2;

/// The fit with the smallest AIC among those whose mean is within [`MEAN_TOLERANCE`] of
/// `data_mean`; if none is, the fit whose mean is closest. Likelihood rewards the bulk
/// of short jobs, and a family can win it with a tail so heavy that its mean (hence the
/// number of jobs a load implies) is far from the log's; this keeps the mean honest.
pub fn best_with_mean(fits: &[Fit; 3], data_mean: f64) -> Fit {
    let gap = |f: &Fit| (f.mean() / data_mean - 1.0).abs();
    fits.iter()
        .filter(|f| gap(f) <= MEAN_TOLERANCE)
        .min_by(|a, b| a.aic.total_cmp(&b.aic))
        .or_else(|| fits.iter().min_by(|a, b| gap(a).total_cmp(&gap(b))))
        .copied()
        .expect("three fits")
}

fn finish(family: Family, a: f64, b: f64, ll: f64, sorted: &[f64]) -> Fit {
    let mut f = Fit { family, a, b, log_likelihood: ll, aic: 4.0 - 2.0 * ll, ks: 0.0 };
    f.ks = ks(sorted, |v| f.cdf(v));
    f
}

/// KS distance of sorted data to a CDF (ties handled by comparing at each distinct value).
pub fn ks(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    let mut d: f64 = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let v = sorted[i];
        let mut j = i;
        while j < sorted.len() && sorted[j] == v {
            j += 1;
        }
        let f = cdf(v);
        d = d.max((f - i as f64 / n).abs()).max((j as f64 / n - f).abs());
        i = j;
    }
    d
}

fn lognormal(x: &[f64]) -> Fit {
    let n = x.len() as f64;
    let mu = x.iter().map(|v| v.ln()).sum::<f64>() / n;
    let var = x.iter().map(|v| (v.ln() - mu).powi(2)).sum::<f64>() / n;
    let sigma = var.sqrt().max(1e-12);
    let sum_ln: f64 = x.iter().map(|v| v.ln()).sum();
    let ll = -sum_ln - n * (sigma.ln() + 0.5 * (2.0 * std::f64::consts::PI).ln()) - n * var / (2.0 * sigma * sigma);
    finish(Family::Lognormal, mu, sigma, ll, x)
}

/// ψ′(x) by recurrence to x ≥ 10 and the asymptotic series.
fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x + x2 / 2.0 + (1.0 / 6.0 - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 / 30.0))) * x2 / x
}

fn gamma(x: &[f64]) -> Fit {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let mean_ln = x.iter().map(|v| v.ln()).sum::<f64>() / n;
    let s = (mean.ln() - mean_ln).max(1e-12);
    let mut k = (3.0 - s + ((s - 3.0).powi(2) + 24.0 * s).sqrt()) / (12.0 * s);
    for _ in 0..100 {
        let g = k.ln() - digamma(k) - s;
        let dg = 1.0 / k - trigamma(k);
        let next = k - g / dg;
        let next = if next > 0.0 && next.is_finite() { next } else { k / 2.0 };
        if (next - k).abs() <= 1e-12 * k {
            k = next;
            break;
        }
        k = next;
    }
    let theta = mean / k;
    let ll = (k - 1.0) * mean_ln * n - n * mean / theta - n * (k * theta.ln() + ln_gamma(k));
    finish(Family::Gamma, k, theta, ll, x)
}

fn weibull(x: &[f64]) -> Fit {
    let n = x.len() as f64;
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let big = lx.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean_ln = lx.iter().sum::<f64>() / n;
    // Σ x^k, Σ x^k ln x scaled by e^(−k·big) (cancels in the ratio; avoids overflow).
    let sums = |k: f64| {
        let (mut s0, mut s1) = (0.0, 0.0);
        for &l in &lx {
            let w = (k * (l - big)).exp();
            s0 += w;
            s1 += w * l;
        }
        (s0, s1)
    };
    let g = |k: f64| {
        let (s0, s1) = sums(k);
        s1 / s0 - 1.0 / k - mean_ln
    };
    let (mut lo, mut hi) = (1e-3f64.ln(), 1e3f64.ln());
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid.exp()) > 0.0 { hi = mid } else { lo = mid }
    }
    let k = (0.5 * (lo + hi)).exp();
    let (s0, _) = sums(k);
    // λ = (Σ x^k / n)^(1/k) = e^big · (s0 / n)^(1/k)
    let lambda = (big + (s0 / n).ln() / k).exp();
    let ll = n * k.ln() - n * k * lambda.ln() + (k - 1.0) * mean_ln * n
        - x.iter().map(|v| (v / lambda).powf(k)).sum::<f64>();
    finish(Family::Weibull, k, lambda, ll, x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, stream};
    use rand_distr::{Distribution, Gamma, LogNormal, Weibull};

    fn sample<D: Distribution<f64>>(d: D, n: usize) -> Vec<f64> {
        let mut rng = stream(3, 0, Purpose::Test(7));
        (0..n).map(|_| d.sample(&mut rng)).collect()
    }

    #[test]
    fn each_family_recovers_its_own_parameters_and_wins_aic() {
        let cases = [
            (Family::Lognormal, sample(LogNormal::new(0.5, 1.2).unwrap(), 20_000), (0.5, 1.2)),
            (Family::Gamma, sample(Gamma::new(0.6, 3.0).unwrap(), 20_000), (0.6, 3.0)),
            (Family::Weibull, sample(Weibull::new(2.0, 0.7).unwrap(), 20_000), (0.7, 2.0)),
        ];
        for (family, data, (a, b)) in cases {
            let fits = fit_all(&data).unwrap();
            let f = best(&fits);
            assert_eq!(f.family, family, "{fits:?}");
            assert!((f.a - a).abs() < 0.04 * a.abs().max(1.0) && (f.b - b).abs() < 0.04 * b, "{f:?}");
            assert!(f.ks < 0.02, "{f:?}");
        }
    }

    #[test]
    fn specs_have_the_fitted_mean() {
        let data = sample(Gamma::new(0.6, 3.0).unwrap(), 5000);
        for f in fit_all(&data).unwrap() {
            let s = f.spec().sampler().unwrap();
            assert!((s.mean() - f.mean()).abs() < 1e-9 * f.mean(), "{f:?}");
        }
        assert!(fit_all(&[1.0, 1.0, 0.0]).is_none());
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-10);
    }

    #[test]
    fn ks_of_a_perfect_fit_is_one_over_n() {
        let data: Vec<f64> = (1..=100).map(|i| i as f64 / 100.0).collect();
        assert!((ks(&data, |x| x) - 0.01).abs() < 1e-12);
    }
}
