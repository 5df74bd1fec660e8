//! A policy's cap on variable cloud spending, per month, semester or horizon.
//!
//! Before a job goes to an hourly offer its charge is *estimated* from its walltime
//! request (an upper bound except for interruptions) and committed against the period's
//! cap; an offer whose estimate would take spending past the cap is refused, and the job
//! tries the policy's next offer (a monthly one needs no budget) or falls back to the
//! campus. Debugging sessions of `guide-hybrid` are not counted against the cap. At the end of the run the estimate is replaced by the actual charge.
//! Spending therefore stays under the cap except for the interruptions no one foresaw,
//! which is at most a fraction of one job's charge per interrupted job. Monthly rent is a
//! fixed commitment and not counted against the cap.

use std::collections::HashMap;

use crate::date::Clock;
use crate::scenario::Budget;
use crate::scenario::raw::BudgetPeriod;
use crate::units::{DAY, SimTime};

/// Budget bookkeeping of one replication.
#[derive(Debug)]
pub struct BudgetState<'a> {
    spec: Option<&'a Budget>,
    clock: Clock,
    spent: HashMap<u32, f64>,
    committed: HashMap<u32, f64>,
    fired: HashMap<u32, usize>,
    alerts: usize,
    cap_day: Option<f64>,
    parked: HashMap<u32, (u32, f64)>,
}

impl<'a> BudgetState<'a> {
    /// Bookkeeping for `spec` (none = unlimited).
    pub fn new(spec: Option<&'a Budget>, clock: Clock) -> Self {
        BudgetState {
            spec,
            clock,
            spent: HashMap::new(),
            committed: HashMap::new(),
            fired: HashMap::new(),
            alerts: 0,
            cap_day: None,
            parked: HashMap::new(),
        }
    }

    /// The period a time falls in.
    fn period(&self, now: SimTime) -> u32 {
        let Some(b) = self.spec else { return 0 };
        let d = self.clock.date_at(now);
        let (y, m) = (d.year() as u32, u32::from(d.month()));
        match b.period {
            BudgetPeriod::Month => y * 12 + m,
            // Autumn semester: September to February; spring: March to August.
            BudgetPeriod::Semester => {
                if m >= 9 {
                    y * 2 + 2
                } else if m >= 3 {
                    y * 2 + 1
                } else {
                    y * 2
                }
            }
            BudgetPeriod::Horizon => 0,
        }
    }

    /// Asks to spend `estimate` now. `Ok(None)` without a budget, `Ok(Some(commitment))`
    /// when it fits under the cap, `Err(())` when it does not.
    pub fn request(&mut self, now: SimTime, estimate: f64) -> Result<Option<(u32, f64)>, ()> {
        let Some(b) = self.spec else { return Ok(None) };
        let p = self.period(now);
        let used = self.spent.get(&p).copied().unwrap_or(0.0) + self.committed.get(&p).copied().unwrap_or(0.0);
        if used + estimate <= b.cap_cny {
            *self.committed.entry(p).or_default() += estimate;
            Ok(Some((p, estimate)))
        } else {
            // Days from the start date; a refusal during the warm-up is not measured.
            if let Some(since) = now.checked_sub(self.clock.warmup) {
                self.cap_day.get_or_insert(since as f64 / DAY as f64);
            }
            Err(())
        }
    }

    /// Commits a charge whatever the cap (a job nothing else can run).
    pub fn force(&mut self, now: SimTime, estimate: f64) -> Option<(u32, f64)> {
        self.spec?;
        let p = self.period(now);
        *self.committed.entry(p).or_default() += estimate;
        Some((p, estimate))
    }

    /// Drops a commitment (the job did not go to the cloud after all).
    pub fn release(&mut self, period: u32, estimate: f64) {
        if let Some(c) = self.committed.get_mut(&period) {
            *c -= estimate;
        }
    }

    /// Replaces a commitment by the actual charge and fires any alerts crossed.
    pub fn settle(&mut self, period: u32, estimate: f64, actual: f64, _now: SimTime) {
        let Some(b) = self.spec else { return };
        self.release(period, estimate);
        let spent = self.spent.entry(period).or_default();
        *spent += actual;
        let fired = self.fired.entry(period).or_default();
        while *fired < b.alerts.len() && *spent >= b.alerts[*fired] * b.cap_cny {
            *fired += 1;
            self.alerts += 1;
        }
    }

    /// Keeps the commitment of a job waiting in an offer's line.
    pub fn park(&mut self, job: u32, period: u32, estimate: f64) {
        self.parked.insert(job, (period, estimate));
    }

    /// The commitment of a job leaving an offer's line.
    pub fn unpark(&mut self, job: u32) -> Option<(u32, f64)> {
        self.parked.remove(&job)
    }

    /// Alerts fired so far.
    pub fn alerts_fired(&self) -> usize {
        self.alerts
    }

    /// Day (fractional, from the start) the cap first refused a job.
    pub fn cap_day(&self) -> Option<f64> {
        self.cap_day
    }
}
