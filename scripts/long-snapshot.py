#!/usr/bin/env python3
"""A long snapshot for timing `burstsim advise` (docs/PERFORMANCE.md, "advise on long queues"):
usage: long-snapshot.py N DIR writes DIR/sinfo.txt (32 nodes x 8 GPUs) and DIR/squeue.txt
(248 GPUs running, N pending jobs of 1-8 GPUs, limits 1-48 h), seed 1."""
import random, sys
n = int(sys.argv[1]); out = sys.argv[2]
import os; os.makedirs(out, exist_ok=True)
random.seed(1)
T = 1764687600
with open(f"{out}/sinfo.txt", "w") as f:
    for i in range(32):
        f.write(f"n{i}|mixed|64|gpu:8|gpu*\n")
with open(f"{out}/squeue.txt", "w") as f:
    f.write(f"# taken_at {T}\n")
    used = 0; jid = 1
    while used < 248:
        g = random.choice([1,2,4,8]); g = min(g, 256-used)
        lim = random.choice([60, 240, 720, 1440, 2880]); el = random.randint(0, lim-1)
        f.write(f"{jid}|RUNNING|gpu|a|u|100|{T-el*60}|{T-el*60}|{lim}|{el}|1|gres:gpu:{g}\n"); used += g; jid += 1
    for k in range(n):
        g = random.choice([1,2,4,8]); lim = random.choice([60, 240, 720, 1440, 2880])
        f.write(f"{jid}|PENDING|gpu|a|u|{random.randint(1,10000)}|{T-random.randint(1,86400)}|N/A|{lim}|0:00|1|gres:gpu:{g}\n"); jid += 1
