//! Recurring reservations and time-of-day limits (issue 22 item 3, docs/SCENARIOS.md
//! "Recurring reservations and time-of-day limits"): what the keys expand to, the errors
//! bad values get, and a property over random job lists on the pool (FCFS and EASY) and on
//! nodes: no job starts against the window in force or in a reservation, capacity is never
//! exceeded, and every job starts (a start the window blocks is opened by the next one).

use burstsim::engine::simulate;
use burstsim::job::Job;
use burstsim::scenario::Scenario;
use burstsim::workload::JobStream;
use rand::{RngExt, SeedableRng};

const H: u64 = 3600;
const DAY: u64 = 24 * H;

/// 2026-09-07 is a Monday; no warm-up, so clock 0 is Monday 00:00.
fn scenario(campus: &str, extra: &str) -> String {
    format!(
        "[simulation]\nstart_date = \"2026-09-07\"\nhorizon_days = 28\nwarmup_days = 0\nreplications = 1\n\
         [campus]\n{campus}\nvram_gb = 80\n{extra}\n\
         [background]\n[[background.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n"
    )
}

const KTH_LIMITS: &str = r#"
[[campus.time_limits]]
days = ["WEEKDAY"]
start = "07:00"
max_hours = 4
end_in_window = true
[[campus.time_limits]]
days = ["Mon", "Tue", "Wed", "Thu"]
start = "16:00"
max_hours = 15
end_in_window = true
[[campus.time_limits]]
days = ["Fri"]
start = "16:00"
max_hours = 60
end_in_window = true
"#;

fn load(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn refused(text: &str, says: &[&str]) {
    let e = match Scenario::from_toml_str(text, "test.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    };
    for s in says {
        assert!(e.contains(s), "expected {s:?} in:\n{e}");
    }
}

#[test]
fn a_weekday_reservation_of_the_whole_cluster_becomes_maintenance_windows() {
    let s = load(&scenario(
        "gpus = 8",
        "[[campus.reservations]]\nname = \"backup\"\nstart_time = \"2026-09-08T02:00\"\nduration_minutes = 90\nflags = \"WEEKDAY\"\n",
    ));
    let m = &s.campus.maintenance;
    // From Tuesday 8 September: Tue–Fri, then Mon–Fri of each following week.
    assert_eq!(m[0], (DAY + 2 * H, DAY + 2 * H + 90 * 60));
    assert_eq!(m[3], (4 * DAY + 2 * H, 4 * DAY + 2 * H + 90 * 60), "Friday");
    assert_eq!(m[4], (7 * DAY + 2 * H, 7 * DAY + 2 * H + 90 * 60), "Monday, the weekend skipped");
    assert!(m.windows(2).all(|w| w[0].1 < w[1].0), "sorted and disjoint");
    // WEEKLY recurs on the start's weekday; WEEKEND on Saturday and Sunday, which join.
    let s = load(&scenario(
        "gpus = 8",
        "[[campus.reservations]]\nstart_time = \"2026-09-09T00:00\"\nduration_minutes = 60\nflags = \"WEEKLY\"\n\
         [[campus.reservations]]\nstart_time = \"2026-09-12T00:00\"\nduration_minutes = 1440\nflags = \"WEEKEND\"\n",
    ));
    let m = &s.campus.maintenance;
    assert_eq!(m[..3], [(2 * DAY, 2 * DAY + H), (5 * DAY, 7 * DAY), (9 * DAY, 9 * DAY + H)]);
}

#[test]
fn a_reservation_of_some_nodes_becomes_windows_of_those_nodes_not_drains() {
    let s = load(&scenario(
        "placement = \"nodes\"\nnodes = 4\ngpus_per_node = 8",
        "[[campus.reservations]]\nstart_time = \"2026-09-07T22:00\"\nduration_minutes = 120\nflags = \"DAILY\"\nnodes = 2\n",
    ));
    let w = &s.campus.node_windows;
    assert_eq!(w.reserved(), [0, 1]);
    assert_eq!(w.of(0)[..2], [(22 * H, 24 * H), (DAY + 22 * H, DAY + 24 * H)]);
    assert_eq!(w.of(1), w.of(0));
    assert!(w.of(2).is_empty());
    assert!(s.campus.capacity.drains.is_empty() && s.campus.maintenance.is_empty());
}

#[test]
fn time_limits_follow_the_week() {
    let s = load(&scenario("gpus = 8", KTH_LIMITS));
    let t = &s.campus.time_limits;
    assert_eq!(t.longest_start(10 * H), Some(4 * H), "Monday 10:00");
    assert_eq!(t.longest_start(14 * H), Some(2 * H), "Monday 14:00: two hours to 16:00");
    assert_eq!(t.longest_start(16 * H), Some(15 * H), "Monday night");
    assert_eq!(t.longest_start(4 * DAY + 16 * H), Some(60 * H), "Friday 16:00");
    assert_eq!(t.earliest_start(0, 60 * H), 4 * DAY + 16 * H);
    assert!(!t.within_max(5 * DAY + 12 * H, 61 * H), "over every window");
}

#[test]
fn bad_recurring_keys_are_refused_with_the_key_and_what_is_allowed() {
    let res = |body: &str| scenario("gpus = 8", &format!("[[campus.reservations]]\n{body}"));
    refused(
        &res("start_time = \"2026-09-08T02:00\"\nduration_minutes = 60\nflags = \"HOURLY\"\n"),
        &["campus.reservations[0].flags", "'HOURLY' is not allowed", "DAILY, WEEKLY, WEEKDAY, WEEKEND"],
    );
    refused(
        &res("start_time = \"2026-09-08 02:00\"\nduration_minutes = 60\nflags = \"DAILY\"\n"),
        &["campus.reservations[0].start_time", "YYYY-MM-DDTHH:MM"],
    );
    // The right shape on a day that does not exist: said as the dates elsewhere say it.
    refused(
        &res("start_time = \"2026-02-30T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"\n"),
        &["campus.reservations[0].start_time", "'2026-02-30' is not a day of the calendar"],
    );
    refused(
        &res("start_time = \"0001-09-08T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"\n"),
        &["campus.reservations[0].start_time", "outside the years 1900 to 9999"],
    );
    refused(
        &res("start_time = \"2026-09-08T02:00\"\nduration_minutes = 1500\nflags = \"DAILY\"\n"),
        &["campus.reservations[0].duration_minutes", "at most 1440 minutes"],
    );
    refused(
        &res("start_time = \"2026-09-08T02:00\"\nduration_minutes = 60\nflags = \"DAILY\"\nnodes = 1\n"),
        &["campus.reservations[0].nodes", "placement = \"nodes\""],
    );
    refused(
        &res("start_time = \"2026-09-08T02:00\"\nduration_minutes = 60\nflag = \"DAILY\"\n"),
        &["unknown field `flag`"],
    );
    let lim = |body: &str| scenario("gpus = 8", &format!("[[campus.time_limits]]\n{body}"));
    refused(
        &lim("days = [\"Monday\"]\nstart = \"07:00\"\nmax_hours = 4\n"),
        &["campus.time_limits[0].days", "'Monday' is not allowed", "Mon, Tue"],
    );
    refused(&lim("days = [\"DAILY\"]\nstart = \"7:00\"\nmax_hours = 4\n"), &["campus.time_limits[0].start", "HH:MM"]);
    refused(&lim("days = [\"DAILY\"]\nstart = \"07:00\"\nmax_hours = 0\n"), &["campus.time_limits[0].max_hours"]);
    refused(
        &lim(
            "days = [\"WEEKDAY\"]\nstart = \"07:00\"\nmax_hours = 4\n[[campus.time_limits]]\ndays = [\"Fri\"]\nstart = \"07:00\"\nmax_hours = 5\n",
        ),
        &["campus.time_limits[1].start", "campus.time_limits[0] already opens a window on Fri at 07:00"],
    );
}

/// Random jobs (1–8 GPUs, 10 min – 70 h, requests up to 2× the run time but at most 60 h)
/// over two weeks on 16 GPUs, under the KTH limits and a daily reservation.
fn random_jobs(seed: u64) -> Vec<Job> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut t = 0;
    (0..120)
        .map(|_| {
            t += rng.random_range(0..4 * H);
            let runtime = rng.random_range(600..40 * H);
            let factor: f64 = rng.random_range(1.0..2.0);
            let factor = factor.min(60.0 * H as f64 / runtime as f64).max(1.0);
            Job { walltime_factor: factor, ..Job::plain(t, rng.random_range(1..=8), runtime, false) }
        })
        .collect()
}

#[test]
fn no_job_starts_against_its_window_and_every_job_starts() {
    // Wednesdays 03:00–03:30: a daily one would keep every job over 23.5 h out for ever.
    let reservation =
        "[[campus.reservations]]\nstart_time = \"2026-09-09T03:00\"\nduration_minutes = 30\nflags = \"WEEKLY\"\n";
    for campus in [
        "gpus = 16\nscheduler = \"fcfs\"",
        "gpus = 16\nscheduler = \"easy-backfill\"",
        "placement = \"nodes\"\nnodes = 2\ngpus_per_node = 8\nbf_interval_seconds = 60",
        "placement = \"nodes\"\nnodes = 2\ngpus_per_node = 8\nbf_interval_seconds = 60\nbf_planner = \"slurm\"",
    ] {
        let s = load(&scenario(campus, &format!("{KTH_LIMITS}{reservation}")));
        let limits = &s.campus.time_limits;
        for seed in 0..6 {
            let stream = JobStream::from_jobs(random_jobs(seed));
            let out = simulate(&s, &stream, 0, 0);
            let mut edges = Vec::new();
            for (r, j) in out.records.iter().zip(&stream.jobs) {
                let w = j.walltime_request(j.runtime, None);
                assert!(r.start != u64::MAX, "{campus}, seed {seed}: a job of {w} s never started (deadlock)");
                assert!(
                    limits.may_start(r.start, w),
                    "{campus}, seed {seed}: {w} s started at {} against the window",
                    r.start
                );
                let i = s.campus.maintenance.partition_point(|m| m.1 <= r.start);
                if let Some(&(a, _)) = s.campus.maintenance.get(i) {
                    assert!(
                        r.start + w <= a,
                        "{campus}, seed {seed}: a job at {} overlaps the reservation at {a}",
                        r.start
                    );
                }
                edges.push((r.start, j.gpus as i64));
                edges.push((r.end, -(j.gpus as i64)));
            }
            edges.sort();
            let mut busy = 0;
            for (_, g) in edges {
                busy += g;
                assert!(busy <= 16, "{campus}, seed {seed}: {busy} GPUs busy of 16");
            }
        }
    }
}

/// Slurm's `PartitionTimeLimit`: a job over the window's MaxTime is skipped, so even
/// strict FCFS starts the job behind it; at 16:00 the night window lets it start.
#[test]
fn a_job_over_the_windows_max_time_blocks_nobody_and_starts_when_a_window_allows_it() {
    let s = load(&scenario("gpus = 8\nscheduler = \"fcfs\"", KTH_LIMITS));
    let long = Job { walltime_factor: 1.0, ..Job::plain(10 * H, 1, 10 * H, false) }; // Monday 10:00
    let short = Job::plain(10 * H + 60, 1, H, false);
    let stream = JobStream::from_jobs(vec![long, short]);
    let out = simulate(&s, &stream, 0, 0);
    assert_eq!(out.records[0].start, 16 * H, "the 10-h job waits for the night window");
    assert_eq!(out.records[1].start, 10 * H + 60, "the 1-h job is not stuck behind it");
}

/// A forecast (`overflow-predicted`, `advise`) promises only a start the time-of-day
/// limits allow, on both cluster models: Monday 13:00 on an idle cluster, a 2-h job starts
/// now, a 4-h job (it would not end by 16:00) and a 10-h job (over the day's 4 h) at
/// 16:00, a 20-h job (over the nights' 15 h) on Friday at 16:00.
#[test]
fn a_forecast_gives_the_first_start_the_time_limits_allow() {
    use burstsim::cluster::{Cluster, QueuedJob, Request};
    for campus in [
        "gpus = 8\nscheduler = \"easy-backfill\"",
        "placement = \"nodes\"\nnodes = 1\ngpus_per_node = 8",
        "placement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nbf_planner = \"slurm\"",
    ] {
        let s = load(&scenario(campus, KTH_LIMITS));
        let c = Cluster::new(&s.campus, true);
        let forecast = |hours: u64| {
            let q = QueuedJob { job: 0, gpus: 1, walltime: hours * H, group: false };
            c.predict_start(13 * H, q, Request::default(), u64::MAX)
        };
        assert_eq!(forecast(2), 13 * H, "{campus}");
        assert_eq!(forecast(4), 16 * H, "{campus}");
        assert_eq!(forecast(10), 16 * H, "{campus}");
        assert_eq!(forecast(20), 4 * DAY + 16 * H, "{campus}");
    }
}

/// The node model's backfill plan places a job the limits keep waiting at the start they
/// allow, not now: a whole-node job submitted Monday 13:00 with a 4-h request is planned
/// at 16:00, so a 2-h whole-node job can be promised 13:00 (it ends by 16:00). Planned at
/// 13:00 (the limits ignored), it would push that forecast to 17:00.
#[test]
fn on_nodes_a_job_waiting_for_its_window_is_planned_at_the_windows_start() {
    use burstsim::cluster::{Cluster, QueuedJob, Request};
    for planner in ["exact", "slurm"] {
        let campus = format!("placement = \"nodes\"\nnodes = 1\ngpus_per_node = 8\nbf_planner = \"{planner}\"");
        let s = load(&scenario(&campus, KTH_LIMITS));
        let mut c = Cluster::new(&s.campus, true);
        let job = |job: u32, hours: u64| QueuedJob { job, gpus: 8, walltime: hours * H, group: false };
        c.enqueue(13 * H, job(0, 4), Request::default());
        let mut started = Vec::new();
        c.schedule(13 * H, &mut started);
        assert!(started.is_empty(), "{planner}: the 4-h job may not start at 13:00");
        assert_eq!(c.predict_start(13 * H, job(1, 2), Request::default(), u64::MAX), 13 * H, "{planner}");
        // 5 h is over the day's 4 h: the night, after the 4-h job's planned 16:00–20:00.
        assert_eq!(c.predict_start(13 * H, job(1, 5), Request::default(), u64::MAX), 20 * H, "{planner}");
    }
}
