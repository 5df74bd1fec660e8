//! Block bootstrap of a log: many plausible years out of one, made of whole days or whole
//! weeks of the log, so the daily and weekly rhythm of submissions (and the bursts within
//! a day) survive resampling.
//!
//! ```text
//! log (jobs on its own clock):  |  week 0  |  week 1  |  week 2  | … |  (complete blocks only)
//! resample (the scenario clock): | pick w₂ | pick w₀ | pick w₂ | … |  until the horizon
//! ```
//!
//! Output block k covers `[k·L, (k+1)·L)` on the scenario clock; each is a copy of a
//! source block drawn uniformly with replacement, every job keeping its offset within the
//! block (so its time of day and weekday, when the phase is aligned with
//! [`aligned_phase`]), runtime, size and walltime factor. The last output block is cut at
//! the horizon. Source blocks run from `phase` in steps of L; only blocks wholly inside
//! the log's period are used, so a half-recorded first or last day never looks like a
//! quiet one.
//!
//! The draws come from the caller's generator: for replication r of a scenario this is
//! `rng::stream(seed, r, Purpose::Bootstrap)`, so each replication is a different
//! resample, the same for every policy (common random numbers), and independent of every
//! other stream.

use rand::RngExt;

use crate::rng::SimRng;
use crate::units::{DAY, SimTime};
use crate::workload::Job;

/// Block length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// Whole days (keeps the daily rhythm; weekdays get mixed).
    Day,
    /// Whole weeks (keeps daily and weekly rhythm).
    Week,
}

impl Block {
    /// Length in seconds.
    pub fn seconds(self) -> SimTime {
        match self {
            Block::Day => DAY,
            Block::Week => 7 * DAY,
        }
    }
}

/// What to resample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BootstrapSpec {
    /// Block length.
    pub block: Block,
    /// Time on the jobs' clock of the first source block boundary (`< block length`).
    pub phase: SimTime,
    /// End of the log's period on the jobs' clock (e.g. the last submission + 1).
    pub extent: SimTime,
    /// Length of the output (the scenario's horizon).
    pub horizon: SimTime,
}

/// The complete source blocks: `(start time, range of job indices)`. Jobs must be
/// sorted by submission.
pub fn source_blocks(jobs: &[Job], spec: &BootstrapSpec) -> Vec<(SimTime, std::ops::Range<usize>)> {
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

/// One resample over `[0, horizon)`, sorted by submission; empty when the log has no
/// complete block. Jobs keep every field but `submit` (and `ordinal`, renumbered over
/// the group's jobs as [`crate::workload::JobStream::from_jobs`] does).
pub fn resample(jobs: &[Job], spec: &BootstrapSpec, rng: &mut SimRng) -> Vec<Job> {
    let blocks = source_blocks(jobs, spec);
    let mut out = Vec::new();
    if blocks.is_empty() {
        return out;
    }
    let len = spec.block.seconds();
    let mut k: SimTime = 0;
    while k * len < spec.horizon {
        let (start, range) = blocks[rng.random_range(0..blocks.len())].clone();
        for j in &jobs[range] {
            let submit = k * len + (j.submit - start);
            if submit >= spec.horizon {
                break;
            }
            out.push(Job { submit, ..j.clone() });
        }
        k += 1;
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
pub fn aligned_phase(origin_local: i64, block: Block, weekday: u8) -> SimTime {
    let day = DAY as i64;
    let next_midnight = (origin_local.div_euclid(day) + i64::from(origin_local.rem_euclid(day) != 0)) * day;
    let mut t = next_midnight;
    if block == Block::Week {
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
    use crate::rng::{Purpose, stream};
    use crate::workload::NO_DEADLINE;

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
        }
    }

    /// Ten days of a log whose day d has d + 1 jobs, each at (hour i, runtime = day).
    fn log() -> Vec<Job> {
        (0..10u64).flat_map(|d| (0..=d).map(move |i| job(d * DAY + i * 3600 + 600, 1000 + d))).collect()
    }

    fn spec(horizon: SimTime) -> BootstrapSpec {
        BootstrapSpec { block: Block::Day, phase: 0, extent: 10 * DAY, horizon }
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
        let phase = aligned_phase(origin, Block::Week, 0);
        assert_eq!(phase, 4 * DAY + 43_200, "to Monday 1970-01-12 00:00");
        let jobs: Vec<Job> = (0..20u64).map(|w| job(phase + w * 7 * DAY + 9 * 3600, 60)).collect();
        let s = BootstrapSpec { block: Block::Week, phase, extent: phase + 20 * 7 * DAY, horizon: 365 * DAY };
        let out = resample(&jobs, &s, &mut stream(1, 0, Purpose::Bootstrap));
        assert_eq!(out.len(), 53);
        // The output clock starts on a Monday: every job is on day 0 of its week at 09:00.
        assert!(out.iter().all(|j| j.submit % (7 * DAY) == 9 * 3600));
        assert_eq!(aligned_phase(0, Block::Day, 0), 0);
        assert_eq!(aligned_phase(1, Block::Day, 0), DAY - 1);
    }
}
