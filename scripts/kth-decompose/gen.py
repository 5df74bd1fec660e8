"""Draw a fitted scenario's background jobs in Python (as src/workload.rs and
src/scenario/validate.rs do: per class a Poisson process with rate
load x 100 x share / (mean size x mean run time), modulated by the class's hour-of-week
profile x monthly season, normalised to mean 1 over the measured window; requests and run
times from the `requests` quantile tables; sizes from `gpus`), write them as an SWF on the
log's clock (local wall time -> UTC), and replay that SWF with `validate --site-rules`.
This checks that the replay of the scenario's jobs waits as the scenario simulation does,
and lets pieces of the fitted representation be swapped for the log's own values.

Usage: python3 gen.py FITTED.toml NSEEDS [variant ...]
variants: fit (as written), emp-shape (each drawn job takes the size, request and run time
of a random fit-period job of its class instead of the tables)."""
import bisect, csv, io, math, os, random, re, statistics, subprocess, sys, tomllib
from datetime import datetime, timedelta
import swflib as S
from run import replay, CLASSES, RULES

START = datetime(1997, 1, 20)  # warm-up start (12 days before 1 Feb), local wall time
MEAS0, MEAS1 = datetime(1997, 2, 1), datetime(1997, 6, 6)
MON = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def quantile(q, u):
    if len(q) == 1:
        return q[0]
    h = min(max(u, 0.0), 1.0) * (len(q) - 1)
    i = min(int(math.floor(h)), len(q) - 2)
    return q[i] + (h - i) * (q[i + 1] - q[i])


def mean_runtime_h(req):
    hours, uf = req["hours"], req["used_fraction"]
    # numeric: fine grid
    n = 20000
    tot = 0.0
    for k in range(n):
        u = (k + 0.5) / n
        row = uf[min(int(u * len(uf)), len(uf) - 1)]
        tot += quantile(hours, u) * (sum(row[:-1]) + sum(row[1:])) / 2 / (len(row) - 1) if len(row) > 1 else quantile(hours, u) * row[0]
    return tot / n


def size_sampler(g):
    if isinstance(g, (int, float)):
        return (lambda r: int(g)), float(g)
    vals, w = g["values"], g["weights"]
    cum = [sum(w[:i + 1]) for i in range(len(w))]
    mean = sum(v * x for v, x in zip(vals, w)) / sum(w)
    return (lambda r: vals[bisect.bisect_right(cum, r.random() * cum[-1])]), mean


def generate(scn, rng, variant, pools=None):
    bg = scn["background"]
    load = bg["offered_load"]
    season = {}
    for s in bg.get("seasons", []):
        season[s["name"].split("-")[1]] = s["multiplier"]
    classes = bg["classes"]
    shares = sum(c["load_share"] for c in classes)
    hours = []  # hour starts from START to MEAS1
    t = START
    while t < MEAS1:
        hours.append(t); t += timedelta(hours=1)
    jobs = []
    for c in classes:
        prof = c.get("hourly_profile", bg.get("hourly_profile"))
        mult = [prof[h.weekday() * 24 + h.hour] * season.get(MON[h.month - 1], 1.0) for h in hours]
        meas = [m for h, m in zip(hours, mult) if h >= MEAS0]
        mean = sum(meas) / len(meas)
        draw_size, msize = size_sampler(c["gpus"])
        req = c["requests"]
        rate_h = load * 100 * (c["load_share"] / shares) / (msize * mean_runtime_h(req)) / mean  # per hour
        if variant.endswith("-sameload"):
            # rescale so the class offers the fit's load with the pool's own work per job
            pl = pools[c["name"]]
            if variant.startswith("emp-shape"):
                w = sum(j[4] * j[3] for j in pl) / len(pl) / 3600
            else:
                w = (sum(j[4] for j in pl) / len(pl)) * (sum(j[3] for j in pl) / len(pl)) / 3600
            rate_h *= msize * mean_runtime_h(req) / w
        for h, m in zip(hours, mult):
            lam = rate_h * m
            # Poisson count in this hour, uniform times
            n, p, L = 0, rng.random(), math.exp(-lam)
            acc = L
            while p > acc:
                n += 1; L *= lam / n; acc += L
            for _ in range(n):
                t = h + timedelta(seconds=rng.randrange(3600))
                if variant.startswith("emp-shape"):
                    src = rng.choice(pools[c["name"]])
                    run, size, request = src[3], src[4], src[8]
                elif variant.startswith("emp-indep"):
                    src = rng.choice(pools[c["name"]])
                    run, request = src[3], src[8]
                    size = rng.choice(pools[c["name"]])[4]
                else:
                    u = rng.random()
                    rh = quantile(req["hours"], u)
                    uf = req["used_fraction"]
                    used = quantile(uf[min(int(u * len(uf)), len(uf) - 1)], rng.random())
                    request = max(1, round(rh * 3600))
                    run = min(max(1, round(request * used)), request)
                    size = draw_size(rng)
                jobs.append((S.to_submit(t), run, size, request))
    jobs.sort()
    out = []
    for i, (s, run, size, request) in enumerate(jobs):
        # id submit wait run procs cpu mem reqprocs reqtime reqmem status user group exe queue part prec think
        out.append([i + 1, s, 0, run, size, -1, -1, size, request, -1, 1, 1, 1, -1, -1, -1, -1, -1])
    return out


def class_pools(scn, jobs):
    """fit-period jobs by fitted class name (size range x band)."""
    names = {}
    for c in scn["background"]["classes"]:
        names[c["name"]] = c
    pools = {n: [] for n in names}
    per = 1 if "febjun" in sys.argv[1] else 0
    if per == 1:  # classes of the Feb-5 Jun fit: its own size ranges and bands
        S.FIT_SIZES = S._fit_size_classes(sys.argv[1])
        S.BANDS_H = [float(x) if x != "∞" else float("inf") for x in
                     re.findall(r'# Request band \([\d.]+(?: h)?, ([\d.∞]+)(?: h)?\]', open(sys.argv[1]).read())]
        S.BANDS_H = sorted(set(S.BANDS_H))
    for j in jobs:
        if S.period(j[1]) != per:
            continue
        b, i = S.fit_class(j)
        lo, hi = S.FIT_SIZES[b][i]
        n = f"size-{lo}-r{b + 1}" if lo == hi else f"size-{lo}-{hi}-r{b + 1}"
        pools[n].append(j)
    return pools


def replay_drawn(header, jobs, name):
    """Writes drawn jobs as OUT/swf/NAME.swf and replays them under each rule set: the test
    period's offered load, its job count, {(rules, class): mean wait}, and the file."""
    f = os.path.join(S.OUT, "swf", f"{name}.swf")
    S.write(f, header, jobs)
    waits = {}
    for rules in RULES:
        out = replay(f, rules)
        for c in CLASSES:
            waits[(rules, c)] = out[("feb-jun5", c)][1]
    return S.test_load(jobs), sum(1 for j in jobs if S.period(j[1]) == 1), waits, f


def main():
    path, nseeds = sys.argv[1], int(sys.argv[2])
    variants = sys.argv[3:] or ["fit"]
    scn = tomllib.load(open(path, "rb"))
    header, logjobs = S.read()
    pools = class_pools(scn, logjobs) if any(v.startswith('emp') for v in variants) else None
    for variant in variants:
        res = {r: {c: [] for c in CLASSES} for r in RULES}
        njobs, loads = [], []
        for seed in range(1, nseeds + 1):
            rng = random.Random(seed * 7919 + len(variant))
            jobs = generate(scn, rng, variant, pools)
            load, n, waits, _ = replay_drawn(header, jobs, f"gen-{variant}-{seed}")
            loads.append(load)
            njobs.append(n)
            for (rules, c), wait in waits.items():
                res[rules][c].append(wait)
        days = (MEAS1 - MEAS0).days
        print("  per seed (load, all-class wait under kth):", [(round(l, 3), round(w, 2)) for l, w in zip(loads, res["kth"]["all"])])
        print(f"{path} {variant}: test-period jobs/day {statistics.mean(njobs) / days:.1f}, load {statistics.mean(loads):.3f} [{min(loads):.3f}-{max(loads):.3f}]")
        for rules in RULES:
            cells = []
            for c in CLASSES:
                v = res[rules][c]
                cells.append(f"{statistics.mean(v):7.3f}±{statistics.stdev(v):5.2f}")
            print(f"  {rules:17s} " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
