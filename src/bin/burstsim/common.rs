//! What every subcommand shares, kept apart from the subcommands so that each can use it
//! without importing another: the usage error and the exit codes, the interrupt flag, the
//! worker pool, the progress bars and the claim on an output folder. It imports no
//! command file.

use std::sync::atomic::Ordering;

use anyhow::{Context, Result};
use burstsim::scenario::{Scenario, ScenarioError};
use burstsim::usecase::paced::{PacedLines, duration as duration_left};
use burstsim::usecase::{Progress, SecondsLeft, Stage, significant};
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
            || e.downcast_ref::<burstsim::usecase::Error>().is_some_and(burstsim::usecase::Error::is_bad_input)
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

/// A bar on stderr for `len` units of `what`; its time left comes from `seconds_left`
/// when given, in place of [`LastStep`]'s count of units.
fn progress_bar_with(len: u64, quiet: bool, what: &str, seconds_left: Option<SecondsLeft>) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    };
    let last = std::sync::Arc::new(std::sync::Mutex::new(LastStep::default()));
    let for_rate = std::sync::Arc::clone(&last);
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}, {average_rate}/s, {eta_average} left")
            .expect("valid template")
            .with_key("eta_average", move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let step = last.lock().map(|mut l| l.seen(s)).unwrap_or_default();
                let left = match &seconds_left {
                    Some(f) => f(s.elapsed().as_secs_f64()).map_or_else(|| "…".to_string(), duration_left),
                    None => step.time_left(s),
                };
                let _ = w.write_str(&left);
            })
            .with_key("average_rate", move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let step = for_rate.lock().map(|mut l| l.seen(s)).unwrap_or_default();
                let _ = w.write_str(&step.rate());
            })
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    if !quiet {
        // Redraws between steps, so that the time left counts down while a chunk runs.
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
    }
    pb
}

/// The bar's position and the time it was first drawn there. Work arrives in bursts (one
/// replication per thread, then nothing while the next ones run), so the ETA is taken
/// at the average rate up to the last step and counted down from there: elapsed × left /
/// done read between steps (indicatif's `{eta}` weighs the last few steps and jumped even
/// more) overstated the time left by up to 90% on the default run (scripts/eta-check.py).
#[derive(Clone, Copy, Default)]
struct LastStep {
    pos: u64,
    /// Seconds since the bar started when `pos` was first drawn.
    at: f64,
}

impl LastStep {
    /// Notes a new position, then returns the step in force.
    fn seen(&mut self, state: &indicatif::ProgressState) -> LastStep {
        if state.pos() != self.pos {
            self.pos = state.pos();
            self.at = state.elapsed().as_secs_f64();
        }
        *self
    }

    /// Units per second up to the last step, to three significant digits.
    fn rate(&self) -> String {
        if self.pos == 0 || self.at <= 0.0 {
            return "…".into();
        }
        significant(self.pos as f64 / self.at)
    }

    /// The time left at the average rate up to the last step, less the time since it.
    fn time_left(&self, state: &indicatif::ProgressState) -> String {
        if self.pos == 0 {
            return "…".into();
        }
        let left = state.len().unwrap_or(0).saturating_sub(self.pos);
        let at_step = self.at * left as f64 / self.pos as f64;
        duration_left(at_step - (state.elapsed().as_secs_f64() - self.at))
    }
}

/// Progress under sequential stopping: the total is unknown, so show replications done
/// against the most allowed, without a bar that would suggest a plan or an ETA.
fn sequential_progress(max: u64, quiet: bool) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(max), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} replications: {{pos}} done ({}; at most {{len}}), {{elapsed}}",
            burstsim::usecase::paced::SEQUENTIAL_RULE
        ))
        .expect("valid template"),
    );
    pb
}

/// Progress of a calibration's search: points evaluated against the most its budget
/// allows (it may end before).
fn search_progress(most: u64, quiet: bool) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(most), ProgressDrawTarget::stderr())
    };
    pb.set_style(
        ProgressStyle::with_template("{spinner} calibrating: points [{bar:30}] {pos}/{len} (at most; {elapsed})")
            .expect("valid template")
            .progress_chars("=> "),
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

/// The binary's [`Progress`] for a use case: one bar per stage on stderr when it is a
/// terminal, plain lines at a steady pace when it is not (`nohup`, `sbatch`, a log file:
/// [`PacedLines`]), nothing with `--quiet`; notes as `burstsim: …` lines, details only
/// without `--quiet`.
pub(crate) struct Bars {
    quiet: bool,
    bar: std::sync::RwLock<ProgressBar>,
    lines: Option<PacedLines>,
}

impl Bars {
    pub(crate) fn new(quiet: bool) -> Bars {
        use std::io::IsTerminal;
        let lines = (!quiet && !std::io::stderr().is_terminal()).then(PacedLines::stderr);
        Bars { quiet, bar: std::sync::RwLock::new(ProgressBar::hidden()), lines }
    }

    fn bar(&self) -> ProgressBar {
        self.bar.read().map_or_else(|_| ProgressBar::hidden(), |b| b.clone())
    }
}

impl Progress for Bars {
    fn start(&self, stage: Stage<'_>) {
        if let Some(l) = &self.lines {
            return l.start(stage);
        }
        let pb = match stage {
            Stage::Counted { total, what, seconds_left } => progress_bar_with(total, self.quiet, what, seconds_left),
            Stage::Sequential { max } => sequential_progress(max, self.quiet),
            Stage::Search { most } => search_progress(most, self.quiet),
        };
        if let Ok(mut b) = self.bar.write() {
            *b = pb;
        }
    }

    fn advance(&self, units: u64) {
        match &self.lines {
            Some(l) => l.advance(units),
            None => self.bar().inc(units),
        }
    }

    fn label(&self, text: &str) {
        match &self.lines {
            Some(l) => l.label(text),
            None => self.bar().set_message(text.to_string()),
        }
    }

    fn finish(&self) {
        match &self.lines {
            Some(l) => l.finish(),
            None => self.bar().finish_and_clear(),
        }
    }

    fn note(&self, line: &str) {
        say!("burstsim: {line}");
    }

    fn detail(&self, line: &str) {
        if !self.quiet {
            say!("burstsim: {line}");
        }
    }
}
