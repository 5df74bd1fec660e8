//! The forward simulation from a snapshot: the campus as `squeue` and `sinfo` saw it,
//! run on from that moment, once per replication, until the job asked about starts.
//!
//! ```text
//! forward clock: 0 = midnight (UTC) of the snapshot's day, t0 = the snapshot's time of day
//! at t0, in this order:  running jobs (remaining time drawn given elapsed and limit)
//!                        pending jobs in Slurm's priority order (runtime drawn from the limit)
//!                        the probe, behind the pending jobs whose priority is at least its own
//! after t0:              new arrivals of the scenario's background classes
//! ```
//!
//! The campus is the snapshot's usable nodes of the probe's partition: a drained,
//! draining, down or not-responding node takes no new job, and a running job whose nodes
//! (JSON's node list) are all such nodes holds none of the campus's GPUs, so it is left
//! out (the text format has no node list: its jobs all count). Queue order is
//! first come, first served on the forward clock, so the snapshot's jobs keep Slurm's
//! order (its priorities frozen as they were) and new arrivals queue behind them; backfill
//! and node placement are the engine's (`crate::cluster`). The scenario brings what the
//! snapshot cannot say: arrivals, runtimes as a share of the time limit, backfill settings.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::RngExt;

use super::{AdviseError, Probe};
use crate::date::Date;
use crate::engine::{Halt, Observer, Place};
use crate::job::{Job, OTHERS};
use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::Scenario;
use crate::scenario::raw::{Placement, PriorityKind, RawNodeGroup, RawPartition, RawPolicy};
use crate::trace::snapshot::Snapshot;
use crate::units::{DAY, SimTime};
use crate::workload::JobStream;

/// How many runtime ÷ limit ratios are drawn from the scenario's classes to stand for
/// the campus's jobs.
const RATIO_POOL: usize = 4096;

/// Time limit assumed for a job Slurm lists as `UNLIMITED` when the scenario has no
/// walltime limit either (seven days, a common campus maximum).
const UNLIMITED_AS_S: i64 = 7 * DAY as i64;

/// Days of arrivals after the snapshot in the first stage of the horizon (then doubled).
const FIRST_STAGE_DAYS: f64 = 0.25;

/// A snapshot job as the forward simulation starts it.
#[derive(Clone, Copy, Debug)]
struct Seed {
    gpus: u32,
    nodes: u16,
    gpus_per_node: u16,
    /// Seconds already run (running jobs; 0 for pending).
    elapsed: i64,
    /// Time limit, seconds.
    limit: i64,
}

/// The forward model of one snapshot and one probe, ready to replicate.
pub(super) struct Forward {
    /// The scenarios the engine runs, one per stage of the horizon (shortest first): the
    /// snapshot's partition as the campus, FIFO order, one campus-only policy, no group
    /// classes, the base scenario's arrival rates.
    stages: Vec<Scenario>,
    /// The snapshot's time on the forward clock.
    t0: SimTime,
    running: Vec<Seed>,
    /// Pending jobs in queue order.
    pending: Vec<Seed>,
    /// How many pending jobs queue ahead of the probe.
    ahead: usize,
    probe: Probe,
    /// Sorted runtime ÷ limit ratios in (0, 1].
    ratios: Vec<f64>,
    /// Jobs of the snapshot left out (other partitions, no GPUs, larger than the partition).
    pub left_out: usize,
}

impl Forward {
    /// Builds the forward model.
    ///
    /// # Errors
    /// [`AdviseError::Scenario`] when the forward scenario does not validate, and
    /// [`AdviseError::Unsupported`] for a background read from a log.
    pub(super) fn new(
        snapshot: &Snapshot,
        base: &Scenario,
        probe: &Probe,
        replications: u32,
        seed: u64,
        horizon_days: f64,
    ) -> Result<Forward, AdviseError> {
        if base.background_trace.is_some() {
            return Err(AdviseError::Unsupported(
                "the scenario's background comes from a log ([background.trace]); advise needs background job classes \
                 (`burstsim fit` writes them from a log)"
                    .into(),
            ));
        }
        let part = probe.partition.as_str();
        let in_part = |p: &str| p.split(',').any(|x| x.trim() == part);
        let mut by_size: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
        let usable: std::collections::HashSet<&str> = snapshot
            .nodes
            .iter()
            .filter(|n| n.usable() && n.gpus > 0 && n.partitions.iter().any(|p| p == part))
            .map(|n| n.name.as_str())
            .collect();
        for n in snapshot.nodes.iter().filter(|n| usable.contains(n.name.as_str())) {
            *by_size.entry(n.gpus).or_default() += 1;
        }
        let node_count: u32 = by_size.values().sum();
        let total: u32 = by_size.iter().map(|(g, c)| g * c).sum();
        let largest = by_size.keys().max().copied().unwrap_or(0);
        if total == 0 {
            return Err(AdviseError::NoUsableNodes { partition: probe.partition.clone() });
        }
        let default_limit = base.campus.max_walltime.map_or(UNLIMITED_AS_S, |w| w as i64);
        // A snapshot job as the forward campus runs it; `None` leaves it out (another
        // partition, no GPUs, larger than the partition).
        let seed_of = |partition: &str, gpus: u32, nodes: u32, elapsed: i64, limit: Option<i64>| -> Option<Seed> {
            if !in_part(partition) || gpus == 0 || gpus > total || nodes > node_count {
                return None;
            }
            let per_node = gpus.div_ceil(nodes.max(1));
            let (nodes, gpus_per_node) =
                if nodes > 1 && per_node <= largest { (nodes as u16, per_node as u16) } else { (0, 0) };
            Some(Seed {
                gpus,
                nodes,
                gpus_per_node,
                elapsed: elapsed.max(0),
                limit: limit.unwrap_or(default_limit).max(1),
            })
        };
        let running: Vec<Seed> = snapshot
            .running
            .iter()
            // A job known to run only on nodes that take no new job holds none of the
            // campus's GPUs; it ends there whenever it ends.
            .filter(|j| j.hosts.is_empty() || j.hosts.iter().any(|h| usable.contains(h.as_str())))
            .filter_map(|j| seed_of(&j.partition, j.gpus, j.nodes, j.elapsed, j.limit))
            .collect();
        let mut queued: Vec<(&crate::trace::snapshot::PendingJob, Seed)> = snapshot
            .pending
            .iter()
            // The probe itself, when it is already submitted, is not one of the others.
            .filter(|j| probe.job_id.as_deref() != Some(j.id.as_str()))
            .filter_map(|j| seed_of(&j.partition, j.gpus, j.nodes, 0, j.limit).map(|s| (j, s)))
            .collect();
        let considered = snapshot.running.len() + snapshot.pending.len() - usize::from(probe.job_id.is_some());
        let left_out = considered - running.len() - queued.len();
        // Slurm's order: higher priority first, then earlier submission, then job id.
        queued.sort_by(|(a, _), (b, _)| {
            b.priority.cmp(&a.priority).then(a.submit.cmp(&b.submit)).then(id_key(&a.id).cmp(&id_key(&b.id)))
        });
        let ahead = match probe.priority {
            Some(p) => queued.iter().filter(|(j, _)| j.priority >= p).count(),
            None => queued.len(),
        };
        let pending = queued.into_iter().map(|(_, s)| s).collect::<Vec<_>>();

        let longest_limit = running.iter().chain(&pending).map(|s| s.limit).chain([probe.walltime_s]).max().unwrap_or(0)
            as f64
            / 3600.0;
        let mut raw = base.raw.clone();
        let day = snapshot.taken_at.div_euclid(DAY as i64);
        raw.simulation.start_date = Date::from_days(day).to_string();
        raw.simulation.warmup_days = 0.0;
        raw.simulation.replications = replications.max(1);
        raw.simulation.max_replications = None;
        raw.simulation.ci_target = None;
        raw.simulation.ci_target_paired = None;
        raw.simulation.seed = seed;
        raw.simulation.baseline_policy = None;
        let c = &mut raw.campus;
        let price = c.partitions.iter().find(|p| p.name == part).and_then(|p| p.price_per_gpu_hour_cny);
        c.gpus = None;
        c.nodes = None;
        c.gpus_per_node = None;
        c.node_groups = by_size
            .iter()
            .map(|(&gpus, &count)| RawNodeGroup {
                name: format!("{gpus}-gpu"),
                nodes: count,
                gpus_per_node: gpus,
                gpu_type: base.campus.gpu_type.clone(),
                vram_gb: base.campus.vram_gb,
                cpus: None,
                memory_gb: None,
                partition: Some(part.to_string()),
            })
            .collect();
        c.partitions = vec![RawPartition {
            name: part.to_string(),
            price_per_gpu_hour_cny: price,
            priority_job_factor: 1.0,
            max_walltime_hours: None,
        }];
        c.placement = Placement::Nodes;
        c.priority = PriorityKind::Fifo;
        c.multifactor = None;
        c.group_gpu_limit = None;
        c.max_walltime_hours = Some(c.max_walltime_hours.unwrap_or(0.0).max(longest_limit));
        c.maintenance.clear();
        c.node_failures = None;
        c.drains.clear();
        c.outages = None;
        for a in &mut c.accounts {
            (a.gpu_limit, a.max_jobs, a.max_submit) = (None, None, None);
            (a.patience_hours, a.balk_gpu_hours_ahead, a.balk_wait_hours) = (None, None, None);
        }
        if let Some(bg) = raw.background.as_mut() {
            for class in &mut bg.classes {
                class.partition = None;
            }
            // The rates are the base scenario's (set below); as a mean over a stage's few
            // hours `offered_load` would be refused when a class's own hour-of-week profile
            // is 0 throughout them (a fitted request band at night), so the stage states
            // the load outside seasons, which validation takes as it is.
            if let Some(load) = bg.offered_load.take() {
                bg.offered_load_outside_seasons = Some(load);
            }
        }
        raw.workload.classes.clear();
        raw.workload.seasons.clear();
        raw.policies = vec![campus_only()];
        raw.sweep = None;
        raw.sensitivity = None;
        raw.calibration = None;
        let t0 = snapshot.taken_at.rem_euclid(DAY as i64) as SimTime;
        // Arrivals are generated up to a stage's end; most jobs start long before the
        // horizon, so stages double from FIRST_STAGE_DAYS and a replication moves on to the
        // next only while its job has not started by the stage's end. A Poisson stream's
        // arrivals before a time do not depend on where the stream ends
        // (arrivals::nonhomogeneous_poisson draws them in order), and no decision before
        // that time looks at later arrivals, so a start found before a short stage's end
        // is the start the full horizon would give (a start after it is not: the run
        // stops there, `probe_start`).
        let mut stages = Vec::new();
        let mut days = FIRST_STAGE_DAYS.min(horizon_days);
        loop {
            let mut raw = raw.clone();
            raw.simulation.horizon_days = Some(t0 as f64 / DAY as f64 + days);
            let mut scn = Scenario::from_raw(raw).map_err(|e| AdviseError::Scenario(e.to_string()))?;
            // The base scenario's rates: its `offered_load` is a mean over its own year
            // (seasons included), which a window of days would renormalise.
            for (f, b) in scn.background.iter_mut().zip(&base.background) {
                debug_assert_eq!(f.name, b.name, "invariant: the forward scenario keeps the classes in order");
                f.rate_per_sec = b.rate_per_sec;
            }
            stages.push(scn);
            if days >= horizon_days {
                break;
            }
            days = (days * 2.0).min(horizon_days);
        }
        let ratios = ratio_pool(base, seed);
        Ok(Forward { stages, t0, running, pending, ahead, probe: probe.clone(), ratios, left_out })
    }

    /// The forward scenario (its campus, prices and offers; the shortest stage).
    pub(super) fn scenario(&self) -> &Scenario {
        &self.stages[0]
    }

    /// GPUs of the forward campus.
    pub(super) fn campus_gpus(&self) -> u32 {
        self.scenario().campus.gpus
    }

    /// Jobs of the snapshot the simulation starts with: running, then pending.
    pub(super) fn counts(&self) -> (usize, usize, usize) {
        (self.running.len(), self.pending.len(), self.ahead)
    }

    /// The job stream of replication `r` and the probe's index in it.
    fn stream(&self, scenario: &Scenario, r: u64) -> (JobStream, usize) {
        let mut rng = stream(scenario.seed, r, Purpose::Snapshot);
        let mut jobs = Vec::with_capacity(self.running.len() + self.pending.len() + 1);
        for s in &self.running {
            let left = (s.limit - s.elapsed).max(1);
            let total = self.draw_runtime(&mut rng, s.limit, s.elapsed);
            let runtime = (total - s.elapsed).clamp(1, left);
            jobs.push(self.job(s, runtime as SimTime, left as f64 / runtime as f64));
        }
        let mut pending = self.pending.iter().map(|s| {
            let runtime = self.draw_runtime(&mut rng, s.limit, 0).max(1);
            self.job(s, runtime as SimTime, s.limit as f64 / runtime as f64)
        });
        jobs.extend(pending.by_ref().take(self.ahead));
        let p = &self.probe;
        jobs.push(Job {
            walltime_factor: p.walltime_s as f64 / p.runtime_s as f64,
            kind: p.kind,
            data_gb: p.data_gb,
            nodes: p.nodes.unwrap_or(0) as u16,
            gpus_per_node: p.nodes.map_or(0, |n| p.gpus.div_ceil(n.max(1)) as u16),
            account: scenario.campus.group_account,
            ..Job::plain(self.t0, p.gpus, p.runtime_s as SimTime, true)
        });
        jobs.extend(pending);
        let probe_at = jobs.len() - 1 - (self.pending.len() - self.ahead);
        let arrivals = JobStream::generate(scenario, r).jobs.into_iter().filter(|j| j.submit > self.t0);
        jobs.extend(arrivals);
        // `from_jobs` sorts stably by submission: the snapshot's jobs (all at t0) keep
        // this order ahead of every arrival.
        (JobStream::from_jobs(jobs), probe_at)
    }

    fn job(&self, s: &Seed, runtime: SimTime, walltime_factor: f64) -> Job {
        Job {
            walltime_factor: walltime_factor.max(1.0),
            nodes: s.nodes,
            gpus_per_node: s.gpus_per_node,
            account: OTHERS,
            ..Job::plain(self.t0, s.gpus, runtime, false)
        }
    }

    /// A total runtime (seconds) for a job of time limit `limit` that has run `elapsed`:
    /// a ratio drawn from the pool among those that put the end after `elapsed`
    /// (the remaining life given the age), times the limit; uniform on (elapsed, limit]
    /// when no ratio is that long.
    fn draw_runtime(&self, rng: &mut SimRng, limit: i64, elapsed: i64) -> i64 {
        let floor = elapsed as f64 / limit as f64;
        let from = self.ratios.partition_point(|&q| q <= floor);
        if from < self.ratios.len() {
            let q = self.ratios[rng.random_range(from..self.ratios.len())];
            (q * limit as f64).ceil() as i64
        } else {
            elapsed + 1 + (rng.random::<f64>() * (limit - elapsed).max(0) as f64) as i64
        }
    }

    /// The probe's start in replication `r`, seconds after the snapshot; `None` when it
    /// has not started by the end of the horizon's arrivals.
    ///
    /// # Errors
    /// [`AdviseError::Runaway`] when the run exceeds the engine's event budget (a bug).
    pub(super) fn probe_start(&self, r: u64) -> Result<Option<SimTime>, AdviseError> {
        for scenario in &self.stages {
            // A stage is trusted only up to the end of its own arrivals (its scenario's
            // `horizon`, where arrivals stop): a start after it
            // could be delayed by the jobs a longer stage adds, so the run stops there and
            // the next stage runs. The last stage ends at the horizon: a job not started
            // by then is "beyond the horizon" (docs/ADVISE.md), and the run does not go on
            // to simulate every job ahead to its start (months on a long queue).
            if let Some(start) = self.probe_start_in(scenario, r, scenario.horizon)? {
                return Ok(Some(start));
            }
        }
        Ok(None)
    }

    /// As [`Forward::probe_start`], with the arrivals of one stage; the run ends at the
    /// first start after `until`, and a start of the job after it counts as none.
    fn probe_start_in(&self, scenario: &Scenario, r: u64, until: SimTime) -> Result<Option<SimTime>, AdviseError> {
        let (jobs, probe) = self.stream(scenario, r);
        // The engine takes the observer by `&mut` and the stop check by `&`, so the flag
        // that ends the run once the probe has started (or the horizon has passed) lives
        // outside the observer.
        let started = AtomicBool::new(false);
        let mut watch = Watch { probe: probe as u32, start: None, until, started: &started };
        let stop = || started.load(Ordering::Relaxed);
        // Ending early is the point: `Halt::Cancelled` here means "the probe has started".
        match crate::engine::simulate_until(scenario, &jobs, 0, r, &mut watch, None, &stop) {
            Ok(_) | Err(Halt::Cancelled) => Ok(watch.start.map(|t| t - self.t0)),
            Err(Halt::Runaway(e)) => Err(AdviseError::Runaway(e.to_string())),
        }
    }
}

/// Watches for the probe's start on campus.
struct Watch<'a> {
    probe: u32,
    start: Option<SimTime>,
    /// The end of the stage's arrivals: a start after it ends the run, the job's own included.
    until: SimTime,
    /// Set once the run may stop: the job has started, or the horizon has passed.
    started: &'a AtomicBool,
}

impl Observer for Watch<'_> {
    fn started(&mut self, t: SimTime, job: u32, place: Place, _gpus: u32) {
        if t > self.until {
            self.started.store(true, Ordering::Relaxed);
            return;
        }
        if job == self.probe && place == Place::Campus && self.start.is_none() {
            self.start = Some(t);
            self.started.store(true, Ordering::Relaxed);
        }
    }
}

/// The one policy the forward scenario runs: everything queues on campus.
fn campus_only() -> RawPolicy {
    toml::from_str("name = \"advise\"\nkind = \"campus-only\"").expect("a literal campus-only policy parses")
}

/// Orders Slurm job ids numerically where they are numbers (`123_4` by job then task).
fn id_key(id: &str) -> (u64, u64, String) {
    let mut parts = id.splitn(2, '_');
    let job = parts.next().and_then(|p| p.parse().ok()).unwrap_or(u64::MAX);
    let task = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (job, task, id.to_string())
}

/// Runtime ÷ limit ratios of the scenario's background jobs (1 ÷ `walltime_factor`,
/// classes weighted by arrival rate), sorted; the same for every replication.
fn ratio_pool(base: &Scenario, seed: u64) -> Vec<f64> {
    let classes = &base.background;
    let total: f64 = classes.iter().map(|c| c.rate_per_sec).sum();
    let mut rng = stream(seed, u64::MAX, Purpose::Snapshot);
    let mut pool: Vec<f64> = if total > 0.0 {
        (0..RATIO_POOL)
            .map(|_| {
                let mut x = rng.random::<f64>() * total;
                let class = classes.iter().find(|c| {
                    x -= c.rate_per_sec;
                    x < 0.0
                });
                let class = class.unwrap_or(&classes[classes.len() - 1]);
                class.timing.sample_used_fraction(&mut rng)
            })
            .collect()
    } else {
        (0..RATIO_POOL).map(|i| (i + 1) as f64 / RATIO_POOL as f64).collect()
    };
    pool.sort_by(f64::total_cmp);
    pool
}
