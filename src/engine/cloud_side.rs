//! The cloud side of the world: sending a job to an offer, the offer's waiting line,
//! launching and ending cloud runs, the GPUs a debugging session holds, and monthly
//! rentals beginning and ending. Apart from the event loop in `engine.rs`, which only
//! calls in here when a cloud event comes due.

use super::queue::Event;
use super::{InFlight, Observer, Place, Status, World};
use crate::cloud::plan_run;
use crate::rng::{Purpose, job_key, stream};
use crate::units::SimTime;

impl<O: Observer> World<'_, O> {
    /// Sends a job to an offer: starts it if there is room and nobody is waiting ahead of
    /// it, else it waits in the offer's line (first come, first served), or goes to the
    /// campus if the policy says so and the campus can take it.
    pub(crate) fn send_to_cloud(&mut self, j: u32, offer: usize, committed: Option<(u32, f64)>) {
        let gpus = self.jobs[j as usize].gpus;
        self.st[j as usize].queued_since = self.now;
        let o = &self.offers[offer];
        if o.waiting.is_empty() && o.has_room(gpus) {
            self.launch(j, offer, committed);
        } else if self.policy.when_full == crate::scenario::raw::WhenFull::Campus && self.fits_campus(j) {
            if let Some((p, c)) = committed {
                self.budget.release(p, c);
            }
            self.enqueue_campus(j);
        } else {
            self.st[j as usize].status = Status::CloudQueued;
            self.offers[offer].waiting.push_back(j);
            if let Some((p, c)) = committed {
                self.budget.park(j, p, c);
            }
        }
    }

    /// Starts whoever waits for an offer, in order, while there is room.
    fn serve_offer_line(&mut self, offer: usize) {
        while let Some(&next) = self.offers[offer].waiting.front() {
            if !self.offers[offer].has_room(self.jobs[next as usize].gpus) {
                break;
            }
            self.offers[offer].waiting.pop_front();
            let committed = self.budget.unpark(next);
            self.launch(next, offer, committed);
        }
    }

    fn launch(&mut self, j: u32, offer: usize, committed: Option<(u32, f64)>) {
        let job = &self.jobs[j as usize];
        let mut rng = stream(self.scn.seed, self.replication, Purpose::CloudJob(job_key(job.class, job.ordinal)));
        let run = plan_run(&self.scn.offers[offer], job, self.st[j as usize].remaining, self.now, &mut rng);
        let o = &mut self.offers[offer];
        debug_assert!(o.has_room(job.gpus), "invariant: cloud capacity is never exceeded");
        o.busy += job.gpus;
        let s = &mut self.st[j as usize];
        if s.first_start == SimTime::MAX {
            s.first_start = run.compute_start;
        }
        // The offer's line (if any), then start-up and upload, are waiting.
        s.waited += run.compute_start - s.queued_since;
        s.status = Status::CloudRunning;
        s.place = Place::Offer(offer as u16);
        self.events.push(run.end, Event::CloudEnd(j));
        self.obs.started(self.now, j, Place::Offer(offer as u16), job.gpus);
        self.in_flight.insert(j, InFlight { offer, launch: self.now, run, committed });
    }

    pub(super) fn cloud_end(&mut self, j: u32) {
        let f = self.in_flight.remove(&j).expect("invariant: a cloud run ends once");
        let job = &self.jobs[j as usize];
        self.offers[f.offer].busy -= job.gpus;
        self.obs.ended(self.now, j, Place::Offer(f.offer as u16), job.gpus, true);
        let variable = f.run.compute_cost + f.run.transfer_cost + f.run.storage_cost;
        if let Some((period, estimate)) = f.committed {
            self.budget.settle(period, estimate, variable, self.now);
        }
        if self.measured(j) {
            self.charge_day(j, variable);
            let t = &mut self.tally;
            t.hourly_cost += f.run.compute_cost;
            t.transfer_cost += f.run.transfer_cost;
            t.storage_cost += f.run.storage_cost;
            let gpu_secs = f64::from(job.gpus) * (f.run.end - f.launch) as f64;
            t.cloud_gpu_secs += gpu_secs;
            t.interruptions += u64::from(f.run.interruptions);
            self.class_tally(j).cloud_gpu_secs += gpu_secs;
        }
        self.st[j as usize].remaining = 0;
        self.complete(j);
        self.serve_offer_line(f.offer);
    }

    /// Takes (`true`) or frees one GPU of an offer for a debugging session (guide-hybrid);
    /// freeing serves the offer's waiting line.
    pub(crate) fn occupy_debug(&mut self, offer: usize, take: bool) {
        if take {
            self.offers[offer].busy += 1;
        } else {
            self.offers[offer].busy -= 1;
            self.serve_offer_line(offer);
        }
    }

    /// Adds a debugging charge.
    pub(crate) fn charge_debug(&mut self, j: u32, cost: f64) {
        if self.measured(j) {
            self.charge_day(j, cost);
            self.tally.hourly_cost += cost;
        }
    }

    /// A monthly offer's GPUs are there from now until `end`: the jobs waiting for it start.
    pub(crate) fn rental_begins(&mut self, offer: usize, end: SimTime) {
        let o = &mut self.offers[offer];
        o.capacity = self.scn.offers[offer].capacity.unwrap_or(0);
        o.rented_until = o.rented_until.max(end).max(self.now);
        self.serve_offer_line(offer);
    }

    /// A rental ends (unless it was extended): the offer has no GPUs; jobs running on it
    /// finish (they started only when their walltime estimate fitted the rental), and jobs
    /// waiting for it go to the campus when they fit there (else they wait for the next
    /// rental).
    pub(super) fn rental_ends(&mut self, offer: usize) {
        if self.offers[offer].rented_until != self.now {
            return;
        }
        self.offers[offer].capacity = 0;
        let waiting: Vec<u32> = self.offers[offer].waiting.drain(..).collect();
        for j in waiting {
            if self.fits_campus(j) {
                if let Some((p, c)) = self.budget.unpark(j) {
                    self.budget.release(p, c);
                }
                let s = &mut self.st[j as usize];
                s.waited += self.now - s.queued_since;
                self.enqueue_campus(j);
            } else {
                self.offers[offer].waiting.push_back(j);
            }
        }
    }
}
