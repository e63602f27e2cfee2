#!/usr/bin/env bash
# The piece-size measurement behind the defaults of c-swap (--c-swap.piece-size), bulk-jni
# (--bulk-jni.chunk-size, and --bulk-jni.in-place auto against no), nio-bulk, ffm and ffm-pread:
# one run per rank count, piece size and in-place choice, -b 512MiB -t 4MiB, page-cache view,
# big-endian (the byte order that converts), c-posix in every run as the control, in two rounds
# (the second in the reverse order of sizes, so a slow spell does not fall on one size). Prints
# medians of the repetitions of both rounds and each size's ratio to 1 MiB with its 95% interval,
# c-posix's row the control (bench/pieces.py).
#
#   bench/pieces.sh [REPETITIONS] [RANKS...]     (default 5, ranks 1 2; needs `make build`)
#   KEEP=docs/runs/pieces bench/pieces.sh        copies each run's file (its JSON) into KEEP, for the docs
# A JDK 22 or newer runs the ranks where one is installed (ffm, and reads in place, need it);
# JAVA=/path/to/java chooses another. JVM_ARGS (default -XX:G1HeapRegionSize=16m, so that the 4 MiB
# array is an ordinary object and not a humongous one: docs/jvm-heap.md) go to every rank's JVM.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
reps=${1:-5}
shift || true
ranks_list=("${@:-1 2}")
. "$home/bench/jdks.sh"
java=${java:-java}
approaches=c-posix,c-swap,bulk-jni,nio-bulk
"$java" -XshowSettings:properties -version 2>&1 | grep -q 'java.specification.version = 2[2-9]' \
  && approaches+=,ffm,ffm-pread
jvm_args=${JVM_ARGS--XX:G1HeapRegionSize=16m}
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-pieces.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=()
for round in forward reverse; do
  sizes=(256KiB 1MiB 4MiB)
  [ "$round" = reverse ] && sizes=(4MiB 1MiB 256KiB)
  for ranks in ${ranks_list[*]}; do
    for size in "${sizes[@]}"; do
      for in_place in auto no; do
        chosen=$approaches
        [ "$in_place" = no ] && chosen=c-posix,bulk-jni
        out=$("$home/bin/jiobench" run -n "$ranks" --java "$java" ${jvm_args:+--jvm-args="$jvm_args"} -- \
          -a "$chosen" -b 512MiB -t 4MiB -i "$reps" \
          --c-swap.piece-size "$size" --bulk-jni.chunk-size "$size" --bulk-jni.in-place "$in_place" \
          --nio-bulk.piece-size "$size" --ffm.piece-size "$size" --ffm-pread.piece-size "$size" \
          -o "$work/bench.dat" --results "$work/results")
        runs+=("$(tail -n 1 <<<"$out")")
        keep . "${runs[-1]}"
      done
    done
  done
done
"$home/.venv/bin/python" "$home/bench/pieces.py" "${runs[@]}"
