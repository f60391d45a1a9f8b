"""Calling a domain's tools in tests (tests/evals_<domain>/test_tools.py) as the engine does:
raw JSON arguments through `Tool.invoke`, so argument checking is part of what is tested.
Each domain binds these to its ToolSet: `call = partial(tool_kit.call, TOOLS)`."""

from __future__ import annotations

import json
from typing import Any

from evals.engine.messages import ToolCall, ToolResult
from evals.engine.tools import ToolSet


def call_raw(tools: ToolSet, world: Any, name: str, raw: str) -> ToolResult:
    result, _ = tools[name].invoke(world, ToolCall("c1", name, raw))
    return result


def call(tools: ToolSet, world: Any, name: str, **args: Any) -> ToolResult:
    return call_raw(tools, world, name, json.dumps(args))


def ok(tools: ToolSet, world: Any, name: str, **args: Any) -> Any:
    """The call's answer (parsed when it is JSON); the call must succeed."""
    result = call(tools, world, name, **args)
    assert not result.error, result.content
    return json.loads(result.content) if result.content.startswith(("{", "[")) else result.content


def err(tools: ToolSet, world: Any, name: str, **args: Any) -> str:
    """The call's error message; the call must fail."""
    result = call(tools, world, name, **args)
    assert result.error, result.content
    return result.content


def assert_documented_for_the_model(tools: ToolSet) -> None:
    """Every tool has a description and every argument an `Args:` line: the schema is all
    the model reads."""
    for t in tools:
        fn = t.schema["function"]
        assert len(fn["description"].strip()) > 20, t.name
        for name, prop in fn["parameters"]["properties"].items():
            assert prop.get("description"), (t.name, name)


def assert_malformed_is_a_tool_error(
    tools: ToolSet, world: Any, name: str, raw: str, message: str
) -> None:
    """Raw arguments the tool cannot take come back as an error for the model, saying why."""
    result = call_raw(tools, world, name, raw)
    assert result.error
    assert message in result.content
