//! One door per verb: the use cases both front ends (the `burstsim` binary and the
//! Python module in `python/`) call, so that what a verb does is written once.
//!
//! Each use case has a typed request whose constructor checks the arguments (the
//! messages name them as the caller's front end spells them: [`Front`]), a `run` that
//! does the work while it reports to a [`Progress`] and polls a stop flag, and an outcome
//! that writes the verb's folder and renders the text a terminal shows. The library
//! never sees the command-line parser, the progress bar or the Python runtime: those
//! stay in the front ends, which only adapt arguments, progress and errors.

pub mod advise;
pub mod calibrate;
mod cost_eta;
pub mod decision;
pub mod fit;
pub mod paced;
pub mod run;
pub mod sweep;

use crate::engine::Runaway;
use crate::output::shard::ShardError;
use crate::plot::PlotError;
use crate::scenario::ScenarioError;
use crate::scenario::keys::KeyError;
use crate::sensitivity::LevelError;
use crate::sweep::SweepError;
use crate::sweep::store::StoreError;
use crate::trace::TraceError;
use crate::write::lock::LockError;
use crate::write::occupied::Occupied;

/// Why a use case did not finish. [`Error::is_bad_input`] tells the caller's mistakes
/// (exit code 2, Python's `ValueError`) from failures of the work itself.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument that is not allowed; the message names it and what is.
    #[error("{0}")]
    Usage(String),
    /// A scenario that cannot be used.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A sweep's parameters or a point that does not validate.
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// A dotted key that could not be set.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A sweep's folder: damaged, another sweep's, or I/O.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A shard: a bad `INDEX/COUNT`, a damaged file, or I/O.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// An output folder holding other results.
    #[error(transparent)]
    Occupied(#[from] Occupied),
    /// An output folder another process writes.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A log that cannot be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A replication that ran away (the event budget).
    #[error(transparent)]
    Runaway(#[from] Runaway),
    /// A sensitivity level that makes the scenario invalid.
    #[error(transparent)]
    Level(#[from] LevelError),
    /// Writing the results.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Drawing the charts or writing the report.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Anything else that stopped the work; the message says what.
    #[error("{0}")]
    Failed(String),
}

impl Error {
    /// Whether the caller's input is at fault (an argument, a scenario, a folder), not
    /// the work: the binary exits with 2 then, Python raises `ValueError`.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Error::Usage(_) | Error::Scenario(_) | Error::Sweep(_) | Error::Occupied(_) | Error::Lock(_) => true,
            Error::Store(s) => !matches!(s, StoreError::Io(_)),
            Error::Shard(s) => !matches!(s, ShardError::Io(_)),
            Error::Plot(p) => p.is_bad_input(),
            Error::Key(_) | Error::Trace(_) | Error::Runaway(_) | Error::Level(_) | Error::Io(_) | Error::Failed(_) => {
                false
            }
        }
    }
}

/// Which front end asked: argument errors name its spelling of an argument
/// (`--sensitivity-replications 0` on the command line, `sensitivity_replications=0` in
/// Python).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// The `burstsim` binary: `--flag value`.
    Cli,
    /// The Python module: `keyword=value`.
    Python,
}

impl Front {
    /// An argument with its value as the user wrote it: `arg("sensitivity_replications",
    /// 0)` is `--sensitivity-replications 0` or `sensitivity_replications=0`.
    pub fn arg(self, name: &str, value: impl std::fmt::Display) -> String {
        match self {
            Front::Cli => format!("--{} {value}", name.replace('_', "-")),
            Front::Python => format!("{name}={value}"),
        }
    }

    /// Refuses a replication count given as an argument (`name` as this front end
    /// spells it) above [`crate::scenario::MAX_REPLICATIONS`], with the words the
    /// scenario's `simulation.replications` gets: the file's check alone never sees `-n`
    /// or `replications=` (issue 45 item 4).
    ///
    /// # Errors
    /// [`Error::Usage`] when `n` is over the limit.
    pub fn check_replications(self, name: &str, n: u32) -> Result<(), Error> {
        if n > crate::scenario::MAX_REPLICATIONS {
            return Err(Error::Usage(crate::scenario::too_many_replications(&self.arg(name, n))));
        }
        Ok(())
    }

    /// An argument's name alone (`--target`, `target`).
    pub fn name(self, name: &str) -> String {
        match self {
            Front::Cli => format!("--{}", name.replace('_', "-")),
            Front::Python => name.to_string(),
        }
    }
}

/// The time left of a stage in seconds at a given number of seconds since it started
/// (`None`: not known yet), for a stage whose units are not one size (a sweep's).
pub type SecondsLeft = std::sync::Arc<dyn Fn(f64) -> Option<f64> + Send + Sync>;

/// A stretch of work a use case counts for its progress display.
pub enum Stage<'a> {
    /// `total` units of one kind, named by `what` ("replications", "sensitivity band");
    /// `seconds_left`, when given, prices what is left better than a count of units.
    Counted {
        /// Units to do.
        total: u64,
        /// What is counted.
        what: &'a str,
        /// The time left, when the use case knows better than units × average rate.
        seconds_left: Option<SecondsLeft>,
    },
    /// Replications under sequential stopping: the total is unknown, at most `max`.
    Sequential {
        /// The most replications the rule allows.
        max: u64,
    },
    /// Points of a search (calibration) that may end before `most`.
    Search {
        /// The most points the budget allows.
        most: u64,
    },
}

/// What a use case tells its front end while it works. Called from worker threads.
pub trait Progress: Sync {
    /// A stage begins; the units of any stage before it are done.
    fn start(&self, stage: Stage<'_>);
    /// `units` more of the current stage are done.
    fn advance(&self, units: u64);
    /// What the current stage works on now ("point 3 of 12").
    fn label(&self, _text: &str) {}
    /// The current stage is over (the display may go).
    fn finish(&self) {}
    /// A line the user should see now, such as a stopped stage or a lock taken over from
    /// a process that died (the binary prints it as `burstsim: LINE`).
    fn note(&self, _line: &str) {}
    /// A line of information the user may have asked not to see (`--quiet`).
    fn detail(&self, _line: &str) {}
}

/// A [`Progress`] that shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _stage: Stage<'_>) {}
    fn advance(&self, _units: u64) {}
}

/// A [`Progress`] for a front end that polls instead of drawing as work advances (the
/// Python module wakes every 50 ms): units done of the current stage and its total.
#[derive(Debug, Default)]
pub struct Counter {
    done: std::sync::atomic::AtomicU64,
    total: std::sync::atomic::AtomicU64,
}

impl Counter {
    /// (units done, total) of the current stage.
    pub fn read(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.done.load(Relaxed), self.total.load(Relaxed))
    }
}

impl Progress for Counter {
    fn start(&self, stage: Stage<'_>) {
        use std::sync::atomic::Ordering::Relaxed;
        let total = match stage {
            Stage::Counted { total, .. } => total,
            Stage::Sequential { max } => max,
            Stage::Search { most } => most,
        };
        self.total.store(total, Relaxed);
        self.done.store(0, Relaxed);
    }

    fn advance(&self, units: u64) {
        self.done.fetch_add(units, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A pool of `threads` worker threads (default: one per core), built when a request is
/// checked, so that `threads = 0` is refused before any work or folder is touched.
///
/// # Errors
/// `threads` is 0, or the threads cannot be started.
pub fn pool(threads: Option<usize>, front: Front) -> Result<rayon::ThreadPool, Error> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(Error::Usage(format!("{} is not allowed; give at least 1", front.arg("threads", 0))));
        }
        b = b.num_threads(n);
    }
    b.build().map_err(|e| Error::Failed(format!("could not start the worker threads: {e}")))
}

/// A rate with three significant digits (0.0412, 0.412, 4.12, 41.2, 412), so that a slow
/// run does not print "0.0 replications/s".
pub fn significant(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (2 - x.log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn rates_keep_three_significant_digits() {
        assert_eq!(significant(0.041234), "0.0412");
        assert_eq!(significant(4.1234), "4.12");
        assert_eq!(significant(412.34), "412");
        assert_eq!(significant(4123.4), "4123");
    }
}
