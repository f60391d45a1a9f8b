"""Runs one trial: the agent, the user and the world take turns.

Turn order: a fixed greeting from the agent, then the user speaks; then the agent acts
(tool calls are executed on the world, guarded before every WRITE, and the agent is called
again with their results) until it answers with text, which goes to the user. The user sees
only the agent's text. The trial ends when the user stops or abandons, the agent ends or hands
over to a human, or a limit (turns, tool errors, wall time) is reached.

Dual control: in a domain with the customer's own tools (`Actor.USER`), the user may answer
with tool calls instead of text; they run on the customer's side of the world (unguarded:
the policy binds the agent) and the user is called again with their results until it
speaks. The two sides never see each other's tool traffic: the agent's view holds the
conversation and its own calls, the user's view the conversation and its own calls.

Solo (`solo=True`, the no-customer ablation of a dual-control domain): the agent is given the
customer's tools too and its calls to them run on the customer's side of the world, unguarded
as the customer's own would be; the customer has no tools (its calls are answered "unknown
tool"). A failure that remains in solo is the agent's reasoning; one that disappears was
coordination with the customer.

Given the `task`, the orchestrator also holds the simulated customer to its scenario, on
positive evidence only: a message stating facts absent from it (checked here for simulators
that do not check themselves), or a stop while the agent's last message asked the go-ahead
for exactly a write the task still requires, ends the trial with `simulator_error` — the
measuring instrument failed, not the agent. A stop after any other proposal (a wrong one, a
needless transfer, an unclear question) is an ordinary end that the oracle judges. A
customer's TRANSFER signal ends the trial as a hand-off (`transfer_to_human`), judged by the
oracle like a transfer tool call — except in answer to exactly such a go-ahead question in
which the agent announced no transfer: a simulator error, like the stop.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evals.engine.domain import Domain
from evals.engine.errors import InfrastructureError, SimulatorError
from evals.engine.fidelity import (
    announces_transfer,
    pending_gold_write,
    scenario_text,
    unsupported_facts,
)
from evals.engine.messages import (
    Message,
    PolicyVerdict,
    Role,
    Signal,
    TerminationReason,
    ToolCall,
    ToolResult,
    Trajectory,
    TurnTiming,
)
from evals.engine.policy import PolicyGuard, blocked_message, check_message
from evals.engine.protocols import Agent, UserSimulator
from evals.engine.tools import Actor, Tool, ToolKind
from evals.engine.world import World

GREETING = "Hi! How can I help you today?"


@dataclass(frozen=True, slots=True)
class Limits:
    """`max_turns` counts agent + user messages with text (tool steps are bounded by
    `max_steps_per_turn`); `max_tool_errors` ends the trial once exceeded."""

    max_turns: int = 40
    max_tool_errors: int = 8
    wall_time_s: float = 300.0
    max_steps_per_turn: int = 12


class _Stop(Exception):
    def __init__(self, reason: TerminationReason, error: str = "") -> None:
        self.reason = reason
        self.error = error


class Orchestrator:
    def __init__(
        self,
        *,
        domain: Domain,
        world: World,
        agent: Agent,
        user: UserSimulator,
        guard: PolicyGuard,
        limits: Limits = Limits(),
        task: Any = None,
        solo: bool = False,
    ) -> None:
        self.domain = domain
        self.solo = solo
        self.world = world
        self.agent = agent
        self.user = user
        self.guard = guard
        self.limits = limits
        self.messages: list[Message] = [Message.system(domain.policy)]
        # What each side sees (both only grow, so adapters convert them incrementally).
        self.agent_view: list[Message] = [self.messages[0]]
        self.user_view: list[Message] = []
        self.user_tool_calls = 0
        self.verdicts: list[PolicyVerdict] = []
        self.timings: list[TurnTiming] = []
        self.tool_errors = 0
        self.turns = 0
        self._tools = domain.tools.schemas(Actor.AGENT)
        if solo:
            self._tools = (*self._tools, *domain.tools.schemas(Actor.USER))
        self._deadline = 0.0
        self.task = task
        # Facts the customer may state: its scenario, then the conversation as it goes.
        self._check_facts = task is not None and not getattr(user, "fidelity_checked", False)
        self._seen = [scenario_text(task.scenario)] if self._check_facts else []
        self._facts_upto = 0

    def _time(self, actor: str, start: float) -> None:
        self.timings.append(TurnTiming(len(self.timings), actor, time.perf_counter() - start))

    def _check_limits(self) -> None:
        if self.turns >= self.limits.max_turns:
            raise _Stop(TerminationReason.MAX_TURNS)
        if time.perf_counter() > self._deadline:
            raise _Stop(TerminationReason.WALL_TIME)

    def _call_agent(self) -> Message:
        start = time.perf_counter()
        try:
            reply = self.agent.respond(self.agent_view, self._tools)
        except InfrastructureError as exc:
            raise _Stop(TerminationReason.INFRASTRUCTURE_ERROR, repr(exc)) from None
        except Exception as exc:
            raise _Stop(TerminationReason.AGENT_ERROR, repr(exc)) from None
        finally:
            self._time("agent", start)
        if not isinstance(reply, Message) or reply.role is not Role.ASSISTANT:
            raise _Stop(TerminationReason.AGENT_ERROR, f"agent returned {reply!r}")
        return reply

    def _execute(self, call: ToolCall) -> tuple[ToolResult, bool]:
        """Run one agent tool call; returns the result and whether it ends the conversation."""
        tool = self.domain.tools.get(call.name)
        own = tool is not None and (tool.actor is Actor.AGENT or self.solo)
        if tool is None or not own:
            return self.domain.tools.unknown(call), False
        if tool.kind is ToolKind.WRITE and tool.actor is Actor.AGENT:
            try:
                arguments = tool.parse_arguments(call.arguments)
            except Exception as exc:
                return ToolResult(call.id, tool.name, f"Error: {exc}", error=True), False
            verdict = self.guard.check(
                world=self.world,
                tool=tool,
                arguments=arguments,
                call_id=call.id,
                messages=self.messages,
            )
            self.verdicts.append(verdict)
            if verdict.blocked:
                return ToolResult(call.id, tool.name, blocked_message(verdict), error=True), False
        result = self._invoke(tool, call, "tool")
        return result, tool.terminal and not result.error

    def _agent_turn(self) -> None:
        for _ in range(self.limits.max_steps_per_turn):
            reply = self._call_agent()
            self.messages.append(reply)
            self.agent_view.append(reply)
            if reply.content:
                self.user_view.append(Message.assistant(reply.content, signal=reply.signal))
                self._check_message(reply.content)
            if reply.tool_calls:
                start = time.perf_counter()
                transferred = False
                for call in reply.tool_calls:
                    result, terminal = self._execute(call)
                    transferred = transferred or terminal
                    if result.error:
                        self.tool_errors += 1
                    message = Message.tool(result)
                    self.messages.append(message)
                    self.agent_view.append(message)
                self._time("tool", start)
                if self.tool_errors > self.limits.max_tool_errors:
                    raise _Stop(TerminationReason.MAX_ERRORS)
                if transferred:
                    raise _Stop(TerminationReason.TRANSFER_TO_HUMAN)
            if reply.signal is Signal.END:
                raise _Stop(TerminationReason.AGENT_END)
            if reply.content:
                self.turns += 1
                return
            if not reply.tool_calls:
                raise _Stop(TerminationReason.AGENT_ERROR, "empty assistant message")
            self._check_limits()
        raise _Stop(TerminationReason.MAX_ERRORS, "too many tool steps without a reply")

    def _check_message(self, text: str) -> None:
        """The domain's rules on what the agent said (`Domain.message_rules`)."""
        rules = self.domain.message_rules
        if rules is None:
            return
        verdict = check_message(
            rules, world=self.world, text=text, index=len(self.messages) - 1, mode=self.guard.mode
        )
        if verdict is not None:
            self.verdicts.append(verdict)

    def _call_user(self) -> Message:
        start = time.perf_counter()
        try:
            return self.user.respond(self.user_view)
        except SimulatorError as exc:
            raise _Stop(TerminationReason.SIMULATOR_ERROR, f"user: {exc!r}") from None
        except InfrastructureError as exc:
            raise _Stop(TerminationReason.INFRASTRUCTURE_ERROR, f"user: {exc!r}") from None
        except Exception as exc:
            # The simulator is part of the harness: its crash is not the agent's failure.
            raise _Stop(TerminationReason.INFRASTRUCTURE_ERROR, f"user crashed: {exc!r}") from None
        finally:
            self._time("user", start)

    def _execute_user(self, call: ToolCall) -> ToolResult:
        """Run one of the customer's own tool calls on its side of the world."""
        tool = self.domain.tools.get(call.name)
        if tool is None or tool.actor is not Actor.USER or self.solo:
            return self.domain.tools.unknown(call, Actor.USER)
        return self._invoke(tool, call, "user tool")

    def _invoke(self, tool: Tool, call: ToolCall, label: str) -> ToolResult:
        """Run a tool on the world. A crash inside a tool is a harness bug, not the agent's or
        the customer's fault: the trial stops as an infrastructure error, the tool named."""
        try:
            result, _ = tool.invoke(self.world, call)
        except Exception as exc:
            raise _Stop(
                TerminationReason.INFRASTRUCTURE_ERROR, f"{label} {tool.name}: {exc!r}"
            ) from None
        return result

    def _user_turn(self) -> None:
        for _ in range(self.limits.max_steps_per_turn):
            reply = self._call_user()
            if not isinstance(reply, Message) or reply.role is not Role.USER:
                raise _Stop(TerminationReason.INFRASTRUCTURE_ERROR, f"user returned {reply!r}")
            self.messages.append(reply)
            self.user_view.append(reply)
            if reply.tool_calls:
                ended = len(self.messages)
                start = time.perf_counter()
                for call in reply.tool_calls:
                    self.user_tool_calls += 1
                    message = Message.tool(self._execute_user(call))
                    self.messages.append(message)
                    self.user_view.append(message)
                    if self._check_facts:
                        self._seen.append(message.content)
                self._time("tool", start)
                if reply.signal is Signal.NONE and not reply.content:
                    continue  # the customer acted on its side; it speaks next
                self._spoke(reply, self.messages[:ended])
                return
            self._spoke(reply, self.messages)
            return
        raise _Stop(
            TerminationReason.SIMULATOR_ERROR,
            "SimulatorError: the simulated customer made too many tool calls without a reply",
        )

    def _spoke(self, reply: Message, upto: list[Message]) -> None:
        """The customer's message reaches the agent; check it and honour its signal."""
        if not reply.tool_calls:
            self.agent_view.append(reply)
        elif reply.content or reply.signal is not Signal.NONE:
            # The agent sees the customer's words, never its tool calls.
            self.agent_view.append(Message.user(reply.content, reply.signal))
        self.turns += 1
        if self._check_facts:
            self._check_user_facts(reply)
        if reply.signal in (Signal.STOP, Signal.TRANSFER):
            self._check_owed_write(reply.signal, upto)
        if reply.signal is Signal.STOP:
            raise _Stop(TerminationReason.USER_STOP)
        if reply.signal is Signal.TRANSFER:
            raise _Stop(TerminationReason.TRANSFER_TO_HUMAN)
        if reply.signal is Signal.ABANDON:
            raise _Stop(TerminationReason.USER_ABANDON)

    def _check_owed_write(self, signal: Signal, upto: list[Message]) -> None:
        """A customer that stops, or says it was transferred though the agent announced no
        transfer, right when the agent asks the go-ahead for exactly a write its scenario
        requires broke its scenario: positive evidence of a simulator error."""
        owed = pending_gold_write(self.domain, self.task, upto) if self.task else None
        if owed is None:
            return
        last = next((m.content for m in reversed(upto) if m.role is Role.ASSISTANT), "")
        if signal is Signal.TRANSFER and announces_transfer(last):
            return  # the agent offered the hand-off: the oracle judges it
        did = "stopped" if signal is Signal.STOP else "said it was transferred"
        raise _Stop(
            TerminationReason.SIMULATOR_ERROR,
            f"SimulatorError: the simulated customer {did} when the agent asked the "
            f"go-ahead for {owed.name}{dict(owed.arguments)}, a write its scenario requires",
        )

    def _check_user_facts(self, reply: Message) -> None:
        # The customer saw the agent's texts since it last spoke (its own tool results are
        # added as they come).
        for m in self.user_view[self._facts_upto :]:
            if m.role is Role.ASSISTANT and m.content:
                self._seen.append(m.content)
        self._facts_upto = len(self.user_view)
        invented = unsupported_facts(reply.content, "\n".join(self._seen))
        if invented:
            raise _Stop(
                TerminationReason.SIMULATOR_ERROR,
                "SimulatorError: the simulated customer stated facts absent from its "
                f"scenario: {', '.join(sorted(invented))}",
            )
        self._seen.append(reply.content)

    def run(self) -> Trajectory:
        started = time.perf_counter()
        self._deadline = started + self.limits.wall_time_s
        history = tuple(getattr(self.task, "history", ()) or ()) or (Message.assistant(GREETING),)
        for m in history:
            self.messages.append(m)
            self.agent_view.append(m)
            if m.role is Role.USER or (m.role is Role.ASSISTANT and m.content):
                self.user_view.append(Message(m.role, m.content, signal=m.signal))
        agent_next = history[-1].role in (Role.USER, Role.TOOL)
        reason, error = TerminationReason.MAX_TURNS, ""
        try:
            if agent_next:  # the history ends with the customer's words or a tool result
                self._agent_turn()
                self._check_limits()
            while True:
                self._user_turn()
                self._check_limits()
                self._agent_turn()
                self._check_limits()
        except _Stop as stop:
            reason, error = stop.reason, stop.error
        return Trajectory(
            messages=tuple(self.messages),
            verdicts=tuple(self.verdicts),
            timings=tuple(self.timings),
            termination=reason,
            tool_errors=self.tool_errors,
            seconds=time.perf_counter() - started,
            error=error,
            usage=_usage(self.agent, self.user),
        )


def _usage(agent: Any, user: Any) -> Mapping[str, float]:
    """Token and cost counters of participants that keep them (`usage() -> dict`), prefixed
    by role: {"agent.prompt_tokens": ..., "user.cost_usd": ...}."""
    out: dict[str, float] = {}
    for role, participant in (("agent", agent), ("user", user)):
        usage = getattr(participant, "usage", None)
        if callable(usage):
            for key, value in usage().items():
                out[f"{role}.{key}"] = float(value)
    return out
