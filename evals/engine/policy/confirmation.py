"""The explicit-confirmation rule, recognised deterministically in English and Chinese.

A WRITE is confirmed when (1) the agent's last text before the customer's last message named
the action and every key argument value, and (2) that customer message is an affirmation: it
contains an affirmative expression, no negation, no change request ("yes but make it 20"), and
no number or id that the summary did not show (a different amount is not a confirmation of
the old one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from evals.engine.messages import Violation

# Phrases that contain a negation word but mean yes (or nothing); removed before the check.
_BENIGN = re.compile(
    r"no problem|no worries|not a problem|no longer|no doubt|没问题|不错|不客气|不用谢",
    re.IGNORECASE,
)
_NEGATION_EN = re.compile(
    r"\b(no|nope|nah|not|don'?t|do not|never|wait|stop|hold on|cancel that)\b", re.IGNORECASE
)
_NEGATION_ZH = re.compile(r"[不别没勿]|算了|等等|等一下|先别")
_AFFIRM_EN = re.compile(
    r"\b(yes|yeah|yep|yup|sure|ok|okay|confirm(?:ed)?|correct|right|go ahead|please do|"
    r"proceed|do it|sounds good|absolutely|affirmative|that'?s fine|fine)\b",
    re.IGNORECASE,
)
_AFFIRM_ZH = re.compile(r"是的|是|对的|对|确认|好的|好|可以|没问题|行|同意|继续|请办理")
_CHANGE = re.compile(
    r"\b(but|however|instead|change|actually|except|rather|different)\b|但是|不过|改成|改为|换成|而是",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"#?[A-Za-z]*\d[\d,.]*[A-Za-z\d]*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def is_affirmation(reply: str) -> bool:
    """True when `reply` says yes, without a negation or a change request."""
    if "?" in reply or "？" in reply:
        return False  # a question ("why do I have to confirm?") is not an answer
    text = _BENIGN.sub(" ", reply)
    if not (_AFFIRM_EN.search(reply) or _AFFIRM_ZH.search(reply)):
        return False
    if _NEGATION_EN.search(text) or _NEGATION_ZH.search(text):
        return False
    return not _CHANGE.search(text)


def is_negation_or_change(reply: str) -> bool:
    """True when `reply` says no or asks for something different."""
    text = _BENIGN.sub(" ", reply)
    return bool(_NEGATION_EN.search(text) or _NEGATION_ZH.search(text) or _CHANGE.search(text))


def _numbers(text: str) -> set[Decimal]:
    out: set[Decimal] = set()
    for raw in _NUMBER.findall(text):
        try:
            out.add(Decimal(raw.replace(",", "")))
        except InvalidOperation:
            continue
    return out


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


def _unshown_tokens(reply: str, summary_lower: str, summary_numbers: set[Decimal]) -> list[str]:
    unshown = []
    for token in _TOKEN.findall(reply):
        token = token.rstrip(".,")
        if token.lower() in summary_lower:
            continue
        nums = _numbers(token)
        if nums and nums <= summary_numbers and not re.search(r"[A-Za-z#]", token):
            continue
        unshown.append(token)
    return unshown


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
    if not is_affirmation(reply):
        return Violation(
            "no_confirmation",
            "The customer's last message is not an explicit confirmation of the summarised "
            "action; ask again.",
        )
    numbers = _numbers(summary)
    missing = [k for k, v in key_values.items() if not _value_shown(v, summary_lower, numbers)]
    if missing:
        return Violation(
            "confirmation_arguments_differ",
            "The customer did not confirm these values (not in your summary): "
            + ", ".join(f"{k}={key_values[k]!r}" for k in missing)
            + ".",
        )
    unshown = _unshown_tokens(reply, summary_lower, numbers)
    if unshown:
        return Violation(
            "confirmation_arguments_differ",
            f"The customer mentioned {', '.join(unshown)}, which your summary did not; "
            "summarise the action again with those values and ask for confirmation.",
        )
    return None


def summary_names(*, summary: str, words: Iterable[str], key_values: Mapping[str, Any]) -> bool:
    """Whether `summary` names the action (one of `words`) and shows every key value — what
    the confirmation rule asks of the agent's summary, without a reply to judge."""
    summary_lower = summary.lower()
    if not any(w.lower() in summary_lower for w in words):
        return False
    numbers = _numbers(summary)
    return all(_value_shown(v, summary_lower, numbers) for v in key_values.values())
