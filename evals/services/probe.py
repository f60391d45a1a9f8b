"""Before a run starts: do the suite's agent and user simulator exist, and does the provider
answer them? The check itself is the engine's (`evals.engine.llm.probe`, also used by
`python -m evals.engine run`); this service runs it for a suite and words each problem in the
operator's language. A made-up model name would otherwise run every trial into the same error
and end "could not complete", its cause visible only inside one trial.

`python:` agents are imported only when a trial runs (whether a module may be imported is
decided there), so they are not called here.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from evals.engine.llm import CallRole, ModelClient, RetryPolicy
from evals.engine.llm.probe import KEY_NOT_SET, NO_SUCH_OFFLINE_MODEL, Problem, model_problem
from evals.services.suites import Suite


def _words(problem: Problem) -> str:
    if problem.code == NO_SUCH_OFFLINE_MODEL:
        return _("no such offline model; registered: %(names)s") % dict(problem.values)
    if problem.code == KEY_NOT_SET:
        return _("its key variable %(env)s is not set") % dict(problem.values)
    return problem.english()  # the provider's own message, as it gave it


def suite_models_probe(*, suite: Suite, client: ModelClient | None = None) -> dict[str, str]:
    """{"agent" | "user": what is wrong} for each role that would not run; empty when both
    would. One LLM call per LLM role (a fraction of a cent); none for offline models."""
    client = client or ModelClient(retry=RetryPolicy(max_attempts=1))
    problems: dict[str, str] = {}
    roles = (
        ("agent", CallRole.AGENT, suite.data.agent),
        ("user", CallRole.USER, suite.data.user),
    )
    for label, role, entry in roles:
        problem = model_problem(role, entry.model, entry.params, client=client)
        if problem is None:
            continue
        problems[label] = (
            _("agent %(model)r: %(problem)s")
            if label == "agent"
            else _("user simulator %(model)r: %(problem)s")
        ) % {"model": entry.model, "problem": _words(problem)}
    return problems
