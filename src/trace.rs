//! Real workload logs: readers for three formats, one common job record, the conversion
//! to burstsim jobs and the block bootstrap. Plain functions of the logs, below the
//! scenario (which reads `[background.trace]` through them); what runs a log through the
//! engine or fits a scenario to it is in [`crate::evidence`].
//!
//! ```text
//! log file ─ read_file ─▶ Trace { info, jobs: Vec<TraceJob>, report }
//!   SWF (plain or gzip)      swf.rs      Parallel Workloads Archive logs
//!   sacct --parsable2        sacct.rs    what a Slurm admin can export
//!   CSV + column mapping     csv_list.rs Alibaba, Helios and other job lists
//! Trace ─ convert::to_jobs ─▶ Vec<job::Job> ─ evidence::replay ─▶ simulated vs recorded waits
//! Trace ─ evidence::fit ─▶ commented scenario TOML (rates, seasons, sizes, runtimes by MLE)
//! Vec<Job> ─ bootstrap::resample ─▶ a plausible year made of whole days or weeks
//! squeue + sinfo (JSON or text) ─ snapshot::read_files ─▶ Snapshot (the live campus, for advise)
//! ```
//!
//! Readers never panic on malformed input. A row that cannot be used (a truncated line,
//! a field that is not a number, a negative duration, a start before the submission) is
//! reported with its line number and the reason and skipped, or, with
//! [`ReadOptions::strict`], refused with a [`TraceError::BadRow`]. [`ReadReport`] says
//! how many rows were read and skipped and why. Bytes that are not UTF-8 are replaced by
//! U+FFFD in text fields (user names); in a numeric field they make the row bad.
//!
//! Times are whole seconds on the trace's own clock ([`TraceJob::submit`]); when the
//! trace says when its clock started ([`TraceInfo::unix_start`]), [`TraceInfo::local_time`]
//! gives local wall-clock time for calendars (hour of week, month).

pub mod bootstrap;
pub mod convert;
pub mod csv_list;
pub mod fitness;
mod record;
pub mod sacct;
pub mod snapshot;
pub mod swf;
pub(crate) mod text;

use std::path::Path;

pub use csv_list::CsvMapping;
pub use record::{BadRow, Format, JobState, Problem, ReadReport, Trace, TraceError, TraceInfo, TraceJob};

/// How to read.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Refuse the whole file at the first bad row instead of skipping it.
    pub strict: bool,
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Column mapping for CSV files (required for [`Format::Csv`]).
    pub mapping: Option<CsvMapping>,
}

/// Reads a log file (gzip is detected by its magic bytes, whatever the name).
///
/// # Errors
/// [`TraceError`] when the file cannot be read, has no usable header, or (strict) has a
/// bad row.
pub fn read_file(path: &Path, options: &ReadOptions) -> Result<Trace, TraceError> {
    let bytes = std::fs::read(path).map_err(|source| TraceError::Read { path: path.display().to_string(), source })?;
    read_bytes(&bytes, &path.display().to_string(), options)
}

/// Reads a log held in memory; `file` names it in messages and helps detect the format.
///
/// # Errors
/// As [`read_file`].
pub fn read_bytes(bytes: &[u8], file: &str, options: &ReadOptions) -> Result<Trace, TraceError> {
    let (text, note) = text::gunzip_if_needed(bytes, file, options.strict)?;
    if let Some(encoding) = text::utf16(&text) {
        return Err(TraceError::Utf16 { file: file.to_string(), encoding });
    }
    let format = options
        .format
        .unwrap_or_else(|| if options.mapping.is_some() { Format::Csv } else { Format::detect(file, &text) });
    let mut trace = match format {
        Format::Swf => swf::read(&text, file, options.strict)?,
        Format::Sacct => sacct::read(&text, file, options.strict)?,
        Format::Csv => {
            let mapping = options.mapping.as_ref().ok_or_else(|| {
                TraceError::Mapping(format!(
                    "{file}: a CSV job list needs a column mapping: give --mapping with a preset ({}) or a TOML file (see docs/TRACES.md)",
                    csv_list::PRESETS.join(", ")
                ))
            })?;
            csv_list::read(&text, file, mapping, options.strict)?
        }
    };
    if let Some(n) = note {
        trace.report.notes.push(n);
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_map_from_slurm_and_csv_words() {
        assert_eq!(JobState::from_word("CANCELLED by 0"), JobState::Cancelled);
        assert_eq!(JobState::from_word("COMPLETED"), JobState::Completed);
        assert_eq!(JobState::from_word("Succeeded"), JobState::Completed);
        assert_eq!(JobState::from_word("FAILED+"), JobState::Failed);
        assert_eq!(JobState::from_word("OUT_OF_MEMORY"), JobState::Failed);
        assert_eq!(JobState::from_word("weird"), JobState::Other);
        assert_eq!(JobState::from_word(""), JobState::Unknown);
    }

    #[test]
    fn format_detection_uses_names_and_first_lines() {
        assert_eq!(Format::detect("x.swf.gz", b""), Format::Swf);
        assert_eq!(Format::detect("x.log", b"; Version: 2\n1 2 3"), Format::Swf);
        assert_eq!(Format::detect("x.txt", b"JobID|Submit|State\n"), Format::Sacct);
        assert_eq!(Format::detect("x.csv", b"a,b,c\n"), Format::Csv);
    }

    #[test]
    fn report_groups_reasons() {
        let mut r = ReadReport::default();
        r.skipped.push(BadRow { line: 3, problem: Problem::NoSubmit });
        r.skipped.push(BadRow { line: 5, problem: Problem::FieldCount { found: 2, expected: 18 } });
        r.skipped.push(BadRow { line: 9, problem: Problem::NoSubmit });
        assert_eq!(r.by_reason()[0], ("no submit time".to_string(), 2));
        assert!(r.summary("f").contains("line 3: no submit time; line 9"));
    }
}
