"""Realised offered load per month of the test period (mean over seeds 1-5) for gen2 variants, and the log's."""
import random, sys, tomllib
from collections import defaultdict
import swflib as S, gen as G, gen2 as G2
from datetime import date, timedelta
scn = tomllib.load(open(sys.argv[1], "rb"))
header, logjobs = S.read(); G2.LOGJOBS = logjobs
pools = G.class_pools(scn, logjobs); D = G2.setup(scn, pools)
days = defaultdict(int); d = date(1997, 2, 1)
while d <= date(1997, 6, 5):
    days[d.month] += 1; d += timedelta(days=1)
def ml(jobs):
    w = defaultdict(float)
    for j in jobs:
        if S.period(j[1]) == 1:
            w[S.local(j[1]).month] += j[3] * j[4]
    return [w[m] / (days[m] * 86400 * 100) for m in sorted(days)]
print("variant            Feb    Mar    Apr    May    Jun(1-5)")
print("log               " + " ".join(f"{x:.3f}" for x in ml(logjobs)))
for v in sys.argv[2:]:
    acc = [0] * 5
    for seed in range(1, 6):
        rng = random.Random(seed * 7919 + len("emp-shape-sameload"))
        for i, x in enumerate(ml(G2.generate(scn, rng, v, pools, D))):
            acc[i] += x / 5
    print(f"{v:17s} " + " ".join(f"{x:.3f}" for x in acc))
