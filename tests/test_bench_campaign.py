"""bench/campaign.py: how long each kept campaign took, from its run files alone; a file it cannot
read is one line and exit 2, never a traceback."""
from __future__ import annotations

import subprocess
import sys

from testing import HOME


def campaign(*directories) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HOME / "bench" / "campaign.py"), *map(str, directories)],
                          capture_output=True, text=True, timeout=60, cwd=HOME)


def test_a_kept_campaign_counts_its_run_files_and_a_broken_file_is_one_line_and_exit_2(tmp_path):
    kept = HOME / "docs" / "runs" / "scale"
    done = campaign(kept)
    assert done.returncode == 0, done.stderr
    total = done.stdout.splitlines()[-1].split()
    # A run file a per-rank file: the traffic counts and collector.json beside them are no runs.
    assert total[:4] == ["all", "of", "them", str(len(list(kept.glob("*.ranks.parquet"))))], done.stdout
    broken = tmp_path / "campaign"
    broken.mkdir()
    (broken / "run.json").write_text("{not json")
    done = campaign(broken)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert str(broken / "run.json") in done.stderr and "cannot be read as JSON" in done.stderr
