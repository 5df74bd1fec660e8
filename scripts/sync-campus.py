#!/usr/bin/env python3
"""Copy the default scenario's campus and background classes into the shipped scenarios.

Every shipped scenario that says it uses "the default's cluster" must run the same campus:
the Slurm node model with its accounts, priorities and background classes (issue 20: five
scenarios used to run the idealised pool under that label). This script makes that true by
text: in each scenario listed below it replaces everything from the `[campus]` line up to
the `[workload]` line (the campus, the background classes and their seasons) with the same span of scenarios/default.toml, so
comments travel with the values. tests/suite/shipped_scenarios.rs fails when a copy has drifted.

    python3 scripts/sync-campus.py          # rewrite the copies
    python3 scripts/sync-campus.py --check  # exit 1 if any copy differs (no writes)
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "scenarios"
COPIES = ["threshold-sweep", "all-policies", "exam-season", "monthly-vs-hourly", "starburst"]
START, END = "[campus]", "[workload]"


def span(lines, name):
    """The [START, END) line indices of the campus + background block of one file."""
    try:
        a = next(i for i, l in enumerate(lines) if l.strip() == START)
        b = next(i for i, l in enumerate(lines) if i > a and l.strip() == END)
    except StopIteration:
        sys.exit(f"scenarios/{name}.toml: no '{START}' … '{END}' block to replace")
    return a, b


def main():
    check = "--check" in sys.argv[1:]
    default = (ROOT / "default.toml").read_text(encoding="utf-8").splitlines(keepends=True)
    a, b = span(default, "default")
    block = default[a:b]
    drifted = []
    for name in COPIES:
        path = ROOT / f"{name}.toml"
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        x, y = span(lines, name)
        new = lines[:x] + block + lines[y:]
        if new != lines:
            drifted.append(name)
            if not check:
                path.write_text("".join(new), encoding="utf-8")
    if check and drifted:
        print("differ from scenarios/default.toml's campus: " + ", ".join(drifted) +
              " (run python3 scripts/sync-campus.py)", file=sys.stderr)
        sys.exit(1)
    print(("would update: " if check else "updated: ") + (", ".join(drifted) or "nothing"))


if __name__ == "__main__":
    main()
