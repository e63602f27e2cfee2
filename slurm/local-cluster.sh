#!/usr/bin/env bash
# A private single-node Slurm cluster (munged + slurmctld + slurmd) under one directory, for
# trying jiobench's Slurm path on a workstation and for its tests. Everything (config, state,
# sockets, logs) lives under DIR; the daemons are stopped by the PIDs in their pid files.
#
#   slurm/local-cluster.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   slurm/local-cluster.sh stop DIR
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
conf="$dir/slurm.conf"

. "$(dirname "$(readlink -f "$0")")/../scripts/wait-for.sh"
. "$(dirname "$(readlink -f "$0")")/../scripts/slurm-settings.sh"

gone() {  # the process has exited: it is no more, or a zombie that init has yet to collect
  local state
  state=$(ps -o stat= -p "$1") || return 0
  [[ $state == Z* ]]
}

free_ports() {  # two TCP ports free now: clusters of several checkouts on one machine do not meet
  python3 -c 'import socket
held = [socket.socket() for _ in range(2)]
for s in held: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))'
}

start() {
  for daemon in munged mungekey slurmctld slurmd; do
    command -v "$daemon" >/dev/null || { echo "$0: $daemon is missing (Debian: munge slurmctld slurmd slurm-client)" >&2; exit 1; }
  done
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/tmp" "$dir/log"
  chmod 0755 "$dir" "$dir/munge"   # munged refuses a socket directory it considers insecure
  [ -f "$dir/munge/munge.key" ] || mungekey -c -k "$dir/munge/munge.key" >/dev/null
  chmod 0600 "$dir/munge/munge.key"
  munged --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  local cpus ports; cpus=${JIOBENCH_SLURM_CPUS:-8}
  read -r -a ports < <(free_ports)
  cat > "$conf" <<CONF
ClusterName=jiobench
$(slurm_settings)
SlurmctldHost=localhost
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=localhost CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=1000
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$conf"
  slurmctld -f "$conf"
  slurmd -f "$conf" -N localhost
  if ! wait_for 30 sh -c "sinfo -h -o %t | grep -qx idle"; then
    echo "$0: the node did not come up; see $dir/log" >&2
    stop
    exit 1
  fi
  echo "export SLURM_CONF=$conf"
}

stop() {
  export SLURM_CONF="$conf"
  if [ -f "$conf" ] && command -v scancel >/dev/null; then scancel --user="$(id -un)" 2>/dev/null || true; fi
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    wait_for 10 gone "$pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
