#!/usr/bin/env bash
# Why an in-place read into a humongous Java array runs slow: the kernel's own copy between the
# page cache and user memory (rep movsb on x86 processors with fast string moves), timed in C by
# how far the destination lies past the source modulo 4 KiB. A G1 humongous array starts 16
# bytes past a page boundary; a file offset's page-cache bytes at the offset modulo 4 KiB.
# Prints median MiB/s per lead with the ratio to a lead of 0, its 95% interval from the passes and
# its verdict (docs/jvm-heap.md). About 10 s. The measuring needs a plain python3 alone, the table
# jiobench's statistics: the project's virtualenv.
#
#   bench/copy-alignment.sh [DIR]     (DIR: where the result is written; default a temporary one)
#   KEEP=docs/runs/copy-alignment bench/copy-alignment.sh     keeps the result for the docs
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-copy-alignment.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=${KEEP:-$work}
mkdir -p "$out"
gcc -O2 -Wall -Wextra -o "$work/copy_alignment" "$home/bench/copy_alignment.c"
result="$out/copy-alignment-$(date -u +%Y%m%d-%H%M%S).json"
scratch=${SCRATCH:-$home/scratch}
mkdir -p "$scratch"
python3 "$home/bench/copy_alignment.py" measure "$work/copy_alignment" "$scratch/copy-alignment.dat" "$result"
"$home/.venv/bin/python" "$home/bench/copy_alignment.py" table "$result"
