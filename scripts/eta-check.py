#!/usr/bin/env python3
"""How good is burstsim's ETA? (issue 21 item 4; docs/PERFORMANCE.md, "Honest progress")

Runs a burstsim command in a pseudo-terminal (so its progress bar draws), timestamps every
redraw of the bar, and compares each "… left" the bar showed once at least a tenth was
done with the time the bar really took to fill:

    scripts/eta-check.py -- ./target/release/burstsim run --no-sensitivity --no-charts --out /tmp/eta --force

A sample counts when at least --from (default 0.10) of the work is done and at least
--min-left seconds (default 10) were really left, so that the one-second resolution of
the bar does not decide the figure. Prints the share of samples whose predicted time left
is within ±30% of the real one, the median and worst relative error, and the rate the bar
showed. Exit 0 always (a measurement, not a test); the command's own exit code is printed.
"""

import argparse
import os
import pty
import re
import select
import subprocess
import sys
import time

BAR = re.compile(r"(\d+)/(\d+), ([0-9.]+)/s, ([^\r\n]*?) left")


def seconds(text):
    """Parses the bar's "45 s", "12 min 05 s", "1 h 07 min"; None for "…"."""
    m = re.fullmatch(r"(\d+) s", text)
    if m:
        return float(m[1])
    m = re.fullmatch(r"(\d+) min (\d+) s", text)
    if m:
        return 60.0 * int(m[1]) + int(m[2])
    m = re.fullmatch(r"(\d+) h (\d+) min", text)
    if m:
        return 3600.0 * int(m[1]) + 60.0 * int(m[2])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="start", type=float, default=0.10, help="share done before samples count")
    ap.add_argument("--min-left", type=float, default=10.0, help="seconds really left for a sample to count")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the burstsim command")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("give the command after --")

    master, slave = pty.openpty()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    samples, buf, filled_at = [], "", None
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536).decode("utf-8", "replace")
            except OSError:
                break
            if not chunk:
                break
            now = time.monotonic() - t0
            buf += chunk
            for m in BAR.finditer(buf):
                done, total, rate, left = int(m[1]), int(m[2]), float(m[3]), seconds(m[4])
                samples.append((now, done, total, rate, left))
                if done == total and filled_at is None:
                    filled_at = now
            buf = buf[-400:]
        elif proc.poll() is not None:
            break
    rc = proc.wait()
    end = time.monotonic() - t0
    if filled_at is None:
        filled_at = end  # the bar was cleared before it drew full: the work ended with the process
    if not samples:
        print(f"no progress bar seen (exit code {rc}); is the command quiet?")
        return
    total = samples[-1][2]
    counted = []
    for now, done, tot, _rate, left in samples:
        real = filled_at - now
        if left is None or done < a.start * tot or done >= tot or real < a.min_left:
            continue
        counted.append((done / tot, left, real, (left - real) / real))
    print(f"command: {' '.join(cmd)}")
    print(f"exit code {rc}; bar filled after {filled_at:.1f} s ({total} units), process ended after {end:.1f} s")
    last = max(samples, key=lambda x: x[1])
    print(f"rate shown at the end: {last[3]} units/s (real average {last[1] / max(filled_at, 1e-9):.3g} units/s)")
    if not counted:
        print("no sample with enough done and enough left to judge")
        return
    errs = sorted(abs(c[3]) for c in counted)
    within = sum(e <= 0.30 for e in errs)
    print(
        f"{len(counted)} samples from {a.start:.0%} done with ≥ {a.min_left:.0f} s left: "
        f"{within / len(counted):.0%} within ±30%, median |error| {errs[len(errs) // 2]:.1%}, worst {errs[-1]:.1%}"
    )
    for frac in (0.1, 0.25, 0.5, 0.75):
        near = min(counted, key=lambda c: abs(c[0] - frac))
        print(f"  at {near[0]:.0%} done: shown {near[1]:.0f} s left, really {near[2]:.1f} s ({near[3]:+.1%})")


if __name__ == "__main__":
    sys.exit(main())
