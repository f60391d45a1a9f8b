"""The explicit-confirmation rule, recognised deterministically in English and Chinese.

A WRITE is confirmed when (1) the agent's last text before the customer's last message named
the action and every key argument value, and (2) that customer message, read by
`evals.engine.understanding.answers.read_answer` against that text, confirms it: a yes or a
yes with a complaint ("Yes, but hurry up"), not a no, a change ("yes but make it 20"), a
question back or something unclear, and no id or amount the summary did not show (a
different amount is not a confirmation of the old one).

`customer_answer(messages)` is that same reading of a conversation: the reference agents act
on it, so the agent and the guard cannot disagree about whether the customer said yes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from evals.engine.messages import Message, Role, Violation
from evals.engine.understanding.answers import Reading, numbers_in, read_answer


def last_summary_and_reply(messages: Sequence[Message]) -> tuple[str, str]:
    """(the agent's last text before the customer's last message, that message)."""
    reply_index = -1
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role is Role.USER:
            reply_index = i
            break
    if reply_index < 0:
        return "", ""
    for j in range(reply_index - 1, -1, -1):
        m = messages[j]
        if m.role is Role.ASSISTANT and m.content:
            return m.content, messages[reply_index].content
    return "", messages[reply_index].content


def customer_answer(messages: Sequence[Message]) -> Reading:
    """How the customer's last message answers the agent's last text before it — exactly
    the reading `check_confirmation` enforces on a write made now."""
    summary, reply = last_summary_and_reply(messages)
    return read_answer(reply, proposal=summary)


def _value_shown(value: Any, summary_lower: str, summary_numbers: set[Decimal]) -> bool:
    if isinstance(value, list | tuple):
        return all(_value_shown(v, summary_lower, summary_numbers) for v in value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return Decimal(str(value)) in summary_numbers
    text = str(value).strip().lower()
    if text in summary_lower:
        return True
    try:
        return Decimal(text) in summary_numbers
    except InvalidOperation:
        return False


def check_confirmation(
    *,
    summary: str,
    reply: str,
    words: Iterable[str],
    key_values: Mapping[str, Any],
) -> Violation | None:
    """None when `reply` confirms the action summarised in `summary`, else why not."""
    if not summary:
        return Violation(
            "no_confirmation", "Summarise the action and ask the customer to confirm it first."
        )
    summary_lower = summary.lower()
    if not any(w.lower() in summary_lower for w in words):
        return Violation(
            "confirmation_wrong_action",
            "Your last message to the customer did not describe this action; summarise it "
            "and ask for explicit confirmation.",
        )
    if not reply:
        return Violation("no_confirmation", "The customer has not replied to your summary yet.")
    reading = read_answer(reply, proposal=summary)
    if not reading.confirms and not reading.unshown:
        return Violation(
            "no_confirmation",
            "The customer's last message is not an explicit confirmation of the summarised "
            "action; ask again.",
        )
    numbers = numbers_in(summary)
    missing = [k for k, v in key_values.items() if not _value_shown(v, summary_lower, numbers)]
    if missing:
        return Violation(
            "confirmation_arguments_differ",
            "The customer did not confirm these values (not in your summary): "
            + ", ".join(f"{k}={key_values[k]!r}" for k in missing)
            + ".",
        )
    if reading.unshown:
        return Violation(
            "confirmation_arguments_differ",
            f"The customer mentioned {', '.join(reading.unshown)}, which your summary did "
            "not; summarise the action again with those values and ask for confirmation.",
        )
    return None


def summary_names(*, summary: str, words: Iterable[str], key_values: Mapping[str, Any]) -> bool:
    """Whether `summary` names the action (one of `words`) and shows every key value — what
    the confirmation rule asks of the agent's summary, without a reply to judge."""
    summary_lower = summary.lower()
    if not any(w.lower() in summary_lower for w in words):
        return False
    numbers = numbers_in(summary)
    return all(_value_shown(v, summary_lower, numbers) for v in key_values.values())
