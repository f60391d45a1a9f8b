"""`golive selftest`: the instrument's own sensitivity.

For every task of a domain the reference agent runs once, then each fault-injected agent
(evals.engine.faults: skipped confirmation, wrong amount, wrong item, half of a compound
request, nothing at all, wrong order) runs on the same seed. A fault *applies* to a task when
it changed what the agent did (its messages or tool calls differ from the reference's — a
wrong-item fault cannot show on a task without items); the oracle *caught* it when that trial
did not pass. Sensitivity = caught / applied, per domain and fault, with how often the
oracle also named the expected failure class.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.db import transaction

from evals import access
from evals.engine import faults
from evals.engine.runner import RunSpec, TrialRecord, plan, run_unit
from evals.models import EvalSelftest
from evals.services.runs import code_version
from identity.audit import audit_record
from identity.models import Operator

SEED = 20240601


def _behaviour(record: TrialRecord) -> str:
    messages = (record.trajectory or {}).get("messages", [])
    acts = [
        [m.get("content", ""), m.get("tool_calls", [])]
        for m in messages
        if m.get("role") == "assistant"
    ]
    return json.dumps(acts, sort_keys=True)


def selftest_domain(
    domain: str, *, split: str = "all", on_fault: Callable[[str], None] | None = None
) -> dict[str, Any]:
    reference_spec = RunSpec(
        domains=(domain,), personas=("baseline",), trials=1, seed=SEED, split=split
    )
    units = plan(reference_spec)
    reference = {u.key: _behaviour(run_unit(reference_spec, u)) for u in units}
    out: dict[str, Any] = {}
    for fault, expected in faults.EXPECTED.items():
        spec = RunSpec(
            domains=(domain,),
            personas=("baseline",),
            trials=1,
            seed=SEED,
            split=split,
            agent=faults.agent_name(fault),
        )
        applied = caught = classified = 0
        missed: list[str] = []
        for unit in units:
            record = run_unit(spec, unit)
            if record.infrastructure or _behaviour(record) == reference[unit.key]:
                continue
            applied += 1
            if record.reward < 1.0:
                caught += 1
                classified += 1 if record.failure == expected.value else 0
            else:
                missed.append(unit.task_id)
        out[fault] = {
            "expected": expected.value,
            "tasks": len(units),
            "applied": applied,
            "caught": caught,
            "classified": classified,
            "sensitivity": caught / applied if applied else None,
            "missed": missed[:20],
        }
        if on_fault is not None:
            on_fault(fault)
    return out


def eval_selftest_run(
    *,
    actor: Operator,
    domains: Sequence[str],
    split: str = "all",
    on_fault: Callable[[str], None] | None = None,
) -> EvalSelftest:
    access.ensure_start(actor)
    started = time.monotonic()
    results: Mapping[str, Any] = {
        d: selftest_domain(d, split=split, on_fault=on_fault) for d in domains
    }
    with transaction.atomic():
        selftest = EvalSelftest.objects.create(
            domains=list(domains),
            split=split,
            results=dict(results),
            code_version=code_version(),
            started_by=actor,
            seconds=time.monotonic() - started,
        )
        audit_record(
            actor=actor,
            action="evals.selftest.run",
            target=selftest,
            after={
                "domains": list(domains),
                "sensitivity": {
                    d: {f: r["sensitivity"] for f, r in res.items()} for d, res in results.items()
                },
            },
        )
    return selftest
