"""Separate the parts of the test-period fit's arrival process (VALIDATION.md point 5):
every variant draws each job's (size, request, run) from a real Feb-5 Jun job of its fitted class
(as gen.py's emp-shape-sameload) and only the arrival process changes.
Variants:
  base          gen.py emp-shape-sameload: fitted (smoothed) band profile x one monthly multiplier, Poisson
  rawprof       (i)   each band's raw hour-of-week rate from the log (jobs / hours of exposure), no smoothing
  bandmonth     (ii)  fitted band profile x each band's own monthly multiplier (fit's rule per band: Jun = 1)
  raw+bandmonth (i)+(ii)
  exact-band    (iii) the log's exact count per (band, calendar hour); uniform within the hour; class within band
                      drawn by the class's share of the band's jobs  [= (i)+(ii)+exact counts]
  rawprof-class (iv)  each class (size range x band) its own raw hour-of-week rate, one monthly multiplier
  rawcls+bandmonth (iv)+(ii) with per-class... (per-class profile x its band's monthly multiplier)
  exact-class   exact count per (class, calendar hour): the log's own hours, shapes resampled within class
  exact-perm    the log's own jobs' hours, shapes permuted within class (no replacement)
  exact-permmonth as exact-perm, but shapes permuted within (class, calendar month)
  log-hour      the log's own jobs, each uniform within its own hour (only the warm-up is generated)
  date-own/date-perm/date-iid[-month]: each real job of a class on a random date (of the period, or of its month)
                with its own weekday and hour; shape its own / permuted within class / drawn iid from the class
  multi-base / multi-class / multi-band: as base / rawprof-class / rawprof but each class (band) gets exactly the
                log's count of jobs in the test period (hours drawn by the same rate; conditional Poisson)
  nomonth / classmonth / workmonth: fitted band profiles, Poisson; months all 1 / each class's own monthly
                multipliers (fit's rule per class) / one multiplier from work (size x run) per day instead of jobs per day
  rawcls+classmonth: each class's raw profile x its own monthly multipliers, Poisson
  suffix +nomonth: every month multiplier 1 (e.g. rawprof+nomonth, rawprof-class+nomonth, multi-base+nomonth)
  suffix -logwarm: warm-up = the log's own jobs submitted 20-31 Jan instead of Poisson
Warm-up (20-31 Jan) of every non-base variant: Poisson at the variant's profile with multiplier 1.
Usage: python3 gen2.py FITTED(febjun).toml NSEEDS variant ...   -> OUT/gen2.csv (appended), summary on stdout"""
import csv, math, os, random, statistics, sys, tomllib
from datetime import datetime, timedelta
import swflib as S
import gen as G
from run import CLASSES, RULES

MEAS0, MEAS1, START = G.MEAS0, G.MEAS1, G.START


def poisson(rng, lam):
    n, p, L = 0, rng.random(), math.exp(-lam)
    acc = L
    while p > acc:
        n += 1; L *= lam / n; acc += L
    return n


def hour_of(j):
    lt = S.local(j[1]).replace(tzinfo=None)
    return lt.replace(minute=0, second=0, microsecond=0)


def setup(scn, pools):
    """per class: band, test-period jobs; raw profiles; monthly multipliers."""
    names = [c["name"] for c in scn["background"]["classes"]]
    band = {n: int(n.rsplit("-r", 1)[1]) for n in names}
    hours = []
    t = START
    while t < MEAS1:
        hours.append(t); t += timedelta(hours=1)
    meas = [h for h in hours if h >= MEAS0]
    expo = [0] * 168
    for h in meas:
        expo[h.weekday() * 24 + h.hour] += 1
    def rawprof(jobs):
        cnt = [0] * 168
        for j in jobs:
            h = hour_of(j); cnt[h.weekday() * 24 + h.hour] += 1
        r = [c / e if e else 0 for c, e in zip(cnt, expo)]
        m = sum(r) / 168
        return [x / m for x in r]
    bands = sorted(set(band.values()))
    bjobs = {b: [j for n in names if band[n] == b for j in pools[n]] for b in bands}
    rawp_band = {b: rawprof(bjobs[b]) for b in bands}
    rawp_class = {n: rawprof(pools[n]) for n in names}
    # monthly: jobs per day in the month / the band's mean (months with >= 14 days; else 1), as fit does
    days = {}
    for h in meas:
        days.setdefault(h.month, set()).add(h.date())
    tot_days = sum(len(v) for v in days.values())
    def months(jobs):
        c = {}
        for j in jobs:
            c[hour_of(j).month] = c.get(hour_of(j).month, 0) + 1
        mean = len(jobs) / tot_days
        return {m: (c.get(m, 0) / len(d) / mean if len(d) >= 14 else 1.0) for m, d in days.items()}
    month_band = {b: months(bjobs[b]) for b in bands}
    month_class = {n: months(pools[n]) for n in names}
    # shared multiplier by work (processor-seconds) per day instead of jobs per day
    allj = [j for n in names for j in pools[n]]
    wm = {}
    for j in allj:
        wm[hour_of(j).month] = wm.get(hour_of(j).month, 0) + j[3] * j[4]
    wmean = sum(wm.values()) / tot_days
    month_work = {m: (wm.get(m, 0) / len(d) / wmean if len(d) >= 14 else 1.0) for m, d in days.items()}
    # exact counts per (key, calendar hour)
    exact_band = {b: {} for b in bands}
    exact_class = {n: {} for n in names}
    for n in names:
        for j in pools[n]:
            h = hour_of(j)
            exact_band[band[n]][h] = exact_band[band[n]].get(h, 0) + 1
            exact_class[n][h] = exact_class[n].get(h, 0) + 1
    return dict(warm=[j for j in LOGJOBS if START <= S.local(j[1]).replace(tzinfo=None) < MEAS0],
                names=names, band=band, hours=hours, rawp_band=rawp_band, rawp_class=rawp_class,
                month_band=month_band, month_class=month_class, month_work=month_work, exact_band=exact_band, exact_class=exact_class, bands=bands)


def generate(scn, rng, variant, pools, D):
    if variant == "base":
        return G.generate(scn, rng, "emp-shape-sameload", pools)
    logwarm = variant.endswith("-logwarm")
    variant = variant.removesuffix("-logwarm")
    flat = variant.endswith("+nomonth")
    variant = variant.removesuffix("+nomonth")
    bg = scn["background"]
    season = {s["name"].split("-")[1]: s["multiplier"] for s in bg.get("seasons", [])}
    cls = {c["name"]: c for c in bg["classes"]}
    jobs = []
    def emit(h, n):
        for _ in range(n):
            t = h + timedelta(seconds=rng.randrange(3600))
            src = rng.choice(pools[n_name])
            jobs.append((S.to_submit(t), src[3], src[4], src[8]))
    for n_name in D["names"]:
        b = D["band"][n_name]
        c = cls[n_name]
        fitted = c.get("hourly_profile", bg.get("hourly_profile"))
        if variant in ("rawprof", "raw+bandmonth", "exact-band", "multi-band"):
            prof = D["rawp_band"][b]
        elif variant in ("rawprof-class", "rawcls+bandmonth", "exact-class", "multi-class", "rawcls+classmonth"):
            prof = D["rawp_class"][n_name]
        else:
            prof = fitted
        def mon(h):
            if variant == "nomonth" or flat:
                return 1.0
            if variant in ("classmonth", "rawcls+classmonth"):
                return D["month_class"][n_name].get(h.month, 1.0) if h >= MEAS0 else 1.0
            if variant == "workmonth":
                return D["month_work"].get(h.month, 1.0) if h >= MEAS0 else 1.0
            if variant in ("bandmonth", "raw+bandmonth", "rawcls+bandmonth", "exact-band", "exact-class"):
                return D["month_band"][b].get(h.month, 1.0) if h >= MEAS0 else 1.0
            return season.get(G.MON[h.month - 1], 1.0)
        mult = [prof[h.weekday() * 24 + h.hour] * mon(h) for h in D["hours"]]
        smeas = sum(m for h, m in zip(D["hours"], mult) if h >= MEAS0)
        N = len(pools[n_name])
        rate = N / smeas
        for h, m in zip(D["hours"], mult):
            if (variant.startswith("exact") or variant.startswith("date-") or variant == "log-hour") and h >= MEAS0:
                continue
            if logwarm and h < MEAS0:
                continue
            if variant.startswith("multi-") and h >= MEAS0:
                continue
            emit(h, poisson(rng, rate * m))
        if variant in ("multi-class", "multi-base"):  # exactly the log's count of the class, hours drawn by the rate
            mh = [(h, m) for h, m in zip(D["hours"], mult) if h >= MEAS0]
            for h in rng.choices([x[0] for x in mh], weights=[x[1] for x in mh], k=N):
                emit(h, 1)
    if logwarm:  # the log's own jobs submitted 20-31 Jan (local), as recorded
        for j in D["warm"]:
            jobs.append((j[1], j[3], j[4], j[8]))
    if variant in ("exact-perm", "log-hour", "exact-permmonth"):
        for n_name in D["names"]:
            shapes = [(j[3], j[4], j[8]) for j in pools[n_name]]
            if variant == "exact-perm":
                rng.shuffle(shapes)
            if variant == "exact-permmonth":  # permuted within (class, calendar month)
                bym = {}
                for i, j in enumerate(pools[n_name]):
                    bym.setdefault(hour_of(j).month, []).append(i)
                new = list(shapes)
                for idx in bym.values():
                    vals = [shapes[i] for i in idx]; rng.shuffle(vals)
                    for i, v in zip(idx, vals):
                        new[i] = v
                shapes = new
            for j, (run, size, req) in zip(pools[n_name], shapes):
                t = hour_of(j) + timedelta(seconds=rng.randrange(3600))
                jobs.append((S.to_submit(t), run, size, req))
    if variant.startswith("date-"):  # each real job on a random date with its own weekday and hour
        dates = S.period_dates(1)
        for n_name in D["names"]:
            pool = pools[n_name]
            shapes = [(j[3], j[4], j[8]) for j in pool]
            if variant.startswith("date-perm"):
                rng.shuffle(shapes)
            for j, shp in zip(pool, shapes):
                if variant.startswith("date-iid"):
                    src = rng.choice(pool); shp = (src[3], src[4], src[8])
                lt = hour_of(j)
                cands = [d for d in dates if d.weekday() == lt.weekday() and
                         (not variant.endswith("-month") or d.month == lt.month)]
                for _ in range(100):
                    d = rng.choice(cands)
                    ns = S.to_submit(datetime(d.year, d.month, d.day, lt.hour) + timedelta(seconds=rng.randrange(3600)))
                    if S.period(ns) == 1:
                        break
                jobs.append((ns, shp[0], shp[1], shp[2]))
    if variant == "multi-band":  # exactly the log's count of the band, hours by the band's raw rate, class by share
        for b in D["bands"]:
            members = [n for n in D["names"] if D["band"][n] == b]
            w = [len(pools[n]) for n in members]
            prof = D["rawp_band"][b]
            mh = [(h, prof[h.weekday() * 24 + h.hour] * season.get(G.MON[h.month - 1], 1.0)) for h in D["hours"] if h >= MEAS0]
            for h in rng.choices([x[0] for x in mh], weights=[x[1] for x in mh], k=sum(w)):
                n_name = rng.choices(members, weights=w)[0]
                emit(h, 1)
    if variant == "exact-class":
        for n_name in D["names"]:
            for h, k in D["exact_class"][n_name].items():
                emit(h, k)
    elif variant == "exact-band":
        for b in D["bands"]:
            members = [n for n in D["names"] if D["band"][n] == b]
            w = [len(pools[n]) for n in members]
            for h, k in D["exact_band"][b].items():
                for _ in range(k):
                    n_name = rng.choices(members, weights=w)[0]
                    emit(h, 1)
    jobs.sort()
    return [[i + 1, s, 0, run, size, -1, -1, size, req, -1, 1, 1, 1, -1, -1, -1, -1, -1]
            for i, (s, run, size, req) in enumerate(jobs)]


def main():
    path, nseeds = sys.argv[1], int(sys.argv[2])
    variants = sys.argv[3:]
    scn = tomllib.load(open(path, "rb"))
    global LOGJOBS
    header, logjobs = S.read()
    LOGJOBS = logjobs
    pools = G.class_pools(scn, logjobs)
    D = setup(scn, pools)
    outcsv = os.path.join(S.OUT, "gen2.csv")
    new = not os.path.exists(outcsv)
    f = open(outcsv, "a", newline=""); w = csv.writer(f)
    if new:
        w.writerow(["variant", "seed", "load", "jobs", "rules", "class", "wait_h"])
    days = (MEAS1 - MEAS0).days
    for variant in variants:
        res = {r: {c: [] for c in CLASSES} for r in RULES}
        njobs, loads = [], []
        for seed in range(1, nseeds + 1):
            rng = random.Random(seed * 7919 + len("emp-shape-sameload"))  # same stream start as gen.py's base
            jobs = generate(scn, rng, variant, pools, D)
            load, n, waits, fn = G.replay_drawn(header, jobs, f"gen2-{variant}-{seed}")
            loads.append(load)
            njobs.append(n)
            for (rules, c), wait in waits.items():
                res[rules][c].append(wait)
                w.writerow([variant, seed, f"{load:.5f}", n, rules, c, f"{wait:.4f}"])
            os.remove(fn)
            f.flush()
        print("  per seed (load, all-class wait under kth):", [(round(l, 3), round(x, 2)) for l, x in zip(loads, res["kth"]["all"])])
        print(f"{variant}: test-period jobs/day {statistics.mean(njobs) / days:.1f}, load {statistics.mean(loads):.3f} [{min(loads):.3f}-{max(loads):.3f}]")
        for rules in RULES:
            cells = [f"{statistics.mean(res[rules][c]):7.3f}±{statistics.stdev(res[rules][c]):5.2f}" for c in CLASSES]
            print(f"  {rules:17s} " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
