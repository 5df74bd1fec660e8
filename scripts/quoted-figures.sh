#!/usr/bin/env bash
# The figures README.md, README.zh.md and docs quote from runs come from here, never typed by hand.
#
#   scripts/quoted-figures.sh           regenerate every quoted block from the shipped scenarios
#   scripts/quoted-figures.sh --check   fail (exit 1) when a quoted block no longer matches a
#                                       run with the same seed and replications (CI: .ci/run)
#
# A quoted block sits between two marker lines in a Markdown file:
#   <!-- quoted:NAME (scripts/quoted-figures.sh) -->
#   ...generated text...
#   <!-- /quoted:NAME -->
# Everything between the markers is replaced; write prose outside them. A block may sit in
# any of README.md, README.zh.md and docs/*.md (the same block in several files gets the
# same text); every block below must sit in at least one of them, so a block cannot be
# lost in a move. The blocks:
#   default-decision    `burstsim run` of the embedded default (its shipped seed and
#                       replications): the decision it prints first, up to "Full tables"
#   default-table       the same run's full table and paired differences (`--verbose`)
#   default-band        the same run's sensitivity band (`--verbose`), from its heading to
#                       the files list
#   default-reading     the "Read it as" sentences (overflow-4h against campus-only): the
#                       paired cost difference with what its ± is, and single years' range
#   default-reading-zh  the same in Chinese (README.zh.md)
#   default-class       campus-only's main-training mean wait (classes.csv)
#   default-class-zh    the same in Chinese
# and the README's picture, docs/img/cost_vs_wait.png (the same run's chart; not a block).
# All come from ONE release run of the default (its sequential stopping took 20 years; a few minutes on 2
# cores with its sensitivity band), so the check stays within CI's budget.
#
# The sweeps' blocks take tens of minutes, too long for every CI run:
#   threshold-sweep  `sweep scenarios/threshold-sweep.toml --target 'wait_p95_h<=2'`
#   threshold-risk   the same with --risk 0.1 on a few thresholds and 40 replications
#   exam-season      `sweep scenarios/exam-season.toml -n 6 --target 'wait_p95_h<=2'`
# `--sweeps` runs them and writes each block with a fingerprint line: the SHA-256 of the
# command, the scenario file, the golden files (tests/golden/: any change of the engine's
# results must change them, the golden test sees to that) and the sweep code (src/sweep.rs,
# src/sweep/ and its subfolders, src/scenario/keys.rs).
# Without --sweeps the blocks are kept (as the first file holding each has it), and both
# modes fail when a fingerprint no longer matches: the block is stale, refresh it with
# `scripts/quoted-figures.sh --sweeps`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=write
sweeps=no
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --sweeps) sweeps=yes ;;
    -h | --help) sed -n 2,40p "$0"; exit 0 ;;
    *) echo "usage: scripts/quoted-figures.sh [--check] [--sweeps]" >&2; exit 2 ;;
  esac
done

# The files that may hold quoted blocks, in the order a kept block is read from.
files=()
for f in README.md README.zh.md docs/*.md; do
  if [ -f "$f" ]; then files+=("$f"); fi
done
# The file that first holds block $1 (empty when none does).
holder() {
  local f
  for f in "${files[@]}"; do
    if grep -q "^<!-- quoted:$1 " "$f"; then
      echo "$f"
      return
    fi
  done
}

# BURSTSIM_BIN: a release binary built already (skips the build), e.g. from another target folder.
if [ -n "${BURSTSIM_BIN:-}" ]; then
  bin=$BURSTSIM_BIN
else
  cargo build --release --locked --quiet
  bin=${CARGO_TARGET_DIR:-target}/release/burstsim
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run of the default as the README shows it (`burstsim run`; `--verbose` adds the full
# tables after the decision, which is the same as without it), into a scratch folder; its
# charts too, for the README's picture (a few seconds).
"$bin" run --verbose --out "$work/default" >"$work/run.txt" 2>"$work/run.err" || {
  cat "$work/run.err" >&2
  exit 1
}

# Drops trailing blank lines.
trim() { awk '{ a[NR] = $0 } END { n = NR; while (n > 0 && a[n] == "") n--; for (i = 1; i <= n; i++) print a[i] }'; }
# The parts of the verbose output: the decision ends with its "Full tables" line; the
# table starts with its header line; the band with its heading.
table_head=' per policy; mean ± 95% CI of the mean over [0-9][0-9]* years$'
band_head='^Sensitivity band: paired difference'
for part in '^Full tables' "$table_head" "$band_head"; do
  if ! grep -q "$part" "$work/run.txt"; then
    echo "the default run printed no line matching '$part': update the extraction in $0" >&2
    exit 1
  fi
done
# default-decision: what `burstsim run` prints first.
{
  echo '```text'
  awk '{ print } /^Full tables/ { exit }' "$work/run.txt"
  echo '```'
} >"$work/default-decision"
# default-table: the full table, up to the sensitivity band (or the list of files written).
{
  echo '```text'
  awk -v head="$table_head" -v band="$band_head" '
    on && ($0 ~ band || /^Files: /) { exit }
    !on && $0 ~ head { on = 1 }
    on { print }' "$work/run.txt" | trim
  echo '```'
} >"$work/default-table"
# default-band: the sensitivity band, up to the list of files written.
{
  echo '```text'
  awk -v band="$band_head" '/^Files: / { exit } $0 ~ band { on = 1 } on { print }' "$work/run.txt" | trim
  echo '```'
} >"$work/default-band"

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
years=$(csv_get "$d/summary.csv" policy=campus-only,metric=total_cost_cny replications)
p95_base=$(csv_get "$d/summary.csv" policy=campus-only,metric=wait_p95_h mean)
p95_over=$(csv_get "$d/summary.csv" policy=overflow-4h,metric=wait_p95_h mean)
more=$(awk -v c="$cost" 'BEGIN { print (c >= 0 ? "more" : "less") }')
more_zh=$(awk -v c="$cost" 'BEGIN { print (c >= 0 ? "多花" : "少花") }')
# Single years (replications.csv): overflow-4h's extra cost over campus-only on the same
# simulated year, and overflow-4h's whole bill: "lowest highest" of each.
per_year() {
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
    $(idx["policy"]) == "campus-only" { base[$(idx["replication"])] = $(idx["total_cost_cny"]) }
    $(idx["policy"]) == "overflow-4h" { over[$(idx["replication"])] = $(idx["total_cost_cny"]) }
    END {
      n = 0
      for (r in over) {
        if (!(r in base)) { print "replication " r " has no campus-only row" > "/dev/stderr"; exit 3 }
        d = over[r] - base[r]
        if (n == 0 || d < dlo) dlo = d
        if (n == 0 || d > dhi) dhi = d
        if (n == 0 || over[r] < blo) blo = over[r]
        if (n == 0 || over[r] > bhi) bhi = over[r]
        n++
      }
      if (n == 0) { print "replications.csv has no overflow-4h rows" > "/dev/stderr"; exit 3 }
      print dlo, dhi, blo, bhi
    }' "$d/replications.csv"
}
read -r diff_lo diff_hi bill_lo bill_hi <<<"$(per_year)"
# A signed amount of yuan to the nearest hundred: +¥19,100 or −¥1,200.
signed() { echo "$(awk -v v="$1" 'BEGIN { print (v < 0 ? "−" : "+") }')¥$(money "$1" 100)"; }
cat >"$work/default-reading" <<EOF
Read it as: *giving up on the campus queue whenever Slurm's own forecast says more than 4
hours of waiting costs this group about ¥$(money "$cost" 100) a year $more (± ¥$(money "$cost_hw" 100): the 95% confidence
interval of the mean over $years simulated years) and cuts its p95 wait (the mean of each
simulated year's 95th percentile) from $(fixed "$p95_base" 1) h to $(fixed "$p95_over" 2) h.* A single year varies more
than the mean: over those $years years the extra cost ranged from $(signed "$diff_lo") to $(signed "$diff_hi"),
and overflow-4h's whole bill from ¥$(money "$bill_lo" 100) to ¥$(money "$bill_hi" 100) (\`replications.csv\` has every year).
EOF
# Chinese paragraphs stay on one line: a line break between two Chinese characters shows
# as a space in a browser.
cat >"$work/default-reading-zh" <<EOF
解读：*只要 Slurm 自身的预测显示要排队 4 小时以上就改用云端，本组每年约$more_zh ¥$(money "$cost" 100)（± ¥$(money "$cost_hw" 100)，是 $years 个模拟年份平均值的 95% 置信区间），第95百分位等待时间（各模拟年份第95百分位的平均值）从 $(fixed "$p95_base" 1) 小时降到 $(fixed "$p95_over" 2) 小时*。单个年份的波动比平均值大：这 $years 个年份中，每年多出的费用在 $(signed "$diff_lo") 到 $(signed "$diff_hi") 之间，overflow-4h 的全年总费用在 ¥$(money "$bill_lo" 100) 到 ¥$(money "$bill_hi" 100) 之间（逐年数据见 \`replications.csv\`）。
EOF

class_mean=$(csv_get "$d/classes.csv" policy=campus-only,class=main-training,metric=wait_mean_h mean)
class_lo=$(csv_get "$d/classes.csv" policy=campus-only,class=main-training,metric=wait_mean_h ci95_low)
class_hw=$(fixed "$(awk -v m="$class_mean" -v l="$class_lo" 'BEGIN { print m - l }')" 0)
group_mean=$(csv_get "$d/summary.csv" policy=campus-only,metric=wait_mean_h mean)
ratio=$(fixed "$(awk -v a="$class_mean" -v b="$group_mean" 'BEGIN { print a / b }')" 1)
cat >"$work/default-class" <<EOF
\`--by-class\` adds the same figures per job class: the group's 4–8 GPU \`main-training\`
jobs wait $(fixed "$class_mean" 0) h on average on campus-only (± $class_hw h, the 95% CI of the mean over $years years), ${ratio}× the group's mean (\`classes.csv\`).
EOF
cat >"$work/default-class-zh" <<EOF
加 \`--by-class\` 可按作业类型给出同样的数字：本组 4–8 卡的 \`main-training\` 作业在 campus-only 下平均等待 $(fixed "$class_mean" 0) 小时（± $class_hw 小时，$years 年平均值的 95% 置信区间），是本组平均等待的 ${ratio} 倍（\`classes.csv\`）。
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
    from=$(holder "$name")
    if [ -z "$from" ]; then
      echo "no file holds the quoted block '$name' (looked in: ${files[*]})" >&2
      exit 1
    fi
    awk -v name="$name" '$0 ~ "^<!-- quoted:" name " " { inside = 1; next } $0 == "<!-- /quoted:" name " -->" { inside = 0 } inside' "$from" >"$work/$name"
    have=$(sed -n '1s/^<!-- fingerprint \([0-9a-f]*\):.*/\1/p' "$work/$name")
    if [ "$have" != "$want" ]; then
      echo "$from's quoted block '$name' is stale: its fingerprint is '${have:-none}', today's inputs give $want" >&2
      echo "  (the scenario, the golden files or the sweep code changed since it was made)" >&2
      status=1
    fi
  fi
done

# Every block made above sits in some file: a block lost in a move fails here.
for name in default-decision default-table default-band default-reading default-reading-zh default-class default-class-zh "${sweep_blocks[@]}"; do
  if [ -z "$(holder "$name")" ]; then
    echo "no file holds the quoted block '$name' (looked in: ${files[*]})" >&2
    status=1
  fi
done

# Replaces (write) or compares (check) each block of each file.
for file in "${files[@]}"; do
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
# The README's picture, docs/img/cost_vs_wait.png: the same run's cost-against-wait chart,
# byte for byte (the charts are deterministic: same scenario, same bytes).
picture=docs/img/cost_vs_wait.png
if ! cmp -s "$work/default/charts/cost_vs_wait.png" "$picture"; then
  if [ "$mode" = write ]; then
    cp "$work/default/charts/cost_vs_wait.png" "$picture"
    echo "updated $picture"
  else
    echo "$picture is not the chart of a run of the shipped default (an older default, or the charts changed)" >&2
    status=1
  fi
fi

if [ "$status" -ne 0 ]; then
  echo "If the change of figures is intended, refresh them with: scripts/quoted-figures.sh (add --sweeps for a stale sweep block; then review and commit)" >&2
elif [ "$mode" = check ]; then
  echo "quoted figures match the shipped scenarios"
fi
exit "$status"
