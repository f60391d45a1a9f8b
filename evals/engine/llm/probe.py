"""Before a run starts: does each model name exist, and does its provider answer it?

A made-up model name would otherwise run every trial into the same error and end "could not
complete", its cause visible only inside one trial. Used by the engine's command line and,
through `evals.services.probe`, by the backoffice's start form, API and `golive run`.

Offline models (`sandbox/...` and the names tests and plugins register) are checked against
the registry, and a name a plugin's prefix resolver takes (`python:`, a team's own) is left to
it; an LLM model (any name only the LiteLLM fallback takes) gets one real call through the
model client, with the run's own parameters and credentials, no retry and a short timeout: an
unknown model, a refused or missing key, an unroutable name, an unreachable `api_base` or a
provider that is down is reported. A rate limit is not: it says the name and key were
accepted, and the run's retries wait it out.

The engine is pure Python and says nothing to a person in a language: a problem is a code and
its values (`Problem`); `Problem.english()` is the command line's wording, and the backoffice
words the same codes through its translation catalogue.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.llm.accounting import CallRole, TrialAccounting
from evals.engine.llm.client import ModelClient
from evals.engine.llm.errors import AgentModelError, ModelCallExhausted, ModelConfigurationError
from evals.engine.llm.shared import spec_from_params
from evals.engine.llm.spec import RetryPolicy
from evals.engine.registry import agent_names, name_prefix, user_names

PROBE_TIMEOUT_S = 20.0
PROBE_MESSAGES = ({"role": "user", "content": "Reply with the single word OK."},)
# Keys of a user simulator's params that are the adapter's own, not the provider's.
USER_ADAPTER_KEYS = ("fidelity_resamples",)
MAX_MESSAGE = 300

NO_SUCH_OFFLINE_MODEL = "no_such_offline_model"  # values: names (registered sandbox/ names)
KEY_NOT_SET = "key_not_set"  # values: env
PROVIDER = "provider"  # values: detail (the provider's or client's own one-line message)


@dataclasses.dataclass(frozen=True)
class Problem:
    code: str
    values: Mapping[str, str]

    def english(self) -> str:
        if self.code == NO_SUCH_OFFLINE_MODEL:
            return f"no such offline model; registered: {self.values['names']}"
        if self.code == KEY_NOT_SET:
            return f"its key variable {self.values['env']} is not set"
        return self.values["detail"]


def _one_line(text: str) -> str:
    line = " ".join(text.strip().splitlines()[:1]) or text.strip()
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def _llm_problem(
    role: CallRole, model: str, params: Mapping[str, Any], client: ModelClient
) -> Problem | None:
    drop = USER_ADAPTER_KEYS if role is CallRole.USER else ()
    try:
        spec = spec_from_params(model, params, drop=drop)
    except EngineError as exc:
        return Problem(PROVIDER, {"detail": str(exc)})
    if spec.api_key is None and spec.api_key_env and not os.environ.get(spec.api_key_env):
        return Problem(KEY_NOT_SET, {"env": spec.api_key_env})
    spec = dataclasses.replace(spec, timeout_s=min(spec.timeout_s, PROBE_TIMEOUT_S))
    try:
        client.complete(
            spec, PROBE_MESSAGES, role=role, accounting=TrialAccounting(f"probe-{role.value}")
        )
    except ModelCallExhausted as exc:
        if exc.error_class == "RateLimitError":
            return None  # the name and the key were accepted; the run's retries wait it out
        return Problem(PROVIDER, {"detail": _one_line(str(exc))})
    except (ModelConfigurationError, AgentModelError, EngineError) as exc:
        return Problem(PROVIDER, {"detail": _one_line(str(exc))})
    return None


def model_problem(
    role: CallRole, name: str, params: Mapping[str, Any], *, client: ModelClient | None = None
) -> Problem | None:
    """What would stop `name` from running as `role`, or None. One LLM call for a LiteLLM
    model (a fraction of a cent); none for offline and plugin models."""
    registered = user_names() if role is CallRole.USER else agent_names()
    if name.startswith("sandbox/") and name not in registered:
        names = ", ".join(n for n in registered if n.startswith("sandbox/"))
        return Problem(NO_SUCH_OFFLINE_MODEL, {"names": names})
    if name_prefix(name, user=role is CallRole.USER) != "":
        return None  # a registered name, or a plugin's family (`python:`, a team's own)
    client = client or ModelClient(retry=RetryPolicy(max_attempts=1))
    return _llm_problem(role, name, params, client)
