//! `burstsim fit LOG`: the command line's side of the fit use case
//! (`burstsim::usecase::fit`, which estimates a lab's scenario from a cluster's log): its
//! arguments in, the read summary and warnings on stderr, the file's header on stdout.

use std::process::ExitCode;

use anyhow::Result;
use burstsim::evidence::fit::GroupMark;
use burstsim::usecase::fit::{FitOptions, FitRequest};
use burstsim::usecase::{Front, Progress, Stage};

use crate::args::FitArgs;
use crate::trace_cmd::{read_options, units_of};

/// Prints the use case's notes (the read summary, warnings) as `burstsim: LINE`.
struct Notes;

impl Progress for Notes {
    fn start(&self, _stage: Stage<'_>) {}
    fn advance(&self, _units: u64) {}
    fn note(&self, line: &str) {
        say!("burstsim: {line}");
    }
}

/// Runs `burstsim fit`.
pub fn fit(a: FitArgs) -> Result<ExitCode> {
    let group = match (a.group_user, a.group_account) {
        (Some(u), _) => Some(GroupMark::User(u)),
        (None, Some(acc)) => Some(GroupMark::Account(acc)),
        (None, None) => None,
    };
    let options = FitOptions {
        read: read_options(&a.read)?,
        units: units_of(&a.read),
        procs_per_gpu: a.read.procs_per_gpu,
        out: a.out,
        gpus: a.gpus,
        gpus_per_node: a.gpus_per_node,
        horizon_days: a.horizon_days,
        name: a.name,
        group,
        ..FitOptions::new(a.log)
    };
    let outcome = FitRequest::new(&options, Front::Cli)?.run(&Notes)?;
    outcome.write()?;
    print!("{}", outcome.summary());
    Ok(ExitCode::SUCCESS)
}
