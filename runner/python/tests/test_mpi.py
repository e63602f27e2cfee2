"""What jiobench makes of each MPI launcher: its family and version, and the flags it may use."""
from __future__ import annotations

import os

import pytest

from jiobench.run import mpi


@pytest.mark.parametrize("text, family, version", [
    ("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/", "open-mpi", "4.1.4"),
    ("mpirun (Open MPI) 5.0.11\n", "open-mpi", "5.0.11"),
    ("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\0", "open-mpi", "4.1.4"),
    ("HYDRA build details:\n    Version:                                 5.0.2\n", "mpich", "5.0.2"),
    ("MPICH Version:      4.0.2\nMPICH Release date: Thu Jan 27 2022", "mpich", "4.0.2"),
    ("Intel(R) MPI Library for Linux* OS, Version 2021.10 Build 20230619", "intel", "2021.10"),
    ("something else entirely", "unknown", ""),
])
def test_a_launcher_or_library_says_which_mpi_it_is(text, family, version):
    found = mpi.identify(text)
    assert (found.family, found.version) == (family, version)


def test_open_mpi_says_what_it_refuses_and_lets_the_ranks_outlive_one_of_them():
    four, five = mpi.identify("mpirun (Open MPI) 4.1.4"), mpi.identify("mpirun (Open MPI) 5.0.11")
    for found in (four, five):
        command = mpi.launch_prefix("mpirun", found, 1, ["--tag-output"])
        assert "-q" not in command, "Open MPI 5 refuses it; Open MPI 4's hides its refusal of the user's options"
        assert "--enable-recovery" in command, "a rank's death would have the others killed, their phases unwritten"
        assert command[:3] == ["mpirun", "-np", "1"] and command[-3:] == ["--bind-to", "none", "--tag-output"]
        assert ("--allow-run-as-root" in command) == (os.geteuid() == 0)


def test_oversubscription_only_beyond_the_cores():
    found = mpi.identify("mpirun (Open MPI) 4.1.4")
    cores = mpi.core_count()
    assert "--oversubscribe" not in mpi.launch_prefix("mpirun", found, cores, [])
    assert "--oversubscribe" in mpi.launch_prefix("mpirun", found, cores + 1, [])
    assert cores <= os.cpu_count(), "slots are cores, never more than the logical CPUs"


def test_hydra_gets_only_the_flags_it_knows():
    assert mpi.launch_prefix("mpiexec", mpi.identify("HYDRA build details:\n Version: 5.0.2"), 3, ["-v"]) == \
        ["mpiexec", "-n", "3", "-v"]

