"""Per variant: mean load, mean waits (kth, kth-maxtime-only; <=4h, 4-15h, >15h, all) over seeds, and each
wait adjusted to a common load (0.731, the log's test-period load) with the slope pooled within variants
(ANCOVA; se = the variant's own residual sd / sqrt(n), plus the pooled slope's uncertainty). Usage: python3 analyze.py out/gen2.csv [X0]"""
import csv, math, statistics as st, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
X0 = float(sys.argv[2]) if len(sys.argv) > 2 else 0.731
order = []
d = defaultdict(dict)  # (variant, rules, class) -> {seed: (load, wait)}
for r in rows:
    if r["variant"] not in order: order.append(r["variant"])
    d[(r["variant"], r["rules"], r["class"])][int(r["seed"])] = (float(r["load"]), float(r["wait_h"]))
RULES = ["kth", "kth-maxtime-only"]; CL = ["<=4h", "4-15h", ">15h", "all"]
def pooled(rules, c):
    sxy = sxx = 0.0; res = []; n = 0
    for v in order:
        pts = list(d[(v, rules, c)].values()); x = [p[0] for p in pts]; y = [p[1] for p in pts]
        mx, my = st.mean(x), st.mean(y)
        sxy += sum((a - mx) * (b - my) for a, b in zip(x, y)); sxx += sum((a - mx) ** 2 for a in x)
    b = sxy / sxx
    for v in order:
        pts = list(d[(v, rules, c)].values()); x = [p[0] for p in pts]; y = [p[1] for p in pts]
        mx, my = st.mean(x), st.mean(y)
        res += [(yy - my - b * (xx - mx)) for xx, yy in zip(x, y)]; n += len(x)
    s2 = sum(e * e for e in res) / (n - len(order) - 1)
    return b, s2, sxx
print(f"loads adjusted to {X0}; slope pooled within variants; ± = 1.96 se of the adjusted mean\n")
for rules in RULES:
    slopes = {c: pooled(rules, c) for c in CL}
    print(f"## {rules}  (pooled slope, h per +0.01 load: " + ", ".join(f"{c} {slopes[c][0]/100:.2f}" for c in CL) + ")")
    print("| variant | n | load | " + " | ".join(f"{c} raw (sd)" for c in CL) + " | " + " | ".join(f"{c} @{X0}" for c in CL) + " |")
    print("|---" * (3 + 2 * len(CL)) + "|")
    for v in order:
        raw, adj = [], []
        for c in CL:
            pts = list(d[(v, rules, c)].values()); x = [p[0] for p in pts]; y = [p[1] for p in pts]
            b, s2, sxx = slopes[c]
            mx, my = st.mean(x), st.mean(y)
            r = [yy - my - b * (xx - mx) for xx, yy in zip(x, y)]
            s2v = sum(e * e for e in r) / (len(x) - 1)  # this variant's residual variance about the pooled slope
            a = my + b * (X0 - mx); se = math.sqrt(s2v / len(x) + (mx - X0) ** 2 * s2 / sxx)
            raw.append(f"{my:.2f} ({st.stdev(y):.2f})"); adj.append(f"{a:.2f} ± {1.96*se:.2f}")
        print(f"| {v} | {len(x)} | {mx:.3f} | " + " | ".join(raw) + " | " + " | ".join(adj) + " |")
    print()
# per-variant own slope (as loadreg.py), kth all
print("per-variant own slope (loadreg.py's method), kth, all classes:")
for v in order:
    pts = list(d[(v, "kth", "all")].values()); x = [p[0] for p in pts]; y = [p[1] for p in pts]
    mx, my = st.mean(x), st.mean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    if sxx < 1e-12:
        print(f"  {v:18s} load {mx:.3f} (fixed) wait {my:.2f}"); continue
    b = sum((a - mx) * (c - my) for a, c in zip(x, y)) / sxx
    print(f"  {v:18s} load {mx:.3f} [{min(x):.3f}-{max(x):.3f}] wait {my:.2f}; slope {b/100:.2f} h per 0.01; at {X0}: {my + b*(X0-mx):.2f}")
