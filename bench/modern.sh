#!/usr/bin/env bash
# Beyond the papers: today's Java I/O next to C, side by side in one run per point, each
# repetition a fresh fork of every approach in turn (so a busy spell of a shared machine touches
# every approach alike), at 1 and 2 ranks, -b 256MiB -t 4MiB, in both views (page cache, with
# -s 4; -e --drop-cache, storage) and both byte orders on a JDK 22 or newer, and big-endian on JDK 17.
# Prints each approach's median MiB/s and its ratios to c-posix (the limit of pure I/O) and c-swap
# (C converting a typed array), and whether the targets are met: bulk-jni, ffm-pread, nio-bulk and
# ffm at 0.95 x c-swap; with little-endian files, which need no conversion on x86, ffm-pread,
# nio-bulk and ffm at 0.95 x c-posix; on JDK 17, bulk-jni and nio-bulk at 0.95 x c-swap.
#
#   bench/modern.sh [FORKS]     (default 3 forks of 5 measured repetitions; needs `make build`)
#   KEEP=docs/runs/modern-1 bench/modern.sh     copies each run's file (its JSON) into KEEP, for the docs
# JAVA (default: a JDK 22 or newer in /usr/lib/jvm, where one is installed) and JAVA17 choose the
# two JDKs. JVM_ARGS (default -XX:G1HeapRegionSize=16m, which keeps the 4 MiB transfer array an
# ordinary object rather than a humongous one: docs/jvm-heap.md) go to every rank's JVM.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
forks=${1:-3}
. "$home/bench/jdks.sh"
jvm_args=${JVM_ARGS--XX:G1HeapRegionSize=16m}
loads=()
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-modern.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One JDK and byte order at 1 and 2 ranks in both views: JAVA ORDER APPROACHES
runs=()
points() {
  local jvm=$1 order=$2 approaches=$3 view ranks out
  # The page cache moves 256 MiB in 15-20 ms, which jiobench itself calls too short to time well:
  # there the block layout repeats 4 times (-s 4), so that a phase lasts 60 ms and more.
  for view in "-s 4" "-e --drop-cache"; do
    for ranks in 1 2; do
      loads+=("$(cut -d ' ' -f 1 /proc/loadavg)")
      out=$("$home/bin/jiobench" run -n "$ranks" --java "$jvm" ${jvm_args:+--jvm-args="$jvm_args"} -- \
        -a "$approaches" -b 256MiB -t 4MiB --forks "$forks" -i 5 --byte-order "$order" $view \
        -o "$work/bench.dat" --results "$work/results")
      runs+=("$(tail -n 1 <<<"$out")")
      keep . "${runs[-1]}"
    done
  done
}

jdk17=c-posix,c-swap,bulk-jni,nio-bulk,nio-heap,mmap,raw-bytes
if [ -n "$java" ]; then
  points "$java" big "$jdk17,ffm,ffm-pread,encode-decode"
  points "$java" little "$jdk17,ffm,ffm-pread"
fi
points "$java17" big "$jdk17,encode-decode"
# Each run's ratios and targets, then each target's tally over all points (bench/modern_summary.py holds the targets).
"$home/.venv/bin/python" "$home/bench/modern_summary.py" "${runs[@]}"
echo "1-minute load average of this machine before each run: ${loads[*]}"
