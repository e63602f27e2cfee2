#!/usr/bin/env bash
# What a rank costs as the rank count grows: the same phases (-a calibrate,c-posix -b 1MiB -t 256KiB
# -i 6 --warmup 1: 28 phases of a few ms each, so that what is between them shows) at each rank
# count on this machine, then 64 ranks on a virtual cluster of 8 nodes of 8 ranks
# (scripts/virtual-cluster.sh, ranks started by mpirun over its rsh agent). Each run's MPI traffic
# is counted by Open MPI's own monitor (bench/traffic.py) into RUN-ID.traffic.json beside its run
# file; bench/scale.py prints the table: traffic per phase, rank 0's peak memory, the time between
# a phase's last rank ending and the next phase's barrier, and the run file's sizes.
#
#   bench/scale.sh [RANKS...]     (default 1 2 4 8 16 32; CLUSTER=0 leaves out the virtual cluster,
#                                  which needs root; needs `make build`)
#
# KEEP=DIR copies each run's files (JSON, per-rank file, traffic) into DIR, e.g. KEEP=docs/runs/scale.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
python="$home/.venv/bin/python"
phases=(-a calibrate,c-posix -b 1MiB -t 256KiB -i 6 --warmup 1)
work=$(mktemp -d /tmp/jiobench-scale.XXXXXX)
chmod 755 "$work"
cluster=""
finish() {
  if [ -n "$cluster" ]; then
    timeout 120 "$home/scripts/virtual-cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
runs=()

# One run: its directory, then the words before `jiobench run`'s own (a node's shell), then its
# launcher arguments and its rank count; keeps its run file, per-rank file and traffic. 64 JVMs
# starting on 2 cores take longer than the default --start-timeout.
measure() {
  local dir=$1 on=$2 launcher_args=$3 ranks=$4
  mkdir -p "$dir"
  local out
  out=$($on "$home/bin/jiobench" run -n "$ranks" --start-timeout 600 \
    --launcher-args "$launcher_args $("$python" "$home/bench/traffic.py" --args "$dir/prof")" \
    -- "${phases[@]}" -o "$dir/scale.dat" --results "$dir/results")
  local run_file
  run_file=$(tail -n 1 <<<"$out")
  "$python" "$home/bench/traffic.py" "$dir/prof" >"${run_file%.json}.traffic.json"
  runs+=("$run_file")
  keep . "${run_file%.json}".*
}

for ranks in "${@:-1 2 4 8 16 32}"; do
  for n in $ranks; do
    measure "$work/n$n" "" "" "$n"
  done
done

if [ "${CLUSTER:-1}" != 0 ]; then
  cluster=$(mktemp -d /tmp/jiobench-scale-vc.XXXXXX)
  chmod 755 "$cluster"
  said=$(JIOBENCH_CLUSTER_CPUS=8 "$home/scripts/virtual-cluster.sh" start "$cluster" 8)
  agent=$(sed -n 's/^rsh_agent=//p' <<<"$said")
  hostfile=$(sed -n 's/^hostfile=//p' <<<"$said")
  shared=$(sed -n 's/^home=//p' <<<"$said")
  measure "$shared/n64" "$home/scripts/virtual-cluster.sh exec $cluster 1" \
    "--mca plm_rsh_agent $agent --hostfile $hostfile --map-by ppr:8:node" 64
fi

"$python" "$home/bench/scale.py" "${runs[@]}"
