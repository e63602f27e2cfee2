"""Where this checkout of jiobench and its runner are: every verb starts from here."""
from __future__ import annotations

import os
from pathlib import Path

HOME = Path(os.environ.get("JIOBENCH_HOME", Path(__file__).resolve().parents[3]))
JAR = Path(os.environ.get("JIOBENCH_JAR", HOME / "runner" / "target" / "jiobench-runner.jar"))
