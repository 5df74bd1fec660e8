//! What the campus scheduler knows of a job: its entry in the queue ([`QueuedJob`]) and,
//! for the node model, what it asks for ([`Request`]). Both cluster models and the
//! engine share these; they import nothing of the cluster.

use crate::units::SimTime;

/// A job waiting on (or started by) the campus scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedJob {
    /// Job index in the stream.
    pub job: u32,
    /// GPUs.
    pub gpus: u32,
    /// Walltime request for this segment.
    pub walltime: SimTime,
    /// A job of the group (subject to the group limit)?
    pub group: bool,
}

/// What the node model needs to know of a job beyond [`QueuedJob`] (the pool ignores it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Slurm account.
    pub account: u16,
    /// Partition.
    pub partition: u16,
    /// Nodes asked for (0: the scheduler chooses).
    pub nodes: u16,
    /// GPUs per node asked for (0: the scheduler chooses).
    pub gpus_per_node: u16,
}
