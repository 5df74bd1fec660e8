//! `burstsim calibrate SCENARIO`: the command line's side of the calibrate use case
//! (`burstsim::usecase::calibrate`, which fits the scenario's unmeasured campus inputs to
//! what the group observed): its arguments in, its table, files and summary out.

use std::process::ExitCode;

use anyhow::Result;
use burstsim::evidence::calibrate::spec::Who;
use burstsim::usecase::calibrate::{CalibrateOptions, CalibrateRequest};

use crate::args::{CalibrateArgs, LogJobsArg};
use crate::common::{Bars, interrupted};

/// Runs `burstsim calibrate`.
pub fn calibrate(a: CalibrateArgs) -> Result<ExitCode> {
    let who = match a.log_jobs {
        LogJobsArg::Group => Who::Group,
        LogJobsArg::Campus => Who::Campus,
    };
    let options = CalibrateOptions {
        replications: a.replications,
        budget: a.budget,
        seed: a.seed,
        threads: a.threads,
        out: a.out.clone(),
        force: a.force,
        sacct: a.sacct.clone().map(|log| (log, who)),
        account: a.account.clone(),
    };
    let request = CalibrateRequest::new(&a.scenario, &options)?;
    let outcome = request.run(&Bars::new(a.quiet), &interrupted)?;
    print!("{}", outcome.table());
    request.write(&outcome)?;
    if !a.quiet {
        say!("burstsim: {}", request.summary(&outcome));
    }
    if outcome.stopped() {
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
