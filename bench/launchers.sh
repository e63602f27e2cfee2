#!/usr/bin/env bash
# One experiment through every launch path, one run after the other: mpi4py under mpirun, MPJ
# Express niodev (a JVM per rank, through MPJ's daemon) and MPJ Express multicore (every rank a
# thread of one JVM). Prints each approach's median MiB/s per launch path and its ratio to mpirun.
# The experiment is -a all -b 256MiB -t 4MiB -e with a 5 s deadline, which only the per-element
# approaches (data-stream, and at times the streams) reach.
#
#   bench/launchers.sh [RANKS] [REPETITIONS]     (default 2 and 5; needs `make build` with MPJ Express)
#
# RESULTS=DIR keeps the three run files there (by default they go with the scratch directory).
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
ranks=${1:-2}
reps=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=${RESULTS:-$work/results}
runs=()
for launcher in mpirun mpj-niodev mpj-multicore; do
  out=$("$home/bin/jiobench" run -n "$ranks" --launcher "$launcher" -- -a all -b 256MiB -t 4MiB -e -D 5 \
    -i "$reps" -o "$work/bench.dat" --results "$results")
  runs+=("$(tail -n 1 <<<"$out")")
done
"$home/.venv/bin/python" "$home/bench/launchers.py" "${runs[@]}"
