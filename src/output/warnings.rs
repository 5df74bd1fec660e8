//! Warnings are values: each says what is wrong and what to do. They are printed on
//! stderr (`burstsim: warning: …`) and written into `run.toml`.

use std::fmt;

/// Something the user should know about the numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// Too few replications for a confidence interval to mean much.
    FewReplications {
        /// How many ran.
        replications: usize,
    },
    /// The campus was overloaded or its queue still growing at the horizon.
    Unstable {
        /// Policy.
        policy: String,
        /// Replications affected.
        replications: usize,
        /// Out of.
        of: usize,
        /// Mean offered load.
        offered_load: f64,
        /// The campus has recurring reservations or time-of-day limits and the offered
        /// load is below 1: the windows, not the load, hold the queue.
        windows: bool,
    },
    /// Some jobs of a class ask for more walltime than any gap of the campus's
    /// reservations and time-of-day limits leaves: they never start on the campus.
    NeverStart {
        /// The class's name.
        class: String,
        /// A background class (else the group's).
        background: bool,
        /// Estimated share of its jobs affected, in [0, 1].
        share: f64,
        /// The longest request that can start, seconds.
        longest: crate::units::SimTime,
        /// The class's longest request, seconds.
        asked: crate::units::SimTime,
        /// The window or limit that holds longer requests out, in words.
        window: String,
    },
    /// Sequential stopping hit the maximum before the target.
    TargetNotReached {
        /// The watched CI furthest from its target, in words.
        worst: String,
        /// Replications run.
        replications: usize,
    },
    /// The run was interrupted before every replication finished.
    Interrupted {
        /// Replications finished.
        done: usize,
        /// Replications planned (under sequential stopping: the most allowed).
        planned: usize,
        /// Sequential stopping: the total was not known in advance.
        sequential: bool,
    },
    /// No group job was measured in any replication (e.g. a fitted background-only scenario).
    NoGroupJobs,
    /// A season-preserving bootstrap had to reach further than `season_window_weeks` for
    /// some output blocks: the log is shorter than a year.
    SeasonWindowWidened {
        /// Output blocks whose window was widened.
        widened: usize,
        /// Output blocks in all.
        blocks: usize,
        /// The window asked for, in weeks.
        asked_weeks: u32,
        /// The widest window used, in weeks.
        widest_weeks: u32,
        /// `week` or `day`.
        block: &'static str,
    },
    /// The trace has no calendar dates, so its blocks are drawn uniformly and its seasons
    /// are scrambled.
    TraceDrawnUniformly,
    /// A scenario key that the chosen campus model does not use (e.g. backfill keys under
    /// the pool): the run ignores it.
    IgnoredByModel {
        /// The key path.
        key: &'static str,
        /// Why it is ignored, and what would use it.
        why: &'static str,
    },
    /// Under multifactor priority, an account's share of the fair-share shares and its
    /// share of the expected load differ by more than [`SHARES_USE_FACTOR`].
    SharesFarFromUse {
        /// Account.
        account: String,
        /// Its shares over all shares.
        share_of_shares: f64,
        /// Its expected use over all expected use.
        share_of_use: f64,
    },
    /// A season brings the campus to an offered load of [`SATURATED_LOAD`] or more and no
    /// account's users give up: the queue then grows through the season, and the answer
    /// depends on how long the season lasts more than on the policy.
    SaturatedSeason {
        /// The busiest season.
        season: String,
        /// Its offered load (other groups' plus the group's mean), share of the GPUs.
        load: f64,
    },
    /// An account's GPU limit (GrpTRES) is above the campus's GPUs, so it never binds: a
    /// limit sized for another campus (the default adapted to a smaller one).
    LimitAboveCampus {
        /// Account.
        account: String,
        /// Its `gpu_limit`.
        limit: u32,
        /// The campus's GPUs.
        gpus: u32,
    },
    /// An account's balking threshold is worth more than [`BALK_CAMPUS_HOURS`] of the whole
    /// campus: sized for a larger campus, it deters nobody.
    BalkingSizedForAnotherCampus {
        /// Account.
        account: String,
        /// Its `balk_gpu_hours_ahead`.
        gpu_hours: f64,
        /// The campus's GPUs.
        gpus: u32,
    },
    /// The `burstsim calibrate` header on top of the file no longer describes its values.
    StaleCalibrationHeader {
        /// The fingerprint the header carries.
        written: String,
        /// The fingerprint of the file's values now.
        now: String,
    },
    /// A percentile rests on few jobs.
    FewJobs {
        /// Policy.
        policy: String,
        /// Mean measured jobs per replication.
        jobs: f64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::FewReplications { replications } => write!(
                f,
                "only {replications} replication(s): confidence intervals need at least 5 to mean much; use --replications 20 or more"
            ),
            Warning::Unstable { policy, replications, of, offered_load, windows: true } => write!(
                f,
                "policy '{policy}': the campus is unstable in {replications} of {of} replications although the mean offered load is only {offered_load:.2}: \
                 the recurring reservations and time-of-day limits (campus.reservations, campus.time_limits), not the load, hold the queue \
                 (jobs start only where their walltime requests fit between the windows, and GPUs idle before each window); \
                 shorten or move the windows, ask for shorter walltimes, or read the waits as 'unbounded'"
            ),
            Warning::Unstable { policy, replications, of, offered_load, windows: false } => write!(
                f,
                "policy '{policy}': the campus is unstable in {replications} of {of} replications (mean offered load {offered_load:.2}; \
                 at ≥ 1 or with a backlog still growing at the horizon the queue has no steady state, so its averages depend on the horizon); \
                 lower the background load or season multipliers, add GPUs, or read the waits as 'unbounded'"
            ),
            Warning::NeverStart { class, background, share, longest, asked, window } => {
                let share = if *share > 0.0 {
                    format!("about {:.1}% of its jobs", 100.0 * share)
                } else {
                    format!("fewer than 1 in {} of its jobs", crate::scenario::feasibility::SHARE_DRAWS)
                };
                let fate = if *background {
                    "they never start and never enter the queue"
                } else {
                    "on the campus they never start: where no offer of the policy takes them (campus-only) they are \
                     counted in jobs_never_startable (part of jobs_unfinished), never as completed and never in the waits"
                };
                write!(
                    f,
                    "{} class '{class}': {share} ask for more walltime (up to {}) than the longest request that can ever \
                     start on the campus, {}, held there by {window}; {fate}. Ask for at most that, or shorten or move the window",
                    if *background { "background" } else { "group" },
                    crate::scenario::feasibility::hours_words(*asked),
                    crate::scenario::feasibility::hours_words(*longest),
                )
            }
            Warning::TargetNotReached { worst, replications } => write!(
                f,
                "stopped at the maximum of {replications} replications before every watched CI met its --ci-target: {worst}; raise simulation.max_replications or widen the target"
            ),
            Warning::Interrupted { done, planned, sequential: false } => write!(
                f,
                "interrupted: only {done} of {planned} replications finished; the files cover those ({done} independent replications are still valid, with wider intervals); run again for all"
            ),
            Warning::Interrupted { done, planned, sequential: true } => write!(
                f,
                "interrupted after {done} replications, before sequential stopping reached its CI targets (it would have stopped by itself, at {planned} at most); \
                 the files cover those {done} (still valid, with wider intervals); run again to finish"
            ),
            Warning::NoGroupJobs => write!(
                f,
                "no job of the group arrived after the warm-up in any replication: the group's waits and costs are empty; \
                 the campus figures (offered load, utilisation) still hold. Add [[workload.classes]] (or mark the group's \
                 jobs in a trace with background.trace.group_user or group_account) to compare policies"
            ),
            Warning::SeasonWindowWidened { widened, blocks, asked_weeks, widest_weeks, block } => write!(
                f,
                "background.trace: the log is shorter than a year: for {widened} of {blocks} simulated {block}s it has no \
                 {block} within ±{asked_weeks} weeks of the same time of year, so those were drawn from the nearest {block}s \
                 in the year (up to ±{widest_weeks} weeks away) and their season is approximate; use a log covering a full \
                 year, or report the approximation"
            ),
            Warning::TraceDrawnUniformly => write!(
                f,
                "background.trace: the log has no calendar dates (an SWF log without UnixStartTime, or a CSV log with \
                 relative times), so the bootstrap draws its blocks from anywhere in the log and its seasons are \
                 scrambled; write draw = \"uniform\" to say this is intended, or use a log with dates"
            ),
            Warning::IgnoredByModel { key, why } => write!(f, "{key} is ignored: {why}"),
            Warning::SharesFarFromUse { account, share_of_shares, share_of_use } => write!(
                f,
                "account '{account}' holds {:.1}% of the fair-share shares but is expected to bring {:.1}% of the load \
                 (more than {SHARES_USE_FACTOR}× apart): fair-share will favour or hold back its jobs all year; \
                 if that is not what the campus does, set its fairshare near its use (run.toml lists every account's \
                 shares and expected use)",
                100.0 * share_of_shares,
                100.0 * share_of_use
            ),
            Warning::SaturatedSeason { season, load } => write!(
                f,
                "{season} brings the campus to an offered load of {load:.2} (≥ {SATURATED_LOAD}) and no account's users \
                 give up (no patience_hours): the queue grows for as long as the season lasts, so waits depend on the \
                 season's length more than on the policy; give the accounts patience (docs/SCENARIOS.md) or check the \
                 season's multiplier against what the campus reports"
            ),
            Warning::LimitAboveCampus { account, limit, gpus } => write!(
                f,
                "account '{account}': gpu_limit = {limit} is more than the campus's {gpus} GPUs, so it never binds; \
                 a limit sized for another campus? Set it to what this campus allows (Slurm's GrpTRES=gres/gpu)"
            ),
            Warning::BalkingSizedForAnotherCampus { account, gpu_hours, gpus } => write!(
                f,
                "account '{account}': balk_gpu_hours_ahead = {gpu_hours} is {:.0} hours of this campus's {gpus} GPUs \
                 (more than {BALK_CAMPUS_HOURS} h, a week of the whole campus), so it deters almost nobody; sized for a \
                 larger campus? The default's 18432 is two days of 384 GPUs: scale it by the GPUs (2 days of {gpus} GPUs \
                 is {})",
                gpu_hours / f64::from(*gpus),
                48 * gpus
            ),
            Warning::StaleCalibrationHeader { written, now } => write!(
                f,
                "the '# Calibrated by `burstsim calibrate`' header on top of the scenario no longer describes it: its values \
                 changed since the calibration (fingerprint {written} in the header, {now} now), so the fitted values and \
                 observations it lists may not hold; run `burstsim calibrate` again, or delete the header"
            ),
            Warning::FewJobs { policy, jobs } => write!(
                f,
                "policy '{policy}': only {jobs:.0} group jobs per replication on average; p95 and p99 waits rest on very few jobs"
            ),
        }
    }
}

/// The templates of [`crate::i18n::L`] that warnings are written from, for [`in_lang`].
/// `NeverStart`, `IgnoredByModel` and `SeasonWindowWidened` put English phrases of their
/// own into the text (a window, a reason, `week`) and have none yet.
const TEMPLATES: [crate::i18n::L; 13] = {
    use crate::i18n::L;
    [
        L::WarnFewReplications,
        L::WarnUnstableWindows,
        L::WarnUnstable,
        L::WarnTargetNotReached,
        L::WarnInterrupted,
        L::WarnInterruptedSequential,
        L::WarnNoGroupJobs,
        L::WarnFewJobs,
        L::WarnSharesFarFromUse,
        L::WarnSaturatedSeason,
        L::WarnLimitAboveCampus,
        L::WarnBalkingSized,
        L::WarnStaleCalibration,
    ]
};

/// A warning's text as `run.toml` keeps it (English, as [`Warning`]'s `Display` writes
/// it) in `lang`: the template it was written from, filled with the same values, in
/// that language. A text no template matches (or `Lang::En`) comes back unchanged.
pub fn in_lang(text: &str, lang: crate::i18n::Lang) -> String {
    use crate::i18n::{Lang, fill, unfill};
    if lang == Lang::En {
        return text.to_string();
    }
    TEMPLATES
        .iter()
        .find_map(|l| unfill(l.get(Lang::En), text).map(|args| fill(l.get(lang), &args)))
        .unwrap_or_else(|| text.to_string())
}

/// The warnings a finished experiment deserves.
pub fn collect(
    scenario: &crate::scenario::Scenario,
    results: &crate::experiment::Results,
    stopping: &crate::experiment::Stopping,
) -> Vec<Warning> {
    use crate::metric::Metric;
    let mut out = Vec::new();
    let n = results.replications.len();
    if n < 5 {
        out.push(Warning::FewReplications { replications: n });
    }
    match stopping {
        crate::experiment::Stopping::MaximumReached { worst, .. } => {
            out.push(Warning::TargetNotReached { worst: worst.to_string(), replications: n })
        }
        &crate::experiment::Stopping::Interrupted { done, planned, sequential } => {
            out.push(Warning::Interrupted { done, planned, sequential })
        }
        _ => {}
    }
    let no_group_jobs =
        (0..scenario.policies.len()).all(|p| results.column(p, Metric::ArrivalRatePerHour).iter().all(|&a| a == 0.0));
    if no_group_jobs {
        out.push(Warning::NoGroupJobs);
    }
    out.extend(trace_warnings(scenario));
    out.extend(scenario_warnings(scenario));
    for (p, policy) in scenario.policies.iter().enumerate() {
        let unstable = results.policies[p].unstable.iter().filter(|&&u| u).count();
        if unstable > 0 {
            let load = crate::stats::summarize(&results.column(p, Metric::CampusOfferedLoad)).mean;
            out.push(Warning::Unstable {
                policy: policy.name.clone(),
                replications: unstable,
                of: n,
                offered_load: load,
                windows: scenario.has_windows() && load < 1.0,
            });
        }
        let jobs = crate::stats::summarize(&results.column(p, Metric::JobsCompleted)).mean;
        if jobs < 100.0 && !no_group_jobs {
            out.push(Warning::FewJobs { policy: policy.name.clone(), jobs });
        }
    }
    out
}

/// How far apart (either way) an account's share of the shares and its share of the
/// expected load may be before a warning (issue 20).
pub const SHARES_USE_FACTOR: f64 = 3.0;
/// A season's offered load from which, without patience, the queue grows through it
/// (issue 20; below 1 because backfill on nodes leaves fragments idle).
pub const SATURATED_LOAD: f64 = 0.97;

/// Hours of the whole campus beyond which a balking threshold counts as sized for another
/// campus (a week: the default's threshold is two days of its campus, the level at which
/// `squeue` shows "the next day"; a queue a week deep for every GPU deters nobody).
pub const BALK_CAMPUS_HOURS: f64 = 168.0;

/// What the scenario itself deserves, before any simulation: keys the campus model
/// ignores, shares far from expected use, a saturated season without patience.
pub fn scenario_warnings(scenario: &crate::scenario::Scenario) -> Vec<Warning> {
    use crate::scenario::raw::Placement;
    let mut out = Vec::new();
    let c = &scenario.raw.campus;
    if c.placement == Placement::Pool {
        const NODES: &str = "the pool (placement = \"pool\") counts nodes × gpus_per_node GPUs but places no job on a node; \
                             use placement = \"nodes\" for Slurm's placement";
        const BACKFILL: &str = "the pool (placement = \"pool\") backfills at every event, with no cycle or limits; \
                                use placement = \"nodes\" for Slurm's backfill";
        let given = [
            ("campus.gpus_per_node", c.gpus_per_node.is_some(), NODES),
            ("campus.bf_interval_seconds", c.bf_interval_seconds.is_some(), BACKFILL),
            ("campus.bf_max_job_test", c.bf_max_job_test.is_some(), BACKFILL),
            ("campus.bf_reservations", c.bf_reservations.is_some(), BACKFILL),
            ("campus.bf_window_hours", c.bf_window_hours.is_some(), BACKFILL),
            ("campus.bf_planner", c.bf_planner.is_some(), BACKFILL),
            ("campus.bf_resolution_seconds", c.bf_resolution_seconds.is_some(), BACKFILL),
        ];
        out.extend(given.into_iter().filter(|g| g.1).map(|(key, _, why)| Warning::IgnoredByModel { key, why }));
    }
    let a = crate::scenario::assumptions::Assumptions::of(scenario);
    out.extend(a.shares_far_from_use(SHARES_USE_FACTOR).into_iter().map(|(account, s, u)| Warning::SharesFarFromUse {
        account,
        share_of_shares: s,
        share_of_use: u,
    }));
    out.extend(never_start(scenario));
    out.extend(sized_for_another_campus(scenario));
    if let Some(h) = &scenario.stale_calibration_header {
        out.push(Warning::StaleCalibrationHeader { written: h.written.clone(), now: h.now.clone() });
    }
    let load = crate::workload::load::offered_load(scenario);
    let patient = scenario.campus.accounts.iter().any(|x| x.patience.patience_h.is_some());
    if let Some((season, bg)) = load.peak
        && bg + load.group_mean >= SATURATED_LOAD
        && !patient
    {
        out.push(Warning::SaturatedSeason { season, load: bg + load.group_mean });
    }
    out
}

/// Account limits and balking thresholds sized for a campus other than this one (issue 45
/// item 5): the shipped default copied onto a smaller campus keeps 384 GPUs' worth of both.
fn sized_for_another_campus(scenario: &crate::scenario::Scenario) -> Vec<Warning> {
    let gpus = scenario.campus.gpus;
    let mut out = Vec::new();
    for a in &scenario.campus.accounts {
        if let Some(limit) = a.gpu_limit.filter(|&l| l > gpus) {
            out.push(Warning::LimitAboveCampus { account: a.name.clone(), limit, gpus });
        }
        if let Some(gh) = a.patience.balk_gpu_hours.filter(|&gh| gpus > 0 && gh / f64::from(gpus) > BALK_CAMPUS_HOURS) {
            out.push(Warning::BalkingSizedForAnotherCampus { account: a.name.clone(), gpu_hours: gh, gpus });
        }
    }
    out
}

/// The classes some of whose jobs can never start on the campus, given its windows
/// (validation refused those none of whose jobs can).
fn never_start(scenario: &crate::scenario::Scenario) -> Vec<Warning> {
    use crate::scenario::feasibility::{SlurmAsk, never_start_share, window_misfit};
    let campus = &scenario.campus;
    let lists = [(true, &scenario.background), (false, &scenario.group)];
    let mut out = Vec::new();
    for (background, classes) in lists {
        for c in classes {
            let ask =
                SlurmAsk { account: c.account, partition: c.partition, nodes: c.nodes, gpus_per_node: c.gpus_per_node };
            let Some(w) = window_misfit(campus, c, ask) else { continue };
            out.push(Warning::NeverStart {
                class: c.name.clone(),
                background,
                share: never_start_share(campus, c, ask),
                longest: w.longest.request,
                asked: w.longest_request,
                window: campus.week.describe(w.longest.bound).to_string(),
            });
        }
    }
    out
}

/// What the scenario's trace bootstrap deserves: scrambled seasons, or a widened window.
pub fn trace_warnings(scenario: &crate::scenario::Scenario) -> Vec<Warning> {
    use crate::trace::bootstrap::{self, BlockLength};
    let Some(src) = scenario.background_trace.as_deref() else { return Vec::new() };
    if src.mode != crate::scenario::raw::TraceMode::Bootstrap {
        return Vec::new();
    }
    if src.undated {
        return vec![Warning::TraceDrawnUniformly];
    }
    let block = if src.block == BlockLength::Week { "week" } else { "day" };
    bootstrap::widening(&src.jobs, &src.bootstrap_spec(scenario))
        .map(|w| Warning::SeasonWindowWidened {
            widened: w.widened,
            blocks: w.blocks,
            asked_weeks: w.asked_weeks,
            widest_weeks: w.widest_weeks,
            block,
        })
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// The tiny fixture with its crunch season flattened (at 1.3 it saturates the campus).
    fn tiny() -> String {
        include_str!("../../tests/fixtures/tiny.toml").replace("multiplier = 1.3", "multiplier = 1.0")
    }

    fn warnings_of(text: &str) -> Vec<Warning> {
        scenario_warnings(&Scenario::from_toml_str(text, "t.toml").unwrap())
    }

    #[test]
    fn keys_the_pool_ignores_are_named() {
        assert!(warnings_of(&tiny()).is_empty(), "{:?}", warnings_of(&tiny()));
        let text = tiny().replace("gpus = 64\n", "gpus = 64\nbf_interval_seconds = 30\nbf_window_hours = 24\n");
        let keys: Vec<_> = warnings_of(&text)
            .into_iter()
            .filter_map(|w| if let Warning::IgnoredByModel { key, .. } = w { Some(key) } else { None })
            .collect();
        assert_eq!(keys, ["campus.bf_interval_seconds", "campus.bf_window_hours"]);
        // On nodes the same keys are used: no warning.
        let nodes = text.replace("gpus = 64\n", "placement = \"nodes\"\nnodes = 8\ngpus_per_node = 8\n");
        assert!(!warnings_of(&nodes).iter().any(|w| matches!(w, Warning::IgnoredByModel { .. })));
    }

    #[test]
    fn a_saturated_season_without_patience_is_flagged() {
        // 0.8 mean load with a 1.3 crunch: about 1.02 in the crunch with the group's jobs.
        let hot = tiny().replace("multiplier = 1.0", "multiplier = 1.3");
        let w = warnings_of(&hot);
        assert!(
            w.iter()
                .any(|w| matches!(w, Warning::SaturatedSeason { season, load } if season == "crunch" && *load >= 0.97)),
            "{w:?}"
        );
        assert!(!warnings_of(&tiny()).iter().any(|w| matches!(w, Warning::SaturatedSeason { .. })));
    }

    #[test]
    fn shares_far_from_use_are_flagged_under_multifactor_only() {
        let nodes = tiny()
            .replace("gpus = 64\n", "placement = \"nodes\"\nnodes = 8\ngpus_per_node = 8\npriority = \"multifactor\"\n")
            .replace("[[campus.maintenance]]", "[[campus.accounts]]\nname = \"group\"\nfairshare = 50\n[[campus.accounts]]\nname = \"others\"\nfairshare = 50\n[[campus.maintenance]]");
        // Listed with half the shares while bringing about 6% of the load; "others" the
        // reverse. (An unlisted "others" would be scaled to the group's ratio: no warning.)
        let w = warnings_of(&nodes);
        assert!(
            w.iter().any(|w| matches!(w, Warning::SharesFarFromUse { account, .. } if account == "group")),
            "{w:?}"
        );
    }

    #[test]
    fn every_templated_warning_reads_in_chinese_and_the_rest_stays_as_written() {
        use crate::i18n::Lang;
        let all = [
            Warning::FewReplications { replications: 3 },
            Warning::Unstable { policy: "p".into(), replications: 2, of: 5, offered_load: 0.81, windows: true },
            Warning::Unstable { policy: "p".into(), replications: 2, of: 5, offered_load: 1.2, windows: false },
            Warning::TargetNotReached { worst: "wait_mean_h ± 0.4".into(), replications: 40 },
            Warning::Interrupted { done: 7, planned: 20, sequential: false },
            Warning::Interrupted { done: 32, planned: 1000, sequential: true },
            Warning::NoGroupJobs,
            Warning::FewJobs { policy: "p".into(), jobs: 42.0 },
            Warning::SharesFarFromUse { account: "a".into(), share_of_shares: 0.5, share_of_use: 0.06 },
            Warning::SaturatedSeason { season: "crunch".into(), load: 1.02 },
            Warning::LimitAboveCampus { account: "a".into(), limit: 512, gpus: 64 },
            Warning::BalkingSizedForAnotherCampus { account: "a".into(), gpu_hours: 18432.0, gpus: 64 },
            Warning::StaleCalibrationHeader { written: "ab12".into(), now: "cd34".into() },
        ];
        for w in &all {
            let en = w.to_string();
            let zh = in_lang(&en, Lang::Zh);
            assert_ne!(zh, en, "no Chinese template matches: {en}");
            assert_eq!(in_lang(&en, Lang::En), en);
        }
        assert!(in_lang(&all[0].to_string(), Lang::Zh).starts_with("只有 3 次重复"));
        let ignored = Warning::IgnoredByModel { key: "campus.x", why: "the pool has none" }.to_string();
        assert_eq!(in_lang(&ignored, Lang::Zh), ignored);
    }

    #[test]
    fn an_interrupted_sequential_run_does_not_claim_a_planned_total() {
        let fixed = Warning::Interrupted { done: 7, planned: 20, sequential: false }.to_string();
        assert!(fixed.contains("only 7 of 20 replications finished"), "{fixed}");
        // Under sequential stopping 32 done may exceed the scenario's 10: no "32 of 10".
        let seq = Warning::Interrupted { done: 32, planned: 1000, sequential: true }.to_string();
        assert!(seq.contains("interrupted after 32 replications") && !seq.contains("of 10 "), "{seq}");
        assert!(seq.contains("at 1000 at most"), "{seq}");
    }
}
