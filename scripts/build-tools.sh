#!/usr/bin/env bash
# The tools jiobench builds and runs with, found by command and version wherever they come from
# (`module load`, PATH, JAVA_HOME) rather than by Debian package: clusters are rarely Debian, and
# their users are not root.
#
#   build-tools.sh check          says what was found. What is missing is installed only on
#                                 Debian/Ubuntu as root, or with a sudo that asks no password
#                                 (scripts/debian-packages.sh); anywhere else it is named in one
#                                 line, with what would do and the usual module names, exit 2.
#   build-tools.sh maven-env      JAVA_HOME=JDK (the JDK Maven is to run on) and the MAVEN_OPTS
#                                 that JDK needs, for the Makefile to put before mvn; or nothing
#   build-tools.sh mpi4py PYTHON  makes PYTHON's mpi4py load the MPI library that mpicc builds
#                                 against (JIOBENCH_MPICC, else mpicc on PATH): it keeps the PyPI
#                                 wheel where that is so, and builds mpi4py from source otherwise.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

# What each tool needs, and the module that usually provides it.
declare -A need=([jdk]="a JDK 17 or newer" [maven]="Maven 3.6 or newer" [cc]="gcc"
                 [mpi]="an MPI (mpirun or mpiexec, or Slurm's srun)" [python]="Python 3.11 or newer with venv")
declare -A module=([jdk]="openjdk/17" [maven]="maven" [cc]="gcc" [mpi]="openmpi" [python]="python/3.11")
order=(jdk maven cc mpi python)

version_at_least() {  # VERSION MAJOR [MINOR]: "3.9.16" is at least 3 6, "25.0.3" at least 17
  [[ $1 =~ ^([0-9]+)(\.([0-9]+))? ]] || return 1
  local major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[3]:-0}
  (( major > $2 || (major == $2 && minor >= ${3:-0}) ))
}

join() {  # SEPARATOR WORD... -> the words with SEPARATOR between them
  local separator="$1" joined="$2"
  shift 2
  for word; do joined+="$separator$word"; done
  echo "$joined"
}

jdk_version() {  # JDK home -> the version its release file names
  sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$1/release" 2>/dev/null
}

# The JDK Maven runs on, and whose JNI headers build jni-bulk: JAVA_HOME where it is set (a
# module's, or the user's own choice); else the JDK of javac on PATH, unless that is older than 22
# and the system has a JDK 22 or newer in /usr/lib/jvm, which builds the ffm approach as well.
build_jdk() {
  if [ -n "${JAVA_HOME:-}" ]; then
    echo "$JAVA_HOME"
    return
  fi
  local javac on_path="" newest="" candidate
  javac="$(command -v javac)" && on_path="$(dirname "$(dirname "$(readlink -f "$javac")")")"
  if [ -z "$on_path" ] || ! version_at_least "$(jdk_version "$on_path")" 22; then
    newest="$(for candidate in /usr/lib/jvm/*/; do
                candidate="${candidate%/}"
                [ ! -L "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
                version_at_least "$(jdk_version "$candidate")" 22 && echo "$(jdk_version "$candidate") $candidate"
              done | sort -V | tail -n 1 | cut -d' ' -f2-)"
  fi
  echo "${newest:-$on_path}"
}

maven_env() {
  local jdk
  jdk="$(build_jdk)"
  [ -n "$jdk" ] || return 0
  # JDK 24 and later warn about sun.misc.Unsafe in Maven's own libraries unless told it is allowed.
  if version_at_least "$(jdk_version "$jdk")" 24; then
    echo "JAVA_HOME=$jdk MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow"
  else
    echo "JAVA_HOME=$jdk"
  fi
}

# Each check sets found[TOOL] (what is there, for the summary) or missing[TOOL] (what is there
# instead: a version, or "not found" and where it was looked for).
declare -A found missing

check_jdk() {
  local jdk version java
  jdk="$(build_jdk)"
  if [ -z "$jdk" ]; then
    missing[jdk]="not found (JAVA_HOME is not set and there is no javac on PATH)"
    return
  fi
  version="$(jdk_version "$jdk")"
  if [ ! -d "$jdk" ]; then
    missing[jdk]="JAVA_HOME names $jdk, which is no directory"
  elif [ ! -x "$jdk/bin/javac" ]; then
    missing[jdk]="no javac in ${jdk} (a JRE, not a JDK?)"
  elif ! version_at_least "${version#1.}" 17; then  # "1.8.0_392" is Java 8
    missing[jdk]="${version:-an unknown version} at $jdk"
  elif [ ! -f "$jdk/include/jni.h" ]; then
    missing[jdk]="$version at $jdk, without JNI headers (no include/jni.h)"
  else
    found[jdk]="JDK $version ($jdk)"
  fi
  # Runs start the java on PATH, or JIOBENCH_JAVA: it must be 17 or newer too.
  java="${JIOBENCH_JAVA:-$(command -v java)}"
  version="$("${java:-java}" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.version = //p')"
  if [ -z "${missing[jdk]:-}" ] && ! version_at_least "${version#1.}" 17; then
    [ -n "$version" ] && version="is $version" || version="does not run"
    missing[jdk]="the runs' java (${java:-java on PATH}) $version, the build's JDK $jdk: put $jdk/bin first on PATH or set JIOBENCH_JAVA"
  fi
}

check_maven() {
  local mvn version jdk
  if ! mvn="$(command -v mvn)"; then
    missing[maven]="not found (no mvn on PATH)"
    return
  fi
  jdk="$(build_jdk)"
  if [ -z "$jdk" ] || [ ! -x "$jdk/bin/java" ]; then
    found[maven]="Maven at $mvn"  # its version needs a java to ask, and there is none
    return
  fi
  version="$(JAVA_HOME="$jdk" "$mvn" -B -v 2>/dev/null | sed -n 's/.*Apache Maven \([0-9][0-9.]*\).*/\1/p')"
  if version_at_least "$version" 3 6; then
    found[maven]="Maven $version"
  else
    missing[maven]="${version:-an unknown version} at $mvn"
  fi
}

check_cc() {
  if command -v gcc >/dev/null && gcc --version >/dev/null 2>&1; then
    found[cc]="$(gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /')"
  else
    missing[cc]="not found (no gcc on PATH)"
  fi
}

# The first line of what MPI_Get_library_version says of the library a program built with mpicc
# loads: the MPI that mpi4py is to load too. Empty when mpicc cannot build one.
site_mpi_library() {  # MPICC
  local probe
  probe="$(mktemp -d)"
  printf '%s\n' '#include <mpi.h>' '#include <stdio.h>' \
    'int main(void) { char v[MPI_MAX_LIBRARY_VERSION_STRING]; int n; MPI_Get_library_version(v, &n); puts(v); return 0; }' \
    >"$probe/probe.c"
  "$1" -o "$probe/probe" "$probe/probe.c" >/dev/null 2>&1 && "$probe/probe" 2>/dev/null | head -n 1 | tr -d '\0'
  rm -rf "$probe"
}

mpi_name() {  # a library version line -> "Open MPI v5.0.11" (Open MPI adds package, ident and date)
  local line="${1%%, package:*}"
  echo "$line" | tr -s ' \t' ' '
}

check_mpi() {
  local launcher mpicc library srun
  launcher="$(command -v mpirun || command -v mpiexec)"
  srun="$(command -v srun)"
  mpicc="${JIOBENCH_MPICC:-$(command -v mpicc)}"
  if [ -z "$launcher" ] && [ -z "$srun" ]; then
    missing[mpi]="not found (no mpirun, mpiexec or srun on PATH)"
    return
  fi
  if [ -n "$mpicc" ]; then
    library="$(site_mpi_library "$mpicc")"
    if [ -z "$library" ]; then
      missing[mpi]="$mpicc cannot build an MPI program"
      return
    fi
    found[mpi]="$(mpi_name "$library") ($mpicc${launcher:+, $launcher}${srun:+, $srun})"
  elif [ -n "$launcher" ]; then
    found[mpi]="$("$launcher" --version 2>&1 | head -n 1) ($launcher, no mpicc)"
  else
    found[mpi]="$("$srun" --version 2>&1 | head -n 1) ($srun, no mpicc)"
  fi
}

check_python() {
  local python version
  if ! python="$(command -v python3)"; then
    missing[python]="not found (no python3 on PATH)"
    return
  fi
  version="$("$python" -c 'import platform; print(platform.python_version())' 2>/dev/null)"
  if ! version_at_least "$version" 3 11; then
    missing[python]="${version:-an unknown version} at $python"
  elif ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    missing[python]="$version at $python, without venv (Debian: python3-venv)"
  else
    found[python]="Python $version"
  fi
}

check_all() {
  found=() missing=()
  local tool
  for tool in "${order[@]}"; do
    "check_$tool"
  done
}

# Debian or Ubuntu, and a way to install packages there that asks nobody.
can_install_debian() {
  apt-get --version >/dev/null 2>&1 && dpkg-query --version >/dev/null 2>&1 || return 1
  [ "$(id -u)" -eq 0 ] && return 0
  sudo -n true 2>/dev/null
}

missing_line() {
  local tool parts=() modules=()
  for tool in "${order[@]}"; do
    [ -n "${missing[$tool]:-}" ] || continue
    parts+=("${need[$tool]}: ${missing[$tool]}")
    modules+=("${module[$tool]}")
  done
  echo "jiobench: cannot build here, missing $(join "; " "${parts[@]}"). Load what is missing (module" \
       "names vary by site, e.g. module load ${modules[*]}) or put it on PATH, then run make again"
}

check() {
  check_all
  if [ ${#missing[@]} -gt 0 ] && can_install_debian; then
    "$here/debian-packages.sh" run || exit
    check_all
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    missing_line >&2
    exit 2
  fi
  local tool summary=()
  for tool in "${order[@]}"; do
    summary+=("${found[$tool]}")
  done
  echo "Build tools: $(join "; " "${summary[@]}")"
}

mpi4py_library() {  # PYTHON -> the first line of what its mpi4py's MPI library says; empty when it loads none
  "$1" -c 'import mpi4py
mpi4py.rc.initialize = False
from mpi4py import MPI
print(MPI.Get_library_version().strip().strip("\0").splitlines()[0])' 2>/dev/null
}

# PyPI's mpi4py wheel loads whichever libmpi the dynamic loader finds first, which need not be the
# MPI that the site's mpirun or srun starts ranks with: then every rank would think it runs alone.
fit_mpi4py() {  # PYTHON
  local python="$1" record mpicc site current built_with reason version started
  record="$(dirname "$(dirname "$python")")/.mpi4py-built-with"
  mpicc="${JIOBENCH_MPICC:-$(command -v mpicc)}"
  current="$(mpi4py_library "$python")"
  if [ -z "$mpicc" ]; then
    if [ -n "$current" ]; then
      echo "mpi4py loads $(mpi_name "$current") (no mpicc on PATH to check it against the site's MPI)"
      return
    fi
    echo "jiobench: mpi4py loads no MPI library, and there is no mpicc to build it against: load the site's MPI" \
         "(e.g. module load openmpi), then run make again" >&2
    exit 2
  fi
  site="$(site_mpi_library "$mpicc")"
  if [ -z "$site" ]; then
    echo "jiobench: $mpicc cannot build an MPI program, so mpi4py cannot be built against it" >&2
    exit 2
  fi
  built_with="$mpicc: $site"
  if [ "$current" = "$site" ] && [ "$(cat "$record" 2>/dev/null)" = "$built_with" ]; then
    echo "mpi4py (built from source against $mpicc) loads $(mpi_name "$site"), the MPI of $mpicc"
    return
  elif [ "$current" = "$site" ] && [ -z "${JIOBENCH_MPICC:-}" ]; then
    echo "mpi4py (the PyPI wheel) loads $(mpi_name "$site"), the MPI of $mpicc"
    return
  elif [ "$current" = "$site" ]; then
    reason="JIOBENCH_MPICC asks for it"
  elif [ -n "$current" ]; then
    reason="the installed one loads $(mpi_name "$current")"
  else
    reason="the installed one loads no MPI library"
  fi
  if ! "$python" -c 'import os, sysconfig
raise SystemExit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    echo "jiobench: mpi4py must be built against $mpicc ($reason), which needs Python's C headers (Python.h):" \
         "load a python module that has them (Debian: python3-dev), then run make again" >&2
    exit 2
  fi
  echo "mpi4py: building it from source against $mpicc ($(mpi_name "$site")), since $reason; this takes minutes, once"
  started=$SECONDS
  version="$("$python" -c 'from importlib.metadata import version; print(version("mpi4py"))' 2>/dev/null)"
  # No cache: a wheel pip built earlier may have been built against another MPI.
  MPICC="$mpicc" "$python" -m pip install -q --no-cache-dir --no-binary mpi4py --force-reinstall --no-deps \
    "mpi4py${version:+==$version}" || exit
  current="$(mpi4py_library "$python")"
  if [ "$current" != "$site" ]; then
    echo "jiobench: mpi4py built against $mpicc loads $(mpi_name "${current:-no MPI library}"), not $(mpi_name "$site"):" \
         "is LD_LIBRARY_PATH naming another MPI's lib?" >&2
    exit 2
  fi
  echo "$built_with" >"$record"
  echo "mpi4py: built against $mpicc in $((SECONDS - started)) s"
}

case "${1-}" in
  check) check ;;
  maven-env) maven_env ;;
  mpi4py) [ $# -eq 2 ] || { echo "usage: $0 mpi4py PYTHON" >&2; exit 2; }; fit_mpi4py "$2" ;;
  *) echo "usage: $0 check | maven-env | mpi4py PYTHON" >&2; exit 2 ;;
esac
