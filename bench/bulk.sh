#!/usr/bin/env bash
# The bulk-I/O benchmark: c-posix, raw-bytes, bulk-jni and encode-decode side by side in one run
# per process count (each approach in a fresh JVM, one after another), at 1 and 2 ranks,
# -b 256MiB -t 4MiB.
# Two views, as docs/approaches.md's Honest numbers has them: the storage view (-e: fsync inside
# the timed write, and --drop-cache: every read comes from the disk) and the page-cache view
# (neither: what each approach costs the CPU). Prints medians of the repetitions and ratios to
# c-posix, with their 95% intervals and verdicts.
#
#   bench/bulk.sh [REPETITIONS]     (default auto: -i auto, each run's phases within TIME_BUDGET,
#                                    default 60s; a count gives that many; needs `make build`)
# KEEP=DIR copies each run's file (its JSON) into DIR, e.g. KEEP=docs/runs/bulk.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
reps=${1:-auto}
repetitions=(-i "$reps")
[ "$reps" = auto ] && repetitions+=(--time-budget "${TIME_BUDGET:-60s}")
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=()
for view in "-e --drop-cache" ""; do
  for ranks in 1 2; do
    out=$("$home/bin/jiobench" run -n "$ranks" -- -a c-posix,raw-bytes,bulk-jni,encode-decode \
      -b 256MiB -t 4MiB "${repetitions[@]}" $view -o "$work/bench.dat" --results "$work/results")
    runs+=("$(tail -n 1 <<<"$out")")
    keep . "${runs[-1]}"
  done
done
"$home/.venv/bin/python" "$home/bench/ratios.py" --reference c-posix "${runs[@]}"
