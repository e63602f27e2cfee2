#!/usr/bin/env bash
# A private GlusterFS volume under one directory, for measuring jiobench on a real cluster file
# system on one machine and for its tests: glusterd, N bricks (one glusterfsd each) in a distributed
# volume with sharding on, so one shared file is cut into shard-size pieces spread over the bricks,
# and a FUSE client mounting it at DIR/mnt.
#
# glusterd runs privately: its working directory (volumes, peers), run directory, logs and CLI
# socket all live under DIR, and it listens on a loopback address of its own (127.x.y.z, derived
# from DIR) on the standard port, so bricks, which always ask the standard port, find it there.
# Several volumes of this script, in different directories, run side by side. Every process is
# stopped by the PID it recorded, never by name. What glusterd still puts at its fixed paths is
# empty and shared by every glusterd of the machine, so it stays: /var/lib/glusterd/ss_brick,
# /var/lib/glusterd/geo-replication/gsyncd_template.conf and /var/run/gluster/snaps.
#
#   scripts/gluster-volume.sh start DIR [--bricks N] [--shard-size SIZE] [--mount-options OPTS]
#                                             # prints: mount DIR/mnt
#   scripts/gluster-volume.sh status DIR      # exit 0 when the volume runs and is mounted
#   scripts/gluster-volume.sh stop DIR        # unmounts, stops every process, removes the bricks'
#                                             # data and glusterd's state; also after a failed start
#
# start writes DIR/made-by-gluster-volume before anything else, and stop refuses a DIR without it
# in one line, touching nothing: a DIR given by mistake keeps its own run/ and pids/. stop ends
# within 30 s even when the client no longer answers (a brick or the client itself stopped): an
# unmount that does not return in 5 s is made lazy and the client killed, and stop says so on
# stderr. log/ and the empty mnt/ stay.
#
# --mount-options direct-io-mode=enable,... passes each KEY[=VALUE] to the FUSE client (glusterfs)
# as --KEY[=VALUE]. The gluster CLI reaches this glusterd with --glusterd-sock=DIR/run/glusterd.socket
# (every command) or --remote-host=127.x.y.z (read-only ones such as volume info).
set -euo pipefail

me=$(basename "$0")
usage="usage: $me start|stop|status DIR [--bricks N] [--shard-size SIZE] [--mount-options KEY[=VALUE],...]"

fail_usage() { echo "$me: $1 ($usage)" >&2; exit 2; }

[ $# -ge 2 ] || fail_usage "an action and a directory are needed"
action=$1
case "$action" in start|stop|status) ;; *) fail_usage "unknown action '$action'" ;; esac
[[ $2 =~ ^[A-Za-z0-9._/-]+$ ]] || fail_usage "DIR may hold only letters, digits and . _ - / (glusterd's brick paths)"
dir=$(realpath -m "$2")
shift 2

bricks=4
shard_size=4MB
mount_options=""
while [ $# -gt 0 ]; do
  [ "$action" = start ] || fail_usage "$action takes no options"
  [ $# -ge 2 ] || fail_usage "$1 needs a value"
  case "$1" in
    --bricks)
      [[ $2 =~ ^[1-9][0-9]?$ ]] || fail_usage "--bricks takes a number from 1 to 99, not '$2'"
      bricks=$2 ;;
    --shard-size)
      # gluster's own units, where MB means 2^20 bytes; 4MB is the smallest shard it accepts.
      [[ $2 =~ ^([0-9]+)(MB|GB|MiB|GiB)$ ]] || fail_usage "--shard-size takes a size like 4MB, 64MB or 1GB, not '$2'"
      number=$((10#${BASH_REMATCH[1]}))
      case "${BASH_REMATCH[2]}" in MB|MiB) unit=MB smallest=4 ;; *) unit=GB smallest=1 ;; esac
      [ "$number" -ge "$smallest" ] || fail_usage "--shard-size must be at least 4MB, not '$2'"
      shard_size=$number$unit ;;
    --mount-options)
      [[ $2 =~ ^[a-z][a-z0-9-]*(=[^,[:space:]]+)?(,[a-z][a-z0-9-]*(=[^,[:space:]]+)?)*$ ]] \
        || fail_usage "--mount-options takes KEY[=VALUE],... like direct-io-mode=enable, not '$2'"
      mount_options=$2 ;;
    *) fail_usage "unknown option '$1'" ;;
  esac
  shift 2
done

# Unix sockets take at most 107 bytes of path.
[ ${#dir} -le 80 ] || fail_usage "DIR '$dir' is too long for glusterd's socket (80 characters at most)"

. "$(dirname "$(readlink -f "$0")")/wait-for.sh"
. "$(dirname "$(readlink -f "$0")")/daemons-under-dir.sh"

hash=$(printf %s "$dir" | sha1sum)
volume=jio-${hash:0:10}
address=$(loopback_address)
mnt=$dir/mnt
pids=$dir/pids
socket=$dir/run/glusterd.socket
cli=(gluster --mode=script "--glusterd-sock=$socket" "--log-file=$dir/log/cli.log")
what=volume
marker=$dir/made-by-gluster-volume
made="made by gluster-volume.sh start $dir"
# What start makes in DIR and replaces in a DIR of its own, and stop removes.
parts=(state run bricks pids glusterd.vol)

recorded_pids() {  # every PID recorded under DIR: ours and glusterd's own files for its bricks
  cat "$pids"/*.pid "$dir"/run/vols/*/*.pid 2>/dev/null | sort -un
}

mounted() { awk -v m="$mnt" '$2 == m && $3 == "fuse.glusterfs" { found = 1 } END { exit !found }' /proc/mounts; }

brick_status() {  # prints "PATH PID" per brick as glusterd reports it; PID -1 while offline
  "${cli[@]}" volume status "$volume" --xml 2>/dev/null \
    | sed -n 's:.*<path>\(.*\)</path>.*:\1:p; s:.*<pid>\(.*\)</pid>.*:\1:p' | paste -d' ' - -
}

all_bricks_online() { [ "$(brick_status | awk '$2 > 0' | wc -l)" -eq "$bricks" ]; }

gluster_cli() {  # gluster_cli ARGS...: the CLI of this glusterd; its error line ends the start
  local said
  said=$("${cli[@]}" "$@" 2>&1) || abort "gluster $*: $said"
}

start() {
  refuse_foreign "${parts[@]}"
  for tool in glusterd gluster glusterfs; do
    command -v "$tool" >/dev/null \
      || { echo "$me: $tool is missing (Debian: glusterfs-server glusterfs-client)" >&2; exit 1; }
  done
  if anything_running; then
    echo "$me: a volume already runs in $dir (stop it first: $me stop $dir)" >&2
    exit 2
  fi
  if port_taken "$address" 24007; then
    echo "$me: port 24007 is taken on $address or on every address (a glusterd of the system?)" >&2
    exit 2
  fi
  local client_args=() option client_help
  client_help=$(glusterfs --help)
  if [ -n "$mount_options" ]; then
    for option in ${mount_options//,/ }; do
      grep -qE -- "--${option%%=*}(\[|=| |$)" <<<"$client_help" \
        || fail_usage "--mount-options: the glusterfs client has no option '${option%%=*}'"
      client_args+=("--$option")
    done
  fi
  mkdir -p "$dir"
  echo "$made" >"$marker"
  # Whatever an earlier, crashed run left is stale: bricks that belonged to a volume refuse to
  # join a new one, and glusterd would try to restart the volumes of its old state.
  rm -rf "${parts[@]/#/$dir/}"
  mkdir -p "$dir/state" "$dir/run" "$dir/log" "$pids" "$mnt"
  cat >"$dir/glusterd.vol" <<VOL
volume management
    type mgmt/glusterd
    option working-directory $dir/state
    option run-directory $dir/run
    option logging-directory $dir/log
    option glusterd-sockfile $socket
    option transport-type socket
    option transport.socket.bind-address $address
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
end-volume
VOL
  glusterd -f "$dir/glusterd.vol" --log-file="$dir/log/glusterd.log" -p "$pids/glusterd.pid" \
    || abort "glusterd did not start"
  wait_for 30 "${cli[@]}" volume list || abort "glusterd did not come up on $address:24007"
  local paths=() i
  for i in $(seq 1 "$bricks"); do
    mkdir -p "$dir/bricks/b$i"
    paths+=("$address:$dir/bricks/b$i")
  done
  # force: the bricks sit on the root file system, which gluster otherwise refuses.
  gluster_cli volume create "$volume" "${paths[@]}" force
  gluster_cli volume set "$volume" features.shard on
  gluster_cli volume set "$volume" features.shard-block-size "$shard_size"
  gluster_cli volume start "$volume"
  wait_for 30 all_bricks_online || abort "not every brick came online"
  local path pid
  while read -r path pid; do
    echo "$pid" >"$pids/brick-${path##*/b}.pid"
    # glusterfsd leaves its socket in the system's /var/run/gluster behind; stop removes it.
    tr '\0' '\n' <"/proc/$pid/cmdline" | sed -n '/^-S$/{n;p}' >>"$dir/run/brick-sockets"
  done < <(brick_status)
  glusterfs --process-name fuse --volfile-server="$address" --volfile-id="$volume" \
    --log-file="$dir/log/mnt.log" --pid-file="$pids/client.pid" "${client_args[@]}" "$mnt" \
    || abort "the FUSE client did not start"
  wait_for 30 mounted || abort "$mnt did not appear in /proc/mounts"
  wait_for 30 answers || abort "$mnt does not answer"
  echo "volume $volume: $bricks bricks under $dir/bricks, shards of $shard_size, glusterd on $address"
  echo "mount $mnt"
}

stop() {
  refuse_unmade "nothing stopped or removed"
  # A teardown goes on past whatever fails: a half-started volume is the case it exists for.
  set +e
  local sockets=() pid all=()
  [ -f "$dir/run/brick-sockets" ] && mapfile -t sockets <"$dir/run/brick-sockets"
  for pid in $(recorded_pids); do
    all+=("$pid")
    # Bricks that start failed to record still name their socket on their command line.
    ours "$pid" && sockets+=($(tr '\0' '\n' <"/proc/$pid/cmdline" | sed -n '/^-S$/{n;p}'))
  done
  unmount_or_force "$(cat "$pids/client.pid" 2>/dev/null)"
  # Every process at once, glusterd too, not asked to stop and delete the volume first: its
  # record of the volume is its working directory, removed below, and that volume stop took 4 s
  # once a brick had stopped answering.
  terminate "${all[@]}"
  for socket_file in "${sockets[@]}"; do
    case "$socket_file" in /var/run/gluster/*.socket|/run/gluster/*.socket) rm -f "$socket_file" ;; esac
  done
  local left=()
  for pid in "${all[@]}"; do ! ours "$pid" || left+=("$pid"); done
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
  local code=0 pid path
  if mounted && ours "$(cat "$pids/glusterd.pid" 2>/dev/null)" && ours "$(cat "$pids/client.pid" 2>/dev/null)"; then
    echo "running: volume $volume, glusterd on $address"
  elif anything_running; then
    echo "partly running: volume $volume, glusterd on $address (stop it: $me stop $dir)"
    code=1
  else
    echo "not running"
    return 3
  fi
  mounted && echo "mount $mnt" || echo "mount $mnt: not mounted"
  for pid in "$pids"/brick-*.pid; do
    [ -f "$pid" ] || continue
    path=$dir/bricks/b$(basename "$pid" .pid | sed 's/^brick-//')
    ours "$(cat "$pid")" && echo "brick $path pid $(cat "$pid")" || { echo "brick $path: down"; code=1; }
  done
  for name in glusterd client; do
    ours "$(cat "$pids/$name.pid" 2>/dev/null)" && echo "$name pid $(cat "$pids/$name.pid")" \
      || { echo "$name: down"; code=1; }
  done
  echo "cli gluster --glusterd-sock=$socket"
  return $code
}

"$action"
