#!/usr/bin/env bash
# Checks the artifacts of scripts/release.sh (issue 47 item 2), away from the source tree:
#
#   scripts/release-check.sh TARBALL WHEEL VERSION COMMIT
#
# - the tarball unpacks into one folder whose binary says `burstsim VERSION (commit COMMIT)`,
#   runs `run -n 2` (the built-in scenario) and `advise` on the example snapshot
#   (tests/fixtures/snapshot, docs/ADVISE.md) in a temporary folder;
# - the wheel installs (binary wheels only: nothing is compiled) into a fresh virtualenv
#   run with a PATH that has no cargo or rustc, and runs the example of docs/PYTHON.md
#   ("A worked example"); its output is compared with the one printed there (a difference
#   is reported, not fatal: the figures move when the default scenario is recalibrated).
# pip may fetch the wheel's dependencies (pandas) from the package index or its cache.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 4 ] || { echo "usage: scripts/release-check.sh TARBALL WHEEL VERSION COMMIT" >&2; exit 2; }
tarball=$(realpath "$1") wheel=$(realpath "$2") version=$3 commit=$4
repo=$PWD

say() { echo "release-check: $*" >&2; }
die() { echo "release-check: error: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# The binary, from the tarball.
name=$(basename "$tarball" .tar.gz)
tar -xzf "$tarball" -C "$work"
[ "$(ls "$work")" = "$name" ] || die "$tarball should unpack into the one folder $name, not: $(ls "$work")"
for f in burstsim LICENSE-MIT LICENSE-APACHE fonts/OFL.txt fonts/DejaVuSans-LICENSE.txt README.md scenarios/default.toml; do
  [ -e "$work/$name/$f" ] || die "$tarball has no $name/$f"
done
cd "$work/$name"
got=$(./burstsim --version)
[ "$got" = "burstsim $version (commit $commit)" ] || die "./burstsim --version says '$got', expected 'burstsim $version (commit $commit)'"
./burstsim run -n 2 --quiet --out "$work/run" >/dev/null
[ -s "$work/run/summary.csv" ] || die "run -n 2 wrote no summary.csv"
[ -s "$work/run/charts/cost_vs_wait.png" ] || die "run -n 2 drew no charts/cost_vs_wait.png"
./burstsim run -n 2 --quiet --no-sensitivity --out "$work/run-exam" scenarios/exam-season.toml >/dev/null
snap=$repo/tests/fixtures/snapshot
./burstsim advise --squeue "$snap/squeue.txt" --sinfo "$snap/sinfo.txt" --gpus 4 --walltime 2-00:00:00 \
  --runtime 30h --partition gpu --scenario scenarios/default.toml --deadline 3d --json 2>/dev/null >"$work/advise.json"
python3 - "$work/advise.json" <<'EOF' || die "advise on the example snapshot gave no recommendation"
import json, sys
answer = json.load(open(sys.argv[1]))
assert answer["choices"] and answer["recommended"] is not None, answer
EOF
say "binary: --version, run -n 2 (default and exam-season), advise on the example snapshot: ok"

# The wheel, in a fresh virtualenv with no Rust toolchain on PATH.
cd "$work"
base_python=$(python3 -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
"$base_python" -m venv "$work/venv"
clean_path=$work/venv/bin:/usr/local/bin:/usr/bin:/bin
for tool in cargo rustc; do
  if PATH=$clean_path command -v "$tool" >/dev/null; then
    die "$tool is on the clean PATH ($(PATH=$clean_path command -v "$tool")): the check would not show that the wheel needs no Rust"
  fi
done
PATH=$clean_path pip install --quiet --disable-pip-version-check --only-binary=:all: "$wheel"
PATH=$clean_path python - "$version" <<'EOF' || die "the installed wheel does not carry version $version"
import importlib.metadata, sys
import burstsim
assert burstsim.__version__ == importlib.metadata.version("burstsim") == sys.argv[1], (
    burstsim.__version__, importlib.metadata.version("burstsim"), sys.argv[1])
EOF
# The first ```python block after "## A worked example", and the ```text block after it.
sed -n '/^## A worked example/,$p' "$repo/docs/PYTHON.md" | awk '/^```python/{on=1; next} /^```/{if (on) exit} on' >example.py
sed -n '/^## A worked example/,$p' "$repo/docs/PYTHON.md" | awk '/^```text/{on=1; next} /^```/{if (on) exit} on' >expected.txt
[ -s example.py ] || die "docs/PYTHON.md has no \`\`\`python block after '## A worked example'"
PATH=$clean_path python example.py >got.txt 2>example.err || { cat example.err >&2; die "docs/PYTHON.md's example failed with the wheel"; }
[ -s output/python-56-nodes/summary.csv ] || die "docs/PYTHON.md's example wrote no output/python-56-nodes/summary.csv"
if diff -u expected.txt got.txt >example.diff; then
  say "wheel: docs/PYTHON.md's example ran and printed the output shown there"
else
  say "wheel: docs/PYTHON.md's example ran; its output differs from the one shown there:"
  cat example.diff >&2
fi
say "all checks passed in $(( $(date +%s) - start )) s"
