"""The LLM judge of τ²'s natural-language assertions ("The agent confirmed the task was
created successfully").

Enabled by a judge model on the run (`RunSpec.judge_model`, `judge_params`); it goes through
the model client like every other LLM call (bounded retries, accounting). One call per trial
judges every assertion that counts (`Task.judged_in_prose`) against the transcript of what
the agent saw — the conversation and the agent's own tool calls and results, never the
customer's own tool traffic or the policy prompt — at temperature 0, and must answer with
JSON: `{"verdicts": [{"reasoning": "...", "met": true}, ...]}`, one per assertion, in order.
The reasoning is kept on the record. An answer that is not that JSON, or a judge call that
fails, is an infrastructure error (`JudgeError`): the trial is excluded and re-run, never
charged to the agent. Without a judge model the assertions are recorded "not judged" — never
passed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.engine.errors import InfrastructureError
from evals.engine.messages import Message, Role, Trajectory

MET, NOT_MET, NOT_JUDGED = "met", "not_met", "not_judged"

SYSTEM = """\
You are a strict evaluator of customer-service conversations. You are given the transcript
of a conversation between a customer ("user") and a customer-service agent ("assistant"),
including the agent's tool calls and their results, and a numbered list of assertions.
For each assertion decide whether the transcript shows it to be true. Judge only from the
transcript; an assertion the transcript does not clearly support is not met.

Answer with one JSON object and nothing else:
{"verdicts": [{"assertion": <number>, "reasoning": "<one or two sentences>", "met": true|false}, ...]}
with exactly one verdict per assertion, in the order given."""


def _role() -> Any:
    # The client knows two roles (agent, user); the judge's calls go to an accounting of
    # their own, so they are never mixed with the agent's — the role there is nominal.
    from evals.engine.llm import CallRole

    return CallRole.AGENT


class JudgeError(InfrastructureError):
    """The judge could not give a verdict (malformed answer, or its call failed)."""


@dataclass(frozen=True, slots=True)
class NLVerdict:
    assertion: str
    status: str  # met / not_met / not_judged
    reasoning: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"assertion": self.assertion, "status": self.status}
        if self.reasoning:
            out["reasoning"] = self.reasoning
        return out


def not_judged(assertions: Sequence[str]) -> tuple[NLVerdict, ...]:
    return tuple(NLVerdict(a, NOT_JUDGED) for a in assertions)


def _line(message: Message) -> list[str]:
    if message.role is Role.ASSISTANT:
        lines = [f"assistant: {message.content}"] if message.content else []
        lines += [f"assistant calls {c.name}({c.arguments})" for c in message.tool_calls]
        return lines
    if message.role is Role.USER:
        return [f"user: {message.content}"] if message.content else []
    return []


def transcript(trajectory: Trajectory) -> str:
    """What the agent saw, as text: the customer's and the agent's words, the agent's tool
    calls and their results (the customer's own tool calls and results are left out)."""
    agent_calls = {
        c.id for m in trajectory.messages if m.role is Role.ASSISTANT for c in m.tool_calls
    }
    lines: list[str] = []
    for m in trajectory.messages:
        if m.role is Role.TOOL:
            if m.tool_call_id in agent_calls:
                lines.append(f"tool {m.name} returned: {m.content}")
            continue
        lines += _line(m)
    return "\n".join(lines)


def _strip_fence(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def parse_verdicts(content: str, assertions: Sequence[str]) -> tuple[NLVerdict, ...]:
    """The judge's answer as verdicts; `JudgeError` unless it is exactly the JSON asked for."""
    try:
        data = json.loads(_strip_fence(content))
    except ValueError as exc:
        raise JudgeError(f"judge: the answer is not JSON ({exc}): {content[:200]!r}") from None
    verdicts = data.get("verdicts") if isinstance(data, Mapping) else None
    if not isinstance(verdicts, list) or len(verdicts) != len(assertions):
        raise JudgeError(f"judge: expected {len(assertions)} verdicts, got {content[:200]!r}")
    out = []
    for i, (assertion, v) in enumerate(zip(assertions, verdicts, strict=True), start=1):
        if not isinstance(v, Mapping) or not isinstance(v.get("met"), bool):
            raise JudgeError(f"judge: verdict {i} has no boolean 'met': {v!r}")
        number = v.get("assertion", i)
        if number != i and number != assertion:
            raise JudgeError(f"judge: verdict {i} is about assertion {number!r}")
        reasoning = v.get("reasoning", "")
        if not isinstance(reasoning, str):
            raise JudgeError(f"judge: verdict {i} has a non-text reasoning")
        out.append(NLVerdict(assertion, MET if v["met"] else NOT_MET, reasoning.strip()))
    return tuple(out)


class NLJudge:
    """`judge(assertions, trajectory, trial_id)` -> verdicts; `usage()` after it."""

    def __init__(self, spec: Any, client: Any) -> None:
        self.spec = spec
        self.client = client
        self.accounting: Any = None

    def judge(
        self, assertions: Sequence[str], trajectory: Trajectory, *, trial_id: str
    ) -> tuple[NLVerdict, ...]:
        from evals.engine.llm import AgentModelError, TrialAccounting

        self.accounting = TrialAccounting(f"judge-{trial_id}")
        numbered = "\n".join(f"{i}. {a}" for i, a in enumerate(assertions, start=1))
        messages = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": f"# Transcript\n{transcript(trajectory)}\n\n# Assertions\n{numbered}",
            },
        ]
        try:
            completion = self.client.complete(
                self.spec, messages, role=_role(), accounting=self.accounting
            )
        except InfrastructureError as exc:
            raise JudgeError(f"judge: {exc}") from exc
        except AgentModelError as exc:  # e.g. the transcript overflows the judge's context
            raise JudgeError(f"judge: {exc}") from exc
        return parse_verdicts(completion.content, assertions)

    def usage(self) -> dict[str, float]:
        from evals.engine.llm.shared import usage_numbers

        if self.accounting is None:
            return {}
        return usage_numbers(self.accounting.totals().get(_role()))

    def resolved_models(self) -> list[str]:
        if self.accounting is None:
            return []
        return list(self.accounting.resolved_models(_role()))


def make_judge(model: str, params: Mapping[str, Any]) -> NLJudge:
    """A judge on the shared model client: temperature 0 and a JSON answer, whatever the
    run's `judge_params` add (connection keys, max_tokens; `response_format: null` drops
    the JSON mode for an endpoint that lacks it)."""
    from evals.engine.llm.shared import default_client, spec_from_params

    merged: dict[str, Any] = {"response_format": {"type": "json_object"}, **params}
    merged["temperature"] = 0
    if merged.get("response_format") is None:
        merged.pop("response_format")
    return NLJudge(spec_from_params(model, merged), default_client())
