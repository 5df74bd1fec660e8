"""Least-squares line of the all-class mean wait (kth) on the test period's offered load, per seed."""
import ast, re, sys, statistics
for f in sys.argv[1:]:
    for line in open(f):
        if "per seed" in line:
            pts = ast.literal_eval(line.split(":", 1)[1].strip())
            x = [p[0] for p in pts]; y = [p[1] for p in pts]
            mx, my = statistics.mean(x), statistics.mean(y)
            b = sum((a - mx) * (c - my) for a, c in zip(x, y)) / sum((a - mx) ** 2 for a in x)
            print(f"{f}: n={len(x)} mean load {mx:.3f} mean wait {my:.2f} h; slope {b:.0f} h per unit load; at 0.731: {my + b*(0.731-mx):.2f} h; at 0.720: {my + b*(0.720-mx):.2f} h")
