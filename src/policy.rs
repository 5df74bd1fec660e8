//! Policies: where each of the group's jobs runs, and when it gives up waiting.
//!
//! A policy decides at three moments: when a group job is submitted ([`route_arrival`]),
//! when its overflow timer fires ([`on_timeout`], `overflow-timeout`), and when its
//! debugging session ends ([`on_debug_done`], `guide-hybrid`). Every decision respects
//! what a place can serve: a job goes to the campus only if it fits there (GPU count,
//! group limit, memory), and to an offer only if the offer's GPUs have the memory and the
//! platform has the GPUs at all; budgets can refuse hourly offers. When the preferred place cannot
//! take a job, it goes to the other one; validation guarantees that one exists.
//!
//! The policy sees the simulation only through [`Situation`]: what it may ask (the clock,
//! the job, whether the campus or an offer can take it, the predicted campus start) and
//! what it may do (queue on campus, send to an offer, withdraw, rent, set a timer, ask
//! the budget). The engine implements it; nothing here names the engine's internals.

use std::collections::HashMap;

use crate::cloud::billing::session_charge;
use crate::cloud::estimate_charge;
use crate::job::{Job, NO_DEADLINE};
use crate::rng::{Purpose, job_key, stream};
use crate::scenario::raw::{BillingMode, PolicyKind, WhenFull};
use crate::scenario::{Destination, Offer, Policy, Scenario};
use crate::units::{DAY, SimTime, hours_to_secs};

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
        p.places().into_iter().filter_map(|t| if let Destination::Offer(o) = t { Some(o) } else { None }).collect();
    v.extend(p.debug_offer);
    v.retain(|&o| offers[o].billing == BillingMode::Monthly);
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether offer `o` is rented by policy `p` only when it needs it (`rent_when_needed`:
/// a monthly offer of its list without fixed months).
pub fn rents_when_needed(p: &Policy, scn: &Scenario, o: usize) -> bool {
    let offer = &scn.offers[o];
    p.rent_when_needed && offer.billing == BillingMode::Monthly && offer.rentals.is_none() && p.offers.contains(&o)
}

/// A debugging session in progress (guide-hybrid).
#[derive(Clone, Copy, Debug)]
pub struct DebugSession {
    /// The offer the session runs on.
    pub offer: usize,
    /// Whether it holds one of the offer's GPUs (it had room when the session began).
    pub occupied: bool,
    /// Its charge, paid when it ends.
    pub cost: f64,
}

/// The budget has no room for a run this period ([`Situation::budget_request`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetRefused;

/// A moment the policy asks to be called back at ([`Situation::wake_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// `overflow-timeout`: the job's threshold passes ([`on_timeout`]).
    Timeout(u32),
    /// `guide-hybrid`: the job's debugging session ends ([`on_debug_done`]).
    DebugDone(u32),
}

/// What a policy sees and may do at a decision. `'a` is the lifetime of the inputs (the
/// scenario, the policy, the jobs), which outlive the simulation's state. Jobs are named
/// by their index in the stream.
pub trait Situation<'a> {
    /// The scenario simulated.
    fn scenario(&self) -> &'a Scenario;
    /// The policy simulated.
    fn policy(&self) -> &'a Policy;
    /// The replication (it keys the policy's own random streams).
    fn replication(&self) -> u64;
    /// The clock.
    fn now(&self) -> SimTime;
    /// Job `j` as submitted.
    fn job(&self, j: u32) -> &'a Job;
    /// Seconds of work job `j` still has.
    fn remaining(&self, j: u32) -> SimTime;
    /// Whether job `j` waits in the campus queue and has never started there.
    fn queued_unstarted(&self, j: u32) -> bool;
    /// Whether the campus could ever run job `j` (validation's feasibility rule).
    fn fits_campus(&self, j: u32) -> bool;
    /// The walltime job `j` asks of the campus (capped at its partition's limit).
    fn campus_walltime_request(&self, j: u32) -> SimTime;
    /// Whether job `j`, submitted now, is predicted to start on campus after `limit`.
    fn predicted_start_after(&self, j: u32, limit: SimTime) -> bool;
    /// Queues job `j` on campus.
    fn enqueue_campus(&mut self, j: u32);
    /// Takes job `j` (queued, never started) out of the campus queue: its wait so far
    /// counts, and it is pending again.
    fn withdraw_from_campus(&mut self, j: u32);
    /// Sends job `j` to offer `o`, with the budget's commitment for it.
    fn send_to_cloud(&mut self, j: u32, o: usize, committed: Option<(u32, f64)>);
    /// Whether offer `o` has `gpus` GPUs free now.
    fn offer_has_room(&self, o: usize, gpus: u32) -> bool;
    /// Whether a job of `gpus` GPUs sent to offer `o` now starts at once (nobody waits
    /// for it and it has the room).
    fn offer_starts_now(&self, o: usize, gpus: u32) -> bool;
    /// Until when offer `o` is rented (`SimTime::MAX`: the whole time).
    fn offer_rented_until(&self, o: usize) -> SimTime;
    /// Rents monthly offer `o` from now until `end`, extending a current rental.
    fn rent_until(&mut self, o: usize, end: SimTime);
    /// Takes (`true`) or gives back one GPU of offer `o` for a debugging session.
    fn occupy_debug(&mut self, o: usize, take: bool);
    /// Charges a debugging session of job `j`.
    fn charge_debug(&mut self, j: u32, cost: f64);
    /// Asks the budget for an hourly run estimated at `estimate` CNY: the commitment
    /// (`None` without a budget), or [`BudgetRefused`].
    fn budget_request(&mut self, estimate: f64) -> Result<Option<(u32, f64)>, BudgetRefused>;
    /// Books an hourly run the budget must take (no other place fits the job).
    fn budget_force(&mut self, estimate: f64) -> Option<(u32, f64)>;
    /// Gives back a commitment that was not used.
    fn budget_release(&mut self, period: u32, estimate: f64);
    /// Calls the policy back at `t` ([`on_timeout`], [`on_debug_done`]).
    fn wake_at(&mut self, t: SimTime, wake: Wake);
    /// The debugging sessions in progress (the policy's own state, kept by the engine).
    fn debug_sessions(&mut self) -> &mut HashMap<u32, DebugSession>;
}

/// Decides where a newly submitted group job goes.
pub fn route_arrival<'a>(s: &mut impl Situation<'a>, j: u32) {
    let p = s.policy();
    match p.kind {
        PolicyKind::CampusOnly => {
            // Validation proved every class fits the campus (scenario::feasibility):
            // campus-only never uses the cloud. Only a job whose walltime request no gap
            // of the windows fits is left out: it never starts (counted unfinished).
            if s.fits_campus(j) {
                s.enqueue_campus(j);
            }
        }
        PolicyKind::CloudOnly => cloud_else_campus(s, j, &p.offers),
        PolicyKind::OverflowPredicted => overflow_predicted(s, j),
        PolicyKind::OverflowTimeout => campus_with_timeout(s, j),
        PolicyKind::ReservedFirst => {
            let r = p.reserved.expect("validated: reserved-first has a reserved offer");
            if offer_fits(s, j, r) && s.offer_has_room(r, s.job(j).gpus) {
                s.send_to_cloud(j, r, None);
            } else {
                overflow_predicted(s, j);
            }
        }
        PolicyKind::BySize => {
            let job = s.job(j);
            let rule = p.rules.iter().find(|r| job.vram_gb <= r.max_vram_gb && job.gpus <= r.max_gpus);
            match rule.map(|r| r.target) {
                Some(Destination::Offer(o)) => {
                    let mut list = vec![o];
                    list.extend(p.offers.iter().copied().filter(|&x| x != o));
                    cloud_else_campus(s, j, &list);
                }
                Some(Destination::Campus) | None => overflow_predicted(s, j),
            }
        }
        PolicyKind::DeadlineAware => {
            let job = s.job(j);
            // Late when the predicted start plus the walltime request passes the deadline.
            let late = job.deadline != NO_DEADLINE
                && (!s.fits_campus(j)
                    || job
                        .deadline
                        .checked_sub(s.campus_walltime_request(j))
                        .is_none_or(|latest_start| s.predicted_start_after(j, latest_start)));
            if late { cloud_else_campus(s, j, &p.offers) } else { overflow_predicted(s, j) }
        }
        PolicyKind::GuideHybrid => {
            let class = s.job(j).class as usize;
            if p.main_class.get(class).copied().unwrap_or(false) && s.fits_campus(j) {
                s.enqueue_campus(j);
                start_debugging(s, j);
            } else {
                campus_with_timeout(s, j);
            }
        }
    }
}

/// Whether an offer can take the job now: it fits the offer, and a monthly offer
/// rented for a time is rented long enough for the job's walltime estimate.
fn offer_fits<'a>(s: &impl Situation<'a>, j: u32, o: usize) -> bool {
    offer_fits_ever(s, j, o) && rented_long_enough(s, j, o)
}

/// Whether an offer can ever take the job (memory per GPU, platform capacity).
fn offer_fits_ever<'a>(s: &impl Situation<'a>, j: u32, o: usize) -> bool {
    let job = s.job(j);
    let offer = &s.scenario().offers[o];
    job.vram_gb <= offer.vram_gb && job.gpus <= offer.capacity.unwrap_or(u32::MAX)
}

/// The charge a job's walltime estimate would cost on an offer.
fn estimated_charge<'a>(s: &impl Situation<'a>, j: u32, o: usize) -> f64 {
    let job = s.job(j);
    estimate_charge(&s.scenario().offers[o], job, job.walltime_request(s.remaining(j), None))
}

/// Cloud seconds a job's walltime estimate asks of an offer (upload and compute).
fn cloud_estimate<'a>(s: &impl Situation<'a>, j: u32, o: usize) -> SimTime {
    let job = s.job(j);
    let offer = &s.scenario().offers[o];
    let walltime = job.walltime_request(s.remaining(j), None);
    crate::cloud::upload_secs(offer, job) + crate::cloud::cloud_compute_secs(offer, job, walltime)
}

/// Whether an offer rented for a time is rented now until the job's walltime
/// estimate ends (always true for an offer rented the whole time).
fn rented_long_enough<'a>(s: &impl Situation<'a>, j: u32, o: usize) -> bool {
    let until = s.offer_rented_until(o);
    until == SimTime::MAX || s.now().saturating_add(cloud_estimate(s, j, o)) <= until
}

/// `guide-hybrid` with `rent_when_needed`: a main job is ready and the campus has not
/// started it. If the first offer of the list that fits it is a monthly offer rented
/// when needed, rent it now for its minimum term (or as many whole days as the job's
/// walltime estimate needs, if more), or extend the current rental that far.
fn rent_if_needed<'a>(s: &mut impl Situation<'a>, j: u32) {
    if !s.queued_unstarted(j) {
        return;
    }
    let Some(o) = s.policy().offers.iter().copied().find(|&o| offer_fits_ever(s, j, o)) else { return };
    if !rents_when_needed(s.policy(), s.scenario(), o) || rented_long_enough(s, j, o) {
        return;
    }
    let need = cloud_estimate(s, j, o).div_ceil(DAY) * DAY;
    let end = s.now() + need.max(s.scenario().offers[o].min_term);
    s.rent_until(o, end);
}

/// The first offer of `list` that fits the job and the budget, with its commitment.
fn choose_offer<'a>(s: &mut impl Situation<'a>, j: u32, list: &[usize]) -> Option<(usize, Option<(u32, f64)>)> {
    for &o in list {
        if !offer_fits(s, j, o) {
            continue;
        }
        if s.scenario().offers[o].billing == BillingMode::Monthly {
            return Some((o, None));
        }
        let estimate = estimated_charge(s, j, o);
        if let Ok(c) = s.budget_request(estimate) {
            return Some((o, c));
        }
    }
    None
}

/// Cloud if an offer fits and the budget allows; otherwise campus; a job the campus
/// cannot take goes to the first fitting offer even over budget.
fn cloud_else_campus<'a>(s: &mut impl Situation<'a>, j: u32, list: &[usize]) {
    if let Some((o, c)) = choose_offer(s, j, list) {
        s.send_to_cloud(j, o, c);
    } else if s.fits_campus(j) {
        s.enqueue_campus(j);
    } else {
        forced_cloud(s, j, list);
    }
}

fn forced_cloud<'a>(s: &mut impl Situation<'a>, j: u32, list: &[usize]) {
    let all: Vec<usize> = list.iter().copied().chain(0..s.scenario().offers.len()).collect();
    // An offer rented only in some months takes the job when rented again.
    let o = all
        .iter()
        .copied()
        .find(|&o| offer_fits(s, j, o))
        .or_else(|| all.iter().copied().find(|&o| offer_fits_ever(s, j, o)));
    // Validation proved some place fits every class's largest job; only a job whose
    // walltime request no gap of the campus's windows fits can find none: it never
    // starts (and is counted unfinished).
    let Some(o) = o else { return };
    let estimate = estimated_charge(s, j, o);
    let c = if s.scenario().offers[o].billing == BillingMode::Hourly { s.budget_force(estimate) } else { None };
    s.send_to_cloud(j, o, c);
}

/// Predict the campus wait; above the threshold, go to the cloud.
fn overflow_predicted<'a>(s: &mut impl Situation<'a>, j: u32) {
    let p = s.policy();
    if !s.fits_campus(j) {
        return cloud_else_campus(s, j, &p.offers);
    }
    match p.threshold {
        Some(threshold) if !p.offers.is_empty() && s.predicted_start_after(j, s.now().saturating_add(threshold)) => {
            cloud_else_campus(s, j, &p.offers);
        }
        _ => s.enqueue_campus(j),
    }
}

fn campus_with_timeout<'a>(s: &mut impl Situation<'a>, j: u32) {
    let p = s.policy();
    if !s.fits_campus(j) {
        return cloud_else_campus(s, j, &p.offers);
    }
    s.enqueue_campus(j);
    let limit = match p.compute_timeout {
        // The walltime request is the one the campus was just told (capped at the
        // partition's limit): what the job asks of the campus, not its true runtime.
        Some(c) => c.limit(s.job(j).gpus, s.campus_walltime_request(j)),
        None => p.threshold,
    };
    if let Some(t) = limit {
        s.wake_at(s.now() + t, Wake::Timeout(j));
    }
}

/// Moves a job that has not started on campus to the cloud, if an offer will take it.
///
/// With `when_cloud_full = "campus"`, a job whose offer has no free GPUs now stays
/// where it is in the campus queue: as in Slurm, a job that may still start on campus
/// never left the queue, so falling back must not cost it its place.
fn withdraw_to_cloud<'a>(s: &mut impl Situation<'a>, j: u32) {
    if !s.queued_unstarted(j) {
        return;
    }
    let p = s.policy();
    if let Some((o, c)) = choose_offer(s, j, &p.offers) {
        if !s.offer_starts_now(o, s.job(j).gpus) && p.when_full == WhenFull::Campus {
            if let Some((period, cost)) = c {
                s.budget_release(period, cost);
            }
            return;
        }
        s.withdraw_from_campus(j);
        s.send_to_cloud(j, o, c);
    }
}

/// `overflow-timeout`: the threshold passed.
pub fn on_timeout<'a>(s: &mut impl Situation<'a>, j: u32) {
    withdraw_to_cloud(s, j);
}

fn start_debugging<'a>(s: &mut impl Situation<'a>, j: u32) {
    let (p, scn) = (s.policy(), s.scenario());
    let d = p.debug_offer.expect("validated");
    let hours = p.debug_hours.as_ref().expect("validated");
    let job = s.job(j);
    let mut rng = stream(scn.seed, s.replication(), Purpose::Debugging(job_key(job.class, job.ordinal)));
    let work = hours_to_secs(hours.sample(&mut rng).min(24.0 * 365.0), 0);
    let offer = &scn.offers[d];
    let startup = crate::cloud::minutes(offer.startup_minutes.sample(&mut rng));
    let occupied = s.offer_starts_now(d, 1);
    let cost = if occupied && offer.billing == BillingMode::Hourly { session_charge(offer, work, 1) } else { 0.0 };
    if occupied {
        s.occupy_debug(d, true);
    }
    s.debug_sessions().insert(j, DebugSession { offer: d, occupied, cost });
    s.wake_at(s.now() + startup + work, Wake::DebugDone(j));
}

/// `guide-hybrid`: debugging ended; if the campus has not started the job, move it.
pub fn on_debug_done<'a>(s: &mut impl Situation<'a>, j: u32) {
    if let Some(session) = s.debug_sessions().remove(&j)
        && session.occupied
    {
        s.occupy_debug(session.offer, false);
        s.charge_debug(j, session.cost);
    }
    if s.policy().rent_when_needed {
        rent_if_needed(s, j);
    }
    withdraw_to_cloud(s, j);
}
