#!/usr/bin/env bash
# A cluster of several nodes on one Linux machine, for testing jiobench across nodes: Slurm, a
# GlusterFS volume every node mounts, and Open MPI's rsh launcher, each node under its own host
# name, with its own network address, its own /tmp and its own mounts.
#
#   scripts/virtual-cluster.sh start DIR NODES       # nodes node1..nodeNODES; prints shell lines (below)
#   scripts/virtual-cluster.sh exec DIR K CMD...     # CMD on node K as a shell of that node would run it
#   scripts/virtual-cluster.sh link DIR K down|up    # pulls node K's cable, or plugs it back
#   scripts/virtual-cluster.sh remount DIR K         # a new GlusterFS client on node K
#   scripts/virtual-cluster.sh cephfs DIR            # a CephFS too, its daemons on node1 and a
#                                                    # ceph-fuse client on every node; prints cephfs=PATH
#   scripts/virtual-cluster.sh status DIR            # exit 0 all nodes up, 1 some down, 3 no cluster
#   scripts/virtual-cluster.sh stop DIR              # nothing of the cluster runs; DIR/log, DIR/home stay
#
# `start` prints, for `eval` or a test to parse:
#   export SLURM_CONF=DIR/slurm.conf   Slurm's clients, on any node (the root namespace cannot reach it)
#   mount=DIR/mnt                      the GlusterFS volume, at this path on every node (only there)
#   home=DIR/home                      a directory every node sees, as a cluster's shared home
#   rsh_agent=DIR/bin/rsh              mpirun --mca plm_rsh_agent: enters a node as ssh would
#   hostfile=DIR/hostfile              every node with its CPUs as slots
#   nodes="node1 node2 ..."            the nodes' host names
#
# A node is a network, UTS and mount namespace, held open by a `sleep` whose PID is recorded. The
# nodes' cables go to a bridge in a namespace of its own (the switch): the cluster's addresses,
# 10.X.Y.K/24 with X.Y from a hash of DIR, exist only in namespaces this script made, and the
# root namespace gets no interface, address or route. Namespace names carry the same hash, so
# clusters of two checkouts run side by side and never meet.
#
# Each node sees the machine's file systems (the checkout, its virtualenv and jar: a shared home)
# except its own /tmp, /dev/shm, /run, /etc/hosts and GlusterFS state, kept under DIR/nodes/NODE.
# A DIR or a checkout under /tmp stays at its path inside every node. Daemons: munged (its socket a path in DIR,
# which every network namespace reaches), slurmctld on node1, a slurmd per node, a glusterd and
# a brick per node in one sharded volume, and a FUSE client per node. Every process is stopped
# by its recorded PID, checked to live in one of this cluster's namespaces; whatever else runs
# there (job steps, orted, ranks) started inside the cluster. Nothing is stopped by name.
#
# Environment: JIOBENCH_CLUSTER_CPUS (default 4), the CPUs each node offers to Slurm and to
# mpirun; JIOBENCH_CLUSTER_SLURMD_TIMEOUT (default 20 s) and JIOBENCH_CLUSTER_PING_TIMEOUT
# (default 10 s): how long a silent node takes to be declared DOWN by Slurm, and a silent brick
# to fail its clients' I/O. Slurm's and GlusterFS's own defaults (300 s and 42 s) would hold a
# node-loss test for minutes; this cluster exists for tests.
set -eEuo pipefail

me=$(basename "$0")
usage="usage: $me start DIR NODES | exec DIR K CMD... | link DIR K down|up | remount DIR K | cephfs DIR | status DIR | stop DIR"

fail_usage() { echo "$me: $1 ($usage)" >&2; exit 2; }

[ $# -ge 2 ] || fail_usage "an action and a directory are needed"
action=$1
case "$action" in start|stop|status|exec|link|remount|cephfs) ;; *) fail_usage "unknown action '$action'" ;; esac
[[ $2 =~ ^[A-Za-z0-9._/-]+$ ]] || fail_usage "DIR may hold only letters, digits and . _ - / (brick paths, shell lines)"
dir=$(realpath -m "$2")
shift 2
# Unix socket paths (munged's, slurmstepd's under the spool) hold at most 107 bytes.
[ ${#dir} -le 60 ] || fail_usage "DIR '$dir' is too long for the daemons' sockets (60 characters at most)"
case "$dir" in
  /|/tmp|/run|/run/*) fail_usage "DIR cannot be $dir: every node has a /tmp and a /run of its own" ;;
esac

hash=$(printf %s "$dir" | sha1sum)
tag=vc${hash:0:8}
subnet=10.$((16#${hash:8:2})).$((16#${hash:10:2}))
switch=$tag-sw
conf=$dir/slurm.conf
volume=shared
cpus=${JIOBENCH_CLUSTER_CPUS:-4}
slurmd_timeout=${JIOBENCH_CLUSTER_SLURMD_TIMEOUT:-20}
ping_timeout=${JIOBENCH_CLUSTER_PING_TIMEOUT:-10}

checkout=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
ceph_volume=$checkout/scripts/ceph-volume.sh
. "$checkout/scripts/wait-for.sh"
. "$checkout/scripts/slurm-settings.sh"

started=${EPOCHREALTIME/./}
say() {  # progress on stderr, with the seconds since this command began
  local micros=$((${EPOCHREALTIME/./} - started))
  printf '%s: [%3d.%02d s] %s\n' "$me" $((micros / 1000000)) $((micros % 1000000 / 10000)) "$*" >&2
}

node_names() { cat "$dir/nodes.list" 2>/dev/null; }
holder() { cat "$dir/pids/holder-$1.pid" 2>/dev/null; }

node_of() {  # node_of K: node K's name, if the cluster has it
  [[ $1 =~ ^[1-9][0-9]*$ ]] && grep -qx "node$1" "$dir/nodes.list" 2>/dev/null \
    || fail_usage "no node $1 in a cluster at $dir"
  echo "node$1"
}

entering() {  # entering NODE: the words that run a command in NODE's namespaces, as $entry
  # The cd happens inside the node: `nsenter --wd` opens the directory before it enters the mount
  # namespace, and would leave the command in a directory of the machine's /tmp that the node
  # cannot see. Where the node does not see the caller's directory either, the command starts at home.
  entry=(nsenter -t "$(holder "$1")" -n -u -m -- /bin/sh -c
         'cd "$1" 2>/dev/null || cd; export SLURM_CONF="$2"; shift 2; exec "$@"' enter "$PWD" "$conf")
}

enter() {  # enter NODE CMD...: CMD on NODE, with SLURM_CONF set
  local entry
  entering "$1"
  shift
  "${entry[@]}" "$@"
}

# ------------------------------------------------------------------------------------------------
# Which processes are the cluster's: those in one of its nodes' network namespaces.

node_namespaces() { ip netns list | awk -v tag="$tag-node" 'index($1, tag) == 1 { print $1 }'; }

load_namespaces() {  # the nodes' network namespaces as /proc/PID/ns/net names them, into $known
  # By their names, which carry DIR's hash, rather than by files in DIR: a cluster whose DIR was
  # removed under it is still found, and stopped.
  local name
  known=$(for name in $(node_namespaces); do echo "net:[$(stat -L -c %i "/run/netns/$name")]"; done)
}

alive() {  # alive PID: a process, and not a zombie that its parent has yet to collect
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "${state%% *}" != Z ]
}

in_namespaces() {  # every live PID in the cluster's network namespaces, holders included
  [ -n "$known" ] || return 0
  # One pass over /proc: a readlink per process would take seconds on a busy machine.
  find /proc/[0-9]*/ns/net -maxdepth 0 -printf '%p %l\n' 2>/dev/null \
    | awk -v known="$known" 'BEGIN { split(known, list, "\n"); for (i in list) ours[list[i]] = 1 }
                             ($2 in ours) { split($1, path, "/"); print path[3] }' \
    | while read -r pid; do ! alive "$pid" || echo "$pid"; done
}

ours() {  # ours PID: alive, not a zombie, and in one of the cluster's network namespaces
  local pid=$1 ns
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null) || return 1
  grep -qxF "$ns" <<<"$known"
}

dead() { local pid; for pid in "$@"; do ! alive "$pid" || return 1; done; }

terminate() {  # terminate PID...: TERM to those that are ours, a grace period (${grace:-10} s), then KILL
  local pid targets=()
  for pid in "$@"; do ! ours "$pid" || targets+=("$pid"); done
  [ ${#targets[@]} -gt 0 ] || return 0
  kill "${targets[@]}" 2>/dev/null || true
  # Dead, not only out of the cluster's namespaces: an exiting process leaves them before it ends.
  wait_for "${grace:-10}" dead "${targets[@]}" && return 0
  for pid in "${targets[@]}"; do ! ours "$pid" || kill -9 "$pid" 2>/dev/null || true; done
  wait_for 5 dead "${targets[@]}"
}

recorded() {  # recorded FILE...: the PIDs in those pid files that exist
  local file
  for file in "$@"; do [ -f "$file" ] && cat "$file"; done
  return 0
}

# ------------------------------------------------------------------------------------------------
# start

holding() {  # holding PID: the holder has unshared (its network namespace is no longer ours)
  [ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ] && [ "$(cat "/proc/$1/comm")" = sleep ]
}

start_nodes() {
  local count=$1 k name pid node_dir
  # The previous cluster's logs go aside: Slurm numbers jobs from 1 again.
  rm -rf "$dir/log.prev"
  [ ! -d "$dir/log" ] || mv "$dir/log" "$dir/log.prev"
  mkdir -p "$dir/pids" "$dir/log" "$dir/nodes" "$dir/mnt" "$dir/home" "$dir/bin"
  chmod 0755 "$dir"
  chmod 1777 "$dir/home"
  : >"$dir/nodes.list"
  {
    echo "127.0.0.1 localhost"
    for k in $(seq 1 "$count"); do echo "$subnet.$k node$k"; done
  } >"$dir/hosts"
  for k in $(seq 1 "$count"); do echo "node$k slots=$cpus"; done >"$dir/hostfile"
  ip netns add "$switch"
  ip -n "$switch" link add br0 type bridge
  ip -n "$switch" link set br0 up
  for k in $(seq 1 "$count"); do
    name=node$k
    node_dir=$dir/nodes/$name
    mkdir -p "$node_dir/tmp" "$node_dir/run/gluster" "$node_dir/glusterd" "$node_dir/log" "$node_dir/brick"
    chmod 1777 "$node_dir/tmp"
    # unshare execs sleep inside the new namespaces (no --fork): $! is the process that holds them.
    # setsid: a caller's signal to its process group does not take the nodes down.
    setsid unshare --net --uts --mount --propagation private sleep infinity </dev/null >/dev/null 2>&1 &
    pid=$!
    echo "$pid" >"$dir/pids/holder-$name.pid"
    echo "$name" >>"$dir/nodes.list"
    wait_for 5 holding "$pid" || { echo "$me: $name's namespaces did not appear" >&2; return 1; }
    ip netns attach "$tag-$name" "$pid"
    nsenter -t "$pid" -u hostname "$name"
    # The cable: a veth pair made in the switch, its other end put straight into the node.
    ip -n "$switch" link add "v$k" type veth peer name eth0 netns "$tag-$name"
    ip -n "$switch" link set "v$k" master br0 up
    ip -n "$tag-$name" link set lo up
    ip -n "$tag-$name" addr add "$subnet.$k/24" dev eth0
    ip -n "$tag-$name" link set eth0 up
    # The node's copies of the machine's /run/netns entries would keep this cluster's and other
    # clusters' namespaces alive after their `ip netns delete`: they go first. Then /etc/hosts,
    # /tmp (with DIR and this checkout, which every node must see, bound inside it first where
    # they are under /tmp: --rbind carries them along),
    # /dev/shm (Open MPI names its shared memory after the host and the job, which every
    # cluster numbers alike: two clusters' ranks met there and crashed), /run and GlusterFS's
    # state and logs, all the node's own.
    nsenter -t "$pid" -m -- /bin/sh -ec '
      dir=$1 node_dir=$2 checkout=$3
      awk '\''$5 ~ "^/run/netns(/|$)" { print $5 }'\'' /proc/self/mountinfo | sort -r | while read -r m; do
        umount -l "$m" 2>/dev/null || true
      done
      mount --bind "$dir/hosts" /etc/hosts
      for shared in "$dir" "$checkout"; do
        case "$shared" in
          /tmp/*) mkdir -p "$node_dir/tmp/${shared#/tmp/}"; mount --bind "$shared" "$node_dir/tmp/${shared#/tmp/}" ;;
        esac
      done
      mount --rbind "$node_dir/tmp" /tmp
      mount -t tmpfs -o mode=1777 shm /dev/shm
      mount --bind "$node_dir/run" /run
      mount --bind "$node_dir/glusterd" /var/lib/glusterd
      mount --bind "$node_dir/log" /var/log/glusterfs
    ' sh "$dir" "$node_dir" "$checkout"
  done
  # Open MPI's rsh launcher calls `AGENT [ssh options] HOST COMMAND...`. As under ssh, COMMAND
  # runs in HOST's namespaces, in a session of its own (`jiobench run` ends its launcher's session
  # at the end, which would otherwise take the other nodes' processes along), from home, through
  # a shell, with a login environment rather than the caller's (what ranks need must travel with
  # mpirun's -x, as on a real cluster); and the agent returns its exit code (setsid -w).
  cat >"$dir/bin/rsh" <<AGENT
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
holder=\$(cat "$dir/pids/holder-\$1.pid" 2>/dev/null) || exit 255  # ssh's "cannot connect"
shift
exec setsid -w nsenter -t "\$holder" -n -u -m -- env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh \\
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 /bin/sh -c "cd; \$*"
AGENT
  chmod 0755 "$dir/bin/rsh"
  say "$count nodes up on $subnet.0/24: $(node_names | tr '\n' ' ')(switch namespace $switch)"
}

idle_nodes() {  # idle_nodes COUNT: that many nodes are idle
  [ "$(enter node1 timeout 10 sinfo -h -N -o %t | grep -cx idle)" -eq "$1" ]
}

start_slurm() {
  local count=$1 name
  mkdir -p "$dir/munge" "$dir/slurm/state"
  for name in $(node_names); do mkdir -p "$dir/slurm/spool/$name"; done  # slurmd makes no %n spool of its own
  chmod 0755 "$dir/munge"  # munged refuses a socket directory it considers insecure
  mungekey -c -k "$dir/munge/munge.key" >/dev/null
  chmod 0600 "$dir/munge/munge.key"
  enter node1 timeout 30 munged --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/pids/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  cat >"$conf" <<CONF
ClusterName=virtual
$(slurm_settings)
SlurmctldHost=node1
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/slurm/state
# The nodes share this file system: what is a node's own carries its name (%n).
SlurmdSpoolDir=$dir/slurm/spool/%n
SlurmdPidFile=$dir/pids/slurmd-%n.pid
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldPidFile=$dir/pids/slurmctld.pid
SlurmctldLogFile=$dir/log/slurmctld.log
# Each node's own /tmp: PMIx's spmix_appdir_* of one node never meet another's.
TmpFS=/tmp
SlurmdTimeout=$slurmd_timeout
NodeName=node[1-$count] CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=1000
PartitionName=debug Nodes=node[1-$count] Default=YES MaxTime=INFINITE State=UP
CONF
  enter node1 timeout 30 slurmctld -f "$conf"
  for name in $(node_names); do enter "$name" timeout 30 slurmd -f "$conf"; done
  wait_for 30 idle_nodes "$count" || { echo "$me: not every slurmd came up idle; see $dir/log" >&2; return 1; }
  say "Slurm: slurmctld on node1, $count slurmd idle"
}

gcli() {  # gcli NODE ARGS...: the gluster CLI of NODE's glusterd (its socket is in the node's own /run)
  local node=$1
  shift
  enter "$node" timeout 60 gluster --mode=script --log-file="$dir/log/cli-$node.log" "$@"
}

peers_connected() { [ "$(gcli node1 pool list | grep -c Connected)" -eq "$1" ]; }
bricks_online() { [ "$(gcli node1 volume status "$volume" --xml | grep -c '<status>1</status>')" -ge "$1" ]; }

mount_client() {  # mount_client NODE: a FUSE client in the node's mount namespace, with its own page cache
  enter "$1" timeout 30 glusterfs --process-name fuse --volfile-server="$1" --volfile-id="$volume" \
    --log-file="$dir/log/mnt-$1.log" --pid-file="$dir/pids/client-$1.pid" "$dir/mnt"
}

mounted() { enter "$1" timeout 10 sh -c "grep -q ' $dir/mnt fuse.glusterfs ' /proc/self/mounts && stat $dir/mnt/."; }

start_gluster() {
  local count=$1 name bricks=()
  for name in $(node_names); do
    enter "$name" timeout 30 glusterd --log-file="$dir/log/glusterd-$name.log" -p "$dir/pids/glusterd-$name.pid"
  done
  for name in $(node_names); do
    wait_for 30 gcli "$name" volume list || { echo "$me: glusterd on $name did not come up" >&2; return 1; }
  done
  for name in $(node_names | tail -n +2); do gcli node1 peer probe "$name" >/dev/null; done
  wait_for 30 peers_connected "$count" || { echo "$me: the glusterds did not all connect" >&2; return 1; }
  for name in $(node_names); do bricks+=("$name:$dir/nodes/$name/brick"); done
  # force: the bricks sit on the root file system.
  gcli node1 volume create "$volume" "${bricks[@]}" force >/dev/null
  gcli node1 volume set "$volume" features.shard on >/dev/null
  gcli node1 volume set "$volume" features.shard-block-size 4MB >/dev/null
  gcli node1 volume set "$volume" network.ping-timeout "$ping_timeout" >/dev/null
  gcli node1 volume start "$volume" >/dev/null
  wait_for 30 bricks_online "$count" || { echo "$me: not every brick came online" >&2; return 1; }
  for name in $(node_names); do mount_client "$name"; done
  for name in $(node_names); do
    wait_for 30 mounted "$name" || { echo "$me: $dir/mnt did not come up on $name" >&2; return 1; }
  done
  say "GlusterFS: a brick per node, mounted at $dir/mnt on every node"
}

start() {
  [ $# -eq 1 ] || fail_usage "start takes DIR and a node count"
  local count=$1 tool
  [[ $count =~ ^[1-9][0-9]?$ ]] && [ "$count" -le 32 ] || fail_usage "NODES is a count from 1 to 32, not '$count'"
  for knob in cpus slurmd_timeout ping_timeout; do
    [[ ${!knob} =~ ^[1-9][0-9]{0,3}$ ]] \
      || fail_usage "JIOBENCH_CLUSTER_${knob^^} takes a whole number, not '${!knob}'"
  done
  for tool in ip nsenter unshare setsid hostname timeout munged mungekey slurmctld slurmd sinfo scancel \
      glusterd gluster glusterfs; do
    command -v "$tool" >/dev/null \
      || { echo "$me: $tool is missing (scripts/debian-packages.sh test installs it)" >&2; exit 1; }
  done
  load_namespaces
  if [ -e "$dir/nodes.list" ] || [ -n "$known" ]; then
    echo "$me: a cluster already exists in $dir (stop it first: $me stop $dir)" >&2
    exit 2
  fi
  trap 'echo "$me: start failed; stopping what started" >&2; stop >/dev/null; exit 1' ERR
  start_nodes "$count"
  start_slurm "$count"
  start_gluster "$count"
  trap - ERR
  printf 'export SLURM_CONF=%q\nmount=%q\nhome=%q\nrsh_agent=%q\nhostfile=%q\nnodes="%s"\n' \
    "$conf" "$dir/mnt" "$dir/home" "$dir/bin/rsh" "$dir/hostfile" "$(node_names | paste -sd' ')"
}

# ------------------------------------------------------------------------------------------------
# stop, and what a test does to a running cluster

stop() {
  [ $# -eq 0 ] || fail_usage "stop takes DIR only"
  # A teardown goes on past whatever fails: a half-started cluster is what it exists for too.
  set +e
  trap - ERR
  load_namespaces
  [ -f "$dir/nodes.list" ] || [ -n "$known" ] || { echo "$me: no cluster in $dir" >&2; return 0; }
  local name pids
  # A link a test cut is mended first: a client whose server is unreachable blocks its unmount
  # (10 s each) until GlusterFS gives the server up.
  for name in $(node_names); do ip -n "$tag-$name" link set eth0 up 2>/dev/null; done
  if ours "$(recorded "$dir/pids/slurmctld.pid")"; then
    enter node1 timeout 10 scancel --full --user=root >/dev/null 2>&1
  fi
  for name in $(node_names); do
    ours "$(holder "$name")" \
      && enter "$name" timeout 10 sh -c "umount $dir/mnt 2>/dev/null || umount -l $dir/mnt" 2>/dev/null
  done
  if [ -f "$dir/cephfs/ceph.conf" ]; then
    for name in $(node_names); do
      ours "$(holder "$name")" && enter "$name" timeout 30 "$ceph_volume" unmount "$dir/cephfs" >/dev/null 2>&1
    done
    ours "$(holder node1)" && enter node1 timeout 60 "$ceph_volume" stop "$dir/cephfs" >/dev/null 2>&1
  fi
  # The FUSE clients and bricks, then glusterd and slurmd, then slurmctld and munged.
  terminate $(recorded "$dir"/pids/client-*.pid "$dir"/nodes/*/run/gluster/vols/*/*.pid)
  terminate $(recorded "$dir"/pids/glusterd-*.pid "$dir"/pids/slurmd-*.pid)
  terminate $(recorded "$dir/pids/slurmctld.pid" "$dir/pids/munged.pid")
  # Whatever else runs in the nodes (job steps, orted, ranks) started there. 2 s: a slurmstepd
  # whose node lost its cable ignores TERM.
  pids=$(in_namespaces | grep -vxF "$(recorded "$dir"/pids/holder-*.pid)")
  if [ -n "$pids" ]; then
    say "stopping what still ran in the nodes:" \
      $(for pid in $pids; do echo "$pid($(cat "/proc/$pid/comm" 2>/dev/null))"; done)
    grace=2 terminate $pids
  fi
  terminate $(recorded "$dir"/pids/holder-*.pid)
  for name in $(node_namespaces); do ip netns delete "$name"; done
  ip netns delete "$switch" 2>/dev/null
  local left namespaces_left
  left=$(in_namespaces)
  namespaces_left=$(ip netns list | awk -v tag="$tag-" 'index($1, tag) == 1 { print $1 }')
  if [ -n "$left" ] || [ -n "$namespaces_left" ]; then
    echo "$me: left behind: processes [$(echo $left)] namespaces [$(echo $namespaces_left)]" >&2
    return 1
  fi
  rm -rf "$dir/nodes" "$dir/slurm" "$dir/munge" "$dir/pids" "$dir/bin" "$dir/mnt" "$dir/cephfs" \
    "$dir/hosts" "$dir/hostfile" "$conf" "$dir/nodes.list"
  say "stopped: nothing of the cluster runs; its logs are in $dir/log, what runs left in its home in $dir/home"
}

status() {
  [ $# -eq 0 ] || fail_usage "status takes DIR only"
  [ -f "$dir/nodes.list" ] || { echo "no cluster in $dir"; return 3; }
  local name code=0
  for name in $(node_names); do
    if ours "$(holder "$name")"; then
      echo "$name: up, $(ip -n "$tag-$name" -br addr show eth0 | awk '{ print $2, $3 }')"
    else
      echo "$name: down"
      code=1
    fi
  done
  return $code
}

link() {
  [ $# -eq 2 ] && [[ $2 =~ ^(up|down)$ ]] || fail_usage "link takes DIR, a node number and down or up"
  local name
  name=$(node_of "$1")
  ip -n "$tag-$name" link set eth0 "$2"
  say "$name: link $2"
}

remount() {
  [ $# -eq 1 ] || fail_usage "remount takes DIR and a node number"
  local name old
  name=$(node_of "$1")
  old=$(recorded "$dir/pids/client-$name.pid")
  enter "$name" timeout 10 sh -c "umount $dir/mnt 2>/dev/null || umount -l $dir/mnt"
  # The old client outlives its unmount by about a second.
  terminate $old
  mount_client "$name"
  wait_for 30 mounted "$name" || { echo "$me: $dir/mnt did not come up on $name" >&2; return 1; }
  say "$name: a new GlusterFS client at $dir/mnt"
}

cephfs() {
  [ $# -eq 0 ] || fail_usage "cephfs takes DIR only"
  local name
  # The daemons listen on node1's address, which every node reaches through the switch.
  if ! enter node1 "$ceph_volume" status "$dir/cephfs" >/dev/null 2>&1; then
    enter node1 "$ceph_volume" start "$dir/cephfs" --address "$subnet.1" >/dev/null || return 1
    say "CephFS: its daemons on node1, mounted at $dir/cephfs/mnt there"
  fi
  for name in $(node_names | tail -n +2); do
    enter "$name" sh -c "grep -q ' $dir/cephfs/mnt fuse.ceph-fuse ' /proc/self/mounts" \
      || enter "$name" "$ceph_volume" mount "$dir/cephfs" >/dev/null || return 1
  done
  say "CephFS: a ceph-fuse client on every node at $dir/cephfs/mnt"
  echo "cephfs=$dir/cephfs/mnt"
}

run_on() {
  [ $# -ge 2 ] || fail_usage "exec takes DIR, a node number and a command"
  local name
  name=$(node_of "$1")
  shift
  ours "$(holder "$name")" || { echo "$me: $name is not running" >&2; exit 1; }
  local entry
  entering "$name"
  # exec: CMD's exit code is this command's, and a signal to this command reaches CMD itself.
  exec "${entry[@]}" "$@"
}

known=""
case "$action" in
  start|stop) "$action" "$@" ;;
  exec) load_namespaces; run_on "$@" ;;
  *) load_namespaces; "$action" "$@" ;;
esac
