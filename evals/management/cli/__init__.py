"""`golive run` and `golive selftest`: what the management command does, exit codes included.

Exit codes: 0 the gate passes, 1 the gate fails, 2 the run could not complete (bad
configuration, unknown operator, too many infrastructure errors, an interrupted run) — always
with a one-line reason on stderr. `golive selftest`: 0 when every applicable fault is caught
on at least the gate's share of its tasks, 1 when one is not, 2 when it could not run.
"""

from evals.management.cli.output import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_PASS,
    Bar,
    exit_code,
    models_line,
    print_plan,
    print_selftest,
    print_verdict,
    report_url,
    run_json,
    selftest_short,
)
from evals.management.cli.run import (
    CLI_PRINCIPAL,
    Abort,
    default_executor,
    ensure_selftest,
    golive_run,
    origin,
    probe_models,
    resolve_operator,
)

__all__ = [
    "CLI_PRINCIPAL",
    "EXIT_ERROR",
    "EXIT_FAIL",
    "EXIT_PASS",
    "Abort",
    "Bar",
    "default_executor",
    "ensure_selftest",
    "exit_code",
    "golive_run",
    "models_line",
    "origin",
    "print_plan",
    "print_selftest",
    "print_verdict",
    "probe_models",
    "report_url",
    "resolve_operator",
    "run_json",
    "selftest_short",
]
