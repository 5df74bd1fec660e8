//! `burstsim sweep SCENARIO`: the command line's side of the sweep use case
//! (`burstsim::usecase::sweep`, which runs the grid and judges the targets): its
//! arguments in, its messages, report and charts out.

use std::process::ExitCode;

use anyhow::Result;
use burstsim::usecase::Front;
use burstsim::usecase::sweep::{SweepEnd, SweepOptions, SweepRequest, SweepSource};

use crate::args::SweepArgs;
use crate::common::{Bars, EXIT_INTERRUPTED, interrupted};

/// Runs `burstsim sweep`: the library's sweep use case (`burstsim::usecase::sweep`), then
/// the report, the base scenario and the charts.
pub(crate) fn sweep(a: SweepArgs) -> Result<ExitCode> {
    let options = SweepOptions {
        params: a.params.clone(),
        decisions: a.decisions.clone(),
        conditions: a.conditions.clone(),
        weights: a.weights.clone(),
        targets: a.targets.clone(),
        risk: a.risk,
        replications: a.replications,
        seed: a.seed,
        break_even: a.break_even.clone(),
        out: a.out.clone(),
        shard: a.shard.clone(),
        resume: a.resume,
        force: a.force,
        threads: a.threads,
        excel: a.excel,
        campus_model: a.campus_model.map(Into::into),
    };
    let request = SweepRequest::new(SweepSource::Path(&a.scenario), &options, Front::Cli)?;
    let out_dir = request.dir().to_path_buf();
    let outcome = match request.run(&Bars::new(a.quiet), &interrupted)? {
        SweepEnd::Interrupted { done, total } => {
            say!(
                "burstsim: interrupted: {done} of {total} points are finished and kept in {}; continue with the same command plus --resume",
                out_dir.display()
            );
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        SweepEnd::ShardFinished { index: i, count: n, done, total } => {
            say!(
                "burstsim: sweep shard {i}/{n} finished; {done} of {total} points are done in {}. When every shard has finished, \
                 `burstsim sweep {} --resume --out {}` (same options) assembles sweep.csv",
                out_dir.display(),
                a.scenario.display(),
                out_dir.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        SweepEnd::Assembled(outcome) => outcome,
    };
    if !a.quiet {
        print!("{}", outcome.report);
        print!("{}", outcome.files());
    }
    if let Err(e) = outcome.write_base() {
        say!("burstsim: warning: {e}");
    }
    crate::plot_cmd::after(&out_dir, a.no_charts, a.quiet);
    if let Some(w) = outcome.unstable() {
        say!("burstsim: {w}");
    }
    say!("burstsim: {}", outcome.timing());
    Ok(ExitCode::SUCCESS)
}
