//! Slurm accounting output: `sacct --parsable2` (pipe-separated, header line first).
//!
//! A campus admin can produce it with, for example,
//!
//! ```text
//! sacct --allusers --parsable2 --starttime 2025-09-01 --endtime 2026-08-31 \
//!   --format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,Account,User,State,Partition
//! ```
//!
//! Columns are found by name (case-insensitive, any order); only `JobID` (or `JobIDRaw`)
//! and `Submit` are required. Rules:
//! - job steps (`123.batch`, `123.extern`, `123.0`, `123_4.batch`) are parts of a job and
//!   are left out (counted in [`super::ReadReport::steps`]); array tasks (`123_4`,
//!   pending ranges `123_[5-9%2]`) and heterogeneous components (`123+0`) are jobs;
//! - `Start`/`End` of `Unknown`, `None` or empty mean "not started"/"not ended";
//! - the run time is `Elapsed` (`[D-]HH:MM:SS`) for a started job, else `End − Start`;
//! - `Timelimit` in any Slurm form (`2-00:00:00`, `30:00`, `60`), or `UNLIMITED`,
//!   `Partition_Limit`, `INVALID` for "not known";
//! - GPUs from `AllocTRES` (`gres/gpu=2`; typed `gres/gpu:a100=2` entries are summed only
//!   when there is no untyped one), else `ReqTRES`, else `AllocGRES`/`ReqGRES`
//!   (`gpu:2`, `gpu:a100:2`); CPUs from `cpu=` of the same TRES, or `AllocCPUS`/`NCPUS`/`ReqCPUS`;
//!   a GPU or CPU count in a TRES that is not a number (`gres/gpu=abc`) is a bad row
//!   naming the column and its text, never a CPU-only job;
//! - `State` words such as `CANCELLED by 0` or a truncated `CANCELLED+` map to
//!   [`JobState`]; without a `State` column, a started job without an `End` is taken as
//!   still running. Running and pending jobs are read (with whatever `Elapsed` says so
//!   far) and left out, counted, when a log is replayed or fitted
//!   ([`super::convert::to_jobs`]); `Account` is the group.
//!
//! `--parsable` (without the 2) ends every line with a `|`; that is accepted too.

use std::collections::HashMap;

use super::record::{Collector, Format, JobState, Problem, Trace, TraceError, TraceInfo, TraceJob};
use super::text::{is_missing, lines, number, slurm_duration, timestamp};

/// Reads sacct text (already decompressed).
///
/// # Errors
/// [`TraceError::Header`] when the first non-empty line is not a header naming `JobID` and
/// `Submit`; [`TraceError::BadRow`] in strict mode.
pub fn read(text: &[u8], file: &str, strict: bool) -> Result<Trace, TraceError> {
    let mut c = Collector::new(file, strict, Format::Sacct);
    c.trace.info = TraceInfo { format: Some(Format::Sacct), unix_start: Some(0), ..TraceInfo::default() };
    let mut it = lines(text).filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = it.next() else {
        return Err(TraceError::Header { file: file.to_string(), message: "the file is empty".into() });
    };
    let names: Vec<String> = split(&header).iter().map(|h| h.trim().to_ascii_lowercase()).collect();
    let col: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let find = |keys: &[&str]| keys.iter().find_map(|k| col.get(k).copied());
    let (Some(id), Some(submit)) = (find(&["jobid", "jobidraw"]), find(&["submit"])) else {
        return Err(TraceError::Header {
            file: file.to_string(),
            message: format!(
                "the first line must be sacct's header with at least JobID and Submit (found '{}'); \
                 export with `sacct --parsable2 --format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,Account,User,State,Partition`",
                super::text::clip(&header)
            ),
        });
    };
    let cols = Columns {
        id,
        submit,
        start: find(&["start"]),
        end: find(&["end"]),
        elapsed: find(&["elapsed", "elapsedraw"]),
        raw_elapsed: names
            .get(find(&["elapsed", "elapsedraw"]).unwrap_or(usize::MAX))
            .is_some_and(|n| n == "elapsedraw"),
        timelimit: find(&["timelimit", "timelimitraw"]),
        raw_limit: names
            .get(find(&["timelimit", "timelimitraw"]).unwrap_or(usize::MAX))
            .is_some_and(|n| n == "timelimitraw"),
        alloc_tres: find(&["alloctres"]),
        req_tres: find(&["reqtres"]),
        alloc_gres: find(&["allocgres"]),
        req_gres: find(&["reqgres"]),
        cpus: find(&["alloccpus", "ncpus", "reqcpus"]),
        account: find(&["account"]),
        group: find(&["group"]),
        user: find(&["user"]),
        state: find(&["state"]),
        partition: find(&["partition"]),
        count: names.len(),
    };
    for (n, line) in it {
        let mut f = split(&line);
        // `--parsable` ends lines with a separator.
        if f.len() == cols.count + 1 && f.last().is_some_and(|s| s.is_empty()) {
            f.pop();
        }
        if f.len() != cols.count {
            c.row(n, Err(Problem::FieldCount { found: f.len(), expected: cols.count }))?;
            continue;
        }
        let job_id = f[cols.id].trim();
        if is_step(job_id) {
            c.trace.report.steps += 1;
            continue;
        }
        c.row(n, cols.parse(n, &f))?;
    }
    Ok(c.trace)
}

fn split(line: &str) -> Vec<&str> {
    line.split('|').collect()
}

/// `123.batch`, `123.0`, `123_4.extern`, `123+0.batch` are steps; `123`, `123_4`,
/// `123_[1-3]`, `123+0` are jobs.
fn is_step(id: &str) -> bool {
    let base = id.split_once('[').map_or(id, |(b, _)| b);
    base.contains('.') || id.rsplit_once(']').is_some_and(|(_, tail)| tail.starts_with('.'))
}

struct Columns {
    id: usize,
    submit: usize,
    start: Option<usize>,
    end: Option<usize>,
    elapsed: Option<usize>,
    raw_elapsed: bool,
    timelimit: Option<usize>,
    raw_limit: bool,
    alloc_tres: Option<usize>,
    req_tres: Option<usize>,
    alloc_gres: Option<usize>,
    req_gres: Option<usize>,
    cpus: Option<usize>,
    account: Option<usize>,
    group: Option<usize>,
    user: Option<usize>,
    state: Option<usize>,
    partition: Option<usize>,
    count: usize,
}

impl Columns {
    fn parse(&self, line: usize, f: &[&str]) -> Result<TraceJob, Problem> {
        let get = |c: Option<usize>| c.map(|i| f[i].trim()).filter(|s| !is_missing(s));
        let time = |c: Option<usize>, name: &str| get(c).map(|s| timestamp(name, s)).transpose();
        let submit = time(Some(self.submit), "Submit")?.ok_or(Problem::NoSubmit)?;
        let mut job = TraceJob::new(line, f[self.id].trim(), submit);
        job.start = time(self.start, "Start")?;
        let end = time(self.end, "End")?;
        job.state = get(self.state).map_or(JobState::Unknown, JobState::from_word);
        if job.state == JobState::Unknown
            && self.state.is_none()
            && self.end.is_some()
            && job.start.is_some()
            && end.is_none()
        {
            job.state = JobState::Running;
        }
        if job.start.is_some() {
            let elapsed = match get(self.elapsed) {
                Some(s) if self.raw_elapsed => Some(number("ElapsedRaw", s)?.round() as i64),
                Some(s) => Some(slurm_duration("Elapsed", s)?),
                None => None,
            };
            job.runtime = elapsed.or_else(|| end.zip(job.start).map(|(e, s)| e - s));
        }
        job.requested_time = match get(self.timelimit) {
            Some(s) if is_unlimited(s) => None,
            Some(s) if self.raw_limit => Some((number("TimelimitRaw", s)? * 60.0).round() as i64),
            Some(s) => Some(slurm_duration("Timelimit", s)?),
            None => None,
        };
        let alloc = get(self.alloc_tres).map(|t| tres("AllocTRES", t)).transpose()?;
        let req = get(self.req_tres).map(|t| tres("ReqTRES", t)).transpose()?;
        let started = job.start.is_some();
        let pick = |a: Option<Option<f64>>, r: Option<Option<f64>>| {
            let a = a.flatten();
            if started { a.or(r.flatten()) } else { r.flatten().or(a) }
        };
        job.gpus = pick(alloc.map(|t| t.gpus), req.map(|t| t.gpus))
            .or_else(|| pick(get(self.alloc_gres).map(gres_gpus), get(self.req_gres).map(gres_gpus)))
            .or_else(|| (alloc.is_some() || req.is_some()).then_some(0.0));
        let cpus = pick(alloc.map(|t| t.cpus), req.map(|t| t.cpus))
            .or_else(|| get(self.cpus).and_then(|s| s.parse::<f64>().ok()).filter(|v| v.is_finite()));
        job.procs = cpus.filter(|&c| c >= 1.0 && c <= f64::from(u32::MAX)).map(|c| c.round() as u32);
        job.user = get(self.user).map(String::from);
        job.group = get(self.account).or_else(|| get(self.group)).map(String::from);
        job.partition = get(self.partition).map(String::from);
        Ok(job)
    }
}

fn is_unlimited(s: &str) -> bool {
    matches!(s.to_ascii_lowercase().as_str(), "unlimited" | "partition_limit" | "invalid" | "infinite")
}

#[derive(Clone, Copy, Debug)]
struct Tres {
    gpus: Option<f64>,
    cpus: Option<f64>,
}

/// `billing=8,cpu=8,gres/gpu=2,gres/gpu:a100=2,mem=64G,node=1` → GPUs 2, CPUs 8.
///
/// # Errors
/// [`Problem::BadValue`] naming `column` when a GPU or CPU count is not a non-negative
/// number (other entries, such as `mem=64G`, are not read).
fn tres(column: &str, text: &str) -> Result<Tres, Problem> {
    let (mut plain, mut typed, mut cpus) = (None, None::<f64>, None);
    for item in text.split(',') {
        let Some((k, v)) = item.split_once('=') else { continue };
        let k = k.trim();
        if !(k == "cpu" || k == "gres/gpu" || k.starts_with("gres/gpu:")) {
            continue;
        }
        let v = match v.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => v,
            _ => {
                return Err(Problem::BadValue { field: format!("{column} {k}"), text: super::text::clip(item.trim()) });
            }
        };
        match k {
            "gres/gpu" => plain = Some(v),
            "cpu" => cpus = Some(v),
            _ => typed = Some(typed.unwrap_or(0.0) + v),
        }
    }
    Ok(Tres { gpus: plain.or(typed), cpus })
}

/// `gpu:2`, `gpu:a100:2(IDX:0-1)`, `gpu:a100:2,gpu:v100:1` → 2, 2, 3.
fn gres_gpus(text: &str) -> Option<f64> {
    let mut total = None;
    for item in text.split(',') {
        let item = item.split('(').next().unwrap_or("");
        let mut parts = item.split(':');
        if parts.next().map(str::trim) != Some("gpu") {
            continue;
        }
        let n = parts.next_back().and_then(|n| n.trim().parse::<f64>().ok()).filter(|n| n.is_finite() && *n >= 0.0);
        total = Some(total.unwrap_or(0.0) + n.unwrap_or(1.0));
    }
    total
}

/// The columns [`write()`] produces, in order.
pub const WRITE_HEADER: &str =
    "JobID|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|Account|User|State|Partition";

/// Writes jobs as `sacct --parsable2` text with [`WRITE_HEADER`] (times as local
/// timestamps, GPUs in `AllocTRES` for started jobs and in `ReqTRES` always), so that
/// [`read`] gives the same jobs back (line numbers aside). Used to make fixtures and to
/// check the reader.
pub fn write(jobs: &[TraceJob]) -> String {
    let mut s = String::from(WRITE_HEADER);
    s.push('\n');
    for j in jobs {
        let ts = |t: Option<i64>| t.map_or_else(|| "Unknown".to_string(), format_timestamp);
        let end = j.start.zip(j.runtime).map(|(a, r)| a + r);
        let mut tres = Vec::new();
        if let Some(c) = j.procs {
            tres.push(format!("cpu={c}"));
        }
        if let Some(g) = j.gpus.filter(|&g| g > 0.0) {
            tres.push(format!("gres/gpu={g}"));
        }
        tres.push("node=1".to_string());
        let tres = tres.join(",");
        let state = match j.state {
            JobState::Unknown => String::new(),
            st => st.name().to_ascii_uppercase(),
        };
        s.push_str(&format!(
            "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n",
            j.id,
            format_timestamp(j.submit),
            ts(j.start),
            ts(end),
            j.start.and(j.runtime).map_or_else(|| "00:00:00".to_string(), format_duration),
            j.requested_time.map_or_else(|| "UNLIMITED".to_string(), format_duration),
            if j.start.is_some() { tres.as_str() } else { "" },
            tres,
            j.group.as_deref().unwrap_or(""),
            j.user.as_deref().unwrap_or(""),
            state,
            j.partition.as_deref().unwrap_or(""),
        ));
    }
    s
}

/// Seconds since 1970-01-01 (local) as `YYYY-MM-DDTHH:MM:SS`.
fn format_timestamp(t: i64) -> String {
    let d = crate::date::Date::from_days(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!("{}-{:02}-{:02}T{:02}:{:02}:{:02}", d.year(), d.month(), d.day(), s / 3600, s / 60 % 60, s % 60)
}

/// Seconds as `[D-]HH:MM:SS`.
fn format_duration(secs: i64) -> String {
    let (d, r) = (secs / 86_400, secs % 86_400);
    let hms = format!("{:02}:{:02}:{:02}", r / 3600, r / 60 % 60, r % 60);
    if d > 0 { format!("{d}-{hms}") } else { hms }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "JobID|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|Account|User|State|Partition";

    #[test]
    fn steps_arrays_and_special_values() {
        let text = format!(
            "{HEADER}\n\
             100|2025-01-01T10:00:00|2025-01-01T10:05:00|2025-01-02T12:08:04|1-02:03:04|2-00:00:00|cpu=8,gres/gpu=2,mem=64G,node=1|cpu=8,gres/gpu=2|nlp|alice|COMPLETED|gpu\n\
             100.batch|2025-01-01T10:05:00|2025-01-01T10:05:00|2025-01-02T12:08:04|1-02:03:04||cpu=8|||||\n\
             101_4|2025-01-01T11:00:00|Unknown|Unknown|00:00:00|UNLIMITED||cpu=4,gres/gpu:a100=4|cv|bob|PENDING|gpu\n\
             102|2025-01-01T12:00:00|None|2025-01-01T12:30:00|00:00:00|Partition_Limit||cpu=1,gres/gpu=1|cv|bob|CANCELLED by 0|gpu\n"
        );
        let t = read(text.as_bytes(), "s", true).unwrap();
        assert_eq!((t.jobs.len(), t.report.steps), (3, 1));
        let a = &t.jobs[0];
        assert_eq!(a.runtime, Some(93_784));
        assert_eq!(a.wait(), Some(300));
        assert_eq!((a.gpus, a.procs, a.requested_time), (Some(2.0), Some(8), Some(172_800)));
        assert_eq!((a.group.as_deref(), a.user.as_deref()), (Some("nlp"), Some("alice")));
        let b = &t.jobs[1];
        assert_eq!(
            (b.id.as_str(), b.start, b.runtime, b.gpus, b.state),
            ("101_4", None, None, Some(4.0), JobState::Pending)
        );
        assert_eq!(b.requested_time, None);
        assert_eq!((t.jobs[2].state, t.jobs[2].start), (JobState::Cancelled, None));
    }

    #[test]
    fn header_is_required() {
        let e = read(b"100|2025-01-01T10:00:00|x\n", "s", false).unwrap_err().to_string();
        assert!(e.contains("JobID and Submit"), "{e}");
        assert!(read(b"", "s", false).is_err());
    }

    #[test]
    fn step_detection() {
        for s in ["1.batch", "1.0", "1_2.extern", "1+0.batch", "1_[2-3].batch"] {
            assert!(is_step(s), "{s}");
        }
        for j in ["1", "1_2", "1_[2-3%1]", "1+0"] {
            assert!(!is_step(j), "{j}");
        }
    }

    #[test]
    fn tres_and_gres() {
        let tres = |t: &str| super::tres("AllocTRES", t).unwrap();
        assert_eq!(tres("cpu=4,gres/gpu:a100=2,gres/gpu:v100=1").gpus, Some(3.0));
        assert_eq!(tres("cpu=4,gres/gpu=2,gres/gpu:a100=2").gpus, Some(2.0));
        assert_eq!(tres("cpu=4,mem=4G").gpus, None);
        for bad in ["cpu=4,gres/gpu=abc", "gres/gpu:a100=", "cpu=x,gres/gpu=1", "gres/gpu=-1"] {
            let e = super::tres("AllocTRES", bad).unwrap_err();
            assert_eq!(
                e.kind(),
                format!(
                    "unreadable AllocTRES {}",
                    if bad.starts_with("cpu=x") {
                        "cpu"
                    } else if bad.contains("a100") {
                        "gres/gpu:a100"
                    } else {
                        "gres/gpu"
                    }
                ),
                "{bad}"
            );
        }
        assert_eq!(gres_gpus("gpu:a100:2(IDX:0-1)"), Some(2.0));
        assert_eq!(gres_gpus("gpu:2,gpu:v100:1"), Some(3.0));
        assert_eq!(gres_gpus("craynetwork:1"), None);
    }
}
