# Sourced by the scripts that run daemons under one directory of their own, $dir, and stop them
# by the PIDs they recorded, never by name (scripts/gluster-volume.sh, scripts/ceph-volume.sh).
# Needs wait-for.sh, and from the script: $me; $what (what it makes: "file system", "volume");
# $marker and $made (the file start writes first and its words, below); $mnt (where its client
# mounts); and the functions recorded_pids (every PID it recorded), mounted (its client's mount
# is up) and stop.

started=${EPOCHREALTIME/./}
say() {  # what a command had to do on stderr, with the seconds since it began (virtual-cluster.sh's)
  local micros=$((${EPOCHREALTIME/./} - started))
  printf '%s: [%3d.%02d s] %s\n' "$me" $((micros / 1000000)) $((micros % 1000000 / 10000)) "$*" >&2
}

# Whose directory DIR is. start writes $marker, whose name and words are the script's and DIR's,
# before it makes anything there, and stop removes it last, once everything else is gone: stop,
# mount and unmount act only where it stands, so a DIR given by mistake (a user's own run/, osd/,
# mon/) or one of the other script's is left as it is, and a start that failed halfway, whatever
# it had made, is still stopped.
made_here() { [ "$(cat "$marker" 2>/dev/null)" = "$made" ]; }

not_made_here() {  # why $dir is not this script's, in a few words
  local other why="it has no ${marker##*/}"
  [ ! -f "$marker" ] || why="its ${marker##*/} does not read '$made'"
  for other in "$dir"/made-by-*-volume; do
    [ "$other" != "$marker" ] && [ -f "$other" ] && why="${other##*/made-by-}.sh made what is there"
  done
  echo "$why"
}

refuse_unmade() {  # refuse_unmade OUTCOME: one line and exit 2 unless $dir bears this script's marker
  made_here && return 0
  echo "$me: no $what in $dir ($(not_made_here)): $1" >&2
  exit 2
}

refuse_foreign() {  # refuse_foreign NAME...: one line and exit 2 where $dir holds any of them without the marker
  made_here && return 0
  local name found=()
  for name in "$@"; do [ ! -e "$dir/$name" ] && [ ! -L "$dir/$name" ] || found+=("$name"); done
  [ ${#found[@]} -eq 0 ] && return 0
  echo "$me: $dir holds ${found[*]}, which $me did not make ($(not_made_here)): nothing started;" \
    "choose another directory" >&2
  exit 2
}

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

alive() {  # alive PID: a process, and not a zombie that its parent has yet to collect
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "${state%% *}" != Z ]
}

ours() {  # ours PID: alive and started for $dir: its command line names a path under it
  local pid=$1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
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
  # CONT after TERM, as systemd sends it: a stopped process acts on a TERM it handles only once
  # it runs again, and would spend the whole grace period stopped.
  for pid in "$@"; do ! ours "$pid" || { kill "$pid"; kill -CONT "$pid"; } 2>/dev/null; done
  wait_for 10 gone "$@" && return 0
  end_now "$@"
}

# A FUSE client that no longer answers (its MDS or a brick lost, or the client itself stopped)
# holds every call that looks at its mount, umount(8) included, which stats the path first: in a
# wait that neither `timeout` nor SIGKILL ends (state D in the kernel's request_wait_answer,
# measured here until ceph-fuse itself was killed). So the mount is found in the text of
# /proc/mounts, never by touching its path; each call that touches it runs in the background and
# is given up on after a few seconds; and what ends such a wait for sure is the client's end,
# which fails every call still waiting on it.
within() {  # within SECONDS COMMAND...: the command's status if it ends in time, else 124 (it runs on)
  local seconds=$1 pid
  shift
  "$@" >/dev/null 2>&1 &
  pid=$!
  wait_for "$seconds" ended "$pid" || return 124
  wait "$pid"
}

ended() { ! alive "$1"; }

answers() { within 5 stat "$mnt/."; }  # the client answers a call on its mount

unmounted_or_ended() { ! mounted || ended "$1"; }

unmount_or_force() {  # unmount_or_force CLIENT_PID...: $mnt unmounted here within 14 s, answering or not
  mounted || return 0
  local umount pid
  # --no-canonicalize: the path is DIR's real path already, and umount would stat it.
  umount --no-canonicalize "$mnt" >/dev/null 2>&1 &
  umount=$!
  wait_for 5 unmounted_or_ended "$umount"
  mounted || return 0
  if alive "$umount"; then
    say "umount $mnt did not return within 5 s (its client does not answer): detaching it (umount -l)"
  else
    say "umount $mnt failed (busy, or its client does not answer): detaching it (umount -l)"
  fi
  within 2 umount --lazy --no-canonicalize "$mnt" || true
  # A client left behind a detached mount still holds every call waiting on it.
  for pid in "$@"; do
    if ours "$pid"; then say "killing the client of $mnt, pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"; fi
  done
  end_now "$@" || true
  if mounted; then within 2 umount --lazy --no-canonicalize "$mnt" || true; fi
  if mounted; then say "$mnt is still mounted"; return 1; fi
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
