"""The runner tests' helpers and fixtures (runner/python/tests/conftest.py: the checkout,
bin/jiobench, a real single-node Slurm, a virtual cluster of several nodes), for the sweep's
tests. Loaded from that file under a name of its own: a second `conftest` module would hide the
runner tests' own when both run at once."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

NAME = "jiobench_runner_tests_conftest"
PATH = Path(__file__).resolve().parents[2] / "runner" / "python" / "tests" / "conftest.py"
# When the runner tests run in the same session, pytest has loaded the file already: the same
# module, so that a session's virtual cluster is one for both trees.
_loaded = sys.modules.get("conftest")
if NAME not in sys.modules and _loaded is not None and Path(_loaded.__file__).resolve() == PATH:
    sys.modules[NAME] = _loaded
if NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(NAME, PATH)
    sys.modules[NAME] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules[NAME])
_conftest = sys.modules[NAME]

HOME = _conftest.HOME
JIOBENCH = _conftest.JIOBENCH
ended = _conftest.ended
assert_at_calibrated_rate = _conftest.assert_at_calibrated_rate
CLUSTER = _conftest.CLUSTER
modern_java = _conftest.modern_java
wait_for_job = _conftest.wait_for_job
slurm = _conftest.slurm  # fixtures: a test module that imports them can use them
virtual_cluster = _conftest.virtual_cluster
