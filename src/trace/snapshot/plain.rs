//! The plain text formats, for sites older than Slurm 22.05:
//! `squeue -h -t PD,R,CG -o '%i|%T|%P|%a|%u|%Q|%V|%S|%l|%M|%D|%b'` ([`super::QUEUE_FORMAT`])
//! and `sinfo -h -N -o '%N|%T|%c|%G|%P'` ([`super::NODE_FORMAT`]).
//!
//! - Lines starting with `#` are comments; `# taken_at T` says when the snapshot was
//!   taken (Unix seconds, or a local `YYYY-MM-DDTHH:MM:SS` when the times are local).
//! - Times (`%V`, `%S`) are Unix seconds (`SLURM_TIME_FORMAT=%s`) or calendar
//!   timestamps; `N/A`, `Unknown`, `None` mean none.
//! - Durations (`%l`, `%M`) are Slurm's `[days-]hours:minutes:seconds`, `minutes:seconds`
//!   or minutes; `UNLIMITED`, `NOT_SET`, `Partition_Limit` mean no limit.
//! - `%b` is the GRES per node (`gres:gpu:4`, `gres/gpu:4`, `gpu:a100:2`, `N/A`); the
//!   job's GPUs are that times `%D` nodes.
//! - `sinfo -N` repeats a node once per partition; the lines are merged by name.
//! - Counts (`%D`, `%c`) must fit Slurm's 32-bit fields and times must be before the year
//!   10000: a larger number is refused, never wrapped.

use super::super::text::{clip, slurm_duration, timestamp};
use super::{
    LATEST_TIME, PendingJob, Place, Queue, Running, RunningJob, SinfoNode, SnapshotError, gres, place, unlimited,
};

fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}

/// One text line being read, for messages.
struct Line<'a> {
    file: &'a str,
    n: usize,
}

impl Line<'_> {
    fn err(&self, field: &str, text: &str, allowed: &str) -> SnapshotError {
        SnapshotError::Field {
            file: self.file.to_string(),
            at: format!("line {}", self.n),
            field: field.to_string(),
            text: clip(text.trim()),
            allowed: allowed.to_string(),
        }
    }

    fn whole(&self, field: &str, text: &str) -> Result<u64, SnapshotError> {
        text.trim().parse::<u64>().map_err(|_| self.err(field, text, "a whole number ≥ 0"))
    }

    /// A count that fits Slurm's 32-bit fields.
    fn count(&self, field: &str, text: &str) -> Result<u32, SnapshotError> {
        text.trim().parse::<u32>().map_err(|_| self.err(field, text, "a whole number from 0 to 4294967295"))
    }

    fn time(&self, field: &str, text: &str) -> Result<Option<i64>, SnapshotError> {
        let t = text.trim();
        if missing(t) {
            return Ok(None);
        }
        if let Ok(secs) = t.parse::<i64>() {
            if secs > LATEST_TIME {
                return Err(self.err(field, t, "Unix seconds up to 253402300799 (the end of 9999)"));
            }
            return Ok((secs > 0).then_some(secs));
        }
        timestamp(field, t)
            .map(Some)
            .map_err(|_| self.err(field, t, "Unix seconds (SLURM_TIME_FORMAT=%s), YYYY-MM-DDTHH:MM:SS, or N/A"))
    }

    fn duration(&self, field: &str, text: &str) -> Result<Option<i64>, SnapshotError> {
        let t = text.trim();
        if unlimited(t) {
            return Ok(None);
        }
        slurm_duration(field, t)
            .map(Some)
            .map_err(|_| self.err(field, t, "[days-]hours:minutes:seconds, minutes:seconds, minutes, or UNLIMITED"))
    }

    fn gpus(&self, field: &str, text: &str) -> Result<Option<u32>, SnapshotError> {
        gres::gpus(text).map_err(|item| self.err(field, &item, gres::ALLOWED))
    }
}

fn missing(t: &str) -> bool {
    matches!(t.to_ascii_lowercase().as_str(), "" | "n/a" | "unknown" | "none" | "(null)")
}

fn command_queue() -> String {
    format!("SLURM_TIME_FORMAT=%s squeue -h -t PD,R,CG -o '{}'", super::QUEUE_FORMAT)
}

fn command_nodes() -> String {
    format!("sinfo -h -N -o '{}'", super::NODE_FORMAT)
}

/// Reads the squeue text.
pub(super) fn queue(text: &str, file: &str) -> Result<Queue, SnapshotError> {
    let mut q = Queue::default();
    for (n, raw) in lines(text) {
        let line = Line { file, n };
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(comment) = l.strip_prefix('#') {
            if let Some(t) = comment.trim().strip_prefix("taken_at") {
                q.taken_at = Some(
                    line.time("taken_at", t)?
                        .ok_or_else(|| line.err("taken_at", t, "Unix seconds (`date +%s`) or YYYY-MM-DDTHH:MM:SS"))?,
                );
            }
            continue;
        }
        let f: Vec<&str> = raw.split('|').collect();
        if f.len() != 12 {
            return Err(SnapshotError::FieldCount {
                file: file.to_string(),
                line: n,
                found: f.len(),
                expected: 12,
                command: command_queue(),
            });
        }
        let p = place(f[1]);
        if p == Place::Other {
            if f[1].trim().is_empty() {
                return Err(line.err("%T state", f[1], "a job state such as RUNNING or PENDING"));
            }
            q.other_states += 1;
            continue;
        }
        let nodes = line.count("%D node count", f[10])?.max(1);
        let gpus = line
            .gpus("%b GRES per node", f[11])?
            .unwrap_or(0)
            .checked_mul(nodes)
            .ok_or_else(|| line.err("%b GRES per node", f[11], "GPUs per node × %D nodes at most 4294967295"))?;
        let limit = line.duration("%l time limit", f[8])?;
        let id = f[0].trim().to_string();
        let (partition, account, user) = (f[2].trim().to_string(), f[3].trim().to_string(), f[4].trim().to_string());
        q.once(file, &id, &line_at(n))?;
        if p == Place::Running {
            let elapsed = line.duration("%M time used", f[9])?;
            let job = RunningJob { id, partition, account, user, gpus, nodes, elapsed: 0, limit, hosts: Vec::new() };
            let (start, at) = (line.time("%S start time", f[7])?, line_at(n));
            q.running.push(Running { job, start, elapsed, at, gpu_field: "%b GRES per node × %D nodes" });
        } else {
            let submit = line
                .time("%V submit time", f[6])?
                .ok_or_else(|| line.err("%V submit time", f[6], "the submission time (a pending job has one)"))?;
            q.pending.push(PendingJob {
                id,
                partition,
                account,
                user,
                gpus,
                nodes,
                limit,
                priority: line.whole("%Q priority", f[5])?,
                submit,
                estimated_start: line.time("%S start time", f[7])?,
            });
            q.pending_at.push(line_at(n));
        }
    }
    Ok(q)
}

fn line_at(n: usize) -> String {
    format!("line {n}")
}

/// Reads the sinfo text.
pub(super) fn nodes(text: &str, file: &str) -> Result<Vec<SinfoNode>, SnapshotError> {
    let mut out: Vec<SinfoNode> = Vec::new();
    for (n, raw) in lines(text) {
        let line = Line { file, n };
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = raw.split('|').collect();
        if f.len() != 5 {
            return Err(SnapshotError::FieldCount {
                file: file.to_string(),
                line: n,
                found: f.len(),
                expected: 5,
                command: command_nodes(),
            });
        }
        let name = f[0].trim().to_string();
        if name.is_empty() {
            return Err(line.err("%N node name", f[0], "the node's name"));
        }
        let cpus = line.count("%c CPUs", f[2])?;
        let gpus = line.gpus("%G GRES", f[3])?.unwrap_or(0);
        let partition = f[4].trim().trim_end_matches('*').to_string();
        match out.iter_mut().find(|o| o.name == name) {
            Some(o) => {
                if !partition.is_empty() && !o.partitions.contains(&partition) {
                    o.partitions.push(partition);
                }
            }
            None => out.push(SinfoNode {
                name,
                state: f[1].trim().to_ascii_lowercase(),
                cpus,
                gpus,
                partitions: if partition.is_empty() { Vec::new() } else { vec![partition] },
            }),
        }
    }
    if out.is_empty() {
        return Err(SnapshotError::Content {
            file: file.to_string(),
            message: format!("no nodes: take the file with `{}`", command_nodes()),
        });
    }
    Ok(out)
}
