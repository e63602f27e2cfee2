#!/usr/bin/env bash
# Installs the Debian packages jiobench needs that this machine lacks: `run` for building and
# running (scripts/build-tools.sh calls it as root on Debian when a tool is missing), `test` for the
# test suite as well (Slurm, munge, GlusterFS, Ceph and attr's setfattr for CephFS, Chromium, iproute2 for the nodes of
# scripts/virtual-cluster.sh, Lmod for a cluster's modules). Idempotent and quick when everything
# is present.
# Package scripts are kept from starting system daemons during the install (there is no init
# system to own them); the tests start their own.
set -euo pipefail

run_packages=(openjdk-17-jdk-headless maven gcc make openmpi-bin libopenmpi-dev python3-venv python3-dev libmpj-java)
test_packages=(slurmctld slurmd slurm-client munge glusterfs-server glusterfs-client ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse
               ceph-common attr chromium fonts-dejavu-core iproute2 lmod)

case "${1:-run}" in
  run) wanted=("${run_packages[@]}") ;;
  test) wanted=("${run_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing Debian packages: ${missing[*]}"
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  made_policy=yes
fi
trap '[ -n "$made_policy" ] && $sudo rm -f "$policy"' EXIT
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
