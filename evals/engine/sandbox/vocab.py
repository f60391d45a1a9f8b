"""What the domains' scripted vocabularies (`evals/domains/*/scripted/vocab.py`) share: how a
sentence is matched against a table of patterns, and the words in which a customer hears a
refusal that the utterance reader can miss."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A refusal the core reader can miss ("I can't cancel without the fee"): a customer still hears
# a no in it.
REFUSAL_CUE = re.compile(
    r"\b(?:can't|cannot|can not|unable|not able|not possible|won't)\b|无法|不能|不可以", re.I
)


def first_match(table: Iterable[tuple[str, re.Pattern[str]]], text: str) -> str:
    """The name of the first pattern of `table` (in priority order) found in `text`; "" for
    none."""
    return next((name for name, pattern in table if pattern.search(text)), "")
