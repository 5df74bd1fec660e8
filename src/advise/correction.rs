//! A correction of advise's start intervals learned out of sample (issue 44 item 2):
//! split-conformal on the log scale of waits.
//!
//! ```text
//! calibration probes (earlier than any scored one): raw interval [lo, hi] at level α, recorded wait y
//!   g(x) = ln(x + offset)                       log scale; the offset keeps waits of 0 finite
//!   score = max(g(lo) − g(y), g(y) − g(hi))     how far y lies outside (negative: inside)
//!   widen_α = the ⌈(n + 1) α⌉-th smallest score  (+∞ when that exceeds n)
//! a new interval: [g⁻¹(g(lo) − widen_α), g⁻¹(g(hi) + widen_α)], clamped at 0
//! ```
//!
//! This is conformalized quantile regression (Romano, Patterson and Candès, 2019) on the
//! log scale: when the calibration probes and a new one are exchangeable, the corrected
//! interval holds the new recorded wait with probability at least α (and at most
//! α + 1/(n + 1) when scores do not tie). A wait is not exchangeable across a log's
//! months, so the guarantee is only approximate; the backtest measures it on later
//! probes only ([`crate::backtest`]). One widening per level serves every probe: the
//! coverage it gives holds over all probes together, not within each wait class.
//!
//! The widening is multiplicative: e^widen is the factor by which `hi + offset` grows
//! (and `lo + offset` shrinks). A negative widening narrows intervals that were too wide.

use serde::{Deserialize, Serialize};

/// The default offset (seconds) of the log scale: one minute, a scheduler's few passes.
/// Below it waits count nearly alike (0 s and 30 s differ by 0.4 on the scale, 1 h and
/// 2 h by 0.68).
pub const DEFAULT_OFFSET_S: f64 = 60.0;

/// The nominal levels corrected, in the order of [`Correction::widen`].
pub const LEVELS: [f64; 3] = [0.5, 0.8, 0.95];

/// A learned widening of advise's central start intervals (module doc); written by
/// `validate --backtest N --correction-out FILE`, read by `advise --correction FILE`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    /// What it was learned from (log, period, command), for the reader of the file.
    pub source: String,
    /// Calibration probes it was learned from.
    pub probes: usize,
    /// Offset of the log scale, seconds.
    pub offset_s: f64,
    /// Widening on the log scale for each level of [`LEVELS`] (+∞: too few probes for
    /// that level; the interval becomes [0, ∞)).
    pub widen: [f64; 3],
}

/// One calibration probe: the raw interval's ends at each level of [`LEVELS`] (seconds,
/// +∞ beyond the horizon) and the recorded wait.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CalibrationProbe {
    /// `(low, high)` at 50%, 80%, 95%.
    pub intervals: [(f64, f64); 3],
    /// The recorded wait, seconds.
    pub recorded_s: f64,
}

impl Correction {
    /// Learns the widening from `probes` (module doc) with the log scale's `offset_s`.
    /// With no probe every widening is +∞.
    pub fn learn(probes: &[CalibrationProbe], offset_s: f64, source: &str) -> Correction {
        let g = |x: f64| log_scale(x, offset_s);
        let widen = [0, 1, 2].map(|k| {
            let scores: Vec<f64> = probes
                .iter()
                .map(|p| {
                    let (lo, hi) = p.intervals[k];
                    let y = g(p.recorded_s);
                    (g(lo) - y).max(y - g(hi))
                })
                .collect();
            conformal_quantile(scores, LEVELS[k])
        });
        Correction { source: source.to_string(), probes: probes.len(), offset_s, widen }
    }

    /// The interval at level `k` of [`LEVELS`] from the raw `(low, high)` (seconds, +∞
    /// allowed), widened on the log scale and clamped at 0. A negative widening that
    /// would cross the ends meets them at their midpoint on the log scale.
    pub fn apply(&self, k: usize, low: f64, high: f64) -> (f64, f64) {
        let w = self.widen[k];
        if w == f64::INFINITY {
            return (0.0, f64::INFINITY);
        }
        let (gl, gh) = (log_scale(low, self.offset_s) - w, log_scale(high, self.offset_s) + w);
        let (gl, gh) = if gl > gh { ((gl + gh) / 2.0, (gl + gh) / 2.0) } else { (gl, gh) };
        (from_log_scale(gl, self.offset_s), from_log_scale(gh, self.offset_s))
    }

    /// The correction as the TOML file `--correction-out` writes.
    ///
    /// # Errors
    /// Serialisation failing (it does not for a correction learned here).
    pub fn to_toml(&self) -> Result<String, String> {
        let body = toml::to_string(self).map_err(|e| e.to_string())?;
        Ok(format!(
            "# advise's start intervals widened on the log scale ln(wait + offset_s), one widening per\n\
             # level {LEVELS:?}, learned by split-conformal from a backtest (docs/ADVISE.md, \"Coverage\").\n{body}"
        ))
    }

    /// Reads a correction file.
    ///
    /// # Errors
    /// The text is not such a file, or its numbers are out of range.
    pub fn from_toml(text: &str) -> Result<Correction, String> {
        let c: Correction = toml::from_str(text).map_err(|e| e.to_string())?;
        if !(c.offset_s.is_finite() && c.offset_s > 0.0) {
            return Err(format!("offset_s = {}: must be a positive number of seconds", c.offset_s));
        }
        if let Some(w) = c.widen.iter().find(|w| w.is_nan() || **w == f64::NEG_INFINITY) {
            return Err(format!("widen has {w}: each must be a number or +inf"));
        }
        Ok(c)
    }
}

/// The `p`-quantile of sorted values that may end in +∞ (never started): linear between
/// neighbours, +∞ once either neighbour is; NaN for no values. The one quantile rule of
/// advise's start samples, which the backtest scores too.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    if lo == hi {
        return sorted[lo];
    }
    if sorted[hi].is_infinite() {
        return f64::INFINITY;
    }
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// The central interval at `level` of sorted start samples that may end in +∞ (never
/// started): the (1 ∓ level)/2 quantiles by [`quantile`]; (+∞, +∞) for no samples.
pub fn central_interval(sorted: &[f64], level: f64) -> (f64, f64) {
    if sorted.is_empty() {
        return (f64::INFINITY, f64::INFINITY);
    }
    (quantile(sorted, (1.0 - level) / 2.0), quantile(sorted, (1.0 + level) / 2.0))
}

/// ln(x + offset) (x below 0 counts as 0; +∞ stays).
pub fn log_scale(x: f64, offset_s: f64) -> f64 {
    (x.max(0.0) + offset_s).ln()
}

/// The inverse of [`log_scale`], clamped at 0 (+∞ stays).
pub fn from_log_scale(v: f64, offset_s: f64) -> f64 {
    (v.exp() - offset_s).max(0.0)
}

/// The ⌈(n + 1) α⌉-th smallest of `scores` (+∞ when that rank exceeds n): the split-conformal
/// quantile that gives coverage at least α to one more exchangeable score.
pub fn conformal_quantile(mut scores: Vec<f64>, alpha: f64) -> f64 {
    let n = scores.len();
    let rank = ((n as f64 + 1.0) * alpha).ceil() as usize;
    if rank == 0 || rank > n {
        return if rank == 0 { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    scores.sort_by(f64::total_cmp);
    scores[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conformal_quantile_takes_the_rank_of_n_plus_one() {
        let s: Vec<f64> = (1..=9).map(f64::from).collect();
        // ⌈10 × 0.8⌉ = 8th smallest; ⌈10 × 0.95⌉ = 10 > 9: unbounded.
        assert_eq!(conformal_quantile(s.clone(), 0.8), 8.0);
        assert_eq!(conformal_quantile(s.clone(), 0.5), 5.0);
        assert_eq!(conformal_quantile(s, 0.95), f64::INFINITY);
        assert_eq!(conformal_quantile(Vec::new(), 0.5), f64::INFINITY);
    }

    #[test]
    fn learning_widens_just_enough_and_applying_inverts_the_log_scale() {
        // Raw intervals [0, 60] at every level; recorded waits 60, 180, 420, …: scores
        // ln((w + 60) / 120) = ln 1, ln 2, ln 4, …
        let probes: Vec<CalibrationProbe> = (0..9)
            .map(|i| CalibrationProbe { intervals: [(0.0, 60.0); 3], recorded_s: 120.0 * 2f64.powi(i) - 60.0 })
            .collect();
        let c = Correction::learn(&probes, 60.0, "test");
        assert_eq!(c.probes, 9);
        assert!((c.widen[0] - 4.0 * 2f64.ln()).abs() < 1e-12, "{:?}", c.widen);
        assert!((c.widen[1] - 7.0 * 2f64.ln()).abs() < 1e-12);
        assert_eq!(c.widen[2], f64::INFINITY);
        // Widened by ln 16: the high end (60 + 60) × 16 − 60; the low end clamps at 0.
        let (lo, hi) = c.apply(0, 0.0, 60.0);
        assert_eq!(lo, 0.0);
        assert!((hi - (120.0 * 16.0 - 60.0)).abs() < 1e-9);
        // Every calibration wait the 80% widening was learned from but the largest is inside.
        let inside = probes.iter().filter(|p| p.recorded_s <= c.apply(1, 0.0, 60.0).1 + 1e-9).count();
        assert_eq!(inside, 8);
        assert_eq!(c.apply(2, 100.0, 200.0), (0.0, f64::INFINITY));
        // A negative widening narrows, and meets in the middle rather than crossing.
        let narrow = Correction { widen: [-10.0; 3], ..c.clone() };
        let (lo, hi) = narrow.apply(0, 60.0, 240.0);
        let mid = (120.0f64 * 300.0).sqrt() - 60.0;
        assert!((lo - mid).abs() < 1e-9 && (hi - mid).abs() < 1e-9, "{lo} {hi}");
    }

    #[test]
    fn the_file_round_trips_and_refuses_nonsense() {
        let c = Correction { source: "KTH".into(), probes: 3, offset_s: 60.0, widen: [0.5, 1.5, f64::INFINITY] };
        let text = c.to_toml().unwrap();
        assert_eq!(Correction::from_toml(&text).unwrap(), c);
        assert!(Correction::from_toml(&text.replace("offset_s = 60.0", "offset_s = -1.0")).is_err());
        assert!(Correction::from_toml("offset_s = 60.0").is_err());
    }
}
