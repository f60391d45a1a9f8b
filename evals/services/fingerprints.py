"""A run's fingerprint and its agents' seed key, as the go-live app keeps them.

A suite runs as one engine RunSpec per domain, so a run's fingerprinted fields are a mapping
domain → that spec's fields (secret-free, see evals.engine.runner.fingerprint), frozen on the
EvalRun when it is created, with their sha256 as the run's fingerprint. Each trial row
carries its spec's fingerprint.

Resuming a run (the service, `golive run --resume`, the API) first compares what would run
now — the run's suite, with the caller's overrides, under the code installed now — with what
the run froze; any difference refuses the resume with one line naming it, so a run never
holds trials of two agents, two code versions or two seeds. The agent-seed key is drawn at
creation and read back by whoever executes a trial; it is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from evals.engine.runner import new_agent_key
from evals.engine.runner.fingerprint import difference, fingerprint_of
from evals.models import EvalRun, TrialResult
from evals.services.suites import Suite


def suite_fingerprint_fields(*, suite: Suite) -> dict[str, dict[str, Any]]:
    return {spec.domains[0]: spec.fingerprint_fields() for spec in suite.specs()}


def run_fingerprint_values(*, suite: Suite) -> dict[str, Any]:
    """The fields a new EvalRun stores: fingerprint, fingerprinted fields, agent-seed key."""
    fields = suite_fingerprint_fields(suite=suite)
    return {
        "fingerprint": fingerprint_of(fields),
        "fingerprint_fields": fields,
        "agent_seed_key": new_agent_key().hex(),
    }


def agent_key(*, run: EvalRun) -> bytes:
    return bytes.fromhex(run.agent_seed_key)


def domain_fingerprints(*, run: EvalRun) -> dict[str, str]:
    """domain → the fingerprint its trials must carry."""
    return {domain: fingerprint_of(fields) for domain, fields in run.fingerprint_fields.items()}


def _difference(stored: Mapping[str, Any], current: Mapping[str, Any]) -> str:
    now = _("this resume's")
    if list(stored) != list(current):
        return difference({"domains": list(stored)}, {"domains": list(current)}, now=now)
    for domain, fields in current.items():
        if words := difference(stored[domain], fields, now=now):
            return words
    return ""


def resume_refusal(*, run: EvalRun, suite: Suite) -> str:
    """Why `run` must not go on with `suite` under the code installed now ("" when it may):
    it predates fingerprints, what would run differs from what it froze, or it holds rows of
    another fingerprint."""
    if not run.fingerprint or not run.agent_seed_key:
        return _("Run #%(run)s predates run fingerprints: start a new run.") % {"run": run.pk}
    words = _difference(run.fingerprint_fields, suite_fingerprint_fields(suite=suite))
    if words:
        return _("Run #%(run)s holds trials of %(difference)s: start a new run instead.") % {
            "run": run.pk,
            "difference": words,
        }
    foreign = sorted(
        set(
            TrialResult.objects.filter(run=run)
            .exclude(fingerprint__in=domain_fingerprints(run=run).values())
            .values_list("fingerprint", flat=True)
            .distinct()
        )
    )
    if foreign:
        return _(
            "Run #%(run)s holds trials of another fingerprint (%(theirs)s): start a new run."
        ) % {"run": run.pk, "theirs": ", ".join(fp[:12] or _("none") for fp in foreign)}
    return ""
