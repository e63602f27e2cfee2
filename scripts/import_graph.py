#!/usr/bin/env python3
"""The import graph of jiobench's Python packages, read from their source, and the rules it keeps.

  scripts/import_graph.py           prints each module and what of jiobench it imports, then any
                                    broken rule; exit code 1 when a rule is broken
  scripts/import_graph.py --dot     the graph for Graphviz (dot -Tsvg)

Every import counts, a function's own included: one inside a function still ties the modules.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

HOME = Path(__file__).resolve().parents[1]
PACKAGES = {"jiobench": HOME / "runner" / "python" / "jiobench",
            "jiobench_sweep": HOME / "slurm" / "jiobench_sweep",
            "jiobench_analysis": HOME / "analysis" / "jiobench_analysis"}
# What of jiobench each part may import besides itself: every import points down, to the result
# model at the bottom. The leaves beside it (paths, exit codes, the table of launch paths) import
# nothing; errors (a mistake's one line) imports the exit codes; the runner's vocabulary, which the
# verbs that start the runner read, imports only paths and errors.
MODEL = "jiobench.model"
LEAVES = ("jiobench.paths", "jiobench.exitcode", "jiobench.errors", "jiobench.launchpaths")
VOCABULARY = "jiobench.vocabulary"
ALLOWED = {
    MODEL: (),
    **{leaf: () for leaf in LEAVES},
    "jiobench.errors": ("jiobench.exitcode",),
    VOCABULARY: ("jiobench.paths", "jiobench.errors"),
    "jiobench.run": (MODEL, *LEAVES, VOCABULARY),
    "jiobench_sweep": (MODEL, *LEAVES, VOCABULARY),
    "jiobench_analysis": (MODEL,),
}


def module_name(package: str, root: Path, path: Path) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(package, root, path): path
            for package, root in PACKAGES.items() for path in sorted(root.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of jiobench that the module imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")[:len(name.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            # `from package import module` imports the module; `from module import name` the module.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def part_of(module: str) -> str:
    """The part a module belongs to: the longest name in ALLOWED that holds it."""
    matches = [part for part in ALLOWED if module == part or module.startswith(part + ".")]
    return max(matches, key=len) if matches else module


def broken_rules(imports: dict[str, set[str]]) -> list[str]:
    """Each import that points up or sideways, and each circle."""
    problems = []
    for module, targets in sorted(imports.items()):
        here = part_of(module)
        for target in sorted(targets):
            there = part_of(target)
            if there != here and there not in ALLOWED.get(here, ()):
                problems.append(f"{module} imports {target}: {here} may import only "
                                f"{', '.join(ALLOWED.get(here, ())) or 'itself'}")
    problems += [f"import circle: {' -> '.join(circle)}" for circle in circles(imports)]
    return problems


def circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in imports.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in imports.get(module, ()):
                groups.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return [circle_in(group, imports) for group in groups]


def circle_in(group: list[str], imports: dict[str, set[str]]) -> list[str]:
    """A path from the group's first module back to itself, within the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for target in sorted(imports[module] & members):
            if target == start:
                return paths[module] + [start]
            if target not in paths:
                paths[target] = paths[module] + [target]
                queue.append(target)
    return group


def main(argv: list[str]) -> int:
    imports = graph()
    if argv == ["--dot"]:
        print("digraph jiobench {")
        for module, targets in sorted(imports.items()):
            print(f'  "{module}";')
            for target in sorted(targets):
                print(f'  "{module}" -> "{target}";')
        print("}")
        return 0
    for module, targets in sorted(imports.items()):
        print(f"{module}: {', '.join(sorted(targets)) or '-'}")
    problems = broken_rules(imports)
    for problem in problems:
        print(f"broken: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
