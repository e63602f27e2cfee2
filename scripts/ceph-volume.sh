#!/usr/bin/env bash
# A private CephFS under one directory, for measuring jiobench on a file system that lays each file
# out over object storage daemons (OSDs) as Lustre does over OSTs, and for its tests: one monitor,
# N OSDs, one metadata server (MDS), the data and metadata pools, and a ceph-fuse client mounting
# the file system at DIR/mnt. A file's layout (stripe unit, stripe count, object size) is its own,
# set on the empty file through its ceph.file.layout.* attributes, as jiobench's --stripe-* do.
#
# Everything lives under DIR: ceph.conf (the CLI takes it: ceph -c DIR/ceph.conf, rados -c ...),
# the daemons' data, run directory, admin sockets, PID files and logs. Authentication is off and
# the monitor listens on a loopback address of its own (127.x.y.z, derived from DIR) on Ceph's
# port 3300, so several of these run side by side. Every process is stopped by the PID it
# recorded, never by name. The manager daemon (ceph-mgr) runs with none of its Python modules:
# a client's free space (statfs, which jiobench checks a plan against) comes from the manager's
# statistics, but its dashboards, balancer and autoscaler took 300 MiB; without them it takes
# about 30 MiB.
#
# The OSDs keep their objects in memory (memstore, --osd-size bytes each at most): a file written
# to the volume costs its size in RAM until it is removed, and everything is gone at stop. Measured
# here against BlueStore on a file, three OSDs each: memstore starts in 11 s instead of 17 and
# writes 256 MiB at 180-250 MB/s instead of 130-150; BlueStore's OSDs keep a bounded 60 MiB each.
# All the daemons and the client take about 200 MiB before any data.
#
#   scripts/ceph-volume.sh start DIR [--osds N] [--osd-size SIZE] [--address IP]
#                                          # prints: mount DIR/mnt
#   scripts/ceph-volume.sh status DIR      # exit 0 when the file system runs and is mounted
#   scripts/ceph-volume.sh mount DIR       # another client at DIR/mnt, for a node of its own mount
#   scripts/ceph-volume.sh unmount DIR     # namespace (scripts/virtual-cluster.sh cephfs); unmount
#                                          # ends this node's
#   scripts/ceph-volume.sh stop DIR        # unmounts, stops every process (every node's clients
#                                          # too), removes the data; also after a failed start
#
# start writes DIR/made-by-ceph-volume before anything else, and stop, mount and unmount refuse a
# DIR without it in one line, touching nothing: a DIR given by mistake keeps its own run/, mon/,
# osd/. stop ends within 30 s even when a client no longer answers (its MDS or OSDs lost, or
# ceph-fuse itself stopped): an unmount that does not return in 5 s is made lazy and the client
# killed, and stop says so on stderr. log/ and the empty mnt/ stay.
#
# --address: where the daemons listen, for clients on other nodes (a virtual cluster's node
# address); the default is the loopback address derived from DIR.
set -euo pipefail

me=$(basename "$0")
usage="usage: $me start|mount|unmount|stop|status DIR [--osds N] [--osd-size SIZE] [--address IP]"

fail_usage() { echo "$me: $1 ($usage)" >&2; exit 2; }

[ $# -ge 2 ] || fail_usage "an action and a directory are needed"
action=$1
case "$action" in start|stop|status|mount|unmount) ;; *) fail_usage "unknown action '$action'" ;; esac
[[ $2 =~ ^[A-Za-z0-9._/-]+$ ]] || fail_usage "DIR may hold only letters, digits and . _ - /"
dir=$(realpath -m "$2")
shift 2

osds=3
osd_size=$((2 << 30))
address=""
while [ $# -gt 0 ]; do
  [ "$action" = start ] || fail_usage "$action takes no options"
  [ $# -ge 2 ] || fail_usage "$1 needs a value"
  case "$1" in
    --osds)
      [[ $2 =~ ^([1-9]|1[0-6])$ ]] || fail_usage "--osds takes a number from 1 to 16, not '$2'"
      osds=$2 ;;
    --osd-size)
      [[ $2 =~ ^([1-9][0-9]*)(MiB|GiB)$ ]] || fail_usage "--osd-size takes a size like 512MiB or 2GiB, not '$2'"
      case "${BASH_REMATCH[2]}" in MiB) osd_size=$((BASH_REMATCH[1] << 20)) ;; *) osd_size=$((BASH_REMATCH[1] << 30)) ;; esac
      [ "$osd_size" -ge $((256 << 20)) ] || fail_usage "--osd-size must be at least 256MiB, not '$2'" ;;
    --address)
      [[ $2 =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}$ ]] || fail_usage "--address takes an IPv4 address, not '$2'"
      address=$2 ;;
    *) fail_usage "unknown option '$1'" ;;
  esac
  shift 2
done

# Unix sockets take at most 107 bytes of path; the longest here is DIR/run/client.admin.PID.asok.
[ ${#dir} -le 70 ] || fail_usage "DIR '$dir' is too long for Ceph's admin sockets (70 characters at most)"

. "$(dirname "$(readlink -f "$0")")/wait-for.sh"
. "$(dirname "$(readlink -f "$0")")/daemons-under-dir.sh"

address=${address:-$(loopback_address)}
conf=$dir/ceph.conf
mnt=$dir/mnt
run=$dir/run
cli=(timeout 60 ceph -c "$conf")
what="file system"
marker=$dir/made-by-ceph-volume
made="made by ceph-volume.sh start $dir"
# What start makes in DIR and replaces in a DIR of its own, and stop removes.
parts=(mon mgr osd mds run monmap ceph.conf)

# A file system started with --address is reached there by every other action.
if [ "$action" != start ] && [ -f "$conf" ]; then
  address=$(sed -n 's/^mon host = v2:\(.*\):3300$/\1/p' "$conf")
fi

recorded_pids() { cat "$run"/*.pid 2>/dev/null | sort -un; }

mounted() { awk -v m="$mnt" '$2 == m && $3 == "fuse.ceph-fuse" { found = 1 } END { exit !found }' /proc/mounts; }

ceph_cli() {  # ceph_cli ARGS...: the CLI of this cluster; its error line ends the start
  local said
  said=$("${cli[@]}" "$@" 2>&1) || abort "ceph $*: $said"
}

osds_up() { [ "$("${cli[@]}" osd stat -f json 2>/dev/null | sed -n 's/.*"num_up_osds":\([0-9]*\).*/\1/p')" = "$osds" ]; }

has_space() { within 5 sh -c '[ "$(stat -f -c %a "$1")" -gt 0 ]' has_space "$mnt"; }

mds_active() { "${cli[@]}" mds stat 2>/dev/null | grep -q 'up:active'; }

start() {
  refuse_foreign "${parts[@]}"
  for tool in ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph monmaptool; do
    command -v "$tool" >/dev/null \
      || { echo "$me: $tool is missing (Debian: ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common)" >&2
           exit 1; }
  done
  if anything_running; then
    echo "$me: a file system already runs in $dir (stop it first: $me stop $dir)" >&2
    exit 2
  fi
  if port_taken "$address" 3300; then
    echo "$me: port 3300 is taken on $address or on every address (a ceph-mon of the system?)" >&2
    exit 2
  fi
  mkdir -p "$dir"
  echo "$made" >"$marker"
  # Whatever an earlier, crashed start left is stale: a monitor's store names its old cluster.
  rm -rf "${parts[@]/#/$dir/}"
  mkdir -p "$dir/mon" "$dir/osd" "$dir/mds" "$run" "$dir/log" "$mnt"
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = v2:$address:3300
mon initial members = a
public addr = $address
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms bind ipv6 = false
ms bind msgr1 = false
osd pool default size = 1
osd pool default min size = 1
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
osd objectstore = memstore
memstore device bytes = $osd_size
osd memory target = 536870912
run dir = $run
log file = $dir/log/\$name.log
pid file = $run/\$name.pid
admin socket = $run/\$name.asok
mon data = $dir/mon/\$id
osd data = $dir/osd/\$id
mds data = $dir/mds/\$id
mgr data = $dir/mgr/\$id
keyring = $dir/keyring
[client]
# Each CLI call and each client has a socket of its own: two at once would fight over one path.
admin socket = $run/\$name.\$pid.asok
pid file = $run/\$name.\$pid.pid
CONF
  monmaptool --create --addv a "[v2:$address:3300]" --fsid "$fsid" "$dir/monmap" >/dev/null \
    || abort "monmaptool failed"
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >>"$dir/log/start.out" 2>&1 || abort "ceph-mon --mkfs failed"
  ceph-mon -c "$conf" -i a >>"$dir/log/start.out" 2>&1 || abort "ceph-mon did not start"
  wait_for 30 "${cli[@]}" mon stat || abort "the monitor did not answer on $address:3300"
  local module_path modules
  module_path=$(ceph-conf -c "$conf" --show-config-value mgr_module_path 2>/dev/null)
  modules=$(cd "$module_path" 2>/dev/null && ls -d -- */ | tr -d / | paste -sd, -)
  mkdir -p "$dir/mgr/x"
  ceph-mgr -c "$conf" -i x --mgr_disabled_modules="$modules" >>"$dir/log/start.out" 2>&1 \
    || abort "ceph-mgr did not start"
  local i id ids=()
  for i in $(seq 1 "$osds"); do
    id=$("${cli[@]}" osd create 2>/dev/null) || abort "ceph osd create failed"
    mkdir -p "$dir/osd/$id"
    ids+=("$id")
  done
  # Each OSD takes about 3 s to make its store and start, mostly waiting on the monitor: all at once.
  for id in "${ids[@]}"; do
    { ceph-osd -c "$conf" -i "$id" --mkfs && ceph-osd -c "$conf" -i "$id"; } >>"$dir/log/start.out" 2>&1 &
  done
  wait || true
  wait_for 60 osds_up || abort "not every OSD came up"
  ceph_cli osd pool create cephfs_data 32
  ceph_cli osd pool create cephfs_metadata 8
  ceph_cli fs new cephfs cephfs_metadata cephfs_data
  mkdir -p "$dir/mds/a"
  ceph-mds -c "$conf" -i a >>"$dir/log/start.out" 2>&1 || abort "ceph-mds did not start"
  wait_for 60 mds_active || abort "the MDS did not become active"
  ceph-fuse -c "$conf" "$mnt" >>"$dir/log/start.out" 2>&1 || abort "ceph-fuse did not mount $mnt"
  wait_for 30 mounted || abort "$mnt did not appear in /proc/mounts"
  wait_for 30 answers || abort "$mnt does not answer"
  # Free space reaches clients once the manager has the OSDs' statistics, a few seconds on.
  wait_for 60 has_space || abort "$mnt shows no free space (the manager has no statistics of the OSDs)"
  echo "file system cephfs: $osds OSDs of $((osd_size >> 20)) MiB in memory, monitor on $address:3300"
  echo "cli ceph -c $conf"
  echo "mount $mnt"
}

here() {  # here PID: the process mounts in this node's mount namespace
  [ "$(readlink "/proc/$1/ns/mnt" 2>/dev/null)" = "$(readlink /proc/self/ns/mnt)" ]
}

mount_here() {
  refuse_unmade "start it first: $me start $dir"
  if mounted; then
    echo "$me: $mnt is mounted here already" >&2
    exit 2
  fi
  mkdir -p "$mnt"
  ceph-fuse -c "$conf" "$mnt" >>"$dir/log/start.out" 2>&1 || { echo "$me: ceph-fuse did not mount $mnt" >&2; exit 1; }
  wait_for 30 mounted && wait_for 30 answers || { echo "$me: $mnt does not answer" >&2; exit 1; }
  echo "mount $mnt"
}

clients_here() {  # the PIDs of this file system's clients in this node's mount namespace
  local file pid
  for file in "$run"/client.*.pid; do
    pid=$(cat "$file" 2>/dev/null)
    if ours "$pid" && here "$pid"; then echo "$pid"; fi
  done
}

unmount_here() {
  refuse_unmade "nothing unmounted"
  set +e
  local pid clients
  clients=$(clients_here)
  unmount_or_force $clients
  # After an unmount its client ends on its own, within a second.
  terminate $clients
  for pid in $clients; do rm -f "$run"/client.*."$pid".pid; done
  ! mounted
}

stop() {
  refuse_unmade "nothing stopped or removed"
  # A teardown goes on past whatever fails: a half-started file system is the case it exists for.
  set +e
  local pids pid left=()
  pids=($(recorded_pids))
  unmount_or_force $(clients_here)
  # Killed, not asked to stop: what they keep is removed below, and asked, they took 5 s to stop
  # (10 s with the MDS lost).
  end_now "${pids[@]}"
  for pid in "${pids[@]}"; do ! ours "$pid" || left+=("$pid"); done
  if [ ${#left[@]} -gt 0 ]; then
    echo "$me: processes ${left[*]} survived SIGKILL" >&2
    exit 1
  fi
  if mounted; then
    echo "$me: $mnt is still mounted: nothing removed" >&2
    exit 1
  fi
  rm -rf "${parts[@]/#/$dir/}"
  rm -f "$marker"
}

status() {
  made_here || { echo "not running: no $what in $dir"; return 3; }
  local file name down=() up=()
  for file in "$run"/*.pid; do
    [ -f "$file" ] || continue
    name=$(basename "$file" .pid)
    if ours "$(cat "$file")"; then up+=("$name pid $(cat "$file")"); else down+=("$name: down"); fi
  done
  if mounted && [ ${#down[@]} -eq 0 ]; then
    echo "running: cephfs, monitor on $address:3300"
  elif anything_running; then
    echo "partly running: cephfs, monitor on $address:3300 (stop it: $me stop $dir)"
  else
    echo "not running"
    return 3
  fi
  mounted && echo "mount $mnt" || echo "mount $mnt: not mounted"
  printf '%s\n' "${up[@]}" "${down[@]}"
  echo "cli ceph -c $conf"
  mounted && [ ${#down[@]} -eq 0 ]
}

case "$action" in
  mount|unmount) "${action}_here" ;;
  *) "$action" ;;
esac
