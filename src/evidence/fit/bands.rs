//! When a log's jobs ask for what: request bands and their own arrival profiles.
//!
//! How long a job asks to run depends on when it is submitted (at KTH, before June 1997,
//! most jobs asking over 15 h came at weekends, most short ones on weekday mornings), so
//! one hour-of-week profile for every request would send long requests in at the wrong
//! time. The fit therefore splits the background by the log's own request quantiles
//! (nothing site-specific), gives each part its own profile, and then splits each part
//! into size classes:
//! - **bands**: the request quantiles at 1/2, 3/4, 7/8, … (each band above a boundary
//!   holds half the jobs of the one before), as long as the jobs asking more than the
//!   boundary number at least [`MIN_BAND_JOBS`]; a band is the requests in
//!   `(lower, upper]`, so a site limit many jobs ask for stays inside one band;
//! - a band with fewer than [`MIN_BAND_JOBS`] jobs is merged into the next one up (the
//!   last into the one below), as size classes are;
//! - **profile**: by the same cells as the whole log's profile (hour of week, or of day
//!   when that is what the log supports), the band's own arrivals per cell averaged over
//!   the cyclic window `h−k..h+k`, the narrowest that holds [`super::MIN_JOBS_PER_CELL`]
//!   of the band's jobs per cell on average (the rule of the log's own profile): a band
//!   with as many jobs as the whole-log rule needs gets its own hour-by-hour rates, a
//!   small band a moving average; scaled to average 1 (only ratios matter).

use crate::units::SimTime;

/// Fewest jobs of a request band (the floor of a size class, [`super::size_classes`]).
pub const MIN_BAND_JOBS: usize = 50;

/// Upper bounds (seconds, inclusive) of the request bands of `requests`, ascending; the
/// last band, above the last bound, is open.
pub fn band_bounds(requests: &[SimTime]) -> Vec<SimTime> {
    let mut sorted = requests.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    let mut bounds: Vec<SimTime> = Vec::new();
    let mut tail = 0.5f64;
    while (n as f64 * tail) >= MIN_BAND_JOBS as f64 {
        // The (1 − tail) quantile: the smallest request with at least that share at or below it.
        let i = (((1.0 - tail) * n as f64).ceil() as usize).clamp(1, n) - 1;
        let b = sorted[i];
        let above = n - sorted.partition_point(|&r| r <= b);
        if above < MIN_BAND_JOBS {
            break;
        }
        if bounds.last().is_none_or(|&last| b > last) {
            bounds.push(b);
        }
        tail /= 2.0;
    }
    bounds
}

/// The band of a request: the number of bounds below it.
pub fn band_of(bounds: &[SimTime], request: SimTime) -> usize {
    bounds.partition_point(|&b| b < request)
}

/// Groups of consecutive bands (first and last band index, inclusive) holding at least
/// [`MIN_BAND_JOBS`] jobs each, from the jobs per band: a small band joins the next one
/// up, and a small remainder at the top joins the group below.
pub fn merged_bands(counts: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    for (b, &c) in counts.iter().enumerate() {
        let (start, n) = open.unwrap_or((b, 0));
        if n + c >= MIN_BAND_JOBS {
            out.push((start, b, n + c));
            open = None;
        } else {
            open = Some((start, n + c));
        }
    }
    match (open, out.last_mut()) {
        (Some(_), Some(last)) => last.1 = counts.len() - 1,
        (Some((start, n)), None) => out.push((start, counts.len() - 1, n)),
        (None, _) => {}
    }
    out.into_iter().map(|(a, b, _)| (a, b)).collect()
}

/// A band's profile from its arrivals per cell (`band`: 168 hours of the week, or 24 of
/// the day): the band's own counts, each averaged over the narrowest cyclic window of
/// cells that holds [`super::MIN_JOBS_PER_CELL`] of its jobs per cell on average, scaled
/// to average 1 (see the module doc). Over a log of whole weeks every hour of the week is
/// covered equally often (a partial week adds at most one), so counts are rates.
pub fn band_profile(band: &[usize]) -> Vec<f64> {
    let cells = band.len();
    let n: usize = band.iter().sum();
    // Narrowest odd window 2k+1 with n (2k+1) / cells ≥ MIN_JOBS_PER_CELL.
    let need = (cells as f64 * super::MIN_JOBS_PER_CELL / n.max(1) as f64).max(1.0);
    let k = (((need - 1.0) / 2.0).ceil() as usize).min((cells - 1) / 2);
    let smoothed: Vec<f64> =
        (0..cells).map(|h| (0..=2 * k).map(|d| band[(h + cells + d - k) % cells]).sum::<usize>() as f64).collect();
    let mean = smoothed.iter().sum::<f64>() / cells as f64;
    smoothed.iter().map(|v| if mean > 0.0 { v / mean } else { 1.0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_halve_the_tail_and_keep_ties_in_one_band() {
        // 1,000 requests of 1..=1000 s: bounds at the 1/2, 3/4, 7/8, 15/16 quantiles
        // (the band above the 31/32 quantile would hold 31 < 50 jobs).
        let r: Vec<SimTime> = (1..=1000).collect();
        assert_eq!(band_bounds(&r), vec![500, 750, 875, 938]);
        assert_eq!((band_of(&[500, 750], 500), band_of(&[500, 750], 501), band_of(&[500, 750], 9999)), (0, 1, 2));
        // A limit most jobs ask for: 900 at 4 h, 100 above it; the tie stays in one band.
        let mut r: Vec<SimTime> = vec![14_400; 900];
        r.extend((0..100).map(|i| 20_000 + i));
        assert_eq!(band_bounds(&r), vec![14_400, 20_037]);
    }

    #[test]
    fn small_bands_join_the_next_one_up_and_the_top_joins_the_one_below() {
        assert_eq!(merged_bands(&[60, 10, 45, 70, 20]), vec![(0, 0), (1, 2), (3, 4)]);
        assert_eq!(merged_bands(&[10, 20]), vec![(0, 1)]);
    }

    #[test]
    fn a_band_profile_follows_the_band_where_it_has_the_data_and_averages_one() {
        // Four cells; the band only in cell 2, with plenty of jobs: its own rates.
        assert_eq!(band_profile(&[0, 0, 100, 0]), vec![0.0, 0.0, 4.0, 0.0]);
        // Too few jobs for 10 per cell: averaged over 3 cells (cyclic), still mean 1.
        let p = band_profile(&[0, 0, 15, 0]);
        assert_eq!(p, vec![0.0, 4.0 / 3.0, 4.0 / 3.0, 4.0 / 3.0]);
    }
}
