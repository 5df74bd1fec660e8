//! Feasibility: can a job of a class ever start somewhere? The one place that answers it.
//!
//! A job that can never start is worse than a slow one: on the node model it sits in the
//! queue forever (the run never ends while the priority recalculation keeps waking the
//! scheduler), and on a policy it either panics (no place fits) or silently goes to the
//! cloud (campus-only) or waits for ever in an offer's line and vanishes from every
//! metric (issue 27). So validation asks this module, for every class and every place
//! its policy may use, and refuses the scenario when no place can ever take the class's
//! largest job; the engine asks the same functions for each job at routing time
//! ([`campus_misfit`]), so the two can never disagree.
//!
//! "Can ever start on campus" means: on the *empty* cluster, with every node up, the
//! job's shape ([`Shape::of`], the rule `select/cons_tres` places it by) finds enough
//! distinct nodes of its partition, its memory per GPU fits the partition's GPUs, and its
//! account's `GrpTRES` GPU limit admits the GPUs the job would hold (whole nodes for a
//! multi-node job without a shape, as the scheduler counts them). `MaxJobs` and
//! `MaxSubmit` are at least 1 (validated), so they never hold a job on an empty cluster.
//! Maintenance, drains, failures and outages all end, so they delay a job but never
//! forbid it. Every condition is monotone in the GPU count and the memory, so the
//! largest job of a class (the top of its distributions' supports) decides for all.
//!
//! An offer can surely take a job when it has the memory, the platform has the GPUs at
//! all, and it is there whenever the job arrives: an hourly offer, or a monthly offer
//! rented the whole time. A monthly offer rented only in chosen months (or only when a
//! policy needs it) is not a sure place: a job that arrives after its last rental, or
//! that needs longer than any rental, would wait in its line for ever.

use crate::scenario::model::{Campus, Offer, Policy};
use crate::scenario::raw::{BillingMode, Placement};
use crate::scenario::shape::Shape;

/// Why a job can never start on the campus, with what would fit.
#[derive(Clone, Debug, PartialEq)]
pub enum CampusMisfit {
    /// More GPUs than the campus (pool) or the partition (nodes) has in all.
    TooManyGpus {
        /// GPUs asked for.
        gpus: u32,
        /// GPUs there are.
        room: u32,
        /// Where: "the campus" or "partition 'name'".
        place: String,
    },
    /// The job's shape needs more distinct nodes than the partition has.
    TooFewNodes {
        /// The shape asked for, in words ("60 nodes × 1 GPU").
        shape: String,
        /// Nodes that could hold one piece of the shape.
        have: u32,
        /// The partition's name.
        partition: String,
    },
    /// More memory per GPU than the GPUs of the campus or partition have.
    Memory {
        /// Memory asked for, GB per GPU.
        asked_gb: f64,
        /// The most there is.
        have_gb: f64,
        /// Where.
        place: String,
    },
    /// The account's `GrpTRES` GPU limit is below what the job would hold.
    AccountLimit {
        /// The account's name.
        account: String,
        /// Its GPU limit.
        limit: u32,
        /// GPUs the job would hold (whole nodes for a multi-node job without a shape).
        holds: u32,
    },
}

impl std::fmt::Display for CampusMisfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CampusMisfit::TooManyGpus { gpus, room, place } => {
                write!(f, "{gpus} GPUs do not fit {place}, which has {room} GPUs in all")
            }
            CampusMisfit::TooFewNodes { shape, have, partition } => write!(
                f,
                "the shape {shape} needs that many distinct nodes, and partition '{partition}' has {} that can \
                 hold one part of it",
                count(*have, "node")
            ),
            CampusMisfit::Memory { asked_gb, have_gb, place } => {
                write!(f, "{asked_gb} GB per GPU do not fit {place}, whose GPUs have at most {have_gb} GB")
            }
            CampusMisfit::AccountLimit { account, limit, holds } => write!(
                f,
                "account '{account}' may hold at most {limit} GPUs at once (gpu_limit), and such a job would hold \
                 {holds}"
            ),
        }
    }
}

/// `1 node`, `2 nodes`.
fn count(n: u32, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// The Slurm side of a job, as far as feasibility needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// Account (index into [`Campus::accounts`]).
    pub account: u16,
    /// Partition (index into [`Campus::partitions`]).
    pub partition: u16,
    /// Nodes asked for (0: the scheduler chooses).
    pub nodes: u16,
    /// GPUs per node asked for (0: the scheduler chooses).
    pub gpus_per_node: u16,
}

/// The first reason a job of `gpus` GPUs with `vram_gb` per GPU can never start on the
/// campus, or `None` when it can start on the empty cluster (see the module docs).
pub fn campus_misfit(campus: &Campus, ask: Ask, gpus: u32, vram_gb: f64) -> Option<CampusMisfit> {
    let limit = campus.accounts.get(usize::from(ask.account)).and_then(|a| a.gpu_limit.map(|l| (a, l)));
    match campus.placement {
        Placement::Pool => {
            if gpus > campus.gpus {
                return Some(CampusMisfit::TooManyGpus { gpus, room: campus.gpus, place: "the campus".into() });
            }
            if vram_gb > campus.vram_gb {
                return Some(CampusMisfit::Memory {
                    asked_gb: vram_gb,
                    have_gb: campus.vram_gb,
                    place: "the campus".into(),
                });
            }
            // The pool applies only the group's limit (other limits need nodes).
            if ask.account == campus.group_account
                && let Some((a, l)) = limit
                && gpus > l
            {
                return Some(CampusMisfit::AccountLimit { account: a.name.clone(), limit: l, holds: gpus });
            }
            None
        }
        Placement::Nodes => {
            let part = campus.partition(ask.partition);
            let place = format!("partition '{}'", part.name);
            if gpus > part.gpus {
                return Some(CampusMisfit::TooManyGpus { gpus, room: part.gpus, place });
            }
            if vram_gb > part.vram_gb {
                return Some(CampusMisfit::Memory { asked_gb: vram_gb, have_gb: part.vram_gb, place });
            }
            let shape = Shape::of(gpus, ask.nodes, ask.gpus_per_node, part.max_gpus_per_node);
            let nodes_with = |min_gpus: u32| -> u32 {
                campus
                    .node_groups
                    .iter()
                    .filter(|g| g.partition == ask.partition && g.gpus_per_node >= min_gpus)
                    .fold(0u32, |n, g| n.saturating_add(g.nodes))
            };
            let (need, have, words) = match shape {
                Shape::OneNode(k) => (1, nodes_with(k), format!("1 node × {}", count(k, "GPU"))),
                Shape::Exact(n, g) => (n, nodes_with(g), format!("{} × {}", count(n, "node"), count(g, "GPU"))),
                Shape::Whole(n) => (n, nodes_with(0), format!("{} (whole)", count(n, "node"))),
            };
            if have < need {
                return Some(CampusMisfit::TooFewNodes { shape: words, have, partition: part.name.clone() });
            }
            // What the scheduler counts against GrpTRES (NodeCluster::allocated_gpus).
            let holds = match shape {
                Shape::Whole(n) => n.saturating_mul(part.max_gpus_per_node),
                _ => gpus,
            };
            if let Some((a, l)) = limit
                && holds > l
            {
                return Some(CampusMisfit::AccountLimit { account: a.name.clone(), limit: l, holds });
            }
            None
        }
    }
}

/// Whether an offer can surely take a job of `gpus` GPUs with `vram_gb` per GPU under
/// `policy`: it has the memory and the GPUs, and it is there whenever a job arrives (an
/// hourly offer, or a monthly one rented the whole time; see the module docs).
pub fn offer_surely_takes(offer: &Offer, policy: &Policy, offer_index: usize, gpus: u32, vram_gb: f64) -> bool {
    let fits = vram_gb <= offer.vram_gb && gpus <= offer.capacity.unwrap_or(u32::MAX);
    let always_there = match offer.billing {
        BillingMode::Hourly => true,
        BillingMode::Monthly => {
            offer.rentals.is_none() && !(policy.rent_when_needed && policy.offers.contains(&offer_index))
        }
    };
    fits && always_there
}

/// Whether an offer could take such a job at some time (memory and GPUs only).
pub fn offer_could_take(offer: &Offer, gpus: u32, vram_gb: f64) -> bool {
    vram_gb <= offer.vram_gb && gpus <= offer.capacity.unwrap_or(u32::MAX)
}
