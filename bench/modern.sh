#!/usr/bin/env bash
# Beyond the papers: today's Java I/O next to C, side by side in one run per point, each
# repetition a fresh fork of every approach in turn (so a busy spell of a shared machine touches
# every approach alike), at 1 and 2 ranks, -b 256MiB -t 4MiB, in both views (page cache;
# -e --drop-cache, storage) and both byte orders. Prints each approach's median MiB/s and its
# ratios to c-posix (the limit of pure I/O) and c-swap (C converting a typed array), and whether
# the targets are met (bench/modern_summary.py, which holds them): bulk-jni, nio-bulk, ffm and
# ffm-pread at 0.95 x c-swap; with little-endian files, which need no conversion on x86, nio-bulk,
# ffm and ffm-pread at 0.95 x c-posix; then at how many points each target was met.
#
#   bench/modern.sh [REPETITIONS]     (default 5; needs `make build`)
# A JDK 22 or newer runs the ranks where one is installed (ffm needs it); JAVA=/path/to/java
# chooses another.
# KEEP=DIR copies each run's file (its JSON) into DIR, e.g. KEEP=docs/runs/modern.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
reps=${1:-5}
java=${JAVA:-$(ls -d /usr/lib/jvm/temurin-2[2-9]-jdk-*/bin/java /usr/lib/jvm/java-2[2-9]-openjdk-*/bin/java \
  2>/dev/null | head -n 1 || true)}
java=${java:-java}
ffm=""
"$java" -XshowSettings:properties -version 2>&1 | grep -q 'java.specification.version = 2[2-9]' && ffm=,ffm,ffm-pread
loads=()
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-modern.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=()
for order in big little; do
  approaches=c-posix,c-swap,bulk-jni,nio-bulk,nio-heap,mmap$ffm,raw-bytes
  [ "$order" = big ] && approaches+=,encode-decode
  for view in "" "-e --drop-cache"; do
    for ranks in 1 2; do
      loads+=("$(cut -d ' ' -f 1 /proc/loadavg)")
      out=$("$home/bin/jiobench" run -n "$ranks" --java "$java" -- -a "$approaches" -b 256MiB -t 4MiB \
        --forks "$reps" -i 1 --byte-order "$order" $view -o "$work/bench.dat" --results "$work/results")
      runs+=("$(tail -n 1 <<<"$out")")
      keep . "${runs[-1]}"
    done
  done
done
"$home/.venv/bin/python" "$home/bench/modern_summary.py" "${runs[@]}"
echo "1-minute load average of this machine before each run: ${loads[*]}"
