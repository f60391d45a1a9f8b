"""`golive selftest`: the instrument's own sensitivity, stored, and the evidence the gate
reads from it.

The measurement is the engine's (`evals.engine.selftest`): per domain and injected fault,
how many of the tasks the fault applies to (decided from the task alone) the oracle failed,
how often it named the expected failure class, and every task it missed. A run's gate
accepts it only from the code version the run's trials ran on: a self-test of other code
says nothing about this oracle.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction

from evals import access
from evals.engine import faults
from evals.engine.selftest import selftest_domain
from evals.models import EvalSelftest
from evals.services.run_plan import code_version
from identity.audit import audit_record
from identity.models import Operator

# The gate reads self-tests of the whole task set only (a smoke split covers too little).
GATE_SPLIT = "all"


def eval_selftest_run(
    *,
    actor: Operator,
    domains: Sequence[str],
    split: str = GATE_SPLIT,
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
                "split": split,
                "sensitivity": {
                    d: {f: r["sensitivity"] for f, r in res.items()} for d, res in results.items()
                },
                "missed": {
                    d: {f: len(r["missed"]) for f, r in res.items() if r["missed"]}
                    for d, res in results.items()
                },
            },
        )
    return selftest


def _usable(results: Mapping[str, Any]) -> bool:
    """Every fault measured with its applicability (rows of older code have neither)."""
    return all("applicable" in results.get(fault, {}) for fault in faults.EXPECTED)


def selftest_evidence(*, domains: Iterable[str], code_version: str) -> dict[str, Any]:
    """What the gate's sensitivity check reads, per domain: the newest self-test of the
    whole task set at `code_version` that covers the domain, as {selftest id, faults:
    {fault: {caught, applicable}}} — None for a domain no such self-test covers."""
    wanted = list(dict.fromkeys(domains))
    found: dict[str, Any] = dict.fromkeys(wanted)
    candidates = EvalSelftest.objects.filter(code_version=code_version, split=GATE_SPLIT).only(
        "id", "domains", "results"
    )
    for selftest in candidates.order_by("-created_at", "-id").iterator():
        for domain in wanted:
            results = selftest.results.get(domain, {})
            if found[domain] is None and domain in selftest.domains and _usable(results):
                found[domain] = {
                    "selftest": selftest.pk,
                    "faults": {
                        fault: {"caught": r["caught"], "applicable": r["applicable"]}
                        for fault, r in results.items()
                    },
                }
        if all(v is not None for v in found.values()):
            break
    return {"code_version": code_version, "domains": found}


def selftest_missing(*, domains: Iterable[str], code_version: str) -> list[str]:
    """The domains no stored self-test at `code_version` covers (what `golive run` runs
    first)."""
    evidence = selftest_evidence(domains=domains, code_version=code_version)
    return [d for d, found in evidence["domains"].items() if found is None]
