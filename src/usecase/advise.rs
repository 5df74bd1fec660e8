//! `advise`: queue or rent, now. Reads a snapshot of the live campus (files, or squeue
//! and sinfo run now), checks the job asked about against it, runs the forward
//! simulation of [`crate::advise`], and renders the answer as a table (English or
//! Chinese) or one JSON object. The messages name the command line's flags: the binary
//! is its only front end so far.

use std::path::PathBuf;
use std::process::Command;

use super::{Error, Front};
use crate::advise::correction::Correction;
use crate::advise::{Advice, Options, Probe, advise};
use crate::i18n::Lang;
use crate::job::JobKind;
use crate::scenario::Scenario;
use crate::trace::snapshot::{self, NODE_FORMAT, QUEUE_FORMAT, Snapshot, parse_duration};

/// The arguments of `advise`, as the front end received them.
#[derive(Clone, Debug)]
pub struct AdviseOptions {
    /// The squeue file; without it and `sinfo`, squeue and sinfo are run now.
    pub squeue: Option<PathBuf>,
    /// The sinfo file.
    pub sinfo: Option<PathBuf>,
    /// When the snapshot was taken (Unix seconds), for files that do not say.
    pub taken_at: Option<i64>,
    /// GPUs of the job, all nodes together.
    pub gpus: Option<u32>,
    /// Its time limit (`2-00:00:00`, `90`, `36h`).
    pub walltime: Option<String>,
    /// Its expected runtime on a campus GPU (default: the limit).
    pub runtime: Option<String>,
    /// Nodes (default: the scheduler places it).
    pub nodes: Option<u32>,
    /// Partition (default: the snapshot's only one).
    pub partition: Option<String>,
    /// Account.
    pub account: Option<String>,
    /// Its expected Slurm priority.
    pub priority: Option<u64>,
    /// The id of the job, pending in the snapshot.
    pub job_id: Option<String>,
    /// What the job computes.
    pub kind: JobKind,
    /// Data to upload for a cloud run, GB.
    pub data_gb: f64,
    /// Scenario file (default: the embedded default).
    pub scenario: Option<PathBuf>,
    /// Replications of the forward simulation.
    pub replications: u32,
    /// Master seed (default: the scenario's).
    pub seed: Option<u64>,
    /// Days of new arrivals simulated after the snapshot.
    pub horizon_days: f64,
    /// The job must finish within this long from now.
    pub deadline: Option<String>,
    /// How sure a choice must be to finish by the deadline.
    pub confidence: f64,
    /// The hourly cloud offer to rent (default: the cheapest for this job).
    pub offer: Option<String>,
    /// Hours to wait for the campus before renting, one choice each.
    pub wait_hours: Vec<f64>,
    /// Worker threads (default: one per core); results do not depend on it.
    pub threads: Option<usize>,
    /// A correction file written by `validate --backtest N --correction-out FILE`.
    pub correction: Option<PathBuf>,
}

/// A checked question: the snapshot, the scenario, the job and the simulation's options.
pub struct AdviseRequest {
    snapshot: Snapshot,
    scenario: Scenario,
    probe: Probe,
    options: Options,
    now: i64,
    pool: rayon::ThreadPool,
}

impl AdviseRequest {
    /// Takes the snapshot, loads the scenario and checks the job and the options; `now`
    /// is the Unix time the advice is for.
    ///
    /// # Errors
    /// A snapshot that cannot be read or taken, a bad scenario, or a bad argument.
    pub fn new(a: &AdviseOptions, now: i64) -> Result<AdviseRequest, Error> {
        let snap = take_snapshot(a, now)?;
        let scenario = match &a.scenario {
            Some(p) => Scenario::load(p)?,
            None => Scenario::embedded_default(),
        };
        let probe = probe_of(a, &snap)?;
        let deadline_s = a.deadline.as_deref().map(|d| duration("--deadline", d)).transpose()?;
        if !(a.confidence > 0.0 && a.confidence <= 1.0) {
            return Err(Error::Usage(format!("--confidence {} must be in (0, 1]", a.confidence)));
        }
        if a.replications == 0 {
            return Err(Error::Usage("--replications 0: give at least 1".into()));
        }
        Front::Cli.check_replications("replications", a.replications)?;
        if let Some(bad) = a.wait_hours.iter().find(|h| !(h.is_finite() && **h >= 0.0)) {
            return Err(Error::Usage(format!("--wait-hours {bad}: each wait must be 0 or more hours")));
        }
        let options = Options {
            replications: a.replications,
            seed: a.seed.unwrap_or(scenario.seed),
            horizon_days: a.horizon_days,
            waits_h: a.wait_hours.clone(),
            deadline_s,
            confidence: a.confidence,
            offer: a.offer.clone(),
            correction: a.correction.as_ref().map(|p| read_correction(p)).transpose()?,
        };
        let pool = super::pool(a.threads, Front::Cli)?;
        Ok(AdviseRequest { snapshot: snap, scenario, probe, options, now, pool })
    }

    /// Runs the forward simulation (short: no progress is reported).
    ///
    /// # Errors
    /// The job cannot be advised on (no offer fits it, the partition is unknown, …).
    pub fn run(&self) -> Result<AdviseOutcome, Error> {
        let advice = self
            .pool
            .install(|| advise(&self.snapshot, &self.scenario, &self.probe, &self.options, self.now))
            .map_err(|e| Error::Usage(format!("cannot advise: {e}")))?;
        Ok(AdviseOutcome { advice, probe: self.probe.clone() })
    }
}

/// The advice and the job it is for.
pub struct AdviseOutcome {
    /// When the job starts on campus, and each choice's cost and finish.
    pub advice: Advice,
    /// The job asked about.
    pub probe: Probe,
}

impl AdviseOutcome {
    /// The answer as the terminal shows it, in `lang`.
    pub fn table(&self, lang: Lang) -> String {
        crate::advise::table::table(&self.advice, &self.probe, lang)
    }

    /// The answer as one JSON object (for scripts), with a final newline.
    ///
    /// # Errors
    /// The advice cannot be serialised.
    pub fn json(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(&self.advice)
            .map(|j| j + "\n")
            .map_err(|e| Error::Failed(format!("could not write the advice as JSON: {e}")))
    }
}

/// The Unix time now, in seconds.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn duration(flag: &str, text: &str) -> Result<i64, Error> {
    parse_duration(text).ok_or_else(|| {
        Error::Usage(format!(
            "{flag} '{text}' is not a duration: give Slurm's form (2-00:00:00, 90 minutes as 90) or a number with a unit \
             (90s, 15m, 36h, 2d)"
        ))
    })
}

/// The snapshot from the files given, or from squeue and sinfo run now.
fn take_snapshot(a: &AdviseOptions, now: i64) -> Result<Snapshot, Error> {
    if let (Some(q), Some(n)) = (&a.squeue, &a.sinfo) {
        return snapshot::read_files(q, n, a.taken_at).map_err(|e| Error::Usage(e.to_string()));
    }
    let run = |program: &str, args: &[&str]| -> Result<Vec<u8>, Error> {
        let out = Command::new(program).args(args).env("SLURM_TIME_FORMAT", "%s").output().map_err(|e| {
            Error::Usage(format!(
                "could not run {program} ({e}): give the snapshot as files with --squeue and --sinfo (docs/ADVISE.md), \
                 or run advise on a login node where {program} is on the PATH"
            ))
        })?;
        if !out.status.success() {
            return Err(Error::Usage(format!(
                "{program} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    };
    let queue = run("squeue", &["-h", "-t", "PD,R,CG", "-o", QUEUE_FORMAT])?;
    let nodes = run("sinfo", &["-h", "-N", "-o", NODE_FORMAT])?;
    snapshot::read_bytes(("squeue", &queue), ("sinfo", &nodes), Some(a.taken_at.unwrap_or(now)))
        .map_err(|e| Error::Usage(e.to_string()))
}

/// The job asked about, from the flags (and the snapshot, for `--job-id`).
fn probe_of(a: &AdviseOptions, snap: &Snapshot) -> Result<Probe, Error> {
    let queued = a.job_id.as_ref().map(|id| {
        snap.pending.iter().find(|j| &j.id == id).ok_or_else(|| {
            Error::Usage(format!("--job-id {id}: no pending job of the snapshot has this id (it may have started)"))
        })
    });
    let queued = queued.transpose()?;
    let partition = match (&a.partition, queued) {
        (Some(p), _) => p.clone(),
        (None, Some(j)) => j.partition.split(',').next().unwrap_or_default().to_string(),
        (None, None) => match snap.partitions().as_slice() {
            [one] => one.clone(),
            many => {
                return Err(Error::Usage(format!(
                    "the snapshot has {} partitions ({}): say which with --partition",
                    many.len(),
                    many.join(", ")
                )));
            }
        },
    };
    let gpus = a.gpus.or(queued.map(|j| j.gpus)).unwrap_or(0);
    let walltime_s = match (&a.walltime, queued.and_then(|j| j.limit)) {
        (Some(w), _) => duration("--walltime", w)?,
        (None, Some(l)) => l,
        (None, None) => {
            return Err(Error::Usage("the job has no time limit in the snapshot: give --walltime".into()));
        }
    };
    let runtime_s = a.runtime.as_deref().map(|r| duration("--runtime", r)).transpose()?.unwrap_or(walltime_s);
    let kind = a.kind;
    if !(a.data_gb.is_finite() && a.data_gb >= 0.0) {
        return Err(Error::Usage(format!("--data-gb {}: must be 0 or more", a.data_gb)));
    }
    Ok(Probe {
        gpus,
        nodes: a.nodes.or(queued.map(|j| j.nodes).filter(|&n| n > 1)),
        walltime_s,
        runtime_s,
        partition,
        account: a.account.clone().or(queued.map(|j| j.account.clone()).filter(|a| !a.is_empty())),
        priority: a.priority,
        job_id: a.job_id.clone(),
        kind,
        data_gb: a.data_gb,
    })
}

/// Reads `advise --correction FILE`.
fn read_correction(path: &std::path::Path) -> Result<Correction, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("--correction: could not read '{}': {e}", path.display())))?;
    Correction::from_toml(&text).map_err(|e| Error::Usage(format!("--correction '{}': {e}", path.display())))
}
