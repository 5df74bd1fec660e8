//! The discrete-event engine: one replication of one policy on one job stream.
//!
//! ```text
//! loop:
//!   now ← the earlier of the next queued event and the next submission
//!   handle every event at `now` (ends, maintenance ends, policy timers; see queue.rs)
//!   handle every submission at `now` (background → campus queue; group → policy)
//!   run the campus scheduler once; start what it allows
//!   record levels (queue, busy GPUs) for the daily series
//! ```
//! State lives in one `World` value and every change goes through a method on it; the
//! policy's decisions are in `policy.rs`. Invariants (a job ends exactly once, busy GPUs
//! never exceed capacity) are `debug_assert!`s here and property-tested in `tests/`.

pub mod queue;

use std::collections::HashMap;

use crate::cloud::{CloudRun, OfferState};
use crate::cluster::{Cluster, QueuedJob, Request, Reservation};
use crate::job::{Job, NO_DEADLINE};
use crate::metrics::class::ClassTally;
use crate::metrics::{DailyLevel, RunMetrics};
use crate::scenario::raw::BillingMode;
use crate::scenario::{Policy, Scenario};
use crate::units::{DAY, HOUR, SimTime, secs_to_hours};
use crate::workload::JobStream;
use queue::{Event, EventQueue};

pub(crate) mod budget;
use budget::BudgetState;

mod capacity;
use capacity::CapState;

pub mod watchdog;
use watchdog::Watchdog;
pub use watchdog::{Halt, Runaway};

mod outcome;
use outcome::GaveUp;

mod situation;

mod cloud_side;
mod finish;

pub mod shared;
pub use shared::Background;
use shared::Shared;

/// Where a job (or a segment of it) runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Not placed yet.
    Nowhere,
    /// The campus cluster.
    Campus,
    /// A cloud offer (index into the scenario's offers).
    Offer(u16),
}

/// Hooks for tests and tools that want to watch a run; every method defaults to nothing,
/// so the unit type `()` is the no-op observer.
pub trait Observer {
    /// A job (segment) started at `t` on `place` with `gpus`.
    fn started(&mut self, _t: SimTime, _job: u32, _place: Place, _gpus: u32) {}
    /// A job (segment) ended; `completed` is false for a walltime kill that resubmits.
    fn ended(&mut self, _t: SimTime, _job: u32, _place: Place, _gpus: u32, _completed: bool) {}
    /// A waiting job left the campus queue for the cloud.
    fn withdrawn(&mut self, _t: SimTime, _job: u32) {}
    /// The EASY scheduler holds this reservation after its pass at `t`.
    fn reservation(&mut self, _t: SimTime, _r: Reservation) {}
    /// A job (segment) started on campus on these `(node, GPUs)` (node placement only).
    fn placed(&mut self, _t: SimTime, _job: u32, _nodes: &[(u32, u32)]) {}
    /// A node went down (failed or drained; `up` false) or came back (`up` true).
    fn node_state(&mut self, _t: SimTime, _node: u32, _up: bool) {}
    /// A job left for good without running: it reneged (its patience ran out in the
    /// queue; `reneged` true) or balked (never submitted; false).
    fn gave_up(&mut self, _t: SimTime, _job: u32, _reneged: bool) {}
}

impl Observer for () {}

/// What happened to one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobRecord {
    /// Submission time.
    pub submit: SimTime,
    /// Start of compute (on campus, or after cloud start-up and upload); `SimTime::MAX` if never.
    pub start: SimTime,
    /// End of the job; `SimTime::MAX` if never.
    pub end: SimTime,
    /// Where it finally ran.
    pub place: Place,
}

/// The result of one simulation.
#[derive(Clone, Debug)]
pub struct SimOutput {
    /// Measurements.
    pub metrics: RunMetrics,
    /// One record per job of the stream, in stream order.
    pub records: Vec<JobRecord>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Pending,
    CampusQueued,
    CampusRunning,
    CloudQueued,
    CloudRunning,
    Done,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct JobProgress {
    pub remaining: SimTime,
    pub first_start: SimTime,
    /// When the job last joined a queue (the campus queue or an offer's line).
    pub queued_since: SimTime,
    /// Time spent waiting so far: every campus queueing segment (including re-queues
    /// after walltime kills), an offer's line, and cloud start-up and upload.
    pub waited: SimTime,
    pub end: SimTime,
    pub walltime_end: SimTime,
    pub segment: SimTime,
    pub place: Place,
    pub status: Status,
    /// Start of the current campus segment.
    pub seg_start: SimTime,
    /// When the current campus segment's `CampusEnd` fires (`SimTime::MAX`: no live one,
    /// e.g. after a kill).
    pub end_at: SimTime,
    /// Queued but waiting out the minimum start delay (not yet in the cluster's queue).
    pub held: bool,
    /// Has joined the campus queue before (patience and balking apply to the first time).
    pub submitted: bool,
    /// Whether it left without running (reneged or balked).
    pub gave_up: GaveUp,
}

pub(crate) struct InFlight {
    offer: usize,
    launch: SimTime,
    run: CloudRun,
    committed: Option<(u32, f64)>,
}

/// Running sums for the metrics.
#[derive(Default)]
pub(crate) struct Tally {
    pub campus_cost: f64,
    pub hourly_cost: f64,
    pub transfer_cost: f64,
    pub storage_cost: f64,
    pub waits_h: Vec<f64>,
    pub first_waits_h: f64,
    pub turnaround_h: f64,
    pub completed: u64,
    pub with_deadline: u64,
    pub missed: u64,
    pub cloud_jobs: u64,
    pub cloud_gpu_secs: f64,
    pub campus_gpu_secs: f64,
    pub interruptions: u64,
    pub resubmits: u64,
    pub arrivals: u64,
    pub daily_cost: Vec<f64>,
    pub backlog_days: f64,
    /// Work (GPU-seconds of runtime) of measured group jobs that reneged or balked.
    pub gave_up_gpu_secs: f64,
    /// Measured group jobs that never started because no gap of the campus's windows
    /// fits their walltime request (a part of the unfinished ones).
    pub never_startable: u64,
    /// Per group class, plus a last slot for group jobs of no scenario class (a log's).
    pub classes: Vec<ClassTally>,
}

/// The whole state of one replication.
pub(crate) struct World<'a, O: Observer> {
    pub scn: &'a Scenario,
    pub policy: &'a Policy,
    pub jobs: &'a [Job],
    pub replication: u64,
    pub now: SimTime,
    pub events: EventQueue,
    pub cluster: Cluster,
    /// Index of the "others" account (a log's jobs).
    others_account: u16,
    pub offers: Vec<OfferState>,
    pub st: Vec<JobProgress>,
    pub in_flight: HashMap<u32, InFlight>,
    pub budget: BudgetState<'a>,
    pub tally: Tally,
    pub obs: &'a mut O,
    pub debug: HashMap<u32, crate::policy::DebugSession>,
    started: Vec<QueuedJob>,
    /// The earliest campus wake-up already in the event queue.
    next_tick: SimTime,
    busy: DailyLevel,
    queued: DailyLevel,
    cloud_busy: DailyLevel,
    monthly_busy: DailyLevel,
    /// GPUs of the policy's monthly offers rented at the time (they vary with
    /// `rent_months` and rentals started when needed).
    monthly_rented: DailyLevel,
    /// The policy's monthly offers ([`crate::policy::rented_monthly_offers`]).
    rented_offers: Vec<usize>,
    group_waiting: DailyLevel,
    cap: CapState,
    /// The longest request that can ever start, per job shape (empty without windows).
    reach: crate::scenario::feasibility::Reach,
    /// The exact joint model, its recording, or a replay of the background (`shared.rs`).
    shared: Shared<'a>,
}

/// Simulates `policy` on `stream` (replication `replication` of `scenario`).
///
/// # Panics
/// If the replication exceeds its event budget ([`watchdog`]), which validation rules
/// out; [`simulate_until`] returns that as an error instead.
pub fn simulate(scenario: &Scenario, stream: &JobStream, policy: usize, replication: u64) -> SimOutput {
    simulate_observed(scenario, stream, policy, replication, &mut ())
}

/// As [`simulate`] without the per-job records (Monte Carlo runs need only the metrics;
/// this saves 32 bytes per job).
///
/// # Panics
/// As [`simulate`].
pub fn simulate_metrics(scenario: &Scenario, stream: &JobStream, policy: usize, replication: u64) -> RunMetrics {
    unwrap_halt(simulate_metrics_until(scenario, stream, policy, replication, &|| false))
}

/// As [`simulate_metrics`], but ends early with [`Halt::Cancelled`] soon after `stop()`
/// turns true (it is polled every [`watchdog::POLL_EVERY`] steps), and with
/// [`Halt::Runaway`] when the replication exceeds its event budget.
///
/// # Errors
/// [`Halt`].
pub fn simulate_metrics_until(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<RunMetrics, Halt> {
    if stop() {
        return Err(Halt::Cancelled); // before setting up a world of millions of jobs
    }
    let mut none = ();
    let mut w = World::new(scenario, &scenario.policies[policy], &stream.jobs, replication, &mut none, Shared::Exact);
    w.run_checked(None, stop)?;
    Ok(w.finish_with(false).metrics)
}

/// The reference run of the shared background ([`shared`]): the exact joint simulation of
/// `policy` (the baseline), its metrics, and what it recorded of the other groups' campus.
///
/// # Errors
/// [`Halt`], as [`simulate_metrics_until`].
pub fn simulate_reference_until(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(RunMetrics, Background), Halt> {
    if stop() {
        return Err(Halt::Cancelled);
    }
    let mut none = ();
    let rec = Shared::Record(Box::default());
    let mut w = World::new(scenario, &scenario.policies[policy], &stream.jobs, replication, &mut none, rec);
    w.run_checked(None, stop)?;
    let rec = match std::mem::replace(&mut w.shared, Shared::Exact) {
        Shared::Record(r) => *r,
        _ => unreachable!("a reference run records"),
    };
    Ok((w.finish_with(false).metrics, rec.finish(stream.jobs.len())))
}

/// As [`simulate_metrics_until`], with the other groups' campus replayed from `background`
/// (the reference run of the same scenario, stream and replication) instead of simulated
/// again: the shared background's approximation ([`shared`]).
///
/// # Errors
/// [`Halt`].
pub fn simulate_shared_until(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    background: &Background,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<RunMetrics, Halt> {
    simulate_shared_observed(scenario, stream, policy, replication, background, &mut (), stop).map(|o| o.metrics)
}

/// As [`simulate_shared_until`], reporting starts and ends to `observer` and keeping the
/// per-job records (tests of the replay's invariants).
///
/// # Errors
/// [`Halt`].
pub fn simulate_shared_observed<O: Observer>(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    background: &Background,
    observer: &mut O,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<SimOutput, Halt> {
    if stop() {
        return Err(Halt::Cancelled);
    }
    let replay = Shared::Replay { bg: background, next: vec![0; stream.jobs.len()] };
    let mut w = World::new(scenario, &scenario.policies[policy], &stream.jobs, replication, observer, replay);
    w.run_checked(None, stop)?;
    Ok(w.finish_with(true))
}

/// As [`simulate`], reporting every start and end to `observer`.
///
/// # Panics
/// As [`simulate`].
pub fn simulate_observed<O: Observer>(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    observer: &mut O,
) -> SimOutput {
    unwrap_halt(simulate_until(scenario, stream, policy, replication, observer, None, &|| false))
}

/// As [`simulate_observed`], with an event budget (`None`: [`watchdog::budget`]) and a
/// cancellation check; see [`simulate_metrics_until`].
///
/// # Errors
/// [`Halt`].
pub fn simulate_until<O: Observer>(
    scenario: &Scenario,
    stream: &JobStream,
    policy: usize,
    replication: u64,
    observer: &mut O,
    budget: Option<u64>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<SimOutput, Halt> {
    if stop() {
        return Err(Halt::Cancelled);
    }
    let mut w = World::new(scenario, &scenario.policies[policy], &stream.jobs, replication, observer, Shared::Exact);
    w.run_checked(budget, stop)?;
    Ok(w.finish_with(true))
}

/// The result of a run that nobody can cancel: a runaway is a bug (validation proves
/// every run ends), reported with its message.
fn unwrap_halt<T>(r: Result<T, Halt>) -> T {
    match r {
        Ok(v) => v,
        Err(Halt::Runaway(e)) => panic!("{e}"),
        Err(Halt::Cancelled) => unreachable!("a run without a stop check is never cancelled"),
    }
}

impl<'a, O: Observer> World<'a, O> {
    fn new(
        scn: &'a Scenario,
        policy: &'a Policy,
        jobs: &'a [Job],
        replication: u64,
        obs: &'a mut O,
        shared: Shared<'a>,
    ) -> Self {
        let days = scn.window_days();
        let window = (scn.warmup, scn.horizon);
        let st = jobs
            .iter()
            .map(|j| JobProgress {
                remaining: j.runtime,
                first_start: SimTime::MAX,
                queued_since: j.submit,
                waited: 0,
                end: SimTime::MAX,
                walltime_end: 0,
                segment: 0,
                place: Place::Nowhere,
                status: Status::Pending,
                seg_start: 0,
                end_at: SimTime::MAX,
                held: false,
                submitted: false,
                gave_up: GaveUp::No,
            })
            .collect();
        let mut events = EventQueue::new();
        for &(_, end) in &scn.campus.maintenance {
            events.push(end, Event::MaintenanceEnd);
        }
        // A time window opening may let a waiting job start (`scenario::recurring`).
        for b in scn.campus.time_limits.boundaries() {
            events.push(b, Event::MaintenanceEnd);
        }
        // A reserved node's window ending may let a waiting job start on it.
        for end in scn.campus.node_windows.ends() {
            events.push(end, Event::MaintenanceEnd);
        }
        events.push(scn.horizon, Event::Horizon);
        for (o, offer) in scn.offers.iter().enumerate() {
            // Rentals of chosen months: those beginning before arrivals stop.
            for &(a, b) in offer.rentals.iter().flatten().filter(|w| w.0 < scn.horizon) {
                events.push(a, Event::RentalStart(o as u16));
                events.push(b, Event::RentalEnd(o as u16));
            }
        }
        let mut w = World {
            scn,
            policy,
            jobs,
            replication,
            now: 0,
            events,
            cluster: Cluster::new(&scn.campus, crate::policy::predicts_waits(policy)),
            next_tick: SimTime::MAX,
            others_account: scn
                .campus
                .accounts
                .iter()
                .position(|a| a.name == crate::scenario::OTHERS_ACCOUNT)
                .expect("validation adds it") as u16,
            offers: scn
                .offers
                .iter()
                .enumerate()
                .map(|(o, offer)| {
                    if offer.rentals.is_some() || crate::policy::rents_when_needed(policy, scn, o) {
                        OfferState::unrented(offer)
                    } else {
                        OfferState::new(offer)
                    }
                })
                .collect(),
            st,
            in_flight: HashMap::new(),
            budget: BudgetState::new(policy.budget.as_ref(), scn.clock()),
            tally: Tally {
                daily_cost: vec![0.0; days],
                classes: vec![ClassTally::default(); scn.group.len() + 1],
                ..Tally::default()
            },
            obs,
            debug: HashMap::new(),
            started: Vec::new(),
            busy: DailyLevel::new(days, window),
            queued: DailyLevel::new(days, window),
            cloud_busy: DailyLevel::new(days, window),
            monthly_busy: DailyLevel::new(days, window),
            monthly_rented: DailyLevel::new(days, window),
            rented_offers: crate::policy::rented_monthly_offers(policy, &scn.offers),
            group_waiting: DailyLevel::new(days, window),
            cap: CapState::default(),
            reach: crate::scenario::feasibility::Reach::of(
                &scn.campus,
                jobs.iter().map(|j| {
                    let ask = crate::scenario::feasibility::SlurmAsk {
                        account: 0, // the windows do not depend on it
                        partition: j.partition,
                        nodes: j.nodes,
                        gpus_per_node: j.gpus_per_node,
                    };
                    (ask, j.gpus)
                }),
            ),
            shared,
        };
        w.init_capacity();
        w
    }

    /// Runs the replication to its end, counting steps against the event budget and
    /// polling `stop` (see [`watchdog`]); neither touches the simulation's state.
    fn run_checked(&mut self, budget: Option<u64>, stop: &(dyn Fn() -> bool + Sync)) -> Result<(), Halt> {
        let nodes: u64 = self.scn.campus.node_groups.iter().map(|g| u64::from(g.nodes)).sum();
        let budget = budget.unwrap_or_else(|| watchdog::budget(self.jobs.len(), nodes, self.scn.horizon));
        let mut dog = Watchdog::new(budget, stop);
        self.run(&mut dog).map_err(|h| match h {
            Halt::Runaway(r) => Halt::Runaway(Runaway {
                replication: self.replication,
                policy: self.policy.name.clone(),
                jobs: self.jobs.len(),
                day: self.now / DAY,
                ..r
            }),
            cancelled => cancelled,
        })
    }

    fn run(&mut self, dog: &mut Watchdog<'_>) -> Result<(), Halt> {
        let mut next = 0usize;
        loop {
            let t_event = self.events.peek_time();
            let t_arrival = self.jobs.get(next).map(|j| j.submit);
            self.now = match (t_event, t_arrival) {
                (None, None) => break,
                (Some(a), None) | (None, Some(a)) => a,
                (Some(a), Some(b)) => a.min(b),
            };
            let mut steps = 1;
            while let Some(e) = self.events.pop_at(self.now) {
                self.handle(e);
                steps += 1;
            }
            while next < self.jobs.len() && self.jobs[next].submit == self.now {
                self.arrive(next as u32);
                next += 1;
            }
            self.schedule_campus();
            self.record_levels();
            dog.count(steps)?;
        }
        Ok(())
    }

    fn handle(&mut self, e: Event) {
        match e {
            Event::CampusEnd(j) => self.campus_end(j),
            Event::CloudEnd(j) => self.cloud_end(j),
            Event::Timeout(j) => crate::policy::on_timeout(self, j),
            Event::DebugDone(j) => crate::policy::on_debug_done(self, j),
            Event::MaintenanceEnd => self.cluster.invalidate(),
            Event::RentalStart(o) => {
                let o = usize::from(o);
                let end =
                    self.scn.offers[o].rentals.iter().flatten().find(|w| w.0 == self.now).map_or(self.now, |w| w.1);
                self.rental_begins(o, end);
            }
            Event::RentalEnd(o) => self.rental_ends(usize::from(o)),
            Event::CampusTick => {
                if self.next_tick == self.now {
                    self.next_tick = SimTime::MAX;
                }
            }
            Event::Horizon => {
                let work: f64 = self
                    .cluster
                    .queued_jobs()
                    .map(|q| f64::from(q.gpus) * self.st[q.job as usize].remaining as f64)
                    .sum::<f64>();
                self.tally.backlog_days = work / (f64::from(self.cluster.total()) * DAY as f64);
            }
            other => {
                self.handle_capacity(other);
            }
        }
    }

    fn arrive(&mut self, j: u32) {
        let job = &self.jobs[j as usize];
        if !job.group {
            // One that can never start, given the windows, is not queued: it would wait
            // until their expansion ends, long past the horizon (issue 45).
            if self.within_windows(j) {
                self.enqueue_campus(j);
            }
            return;
        }
        if job.submit >= self.scn.warmup {
            self.tally.arrivals += 1;
            self.class_tally(j).submitted += 1;
        }
        crate::policy::route_arrival(self, j);
    }

    /// True when the job could ever run on campus (GPU count and node shape, its account's
    /// GPU limit, memory of its partition's GPUs, a walltime request some gap of the
    /// windows fits): the rules validation proved for its class
    /// ([`crate::scenario::feasibility`]), so the two never disagree.
    pub(crate) fn fits_campus(&self, j: u32) -> bool {
        let job = &self.jobs[j as usize];
        let r = self.request(j);
        let ask = crate::scenario::feasibility::SlurmAsk {
            account: r.account,
            partition: r.partition,
            nodes: r.nodes,
            gpus_per_node: r.gpus_per_node,
        };
        crate::scenario::feasibility::campus_misfit(&self.scn.campus, ask, job.gpus, job.vram_gb).is_none()
            && self.within_windows(j)
    }

    /// Whether the job's walltime request can ever start on campus, given the recurring
    /// reservations and time-of-day limits ([`crate::scenario::week`]): the rule
    /// validation applies to whole classes, here per job (always true without windows).
    pub(crate) fn within_windows(&self, j: u32) -> bool {
        let job = &self.jobs[j as usize];
        let ask = crate::scenario::feasibility::SlurmAsk {
            account: 0,
            partition: job.partition,
            nodes: job.nodes,
            gpus_per_node: job.gpus_per_node,
        };
        self.reach.allows(&self.scn.campus, ask, job.gpus, self.walltime_request(j))
    }

    /// The Slurm side of a job: account, partition, node shape.
    pub(crate) fn request(&self, j: u32) -> Request {
        let job = &self.jobs[j as usize];
        let c = &self.scn.campus;
        let account = if job.group {
            c.group_account
        } else if job.account == crate::job::OTHERS {
            self.others_account
        } else {
            job.account
        };
        Request { account, partition: job.partition, nodes: job.nodes, gpus_per_node: job.gpus_per_node }
    }

    /// The walltime a job asks the campus for, for its remaining work (capped at its
    /// partition's limit).
    pub(crate) fn walltime_request(&self, j: u32) -> SimTime {
        let job = &self.jobs[j as usize];
        job.walltime_request(self.st[j as usize].remaining, self.scn.campus.partition(job.partition).max_walltime)
    }

    /// Puts a job in the campus queue (after its minimum start delay, if any). The first
    /// time, its account's balking rule may refuse it and its patience starts.
    pub(crate) fn enqueue_campus(&mut self, j: u32) {
        let job = &self.jobs[j as usize];
        debug_assert!(job.gpus <= self.cluster.total(), "invariant: routing never sends a job larger than the cluster");
        if !self.st[j as usize].submitted {
            self.st[j as usize].submitted = true;
            if !self.first_submission(j) {
                return; // balked
            }
        }
        self.st[j as usize].status = Status::CampusQueued;
        self.st[j as usize].queued_since = self.now;
        let delay = self.scn.campus.capacity.min_start_delay;
        if delay > 0 {
            self.st[j as usize].held = true;
            self.events.push(self.now + delay, Event::Release(j));
            return;
        }
        self.submit_to_cluster(j);
    }

    /// Hands a queued job to the cluster's queue.
    fn submit_to_cluster(&mut self, j: u32) {
        let job = &self.jobs[j as usize];
        let q = QueuedJob { job: j, gpus: job.gpus, walltime: self.walltime_request(j), group: job.group };
        let req = self.request(j);
        self.cluster.enqueue(self.now, q, req);
        if !job.group && matches!(self.shared, Shared::Replay { .. }) {
            self.pin(j);
        }
    }

    /// Takes a queued job out of the campus queue (or out of its start delay); false if
    /// it is in neither.
    pub(crate) fn withdraw_campus(&mut self, j: u32) -> bool {
        if self.st[j as usize].held {
            self.st[j as usize].held = false;
            return true;
        }
        self.cluster.withdraw(self.now, j)
    }

    /// Whether a group job submitted now is predicted to start on campus after `limit`
    /// (see [`Cluster::predict_start`]).
    pub(crate) fn predicted_start_after(&self, j: u32, limit: SimTime) -> bool {
        let job = &self.jobs[j as usize];
        let q = QueuedJob { job: j, gpus: job.gpus, walltime: self.walltime_request(j), group: job.group };
        self.cluster.predict_start(self.now, q, self.request(j), limit) > limit
    }

    fn schedule_campus(&mut self) {
        if !self.scheduler_may_run() {
            return;
        }
        let mut started = std::mem::take(&mut self.started);
        self.cluster.schedule(self.now, &mut started);
        for q in started.drain(..) {
            self.campus_started(q);
        }
        self.started = started;
        if let Some(r) = self.cluster.reservation() {
            self.obs.reservation(self.now, r);
        }
        if let Some(t) = self.cluster.next_wakeup(self.now)
            && t < self.next_tick
        {
            self.next_tick = t;
            self.events.push(t, Event::CampusTick);
        }
    }

    /// Books a job (segment) the cluster has just started.
    fn campus_started(&mut self, q: QueuedJob) {
        let s = &mut self.st[q.job as usize];
        debug_assert_eq!(s.status, Status::CampusQueued, "invariant: only queued jobs start");
        if s.first_start == SimTime::MAX {
            s.first_start = self.now;
        }
        s.waited += self.now - s.queued_since;
        s.status = Status::CampusRunning;
        s.place = Place::Campus;
        s.segment = s.remaining.min(q.walltime);
        s.walltime_end = self.now + q.walltime;
        s.seg_start = self.now;
        s.end_at = self.now + s.segment;
        self.events.push(self.now + s.segment, Event::CampusEnd(q.job));
        self.obs.started(self.now, q.job, Place::Campus, q.gpus);
        if let Some(nodes) = self.cluster.allocation(q.job) {
            self.obs.placed(self.now, q.job, nodes);
            if let Shared::Record(rec) = &mut self.shared
                && !self.jobs[q.job as usize].group
            {
                rec.started(q.job, self.now, nodes);
            }
        }
    }

    fn campus_end(&mut self, j: u32) {
        let job = &self.jobs[j as usize];
        let s = self.st[j as usize];
        if s.status != Status::CampusRunning || s.end_at != self.now {
            return; // the segment was killed (a node failure, an outage) before its end
        }
        self.cluster.finish(self.now, j, s.walltime_end, job.gpus, job.group);
        let done = s.segment >= s.remaining;
        self.obs.ended(self.now, j, Place::Campus, job.gpus, done);
        if job.group && self.measured(j) {
            self.charge_campus(j, f64::from(job.gpus) * s.segment as f64);
        }
        let s = &mut self.st[j as usize];
        s.remaining -= s.segment;
        if done {
            self.complete(j);
        } else {
            if job.group && job.submit >= self.scn.warmup {
                self.tally.resubmits += 1;
            }
            self.enqueue_campus(j);
        }
    }

    /// Books `gpu_secs` of a measured group job's campus use: its charge and GPU-hours.
    fn charge_campus(&mut self, j: u32, gpu_secs: f64) {
        let job = &self.jobs[j as usize];
        let cost = gpu_secs / HOUR as f64 * self.scn.campus.partition(job.partition).price_per_gpu_hour_cny;
        self.charge_day(j, cost);
        self.class_tally(j).campus_gpu_secs += gpu_secs;
        self.tally.campus_gpu_secs += gpu_secs;
        self.tally.campus_cost += cost;
    }

    /// Whether a job counts in the metrics (submitted in the measured window, not the warm-up).
    pub(crate) fn measured(&self, j: u32) -> bool {
        self.jobs[j as usize].submit >= self.scn.warmup
    }

    /// The per-class tally of a group job (the last slot for a job of no scenario class).
    fn class_tally(&mut self, j: u32) -> &mut ClassTally {
        let last = self.tally.classes.len() - 1;
        let class = usize::from(self.jobs[j as usize].class).min(last);
        &mut self.tally.classes[class]
    }

    /// Books a measured job's charge on its class and on today's entry of the daily cost series; a charge
    /// after the window's end goes on its last day (the year's bill includes the work its
    /// jobs finish after it), so the series sums to the total.
    fn charge_day(&mut self, j: u32, cost: f64) {
        self.class_tally(j).cost_cny += cost;
        let last = self.tally.daily_cost.len().saturating_sub(1);
        let day = self.scn.clock().day_index(self.now).unwrap_or(0).min(last);
        if let Some(c) = self.tally.daily_cost.get_mut(day) {
            *c += cost;
        }
    }

    fn complete(&mut self, j: u32) {
        let s = &mut self.st[j as usize];
        debug_assert_ne!(s.status, Status::Done, "invariant: a job ends exactly once");
        s.status = Status::Done;
        s.end = self.now;
        let job = &self.jobs[j as usize];
        if !job.group || job.submit < self.scn.warmup {
            return;
        }
        let (wait, turnaround) = (secs_to_hours(s.waited), secs_to_hours(s.end - job.submit));
        let (has_deadline, missed) = (job.deadline != NO_DEADLINE, s.end > job.deadline);
        let cloud = matches!(s.place, Place::Offer(_));
        let t = &mut self.tally;
        t.completed += 1;
        t.waits_h.push(wait);
        t.first_waits_h += secs_to_hours(s.first_start - job.submit);
        t.turnaround_h += turnaround;
        t.with_deadline += u64::from(has_deadline);
        t.missed += u64::from(has_deadline && missed);
        t.cloud_jobs += u64::from(cloud);
        let c = self.class_tally(j);
        c.completed += 1;
        c.waits_h.push(wait);
        c.turnaround_h += turnaround;
        c.with_deadline += u64::from(has_deadline);
        c.missed += u64::from(has_deadline && missed);
        c.cloud_jobs += u64::from(cloud);
    }

    fn record_levels(&mut self) {
        let now = self.now;
        self.busy.set(now, f64::from(self.cluster.busy()));
        self.queued.set(now, self.cluster.queued_gpus() as f64);
        self.group_waiting.set(now, self.cluster.queued_group_jobs() as f64);
        let (mut cloud, mut monthly) = (0u32, 0u32);
        for (o, s) in self.scn.offers.iter().zip(&self.offers) {
            cloud += s.busy;
            if o.billing == BillingMode::Monthly {
                monthly += s.busy;
            }
        }
        self.cloud_busy.set(now, f64::from(cloud));
        self.monthly_busy.set(now, f64::from(monthly));
        let rented: u32 = self.rented_offers.iter().map(|&o| self.offers[o].capacity).sum();
        self.monthly_rented.set(now, f64::from(rented));
    }
}
