"""Read/modify/write the KTH-SP2 SWF log for the site-rules diagnosis (no burstsim changes).

Periods (local Europe/Stockholm time, as burstsim's site-rules replay):
  P0 sep-jan: submitted before 1997-02-01 00:00
  P1 feb-jun5: 1997-02-01 .. before 1997-06-06 00:00
  P2 after: untouched by every transformation (the rules replay leaves them out anyway)
"""
import gzip, os, random, re
from datetime import datetime, timedelta, date
from zoneinfo import ZoneInfo

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TRACE = os.environ.get("KTH_TRACE", os.path.join(ROOT, "..", "shared", "data", "traces", "pwa-kth-sp2", "KTH-SP2-1996-2.1-cln.swf.gz"))
OUT = os.path.join(ROOT, "target", "kth-decompose")
FITTED = os.path.join(OUT, "fitted-sepjan.toml")
TZ = ZoneInfo("Europe/Stockholm")
UNIX_START = 843480031
FEB1 = datetime(1997, 2, 1, tzinfo=TZ).timestamp() - UNIX_START
JUN6 = datetime(1997, 6, 6, tzinfo=TZ).timestamp() - UNIX_START

# request bands of the fit (hours, upper bounds), from fitted-sepjan.toml
BANDS_H = [1.16667, 4, 8.33333, 14.5, 14.8333, 20, 40, float("inf")]


def read(path=TRACE):
    header, jobs = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                header.append(line.rstrip("\n"))
            else:
                jobs.append([int(float(x)) for x in line.split()])
    return header, jobs


def write(path, header, jobs):
    jobs = sorted(jobs, key=lambda j: (j[1], j[0]))
    with open(path, "w") as f:
        for h in header:
            f.write(h + "\n")
        for j in jobs:
            f.write(" ".join(str(x) for x in j) + "\n")


def period(submit):
    if submit < FEB1:
        return 0
    if submit < JUN6:
        return 1
    return 2


def local(submit):
    return datetime.fromtimestamp(UNIX_START + submit, TZ)


def to_submit(local_naive):
    return int(round(local_naive.replace(tzinfo=TZ).timestamp())) - UNIX_START


def rclass(req):  # burstsim's request classes
    if req <= 4 * 3600:
        return 0
    if req <= 15 * 3600:
        return 1
    return 2


def band(req):
    h = req / 3600
    for i, b in enumerate(BANDS_H):
        if h <= b + 1e-6:
            return i
    return len(BANDS_H) - 1


def _fit_size_classes(fitted=FITTED):
    """size ranges per band, from the class names of the fitted scenario (size-A-B-rK)."""
    ranges = {}
    for m in re.finditer(r'^name = "size-(\d+)(?:-(\d+))?-r(\d+)"', open(fitted).read(), re.M):
        lo = int(m.group(1)); hi = int(m.group(2) or m.group(1)); k = int(m.group(3)) - 1
        ranges.setdefault(k, []).append((lo, hi))
    return ranges


FIT_SIZES = _fit_size_classes()


def fit_class(job):
    b = band(job[8])
    p = job[4]
    for i, (lo, hi) in enumerate(FIT_SIZES[b]):
        if lo <= p <= hi:
            return (b, i)
    # sizes above the top class's upper bound (e.g. 99, 100 in r1): put in the top class
    return (b, len(FIT_SIZES[b]) - 1)


# ---------- timing transformations ----------
def period_dates(p):
    """local calendar dates of period p (0 or 1)."""
    d0 = local(0).date() if p == 0 else date(1997, 2, 1)
    d1 = date(1997, 1, 31) if p == 0 else date(1997, 6, 5)
    out, d = [], d0
    while d <= d1:
        out.append(d)
        d += timedelta(days=1)
    return out


def redraw_times(jobs, rng, mode):
    """mode: 'hour' = uniform within its own local hour (same date);
    'period' = same weekday and hour, date uniform among that weekday's dates of its period;
    'month' = the same, date among that weekday's dates of its calendar month within the period.
    The new time must stay inside the period (and after the log's start)."""
    dates = {p: period_dates(p) for p in (0, 1)}
    out = []
    for j in jobs:
        s = j[1]
        p = period(s)
        if p == 2:
            out.append(j); continue
        lt = local(s)
        if mode == "hour":
            cands = [lt.date()]
        else:
            cands = [d for d in dates[p] if d.weekday() == lt.weekday()
                     and (mode == "period" or (d.month == lt.month))]
        for _ in range(100):
            d = rng.choice(cands)
            t = datetime(d.year, d.month, d.day, lt.hour) + timedelta(seconds=rng.randrange(3600))
            ns = to_submit(t)
            if ns >= 0 and period(ns) == p:
                break
        else:
            ns = s
        k = list(j); k[1] = ns
        out.append(k)
    return out


def bursts(jobs, gap=60):
    """groups of a user's submissions each within `gap` s of the user's previous one."""
    by_user = {}
    for idx, j in enumerate(jobs):
        by_user.setdefault(j[11], []).append(idx)
    groups = []
    for u, idxs in by_user.items():
        idxs.sort(key=lambda i: jobs[i][1])
        cur = [idxs[0]]
        for a, b in zip(idxs, idxs[1:]):
            if jobs[b][1] - jobs[a][1] <= gap:
                cur.append(b)
            else:
                groups.append(cur); cur = [b]
        groups.append(cur)
    return groups


def redraw_bursts(jobs, rng, gap=60):
    """keep each user burst (submissions within `gap` s) together: the burst's first job's
    time is redrawn as in redraw_times(mode='period'), the others keep their offsets."""
    dates = {p: period_dates(p) for p in (0, 1)}
    out = [list(j) for j in jobs]
    for g in bursts(jobs, gap):
        s0 = jobs[g[0]][1]
        p = period(s0)
        if p == 2 or any(period(jobs[i][1]) != p for i in g):
            continue
        lt = local(s0)
        cands = [d for d in dates[p] if d.weekday() == lt.weekday()]
        for _ in range(100):
            d = rng.choice(cands)
            t = datetime(d.year, d.month, d.day, lt.hour) + timedelta(seconds=rng.randrange(3600))
            ns = to_submit(t)
            last = ns + (jobs[g[-1]][1] - s0)
            if ns >= 0 and period(ns) == p and period(last) == p:
                break
        else:
            ns = s0
        for i in g:
            out[i][1] = ns + (jobs[i][1] - s0)
    return out


# ---------- pairing transformations ----------
def shuffle_fields(jobs, rng, keyf, fields):
    """within each (period, keyf(job)) group, permute the tuple of `fields` among the jobs."""
    groups = {}
    for idx, j in enumerate(jobs):
        p = period(j[1])
        if p == 2:
            continue
        groups.setdefault((p, keyf(j)), []).append(idx)
    out = [list(j) for j in jobs]
    for idxs in groups.values():
        vals = [tuple(jobs[i][f] for f in fields) for i in idxs]
        rng.shuffle(vals)
        for i, v in zip(idxs, vals):
            for f, x in zip(fields, v):
                out[i][f] = x
    return out


SIZE = (4, 7)          # allocated and requested processors
REQRUN = (3, 8)        # run time and requested time


ATTRS = (3, 4, 7, 8)   # run time, size (alloc, requested), request: the job's whole shape


def bootstrap_test_period(jobs, rng, mode):
    """Replace the Feb-5 Jun jobs by jobs drawn from Sep-Jan (what a fit on Sep-Jan sees).
    mode 'jobs': each draw is one Sep-Jan job, placed at its own weekday+hour on a uniform
    date of the test period (same weekday), uniform within the hour; count = Sep-Jan's rate
    (jobs per day) x test days. mode 'weeks': each test week (Mon 00:00 local) is a whole
    random Sep-Jan week moved as is (its bursts, days, users kept)."""
    fit = [j for j in jobs if period(j[1]) == 0]
    rest = [j for j in jobs if period(j[1]) != 1]
    t0 = local(0)
    fit_days = (FEB1 - min(j[1] for j in fit)) / 86400.0  # from the first submission, as fit counts days
    tdates = period_dates(1)
    out, nid = list(rest), 10 ** 6
    if mode == "jobs":
        n = round(len(fit) / fit_days * len(tdates))
        for _ in range(n):
            j = list(rng.choice(fit))
            lt = local(j[1])
            cands = [d for d in tdates if d.weekday() == lt.weekday()]
            while True:
                d = rng.choice(cands)
                ns = to_submit(datetime(d.year, d.month, d.day, lt.hour) + timedelta(seconds=rng.randrange(3600)))
                if period(ns) == 1:
                    break
            j[1] = ns; j[0] = nid; nid += 1
            out.append(j)
    else:
        # full Sep-Jan weeks only (Mon 30 Sep 1996 .. Sun 26 Jan 1997)
        mondays = []
        d = date(1996, 9, 30)
        while d + timedelta(days=7) <= date(1997, 2, 1):
            mondays.append(d); d += timedelta(days=7)
        wk = {m: [] for m in mondays}
        for j in fit:
            ld = local(j[1]).date()
            m = ld - timedelta(days=ld.weekday())
            if m in wk:
                wk[m].append(j)
        # test weeks: Mon 27 Jan 1997 .. the week holding 5 Jun; keep only what lands in P1
        m = date(1997, 1, 27)
        while m <= date(1997, 6, 5):
            src = rng.choice(mondays)
            for j in wk[src]:
                lt = local(j[1]).replace(tzinfo=None)
                nt = lt + (datetime(m.year, m.month, m.day) - datetime(src.year, src.month, src.day))
                ns = to_submit(nt)
                if period(ns) == 1:
                    k = list(j); k[1] = ns; k[0] = nid; nid += 1
                    out.append(k)
            m += timedelta(days=7)
    return out


def test_load(jobs, procs=100):
    """offered load of the Feb-5 Jun submissions: sum(size x run) / (procs x period)."""
    w = sum(j[4] * j[3] for j in jobs if period(j[1]) == 1)
    return w / (procs * (JUN6 - FEB1))
