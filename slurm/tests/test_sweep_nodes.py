"""`jiobench sweep` on the nodes of a virtual cluster (scripts/virtual-cluster.sh): points of 1,
2 and 3 nodes as jobs of their own, and points of 1 and 2 nodes as steps of one allocation; the
sweep's directory on the cluster's shared home, the test files on its GlusterFS volume."""
from __future__ import annotations

import json
from pathlib import Path

from testing import JIOBENCH, ended

TASKS_PER_NODE = 2
# One JVM a rank for both approaches (--forks 0): what is tested is the sweep's placement.
SMALL_RUNS = ("-a", "c-posix,raw-bytes", "-b", "4MiB", "-t", "1MiB", "--warmup", "0", "--forks", "0", "--verify")


def sweep_on_node1(cluster, directory: Path, *args: str):
    """`jiobench sweep` as a user runs it on the cluster's first node, from the sweep's parent."""
    return cluster.exec(1, str(JIOBENCH), "sweep", *args, timeout=120, cwd=directory.parent)


def check_every_point(cluster, directory: Path, count: int) -> list[dict]:
    """Waits for the report job; every point completed with its ranks on its own nodes, and the
    report has them all. The points, as the manifest holds them."""
    manifest = json.loads((directory / "sweep.json").read_text())
    assert cluster.wait_for_job(manifest["report"]["job_id"], timeout=240) == "COMPLETED"
    status = sweep_on_node1(cluster, directory, "status", str(directory))
    assert f"{count} points: {count} COMPLETED; run files: {count} complete" in status.stdout, \
        status.stdout + "".join(f"\n--- {log.name}:\n{log.read_text(errors='replace')[-3000:]}"
                                for log in sorted((directory / "logs").iterdir()))
    points = manifest["points"]
    for point in points:
        environment = json.loads((directory / point["run_file"]).read_text())["environment"]
        assert sorted(environment["ranks_per_host"].values()) == [TASKS_PER_NODE] * point["nodes"], environment
        assert set(environment["hosts"]) <= set(cluster.nodes)
    report = (directory / "report" / "bandwidth.csv").read_text()
    assert all(point["id"] in report for point in points), report
    return points


def test_nodes_and_tasks_per_node_make_a_job_per_node_count(virtual_cluster):
    cluster = virtual_cluster
    directory = cluster.home / "sweep-jobs"
    done = sweep_on_node1(cluster, directory, "--dir", str(directory), "--nodes", "1,2,3", "--tasks-per-node",
                          str(TASKS_PER_NODE), "--submit", "--", *SMALL_RUNS, "-o", str(cluster.mount / "jobs.dat"))
    assert done.returncode == 0, ended(done)
    points = check_every_point(cluster, directory, 3)
    assert [(point["nodes"], point["procs"]) for point in points] == [(1, 2), (2, 4), (3, 6)]
    assert len({point["job_id"] for point in points}) == 3


def test_one_allocation_of_two_nodes_runs_every_point_as_a_step(virtual_cluster):
    cluster = virtual_cluster
    directory = cluster.home / "sweep-allocation"
    done = sweep_on_node1(cluster, directory, "--dir", str(directory), "--nodes", "1,2", "--tasks-per-node",
                          str(TASKS_PER_NODE), "--allocation", "--", *SMALL_RUNS,
                          "-o", str(cluster.mount / "allocation.dat"))
    assert done.returncode == 0, ended(done)
    points = check_every_point(cluster, directory, 2)
    assert [(point["nodes"], point["procs"]) for point in points] == [(1, 2), (2, 4)]
    assert len({point["job_id"] for point in points}) == 1
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks=4\n" in (directory / "jobs" / "allocation.sbatch").read_text()
