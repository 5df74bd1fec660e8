//! What a log says about its cluster beyond its jobs: outages, the scheduler's cycle and
//! users' patience (issue 14). Used by `validate --trace --outages infer --cycle auto` and
//! by `fit`.
//!
//! # The rules
//!
//! **Outages.** The recorded schedule is rebuilt from each job's submission, recorded start
//! (submission + recorded wait) and run time, on the replay's clock and in its units. An
//! *outage* is a maximal interval `[a, b)` such that, throughout it:
//! 1. at least one job is waiting (submitted, not started);
//! 2. the free capacity (cluster size − sizes of the started, unfinished jobs) is at least
//!    the size of the *first* waiting job (the earliest submission; ties: log order);
//! 3. no job starts inside it (a start at `b` ends it);
//!
//! and that lasts at least [`MIN_OUTAGE`] (one hour). Jobs without a recorded wait are
//! left out of the rebuilt schedule. The reasoning: under any FCFS-based scheduler (EASY
//! included), a waiting head that fits starts at the next pass; at the cycles logs show
//! (a minute at KTH-SP2) and with starts rounded to the minute, no scheduling explains an
//! hour in which the head fits and nothing starts; the machine (or its scheduler) was
//! unavailable, or reserved for dedicated time the log does not record. The hour was
//! fixed before any replay with it was run; docs/VALIDATION.md shows the figures with
//! 10 minutes and 6 hours as well.
//!
//! **Rate and durations** ([`fit_outages`]): outages as a renewal process, time between
//! outages exponential with mean = (period − time in outages) ÷ count (the maximum-
//! likelihood estimate), durations by maximum likelihood among lognormal, gamma and
//! Weibull (the smallest AIC, [`super::mle`]), with an exponential fallback below 10
//! outages.
//!
//! **Cycle** ([`cycle`]): the largest of 1 h, 30, 15, 10, 5, 2 and 1 min, 30, 10, 5 and 2 s
//! that divides at least [`CYCLE_SHARE`] (95%) of the positive recorded waits, given at
//! least 100 of them; none otherwise. Waits, not start stamps: SWF records the wait, and a
//! scheduler that passes every G seconds after each submission, or rounds waits to G,
//! leaves exactly this trace (KTH-SP2: 99.8% of positive waits are whole minutes, while
//! start stamps fall on whole minutes only 1.8% of the time).
//!
//! **Patience** ([`patience`]): the share of jobs cancelled (SWF status 5, Slurm
//! `CANCELLED`) and, when there are any, an exponential patience by maximum likelihood with
//! censoring: every job's recorded wait is time exposed to cancelling, and each cancelled
//! job is one event, so the mean patience is Σ waits ÷ cancellations.

use super::mle;
use crate::scenario::dist::DistSpec;
use crate::trace::convert::Converted;
use crate::trace::{JobState, Trace};
use crate::units::{HOUR, SimTime};

/// Shortest interval counted as an outage.
pub const MIN_OUTAGE: SimTime = HOUR;
/// Share of positive waits a cycle must divide.
pub const CYCLE_SHARE: f64 = 0.95;
/// Positive waits needed to infer a cycle.
pub const CYCLE_MIN_WAITS: usize = 100;
/// Cycle candidates, longest first, in seconds.
pub const CYCLE_CANDIDATES: [SimTime; 11] = [3600, 1800, 900, 600, 300, 120, 60, 30, 10, 5, 2];

/// The outage intervals of a replay's recorded schedule (see the module doc), on the
/// replay's clock, at least `min_len` long; `capacity` in the replay's units.
pub fn outages(c: &Converted, capacity: u32, min_len: SimTime) -> Vec<(SimTime, SimTime)> {
    // Events (time, kind, job): kind 0 = end, 1 = submit, 2 = start.
    let mut ev: Vec<(SimTime, u8, usize)> = Vec::new();
    for (i, (job, w)) in c.jobs.iter().zip(&c.recorded_wait).enumerate() {
        let Some(w) = *w else { continue };
        let start = job.submit + w.max(0) as SimTime;
        ev.push((job.submit, 1, i));
        ev.push((start, 2, i));
        ev.push((start + job.runtime, 0, i));
    }
    ev.sort_unstable();
    let mut waiting = std::collections::BTreeSet::new(); // (submit, job)
    let mut busy: i64 = 0;
    let mut out = Vec::new();
    let mut open: Option<SimTime> = None;
    let mut k = 0;
    while k < ev.len() {
        let t = ev[k].0;
        let mut started = false;
        while k < ev.len() && ev[k].0 == t {
            let (_, kind, i) = ev[k];
            let job = &c.jobs[i];
            match kind {
                0 => busy -= i64::from(job.gpus),
                1 => {
                    waiting.insert((job.submit, i));
                }
                _ => {
                    waiting.remove(&(job.submit, i));
                    busy += i64::from(job.gpus);
                    started = true;
                }
            }
            k += 1;
        }
        let close = |a: SimTime, out: &mut Vec<(SimTime, SimTime)>| {
            if t - a >= min_len {
                out.push((a, t));
            }
        };
        if started && let Some(a) = open.take() {
            close(a, &mut out);
        }
        let fits = waiting.first().is_some_and(|&(_, i)| i64::from(capacity) - busy >= i64::from(c.jobs[i].gpus));
        match (fits, open) {
            (true, None) => open = Some(t),
            (false, Some(a)) => {
                close(a, &mut out);
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// The scheduler cycle a log's recorded waits show (see the module doc), in seconds.
pub fn cycle(c: &Converted) -> Option<SimTime> {
    let waits: Vec<i64> = c.recorded_wait.iter().flatten().copied().filter(|&w| w > 0).collect();
    if waits.len() < CYCLE_MIN_WAITS {
        return None;
    }
    CYCLE_CANDIDATES.into_iter().find(|&g| {
        let divides = waits.iter().filter(|&&w| w % g as i64 == 0).count();
        divides as f64 >= CYCLE_SHARE * waits.len() as f64
    })
}

/// Outages fitted as a renewal process.
#[derive(Clone, Debug)]
pub struct OutageFit {
    /// Outages found.
    pub count: usize,
    /// Hours in outages.
    pub hours: f64,
    /// Hours of the observed period.
    pub period_hours: f64,
    /// Mean hours between one outage's end and the next outage (exponential).
    pub mean_between_h: f64,
    /// Duration distribution, hours.
    pub duration: DistSpec,
    /// How the duration was fitted.
    pub duration_note: String,
}

/// Fits the rate and duration of `intervals` observed over `period` seconds; `None`
/// without any outage.
pub fn fit_outages(intervals: &[(SimTime, SimTime)], period: SimTime) -> Option<OutageFit> {
    if intervals.is_empty() || period == 0 {
        return None;
    }
    let durations: Vec<f64> = intervals.iter().map(|&(a, b)| (b - a) as f64 / HOUR as f64).collect();
    let hours: f64 = durations.iter().sum();
    let period_hours = period as f64 / HOUR as f64;
    let up = (period_hours - hours).max(1.0);
    let mean = hours / durations.len() as f64;
    let (duration, duration_note) = if durations.len() >= 10 {
        match mle::fit_all(&durations) {
            Some(fits) => {
                let f = mle::best_with_mean(&fits, mean);
                (f.spec(), format!("{} by maximum likelihood (AIC {:.1}, KS {:.3})", f.family.name(), f.aic, f.ks))
            }
            None => (DistSpec::exponential(mean), "exponential with the sample mean".to_string()),
        }
    } else {
        (DistSpec::exponential(mean), format!("exponential with the sample mean (only {} outages)", durations.len()))
    };
    Some(OutageFit {
        count: intervals.len(),
        hours,
        period_hours,
        mean_between_h: up / intervals.len() as f64,
        duration,
        duration_note,
    })
}

/// Cancellations in a log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatienceFit {
    /// Jobs with a known final state.
    pub jobs: usize,
    /// Of those, cancelled.
    pub cancelled: usize,
    /// Mean patience in hours (exponential, censored MLE); `None` without cancellations
    /// or without recorded waits.
    pub mean_h: Option<f64>,
}

impl PatienceFit {
    /// Cancelled share.
    pub fn share(&self) -> f64 {
        if self.jobs == 0 { 0.0 } else { self.cancelled as f64 / self.jobs as f64 }
    }
}

/// The cancellation share and patience of a log's jobs.
pub fn patience(trace: &Trace) -> PatienceFit {
    let known =
        trace.jobs.iter().filter(|j| !matches!(j.state, JobState::Unknown | JobState::Pending | JobState::Running));
    let (mut jobs, mut cancelled, mut exposure) = (0usize, 0usize, 0.0f64);
    for j in known {
        jobs += 1;
        cancelled += usize::from(j.state == JobState::Cancelled);
        if let Some(start) = j.start {
            exposure += (start - j.submit).max(0) as f64;
        }
    }
    let mean_h = (cancelled > 0 && exposure > 0.0).then(|| exposure / cancelled as f64 / HOUR as f64);
    PatienceFit { jobs, cancelled, mean_h }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;

    fn job(submit: SimTime, runtime: SimTime, gpus: u32) -> Job {
        Job::plain(submit, gpus, runtime, false)
    }

    #[test]
    fn an_hour_with_a_fitting_head_and_no_start_is_an_outage() {
        // 10 units. Job 0 holds 6 from 0 to 1000; job 1 (4 units) is submitted at 100 and
        // fits at once but starts only at 100 + 2 h; job 2 (8) waits for job 0's end.
        let jobs = vec![job(0, 1000, 6), job(100, 50, 4), job(200, 10, 8)];
        let c = Converted {
            jobs,
            recorded_wait: vec![Some(0), Some(7200), Some(800)],
            source: vec![0, 1, 2],
            ..Converted::default()
        };
        // Job 2 starts at 1000: the head (job 1) still fits and nothing else started, but
        // the start at 1000 ends the first stretch [100, 1000) (15 min: too short); from
        // 1000 job 1 (4) fits beside job 2 (8)? 10 − 8 = 2 < 4: no; job 2 ends at 1010,
        // then [1010, 7300) is an outage.
        assert_eq!(outages(&c, 10, MIN_OUTAGE), vec![(1010, 7300)]);
        assert_eq!(outages(&c, 10, 600), vec![(100, 1000), (1010, 7300)]);
    }

    #[test]
    fn the_cycle_is_the_largest_granularity_of_nearly_all_waits() {
        let mut c = Converted { recorded_wait: (1..=200).map(|i| Some(i * 60)).collect(), ..Default::default() };
        assert_eq!(cycle(&c), Some(60));
        c.recorded_wait.push(Some(7));
        assert_eq!(cycle(&c), Some(60), "one odd wait in 201 is within the 5%");
        c.recorded_wait = (1..=200).map(|i| Some(i * 7)).collect();
        assert_eq!(cycle(&c), None);
    }

    #[test]
    fn outages_are_fitted_as_a_renewal_process() {
        let f = fit_outages(&[(0, 3600), (10 * 3600, 13 * 3600)], 100 * 3600).unwrap();
        assert_eq!(f.count, 2);
        assert!((f.mean_between_h - 48.0).abs() < 1e-9, "96 h up over 2 outages");
        assert!((f.hours - 4.0).abs() < 1e-9);
    }
}
