//! Reserved nodes (recurring reservations of named nodes, [`NodeWindows`]) as the node
//! cluster applies them, and the main scheduler's placement: a job is placed now only on
//! nodes none of whose windows its walltime request would run into, and a plan (the
//! backfill pass's, the forecast's) holds each window's node whole over the window, so no
//! job is planned across it. Without reserved nodes neither does anything.
//!
//! [`NodeWindows`]: crate::scenario::recurring::NodeWindows

use super::NodeCluster;
use crate::cluster::placement::Allocation;
use crate::cluster::plan::Plan;
use crate::cluster::queue::Waiting;
use crate::cluster::slurm_planner::place_now;
use crate::scenario::raw::BfPlanner;
use crate::scenario::recurring::not_over;
use crate::units::SimTime;

impl NodeCluster {
    /// Where the main scheduler puts a job now: plain best fit, or cons_tres's with the
    /// Slurm planner; never on a reserved node one of whose windows its walltime request
    /// would run into.
    pub(super) fn place_now(&self, now: SimTime, w: &Waiting) -> Option<Allocation> {
        let (partition, shape) = (w.req.partition, w.shape);
        if self.node_windows.is_empty() {
            return match self.planner {
                BfPlanner::Exact => self.nodes.place(partition, shape),
                BfPlanner::Slurm => place_now(&self.nodes.nodes, |n| self.nodes.is_down(n), partition, shape),
            };
        }
        let clear = |n: u32| !self.node_windows.blocks(n, now, w.q.walltime);
        match self.planner {
            BfPlanner::Exact => self.nodes.place_where(partition, shape, clear),
            BfPlanner::Slurm => place_now(&self.nodes.nodes, |n| self.nodes.is_down(n) || !clear(n), partition, shape),
        }
    }

    /// Blocks in a plan every reserved node's windows that are not over at `now` and start
    /// before `until`: each holds its node whole, so nothing is planned across it.
    pub(super) fn block_windows(&self, plan: &mut Plan, now: SimTime, until: SimTime) {
        for &n in self.node_windows.reserved() {
            for &(a, b) in not_over(self.node_windows.of(n), now).iter().take_while(|w| w.0 < until) {
                plan.block(n, a, b);
            }
        }
    }
}
