#!/usr/bin/env bash
# Xu and Guo's Java I/O experiments on this machine: the four preset sweeps (jiobench sweep
# --preset xu-guo-opsize, -buffer, -random, -jni; docs/sweep.md) one after another with --here,
# each with its report (DIR/PRESET/report/report.html, the paper's figure first), then their
# headline comparisons as ratios of medians measured side by side, beside the paper's figures.
# About eight minutes on 2 cores.
#
#   bench/xu-guo.sh [DIR]     (default: ./xu-guo, which must not exist; needs `make build`)
# KEEP=DIR copies each sweep's manifest and run files (its JSON) into DIR/PRESET and DIR/PRESET/results,
# e.g. KEEP=docs/runs/xu-guo; bench/xu_guo.py reads them as it reads the sweeps.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
dir=${1:-xu-guo}
if [ -e "$dir" ]; then
  echo "bench/xu-guo.sh: $dir exists: give a directory to create" >&2
  exit 2
fi
mkdir -p "$dir"
loads=()
for preset in opsize buffer random jni; do
  loads+=("$(cut -d ' ' -f 1 /proc/loadavg)")
  started=$SECONDS
  if ! "$home/bin/jiobench" sweep --dir "$dir/$preset" --preset "xu-guo-$preset" --here >"$dir/$preset.log" 2>&1
  then
    tail -n 20 "$dir/$preset.log" >&2
    exit 1
  fi
  echo "xu-guo-$preset: $((SECONDS - started)) s; $dir/$preset/report/report.html"
  keep "$preset" "$dir/$preset/sweep.json"
  keep "$preset/results" "$dir/$preset"/results/*.json
done
echo
"$home/.venv/bin/python" "$home/bench/xu_guo.py" "$dir"
echo "1-minute load average of this machine before each sweep: ${loads[*]}"
