//! A class's requested times and run times as `fit` writes them: the `requests` table
//! ([`crate::scenario::requests`]) that the simulation draws jointly, so the requests keep
//! the log's distribution (a site's limits included) and the run times theirs.

use crate::units::SimTime;

/// Quantiles of the requested time at equal steps of probability.
pub const REQUEST_QUANTILES: usize = 101;
/// Most rows of used-fraction quantiles (slices of the request's distribution).
pub const USED_ROWS: usize = 10;
/// Fewest jobs per row of used fractions (fewer rows for a small class).
pub const MIN_JOBS_PER_ROW: usize = 20;
/// Quantiles of the used fraction per row.
pub const USED_QUANTILES: usize = 21;

/// A class's requests and run times as the scenario's `requests` table
/// ([`crate::scenario::requests`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RequestFit {
    /// The requested time's quantiles in hours ([`REQUEST_QUANTILES`], 0 to 100 %).
    pub hours: Vec<f64>,
    /// Row k: quantiles ([`USED_QUANTILES`]) of run time ÷ request over the jobs whose
    /// request ranks in slice k of the class (jobs ordered by request, then by fraction).
    pub used_fraction: Vec<Vec<f64>>,
}

impl RequestFit {
    /// Fits `(run time, request)` pairs in seconds, request ≥ run time ≥ 1 (at least one).
    pub fn from_pairs(pairs: &[(SimTime, SimTime)]) -> RequestFit {
        let fraction = |&(r, q): &(SimTime, SimTime)| r as f64 / q as f64;
        let mut sorted = pairs.to_vec();
        sorted.sort_by(|a, b| a.1.cmp(&b.1).then(fraction(a).total_cmp(&fraction(b))));
        let quantiles = |v: &[f64], n: usize| -> Vec<f64> {
            (0..n).map(|i| crate::stats::percentile_sorted(v, i as f64 / (n - 1) as f64)).collect()
        };
        let hours: Vec<f64> = sorted.iter().map(|p| p.1 as f64 / 3600.0).collect();
        let rows = (sorted.len() / MIN_JOBS_PER_ROW).clamp(1, USED_ROWS);
        let used_fraction = (0..rows)
            .map(|k| {
                let slice = &sorted[sorted.len() * k / rows..sorted.len() * (k + 1) / rows];
                let mut f: Vec<f64> = slice.iter().map(fraction).collect();
                f.sort_by(f64::total_cmp);
                quantiles(&f, USED_QUANTILES)
            })
            .collect();
        RequestFit { hours: quantiles(&hours, REQUEST_QUANTILES), used_fraction }
    }
}
