"""What a run is made of: the suite frozen in it, the work units that suite expands to, and
the code version the run is recorded at."""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata

from django.conf import settings

from evals.engine.runner import WorkUnit, plan
from evals.models import EvalRun
from evals.services.suites import Suite, suite_from_mapping


@functools.cache
def code_version() -> str:
    """`git describe` of the working tree when it is a checkout, else the package version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],  # noqa: S607
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
        if out.stdout.strip():
            return out.stdout.strip()[:100]
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return f"backoffice {metadata.version('backoffice')}"
    except metadata.PackageNotFoundError:
        return "unknown"


def run_suite(*, run: EvalRun) -> Suite:
    return suite_from_mapping(run.suite_snapshot, source=f"run #{run.pk}")


def run_units(*, suite: Suite) -> list[WorkUnit]:
    return [unit for spec in suite.specs() for unit in plan(spec)]
