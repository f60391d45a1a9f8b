"""Before a run starts: do the suite's agent and user simulator exist, and does the provider
answer them? A made-up model name would otherwise run every trial into the same error and end
"could not complete", its cause visible only inside one trial.

Offline models (`sandbox/...` and the names tests and plugins register) are checked against
the registry, and a name a plugin's prefix resolver takes is left to it; an LLM model (any
name only the LiteLLM fallback takes) gets one real call through the model client, with the suite's own
parameters and credentials, no retry and a short timeout: an unknown model, a refused or
missing key, an unroutable name, an unreachable `api_base` or a provider that is down is
reported in one line per role. A rate limit is not: it says the name and key were accepted.
`python:` agents are imported only when a trial runs (whether a module may be imported is
decided there), so they are not called here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from evals.engine.errors import EngineError
from evals.engine.llm import (
    AgentModelError,
    CallRole,
    ModelCallExhausted,
    ModelClient,
    ModelConfigurationError,
    RetryPolicy,
    TrialAccounting,
)
from evals.engine.llm.shared import spec_from_params
from evals.engine.registry import agent_names, name_prefix, user_names
from evals.services.suites import Suite

PROBE_TIMEOUT_S = 20.0
PROBE_MESSAGES = ({"role": "user", "content": "Reply with the single word OK."},)
# Keys of a user simulator's params that are the adapter's own, not the provider's.
USER_ADAPTER_KEYS = ("fidelity_resamples",)
MAX_MESSAGE = 300


def _one_line(text: str) -> str:
    line = " ".join(text.strip().splitlines()[:1]) or text.strip()
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def _llm_problem(
    role: CallRole, model: str, params: Mapping[str, Any], client: ModelClient
) -> str | None:
    drop = USER_ADAPTER_KEYS if role is CallRole.USER else ()
    try:
        spec = spec_from_params(model, params, drop=drop)
    except EngineError as exc:
        return str(exc)
    if spec.api_key is None and spec.api_key_env and not os.environ.get(spec.api_key_env):
        return _("its key variable %(env)s is not set") % {"env": spec.api_key_env}
    spec = dataclasses.replace(spec, timeout_s=min(spec.timeout_s, PROBE_TIMEOUT_S))
    try:
        client.complete(
            spec, PROBE_MESSAGES, role=role, accounting=TrialAccounting(f"probe-{role.value}")
        )
    except ModelCallExhausted as exc:
        if exc.error_class == "RateLimitError":
            return None  # the name and the key were accepted; the run's retries wait it out
        return _one_line(str(exc))
    except (ModelConfigurationError, AgentModelError, EngineError) as exc:
        return _one_line(str(exc))
    return None


def suite_models_probe(*, suite: Suite, client: ModelClient | None = None) -> dict[str, str]:
    """{"agent" | "user": what is wrong} for each role that would not run; empty when both
    would. One LLM call per LLM role (a fraction of a cent); none for offline models."""
    client = client or ModelClient(retry=RetryPolicy(max_attempts=1))
    problems: dict[str, str] = {}
    roles = (
        ("agent", CallRole.AGENT, suite.data.agent, agent_names()),
        ("user", CallRole.USER, suite.data.user, user_names()),
    )
    for label, role, entry, registered in roles:
        name = entry.model
        if name.startswith("sandbox/") and name not in registered:
            problem: str | None = _("no such offline model; registered: %(names)s") % {
                "names": ", ".join(n for n in registered if n.startswith("sandbox/"))
            }
        elif name_prefix(name, user=role is CallRole.USER) == "":
            problem = _llm_problem(role, name, entry.params, client)
        else:
            continue  # a registered name, or a plugin's family (`python:`, a team's own)
        if problem:
            problems[label] = (
                _("agent %(model)r: %(problem)s")
                if label == "agent"
                else _("user simulator %(model)r: %(problem)s")
            ) % {"model": name, "problem": problem}
    return problems
