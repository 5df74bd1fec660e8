//! Recurring reservations and time-of-day limits (issue 22 item 3), as plain data on the
//! clock.
//!
//! - A **recurring reservation** is what `scontrol create reservation StartTime=…
//!   Duration=… Flags=DAILY|WEEKLY|WEEKDAY|WEEKEND` makes: the same window every day,
//!   every week on the start's weekday, Monday to Friday, or Saturday and Sunday. It is
//!   expanded here into `[start, end)` windows over the run ([`occurrences`]); the scenario
//!   puts whole-cluster ones into the maintenance windows, and those of named nodes into
//!   [`NodeWindows`]: per node, windows the schedulers know in advance, as Slurm knows a
//!   reservation. No job starts on a reserved node if its walltime request would run into
//!   one of the node's windows, and the backfill plans (both planners) and the wait
//!   forecasts plan every job around them. Running jobs are never stopped at a window's
//!   start (none can be there: each started clear of it). `[[campus.drains]]` stay drains
//!   (`scenario::capacity`): a drain has no foreknowledge.
//! - A **time-of-day limit** ([`TimeLimits`]) is a partition whose MaxTime depends on the
//!   time window, as sites set it with a cron job that runs `scontrol update
//!   PartitionName=… MaxTime=…` (KTH-SP2 before 6 June 1997: 4 h on weekdays 07–16, 15 h
//!   on weekday nights, 60 h at weekends). A rule opens a window at a time of day on some
//!   days, and the window lasts until the next rule's start. A job whose walltime request
//!   is over the MaxTime in force is not eligible (Slurm leaves it pending with reason
//!   `PartitionTimeLimit` and skips it, so it blocks nobody); with `end_in_window` a job
//!   must also end, by its request, before its window closes (KTH: no job ran across
//!   07:00 and 16:00 on weekdays), which blocks it like a maintenance window ahead.
//!
//! Times of day are local wall time. The caller maps a local instant to the clock
//! (`to_clock`): a scenario's clock is its own wall time; a replay of a log maps through
//! the log's time zone ([`eu_local_offset`] for central European time).

use crate::units::SimTime;

/// Day names, Monday first, as rules and errors spell them.
pub const DAY_NAMES: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A set of weekdays (bit 0 = Monday).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Days(pub u8);

impl Days {
    /// Every day (Slurm `Flags=DAILY`).
    pub const DAILY: Days = Days(0x7f);
    /// Monday to Friday (`Flags=WEEKDAY`).
    pub const WEEKDAY: Days = Days(0x1f);
    /// Saturday and Sunday (`Flags=WEEKEND`).
    pub const WEEKEND: Days = Days(0x60);

    /// Whether the set holds a Monday-based weekday (0 = Monday).
    pub fn has(self, weekday: usize) -> bool {
        weekday < 7 && self.0 & (1 << weekday) != 0
    }

    /// One day of the week (0 = Monday).
    pub fn one(weekday: usize) -> Days {
        Days(1 << (weekday % 7))
    }

    /// `DAILY`, `WEEKDAY`, `WEEKEND` (Slurm's flags) or a day name `Mon`…`Sun`, any case.
    pub fn parse_word(word: &str) -> Option<Days> {
        let w = word.trim();
        match w.to_ascii_uppercase().as_str() {
            "DAILY" => return Some(Days::DAILY),
            "WEEKDAY" | "WEEKDAYS" => return Some(Days::WEEKDAY),
            "WEEKEND" | "WEEKENDS" => return Some(Days::WEEKEND),
            _ => {}
        }
        DAY_NAMES.iter().position(|d| d.eq_ignore_ascii_case(w)).map(Days::one)
    }
}

/// Monday-based weekday (0 = Monday) of a day counted from 1970-01-01 (a Thursday).
pub fn weekday(days_since_epoch: i64) -> usize {
    (days_since_epoch + 3).rem_euclid(7) as usize
}

/// Parses `HH:MM` (or `HH:MM:SS`) into seconds after midnight; `None` if malformed.
pub fn parse_time_of_day(text: &str) -> Option<u32> {
    let parts: Vec<&str> = text.trim().split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n: Vec<u32> = parts.iter().map(|p| p.parse().expect("two digits")).collect();
    let s = n.get(2).copied().unwrap_or(0);
    (n[0] < 24 && n[1] < 60 && s < 60).then_some(n[0] * 3600 + n[1] * 60 + s)
}

/// The windows of a recurring reservation: from `first_day` (days since 1970-01-01,
/// local) for `days` days, on every day in `on`, at `second_of_day` local time, lasting
/// `duration` seconds; each mapped to the clock by `to_clock` (local seconds since
/// 1970-01-01 → clock seconds, possibly negative) and clipped at clock 0. Sorted; windows
/// of one reservation never overlap when `duration` is at most a day apart from the next.
pub fn occurrences(
    on: Days,
    first_day: i64,
    days: i64,
    second_of_day: u32,
    duration: SimTime,
    to_clock: impl Fn(i64) -> i64,
) -> Vec<(SimTime, SimTime)> {
    let mut v = Vec::new();
    for d in first_day..first_day + days {
        if !on.has(weekday(d)) {
            continue;
        }
        let start = to_clock(d * 86_400 + i64::from(second_of_day));
        let end = start + duration as i64;
        if end > 0 && end > start {
            v.push((start.max(0) as SimTime, end as SimTime));
        }
    }
    v
}

/// Merges windows into a sorted list of disjoint `[start, end)` windows (touching ones
/// join).
pub fn union(mut windows: Vec<(SimTime, SimTime)>) -> Vec<(SimTime, SimTime)> {
    windows.sort_unstable();
    let mut out: Vec<(SimTime, SimTime)> = Vec::with_capacity(windows.len());
    for (a, b) in windows {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The windows of a sorted, disjoint list that are not over at `t`: its tail from the
/// first window ending after `t` (every window query starts here, with a binary search).
pub fn not_over(windows: &[(SimTime, SimTime)], t: SimTime) -> &[(SimTime, SimTime)] {
    &windows[windows.partition_point(|&(_, end)| end <= t)..]
}

/// Whether a job with walltime request `w` starting at `from` runs into one of `windows`
/// (sorted, disjoint): one is in progress at `from`, or the next begins before `from + w`.
pub fn runs_into(windows: &[(SimTime, SimTime)], from: SimTime, w: SimTime) -> bool {
    not_over(windows, from).first().is_some_and(|&(start, _)| start <= from || from.saturating_add(w) > start)
}

/// Recurring reservations of named nodes (`[[campus.reservations]]` with `nodes` or
/// `node_group`), as the schedulers read them: per node, its windows `[start, end)`,
/// sorted and disjoint (the union of every reservation of the node). Empty (the default)
/// when no reservation names nodes: then no scheduler looks at it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeWindows {
    /// Per node index: its windows (empty for a node no reservation names). Empty when no
    /// node is reserved.
    per_node: Vec<Vec<(SimTime, SimTime)>>,
    /// The reserved nodes, ascending.
    reserved: Vec<u32>,
}

impl NodeWindows {
    /// Per-node windows for `nodes` nodes from `(node, windows)` pairs (a node may come
    /// several times: its windows are merged with [`union`]).
    pub fn new(nodes: u32, windows: impl IntoIterator<Item = (u32, Vec<(SimTime, SimTime)>)>) -> NodeWindows {
        let mut windows = windows.into_iter().filter(|w| !w.1.is_empty()).peekable();
        if windows.peek().is_none() {
            return NodeWindows::default(); // no per-node vector (the pool's "nodes" are its GPUs)
        }
        let mut per_node: Vec<Vec<(SimTime, SimTime)>> = vec![Vec::new(); nodes as usize];
        for (n, w) in windows {
            per_node[n as usize].extend(w);
        }
        let reserved: Vec<u32> = (0..nodes).filter(|&n| !per_node[n as usize].is_empty()).collect();
        for w in &mut per_node {
            *w = union(std::mem::take(w));
        }
        NodeWindows { per_node, reserved }
    }

    /// Whether no node is reserved.
    pub fn is_empty(&self) -> bool {
        self.reserved.is_empty()
    }

    /// The reserved nodes, ascending.
    pub fn reserved(&self) -> &[u32] {
        &self.reserved
    }

    /// A node's windows, sorted and disjoint (none for a node no reservation names).
    pub fn of(&self, node: u32) -> &[(SimTime, SimTime)] {
        self.per_node.get(node as usize).map_or(&[], Vec::as_slice)
    }

    /// Whether one of the node's windows overlaps `[from, from + w)`: a job with walltime
    /// request `w` may not start on it at `from` (a window in progress counts).
    pub fn blocks(&self, node: u32, from: SimTime, w: SimTime) -> bool {
        runs_into(self.of(node), from, w)
    }

    /// The end of the first window of any reserved node that ends after `t` (Slurm's
    /// `find_resv_end`), if any.
    pub fn first_end_after(&self, t: SimTime) -> Option<SimTime> {
        self.reserved.iter().filter_map(|&n| not_over(self.of(n), t).first().map(|w| w.1)).min()
    }

    /// Every window's end, sorted and without repeats (a blocked start may become
    /// possible then: the schedulers must look again).
    pub fn ends(&self) -> Vec<SimTime> {
        let mut v: Vec<SimTime> = self.per_node.iter().flatten().map(|w| w.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// One rule of a weekly schedule of limits: from `second_of_day` on each day in `days`,
/// the MaxTime is `max` (`None`: no limit) until the next rule's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitRule {
    /// The days the window opens on.
    pub days: Days,
    /// When it opens, seconds after local midnight.
    pub second_of_day: u32,
    /// MaxTime while it is open; `None`: unlimited.
    pub max: Option<SimTime>,
    /// A job started in the window must end (by its request) before the window closes.
    pub end_in_window: bool,
}

/// A window of constant limits on the clock, `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitWindow {
    /// First second.
    pub start: SimTime,
    /// First second after it.
    pub end: SimTime,
    /// MaxTime in force; `None`: unlimited.
    pub max: Option<SimTime>,
    /// Jobs started in it must end by `end`.
    pub end_in_window: bool,
}

/// Time-of-day limits over the clock: contiguous windows, sorted; empty means no limit
/// (the default). Outside the windows there is no limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeLimits {
    windows: Vec<LimitWindow>,
}

impl TimeLimits {
    /// The windows of `rules` from `first_day` (days since 1970-01-01, local) for `days`
    /// days, mapped to the clock by `to_clock` (as [`occurrences`]). The week before
    /// `first_day` is expanded too, so the window open at the first day's midnight is
    /// known. No rules: no limits.
    pub fn expand(rules: &[LimitRule], first_day: i64, days: i64, to_clock: impl Fn(i64) -> i64) -> TimeLimits {
        let mut opens: Vec<(i64, usize)> = Vec::new();
        for d in first_day - 7..first_day + days {
            for (i, r) in rules.iter().enumerate() {
                if r.days.has(weekday(d)) {
                    opens.push((to_clock(d * 86_400 + i64::from(r.second_of_day)), i));
                }
            }
        }
        opens.sort_unstable();
        let windows = opens
            .windows(2)
            .filter(|w| w[1].0 > 0 && w[1].0 > w[0].0)
            .map(|w| {
                let r = &rules[w[0].1];
                LimitWindow {
                    start: w[0].0.max(0) as SimTime,
                    end: w[1].0 as SimTime,
                    max: r.max,
                    end_in_window: r.end_in_window,
                }
            })
            .collect();
        TimeLimits { windows }
    }

    /// Whether there are no limits at all.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// The windows, sorted.
    pub fn windows(&self) -> &[LimitWindow] {
        &self.windows
    }

    /// The window open at `t`.
    pub fn at(&self, t: SimTime) -> Option<&LimitWindow> {
        let i = self.windows.partition_point(|w| w.end <= t);
        self.windows.get(i).filter(|w| w.start <= t)
    }

    /// Whether a walltime request is within the MaxTime in force at `t` (else the job is
    /// not eligible now: it waits for a window that allows it, blocking nobody).
    pub fn within_max(&self, t: SimTime, walltime: SimTime) -> bool {
        self.at(t).and_then(|w| w.max).is_none_or(|m| walltime <= m)
    }

    /// The longest walltime request that may start at `t`: the MaxTime in force, and the
    /// time to the window's end where jobs must end in it. `None`: unlimited.
    pub fn longest_start(&self, t: SimTime) -> Option<SimTime> {
        let w = self.at(t)?;
        let to_end = w.end_in_window.then(|| w.end - t);
        match (w.max, to_end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether a job with this walltime request may start at `t`.
    pub fn may_start(&self, t: SimTime, walltime: SimTime) -> bool {
        self.longest_start(t).is_none_or(|l| walltime <= l)
    }

    /// Whether an eligible job (within the MaxTime) is kept from starting at `t` only by
    /// having to end in its window: the rule that blocks like maintenance ahead.
    pub fn blocks_eligible(&self, t: SimTime, walltime: SimTime) -> bool {
        self.within_max(t, walltime) && !self.may_start(t, walltime)
    }

    /// The earliest time at or after `from` when a job with this walltime request may
    /// start (after the last window there is no limit).
    pub fn earliest_start(&self, from: SimTime, walltime: SimTime) -> SimTime {
        let mut i = self.windows.partition_point(|w| w.end <= from);
        while let Some(w) = self.windows.get(i) {
            let t = from.max(w.start);
            if w.max.is_none_or(|m| walltime <= m) && (!w.end_in_window || t.saturating_add(walltime) <= w.end) {
                return t;
            }
            i += 1;
        }
        self.windows.last().map_or(from, |w| from.max(w.end))
    }

    /// Every time a window opens, after clock 0 (the schedulers must look again then: a
    /// job the last window kept waiting may start).
    pub fn boundaries(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.windows.iter().map(|w| w.start).filter(|&s| s > 0).chain(self.windows.last().map(|w| w.end))
    }
}

/// Seconds to add to UTC for central European time with EU daylight saving (CET, UTC+1;
/// CEST, UTC+2 from the last Sunday of March 01:00 UTC to the last Sunday of October
/// 01:00 UTC, the rule since 1996), at `utc` seconds since 1970-01-01.
pub fn eu_local_offset(utc: i64) -> i64 {
    let year = crate::date::Date::from_days(utc.div_euclid(86_400)).year();
    let last_sunday_0100 = |month: u8| {
        let d31 = crate::date::Date::new(year, month, 31).expect("March and October have 31 days").to_days();
        let back = (weekday(d31) + 1) % 7; // days back from the 31st to a Sunday (weekday 6)
        (d31 - back as i64) * 86_400 + 3_600
    };
    if (last_sunday_0100(3)..last_sunday_0100(10)).contains(&utc) { 7_200 } else { 3_600 }
}

/// The UTC instant of a central European local wall time (seconds since 1970-01-01 as if
/// local were UTC). In the hour that repeats in October the first (summer) one is taken;
/// a time in the hour skipped in March maps one hour on.
pub fn eu_local_to_utc(local: i64) -> i64 {
    let summer = local - 7_200;
    if eu_local_offset(summer) == 7_200 { summer } else { local - 3_600 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date::Date;

    const H: SimTime = 3_600;

    fn day(y: i32, m: u8, d: u8) -> i64 {
        Date::new(y, m, d).unwrap().to_days()
    }

    /// KTH-SP2's documented rules before 6 June 1997.
    pub(crate) fn kth_rules() -> Vec<LimitRule> {
        let rule = |days, h: u32, max: SimTime| LimitRule {
            days,
            second_of_day: h * 3600,
            max: Some(max * H),
            end_in_window: true,
        };
        vec![rule(Days::WEEKDAY, 7, 4), rule(Days(0x0f), 16, 15), rule(Days::one(4), 16, 60)]
    }

    #[test]
    fn days_and_times_parse_as_slurm_and_the_docs_spell_them() {
        assert_eq!(Days::parse_word("WEEKDAY"), Some(Days(0x1f)));
        assert_eq!(Days::parse_word("weekend"), Some(Days(0x60)));
        assert_eq!(Days::parse_word("fri"), Some(Days(0x10)));
        assert_eq!(Days::parse_word("Friday"), None);
        assert_eq!(parse_time_of_day("07:00"), Some(7 * 3600));
        assert_eq!(parse_time_of_day("23:59:30"), Some(86_370));
        for bad in ["7:00", "24:00", "07:60", "07", "aa:bb"] {
            assert_eq!(parse_time_of_day(bad), None, "{bad}");
        }
        // 1970-01-01 was a Thursday; 2026-01-05 a Monday.
        assert_eq!(weekday(0), 3);
        assert_eq!(weekday(day(2026, 1, 5)), 0);
    }

    #[test]
    fn a_weekday_reservation_recurs_monday_to_friday() {
        // Clock 0 = Monday 2026-01-05 00:00; 02:00 for 60 min, two weeks.
        let first = day(2026, 1, 5);
        let w = occurrences(Days::WEEKDAY, first, 14, 2 * 3600, H, |l| l - first * 86_400);
        assert_eq!(w.len(), 10);
        assert_eq!(w[0], (2 * H, 3 * H));
        assert_eq!(w[4], (4 * 24 * H + 2 * H, 4 * 24 * H + 3 * H), "Friday");
        assert_eq!(w[5], (7 * 24 * H + 2 * H, 7 * 24 * H + 3 * H), "next Monday, not Saturday");
        let weekend = occurrences(Days::WEEKEND, first, 7, 0, 24 * H, |l| l - first * 86_400);
        assert_eq!(union(weekend), [(5 * 24 * H, 7 * 24 * H)], "Saturday and Sunday join into one window");
    }

    #[test]
    fn node_windows_merge_per_node_and_block_a_start_that_would_run_into_one() {
        let w = NodeWindows::new(3, [(2, vec![(10, 20), (40, 50)]), (0, vec![(15, 30)]), (2, vec![(18, 25)])]);
        assert_eq!(w.reserved(), [0, 2]);
        assert_eq!(w.of(2), [(10, 25), (40, 50)], "two reservations of one node join");
        assert!(w.of(1).is_empty() && !w.blocks(1, 0, 1000));
        assert!(!w.blocks(2, 0, 10), "ends as the window begins");
        assert!(w.blocks(2, 0, 11) && w.blocks(2, 24, 1), "runs into it; inside it");
        assert!(!w.blocks(2, 25, 15) && w.blocks(2, 25, 16));
        assert_eq!(w.first_end_after(0), Some(25));
        assert_eq!(w.first_end_after(30), Some(50));
        assert_eq!(w.first_end_after(50), None);
        assert_eq!(w.ends(), [25, 30, 50]);
        assert!(NodeWindows::new(1_000_000, [(0, vec![])]).is_empty());
    }

    #[test]
    fn kth_limits_by_hand() {
        // Clock 0 = Monday 2026-01-05 00:00 (no time zone).
        let first = day(2026, 1, 5);
        let tl = TimeLimits::expand(&kth_rules(), first, 14, |l| l - first * 86_400);
        let at = |d: SimTime, h: SimTime| d * 24 * H + h * H;
        // Monday 03:00 is the weekend window (Fri 16:00 – Mon 07:00): 60 h, ends at 07:00.
        assert_eq!(tl.at(at(0, 3)).unwrap().max, Some(60 * H));
        assert_eq!(tl.longest_start(at(0, 3)), Some(4 * H));
        // Monday 10:00: 4 h and the window closes at 16:00.
        assert_eq!(tl.longest_start(at(0, 10)), Some(4 * H));
        assert_eq!(tl.longest_start(at(0, 14)), Some(2 * H));
        assert!(tl.may_start(at(0, 12), 4 * H));
        assert!(!tl.may_start(at(0, 12) + 1, 4 * H));
        assert!(tl.blocks_eligible(at(0, 13), 4 * H), "4 h at 13:00 is within MaxTime but crosses 16:00");
        assert!(!tl.within_max(at(0, 13), 5 * H), "5 h is over the day's MaxTime: not eligible");
        // Monday night 16:00 – Tuesday 07:00: 15 h, exactly the window.
        assert_eq!(tl.longest_start(at(0, 16)), Some(15 * H));
        assert_eq!(tl.earliest_start(at(0, 10), 15 * H), at(0, 16));
        assert_eq!(tl.earliest_start(at(0, 17), 15 * H), at(1, 16), "missed Monday 16:00: Tuesday's");
        // A 60-h job starts only at Friday 16:00 to 19:00.
        assert_eq!(tl.earliest_start(at(0, 10), 60 * H), at(4, 16));
        assert_eq!(tl.earliest_start(at(4, 19), 60 * H), at(4, 19));
        assert_eq!(tl.earliest_start(at(4, 19) + 1, 60 * H), at(11, 16), "next Friday");
        assert!(tl.boundaries().take(3).eq([at(0, 7), at(0, 16), at(1, 7)]));
    }

    #[test]
    fn european_summer_time_starts_and_ends_on_the_last_sundays() {
        // 1997: 30 March and 26 October, at 01:00 UTC.
        let mar = day(1997, 3, 30) * 86_400 + 3_600;
        let oct = day(1997, 10, 26) * 86_400 + 3_600;
        assert_eq!(eu_local_offset(mar - 1), 3_600);
        assert_eq!(eu_local_offset(mar), 7_200);
        assert_eq!(eu_local_offset(oct - 1), 7_200);
        assert_eq!(eu_local_offset(oct), 3_600);
        // 1996: 27 October. KTH-SP2's UnixStartTime 843480031 is 14:00:31 CEST.
        assert_eq!(eu_local_offset(day(1996, 10, 27) * 86_400 + 3_599), 7_200);
        assert_eq!((843_480_031 + eu_local_offset(843_480_031)) % 86_400, 14 * 3600 + 31);
        // 07:00 local in winter is 06:00 UTC, in summer 05:00 UTC.
        let jan = day(1997, 1, 6) * 86_400;
        assert_eq!(eu_local_to_utc(jan + 7 * 3600), jan + 6 * 3600);
        let jun = day(1997, 6, 2) * 86_400;
        assert_eq!(eu_local_to_utc(jun + 7 * 3600), jun + 5 * 3600);
    }
}
