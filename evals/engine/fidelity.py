"""Simulator fidelity: deterministic checks that the simulated customer stayed inside its
scenario. The simulator is part of the measuring instrument; a trial it spoiled says nothing
about the agent, so it ends with `simulator_error` — excluded from pass^k, counted apart,
re-run by resume — never as an agent failure.

- `unsupported_facts(text, seen)`: ids, emails, amounts and self-introduced names in a
  customer message that appear neither in its scenario nor earlier in the conversation (an
  invented order number, a made-up amount, an extra item id).
- `pending_gold_write(domain, task, messages)`: the agent's last message asks the go-ahead
  for exactly a write the task still requires (same tool, every key value the gold call has
  shown in the summary). A customer who stops there, or who says no there and the trial then
  fails, broke its scenario: positive evidence, the only kind that makes a simulator error.
  A customer who leaves after a wrong, needless or unclear proposal is the agent's failure.
  An LLM customer's ###TRANSFER### there counts the same, unless the agent's message
  announced a transfer (`announces_transfer`): then it is a hand-off the oracle judges.
- `declined_gold_write(domain, task, messages)`: the first customer "no" to such a proposal.
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

from evals.engine.errors import SimulatorError, ToolError
from evals.engine.messages import Message, Role
from evals.engine.policy.confirmation import summary_names
from evals.engine.task import GoldCall
from evals.engine.understanding.answers import Answer, read_answer

SIMULATOR_ERROR = "SimulatorError"

__all__ = [
    "SIMULATOR_ERROR",
    "SimulatorError",
    "announces_transfer",
    "asks_for_confirmation",
    "declined_gold_write",
    "invented_facts",
    "is_simulator_error",
    "pending_gold_write",
    "scenario_text",
    "simulator_error_rate",
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


def _done_keys(domain: Any, messages: Sequence[Message]) -> list[str]:
    """Keys (as the oracle compares writes) of the agent's successful WRITE calls."""
    failed = {m.tool_call_id for m in messages if m.role is Role.TOOL and m.error}
    keys = []
    for m in messages:
        for call in m.tool_calls if m.role is Role.ASSISTANT else ():
            tool = domain.tools.get(call.name)
            if tool is None or tool.kind.value != "write" or call.id in failed:
                continue
            try:
                keys.append(domain.write_key(call.name, tool.parse_arguments(call.arguments)))
            except ToolError:
                continue
    return keys


def proposes(domain: Any, call: GoldCall, text: str) -> bool:
    """Whether `text` asks the go-ahead for exactly `call`: it names the action (one of the
    tool's confirmation words) and shows every key value of the call; for a tool that
    declares no confirmation, every value of the call (free text aside) is shown."""
    if not asks_for_confirmation(text):
        return False
    tool = domain.tools.get(call.name)
    if tool is None:
        return False
    if tool.confirm is not None:
        words: Sequence[str] = tool.confirm.words
        keys: Sequence[str] = tool.confirm.keys
    else:
        words = ("",)  # the values alone identify the write
        keys = [k for k in call.arguments if k not in set(tool.free_text)]
    return summary_names(
        summary=text, words=words, key_values={k: call.arguments.get(k) for k in keys}
    )


def _outstanding(domain: Any, task: Any, messages: Sequence[Message]) -> list[GoldCall]:
    done = _done_keys(domain, messages)
    out = []
    for call in task.gold:
        key = domain.write_key(call.name, call.arguments)
        if key in done:
            done.remove(key)
        else:
            out.append(call)
    return out


def pending_gold_write(domain: Any, task: Any, messages: Sequence[Message]) -> GoldCall | None:
    """The outstanding gold write that the agent's last text (before the customer's last
    message) asks the go-ahead for, exactly; None when it asks for nothing the task still
    requires."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role is Role.USER), -1)
    text = next(
        (m.content for m in reversed(messages[:last]) if m.role is Role.ASSISTANT and m.content),
        "",
    )
    if not text:
        return None
    for call in _outstanding(domain, task, messages[:last]):
        if proposes(domain, call, text):
            return call
    return None


def declined_gold_write(domain: Any, task: Any, messages: Sequence[Message]) -> str:
    """A description of the first customer message that said no to exactly a write the task
    still required ("" when there is none)."""
    for i, m in enumerate(messages):
        if m.role is not Role.USER or not m.content:
            continue
        proposal = next(
            (x.content for x in reversed(messages[:i]) if x.role is Role.ASSISTANT and x.content),
            "",
        )
        reading = read_answer(m.content, proposal=proposal)
        # A "change" that names only values the proposal showed restates or corrects the
        # customer's own words ("my mistake: it's #W1, not #W2"); it declines nothing.
        declined = reading.answer is Answer.NO or (
            reading.answer is Answer.CHANGE and (reading.unshown or not reading.values)
        )
        if not declined:
            continue
        call = pending_gold_write(domain, task, messages[: i + 1])
        if call is not None:
            return (
                f"{SIMULATOR_ERROR}: the simulated customer declined ({m.content!r}) the agent's "
                f"proposal of {call.name}{dict(call.arguments)}, a write its scenario requires"
            )
    return ""


# An agent's text that hands the customer over (the customer then says goodbye).
_TRANSFER = re.compile(
    r"\btransferr?(?:ing|ed)?\s+(?:you|this|your)|\btransfer you\b|\bhand(?:ing)? (?:you|this) "
    r"over\b|\bhuman (?:agent|colleague|representative)\b|转人工|转接|人工客服",
    re.IGNORECASE,
)


def announces_transfer(text: str) -> bool:
    """Whether an agent's message hands the customer over to a human."""
    return bool(_TRANSFER.search(text))


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
