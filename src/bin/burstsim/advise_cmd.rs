//! `burstsim advise`: the command line's side of the advise use case
//! (`burstsim::usecase::advise`: the snapshot, the forward simulation and the answer's
//! table): its arguments in, the table or JSON out.

use std::process::ExitCode;

use anyhow::Result;
use burstsim::i18n::Lang;
use burstsim::job::JobKind;
use burstsim::usecase::advise::{AdviseOptions, AdviseRequest, unix_now};

use crate::args::{AdviseArgs, KindArg, LangArg};

/// `burstsim advise`.
pub fn advise(a: AdviseArgs) -> Result<ExitCode> {
    let options = AdviseOptions {
        squeue: a.squeue,
        sinfo: a.sinfo,
        taken_at: a.taken_at,
        gpus: a.gpus,
        walltime: a.walltime,
        runtime: a.runtime,
        nodes: a.nodes,
        partition: a.partition,
        account: a.account,
        priority: a.priority,
        job_id: a.job_id,
        kind: match a.kind {
            KindArg::Cv => JobKind::Cv,
            KindArg::Transformer => JobKind::Transformer,
        },
        data_gb: a.data_gb,
        scenario: a.scenario,
        replications: a.replications,
        seed: a.seed,
        horizon_days: a.horizon_days,
        deadline: a.deadline,
        confidence: a.confidence,
        offer: a.offer,
        wait_hours: a.wait_hours,
        threads: a.threads,
        correction: a.correction,
    };
    let outcome = AdviseRequest::new(&options, unix_now())?.run()?;
    let text =
        if a.json { outcome.json()? } else { outcome.table(if a.lang == LangArg::Zh { Lang::Zh } else { Lang::En }) };
    use std::io::Write as _;
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
