//! Out of sample within one policy regime, under a site's documented rules (issue 22
//! item 3: `burstsim validate --trace LOG --out-of-sample --site-rules kth`).
//!
//! [`super::holdout`] splits a log at its median submission, which for KTH-SP2 puts
//! the rule change of 6 June 1997 inside the predicted half, and it simulates without
//! the site's rules. This check keeps to one regime and applies the rules:
//!
//! - **fit** (`burstsim fit`, unchanged: load, request bands each with its own
//!   hour-of-week profile, size classes, requested and run times drawn together, monthly
//!   seasons) on the jobs submitted before the
//!   split of [`SiteRules::split`] (for KTH: 30 September 1996 – 31 January 1997, local
//!   time);
//! - **simulate** the test period, from the split to [`SiteRules::regime_end`] (1
//!   February – 5 June 1997, 125 days; the fit's warm-up before it), on the same pool
//!   and scheduler as the replay, with the same time-of-day limits
//!   ([`SiteRules::limits`], expanded on the scenario's clock, which is local wall
//!   time), and as in the site-rules replay no outages and no scheduler cycle: the fitted
//!   ones are dropped (the cycle is inferred from the rounding of the waits, which the
//!   issue rules out; the replay under the rules has no outages either);
//! - the documented rules also bound each simulated job: no run was longer than the
//!   longest MaxTime (60 h), so a fitted run time or request above it is cut to it
//!   ([`cut_to_longest`]; the log has no request above 60 h). How many were cut is
//!   reported;
//! - **compare** each simulated wait, rounded to the minute ([`super::site_rules::to_minute`]),
//!   by the class of its request ([`super::site_rules::class_of`]) with the recorded
//!   waits of the test period, as the site-rules replay counts them (its `feb-jun5`
//!   figures, shown beside for reference). The interval on each figure is the 95%
//!   Student-t confidence interval of the mean over replications.
//!
//! Nothing is tuned: every number is from the fit on the first period or from the
//! documented rules.

use super::fit::{LogFitOptions, fit};
use super::holdout::{HoldoutError, dated_toml, load};
use super::replay::ReplayOptions;
use super::site_rules::{CLASSES, Figures, RulesError, SiteRules, class_of, rules_replay, to_minute};
use crate::engine::simulate;
use crate::job::Job;
use crate::job::exact_factor;
use crate::stats::{Summary, summarize};
use crate::trace::Trace;
use crate::units::{DAY, SimTime};
use crate::workload::JobStream;

/// The fit and test periods on the log's clock (UTC seconds since 1970), `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periods {
    /// Submissions before this are fitted (local midnight of [`SiteRules::split`]).
    pub split_utc: i64,
    /// The test period ends here (local midnight of [`SiteRules::regime_end`]).
    pub end_utc: i64,
    /// Whole local days of the test period.
    pub test_days: i64,
}

impl Periods {
    /// The periods of `rules`.
    pub fn of(rules: SiteRules) -> Periods {
        Periods {
            split_utc: rules.midnight_utc(rules.split()),
            end_utc: rules.midnight_utc(rules.regime_end()),
            test_days: rules.regime_end().to_days() - rules.split().to_days(),
        }
    }

    /// Whether a submission (UTC) is in the fit period.
    pub fn in_fit(&self, utc: i64) -> bool {
        utc < self.split_utc
    }

    /// Whether a submission (UTC) is in the test period.
    pub fn in_test(&self, utc: i64) -> bool {
        (self.split_utc..self.end_utc).contains(&utc)
    }
}

/// Cuts a simulated job to the longest MaxTime `longest` (seconds): run time and request
/// at most it, the request exact to the second. Returns whether anything was cut.
pub fn cut_to_longest(job: &mut Job, longest: SimTime) -> bool {
    let cut_runtime = job.runtime > longest;
    if cut_runtime {
        job.runtime = longest;
    }
    let cut_request = job.walltime_request(job.runtime, None) > longest;
    if cut_request {
        job.walltime_factor = exact_factor(longest as i64, job.runtime);
    }
    cut_runtime || cut_request
}

/// What one replication of the test period gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replication {
    /// Jobs submitted in the test period that started, by class (then all).
    pub jobs: [usize; 4],
    /// Their mean wait (rounded to the minute per job), hours, by class (then all).
    pub mean_h: [f64; 4],
    /// Offered load of the jobs submitted in the test period: Σ size × run time ÷
    /// (cluster × test period).
    pub load: f64,
    /// Jobs (of the whole run) whose run time or request was cut to the longest MaxTime.
    pub cut: usize,
    /// Jobs submitted in the test period that never started.
    pub unstarted: usize,
}

/// The out-of-sample check under a site's rules.
#[derive(Clone, Debug)]
pub struct RulesHoldout {
    /// Whose rules.
    pub rules: SiteRules,
    /// The scenario fitted on the fit period, dated for the test period (TOML).
    pub scenario_toml: String,
    /// Jobs of the fit period.
    pub fit_jobs: usize,
    /// The fitted offered load (of the fit period).
    pub fit_load: f64,
    /// Local days from the fit period's first submission's day to the split.
    pub fit_days: i64,
    /// Days of the test period.
    pub test_days: i64,
    /// Offered load of the test period's recorded jobs (as [`Replication::load`]).
    pub recorded_load: f64,
    /// The site-rules replay's figures (recorded and replayed, by period and class).
    pub replay: Figures,
    /// Per replication.
    pub simulated: Vec<Replication>,
}

/// Why the check cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RulesHoldoutError {
    /// The replay under the rules (for the recorded figures) failed.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The fit or the fitted scenario failed.
    #[error(transparent)]
    Fit(#[from] HoldoutError),
}

/// Fits the fit period of `trace` and simulates the test period `replications` times
/// (seed `seed`) under `rules` (module doc), on `o`'s cluster (a pool: nodes, outages,
/// cycle and fair-share are not taken).
///
/// # Errors
/// [`RulesHoldoutError`] when the log has no clock or no job in the regime, or the fit
/// period cannot be fitted.
pub fn rules_out_of_sample(
    trace: &Trace,
    o: &ReplayOptions,
    rules: SiteRules,
    replications: u32,
    seed: u64,
) -> Result<RulesHoldout, RulesHoldoutError> {
    let unix = trace.info.unix_start.ok_or(RulesError::NoClock)?;
    let base = rules_replay(trace, o, rules, 0, seed)?;
    let periods = Periods::of(rules);

    // Recorded load of the test period, from the replay's converted jobs.
    let conv = &base.replay.converted;
    let work: f64 = conv
        .source
        .iter()
        .zip(&conv.jobs)
        .filter(|(s, _)| periods.in_test(unix + trace.jobs[**s].submit))
        .map(|(_, j)| f64::from(j.gpus) * j.runtime as f64)
        .sum();
    let test_seconds = (periods.test_days * DAY as i64) as f64;
    let recorded_load = work / (f64::from(o.gpus) * test_seconds);

    let mut first = trace.clone();
    first.jobs.retain(|j| periods.in_fit(unix + j.submit));
    if first.jobs.is_empty() {
        return Err(HoldoutError::Log(format!("no job of the log was submitted before {}", rules.split())).into());
    }
    let fo = LogFitOptions {
        gpus: Some(o.gpus),
        horizon_days: Some(periods.test_days as f64),
        units: o.units,
        procs_per_gpu: o.procs_per_gpu,
        name: "out-of-sample-site-rules".into(),
        source: format!("the log's jobs submitted before {} (local time)", rules.split()),
        group: None,
    };
    let mut f = fit(&first, &fo).map_err(HoldoutError::from)?;
    // As in the site-rules replay: no outages, no scheduler cycle (module doc).
    f.outages = None;
    f.cycle = None;
    let text = format!(
        "# Out of sample under the site's documented rules (src/evidence/rules_holdout.rs): the fitted\n\
         # outages and scheduler cycle are left out, as in the site-rules replay; the time-of-day\n\
         # limits are applied by the check, not written here.\n{}",
        dated_toml(&f, rules.split(), "the test period's first day")?
    );
    let mut scn = load(&text, replications, seed)?;
    // The rules on the scenario's clock: local wall time, 0 at the warm-up's first midnight.
    let zero = rules.split().to_days() * 86_400 - scn.warmup as i64;
    let first_day = zero.div_euclid(86_400) - 1;
    let days = (scn.horizon / DAY) as i64 + 60;
    scn.campus.time_limits = rules.limits(first_day, days, |local| local - zero);
    scn.campus.scheduler = o.scheduler; // the replay's (the fit writes EASY as an assumption)
    let longest = rules.longest();

    let mut simulated = Vec::with_capacity(replications as usize);
    for r in 0..u64::from(replications) {
        let mut stream = JobStream::generate(&scn, r);
        let cut = stream.jobs.iter_mut().map(|j| cut_to_longest(j, longest)).filter(|&c| c).count();
        let out = simulate(&scn, &stream, 0, r);
        let mut sums = [(0usize, 0i64); 4];
        let (mut work, mut unstarted) = (0.0, 0);
        for (rec, j) in out.records.iter().zip(&stream.jobs) {
            if j.submit < scn.warmup || j.submit >= scn.horizon {
                continue;
            }
            work += f64::from(j.gpus) * j.runtime as f64;
            if rec.start == SimTime::MAX {
                unstarted += 1;
                continue;
            }
            let request = j.walltime_request(j.runtime, scn.campus.partition(j.partition).max_walltime);
            let w = to_minute((rec.start - j.submit) as i64);
            for k in [class_of(request as i64), 3] {
                sums[k].0 += 1;
                sums[k].1 += w;
            }
        }
        simulated.push(Replication {
            jobs: sums.map(|s| s.0),
            mean_h: sums.map(|(n, w)| if n == 0 { f64::NAN } else { w as f64 / n as f64 / 3600.0 }),
            load: work / (f64::from(o.gpus) * (scn.horizon - scn.warmup) as f64),
            cut,
            unstarted,
        });
    }
    Ok(RulesHoldout {
        rules,
        scenario_toml: text,
        fit_jobs: f.jobs,
        fit_load: f.offered_load,
        fit_days: f.start.map_or(0, |d| rules.split().to_days() - d.to_days()),
        test_days: periods.test_days,
        recorded_load,
        replay: base.figures,
        simulated,
    })
}

/// Index of the test period in [`Figures`] (`feb-jun5`).
const TEST: usize = 1;
/// Index of the fit period in [`Figures`] (`sep-jan`).
const FIT: usize = 0;
/// The target: simulated mean within ±30% of recorded.
pub const TOLERANCE: f64 = 0.30;

impl RulesHoldout {
    /// Mean wait of class `k` over replications, hours, with its 95% CI.
    pub fn mean(&self, k: usize) -> Summary {
        summarize(&self.simulated.iter().map(|s| s.mean_h[k]).collect::<Vec<_>>())
    }

    /// Jobs of class `k` per replication, with its 95% CI.
    pub fn jobs(&self, k: usize) -> Summary {
        summarize(&self.simulated.iter().map(|s| s.jobs[k] as f64).collect::<Vec<_>>())
    }

    /// Offered load of the simulated test period, with its 95% CI.
    pub fn load(&self) -> Summary {
        summarize(&self.simulated.iter().map(|s| s.load).collect::<Vec<_>>())
    }

    /// Recorded jobs and mean wait (hours) of class `k` in the test period.
    pub fn recorded(&self, k: usize) -> (usize, f64) {
        let c = self.replay[TEST][k];
        (c.n, c.recorded_h)
    }

    /// Whether class `k`'s simulated mean is within ±30% of the recorded one.
    pub fn met(&self, k: usize) -> bool {
        let ratio = self.mean(k).mean / self.recorded(k).1;
        (ratio - 1.0).abs() <= TOLERANCE
    }

    /// `class,recorded_jobs,simulated_jobs,recorded_mean_h,simulated_mean_h,ci95_low_h,ci95_high_h,ratio,ratio_low,ratio_high,met,replay_mean_h,fit_period_jobs,replications`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "class,recorded_jobs,simulated_jobs,recorded_mean_h,simulated_mean_h,ci95_low_h,ci95_high_h,ratio,\
             ratio_low,ratio_high,met,replay_mean_h,fit_period_jobs,replications\n",
        );
        for (k, class) in CLASSES.iter().enumerate() {
            let (n, rec) = self.recorded(k);
            let m = self.mean(k);
            s.push_str(&format!(
                "{class},{n},{},{rec},{},{},{},{},{},{},{},{},{},{}\n",
                self.jobs(k).mean,
                m.mean,
                m.low(),
                m.high(),
                m.mean / rec,
                m.low() / rec,
                m.high() / rec,
                self.met(k),
                self.replay[TEST][k].simulated_h,
                self.replay[FIT][k].n,
                m.n
            ));
        }
        s
    }

    /// The table people read, with the evidence lines under it.
    pub fn to_table(&self) -> String {
        let mut s = format!(
            "{:<7} {:>8} {:>22} {:>9} {:>24} {:>18} {:>7} {:>8}\n",
            "request",
            "rec jobs",
            "sim jobs (95% CI)",
            "recorded",
            "simulated (95% CI)",
            "sim/rec (95% CI)",
            "±30%",
            "replay"
        );
        for (k, class) in CLASSES.iter().enumerate() {
            let (n, rec) = self.recorded(k);
            let m = self.mean(k);
            let j = self.jobs(k);
            s.push_str(&format!(
                "{:<7} {:>8} {:>22} {:>9.3} {:>24} {:>18} {:>7} {:>8.3}\n",
                class,
                n,
                format!("{:.0} [{:.0}, {:.0}]", j.mean, j.low(), j.high()),
                rec,
                format!("{:.3} [{:.3}, {:.3}]", m.mean, m.low(), m.high()),
                format!("{:.2} [{:.2}, {:.2}]", m.mean / rec, m.low() / rec, m.high() / rec),
                if self.met(k) { "met" } else { "missed" },
                self.replay[TEST][k].simulated_h
            ));
        }
        let l = self.load();
        s.push_str(&format!(
            "\noffered load: fitted on the fit period {:.3}; test period recorded {:.3}, simulated {:.3} [{:.3}, {:.3}]\n",
            self.fit_load,
            self.recorded_load,
            l.mean,
            l.low(),
            l.high()
        ));
        let per_day = |n: f64, days: f64| n / days;
        let fit_days = self.fit_days as f64;
        s.push_str("jobs per day by request class (fit period recorded; test period recorded, simulated):\n");
        for (k, class) in CLASSES.iter().enumerate() {
            s.push_str(&format!(
                "  {:<7} {:>7.1}; {:>7.1}, {:>7.1}\n",
                class,
                per_day(self.replay[FIT][k].n as f64, fit_days),
                per_day(self.recorded(k).0 as f64, self.test_days as f64),
                per_day(self.jobs(k).mean, self.test_days as f64)
            ));
        }
        let cut = summarize(&self.simulated.iter().map(|r| r.cut as f64).collect::<Vec<_>>());
        let unstarted = self.simulated.iter().map(|r| r.unstarted).sum::<usize>();
        s.push_str(&format!(
            "simulated jobs cut to the longest MaxTime ({} h): {:.1} per replication; never started: {unstarted} in all\n",
            self.rules.longest() / 3600,
            cut.mean
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date::Date;

    fn utc(y: i32, m: u8, d: u8, hour: i64) -> i64 {
        Date::new(y, m, d).unwrap().to_days() * 86_400 + hour * 3600
    }

    /// KTH: the fit period ends at 1 February 1997 00:00 CET (31 January 23:00 UTC), the
    /// test period at 6 June 1997 00:00 CEST (5 June 22:00 UTC); 125 days between.
    #[test]
    fn the_kth_periods_are_local_midnights() {
        let p = Periods::of(SiteRules::Kth);
        assert_eq!(p.split_utc, utc(1997, 1, 31, 23));
        assert_eq!(p.end_utc, utc(1997, 6, 5, 22));
        assert_eq!(p.test_days, 125);
        assert!(p.in_fit(utc(1996, 9, 30, 12)));
        assert!(p.in_fit(p.split_utc - 1) && !p.in_test(p.split_utc - 1));
        assert!(!p.in_fit(p.split_utc) && p.in_test(p.split_utc));
        assert!(p.in_test(p.end_utc - 1) && !p.in_test(p.end_utc) && !p.in_fit(p.end_utc));
        assert_eq!(Periods::of(SiteRules::KthMaxTimeOnly), p);
    }

    #[test]
    fn jobs_are_cut_to_the_longest_maxtime_exactly() {
        let h = 3600;
        let longest = SiteRules::Kth.longest();
        assert_eq!(longest, 60 * h);
        // Within: untouched.
        let mut j = Job { walltime_factor: 1.5, ..Job::plain(0, 1, 10 * h, false) };
        assert!(!cut_to_longest(&mut j, longest));
        assert_eq!(j.walltime_request(j.runtime, None), 15 * h);
        // A request over 60 h: cut to 60 h to the second, run time kept.
        let mut j = Job { walltime_factor: 7.0, ..Job::plain(0, 1, 10 * h + 7, false) };
        assert!(cut_to_longest(&mut j, longest));
        assert_eq!(j.runtime, 10 * h + 7);
        assert_eq!(j.walltime_request(j.runtime, None), 60 * h);
        // A run over 60 h: both cut.
        let mut j = Job { walltime_factor: 1.0, ..Job::plain(0, 1, 80 * h, false) };
        assert!(cut_to_longest(&mut j, longest));
        assert_eq!((j.runtime, j.walltime_request(j.runtime, None)), (60 * h, 60 * h));
    }
}
