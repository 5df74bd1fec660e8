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
//!    minimised over the other inputs, each by a line search that brackets its minimum
//!    and takes the parabola's vertex) at the range's end (open when within the
//!    threshold), else bisection of the profile between the best point (inside) and the
//!    end (outside), the crossing interpolated linearly in √(objective − minimum).
//!
//! An interval is the set of values whose profile is within `delta` of the minimum
//! (a profile interval: with the objective a −2 log-likelihood, `delta` = χ²₁ quantile
//! gives the confidence level). It is the hull of the bisection crossings and of every
//! evaluated point within the threshold, i.e. the level set projected on the axis. Holding
//! the other inputs at their best values instead (a conditional interval) is too narrow
//! when two inputs trade off along a diagonal valley; re-minimising them at every trial
//! value follows the valley. With three or more inputs the re-minimisation is one pass of
//! coordinate descent, so it follows a valley less well (docs/CALIBRATION.md, "Limits").

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
pub struct SearchResult {
    /// Every evaluated point, in evaluation order.
    pub evaluations: Vec<Evaluated>,
    /// Index of the best point in `evaluations`.
    pub best: usize,
    /// Per input.
    pub intervals: Vec<Interval>,
    /// The compass search stopped because the budget ran out, before its smallest step.
    pub budget_cut_search: bool,
    /// The budget ran out before some interval end was bracketed to 1/16 of its range:
    /// that end is a rough interpolation, and the interval may be narrower than the data allow.
    pub intervals_cut: bool,
    /// Stopped early on request (interrupted): the outcome is from what was evaluated.
    pub stopped: bool,
}

/// The objective a search minimises: its value at a grid point, or `None` when the
/// caller cannot evaluate another point (its own budget is spent; the search then stops
/// as at the end of its budget). A caller may answer points it evaluated before, in an
/// earlier search, without spending anything.
pub type Objective<'a> = dyn FnMut(&[u32]) -> Option<f64> + 'a;

struct Evaluator<'a> {
    f: &'a mut Objective<'a>,
    seen: HashMap<Vec<u32>, usize>,
    evaluations: Vec<Evaluated>,
    budget: usize,
    /// The objective said it cannot evaluate another point.
    spent: bool,
    stop: &'a dyn Fn() -> bool,
}

impl Evaluator<'_> {
    /// The objective at `at` (cached), or `None` when the budget is spent or stopped.
    fn eval(&mut self, at: &[u32]) -> Option<f64> {
        if let Some(&i) = self.seen.get(at) {
            return Some(self.evaluations[i].objective);
        }
        if self.spent || self.evaluations.len() >= self.budget || (self.stop)() {
            return None;
        }
        let Some(v) = (self.f)(at) else {
            self.spent = true;
            return None;
        };
        let v = if v.is_nan() { f64::INFINITY } else { v };
        self.seen.insert(at.to_vec(), self.evaluations.len());
        self.evaluations.push(Evaluated { at: at.to_vec(), objective: v });
        Some(v)
    }

    /// Evaluations left in the budget.
    fn left(&self) -> usize {
        if self.spent { 0 } else { self.budget.saturating_sub(self.evaluations.len()) }
    }

    fn best(&self) -> usize {
        // Ties go to the earliest point: deterministic.
        (0..self.evaluations.len())
            .min_by(|&a, &b| self.evaluations[a].objective.total_cmp(&self.evaluations[b].objective).then(a.cmp(&b)))
            .expect("at least one evaluation")
    }
}

/// The minimum of the objective along `axis` from `at`, the other inputs fixed: `at` and
/// its neighbours at ± `h`; while the lowest point is the last one evaluated on its side,
/// a step twice as long that way (up to the range's end), so a minimum far from `at` is
/// bracketed; then the vertex of the parabola through the lowest point and its two
/// neighbours. Returns the lowest point evaluated (at worst `at` itself); `None` only when
/// `at` itself cannot be evaluated (budget spent or stopped).
fn line_min(ev: &mut Evaluator<'_>, at: &[u32], axis: usize, h: u32) -> Option<(f64, Vec<u32>)> {
    let h = h.max(1);
    let point = |x: u32| {
        let mut p = at.to_vec();
        p[axis] = x;
        p
    };
    let mut line: Vec<(u32, f64)> = vec![(at[axis], ev.eval(at)?)];
    let lowest = |line: &[(u32, f64)]| {
        (0..line.len()).min_by(|&a, &b| line[a].1.total_cmp(&line[b].1).then(a.cmp(&b))).expect("one point")
    };
    let done = |line: Vec<(u32, f64)>| {
        let i = lowest(&line);
        Some((line[i].1, point(line[i].0)))
    };
    for x in [at[axis].saturating_sub(h), (at[axis] + h).min(GRID)] {
        if line.iter().all(|p| p.0 != x) {
            let Some(v) = ev.eval(&point(x)) else { return done(line) };
            line.push((x, v));
        }
    }
    let mut step = h;
    loop {
        line.sort_by_key(|p| p.0);
        let i = lowest(&line);
        let x = if i == 0 && line[0].0 > 0 {
            line[0].0.saturating_sub(step * 2)
        } else if i == line.len() - 1 && line[i].0 < GRID {
            (line[i].0 + step * 2).min(GRID)
        } else {
            break;
        };
        step *= 2;
        let Some(v) = ev.eval(&point(x)) else { return done(line) };
        line.push((x, v));
    }
    let i = lowest(&line);
    if i > 0 && i + 1 < line.len() {
        let [(xa, fa), (xb, fb), (xc, fc)] = [line[i - 1], line[i], line[i + 1]].map(|(x, f)| (f64::from(x), f));
        let den = (xb - xa) * (fb - fc) - (xb - xc) * (fb - fa);
        let num = (xb - xa).powi(2) * (fb - fc) - (xb - xc).powi(2) * (fb - fa);
        if den.is_finite() && num.is_finite() && den != 0.0 {
            let x = (xb - 0.5 * num / den).round().clamp(xa + 1.0, xc - 1.0) as u32;
            if line.iter().all(|p| p.0 != x)
                && let Some(v) = ev.eval(&point(x))
            {
                line.push((x, v));
            }
        }
    }
    done(line)
}

/// The profile at `axis = value`: the objective minimised over the other inputs, each in
/// turn by [`line_min`] (first step `h`), from `warm`'s other inputs. For two inputs this
/// is a full minimisation over the other; for three or more, one pass of coordinate
/// descent. `None` when the budget is spent before the first point.
fn profile(ev: &mut Evaluator<'_>, axis: usize, value: u32, warm: &[u32], h: u32) -> Option<(f64, Vec<u32>)> {
    let mut at = warm.to_vec();
    at[axis] = value;
    let mut best = (ev.eval(&at)?, at);
    for other in (0..best.1.len()).filter(|&o| o != axis) {
        let Some(found) = line_min(ev, &best.1, other, h) else { break };
        if found.0 <= best.0 {
            best = found;
        }
    }
    Some(best)
}

/// One interval end as found from one best point.
#[derive(Clone, Debug)]
struct End {
    /// The objective of the best point it was found from.
    centre_objective: f64,
    /// The crossing, in grid units (`None`: open, the range's end is inside, or the best
    /// point is on it).
    crossing: Option<f64>,
    /// Not bracketed to 1/16 of the range within its share of the budget.
    cut: bool,
}

/// The interval's end on `side` (0 low, 1 high) of `axis`, from the current best point,
/// within about `share` evaluations: the profile at the range's end (open when inside
/// the threshold), else bisection of the profile between the best point (inside) and the
/// end (outside). Each trial value re-minimises the other inputs, warm-started halfway
/// between the minimisers at the bracket's two ends, so a valley along a diagonal is
/// followed however far it goes. The crossing inside the last bracket is interpolated
/// linearly in √(objective − minimum): exact when the profile is quadratic near it
/// (linear interpolation of the excess itself would put the end far too close).
fn interval_end(ev: &mut Evaluator<'_>, axis: usize, side: usize, share: usize, delta: f64) -> End {
    let dims = ev.evaluations[0].at.len();
    let trial_cost = 1 + 4 * (dims - 1);
    let start = ev.evaluations.len();
    let best = ev.evaluations[ev.best()].clone();
    let threshold = best.objective + delta;
    let end = if side == 0 { 0 } else { GRID };
    let open = End { centre_objective: best.objective, crossing: None, cut: false };
    if best.at[axis] == end {
        return open;
    }
    let Some((v_out, at_out)) = profile(ev, axis, end, &best.at, GRID / 8) else {
        return End { cut: true, ..open };
    };
    if v_out <= threshold {
        return open;
    }
    let (mut inside_u, mut inside_v, mut inside_at) = (best.at[axis], best.objective, best.at.clone());
    let (mut out_u, mut out_v, mut out_at) = (end, v_out, at_out);
    let mut cut = false;
    while inside_u.abs_diff(out_u) > GRID / 64 {
        if ev.evaluations.len() - start + trial_cost > share || ev.left() < trial_cost {
            cut = inside_u.abs_diff(out_u) > GRID / 16;
            break;
        }
        let mid = (inside_u + out_u) / 2;
        let warm: Vec<u32> = inside_at.iter().zip(&out_at).map(|(&a, &b)| (a + b) / 2).collect();
        let spread = inside_at.iter().zip(&out_at).map(|(&a, &b)| a.abs_diff(b)).max().unwrap_or(0);
        let Some((v, at)) = profile(ev, axis, mid, &warm, (spread / 4).max(GRID / 64)) else {
            cut = true;
            break;
        };
        if v <= threshold {
            (inside_u, inside_v, inside_at) = (mid, v, at);
        } else {
            (out_u, out_v, out_at) = (mid, v, at);
        }
    }
    let root = |v: f64| (v - best.objective).max(0.0).sqrt();
    let frac = if out_v.is_finite() && out_v > inside_v {
        ((delta.sqrt() - root(inside_v)) / (root(out_v) - root(inside_v))).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let x = f64::from(inside_u) + frac * (f64::from(out_u) - f64::from(inside_u));
    End { centre_objective: best.objective, crossing: Some(x), cut }
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

/// Evaluations a search of `dims` inputs keeps for the interval ends out of `budget`:
/// about 4 profile trials per end, each a line minimisation over every other input, at
/// most 55% of the budget (the search's unused evaluations go to the ends too).
pub fn interval_reserve(dims: usize, budget: usize) -> usize {
    (2 * dims * (2 + 4 * (1 + 4 * (dims - 1)))).min(budget * 11 / 20)
}

/// Finds the minimum of `f` over the box `[0, GRID]^dims` within `budget` evaluations (the
/// first design, then compass search), without intervals: the outcome's `intervals` is
/// empty. For a caller that changes its objective between searches (calibration's
/// reweighting) and answers the points it has seen from its own cache.
///
/// # Panics
/// When `dims` is 0 or the budget cannot hold the first design.
pub fn locate(dims: usize, budget: usize, f: &mut Objective<'_>, stop: &dyn Fn() -> bool) -> SearchResult {
    let mut ev = Evaluator { f, seen: HashMap::new(), evaluations: Vec::new(), budget, spent: false, stop };
    let (budget_cut_search, stopped) = search_minimum(&mut ev, dims, budget);
    // An objective that is spent cut the search like the end of the budget; it is no stop.
    let (budget_cut_search, stopped) = (budget_cut_search || ev.spent, stopped && !ev.spent);
    let best = if ev.evaluations.is_empty() { 0 } else { ev.best() };
    SearchResult {
        evaluations: ev.evaluations,
        best,
        intervals: Vec::new(),
        budget_cut_search,
        intervals_cut: false,
        stopped,
    }
}

/// The first design and the compass search on `ev`, the search using at most
/// `search_budget` evaluations in all. Returns (the budget cut the search before its
/// finest step, stopped or the objective spent).
fn search_minimum(ev: &mut Evaluator<'_>, dims: usize, search_budget: usize) -> (bool, bool) {
    assert!(dims > 0, "at least one input");
    let design = first_design(dims);
    assert!(ev.budget >= design.len(), "the budget holds the first design");
    let mut stopped = false;
    for p in &design {
        if ev.eval(p).is_none() {
            stopped = true;
            break;
        }
    }
    if ev.evaluations.is_empty() {
        return (false, stopped);
    }
    let search_budget = search_budget.max(ev.evaluations.len());
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
    (budget_cut_search, stopped)
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
    f: &mut Objective<'_>,
    stop: &dyn Fn() -> bool,
) -> SearchResult {
    let for_intervals = interval_reserve(dims, budget);
    let mut ev = Evaluator { f, seen: HashMap::new(), evaluations: Vec::new(), budget, spent: false, stop };
    let (budget_cut_search, stopped) = search_minimum(&mut ev, dims, budget.saturating_sub(for_intervals));
    // An objective that is spent cut the search like the end of the budget; it is no stop.
    let (budget_cut_search, stopped) = (budget_cut_search || ev.spent, stopped && !ev.spent);
    if ev.evaluations.is_empty() {
        return SearchResult {
            evaluations: Vec::new(),
            best: 0,
            intervals: Vec::new(),
            budget_cut_search: false,
            intervals_cut: false,
            stopped,
        };
    }
    // Interval ends, per input and side (`interval_end`). The budget left is shared among
    // the ends still to do. An end is found relative to the best point at the time; when a
    // later profile finds a better point (the search had not converged), the ends found
    // before it are found again from the new best, as long as the budget lasts; an end
    // left stale, or not bracketed to 1/16 of the range, is reported (`intervals_cut`).
    let ends = 2 * dims;
    let mut found: Vec<Option<End>> = vec![None; ends];
    let mut intervals_cut = false;
    let mut evaluated_before = usize::MAX;
    loop {
        let best_objective = ev.evaluations[ev.best()].objective;
        // Ends not found yet, found from an older best, or cut by their share (their
        // bisection goes on from the cached points, so a pass costs only new points).
        let todo: Vec<usize> = (0..ends)
            .filter(|&e| found[e].as_ref().is_none_or(|f| f.cut || f.centre_objective > best_objective))
            .collect();
        if todo.is_empty() || ev.left() == 0 || ev.evaluations.len() == evaluated_before || stopped || (ev.stop)() {
            intervals_cut |= !todo.is_empty();
            break;
        }
        evaluated_before = ev.evaluations.len();
        for (k, &e) in todo.iter().enumerate() {
            let share = ev.left() / (todo.len() - k);
            found[e] = Some(interval_end(&mut ev, e / 2, e % 2, share, delta));
        }
    }
    let mut crossings: Vec<[Option<f64>; 2]> = vec![[None, None]; dims];
    for (e, f) in found.iter().enumerate() {
        if let Some(f) = f {
            crossings[e / 2][e % 2] = f.crossing;
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
    SearchResult { evaluations: ev.evaluations, best, intervals, budget_cut_search, intervals_cut, stopped }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dims: usize, budget: usize, f: &mut dyn FnMut(&[u32]) -> f64) -> SearchResult {
        minimise(dims, budget, 3.841, &mut |p| Some(f(p)), &|| false)
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
    fn two_inputs_that_trade_off_get_the_profile_interval_not_the_conditional_one() {
        // f = ((x − y)/20)² + ((x + y − 1024)/400)²: a narrow valley along x = y. With
        // u = x − y, v = x + y − 1024, f = u²/400 + v²/160000, so x = 512 + (u + v)/2 has
        // profile variance (400 + 160000)/4 = 40100: the 95% profile interval is
        // 512 ± 1.96·200.2 = 119.5 to 904.5, both for x and for y. Holding y at its best
        // value instead gives 512 ± 1.96·19.98 = 473 to 551.
        let f = |p: &[u32]| {
            let (x, y) = (f64::from(p[0]), f64::from(p[1]));
            ((x - y) / 20.0).powi(2) + ((x + y - 1024.0) / 400.0).powi(2)
        };
        let o = run(2, 150, &mut |p| f(p));
        assert!(o.evaluations.len() <= 150);
        assert!(!o.intervals_cut, "the budget holds the interval ends");
        for (axis, iv) in o.intervals.iter().enumerate() {
            assert!(!iv.low_open && !iv.high_open, "axis {axis}: {iv:?}");
            assert!((iv.low - 119.5).abs() < 25.0 && (iv.high - 904.5).abs() < 25.0, "axis {axis}: {iv:?}");
        }
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
                Some(p.iter().map(|&v| f64::from(v)).sum())
            },
            &|| false,
        );
        assert!(calls <= 12 && o.evaluations.len() == calls);
        let o = minimise(1, 20, 3.841, &mut |p| Some(f64::from(p[0])), &|| true);
        assert!(o.stopped && o.evaluations.is_empty() && o.intervals.is_empty());
    }

    #[test]
    fn a_spent_objective_ends_the_search_like_its_budget_without_a_stop() {
        // The caller can pay for 12 points; the search was given room for 60.
        let mut paid = 0;
        let mut f = |p: &[u32]| {
            if paid == 12 {
                return None;
            }
            paid += 1;
            Some(((f64::from(p[0]) - 300.0) / 50.0).powi(2))
        };
        let o = minimise(1, 60, 3.841, &mut f, &|| false);
        assert_eq!(o.evaluations.len(), 12);
        assert!(!o.stopped && o.budget_cut_search, "{o:?}");
        // `locate` finds the same minimum as `minimise` and draws no interval.
        let o = locate(1, 30, &mut |p| Some(((f64::from(p[0]) - 300.0) / 50.0).powi(2)), &|| false);
        assert!(o.intervals.is_empty() && (f64::from(o.evaluations[o.best].at[0]) - 300.0).abs() <= 8.0, "{o:?}");
    }
}
