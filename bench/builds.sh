#!/usr/bin/env bash
# The main job (the Makefile's JOB, or the one given) measured by another build of jiobench and by
# this checkout, in turns, round after round, each round in the other order, so that a slow spell
# of a shared machine falls on both alike: what a change does to the figures, approach by
# approach. Prints each approach's median MiB/s per build over all its measured repetitions and the
# ratio of this checkout's to the other's, with its 95% interval and verdict (bench/launchers.py).
#
#   bench/builds.sh REF [ROUNDS] [-- RUNNER-OPTIONS]   (REF a commit, built in a worktree of its own;
#                                                      default 2 rounds; needs `make build` here)
#
# The other build runs with this checkout's virtualenv, its Python sources first on the path.
# KEEP=DIR copies each run's file into DIR/REF-NAME and DIR/this.
set -euo pipefail
home="$(cd "$(dirname "$0")/.." && pwd)"
. "$home/bench/keep.sh"
[ $# -ge 1 ] || { echo "usage: bench/builds.sh REF [ROUNDS] [-- RUNNER-OPTIONS]" >&2; exit 2; }
ref=$1
shift
rounds=2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rounds=$1; shift; fi
[ "${1-}" != "--" ] || shift
if [ $# -gt 0 ]; then job=("$@"); else read -ra job <<<"$(make -s -C "$home" -f - print-job <<<'include Makefile
print-job: ; @echo $(JOB)')"; fi
commit=$(git -C "$home" rev-parse --verify "$ref^{commit}") || { echo "bench/builds.sh: no commit $ref" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/jiobench-builds.XXXXXX")
trap 'git -C "$home" worktree remove --force "$work/other" >/dev/null 2>&1; rm -rf "$work"' EXIT
git -C "$home" worktree add --quiet --detach "$work/other" "$commit"
# package, not install: the other build's modules stay out of the local Maven repository.
(cd "$work/other" && env $("$home/scripts/build-tools.sh" maven-env) mvn -B -ntp -q package -DskipTests)
JIOBENCH_HOME="$work/other" "$home/.venv/bin/python" -m jiobench.run.appcds >/dev/null
name=$(git -C "$home" rev-parse --short "$commit")
other() {
  JIOBENCH_HOME="$work/other" PYTHONPATH="$work/other/runner/python" "$home/.venv/bin/python" -m jiobench.run.cli "$@"
}
this() {
  "$home/bin/jiobench" run "$@"
}
runs=()
for ((round = 0; round < rounds; round++)); do
  for build in $([ $((round % 2)) -eq 0 ] && echo "other this" || echo "this other"); do
    results="$work/results/$([ "$build" = other ] && echo "$name" || echo this)"
    out=$("$build" -n 2 -- "${job[@]}" -o "$work/jiobench.dat" --results "$results")
    runs+=("$(tail -n 1 <<<"$out")")
    keep "$(basename "$results")" "${runs[-1]}"
  done
done
"$home/.venv/bin/python" "$home/bench/launchers.py" --by results "${runs[@]}"
