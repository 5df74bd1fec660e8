//! What a policy sees of a replication and may do in it ([`Situation`]), answered by the
//! world of the engine. The policy decides; this file only translates its questions and
//! actions into the world's state, the cluster, the offers, the budget and the event queue.

use std::collections::HashMap;

use super::queue::Event;
use super::{Observer, Status, World};
use crate::job::Job;
use crate::policy::{BudgetRefused, DebugSession, Situation, Wake};
use crate::scenario::{Policy, Scenario};
use crate::units::SimTime;

impl<'a, O: Observer> Situation<'a> for World<'a, O> {
    fn scenario(&self) -> &'a Scenario {
        self.scn
    }

    fn policy(&self) -> &'a Policy {
        self.policy
    }

    fn replication(&self) -> u64 {
        self.replication
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn job(&self, j: u32) -> &'a Job {
        &self.jobs[j as usize]
    }

    fn remaining(&self, j: u32) -> SimTime {
        self.st[j as usize].remaining
    }

    fn queued_unstarted(&self, j: u32) -> bool {
        let s = &self.st[j as usize];
        s.status == Status::CampusQueued && s.first_start == SimTime::MAX
    }

    fn fits_campus(&self, j: u32) -> bool {
        World::fits_campus(self, j)
    }

    fn campus_walltime_request(&self, j: u32) -> SimTime {
        self.walltime_request(j)
    }

    fn predicted_start_after(&self, j: u32, limit: SimTime) -> bool {
        World::predicted_start_after(self, j, limit)
    }

    fn enqueue_campus(&mut self, j: u32) {
        World::enqueue_campus(self, j);
    }

    fn withdraw_from_campus(&mut self, j: u32) {
        let removed = self.withdraw_campus(j);
        debug_assert!(removed, "invariant: a queued job is in the campus queue");
        self.obs.withdrawn(self.now, j);
        let st = &mut self.st[j as usize];
        st.waited += self.now - st.queued_since;
        st.status = Status::Pending;
    }

    fn send_to_cloud(&mut self, j: u32, o: usize, committed: Option<(u32, f64)>) {
        World::send_to_cloud(self, j, o, committed);
    }

    fn offer_has_room(&self, o: usize, gpus: u32) -> bool {
        self.offers[o].has_room(gpus)
    }

    fn offer_starts_now(&self, o: usize, gpus: u32) -> bool {
        self.offers[o].waiting.is_empty() && self.offers[o].has_room(gpus)
    }

    fn offer_rented_until(&self, o: usize) -> SimTime {
        self.offers[o].rented_until
    }

    fn rent_until(&mut self, o: usize, end: SimTime) {
        let state = &mut self.offers[o];
        match state.rented.last_mut() {
            Some(last) if last.1 >= self.now => last.1 = end,
            _ => state.rented.push((self.now, end)),
        }
        self.events.push(end, Event::RentalEnd(o as u16));
        self.rental_begins(o, end);
    }

    fn occupy_debug(&mut self, o: usize, take: bool) {
        World::occupy_debug(self, o, take);
    }

    fn charge_debug(&mut self, j: u32, cost: f64) {
        World::charge_debug(self, j, cost);
    }

    fn budget_request(&mut self, estimate: f64) -> Result<Option<(u32, f64)>, BudgetRefused> {
        self.budget.request(self.now, estimate).map_err(|()| BudgetRefused)
    }

    fn budget_force(&mut self, estimate: f64) -> Option<(u32, f64)> {
        self.budget.force(self.now, estimate)
    }

    fn budget_release(&mut self, period: u32, estimate: f64) {
        self.budget.release(period, estimate);
    }

    fn wake_at(&mut self, t: SimTime, wake: Wake) {
        let event = match wake {
            Wake::Timeout(j) => Event::Timeout(j),
            Wake::DebugDone(j) => Event::DebugDone(j),
        };
        self.events.push(t, event);
    }

    fn debug_sessions(&mut self) -> &mut HashMap<u32, DebugSession> {
        &mut self.debug
    }
}
