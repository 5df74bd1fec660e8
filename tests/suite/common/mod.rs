//! Shared by the integration tests that read the real logs in `../shared/data/`: where
//! that folder is, and what to do when it is absent.
//!
//! A clone without the shared data (a laptop) skips those tests with a message on stderr.
//! Under CI (`CI=true`, which GitHub Actions and most CI services set) a missing file is a
//! failure, so a CI job that lost its data cannot pass by skipping every real-log check.
//!
//! `BURSTSIM_SHARED_DIR` overrides the folder (default: `../shared` next to the crate).
//! Pointing it at a folder that does not exist shows the CI behaviour:
//!
//! ```text
//! CI=true BURSTSIM_SHARED_DIR=/nonexistent cargo test --test suite trace_data::
//! ```
//!
//! Scenarios that name a log by a path of their own (`scenarios/kth-trace.toml`) still read
//! it from there; the override only decides whether the tests consider the data present.

// Not every test module uses every helper.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared folder: `$BURSTSIM_SHARED_DIR`, else `../shared` next to the crate.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("BURSTSIM_SHARED_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// True when the environment says this is CI (`CI` is `true` or `1`, any case).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"))
}

/// `rel` (e.g. `"data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz"`) under the shared
/// folder if it exists; otherwise `None` after printing why the caller skips.
///
/// # Panics
/// When the path is absent and [`in_ci`] holds: the message names the missing path and
/// how to provide it.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = shared_dir().join(rel);
    if path.exists() {
        return Some(path);
    }
    if in_ci() {
        panic!(
            "CI=true but {} is missing: the real-log tests would be skipped silently. Provide the shared data \
             (the ../shared folder next to the crate, or set BURSTSIM_SHARED_DIR to a folder holding {rel})",
            path.display()
        );
    }
    eprintln!("skipped: {} is absent (set BURSTSIM_SHARED_DIR to point at the shared data)", path.display());
    None
}

/// `validate --trace` arguments that replay a run of the real-Slurm accounting cluster
/// (`scripts/slurm-cluster.sh` with accounting: 4 nodes × 8, bf_interval 2 s, accounts
/// `group` and `others` at 1 share, half-life 10 min, a recalculation every minute, the
/// first 50 s after the first submission), with `algorithm` "classic" or "fair-tree", or
/// "fifo" without fair-share; `slurm_usage` books usage as Slurm does.
pub fn fairshare_replay_args(algorithm: &str, slurm_usage: bool) -> Vec<String> {
    let mut a: Vec<&str> =
        vec!["--gpus-per-node", "8", "--nodes", "4", "--bf-interval", "2", "--bf-reservations", "500", "--priority"];
    if algorithm == "fifo" {
        a.push("fifo");
    } else {
        a.extend([
            "multifactor",
            "--fairshare",
            algorithm,
            "--shares",
            "group=1,others=1",
            "--decay-half-life",
            "600",
            "--calc-period",
            "60",
            "--calc-offset",
            "50",
        ]);
        if slurm_usage {
            a.push("--slurm-usage");
        }
    }
    a.into_iter().map(String::from).collect()
}

/// Of the pairs of jobs of different accounts that a real Slurm started more than `apart`
/// seconds apart (each a fair-share decision), how many a replay starts in Slurm's order,
/// and how many pairs there are: jobs as `(account, Slurm's start, the replay's start)`.
pub fn account_order(jobs: &[(&str, i64, i64)], apart: i64) -> (usize, usize) {
    let (mut pairs, mut same) = (0, 0);
    for x in jobs {
        for y in jobs {
            if x.0 != y.0 && y.1 - x.1 > apart {
                pairs += 1;
                same += usize::from(x.2 < y.2);
            }
        }
    }
    (same, pairs)
}
