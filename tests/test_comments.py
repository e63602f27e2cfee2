"""Every repository path, file name and Python module a comment, docstring or page names exists: a
comment that points at a module from before a move sends its reader nowhere. The comments of Python,
Java, C, shell and Makefiles are read, and Markdown pages whole. A path is a word with a slash that
starts at one of the checkout's top folders or, outside a page, ends in a file's extension, and it
exists when some file or folder of the checkout ends with it (`run/cli.py` is
runner/python/jiobench/run/cli.py); a page speaks of the user's directories too (a sweep's jobs and
results), so only its paths from a top folder are held to. A file name is a word without a slash
that ends in a source's or a page's extension (README.md, PhaseTimer.java), and it exists where a
file of the checkout has that name, or where the verbs write one of that name (compare.md, a string
of their code). A path or a name may be a glob (`bench/*.sh`, `test_sweep*.py`), which exists where
it matches something. A module is a dotted name in one of the project's packages
(`jiobench.model.stats`, `jiobench.model.stats.ratio`: a module, then what it defines)."""
from __future__ import annotations

import ast
import fnmatch
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from testing import HOME, tracked

EXTENSIONS = ("py", "java", "sh", "c", "h", "md", "sbatch", "xml", "toml", "json", "txt")
# What the build makes and the checkout does not hold.
BUILT = frozenset({"target", ".venv", ".venv-mpi"})
# A word of path characters (a glob's * too) with a slash inside; no scheme, not absolute, not a Java
# package's dots.
WORD = re.compile(r"(?<![\w./:~*-])(?:[\w*-][\w.*-]*/)+[\w*-][\w.*-]*/?")
# The extensions of a file name without a slash: the sources and the pages. A data file's bare name
# (run.json, summary.txt) is most often one that a run writes, in the user's directory.
NAME_EXTENSIONS = ("py", "java", "sh", "c", "h", "md", "sbatch", "toml", "xml")
NAME = re.compile(rf"(?<![\w./:~*$-])[\w*-][\w.*-]*\.(?:{'|'.join(NAME_EXTENSIONS)})(?![\w/*-])")
PACKAGES = {"jiobench": "runner/python/jiobench", "jiobench_sweep": "slurm/jiobench_sweep",
            "jiobench_analysis": "analysis/jiobench_analysis"}
DOTTED = re.compile(rf"(?<![\w.])(?:{'|'.join(PACKAGES)})(?:\.\w+)+")
# File names that start like a package: the runner's default test file, the job template.
NOT_MODULES = frozenset({"dat", "sbatch"})


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
    if path.suffix == ".md":
        return [(1, path.read_text())]
    if path.suffix == ".py":
        return python_comments(path.read_text())
    if path.suffix in (".java", ".c", ".h"):
        return java_comments(path.read_text())
    if path.suffix == ".sh" or path.name == "Makefile" or is_shell_script(path):
        return hash_comments(path.read_text())
    return []


def named_paths(comment: str, top_folders: set[str], page: bool) -> list[str]:
    paths = []
    for word in WORD.findall(comment):
        word = word.rstrip(".").rstrip("/")
        parts = word.split("/")
        if any(part.isupper() for part in parts):
            continue  # a placeholder, as in DIR/sweep.json or docs/runs/NAME
        if parts[0] in top_folders or not page and parts[-1].rpartition(".")[2] in EXTENSIONS and "." in parts[-1]:
            if not BUILT.intersection(parts):
                paths.append(word)
    return paths


def path_exists(named: str, known: set[str]) -> bool:
    if "*" in named:
        return any(fnmatch.fnmatchcase(entry, named) or fnmatch.fnmatchcase(entry, "*/" + named) for entry in known)
    return any(entry == named or entry.endswith("/" + named) for entry in known)


def written_names(home: Path, files: list[str]) -> set[str]:
    """The file names the verbs' code holds as strings: the files they write (compare.md)."""
    return {name for file in files if file.endswith(".py") and file.startswith(tuple(PACKAGES.values()))
            for name in re.findall(r"[\"']([\w.-]+)[\"']", (home / file).read_text())}


def name_exists(named: str, names: set[str]) -> bool:
    return named in names or "*" in named and any(fnmatch.fnmatchcase(name, named) for name in names)


def defines(module: Path, name: str) -> bool:
    """A def, a class, an assignment (one of several names too: `STOP_SECONDS, KILL_SECONDS = ...`) or an import."""
    return re.search(rf"^(?:(?:async )?def|class) {name}\b|^(?:\w+, *)*{name}(?:, *\w+)*\s*[:=]"
                     rf"|^from \S+ import .*\b{name}\b", module.read_text(), re.M) is not None


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
    names = {file.rpartition("/")[2] for file in files} | written_names(home, files)
    stale = []
    for file in files:
        path = home / file
        if path.is_symlink() or not path.is_file():
            continue
        for line, comment in comments_of(path):
            missing = [named for named in named_paths(comment, top_folders, path.suffix == ".md")
                       if not path_exists(named, known)]
            missing += [named for named in NAME.findall(comment) if not name_exists(named, names)]
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


def test_a_file_name_without_a_slash_names_a_file_of_the_checkout_or_one_the_verbs_write(checkout):
    assert commit(checkout, "runner/Honesty.java", "/** As DESIGN.md says, and heap.sh, stats.py and cli.py. */\n"
                  "class Honesty {}\n") == ["runner/Honesty.java:1: DESIGN.md"]
    assert commit(checkout, "slurm/jiobench_sweep/report.py",
                  '# writes compare.md, not bandwidths.md\nout.write("compare.md", text)\n') == [
        "runner/Honesty.java:1: DESIGN.md", "slurm/jiobench_sweep/report.py:1: bandwidths.md"]


def test_a_glob_names_what_it_matches(checkout):
    assert commit(checkout, "bench/other.sh", "#!/bin/bash\n# like bench/*.sh and heap*.sh, unlike "
                  "runner/python/tests/test_sweep*.py and sweep*.py\n") == [
        "bench/other.sh:2: runner/python/tests/test_sweep*.py", "bench/other.sh:2: sweep*.py"]


def test_a_page_is_read_whole_and_held_to_its_paths_from_a_top_folder(checkout):
    assert commit(checkout, "docs/page.md", "# A page\n\nAs `bench/heap.sh` and DESIGN.md say, a sweep writes\n"
                  "`jobs/*.sbatch` and `results/p1-n1.json` in DIR, as `docs/runs/NAME` keeps them\n"
                  "(`runner/python/tests/test_sweep*.py`, `jiobench.model.stats.nosuch`).\n") == [
        "docs/page.md:5: runner/python/tests/test_sweep*.py", "docs/page.md:3: DESIGN.md",
        "docs/page.md:5: jiobench.model.stats.nosuch"]


def test_a_name_assigned_together_with_others_is_defined(checkout):
    assert commit(checkout, "runner/python/jiobench/run/stop.py", "STOP_SECONDS, KILL_SECONDS = 10.0, 15.0\n"
                  "# after jiobench.run.stop.KILL_SECONDS, not jiobench.run.stop.WAIT_SECONDS\n") == [
        "runner/python/jiobench/run/stop.py:2: jiobench.run.stop.WAIT_SECONDS"]
