//! Step functions of time, the one structure the plan is made of: a node's free GPUs or an
//! account's GPUs and jobs, as `(from time, value)` pieces. The queries (the earliest start
//! at which the steps stay acceptable for a whole walltime) and the edits (add over an
//! interval, set to zero) know nothing of nodes, jobs or accounts, so they stand apart
//! from the [`Plan`](super::Plan) that keeps one of them per node and account.

use crate::units::SimTime;

/// A step function `(from, value)` with the first piece at the plan's start.
pub(super) type Steps = Vec<(SimTime, i64)>;

/// The value at `t`.
pub(super) fn value_at(steps: &Steps, t: SimTime) -> i64 {
    let i = steps.partition_point(|&(from, _)| from <= t);
    steps[i.saturating_sub(1)].1
}

/// The earliest `t ≥ from` such that the steps stay ≥ `need` on `[t, t + len)`.
pub(super) fn earliest_at_least(steps: &Steps, need: i64, len: SimTime, from: SimTime) -> Option<SimTime> {
    earliest_at_least_until(steps, need, len, from, SimTime::MAX)
}

/// As [`earliest_at_least`], giving up (`None`) once the start would pass `until`: a
/// search for the earliest node stops scanning a node as soon as it cannot beat the best.
pub(super) fn earliest_at_least_until(
    steps: &Steps,
    need: i64,
    len: SimTime,
    from: SimTime,
    until: SimTime,
) -> Option<SimTime> {
    earliest_where(steps, |v| v >= need, len, from, until)
}

/// [`earliest_at_least_until`] for steps that never decrease (a node's free GPUs when
/// only releases are planned on it): the first piece with enough stays enough whatever
/// the length, so it is a binary search. Returns the start and the value there. The plan
/// reads the same answer from its `first` table ([`super::Plan::earliest_untouched`]); this is
/// the reference the tests hold the table to.
#[cfg(test)]
pub(super) fn earliest_on_rising(steps: &Steps, need: i64, from: SimTime, until: SimTime) -> Option<(SimTime, i64)> {
    let i = steps.partition_point(|s| s.1 < need);
    let s = steps.get(i)?;
    let t = s.0.max(from);
    (t <= until).then(|| (t, if s.0 >= from { s.1 } else { value_at(steps, t) }))
}

/// The earliest `t ≥ from` (and ≤ `until`) such that every value of the steps on
/// `[t, t + len)` satisfies `ok`.
pub(super) fn earliest_where(
    steps: &Steps,
    ok: impl Fn(i64) -> bool,
    len: SimTime,
    from: SimTime,
    until: SimTime,
) -> Option<SimTime> {
    let mut i = steps.partition_point(|&(f, _)| f <= from).saturating_sub(1);
    let mut start = from;
    loop {
        // Advance to a piece where the value is acceptable.
        while !ok(steps[i].1) {
            i += 1;
            if i == steps.len() {
                return None;
            }
            start = steps[i].0;
        }
        if start > until {
            return None;
        }
        // Check the pieces covering [start, start + len).
        let end = start.saturating_add(len);
        let mut j = i + 1;
        loop {
            if j == steps.len() || steps[j].0 >= end {
                return Some(start);
            }
            if !ok(steps[j].1) {
                break;
            }
            j += 1;
        }
        i = j;
        start = steps[j].0;
    }
}

/// Adds `delta` to the steps on `[a, b)`.
pub(super) fn add(steps: &mut Steps, a: SimTime, b: SimTime, delta: i64) {
    if b <= a {
        return;
    }
    for cut in [a, b] {
        let i = steps.partition_point(|&(f, _)| f <= cut);
        if steps[i - 1].0 != cut {
            let v = steps[i - 1].1;
            steps.insert(i, (cut, v));
        }
    }
    let from = steps.partition_point(|&(f, _)| f < a);
    for s in steps[from..].iter_mut().take_while(|s| s.0 < b) {
        s.1 += delta;
    }
}

/// Sets the steps to 0 on `[a, b)`.
pub(super) fn set_to_zero(steps: &mut Steps, a: SimTime, b: SimTime) {
    if b <= a {
        return;
    }
    add(steps, a, b, 0); // splits at a and b
    let from = steps.partition_point(|&(f, _)| f < a);
    for s in steps[from..].iter_mut().take_while(|s| s.0 < b) {
        s.1 = s.1.min(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_at_least_finds_the_first_long_enough_gap() {
        let steps: Steps = vec![(0, 1), (10, 4), (20, 2), (30, 8)];
        assert_eq!(earliest_at_least(&steps, 1, 100, 0), Some(0));
        assert_eq!(earliest_at_least(&steps, 2, 5, 0), Some(10));
        assert_eq!(earliest_at_least(&steps, 3, 5, 0), Some(10));
        assert_eq!(earliest_at_least(&steps, 3, 15, 0), Some(30), "4 free on [10, 20) is too short");
        assert_eq!(earliest_at_least(&steps, 9, 1, 0), None);
        assert_eq!(earliest_at_least(&steps, 2, 5, 12), Some(12));
    }

    proptest::proptest! {
        /// On steps that never decrease, the binary search finds what the general walk
        /// finds, for any need, length, start and bound.
        #[test]
        fn the_rising_search_agrees_with_the_walk(
            rises in proptest::collection::vec((1u64..50, 0i64..3), 0..20),
            first in 0i64..4,
            need in 0i64..12,
            len in 1u64..200,
            from in 0u64..600,
            until in 0u64..700,
        ) {
            let mut steps: Steps = vec![(0, first)];
            for (gap, up) in rises {
                let (t, v) = *steps.last().unwrap();
                steps.push((t + gap, v + up));
            }
            let walk = earliest_at_least_until(&steps, need, len, from, until).map(|t| (t, value_at(&steps, t)));
            proptest::prop_assert_eq!(earliest_on_rising(&steps, need, from, until), walk);
        }
    }

    #[test]
    fn adding_splits_pieces() {
        let mut steps: Steps = vec![(0, 4)];
        add(&mut steps, 5, 10, -3);
        assert_eq!(steps, vec![(0, 4), (5, 1), (10, 4)]);
        add(&mut steps, 7, 12, -1);
        assert_eq!(steps, vec![(0, 4), (5, 1), (7, 0), (10, 3), (12, 4)]);
        assert_eq!(value_at(&steps, 11), 3);
    }
}
