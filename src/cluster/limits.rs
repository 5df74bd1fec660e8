//! Association limits of Slurm accounts: `GrpTRES=gres/gpu=N` (GPUs the account's running
//! jobs hold at once), `MaxJobs` (running jobs at once) and `MaxSubmit` (pending and
//! running jobs at once).
//!
//! A job over `GrpTRES` or `MaxJobs` stays in the queue *held*, as Slurm's pending reasons
//! `AssocGrpGRES` and `AssocMaxJobsLimit` hold it: the scheduler skips it without letting
//! it block lower-priority jobs, and it becomes eligible again when the account's running
//! jobs end. A submission over `MaxSubmit` is refused by Slurm; the model has the user
//! resubmit it as soon as one of the account's jobs leaves (it waits outside the queue,
//! and its wait counts from the first attempt).

use crate::scenario::Account;

/// Why a job is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// `AssocGrpGRES`: the account's GPUs in use plus the job's would pass `GrpTRES`.
    GrpGpus,
    /// `AssocMaxJobsLimit`: the account already runs `MaxJobs` jobs.
    MaxJobs,
}

/// What an account holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// GPUs its running jobs hold.
    pub gpus: u32,
    /// Running jobs.
    pub jobs: u32,
    /// Pending and running jobs (for MaxSubmit).
    pub submitted: u32,
}

/// Limits and current use of every account.
#[derive(Clone, Debug)]
pub struct Limits {
    spec: Vec<(Option<u32>, Option<u32>, Option<u32>)>,
    usage: Vec<Usage>,
}

impl Limits {
    /// No use yet.
    pub fn new(accounts: &[Account]) -> Limits {
        Limits {
            spec: accounts.iter().map(|a| (a.gpu_limit, a.max_jobs, a.max_submit)).collect(),
            usage: vec![Usage::default(); accounts.len()],
        }
    }

    /// An account's use now.
    pub fn usage(&self, account: u16) -> Usage {
        self.usage[usize::from(account)]
    }

    /// `GrpTRES` GPUs and `MaxJobs` of an account.
    pub fn caps(&self, account: u16) -> (Option<u32>, Option<u32>) {
        let s = self.spec[usize::from(account)];
        (s.0, s.1)
    }

    /// Why a job of `account` holding `gpus` GPUs may not start now, if it may not.
    pub fn hold(&self, account: u16, gpus: u32) -> Option<Hold> {
        let (gpu_limit, max_jobs, _) = self.spec[usize::from(account)];
        let u = self.usage[usize::from(account)];
        if gpu_limit.is_some_and(|l| u.gpus + gpus > l) {
            Some(Hold::GrpGpus)
        } else if max_jobs.is_some_and(|l| u.jobs >= l) {
            Some(Hold::MaxJobs)
        } else {
            None
        }
    }

    /// Whether the account may submit another job (`MaxSubmit`).
    pub fn may_submit(&self, account: u16) -> bool {
        let max = self.spec[usize::from(account)].2;
        max.is_none_or(|m| self.usage[usize::from(account)].submitted < m)
    }

    /// A job entered the queue.
    pub fn submitted(&mut self, account: u16) {
        self.usage[usize::from(account)].submitted += 1;
    }

    /// A queued job left without running (withdrawn to the cloud).
    pub fn withdrawn(&mut self, account: u16) {
        self.usage[usize::from(account)].submitted -= 1;
    }

    /// A job started holding `gpus`.
    pub fn started(&mut self, account: u16, gpus: u32) {
        let u = &mut self.usage[usize::from(account)];
        u.gpus += gpus;
        u.jobs += 1;
    }

    /// A job ended (completed, or killed at its walltime and about to be re-queued, which
    /// counts as a new submission).
    pub fn ended(&mut self, account: u16, gpus: u32) {
        let u = &mut self.usage[usize::from(account)];
        u.gpus -= gpus;
        u.jobs -= 1;
        u.submitted -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_hold_and_release_like_slurms_association_limits() {
        let a = Account {
            name: "a".into(),
            fairshare: 1.0,
            gpu_limit: Some(8),
            max_jobs: Some(2),
            max_submit: Some(3),
            patience: Default::default(),
            listed: true,
            expected_use: 0.0,
        };
        let mut l = Limits::new(&[a]);
        for _ in 0..3 {
            assert!(l.may_submit(0));
            l.submitted(0);
        }
        assert!(!l.may_submit(0), "MaxSubmit 3");
        assert_eq!(l.hold(0, 8), None);
        l.started(0, 6);
        assert_eq!(l.hold(0, 4), Some(Hold::GrpGpus), "6 + 4 > 8");
        assert_eq!(l.hold(0, 2), None);
        l.started(0, 2);
        assert_eq!(l.hold(0, 0), Some(Hold::MaxJobs));
        l.ended(0, 6);
        assert_eq!(l.hold(0, 4), None);
        assert!(l.may_submit(0));
    }
}
