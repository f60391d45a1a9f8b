"""Simulator fidelity: deterministic checks that the simulated customer stayed inside its
scenario. The simulator is part of the measuring instrument; a trial it spoiled says nothing
about the agent, so it is a simulator error — reported with its own rate and re-run — not an
agent failure.

- `unsupported_facts(text, seen)`: ids, emails, amounts and self-introduced names in a
  customer message that appear neither in its scenario nor earlier in the conversation (an
  invented order number, a made-up amount, an extra item id).
- `stopped_before_last_write(domain, task, trajectory)`: the customer ended the conversation
  while the agent was still mid-process (its last message asked a question) and the task's
  gold writes had not all happened — it left before the agent's last write.
- `simulator_error_rate(records)`: the share of trials ended by a `SimulatorError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from evals.engine.errors import InfrastructureError
from evals.engine.messages import Role, Signal, Trajectory

SIMULATOR_ERROR = "SimulatorError"


class SimulatorError(InfrastructureError):
    """The user simulator broke its scenario (invented facts, an empty or premature turn).
    An infrastructure error: excluded from pass^k and re-run, never charged to the agent."""


_ID = re.compile(r"#?[A-Za-z0-9_\-]*\d[A-Za-z0-9_\-]*(?:\.\d+)?")
_EMAIL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")
_NAME = re.compile(
    r"\b(?:my name is|name's|i am|i'm|this is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)",
    re.IGNORECASE,
)


def _facts(text: str) -> set[str]:
    facts = {m.group(0).lower() for m in _EMAIL.finditer(text)}
    for m in _ID.finditer(_EMAIL.sub(" ", text)):
        token = m.group(0).strip("-_").lower()
        digits = sum(ch.isdigit() for ch in token)
        # Short plain numbers ("2 items", "5 minutes") are conversation, not record facts.
        if digits >= 3 or (digits and not token.replace(".", "").isdigit()):
            facts.add(token)
    for m in _NAME.finditer(text):
        if m.group(1)[0].isupper():
            facts.add(m.group(1).lower())
    return facts


def unsupported_facts(text: str, seen: str) -> set[str]:
    """Facts stated in `text` that `seen` (scenario + conversation so far) never mentions."""
    haystack = seen.lower()
    out = set()
    for fact in _facts(text):
        if fact in haystack:
            continue
        if fact.startswith("#") and fact[1:] in haystack:
            continue
        if fact.replace(",", "").lstrip("$") in haystack.replace(",", ""):
            continue
        out.add(fact)
    return out


def stopped_before_last_write(domain: Any, task: Any, trajectory: Trajectory) -> bool:
    """True when the customer said stop while the agent was mid-process (its last text
    asked a question) and fewer successful writes than the gold's had happened."""
    messages = trajectory.messages
    if not messages or messages[-1].role is not Role.USER:
        return False
    if messages[-1].signal is not Signal.STOP:
        return False
    last_agent_text = next(
        (m.content for m in reversed(messages) if m.role is Role.ASSISTANT and m.content), ""
    )
    if not last_agent_text.rstrip().endswith(("?", "？")):
        return False
    failed = {m.tool_call_id for m in messages if m.role is Role.TOOL and m.error}
    writes = 0
    for m in messages:
        for call in m.tool_calls if m.role is Role.ASSISTANT else ():
            tool = domain.tools.get(call.name)
            if tool is not None and tool.kind.value == "write" and call.id not in failed:
                writes += 1
    return writes < len(task.gold)


def is_simulator_error(error: str) -> bool:
    return SIMULATOR_ERROR in error


def simulator_error_rate(records: Iterable[Any]) -> tuple[int, int, float]:
    """(simulator errors, trials, rate) over trial records (anything with `.error`)."""
    total = flagged = 0
    for r in records:
        total += 1
        flagged += int(is_simulator_error(getattr(r, "error", "")))
    return flagged, total, (flagged / total if total else 0.0)
