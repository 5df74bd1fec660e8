//! A snapshot of the live campus (issue 23, the first part of `burstsim advise`): what
//! `squeue` and `sinfo` say right now, read into a typed [`Snapshot`] of nodes, running
//! jobs and pending jobs. The forward simulation from a snapshot and the advice are not
//! built yet; docs/ADVISE.md says how to take a snapshot and what is read.
//!
//! ```text
//! squeue file ─┐  JSON (`squeue --json`, Slurm 22.05+)   json.rs
//!              │  text (`squeue -h -o QUEUE_FORMAT`)     plain.rs
//! sinfo file  ─┤  JSON (`sinfo --json`, both layouts)    json.rs
//!              └  text (`sinfo -h -N -o NODE_FORMAT`)    plain.rs
//!   ─ read_files ─▶ Snapshot { taken_at, nodes, running, pending }
//!   Snapshot::warnings(now)        older than 15 minutes, or from the future; jobs far
//!                                  past their limit or started after the snapshot
//!   Snapshot::check_request(job)   partition and account known, the job fits on the nodes
//! ```
//!
//! A file's format is told by its first non-blank character (`{` is JSON). Unlike the
//! log readers, a snapshot is read whole or refused: one unreadable job would change
//! every start behind it, so [`SnapshotError`] names the file, the line (text) or the
//! JSON path (or line and column for broken JSON), the field and what is allowed. So are
//! a job id listed twice (two squeue outputs joined), running jobs holding more GPUs than
//! their partition has, and numbers out of range (a node count of 2³² + 2 is not 2).
//!
//! Times are whole seconds on the snapshot's clock: Unix time for JSON and for text
//! taken with `SLURM_TIME_FORMAT=%s` (the documented commands), or local time when the
//! text has calendar timestamps (then its `# taken_at` line must be local time too).

mod gres;
mod hostlist;
mod json;
mod plain;

use std::fmt;
use std::path::Path;

/// The `squeue -o` format string the text reader expects (fields separated by `|`):
/// job id, state, partition, account, user, priority, submit time, start time (actual
/// or Slurm's estimate), time limit, time used, node count, GRES per node.
pub const QUEUE_FORMAT: &str = "%i|%T|%P|%a|%u|%Q|%V|%S|%l|%M|%D|%b";

/// The `sinfo -N -o` format string the text reader expects: node name, state, CPUs,
/// GRES, partition (one line per node and partition).
pub const NODE_FORMAT: &str = "%N|%T|%c|%G|%P";

/// A snapshot older than this (seconds) relative to "now" gets [`SnapshotWarning::Stale`].
pub const STALE_AFTER_S: i64 = 15 * 60;

/// A running job more than this (seconds) past its time limit gets
/// [`SnapshotWarning::OverLimit`]. Slurm ends a job at its limit plus `OverTimeLimit`
/// (default 0) and `KillWait` (default 30 s); one still running long after is a sign of a
/// stale or misread file. The same quarter hour as [`STALE_AFTER_S`]: a snapshot that old
/// is stale too.
pub const OVER_LIMIT_AFTER_S: i64 = STALE_AFTER_S;

/// A time more than this (seconds) after the snapshot's gets a warning: the clock
/// tolerance of [`SnapshotWarning::FromFuture`].
pub const CLOCK_SLACK_S: i64 = 60;

/// The latest Unix time read (9999-12-31T23:59:59 UTC); a later one is refused as out of
/// range rather than wrapped.
pub const LATEST_TIME: i64 = 253_402_300_799;

/// What the campus looked like when the snapshot was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// When it was taken, seconds on the snapshot's clock (see the module docs).
    pub taken_at: i64,
    /// The nodes, in file order, one entry per node name.
    pub nodes: Vec<SinfoNode>,
    /// Jobs running (or completing) when the snapshot was taken.
    pub running: Vec<RunningJob>,
    /// Jobs waiting when the snapshot was taken.
    pub pending: Vec<PendingJob>,
    /// Jobs in other states (suspended, held by the admin as `REQUEUE_HOLD`, finished
    /// jobs that `squeue` still lists), counted and left out.
    pub other_states: usize,
    /// What reading found doubtful but usable (a job far past its limit, a start after
    /// the snapshot), each naming its file and line or JSON path.
    pub notes: Vec<SnapshotWarning>,
}

/// One node as `sinfo` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct SinfoNode {
    /// Node name.
    pub name: String,
    /// Slurm's state words, lower case and joined by `+` (`idle`, `mixed`,
    /// `allocated+drain`, `down*`); Slurm 22.05's JSON `state_flags` are joined on too
    /// (`idle+drain`, `mixed+not_responding`).
    pub state: String,
    /// CPUs.
    pub cpus: u32,
    /// GPUs (all types together).
    pub gpus: u32,
    /// Partitions the node belongs to (a default partition's `*` removed).
    pub partitions: Vec<String>,
}

impl SinfoNode {
    /// Whether the node can take new jobs now: not down, drained, draining, failed, in
    /// maintenance, powered down or not responding (`*`, or 22.05's `NOT_RESPONDING` flag).
    pub fn usable(&self) -> bool {
        let s = &self.state;
        !(s.contains('*')
            || ["down", "drain", "fail", "maint", "power", "reboot", "future", "unknown", "inval", "not_responding"]
                .iter()
                .any(|w| s.contains(w))
            || s.ends_with('~'))
    }

    /// Whether the node still runs jobs although it takes no new one: draining (drain on
    /// an allocated, mixed or completing node) or failing. Its jobs hold its GPUs, not
    /// those of the usable nodes.
    pub fn runs_jobs(&self) -> bool {
        let s = &self.state;
        self.usable() || ["alloc", "mix", "completing", "draining", "failing"].iter().any(|w| s.contains(w))
    }
}

/// A job running when the snapshot was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct RunningJob {
    /// Job id as written (`123`, `123_4` for an array task).
    pub id: String,
    /// Partition it runs in.
    pub partition: String,
    /// Account (the fair-share group).
    pub account: String,
    /// User.
    pub user: String,
    /// GPUs allocated, all nodes together.
    pub gpus: u32,
    /// Nodes allocated.
    pub nodes: u32,
    /// Seconds it had run when the snapshot was taken.
    pub elapsed: i64,
    /// Its time limit in seconds; `None` for `UNLIMITED`.
    pub limit: Option<i64>,
    /// The nodes it runs on, when the file says (JSON's `nodes`, `g[1-2]` expanded);
    /// empty for the text format, which has no node list.
    pub hosts: Vec<String>,
}

/// A job waiting when the snapshot was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingJob {
    /// Job id as written.
    pub id: String,
    /// Partition (or partitions, comma-separated, as Slurm lists a job submitted to several).
    pub partition: String,
    /// Account.
    pub account: String,
    /// User.
    pub user: String,
    /// GPUs requested, all nodes together.
    pub gpus: u32,
    /// Nodes requested.
    pub nodes: u32,
    /// Its time limit in seconds; `None` for `UNLIMITED` or not set.
    pub limit: Option<i64>,
    /// Slurm's priority.
    pub priority: u64,
    /// When it was submitted.
    pub submit: i64,
    /// Slurm's own estimated start (`squeue --start`), when it has one.
    pub estimated_start: Option<i64>,
}

/// A snapshot file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read.
    #[error("could not read snapshot file '{path}': {source}")]
    Read {
        /// The path given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file holds nothing, or not what its role needs (a JSON document without `jobs`).
    #[error("{file}: {message}")]
    Content {
        /// File name.
        file: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// Broken JSON: a syntax error, or a file that ends early.
    #[error("{file}:{line}:{column}: {message}")]
    Json {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser found; a file that ends early is called truncated.
        message: String,
    },
    /// A text line with the wrong number of `|`-separated fields.
    #[error(
        "{file}:{line}: {found} fields where {expected} are expected (truncated line?); take the file with `{command}`"
    )]
    FieldCount {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// Fields found.
        found: usize,
        /// Fields expected.
        expected: usize,
        /// The command that writes the expected format.
        command: String,
    },
    /// A field whose value is not allowed.
    #[error("{file}: {at}: {field} '{text}' is not readable; allowed: {allowed}")]
    Field {
        /// File name.
        file: String,
        /// Where: `line 4` (text) or a JSON path such as `jobs[2] (job 1234)`.
        at: String,
        /// The field (`time_limit`, `%l time limit`).
        field: String,
        /// Its text, cut to 40 characters.
        text: String,
        /// What is allowed.
        allowed: String,
    },
    /// The snapshot does not say when it was taken.
    #[error(
        "{file}: the snapshot does not say when it was taken: `squeue --json` of Slurm 23.02 and later \
         has `last_update`; for older JSON give the time explicitly, for text start the squeue file with a \
         `# taken_at <unix seconds>` line (docs/ADVISE.md)"
    )]
    NoTime {
        /// The squeue file.
        file: String,
    },
    /// A job id listed twice: two squeue outputs joined, or a file written twice.
    #[error(
        "{file}: {second}: job {id} is listed again (first at {first}): are two squeue outputs joined in one file? \
         take the snapshot again with one squeue command"
    )]
    DuplicateJob {
        /// File name.
        file: String,
        /// The job id.
        id: String,
        /// Where it is first (`line 3`, `jobs[2] (job 17)`).
        first: String,
        /// Where it is again.
        second: String,
    },
    /// Running jobs of a partition hold more GPUs than the sinfo file gives it (boxed: the
    /// details would make every `Result` of the readers large).
    #[error("{0}")]
    OverCapacity(Box<OverCapacity>),
    /// The file is UTF-16 text.
    #[error("{file} is {encoding} text; convert it first, e.g. `iconv -f UTF-16 -t UTF-8 {file} > {file}.utf8`")]
    Utf16 {
        /// File name.
        file: String,
        /// Which UTF-16.
        encoding: &'static str,
    },
}

/// Running jobs of a partition holding more GPUs than its nodes have.
#[derive(Debug, thiserror::Error)]
#[error(
    "{file}: {at}: the running jobs of partition '{partition}' hold {held} GPUs up to this job ({field}), more \
     than the {total} GPUs of its {nodes} nodes in {sinfo}: are the squeue and sinfo files of the same cluster \
     and moment, and is the GPU count read right?"
)]
pub struct OverCapacity {
    /// The squeue file.
    pub file: String,
    /// Where the job that goes over is (`line 4`, `jobs[3] (job 17)`).
    pub at: String,
    /// The field its GPUs were read from.
    pub field: String,
    /// The partition.
    pub partition: String,
    /// GPUs held by its running jobs up to and with this one.
    pub held: u64,
    /// GPUs of the partition's nodes (whatever their state).
    pub total: u64,
    /// Its nodes.
    pub nodes: usize,
    /// The sinfo file.
    pub sinfo: String,
}

/// Something about a snapshot that does not stop it being used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotWarning {
    /// Taken more than [`STALE_AFTER_S`] before "now".
    Stale {
        /// Seconds between the snapshot and now.
        age_s: i64,
    },
    /// Taken more than a minute after "now" (clocks disagree, or local and Unix time mixed).
    FromFuture {
        /// Seconds the snapshot is ahead of now.
        ahead_s: i64,
    },
    /// A running job more than [`OVER_LIMIT_AFTER_S`] past its time limit.
    OverLimit {
        /// The squeue file.
        file: String,
        /// Its line or JSON path.
        at: String,
        /// The job id.
        job: String,
        /// Seconds past the limit.
        over_s: i64,
    },
    /// A job whose start (running) or submission (pending) lies more than
    /// [`CLOCK_SLACK_S`] after the snapshot's time.
    AfterSnapshot {
        /// The squeue file.
        file: String,
        /// Its line or JSON path.
        at: String,
        /// The job id.
        job: String,
        /// The field (`start_time`, `%V submit time`).
        field: String,
        /// Seconds after the snapshot.
        ahead_s: i64,
    },
}

impl fmt::Display for SnapshotWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotWarning::Stale { age_s } => write!(
                f,
                "the snapshot is {} min old (more than {} min): jobs have started and ended since; take a new one",
                age_s / 60,
                STALE_AFTER_S / 60
            ),
            SnapshotWarning::FromFuture { ahead_s } => write!(
                f,
                "the snapshot is {ahead_s} s ahead of now: check the clocks, and that its times and now are both Unix \
                 time (or both local time)"
            ),
            SnapshotWarning::OverLimit { file, at, job, over_s } => write!(
                f,
                "{file}: {at}: job {job} has run {} past its time limit, which Slurm does not allow (it ends a job at \
                 its limit plus OverTimeLimit and KillWait): the file is stale or its times misread; the job is \
                 simulated as ending now",
                span(*over_s)
            ),
            SnapshotWarning::AfterSnapshot { file, at, job, field, ahead_s } => write!(
                f,
                "{file}: {at}: job {job}'s {field} lies {} after the snapshot was taken: check taken_at and the \
                 clocks (Unix against local time?); the job is simulated as {}",
                span(*ahead_s),
                if field.contains("start") { "just started" } else { "submitted now" }
            ),
        }
    }
}

impl SnapshotWarning {
    /// The warning in Chinese, for `advise --lang zh`: the same facts as its `Display`,
    /// the file named as given and a line as 第 N 行.
    pub fn zh(&self) -> String {
        let at = |at: &str| match at.strip_prefix("line ") {
            Some(n) => format!("第 {n} 行"),
            None => at.to_string(),
        };
        match self {
            SnapshotWarning::Stale { age_s } => {
                format!(
                    "快照已是 {} 分钟前（超过 {} 分钟）：此后已有作业开始和结束，请重新获取",
                    age_s / 60,
                    STALE_AFTER_S / 60
                )
            }
            SnapshotWarning::FromFuture { ahead_s } => {
                format!(
                    "快照时间比现在晚 {ahead_s} 秒：请检查时钟，以及快照与当前时间是否都用Unix时间（或都用本地时间）"
                )
            }
            SnapshotWarning::OverLimit { file, at: a, job, over_s } => format!(
                "{file}：{}：作业 {job} 已超过其时限 {}仍在运行，而 Slurm 会在时限加上短暂宽限后结束作业：文件已过时，或其中的时间读错了；\
                 按该作业此刻结束来模拟",
                at(a),
                span_zh(*over_s)
            ),
            SnapshotWarning::AfterSnapshot { file, at: a, job, field, ahead_s } => {
                let (what, fate) = if field.contains("start") {
                    ("开始时间", "刚刚开始")
                } else {
                    ("提交时间", "此刻提交")
                };
                format!(
                    "{file}：{}：作业 {job} 的{what}比快照时间晚 {}：请检查 --taken-at 与时钟（Unix 时间与本地时间混用？）；按该作业{fate}来模拟",
                    at(a),
                    span_zh(*ahead_s)
                )
            }
        }
    }
}

/// A span of seconds in Chinese, as [`span`]: `45 秒`, `12 分钟`, `18 小时`, `3.5 天`.
fn span_zh(s: i64) -> String {
    match s {
        ..120 => format!("{s} 秒"),
        120..7200 => format!("{} 分钟", s / 60),
        7200..172_800 => format!("{} 小时", s / 3600),
        _ => format!("{:.1} 天", s as f64 / 86_400.0),
    }
}

/// A span of seconds for a message: `45 s`, `12 min`, `18 h`, `3.5 days`.
fn span(s: i64) -> String {
    match s {
        ..120 => format!("{s} s"),
        120..7200 => format!("{} min", s / 60),
        7200..172_800 => format!("{} h", s / 3600),
        _ => format!("{:.1} days", s as f64 / 86_400.0),
    }
}

/// The job someone is about to submit, as far as the snapshot can check it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitRequest {
    /// GPUs, all nodes together.
    pub gpus: u32,
    /// Nodes asked for (`--nodes`); `None` lets Slurm place it (one node if it fits, else
    /// whole nodes).
    pub nodes: Option<u32>,
    /// Partition.
    pub partition: String,
    /// Account.
    pub account: String,
}

/// Why a requested job cannot be advised on this snapshot.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// No node of the snapshot is in this partition.
    #[error("partition '{partition}' is not in the snapshot; its partitions are: {}", known.join(", "))]
    UnknownPartition {
        /// The partition asked for.
        partition: String,
        /// The partitions the nodes belong to.
        known: Vec<String>,
    },
    /// Neither the given accounts nor any job of the snapshot has this account.
    #[error("account '{account}' is not known; known accounts: {}", known.join(", "))]
    UnknownAccount {
        /// The account asked for.
        account: String,
        /// The accounts given and those of the snapshot's jobs.
        known: Vec<String>,
    },
    /// The job can never start on this partition's nodes.
    #[error(
        "a job of {gpus} GPUs{} does not fit on partition '{partition}': its largest node has {largest_node} GPUs \
         and all {node_count} nodes together {total} GPUs",
        nodes.map_or(String::new(), |n| format!(" on {n} nodes"))
    )]
    TooLarge {
        /// GPUs asked for.
        gpus: u32,
        /// Nodes asked for.
        nodes: Option<u32>,
        /// The partition.
        partition: String,
        /// GPUs of its largest node.
        largest_node: u32,
        /// GPUs of all its nodes.
        total: u32,
        /// Its nodes.
        node_count: usize,
    },
}

impl Snapshot {
    /// The warnings for using this snapshot at `now` (same clock as [`Snapshot::taken_at`]):
    /// its age, then the [`Snapshot::notes`] of reading.
    pub fn warnings(&self, now: i64) -> Vec<SnapshotWarning> {
        let age = now.saturating_sub(self.taken_at);
        let mut w = if age > STALE_AFTER_S {
            vec![SnapshotWarning::Stale { age_s: age }]
        } else if age < -CLOCK_SLACK_S {
            vec![SnapshotWarning::FromFuture { ahead_s: -age }]
        } else {
            Vec::new()
        };
        w.extend(self.notes.iter().cloned());
        w
    }

    /// The partitions the nodes belong to, sorted.
    pub fn partitions(&self) -> Vec<String> {
        let mut p: Vec<String> = self.nodes.iter().flat_map(|n| n.partitions.iter().cloned()).collect();
        p.sort();
        p.dedup();
        p
    }

    /// The accounts of the snapshot's jobs, sorted.
    pub fn accounts(&self) -> Vec<String> {
        let mut a: Vec<String> = self
            .running
            .iter()
            .map(|j| j.account.clone())
            .chain(self.pending.iter().map(|j| j.account.clone()))
            .filter(|a| !a.is_empty())
            .collect();
        a.sort();
        a.dedup();
        a
    }

    /// Checks a job before advising on it: its partition has nodes in the snapshot, its
    /// account is among `accounts` (the scenario's, say) or the snapshot's jobs', and it
    /// fits: on `nodes` nodes of the partition with `gpus / nodes` GPUs each (rounded
    /// up), or, without a node count, on one node or on whole nodes together. Nodes count
    /// whatever their state (a drained node comes back).
    ///
    /// # Errors
    /// [`RequestError`] naming the partition, the account or the size.
    pub fn check_request(&self, job: &SubmitRequest, accounts: &[String]) -> Result<(), RequestError> {
        let in_partition: Vec<&SinfoNode> =
            self.nodes.iter().filter(|n| n.partitions.contains(&job.partition)).collect();
        if in_partition.is_empty() {
            return Err(RequestError::UnknownPartition { partition: job.partition.clone(), known: self.partitions() });
        }
        let mut known: Vec<String> = accounts.iter().cloned().chain(self.accounts()).collect();
        known.sort();
        known.dedup();
        if !known.contains(&job.account) {
            return Err(RequestError::UnknownAccount { account: job.account.clone(), known });
        }
        let largest_node = in_partition.iter().map(|n| n.gpus).max().unwrap_or(0);
        let total: u32 = in_partition.iter().map(|n| n.gpus).sum();
        let fits = match job.nodes {
            Some(0) => false,
            Some(k) => {
                let per_node = job.gpus.div_ceil(k);
                in_partition.iter().filter(|n| n.gpus >= per_node).count() >= k as usize
            }
            None => largest_node >= job.gpus || total >= job.gpus,
        };
        if fits {
            Ok(())
        } else {
            Err(RequestError::TooLarge {
                gpus: job.gpus,
                nodes: job.nodes,
                partition: job.partition.clone(),
                largest_node,
                total,
                node_count: in_partition.len(),
            })
        }
    }

    /// A few lines for the terminal: when, nodes and GPUs, running and pending jobs.
    pub fn summary(&self) -> String {
        let usable = self.nodes.iter().filter(|n| n.usable()).count();
        let gpus: u32 = self.nodes.iter().map(|n| n.gpus).sum();
        let busy: u32 = self.running.iter().map(|j| j.gpus).sum();
        let waiting: u32 = self.pending.iter().map(|j| j.gpus).sum();
        let estimated = self.pending.iter().filter(|j| j.estimated_start.is_some()).count();
        let mut s = format!(
            "snapshot taken at {}: {} nodes ({} usable), {} GPUs, partitions {}\n",
            self.taken_at,
            self.nodes.len(),
            usable,
            gpus,
            self.partitions().join(", ")
        );
        s.push_str(&format!("  running: {} jobs on {} GPUs\n", self.running.len(), busy));
        s.push_str(&format!(
            "  pending: {} jobs asking for {} GPUs ({} with Slurm's estimated start)\n",
            self.pending.len(),
            waiting,
            estimated
        ));
        if self.other_states > 0 {
            s.push_str(&format!("  left out: {} jobs in other states\n", self.other_states));
        }
        s
    }
}

/// A duration as a user types it on the command line, in seconds: Slurm's forms
/// (`[days-]hh:mm:ss`, `mm:ss`, plain minutes, `days-hh`) or a number with a unit
/// (`90s`, `15m`, `2h`, `1.5d`). `None` for anything else, or a negative value.
pub fn parse_duration(text: &str) -> Option<i64> {
    let t = text.trim();
    let unit = |suffix: &str, secs: f64| -> Option<i64> {
        let v: f64 = t.strip_suffix(suffix)?.trim().parse().ok()?;
        (0.0..1e12).contains(&v).then(|| (v * secs).round() as i64)
    };
    unit("s", 1.0)
        .or_else(|| unit("m", 60.0))
        .or_else(|| unit("min", 60.0))
        .or_else(|| unit("h", 3600.0))
        .or_else(|| unit("d", 86_400.0))
        .or_else(|| crate::trace::text::slurm_duration("duration", t).ok())
}

/// What a squeue file holds before the snapshot is put together.
#[derive(Debug, Default)]
struct Queue {
    taken_at: Option<i64>,
    running: Vec<Running>,
    pending: Vec<PendingJob>,
    /// Where each pending job is (line or JSON path), in the order of `pending`.
    pending_at: Vec<String>,
    other_states: usize,
    /// Job id → where it was read, to refuse one listed twice.
    seen: std::collections::HashMap<String, String>,
}

/// A running job whose elapsed time may still have to come from its start (JSON).
#[derive(Debug)]
struct Running {
    job: RunningJob,
    start: Option<i64>,
    elapsed: Option<i64>,
    /// Its line or JSON path.
    at: String,
    /// The field its GPUs were read from (for messages).
    gpu_field: &'static str,
}

impl Queue {
    /// Refuses a job id seen before in this file, naming both places.
    fn once(&mut self, file: &str, id: &str, at: &str) -> Result<(), SnapshotError> {
        match self.seen.entry(id.to_string()) {
            std::collections::hash_map::Entry::Occupied(first) => Err(SnapshotError::DuplicateJob {
                file: file.to_string(),
                id: id.to_string(),
                first: first.get().clone(),
                second: at.to_string(),
            }),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(at.to_string());
                Ok(())
            }
        }
    }
}

/// Reads a snapshot from its squeue file and its sinfo file, each JSON or text.
/// `taken_at` overrides the time the files say (and is required for 22.05's JSON, which
/// says none).
///
/// # Errors
/// [`SnapshotError`] naming the file and what is wrong.
pub fn read_files(queue: &Path, nodes: &Path, taken_at: Option<i64>) -> Result<Snapshot, SnapshotError> {
    let read =
        |p: &Path| std::fs::read(p).map_err(|source| SnapshotError::Read { path: p.display().to_string(), source });
    let (q, n) = (read(queue)?, read(nodes)?);
    read_bytes((&queue.display().to_string(), &q), (&nodes.display().to_string(), &n), taken_at)
}

/// As [`read_files`], on files held in memory: each is `(name for messages, bytes)`.
///
/// # Errors
/// As [`read_files`].
pub fn read_bytes(
    queue: (&str, &[u8]),
    nodes: (&str, &[u8]),
    taken_at: Option<i64>,
) -> Result<Snapshot, SnapshotError> {
    let (qfile, qtext) = (queue.0, text_of(queue.0, queue.1)?);
    let (nfile, ntext) = (nodes.0, text_of(nodes.0, nodes.1)?);
    let q = if is_json(&qtext) { json::queue(&qtext, qfile)? } else { plain::queue(&qtext, qfile)? };
    let nodes = if is_json(&ntext) { json::nodes(&ntext, nfile)? } else { plain::nodes(&ntext, nfile)? };
    let taken_at = taken_at.or(q.taken_at).ok_or_else(|| SnapshotError::NoTime { file: qfile.to_string() })?;
    check_capacity(&q.running, &nodes, qfile, nfile)?;
    let mut notes = Vec::new();
    let mut running = Vec::with_capacity(q.running.len());
    for r in q.running {
        if let Some(s) = r.start
            && s - taken_at > CLOCK_SLACK_S
        {
            notes.push(SnapshotWarning::AfterSnapshot {
                file: qfile.to_string(),
                at: r.at.clone(),
                job: r.job.id.clone(),
                field: if r.elapsed.is_some() { "%S start time" } else { "start_time" }.to_string(),
                ahead_s: s - taken_at,
            });
        }
        let elapsed = match (r.elapsed, r.start) {
            (Some(e), _) => e,
            (None, Some(s)) => (taken_at - s).max(0),
            (None, None) => {
                return Err(SnapshotError::Field {
                    file: qfile.to_string(),
                    at: r.at,
                    field: "start_time".into(),
                    text: "(none)".into(),
                    allowed: "a running job needs its start time (Unix seconds)".into(),
                });
            }
        };
        if let Some(limit) = r.job.limit
            && elapsed - limit > OVER_LIMIT_AFTER_S
        {
            notes.push(SnapshotWarning::OverLimit {
                file: qfile.to_string(),
                at: r.at.clone(),
                job: r.job.id.clone(),
                over_s: elapsed - limit,
            });
        }
        running.push(RunningJob { elapsed, ..r.job });
    }
    for (j, at) in q.pending.iter().zip(&q.pending_at) {
        if j.submit - taken_at > CLOCK_SLACK_S {
            notes.push(SnapshotWarning::AfterSnapshot {
                file: qfile.to_string(),
                at: at.clone(),
                job: j.id.clone(),
                field: if at.starts_with("line") { "%V submit time" } else { "submit_time" }.to_string(),
                ahead_s: j.submit - taken_at,
            });
        }
    }
    Ok(Snapshot { taken_at, nodes, running, pending: q.pending, other_states: q.other_states, notes })
}

/// Refuses running jobs that hold more GPUs than their partition's nodes have (whatever
/// the nodes' state: a drained node's jobs still hold its GPUs), naming the job at which
/// the partition's total is passed. A partition without nodes in the sinfo file (hidden
/// from `sinfo`) is not checked; its jobs are left out of the advice anyway.
fn check_capacity(running: &[Running], nodes: &[SinfoNode], qfile: &str, nfile: &str) -> Result<(), SnapshotError> {
    let mut capacity: std::collections::HashMap<&str, (u64, usize)> = std::collections::HashMap::new();
    for n in nodes {
        for p in &n.partitions {
            let c = capacity.entry(p.as_str()).or_default();
            c.0 += u64::from(n.gpus);
            c.1 += 1;
        }
    }
    let mut held: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for r in running {
        let p = r.job.partition.as_str();
        let Some(&(total, count)) = capacity.get(p) else { continue };
        let h = held.entry(p).or_default();
        *h += u64::from(r.job.gpus);
        if *h > total {
            return Err(SnapshotError::OverCapacity(Box::new(OverCapacity {
                file: qfile.to_string(),
                at: r.at.clone(),
                field: r.gpu_field.to_string(),
                partition: p.to_string(),
                held: *h,
                total,
                nodes: count,
                sinfo: nfile.to_string(),
            })));
        }
    }
    Ok(())
}

/// The file's text (a UTF-8 byte-order mark removed; other bad bytes replaced).
fn text_of(file: &str, bytes: &[u8]) -> Result<String, SnapshotError> {
    if let Some(encoding) = super::text::utf16(bytes) {
        return Err(SnapshotError::Utf16 { file: file.to_string(), encoding });
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(body).into_owned();
    if text.trim().is_empty() {
        return Err(SnapshotError::Content { file: file.to_string(), message: "the file is empty".into() });
    }
    Ok(text)
}

fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// A job state word's place in a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Running,
    Pending,
    Other,
}

/// `RUNNING`, `R`, `COMPLETING`, `CG` run; `PENDING`, `PD`, `CONFIGURING` wait (a node
/// booting for it); anything else is left out.
fn place(state: &str) -> Place {
    match state.trim().to_ascii_uppercase().as_str() {
        "RUNNING" | "R" | "COMPLETING" | "CG" => Place::Running,
        "PENDING" | "PD" | "CONFIGURING" | "CF" => Place::Pending,
        _ => Place::Other,
    }
}

/// Whether a time-limit word means no limit.
fn unlimited(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_uppercase().as_str(),
        "UNLIMITED" | "INFINITE" | "NOT_SET" | "PARTITION_LIMIT" | "NONE" | "N/A"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_users_type_them() {
        assert_eq!(parse_duration("90s"), Some(90));
        assert_eq!(parse_duration("15m"), Some(900));
        assert_eq!(parse_duration("1.5h"), Some(5400));
        assert_eq!(parse_duration("2d"), Some(172_800));
        assert_eq!(parse_duration("90"), Some(5400), "a plain number is Slurm's minutes");
        assert_eq!(parse_duration("1-02:00:00"), Some(93_600));
        assert_eq!(parse_duration("-5m"), None);
        assert_eq!(parse_duration("soon"), None);
    }

    fn node(name: &str, gpus: u32, partitions: &[&str]) -> SinfoNode {
        SinfoNode {
            name: name.into(),
            state: "idle".into(),
            cpus: 32,
            gpus,
            partitions: partitions.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn snapshot() -> Snapshot {
        Snapshot {
            taken_at: 1_000_000,
            nodes: vec![node("a1", 4, &["gpu"]), node("a2", 4, &["gpu"]), node("b1", 8, &["big", "gpu"])],
            running: Vec::new(),
            pending: vec![PendingJob {
                id: "7".into(),
                partition: "gpu".into(),
                account: "nlp".into(),
                user: "u".into(),
                gpus: 1,
                nodes: 1,
                limit: None,
                priority: 1,
                submit: 0,
                estimated_start: None,
            }],
            other_states: 0,
            notes: Vec::new(),
        }
    }

    fn req(gpus: u32, nodes: Option<u32>, partition: &str, account: &str) -> SubmitRequest {
        SubmitRequest { gpus, nodes, partition: partition.into(), account: account.into() }
    }

    #[test]
    fn a_snapshot_older_than_fifteen_minutes_is_stale() {
        let s = snapshot();
        assert!(s.warnings(s.taken_at + STALE_AFTER_S).is_empty());
        assert_eq!(s.warnings(s.taken_at + STALE_AFTER_S + 1), vec![SnapshotWarning::Stale { age_s: 901 }]);
        assert!(s.warnings(s.taken_at - 60).is_empty());
        assert_eq!(s.warnings(s.taken_at - 3600), vec![SnapshotWarning::FromFuture { ahead_s: 3600 }]);
        assert!(SnapshotWarning::Stale { age_s: 1200 }.to_string().contains("20 min old"));
    }

    #[test]
    fn requests_are_checked_for_partition_account_and_size() {
        let s = snapshot();
        assert_eq!(s.check_request(&req(8, None, "gpu", "nlp"), &[]), Ok(()));
        assert_eq!(s.check_request(&req(16, None, "gpu", "nlp"), &[]), Ok(()), "whole nodes together");
        assert_eq!(s.check_request(&req(8, Some(2), "gpu", "nlp"), &[]), Ok(()));
        assert_eq!(s.check_request(&req(2, None, "gpu", "cv"), &["cv".into()]), Ok(()));
        let e = s.check_request(&req(1, None, "debug", "nlp"), &[]).unwrap_err().to_string();
        assert_eq!(e, "partition 'debug' is not in the snapshot; its partitions are: big, gpu");
        let e = s.check_request(&req(1, None, "gpu", "cv"), &["bio".into()]).unwrap_err().to_string();
        assert_eq!(e, "account 'cv' is not known; known accounts: bio, nlp");
        let e = s.check_request(&req(17, None, "gpu", "nlp"), &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a job of 17 GPUs does not fit on partition 'gpu': its largest node has 8 GPUs and all 3 nodes together 16 GPUs"
        );
        let e = s.check_request(&req(18, Some(3), "gpu", "nlp"), &[]).unwrap_err().to_string();
        assert!(e.starts_with("a job of 18 GPUs on 3 nodes does not fit"), "{e}");
        assert!(s.check_request(&req(9, None, "big", "nlp"), &[]).is_err());
        assert!(s.check_request(&req(1, Some(0), "gpu", "nlp"), &[]).is_err());
    }

    #[test]
    fn node_states_tell_usable_nodes() {
        let mut n = node("a", 4, &["gpu"]);
        for (state, usable) in [
            ("idle", true),
            ("mixed", true),
            ("allocated", true),
            ("down*", false),
            ("drained", false),
            ("mixed+drain", false),
            ("idle~", false),
            ("idle*", false),
        ] {
            n.state = state.into();
            assert_eq!(n.usable(), usable, "{state}");
        }
    }

    #[test]
    fn job_states_and_unlimited_words() {
        assert_eq!(place("RUNNING"), Place::Running);
        assert_eq!(place("CG"), Place::Running);
        assert_eq!(place("pending"), Place::Pending);
        assert_eq!(place("SUSPENDED"), Place::Other);
        assert!(unlimited("UNLIMITED") && unlimited("Partition_Limit") && !unlimited("1:00:00"));
    }
}
