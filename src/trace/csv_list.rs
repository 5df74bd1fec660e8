//! CSV job lists read through a column mapping, so new logs load without code changes.
//!
//! A mapping names the columns that hold the submission time and whichever of start,
//! end, duration and wait the log has; GPU and processor counts are small expressions over
//! columns (`num_gpu`, `plan_gpu / 100`, `num_gpu * gpu_milli / 1000`). Written as TOML
//! (every key is optional except `submit`):
//!
//! ```toml
//! submit = "creation_time"      # column names
//! start = "scheduled_time"
//! end = "deletion_time"
//! gpus = "num_gpu * gpu_milli / 1000"
//! state = "pod_phase"
//! time_unit = "seconds"         # numeric times: seconds, milliseconds, minutes, hours
//! ```
//!
//! Times are numbers in `time_unit` or calendar timestamps (`2020-04-01 00:00:09`);
//! durations are numbers in `duration_unit`. Empty, `NaN`, `null` and `None` mean
//! missing. The run time is `duration`, else `end − start`; the start is `start`, else
//! `submit + wait`. For a file without a header line, `columns` names its columns.
//! [`PRESETS`] has mappings for logs we know.

use serde::{Deserialize, Serialize};

use super::record::{Collector, Format, JobState, Problem, Trace, TraceError, TraceJob};
use super::text::{clip, is_missing, number, timestamp, whole_seconds};

/// Names of the built-in mappings ([`CsvMapping::preset`]).
pub const PRESETS: [&str; 4] = ["alibaba-openb-2023", "alibaba-dlrm-2025", "alibaba-pai-2020", "helios"];

/// Unit of numeric times and durations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeUnit {
    /// Seconds (the default).
    #[default]
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Minutes.
    Minutes,
    /// Hours.
    Hours,
}

impl TimeUnit {
    fn seconds(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Milliseconds => 0.001,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3600.0,
        }
    }
}

/// Which columns of a CSV job list mean what.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvMapping {
    /// Column of the submission time (required).
    pub submit: String,
    /// Column of the start time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Column of the end time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// Column of the run time (a duration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// Column of the queue delay (a duration), when there is no start column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<String>,
    /// Column of the requested walltime (a duration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_time: Option<String>,
    /// GPU count expression: `COLUMN`, optionally `* X` or `/ X` by columns or numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<String>,
    /// Processor count expression, as `gpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procs: Option<String>,
    /// Column of the job id (default: the line number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Column of the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Column of the group, account or virtual cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Column of the queue or partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// Column of the final state (words as in [`JobState::from_word`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Unit of numeric times (submit, start, end).
    #[serde(default)]
    pub time_unit: TimeUnit,
    /// Unit of durations (duration, wait, requested_time).
    #[serde(default)]
    pub duration_unit: TimeUnit,
    /// Column names of a file without a header line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
}

impl CsvMapping {
    /// A built-in mapping by name (see [`PRESETS`]):
    /// - `alibaba-openb-2023`: `openb_pod_list_*.csv` (GPU-sharing pods; GPUs =
    ///   `num_gpu × gpu_milli / 1000`, fractional for shared GPUs);
    /// - `alibaba-dlrm-2025`: `disaggregated_DLRM_trace.csv` (inference instances);
    /// - `alibaba-pai-2020`: `pai_task_table.csv` of cluster-trace-gpu-v2020 (no header;
    ///   `plan_gpu` is in percent of a GPU);
    /// - `helios`: SenseTime Helios `cluster_log.csv` (timestamps, `gpu_num`, `vc`).
    pub fn preset(name: &str) -> Option<CsvMapping> {
        let s = |x: &str| Some(x.to_string());
        let m = match name {
            "alibaba-openb-2023" => CsvMapping {
                submit: "creation_time".into(),
                start: s("scheduled_time"),
                end: s("deletion_time"),
                gpus: s("num_gpu * gpu_milli / 1000"),
                procs: s("cpu_milli / 1000"),
                id: s("name"),
                group: s("qos"),
                state: s("pod_phase"),
                ..CsvMapping::default()
            },
            "alibaba-dlrm-2025" => CsvMapping {
                submit: "creation_time".into(),
                start: s("scheduled_time"),
                end: s("deletion_time"),
                gpus: s("gpu_request"),
                procs: s("cpu_request"),
                id: s("instance_sn"),
                group: s("app_name"),
                partition: s("role"),
                ..CsvMapping::default()
            },
            "alibaba-pai-2020" => CsvMapping {
                submit: "start_time".into(),
                end: s("end_time"),
                start: s("start_time"),
                gpus: s("inst_num * plan_gpu / 100"),
                procs: s("inst_num * plan_cpu / 100"),
                id: s("job_name"),
                state: s("status"),
                columns: [
                    "job_name",
                    "task_name",
                    "inst_num",
                    "status",
                    "start_time",
                    "end_time",
                    "plan_cpu",
                    "plan_mem",
                    "plan_gpu",
                    "gpu_type",
                ]
                .map(String::from)
                .to_vec(),
                ..CsvMapping::default()
            },
            "helios" => CsvMapping {
                submit: "submit_time".into(),
                start: s("start_time"),
                end: s("end_time"),
                duration: s("duration"),
                gpus: s("gpu_num"),
                procs: s("cpu_num"),
                id: s("job_id"),
                user: s("user"),
                group: s("vc"),
                state: s("state"),
                ..CsvMapping::default()
            },
            _ => return None,
        };
        Some(m)
    }

    /// A preset name, or the path of a TOML mapping file.
    ///
    /// # Errors
    /// [`TraceError::Mapping`] naming the presets, or the file and the TOML error.
    pub fn from_arg(arg: &str) -> Result<CsvMapping, TraceError> {
        if let Some(m) = CsvMapping::preset(arg) {
            return Ok(m);
        }
        let text = std::fs::read_to_string(arg).map_err(|e| {
            TraceError::Mapping(format!(
                "--mapping '{arg}' is neither a preset ({}) nor a readable TOML file: {e}",
                PRESETS.join(", ")
            ))
        })?;
        toml::from_str(&text).map_err(|e| TraceError::Mapping(format!("{arg}: {}", e.to_string().trim_end())))
    }
}

/// A product/quotient of columns and numbers, e.g. `num_gpu * gpu_milli / 1000`.
#[derive(Clone, Debug)]
struct Expr {
    text: String,
    /// (divide?, column index or constant)
    terms: Vec<(bool, Term)>,
}

#[derive(Clone, Debug)]
enum Term {
    Column(usize),
    Constant(f64),
}

impl Expr {
    fn parse(text: &str, header: &[String], file: &str) -> Result<Expr, TraceError> {
        let mut terms = Vec::new();
        let mut divide = false;
        let spaced = text.replace('*', " * ").replace('/', " / ");
        let mut expect_term = true;
        for tok in spaced.split_whitespace() {
            match (expect_term, tok) {
                (false, "*") | (false, "/") => {
                    divide = tok == "/";
                    expect_term = true;
                }
                (true, t) if t != "*" && t != "/" => {
                    let term = match t.parse::<f64>() {
                        Ok(v) if v.is_finite() => Term::Constant(v),
                        _ => Term::Column(column(header, t, file)?),
                    };
                    terms.push((divide, term));
                    expect_term = false;
                }
                _ => {
                    return Err(TraceError::Mapping(format!(
                        "{file}: expression '{text}' is not COLUMN [* or / COLUMN or NUMBER]…"
                    )));
                }
            }
        }
        if expect_term {
            return Err(TraceError::Mapping(format!("{file}: expression '{text}' is empty or ends with an operator")));
        }
        Ok(Expr { text: text.to_string(), terms })
    }

    /// `Ok(None)` when a column is missing; a value that is not a number is a bad row.
    fn eval(&self, f: &[String]) -> Result<Option<f64>, Problem> {
        let mut v = 1.0;
        for (divide, t) in &self.terms {
            let x = match t {
                Term::Constant(c) => *c,
                Term::Column(i) => {
                    let s = f.get(*i).map_or("", String::as_str);
                    if is_missing(s) {
                        return Ok(None);
                    }
                    number(&self.text, s)?
                }
            };
            v = if *divide { v / x } else { v * x };
        }
        if v.is_finite() {
            Ok(Some(v))
        } else {
            Err(Problem::BadValue { field: self.text.clone(), text: format!("{v}") })
        }
    }
}

fn column(header: &[String], name: &str, file: &str) -> Result<usize, TraceError> {
    header.iter().position(|h| h.trim() == name.trim()).ok_or_else(|| TraceError::Header {
        file: file.to_string(),
        message: format!(
            "the mapping names column '{name}', which the header does not have; the columns are: {}",
            clip(&header.join(", ")).replace('…', ", …")
        ),
    })
}

/// Reads a CSV job list (already decompressed) through `mapping`.
///
/// # Errors
/// [`TraceError::Header`] when the header lacks a mapped column; [`TraceError::Mapping`]
/// for a malformed expression; [`TraceError::BadRow`] in strict mode.
pub fn read(text: &[u8], file: &str, mapping: &CsvMapping, strict: bool) -> Result<Trace, TraceError> {
    let mut c = Collector::new(file, strict, Format::Csv);
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text);
    let mut records = rdr.byte_records();
    let decode =
        |r: &csv::ByteRecord| -> Vec<String> { r.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect() };
    let header: Vec<String> = if mapping.columns.is_empty() {
        match records.next() {
            Some(Ok(r)) => {
                decode(&r).into_iter().map(|h| h.trim_start_matches('\u{feff}').trim().to_string()).collect()
            }
            Some(Err(e)) => {
                return Err(TraceError::Header {
                    file: file.into(),
                    message: format!("the header line is not readable: {e}"),
                });
            }
            None => return Err(TraceError::Header { file: file.into(), message: "the file is empty".into() }),
        }
    } else {
        mapping.columns.clone()
    };
    let col = |name: &Option<String>| name.as_deref().map(|n| column(&header, n, file)).transpose();
    let m = Mapped {
        submit: column(&header, &mapping.submit, file)?,
        start: col(&mapping.start)?,
        end: col(&mapping.end)?,
        duration: col(&mapping.duration)?,
        wait: col(&mapping.wait)?,
        requested: col(&mapping.requested_time)?,
        id: col(&mapping.id)?,
        user: col(&mapping.user)?,
        group: col(&mapping.group)?,
        partition: col(&mapping.partition)?,
        state: col(&mapping.state)?,
        gpus: mapping.gpus.as_deref().map(|e| Expr::parse(e, &header, file)).transpose()?,
        procs: mapping.procs.as_deref().map(|e| Expr::parse(e, &header, file)).transpose()?,
        time_unit: mapping.time_unit.seconds(),
        duration_unit: mapping.duration_unit.seconds(),
        width: header.len(),
    };
    // Line numbers from byte offsets: the csv crate miscounts lines ending in CRLF.
    let newlines: Vec<usize> = text.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i).collect();
    let line_at =
        |p: Option<&csv::Position>| p.map_or(0, |p| newlines.partition_point(|&n| n <= p.byte() as usize) + 1);
    for rec in records {
        match rec {
            Ok(r) => {
                let line = line_at(r.position());
                let fields = decode(&r);
                if fields.len() == 1 && fields[0].trim().is_empty() {
                    continue;
                }
                let parsed = if fields.len() < m.width {
                    Err(Problem::FieldCount { found: fields.len(), expected: m.width })
                } else {
                    m.parse(line, &fields)
                };
                c.row(line, parsed)?;
            }
            Err(e) => {
                let line = line_at(e.position());
                c.row(line, Err(Problem::BadValue { field: "CSV row".into(), text: clip(&e.to_string()) }))?;
            }
        }
    }
    Ok(c.trace)
}

struct Mapped {
    submit: usize,
    start: Option<usize>,
    end: Option<usize>,
    duration: Option<usize>,
    wait: Option<usize>,
    requested: Option<usize>,
    id: Option<usize>,
    user: Option<usize>,
    group: Option<usize>,
    partition: Option<usize>,
    state: Option<usize>,
    gpus: Option<Expr>,
    procs: Option<Expr>,
    time_unit: f64,
    duration_unit: f64,
    width: usize,
}

impl Mapped {
    fn parse(&self, line: usize, f: &[String]) -> Result<TraceJob, Problem> {
        let get = |c: Option<usize>| c.map(|i| f[i].trim()).filter(|s| !is_missing(s));
        let time = |c: Option<usize>, name: &str| -> Result<Option<i64>, Problem> {
            let Some(s) = get(c) else { return Ok(None) };
            match s.parse::<f64>() {
                Ok(v) => whole_seconds(name, v * self.time_unit).map(Some),
                Err(_) => timestamp(name, s).map(Some),
            }
        };
        let duration = |c: Option<usize>, name: &str| -> Result<Option<i64>, Problem> {
            match get(c) {
                Some(s) => whole_seconds(name, number(name, s)? * self.duration_unit).map(Some),
                None => Ok(None),
            }
        };
        let submit = time(Some(self.submit), "submit")?.ok_or(Problem::NoSubmit)?;
        let id = get(self.id).map_or_else(|| line.to_string(), String::from);
        let mut job = TraceJob::new(line, id, submit);
        let wait = duration(self.wait, "wait")?;
        job.start = time(self.start, "start")?.or(wait.map(|w| submit + w));
        let end = time(self.end, "end")?;
        job.runtime = match duration(self.duration, "duration")? {
            Some(d) => Some(d),
            None => end.zip(job.start).map(|(e, s)| e - s),
        };
        job.requested_time = duration(self.requested, "requested_time")?;
        job.gpus = self.gpus.as_ref().map(|e| e.eval(f)).transpose()?.flatten();
        let procs = self.procs.as_ref().map(|e| e.eval(f)).transpose()?.flatten();
        job.procs = procs.filter(|&p| p >= 0.5 && p <= f64::from(u32::MAX)).map(|p| p.round() as u32);
        job.user = get(self.user).map(String::from);
        job.group = get(self.group).map(String::from);
        job.partition = get(self.partition).map(String::from);
        job.state = get(self.state).map_or(JobState::Unknown, JobState::from_word);
        Ok(job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openb_preset_reads_fractional_gpus_and_pending_pods() {
        let text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\r\n\
                    p0,12000,16384,1,460,,LS,Succeeded,100,700,102\r\n\
                    p1,6000,12288,2,1000,V100M16|V100M32,BE,Pending,200,300,\r\n";
        let t = read(text.as_bytes(), "o.csv", &CsvMapping::preset("alibaba-openb-2023").unwrap(), true).unwrap();
        assert_eq!(t.jobs.len(), 2);
        let (a, b) = (&t.jobs[0], &t.jobs[1]);
        assert_eq!(
            (a.gpus, a.wait(), a.runtime, a.procs, a.state),
            (Some(0.46), Some(2), Some(598), Some(12), JobState::Completed)
        );
        assert_eq!((b.gpus, b.start, b.runtime, b.state), (Some(2.0), None, None, JobState::Pending));
        assert_eq!(a.line, 2);
    }

    #[test]
    fn unknown_columns_and_bad_expressions_are_header_errors() {
        let m = CsvMapping { submit: "t".into(), gpus: Some("g *".into()), ..CsvMapping::default() };
        assert!(matches!(read(b"t,g\n1,2\n", "f", &m, false), Err(TraceError::Mapping(_))));
        let m = CsvMapping { submit: "time".into(), ..CsvMapping::default() };
        let e = read(b"t,g\n1,2\n", "f", &m, false).unwrap_err().to_string();
        assert!(e.contains("'time'") && e.contains("t, g"), "{e}");
    }

    #[test]
    fn timestamps_units_and_short_rows() {
        let m = CsvMapping {
            submit: "s".into(),
            start: Some("b".into()),
            duration: Some("d".into()),
            duration_unit: TimeUnit::Minutes,
            ..CsvMapping::default()
        };
        let t =
            read(b"s,b,d\n2020-04-01 00:00:09,2020-04-01 00:01:09,2\n2020-04-01 00:00:09\n", "h", &m, false).unwrap();
        assert_eq!(t.jobs[0].wait(), Some(60));
        assert_eq!(t.jobs[0].runtime, Some(120));
        assert_eq!(t.report.skipped[0].line, 3);
    }

    #[test]
    fn mapping_toml_round_trips() {
        let m = CsvMapping::preset("helios").unwrap();
        let back: CsvMapping = toml::from_str(&toml::to_string(&m).unwrap()).unwrap();
        assert_eq!(m, back);
        assert!(toml::from_str::<CsvMapping>("submit = \"a\"\nsubmitt = \"b\"").is_err());
    }
}
