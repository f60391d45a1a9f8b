"""Go-live pages at 10,000 trials: server time and page weight of the run page, a trial
page, the compare page and the trial list.

    .venv/bin/python bench/run_pages.py                 # SQLite (a temporary file)
    .venv/bin/python bench/run_pages.py --trials 18 --requests 10
    .venv/bin/python bench/run_pages.py --postgres      # database bo_bench_run_pages
    .venv/bin/python bench/run_pages.py --sqlite-path /tmp/pages.sqlite3 --reuse

Builds two runs of the same cells (retail and membership, every task, four personas): a
baseline with the reference agent and a candidate that skips confirmations. Each is first
run for real with 2 trials per task (real trajectories, verdicts and failures), then every
cell's two stored trials are copied to --trials per task (about 10,000 trials per run with
18) and the run's summary is computed again from all stored rows, as finalise does. Pages
are fetched with Django's test client as a signed-in release manager (full middleware,
templates, no network). Prints one JSON document: per page the wall and CPU milliseconds
(p50, p95), the SQL statements of one request and the bytes of the HTML.

--reuse measures the two runs an earlier invocation left in --sqlite-path or
--postgres-db (migrations still run, timed: an upgrade's data migrations count) instead of
building them again. The trial list is searched for a common word, a tool's name, a rare
customer id, an order number and Chinese.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is not a package: its scripts import each other from their own directory.
from inbox import configure, log  # noqa: E402

PERSONAS = ["baseline", "impatient", "skeptical", "confused"]
AGENTS = ("sandbox/reference", "sandbox/fault:skip_confirmation")


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def statements(client: Any, url: str) -> int:
    """SQL statements one request of `url` sends (session and user included)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200, url
    return len(captured.captured_queries)


def measure(client: Any, url: str, n: int) -> dict[str, Any]:
    for _ in range(2):
        assert client.get(url).status_code == 200, url
    queries = statements(client, url)
    wall, cpu, size = [], [], 0
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        body = response.content
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, url
        size = len(body)
    return {
        "url": url,
        "p50_ms": round(statistics.median(wall), 1),
        "p95_ms": round(percentile(wall, 95), 1),
        "cpu_p50_ms": round(statistics.median(cpu), 1),
        "statements": queries,
        "bytes": size,
        "n": n,
    }


def failing_plan(run_id: int) -> list[str]:
    """The plan of the run page's failing list (PostgreSQL: executed, with buffers)."""
    from django.db import connection

    from evals import selectors

    qs = selectors.run_failing_trials(run_id=run_id, limit=100)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE evals_trialresult")
        return qs.explain(analyze=True, buffers=True).splitlines()
    return qs.explain().splitlines()


def bench_suite(agent: str, trials: int) -> Any:
    from evals.services.suites import suite_from_mapping

    return suite_from_mapping(
        {
            "name": "bench",
            "seed": 7,
            "trials": trials,
            "workers": 1,
            "personas": PERSONAS,
            "domains": [{"name": "retail"}, {"name": "membership"}],
            "agent": {"model": agent},
            "guard_mode": "observe",
            "gate": {"pass_hat_k_lower": 0.9, "pass_hat_1": 0.95},
        }
    )


def summarise(run_id: int, agent: str, trials: int) -> Any:
    """The run's summary and verdict computed again from every stored row, as finalise
    does (with --reuse: by the code installed now)."""
    from evals.models import EvalRun
    from evals.services.gate import gate_evaluate, summarise_rows
    from evals.services.run_finalise import run_rows
    from evals.services.selftest import selftest_evidence

    run = EvalRun.objects.get(pk=run_id)
    full = bench_suite(agent, trials)
    rows = run_rows(run_id=run.pk)
    report, extra = summarise_rows(rows, full)
    extra["selftest"] = selftest_evidence(domains=full.domains, code_version=run.code_version)
    verdict, checks = gate_evaluate(full, report, extra)
    EvalRun.objects.filter(pk=run.pk).update(
        suite_snapshot=full.snapshot(),
        suite_hash=full.digest(),
        trials_per_task=trials,
        total_units=len(rows),
        summary=extra,
        verdict=verdict,
        verdict_reasons=[c.to_dict() for c in checks],
    )
    log(f"run #{run.pk}: {len(rows)} trials stored and summarised")
    return EvalRun.objects.get(pk=run.pk)


def build_run(actor: Any, agent: str, trials: int) -> Any:
    from evals import services
    from evals.models import TrialResult

    started = time.perf_counter()
    run = services.eval_run_create(actor=actor, suite=bench_suite(agent, 2))
    run = services.eval_run_execute(actor=actor, run_id=run.pk)
    log(f"run #{run.pk} ({agent}): 2 trials per task in {time.perf_counter() - started:.1f} s")
    copies = []
    for row in TrialResult.objects.filter(run=run):
        for n in range(2 + row.trial, trials, 2):
            row.pk = None
            row.trial = n
            copies.append(
                TrialResult(
                    **{f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}
                )
            )
    services.trial_documents_store(trials=TrialResult.objects.bulk_create(copies, batch_size=500))
    return summarise(run.pk, agent, trials)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=18, help="trials per task (18: ~10,000)")
    parser.add_argument("--requests", type=int, default=5)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument(
        "--postgres-db", default="bo_bench_run_pages", help="database name (with --postgres)"
    )
    parser.add_argument("--sqlite-path", help="SQLite file to use (default: a temporary one)")
    parser.add_argument(
        "--reuse", action="store_true", help="measure the runs an earlier invocation built"
    )
    parser.add_argument(
        "--without-cells",
        action="store_true",
        help="drop the summaries' per-cell figures, as a run finalised before they existed:"
        " the compare page aggregates the trial rows on each request",
    )
    args = parser.parse_args()
    backend = configure(args, prefix="bench-run-pages-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    migrate_seconds = round(time.perf_counter() - started, 1)
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from evals.models import EvalRun, TrialOutcome, TrialResult
    from identity import roles
    from identity.models import Operator, Role
    from tests.conftest import verified_client

    if args.reuse and Operator.objects.filter(username="rita").exists():
        log(f"{backend}: reusing the runs built before")
        rita = Operator.objects.get(username="rita")
        baseline, candidate = (
            summarise(run.pk, run.agent_model, run.trials_per_task)
            for run in (EvalRun.objects.filter(agent_model=a).latest("pk") for a in AGENTS)
        )
    else:
        rita = Operator.objects.create_user(username="rita", password="x" * 20, display_name="Rita")
        roles.grant(rita, Role.RELEASE_MANAGER)
        TOTPDevice.objects.create(user=rita, name="default", confirmed=True)
        baseline, candidate = (build_run(rita, agent, args.trials) for agent in AGENTS)
    if args.without_cells:
        for run in (baseline, candidate):
            run.summary.pop("cells", None)
            EvalRun.objects.filter(pk=run.pk).update(summary=run.summary)
    failing = (
        TrialResult.objects.filter(run=candidate, outcome=TrialOutcome.FAIL).order_by("id").first()
    )
    assert failing is not None
    client = verified_client(rita)
    pages = {
        "run": f"/evals/{candidate.pk}/",
        "trial": f"/evals/{candidate.pk}/trials/{failing.pk}/",
        "compare": f"/evals/compare/?a={baseline.pk}&b={candidate.pk}",
        "trial_list": f"/evals/{candidate.pk}/trials/",
        "trial_list_search": f"/evals/{candidate.pk}/trials/?q=confirm",
        "trial_list_search_tool": f"/evals/{candidate.pk}/trials/?q=cancel_pending_order",
        "trial_list_search_rare": f"/evals/{candidate.pk}/trials/?q=lucas_johnson_8273",
        "trial_list_search_order": f"/evals/{candidate.pk}/trials/?q=%23W2945188",
        "trial_list_search_chinese": f"/evals/{candidate.pk}/trials/?q=%E9%80%80%E6%AC%BE",
        "report_file": f"/evals/{candidate.pk}/report.html",
    }
    results: dict[str, Any] = {
        "backend": backend,
        "cells_in_summaries": not args.without_cells,
        "trials_per_run": {
            "baseline": baseline.total_units,
            "candidate": candidate.total_units,
        },
        "load_average": os.getloadavg(),
        # With --reuse after an upgrade: includes building the new migrations' indexes and
        # the trials' search documents.
        "migrate_seconds": migrate_seconds,
        "failing_list_plan": failing_plan(candidate.pk),
        "pages": {},
    }
    for name, url in pages.items():
        log(f"measuring {name}")
        results["pages"][name] = measure(client, url, args.requests)
    results["load_average_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
