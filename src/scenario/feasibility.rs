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

use crate::job::walltime_request;
use crate::scenario::model::{Campus, JobClass, MAX_RUNTIME_HOURS, Offer, Policy, Timing};
use crate::scenario::raw::{BillingMode, Placement};
use crate::scenario::shape::Shape;
use crate::scenario::week::Longest;
use crate::units::{SimTime, hours_to_secs};

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
pub struct SlurmAsk {
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
pub fn campus_misfit(campus: &Campus, ask: SlurmAsk, gpus: u32, vram_gb: f64) -> Option<CampusMisfit> {
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

/// The longest walltime request a job of `gpus` GPUs (placed as `ask` says) can ever
/// start with, given the campus's recurring reservations and time-of-day limits
/// ([`crate::scenario::week`]), or `None` when they bound no request. A job that
/// [`campus_misfit`] refuses has no answer here: ask that first.
///
/// On nodes the job's candidates are its partition's nodes that can hold one part of its
/// shape, and it needs as many of them clear of their reservations as the shape has
/// parts; on the pool only whole-cluster reservations and limits count.
pub fn campus_reach(campus: &Campus, ask: SlurmAsk, gpus: u32) -> Option<Longest> {
    let week = &campus.week;
    if week.is_empty() {
        return None;
    }
    if campus.placement == Placement::Pool || week.per_node.is_empty() {
        return week.longest(&[], 0);
    }
    let part = campus.partition(ask.partition);
    let shape = Shape::of(gpus, ask.nodes, ask.gpus_per_node, part.max_gpus_per_node);
    let min_gpus = match shape {
        Shape::OneNode(k) => k,
        Shape::Exact(_, g) => g,
        Shape::Whole(_) => 0,
    };
    let mut candidates = Vec::new();
    let mut first = 0u32;
    for g in &campus.node_groups {
        if g.partition == ask.partition && g.gpus_per_node >= min_gpus {
            candidates.extend(first..first + g.nodes);
        }
        first += g.nodes;
    }
    week.longest(&candidates, shape.nodes())
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

/// The walltime requests (seconds) of a class's shortest and longest jobs, as the engine
/// makes them: run time × walltime factor rounded up, capped at the partition's limit.
pub fn request_range(c: &JobClass, campus: &Campus) -> (SimTime, SimTime) {
    let max = campus.partition(c.partition).max_walltime;
    match &c.timing {
        Timing::Independent { runtime_hours, walltime_factor } => {
            let (r_lo, r_hi) = runtime_hours.support();
            let (f_lo, f_hi) = walltime_factor.support();
            let secs = |h: f64| hours_to_secs(h.min(MAX_RUNTIME_HOURS), 1);
            (
                walltime_request(secs(r_lo), f_lo.clamp(1.0, 1000.0), max),
                walltime_request(secs(r_hi), f_hi.clamp(1.0, 1000.0), max),
            )
        }
        Timing::Joint(r) => {
            let h = r.hours();
            let secs = |h: f64| hours_to_secs(h, 1).min(max.unwrap_or(SimTime::MAX));
            (secs(h[0]), secs(h[h.len() - 1]))
        }
    }
}

/// Jobs of a class that can never start on the campus because of its reservations and
/// time-of-day limits ([`crate::scenario::week`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WindowMisfit {
    /// The longest request that can start (for the class's largest job), and what
    /// keeps longer ones out.
    pub longest: Longest,
    /// Whether no job of the class can ever start (else only the longer requests).
    pub all: bool,
    /// The class's longest walltime request, seconds.
    pub longest_request: SimTime,
    /// The class's shortest walltime request, seconds.
    pub shortest_request: SimTime,
}

/// The longest request that starts, over the GPU counts `gpus`: the shortest answer and
/// the longest (`None`: unbounded for some count, or for all).
fn reach_over(
    campus: &Campus,
    ask: SlurmAsk,
    gpus: std::ops::RangeInclusive<u32>,
) -> (Option<Longest>, Option<Longest>) {
    let (mut least, mut most): (Option<Longest>, Option<Longest>) = (None, None);
    let mut unbounded = false;
    let part = campus.partition(ask.partition);
    let mut last_shape = None;
    for g in gpus {
        // The answer depends on the GPU count only through the shape.
        let shape = Shape::of(g, ask.nodes, ask.gpus_per_node, part.max_gpus_per_node);
        if last_shape.replace(shape) == Some(shape) {
            continue;
        }
        match campus_reach(campus, ask, g) {
            None => unbounded = true,
            Some(l) => {
                if least.is_none_or(|x| l.request < x.request) {
                    least = Some(l);
                }
                if most.is_none_or(|x| l.request > x.request) {
                    most = Some(l);
                }
            }
        }
    }
    (least, if unbounded { None } else { most })
}

/// Whether some (or all) of a class's jobs can never start on the campus, given its
/// windows: `None` when every job can start somewhere in the week (see the module docs
/// of [`crate::scenario::week`]). Asks [`campus_misfit`]'s question first: call it on a
/// class that fits the empty campus.
pub fn window_misfit(campus: &Campus, c: &JobClass, ask: SlurmAsk) -> Option<WindowMisfit> {
    if campus.week.is_empty() {
        return None;
    }
    let (g_lo, g_hi) = c.gpus.support();
    let part_gpus = campus.partition(ask.partition).gpus.max(1);
    let gpu = |g: f64| (g.round().max(1.0).min(f64::from(part_gpus))) as u32;
    let (shortest_request, longest_request) = request_range(c, campus);
    let (least, most) = reach_over(campus, ask, gpu(g_lo)..=gpu(g_hi));
    let least = least?;
    if longest_request <= least.request {
        return None;
    }
    // No job starts when even the shortest request of the best-placed size is too long.
    let all = most.is_some_and(|m| shortest_request > m.request);
    Some(WindowMisfit { longest: most.filter(|_| all).unwrap_or(least), all, longest_request, shortest_request })
}

/// Hours in words for messages: `23 h`, `1.50 h`.
pub fn hours_words(secs: SimTime) -> String {
    let h = crate::units::secs_to_hours(secs);
    if h.fract() == 0.0 { format!("{h} h") } else { format!("{h:.2} h") }
}

/// Draws of a class's jobs behind [`never_start_share`]: enough for a share to about
/// half a percent (the binomial standard error at 1/2 is 0.35%).
pub const SHARE_DRAWS: u32 = 20_000;

/// The share of a class's jobs whose request can never start on the campus, estimated
/// from [`SHARE_DRAWS`] draws of its distributions (a fixed stream, so the same every
/// time).
pub fn never_start_share(campus: &Campus, c: &JobClass, ask: SlurmAsk) -> f64 {
    use rand::SeedableRng;
    let mut rng = crate::rng::SimRng::seed_from_u64(0x4545);
    let mut reach = Reach::default();
    let max = campus.partition(c.partition).max_walltime;
    let never = (0..SHARE_DRAWS)
        .filter(|_| {
            let (runtime, gpus, factor) = c.draw_size(&mut rng);
            reach.learn(campus, ask, gpus);
            !reach.allows(campus, ask, gpus, walltime_request(runtime, factor, max))
        })
        .count();
    never as f64 / f64::from(SHARE_DRAWS)
}

/// The longest request that can start, per job shape, computed once per shape: what the
/// engine asks for each job ([`Reach::allows`]).
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// (partition, nodes, GPUs per node, GPUs) → the longest request (`None`: any).
    table: std::collections::HashMap<(u16, u16, u16, u32), Option<SimTime>>,
}

impl Reach {
    /// The table for these jobs (placement and GPUs each); empty when the campus has no
    /// windows.
    pub fn of(campus: &Campus, jobs: impl Iterator<Item = (SlurmAsk, u32)>) -> Reach {
        let mut r = Reach::default();
        if !campus.week.is_empty() {
            for (ask, gpus) in jobs {
                r.learn(campus, ask, gpus);
            }
        }
        r
    }

    fn key(ask: SlurmAsk, gpus: u32) -> (u16, u16, u16, u32) {
        (ask.partition, ask.nodes, ask.gpus_per_node, gpus)
    }

    /// Computes (once) the answer for a job of this shape.
    pub fn learn(&mut self, campus: &Campus, ask: SlurmAsk, gpus: u32) {
        self.table.entry(Self::key(ask, gpus)).or_insert_with(|| campus_reach(campus, ask, gpus).map(|l| l.request));
    }

    /// Whether a job of `gpus` GPUs placed as `ask` says, with walltime request
    /// `request`, can ever start on the campus given its windows (a shape not learnt is
    /// computed, not remembered).
    pub fn allows(&self, campus: &Campus, ask: SlurmAsk, gpus: u32, request: SimTime) -> bool {
        if campus.week.is_empty() {
            return true;
        }
        let longest = match self.table.get(&Self::key(ask, gpus)) {
            Some(&l) => l,
            None => campus_reach(campus, ask, gpus).map(|l| l.request),
        };
        longest.is_none_or(|l| request <= l)
    }
}
