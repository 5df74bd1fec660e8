#!/usr/bin/env bash
# Regenerates docs/img/cost_vs_wait.png, the example chart of the README: the built-in
# scenario's cost against 95th-percentile wait (about 10 s on 2 cores after the build).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo run --release --quiet -- run --quiet --out "$out/default"
mkdir -p docs/img
cp "$out/default/charts/cost_vs_wait.png" docs/img/cost_vs_wait.png
ls -l docs/img/cost_vs_wait.png
