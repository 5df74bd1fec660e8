//! `squeue --json` and `sinfo --json` as Slurm 22.05 and later write them.
//!
//! Leniencies for the versions in between:
//! - a number is plain (`60`, 22.05) or `{"set": true, "infinite": false, "number": 60}`
//!   (23.02 and later); `set: false` is missing and `infinite: true` unlimited;
//! - a state is a word (`"RUNNING"`, 22.05) or a list of words (`["RUNNING"]`);
//! - `sinfo --json` lists `nodes` (22.05 and 23.02, each with `name`, `state`, `cpus`,
//!   `gres`, `partitions`) or, from 23.11, `sinfo` groups (`nodes.nodes`, `node.state`,
//!   `cpus.maximum`, `gres.total`, `partition.name`);
//! - 22.05 writes a node's base state alone in `state` (`"idle"`) and its flags in
//!   `state_flags` (`["DRAIN"]`, `["NOT_RESPONDING"]`, `["MAINTENANCE"]`: Slurm's
//!   `node_state_flag_string_single`); later versions put them all in the `state` list.
//!   Both are joined into one state (`idle+drain`).
//!
//! Counts (`node_count`, `cpus`) must fit Slurm's 32-bit fields and times must be before
//! the year 10000: a larger number is refused, never wrapped. A `time_limit` of
//! 4294967294 or 4294967295 (Slurm's `NO_VAL` and `INFINITE`) means no limit.
//!
//! Read from each job: `job_id`, `job_state`, `partition`, `account`, `user_name`,
//! `priority`, `submit_time`, `start_time` (Slurm's estimate for a pending job; 0 is
//! none), `time_limit` (minutes), `node_count`, and GPUs from `tres_alloc_str` (running),
//! `tres_req_str`, else `tres_per_node` × nodes or `tres_per_job`. The snapshot's time is
//! `last_update` when the file has it.

use serde_json::Value;

use super::{
    LATEST_TIME, PendingJob, Place, Queue, Running, RunningJob, SinfoNode, SnapshotError, gres, hostlist, place,
};

/// Slurm's 32-bit `NO_VAL` and `INFINITE`, which 22.05 may write as plain numbers.
const NO_VAL: u64 = 0xFFFF_FFFE;

/// What a count field allows, for messages.
const COUNT: &str = "a whole number from 0 to 4294967295";

/// A JSON number as Slurm writes it.
enum Num {
    Value(f64),
    Infinite,
    Unset,
}

fn parse(text: &str, file: &str) -> Result<Value, SnapshotError> {
    serde_json::from_str(text).map_err(|e| SnapshotError::Json {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: if e.is_eof() {
            format!("the JSON ends early ({e}): the file is truncated; take it again")
        } else {
            format!("not valid JSON ({e})")
        },
    })
}

/// One object of a file and the path to it, for reading fields with messages.
struct At<'a> {
    file: &'a str,
    path: String,
    v: &'a Value,
}

impl At<'_> {
    fn err(&self, field: &str, v: &Value, allowed: &str) -> SnapshotError {
        let text = super::super::text::clip(&v.to_string());
        SnapshotError::Field {
            file: self.file.to_string(),
            at: self.path.clone(),
            field: field.to_string(),
            text,
            allowed: allowed.to_string(),
        }
    }

    fn num(&self, field: &str) -> Result<Num, SnapshotError> {
        const ALLOWED: &str =
            "a number, or {\"set\": true|false, \"infinite\": true|false, \"number\": N} (Slurm 23.02 and later)";
        let Some(v) = self.v.get(field) else { return Ok(Num::Unset) };
        match v {
            Value::Null => Ok(Num::Unset),
            Value::Number(n) => n.as_f64().map(Num::Value).ok_or_else(|| self.err(field, v, ALLOWED)),
            Value::Object(o) => {
                if o.get("infinite").and_then(Value::as_bool) == Some(true) {
                    return Ok(Num::Infinite);
                }
                if o.get("set").and_then(Value::as_bool) == Some(false) {
                    return Ok(Num::Unset);
                }
                match o.get("number") {
                    Some(Value::Number(n)) => n.as_f64().map(Num::Value).ok_or_else(|| self.err(field, v, ALLOWED)),
                    _ => Err(self.err(field, v, ALLOWED)),
                }
            }
            _ => Err(self.err(field, v, ALLOWED)),
        }
    }

    /// A whole non-negative number, `None` when unset or infinite.
    fn whole(&self, field: &str, allowed: &str) -> Result<Option<u64>, SnapshotError> {
        match self.num(field)? {
            Num::Value(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Ok(Some(x as u64)),
            Num::Value(_) => Err(self.err(field, &self.v[field], allowed)),
            Num::Infinite | Num::Unset => Ok(None),
        }
    }

    /// A count that fits Slurm's 32-bit fields, `None` when unset or infinite.
    fn count(&self, field: &str) -> Result<Option<u32>, SnapshotError> {
        match self.whole(field, COUNT)? {
            Some(n) => u32::try_from(n).map(Some).map_err(|_| self.err(field, &self.v[field], COUNT)),
            None => Ok(None),
        }
    }

    /// Unix seconds; 0 (Slurm's "not set") is `None`.
    fn time(&self, field: &str) -> Result<Option<i64>, SnapshotError> {
        const ALLOWED: &str = "Unix seconds (a whole number from 0 to 253402300799, the end of 9999)";
        match self.whole(field, ALLOWED)? {
            Some(t) if t > LATEST_TIME as u64 => Err(self.err(field, &self.v[field], ALLOWED)),
            t => Ok(t.filter(|&t| t > 0).map(|t| t as i64)),
        }
    }

    fn text(&self, field: &str) -> Result<Option<String>, SnapshotError> {
        match self.v.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(v) => Err(self.err(field, v, "a string")),
        }
    }

    /// A word or the first word of a list (`"RUNNING"`, `["PENDING", "REQUEUED"]`).
    fn words(&self, field: &str) -> Result<Vec<String>, SnapshotError> {
        match self.v.get(field) {
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                Ok(a.iter().filter_map(Value::as_str).map(String::from).collect())
            }
            Some(v) => Err(self.err(field, v, "a state word or a list of state words")),
            None => Err(self.err(field, &Value::Null, "a state word or a list of state words (the field is missing)")),
        }
    }

    fn gpus(&self, field: &str) -> Result<Option<u32>, SnapshotError> {
        match self.text(field)? {
            Some(t) => gres::gpus(&t).map_err(|item| self.err(field, &Value::String(item), gres::ALLOWED)),
            None => Ok(None),
        }
    }
}

/// Reads `squeue --json`.
pub(super) fn queue(text: &str, file: &str) -> Result<Queue, SnapshotError> {
    let doc = parse(text, file)?;
    let Some(jobs) = doc.get("jobs").and_then(Value::as_array) else {
        return Err(SnapshotError::Content {
            file: file.to_string(),
            message: "this JSON has no `jobs` list: is it `squeue --json` (and not sinfo's)?".into(),
        });
    };
    let top = At { file, path: "last_update".into(), v: &doc };
    let mut q = Queue { taken_at: top.time("last_update")?, ..Queue::default() };
    for (i, v) in jobs.iter().enumerate() {
        let id = v.get("job_id").map(|j| j.to_string()).unwrap_or_default();
        let at = At { file, path: format!("jobs[{i}] (job {id})"), v };
        let state = at.words("job_state")?;
        let p = state.iter().map(|s| place(s)).find(|p| *p != Place::Other).unwrap_or(Place::Other);
        if p == Place::Other {
            q.other_states += 1;
            continue;
        }
        let nodes = at.count("node_count")?.unwrap_or(1).max(1);
        let limit = match at.count("time_limit")? {
            Some(m) if u64::from(m) >= NO_VAL => None,
            m => m.map(|m| i64::from(m) * 60),
        };
        let tres = if p == Place::Running {
            at.gpus("tres_alloc_str")?.or(at.gpus("tres_req_str")?)
        } else {
            at.gpus("tres_req_str")?
        };
        let (gpus, gpu_field) = match tres {
            Some(g) => (g, if p == Place::Running { "tres_alloc_str" } else { "tres_req_str" }),
            None => match at.gpus("tres_per_node")? {
                Some(g) => {
                    let all = g.checked_mul(nodes).ok_or_else(|| {
                        at.err("tres_per_node", &v["tres_per_node"], "GPUs per node × node_count at most 4294967295")
                    })?;
                    (all, "tres_per_node × node_count")
                }
                None => (at.gpus("tres_per_job")?.unwrap_or(0), "tres_per_job"),
            },
        };
        let s = |f: &str| at.text(f).map(Option::unwrap_or_default);
        let (partition, account, user) = (s("partition")?, s("account")?, s("user_name")?);
        let id = at.text("job_id")?.unwrap_or_default();
        q.once(file, &id, &at.path)?;
        if p == Place::Running {
            let hosts = match at.text("nodes")? {
                Some(list) => hostlist::expand(&list, nodes as usize).ok_or_else(|| {
                    at.err("nodes", &v["nodes"], "a Slurm node list such as `g[1-4],h7`, of at most node_count nodes")
                })?,
                None => Vec::new(),
            };
            let job = RunningJob { id, partition, account, user, gpus, nodes, elapsed: 0, limit, hosts };
            q.running.push(Running {
                job,
                start: at.time("start_time")?,
                elapsed: None,
                at: at.path.clone(),
                gpu_field,
            });
        } else {
            let submit = at.time("submit_time")?.ok_or_else(|| {
                at.err("submit_time", v.get("submit_time").unwrap_or(&Value::Null), "Unix seconds of the submission")
            })?;
            q.pending.push(PendingJob {
                id,
                partition,
                account,
                user,
                gpus,
                nodes,
                limit,
                priority: at.whole("priority", "a whole number ≥ 0")?.unwrap_or(0),
                submit,
                estimated_start: at.time("start_time")?,
            });
            q.pending_at.push(at.path.clone());
        }
    }
    Ok(q)
}

/// Reads `sinfo --json` (either layout).
pub(super) fn nodes(text: &str, file: &str) -> Result<Vec<SinfoNode>, SnapshotError> {
    let doc = parse(text, file)?;
    let mut out: Vec<SinfoNode> = Vec::new();
    let mut push = |n: SinfoNode| match out.iter_mut().find(|o| o.name == n.name) {
        Some(o) => {
            for p in n.partitions {
                if !o.partitions.contains(&p) {
                    o.partitions.push(p);
                }
            }
        }
        None => out.push(n),
    };
    if let Some(nodes) = doc.get("nodes").and_then(Value::as_array) {
        for (i, v) in nodes.iter().enumerate() {
            let name = v.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let at = At { file, path: format!("nodes[{i}] (node {name})"), v };
            if name.is_empty() {
                return Err(at.err("name", v.get("name").unwrap_or(&Value::Null), "the node's name"));
            }
            let partitions = match v.get("partitions") {
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(clean_partition).collect(),
                Some(Value::String(s)) => s.split(',').map(clean_partition).collect(),
                _ => Vec::new(),
            };
            let mut state = at.words("state")?;
            if v.get("state_flags").is_some_and(|f| !f.is_null()) {
                state.extend(at.words("state_flags")?);
            }
            push(SinfoNode {
                name,
                state: state_word(&state),
                cpus: at.count("cpus")?.unwrap_or(0),
                gpus: at.gpus("gres")?.unwrap_or(0),
                partitions,
            });
        }
    } else if let Some(groups) = doc.get("sinfo").and_then(Value::as_array) {
        for (i, v) in groups.iter().enumerate() {
            let at = At { file, path: format!("sinfo[{i}]"), v };
            let names: Vec<String> = v
                .pointer("/nodes/nodes")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
                .unwrap_or_default();
            let sub = |key: &str| At { file, path: format!("sinfo[{i}].{key}"), v: v.get(key).unwrap_or(&Value::Null) };
            let state = state_word(&sub("node").words("state")?);
            let cpus = sub("cpus").count("maximum")?.unwrap_or(0);
            let gpus = sub("gres").gpus("total")?.unwrap_or(0);
            let partition = v.pointer("/partition/name").and_then(Value::as_str).map(clean_partition);
            if names.is_empty() {
                return Err(at.err("nodes.nodes", v.get("nodes").unwrap_or(&Value::Null), "a list of node names"));
            }
            for name in names {
                push(SinfoNode {
                    name,
                    state: state.clone(),
                    cpus,
                    gpus,
                    partitions: partition.iter().cloned().collect(),
                });
            }
        }
    } else {
        return Err(SnapshotError::Content {
            file: file.to_string(),
            message: "this JSON has neither a `nodes` nor a `sinfo` list: is it `sinfo --json` (and not squeue's)?"
                .into(),
        });
    }
    Ok(out)
}

fn clean_partition(p: &str) -> String {
    p.trim().trim_end_matches('*').to_string()
}

fn state_word(words: &[String]) -> String {
    words.iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("+")
}
