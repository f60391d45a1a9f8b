"""A stand-in for attacker-chosen code: importing it or calling it leaves a trace.

The tests of the `python:` allow-list name `python:tests.security.canary_agent:respond` and
then look at CALLS and at sys.modules: a refused request must have done neither."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CALLS: list[int] = []


def respond(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> dict:
    CALLS.append(len(messages))
    return {"role": "assistant", "content": "I cannot help with that."}
