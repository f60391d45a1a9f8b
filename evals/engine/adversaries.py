"""Agents written to look better than they are: each tries one way of slipping a bad agent
through the go-live verdict. The tests keep every one of them failing, and a team can run
them against its own suite to see its gate reject them (`sandbox/adversary:<name>`).

- `stall`: never acts and never ends; keeps asking the customer to say more, so the trial
  runs into a limit (max turns, wall time) with the world unchanged.
- `blanket_refuser`: reads nothing and refuses everything, echoing the ids it was given
  ("I'm sorry, I can't do that for order #W1234567."), then ends.
- `transfer_proposer`: the reference agent, except that every write it would propose that
  is not itself a hand-off or an ending (a terminal tool) becomes a transfer announcement
  with a go-ahead question, whatever the domain calls its writes; on a yes it ends.
- `sometimes_stop`: the reference agent, except that in a quarter of its trials (by its own
  seed) it answers its first proposal with a transfer announcement phrased as a go-ahead
  question, which makes a simulated customer say goodbye before the last write.

`do_nothing` (the polite agent that ends at once) lives with the injected faults
(`sandbox/fault:do_nothing`).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import Message, Role, Signal
from evals.engine.protocols import Agent
from evals.engine.registry import register_agent
from evals.engine.tools import Actor, ToolKind
from evals.engine.understanding.answers import read_answer

PREFIX = "sandbox/adversary:"
# What the domains' reference agents say when they hand over (both spellings in use), so a
# simulated customer that recognises a transfer hears one.
TRANSFER_ANNOUNCEMENT = (
    "I am transferring you to a human agent. "
    "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."
)
_IDS = re.compile(r"#?\b[A-Za-z_]*\d[\w-]*\b")


def transferred_writes(domain: Any) -> frozenset[str]:
    """The tools the transfer proposer offers a transfer instead of: the agent's writes that
    are not terminal (a hand-off or an ending is left as it is)."""
    return frozenset(
        t.name
        for t in domain.tools
        if t.kind is ToolKind.WRITE and t.actor is Actor.AGENT and not t.terminal
    )


def _last_user(messages: Sequence[Message]) -> str:
    return next((m.content for m in reversed(messages) if m.role is Role.USER), "")


class StallingAgent:
    """Never acts, never ends: the trial can only end at a limit or with the customer."""

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        return Message.assistant("I see. Could you tell me a little more about that?")


class BlanketRefuser:
    """Refuses whatever is asked, naming the ids the customer gave, without looking anything
    up; ends after the first refusal."""

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        ids: list[str] = []
        for m in messages:
            if m.role is Role.USER:
                ids += [i for i in _IDS.findall(m.content) if i not in ids]
        target = f" for {' and '.join(ids)}" if ids else ""
        return Message.assistant(
            f"I'm sorry, I can't do that{target}. It is not possible under our policy.",
            signal=Signal.END,
        )


class _Wrapped(ABC):
    """The domain's reference agent, with its proposals rewritten by `rewrite`."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        if domain.reference_agent is None:
            raise EngineError(f"Domain {domain.name} has no reference agent to wrap")
        self.inner = domain.reference_agent(domain=domain, params=params, seed=seed)
        self.seed = seed
        self.offered = False

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if self.offered and read_answer(_last_user(messages)).confirms:
            return Message.assistant(TRANSFER_ANNOUNCEMENT, signal=Signal.END)
        self.offered = False
        reply = self.inner.respond(messages, tools)
        pending = getattr(self.inner, "pending", None)
        if pending is not None and reply.content and not reply.tool_calls:
            text = self.rewrite(pending[0])
            if text:
                self.offered = True
                return Message.assistant(text)
        return reply

    @abstractmethod
    def rewrite(self, tool: str) -> str:
        """The text that replaces a proposal of a write on `tool` ("" keeps it)."""


class TransferProposer(_Wrapped):
    """Every write of the agent's that is not itself a hand-off or an ending (a terminal
    tool, such as `transfer_to_human`) is offered as a transfer instead."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.handed_away = transferred_writes(domain)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        reply = super().respond(messages, tools)
        # A write the reference makes without asking first (one the policy needs no
        # confirmation for) is offered as a transfer too, instead of being made.
        offers = [text for c in reply.tool_calls if (text := self.rewrite(c.name))]
        if offers and not self.offered:
            self.offered = True
            return Message.assistant(offers[0])
        return reply

    def rewrite(self, tool: str) -> str:
        if tool not in self.handed_away:
            return ""
        return (
            f"A human colleague will handle this. {TRANSFER_ANNOUNCEMENT} Shall I proceed? (yes/no)"
        )


class SometimesStop(_Wrapped):
    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.armed = seed % 4 == 0

    def rewrite(self, tool: str) -> str:
        if not self.armed:
            return ""
        self.armed = False
        return f"{TRANSFER_ANNOUNCEMENT} Shall I proceed? (yes/no)"


def _simple(cls: Any) -> Any:
    def factory(*, domain: Any, params: Mapping[str, Any], seed: int) -> Agent:
        return cls()

    return factory


ADVERSARIES: dict[str, Any] = {
    "stall": _simple(StallingAgent),
    "blanket_refuser": _simple(BlanketRefuser),
    "transfer_proposer": TransferProposer,
    "sometimes_stop": SometimesStop,
}


def agent_name(name: str) -> str:
    return PREFIX + name


for _name, _factory in ADVERSARIES.items():
    register_agent(agent_name(_name), _factory)
