"""Every write of the go-live app: runs (create, execute, resume, interrupt, finalise),
trial tickets and selftests. Suites and the gate are the pure helpers they use."""

from evals.services.probe import suite_models_probe
from evals.services.reruns import eval_run_rerun_errors
from evals.services.run_background import eval_run_resume_background, eval_run_start_background
from evals.services.run_finalise import eval_run_finalise
from evals.services.run_plan import code_version, run_suite, run_units
from evals.services.runs import (
    Progress,
    eval_run_create,
    eval_run_execute,
    eval_run_interrupt,
    eval_run_resume,
    trial_execute,
)
from evals.services.selftest import eval_selftest_run, selftest_evidence, selftest_missing
from evals.services.store import finished_keys, trial_documents_store, trial_store
from evals.services.suites import (
    Suite,
    SuiteCodeRefused,
    SuiteError,
    suite_check_web_models,
    suite_list,
    suite_load,
    suite_override,
)
from evals.services.trials import eval_trial_ticket_create
from evals.services.watchdog import WatchdogAction, eval_run_watchdog

__all__ = [
    "Progress",
    "Suite",
    "SuiteCodeRefused",
    "SuiteError",
    "WatchdogAction",
    "code_version",
    "eval_run_create",
    "eval_run_execute",
    "eval_run_finalise",
    "eval_run_interrupt",
    "eval_run_rerun_errors",
    "eval_run_resume",
    "eval_run_resume_background",
    "eval_run_start_background",
    "eval_run_watchdog",
    "eval_selftest_run",
    "eval_trial_ticket_create",
    "finished_keys",
    "run_suite",
    "run_units",
    "selftest_evidence",
    "selftest_missing",
    "suite_check_web_models",
    "suite_list",
    "suite_load",
    "suite_models_probe",
    "suite_override",
    "trial_documents_store",
    "trial_execute",
    "trial_store",
]
