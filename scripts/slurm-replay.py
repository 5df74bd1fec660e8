#!/usr/bin/env python3
"""Replay a job list on the real Slurm of scripts/slurm-cluster.sh, in compressed time.

    scripts/slurm-replay.py run LIST.csv --out RESULTS.csv [--reasons REASONS.csv]
    scripts/slurm-replay.py canonical > LIST.csv          # the fragmentation/backfill case
    scripts/slurm-replay.py random --jobs 30 --seed 13 > LIST.csv
    scripts/slurm-replay.py random --mix frag --jobs 40 --seed 5 > LIST.csv   # fragmentation-heavy
    scripts/slurm-replay.py compare A.csv B.csv [--tolerance 3]   # two runs, start by start
    scripts/slurm-replay.py agreement --runs R1.csv R2.csv … --replays J1.csv J2.csv …   # a list's runs
    scripts/slurm-replay.py digest RESULTS.csv --log slurmctld.log --out DIGEST.csv

LIST.csv has a header and the columns

    job,submit_s,cpus,nodes,runtime_s,timelimit_min,timelimit_s,account,partition

(`nodes`, `timelimit_s`, `account` and `partition` are optional; `timelimit_s` is
`60 × timelimit_min`, there so that burstsim's CSV reader, which has one duration unit,
can read the list with tests/fixtures/slurm/joblist.mapping.toml). Times are compressed:
runtimes are seconds, limits whole minutes, as Slurm's --time has no finer unit.

`run` submits each job at its offset after the first submission with

    sbatch --wrap "sleep RUNTIME" --time=LIMIT --nodes=1 --ntasks=1 --cpus-per-task=CPUS
    (or, for nodes > 1: --nodes=N --ntasks-per-node=1 --cpus-per-task=CPUS/N)

polls `squeue -o '%i %T %r %S'` every half second while jobs are queued (REASONS.csv gets a
row `t_s,job,slurm_id,state,reason,expected_start` whenever a job's state, pending reason or
expected start changes; `expected_start` is what `squeue --start` shows: the start in
Slurm's current backfill plan, on the same clock as RESULTS.csv), waits until every job has a record
in the jobcomp/filetxt file (there is no slurmdbd, so sacct is not available), and writes

    job,submit,start,end,wait_s,slurm_id,cpus,nodes,runtime_s,timelimit_s,account,partition,node_list,state

with submit/start/end in whole seconds (Slurm's resolution) after the first job's submit.
tests/fixtures/slurm/results.mapping.toml reads RESULTS.csv as a recorded log for
`burstsim validate --trace`.

`run --digest DIGEST.csv` (or `digest` afterwards, on a kept slurmctld.log) writes what
slurmctld's log says about the run's jobs, in order, one row each, on RESULTS.csv's clock
(seconds after the first submission, to the millisecond):

    t_s,event,job,start_s,nodes

with `event` one of `submit`, `start` (the main scheduler: `sched: Allocate`), `bf_start`
(backfill: `_start_job: Started`), `end` (`_job_complete: ... done`), `pass` (a backfill
pass begins; no job) and `plan` (the pass's `_dump_job_sched` line, DebugFlags=Backfill:
the job's planned start `start_s`, whole seconds, on `nodes`; its `t_s` is the pass's).
The first row, `origin`, has the Unix time of the clock's 0 in `start_s` (Slurm aligns its
will-run windows on multiples of 30 s of Unix time).
The digest is what `tests/suite/planned_starts.rs` rebuilds each pass's state from.

Python 3.11 standard library only. Needs SLURM_CONF (`eval "$(scripts/slurm-cluster.sh env)"`),
or --conf.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONF = ROOT / "target" / "slurm-test" / "etc" / "slurm.conf"
LIST_COLUMNS = ["job", "submit_s", "cpus", "nodes", "runtime_s", "timelimit_min", "timelimit_s", "account", "partition"]
RESULT_COLUMNS = [
    "job", "submit", "start", "end", "wait_s", "slurm_id", "cpus", "nodes", "runtime_s",
    "timelimit_s", "account", "partition", "node_list", "state",
]


def log(msg: str) -> None:
    print(f"slurm-replay: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- job lists

def write_list(rows: list[dict], out) -> None:
    w = csv.DictWriter(out, fieldnames=LIST_COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        r = dict(r)
        r.setdefault("nodes", 1)
        r.setdefault("account", "")
        r.setdefault("partition", "")
        r["timelimit_s"] = 60 * int(r["timelimit_min"])
        w.writerow(r)


def canonical_rows() -> list[dict]:
    """4 nodes x 8 CPUs, 6 busy on each; an 8-CPU job must wait, a 2-CPU job backfills."""
    rows = [
        dict(job=f"fill{k}", submit_s=0, cpus=6, runtime_s=12, timelimit_min=2, account="others")
        for k in range(1, 5)
    ]
    rows.append(dict(job="big8", submit_s=2, cpus=8, runtime_s=5, timelimit_min=2, account="group"))
    rows.append(dict(job="small2", submit_s=4, cpus=2, runtime_s=5, timelimit_min=1, account="others"))
    return rows


def random_rows(jobs: int, seed: int) -> list[dict]:
    """A busy small list: sizes 1-8 CPUs on one node and a few 2-node jobs of 16 CPUs."""
    rng = random.Random(seed)
    rows, t = [], 0.0
    for i in range(jobs):
        cpus = rng.choice([1, 2, 2, 4, 4, 6, 8, 8, 16])
        runtime = rng.randint(3, 15)
        # Users over-ask: a limit of 1 or 2 minutes, never below the runtime.
        limit = max(1, rng.choice([1, 1, 2]))
        rows.append(dict(
            job=f"r{i + 1:02d}", submit_s=int(t), cpus=cpus, nodes=2 if cpus > 8 else 1,
            runtime_s=runtime, timelimit_min=limit, account=rng.choice(["group", "others"]),
        ))
        t += rng.expovariate(1 / 1.5)
    return rows


def frag_rows(jobs: int, seed: int) -> list[dict]:
    """A fragmentation-heavy list: most jobs take 3, 5, 6 or 7 of a node's 8 CPUs, leaving
    holes that only small jobs fit, between jobs that need a whole node (8) or two (16)."""
    rng = random.Random(seed)
    rows, t = [], 0.0
    for i in range(jobs):
        cpus = rng.choice([3, 5, 5, 6, 6, 7, 7, 8, 8, 16, 1, 2])
        runtime = rng.randint(4, 20)
        limit = rng.choice([1, 1, 2])
        rows.append(dict(
            job=f"f{i + 1:02d}", submit_s=int(t), cpus=cpus, nodes=2 if cpus > 8 else 1,
            runtime_s=runtime, timelimit_min=limit, account=rng.choice(["group", "others"]),
        ))
        t += rng.expovariate(1 / 1.5)
    return rows


def read_list(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"job", "submit_s", "cpus", "runtime_s", "timelimit_min"}
    if not rows:
        sys.exit(f"slurm-replay: {path}: no jobs")
    missing = need - set(rows[0])
    if missing:
        sys.exit(f"slurm-replay: {path}: missing columns {sorted(missing)}")
    out = []
    for r in rows:
        j = dict(
            job=r["job"], submit_s=float(r["submit_s"]), cpus=int(r["cpus"]),
            nodes=int(r.get("nodes") or 1), runtime_s=int(r["runtime_s"]),
            timelimit_min=int(r["timelimit_min"]), account=r.get("account") or "",
            partition=r.get("partition") or "",
        )
        if j["cpus"] % j["nodes"]:
            sys.exit(f"slurm-replay: job {j['job']}: {j['cpus']} CPUs do not split evenly over {j['nodes']} nodes")
        if j["runtime_s"] >= 60 * j["timelimit_min"]:
            log(f"warning: job {j['job']} runs {j['runtime_s']} s, at or over its limit of {j['timelimit_min']} min")
        out.append(j)
    out.sort(key=lambda j: j["submit_s"])  # stable: ties keep list order
    return out


# ---------------------------------------------------------------- Slurm

def slurm(args: list[str], env: dict) -> str:
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def config_value(key: str, env: dict) -> str:
    for line in slurm(["scontrol", "show", "config"], env).splitlines():
        k, _, v = line.partition("=")
        if k.strip() == key:
            return v.strip()
    raise RuntimeError(f"scontrol show config has no {key}")


def sbatch_args(j: dict) -> list[str]:
    a = ["sbatch", "--parsable", "--output=/dev/null", f"--job-name={j['job']}", f"--time={j['timelimit_min']}"]
    if j["nodes"] == 1:
        a += ["--nodes=1", "--ntasks=1", f"--cpus-per-task={j['cpus']}"]
    else:
        a += [f"--nodes={j['nodes']}", "--ntasks-per-node=1", f"--cpus-per-task={j['cpus'] // j['nodes']}"]
    if j["account"]:
        a.append(f"--account={j['account']}")
    if j["partition"]:
        a.append(f"--partition={j['partition']}")
    return a + ["--wrap", f"sleep {j['runtime_s']}"]


def parse_jobcomp(text: str) -> dict[str, dict]:
    """jobcomp/filetxt lines: space-separated KEY=VALUE (values have no spaces here)."""
    recs = {}
    for line in text.splitlines():
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "JobId" in fields:
            recs[fields["JobId"]] = fields
    return recs


def epoch(ts: str) -> int:
    # Slurm writes local time without a zone, to the second.
    return int(time.mktime(datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S").timetuple()))


class ReasonPoller(threading.Thread):
    """Logs (time, job, state, reason, expected start) whenever squeue shows a change."""

    def __init__(self, env: dict, t0: float, names: dict[str, str]):
        super().__init__(daemon=True)
        self.env, self.t0, self.names = env, t0, names
        self.rows: list[tuple] = []
        self.last: dict[str, tuple] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                out = slurm(["squeue", "-h", "-o", "%i|%T|%r|%S"], self.env)
            except RuntimeError:
                out = ""
            t = time.time() - self.t0
            for line in out.splitlines():
                parts = line.split("|")
                if len(parts) < 4 or parts[0] not in self.names:
                    continue
                sid, state, reason, expected = parts[:4]
                # The expected start of a running job is its real start: not a forecast.
                expected = epoch(expected) if state == "PENDING" and expected[:1].isdigit() else None
                if self.last.get(sid) != (state, reason, expected):
                    self.last[sid] = (state, reason, expected)
                    self.rows.append((f"{t:.1f}", self.names[sid], sid, state, reason, expected))
            self.stop.wait(0.5)


def decay_thread_start(env: dict) -> float:
    """When slurmctld's priority decay thread started (epoch seconds, to the millisecond).

    priority/multifactor recomputes usage and priorities at that moment and every
    PriorityCalcPeriod after it (its timer adds the period to the start, so the grid
    does not drift). The thread logs `_read_last_decay_ran` as it starts.
    """
    log_file = Path(config_value("SlurmctldLogFile", env))
    start = None
    for line in log_file.read_text(errors="replace").splitlines():
        if "_read_last_decay_ran" in line and line.startswith("["):
            stamp = line[1:line.index("]")]
            start = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").timestamp()
    if start is None:
        raise RuntimeError(f"{log_file}: no '_read_last_decay_ran' line (is PriorityType=priority/multifactor?)")
    return start


def calc_period_s(env: dict) -> int:
    """PriorityCalcPeriod in seconds (scontrol shows it as HH:MM:SS)."""
    v = config_value("PriorityCalcPeriod", env)
    h, m, s = (int(x) for x in v.split(":"))
    return 3600 * h + 60 * m + s


def wait_for_calc_phase(phase: float, env: dict) -> None:
    """Sleeps until `phase` seconds after one of Slurm's priority recalculations, so that
    every run of a list sees them at the same offsets from its first submission: the
    first at PriorityCalcPeriod - phase, then every period."""
    start, period = decay_thread_start(env), calc_period_s(env)
    if not 0 <= phase < period:
        raise RuntimeError(f"--calc-phase {phase} is not allowed; give 0 to {period} s (PriorityCalcPeriod)")
    now = time.time()
    k = (now - start - phase) // period + 1
    target = start + k * period + phase
    log(f"priority recalculations every {period} s from {datetime.fromtimestamp(start).isoformat()}; "
        f"first submission {target - now:.1f} s from now, {phase} s after one, so the next comes at "
        f"{period - phase} s on the list's clock")
    time.sleep(max(0.0, target - time.time()))


# ---------------------------------------------------------------- slurmctld's log

LOG_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$")
LOG_EVENTS = [
    ("submit", re.compile(r"^_slurm_rpc_submit_batch_job: JobId=(\d+) ")),
    ("start", re.compile(r"^sched: Allocate JobId=(\d+) NodeList=(\S+) ")),
    ("bf_start", re.compile(r"^sched/backfill: _start_job: Started JobId=(\d+) in \S+ on (\S+)$")),
    ("end", re.compile(r"^_job_complete: JobId=(\d+) done$")),
    ("pass", re.compile(r"^sched/backfill: _attempt_backfill: beginning$")),
    ("plan", re.compile(r"^sched/backfill: _dump_job_sched: JobId=(\d+) to start at (\S+), end at \S+ on nodes (\S+) ")),
]
DIGEST_COLUMNS = ["t_s", "event", "job", "start_s", "nodes"]


def digest_rows(log_text: str, names: dict[str, str], first_submit_s: int) -> list[dict]:
    """The digest of a run (see the module docs) from slurmctld's log text. `names` maps the
    run's Slurm ids to job names; the clock's origin is the first of their submissions
    rounded down to the second, minus `first_submit_s` (its recorded submit, normally 0).
    Passes before the first submission or after the last end are left out."""
    events = []
    for line in log_text.splitlines():
        m = LOG_LINE.match(line)
        if not m:
            continue
        stamp, msg = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f"), m.group(2)
        for kind, pat in LOG_EVENTS:
            e = pat.match(msg)
            if not e:
                continue
            if kind != "pass" and e.group(1) not in names:
                break
            events.append((stamp, kind, e.groups()))
            break
    submits = [s for s, k, g in events if k == "submit"]
    if len(submits) != len(names):
        raise RuntimeError(f"the log has {len(submits)} submissions of the run's {len(names)} jobs "
                           "(is it the log of this run, kept whole?)")
    origin = min(submits).replace(microsecond=0).timestamp() - first_submit_s
    last_end = max((s for s, k, g in events if k == "end"), default=None)
    if last_end is None or sum(k == "end" for _, k, _ in events) != len(names):
        raise RuntimeError("the log does not have the end of every job of the run")
    rows, pass_t = [dict(t_s="0.000", event="origin", job="", start_s=f"{origin:.0f}", nodes="")], None
    for stamp, kind, g in events:
        if kind == "pass" and not (min(submits) <= stamp <= last_end):
            continue
        t = f"{stamp.timestamp() - origin:.3f}"
        if kind == "pass":
            pass_t = t
            rows.append(dict(t_s=t, event="pass", job="", start_s="", nodes=""))
        elif kind == "plan":
            if pass_t is None:
                raise RuntimeError(f"a planned start of JobId={g[0]} before any backfill pass")
            start = datetime.strptime(g[1], "%Y-%m-%dT%H:%M:%S").timestamp() - origin
            rows.append(dict(t_s=pass_t, event="plan", job=names[g[0]], start_s=f"{start:.0f}", nodes=g[2]))
        else:
            rows.append(dict(t_s=t, event=kind, job=names[g[0]], start_s="", nodes=g[1] if len(g) > 1 else ""))
    return rows


def write_digest(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=DIGEST_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    plans = sum(r["event"] == "plan" for r in rows)
    passes = sum(r["event"] == "pass" for r in rows)
    log(f"wrote {path} ({passes} backfill passes, {plans} planned starts)")


def digest(args) -> int:
    """The digest of a recorded run from a kept slurmctld.log."""
    with open(args.results, newline="") as f:
        res = list(csv.DictReader(f))
    if not res or "slurm_id" not in res[0]:
        sys.exit(f"slurm-replay: {args.results}: not a results file of `run` (no slurm_id column)")
    names = {r["slurm_id"]: r["job"] for r in res}
    first = min(res, key=lambda r: int(r["slurm_id"]))
    try:
        rows = digest_rows(args.log.read_text(errors="replace"), names, int(first["submit"]))
    except (RuntimeError, OSError) as e:
        log(f"{args.log}: {e}")
        return 3
    write_digest(args.out, rows)
    return 0


def run(args) -> int:
    jobs = read_list(args.list)
    env = dict(os.environ)
    env["SLURM_CONF"] = str(args.conf or env.get("SLURM_CONF") or DEFAULT_CONF)
    try:
        slurm(["scontrol", "ping"], env)
        comp = Path(config_value("JobCompLoc", env))
    except (RuntimeError, FileNotFoundError) as e:
        log(f"the cluster is not reachable ({e}); start it with scripts/slurm-cluster.sh start")
        return 3
    if slurm(["squeue", "-h", "-o", "%i"], env).strip():
        log("the queue is not empty; the replay needs an idle cluster")
        return 3
    offset = comp.stat().st_size if comp.exists() else 0
    ctld_log = Path(config_value("SlurmctldLogFile", env))
    log_offset = ctld_log.stat().st_size if ctld_log.exists() else 0
    log(f"{len(jobs)} jobs from {args.list}; SLURM_CONF={env['SLURM_CONF']}; completions from {comp}")

    if args.calc_phase is not None:
        wait_for_calc_phase(args.calc_phase, env)
    names: dict[str, str] = {}
    t0 = time.time()
    poller = ReasonPoller(env, t0, names)
    poller.start()
    for j in jobs:
        delay = t0 + j["submit_s"] - time.time()
        if delay > 0:
            time.sleep(delay)
        sid = slurm(sbatch_args(j), env).strip().split(";")[0]
        names[sid] = j["job"]
        j["slurm_id"] = sid
    log(f"submitted {len(jobs)} jobs in {time.time() - t0:.1f} s (Slurm ids {jobs[0]['slurm_id']}-{jobs[-1]['slurm_id']})")

    deadline = time.time() + args.timeout
    recs: dict[str, dict] = {}
    while True:
        if comp.exists():
            with open(comp) as f:
                f.seek(offset)
                recs = parse_jobcomp(f.read())
        if all(j["slurm_id"] in recs for j in jobs):
            break
        if time.time() > deadline:
            poller.stop.set()
            left = [j["job"] for j in jobs if j["slurm_id"] not in recs]
            log(f"timed out after {args.timeout} s; unfinished: {' '.join(left)}")
            return 4
        time.sleep(0.5)
    poller.stop.set()
    poller.join()
    log(f"all jobs finished {time.time() - t0:.1f} s after the first submission")

    origin = min(epoch(recs[j["slurm_id"]]["SubmitTime"]) for j in jobs)
    out_rows = []
    for j in jobs:
        r = recs[j["slurm_id"]]
        submit, start, end = (epoch(r[k]) - origin for k in ("SubmitTime", "StartTime", "EndTime"))
        out_rows.append(dict(
            job=j["job"], submit=submit, start=start, end=end, wait_s=start - submit, slurm_id=j["slurm_id"],
            cpus=j["cpus"], nodes=j["nodes"], runtime_s=j["runtime_s"], timelimit_s=60 * j["timelimit_min"],
            account=j["account"], partition=r.get("Partition", j["partition"]), node_list=r.get("NodeList", ""),
            state=r.get("JobState", ""),
        ))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(out_rows)
    log(f"wrote {args.out}")
    if args.reasons:
        with open(args.reasons, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["t_s", "job", "slurm_id", "state", "reason", "expected_start"])
            for *row, expected in poller.rows:
                w.writerow(row + ["" if expected is None else expected - origin])
        log(f"wrote {args.reasons} ({len(poller.rows)} state/reason changes)")
    if args.digest:
        with open(ctld_log, errors="replace") as f:
            f.seek(log_offset)
            text = f.read()
        names = {j["slurm_id"]: j["job"] for j in jobs}
        write_digest(args.digest, digest_rows(text, names, min(r["submit"] for r in out_rows)))
    bad = [r["job"] for r in out_rows if r["state"] != "COMPLETED"]
    if bad:
        log(f"jobs that did not complete: {' '.join(bad)}")
        return 5
    return 0


def compare(args) -> int:
    """Start by start: two results files, or results against burstsim's --jobs-out."""
    def rows_of(path: Path) -> list[dict]:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))

    def starts(rows: list[dict]) -> dict[str, int]:
        key = "start" if "start" in rows[0] else "simulated_start"
        return {r["job"]: round(float(r[key])) for r in rows}
    ra, rb = rows_of(args.a), rows_of(args.b)
    a, b = starts(ra), starts(rb)
    common = [j for j in a if j in b]
    agree = [j for j in common if abs(a[j] - b[j]) <= args.tolerance]
    print(f"{len(agree)} of {len(common)} starts agree within {args.tolerance} s "
          f"(max difference {max((abs(a[j] - b[j]) for j in common), default=0)} s)")
    for j in common:
        if j not in agree:
            print(f"  {j}: {a[j]} s in {args.a.name}, {b[j]} s in {args.b.name} ({b[j] - a[j]:+d} s)")
    submit = {r["job"]: round(float(r["submit"])) for r in ra}
    if common:
        wa = sum(a[j] - submit[j] for j in common) / len(common)
        wb = sum(b[j] - submit[j] for j in common) / len(common)
        print(f"mean wait {wa:.1f} s in {args.a.name}, {wb:.1f} s in {args.b.name} (ratio {wb / wa if wa else float('nan'):.2f})")
    # Which account goes first: every pair of jobs of different accounts that A started
    # more than the tolerance apart, in the same order in B (a fair-share decision each).
    account = {r["job"]: r.get("account", "") for r in ra}
    if len({account[j] for j in common}) > 1:
        pairs = [(x, y) for x in common for y in common
                 if account[x] != account[y] and a[y] - a[x] > args.tolerance]
        same = [(x, y) for x, y in pairs if b[x] < b[y]]
        print(f"account order: {len(same)} of {len(pairs)} pairs of jobs of different accounts "
              f"started more than {args.tolerance} s apart in {args.a.name} are in that order in {args.b.name}")
        for x, y in pairs:
            if (x, y) not in same:
                print(f"  {x} ({account[x]}) before {y} ({account[y]}) in {args.a.name}: "
                      f"{b[x]} s and {b[y]} s in {args.b.name}")
    only = sorted(set(a) ^ set(b))
    if only:
        print(f"  in one file only: {' '.join(only)}")
    return 0


def agreement(args) -> int:
    """A list's recorded runs against each other and against a replay of each run.

    Prints the share of starts within the tolerance over every pair of runs (Slurm against
    itself), the share of the replays' starts within it of their own run, the mean wait
    ratio replay / run (mean over runs), and a bootstrap interval over runs of the
    difference between the two shares: runs are drawn with replacement, the replay's share
    is over the drawn runs and Slurm's over the pairs of drawn runs that are different runs.
    """
    if len(args.runs) != len(args.replays) or len(args.runs) < 2:
        log("give two or more --runs and one --replays file per run, in the same order")
        return 2

    def read(path: Path) -> tuple[dict[str, int], dict[str, int]]:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        key = "start" if "start" in rows[0] else "simulated_start"
        return ({r["job"]: round(float(r[key])) for r in rows},
                {r["job"]: round(float(r["submit"])) for r in rows})
    runs = [read(p) for p in args.runs]
    replays = [read(p)[0] for p in args.replays]
    jobs = sorted(runs[0][0])

    def agree(a: dict[str, int], b: dict[str, int]) -> int:
        return sum(abs(a[j] - b[j]) <= args.tolerance for j in jobs)
    n = len(runs)
    pair = [[agree(runs[i][0], runs[k][0]) for k in range(n)] for i in range(n)]
    model = [agree(runs[i][0], replays[i]) for i in range(n)]

    def shares(pick: list[int]) -> tuple[float, float]:
        pairs = [(i, k) for x, i in enumerate(pick) for k in pick[x + 1:] if i != k]
        own = sum(pair[i][k] for i, k in pairs) / (len(pairs) * len(jobs)) if pairs else float("nan")
        return own, sum(model[i] for i in pick) / (len(pick) * len(jobs))
    own, mod = shares(list(range(n)))
    wait = lambda st, sub: sum(st[j] - sub[j] for j in jobs) / len(jobs)
    ratio = sum(wait(replays[i], runs[i][1]) / wait(*runs[i]) for i in range(n)) / n
    rng = random.Random(args.seed)
    diffs = sorted(d for d in (mod_b - own_b for own_b, mod_b in
                               (shares([rng.randrange(n) for _ in range(n)]) for _ in range(args.bootstrap)))
                   if d == d)
    lo, hi = diffs[int(0.025 * len(diffs))], diffs[int(0.975 * len(diffs)) - 1]
    print(f"{n} runs of {len(jobs)} jobs; starts within {args.tolerance} s")
    print(f"  Slurm vs Slurm ({n * (n - 1) // 2} pairs): {own:.3f}")
    print(f"  replay vs its run: {mod:.3f} (per run: {', '.join(str(m) for m in model)})")
    print(f"  replay - Slurm: {mod - own:+.3f}, bootstrap 95% interval over runs [{lo:+.3f}, {hi:+.3f}] "
          f"({len(diffs)} draws, seed {args.seed})")
    print(f"  mean wait, replay / run (mean over runs): {ratio:.3f}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="submit a job list and collect real starts")
    r.add_argument("list", type=Path)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--reasons", type=Path)
    r.add_argument("--digest", type=Path, help="also write the digest of slurmctld's log for this run")
    r.add_argument("--conf", type=Path, help="slurm.conf (default: $SLURM_CONF, else target/slurm-test)")
    r.add_argument("--timeout", type=float, default=600, help="seconds to wait for the last job (600)")
    r.add_argument("--calc-phase", type=float, metavar="SECONDS",
                   help="submit the first job this many seconds after a priority recalculation "
                        "(with accounting: fair-share lists; the next comes at PriorityCalcPeriod - SECONDS)")
    sub.add_parser("canonical", help="print the canonical fragmentation/backfill job list")
    g = sub.add_parser("random", help="print a random job list")
    g.add_argument("--jobs", type=int, default=30)
    g.add_argument("--seed", type=int, default=13)
    g.add_argument("--mix", choices=["general", "frag"], default="general",
                   help="general: sizes 1-8 and some 16 (random-30); frag: mostly 3, 5, 6, 7 of 8 CPUs")
    c = sub.add_parser("compare", help="compare the starts of two results files")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--tolerance", type=int, default=3, help="seconds (3 = bf_interval 2 s + 1 s resolution)")
    ag = sub.add_parser("agreement", help="a list's runs against each other and against their replays")
    ag.add_argument("--runs", type=Path, nargs="+", required=True)
    ag.add_argument("--replays", type=Path, nargs="+", required=True, help="burstsim --jobs-out, one per run")
    ag.add_argument("--tolerance", type=int, default=3)
    ag.add_argument("--bootstrap", type=int, default=2000, help="draws of the runs (2000)")
    ag.add_argument("--seed", type=int, default=1)
    d = sub.add_parser("digest", help="the digest of slurmctld's log for a recorded run")
    d.add_argument("results", type=Path, help="the run's RESULTS.csv (for the Slurm ids)")
    d.add_argument("--log", type=Path, required=True, help="slurmctld.log with the whole run in it")
    d.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    if a.cmd == "canonical":
        write_list(canonical_rows(), sys.stdout)
        return 0
    if a.cmd == "random":
        rows = frag_rows(a.jobs, a.seed) if a.mix == "frag" else random_rows(a.jobs, a.seed)
        write_list(rows, sys.stdout)
        return 0
    if a.cmd == "compare":
        return compare(a)
    if a.cmd == "digest":
        return digest(a)
    if a.cmd == "agreement":
        return agreement(a)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
