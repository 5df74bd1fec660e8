//! Capacity that fails, schedulers that cycle, users who give up: the engine's side of
//! `scenario::capacity` (all off unless the scenario names it).
//!
//! - **Node failures**: each node draws, from its own stream ([`Purpose::NodeFailures`]),
//!   a time to failure, then a repair time, then the next time to failure, up to the
//!   horizon. At a failure the jobs holding GPUs on the node are killed and re-queued at
//!   the back of the queue, keeping the work up to their last checkpoint (the walltime
//!   rule: a segment boundary is a checkpoint; with `checkpoint_interval_hours`, also
//!   every interval into the segment); the node takes nothing, and the backfill plan
//!   plans nothing on it, until its repair.
//! - **Drains**: at the start the nodes take no new job (running ones finish, as with
//!   Slurm's `DRAIN`); at the end they take jobs again.
//! - **Outages**: whole-cluster, at random times ([`Purpose::Outages`]) up to the horizon,
//!   or at fixed windows (a replay's inferred outages). Nothing starts during one; an
//!   outage that `kills_jobs` kills every running campus job as a failure does.
//! - **Scheduler cycle**: the campus scheduler passes only at multiples of the cycle.
//! - **Start delay**: a job joins the queue that long after it was submitted (or
//!   re-queued); its wait includes the delay.
//! - **Patience**: a job of an account with `patience_hours` is cancelled if it has not
//!   started that long after it first joined the campus queue (reneging); a job whose
//!   account balks is not submitted at all when the queue ahead is too long. Each job's
//!   patience comes from its own stream ([`Purpose::Patience`]), so every policy sees the
//!   same users.

use super::queue::Event;
use super::{Observer, Place, Shared, Status, World};
use crate::rng::{Purpose, SimRng, patience_key, stream};
use crate::units::{HOUR, SimTime, hours_to_secs};

/// Reasons a node is down.
const FAILED: u8 = 1;
const DRAINED: u8 = 2;

/// What the engine keeps for the capacity model.
#[derive(Default)]
pub(crate) struct CapState {
    /// Per node: its failure stream (node failures on).
    node_rng: Vec<SimRng>,
    /// Per node: why it is down (bits), until when it is failed and drained, and since when down.
    reasons: Vec<u8>,
    failed_until: Vec<SimTime>,
    drained_until: Vec<SimTime>,
    down_since: Vec<SimTime>,
    /// Whole-cluster outages `(start, end, kills)`.
    outages: Vec<(SimTime, SimTime, bool)>,
    /// The union of the outages, disjoint and sorted: node downtime inside them is
    /// already counted as the whole cluster's, so it is not counted again.
    outage_union: Vec<(SimTime, SimTime)>,
    /// No job starts before this (an outage).
    pub stopped_until: SimTime,
    /// Capacity out of service in the window, GPU-seconds.
    pub lost_capacity_gpu_secs: f64,
    /// Work thrown away by kills in the window, GPU-seconds.
    pub lost_work_gpu_secs: f64,
    /// Jobs killed by failures or outages in the window.
    pub killed: u64,
    /// Campus submissions (first ones, balked ones included) in the window.
    pub submitted: u64,
    /// Of those, reneged and balked.
    pub reneged: u64,
    pub balked: u64,
}

/// Random outages `(start, end)` up to `until`, from the outage stream.
fn random_outages(o: &crate::scenario::capacity::Outages, rng: &mut SimRng, until: SimTime) -> Vec<(SimTime, SimTime)> {
    let mut v = Vec::new();
    let mut t: SimTime = 0;
    loop {
        t = t.saturating_add(hours_to_secs(o.between_h.sample(rng), 1));
        if t >= until {
            return v;
        }
        let end = t.saturating_add(hours_to_secs(o.duration_h.sample(rng), 1));
        v.push((t, end));
        t = end;
    }
}

impl<O: Observer> World<'_, O> {
    /// Sets up failures, drains and outages and queues their first events.
    pub(super) fn init_capacity(&mut self) {
        let cap = &self.scn.campus.capacity;
        let (seed, rep, horizon) = (self.scn.seed, self.replication, self.scn.horizon);
        let nodes: u32 = self.scn.campus.node_groups.iter().map(|g| g.nodes).sum();
        let c = &mut self.cap;
        c.reasons = vec![0; nodes as usize];
        c.failed_until = vec![0; nodes as usize];
        c.drained_until = vec![0; nodes as usize];
        c.down_since = vec![0; nodes as usize];
        if let Some(f) = &cap.node_failures {
            for n in 0..nodes {
                let mut rng = stream(seed, rep, Purpose::NodeFailures(n));
                let t = hours_to_secs(f.between_h.sample(&mut rng), 1);
                if t < horizon {
                    self.events.push(t, Event::NodeDown(n));
                }
                self.cap.node_rng.push(rng);
            }
        }
        for (i, d) in cap.drains.iter().enumerate() {
            self.events.push(d.start, Event::DrainStart(i as u32));
            self.events.push(d.end, Event::DrainEnd(i as u32));
        }
        let mut outages: Vec<(SimTime, SimTime, bool)> =
            cap.outage_windows.iter().map(|&(a, b)| (a, b, false)).collect();
        if let Some(o) = &cap.outages {
            let mut rng = stream(seed, rep, Purpose::Outages);
            outages.extend(random_outages(o, &mut rng, horizon).into_iter().map(|(a, b)| (a, b, o.kills_jobs)));
        }
        outages.sort_unstable();
        for (i, &(a, _, _)) in outages.iter().enumerate() {
            self.events.push(a, Event::OutageStart(i as u32));
        }
        let mut union: Vec<(SimTime, SimTime)> = Vec::new();
        for &(a, b, _) in &outages {
            match union.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => union.push((a, b)),
            }
        }
        self.cap.outages = outages;
        self.cap.outage_union = union;
    }

    /// GPU-seconds a node of `gpus` GPUs was down in `[a, b)` inside the measured window
    /// and outside every outage (an outage counts the whole cluster, that node included).
    fn node_lost(&self, a: SimTime, b: SimTime, gpus: u32) -> f64 {
        let (lo, hi) = (a.max(self.scn.warmup), b.min(self.scn.horizon));
        if hi <= lo {
            return 0.0;
        }
        let first = self.cap.outage_union.partition_point(|&(_, end)| end <= lo);
        let inside: SimTime = self.cap.outage_union[first..]
            .iter()
            .take_while(|&&(start, _)| start < hi)
            .map(|&(start, end)| end.min(hi) - start.max(lo))
            .sum();
        f64::from(gpus) * (hi - lo - inside) as f64
    }

    /// GPU-seconds of `[a, b)` inside the measured window, for `gpus` GPUs.
    fn in_window(&self, a: SimTime, b: SimTime, gpus: u32) -> f64 {
        let (lo, hi) = (a.max(self.scn.warmup), b.min(self.scn.horizon));
        if hi > lo { f64::from(gpus) * (hi - lo) as f64 } else { 0.0 }
    }

    fn node_gpus(&self, node: u32) -> u32 {
        let mut n = node;
        for g in &self.scn.campus.node_groups {
            if n < g.nodes {
                return g.gpus_per_node;
            }
            n -= g.nodes;
        }
        0
    }

    /// Adds or clears a reason for a node to be down and tells the cluster.
    fn set_reason(&mut self, node: u32, reason: u8, on: bool) {
        let i = node as usize;
        let before = self.cap.reasons[i];
        let after = if on { before | reason } else { before & !reason };
        self.cap.reasons[i] = after;
        if after == 0 {
            if before != 0 {
                let lost = self.node_lost(self.cap.down_since[i], self.now, self.node_gpus(node));
                self.cap.lost_capacity_gpu_secs += lost;
                self.cluster.set_node_up(node);
                self.obs.node_state(self.now, node, true);
            }
            return;
        }
        if before == 0 {
            self.cap.down_since[i] = self.now;
            self.obs.node_state(self.now, node, false);
        }
        let mut until = 0;
        if after & FAILED != 0 {
            until = until.max(self.cap.failed_until[i]);
        }
        if after & DRAINED != 0 {
            until = until.max(self.cap.drained_until[i]);
        }
        self.cluster.set_node_down(node, until);
    }

    /// Handles a capacity event; false if `e` is not one.
    pub(super) fn handle_capacity(&mut self, e: Event) -> bool {
        match e {
            Event::NodeDown(n) => {
                let f = self.scn.campus.capacity.node_failures.as_ref().expect("failures are on");
                let repair = hours_to_secs(f.repair_h.sample(&mut self.cap.node_rng[n as usize]), 1);
                for j in self.cluster.jobs_on_node(n) {
                    self.kill_campus(j);
                }
                self.cap.failed_until[n as usize] = self.now + repair;
                self.set_reason(n, FAILED, true);
                self.events.push(self.now + repair, Event::NodeUp(n));
            }
            Event::NodeUp(n) => {
                self.set_reason(n, FAILED, false);
                let f = self.scn.campus.capacity.node_failures.as_ref().expect("failures are on");
                let next =
                    self.now.saturating_add(hours_to_secs(f.between_h.sample(&mut self.cap.node_rng[n as usize]), 1));
                if next < self.scn.horizon {
                    self.events.push(next, Event::NodeDown(n));
                }
            }
            Event::DrainStart(d) => {
                let drain = &self.scn.campus.capacity.drains[d as usize];
                for &n in &drain.nodes {
                    let i = n as usize;
                    self.cap.drained_until[i] = self.cap.drained_until[i].max(drain.end);
                    self.set_reason(n, DRAINED, true);
                }
            }
            Event::DrainEnd(d) => {
                let drain = &self.scn.campus.capacity.drains[d as usize];
                for &n in &drain.nodes {
                    if self.cap.drained_until[n as usize] <= self.now {
                        self.set_reason(n, DRAINED, false);
                    }
                }
            }
            Event::OutageStart(i) => {
                let (a, b, kills) = self.cap.outages[i as usize];
                let from = a.max(self.cap.stopped_until);
                self.cap.lost_capacity_gpu_secs += self.in_window(from, b, self.cluster.total());
                if b > self.cap.stopped_until {
                    self.cap.stopped_until = b;
                    self.events.push(b, Event::OutageEnd);
                }
                if kills {
                    let running: Vec<u32> = (0..self.st.len() as u32)
                        .filter(|&j| self.st[j as usize].status == Status::CampusRunning)
                        .collect();
                    for j in running {
                        self.kill_campus(j);
                    }
                }
            }
            Event::OutageEnd => {
                if self.now >= self.cap.stopped_until {
                    self.cluster.invalidate();
                }
            }
            Event::Renege(j) => self.renege(j),
            Event::Release(j) => self.release(j),
            _ => return false,
        }
        true
    }

    /// Kills a running campus job (its node failed, or an outage): it keeps the work up to
    /// its last checkpoint and joins the back of the queue for the rest.
    fn kill_campus(&mut self, j: u32) {
        let s = self.st[j as usize];
        debug_assert_eq!(s.status, Status::CampusRunning, "invariant: only running jobs are killed");
        let job = &self.jobs[j as usize];
        let done = self.now - s.seg_start;
        let checkpoint = self.scn.campus.capacity.node_failures.as_ref().and_then(|f| f.checkpoint);
        let saved = checkpoint.map_or(0, |c| done / c * c).min(s.segment);
        self.cluster.finish(self.now, j, s.walltime_end, job.gpus, job.group);
        self.obs.ended(self.now, j, Place::Campus, job.gpus, false);
        if job.group && self.measured(j) {
            self.charge_campus(j, f64::from(job.gpus) * done as f64);
        }
        if self.now >= self.scn.warmup && self.now < self.scn.horizon {
            self.cap.killed += 1;
            self.cap.lost_work_gpu_secs += f64::from(job.gpus) * (done - saved) as f64;
        }
        let s = &mut self.st[j as usize];
        s.remaining -= saved;
        s.end_at = SimTime::MAX; // its CampusEnd event is now stale
        self.enqueue_campus(j);
    }

    /// Called when a job joins the campus queue for the first time: counts it, and
    /// returns false if it balks (then it is done, never submitted).
    pub(super) fn first_submission(&mut self, j: u32) -> bool {
        let job = &self.jobs[j as usize];
        let account = self.request(j).account;
        let p = &self.scn.campus.accounts[usize::from(account)].patience;
        let window = job.submit >= self.scn.warmup && job.submit < self.scn.horizon;
        self.cap.submitted += u64::from(window);
        if !p.any() {
            return true;
        }
        let balks = match &self.shared {
            // The replay's queue lacks the other groups' waiting jobs: their balking is
            // the reference run's (the group's own balking makes a scenario run exact).
            Shared::Replay { bg, .. } if !job.group => bg.balked(j),
            _ => {
                p.balk_gpu_hours.is_some_and(|limit| {
                    let ahead = self.cluster.queued_gpu_secs();
                    ahead / HOUR as f64 > limit
                }) || p.balk_wait.is_some_and(|w| self.predicted_start_after(j, self.now.saturating_add(w)))
            }
        };
        if let Shared::Record(rec) = &mut self.shared
            && balks
            && !job.group
        {
            rec.balked(j);
        }
        if balks {
            self.cap.balked += u64::from(window);
            let s = &mut self.st[j as usize];
            s.status = Status::Done;
            s.place = Place::Nowhere;
            self.gave_up(j, false);
            return false;
        }
        if let Some(patience) = &p.patience_h {
            let mut rng = stream(
                self.scn.seed,
                self.replication,
                Purpose::Patience(patience_key(job.group, job.class, job.ordinal)),
            );
            let t = self.now.saturating_add(hours_to_secs(patience.sample(&mut rng), 0));
            self.events.push(t, Event::Renege(j));
        }
        true
    }

    fn renege(&mut self, j: u32) {
        let s = self.st[j as usize];
        if s.status != Status::CampusQueued || s.first_start != SimTime::MAX {
            return; // started (or went to the cloud) in time
        }
        let removed = self.withdraw_campus(j);
        debug_assert!(removed, "invariant: a queued job is in the campus queue or held for its start delay");
        let st = &mut self.st[j as usize];
        st.waited += self.now - st.queued_since;
        st.status = Status::Done;
        st.place = Place::Nowhere;
        if self.measured(j) && self.jobs[j as usize].submit < self.scn.horizon {
            self.cap.reneged += 1;
        }
        self.gave_up(j, true);
    }

    fn release(&mut self, j: u32) {
        if self.st[j as usize].status != Status::CampusQueued || !self.st[j as usize].held {
            return; // withdrawn or cancelled meanwhile
        }
        self.st[j as usize].held = false;
        self.submit_to_cluster(j);
    }

    /// Whether the scheduler may run now (no outage; at a cycle boundary). When it may
    /// not, asks to be woken at the next time it may.
    pub(super) fn scheduler_may_run(&mut self) -> bool {
        if self.now < self.cap.stopped_until {
            return false; // OutageEnd wakes it
        }
        let cycle = self.scn.campus.capacity.cycle;
        if cycle == 0 || self.now.is_multiple_of(cycle) {
            return true;
        }
        let t = (self.now / cycle + 1) * cycle;
        if t < self.next_tick {
            self.next_tick = t;
            self.events.push(t, Event::CampusTick);
        }
        false
    }

    /// Capacity still out of service at the end, counted up to the horizon.
    pub(super) fn close_capacity(&mut self) {
        for n in 0..self.cap.reasons.len() {
            if self.cap.reasons[n] != 0 {
                let lost = self.node_lost(self.cap.down_since[n], self.scn.horizon, self.node_gpus(n as u32));
                self.cap.lost_capacity_gpu_secs += lost;
            }
        }
    }
}
