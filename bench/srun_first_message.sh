#!/usr/bin/env bash
# How often srun's ranks kill a rank still inside MPI_Init with their first message (docs/reliability.md,
# "The MPI behind the launcher"): under srun --mpi=pmix the ranks can leave MPI_Init while another
# still waits in one of its fences, and a message that reaches that one there kills it (exit 139).
# Two bare mpi4py programs that gather every rank's host to rank 0, in turns, SRUNS sruns of 4
# ranks on 2 nodes of a virtual cluster each: one straight after MPI_Init (what the ranks did
# before), one after jiobench's own wait for every rank (jiobench.run.mpi.await_every_rank_started,
# what they do now). Meanwhile one of the ranks' processes after another is stopped for 50 ms,
# and node1's slurmd for 50 ms in every 150, which makes a rank that lags in MPI_Init far likelier
# than on a quiet cluster. Prints how many sruns of each ended 139.
#
#   bench/srun_first_message.sh [SRUNS]     (default 300; needs `make build`,
#                                            scripts/debian-packages.sh test, and root)
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
sruns=${1:-300}
[[ $sruns =~ ^[1-9][0-9]*$ ]] || { echo "bench/srun_first_message.sh: SRUNS must be a positive integer" >&2; exit 2; }
vc="$home/scripts/virtual-cluster.sh"
# Under /tmp and short: the daemons' unix socket paths lie under it.
cluster=$(mktemp -d /tmp/jiobench-srun.XXXXXX)
stall=
finish() {
  [ -n "$stall" ] && kill $stall 2>/dev/null
  [ -f "$cluster/pids/slurmd-node1.pid" ] && kill -CONT "$(cat "$cluster/pids/slurmd-node1.pid")" 2>/dev/null
  timeout 120 "$vc" stop "$cluster" >/dev/null 2>&1 || echo "bench/srun_first_message.sh: stopping the cluster failed" >&2
  rm -rf "$cluster"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$vc" start "$cluster" 2 >/dev/null
work="$cluster/home/first-message"
mkdir -p "$work"
for first in gather fence; do
  {
    echo 'import mpi4py'
    echo 'mpi4py.rc.initialize = False'
    echo 'from mpi4py import MPI'
    echo 'MPI.Init_thread()'
    [ "$first" = fence ] && echo 'from jiobench.run.mpi import await_every_rank_started' &&
      echo 'await_every_rank_started()'
    echo 'MPI.COMM_WORLD.gather(MPI.Get_processor_name(), root=0)'
  } >"$work/$first.py"
done
cat >"$work/turns.sh" <<EOF
for ((i = 1; i <= $sruns; i++)); do
  for first in gather fence; do
    code=0
    PYTHONPATH="$home/runner/python" srun --mpi=pmix -n 4 -N 2 --ntasks-per-node=2 "$home/.venv/bin/python" "$work/\$first.py" \\
      >"$work/out" 2>&1 || code=\$?
    task=\$(grep -o 'task [0-9]*: Segmentation fault' "$work/out" | head -n 1 | grep -o '[0-9]*' || true)
    echo "\$first \$code \${task:--}" >>"$work/codes"
  done
done
EOF

slurmd=$(cat "$cluster/pids/slurmd-node1.pid")
stall_ranks() {  # one of the ranks' processes after another, stopped for 50 ms
  local rank
  while :; do
    rank=$(pgrep -f "$work/[a-z]*\.py" | shuf -n 1 || true)
    [ -n "$rank" ] && kill -STOP "$rank" 2>/dev/null
    sleep 0.05
    [ -n "$rank" ] && kill -CONT "$rank" 2>/dev/null
    sleep 0.02
  done
}
(while :; do kill -STOP "$slurmd"; sleep 0.05; kill -CONT "$slurmd"; sleep 0.1; done) &
stalls=$!
stall_ranks &
stall="$stalls $!"
started=$SECONDS
"$vc" exec "$cluster" 1 salloc -N 2 -n 4 --ntasks-per-node=2 bash "$work/turns.sh" >/dev/null 2>&1
kill $stall
stall=
kill -CONT "$slurmd"

printf '%d sruns of each in %d s, 4 ranks on 2 nodes, ranks and node1 slurmd stopped for 50 ms in turns\n' \
  "$sruns" $((SECONDS - started))
printf '%-34s %6s %10s %14s\n' "gather to rank 0" sruns "ended 139" "on task 0"
for first in gather fence; do
  awk -v first="$first" '$1 == first { n++; if ($2 == 139) { crashed++; if ($3 == "0") zero++ } }
    END { printf "%-34s %6d %10d %14d\n", (first == "gather" ? "straight after MPI_Init (before)" : "after every rank started (now)"),
          n, crashed, zero }' "$work/codes"
done
