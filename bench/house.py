"""The figures of the house in order (issue 19): how much hand-written SQL, how many long
functions and long modules, how many repeated passages the non-test code holds.

    .venv/bin/python bench/house.py [--root PATH] [--list] [--no-duplicates]

Non-test code is the five apps (backoffice, identity, tickets, payments_sandbox, evals)
without their migrations. It prints one JSON object:

- `sql_sites`: functions (or module bodies) that call `cursor()`, `execute()`,
  `executemany()`, `raw()`, `extra()` or build a `RawSQL`; one function with a cursor and
  three statements is one site. `sql_calls` counts the calls themselves.
- `functions_over_80_lines`: `def`s (nested ones too) longer than 80 lines, from the `def`
  line to the last line of the body.
- `modules_over_400_lines`: `.py` files longer than 400 lines.
- `duplicate_pairs`: the pairs the `duplicates` command (the tool library's) finds in a copy of
  the non-test code alone, so that tests repeating each other or the code do not count.

`--exclude PREFIX` leaves a part out (e.g. `evals/domains/`, the domain packages, to see the
rest apart from domains added meanwhile). `--root PATH` measures another checkout, e.g. a `git worktree add /tmp/base REV` of the commit
before a change; `--list` adds the names behind every count. It reads files only: nothing is
imported or run, so it takes any commit.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

APPS = ("backoffice", "identity", "tickets", "payments_sandbox", "evals")
SQL_METHODS = {"cursor", "execute", "executemany", "raw", "extra"}
SQL_NAMES = {"RawSQL"}
LONG_FUNCTION = 80
LONG_MODULE = 400
PAIRS = re.compile(r"^(\d+) pairs?\b|^no duplicates", re.M)
ROW = re.compile(r"^D\d+ ", re.M)


def code_files(root: Path, exclude: tuple[str, ...] = ()) -> list[Path]:
    files: list[Path] = []
    for app in APPS:
        for path in sorted((root / app).rglob("*")):
            if not path.is_file() or "migrations" in path.parts or "__pycache__" in path.parts:
                continue
            if "static" in path.parts:
                continue
            if str(path.relative_to(root)).startswith(exclude):
                continue
            files.append(path)
    return files


def _is_sql_call(node: ast.Call) -> bool:
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr in SQL_METHODS:
            return True
        return func.attr in SQL_NAMES
    return isinstance(func, ast.Name) and func.id in SQL_NAMES


class _Scan(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.stack: list[str] = []
        self.sql_calls: list[str] = []
        self.long_functions: list[str] = []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        name = ".".join([*self.stack, node.name])
        if length > LONG_FUNCTION:
            self.long_functions.append(f"{self.module}:{node.lineno} {name} ({length})")
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_Call(self, node: ast.Call) -> None:
        if _is_sql_call(node):
            site = ".".join(self.stack) or "<module>"
            self.sql_calls.append(f"{self.module}:{site}")
        self.generic_visit(node)


def duplicate_pairs(root: Path, files: list[Path]) -> dict[str, object]:
    """Run `duplicates` over a copy of the non-test code (outside git, so it reads every file
    of the copy and nothing else)."""
    tool = shutil.which("duplicates")
    if tool is None:
        return {"error": "the duplicates command is not on PATH"}
    with tempfile.TemporaryDirectory(prefix="house-dup-") as tmp:
        for path in files:
            target = Path(tmp) / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        out = subprocess.run(
            [tool, "--repo", tmp, "--most", "200", "--seconds", "300"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    head = PAIRS.search(out)
    count = int(head.group(1)) if head and head.group(1) else 0
    return {
        "pairs": count,
        "summary": out[head.start() : out.find("\n", head.start())] if head else "",
        "rows": [line for line in out.splitlines() if ROW.match(line)],
        "incomplete": [line for line in out.splitlines() if line.startswith("incomplete:")],
    }


def measure(
    root: Path, *, with_duplicates: bool, exclude: tuple[str, ...] = ()
) -> dict[str, object]:
    files = code_files(root, exclude)
    sql_calls: list[str] = []
    long_functions: list[str] = []
    long_modules: list[str] = []
    for path in files:
        if path.suffix != ".py":
            continue
        text = path.read_text(encoding="utf-8")
        module = str(path.relative_to(root))
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > LONG_MODULE:
            long_modules.append(f"{module} ({lines})")
        scan = _Scan(module)
        scan.visit(ast.parse(text, filename=module))
        sql_calls += scan.sql_calls
        long_functions += scan.long_functions
    sites = sorted(set(sql_calls))
    figures: dict[str, object] = {
        "root": str(root),
        "commit": subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip(),
        "excluded": list(exclude),
        "sql_sites": len(sites),
        "sql_calls": len(sql_calls),
        "functions_over_80_lines": len(long_functions),
        "modules_over_400_lines": len(long_modules),
        "lists": {"sql_sites": sites, "functions": long_functions, "modules": long_modules},
    }
    if with_duplicates:
        dup = duplicate_pairs(root, files)
        figures["duplicate_pairs"] = dup.get("pairs")
        figures["duplicates_summary"] = dup.get("summary")
        figures["lists"]["duplicates"] = dup  # type: ignore[index]
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--list", action="store_true", help="the names behind every count")
    parser.add_argument("--no-duplicates", action="store_true", help="skip `duplicates`")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        help="leave out paths starting with this (repeatable), e.g. evals/domains/",
    )
    args = parser.parse_args(argv)
    figures = measure(
        args.root.resolve(),
        with_duplicates=not args.no_duplicates,
        exclude=tuple(args.exclude),
    )
    if not args.list:
        figures.pop("lists")
    json.dump(figures, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
