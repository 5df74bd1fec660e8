//! Validation accepts exactly the scenarios in which every job can start, given
//! recurring reservations and time-of-day limits (issue 45, item 2): random windows
//! (whole-cluster and per-node reservations of every flag, limit rules with and without
//! `end_in_window`) × random classes of fixed size, checked against a brute-force
//! search over a week of the expanded windows on the clock, minute by minute (every
//! window edge is on a whole minute). The search reads the windows as the schedulers
//! do (`TimeLimits::may_start`, the maintenance windows, `NodeWindows::blocks`), not
//! the week pattern validation uses.

use burstsim::scenario::Scenario;
use burstsim::scenario::recurring::runs_into;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

const MIN: u64 = 60;
const DAY: u64 = 24 * 60 * MIN;

#[derive(Clone, Debug)]
struct Res {
    flags: &'static str,
    day: u8,
    minute: u32,
    minutes: u32,
    nodes: Option<u32>,
}

#[derive(Clone, Debug)]
struct Rule {
    days: &'static str,
    hour: u32,
    max: Option<u32>,
    end_in_window: bool,
}

#[derive(Clone, Debug)]
struct Class {
    gpus: u32,
    hours: u32,
}

#[derive(Clone, Debug)]
struct Case {
    /// 0: the pool of 8 GPUs; else nodes of 4 GPUs.
    nodes: u32,
    reservations: Vec<Res>,
    rules: Vec<Rule>,
    background: Vec<Class>,
    group: Vec<Class>,
}

fn gen_res(nodes: u32) -> impl Strategy<Value = Res> {
    let flags = prop::sample::select(vec!["DAILY", "WEEKLY", "WEEKDAY", "WEEKEND"]);
    let some_nodes = if nodes == 0 { Just(None).boxed() } else { prop::option::of(1..=nodes).boxed() };
    (flags, 0u8..7, 0u32..48, prop::sample::select(vec![30u32, 60, 240, 720, 1380, 1440, 2880, 10_080]), some_nodes)
        .prop_map(|(flags, day, half_hour, minutes, nodes)| {
            let minutes = if flags == "WEEKLY" { minutes } else { minutes.min(1440) };
            Res { flags, day, minute: half_hour * 30, minutes, nodes }
        })
}

fn gen_rule() -> impl Strategy<Value = Rule> {
    (
        prop::sample::select(vec!["DAILY", "WEEKDAY", "WEEKEND", "Mon", "Fri", "Sat"]),
        0u32..8,
        prop::sample::select(vec![Some(1u32), Some(4), Some(15), Some(60), None]),
        any::<bool>(),
    )
        .prop_map(|(days, hour, max, end_in_window)| Rule { days, hour, max, end_in_window })
}

fn gen_class() -> impl Strategy<Value = Class> {
    (prop::sample::select(vec![1u32, 4, 8]), prop::sample::select(vec![1u32, 3, 10, 20, 23, 30, 50, 100, 170]))
        .prop_map(|(gpus, hours)| Class { gpus, hours })
}

fn gen_case() -> impl Strategy<Value = Case> {
    prop::sample::select(vec![0u32, 1, 2, 3]).prop_flat_map(|nodes| {
        (
            prop::collection::vec(gen_res(nodes), 0..=3),
            prop::collection::vec(gen_rule(), 0..=3),
            prop::collection::vec(gen_class(), 0..=1),
            prop::collection::vec(gen_class(), 1..=2),
        )
            .prop_map(move |(reservations, mut rules, background, group)| {
                // Distinct start hours (validation refuses two rules opening at once).
                for (i, r) in rules.iter_mut().enumerate() {
                    r.hour += 8 * i as u32;
                }
                Case { nodes, reservations, rules, background, group }
            })
    })
}

fn class_toml(table: &str, name: &str, c: &Class) -> String {
    format!(
        "\n[[{table}]]\nname = \"{name}\"\njobs_per_week = 5\ngpus = {}\nruntime_hours = {}\nwalltime_factor = 1\n",
        c.gpus, c.hours
    )
}

/// 2026-09-07 is a Monday; every reservation begins in the first week.
fn toml(c: &Case) -> String {
    let mut s = String::from(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 14\nwarmup_days = 0\nreplications = 1\n\n[campus]\n",
    );
    if c.nodes == 0 {
        s += "gpus = 8\nvram_gb = 80\n";
    } else {
        s += &format!("placement = \"nodes\"\nnodes = {}\ngpus_per_node = 4\nvram_gb = 80\n", c.nodes);
    }
    for r in &c.reservations {
        s += &format!(
            "\n[[campus.reservations]]\nstart_time = \"2026-09-{:02}T{:02}:{:02}\"\nduration_minutes = {}\nflags = \"{}\"\n",
            7 + r.day,
            r.minute / 60,
            r.minute % 60,
            r.minutes,
            r.flags
        );
        if let Some(n) = r.nodes {
            s += &format!("nodes = {n}\n");
        }
    }
    for r in &c.rules {
        s += &format!(
            "\n[[campus.time_limits]]\ndays = [\"{}\"]\nstart = \"{:02}:00\"\nmax_hours = {}\nend_in_window = {}\n",
            r.days,
            r.hour,
            r.max.map_or("inf".to_string(), |m| m.to_string()),
            r.end_in_window
        );
    }
    for (i, b) in c.background.iter().enumerate() {
        s += &class_toml("background.classes", &format!("b{i}"), b);
    }
    for (i, g) in c.group.iter().enumerate() {
        s += &class_toml("workload.classes", &format!("w{i}"), g);
    }
    s
}

/// The oracle: some minute of the second week (every reservation has begun) at which a
/// job of the class may start, by the windows as the schedulers read them.
fn can_start(s: &Scenario, nodes: u32, c: &Class) -> bool {
    let total = if nodes == 0 { 8 } else { nodes * 4 };
    if c.gpus > total {
        return false;
    }
    let w = u64::from(c.hours) * 3600;
    let need = if nodes == 0 { 0 } else { c.gpus.div_ceil(4) };
    let campus = &s.campus;
    (0..7 * DAY / MIN).map(|m| 7 * DAY + m * MIN).any(|t| {
        campus.time_limits.may_start(t, w)
            && !runs_into(&campus.maintenance, t, w)
            && (0..nodes).filter(|&n| !campus.node_windows.blocks(n, t, w)).count() as u32 >= need
    })
}

proptest! {
    #![proptest_config(Config {
        cases: 96,
        rng_seed: RngSeed::Fixed(0x4545),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    })]

    #[test]
    fn prop_validation_accepts_exactly_the_windows_in_which_every_job_can_start(case in gen_case()) {
        // The windows on the clock: the same campus with a class that an hourly offer
        // can always take (so validation accepts it whatever the windows).
        let mut bare = case.clone();
        bare.background.clear();
        bare.group = vec![Class { gpus: 1, hours: 1 }];
        let text = toml(&bare)
            + "\n[[cloud.offers]]\nname = \"h\"\ngpu_type = \"A100\"\nvram_gb = 80\nbilling = \"hourly\"\n\
               price_per_gpu_hour_cny = 10\n[[policies]]\nname = \"cloud\"\nkind = \"cloud-only\"\noffers = [\"h\"]\n";
        let clock = Scenario::from_toml_str(&text, "windows.toml").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // Each class alone, then all together.
        let mut cases: Vec<(Case, bool)> = Vec::new();
        for b in &case.background {
            let alone = Case { background: vec![b.clone()], group: vec![], ..case.clone() };
            cases.push((alone, can_start(&clock, case.nodes, b)));
        }
        for g in &case.group {
            let alone = Case { background: vec![], group: vec![g.clone()], ..case.clone() };
            cases.push((alone, can_start(&clock, case.nodes, g)));
        }
        let all = cases.iter().all(|c| c.1);
        cases.push((case.clone(), all));
        for (c, feasible) in &cases {
            let text = toml(c);
            match Scenario::from_toml_str(&text, "gen.toml") {
                Ok(_) => prop_assert!(feasible, "accepted, but some job can never start:\n{text}"),
                Err(e) => prop_assert!(!feasible, "refused, but every job can start: {e}\n{text}"),
            }
        }
    }
}

/// A week on the pool with a whole-cluster reservation; `class` is the group's class body.
fn with_reservation(reservation: &str, class: &str) -> String {
    format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 28\nwarmup_days = 0\nreplications = 1\n\n\
         [campus]\ngpus = 8\nvram_gb = 80\n\n[[campus.reservations]]\nname = \"backup\"\n{reservation}\n\n\
         [[workload.classes]]\nname = \"w\"\njobs_per_week = 40\ngpus = 1\nwalltime_factor = 1\n{class}\n"
    )
}

#[test]
fn windows_that_cover_all_time_are_refused_at_the_class_with_what_would_fit() {
    let all_day = "start_time = \"2026-09-07T00:00\"\nduration_minutes = 1440\nflags = \"DAILY\"";
    let e = Scenario::from_toml_str(&with_reservation(all_day, "runtime_hours = 1"), "t.toml").unwrap_err().to_string();
    for s in ["workload.classes[0].runtime_hours", "can never start", "campus.reservations[0] 'backup'", "no gap"] {
        assert!(e.contains(s), "{s:?} not in {e}");
    }
    // A nightly hour: 30 h never fits, and the message says what does (23 h).
    let nightly = "start_time = \"2026-09-07T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"";
    let e =
        Scenario::from_toml_str(&with_reservation(nightly, "runtime_hours = 30"), "t.toml").unwrap_err().to_string();
    assert!(e.contains("at least 30 h") && e.contains("is 23 h (from Mon 03:00)"), "{e}");
}

#[test]
fn jobs_longer_than_every_gap_never_start_and_are_counted_never_startable_not_completed() {
    use burstsim::engine::simulate;
    use burstsim::metric::Metric;
    use burstsim::output::warnings::{Warning, scenario_warnings};
    use burstsim::workload::JobStream;
    // docs/SCENARIOS.md's nightly backup; a third of the jobs ask 30 h.
    let nightly = "start_time = \"2026-09-07T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"";
    let text = with_reservation(nightly, "runtime_hours = { kind = \"choice\", values = [2, 30], weights = [2, 1] }");
    let s = Scenario::from_toml_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let w = scenario_warnings(&s);
    let share = w.iter().find_map(|w| match w {
        Warning::NeverStart { class, share, window, .. } if class == "w" && window.contains("backup") => Some(*share),
        _ => None,
    });
    let share = share.unwrap_or_else(|| panic!("no warning naming the class and the window: {w:?}"));
    assert!((share - 1.0 / 3.0).abs() < 0.02, "share {share}");
    let stream = JobStream::generate(&s, 0);
    let out = simulate(&s, &stream, 0, 0);
    let mut long = 0;
    for (r, j) in out.records.iter().zip(&stream.jobs) {
        if j.runtime > 23 * 3600 {
            long += 1;
            assert_eq!(r.start, u64::MAX, "a 30-h job started at {}", r.start);
        } else {
            assert!(r.end <= s.horizon + 2 * DAY, "a 2-h job ended at {} (horizon {})", r.end, s.horizon);
        }
    }
    assert!(long > 0);
    let m = &out.metrics.values;
    assert_eq!(m[Metric::JobsUnfinished.index()], f64::from(long));
    // Their own bucket: every one of them is counted as never startable (issue 45 item 1),
    // a column only a campus with windows writes.
    assert_eq!(m[Metric::JobsNeverStartable.index()], f64::from(long));
    assert!(Metric::JobsNeverStartable.written(&s));
    let plain = Scenario::from_toml_str(&std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap(), "tiny.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!Metric::JobsNeverStartable.written(&plain), "a campus without windows keeps its columns");
    assert_eq!(m[Metric::JobsCompleted.index()] + f64::from(long), m[Metric::JobsSubmitted.index()]);
    assert!(out.metrics.waits_h.iter().all(|&h| h < 24.0), "a wait of a never-started job counted");
}
