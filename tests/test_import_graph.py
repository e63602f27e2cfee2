"""Every import among jiobench's Python modules points down: no circles, nothing of the runner or the
analysis reaches into a verb above it (scripts/import_graph.py holds the rules)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

from testing import HOME

SCRIPT = HOME / "scripts" / "import_graph.py"
spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
import_graph = importlib.util.module_from_spec(spec)
spec.loader.exec_module(import_graph)


def test_the_packages_keep_every_rule():
    assert import_graph.broken_rules(import_graph.graph()) == []


def test_the_graph_holds_what_each_module_imports():
    imports = import_graph.graph()
    assert "jiobench.run.launch" in imports["jiobench.run.cli"] and "jiobench.run.mpj" in imports["jiobench.run.launch"]
    assert "jiobench.model.stats" in imports["jiobench.model.reduce"]
    # The model at the bottom imports nothing of jiobench above it.
    assert all(target.startswith("jiobench.model") for module, targets in imports.items()
               if module.startswith("jiobench.model") for target in targets)


def test_a_circle_is_found_and_shown():
    imports = {"jiobench.run.a": {"jiobench.run.b"}, "jiobench.run.b": {"jiobench.run.c"},
               "jiobench.run.c": {"jiobench.run.a"}, "jiobench.run.d": {"jiobench.run.a"}}
    assert import_graph.broken_rules(imports) == [
        "import circle: jiobench.run.a -> jiobench.run.b -> jiobench.run.c -> jiobench.run.a"]


def test_an_import_upward_or_sideways_is_refused():
    imports = {"jiobench.run.cli": {"jiobench_analysis.report", "jiobench.paths"},
               "jiobench_analysis.report": {"jiobench.run.table"},
               "jiobench.model.runfile": {"jiobench.errors"},
               "jiobench_sweep.cli": {"jiobench.model.sweepfile"}}
    problems = import_graph.broken_rules(imports)
    assert [problem.split(":")[0] for problem in problems] == [
        "jiobench.model.runfile imports jiobench.errors",
        "jiobench.run.cli imports jiobench_analysis.report",
        "jiobench_analysis.report imports jiobench.run.table"]


def test_the_script_prints_the_graph_and_its_verdict():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout
    assert "jiobench.run.phases: jiobench.model.reduce, jiobench.model.repetitions, jiobench.run.launching\n" in done.stdout
    dot = subprocess.run([sys.executable, str(SCRIPT), "--dot"], capture_output=True, text=True, timeout=60)
    assert dot.stdout.startswith("digraph jiobench {") and '"jiobench.run.driver" -> "jiobench.run.collect";' in dot.stdout
