"""`golive run --plan`: how many trials, and for LLM models how many calls, tokens and dollars.

The estimate replays each task once offline (reference agent, scripted customer, baseline
persona — milliseconds per task, no key) and counts what an LLM in each seat would have been
sent and would have written: one call per agent step and per customer message; prompt tokens
= the whole context at that call (policy + tool schemas + conversation) / 4 characters per
token; completion tokens = the message written / 4. Real models talk more or less than the
reference agent, so treat it as an order of magnitude, which is what a budget decision needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evals.domains import get_domain
from evals.engine.runner import RunSpec, plan, run_unit
from evals.services.suites import Suite

CHARS_PER_TOKEN = 4
OFFLINE_PREFIXES = ("sandbox/", "python:")


def is_llm(model: str) -> bool:
    return not model.startswith(OFFLINE_PREFIXES)


@dataclass
class RoleEstimate:
    model: str
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
        }


@dataclass
class Plan:
    trials: int
    by_domain: dict[str, int]
    personas: tuple[str, ...]
    roles: dict[str, RoleEstimate] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "by_domain": self.by_domain,
            "personas": list(self.personas),
            "llm": {role: r.to_dict() for role, r in self.roles.items()},
        }


def _price(model: str, tokens_in: int, tokens_out: int) -> float | None:
    try:
        import litellm

        cost_in, cost_out = litellm.cost_per_token(
            model=model, prompt_tokens=tokens_in, completion_tokens=tokens_out
        )
    except Exception:  # LiteLLM raises its own "model not mapped" errors: unpriced
        return None
    return float(cost_in) + float(cost_out)


def _task_counts(spec: RunSpec) -> dict[str, tuple[int, int, int, int, int, int]]:
    """Per task: (agent calls, agent in, agent out, user calls, user in, user out) tokens."""
    domain = get_domain(spec.domains[0])
    fixed = len(domain.policy) + len(json.dumps(list(domain.tools.schemas())))
    replay = RunSpec(
        domains=spec.domains,
        personas=("baseline",),
        trials=1,
        seed=spec.seed,
        split=spec.split,
        task_ids=spec.task_ids,
    )
    out: dict[str, tuple[int, int, int, int, int, int]] = {}
    for unit in plan(replay):
        messages = (run_unit(replay, unit).trajectory or {}).get("messages", [])
        context = fixed
        user_context = 600  # the scenario and persona prompt
        a_calls = a_in = a_out = u_calls = u_in = u_out = 0
        for m in messages:
            size = len(m.get("content", "")) + len(json.dumps(m.get("tool_calls", [])))
            if m.get("role") == "assistant":
                a_calls += 1
                a_in += context
                a_out += size
                user_context += len(m.get("content", ""))
            elif m.get("role") == "user":
                u_calls += 1
                u_in += user_context
                u_out += size
                user_context += size
            context += size
        out[unit.task_id] = (a_calls, a_in, a_out, u_calls, u_in, u_out)
    return out


def estimate(suite: Suite) -> Plan:
    data = suite.data
    by_domain: dict[str, int] = {}
    roles = {
        role: RoleEstimate(model=m.model)
        for role, m in (("agent", data.agent), ("user", data.user))
        if is_llm(m.model)
    }
    for spec in suite.specs():
        units = plan(spec)
        by_domain[spec.domains[0]] = len(units)
        if not roles:
            continue
        counts = _task_counts(spec)
        for unit in units:
            a_calls, a_in, a_out, u_calls, u_in, u_out = counts[unit.task_id]
            if "agent" in roles:
                roles["agent"].calls += a_calls
                roles["agent"].tokens_in += a_in // CHARS_PER_TOKEN
                roles["agent"].tokens_out += a_out // CHARS_PER_TOKEN
            if "user" in roles:
                roles["user"].calls += u_calls
                roles["user"].tokens_in += u_in // CHARS_PER_TOKEN
                roles["user"].tokens_out += u_out // CHARS_PER_TOKEN
    for r in roles.values():
        r.cost_usd = _price(r.model, r.tokens_in, r.tokens_out)
    return Plan(
        trials=sum(by_domain.values()), by_domain=by_domain, personas=data.personas, roles=roles
    )
