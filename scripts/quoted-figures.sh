#!/usr/bin/env bash
# The figures README.md and docs quote from runs come from here, never typed by hand.
#
#   scripts/quoted-figures.sh           regenerate every quoted block from the shipped scenarios
#   scripts/quoted-figures.sh --check   fail (exit 1) when a quoted block no longer matches a
#                                       run with the same seed and replications (CI: .ci/run)
#
# A quoted block sits between two marker lines in a Markdown file:
#   <!-- quoted:NAME (scripts/quoted-figures.sh) -->
#   ...generated text...
#   <!-- /quoted:NAME -->
# Everything between the markers is replaced; write prose outside them. The blocks:
#   default-table    README.md: `burstsim run` of the embedded default (its shipped seed and
#                    replications): the terminal table and the paired differences
#   default-reading  README.md: the "Read it as" sentence (overflow-4h against campus-only)
#   default-class    README.md: campus-only's main-training mean wait (classes.csv)
# All three come from ONE release run of the default (10 replications, a few minutes on 2
# cores with its sensitivity band), so the check stays within CI's budget.
#
# The sweeps' blocks take tens of minutes, too long for every CI run:
#   threshold-sweep  README.md: `sweep scenarios/threshold-sweep.toml --target 'wait_p95_h<=2'`
#   threshold-risk   README.md: the same with --risk 0.1 on a few thresholds and 40 replications
#   exam-season      README.md: `sweep scenarios/exam-season.toml -n 6 --target 'wait_p95_h<=2'`
# `--sweeps` runs them and writes each block with a fingerprint line: the SHA-256 of the
# command, the scenario file, the golden files (tests/golden/: any change of the engine's
# results must change them, the golden test sees to that) and the sweep code (src/sweep.rs,
# src/sweep/ and its subfolders, src/scenario/keys.rs).
# Without --sweeps the blocks are kept, and both modes fail when a fingerprint no longer
# matches: the block is stale, refresh it with `scripts/quoted-figures.sh --sweeps`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=write
sweeps=no
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --sweeps) sweeps=yes ;;
    -h | --help) sed -n 2,30p "$0"; exit 0 ;;
    *) echo "usage: scripts/quoted-figures.sh [--check] [--sweeps]" >&2; exit 2 ;;
  esac
done

# BURSTSIM_BIN: a release binary built already (skips the build), e.g. from another target folder.
if [ -n "${BURSTSIM_BIN:-}" ]; then
  bin=$BURSTSIM_BIN
else
  cargo build --release --locked --quiet
  bin=${CARGO_TARGET_DIR:-target}/release/burstsim
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run of the default, exactly as the README shows it (`burstsim run`), into a scratch folder.
"$bin" run --out "$work/default" --no-charts >"$work/run.txt" 2>"$work/run.err" || {
  cat "$work/run.err" >&2
  exit 1
}

# default-table: the terminal output up to the list of files written.
{
  echo '```text'
  sed '/^Files: /,$d' "$work/run.txt" | awk '{ a[NR] = $0 } END { n = NR; while (n > 0 && a[n] == "") n--; for (i = 1; i <= n; i++) print a[i] }'
  echo '```'
} >"$work/default-table"

# A CSV field by row match: csv_get FILE 'col1=v1,col2=v2' COLUMN (the files have no quoted commas here).
csv_get() {
  awk -F, -v want="$2" -v col="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; n = split(want, conds, ","); next }
    {
      ok = 1
      for (k = 1; k <= n; k++) { split(conds[k], kv, "="); if ($(idx[kv[1]]) != kv[2]) ok = 0 }
      if (ok) { print $(idx[col]); exit }
    }' "$1"
}
# Rounds to a multiple of $2 and groups thousands: money 19403.2 100 -> 19,400.
money() {
  awk -v v="$1" -v step="$2" 'BEGIN {
    r = int((v < 0 ? -v : v) / step + 0.5) * step; s = sprintf("%d", r); out = ""
    while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
    print s out }'
}
fixed() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.*f\n", d, v }'; }

d=$work/default
cost=$(csv_get "$d/paired.csv" policy=overflow-4h,metric=total_cost_cny mean_diff)
cost_lo=$(csv_get "$d/paired.csv" policy=overflow-4h,metric=total_cost_cny ci95_low)
cost_hw=$(awk -v m="$cost" -v l="$cost_lo" 'BEGIN { print m - l }')
p95_base=$(csv_get "$d/summary.csv" policy=campus-only,metric=wait_p95_h mean)
p95_over=$(csv_get "$d/summary.csv" policy=overflow-4h,metric=wait_p95_h mean)
more=$(awk -v c="$cost" 'BEGIN { print (c >= 0 ? "more" : "less") }')
cat >"$work/default-reading" <<EOF
Read it as: *giving up on the campus queue whenever Slurm's own forecast says more than 4
hours of waiting costs this group about ¥$(money "$cost" 100) ± $(money "$cost_hw" 100) a year $more and cuts its
p95 wait (the mean of each simulated year's 95th percentile) from $(fixed "$p95_base" 1) h to $(fixed "$p95_over" 2) h.*
EOF

class_mean=$(csv_get "$d/classes.csv" policy=campus-only,class=main-training,metric=wait_mean_h mean)
class_lo=$(csv_get "$d/classes.csv" policy=campus-only,class=main-training,metric=wait_mean_h ci95_low)
group_mean=$(csv_get "$d/summary.csv" policy=campus-only,metric=wait_mean_h mean)
cat >"$work/default-class" <<EOF
\`--by-class\` adds the same figures per job class: the group's 4–8 GPU \`main-training\`
jobs wait $(fixed "$class_mean" 0) ± $(fixed "$(awk -v m="$class_mean" -v l="$class_lo" 'BEGIN { print m - l }')" 0) h on average on campus-only, $(fixed "$(awk -v a="$class_mean" -v b="$group_mean" 'BEGIN { print a / b }')" 1)× the group's mean (\`classes.csv\`).
EOF

# The sweeps' blocks: NAME, then the command's arguments after `burstsim`.
sweep_blocks=(threshold-sweep threshold-risk exam-season)
sweep_args() {
  case "$1" in
    threshold-sweep) echo "sweep scenarios/threshold-sweep.toml --target wait_p95_h<=2" ;;
    threshold-risk) echo "sweep scenarios/threshold-sweep.toml -n 40 --param policies.overflow.threshold_hours=4,8,12,16,20 --target wait_p95_h<=2 --risk 0.1" ;;
    exam-season) echo "sweep scenarios/exam-season.toml -n 6 --target wait_p95_h<=2" ;;
  esac
}
fingerprint() {
  local scenario
  scenario=$(sweep_args "$1" | awk '{ print $2 }')
  # The sweep code with its subfolders, and the dotted keys it sets (src/scenario/keys.rs).
  { sweep_args "$1"; cat "$scenario" tests/golden/* src/scenario/keys.rs $(find src/sweep.rs src/sweep -name '*.rs' | LC_ALL=C sort); } \
    | sha256sum | cut -c1-16
}
status=0
for name in "${sweep_blocks[@]}"; do
  want=$(fingerprint "$name")
  if [ "$sweeps" = yes ]; then
    read -r -a args <<<"$(sweep_args "$name")"
    echo "running: burstsim ${args[*]} (minutes)" >&2
    "$bin" "${args[@]}" --out "$work/sweep-$name" --no-charts >"$work/$name.txt" 2>"$work/$name.err" || {
      cat "$work/$name.err" >&2
      exit 1
    }
    {
      echo "<!-- fingerprint $want: burstsim $(sweep_args "$name") -->"
      echo '```text'
      # The table's first rows and the whole recommendation; the full table is in sweep.csv.
      awk '/^Files: / { next } /^Recommendation|^Decisions/ { rec = 1 } rec { print; next } { n++; if (n <= 8) print; else if (n == 9) print "  … (the other points: sweep.csv)" }' "$work/$name.txt" |
        awk '{ a[NR] = $0 } END { n = NR; while (n > 0 && a[n] == "") n--; for (i = 1; i <= n; i++) print a[i] }'
      echo '```'
    } >"$work/$name"
  else
    # Keep the block as it is; check that it was made from today's inputs.
    awk -v name="$name" '$0 ~ "^<!-- quoted:" name " " { inside = 1; next } $0 == "<!-- /quoted:" name " -->" { inside = 0 } inside' README.md >"$work/$name"
    have=$(sed -n '1s/^<!-- fingerprint \([0-9a-f]*\):.*/\1/p' "$work/$name")
    if [ "$have" != "$want" ]; then
      echo "README.md's quoted block '$name' is stale: its fingerprint is '${have:-none}', today's inputs give $want" >&2
      echo "  (the scenario, the golden files or the sweep code changed since it was made)" >&2
      status=1
    fi
  fi
done

# Replaces (write) or compares (check) each block of each file.
for file in README.md docs/*.md; do
  grep -q '<!-- quoted:' "$file" || continue
  out=$work/$(basename "$file").new
  awk -v dir="$work" '
    match($0, /^<!-- quoted:[a-z0-9-]+ /) {
      name = substr($0, 13, RLENGTH - 13); print; inside = name
      path = dir "/" name
      if ((getline line < path) <= 0) { print "unknown quoted block: " name > "/dev/stderr"; exit 3 }
      print line; while ((getline line < path) > 0) print line; close(path); next
    }
    inside != "" && $0 == "<!-- /quoted:" inside " -->" { inside = ""; print; next }
    inside == "" { print }
    END { if (inside != "") { print "block " inside " has no end marker" > "/dev/stderr"; exit 3 } }
  ' "$file" >"$out"
  if cmp -s "$file" "$out"; then
    continue
  fi
  if [ "$mode" = write ]; then
    cp "$out" "$file"
    echo "updated $file"
  else
    echo "quoted figures in $file no longer match a run of the shipped scenarios (same seed and replications):" >&2
    diff -u "$file" "$out" >&2 || true
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "If the change of figures is intended, refresh them with: scripts/quoted-figures.sh (add --sweeps for a stale sweep block; then review and commit)" >&2
elif [ "$mode" = check ]; then
  echo "quoted figures match the shipped scenarios"
fi
exit "$status"
