# Sourced by the scripts that run daemons under one directory of their own, $dir, and stop them
# by the PIDs they recorded, never by name (scripts/gluster-volume.sh, scripts/ceph-volume.sh).
# Needs wait-for.sh, and from the script: $me, and the functions recorded_pids (every PID it
# recorded), mounted (its client's mount is up) and stop.

# A loopback address of $dir's own, 127.x.y.z: several of these scripts' daemons listen on their
# standard ports side by side. 127.0.0.0/16 is left alone: 127.0.0.1 and Debian's 127.0.1.1 for the
# host name live there.
loopback_address() {
  local hash
  hash=$(printf %s "$dir" | sha1sum)
  echo "127.$((16#${hash:10:2} % 254 + 1)).$((16#${hash:12:2})).$((16#${hash:14:2} % 254 + 1))"
}

anything_running() {
  mounted && return 0
  local pid
  for pid in $(recorded_pids); do ours "$pid" && return 0; done
  return 1
}

abort() {  # abort MESSAGE: a start that fails halfway leaves nothing running
  echo "$me: $1; see $dir/log" >&2
  stop
  exit 1
}

ours() {  # ours PID: alive (a zombie is not) and started for $dir: its command line names a path under it
  local pid=$1 state
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "${state%% *}" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir/"
}

gone() {  # gone PID...: none of them is ours any more
  local pid
  for pid in "$@"; do ! ours "$pid" || return 1; done
}

end_now() {  # end_now PID...: KILL to all at once: daemons whose state goes with them, or past their grace
  local pid
  for pid in "$@"; do ! ours "$pid" || kill -9 "$pid" 2>/dev/null; done
  wait_for 5 gone "$@"
}

terminate() {  # terminate PID...: TERM to all at once, a grace period, then end_now
  local pid
  for pid in "$@"; do ! ours "$pid" || kill "$pid" 2>/dev/null; done
  wait_for 10 gone "$@" && return 0
  end_now "$@"
}

port_taken() {  # port_taken ADDRESS PORT: something listens on the TCP port there or on every address
  local a b c d ours_hex port_hex
  IFS=. read -r a b c d <<<"$1"
  printf -v ours_hex '%02X%02X%02X%02X' "$d" "$c" "$b" "$a"  # /proc/net/tcp's byte order
  printf -v port_hex '%04X' "$2"
  awk -v ours="$ours_hex" -v port="$port_hex" '$4 == "0A" { split($2, local_address, ":")
      if (local_address[2] == port && (local_address[1] ~ /^0+$/ || local_address[1] == ours)) found = 1 }
    END { exit !found }' /proc/net/tcp /proc/net/tcp6
}
