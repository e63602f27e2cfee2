#!/usr/bin/env bash
# Two campaigns on cluster file systems of this machine, each a run per point, every approach of
# a run in a fresh JVM after the one before:
#
# views: the same approaches on the local ext4 and on a private GlusterFS volume (4 bricks, 4 MB
#   shards, scripts/gluster-volume.sh), in both views (page cache; storage: -e and --drop-cache),
#   at 1 and 2 ranks. Prints medians and ratios to c-posix on each file system, then writes
#   `jiobench report --compare` of the two into DIR.
# striping: the paper's approaches and c-posix in the storage view on that GlusterFS volume and on
#   a private CephFS (3 OSDs, scripts/ceph-volume.sh) whose file is laid out in 1, 2 and 3 stripes
#   of 1 MiB, at 1, 2 and 4 ranks, verified. Prints them side by side (bench/striping.py).
#
#   bench/cluster-fs.sh [REPETITIONS] [DIR]   (default 6 and ./cluster-fs; needs `make build` and
#                                              `make test-deps`, which installs GlusterFS and Ceph; root)
# PARTS="views striping" (the default) chooses the campaigns. KEEP=DIR copies each run's file (its
# JSON) into DIR/ext4 or DIR/glusterfs (views), DIR/striping/glusterfs or DIR/striping/cephfs-N
# (striping), e.g. KEEP=docs/runs/cluster-fs.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
reps=${1:-6}
out=$(realpath -m "${2:-cluster-fs}")
parts=${PARTS:-views striping}
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-cluster-fs.XXXXXX")
volume="$work/volume"
cephfs="$work/cephfs"
trap '"$home/scripts/gluster-volume.sh" stop "$volume" >/dev/null 2>&1 || true
      "$home/scripts/ceph-volume.sh" stop "$cephfs" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$home/scripts/gluster-volume.sh" start "$volume" >/dev/null

views() {
  mkdir -p "$work/ext4"
  local approaches=c-posix,raw-bytes,bulk-jni,encode-decode runs=() fs target view ranks result entry
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
}

# -D 1 ends data-stream's phases (an int per FUSE round trip: kB/s); the others finish 16 MiB a
# rank well within it.
striping() {
  "$home/scripts/ceph-volume.sh" start "$cephfs" --osds 3 >/dev/null
  local common=(-a paper,c-posix -b 16MiB -t 1MiB -D 1 -e --drop-cache --verify --warmup 1 -i "$reps")
  local point ranks count result
  for point in glusterfs cephfs-1 cephfs-2 cephfs-3; do
    for ranks in 1 2 4; do
      if [ "$point" = glusterfs ]; then
        result=$("$home/bin/jiobench" run -n "$ranks" -- "${common[@]}" -o "$volume/mnt/striped.dat" \
          --results "$out/striping/$point")
      else
        count=${point#cephfs-}
        result=$(CEPH_CONF="$cephfs/ceph.conf" "$home/bin/jiobench" run -n "$ranks" -- "${common[@]}" \
          --stripe-count "$count" --stripe-size 1MiB -o "$cephfs/mnt/striped.dat" --results "$out/striping/$point")
      fi
      keep "striping/$point" "$(tail -n 1 <<<"$result")"
    done
  done
  "$home/.venv/bin/python" "$home/bench/striping.py" "$out/striping"
}

for part in $parts; do
  case "$part" in views|striping) "$part" ;; *) echo "cluster-fs.sh: no part '$part' (views, striping)" >&2; exit 2 ;; esac
done
