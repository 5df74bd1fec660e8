"""Burstiness of the log's Feb-5 Jun submissions by request class, against one E1b redraw."""
import random, statistics, swflib as S
h, jobs = S.read()
def stats(js, label):
    for c, name in [(0, "<=4h"), (1, "4-15h"), (2, ">15h"), (None, "all")]:
        sel = sorted((j for j in js if S.period(j[1]) == 1 and (c is None or S.rclass(j[8]) == c)), key=lambda j: j[1])
        gaps = [b[1] - a[1] for a, b in zip(sel, sel[1:])]
        cv = statistics.pstdev(gaps) / statistics.mean(gaps)
        last, near = {}, 0
        for j in sel:
            u = j[11]
            if u in last and j[1] - last[u] <= 60: near += 1
            last[u] = j[1]
        print(f"{label:10s} {name:6s} jobs {len(sel):6d}  CV(inter-arrival) {cv:5.2f}  share within 60 s of same user's previous {near/len(sel):.3f}")
stats(jobs, "log")
stats(S.redraw_times([list(j) for j in jobs], random.Random(1), "period"), "E1b-seed1")
