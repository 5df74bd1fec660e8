//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// What `burstsim --version` prints after the name: Cargo.toml's version and the commit
/// the binary was built from (build.rs; `unknown` for a build outside a git checkout).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("BURSTSIM_COMMIT"), ")");

/// Simulate a campus GPU queue next to hourly and monthly cloud GPUs, and compare what
/// each hybrid policy costs your group and how long its jobs wait.
///
/// Start with `burstsim run` (the built-in Wuhan-lab scenario), then copy
/// scenarios/default.toml and edit it for your group.
///
/// Exit codes: 0 success, 1 the run failed, 2 bad input or usage.
#[derive(Debug, Parser)]
#[command(name = "burstsim", version = VERSION, about, long_about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario's policies over Monte Carlo replications; print the decision (the
    /// full tables with --verbose), write CSVs, charts and a report.
    Run(RunArgs),
    /// Combine the shard folders of `run --shard` into the files one machine would write.
    Merge(MergeArgs),
    /// Run a scenario at every point of a parameter grid; recommend the cheapest setting
    /// that meets your targets with 95% confidence.
    Sweep(SweepArgs),
    /// Check the engine against queueing theory (M/M/c vs Erlang C, Little's law).
    Validate(ValidateArgs),
    /// Redraw the charts (SVG, PNG) and the report (HTML, Markdown) of a run or sweep
    /// folder from its files alone: `burstsim plot output/default --lang zh`.
    Plot(PlotArgs),
    /// Measure speed: the engine on reference configurations, the default scenario end
    /// to end, Monte Carlo scaling over threads (medians of several repetitions).
    Bench(BenchArgs),
    /// Estimate a scenario from a cluster's own log (SWF, sacct or CSV): arrival rates,
    /// monthly seasons, hour-of-week profiles, GPU-count mix, and requested times drawn
    /// with run times (by request band) where the log records requests, else run times by
    /// maximum likelihood.
    Fit(FitArgs),
    /// Fit the campus inputs nobody measured (background load, peak multipliers, the
    /// group's fair-share, patience) to the waits the group observed ([calibration] in the
    /// scenario, or --sacct LOG); write the calibrated scenario.
    Calibrate(CalibrateArgs),
    /// Queue or rent, now: from a snapshot of the live campus (squeue and sinfo), when a
    /// job submitted now would start, and what waiting, renting now or waiting then
    /// renting would cost and when each would finish (docs/ADVISE.md).
    Advise(AdviseArgs),
}

/// `burstsim bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Repetitions per case (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub repetitions: usize,
    /// Jobs in the FCFS reference run.
    #[arg(long, default_value_t = 1_000_000.0)]
    pub reference_jobs: f64,
    /// A tiny, fast version of every case (a smoke test, not a measurement).
    #[arg(long)]
    pub smoke: bool,
    /// Only cases whose name contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// Replications per point in the shipped-sweep cases (one repetition each; the
    /// shipped files ask for 20, so the time at 20 is about 20 / N times this one).
    #[arg(long, default_value_t = 2)]
    pub sweep_replications: u32,
    /// Also count the instructions of one repetition of each case (not the sweeps or
    /// Monte Carlo scaling) under valgrind's callgrind, about 50 times slower, and print
    /// them per job: unlike seconds, they do not depend on the machine's load.
    #[arg(long)]
    pub instructions: bool,
}

/// `burstsim run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario file (TOML). Without one, the built-in default scenario runs.
    pub scenario: Option<PathBuf>,
    /// Replications per policy (overrides the scenario).
    #[arg(long, short = 'n')]
    pub replications: Option<u32>,
    /// Master seed (overrides the scenario).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How the other groups' campus is simulated (overrides simulation.campus_model):
    /// exact (every policy jointly, the reference) or shared (once per replication, in the
    /// baseline's run; docs/VALIDATION.md "Shared background").
    #[arg(long, value_enum)]
    pub campus_model: Option<CampusModelArg>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Output folder (default: output/<scenario name>/). With --shard: the folder that
    /// collects every shard (default: output/<scenario name>/shards/); this shard writes
    /// its own shard-INDEX-of-COUNT/ inside it.
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Replace the results of another run in the output folder (without it, a folder
    /// holding a different run's results is refused; the same run is simply redone).
    #[arg(long)]
    pub force: bool,
    /// Sequential stopping: add replications (at least 20, in growing batches) until each
    /// watched 95% CI is this narrow, for every policy, up to simulation.max_replications.
    /// A bare 0.05 or 5% means ±5% of the mean on total_cost_cny and wait_mean_h;
    /// METRIC=2% is relative, METRIC=0.1 absolute in the metric's unit (e.g.
    /// wait_mean_h=0.1 for ±0.1 h; rates in percentage points: deadline_miss_rate=1pp).
    /// Repeatable (docs/STATISTICS.md).
    #[arg(long, value_name = "[METRIC=]WIDTH")]
    pub ci_target: Vec<String>,
    /// No progress bar and no table; errors and warnings still go to stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// A requirement such as 'wait_p95_h<=2' or 'deadline_miss_rate<=5%' (repeatable;
    /// rates and shares in percent, with the % sign): report, per policy, the share of
    /// simulated years that miss any of them, with an exact 95% CI (risk.csv).
    #[arg(long = "target", short = 't')]
    pub targets: Vec<String>,
    /// Run only shard INDEX/COUNT of the replications (INDEX, INDEX+COUNT, …) and write a
    /// shard folder for `burstsim merge` (Slurm job arrays: --shard $SLURM_ARRAY_TASK_ID/N).
    #[arg(long)]
    pub shard: Option<String>,
    /// Do not draw charts/ and report.html at the end (`burstsim plot DIR` draws them later).
    #[arg(long)]
    pub no_charts: bool,
    /// Also print the results of each job class (waits, quantiles, deadline misses, cloud
    /// share); classes.csv has them in any case.
    #[arg(long)]
    pub by_class: bool,
    /// After the decision, print the full tables: every policy's summary and paired
    /// differences, the targets' risks and the sensitivity band (the CSV files and
    /// report.html hold them in any case).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Language of the printed decision: en or zh (the files are the same in both;
    /// `burstsim plot DIR --lang zh` draws the Chinese charts and report).
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    pub lang: LangArg,
    /// Write the CSV files as UTF-8 with a byte-order mark, so Excel (on Chinese Windows
    /// too) shows Chinese names correctly; without it they are plain UTF-8.
    #[arg(long)]
    pub excel: bool,
    /// Skip the sensitivity band (sensitivity.csv, the tornado chart): each uncertain
    /// input adds two runs of the whole experiment at --sensitivity-replications.
    #[arg(long)]
    pub no_sensitivity: bool,
    /// Replications per level of the sensitivity band (overrides `[sensitivity]
    /// replications`, default 4; at most --replications).
    #[arg(long, value_name = "N")]
    pub sensitivity_replications: Option<u32>,
}

/// `burstsim merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard folders, or folders containing them (e.g. output/default/shards).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output folder (default: output/<scenario name>/).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Replace the results of another run in the output folder.
    #[arg(long)]
    pub force: bool,
    /// No table.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Do not draw charts/ and report.html (`burstsim plot DIR` draws them later).
    #[arg(long)]
    pub no_charts: bool,
    /// Write the CSV files as UTF-8 with a byte-order mark, for Excel.
    #[arg(long)]
    pub excel: bool,
}

/// Table or CSV.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutputFormatArg {
    /// Aligned text for people.
    Table,
    /// CSV for scripts.
    Csv,
}

/// `burstsim validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormatArg::Table)]
    pub format: OutputFormatArg,
    /// Run the small, fast case set used by the test suite.
    #[arg(long)]
    pub quick: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Replay a real log instead (`--trace LOG --gpus N --scheduler …`).
    #[command(flatten)]
    pub replay: TraceValidateArgs,
}

/// `burstsim sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// Scenario file (TOML); its [sweep] table is used when no --param is given.
    pub scenario: PathBuf,
    /// KEY=V1,V2,… or KEY=START:STOP:STEP; KEY is a dotted path into the scenario, lists
    /// of tables addressed by name: policies.overflow-4h.threshold_hours,
    /// background.seasons.final-exams.multiplier, campus.gpus,
    /// cloud.offers.rtx4090-hourly.price_per_gpu_hour_cny. Repeat for a grid (up to 3).
    #[arg(long = "param", short = 'p')]
    pub params: Vec<String>,
    /// Treat swept KEY as a decision the group takes (default for policies.* and a
    /// monthly offer's gpus); repeatable.
    #[arg(long = "decision", value_name = "KEY")]
    pub decisions: Vec<String>,
    /// Treat swept KEY as a condition the group faces (default for background.*,
    /// workload.*, campus.*, prices); the output gives the best decision at each of its
    /// values and a robust choice across them. Repeatable.
    #[arg(long = "condition", value_name = "KEY")]
    pub conditions: Vec<String>,
    /// KEY=W1,W2,…: weights of a condition's values (a scenario point's weight is the
    /// product over its conditions); adds the decision with the least weighted mean cost.
    #[arg(long = "weight", value_name = "KEY=W1,W2,…")]
    pub weights: Vec<String>,
    /// A requirement such as 'wait_p95_h<=24', 'deadline_miss_rate<=5%',
    /// 'total_cost_cny<=50000' or, for one job class, 'main-training:wait_p95_h<=24'
    /// (repeatable): the cheapest point and policy whose 95% CI meets all of them is
    /// recommended. Rates and shares are in percent, with the % sign.
    #[arg(long = "target", short = 't')]
    pub targets: Vec<String>,
    /// Choose by risk across years instead of by the mean year: the cheapest setting whose
    /// chance of missing the --target(s) in a given simulated year is at most this share
    /// (e.g. 0.1), judged by the exact upper confidence bound of the share of simulated
    /// years that missed (Bonferroni-corrected over the candidates; docs/STATISTICS.md).
    #[arg(long)]
    pub risk: Option<f64>,
    /// POLICY_A,POLICY_B: where along a one-parameter sweep their mean costs cross.
    #[arg(long)]
    pub break_even: Option<String>,
    /// Continue an interrupted sweep in the same --out folder (finished points are kept;
    /// the same sweep run again without it also reuses them).
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Replace a different sweep's results in the output folder (its points are removed
    /// first); without it such a folder is refused.
    #[arg(long, conflicts_with = "shard")]
    pub force: bool,
    /// Run only points INDEX, INDEX+COUNT, … (a Slurm array task: --shard
    /// $SLURM_ARRAY_TASK_ID/N); all shards share --out, and a final `--resume` run
    /// assembles sweep.csv once every point is done.
    #[arg(long)]
    pub shard: Option<String>,
    /// Replications per point (overrides the scenario).
    #[arg(long, short = 'n')]
    pub replications: Option<u32>,
    /// Master seed (overrides the scenario).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How the other groups' campus is simulated at every point (overrides
    /// simulation.campus_model): exact (the reference) or shared (once per point and
    /// replication, in the baseline's run; docs/VALIDATION.md "Shared background").
    #[arg(long, value_enum)]
    pub campus_model: Option<CampusModelArg>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Output folder (default: output/<scenario name>/ when the name ends in "sweep",
    /// else output/<scenario name>-sweep/, apart from a run's output/<scenario name>/).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// No progress bar and no table.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Do not draw charts/ and report.html at the end (`burstsim plot DIR` draws them later).
    #[arg(long)]
    pub no_charts: bool,
    /// Write sweep.csv and risk.csv as UTF-8 with a byte-order mark, for Excel.
    #[arg(long)]
    pub excel: bool,
}

/// Label language.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LangArg {
    /// English.
    En,
    /// Simplified Chinese (bundled font; no system fonts needed).
    Zh,
}

impl From<LangArg> for burstsim::i18n::Lang {
    fn from(l: LangArg) -> Self {
        match l {
            LangArg::En => burstsim::i18n::Lang::En,
            LangArg::Zh => burstsim::i18n::Lang::Zh,
        }
    }
}

/// `burstsim plot`.
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// A folder written by `burstsim run` (summary.csv, …) or `burstsim sweep` (sweep.csv).
    pub dir: PathBuf,
    /// Language of the labels and the report.
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    pub lang: LangArg,
    /// Width of every chart in pixels (SVG and PNG).
    #[arg(long, default_value_t = 1600)]
    pub width: u32,
    /// Height of every chart in pixels.
    #[arg(long, default_value_t = 1000)]
    pub height: u32,
    /// Text at the start of every chart title (default: the scenario name); '' for no titles.
    #[arg(long)]
    pub title: Option<String>,
    /// Base font size in pixels (default: width ÷ 64, 25 px at 1600 px).
    #[arg(long)]
    pub font_size: Option<f64>,
    /// A TrueType/OpenType font to draw with, PATH or PATH#FACE for a .ttc collection
    /// (e.g. /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc#2).
    #[arg(long)]
    pub font: Option<String>,
    /// Print nothing but errors and warnings.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Draw nothing; check every chart's text layout instead (no two labels over each
    /// other, none off the canvas), print each fault and exit with 1 when there is one.
    #[arg(long)]
    pub check_layout: bool,
}

/// How to read a log (shared by `validate --trace` and `fit`).
#[derive(Debug, Clone, clap::Args)]
pub struct ReadArgs {
    /// Refuse the log at its first bad row (default: skip bad rows and count them).
    #[arg(long)]
    pub strict: bool,
    /// Log format (default: from the name and first line).
    #[arg(long, value_enum, ignore_case = true)]
    pub trace_format: Option<TraceFormatArg>,
    /// Column mapping of a CSV job list: a preset (alibaba-openb-2023, alibaba-dlrm-2025,
    /// alibaba-pai-2020, helios) or a TOML file (docs/TRACES.md).
    #[arg(long)]
    pub mapping: Option<String>,
    /// What job sizes count.
    #[arg(long, value_enum, default_value_t = UnitsArg::Auto)]
    pub units: UnitsArg,
    /// Processors (or GPUs) per simulated GPU: sizes are divided by it and rounded up.
    #[arg(long, default_value_t = 1.0)]
    pub procs_per_gpu: f64,
}

/// `burstsim validate --trace LOG …`: flattened into `validate`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct TraceValidateArgs {
    /// Replay this log (SWF, sacct or CSV) and compare simulated with recorded queue
    /// delays instead of the queueing-theory checks.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// GPUs (or processors) of the replayed cluster (default: the log's MaxProcs; with
    /// --gpus-per-node, --nodes may give the size instead).
    #[arg(long, requires = "trace")]
    pub gpus: Option<u32>,
    /// Replay on nodes of this many GPUs (placement = "nodes": best fit on one node, a job
    /// larger than a node on whole nodes, backfill every --bf-interval) instead of a pool.
    #[arg(long, requires = "trace")]
    pub gpus_per_node: Option<u32>,
    /// Nodes of the replayed cluster (default: --gpus / --gpus-per-node, which must divide;
    /// without --gpus, ⌈MaxProcs / --gpus-per-node⌉ from the log).
    #[arg(long, requires = "gpus_per_node")]
    pub nodes: Option<u32>,
    /// Queue order on nodes.
    #[arg(long, value_enum, default_value_t = PriorityArg::Fifo, requires = "trace")]
    pub priority: PriorityArg,
    /// Seconds between backfill passes on nodes (Slurm's bf_interval; default 30).
    #[arg(long, value_name = "SECONDS", requires = "gpus_per_node")]
    pub bf_interval: Option<u32>,
    /// Tested jobs that get a reservation in each backfill pass on nodes (default 16;
    /// Slurm reserves for every job it tests, up to bf_max_job_test = 500).
    #[arg(long, value_name = "N", requires = "gpus_per_node")]
    pub bf_reservations: Option<u32>,
    /// How backfill plans a job that cannot start now, on nodes (default: exact).
    #[arg(long, value_enum, value_name = "PLANNER", requires = "gpus_per_node")]
    pub bf_planner: Option<BfPlannerArg>,
    /// Slurm's bf_resolution in seconds, for --bf-planner slurm (default 60).
    #[arg(long, value_name = "SECONDS", requires = "bf_planner")]
    pub bf_resolution: Option<u32>,
    /// Seconds each job holds its nodes past its recorded end, on nodes (Slurm's
    /// COMPLETING state: the next job starts a moment after a job ends; default 0).
    #[arg(long, value_name = "SECONDS", requires = "gpus_per_node")]
    pub completing: Option<u32>,
    /// Fair-share on nodes, as a Slurm with accounting runs it. Each job is in its log's
    /// account (the mapping's `group` column) and the priority is multifactor with
    /// fair-share its only factor (docs/TRACES.md).
    #[arg(long, value_enum, value_name = "ALGORITHM", requires = "gpus_per_node")]
    pub fairshare: Option<FairshareArg>,
    /// Raw shares of each account, as sacctmgr's fairshare=: NAME=SHARES,… (default:
    /// 1 for every account of the log). Slurm's root user association is added as
    /// account `root` with 1 share unless listed.
    #[arg(long, value_name = "LIST", requires = "fairshare")]
    pub shares: Option<String>,
    /// PriorityDecayHalfLife in seconds (default 604800, Slurm's 7 days).
    #[arg(long, value_name = "SECONDS", requires = "fairshare")]
    pub decay_half_life: Option<u64>,
    /// PriorityCalcPeriod in seconds, a whole number of minutes (default 300, Slurm's).
    #[arg(long, value_name = "SECONDS", requires = "fairshare")]
    pub calc_period: Option<u64>,
    /// Seconds from the log's first submission to Slurm's first priority recalculation
    /// (default: one --calc-period; `slurm-replay.py run --calc-phase P` makes it
    /// calc period − P).
    #[arg(long, value_name = "SECONDS", requires = "fairshare")]
    pub calc_offset: Option<u64>,
    /// Book usage as Slurm 22.05's decay thread does instead of exactly: credited to
    /// running jobs at each recalculation (a job's time after the last one before its end
    /// is lost), fair-share factors held between recalculations, classic's one behind.
    #[arg(long, requires = "fairshare")]
    pub slurm_usage: bool,
    /// Also write one row per replayed job: job,submit,size,recorded_start,
    /// simulated_start,recorded_wait_s,simulated_wait_s (seconds after the log's first
    /// submission).
    #[arg(long, value_name = "FILE", requires = "trace")]
    pub jobs_out: Option<PathBuf>,
    /// Scheduler of the replay.
    #[arg(long, value_enum, default_value_t = SchedulerArg::EasyBackfill, requires = "trace")]
    pub scheduler: SchedulerArg,
    /// Runtime estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = EstimatesArg::Recorded, requires = "trace")]
    pub estimates: EstimatesArg,
    /// Outages of the replayed cluster.
    #[arg(long, value_enum, default_value_t = OutagesArg::None, requires = "trace")]
    pub outages: OutagesArg,
    /// Shortest stretch counted as an outage by --outages infer, in hours (default 1;
    /// for sensitivity checks).
    #[arg(long, value_name = "HOURS", requires = "outages")]
    pub outage_min_hours: Option<f64>,
    /// Scheduler cycle: none, auto (the granularity of the log's recorded waits) or a
    /// number of seconds; the scheduler then passes only at multiples of it.
    #[arg(long, default_value = "none", requires = "trace")]
    pub cycle: String,
    /// Out of sample: fit a scenario on the first half of the log (by submission time),
    /// simulate the second half's period from it and compare with its recorded waits
    /// (pool of --gpus, the fitted outages, cycle and arrivals; docs/VALIDATION.md).
    /// With --site-rules: fit on the regime's first period (KTH: September–January),
    /// simulate the second (February–5 June) under the documented rules, no outages or
    /// cycle; mean waits by requested-time class with 95% CIs over replications.
    #[arg(long, requires = "trace")]
    pub out_of_sample: bool,
    /// Replications of the out-of-sample simulation.
    #[arg(long, default_value_t = 10, requires = "out_of_sample")]
    pub replications: u32,
    /// Master seed of the out-of-sample simulation.
    #[arg(long, default_value_t = 1, requires = "out_of_sample")]
    pub seed: u64,
    /// Backtest advise on N of the log's own jobs (issue 44): each one's queue rebuilt at
    /// its submission, advise run with a scenario fitted on the months before it, its
    /// recorded start scored beside two baselines (docs/VALIDATION.md, "Backtest").
    #[arg(long, value_name = "N", requires = "out_of_sample")]
    pub backtest: Option<usize>,
    /// With --backtest: write the correction of advise's intervals learned from every
    /// probe (split-conformal on the log scale), for `advise --correction FILE`.
    #[arg(long, value_name = "FILE", requires = "backtest")]
    pub correction_out: Option<PathBuf>,
    /// Also write the scenario fitted on the first half (with the second half's dates).
    #[arg(long, value_name = "FILE", requires = "out_of_sample")]
    pub fitted_out: Option<PathBuf>,
    /// Replay under a site's documented rules. Mean waits by requested-time class, at the
    /// log's minute resolution, September–January and February–5 June (docs/VALIDATION.md).
    #[arg(long, value_enum, ignore_case = true, value_name = "SITE", requires = "trace")]
    pub site_rules: Option<SiteRulesArg>,
    /// Input shaking: this many more replays, each moving every submission by up to ±60 s
    /// (uniform, seeded), for an interval on each figure.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "site_rules")]
    pub shake: u32,
    /// Master seed of the shaking.
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "site_rules")]
    pub shake_seed: u64,
    /// How to read the log.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `burstsim fit`.
#[derive(Debug, Clone, clap::Args)]
pub struct FitArgs {
    /// The log (SWF, sacct --parsable2 or CSV with --mapping).
    pub log: PathBuf,
    /// Scenario file to write (default: <scenario name>.toml in the current folder).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Cluster size in GPUs: required when the log does not state it (sacct exports and
    /// CSV job lists never do; an SWF header's MaxProcs is used otherwise).
    #[arg(long)]
    pub gpus: Option<u32>,
    /// Write the campus as nodes of this many GPUs (placement = "nodes", Slurm's node
    /// model); it must divide the cluster's size. Default: one pool of GPUs.
    #[arg(long)]
    pub gpus_per_node: Option<u32>,
    /// Days to simulate (default: one calendar year from the log's first day, whatever
    /// the log's span).
    #[arg(long)]
    pub horizon_days: Option<f64>,
    /// Scenario name (default: the -o file's stem, else <log name>-fit, with -user-U or
    /// -account-A for --group-user or --group-account), so each fit runs into its own
    /// output/<name>/.
    #[arg(long)]
    pub name: Option<String>,
    /// This user's jobs are your group's own: fitted as [[workload.classes]] (the rest is the background)
    #[arg(long, conflicts_with = "group_account")]
    pub group_user: Option<String>,
    /// This account's (SWF: group id's) jobs are your group's own, as --group-user
    #[arg(long)]
    pub group_account: Option<String>,
    /// How to read the log.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `burstsim calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Scenario file with a [calibration] table (docs/CALIBRATION.md).
    pub scenario: PathBuf,
    /// Replications per evaluated point (overrides calibration.replications).
    #[arg(long, short = 'n')]
    pub replications: Option<u32>,
    /// Most evaluated points (overrides calibration.budget).
    #[arg(long)]
    pub budget: Option<u32>,
    /// Master seed (overrides the scenario).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Output folder (default: output/<scenario name>-calibration/).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Replace files in an output folder that holds files other than a calibration's.
    #[arg(long)]
    pub force: bool,
    /// Observations from a log (a sacct --parsable2 export, or SWF with dates) in addition
    /// to [[calibration.observed]]: mean and p90 wait of every month with 30 started jobs.
    #[arg(long)]
    pub sacct: Option<PathBuf>,
    /// Whose jobs the log holds.
    #[arg(long, value_enum, default_value_t = LogJobsArg::Group, requires = "sacct")]
    pub log_jobs: LogJobsArg,
    /// Keep only this account's jobs of the log.
    #[arg(long, requires = "sacct")]
    pub account: Option<String>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `burstsim advise`.
#[derive(Debug, clap::Args)]
pub struct AdviseArgs {
    /// The squeue file (`squeue --json`, or the text format of docs/ADVISE.md); without
    /// --squeue and --sinfo, squeue and sinfo are run now (they must be on the PATH).
    #[arg(long, requires = "sinfo")]
    pub squeue: Option<PathBuf>,
    /// The sinfo file (`sinfo --json`, or `sinfo -h -N -o '%N|%T|%c|%G|%P'`).
    #[arg(long, requires = "squeue")]
    pub sinfo: Option<PathBuf>,
    /// When the snapshot was taken (Unix seconds), for files that do not say.
    #[arg(long)]
    pub taken_at: Option<i64>,
    /// GPUs of the job, all nodes together.
    #[arg(long, required_unless_present = "job_id")]
    pub gpus: Option<u32>,
    /// Its time limit (`--time`): `2-00:00:00`, `90` (minutes), `36h`, `90s`.
    #[arg(long, required_unless_present = "job_id")]
    pub walltime: Option<String>,
    /// Its expected runtime on a campus GPU (default: the time limit).
    #[arg(long)]
    pub runtime: Option<String>,
    /// Nodes (`--nodes`; default: the scheduler places it).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Partition (default: the snapshot's only partition).
    #[arg(long)]
    pub partition: Option<String>,
    /// Account (checked against the scenario's and the snapshot's accounts).
    #[arg(long)]
    pub account: Option<String>,
    /// Its expected Slurm priority (see `sprio`): it queues behind the pending jobs of at
    /// least this priority. Default: behind every pending job.
    #[arg(long)]
    pub priority: Option<u64>,
    /// The job is already submitted and pending in the snapshot with this id: its size,
    /// limit and priority come from the snapshot, and Slurm's own estimate is shown.
    #[arg(long)]
    pub job_id: Option<String>,
    /// What the job computes (the cloud offer's speed for it).
    #[arg(long, value_enum, default_value_t = KindArg::Transformer)]
    pub kind: KindArg,
    /// Data to upload for a cloud run, GB.
    #[arg(long, default_value_t = 0.0)]
    pub data_gb: f64,
    /// Scenario: arrivals of new jobs, backfill settings, campus price, cloud offers
    /// (default: the embedded default; a `burstsim fit` scenario of your campus is better).
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Replications of the forward simulation.
    #[arg(long, short = 'n', default_value_t = 200)]
    pub replications: u32,
    /// Master seed (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Days of new arrivals simulated after the snapshot.
    #[arg(long, default_value_t = 14.0)]
    pub horizon_days: f64,
    /// The job must finish within this long from now (`36h`, `2-00:00:00`); the answer
    /// names the cheapest choice that makes it with --confidence.
    #[arg(long)]
    pub deadline: Option<String>,
    /// How sure a choice must be to finish by the deadline.
    #[arg(long, default_value_t = 0.9)]
    pub confidence: f64,
    /// The hourly cloud offer to rent (default: the scenario's cheapest for this job).
    #[arg(long)]
    pub offer: Option<String>,
    /// Hours to wait for the campus before renting, one choice each.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1.0, 4.0, 12.0, 24.0])]
    pub wait_hours: Vec<f64>,
    /// Widen the start intervals by a correction learned out of sample (the file
    /// `validate --out-of-sample --backtest N --correction-out FILE` writes; docs/ADVISE.md).
    #[arg(long, value_name = "FILE")]
    pub correction: Option<PathBuf>,
    /// Print one JSON object instead of the table (for scripts).
    #[arg(long)]
    pub json: bool,
    /// Language of the table.
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    pub lang: LangArg,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
}

/// The value of a fixed-set flag as the command line spells it (`easy-backfill`), for
/// the headers that name it.
pub fn spelled<T: ValueEnum>(value: &T) -> String {
    value.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
}

/// `--trace-format`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TraceFormatArg {
    /// The Standard Workload Format.
    Swf,
    /// `sacct --parsable2`.
    #[value(alias = "slurm")]
    Sacct,
    /// A CSV job list (with --mapping).
    Csv,
}

/// `--units`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum UnitsArg {
    /// GPUs if the log has any, else processors.
    Auto,
    /// Processors.
    #[value(alias = "processors")]
    Procs,
    /// GPUs.
    Gpus,
}

/// `--priority`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PriorityArg {
    /// Submission order.
    Fifo,
    /// Slurm's plugin with the scenario's default weights (needs nodes; the log's jobs
    /// share one account, so age and job size order them).
    Multifactor,
}

/// `--bf-planner`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BfPlannerArg {
    /// The earliest time the job fits.
    Exact,
    /// Slurm 22.05's planner: running jobs' ends in widening windows, reservations on
    /// --bf-resolution's grid, cons_tres's best fit.
    Slurm,
}

/// `--fairshare`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FairshareArg {
    /// PriorityFlags=NO_FAIR_TREE.
    Classic,
    /// Slurm's Fair Tree.
    #[value(alias = "fairtree")]
    FairTree,
}

/// `--scheduler` of a replay.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SchedulerArg {
    /// First come, first served.
    Fcfs,
    /// EASY backfill.
    #[value(alias = "easy")]
    EasyBackfill,
}

/// `--estimates`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EstimatesArg {
    /// The requested walltime.
    Recorded,
    /// The runtime itself.
    Exact,
}

/// `--outages`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutagesArg {
    /// None.
    None,
    /// Stop the scheduler during the log's own outages: an hour or more in which jobs
    /// waited, the first of them fitted and nothing started (docs/VALIDATION.md).
    Infer,
}

/// `--site-rules`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SiteRulesArg {
    /// KTH-SP2 before 6 June 1997: MaxTime 4 h on weekdays 07–16, 15 h on weekday nights,
    /// 60 h at weekends, no job across 07:00 and 16:00 on weekdays.
    Kth,
    /// The MaxTimes without the 07:00/16:00 rule (sensitivity).
    KthMaxtimeOnly,
}

/// `--log-jobs`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LogJobsArg {
    /// The group's own jobs: observations of class all.
    Group,
    /// Every job: class campus.
    Campus,
}

/// `--kind` of an advised job.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum KindArg {
    /// Computer vision.
    Cv,
    /// Transformers.
    Transformer,
}

/// `--campus-model`: the library's [`burstsim::scenario::raw::CampusModel`].
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum CampusModelArg {
    /// Every policy simulated jointly with the other groups (the reference).
    Exact,
    /// The other groups simulated once per replication and replayed.
    Shared,
}

impl From<CampusModelArg> for burstsim::scenario::raw::CampusModel {
    fn from(a: CampusModelArg) -> Self {
        match a {
            CampusModelArg::Exact => Self::Exact,
            CampusModelArg::Shared => Self::Shared,
        }
    }
}
