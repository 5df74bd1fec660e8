//! The shared background (issue 42, `campus_model = "shared"`): the other groups' campus
//! simulated once per replication, and every other policy's group jobs evaluated against it.
//!
//! ```text
//! reference run: the exact joint simulation of the baseline policy (its metrics are
//!   the baseline's, exact), recording
//!     · every background segment's start and (node, GPUs)      → Background::segments
//!     · which background jobs balked                            → Background::balked
//! replay run, per other policy: the same engine, policy and rules; every job, the
//!   group's and the other groups', joins the live campus queue as in the exact model,
//!   with its priority, its place in the main pass and its backfill reservation; a
//!   background job is *pinned*: the schedulers do not start it before its recorded
//!   start (where one would start it early it is passed over: it neither starts nor
//!   blocks its partition nor holds a reservation); from its recorded start on it is
//!   an ordinary waiting job.
//! ```
//!
//! The invariant that makes this exact where it should be: if the group's jobs go where
//! they went in the reference run, every scheduler decision is the reference run's, so
//! every background job starts at its recorded time (its pin never binds) and the replay
//! of a copy of the baseline is the baseline, start for start
//! (`tests/suite/shared_background.rs`). The earlier replay parked a background job out
//! of the queue until its recorded start, and the group's jobs jumped ahead of it (their
//! waits were about 30% short on that copy; docs/VALIDATION.md).
//!
//! What this approximates: where a policy leaves GPUs the baseline's jobs took (jobs
//! sent to the cloud), a background job cannot start before its recorded start, so the
//! background does not take up that capacity early and the group's jobs behind it may
//! (their waits come out short); blocking it instead keeps those GPUs idle (waits come
//! out long): docs/VALIDATION.md measured both. Where a policy takes GPUs the baseline did
//! not, background jobs start later than recorded, as the live scheduler decides. What it
//! does not save: the live queue holds the background's waiting jobs again, so a replay
//! costs about what an exact run does (docs/PERFORMANCE.md).

use crate::units::SimTime;

/// What the reference run records (built while it runs, frozen by [`Recording::finish`]).
#[derive(Debug, Default)]
pub(crate) struct Recording {
    /// `(job, start, first index in `nodes`, count)` of every background segment, in start order.
    starts: Vec<(u32, SimTime, u32, u32)>,
    nodes: Vec<(u32, u32)>,
    balked: Vec<u32>,
}

impl Recording {
    /// A background segment started at `t` on `alloc`.
    pub(crate) fn started(&mut self, job: u32, t: SimTime, alloc: &[(u32, u32)]) {
        self.starts.push((job, t, self.nodes.len() as u32, alloc.len() as u32));
        self.nodes.extend_from_slice(alloc);
    }

    /// A background job balked at its first submission.
    pub(crate) fn balked(&mut self, job: u32) {
        self.balked.push(job);
    }

    /// The background of a stream of `jobs` jobs, indexed by job.
    pub(crate) fn finish(mut self, jobs: usize) -> Background {
        // Stable: a job's segments keep their start order.
        self.starts.sort_by_key(|s| s.0);
        let mut first = vec![0u32; jobs + 1];
        for s in &self.starts {
            first[s.0 as usize + 1] += 1;
        }
        for j in 0..jobs {
            first[j + 1] += first[j];
        }
        let mut balked = vec![false; jobs];
        for &j in &self.balked {
            balked[j as usize] = true;
        }
        Background {
            first,
            segments: self.starts.into_iter().map(|(_, t, i, n)| (t, i, n)).collect(),
            nodes: self.nodes,
            balked,
        }
    }
}

/// The other groups' campus of one replication, as the reference run recorded it.
#[derive(Debug)]
pub struct Background {
    /// Per job, the index of its first segment in `segments` (length jobs + 1).
    first: Vec<u32>,
    /// `(start, first index in nodes, count)` per segment, grouped by job in start order.
    segments: Vec<(SimTime, u32, u32)>,
    nodes: Vec<(u32, u32)>,
    balked: Vec<bool>,
}

impl Background {
    /// The recorded start and `(node, GPUs)` of a background job's `k`-th campus segment
    /// (`None`: it never had one, e.g. it reneged first).
    pub(crate) fn segment(&self, job: u32, k: usize) -> Option<(SimTime, &[(u32, u32)])> {
        let (a, b) = (self.first[job as usize] as usize, self.first[job as usize + 1] as usize);
        (a + k < b).then(|| {
            let (t, i, n) = self.segments[a + k];
            (t, &self.nodes[i as usize..(i + n) as usize])
        })
    }

    /// Whether a background job balked in the reference run.
    pub(crate) fn balked(&self, job: u32) -> bool {
        self.balked[job as usize]
    }

    /// Background campus segments recorded.
    pub fn segments(&self) -> usize {
        self.segments.len()
    }
}

/// How a run treats the other groups' campus.
pub(crate) enum Shared<'a> {
    /// Simulated with the group's jobs (the exact joint model).
    Exact,
    /// Simulated exactly, and recorded for replays.
    Record(Box<Recording>),
    /// Replayed from a reference run; `next[j]` counts the segments of job `j` replayed so far.
    Replay { bg: &'a Background, next: Vec<u16> },
}

impl<O: super::Observer> super::World<'_, O> {
    /// Pins a background job that has just joined the campus queue to its next recorded
    /// start: the schedulers will not start it before then. A segment the reference run
    /// never started (the job reneged, or was still waiting at the end) is not pinned: the
    /// live scheduler decides it, as it decided that it did not start.
    pub(super) fn pin(&mut self, j: u32) {
        let Shared::Replay { bg, next } = &mut self.shared else { unreachable!("pinning is for replays") };
        let k = usize::from(next[j as usize]);
        next[j as usize] += 1;
        if let Some((t, _)) = bg.segment(j, k) {
            self.cluster.pin(j, t);
        }
    }
}
