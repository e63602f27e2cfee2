#!/usr/bin/env bash
# The transfer array on the JVM's heap: c-swap beside the in-place approaches (bulk-jni, and
# ffm-pread on a JDK 22+) at 1 rank, -b 512MiB -t 4MiB, page-cache view, one run per heap set-up:
# G1 by ergonomics (4 MiB regions below about 8 GiB of heap, which makes a 4 MiB array humongous),
# G1 with 16 MiB regions, both with little-endian files too (nothing to swap, where c-swap is
# c-posix), -XX:+AlwaysPreTouch, the Parallel collector, -t 64KiB, and JDK 17. Prints each run's
# medians with ratios to c-swap of the same run (docs/jvm-heap.md). About 4 minutes.
#
#   bench/heap.sh [FORKS]     (default 3 forks of 3 measured repetitions; needs `make build`)
#   KEEP=docs/runs/heap bench/heap.sh     copies each run's file (its JSON) into KEEP, for the docs
# JAVA and JAVA17 choose the two JDKs (bench/jdks.sh: by default a JDK 22 or newer and JDK 17 from
# /usr/lib/jvm).
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
forks=${1:-3}
. "$home/bench/jdks.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-heap.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=()
# JVM, JVM options, -t, the file's byte order: one run each.
setups=("$java||4MiB|big" "$java|-XX:G1HeapRegionSize=16m|4MiB|big" "$java||4MiB|little"
  "$java|-XX:G1HeapRegionSize=16m|4MiB|little" "$java|-XX:+AlwaysPreTouch|4MiB|big"
  "$java|-XX:+UseParallelGC|4MiB|big" "$java||64KiB|big" "$java17||4MiB|big")
[ -n "$java" ] || setups=("${setups[@]:7}")
for setup in "${setups[@]}"; do
  IFS='|' read -r jvm options transfer order <<<"$setup"
  approaches=c-swap,bulk-jni
  "$jvm" -XshowSettings:properties -version 2>&1 | grep -q 'java.specification.version = 2[2-9]' \
    && approaches+=,ffm-pread
  out=$("$home/bin/jiobench" run -n 1 --java "$jvm" ${options:+--jvm-args="$options"} -- -a "$approaches" \
    -b 512MiB -t "$transfer" --byte-order "$order" --forks "$forks" -i 3 -o "$work/heap.dat" --results "$work/results")
  runs+=("$(tail -n 1 <<<"$out")")
  keep . "${runs[-1]}"
done
"$home/.venv/bin/python" "$home/bench/heap.py" "${runs[@]}"
