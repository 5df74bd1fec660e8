//! The week's pattern of recurring reservations and time-of-day limits, and the longest
//! walltime request that can ever start in it (issue 45).
//!
//! [`crate::scenario::recurring`] expands reservations and limits onto the clock, up to
//! 400 days past the horizon; after that nothing holds a job back. A job whose request
//! fits no gap of the pattern would therefore wait until the expansion ends and be
//! reported as completed with a wait of some 10,000 hours. Validation and the engine ask
//! this module instead: the pattern repeats every week (every rule is DAILY, WEEKLY,
//! WEEKDAY, WEEKEND or a weekday), so the longest request that can start *at some time
//! of the week* is the longest that can ever start once the pattern is in force.
//!
//! A job with walltime request `w` may start at `t` when (as the schedulers enforce it):
//! the time-of-day limit in force at `t` allows `w` (its MaxTime, and with `end_in_window`
//! the time left in its window), no whole-cluster reservation is in progress at `t` or
//! begins before `t + w`, and enough of the job's candidate nodes are clear of their
//! own reservations over `[t, t + w)`. Each of the three bounds only shrinks as `t`
//! moves on between two events (a window ending, a limit window opening), so the longest
//! request over the week is reached at one of those events: [`WeekPattern::longest`]
//! tries each.
//!
//! Times are seconds after Monday 00:00 local (the scenario's wall time). The pattern
//! does not look at dates: a reservation counts as in force from the run's start even if
//! its first occurrence comes later (a job that arrives before it and could have started
//! then is still counted as one that never starts; docs/SCENARIOS.md says so).

use super::recurring::{DAY_NAMES, LimitRule};
use crate::units::{DAY, SimTime};

/// Seconds in a week.
pub const WEEK: SimTime = 7 * DAY;

/// Weeks unrolled around the week searched: one before (a window open at its start) and
/// two after (a gap found in the searched week may reach up to a week further, and a
/// window of up to a week may begin in it).
const UNROLLED: [SimTime; 4] = [0, 1, 2, 3];

/// One occurrence of a recurring reservation in the week.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeekWindow {
    /// When it begins, seconds after Monday 00:00 local (below [`WEEK`]).
    pub start: SimTime,
    /// How long it lasts, seconds (at most a week).
    pub len: SimTime,
    /// Which `[[campus.reservations]]` entry it comes from (index).
    pub reservation: usize,
}

/// The recurring reservations and time-of-day limits of a campus, as one week.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeekPattern {
    /// Occurrences of the whole-cluster reservations.
    pub whole: Vec<WeekWindow>,
    /// Per node index (numbered as [`super::recurring::NodeWindows`] numbers them): the
    /// occurrences of its reservations. Empty when no reservation names nodes.
    pub per_node: Vec<Vec<WeekWindow>>,
    /// The time-of-day limit rules, in the scenario's order.
    pub rules: Vec<LimitRule>,
    /// Per reservation, per rule: how messages name it (key, name and timing).
    pub reservation_names: Vec<String>,
    /// Per time-of-day rule, how messages name it.
    pub rule_names: Vec<String>,
}

/// What keeps longer requests from starting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A reservation (index into `[[campus.reservations]]`): its next occurrence begins.
    Reservation(usize),
    /// A time-of-day rule (index into `[[campus.time_limits]]`): its MaxTime, or the end
    /// of its window for a job that must end in it.
    Limit(usize),
}

/// The longest walltime request that can start at some time of the week, and what
/// bounds it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Longest {
    /// Seconds.
    pub request: SimTime,
    /// What keeps a longer one out.
    pub bound: Bound,
    /// When in the week such a request can start (seconds after Monday 00:00).
    pub at: SimTime,
}

/// Time from `t` until one of `windows` (unrolled over [`UNROLLED`] weeks) holds it, with
/// the reservation: 0 inside one; `None` when there are none.
fn clear_for(windows: &[WeekWindow], t: SimTime) -> Option<(SimTime, usize)> {
    let mut best: Option<(SimTime, usize)> = None;
    for w in windows {
        for k in UNROLLED {
            let s = w.start + k * WEEK;
            let d = if s <= t && t < s + w.len {
                0
            } else if s > t {
                s - t
            } else {
                continue;
            };
            if best.is_none_or(|b| d < b.0) {
                best = Some((d, w.reservation));
            }
        }
    }
    best
}

impl WeekPattern {
    /// Whether there are no reservations and no time-of-day limits.
    pub fn is_empty(&self) -> bool {
        self.whole.is_empty() && self.per_node.iter().all(Vec::is_empty) && self.rules.is_empty()
    }

    /// How the message names a bound ("campus.reservations\[0\] 'backup' (DAILY at 02:00
    /// for 60 min)").
    pub fn describe(&self, b: Bound) -> &str {
        match b {
            Bound::Reservation(i) => &self.reservation_names[i],
            Bound::Limit(i) => &self.rule_names[i],
        }
    }

    /// The opening times of the limit windows over the unrolled weeks, sorted, with the
    /// rule of each.
    fn openings(&self) -> Vec<(SimTime, usize)> {
        let mut v = Vec::new();
        for k in UNROLLED {
            for day in 0..7 {
                for (i, r) in self.rules.iter().enumerate() {
                    if r.days.has(day) {
                        v.push((k * WEEK + day as SimTime * DAY + SimTime::from(r.second_of_day), i));
                    }
                }
            }
        }
        v.sort_unstable();
        v
    }

    /// The longest request the limit window in force at `t` lets start there (`None`:
    /// unlimited), with its rule.
    fn limit_at(openings: &[(SimTime, usize)], rules: &[LimitRule], t: SimTime) -> Option<(SimTime, usize)> {
        let i = openings.partition_point(|o| o.0 <= t).checked_sub(1)?;
        let rule = &rules[openings[i].1];
        let to_end = openings.get(i + 1).filter(|_| rule.end_in_window).map(|o| o.0 - t);
        let longest = match (rule.max, to_end) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some((longest, openings[i].1))
    }

    /// The longest walltime request that can start at some time of the week on `need`
    /// of the nodes `candidates` (none for the pool, or for a job with no nodes to
    /// choose: `need` 0), or `None` when no window bounds it. See the module docs.
    pub fn longest(&self, candidates: &[u32], need: u32) -> Option<Longest> {
        let openings = self.openings();
        let node = |n: u32| self.per_node.get(n as usize).map_or(&[][..], Vec::as_slice);
        // Every time a bound can grow: a window ends, a limit window opens.
        let mut times: Vec<SimTime> = vec![0];
        let ends = |w: &WeekWindow| (w.start + w.len) % WEEK;
        times.extend(self.whole.iter().map(ends));
        times.extend(candidates.iter().flat_map(|&n| node(n).iter().map(ends)));
        times.extend(openings.iter().map(|o| o.0 % WEEK));
        times.sort_unstable();
        times.dedup();
        let mut best: Option<Longest> = None;
        let mut clear: Vec<Option<(SimTime, usize)>> = Vec::with_capacity(candidates.len());
        for t in times.into_iter().map(|t| t + WEEK) {
            // The bounds at t; None is no bound.
            let limit = Self::limit_at(&openings, &self.rules, t).map(|(l, i)| (l, Bound::Limit(i)));
            let whole = clear_for(&self.whole, t).map(|(d, r)| (d, Bound::Reservation(r)));
            let nodes = if need == 0 {
                None
            } else {
                clear.clear();
                clear.extend(candidates.iter().map(|&n| clear_for(node(n), t)));
                // The need-th longest clear time: None (unbounded) sorts first.
                clear.sort_unstable_by(|a, b| match (a, b) {
                    (None, None) => std::cmp::Ordering::Equal,
                    (None, _) => std::cmp::Ordering::Less,
                    (_, None) => std::cmp::Ordering::Greater,
                    (Some(x), Some(y)) => y.0.cmp(&x.0),
                });
                clear.get(need as usize - 1).copied().flatten().map(|(d, r)| (d, Bound::Reservation(r)))
            };
            let Some((request, bound)) = [limit, whole, nodes].into_iter().flatten().min_by_key(|b| b.0) else {
                return None; // unbounded at t: any request can start then
            };
            if best.is_none_or(|b| request > b.request) {
                best = Some(Longest { request, bound, at: t - WEEK });
            }
        }
        best
    }
}

/// `Mon 16:00` for a time of the week.
pub fn when(at: SimTime) -> String {
    let day = (at / DAY) as usize % 7;
    let s = at % DAY;
    format!("{} {:02}:{:02}", DAY_NAMES[day], s / 3600, s % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::recurring::Days;

    const H: SimTime = 3600;

    fn pattern(whole: &[(SimTime, SimTime)], rules: Vec<LimitRule>) -> WeekPattern {
        WeekPattern {
            whole: whole.iter().map(|&(start, len)| WeekWindow { start, len, reservation: 0 }).collect(),
            rule_names: rules.iter().map(|_| "rule".into()).collect(),
            rules,
            reservation_names: vec!["res".into()],
            per_node: Vec::new(),
        }
    }

    #[test]
    fn a_nightly_hour_leaves_23_hours_and_a_weekly_hour_167() {
        let daily: Vec<_> = (0..7).map(|d| (d * DAY + 2 * H, H)).collect();
        let l = pattern(&daily, vec![]).longest(&[], 0).unwrap();
        assert_eq!((l.request, l.bound, l.at), (23 * H, Bound::Reservation(0), 3 * H));
        let l = pattern(&[(2 * DAY, H)], vec![]).longest(&[], 0).unwrap();
        assert_eq!(l.request, WEEK - H, "the gap wraps round the week");
        assert_eq!(pattern(&[], vec![]).longest(&[], 0), None);
        // The whole week reserved: nothing starts.
        let all: Vec<_> = (0..7).map(|d| (d * DAY, DAY)).collect();
        assert_eq!(pattern(&all, vec![]).longest(&[], 0).unwrap().request, 0);
    }

    #[test]
    fn kth_limits_let_60_hours_start_on_friday_evening() {
        let rule = |days, h: SimTime, max: SimTime| LimitRule {
            days,
            second_of_day: (h * H) as u32,
            max: Some(max * H),
            end_in_window: true,
        };
        let kth = vec![rule(Days::WEEKDAY, 7, 4), rule(Days(0x0f), 16, 15), rule(Days::one(4), 16, 60)];
        let l = pattern(&[], kth.clone()).longest(&[], 0).unwrap();
        assert_eq!((l.request, l.bound, when(l.at)), (60 * H, Bound::Limit(2), "Fri 16:00".to_string()));
        // A Saturday backup at 02:00 cuts the weekend: from 03:00 to Monday 07:00 is left.
        let l = pattern(&[(5 * DAY + 2 * H, H)], kth.clone()).longest(&[], 0).unwrap();
        assert_eq!((l.request, l.bound, when(l.at)), (52 * H, Bound::Limit(2), "Sat 03:00".to_string()));
        // And one on Sunday at 02:00 too: Sunday 03:00 to Monday 07:00, 28 h.
        let l = pattern(&[(5 * DAY + 2 * H, H), (6 * DAY + 2 * H, H)], kth).longest(&[], 0).unwrap();
        assert_eq!((l.request, l.bound), (28 * H, Bound::Limit(2)));
        // Daily windows from 07:00 that jobs must end in, and a nightly backup at 02:00:
        // from 03:00 a job must end by 07:00; from 07:00 it has until 02:00, 19 h.
        let nightly: Vec<_> = (0..7).map(|d| (d * DAY + 2 * H, H)).collect();
        let l = pattern(&nightly, vec![rule(Days::DAILY, 7, 100)]).longest(&[], 0).unwrap();
        assert_eq!((l.request, l.bound, when(l.at)), (19 * H, Bound::Reservation(0), "Mon 07:00".to_string()));
    }

    #[test]
    fn nodes_count_only_as_many_as_the_job_needs() {
        let mut p = pattern(&[], vec![]);
        // Node 0 reserved nightly 22-24, node 1 weekly on Wednesday 09-17, node 2 free.
        p.per_node = vec![
            (0..7).map(|d| WeekWindow { start: d * DAY + 22 * H, len: 2 * H, reservation: 0 }).collect(),
            vec![WeekWindow { start: 2 * DAY + 9 * H, len: 8 * H, reservation: 1 }],
            vec![],
        ];
        p.reservation_names.push("res1".into());
        assert_eq!(p.longest(&[0, 1, 2], 1), None, "node 2 is never reserved");
        assert_eq!(p.longest(&[0, 1], 1).unwrap().request, WEEK - 8 * H, "node 1 has the longer gap");
        assert_eq!(p.longest(&[0, 1], 2).unwrap().request, 22 * H, "both: the nightly gap");
        assert_eq!(p.longest(&[0, 1, 2], 3).unwrap().request, 22 * H);
    }
}
