"""The two extension points: the agent under test and the user simulator.

Both are created fresh for every trial by a factory found by name in the model registry
(`evals.engine.registry`), and both may keep state between calls of that one trial.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from evals.engine.messages import Message


@runtime_checkable
class Agent(Protocol):
    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        """The next assistant message given the whole conversation so far (system prompt with
        the domain policy first, then user, assistant and tool messages) and the tool schemas
        (OpenAI function format). Return text to talk to the user, tool calls to act, or
        `signal=Signal.END` to end the conversation. Raise `InfrastructureError` for failures
        outside the agent (provider down); any other exception is the agent's failure."""
        ...


@runtime_checkable
class UserSimulator(Protocol):
    def respond(self, messages: Sequence[Message]) -> Message:
        """The customer's next message. `messages` is the user's view: its own messages
        (role user) and the agent's message *text* (role assistant) — never tool calls, tool
        results or the system prompt. Return `Signal.STOP` when satisfied, `Signal.ABANDON`
        when giving up."""
        ...


class AgentFactory(Protocol):
    def __call__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> Agent: ...


class UserFactory(Protocol):
    def __call__(
        self,
        *,
        domain: Any,
        scenario: Any,
        persona: Any,
        params: Mapping[str, Any],
        seed: int,
    ) -> UserSimulator: ...
