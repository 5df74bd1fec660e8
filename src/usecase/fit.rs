//! `fit`: estimates a scenario from a cluster's own log ([`crate::evidence::fit`]) and
//! writes it as a lab's scenario that `burstsim run` compares policies on
//! ([`crate::evidence::fit::lab`]): the fitted campus (one pool, or nodes with
//! `--gpus-per-node`) and background, the group's workload fitted from the log or the
//! default's, and the default's cloud offers, policies and targets, under a name of its
//! own. The binary is its only front end so far.

use std::path::{Path, PathBuf};

use super::{Error, Front, Progress};
use crate::evidence::fit::lab::{self, LabOptions};
use crate::evidence::fit::{self, GroupMark};
use crate::evidence::replay::{self, ReplayOptions};
use crate::trace::convert::Units;
use crate::trace::{self, ReadOptions, TraceError};
use crate::write::atomic_write;

/// The arguments of `fit`, as the front end received them.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// The log (SWF, sacct or CSV).
    pub log: PathBuf,
    /// How to read it.
    pub read: ReadOptions,
    /// What job sizes count.
    pub units: Units,
    /// Processors per GPU (positive).
    pub procs_per_gpu: f64,
    /// Scenario file to write (default: `<name>.toml` in the current folder).
    pub out: Option<PathBuf>,
    /// Cluster size in GPUs (default: the log header's).
    pub gpus: Option<u32>,
    /// Write the campus as nodes of this many GPUs (default: one pool).
    pub gpus_per_node: Option<u32>,
    /// Days to simulate (default: one calendar year from the log's first day).
    pub horizon_days: Option<f64>,
    /// Scenario name (default: [`scenario_name`]'s).
    pub name: Option<String>,
    /// Whose jobs of the log are the group's own (fitted as its workload).
    pub group: Option<GroupMark>,
}

impl FitOptions {
    /// The options of a plain `fit LOG`: the log read as detected, sizes as the log gives
    /// them, everything else by default.
    pub fn new(log: impl Into<PathBuf>) -> FitOptions {
        FitOptions {
            log: log.into(),
            read: ReadOptions::default(),
            units: Units::Auto,
            procs_per_gpu: 1.0,
            out: None,
            gpus: None,
            gpus_per_node: None,
            horizon_days: None,
            name: None,
            group: None,
        }
    }
}

/// A checked fit: the arguments, the scenario's name and the file it goes to.
pub struct FitRequest {
    options: FitOptions,
    name: String,
    out: PathBuf,
    front: Front,
}

impl FitRequest {
    /// Checks the arguments and that the scenario file can be written.
    ///
    /// # Errors
    /// [`Error::Usage`] for an argument that is not allowed (named as `front` spells it);
    /// [`Error::Io`] when the scenario file cannot be written.
    pub fn new(o: &FitOptions, front: Front) -> Result<FitRequest, Error> {
        if !(o.procs_per_gpu.is_finite() && o.procs_per_gpu > 0.0) {
            return Err(Error::Usage(format!(
                "{} is not allowed; give a positive number",
                front.arg("procs_per_gpu", o.procs_per_gpu)
            )));
        }
        if o.gpus == Some(0) {
            return Err(Error::Usage(format!("{} is not allowed", front.arg("gpus", 0))));
        }
        if o.gpus_per_node == Some(0) {
            return Err(Error::Usage(format!("{} is not allowed; give at least 1", front.arg("gpus_per_node", 0))));
        }
        if let (Some(size), Some(g)) = (o.gpus, o.gpus_per_node) {
            check_nodes(size, g, &format!("given with {}", front.name("gpus")), front)?;
        }
        if let Some(h) = o.horizon_days.filter(|h| !(h.is_finite() && *h > 0.0)) {
            return Err(Error::Usage(format!(
                "{} is not allowed; give a positive number of days, e.g. 365",
                front.arg("horizon_days", h)
            )));
        }
        if o.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            return Err(Error::Usage(format!("{} is not allowed; give the scenario a name", front.arg("name", "''"))));
        }
        if let Some(out) = &o.out {
            crate::write::probe_file(out)?;
        }
        let name = scenario_name(o);
        let out = o.out.clone().unwrap_or_else(|| PathBuf::from(format!("{name}.toml")));
        Ok(FitRequest { options: o.clone(), name, out, front })
    }

    /// The scenario's name: `--name`, else the `-o` file's stem, else `<log>-fit` with
    /// the group's user or account ([`scenario_name`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads the log, fits it and composes the scenario; the read summary and every
    /// warning go to `progress` as notes. The text is checked to load.
    ///
    /// # Errors
    /// An unreadable log ([`Error::Trace`]), a log or argument that does not allow a fit
    /// ([`Error::Usage`], e.g. nodes that do not divide the cluster's size), or a fitted
    /// scenario that does not load ([`Error::Failed`]: a bug).
    pub fn run(&self, progress: &dyn Progress) -> Result<FitOutcome, Error> {
        let o = &self.options;
        let path = o.log.display().to_string();
        let log = trace::read_file(&o.log, &o.read).map_err(|e| match e {
            TraceError::Read { .. } => Error::Trace(e),
            other => Error::Usage(other.to_string()),
        })?;
        progress.note(crate::output::printable::printable(&log.report.summary(&path)).trim_end());
        if log.jobs.is_empty() {
            return Err(Error::Usage(format!("{path}: no jobs could be read")));
        }
        let file = o.log.file_name().map_or_else(|| "log".to_string(), |f| f.to_string_lossy().to_string());
        let fo = fit::LogFitOptions {
            gpus: o.gpus,
            horizon_days: o.horizon_days,
            units: o.units,
            procs_per_gpu: o.procs_per_gpu,
            name: self.name.clone(),
            source: file,
            group: o.group.clone(),
        };
        let bad_log = |e: fit::FitError| Error::Usage(format!("{path}: {e}"));
        if let Some(g) = o.gpus_per_node {
            // Refused before the fit, which takes seconds on a large log.
            let (size, from) = fit::cluster_size(&log, &fo).map_err(bad_log)?;
            check_nodes(size, g, &from, self.front)?;
        }
        let f = fit::fit(&log, &fo).map_err(bad_log)?;
        for w in &f.warnings {
            progress.note(&format!("warning: {w}"));
        }
        let ro = ReplayOptions { units: o.units, procs_per_gpu: o.procs_per_gpu, ..ReplayOptions::new(f.cluster_gpus) };
        for w in crate::trace::fitness::check(&log, &replay::to_jobs(&log, &ro), f.cluster_gpus) {
            progress.note(&format!("warning: {w}"));
        }
        let text = lab::to_toml(&f, &LabOptions { gpus_per_node: o.gpus_per_node });
        // The file must load: a fitted scenario that does not is a bug, said plainly.
        crate::scenario::Scenario::from_toml_str(&text, "<fitted scenario>").map_err(|e| {
            Error::Failed(format!(
                "the fitted scenario does not load (a bug in burstsim fit; please report it with the log): {e}"
            ))
        })?;
        Ok(FitOutcome { text, out: self.out.clone() })
    }
}

/// A fitted scenario, not yet written.
pub struct FitOutcome {
    /// The scenario file's text.
    pub text: String,
    out: PathBuf,
}

impl FitOutcome {
    /// Where [`FitOutcome::write`] writes the scenario.
    pub fn path(&self) -> &Path {
        &self.out
    }

    /// Writes the scenario file (atomically).
    ///
    /// # Errors
    /// [`Error::Failed`] when it cannot be written.
    pub fn write(&self) -> Result<(), Error> {
        atomic_write(&self.out, self.text.as_bytes())
            .map_err(|e| Error::Failed(format!("could not write '{}': {e}", self.out.display())))
    }

    /// The file's header comment as plain lines (what was fitted from what), then where
    /// the file is and how to run it.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for line in self.text.lines().take_while(|l| l.starts_with('#')) {
            s.push_str(line.trim_start_matches('#').strip_prefix(' ').unwrap_or(""));
            s.push('\n');
        }
        let out = self.out.display();
        s.push_str(&format!("\nWrote {out}; run it with: burstsim run {out}\n"));
        s
    }
}

/// A scenario name of its own (issue 46 item 7), so that two fits run into two output
/// folders: the `name` option; else the stem of the `out` file; else the log's file name
/// up to its first dot, lowercased, with `-fit`, then `-user-U` or `-account-A` for the
/// group's jobs (their characters other than letters, digits, `-`, `_` and `.` as `-`).
pub fn scenario_name(o: &FitOptions) -> String {
    if let Some(n) = &o.name {
        return n.clone();
    }
    if let Some(stem) = o.out.as_deref().and_then(Path::file_stem).map(|s| s.to_string_lossy())
        && !stem.is_empty()
    {
        return stem.into_owned();
    }
    let file = o.log.file_name().map_or_else(|| "log".to_string(), |f| f.to_string_lossy().to_string());
    let stem = file.split('.').next().filter(|s| !s.is_empty()).unwrap_or("log").to_ascii_lowercase();
    let slug = |s: &str| -> String {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect()
    };
    match &o.group {
        None => format!("{stem}-fit"),
        Some(GroupMark::User(u)) => format!("{stem}-fit-user-{}", slug(u)),
        Some(GroupMark::Account(a)) => format!("{stem}-fit-account-{}", slug(a)),
    }
}

/// Refuses nodes of `per_node` GPUs that do not make a cluster of `size` GPUs (`from`:
/// where the size came from), naming the flag, the values and what would do.
fn check_nodes(size: u32, per_node: u32, from: &str, front: Front) -> Result<(), Error> {
    if size.is_multiple_of(per_node) {
        return Ok(());
    }
    let divisors: Vec<String> = (1..=size.min(64)).filter(|d| size.is_multiple_of(*d)).map(|d| d.to_string()).collect();
    let below = size / per_node * per_node;
    let above = u64::from(below) + u64::from(per_node);
    let sizes = if below > 0 { format!("{below} or {above}") } else { above.to_string() };
    Err(Error::Usage(format!(
        "{} does not divide the cluster's {size} GPUs ({from}): {size} GPUs are not whole nodes of {per_node}; \
         give {} G with G one of {}, or {} N with N a multiple of {per_node} ({sizes})",
        front.arg("gpus_per_node", per_node),
        front.name("gpus_per_node"),
        divisors.join(", "),
        front.name("gpus"),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_option_else_the_files_stem_else_the_logs_with_the_group() {
        let mut o = FitOptions::new("data/KTH-SP2-1996.swf.gz");
        assert_eq!(scenario_name(&o), "kth-sp2-1996-fit");
        o.group = Some(GroupMark::User("alice smith".into()));
        assert_eq!(scenario_name(&o), "kth-sp2-1996-fit-user-alice-smith");
        o.group = Some(GroupMark::Account("nlp".into()));
        assert_eq!(scenario_name(&o), "kth-sp2-1996-fit-account-nlp");
        o.out = Some("fits/kth-b.toml".into());
        assert_eq!(scenario_name(&o), "kth-b");
        o.name = Some("mine".into());
        assert_eq!(scenario_name(&o), "mine");
    }

    #[test]
    fn nodes_that_do_not_divide_the_cluster_are_refused_with_what_would_do() {
        assert!(check_nodes(64, 8, "given with --gpus", Front::Cli).is_ok());
        let e = check_nodes(100, 8, "the log header's MaxProcs (100)", Front::Cli).unwrap_err().to_string();
        assert!(e.starts_with("--gpus-per-node 8 does not divide the cluster's 100 GPUs"), "{e}");
        assert!(e.contains("G one of 1, 2, 4, 5, 10, 20, 25, 50") && e.contains("(96 or 104)"), "{e}");
    }
}
