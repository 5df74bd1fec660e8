//! The log readers on hand-made input: the sacct fixture round-trips, malformed input is
//! reported (never a panic), and random or mutated bytes never make a reader panic.

use burstsim::trace::sacct;
use burstsim::trace::{CsvMapping, Format, JobState, ReadOptions, TraceError, TraceJob, read_bytes, read_file};
use proptest::prelude::*;

const FIXTURE: &str = "tests/fixtures/traces/sacct_small.txt";

fn opts(format: Format) -> ReadOptions {
    ReadOptions { format: Some(format), ..ReadOptions::default() }
}

fn strict(format: Format) -> ReadOptions {
    ReadOptions { format: Some(format), strict: true, ..ReadOptions::default() }
}

fn without_lines(jobs: &[TraceJob]) -> Vec<TraceJob> {
    jobs.iter()
        .cloned()
        .map(|mut j| {
            j.line = 0;
            j
        })
        .collect()
}

#[test]
fn sacct_fixture_reads_gpus_arrays_unknown_starts_and_cancelled_by_0() {
    let t = read_file(FIXTURE.as_ref(), &ReadOptions::default()).unwrap();
    assert_eq!(t.info.format, Some(Format::Sacct), "detected from the header");
    assert_eq!((t.jobs.len(), t.report.steps, t.report.skipped.len()), (10, 4, 0));
    let by_id = |id: &str| t.jobs.iter().find(|j| j.id == id).unwrap_or_else(|| panic!("{id}"));
    let a = by_id("1001");
    assert_eq!(
        (a.gpus, a.procs, a.runtime, a.wait(), a.requested_time),
        (Some(1.0), Some(8), Some(7200), Some(0), Some(14_400))
    );
    assert_eq!(
        (a.user.as_deref(), a.group.as_deref(), a.partition.as_deref()),
        (Some("alice"), Some("vision"), Some("gpu"))
    );
    let b = by_id("1002");
    assert_eq!((b.gpus, b.runtime, b.wait(), b.requested_time), (Some(4.0), Some(90_184), Some(9000), Some(172_800)));
    assert_eq!((by_id("1003_1").state, by_id("1003_1").requested_time), (JobState::Timeout, Some(1800)));
    assert_eq!(by_id("1003_2").state, JobState::Failed);
    let pending = by_id("1003_[3-5%2]");
    assert_eq!(
        (pending.start, pending.runtime, pending.gpus, pending.state),
        (None, None, Some(2.0), JobState::Pending)
    );
    let cancelled = by_id("1004");
    assert_eq!(
        (cancelled.state, cancelled.start, cancelled.gpus, cancelled.requested_time),
        (JobState::Cancelled, None, Some(8.0), None)
    );
    let cpu = by_id("1005");
    assert_eq!((cpu.gpus, cpu.requested_time, cpu.runtime), (Some(0.0), None, Some(42)));
    assert_eq!((by_id("1006").state, by_id("1006").runtime), (JobState::Running, Some(11_045)));
    assert_eq!(by_id("1007").state, JobState::Failed);
    assert_eq!(by_id("1008").state, JobState::Preempted);
}

#[test]
fn sacct_fixture_round_trips_through_the_writer() {
    let first = read_file(FIXTURE.as_ref(), &strict(Format::Sacct)).unwrap();
    let text = sacct::write(&first.jobs);
    let second = read_bytes(text.as_bytes(), "written", &strict(Format::Sacct)).unwrap();
    assert_eq!(without_lines(&first.jobs), without_lines(&second.jobs));
    // And once more: the written text is a fixed point.
    assert_eq!(sacct::write(&second.jobs), text);
}

#[test]
fn sacct_with_crlf_and_trailing_separators_reads_the_same() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let crlf: String = text.lines().map(|l| format!("{l}|\r\n")).collect();
    let a = read_bytes(text.as_bytes(), "lf", &strict(Format::Sacct)).unwrap();
    let b = read_bytes(crlf.as_bytes(), "crlf", &strict(Format::Sacct)).unwrap();
    assert_eq!(a.jobs, b.jobs);
}

#[test]
fn sacct_bad_rows_name_their_lines_and_reasons() {
    let text = "JobID|Submit|Start|End|Elapsed|State\n\
                1|2025-01-01T00:00:00|2025-01-01T00:01:00|2025-01-01T00:02:00|00:01:00|COMPLETED\n\
                2|2025-01-01T00:00:00|2025-01-01T00:01:00\n\
                3|2025-01-01T00:05:00|2025-01-01T00:01:00|2025-01-01T00:02:00|00:01:00|COMPLETED\n\
                4|Unknown|Unknown|Unknown|00:00:00|PENDING\n\
                5|2025-01-01T00:00:00|2025-01-01T00:01:00|2025-01-01T00:02:00|-00:01:00|COMPLETED\n\
                6|2025-13-01T00:00:00|Unknown|Unknown|00:00:00|PENDING\n\
                7|2025-01-01T00:00:00|2025-01-01T00:01:00|Unknown|\u{fffd}|RUNNING\n\
                8|2025-01-01T00:00:00|Unknown|Unknown|00:00:00|SOMETHING_NEW\n";
    let t = read_bytes(text.as_bytes(), "bad.txt", &opts(Format::Sacct)).unwrap();
    assert_eq!(t.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), ["1", "8"]);
    assert_eq!(t.jobs[1].state, JobState::Other, "an unknown state is kept, as 'other'");
    let lines: Vec<usize> = t.report.skipped.iter().map(|b| b.line).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8]);
    let summary = t.report.summary("bad.txt");
    assert!(summary.contains("2 jobs read, 6 rows skipped"), "{summary}");
    assert!(summary.contains("start before submit"), "{summary}");
    let err = read_bytes(text.as_bytes(), "bad.txt", &strict(Format::Sacct)).unwrap_err();
    assert!(matches!(&err, TraceError::BadRow { row, .. } if row.line == 3), "{err}");
    assert!(err.to_string().contains("--strict"));
}

#[test]
fn swf_with_crlf_non_utf8_and_truncated_lines() {
    let mut bytes = b"; MaxProcs: 8\r\n1 0 5 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\r\n".to_vec();
    bytes.extend_from_slice(b"2 1 0 1\xff 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\r\n");
    bytes.extend_from_slice(b"3 2 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1");
    let t = read_bytes(&bytes, "x.swf", &ReadOptions::default()).unwrap();
    assert_eq!(t.jobs.len(), 1);
    assert_eq!(t.info.max_procs, Some(8));
    assert_eq!(
        t.report.skipped.iter().map(|b| (b.line, b.problem.kind())).collect::<Vec<_>>(),
        [(3, "unreadable run time".to_string()), (4, "wrong number of fields".to_string())]
    );
}

#[test]
fn csv_without_the_mapped_header_is_refused_with_the_columns_it_has() {
    let m = CsvMapping::preset("alibaba-openb-2023").unwrap();
    let o = ReadOptions { mapping: Some(m), ..ReadOptions::default() };
    let e = read_bytes(b"openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n", "nohdr.csv", &o).unwrap_err();
    assert!(e.to_string().contains("'creation_time'"), "{e}");
    let e = read_bytes(b"", "empty.csv", &o).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    let e = read_bytes(b"a,b\n1,2\n", "nomap.csv", &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("column mapping"), "{e}");
}

#[test]
fn gzipped_input_is_detected_by_its_magic_bytes() {
    use std::io::Write;
    let text = std::fs::read(FIXTURE).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&text).unwrap();
    let gz = enc.finish().unwrap();
    let t = read_bytes(&gz, "sacct.txt.gz", &ReadOptions::default()).unwrap();
    assert_eq!(t.jobs.len(), 10);
    let cut = read_bytes(&gz[..gz.len() - 12], "cut.gz", &ReadOptions::default()).unwrap();
    assert!(!cut.report.notes.is_empty(), "a broken stream is noted");
    assert!(read_bytes(&gz[..gz.len() - 12], "cut.gz", &strict(Format::Sacct)).is_err());
}

const SWF_SAMPLE: &str = "; MaxProcs: 100\n15 599850 192180 3477 4 -1 -1 4 53940 -1 1 12 12 -1 -1 -1 -1 -1\n\
16 600022 11940 2488 25 -1 -1 25 3600 -1 0 13 13 -1 -1 -1 -1 -1\n";
const CSV_SAMPLE: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
p0,12000,16384,1,460,,LS,Succeeded,100,700,102\np1,6000,12288,2,1000,V100M16|V100M32,BE,Pending,200,300,\n";

/// Reads with every reader; checks the report adds up. Errors are fine, panics are not.
fn read_all_ways(bytes: &[u8]) {
    let csv = ReadOptions { mapping: CsvMapping::preset("alibaba-openb-2023"), ..ReadOptions::default() };
    for o in [opts(Format::Swf), opts(Format::Sacct), csv, ReadOptions::default(), strict(Format::Swf)] {
        if let Ok(t) = read_bytes(bytes, "fuzz", &o) {
            assert_eq!(t.report.read + t.report.skipped.len(), t.report.rows);
            assert_eq!(t.jobs.len(), t.report.read);
            for j in &t.jobs {
                assert!(j.runtime.is_none_or(|r| r >= 0) && j.wait().is_none_or(|w| w >= 0));
            }
        }
    }
}

/// Mutations of a valid sample: cut it, flip bytes, splice in random bytes.
fn mutated(sample: &'static str) -> impl Strategy<Value = Vec<u8>> {
    (
        0..=sample.len(),
        proptest::collection::vec((0..sample.len(), any::<u8>()), 0..8),
        proptest::collection::vec(any::<u8>(), 0..16),
    )
        .prop_map(move |(cut, flips, splice)| {
            let mut b = sample.as_bytes().to_vec();
            for (i, v) in flips {
                b[i] = v;
            }
            b.truncate(cut);
            b.extend(splice);
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prop_random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        read_all_ways(&bytes);
    }

    #[test]
    fn prop_mutated_swf_never_panics(bytes in mutated(SWF_SAMPLE)) {
        read_all_ways(&bytes);
    }

    #[test]
    fn prop_mutated_sacct_never_panics(bytes in mutated(include_str!("../fixtures/traces/sacct_small.txt"))) {
        read_all_ways(&bytes);
    }

    #[test]
    fn prop_mutated_csv_never_panics(bytes in mutated(CSV_SAMPLE)) {
        read_all_ways(&bytes);
    }

    #[test]
    fn prop_random_text_of_reader_alphabets_never_panics(s in "[0-9 :;|,.\\-TUnknow\r\n]{0,300}") {
        read_all_ways(s.as_bytes());
    }
}
