#!/usr/bin/env bash
# The same approaches on the local ext4 and on a private GlusterFS volume (4 bricks, 4 MB shards,
# scripts/gluster-volume.sh), in both views (page cache; storage: -e and --drop-cache), at 1 and 2
# ranks, one run each, repetitions interleaving the approaches. Prints medians and ratios to
# c-posix on each file system, then writes `jiobench report --compare` of the two into DIR.
#
#   bench/cluster-fs.sh [REPETITIONS] [DIR]   (default 5 and ./cluster-fs; needs `make build` and
#                                              `make test-deps`, which installs GlusterFS; root)
# KEEP=DIR copies each run's file (its JSON) into DIR/ext4 or DIR/glusterfs, e.g. KEEP=docs/runs/cluster-fs.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
reps=${1:-5}
out=$(realpath -m "${2:-cluster-fs}")
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-cluster-fs.XXXXXX")
volume="$work/volume"
trap '"$home/scripts/gluster-volume.sh" stop "$volume" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$home/scripts/gluster-volume.sh" start "$volume" >/dev/null
mkdir -p "$work/ext4"
approaches=c-posix,raw-bytes,bulk-jni,encode-decode
runs=()
for fs in ext4 glusterfs; do
  target="$work/ext4"
  [ "$fs" = glusterfs ] && target="$volume/mnt"
  for view in "" "-e --drop-cache"; do
    for ranks in 1 2; do
      result=$("$home/bin/jiobench" run -n "$ranks" -- -a "$approaches" -b 256MiB -t 4MiB -i "$reps" $view \
        -o "$target/bench.dat" --results "$out/$fs")
      runs+=("$fs:$(tail -n 1 <<<"$result")")
      keep "$fs" "${runs[-1]#*:}"
    done
  done
done
for entry in "${runs[@]}"; do
  echo "${entry%%:*}:"
  "$home/.venv/bin/python" "$home/bench/ratios.py" --reference c-posix "${entry#*:}"
done
"$home/bin/jiobench" report --compare "$out/ext4" "$out/glusterfs" -o "$out/compare"
