//! Reads every log in `../shared/data/traces/` (next to the crate) and checks what each
//! reader finds against the figures in that folder's SOURCE.md. Skips, with a message,
//! when the folder is absent (a clone without the shared data); fails under `CI=true`
//! (see `tests/suite/common/mod.rs`).

use crate::common;

use std::path::{Path, PathBuf};

use burstsim::stats::percentile_sorted;
use burstsim::trace::{CsvMapping, Format, JobState, ReadOptions, Trace, read_file};

fn read(dir: &Path, rel: &str, mapping: Option<&str>) -> Trace {
    let opts = ReadOptions { mapping: mapping.map(|m| CsvMapping::preset(m).unwrap()), ..ReadOptions::default() };
    let t = read_file(&dir.join(rel), &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
    eprint!("{}", t.report.summary(rel));
    t
}

/// Sorted waits in seconds of the jobs that have one.
fn waits(t: &Trace) -> Vec<f64> {
    let mut w: Vec<f64> = t.jobs.iter().filter_map(|j| j.wait()).map(|w| w as f64).collect();
    w.sort_by(f64::total_cmp);
    w
}

/// Σ procs × runtime ÷ (capacity × submit span).
fn offered_load(t: &Trace, capacity: f64) -> f64 {
    let work: f64 = t.jobs.iter().map(|j| f64::from(j.procs.unwrap_or(0)) * j.runtime.unwrap_or(0).max(0) as f64).sum();
    let first = t.jobs.iter().map(|j| j.submit).min().unwrap();
    let last = t.jobs.iter().map(|j| j.submit).max().unwrap();
    work / (capacity * (last - first) as f64)
}

fn close(found: f64, expected: f64, tol: f64, what: &str) {
    assert!((found - expected).abs() <= tol, "{what}: found {found}, SOURCE.md says {expected}");
}

#[test]
fn every_shared_trace_reads_with_the_counts_of_its_source_md() {
    let Some(dir) = common::shared_data("data/traces") else { return };
    let mut checked = Vec::new();

    let kth = read(&dir, "pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz", None);
    assert_eq!(kth.info.format, Some(Format::Swf));
    assert_eq!((kth.jobs.len(), kth.report.skipped.len()), (28_476, 0));
    assert_eq!(kth.info.max_records, Some(28_476));
    assert_eq!(kth.info.max_procs, Some(100));
    assert_eq!(kth.info.unix_start, Some(843_480_031));
    let w = waits(&kth);
    assert_eq!(w.len(), 28_476, "every job has a wait time");
    close(percentile_sorted(&w, 0.5), 300.0, 0.5, "KTH wait p50");
    close(percentile_sorted(&w, 0.9), 36_300.0, 0.5, "KTH wait p90");
    close(w.iter().sum::<f64>() / w.len() as f64, 15_296.0, 1.0, "KTH mean wait");
    close(w.iter().filter(|&&x| x == 0.0).count() as f64 / w.len() as f64, 0.23, 0.005, "KTH zero waits");
    close(offered_load(&kth, 100.0), 0.70, 0.005, "KTH offered load");
    let done = kth.jobs.iter().filter(|j| j.state == JobState::Completed).count();
    let failed = kth.jobs.iter().filter(|j| j.state == JobState::Failed).count();
    assert_eq!((done, failed), (20_530, 7_946));
    checked.push("pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz");

    let lanl = read(&dir, "pwa-lanl-cm5/LANL-CM5-1994-4.1-cln.swf.gz", None);
    assert_eq!((lanl.jobs.len(), lanl.report.skipped.len()), (122_060, 0));
    assert_eq!(waits(&lanl).len(), 122_057);
    assert_eq!(lanl.info.max_procs, Some(1024));
    close(offered_load(&lanl, 1024.0), 0.74, 0.005, "LANL offered load");
    checked.push("pwa-lanl-cm5/LANL-CM5-1994-4.1-cln.swf.gz");

    let nasa = read(&dir, "pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz", None);
    assert_eq!((nasa.jobs.len(), nasa.report.skipped.len()), (18_239, 0));
    assert!(waits(&nasa).is_empty(), "NASA-iPSC has no wait times");
    close(offered_load(&nasa, 128.0), 0.47, 0.005, "NASA load");
    checked.push("pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz");

    let lublin = read(&dir, "lublin-256-model/lublin_256.swf", None);
    assert_eq!((lublin.jobs.len(), lublin.report.skipped.len()), (10_000, 0));
    assert!(waits(&lublin).is_empty(), "the Lublin model has no waits");
    close(offered_load(&lublin, 256.0), 1.06, 0.005, "Lublin offered load");
    checked.push("lublin-256-model/lublin_256.swf");

    let openb = read(&dir, "alibaba-openb-gpu-2023/openb_pod_list_default.csv", Some("alibaba-openb-2023"));
    assert_eq!((openb.jobs.len(), openb.report.skipped.len()), (8_152, 0));
    let w = waits(&openb);
    assert_eq!(w.len(), 7_255, "scheduled pods");
    close(percentile_sorted(&w, 0.5), 2.0, 0.5, "openb wait p50");
    close(percentile_sorted(&w, 0.9), 106.0, 1.0, "openb wait p90");
    assert_eq!(openb.jobs.iter().filter(|j| j.state == JobState::Pending).count(), 897);
    assert_eq!(openb.jobs.iter().filter(|j| j.gpus.is_some_and(|g| g > 0.0)).count(), 7_064);
    checked.push("alibaba-openb-gpu-2023/openb_pod_list_default.csv");

    let dlrm = read(&dir, "alibaba-dlrm-gpu-2025/disaggregated_DLRM_trace.csv", Some("alibaba-dlrm-2025"));
    assert_eq!(dlrm.report.rows, 23_871, "instances");
    assert_eq!(dlrm.jobs.len(), 16_591, "created inside the window");
    assert_eq!(dlrm.report.by_reason(), vec![("no submit time".to_string(), 23_871 - 16_591)]);
    let w = waits(&dlrm);
    assert_eq!(w.len(), 16_591);
    close(percentile_sorted(&w, 0.9), 59.0, 1.0, "DLRM wait p90");
    close(w.iter().filter(|&&x| x == 0.0).count() as f64 / w.len() as f64, 0.66, 0.005, "DLRM zero waits");
    checked.push("alibaba-dlrm-gpu-2025/disaggregated_DLRM_trace.csv");

    // Node lists are not job lists; every other file must have been checked above, and a
    // file added later is at least read without panicking.
    let not_jobs = ["openb_node_list_all_node.csv", "openb_node_list_gpu_node.csv"];
    for entry in walk(&dir) {
        let rel = entry.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/");
        let name = entry.file_name().unwrap().to_string_lossy().to_string();
        if name == "SOURCE.md" || not_jobs.contains(&name.as_str()) || checked.contains(&rel.as_str()) {
            continue;
        }
        eprintln!("note: {rel} has no checks of its own yet; reading it with format detection only");
        let _ = read_file(&entry, &ReadOptions::default());
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out.sort();
    out
}
