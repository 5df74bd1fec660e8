//! Results by job class: what a PI quotes is the wait of the big training jobs, not the
//! average over everything the group submits.
//!
//! For every class of the group's workload, and for the whole group, each replication
//! records the job count, the wait's mean and quantiles (p50, p90, p95, p99), the share
//! of jobs that waited longer than each threshold of the scenario's
//! `report_wait_thresholds_h`, the mean turnaround, deadline misses, the cloud share and
//! the class's own charges, and where every submitted job ended: completed on campus,
//! completed in the cloud, reneged, balked, or unfinished when the simulation ended
//! (these five add up to the jobs submitted). Across replications these get the same
//! mean and 95% CI as the headline metrics (`classes.csv`).

use crate::stats::percentile_sorted;

use crate::scenario::class_metrics::ClassMetricSet;

/// What one replication measured of one class's jobs (those submitted in the window).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassTally {
    /// Waits, hours (every queueing stretch, as `wait_mean_h`): completed jobs, and
    /// reneged jobs up to the moment they gave up (a censored wait).
    pub waits_h: Vec<f64>,
    /// Jobs submitted in the window.
    pub submitted: u64,
    /// Jobs completed (on campus or in the cloud).
    pub completed: u64,
    /// Jobs that reneged (cancelled in the campus queue when patience ran out).
    pub reneged: u64,
    /// Jobs that balked (never submitted: the queue ahead was too long).
    pub balked: u64,
    /// Jobs neither completed nor given up when the simulation ended.
    pub unfinished: u64,
    /// GPU-seconds used on campus and in the cloud.
    pub campus_gpu_secs: f64,
    /// GPU-seconds used in the cloud (billed time, as `cloud_gpu_hours`).
    pub cloud_gpu_secs: f64,
    /// Sum of turnarounds, hours.
    pub turnaround_h: f64,
    /// Jobs with a deadline.
    pub with_deadline: u64,
    /// Of those, jobs that ended after it.
    pub missed: u64,
    /// Completed jobs that ran in the cloud.
    pub cloud_jobs: u64,
    /// The class's own charges: campus time, hourly cloud time, transfer and storage
    /// (monthly rent is shared by all classes and not attributed).
    pub cost_cny: f64,
}

impl ClassTally {
    /// Adds another tally (the whole group from its classes).
    pub fn absorb(&mut self, other: &ClassTally) {
        self.waits_h.extend_from_slice(&other.waits_h);
        self.submitted += other.submitted;
        self.completed += other.completed;
        self.reneged += other.reneged;
        self.balked += other.balked;
        self.unfinished += other.unfinished;
        self.campus_gpu_secs += other.campus_gpu_secs;
        self.cloud_gpu_secs += other.cloud_gpu_secs;
        self.turnaround_h += other.turnaround_h;
        self.with_deadline += other.with_deadline;
        self.missed += other.missed;
        self.cloud_jobs += other.cloud_jobs;
        self.cost_cny += other.cost_cny;
    }

    /// The values of `set`'s metrics (NaN where undefined, e.g. quantiles of no jobs).
    pub fn values(&self, set: &ClassMetricSet) -> Vec<f64> {
        let n = self.waits_h.len();
        let mut sorted = self.waits_h.clone();
        sorted.sort_unstable_by(f64::total_cmp); // as stable: equal keys are equal bits
        let share = |k: u64, of: u64| if of == 0 { f64::NAN } else { k as f64 / of as f64 };
        let q = |p: f64| percentile_sorted(&sorted, p);
        let mean = if n == 0 { f64::NAN } else { sorted.iter().sum::<f64>() / n as f64 };
        let done = self.completed;
        let mut v = vec![done as f64, mean, q(0.5), q(0.9), q(0.95), q(0.99)];
        for &t in &set.thresholds_h {
            let over = sorted.len() - sorted.partition_point(|&w| w <= t);
            v.push(share(over as u64, n as u64));
        }
        v.push(if done == 0 { f64::NAN } else { self.turnaround_h / done as f64 });
        v.push(share(self.missed, self.with_deadline));
        v.push(share(self.cloud_jobs, done));
        v.push(self.cost_cny);
        v.push(self.submitted as f64);
        v.push((done - self.cloud_jobs) as f64);
        v.push(self.cloud_jobs as f64);
        v.push(self.reneged as f64);
        v.push(self.balked as f64);
        v.push(self.unfinished as f64);
        v.push(share(self.reneged, self.submitted));
        v.push(share(self.balked, self.submitted));
        let gpu_secs = self.campus_gpu_secs + self.cloud_gpu_secs;
        v.push(if gpu_secs > 0.0 { self.cloud_gpu_secs / gpu_secs } else { f64::NAN });
        debug_assert_eq!(v.len(), set.len());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_the_names_and_count_waits_over_each_threshold() {
        let set = ClassMetricSet { thresholds_h: vec![1.0, 4.0] };
        let names: Vec<String> = set.names().into_iter().map(|n| n.0).collect();
        assert_eq!(names[6..8], ["wait_over_1h_share".to_string(), "wait_over_4h_share".to_string()]);
        assert_eq!(set.index("cloud_gpu_hour_share"), Some(set.len() - 1));
        let t = ClassTally {
            waits_h: vec![0.0, 0.5, 1.0, 2.0, 5.0],
            submitted: 7,
            completed: 5,
            reneged: 1,
            balked: 1,
            unfinished: 0,
            campus_gpu_secs: 30.0,
            cloud_gpu_secs: 10.0,
            turnaround_h: 50.0,
            with_deadline: 2,
            missed: 1,
            cloud_jobs: 1,
            cost_cny: 10.0,
        };
        let v = t.values(&set);
        assert_eq!(v[0], 5.0);
        assert_eq!(v[1], 1.7);
        assert_eq!(v[2], 1.0, "median");
        // Strictly longer than 1 h: 2 and 5; than 4 h: 5.
        assert_eq!((v[6], v[7]), (0.4, 0.2));
        assert_eq!(&v[8..12], &[10.0, 0.5, 0.2, 10.0]);
        // Buckets: 4 on campus + 1 in the cloud + 1 reneged + 1 balked = 7 submitted.
        assert_eq!(&v[12..18], &[7.0, 4.0, 1.0, 1.0, 1.0, 0.0]);
        assert_eq!(&v[18..], &[1.0 / 7.0, 1.0 / 7.0, 0.25]);
        let empty = ClassTally::default().values(&set);
        assert_eq!(empty[0], 0.0);
        assert!(empty[1].is_nan() && empty[6].is_nan() && empty[9].is_nan() && empty[18].is_nan());
        assert_eq!(empty[11], 0.0, "no jobs, no cost");
    }
}
