//! Block bootstrap of a log: many plausible years out of one, made of whole days or whole
//! weeks of the log, so the daily and weekly rhythm of submissions (and the bursts within
//! a day) survive resampling; when the log has calendar dates, each block is drawn from the
//! same part of the year, so the seasons survive too.
//!
//! ```text
//! log (jobs on its own clock):   | Sep wk1 | Sep wk2 | … | Dec wk3 | … |  (complete blocks only)
//! resample (the scenario clock): | pick among the log's weeks near "Sep wk1" | near "Sep wk2" | …
//! ```
//!
//! Output block k covers `[k·L, (k+1)·L)` on the scenario clock; each is a copy of a
//! source block drawn with replacement, every job keeping its offset within the block (so
//! its time of day and weekday, when the phase is aligned with [`aligned_phase`]),
//! runtime, size and walltime factor. The last output block is cut at the horizon. Source
//! blocks run from `phase` in steps of L; only blocks wholly inside the log's period are
//! used, so a half-recorded first or last day never looks like a quiet one.
//!
//! Which source blocks output block k may copy ([`Draw`]):
//! - [`Draw::Season`] (logs with dates): the blocks whose first day lies within
//!   ± (W weeks + half a block) of output block k's first day in the year (day of the
//!   year, compared round the year's end, so late December is next to early January).
//!   For week blocks that is the same week of the year in every year of the log and W
//!   weeks either side (2W + 1 weeks per year of log); for day blocks, the same day ± 7W
//!   days. W = 0 keeps only the matching week (or day). When a log shorter than a year
//!   has no block in that window, the window is widened by whole weeks until it holds one
//!   (the nearest blocks in the year); [`widening`] reports how often, for the warning.
//! - [`Draw::Uniform`]: every complete block alike, wherever it lies in the year (logs
//!   without calendar dates, or asked for). An exam-season week may then land in August.
//!
//! The draws come from the caller's generator: for replication r of a scenario this is
//! `rng::stream(seed, r, Purpose::Bootstrap)` (further superposed copies for a load scale
//! above 1 use `Purpose::BootstrapCopy`), so each replication is a different resample,
//! the same for every policy (common random numbers), and independent of every other
//! stream.

use std::ops::Range;

use rand::RngExt;

use crate::date::{Date, days_in_month};
use crate::job::Job;
use crate::rng::SimRng;
use crate::units::{DAY, SimTime};

/// Block length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockLength {
    /// Whole days (keeps the daily rhythm; weekdays get mixed).
    Day,
    /// Whole weeks (keeps daily and weekly rhythm).
    Week,
}

impl BlockLength {
    /// Length in seconds.
    pub fn seconds(self) -> SimTime {
        match self {
            BlockLength::Day => DAY,
            BlockLength::Week => 7 * DAY,
        }
    }
}

/// The season window used when a scenario does not give `season_window_weeks`.
pub const DEFAULT_SEASON_WINDOW_WEEKS: u32 = 2;

/// How the source block of each output block is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    /// Uniformly among all complete source blocks.
    Uniform,
    /// Among the source blocks in the same part of the year.
    Season(Seasons),
}

/// Where both clocks sit in the calendar, and how far from its place in the year a block
/// may come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seasons {
    /// Half-width of the window in weeks, beyond half a block (see the module doc).
    pub window_weeks: u32,
    /// Local time (seconds since 1970-01-01 00:00 local) of the jobs' clock 0.
    pub source_origin: i64,
    /// Local time of the output clock's 0: the scenario's start date at 00:00 minus the
    /// warm-up.
    pub output_origin: i64,
}

/// What to resample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BootstrapSpec {
    /// Block length.
    pub block: BlockLength,
    /// Time on the jobs' clock of the first source block boundary (`< block length`).
    pub phase: SimTime,
    /// End of the log's period on the jobs' clock (e.g. the last submission + 1).
    pub extent: SimTime,
    /// Length of the output (the scenario's horizon).
    pub horizon: SimTime,
    /// Uniform or season-preserving draws.
    pub draw: Draw,
}

impl BootstrapSpec {
    /// Number of output blocks (the last may be cut by the horizon).
    pub fn output_blocks(&self) -> usize {
        self.horizon.div_ceil(self.block.seconds()) as usize
    }
}

/// The complete source blocks: `(start time, range of job indices)`. Jobs must be
/// sorted by submission.
pub fn source_blocks(jobs: &[Job], spec: &BootstrapSpec) -> Vec<(SimTime, Range<usize>)> {
    let len = spec.block.seconds();
    let mut out = Vec::new();
    let mut start = spec.phase;
    while start.saturating_add(len) <= spec.extent {
        let a = jobs.partition_point(|j| j.submit < start);
        let b = jobs.partition_point(|j| j.submit < start + len);
        out.push((start, a..b));
        start += len;
    }
    out
}

/// Mean length of the Gregorian year in days: distances in the year wrap at this.
const YEAR_DAYS: f64 = 365.2425;

/// Day of the year (0 = 1 January) of the day `day` days after 1970-01-01.
fn day_of_year(day: i64) -> f64 {
    let d = Date::from_days(day);
    let before: u32 = (1..d.month()).map(|m| u32::from(days_in_month(d.year(), m))).sum();
    f64::from(before + u32::from(d.day()) - 1)
}

/// Days between two days of the year, the short way round the year's end.
fn days_apart_in_year(a: f64, b: f64) -> f64 {
    let x = (a - b).rem_euclid(YEAR_DAYS);
    x.min(YEAR_DAYS - x)
}

/// The source blocks output block k may copy under a season draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidates {
    /// Indices into [`source_blocks`], never empty when the log has a complete block.
    pub blocks: Vec<usize>,
    /// The window actually used, in weeks: more than asked when it had to be widened.
    pub window_weeks: u32,
}

/// For each output block, the source blocks in its part of the year (see the module doc);
/// empty when the draw is uniform or the log has no complete block.
pub fn season_candidates(blocks: &[(SimTime, Range<usize>)], spec: &BootstrapSpec) -> Vec<Candidates> {
    let Draw::Season(s) = spec.draw else { return Vec::new() };
    if blocks.is_empty() {
        return Vec::new();
    }
    let len = spec.block.seconds() as i64;
    let day = DAY as i64;
    let half_block = len as f64 / day as f64 / 2.0;
    let source: Vec<f64> =
        blocks.iter().map(|(start, _)| day_of_year((s.source_origin + *start as i64).div_euclid(day))).collect();
    (0..spec.output_blocks())
        .map(|k| {
            let at = day_of_year((s.output_origin + k as i64 * len).div_euclid(day));
            let apart: Vec<f64> = source.iter().map(|&d| days_apart_in_year(d, at)).collect();
            let nearest = apart.iter().copied().fold(f64::INFINITY, f64::min);
            // The smallest whole number of weeks ≥ the asked window that reaches the nearest block.
            let needed = ((nearest - half_block) / 7.0).ceil().max(0.0) as u32;
            let window_weeks = s.window_weeks.max(needed);
            let reach = 7.0 * f64::from(window_weeks) + half_block;
            let blocks = (0..apart.len()).filter(|&i| apart[i] <= reach + 1e-9).collect();
            Candidates { blocks, window_weeks }
        })
        .collect()
}

/// How much a season draw had to widen its window for a log shorter than a year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Widening {
    /// Output blocks whose window was widened.
    pub widened: usize,
    /// Output blocks in all.
    pub blocks: usize,
    /// The window asked for, in weeks.
    pub asked_weeks: u32,
    /// The widest window used, in weeks.
    pub widest_weeks: u32,
}

/// `Some` when a season draw had to widen the window of at least one output block.
pub fn widening(jobs: &[Job], spec: &BootstrapSpec) -> Option<Widening> {
    let Draw::Season(s) = spec.draw else { return None };
    let cands = season_candidates(&source_blocks(jobs, spec), spec);
    let widened = cands.iter().filter(|c| c.window_weeks > s.window_weeks).count();
    (widened > 0).then(|| Widening {
        widened,
        blocks: cands.len(),
        asked_weeks: s.window_weeks,
        widest_weeks: cands.iter().map(|c| c.window_weeks).max().unwrap_or(s.window_weeks),
    })
}

/// One resample over `[0, horizon)`, sorted by submission; empty when the log has no
/// complete block. Jobs keep every field but `submit` (and `ordinal`, renumbered over
/// the group's jobs as [`crate::workload::JobStream::from_jobs`] does).
pub fn resample(jobs: &[Job], spec: &BootstrapSpec, rng: &mut SimRng) -> Vec<Job> {
    let blocks = source_blocks(jobs, spec);
    let mut out = Vec::new();
    if blocks.is_empty() {
        return out;
    }
    let cands = season_candidates(&blocks, spec);
    let len = spec.block.seconds();
    for k in 0..spec.output_blocks() {
        let pick = match cands.get(k) {
            Some(c) => c.blocks[rng.random_range(0..c.blocks.len())],
            None => rng.random_range(0..blocks.len()),
        };
        let (start, range) = blocks[pick].clone();
        let base = k as SimTime * len;
        for j in &jobs[range] {
            let submit = base + (j.submit - start);
            if submit >= spec.horizon {
                break;
            }
            out.push(Job { submit, ..j.clone() });
        }
    }
    for (ordinal, j) in out.iter_mut().filter(|j| j.group).enumerate() {
        j.ordinal = ordinal as u32;
    }
    out
}

/// The phase that puts source block boundaries at local midnight (day blocks) or at
/// local midnight of weekday `weekday` (week blocks; Monday = 0), given the local time
/// (seconds since 1970-01-01 local) of the jobs' clock 0. Use the scenario start date's
/// weekday so that output weeks start on the same weekday as the source weeks.
pub fn aligned_phase(origin_local: i64, block: BlockLength, weekday: u8) -> SimTime {
    let day = DAY as i64;
    let next_midnight = (origin_local.div_euclid(day) + i64::from(origin_local.rem_euclid(day) != 0)) * day;
    let mut t = next_midnight;
    if block == BlockLength::Week {
        // 1970-01-01 was a Thursday (weekday 3 with Monday = 0).
        while (t.div_euclid(day) + 3).rem_euclid(7) != i64::from(weekday % 7) {
            t += day;
        }
    }
    (t - origin_local) as SimTime
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::NO_DEADLINE;
    use crate::rng::{Purpose, stream};

    fn job(submit: SimTime, runtime: SimTime) -> Job {
        Job {
            submit,
            runtime,
            walltime_factor: 1.0,
            gpus: 1,
            class: 0,
            group: true,
            ordinal: 0,
            vram_gb: 0.0,
            data_gb: 0.0,
            deadline: NO_DEADLINE,
            kind: Default::default(),
            account: crate::job::OTHERS,
            partition: 0,
            nodes: 0,
            gpus_per_node: 0,
        }
    }

    /// Ten days of a log whose day d has d + 1 jobs, each at (hour i, runtime = day).
    fn log() -> Vec<Job> {
        (0..10u64).flat_map(|d| (0..=d).map(move |i| job(d * DAY + i * 3600 + 600, 1000 + d))).collect()
    }

    fn spec(horizon: SimTime) -> BootstrapSpec {
        BootstrapSpec { block: BlockLength::Day, phase: 0, extent: 10 * DAY, horizon, draw: Draw::Uniform }
    }

    #[test]
    fn blocks_are_whole_days_and_copied_whole() {
        let jobs = log();
        let out = resample(&jobs, &spec(30 * DAY), &mut stream(1, 0, Purpose::Bootstrap));
        assert!(out.windows(2).all(|w| w[0].submit <= w[1].submit));
        for k in 0..30 {
            let day: Vec<&Job> = out.iter().filter(|j| j.submit / DAY == k).collect();
            // Every job of an output day comes from one source day d: d + 1 jobs with runtime 1000 + d.
            let d = day[0].runtime - 1000;
            assert_eq!(day.len() as u64, d + 1, "output day {k} is a whole copy of source day {d}");
            for (i, j) in day.iter().enumerate() {
                assert_eq!((j.submit - k * DAY, j.runtime), (i as u64 * 3600 + 600, 1000 + d));
            }
        }
        let ordinals: Vec<u32> = out.iter().map(|j| j.ordinal).collect();
        assert_eq!(ordinals, (0..out.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn job_counts_follow_the_blocks_and_the_horizon_cuts() {
        let jobs = log();
        let out = resample(&jobs, &spec(DAY / 2 + 3600), &mut stream(1, 0, Purpose::Bootstrap));
        // Thirteen hours hold the first block only: at most one source day (≤ 10 jobs).
        assert!(out.len() <= 10 && out.iter().all(|j| j.submit < DAY / 2 + 3600));
        let big = resample(&jobs, &spec(3650 * DAY), &mut stream(1, 0, Purpose::Bootstrap));
        let per_day = big.len() as f64 / 3650.0;
        assert!((per_day - 5.5).abs() < 0.3, "mean of 1..=10 jobs per day: {per_day}");
        // A partial last block is not a source: extent 9.5 days leaves 9 blocks.
        let s = BootstrapSpec { extent: 9 * DAY + DAY / 2, ..spec(DAY) };
        assert_eq!(source_blocks(&jobs, &s).len(), 9);
        assert!(
            resample(&jobs, &BootstrapSpec { extent: DAY - 1, ..spec(DAY) }, &mut stream(1, 0, Purpose::Bootstrap))
                .is_empty()
        );
    }

    #[test]
    fn same_seed_same_resample_other_replication_other_resample() {
        let jobs = log();
        let s = spec(60 * DAY);
        let a = resample(&jobs, &s, &mut stream(7, 3, Purpose::Bootstrap));
        let b = resample(&jobs, &s, &mut stream(7, 3, Purpose::Bootstrap));
        let c = resample(&jobs, &s, &mut stream(7, 4, Purpose::Bootstrap));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn week_blocks_keep_weekdays_when_aligned() {
        // Jobs only on Mondays (local), clock 0 = a Wednesday noon (1970-01-07 12:00).
        let origin = 6 * DAY as i64 + 43_200;
        let phase = aligned_phase(origin, BlockLength::Week, 0);
        assert_eq!(phase, 4 * DAY + 43_200, "to Monday 1970-01-12 00:00");
        let jobs: Vec<Job> = (0..20u64).map(|w| job(phase + w * 7 * DAY + 9 * 3600, 60)).collect();
        let s = BootstrapSpec {
            block: BlockLength::Week,
            phase,
            extent: phase + 20 * 7 * DAY,
            horizon: 365 * DAY,
            draw: Draw::Uniform,
        };
        let out = resample(&jobs, &s, &mut stream(1, 0, Purpose::Bootstrap));
        assert_eq!(out.len(), 53);
        // The output clock starts on a Monday: every job is on day 0 of its week at 09:00.
        assert!(out.iter().all(|j| j.submit % (7 * DAY) == 9 * 3600));
        assert_eq!(aligned_phase(0, BlockLength::Day, 0), 0);
        assert_eq!(aligned_phase(1, BlockLength::Day, 0), DAY - 1);
    }

    /// Local midnight of a date, seconds since 1970.
    fn midnight(date: &str) -> i64 {
        Date::parse(date).unwrap().to_days() * DAY as i64
    }

    /// `years` of weekly blocks from `origin` (a Monday): week i has three jobs whose
    /// runtime is 1000 + i, so every output job tells which source week it came from.
    fn weekly_log(weeks: u64) -> Vec<Job> {
        (0..weeks).flat_map(|w| (0..3).map(move |h| job(w * 7 * DAY + h * 3600 + 600, 1000 + w))).collect()
    }

    fn season_spec(
        weeks_in_log: u64,
        horizon: SimTime,
        window_weeks: u32,
        source: &str,
        output: &str,
    ) -> BootstrapSpec {
        BootstrapSpec {
            block: BlockLength::Week,
            phase: 0,
            extent: weeks_in_log * 7 * DAY,
            horizon,
            draw: Draw::Season(Seasons {
                window_weeks,
                source_origin: midnight(source),
                output_origin: midnight(output),
            }),
        }
    }

    fn seasons(spec: &BootstrapSpec) -> Seasons {
        match spec.draw {
            Draw::Season(s) => s,
            Draw::Uniform => panic!("a season spec"),
        }
    }

    /// For every output week: how far (in days of the year) the source week it copies
    /// lies from it.
    fn season_offsets(out: &[Job], spec: &BootstrapSpec, s: &Seasons) -> Vec<f64> {
        let week = 7 * DAY;
        (0..spec.output_blocks() as u64)
            .map(|k| {
                let j = out.iter().find(|j| j.submit / week == k).expect("every output week has jobs");
                let source_day = (s.source_origin + ((j.runtime - 1000) * week) as i64) / DAY as i64;
                let output_day = (s.output_origin + (k * week) as i64) / DAY as i64;
                days_apart_in_year(day_of_year(source_day), day_of_year(output_day))
            })
            .collect()
    }

    #[test]
    fn days_of_the_year_wrap_round_new_year() {
        assert_eq!(day_of_year(midnight("2026-01-01") / DAY as i64), 0.0);
        assert_eq!(day_of_year(midnight("2024-12-31") / DAY as i64), 365.0);
        assert_eq!(day_of_year(midnight("2026-03-01") / DAY as i64), 59.0);
        let a = day_of_year(midnight("2025-12-30") / DAY as i64);
        let b = day_of_year(midnight("2026-01-02") / DAY as i64);
        assert!((days_apart_in_year(a, b) - 3.2425).abs() < 1e-9, "{}", days_apart_in_year(a, b));
    }

    #[test]
    fn a_season_draw_takes_every_week_from_its_part_of_the_year() {
        // Three years of a log starting Monday 2001-01-01; two years of output from Monday 2026-09-07.
        let jobs = weekly_log(156);
        for window in [0, 2, 4] {
            let spec = season_spec(156, 2 * 365 * DAY, window, "2001-01-01", "2026-09-07");
            let reach = 7.0 * f64::from(window) + 3.5;
            for r in 0..5 {
                let out = resample(&jobs, &spec, &mut stream(9, r, Purpose::Bootstrap));
                let offsets = season_offsets(&out, &spec, &seasons(&spec));
                assert!(
                    offsets.iter().all(|&d| d <= reach),
                    "window ±{window} weeks: a week came from {:.1} days away in the year",
                    offsets.iter().copied().fold(0.0, f64::max)
                );
            }
            assert_eq!(widening(&jobs, &spec), None, "three years leave every window filled");
        }
        // The check above is not vacuous: a uniform draw scrambles the seasons.
        let season = season_spec(156, 2 * 365 * DAY, 2, "2001-01-01", "2026-09-07");
        let spec = BootstrapSpec { draw: Draw::Uniform, ..season };
        let uniform =
            season_offsets(&resample(&jobs, &spec, &mut stream(9, 0, Purpose::Bootstrap)), &spec, &seasons(&season));
        let far = uniform.iter().filter(|&&d| d > 17.5).count();
        assert!(far > uniform.len() / 2, "uniform draws: only {far} of {} weeks out of season", uniform.len());
    }

    #[test]
    fn a_season_window_of_w_weeks_holds_2w_plus_1_weeks_per_year_of_log() {
        let jobs = weekly_log(156);
        for (window, per_year) in [(0, 1), (2, 5)] {
            let spec = season_spec(156, 365 * DAY, window, "2001-01-01", "2026-09-07");
            let cands = season_candidates(&source_blocks(&jobs, &spec), &spec);
            assert_eq!(cands.len(), 53);
            for c in &cands {
                assert!(
                    (3 * per_year - 1..=3 * per_year + 1).contains(&c.blocks.len()),
                    "window {window}: {} candidates",
                    c.blocks.len()
                );
                assert_eq!(c.window_weeks, window);
            }
        }
    }

    #[test]
    fn a_log_shorter_than_a_year_widens_the_window_to_the_nearest_weeks_and_says_so() {
        // Ten weeks from Monday 2001-09-03 (September to early November); a year of output.
        let jobs = weekly_log(10);
        let spec = season_spec(10, 365 * DAY, 2, "2001-09-03", "2026-09-07");
        let w = widening(&jobs, &spec).expect("most of the year has no week of the log within ±2 weeks");
        assert_eq!((w.blocks, w.asked_weeks), (53, 2));
        assert!(w.widened > 30 && w.widened < 53, "{w:?}");
        assert!(w.widest_weeks >= 20 && w.widest_weeks <= 27, "{w:?}");
        let out = resample(&jobs, &spec, &mut stream(3, 0, Purpose::Bootstrap));
        let offsets = season_offsets(&out, &spec, &seasons(&spec));
        // September output weeks are in the log's window; the rest take the nearest weeks.
        assert!(offsets[..6].iter().all(|&d| d <= 17.5), "{:?}", &offsets[..6]);
        let blocks = source_blocks(&jobs, &spec);
        let cands = season_candidates(&blocks, &spec);
        let day = |t: i64| day_of_year(t.div_euclid(DAY as i64));
        for (k, c) in cands.iter().enumerate() {
            assert!(!c.blocks.is_empty());
            assert!(offsets[k] <= 7.0 * f64::from(c.window_weeks) + 3.5, "week {k} came from outside its window");
            if c.window_weeks > 2 {
                // Widened just enough: no week of the log lies within one week less.
                let at = day(midnight("2026-09-07") + (k as u64 * 7 * DAY) as i64);
                let nearest = blocks
                    .iter()
                    .map(|(start, _)| days_apart_in_year(day(midnight("2001-09-03") + *start as i64), at))
                    .fold(f64::INFINITY, f64::min);
                assert!(nearest > 7.0 * f64::from(c.window_weeks - 1) + 3.5, "week {k}: {c:?}, nearest {nearest}");
            }
        }
    }
}
