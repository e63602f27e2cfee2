"""The runner's vocabulary read from the runner itself (--describe): the names the verbs use are
the runner's, and where there is no runner to ask the verbs say so in one line."""
from __future__ import annotations

import json
import os
import resource
import subprocess

from jiobench import vocabulary
from jiobench.model import stats
from jiobench_sweep.plan import SWEEP_OWNS

from testing import HOME, JIOBENCH

PYTHON = HOME / ".venv" / "bin" / "python"


def test_short_and_long_names_are_one_option():
    assert [vocabulary.option_name(name) for name in ("--block-size", "-b", "--transfer-size", "--order")] == [
        "-b", "-b", "-t", "--order"]
    # Not the runner's: left for the runner's parser to refuse with its own words.
    assert vocabulary.option_name("--no-such") == "--no-such"


def test_the_approaches_that_read_in_place_are_the_ones_that_hand_the_array_to_the_kernel():
    assert vocabulary.approaches_reading_in_place() == ["bulk-jni", "ffm-pread"]


def test_auto_runs_at_least_as_many_repetitions_as_an_interval_needs():
    assert vocabulary.description()["auto_min_repetitions"] == stats.MIN_REPS == 6


def test_the_options_the_sweep_sets_itself_are_the_runners():
    names = {option["name"] for option in vocabulary.description()["options"]}
    assert set(SWEEP_OWNS) <= names


def test_without_a_runner_the_verbs_that_need_it_say_so_in_one_line(tmp_path):
    missing = tmp_path / "no-runner.jar"
    # The preset's -t and the user's --transfer-size are one option only by the runner's word.
    done = subprocess.run([str(JIOBENCH), "sweep", "--dir", "s", "--preset", "xu-guo-jni", "--", "--transfer-size=1"],
                          capture_output=True, text=True, cwd=tmp_path,
                          env=dict(os.environ, JIOBENCH_JAR=str(missing)), timeout=60)
    assert (done.returncode, done.stderr) == (
        2, f"jiobench: error: the runner is not built ({missing} is missing): run 'make build' in "
           f"{vocabulary.HOME}\n"), done
    assert not (tmp_path / "s").exists()


def test_jiobench_run_passes_describe_to_the_runner_as_it_does_help():
    shown = subprocess.run([str(JIOBENCH), "run", "--", "--describe"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    described = json.loads(shown.stdout)
    assert {"raw-bytes", "c-posix"} <= {approach["id"] for approach in described["approaches"]}


def under_address_space(kib: int):
    """preexec_fn: the command and all it starts under ulimit -v KIB (soft and hard, as bash sets it)."""
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (kib << 10, kib << 10))


def test_the_runner_describes_itself_under_an_address_space_limit_its_default_heap_would_not_fit():
    # ulimit -v 2 GiB: HotSpot's heap of half of it and its 1 GiB of class space would not fit.
    done = subprocess.run([str(PYTHON), "-c", "from jiobench import vocabulary; "
                           "print(vocabulary.approaches_reading_in_place())"], capture_output=True, text=True,
                          timeout=60, preexec_fn=under_address_space(2097152))
    assert (done.returncode, done.stdout) == (0, "['bulk-jni', 'ffm-pread']\n"), done.stderr


def test_a_runner_that_cannot_start_under_the_address_space_limit_is_one_line_naming_the_limit(tmp_path):
    done = subprocess.run([str(JIOBENCH), "sweep", "--dir", "s", "--preset", "xu-guo-jni", "--", "--transfer-size=1"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          preexec_fn=under_address_space(400000))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("jiobench: error: java could not start under the virtual memory limit (ulimit -v) of "
                                  "400000 KiB to describe the runner ("), done.stderr
    assert done.stderr.endswith("): raise the limit, or lift it (ulimit -v unlimited)\n"), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_runner_that_is_not_one_is_said_in_the_jvm_s_words_alone(tmp_path):
    broken = tmp_path / "broken.jar"
    broken.write_text("not a jar")
    done = subprocess.run([str(PYTHON), "-c", "from jiobench import vocabulary; vocabulary.description()"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, JIOBENCH_JAR=str(broken)))
    assert done.stderr.strip().splitlines()[-1] == (
        f"jiobench.errors.UsageError: java -jar {broken} --describe failed (exit code 1): Error: Invalid or corrupt "
        f"jarfile {broken}"), done.stderr
