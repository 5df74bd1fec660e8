//! The waiting jobs of the node cluster in queue order, and the walk of a scheduling pass
//! over them.

use std::collections::VecDeque;

use super::request::{QueuedJob, Request};
use crate::scenario::shape::Shape;
use crate::units::SimTime;

/// A waiting job.
#[derive(Clone, Copy, Debug)]
pub(super) struct Waiting {
    /// The job.
    pub(super) q: QueuedJob,
    /// What it asks for.
    pub(super) req: Request,
    /// Its node shape on this cluster.
    pub(super) shape: Shape,
    /// Eligible since (submission, or re-queue after a walltime kill).
    pub(super) since: SimTime,
    /// Submission order (ties of priority go to the earlier).
    pub(super) seq: u64,
    /// Priority at the last computation.
    pub(super) priority: f64,
}

impl Waiting {
    /// Queue order: higher priority first, then earlier submission.
    pub(super) fn key(&self) -> Key {
        Key(self.priority, self.seq)
    }
}

/// A position in the queue: higher priority first, then earlier submission.
#[derive(Clone, Copy, Debug)]
pub(super) struct Key(f64, u64);

impl Key {
    /// A key before every job's (a placeholder).
    pub(super) const FIRST: Key = Key(f64::INFINITY, 0);

    /// The key as integers that compare as the key does: `f64::total_cmp` orders the
    /// priorities as it orders these bits (its own definition), and `!` reverses an
    /// `i64`'s order exactly (higher priority first). A walk compares these at every step.
    fn rank(self) -> (i64, u64) {
        let mut bits = self.0.to_bits() as i64;
        bits ^= (((bits >> 63) as u64) >> 1) as i64;
        (!bits, self.1)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0).then(self.1.cmp(&other.1))
    }
}

/// The waiting jobs in priority order, kept per account.
///
/// Two facts make this fast where one sorted queue was slow (an exam-season queue holds
/// thousands of jobs, many held by their account's limit): an account at its limit is
/// skipped as a whole in O(1), and a priority recomputation changes little of each
/// account's order (its jobs share the fair-share factor and age at the same rate), so the
/// per-account re-sort is nearly linear. The queue order is the merge of the accounts'
/// orders by priority, then submission.
#[derive(Debug, Default)]
pub(super) struct Queue {
    /// Per account: its waiting jobs in queue order. A deque, because jobs mostly start
    /// from the front: removing the head of a `Vec` moved every job behind it, which made
    /// a queue of 10^5 jobs cost the square of its length (advise on a long snapshot).
    pub(super) accounts: Vec<VecDeque<Waiting>>,
    len: usize,
}

impl Queue {
    pub(super) fn new(accounts: usize) -> Queue {
        Queue { accounts: vec![VecDeque::new(); accounts], len: 0 }
    }
    pub(super) fn len(&self) -> usize {
        self.len
    }
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(super) fn insert(&mut self, w: Waiting) {
        let v = &mut self.accounts[usize::from(w.req.account)];
        let i = v.partition_point(|x| x.key() < w.key());
        v.insert(i, w);
        self.len += 1;
    }
    /// Removes a job of a known account.
    pub(super) fn remove_from(&mut self, account: u16, job: u32) -> Option<Waiting> {
        let v = &mut self.accounts[usize::from(account)];
        let i = v.iter().position(|w| w.q.job == job)?;
        self.len -= 1;
        v.remove(i)
    }
    /// Removes the job at position `i` of an account's list.
    pub(super) fn remove_at(&mut self, account: usize, i: usize) -> Waiting {
        let w = self.accounts[account].remove(i).expect("invariant: a walk's cursor points at a waiting job");
        self.len -= 1;
        w
    }
    /// Removes a job of any account.
    pub(super) fn remove(&mut self, job: u32) -> Option<Waiting> {
        let a = self.accounts.iter().position(|v| v.iter().any(|w| w.q.job == job))?;
        self.remove_from(a as u16, job)
    }
    /// Every waiting job, in queue order.
    pub(super) fn iter(&self) -> Merged<'_> {
        Merged { queue: self, at: vec![0; self.accounts.len()] }
    }
    /// Recomputes priorities and restores each account's order.
    pub(super) fn reorder(&mut self, mut priority: impl FnMut(&Waiting) -> f64) {
        for v in &mut self.accounts {
            for w in v.iter_mut() {
                w.priority = priority(w);
            }
            v.make_contiguous().sort_by_key(Waiting::key);
        }
    }
}

/// The queue in order: a merge of the accounts' sorted lists.
pub(super) struct Merged<'a> {
    queue: &'a Queue,
    at: Vec<usize>,
}

impl<'a> Iterator for Merged<'a> {
    type Item = &'a Waiting;
    fn next(&mut self) -> Option<&'a Waiting> {
        let mut best: Option<(usize, &'a Waiting)> = None;
        for (a, v) in self.queue.accounts.iter().enumerate() {
            if let Some(w) = v.get(self.at[a])
                && best.is_none_or(|b| w.key() < b.1.key())
            {
                best = Some((a, w));
            }
        }
        let (a, w) = best?;
        self.at[a] += 1;
        Some(w)
    }
}

/// A walk over the queue in order during one scheduling pass: a cursor per account and
/// the key of the job under each cursor, `None` when the account has no job left or its
/// limit holds every job it could have (even a 1-GPU one).
///
/// Why not [`Queue::iter`]: a pass visits hundreds of jobs, and finding each next one by
/// reading every account's job under its cursor and re-testing its limit was a fifth of
/// the default's time. Between two steps only one account's head changes (the one that
/// moved on or started a job, whose limit is the only one that changed), so the walk
/// keeps the heads and the next job is the smallest of a few cached keys. Callers must
/// [`Walk::refresh`] an account after anything that changes its head or its limit. The
/// test below checks that the walk visits exactly the merge's order.
#[derive(Debug, Default)]
pub(super) struct Walk {
    at: Vec<usize>,
    /// The head's [`Key::rank`].
    heads: Vec<Option<(i64, u64)>>,
}

impl Walk {
    /// Starts at the front of every account; `open(a)`: account `a`'s jobs may be
    /// visited (its limit does not hold a 1-GPU job).
    pub(super) fn restart(&mut self, queue: &Queue, open: impl Fn(usize) -> bool) {
        self.at.clear();
        self.at.resize(queue.accounts.len(), 0);
        self.heads.clear();
        self.heads.resize(queue.accounts.len(), None);
        for a in 0..queue.accounts.len() {
            self.refresh(queue, a, open(a));
        }
    }

    /// Re-reads account `a`'s job under its cursor (after the cursor moved, that job left
    /// the queue, or the account's limit changed); `open` as in [`Walk::restart`].
    pub(super) fn refresh(&mut self, queue: &Queue, a: usize, open: bool) {
        self.heads[a] = if open { queue.accounts[a].get(self.at[a]).map(|w| w.key().rank()) } else { None };
    }

    /// The account whose job under the cursor comes next in queue order.
    pub(super) fn next(&self) -> Option<usize> {
        let mut best: Option<(usize, (i64, u64))> = None;
        for (a, head) in self.heads.iter().enumerate() {
            if let Some(k) = head
                && best.is_none_or(|b| *k < b.1)
            {
                best = Some((a, *k));
            }
        }
        best.map(|b| b.0)
    }

    /// The job under account `a`'s cursor.
    pub(super) fn job<'q>(&self, queue: &'q Queue, a: usize) -> &'q Waiting {
        &queue.accounts[a][self.at[a]]
    }

    /// Removes the job under account `a`'s cursor from the queue (it starts); the cursor
    /// then points at the account's next job. Refresh the account afterwards.
    pub(super) fn take(&self, queue: &mut Queue, a: usize) -> Waiting {
        queue.remove_at(a, self.at[a])
    }

    /// Moves account `a`'s cursor past its job; `open` as in [`Walk::restart`].
    pub(super) fn skip(&mut self, queue: &Queue, a: usize, open: bool) {
        self.at[a] += 1;
        self.refresh(queue, a, open);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(account: u16, seq: u64, priority: f64) -> Waiting {
        Waiting {
            q: QueuedJob { job: seq as u32, gpus: 1, walltime: 60, group: false },
            req: Request { account, ..Request::default() },
            shape: Shape::OneNode(1),
            since: 0,
            seq,
            priority,
        }
    }

    proptest::proptest! {
        /// Ranks compare as keys do, for any priorities (signed zeros, infinities and NaNs
        /// included) and submission orders.
        #[test]
        fn ranks_order_like_keys(a in proptest::num::f64::ANY, b in proptest::num::f64::ANY, s in 0u64..3, t in 0u64..3) {
            let (x, y) = (Key(a, s), Key(b, t));
            proptest::prop_assert_eq!(x.rank().cmp(&y.rank()), x.cmp(&y));
            proptest::prop_assert_eq!(x.rank().cmp(&x.rank()), x.cmp(&x));
        }

        /// The walk visits the jobs in the merge's order, whichever it skips, starts or
        /// closes (an account at its limit): after each step the rest of the walk is the
        /// straightforward merge of what is left of the open accounts.
        #[test]
        fn the_walk_visits_the_jobs_in_the_merge_order(
            jobs in proptest::collection::vec((0u16..4, 0u8..4), 0..40),
            steps in proptest::collection::vec(0u8..3, 0..60),
        ) {
            let mut queue = Queue::new(4);
            for (i, &(a, p)) in jobs.iter().enumerate() {
                queue.insert(job(a, i as u64, f64::from(p)));
            }
            let mut open = [true; 4];
            let mut walk = Walk::default();
            walk.restart(&queue, |a| open[a]);
            // The straightforward version: the merge, minus jobs already passed.
            let mut passed: Vec<u64> = Vec::new();
            for &step in &steps {
                let expected = queue
                    .iter()
                    .filter(|w| open[usize::from(w.req.account)] && !passed.contains(&w.seq))
                    .map(|w| w.seq)
                    .next();
                let got = walk.next().map(|a| walk.job(&queue, a).seq);
                proptest::prop_assert_eq!(got, expected);
                let Some(a) = walk.next() else { break };
                match step {
                    0 => {
                        passed.push(walk.job(&queue, a).seq);
                        walk.skip(&queue, a, open[a]);
                    }
                    1 => {
                        walk.take(&mut queue, a);
                        walk.refresh(&queue, a, open[a]);
                    }
                    _ => {
                        open[a] = false;
                        walk.refresh(&queue, a, false);
                    }
                }
            }
        }
    }
}
