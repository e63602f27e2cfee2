"""Every repository path and Python module a comment or docstring names exists: a comment that
points at a module from before a move sends its reader nowhere. Python, Java, C, shell and
Makefiles are read. A path is a word with a slash that starts at one of the checkout's top folders
or ends in a file's extension, and it exists when some file or folder of the checkout ends with it
(`run/cli.py` is runner/python/jiobench/run/cli.py). A module is a dotted name in one of the
project's packages (`jiobench.model.stats`, `jiobench.model.stats.ratio`: a module, then what it
defines)."""
from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from testing import HOME

EXTENSIONS = ("py", "java", "sh", "c", "h", "md", "sbatch", "xml", "toml", "json", "txt")
# What the build makes and the checkout does not hold.
BUILT = frozenset({"target", ".venv", ".venv-mpi"})
# A word of path characters with a slash inside; no scheme, not absolute, not a Java package's dots.
WORD = re.compile(r"(?<![\w./:~-])(?:[\w-][\w.-]*/)+[\w-][\w.-]*/?")
PACKAGES = {"jiobench": "runner/python/jiobench", "jiobench_sweep": "slurm/jiobench_sweep",
            "jiobench_analysis": "analysis/jiobench_analysis"}
DOTTED = re.compile(rf"(?<![\w.])(?:{'|'.join(PACKAGES)})(?:\.\w+)+")
# File names that start like a package: the runner's default test file, the job template.
NOT_MODULES = frozenset({"dat", "sbatch"})


def tracked(home: Path) -> list[str]:
    """The checkout's files, those not yet added included, the ignored (built) ones not."""
    return subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=home,
                          capture_output=True, text=True, check=True).stdout.split()


def python_comments(text: str) -> list[tuple[int, str]]:
    comments = [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(text).readline)
                if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                comments.append((first.lineno, first.value.value))
    return comments


def java_comments(text: str) -> list[tuple[int, str]]:
    # Strings first, so that "//" inside one starts no comment.
    pattern = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.S)
    return [(text.count("\n", 0, match.start()) + 1, match.group()) for match in pattern.finditer(text)
            if not match.group().startswith('"')]


def hash_comments(text: str) -> list[tuple[int, str]]:
    """Shell and make: what follows a # that starts a line or follows a blank, outside ${#...}."""
    return [(number, line[match.start():]) for number, line in enumerate(text.splitlines(), 1)
            for match in [re.search(r"(?:^|\s)#(?!!)", line)] if match]


def is_shell_script(path: Path) -> bool:
    """A script without .sh, as bin/jiobench: by its first line."""
    with path.open("rb") as file:
        return re.match(rb"#!\S*/(?:env )?(?:ba)?sh\b", file.readline()) is not None


def comments_of(path: Path) -> list[tuple[int, str]]:
    if path.suffix == ".py":
        return python_comments(path.read_text())
    if path.suffix in (".java", ".c", ".h"):
        return java_comments(path.read_text())
    if path.suffix == ".sh" or path.name == "Makefile" or is_shell_script(path):
        return hash_comments(path.read_text())
    return []


def named_paths(comment: str, top_folders: set[str]) -> list[str]:
    paths = []
    for word in WORD.findall(comment):
        word = word.rstrip(".").rstrip("/")
        parts = word.split("/")
        if parts[0].isupper():
            continue  # a placeholder, as in DIR/sweep.json
        if parts[0] in top_folders or parts[-1].rpartition(".")[2] in EXTENSIONS and "." in parts[-1]:
            if not BUILT.intersection(parts):
                paths.append(word)
    return paths


def defines(module: Path, name: str) -> bool:
    return re.search(rf"^(?:(?:async )?def|class) {name}\b|^{name}\s*[:=]|^from \S+ import .*\b{name}\b",
                     module.read_text(), re.M) is not None


def module_exists(home: Path, dotted: str) -> bool:
    """Whether the dotted name is a module of the project, or a name one of its modules defines."""
    first, *rest = dotted.split(".")
    place = home / PACKAGES[first]
    for index, part in enumerate(rest):
        if (place / part).is_dir():
            place = place / part
        elif (place / f"{part}.py").is_file():
            place = place / f"{part}.py"
            return index + 1 == len(rest) or defines(place, rest[index + 1])
        else:
            return (place / "__init__.py").is_file() and defines(place / "__init__.py", part)
    return True


def stale_paths(home: Path) -> list[str]:
    files = tracked(home)
    folders = {"/".join(file.split("/")[:depth]) for file in files for depth in range(1, file.count("/") + 1)}
    known = set(files) | folders
    top_folders = {file.split("/")[0] for file in files if "/" in file}
    stale = []
    for file in files:
        path = home / file
        if path.is_symlink() or not path.is_file():
            continue
        for line, comment in comments_of(path):
            missing = [named for named in named_paths(comment, top_folders)
                       if not any(entry == named or entry.endswith("/" + named) for entry in known)]
            missing += [dotted for dotted in DOTTED.findall(comment)
                        if dotted.rpartition(".")[2] not in NOT_MODULES and not module_exists(home, dotted)]
            # The line of the name itself, not of the docstring or comment block it stands in.
            stale += [f"{file}:{line + comment[:comment.find(name)].count(chr(10))}: {name}" for name in missing]
    return stale


def test_every_path_a_comment_names_exists():
    assert stale_paths(HOME) == []


@pytest.fixture()
def checkout(tmp_path):
    for file, text in {"runner/python/jiobench/model/stats.py": '"""Intervals."""\n',
                       "runner/python/jiobench/run/cli.py": "",
                       "slurm/templates/point.sbatch": "",
                       "bench/heap.sh": "#!/bin/bash\n"}.items():
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def commit(checkout: Path, file: str, text: str) -> list[str]:
    (checkout / file).parent.mkdir(parents=True, exist_ok=True)
    (checkout / file).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=checkout, check=True)
    return stale_paths(checkout)


def test_a_path_from_before_a_move_is_found_in_each_language(checkout):
    assert commit(checkout, "runner/python/jiobench/run/table.py",
                  '"""As runner/python/jiobench/stats.py says."""\n# see run/clis.py\nx = "bench/nosuch.sh"\n') == [
        "runner/python/jiobench/run/table.py:2: run/clis.py",
        "runner/python/jiobench/run/table.py:1: runner/python/jiobench/stats.py"]
    assert commit(checkout, "runner/Main.java", '/** Renders slurm/templates/gone.sbatch. */\n'
                  'class Main { String s = "// bench/nosuch.sh"; } // bench/old.sh\n') == [
        "runner/Main.java:1: slurm/templates/gone.sbatch", "runner/Main.java:2: bench/old.sh",
        "runner/python/jiobench/run/table.py:2: run/clis.py",
        "runner/python/jiobench/run/table.py:1: runner/python/jiobench/stats.py"]


def test_shell_and_make_comments_are_read(checkout):
    assert commit(checkout, "bench/other.sh", "#!/bin/bash\n# like bench/heap.sh and bench/gone.sh\n"
                  "echo ${#list[@]} bench/gone.sh\n") == ["bench/other.sh:2: bench/gone.sh"]
    assert commit(checkout, "Makefile", "all: # runs scripts/build.sh\n\techo scripts/build.sh\n") == [
        "Makefile:1: scripts/build.sh", "bench/other.sh:2: bench/gone.sh"]


def test_words_with_slashes_that_are_no_paths_pass(checkout):
    assert commit(checkout, "runner/python/jiobench/run/words.py", (
        '"""MiB/s, I/O, read/write, and/or, 1/2, /proc/self/status, ~/.m2/settings.xml,\n'
        'https://example.org/a/b.py, org.jiobench.runner, runner/target/jiobench-runner.jar,\n'
        'the existing model/stats.py, run/cli.py, slurm/templates/ and bench/heap.sh."""\n')) == []
