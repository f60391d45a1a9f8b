"""Engine messages to the OpenAI chat format LiteLLM takes, converted incrementally: a
trial's conversation only grows, so each adapter converts just the new messages per call
instead of re-serialising the whole history (that would be quadratic in the turns)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evals.engine.messages import Message, Role


def to_openai(message: Message) -> dict[str, Any]:
    if message.role is Role.ASSISTANT:
        out: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in message.tool_calls
            ]
        return out
    if message.role is Role.TOOL:
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    return {"role": message.role.value, "content": message.content}


class IncrementalConverter:
    """Keeps the converted prefix; `convert(messages)` converts only what was appended."""

    def __init__(self, transform: Any = to_openai) -> None:
        self._transform = transform
        self._out: list[dict[str, Any]] = []
        self._seen = 0

    def convert(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        if len(messages) < self._seen:  # a different conversation: start over
            self._out, self._seen = [], 0
        for m in messages[self._seen :]:
            converted = self._transform(m)
            if converted is not None:
                self._out.append(converted)
        self._seen = len(messages)
        return list(self._out)  # a shallow copy: LiteLLM may touch the list it is given
