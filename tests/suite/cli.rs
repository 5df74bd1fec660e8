//! The command line: exit codes, files, error text, determinism across thread counts.

use assert_cmd::Command;

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn run_to(dir: &std::path::Path, threads: &str) -> std::process::Output {
    burstsim()
        .args([
            "run",
            "tests/fixtures/tiny.toml",
            "--replications",
            "2",
            "--quiet",
            "--no-charts",
            "--threads",
            threads,
            "--out",
        ])
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn run_writes_every_contract_file_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_to(dir.path(), "2");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["summary.csv", "paired.csv", "seasons.csv", "replications.csv", "timeseries.csv", "waits.csv", "run.toml"]
    {
        assert!(dir.path().join(f).metadata().unwrap().len() > 0, "{f}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files remain");
}

#[test]
fn csv_bytes_are_identical_for_one_and_two_threads() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(run_to(a.path(), "1").status.success());
    assert!(run_to(b.path(), "2").status.success());
    for f in ["summary.csv", "paired.csv", "seasons.csv", "replications.csv", "timeseries.csv", "waits.csv", "run.toml"]
    {
        assert_eq!(std::fs::read(a.path().join(f)).unwrap(), std::fs::read(b.path().join(f)).unwrap(), "{f} differs");
    }
}

#[test]
fn run_prints_a_table_with_every_policy() {
    let dir = tempfile::tempdir().unwrap();
    let out = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "-n", "2", "--verbose", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for p in
        ["campus-only", "cloud-only", "overflow-2h", "timeout-4h", "reserved", "by-size", "deadline", "guide", "capped"]
    {
        assert!(text.contains(p), "table lacks {p}:\n{text}");
    }
    assert!(text.contains("±") && text.contains("Paired differences"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("warning: only 2 replication"), "few replications are warned about: {err}");
    assert!(err.contains("replications/s"), "a one-line timing summary: {err}");
}

/// Issue 46 item 6: `run` leads with the decision, the recommended policy on its first
/// lines, in at most 20 lines all told; `--verbose` adds the full tables after the same
/// decision; `--lang zh` says it in Chinese. The recommended policy is read back from
/// sensitivity.csv: with as many band replications as run replications, the band's central
/// level is the run itself, judged by the same rule through another path.
#[test]
fn run_leads_with_the_decision_in_at_most_20_lines_and_verbose_adds_the_full_tables() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let out = burstsim()
            .args(["run", "tests/fixtures/tiny.toml", "-n", "2", "--sensitivity-replications", "2", "--force"])
            .args(extra)
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let short = run(&[]);
    let mut band = csv::Reader::from_path(dir.path().join("sensitivity.csv")).unwrap();
    let head = band.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let central = band.records().map(Result::unwrap).find(|r| &r[col("level")] == "central").unwrap();
    let recommended = central[col("recommended")].to_string();
    assert_ne!(recommended, "none", "the fixture has a policy meeting the default target");
    let lines: Vec<&str> = short.lines().collect();
    assert!(lines.len() <= 20, "{} lines:\n{short}", lines.len());
    assert!(lines[0].starts_with("tiny: the decision, from 2 simulated years"), "{short}");
    assert_eq!(lines[1], format!("Recommended: {recommended}"), "{short}");
    assert!(short.contains("95% CI") && short.contains("Sensitivity band (2 inputs"), "{short}");
    for table in
        ["Paired differences", "Sensitivity band: paired difference", "By job class", "mean ± 95% CI half-width"]
    {
        assert!(!short.contains(table), "no full table without --verbose ({table}):\n{short}");
    }
    let decision: String = short.lines().take_while(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    let verbose = run(&["--verbose", "--by-class", "--no-charts", "-t", "wait_p95_h<=24"]);
    assert!(
        verbose.starts_with(&decision.replace("the default target; set yours with --target", "--target")),
        "{verbose}"
    );
    for table in ["Paired differences", "Sensitivity band: paired difference", "By job class", "Years that miss"] {
        assert!(verbose.contains(table), "--verbose prints {table}:\n{verbose}");
    }
    let zh = run(&["--lang", "zh", "--no-charts"]);
    assert_eq!(zh.lines().nth(1).unwrap(), format!("推荐策略：“{recommended}”"), "{zh}");
    assert!(!zh.contains("Recommended") && !zh.contains("How sure"), "{zh}");
    // The targets in words, not as metric ids (issue 46 item 7).
    assert!(!zh.contains("wait_p95_h") && zh.contains("本组全部作业的第95百分位等待 ≤ 24 小时"), "{zh}");
}

#[test]
fn a_bad_scenario_exits_2_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml")
        .unwrap()
        .replace("jobs_per_week = 30", "jobs_per_week = -30");
    std::fs::write(&bad, text).unwrap();
    let out = burstsim().args(["run"]).arg(&bad).args(["--out"]).arg(dir.path().join("o")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.toml:") && err.contains("workload.classes[0].jobs_per_week") && err.contains("≥ 0"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn a_misspelt_key_exits_2_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("typo.toml");
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap().replace("horizon_days", "horizon_dayz");
    std::fs::write(&bad, text).unwrap();
    let out = burstsim().arg("run").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("horizon_dayz"));
}

#[test]
fn a_missing_file_and_bad_flags_exit_2() {
    let out = burstsim().args(["run", "no/such/file.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.toml"));
    assert_eq!(burstsim().args(["run", "--threads", "0"]).output().unwrap().status.code(), Some(2));
    assert_eq!(burstsim().args(["run", "--ci-target", "2"]).output().unwrap().status.code(), Some(2));
    assert_eq!(burstsim().args(["frobnicate"]).output().unwrap().status.code(), Some(2));
}

#[test]
fn help_explains_the_commands() {
    let out = burstsim().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("run") && text.contains("validate") && text.contains("Exit codes"));
}

#[test]
fn an_overloaded_campus_is_reported_as_unstable_not_averaged_silently() {
    let dir = tempfile::tempdir().unwrap();
    let over = dir.path().join("over.toml");
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml")
        .unwrap()
        .replace("offered_load = 0.8", "offered_load = 1.3");
    std::fs::write(&over, text).unwrap();
    let out =
        burstsim().arg("run").arg(&over).args(["-n", "2", "-v", "--out"]).arg(dir.path().join("o")).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unstable") && err.contains("offered load"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("UNSTABLE in 2/2"));
    let summary = std::fs::read_to_string(dir.path().join("o/summary.csv")).unwrap();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "unstable_replications").unwrap();
    assert_eq!(
        summary.lines().nth(1).unwrap().split(',').nth(col),
        Some("2"),
        "unstable_replications column: {summary}"
    );
}

#[test]
fn bench_smoke_runs_every_case() {
    let out = burstsim().args(["bench", "--smoke", "--only", "e"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for case in
        ["fcfs-reference", "easy-0.85-year", "easy-0.95", "default-e2e", "saturated", "threshold-sweep", "exam-season"]
    {
        assert!(text.contains(case), "{text}");
    }
    // The users' cases give their speed against the pool model on the same jobs.
    for case in ["default-e2e", "saturated", "threshold-sweep", "exam-season"] {
        let row = text.lines().find(|l| l.starts_with(case)).unwrap();
        let ratio: f64 = row
            .split("jobs/s")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no 'vs pool' ratio after the rate: {row}"));
        assert!(ratio > 0.0, "{row}");
    }
}

#[test]
fn merged_shards_equal_the_single_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    assert!(
        burstsim()
            .args(["run", TINY_FOR_SHARDS, "-n", "5", "--quiet", "--no-charts", "--out"])
            .arg(&single)
            .output()
            .unwrap()
            .status
            .success()
    );
    for count in [2, 3] {
        let shards = dir.path().join(format!("shards-{count}"));
        for i in 0..count {
            let out = burstsim()
                .args(["run", TINY_FOR_SHARDS, "-n", "5", "--quiet", "--shard", &format!("{i}/{count}"), "--out"])
                .arg(shards.join(format!("shard-{i}-of-{count}")))
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let merged = dir.path().join(format!("merged-{count}"));
        let out = burstsim()
            .arg("merge")
            .arg(&shards)
            .args(["--quiet", "--no-charts", "--out"])
            .arg(&merged)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for f in [
            "summary.csv",
            "paired.csv",
            "classes.csv",
            "seasons.csv",
            "replications.csv",
            "timeseries.csv",
            "waits.csv",
            "class_waits.csv",
            "run.toml",
        ] {
            assert_eq!(
                std::fs::read(single.join(f)).unwrap(),
                std::fs::read(merged.join(f)).unwrap(),
                "{f} differs after merging {count} shards"
            );
        }
    }
}

const TINY_FOR_SHARDS: &str = "tests/fixtures/tiny.toml";

#[test]
fn merging_incomplete_or_mixed_shards_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("s");
    assert!(
        burstsim()
            .args(["run", TINY_FOR_SHARDS, "-n", "3", "-q", "--shard", "0/2", "--out"])
            .arg(shards.join("shard-0-of-2"))
            .output()
            .unwrap()
            .status
            .success()
    );
    let out = burstsim().arg("merge").arg(&shards).args(["-q", "--out"]).arg(dir.path().join("m")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shards missing: 1/2"));
    assert!(
        burstsim()
            .args(["run", TINY_FOR_SHARDS, "-n", "3", "-q", "--seed", "9", "--shard", "1/2", "--out"])
            .arg(shards.join("shard-1-of-2"))
            .output()
            .unwrap()
            .status
            .success()
    );
    let out = burstsim().arg("merge").arg(&shards).args(["-q", "--out"]).arg(dir.path().join("m")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another scenario"));
    assert_eq!(burstsim().args(["run", TINY_FOR_SHARDS, "--shard", "2/2"]).output().unwrap().status.code(), Some(2));
}

#[test]
fn bad_inputs_through_the_binary_exit_2_with_the_file_and_never_panic() {
    // One mutation of the tiny fixture per kind of refusal: the parser, unknown keys,
    // wrong types, non-finite and out-of-range values, cross-field checks, absurd scale.
    let base = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let cases: [(&str, &str, &str); 14] = [
        ("gpus = 64", "gpus = = 64", "TOML parse error"),
        ("gpus = 64", "gpus = 64\ngpu = 8", "gpu"),
        ("gpus = 64", "gpus = \"many\"", "gpus"),
        ("gpus = 64", "gpus = 0", "campus.gpus"),
        ("horizon_days = 60", "horizon_days = nan", "simulation.horizon_days"),
        ("horizon_days = 60", "horizon_days = 1e308", "simulation.horizon_days"),
        ("offered_load = 0.8", "offered_load = inf", "background.offered_load"),
        ("jobs_per_week = 30", "jobs_per_week = 1e12", "jobs per replication"),
        ("max_walltime_hours = 48", "max_walltime_hours = 0.0000001", "campus.max_walltime_hours"),
        ("multiplier = 1.3", "multiplier = -1", "multiplier"),
        ("threshold_hours = 2", "threshold_hours = -2", "threshold_hours"),
        ("reserved_offer = \"big-monthly\"", "reserved_offer = \"nope\"", "reserved_offer"),
        ("start = \"10-20\"", "start = \"13-45\"", "start"),
        ("[background]\n", "[background]\nhourly_profile = [1, 2]\n", "background.hourly_profile"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, (old, new, names)) in cases.iter().enumerate() {
        assert_eq!(base.matches(old).count(), 1, "case {i}: {old:?} must occur once");
        let path = dir.path().join(format!("bad-{i}.toml"));
        std::fs::write(&path, base.replacen(old, new, 1)).unwrap();
        let out = burstsim()
            .arg("run")
            .arg(&path)
            .args(["--quiet", "--no-charts", "--out"])
            .arg(dir.path().join("o"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {i} ({new:?}): {err}");
        assert!(err.starts_with(&format!("burstsim: error: {}", path.display())), "case {i}: names the file: {err}");
        assert!(err.contains(names), "case {i}: mentions {names:?}: {err}");
        assert!(!err.contains("panicked"), "case {i}: {err}");
        assert!(!dir.path().join("o").exists(), "case {i}: nothing written for a refused scenario");
    }
}

#[test]
fn run_with_a_target_counts_the_years_that_miss_it_in_risk_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "-n", "6", "--no-charts", "-v", "--target", "wait_p95_h<=2", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Years that miss wait_p95_h ≤ 2"));
    // Recount from replications.csv: a year misses when its p95 wait is above 2 h (or undefined).
    let mut reps = csv::Reader::from_path(dir.path().join("replications.csv")).unwrap();
    let col = reps.headers().unwrap().iter().position(|h| h == "wait_p95_h").unwrap();
    let mut expected: Vec<(String, usize)> = Vec::new();
    for r in reps.records().map(Result::unwrap) {
        let miss = r[col].parse::<f64>().map_or(true, |v| v > 2.0);
        match expected.iter_mut().find(|e| e.0 == r[0]) {
            Some(e) => e.1 += usize::from(miss),
            None => expected.push((r[0].to_string(), usize::from(miss))),
        }
    }
    let mut risk = csv::Reader::from_path(dir.path().join("risk.csv")).unwrap();
    let got: Vec<(String, usize)> =
        risk.records().map(Result::unwrap).map(|r| (r[0].to_string(), r[3].parse().unwrap())).collect();
    assert_eq!(got, expected);
    assert!(
        expected.iter().any(|e| e.1 > 0) && expected.iter().any(|e| e.1 < 6),
        "the fixture has both kinds: {expected:?}"
    );
    // Without a target a later run (of the same scenario) removes the stale risk.csv.
    let again = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "-n", "6", "--no-charts", "-q", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(!dir.path().join("risk.csv").exists());
}

#[test]
fn targets_on_rates_are_in_percent_and_a_bare_number_is_refused_naming_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in [&["run"][..], &["sweep", "-p", "policies.overflow-2h.threshold_hours=2"][..]] {
        let out = burstsim()
            .args(cmd)
            .args([
                "tests/fixtures/tiny.toml",
                "-n",
                "2",
                "-q",
                "--no-charts",
                "--target",
                "deadline_miss_rate<=5",
                "--out",
            ])
            .arg(dir.path().join("refused"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("shown in percent") && err.contains("'deadline_miss_rate<=5%'"), "{cmd:?}: {err}");
    }
    assert!(!dir.path().join("refused").exists(), "nothing run or written");
    let out = burstsim()
        .args([
            "run",
            "tests/fixtures/tiny.toml",
            "-n",
            "3",
            "--no-charts",
            "--verbose",
            "--target",
            "deadline_miss_rate<=5%",
            "--out",
        ])
        .arg(dir.path().join("ok"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Years that miss deadline_miss_rate ≤ 5%"));
    // --ci-target: an absolute width on a rate is in percentage points.
    let out = burstsim()
        .args(["run", "tests/fixtures/tiny.toml", "--ci-target", "deadline_miss_rate=0.01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("deadline_miss_rate=1pp"));
}

/// Under `nohup`, `sbatch` or a notebook, stderr is a file or a pipe, where a bar drawn with
/// carriage returns shows nothing: progress comes as plain lines instead, one at the start
/// of each stage, one per tenth and one at its end; `--quiet` still silences them.
#[test]
fn progress_is_written_as_plain_lines_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let run = |quiet: bool| {
        let mut c = burstsim();
        c.args(["run", "tests/fixtures/tiny.toml", "-n", "10", "--no-charts", "--force", "--out"]).arg(dir.path());
        if quiet {
            c.arg("--quiet");
        }
        c.output().unwrap()
    };
    let out = run(false);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("burstsim: replications: 0 of 10 (0%)"), "{err}");
    assert!(err.contains("burstsim: replications: 5 of 10 (50%)"), "{err}");
    assert!(err.contains("burstsim: replications: 10 of 10 done in "), "{err}");
    assert!(!err.contains('\r'), "no carriage returns in a log: {err:?}");
    let quiet = run(true);
    assert!(quiet.status.success());
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("replications: 0 of"), "--quiet prints no progress");
}
