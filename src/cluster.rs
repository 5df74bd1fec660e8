//! The campus cluster, in one of two models (`campus.placement`):
//!
//! - [`pool`]: identical GPUs in one pool, a queue in submission order, FCFS or EASY
//!   backfill, and the group's GPU limit: the queueing-theory model, kept for the M/M/c
//!   validation and as an explicit choice;
//! - [`nodes`]: Slurm as campuses run it: nodes and partitions placed as `select/cons_tres`
//!   does ([`placement`]), `priority/multifactor` with fair-share ([`priority`]), limits for
//!   every account ([`limits`]), a main scheduler and a periodic backfill sharing one plan
//!   with the wait forecast ([`plan`]).
//!
//! The engine talks to [`Cluster`] only; policies ask it for forecasts through
//! [`Cluster::predict_start`] and never see its internals.

pub mod job_map;
pub mod limits;
pub mod nodes;
pub mod placement;
pub mod plan;
pub mod pool;
pub mod priority;
mod queue;
pub mod request;
pub mod slurm_planner;
mod windows;

use crate::scenario::Campus;
use crate::scenario::raw::Placement;
use crate::units::SimTime;

pub use pool::{PoolCluster, Reservation};
pub use request::{QueuedJob, Request};

/// The campus cluster: a pool or Slurm-like nodes.
#[derive(Debug)]
pub enum Cluster {
    /// Identical GPUs in one pool (boxed, as the node model is: the two differ in size).
    Pool(Box<PoolCluster>),
    /// Nodes, partitions, priorities and limits.
    Nodes(Box<nodes::NodeCluster>),
}

impl Cluster {
    /// An idle cluster of the campus's model. `predicts`: some policy will ask for wait
    /// forecasts (the pool then keeps the running jobs' walltime ends even under FCFS).
    pub fn new(campus: &Campus, predicts: bool) -> Cluster {
        match campus.placement {
            Placement::Pool => Cluster::Pool(Box::new(PoolCluster::with_tracking(campus, predicts))),
            Placement::Nodes => Cluster::Nodes(Box::new(nodes::NodeCluster::new(campus))),
        }
    }

    /// Total GPUs.
    pub fn total(&self) -> u32 {
        match self {
            Cluster::Pool(c) => c.total(),
            Cluster::Nodes(c) => c.total(),
        }
    }
    /// GPUs in use.
    pub fn busy(&self) -> u32 {
        match self {
            Cluster::Pool(c) => c.busy(),
            Cluster::Nodes(c) => c.busy(),
        }
    }
    /// GPUs requested by waiting jobs.
    pub fn queued_gpus(&self) -> u64 {
        match self {
            Cluster::Pool(c) => c.queued_gpus(),
            Cluster::Nodes(c) => c.queued_gpus(),
        }
    }
    /// GPUs × walltime requests of the waiting jobs, summed (GPU-seconds) exactly as
    /// iterating [`Cluster::queued_jobs`] would sum them.
    pub fn queued_gpu_secs(&self) -> f64 {
        match self {
            Cluster::Pool(c) => c.queued_jobs().map(|q| f64::from(q.gpus) * q.walltime as f64).sum(),
            Cluster::Nodes(c) => c.queued_gpu_secs(),
        }
    }
    /// Waiting jobs.
    pub fn queue_len(&self) -> usize {
        match self {
            Cluster::Pool(c) => c.queue_len(),
            Cluster::Nodes(c) => c.queue_len(),
        }
    }
    /// Waiting group jobs.
    pub fn queued_group_jobs(&self) -> usize {
        match self {
            Cluster::Pool(c) => c.queued_group_jobs(),
            Cluster::Nodes(c) => c.queued_group_jobs(),
        }
    }
    /// The EASY head's reservation after the last pass (pool only).
    pub fn reservation(&self) -> Option<Reservation> {
        match self {
            Cluster::Pool(c) => c.reservation(),
            Cluster::Nodes(_) => None,
        }
    }
    /// The waiting jobs, in no particular order.
    pub fn queued_jobs(&self) -> Box<dyn Iterator<Item = &QueuedJob> + '_> {
        match self {
            Cluster::Pool(c) => Box::new(c.queued_jobs()),
            Cluster::Nodes(c) => Box::new(c.queued_jobs()),
        }
    }
    /// The `(node, GPUs)` a running job holds (node placement; `None` for the pool).
    pub fn allocation(&self, job: u32) -> Option<&[(u32, u32)]> {
        match self {
            Cluster::Pool(_) => None,
            Cluster::Nodes(c) => c.allocation(job),
        }
    }
    /// Whether a job could ever run here (node shape; the pool takes any size up to its GPUs).
    pub fn could_ever_fit(&self, gpus: u32, req: &Request) -> bool {
        match self {
            Cluster::Pool(c) => gpus <= c.total(),
            Cluster::Nodes(c) => c.could_ever_fit(gpus, req),
        }
    }
    /// Submits a job at `now`.
    pub fn enqueue(&mut self, now: SimTime, q: QueuedJob, req: Request) {
        match self {
            Cluster::Pool(c) => c.enqueue(q),
            Cluster::Nodes(c) => c.enqueue(now, q, req),
        }
    }
    /// Forbids the schedulers to start a waiting job before `not_before` (the shared
    /// background's replay of a recorded start, `engine/shared.rs`; node placement only,
    /// the pool is never replayed).
    pub fn pin(&mut self, job: u32, not_before: SimTime) {
        if let Cluster::Nodes(c) = self {
            c.pin(job, not_before);
        }
    }
    /// Removes a waiting job; false if it is not waiting.
    pub fn withdraw(&mut self, now: SimTime, job: u32) -> bool {
        match self {
            Cluster::Pool(c) => c.withdraw(job),
            Cluster::Nodes(c) => c.withdraw(now, job),
        }
    }
    /// Releases a finished (or walltime-killed) job's GPUs.
    pub fn finish(&mut self, now: SimTime, job: u32, walltime_end: SimTime, gpus: u32, group: bool) {
        match self {
            Cluster::Pool(c) => c.finish(job, walltime_end, gpus, group),
            Cluster::Nodes(c) => c.finish(now, job),
        }
    }
    /// The running jobs on a node (node placement; none for the pool).
    pub fn jobs_on_node(&self, node: u32) -> Vec<u32> {
        match self {
            Cluster::Pool(_) => Vec::new(),
            Cluster::Nodes(c) => c.jobs_on_node(node),
        }
    }
    /// Takes a node out of service until `until` (node placement; the pool has no nodes).
    pub fn set_node_down(&mut self, node: u32, until: SimTime) {
        if let Cluster::Nodes(c) = self {
            c.set_node_down(node, until);
        }
    }
    /// Puts a node back in service.
    pub fn set_node_up(&mut self, node: u32) {
        if let Cluster::Nodes(c) = self {
            c.set_node_up(node);
        }
    }
    /// Marks that capacity changed outside the queue (a maintenance window ended).
    pub fn invalidate(&mut self) {
        match self {
            Cluster::Pool(c) => c.invalidate(),
            Cluster::Nodes(c) => c.invalidate(),
        }
    }
    /// Runs the scheduler(s) due at `now`; appends started jobs to `started`.
    pub fn schedule(&mut self, now: SimTime, started: &mut Vec<QueuedJob>) {
        match self {
            Cluster::Pool(c) => c.schedule(now, started),
            Cluster::Nodes(c) => c.schedule(now, started),
        }
    }
    /// When the cluster must be scheduled again although nothing arrives or ends (a
    /// backfill tick, a priority recomputation); `None` for the pool.
    pub fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        match self {
            Cluster::Pool(_) => None,
            Cluster::Nodes(c) => c.next_wakeup(now),
        }
    }
    /// The forecast start of a job submitted now (see each model's `predict_start`);
    /// exact up to `limit`, some time after `limit` otherwise.
    pub fn predict_start(&self, now: SimTime, q: QueuedJob, req: Request, limit: SimTime) -> SimTime {
        match self {
            Cluster::Pool(c) => c.predict_start(now, q.gpus, q.walltime, limit),
            Cluster::Nodes(c) => c.predict_start(now, q, req, limit),
        }
    }
}
