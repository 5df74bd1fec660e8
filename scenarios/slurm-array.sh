#!/usr/bin/env bash
# Run a burstsim sweep as a Slurm job array, then assemble the results.
#
# Each array task runs every N-th point of the sweep (points i, i+N, i+2N, …) and writes
# finished points into the shared output folder as it goes; the task that finishes the
# last point assembles sweep.csv. A MERGE=1 job (below) prints the table and the
# recommendation, and re-assembles after a resubmission. Nothing is lost if a task dies:
# resubmit the array and finished points are skipped.
#
# Usage (from the burstsim checkout, on a shared file system):
#   cargo build --release
#   sbatch --array=0-7 scenarios/slurm-array.sh scenarios/threshold-sweep.toml output/threshold-sweep
#   # when the array has finished (or chain it: sbatch --dependency=afterany:<jobid> …):
#   MERGE=1 sbatch scenarios/slurm-array.sh scenarios/threshold-sweep.toml output/threshold-sweep
#
# For one big `run` instead of a sweep, shard its replications the same way:
#   srun ./target/release/burstsim run S.toml -n 1000 --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT
#   ./target/release/burstsim merge output/<name>/shards        # byte-identical to one machine
#
#SBATCH --job-name=burstsim-sweep
#SBATCH --cpus-per-task=8            # burstsim uses every core it is given (rayon)
#SBATCH --time=02:00:00
#SBATCH --mem=4G
#SBATCH --output=burstsim-%A_%a.log
set -euo pipefail

SCENARIO=${1:?usage: slurm-array.sh SCENARIO.toml OUTPUT_DIR [extra burstsim sweep options]}
OUT=${2:?usage: slurm-array.sh SCENARIO.toml OUTPUT_DIR [extra burstsim sweep options]}
shift 2
BURSTSIM=${BURSTSIM:-./target/release/burstsim}
THREADS=${SLURM_CPUS_PER_TASK:-1}

if [[ "${MERGE:-0}" == "1" ]]; then
  # Every point is done: this only assembles sweep.csv and prints the table.
  exec "$BURSTSIM" sweep "$SCENARIO" --resume --out "$OUT" --threads "$THREADS" "$@"
fi

: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-(N-1)}"
COUNT=${SLURM_ARRAY_TASK_COUNT:-1}
exec "$BURSTSIM" sweep "$SCENARIO" --out "$OUT" --quiet --threads "$THREADS" \
  --shard "$SLURM_ARRAY_TASK_ID/$COUNT" "$@"
