"""The runner: plan work units, run them (inline, thread pool, or one Celery task each via
`run_unit`), store each finished trial as one appended JSON line, resume."""

from evals.engine.runner.execute import plan, run, run_unit
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.sink import JsonlSink, MemorySink, Sink, read_records
from evals.engine.runner.spec import RunSpec, WorkUnit, derive_seed

__all__ = [
    "JsonlSink",
    "MemorySink",
    "RunSpec",
    "Sink",
    "TrialRecord",
    "WorkUnit",
    "derive_seed",
    "plan",
    "read_records",
    "run",
    "run_unit",
]
