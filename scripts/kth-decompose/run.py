"""Replay modified copies of the KTH-SP2 log under --site-rules kth and kth-maxtime-only.
Usage: python3 run.py [SEEDS] [EXPERIMENT ...]   -> target/kth-decompose/results.csv (appended), summary on stdout
One process at a time (single core)."""
import csv, io, os, random, statistics, subprocess, sys
import swflib as S

BIN = os.environ.get("BURSTSIM", os.path.join(S.ROOT, "target", "release", "burstsim"))
OUT = os.path.join(S.OUT, "swf")
os.makedirs(OUT, exist_ok=True)
RULES = ["kth", "kth-maxtime-only"]
CLASSES = ["<=4h", "4-15h", ">15h", "all"]


def fitclass(j):
    return S.fit_class(j)


EXPS = {
    # name: (description, function(jobs, rng) -> jobs, randomised?)
    "E0-identity": ("the log as is", lambda j, r: j, False),
    "E1a-hour": ("submit uniform within its own local hour (same date)",
                 lambda j, r: S.redraw_times(j, r, "hour"), True),
    "E1b-poisson-period": ("same weekday+hour, date uniform over the period (Poisson, log's hour-of-week rate jointly with every attribute)",
                           lambda j, r: S.redraw_times(j, r, "period"), True),
    "E1c-poisson-month": ("same weekday+hour, date uniform within its calendar month",
                          lambda j, r: S.redraw_times(j, r, "month"), True),
    "E1d-bursts-kept": ("as E1b but each user burst (<=60 s gaps) moved as one block",
                        lambda j, r: S.redraw_bursts(j, r, 60), True),
    "E1e-sessions-kept": ("as E1b but each user session (<=1 h gaps) moved as one block",
                          lambda j, r: S.redraw_bursts(j, r, 3600), True),
    "E2a-size|class": ("size shuffled among jobs of the same request class (<=4/4-15/>15 h)",
                       lambda j, r: S.shuffle_fields(j, r, lambda x: S.rclass(x[8]), S.SIZE), True),
    "E2b-size|band": ("size shuffled within the fit's request band (8 bands)",
                      lambda j, r: S.shuffle_fields(j, r, lambda x: S.band(x[8]), S.SIZE), True),
    "E2c-size|fitclass": ("size shuffled within the fit's class (size range x band): the fit's own independence",
                          lambda j, r: S.shuffle_fields(j, r, fitclass, S.SIZE), True),
    "E3a-reqrun|fitclass": ("(request, run) pairs shuffled within the fit's class (size range x band)",
                            lambda j, r: S.shuffle_fields(j, r, fitclass, S.REQRUN), True),
    "E3b-reqrun|band": ("(request, run) pairs shuffled within the band (any size)",
                        lambda j, r: S.shuffle_fields(j, r, lambda x: S.band(x[8]), S.REQRUN), True),
    "E4-fitlike": ("E1b timing + size and (request, run) each shuffled within fit class",
                   lambda j, r: S.shuffle_fields(S.shuffle_fields(S.redraw_times(j, r, "period"), r, fitclass, S.SIZE),
                                                 r, fitclass, S.REQRUN), True),
    "E4m-fitlike-month": ("E1c timing + size and (request, run) each shuffled within fit class",
                          lambda j, r: S.shuffle_fields(S.shuffle_fields(S.redraw_times(j, r, "month"), r, fitclass, S.SIZE),
                                                        r, fitclass, S.REQRUN), True),
    "E5-pairs-only": ("E2c + E3a (times kept)",
                      lambda j, r: S.shuffle_fields(S.shuffle_fields(j, r, fitclass, S.SIZE), r, fitclass, S.REQRUN), True),
    "E6-shape|band": ("(size, request, run) shuffled as a whole within the band (times kept): the class-within-band vs time-of-week link broken",
                      lambda j, r: S.shuffle_fields(j, r, lambda x: S.band(x[8]), S.ATTRS), True),
    "E7-fit-structure": ("E1b timing, then shape shuffled within band, then size and (request, run) each within fit class: the fit's structure with the log's own values",
                         lambda j, r: S.shuffle_fields(S.shuffle_fields(S.shuffle_fields(S.redraw_times(j, r, "period"), r, lambda x: S.band(x[8]), S.ATTRS),
                                                                        r, fitclass, S.SIZE), r, fitclass, S.REQRUN), True),
    "E7m-fit-structure-month": ("as E7 with E1c timing (date within its month)",
                         lambda j, r: S.shuffle_fields(S.shuffle_fields(S.shuffle_fields(S.redraw_times(j, r, "month"), r, lambda x: S.band(x[8]), S.ATTRS),
                                                                        r, fitclass, S.SIZE), r, fitclass, S.REQRUN), True),
    "E8a-boot-jobs": ("test period replaced by Sep-Jan jobs drawn one by one at Sep-Jan's rate, placed Poisson-like by their weekday+hour",
                      lambda j, r: S.bootstrap_test_period(j, r, "jobs"), True),
    "E8b-boot-weeks": ("test period replaced by whole random Sep-Jan weeks (bursts and days kept)",
                       lambda j, r: S.bootstrap_test_period(j, r, "weeks"), True),
}


def replay(path, rules):
    p = subprocess.run([BIN, "validate", "-j", "1", "--trace", path, "--gpus", "100", "--scheduler", "easy-backfill",
                        "--site-rules", rules, "--format", "csv"], capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return {(r["period"], r["class"]): (int(r["jobs"]), float(r["simulated_mean_h"])) for r in rows}


def main():
    nseeds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    names = sys.argv[2:] or list(EXPS)
    header, jobs = S.read()
    results = os.path.join(S.OUT, "results.csv")
    new = not os.path.exists(results)
    with open(results, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["exp", "seed", "rules", "period", "class", "jobs", "sim_mean_h"])
        for name in names:
            desc, fn, rnd = EXPS[name]
            seeds = range(1, nseeds + 1) if rnd else [0]
            res = {r: {c: [] for c in CLASSES} for r in RULES}
            loads = []
            for seed in seeds:
                rng = random.Random(hash((name, seed)) & 0xffffffff if False else seed * 1000 + sum(map(ord, name)))
                mod = fn([list(x) for x in jobs], rng)
                loads.append(S.test_load(mod))
                path = f"{OUT}/{name}-s{seed}.swf"
                S.write(path, header, mod)
                for rules in RULES:
                    out = replay(path, rules)
                    for (per, cl), (n, m) in out.items():
                        w.writerow([name, seed, rules, per, cl, n, f"{m:.4f}"])
                        if per == "feb-jun5":
                            res[rules][cl].append(m)
                os.remove(path)
            f.flush()
            for rules in RULES:
                cells = []
                for c in CLASSES:
                    v = res[rules][c]
                    sd = statistics.stdev(v) if len(v) > 1 else 0.0
                    cells.append(f"{statistics.mean(v):7.3f}±{sd:5.2f} [{min(v):.2f}-{max(v):.2f}]")
                print(f"{name:22s} {rules:17s} " + " | ".join(cells) + f" | load {statistics.mean(loads):.3f} [{min(loads):.3f}-{max(loads):.3f}]", flush=True)


if __name__ == "__main__":
    main()
