#!/usr/bin/env python3
"""Compare ways of drawing a job's requested time with its run time, on KTH-SP2's fit period.

    scripts/request-forms.py [LOG]   # default ../shared/data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz

The measurement behind `requests` (docs/TRACES.md, "Requests and run times, together"):
the jobs submitted before 1 February 1997 (local time; the fit period of
`validate --site-rules kth --out-of-sample`), in the size classes of `burstsim fit`, each
job's request at least its run time (at least 1 s). Each form is fitted per size class and
drawn 20,000 times per class; jobs a day are the log's, scaled by the log's mean run time
over the form's (as `load_share` scales arrivals, so the work per day is the log's). Prints
jobs a day by KTH's request classes (<= 4 h, 4-15 h, > 15 h), request and run-time
percentiles, and the two-sample KS distances against the log. Python 3 standard library
only; seed 1.
"""
import bisect, datetime, gzip, math, random, sys

LOG = sys.argv[1] if len(sys.argv) > 1 else '../shared/data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz'
UNIX = 843480031  # the log's UnixStartTime
SPLIT = int(datetime.datetime(1997, 1, 31, 23, tzinfo=datetime.timezone.utc).timestamp())  # 1 Feb 00:00 CET
H = 3600
N = 20000


def read():
    jobs = []
    for line in gzip.open(LOG, 'rt'):
        if line.startswith(';') or not line.strip():
            continue
        f = line.split()
        sub, rt, procs, req = int(f[1]), int(f[3]), int(f[4]), int(f[8])
        if procs <= 0 or procs > 100 or rt < 0 or UNIX + sub >= SPLIT:
            continue
        rt = max(rt, 1)
        jobs.append((procs, rt, max(req if req > 0 else rt, rt)))
    return jobs


def size_classes(sizes):
    """As src/evidence/fit.rs: 1, 2, 3-4, 5-8, ...; buckets under max(50, 2 %) merged."""
    bucket = lambda g: 0 if g <= 1 else (g - 1).bit_length()
    counts = {}
    for g in sizes:
        counts[bucket(g)] = counts.get(bucket(g), 0) + 1
    out, pending, least = [], None, max(50, len(sizes) // 50)
    for b in sorted(counts):
        lo, hi = (1, 1) if b == 0 else ((1 << (b - 1)) + 1, 1 << b)
        start, c = pending if pending else (lo, 0)
        c += counts[b]
        if c >= least:
            out.append([start, hi])
            pending = None
        else:
            pending = (start, c)
    if pending and out:
        out[-1][1] = 10**9
    elif pending:
        out.append([1, 10**9])
    out[-1][1] = 10**9
    return out


def pct(s, p):
    h = (len(s) - 1) * p
    lo, hi = int(math.floor(h)), int(math.ceil(h))
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def quantiles(v, n):
    s = sorted(v)
    return [pct(s, i / (n - 1)) for i in range(n)]


def qf(q, u):
    """The quantile function through q (equal steps), linear between: as Requests::sample."""
    h = u * (len(q) - 1)
    i = min(int(h), len(q) - 2)
    return q[i] + (h - i) * (q[i + 1] - q[i])


def ks(a, b):
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        i = bisect.bisect_right(a, x, i)
        j = bisect.bisect_right(b, x, j)
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def klass(r):
    return 0 if r <= 4 * H else (1 if r <= 15 * H else 2)


def by_slice(pairs, key, value, rows=10, n=21):
    """Sort by key (then value), cut into `rows` equal slices, value quantiles per slice."""
    s = sorted(pairs, key=lambda p: (key(p), value(p)))
    return quantiles([key(p) for p in s], 101), [quantiles([value(p) for p in s[len(s) * k // rows:len(s) * (k + 1) // rows]], n) for k in range(rows)]


def forms(pairs):
    """Each form: a function drawing (run time, request) in seconds."""
    runtime_q = quantiles([t for t, _ in pairs], 101)
    factor_q = quantiles([min(max(r / t, 1), 1000) for t, r in pairs], 101)
    request_q = quantiles([r for _, r in pairs], 101)
    used_q = quantiles([t / r for t, r in pairs], 101)
    rt_key, rt_rows = by_slice(pairs, lambda p: p[0], lambda p: p[1] / p[0])
    rq_key, rq_rows = by_slice(pairs, lambda p: p[1], lambda p: p[0] / p[1])

    def independent():
        t = max(1, round(qf(runtime_q, random.random())))
        return t, math.ceil(t * factor_q[random.randrange(101)])  # the old empirical factor

    def runtime_first():
        u = random.random()
        t = max(1, round(qf(rt_key, u)))
        return t, math.ceil(t * qf(rt_rows[min(int(u * 10), 9)], random.random()))

    def request_then_fraction():
        r = round(qf(request_q, random.random()))
        return max(1, round(r * qf(used_q, random.random()))), r

    def request_then_fraction_by_slice():
        u = random.random()
        r = max(1, round(qf(rq_key, u)))
        return min(r, max(1, round(r * qf(rq_rows[min(int(u * 10), 9)], random.random())))), r

    return [("run time and factor independent (before)", independent),
            ("run time, then factor by run-time tenth", runtime_first),
            ("request, then used fraction independently", request_then_fraction),
            ("request, then used fraction by request tenth", request_then_fraction_by_slice)]


def report(label, pairs, per_day, log=None):
    rq = sorted(r for _, r in pairs)
    rt = sorted(t for t, _ in pairs)
    qs = [0.1, 0.25, 0.5, 0.75, 0.9, 0.99]
    line = (f"{label:<46} jobs/day {per_day[0]:5.1f} {per_day[1]:5.1f} {per_day[2]:5.1f} ({sum(per_day):5.1f})"
            f" | request p10-p99 (h) " + " ".join(f"{pct(rq, q) / H:5.2f}" for q in qs)
            + " | run time " + " ".join(f"{pct(rt, q) / H:5.2f}" for q in qs))
    if log:
        line += f" | KS request {ks(rq, log[0]):.3f} run time {ks(rt, log[1]):.3f}"
    print(line)
    return rq, rt


def main():
    random.seed(1)
    jobs = read()
    # Days from the first submission's day, as the check counts them (local midnight).
    days = 123.5
    members = [[(t, r) for g, t, r in jobs if lo <= g <= hi] for lo, hi in size_classes([g for g, _, _ in jobs])]
    log_day = [0.0, 0.0, 0.0]
    for pairs in members:
        for _, r in pairs:
            log_day[klass(r)] += 1 / days
    log = report("the log", [p for m in members for p in m], log_day)
    fitted = [forms(m) for m in members]
    for f in range(4):
        per_day, sample = [0.0, 0.0, 0.0], []
        for c, pairs in enumerate(members):
            draws = [fitted[c][f][1]() for _ in range(N)]
            scale = len(pairs) / days * (sum(t for t, _ in pairs) / len(pairs)) / (sum(t for t, _ in draws) / N)
            for _, r in draws:
                per_day[klass(r)] += scale / N
            sample += random.sample(draws, N * len(pairs) // len(jobs))
        report(fitted[0][f][0], sample, per_day, log)


if __name__ == '__main__':
    main()
