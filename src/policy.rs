//! Policies: where each of the group's jobs runs, and when it gives up waiting.
//!
//! A policy decides at three moments: when a group job is submitted
//! ([`World::route_arrival`]), when its overflow timer fires (`overflow-timeout`), and when
//! its debugging session ends (`guide-hybrid`). Every decision respects what a place can
//! serve: a job goes to the campus only if it fits there (GPU count, group limit,
//! memory), and to an offer only if the offer's GPUs have the memory and the platform has
//! the GPUs at all; budgets can refuse hourly offers. When the preferred place cannot
//! take a job, it goes to the other one; validation guarantees that one exists.

use crate::cloud::billing::session_charge;
use crate::cloud::estimate_charge;
use crate::engine::{Observer, Status, World};
use crate::rng::{Purpose, job_key, stream};
use crate::scenario::raw::{BillingMode, PolicyKind};
use crate::scenario::{Offer, Policy, Target};
use crate::units::{SimTime, hours_to_secs};
use crate::workload::NO_DEADLINE;

use crate::engine::queue::Event;

/// Every place a policy may send a job (used by validation).
pub fn places(p: &Policy) -> Vec<Target> {
    // The campus is always a place: it is where a job goes when no offer can take it.
    let mut v: Vec<Target> = vec![Target::Campus];
    if p.kind != PolicyKind::CampusOnly {
        v.extend(p.offers.iter().map(|&o| Target::Offer(o)));
        v.extend(p.reserved.map(Target::Offer));
        v.extend(p.rules.iter().map(|r| r.target));
    }
    v
}

/// Whether a policy asks the campus for predicted waits (so the cluster must keep the
/// running jobs' walltime ends even under FCFS).
pub fn predicts_waits(p: &Policy) -> bool {
    matches!(
        p.kind,
        PolicyKind::OverflowPredicted | PolicyKind::ReservedFirst | PolicyKind::BySize | PolicyKind::DeadlineAware
    )
}

/// The monthly offers a policy uses; their rent is paid for the whole measured window.
pub fn rented_monthly_offers(p: &Policy, offers: &[Offer]) -> Vec<usize> {
    let mut v: Vec<usize> =
        places(p).into_iter().filter_map(|t| if let Target::Offer(o) = t { Some(o) } else { None }).collect();
    v.extend(p.debug_offer);
    v.retain(|&o| offers[o].billing == BillingMode::Monthly);
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether offer `o` is rented by policy `p` only when it needs it (`rent_when_needed`:
/// a monthly offer of its list without fixed months).
pub fn rents_when_needed(p: &Policy, scn: &crate::scenario::Scenario, o: usize) -> bool {
    let offer = &scn.offers[o];
    p.rent_when_needed && offer.billing == BillingMode::Monthly && offer.rentals.is_none() && p.offers.contains(&o)
}

/// A debugging session in progress (guide-hybrid).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DebugSession {
    pub offer: usize,
    pub occupied: bool,
    pub cost: f64,
}

impl<O: Observer> World<'_, O> {
    /// Decides where a newly submitted group job goes.
    pub(crate) fn route_arrival(&mut self, j: u32) {
        let p = self.policy;
        match p.kind {
            PolicyKind::CampusOnly => {
                // Validation proved every class fits the campus (scenario::feasibility):
                // campus-only never uses the cloud.
                debug_assert!(self.fits_campus(j), "validated: every job fits the campus under campus-only");
                self.enqueue_campus(j);
            }
            PolicyKind::CloudOnly => self.cloud_else_campus(j, &p.offers),
            PolicyKind::OverflowPredicted => self.overflow_predicted(j),
            PolicyKind::OverflowTimeout => self.campus_with_timeout(j),
            PolicyKind::ReservedFirst => {
                let r = p.reserved.expect("validated: reserved-first has a reserved offer");
                if self.offer_fits(j, r) && self.offers[r].has_room(self.jobs[j as usize].gpus) {
                    self.send_to_cloud(j, r, None);
                } else {
                    self.overflow_predicted(j);
                }
            }
            PolicyKind::BySize => {
                let job = &self.jobs[j as usize];
                let rule = p.rules.iter().find(|r| job.vram_gb <= r.max_vram_gb && job.gpus <= r.max_gpus);
                match rule.map(|r| r.target) {
                    Some(Target::Offer(o)) => {
                        let mut list = vec![o];
                        list.extend(p.offers.iter().copied().filter(|&x| x != o));
                        self.cloud_else_campus(j, &list);
                    }
                    Some(Target::Campus) | None => self.overflow_predicted(j),
                }
            }
            PolicyKind::DeadlineAware => {
                let job = &self.jobs[j as usize];
                // Late when the predicted start plus the walltime request passes the deadline.
                let late = job.deadline != NO_DEADLINE
                    && (!self.fits_campus(j)
                        || job
                            .deadline
                            .checked_sub(self.walltime_request(j))
                            .is_none_or(|latest_start| self.predicted_start_after(j, latest_start)));
                if late { self.cloud_else_campus(j, &p.offers) } else { self.overflow_predicted(j) }
            }
            PolicyKind::GuideHybrid => {
                let class = self.jobs[j as usize].class as usize;
                if p.main_class.get(class).copied().unwrap_or(false) && self.fits_campus(j) {
                    self.enqueue_campus(j);
                    self.start_debugging(j);
                } else {
                    self.campus_with_timeout(j);
                }
            }
        }
    }

    /// Whether an offer can take the job now: it fits the offer, and a monthly offer
    /// rented for a time is rented long enough for the job's walltime estimate.
    fn offer_fits(&self, j: u32, o: usize) -> bool {
        self.offer_fits_ever(j, o) && self.rented_long_enough(j, o)
    }

    /// Whether an offer can ever take the job (memory per GPU, platform capacity).
    fn offer_fits_ever(&self, j: u32, o: usize) -> bool {
        let job = &self.jobs[j as usize];
        let offer = &self.scn.offers[o];
        job.vram_gb <= offer.vram_gb && job.gpus <= offer.capacity.unwrap_or(u32::MAX)
    }

    /// Cloud seconds a job's walltime estimate asks of an offer (upload and compute).
    fn cloud_estimate(&self, j: u32, o: usize) -> SimTime {
        let job = &self.jobs[j as usize];
        let offer = &self.scn.offers[o];
        let walltime = job.walltime_request(self.st[j as usize].remaining, None);
        crate::cloud::upload_secs(offer, job) + crate::cloud::cloud_compute_secs(offer, job, walltime)
    }

    /// Whether an offer rented for a time is rented now until the job's walltime
    /// estimate ends (always true for an offer rented the whole time).
    fn rented_long_enough(&self, j: u32, o: usize) -> bool {
        let until = self.offers[o].rented_until;
        until == SimTime::MAX || self.now.saturating_add(self.cloud_estimate(j, o)) <= until
    }

    /// `guide-hybrid` with `rent_when_needed`: a main job is ready and the campus has not
    /// started it. If the first offer of the list that fits it is a monthly offer rented
    /// when needed, rent it now for its minimum term (or as many whole days as the job's
    /// walltime estimate needs, if more), or extend the current rental that far.
    fn rent_if_needed(&mut self, j: u32) {
        let s = self.st[j as usize];
        if s.status != Status::CampusQueued || s.first_start != SimTime::MAX {
            return;
        }
        let Some(o) = self.policy.offers.iter().copied().find(|&o| self.offer_fits_ever(j, o)) else { return };
        if !rents_when_needed(self.policy, self.scn, o) || self.rented_long_enough(j, o) {
            return;
        }
        let need = self.cloud_estimate(j, o).div_ceil(crate::units::DAY) * crate::units::DAY;
        let end = self.now + need.max(self.scn.offers[o].min_term);
        let state = &mut self.offers[o];
        match state.rented.last_mut() {
            Some(last) if last.1 >= self.now => last.1 = end,
            _ => state.rented.push((self.now, end)),
        }
        self.events.push(end, Event::RentalEnd(o as u16));
        self.rental_begins(o, end);
    }

    /// The first offer of `list` that fits the job and the budget, with its commitment.
    fn choose_offer(&mut self, j: u32, list: &[usize]) -> Option<(usize, Option<(u32, f64)>)> {
        for &o in list {
            if !self.offer_fits(j, o) {
                continue;
            }
            if self.scn.offers[o].billing == BillingMode::Monthly {
                return Some((o, None));
            }
            let job = &self.jobs[j as usize];
            let estimate =
                estimate_charge(&self.scn.offers[o], job, job.walltime_request(self.st[j as usize].remaining, None));
            if let Ok(c) = self.budget.request(self.now, estimate) {
                return Some((o, c));
            }
        }
        None
    }

    /// Cloud if an offer fits and the budget allows; otherwise campus; a job the campus
    /// cannot take goes to the first fitting offer even over budget.
    fn cloud_else_campus(&mut self, j: u32, list: &[usize]) {
        if let Some((o, c)) = self.choose_offer(j, list) {
            self.send_to_cloud(j, o, c);
        } else if self.fits_campus(j) {
            self.enqueue_campus(j);
        } else {
            self.forced_cloud(j, list);
        }
    }

    fn forced_cloud(&mut self, j: u32, list: &[usize]) {
        let all: Vec<usize> = list.iter().copied().chain(0..self.scn.offers.len()).collect();
        // An offer rented only in some months takes the job when rented again.
        let o = all
            .iter()
            .copied()
            .find(|&o| self.offer_fits(j, o))
            .or_else(|| all.iter().copied().find(|&o| self.offer_fits_ever(j, o)))
            .expect("validated: some place fits every class");
        let job = &self.jobs[j as usize];
        let estimate =
            estimate_charge(&self.scn.offers[o], job, job.walltime_request(self.st[j as usize].remaining, None));
        let c = if self.scn.offers[o].billing == BillingMode::Hourly {
            self.budget.force(self.now, estimate)
        } else {
            None
        };
        self.send_to_cloud(j, o, c);
    }

    /// Predict the campus wait; above the threshold, go to the cloud.
    fn overflow_predicted(&mut self, j: u32) {
        if !self.fits_campus(j) {
            let list = self.policy.offers.clone();
            return self.cloud_else_campus(j, &list);
        }
        match self.policy.threshold {
            Some(threshold)
                if !self.policy.offers.is_empty()
                    && self.predicted_start_after(j, self.now.saturating_add(threshold)) =>
            {
                let list = self.policy.offers.clone();
                self.cloud_else_campus(j, &list);
            }
            _ => self.enqueue_campus(j),
        }
    }

    fn campus_with_timeout(&mut self, j: u32) {
        if !self.fits_campus(j) {
            let list = self.policy.offers.clone();
            return self.cloud_else_campus(j, &list);
        }
        self.enqueue_campus(j);
        let limit = match self.policy.compute_timeout {
            // The walltime request is the one the campus was just told (capped at the
            // partition's limit): what the job asks of the campus, not its true runtime.
            Some(c) => c.limit(self.jobs[j as usize].gpus, self.walltime_request(j)),
            None => self.policy.threshold,
        };
        if let Some(t) = limit {
            self.events.push(self.now + t, Event::Timeout(j));
        }
    }

    /// Moves a job that has not started on campus to the cloud, if an offer will take it.
    ///
    /// With `when_cloud_full = "campus"`, a job whose offer has no free GPUs now stays
    /// where it is in the campus queue: as in Slurm, a job that may still start on campus
    /// never left the queue, so falling back must not cost it its place.
    fn withdraw_to_cloud(&mut self, j: u32) {
        let s = self.st[j as usize];
        if s.status != Status::CampusQueued || s.first_start != SimTime::MAX {
            return;
        }
        let list = self.policy.offers.clone();
        if let Some((o, c)) = self.choose_offer(j, &list) {
            let gpus = self.jobs[j as usize].gpus;
            let starts_now = self.offers[o].waiting.is_empty() && self.offers[o].has_room(gpus);
            if !starts_now && self.policy.when_full == crate::scenario::raw::WhenFull::Campus {
                if let Some((p, cost)) = c {
                    self.budget.release(p, cost);
                }
                return;
            }
            let removed = self.withdraw_campus(j);
            debug_assert!(removed, "invariant: a queued job is in the campus queue");
            self.obs.withdrawn(self.now, j);
            let st = &mut self.st[j as usize];
            st.waited += self.now - st.queued_since;
            st.status = Status::Pending;
            self.send_to_cloud(j, o, c);
        }
    }

    /// `overflow-timeout`: the threshold passed.
    pub(crate) fn on_timeout(&mut self, j: u32) {
        self.withdraw_to_cloud(j);
    }

    fn start_debugging(&mut self, j: u32) {
        let p = self.policy;
        let d = p.debug_offer.expect("validated");
        let hours = p.debug_hours.as_ref().expect("validated");
        let job = &self.jobs[j as usize];
        let mut rng = stream(self.scn.seed, self.replication, Purpose::Debugging(job_key(job.class, job.ordinal)));
        let work = hours_to_secs(hours.sample(&mut rng).min(24.0 * 365.0), 0);
        let offer = &self.scn.offers[d];
        let startup = crate::cloud::minutes(offer.startup_minutes.sample(&mut rng));
        let occupied = self.offers[d].waiting.is_empty() && self.offers[d].has_room(1);
        let cost = if occupied && offer.billing == BillingMode::Hourly { session_charge(offer, work, 1) } else { 0.0 };
        if occupied {
            self.occupy_debug(d, true);
        }
        self.debug.insert(j, DebugSession { offer: d, occupied, cost });
        self.events.push(self.now + startup + work, Event::DebugDone(j));
    }

    /// `guide-hybrid`: debugging ended; if the campus has not started the job, move it.
    pub(crate) fn on_debug_done(&mut self, j: u32) {
        if let Some(s) = self.debug.remove(&j)
            && s.occupied
        {
            self.occupy_debug(s.offer, false);
            self.charge_debug(j, s.cost);
        }
        if self.policy.rent_when_needed {
            self.rent_if_needed(j);
        }
        self.withdraw_to_cloud(j);
    }
}
