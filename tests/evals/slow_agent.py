"""A slow agent for the kill -9 test: the first reply of each conversation takes a second, so
a worker killed while trials are being stored is almost surely in the middle of one. It then
declines, as a blanket refuser does; the test counts stored trials, not passes."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

FIRST_REPLY_SECONDS = 1.0


def respond(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> dict:
    if not any(m.get("role") == "assistant" for m in messages):
        time.sleep(FIRST_REPLY_SECONDS)
    return {"role": "assistant", "content": "I cannot help with that."}
