//! What every subcommand shares, kept apart from the subcommands so that each can use it
//! without importing another: the usage error and the exit codes, the interrupt flag, the
//! worker pool, the progress bars and the claim on an output folder. It imports no
//! command file.

use std::sync::atomic::Ordering;

use anyhow::{Context, Result};
use burstsim::scenario::{Scenario, ScenarioError};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bad-input error (exit code 2) that is not a scenario error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Exit code for an error: 2 for bad input, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    let bad_input = err.chain().any(|e| {
        e.is::<ScenarioError>()
            || e.is::<UsageError>()
            || e.is::<burstsim::sweep::SweepError>()
            || e.downcast_ref::<burstsim::sweep::store::StoreError>()
                .is_some_and(|s| !matches!(s, burstsim::sweep::store::StoreError::Io(_)))
            || e.downcast_ref::<burstsim::output::shard::ShardError>()
                .is_some_and(|s| !matches!(s, burstsim::output::shard::ShardError::Io(_)))
            || e.is::<burstsim::write::occupied::Occupied>()
            || e.is::<burstsim::write::lock::LockError>()
    });
    if bad_input { 2 } else { 1 }
}

/// Set by the first Ctrl-C or SIGTERM: long work stops after what is in flight.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// How long after the first Ctrl-C / SIGTERM the process may take to stop on its own
/// before it is aborted: simulations in flight poll the flag and stop within
/// milliseconds, then the finished replications are written (charts are skipped).
const STOP_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// First Ctrl-C / SIGTERM: stop the replications in flight and write what is finished
/// (aborting if that takes longer than [`STOP_WITHIN`], so a signal always ends the run
/// within a second); second: abort at once. The handler never panics: with stderr closed
/// (its reader gone) `eprintln!` would kill the handler thread, and no later signal could
/// stop the process.
pub(crate) fn install_interrupt_handler() {
    use std::io::Write;
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            burstsim::write::lock::release_all();
            let _ = writeln!(
                std::io::stderr(),
                "\nburstsim: aborted; files already written are complete, nothing else was written"
            );
            std::process::exit(130);
        }
        let _ = writeln!(
            std::io::stderr(),
            "\nburstsim: interrupted: stopping the replications in progress and writing the finished ones (Ctrl-C again to abort)"
        );
        std::thread::spawn(|| {
            use std::io::Write;
            std::thread::sleep(STOP_WITHIN);
            burstsim::write::lock::release_all();
            let _ = writeln!(
                std::io::stderr(),
                "burstsim: aborted: the work in progress did not stop within {} s of the signal; files already \
                 written are complete",
                STOP_WITHIN.as_secs()
            );
            std::process::exit(130);
        });
    });
}

/// Exit code of a run cut short by Ctrl-C or SIGTERM (128 + SIGINT).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

pub(crate) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(UsageError("--threads 0 is not allowed; give at least 1".into()).into());
        }
        b = b.num_threads(n);
    }
    b.build().context("could not start the worker threads")
}

pub(crate) fn progress_bar(len: u64, quiet: bool, what: &str) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({eta_average} left)")
            .expect("valid template")
            .with_key("eta_average", eta_from_average)
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// Time left at the average rate since the bar started (elapsed × left / done). The units
/// of a bar are alike (replications, or a sweep's policy-replications), so this is close
/// once a tenth is done; indicatif's own `{eta}` weighs the last few steps, which arrive
/// in bursts (one per thread, then nothing while a chunk runs) and made it jump.
fn eta_from_average(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let (done, len) = (state.pos(), state.len().unwrap_or(0));
    if done == 0 {
        let _ = w.write_str("…");
        return;
    }
    let secs = state.elapsed().as_secs_f64() * len.saturating_sub(done) as f64 / done as f64;
    let _ = write!(w, "{:#}", indicatif::HumanDuration(std::time::Duration::from_secs_f64(secs)));
}

/// Progress under sequential stopping: the total is unknown, so show replications done
/// against the most allowed, without a bar that would suggest a plan or an ETA.
pub(crate) fn sequential_progress(max: u64, quiet: bool) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(max), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} replications: {pos} done (sequential: stops when the CIs meet --ci-target; at most {len}), {elapsed}",
        )
        .expect("valid template"),
    );
    pb
}

/// Takes the output folder for this process before any work starts: creates it, proves
/// it writable and refuses it while another burstsim writes there (see
/// `burstsim::write::lock`). Held until the returned lock is dropped.
pub(crate) fn lock_out_dir(dir: &std::path::Path, kind: &str) -> Result<burstsim::write::lock::OutputLock> {
    Ok(announced(burstsim::write::lock::OutputLock::exclusive(dir, kind)?))
}

/// Prints the notice of a lock taken over from a process that died.
pub(crate) fn announced(lock: burstsim::write::lock::OutputLock) -> burstsim::write::lock::OutputLock {
    if let Some(n) = lock.notice() {
        say!("burstsim: {n}");
    }
    lock
}

/// Refuses an output folder holding another run's results (unless `force`) before any
/// work starts; says so when earlier results are replaced.
pub(crate) fn claim_out_dir(
    dir: &std::path::Path,
    scenario: &Scenario,
    kind: &'static str,
    force: bool,
    quiet: bool,
) -> Result<()> {
    use burstsim::write::occupied::{Claim, Holds, claim_run};
    let before = Holds::inspect(dir);
    match claim_run(dir, scenario.hash(), kind, force)? {
        Claim::Fresh => {}
        Claim::Same if !quiet => say!(
            "burstsim: '{}' holds an earlier run of this same scenario (same seed and replications); its files are replaced",
            dir.display()
        ),
        Claim::Forced => say!("burstsim: --force: replacing {} in '{}'", before.describe(), dir.display()),
        Claim::Same => {}
    }
    Ok(())
}
