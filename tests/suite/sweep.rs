//! `burstsim sweep`: equals `run` at a single point, resumes to identical bytes after an
//! interruption, refuses stale results, reports unmet targets, and names bad paths.

use assert_cmd::Command;

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

const TINY: &str = "tests/fixtures/tiny.toml";
const THRESHOLDS: &str = "policies.overflow-2h.threshold_hours=0,1,2,4,8,inf";

fn sweep(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    burstsim()
        .args(["sweep", TINY, "-n", "2", "--quiet", "--no-charts", "-p", THRESHOLDS, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_sweep_over_one_value_equals_run() {
    let dir = tempfile::tempdir().unwrap();
    let s = burstsim()
        .args(["sweep", TINY, "-n", "2", "--quiet", "-p", "policies.overflow-2h.threshold_hours=2", "--out"])
        .arg(dir.path().join("s"))
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let r = burstsim()
        .args(["run", TINY, "-n", "2", "--quiet", "--no-charts", "--out"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    assert!(r.status.success());
    let run = std::fs::read_to_string(dir.path().join("r/summary.csv")).unwrap();
    let sweep = std::fs::read_to_string(dir.path().join("s/sweep.csv")).unwrap();
    // sweep.csv: point,<param>,policy,metric,unit,mean,ci95_low,ci95_high,replications,std_dev,unstable_replications
    // summary.csv: policy,metric,unit,mean,ci95_low,ci95_high,std_dev,replications,unstable_replications
    let from_sweep: Vec<String> = sweep
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            [f[2], f[3], f[4], f[5], f[6], f[7], f[9], f[8], f[10]].join(",")
        })
        .collect();
    // (summary.csv's year columns after these have no counterpart in sweep.csv.)
    let from_run: Vec<String> =
        run.lines().skip(1).map(|l| l.split(',').take(9).collect::<Vec<_>>().join(",")).collect();
    assert_eq!(from_sweep, from_run);
}

#[test]
fn an_interrupted_sweep_resumes_to_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    assert!(sweep(&whole, &[]).status.success());
    let expected = std::fs::read(whole.join("sweep.csv")).unwrap();

    // Lost points (as after Ctrl-C): remove two finished points and the final file.
    let part = dir.path().join("part");
    assert!(sweep(&part, &[]).status.success());
    std::fs::remove_dir_all(part.join("points/0002")).unwrap();
    std::fs::remove_dir_all(part.join("points/0005")).unwrap();
    std::fs::remove_file(part.join("sweep.csv")).unwrap();
    let out = sweep(&part, &["--resume"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("6 points (4 resumed)"));
    assert_eq!(std::fs::read(part.join("sweep.csv")).unwrap(), expected);

    // kill -9 at an arbitrary moment, then resume: same bytes whenever it was killed.
    let killed = dir.path().join("killed");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("burstsim"))
        .args(["sweep", TINY, "-n", "2", "--quiet", "--no-charts", "-p", THRESHOLDS, "--out"])
        .arg(&killed)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    child.kill().unwrap();
    child.wait().unwrap();
    let leftovers: Vec<String> =
        walk(&killed).into_iter().filter(|p| p.ends_with(".csv") && p.contains(".tmp")).collect();
    assert!(
        leftovers.is_empty() || leftovers.iter().all(|p| p.contains("/.")),
        "only hidden temporaries may remain: {leftovers:?}"
    );
    assert!(sweep(&killed, &["--resume"]).status.success());
    assert_eq!(std::fs::read(killed.join("sweep.csv")).unwrap(), expected);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

#[test]
fn resuming_into_a_changed_scenario_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    assert!(sweep(&out, &[]).status.success());
    let changed = dir.path().join("changed.toml");
    std::fs::write(
        &changed,
        std::fs::read_to_string(TINY).unwrap().replace("offered_load = 0.8", "offered_load = 0.7"),
    )
    .unwrap();
    let r = burstsim()
        .args(["sweep"])
        .arg(&changed)
        .args(["-n", "2", "--quiet", "-p", THRESHOLDS, "--resume", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("different sweep"), "{}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn a_target_no_point_meets_is_reported_with_the_closest() {
    let dir = tempfile::tempdir().unwrap();
    let out = burstsim()
        .args([
            "sweep",
            TINY,
            "-n",
            "2",
            "-p",
            THRESHOLDS,
            "--target",
            "wait_mean_h<=0",
            "--target",
            "total_cost_cny<=1",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("no point and policy meets every target") && text.contains("closest:"), "{text}");
    assert!(dir.path().join("recommendation.txt").exists());
}

#[test]
fn the_recommendation_respects_the_ci_bound_and_is_the_cheapest_that_does() {
    let dir = tempfile::tempdir().unwrap();
    let target = 3.0; // hours of mean wait
    let out = burstsim()
        .args([
            "sweep",
            TINY,
            "-n",
            "3",
            "--quiet",
            "-p",
            THRESHOLDS,
            "--target",
            &format!("wait_mean_h<={target}"),
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let rec = std::fs::read_to_string(dir.path().join("recommendation.txt")).unwrap();
    // Recompute from sweep.csv: feasible = the CI bound at the Bonferroni-corrected level
    // 1 − 0.05/K is within the target; cheapest by mean cost. K counts distinct
    // candidates: a policy with the same results at every point is one.
    let csv = std::fs::read_to_string(dir.path().join("sweep.csv")).unwrap();
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect();
    let get = |point: &str, policy: &str, metric: &str| {
        rows.iter().find(|r| r[0] == point && r[2] == policy && r[3] == metric).cloned().unwrap()
    };
    let mut distinct: Vec<String> = rows
        .iter()
        .filter(|r| r[3] == "total_cost_cny")
        .map(|c| {
            let all: Vec<String> =
                rows.iter().filter(|r| r[0] == c[0] && r[2] == c[2]).map(|r| r[2..].join(",")).collect();
            all.join(";")
        })
        .collect();
    distinct.sort();
    distinct.dedup();
    let k = distinct.len();
    assert!(rec.contains(&format!("among {k} candidates")), "K = {k}: {rec}");
    let widen = |n: usize| {
        burstsim::stats::t_quantile(1.0 - 0.025 / k as f64, n - 1) / burstsim::stats::t_quantile(0.975, n - 1)
    };
    let mut best: Option<(f64, String, String)> = None;
    let mut mean_only = 0;
    for r in rows.iter().filter(|r| r[3] == "wait_mean_h") {
        let (mean, high95, n): (f64, f64, usize) =
            (r[5].parse().unwrap(), r[7].parse().unwrap_or(f64::INFINITY), r[8].parse().unwrap());
        let high = mean + (high95 - mean) * widen(n);
        let cost: f64 = get(&r[0], &r[2], "total_cost_cny")[5].parse().unwrap();
        if mean <= target && high > target {
            mean_only += 1;
            assert!(
                !rec.contains(&format!("choose policy '{}' at policies.overflow-2h.threshold_hours={},", r[2], r[1])),
                "a mean-only point was chosen"
            );
        }
        if high <= target && best.as_ref().is_none_or(|b| cost < b.0) {
            best = Some((cost, r[2].clone(), r[1].clone()));
        }
    }
    let (_, policy, value) = best.expect("some point meets the target");
    // A policy the sweep does not touch is chosen "at any point (…; e.g. at KEY=VALUE)".
    let at_point = format!("choose policy '{policy}' at policies.overflow-2h.threshold_hours={value}:");
    let anywhere = format!("choose policy '{policy}' at any point (the sweep does not change it; e.g. at ");
    assert!(rec.contains(&at_point) || (policy != "overflow-2h" && rec.contains(&anywhere)), "{rec}");
    assert!(mean_only > 0, "the fixture has points whose mean meets the target but whose CI does not");
}

#[test]
fn an_invalid_param_path_exits_2_naming_the_choices() {
    let cases = [
        ("policies.overflow-3h.threshold_hours=1", "nothing named 'overflow-3h'"),
        ("campus.gpuz=64", "unknown field `gpuz`"),
        ("campus.gpus=many", "takes a number"),
        ("simulation.horizon_days", "KEY=V1,V2"),
        ("background.seasons.crunch.multiplier=-1", "multiplier"),
    ];
    for (param, needle) in cases {
        let out =
            burstsim().args(["sweep", TINY, "-n", "1", "-p", param, "--out", "/nonexistent/never"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{param}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{param}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn a_sweep_table_in_the_scenario_is_used_without_params() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(
        &f,
        std::fs::read_to_string(TINY).unwrap()
            + "\n[sweep]\n\"campus.gpus\" = [48, 64]\n\"policies.overflow-2h.threshold_hours\" = \"0:4:2\"\n",
    )
    .unwrap();
    let out = burstsim()
        .arg("sweep")
        .arg(&f)
        .args(["-n", "2", "--quiet", "--out"])
        .arg(dir.path().join("o"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(dir.path().join("o/sweep.csv")).unwrap();
    assert!(csv.starts_with("point,campus.gpus,policies.overflow-2h.threshold_hours,policy"));
    assert_eq!(
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        6
    );
    // `run` ignores the [sweep] table.
    assert!(
        burstsim()
            .arg("run")
            .arg(&f)
            .args(["-n", "1", "-q", "--out"])
            .arg(dir.path().join("r"))
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn a_sweep_split_over_a_slurm_array_assembles_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    assert!(sweep(&whole, &[]).status.success());
    let out = dir.path().join("array");
    let bin = assert_cmd::cargo::cargo_bin("burstsim");
    // Two array tasks, then the assembling job, through the shipped sbatch script.
    for (task, merge) in [("0", "0"), ("1", "0"), ("", "1")] {
        let status = std::process::Command::new("bash")
            .arg("scenarios/slurm-array.sh")
            .arg(TINY)
            .arg(&out)
            .args(["-n", "2", "-p", THRESHOLDS])
            .env("BURSTSIM", &bin)
            .env("SLURM_ARRAY_TASK_ID", task)
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env("MERGE", merge)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        if task == "0" {
            assert!(!out.join("sweep.csv").exists(), "no final file before every shard is done");
        }
    }
    assert_eq!(std::fs::read(out.join("sweep.csv")).unwrap(), std::fs::read(whole.join("sweep.csv")).unwrap());
}

#[test]
fn the_risk_rule_says_when_there_are_too_few_years_and_writes_risk_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(&dir.path().join("o"), &["--target", "wait_p95_h<=2", "--risk", "0.1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rec = std::fs::read_to_string(dir.path().join("o/recommendation.txt")).unwrap();
    // Two years per point cannot bound any chance of a miss below 10%: say how many are needed.
    assert!(rec.contains("too few replications for any candidate to qualify"), "{rec}");
    assert!(rec.contains("a statement about the mean year"), "the mean-year rule is shown too: {rec}");
    assert_eq!(burstsim::plot::data::parse_recommendation(&rec), None, "charts must not mark the mean-year choice");
    let risk = std::fs::read_to_string(dir.path().join("o/risk.csv")).unwrap();
    let header = risk.lines().next().unwrap();
    assert!(
        header.starts_with("point,policies.overflow-2h.threshold_hours,policy,targets,years,missed_years"),
        "{header}"
    );
    assert_eq!(risk.lines().count() - 1, 6 * 9, "one row per point and policy");
    // --risk without a target, or outside (0, 1), is bad usage.
    for extra in [&["--risk", "0.1"][..], &["--target", "wait_p95_h<=2", "--risk", "1.5"]] {
        let out = sweep(&dir.path().join("bad"), extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
}

/// Issue 27, item 9: the "(same at every point)" row compared only the total cost, so with
/// zero prices the swept policy collapsed into one row showing the first point's waits.
/// (Seen failing before the fix: overflow-2h was listed once, as the same at every point.)
#[test]
fn a_policy_is_shown_once_only_when_its_whole_row_is_the_same_at_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let free = dir.path().join("free.toml");
    let text = std::fs::read_to_string(TINY).unwrap();
    let zero: String = text
        .lines()
        .map(|l| {
            if l.contains("_cny =") && !l.contains("budget") {
                format!("{} = 0", l.split(" =").next().unwrap())
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&free, zero).unwrap();
    let o = burstsim()
        .arg("sweep")
        .arg(&free)
        .args(["-n", "2", "--no-charts", "-p", "policies.overflow-2h.threshold_hours=0,8", "--out"])
        .arg(dir.path().join("s"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    let rows = |policy: &str| table.lines().filter(|l| l.split_whitespace().any(|w| w == policy)).collect::<Vec<_>>();
    let swept = rows("overflow-2h");
    assert_eq!(swept.len(), 2, "one row per point: its waits differ though its cost is 0 at both:\n{table}");
    assert!(swept[0].trim_start().starts_with("overflow-2h with threshold_hours=0 "), "named by the value:\n{table}");
    assert!(swept[1].trim_start().starts_with("overflow-2h with threshold_hours=8 "), "{table}");
    assert!(swept[0].split_whitespace().any(|w| w == "0"), "the cost is 0 at every point:\n{table}");
    let untouched = rows("campus-only");
    assert!(untouched.len() == 1 && untouched[0].trim_start().starts_with("campus-only "), "one decision:\n{table}");
}

/// Issue 26, item 3: the sweep table had one row per point and policy (120 rows for the
/// exam-season sweep, each repeating the whole point label, out of line), and the
/// unstable warning did not say where. (Seen failing before: 2 × 9 rows, and a warning
/// without the list.)
#[test]
fn the_sweep_table_has_one_aligned_row_per_decision_grouped_by_condition() {
    let dir = tempfile::tempdir().unwrap();
    let o = burstsim()
        .args(["sweep", TINY, "-n", "2", "--no-charts", "--target", "wait_p95_h<=2"])
        .args(["-p", "policies.overflow-2h.threshold_hours=0,8", "-p", "background.offered_load=0.6,1.3"])
        .arg("--out")
        .arg(dir.path().join("s"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let table: Vec<&str> = out.lines().skip(2).take_while(|l| !l.is_empty()).collect();
    let groups: Vec<&&str> = table.iter().filter(|l| l.trim_end().ends_with(':')).collect();
    assert_eq!(
        groups.iter().map(|l| l.trim()).collect::<Vec<_>>(),
        ["background.offered_load=0.6:", "background.offered_load=1.3:"],
        "one group per condition value:\n{out}"
    );
    let rows: Vec<&&str> = table.iter().skip(1).filter(|l| !l.trim_end().ends_with(':')).collect();
    // Per group: 8 untouched policies once, and overflow-2h at each of its 2 thresholds.
    assert_eq!(rows.len(), 2 * 10, "{out}");
    for policy in ["campus-only", "overflow-2h with threshold_hours=8"] {
        let n = rows.iter().filter(|l| l.trim_start().starts_with(&format!("{policy} "))).count();
        assert_eq!(n, 2, "{policy} once per group:\n{out}");
    }
    // Right-aligned columns end at the same place on every row.
    let ends: Vec<usize> = rows.iter().map(|l| l.chars().count()).collect();
    assert!(ends.windows(2).all(|w| w[0] == w[1]), "aligned:\n{}", table.join("\n"));
    let err = String::from_utf8(o.stderr).unwrap();
    // An offered load of 1.3 overloads the campus: the warning names the decisions and points.
    assert!(err.contains("unstable in some replications at"), "{err}");
    assert!(
        err.contains("Unstable:\n  ") && err.contains("campus-only at background.offered_load=1.3"),
        "names where:\n{err}"
    );
    // risk.csv and decisions.csv correct over the same set: each scenario point's candidates.
    let risk = std::fs::read_to_string(dir.path().join("s/risk.csv")).unwrap();
    let decisions = std::fs::read_to_string(dir.path().join("s/decisions.csv")).unwrap();
    let column = |text: &str, name: &str| -> Vec<String> {
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let at = head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}: {head:?}"));
        lines.map(|l| l.split(',').nth(at).unwrap().to_string()).collect()
    };
    let k_risk: std::collections::BTreeSet<(String, String)> =
        column(&risk, "scenario_point").into_iter().zip(column(&risk, "upper_bound_confidence")).collect();
    let k_dec: std::collections::BTreeSet<(String, String)> =
        column(&decisions, "scenario_point").into_iter().zip(column(&decisions, "confidence_each")).collect();
    assert_eq!(k_risk, k_dec, "the same correction per scenario point");
    assert_eq!(k_risk.len(), 2);
    assert!(
        column(&risk, "corrected_over").iter().all(|c| c.starts_with("the 10 candidates at background.offered_load="))
    );
}
