"""Conversation and trajectory types: what agents, users and the world exchange.

Everything here is a frozen dataclass that serialises to compact JSON (empty fields are left
out) and back, so a trajectory can be stored in one JSON line and replayed or displayed later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Signal(StrEnum):
    """How a participant ends the conversation. Users stop (satisfied), abandon (gave up) or
    say they were transferred to a human (an LLM customer's ###TRANSFER###); agents end
    (nothing left to do)."""

    NONE = ""
    STOP = "stop"
    ABANDON = "abandon"
    TRANSFER = "transfer"
    END = "end"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model produced it: `arguments` is the raw JSON text, unparsed, so a
    malformed call is kept as it was and answered with a tool error."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        return cls(id=str(data["id"]), name=str(data["name"]), arguments=str(data["arguments"]))


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one ToolCall: `content` is what the caller reads (JSON text or an error
    sentence); `error` marks tool errors (unknown tool, bad arguments, domain error, blocked
    by the policy guard)."""

    call_id: str
    name: str
    content: str
    error: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """One message. `role` decides which fields are used:
    system/user: content; assistant: content and/or tool_calls; tool: content, tool_call_id,
    name, error. `signal` lets a user stop/abandon or an agent end the conversation."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str = ""
    error: bool = False
    signal: Signal = Signal.NONE

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(Role.SYSTEM, content)

    @classmethod
    def user(cls, content: str, signal: Signal = Signal.NONE) -> Message:
        return cls(Role.USER, content, signal=signal)

    @classmethod
    def assistant(
        cls, content: str = "", tool_calls: tuple[ToolCall, ...] = (), signal: Signal = Signal.NONE
    ) -> Message:
        return cls(Role.ASSISTANT, content, tool_calls=tuple(tool_calls), signal=signal)

    @classmethod
    def tool(cls, result: ToolResult) -> Message:
        return cls(
            Role.TOOL,
            result.content,
            tool_call_id=result.call_id,
            name=result.name,
            error=result.error,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role.value}
        if self.content:
            out["content"] = self.content
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id:
            out["tool_call_id"] = self.tool_call_id
        if self.name:
            out["name"] = self.name
        if self.error:
            out["error"] = True
        if self.signal:
            out["signal"] = self.signal.value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        return cls(
            role=Role(data["role"]),
            content=data.get("content", ""),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls", ())),
            tool_call_id=data.get("tool_call_id", ""),
            name=data.get("name", ""),
            error=bool(data.get("error", False)),
            signal=Signal(data.get("signal", "")),
        )


@dataclass(frozen=True, slots=True)
class Violation:
    code: str
    message: str


class GuardMode(StrEnum):
    ENFORCE = "enforce"
    OBSERVE = "observe"


@dataclass(frozen=True, slots=True)
class PolicyVerdict:
    """The guard's decision on one WRITE call. `blocked` is true only in enforce mode with at
    least one violation; in observe mode the write runs and the violations stay on record."""

    call_id: str
    tool: str
    violations: tuple[Violation, ...]
    mode: GuardMode
    blocked: bool

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "tool": self.tool,
            "violations": [[v.code, v.message] for v in self.violations],
            "mode": self.mode.value,
            "blocked": self.blocked,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicyVerdict:
        return cls(
            call_id=data["call_id"],
            tool=data["tool"],
            violations=tuple(Violation(c, m) for c, m in data["violations"]),
            mode=GuardMode(data["mode"]),
            blocked=bool(data["blocked"]),
        )


class TerminationReason(StrEnum):
    USER_STOP = "user_stop"
    USER_ABANDON = "user_abandon"
    AGENT_END = "agent_end"
    TRANSFER_TO_HUMAN = "transfer_to_human"
    MAX_TURNS = "max_turns"
    MAX_ERRORS = "max_errors"
    WALL_TIME = "wall_time"
    AGENT_ERROR = "agent_error"
    INFRASTRUCTURE_ERROR = "infrastructure_error"
    SIMULATOR_ERROR = "simulator_error"


@dataclass(frozen=True, slots=True)
class TurnTiming:
    """Seconds spent inside one participant's `respond` (actor "agent" or "user") or in the
    world executing a turn's tool calls (actor "tool"). Index = position in the turn order."""

    turn: int
    actor: str
    seconds: float


@dataclass(frozen=True)
class Trajectory:
    messages: tuple[Message, ...]
    verdicts: tuple[PolicyVerdict, ...]
    timings: tuple[TurnTiming, ...]
    termination: TerminationReason
    tool_errors: int
    seconds: float
    error: str = ""
    usage: Mapping[str, float] = field(default_factory=dict)
    # Per message: when it was asked for, seconds, and its model calls' tokens, cost and
    # latency (filled in by the runner, see evals.engine.runner.turns).
    message_records: tuple[Mapping[str, Any], ...] = ()

    def agent_texts(self) -> list[str]:
        return [m.content for m in self.messages if m.role is Role.ASSISTANT and m.content]

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": [m.to_dict() for m in self.messages],
            "verdicts": [v.to_dict() for v in self.verdicts],
            "timings": [[t.turn, t.actor, round(t.seconds, 6)] for t in self.timings],
            "termination": self.termination.value,
            "tool_errors": self.tool_errors,
            "seconds": round(self.seconds, 6),
            "error": self.error,
            "usage": dict(self.usage),
            "message_records": [dict(r) for r in self.message_records],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trajectory:
        return cls(
            messages=tuple(Message.from_dict(m) for m in data["messages"]),
            verdicts=tuple(PolicyVerdict.from_dict(v) for v in data["verdicts"]),
            timings=tuple(TurnTiming(t, a, s) for t, a, s in data["timings"]),
            termination=TerminationReason(data["termination"]),
            tool_errors=int(data["tool_errors"]),
            seconds=float(data["seconds"]),
            error=data.get("error", ""),
            usage=dict(data.get("usage", {})),
            message_records=tuple(dict(r) for r in data.get("message_records") or ()),
        )
