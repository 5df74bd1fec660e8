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

/// [`earliest_where`] on the sum of two step functions, without writing the sum out: the
/// earliest `t ≥ from` (and ≤ `until`) such that every value of `a + b` on `[t, t + len)`
/// satisfies `ok`. Both must start at or before `from`. The two are walked together,
/// piece by piece of the sum (a break of either is a break of the sum), so the cost is
/// that of walking both over the range searched. The plan keeps an account's running
/// jobs (`a`, hundreds of pieces) apart from the pass's few reservations (`b`).
pub(super) fn earliest_where_sum(
    a: &Steps,
    b: &Steps,
    ok: impl Fn(i64) -> bool,
    len: SimTime,
    from: SimTime,
    until: SimTime,
) -> Option<SimTime> {
    // The piece of the sum at (i, j) is a[i] + b[j]; the next break is the nearer of the
    // two next pieces. Moves (i, j) to the next piece of the sum and returns its start.
    let step = |i: &mut usize, j: &mut usize| -> Option<SimTime> {
        let next_a = a.get(*i + 1).map(|p| p.0);
        let next_b = b.get(*j + 1).map(|p| p.0);
        let next = match (next_a, next_b) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (None, None) => return None,
        };
        if next_a == Some(next) {
            *i += 1;
        }
        if next_b == Some(next) {
            *j += 1;
        }
        Some(next)
    };
    let mut i = a.partition_point(|&(f, _)| f <= from).saturating_sub(1);
    let mut j = b.partition_point(|&(f, _)| f <= from).saturating_sub(1);
    let mut start = from;
    loop {
        // Advance to a piece where the value is acceptable.
        while !ok(a[i].1 + b[j].1) {
            start = step(&mut i, &mut j)?;
        }
        if start > until {
            return None;
        }
        // Check the pieces covering [start, start + len).
        let end = start.saturating_add(len);
        loop {
            match step(&mut i, &mut j) {
                None => return Some(start),
                Some(t) if t >= end => return Some(start),
                Some(t) if !ok(a[i].1 + b[j].1) => {
                    start = t;
                    break;
                }
                Some(_) => {}
            }
        }
    }
}

/// The sum of two step functions written out, with a piece at every break of either
/// (for the tests: [`earliest_where_sum`] is the plan's way to read it).
#[cfg(test)]
pub(super) fn sum(a: &Steps, b: &Steps) -> Steps {
    let start = a[0].0.max(b[0].0);
    let mut i = a.partition_point(|&(f, _)| f <= start) - 1;
    let mut j = b.partition_point(|&(f, _)| f <= start) - 1;
    let mut out = vec![(start, a[i].1 + b[j].1)];
    loop {
        let next = match (a.get(i + 1), b.get(j + 1)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => return out,
        };
        if a.get(i + 1).is_some_and(|x| x.0 == next) {
            i += 1;
        }
        if b.get(j + 1).is_some_and(|y| y.0 == next) {
            j += 1;
        }
        out.push((next, a[i].1 + b[j].1));
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

    /// Random step functions from time `t0`: `(gap, value)` pieces.
    fn steps_from(t0: SimTime, pieces: &[(u64, i64)]) -> Steps {
        let mut steps: Steps = vec![(t0, pieces.first().map_or(0, |p| p.1))];
        for &(gap, v) in pieces.iter().skip(1) {
            let t = steps.last().expect("non-empty").0 + gap;
            steps.push((t, v));
        }
        steps
    }

    proptest::proptest! {
        /// Walking two step functions together finds what the walk on their sum written
        /// out finds, and the sum written out has the same value everywhere.
        #[test]
        fn the_walk_of_a_sum_agrees_with_the_walk_of_the_sum_written_out(
            a in proptest::collection::vec((1u64..40, 0i64..6), 1..12),
            b in proptest::collection::vec((1u64..40, 0i64..4), 1..6),
            b_start in 0u64..30,
            most in 0i64..9,
            len in 1u64..150,
            from in 30u64..400,
            until in 30u64..500,
        ) {
            let (a, b) = (steps_from(30, &a), steps_from(b_start, &b));
            let written = sum(&a, &b);
            for t in 30..450 {
                proptest::prop_assert_eq!(value_at(&written, t), value_at(&a, t) + value_at(&b, t), "at {}", t);
            }
            proptest::prop_assert_eq!(
                earliest_where_sum(&a, &b, |v| v <= most, len, from, until),
                earliest_where(&written, |v| v <= most, len, from, until)
            );
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
