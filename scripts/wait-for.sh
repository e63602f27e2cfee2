# Sourced by the scripts that start daemons for jiobench's tests (slurm/local-cluster.sh,
# scripts/gluster-volume.sh).

wait_for() {  # wait_for SECONDS COMMAND...: polls until the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}
