"""The shared kernel in backoffice/ (errors, idempotency, fingerprints, HTTP, mail, pagination,
params, parsers, ...) imports no app above identity: tickets, payments and evals build on the
kernel, never the other way round. Only project-wide wiring (settings, urls, seed_demo) sees
every app. Imports are read with ast, so one inside a function or under TYPE_CHECKING counts
too, and so does a dotted name handed to importlib.import_module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNEL_DIR = ROOT / "backoffice"

# Every Django app of the project except the kernel itself and identity, which it may use.
APPS_ABOVE_IDENTITY = frozenset(p.parent.name for p in ROOT.glob("*/apps.py")) - {
    "backoffice",
    "identity",
}

# Project-wide wiring: allowed to see every app.
WIRING = frozenset({"settings.py", "urls.py", "management/commands/seed_demo.py"})

# The helpers ARCHITECTURE.md names as the kernel; they must exist, so the scan below cannot
# pass by finding nothing.
NAMED_KERNEL = frozenset(
    {
        "errors",
        "fingerprint",
        "health",
        "idempotency",
        "mail",
        "pagination",
        "params",
        "parsers",
        "request_operator",
    }
)


def imported_modules(source: str) -> set[str]:
    """Absolute module names that `source` imports, by statement or by import_module("...")."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                name == "import_module"
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                found.add(first.value)
    return found


def forbidden_imports(source: str) -> set[str]:
    return {m for m in imported_modules(source) if m.split(".")[0] in APPS_ABOVE_IDENTITY}


def kernel_modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(KERNEL_DIR.rglob("*.py")):
        relative = path.relative_to(KERNEL_DIR).as_posix()
        if relative not in WIRING:
            modules[relative] = path
    return modules


def test_the_apps_above_identity_are_found() -> None:
    assert {"tickets", "payments_sandbox", "evals"} <= APPS_ABOVE_IDENTITY


def test_the_named_kernel_modules_are_all_scanned() -> None:
    scanned = {name.removesuffix(".py") for name in kernel_modules()}
    assert scanned >= NAMED_KERNEL


def test_the_check_catches_every_way_of_importing_an_app() -> None:
    sneaky = (
        "import tickets.models\n"
        "from payments_sandbox.domain import Money\n"
        "def later():\n"
        "    from evals import services\n"
        "    import importlib\n"
        "    importlib.import_module('tickets.selectors')\n"
        "from identity.audit import audit_record\n"
        "from . import errors\n"
    )
    assert forbidden_imports(sneaky) == {
        "tickets.models",
        "payments_sandbox.domain",
        "evals",
        "tickets.selectors",
    }


def test_the_kernel_imports_no_app_above_identity() -> None:
    offenders = {
        name: sorted(found)
        for name, path in kernel_modules().items()
        if (found := forbidden_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
