"""The runner: plan work units, run them (inline, thread pool, or one Celery task each via
`run_unit`), store each finished trial as one appended JSON line, resume — never on top of
another run's trials (the run fingerprint, `runfile.open_run`)."""

from evals.engine.runner.execute import plan, run, run_unit
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.runfile import ResumeRefused, RunFile, default_out, open_run
from evals.engine.runner.sink import JsonlSink, MemorySink, Sink, read_records
from evals.engine.runner.spec import RunSpec, WorkUnit, agent_seed, derive_seed, new_agent_key

__all__ = [
    "JsonlSink",
    "MemorySink",
    "ResumeRefused",
    "RunFile",
    "RunSpec",
    "Sink",
    "TrialRecord",
    "WorkUnit",
    "agent_seed",
    "default_out",
    "derive_seed",
    "new_agent_key",
    "open_run",
    "plan",
    "read_records",
    "run",
    "run_unit",
]
