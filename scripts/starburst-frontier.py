#!/usr/bin/env python3
"""Constant vs compute-proportional campus-wait limits along the cost-wait frontier.

Reads the two sweep folders of scenarios/starburst.toml (docs/POLICIES.md gives the
commands) and prints the tables of docs/POLICIES.md:

  1. both frontiers, point by point (mean and 95% CI of each headline metric, and the
     main-training class's waits from each point's classes.csv);
  2. paired comparisons at equal mean wait, equal mean turnaround (JCT) and equal p95 wait:
     in every replication, each policy's (metric, cost) curve is interpolated linearly
     between sweep points to the target level, and the difference is taken in that
     replication (common random numbers: both policies saw the same simulated year); the
     CI is Student's t over the replications;
  3. the main-training class, paired the same way: its waits at equal overall mean wait,
     and each policy's cost at equal main-training mean wait. Sweep points keep no
     per-replication class results, so these come from one run of every swept value as a
     policy of its own (`scenario` below; `run --shard 0/1` keeps class_replications.csv).
     The run's per-replication costs must equal the sweeps' (common random numbers): the
     script checks that they do.

It also draws the frontier chart (SVG). Python 3 standard library only; no tuning: the
swept values and the target levels are round numbers, the levels inside the range both
frontiers span.

    python3 scripts/starburst-frontier.py scenario > output/starburst-frontier.toml
    python3 scripts/starburst-frontier.py tables output/starburst-T output/starburst-k \
        output/starburst-frontier/shard-0-of-1 --svg docs/img/starburst-frontier.svg
"""

import argparse
import csv
import math
import os
import statistics

CONSTANT, PROPORTIONAL, MAIN = "timeout", "starburst", "main-training"
# The swept values (docs/POLICIES.md gives the same lists to `burstsim sweep --param`).
T_VALUES = "0,0.25,0.5,1,2,4,8,12,16,24,36,48,72,96,inf"
K_VALUES = "0,0.005,0.01,0.02,0.05,0.1,0.2,0.35,0.5,1,2,3,5,10,inf"


# ---- statistics ----------------------------------------------------------------------


def betacf(a, b, x):
    """Continued fraction of the regularized incomplete beta (Numerical Recipes)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > 1e-300 else 1e-300
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > 1e-300 else 1e-300
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def betai(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def t_quantile(p, df):
    """The p-quantile (p > 0.5) of Student's t with df degrees of freedom, by bisection."""

    def cdf(t):
        return 1.0 - 0.5 * betai(df / 2.0, 0.5, df / (df + t * t))

    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def mean_ci(xs):
    """Mean and 95% CI half-width (Student's t)."""
    n = len(xs)
    m = statistics.fmean(xs)
    if n < 2:
        return m, float("nan")
    return m, t_quantile(0.975, n - 1) * statistics.stdev(xs) / math.sqrt(n)


# ---- reading sweep folders -----------------------------------------------------------


def number(s):
    return float(s) if s not in ("", None) else float("nan")


class Sweep:
    """One sweep folder: per point, the swept value, per-replication rows and class rows."""

    def __init__(self, folder, policy):
        self.policy = policy
        self.points = []
        pdir = os.path.join(folder, "points")
        for name in sorted(os.listdir(pdir)):
            d = os.path.join(pdir, name)
            values = {}
            for line in open(os.path.join(d, "point.toml")):
                k, _, v = line.partition("=")
                values[k.strip()] = v.strip().strip('"')
            value = number(values["values"].split("=", 1)[1])
            reps = {}
            for r in csv.DictReader(open(os.path.join(d, "replications.csv"))):
                reps.setdefault(r["policy"], []).append({k: number(v) for k, v in r.items() if k not in ("policy", "unstable")})
            summary = {}
            for r in csv.DictReader(open(os.path.join(d, "summary.csv"))):
                summary[(r["policy"], r["metric"])] = (number(r["mean"]), number(r["ci95_low"]), number(r["ci95_high"]))
            classes = {}
            for r in csv.DictReader(open(os.path.join(d, "classes.csv"))):
                classes[(r["policy"], r["class"], r["metric"])] = (
                    number(r["mean"]),
                    number(r["ci95_low"]),
                    number(r["ci95_high"]),
                )
            self.points.append({"value": value, "reps": reps, "summary": summary, "classes": classes})
        self.points.sort(key=lambda p: p["value"])

    def rep(self, i, r, metric):
        return self.points[i]["reps"][self.policy][r][metric]

    def n_reps(self):
        return len(self.points[0]["reps"][self.policy])

    def stat(self, i, metric, policy=None):
        return self.points[i]["summary"][(policy or self.policy, metric)]

    def cls(self, i, cls, metric):
        return self.points[i]["classes"][(self.policy, cls, metric)]


def interpolate(xs, ys, x):
    """y at x along the polyline (xs, ys) in point order: the first segment that brackets x."""
    for i in range(len(xs) - 1):
        a, b = xs[i], xs[i + 1]
        if min(a, b) <= x <= max(a, b):
            if a == b:
                return ys[i]
            return ys[i] + (ys[i + 1] - ys[i]) * (x - a) / (b - a)
    return None


# ---- tables --------------------------------------------------------------------------


def pm(stat, digits):
    m, lo, hi = stat
    if math.isnan(lo):
        return f"{m:,.{digits}f}"
    return f"{m:,.{digits}f} ± {(hi - lo) / 2:,.{digits}f}"


def frontier_table(sw, label):
    print(f"| {label} | total cost (CNY/yr) | cloud cost (CNY/yr) | mean wait (h) | p95 wait (h) | mean JCT (h) | cloud jobs (%) | main-training mean wait (h) | main-training p95 wait (h) | main-training deadline miss (%) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, p in enumerate(sw.points):
        v = p["value"]
        share = sw.stat(i, "cloud_job_share")
        miss = sw.cls(i, MAIN, "deadline_miss_rate")
        print(
            f"| {'inf' if math.isinf(v) else f'{v:g}'} | {pm(sw.stat(i, 'total_cost_cny'), 0)} | {pm(sw.stat(i, 'cloud_cost_cny'), 0)} "
            f"| {pm(sw.stat(i, 'wait_mean_h'), 2)} | {pm(sw.stat(i, 'wait_p95_h'), 1)} | {pm(sw.stat(i, 'turnaround_mean_h'), 2)} "
            f"| {pm(tuple(100 * x for x in share), 1)} | {pm(sw.cls(i, MAIN, 'wait_mean_h'), 1)} | {pm(sw.cls(i, MAIN, 'wait_p95_h'), 1)} "
            f"| {pm(tuple(100 * x for x in miss), 1)} |"
        )
    print()


class Multi:
    """One `run --shard 0/1` of every swept value as a policy: per-replication results of
    each policy, overall (replications.csv) and per class (class_replications.csv)."""

    def __init__(self, folder):
        self.rows = {}
        for r in csv.DictReader(open(os.path.join(folder, "replications.csv"))):
            self.rows.setdefault(r["policy"], {})[int(r["replication"])] = {
                k: number(v) for k, v in r.items() if k not in ("policy", "unstable")
            }
        self.cls = {}
        for r in csv.DictReader(open(os.path.join(folder, "class_replications.csv"))):
            if r["class"] == MAIN:
                self.cls.setdefault(r["policy"], {})[int(r["replication"])] = {
                    k: number(v) for k, v in r.items() if k not in ("policy", "class")
                }

    def curve(self, prefix, values, r, metric):
        """(x per swept value) for replication r: `main:` metrics from the main-training class."""
        out = []
        for v in values.split(","):
            name = f"{prefix}-{v}"
            if metric.startswith("main:"):
                out.append(self.cls[name][r][metric[5:]])
            else:
                out.append(self.rows[name][r][metric])
        return out

    def check_against(self, sw, prefix, values):
        """The run's per-replication costs and waits equal the sweep's, point by point."""
        worst = 0.0
        for i, v in enumerate(values.split(",")):
            for r in range(sw.n_reps()):
                for m in ("total_cost_cny", "wait_mean_h"):
                    a, b = self.rows[f"{prefix}-{v}"][r][m], sw.rep(i, r, m)
                    worst = max(worst, abs(a - b) / max(abs(b), 1e-9))
        return worst


def paired_levels(multi, metric_x, levels, label, cols):
    """Per replication, each policy's value of every column at the level of metric_x
    (linear between swept values); the third cell of a column is the paired difference
    (proportional − constant) or, for kind "saved", 100 × (1 − proportional / constant).
    A replication whose curve does not reach the level is left out (the count says so)."""
    n = len(next(iter(multi.rows.values())))
    head = []
    for c, _, _, kind in cols:
        third = "saved by proportional (%)" if kind == "saved" else "difference (proportional − constant)"
        head.append(f"{c}, constant | {c}, proportional | {third}")
    print(f"| equal {label} | " + " | ".join(head) + " | replications |")
    print("|---:|" + "---:|" * (3 * len(cols)) + "---:|")
    for level in levels:
        cells = {c: ([], [], []) for c, _, _, _ in cols}
        used = 0
        for r in range(n):
            got = []
            for c, y, scale, kind in cols:
                a = interpolate(multi.curve("T", T_VALUES, r, metric_x), multi.curve("T", T_VALUES, r, y), level)
                b = interpolate(multi.curve("k", K_VALUES, r, metric_x), multi.curve("k", K_VALUES, r, y), level)
                if a is None or b is None or math.isnan(a) or math.isnan(b) or (kind == "saved" and a <= 0):
                    break
                third = 100.0 * (1.0 - b / a) if kind == "saved" else (b - a) * scale
                got.append((c, a * scale, b * scale, third))
            else:
                used += 1
                for c, a, b, third in got:
                    cells[c][0].append(a)
                    cells[c][1].append(b)
                    cells[c][2].append(third)
        row = [f"{level:g}"]
        for c, y, _, kind in cols:
            d = 0 if "cost" in y else 1
            for j, xs in enumerate(cells[c]):
                dd = 1 if (j == 2 and kind == "saved") else d
                row.append("{:,.{d}f} ± {:,.{d}f}".format(*mean_ci(xs), d=dd) if len(xs) > 1 else "–")
        print("| " + " | ".join(row) + f" | {used} |")
    print()


CLOUD_SAVED = ("cloud cost (CNY/yr)", "cloud_cost_cny", 1, "saved")
TOTAL_DIFF = ("total cost (CNY/yr)", "total_cost_cny", 1, "diff")


def overall_tables(multi):
    print("At equal mean wait of all the group's jobs:\n")
    paired_levels(multi, "wait_mean_h", [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0], "mean wait (h)", [CLOUD_SAVED, TOTAL_DIFF])
    print("At equal mean turnaround (JCT) of all the group's jobs:\n")
    paired_levels(multi, "turnaround_mean_h", [5.25, 5.5, 6.0, 6.5, 7.0, 7.5], "mean JCT (h)", [CLOUD_SAVED, TOTAL_DIFF])
    print("At equal p95 wait of all the group's jobs:\n")
    paired_levels(multi, "wait_p95_h", [1, 2, 4, 8, 12, 16, 24], "p95 wait (h)", [CLOUD_SAVED, TOTAL_DIFF])
    print("At equal cloud cost (Starburst's other reading: how much longer are jobs?):\n")
    paired_levels(
        multi,
        "cloud_cost_cny",
        [5000, 10000, 20000, 30000, 40000, 50000],
        "cloud cost (CNY/yr)",
        [("mean JCT (h)", "turnaround_mean_h", 1, "diff"), ("main-training mean JCT (h)", "main:turnaround_mean_h", 1, "diff")],
    )


def main_class_tables(multi):
    print("Waits of the main-training class at equal mean wait of all the group's jobs:\n")
    paired_levels(
        multi,
        "wait_mean_h",
        [0.25, 0.5, 1.0, 2.0, 3.0],
        "mean wait, all jobs (h)",
        [
            ("main-training mean wait (h)", "main:wait_mean_h", 1, "diff"),
            ("main-training p95 wait (h)", "main:wait_p95_h", 1, "diff"),
            ("main-training deadline miss (%)", "main:deadline_miss_rate", 100, "diff"),
        ],
    )
    print("Costs at equal mean wait of the main-training class:\n")
    paired_levels(
        multi,
        "main:wait_mean_h",
        [1, 2, 4, 6, 8, 10],
        "main-training mean wait (h)",
        [TOTAL_DIFF, ("cloud cost (CNY/yr)", "cloud_cost_cny", 1, "diff"), ("mean wait, all jobs (h)", "wait_mean_h", 1, "diff")],
    )
    print("Costs at equal p95 wait of the main-training class:\n")
    paired_levels(
        multi,
        "main:wait_p95_h",
        [4, 8, 12, 24, 36, 48],
        "main-training p95 wait (h)",
        [TOTAL_DIFF, ("cloud cost (CNY/yr)", "cloud_cost_cny", 1, "diff")],
    )


def scenario_text():
    """scenarios/starburst.toml with every swept value of both limits as a policy."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "..", "scenarios", "starburst.toml")).read()
    text = text[: text.index("[[policies]]")]
    text = text.replace('name = "starburst"', 'name = "starburst-frontier"', 1)
    out = [text, '[[policies]]\nname = "campus-only"\nkind = "campus-only"\n']
    offers = 'offers = ["rtx4090-hourly", "a800-hourly"]'
    for v in T_VALUES.split(","):
        out.append(f'\n[[policies]]\nname = "T-{v}"\nkind = "overflow-timeout"\nthreshold_hours = {v}\n{offers}\n')
    for v in K_VALUES.split(","):
        out.append(f'\n[[policies]]\nname = "k-{v}"\nkind = "overflow-timeout"\ntimeout_per_gpu_hour = {v}\n{offers}\n')
    return "".join(out)


# ---- chart ---------------------------------------------------------------------------


def nice_ticks(lo, hi, n=5):
    """Round tick values covering [lo, hi]."""
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks, t = [], first
    while t <= hi + 1e-9 * step:
        ticks.append(t)
        t += step
    return ticks


def svg_chart(T, K, path):
    panels = [
        ("Total cost vs mean wait, all group jobs", lambda sw, i: sw.stat(i, "wait_mean_h"), "mean wait (h)", "total_cost_cny", True),
        ("Total cost vs p95 wait, all group jobs", lambda sw, i: sw.stat(i, "wait_p95_h"), "p95 wait (h)", "total_cost_cny", True),
        ("Cloud cost vs mean JCT (Starburst's axes)", lambda sw, i: sw.stat(i, "turnaround_mean_h"), "mean turnaround (h)", "cloud_cost_cny", False),
        ("Total cost vs main-training mean wait", lambda sw, i: sw.cls(i, MAIN, "wait_mean_h"), "main-training mean wait (h)", "total_cost_cny", True),
        ("Total cost vs main-training p95 wait", lambda sw, i: sw.cls(i, MAIN, "wait_p95_h"), "main-training p95 wait (h)", "total_cost_cny", True),
        ("Cloud cost vs main-training deadline misses", lambda sw, i: tuple(100 * x for x in sw.cls(i, MAIN, "deadline_miss_rate")), "main-training jobs past their deadline (%)", "cloud_cost_cny", True),
    ]
    colours = {CONSTANT: "#D55E00", PROPORTIONAL: "#009E73"}
    names = {CONSTANT: "constant limit T (h)", PROPORTIONAL: "proportional: k × GPUs × requested h"}
    pw, ph, cols = 420, 300, 3
    W, H = 80 + cols * (pw + 110), 90 + 2 * (ph + 110)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, sans-serif" font-size="13">']
    out.append(f'<rect width="{W}" height="{H}" fill="white"/>')
    out.append(f'<text x="20" y="30" font-size="18">scenarios/starburst.toml: constant vs compute-proportional campus-wait limits (mean ± 95% CI, {T.n_reps()} replications per point)</text>')
    for n, (title, xf, xlabel, ymetric, x_from_zero) in enumerate(panels):
        ox, oy = 90 + (n % cols) * (pw + 110), 85 + (n // cols) * (ph + 110)
        pts = {sw.policy: [(xf(sw, i), sw.stat(i, ymetric), sw.points[i]["value"]) for i in range(len(sw.points))] for sw in (T, K)}
        allx = [x for v in pts.values() for p in v for x in p[0] if not math.isnan(x)]
        ally = [y for v in pts.values() for p in v for y in p[1] if not math.isnan(y)]
        xt = nice_ticks(0.0 if x_from_zero else min(allx), max(allx))
        yt = nice_ticks(0.0 if ymetric == "cloud_cost_cny" else min(ally), max(ally))
        x0, x1, y0, y1 = xt[0], max(xt[-1], max(allx)), yt[0], max(yt[-1], max(ally))
        sx = lambda x: ox + (x - x0) / (x1 - x0) * pw
        sy = lambda y: oy + ph - (y - y0) / (y1 - y0) * ph
        out.append(f'<text x="{ox}" y="{oy - 12}" font-size="15">{title}</text>')
        for xv in xt:
            out.append(f'<line x1="{sx(xv):.1f}" y1="{oy}" x2="{sx(xv):.1f}" y2="{oy + ph}" stroke="#e3e3e3"/>')
            out.append(f'<text x="{sx(xv):.1f}" y="{oy + ph + 18}" text-anchor="middle">{xv:g}</text>')
        for yv in yt:
            out.append(f'<line x1="{ox}" y1="{sy(yv):.1f}" x2="{ox + pw}" y2="{sy(yv):.1f}" stroke="#e3e3e3"/>')
            out.append(f'<text x="{ox - 6}" y="{sy(yv) + 4:.1f}" text-anchor="end">{yv / 1000:,.0f}k</text>')
        out.append(f'<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
        out.append(f'<text x="{ox + pw / 2}" y="{oy + ph + 40}" text-anchor="middle">{xlabel}</text>')
        ylabel = "total cost (CNY/yr)" if ymetric == "total_cost_cny" else "cloud cost (CNY/yr)"
        out.append(f'<text transform="translate({ox - 58},{oy + ph / 2}) rotate(-90)" text-anchor="middle">{ylabel}</text>')
        for pol, v in pts.items():
            c = colours[pol]
            line = " ".join(f"{sx(x[0]):.1f},{sy(y[0]):.1f}" for x, y, _ in v)
            out.append(f'<polyline points="{line}" fill="none" stroke="{c}" stroke-width="2"/>')
            for x, y, val in v:
                if not math.isnan(x[1]):
                    out.append(f'<line x1="{sx(x[1]):.1f}" y1="{sy(y[0]):.1f}" x2="{sx(x[2]):.1f}" y2="{sy(y[0]):.1f}" stroke="{c}" opacity="0.5"/>')
                if not math.isnan(y[1]):
                    out.append(f'<line x1="{sx(x[0]):.1f}" y1="{sy(y[1]):.1f}" x2="{sx(x[0]):.1f}" y2="{sy(y[2]):.1f}" stroke="{c}" opacity="0.5"/>')
                out.append(f'<circle cx="{sx(x[0]):.1f}" cy="{sy(y[0]):.1f}" r="3.5" fill="{c}"/>')
                if n == 0:
                    label = "inf" if math.isinf(val) else f"{val:g}"
                    out.append(f'<text x="{sx(x[0]) + 5:.1f}" y="{sy(y[0]) - 5:.1f}" font-size="10" fill="{c}">{label}</text>')
        if n == 1:
            for j, pol in enumerate((CONSTANT, PROPORTIONAL)):
                ly = oy + 20 + 20 * j
                out.append(f'<line x1="{ox + pw - 295}" y1="{ly}" x2="{ox + pw - 270}" y2="{ly}" stroke="{colours[pol]}" stroke-width="3"/>')
                out.append(f'<text x="{ox + pw - 265}" y="{ly + 4}">{names[pol]}</text>')
    out.append(f'<text x="20" y="{H - 14}" font-size="11" fill="#555">Point labels (first panel): T in hours, k in hours of waiting per GPU-hour requested. Both curves share their ends: k = T = 0 (every job that waits goes to the cloud) and k = T = inf (campus-only). Lower left is better.</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("scenario", help="print scenarios/starburst.toml with every swept value as a policy")
    t = sub.add_parser("tables", help="print the tables of docs/POLICIES.md")
    t.add_argument("frontier_run", help="the shard folder of `run --shard 0/1` of the `scenario` output")
    t.add_argument("--sweeps", nargs=2, metavar=("CONSTANT", "PROPORTIONAL"), help="the two sweep folders: frontier tables, and a check that the run reproduces them")
    t.add_argument("--svg", help="write the frontier chart here (needs --sweeps)")
    a = ap.parse_args()
    if a.command == "scenario":
        print(scenario_text(), end="")
        return
    multi = Multi(a.frontier_run)
    if a.sweeps:
        T = Sweep(a.sweeps[0], CONSTANT)
        K = Sweep(a.sweeps[1], PROPORTIONAL)
        for sw, prefix, values in ((T, "T", T_VALUES), (K, "k", K_VALUES)):
            swept = ",".join("inf" if math.isinf(p["value"]) else f"{p['value']:g}" for p in sw.points)
            assert swept == values, f"{sw.policy}: the sweep has {swept}, the script expects {values}"
            worst = multi.check_against(sw, prefix, values)
            assert worst < 1e-9, f"the frontier run differs from the {sw.policy} sweep by {worst:.3g} (relative)"
        print("(The frontier run reproduces both sweeps replication by replication: common random numbers.)\n")
        print("### Constant limit T (policy `timeout`)\n")
        frontier_table(T, "T (h)")
        print("### Compute-proportional limit k (policy `starburst`)\n")
        frontier_table(K, "k (h per GPU-h)")
        if a.svg:
            svg_chart(T, K, a.svg)
    print("### Paired comparisons, all the group's jobs\n")
    overall_tables(multi)
    print("### The main-training class (paired)\n")
    main_class_tables(multi)


if __name__ == "__main__":
    main()
