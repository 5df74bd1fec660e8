//! The derivative-free search over a bounded box and the profile intervals, on any
//! objective (so it is tested on functions whose minimum and intervals are known).
//!
//! Coordinates are integers on a grid of [`GRID`] steps per input (0 = the range's low
//! end, `GRID` = its high end), so every point is evaluated once (a cache) and the values
//! written are the values simulated. The search, within a budget of evaluations:
//! 1. a first design that sees the whole box: 5 levels of one input, a 3 × 3 grid of
//!    two, or the centre and both ends of every axis for three or more;
//! 2. compass search from the best point: try ± a step on each axis, move on any
//!    improvement, halve the step when none helps, stop at 1/128 of the range;
//! 3. for each input and each side, the interval's end: the profile (the objective
//!    minimised over the other inputs by a compass round of ± 1/16 of their ranges) at the
//!    range's end (open when within the threshold), else bisection of the profile between
//!    the best point (inside) and the end (outside), the crossing interpolated linearly in
//!    √(objective − minimum).
//!
//! An interval is the set of values whose objective is within `delta` of the minimum
//! (a profile interval: with the objective a −2 log-likelihood, `delta` = χ²₁ quantile
//! gives the confidence level). It is the hull of the bisection crossings and of every
//! evaluated point within the threshold, i.e. the level set projected on the axis, as
//! far as the evaluated points see it. The one-round profile follows a diagonal valley
//! only approximately (docs/CALIBRATION.md, "Limits").

use std::collections::HashMap;

/// Grid steps per input.
pub const GRID: u32 = 1024;
/// Smallest compass step (1/128 of the range).
const MIN_STEP: u32 = GRID / 128;

/// One evaluated point.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    /// Grid coordinates.
    pub at: Vec<u32>,
    /// Objective (`+∞` where it could not be computed).
    pub objective: f64,
}

/// The interval of one input, in grid units (fractional at interpolated ends).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Low end.
    pub low: f64,
    /// High end.
    pub high: f64,
    /// The low end is the range's low end: values below it were not tried.
    pub low_open: bool,
    /// The high end is the range's high end.
    pub high_open: bool,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every evaluated point, in evaluation order.
    pub evaluations: Vec<Evaluated>,
    /// Index of the best point in `evaluations`.
    pub best: usize,
    /// Per input.
    pub intervals: Vec<Interval>,
    /// The compass search stopped because the budget ran out, before its smallest step.
    pub budget_cut_search: bool,
    /// Stopped early on request (interrupted): the outcome is from what was evaluated.
    pub stopped: bool,
}

struct Evaluator<'a> {
    f: &'a mut dyn FnMut(&[u32]) -> f64,
    seen: HashMap<Vec<u32>, usize>,
    evaluations: Vec<Evaluated>,
    budget: usize,
    stop: &'a dyn Fn() -> bool,
}

impl Evaluator<'_> {
    /// The objective at `at` (cached), or `None` when the budget is spent or stopped.
    fn eval(&mut self, at: &[u32]) -> Option<f64> {
        if let Some(&i) = self.seen.get(at) {
            return Some(self.evaluations[i].objective);
        }
        if self.evaluations.len() >= self.budget || (self.stop)() {
            return None;
        }
        let v = (self.f)(at);
        let v = if v.is_nan() { f64::INFINITY } else { v };
        self.seen.insert(at.to_vec(), self.evaluations.len());
        self.evaluations.push(Evaluated { at: at.to_vec(), objective: v });
        Some(v)
    }

    fn best(&self) -> usize {
        // Ties go to the earliest point: deterministic.
        (0..self.evaluations.len())
            .min_by(|&a, &b| self.evaluations[a].objective.total_cmp(&self.evaluations[b].objective).then(a.cmp(&b)))
            .expect("at least one evaluation")
    }
}

/// The profile at `axis = value`: the objective minimised over the other inputs by one
/// compass round (± 1/16 of the range on each, the better kept), starting from `from`'s
/// other inputs. `None` when the budget is spent.
fn profile(ev: &mut Evaluator<'_>, axis: usize, value: u32, from: &[u32]) -> Option<(f64, Vec<u32>)> {
    let mut at = from.to_vec();
    at[axis] = value;
    let mut v = ev.eval(&at)?;
    for other in (0..at.len()).filter(|&o| o != axis) {
        let mut best_here = (v, at.clone());
        for dir in [-1i64, 1] {
            let mut p = at.clone();
            p[other] = (i64::from(p[other]) + dir * i64::from(GRID / 16)).clamp(0, i64::from(GRID)) as u32;
            if p == at {
                continue;
            }
            let Some(vp) = ev.eval(&p) else { return Some((best_here.0, best_here.1)) };
            if vp < best_here.0 {
                best_here = (vp, p);
            }
        }
        (v, at) = best_here;
    }
    Some((v, at))
}

/// Evaluations of the first design for `dims` inputs (the budget must hold more).
pub fn design_size(dims: usize) -> usize {
    first_design(dims).len()
}

/// The first design for `dims` inputs.
fn first_design(dims: usize) -> Vec<Vec<u32>> {
    let centre = vec![GRID / 2; dims];
    match dims {
        1 => (0..=4).map(|i| vec![i * GRID / 4]).collect(),
        2 => {
            let l = [0, GRID / 2, GRID];
            l.iter().flat_map(|&a| l.iter().map(move |&b| vec![a, b])).collect()
        }
        _ => {
            let mut v = vec![centre.clone()];
            for i in 0..dims {
                for end in [0, GRID] {
                    let mut p = centre.clone();
                    p[i] = end;
                    v.push(p);
                }
            }
            v
        }
    }
}

/// Minimises `f` over the box `[0, GRID]^dims` within `budget` evaluations and finds the
/// interval of each input at `objective ≤ minimum + delta`. `stop()` ends the work early.
///
/// When `stop()` is true before the first evaluation, the outcome has no evaluations.
///
/// # Panics
/// When `dims` is 0 or the budget cannot hold the first design.
pub fn minimise(
    dims: usize,
    budget: usize,
    delta: f64,
    f: &mut dyn FnMut(&[u32]) -> f64,
    stop: &dyn Fn() -> bool,
) -> Outcome {
    assert!(dims > 0, "at least one input");
    let design = first_design(dims);
    assert!(budget >= design.len(), "the budget holds the first design");
    // Keep about 4 profile points per interval end (at most 55% of the budget).
    let for_intervals = (2 * dims * 4 * (1 + 2 * (dims - 1))).min(budget * 11 / 20);
    let mut ev = Evaluator { f, seen: HashMap::new(), evaluations: Vec::new(), budget, stop };
    let mut stopped = false;
    for p in &design {
        if ev.eval(p).is_none() {
            stopped = true;
            break;
        }
    }
    if ev.evaluations.is_empty() {
        return Outcome { evaluations: Vec::new(), best: 0, intervals: Vec::new(), budget_cut_search: false, stopped };
    }
    let search_budget = budget.saturating_sub(for_intervals).max(ev.evaluations.len());
    let mut step = if dims == 1 { GRID / 8 } else { GRID / 4 };
    let mut budget_cut_search = false;
    while !stopped && step >= MIN_STEP {
        let mut improved = false;
        for axis in 0..dims {
            for dir in [-1i64, 1] {
                let here = ev.evaluations[ev.best()].clone();
                let mut p = here.at.clone();
                let moved = (i64::from(p[axis]) + dir * i64::from(step)).clamp(0, i64::from(GRID)) as u32;
                if moved == p[axis] {
                    continue;
                }
                p[axis] = moved;
                if ev.seen.contains_key(&p) {
                    improved |= ev.evaluations[ev.seen[&p]].objective < here.objective;
                    continue;
                }
                if ev.evaluations.len() >= search_budget {
                    budget_cut_search = true;
                    break;
                }
                match ev.eval(&p) {
                    Some(v) => improved |= v < here.objective,
                    None => stopped = true,
                }
            }
        }
        if budget_cut_search || stopped {
            break;
        }
        if !improved {
            step /= 2;
        }
    }
    // Interval ends: per input and side, the profile at the range end, then bisection;
    // the profile at a trial value re-minimises the other inputs (warm-started from the
    // inside end of the bracket), so a valley along a diagonal is followed.
    let inner = 1 + 2 * (dims - 1);
    let per_end = (budget.saturating_sub(ev.evaluations.len()) / (2 * dims * inner)).max(1);
    let mut crossings: Vec<[Option<f64>; 2]> = vec![[None, None]; dims];
    'ends: for axis in 0..dims {
        for (side, end) in [0u32, GRID].into_iter().enumerate() {
            let best = ev.evaluations[ev.best()].clone();
            let threshold = best.objective + delta;
            if best.at[axis] == end {
                continue;
            }
            let Some((v_out, _)) = profile(&mut ev, axis, end, &best.at) else { break 'ends };
            if v_out <= threshold {
                continue;
            }
            let (mut inside_u, mut inside_v, mut inside_at) = (best.at[axis], best.objective, best.at.clone());
            let (mut out_u, mut out_v) = (end, v_out);
            for _ in 1..per_end {
                if inside_u.abs_diff(out_u) <= 1 {
                    break;
                }
                let mid = (inside_u + out_u) / 2;
                let Some((v, at)) = profile(&mut ev, axis, mid, &inside_at) else { break };
                if v <= threshold {
                    (inside_u, inside_v, inside_at) = (mid, v, at);
                } else {
                    (out_u, out_v) = (mid, v);
                }
            }
            // The crossing inside the last bracket, interpolated linearly in the square root
            // of the excess over the minimum (exact when the profile is quadratic near it;
            // linear interpolation of the excess itself would put the end far too close).
            let root = |v: f64| (v - best.objective).max(0.0).sqrt();
            let frac = if out_v.is_finite() && out_v > inside_v {
                ((delta.sqrt() - root(inside_v)) / (root(out_v) - root(inside_v))).clamp(0.0, 1.0)
            } else {
                0.5
            };
            let x = f64::from(inside_u) + frac * (f64::from(out_u) - f64::from(inside_u));
            crossings[axis][side] = Some(x);
        }
    }
    let best = ev.best();
    let threshold = ev.evaluations[best].objective + delta;
    let intervals = (0..dims)
        .map(|axis| {
            let inside: Vec<u32> =
                ev.evaluations.iter().filter(|e| e.objective <= threshold).map(|e| e.at[axis]).collect();
            let lo_pts = f64::from(*inside.iter().min().expect("the best point is inside"));
            let hi_pts = f64::from(*inside.iter().max().expect("the best point is inside"));
            let low = crossings[axis][0].map_or(lo_pts, |c| c.min(lo_pts));
            let high = crossings[axis][1].map_or(hi_pts, |c| c.max(hi_pts));
            Interval { low, high, low_open: low <= 0.0, high_open: high >= f64::from(GRID) }
        })
        .collect();
    Outcome { evaluations: ev.evaluations, best, intervals, budget_cut_search, stopped }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dims: usize, budget: usize, f: &mut dyn FnMut(&[u32]) -> f64) -> Outcome {
        minimise(dims, budget, 3.841, f, &|| false)
    }

    #[test]
    fn finds_a_quadratic_minimum_and_its_interval() {
        // χ² = ((x − 300) / 50)²: minimum at 300, Δ = 3.841 ⇒ 300 ± 50·1.96.
        let o = run(1, 30, &mut |p| ((f64::from(p[0]) - 300.0) / 50.0).powi(2));
        let best = &o.evaluations[o.best];
        assert!((f64::from(best.at[0]) - 300.0).abs() <= 8.0, "best at {:?}", best.at);
        let iv = o.intervals[0];
        assert!((iv.low - 202.0).abs() < 6.0 && (iv.high - 398.0).abs() < 6.0, "{iv:?}");
        assert!(!iv.low_open && !iv.high_open);
        assert!(o.evaluations.len() <= 30);
    }

    #[test]
    fn two_inputs_and_a_minimum_on_the_range_bound() {
        let f = |p: &[u32]| {
            let (x, y) = (f64::from(p[0]), f64::from(p[1]));
            ((x - 700.0) / 40.0).powi(2) + (y / 100.0).powi(2)
        };
        let o = run(2, 60, &mut |p| f(p));
        let best = &o.evaluations[o.best];
        assert!((f64::from(best.at[0]) - 700.0).abs() <= 16.0 && best.at[1] <= 16, "{:?}", best.at);
        assert!(o.intervals[1].low_open, "the optimum of y is the range's low end: {:?}", o.intervals[1]);
        assert!(!o.intervals[1].high_open && (o.intervals[1].high - 196.0).abs() < 20.0, "{:?}", o.intervals[1]);
        assert!(o.evaluations.len() <= 60);
    }

    #[test]
    fn the_budget_is_never_exceeded_and_stop_is_obeyed() {
        let mut calls = 0;
        let o = minimise(
            3,
            12,
            3.841,
            &mut |p| {
                calls += 1;
                p.iter().map(|&v| f64::from(v)).sum()
            },
            &|| false,
        );
        assert!(calls <= 12 && o.evaluations.len() == calls);
        let o = minimise(1, 20, 3.841, &mut |p| f64::from(p[0]), &|| true);
        assert!(o.stopped && o.evaluations.is_empty() && o.intervals.is_empty());
    }
}
