//! Distribution specs in scenario files and the samplers built from them.
//!
//! Every random quantity in a scenario (runtimes, GPU counts, data sizes, start-up
//! delays, …) is a [`DistSpec`]. A plain number means a fixed value; a table names a
//! `kind` and its parameters:
//!
//! ```toml
//! runtime_hours = { kind = "lognormal", mean = 8.0, cv = 1.0 }
//! gpus = { kind = "choice", values = [1, 2, 4], weights = [0.6, 0.3, 0.1] }
//! data_gb = 50
//! ```
//!
//! A spec is checked once, when the scenario is validated, and turned into a [`Sampler`]
//! wrapping rand_distr; the engine then samples without further checks.

use rand::RngExt;
use rand_distr::{Distribution, Exp, Gamma, LogNormal, Weibull};
use serde::{Deserialize, Serialize};

/// A distribution as written in a scenario file (a number means `fixed`).
#[derive(Clone, Debug, PartialEq)]
pub struct DistSpec(pub DistTable);

/// The table form of a distribution spec; `kind` selects the family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
#[allow(missing_docs, reason = "each field is a TOML key that its variant's doc names")]
pub enum DistTable {
    /// Always `value`.
    Fixed { value: f64 },
    /// Exponential with the given mean.
    Exponential { mean: f64 },
    /// Log-normal given by its mean and coefficient of variation (std dev / mean).
    Lognormal { mean: f64, cv: f64 },
    /// Gamma with shape k and scale θ (mean kθ).
    Gamma { shape: f64, scale: f64 },
    /// Weibull with shape k and scale λ.
    Weibull { shape: f64, scale: f64 },
    /// Uniform on [low, high).
    Uniform { low: f64, high: f64 },
    /// One of `values`, with probabilities proportional to `weights`.
    Choice { values: Vec<f64>, weights: Vec<f64> },
    /// One of `samples`, each equally likely (resampling observed values).
    Empirical { samples: Vec<f64> },
}

impl DistSpec {
    /// A fixed value.
    pub fn fixed(value: f64) -> DistSpec {
        DistSpec(DistTable::Fixed { value })
    }
    /// An exponential distribution with the given mean.
    pub fn exponential(mean: f64) -> DistSpec {
        DistSpec(DistTable::Exponential { mean })
    }
    /// A log-normal distribution by mean and coefficient of variation.
    pub fn lognormal(mean: f64, cv: f64) -> DistSpec {
        DistSpec(DistTable::Lognormal { mean, cv })
    }
    /// A discrete choice.
    pub fn choice(values: Vec<f64>, weights: Vec<f64>) -> DistSpec {
        DistSpec(DistTable::Choice { values, weights })
    }
}

impl Serialize for DistSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            DistTable::Fixed { value } => s.serialize_f64(*value),
            table => table.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for DistSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DistSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a distribution table such as { kind = \"lognormal\", mean = 8.0, cv = 1.0 }")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<DistSpec, E> {
                Ok(DistSpec::fixed(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DistSpec, E> {
                Ok(DistSpec::fixed(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<DistSpec, E> {
                Ok(DistSpec::fixed(v as f64))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<DistSpec, A::Error> {
                DistTable::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(DistSpec)
            }
        }
        d.deserialize_any(V)
    }
}

/// Why a distribution spec was refused; the text says what is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DistError {
    /// A parameter is outside its allowed range.
    #[error("{param} = {found} is not allowed; {allowed}")]
    BadParameter {
        /// The parameter's key (`mean`, `cv`, ...).
        param: &'static str,
        /// The value as written.
        found: String,
        /// What is allowed, in words.
        allowed: &'static str,
    },
    /// The values can fall outside what this quantity allows.
    #[error("{0}")]
    OutOfSupport(String),
}

fn check(ok: bool, param: &'static str, found: f64, allowed: &'static str) -> Result<(), DistError> {
    if ok { Ok(()) } else { Err(DistError::BadParameter { param, found: format!("{found}"), allowed }) }
}

fn positive(param: &'static str, v: f64) -> Result<(), DistError> {
    check(v.is_finite() && v > 0.0, param, v, "it must be a positive finite number")
}

/// A validated distribution, ready to sample.
#[derive(Clone, Debug)]
pub enum Sampler {
    /// A constant.
    Fixed(f64),
    /// Exponential (rate = 1/mean).
    Exp(Exp<f64>, f64),
    /// Log-normal.
    LogNormal(LogNormal<f64>, f64),
    /// Gamma.
    Gamma(Gamma<f64>, f64),
    /// Weibull.
    Weibull(Weibull<f64>, f64),
    /// Uniform on [low, high).
    Uniform(f64, f64),
    /// Discrete values with cumulative weights.
    Choice {
        /// The values.
        values: Vec<f64>,
        /// Running sums of the weights (the last is their total).
        cumulative: Vec<f64>,
    },
    /// Equally likely observed values.
    Empirical(Vec<f64>),
}

impl DistSpec {
    /// Checks the parameters and builds the sampler.
    ///
    /// # Errors
    /// [`DistError::BadParameter`] naming the parameter and the allowed range.
    pub fn sampler(&self) -> Result<Sampler, DistError> {
        Ok(match &self.0 {
            DistTable::Fixed { value } => {
                check(value.is_finite(), "value", *value, "it must be a finite number")?;
                Sampler::Fixed(*value)
            }
            DistTable::Exponential { mean } => {
                positive("mean", *mean)?;
                Sampler::Exp(Exp::new(1.0 / mean).expect("checked: positive rate"), *mean)
            }
            DistTable::Lognormal { mean, cv } => {
                positive("mean", *mean)?;
                check(cv.is_finite() && *cv >= 0.0, "cv", *cv, "it must be a finite number ≥ 0")?;
                if *cv == 0.0 {
                    Sampler::Fixed(*mean)
                } else {
                    let d = LogNormal::from_mean_cv(*mean, *cv).map_err(|_| DistError::BadParameter {
                        param: "cv",
                        found: format!("{cv}"),
                        allowed: "it must be a finite number ≥ 0",
                    })?;
                    Sampler::LogNormal(d, *mean)
                }
            }
            DistTable::Gamma { shape, scale } => {
                positive("shape", *shape)?;
                positive("scale", *scale)?;
                Sampler::Gamma(Gamma::new(*shape, *scale).expect("checked"), shape * scale)
            }
            DistTable::Weibull { shape, scale } => {
                positive("shape", *shape)?;
                positive("scale", *scale)?;
                let mean = scale * statrs::function::gamma::gamma(1.0 + 1.0 / shape);
                Sampler::Weibull(Weibull::new(*scale, *shape).expect("checked"), mean)
            }
            DistTable::Uniform { low, high } => {
                check(low.is_finite(), "low", *low, "it must be a finite number")?;
                check(high.is_finite() && high >= low, "high", *high, "it must be a finite number ≥ low")?;
                Sampler::Uniform(*low, *high)
            }
            DistTable::Choice { values, weights } => {
                if values.is_empty() {
                    return Err(DistError::OutOfSupport("choice needs at least one value in 'values'".into()));
                }
                if values.len() != weights.len() {
                    return Err(DistError::OutOfSupport(format!(
                        "choice has {} values but {} weights; give one weight per value",
                        values.len(),
                        weights.len()
                    )));
                }
                for v in values {
                    check(v.is_finite(), "values", *v, "every value must be a finite number")?;
                }
                let mut cumulative = Vec::with_capacity(weights.len());
                let mut total = 0.0;
                for w in weights {
                    check(w.is_finite() && *w >= 0.0, "weights", *w, "every weight must be a finite number ≥ 0")?;
                    total += w;
                    cumulative.push(total);
                }
                if total <= 0.0 {
                    return Err(DistError::OutOfSupport(
                        "choice weights sum to 0; at least one weight must be positive".into(),
                    ));
                }
                Sampler::Choice { values: values.clone(), cumulative }
            }
            DistTable::Empirical { samples } => {
                if samples.is_empty() {
                    return Err(DistError::OutOfSupport("empirical needs at least one value in 'samples'".into()));
                }
                for v in samples {
                    check(v.is_finite(), "samples", *v, "every sample must be a finite number")?;
                }
                Sampler::Empirical(samples.clone())
            }
        })
    }
}

impl Sampler {
    /// Draws one value.
    pub fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Sampler::Fixed(v) => *v,
            Sampler::Exp(d, _) => d.sample(rng),
            Sampler::LogNormal(d, _) => d.sample(rng),
            Sampler::Gamma(d, _) => d.sample(rng),
            Sampler::Weibull(d, _) => d.sample(rng),
            Sampler::Uniform(lo, hi) => {
                if lo == hi {
                    *lo
                } else {
                    lo + (hi - lo) * rng.random::<f64>()
                }
            }
            Sampler::Choice { values, cumulative } => {
                let total = *cumulative.last().expect("validated: non-empty");
                let u = rng.random::<f64>() * total;
                let i = cumulative.partition_point(|&c| c <= u).min(values.len() - 1);
                values[i]
            }
            Sampler::Empirical(samples) => samples[rng.random_range(0..samples.len())],
        }
    }

    /// The distribution's mean.
    pub fn mean(&self) -> f64 {
        match self {
            Sampler::Fixed(v) => *v,
            Sampler::Exp(_, m) | Sampler::LogNormal(_, m) | Sampler::Gamma(_, m) | Sampler::Weibull(_, m) => *m,
            Sampler::Uniform(lo, hi) => 0.5 * (lo + hi),
            Sampler::Choice { values, cumulative } => {
                let total = cumulative.last().copied().unwrap_or(1.0);
                let mut prev = 0.0;
                let mut acc = 0.0;
                for (v, c) in values.iter().zip(cumulative) {
                    acc += v * (c - prev);
                    prev = *c;
                }
                acc / total
            }
            Sampler::Empirical(s) => s.iter().sum::<f64>() / s.len() as f64,
        }
    }

    /// The smallest and largest values the sampler can return (infinite when unbounded).
    pub fn support(&self) -> (f64, f64) {
        match self {
            Sampler::Fixed(v) => (*v, *v),
            Sampler::Exp(..) | Sampler::LogNormal(..) | Sampler::Gamma(..) | Sampler::Weibull(..) => {
                (0.0, f64::INFINITY)
            }
            Sampler::Uniform(lo, hi) => (*lo, *hi),
            Sampler::Choice { values, cumulative } => {
                let mut prev = 0.0;
                let mut lo = f64::INFINITY;
                let mut hi = f64::NEG_INFINITY;
                for (v, c) in values.iter().zip(cumulative) {
                    if *c > prev {
                        lo = lo.min(*v);
                        hi = hi.max(*v);
                    }
                    prev = *c;
                }
                (lo, hi)
            }
            Sampler::Empirical(s) => {
                s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
            }
        }
    }

    /// True when every value the sampler can return is a whole number (GPU counts).
    pub fn is_integral(&self) -> bool {
        let whole = |v: &f64| v.fract() == 0.0;
        match self {
            Sampler::Fixed(v) => whole(v),
            Sampler::Choice { values, .. } => values.iter().all(whole),
            Sampler::Empirical(s) => s.iter().all(whole),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, stream};

    #[derive(Deserialize)]
    struct Holder {
        d: DistSpec,
    }

    fn parse(text: &str) -> Result<DistSpec, String> {
        toml::from_str::<Holder>(text).map(|h| h.d).map_err(|e| e.to_string())
    }

    #[test]
    fn a_number_is_fixed_and_a_table_names_its_kind() {
        assert_eq!(parse("d = 3").unwrap(), DistSpec::fixed(3.0));
        assert_eq!(parse("d = 2.5").unwrap(), DistSpec::fixed(2.5));
        assert_eq!(parse("d = { kind = \"lognormal\", mean = 8.0, cv = 1.0 }").unwrap(), DistSpec::lognormal(8.0, 1.0));
    }

    #[test]
    fn unknown_kinds_and_parameters_are_refused_by_name() {
        let e = parse("d = { kind = \"pareto\", alpha = 1 }").unwrap_err();
        assert!(e.contains("pareto"), "{e}");
        let e = parse("d = { kind = \"lognormal\", mean = 8.0, sd = 1.0 }").unwrap_err();
        assert!(e.contains("sd"), "{e}");
    }

    #[test]
    fn impossible_parameters_are_refused() {
        assert!(DistSpec::exponential(-1.0).sampler().is_err());
        assert!(DistSpec::lognormal(f64::NAN, 1.0).sampler().is_err());
        assert!(DistSpec::choice(vec![1.0, 2.0], vec![0.0, 0.0]).sampler().is_err());
        assert!(DistSpec::choice(vec![1.0, 2.0], vec![1.0]).sampler().is_err());
        assert!(DistSpec(DistTable::Uniform { low: 2.0, high: 1.0 }).sampler().is_err());
    }

    #[test]
    fn sample_means_match_declared_means() {
        let specs = [
            DistSpec::exponential(2.0),
            DistSpec::lognormal(8.0, 1.0),
            DistSpec(DistTable::Gamma { shape: 2.0, scale: 3.0 }),
            DistSpec(DistTable::Weibull { shape: 1.5, scale: 4.0 }),
            DistSpec(DistTable::Uniform { low: 1.0, high: 3.0 }),
            DistSpec::choice(vec![1.0, 2.0, 4.0], vec![0.6, 0.3, 0.1]),
            DistSpec(DistTable::Empirical { samples: vec![1.0, 5.0, 9.0] }),
        ];
        let mut rng = stream(1, 0, Purpose::Test(0));
        for spec in specs {
            let s = spec.sampler().unwrap();
            let n = 200_000;
            let m: f64 = (0..n).map(|_| s.sample(&mut rng)).sum::<f64>() / n as f64;
            assert!((m - s.mean()).abs() / s.mean() < 0.02, "{spec:?}: sample mean {m} vs {}", s.mean());
        }
    }

    #[test]
    fn choice_support_ignores_zero_weight_values() {
        let s = DistSpec::choice(vec![1.0, 2.0, 64.0], vec![1.0, 1.0, 0.0]).sampler().unwrap();
        assert_eq!(s.support(), (1.0, 2.0));
        assert!(s.is_integral());
    }
}
