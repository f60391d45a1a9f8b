"""The go-live pages (server-rendered, SVG charts from evals.charts)."""

from evals.views.lists import run_trial_list
from evals.views.reports import (
    compare,
    run_detail,
    run_export,
    run_progress,
    run_report_file,
    run_resume,
)
from evals.views.runs import run_import, run_list, run_start
from evals.views.selftest import run_selftest, selftest_detail
from evals.views.trials import run_rerun_errors, trial_cell, trial_detail, trial_ticket

__all__ = [
    "compare",
    "run_detail",
    "run_export",
    "run_import",
    "run_list",
    "run_progress",
    "run_report_file",
    "run_rerun_errors",
    "run_resume",
    "run_selftest",
    "run_start",
    "run_trial_list",
    "selftest_detail",
    "trial_cell",
    "trial_detail",
    "trial_ticket",
]
