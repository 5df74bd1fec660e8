//! No results lost to the output folder (issue 27, items 6 and 8), through the binary:
//! an unusable `--out` fails before any simulation with the path named; one writer per
//! folder (a lock), a dead writer's lock is taken over, the lock goes on a second Ctrl-C;
//! `run.toml` is written first, so a write that failed part-way can be completed by the
//! same command.

use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

const TINY: &str = "tests/fixtures/tiny.toml";

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn an_unusable_out_folder_fails_before_any_simulation_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    for bad in [
        Path::new("/proc/burstsim-x").to_path_buf(),
        Path::new("/dev/null").to_path_buf(),
        file.clone(),
        file.join("sub"),
    ] {
        // The default scenario: two replications take many seconds in this build, so a
        // quick answer proves the folder was checked first.
        let started = Instant::now();
        let o = burstsim().args(["run", "-n", "2", "--no-charts", "--out"]).arg(&bad).output().unwrap();
        let took = started.elapsed();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains(&format!("'{}'", bad.display())) && err.contains("--out"), "names the path: {err}");
        assert!(o.stdout.is_empty(), "no table: nothing was simulated");
        assert!(took < Duration::from_secs(3), "{bad:?} took {took:?}: it simulated before checking the folder");
    }
    let o = burstsim()
        .args([
            "sweep",
            TINY,
            "-q",
            "--no-charts",
            "-p",
            "policies.overflow-2h.threshold_hours=0,4",
            "--out",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("'/dev/null'"), "the sweep's message names the path: {}", stderr(&o));
}

/// Starts `burstsim ARGS` in the background.
fn spawn(args: &[&str], out: &Path) -> std::process::Child {
    Process::cargo_bin("burstsim")
        .unwrap()
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for(path: &Path) {
    let t = Instant::now();
    while !path.exists() {
        assert!(t.elapsed() < Duration::from_secs(60), "{path:?} never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_run_into_a_folder_being_written_fails_at_once_and_an_abort_removes_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let lock = out.join(".burstsim.lock");
    // The default scenario with many replications: busy for long enough.
    let mut first = spawn(&["run", "-n", "200", "-q", "--no-charts", "--seed", "1"], &out);
    wait_for(&lock);
    let second =
        burstsim().args(["run", "-n", "2", "-q", "--no-charts", "--seed", "2", "--out"]).arg(&out).output().unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is being written by another burstsim (a run, process")
            && err.contains(&out.display().to_string()),
        "{err}"
    );
    // Ctrl-C twice: the first asks to finish, the second aborts (std::process::exit,
    // no destructors): the lock must go anyway.
    let pid = first.id().to_string();
    for _ in 0..2 {
        Process::new("kill").args(["-INT", &pid]).status().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!lock.exists(), "the aborted run removed its lock");
    assert!(!out.join("run.toml").exists(), "the aborted run wrote nothing");
}

#[test]
fn a_lock_left_by_a_dead_process_is_taken_over_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    std::fs::create_dir_all(&out).unwrap();
    let mut gone = Process::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    std::fs::write(
        out.join(".burstsim.lock"),
        format!("pid = {pid}\nstarted = 1\nhost = \"{}\"\nkind = \"run\"\nshare = \"\"\n", host.trim()),
    )
    .unwrap();
    let o = burstsim().args(["run", TINY, "-n", "2", "-q", "--no-charts", "--out"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no longer running; taking the folder over"), "{}", stderr(&o));
    assert!(!out.join(".burstsim.lock").exists());
}

#[test]
fn two_different_sweeps_started_together_never_panic_and_never_mix() {
    for attempt in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("s");
        let a = spawn(
            &["sweep", TINY, "-q", "--no-charts", "-n", "2", "-p", "policies.overflow-2h.threshold_hours=0,4"],
            &out,
        );
        let b = spawn(
            &["sweep", TINY, "-q", "--no-charts", "-n", "2", "-p", "policies.overflow-2h.threshold_hours=1,8"],
            &out,
        );
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut ok = 0;
        for o in [&a, &b] {
            let err = stderr(o);
            assert!(!err.contains("panicked"), "attempt {attempt}: {err}");
            match o.status.code() {
                Some(0) => ok += 1,
                Some(2) => assert!(
                    err.contains("being written by another burstsim") || err.contains("already holds"),
                    "a clear refusal: {err}"
                ),
                c => panic!("attempt {attempt}: exit {c:?}: {err}"),
            }
        }
        assert!(ok >= 1, "attempt {attempt}: one of them writes the folder");
        assert!(out.join("sweep.csv").exists(), "attempt {attempt}: the sweep that ran assembled sweep.csv");
        let manifest = std::fs::read_to_string(out.join("sweep.toml")).unwrap();
        let hash = manifest.lines().find_map(|l| l.strip_prefix("hash = ")).unwrap().trim_matches('"').to_string();
        for p in std::fs::read_dir(out.join("points")).unwrap() {
            let marker = std::fs::read_to_string(p.unwrap().path().join("point.toml")).unwrap_or_default();
            assert!(marker.contains(&hash), "attempt {attempt}: a point of the other sweep in the folder: {marker}");
        }
        assert!(!out.join(".burstsim.lock").exists());
    }
}

#[test]
fn a_run_whose_writing_failed_part_way_is_completed_by_the_same_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // A folder named like an output file: renaming over it fails, after summary.csv.
    std::fs::create_dir_all(out.join("paired.csv")).unwrap();
    let args = ["run", TINY, "-n", "2", "-q", "--no-charts", "--out"];
    let failed = burstsim().args(args).arg(&out).output().unwrap();
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert!(stderr(&failed).contains("paired.csv"), "names the file: {}", stderr(&failed));
    assert!(out.join("run.toml").exists(), "run.toml is written first and names the run");
    std::fs::remove_dir(out.join("paired.csv")).unwrap();
    let again = burstsim().args(args).arg(&out).output().unwrap();
    assert!(again.status.success(), "the same command completes the folder, no --force: {}", stderr(&again));
    assert!(out.join("paired.csv").is_file());
}

/// The interrupt handler printed with `eprintln!`: with stderr closed (the reader gone,
/// e.g. `| head` or a killed parent) it panicked, and no later signal could stop the run.
/// (Seen before the fix: the run was still sleeping after two SIGTERMs.) After fast
/// cancellation the run stopped at the first signal, and the main thread's own `eprintln!`
/// then panicked (exit 101, lock left behind): every message of the binary now ignores a
/// closed stderr.
#[test]
fn a_run_whose_stderr_is_closed_still_stops_on_a_second_signal_and_removes_its_lock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let mut child = spawn(&["run", "-n", "200", "-q", "--no-charts"], &out);
    wait_for(&out.join(".burstsim.lock"));
    drop(child.stderr.take()); // the reader goes away
    let pid = child.id().to_string();
    for _ in 0..2 {
        Process::new("kill").args(["-TERM", &pid]).status().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the run ignored two SIGTERMs with its stderr closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    assert!(!out.join(".burstsim.lock").exists());
}

/// Issue 45 item 3: every command whose files come after its work checks where it writes
/// first: calibrate's folder, fit's scenario file, a replay's job list and fitted
/// scenario, and the folder plot writes its charts into (held by another writer here).
#[test]
fn every_command_that_writes_checks_its_output_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let unusable = file.join("out.toml");
    let log = "tests/fixtures/traces/tiny.swf";
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "calibrate",
            vec![
                "calibrate".into(),
                "tests/fixtures/calibrate-pool.toml".into(),
                "-q".into(),
                "--out".into(),
                "/dev/null".into(),
            ],
        ),
        (
            "fit",
            vec!["fit".into(), log.into(), "--gpus".into(), "8".into(), "-o".into(), unusable.display().to_string()],
        ),
        (
            "validate --jobs-out",
            vec![
                "validate".into(),
                "--trace".into(),
                log.into(),
                "--gpus".into(),
                "8".into(),
                "--jobs-out".into(),
                unusable.display().to_string(),
            ],
        ),
        ("fit into a folder", vec!["fit".into(), log.into(), "--gpus".into(), "8".into(), "-o".into(), "/tmp".into()]),
    ];
    for (what, args) in cases {
        let o = burstsim().args(&args).output().unwrap();
        let err = stderr(&o);
        assert_ne!(o.status.code(), Some(0), "{what}: {err}");
        assert!(
            o.stdout.is_empty(),
            "{what}: nothing was computed before the check: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        let named = args.last().unwrap();
        assert!(err.contains(&format!("'{named}'")), "{what}: names the path: {err}");
        assert!(!err.contains("replay") && !err.contains("points"), "{what}: failed before the work: {err}");
    }
    // plot: a results folder another burstsim is writing is refused before a chart is drawn.
    let out = dir.path().join("run");
    let ran = burstsim().args(["run", TINY, "-n", "2", "-q", "--no-charts", "--out"]).arg(&out).output().unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    std::fs::write(
        out.join(".burstsim.lock"),
        "pid = 1\nstarted = 1\nhost = \"another-host\"\nkind = \"run\"\nshare = \"\"\n",
    )
    .unwrap();
    let o = burstsim().arg("plot").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is being written by another burstsim"), "{}", stderr(&o));
    assert!(!out.join("charts").exists(), "no chart drawn into a folder another process writes");
}
