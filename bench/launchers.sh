#!/usr/bin/env bash
# One experiment through every launch path: mpi4py under mpirun, MPJ Express niodev (a JVM per
# rank, through MPJ's daemon) and MPJ Express multicore (every rank a thread of one JVM). The
# launch paths take turns, round after round, each round in another order, so a slow spell of a
# shared machine falls on all of them alike. Prints each approach's median MiB/s per launch path
# over all its measured repetitions, and the ratio to mpirun. The experiment is -a all -b 256MiB
# -t 4MiB -e with a 5 s deadline, which only the per-element and stream approaches reach.
#
#   bench/launchers.sh [RANKS] [ROUNDS] [REPETITIONS]   (default 2, 3 and 2: 6 measured reps per
#                                                        launch path; needs `make build` with MPJ Express)
#
# KEEP=DIR copies each run's file (its JSON) into DIR, e.g. KEEP=docs/runs/launchers.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
ranks=${1:-2}
rounds=${2:-3}
reps=${3:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
launchers=(mpirun mpj-niodev mpj-multicore)
runs=()
for ((round = 0; round < rounds; round++)); do
  for ((turn = 0; turn < ${#launchers[@]}; turn++)); do
    launcher=${launchers[$(((round + turn) % ${#launchers[@]}))]}
    out=$("$home/bin/jiobench" run -n "$ranks" --launcher "$launcher" -- -a all -b 256MiB -t 4MiB -e -D 5 \
      -i "$reps" -o "$work/bench.dat" --results "$work/results")
    runs+=("$(tail -n 1 <<<"$out")")
    keep . "${runs[-1]}"
  done
done
"$home/.venv/bin/python" "$home/bench/launchers.py" "${runs[@]}"
