"""User mistakes: one line on stderr, exit code 2, no traceback; --help explains the options."""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from .handmade_runs import run_file
from .real_runs import JIOBENCH, run_report

PREFIX = "jiobench report: error: "


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def good_run(tmp_path: Path) -> dict:
    return json.loads(run_file(tmp_path / "good", {"raw-bytes": 100.0}).read_text())


def case_missing_path(tmp_path):
    return [str(tmp_path / "nowhere.json"), "-o", str(tmp_path / "out")], "no such file or directory"


def case_bad_json(tmp_path):
    return [write(tmp_path / "bad.json", '{"schema": "jiobench-run/1", '), "-o", str(tmp_path / "out")], "invalid JSON"


def case_not_a_run_file(tmp_path):
    return [write(tmp_path / "other.json", '{"name": "x"}'), "-o", str(tmp_path / "out")], "no 'schema' key"


def case_json_array(tmp_path):
    return [write(tmp_path / "list.json", "[1, 2]"), "-o", str(tmp_path / "out")], "not a run file"


def case_unknown_schema(tmp_path):
    run = good_run(tmp_path)
    run["schema"] = "jiobench-run/9"
    return [write(tmp_path / "v9.json", json.dumps(run)), "-o", str(tmp_path / "out")], "unknown run file schema"


def case_unknown_schema_in_a_directory(tmp_path):
    run = good_run(tmp_path)
    run["schema"] = "jiobench-run/9"
    write(tmp_path / "dir" / "v9.json", json.dumps(run))
    return [str(tmp_path / "dir"), "-o", str(tmp_path / "out")], "unknown run file schema"


def case_missing_keys(tmp_path):
    run = good_run(tmp_path)
    del run["summary"], run["phases"]
    return [write(tmp_path / "short.json", json.dumps(run)), "-o", str(tmp_path / "out")], "lacks phases, summary"


def case_summary_row_lacks_statistics(tmp_path):
    run = good_run(tmp_path)
    del run["summary"][0]["bw_mib_s"]["stddev"]
    return [write(tmp_path / "row.json", json.dumps(run)), "-o", str(tmp_path / "out")], \
        "summary[0].bw_mib_s lacks stddev"


def case_rate_is_not_a_number(tmp_path):
    run = good_run(tmp_path)
    run["phases"][2]["bw_mib_s"] = "fast"
    return [write(tmp_path / "text.json", json.dumps(run)), "-o", str(tmp_path / "out")], \
        'phases[2].bw_mib_s is "fast", expected a finite number'


def case_empty_directory(tmp_path):
    (tmp_path / "empty").mkdir()
    return [str(tmp_path / "empty"), "-o", str(tmp_path / "out")], "no run files"


def case_directory_without_run_files(tmp_path):
    write(tmp_path / "configs" / "settings.json", '{"threads": 4}')
    return [str(tmp_path / "configs"), "-o", str(tmp_path / "out")], "no run files"


def case_no_measured_phases(tmp_path):
    run = good_run(tmp_path)
    run["summary"], run["phases"] = [], []
    return [write(tmp_path / "none.json", json.dumps(run)), "-o", str(tmp_path / "out")], "no measured phases"


def case_number_of_more_digits_than_python_reads(tmp_path):
    text = json.dumps(good_run(tmp_path)).replace('"bytes": ', '"bytes": ' + "9" * 5000, 1)
    return [write(tmp_path / "digits.json", text), "-o", str(tmp_path / "out")], \
        "digits.json: not a run file: Exceeds the limit (4300 digits) for integer string conversion"


def case_no_results(tmp_path):
    return ["-o", str(tmp_path / "out")], "no RESULTS given"


def case_output_is_a_file(tmp_path):
    path = run_file(tmp_path / "good", {"raw-bytes": 100.0})
    return [str(path), "-o", write(tmp_path / "file", "x")], "not a directory"


def case_unknown_option(tmp_path):
    return ["--frobnicate", str(tmp_path)], "unrecognized arguments"


def case_compare_needs_two_sets(tmp_path):
    return ["--compare", str(tmp_path)], "expected 2 arguments"


def case_compare_and_results(tmp_path):
    path = str(run_file(tmp_path / "good", {"raw-bytes": 100.0}))
    return [path, "--compare", path, path], "not both"


def case_compare_missing_set(tmp_path):
    path = str(run_file(tmp_path / "good", {"raw-bytes": 100.0}))
    return ["--compare", path, str(tmp_path / "missing")], "no such file or directory"


def case_compare_nothing_in_common(tmp_path):
    a = str(run_file(tmp_path / "a", {"raw-bytes": 100.0}, ranks=1))
    b = str(run_file(tmp_path / "b", {"raw-bytes": 100.0}, ranks=4))
    return ["--compare", a, b], "no point"


# A run file with one key holding the wrong thing: what the change does to a good run, and what
# the report's one line says of it.
WRONG_KEYS = {
    "null_approach": (lambda run: run["phases"][0].update(approach=None),
        "phases[0].approach is null, expected a non-empty text"),
    "approach_given_as_a_list": (lambda run: run["summary"][1].update(approach=["raw-bytes"]),
        'summary[1].approach is ["raw-bytes"], expected a non-empty text'),
    "infinite_rate": (lambda run: run["phases"][1].update(bw_mib_s=math.inf),
        "phases[1].bw_mib_s is Infinity, expected a finite number"),
    "rate_that_is_no_number": (lambda run: run["summary"][0]["bw_mib_s"].update(mean=math.nan),
        "summary[0].bw_mib_s.mean is NaN, expected a finite number"),
    "integer_run_id": (lambda run: run.update(run_id=20240101),
        "run_id is 20240101, expected a non-empty text"),
    "verified_as_text": (lambda run: run["phases"][3].update(verified="yes"),
        'phases[3].verified is "yes", expected true or false'),
    "hosts_as_text": (lambda run: run["environment"].update(hosts="vm"),
        'environment.hosts is "vm", expected a list'),
    "negative_stddev": (lambda run: run["summary"][0]["bw_mib_s"].update(stddev=-1.5),
        "summary[0].bw_mib_s.stddev is -1.5, expected a finite number of at least 0"),
    "unknown_op": (lambda run: run["phases"][0].update(op="append"),
        'phases[0].op is "append", expected \'write\' or \'read\''),
    "zero_ranks": (lambda run: run["summary"][0].update(ranks=0),
        "summary[0].ranks is 0, expected a whole number of at least 1"),
    "fractional_repetition": (lambda run: run["phases"][0].update(rep=1.5),
        "phases[0].rep is 1.5, expected a whole number"),
    "interval_of_one_number": (lambda run: run["summary"][0]["bw_mib_s"].update(ci95=[1.0]),
        "summary[0].bw_mib_s.ci95 is [1.0], expected null or [low, high]"),
    "median_interval_of_one_number": (lambda run: run["summary"][0].update(median_ci95=[1.0]),
        "summary[0].median_ci95 is [1.0], expected null or [low, high]"),
    "noisy_as_text": (lambda run: run["summary"][0].update(noisy="no"),
        'summary[0].noisy is "no", expected true or false'),
    "ratio_as_a_number": (lambda run: run["summary"][0].update(ratio=0.5),
        "summary[0].ratio is 0.5, expected an object"),
    "ratio_without_a_verdict": (lambda run: run["summary"][0].update(
        ratio={"to": "c-posix", "value": 0.5, "ci95": None}),
        "summary[0].ratio lacks verdict"),
    "unknown_verdict": (lambda run: run["summary"][0].update(
        ratio={"to": "c-posix", "value": 0.5, "ci95": [0.4, 0.6], "verdict": "maybe"}),
        "summary[0].ratio.verdict is \"maybe\", expected 'faster' or 'slower' or 'same' or 'unclear'"),
    "noise_as_a_list": (lambda run: run.update(noise=[1.2]),
        "noise is [1.2], expected an object"),
    "auto_repetitions_before_schema_3": (lambda run: run.update(schema="jiobench-run/2")
                                         or run["parameters"].update(repetitions="auto"),
        'parameters.repetitions is "auto", expected a whole number of at least 1'),
    "repetitions_as_other_text": (lambda run: run["parameters"].update(repetitions="many"),
        'parameters.repetitions is "many", expected a whole number of at least 1 or \'auto\''),
    "parameters_as_a_list": (lambda run: run.update(parameters=[1, 2]),
        "parameters is not an object"),
    "block_size_as_text": (lambda run: run["parameters"].update(block_size="64MiB"),
        'parameters.block_size is "64MiB", expected a whole number of at least 1'),
    # Finite, but past what the runner's longs hold: the report's sums and squares would overflow.
    "rate_past_the_largest_number": (lambda run: run["phases"][1].update(bw_mib_s=1e308),
        "phases[1].bw_mib_s is 1e+308, expected a finite number of at least 0 and at most 9.223e+18"),
    "median_past_the_largest_number": (lambda run: run["summary"][0]["bw_mib_s"].update(median=1e200),
        "summary[0].bw_mib_s.median is 1e+200, expected a finite number of at least 0 and at most 9.223e+18"),
    "seconds_past_the_largest_number": (lambda run: run["phases"][0].update(seconds=1e308),
        "phases[0].seconds is 1e+308, expected a finite number of at least 0 and at most 9.223e+18"),
    "bytes_past_the_floats": (lambda run: run["phases"][0].update(bytes=10 ** 400),
        "phases[0].bytes is 100000000000000000000000000000000000000000000000000000000..., expected a whole "
        "number of at least 0 and at most 9223372036854775807"),
    "ranks_past_a_long": (lambda run: run["summary"][0].update(ranks=2 ** 70),
        "summary[0].ranks is 1180591620717411303424, expected a whole number of at least 1 and at most "
        "9223372036854775807"),
    "buffer_size_past_the_floats": (lambda run: run["parameters"].update(buffer_size=10 ** 30),
        "parameters.buffer_size is 1000000000000000000000000000000, expected a finite number of at least 0 and "
        "at most 9.223e+18"),
    "calibrate_rate_infinite": (lambda run: run["parameters"].update(calibrate_rate=math.inf),
        "parameters.calibrate_rate is Infinity, expected a finite number of at least 0"),
    # A phase of no time, as the runner writes it: its rate is infinite.
    "phase_of_no_time": (lambda run: run["phases"][0].update(seconds=0, bw_mib_s=math.inf),
        "phases[0].bw_mib_s is Infinity, expected a finite number of at least 0"),
    "median_outside_its_interval": (lambda run: run["summary"][0].update(median_ci95=[90.0, 110.0])
                                    or run["summary"][0]["bw_mib_s"].update(median=1e-308),
        "summary[0].median_ci95 is [90.0, 110.0], expected null or an interval holding bw_mib_s.median, 1e-308"),
    "summary_row_without_phases": (lambda run: run["summary"][0].update(ranks=3),
        "summary[0] (raw-bytes write, 3 ranks) has no measured phase in 'phases'"),
    # The report opens the per-rank file beside the JSON, and nowhere else.
    "per_rank_file_in_another_directory": (lambda run: run.update(per_rank_file="../elsewhere.ranks.parquet"),
        'per_rank_file is "../elsewhere.ranks.parquet", expected a file name, without a directory'),
    "schema_4_without_its_per_rank_file_key": (lambda run: run.pop("per_rank_file"),
        "lacks per_rank_file"),
}


def wrong_key_case(name: str):
    change, words = WRONG_KEYS[name]

    def case(tmp_path):
        run = good_run(tmp_path)
        change(run)
        return [write(tmp_path / f"{name}.json", json.dumps(run)), "-o", str(tmp_path / "out")], words

    case.__name__ = f"case_{name}"
    return case


CASES = sorted([case for name, case in globals().items() if name.startswith("case_")]
               + [wrong_key_case(name) for name in WRONG_KEYS], key=lambda case: case.__name__)


@pytest.mark.parametrize("case", CASES, ids=[case.__name__[5:] for case in CASES])
def test_a_mistake_gives_one_line_and_exit_code_2(case, tmp_path):
    argv, words = case(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    done = run_report(argv)
    assert sorted(tmp_path.rglob("*")) == before, "a refused report writes nothing"
    assert done.code == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(PREFIX) and words in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "report.html").exists()


def test_the_command_line_gives_the_same_line(tmp_path):
    done = subprocess.run([str(JIOBENCH), "report", str(tmp_path / "missing.json"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == f"{PREFIX}{tmp_path / 'missing.json'}: no such file or directory"


def test_help_documents_both_forms_the_median_and_the_verdict_rule():
    done = run_report(["--help"])
    assert done.code == 0
    assert "jiobench report RESULTS... [-o DIR]" in done.stdout
    assert "jiobench report --compare A B [-o DIR]" in done.stdout
    words = " ".join(done.stdout.split())
    assert "the median MiB/s of its measured repetitions, with its 95% interval from order statistics" in words
    assert "95% interval from the bootstrap (BCa)" in words
    assert ("same when the interval lies within ±5% of 1, else faster or slower when it excludes 1, same when it "
            "holds 1 and spans at most 2x, unclear otherwise or with fewer than 6 repetitions a side") in words
    assert "noisy: the 95% interval of the median is wider than ±10% of it" in words
    assert "B/A, the ratio of the median MiB/s, with its 95% interval and a verdict" in words
    assert "c-posix" in words
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


def test_repetitions_chosen_by_the_runner_load_from_schema_3(tmp_path):
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, reps=6, repetitions="auto", ci_target=0.05,
                    time_budget_s=600.0, max_reps=30)
    run = json.loads(path.read_text())
    run["auto"] = {"ci_target": 0.05, "time_budget_s": 600.0, "max_reps": 30, "min_reps": 6, "stopped": {}}
    path.write_text(json.dumps(run))
    done = run_report([str(path), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert '<th class="name">repetitions</th><td>auto</td>' in (tmp_path / "out" / "report.html").read_text()


def test_a_directory_skips_json_files_that_are_not_run_files(tmp_path):
    run_file(tmp_path / "results", {"raw-bytes": 100.0})
    write(tmp_path / "results" / "sweep.json", '{"ranks": [1, 2, 4]}')
    write(tmp_path / "results" / "nested" / "cut-short.json", '{"schema": "jiobench-run/1", "run_')
    done = run_report([str(tmp_path / "results"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    (warning,) = done.stderr.splitlines()
    cut_short = tmp_path / "results" / "nested" / "cut-short.json"
    assert warning.startswith(f"jiobench report: warning: skipping {cut_short}: not a run file: invalid JSON, line 1")
    assert (tmp_path / "out" / "report.html").exists()
