//! The floor the pool engine is measured against (issue 21 item 2; like for like since
//! issue 42 item 3): strict FCFS on a pool of identical GPUs, written as the smallest
//! program that does the engine's work on a one-class scenario without seasons (what
//! [`crate::bench::reference_scenario`] builds), and nothing more:
//!
//! - it **draws the same random quantities** from the same streams as the workload
//!   (each arrival's exponential gap; per job its run time, GPU count, walltime factor,
//!   memory, data size), so its jobs are the engine's to the bit;
//! - it runs them in the smallest event loop that gives the engine's starts: a heap of
//!   the running jobs' ends, a FIFO queue, and nothing else (no policies, walltimes or
//!   observers);
//! - it **keeps the engine's headline statistics** of those starts: the waits' mean, p50,
//!   p95, p99 and the share that waited, the mean turnaround, the jobs completed, and the
//!   daily means of the busy and queued GPUs (`timeseries.csv`).
//!
//! The `fcfs-reference` bench case times the engine (generation and simulation) beside
//! it on the same scenario, so the ratio of the two speeds is what the engine's
//! generality costs. (Until issue 42 the loop drew nothing and kept only two waits, and
//! the ratio compared unlike things.)

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand_distr::{Distribution, Exp1};

use crate::rng::{Purpose, stream};
use crate::scenario::MAX_RUNTIME_HOURS;
use crate::scenario::{Scenario, Timing};
use crate::units::{DAY, SimTime, hours_to_secs, secs_to_hours};

/// One drawn job: what the loop needs of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopJob {
    /// Submission time.
    pub submit: SimTime,
    /// Run time, seconds.
    pub runtime: SimTime,
    /// GPUs.
    pub gpus: u32,
    /// Walltime request ÷ run time (drawn as the engine draws it; FCFS never reads it).
    pub walltime_factor: f64,
}

/// What the loop gives: every job's start and the statistics the engine keeps of them.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopResult {
    /// Start time of every job, in submission order (`SimTime::MAX`: never started).
    pub starts: Vec<SimTime>,
    /// Mean wait, hours.
    pub mean_wait_h: f64,
    /// Median wait, hours.
    pub p50_wait_h: f64,
    /// 95th-percentile wait, hours.
    pub p95_wait_h: f64,
    /// 99th-percentile wait, hours.
    pub p99_wait_h: f64,
    /// Share of the started jobs that waited at all.
    pub waited_share: f64,
    /// Mean turnaround (submission to end), hours.
    pub turnaround_mean_h: f64,
    /// Jobs that started (all of them end: the loop runs until the last end).
    pub completed: usize,
    /// Per day of the horizon: mean busy GPUs, and mean GPUs requested by queued jobs.
    pub daily_busy_gpus: Vec<f64>,
    /// See `daily_busy_gpus`.
    pub daily_queued_gpus: Vec<f64>,
}

/// The jobs of replication `replication` of a one-class scenario without seasons, drawn
/// as `workload::JobStream::generate` draws them: arrivals are a unit-rate Poisson
/// process scaled by the class's rate (the time change of `workload::arrivals` with one
/// piece), each job's attributes from its own stream, in the workload's order.
///
/// # Panics
/// When the scenario is not one group class with independent timing and a flat calendar
/// (the loop is a floor for that case only).
pub fn draw(scenario: &Scenario, replication: u64) -> Vec<LoopJob> {
    assert!(
        scenario.group.len() == 1 && scenario.background.is_empty() && scenario.group_calendar.windows.is_empty(),
        "the minimal loop draws one group class without seasons"
    );
    let class = &scenario.group[0];
    let Timing::Independent { runtime_hours, walltime_factor } = &class.timing else {
        panic!("the minimal loop draws independent run times and walltime factors")
    };
    let (seed, rate) = (scenario.seed, class.rate_per_sec);
    let mut arrivals = stream(seed, replication, Purpose::Arrivals { group: true, class: 0 });
    let last = rate * scenario.horizon as f64;
    let mut jobs = Vec::with_capacity((last * 1.05) as usize + 16);
    let mut target: f64 = Exp1.sample(&mut arrivals);
    while target < last {
        let submit = ((target / rate) as SimTime).min(scenario.horizon - 1);
        let index = jobs.len() as u32;
        let rng = &mut stream(seed, replication, Purpose::JobAttributes { group: true, class: 0, index });
        let runtime = hours_to_secs(runtime_hours.sample(rng).min(MAX_RUNTIME_HOURS), 1);
        let gpus = class.gpus.sample(rng).round().max(1.0) as u32;
        let factor = walltime_factor.sample(rng).clamp(1.0, 1000.0);
        // Drawn because the engine's jobs carry them (the loop does not read them).
        std::hint::black_box((class.vram_gb.sample(rng), class.data_gb.sample(rng)));
        jobs.push(LoopJob { submit, runtime, gpus, walltime_factor: factor });
        let gap: f64 = Exp1.sample(&mut arrivals);
        target += gap;
    }
    jobs
}

/// [`draw`], then `starts` on the scenario's GPUs, and the statistics of those starts.
pub fn run(scenario: &Scenario, replication: u64) -> LoopResult {
    let jobs = draw(scenario, replication);
    let days = scenario.horizon.div_ceil(DAY) as usize;
    let mut levels = Levels::new(days);
    let starts = starts(&jobs, scenario.campus.gpus, &mut levels);
    let mut waits: Vec<f64> = Vec::with_capacity(jobs.len());
    let mut turnaround = 0.0;
    for (j, &s) in jobs.iter().zip(&starts) {
        if s != SimTime::MAX {
            waits.push(secs_to_hours(s - j.submit));
            turnaround += secs_to_hours(s + j.runtime - j.submit);
        }
    }
    waits.sort_unstable_by(f64::total_cmp);
    let n = waits.len().max(1) as f64;
    let q = |p| if waits.is_empty() { f64::NAN } else { crate::stats::percentile_sorted(&waits, p) };
    LoopResult {
        mean_wait_h: waits.iter().sum::<f64>() / n,
        p50_wait_h: q(0.5),
        p95_wait_h: q(0.95),
        p99_wait_h: q(0.99),
        waited_share: waits.iter().filter(|&&w| w > 0.0).count() as f64 / n,
        turnaround_mean_h: turnaround / n,
        completed: waits.len(),
        daily_busy_gpus: levels.busy.iter().map(|s| s / DAY as f64).collect(),
        daily_queued_gpus: levels.queued.iter().map(|s| s / DAY as f64).collect(),
        starts,
    }
}

/// The busy and queued GPUs integrated over each day of the horizon (GPU-seconds; the
/// last day whole, as the engine's series, even when the horizon ends within it).
struct Levels {
    busy: Vec<f64>,
    queued: Vec<f64>,
    last: SimTime,
}

impl Levels {
    fn new(days: usize) -> Levels {
        Levels { busy: vec![0.0; days], queued: vec![0.0; days], last: 0 }
    }

    /// Adds `busy` and `queued` GPUs held from the last event to `now`, day by day.
    fn advance(&mut self, now: SimTime, busy: u32, queued: u64) {
        let now = now.min(self.busy.len() as SimTime * DAY);
        while self.last < now {
            let day = self.last / DAY;
            let step = now.min((day + 1) * DAY) - self.last;
            self.busy[day as usize] += f64::from(busy) * step as f64;
            self.queued[day as usize] += queued as f64 * step as f64;
            self.last += step;
        }
    }
}

/// The start time of every job (in stream order) under strict FCFS on `gpus` GPUs:
/// at each second, jobs that end free their GPUs first, then that second's submissions
/// join the queue, then the queue's head starts while it fits (the engine's order of
/// events, `engine/queue.rs`). `SimTime::MAX` for a job that never starts (larger than
/// the pool). The busy and queued GPUs go into `levels` at every event time.
fn starts(jobs: &[LoopJob], gpus: u32, levels: &mut Levels) -> Vec<SimTime> {
    let mut start = vec![SimTime::MAX; jobs.len()];
    let mut ends: BinaryHeap<Reverse<(SimTime, u32)>> = BinaryHeap::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let (mut free, mut next, mut queued) = (gpus, 0usize, 0u64);
    loop {
        let t_end = ends.peek().map(|Reverse((t, _))| *t);
        let t_arrival = jobs.get(next).map(|j| j.submit);
        let now = match (t_end, t_arrival) {
            (None, None) => break,
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => a.min(b),
        };
        levels.advance(now, gpus - free, queued);
        while let Some(&Reverse((t, g))) = ends.peek() {
            if t != now {
                break;
            }
            ends.pop();
            free += g;
        }
        while next < jobs.len() && jobs[next].submit == now {
            queue.push_back(next);
            queued += u64::from(jobs[next].gpus);
            next += 1;
        }
        while let Some(&j) = queue.front() {
            if jobs[j].gpus > free {
                break;
            }
            queue.pop_front();
            queued -= u64::from(jobs[j].gpus);
            free -= jobs[j].gpus;
            start[j] = now;
            ends.push(Reverse((now + jobs[j].runtime, jobs[j].gpus)));
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use crate::bench::reference_scenario;
    use crate::engine::simulate;
    use crate::metric::Metric;
    use crate::workload::JobStream;

    /// Like for like: the loop draws the engine's jobs to the bit, starts every job when
    /// the engine's pool FCFS does, and its statistics are the engine's.
    #[test]
    fn the_minimal_loop_draws_the_engines_jobs_and_keeps_its_statistics() {
        let scn = reference_scenario(64, "fcfs", 0.9, 20_000.0);
        let jobs = JobStream::generate(&scn, 0);
        let drawn = super::draw(&scn, 0);
        assert!(jobs.jobs.len() > 10_000, "{}", jobs.jobs.len());
        assert_eq!(drawn.len(), jobs.jobs.len());
        for (d, j) in drawn.iter().zip(&jobs.jobs) {
            assert_eq!((d.submit, d.runtime, d.gpus), (j.submit, j.runtime, j.gpus));
            assert_eq!(d.walltime_factor.to_bits(), j.walltime_factor.to_bits());
        }
        let out = simulate(&scn, &jobs, 0, 0);
        let loop_ = super::run(&scn, 0);
        let differ = out.records.iter().zip(&loop_.starts).filter(|(r, s)| r.start != **s).count();
        assert_eq!(differ, 0, "jobs starting at another time");
        assert!(loop_.mean_wait_h > 0.1, "a queue forms at load 0.9: {}", loop_.mean_wait_h);
        let m = &out.metrics;
        let close =
            |a: f64, b: f64, what: &str| assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{what}: {a} vs {b}");
        close(loop_.mean_wait_h, m.get(Metric::WaitMean), "mean wait");
        close(loop_.p50_wait_h, m.get(Metric::WaitP50), "p50");
        close(loop_.p95_wait_h, m.get(Metric::WaitP95), "p95");
        close(loop_.p99_wait_h, m.get(Metric::WaitP99), "p99");
        close(loop_.waited_share, m.get(Metric::WaitedShare), "share that waited");
        close(loop_.turnaround_mean_h, m.get(Metric::TurnaroundMean), "turnaround");
        assert_eq!(loop_.completed as f64, m.get(Metric::JobsCompleted));
        assert_eq!(loop_.daily_busy_gpus.len(), m.daily.campus_busy_gpus.len());
        for (day, (a, b)) in loop_.daily_busy_gpus.iter().zip(&m.daily.campus_busy_gpus).enumerate() {
            close(*a, *b, &format!("busy GPUs on day {day}"));
        }
        for (day, (a, b)) in loop_.daily_queued_gpus.iter().zip(&m.daily.campus_queue_gpus).enumerate() {
            close(*a, *b, &format!("queued GPUs on day {day}"));
        }
    }
}
