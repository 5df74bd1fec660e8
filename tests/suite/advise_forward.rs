//! `burstsim advise`'s forward simulation and choices (issue 23; `burstsim::advise`) on
//! snapshots written here: properties that hold whatever the random draws are (an idle
//! campus starts the job at once; a full campus whose jobs all hit their limit in 10
//! minutes starts it within 10 minutes and not before the first end; more jobs ahead
//! never start it sooner; "wait T then rent" with T beyond every start is waiting), the
//! costs of renting against the cloud module's own plan, determinism across thread
//! counts, and the CLI's refusals of bad requests.

use burstsim::advise::{AdviseError, ChoiceKind, Options, Probe, advise};
use burstsim::job::JobKind;
use burstsim::scenario::Scenario;
use burstsim::trace::snapshot::{Snapshot, read_bytes};

const TAKEN: i64 = 1_764_687_600;

/// 4 nodes × 8 GPUs, FIFO, EASY backfill, a light background and one hourly offer.
fn scenario(load: f64) -> Scenario {
    let text = format!(
        r#"
name = "advise-test"
[simulation]
start_date = "2025-12-01"
horizon_days = 1
warmup_days = 0
replications = 2
seed = 7
[campus]
placement = "nodes"
nodes = 4
gpus_per_node = 8
vram_gb = 80
scheduler = "easy-backfill"
priority = "fifo"
price_per_gpu_hour_cny = 2.0
[background]
offered_load = {load}
[[background.classes]]
name = "mixed"
gpus = {{ kind = "choice", values = [1, 2, 4, 8], weights = [0.4, 0.25, 0.2, 0.15] }}
runtime_hours = {{ kind = "lognormal", mean = 0.5, cv = 1.0 }}
walltime_factor = {{ kind = "uniform", low = 1.2, high = 3.0 }}
[[cloud.offers]]
name = "rent"
gpu_type = "A800"
vram_gb = 80
billing = "hourly"
price_per_gpu_hour_cny = 5.0
granularity = "second"
startup_delay_minutes = {{ kind = "uniform", low = 2, high = 8 }}
[[policies]]
name = "campus-only"
kind = "campus-only"
"#
    );
    Scenario::from_toml_str(&text, "advise-test.toml").unwrap()
}

const NODES: &str =
    "n1|idle|8|gpu:8|campus*\nn2|idle|8|gpu:8|campus*\nn3|idle|8|gpu:8|campus*\nn4|idle|8|gpu:8|campus*\n";

fn snapshot(queue_lines: &str) -> Snapshot {
    let queue = format!("# taken_at {TAKEN}\n{queue_lines}");
    read_bytes(("squeue", queue.as_bytes()), ("sinfo", NODES.as_bytes()), None).unwrap()
}

/// A running job of `gpus` GPUs on one node that has run `elapsed` of its `limit` (minutes).
fn running(id: u32, gpus: u32, elapsed_min: i64, limit_min: i64) -> String {
    let start = TAKEN - elapsed_min * 60;
    format!("{id}|RUNNING|campus|others|u|1|{start}|{start}|{limit_min}|{elapsed_min}:00|1|gres:gpu:{gpus}\n")
}

fn pending(id: u32, gpus: u32, limit_min: i64) -> String {
    format!("{id}|PENDING|campus|others|u|1|{}|N/A|{limit_min}|0:00|1|gres:gpu:{gpus}\n", TAKEN - 60)
}

fn probe(gpus: u32, runtime_s: i64) -> Probe {
    Probe {
        gpus,
        nodes: None,
        walltime_s: 2 * runtime_s,
        runtime_s,
        partition: "campus".into(),
        account: None,
        priority: None,
        job_id: None,
        kind: JobKind::Transformer,
        data_gb: 0.0,
    }
}

fn options(replications: u32) -> Options {
    Options { replications, seed: 3, ..Options::default() }
}

#[test]
fn an_idle_campus_starts_the_job_at_once() {
    let adv = advise(&snapshot(""), &scenario(0.5), &probe(8, 3600), &options(20), TAKEN).unwrap();
    assert_eq!(adv.start.started, 20);
    assert_eq!(adv.start.p90_s, Some(0.0), "{:?}", adv.start);
    assert!(adv.start.within.iter().all(|w| w.p == 1.0));
    assert!(adv.warnings.is_empty(), "{:?}", adv.warnings);
}

#[test]
fn a_full_campus_whose_jobs_end_within_ten_minutes_starts_the_job_within_ten_minutes() {
    // Every GPU busy; each job has run 20 min of a 30 min limit, so all end by +10 min.
    let q: String = (1..=4).map(|i| running(i, 8, 20, 30)).collect();
    let adv = advise(&snapshot(&q), &scenario(0.9), &probe(8, 600), &options(40), TAKEN).unwrap();
    assert_eq!(adv.start.started, 40);
    let (p10, p90) = (adv.start.p10_s.unwrap(), adv.start.p90_s.unwrap());
    assert!(p10 > 0.0, "no GPU is free at the snapshot, yet the job started at once: {:?}", adv.start);
    assert!(p90 <= 600.0, "every running job hits its limit within 600 s: {:?}", adv.start);
    assert_eq!(adv.campus.running, 4);
}

#[test]
fn more_jobs_ahead_never_start_the_job_sooner() {
    let q: String = (1..=4).map(|i| running(i, 8, 5, 120)).collect();
    let ahead: String = (10..16).map(|i| pending(i, 8, 60)).collect();
    let scn = scenario(0.5);
    let alone = advise(&snapshot(&q), &scn, &probe(8, 1800), &options(40), TAKEN).unwrap();
    let behind = advise(&snapshot(&(q.clone() + &ahead)), &scn, &probe(8, 1800), &options(40), TAKEN).unwrap();
    assert_eq!(behind.campus.ahead, 6);
    let (a, b) = (alone.start.median_s.unwrap(), behind.start.median_s.unwrap());
    assert!(b > a, "six 8-GPU jobs ahead must delay the median start: {a} s alone, {b} s behind them");
    // A priority above every pending job's puts it at the head again.
    let first = Probe { priority: Some(2), ..probe(8, 1800) };
    let head = advise(&snapshot(&(q + &ahead)), &scn, &first, &options(40), TAKEN).unwrap();
    assert_eq!(head.campus.ahead, 0);
    assert!(head.start.median_s.unwrap() < b);
}

#[test]
fn the_choices_are_waiting_renting_and_waiting_then_renting_costed_consistently() {
    let q: String = (1..=4).map(|i| running(i, 8, 5, 600)).collect();
    let o = Options { waits_h: vec![0.5, 1000.0], deadline_s: Some(48 * 3600), ..options(30) };
    let adv = advise(&snapshot(&q), &scenario(0.5), &probe(4, 7200), &o, TAKEN).unwrap();
    let kinds: Vec<&ChoiceKind> = adv.choices.iter().map(|c| &c.kind).collect();
    assert!(matches!(kinds[0], ChoiceKind::Campus));
    assert!(matches!(kinds[1], ChoiceKind::RentNow { .. }));
    let (campus, now, soon, never) = (&adv.choices[0], &adv.choices[1], &adv.choices[2], &adv.choices[3]);
    // The campus bill: 4 GPUs × 2 h × 2 CNY.
    assert!((campus.cost_cny - 16.0).abs() < 1e-9, "{}", campus.cost_cny);
    assert_eq!(campus.rented, 0.0);
    // Renting now: 4 GPUs × 2 h × 5 CNY, billed per second, after a 2–8 min start-up.
    assert_eq!(now.rented, 1.0);
    assert!((now.cost_cny - 40.0).abs() < 0.5, "{}", now.cost_cny);
    let f = now.finish_s.unwrap();
    assert!((7200.0 + 120.0..=7200.0 + 480.0 + 1.0).contains(&f), "{f}");
    // Waiting 1000 h always sees the campus start first: it is waiting.
    assert_eq!(never.rented, 0.0);
    assert_eq!(never.cost_cny, campus.cost_cny);
    assert_eq!(never.finish_s, campus.finish_s);
    // Waiting half an hour rents exactly when the campus has not started by then.
    let late = adv.choices[0].finish_s.is_some();
    assert!(late);
    assert!(soon.rented > 0.0 && soon.rented <= 1.0);
    // The cheapest meeting a 48 h deadline is the campus (every choice makes it).
    assert_eq!(adv.recommended, Some(0));
}

#[test]
fn the_advice_does_not_depend_on_the_number_of_threads() {
    let q: String = (1..=3).map(|i| running(i, 8, 10, 90)).collect::<String>() + &pending(20, 8, 60);
    let snap = snapshot(&q);
    let scn = scenario(0.85);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let adv = pool.install(|| advise(&snap, &scn, &probe(4, 1800), &options(24), TAKEN).unwrap());
        serde_json::to_string(&adv).unwrap()
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn an_already_submitted_job_takes_its_size_and_place_from_the_snapshot_and_shows_slurms_estimate() {
    let q = running(1, 8, 10, 90)
        + &format!("30|PENDING|campus|others|u|1|{}|{}|60|0:00|1|gres:gpu:8\n", TAKEN - 60, TAKEN + 4800);
    let p = Probe { job_id: Some("30".into()), ..probe(8, 1800) };
    let adv = advise(&snapshot(&q), &scenario(0.5), &p, &options(10), TAKEN).unwrap();
    assert_eq!(adv.slurm_estimate_s, Some(4800));
    assert_eq!(adv.campus.pending, 0, "the job itself is not one of the others");
    let missing = Probe { job_id: Some("31".into()), ..probe(8, 1800) };
    let e = advise(&snapshot(&q), &scenario(0.5), &missing, &options(10), TAKEN).unwrap_err();
    assert!(e.to_string().contains("job 31 is not pending"), "{e}");
}

#[test]
fn bad_requests_are_refused_with_what_is_wrong() {
    let snap = snapshot("");
    let scn = scenario(0.5);
    let refuse = |p: Probe| advise(&snap, &scn, &p, &options(2), TAKEN).unwrap_err().to_string();
    assert!(
        refuse(Probe { partition: "gpu".into(), ..probe(1, 60) }).contains("partition 'gpu' is not in the snapshot")
    );
    assert!(refuse(probe(64, 60)).contains("does not fit on partition 'campus'"));
    assert!(refuse(Probe { runtime_s: 7200, walltime_s: 3600, ..probe(1, 60) }).contains("at most the time limit"));
    assert!(refuse(probe(0, 60)).contains("0 GPUs"));
    assert!(refuse(Probe { account: Some("nobody".into()), ..probe(1, 60) }).contains("account 'nobody' is not known"));
    let bad_offer = Options { offer: Some("none".into()), ..options(2) };
    let e = advise(&snap, &scn, &probe(1, 60), &bad_offer, TAKEN).unwrap_err();
    assert!(matches!(e, AdviseError::UnknownOffer { .. }), "{e}");
}

#[test]
fn a_stale_snapshot_is_advised_on_with_a_warning() {
    let adv = advise(&snapshot(""), &scenario(0.5), &probe(1, 60), &options(2), TAKEN + 3600).unwrap();
    assert!(adv.warnings.iter().any(|w| w.to_string().contains("60 min old")), "{:?}", adv.warnings);
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_burstsim")).arg("advise").args(args).output().unwrap()
}

const FIX: &str = "tests/fixtures/snapshot";

#[test]
fn the_command_answers_in_a_table_in_json_and_in_chinese() {
    let (q, n) = (format!("{FIX}/squeue.txt"), format!("{FIX}/sinfo.txt"));
    let base =
        ["--squeue", &q, "--sinfo", &n, "--gpus", "4", "--walltime", "1-00:00:00", "--runtime", "10h", "-n", "8"];
    let json = cli(&[&base[..], &["--partition", "gpu", "--json", "--deadline", "36h"]].concat());
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["start"]["replications"], 8);
    assert!(v["start"]["median_s"].as_f64().is_some(), "{v}");
    assert_eq!(v["choices"][0]["kind"], "campus");
    let zh = cli(&[&base[..], &["--partition", "gpu", "--lang", "zh"]].concat());
    let text = String::from_utf8(zh.stdout).unwrap();
    assert!(text.contains("在校内集群开始运行的时间") && text.contains("等待校内集群"), "{text}");
    assert!(text.contains("警告"), "the fixture is stale: {text}");
}

#[test]
fn the_command_refuses_bad_input_naming_the_file_line_or_flag() {
    let n = format!("{FIX}/sinfo.txt");
    let truncated = format!("{FIX}/squeue-truncated.txt");
    let out = cli(&["--squeue", &truncated, "--sinfo", &n, "--gpus", "1", "--walltime", "60"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("squeue-truncated.txt:4:") && e.contains("truncated line"), "{e}");
    let q = format!("{FIX}/squeue.txt");
    let out = cli(&["--squeue", &q, "--sinfo", &n, "--gpus", "1", "--walltime", "soon", "--partition", "gpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--walltime 'soon' is not a duration"));
    let out = cli(&["--squeue", &q, "--sinfo", &n, "--gpus", "1", "--walltime", "60"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("say which with --partition"));
    let out = cli(&["--squeue", &q, "--sinfo", &n, "--gpus", "13", "--walltime", "60", "--partition", "gpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not fit on partition"));
}

#[test]
fn new_arrivals_matter_and_a_start_does_not_depend_on_where_the_arrivals_end() {
    // A busy campus: four 8-GPU jobs with long limits, a queue of small jobs ahead.
    let q: String = (1..=3).map(|i| running(i, 8, 5, 120)).collect::<String>()
        + &(10..18).map(|i| pending(i, 2, 30)).collect::<String>();
    let snap = snapshot(&q);
    let start = |load: f64, horizon_days: f64| {
        let o = Options { horizon_days, ..options(30) };
        let adv = advise(&snap, &scenario(load), &probe(8, 1800), &o, TAKEN).unwrap();
        assert_eq!(adv.start.started, 30, "{:?}", adv.warnings);
        serde_json::to_string(&adv.start).unwrap()
    };
    assert_ne!(start(0.95, 0.2), start(0.0001, 0.2), "arrivals backfilling ahead of the job must move its start");
    // Stages of the horizon rest on this: the arrivals before a time are the same whatever
    // the end of the stream, so a start within 0.2 days is the same with 0.25 or 3 days.
    assert_eq!(start(0.95, 0.2), start(0.95, 0.25));
    assert_eq!(start(0.95, 0.2), start(0.95, 3.0));
}

/// `sinfo --json` of Slurm 22.05 with four 8-GPU nodes; `flags[i]` is node i's state and
/// `state_flags` (base state apart, flags apart, as 22.05 writes them).
fn sinfo_22_05(states: [(&str, &str); 4]) -> String {
    let nodes: Vec<String> = states
        .iter()
        .enumerate()
        .map(|(i, (state, flags))| {
            format!(
                r#"{{"name": "n{}", "state": "{state}", "state_flags": [{flags}], "cpus": 8, "gres": "gpu:8", "partitions": ["campus"]}}"#,
                i + 1
            )
        })
        .collect();
    format!("{{\"nodes\": [{}]}}", nodes.join(",\n"))
}

/// `squeue --json` (22.05) with one 8-GPU job running on each named node for 10 of its 600 minutes.
fn squeue_on(hosts: &[&str]) -> String {
    let jobs: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| {
            format!(
                r#"{{"job_id": {}, "job_state": "RUNNING", "partition": "campus", "account": "others", "user_name": "u",
                "priority": 1, "submit_time": {}, "start_time": {}, "time_limit": 600, "node_count": 1, "nodes": "{h}",
                "tres_alloc_str": "cpu=8,node=1,gres/gpu=8"}}"#,
                i + 1,
                TAKEN - 700,
                TAKEN - 600
            )
        })
        .collect();
    format!("{{\"jobs\": [{}]}}", jobs.join(",\n"))
}

fn json_snapshot(queue: &str, nodes: &str) -> Snapshot {
    read_bytes(("squeue.json", queue.as_bytes()), ("sinfo.json", nodes.as_bytes()), Some(TAKEN)).unwrap()
}

#[test]
fn a_drained_partition_gets_no_answer_of_a_healthy_one() {
    // Issue 44: 22.05 marks drained nodes in `state_flags`, which advise never read, so a
    // drained partition got the advice of an idle one (start at once).
    let scn = scenario(0.5);
    let healthy = json_snapshot(&squeue_on(&[]), &sinfo_22_05([("idle", ""); 4]));
    let adv = advise(&healthy, &scn, &probe(8, 3600), &options(10), TAKEN).unwrap();
    assert_eq!(adv.start.p90_s, Some(0.0));
    let drained = json_snapshot(&squeue_on(&[]), &sinfo_22_05([("idle", "\"DRAIN\""); 4]));
    let e = advise(&drained, &scn, &probe(8, 3600), &options(10), TAKEN).unwrap_err();
    assert!(matches!(e, AdviseError::NoUsableNodes { .. }), "{e}");
    let silent = json_snapshot(&squeue_on(&[]), &sinfo_22_05([("idle", "\"NOT_RESPONDING\""); 4]));
    assert!(advise(&silent, &scn, &probe(8, 3600), &options(10), TAKEN).is_err());
}

#[test]
fn a_draining_node_runs_its_jobs_but_offers_no_gpus_to_new_ones() {
    // n1 and n2 drain while their jobs run; n3 and n4 are healthy and busy.
    let nodes =
        sinfo_22_05([("allocated", "\"DRAIN\""), ("allocated", "\"DRAIN\""), ("allocated", ""), ("allocated", "")]);
    let s = json_snapshot(&squeue_on(&["n1", "n2", "n3", "n4"]), &nodes);
    let adv = advise(&s, &scenario(0.5), &probe(8, 3600), &options(10), TAKEN).unwrap();
    assert_eq!(adv.campus.gpus, 16, "only n3 and n4 take new jobs");
    assert_eq!(adv.campus.running, 2, "the jobs on n1 and n2 hold none of n3's and n4's GPUs");
    assert_eq!(adv.campus.left_out, 2);
    assert!(adv.start.p10_s.unwrap() > 0.0, "n3 and n4 are full: the job waits for their jobs");
}

/// A fitted scenario's request band brings its own hour-of-week profile, which can be 0
/// for hours on end (no short job at night). The forward simulation's first stage covers
/// only the snapshot's day up to a few hours after it; with `offered_load` read as a mean
/// over that window such a class was refused ("the season multipliers are 0 over the whole
/// measured window"), so advise could not answer at those hours (found by the backtest).
#[test]
fn a_class_whose_own_profile_is_zero_for_the_snapshots_day_does_not_stop_the_advice() {
    let mut raw = scenario(0.3).raw().clone();
    let night_owls = {
        let mut c = raw.background.as_ref().unwrap().classes[0].clone();
        c.name = "not-on-tuesdays".into();
        // 2025-12-02, the snapshot's day, is a Tuesday: hours 24–47 of the week.
        c.hourly_profile = Some((0..168).map(|h| if (24..48).contains(&h) { 0.0 } else { 1.0 }).collect());
        c
    };
    raw.background.as_mut().unwrap().classes.push(night_owls);
    let scn = Scenario::from_raw(raw).expect("the scenario itself validates over its whole day");
    let a = advise(&snapshot(""), &scn, &probe(1, 600), &options(4), TAKEN).expect("advise answers");
    assert_eq!(a.start.median_s, Some(0.0), "an idle campus starts the job at once");
}

#[test]
fn a_correction_widens_the_start_intervals_on_the_log_scale_and_only_when_given() {
    use burstsim::advise::correction::{Correction, log_scale};
    let q: String = (1..=4).map(|i| running(i, 8, 20, 30)).collect();
    let raw = advise(&snapshot(&q), &scenario(0.9), &probe(8, 600), &options(40), TAKEN).unwrap();
    assert!(raw.start.corrected.is_empty());
    let json = serde_json::to_value(&raw).unwrap();
    assert!(json["start"].get("corrected").is_none(), "no correction, no key: {json}");
    let c = Correction { source: "test".into(), probes: 120, offset_s: 60.0, widen: [0.2, 1.0, f64::INFINITY] };
    let o = Options { correction: Some(c.clone()), ..options(40) };
    let adv = advise(&snapshot(&q), &scenario(0.9), &probe(8, 600), &o, TAKEN).unwrap();
    // The same replications: the raw figures do not move.
    assert_eq!((adv.start.p10_s, adv.start.p90_s), (raw.start.p10_s, raw.start.p90_s));
    let c80 = &adv.start.corrected[1];
    assert_eq!((c80.level, c80.probes), (0.8, 120));
    let (p10, p90) = (raw.start.p10_s.unwrap(), raw.start.p90_s.unwrap());
    let (lo, hi) = (c80.low_s.unwrap(), c80.high_s.unwrap());
    // Each end moved by e^1 on ln(wait + 60).
    assert!((log_scale(p90, 60.0) + 1.0 - log_scale(hi, 60.0)).abs() < 1e-9, "{p90} → {hi}");
    assert!(lo == 0.0 || (log_scale(p10, 60.0) - 1.0 - log_scale(lo, 60.0)).abs() < 1e-9, "{p10} → {lo}");
    assert!(lo <= p10 && hi > p90);
    // Too few probes for 95%: unbounded above, from 0.
    assert_eq!((adv.start.corrected[2].low_s, adv.start.corrected[2].high_s), (Some(0.0), None));
    let table = burstsim::advise::table::table(&adv, &probe(8, 600), burstsim::i18n::Lang::En);
    assert!(table.contains("widened by the backtest's correction (120 probes)"), "{table}");
}
