//! The Standard Workload Format of the Parallel Workloads Archive
//! (<https://www.cs.huji.ac.il/labs/parallel/workload/swf.html>).
//!
//! One job per line, 18 whitespace-separated numeric fields; `-1` means "not known":
//!
//! ```text
//!  1 job number        7 used memory (KB)          13 group id
//!  2 submit time (s)   8 requested processors      14 executable (application) number
//!  3 wait time (s)     9 requested time (s)        15 queue number
//!  4 run time (s)     10 requested memory (KB)     16 partition number
//!  5 allocated procs  11 status (1 done, 0 failed, 5 cancelled; 2–4 partial records)
//!  6 average CPU time 12 user id                   17 preceding job, 18 think time
//! ```
//!
//! Lines starting with `;` are comments; header comments of the form `; Key: value` give
//! `MaxProcs`, `MaxNodes`, `UnixStartTime`, `TimeZone`, `MaxRecords` and `Computer`.
//! Fields may be written as decimals (some logs give CPU time with a fraction); times are
//! rounded to whole seconds. A negative value other than −1 in a duration is a bad row;
//! processors come from field 5, else field 8.

use super::record::{Collector, Format, JobState, Problem, Trace, TraceError, TraceInfo, TraceJob};
use super::text::{lines, number, whole_seconds};

/// Number of fields of an SWF record.
pub const FIELDS: usize = 18;

const NAMES: [&str; FIELDS] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job",
    "think time",
];

/// Reads SWF text (already decompressed).
///
/// # Errors
/// [`TraceError::BadRow`] in strict mode; otherwise none (bad rows are skipped).
pub fn read(text: &[u8], file: &str, strict: bool) -> Result<Trace, TraceError> {
    let mut c = Collector::new(file, strict, Format::Swf);
    for (n, line) in lines(text) {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(comment) = l.strip_prefix(';') {
            header_line(&mut c.trace.info, comment);
            continue;
        }
        c.row(n, parse_record(n, l))?;
    }
    Ok(c.trace)
}

/// Interprets one `; Key: value` header comment.
fn header_line(info: &mut TraceInfo, comment: &str) {
    let Some((key, value)) = comment.split_once(':') else { return };
    let value = value.trim();
    let int = || value.split_whitespace().next().and_then(|v| v.parse::<i64>().ok());
    match key.trim().to_ascii_lowercase().as_str() {
        "maxprocs" => info.max_procs = int().and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0),
        "maxnodes" => info.max_nodes = int().and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0),
        "unixstarttime" => info.unix_start = int().filter(|v| v.abs() < 1 << 40),
        "timezone" => info.tz_offset = int().filter(|v| v.abs() <= 86_400).unwrap_or(0),
        "maxrecords" => info.max_records = int().and_then(|v| u64::try_from(v).ok()),
        "computer" => info.computer = Some(value.to_string()),
        _ => {}
    }
}

/// Parses one data line into a job.
fn parse_record(line: usize, l: &str) -> Result<TraceJob, Problem> {
    let fields: Vec<&str> = l.split_whitespace().collect();
    if fields.len() != FIELDS {
        return Err(Problem::FieldCount { found: fields.len(), expected: FIELDS });
    }
    let mut v = [0.0f64; FIELDS];
    for (i, f) in fields.iter().enumerate() {
        v[i] = number(NAMES[i], f)?;
    }
    let known = |i: usize| if v[i] == -1.0 { None } else { Some(v[i]) };
    let secs = |i: usize| -> Result<Option<i64>, Problem> {
        match known(i) {
            None => Ok(None),
            Some(x) => whole_seconds(NAMES[i], x).map(Some),
        }
    };
    let submit = match secs(1)? {
        None => return Err(Problem::NoSubmit),
        Some(s) => s,
    };
    let wait = secs(2)?;
    if let Some(w) = wait.filter(|&w| w < 0) {
        return Err(Problem::NegativeDuration { field: "wait time", value: w });
    }
    let count = |i: usize| known(i).filter(|&p| p >= 0.0 && p <= f64::from(u32::MAX)).map(|p| p.round() as u32);
    let id_text = fields[0].to_string();
    let tag = |i: usize| known(i).map(|x| format!("{x}"));
    let mut job = TraceJob::new(line, id_text, submit);
    job.start = match wait {
        Some(w) => {
            Some(submit.checked_add(w).ok_or(Problem::BadValue { field: "wait time".into(), text: format!("{w}") })?)
        }
        None => None,
    };
    job.runtime = secs(3)?;
    job.requested_time = secs(8)?;
    job.procs = count(4).filter(|&p| p > 0).or_else(|| count(7).filter(|&p| p > 0));
    job.user = tag(11);
    job.group = tag(12);
    job.partition = tag(14);
    job.state = match known(10).map(|s| s as i64) {
        Some(1) => JobState::Completed,
        Some(0) => JobState::Failed,
        Some(5) => JobState::Cancelled,
        None => JobState::Unknown,
        Some(_) => JobState::Other,
    };
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "; Version: 2.2\n; MaxProcs: 100\n; UnixStartTime: 843480031\n; TimeZone: 3600\n\
;\n   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1\r\n\
   16   600022  11940   2488   25     -1    -1   25   3600    -1  0  13  13  -1 -1 -1 -1 -1\n";

    #[test]
    fn reads_records_and_header() {
        let t = read(SAMPLE.as_bytes(), "s.swf", true).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.info.max_procs, Some(100));
        assert_eq!(t.info.unix_start, Some(843_480_031));
        assert_eq!(t.info.tz_offset, 3600);
        let j = &t.jobs[0];
        assert_eq!((j.id.as_str(), j.submit, j.start, j.runtime), ("15", 599_850, Some(792_030), Some(3477)));
        assert_eq!((j.procs, j.requested_time, j.state, j.line), (Some(4), Some(53_940), JobState::Completed, 6));
        assert_eq!(t.jobs[1].state, JobState::Failed);
    }

    #[test]
    fn bad_rows_are_counted_with_lines() {
        let text = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
                    2 5 0 10 1 -1\n\
                    3 5 0 -7 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
                    4 5 -3 7 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
                    5 x 0 7 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
                    6 -1 0 7 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let t = read(text.as_bytes(), "b.swf", false).unwrap();
        assert_eq!(t.jobs.len(), 1);
        let lines: Vec<usize> = t.report.skipped.iter().map(|b| b.line).collect();
        assert_eq!(lines, vec![2, 3, 4, 5, 6]);
        let err = read(text.as_bytes(), "b.swf", true).unwrap_err().to_string();
        assert!(err.starts_with("b.swf:2: 6 fields where 18"), "{err}");
    }

    #[test]
    fn missing_values_are_none() {
        let t = read(b"7 100 -1 -1 -1 -1 -1 8 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n", "m", true).unwrap();
        let j = &t.jobs[0];
        assert_eq!((j.start, j.runtime, j.procs, j.state), (None, None, Some(8), JobState::Unknown));
    }
}
