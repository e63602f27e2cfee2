#!/usr/bin/env bash
# Runs many tiny runs back to back and counts what could leak, before and after: open file
# descriptors (the system's), processes of jiobench (launchers, JVMs, MPI launchers), and
# temporary files (MPI session directories, jiobench's own). Every run must succeed and every
# count must come back to where it started.
#
#   bench/soak.sh [RUNS]     (default 200; needs `make build`)
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
runs=${1:-200}
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT
tmp=${TMPDIR:-/tmp}

counts() {
  local descriptors processes temporaries
  descriptors=$(cut -f1 /proc/sys/fs/file-nr)
  processes=$(pgrep -fc 'jiobench\.launch|jiobench-runner\.jar|jiobench\.cli|prterun|orted' || true)
  temporaries=$(find "$tmp" /dev/shm -maxdepth 1 \( -name 'ompi.*' -o -name 'prte.*' -o -name 'jiobench-run-*' \
    -o -name 'open_mpi.*' -o -name 'vader_segment.*' -o -name 'sm_segment.*' \) 2>/dev/null | wc -l)
  echo "$descriptors $processes $temporaries"
}

read -r fd0 proc0 tmp0 < <(counts)
failed=0
started=$SECONDS
for ((i = 1; i <= runs; i++)); do
  if ! "$home/bin/jiobench" run -n 2 -- -a raw-bytes,calibrate -b 64KiB -t 16KiB --warmup 0 --verify \
      -o "$work/f.dat" --results "$work/results" >/dev/null 2>"$work/err"; then
    failed=$((failed + 1))
    echo "run $i failed: $(cat "$work/err")" >&2
  fi
done
read -r fd1 proc1 tmp1 < <(counts)
files=$(find "$work/results" -name '*.json' | wc -l)
printf '%d runs in %d s, %d failed, %d run files\n' "$runs" $((SECONDS - started)) "$failed" "$files"
printf '%-26s %8s %8s\n' "" before after
printf '%-26s %8d %8d\n' "open descriptors (system)" "$fd0" "$fd1" "jiobench processes" "$proc0" "$proc1" \
  "temporary files" "$tmp0" "$tmp1"
[ -e "$work/f.dat" ] && echo "the last run left its file behind" && exit 1
[ "$failed" -eq 0 ] && [ "$proc1" -le "$proc0" ] && [ "$tmp1" -le "$tmp0" ]
