#!/usr/bin/env bash
# Bonachea, Dickens and Thakur's scaling experiment (their Figure 2: each approach's aggregate
# bandwidth against the process count) on a cluster file system: a virtual cluster of 3 nodes on
# this machine (scripts/virtual-cluster.sh: Slurm, a GlusterFS volume with a brick per node), and
# a sweep per tasks-per-node value (1, 2, 4) over 1, 2 and 3 nodes, each sweep's points the steps
# of one Slurm allocation; the test file on the volume, the sweeps on the cluster's shared home.
# Every point runs the paper's approaches and c-posix in the storage view (-e, and --drop-cache:
# each read goes through its node's GlusterFS client to the bricks, among which the volume spreads
# the file's shards; -C: each rank reads a block written on another node, where there is one),
# every byte checked (--verify), each phase cut 1 s after its barrier (-D 1: data-stream makes a
# FUSE round trip per int), -i auto: at least 6 measured repetitions of each approach, more where
# its interval is wide, within 40 s of phases a point. A sweep whose points did not all complete
# has them run again once (--resume). Then the report of the three sweeps together (DIR/report: bandwidth
# against the process count) and bench/nodes.py's table. The cluster is stopped at the end,
# whatever happened. 9 minutes on 2 cores.
#
#   bench/nodes.sh [DIR]     (default: ./nodes, which must not exist; needs `make build`,
#                             scripts/debian-packages.sh test, and root)
# KEEP=DIR copies each sweep's manifest and run files (its JSON) into DIR/tasks-per-node-K and
# DIR/tasks-per-node-K/results, e.g. KEEP=docs/runs/nodes; bench/nodes.py and `jiobench report`
# read them as they read the sweeps.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
dir=${1:-nodes}
if [ -e "$dir" ]; then
  echo "bench/nodes.sh: $dir exists: give a directory to create" >&2
  exit 2
fi
dir=$(realpath -m "$dir")
mkdir -p "$dir"
vc="$home/scripts/virtual-cluster.sh"
# Under /tmp and short: the daemons' unix socket paths lie under it.
cluster=$(mktemp -d /tmp/jiobench-nodes.XXXXXX)
finish() {
  timeout 120 "$vc" stop "$cluster" >/dev/null 2>&1 || echo "bench/nodes.sh: stopping the cluster failed" >&2
  cp -r "$cluster/log" "$dir/cluster-log" 2>/dev/null || true
  rm -rf "$cluster"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

on_node1() {  # a command as a user on the cluster's first node runs it, given up after $1 seconds
  local limit=$1
  shift
  timeout "$limit" "$vc" exec "$cluster" 1 "$@"
}

report_job() {  # the job id of the sweep's report job, as its manifest holds it
  "$home/.venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["report"]["job_id"])' \
    "$1/sweep.json"
}

wait_for_report() {  # until the sweep's report job, which runs after its allocation, has ended
  local job state limit=$((SECONDS + 1800))
  job=$(report_job "$1")
  while :; do
    # A job slurmctld has forgotten (MinJobAge) has ended.
    state=$(on_node1 30 scontrol show job -o "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*' || echo JobState=GONE)
    case "${state#JobState=}" in
      PENDING | CONFIGURING | RUNNING | COMPLETING) ;;
      *) return 0 ;;
    esac
    if [ $SECONDS -gt $limit ]; then
      echo "bench/nodes.sh: report job $job of $1 still ${state#JobState=} after 30 minutes" >&2
      return 1
    fi
    sleep 5
  done
}

complete() {  # whether every point of the sweep has a complete run file (sweep status's last line)
  local status
  status=$(on_node1 60 "$home/bin/jiobench" sweep status "$1")
  echo "$status"
  [[ $(tail -n 1 <<<"$status") =~ ^([0-9]+)\ points:.*run\ files:\ ([0-9]+)\ complete$ ]] \
    && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

started=$SECONDS
lines=$(timeout 120 "$vc" start "$cluster" 3 2>"$dir/cluster-start.log")
mount=$(sed -n 's/^mount=//p' <<<"$lines")
shared=$(sed -n 's/^home=//p' <<<"$lines")
echo "cluster of 3 nodes up in $((SECONDS - started)) s (volume $mount, home $shared)"

options=(-a paper,c-posix -b 8MiB -t 1MiB -i auto --time-budget 40s -D 1 -e --drop-cache -C --verify
         -o "$mount/nodes.dat")
loads=()
for per_node in 1 2 4; do
  name=tasks-per-node-$per_node
  directory="$shared/$name"
  begun=$SECONDS
  loads+=("$(cut -d ' ' -f 1 /proc/loadavg)")
  on_node1 120 "$home/bin/jiobench" sweep --dir "$directory" --nodes 1,2,3 --tasks-per-node "$per_node" \
    --exclusive --time 10 --allocation -- "${options[@]}"
  wait_for_report "$directory"
  if ! complete "$directory" >/dev/null; then
    # A point that ran out of its time limit may leave its test file, which a sweep never removes:
    # the volume is this benchmark's own, and nothing else writes there.
    rm -f "$mount"/nodes.dat.*
    on_node1 120 "$home/bin/jiobench" sweep --resume "$directory" --allocation
    wait_for_report "$directory"
  fi
  complete "$directory" || echo "bench/nodes.sh: $name: some points have no complete run file" >&2
  echo "$name: $((SECONDS - begun)) s"
  cp -r "$directory" "$dir/$name"
  keep "$name" "$directory/sweep.json"
  keep "$name/results" "$directory"/results/*.json
done
echo
"$home/bin/jiobench" report "$dir"/tasks-per-node-* -o "$dir/report" >"$dir/report.txt"
echo "report of the three sweeps: $dir/report/report.html (its figure: $dir/report/bandwidth-vs-ranks.png)"
echo
"$home/.venv/bin/python" "$home/bench/nodes.py" "$dir"
echo "1-minute load average of this machine before each sweep: ${loads[*]}"
echo "bench/nodes.sh took $((SECONDS - started)) s, the cluster's start included"
