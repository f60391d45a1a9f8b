"""Simulator fidelity: deterministic checks that the simulated customer stayed inside its
scenario. The simulator is part of the measuring instrument; a trial it spoiled says nothing
about the agent, so it ends with `simulator_error` — excluded from pass^k, counted apart,
re-run by resume — never as an agent failure.

- `unsupported_facts(text, seen)`: ids, emails, amounts and self-introduced names in a
  customer message that appear neither in its scenario nor earlier in the conversation (an
  invented order number, a made-up amount, an extra item id).
- `stopped_before_last_write(domain, task, trajectory)`: the customer said stop while the
  agent was waiting for its go-ahead on a write (its last message asked for confirmation)
  and the task's gold writes had not all happened — it left before the agent's last write.
- `invented_facts(scenario, messages)`: the first customer message with unsupported facts
  (used by the orchestrator on simulators that do not check themselves).

Simulators that check themselves (the LiteLLM user re-samples an unfaithful message and
raises `SimulatorError` when it stays unfaithful; the scripted user's mistakes are persona
behaviour it corrects) declare `fidelity_checked = True`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from evals.engine.errors import SimulatorError
from evals.engine.messages import Message, Role, Signal, Trajectory

SIMULATOR_ERROR = "SimulatorError"

__all__ = [
    "SIMULATOR_ERROR",
    "SimulatorError",
    "asks_for_confirmation",
    "invented_facts",
    "is_simulator_error",
    "scenario_text",
    "simulator_error_rate",
    "stopped_before_last_write",
    "unsupported_facts",
]

_ID = re.compile(r"#?[A-Za-z0-9_\-]*\d[A-Za-z0-9_\-]*(?:\.\d+)?")
_EMAIL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")
_NAME = re.compile(
    r"\b(?:my name is|name's|i am|i'm|this is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)",
    re.IGNORECASE,
)
_CONFIRM_EN = re.compile(
    r"\b(proceed|confirm|go ahead|shall i|should i|would you like me to|do you want me to|"
    r"ok(?:ay)? to|is that (?:right|correct|ok(?:ay)?)|yes/no|yes or no)\b",
    re.IGNORECASE,
)
_CONFIRM_ZH = re.compile(r"确认|继续|可以吗|是否|要我|好吗")
_CLOSING = re.compile(r"\banything else\b|\bother questions?\b|还有其他|还有别的", re.IGNORECASE)


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


def scenario_text(scenario: Any) -> str:
    """Everything the simulated customer was given: the prompt and its free-form data."""
    data = getattr(scenario, "data", None) or {}
    return scenario.prompt() + "\n" + json.dumps(data, ensure_ascii=False, default=str)


def invented_facts(scenario: Any, messages: Sequence[Message]) -> tuple[int, set[str]]:
    """(index, facts) of the first customer message stating facts absent from its scenario
    and from the conversation before it; (-1, set()) when every message is faithful."""
    seen = [scenario_text(scenario)]
    for i, m in enumerate(messages):
        if m.role is Role.USER and m.content:
            bad = unsupported_facts(m.content, "\n".join(seen))
            if bad:
                return i, bad
        if m.role in (Role.USER, Role.ASSISTANT) and m.content:
            seen.append(m.content)  # what the customer saw; never tool results
    return -1, set()


def asks_for_confirmation(text: str) -> bool:
    """The agent's message asks the customer's go-ahead ("Shall I proceed? (yes/no)"), not a
    closing question ("Is there anything else?")."""
    stripped = text.rstrip()
    if not stripped.endswith(("?", "？", "(yes/no)", "（是/否）")):
        return False
    if _CLOSING.search(stripped):
        return False
    return bool(_CONFIRM_EN.search(stripped) or _CONFIRM_ZH.search(stripped))


def _successful_writes(domain: Any, messages: Sequence[Message]) -> int:
    failed = {m.tool_call_id for m in messages if m.role is Role.TOOL and m.error}
    writes = 0
    for m in messages:
        for call in m.tool_calls if m.role is Role.ASSISTANT else ():
            tool = domain.tools.get(call.name)
            if tool is not None and tool.kind.value == "write" and call.id not in failed:
                writes += 1
    return writes


def stopped_before_last_write(domain: Any, task: Any, trajectory: Trajectory | Any) -> bool:
    """True when the customer said stop while the agent was waiting for its confirmation of
    a write (its last text asked for the go-ahead) and fewer successful writes than the
    gold's had happened. Accepts a `Trajectory` or anything with `.messages`."""
    messages = trajectory.messages
    if not messages or messages[-1].role is not Role.USER:
        return False
    if messages[-1].signal is not Signal.STOP:
        return False
    last_agent_text = next(
        (m.content for m in reversed(messages) if m.role is Role.ASSISTANT and m.content), ""
    )
    if not asks_for_confirmation(last_agent_text):
        return False
    return _successful_writes(domain, messages) < len(task.gold)


def is_simulator_error(error: str) -> bool:
    return SIMULATOR_ERROR in error


def simulator_error_rate(records: Iterable[Any]) -> tuple[int, int, float]:
    """(simulator errors, trials, rate) over trial records (`.simulator_error` when they
    have it, otherwise a `SimulatorError` named in `.error`)."""
    total = flagged = 0
    for r in records:
        total += 1
        flag = getattr(r, "simulator_error", None)
        if flag is None:
            flag = is_simulator_error(getattr(r, "error", ""))
        flagged += int(bool(flag))
    return flagged, total, (flagged / total if total else 0.0)
