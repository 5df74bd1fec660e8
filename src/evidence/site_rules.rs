//! A log replayed under its site's documented rules (issue 22 item 3: `burstsim validate
//! --trace LOG --site-rules kth`).
//!
//! KTH-SP2 (Parallel Workloads Archive notes for the log): before 6 June 1997 runs were
//! limited to 4 h on weekdays 07–16, 15 h on weekday nights and 60 h at weekends, and no
//! job could run across 07:00 and 16:00 on weekdays. Written as time-of-day limits
//! ([`crate::scenario::recurring`]): windows open on weekdays at 07:00 (4 h), Monday to
//! Thursday at 16:00 (15 h) and Friday at 16:00 (60 h, until Monday 07:00), each job
//! ending in its window. Local time is Europe/Stockholm (the log's `TimeZoneString`):
//! CET with EU summer time.
//!
//! The replay keeps the jobs submitted before the rules changed (6 June 1997, local
//! midnight) and changes nothing else of [`super::replay`]: no outages, no scheduler
//! cycle, the recorded requests (taken exactly: `walltime_factor` is nudged so that the
//! engine's request is the recorded one to the second, not one second over it, which
//! would put a 4-h request over the 4-h limit). Waits are compared at the log's own
//! resolution: the log's waits are whole minutes, so the simulated ones are rounded to the
//! nearest minute. Mean waits are reported by requested-time class (up to 4 h, 4–15 h,
//! over 15 h) and overall, for September to January (`in sample`: the period looked at
//! while building this), February to 5 June (`out of sample`) and both.
//!
//! **Input shaking.** Each of `shakes` further replays moves every submission by a
//! uniform whole number of seconds in ±[`SHAKE_SECONDS`] (the log's resolution, one
//! minute; stream `(seed, k, SubmitShake)`), and the range over those replays is the
//! interval on each figure: how much the figures owe to the exact order of near-ties.

use rand::RngExt;

use super::replay::{Replay, ReplayError, ReplayOptions, replay_converted, to_jobs};
use crate::date::Date;
use crate::job::exact_factor;
use crate::rng::{Purpose, stream};
use crate::scenario::recurring::{self, Days, LimitRule, TimeLimits};
use crate::trace::Trace;
use crate::trace::convert::Converted;
use crate::units::{DAY, HOUR, SimTime};

/// Largest shift of a submission by input shaking, seconds (the log's one-minute
/// resolution).
pub const SHAKE_SECONDS: i64 = 60;

/// Requested-time classes: upper bounds in hours (the KTH limits 4 h and 15 h), then all.
pub const CLASSES: [&str; 4] = ["<=4h", "4-15h", ">15h", "all"];

/// Periods of the comparison.
pub const PERIODS: [&str; 3] = ["sep-jan", "feb-jun5", "regime"];

/// A site whose documented rules the replay can apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteRules {
    /// KTH-SP2 before 6 June 1997.
    Kth,
    /// The same MaxTimes without the rule that no job runs across 07:00 and 16:00 (a
    /// sensitivity check: which part of the documented rules the figures owe to).
    KthMaxTimeOnly,
}

impl SiteRules {
    /// `kth`, `kth-maxtime-only`.
    pub fn parse(name: &str) -> Option<SiteRules> {
        match name.to_ascii_lowercase().as_str() {
            "kth" => Some(SiteRules::Kth),
            "kth-maxtime-only" => Some(SiteRules::KthMaxTimeOnly),
            _ => None,
        }
    }

    /// The time-of-day limits as rules of a weekly schedule.
    pub fn rules(self) -> Vec<LimitRule> {
        let end_in_window = self == SiteRules::Kth;
        let rule = |days, hour: u32, max_h: SimTime| LimitRule {
            days,
            second_of_day: hour * 3600,
            max: Some(max_h * HOUR),
            end_in_window,
        };
        match self {
            SiteRules::Kth | SiteRules::KthMaxTimeOnly => vec![
                rule(Days::WEEKDAY, 7, 4),
                rule(Days(0b0_1111), 16, 15), // Monday to Thursday nights
                rule(Days::one(4), 16, 60),   // Friday 16:00 to Monday 07:00
            ],
        }
    }

    /// The first local day the rules no longer hold.
    pub fn regime_end(self) -> Date {
        match self {
            SiteRules::Kth | SiteRules::KthMaxTimeOnly => Date::new(1997, 6, 6).expect("a day"),
        }
    }

    /// The first local day of the out-of-sample period.
    pub fn split(self) -> Date {
        match self {
            SiteRules::Kth | SiteRules::KthMaxTimeOnly => Date::new(1997, 2, 1).expect("a day"),
        }
    }

    /// The time-of-day limits of [`SiteRules::rules`] from local day `first_day` (days
    /// since 1970-01-01) for `days` days, on a clock given by `to_clock` (local wall time
    /// to the clock): the replay's clock (the log's, UTC) or a fitted scenario's (local
    /// wall time), the same rules either way.
    pub fn limits(self, first_day: i64, days: i64, to_clock: impl Fn(i64) -> i64) -> TimeLimits {
        TimeLimits::expand(&self.rules(), first_day, days, to_clock)
    }

    /// The longest MaxTime of any window, seconds (60 h for KTH): no run was longer.
    pub fn longest(self) -> SimTime {
        self.rules().iter().filter_map(|r| r.max).max().unwrap_or(SimTime::MAX)
    }

    /// UTC of local midnight starting `day`.
    pub fn midnight_utc(self, day: Date) -> i64 {
        self.local_to_utc(day.to_days() * 86_400)
    }

    /// UTC of a local wall time (seconds since 1970-01-01 as if local were UTC).
    pub fn local_to_utc(self, local: i64) -> i64 {
        match self {
            SiteRules::Kth | SiteRules::KthMaxTimeOnly => recurring::eu_local_to_utc(local),
        }
    }
}

/// Jobs, recorded and simulated mean wait (hours) of one period and class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PeriodCell {
    /// Jobs with a recorded wait that started in the replay.
    pub n: usize,
    /// Recorded mean wait, hours.
    pub recorded_h: f64,
    /// Simulated mean wait (rounded to the minute per job), hours.
    pub simulated_h: f64,
}

/// `[period][class]`, in the order of [`PERIODS`] and [`CLASSES`].
pub type Figures = [[PeriodCell; 4]; 3];

/// A replay under a site's rules, with its shaken replays.
#[derive(Clone, Debug)]
pub struct RulesReplay {
    /// Whose rules.
    pub rules: SiteRules,
    /// The unshaken replay (jobs submitted in the regime).
    pub replay: Replay,
    /// Its figures.
    pub figures: Figures,
    /// The figures of each shaken replay.
    pub shaken: Vec<Figures>,
    /// Jobs left out for being submitted after the rules changed.
    pub after_regime: usize,
    /// Recorded starts (with their recorded requests) over the MaxTime in force, and
    /// those within it that would not have ended in their window, of `checked`.
    pub recorded_breaks: (usize, usize),
    /// Recorded starts checked against the rules.
    pub checked: usize,
}

/// Why a replay under site rules cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The replay itself failed.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The log has no absolute clock, so times of day are unknown.
    #[error("the log has no UnixStartTime, so its times of day are unknown; site rules need it")]
    NoClock,
    /// No job is in the rules' regime.
    #[error("no job of the log was submitted before {0}, when the site's rules changed")]
    Empty(Date),
}

/// The class index (in [`CLASSES`]) of a request in seconds.
pub fn class_of(request: i64) -> usize {
    if request <= 4 * HOUR as i64 {
        0
    } else if request <= 15 * HOUR as i64 {
        1
    } else {
        2
    }
}

/// A wait in seconds rounded to the nearest whole minute, the log's resolution.
pub fn to_minute(wait: i64) -> i64 {
    (wait + 30).div_euclid(60) * 60
}

/// Replays `trace` under `rules` (module doc), then `shakes` more times with shaken
/// submissions (seed `seed`).
///
/// # Errors
/// [`RulesError`] when the log has no clock, no job in the regime, or the replay fails.
pub fn rules_replay(
    trace: &Trace,
    o: &ReplayOptions,
    rules: SiteRules,
    shakes: u32,
    seed: u64,
) -> Result<RulesReplay, RulesError> {
    let unix = trace.info.unix_start.ok_or(RulesError::NoClock)?;
    let mut conv = to_jobs(trace, o);
    let end_utc = rules.midnight_utc(rules.regime_end());
    let keep = conv.jobs.partition_point(|j| unix + conv.origin + (j.submit as i64) < end_utc);
    if keep == 0 {
        return Err(RulesError::Empty(rules.regime_end()));
    }
    let after_regime = conv.jobs.len() - keep;
    conv.jobs.truncate(keep);
    conv.recorded_wait.truncate(keep);
    conv.source.truncate(keep);
    if after_regime > 0 {
        conv.left_out.push(("submitted after the site's documented rules changed", after_regime));
    }
    let requests: Vec<i64> = conv
        .source
        .iter()
        .zip(&conv.jobs)
        .map(|(&s, j)| trace.jobs[s].requested_time.filter(|&r| r > 0).unwrap_or(j.runtime as i64))
        .collect();
    for (j, &r) in conv.jobs.iter_mut().zip(&requests) {
        if j.walltime_factor > 1.0 && r > j.runtime as i64 {
            j.walltime_factor = exact_factor(r, j.runtime);
        }
    }
    let origin_utc = unix + conv.origin;
    let first_day = (origin_utc + recurring::eu_local_offset(origin_utc)).div_euclid(86_400);
    let span_days = (conv.jobs.last().map_or(0, |j| j.submit) / DAY) as i64 + 60;
    let limits = rules.limits(first_day, span_days, |l| rules.local_to_utc(l) - origin_utc);
    let split_utc = rules.midnight_utc(rules.split());
    let period: Vec<usize> =
        conv.source.iter().map(|&s| usize::from(unix + trace.jobs[s].submit >= split_utc)).collect();
    let class: Vec<usize> = requests.iter().map(|&r| class_of(r)).collect();

    let (mut over, mut across, mut checked) = (0, 0, 0);
    for ((j, w), &r) in conv.jobs.iter().zip(&conv.recorded_wait).zip(&requests) {
        let Some(w) = w else { continue };
        let t = (j.submit as i64 + w).max(0) as SimTime;
        checked += 1;
        if !limits.within_max(t, r as SimTime) {
            over += 1;
        } else if !limits.may_start(t, r as SimTime) {
            across += 1;
        }
    }

    let base = replay_converted(trace, o, conv.clone(), &limits)?;
    let order: Vec<usize> = (0..conv.jobs.len()).collect();
    let figures = figures(&conv, &base, &order, &period, &class);
    let mut shaken = Vec::with_capacity(shakes as usize);
    for k in 0..shakes {
        let mut rng = stream(seed, u64::from(k), Purpose::SubmitShake);
        let mut c = conv.clone();
        for j in &mut c.jobs {
            let d: i64 = rng.random_range(-SHAKE_SECONDS..=SHAKE_SECONDS);
            j.submit = (j.submit as i64 + d).max(0) as SimTime;
        }
        let mut order: Vec<usize> = (0..c.jobs.len()).collect();
        order.sort_by_key(|&i| c.jobs[i].submit);
        let permuted = Converted {
            jobs: order.iter().map(|&i| c.jobs[i].clone()).collect(),
            recorded_wait: order.iter().map(|&i| c.recorded_wait[i]).collect(),
            source: order.iter().map(|&i| c.source[i]).collect(),
            ..c
        };
        let r = replay_converted(trace, o, permuted.clone(), &limits)?;
        shaken.push(figures_of(&permuted, &r, &order, &period, &class));
    }
    Ok(RulesReplay { rules, replay: base, figures, shaken, after_regime, recorded_breaks: (over, across), checked })
}

fn figures(c: &Converted, r: &Replay, order: &[usize], period: &[usize], class: &[usize]) -> Figures {
    figures_of(c, r, order, period, class)
}

/// The figures of a replay of `c` (whose job `i` is the unshaken job `order[i]`).
fn figures_of(c: &Converted, r: &Replay, order: &[usize], period: &[usize], class: &[usize]) -> Figures {
    let mut sums = [[(0usize, 0i64, 0i64); 4]; 3];
    for (i, &o) in order.iter().enumerate() {
        let (Some(rec), Some(start)) = (c.recorded_wait[i], r.starts[i]) else { continue };
        let w = start as i64 - c.jobs[i].submit as i64;
        let w = to_minute(w);
        for p in [period[o], 2] {
            for k in [class[o], 3] {
                let s = &mut sums[p][k];
                s.0 += 1;
                s.1 += rec;
                s.2 += w;
            }
        }
    }
    sums.map(|row| {
        row.map(|(n, rec, sim)| {
            let mean = |x: i64| if n == 0 { f64::NAN } else { x as f64 / n as f64 / 3600.0 };
            PeriodCell { n, recorded_h: mean(rec), simulated_h: mean(sim) }
        })
    })
}

impl RulesReplay {
    /// The lowest and highest simulated mean of a cell over the shaken replays (`None`
    /// without shaking).
    pub fn interval(&self, p: usize, k: usize) -> Option<(f64, f64)> {
        let v = self.shaken.iter().map(|f| f[p][k].simulated_h);
        let lo = v.clone().fold(f64::INFINITY, f64::min);
        let hi = v.fold(f64::NEG_INFINITY, f64::max);
        (!self.shaken.is_empty()).then_some((lo, hi))
    }

    /// `period,class,jobs,recorded_mean_h,simulated_mean_h,ratio,shaken_low_h,shaken_high_h,shakes`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "period,class,jobs,recorded_mean_h,simulated_mean_h,ratio,shaken_low_h,shaken_high_h,shakes\n",
        );
        for (p, name) in PERIODS.iter().enumerate() {
            for (k, class) in CLASSES.iter().enumerate() {
                let c = self.figures[p][k];
                let (lo, hi) =
                    self.interval(p, k).map_or((String::new(), String::new()), |(a, b)| (a.to_string(), b.to_string()));
                s.push_str(&format!(
                    "{name},{class},{},{},{},{},{lo},{hi},{}\n",
                    c.n,
                    c.recorded_h,
                    c.simulated_h,
                    c.simulated_h / c.recorded_h,
                    self.shaken.len()
                ));
            }
        }
        s
    }

    /// The table people read.
    pub fn to_table(&self) -> String {
        let mut s = format!(
            "{:<10} {:<7} {:>7} {:>10} {:>10} {:>8} {:>22}\n",
            "period", "request", "jobs", "recorded", "simulated", "sim/rec", "shaken (min-max)"
        );
        for (p, name) in PERIODS.iter().enumerate() {
            for (k, class) in CLASSES.iter().enumerate() {
                let c = self.figures[p][k];
                let band = self.interval(p, k).map_or("–".to_string(), |(a, b)| {
                    format!("{a:.3}-{b:.3} ({:.2}-{:.2}x)", a / c.recorded_h, b / c.recorded_h)
                });
                s.push_str(&format!(
                    "{:<10} {:<7} {:>7} {:>10.3} {:>10.3} {:>8.2} {:>22}\n",
                    name,
                    class,
                    c.n,
                    c.recorded_h,
                    c.simulated_h,
                    c.simulated_h / c.recorded_h,
                    band
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceJob;

    #[test]
    fn exact_factor_gives_the_request_to_the_second() {
        for (req, rt) in [(14_400i64, 1_000u64), (54_000, 7), (216_000, 13_333), (60, 59)] {
            let f = exact_factor(req, rt);
            let j = crate::job::Job { walltime_factor: f, ..crate::job::Job::plain(0, 1, rt, false) };
            assert_eq!(j.walltime_request(rt, None), req as SimTime, "{req} over {rt}");
        }
        assert_eq!(class_of(4 * 3600), 0);
        assert_eq!(class_of(4 * 3600 + 1), 1);
        assert_eq!(class_of(15 * 3600 + 1), 2);
    }

    /// Monday 6 January 1997, 10:00 CET: a 1-processor 10-h job (15-h class) waits for the
    /// night window at 16:00; a 2-h job starts at once; a 3-h job submitted at 14:00 would
    /// cross 16:00 and waits for it too.
    #[test]
    fn a_hand_computed_kth_day() {
        let unix = Date::new(1997, 1, 6).unwrap().to_days() * 86_400 + 9 * 3600; // 10:00 CET
        let job = |id: usize, submit: i64, runtime: i64, req: i64, wait: i64| {
            let mut j = TraceJob::new(id, id.to_string(), submit);
            j.start = Some(submit + wait);
            j.runtime = Some(runtime);
            j.procs = Some(1);
            j.requested_time = Some(req);
            j
        };
        let h = 3600;
        let mut t = Trace {
            jobs: vec![job(1, 0, 9 * h, 10 * h, 6 * h), job(2, 60, h, 2 * h, 0), job(3, 4 * h, h, 3 * h, 2 * h)],
            ..Trace::default()
        };
        t.info.unix_start = Some(unix);
        let r = rules_replay(&t, &ReplayOptions::new(4), SiteRules::Kth, 2, 1).unwrap();
        assert_eq!(r.replay.starts, [Some(6 * h as u64), Some(60), Some(6 * h as u64)]);
        let all = r.figures[2][3];
        assert_eq!(all.n, 3);
        assert!((all.simulated_h - 8.0 / 3.0).abs() < 1e-12, "{all:?}"); // 6 h, 0, 2 h
        assert!((all.recorded_h - all.simulated_h).abs() < 1e-12);
        assert_eq!(r.figures[0][3].n, 3, "all in the in-sample period");
        assert_eq!(r.recorded_breaks, (0, 0));
        assert_eq!(r.shaken.len(), 2);
        // Shaken by at most a minute, the 10-h job still starts at 16:00.
        for f in &r.shaken {
            assert!((f[2][1].simulated_h - 6.0).abs() <= 1.0 / 60.0 + 1e-9, "{:?}", f[2][1]);
        }
        // Submitted after 6 June 1997: left out.
        t.info.unix_start = Some(Date::new(1997, 6, 9).unwrap().to_days() * 86_400);
        assert!(matches!(rules_replay(&t, &ReplayOptions::new(4), SiteRules::Kth, 0, 1), Err(RulesError::Empty(_))));
    }
}
