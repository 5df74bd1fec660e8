#!/usr/bin/env python3
"""Check `burstsim advise` against the real Slurm of scripts/slurm-cluster.sh, in real time.

    BURSTSIM_SLURM_GPUS=8 scripts/slurm-cluster.sh start
    scripts/advise-probes.py --probes 35 --out /tmp/advise-probes --burstsim target/release/burstsim
    scripts/advise-probes.py --summarize /tmp/advise-probes/probes.csv    # the figures again
    scripts/advise-probes.py --fit-log /tmp/advise-probes                 # the load as a log, for burstsim fit
    scripts/advise-probes.py --readvise /tmp/advise-probes --scenario S   # advise again on the same snapshots

A background load is sampled from a burstsim scenario (default
tests/fixtures/advise/probe-load.toml, flat: no seasons, no hourly profile) and submitted
to the cluster as it would arrive: Poisson arrivals at the rate burstsim gives the
scenario's `offered_load`,

    rate_c (jobs/s) = L x campus GPUs x (share_c / sum of shares) / (E[gpus_c] x E[runtime_c] in s)

(docs/SCENARIOS.md §8 with no seasons, M = 1), GPUs from the class's `gpus`, the runtime
from `runtime_hours` (lognormal: sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2/2, as
rand_distr's LogNormal::from_mean_cv that burstsim uses; rounded to whole seconds, at
least MIN_RUNTIME_S so that sbatch and sleep have time to matter), and the time limit
ceil(runtime x walltime_factor / 60) minutes (burstsim's walltime is ceil(runtime x
factor) seconds; Slurm's --time has whole minutes only). Each job is

    sbatch --wrap "sleep R" --time=L --gres=gpu:G --nodes=1 --ntasks=1 --cpus-per-task=1 --parsable

After --warmup seconds, every --period seconds a probe is taken:

  (a) a snapshot exactly as docs/ADVISE.md tells users: the text format (the `# taken_at`
      line, SLURM_TIME_FORMAT=%s squeue -h -t PD,R,CG -o '%i|%T|...|%b', sinfo -h -N -o
      '%N|%T|%c|%G|%P'), or, on every other probe when this Slurm has them, the JSON
      format (`date +%s > taken_at`, squeue --json, sinfo --json; --taken-at to advise);
  (b) the probe job (G GPUs, R s runtime, W min limit; from a seeded RNG: G from 1, 2, 4,
      8, R from 30-180 s, W from the scenario's walltime factor) is submitted at once,
      so that it enters the queue within a second of the snapshot;
  (c) `burstsim advise --squeue S --sinfo I --gpus G --walltime W --runtime R
      --partition campus --scenario SCENARIO --json` answers from the snapshot alone;
  (d) a poller reads the probe's `SLURM_TIME_FORMAT=%s squeue -h -j ID -o '%i|%T|%S'`
      every second: while it pends, %S is what `squeue --start` prints (the start in
      Slurm's current plan), and the first such estimate is kept with the time it was
      read; once it runs, %S is its real start (the jobcomp file if it ended unseen).

When every probe has started the background stops and every job this script submitted
is cancelled (by id). Ctrl-C (or SIGTERM) cancels them too and writes what it has.

OUT/probes.csv, one row per probe (times in seconds after taken_at, empty when unknown):

    probe,taken_at,submitted_at,gpus,runtime_s,walltime_s,advise_p10_s,advise_median_s,
    advise_p90_s,slurm_estimate_s,real_start_s,slurm_estimate_read_s,format,slurm_id,
    advise_exit,advise_seconds

(taken_at is Unix seconds; the snapshot files and advise's JSON and stderr are kept in
OUT/probe-NN/), OUT/background.csv (every background job), OUT/summary.txt and
OUT/run.json (the options, seeds and the cluster's slurm.conf path). The summary: how many
real starts fall in advise's [p10, p90], advise's median absolute error of the median, the
same for squeue --start's first estimate, and how many probes never had one.

Python 3.11 standard library only. Needs SLURM_CONF (`eval "$(scripts/slurm-cluster.sh
env)"`) or --conf, and a cluster started with BURSTSIM_SLURM_GPUS (its nodes must have
GPUs). Exit codes: 0 every probe got an answer and a start; 2 bad options or scenario;
3 the cluster is not reachable, has no GPUs or is not idle; 4 some probe has no advise
answer or no real start; 130 interrupted.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import tomllib
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONF = ROOT / "target" / "slurm-test" / "etc" / "slurm.conf"
DEFAULT_SCENARIO = ROOT / "tests" / "fixtures" / "advise" / "probe-load.toml"
MIN_RUNTIME_S = 5
PROBE_GPUS = [1, 2, 4, 8]
PROBE_RUNTIME_S = (30, 180)
SQUEUE_TEXT = "%i|%T|%P|%a|%u|%Q|%V|%S|%l|%M|%D|%b"
SINFO_TEXT = "%N|%T|%c|%G|%P"
COLUMNS = [
    "probe", "taken_at", "submitted_at", "gpus", "runtime_s", "walltime_s",
    "advise_p10_s", "advise_median_s", "advise_p90_s", "slurm_estimate_s", "real_start_s",
    "slurm_estimate_read_s", "format", "slurm_id", "advise_exit", "advise_seconds",
]


def log(msg: str) -> None:
    print(f"advise-probes: {datetime.now():%H:%M:%S} {msg}", file=sys.stderr, flush=True)


class Interrupted(Exception):
    pass


# ---------------------------------------------------------------- the scenario's load

class SpecError(ValueError):
    pass


def spec_mean(spec, key: str) -> float:
    if isinstance(spec, (int, float)):
        return float(spec)
    kind = spec.get("kind")
    if kind == "fixed":
        return float(spec["value"])
    if kind in ("lognormal", "exponential"):
        return float(spec["mean"])
    if kind == "uniform":
        return (spec["low"] + spec["high"]) / 2
    if kind == "choice":
        w = spec["weights"]
        return sum(v * x for v, x in zip(spec["values"], w)) / sum(w)
    if kind == "empirical":
        return statistics.fmean(spec["samples"])
    raise SpecError(f"{key}: kind '{kind}' is not supported here; use a number, fixed, choice, "
                    "empirical, uniform, exponential or lognormal")


def spec_sample(spec, rng: random.Random) -> float:
    if isinstance(spec, (int, float)):
        return float(spec)
    kind = spec["kind"]
    if kind == "fixed":
        return float(spec["value"])
    if kind == "lognormal":
        mean, cv = float(spec["mean"]), float(spec["cv"])
        if cv == 0:
            return mean
        s2 = math.log1p(cv * cv)
        return rng.lognormvariate(math.log(mean) - s2 / 2, math.sqrt(s2))
    if kind == "exponential":
        return rng.expovariate(1 / float(spec["mean"]))
    if kind == "uniform":
        return rng.uniform(spec["low"], spec["high"])
    if kind == "choice":
        return float(rng.choices(spec["values"], weights=spec["weights"])[0])
    if kind == "empirical":
        return float(rng.choice(spec["samples"]))
    raise SpecError(f"kind '{kind}' is not supported")


class Load:
    """The background classes of a flat scenario, with burstsim's arrival rates."""

    def __init__(self, path: Path):
        with open(path, "rb") as f:
            doc = tomllib.load(f)
        campus = doc.get("campus", {})
        self.gpus_per_node = int(campus.get("gpus_per_node", 0))
        self.nodes = int(campus.get("nodes", 0))
        self.gpus = int(campus.get("gpus", self.nodes * self.gpus_per_node))
        bg = doc.get("background", {})
        for k in ("seasons", "hourly_profile", "trace"):
            if bg.get(k):
                raise SpecError(f"{path}: background.{k}: the probes need a flat load (no seasons, profile or trace)")
        self.offered_load = bg.get("offered_load", bg.get("offered_load_outside_seasons"))
        if self.offered_load is None:
            raise SpecError(f"{path}: background.offered_load is required")
        classes = bg.get("classes", [])
        if not classes:
            raise SpecError(f"{path}: background.classes: at least one class is needed")
        shares = [float(c.get("load_share", 1)) for c in classes]
        self.classes = []
        for i, (c, share) in enumerate(zip(classes, shares)):
            key = f"background.classes[{i}]"
            if c.get("nodes") or c.get("gpus_per_node"):
                raise SpecError(f"{key}: job shapes (nodes, gpus_per_node) are not supported here")
            gpus = c.get("gpus", 1)
            runtime = c["runtime_hours"]
            factor = c.get("walltime_factor", 1.5)
            mean_gpus, mean_runtime_s = spec_mean(gpus, f"{key}.gpus"), spec_mean(runtime, f"{key}.runtime_hours") * 3600
            spec_mean(factor, f"{key}.walltime_factor")
            rate = self.offered_load * self.gpus * (share / sum(shares)) / (mean_gpus * mean_runtime_s)
            self.classes.append(dict(name=c["name"], gpus=gpus, runtime=runtime, factor=factor, rate=rate,
                                     mean_gpus=mean_gpus, mean_runtime_s=mean_runtime_s))
        self.rate = sum(c["rate"] for c in self.classes)
        self.factor = self.classes[0]["factor"]

    def describe(self) -> str:
        parts = [f"{c['name']}: {c['rate'] * 60:.2f} jobs/min (E[gpus] {c['mean_gpus']:.2f}, "
                 f"E[runtime] {c['mean_runtime_s']:.0f} s)" for c in self.classes]
        return f"offered load {self.offered_load} on {self.gpus} GPUs: " + "; ".join(parts)

    def job(self, rng: random.Random) -> dict:
        c = rng.choices(self.classes, weights=[c["rate"] for c in self.classes])[0]
        gpus = max(1, round(spec_sample(c["gpus"], rng)))
        runtime = max(MIN_RUNTIME_S, round(spec_sample(c["runtime"], rng) * 3600))
        factor = min(max(spec_sample(c["factor"], rng), 1.0), 1000.0)
        return dict(cls=c["name"], gpus=gpus, runtime_s=runtime, limit_min=limit_minutes(runtime, factor))


def limit_minutes(runtime_s: int, factor: float) -> int:
    return max(1, math.ceil(math.ceil(runtime_s * factor) / 60))


# ---------------------------------------------------------------- Slurm

class Slurm:
    def __init__(self, conf: Path):
        self.env = dict(os.environ, SLURM_CONF=str(conf))
        self.tenv = dict(self.env, SLURM_TIME_FORMAT="%s")
        self.lock = threading.Lock()
        self.ids: list[str] = []  # every job this script submitted, to cancel at the end

    def run(self, args: list[str], timed: bool = False, timeout: float = 60) -> str:
        p = subprocess.run(args, env=self.tenv if timed else self.env, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def submit(self, name: str, gpus: int, runtime_s: int, limit_min: int) -> str:
        out = self.run(["sbatch", "--parsable", "--output=/dev/null", f"--job-name={name}", f"--time={limit_min}",
                        f"--gres=gpu:{gpus}", "--nodes=1", "--ntasks=1", "--cpus-per-task=1",
                        "--wrap", f"sleep {runtime_s}"])
        sid = out.strip().split(";")[0]
        with self.lock:
            self.ids.append(sid)
        return sid

    def cancel_all(self) -> None:
        with self.lock:
            ids = list(self.ids)
        for i in range(0, len(ids), 200):
            subprocess.run(["scancel", "--quiet", *ids[i:i + 200]], env=self.env, capture_output=True)
        log(f"cancelled what was left of the {len(ids)} jobs this run submitted")


def _slurm_replay():
    """scripts/slurm-replay.py as a module: its jobcomp reader and Slurm-time parser serve
    here too (the file name has a hyphen, so it is loaded by path)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("slurm_replay", Path(__file__).resolve().parent / "slurm-replay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_replay = _slurm_replay()
parse_jobcomp = _replay.parse_jobcomp
epoch = _replay.epoch


class Background(threading.Thread):
    """Submits the scenario's load as Poisson arrivals until stopped."""

    def __init__(self, slurm: Slurm, load: Load, seed: int, t0: float):
        super().__init__(daemon=True)
        self.slurm, self.load, self.rng, self.t0 = slurm, load, random.Random(seed), t0
        self.stop = threading.Event()
        self.rows: list[dict] = []
        self.errors = 0

    def run(self) -> None:
        t = self.t0
        n = 0
        while True:
            t += self.rng.expovariate(self.load.rate)
            if self.stop.wait(max(0.0, t - time.time())):
                return
            j = self.load.job(self.rng)
            n += 1
            try:
                sid = self.slurm.submit(f"bg-{n}", j["gpus"], j["runtime_s"], j["limit_min"])
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                self.errors += 1
                log(f"background job {n} not submitted: {e}")
                continue
            self.rows.append(dict(job=n, slurm_id=sid, submit_at=round(time.time(), 1), planned_at=round(t, 1), **j))


class Poller(threading.Thread):
    """Follows the probes: first squeue --start estimate while pending, real start once running."""

    def __init__(self, slurm: Slurm, comp: Path, comp_offset: int):
        super().__init__(daemon=True)
        self.slurm, self.comp, self.comp_offset = slurm, comp, comp_offset
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.probes: dict[str, dict] = {}  # slurm id -> row

    def add(self, sid: str, row: dict) -> None:
        with self.lock:
            self.probes[sid] = row

    def waiting(self) -> list[str]:
        with self.lock:
            return [s for s, r in self.probes.items() if r.get("_start") is None]

    def run(self) -> None:
        while not self.stop.is_set():
            self.poll()
            self.stop.wait(1.0)

    def poll(self) -> None:
        ids = self.waiting()
        if not ids:
            return
        try:
            out = self.slurm.run(["squeue", "-h", "-j", ",".join(ids), "-o", "%i|%T|%S"], timed=True)
        except (RuntimeError, subprocess.TimeoutExpired):
            out = ""
        now = time.time()
        seen = set()
        for line in out.splitlines():
            sid, state, start = (line.split("|") + ["", ""])[:3]
            seen.add(sid)
            r = self.probes.get(sid)
            if r is None:
                continue
            if state in ("RUNNING", "COMPLETING") and start.isdigit():
                r["_start"] = int(start)
            elif state == "PENDING" and start.isdigit() and r.get("_estimate") is None:
                r["_estimate"], r["_estimate_read"] = int(start), now
        # Ended between two polls (or squeue failed): the jobcomp file has the start.
        gone = [s for s in ids if s not in seen]
        if gone and self.comp.exists():
            with open(self.comp) as f:
                f.seek(self.comp_offset)
                recs = parse_jobcomp(f.read())
            for s in gone:
                if s in recs and recs[s].get("StartTime", "")[:1].isdigit():
                    self.probes[s]["_start"] = epoch(recs[s]["StartTime"])


# ---------------------------------------------------------------- snapshots and advise

def json_supported(slurm: Slurm) -> bool:
    try:
        for cmd in (["squeue", "--json"], ["sinfo", "--json"]):
            json.loads(slurm.run(cmd))
        return True
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        log(f"squeue/sinfo --json do not work here ({e}); every snapshot is text")
        return False


def take_snapshot(slurm: Slurm, fmt: str, d: Path) -> tuple[int, Path, Path]:
    """docs/ADVISE.md, "Taking a snapshot on a login node"."""
    d.mkdir(parents=True, exist_ok=True)
    taken_at = int(time.time())  # date +%s
    if fmt == "text":
        sq, si = d / "squeue.txt", d / "sinfo.txt"
        body = slurm.run(["squeue", "-h", "-t", "PD,R,CG", "-o", SQUEUE_TEXT], timed=True)
        sq.write_text(f"# taken_at {taken_at}\n" + body)
        si.write_text(slurm.run(["sinfo", "-h", "-N", "-o", SINFO_TEXT]))
    else:
        (d / "taken_at").write_text(f"{taken_at}\n")
        sq, si = d / "squeue.json", d / "sinfo.json"
        sq.write_text(slurm.run(["squeue", "--json"]))
        si.write_text(slurm.run(["sinfo", "--json"]))
    return taken_at, sq, si


def secs(v) -> str:
    """A figure in seconds for the log line: one decimal, or '-' when there is none."""
    try:
        return "-" if v is None or v == "" else f"{float(v):.1f}"
    except (TypeError, ValueError):
        return str(v)


def run_advise(args, d: Path, fmt: str, taken_at: int, sq: Path, si: Path, p: dict, seed: int) -> dict:
    cmd = [str(args.burstsim), "advise", "--squeue", str(sq), "--sinfo", str(si), "--gpus", str(p["gpus"]),
           "--walltime", f"{p['limit_min']}m", "--runtime", f"{p['runtime_s']}s", "--partition", "campus",
           "--scenario", str(args.advise_scenario or args.scenario), "--seed", str(seed), "--json"]
    if fmt == "json":
        cmd += ["--taken-at", str(taken_at)]
    if args.replications:
        cmd += ["--replications", str(args.replications)]
    if args.horizon_days:
        cmd += ["--horizon-days", str(args.horizon_days)]
    (d / "advise-command.txt").write_text(" ".join(cmd) + "\n")
    started = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.advise_timeout)
        code, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        code, out, err = -1, "", f"timed out after {args.advise_timeout} s"
    except OSError as e:
        code, out, err = -2, "", str(e)
    res = dict(advise_exit=code, advise_seconds=round(time.time() - started, 1))
    (d / "advise.json").write_text(out)
    (d / "advise.stderr").write_text(err)
    if code != 0:
        log(f"advise failed (exit {code}): {err.strip()[:300]}")
        return res
    try:
        s = json.loads(out)["start"]
        res.update(advise_p10_s=s["p10_s"], advise_median_s=s["median_s"], advise_p90_s=s["p90_s"])
    except (ValueError, KeyError, TypeError) as e:
        log(f"advise's JSON has no start.p10_s/median_s/p90_s ({e!r}); see {d / 'advise.json'}")
    return res


# ---------------------------------------------------------------- summary

def num(v) -> float | None:
    if v is None or v == "":
        return None
    return float(v)


def summarize(rows: list[dict], tolerance: float = 3) -> str:
    have = [r for r in rows if num(r.get("advise_median_s")) is not None and num(r.get("real_start_s")) is not None]
    lines = [f"probes: {len(rows)}; with an advise answer and a real start: {len(have)}"]
    if not have:
        return "\n".join(lines)
    real = {id(r): num(r["real_start_s"]) for r in have}
    inside = [r for r in have if num(r["advise_p10_s"]) <= real[id(r)] <= num(r["advise_p90_s"])]
    below = [r for r in have if real[id(r)] < num(r["advise_p10_s"])]
    above = [r for r in have if real[id(r)] > num(r["advise_p90_s"])]
    n = len(have)
    lines.append(f"real start inside advise's [p10, p90]: {len(inside)} of {n} ({100 * len(inside) / n:.0f}%; "
                 f"target 70-90%); earlier than p10: {len(below)}, later than p90: {len(above)}")
    # Slurm starts a job 0-bf_interval s after it could, and records whole seconds: a start
    # predicted "at once" ([0, 0]) and made 1 s later is a miss only at the second.
    loose = [r for r in have
             if num(r["advise_p10_s"]) - tolerance <= real[id(r)] <= num(r["advise_p90_s"]) + tolerance]
    lines.append(f"  within {tolerance:g} s of [p10, p90] (bf_interval 2 s + 1 s resolution): {len(loose)} of {n} "
                 f"({100 * len(loose) / n:.0f}%)")
    waited = [r for r in have if real[id(r)] - num(r["submitted_at"]) > 10]
    if waited:
        w_in = [r for r in waited if num(r["advise_p10_s"]) <= real[id(r)] <= num(r["advise_p90_s"])]
        lines.append(f"  of the {len(waited)} probes that waited more than 10 s: {len(w_in)} inside [p10, p90] "
                     f"({100 * len(w_in) / len(waited):.0f}%)")
    err = [abs(num(r["advise_median_s"]) - real[id(r)]) for r in have]
    signed = [num(r["advise_median_s"]) - real[id(r)] for r in have]
    lines.append(f"advise: median absolute error of the median {statistics.median(err):.0f} s "
                 f"(mean {statistics.fmean(err):.0f} s; median of advise - real {statistics.median(signed):+.0f} s)")
    est = [r for r in have if num(r.get("slurm_estimate_s")) is not None]
    if est:
        e = [abs(num(r["slurm_estimate_s"]) - real[id(r)]) for r in est]
        s = [num(r["slurm_estimate_s"]) - real[id(r)] for r in est]
        a = [abs(num(r["advise_median_s"]) - real[id(r)]) for r in est]
        lines.append(f"squeue --start (first estimate): median absolute error {statistics.median(e):.0f} s "
                     f"(mean {statistics.fmean(e):.0f} s; median of estimate - real {statistics.median(s):+.0f} s) "
                     f"over the {len(est)} probes it estimated; advise on those: {statistics.median(a):.0f} s")
        late = [num(r["slurm_estimate_read_s"]) - num(r["submitted_at"]) for r in est
                if num(r.get("slurm_estimate_read_s")) is not None]
        if late:
            lines.append(f"  the first estimate was read {statistics.median(late):.0f} s after submission (median)")
    lines.append(f"probes without a Slurm estimate (started before squeue --start showed one): {n - len(est)} of {n}")
    waits = sorted(real[id(r)] - num(r["submitted_at"]) for r in have)
    lines.append(f"real waits (start - submission): median {statistics.median(waits):.0f} s, max {waits[-1]:.0f} s; "
                 f"{sum(w <= 10 for w in waits)} of {n} started within 10 s, {sum(w >= 60 for w in waits)} waited 1 min or more")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


# ---------------------------------------------------------------- the run

def finish_rows(rows: list[dict]) -> None:
    for r in rows:
        t = r["taken_at"]
        if r.get("_start") is not None:
            r["real_start_s"] = r["_start"] - t
        if r.get("_estimate") is not None:
            r["slurm_estimate_s"] = r["_estimate"] - t
            r["slurm_estimate_read_s"] = round(r["_estimate_read"] - t, 1)


def run(args) -> int:
    try:
        load = Load(args.scenario)
    except (SpecError, KeyError, OSError, tomllib.TOMLDecodeError) as e:
        log(f"{args.scenario}: {e}")
        return 2
    if not args.skip_advise and not Path(args.burstsim).exists():
        log(f"no burstsim binary at {args.burstsim} (give --burstsim PATH or set BURSTSIM)")
        return 2
    slurm = Slurm(args.conf)
    try:
        slurm.run(["scontrol", "ping"])
        comp = Path(next(line.partition("=")[2].strip() for line in slurm.run(["scontrol", "show", "config"]).splitlines()
                         if line.partition("=")[0].strip() == "JobCompLoc"))
        nodes = slurm.run(["sinfo", "-h", "-N", "-o", "%N|%T|%G"]).split()
    except (RuntimeError, FileNotFoundError, StopIteration, subprocess.TimeoutExpired) as e:
        log(f"the cluster is not reachable ({e}); start it with BURSTSIM_SLURM_GPUS=8 scripts/slurm-cluster.sh start")
        return 3
    if not nodes or not all("gpu:" in n for n in nodes):
        log(f"the nodes have no GPUs ({' '.join(nodes)}); restart the cluster with BURSTSIM_SLURM_GPUS=8")
        return 3
    if slurm.run(["squeue", "-h", "-o", "%i"]).strip():
        log("the queue is not empty; the probes need an idle cluster to start from")
        return 3
    if args.probes < 1:
        log("--probes must be at least 1")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    formats = args.formats
    if formats != "text" and not json_supported(slurm):
        formats = "text"
    comp_offset = comp.stat().st_size if comp.exists() else 0
    (args.out / "run.json").write_text(json.dumps(dict(
        argv=sys.argv, probes=args.probes, period_s=args.period, warmup_s=args.warmup, seed=args.seed,
        scenario=str(args.scenario), advise_scenario=str(args.advise_scenario or args.scenario), burstsim=str(args.burstsim), slurm_conf=str(args.conf), formats=formats,
        nodes=nodes, started=datetime.now().isoformat(timespec="seconds"), load=load.describe(),
    ), indent=2) + "\n")
    log(load.describe())
    log(f"{len(nodes)} nodes: {' '.join(nodes)}; snapshots: {formats}; out: {args.out}")

    prng = random.Random(args.seed * 1000 + 7)  # the probes' sizes: a stream apart from the load's
    plan = []
    for k in range(args.probes):
        g = prng.choice(PROBE_GPUS)
        r = prng.randint(*PROBE_RUNTIME_S)
        f = min(max(spec_sample(load.factor, prng), 1.0), 1000.0)
        plan.append(dict(gpus=g, runtime_s=r, limit_min=limit_minutes(r, f)))

    t0 = time.time()
    bg = Background(slurm, load, args.seed, t0)
    poller = Poller(slurm, comp, comp_offset)
    rows: list[dict] = []

    def on_term(signum, frame):
        raise Interrupted()

    signal.signal(signal.SIGTERM, on_term)
    code = 0
    try:
        bg.start()
        poller.start()
        log(f"background load started; warm-up {args.warmup:.0f} s, then {args.probes} probes every {args.period:.0f} s")
        for k, p in enumerate(plan):
            target = t0 + args.warmup + k * args.period
            while time.time() < target:
                time.sleep(min(1.0, target - time.time()))
            fmt = "json" if formats == "json" or (formats == "alternate" and k % 2 == 1) else "text"
            d = args.out / f"probe-{k + 1:02d}"
            taken_at, sq, si = take_snapshot(slurm, fmt, d)
            before = time.time()
            sid = slurm.submit(f"probe-{k + 1}", p["gpus"], p["runtime_s"], p["limit_min"])
            submitted = (before + time.time()) / 2
            row = dict(probe=k + 1, taken_at=taken_at, submitted_at=round(submitted - taken_at, 1), gpus=p["gpus"],
                       runtime_s=p["runtime_s"], walltime_s=60 * p["limit_min"], format=fmt, slurm_id=sid)
            poller.add(sid, row)
            rows.append(row)
            if not args.skip_advise:
                row.update(run_advise(args, d, fmt, taken_at, sq, si, p, args.seed * 1000 + k + 1))
            queued = len(slurm.run(["squeue", "-h", "-t", "PD", "-o", "%i"]).split())
            log(f"probe {k + 1}/{args.probes} ({fmt}): {p['gpus']} GPUs, {p['runtime_s']} s, limit {p['limit_min']} min, "
                f"job {sid}; advise p10/median/p90 = {secs(row.get('advise_p10_s'))}/{secs(row.get('advise_median_s'))}/"
                f"{secs(row.get('advise_p90_s'))} s ({row.get('advise_seconds', '-')} s); {queued} jobs pending")
            write_csv(args.out / "probes.csv", [dict(r) for r in rows])
        deadline = time.time() + args.probe_timeout
        while poller.waiting() and time.time() < deadline:
            time.sleep(1.0)
        left = poller.waiting()
        if left:
            log(f"{len(left)} probes had not started {args.probe_timeout:.0f} s after the last submission: {' '.join(left)}")
        else:
            log("every probe has started")
    except (KeyboardInterrupt, Interrupted):
        log("interrupted: cancelling this run's jobs")
        code = 130
    finally:
        bg.stop.set()
        poller.stop.set()
        poller.join(timeout=5)
        slurm.cancel_all()
        finish_rows(rows)
        write_csv(args.out / "probes.csv", rows)
        with open(args.out / "background.csv", "w", newline="") as f:
            cols = ["job", "slurm_id", "cls", "gpus", "runtime_s", "limit_min", "planned_at", "submit_at"]
            w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
            w.writeheader()
            w.writerows(bg.rows)
    summary = summarize(rows, args.tolerance)
    (args.out / "summary.txt").write_text(summary + "\n")
    print(summary)
    log(f"{len(bg.rows)} background jobs ({bg.errors} not submitted) in {time.time() - t0:.0f} s; "
        f"wrote {args.out / 'probes.csv'}")
    if code:
        return code
    missing = [r["probe"] for r in rows if r.get("real_start_s") is None
               or (not args.skip_advise and r.get("advise_median_s") is None)]
    if missing:
        log(f"probes without an advise answer or a real start: {' '.join(map(str, missing))}")
        return 4
    return 0


# ---------------------------------------------------------------- advise again, fit the log

def readvise(args) -> int:
    """Runs advise again on every probe's stored snapshot (OUT/probe-NN/) with --burstsim
    and --scenario, keeping Slurm's side (the real start, squeue --start) as recorded:
    advise is a function of the snapshot, the scenario and the seed, so a changed advise
    or scenario is scored on the same probes. Writes OUT/probes-readvised.csv."""
    out = args.readvise
    with open(out / "probes.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    base_seed = int(json.loads((out / "run.json").read_text())["seed"])
    for r in rows:
        d = out / f"probe-{int(r['probe']):02d}"
        fmt = r["format"]
        sq, si = (d / "squeue.json", d / "sinfo.json") if fmt == "json" else (d / "squeue.txt", d / "sinfo.txt")
        p = {"gpus": r["gpus"], "limit_min": int(float(r["walltime_s"])) // 60, "runtime_s": r["runtime_s"]}
        for k in ("advise_p10_s", "advise_median_s", "advise_p90_s"):
            r[k] = ""
        # The seed the run gave this probe (run(): seed x 1000 + probe number).
        r.update(run_advise(args, d, fmt, int(r["taken_at"]), sq, si, p, base_seed * 1000 + int(r["probe"])))
    write_csv(out / "probes-readvised.csv", rows)
    text = summarize(rows, args.tolerance)
    (out / "summary-readvised.txt").write_text(text + "\n")
    print(text)
    return 0


def fit_log(out: Path) -> int:
    """Writes OUT/background-log.csv: the background jobs as a log a campus would export
    (submit, runtime and time limit in seconds, GPUs), for `burstsim fit` with
    tests/fixtures/advise/background-log.mapping.toml."""
    with open(out / "background.csv", newline="") as f:
        jobs = list(csv.DictReader(f))
    with open(out / "background-log.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["job", "submit_s", "runtime_s", "timelimit_s", "gpus"])
        for j in jobs:
            w.writerow([j["job"], int(float(j["submit_at"])), j["runtime_s"], 60 * int(j["limit_min"]), j["gpus"]])
    log(f"wrote {out / 'background-log.csv'} ({len(jobs)} jobs)")
    return 0




def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--probes", type=int, default=35, help="probes to take (35)")
    p.add_argument("--period", type=float, default=60, help="seconds between probes (60)")
    p.add_argument("--warmup", type=float, default=300, help="seconds of background load before the first probe (300)")
    p.add_argument("--seed", type=int, default=1, help="seeds the load (seed) and the probes' sizes (1)")
    p.add_argument("--out", type=Path, default=ROOT / "target" / "advise-probes", help="folder for the results")
    p.add_argument("--burstsim", type=Path, default=Path(os.environ.get("BURSTSIM", ROOT / "target" / "release" / "burstsim")),
                   help="the burstsim binary ($BURSTSIM, else target/release/burstsim)")
    p.add_argument("--scenario", type=Path, default=DEFAULT_SCENARIO, help="the load, and advise's --scenario")
    p.add_argument("--advise-scenario", type=Path,
                   help="advise's --scenario instead of --scenario (e.g. one fitted from the load's own log)")
    p.add_argument("--conf", type=Path, default=Path(os.environ.get("SLURM_CONF", DEFAULT_CONF)),
                   help="slurm.conf ($SLURM_CONF, else target/slurm-test)")
    p.add_argument("--formats", choices=["alternate", "text", "json"], default="alternate",
                   help="snapshot format: alternate text and JSON where Slurm has --json (default), or one")
    p.add_argument("--replications", type=int, help="advise's --replications (default: advise's own)")
    p.add_argument("--horizon-days", type=float, default=0,
                   help="advise's --horizon-days (0 = advise's default, 14 days)")
    p.add_argument("--advise-timeout", type=float, default=120, help="seconds advise may take per probe (120)")
    p.add_argument("--probe-timeout", type=float, default=1800,
                   help="seconds after the last probe's submission to wait for every probe to start (1800)")
    p.add_argument("--skip-advise", action="store_true", help="do not run advise (checks the load and Slurm's side only)")
    p.add_argument("--summarize", type=Path, metavar="PROBES_CSV", help="print the summary of a probes.csv and exit")
    p.add_argument("--tolerance", type=float, default=3,
                   help="seconds around [p10, p90] for the summary's second coverage figure (3)")
    p.add_argument("--readvise", type=Path, metavar="OUT",
                   help="run advise again on the probes of a finished run's folder with --burstsim and --scenario, "
                        "keep Slurm's side, write OUT/probes-readvised.csv and the summary, and exit")
    p.add_argument("--fit-log", type=Path, metavar="OUT",
                   help="write a finished run's background jobs as OUT/background-log.csv for `burstsim fit`, and exit")
    a = p.parse_args()
    if a.readvise:
        return readvise(a)
    if a.fit_log:
        return fit_log(a.fit_log)
    if a.summarize:
        with open(a.summarize, newline="") as f:
            print(summarize(list(csv.DictReader(f)), a.tolerance))
        return 0
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
