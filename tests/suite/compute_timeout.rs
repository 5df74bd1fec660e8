//! `overflow-timeout` with a compute-proportional limit (Starburst's waiting budget):
//! T = k × GPUs × requested hours, clamped to [floor, cap]. Hand-made jobs with known
//! answers, and the limits of k that must reproduce other policies record for record.

use burstsim::engine::{Place, SimOutput, simulate};
use burstsim::job::Job;
use burstsim::scenario::Scenario;
use burstsim::units::HOUR;
use burstsim::workload::JobStream;

/// Eight campus GPUs held for 100 h by another group's job submitted at 0, so no group job
/// can start on campus; one free hourly offer with no start-up delay and no capacity
/// limit, so a withdrawn job starts computing the second it is withdrawn.
fn blocked_campus(limit: &str) -> Scenario {
    let text = format!(
        "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 10\n\
         [campus]\ngpus = 8\nvram_gb = 80\nscheduler = \"fcfs\"\n\
         [[workload.classes]]\nname = \"g\"\njobs_per_week = 0\nruntime_hours = 1\n\
         [[cloud.offers]]\nname = \"cloud\"\ngpu_type = \"A800\"\nvram_gb = 80\nbilling = \"hourly\"\n\
         price_per_gpu_hour_cny = 0\nstartup_delay_minutes = 0\n\
         [[policies]]\nname = \"p\"\nkind = \"overflow-timeout\"\noffers = [\"cloud\"]\n{limit}\n"
    );
    Scenario::from_toml_str(&text, "compute-timeout.toml").expect("valid scenario")
}

fn job(submit: u64, gpus: u32, runtime_h: u64, walltime_factor: f64, group: bool) -> Job {
    Job {
        walltime_factor,
        vram_gb: 1.0,
        kind: burstsim::job::JobKind::Cv,
        ..Job::plain(submit, gpus, runtime_h * HOUR, group)
    }
}

/// The wait, in hours, of each group job after the blocking job, and that each ran in the
/// cloud.
fn waits_h(scn: &Scenario, group: &[(u32, u64, f64)]) -> Vec<f64> {
    let mut jobs = vec![job(0, 8, 100, 1.0, false)];
    jobs.extend(group.iter().map(|&(gpus, runtime_h, factor)| job(1, gpus, runtime_h, factor, true)));
    let out = simulate(scn, &JobStream::from_jobs(jobs), 0, 0);
    out.records[1..]
        .iter()
        .map(|r| {
            assert!(matches!(r.place, Place::Offer(0)), "a withdrawn job runs in the cloud: {r:?}");
            (r.start - r.submit) as f64 / HOUR as f64
        })
        .collect()
}

#[test]
fn a_job_of_4_gpus_asking_for_10_hours_waits_at_most_4_hours_with_k_one_tenth() {
    let scn = blocked_campus("timeout_per_gpu_hour = 0.1");
    // 1 GPU × 10 h → 1 h; 4 × 10 → 4 h; 8 × 10 → 8 h; the *requested* hours count:
    // 4 GPUs × 10 h of work asked as 15 h (walltime factor 1.5) → 6 h.
    let w = waits_h(&scn, &[(1, 10, 1.0), (4, 10, 1.0), (8, 10, 1.0), (4, 10, 1.5)]);
    assert_eq!(w, vec![1.0, 4.0, 8.0, 6.0]);
}

#[test]
fn the_floor_and_the_cap_clamp_the_limit() {
    let scn = blocked_campus("timeout_per_gpu_hour = 0.1\ntimeout_floor_hours = 2\ntimeout_cap_hours = 6");
    let w = waits_h(&scn, &[(1, 10, 1.0), (4, 10, 1.0), (8, 10, 1.0), (8, 50, 1.0)]);
    assert_eq!(w, vec![2.0, 4.0, 6.0, 6.0]);
    // An infinite k with a cap is the constant limit at the cap.
    let scn = blocked_campus("timeout_per_gpu_hour = inf\ntimeout_cap_hours = 3");
    assert_eq!(waits_h(&scn, &[(1, 1, 1.0), (8, 50, 1.0)]), vec![3.0, 3.0]);
}

/// The tiny fixture's cluster, workload and offers with the given policies.
fn tiny_with(policies: &str) -> Scenario {
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").expect("fixture");
    let base = &text[..text.find("[[policies]]").expect("fixture has policies")];
    Scenario::from_toml_str(&format!("{base}{policies}"), "compute-timeout-tiny.toml").expect("valid scenario")
}

fn timeout_policy(name: &str, limit: &str) -> String {
    format!(
        "[[policies]]\nname = \"{name}\"\nkind = \"overflow-timeout\"\n{limit}\noffers = [\"small-hourly\", \"big-hourly\"]\n"
    )
}

fn assert_same(a: &SimOutput, b: &SimOutput, what: &str) {
    assert_eq!(a.records, b.records, "{what}: records differ");
    let bits = |o: &SimOutput| o.metrics.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b), "{what}: metrics differ");
}

#[test]
fn an_infinite_k_or_a_huge_cap_equals_campus_only_record_for_record() {
    let scn = tiny_with(&format!(
        "[[policies]]\nname = \"campus-only\"\nkind = \"campus-only\"\n{}{}{}",
        timeout_policy("k-inf", "timeout_per_gpu_hour = inf"),
        timeout_policy("k-inf-cap-inf", "timeout_per_gpu_hour = inf\ntimeout_cap_hours = inf"),
        timeout_policy("huge", "timeout_per_gpu_hour = 1e6\ntimeout_floor_hours = 1e5\ntimeout_cap_hours = 1e7"),
    ));
    let mut waited = false;
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        let out: Vec<SimOutput> = (0..scn.policies.len()).map(|p| simulate(&scn, &jobs, p, r)).collect();
        for p in 1..out.len() {
            assert_same(&out[0], &out[p], &format!("replication {r}, {}", scn.policies[p].name));
        }
        waited |= out[0].records.iter().zip(&jobs.jobs).any(|(rec, j)| j.group && rec.start > j.submit);
    }
    assert!(waited, "the fixture makes some group jobs wait, so a finite limit would matter");
}

#[test]
fn k_zero_with_floor_zero_equals_a_zero_threshold_record_for_record() {
    let scn = tiny_with(&format!(
        "{}{}{}",
        timeout_policy("t0", "threshold_hours = 0"),
        timeout_policy("k0", "timeout_per_gpu_hour = 0"),
        timeout_policy("k0-floor0", "timeout_per_gpu_hour = 0\ntimeout_floor_hours = 0\ntimeout_cap_hours = 5"),
    ));
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        let out: Vec<SimOutput> = (0..scn.policies.len()).map(|p| simulate(&scn, &jobs, p, r)).collect();
        assert!(out[0].records.iter().any(|x| matches!(x.place, Place::Offer(_))), "some jobs overflow");
        assert_same(&out[0], &out[1], &format!("replication {r}, k = 0"));
        assert_same(&out[0], &out[2], &format!("replication {r}, k = 0 with a cap"));
    }
}

#[test]
fn a_constant_k_with_equal_floor_and_cap_equals_that_constant_threshold() {
    // floor = cap = 3 h: every job's limit is 3 h whatever its size.
    let scn = tiny_with(&format!(
        "{}{}",
        timeout_policy("t3", "threshold_hours = 3"),
        timeout_policy("k-clamped", "timeout_per_gpu_hour = 0.2\ntimeout_floor_hours = 3\ntimeout_cap_hours = 3"),
    ));
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        let a = simulate(&scn, &jobs, 0, r);
        let b = simulate(&scn, &jobs, 1, r);
        assert_same(&a, &b, &format!("replication {r}"));
    }
}
