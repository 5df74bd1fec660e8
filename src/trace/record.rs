//! The common records every reader fills: a log's jobs ([`TraceJob`]), what it says about
//! itself ([`TraceInfo`]), the rows it skipped and why ([`ReadReport`]), and the errors
//! that refuse a whole file ([`TraceError`]). The readers import these and nothing of one
//! another; `crate::trace` hands them on.

use std::fmt;

/// The format of a log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Standard Workload Format (Parallel Workloads Archive), plain or gzipped.
    Swf,
    /// Slurm `sacct --parsable2` output with a header line.
    Sacct,
    /// A CSV job list read through a [`crate::trace::CsvMapping`].
    Csv,
}

impl Format {
    /// Parses `swf`, `sacct` or `csv`.
    pub fn parse(text: &str) -> Option<Format> {
        match text.to_ascii_lowercase().as_str() {
            "swf" => Some(Format::Swf),
            "sacct" | "slurm" => Some(Format::Sacct),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }

    /// Guesses the format from the file name and the first bytes (already decompressed):
    /// `.swf` names or `;` comment lines mean SWF, a first line with `JobID` and `|` means
    /// sacct, anything else CSV.
    pub fn detect(name: &str, text: &[u8]) -> Format {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".swf") || lower.ends_with(".swf.gz") {
            return Format::Swf;
        }
        let head = String::from_utf8_lossy(&text[..text.len().min(4096)]);
        let first = head.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if first.trim_start().starts_with(';') {
            Format::Swf
        } else if first.contains('|') && first.to_ascii_lowercase().contains("jobid") {
            Format::Sacct
        } else {
            Format::Csv
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Swf => "SWF",
            Format::Sacct => "sacct",
            Format::Csv => "CSV",
        })
    }
}

/// How a job ended, as far as the log says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobState {
    /// Finished normally (SWF status 1, Slurm `COMPLETED`, `Succeeded`).
    Completed,
    /// Failed or killed (SWF status 0, Slurm `FAILED`, `OUT_OF_MEMORY`, `NODE_FAIL`, …).
    Failed,
    /// Cancelled (SWF status 5, Slurm `CANCELLED`, `CANCELLED by 0`).
    Cancelled,
    /// Stopped at its time limit (Slurm `TIMEOUT`).
    Timeout,
    /// Preempted or requeued.
    Preempted,
    /// Still waiting when the log was taken.
    Pending,
    /// Still running when the log was taken.
    Running,
    /// Partial execution records (SWF status 2–4) and states the reader does not know.
    Other,
    /// Not recorded (SWF status −1, an empty state column).
    Unknown,
}

impl JobState {
    /// Maps a state word from Slurm or a CSV (`COMPLETED`, `CANCELLED by 0`,
    /// `Succeeded`, `FAILED+`, …) case-insensitively; unknown words give [`JobState::Other`].
    pub fn from_word(text: &str) -> JobState {
        let w = text.split_whitespace().next().unwrap_or("").trim_end_matches('+').to_ascii_lowercase();
        match w.as_str() {
            "" | "unknown" | "nan" | "none" => JobState::Unknown,
            "completed" | "complete" | "succeeded" | "success" | "successful" | "pass" | "passed" | "cd" => {
                JobState::Completed
            }
            "failed" | "fail" | "failure" | "out_of_memory" | "oom" | "node_fail" | "boot_fail" | "deadline"
            | "killed" | "f" => JobState::Failed,
            "cancelled" | "canceled" | "ca" | "revoked" | "terminated" => JobState::Cancelled,
            "timeout" | "to" => JobState::Timeout,
            "preempted" | "requeued" | "pr" => JobState::Preempted,
            "pending" | "pd" | "queued" | "waiting" => JobState::Pending,
            "running" | "r" | "suspended" | "completing" | "resizing" => JobState::Running,
            _ => JobState::Other,
        }
    }

    /// Short lowercase name for summaries.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
            JobState::Timeout => "timeout",
            JobState::Preempted => "preempted",
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Other => "other",
            JobState::Unknown => "unknown",
        }
    }
}

/// One job of a log, in the same form whatever the format.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceJob {
    /// 1-based line of the row in the (decompressed) file.
    pub line: usize,
    /// Job id as written (`123`, `123_4` for an array task).
    pub id: String,
    /// Submission, seconds on the trace's clock.
    pub submit: i64,
    /// Start, if the job started and the log says when.
    pub start: Option<i64>,
    /// Run time in seconds (≥ 0), if known.
    pub runtime: Option<i64>,
    /// Requested walltime in seconds (≥ 0), if known.
    pub requested_time: Option<i64>,
    /// Processors (CPUs) allocated, else requested.
    pub procs: Option<u32>,
    /// GPUs allocated, else requested; fractional for GPU-sharing pods.
    pub gpus: Option<f64>,
    /// User.
    pub user: Option<String>,
    /// Group or account.
    pub group: Option<String>,
    /// Queue or partition.
    pub partition: Option<String>,
    /// How it ended.
    pub state: JobState,
}

impl TraceJob {
    /// A job submitted at `submit` with nothing else known (for building records in code).
    pub fn new(line: usize, id: impl Into<String>, submit: i64) -> TraceJob {
        TraceJob {
            line,
            id: id.into(),
            submit,
            start: None,
            runtime: None,
            requested_time: None,
            procs: None,
            gpus: None,
            user: None,
            group: None,
            partition: None,
            state: JobState::Unknown,
        }
    }

    /// Queue delay in seconds (start − submit), if the job started.
    pub fn wait(&self) -> Option<i64> {
        self.start.map(|s| s - self.submit)
    }

    /// The checks every reader applies to a parsed row.
    fn check(&self) -> Result<(), Problem> {
        if let Some(r) = self.runtime.filter(|&r| r < 0) {
            return Err(Problem::NegativeDuration { field: "run time", value: r });
        }
        if let Some(r) = self.requested_time.filter(|&r| r < 0) {
            return Err(Problem::NegativeDuration { field: "requested time", value: r });
        }
        if let Some(s) = self.start.filter(|&s| s < self.submit) {
            return Err(Problem::StartBeforeSubmit { seconds: self.submit - s });
        }
        if let Some(g) = self.gpus.filter(|g| !(g.is_finite() && *g >= 0.0)) {
            return Err(Problem::BadValue { field: "gpus".into(), text: format!("{g}") });
        }
        Ok(())
    }
}

/// What the log says about itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceInfo {
    /// Format read.
    pub format: Option<Format>,
    /// Unix time of the trace clock's 0, when known (SWF `UnixStartTime`; sacct times are
    /// absolute, so 0).
    pub unix_start: Option<i64>,
    /// Seconds to add to Unix time for local time (SWF `TimeZone`; sacct prints local
    /// time already, so 0). Daylight saving time is not modelled.
    pub tz_offset: i64,
    /// Processors of the machine (SWF `MaxProcs`).
    pub max_procs: Option<u32>,
    /// Nodes of the machine (SWF `MaxNodes`).
    pub max_nodes: Option<u32>,
    /// Jobs the header claims (SWF `MaxRecords`).
    pub max_records: Option<u64>,
    /// Computer name (SWF `Computer`).
    pub computer: Option<String>,
}

impl TraceInfo {
    /// Local wall-clock time, in seconds since 1970-01-01 00:00 local, of trace time `t`;
    /// `None` when the trace has no absolute clock.
    pub fn local_time(&self, t: i64) -> Option<i64> {
        self.unix_start.map(|u| u + t + self.tz_offset)
    }
}

/// A row that could not be used and why.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRow {
    /// 1-based line in the (decompressed) file.
    pub line: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// Why a row was skipped.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Too few or too many fields (a truncated line, a stray separator).
    FieldCount {
        /// Fields found.
        found: usize,
        /// Fields expected.
        expected: usize,
    },
    /// A field that must be a number (or a time) is not.
    BadValue {
        /// Field name.
        field: String,
        /// Its text (cut to 40 characters).
        text: String,
    },
    /// The submission time is missing.
    NoSubmit,
    /// A negative duration (other than SWF's −1 for "missing").
    NegativeDuration {
        /// Which duration.
        field: &'static str,
        /// Its value in seconds.
        value: i64,
    },
    /// The job starts before it was submitted.
    StartBeforeSubmit {
        /// By how many seconds.
        seconds: i64,
    },
}

impl Problem {
    /// A short label grouping problems of one kind in the summary.
    pub fn kind(&self) -> String {
        match self {
            Problem::FieldCount { .. } => "wrong number of fields".into(),
            Problem::BadValue { field, .. } => format!("unreadable {field}"),
            Problem::NoSubmit => "no submit time".into(),
            Problem::NegativeDuration { field, .. } => format!("negative {field}"),
            Problem::StartBeforeSubmit { .. } => "start before submit".into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::FieldCount { found, expected } => {
                write!(f, "{found} fields where {expected} are expected (truncated line?)")
            }
            Problem::BadValue { field, text } => write!(f, "{field} '{text}' is not readable"),
            Problem::NoSubmit => write!(f, "no submit time"),
            Problem::NegativeDuration { field, value } => write!(f, "{field} is negative ({value} s)"),
            Problem::StartBeforeSubmit { seconds } => write!(f, "starts {seconds} s before it was submitted"),
        }
    }
}

/// What reading a log found: rows read, rows skipped and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadReport {
    /// Data rows seen (not counting headers, comments, blank lines and job steps).
    pub rows: usize,
    /// Jobs read.
    pub read: usize,
    /// Rows skipped, with line and reason.
    pub skipped: Vec<BadRow>,
    /// Slurm job steps (`123.batch`, `123.0`) left out: they are parts of a job.
    pub steps: usize,
    /// Other remarks (a truncated gzip stream, …).
    pub notes: Vec<String>,
}

impl ReadReport {
    /// Skipped rows counted by kind of problem, most frequent first.
    pub fn by_reason(&self) -> Vec<(String, usize)> {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for b in &self.skipped {
            let k = b.problem.kind();
            match counts.iter_mut().find(|(name, _)| *name == k) {
                Some((_, n)) => *n += 1,
                None => counts.push((k, 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        counts
    }

    /// A few lines for the terminal: counts, reasons with the first lines, notes.
    pub fn summary(&self, file: &str) -> String {
        let mut s = format!("{file}: {} jobs read, {} rows skipped", self.read, self.skipped.len());
        if self.steps > 0 {
            s.push_str(&format!(", {} job steps left out", self.steps));
        }
        s.push('\n');
        for (kind, n) in self.by_reason() {
            let lines: Vec<String> = self
                .skipped
                .iter()
                .filter(|b| b.problem.kind() == kind)
                .take(3)
                .map(|b| format!("line {}: {}", b.line, b.problem))
                .collect();
            s.push_str(&format!("  skipped {n} × {kind} (e.g. {})\n", lines.join("; ")));
        }
        for n in &self.notes {
            s.push_str(&format!("  note: {n}\n"));
        }
        s
    }
}

/// A log read into common records.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// What the log says about itself.
    pub info: TraceInfo,
    /// Jobs in file order.
    pub jobs: Vec<TraceJob>,
    /// Counts of rows read and skipped.
    pub report: ReadReport,
}

/// A log that cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read.
    #[error("could not read trace '{path}': {source}")]
    Read {
        /// The path given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The gzip stream is broken and `--strict` was given (otherwise what could be
    /// decompressed is read and a note says so).
    #[error("{file}: the gzip stream is broken after {bytes} bytes: {message}")]
    Gzip {
        /// File name.
        file: String,
        /// Bytes decompressed before the error.
        bytes: usize,
        /// The decoder's message.
        message: String,
    },
    /// A header line is missing or lacks a required column.
    #[error("{file}: {message}")]
    Header {
        /// File name.
        file: String,
        /// What is missing and what to do.
        message: String,
    },
    /// `--strict`: a row could not be used.
    #[error("{file}:{}: {}; the row is refused because of --strict (without it, bad rows are skipped and counted)", .row.line, .row.problem)]
    BadRow {
        /// File name.
        file: String,
        /// The row.
        row: BadRow,
    },
    /// The column mapping of a CSV file is not usable.
    #[error("{0}")]
    Mapping(String),
    /// The file is UTF-16 text, not UTF-8.
    #[error(
        "{file} is {encoding} text; logs are read as UTF-8 (or ASCII): convert it first, e.g. \
         `iconv -f UTF-16 -t UTF-8 {file} > {file}.utf8`"
    )]
    Utf16 {
        /// File name.
        file: String,
        /// "UTF-16 (little-endian)" or "UTF-16 (big-endian)".
        encoding: &'static str,
    },
}

/// Collects jobs and bad rows while a reader walks a file.
pub(crate) struct Collector<'a> {
    file: &'a str,
    strict: bool,
    pub(crate) trace: Trace,
}

impl<'a> Collector<'a> {
    pub(crate) fn new(file: &'a str, strict: bool, format: Format) -> Self {
        let mut trace = Trace::default();
        trace.info.format = Some(format);
        Collector { file, strict, trace }
    }

    /// Records a parsed row (after the common checks) or its problem.
    pub(crate) fn row(&mut self, line: usize, parsed: Result<TraceJob, Problem>) -> Result<(), TraceError> {
        self.trace.report.rows += 1;
        match parsed.and_then(|j| j.check().map(|()| j)) {
            Ok(j) => {
                self.trace.report.read += 1;
                self.trace.jobs.push(j);
                Ok(())
            }
            Err(problem) => {
                let row = BadRow { line, problem };
                if self.strict {
                    return Err(TraceError::BadRow { file: self.file.to_string(), row });
                }
                self.trace.report.skipped.push(row);
                Ok(())
            }
        }
    }
}
