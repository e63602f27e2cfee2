"""scripts/build-tools.sh on a PATH the test makes: every tool a stand-in or a link to this
machine's, so that each can be missing, too old or present, and every call of apt-get, dpkg-query
and sudo is recorded."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from testing import HOME

BUILD_TOOLS = HOME / "scripts" / "build-tools.sh"
# What the script and scripts/debian-packages.sh run besides the tools they look for.
UTILITIES = ["bash", "sed", "dirname", "readlink", "mktemp", "rm", "head", "tr", "sort", "tail", "cut", "cat",
             "grep", "tee", "chmod", "id"]
RUN_PACKAGES = ("openjdk-17-jdk-headless maven gcc make openmpi-bin libopenmpi-dev python3-venv python3-dev "
                "libmpj-java")


class Machine:
    """A directory for PATH, holding links to this machine's utilities and whatever tools a test adds."""

    def __init__(self, root: Path):
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir()
        self.record = root / "calls"
        self.record.touch()
        for name in UTILITIES:
            self.link(name)

    def link(self, name: str) -> None:
        (self.bin / name).symlink_to(shutil.which(name))

    def script(self, name: str, body: str, directory: Path = None) -> Path:
        path = (directory or self.bin) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
        return path

    def recorded(self, name: str, body: str = "exit 0") -> None:
        """A stand-in for `name` that records its call, then does `body`."""
        self.script(name, f'echo "{name} $*" >>{self.record}\n{body}')

    def jdk(self, version: str, javac: bool = True, headers: bool = True) -> Path:
        home = self.root / f"jdk-{version}"
        (home / "bin").mkdir(parents=True)
        (home / "release").write_text(f'JAVA_VERSION="{version}"\n')
        self.script("java", f'echo "    java.version = {version}" >&2', home / "bin")
        if javac:
            self.script("javac", "exit 0", home / "bin")
        if headers:
            (home / "include").mkdir()
            (home / "include" / "jni.h").touch()
        return home

    def calls(self) -> list[str]:
        return self.record.read_text().splitlines()

    def run(self, *args: str, then: str = "", **env: str) -> subprocess.CompletedProcess:
        """build-tools.sh ARGS with this directory as PATH, or first on PATH before `then`."""
        path = f"{self.bin}:{then}" if then else str(self.bin)
        return subprocess.run([str(self.bin / "bash"), str(BUILD_TOOLS), *args], capture_output=True, text=True,
                              timeout=120, env={"PATH": path, "HOME": str(self.root), **env})


@pytest.fixture
def machine(tmp_path):
    return Machine(tmp_path)


def old_tools(machine: Machine) -> Path:
    """A JDK 11, Maven 3.5.4, Python 3.9.2, and neither gcc nor an MPI."""
    jdk = machine.jdk("11.0.2")
    machine.script("mvn", 'echo "Apache Maven 3.5.4 (1edded0938998edf8bf061f1ceb3cfdeccf443fe)"')
    machine.script("python3", "echo 3.9.2")
    return jdk


def test_every_missing_tool_is_named_in_one_line_with_what_was_found(machine):
    jdk = old_tools(machine)
    done = machine.run("check", JAVA_HOME=str(jdk))
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"jiobench: cannot build here, missing a JDK 17 or newer: 11.0.2 at {jdk}; Maven 3.6 or newer: 3.5.4 at "
        f"{machine.bin}/mvn; gcc: not found (no gcc on PATH); an MPI (mpirun or mpiexec, or Slurm's srun): not found "
        f"(no mpirun, mpiexec or srun on PATH); Python 3.11 or newer with venv: 3.9.2 at {machine.bin}/python3. Load "
        "what is missing (module names vary by site, e.g. module load openjdk/17 maven gcc openmpi python/3.11) or "
        "put it on PATH, then run make again"]
    assert machine.calls() == [], "no apt-get or dpkg-query: this is no Debian"


@pytest.mark.parametrize("jdk, said", [
    (dict(javac=False), "no javac in {jdk} (a JRE, not a JDK?)"),
    (dict(headers=False), "17.0.9 at {jdk}, without JNI headers (no include/jni.h)"),
])
def test_a_jdk_that_cannot_build_is_said_so(machine, jdk, said):
    home = machine.jdk("17.0.9", **jdk)
    done = machine.run("check", JAVA_HOME=str(home))
    assert done.returncode == 2
    assert f"missing a JDK 17 or newer: {said.format(jdk=home)};" in done.stderr, done.stderr


def test_the_runs_java_must_be_17_or_newer_too(machine):
    build = machine.jdk("21.0.2")
    old = machine.jdk("11.0.2")
    (machine.bin / "java").symlink_to(old / "bin" / "java")
    done = machine.run("check", JAVA_HOME=str(build))
    assert (f"missing a JDK 17 or newer: the runs' java ({machine.bin}/java) is 11.0.2, the build's JDK {build}: put "
            f"{build}/bin first on PATH or set JIOBENCH_JAVA;") in done.stderr, done.stderr


def test_java_home_naming_nothing_is_said_so_and_maven_is_not_blamed_for_it(machine):
    machine.script("mvn", 'echo "Apache Maven 3.9.16"')
    done = machine.run("check", JAVA_HOME=str(machine.root / "none"))
    assert f"missing a JDK 17 or newer: JAVA_HOME names {machine.root / 'none'}, which is no directory;" in done.stderr
    assert "Maven" not in done.stderr, done.stderr


def test_a_runs_java_that_does_not_run_is_said_so(machine):
    build = machine.jdk("21.0.2")
    done = machine.run("check", JAVA_HOME=str(build), JIOBENCH_JAVA=str(machine.root / "none"))
    assert (f"missing a JDK 17 or newer: the runs' java ({machine.root / 'none'}) does not run, the build's JDK "
            f"{build}:") in done.stderr, done.stderr


def test_on_debian_as_root_what_is_missing_is_installed(machine):
    if os.geteuid() != 0:
        pytest.skip("as root only: the install path is the root one")
    jdk = old_tools(machine)
    machine.recorded("dpkg-query", 'case "$1" in -W) exit 1 ;; esac')  # no package installed
    machine.recorded("apt-get")
    done = machine.run("check", JAVA_HOME=str(jdk))
    calls = machine.calls()
    assert f"apt-get install -y -qq --no-install-recommends {RUN_PACKAGES}" in calls, calls
    assert done.returncode == 2, "the stand-ins installed nothing, and the check after the install says so"
    assert "Installing Debian packages: " + RUN_PACKAGES in done.stdout


def test_on_debian_without_root_nor_a_sudo_that_asks_nobody_nothing_is_installed(machine):
    jdk = old_tools(machine)
    machine.recorded("dpkg-query")
    machine.recorded("apt-get")
    machine.recorded("sudo", 'echo "sudo: a password is required" >&2; exit 1')
    (machine.bin / "id").unlink()
    machine.script("id", "echo 1000")
    done = machine.run("check", JAVA_HOME=str(jdk))
    assert done.returncode == 2 and done.stderr.startswith("jiobench: cannot build here, missing a JDK"), done
    assert machine.calls() == ["apt-get --version", "dpkg-query --version", "sudo -n true"]


def test_with_every_tool_present_nothing_is_asked_of_apt_or_sudo(machine):
    for name in ["dpkg-query", "apt-get", "sudo"]:
        machine.recorded(name, "exit 127")
    (machine.bin / "id").unlink()
    machine.script("id", "echo 1000")
    done = machine.run("check", then=os.environ["PATH"])
    assert done.returncode == 0, done
    found = done.stdout.strip()
    assert found.startswith("Build tools: JDK ") and "; Maven 3." in found and "; gcc " in found, found
    assert "; Open MPI v" in found and "; Python 3." in found, found
    assert machine.calls() == []


def test_the_build_jdk_is_java_home_where_it_is_set(machine):
    chosen = machine.jdk("17.0.9")
    machine.link("javac")
    assert machine.run("maven-env", JAVA_HOME=str(chosen)).stdout == f"JAVA_HOME={chosen}\n"


def test_without_java_home_a_system_jdk_22_or_newer_is_preferred_to_an_older_javac_on_path(machine):
    newest = sorted(Path("/usr/lib/jvm").glob("temurin-2[2-9]-jdk-*"))
    if not newest:
        pytest.skip("no JDK 22 or newer in /usr/lib/jvm")
    (machine.bin / "javac").symlink_to(machine.jdk("17.0.9") / "bin" / "javac")
    assert machine.run("maven-env").stdout.split()[0] == f"JAVA_HOME={newest[-1]}"
    newer_on_path = machine.jdk("23.0.1")
    (machine.bin / "javac").unlink()
    (machine.bin / "javac").symlink_to(newer_on_path / "bin" / "javac")
    assert machine.run("maven-env").stdout.split()[0] == f"JAVA_HOME={newer_on_path}"


PROBE = """#include <mpi.h>
#include <stdio.h>
int main(void) { char v[MPI_MAX_LIBRARY_VERSION_STRING]; int n; MPI_Get_library_version(v, &n); puts(v); return 0; }
"""


def site_library(directory: Path) -> str:
    """The first line of what the library that mpicc builds for says it is, asked here apart from
    the script."""
    mpicc = shutil.which("mpicc")
    if mpicc is None:
        pytest.skip("no mpicc here")
    (directory / "probe.c").write_text(PROBE)
    subprocess.run([mpicc, "-o", str(directory / "probe"), str(directory / "probe.c")], check=True, timeout=60)
    return subprocess.run([str(directory / "probe")], capture_output=True, text=True, check=True,
                          timeout=60).stdout.splitlines()[0]


class Venv:
    """A stand-in for a virtualenv's python: its mpi4py loads the library line in `loads` (none
    while that is empty), and `pip install` records how it was called and, as a build against
    MPICC would, makes mpi4py load `built` from then on."""

    def __init__(self, machine: Machine, loads: str, built: str = "", headers: bool = True):
        self.root = machine.root / "venv"
        self.loads = machine.root / "loads"
        self.loads.write_text(loads)
        (machine.root / "built").write_text(built)
        self.pip_calls = machine.root / "pip-calls"
        self.pip_calls.touch()
        self.python = machine.script("python", f'''case "$*" in
  *Get_library_version*) [ -s {self.loads} ] && cat {self.loads} || exit 1 ;;
  *Python.h*) exit {0 if headers else 1} ;;
  *importlib.metadata*) echo 4.1.2 ;;
  "-m pip install "*) echo "MPICC=$MPICC $*" >>{self.pip_calls}; cp {machine.root / "built"} {self.loads} ;;
esac''', self.root / "bin")

    def builds(self) -> list[str]:
        return self.pip_calls.read_text().splitlines()


def test_mpi4py_whose_wheel_loads_the_mpi_of_mpicc_is_kept(machine):
    library = site_library(machine.root)
    venv = Venv(machine, library)
    done = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"])
    assert done.returncode == 0, done
    assert done.stdout == f"mpi4py (the PyPI wheel) loads {library.split(', package:')[0]}, the MPI of " \
                          f"{shutil.which('mpicc')}\n"
    assert venv.builds() == []


@pytest.mark.parametrize("loads, why", [
    ("Open MPI v5.0.11, package: Open MPI user@localhost Distribution", "the installed one loads Open MPI v5.0.11"),
    ("", "the installed one loads no MPI library"),
])
def test_mpi4py_loading_another_mpi_is_built_from_source_against_mpicc(machine, loads, why):
    library = site_library(machine.root)
    mpicc = shutil.which("mpicc")
    venv = Venv(machine, loads, built=library)
    done = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"])
    assert done.returncode == 0, done
    name = library.split(", package:")[0]
    assert done.stdout.startswith(f"mpi4py: building it from source against {mpicc} ({name}), since {why}; this "
                                  f"takes minutes, once\nmpi4py: built against {mpicc} in "), done.stdout
    assert venv.builds() == [f"MPICC={mpicc} -m pip install -q --no-cache-dir --no-binary mpi4py --force-reinstall "
                             "--no-deps mpi4py==4.1.2"]
    again = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"])
    assert again.stdout == f"mpi4py (built from source against {mpicc}) loads {name}, the MPI of {mpicc}\n"
    assert len(venv.builds()) == 1


def test_jiobench_mpicc_builds_mpi4py_from_source_even_where_the_wheel_fits(machine):
    library = site_library(machine.root)
    mpicc = shutil.which("mpicc")
    venv = Venv(machine, library, built=library)
    done = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"], JIOBENCH_MPICC=mpicc)
    assert done.returncode == 0, done
    assert "since JIOBENCH_MPICC asks for it" in done.stdout
    assert [call.split()[0] for call in venv.builds()] == [f"MPICC={mpicc}"]
    machine.run("mpi4py", str(venv.python), then=os.environ["PATH"], JIOBENCH_MPICC=mpicc)
    assert len(venv.builds()) == 1, "built once for that mpicc"


def test_mpi4py_that_must_be_built_without_python_headers_is_one_line(machine):
    site_library(machine.root)
    venv = Venv(machine, "", headers=False)
    done = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"])
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr == (f"jiobench: mpi4py must be built against {shutil.which('mpicc')} (the installed one loads "
                           "no MPI library), which needs Python's C headers (Python.h): load a python module that has "
                           "them (Debian: python3-dev), then run make again\n")
    assert venv.builds() == []


def test_mpi4py_loading_no_mpi_with_no_mpicc_to_build_against_is_one_line(machine):
    venv = Venv(machine, "")
    done = machine.run("mpi4py", str(venv.python))
    assert done.returncode == 2, done
    assert done.stderr == ("jiobench: mpi4py loads no MPI library, and there is no mpicc to build it against: load the "
                           "site's MPI (e.g. module load openmpi), then run make again\n")


def test_mpi4py_that_still_loads_another_mpi_once_built_is_one_line(machine):
    library = site_library(machine.root)
    other = "Open MPI v5.0.11, package: Open MPI user@localhost Distribution"
    venv = Venv(machine, other, built=other)
    done = machine.run("mpi4py", str(venv.python), then=os.environ["PATH"])
    assert done.returncode == 2, done
    assert done.stderr == (f"jiobench: mpi4py built against {shutil.which('mpicc')} loads Open MPI v5.0.11, not "
                           f"{library.split(', package:')[0]}: is LD_LIBRARY_PATH naming another MPI's lib?\n")
    assert not (venv.root / ".mpi4py-built-with").exists()


def test_maven_on_a_jdk_24_or_newer_is_allowed_the_unsafe_memory_access_of_its_libraries(machine):
    jdk = machine.jdk("25.0.3")
    assert machine.run("maven-env", JAVA_HOME=str(jdk)).stdout == \
        f"JAVA_HOME={jdk} MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow\n"
