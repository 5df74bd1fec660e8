//! Does a log fit the cluster it is said to come from? Checks run by `fit` and
//! `validate --trace` on the jobs they would use, so that a log that cannot describe the
//! stated cluster is named as such instead of giving silent numbers: a replay at offered
//! load 2.97 (sim/rec 69,301), or a fitted arrival rate diluted twenty-fold by one job
//! submitted years before the rest.

use super::convert::Converted;
use super::record::Trace;

/// A submission gap longer than this share of the log's span is reported.
pub const GAP_SHARE: f64 = 0.1;

/// Why a log's numbers may not describe the stated cluster (printed as
/// `burstsim: warning: …`; the command still runs).
#[derive(Clone, Debug, PartialEq)]
pub enum LogWarning {
    /// The jobs ask for more GPU time than the cluster has over the log's span.
    Overloaded {
        /// Offered load: GPU-seconds of the jobs over (cluster GPUs × span).
        load: f64,
        /// Cluster GPUs (or processors) the load is computed on.
        gpus: u32,
        /// Whether sizes count GPUs (else processors).
        counted_gpus: bool,
    },
    /// No job was submitted for a long stretch of the log.
    SubmitGap {
        /// Length of the gap in days.
        gap_days: f64,
        /// The log's span (first to last submission) in days.
        span_days: f64,
        /// Line of the first job after the gap.
        line_after: usize,
        /// Jobs submitted before the gap.
        before: usize,
    },
}

impl std::fmt::Display for LogWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogWarning::Overloaded { load, gpus, counted_gpus } => write!(
                f,
                "the log's offered load on the stated {gpus} {} is {load:.2}, above 1: its jobs need more {} time than \
                 the cluster has, so the queue grows without bound and waits depend on the log's length; check the \
                 cluster size (--gpus) and the units (--units, --procs-per-gpu)",
                if *counted_gpus { "GPUs" } else { "processors" },
                if *counted_gpus { "GPU" } else { "processor" }
            ),
            LogWarning::SubmitGap { gap_days, span_days, line_after, before } => write!(
                f,
                "no job was submitted for {gap_days:.1} days (before the job on line {line_after}, after {before} \
                 job{}), more than a tenth of the log's {span_days:.1}-day span: rates and the offered load average \
                 over that gap; if it is not real, cut the log there",
                if *before == 1 { "" } else { "s" }
            ),
        }
    }
}

/// The warnings for the jobs `conv` (converted from `trace`) on `gpus` GPUs.
pub fn check(trace: &Trace, conv: &Converted, gpus: u32) -> Vec<LogWarning> {
    let mut out = Vec::new();
    let (Some(first), Some(last)) = (conv.jobs.first(), conv.jobs.last()) else { return out };
    let span = (last.submit - first.submit) as f64;
    if span <= 0.0 || gpus == 0 {
        return out;
    }
    let work: f64 = conv.jobs.iter().map(|j| f64::from(j.gpus) * j.runtime as f64).sum();
    let load = work / (f64::from(gpus) * span);
    if load > 1.0 {
        out.push(LogWarning::Overloaded { load, gpus, counted_gpus: conv.counted_gpus });
    }
    let widest = conv.jobs.windows(2).enumerate().max_by_key(|(_, w)| w[1].submit - w[0].submit);
    if let Some((i, w)) = widest {
        let gap = (w[1].submit - w[0].submit) as f64;
        if gap > GAP_SHARE * span {
            out.push(LogWarning::SubmitGap {
                gap_days: gap / 86_400.0,
                span_days: span / 86_400.0,
                line_after: trace.jobs[conv.source[i + 1]].line,
                before: i + 1,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::convert::{Conversion, to_jobs};

    /// An SWF log: (submit s, run time s, processors) per job.
    fn swf(jobs: &[(i64, i64, u32)]) -> Trace {
        let mut text = String::from("; MaxProcs: 64\n");
        for (k, (submit, run, procs)) in jobs.iter().enumerate() {
            text.push_str(&format!("{} {submit} 0 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 -1 -1 -1 -1 -1\n", k + 1));
        }
        crate::trace::swf::read(text.as_bytes(), "t.swf", false).unwrap()
    }

    fn warnings(t: &Trace, gpus: u32) -> Vec<LogWarning> {
        check(t, &to_jobs(t, &Conversion::new(gpus)), gpus)
    }

    #[test]
    fn an_even_log_within_capacity_gets_no_warning() {
        let jobs: Vec<_> = (0..100).map(|k| (k * 3600, 1800, 16)).collect();
        assert_eq!(warnings(&swf(&jobs), 64), vec![]);
    }

    #[test]
    fn a_load_above_one_on_the_stated_cluster_is_named() {
        let jobs: Vec<_> = (0..100).map(|k| (k * 3600, 3 * 3600, 32)).collect(); // 1.5 on 64
        let w = warnings(&swf(&jobs), 64);
        assert!(
            matches!(w[..], [LogWarning::Overloaded { load, gpus: 64, .. }] if (load - 1.515).abs() < 0.01),
            "{w:?}"
        );
        assert!(w[0].to_string().contains("offered load on the stated 64 processors is 1.52"), "{}", w[0]);
        assert_eq!(warnings(&swf(&jobs), 128), vec![], "0.76 on twice the cluster");
    }

    #[test]
    fn one_early_job_is_named_as_a_gap() {
        let mut jobs = vec![(0, 600, 1)];
        jobs.extend((0..100).map(|k| (86_400 * 900 + k * 3600, 600, 1)));
        let w = warnings(&swf(&jobs), 64);
        assert!(matches!(w[..], [LogWarning::SubmitGap { before: 1, line_after: 3, .. }]), "{w:?}");
        assert!(w[0].to_string().contains("no job was submitted for 900.0 days"), "{}", w[0]);
        jobs.remove(0);
        assert_eq!(warnings(&swf(&jobs), 64), vec![], "without the early job the log is even");
    }
}
