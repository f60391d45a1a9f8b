"""Tools: typed functions on a world, tagged READ/WRITE and agent/user.

    @tool(kind=ToolKind.WRITE, confirm=Confirm(words=("cancel", "取消"), keys=("order_id",)))
    def cancel_pending_order(world: RetailWorld, order_id: str, reason: CancelReason) -> dict:
        '''Cancel a pending order ... (written for the model)

        Args:
            order_id: The order id, like "#W1234567".
            reason: Why the customer cancels.
        '''

The JSON schema is built once from the signature (str, int, float, bool, list[...],
Literal[...], X | None) and the docstring (summary + `Args:` lines). `Tool.invoke` takes the
raw JSON text the model produced and never raises for bad input: unknown tool, invalid JSON,
missing, extra or mistyped arguments and `ToolError`s raised by the tool all come back as an
error result the caller can read.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, get_args, get_origin

from evals.engine.errors import EngineError, ToolError
from evals.engine.messages import ToolCall, ToolResult


class ToolKind(StrEnum):
    READ = "read"
    WRITE = "write"


class Actor(StrEnum):
    AGENT = "agent"
    USER = "user"


@dataclass(frozen=True, slots=True)
class Confirm:
    """What the explicit-confirmation rule checks for a WRITE: the agent's summary (its last
    text before the customer's affirmation) names the action with one of `words` and shows
    the value of every argument in `keys` (lists: every element)."""

    words: tuple[str, ...]
    keys: tuple[str, ...]


Validator = Callable[[Any], Any]


class _Invalid(Exception):
    pass


def _type_name(value: Any) -> str:
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _compile(annotation: Any) -> tuple[dict[str, Any], Validator]:
    """JSON schema and validator for one annotation."""
    origin = get_origin(annotation)
    if annotation is str:
        return {"type": "string"}, _expect(str, "a string")
    if annotation is bool:
        return {"type": "boolean"}, _expect(bool, "a boolean")
    if annotation is int:

        def check_int(v: Any) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise _Invalid(f"must be an integer, got {_type_name(v)}")
            return v

        return {"type": "integer"}, check_int
    if annotation is float:

        def check_float(v: Any) -> float:
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise _Invalid(f"must be a number, got {_type_name(v)}")
            return float(v)

        return {"type": "number"}, check_float
    if origin is Literal:
        choices = get_args(annotation)

        def check_choice(v: Any) -> Any:
            if v not in choices or isinstance(v, bool) != isinstance(choices[0], bool):
                raise _Invalid(f"must be one of {', '.join(json.dumps(c) for c in choices)}")
            return v

        return {"type": _type_name(choices[0]), "enum": list(choices)}, check_choice
    if origin in (list, tuple) or annotation in (list, tuple):
        args = get_args(annotation)
        item_schema, item_check = _compile(args[0]) if args else ({}, lambda v: v)

        def check_list(v: Any) -> list[Any]:
            if not isinstance(v, list):
                raise _Invalid(f"must be an array, got {_type_name(v)}")
            out = []
            for i, item in enumerate(v):
                try:
                    out.append(item_check(item))
                except _Invalid as exc:
                    raise _Invalid(f"item {i} {exc}") from None
            return out

        return {"type": "array", "items": item_schema}, check_list
    if origin in (types.UnionType, typing.Union):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) != 1:
            raise EngineError(f"Unsupported union annotation {annotation!r}")
        schema, inner = _compile(members[0])

        def check_optional(v: Any) -> Any:
            return None if v is None else inner(v)

        return {"anyOf": [schema, {"type": "null"}]}, check_optional
    raise EngineError(f"Unsupported tool parameter annotation {annotation!r}")


def _expect(kind: type, label: str) -> Validator:
    def check(v: Any) -> Any:
        if not isinstance(v, kind):
            raise _Invalid(f"must be {label}, got {_type_name(v)}")
        return v

    return check


_ARGS_RE = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$", re.MULTILINE)
_ARG_LINE_RE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    match = _ARGS_RE.search(doc)
    if not match:
        return doc.strip(), {}
    description = doc[: match.start()].strip()
    params: dict[str, str] = {}
    current = ""
    for line in doc[match.end() :].splitlines():
        if line.strip() and not line.startswith(" "):
            rest = line.strip()
            description = f"{description}\n\n{rest}" if rest else description
            current = ""
            continue
        arg = _ARG_LINE_RE.match(line)
        if arg and (len(line) - len(line.lstrip())) <= 4:
            current = arg.group(1)
            params[current] = arg.group(2).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}"
    return description, params


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    required: bool
    default: Any
    check: Validator


@dataclass(frozen=True)
class Tool:
    name: str
    fn: Callable[..., Any]
    kind: ToolKind
    actor: Actor
    description: str
    params: tuple[Param, ...]
    schema: Mapping[str, Any]
    confirm: Confirm | None = None
    terminal: bool = False
    free_text: tuple[str, ...] = ()
    _by_name: Mapping[str, Param] = field(default_factory=dict, repr=False)

    def parse_arguments(self, raw: str) -> dict[str, Any]:
        """Validated keyword arguments from raw JSON text; raises ToolError with a message for
        the model when they are not acceptable."""
        try:
            data = json.loads(raw) if raw and raw.strip() else {}
        except (ValueError, TypeError) as exc:
            raise ToolError(f"the arguments for {self.name} are not valid JSON ({exc}).") from None
        if not isinstance(data, dict):
            raise ToolError(f"the arguments for {self.name} must be a JSON object.")
        extra = sorted(set(data) - set(self._by_name))
        if extra:
            raise ToolError(
                f"{self.name} got unexpected argument(s) {', '.join(extra)}; "
                f"it accepts {', '.join(self._by_name) or 'no arguments'}."
            )
        kwargs: dict[str, Any] = {}
        for param in self.params:
            if param.name not in data:
                if param.required:
                    raise ToolError(f"{self.name} is missing required argument {param.name}.")
                continue
            try:
                kwargs[param.name] = param.check(data[param.name])
            except _Invalid as exc:
                raise ToolError(f"argument {param.name} of {self.name} {exc}.") from None
        return kwargs

    def invoke(self, world: Any, call: ToolCall) -> tuple[ToolResult, dict[str, Any] | None]:
        """Run the call on `world`. Returns the result and the parsed arguments (None when
        the arguments were rejected)."""
        try:
            kwargs = self.parse_arguments(call.arguments)
        except ToolError as exc:
            return ToolResult(call.id, self.name, f"Error: {exc}", error=True), None
        try:
            value = self.fn(world, **kwargs)
        except ToolError as exc:
            return ToolResult(call.id, self.name, f"Error: {exc}", error=True), kwargs
        content = (
            value
            if isinstance(value, str)
            else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        )
        return ToolResult(call.id, self.name, content), kwargs


def tool(
    *,
    kind: ToolKind,
    actor: Actor = Actor.AGENT,
    confirm: Confirm | None = None,
    terminal: bool = False,
    free_text: tuple[str, ...] = (),
    name: str = "",
) -> Callable[[Callable[..., Any]], Tool]:
    """Turn `fn(world, **typed_args)` into a Tool. `terminal` tools end the conversation after
    the agent's turn (transfer to a human). WRITE tools without `confirm` skip the
    confirmation rule (a handoff needs none). `free_text` arguments (a summary for the human)
    are ignored when the oracle matches the agent's writes against the gold writes."""

    def wrap(fn: Callable[..., Any]) -> Tool:
        hints = typing.get_type_hints(fn)
        signature = inspect.signature(fn)
        description, docs = _parse_docstring(fn.__doc__ or "")
        if not description:
            raise EngineError(f"Tool {fn.__name__} needs a docstring: it is what the model reads.")
        params: list[Param] = []
        properties: dict[str, Any] = {}
        required: list[str] = []
        for pname, p in list(signature.parameters.items())[1:]:
            schema, check = _compile(hints[pname])
            if pname in docs:
                schema = {**schema, "description": docs[pname]}
            properties[pname] = schema
            is_required = p.default is inspect.Parameter.empty
            if is_required:
                required.append(pname)
            params.append(Param(pname, is_required, p.default, check))
        tool_name = name or fn.__name__
        schema = {
            "type": "function",
            "function": {
                "name": tool_name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": False,
                },
            },
        }
        if confirm is not None:
            unknown = set(confirm.keys) - set(properties)
            if unknown:
                raise EngineError(f"Tool {tool_name}: confirm keys {unknown} are not arguments")
        return Tool(
            name=tool_name,
            fn=fn,
            kind=kind,
            actor=actor,
            description=description,
            params=tuple(params),
            schema=schema,
            confirm=confirm,
            terminal=terminal,
            free_text=tuple(free_text),
            _by_name={p.name: p for p in params},
        )

    return wrap


class ToolSet:
    """The tools of one domain, by name (duplicates rejected); schemas computed once."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            if t.name in self._tools:
                raise EngineError(f"Duplicate tool name {t.name!r}")
            self._tools[t.name] = t
        self._schemas = {
            actor: tuple(t.schema for t in self._tools.values() if t.actor is actor)
            for actor in Actor
        }

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __iter__(self) -> typing.Iterator[Tool]:
        return iter(self._tools.values())

    def names(self, actor: Actor = Actor.AGENT) -> list[str]:
        return [t.name for t in self._tools.values() if t.actor is actor]

    def schemas(self, actor: Actor = Actor.AGENT) -> tuple[Mapping[str, Any], ...]:
        return self._schemas[actor]

    def unknown(self, call: ToolCall, actor: Actor = Actor.AGENT) -> ToolResult:
        return ToolResult(
            call.id,
            call.name,
            f"Error: unknown tool {call.name!r}. Available tools: {', '.join(self.names(actor))}.",
            error=True,
        )
