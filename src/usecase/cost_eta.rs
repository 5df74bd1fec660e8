//! The time left of a sweep, with every policy-replication weighed by what it is likely
//! to cost (issue 21 item 4).
//!
//! A sweep's unit of work, the policy-replication, is not one size: on the node model a
//! policy that forecasts the campus wait at every group submission costs several times
//! one that only queues, a heavier exam season makes every policy dearer, and later
//! points of a sweep simulate only the policies that changed. An ETA that counts units
//! (elapsed × left ÷ done) is then wrong by the mix of what is done and what is left: on
//! the exam-season sweep only a third of its readings were within ±30%
//! (docs/PERFORMANCE.md, "Honest progress").
//!
//! Here what is left is priced from what has been measured, with a multiplicative model:
//! a policy's mean cost so far, times, for each swept parameter, how much dearer that
//! policy was at the point's value of it than on average (1 while that value is not
//! measured yet). The rate is measured cost per wall second, which takes in the threads
//! and the machine's load. Nothing is tuned: every factor is a ratio of measured means.

use std::collections::HashMap;

/// Seconds and count of measured policy-replications.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    secs: f64,
    count: u64,
}

impl Spent {
    fn add(&mut self, secs: f64) {
        self.secs += secs;
        self.count += 1;
    }

    fn mean(self) -> Option<f64> {
        (self.count > 0).then(|| self.secs / self.count as f64)
    }
}

/// What a sweep has left and what its policies have cost (seconds of simulation).
#[derive(Debug, Default)]
pub(crate) struct CostEta {
    /// Per (policy name, point's parameter values): policy-replications still to run.
    left: HashMap<(String, Vec<String>), u64>,
    /// Per policy name.
    by_policy: HashMap<String, Spent>,
    /// Per (policy name, parameter index, value).
    by_value: HashMap<(String, usize, String), Spent>,
    all: Spent,
    /// Seconds since the bar started when the last replication finished.
    at: f64,
}

impl CostEta {
    /// `count` policy-replications of the policy `name` still to run at a point whose
    /// swept parameters have `values` (call once per point and fresh policy).
    pub(crate) fn plan(&mut self, name: &str, values: &[String], count: u64) {
        *self.left.entry((name.to_string(), values.to_vec())).or_default() += count;
    }

    /// One replication of `name` at the point with `values` finished after `secs` of
    /// simulation, `at` seconds into the sweep.
    pub(crate) fn finished(&mut self, name: &str, values: &[String], secs: f64, at: f64) {
        if let Some(l) = self.left.get_mut(&(name.to_string(), values.to_vec())) {
            *l = l.saturating_sub(1);
        }
        self.by_policy.entry(name.to_string()).or_default().add(secs);
        for (i, v) in values.iter().enumerate() {
            self.by_value.entry((name.to_string(), i, v.clone())).or_default().add(secs);
        }
        self.all.add(secs);
        self.at = self.at.max(at);
    }

    /// The expected cost of one replication of `name` at `values`.
    fn price(&self, name: &str, values: &[String]) -> f64 {
        let mean_all = self.all.mean().unwrap_or(0.0);
        let Some(mean) = self.by_policy.get(name).and_then(|s| s.mean()) else { return mean_all };
        values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| self.by_value.get(&(name.to_string(), i, v.clone()))?.mean())
            .fold(mean, |price, at_value| price * at_value / mean)
    }

    /// Seconds left at `now` (seconds into the sweep): what is left at its price, divided
    /// by the cost simulated per wall second up to the last finished replication, less the
    /// time since it. `None` before anything finished.
    pub(crate) fn seconds_left(&self, now: f64) -> Option<f64> {
        if self.all.count == 0 || self.all.secs <= 0.0 || self.at <= 0.0 {
            return None;
        }
        let cost_left: f64 = self
            .left
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|((name, values), &n)| n as f64 * self.price(name, values))
            .sum();
        let rate = self.all.secs / self.at;
        Some((cost_left / rate - (now - self.at)).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn what_is_left_is_priced_at_each_policys_own_cost() {
        // 4 cheap (1 s) and 4 dear (3 s) policy-replications at one point; the cheap ones
        // ran first, two at a time over 2 s of wall time: 2 s of cost per wall second.
        let p = v(&["1"]);
        let mut e = CostEta::default();
        e.plan("cheap", &p, 4);
        e.plan("dear", &p, 4);
        assert_eq!(e.seconds_left(0.0), None);
        for _ in 0..4 {
            e.finished("cheap", &p, 1.0, 2.0);
        }
        // The dear policy is not measured yet: priced at the mean so far (1 s).
        assert!((e.seconds_left(2.0).unwrap() - 2.0).abs() < 1e-9);
        e.finished("dear", &p, 3.0, 3.5);
        // 7 s measured in 3.5 s: 2 s/s; left 3 × 3 s = 9 s of cost: 4.5 s, less 0.5 s since.
        // (A count of units would say 3 of 8 left after 3.5 s: 2.1 s, half the truth.)
        assert!((e.seconds_left(4.0).unwrap() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn a_parameter_value_that_made_a_policy_dearer_prices_what_is_left_at_it() {
        // One policy at two exam intensities: 1 s at "1.0", 3 s at "1.45" (mean 2 s).
        let (low, high) = (v(&["1.0"]), v(&["1.45"]));
        let mut e = CostEta::default();
        e.plan("p", &low, 3);
        e.plan("p", &high, 3);
        e.finished("p", &low, 1.0, 1.0);
        e.finished("p", &high, 3.0, 4.0);
        // 4 s in 4 s: 1 s/s. Left 2 at 2 × 1/2 = 1 s and 2 at 2 × 3/2 = 3 s: 8 s.
        assert!((e.seconds_left(4.0).unwrap() - 8.0).abs() < 1e-9);
        // A value never measured leaves the policy's mean.
        assert!((e.price("p", &v(&["1.3"])) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_time_left_never_goes_below_zero() {
        let mut e = CostEta::default();
        e.plan("a", &[], 1);
        e.finished("a", &[], 1.0, 1.0);
        assert_eq!(e.seconds_left(5.0), Some(0.0));
    }
}
