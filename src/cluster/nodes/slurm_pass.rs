//! The backfill pass with Slurm's planner (`campus.bf_planner = "slurm"`,
//! [`crate::cluster::slurm_planner`]): the same walk of the queue as the exact pass, each
//! tested job planned by a [`SlurmPlan`] built afresh at each pass, as Slurm builds its
//! backfill map, in the buffers of the last pass (the main scheduler's placement by
//! cons_tres's best fit is in `reserved.rs`, with the reserved nodes).

use super::NodeCluster;
use crate::cluster::request::QueuedJob;
use crate::units::SimTime;

impl NodeCluster {
    /// One backfill pass with Slurm's planner: jobs in priority order (those a limit holds,
    /// or over the MaxTime in force, skipped), at most `bf_max_job_test`; the first `bf_reservations` that cannot start
    /// now get Slurm's planned start and a reservation, the rest are only tried now.
    pub(super) fn slurm_backfill_pass(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        debug_assert_eq!(self.running_by_end.len(), self.running.len(), "invariant: every running job listed by end");
        let mut plan = std::mem::take(&mut self.slurm_plan);
        plan.reset(
            now,
            self.window,
            self.resolution,
            &self.nodes.nodes,
            |n| self.nodes.is_down(n),
            self.running_by_end.iter().map(|&(end, job)| (end, u64::from(job), &self.running[&job].alloc)),
            &self.maintenance,
        );
        plan.set_windows(&self.time_limits, &self.node_windows);
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
            match plan.earliest(&ask, reserved >= self.reservations) {
                // Pinned and able to start now: passed over, no reservation (`NodeCluster::pin`).
                Some((t, _)) if t == now && self.pinned(w.q.job, now) => {}
                Some((t, alloc)) if t == now => {
                    plan.started(&alloc, now.saturating_add(w.q.walltime), u64::from(w.q.job));
                    walk.take(&mut self.queue, a); // the cursor now points at the next
                    self.start(now, &w, alloc, started);
                    if self.busy == self.total || !plan.any_free_now() {
                        break;
                    }
                    walk.refresh(&self.queue, a, self.open(a));
                    continue;
                }
                Some((t, alloc)) => {
                    plan.reserve(t, &alloc, w.q.walltime);
                    reserved += 1;
                }
                None => {}
            }
            walk.skip(&self.queue, a, true);
        }
        self.walk = walk;
        self.slurm_plan = plan;
    }
}
