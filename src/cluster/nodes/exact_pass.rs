//! The backfill pass and the wait forecast on the exact plan ([`Plan`]): the pass's
//! common check that some tested job could start now, the exact planner's walk of the
//! queue (the first `bf_reservations` jobs that cannot start get their earliest start and
//! a reservation), and `predict_start`, the start `squeue --start` would show. The plan is
//! kept between passes and refreshed, not rebuilt.

use super::NodeCluster;
use crate::cluster::plan::{Ask, Plan};
use crate::cluster::queue::Waiting;
use crate::cluster::request::{QueuedJob, Request};
use crate::scenario::raw::BfPlanner;
use crate::units::SimTime;

impl NodeCluster {
    /// Refreshes the reusable plan at `now` and takes it out (give it back with
    /// `self.plan = plan` to keep it for the next pass).
    fn take_plan(&mut self, now: SimTime, horizon: SimTime) -> Plan {
        let mut plan = std::mem::take(&mut self.plan);
        self.bring_to(&mut plan, now, horizon, self.longest_walltime);
        plan
    }

    /// Brings a plan to `now` (see [`Plan::refresh`]) and blocks in it the down nodes and
    /// the reserved nodes' windows that a job planned by `horizon` with a walltime request
    /// up to `longest` could reach.
    fn bring_to(&self, plan: &mut Plan, now: SimTime, horizon: SimTime, longest: SimTime) {
        plan.refresh(
            now,
            horizon,
            &self.nodes.nodes,
            &self.node_releases,
            &self.node_version,
            &self.account_running,
            &self.account_version,
        );
        for &(n, until) in &self.down {
            plan.block(n, now, until);
        }
        self.block_windows(plan, now, horizon.saturating_add(longest));
    }

    /// What the plans are asked for a waiting job.
    pub(super) fn ask(&self, w: &Waiting) -> Ask {
        Ask {
            partition: w.req.partition,
            shape: w.shape,
            walltime: w.q.walltime,
            account: w.req.account,
            gpus: self.allocated_gpus(w),
        }
    }

    /// One backfill pass (skipped when no tested job could start now); the Slurm
    /// planner's walk is in `slurm_pass.rs`.
    pub(super) fn backfill_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        if self.queue.is_empty() || self.busy == self.total {
            return;
        }
        // A pass can only start jobs that fit the free GPUs now; when none of the jobs it
        // would test does, it would only make reservations, which change nothing until
        // the next pass recomputes them. Skip it (same starts, far less work).
        let could_start = {
            let mut walk = self.walk_from_front();
            let mut tested = 0;
            let mut found = false;
            while let Some(a) = walk.next() {
                let w = *walk.job(&self.queue, a);
                walk.skip(&self.queue, a, true); // no limit changes in this scan
                if self.limits.hold(w.req.account, self.allocated_gpus(&w)).is_some()
                    || self.over_time_limit(now, w.q.walltime)
                {
                    continue;
                }
                tested += 1;
                if tested > self.max_job_test {
                    break;
                }
                if !self.maintenance_blocks(now, w.q.walltime)
                    && !self.pinned(w.q.job, now)
                    && self.nodes.fits(w.req.partition, w.shape)
                {
                    found = true;
                    break;
                }
            }
            self.walk = walk;
            found
        };
        if !could_start {
            return;
        }
        if self.planner == BfPlanner::Slurm {
            return self.slurm_backfill_pass(now, started);
        }

        let mut plan = self.take_plan(now, now.saturating_add(self.window));
        let (mut tested, mut reserved) = (0u32, 0u32);
        let mut walk = self.walk_from_front();
        while let Some(a) = walk.next() {
            if tested >= self.max_job_test {
                break;
            }
            let w = *walk.job(&self.queue, a);
            if self.limits.hold(w.req.account, self.allocated_gpus(&w)).is_some()
                || self.over_time_limit(now, w.q.walltime)
            {
                walk.skip(&self.queue, a, true); // the account's limit did not change
                continue;
            }
            tested += 1;
            let ask = self.ask(&w);
            // The first `bf_reservations` jobs get their earliest start and a reservation;
            // later ones are only tested for a start now that delays none of those.
            let found = if reserved < self.reservations { plan.earliest(&ask) } else { plan.start_now(&ask) };
            match found {
                Some((t, alloc))
                    if t == now && self.time_limits.may_start(now, w.q.walltime) && !self.pinned(w.q.job, now) =>
                {
                    plan.reserve(t, &alloc, &ask);
                    walk.take(&mut self.queue, a); // the cursor now points at the next
                    self.start(now, &w, alloc, started);
                    if self.busy == self.total || !plan.any_free_now_anywhere() {
                        break;
                    }
                    walk.refresh(&self.queue, a, self.open(a));
                    continue;
                }
                // Pinned and able to start now: passed over, no reservation (`NodeCluster::pin`).
                Some((t, _)) if t == now && self.pinned(w.q.job, now) => {}
                Some((t, alloc)) => {
                    plan.reserve(t, &alloc, &ask);
                    reserved += 1;
                }
                None => {}
            }
            walk.skip(&self.queue, a, true);
        }
        self.walk = walk;
        self.plan = plan;
    }

    /// What `squeue --start` would show for a job submitted now: its start in the plan,
    /// after every job ahead of it in priority order (limit-held ones included). Exact
    /// when it is at most `limit`; `SimTime::MAX` when it cannot start by then (or by the
    /// backfill window, whichever is later), or when more than `bf_max_job_test` jobs are
    /// ahead of it (Slurm gives such a job no estimate).
    pub fn predict_start(&self, now: SimTime, q: QueuedJob, req: Request, limit: SimTime) -> SimTime {
        let shape = self.shape(q.gpus, &req);
        let priority =
            self.prio.priority(now, now, q.gpus, req.account, self.partition_factor[usize::from(req.partition)]);
        let me = Waiting { q, req, shape, since: now, seq: self.seq + 1, priority };
        let horizon = limit.max(now.saturating_add(self.window));
        let mut plan = self.forecast_plan.borrow_mut();
        self.bring_to(&mut plan, now, horizon, self.longest_walltime.max(q.walltime));
        let mut ahead = 0u32;
        for w in self.queue.iter().take_while(|w| w.key() < me.key()) {
            ahead += 1;
            if ahead > self.max_job_test {
                return SimTime::MAX;
            }
            let ask = self.ask(w);
            if let Some((t, alloc)) = plan.earliest(&ask) {
                plan.reserve(t, &alloc, &ask);
            }
        }
        plan.earliest(&self.ask(&me)).map_or(SimTime::MAX, |(t, _)| t)
    }
}
